"""A pending job's priority factors over time, kept compactly.

Under priority/multifactor every pending job's factors are recalculated each
PriorityCalcPeriod, and ``sprio``, ``squeue`` and sacct's Priority read them at any earlier
time. Kept as one ``Factors`` object per recalculation, a deep queue over a long run held
hundreds of bytes per job and tick (a Lab with 500 jobs pending grew 43 MB per simulated
day). Between two recalculations only the age and fair-share factors change as a rule; the
rest (job size, partition, QOS, nice, TRES) changes seldom. So the times, ages and fair
shares are kept in arrays of doubles (the same values, exactly) and the rest once per
change; a recalculation that changes nothing adds nothing.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import fields, replace
from operator import attrgetter

from slurmlab.policies.priority import Factors

__all__ = ["FactorHistory"]

#: the factors kept once per change: all but age and fair share
_rest = attrgetter(*(f.name for f in fields(Factors) if f.name not in ("age", "fairshare")))


class FactorHistory:
    """The factors of each recalculation of one job: ``add(t, factors)``, ``at(t)``."""

    __slots__ = ("_times", "_ages", "_shares", "_base_from", "_bases")

    def __init__(self) -> None:
        self._times = array("d")
        self._ages = array("d")
        self._shares = array("d")
        self._base_from: list[int] = []  # (index of the first record of each base)
        self._bases: list[Factors] = []  # (the factors but age and fair share, as 0)

    def __len__(self) -> int:
        return len(self._times)

    def add(self, t: float, f: Factors) -> None:
        """The factors recalculated at ``t`` (times never decrease)."""
        same_base = bool(self._bases) and _rest(self._bases[-1]) == _rest(f)
        if same_base and self._ages[-1] == f.age and self._shares[-1] == f.fairshare:
            return  # (nothing changed: the last record stands from its own time on)
        if not same_base:
            self._base_from.append(len(self._times))
            self._bases.append(replace(f, age=0.0, fairshare=0.0))
        self._times.append(t)
        self._ages.append(f.age)
        self._shares.append(f.fairshare)

    def at(self, t: float, default=None):
        """The factors of the last recalculation at or before ``t`` (``default`` if none)."""
        i = bisect_right(self._times, t) - 1
        return default if i < 0 else self._record(i)

    def __iter__(self):
        """(time, factors) of each record, oldest first."""
        for i, t in enumerate(self._times):
            yield t, self._record(i)

    def _record(self, i: int) -> Factors:
        base = self._bases[bisect_right(self._base_from, i) - 1]
        return replace(base, age=self._ages[i], fairshare=self._shares[i])
