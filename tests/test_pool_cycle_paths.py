"""The ``slurm`` cycle's shortcuts on a one-node pool (a trace's processor pool) answer as the
general code does, at every call of random pool runs: a search for a shape's earliest fit
begun where an earlier search of the shape ended finds what a search from the profile's
start finds; a will-run try's nodes, taken to be the job's own node, are those the map walk
gives (backfill.c ``avail_bitmap``, :func:`~slurmlab.policies.backfill._try_nodes`); and a
try at no running job's end, not handed to ``_will_run``, is one it would keep."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import slurmlab
from slurmlab.policies import backfill
from slurmlab.records.swf import swf_cluster
from slurmlab.spec.synthetic import pool_workload

pytestmark = pytest.mark.filterwarnings("ignore")  # (simulate's pool warning)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_pools_cycle_shortcuts_answer_as_the_general_code(data):
    """Every bounded search of a random pool run equals the search from the profile's start
    (the same interval, start and node), and every will-run try's nodes and record start
    equal the map walk's; a try at no running job's end keeps its start and node in
    ``_will_run``. Runs vary the pool's size, the load, jobs past their limits (the profile
    then moves with the clock), ``--time-min`` (shorter limits of a shape) and the cycle's
    grid and window."""
    procs = data.draw(st.sampled_from([1, 8, 64, 512]), label="procs")
    pool = pool_workload(
        data.draw(st.integers(60, 200), label="jobs"),
        procs,
        seed=data.draw(st.integers(0, 10**6), label="seed"),
        load=data.draw(st.floats(0.9, 3.0), label="load"),
    )
    overrun = data.draw(st.sampled_from([0, 3, 5]), label="every nth job runs 3x")
    halved = data.draw(st.sampled_from([0, 2, 4]), label="every nth job --time-min half")
    jobs = []
    for i, job in enumerate(pool.jobs):
        if overrun and i % overrun == 0:
            job = dataclasses.replace(job, runtime=job.runtime * 3)
        if halved and i % halved == 1:
            low = timedelta(seconds=max(60.0, job.spec.time_limit.total_seconds() // 120 * 60))
            job = dataclasses.replace(job, spec=dataclasses.replace(job.spec, time_min=low))
        jobs.append(job)
    params = {
        "bf_resolution": data.draw(st.sampled_from([1, 7, 60, 300]), label="bf_resolution"),
        "bf_window": data.draw(st.sampled_from([10, 60, 1440]), label="bf_window"),
        "bf_interval": data.draw(st.sampled_from([5, 30]), label="bf_interval"),
    }
    counts = {"bounded": 0, "tries": 0, "kept": 0}
    earliest = backfill._earliest
    last: list = []  # the search the next try comes from: (prof, job, mask, limit, found)

    def searching(prof, job, mask, limit, not_before=None):
        found = earliest(prof, job, mask, limit, not_before)
        if not_before is not None:
            assert found == earliest(prof, job, mask, limit)
            counts["bounded"] += 1
        last[:] = [prof, job, mask, limit, found]
        return found

    will_run = backfill._will_run

    class Checked(dict):
        """A cycle's tries, each compared with the general code as it is kept."""

        def __init__(self, cycle, epoch):
            super().__init__(cycle.tries)
            self.cycle, self.epoch = cycle, epoch

        def __setitem__(self, k, tried):
            t, limit, bits, meets, at, usable = tried
            cycle = self.cycle
            assert at == backfill._record_start(cycle.space, t)
            assert backfill._try_nodes(cycle.space, bits, t, limit, meets, at) == usable
            prof, job, mask, searched, found = last
            assert (searched, found[1]) == (limit, t)
            if t not in cycle.ends[2]:  # (the pool's cycle keeps it as found)
                assert will_run(prof, job, mask, usable, limit, found, cycle, self.epoch) == found
                counts["kept"] += 1
            counts["tries"] += 1
            super().__setitem__(k, tried)

    plan_jobs = backfill.SlurmBackfill._plan_jobs

    def checking(self, queue, view, cycle, *args):
        cycle.tries = Checked(cycle, view.epoch)
        return plan_jobs(self, queue, view, cycle, *args)

    with pytest.MonkeyPatch.context() as m:  # (not the fixture: many examples per call)
        m.setattr(backfill, "_earliest", searching)
        m.setattr(backfill.SlurmBackfill, "_plan_jobs", checking)
        workload = dataclasses.replace(pool, jobs=tuple(jobs))
        slurmlab.simulate(swf_cluster(procs), workload, "slurm", progress=False, **params)
    assert counts["tries"] > 0 or procs == 1  # (the runs test something)
