"""The ``slurm`` policy's backfill around advance reservations, one rule per test
(backfill.c ``_attempt_backfill`` with reservation.c ``job_test_resv`` and
``find_resv_end``; the ``resv-backfill`` fixture shows each in real Slurm 22.05).

The cluster: n[1-4], each 4 CPUs, 8000 MB, one partition ``main``; ann may use the
reservations, ben may not. Whole nodes (``--exclusive``), ``-t`` in minutes, times in
seconds; ``bf_resolution`` is Slurm's default, 60 s, and time 0 is on its grid.
"""

from __future__ import annotations

import pandas as pd

from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Reservation
from slurmlab.spec.workload import Workload, WorkloadJob

CLUSTER = Cluster.from_slurm_conf(
    "SelectType=select/cons_tres\nNodeName=n[1-4] CPUs=4 RealMemory=8000\n"
    "PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE DefMemPerCPU=2000\n"
)


def job(id: str, args: str, submit: float = 0, runtime: float = 600, user="ben") -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, user=user)


def plans(reservation: Reservation, *jobs: WorkloadJob, at: float) -> dict[str, tuple]:
    """squeue --start at ``at``: JOBID -> (expected start in seconds or None, SCHEDNODES)."""
    result = simulate(CLUSTER, Workload(jobs), "slurm", reservations=[reservation])
    queue = result.squeue(at=at)
    queue = queue[queue["ST"] == "PD"]
    start = queue["START_TIME"].map(
        lambda s: None if pd.isna(s) else (s - result.origin).total_seconds()
    )
    return dict(zip(queue["JOBID"], zip(start, queue["SCHEDNODES"], strict=True), strict=True))


def test_a_job_held_back_by_a_reservation_is_planned_at_its_end_rounded_up_plus_1_s():
    """A try whose window meets a reservation loses its nodes, and backfill tries the job
    again at the reservation's end rounded up to bf_resolution, plus 1 s (find_resv_end,
    ``++resv_end``): big (three nodes) waits for n[3-4], reserved to 1000 s, and is planned
    at 1021 s (1000 rounded up to 1020, + 1), not at 1000."""
    resv = Reservation("r", start=100, duration="900s", nodes=("n3", "n4"), users=("ann",))
    got = plans(
        resv,
        job("fill", "-N 2 --exclusive -w n[1-2] -t 10"),
        job("big", "-N 3 --exclusive -t 10", submit=1),
        at=50,
    )
    assert got == {"big": (1021.0, "n[1-3]")}


def test_a_job_held_back_by_a_maintenance_reservation_is_planned_at_its_exact_end():
    """A maintenance reservation (Flags=MAINT) over every node of the job's partition moves
    the try to the reservation's exact end (job_test_resv: ESLURM_RESERVATION_MAINT,
    ``*when = resv_ptr->end_time``): big is planned at 1000 s."""
    resv = Reservation(
        "m", start=100, duration="900s", nodes=("n1", "n2", "n3", "n4"), users=("ann",),
        flags=("MAINT",),
    )  # fmt: skip
    got = plans(resv, job("big", "-N 3 --exclusive -t 10", submit=1), at=50)
    assert got == {"big": (1000.0, "n[1-3]")}


def test_jobs_of_a_begun_reservation_are_planned_on_its_nodes_first_even_past_its_end():
    """Once a reservation has begun, backfill plans its jobs on its nodes (job_test_resv
    gives them those nodes, with no bound on their end) before the other jobs (a job with
    a reservation sorts first, job_scheduler.c sort_job_queue2): a2 and a3 (20 min) are
    planned at a1's end (600 s) on n3 and n4, to 1800 s, past the reservation's end
    (1000 s), though big was queued before them; big, which needs three nodes, then waits
    for them (1800 s)."""
    resv = Reservation("r", start=0, duration="1000s", nodes=("n3", "n4"), users=("ann",))
    got = plans(
        resv,
        job("a1", "-N 2 --exclusive -t 10 --reservation=r", user="ann"),
        job("big", "-N 3 --exclusive -t 10", submit=1),
        job("a2", "-N 1 --exclusive -t 20 --reservation=r", submit=2, user="ann"),
        job("a3", "-N 1 --exclusive -t 20 --reservation=r", submit=3, user="ann"),
        at=50,
    )
    assert got == {"a2": (600.0, "n3"), "a3": (600.0, "n4"), "big": (1800.0, "n[1-3]")}


def test_jobs_of_a_reservation_not_begun_get_no_plan():
    """Before its reservation begins, job_test_resv defers a job (ESLURM_INVALID_TIME_VALUE,
    "reservation defer"): no expected start, no SCHEDNODES, reason Reservation."""
    resv = Reservation("r", start=500, duration="1000s", nodes=("n3", "n4"), users=("ann",))
    result = simulate(
        CLUSTER,
        Workload([job("a1", "-N 2 --exclusive -t 10 --reservation=r", user="ann")]),
        "slurm",
        reservations=[resv],
    )
    row = result.squeue(at=50).set_index("JOBID").loc["a1"]
    assert pd.isna(row["START_TIME"]) and row["SCHEDNODES"] is None
    assert row["NODELIST(REASON)"] == "(Reservation)"


def test_a_w_job_on_reserved_nodes_is_planned_at_the_reservations_exact_end():
    """A job whose ``-w`` nodes a reservation holds is moved to the reservation's exact end
    (job_test_resv: ESLURM_NODES_BUSY, ``*when = resv_ptr->end_time``), not to the rounding
    after it: pinned (``-w n3``) is planned at 1000 s."""
    resv = Reservation("r", start=100, duration="900s", nodes=("n3", "n4"), users=("ann",))
    got = plans(resv, job("pinned", "-N 1 --exclusive -w n3 -t 10", submit=1), at=50)
    assert got == {"pinned": (1000.0, "n3")}
