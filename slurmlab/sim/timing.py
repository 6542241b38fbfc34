"""The same-time rule, as simpy event priorities; and the grids of slurmctld's timers.

All events at one instant are applied before one scheduling pass, in this order:
first job ends (and node state changes), then arrivals (submissions, begin times
reached, dependencies satisfied, scripted actions), then the pass, then (for the
``slurm`` policy) a backfill cycle due at that instant. simpy orders events of the
same time by priority, then by when they were scheduled.

slurmctld's periodic main-scheduler pass and priority recalculation tick on grids from
its start (:func:`slurmctld_start_seconds`; the grids:
:func:`~slurmlab.spec.units.tick_at_or_before`, :func:`~slurmlab.spec.units.tick_at_or_after`).
"""

from __future__ import annotations

import math
from numbers import Real

from slurmlab.errors import SlurmlabError

__all__ = ["AFTER_PASS", "INF", "LATE", "NORMAL", "URGENT", "slurmctld_start_seconds"]

URGENT = 0  # job ends, node failures and repairs, priority recalculation
NORMAL = 1  # arrivals, begin times, actions
LATE = 2  # the scheduling pass
AFTER_PASS = 3  # the backfill cycle
INF = math.inf


def slurmctld_start_seconds(value) -> float:
    """``slurmctld_start``: when slurmctld started, in seconds from the simulation's start
    (0 or earlier)."""
    number = isinstance(value, Real) and not isinstance(value, bool)  # (numpy's too)
    if not (number and math.isfinite(value) and value <= 0):
        raise SlurmlabError(
            f"slurmctld_start={value!r}: give when slurmctld started, in seconds from the "
            "simulation's start, 0 or less (e.g. -8: 8 s before it); the periodic "
            "main-scheduler pass falls every sched_interval from then, and the priority "
            "recalculation every PriorityCalcPeriod"
        )
    return float(value)
