"""The availability profile: free resources per node over future time.

Backfilling plans with it. It starts from what is free now, adds back each
running job's resources at its expected end (its time limit, never its true run
time), and lets a policy ask "when is the earliest time this job fits?" and
"reserve these nodes from t0 to t1". Free resources are piecewise constant
between breakpoints; ``free[k]`` holds the (nodes x 3) free array from
``times[k]`` until ``times[k + 1]``. On clusters of :data:`MERGE_FROM` nodes or more,
:func:`make_profile` gives a :class:`MergedProfile`, whose ``free`` holds one column per set
of nodes alike throughout; :meth:`Profile.per_node` reads either per node.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate
from operator import itemgetter
from typing import ClassVar

import numpy as np

from slurmlab.policies.nodespace import node_bits, nodes_bits
from slurmlab.policies.placement import (
    MEM,
    Request,
    best_fit,
    choose_nodes,
    covers,
    fitting_mask,
    held,
    idle,
    reads_free,
    spread_nodes,
)

__all__ = ["MergedProfile", "PoolProfile", "Profile", "make_profile"]

_MIN = np.minimum.reduce  # the ufunc's reduce: what ndarray.min calls, without its overhead
_ALL = np.logical_and.reduce
_SUM = np.add.reduce
_ACCUMULATE = np.add.accumulate
MERGE_FROM = 256  # nodes: make_profile merges nodes alike from this many on
_TRIES = 6  # candidate intervals earliest tests one by one before searching vectorised
_POWERS = np.left_shift(1, np.arange(62, dtype=np.int64))  # bit n of a node mask (_bits)


@lru_cache(maxsize=4096)
def _node_index(nodes: tuple[int, ...]) -> slice | np.ndarray:
    """``nodes`` as an index into the node axis: a slice (basic indexing, several times
    cheaper) when they are a contiguous ascending range, else an index array (cached: the
    same node sets come back pass after pass; the arrays are never written)."""
    if len(nodes) and nodes[0] >= 0 and list(nodes) == list(range(nodes[0], nodes[-1] + 1)):
        return slice(nodes[0], nodes[-1] + 1)
    index = np.array(nodes, dtype=np.intp)
    index.flags.writeable = False
    return index


class Profile:
    """Free (CPUs, MB, GPUs) per node as a step function of time, from ``now`` on.

    Running jobs whose expected end is not after ``now`` (a trace job running past
    its limit "may end at any moment") are released at ``now`` in a second interval
    that starts at the same instant: planning may count on them, starting now may not.
    """

    __slots__ = ("_oks", "capacity", "free", "now", "times", "weights")

    #: :meth:`replan` may test a job in place (see :meth:`_in_place`): False where
    #: ``free``'s columns are not nodes (:class:`MergedProfile`)
    _in_place_ok: ClassVar[bool] = True

    def __init__(
        self,
        now: float,
        free: np.ndarray,
        capacity: np.ndarray,
        releases: Iterable[tuple[float, tuple[int, ...], np.ndarray]] = (),
        weights: np.ndarray | None = None,
    ):
        self.now = now
        self.capacity = capacity
        self.weights = weights  # node Weights (None: all alike), for best fit
        self._oks = None  # fit masks of the profile as it is (see _in_place)
        rel = sorted(releases, key=_first)
        if not rel:
            self.times = [now]
            self.free = _planes(1, len(free), free.dtype)
            self.free[0] = free
            return
        # one row per release instant, summed
        times, rows = _intervals(now, rel)
        delta = _planes(len(times), len(free), free.dtype, zero=True)
        delta[0] = free
        for k, (_t, nodes, usage) in zip(rows, rel):
            delta[k, _node_index(nodes)] += usage
        self.times = times
        _ACCUMULATE(delta, axis=0, out=delta)  # the running sum, in place (np.cumsum allocates)
        self.free = delta

    def per_node(self) -> np.ndarray:
        """Free (CPUs, MB, GPUs) per interval and node: a (times x nodes x 3) array
        (``free`` itself here; do not write to it)."""
        return self.free

    def free_now(self) -> np.ndarray:
        """Free (CPUs, MB, GPUs) per node in the first interval (a copy)."""
        return self._expand(self.free[0]).copy()

    def copy(self) -> Profile:
        """An independent copy (to try changes on)."""
        new = object.__new__(type(self))
        new.now, new.capacity, new.weights = self.now, self.capacity, self.weights
        new.times, new.free = list(self.times), self.free.copy(order="K")  # (its layout)
        new._oks = None
        return new

    def advance(self, now: float) -> None:
        """Start the profile at ``now``, dropping the intervals that ended by then.

        For a continued pass, after arrivals only: no running job ended or started since the
        profile was made, so from ``now`` on it is what a new one would be. (A backfill
        reservation that began in between, on the ``bf_resolution`` grid, now begins at
        ``now``, as a new cycle would clip it.) A profile does not go back in time: an earlier
        ``now`` raises ValueError.
        """
        if now < self.now:
            raise ValueError(
                f"advance({now}): before the profile's now ({self.now}); a profile only "
                "moves forward: make a new one for an earlier instant"
            )
        k = bisect_right(self.times, now) - 1
        del self.times[0:k]
        self._drop(0, k)  # (none: it still forgets what it kept, such as fit masks)
        self.times[0] = self.now = now

    def _drop(self, i: int, j: int) -> None:
        if j > i:
            f = self.free  # (np.delete would give another layout)
            new = self.free = _planes(len(f) - (j - i), f.shape[1], f.dtype)
            new[:i] = f[:i]
            new[i:] = f[j:]
        self._oks = None  # (fit masks are kept within a pass, whose views masks are)

    def _window(self, i: int, end: float) -> np.ndarray:
        j = max(bisect_left(self.times, end, lo=i), i + 1)
        return self.free[i] if j == i + 1 else _MIN(self.free[i:j], axis=0)

    def fits(
        self, request: Request, mask: np.ndarray, duration: float, *, at: int = 0
    ) -> tuple[int, ...] | None:
        """The nodes of ``mask`` on which the job fits from interval ``at`` for ``duration``
        seconds, or None: :func:`choose_nodes` over the least free on each node in that
        window (a ``--nodes=MIN-MAX`` job takes up to MAX of the nodes free throughout)."""
        window = self._window(at, self.times[at] + duration)
        return choose_nodes(self._expand(window), self.capacity, request, mask, self.weights)

    def earliest(
        self,
        request: Request,
        mask: np.ndarray,
        duration: float,
        *,
        not_before: float | None = None,
        upto: int | None = None,
    ) -> tuple[int, float, tuple[int, ...]] | None:
        """The first (interval index, start time, nodes) where the job fits; None if never.

        Start the job *now* only when the index is 0 (and the time is ``now``): running jobs
        past their expected end are released in interval 1, which also begins at ``now``
        (see the class), so ``(1, now, nodes)`` is a plan that counts on them ending, not
        room free now. The built-ins test ``t <= now and i == 0``.

        ``upto``: only starts in intervals up to that one are looked for (None if none fits
        there); the intervals past the end of a window from there (or from ``not_before``)
        are not even looked at.

        A ``--nodes=MIN-MAX`` job (``request.most``) starts where MIN fit, and takes up to
        MAX of the nodes free throughout its window there, as Slurm's backfill plans it
        (``_try_sched`` with ``req_nodes`` = MAX); the GPUs free throughout the window rank
        the nodes, as cons_tres's will-run test weighs them; a ``whole_memory`` job takes
        only nodes whose memory is all free throughout.
        """
        free = self.free
        if upto is not None:  # (no window from interval upto or before reaches further;
            begin = self.times[upto]  # a start moved to not_before ends later)
            if not_before is not None and not_before > begin:
                begin = not_before
            last = max(bisect_left(self.times, begin + duration), upto + 1)
            free = free[:last]
        # ok[q, n]: the job may run on node n throughout interval q (w: see _ok)
        ok, w = self._ok(free, request, mask)
        return self._first_fit(ok, w, request, mask, duration, not_before, upto)

    def earliest_noted(self, request: Request, mask: np.ndarray, duration: float):
        """``(earliest(request, mask, duration), note)``: the note (for :func:`noted_fits`)
        keeps the search's fit mask when the start found is after ``now`` (else None)."""
        ok, w = self._ok(self.free, request, mask)
        found = self._first_fit(ok, w, request, mask, duration, None, None)
        if found is None or w is not None or found[1] <= self.now:
            return found, None
        return found, (list(self.times), ok, found[0])

    def _first_fit(self, ok, w, request, mask, duration, not_before, upto):
        """:meth:`earliest` from the fit mask ``ok`` of the intervals it looks at (and
        ``w``: see :meth:`_ok`)."""
        count = request.count
        # a start needs `count` nodes free in its own interval; the first such interval
        # nearly always (or one of the next few) gives the answer: test those one by one
        starts = ok if upto is None else ok[: upto + 1]  # (only starts up to upto)
        counts = _SUM(starts, axis=1) if w is None else starts @ w
        cand = (counts >= count).nonzero()[0]
        shifted = not_before is not None
        rows = counts.tolist() if len(cand) else None
        for i in cand[:_TRIES].tolist():
            t = self._start(i, not_before) if shifted else self.times[i]
            if t is not None:
                nodes = self._fits_from(i, t, duration, request, mask, ok, w, rows)
                if nodes is not None:
                    return i, float(t), nodes
        if len(cand) <= _TRIES:
            return None
        return self._search(cand[_TRIES:], ok, request, mask, duration, not_before, w)

    def _ok(
        self, free: np.ndarray, request: Request, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """(ok, w): ``ok[q, n]`` is whether the job may run on column ``n`` of ``free``
        throughout interval ``q``; ``w[n]`` is how many of the job's nodes column ``n``
        stands for (None: one each, as here; see :class:`MergedProfile`)."""
        r = request
        return fitting_mask(free, self.capacity, r.demand, mask, r.exclusive, r.whole_memory), None

    def spread_fits(
        self, request: Request, mask: np.ndarray, duration: float, *, at: int = 0
    ) -> tuple[int, ...] | None:
        """The nodes a job that may spread (``request.spread``) fits on from interval ``at``
        for ``duration`` seconds, with its usage on each
        (:func:`~slurmlab.policies.placement.spread_nodes` over the least free on each node
        in that window), or None."""
        window = self._window(at, self.times[at] + duration)
        return spread_nodes(self._expand(window), request, mask, self.weights)

    def spread_earliest(
        self, request: Request, mask: np.ndarray, duration: float
    ) -> tuple[int, float, tuple[int, ...]] | None:
        """The earliest fit of a job that may spread (``request.spread``): (interval index,
        start, nodes with their usage), trying each interval's start in turn with
        :meth:`spread_fits`, as Slurm's will-run test places it; None when it never fits."""
        for k, t in enumerate(self.times):
            nodes = self.spread_fits(request, mask, duration, at=k)
            if nodes is not None:
                return k, t, nodes
        return None

    def _expand(self, columns: np.ndarray) -> np.ndarray:
        """Per node, from per column (here: the same)."""
        return columns

    def _start(self, i: int, not_before: float | None) -> float | None:
        """The planned start of a job placed in interval ``i`` (delayed to ``not_before``),
        or None when it falls in a later interval."""
        t = self.times[i]
        if not_before is not None and t < not_before:
            t = float(not_before)
        if t != self.times[i] and bisect_right(self.times, t) - 1 != i:
            return None
        return t

    def _search(self, cand, ok, request, mask, duration, not_before, w=None):
        """:meth:`earliest` over the candidate intervals ``cand``, vectorised."""
        times = np.array(self.times[: len(ok)])  # (fewer than all with earliest's upto)
        starts = times[cand]
        valid = None
        if not_before is not None:
            starts = np.maximum(starts, not_before)
            k = np.searchsorted(times, starts, side="right") - 1
            valid = (starts == times[cand]) | (k == cand)  # else a later breakpoint covers it
        # a window fits on a node where no interval in it is bad
        bad = np.zeros((len(times) + 1, ok.shape[1]), dtype=np.int32)  # (counts of intervals)
        np.cumsum(~ok, axis=0, out=bad[1:])
        ends = np.searchsorted(times, starts + duration, side="left")
        np.maximum(ends, cand + 1, out=ends)
        clean = bad[ends] == bad[cand]
        fit = (_SUM(clean, axis=1) if w is None else clean @ w) >= request.count
        if valid is not None:
            fit &= valid
        for k in fit.nonzero()[0].tolist():
            i, t = int(cand[k]), float(starts[k])
            nodes = self._fits_from(i, t, duration, request, mask, ok, w)
            if nodes is not None:
                return i, t, nodes
        return None

    def _fits_from(self, i, t, duration, request, mask, ok, w=None, rows=None):
        """The nodes for a start at ``t`` in interval ``i``, or None (``ok`` and ``w`` as in
        :meth:`earliest`; ``rows``: a list of the nodes fitting in the first intervals)."""
        j = max(bisect_left(self.times, t + duration, lo=i), i + 1)
        if rows is not None and j > i + 1:
            known = rows[i + 1 : j]  # (an interval of the window with too few nodes fitting:
            if known and min(known) < request.count:  # nearly every start that fails)
                return None
        clean = ok[i] if j == i + 1 else _ALL(ok[i:j], axis=0)
        if w is None:
            idx = clean.nonzero()[0]
            if len(idx) < request.count:
                return None
            if not (request.exclusive or reads_free(request)):
                return best_fit(None, idx, request, self.weights)  # (no window)
        elif clean @ w < request.count:
            return None
        window = self.free[i] if j == i + 1 else _MIN(self.free[i:j], axis=0)
        if w is not None:  # per column: per node
            window, clean = self._expand(window), self._expand(clean) & mask
        if request.exclusive:
            # choose_nodes tests the window's minimum (the same unless free > capacity)
            return choose_nodes(window, self.capacity, request, mask, self.weights)
        # for count >= 1 the nodes fitting throughout the window are those choose_nodes takes
        return best_fit(window, idx if w is None else clean.nonzero()[0], request, self.weights)

    def replan(
        self,
        request: Request,
        mask: np.ndarray,
        duration: float,
        start: float,
        nodes: tuple[int, ...],
        usage: np.ndarray,
    ) -> tuple[int, float, tuple[int, ...]] | None:
        """Compress one standing reservation (conservative backfilling): take the job's
        ``usage`` on ``nodes`` from ``start`` out, put the job back at its earliest fit and
        return that (interval index, start time, nodes) -- never later than ``start``,
        since its own slot is free (None if its nodes went down and no others will do).
        A reservation standing at ``now`` is in the last interval starting then (with a job
        past its limit, two do: one found in the first starts now, and stands as none).
        ``usage`` is what the job holds per node; it depends on which nodes only for an
        ``exclusive`` request (whole nodes) and a ``whole_memory`` one (each node's memory).
        A job of no length holds the interval it starts in (:meth:`reserve`). The profile
        must be valid (all reservations fit)."""
        i, j = _span(self, start, start + duration, None)  # its intervals (already split)
        # it starts no later than in its own slot, unless its nodes went down: look there
        # first, then (None) everywhere
        found = self._in_place(request, mask, duration, i, j, nodes, usage)
        if found is not _UNSEARCHED:  # (searched with the job still in: see _in_place)
            if found is not None and found[0] == i and found[2] == nodes:
                return found  # it stays: the profile is as it was
            self._change(i, j, nodes, usage, True)  # out
        else:
            self._change(i, j, nodes, usage, True)  # out
            found = self.earliest(request, mask, duration, upto=i)
        if found is None:
            found = self.earliest(request, mask, duration)
        if found is not None:  # (None: its nodes went down, and no others will do)
            k, t, new = found
            if k == i and new == nodes:  # it stays (interval i starts at `start`)
                self._change(i, j, nodes, usage, False)
                found = (k, t, nodes)  # (with the rows it holds: a dealing of --gpus may differ)
            else:
                r = request
                if getattr(new, "rows", None) is not None:  # (-N k --gpus=M: as dealt there)
                    usage = new.rows
                elif r.exclusive or r.whole_memory or len(new) != len(usage):
                    # what it holds depends on which nodes (whole nodes, each node's
                    # memory), or on how many (-N MIN-MAX)
                    usage = held(r.demand, self.capacity, new, r.exclusive, r.whole_memory)
                self.reserve(new, usage, t, t + duration, at=k)
        return found

    def _in_place(self, request, mask, duration, i, j, nodes, usage):
        """:meth:`replan`'s search up to the job's own interval ``i`` (its reservation
        holds intervals ``[i, j)`` on ``nodes``) made without taking the job out: what
        ``earliest(..., upto=i)`` returns once it is out, or ``_UNSEARCHED`` when this
        request cannot be searched so (then :meth:`replan` takes it out first).

        Taking the job out changes the profile only on its own intervals and nodes. There,
        when it holds at least its ``demand`` on each node (not ``exclusive`` nor
        ``whole_memory``), what is free with it out covers the demand in a valid profile
        (nothing negative): those cells fit wherever ``mask`` lets the job run. So the fit
        mask with the job out is the profile's own mask (kept per request and mask until
        the profile changes, as one int per interval: most jobs of a pass stay where they
        are, and many share a request) with those cells set from ``mask``. Best fit does
        not weigh free amounts for such a request (:func:`reads_free`), so the search
        (:meth:`_first_fit_bits`) needs nothing else.
        """
        r = request
        if not self._in_place_ok or r.exclusive or r.whole_memory or reads_free(r):
            return _UNSEARCHED
        demand = r.demand
        d0, d1, d2 = need = demand.tolist()
        holds = usage.tolist() if usage.ndim == 2 else [usage.tolist()]  # (or one row for all)
        for u0, u1, u2 in holds:  # (a row or two: a fifth of the cost of numpy comparing)
            if u0 < d0 or u1 < d1 or u2 < d2:  # it holds less than its demand somewhere
                return _UNSEARCHED
        key = (id(mask), *need)
        oks = self._oks
        if oks is None:
            oks = self._oks = {}
        hit = oks.get(key)
        if hit is None or hit[0] is not mask:  # (the mask held: its id names no other)
            ok = self._ok(self.free, r, mask)[0]
            hit = oks[key] = (mask, _bits(ok), node_bits(mask))
        _, rows, allowed = hit
        # its cells fit once it is out, where the mask lets it run
        own = nodes_bits(tuple(nodes)) & allowed
        rows = rows[:j]  # (a copy: the kept rows stay as they are)
        rows[i:j] = [row | own for row in rows[i:j]]
        return self._first_fit_bits(rows, r, duration, i)

    def _first_fit_bits(self, rows, request, duration, upto):
        """:meth:`_first_fit` for a request best fit places without reading free amounts
        (not ``exclusive``, nor :func:`reads_free`; ``w`` None), from its fit mask as one
        int per interval (bit ``n``: node ``n`` fits; ``rows`` as far as :meth:`earliest`
        looks): the first start up to interval ``upto`` whose window keeps ``count`` nodes
        fitting throughout, on the nodes best fit picks there. In plain Python: on a few
        dozen nodes numpy's cost per call outweighs the work, a few int operations per start
        tested (the fit mask turned into ints costs about what the search saves, so
        :meth:`earliest` keeps the arrays; :meth:`_in_place` keeps the ints between
        searches)."""
        count, times, weights, n = request.count, self.times, self.weights, len(rows)
        for i in range(upto + 1):  # (starts up to upto, as earliest(..., upto=upto))
            clean = rows[i]
            if clean.bit_count() < count:  # (too few nodes in its own interval: most)
                continue
            t = times[i]
            end, k = t + duration, i + 1
            while k < n and times[k] < end:  # (the window's intervals)
                clean &= rows[k]
                k += 1
            if clean.bit_count() < count:
                continue
            nodes = _best_fit_bits(clean, request, weights)
            if nodes is not None:
                return i, float(t), nodes
        return None

    def valid(self) -> bool:
        """No node is short of any resource at any time (reservations all fit)."""
        return bool((self.free >= 0).all())

    def _split(self, t: float) -> int:
        """Ensure an interval starts at ``t`` (after any interval already starting there)."""
        k = bisect_right(self.times, t)
        if self.times[k - 1] == t:
            return k - 1
        self.times.insert(k, t)
        self._oks = None
        # interval k - 1 twice (np.insert costs several times more for these small arrays,
        # np.concatenate of three slices a fifth more than two copies into a new array)
        f = self.free
        new = self.free = _planes(len(f) + 1, f.shape[1], f.dtype)
        new[:k] = f[:k]
        new[k:] = f[k - 1 :]
        return k

    def hold(self, nodes: tuple[int, ...], start: float, end: float) -> None:
        """A plan holds ``nodes`` whole from ``start`` to ``end``: :meth:`reserve` of their
        capacity (the ``slurm`` policy's backfill plans, backfill.c ``_add_reservation``)."""
        self.reserve(nodes, self.capacity[list(nodes)], start, end)

    def reserve(
        self,
        nodes: tuple[int, ...],
        usage: np.ndarray,
        start: float,
        end: float,
        *,
        at: int | None = None,
    ) -> None:
        """Take ``usage`` (per node, or one row for all) on ``nodes`` (distinct, as node
        selection gives them) from ``start`` until ``end`` (``inf``: forever); a negative
        ``usage`` gives it back. ``end == start`` (a job of no length) holds the interval
        it starts in (``at``, see :meth:`earliest`; else the last starting at ``start``).
        A ``start`` before ``now`` or an ``end`` before ``start`` raises ValueError."""
        i, j = self._span(start, end, at)
        self._change(i, j, nodes, usage, False)

    def _span(self, start: float, end: float, at: int | None) -> tuple[int, int]:
        """:func:`_span`, with both new breakpoints made in one new ``free`` array (each
        :meth:`_split` copies the whole array; a reservation nearly always makes two)."""
        times = self.times
        if start < times[0] or end < start:
            _check_span(self, start, end)  # (raises)
        cuts: list[int] = []  # where new breakpoints went in, each after an interval it copies
        i = at if at is not None and times[at] == start else _breakpoint(times, start, cuts)
        j = len(times) if math.isinf(end) else _breakpoint(times, end, cuts)
        if cuts:
            self._oks = None
            f = self.free
            new = self.free = _planes(len(times), f.shape[1], f.dtype)
            a = cuts[0]
            new[:a] = f[:a]
            if len(cuts) == 1:
                new[a:] = f[a - 1 :]
            else:  # rows a and b > a (in the new array) copy the row before each
                b = cuts[1]
                new[a:b] = f[a - 1 : b - 1]
                new[b:] = f[b - 2 :]
        if j <= i:  # (no length: the interval it starts in, as in _span)
            j = i + 1
        return i, j

    def _change(self, i: int, j: int, nodes: tuple[int, ...], usage, add: bool) -> None:
        """Give back (``add``) or take ``usage`` on ``nodes`` in intervals ``[i, j)``."""
        self._oks = None
        if add:
            self.free[i:j, _node_index(nodes)] += usage
        else:
            self.free[i:j, _node_index(nodes)] -= usage


class MergedProfile(Profile):
    """A :class:`Profile` whose nodes alike throughout are one column of ``free``.

    On a large cluster most nodes share their whole future with others: idle nodes, the
    nodes of one multi-node job, nodes of one reservation. A deep queue on 640 nodes has
    about 90 distinct columns, and every search and every new breakpoint costs in
    proportion to the columns, not the nodes. ``group_of[n]`` is node ``n``'s column;
    nodes share a column only while their capacity and free resources agree at every
    breakpoint. A change on some of a column's nodes first gives them a column of their
    own (columns are not merged back: a profile lives for one pass or cycle, or for
    conservative's passes after arrivals only).

    Every answer (start, interval and nodes) and every free amount per node equal
    :class:`Profile`'s: best fit runs on the nodes, from their columns' windows.
    """

    __slots__ = ("group_of", "gcap", "sizes")

    _in_place_ok = False

    def __init__(self, now, free, capacity, releases=(), weights=None):
        self.now, self.capacity, self.weights = now, capacity, weights
        # what each node gets back, when: a flat list of (interval, CPUs, MB, GPUs) per node
        rel = sorted(releases, key=_first)
        times, rows = _intervals(now, rel)
        back: dict[int, list[int]] = {}
        for k, (_t, nodes, usage) in zip(rows, rel):
            if usage.shape != (len(nodes), 3):  # (one row for every node)
                usage = np.broadcast_to(usage, (len(nodes), 3))
            for node, row in zip(nodes, usage.tolist(), strict=True):
                got = back.get(node)
                if got is None:
                    back[node] = [k, *row]
                else:
                    got += (k, *row)
        self.times = times
        # Nodes alike now (capacity and free) and given back the same, in the same order,
        # share a column. (Nodes given back the same in another way stay apart: fewer
        # merged, never two that differ.)
        now_rows = np.hstack((capacity, free))  # (np.unique(axis=0) costs 10 times more)
        _, group_of = np.unique(now_rows.view(np.dtype((np.void, now_rows[0].nbytes))).ravel(),
                                return_inverse=True)  # fmt: skip
        group_of = group_of.ravel()
        if back:
            alike = group_of.tolist()
            keys: dict[tuple, int] = {}
            touched = list(back)
            group_of[touched] = np.add(
                [keys.setdefault((alike[node], *back[node]), len(keys)) for node in touched],
                max(alike) + 1,
            )
        _, reps, group_of = np.unique(group_of, return_index=True, return_inverse=True)
        self.group_of = group_of.ravel()
        self.sizes = np.bincount(self.group_of).tolist()
        self.gcap = capacity[reps]
        # the running sum over the intervals, per column, from its first node's returns
        delta = _planes(len(times), len(reps), free.dtype, zero=True)
        delta[0] = free[reps]
        for g, node in enumerate(reps.tolist()):
            got = back.get(node)
            for q in range(0, len(got) if got else 0, 4):
                delta[got[q], g] += got[q + 1 : q + 4]
        _ACCUMULATE(delta, axis=0, out=delta)
        self.free = delta

    def copy(self) -> MergedProfile:
        new = super().copy()
        new.group_of, new.gcap, new.sizes = self.group_of.copy(), self.gcap, list(self.sizes)
        return new

    def per_node(self) -> np.ndarray:
        return self.free[:, self.group_of]  # (a copy)

    def _ok(self, free, request, mask):
        ok = covers(free, request.demand)
        if request.exclusive:
            ok &= idle(free, self.gcap)
        elif request.whole_memory:
            ok &= free[..., MEM] == self.gcap[:, MEM]
        # a column counts for as many of the job's nodes as it has nodes in the mask
        return ok, np.bincount(self.group_of[mask], minlength=len(self.sizes))

    def _expand(self, columns):
        return columns[self.group_of]

    def _change(self, i, j, nodes, usage, add):
        n = len(nodes)
        if not n:
            return
        index = _node_index(nodes)  # (a slice for a range of nodes)
        usage = np.asarray(usage)
        if usage.ndim == 1 or len(usage) != n:  # (one row for every node, as numpy
            usage = np.broadcast_to(usage, (n, 3))  # broadcasts it in Profile)
        row = usage[0]
        if n == 1:
            g = int(self.group_of[nodes[0]])
        else:
            groups = self.group_of[index]
            g = int(groups[0])
            if not (groups == g).all() or (usage.strides[0] and not (usage == row).all()):
                targets, rows = self._regroup(nodes, groups, usage)  # (several columns)
                if add:
                    self.free[i:j, targets] += rows
                else:
                    self.free[i:j, targets] -= rows
                return
        # (nearly always) the same on every node, all of one column
        if self.sizes[g] != n:
            g = self._own(g, index, n)
        column = self.free[i:j, g]
        if add:
            column += row
        else:
            column -= row

    def _own(self, g: int, index, n: int) -> int:
        """A new column for the ``n`` nodes ``index``, some of column ``g``'s (a copy of it)."""
        target = len(self.sizes)
        self.sizes.append(n)
        self.sizes[g] -= n
        self.group_of[index] = target
        self.free = _widened(self.free, [g])
        self.gcap = np.concatenate((self.gcap, self.gcap[g : g + 1]))
        return target

    def _regroup(self, nodes, groups, usage):
        """Give ``nodes`` columns of their own where their column holds other nodes too, or
        where they take different ``usage``: (columns, usage per column)."""
        parts: dict[tuple, list[int]] = {}
        for node, g, row in zip(nodes, groups.tolist(), usage.tolist(), strict=True):
            parts.setdefault((g, *row), []).append(node)
        sizes, group_of = self.sizes, self.group_of
        left = {}  # nodes of each column not yet moved to a new one
        new: list[int] = []  # the column each new column copies
        targets, rows = [], []
        for (g, *row), members in parts.items():
            rest = left.get(g, sizes[g])
            if len(members) == rest:  # the column's last nodes: they keep it
                target = g
            else:
                target = len(sizes)
                new.append(g)
                sizes.append(len(members))
                sizes[g] -= len(members)
                group_of[members] = target
            left[g] = rest - len(members)
            targets.append(target)
            rows.append(row)
        if new:
            self.free = _widened(self.free, new)
            self.gcap = np.concatenate((self.gcap, self.gcap[new]))
        return targets, np.array(rows, dtype=self.free.dtype)


class PoolProfile:
    """The same profile for a one-node machine (a trace's processor pool), in plain Python.

    Identical answers to :class:`Profile` with one node, without numpy's per-call cost:
    replaying a 100,000-job trace asks it millions of small questions. Free CPUs, MB and
    GPUs are three lists over the intervals. While no interval is short of memory or GPUs
    (``plain``), a job asking for neither (every job of a processors-only trace) is tested
    on the CPU list alone. (A request's ``mem_per_cpu`` and ``most`` are taken as by
    :class:`Profile`: with one node there is no choice of nodes for them to change; nor for
    ``whole_memory``: the job's memory per node is the one node's.)
    """

    __slots__ = ("_low", "cap", "capacity", "cpu", "gpu", "mem", "now", "plain", "times")

    def __init__(self, now, free, capacity, releases=()):
        self._low = None  # running minima of free CPUs from interval 0 (see fits)
        self.now = now
        self.capacity = capacity
        self.cap = tuple(capacity[0].tolist())
        c0, c1, c2 = free[0].tolist()
        cpu, mem, gpu = [c0], [c1], [c2]
        rel = sorted(releases, key=_first)
        times, rows = _intervals(now, rel)
        for k, (_t, _nodes, usage) in zip(rows, rel):  # (running sums)
            u0, u1, u2 = usage[0].tolist()
            c0, c1, c2 = c0 + u0, c1 + u1, c2 + u2
            if k < len(cpu):  # (another release at the same instant)
                cpu[k], mem[k], gpu[k] = c0, c1, c2
            else:
                cpu.append(c0)
                mem.append(c1)
                gpu.append(c2)
        self.times, self.cpu, self.mem, self.gpu = times, cpu, mem, gpu
        self.plain = min(mem) >= 0 and min(gpu) >= 0

    advance = Profile.advance

    def free_now(self) -> np.ndarray:
        return np.array([[self.cpu[0], self.mem[0], self.gpu[0]]], dtype=self.capacity.dtype)

    def _drop(self, i, j):
        del self.cpu[i:j], self.mem[i:j], self.gpu[i:j]
        self._low = None

    def _last_short(self, i, end, n0, n1, n2, exclusive):
        """The last interval in the window from ``i`` to ``end`` where the job does not fit,
        or -1 when it fits in all of them. Every later start up to that interval has it in
        its window too (windows only grow later), so a search may skip past it."""
        j = max(bisect_left(self.times, end, lo=i), i + 1)
        cpu = self.cpu
        if self.plain and not (n1 or n2 or exclusive):
            return _last_below(cpu, i, j, n0)
        mem, gpu, cap = self.mem, self.gpu, self.cap
        for k in range(j - 1, i - 1, -1):
            if cpu[k] < n0 or mem[k] < n1 or gpu[k] < n2:
                return k
            if exclusive and (cpu[k], mem[k], gpu[k]) != cap:
                return k
        return -1

    def spread_fits(self, request, mask, duration, *, at: int = 0) -> None:
        """A job spread over several nodes needs two or more: never on one node."""
        return None

    def spread_earliest(self, request, mask, duration) -> None:
        """(No job may spread on one node: see :meth:`spread_fits`.)"""
        return None

    def fits(self, request, mask, duration, *, at=0):
        if request.count != 1 or not mask[0]:
            return None
        exclusive = request.exclusive
        n0, n1, n2 = request.demand.tolist()
        times = self.times
        if at == 0 and self.plain and not (n1 or n2 or exclusive):
            # EASY asks "does this job fit from now?" for every candidate: the window's
            # least free CPUs is a running minimum from interval 0 (rebuilt after a change)
            low = self._low
            if low is None:
                low = self._low = list(accumulate(self.cpu, min))
            j = max(bisect_left(times, times[0] + duration), 1)
            return (0,) if low[j - 1] >= n0 else None
        short = self._last_short(at, times[at] + duration, n0, n1, n2, exclusive)
        return (0,) if short < 0 else None

    def earliest(self, request, mask, duration, *, not_before=None):
        if request.count != 1 or not mask[0]:
            return None
        exclusive, demand = request.exclusive, request.demand
        n0, n1, n2 = int(demand[0]), int(demand[1]), int(demand[2])
        times, cpu, n = self.times, self.cpu, len(self.times)
        plain = self.plain and not (n1 or n2 or exclusive)
        mem, gpu, cap = self.mem, self.gpu, self.cap
        i = 0
        if not_before is not None:  # the interval holding not_before, or the first of
            i = max(bisect_right(times, not_before) - 1, 0)  # several starting at it
            while i and times[i - 1] == times[i] == not_before:
                i -= 1
        while i < n:
            # cheap test first: most candidate starts fail in their own interval
            if (
                cpu[i] < n0
                or not plain
                and (mem[i] < n1 or gpu[i] < n2 or (exclusive and (cpu[i], mem[i], gpu[i]) != cap))
            ):
                i += 1
                continue
            t = times[i]
            if not_before is not None and t < not_before:
                t = not_before
            short = self._last_short(i, t + duration, n0, n1, n2, exclusive)
            if short < 0:
                return i, t, (0,)
            i = short + 1
        return None

    def replan(self, request, mask, duration, start, nodes, usage):
        exclusive = request.exclusive
        n0, n1, n2 = request.demand.tolist()
        cpus_only = self.plain and mask[0] and not (n1 or n2 or exclusive)
        if not (cpus_only and self.now < start and duration > 0):
            self.reserve(nodes, -usage, start, start + duration)  # out, then back in
            found = self.earliest(request, mask, duration)
            if found is not None:
                i, t, new = found
                if exclusive:
                    usage = self.capacity[list(new)]
                self.reserve(new, usage, t, t + duration, at=i)
            return found
        # Only starts before its own can move it. Search them with its CPUs counted free
        # over its standing window (what taking it out would give); if none fits it stays
        # where it is, and the profile is left as it was (out and back in changes nothing).
        times, cpu = self.times, self.cpu
        ix = bisect_left(times, start)  # its reservation's first interval (starts there)
        row = usage.tolist()[0]
        held = row[0]
        i = 0
        while i < ix:
            for k in range(i, ix):  # the next interval with the CPUs (a for loop scans
                if cpu[k] >= n0:  # a third faster than stepping i: schedules grow long)
                    break
            else:
                break  # none before its own
            # the last interval of its window from k short of the CPUs, from its own
            # reservation's on with the CPUs it holds there counted free (as out)
            t = times[k]
            j = max(bisect_left(times, t + duration, lo=k), k + 1)
            short = -1
            if j > ix:  # the window reaches into its own reservation
                short = _last_below(cpu, ix, j, n0 - held)
                j = ix
            if short < 0:
                short = _last_below(cpu, k, j, n0)
            if short < 0:  # out, then in at k (ints: no arrays made for it)
                self._hold(*_span(self, start, start + duration, None), -row[0], -row[1], -row[2])
                self._hold(*_span(self, t, t + duration, k), *row)
                return k, t, (0,)
            i = short + 1
        return ix, start, (0,)

    def valid(self) -> bool:
        return min(self.cpu) >= 0 and min(self.mem) >= 0 and min(self.gpu) >= 0

    def _split(self, t):
        times = self.times
        k = bisect_right(times, t)
        if times[k - 1] == t:
            return k - 1
        times.insert(k, t)
        self.cpu.insert(k, self.cpu[k - 1])
        self.mem.insert(k, self.mem[k - 1])
        self.gpu.insert(k, self.gpu[k - 1])
        self._low = None
        return k

    def reserve(self, nodes, usage, start, end, *, at=None):
        i, j = _span(self, start, end, at)
        self._hold(i, j, *usage.tolist()[0])

    def hold(self, nodes, start, end):
        """:meth:`Profile.hold`: the whole pool."""
        i, j = _span(self, start, end, None)
        self._hold(i, j, *self.cap)

    def _hold(self, i, j, d0, d1, d2):
        """Take (CPUs, MB, GPUs) ``d0, d1, d2`` (negative: give them back) over intervals
        ``[i, j)``."""
        self._low = None
        if d0:
            cpu = self.cpu
            cpu[i:j] = [f - d0 for f in cpu[i:j]]
        if d1:
            mem = self.mem
            mem[i:j] = [f - d1 for f in mem[i:j]]
            if d1 > 0 and min(mem[i:j], default=0) < 0:
                self.plain = False
        if d2:
            gpu = self.gpu
            gpu[i:j] = [f - d2 for f in gpu[i:j]]
            if d2 > 0 and min(gpu[i:j], default=0) < 0:
                self.plain = False


_first = itemgetter(0)
_UNSEARCHED = object()  # (Profile._in_place: not searched)


def _breakpoint(times: list[float], t: float, cuts: list[int]) -> int:
    """The index of breakpoint ``t`` in ``times`` (sorted), inserted there when it is new
    (its index then noted in ``cuts``)."""
    k = bisect_right(times, t)
    if times[k - 1] == t:
        return k - 1
    times.insert(k, t)
    cuts.append(k)
    return k


def _bits(ok: np.ndarray) -> list[int]:
    """The rows of a boolean (rows x nodes) array as ints, bit ``n`` set where node ``n`` is."""
    if ok.shape[1] <= len(_POWERS):  # (one product: half the cost of packing bytes)
        return (ok @ _POWERS[: ok.shape[1]]).tolist()
    packed = np.packbits(ok, axis=1, bitorder="little")
    data, width = packed.tobytes(), packed.shape[1]
    return [int.from_bytes(data[k : k + width], "little") for k in range(0, len(data), width)]


def noted_fits(note, duration: float) -> tuple[int, int]:
    """From the note of :meth:`Profile.earliest_noted` (the job's fit mask in every interval of
    that profile, and the interval of the start found): (the most nodes fitting throughout
    the window of any start before it, the nodes fitting throughout its own window as
    bits). For a request whose fit mask alone decides (not ``exclusive``, ``whole_memory``
    nor :func:`reads_free`: best fit then picks by the fitting nodes only), every start
    before it failed for having fewer than ``count`` such nodes."""
    times, ok, found = note
    rows, n = _bits(ok), len(times)

    def throughout(q: int) -> int:  # (the window's intervals, as _fits_from takes them)
        clean, end, k = rows[q], times[q] + duration, q + 1
        while k < n and times[k] < end:
            clean &= rows[k]
            k += 1
        return clean

    most = max((throughout(q).bit_count() for q in range(found)), default=0)
    return most, throughout(found)


#: (fitting nodes, count, most, Weights) -> the nodes best fit picked (None: too few)
_PICKS: dict[tuple, tuple[int, ...] | None] = {}
_PICKS_MAX = 4096  # (emptied when full: a run's passes make a few thousand keys)


def _best_fit_bits(bits: int, request: Request, weights: np.ndarray | None):
    """``best_fit(None, _positions(bits), request, weights)`` for a request best fit places
    without reading free amounts (see :meth:`Profile._first_fit_bits`): a function of the
    fitting nodes, ``count``, ``most`` and the Weights alone, so kept per their values (a
    pass after a job's end finds most jobs at their own starts, over the fitting nodes of
    the previous pass)."""
    w = None if weights is None else (weights.dtype.char, weights.tobytes())
    key = (bits, request.count, request.most, w)
    nodes = _PICKS.get(key, _UNSEARCHED)  # (None: too few nodes, a pick kept too)
    if nodes is _UNSEARCHED:
        nodes = best_fit(None, _positions(bits), request, weights)
        if len(_PICKS) >= _PICKS_MAX:
            _PICKS.clear()
        _PICKS[key] = nodes
    return nodes


def _positions(bits: int) -> list[int]:
    """The set bits of ``bits``, ascending (the nodes of a fit mask made by :func:`_bits`;
    a new list: the same sets of fitting nodes come back search after search, their
    positions kept)."""
    return list(_set_bits(bits))


@lru_cache(maxsize=4096)
def _set_bits(bits: int) -> tuple[int, ...]:
    return tuple(n for n, c in enumerate(bin(bits)[:1:-1]) if c == "1")  # (lowest first)


def _planes(times: int, columns: int, dtype, *, zero: bool = False) -> np.ndarray:
    """A new (times x columns x 3) ``free`` array laid out resource first: each resource's
    (times x columns) plane is contiguous, so the comparisons of :func:`covers` (one per
    resource, over every interval) run on contiguous memory (about 40 % less time than
    strided ones on a teaching profile). ``zero``: filled with zeros, else uninitialised."""
    return (np.zeros if zero else np.empty)((3, times, columns), dtype).transpose(1, 2, 0)


def _widened(free: np.ndarray, columns: list[int]) -> np.ndarray:
    """``free`` with copies of its ``columns`` added after its own (in its layout)."""
    n = free.shape[1]
    new = _planes(len(free), n + len(columns), free.dtype)
    new[:, :n] = free
    new[:, n:] = free[:, columns]
    return new


def _intervals(now: float, releases: list) -> tuple[list[float], list[int]]:
    """The breakpoints of a profile from ``now`` and the interval each release (sorted by
    time) begins, in one pass: releases at ``now`` or overdue form a second interval
    starting at ``now``; releases at one instant share an interval."""
    times, rows = [now], []
    for t, _nodes, _usage in releases:
        if t < now:
            t = now
        if t != times[-1] or len(times) == 1:
            times.append(t)
        rows.append(len(times) - 1)
    return times, rows


def _last_below(values: list, i: int, j: int, need: int) -> int:
    """The last index in ``values[i:j]`` (not empty) below ``need``, or -1 if none is."""
    if min(values[i:j]) >= need:
        return -1
    k = j - 1
    while values[k] >= need:
        k -= 1
    return k


def _span(prof, start: float, end: float, at: int | None) -> tuple[int, int]:
    """The intervals [i, j) a reservation from ``start`` to ``end`` covers (split as needed).

    ``at`` names the interval a planned start was found in (several intervals may start at
    ``now``; without it, the last of them). A reservation of no length (``end == start``)
    covers that one interval: a job of no length fits where the interval it starts in has
    room (:meth:`Profile.earliest`), so it holds that room, and taking it out (its usage
    negated, or :meth:`Profile.replan`) gives back what it held.
    """
    if start < prof.times[0] or end < start:
        _check_span(prof, start, end)  # (raises)
    i = prof._split(start) if at is None or prof.times[at] != start else at
    j = len(prof.times) if math.isinf(end) else prof._split(end)
    if j <= i:  # (no length)
        j = i + 1
    return i, j


def _check_span(prof, start: float, end: float) -> None:
    """Raise a clear error for a reservation a profile cannot hold: one starting before the
    profile's first instant (its ``now``: it knows nothing earlier), or ending before it
    starts."""
    if start < prof.times[0]:
        raise ValueError(
            f"reservation from {start} to {end}: starts before the profile's now "
            f"({prof.times[0]}), which holds nothing earlier; reserve from max(start, now), "
            "as a job that began before now holds its nodes from now on"
        )
    if end < start:
        raise ValueError(
            f"reservation from {start} to {end}: ends before it starts; give an end no "
            "earlier than its start (end == start: a job of no length)"
        )


def hold_windows(prof: Profile, windows, now: float) -> None:
    """Let the advance reservations ``windows`` ((start, end, usage per node) each) hold
    their nodes in ``prof``, from now or their start to their end."""
    for t0, t1, usage in windows:
        if t1 > now:
            nodes = tuple(int(i) for i in np.flatnonzero(usage.any(axis=1)))
            prof.reserve(nodes, usage[list(nodes)], max(t0, now), t1)


def make_profile(now, free, capacity, releases=(), weights=None):
    """A :class:`Profile`: its plain-Python twin for a one-node pool, one merging nodes
    alike from :data:`MERGE_FROM` nodes on (below, numpy's per-call cost outweighs the
    columns saved)."""
    if len(capacity) == 1:
        return PoolProfile(now, free, capacity, releases)
    if len(capacity) >= MERGE_FROM:
        return MergedProfile(now, free, capacity, releases, weights)
    return Profile(now, free, capacity, releases, weights)
