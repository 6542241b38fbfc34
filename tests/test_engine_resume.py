"""Shortcuts of the scheduling pass decide exactly what a full pass would.

After arrivals only, policies continue their previous pass with the new jobs instead of
scanning the whole queue again (QueueView.resume), and EASY stops scanning once nothing
more can start (Decision.rest). These tests run the same workloads with continuation
switched off and compare every job's start, end, nodes, and its whole history of pending
reasons and planned starts; the reference tests compare the early stop with a full scan.
"""

from __future__ import annotations

import pytest

from slurmlab import Cluster, simulate
from slurmlab.records.swf import swf_cluster
from slurmlab.sim.controller import Controller
from slurmlab.spec.synthetic import ai_workload, pool_workload

COLUMNS = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason"]


def history(result):
    """Every job's table row plus its whole history of pending reasons and planned starts."""
    table = result.jobs[COLUMNS]
    return table, [(j.id, j.reasons, j.plans) for j in result.sim.jobs.values()]


def both(cluster, workload, policy, monkeypatch):
    fast = history(simulate(cluster, workload, policy))
    with monkeypatch.context() as m:
        m.setattr(Controller, "_can_resume", lambda self: False)
        full = history(simulate(cluster, workload, policy))
    return fast, full


def same(fast, full) -> bool:
    return fast[0].equals(full[0]) and fast[1] == full[1]


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize(("preset", "seed"), [("ai", 1), ("ai", 7), ("teaching", 3)])
def test_continued_passes_equal_full_passes_on_gpu_clusters(preset, seed, policy, monkeypatch):
    cluster = Cluster.preset(preset)
    fast, full = both(cluster, ai_workload(400, cluster, seed=seed), policy, monkeypatch)
    assert same(fast, full)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_continued_passes_equal_full_passes_on_a_processor_pool(policy, monkeypatch):
    fast, full = both(swf_cluster(64), pool_workload(1500, 64, seed=2), policy, monkeypatch)
    assert same(fast, full)


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


@pytest.mark.parametrize(("cluster", "workload"), [
    (swf_cluster(64), pool_workload(1500, 64, seed=2)),
    (Cluster.preset("ai"), ai_workload(400, Cluster.preset("ai"), seed=7)),
])  # fmt: skip
def test_easy_stopping_early_equals_a_full_scan(cluster, workload, monkeypatch):
    """EASY stops scanning when nothing more can start (no queued job needs fewer CPUs than
    any node has free); the jobs it does not reach get what a full scan would give them."""
    fast = history(simulate(cluster, workload, "easy"))
    with monkeypatch.context() as m:
        m.setattr(Controller, "_smallest_cpus", lambda self: 0)  # never stop early
        full = history(simulate(cluster, workload, "easy"))
    assert same(fast, full)
