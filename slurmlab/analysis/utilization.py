"""How busy the cluster was: allocated CPUs, GPUs and nodes over time against capacity.

Each run holds its allocation from Start to End (a RUNNING run until the end of the export).
Capacity comes from a cluster (a preset or ``slurm.conf`` via ``Cluster``), a mapping, or, when
neither is given, from the peak allocation seen in the export (a lower bound, with a warning).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from slurmlab.analysis._common import check_columns, count

__all__ = ["capacity_of", "utilization"]

_RESOURCES = {"cpus": "NCPUS", "gpus": "NGPUS", "nodes": "NNodes"}


def capacity_of(cluster) -> pd.DataFrame:
    """CPUs, GPUs and nodes per partition of a ``slurmlab.Cluster``.

    >>> from slurmlab import Cluster
    >>> capacity_of(Cluster.preset("tiny")).columns.tolist()
    ['Partition', 'cpus', 'gpus', 'nodes']
    """
    rows = []
    for part in cluster.partitions:
        nodes = [cluster.node(name) for name in part.nodes]
        rows.append(
            {
                "Partition": part.name,
                "cpus": sum(n.cpus for n in nodes),
                "gpus": sum(n.gpus for n in nodes),
                "nodes": len(nodes),
            }
        )
    return pd.DataFrame(rows)


def _capacity_table(capacity, used_peak: pd.DataFrame, by: str | None) -> pd.DataFrame:
    if capacity is None:
        warnings.warn(
            "utilization: no capacity given, so it is inferred as the peak allocation seen in "
            "the export (a lower bound: utilization looks higher than it was); pass "
            "capacity=Cluster.preset(...) or Cluster.from_slurm_conf(...)",
            UserWarning,
            stacklevel=3,
        )
        return used_peak
    if hasattr(capacity, "partitions"):
        table = capacity_of(capacity)
    elif isinstance(capacity, pd.DataFrame):
        table = capacity
    elif isinstance(capacity, Mapping):
        table = pd.DataFrame([{"Partition": k, **v} for k, v in capacity.items()])
    else:
        raise TypeError(
            "capacity: give a Cluster, a DataFrame or {partition: {'cpus':, 'gpus':, 'nodes':}}"
        )
    if by is None:
        table = table.drop(columns=["Partition"]).sum().to_frame().T.assign(group="all")
    else:
        table = table.rename(columns={"Partition": "group"})
    return table


def utilization(
    jobs: pd.DataFrame,
    capacity=None,
    freq: str = "1h",
    by: str | None = "Partition",
) -> pd.DataFrame:
    """Mean allocated CPUs/GPUs/nodes per period (``freq``) and group, and the fraction used.

    Returns a long table: time, group, resource (cpus, gpus, nodes), used (mean allocated
    over the period), capacity and utilization (used / capacity).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> cap = {"gpu": {"cpus": 32, "gpus": 8, "nodes": 2}, "cpu": {"cpus": 8, "gpus": 0, "nodes": 1}}
    >>> u = utilization(demo_jobs(), capacity=cap, freq="1h")
    >>> gpu = u[(u.resource == "gpus") & (u.Partition == "gpu")].reset_index(drop=True)
    >>> gpu[["time", "used", "utilization"]]
                     time  used  utilization
    0 2024-03-01 08:00:00   2.0         0.25
    1 2024-03-01 09:00:00   6.0         0.75
    2 2024-03-01 10:00:00   2.0         0.25
    """
    check_columns(jobs, ("Start", "End", "NCPUS", "NGPUS", "NNodes"), "utilization")
    started = jobs.loc[jobs["Start"].notna()]
    if started.empty:
        return pd.DataFrame(
            columns=["time", by or "group", "resource", "used", "capacity", "utilization"]
        )
    horizon = max(
        started["Start"].max(),
        started["End"].max() if started["End"].notna().any() else started["Start"].max(),
    )
    end = started["End"].fillna(horizon).where(lambda e: e >= started["Start"], started["Start"])
    edges = pd.date_range(
        started["Start"].min().floor(freq), horizon.ceil(freq) + pd.Timedelta(freq), freq=freq
    )
    t0 = edges[0]
    e_ns = (edges - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    s_ns = (started["Start"] - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    f_ns = (end - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    width = np.diff(e_ns).astype(float)
    groups = (
        started[by].astype("string").fillna("(none)").to_numpy()
        if by
        else np.array(["all"] * len(started))
    )
    frames, peaks = [], []
    for group in pd.unique(groups):
        sel = groups == group
        row = {"group": group}
        for resource, column in _RESOURCES.items():
            amount = count(started.loc[sel, column])
            area = _binned_area(s_ns[sel], f_ns[sel], amount, e_ns)
            level = _peak(s_ns[sel], f_ns[sel], amount)
            row[resource] = level
            frames.append(
                pd.DataFrame(
                    {"time": edges[:-1], "group": group, "resource": resource, "used": area / width}
                )
            )
        peaks.append(row)
    used = pd.concat(frames, ignore_index=True)
    used = used[used["time"] <= horizon]
    cap = _capacity_table(capacity, pd.DataFrame(peaks), by)
    cap_long = cap.melt(
        id_vars="group",
        value_vars=[r for r in _RESOURCES if r in cap],
        var_name="resource",
        value_name="capacity",
    )
    out = used.merge(cap_long, on=["group", "resource"], how="left")
    out["capacity"] = out["capacity"].astype(float)
    out["utilization"] = out["used"] / out["capacity"].where(out["capacity"] > 0)
    out = out.rename(columns={"group": by or "group"})
    order = {r: i for i, r in enumerate(_RESOURCES)}
    out = out.sort_values(
        [by or "group", "resource", "time"],
        key=lambda s: s.map(order) if s.name == "resource" else s,
        kind="stable",
    )
    return out.reset_index(drop=True)


def _binned_area(
    start: np.ndarray, end: np.ndarray, amount: np.ndarray, edges: np.ndarray
) -> np.ndarray:
    """Integral over each bin of the allocated level (amount held from start to end)."""
    times = np.concatenate([start, end, edges])
    delta = np.concatenate([amount, -amount, np.zeros(len(edges))])
    order = np.argsort(times, kind="stable")
    times, delta = times[order], delta[order]
    level = np.cumsum(delta)
    seg = np.diff(times).astype(float)
    area = level[:-1] * seg
    idx = np.searchsorted(edges, times[:-1], side="right") - 1
    ok = (idx >= 0) & (idx < len(edges) - 1)
    return np.bincount(idx[ok], weights=area[ok], minlength=len(edges) - 1)[: len(edges) - 1]


def _peak(start: np.ndarray, end: np.ndarray, amount: np.ndarray) -> float:
    if len(start) == 0:
        return 0.0
    times = np.concatenate([start, end])
    delta = np.concatenate([amount, -amount])
    order = np.lexsort((delta, times))  # releases before grabs at the same instant
    return float(max(np.cumsum(delta[order]).max(), 0.0))
