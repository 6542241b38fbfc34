"""How long jobs waited: per-run waits, their distribution per group, bounded slowdown, and
the pending queue over time.

A run's wait is Start - Submit (Submit is reset when a job is requeued, so each run has its
own wait): what users feel, including time the job was not allowed to run (held, waiting on
a dependency or a ``--begin`` time, a requeue's delay). ``since="Eligible"`` measures from
Eligible instead, as Slurm's own Reserved field does: only the time the scheduler kept an
eligible job waiting. Runs that never started have no wait but count as pending until they
end; so does a row with a Start that never got an allocation (no node, Elapsed 0: older
Slurm's record of a job cancelled while pending). A het job is one job: its leader
(``12+0``) stands for its components. An export without Submit times knows no wait: the
analyzers say so, naming the field to add, rather than return 0 rows.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    Since,
    by_columns,
    check_by,
    check_columns,
    check_freq,
    check_jobs,
    check_since,
    count,
    known,
    leads,
    require_start,
    require_submit,
    run_ends,
    run_starts,
    started,
    tasks,
    waits,
)
from slurmlab.errors import SlurmlabError
from slurmlab.records.schema import TERMINAL_STATES
from slurmlab.spec.units import parse_seconds

__all__ = ["bounded_slowdown", "pending_over_time", "wait_stats", "wait_times"]

_SIZE_BINS = [0, 1, 8, 32, 128, np.inf]
_SIZE_LABELS = ["1 CPU", "2-8 CPUs", "9-32 CPUs", "33-128 CPUs", ">128 CPUs"]


def _waited(jobs: pd.DataFrame, since: Since, who: str) -> pd.DataFrame:
    """The rows wait_times keeps: runs that started and were submitted, one per het job (an
    error naming ``who`` when the table cannot say: no Submit or no Start times)."""
    check_columns(jobs, ("Submit", "Start"), who)
    check_since(jobs, since, who)
    require_start(jobs, who)
    require_submit(jobs, who)
    return jobs.loc[started(jobs) & jobs["Submit"].notna().to_numpy() & leads(jobs)]


def _wait_table(runs: pd.DataFrame, since: Since) -> pd.DataFrame:
    """The table of :func:`wait_times` for the rows :func:`_waited` keeps (in their order)."""
    wait = waits(runs, since)
    size = pd.cut(count(runs["NCPUS"]), _SIZE_BINS, labels=_SIZE_LABELS, right=True)
    cols = [
        c
        for c in (
            "JobID",
            "JobIDRaw",
            "User",
            "Account",
            "Partition",
            "QOS",
            "NGPUS",
            "NCPUS",
            "Submit",
            *(("Eligible",) if since == "Eligible" else ()),
            "Start",
        )
        if c in runs
    ]
    out = runs[cols].assign(Wait=wait, Size=size).reset_index(drop=True)
    out.attrs["since"] = since
    return out


def wait_times(jobs: pd.DataFrame, since: Since = "Submit") -> pd.DataFrame:
    """One row per run that started (a het job once), with ``Wait`` and a ``Size`` class.

    ``Wait`` is Start - Submit (``since="Submit"``, the default) or Start - Eligible
    (``since="Eligible"``: time held, on a dependency or a ``--begin`` time left out, as
    Slurm's Reserved field; Submit where a row's Eligible is Unknown). A wait below 0 (Start
    before Submit: a DST change) is NaT, with a warning. The table's ``attrs["since"]`` says
    which (``wait_figure`` titles itself by it).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> wait_times(demo_jobs())[["JobID", "Wait"]]
      JobID            Wait
    0   100 0 days 00:30:00
    1   101 0 days 00:00:00
    2   102 0 days 01:00:00
    """
    check_jobs(jobs, "wait_times")
    return _wait_table(_waited(jobs, since, "wait_times"), since)


def wait_stats(
    jobs: pd.DataFrame, by: str | Sequence[str] = "Partition", since: Since = "Submit"
) -> pd.DataFrame:
    """Wait-time distribution (count, mean, median, p90, max in hours) per group.

    ``by`` may be any column of the job table (or a list of them), e.g. ``"Partition"``,
    ``"Account"``, ``"NGPUS"``, ``"GPUType"`` or ``"JobName"``, or ``"Size"`` (the CPU-count
    classes of :func:`wait_times`). ``runs`` counts the runs that started; the statistics leave out the
    waits that are unknown (below 0, see :func:`wait_times`). ``since`` as in
    :func:`wait_times`: from Submit (the default) or from Eligible.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> wait_stats(demo_jobs(), by="Partition")[["Partition", "runs", "median_h"]]
      Partition  runs  median_h
    0       cpu     1      1.00
    1       gpu     2      0.25
    """
    check_jobs(jobs, "wait_stats")
    by = by_columns(by, "wait_stats")
    check_by(jobs, by, "wait_stats", made=("Size",))
    runs = _waited(jobs, since, "wait_stats")
    table = _wait_table(runs, since)
    runs = runs.reset_index(drop=True)  # (the rows of table, in its order)
    h = table["Wait"].dt.total_seconds() / 3600.0
    keys = [_key(table[c] if c == "Size" else runs[c]) for c in by]
    grouped = h.groupby(keys, observed=True, dropna=False)
    out = pd.DataFrame(
        {
            "runs": grouped.size(),
            "mean_h": grouped.mean(),
            "median_h": grouped.median(),
            "p90_h": grouped.quantile(0.9),
            "max_h": grouped.max(),
        }
    )
    return out.reset_index()


def _key(column: pd.Series) -> pd.Series:
    """A grouping key: numbers, times and durations stay what they are (NGPUS groups sort 0,
    1, 2, 16, not 0, 1, 16, 2; Timelimit 00:30:00 before 02:00:00; unknown last), text becomes
    text with "(none)" for the unknown, classes stay classes."""
    kind = column.dtype
    if (
        isinstance(kind, pd.CategoricalDtype)
        or pd.api.types.is_numeric_dtype(kind)
        or pd.api.types.is_datetime64_any_dtype(kind)
        or pd.api.types.is_timedelta64_dtype(kind)
    ):
        return column
    return column.astype("string").fillna("(none)")


def bounded_slowdown(
    jobs: pd.DataFrame, tau: float | str | pd.Timedelta = "10s", since: Since = "Submit"
) -> pd.DataFrame:
    """Bounded slowdown per run: max(1, (wait + run) / max(run, tau)).

    ``tau`` keeps very short jobs from dominating (Feitelson's bounded slowdown): seconds
    (``10``), a duration as text (``"10s"``, ``"1:00"``, ``"2h"``, or pandas' ``"10 seconds"``)
    or a Timedelta, as the simulator reads times; the wait is from Submit or from Eligible (``since``, as in
    :func:`wait_times`).

    Every run that started has a row, one still running too (its run so far, its Elapsed,
    so its slowdown can only grow). A simulation's ``metrics["mean_bounded_slowdown"]`` is
    over jobs that ended, each once by its last run: on a run stopped with ``until=`` (or a
    ``Lab``) the two differ while jobs run; ``bounded_slowdown(jobs[jobs["End"].notna()])``
    of ``result.jobs`` gives the metric's rows.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> bounded_slowdown(demo_jobs())["BoundedSlowdown"].round(2).tolist()
    [1.25, 1.0, 5.0]
    """
    check_jobs(jobs, "bounded_slowdown")
    floor = _tau(tau)
    runs = _waited(jobs, since, "bounded_slowdown")
    table = _wait_table(runs, since)
    run = runs["Elapsed"].reset_index(drop=True).fillna(pd.Timedelta(0))
    slowdown = (table["Wait"] + run) / run.where(run > floor, floor)
    return table.assign(Elapsed=run, BoundedSlowdown=slowdown.clip(lower=1.0).astype(float))


def _tau(tau) -> pd.Timedelta:
    """``tau`` as a Timedelta of at least 0: seconds, a duration as :func:`parse_seconds`
    reads it, or pandas' own text (``"10 seconds"``, ``"500ms"``), as before."""
    try:
        return pd.Timedelta(seconds=parse_seconds(tau, what="tau"))
    except SlurmlabError as exc:
        error = SlurmlabError(f"bounded_slowdown: {exc}")
    if isinstance(tau, str) and re.search(r"[0-9]", tau) and re.search(r"[A-Za-z]", tau):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)  # ("1H": use "1h")
                floor = pd.Timedelta(tau)
        except ValueError:
            floor = None
        if floor is not None and floor >= pd.Timedelta(0):
            return floor
    raise error


def _pending_from(jobs: pd.DataFrame, start: pd.Series) -> pd.Series:
    """When each run began pending (see :func:`pending_over_time`): its Eligible; NaT, never
    pending, for a run that never started and never became eligible (Eligible Unknown in an
    export that has the field); Submit for a run that started with Eligible Unknown, and
    where the export has no Eligible at all."""
    if not known(jobs, "Eligible"):
        return jobs["Submit"]
    eligible = jobs["Eligible"]
    return eligible.where(eligible.notna() | start.isna(), jobs["Submit"])


def pending_over_time(
    jobs: pd.DataFrame, freq: str | None = None, by: str | None = "Partition"
) -> pd.DataFrame:
    """How many jobs were pending over time, per group: exactly (the default), or sampled
    every ``freq``. ``pending`` is a count of jobs (int64); ``by`` is one column of the job
    table, or None for the whole cluster.

    A run is pending from Eligible until Start; one that never started is pending until it
    ended (cancelled: its End), or to the end of the export while its state is still PENDING
    (whatever its End says). Array ranges count every task; a het job counts once. Time
    held, on a dependency or a ``--begin`` time is not pending here (the job is not yet
    eligible), so a job that never became eligible (Eligible Unknown: Slurm sets it only
    once the job is free to run, job_mgr.c's job_independent) and never started is never
    pending, even while its state is PENDING. A run that started with Eligible Unknown (a
    job held while it ran: the hold clears it) pends from Submit, and so does every run of
    an export without the Eligible field.

    With ``freq=None`` the table is the step function itself: a row at the first time a job
    pends and wherever the count changes (every eligible, start or end of a pending job),
    each giving the count from that time until the next row, and a last row at the export's
    end (the last time the table knows). No wait is missed, however short. With ``freq``
    (``"1h"``, ``"1D"`` ...) it is the count at each tick (and at the export's end): samples,
    between which jobs may have come and gone; ``attrs["freq"]`` says so (``pending_figure``
    draws them as points, not steps).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> exact = pending_over_time(demo_jobs(), by=None)
    >>> exact.assign(time=exact["time"].dt.strftime("%H:%M"))
        time  pending
    0  08:00        1
    1  08:30        0
    2  09:30        1
    3  10:00        4
    4  10:30        3
    5  10:45        3
    >>> pending_over_time(demo_jobs(), freq="1h", by=None)["pending"].tolist()
    [1, 0, 4, 3]
    """
    check_jobs(jobs, "pending_over_time")
    names = by_columns(by, "pending_over_time", none="the whole cluster", many=False)
    by = names[0] if names else None
    check_columns(jobs, ("Submit", "Start"), "pending_over_time")
    check_by(jobs, by, "pending_over_time")
    if freq is not None:
        check_freq(freq, "pending_over_time")
    require_start(jobs, "pending_over_time")
    require_submit(jobs, "pending_over_time", eligible=True)
    start = run_starts(jobs)  # (a row never allocated: pending until it ended, its End)
    begin = _pending_from(jobs, start)
    times = [jobs["Submit"], start, run_ends(jobs)]
    if "End" in jobs:
        times.append(jobs["End"])
    ok = begin.notna().to_numpy()
    if not ok.any():
        empty = {"time": pd.Series(dtype="datetime64[ns]")}
        if by:
            empty[by] = pd.Series(dtype="string")
        return pd.DataFrame({**empty, "pending": pd.Series(dtype="int64")})
    horizon = max(s.max() for s in times if s.notna().any())
    never = start.isna()
    until = start.fillna(horizon + pd.Timedelta(1, "ns"))
    if "End" in jobs:  # a job that ended while pending (cancelled) stops pending at its End
        # (by its State; where the State is unknown, an End says it ended)
        state = jobs["State"] if "State" in jobs else pd.Series(pd.NA, index=jobs.index)
        ended = state.isin([*TERMINAL_STATES, "UNKNOWN"]).fillna(False) | state.isna()
        until = until.where(~(never & ended & jobs["End"].notna()), jobs["End"])
    ticks = None
    if freq is not None:
        ticks = pd.date_range(begin[ok].min().floor(freq), horizon, freq=freq)
        if ticks[-1] < horizon:  # the export's end is a tick too: what still pends then
            ticks = ticks.append(pd.DatetimeIndex([horizon]))
    weight = (tasks(jobs) * leads(jobs))[ok]
    b = begin[ok].to_numpy()
    u = np.maximum(until[ok].to_numpy(), b)  # (an Eligible after the Start: never below 0)
    groups = (
        jobs.loc[ok, by].astype("string").fillna("(none)").to_numpy()
        if by
        else np.array(["all"] * ok.sum())
    )
    end = np.datetime64(horizon)
    rows = []
    for group in pd.unique(groups):
        sel = groups == group
        bs, us, ws = b[sel], u[sel], weight[sel]
        if ticks is not None:
            t = ticks.to_numpy()
        else:  # every time the count may change, from the group's first eligible on
            t = np.unique(np.concatenate([bs, us, [end]]))
            t = t[(t >= bs.min()) & (t <= end)]
        # pending at t: begin <= t < until
        order_b = np.argsort(bs)
        order_u = np.argsort(us)
        cum_b = np.concatenate([[0.0], np.cumsum(ws[order_b])])
        cum_u = np.concatenate([[0.0], np.cumsum(ws[order_u])])
        started = cum_b[np.searchsorted(bs[order_b], t, side="right")]
        left = cum_u[np.searchsorted(us[order_u], t, side="right")]
        # (whole jobs: the weights are task counts, so the count is a whole number)
        frame = pd.DataFrame({"time": t, "pending": np.rint(started - left).astype("int64")})
        if ticks is None:  # only the changes, and the export's end
            level = frame["pending"].to_numpy()
            change = np.r_[True, level[1:] != level[:-1]]
            change[-1] = True
            frame = frame[change]
        if by:
            frame.insert(1, by, group)
        rows.append(frame)
    out = pd.concat(rows, ignore_index=True)
    if freq is not None:
        out.attrs["freq"] = freq
    return out
