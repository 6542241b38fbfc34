"""QA 45: conservative backfilling never delays a standing reservation, spread jobs included."""

from __future__ import annotations

from slurmlab import Cluster
from slurmlab.sim.simulate import simulate
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

CONF = (
    "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
    "GresTypes=gpu\nSchedulerParameters=bf_interval=10\n"
    "NodeName=n[1-2] CPUs=8 RealMemory=8000 Gres=gpu:2\n"
    "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
)


def _job(args: str, submit: float, runtime: float, jid: str) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=jid)


#: tests/test_engine_properties.py's stored failing example, shrunk (31 jobs to 15)
RESPREAD = [
    _job("--ntasks=1 --mem=500M --time=4:00 --exclusive", 0, 300, "j15"),
    _job("--ntasks=6 --time=1:00 --exclusive", 32, 600, "j17"),
    _job("--time=5:00 --exclusive", 32, 300, "j18"),
    _job("--ntasks=1 --time=9:00 --exclusive", 33, 60, "j19"),
    _job("--gres=gpu:1 --time=5:00", 42, 0, "j20"),
    _job("--gres=gpu:1 --time=5:00", 42, 60, "j21"),
    _job("--ntasks=9 --time=6:00", 102, 0, "j22"),  # spread: -n without -N
    _job("--ntasks=13 --time=1:00 --exclusive", 104, 0, "j23"),
    _job("--time=5:00", 107, 60, "j24"),
    _job("--ntasks=5 --mem=500M --time=5:00", 141, 0, "j25"),
    _job("--time=2:00", 141, 30, "j26"),
    _job("--mem=500M --time=2:00", 142, 0, "j28"),
    _job("--mem=2000M --time=9:00", 229, 0, "j29"),
    _job("--time=2:00", 267, 0, "j30"),
    _job("--gres=gpu:1 --time=6:00", 348, 0, "j31"),
]


def test_a_spread_job_dealt_anew_at_its_own_start_keeps_its_reservation():
    """Conservative backfilling (Mu'alem & Feitelson 2001; the Conservative docstring: each
    job is put back at its earliest fit, "never later than it was"): no job starts after a
    start planned for it. j22 (-n 9 without -N) is dealt out as select/cons_tres
    ``_eval_nodes`` (job_test.c) deals its tasks: planned at 392 with 6 + 3 tasks on n1 and
    n2, then, when n1's jobs end at 360, found again at 392 on n1 and n2 with 8 + 1. A plan
    is kept from pass to pass as its start and nodes, so the dealing alone changing did not
    reach the next pass, which put 6 + 3 back beside the room the pass gave j31 on n2: n2
    overcommitted, the whole plan was recomputed from scratch, and j23 (exclusive, ahead)
    took j29's standing slot (planned 392 on n2, started 422). Found at its own start on
    the same nodes, a spread job now keeps its reservation as it was (as Profile.replan
    leaves any other job)."""
    r = simulate(Cluster.from_slurm_conf(CONF), Workload(tuple(RESPREAD)), "conservative")
    late = [
        (job.key, job.start, when, planned)
        for job in r.sim.jobs.values()
        for when, planned in job.plans
        if planned is not None and job.start > planned
    ]
    assert late == []
    jobs = {job.key: job for job in r.sim.jobs.values()}
    assert (300.0, 392.0) in jobs["j29"].plans  # the reservation the bug delayed ...
    assert jobs["j29"].start <= 392.0  # ... is kept
    assert jobs["j22"].start == 392.0  # (the spread job starts when planned)
