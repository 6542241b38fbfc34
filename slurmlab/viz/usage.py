"""Bar charts of who used what, which states jobs ended in, and what failures cost."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

__all__ = ["failure_figure", "states_figure", "usage_figure"]

_LABELS = {"gpu_hours": "GPU-hours", "cpu_hours": "CPU-hours", "node_hours": "node-hours"}


def usage_figure(
    usage: pd.DataFrame, by: str = "Account", resource: str = "gpu_hours", top: int = 15
) -> go.Figure:
    """Horizontal bars of a usage table (``slurmlab.analysis.usage``), biggest first.

    >>> from slurmlab.analysis import usage
    >>> from slurmlab.analysis._common import demo_jobs
    >>> usage_figure(usage(demo_jobs())).data[0].type
    'bar'
    """
    table = usage.groupby(by, as_index=False)[resource].sum()
    table = table.sort_values(resource, ascending=True).tail(top)
    fig = go.Figure(go.Bar(x=table[resource], y=table[by].astype(str), orientation="h"))
    label = _LABELS.get(resource, resource.replace("_", " "))
    fig.update_layout(
        title=f"{label} by {by}",
        xaxis_title=label,
        yaxis_title=by,
        template="plotly_white",
        height=max(300, 28 * len(table) + 120),
    )
    return fig


def states_figure(states: Mapping[str, int]) -> go.Figure:
    """Bars of final job states (``Summary.states``)."""
    names = list(states)
    fig = go.Figure(go.Bar(x=names, y=[states[n] for n in names]))
    fig.update_layout(
        title="Final state of each job",
        xaxis_title="state",
        yaxis_title="jobs",
        template="plotly_white",
    )
    return fig


def failure_figure(cost: pd.DataFrame, by: str = "State") -> go.Figure:
    """GPU- and CPU-hours of runs that did not complete (``slurmlab.analysis.failure_cost``)."""
    fig = go.Figure(
        [
            # bars on two y axes are grouped side by side only with an offsetgroup each
            go.Bar(name="GPU-hours", x=cost[by].astype(str), y=cost["gpu_hours"], offsetgroup=1),
            go.Bar(
                name="CPU-hours",
                x=cost[by].astype(str),
                y=cost["cpu_hours"],
                yaxis="y2",
                offsetgroup=2,
            ),
        ]
    )
    fig.update_layout(
        title="Hours held by runs that did not complete",
        xaxis_title=by,
        yaxis={"title": "GPU-hours"},
        yaxis2={"title": "CPU-hours", "overlaying": "y", "side": "right"},
        barmode="group",
        template="plotly_white",
    )
    return fig
