"""The nodes of a plan at a backfill map record's edge (backfill.c TRY_LATER, a time no
running job ends at) when the job does not fit on what is free now: cons_common/job_test.c
``_will_run_test`` takes the running jobs on the try's nodes out in batches of their ends
and tests the job after each, so its nodes are those freed by the earliest-ending jobs, not
the best fit once every running job has ended (backfill.c then keeps the try's time)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from realslurm_fixtures import DATA, real_queue
from realslurm_fixtures import replay as _run
from test_speed_paths_equal import (
    DEALT,
    GPUS,
    KINDS,
    SETTINGS,
    conf,
    events,
    gpu_workloads,
    history,
    replaced,
    run_or_refused,
)

from slurmlab import Cluster, simulate
from slurmlab.policies import backfill
from slurmlab.policies.backfill import _pick, _snapshots, _walk, _will_run_batches
from slurmlab.policies.nodespace import bits_mask
from slurmlab.sim.result import squeue_frame
from slurmlab.spec.synthetic import ai_workload

# (sbatch's warnings on the random requests are tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore")


def _plan(name: str, t: float, key: str) -> tuple[float, str]:
    """The simulation's squeue --start row of ``key`` at ``t``: (start from t0, SCHEDNODES)."""
    sim = _run(name).sim
    row = squeue_frame(sim, t).set_index("JOBID").loc[key]
    return (row["START_TIME"] - sim.origin).total_seconds(), row["SCHEDNODES"]


def _real(name: str, t: int, key: str) -> tuple[float, str]:
    """Real Slurm's squeue --start row of ``key`` at ``t``: (start from t0, SCHEDNODES, read
    from the snapshot: queue.csv keeps no SCHEDNODES)."""
    real = real_queue(name)
    row = real[(real["t"] == t) & (real["key"] == key)].iloc[0]
    block = (DATA / name / "snapshots.txt").read_text().split(f"######## t=+{t}s")[1]
    squeue = block.split("$ squeue --start -a -r\n", 1)[1].split("\n\n", 1)[0]
    fields = next(f for f in map(str.split, squeue.splitlines()) if f[0] == str(row["job_id"]))
    return row["start_s"], fields[7]


@pytest.mark.parametrize("t", [100, 110, 120, 130, 140])
def test_node_range_plan_after_a_reservation_takes_the_nodes_freed_first(t):
    """node-range: long (-N 2 --exclusive, 10:00) is tried at the end of big's reservation
    (all four nodes); nothing is free now, and of the running jobs short on gpu[3-4] ends
    first: real Slurm plans long on gpu[3-4] (the simulator planned gpu[1-2])."""
    assert _real("node-range", t, "long") == (472, "gpu[3-4]")
    assert _plan("node-range", t, "long") == (472.0, "gpu[3-4]")


@pytest.mark.parametrize("t", [30, 40, 50, 60, 70])
def test_update_plan_after_a_reservation_takes_the_node_freed_first(t):
    """update: long (-N 1 --exclusive) is tried at the end of big's reservation on the
    nodes wide's plan leaves; real Slurm plans it on gpu4 (freed first: the simulator
    planned gpu1)."""
    start, nodes = _real("update", t, "long")
    assert nodes == "gpu4"
    assert _plan("update", t, "long") == (start, "gpu4")


def test_will_run_batches_peek_at_the_next_job_of_the_whole_list():
    """job_test.c ``_will_run_test``: a job on none of the try's nodes is skipped, but
    after each job taken out the batch break and the window's doubling look at the next
    job of the whole end-sorted list (``list_peek_next``): here the job ending at 170 (on
    other nodes) ends the first batch (barrier 120, 30 s window) and the window doubles to
    60 s only (170 is within 180), so 230 (past 180) cuts the next batch after 200."""
    e = [100.0, 170.0, 200.0, 230.0, 400.0]
    held = [0b01, 0b10, 0b01, 0b01, 0b01]
    assert _will_run_batches(e, held, 0b01, 0.0) == [100.0, 200.0, 230.0, 400.0]
    # (peeking at the jobs on the try's nodes only, 200 would have doubled the window to
    # 120 s, and 200 and 230 been taken out together)
    on_only = [x for x, h in zip(e, held) if h & 0b01]
    assert _will_run_batches(on_only, [1] * 4, 1, 0.0) == [100.0, 230.0, 400.0]


def test_will_run_batches_align_on_epoch_seconds_and_stop_at_upto():
    """The first batch's ``end_time`` is the first end rounded up to the next multiple of
    30 epoch seconds (a whole 30 s when it is one already)."""
    e = [95.0, 145.0, 500.0]
    assert _will_run_batches(e, [1] * 3, 1, 0.0) == [145.0, 500.0]  # (by 120 + 30)
    assert _will_run_batches(e, [1] * 3, 1, 20.0) == [95.0, 145.0, 500.0]  # (by 100 + 30)
    assert _will_run_batches([90.0, 145.0], [1, 1], 1, 0.0) == [145.0]  # (by 90 + 30 + 30)


def test_a_batch_of_more_than_201_jobs_goes_on_untested():
    """``rm_job_cnt++ > 200``: ``goto timer_check`` skips the test (and the window's
    doubling) after the 202nd job of a batch, which goes on into the next."""
    e = [100.0] * 250 + [1000.0]
    assert _will_run_batches(e, [1] * 251, 1, 0.0) == [100.0, 1000.0]
    assert _will_run_batches([100.0] * 203, [1] * 203, 1, 0.0) == [100.0]


def _both_paths(record: list):
    """``_batch_nodes`` with every answer the int path (the base profile's intervals)
    gives checked against the walk taking the running jobs out of what is free now."""
    original = backfill.__dict__["_batch_nodes"]

    def check(cycle, prof, job, on, t, epoch):
        e, held, _known = cycle.ends
        ends = _will_run_batches(e, held, on, epoch)
        base = _snapshots(cycle, prof, ends)
        if base is not None:
            usable = bits_mask(on, len(prof.capacity))
            fast = _pick(ends, job, on, prof, base)
            slow = _walk(ends, job, usable, cycle.running_alone())
            assert repr(fast) == repr(slow), (job, ends)
            record.append(fast[1] is not None)
        return original(cycle, prof, job, on, t, epoch)

    return replaced(backfill, "_batch_nodes", check)


def test_the_int_path_picks_the_nodes_the_walk_picks_on_the_teaching_workload():
    """The teaching workload (300 jobs) under ``slurm``: each will-run batch answer read
    from the cycle's base profile (fit masks as ints, the pick kept per fitting nodes) is
    the walk's (numpy node selection on what the running jobs leave, batch by batch), and
    the run is the same with the walk alone."""
    cluster, workload = Cluster.preset("ai"), ai_workload(300, "ai", seed=1)
    record: list = []
    with _both_paths(record):
        fast = history(simulate(cluster, workload, "slurm", seed=0).sim)
    assert sum(record) > 50
    with replaced(backfill, "_snapshots", lambda cycle, prof, ends: None):
        assert fast == history(simulate(cluster, workload, "slurm", seed=0).sim)


@SETTINGS
@given(data=st.data())
def test_the_int_path_picks_the_nodes_the_walk_picks_at_random(data):
    """Random GPU workloads (exclusive, whole-memory, per-task GPUs, node ranges, ...) with
    scripted events under ``slurm``: the base profile's answer is the walk's, call by call,
    and the runs with and without it are the same."""
    workload = data.draw(gpu_workloads())
    _same_either_way(GPUS, workload, data.draw(events(workload)))


def _same_either_way(cluster, workload, extra: dict) -> None:
    """The run of ``workload`` under ``slurm`` with the base profile answering the will-run
    test (checked against the walk call by call) is the run with the walk alone."""
    with _both_paths([]):
        fast = run_or_refused(cluster, workload, "slurm", **extra)
    if fast is None:
        return
    with replaced(backfill, "_snapshots", lambda cycle, prof, ends: None):
        full = run_or_refused(cluster, workload, "slurm", **extra)
    assert history(fast) == history(full)


#: eight nodes of three Weights (best fit takes the lowest Weight first: the picks kept per
#: Weights, ``_best_fit_bits``), GPU and CPU partitions and one over all
WEIGHTED = conf(
    "DefMemPerCPU=500\n"
    "NodeName=g[1-2] CPUs=8 RealMemory=16000 Gres=gpu:4 Weight=5\n"
    "NodeName=g[3-4] CPUs=8 RealMemory=8000 Gres=gpu:2 Weight=1\n"
    "NodeName=c[1-2] CPUs=16 RealMemory=32000 Weight=3\n"
    "NodeName=c[3-4] CPUs=8 RealMemory=32000 Weight=2",
    "PartitionName=gpu Nodes=g[1-4] Default=YES MaxTime=INFINITE",
    "PartitionName=cpu Nodes=c[1-4] MaxTime=INFINITE",
    "PartitionName=all Nodes=g[1-4],c[1-4] MaxTime=INFINITE",
)


@SETTINGS
@given(data=st.data())
def test_the_int_path_picks_the_nodes_the_walk_picks_on_weighted_nodes_at_random(data):
    """Random workloads (node ranges, spread tasks, exclusive, dealt GPUs, ...) with node
    failures and admin actions but no advance reservation (the base profile holds those,
    the will-run test does not: the walk answers then) on nodes of unequal Weights under
    ``slurm``: the base profile's answer is the walk's, call by call, and the runs with and
    without it are the same."""
    kinds = (*KINDS, "-N 2-3 -n 6 -p all", "--gpus=2 -N 1-2", *DEALT)
    workload = data.draw(gpu_workloads(kinds))
    extra = data.draw(events(workload))
    extra.pop("reservations", None)
    _same_either_way(WEIGHTED, workload, extra)
