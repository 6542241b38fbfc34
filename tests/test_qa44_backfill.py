"""The ``slurm`` policy against Slurm 22.05.8's job_scheduler.c, backfill.c and select's
will-run test, rule by rule: the main scheduler's depth counts the jobs it skips, a job past
its time limit is expected to end when select guesses, and every job planned beyond
``bf_window`` shows its start.
"""

from __future__ import annotations

import pandas as pd
import pytest

from slurmlab import Cluster, Lab, Scenario
from slurmlab.sim.simulate import simulate
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

ORIGIN = pd.Timestamp("2026-01-05 00:00:00")


def _seconds(value) -> float | None:
    return None if pd.isna(value) else (value - ORIGIN).total_seconds()


def _start_times(lab: Lab) -> dict[str, float | None]:
    """squeue's START_TIME per pending job, in seconds (None: not set)."""
    q = lab.squeue()
    return {j: _seconds(t) for j, t, st in zip(q["JOBID"], q["START_TIME"], q["ST"]) if st == "PD"}


# -- default_queue_depth counts the jobs the main scheduler skips ---------------------------

LIMITS_CONF = """ClusterName=t
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PriorityType=priority/basic
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageEnforce=associations,limits,qos
NodeName=n[1-4] CPUs=8 RealMemory=32000
PartitionName=p Nodes=n[1-4] Default=YES MaxTime=2:00:00 DefMemPerCPU=1000 State=UP
SchedulerParameters=bf_interval=60,default_queue_depth=2
"""


@pytest.mark.parametrize(("depth", "carol"), [(2, 60.0), (4, 10.0)])
def test_jobs_held_by_a_limit_count_toward_default_queue_depth(tmp_path, depth, carol):
    """job_scheduler.c ``_schedule``: ``job_depth++ > def_job_limit`` (line 1573) comes before
    ``acct_policy_job_runnable_pre_select`` (1711), so a job a QOS limit holds uses up the
    depth as a tested one does. Three of bob's jobs wait for MaxJobsPerUser=1; with
    default_queue_depth=2 the pass at carol's submission tests them (depth 0, 1, 2) and stops
    at hers: she starts at the first backfill cycle (60 s), not at once. With
    default_queue_depth=4 the three held jobs and carol's fit in the depth (5 records), so
    she starts at her submission."""
    conf = tmp_path / "slurm.conf"
    conf.write_text(LIMITS_CONF.replace("default_queue_depth=2", f"default_queue_depth={depth}"))
    low = "-n 1 -t 20:00 -A a --qos=low"
    doc = {
        "name": f"depth-limits-{depth}",
        "cluster": {"slurm_conf": str(conf)},
        "policy": {"name": "slurm"},
        "accounts": [{"name": "a", "users": ["bob", "carol"]}],
        "qos": [
            {"name": "normal", "priority": 0},
            {"name": "low", "priority": 0, "max_jobs_per_user": 1},
        ],
        "jobs": [{"id": "b0", "submit": 0, "runtime": 500, "user": "bob", "args": low}]
        + [
            {"id": f"b{k}", "submit": k, "runtime": 50, "user": "bob", "args": low}
            for k in (1, 2, 3)
        ]
        + [{"id": "c", "submit": 10, "runtime": 50, "user": "carol", "args": "-n 1 -t 20:00 -A a"}],
    }
    r = Scenario.from_dict(doc, base=tmp_path).run()
    start = dict(zip(r.jobs["JobID"], r.seconds("Start")))
    assert start["c"] == carol


RESV_CONF = """SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=n[1-4] CPUs=8 RealMemory=32000
PartitionName=p Nodes=n[1-4] Default=YES
SchedulerParameters=bf_interval=60,default_queue_depth=2
"""


def test_jobs_in_a_reservation_count_first_toward_default_queue_depth():
    """sort_job_queue2 puts jobs with a reservation first, and the depth counts them before
    the reservation tests (job_scheduler.c ~1573, failed_resv ~1607): three jobs waiting in
    a full reservation use up default_queue_depth=2 (3 records), so a job that fits on the
    free nodes outside it starts at the first backfill cycle (60 s), not at its submission."""
    lab = Lab(Cluster.from_slurm_conf(RESV_CONF), policy="slurm")
    lab.reserve("r", "2h", nodes="n1", users=["you"])
    lab.sbatch("-N 1 --exclusive -t 30 --reservation=r", runtime=1000)
    for _ in range(3):
        lab.sbatch("-N 1 --exclusive -t 30 --reservation=r", runtime=100)
    lab.advance("5s")
    lab.sbatch("-N 1 -t 30", runtime=100)  # job 5
    lab.advance("2s")
    q = lab.squeue().set_index("JOBID")
    assert q.loc["5", "ST"] == "PD"
    lab.advance("60s")
    assert lab.squeue().set_index("JOBID").loc["5", "ST"] == "R"


def test_with_two_jobs_in_the_reservation_the_third_record_is_reached():
    """Two reservation records and the new job make 3 = default_queue_depth + 1: reached."""
    lab = Lab(Cluster.from_slurm_conf(RESV_CONF), policy="slurm")
    lab.reserve("r", "2h", nodes="n1", users=["you"])
    lab.sbatch("-N 1 --exclusive -t 30 --reservation=r", runtime=1000)
    lab.sbatch("-N 1 --exclusive -t 30 --reservation=r", runtime=100)
    lab.advance("5s")
    lab.sbatch("-N 1 -t 30", runtime=100)  # job 3
    lab.advance("2s")
    assert lab.squeue().set_index("JOBID").loc["3", "ST"] == "R"


# -- a job past its time limit: select's guess of its end -----------------------------------

OVERTIME_CONF = """SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=n[1-3] CPUs=8 RealMemory=32000
PartitionName=p Nodes=n[1-3] Default=YES
OverTimeLimit={otl}
KillWait=30
SchedulerParameters=bf_interval=5,bf_resolution=60,bf_window=120
"""


def _overtime_lab(otl: str) -> Lab:
    lab = Lab(Cluster.from_slurm_conf(OVERTIME_CONF.format(otl=otl)), policy="slurm")
    lab.sbatch("-N 2 --exclusive -t 5 -w n[1-2]", runtime=700)  # R1: limit 300, runs to 700
    lab.sbatch("-N 3 -t 10", runtime=60)  # H: waits for R1
    lab.advance("314s")
    lab.sbatch("-N 1 -t 3", runtime=60)  # J: 180 s, fits on n3 now
    lab.advance("2s")  # (after the backfill cycle at 315 s)
    return lab


def test_a_job_past_its_limit_is_expected_to_end_after_killwait_and_overtimelimit():
    """cons_common/job_test.c ``_guess_job_end`` (used by the will-run test when the
    running job's end_time is not after now, ~2050): end_time + KillWait + OverTimeLimit;
    job_mgr.c never moves end_time for the overtime. R1 (limit 300 s) runs past it with
    OverTimeLimit=10: H is expected at 300 + 30 + 600 = 930 s, and J (180 s) backfills on
    n3 at once, ending long before."""
    lab = _overtime_lab("10")
    q = lab.squeue().set_index("JOBID")
    assert _seconds(q.loc["2", "START_TIME"]) == 930.0
    assert q.loc["3", "ST"] == "R"


def test_with_overtimelimit_unlimited_the_guess_is_now_plus_the_jobs_limit():
    """``_guess_job_end`` with OverTimeLimit=UNLIMITED: "No idea when the job might end,
    this is just a guess": now plus the running job's own time limit. At the cycle at
    315 s: 315 + 300."""
    lab = _overtime_lab("UNLIMITED")
    q = lab.squeue().set_index("JOBID")
    assert _seconds(q.loc["2", "START_TIME"]) == 615.0
    assert q.loc["3", "ST"] == "R"


def test_a_trace_job_past_its_limit_may_still_end_at_any_moment():
    """A trace replay (limits not enforced) keeps its rule: a job running past its limit is
    expected to end now, so a job that would run into the plan of the job waiting for it
    does not start before it (with a slurm.conf OverTimeLimit it would: see above)."""
    c = Cluster.from_slurm_conf(
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        "NodeName=n[1-3] CPUs=8 RealMemory=32000\n"
        "PartitionName=p Nodes=n[1-3] Default=YES\n"
        "SchedulerParameters=bf_interval=5,bf_resolution=60,bf_window=120\n"
    )
    jobs = [
        WorkloadJob(JobSpec.from_args("-N 2 --exclusive -t 5 -w n[1-2]"), 0, 700, id="r1"),
        WorkloadJob(JobSpec.from_args("-N 3 --exclusive -t 10"), 0, 60, id="h"),
        WorkloadJob(JobSpec.from_args("-N 1 -t 3"), 301, 60, id="j"),
    ]
    r = simulate(c, Workload(jobs), "slurm", enforce_time_limit=False)
    start = dict(zip(r.jobs["JobID"], r.seconds("Start")))
    assert start["j"] == 760.0  # after h (700 to 760), not backfilled at 301


# -- jobs planned beyond bf_window -----------------------------------------------------------


def test_every_job_planned_beyond_bf_window_shows_its_start():
    """backfill.c ~2868: "StartTime set to time after current backfill window. No
    reservation created": the job keeps the start the will-run test gave it, and so does
    each later one of its shape (squeue --start shows each). Jobs 2 and 3 (same shape,
    limits 10 and 20 min) both start when job 1 ends (2 h), beyond the 60-min window."""
    lab = Lab(
        Cluster.from_slurm_conf(
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
            "NodeName=n[1-4] CPUs=8 RealMemory=32000\n"
            "PartitionName=p Nodes=n[1-4] Default=YES\n"
            "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=60\n"
        ),
        policy="slurm",
    )
    lab.sbatch("-N 4 --exclusive -t 2:00:00", runtime=7200)
    lab.sbatch("-N 4 -t 10", runtime=60)
    lab.sbatch("-N 4 -t 20", runtime=60)
    lab.sbatch("-N 4 -t 5", runtime=60)
    lab.sbatch("-N 2 -t 20", runtime=60)
    lab.advance("12s")
    assert _start_times(lab) == {"2": 7200.0, "3": 7200.0, "4": 7200.0, "5": 7200.0}
