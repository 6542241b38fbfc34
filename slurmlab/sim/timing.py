"""The same-time rule, as simpy event priorities.

All events at one instant are applied before one scheduling pass, in this order:
first job ends (and node state changes), then arrivals (submissions, begin times
reached, dependencies satisfied, scripted actions), then the pass, then (for the
``slurm`` policy) a backfill cycle due at that instant. simpy orders events of the
same time by priority, then by when they were scheduled.
"""

from __future__ import annotations

import math

__all__ = ["AFTER_PASS", "INF", "LATE", "NORMAL", "URGENT"]

URGENT = 0  # job ends, node failures and repairs, priority recalculation
NORMAL = 1  # arrivals, begin times, actions
LATE = 2  # the scheduling pass
AFTER_PASS = 3  # the backfill cycle
INF = math.inf
