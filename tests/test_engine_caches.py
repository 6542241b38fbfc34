"""The engine's caches (resolved requests kept per cluster across simulations) never change
an answer: re-simulations equal first runs, clusters do not share resolutions, and a new
spec never picks up an old spec's resolution."""

from __future__ import annotations

import gc

from slurmlab import Cluster, simulate
from slurmlab.sim.engine import Simulation, _resolutions
from slurmlab.spec.job import JobSpec
from slurmlab.spec.synthetic import ai_workload
from slurmlab.spec.workload import WorkloadJob


def test_a_re_simulation_equals_the_first_run():
    cluster = Cluster.preset("ai")
    workload = ai_workload(300, cluster, seed=4)
    first = simulate(cluster, workload, "easy").jobs
    again = simulate(cluster, workload, "easy").jobs
    assert first.equals(again)
    assert len(_resolutions(cluster)[1]) > 0  # the second run found the requests resolved


def test_clusters_do_not_share_resolutions():
    spec = JobSpec.from_args("-N 2 -t 10")
    small, big = Cluster.preset("tiny"), Cluster.preset("teaching")
    assert _resolutions(small)[0] is not _resolutions(big)[0]
    for cluster in (small, big):
        sim = Simulation(cluster, "fifo")
        (jid,) = sim.submit(WorkloadJob(spec, runtime=5))
        assert sim.jobs[jid].res == spec.resources(cluster)


def test_a_new_spec_never_gets_an_old_specs_resolution():
    """Specs are cached by identity too; the cache keeps each spec alive, so a later spec
    can never reuse a cached spec's id (as it could after garbage collection)."""
    cluster = Cluster.preset("teaching")
    for n in range(1, 4):
        spec = JobSpec.from_args(f"-N {n} -t 10")
        sim = Simulation(cluster, "fifo")
        (jid,) = sim.submit(WorkloadJob(spec, runtime=5))
        assert sim.jobs[jid].count == n
        del spec, sim
        gc.collect()


def test_a_pending_view_with_its_plan_equals_dataclasses_replace():
    """The controller builds it field by field (speed); it must stay what replace() gives."""
    from dataclasses import replace

    from slurmlab.sim.controller import Controller

    cluster = Cluster.preset("teaching")
    sim = Simulation(cluster, "conservative")
    (jid,) = sim.submit(WorkloadJob(JobSpec.from_args("-N 1 -t 10"), runtime=5))
    job = sim.jobs[jid]
    pending = sim._pending_of(job)
    job.planned, job.planned_nodes = 100.0, (0,)
    assert Controller._with_plan(job, pending) == replace(pending, planned=(100.0, (0,)))
