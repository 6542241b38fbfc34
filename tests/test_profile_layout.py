"""The profile's resource-first layout and its shortcuts answer as the plain paths do.

``Profile._span`` makes a reservation's two breakpoints in one new ``free`` array where
the module's ``_span`` splits twice; ``_first_fit`` refuses a start whose window holds an
interval with too few fitting nodes before testing the window (``rows``); ``replan``
of a ``-N k --gpus=M`` job leaves the profile holding what its answer says the job holds.
Each is compared here, on random profiles of both kinds (:class:`Profile` and
:class:`MergedProfile`), with the path it stands for.
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_merged_profile import alike_clusters, both, per_node, start_state
from test_profile_speed_equivalence import SETTINGS, spans_st, times_st

from slurmlab.policies import profile as profile_module
from slurmlab.policies.placement import Request, best_fit
from slurmlab.policies.profile import MergedProfile, Profile


def planes_contiguous(prof) -> bool:
    return all(prof.free[..., k].flags.c_contiguous for k in range(3))


def drawn_span(draw, prof):
    """(start, end, at) of a reservation on ``prof``: starts and ends at breakpoints or
    between them (the first breakpoint may repeat: a running job overdue), ends after the
    start, at it, forever, or (rarely) before it; ``at`` an interval starting at ``start``
    or any other."""
    times = prof.times
    finite = [t for t in times if not math.isinf(t)]
    start = max(draw(st.sampled_from(finite) | times_st), times[0])
    end = draw(st.sampled_from(["span", "span", "breakpoint", "same", "inf", "before"]))
    if end == "span":
        end = start + draw(spans_st)
    elif end == "breakpoint":
        end = draw(st.sampled_from(times))
    elif end == "same":
        end = start
    elif end == "inf":
        end = math.inf
    else:
        end = start - draw(st.sampled_from([0.25, 1.0]))
    at = draw(st.none() | st.integers(0, len(times) - 1))
    if at is not None and draw(st.booleans()):
        hits = [k for k, t in enumerate(times) if t == start]
        if hits:
            at = draw(st.sampled_from(hits))
    return start, end, at


@given(st.data())
@SETTINGS
def test_one_array_span_makes_what_two_splits_make(data):
    """``Profile._span`` gives the intervals ``[i, j)`` the two ``_split`` calls of the
    module's ``_span`` give, and leaves the same breakpoints and the same free amounts in
    every interval (each new interval a copy of the one it was cut from), in the
    resource-first layout, whether start and end fall on breakpoints or between them, the
    end is at the start or never, and ``at`` names the start's interval or not; both refuse
    an end before the start, leaving the profile alone; on both kinds of profile."""
    draw = data.draw
    capacity = draw(alike_clusters())
    now, free, releases = start_state(draw, capacity)
    for prof in both(capacity, now, free, releases):
        for _ in range(draw(st.integers(1, 8))):
            start, end, at = drawn_span(draw, prof)
            one, two = prof.copy(), prof.copy()
            if end < start:  # refused by both, each profile left as it was
                with pytest.raises(ValueError, match="ends before it starts"):
                    one._span(start, end, at)
                with pytest.raises(ValueError, match="ends before it starts"):
                    profile_module._span(two, start, end, at)
                for p in (one, two):
                    assert repr(p.times) == repr(prof.times)
                    assert np.array_equal(p.free, prof.free)
                continue
            got = one._span(start, end, at)
            want = profile_module._span(two, start, end, at)
            assert got == want, (start, end, at, prof.times)
            assert repr(one.times) == repr(two.times)
            assert np.array_equal(one.free, two.free)
            assert planes_contiguous(one)
            # carry on from there with a reservation over the span, so that intervals differ
            i, j = got
            n = len(capacity)
            nodes = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))))
            usage = np.array([draw(st.integers(0, 2)), 0, 0], dtype=np.int64)
            one._change(i, j, nodes, usage, False)
            prof = one
        assert planes_contiguous(prof)
        if isinstance(prof, MergedProfile):  # (columns widened in the same layout)
            assert np.array_equal(prof.gcap[prof.group_of], prof.capacity)


def without_rows(original):
    """``Profile._fits_from`` without the nodes fitting per interval (no early refusal)."""

    def fits_from(self, i, t, duration, request, mask, ok, w=None, rows=None):
        return original(self, i, t, duration, request, mask, ok, w)

    return fits_from


@given(st.data())
@SETTINGS
def test_early_refusal_refuses_only_starts_whose_window_fails(data):
    """A start refused because an interval of its window has fewer fitting nodes than the
    job asks (``rows``, counted only up to ``upto`` when the search stops there) is one the
    window's own test refuses: ``earliest`` answers the same with and without the early
    refusal, with ``upto`` and ``not_before``, on both kinds of profile."""
    draw = data.draw
    capacity = draw(alike_clusters())
    now, free, releases = start_state(draw, capacity)
    n = len(capacity)
    profs = both(capacity, now, free, releases)
    for _ in range(draw(st.integers(1, 10))):
        top = capacity.max(axis=0).tolist()
        demand = np.array([draw(st.integers(min(1, c), c)) for c in top], dtype=np.int64)
        request = Request(demand, draw(st.integers(1, min(n, 6))), draw(st.booleans()))
        mask = np.ones(n, dtype=bool)
        if draw(st.booleans()):
            mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        duration = draw(spans_st)
        kw = {}
        if draw(st.booleans()):
            kw["upto"] = draw(st.integers(0, len(profs[0].times) - 1))
        if draw(st.booleans()):
            kw["not_before"] = draw(times_st)
        tries = draw(st.sampled_from([0, 1, profile_module._TRIES]))
        answers = []
        for prof in profs:
            with _patched(profile_module, "_TRIES", tries):
                got = prof.earliest(request, mask, duration, **kw)
                original = Profile._fits_from
                with _patched(Profile, "_fits_from", without_rows(original)):
                    want = prof.earliest(request, mask, duration, **kw)
            assert repr(got) == repr(want), kw
            answers.append(repr(got))
        assert answers[0] == answers[1]
        # every start, not only the first fits: a window ending on, just before or just
        # after a breakpoint, with the fitting nodes counted up to a cut or not
        for prof in profs:
            ok, w = prof._ok(prof.free, request, mask)
            upto = draw(st.none() | st.integers(0, len(prof.times) - 1))
            starts = ok if upto is None else ok[: upto + 1]
            rows = (starts.sum(axis=1) if w is None else starts @ w).tolist()
            finite = [t for t in prof.times if not math.isinf(t)]
            for i, t in enumerate(prof.times[: len(rows)]):
                if math.isinf(t):
                    continue
                end = draw(st.sampled_from(finite)) + draw(st.sampled_from([-0.25, 0, 0.25]))
                length = max(end - t, 0.0)
                args = (i, t, length, request, mask, ok, w)
                got = prof._fits_from(*args, rows)
                assert repr(got) == repr(prof._fits_from(*args)), (i, t, length, rows)
        found = profs[0].earliest(request, mask, duration)
        if found is not None and not math.isinf(found[1]):
            i, t, nodes = found
            usage = capacity[list(nodes)] if request.exclusive else demand
            for prof in profs:
                prof.reserve(nodes, usage, t, t + duration, at=i)


class _patched:
    """``setattr`` for the ``with`` block (restored after)."""

    def __init__(self, owner, name, value):
        self.owner, self.name, self.value = owner, name, value

    def __enter__(self):
        self.old = getattr(self.owner, self.name)
        setattr(self.owner, self.name, self.value)

    def __exit__(self, *exc):
        setattr(self.owner, self.name, self.old)


def dealt_request(draw, capacity):
    """(request, mask, duration) of a ``-N k --gpus=M`` job: one GPU per node at least and
    more GPUs than that in all (dealt over its nodes)."""
    n = len(capacity)
    count = draw(st.integers(1, min(n, 4)))
    top = capacity.max(axis=0).tolist()
    demand = np.array([draw(st.integers(1, max(1, top[0] // 2))), draw(st.integers(0, 2)), 1])
    gpus = draw(st.integers(count + 1, 2 * count + 1))
    mask = np.ones(n, dtype=bool)
    if draw(st.booleans()):
        mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    duration = draw(st.integers(1, 40).map(lambda k: k / 4) | st.just(math.inf))
    return Request(demand.astype(np.int64), count, gpus_per_job=gpus), mask, duration


def holds(request, nodes) -> np.ndarray:
    """What a reservation on ``nodes`` holds per node (as ``PendingJob.usage``)."""
    rows = getattr(nodes, "rows", None)
    return rows if rows is not None else np.broadcast_to(request.demand, (len(nodes), 3))


@given(st.data())
@SETTINGS
def test_replan_of_dealt_gpus_holds_what_it_answers(data):
    """Compression of ``-N k --gpus=M`` reservations: after each ``replan`` the profile is
    the one before with the job's old usage taken out and what its answer holds put in (the
    rows dealt on its new nodes when it moves; the rows it held when it stays, on the nodes
    it had), valid throughout; :class:`MergedProfile` answers and holds as
    :class:`Profile`."""
    draw = data.draw
    capacity = draw(alike_clusters())
    capacity[:, 2] = np.maximum(capacity[:, 2], draw(st.sampled_from([0, 2, 4])))
    now, free, releases = start_state(draw, capacity)
    profs = both(capacity, now, free, releases)
    standing = []
    for _ in range(draw(st.integers(1, 8))):
        request, mask, duration = dealt_request(draw, capacity)
        found = profs[0].earliest(request, mask, duration)
        assert repr(profs[1].earliest(request, mask, duration)) == repr(found)
        if found is None or math.isinf(found[1]):
            continue
        i, t, nodes = found
        for prof in profs:
            prof.reserve(nodes, holds(request, nodes), t, t + duration, at=i)
        standing.append([t, len(standing), request, mask, duration, nodes])
    if releases and draw(st.booleans()):  # a running job ends early
        end, nodes, use = releases[draw(st.integers(0, len(releases) - 1))]
        if end > now:
            for prof in profs:
                prof.reserve(nodes, -use, now, end)
    for s in sorted(standing, key=lambda s: s[:2]):
        t, _n, request, mask, duration, nodes = s
        if not profs[0].valid():
            break
        before = profs[0].copy()
        usage = holds(request, nodes)
        got = profs[0].replan(request, mask, duration, t, nodes, usage)
        assert repr(profs[1].replan(request, mask, duration, t, nodes, usage)) == repr(got)
        assert per_node(profs[1]) == per_node(profs[0])
        assert profs[0].valid()
        if got is None:
            continue
        k, t2, new = got
        want = before
        want.reserve(nodes, -usage, t, t + duration)
        want.reserve(new, holds(request, new), t2, t2 + duration, at=k)
        assert np.array_equal(want.per_node(), profs[0].per_node())
        s[0], s[5] = t2, new


def test_early_refusal_reads_only_the_intervals_of_the_window():
    """A start is refused early only for an interval inside its window with too few
    fitting nodes, never for the interval after it. Two nodes: one CPU of node 1 held from
    5 to 10 (it still fits), node 0 held from 20 on. A 2-node job of 15 s fits from 0 or
    from 5 (its window ends at 20, where one node fits), not from 10 nor for 25 s."""
    capacity = np.array([[4, 100, 0]] * 2, dtype=np.int64)
    prof = Profile(0.0, capacity.copy(), capacity)
    prof.reserve((1,), np.array([1, 0, 0]), 5.0, 10.0)
    prof.reserve((0,), np.array([4, 0, 0]), 20.0, math.inf)
    request = Request(np.array([2, 10, 0]), 2)
    mask = np.ones(2, dtype=bool)
    assert prof.times == [0.0, 5.0, 10.0, 20.0]
    assert prof.earliest(request, mask, 15.0) == (0, 0.0, (0, 1))
    assert prof.earliest(request, mask, 25.0) is None
    ok, _w = prof._ok(prof.free, request, mask)
    rows = ok.sum(axis=1).tolist()
    assert rows == [2, 2, 2, 1]
    assert prof._fits_from(0, 0.0, 15.0, request, mask, ok, None, rows) == (0, 1)
    assert prof._fits_from(1, 5.0, 15.0, request, mask, ok, None, rows) == (0, 1)
    assert prof._fits_from(2, 10.0, 15.0, request, mask, ok, None, rows) is None


@given(st.data())
@SETTINGS
def test_fit_masks_as_ints_answer_as_the_arrays_do(data):
    """For a request best fit places without reading free amounts (a GPU job of fixed tasks
    per node, ``gres_fixed``, not ``--exclusive``), the search of its fit mask as one int
    per interval (``_first_fit_bits``, which ``replan`` runs in place) answers as the search
    over the mask's array (``_first_fit``) does for starts up to ``upto`` (as ``replan``
    searches), with node Weights or without, ``-N MIN-MAX``, on clusters of up to 80 nodes
    (masks wider than a machine word), move by move."""
    draw = data.draw
    n = draw(st.integers(2, 80))
    capacity = np.resize(draw(alike_clusters()), (n, 3))  # (its node types repeated)
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    now, free, releases = start_state(draw, capacity)
    prof = Profile(now, free, capacity, releases, weights)
    top = capacity.max(axis=0).tolist()
    for _ in range(draw(st.integers(1, 10))):
        demand = np.array([draw(st.integers(min(1, c), c)) for c in top], dtype=np.int64)
        count = draw(st.integers(1, min(n, 8)))
        most = draw(st.none() | st.integers(count, n + 1))
        request = Request(demand, count, most=most, gres_fixed=True)
        mask = np.ones(n, dtype=bool)
        if draw(st.booleans()):
            mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        duration = draw(spans_st)
        upto = draw(st.integers(0, len(prof.times) - 1))
        # (the intervals earliest looks at: see earliest)
        last = max(bisect_left(prof.times, prof.times[upto] + duration), upto + 1)
        ok, w = prof._ok(prof.free[:last], request, mask)
        got = prof._first_fit_bits(profile_module._bits(ok), request, duration, upto)
        tries = draw(st.sampled_from([0, 1, profile_module._TRIES]))
        with _patched(profile_module, "_TRIES", tries):
            want = prof._first_fit(ok, w, request, mask, duration, None, upto)
        assert repr(got) == repr(want), upto
        assert repr(prof.earliest(request, mask, duration, upto=upto)) == repr(want)
        if got is not None and not math.isinf(got[1]):
            i, t, nodes = got
            prof.reserve(nodes, demand, t, t + duration, at=i)


@given(st.data())
@SETTINGS
def test_kept_picks_are_best_fits_picks(data):
    """Best fit's pick for a request that reads no free amounts (``gres_fixed``, no GPUs
    per job, not ``--exclusive``), kept per (fitting nodes, count, most, Weights) by
    ``_best_fit_bits``, is what ``best_fit`` picks among those nodes: asked again and again
    (kept answers), under several Weights arrays (equal ones among them, some written in
    place between picks) and ``None``, with the store emptied when full (a small bound
    here)."""
    draw = data.draw
    n = draw(st.integers(2, 80))
    weights = [None]
    for _ in range(draw(st.integers(0, 2))):
        w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
        weights += [w, w.copy()]
    demand = np.array([1, 1, 1], dtype=np.int64)
    with _patched(profile_module, "_PICKS_MAX", draw(st.sampled_from([1, 3, 4096]))):
        for _ in range(draw(st.integers(1, 12))):
            bits = draw(st.integers(1, (1 << n) - 1))
            count = draw(st.integers(1, min(n, 8)))
            most = draw(st.none() | st.integers(count, n + 1))
            request = Request(demand, count, most=most, gres_fixed=True)
            w = draw(st.sampled_from(weights))
            if w is not None and draw(st.booleans()):
                # written in place: a pick kept under its old values no longer holds
                w[:] = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
            got = profile_module._best_fit_bits(bits, request, w)
            want = best_fit(None, profile_module._positions(bits), request, w)
            assert got == want
