"""When the ``slurm`` policy's main scheduler runs, as slurmctld 22.05 runs it.

* An advance reservation's start calls the main scheduler (controller.c
  ``_slurmctld_background``: ``set_node_maint_mode`` counts the reservations begun, then
  ``queue_job_scheduler``); its end calls nothing: slurmctld only clears the nodes' flags
  and purges the record (reservation.c ``job_resv_check``), so the next backfill cycle
  starts what waited for its nodes (real fixtures resv-backfill and maintenance).
* The periodic pass falls every ``sched_interval`` from slurmctld's start: the loop sets
  ``last_full_sched_time`` when it begins and again only at each periodic pass
  (``slurmctld_start``; real fixtures preempt-gpu and node-fail-gpu).
* Backfill tries a job a maintenance window holds back again at the window's exact end
  only when the window holds every node of the job's partition (job_test_resv:
  ESLURM_RESERVATION_MAINT); on part of it, at its end rounded up to bf_resolution plus
  1 s, as after any reservation (``find_resv_end``).
"""

from __future__ import annotations

import pytest
import yaml
from realslurm_fixtures import DATA, real_queue, replay, sim_runs, starts

from slurmlab import Scenario, SlurmlabError
from slurmlab.policies.nodespace import NodeSpace
from slurmlab.sim.result import squeue_frame

#: two 4-GPU nodes in one partition, under the slurm policy (bf_interval to replace)
CLUSTER = """
cluster:
  nodes:
    - {name: "gpu[1-2]", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "gpu[1-2]", default: true}
  settings:
    SchedulerParameters: "bf_interval=20"
policy: slurm
"""

RESERVED = (
    "name: resv-end"
    + CLUSTER
    + """\
reservations:
  - {name: pm, start: 0, duration: "0:02:10", nodes: "gpu[1-2]", users: [root], flags: [maint]}
jobs:
  - {id: wide, submit: 10, runtime: 60, args: "-N 2 --exclusive -t 5"}
"""
)


def _run(doc: str, policy: str | None = None, **params):
    result = Scenario.from_dict(yaml.safe_load(doc)).run(policy, **params)
    jobs = result.jobs.set_index("JobID")
    seconds = result.seconds("Start").set_axis(result.jobs["JobID"])
    return seconds, jobs


def test_a_job_waiting_for_a_reservations_end_starts_at_the_next_backfill_cycle():
    """The maintenance window holds both nodes until 130 s; nothing calls the main
    scheduler then, so wide starts at the next backfill cycle (bf_interval=20: 140 s),
    started by backfill. The textbook policies pass at the end (130 s)."""
    seconds, jobs = _run(RESERVED)
    assert seconds["wide"] == 140.0 and jobs.loc["wide", "StartedBy"] == "backfill"
    seconds, _ = _run(RESERVED, "easy")
    assert seconds["wide"] == 130.0


def test_a_reservations_end_on_the_backfill_grid_is_that_cycles():
    """A cycle due at the very second the reservation ends no longer counts it
    (reservation.c: a reservation with ``end_time <= now`` is over): with bf_interval=10
    wide starts at 130 s, by backfill, although no backfill cycle had anything to do
    while the window held its nodes."""
    seconds, jobs = _run(RESERVED.replace("bf_interval=20", "bf_interval=10"))
    assert seconds["wide"] == 130.0 and jobs.loc["wide", "StartedBy"] == "backfill"


def test_a_reservations_start_calls_the_main_scheduler():
    """A job of the reservation starts at its start by the main scheduler."""
    doc = RESERVED.replace("start: 0, duration", "start: 30, duration").replace(
        "users: [root], flags: [maint]", "users: [user]"
    )
    doc = doc.replace('args: "-N 2', 'args: "--reservation=pm -N 2')
    seconds, jobs = _run(doc)
    assert seconds["wide"] == 30.0 and jobs.loc["wide", "StartedBy"] == "main"


REQUEUED = (
    "name: requeued"
    + CLUSTER.replace("bf_interval=20", "bf_interval=5")
    + """\
jobs:
  - {id: r, submit: 0, runtime: 60, args: "-N 1 -t 5"}
actions:
  - {at: 10, action: requeue, job: r}
"""
)


@pytest.mark.parametrize(("ctld", "start"), [(0, 180.0), (-8, 172.0), (-55, 185.0)])
def test_a_requeued_job_waits_for_the_periodic_pass_counted_from_slurmctlds_start(ctld, start):
    """Requeued at 10 s, r may start again 121 s later (131 s), which no event announces:
    it waits for the periodic main-scheduler pass, every sched_interval (60 s) from
    slurmctld's start: 180 s when slurmctld started with the simulation, 172 s when 8 s
    before it (52, 112, 172), 185 s when 55 s before (5, 65, 125, 185)."""
    doc = REQUEUED + f"slurmctld_start: {ctld}\n"
    result = Scenario.from_dict(yaml.safe_load(doc)).run()
    runs = result.sacct(duplicates=True)
    second = runs[runs["State"] == "COMPLETED"].iloc[0]
    assert (second["Start"] - result.origin).total_seconds() == start
    assert second["StartedBy"] == "main"


def test_run_slurmctld_start_overrides_the_files():
    """Scenario.run(slurmctld_start=0) puts Slurm's timers on the scenario's start, whatever
    the file says: the requeued r starts at 180 s, not 172 s."""
    scenario = Scenario.from_dict(yaml.safe_load(REQUEUED + "slurmctld_start: -8\n"))
    for params, start in (({}, 172.0), ({"slurmctld_start": 0}, 180.0)):
        result = scenario.run(**params)
        runs = result.sacct(duplicates=True)
        second = runs[runs["State"] == "COMPLETED"].iloc[0]
        assert (second["Start"] - result.origin).total_seconds() == start


@pytest.mark.parametrize("bad", [5, "soon", True, float("nan")])
def test_slurmctld_start_must_be_a_time_at_or_before_the_start(bad):
    """slurmctld starts before its first job: a later or unreadable time is refused,
    naming the field, the value and what to write."""
    with pytest.raises(SlurmlabError, match=r"slurmctld_start=.*0 or less \(e\.g\. -8"):
        Scenario.from_dict(yaml.safe_load(REQUEUED) | {"slurmctld_start": bad})


# ---- real-Slurm fixtures ---------------------------------------------------------------------


def test_maintenance_jobs_waiting_for_the_windows_end_start_by_backfill():
    """maintenance: the MAINT window on gpu[1-4] ended at 270 s; real Slurm started long,
    long2, x and y at 271 by backfill (sacct's SchedBackfill), wide (4 whole nodes) at 301
    by the main scheduler when they ended. The simulation starts the four by backfill at
    270 s (its cycle grid) and wide when they end."""
    real = starts("maintenance").set_index("key")
    sim = sim_runs("maintenance").set_index("JobID")
    for key in ("long", "long2", "x", "y"):
        assert real.loc[key, "start_s"] == 271 and real.loc[key, "flags"].startswith(
            "SchedBackfill"
        )
        assert (sim.loc[key, "start_s"], sim.loc[key, "StartedBy"]) == (270.0, "backfill")
    assert real.loc["wide", "start_s"] == 301 and real.loc["wide", "flags"].startswith("SchedMain")
    assert (sim.loc["wide", "start_s"], sim.loc["wide", "StartedBy"]) == (300.0, "main")


def test_fixtures_with_slurmctlds_start_replay_its_periodic_passes():
    """preempt-gpu (slurmctld's loop began 10 s before t0) and node-fail-gpu (8 s): every
    run real Slurm started at a periodic pass (170 s, 172 s) starts then in the simulation."""
    for name, start in (("preempt-gpu", 170), ("node-fail-gpu", 172)):
        doc = yaml.safe_load((DATA / "scenarios" / f"{name}.yaml").read_text())
        assert doc["slurmctld_start"] == (-10 if name == "preempt-gpu" else -8)
        real = starts(name)
        at_pass = real[real["start_s"] == start]
        assert len(at_pass) >= 1
        sim = sim_runs(name)
        for row in at_pass.itertuples():
            again = sim[(sim["JobID"] == row.key) & (sim["submit_s"] == row.submit_s)]
            assert list(again["start_s"]) == [float(start)], (name, row.key)


# ---- maintenance windows in backfill plans -------------------------------------------------

MAINT_PLAN = """
name: maint-plan
cluster:
  nodes:
    - {name: "gpu[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "gpu[1-4]", default: true}
    - {name: half, nodes: "gpu[3-4]"}
  settings:
    SchedulerParameters: "bf_interval=5,bf_resolution=10"
policy: slurm
reservations:
  - {name: pm, start: 10, duration: 85s, nodes: "gpu[3-4]", users: [root], flags: [maint]}
jobs:
  - {id: fill, submit: 0, runtime: 600, args: "-N 2 --exclusive -w gpu[1-2] -t 20"}
  - {id: big, submit: 1, runtime: 30, args: "-N 2 --exclusive -t 1 -p PART"}
"""


@pytest.mark.parametrize(("part", "planned"), [("gpu", 101.0), ("half", 95.0)])
def test_a_maintenance_window_on_part_of_a_partition_is_rounded_like_any_reservation(part, planned):
    """pm (MAINT) holds gpu[3-4] from 10 s to 95 s; big needs both for a minute. In
    partition gpu (gpu[1-4]) the window holds part of the partition: job_test_resv only
    takes its nodes out of the try (``resv_overlap``), so backfill tries again at
    ``find_resv_end`` (95 s rounded up to bf_resolution) plus 1 s: planned at 101 s. In
    partition half (gpu[3-4]) it holds every node: ESLURM_RESERVATION_MAINT moves the try
    to the exact end, 95 s. Either way big starts at the backfill cycle at 95 s."""
    result = Scenario.from_dict(yaml.safe_load(MAINT_PLAN.replace("PART", part))).run()
    queue = squeue_frame(result.sim, 20).set_index("JOBID")
    assert (queue.loc["big", "START_TIME"] - result.origin).total_seconds() == planned
    assert queue.loc["big", "SCHEDNODES"] == "gpu[3-4]"
    started = result.jobs.set_index("JobID").loc["big"]
    assert (started["Start"] - result.origin).total_seconds() == 95.0
    assert started["StartedBy"] == "backfill"


def test_a_try_a_whole_partition_maintenance_window_overlaps_moves_to_its_exact_end():
    """NodeSpace.reachable: a window over every node of the job's partition (``exact``)
    moves a try it overlaps to its end (job_test_resv: ``*when = resv_ptr->end_time``),
    where a 4-s job fits before the map's reservation from 100 s; after any other window
    the next try is its end rounded up plus 1 s (101 s), where it does not."""
    space = NodeSpace(0.0, 1000.0, 10.0, 2)
    space.reserve((0, 1), 100.0, 1000.0)
    window = [(0.0, 95.0, 0b11)]
    assert not space.reachable(0b11, 2, 4.0, 0.0, window)
    assert space.reachable(0b11, 2, 4.0, 0.0, window, exact=[(0.0, 95.0)])
    # a job that may only start now (TEST_NOW_ONLY) has no later try
    assert not space.reachable(0b11, 2, 4.0, 0.0, window, now_only=True, exact=[(0.0, 95.0)])


@pytest.mark.parametrize("t", [10, 20, 30, 40, 50])
def test_maint_part_a_partial_maintenance_window_is_rounded_in_real_slurms_plans(t):
    """maint-part (recorded for this rule): pm (MAINT) on gpu[3-4], part of the gpu
    partition, ended at 90 s (epoch :31); real squeue --start planned big at 100 s (:41),
    the end rounded up to bf_resolution on epoch seconds plus 1 s, not at 90 s; the
    simulation plans it there too, on the same nodes."""
    real = real_queue("maint-part")
    row = real[(real["t"] == t) & (real["key"] == "big")].iloc[0]
    assert row["start_s"] == 100
    sim = replay("maint-part").sim
    queue = squeue_frame(sim, float(t)).set_index("JOBID")
    assert (queue.loc["big", "START_TIME"] - sim.origin).total_seconds() == 100.0
    assert queue.loc["big", "SCHEDNODES"] == "gpu[3-4]"


def test_maint_part_the_windows_end_is_left_to_backfill():
    """maint-part: no main-scheduler pass at the window's end: late started at 91 s by
    backfill, big at 121 s by the main scheduler when late ended, in real Slurm; at 90 s
    and 120 s the same way in the simulation."""
    real = starts("maint-part").set_index("key")
    sim = sim_runs("maint-part").set_index("JobID")
    for key, start, by in (("late", 91, "backfill"), ("big", 121, "main")):
        assert real.loc[key, "start_s"] == start
        assert real.loc[key, "flags"].startswith(
            "SchedBackfill" if by == "backfill" else "SchedMain"
        )
        assert (sim.loc[key, "start_s"], sim.loc[key, "StartedBy"]) == (start - 1.0, by)


def test_without_backfill_a_reservations_end_waits_for_the_periodic_pass():
    """With bf_interval=-1 (no backfill) nothing but the periodic main-scheduler pass tests
    wide after the window ends at 130 s: it starts at the next sched_interval tick (60 s
    from slurmctld's start: 180 s), by the main scheduler."""
    doc = RESERVED.replace("bf_interval=20", "bf_interval=-1")
    seconds, jobs = _run(doc)
    assert seconds["wide"] == 180.0 and jobs.loc["wide", "StartedBy"] == "main"


def test_a_reservation_ending_over_an_empty_queue_runs_a_backfill_cycle():
    """Nothing is queued when the window ends (130 s), but its end is a change for the
    backfill thread (last_resv_update: backfill.c _more_work), which runs a cycle then and
    sleeps bf_interval: a job submitted at 140 s waits for the cycle at 150 s
    (sched_interval=-1: backfill alone starts jobs). With no reservation nothing changed
    before 140 s: the thread, polling every second, starts it at once."""
    doc = RESERVED.replace('"bf_interval=20"', '"bf_interval=20,sched_interval=-1"').replace(
        "submit: 10,", "submit: 140,"
    )
    seconds, _ = _run(doc)
    assert seconds["wide"] == 150.0
    plain = doc.split("reservations:")[0] + "jobs:" + doc.split("jobs:")[1]
    seconds, _ = _run(plain)
    assert seconds["wide"] == 140.0
