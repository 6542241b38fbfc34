"""Slurm's backfill node_space map: which nodes the jobs planned so far in a cycle leave free.

A backfill cycle (sched/backfill, backfill.c) keeps time slots on the ``bf_resolution``
grid, from now to ``bf_window`` ahead, each with the nodes no planned job has reserved
then (a plan reserves whole nodes). Before a job is tested, backfill.c walks the slots its
window covers (``TRY_LATER``): when too few nodes stay free there, it tries again from the
end of the slot holding the start, and when none is left (the last slot of the window) the
job is passed over without being tested: it does not count toward ``bf_max_job_test``.
Running jobs are not in the map (the select plugin sees them).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

__all__ = ["NodeSpace"]


class NodeSpace:
    """backfill.c's ``node_space``: slots from ``now`` rounded down to ``now + window``
    rounded down (``resolution`` seconds each at the finest), with the nodes not reserved.

    ``times`` are the slot edges (slot k is ``[times[k], times[k + 1])``) and ``avail`` a
    (slots x nodes) boolean array: True where no planned job holds the node. A one-node map
    (an SWF trace's pool of processors) keeps that column as a plain list instead.
    """

    __slots__ = ("begin", "end", "resolution", "times", "avail", "first", "_buf", "_one", "_runs")

    def __init__(self, now: float, window: float, resolution: float, nodes: int):
        res = resolution or 1.0
        self.resolution = res
        self.begin = math.floor(now / res) * res
        self.end = max(math.floor((now + window) / res) * res, self.begin)
        self.times = [self.begin, self.end]
        self._buf = np.ones((8, nodes), dtype=bool)  # room for more slots
        self.avail = self._buf[:1]
        self.first = np.full(nodes, math.inf)  # each node's earliest reserved slot
        # a one-node map (an SWF trace's pool) also keeps its one column as a plain list
        self._one: list[bool] | None = [True] if nodes == 1 else None
        self._runs: tuple[float, float, bool] | None = None  # (now, longest run, open end)

    def _split(self, t: float) -> int:
        """The index of the slot starting at ``t`` (splitting the one around it)."""
        times = self.times
        k = bisect_right(times, t) - 1
        if times[k] == t or k == len(times) - 1:
            return k
        if self._one is not None:  # (a plain list only)
            times.insert(k + 1, t)
            self._one.insert(k + 1, self._one[k])
            return k + 1
        n = len(times) - 1  # slots before the split
        buf = self._buf
        if n == len(buf):  # full: double it
            buf = self._buf = np.concatenate([buf, np.ones_like(buf)])
        buf[k + 1 : n + 1] = buf[k:n]  # (numpy copies overlapping slices safely)
        times.insert(k + 1, t)
        self.avail = buf[: n + 1]
        return k + 1

    def reserve(self, nodes: Sequence[int], start: float, end: float) -> None:
        """``_add_reservation``: ``nodes`` are taken from ``start`` to ``end`` (times on the
        grid), starting no earlier than the map and lasting at least one slot."""
        start = max(start, self.begin)
        end = max(end, start + self.resolution)
        if start >= self.end:
            return
        k0, k1 = self._split(start), self._split(min(end, self.end))
        if self._one is not None:
            self._one[k0:k1] = [False] * (k1 - k0)
            self.first[0] = min(self.first[0], start)
            self._runs = None
            return
        avail, first = self.avail, self.first
        for i in nodes:  # (basic indexing: a few nodes each, cheaper than fancy indexing)
            avail[k0:k1, i] = False
            if start < first[i]:
                first[i] = start

    def free_over(
        self, usable: np.ndarray, start: float, end: float
    ) -> tuple[np.ndarray, float | None]:
        """The nodes of ``usable`` free in every slot from ``start`` to ``end`` (a slot
        beginning at ``end`` counts), and where to try next: the end of the slot holding
        ``start``, unless it is the last one."""
        times, slots = self.times, len(self.times) - 1
        k0 = bisect_right(times, start) - 1  # the slot holding start
        if k0 >= slots:
            return usable.copy(), None
        k1 = min(bisect_right(times, end) - 1, slots - 1)  # the last slot beginning by end
        table = self.avail if self._one is None else np.array(self._one).reshape(-1, 1)
        avail = usable & table[k0 : k1 + 1].all(axis=0)
        return avail, (times[k0 + 1] if k0 < slots - 1 else None)

    def reachable(
        self,
        usable: np.ndarray,
        count: int,
        limit: float,
        now: float,
        blocked: Sequence[tuple[float, float, np.ndarray]] = (),
    ) -> bool:
        """Whether backfill.c reaches the test of a job of ``count`` nodes and ``limit``
        seconds: some try, from now or a later slot edge, leaves it ``count`` nodes free of
        reservations (``blocked``: advance reservations it may not use, as (start, end,
        node mask); their nodes are left out while they overlap, and the second after the
        first of them to end is a time to try, as find_resv_end gives)."""
        if self._one is not None and not blocked:
            return count == 1 and bool(usable[0]) and self._reachable_one(limit, now)
        if not blocked and np.count_nonzero(usable & (self.first > now + limit)) >= count:
            return True  # enough nodes no reservation touches from now to its end
        start = now
        while True:
            end = start + limit
            avail, later = self.free_over(usable, start, end)
            for t0, t1, nodes in blocked:
                if t0 < end and t1 > start:
                    avail &= ~nodes
            resv_end = min((t1 + 1 for _t0, t1, _n in blocked if t1 >= start), default=None)
            if resv_end is not None and resv_end < self.end and (later is None or resv_end < later):
                later = resv_end
            if int(avail.sum()) >= count:
                return True
            if later is None or later <= start:
                return False
            start = later

    def _reachable_one(self, limit: float, now: float) -> bool:
        """:meth:`reachable` on a one-node map. Its tries start at ``now`` and at slot edges;
        every try inside a run of free slots has less room than the run's first, so a job is
        reached when some run is longer than its limit (the slot after the run begins
        after the job's end) or a run reaches the end of the map. Runs are found once per
        map and time."""
        if self._runs is None or self._runs[0] != now:
            self._runs = (now, *self._longest_run(now))
        _now, longest, open_end = self._runs
        return open_end or longest > limit

    def _longest_run(self, now: float) -> tuple[float, bool]:
        """The longest run of free slots from ``now`` that a reserved slot ends (its length
        from its first try), and whether a free run reaches the end of the map."""
        times, free = self.times, self._one
        slots = len(free)
        k = bisect_right(times, now) - 1
        if k >= slots:
            return math.inf, True
        longest, run_start = -math.inf, None
        for i in range(k, slots):
            if free[i]:
                if run_start is None:
                    run_start = now if i == k else times[i]
            elif run_start is not None:
                longest = max(longest, times[i] - run_start)
                run_start = None
        return longest, run_start is not None
