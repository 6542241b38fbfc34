"""Distributions of wait times and efficiencies."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

__all__ = ["efficiency_figure", "wait_figure"]


def wait_figure(waits: pd.DataFrame, by: str = "Partition") -> go.Figure:
    """Box plots of wait hours per group (``slurmlab.analysis.wait_times``); numeric groups
    (NGPUS, NCPUS) in numeric order. The title says where the waits start (Submit, or
    Eligible for ``wait_times(jobs, since="Eligible")``).

    >>> from slurmlab.analysis import wait_times
    >>> from slurmlab.analysis._common import demo_jobs
    >>> fig = wait_figure(wait_times(demo_jobs()))
    >>> [t.name for t in fig.data], fig.layout.xaxis.title.text
    (['cpu', 'gpu'], 'Partition')
    >>> fig.layout.title.text
    'Wait from submit to start, by Partition'
    """
    fig = go.Figure()
    hours = waits["Wait"].dt.total_seconds() / 3600.0
    keys = waits[by]
    if pd.api.types.is_numeric_dtype(keys) and not pd.api.types.is_bool_dtype(keys):
        order = sorted(pd.unique(keys.dropna()))  # 1, 2, 8, 16: not "1", "16", "2", "8"
        names = [str(k) for k in order] + (["(none)"] if keys.isna().any() else [])
    else:
        names = sorted(pd.unique(keys.astype("string").fillna("(none)")))
    labels = keys.astype("string").fillna("(none)")
    for name in names:
        part = hours[(labels == name).to_numpy()]
        fig.add_trace(go.Box(y=part, name=name, boxpoints=False))
    since = str(waits.attrs.get("since", "Submit")).lower()
    fig.update_layout(
        title=f"Wait from {since} to start, by {by}",
        xaxis_title=by,
        yaxis_title="hours",
        template="plotly_white",
        showlegend=False,
    )
    return fig


def efficiency_figure(table: pd.DataFrame, column: str) -> go.Figure:
    """Histogram of an efficiency ratio (``cpu_efficiency``, ``memory_efficiency`` ...); values
    above 200% are counted in the last bin, and the axis title says so.

    >>> import pandas as pd
    >>> efficiency_figure(pd.DataFrame({"cpu_efficiency": [0.5, 3.0]}), "cpu_efficiency").layout.xaxis.title.text
    'cpu_efficiency (values above 200% shown at 200%)'
    """
    values = table[column].dropna().clip(upper=2.0)
    fig = go.Figure(go.Histogram(x=values, xbins={"start": 0, "end": 2.0, "size": 0.05}))
    title = column.replace("_", " ")
    fig.update_layout(
        title=f"{title[0].upper()}{title[1:]} (runs)",
        xaxis_title=f"{column} (values above 200% shown at 200%)",
        xaxis_tickformat=".0%",
        yaxis_title="runs",
        template="plotly_white",
    )
    return fig
