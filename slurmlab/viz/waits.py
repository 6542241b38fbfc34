"""Distributions of wait times and efficiencies."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from slurmlab.errors import SlurmlabError
from slurmlab.viz._checks import check_choice, check_table, say_empty

__all__ = ["efficiency_figure", "wait_figure"]

#: The analyzer that makes each ratio column efficiency_figure draws.
_MAKERS = {
    name: f"slurmlab.analysis.{name}(jobs)"
    for name in ("cpu_efficiency", "memory_efficiency", "timelimit_accuracy")
}


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

    ``by`` is a column of the table other than its times (``Partition``, ``Account``,
    ``NGPUS``, ``Size``...): another, or a table that is not ``wait_times``', is an error
    naming it.
    """
    who = "wait_figure"
    check_table(waits, ("Wait",), who, "slurmlab.analysis.wait_times(jobs)")
    groups = [
        c
        for c in waits.columns
        if not (
            pd.api.types.is_datetime64_any_dtype(waits[c])
            or pd.api.types.is_timedelta64_dtype(waits[c])
        )
    ]
    check_choice(by, groups, who, "by")
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
    if waits.empty:
        say_empty(fig, "No run has started yet: there is no wait to draw")
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
    above 200% are counted in the last bin (at 200%), and the axis title says so.

    >>> import pandas as pd
    >>> efficiency_figure(pd.DataFrame({"cpu_efficiency": [0.5, 3.0]}), "cpu_efficiency").layout.xaxis.title.text
    'CPU efficiency (TotalCPU / (Elapsed x NCPUS)) (values above 200% counted at 200%)'

    ``column`` is a ratio column of the table; one it lacks, or that holds no numbers, is an
    error naming the analyzer that makes it.
    """
    who = "efficiency_figure"
    maker = _MAKERS.get(
        column, "an efficiency table (slurmlab.analysis.cpu_efficiency(jobs) ...) and its column"
    )
    check_table(table, (column,), who, maker)
    if not pd.api.types.is_numeric_dtype(table[column]) or pd.api.types.is_bool_dtype(
        table[column]
    ):
        ratios = [
            c
            for c in table.columns
            if pd.api.types.is_float_dtype(table[c]) and c.endswith(("_efficiency", "_accuracy"))
        ]
        raise SlurmlabError(
            f"{who}: column={column!r} holds no ratios ({table[column].dtype}); "
            + (f"use {', '.join(map(repr, ratios))}" if ratios else f"pass {maker}")
        )
    known = table[column].dropna()
    values = known.clip(upper=2.0)
    # (plotly's last bin is [1.95, 2.0): the bins run to 2.05 so that 200% has one)
    fig = go.Figure(
        go.Histogram(
            x=values,
            xbins={"start": 0, "end": 2.05, "size": 0.05},
            hovertemplate="%{x}: %{y} runs<extra></extra>",
        )
    )
    title = _TITLES.get(column) or column.replace("_", " ")
    over = bool((known > 2.0).any())
    fig.update_layout(
        title=f"{title[0].upper()}{title[1:]} (runs)",
        xaxis_title=title + (" (values above 200% counted at 200%)" if over else ""),
        xaxis_tickformat=".0%",
        yaxis_title="runs",
        template="plotly_white",
    )
    if known.empty:
        say_empty(fig, f"No run has a {title}: nothing to draw")
    return fig


#: How efficiency_figure names the ratio columns the analyzers make.
_TITLES = {
    "cpu_efficiency": "CPU efficiency (TotalCPU / (Elapsed x NCPUS))",
    "memory_efficiency": "memory efficiency (peak used / requested)",
    "timelimit_accuracy": "time-limit accuracy (Elapsed / Timelimit)",
}
