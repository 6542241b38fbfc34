"""One self-contained HTML report of a job table: the summary in words and the figures.

The file embeds plotly.js, so it opens offline. Every text that comes from the export (job,
user, account and partition names, states) is escaped: in the page with ``html.escape`` and
inside the figures' JSON as ``\\u003c``-style escapes, so a job named ``<script>...`` is shown
as text and runs nothing. A figure the export cannot give (no Start times, no MaxRSS ...) is
never silently left out: a note says which and what to add to the export. What the export
cannot say is left out rather than drawn as 0 (GPU-hours without AllocTRES, CPU efficiency of
an export without steps, usage by account without Account).
"""

from __future__ import annotations

import html
import json
import os
import warnings
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import plotly.offline

from slurmlab import analysis as an
from slurmlab import viz
from slurmlab.analysis._common import (
    check_columns,
    check_jobs,
    counted,
    known,
    run_ends,
    run_starts,
    started,
)
from slurmlab.errors import SlurmlabError
from slurmlab.paths import same_file

__all__ = ["render_report", "write_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #666; font-size: 0.85rem; }
"""


#: the most points of the exact pending-jobs curve a report draws (else it samples)
PENDING_EXACT = 20_000


def _json_for_script(value) -> str:
    """JSON that is safe inside a <script> element (no <, >, & or line separators)."""
    text = value if isinstance(value, str) else json.dumps(value)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def _figure_html(fig: go.Figure, div_id: str) -> str:
    spec = _json_for_script(pio.to_json(fig, validate=False))
    return (
        f'<div id="{div_id}" class="figure"></div>\n'
        f"<script>(function(){{var f = {spec};"
        f'Plotly.newPlot("{div_id}", f.data, f.layout, {{"responsive": true, "displaylogo": false}});}})();</script>'
    )


def _table_html(frame: pd.DataFrame, floats: str = "{:,.1f}") -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for value in record:
            if isinstance(value, float) and value != value:  # NaN: unknown, never 0
                cells.append('<td class="num">unknown</td>')
            elif isinstance(value, float):
                cells.append(f'<td class="num">{html.escape(floats.format(value))}</td>')
            elif isinstance(value, int):
                cells.append(f'<td class="num">{value:,}</td>')
            else:
                cells.append(f"<td>{html.escape('' if pd.isna(value) else str(value))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _check_arguments(jobs, capacity, title, who: str) -> None:
    """Clear errors for a report's arguments of the wrong kind, naming ``who``."""
    check_jobs(jobs, who)
    check_columns(jobs, ("JobID", "State"), who)
    if title is not None and not isinstance(title, str):
        raise SlurmlabError(f"{who}(title={title!r}): the title is text (or None: the file name)")
    if isinstance(capacity, (str, os.PathLike)):
        raise SlurmlabError(
            f"{who}(capacity={str(capacity)!r}): a capacity is a Cluster, not its name or "
            f"path: give capacity=Cluster.preset({str(capacity)!r}) for a preset, or "
            "Cluster.from_slurm_conf(path) for a slurm.conf"
        )
    cluster = hasattr(capacity, "partitions")
    if not (capacity is None or cluster or isinstance(capacity, (pd.DataFrame, Mapping))):
        raise SlurmlabError(
            f"{who}(capacity={capacity!r}): give a Cluster (Cluster.preset(...), "
            "Cluster.from_slurm_conf(...)), a DataFrame with Partition, cpus, gpus and nodes "
            "columns, or {partition: {'cpus': N, 'gpus': N, 'nodes': N}}"
        )


def render_report(
    jobs: pd.DataFrame, *, capacity=None, title: str | None = None, freq: str | None = None
) -> str:
    """The report as one HTML string (see :func:`write_report`)."""
    _check_arguments(jobs, capacity, title, "render_report")
    summary = an.summary(jobs)
    source = str(jobs.attrs.get("source", "job table"))
    title = title or f"Cluster report: {os.path.basename(source)}"
    sections: list[tuple[str, str]] = []
    figures: list[tuple[str, go.Figure]] = []
    notes: list[str] = []

    words = "".join(f"<p>{html.escape(line)}</p>" for line in summary.words().splitlines())
    sections.append(("Summary", words))
    if summary.states:
        figures.append(("States", viz.states_figure(summary.states)))

    ran = started(jobs)
    starts = run_starts(jobs)  # (a row never allocated has no start, whatever its Start says)
    if len(jobs) and not starts.notna().any():
        # no job started: the pending jobs can still be drawn from their Submit times
        pending = not ran.any() and "Submit" in jobs and jobs["Submit"].notna().any()
        notes.append(
            (
                "Utilization and wait times are not shown: "
                if pending
                else "Utilization, pending jobs and wait times are not shown: "
            )
            + (
                "the export has no Start times (add Submit,Start,End to sacct -o)."
                if ran.any()
                else "no job in the export started."
            )
        )
        if pending:
            figures.append(("Pending jobs", viz.pending_figure(an.pending_over_time(jobs))))
    if len(jobs) and starts.notna().any():
        ends = run_ends(jobs)  # (Start + Elapsed)
        span = ends.max() - starts.min() if ends.notna().any() else pd.Timedelta(days=1)
        freq = freq or (
            "1h"
            if span <= pd.Timedelta(days=3)
            else "1D"
            if span <= pd.Timedelta(days=120)
            else "7D"
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            util = an.utilization(jobs, capacity=capacity, freq=freq)
        if any("no capacity given" in str(w.message) for w in caught):
            notes.append(
                "Capacity was inferred from the peak allocation in the export; give the real "
                "capacity (capacity= in Python; --cluster or --capacity on the command line)."
            )
        for warning in caught:  # the capacity does not fit the export: say so in the page
            if "no capacity given" not in str(warning.message):
                notes.append(_both_ways(str(warning.message)))
                warnings.warn(warning.message, UserWarning, stacklevel=2)
        resource = "gpus" if jobs["NGPUS"].fillna(0).sum() > 0 else "cpus"
        figures.append(("Utilization", viz.utilization_figure(util, resource=resource)))
        # exact: a step at every change of the count (samples would miss short waits), up
        # to PENDING_EXACT changes; a bigger export is sampled at freq (the page stays small)
        # (without Submit times waits and pending are unknown: the analyzers say so, a note here)
        submitted = known(jobs, "Submit")
        if submitted or known(jobs, "Eligible"):
            pending = an.pending_over_time(jobs)
            if len(pending) > PENDING_EXACT:
                pending = an.pending_over_time(jobs, freq=freq)
            figures.append(("Pending jobs", viz.pending_figure(pending)))
        waits = an.wait_times(jobs) if submitted else None
        if waits is not None and len(waits):
            figures.append(("Wait times", viz.wait_figure(waits, by="Partition")))
            sections.append(
                (
                    "Waits by partition (from submit to start)",
                    _table_html(an.wait_stats(jobs, by="Partition"), "{:,.2f}"),
                )
            )
            if known(jobs, "Eligible"):
                with warnings.catch_warnings():  # (waits below 0: warned about above)
                    warnings.simplefilter("ignore")
                    eligible = an.wait_stats(jobs, by="Partition", since="Eligible")
                sections.append(
                    (
                        "Waits by partition (from eligible to start: time held, on "
                        "dependencies or --begin left out)",
                        _table_html(eligible, "{:,.2f}"),
                    )
                )
        else:
            notes.append(
                (
                    "Wait times are not shown"
                    if submitted or known(jobs, "Eligible")
                    else "Wait times and pending jobs are not shown"
                )
                + ": no run has both a Submit and a Start time (add Submit to sacct -o)."
            )

    # an export without Account: usage by user (one "(none)" bar would say nothing)
    by = next((c for c in ("Account", "User") if known(jobs, c)), None)
    with warnings.catch_warnings():  # unknown hours, no Account: the summary and a note say so
        warnings.filterwarnings("ignore", message=r".*are unknown, NaN not 0")
        warnings.filterwarnings("ignore", message=r".*: no (Account|User) in the export")
        use = an.usage(jobs, by=by or "Account")
    if len(use) and summary.gpu_hours is None and summary.cpu_hours is None:
        notes.append(
            "Usage, top users, failure hours and the biggest runs are not shown: "
            + "; ".join(f"{k} are unknown ({why})" for k, why in summary.unknown_hours.items())
            + "."
        )
    elif len(use):
        resource = "gpu_hours" if use["gpu_hours"].sum() > 0 else "cpu_hours"
        if summary.cpu_hours is None:
            resource = "gpu_hours"
        if by is None:
            notes.append(
                "Usage by account and top users are not shown: the export has no Account and "
                "no User (add them to sacct -o)."
            )
        else:
            if by == "User":
                notes.append(
                    "Usage is shown by user: the export has no Account (add it to sacct -o)."
                )
            figures.append(
                (f"Usage by {by.lower()}", viz.usage_figure(use, by=by, resource=resource))
            )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*are unknown, NaN not 0")
            warnings.filterwarnings("ignore", message=r".*: no User in the export")  # (a note)
            top = an.top_consumers(jobs, by="User", resource=resource, n=10)
            cost = an.failure_cost(jobs)
            biggest = an.biggest_runs(jobs, resource=resource, n=10)
        if known(jobs, "User"):
            shown = ["User", "runs", "jobs", "cpu_hours", "gpu_hours", "share"]
            sections.append(("Top users", _table_html(top[shown], "{:,.2f}")))
        elif known(jobs, "Account"):
            notes.append("Top users are not shown: the export has no User (add it to sacct -o).")
        if len(cost):
            figures.append(("Failures", viz.failure_figure(cost)))
            sections.append(("Hours of runs that did not complete", _table_html(cost)))
        if len(biggest):
            shown = ["JobID", "JobName", "User", "Account", "Partition", "State"]
            shown = [c for c in shown if c in biggest] + ["cpu_hours", "gpu_hours"]
            sections.append(("Biggest runs", _table_html(biggest[shown])))

    eff, unknown_cpu = None, []
    if "TotalCPU" in jobs:  # (TotalCPU unknown without steps: a note, not a figure of zeros)
        eff, unknown_cpu = _own_warnings(an.cpu_efficiency, jobs)
    if eff is not None and eff["cpu_efficiency"].notna().any():
        figures.append(("CPU efficiency", viz.efficiency_figure(eff, "cpu_efficiency")))
        notes += [f"CPU efficiency: {_after_colon(w.message)}" for w in unknown_cpu]
    elif len(jobs):
        notes.append(
            "CPU efficiency is not shown: "
            + (
                "the export has no TotalCPU (add TotalCPU to sacct -o)."
                if eff is None
                else _after_colon(unknown_cpu[0].message)
                if unknown_cpu
                else "no run has both a TotalCPU and an Elapsed above 0."
            )
        )
    mem, unknown_mem = None, []
    if "MemUsed" in jobs or "MaxRSS" in jobs:
        mem, unknown_mem = _own_warnings(an.memory_efficiency, jobs)
    if mem is not None and mem["memory_efficiency"].notna().any():
        figures.append(("Memory efficiency", viz.efficiency_figure(mem, "memory_efficiency")))
        notes += [f"Memory efficiency: {_after_colon(w.message)}" for w in unknown_mem]
    elif len(jobs):
        notes.append(
            "Memory efficiency is not shown: "
            + (
                "the export has no MaxRSS (add MaxRSS,ReqMem to sacct -o and keep the step "
                "rows, that is no -X: allocation rows leave MaxRSS blank)."
                if mem is None
                else _after_colon(unknown_mem[0].message)
                if unknown_mem
                else "no run that started has both a MaxRSS (from its steps) and a ReqMem."
            )
        )

    body = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="note">Source: {html.escape(source)}; {counted(summary.runs, "run")}, '
        f"{counted(summary.bad_rows, 'bad row')}.</p>",
    ]
    body += [f'<p class="note">{html.escape(n)}</p>' for n in notes]
    for heading, content in sections:
        body.append(f"<h2>{html.escape(heading)}</h2>\n{content}")
    for i, (heading, fig) in enumerate(figures):
        body.append(f"<h2>{html.escape(heading)}</h2>\n{_figure_html(fig, f'fig{i}')}")
    plotly_js = plotly.offline.get_plotlyjs()
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
        f'<script type="text/javascript">{plotly_js}</script></head>\n<body>\n'
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _after_colon(message) -> str:
    """A warning's text without the analyzer's name in front (``cpu_efficiency: ...``)."""
    return str(message).split(": ", 1)[-1]


def _both_ways(message: str) -> str:
    """A warning of the Python API as the page says it: for Python and the command line."""
    return message.replace(
        "capacity=Cluster.from_slurm_conf(<its slurm.conf>) or a {partition: {...}} mapping",
        "the cluster's slurm.conf or a {partition: {...}} mapping (capacity= in Python; "
        "--cluster or --capacity on the command line)",
    )


def write_report(
    jobs: pd.DataFrame, path: str | os.PathLike, *, capacity=None, title: str | None = None
) -> Path:
    """Write the report of ``jobs`` to ``path`` (one HTML file that works offline).

    ``capacity`` (a ``Cluster`` or a table, see ``slurmlab.analysis.utilization``) gives the
    utilization its denominator; without it the peak of the export is used.
    """
    if isinstance(path, pd.DataFrame) and isinstance(jobs, (str, os.PathLike)):
        raise SlurmlabError(
            f"write_report({str(jobs)!r}, <DataFrame>): the job table comes first, then the "
            f"path: write_report(jobs, {str(jobs)!r})"
        )
    _check_arguments(jobs, capacity, title, "write_report")
    if not isinstance(path, (str, os.PathLike)):
        raise SlurmlabError(
            f"write_report: the path is a {type(path).__name__}, not a file name; give "
            "one, e.g. write_report(jobs, 'report.html')"
        )
    path = Path(path)
    source = jobs.attrs.get("source")
    read_from = isinstance(source, str) and os.path.isfile(source)
    if read_from and same_file(path, source):  # (the export: never replaced by a page)
        raise SlurmlabError(
            f"write_report: {str(path)!r} is the export the job table was read from; writing "
            "the report there would destroy the export: give another path, e.g. 'report.html'"
        )
    path.write_text(render_report(jobs, capacity=capacity, title=title), encoding="utf-8")
    return path


def _own_warnings(analyzer, jobs: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """``analyzer(jobs)`` and the warnings it gave about itself (``name: ...``: they become
    the report's notes); its other warnings are passed on to the caller as they came."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = analyzer(jobs)
    own = []
    for warning in caught:
        if str(warning.message).startswith(f"{analyzer.__name__}: "):
            own.append(warning)
        else:
            warnings.warn(warning.message, warning.category, stacklevel=3)
    return result, own
