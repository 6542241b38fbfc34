"""QA stop 26: a scheduling researcher's independent check of ``conservative`` and ``slurm``.

* ``slurm``: backfill.c's node_space map ends at the window's end rounded down to
  ``bf_resolution``; a planned reservation holds nodes only within it. A reservation
  starting at or after the map's end holds nothing (one reaching past it is cut there:
  that changes only later jobs' plans, not who starts now).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

TWO = Cluster.from_slurm_conf(
    "NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
    "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
)


def job(id: str, args: str, submit: float, runtime: float) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id)


@pytest.mark.parametrize("window", [8, 9])
def test_a_reservation_at_the_maps_end_holds_nothing(window):
    # The cycle at 30 s: the map runs from 0 to floor((30 + 60 * window) / 60) * 60, i.e.
    # 480 (window 8) or 540 (window 9). `wide` is expected at 540: beyond the window with 8
    # (no reservation), within it with 9 (540 <= 30 + 540) but at the map's end, where
    # backfill.c's _add_reservation finds no record to hold. `long` starts now either way.
    work = Workload(
        (
            job("a", "-N1 --exclusive -t 9", 0, 540),  # n1 until 540
            job("wide", "-N2 --exclusive -t 10", 1, 600),  # blocked until 540
            job("long", "-N1 --exclusive -t 30", 2, 1800),
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate(
            TWO, work, "slurm", bf_interval=30, bf_resolution=60, bf_window=window,
            progress=False,
        )  # fmt: skip
    starts = dict(zip(r.jobs["JobID"], r.seconds("Start"), strict=True))
    assert starts == {"a": 0.0, "wide": 1830.0, "long": 30.0}
    assert r.jobs.set_index("JobID").loc["long", "StartedBy"] == "backfill"


def test_conservative_compresses_in_priority_order():
    # A pool of 3 processors. At 6, j1 ends 2 s before its limit. The standing reservations
    # are j3 (1 proc) at [7, 13) and j2 (2 procs) at [8, 17). Compression in priority order
    # (Mu'alem & Feitelson; pyss compresses in submit order) moves j2 first, to [6, 15),
    # beside j3's reservation; j3 then stays at 7. In order of reservation time, j3 took the
    # hole at 6 and j2 could only move to 7.
    from datetime import timedelta

    from slurmlab.records.swf import swf_cluster

    jobs = [("j4", 1, 1, 6, 6), ("j1", 2, 2, 4, 6), ("j2", 3, 2, 9, 9), ("j3", 5, 1, 6, 6)]
    work = Workload(
        tuple(
            WorkloadJob(
                JobSpec(ntasks=n, time_limit=timedelta(seconds=limit)), submit=s, runtime=rt, id=i
            )
            for i, s, n, rt, limit in jobs
        ),
        kind="trace",
    )
    r = simulate(swf_cluster(3), work, "conservative", progress=False)
    assert {j.key: j.start for j in r.sim.jobs.values()} == {
        "j4": 1.0, "j1": 2.0, "j2": 6.0, "j3": 7.0,
    }  # fmt: skip


def test_a_job_held_to_the_maps_end_by_cut_reservations_has_no_expected_start():
    # The real backfill-limits fixture (bf_window=3, bf_resolution=10): at 370 s x1 and x2
    # are planned at 540 on all four nodes, held until the map's end (550). x3 fits only
    # after them: backfill.c's tries run out of records at 550 ("can not start until too
    # far in the future"), and real squeue --start shows N/A and (null) for it
    from pathlib import Path

    import slurmlab
    from slurmlab.sim.result import squeue_frame

    path = Path(__file__).resolve().parents[1] / "datasets/realslurm/scenarios/backfill-limits.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = slurmlab.Scenario.load(path).run().sim
    q = squeue_frame(sim, 370).set_index("JOBID")
    assert q.loc["x1", "SCHEDNODES"] == "gpu[1-2]"
    assert q.loc["x2", "SCHEDNODES"] == "gpu[3-4]"
    assert q.loc["x3", "SCHEDNODES"] is None
    assert q.loc["x3", "START_TIME"] is pd.NaT or pd.isna(q.loc["x3", "START_TIME"])
