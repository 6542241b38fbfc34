"""Who used what: CPU-, GPU- and node-hours per account, user, partition or QOS.

Every run counts, including the earlier runs of requeued jobs that ``sacct --duplicates``
shows: hours are allocated resources x Elapsed, whatever the job did with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from slurmlab.analysis._common import check_columns, count, hours, tasks

__all__ = ["gpu_hours", "share_vs_target", "top_consumers", "usage"]


def _with_hours(jobs: pd.DataFrame) -> pd.DataFrame:
    check_columns(jobs, ("Elapsed", "NCPUS", "NGPUS", "NNodes"), "usage")
    h = hours(jobs["Elapsed"])
    return jobs.assign(
        runs=1,
        jobs=tasks(jobs),
        cpu_hours=h * count(jobs["NCPUS"]),
        gpu_hours=h * count(jobs["NGPUS"]),
        node_hours=h * count(jobs["NNodes"]),
    )


def usage(
    jobs: pd.DataFrame,
    by: str | Sequence[str] = "Account",
    period: str | None = None,
) -> pd.DataFrame:
    """CPU-, GPU- and node-hours grouped by columns, optionally per period of Start.

    ``period`` is a pandas frequency (``"D"``, ``"W"``, ``"MS"``); a run is counted whole in
    the period it started in (export with ``sacct -T`` to clip runs to a window).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> usage(demo_jobs(), by="Account")[["Account", "gpu_hours", "cpu_hours"]]
      Account  gpu_hours  cpu_hours
    0     nlp        2.0        8.0
    1  vision        8.0       33.0
    """
    by = [by] if isinstance(by, str) else list(by)
    frame = _with_hours(jobs)
    keys = [frame[c].astype("string").fillna("(none)") for c in by]
    if period is not None:
        keys.append(frame["Start"].dt.to_period(period).dt.start_time.rename("period"))
    cols = ["runs", "jobs", "cpu_hours", "gpu_hours", "node_hours"]
    out = frame[cols].groupby(keys, dropna=period is None, observed=True).sum()
    out[["runs"]] = out[["runs"]].astype("int64")
    return out.reset_index()


def gpu_hours(jobs: pd.DataFrame, by: str | Sequence[str] | None = None) -> float | pd.Series:
    """Allocated GPU-hours: a total, or a Series per group of ``by``.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> gpu_hours(demo_jobs())
    10.0
    >>> gpu_hours(demo_jobs(), by="User").to_dict()
    {'ann': 8.0, 'bob': 2.0}
    """
    frame = _with_hours(jobs)
    if by is None:
        return float(frame["gpu_hours"].sum())
    return usage(jobs, by=by).set_index(by)["gpu_hours"]


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
    table = usage(jobs, by=by)
    if resource not in table:
        raise ValueError(f"resource={resource!r}: use cpu_hours, gpu_hours or node_hours")
    total = table[resource].sum()
    table["share"] = table[resource] / total if total else 0.0
    return (
        table.sort_values(resource, ascending=False, kind="stable").head(n).reset_index(drop=True)
    )


def share_vs_target(
    jobs: pd.DataFrame,
    shares: Mapping[str, float],
    by: str = "Account",
    resource: str = "gpu_hours",
) -> pd.DataFrame:
    """Each group's share of the usage next to its fair-share target (shares normalised).

    ``ratio`` above 1 means the group used more than its share (its fair-share factor falls).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> share_vs_target(demo_jobs(), {"vision": 1, "nlp": 1})[["Account", "share", "target", "ratio"]]
      Account  share  target  ratio
    0  vision    0.8     0.5    1.6
    1     nlp    0.2     0.5    0.4
    """
    table = usage(jobs, by=by).set_index(by)[resource]
    total_target = float(sum(shares.values()))
    if total_target <= 0:
        raise ValueError("shares: give at least one positive share, e.g. {'vision': 2, 'nlp': 1}")
    names = list(dict.fromkeys([*shares, *table.index]))
    used = table.reindex(names, fill_value=0.0)
    out = pd.DataFrame({by: names, resource: used.to_numpy()})
    total = out[resource].sum()
    out["share"] = out[resource] / total if total else 0.0
    out["target"] = [shares.get(name, 0.0) / total_target for name in names]
    out["ratio"] = out["share"] / out["target"].where(out["target"] > 0)
    return out
