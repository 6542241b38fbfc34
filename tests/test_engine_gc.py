"""The engine pauses the cyclic garbage collector while it simulates: that is safe only while
a simulation makes no cyclic garbage per job (it would pile up until the run ends)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

import slurmlab
from slurmlab.records.swf import swf_cluster
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.synthetic import ai_workload, pool_workload

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def collector_off():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def garbage_of(run) -> int:
    """The cyclic garbage a run leaves (unreachable objects only the collector can free)."""
    gc.collect()
    run()
    return gc.collect()


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_run_makes_no_cyclic_garbage_per_job(collector_off, policy):
    small = garbage_of(
        lambda: slurmlab.simulate(
            swf_cluster(64), pool_workload(300, 64, seed=1), policy, progress=False
        )
    )
    large = garbage_of(
        lambda: slurmlab.simulate(
            swf_cluster(64), pool_workload(1200, 64, seed=1), policy, progress=False
        )
    )
    assert large <= small + 20, (small, large)  # a constant, not a cost per job
    ai = Cluster.preset("ai")
    few = garbage_of(
        lambda: slurmlab.simulate(ai, ai_workload(100, "ai", seed=2), policy, progress=False)
    )
    many = garbage_of(
        lambda: slurmlab.simulate(ai, ai_workload(400, "ai", seed=2), policy, progress=False)
    )
    assert many <= few + 20, (few, many)


def test_failures_and_preemption_make_no_cyclic_garbage_per_job(collector_off):
    """Requeues, failures and preemption (interruptions of running jobs) included."""
    for name in ("failures", "preemption", "accounts-qos"):
        path = ROOT / "datasets/realslurm/scenarios" / f"{name}.yaml"
        scenario = slurmlab.Scenario.load(path)
        once = garbage_of(lambda s=scenario: s.run().jobs)
        assert once < 500, (name, once)  # a few dozen objects per run, whatever its size


def test_the_collector_is_restored_after_a_run():
    sim_args = (swf_cluster(8), pool_workload(20, 8, seed=0))
    assert gc.isenabled()
    slurmlab.simulate(*sim_args, "easy", progress=False)
    assert gc.isenabled()
    gc.disable()
    try:
        slurmlab.simulate(*sim_args, "easy", progress=False)
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


def test_a_run_hands_its_objects_to_the_oldest_generation():
    """A run's objects (its job records) go to the oldest generation as they stand, so no
    young collection right after the run scans them all only to promote them. Objects the
    caller froze stay frozen."""
    sim_args = (swf_cluster(16), pool_workload(400, 16, seed=0))
    collections: list[int] = []

    def spy(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(spy)
    try:
        result = slurmlab.simulate(*sim_args, "easy", progress=False)
        oldest = {id(o) for o in gc.get_objects(generation=2)}
    finally:
        gc.callbacks.remove(spy)
    assert collections == []  # (the run's objects would make the next one due at once)
    assert all(id(job) in oldest for job in result.sim.jobs.values())
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        slurmlab.simulate(*sim_args, "easy", progress=False)
        assert gc.get_freeze_count() >= frozen  # (none of the caller's unfrozen)
        assert gc.isenabled()
    finally:
        gc.unfreeze()
