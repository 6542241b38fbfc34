"""Slurm's backfill node_space map: which nodes the jobs planned so far in a cycle leave free.

A backfill cycle (sched/backfill, backfill.c) keeps time slots on the ``bf_resolution``
grid, from now to ``bf_window`` ahead, each with the nodes no planned job has reserved
then (a plan reserves whole nodes). Before a job is tested, backfill.c walks the slots its
window covers (``TRY_LATER``): when too few nodes stay free there, it tries again from the
end of the slot holding the start, and when none is left (the last slot of the window) the
job is passed over without being tested: it does not count toward ``bf_max_job_test``.
Running jobs are not in the map (the select plugin sees them), except the whole-node jobs
the cycle itself starts (``_bf_reserve_running``: their nodes until their end).

The map is a table of at most ``bf_node_space_size`` records (``node_space_recs``): it
starts with one record for the whole window, and each reservation inserts a record where
it begins and one where it ends, unless a record already begins there (or it ends beyond
the window); merged records are not given back. When the table is full, backfill.c stops
the cycle before the next reservation ("table size limit of %u reached").
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from slurmlab.spec.units import tick_at_or_after

__all__ = ["NodeSpace", "bits_mask", "node_bits", "nodes_bits"]


def node_bits(mask: np.ndarray) -> int:
    """A boolean node mask as an int bitmask (bit ``i``: node ``i``)."""
    packed = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def bits_mask(bits: int, nodes: int) -> np.ndarray:
    """An int bitmask as a boolean mask of ``nodes`` nodes (the inverse of :func:`node_bits`)."""
    raw = np.frombuffer(bits.to_bytes((nodes + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=nodes, bitorder="little").astype(bool)


@lru_cache(maxsize=4096)
def nodes_bits(nodes: tuple[int, ...]) -> int:
    """Node indices as an int bitmask (cached: the same node sets come back)."""
    bits = 0
    for i in nodes:
        bits |= 1 << i
    return bits


def slot_of(t: float, res: float, offset: float = 0.0) -> float:
    """``t`` rounded down to the ``bf_resolution`` grid, as backfill.c rounds a map's and a
    reservation's edges (an unlimited end stays unlimited). backfill.c rounds epoch seconds
    (``sched_start / backfill_resolution``, ``end_reserve / backfill_resolution``):
    ``offset`` is time 0's epoch second modulo ``res`` (:attr:`QueueView.epoch`; 0: time 0
    on the grid). (:func:`~slurmlab.spec.units.tick_at_or_before` from ``-offset``, its
    arithmetic written out: a cycle rounds two edges per reservation.)"""
    return math.floor((t + offset) / res) * res - offset if t != math.inf else t


def retry_after(end: float, res: float, offset: float = 0.0) -> float:
    """When backfill tries a job again after an advance reservation ending at ``end`` held
    its nodes: the end rounded *up* to the grid of :func:`slot_of`, plus 1 s
    (reservation.c ``find_resv_end``, backfill.c ``++resv_end``)."""
    return tick_at_or_after(end, res, -offset) + 1.0


def _moved(start: float, limit: float, exact: Sequence[tuple[float, float]]) -> float:
    """A try's start after reservation.c ``job_test_resv`` moved it past the ``exact``
    windows it overlaps (to the first one's end in their order, then again from there; ten
    retries at most, as there)."""
    for _ in range(10):
        later = next((t1 for t0, t1 in exact if t0 < start + limit and t1 > start), None)
        if later is None:
            break
        start = later
    return start


class NodeSpace:
    """backfill.c's ``node_space``: records from ``now`` rounded down to ``now + window``
    rounded down (``resolution`` seconds each at the finest; on :func:`slot_of`'s grid,
    whose ``offset`` it keeps), with the nodes not reserved.

    ``times`` are the record edges (record k is ``[times[k], times[k + 1])``) and ``slots``
    the nodes no planned job holds in each, as int bitmasks (bit ``i``: node ``i``; node
    sets are few dozen bits, and Python's int operations cost a fraction of numpy's calls
    on arrays that small). Node masks passed in are bitmasks too (:func:`node_bits`).
    The records are backfill.c's, one for one: record 0 is left empty when a reservation
    begins at the start of the map, and a reservation merges one pair of neighbouring
    records that hold the same nodes. ``records`` counts the records the table has used
    (``node_space_recs``: merging gives none back).
    """

    __slots__ = (
        "begin", "end", "resolution", "offset", "times", "slots", "nodes", "records", "_runs"
    )  # fmt: skip
    # _runs (one-node maps): (now, longest closed run, its start, its end, open run's start)

    def __init__(
        self, now: float, window: float, resolution: float, nodes: int, offset: float = 0.0
    ):
        res = resolution or 1.0
        self.resolution, self.offset = res, offset
        self.begin = slot_of(now, res, offset)
        self.end = max(slot_of(now + window, res, offset), self.begin)
        self.times = [self.begin, self.end]
        self.nodes = nodes
        self.slots = [(1 << nodes) - 1]
        self.records = 1  # node_space_recs: one record for the whole window
        self._runs: tuple | None = None  # see __slots__

    @property
    def avail(self) -> np.ndarray:
        """The map as a (records x nodes) boolean array: True where no planned job holds the
        node (for inspection and tests)."""
        return np.array(
            [[bool(bits >> i & 1) for i in range(self.nodes)] for bits in self.slots], dtype=bool
        ).reshape(len(self.slots), self.nodes)

    def reserve(self, nodes: Sequence[int], start: float, end: float) -> None:
        """``_add_reservation``: ``nodes`` are taken from ``start`` to ``end`` (times on the
        grid), starting no earlier than the map and lasting at least one slot.

        As backfill.c: a record is inserted at ``start`` unless a record ends there, and at
        ``end`` unless one ends there or the map ends before it; then the first two
        neighbouring records holding the same nodes, from the one before the reservation
        to the one after it, are merged into one."""
        if start < self.begin:
            start = self.begin
        if end < start + self.resolution:
            end = start + self.resolution
        times, slots = self.times, self.slots
        n = len(slots)
        k = bisect_left(times, start, 1) - 1  # the first record ending at or after start
        if k >= n:
            return  # (it begins after the map: nothing placed)
        before = k - 1 if k else 0  # one_before
        if times[k + 1] > start:  # a record from start
            times.insert(k + 1, start)
            slots.insert(k + 1, slots[k])
            n += 1
            self.records += 1
        k += 1  # the record beginning at start
        keep = ~nodes_bits(tuple(nodes))
        after = None  # one_after: the record after the reservation (None: to the map's end)
        while k < n:
            edge = times[k + 1]
            if end < edge:  # a record from end
                times.insert(k + 1, end)
                slots.insert(k + 1, slots[k])
                n += 1
                self.records += 1
                slots[k] &= keep
                after = k + 1
                break
            slots[k] &= keep
            if end == edge:
                after = k + 1 if k + 1 < n else None
                break
            k += 1
        i = before  # drop one record holding the same nodes as the one before it
        while i != after and i < n - 1:
            if slots[i] == slots[i + 1]:
                del times[i + 1], slots[i + 1]
                break
            i += 1
        if self.nodes == 1 and start < self.end:
            self._cut_runs(start, min(end, self.end))

    def free_over(self, usable: int, start: float, end: float) -> tuple[int, float | None]:
        """The nodes of ``usable`` free in every slot from ``start`` to ``end`` (a slot
        beginning at ``end`` counts), and where to try next: the end of the slot holding
        ``start``, unless it is the last one."""
        times, slots = self.times, self.slots
        n = len(slots)
        k0 = bisect_right(times, start) - 1  # the slot holding start
        if k0 >= n:
            return usable, None
        k1 = min(bisect_right(times, end) - 1, n - 1)  # the last slot beginning by end
        avail = usable
        for k in range(k0, k1 + 1):
            avail &= slots[k]
        return avail, (times[k0 + 1] if k0 < n - 1 else None)

    def reachable(
        self,
        usable: int,
        count: int,
        limit: float,
        now: float,
        blocked: Sequence[tuple[float, float, int]] = (),
        now_only: bool = False,
        exact: Sequence[tuple[float, float]] = (),
    ) -> bool:
        """Whether backfill.c reaches the test of a job of ``count`` nodes and ``limit``
        seconds: some try, from now or a later slot edge, leaves it ``count`` nodes free of
        reservations (``blocked``: advance reservations it may not use, as (start, end,
        nodes); their nodes are left out while they overlap, and the second after the
        first of them to end, rounded up to ``bf_resolution`` on the map's grid, is a time
        to try: reservation.c ``find_resv_end``, backfill.c ``++resv_end``). Node sets are
        bitmasks. ``now_only``: a job backfill may only start now (``TEST_NOW_ONLY``) has
        its first try alone; one that fails there goes no further (backfill.c).
        ``exact``: windows, as (start, end), that move a try they overlap to their exact
        end before it is made (a maintenance reservation over every node of the job's
        partition: reservation.c ``job_test_resv`` returns ESLURM_RESERVATION_MAINT and
        sets ``*when = resv_ptr->end_time``, and retries from there, up to ten times)."""
        if now_only:
            if _moved(now, limit, exact) != now:  # (its try now meets such a window)
                return False
            return self.free_of(usable, now, now + limit, blocked)[0].bit_count() >= count
        if not blocked:
            if self.nodes == 1:
                return count == 1 and bool(usable & 1) and self._reachable_one(limit, now)
            return self._reachable_free(usable, count, limit, now)
        start, res = now, self.resolution
        while True:
            start = _moved(start, limit, exact)
            end = start + limit
            avail, later = self.free_of(usable, start, end, blocked)
            resv_end = min((t1 for _t0, t1, _n in blocked if t1 >= start), default=None)
            if resv_end is not None and resv_end < self.end:
                resv_end = retry_after(resv_end, res, self.offset)
            if resv_end is not None and resv_end < self.end and (later is None or resv_end < later):
                later = resv_end
            if avail.bit_count() >= count:
                return True
            if later is None or later <= start:
                return False
            start = later

    def free_of(self, usable: int, start: float, end: float, blocked) -> tuple[int, float | None]:
        """:meth:`free_over`, less the nodes of the advance reservations ``blocked`` that
        overlap ``start`` to ``end``."""
        avail, later = self.free_over(usable, start, end)
        for t0, t1, nodes in blocked:
            if t0 < end and t1 > start:
                avail &= ~nodes
        return avail, later

    def _reachable_free(self, usable: int, count: int, limit: float, now: float) -> bool:
        """:meth:`reachable` without advance reservations, skipping the tries that cannot
        succeed: a try fails at the first slot of its window where fewer than ``count``
        nodes stay free; when that slot alone leaves too few, every later try whose window
        still holds it fails too, so the next one that can succeed starts after it."""
        times, slots = self.times, self.slots
        n = len(slots)
        k0 = bisect_right(times, now) - 1  # the slot holding the try's start
        if k0 >= n:
            return usable.bit_count() >= count
        start = now
        while True:
            k1 = min(bisect_right(times, start + limit, k0) - 1, n - 1)
            avail = usable
            for k in range(k0, k1 + 1):
                avail &= slots[k]
                if avail.bit_count() < count:
                    if (usable & slots[k]).bit_count() < count:
                        k0 = k  # (tries up to this slot's start hold it: next try after it)
                    break
            else:
                return True
            k0 += 1
            if k0 >= n:
                return False  # (the last slot's try failed: no record is left)
            start = times[k0]

    def _cut_runs(self, start: float, end: float) -> None:
        """Keep the runs of a one-node map up to date after slots ``start`` to ``end`` were
        reserved, when that is simple: a reservation that misses the longest closed run can
        only shorten other runs, and one reaching into the open run at the end (a backfill
        plan chained after the others) closes its beginning and leaves the rest open.
        Otherwise the runs are found again when next asked."""
        if self._runs is None:
            return
        now, longest, long_from, long_to, open_from = self._runs
        if long_from is not None and start < long_to and end > long_from:
            self._runs = None
        elif open_from is not None and end > open_from:
            if start - open_from > longest:  # (start is the edge of the slot it reserves)
                longest, long_from, long_to = start - open_from, open_from, start
            open_from = end if end < self.end else None
            self._runs = (now, longest, long_from, long_to, open_from)

    def _reachable_one(self, limit: float, now: float) -> bool:
        """:meth:`reachable` on a one-node map. Its tries start at ``now`` and at slot edges;
        every try inside a run of free slots has less room than the run's first, so a job is
        reached when some run is longer than its limit (the slot after the run begins
        after the job's end) or a run reaches the end of the map. Runs are found once per
        map and time, then kept up to date as reservations are added (:meth:`_cut_runs`)."""
        if self._runs is None or self._runs[0] != now:
            self._runs = (now, *self._longest_run(now))
        _now, longest, _from, _to, open_from = self._runs
        return open_from is not None or longest > limit

    def _longest_run(self, now: float) -> tuple[float, float | None, float | None, float | None]:
        """The longest run of free slots from ``now`` that a reserved slot ends: its length
        from its first try, where it begins and ends (None, None when there is none); and
        where the free run reaching the end of the map begins (None when none does)."""
        times, free = self.times, self.slots
        slots = len(free)
        k = bisect_right(times, now) - 1
        if k >= slots:
            return math.inf, None, None, now
        longest, long_from, long_to, run_start = -math.inf, None, None, None
        for i in range(k, slots):
            if free[i]:
                if run_start is None:
                    run_start = now if i == k else times[i]
            elif run_start is not None:
                if times[i] - run_start > longest:
                    longest, long_from, long_to = times[i] - run_start, run_start, times[i]
                run_start = None
        return longest, long_from, long_to, run_start
