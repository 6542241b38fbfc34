"""Line charts of allocation over time: utilization against capacity, and the pending queue."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from slurmlab.errors import SlurmlabError
from slurmlab.viz._checks import check_choice, check_table, lines_mode, say_empty

__all__ = ["pending_figure", "utilization_figure"]

#: The columns of ``slurmlab.analysis.utilization`` other than its grouping column.
_UTILIZATION_COLUMNS = ("time", "covered", "resource", "used", "capacity", "utilization")

#: How a resource is named in titles (TRES names as Slurm writes them, units in capitals).
_NAMES = {"gpus": "GPUs", "cpus": "CPUs", "nodes": "nodes"}


def _group_column(table: pd.DataFrame, known: tuple[str, ...], who: str) -> str | None:
    """The table's grouping column (Partition, Account ... as ``by=`` made it): the one
    column that is not one of ``known``; None when there is none."""
    extra = [c for c in table.columns if c not in known]
    if len(extra) > 1:
        raise SlurmlabError(
            f"{who}: the table has several columns it could be grouped by ({extra}); name "
            f"one with by=, e.g. by={extra[0]!r}"
        )
    return extra[0] if extra else None


def utilization_figure(
    util: pd.DataFrame, resource: str = "gpus", by: str | None = None
) -> go.Figure:
    """Utilization per group over time (``slurmlab.analysis.utilization``), one line a group.

    ``by`` is the grouping column (``Partition``, or ``group`` for the whole cluster); by
    default the one column of the table that is not a utilization column. ``resource`` is
    ``"cpus"``, ``"gpus"`` or ``"nodes"``; another value, a ``by`` the table lacks, or a table
    that is not ``utilization``'s (the job table itself) is an error naming it. A group with a
    capacity is drawn as a share of it (percent axis); a group without one (no capacity
    given for it) as allocated counts, on a second axis on the right (on the only axis when
    no group has a capacity): never a count on a percent axis. When partitions share nodes
    (``attrs["shared_partitions"]``) the title says each line counts only its own jobs. A
    group with none of the resource that used none (a CPU partition's GPUs) gets no line.

    >>> import warnings
    >>> from slurmlab.analysis import utilization
    >>> from slurmlab.analysis._common import demo_jobs
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fig = utilization_figure(utilization(demo_jobs()))
    >>> [t.name for t in fig.data]  # (the cpu partition has no GPUs: no line)
    ['gpu']
    >>> [list(t.x) == sorted(t.x) for t in fig.data]
    [True]
    >>> fig.layout.title.text, fig.layout.xaxis.title.text
    ('Allocated GPUs / capacity', 'time')
    """
    who = "utilization_figure"
    drawn = ("time", "resource", "used", "capacity", "utilization")
    check_table(util, drawn, who, "slurmlab.analysis.utilization(jobs, ...)")
    check_choice(resource, ("cpus", "gpus", "nodes"), who, "resource")
    if by is not None:
        groups = [c for c in util.columns if c not in _UTILIZATION_COLUMNS]
        check_choice(by, groups, who, "by", " (the table's grouping column)")
    group = by or _group_column(util, _UTILIZATION_COLUMNS, who)
    if group is None or group not in util:
        raise SlurmlabError(
            f"utilization_figure: the table has no grouping column {group!r} "
            f"(columns {list(util.columns)}); pass the table slurmlab.analysis.utilization "
            "made, and by= its grouping column"
        )
    name = _NAMES.get(resource, resource)
    rows = util[util["resource"] == resource].sort_values([group, "time"], kind="stable")
    parts = list(rows.groupby(group, sort=True))
    # a group that has none of the resource and used none (the cpu partition's GPUs) has no
    # line to draw: its utilization is 0 / 0 at every point
    none = [k for k, p in parts if (p["capacity"] == 0).all() and (p["used"].fillna(0) == 0).all()]
    parts = [(key, part) for key, part in parts if key not in none] or parts
    has_cap = {key: bool(part["capacity"].notna().any()) for key, part in parts}
    shares = any(has_cap.values())
    fig = go.Figure()
    for key, part in parts:
        if has_cap[key]:
            y, label, axis = part["utilization"], str(key), "y"
        else:
            y, label = part["used"], f"{key} (allocated; no capacity given)"
            axis = "y2" if shares else "y"
        fig.add_trace(
            go.Scatter(
                x=part["time"],
                y=y,
                mode=lines_mode(len(part)),
                name=label,
                line_shape="hv",
                yaxis=axis,
                hovertemplate="%{x}: %{y:.1%}<extra>%{fullData.name}</extra>"
                if has_cap[key]
                else f"%{{x}}: %{{y:.3g}} {name}<extra>%{{fullData.name}}</extra>",
            )  # fmt: skip
        )
    if not parts or rows.empty:
        say_empty(fig, "No run has started yet: nothing was allocated")
    title = f"Allocated {name} / capacity" if shares else f"Allocated {name}"
    shared = util.attrs.get("shared_partitions")
    if shared:
        title += (
            f"<br><sup>partitions {', '.join(shared)} share nodes: each line counts only its "
            "own partition's jobs</sup>"
        )
    fig.update_layout(title=title, xaxis_title="time")
    if shares:
        fig.update_layout(yaxis_title="utilization", yaxis_tickformat=".0%")
        if not all(has_cap.values()):
            fig.update_layout(
                yaxis2={"title": f"allocated {name}", "overlaying": "y", "side": "right"}
            )
    else:
        fig.update_layout(yaxis_title=f"allocated {name}")
    fig.update_layout(template="plotly_white")
    return fig


def pending_figure(pending: pd.DataFrame) -> go.Figure:
    """Pending jobs over time (``slurmlab.analysis.pending_over_time``), one line a group.

    The exact table (``freq=None``, the default) is drawn as the step function it is; a
    sampled one (``attrs["freq"]``) as its samples, points joined by thin lines, and the
    title says how often: between samples jobs may have come and gone.

    >>> from slurmlab.analysis import pending_over_time
    >>> from slurmlab.analysis._common import demo_jobs
    >>> fig = pending_figure(pending_over_time(demo_jobs()))
    >>> [(t.name, t.line.shape) for t in fig.data]
    [('cpu', 'hv'), ('gpu', 'hv')]
    >>> pending_figure(pending_over_time(demo_jobs(), freq="1h")).layout.title.text
    'Pending jobs (sampled every 1h)'
    """
    check_table(
        pending, ("time", "pending"), "pending_figure", "slurmlab.analysis.pending_over_time(jobs)"
    )
    freq = pending.attrs.get("freq")
    group = _group_column(pending, ("time", "pending"), "pending_figure")
    parts = pending.groupby(group, sort=True) if group else [("all", pending)]
    fig = go.Figure()
    for key, part in parts:
        part = part.sort_values("time", kind="stable")
        if freq:
            trace = go.Scatter(
                x=part["time"], y=part["pending"], mode="lines+markers", name=str(key),
                line={"width": 1},
            )  # fmt: skip
        else:
            trace = go.Scatter(
                x=part["time"], y=part["pending"], mode=lines_mode(len(part)), name=str(key),
                line_shape="hv",
            )  # fmt: skip
        fig.add_trace(trace)
    if pending.empty:
        say_empty(fig, "No job was pending: nothing to draw")
    fig.update_layout(
        title="Pending jobs" + (f" (sampled every {freq})" if freq else ""),
        xaxis_title="time",
        yaxis_title="jobs waiting",
        template="plotly_white",
    )
    return fig
