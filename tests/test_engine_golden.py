"""The engine's decisions, pinned: every job's start, end, nodes, state, who started it,
and its whole history of pending reasons and planned starts, for a few workloads under all
four policies, as SHA-256 digests.

Speed work must not change a single decision. These digests were produced by the engine
before its speed-ups (and equal the current engine's). A deliberate change of behaviour
regenerates them: ``SLURMLAB_REGEN_GOLDEN=1 pytest tests/test_engine_golden.py``; say
why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from slurmlab import Cluster, simulate
from slurmlab.records.swf import swf_cluster
from slurmlab.spec.synthetic import ai_workload, pool_workload

GOLDEN = Path(__file__).parent / "golden" / "engine_histories.json"
POLICIES = ("fifo", "easy", "conservative", "slurm")


def cases():
    ai, teaching = Cluster.preset("ai"), Cluster.preset("teaching")
    return {
        "ai-400-1": (ai, ai_workload(400, ai, seed=1)),
        "teaching-300-3": (teaching, ai_workload(300, teaching, seed=3)),
        "pool64-1000-2": (swf_cluster(64), pool_workload(1000, 64, seed=2)),
    }


def digest(result) -> str:
    rows = [
        (j.id, j.start, j.end, j.nodes, j.state, j.by, j.reasons, j.plans)
        for j in result.sim.jobs.values()
    ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def current() -> dict[str, str]:
    out = {
        f"{name}/{policy}": digest(simulate(cluster, workload, policy))
        for name, (cluster, workload) in cases().items()
        for policy in POLICIES
    }
    # a one-hour backfill window: many jobs planned beyond it (no reservation)
    for name in ("ai-400-1", "pool64-1000-2"):
        cluster, workload = cases()[name]
        result = simulate(cluster, workload, "slurm", bf_window=60)
        out[f"{name}/slurm-bf_window=60"] = digest(result)
    return out


def test_engine_decisions_equal_the_pinned_ones():
    now = current()
    if os.environ.get("SLURMLAB_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("regenerated the golden digests")
    pinned = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = sorted(k for k in pinned if pinned[k] != now.get(k))
    assert not changed, f"decisions changed for {changed}: see this module's docstring"
