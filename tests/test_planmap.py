"""A backfill cycle's profile split into a base and whole-node plan holds
(:class:`~slurmlab.policies.planmap.PlanProfile`) answers as the one :class:`Profile` holding
both does: the same breakpoints, the same earliest fit (interval, start, nodes) and the same
nodes from an interval, after any mix of whole-node holds, partial reservations from now (a
cycle's starts) or later (advance reservations), room given back and taken again (advance
reservations lifted for a job), and advancing to a later now; where the split cannot answer (a request asking nothing, a
base holding more than a node's capacity, a start of no length) it answers from the whole
profile, the same still."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_merged_profile import alike_clusters, node_run, start_state, usage_on
from test_profile_speed_equivalence import SETTINGS, spans_st, times_st

from slurmlab.policies.placement import Request
from slurmlab.policies.planmap import PlanProfile
from slurmlab.policies.profile import Profile


def drawn_request(draw, capacity) -> Request:
    """Any request a slurm cycle may search for (no spread): exclusive, -N MIN-MAX, memory
    per CPU, GPUs of fixed tasks per node or per job, whole memory; rarely one asking
    nothing."""
    n = len(capacity)
    top = capacity.max(axis=0).tolist()
    demand = np.array([draw(st.integers(min(1, c), c)) for c in top], dtype=np.int64)
    if draw(st.integers(0, 15)) == 0:
        demand = np.zeros(3, dtype=np.int64)
    count = draw(st.sampled_from([1, 1, 2]) | st.integers(1, min(n, 6)))
    kw: dict = {}
    kind = draw(st.sampled_from(["plain", "exclusive", "fixed", "per_job", "memory"]))
    if kind == "exclusive":
        kw["exclusive"] = True
    elif kind == "fixed":
        kw["gres_fixed"] = True
    elif kind == "per_job" and top[2]:
        demand[2] = 0
        kw["gpus_per_job"] = draw(st.integers(1, 2 * top[2] * count))
    elif kind == "memory":
        kw["whole_memory"] = True
    if draw(st.booleans()) and demand[0]:
        kw["mem_per_cpu"] = max(1, int(demand[1]) // int(demand[0]))
    if draw(st.booleans()):
        kw["most"] = draw(st.integers(count, n + 1))
    return Request(demand, count, **kw)


def drawn_cluster(draw, most: int) -> tuple[np.ndarray, np.ndarray | None]:
    """A cluster of 2 to ``most`` nodes of a few alike kinds (capacity rows), and maybe
    node Weights from 1 to 3."""
    n = draw(st.integers(2, most))
    capacity = np.resize(draw(alike_clusters()), (n, 3))
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    return capacity, weights


def drawn_mask(draw, n) -> np.ndarray:
    if draw(st.booleans()):
        return np.ones(n, dtype=bool)
    return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))


def same(split: PlanProfile, ref: Profile) -> None:
    assert split.times == ref.times
    whole = split.whole()
    assert whole.times == ref.times
    assert np.array_equal(whole.free, ref.free)


@given(st.data())
@SETTINGS
def test_split_profile_answers_as_the_whole_one(data):
    """Holds (rarely of no length), starts (from now or a later breakpoint), lifted windows
    and advances leave the split profile with the whole profile's breakpoints and free
    amounts (a plan's nodes held whole, overlapping holds counted each), and every earliest
    fit and every fit from an interval is the whole profile's, with node Weights or without,
    on up to 80 nodes."""
    draw = data.draw
    capacity, weights = drawn_cluster(draw, 80)
    n = len(capacity)
    now, free, releases = start_state(draw, capacity)
    ref = Profile(now, free, capacity, releases, weights)
    split = PlanProfile(Profile(now, free, capacity, releases, weights))
    taken: list = []  # partial reservations made, which a move may give back
    for _ in range(draw(st.integers(1, 14))):
        moves = ["hold", "hold", "start", "window", "lift", "advance", "ask", "ask", "later"]
        move = draw(st.sampled_from(moves))
        now = ref.times[0]
        if move == "hold":
            nodes = node_run(draw, n)
            start = max(draw(st.sampled_from(ref.times) | times_st), now)
            if math.isinf(start):
                start = now
            end = math.inf if draw(st.integers(0, 4)) == 0 else start + 0.25 + draw(times_st)
            if draw(st.integers(0, 15)) == 0:
                end = start  # (no length: the interval it starts in)
            ref.reserve(nodes, capacity[list(nodes)], start, end)
            split.hold(nodes, start, end)
        elif move == "start":
            nodes = node_run(draw, n)
            usage = usage_on(draw, capacity, nodes)
            length = draw(spans_st)
            at = 0 if draw(st.booleans()) else None
            ref.reserve(nodes, usage, now, now + length, at=at)
            split.reserve(nodes, usage, now, now + length, at=at)
            if length > 0:
                taken.append((nodes, usage, now, now + length))
        elif move == "window":  # an advance reservation the base holds (hold_windows)
            nodes = node_run(draw, n)
            usage = usage_on(draw, capacity, nodes)
            start = now + draw(times_st)
            end = start + 0.25 + draw(times_st)
            ref.reserve(nodes, usage, start, end)
            split.reserve(nodes, usage, start, end)
            taken.append((nodes, usage, start, end))
        elif move == "lift" and taken:
            # a window given back for one job and taken again (or, rarely, given back
            # twice: more free than the capacity, where the split cannot answer)
            nodes, usage, a, b = taken[draw(st.integers(0, len(taken) - 1))]
            a = max(a, now)
            if b > a:
                ref.reserve(nodes, -usage, a, b)
                split.reserve(nodes, -usage, a, b)
                request = drawn_request(draw, capacity)
                mask, duration = drawn_mask(draw, n), draw(spans_st)
                got = split.earliest(request, mask, duration)
                assert repr(got) == repr(ref.earliest(request, mask, duration))
                if draw(st.integers(0, 5)):
                    ref.reserve(nodes, usage, a, b)
                    split.reserve(nodes, usage, a, b)
        elif move == "later":  # a reservation from a later breakpoint, named by `at`
            at = draw(st.integers(0, len(ref.times) - 1))
            t = ref.times[at]
            nodes = node_run(draw, n)
            usage = usage_on(draw, capacity, nodes)
            length = draw(spans_st)
            ref.reserve(nodes, usage, t, t + length, at=at)
            split.reserve(nodes, usage, t, t + length, at=at)
        elif move == "advance":
            later = now + draw(times_st)
            ref.advance(later)
            split.advance(later)
        else:
            for _ in range(3):
                request = drawn_request(draw, capacity)
                mask, duration = drawn_mask(draw, n), draw(spans_st)
                got = split.earliest(request, mask, duration)
                assert repr(got) == repr(ref.earliest(request, mask, duration))
                at = draw(st.integers(0, len(ref.times) - 1))
                got = split.fits(request, mask, duration, at=at)
                assert repr(got) == repr(ref.fits(request, mask, duration, at=at))
        same(split, ref)


def test_a_hold_of_no_room_left_is_told_apart():
    """Two plans holding one node in one interval leave it short twice its capacity in the
    whole profile (as the cycle's Profile held them), and a job that fits the base there
    does not fit while either holds it."""
    capacity = np.array([[4, 8, 0]] * 3)
    split = PlanProfile(Profile(0.0, capacity.copy(), capacity))
    split.hold((0, 1), 10.0, 20.0)
    split.hold((1,), 15.0, 30.0)
    whole = split.whole()
    assert whole.times == [0.0, 10.0, 15.0, 20.0, 30.0]
    assert whole.free[2, 1].tolist() == [-4, -8, 0]  # node 1 from 15 to 20: held twice
    request = Request(np.array([1, 1, 0]), 3)
    assert split.earliest(request, np.ones(3, dtype=bool), 10.0) == (0, 0.0, (0, 1, 2))
    assert split.earliest(request, np.ones(3, dtype=bool), 11.0) == (4, 30.0, (0, 1, 2))


def test_where_a_held_node_could_still_fit_the_whole_profile_answers():
    """A request asking nothing fits a node a plan holds that is otherwise idle, and so
    does any request on a node the base gives more than its capacity (room given back
    twice): there the split answers from the whole profile, as the Profile does."""
    capacity = np.array([[4, 8, 0]] * 2)
    mask = np.ones(2, dtype=bool)
    for free, request in (
        (capacity.copy(), Request(np.zeros(3, dtype=np.int64), 2)),
        (3 * capacity, Request(np.array([4, 8, 0]), 2)),
    ):
        split = PlanProfile(Profile(0.0, free.copy(), capacity))
        ref = Profile(0.0, free.copy(), capacity)
        split.hold((0, 1), 0.0, 20.0)
        ref.reserve((0, 1), capacity, 0.0, 20.0)
        assert split.earliest(request, mask, 5.0) == ref.earliest(request, mask, 5.0)
        assert split.earliest(request, mask, 5.0)[1] == 0.0  # (held, and it fits there)
        assert split.fits(request, mask, 5.0) == ref.fits(request, mask, 5.0) == (0, 1)
    split = PlanProfile(Profile(0.0, capacity.copy(), capacity))
    split.reserve((0,), np.array([[4, 8, 0]]), 0.0, 10.0)
    split.reserve((0,), -2 * np.array([[4, 8, 0]]), 0.0, 10.0)  # (given back twice)
    assert not split.capped


@pytest.mark.parametrize("later", [None, 0.0, 5.0])
def test_a_hold_of_no_length_at_now_holds_the_interval_it_starts_in(later):
    """A hold of no length holds the interval it starts in, as :meth:`Profile.reserve`
    does: one at the profile's now too, and after an advance within that interval (its
    rest, from the new now)."""
    capacity = np.array([[4, 8, 0]] * 3)
    split = PlanProfile(Profile(0.0, capacity.copy(), capacity))
    ref = Profile(0.0, capacity.copy(), capacity)
    for prof in (split, ref):
        prof.reserve((2,), np.array([[1, 1, 0]]), 10.0, 20.0)  # (a breakpoint at 10)
    split.hold((0, 1), 0.0, 0.0)
    ref.reserve((0, 1), capacity[[0, 1]], 0.0, 0.0)
    split.hold((1,), 10.0, 10.0)
    ref.reserve((1,), capacity[[1]], 10.0, 10.0)
    if later is not None:
        split.advance(later)
        ref.advance(later)
    same(split, ref)
    request, mask = Request(np.array([1, 1, 0]), 2), np.ones(3, dtype=bool)
    for duration in (0.0, 5.0):
        assert split.earliest(request, mask, duration) == ref.earliest(request, mask, duration)
        assert split.fits(request, mask, duration) == ref.fits(request, mask, duration)


@given(st.data())
@SETTINGS
def test_earliest_over_many_plans_skips_no_start_that_fits(data):
    """Many short plans on a few nodes make a profile of many intervals, most with too few
    nodes free for a job: the split's earliest (which passes over every start whose window
    holds an interval of too few nodes on its own) and its fit from any interval, the last
    one too, are the whole profile's, for windows of no length, shorter than an interval,
    across many, or without end; with a mask, node Weights, and requests best fit places
    reading free amounts or not."""
    draw = data.draw
    capacity, weights = drawn_cluster(draw, 10)
    n = len(capacity)
    split = PlanProfile(Profile(0.0, capacity.copy(), capacity, [], weights))
    for _ in range(draw(st.integers(4, 30))):
        nodes = node_run(draw, n)
        start = draw(st.integers(0, 60)) / 2
        end = math.inf if draw(st.integers(0, 15)) == 0 else start + draw(st.integers(1, 8)) / 2
        split.hold(nodes, start, end)
    whole = split.whole()
    last = len(whole.times) - 1
    for _ in range(6):
        request = drawn_request(draw, capacity)
        if draw(st.booleans()):  # (best fit reads no free amounts: the kept picks)
            request = Request(request.demand, request.count, gres_fixed=True, most=request.most)
        mask = drawn_mask(draw, n)
        duration = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.5, 7.0, 30.0, math.inf]))
        got = split.earliest(request, mask, duration)
        assert repr(got) == repr(whole.earliest(request, mask, duration))
        for at in {draw(st.integers(0, last)), last}:
            got = split.fits(request, mask, duration, at=at)
            assert repr(got) == repr(whole.fits(request, mask, duration, at=at))
