"""A continued pass (QueueView.resume) decides exactly what a full pass would.

After arrivals only, policies continue their previous pass with the new jobs instead of
scanning the whole queue again (a speed-up). These tests run the same workloads with
continuation switched off and compare every job's start, end, nodes and reasons.
"""

from __future__ import annotations

import pytest

from slurmlab import Cluster, simulate
from slurmlab.records.swf import swf_cluster
from slurmlab.sim.controller import Controller
from slurmlab.spec.synthetic import ai_workload, pool_workload

COLUMNS = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason"]


def both(cluster, workload, policy, monkeypatch):
    fast = simulate(cluster, workload, policy).jobs[COLUMNS]
    with monkeypatch.context() as m:
        m.setattr(Controller, "_can_resume", lambda self: False)
        full = simulate(cluster, workload, policy).jobs[COLUMNS]
    return fast, full


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize(("preset", "seed"), [("ai", 1), ("ai", 7), ("teaching", 3)])
def test_continued_passes_equal_full_passes_on_gpu_clusters(preset, seed, policy, monkeypatch):
    cluster = Cluster.preset(preset)
    fast, full = both(cluster, ai_workload(400, cluster, seed=seed), policy, monkeypatch)
    assert fast.equals(full)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_continued_passes_equal_full_passes_on_a_processor_pool(policy, monkeypatch):
    fast, full = both(swf_cluster(64), pool_workload(1500, 64, seed=2), policy, monkeypatch)
    assert fast.equals(full)


def test_continuation_is_used(monkeypatch):
    """Guard against the speed-up silently switching itself off."""
    calls = []
    original = Controller._can_resume

    def spy(self):
        calls.append(original(self))
        return calls[-1]

    monkeypatch.setattr(Controller, "_can_resume", spy)
    cluster = Cluster.preset("ai")
    simulate(cluster, ai_workload(300, cluster, seed=1), "easy")
    assert any(calls) and not all(calls)
