"""Figures: pure functions from a table to a plotly Figure (no reading, no simulation)."""

from slurmlab.viz.usage import failure_figure, states_figure, usage_figure
from slurmlab.viz.utilization import pending_figure, utilization_figure
from slurmlab.viz.waits import efficiency_figure, wait_figure

__all__ = [
    "efficiency_figure",
    "failure_figure",
    "pending_figure",
    "states_figure",
    "usage_figure",
    "utilization_figure",
    "wait_figure",
]
