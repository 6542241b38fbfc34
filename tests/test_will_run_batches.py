"""The ``slurm`` policy plans a blocked job where Slurm's will-run test puts it: running jobs
taken out in batches of their expected ends, the start the end of the last job of the batch
after which it fits, on the nodes best fit then (cons_common/job_test.c ``_will_run_test``,
called by backfill.c ``_try_sched`` through ``select_g_job_test(SELECT_MODE_WILL_RUN)``)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab

ROOT = Path(__file__).resolve().parents[1]


def _planned(origin: str) -> tuple[float, str]:
    """(seconds from the origin, SCHEDNODES) of a whole-node job planned on ``tiny`` while
    node1's job runs to 120 s, node2's to 180 s and node[3-4]'s to 600 s."""
    lab = slurmlab.Lab("tiny", "slurm", origin=origin)
    for limit in ("2:00", "3:00", "10:00", "10:00"):
        runtime = pd.Timedelta(f"00:{limit}").total_seconds()
        lab.sbatch(f"-N 1 --exclusive -t {limit} --wrap=x", runtime=runtime)
    job = lab.sbatch("-N 1 --exclusive -t 5:00 --wrap=x", runtime=300)
    lab.advance(35)  # (a backfill cycle has run: bf_interval 30 s)
    row = lab.squeue().set_index("JOBID").loc[str(job)]
    return (row["START_TIME"] - pd.Timestamp(origin)).total_seconds(), row["SCHEDNODES"]


def test_the_first_batch_reaches_30_s_past_the_first_end_rounded_up_to_30_epoch_seconds():
    """job_test.c ``_will_run_test``: ``end_time`` is the first running job's end rounded up
    to the next multiple of 30 epoch seconds (a whole 30 s when it is one), and the first
    batch takes every job ending by ``end_time + time_window`` (30 s); the start is the end
    of the batch's last job. With the clock on a multiple of 30 s, node1's job ends at 120
    s: the batch runs to 180 s and takes node2's job too, so the job is planned at 180 s
    (the first moment it fits is 120 s)."""
    assert _planned("2026-01-05T00:00:00") == (180.0, "node1")


def test_where_the_batches_fall_follows_the_epoch_seconds_of_the_origin():
    """The same jobs 29 s later on the calendar: 120 s is 149 epoch seconds past a multiple
    of 30, ``end_time`` 150 (121 s here), the batch ends at 151 s here and holds node1's job
    alone, so the job is planned at its end, 120 s (job_test.c ``_will_run_test``: ``delta
    = end_time % time_window``)."""
    assert _planned("2026-01-05T00:00:29") == (120.0, "node1")


@pytest.mark.skipif(
    not (ROOT / "datasets/realslurm/ddp-shapes/snapshots.txt").exists(), reason="no fixture"
)
def test_ddpx_is_planned_at_the_end_of_its_batch_as_real_slurms_squeue_start_shows():
    """``ddp-shapes`` (datasets/realslurm): at 10 s real Slurm's ``squeue --start`` shows the
    exclusive 2-node ddpx planned at 123 s on gpu[1-2]: pin (gpu1) ends at 120 s and ddp1
    (gpu[2-3]) at 123, one batch, so the start is 123, on the first nodes best fit then; the
    first moment it fits is 120 s on gpu[1,4], which kept memz (--mem=0, 1:30) off the idle
    gpu4 until 63 s. Real Slurm backfilled memz there at 11 s."""
    sys.path.insert(0, str(ROOT / "tools" / "realslurm"))
    from scorecard import replay_result

    from slurmlab.sim.result import squeue_frame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = replay_result("ddp-shapes")
    queue = squeue_frame(result.sim, 10.0).set_index("JOBID")
    assert (queue.loc["ddpx", "START_TIME"] - result.origin).total_seconds() == 123.0
    assert queue.loc["ddpx", "SCHEDNODES"] == "gpu[1-2]"
    memz = result.jobs.set_index("JobID").loc["memz"]
    assert (memz["Start"] - result.origin).total_seconds() <= 11.0


@pytest.mark.filterwarnings("ignore:the slurm policy on a trace's processor pool")
@pytest.mark.parametrize(
    ("seed", "params"),
    [
        (1, {}),
        (2, {"bf_window": 30}),
        (3, {"bf_window": 120, "bf_resolution": 300}),
        (4, {"bf_interval": 5, "bf_resolution": 10}),
        (5, {"bf_resolution": 7}),
    ],
)
def test_a_pools_will_run_try_may_use_its_node_as_the_map_walk_finds(seed, params, monkeypatch):
    """On a one-node pool meeting no advance reservation the ``slurm`` cycle takes a will-run
    try's nodes (backfill.c ``avail_bitmap``) to be the job's own node without walking the
    map: a fit in the cycle's profile is free of every plan there, and the map's records
    end where the plans do. Every try of the run is checked against the walk
    (``_try_nodes`` from the start of the map's record holding the try), some runs with
    jobs past their limits (the profile then moves with the clock)."""
    import dataclasses

    from slurmlab.policies import backfill
    from slurmlab.records.swf import swf_cluster
    from slurmlab.spec.synthetic import pool_workload

    checked = []

    class Checked(dict):
        """A cycle's tries, each compared with the map walk as it is kept."""

        def __init__(self, cycle):
            super().__init__(cycle.tries)
            self.cycle = cycle

        def __setitem__(self, k, tried):
            t, limit, bits, meets, at, usable = tried
            assert at == backfill._record_start(self.cycle.space, t)
            assert backfill._try_nodes(self.cycle.space, bits, t, limit, meets, at) == usable
            checked.append(usable)
            super().__setitem__(k, tried)

    plan_jobs = backfill.SlurmBackfill._plan_jobs

    def checking(self, queue, view, cycle, *args):
        cycle.tries = Checked(cycle)
        return plan_jobs(self, queue, view, cycle, *args)

    monkeypatch.setattr(backfill.SlurmBackfill, "_plan_jobs", checking)
    pool = pool_workload(800, 64, seed=seed)
    late = dataclasses.replace(
        pool,
        jobs=tuple(
            dataclasses.replace(j, runtime=j.runtime * 3) if i % 4 == 0 else j
            for i, j in enumerate(pool.jobs)
        ),
    )
    for workload in (pool, late):
        slurmlab.simulate(swf_cluster(64), workload, "slurm", **params)
    assert checked.count(1) > 1000  # (tries with the node free, each compared)
