"""A backfill cycle's profile split in two: what leaves room, and the whole nodes plans hold.

Slurm's backfill reserves whole nodes for the jobs it plans (backfill.c ``_add_reservation``
takes a planned job's nodes out of the ``avail_bitmap`` of each ``node_space`` record its
window covers; the cycle's profile holds them likewise: :meth:`SlurmBackfill._plan_jobs`). A :class:`PlanProfile` keeps a cycle's
profile as two parts: ``base``, a :class:`~slurmlab.policies.profile.Profile` of what the
running jobs, the cycle's own starts and the advance reservations leave free (it changes in
few cycles), and, per interval of the cycle's breakpoints, the nodes no plan holds, as an
int bitmask (bit ``n``: node ``n``). A node a plan holds has nothing left there for any job:
its free resources are the base's less its whole capacity, none above zero while the base
holds no more than the capacity (:attr:`PlanProfile.capped`). So a job fits on a node in an
interval exactly where it fits in the base there and no plan holds the node, and a search
is the base's fit mask (kept per request until the base changes, one int per base interval)
AND the free-of-plans bits, in plain Python (a few dozen nodes: numpy's cost per call
outweighs the work). Best fit reads free amounts only on the nodes that fit, which no plan
holds: the base's there.

Every answer (start, interval index, nodes) equals the :class:`Profile` holding the plans'
whole capacity would give (a hypothesis test compares them). Where that argument does not
hold -- a request asking nothing of any resource, a base holding more than some node's
capacity, a job that may spread over nodes, a start or hold of no length -- the answer
comes from that :class:`Profile`, built from both parts (:meth:`PlanProfile.whole`).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

import numpy as np

from slurmlab.policies.nodespace import bits_mask, node_bits, nodes_bits
from slurmlab.policies.placement import Request, best_fit, choose_nodes, fitting_mask, reads_free
from slurmlab.policies.profile import Profile, _best_fit_bits, _bits, _positions

__all__ = ["PlanProfile"]

_MIN = np.minimum.reduce


class PlanProfile:
    """A backfill cycle's profile: ``base`` (a :class:`Profile` of 2 nodes or more, one node
    per column) and the whole-node plan holds (:meth:`hold`), answering as the
    :class:`Profile` holding both would (see the module).

    ``times`` are the cycle's breakpoints (the base's and the holds'), ``open[q]`` the nodes
    no plan holds in interval ``q`` (a bitmask) and ``base_of[q]`` the base interval
    holding interval ``q``. Once a change cannot be split so (a change of no length),
    the profile becomes that :class:`Profile` for the rest of its life (``_whole``).
    """

    __slots__ = (
        "_all",
        "_holds",
        "_masks",
        "_oks",
        "_whole",
        "_windows",
        "base",
        "base_of",
        "capacity",
        "capped",
        "open",
        "times",
        "weights",
    )

    def __init__(self, base: Profile):
        if type(base) is not Profile or base.free.shape[1] < 2:
            raise TypeError(
                "PlanProfile splits a Profile of two nodes or more (one node per column); "
                f"got {type(base).__name__} of {base.free.shape[1]} columns"
            )
        self.base = base
        self.capacity, self.weights = base.capacity, base.weights
        n = base.free.shape[1]
        self._all = (1 << n) - 1
        self.times = list(base.times)
        self.open = [self._all] * len(self.times)
        self.base_of = list(range(len(self.times)))
        self._holds: list[tuple[tuple[int, ...], float, float]] = []  # (nodes, start, end)
        self._oks: dict = {}  # request's (demand, exclusive, whole_memory) -> base fit bits
        self._masks: dict = {}  # id(mask) -> (mask, its bits): masks are few and kept
        self._windows: dict = {}  # (first, last base interval) -> the least free over them
        self._whole: Profile | None = None
        self.capped = bool((base.free <= base.capacity).all())

    @property
    def now(self) -> float:
        return self.times[0]

    # -- changes ---------------------------------------------------------------------------

    def hold(self, nodes: tuple[int, ...], start: float, end: float) -> None:
        """A plan holds ``nodes`` whole from ``start`` to ``end`` (as :meth:`Profile.hold`)."""
        if self._whole is None and end == start:  # (no length: it holds the interval
            self._become_whole()  # it starts in, kept through later splits and advances,
        if self._whole is not None:  # which only the whole profile has)
            self._whole.reserve(nodes, self.capacity[list(nodes)], start, end)
            return
        i, j = self._span(start, end, None)
        keep = ~nodes_bits(tuple(nodes))
        rows = self.open
        for q in range(i, j):
            rows[q] &= keep
        self._holds.append((tuple(nodes), start, end))

    def reserve(
        self, nodes: tuple[int, ...], usage: np.ndarray, start: float, end: float, *, at=None
    ) -> None:
        """:meth:`Profile.reserve` in the base (a start, an advance reservation lifted for
        a job and put back); ``at`` names an interval of :attr:`times`."""
        if self._whole is not None:
            self._whole.reserve(nodes, usage, start, end, at=at)
            return
        if not end > start:  # (a start of no length holds the interval it starts in,
            self._become_whole()  # which only the whole profile has)
            self._whole.reserve(nodes, usage, start, end, at=at)
            return
        base = self.base
        base_at = None
        if at is not None and self.times[at] == start:
            b = self.base_of[at]
            if base.times[b] == start:
                base_at = b
        base.reserve(nodes, usage, start, end, at=base_at)
        self._span(start, end, at)  # (the same breakpoints here)
        self._base_changed()
        if self.capped and np.asarray(usage).min() < 0:  # (room given back)
            self.capped = bool((base.free <= base.capacity).all())

    def advance(self, now: float) -> None:
        """:meth:`Profile.advance`: start at ``now``, dropping the intervals over by then."""
        if self._whole is not None:
            self._whole.advance(now)
            return
        self.base.advance(now)  # (raises for an earlier now)
        k = bisect_right(self.times, now) - 1
        del self.times[0:k], self.open[0:k]
        self.times[0] = now
        self._base_changed()

    def _base_changed(self) -> None:
        """Map the intervals to the base's again; its fit masks are stale."""
        bt = self.base.times
        self.base_of = [bisect_right(bt, t) - 1 for t in self.times]
        self.base_of[0] = 0  # (two intervals may start at now: the first is the base's first)
        self._oks.clear()
        self._windows.clear()

    def _span(self, start: float, end: float, at: int | None) -> tuple[int, int]:
        """The intervals ``[i, j)`` from ``start`` to ``end``, new breakpoints made
        (:func:`~slurmlab.policies.profile._span`'s rule: ``at`` names the interval of a
        start found there, else the last starting at ``start``; no length: one interval)."""
        times = self.times
        if start < times[0] or end < start:
            raise ValueError(
                f"reservation from {start} to {end}: give a start no earlier than the "
                f"profile's now ({times[0]}) and an end no earlier than its start"
            )
        i = at if at is not None and times[at] == start else self._breakpoint(start)
        j = len(times) if math.isinf(end) else self._breakpoint(end)
        return i, max(j, i + 1)

    def _breakpoint(self, t: float) -> int:
        times = self.times
        k = bisect_right(times, t)
        if times[k - 1] == t:
            return k - 1
        times.insert(k, t)
        self.open.insert(k, self.open[k - 1])
        self.base_of.insert(k, self.base_of[k - 1])
        return k

    # -- questions -------------------------------------------------------------------------

    def earliest(
        self,
        request: Request,
        mask: np.ndarray,
        duration: float,
        *,
        not_before: float | None = None,
        upto: int | None = None,
    ) -> tuple[int, float, tuple[int, ...]] | None:
        """:meth:`Profile.earliest`: the first start (interval index, time, nodes) whose
        window keeps ``request.count`` nodes fitting throughout, on the nodes best fit picks
        there (the first such start where it picks any)."""
        oks = self._fit_bits(request) if not_before is None and upto is None else None
        if oks is None:
            return self.whole().earliest(request, mask, duration, not_before=not_before, upto=upto)
        # the request's fit mask per interval: the base's, on the nodes of mask no plan
        # holds (rows made only as far as the search looks: it stops at the first start)
        allowed = self._mask_bits(mask)
        base_of, opens, times = self.base_of, self.open, self.times
        count, weights, n = request.count, self.weights, len(times)
        reads = request.exclusive or reads_free(request)
        rows: list[int] = []
        i = 0
        while i < n:
            if i == len(rows):
                rows.append(oks[base_of[i]] & opens[i] & allowed)
            clean = rows[i]
            if clean.bit_count() < count:  # (too few nodes in its own interval: most)
                i += 1
                continue
            t = times[i]
            end, k = t + duration, i + 1
            while k < n and times[k] < end:  # (the window's intervals)
                if k == len(rows):
                    rows.append(oks[base_of[k]] & opens[k] & allowed)
                row = rows[k]
                clean &= row
                if clean.bit_count() < count:
                    break
                k += 1
            else:
                # best fit there (Profile._fits_from: for an exclusive request node selection
                # over the window finds these same nodes), reading free amounts only on them;
                # a request best fit places reading none: the pick kept per fitting nodes
                if reads:
                    nodes = best_fit(self._window(i, k), _positions(clean), request, weights)
                else:
                    nodes = _best_fit_bits(clean, request, weights)
                if nodes is not None:
                    return i, float(t), nodes
                i += 1
                continue
            # too few nodes by interval k: a start up to k whose window holds k fails too
            # when k alone has too few
            i = k + 1 if row.bit_count() < count else i + 1
        return None

    def fits(
        self, request: Request, mask: np.ndarray, duration: float, *, at: int = 0
    ) -> tuple[int, ...] | None:
        """:meth:`Profile.fits`: node selection over the window from interval ``at``, on the
        nodes of ``mask`` no plan holds in it (the others fit nowhere there)."""
        oks = self._fit_bits(request)
        if oks is None:
            return self.whole().fits(request, mask, duration, at=at)
        times = self.times
        j = max(bisect_left(times, times[at] + duration, lo=at), at + 1)
        if not (request.exclusive or reads_free(request)):  # (best fit reads no free
            clean = self._mask_bits(mask)  # amounts: the fit mask's ints, the pick kept)
            base_of, opens = self.base_of, self.open
            for q in range(at, j):
                clean &= oks[base_of[q]] & opens[q]
            return _best_fit_bits(clean, request, self.weights)
        held = 0
        for row in self.open[at:j]:
            held |= ~row
        held &= self._all
        if held and held & self._mask_bits(mask):
            mask = mask & ~bits_mask(held, len(mask))
        window = self._window(at, j)
        return choose_nodes(window, self.capacity, request, mask, self.weights)

    def spread_earliest(self, request, mask, duration):
        """:meth:`Profile.spread_earliest`, from the whole profile."""
        return self.whole().spread_earliest(request, mask, duration)

    def spread_fits(self, request, mask, duration, *, at: int = 0):
        """:meth:`Profile.spread_fits`, from the whole profile."""
        return self.whole().spread_fits(request, mask, duration, at=at)

    def valid(self) -> bool:
        return self.whole().valid()

    def per_node(self) -> np.ndarray:
        return self.whole().per_node()

    def free_now(self) -> np.ndarray:
        return self.whole().free_now()

    def _fit_bits(self, request: Request) -> list[int] | None:
        """The request's fit mask in the base, per base interval as an int (kept until the
        base changes), or None when the split does not answer for it: a node a plan holds
        must fit it nowhere (the base holds no more than the capacity, and the request asks
        for something)."""
        demand = request.demand
        key = (*demand.tolist(), request.exclusive, request.whole_memory)
        oks = self._oks.get(key)
        if oks is None:
            if self._whole is not None or not (self.capped and demand.any()):
                return None
            base = self.base
            ok = fitting_mask(
                base.free, base.capacity, demand, True, request.exclusive, request.whole_memory
            )
            oks = self._oks[key] = _bits(ok)
        return oks

    def _mask_bits(self, mask: np.ndarray) -> int:
        hit = self._masks.get(id(mask))
        if hit is None or hit[0] is not mask:
            hit = self._masks[id(mask)] = (mask, node_bits(mask))
        return hit[1]

    def _window(self, i: int, j: int) -> np.ndarray:
        """The least free per node over intervals ``[i, j)``, from the base (right on the
        nodes no plan holds there; kept per base intervals until the base changes)."""
        b0, b1 = self.base_of[i], self.base_of[j - 1]
        if b0 == b1:
            return self.base.free[b0]
        window = self._windows.get((b0, b1))
        if window is None:
            window = self._windows[(b0, b1)] = _MIN(self.base.free[b0 : b1 + 1], axis=0)
        return window

    # -- the whole profile -----------------------------------------------------------------

    def whole(self) -> Profile:
        """The :class:`Profile` holding both parts: the base, with each plan holding its
        nodes' capacity (a new one, unless the profile became it)."""
        if self._whole is not None:
            return self._whole
        base = self.base
        prof = base.copy()
        times = self.times
        free = np.empty((3, len(times), base.free.shape[1]), base.free.dtype).transpose(1, 2, 0)
        free[:] = base.free[self.base_of]
        now = times[0]
        for nodes, start, end in self._holds:
            if end <= now:
                continue  # (over before an advance)
            i = 0 if start < now else bisect_right(times, start) - 1
            j = len(times) if math.isinf(end) else bisect_right(times, end) - 1
            free[i : max(j, i + 1), list(nodes)] -= self.capacity[list(nodes)]
        prof.times, prof.free = list(times), free
        return prof

    def _become_whole(self) -> None:
        self._whole = self.whole()
        self._oks.clear()  # (the split answers no more)
        self.times = self._whole.times  # (the same list: it changes in place)
