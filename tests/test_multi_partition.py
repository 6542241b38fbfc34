"""Jobs submitted to several partitions (``sbatch -p a,b``), as Slurm 22.05 runs them.

slurmctld keeps one queue record per (job, partition) (job_scheduler.c build_job_queue),
sorted by PriorityTier then priority like any record; the main scheduler and backfill try
each record, and the job starts in the first partition with room. squeue and sacct show
the list while the job waits and the partition it ran in after (rebuild_job_part_list).
Checked against real Slurm by the ``multi-partition`` fixture (tests/test_fidelity.py).
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pandas as pd
import pytest

from slurmlab import Cluster, JobSpec, Lab, simulate
from slurmlab.errors import PolicyError, RequestError
from slurmlab.policies import Decision, Start
from slurmlab.scenario import Scenario
from slurmlab.sim.controller import Controller
from slurmlab.spec.job import partition_names, resolve_all
from slurmlab.spec.synthetic import ai_workload
from slurmlab.spec.workload import Workload, WorkloadJob

POLICIES = ["fifo", "easy", "conservative", "slurm"]
ROOT = Path(__file__).resolve().parents[1]


def halves() -> Cluster:
    """Four GPU nodes: partitions left (node 1-2), right (3-4), all (1-4, the default) and
    hi (3-4, PriorityTier=5)."""
    return Cluster.from_slurm_conf(
        """
        GresTypes=gpu
        NodeName=gpu[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:4
        NodeName=cpu1 CPUs=32 RealMemory=128000
        PartitionName=all Nodes=gpu[1-4] Default=YES MaxTime=2:00:00
        PartitionName=left Nodes=gpu[1-2] MaxTime=2:00:00
        PartitionName=right Nodes=gpu[3-4] MaxTime=2:00:00
        PartitionName=hi Nodes=gpu[3-4] PriorityTier=5 MaxTime=10:00
        PartitionName=cpu Nodes=cpu1 MaxTime=2:00:00
        """
    )


def test_partitions_are_tried_by_tier_then_in_the_order_given():
    c = halves()
    assert partition_names(JobSpec.from_args("-p left,right"), c) == ["left", "right"]
    assert partition_names(JobSpec.from_args("-p right,left,right"), c) == ["right", "left"]
    assert partition_names(JobSpec.from_args("-p left,hi"), c) == ["hi", "left"]
    res = resolve_all(JobSpec.from_args("-p left,right -N 2 --gres=gpu:4"), c)
    assert [r.partition for r in res] == ["left", "right"]
    # JobSpec.resources (one Resources): the first partition that can run it
    assert JobSpec.from_args("-p left,hi -t 5").resources(c).partition == "hi"


def test_an_unknown_or_empty_partition_name_refuses_the_job():
    c = halves()
    with pytest.raises(RequestError, match="invalid partition specified: nope"):
        resolve_all(JobSpec.from_args("-p left,nope"), c)
    # get_part_list's strtok_r skips an empty name: -p left, is -p left
    assert [r.partition for r in resolve_all(JobSpec.from_args("-p left,"), c)] == ["left"]
    # get_part_list splits on "," alone: " right" is no partition
    with pytest.raises(RequestError, match="invalid partition specified: ' right'"):
        resolve_all(JobSpec.from_args(["-p", "left, right"]), c)


def test_a_partition_that_can_never_run_the_job_is_left_out_with_a_warning():
    c = halves()
    spec = JobSpec.from_args("-p left,right --gres=gpu:8")  # nodes of 4 GPUs
    with pytest.raises(RequestError, match="no partition can run the job") as err:
        resolve_all(spec, c)
    assert "in partition left" in str(err.value) and "in partition right" in str(err.value)
    with pytest.warns(UserWarning, match="can never run in partition cpu"):
        res = resolve_all(JobSpec.from_args("-p cpu,left --gres=gpu:1"), c)
    assert [r.partition for r in res] == ["left"]


def test_a_job_over_the_limits_of_every_partition_pends_with_the_first_ones_reason():
    lab = Lab(halves(), "easy")
    m = lab.sbatch("-p left,right -N 3 -t 30", runtime="1m")  # 2 nodes each
    lab.advance("1m")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(m), "NODELIST(REASON)"] == "(PartitionNodeLimit)"


def test_a_reservation_with_several_partitions_is_refused():
    with pytest.raises(RequestError, match="several partitions for a job in a reservation"):
        resolve_all(JobSpec.from_args("-p left,right --reservation=maint"), halves())


@pytest.mark.parametrize("policy", POLICIES)
def test_the_job_starts_in_the_partition_with_room(policy):
    lab = Lab(halves(), policy)
    lab.sbatch("-p left -N 2 --exclusive -t 1:00:00", runtime="40m")
    m = lab.sbatch("-p left,right -N 1 --gres=gpu:4 -t 30", runtime="10m")
    lab.advance("1m")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(m), "PARTITION"] == "right" and q.loc[str(m), "ST"] == "R"
    lab.advance("2h")
    table = lab.sacct().set_index("JobID")
    assert table.loc[str(m), "Partition"] == "right"
    assert table.loc[str(m), "NodeList"] == "gpu3"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_waiting_in_both_shows_the_list_and_starts_where_room_comes_first(policy):
    lab = Lab(halves(), policy)
    lab.sbatch("-p left -N 2 --exclusive -t 1:00:00", runtime="40m")
    lab.sbatch("-p right -N 2 --exclusive -t 1:00:00", runtime="20m")
    m = lab.sbatch("-p left,right -N 2 --gres=gpu:4 -t 30", runtime="10m")
    lab.advance("1m")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(m), "PARTITION"] == "left,right" and q.loc[str(m), "ST"] == "PD"
    assert q.loc[str(m), "NODELIST(REASON)"] == "(Resources)"
    lab.advance("2h")
    table = lab.sacct().set_index("JobID")
    assert table.loc[str(m), "Partition"] == "right"  # right frees at 20 min, left at 40
    assert table.loc[str(m), "Start"] == table.loc[str(m), "Submit"] + pd_minutes(20)
    # a past view shows what squeue showed then
    past = lab.result.squeue(at=60).set_index("JOBID")
    assert past.loc[str(m), "PARTITION"] == "left,right"


def pd_minutes(n: int):
    import pandas as pd

    return pd.Timedelta(minutes=n)


@pytest.mark.parametrize("policy", ["fifo", "slurm"])
def test_a_record_that_cannot_start_blocks_its_partition_for_later_jobs(policy):
    """The main scheduler fails a partition at the first record that cannot start there,
    whichever job it belongs to: in that pass a later job of that partition waits for
    Priority, though the blocked job itself starts in its other partition. The next pass
    no longer sees the block: with fifo (no timer) one follows at once; the slurm policy's
    backfill cycle starts it (Slurm's periodic passes)."""
    jobs = [
        WorkloadJob(JobSpec.from_args("-p left -N 1 --exclusive -t 1:00:00"), 0, 2400, id="b"),
        WorkloadJob(JobSpec.from_args("-p left,right -N 2 --gres=gpu:4 -t 30"), 0, 600, id="m"),
        WorkloadJob(JobSpec.from_args("-p left -N 1 --gres=gpu:1 -t 30"), 0, 600, id="later"),
    ]
    result = simulate(halves(), Workload(tuple(jobs)), policy, progress=False)
    table = result.jobs.set_index("JobID")
    assert (
        table.loc["m", "Partition"] == "right"
        and table.loc["m", "Start"] == table.loc["m", "Submit"]
    )
    later = next(j for j in result.sim.jobs.values() if j.key == "later")
    assert (0.0, "Priority") in later.reasons  # blocked in left by m's record in that pass
    assert later.start == (0.0 if policy == "fifo" else 30.0)  # (bf_interval 30 s)


def test_a_higher_tier_partition_is_tried_first():
    lab = Lab(halves(), "fifo")
    h = lab.sbatch("-p left,hi -N 1 --gres=gpu:4 -t 5", runtime="1m")
    lab.advance("1s")
    assert lab.sacct().set_index("JobID").loc[str(h), "Partition"] == "hi"


def test_a_requeued_job_shows_the_partition_it_ran_in_first():
    lab = Lab(halves(), "easy")
    lab.sbatch("-p left -N 2 --exclusive -t 1:00:00", runtime="40m")
    m = lab.sbatch("-p left,right -N 1 --gres=gpu:4 -t 30 --requeue", runtime="20m")
    lab.advance("1m")
    lab.requeue(m)
    lab.advance("1s")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(m), "ST"] == "PD"
    assert q.loc[str(m), "PARTITION"] == "right,left"  # (rebuild_job_part_list)


def test_why_pending_names_every_partition():
    lab = Lab(halves(), "easy")
    lab.sbatch("-p left -N 2 --exclusive -t 1:00:00", runtime="40m")
    lab.sbatch("-p right -N 2 --exclusive -t 1:00:00", runtime="40m")
    m = lab.sbatch("-p right,left -N 1 --gres=gpu:4 -t 30", runtime="10m")
    lab.advance("1m")
    text = lab.why_pending(m)
    assert "several partitions (-p right,left): it waits in right and left, tried" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (cpu can never run it: warned)
        t = lab.sbatch("-p cpu,left --gres=gpu:1 -t 30", runtime="10m")
    lab.advance("1s")
    assert "it waits in left only; not in cpu (it can never run there)" in lab.why_pending(t)


def test_a_partition_whose_limits_the_job_is_over_is_named_with_its_reason():
    """-p debug,train -t 2:00:00 on the ai preset: debug's MaxTime is 1 h, so the job waits
    in train only; why_pending talks about train and names debug's limit."""
    lab = Lab("ai", "easy")
    lab.sbatch("-N 32 --gres=gpu:8 -t 2:00:00 -p train", runtime="1h")
    j = lab.sbatch("-p debug,train -N 1 --gres=gpu:8 -t 2:00:00", runtime="10m")
    lab.advance("1m")
    text = lab.why_pending(j)
    assert "it waits in train only; not in debug (PartitionTimeLimit)" in text
    assert "first in line in partition train" in text
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(j), "PARTITION"] == "debug,train"


def test_the_warning_about_a_partition_that_can_never_run_the_job_names_the_job():
    w = Workload((WorkloadJob(JobSpec.from_args("-p cpu,left --gres=gpu:1 -t 5"), 0, 60, id="c"),))
    with pytest.warns(
        UserWarning, match=r"^job c: -p cpu,left: the job can never run in partition cpu"
    ):
        simulate(halves(), w, "easy", progress=False)


def multi_workload(cluster: str, n: int, seed: int) -> Workload:
    """ai_workload with every third job of the train partition sent to train and debug
    (debug: 2 nodes, MaxTime 1 h, PriorityTier 2) and every fifth to debug and train."""
    w = ai_workload(n, cluster, seed=seed)
    jobs = []
    for k, job in enumerate(w.jobs):
        part = job.spec.partition or "train"
        if part == "train" and k % 3 == 0:
            job = dataclasses.replace(
                job, spec=dataclasses.replace(job.spec, partition="train,debug")
            )
        elif part == "train" and k % 5 == 0:
            job = dataclasses.replace(
                job, spec=dataclasses.replace(job.spec, partition="debug,train")
            )
        jobs.append(job)
    return dataclasses.replace(w, jobs=tuple(jobs))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", [1, 5])
def test_random_workloads_of_several_partitions_keep_the_engine_invariants(policy, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (debug can never run the wider jobs: warned)
        result = simulate("ai", multi_workload("ai", 300, seed), policy, progress=False)
    table = result.jobs
    assert table["State"].isin(["COMPLETED", "FAILED", "TIMEOUT"]).all()
    multi = [j for j in result.sim.jobs.values() if j.alts is not None]
    assert multi and all(j.partition in {"train", "debug"} for j in multi)
    assert {j.partition for j in multi} == {"train", "debug"}  # both are used
    for j in multi:  # the row names the partition it ran in, and its nodes are that one's
        row = table.loc[table["JobIDRaw"] == str(j.id)].iloc[0]
        assert row["Partition"] == j.partition
        part_nodes = set(result.sim.cluster.partition(j.partition).nodes)
        assert {result.sim.node_names[i] for i in j.nodes} <= part_nodes
    # no node ever holds more than it has: replay the starts and ends
    for t in sorted(set(table["Start"].dropna()))[::25]:
        use = result.node_usage(at=t)
        assert (use["CPUAlloc"] <= use["CPUTot"]).all()
        assert (use["GPUAlloc"] <= use["GPUTot"]).all()


@pytest.mark.parametrize("policy", POLICIES)
def test_continued_passes_equal_full_passes_with_several_partitions(policy, monkeypatch):
    cols = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason", "Partition"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = multi_workload("ai", 300, 3)
        fast = simulate("ai", w, policy, progress=False)
        with monkeypatch.context() as m:
            m.setattr(Controller, "_unchanged", lambda self: False)
            full = simulate("ai", w, policy, progress=False)
    assert fast.jobs[cols].equals(full.jobs[cols])
    assert [(j.reasons, j.plans) for j in fast.sim.jobs.values()] == [
        (j.reasons, j.plans) for j in full.sim.jobs.values()
    ]


class PickRight:
    """A custom policy that starts every job it can in partition right, naming it."""

    def __init__(self, partition):
        self.partition = partition

    def schedule(self, view):
        d = Decision()
        for job in view.queue:
            if job.partition == "right":
                gpu3 = list(view.node_names).index("gpu3")
                d.starts.append(Start(job.id, (gpu3,), partition=self.partition))
                break
        return d


def test_a_custom_policy_names_the_partition_of_the_record_it_starts():
    lab = Lab(halves(), PickRight("right"))
    m = lab.sbatch("-p left,right -N 1 --gres=gpu:4 -t 30", runtime="10m")
    lab.advance("1s")
    assert lab.sacct().set_index("JobID").loc[str(m), "Partition"] == "right"
    lab = Lab(halves(), PickRight(None))  # without a partition: the record whose nodes hold it
    m = lab.sbatch("-p left,right -N 1 --gres=gpu:4 -t 30", runtime="10m")
    lab.advance("1s")
    assert lab.sacct().set_index("JobID").loc[str(m), "Partition"] == "right"
    lab = Lab(halves(), PickRight("hi"))
    with pytest.raises(PolicyError, match="is not queued in partition 'hi'"):  # (its pass
        lab.sbatch("-p left,right -N 1 --gres=gpu:4 -t 30", runtime="10m")  # runs at once)


def test_test_only_names_the_partition_where_it_would_start_first():
    lab = Lab(halves(), "easy")
    lab.sbatch("-p left -N 2 --exclusive -t 1:00:00", runtime="40m")
    out = lab.test_only(JobSpec.from_args("-p left,right -N 1 --gres=gpu:4 -t 30"))
    assert out.endswith("on nodes gpu3 in partition right"), out


# -- a reviewer's findings (stop 30): each was a repro against the first version --------------


def four(extra: str = "", left: str = "") -> Cluster:
    return Cluster.from_slurm_conf(
        f"""
        {extra}
        NodeName=n[1-4] CPUs=16 RealMemory=64000
        NodeName=c1 CPUs=8 RealMemory=8000
        PartitionName=left Nodes=n[1-2] MaxTime=2:00:00 Default=YES {left}
        PartitionName=right Nodes=n[3-4] MaxTime=2:00:00
        PartitionName=cpu Nodes=c1 MaxTime=2:00:00
        """
    )


def test_limits_are_tested_with_each_partitions_request(tmp_path):
    """-n 64 is 4 nodes of 16 CPUs in small but 1 of 64 in big; the account's GrpTRES
    node=2 holds the small record only, and the job starts in big when it frees (Slurm tests
    TRES limits after node selection, for the partition tried: select_nodes)."""
    (tmp_path / "sizes.conf").write_text(
        "NodeName=small[1-4] CPUs=16 RealMemory=64000\n"
        "NodeName=big[1-2] CPUs=64 RealMemory=256000\n"
        "PartitionName=small Nodes=small[1-4] MaxTime=2:00:00 Default=YES\n"
        "PartitionName=big Nodes=big[1-2] MaxTime=2:00:00\n"
    )
    for order in ("small,big", "big,small"):
        doc = {
            "cluster": {"slurm_conf": "sizes.conf"},
            "policy": "easy",
            "accounts": [
                {"name": "vision", "users": ["carol"], "grp_tres": "node=2"},
                {"name": "other", "users": ["dave"]},
            ],
            "jobs": [
                {"id": "x", "submit": 0, "runtime": 1200, "user": "dave",
                 "args": "-p big -N 2 --exclusive -t 30 -A other"},
                {"id": "j", "submit": 10, "runtime": 600, "user": "carol",
                 "args": f"-p {order} -n 64 -t 30 -A vision"},
            ],
        }  # fmt: skip
        result = Scenario.from_dict(doc, base=tmp_path).run(progress=False)
        row = result.jobs.set_index("JobID").loc["j"]
        assert row["Partition"] == "big" and row["NNodes"] == 1, order
        assert row["Start"] == row["Submit"] + pd.Timedelta(seconds=1190), order


def test_each_partition_gives_its_own_multifactor_priority():
    """PriorityJobFactor lo=1, hp=100, mid=50: job 3 (-p lo,hp) has 10000 in hp, so its hp
    record goes before job 2 (-p mid, 5000), as priority_array orders Slurm's records."""
    c = Cluster.from_slurm_conf(
        """
        PriorityType=priority/multifactor
        PriorityWeightPartition=10000
        NodeName=n[1-2] CPUs=16 RealMemory=64000
        PartitionName=lo Nodes=n[1-2] MaxTime=2:00:00 Default=YES PriorityJobFactor=1
        PartitionName=hp Nodes=n[1-2] MaxTime=2:00:00 PriorityJobFactor=100
        PartitionName=mid Nodes=n[1-2] MaxTime=2:00:00 PriorityJobFactor=50
        """
    )
    lab = Lab(c, "slurm")
    lab.sbatch("-p lo -N 2 --exclusive -t 30", runtime="30m")
    y = lab.sbatch("-p mid -N 2 --exclusive -t 30", runtime="30m")
    x = lab.sbatch("-p lo,hp -N 2 --exclusive -t 30", runtime="30m")
    lab.advance("1m")
    sprio = lab.sprio()  # a row per partition (real sprio), each with its own factor
    rows = sprio[sprio["JOBID"] == str(x)][["PARTITION", "PRIORITY", "PARTITION_PRIO"]]
    assert sorted(rows.values.tolist()) == [["hp", 10000, 10000], ["lo", 100, 100]]
    lab.advance("3h")
    table = lab.sacct().set_index("JobID")
    assert table.loc[str(x), "Partition"] == "hp"
    assert table.loc[str(x), "Start"] < table.loc[str(y), "Start"]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_partition_blocked_by_a_job_that_started_elsewhere_is_free_again(policy):
    """x fails in left (n1 busy) and starts in right in the same pass; k (-p left) then
    starts on the idle n2 at once, not when x ends."""
    lab = Lab(four(), policy)
    lab.sbatch("-p left -N 1 --exclusive -t 60", runtime="60m")
    lab.advance("1s")
    x = lab.sbatch("-p left,right -N 2 --exclusive -t 30", runtime="30m")
    k = lab.sbatch("-p left -N 1 --exclusive -t 90", runtime="90m")
    lab.advance("5m")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(x), "PARTITION"] == "right"
    assert q.loc[str(k), "ST"] == "R" and q.loc[str(k), "NODELIST(REASON)"] == "n2"


def test_conservative_plans_are_the_same_with_continued_and_full_passes(monkeypatch):
    def run():
        lab = Lab(four(), "conservative")
        lab.sbatch("-p left -N 2 --exclusive -t 30", runtime="30m")
        lab.sbatch("-p right -N 2 --exclusive -t 60", runtime="60m")
        lab.sbatch("-p left,right -N 2 --exclusive -t 30", runtime="30m")
        lab.advance("1s")
        j = lab.sbatch("-p right -N 2 --exclusive -t 30", runtime="30m")
        lab.advance("1s")
        before = lab.squeue().set_index("JOBID").loc[str(j), "START_TIME"]
        lab.sbatch("-p cpu -n 1 -t 5", runtime="1m")  # an arrival that touches nothing
        lab.advance("1s")
        return before, lab.squeue().set_index("JOBID").loc[str(j), "START_TIME"]

    fast = run()
    with monkeypatch.context() as m:
        m.setattr(Controller, "_unchanged", lambda self: False)
        assert run() == fast


@pytest.mark.parametrize("state", ["DRAIN", "INACTIVE"])
def test_a_partition_that_takes_no_jobs_leaves_the_list(state):
    """_get_job_parts drops a DRAIN or INACTIVE partition from the job's list (and its
    name); a DOWN one takes jobs and stays."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (left can never run it: warned)
        lab = Lab(four(left=f"State={state}"), "easy")
        lab.sbatch("-p right -N 2 --exclusive -t 60", runtime="60m")
        j = lab.sbatch("-p left,right -N 1 -t 30", runtime="10m")
    lab.advance("1m")
    assert lab.squeue().set_index("JOBID").loc[str(j), "PARTITION"] == "right"
    lab = Lab(four(left="State=DOWN"), "easy")
    lab.sbatch("-p right -N 2 --exclusive -t 60", runtime="60m")
    j = lab.sbatch("-p left,right -N 1 -t 30", runtime="10m")
    lab.advance("1m")
    assert lab.squeue().set_index("JOBID").loc[str(j), "PARTITION"] == "left,right"


def test_the_reason_is_the_one_the_record_tried_last_leaves():
    """n1 drained: left has too few nodes up for -N 2 (that record's state_desc would be
    'Nodes required...'), but right is tried after it and is only busy: Resources."""
    lab = Lab(four(), "slurm")
    lab.sbatch("-p right -N 2 --exclusive -t 60", runtime="60m")
    lab.advance("1s")
    lab.drain("n1")
    j = lab.sbatch("-p left,right -N 2 -t 30", runtime="10m")
    lab.advance("1m")
    assert lab.squeue().set_index("JOBID").loc[str(j), "NODELIST(REASON)"] == "(Resources)"


def test_without_a_time_limit_the_first_partition_named_gives_it():
    """_valid_job_part sets the limit once from the first partition named: its DefaultTime
    for every partition (without one, each partition's MaxTime)."""
    c = Cluster.from_slurm_conf(
        """
        NodeName=n[1-4] CPUs=16 RealMemory=64000
        PartitionName=left Nodes=n[1-2] MaxTime=2:00:00 DefaultTime=10 Default=YES
        PartitionName=right Nodes=n[3-4] MaxTime=2:00:00 DefaultTime=1:00:00
        PartitionName=plain Nodes=n[3-4] MaxTime=3:00:00
        """
    )

    def limits(p):
        return [
            (r.partition, r.time_limit.total_seconds())
            for r in resolve_all(JobSpec.from_args(f"-p {p}"), c)
        ]

    assert limits("left,right") == [("left", 600), ("right", 600)]
    assert limits("right,left") == [("right", 3600), ("left", 3600)]
    assert limits("plain,right") == [("plain", 10800), ("right", 7200)]


def test_after_a_requeue_the_list_keeps_a_partition_that_can_never_run_it():
    lab = Lab(halves(), "easy")
    lab.sbatch("-p all -N 4 --exclusive -t 10", runtime="10m")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (cpu can never run it: warned)
        t = lab.sbatch("-p cpu,all --gres=gpu:1 -t 30 --requeue", runtime="20m")
    lab.advance("1s")
    assert lab.squeue().set_index("JOBID").loc[str(t), "PARTITION"] == "all,cpu"
    lab.advance("11m")
    lab.requeue(t)
    lab.advance("1s")
    assert lab.squeue().set_index("JOBID").loc[str(t), "PARTITION"] == "all,cpu"


def test_a_scenario_warns_once_about_a_partition_that_can_never_run_a_job():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Scenario.load(ROOT / "datasets/realslurm/scenarios/multi-partition.yaml").run(
            progress=False
        )
    never = [w for w in caught if "can never run in partition" in str(w.message)]
    assert len(never) == 1 and str(never[0].message).startswith("job t1: -p cpu,gpu: ")


def test_the_readmes_example_policy_runs_jobs_of_several_partitions():
    """README's ShortestFirst (run as written by tests/test_qa_stop29.py) starts a -p a,b
    job once, in the partition of the record it chose."""
    import re

    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "ShortestFirst" in b)
    namespace: dict = {}
    exec(compile(block.split("workload = ")[0], "README example", "exec"), namespace)
    lab = Lab(halves(), namespace["ShortestFirst"]())  # (it blocks at its first failure)
    m = lab.sbatch("-p right,left -N 1 --gres=gpu:4 -t 30", runtime="10m")  # both fit
    lab.advance("1m")
    assert lab.sacct().set_index("JobID").loc[str(m), "Partition"] == "right"  # once


# -- a documentation review (stop 30) -----------------------------------------------------


def test_why_pending_explains_the_record_squeue_shows_the_reason_of():
    """-p all,left: the left record is tried last, and its Priority is squeue's reason;
    why_pending explains that record (it talked about partition all) and quotes -p as typed."""
    c = Cluster.from_slurm_conf(
        """
        GresTypes=gpu
        NodeName=gpu[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:4
        PartitionName=all Nodes=gpu[1-4] Default=YES MaxTime=2:00:00
        PartitionName=left Nodes=gpu[1-2] MaxTime=2:00:00
        PartitionName=right Nodes=gpu[3-4] MaxTime=2:00:00
        """
    )
    lab = Lab(c, "fifo")
    lab.sbatch("-p left -N 2 --exclusive -t 10", runtime=40)
    lab.sbatch("-p right -t 10", runtime=40)
    lab.sbatch("-p right --exclusive -t 10", runtime=50)
    lab.sbatch("-p right,left -N 2 --exclusive -t 10", runtime=20)
    j = lab.sbatch("-p all,left --gres=gpu:2 -t 10", runtime=20)
    assert lab.squeue().set_index("JOBID").loc[str(j), "NODELIST(REASON)"] == "(Priority)"
    text = lab.why_pending(j)
    assert text.startswith(
        f"Job {j} is pending (Priority): jobs with higher priority are ahead of it in partition "
        "left."
    )
    assert "(-p all,left): it waits in all and left" in text
    assert text.count(f"Job {j} is pending") == 1


SIZES = """
PriorityType=priority/multifactor
PriorityWeightPartition=1000
PriorityWeightJobSize=100
NodeName=n[1-4] CPUs=4 RealMemory=8000
PartitionName=a Nodes=n[1-2] Default=YES MaxTime=1:00:00
PartitionName=b Nodes=n[3-4] MaxTime=1:00:00 PriorityJobFactor=5
PartitionName=short Nodes=n[3-4] MaxTime=10 PriorityJobFactor=5
"""


def test_a_record_over_its_partitions_limit_does_not_lend_its_priority_to_the_others():
    """-p short,a -t 30: short's MaxTime is 10 min, so the job waits in a only; sprio's row
    for a shows a's factor (PriorityJobFactor 1: 200), not short's (1000)."""
    lab = Lab(Cluster.from_slurm_conf(SIZES), "fifo")
    lab.sbatch("-p a -N 2 --exclusive -t 10", runtime=100)
    j = lab.sbatch("-p short,a -N 2 --exclusive -t 30", runtime=50)
    lab.advance(5)
    rows = lab.sprio().set_index(["JOBID", "PARTITION"])
    assert rows.loc[(str(j), "a"), "PARTITION_PRIO"] == 200
    assert rows.loc[(str(j), "short"), "PARTITION_PRIO"] == 1000


def test_an_exclusive_jobs_other_partition_ranks_by_the_job_size_sprio_shows():
    """Job 4 (-p b,a, submitted later) ties with job 3 in a: job 3 goes first (submit order),
    as sprio shows them (the other partition's priority once counted --exclusive's whole
    nodes, which the recorded factors do not yet)."""
    lab = Lab(Cluster.from_slurm_conf(SIZES), "fifo")
    lab.sbatch("-p a -N 2 --exclusive -t 10", runtime=100)
    lab.sbatch("-p b -N 2 --exclusive -t 60", runtime=1000)
    j3 = lab.sbatch("-p a -N 2 --exclusive -t 30", runtime=50)
    lab.advance(5)
    j4 = lab.sbatch("-p b,a -N 2 --exclusive -t 30", runtime=50)
    lab.advance(300)
    table = lab.sacct().set_index("JobID")
    assert table.loc[str(j3), "Start"] < table.loc[str(j4), "Start"]
    assert table.loc[str(j4), "Partition"] == "a"
