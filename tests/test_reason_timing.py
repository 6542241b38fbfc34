"""When pending reasons and planned starts change, against Slurm 22.05's source and the real
recordings (datasets/realslurm: squeue every 10 s in queue.csv, every change in
transitions.csv).

* A begin time reached (``--begin``, a requeue's delay) is no event in Slurm: only
  job_independent (job_mgr.c) clears WAIT_TIME, when build_job_queue tests the job for the
  main scheduler or a backfill cycle (job_scheduler.c ``_job_runnable_test1``). Under the
  ``slurm`` policy a job whose begin time passes with nothing else happening keeps BeginTime
  until the pass that looks at it; sprio lists it from its begin time all the same
  (priority_multifactor.c tests ``begin_time > now``).
* ``scontrol update`` of a pending job leaves its start_time and sched_nodes
  (job_mgr.c ``_update_job``); backfill's next cycle clears and sets them again
  (backfill.c ``_clear_job_estimates``), so squeue --start shows the old plan until then.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab.scenario import Scenario

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"


def _run(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Scenario.load(DATA / "scenarios" / f"{name}.yaml").run()


def _reason(result, job: str, t: float) -> str:
    row = result.squeue(at=t).set_index("JOBID").loc[job]
    return row["NODELIST(REASON)"].strip("()")


def _second_run(result, job: str) -> tuple[float, float]:
    """(eligible, start) of the last run of ``job``, seconds from the origin."""
    runs = result.sacct(duplicates=True)
    run = runs[runs["JobID"].astype(str) == job].iloc[-1]
    origin = runs.attrs["origin"]
    return ((run["Eligible"] - origin).total_seconds(), (run["Start"] - origin).total_seconds())


def _real_reasons(name: str, job: str, t0: float, t1: float) -> set[str]:
    """The reasons real squeue showed for ``job`` from ``t0`` to before ``t1`` (queue.csv)."""
    q = pd.read_csv(DATA / name / "queue.csv", dtype={"name": str}, keep_default_na=False)
    q = q[(q["name"] == job) & (q["t"] >= t0) & (q["t"] < t1)]
    return set(q["reason"])


@pytest.fixture(scope="module")
def quiet():
    return _run("begin-quiet")


def test_a_begin_time_reached_quietly_keeps_begintime_until_the_pass(quiet):
    """begin-quiet: late (--begin=now+40 at 100 s, nothing else queued) was eligible at 140
    and started at the periodic pass (172 s); real squeue showed BeginTime all along
    (transitions.csv: BeginTime at 101, RUNNING at 173). job_independent clears it only when
    a pass tests the job; the simulator's pass is at 180 (its sched_interval grid)."""
    real = pd.read_csv(DATA / "begin-quiet" / "transitions.csv", keep_default_na=False)
    late = real[real["id"] == "late"]
    assert late[["t", "state", "reason"]].values.tolist() == [
        [101.0, "PENDING", "BeginTime"], [173.0, "RUNNING", "None"],
    ]  # fmt: skip
    assert _real_reasons("begin-quiet", "late", 140, 172) == {"BeginTime"}
    eligible, start = _second_run(quiet, "late")
    assert (eligible, start) == (140.0, 180.0)
    for t in (140, 141, 150, 179.5):
        assert _reason(quiet, "late", t) == "BeginTime"
    assert quiet.squeue(at=180).set_index("JOBID").loc["late", "ST"] == "R"


def test_sprio_lists_a_job_from_its_begin_time_whatever_its_reason(quiet):
    """priority_multifactor.c (priority_p_get_priority_factors_list) leaves out a job whose
    begin_time is 0 or to come, not one whose reason is still BeginTime: real sprio listed
    late at 140-170 s (sprio.csv), not at 130."""
    real = pd.read_csv(DATA / "begin-quiet" / "sprio.csv")
    assert sorted(real[real["job_id"] == 4]["t"]) == [140, 150, 160, 170]  # (late: JobID 4)
    assert "late" not in quiet.sprio(at=130)["JOBID"].tolist()
    assert "late" in quiet.sprio(at=150)["JOBID"].tolist()


def test_why_pending_says_the_begin_time_came_and_waits_for_a_pass(quiet):
    """Before its begin time the job waits for it; after, for the pass that clears it."""
    assert "has not come yet" in quiet.why_pending("late", at=120)
    text = quiet.why_pending("late", at=150)
    assert "came at t=140s" in text and "job_independent" in text
    assert "has not come yet" not in text


@pytest.mark.parametrize(
    "name, job",
    [
        ("failures", "requeued"),
        ("preempt-reorder", "v2"),
        ("preempt-reorder", "d"),
        ("preempt-grace", "g3"),  # (g2: eligible and started at 172 s)
    ],
)
def test_a_requeued_job_keeps_begintime_until_the_pass_that_starts_it(name, job):
    """A requeued job waits 121 s (its begin time), then for a pass: real squeue showed
    BeginTime from its requeue to its start (failures 151-176 s, preempt-reorder 141-172,
    preempt-grace g3 167-172), never Priority; so does the simulator between the end of its
    delay and its start (preemption's small: see the next test)."""
    runs = pd.read_csv(DATA / name / "starts.csv", dtype={"id": str})
    real = runs[runs["id"] == job].iloc[-1]
    assert _real_reasons(name, job, real["eligible_s"], real["start_s"]) == {"BeginTime"}
    result = _run(name)
    eligible, start = _second_run(result, job)
    assert start > eligible  # (a pass after the delay's end starts it)
    for t in (eligible, (eligible + start) / 2, start - 0.5):
        assert _reason(result, job, t) == "BeginTime", t


def test_a_periodic_pass_that_does_not_start_a_requeued_job_clears_its_begintime():
    """preemption's small: real squeue showed BeginTime from its eligibility to its start
    (178-190 s). Here its victim's run ends at GraceTime, not after KillWait and the epilog,
    so small is eligible at 171 s, 7 s before real, and the periodic pass at 172 s
    (slurmctld_start -8: 52, 112, 172) tests it without starting it: from then it waits
    for Priority, until its start at 182 s (job_independent clears BeginTime at any pass
    that tests the job)."""
    result = _run("preemption")
    assert _second_run(result, "small") == (171.0, 182.0)
    assert [_reason(result, "small", t) for t in (171, 171.5, 172, 181.5)] == [
        "BeginTime", "BeginTime", "Priority", "Priority"
    ]  # fmt: skip


def test_an_events_pass_clears_begintime_before_the_periodic_one(realslurm_run):
    """A begin time passed quietly, then another job's submission: its pass tests the job
    (job_independent) and starts it then, not at the periodic pass."""
    result = realslurm_run(
        """
        - {id: late, submit: 0, runtime: 60, user: bob, args: "-n 1 -p cpu --begin=now+130"}
        - {id: other, submit: 150, runtime: 60, user: bob, args: "-n 1 -p cpu"}
        """
    )
    assert _second_run(result, "late") == (130.0, 150.0)  # (the periodic pass: 180 s)
    assert _reason(result, "late", 140) == "BeginTime"
    assert _reason(result, "late", 149.5) == "BeginTime"


def test_under_a_textbook_policy_a_begin_time_reached_is_an_arrival():
    """fifo/easy/conservative treat a begin time as an arrival: a pass follows at once, so
    the job starts, and its BeginTime ends, at its begin time."""
    lab = slurmlab.Lab("tiny", "easy")
    lab.sbatch("-n 1 --begin=now+100", runtime=60)
    lab.advance(150)
    job = lab.sim.jobs[1]
    assert job.start == 100.0
    assert [r for _t, r in job.reasons] == ["BeginTime", "Priority", "None"]
    assert {t for t, r in job.reasons if r != "BeginTime"} == {100.0}


def _blocked_lab(policy: str):
    """blocker (3 exclusive GPU nodes, 240 s of 5:00); big (4 nodes) and long (1 node,
    10:00) behind it, as in the update fixture: long is planned at 420 s (on gpu4 by
    ``slurm``, the idle node; on gpu1 by ``conservative``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = slurmlab.Cluster.from_slurm_conf(DATA / "slurm.conf")
    lab = slurmlab.Lab(cluster, policy)
    lab.sbatch("-N 3 --exclusive -t 5:00 -p gpu", runtime=240)
    lab.advance(5)
    lab.sbatch("-N 4 --exclusive -t 2:00 -p gpu", runtime=60)
    long = lab.sbatch("-N 1 --exclusive -t 10:00 -p gpu", runtime=60)
    return lab, long


def _plan(lab, job) -> tuple:
    row = lab.squeue().set_index("JOBID").loc[str(job)]
    return row["ST"], row["START_TIME"], row["SCHEDNODES"]


def test_an_update_keeps_the_old_plan_until_the_next_backfill_cycle():
    """job_mgr.c _update_job leaves a pending job's start_time and sched_nodes (the update
    fixture, ``scontrol update TimeLimit=3:00`` of long at 30 s); backfill's next cycle
    (every bf_interval, 5 s) clears them and plans the new request: here it starts long on
    the free node at once. Between the update (32 s) and that cycle (35 s) squeue --start
    shows the old plan, 420 s on gpu4: the node idle now, which Slurm's will-run test tests
    first at its try after big's reservation (real squeue --start showed long on gpu4 too)."""
    lab, long = _blocked_lab("slurm")
    lab.advance(27)  # 32 s: between two cycles
    old = ("PD", lab.sim.origin + pd.Timedelta(seconds=420), "gpu4")
    assert _plan(lab, long) == old
    lab.update(long, time="3:00")
    lab.advance(1)
    assert _plan(lab, long) == old
    assert lab.sim.jobs[long].start is None
    lab.advance(3)
    assert lab.sim.jobs[long].start == 35.0  # (backfilled before big's reservation at 300)
    assert _plan(lab, long)[0] == "R"


def test_a_hold_drops_the_planned_start_and_the_next_cycle_its_nodes():
    """A hold drops the planned start squeue shows (N/A), also one kept over an update,
    but not the job's sched_nodes: neither job_mgr.c's hold nor _job_runnable_test1 frees
    them, only backfill's next cycle that has jobs to test (backfill.c _attempt_backfill:
    _clear_job_estimates after build_job_queue). So SCHEDNODES shows the old plan's gpu4
    until the cycle at 35 s, which tests big (real fixture holds: a held job's gpu1)."""
    lab, long = _blocked_lab("slurm")
    lab.advance(27)
    lab.update(long, time="9:00")
    lab.hold(long)
    lab.advance(1)
    st, start, sched = _plan(lab, long)
    assert (st, sched) == ("PD", "gpu4") and pd.isna(start)
    lab.advance(3)  # 36 s: the cycle at 35 s cleared them
    st, start, sched = _plan(lab, long)
    assert (st, sched) == ("PD", None) and pd.isna(start)


def test_a_held_job_keeps_its_nodes_while_no_cycle_has_a_job_to_test():
    """With every pending job held, backfill's cycles find no job to test and return before
    clearing any estimate (backfill.c _attempt_backfill: "no jobs to backfill"), so the held
    job's SCHEDNODES stay; a job submitted later makes the next cycle clear them."""
    lab, long = _blocked_lab("slurm")
    big = next(j for j in lab.sim.jobs.values() if j.count == 4).id
    lab.advance(27)
    lab.hold(long)
    lab.hold(big)
    lab.advance(30)  # 62 s: cycles at 35 ... 60 s had no job to test
    assert _plan(lab, long)[2] == "gpu4"
    assert _plan(lab, big)[2] == "gpu[1-4]"
    lab.sbatch("-N 2 --exclusive -t 1:00 -p gpu", runtime=10)  # (one node is free: it pends)
    lab.advance(4)  # 66 s: the cycle at 65 s tested the new job
    assert _plan(lab, long)[2] is None and _plan(lab, big)[2] is None


def test_a_hold_is_a_change_the_next_backfill_cycle_acts_on():
    """A hold is a job update (job_mgr.c _update_job sets last_job_update), so backfill's
    next cycle runs (backfill.c _more_work), not skipped as idle. The blocker holds three
    nodes to 240 s; big (4 nodes) is reserved from 300 s, mid (2 nodes) and long (1 node,
    10:00) wait behind it, long unable to backfill on the free gpu4 over big's reservation.
    Holding big at 32 s: mid now blocks the main scheduler, planned at 300 s on gpu[1-2], and
    long backfills on gpu4 at the next cycle, 35 s, though nothing else happens before the
    blocker ends."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = slurmlab.Cluster.from_slurm_conf(DATA / "slurm.conf")
    lab = slurmlab.Lab(cluster, "slurm")
    lab.sbatch("-N 3 --exclusive -t 5:00 -p gpu", runtime=240)
    lab.advance(5)
    big = lab.sbatch("-N 4 --exclusive -t 2:00 -p gpu", runtime=60)
    mid = lab.sbatch("-N 2 --exclusive -t 1:00 -p gpu", runtime=60)
    long = lab.sbatch("-N 1 --exclusive -t 10:00 -p gpu", runtime=60)
    lab.advance(27)  # 32 s
    assert _plan(lab, long)[0] == "PD"
    lab.hold(big)
    lab.advance(10)
    assert lab.sim.jobs[long].start == 35.0
    assert _plan(lab, mid) == ("PD", lab.sim.origin + pd.Timedelta(seconds=300), "gpu[1-2]")


def test_a_held_job_cancelled_before_the_next_cycle_keeps_its_nodes():
    """backfill.c _clear_job_estimates clears only pending jobs' sched_nodes: a held job
    cancelled before the next cycle keeps the nodes of its last plan in its history (no
    SCHEDNODES change at a cycle after its end)."""
    lab, long = _blocked_lab("slurm")
    lab.advance(27)
    lab.hold(long)
    lab.advance(1)
    lab.scancel(long)
    lab.advance(10)  # the cycles at 35 and 40 s test big
    job = lab.sim.jobs[long]
    assert job.state == "CANCELLED"
    assert job.sched[-1][1] is not None and job.sched[-1][0] < 32


def test_a_textbook_policy_plans_an_updated_job_in_the_same_instant():
    """conservative: the pass that follows the update at once plans the new request (two
    nodes from 420 s: gpu[1-2]), with no moment showing the old plan or none."""
    lab, long = _blocked_lab("conservative")
    lab.advance(27)
    at_420 = lab.sim.origin + pd.Timedelta(seconds=420)
    assert _plan(lab, long) == ("PD", at_420, "gpu1")
    lab.update(long, nodes="2-2")
    assert _plan(lab, long) == ("PD", at_420, "gpu[1-2]")
    t, nodes = lab.sim.jobs[long].sched[-1]
    assert (t, [lab.sim.node_names[i] for i in nodes]) == (32.0, ["gpu1", "gpu2"])


def test_a_cycle_whose_reservation_step_starts_every_job_clears_held_nodes(tmp_path):
    """With sched_interval=-1 a backfill cycle starts the jobs of an advance reservation
    itself (backfill.c tests them), so a cycle whose queue holds only such a job still has
    a job to test, and _clear_job_estimates runs: the held job's SCHEDNODES go in the cycle
    at 630 s that starts a, the only job queued."""
    doc = """
cluster:
  nodes: [{name: "gpu[1-2]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  settings: {SchedulerParameters: "sched_interval=-1,bf_interval=30"}
policy: slurm
reservations: [{name: r, start: 600, duration: "1:00:00", nodes: "gpu1", users: [ann]}]
jobs:
  - {id: blocker, submit: 0, runtime: 280, user: bob, args: "-N 2 --exclusive -t 5:00"}
  - {id: held, submit: 1, runtime: 60, user: bob, args: "-N 2 --exclusive -t 10:00"}
  - {id: a, submit: 625, runtime: 60, user: ann, args: "-N 1 -t 10 --reservation=r"}
actions:
  - {at: 40, action: hold, job: held}
"""
    path = tmp_path / "s.yaml"
    path.write_text(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(path).run(until=700)
    assert result.seconds("Start").tolist()[2] == 630.0

    def sched(t):
        return result.squeue(at=t).set_index("JOBID").loc["held", "SCHEDNODES"]

    assert sched(629) == "gpu[1-2]"  # (kept since the hold at 40 s: no cycle had a job)
    assert sched(631) is None
