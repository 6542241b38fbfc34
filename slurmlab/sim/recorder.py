"""Turn the engine's job records and event log into flat tables.

The job table has sacct's columns and dtypes (:mod:`slurmlab.records.schema`),
one row per job, or per run with ``duplicates=True`` (as ``sacct --duplicates``
shows earlier runs of requeued jobs). Times are anchored at the simulation's origin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from slurmlab.policies.base import NODES_OUT
from slurmlab.policies.fairshare import billed_tres
from slurmlab.policies.priority import billing_weights
from slurmlab.records.sacct import tres_gpu_type
from slurmlab.records.schema import TEXT_DTYPE, conform
from slurmlab.sim.controller import MAINT_REASON
from slurmlab.sim.engine import (
    HOLDS,
    REQUEUE_HELD,
    SimJob,
    Simulation,
    array_heads,
    iter_records,
    shown_as,
)
from slurmlab.sim.history import FactorHistory
from slurmlab.sim.updates import request_at
from slurmlab.spec.units import format_memory_mb, ordered_hostlist

__all__ = ["SIMULATED_COLUMNS", "event_table", "job_table"]

SIMULATED_COLUMNS = (
    "JobID", "JobIDRaw", "ArrayJobID", "ArrayTaskID", "HetJobID", "HetJobOffset", "JobName",
    "User", "Account", "Partition", "QOS", "State", "ExitCode", "Submit", "Eligible", "Start",
    "End", "Elapsed", "Timelimit", "NNodes", "NCPUS", "NGPUS", "ReqMem", "NodeList",
    "AllocTRES", "ReqTRES", "Priority", "Reason", "Restarts", "StartedBy",
)  # fmt: skip


class _Tres:
    """sacct's TRES strings (AllocTRES, ReqTRES) of one simulation's cluster.

    ``billing`` is the partition's TRESBillingWeights applied to the TRES (their sum, or
    with PriorityFlags=MAX_TRES their maximum; CPUs without weights), truncated to a whole
    number as slurmctld stores it. ``gres/gpu`` and ``gres/gpu:TYPE`` appear as the
    cluster's AccountingStorageTRES tracks them. When the cluster does not say, slurmlab
    shows both (Slurm's default tracks no GPU, but the analyses read them); the type is the
    one the job's nodes have, also for an ``--exclusive`` job that asked for no GPU.
    """

    def __init__(self, cluster):
        self.weights = billing_weights(cluster)
        flags = (cluster.setting("PriorityFlags", "") or "").upper()
        self.max_tres = "MAX_TRES" in {f.strip() for f in flags.split(",")}
        tracked = cluster.setting("AccountingStorageTRES")
        self.tracked = None if tracked is None else {t.strip().lower() for t in tracked.split(",")}

    def __call__(self, tres: dict[str, int], partition: str, gpu_type) -> str:
        """``gpu_type``: the GPUs' type, None, or {type: count} for GPUs of several types
        (a job over nodes of different types: one ``gres/gpu:TYPE`` entry each)."""
        billing = billed_tres(tres, self.weights.get(partition, {}), max_tres=self.max_tres)
        parts = [f"billing={int(billing)}", f"cpu={tres['cpu']}", f"node={tres['node']}"]
        gpus, tracked = tres["gres/gpu"], self.tracked
        if gpus and (tracked is None or "gres/gpu" in tracked):
            parts.append(f"gres/gpu={gpus}")
        by_type = gpu_type if isinstance(gpu_type, dict) else {gpu_type: gpus}
        for kind, count in by_type.items():
            typed = f"gres/gpu:{kind}"
            if count and kind and (tracked is None or typed.lower() in tracked):
                parts.append(f"{typed}={count}")
        if tres["mem"]:
            parts.append(f"mem={format_memory_mb(tres['mem'])}")  # (62.50G, as sacct)
        return ",".join(sorted(parts))


def job_table(sim: Simulation, *, duplicates: bool = False) -> pd.DataFrame:
    """The job table: the current (last) run of every job, or every run with ``duplicates``.

    As in sacct, ``Priority`` is a run's priority when it was submitted (or requeued), 0 if
    it was held then, and ``Reason`` the last reason it waited for besides its turn (see
    ``_submit_priority`` and ``_db_reason``); squeue and sprio show later priorities."""
    # the columns a simulation knows; conform() adds any other schema column, empty
    rows: dict[str, list] = {c: [] for c in SIMULATED_COLUMNS}
    shown_gpu: list[str | None] = []  # GPUType, as the reader derives it from AllocTRES
    nan = np.nan
    names = sim.node_names
    tres = _Tres(sim.cluster)
    node_gpu = [n.gpu_type for n in sim.cluster.nodes]  # (None: no GPU, or several types)
    gpu_types: dict[frozenset, str] = {}
    heads = array_heads(sim, sim.now)  # an array's pending tasks show one reason (its record's)
    hostlists: dict[tuple, str] = {}  # (runs share node sets: each compressed once)
    tres_texts: dict[tuple, str] = {}
    gpu_shown: dict[tuple, str | None] = {}  # (AllocTRES, ReqTRES) -> GPUType

    def hostlist(nodes) -> str:
        key = tuple(nodes)
        text = hostlists.get(key)
        if text is None:
            # (the node table's order, as slurmctld writes a job's nodes)
            text = hostlists[key] = ordered_hostlist(names[i] for i in sorted(key))
        return text

    def shown_type(alloc_text: str | None, req_text: str) -> str | None:
        key = (alloc_text, req_text)
        if key not in gpu_shown:
            gpu_shown[key] = tres_gpu_type(alloc_text, req_text)
        return gpu_shown[key]

    def tres_text(amounts: dict, partition: str, gpu) -> str:
        key = (tuple(amounts.items()), partition, gpu if isinstance(gpu, str | None) else
               tuple(sorted(gpu.items())))  # fmt: skip
        text = tres_texts.get(key)
        if text is None:
            text = tres_texts[key] = tres(amounts, partition, gpu)
        return text

    for job, run, last in iter_records(sim):
        if not duplicates and not last:
            continue
        res = job.res
        started = run["Start"] is not None
        nodes = run["nodes"]
        count = len(nodes) if started else res.nodes
        limit, req = job.limit, job.req_tres
        if job.requests and not last:  # an earlier run: the request it ran with (sim.updates)
            limit, _count, _part, req, _changed = request_at(job, run["End"], ended=True)
        req = req or res.requested()
        alloc = res.allocated(run["usage"]) if started else req
        cpus, gpus = alloc["cpu"], alloc["gres/gpu"]
        gpu_type = res.gpu_type
        by_type = None  # {type: GPUs} of a run over nodes of several GPU types
        if started and gpus and gpu_type is None:  # (an --exclusive job holds its nodes' GPUs)
            gpu_type = gpu_types.get(frozenset(run["nodes"]))
            if gpu_type is None:
                kinds = {node_gpu[i] for i in run["nodes"]} - {None}
                gpu_type = gpu_types[frozenset(run["nodes"])] = (
                    kinds.pop() if len(kinds) == 1 else ",".join(sorted(kinds))
                )
            if "," in gpu_type:  # as sacct: gres/gpu:a100=8,gres/gpu:h100=8,gres/gpu=16
                by_type = {}
                for i, row in zip(run["nodes"], run["usage"].tolist(), strict=True):
                    if node_gpu[i] and row[2]:
                        by_type[node_gpu[i]] = by_type.get(node_gpu[i], 0) + int(row[2])
        rows["JobID"].append(job.key)
        rows["JobIDRaw"].append(str(run["raw"]))  # (the run's: a task's changes on leaving
        # its array's pending record, after a run that ended in it)
        rows["ArrayJobID"].append(job.array_job)
        rows["ArrayTaskID"].append(job.array_task)
        rows["HetJobID"].append(None)
        rows["HetJobOffset"].append(None)
        rows["JobName"].append(job.name)
        rows["User"].append(job.user)
        rows["Account"].append(job.account)
        rows["Partition"].append(run["Partition"])
        rows["QOS"].append(job.spec.qos or "normal")
        rows["State"].append(run["State"])
        rows["ExitCode"].append(run["ExitCode"])
        rows["Submit"].append(run["Submit"])
        rows["Eligible"].append(nan if run["Eligible"] is None else run["Eligible"])
        rows["Start"].append(nan if run["Start"] is None else run["Start"])
        rows["End"].append(nan if run["End"] is None else run["End"])
        rows["Elapsed"].append(nan)
        rows["Timelimit"].append(limit)
        rows["NNodes"].append(count)
        rows["NCPUS"].append(cpus)
        rows["NGPUS"].append(gpus)
        rows["ReqMem"].append(req["mem"])  # the job's request, as sacct reports it since 21.08
        # a run that never started has no nodes and no allocation: NA, as the sacct reader
        # reads sacct's "None assigned" and empty AllocTRES (sacct_text prints them so again)
        rows["NodeList"].append(hostlist(nodes) if started else None)
        rows["AllocTRES"].append(
            tres_text(alloc, job.partition, by_type or gpu_type or None) if started else None
        )
        rows["ReqTRES"].append(tres_text(req, job.partition, res.gpu_type))
        # (a cluster that accounts only gres/gpu writes no typed entry: no type, as sacct)
        shown_gpu.append(shown_type(rows["AllocTRES"][-1], rows["ReqTRES"][-1]))
        rows["Priority"].append(_submit_priority(sim, job, run["Submit"]))
        reason = None
        if run["State"] == "PENDING":
            reason = shown_as(sim, job, sim.now, heads).reason
        # a pending job's reason as slurmctld gives it to the database: the current one,
        # but waiting for its turn (Priority, Resources) leaves the last other one, or None
        # (real Slurm 22.05, checked by hand at stop 30: pending jobs waiting for Resources
        # or Priority show None in sacct; held, Dependency, PartitionTimeLimit, BeginTime
        # ones their reason); a run that left the queue its last other one (_db_reason)
        if reason in _TURN_OR_NONE:
            reason = _db_reason(job, run)
        rows["Reason"].append(_DB_WORDS.get(reason, reason))
        rows["Restarts"].append(run["Restarts"])
        rows["StartedBy"].append(run["by"])
    frame = pd.DataFrame(rows)
    origin = sim.origin
    for col in ("Submit", "Eligible", "Start", "End"):
        frame[col] = origin + pd.to_timedelta(frame[col].astype(float), unit="s")
    limit = frame["Timelimit"].astype(float)
    frame["Timelimit"] = pd.to_timedelta(limit.where(np.isfinite(limit)), unit="s")
    now = origin + pd.to_timedelta(sim.now, unit="s")
    end = frame["End"].where(frame["End"].notna(), now)
    frame["Elapsed"] = (end - frame["Start"]).where(frame["Start"].notna(), pd.Timedelta(0))
    out = conform(frame)
    _add_derived(out, shown_gpu)
    out.attrs["origin"] = origin
    return out


def _add_derived(out: pd.DataFrame, gpu_types: list) -> None:
    """The columns the sacct reader derives (DERIVED_COLUMNS), so that code written against
    an export runs on a simulation: GPUType, one task per row (ArrayTasks 1, no
    ArrayTaskRange: each array task is its own row), ExitStatus/ExitSignal from ExitCode,
    and ReqMemPer/CancelledBy unknown (ReqMem is per job, as sacct reports it since 21.08;
    a simulated scancel has no uid)."""
    text = TEXT_DTYPE
    n = len(out)
    out["GPUType"] = pd.array(gpu_types, dtype=text)
    out["ArrayTasks"] = pd.array([1] * n, dtype="Int64")
    out["ArrayTaskRange"] = pd.array([None] * n, dtype=text)
    out["ReqMemPer"] = pd.array([None] * n, dtype=text)
    pairs = [
        (None, None) if pd.isna(code) else tuple(int(v) for v in code.split(":", 1))
        for code in out["ExitCode"].tolist()
    ]  # (the engine writes every ExitCode as status:signal)
    out["ExitStatus"] = pd.array([p[0] for p in pairs], dtype="Int64")
    out["ExitSignal"] = pd.array([p[1] for p in pairs], dtype="Int64")
    out["CancelledBy"] = pd.array([None] * n, dtype=text)


EVENT_COLUMNS = ["time", "event", "JobIDRaw", "JobID", "detail"]


def event_table(sim: Simulation) -> pd.DataFrame:
    """The event log, in the order things happened: one row per event.

    Columns: ``time`` (float seconds from the simulation's start; the job table's
    timestamps are ``origin`` plus these), ``event``, ``JobIDRaw`` (Int64, NA for events of
    no job), ``JobID`` (the job table's id, None for events of no job) and ``detail``.
    Kinds (``event``) and their ``detail``:

    * ``submit`` (a job, or an array task, is submitted), ``eligible`` (it may start, the
      first time in its run: at once, or when its dependency, begin time or hold cleared;
      again after a hold of the pending job; sacct's Eligible), ``start`` (``main`` or
      ``backfill``: who
      started it), ``end`` (its State: COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL,
      PREEMPTED...), ``requeue`` (the State its run ended in), ``preempt`` (``by <JobID>``),
      ``update`` (scontrol update: what changed, ``NumNodes=1 TimeLimit=30:00``);
    * ``priority`` (multifactor priorities recalculated), ``node_down`` / ``node_idle`` /
      ``node_drain``... (``detail``: the node), ``reservation_start`` / ``reservation_end``
      (the reservation), ``refused`` (a scenario action that could not apply).

    A run's nodes are in the job tables (``jobs_all_runs``), not in its events. Event times
    are the engine's own floats: compare them with the tables' times to the microsecond.
    """
    frame = pd.DataFrame(sim.events, columns=EVENT_COLUMNS)
    raw = {i: job.raw for i, job in sim.jobs.items()}  # (the log holds the engine's own ids)
    frame["JobIDRaw"] = frame["JobIDRaw"].map(raw).astype("Int64")
    return frame


def last_before(history: list[tuple[float, object]] | FactorHistory, t: float, default):
    """The value of a (time, value) history at ``t``: the last one set at or before it."""
    if isinstance(history, FactorHistory):
        return history.at(t, default)
    value = default
    for when, v in history:
        if when > t:
            break
        value = v
    return value


def priority_at(sim: Simulation, job: SimJob, t: float) -> int:
    """The priority ``job`` had at ``t``: under priority/multifactor its last recalculation at
    or before ``t`` (``job.factors``, which sprio shows too); otherwise the value it was set to
    last (at submission or a release: ``Simulation._reprioritise``)."""
    f = last_before(job.factors, t, None)
    if f is None:
        return int(job.priority)
    return int(f if sim.prio is None else f.priority(sim.prio.w))


_TURN = frozenset(("None", "Priority", "Resources", NODES_OUT))  # waiting one's turn: not kept
_TURN_OR_NONE = _TURN | {None}
#: reasons squeue shows in slurmctld's words (state_desc) whose code the database keeps:
#: scontrol requeuehold sets WAIT_HELD_USER (job_mgr.c), so sacct says JobHeldUser; a
#: maintenance window's WAIT_NODE_NOT_AVAIL is ReqNodeNotAvail (the maintenance fixture)
_DB_WORDS = {REQUEUE_HELD: "JobHeldUser", MAINT_REASON: "ReqNodeNotAvail"}


def _submit_priority(sim: Simulation, job, t: float) -> int:
    """sacct's Priority of a run: the priority it had when it was submitted (or requeued),
    0 if it was held then. In every real fixture sacct's Priority is the job's first squeue
    priority (a few seconds after submission), not a later one (``holds``: a job requeued
    while held shows 0, one held after it started its submission's)."""
    return 0 if last_before(job.reasons, t, "") in HOLDS else priority_at(sim, job, t)


def _db_reason(job, run: dict) -> str:
    """sacct's Reason for a run that left the queue: the last reason it waited for other
    than its turn (a dependency, a begin time, a limit...), as slurmctld keeps it for the
    database (``state_reason_prev_db``); "None" when it only waited for its turn.

    In the real fixtures: a job that waited for a dependency shows Dependency after it
    completed, a requeued run BeginTime (its requeue delay).
    """
    t0 = run["Submit"]
    t1 = run["Start"] if run["Start"] is not None else run["End"]
    out = "None"
    for when, reason in job.reasons:
        if t1 is not None and when > t1:
            break
        if when >= t0 and reason not in _TURN:
            out = reason
    return out
