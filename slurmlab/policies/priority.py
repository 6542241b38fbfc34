"""Job priority functions: a job's place in Slurm's evaluation order.

Slurm evaluates pending jobs by partition PriorityTier, then job priority, then
submit time, then job id (priority_multifactor.html). ``priority/basic`` gives
each new job a priority one below the previous one (starting below
``0xffff0000``), so the queue is submit order; ``--nice`` lowers it.
"""

from __future__ import annotations

__all__ = ["TOP_PRIORITY", "basic_priority", "sort_key"]

#: Slurm's starting value for priority/basic (src/plugins/priority/basic).
TOP_PRIORITY = 0xFFFF0000


def basic_priority(sequence: int, nice: int = 0) -> int:
    """priority/basic: each submission one below the previous, minus ``--nice``.

    >>> basic_priority(1), basic_priority(2, nice=10)
    (4294901759, 4294901748)
    """
    return max(1, TOP_PRIORITY - sequence - nice)


def sort_key(tier: int, priority: float, submit: float, job_id: int) -> tuple:
    """Slurm's evaluation order as a sort key (smallest first)."""
    return (-tier, -priority, submit, job_id)
