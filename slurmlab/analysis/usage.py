"""Who used what: CPU-, GPU- and node-hours per account, user, partition or QOS.

Every run counts, including the earlier runs of requeued jobs that ``sacct --duplicates``
shows: hours are allocated resources x Elapsed, whatever the job did with them. A table
without them (``sacct`` without ``-D``, a simulation's ``result.jobs``) shows a requeued
job by its last run only (Restarts > 0): its earlier runs' hours are left out, with a
warning naming the jobs and the fix (``sacct -D``; ``result.jobs_all_runs``, on which the
hours are a simulation's ``metrics``). ``runs``
counts the runs that started; ``jobs`` counts the jobs among them (a JobID once, however
many times it was requeued; a het job's components once), so ``jobs <= runs``. A job that
never started used nothing and counts in neither (``summary`` counts every job). A run
started if it has a Start, unless it never got an allocation (no node and Elapsed 0, as older
Slurm records a job cancelled while pending); in an export without Start times, if it has an
Elapsed above 0 or a state only a started run has. Hours the export cannot give (GPU-hours without
AllocTRES, CPU-hours without NCPUS ...) are NaN, never 0, with a warning naming the field;
so is a grouping column the export lacks (every run in one group "(none)").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    by_columns,
    check_by,
    check_choice,
    check_columns,
    check_count,
    check_jobs,
    count,
    hours,
    job_keys,
    leads,
    period_code,
    require_start,
    run_starts,
    started,
    unknown_hours,
    warn_blank_by,
    warn_missing_runs,
    warn_unknown_hours,
)
from slurmlab.errors import SlurmlabError, warn_at_caller

__all__ = ["biggest_runs", "gpu_hours", "share_vs_target", "top_consumers", "usage"]


_HOURS = ("cpu_hours", "gpu_hours", "node_hours")


def _with_hours(
    jobs: pd.DataFrame,
    by: Sequence[str] = (),
    who: str = "usage",
    about: Sequence[str] = _HOURS,
) -> pd.DataFrame:
    """Hours per row, ``runs`` (1 for a run that started, counted on a het job's leader
    only) and ``jobs`` (1 for the first run of a job, in Start order, within its group of
    ``by``). Hours the table cannot give are NaN, with a warning for those in ``about``."""
    check_columns(jobs, ("Elapsed", "NCPUS", "NGPUS", "NNodes"), who)
    unknown = unknown_hours(jobs)
    warn_unknown_hours({k: v for k, v in unknown.items() if k in about}, who)
    warn_missing_runs(jobs, who)
    h = hours(jobs["Elapsed"])
    ran = started(jobs)
    first = ran.copy()
    if "JobID" in jobs:  # else every run is its own job
        keys = pd.DataFrame({f"k{i}": _key(jobs[c]).to_numpy() for i, c in enumerate(by)})
        keys["JobID"] = job_keys(jobs).to_numpy()
        order = (
            np.argsort(jobs["Start"].to_numpy(), kind="stable")
            if "Start" in jobs
            else np.arange(len(jobs))
        )
        order = order[ran[order]]
        first[order] = ~keys.iloc[order].duplicated(keep="first").to_numpy()
    amounts = {"cpu_hours": "NCPUS", "gpu_hours": "NGPUS", "node_hours": "NNodes"}
    return jobs.assign(
        runs=(ran & leads(jobs)).astype("int64"),
        jobs=first.astype("int64"),
        **{
            kind: np.full(len(jobs), np.nan) if kind in unknown else h * count(jobs[column])
            for kind, column in amounts.items()
        },
    )


def _key(column: pd.Series) -> pd.Series:
    return column.astype("string").fillna("(none)")


def usage(
    jobs: pd.DataFrame,
    by: str | Sequence[str] = "Account",
    period: str | None = None,
) -> pd.DataFrame:
    """CPU-, GPU- and node-hours grouped by columns, optionally per period.

    ``runs`` counts the runs that started (each run of a requeued job), ``jobs`` the jobs
    among them (each JobID once, an array task being its own job), both int64; a job that
    never started counts in neither. ``period`` is a calendar period (``"D"``, ``"W"``,
    ``"MS"`` or ``"M"`` for months, ``"QS"`` or ``"Q"``, ``"YS"`` or ``"Y"``; see
    :func:`~slurmlab.analysis._common.period_code`), and the ``period`` column its start: a
    run's hours are split across the periods it ran in, in proportion to its time in each;
    a run counts in the period it started, a job in the period its first run started.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> usage(demo_jobs(), by="Account")[["Account", "gpu_hours", "cpu_hours"]]
      Account  gpu_hours  cpu_hours
    0     nlp        2.0        8.0
    1  vision        8.0       33.0
    """
    check_jobs(jobs, "usage")
    return _usage(jobs, by, period)


def _usage(
    jobs: pd.DataFrame,
    by: str | Sequence[str],
    period: str | None = None,
    who: str = "usage",
    about: Sequence[str] = _HOURS,
) -> pd.DataFrame:
    by = by_columns(by, who, example="Account")
    check_by(jobs, by, who, name_by=False)
    if period is not None:
        check_columns(jobs, ("Start",), who)
        period = period_code(period, who)
        require_start(jobs, f"{who} per period")
    frame = _with_hours(jobs, by, who, about)
    warn_blank_by(jobs, by, who)
    cols = ["runs", "jobs", "cpu_hours", "gpu_hours", "node_hours"]
    if period is not None:
        frame = _split_by_period(frame, period)
    keys = [_key(frame[c]) for c in by]
    if period is not None:
        keys.append(frame["period"])
    # (min_count: the hours of a group are NaN when they are unknown, not a sum of nothing)
    out = frame[cols].groupby(keys, dropna=period is None, observed=True).sum(min_count=1)
    out[["runs", "jobs"]] = out[["runs", "jobs"]].astype("int64")
    return out.reset_index()


def _split_by_period(frame: pd.DataFrame, period: str) -> pd.DataFrame:
    """One row per (run, period it ran in), hours scaled by the share of the run's time there."""
    started = frame[run_starts(frame).notna().to_numpy()]
    start = started["Start"]
    end = start + started["Elapsed"].fillna(pd.Timedelta(0))
    first = start.dt.to_period(period)
    last = (end - pd.Timedelta(1, "ns")).where(end > start, start).dt.to_period(period)
    spans = (last - first).map(lambda d: d.n).to_numpy() + 1
    rows = started.loc[started.index.repeat(spans)].copy()
    offset = np.concatenate([np.arange(k) for k in spans]) if len(spans) else np.array([], int)
    periods = first.repeat(spans).to_numpy() + offset
    p_start = pd.PeriodIndex(periods).start_time
    p_end = pd.PeriodIndex(periods).end_time + pd.Timedelta(1, "ns")
    run_start = start.repeat(spans).to_numpy()
    run_end = end.repeat(spans).to_numpy()
    inside = np.minimum(run_end, p_end.to_numpy()) - np.maximum(run_start, p_start.to_numpy())
    total = (run_end - run_start).astype("int64")
    share = np.where(total > 0, inside.astype("int64") / np.where(total > 0, total, 1), 1.0)
    for col in ("cpu_hours", "gpu_hours", "node_hours"):
        rows[col] = rows[col].to_numpy() * share
    first_piece = offset == 0
    rows["runs"] = np.where(first_piece, rows["runs"].to_numpy(), 0)
    rows["jobs"] = np.where(first_piece, rows["jobs"].to_numpy(), 0)
    rows["period"] = p_start
    return rows


def gpu_hours(jobs: pd.DataFrame, by: str | Sequence[str] | None = None) -> float | pd.Series:
    """Allocated GPU-hours: a total, or a Series per group of ``by``.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> gpu_hours(demo_jobs())
    10.0
    >>> gpu_hours(demo_jobs(), by="User").to_dict()
    {'ann': 8.0, 'bob': 2.0}

    An export without AllocTRES cannot say: NaN (never 0), with a warning naming the field.
    """
    check_jobs(jobs, "gpu_hours")
    by = by_columns(by, "gpu_hours", none="the total")
    if by is None:
        frame = _with_hours(jobs, who="gpu_hours", about=("gpu_hours",))
        return float(frame["gpu_hours"].sum(min_count=int(len(frame) > 0)))
    return _usage(jobs, by, who="gpu_hours", about=("gpu_hours",)).set_index(by)["gpu_hours"]


def top_consumers(
    jobs: pd.DataFrame, by: str = "User", resource: str = "gpu_hours", n: int = 10
) -> pd.DataFrame:
    """The ``n`` biggest users (or accounts ...) of a resource, with their share of it.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> top_consumers(demo_jobs(), by="User")[["User", "gpu_hours", "share"]]
      User  gpu_hours  share
    0  ann        8.0    0.8
    1  bob        2.0    0.2
    """
    check_jobs(jobs, "top_consumers")
    check_choice(resource, _HOURS, "top_consumers", "resource")
    n = check_count(n, "top_consumers")
    table = _usage(jobs, by, who="top_consumers", about=(resource,))
    total = table[resource].sum(min_count=1)  # NaN when unknown: so is every share
    table["share"] = table[resource] / total if total != 0 else 0.0
    return (
        table.sort_values(resource, ascending=False, kind="stable").head(n).reset_index(drop=True)
    )


def biggest_runs(jobs: pd.DataFrame, resource: str = "gpu_hours", n: int = 10) -> pd.DataFrame:
    """The ``n`` runs that used the most of a resource, biggest first, with their hours.

    Only runs that started and used some of it are listed: a job that never started (or ran
    for 0 s) is not one of the biggest, however few runs the table has. Each run of a
    requeued job is its own row, as ``usage`` counts it. Hours the export cannot give (GPU-
    hours without AllocTRES) rank nothing: the table is empty, with a warning naming the field.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> biggest_runs(demo_jobs())[["JobID", "State", "gpu_hours"]]
      JobID      State  gpu_hours
    0   100  COMPLETED        8.0
    1   101    TIMEOUT        2.0
    """
    check_jobs(jobs, "biggest_runs")
    check_choice(resource, _HOURS, "biggest_runs", "resource")
    n = check_count(n, "biggest_runs")
    # hours that are unknown rank nothing: none listed
    frame = _with_hours(jobs, who="biggest_runs", about=(resource,))
    frame = frame[started(jobs) & (frame[resource] > 0).to_numpy()]
    frame = frame.drop(columns=["runs", "jobs"])
    return (
        frame.sort_values(resource, ascending=False, kind="stable").head(n).reset_index(drop=True)
    )


def share_vs_target(
    jobs: pd.DataFrame,
    shares: Mapping[str, float],
    by: str = "Account",
    resource: str = "gpu_hours",
) -> pd.DataFrame:
    """Each group's share of the usage next to its fair-share target (shares normalised).

    ``ratio`` above 1 means the group used more than its share (its fair-share factor falls).
    ``shares`` maps each group to its share, a number of at least 0 (a dict or a Series;
    for ``Account`` objects give ``{a.name: a.shares for a in accounts}``); ``by`` is one
    column. A group of ``shares`` with no run in the export is listed with usage 0, with a
    warning naming it and groups the export has (a misspelt or anonymized name looks so).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> share_vs_target(demo_jobs(), {"vision": 1, "nlp": 1})[["Account", "share", "target", "ratio"]]
      Account  share  target  ratio
    0  vision    0.8     0.5    1.6
    1     nlp    0.2     0.5    0.4
    """
    check_jobs(jobs, "share_vs_target")
    shares = _shares(shares)
    (by,) = by_columns(by, "share_vs_target", many=False, example="Account")
    check_choice(resource, _HOURS, "share_vs_target", "resource")
    table = _usage(jobs, by, who="share_vs_target", about=(resource,)).set_index(by)[resource]
    total_target = float(sum(shares.values()))
    names = list(dict.fromkeys([*shares, *table.index]))
    known = table.notna().any()  # (hours the export cannot give stay unknown: NaN shares)
    if known:  # (else every usage is unknown, as warned: none is 0)
        _warn_absent(shares, table.index, by)
    used = table.reindex(names, fill_value=0.0 if known else np.nan)
    out = pd.DataFrame({by: names, resource: used.to_numpy()})
    total = out[resource].sum(min_count=1)
    out["share"] = out[resource] / total if total != 0 else 0.0
    out["target"] = [shares.get(name, 0.0) / total_target for name in names]
    out["ratio"] = out["share"] / out["target"].where(out["target"] > 0)
    return out


def _warn_absent(shares: Mapping[str, float], used: pd.Index, by: str) -> None:
    """One warning naming the groups of ``shares`` that have no run in the export (usage 0),
    and a few the export has."""
    absent = [name for name in shares if name not in used]
    if not absent:
        return
    have = [str(name) for name in used]
    shown = ", ".join(map(repr, absent[:5])) + (" ..." if len(absent) > 5 else "")
    others = ", ".join(map(repr, have[:5])) + (" ..." if len(have) > 5 else "")
    warn_at_caller(
        f"share_vs_target: no job in the export has {by} {shown} (in shares), so "
        + ("its" if len(absent) == 1 else "their")
        + " usage is 0; "
        + (
            f"the export's {by} values: {others} (check the spelling, and that the export "
            "covers those groups and is not anonymized)"
            if have
            else f"the export has no other {by}"
        )
    )


_SHARES_FORM = "give {group: share}, e.g. {'vision': 2, 'nlp': 1} (a dict or a Series)"


def _shares(shares) -> dict[str, float]:
    """``shares`` as {group: share}: a mapping or a Series of numbers of at least 0, at
    least one above 0; anything else is an error naming the value and the form."""
    if isinstance(shares, pd.Series):
        shares = shares.to_dict()
    if not isinstance(shares, Mapping):
        kind = type(shares).__name__
        accounts = isinstance(shares, (list, tuple)) and all(
            hasattr(a, "name") and hasattr(a, "shares") for a in shares
        )
        hint = "; for Account objects: {a.name: a.shares for a in accounts}" if accounts else ""
        raise SlurmlabError(f"share_vs_target: shares is a {kind}; {_SHARES_FORM}{hint}")
    out = {}
    for name, value in shares.items():
        number = isinstance(value, (Real, np.number)) and not isinstance(value, (bool, np.bool_))
        if not number or not math.isfinite(float(value)) or float(value) < 0:
            raise SlurmlabError(
                f"share_vs_target: shares[{name!r}] is {value!r}; a share is a number of at "
                f"least 0; {_SHARES_FORM}"
            )
        out[name] = float(value)
    if sum(out.values()) <= 0:
        raise SlurmlabError(
            f"share_vs_target: shares={shares!r} has no share above 0; {_SHARES_FORM}"
        )
    return out
