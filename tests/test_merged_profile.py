"""``MergedProfile`` (nodes alike throughout share one column) answers exactly as
``Profile`` (one column per node): every start, interval and node set, and every free
amount per node after every operation.

Hypothesis draws clusters of a few node types repeated (so that many nodes share a
column), running jobs over runs of nodes, and sequences of every operation the policies
use: reservations of all or some of a column's nodes (positive, given back, zero, per-node
usage that differs), searches (``earliest``, ``fits``, with masks, ``--exclusive``, memory
per CPU, ``--nodes=MIN-MAX``), advances, copies and compression (``replan``).
"""

from __future__ import annotations

import math
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_engine_properties import scenarios
from test_engine_resume import history, same
from test_profile_speed_equivalence import (
    SETTINGS,
    compress,
    out_search_in,
    per_cpu,
    place_jobs,
    spans_st,
    times_st,
)

from slurmlab import Cluster, RandomFailures, Scenario, simulate
from slurmlab.policies import profile as profile_module
from slurmlab.policies.placement import Request
from slurmlab.policies.profile import MergedProfile, Profile, make_profile
from slurmlab.spec.synthetic import ai_workload

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore")
# 240 GPU nodes and 60 CPU nodes: above MERGE_FROM
LARGE = "\n".join([
    "ClusterName=large",
    "GresTypes=gpu",
    "NodeName=g[001-240] CPUs=64 RealMemory=512000 Gres=gpu:h100:8",
    "NodeName=c[01-60] CPUs=32 RealMemory=128000",
    "PartitionName=train Nodes=g[001-240] Default=YES MaxTime=2-0",
    "PartitionName=cpu Nodes=c[01-60] MaxTime=1-0",
])  # fmt: skip


@st.composite
def alike_clusters(draw):
    """Capacity (nodes x 3) of 2-24 nodes of one to three types, in runs."""
    types = draw(
        st.lists(
            st.tuples(st.integers(1, 8), st.integers(1, 16), st.sampled_from([0, 2, 4])),
            min_size=1,
            max_size=3,
        )
    )
    runs = draw(st.lists(st.tuples(st.integers(0, len(types) - 1), st.integers(1, 8)), min_size=1))
    rows = [types[k] for k, n in runs for _ in range(n)][:24]
    if len(rows) < 2:
        rows = rows * 2
    return np.array(rows, dtype=np.int64)


def node_run(draw, n):
    """A set of nodes: often a run of neighbours (as best fit takes them), else any."""
    if draw(st.booleans()):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a, min(n - 1, a + 6)))
        return tuple(range(a, b + 1))
    return tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))))


def usage_on(draw, capacity, nodes, sign=1):
    """Per-node usage on ``nodes``: mostly the same on each (a job's demand), sometimes
    whole nodes or different rows."""
    cap = capacity[list(nodes)]
    kind = draw(st.sampled_from(["same", "same", "whole", "rows", "zero"]))
    if kind == "zero":
        return np.zeros_like(cap)
    if kind == "whole":
        return sign * cap.copy()
    if kind == "same":
        row = [draw(st.integers(0, int(c))) for c in cap.min(axis=0)]
        return sign * np.broadcast_to(np.array(row, dtype=np.int64), cap.shape)
    return sign * np.array(
        [[draw(st.integers(0, int(c))) for c in r] for r in cap.tolist()], dtype=np.int64
    ).reshape(cap.shape)


def start_state(draw, capacity):
    """(now, free, releases): running jobs within capacity, over runs of nodes."""
    now = draw(times_st)
    left = capacity.copy()
    releases = []
    for _ in range(draw(st.integers(0, 8))):
        nodes = node_run(draw, len(capacity))
        use = np.minimum(usage_on(draw, capacity, nodes), left[list(nodes)])
        left[list(nodes)] -= use
        releases.append((draw(spans_st), nodes, use))
    return now, left, releases


def drawn_job(draw, capacity):
    """(request, mask, duration) of a random job."""
    n = len(capacity)
    top = capacity.max(axis=0).tolist()
    demand = np.array([draw(st.integers(min(1, c), c)) for c in top], dtype=np.int64)
    count = draw(st.integers(1, min(n, 6)))
    mask = np.ones(n, dtype=bool)
    if draw(st.booleans()):
        mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    kw = {"exclusive": draw(st.booleans())}
    if draw(st.booleans()):
        kw["mem_per_cpu"] = per_cpu(draw, demand)
    if draw(st.booleans()):
        kw["most"] = draw(st.integers(count, n + 1))
    return Request(demand, count, **kw), mask, draw(spans_st)


def per_node(prof):
    """(times, free per node, now, valid) of either profile."""
    free = prof.per_node()
    if isinstance(prof, MergedProfile):
        assert np.array_equal(prof.gcap[prof.group_of], prof.capacity)  # columns are alike
        assert np.bincount(prof.group_of, minlength=len(prof.sizes)).tolist() == prof.sizes
    return repr(prof.times), free.tolist(), prof.now, prof.valid()


def both(capacity, now, free, releases, weights=None):
    return [
        Profile(now, free.copy(), capacity, releases, weights),
        MergedProfile(now, free.copy(), capacity, releases, weights),
    ]


@given(st.data())
@SETTINGS
def test_merged_profile_answers_as_profile(data):
    draw = data.draw
    capacity = draw(alike_clusters())
    n = len(capacity)
    weights = None
    if draw(st.booleans()):  # node Weights in runs (best fit then weighs runs)
        weights = np.array([draw(st.integers(1, 2)) for _ in range(n)], dtype=np.int64)
    now, free, releases = start_state(draw, capacity)
    profs = both(capacity, now, free, releases, weights)
    assert per_node(profs[1]) == per_node(profs[0])
    tries = draw(st.sampled_from([0, 1, profile_module._TRIES]))
    with mock.patch.object(profile_module, "_TRIES", tries):
        for _ in range(draw(st.integers(1, 20))):
            ref = profs[0]
            kind = draw(st.sampled_from(["earliest", "earliest", "fits", "reserve", "advance"]))
            if kind == "copy" or draw(st.integers(0, 9)) == 0:  # work on copies from here
                profs = [p.copy() for p in profs]
            if kind == "reserve":
                nodes = node_run(draw, n)
                usage = usage_on(draw, capacity, nodes, sign=draw(st.sampled_from([1, -1])))
                start = max(draw(times_st), ref.now)
                at = None
                if draw(st.booleans()):
                    at = draw(st.integers(0, len(ref.times) - 1))
                    start = ref.times[at] if not math.isinf(ref.times[at]) else start
                args, kw = (nodes, usage, start, start + draw(spans_st)), {"at": at}
            elif kind == "advance":
                t = ref.times[draw(st.integers(0, len(ref.times) - 1))]
                t = ref.times[0] if math.isinf(t) else t
                args, kw = (max(t, ref.now) + draw(st.sampled_from([0, 0, 0.25])),), {}
            else:
                args, kw = drawn_job(draw, capacity), {}
                if kind == "fits":
                    kw["at"] = draw(st.integers(0, len(ref.times) - 1))
                elif draw(st.booleans()):
                    kw["not_before"] = draw(times_st)
            found, other = (getattr(p, kind)(*args, **kw) for p in profs)
            assert repr(other) == repr(found), (kind, args, kw)
            assert per_node(profs[1]) == per_node(profs[0]), (kind, args, kw)
            if kind == "earliest" and found is not None and draw(st.booleans()):
                i, t, nodes = found  # reserve the slot found, as the policies do
                usage = np.broadcast_to(args[0].demand, (len(nodes), 3))
                if args[0].exclusive:
                    usage = capacity[list(nodes)]
                for p in profs:
                    p.reserve(nodes, usage, t, t + args[2], at=i)
                assert per_node(profs[1]) == per_node(profs[0])


@given(st.data())
@SETTINGS
def test_merged_replan_matches_profile(data):
    """Compression as conservative runs it: jobs placed at their earliest fit one after
    another, a running job ending early, then every standing reservation taken out and put
    back at its earliest fit (``replan``), move by move, against Profile and against the
    definition (out, search, in)."""
    draw = data.draw
    capacity = draw(alike_clusters())
    now, free, releases = start_state(draw, capacity)
    profs = both(capacity, now, free, releases) + both(capacity, now, free, releases)[1:]

    def job_drawn():
        request, mask, duration = drawn_job(draw, capacity)
        return request.demand, request.count, mask, duration, request.exclusive

    standing = place_jobs(draw, profs, capacity, now, releases, job_drawn, most=10)

    def check(got, call, exclusive):
        request = Request(call[0], call[1], exclusive)
        assert repr(profs[1].replan(request, *call[2:])) == repr(got)
        assert repr(out_search_in(profs[2], *call, exclusive)) == repr(got)
        for p in profs[1:]:
            assert per_node(p) == per_node(profs[0])

    compress(profs[0], standing, capacity, check)


def test_alike_nodes_share_a_column_until_they_differ():
    """Eight idle nodes and a 2-node running job: two columns; a reservation on three of
    the idle nodes gives them one of their own; a copy keeps its own columns."""
    capacity = np.array([[4, 8, 2]] * 10, dtype=np.int64)
    free = capacity.copy()
    free[[2, 3]] = 0
    prof = MergedProfile(0.0, free, capacity, [(50.0, (2, 3), capacity[[2, 3]])])
    assert prof.free.shape == (2, 2, 3)
    assert prof.group_of.tolist() == [0, 0, 1, 1, 0, 0, 0, 0, 0, 0]
    twin = prof.copy()
    prof.reserve((5, 6, 7), np.broadcast_to(np.array([4, 8, 2]), (3, 3)), 10.0, 30.0)
    assert prof.group_of.tolist() == [0, 0, 1, 1, 0, 2, 2, 2, 0, 0]
    assert prof.sizes == [5, 2, 3]
    assert twin.group_of.tolist() == [0, 0, 1, 1, 0, 0, 0, 0, 0, 0]
    assert twin.free.shape == (2, 2, 3)
    # nine whole nodes: at 50, when the running job has ended (times 0, 10, 30, 50)
    whole, every = np.array([4, 8, 2]), np.ones(10, dtype=bool)
    assert prof.earliest(Request(whole, 9), every, 40.0) == (3, 50.0, tuple(range(9)))
    plain = Profile(0.0, free, capacity, [(50.0, (2, 3), capacity[[2, 3]])])
    plain.reserve((5, 6, 7), np.broadcast_to(whole, (3, 3)), 10.0, 30.0)
    for count in range(1, 11):
        request = Request(whole, count)
        assert prof.earliest(request, every, 40.0) == plain.earliest(request, every, 40.0)


def test_make_profile_merges_large_clusters_only():
    small = np.array([[4, 8, 0]] * 8, dtype=np.int64)
    large = np.array([[4, 8, 0]] * 256, dtype=np.int64)
    assert type(make_profile(0.0, small.copy(), small)) is Profile
    assert type(make_profile(0.0, large.copy(), large)) is MergedProfile


# -- whole simulations: every policy decides the same with nodes merged or not ------------
def merged_and_plain(run):
    """``run()``'s history with every multi-node profile merged, and with none."""
    saved = profile_module.MERGE_FROM
    try:  # (not monkeypatch: hypothesis runs many examples per test call)
        profile_module.MERGE_FROM = 2
        merged = history(run())
        profile_module.MERGE_FROM = 10**9
        plain = history(run())
    finally:
        profile_module.MERGE_FROM = saved
    return merged, plain


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
@pytest.mark.parametrize(("preset", "seed", "load"), [
    ("ai", 1, 0.9), ("ai", 2, 1.5), ("teaching", 3, 1.2), ("tiny", 4, 1.5),
])  # fmt: skip
def test_presets_decide_the_same_merged(policy, preset, seed, load):
    cluster = Cluster.preset(preset)
    workload = ai_workload(300, cluster, seed=seed, load=load)
    assert same(*merged_and_plain(lambda: simulate(cluster, workload, policy)))


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
@pytest.mark.parametrize(
    "name", ["reservation", "maintenance", "node-failure", "preemption", "arrays", "update"]
)
def test_real_slurm_scenarios_decide_the_same_merged(policy, name):
    scenario = Scenario.load(ROOT / "datasets/realslurm/scenarios" / f"{name}.yaml")
    assert same(*merged_and_plain(lambda: scenario.run(policy=policy)))


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
@SETTINGS
@given(case=scenarios())
def test_random_workloads_decide_the_same_merged(policy, case):
    """Random clusters and workloads, with arrays, --begin, dependencies, zero-length jobs."""
    cluster, workload = case
    assert same(*merged_and_plain(lambda: simulate(cluster, workload, policy)))


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_a_large_cluster_under_a_deep_queue_decides_the_same(policy):
    """300 nodes (merged by default) under a deep queue, with random node failures."""
    cluster = Cluster.from_slurm_conf(LARGE)
    workload = ai_workload(250, cluster, seed=3, load=1.5)
    failures = RandomFailures(mtbf="5d", repair="2h", seed=1)
    run = lambda: simulate(cluster, workload, policy, random_failures=failures)  # noqa: E731
    assert same(*merged_and_plain(run))


def test_usage_given_as_one_row_counts_on_every_node():
    """``reserve(nodes, row)``: numpy broadcasts one row over the nodes in Profile; so does
    MergedProfile, on one node, on a whole column and on part of one."""
    capacity = np.array([[4, 8, 2]] * 6, dtype=np.int64)
    free = capacity.copy()
    free[3:] = [2, 4, 1]  # two columns: nodes 0-2 and 3-5
    for nodes in [(0,), (0, 1, 2), (1, 2), (2, 3), (0, 1, 2, 3, 4, 5)]:
        for row in (np.array([1, 2, 1]), np.array([[1, 2, 1]])):
            profs = both(capacity, 0.0, free, [])
            for p in profs:
                p.reserve(nodes, row, 5.0, 10.0)
            assert per_node(profs[1]) == per_node(profs[0])
