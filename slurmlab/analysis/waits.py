"""How long jobs waited: per-run waits, their distribution per group, bounded slowdown, and
the pending queue over time.

A run's wait is Start - Submit (Submit is reset when a job is requeued, so each run has its
own wait); runs that never started have no wait but count as pending until they end. A het
job is one job: its leader (``12+0``) stands for its components.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    check_by,
    check_columns,
    check_freq,
    count,
    leads,
    require_start,
    run_ends,
    tasks,
    waits,
)
from slurmlab.records.schema import TERMINAL_STATES

__all__ = ["bounded_slowdown", "pending_over_time", "wait_stats", "wait_times"]

_SIZE_BINS = [0, 1, 8, 32, 128, np.inf]
_SIZE_LABELS = ["1 CPU", "2-8 CPUs", "9-32 CPUs", "33-128 CPUs", ">128 CPUs"]


def _waited(jobs: pd.DataFrame) -> np.ndarray:
    """The rows wait_times keeps: runs that started and were submitted, one per het job."""
    check_columns(jobs, ("Submit", "Start"), "wait_times")
    require_start(jobs, "wait_times")
    return (jobs["Start"].notna() & jobs["Submit"].notna()).to_numpy() & leads(jobs)


def wait_times(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per run that started (a het job once), with ``Wait`` (Start - Submit) and a
    ``Size`` class. A wait below 0 (Start before Submit: a DST change) is NaT, with a warning.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> wait_times(demo_jobs())[["JobID", "Wait"]]
      JobID            Wait
    0   100 0 days 00:30:00
    1   101 0 days 00:00:00
    2   102 0 days 01:00:00
    """
    started = jobs.loc[_waited(jobs)]
    wait = waits(started)
    size = pd.cut(count(started["NCPUS"]), _SIZE_BINS, labels=_SIZE_LABELS, right=True)
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
            "Start",
        )
        if c in started
    ]
    return started[cols].assign(Wait=wait, Size=size).reset_index(drop=True)


def wait_stats(jobs: pd.DataFrame, by: str | Sequence[str] = "Partition") -> pd.DataFrame:
    """Wait-time distribution (count, mean, median, p90, max in hours) per group.

    ``by`` may be any column, e.g. ``"Partition"``, ``"Account"``, ``"NGPUS"`` or ``"Size"``
    (CPU-count classes). ``runs`` counts the runs that started; the statistics leave out the
    waits that are unknown (below 0, see :func:`wait_times`).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> wait_stats(demo_jobs(), by="Partition")[["Partition", "runs", "median_h"]]
      Partition  runs  median_h
    0       cpu     1      1.00
    1       gpu     2      0.25
    """
    check_by(jobs, by, "wait_stats", made=("Size",))
    table = wait_times(jobs)
    by = [by] if isinstance(by, str) else list(by)
    h = table["Wait"].dt.total_seconds() / 3600.0
    grouped = h.groupby([_key(table[c]) for c in by], observed=True, dropna=False)
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
    """A grouping key: numbers stay numbers (NGPUS groups sort 0, 1, 2, 16, not 0, 1, 16,
    2; unknown last), text becomes text with "(none)" for the unknown, classes stay classes."""
    if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(column):
        return column
    return column.astype("string").fillna("(none)")


def bounded_slowdown(jobs: pd.DataFrame, tau: str | pd.Timedelta = "10s") -> pd.DataFrame:
    """Bounded slowdown per run: max(1, (wait + run) / max(run, tau)).

    ``tau`` keeps very short jobs from dominating (Feitelson's bounded slowdown).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> bounded_slowdown(demo_jobs())["BoundedSlowdown"].round(2).tolist()
    [1.25, 1.0, 5.0]
    """
    table = wait_times(jobs)
    merged = jobs.loc[_waited(jobs), "Elapsed"].reset_index(drop=True)
    run = merged.fillna(pd.Timedelta(0))
    floor = pd.Timedelta(tau)
    slowdown = (table["Wait"] + run) / run.where(run > floor, floor)
    return table.assign(Elapsed=run, BoundedSlowdown=slowdown.clip(lower=1.0).astype(float))


def pending_over_time(
    jobs: pd.DataFrame, freq: str = "1h", by: str | None = "Partition"
) -> pd.DataFrame:
    """How many jobs were pending at each tick (every ``freq``, and at the last time the
    table knows, the export's end), per group.

    A run is pending from Eligible (else Submit) until Start; one that never started is
    pending until it ended (cancelled: its End), or to the end of the export while its state
    is still PENDING (whatever its End says). Array ranges count every task; a het job counts
    once.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> pending_over_time(demo_jobs(), freq="1h", by=None)["pending"].tolist()
    [1.0, 0.0, 4.0]
    """
    check_columns(jobs, ("Submit", "Start"), "pending_over_time")
    check_by(jobs, by, "pending_over_time")
    check_freq(freq, "pending_over_time")
    require_start(jobs, "pending_over_time")
    begin = jobs["Eligible"].fillna(jobs["Submit"]) if "Eligible" in jobs else jobs["Submit"]
    known = [jobs["Submit"], jobs["Start"], run_ends(jobs)]
    if "End" in jobs:
        known.append(jobs["End"])
    ok = begin.notna().to_numpy()
    if not ok.any():
        return pd.DataFrame(columns=["time", *([by] if by else []), "pending"])
    horizon = max(s.max() for s in known if s.notna().any())
    never = jobs["Start"].isna()
    until = jobs["Start"].fillna(horizon + pd.Timedelta(1, "ns"))
    if "End" in jobs:  # a job that ended while pending (cancelled) stops pending at its End
        ended = jobs["State"].isin(TERMINAL_STATES).fillna(False) if "State" in jobs else True
        until = until.where(~(never & ended & jobs["End"].notna()), jobs["End"])
    start = begin[ok].min().floor(freq)
    ticks = pd.date_range(start, horizon, freq=freq)
    if ticks[-1] < horizon:  # the export's end is a tick too: what still pends then
        ticks = ticks.append(pd.DatetimeIndex([horizon]))
    weight = (tasks(jobs) * leads(jobs))[ok]
    b = begin[ok].to_numpy()
    u = until[ok].to_numpy()
    groups = (
        jobs.loc[ok, by].astype("string").fillna("(none)").to_numpy()
        if by
        else np.array(["all"] * ok.sum())
    )
    rows = []
    for group in pd.unique(groups):
        sel = groups == group
        bs, us, ws = b[sel], u[sel], weight[sel]
        t = ticks.to_numpy()
        # pending at t: begin <= t < until
        order_b = np.argsort(bs)
        order_u = np.argsort(us)
        cum_b = np.concatenate([[0.0], np.cumsum(ws[order_b])])
        cum_u = np.concatenate([[0.0], np.cumsum(ws[order_u])])
        started = cum_b[np.searchsorted(bs[order_b], t, side="right")]
        left = cum_u[np.searchsorted(us[order_u], t, side="right")]
        frame = pd.DataFrame({"time": ticks, "pending": started - left})
        if by:
            frame.insert(1, by, group)
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)
