"""Bar charts of who used what, which states jobs ended in, and what failures cost."""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral

import pandas as pd
import plotly.graph_objects as go

from slurmlab.errors import SlurmlabError
from slurmlab.viz._checks import check_choice, check_table, say_empty

__all__ = ["failure_figure", "states_figure", "usage_figure"]

_LABELS = {"gpu_hours": "GPU-hours", "cpu_hours": "CPU-hours", "node_hours": "node-hours"}
#: Columns of the analyzers' tables that are numbers, not groups.
_NUMBERS = ("runs", "jobs", *_LABELS, "share", "target", "ratio", "period")


def usage_figure(
    usage: pd.DataFrame, by: str = "Account", resource: str = "gpu_hours", top: int = 15
) -> go.Figure:
    """Horizontal bars of a usage table (``slurmlab.analysis.usage``), biggest first.

    >>> from slurmlab.analysis import usage
    >>> from slurmlab.analysis._common import demo_jobs
    >>> usage_figure(usage(demo_jobs())).data[0].type
    'bar'

    ``by`` is a grouping column of the table, ``resource`` one of its hours columns
    (``gpu_hours``, ``cpu_hours``, ``node_hours``) and ``top`` a whole number of at least 1:
    anything else is an error naming the value and what the table allows.
    """
    who = "usage_figure"
    maker = "slurmlab.analysis.usage(jobs, by=...)"
    if isinstance(usage, pd.DataFrame) and not any(c in usage for c in _LABELS):
        check_table(usage, (resource,), who, maker)
    check_table(usage, (), who, maker)
    check_choice(resource, [c for c in _LABELS if c in usage], who, "resource")
    groups = [c for c in usage.columns if c not in _NUMBERS]
    check_choice(by, groups, who, "by", f" (the columns {maker} grouped the table by)")
    if not isinstance(top, Integral) or isinstance(top, bool) or top < 1:
        raise SlurmlabError(f"{who}: top={top!r}: give a whole number of at least 1 (bars)")
    table = usage.groupby(by, as_index=False)[resource].sum()
    table = table.sort_values(resource, ascending=True).tail(top)
    label = _LABELS.get(resource, resource.replace("_", " "))
    fig = go.Figure(
        go.Bar(
            x=table[resource], y=table[by].astype(str), orientation="h",
            hovertemplate=f"%{{y}}: %{{x:.3g}} {label}<extra></extra>",
        )
    )  # fmt: skip
    if table.empty:
        say_empty(fig, f"No run held any {label}: nothing to draw")
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
    if not isinstance(states, Mapping):
        raise SlurmlabError(
            f"states_figure: states is a {type(states).__name__}, not a {{state: jobs}} "
            "mapping; pass slurmlab.analysis.summary(jobs).states"
        )
    names = list(states)
    fig = go.Figure(go.Bar(x=names, y=[states[n] for n in names]))
    if not names:
        say_empty(fig, "No job has ended yet: no final state to draw")
    fig.update_layout(
        title="Final state of each job",
        xaxis_title="state",
        yaxis_title="jobs",
        template="plotly_white",
    )
    return fig


def failure_figure(cost: pd.DataFrame, by: str = "State") -> go.Figure:
    """GPU- and CPU-hours of runs that did not complete (``slurmlab.analysis.failure_cost``)."""
    who, maker = "failure_figure", "slurmlab.analysis.failure_cost(jobs, by=...)"
    check_table(cost, ("gpu_hours", "cpu_hours"), who, maker)
    groups = [c for c in cost.columns if c not in _NUMBERS]
    check_choice(by, groups, who, "by", f" (the column {maker} grouped the table by)")
    fig = go.Figure(
        [
            # bars on two y axes are grouped side by side only with an offsetgroup each
            go.Bar(
                name="GPU-hours",
                x=cost[by].astype(str),
                y=cost["gpu_hours"],
                offsetgroup=1,
                hovertemplate="%{x}: %{y:.3g} GPU-hours<extra></extra>",
            ),
            go.Bar(
                name="CPU-hours",
                x=cost[by].astype(str),
                y=cost["cpu_hours"],
                yaxis="y2",
                offsetgroup=2,
                hovertemplate="%{x}: %{y:.3g} CPU-hours<extra></extra>",
            ),
        ]
    )
    if cost.empty:
        say_empty(fig, "No run failed: nothing to draw")
    fig.update_layout(
        title="Hours held by runs that did not complete",
        xaxis_title=by,
        yaxis={"title": "GPU-hours"},
        yaxis2={"title": "CPU-hours", "overlaying": "y", "side": "right"},
        barmode="group",
        template="plotly_white",
    )
    return fig
