"""Analyzers: plain functions from a job table to a new DataFrame (one verb each).

They read the shared job table (``slurmlab.records.schema``), so they work the same on a
``read_sacct()`` export and on a simulation, and compose with ``DataFrame.pipe``.
"""

from slurmlab.analysis.efficiency import (
    cpu_efficiency,
    memory_efficiency,
    requested_memory_mb,
    timelimit_accuracy,
)
from slurmlab.analysis.failures import failure_cost, requeues
from slurmlab.analysis.summary import Summary, summary
from slurmlab.analysis.usage import biggest_runs, gpu_hours, share_vs_target, top_consumers, usage
from slurmlab.analysis.utilization import capacity_of, utilization
from slurmlab.analysis.waits import bounded_slowdown, pending_over_time, wait_stats, wait_times

__all__ = [
    "Summary",
    "biggest_runs",
    "bounded_slowdown",
    "capacity_of",
    "cpu_efficiency",
    "failure_cost",
    "gpu_hours",
    "memory_efficiency",
    "pending_over_time",
    "requested_memory_mb",
    "requeues",
    "share_vs_target",
    "summary",
    "timelimit_accuracy",
    "top_consumers",
    "usage",
    "utilization",
    "wait_stats",
    "wait_times",
]
