"""How busy the cluster was: allocated CPUs, GPUs and nodes over time against capacity.

Each run holds its allocation from Start to Start + Elapsed (Elapsed is its time so far for
one still running at the export; End where Elapsed is unknown), so the resource-time is the
hours ``usage`` and ``summary`` count, even across a daylight-saving change, where End -
Start of naive local times is an hour off. A row that never got an allocation is no run.
Capacity comes from a cluster (a preset or ``slurm.conf`` via ``Cluster``), a mapping, or, when
neither is given, from the peak allocation seen in the export (a lower bound, with a warning).
A capacity that does not fit the export (a partition it lacks, more allocated than it has)
is warned about by name, never silently divided by. Partitions may share nodes (a ``debug``
partition on two of ``train``'s nodes): a partition's utilization counts only its own jobs,
so it can look idle while its nodes are busy with the other's, and the partitions'
capacities add up to more than the cluster has; that is warned about too (``by=None`` with
a ``Cluster`` counts each node once).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    by_columns,
    check_by,
    check_columns,
    check_freq,
    check_jobs,
    count,
    require_start,
    run_ends,
    run_starts,
    unknown_columns,
    warn_missing_runs,
)
from slurmlab.errors import SlurmlabError, warn_at_caller
from slurmlab.spec.units import compress_hostlist, expand_hostlist

__all__ = ["capacity_of", "utilization"]

_RESOURCES = {"cpus": "NCPUS", "gpus": "NGPUS", "nodes": "NNodes"}
#: The sacct -o field each resource's count is read from (as ``HOURS_NEEDS``).
_FIELDS = {
    "cpus": (("NCPUS", "NCPUS (or AllocCPUS)"),),
    "gpus": (("NGPUS", "AllocTRES"),),
    "nodes": (("NNodes", "NNodes (or AllocNodes)"),),
}
_NAMES = {"cpus": "CPUs", "gpus": "GPUs", "nodes": "nodes"}


def capacity_of(cluster) -> pd.DataFrame:
    """CPUs, GPUs and nodes per partition of a ``slurmlab.Cluster``, or of a cluster named as
    ``simulate`` names one: a preset (``"ai"``) or a slurm.conf path.

    >>> from slurmlab import Cluster
    >>> capacity_of(Cluster.preset("tiny")).columns.tolist()
    ['Partition', 'cpus', 'gpus', 'nodes']
    """
    if isinstance(cluster, (str, os.PathLike)):
        from slurmlab.spec.cluster import Cluster

        cluster = Cluster.coerce(cluster)
    elif not (hasattr(cluster, "partitions") and hasattr(cluster, "node")):
        kind = "None" if cluster is None else f"a {type(cluster).__name__}"
        hint = (
            "pass its cluster: result.cluster (or lab.cluster)"
            if hasattr(cluster, "cluster")
            else "give a Cluster (Cluster.preset('ai'), Cluster.from_slurm_conf(path)), a "
            "preset name or a slurm.conf path"
        )
        raise SlurmlabError(f"capacity_of: the cluster is {kind}, not a Cluster; {hint}")
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


_CAPACITY_FORMS = (
    "give a Cluster (Cluster.preset(...), Cluster.from_slurm_conf(...)), a DataFrame with "
    "Partition, cpus, gpus and nodes columns, or {partition: {'cpus': N, 'gpus': N, 'nodes': N}}"
)


def _capacity_table(capacity, used_peak: pd.DataFrame, by: str | None) -> pd.DataFrame:
    if capacity is None:
        warn_at_caller(
            "utilization: no capacity given, so it is inferred as the peak allocation seen in "
            "the export (a lower bound: utilization looks higher than it was); pass "
            "capacity=Cluster.preset(...) or Cluster.from_slurm_conf(...)"
        )
        return used_peak
    if by not in ("Partition", None):
        raise SlurmlabError(
            f"utilization: a capacity is per partition, so it cannot be split by={by!r}; use "
            "by='Partition' or by=None (the whole cluster), or leave capacity out"
        )
    if hasattr(capacity, "partitions") and by is None:  # partitions may share nodes
        nodes = capacity.nodes  # count each node once
        return pd.DataFrame(
            {
                "group": ["all"],
                "cpus": [sum(n.cpus for n in nodes)],
                "gpus": [sum(n.gpus for n in nodes)],
                "nodes": [len(nodes)],
            }
        )
    if hasattr(capacity, "partitions"):
        table = capacity_of(capacity)
    elif isinstance(capacity, pd.DataFrame):
        table = capacity.copy()
    elif isinstance(capacity, Mapping):
        rows = []
        for name, value in capacity.items():
            if not isinstance(value, Mapping):
                raise SlurmlabError(
                    f"utilization: capacity[{name!r}] is {value!r}, not a mapping; "
                    + _CAPACITY_FORMS
                )
            unknown = sorted(set(value) - set(_RESOURCES), key=str)
            if unknown:
                raise SlurmlabError(
                    f"utilization: capacity[{name!r}] has unknown key(s) {unknown}; the keys "
                    f"are {', '.join(_RESOURCES)}"
                )
            rows.append({"Partition": name, **value})
        table = pd.DataFrame(rows, columns=None if rows else ["Partition", *_RESOURCES])
    else:
        raise SlurmlabError(f"utilization: capacity is {capacity!r}; " + _CAPACITY_FORMS)
    if "Partition" not in table:
        raise SlurmlabError(
            f"utilization: the capacity table has no Partition column ({list(table.columns)}); "
            + _CAPACITY_FORMS
        )
    for resource in _RESOURCES:
        if resource not in table:
            continue
        values = pd.to_numeric(table[resource], errors="coerce")
        bad = values.isna() & table[resource].notna() | (values < 0)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            value = table[resource].iloc[i]
            value = value.item() if isinstance(value, np.generic) else value  # -1, not np.int64(-1)
            raise SlurmlabError(
                f"utilization: capacity of partition {table['Partition'].iloc[i]!r}: "
                f"{resource}={value!r} is not a count; give a whole number of at least 0"
            )
        table[resource] = values
    table = table[["Partition", *[r for r in _RESOURCES if r in table]]]
    if by is None:
        table = table.drop(columns=["Partition"]).sum().to_frame().T.assign(group="all")
    else:
        table = table.rename(columns={"Partition": "group"})
    return table


def _warn_mismatch(out: pd.DataFrame, label: str, runs: dict[str, int], freq: str) -> None:
    """Warn, by name, where the capacity does not fit the export (utilization NaN or > 1)."""
    fix = (
        "check that the capacity is the cluster the export came from "
        "(capacity=Cluster.from_slurm_conf(<its slurm.conf>) or a {partition: {...}} mapping)"
    )
    missing = out.groupby("group", sort=False)["capacity"].apply(lambda c: c.isna().all())
    absent = [g for g, none in missing.items() if none]
    if absent:
        known = [g for g, none in missing.items() if not none]
        warn_at_caller(
            f"utilization: {label} "
            + ", ".join(
                f"{g!r} ({runs.get(g, 0)} run{'s' * (runs.get(g, 0) != 1)})" for g in absent
            )
            + " of the export "
            + ("is" if len(absent) == 1 else "are")
            + " not in the capacity"
            + (f" (it has {', '.join(map(repr, known))})" if known else "")
            + f", so {'its' if len(absent) == 1 else 'their'} utilization is NaN; {fix}"
        )
    partial = out[out["capacity"].isna() & ~out["group"].isin(absent)]
    if len(partial):
        pairs = partial.drop_duplicates(["group", "resource"])
        warn_at_caller(
            "utilization: the capacity gives no "
            + ", ".join(f"{r} for {label} {g!r}" for g, r in zip(pairs["group"], pairs["resource"]))
            + f", so that utilization is NaN; {fix}"
        )
    eps = 1e-9
    over = out[out["used"] > out["capacity"] * (1 + eps) + eps]  # NaN capacity: never over
    if len(over):
        parts = []
        for (group, resource), rows in over.groupby(["group", "resource"], sort=False):
            worst = rows.loc[rows["used"].idxmax()]
            cap = float(worst["capacity"])
            ratio = f"utilization {worst['used'] / cap:.2f}" if cap > 0 else "none to use"
            shared = (
                "; nodes counts each busy node once (from NodeList)" if resource == "nodes" else ""
            )
            parts.append(
                f"{label} {group!r}: {worst['used']:.1f} {resource} allocated on average in the "
                f"{freq} from {worst['time']} against a capacity of {cap:g} ({ratio}{shared})"
            )
        warn_at_caller(
            "utilization: the export allocates more than the capacity has: "
            + "; ".join(parts)
            + f"; {fix}"
        )


def _shared_nodes(capacity, started: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    """Pairs of partitions with runs in the export that share nodes, and the nodes: by the
    cluster's partitions when the capacity is a ``Cluster``, else by the export (a node that
    ran jobs of both)."""
    members: dict[str, set[str]] = {}
    if hasattr(capacity, "partitions"):
        members = {p.name: set(p.nodes) for p in capacity.partitions}
    elif "NodeList" in started and "Partition" in started:
        pairs = pd.DataFrame(
            {"part": started["Partition"].astype("string"), "nodes": started["NodeList"]}
        )
        for part, text in pairs.dropna().drop_duplicates().itertuples(index=False):
            try:
                hosts = expand_hostlist(str(text)) if text != "None assigned" else []
            except SlurmlabError:
                continue
            members.setdefault(str(part), set()).update(hosts)
    # only partitions that ran jobs in the export: one alone on shared nodes is measured right
    ran = set(started["Partition"].dropna().astype(str)) if "Partition" in started else set()
    names = sorted(set(members) & ran)
    shared = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = members[a] & members[b]
            if common:
                shared[(a, b)] = sorted(common)
    return shared


def _warn_shared(shared: dict[tuple[str, str], list[str]], by: str | None, capacity) -> None:
    """Say what sharing nodes does to the numbers (see the module docstring)."""
    pairs = "; ".join(
        f"{a!r} and {b!r} share {compress_hostlist(nodes)}" for (a, b), nodes in shared.items()
    )
    source = "" if hasattr(capacity, "partitions") else " (by the export's NodeList)"
    if by is not None:
        warn_at_caller(
            f"utilization: partitions share nodes{source}: {pairs}. Each partition's "
            "utilization counts only its own jobs, so a partition can look idle while its "
            "nodes are busy with another partition's jobs, and the partitions' capacities add "
            "up to more than the cluster has; by=None (with capacity=Cluster...) gives the "
            "whole cluster, each node counted once"
        )
    else:
        warn_at_caller(
            f"utilization: partitions share nodes{source}: {pairs}. The capacity is summed "
            "over partitions, so those nodes count twice and utilization looks lower than it "
            "was; give capacity=Cluster.from_slurm_conf(...), which counts each node once"
        )


def utilization(
    jobs: pd.DataFrame,
    capacity=None,
    freq: str = "1h",
    by: str | None = "Partition",
    start=None,
    end=None,
) -> pd.DataFrame:
    """Mean allocated CPUs/GPUs/nodes per period (``freq``) and group, and the fraction used.

    Returns a long table: time (the period's start), covered (how much of the period the
    export covers), group, resource (cpus, gpus, nodes), used (mean allocated over the covered
    time: ``used`` x ``covered`` is the resource-time), capacity and utilization
    (used / capacity). ``capacity`` is per
    partition, so it goes with ``by="Partition"`` or ``by=None`` (the whole cluster).

    A period is averaged over the time the export covers: the first one begins at the
    export's start (its first Submit, or first Start where Submit is unknown), the last one
    ends at the export's horizon (its last start or end; a run counts to Start + Elapsed),
    so a period the export covers only in part is not diluted by the time before or after
    it: a 4-minute export at 12:21 is one 1h period covering 4 minutes. ``start`` and
    ``end`` (a date and time, as ``sacct -S``/``-E`` take them) give the window the export
    was taken over instead: ``sacct -S`` lists the jobs running in its window, so a long job
    submitted days before would otherwise make those days look nearly idle; runs are cut
    to the window. Over the whole
    export, ``used`` x ``covered`` summed over the periods and divided by the capacity x the
    summed ``covered`` is a simulation's ``metrics["utilization"]`` (``gpu_utilization``
    for GPUs) of the same run, with ``by=None`` and its ``Cluster`` as the capacity, given
    every run: ``result.jobs_all_runs`` (``result.jobs`` holds each job's last run, as sacct
    without ``-D``). Both windows open at the first Submit (a job that never started
    included) and end at the last start or end of a run (a job cancelled while pending
    holds nothing, whatever its End). One case differs: a run stopped (``until=``, a
    ``Lab``) while a job still waits and none runs (held, or its ``--begin`` time to come)
    counts the metrics' window up to the stop, the idle time at the end being unused
    capacity, while the table says nothing after its last end; pass
    ``end=result.origin + pd.Timedelta(seconds=result.sim.now)`` to match it. A table with
    requeued jobs (Restarts > 0) whose earlier runs it lacks leaves what those runs held
    out, with a warning naming them and the fix.

    utilization is NaN where the capacity is 0 (a partition without GPUs has none to use)
    and where the capacity does not cover a group. A partition of the export missing from
    the capacity, and more allocated than the capacity has (utilization above 1), give a
    ``UserWarning`` naming the partition and the values: the capacity is not the cluster the
    export came from.

    Partitions that share nodes (by the ``Cluster``'s partitions, else by the export's
    NodeList) give a ``UserWarning`` too, and ``attrs["shared_partitions"]`` lists them
    (``utilization_figure`` says so in its title): per partition, each counts only its own
    jobs, so one can show ~0 % while its nodes are busy with another's jobs, and the
    capacities overlap; with ``by=None`` a capacity mapping counts the shared nodes twice
    (a ``Cluster`` counts each node once).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> cap = {"gpu": {"cpus": 32, "gpus": 8, "nodes": 2}, "cpu": {"cpus": 8, "gpus": 0, "nodes": 1}}
    >>> u = utilization(demo_jobs(), capacity=cap, freq="1h")
    >>> gpu = u[(u.resource == "gpus") & (u.Partition == "gpu")].reset_index(drop=True)
    >>> gpu[["time", "covered", "used", "utilization"]].round(3)
                     time         covered   used  utilization
    0 2024-03-01 08:00:00 0 days 01:00:00  2.000        0.250
    1 2024-03-01 09:00:00 0 days 01:00:00  6.000        0.750
    2 2024-03-01 10:00:00 0 days 00:45:00  2.667        0.333
    """
    check_jobs(jobs, "utilization")
    names = by_columns(by, "utilization", none="the whole cluster", many=False)
    by = names[0] if names else None
    check_columns(jobs, ("Start", "End", "NCPUS", "NGPUS", "NNodes"), "utilization")
    check_by(jobs, by, "utilization")
    check_freq(freq, "utilization")
    require_start(jobs, "utilization")
    warn_missing_runs(jobs, "utilization", "allocations")
    started = jobs.loc[run_starts(jobs).notna().to_numpy()]
    if started.empty:
        return pd.DataFrame(
            columns=[
                "time",
                "covered",
                by or "group",
                "resource",
                "used",
                "capacity",
                "utilization",
            ]
        )
    ends = run_ends(started)
    horizon = started["Start"].max()
    if ends.notna().any():
        horizon = max(horizon, ends.max())
    until = ends.fillna(horizon)  # a run with neither End nor Elapsed: to the end of the export
    begin = _export_start(jobs, started)
    if start is not None:
        begin = _window_edge(start, "start", started["Start"])
    if end is not None:
        horizon = _window_edge(end, "end", started["Start"])
    if (start is not None or end is not None) and horizon <= begin:
        if start is not None and end is not None:
            fix = "give start= before end= (the -S and -E the export was taken with)"
        elif start is not None:
            fix = f"start= is at or after the export's last start or end ({horizon})"
        else:
            fix = f"end= is at or before the export's first submit ({begin})"
        raise SlurmlabError(f"utilization: the window from {begin} to {horizon} is empty: {fix}")
    edges = pd.date_range(begin.floor(freq), horizon.ceil(freq) + pd.Timedelta(freq), freq=freq)
    t0 = edges[0]
    e_ns = (edges - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    s_ns = (started["Start"] - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    f_ns = (until - t0).to_numpy(dtype="timedelta64[ns]").astype(np.int64)
    # the export says nothing before its start (its first submit) or after its horizon (its
    # last start or end): the first and last periods are averaged over the part of them the
    # export covers, not diluted by the rest
    b_ns = np.int64((begin - t0) // pd.Timedelta(1, "ns"))
    h_ns = np.int64((horizon - t0) // pd.Timedelta(1, "ns"))
    if start is not None or end is not None:  # runs cut to the window
        s_ns = np.clip(s_ns, b_ns, h_ns)
        f_ns = np.clip(f_ns, b_ns, h_ns)
    width = np.diff(np.clip(e_ns, b_ns, h_ns)).astype(float)  # (0 outside the export)
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
            s_sel, f_sel = s_ns[sel], f_ns[sel]
            amount = count(started.loc[sel, column])
            if resource == "nodes" and "NodeList" in started:  # a shared node counts once
                s_sel, f_sel, amount = _busy_nodes(
                    started.loc[sel, "NodeList"], s_sel, f_sel, amount
                )
            area = _binned_area(s_sel, f_sel, amount, e_ns)
            level = _peak(s_sel, f_sel, amount)
            row[resource] = level
            frames.append(
                pd.DataFrame(
                    {
                        "time": edges[:-1],
                        "covered": pd.to_timedelta(width, unit="ns"),
                        "group": group,
                        "resource": resource,
                        "used": np.divide(area, width, out=np.zeros_like(area), where=width > 0),
                    }
                )
            )
        peaks.append(row)
    used = pd.concat(frames, ignore_index=True)
    used = used[(used["time"] < horizon) | (used["time"] == edges[0])]  # no empty last bin
    cap = _capacity_table(capacity, pd.DataFrame(peaks), by)
    cap["group"] = cap["group"].astype(str)
    cap_long = cap.melt(
        id_vars="group",
        value_vars=[r for r in _RESOURCES if r in cap],
        var_name="resource",
        value_name="capacity",
    )
    out = used.merge(cap_long, on=["group", "resource"], how="left")
    out["capacity"] = out["capacity"].astype(float)
    out["utilization"] = out["used"] / out["capacity"].where(out["capacity"] > 0)
    _unknown_as_nan(out, jobs)
    if capacity is not None:
        runs = pd.Series(groups).value_counts().to_dict()
        _warn_mismatch(out, "partition" if by else "the cluster", runs, freq)
    shared = {}
    # (by=None with a Cluster counts each node once: nothing to say, nothing to look for)
    cluster = hasattr(capacity, "partitions")
    if by == "Partition" or (by is None and capacity is not None and not cluster):
        shared = _shared_nodes(capacity, started)
        if shared:
            _warn_shared(shared, by, capacity)
    out = out.rename(columns={"group": by or "group"})
    order = {r: i for i, r in enumerate(_RESOURCES)}
    out = out.sort_values(
        [by or "group", "resource", "time"],
        key=lambda s: s.map(order) if s.name == "resource" else s,
        kind="stable",
    ).reset_index(drop=True)
    if shared:
        out.attrs["shared_partitions"] = sorted({name for pair in shared for name in pair})
    return out


def _unknown_as_nan(out: pd.DataFrame, jobs: pd.DataFrame) -> None:
    """What an export cannot say is unknown, never 0: a resource whose count no started run
    has (no AllocTRES: GPUs; neither NNodes nor a NodeList: nodes) is used and utilized NaN,
    with one warning naming the field to add, as ``usage`` gives NaN hours for it."""
    unknown = unknown_columns(jobs, _FIELDS)
    if "nodes" in unknown and "NodeList" in jobs and jobs["NodeList"].notna().any():
        del unknown["nodes"]  # (the nodes are counted from NodeList: _busy_nodes)
    for resource in unknown:
        rows = out["resource"] == resource
        out.loc[rows, ["used", "utilization"]] = np.nan
    if unknown:
        warn_at_caller(
            "utilization: "
            + "; ".join(
                f"{_NAMES[name]} used are unknown, NaN not 0 ({why})"
                for name, why in unknown.items()
            )
        )


def _window_edge(value, name: str, times: pd.Series) -> pd.Timestamp:
    """``start=``/``end=`` of :func:`utilization` as a time of the table's kind (naive local
    times, or the time zone the export was read in)."""
    try:
        when = pd.Timestamp(value)
    except (ValueError, TypeError) as exc:
        raise SlurmlabError(
            f"utilization: {name}={value!r} is not a date and time ({exc}); give one as sacct "
            "-S/-E takes it, e.g. '2024-03-01T00:00'"
        ) from None
    if when is pd.NaT:
        raise SlurmlabError(f"utilization: {name}=NaT is no time; give a date and time")
    zone = times.dt.tz
    if zone is not None and when.tz is None:
        return when.tz_localize(zone)
    if zone is None and when.tz is not None:
        raise SlurmlabError(
            f"utilization: {name}={value!r} has a time zone, but the export's times have none "
            "(local times, as sacct -P writes them); give it without a zone"
        )
    return when


def _export_start(jobs: pd.DataFrame, started: pd.DataFrame) -> pd.Timestamp:
    """When the export begins: its first Submit (a pending job's too), or its first Start
    where Submit is unknown (never after a run's Start: a Start before its Submit, as a
    daylight-saving change gives, is still covered)."""
    begin = started["Start"].min()
    if "Submit" in jobs and jobs["Submit"].notna().any():
        begin = min(begin, jobs["Submit"].min())
    return begin


def _busy_nodes(
    nodelists: pd.Series, start: np.ndarray, end: np.ndarray, nnodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Node occupancy: each node's busy time (runs sharing it merged) as (start, end, 1)
    intervals; a run without a readable NodeList counts its NNodes, as before."""
    names: dict[str, list[str] | None] = {}
    node, s_rows, f_rows, rest = [], [], [], []
    for i, text in enumerate(nodelists.astype("string").fillna("").to_numpy(dtype=object)):
        expanded = names.get(text, False)
        if expanded is False:
            try:
                expanded = expand_hostlist(text) if text and text != "None assigned" else None
            except SlurmlabError:
                expanded = None
            names[text] = expanded
        if not expanded:
            rest.append(i)
            continue
        node += expanded
        s_rows += [start[i]] * len(expanded)
        f_rows += [end[i]] * len(expanded)
    busy = pd.DataFrame({"node": node, "s": s_rows, "f": f_rows}).sort_values(["node", "s"])
    # merge each node's overlapping intervals: a new one begins where the start passes
    # every earlier end of that node
    reach = busy.groupby("node", sort=False)["f"].cummax()
    prev = reach.groupby(busy["node"], sort=False).shift(1)
    new = prev.isna() | (busy["s"] > prev)
    block = new.cumsum()
    merged = (
        busy.assign(block=block.to_numpy()).groupby("block").agg(s=("s", "min"), f=("f", "max"))
    )
    rest_ix = np.array(rest, dtype=int)
    return (
        np.concatenate([merged["s"].to_numpy(np.int64), start[rest_ix]]),
        np.concatenate([merged["f"].to_numpy(np.int64), end[rest_ix]]),
        np.concatenate([np.ones(len(merged)), nnodes[rest_ix]]),
    )


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
