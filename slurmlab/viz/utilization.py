"""Line charts of allocation over time: utilization against capacity, and the pending queue."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

__all__ = ["pending_figure", "utilization_figure"]


def utilization_figure(util: pd.DataFrame, resource: str = "gpus") -> go.Figure:
    """Utilization per group over time (``slurmlab.analysis.utilization``), one line a group.

    A group with a capacity is drawn as a share of it (percent axis); a group without one
    (no capacity given for it) as allocated counts, on a second axis on the right (on the
    only axis when no group has a capacity): never a count on a percent axis.

    >>> import warnings
    >>> from slurmlab.analysis import utilization
    >>> from slurmlab.analysis._common import demo_jobs
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fig = utilization_figure(utilization(demo_jobs()))
    >>> len(fig.data)
    2
    """
    group = util.columns[1]
    rows = util[util["resource"] == resource]
    parts = list(rows.groupby(group, sort=True))
    has_cap = {name: bool(part["capacity"].notna().any()) for name, part in parts}
    shares = any(has_cap.values())
    fig = go.Figure()
    for name, part in parts:
        if has_cap[name]:
            y, label, axis = part["utilization"], str(name), "y"
        else:
            y, label = part["used"], f"{name} (allocated; no capacity given)"
            axis = "y2" if shares else "y"
        fig.add_trace(
            go.Scatter(x=part["time"], y=y, mode="lines", name=label, line_shape="hv", yaxis=axis)
        )
    if shares:
        fig.update_layout(
            title=f"Allocated {resource} / capacity",
            yaxis_title="utilization",
            yaxis_tickformat=".0%",
        )
        if not all(has_cap.values()):
            fig.update_layout(
                yaxis2={"title": f"allocated {resource}", "overlaying": "y", "side": "right"}
            )
    else:
        fig.update_layout(title=f"Allocated {resource}", yaxis_title=f"allocated {resource}")
    fig.update_layout(template="plotly_white")
    return fig


def pending_figure(pending: pd.DataFrame) -> go.Figure:
    """Pending jobs over time (``slurmlab.analysis.pending_over_time``)."""
    fig = go.Figure()
    group = [c for c in pending.columns if c not in ("time", "pending")]
    parts = pending.groupby(group[0], sort=True) if group else [("all", pending)]
    for name, part in parts:
        fig.add_trace(
            go.Scatter(
                x=part["time"], y=part["pending"], mode="lines", name=str(name), line_shape="hv"
            )
        )
    fig.update_layout(title="Pending jobs", yaxis_title="jobs waiting", template="plotly_white")
    return fig
