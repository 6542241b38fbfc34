"""Rules found missing by QA against Slurm's documentation and source, one per test.

Reservations (reservations.html, backfill.c), QOS MaxWall as the default time limit
(acct_policy.c ``_set_time_limit``), the requeue of finished checkpointing jobs and of jobs
that may not be requeued (scontrol(1), sbatch(1) --no-requeue), and priorities that keep
being recalculated while a node outage holds every job (PriorityCalcPeriod).
"""

from __future__ import annotations

import pytest
import yaml

from slurmlab.scenario import Scenario
from slurmlab.sim.faults import NodeFailure
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.workload import Workload, WorkloadJob

FOUR = Cluster.from_slurm_conf(
    "NodeName=n[1-4] CPUs=16 RealMemory=64000\n"
    "PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE\n"
)


def job(id: str, args: str, submit: float = 0, runtime: float = 300, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def column(result, name: str) -> dict:
    return dict(zip(result.jobs["JobID"], result.jobs[name], strict=True))


def scenario(text: str):
    return Scenario.from_dict(yaml.safe_load(text)).run()


# -- reservations ---------------------------------------------------------------------------------
#: alice's reservation holds n[1-2] over [600, 1800)
ALICE = Reservation("r", start=600, duration=1200, nodes=("n1", "n2"), users=("alice",))


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_a_job_crossing_a_reservation_is_planned_after_it_and_not_delayed(policy):
    """``cross`` (3 nodes, 20 min) cannot end before the reservation starts, so it is
    planned at its end (1800) on n1, n2 and one more node; ``long`` (2 nodes, 1 h) would
    hold that node then, so backfill must not start it: it starts when ``cross`` ends.

    Under ``slurm`` the main scheduler starts ``long`` at its submission: ``cross`` could
    not run on n3-n4 even idle, and neither is busy, so it waits for ReqNodeNotAvail and
    blocks nothing (select's ESLURM_NODE_NOT_AVAIL), and the main scheduler does not
    honour backfill's plans: ``cross`` starts when ``long`` ends."""
    result = simulate(
        FOUR,
        Workload(
            (
                job("cross", "-N 3 --exclusive -t 20", user="bob"),
                job("long", "-N 2 --exclusive -t 1:00:00", submit=5, runtime=3600, user="bob"),
            )
        ),
        policy,
        reservations=[ALICE],
    )
    if policy == "slurm":
        assert starts(result) == {"cross": 3605, "long": 5}
        return
    assert starts(result) == {"cross": 1800, "long": 2100}
    planned = result.squeue(at=100).set_index("JOBID")["START_TIME"]
    assert (planned["cross"] - result.origin).total_seconds() == 1800


def test_pending_jobs_of_a_reservation_are_held_when_it_ends():
    """reservations.html: "when a reservation ends the reservation request will be removed
    from any pending jobs submitted to the reservation and will be put into a held state":
    ``second`` waits for ``first`` inside the reservation, which ends first; it never starts
    and shows ReservationDeleted."""
    resv = Reservation("r", start=600, duration=600, nodes=("n1",), users=("alice",))
    result = simulate(
        FOUR,
        Workload(
            (
                job("first", "-N 1 --exclusive -t 30 --reservation=r", runtime=1500, user="alice"),
                job("second", "-N 1 --exclusive -t 5 --reservation=r", user="alice"),
            )
        ),
        "easy",
        reservations=[resv],
    )
    assert column(result, "State") == {"first": "COMPLETED", "second": "PENDING"}
    assert column(result, "Reason")["second"] == "ReservationDeleted"
    assert "ended while it waited" in result.why_pending("second", at=5000)


def test_a_reservation_job_held_by_a_qos_limit_shows_the_limit():
    """The reservation's job has free nodes but its QOS allows one running job per user:
    squeue shows QOSMaxJobsPerUserLimit (not Priority), and why_pending says why."""
    result = simulate(
        FOUR,
        Workload(
            (
                job("out", "-N 1 -t 30 -q one", runtime=1000, user="alice"),
                job("inr", "-N 1 -t 10 -q one --reservation=r", submit=600, user="alice"),
            )
        ),
        "easy",
        reservations=[ALICE],
        qos=(Qos("one", max_jobs_per_user=1),),
    )
    # it ran when ``out`` ended; sacct keeps the limit it waited for
    assert column(result, "Reason")["inr"] == "QOSMaxJobsPerUserLimit"
    q = result.squeue(at=700).set_index("JOBID")
    assert q.loc["inr", "NODELIST(REASON)"] == "(QOSMaxJobsPerUserLimit)"
    assert "MaxJobsPerUser" in result.why_pending("inr", at=700)
    assert starts(result)["inr"] == 1000


# -- QOS MaxWall ----------------------------------------------------------------------------------
def test_a_job_without_a_time_limit_gets_the_qos_max_wall():
    """No -t and no partition DefaultTime: the job's limit is its QOS MaxWall (it used to
    pend for ever with QOSMaxWallDurationPerJobLimit)."""
    result = simulate(
        FOUR,
        Workload((job("nolimit", "-N 1 -q capped", runtime=600),)),
        "easy",
        qos=(Qos("capped", max_wall="1:00:00"),),
    )
    assert column(result, "State") == {"nolimit": "COMPLETED"}
    assert column(result, "Timelimit")["nolimit"].total_seconds() == 3600


def test_a_partition_default_time_comes_before_the_qos_max_wall():
    """A DefaultTime is the job's limit (job_mgr.c sets it before the QOS is checked)."""
    conf = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4 RealMemory=8000\n"
        "PartitionName=main Nodes=n1 Default=YES DefaultTime=30 MaxTime=INFINITE\n"
    )
    result = simulate(
        conf,
        Workload((job("a", "-N 1 -q capped", runtime=600),)),
        "easy",
        qos=(Qos("capped", max_wall="1:00:00"),),
    )
    assert column(result, "Timelimit")["a"].total_seconds() == 1800


# -- requeue and checkpoints ----------------------------------------------------------------------
def test_requeueing_a_timed_out_checkpointing_job_resumes_from_its_checkpoint():
    """scontrol requeue of a job that timed out after 3 checkpoints: it resumes from 3000 s of
    saved work (restart 50 s + 1000 s) and completes; useful work adds up to its 4000 s."""
    result = scenario(
        """
cluster: {nodes: [{name: n1, cpus: 4}]}
jobs:
  - {id: a, runtime: 4000, args: "-N 1 -t 1:00:00",
     checkpoint: {interval: 1000, write_cost: 100, restart_cost: 50}}
actions:
  - {at: 3800, action: requeue, job: a}
"""
    )
    runs = result.runs
    assert list(runs["State"]) == ["REQUEUED", "COMPLETED"]  # (_job_requeue_op's state)
    assert runs["useful_s"].sum() == 4000
    assert list(runs["restarting_s"]) == [0.0, 50.0]
    assert runs["End"].iloc[-1] == 3800 + 121 + 50 + 1000


def test_requeueing_a_completed_job_runs_it_again_from_the_start():
    """A completed job requeued runs its whole script again, with no restart cost."""
    result = scenario(
        """
cluster: {nodes: [{name: n1, cpus: 4}]}
jobs:
  - {id: a, runtime: 500, args: "-N 1 -t 1:00:00",
     checkpoint: {interval: 1000, write_cost: 100, restart_cost: 50}}
actions:
  - {at: 700, action: requeue, job: a}
"""
    )
    runs = result.runs
    assert list(runs["State"]) == ["REQUEUED", "COMPLETED"]  # (_job_requeue_op's state)
    assert list(runs["restarting_s"]) == [0.0, 0.0]
    assert runs["End"].iloc[-1] - runs["Start"].iloc[-1] == 500


def test_a_job_that_may_not_be_requeued_does_not_requeue_itself_on_its_signal():
    """--no-requeue: the checkpoint-on-signal handler cannot requeue it (scontrol refuses),
    so the job is killed at its limit: TIMEOUT, one run."""
    result = scenario(
        """
cluster: {nodes: [{name: n1, cpus: 4}]}
jobs:
  - {id: b, runtime: 10000, args: "-N 1 -t 1:00:00 --signal=USR1@300 --no-requeue",
     checkpoint: {interval: 1000, write_cost: 100, on_signal: true}}
"""
    )
    runs = result.sacct(duplicates=True)
    assert list(runs["State"]) == ["TIMEOUT"]
    assert (runs["End"].iloc[0] - result.origin).total_seconds() == 3600


def test_priorities_keep_ageing_while_an_outage_holds_every_job():
    """All four nodes are down from t=100 to 7300. Y (nice 10, submitted at 0) and X
    (submitted at 50) both reach the age cap meanwhile, so X, whose nice is 0, goes first
    at the repair (priorities were frozen at t=200 before: Y went first)."""
    conf = Cluster.from_slurm_conf(
        "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityMaxAge=1:00:00\n"
        "PriorityCalcPeriod=5\n"
        "NodeName=n[1-4] CPUs=4 RealMemory=8000\n"
        "PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE\n"
    )
    result = simulate(
        conf,
        Workload(
            (
                job("Z", "-N 4 --exclusive -t 60 --no-requeue", runtime=1000),
                job("Y", "-N 4 --exclusive -t 60 --nice=10", runtime=600),
                job("X", "-N 4 --exclusive -t 60", submit=50, runtime=600),
            )
        ),
        "easy",
        failures=[NodeFailure(f"n{i}", at=100, down_for=7200) for i in range(1, 5)],
    )
    assert starts(result)["X"] == 7300
    assert starts(result)["Y"] == 7900
    ages = result.sprio(at=7000).set_index("JOBID")["AGE"]
    assert ages.to_dict() == {"X": 1000, "Y": 1000}


# -- sacct's Reason for finished runs -------------------------------------------------------------
@pytest.mark.parametrize("fixture", ["dependency", "failures"])
def test_sacct_reason_of_finished_runs_matches_real_slurm(fixture):
    """sacct's Reason is the last reason a run waited for other than its turn (Dependency,
    BeginTime after a requeue...), "None" if it only waited its turn: as real Slurm 22.05
    wrote it in the fixtures (runs matched by job name)."""
    from pathlib import Path

    from slurmlab import read_sacct

    root = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
    real = read_sacct(root / fixture / "sacct.txt")
    real = real[~real["JobID"].astype(str).str.contains(r"\.")]
    sim = Scenario.load(root / "scenarios" / f"{fixture}.yaml").run().sacct(duplicates=True)
    names = {"single1": "solo", "single2": "solo"}  # (the scenario's ids; real names: -J)
    got = [(names.get(n, n), r) for n, r in zip(sim["JobID"], sim["Reason"], strict=True)]
    want = [(n, r) for n, r in zip(real["JobName"], real["Reason"], strict=True)]
    assert sorted(got) == sorted(want)


def test_run_after_a_cancel_does_not_move_the_clock_to_the_cancelled_end():
    """The cancelled run's planned end (at 3600) is void: ``run()`` with nothing left to do
    stays at 10 s, and a job submitted next is submitted then."""
    from slurmlab import Lab

    lab = Lab("tiny")
    j = lab.sbatch("-t 2:00:00", runtime=3600)
    lab.advance(10)
    lab.scancel(j)
    lab.run()
    assert lab.now == 10
    lab.sbatch("-t 5", runtime=60)
    lab.run()
    assert lab.now == 70
    assert lab.result.metrics["makespan_s"] == 70


def test_until_metrics_cover_the_window_up_to_until_while_jobs_wait():
    """A run stopped by ``until=150`` with a job still waiting (its --begin is at 200): the
    window is 0-150 s whether or not a job still runs then (it was 0-100 s when nothing
    ran at 150), so the idle 100-150 s count as unused capacity."""
    jobs = [
        job("a", "-N 4 --exclusive -t 10", runtime=100),
        job("later", "-N 1 -t 10 --begin=now+200", runtime=10),
    ]
    tiny = Cluster.preset("tiny")
    alone = simulate(tiny, Workload(jobs), "easy", until=150).metrics
    assert alone["makespan_s"] == 150
    assert alone["utilization"] == pytest.approx(100 / 150)
    busy = simulate(
        tiny, Workload([*jobs, job("b", "-n 1 -t 60", runtime=1000)]), "easy", until=150
    )
    assert busy.metrics["makespan_s"] == 150
