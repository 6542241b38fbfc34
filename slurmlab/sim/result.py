"""What a simulation returns, and the Slurm-like views of it at any simulated time."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.policies.backfill import SlurmBackfill
from slurmlab.policies.fairshare import billed_tres
from slurmlab.sim.engine import (
    HOLDS,
    NODES_OUT,
    Simulation,
    _unsplit_at,
    array_heads,
    array_name,
    arrays_converted,
    iter_records,
    last_tried,
    records_at,
    shown_as,
    taken_out,
    unfinished_at,
    up_at,
    used_at,
)
from slurmlab.sim.metrics import failure_metrics, run_accounting, schedule_metrics
from slurmlab.sim.processes import pending_partitions
from slurmlab.sim.recorder import event_table, job_table, last_before, priority_at
from slurmlab.sim.updates import request_at
from slurmlab.spec.job import listed_partitions
from slurmlab.spec.units import (
    BITSTR_LEN,
    array_task_str,
    compress_hostlist,
    format_duration,
    format_memory_mb,
    index_ranges,
    ordered_hostlist,
    parse_instant,
)

__all__ = ["SimulationResult", "sacct_text", "squeue_frame"]

SQUEUE_COLUMNS = [
    "JOBID", "PARTITION", "NAME", "USER", "ACCOUNT", "ST", "TIME", "TIME_LIMIT", "NODES",
    "NODELIST(REASON)", "START_TIME", "PRIORITY", "SCHEDNODES",
]  # fmt: skip


def _seconds(sim: Simulation, at) -> float:
    """``at`` as seconds from the simulation's start: now when None, else seconds, a duration
    text (``"2h"``) or a date and time (see :func:`~slurmlab.spec.units.parse_instant`): a
    ``Timestamp``, a ``datetime`` or a ``numpy.datetime64`` (what ``jobs["Start"].values``
    holds). Every view's ``at=`` is read here."""
    if at is None:
        return sim.now
    if isinstance(at, np.datetime64):  # (a column's .values, a slider built from them)
        at = pd.Timestamp(at)
    if at is pd.NaT:
        raise SlurmlabError(
            f"at={at!r} is no time (a job that has not started has no Start, one that has not "
            "ended no End): give a time (seconds, 2h, or a date and time)"
        )
    t = parse_instant(at, sim.origin, what="at")
    if t == float("inf"):
        raise SlurmlabError(f"at={at!r}: give a time (seconds, 2h, or a date and time)")
    if t < 0:
        raise SlurmlabError(
            f"at={at!r} is before the simulation's start ({sim.origin}): give a later time"
        )
    if t > sim.now and sim.env.peek() < float("inf"):  # paused: its future is not known yet
        raise SlurmlabError(
            f"at={at!r} ({t:.0f} s) is after the time the simulation has reached "
            f"({sim.now:.0f} s), with events still to come: advance it first "
            "(lab.advance(...), or simulate without until)"
        )
    return t


def squeue_frame(sim: Simulation, at=None, *, collapse: bool = False) -> pd.DataFrame:
    """Pending and running jobs at time ``at`` (seconds, a timestamp, or now), like squeue.

    Pending jobs show their reason and, where the scheduler planned one, their
    expected start (``squeue --start``) and the nodes it is planned on (SCHEDNODES: the
    ``slurm`` policy's backfill reservations, as backfill.c sets them; the planned starts
    of ``easy`` and ``conservative``; None where there is none, squeue's ``(null)``).
    ``PRIORITY`` is the priority each job had at ``at`` (multifactor priorities are
    recalculated every PriorityCalcPeriod). Rows are in
    squeue's default order, ``--sort=P,t,-p``: by partition, pending before running, then
    by decreasing priority. Each array task has its row, as ``squeue -r`` lists them;
    ``collapse=True`` shows an array's tasks that have not started as the one pending
    record Slurm keeps for them, as plain squeue does (``12_[3-9%2]``).
    """
    t = _seconds(sim, at)
    rows = []
    heads = array_heads(sim, t)
    tasks: dict[int, tuple[int, list[int]]] = {}  # collapse: array -> (its row, its tasks)
    apart: dict[int, list[tuple[int, int, str]]] = {}  # its pending tasks split off it
    states = up = None  # node states, and which nodes are up, at t when a reason needs them
    plans = None  # the slurm policy: the arrays' pending records' planned starts and nodes
    # (whether any node is ever out: else no Resources job waits for nodes that are down)
    nodes_vary = bool(sim.node_events) or any(n.state != "IDLE" for n in sim.cluster.nodes)
    for job, run, _last in records_at(sim, t):  # (submitted by t, not ended by then)
        # the request as it was then (scontrol update may have changed it since); -p a,b:
        # its partitions and their shapes (job.alts) are those it had at t unless an update
        # since changed its partition list or node count (then only the request kept at t)
        limit, count, asked, req, changed = request_at(job, t)
        alts_then = job.alts is not None and (
            not changed or (asked == job.parts and req == job.req_tres)
        )
        start = run["Start"]
        if start is not None and start <= t:
            st = "R"
            where = ordered_hostlist(sim.node_names[i] for i in sorted(run["nodes"]))
            elapsed = format_duration(pd.Timedelta(seconds=t - start))
            planned = sim.origin + pd.Timedelta(seconds=start)
            sched = None
        else:
            st = "PD"
            shown = shown_as(sim, job, t, heads)  # an array's pending tasks: one record
            reason = last_before(shown.reasons, t, "None")
            if collapse and job.array_id is not None and heads.get(job.array_id) is shown:
                if job.array_id in tasks:  # (its record's row is the first task's)
                    tasks[job.array_id][1].append(job.array_task)
                    continue
                tasks[job.array_id] = (len(rows), [job.array_task])
            elif collapse and job.array_id is not None:  # a task split off, pending
                apart.setdefault(job.array_id, []).append((len(rows), job.array_task, reason))
            if reason == "ReqNodeNotAvail":  # squeue shows the nodes (slurmctld's state_desc)
                states = states or node_states(sim, t)
                out = [
                    n
                    for i, n in enumerate(sim.node_names)
                    if job.mask[i] and states[n].rstrip("$*") in ("down", "drain", "drng")
                ]
                # (none down: nodes advance reservations hold, node_scheduler.c's words)
                reason += (
                    f", UnavailableNodes:{compress_hostlist(out)}"
                    if out
                    else ", May be reserved for other job"
                )
            if reason == "Resources" and nodes_vary:
                up = up_at(sim, t) if up is None else up
                # (-p a,b: of the partition tried last; with partitions an update changed
                # since, whose shapes then are not kept, when every one of them is short)
                tried = (
                    [last_tried(sim, job)]
                    if alts_then
                    else [(name, count) for name in asked.split(",")]
                )
                if all(up[sim.partition_index(name)].sum() < need for name, need in tried):
                    reason = NODES_OUT  # (squeue shows slurmctld's state_desc)
            where = f"({reason})"
            elapsed = "0:00"
            p = last_before(shown.plans, t, None)
            record = None  # an array's pending record: its last reservation (see below)
            if (
                job.array_id is not None
                and heads.get(job.array_id) is shown
                and isinstance(sim.policy, SlurmBackfill)
            ):
                if plans is None:
                    plans = _record_plans(sim, t, heads)
                record = plans.get(job.array_id)
            if record is not None:
                p = record[0]
            # (a start behind a job with no time limit is never: N/A, and no nodes planned)
            planning = p is not None and math.isfinite(p)
            if record is not None:
                nodes = record[1]
            else:  # (a held job: the nodes of its last plan till a cycle clears them)
                held = planning or reason in HOLDS
                nodes = last_before(shown.sched, t, None) if held else None
            sched = (
                None
                if nodes is None
                else ordered_hostlist(sim.node_names[i] for i in sorted(nodes))
            )
            if p is None:  # no expected start: squeue --start shows the begin time still to
                # come, whatever the job waits for (job_mgr.c pack_job: begin_time > now;
                # real Slurm 22.05: a --begin=now+600 job, and the holds fixture's held
                # requeued jobs): this run's, not the one a later requeue set; an array's
                # pending record's is its head's first run's
                begin = run["Begin"] if shown is job else _first_begin(shown)
                p = begin if begin is not None and begin > t else None
            known = p is not None and math.isfinite(p)
            planned = sim.origin + pd.Timedelta(seconds=p) if known else pd.NaT
        priority = priority_at(sim, job, t)
        held = where[1:-1] if st == "PD" else last_before(job.reasons, t, "")
        if held in HOLDS:  # a hold sets it to 0 (real Slurm 22.05, a running job's too), so
            priority = 0  # squeue lists held jobs last
        if st == "R":
            partition, nodes = run["Partition"], len(run["nodes"])
        else:
            partition = pending_partitions(job, t, asked)
            shape = _waiting_shape(sim, job, t) if alts_then else None
            nodes = _pending_nodes(job, t, where, count, shape)
        rows.append(
            {
                "JOBID": job.key,
                "PARTITION": partition,
                "NAME": job.name,
                "USER": job.user,
                "ACCOUNT": job.account,
                "ST": st,
                "TIME": elapsed,
                "TIME_LIMIT": format_duration(
                    None if np.isinf(limit) else pd.Timedelta(seconds=limit)
                ),
                "NODES": nodes,
                "NODELIST(REASON)": where,
                "START_TIME": planned,
                "PRIORITY": priority,
                "SCHEDNODES": sched,
                # squeue's -S P,t,-p (state: PENDING sorts before RUNNING); then submit order.
                # P is the partition as shown: a job pending in several sorts by the whole
                # list, "zeta,mid" after "mid" (print.c print_jobs_array keeps the job's
                # partition string, sort.c _sort_job_by_partition xstrcmp's it)
                "_order": (partition, st == "R", -priority, run["Submit"], job.id),
            }
        )
    # A record of one task keeps its brackets unless starting a task from it left that one
    # (real Slurm 22.05: --array=3 pending shows 2_[3]; the last of --array=1-5 after four
    # started, 6_5). squeue folds the pending tasks split off a record back into it, their
    # reasons added to its own (_combine_pending_array_tasks: "6_[1-2] JobHeldUser,Priority")
    converted = arrays_converted(sim, t) if tasks else set()
    dropped = set()
    for array_id, (row, indices) in tasks.items():
        if len(indices) == 1 and array_id in converted:
            continue
        reason = rows[row]["NODELIST(REASON)"][1:-1]
        merged = False
        for other, task, why in apart.get(array_id, ()):
            if any(rows[other][c] != rows[row][c] for c in ("NAME", "PARTITION")):
                continue  # (squeue combines only tasks of the record's name and partition)
            merged = True
            dropped.add(other)
            indices.append(task)
            if why not in reason:  # (squeue: strstr of the record's reasons)
                reason += f",{why}"
        rows[row]["NODELIST(REASON)"] = f"({reason})"
        head = heads[array_id]
        if merged:  # squeue writes the combined list itself: bit_fmt into SLURM_BITSTR_LEN
            tasks = index_ranges(sorted(indices))[: BITSTR_LEN - 1]  # bytes (no stride, no
        else:  # throttle, no '...'; real Slurm 22.05: 2_[0,2-5] for 2_[0,2-3,5%2] and 2_4)
            tasks = array_task_str(indices, head.throttle)
        rows[row]["JOBID"] = f"{array_name(head)}_[{tasks}]"
    rows = [r for k, r in enumerate(rows) if k not in dropped]
    frame = pd.DataFrame(rows, columns=SQUEUE_COLUMNS + ["_order"])
    frame = frame.astype({"NODES": "int64", "START_TIME": "datetime64[ns]", "PRIORITY": "int64"})
    if len(frame):
        frame = frame.sort_values("_order", kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)


def _pending_nodes(job, t: float, where: str, count: int, shape: tuple | None = None) -> int:
    """squeue's NODES of a job pending at ``t``: its node count ``count`` (``-p a,b``: that of
    ``shape``, the request shape it had then, whose MAX and nodes count too), but for ``--nodes=MIN-MAX`` waiting
    its turn (Resources, Priority) the nodes slurmctld's test at submission gives it
    (node_cnt_wag: up to MAX of the nodes of its partition that fit it; real Slurm 22.05
    shows 4 for a pending ``-N 2-4``). A job held, blocked by a limit or a dependency is not
    tested (MIN), and an update of its request by ``t`` clears the guess (job_mgr.c)."""
    most, mask = job.most, job.mask
    if shape is not None:  # (the engine's request shape: its mask, count and MAX)
        mask, count, most = shape[5], shape[6], shape[10]
    updated = any(when <= t for when, *_ in job.requests or ())
    if most is None or updated or where not in _TESTED:
        return count
    return max(count, min(most, int(mask.sum())))  # (SimJob.nodes_guess, with that shape)


def _waiting_shape(sim: Simulation, job, t: float) -> tuple:
    """The request shape (an entry of the engine's ``job.alts``) of a ``-p a,b`` job pending
    at ``t``, as the engine gave it then (``Simulation._set_shape``): its first partition's
    from its submission, from each start the partition's it started in, and from each time
    it was queued (its reason Priority) the first partition it may wait in (build_job_queue
    tries that record first). So NODES is that partition's node count, as it was live."""
    started, last = -math.inf, None  # (the start of its last run started by t, and where)
    for r in job.runs:
        if r["Start"] is not None and r["Start"] <= t:
            started, last = r["Start"], r["Partition"]
    queued = any(started < when <= t and why == "Priority" for when, why in job.reasons)
    waits = sim.waits_in(job) if queued else ()
    if waits:
        return job.alts[waits[0]][1]
    return next((shape for res, shape, _p in job.alts if res.partition == last), job.alts[0][1])


def _first_begin(job) -> float:
    """The begin time of the job's first run (an array's pending record shows its head's)."""
    return job.runs[0]["Begin"] if job.runs else job.begin


_TESTED = {"(Resources)", "(Priority)"}


def node_states(sim: Simulation, at=None) -> dict[str, str]:
    """Each node's sinfo state at ``at``: idle, mix, alloc, down* (failed: not responding),
    down (configured so), drng (draining), drain (drain* when it failed too); an idle node
    in a reservation in force resv, in a maintenance reservation maint, and any other state
    there with '$' (alloc$, down$...), as Slurm 22.05's node_state_string_compact. Under
    the ``slurm`` policy an idle node that the latest backfill cycle planned a pending job
    on (its SCHEDNODES at ``at``) is plnd: backfill.c sets NODE_STATE_PLANNED on the idle
    nodes of every job it reserves for (_handle_planned, after clearing the last cycle's),
    and node_state_string_compact prints PLND for an idle node with it after RESV."""
    t = _seconds(sim, at)
    return _node_states(sim, t, used_at(sim, t))


def _node_states(sim: Simulation, t: float, used: np.ndarray) -> dict[str, str]:
    """:func:`node_states` at ``t`` (seconds), ``used`` the resources held then (used_at)."""
    out = {}
    reserved: dict[int, str] = {}  # (node_state_string_compact: MAINT before RESV)
    for r, mask in sim.reservations.values():
        if r.start <= t < r.end:
            for i in np.flatnonzero(mask):
                if reserved.get(int(i)) != "maint":
                    reserved[int(i)] = "maint" if r.maint else "resv"
    planned = _planned_nodes(sim, t) if isinstance(sim.policy, SlurmBackfill) else set()
    configured = {n.name: n.state for n in sim.cluster.nodes}
    events: dict[str, list] = {}
    for w, n, st in sim.node_events:
        events.setdefault(n, []).append((w, st))
    for i, name in enumerate(sim.node_names):
        history = [st for w, st in events.get(name, []) if w <= t]
        changed = history[-1] if history else None  # by the simulation, or None
        admin = configured[name] if changed is None else changed
        # drained: by the configuration or an admin, until resumed (a failure keeps it)
        drained = configured[name] == "DRAIN"
        failed = False  # (until repaired: drained while down, it is still down)
        for st in history:
            drained = st == "DRAIN" or (drained and st != "IDLE")
            failed = st == "DOWN" or (failed and st == "DRAIN")
        maint = reserved.get(i) == "maint"
        # a failed node's slurmd does not respond: '*'; in a maintenance reservation the
        # node's state shows '$' instead (node_state_string_compact tests MAINT first)
        mark = "$" if maint else "*" if failed else ""
        if drained:  # draining while jobs run on it, else drained
            out[name] = ("drng" if used[i].any() else "drain") + mark
        elif changed == "DOWN":  # failed (an admin's State=DOWN of a node that responds: down)
            out[name] = "down" + mark
        elif admin in ("DOWN", "FUTURE"):
            out[name] = admin.lower() + ("$" if maint else "")
        # sinfo: alloc when every CPU is allocated, mix when some are (GPUs do not count);
        # an idle node in a reservation then in force is resv, in a maintenance one maint,
        # else plnd where the latest backfill cycle planned a job (a mixed one stays mix)
        elif not used[i].any():
            out[name] = reserved.get(i, "plnd" if i in planned else "idle")
        elif used[i, 0] >= sim.capacity[i, 0]:
            out[name] = "alloc" + ("$" if maint else "")
        else:
            out[name] = "mix" + ("$" if maint else "")
    return out


def _planned_nodes(sim: Simulation, t: float) -> set[int]:
    """The nodes the ``slurm`` policy's latest backfill cycle planned pending jobs on, as
    of ``t``: the union of the SCHEDNODES of the jobs pending then with a planned start
    (each array task's own: backfill.c ORs every reserved task's nodes into
    planned_bitmap). A cycle that no longer plans a job clears its SCHEDNODES, so a node
    stays planned exactly while a standing plan holds it."""
    out: set[int] = set()
    for job, run, _last in records_at(sim, t):  # (submitted by t, not ended by then)
        if run["Start"] is not None and run["Start"] <= t:
            continue  # (running at t)
        p = last_before(job.plans, t, None)
        if p is None or not math.isfinite(p):
            continue
        nodes = last_before(job.sched, t, None)
        if nodes:
            out.update(nodes)
    return out


#: sinfo's long node states (``sinfo -l``, ``sinfo -N -l``: node_state_string) for the
#: compact ones of :func:`node_states` (their '*' and '$' marks kept)
LONG_STATES = {
    "idle": "idle", "mix": "mixed", "alloc": "allocated", "down": "down", "drng": "draining",
    "drain": "drained", "resv": "reserved", "maint": "maint", "future": "future",
    "futr": "future", "plnd": "planned",
}  # fmt: skip

NODE_USAGE_COLUMNS = [
    "NodeName", "Partitions", "State", "CPUAlloc", "CPUTot", "AllocMem", "RealMemory",
    "GPUAlloc", "GPUTot", "JobIDs",
]  # fmt: skip


def node_usage_frame(sim: Simulation, at=None) -> pd.DataFrame:
    """One row per node (in the cluster's node order) at ``at``, with the fields ``scontrol
    show node`` prints: see :meth:`SimulationResult.node_usage`."""
    t = _seconds(sim, at)
    used = np.zeros_like(sim.capacity)
    on: list[list[str]] = [[] for _ in sim.node_names]  # the jobs running on each node
    for job, run, _last in records_at(sim, t):  # (as used_at: the runs in progress at t)
        if run["Start"] is not None and run["Start"] <= t:
            nodes = list(run["nodes"])
            used[nodes] += run["usage"]
            for i in nodes:
                on[i].append(job.key)
    states = _node_states(sim, t, used)
    partitions: dict[str, list[str]] = {name: [] for name in sim.node_names}
    for p in sim.cluster.partitions:
        for name in p.nodes:
            partitions[name].append(p.name)
    rows = []
    for i, node in enumerate(sim.cluster.nodes):
        state = states[node.name]
        word = state.rstrip("$*")
        rows.append(
            (
                node.name,
                ",".join(partitions[node.name]),
                LONG_STATES.get(word, word) + state[len(word) :],
                int(used[i, 0]),
                int(sim.capacity[i, 0]),
                int(used[i, 1]),
                int(node.memory_mb),
                int(used[i, 2]),
                int(sim.capacity[i, 2]),
                ",".join(on[i]),
            )
        )
    frame = pd.DataFrame(rows, columns=NODE_USAGE_COLUMNS)
    ints = ["CPUAlloc", "CPUTot", "AllocMem", "RealMemory", "GPUAlloc", "GPUTot"]
    return frame.astype(dict.fromkeys(ints, "int64"))


SPRIO_COLUMNS = [
    "JOBID", "PARTITION", "USER", "ACCOUNT", "PRIORITY", "SITE", "AGE", "ASSOC", "FAIRSHARE",
    "JOBSIZE", "PARTITION_PRIO", "QOS", "NICE",
]  # fmt: skip

#: Pending reasons of a job sprio leaves out (priority_multifactor.c,
#: priority_p_get_priority_factors_list): held, priority 0 (a hold; a reservation deleted
#: under it, reservation.c); or not eligible yet, its begin_time 0 or later than now (a
#: dependency not yet satisfied, a --begin time or a requeue delay to come, a reservation
#: that has not started, an array's tasks over its %N throttle: real Slurm 22.05 shows their
#: EligibleTime Unknown or to come; fixtures holds, dependency, failures, reservation, arrays).
SPRIO_LEAVES_OUT = HOLDS | {
    "ReservationDeleted", "Dependency", "DependencyNeverSatisfied", "BeginTime", "Reservation",
    "JobArrayTaskLimit",
}  # fmt: skip


def _sprio_leaves_out(reason: str, begin: float | None, t: float) -> bool:
    """Whether sprio leaves out at ``t`` a job pending for ``reason`` whose run's begin time
    is ``begin`` (:data:`SPRIO_LEAVES_OUT`). For BeginTime its begin time decides, not the
    reason: priority_multifactor.c tests ``begin_time > now``, and under the ``slurm``
    policy a job whose begin time passed shows BeginTime until a pass looks at it (real
    sprio listed begin-quiet's late at 140-170 s while squeue showed it BeginTime)."""
    if reason == "BeginTime":
        return begin is None or begin > t
    return reason in SPRIO_LEAVES_OUT


def sprio_frame(sim: Simulation, t: float) -> pd.DataFrame:
    """Pending jobs at ``t`` with their weighted priority factors (last recalculation <= t).

    As in Slurm, only jobs that are eligible and not held are listed: a held job (priority 0)
    and one not yet eligible (waiting on a dependency, a --begin time, a requeue delay, a
    reservation to start or its array's %N throttle) are left out (:data:`SPRIO_LEAVES_OUT`).
    An array's tasks that have not started are one row, the JobID of the array (its pending
    record's, as real sprio lists it); a task that started, or was split off, is its own.
    TRES is sprio -l's last column: each weighted TRES factor (``cpu=16,gres/gpu=1000``),
    empty without PriorityWeightTRES.
    """
    if sim.prio is None:
        raise SlurmlabError(
            "sprio needs PriorityType=priority/multifactor; this cluster uses priority/basic "
            "(jobs run in submit order)"
        )
    rows = []
    heads = array_heads(sim, t)
    listed: set[int] = set()  # arrays whose pending record has its row
    for job, run, _last in records_at(sim, t):  # (submitted by t, not ended by then)
        s = run["Start"]
        if s is not None and s <= t:
            continue
        key, shown = job.key, shown_as(sim, job, t, heads)
        begin = run["Begin"] if shown is job else _first_begin(shown)  # (as squeue's)
        if job.array_id is not None and heads.get(job.array_id) is shown:
            # the tasks that have not started are one job record (the array's JobID), one
            # row in sprio (real sprio 22.05: '4' for the pending tasks of array 4)
            if job.array_id in listed:
                continue
            listed.add(job.array_id)
            key, job = array_name(shown), shown
        if _sprio_leaves_out(last_before(job.reasons, t, "None"), begin, t):
            continue
        f = last_before(job.factors, t, None)
        if f is None:
            continue
        # -p a,b: a row per partition, in the order its records are tried (real sprio 22.05,
        # the multi-partition fixture), each with that partition's factors. The partitions
        # are those of t: an update of its partition since is not in them
        _limit, _count, asked, _req, _changed = request_at(job, t)
        if "," in asked:
            spec = job.spec if asked == job.parts else replace(job.spec, partition=asked)
            parts = listed_partitions(spec, sim.cluster)
        else:
            parts = [asked]
        for part in parts:
            g = f if "," not in asked else sim.prio.in_partition(f, job, part)
            w = g.weighted(sim.prio.w)
            rows.append(
                {
                    "JOBID": key, "PARTITION": part, "USER": job.user,
                    "ACCOUNT": job.account, "PRIORITY": g.priority(sim.prio.w), "SITE": 0,
                    "AGE": w["AGE"], "ASSOC": w["ASSOC"], "FAIRSHARE": w["FAIRSHARE"],
                    "JOBSIZE": w["JOBSIZE"], "PARTITION_PRIO": w["PARTITION"], "QOS": w["QOS"],
                    "NICE": w["NICE"], "TRES": g.tres_text(sim.prio.w),
                    "_order": job.id,
                }
            )  # fmt: skip
    frame = pd.DataFrame(rows, columns=[*SPRIO_COLUMNS, "TRES", "_order"])  # (TRES: sprio -l's
    frame = frame.astype(dict.fromkeys(SPRIO_COLUMNS[4:], "int64"))  # last column)
    # sprio's default order (sprio/sort.c DEFAULT_SORT "i"): by job id; a job of several
    # partitions keeps its rows in the order of its records (the fixtures' sprio -l)
    frame = frame.sort_values("_order", kind="stable").drop(columns="_order")
    return frame.reset_index(drop=True)


#: squeue's output formats (squeue.c, opts.c): (column, header, width, right-justified,
#: cut: a longer value is cut to the width, as _print_str does; times are not cut)
_SQUEUE_HEAD = [
    ("JOBID", "JOBID", 18, True, True),
    ("PARTITION", "PARTITION", 9, True, True),
    ("NAME", "NAME", 8, True, True),
    ("USER", "USER", 8, True, True),
]
_SQUEUE_TAIL = [
    ("NODES", "NODES", 6, True, True),
    ("NODELIST(REASON)", "NODELIST(REASON)", 0, False, False),
]
_SQUEUE_DEFAULT = [
    *_SQUEUE_HEAD,
    ("ST", "ST", 2, True, True),
    ("TIME", "TIME", 10, True, False),
    *_SQUEUE_TAIL,
]
_SQUEUE_LONG = [
    *_SQUEUE_HEAD,
    ("STATE", "STATE", 8, True, True),
    ("TIME", "TIME", 10, True, False),
    ("TIME_LIMIT", "TIME_LIMIT", 9, True, False),
    *_SQUEUE_TAIL,
]
_SQUEUE_START = [
    *_SQUEUE_HEAD,
    ("ST", "ST", 2, True, True),
    ("START_TIME", "START_TIME", 19, True, False),
    _SQUEUE_TAIL[0],
    ("SCHEDNODES", "SCHEDNODES", 20, False, True),
    _SQUEUE_TAIL[1],
]


#: ``sprio -l``'s format (sprio.c: ``%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P
#: %.10Q %.11N %.20T``): (column of :func:`sprio_frame`, header, width, right-justified);
#: its _print_str cuts every value to its width, as squeue's does
_SPRIO_LONG = [
    ("JOBID", "JOBID", 15, True), ("PARTITION", "PARTITION", 9, False),
    ("USER", "USER", 8, True), ("PRIORITY", "PRIORITY", 10, True), ("SITE", "SITE", 10, True),
    ("AGE", "AGE", 10, True), ("ASSOC", "ASSOC", 10, True),
    ("FAIRSHARE", "FAIRSHARE", 10, True), ("JOBSIZE", "JOBSIZE", 10, True),
    ("PARTITION_PRIO", "PARTITION", 10, True), ("QOS", "QOS", 10, True),
    ("NICE", "NICE", 11, True), ("TRES", "TRES", 20, True),
]  # fmt: skip


def _squeue_cell(text: str, width: int, right: bool, cut: bool) -> str:
    """One value as squeue's _print_str prints it (width 0: as it is)."""
    if width <= 0:
        return text
    if cut:
        text = text[:width]
    return text.rjust(width) if right else text.ljust(width)


def _slurm_time(value, missing: str) -> str:
    """A time as Slurm prints it (``SLURM_TIME_FORMAT=standard``), ``missing`` for none."""
    return missing if pd.isna(value) else pd.Timestamp(value).strftime("%Y-%m-%dT%H:%M:%S")


def _slurm_duration(value) -> str:
    """A duration as sacct prints it: ``00:20:00``, ``1-00:00:00``."""
    days, rest = divmod(int(pd.Timedelta(value).total_seconds()), 86400)
    h, rest = divmod(rest, 3600)
    hms = f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days}-{hms}" if days else hms


#: sacct's default ``--format`` (SACCT_FORMAT unset).
SACCT_DEFAULT_FORMAT = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#: sacct's column widths (sacct.c ``fields[]``; negative: left-justified), for the columns
#: of the job table; AllocCPUS is NCPUS.
SACCT_WIDTHS = {
    "JobID": -12, "JobIDRaw": -12, "JobName": 10, "User": 9, "Account": 10, "Partition": 10,
    "QOS": 10, "State": 10, "ExitCode": 8, "Submit": 19, "Eligible": 19, "Start": 19,
    "End": 19, "Elapsed": 10, "Timelimit": 10, "NNodes": 8, "NCPUS": 10, "AllocCPUS": 10,
    "ReqMem": 10, "NodeList": 15, "AllocTRES": 10, "ReqTRES": 10, "Priority": 10,
    "Reason": 22, "Restarts": 8,
}  # fmt: skip


def _sacct_cell(frame: pd.DataFrame, name: str) -> list[str]:
    """A job-table column in sacct's spellings."""
    col = frame["NCPUS" if name == "AllocCPUS" else name]
    if name == "Start":  # real Slurm 22.05: None for a job that ended without starting
        ends = frame["End"] if "End" in frame else pd.Series(pd.NaT, index=frame.index)
        return [
            ("None" if not pd.isna(e) else "Unknown") if pd.isna(v) else _slurm_time(v, "")
            for v, e in zip(col, ends)
        ]
    if name == "NodeList":
        return ["None assigned" if pd.isna(v) else str(v) for v in col]
    if name == "ReqMem":
        return ["" if pd.isna(v) else format_memory_mb(int(v)) for v in col]  # (62.50G)
    if pd.api.types.is_datetime64_any_dtype(col):
        return [_slurm_time(v, "Unknown") for v in col]
    if pd.api.types.is_timedelta64_dtype(col):
        missing = "UNLIMITED" if name == "Timelimit" else "00:00:00"  # (never started)
        return [missing if pd.isna(v) else _slurm_duration(v) for v in col]
    return ["" if pd.isna(v) else str(v) for v in col]


#: sacct's fields, in its ``fields[]`` order (sacct.c): ``--format`` takes a field by any
#: case-insensitive prefix of its name, the first in this order (options.c:
#: xstrncasecmp over the length given; ``st`` is Start, ``State`` comes after it)
SACCT_FIELDS = (
    "Account", "AdminComment", "AllocCPUS", "AllocNodes", "AllocTRES", "AssocID", "AveCPU",
    "AveCPUFreq", "AveDiskRead", "AveDiskWrite", "AvePages", "AveRSS", "AveVMSize", "BlockID",
    "Cluster", "Comment", "Constraints", "ConsumedEnergy", "ConsumedEnergyRaw", "Container",
    "CPUTime", "CPUTimeRAW", "DBIndex", "DerivedExitCode", "Elapsed", "ElapsedRaw", "Eligible",
    "End", "ExitCode", "Flags", "GID", "Group", "JobID", "JobIDRaw", "JobName", "Layout",
    "MaxDiskRead", "MaxDiskReadNode", "MaxDiskReadTask", "MaxDiskWrite", "MaxDiskWriteNode",
    "MaxDiskWriteTask", "MaxPages", "MaxPagesNode", "MaxPagesTask", "MaxRSS", "MaxRSSNode",
    "MaxRSSTask", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask", "McsLabel", "MinCPU",
    "MinCPUNode", "MinCPUTask", "NCPUS", "NNodes", "NodeList", "NTasks", "Partition",
    "Priority", "QOS", "QOSRAW", "Reason", "ReqCPUFreq", "ReqCPUFreqGov", "ReqCPUFreqMax",
    "ReqCPUFreqMin", "ReqCPUS", "ReqMem", "ReqNodes", "ReqTRES", "Reservation",
    "ReservationId", "Reserved", "ResvCPU", "ResvCPURAW", "Start", "State", "Submit",
    "SubmitLine", "Suspended", "SystemComment", "SystemCPU", "Timelimit", "TimelimitRaw",
    "TotalCPU", "TRESUsageInAve", "TRESUsageInMax", "TRESUsageInMaxNode", "TRESUsageInMaxTask",
    "TRESUsageInMin", "TRESUsageInMinNode", "TRESUsageInMinTask", "TRESUsageInTot",
    "TRESUsageOutAve", "TRESUsageOutMax", "TRESUsageOutMaxNode", "TRESUsageOutMaxTask",
    "TRESUsageOutMin", "TRESUsageOutMinNode", "TRESUsageOutMinTask", "TRESUsageOutTot", "UID",
    "User", "UserCPU", "WCKey", "WCKeyID", "WorkDir",
)  # fmt: skip

#: How sacct prints each recorded field (sacct.c fields[], print_fields.c): a number
#: (print_fields_uint32/64: never cut, overflowing its column), a duration
#: (print_fields_time_from_secs: never cut either), a date (print_fields_date: cut to the
#: width, no ``+``); every other field is a string (print_fields_str: cut, its last
#: character ``+``), Timelimit too (print.c passes it as text). Restarts is slurmlab's.
_SACCT_NUMBERS = {"AllocCPUS", "NCPUS", "NNodes", "Priority", "Restarts"}
_SACCT_DURATIONS = {"Elapsed"}
_SACCT_DATES = {"Submit", "Eligible", "Start", "End"}


def _sacct_field(name: str, item: str) -> str:
    """The recorded field ``sacct --format`` names with ``name`` (any case, or a prefix of
    a field's name, the first in sacct's order, :data:`SACCT_FIELDS`)."""
    known = {k.lower(): k for k in SACCT_WIDTHS}
    low = name.lower()
    if low in known:
        return known[low]
    if "all".startswith(low):  # (options.c tests ALL first: -o a, -o al print every field)
        raise SlurmlabError(
            f"sacct --format: {item!r} is sacct's ALL (every field, as a prefix of it); "
            f"slurmlab records these: {', '.join(SACCT_WIDTHS)}"
        )
    match = next((f for f in SACCT_FIELDS if f.lower().startswith(low)), None)
    if match is None or match not in SACCT_WIDTHS:
        meant = "" if match is None else f" (sacct reads it as {match})"
        raise SlurmlabError(
            f"sacct --format: {name!r}{meant} is not a field slurmlab records; use one of "
            f"{', '.join(SACCT_WIDTHS)}"
        )
    return match


def sacct_text(
    jobs: pd.DataFrame,
    fields: str | Sequence[str] | None = None,
    *,
    parsable: bool = False,
    parsable2: bool = False,
) -> str:
    """A job table as sacct prints it (see :meth:`SimulationResult.sacct_text`)."""
    if fields is None:
        fields = SACCT_DEFAULT_FORMAT
    if not isinstance(fields, str) and not (
        isinstance(fields, list | tuple) and all(isinstance(f, str) for f in fields)
    ):
        raise SlurmlabError(
            f"sacct --format: fields={fields!r} is not a field list: give a string "
            '("JobID,State,Elapsed") or a list of field names'
        )
    columns = []  # (name, width)
    for item in fields.split(",") if isinstance(fields, str) else fields:
        name, cut, width = str(item).strip().partition("%")
        if not name.strip() and not cut:  # (options.c skips an empty item: "JobID,,State")
            continue
        name = _sacct_field(name.strip(), str(item).strip())
        if ("NCPUS" if name == "AllocCPUS" else name) not in jobs:
            raise SlurmlabError(f"sacct --format: this job table has no {name} column")
        if cut and not re.fullmatch(r"-?[1-9]\d*", width):
            raise SlurmlabError(
                f"sacct --format: {str(item).strip()!r}: after % comes the column's width, a "
                f"whole number (e.g. {name}%20; {name}%-20 left-justifies)"
            )
        columns.append((name, int(width) if cut else SACCT_WIDTHS[name]))
    values = [_sacct_cell(jobs, name) for name, _ in columns]
    for k, (name, width) in enumerate(columns):
        if name in _SACCT_DATES:  # (print_fields_date: in a buffer of the column's width,
            values[k] = [v[: abs(width)] for v in values[k]]  # -p and -P too)
    if parsable or parsable2:  # print_fields.c: '|' after each value, but the last with -P
        end = "" if parsable2 else "|"
        lines = ["|".join(name for name, _ in columns) + end]
        lines += ["|".join(row) + end for row in zip(*values)]
        return "\n".join(lines)

    def line(cells, header: bool) -> str:
        """sacct's ``%*.*s `` per field (negative width: left-justified): a string longer
        than its column is cut, its last character replaced by ``+``; a date is cut
        without one, a number or a duration is never cut (it pushes the next column on),
        and the header is cut as a date is."""
        out = []
        for (name, width), v in zip(columns, cells):
            n = abs(width)
            if len(v) > n and (header or name in _SACCT_DATES):
                v = v[:n]
            elif len(v) > n and name not in _SACCT_NUMBERS | _SACCT_DURATIONS:
                v = v[: n - 1] + "+"
            out.append(v.rjust(n) if width > 0 else v.ljust(n))
        return " ".join(out).rstrip()

    lines = [line((name for name, _ in columns), True), " ".join("-" * abs(w) for _, w in columns)]
    lines += [line(row, False) for row in zip(*values)]
    return "\n".join(lines)


#: sacct's array_task_id of a job that is no array task, and of an array's pending record
#: (NO_VAL): it sorts after the tasks of its array (options.c _sort_desc_submit_time)
_NO_TASK = 0xFFFFFFFE


def sacct_records(
    sim: Simulation,
    table: pd.DataFrame,
    *,
    array: bool = False,
    eligible_only: bool = True,
    jobs: str | Sequence | None = None,
    latest: bool = False,
    starttime: pd.Timestamp | None = None,
) -> pd.DataFrame:
    """``table`` (the simulation's job table, or its every run's) with the rows plain
    ``sacct`` lists for them now, in sacct's order (Slurm 22.05: the ``array-records`` and
    ``array-lines`` fixtures, as_mysql_jobacct_process.c, sacct's options.c):

    * the tasks still in an array's pending record are one row, the record's (its JobIDRaw
      the array's): ``7_[0-3,5%2]``, the list as :func:`~slurmlab.spec.units.array_task_str`
      writes it, the other fields its first task's. A record scancel ended whole is one
      row as well (``7_[0-3]  CANCELLED``); one that the start of a task had turned into
      its last task shows that task (``7_5``), as squeue does;
    * a task scancel took out of the record before it ever started has no row: slurmctld
      keeps no record of it, so slurmdbd has none;
    * only the jobs eligible by now (``eligible_only``): sacct without ``-j`` hides the
      others ("handle normal time query of only eligible jobs"), and slurmdbd's eligible
      time is unset for a job never eligible (held, waiting for a dependency or a
      reservation: one cancelled so never shows) and for a job held again, until it is
      released; a job waiting for its begin time (``--begin``, a requeue's delay) has that
      time, cancelled or not, so it shows once that time has passed
      (accounting_storage_slurmdbd.c _setup_job_start_msg); a pending record that waits for its throttle
      (JobArrayTaskLimit) has it infinite (accounting_storage_slurmdbd.c). slurmdbd hears
      of changes up to 5 s late (its job thread's period), which is not simulated;
    * rows sorted as sacct sorts them: by Submit, then ArrayJobID (0 for a job that is no
      array task), task id (a record after its array's tasks), JobIDRaw.

    Tasks split off the record (started, or changed alone by scontrol) keep rows of their
    own, as they have job records of their own. ``array=True`` keeps every row of ``table``,
    one per task (as newer sacct's ``--array`` expands a record, and as ``sacct -j`` lists
    jobs not eligible), in the same order. ``eligible_only=False`` lists jobs whatever their
    eligibility, as ``sacct -s STATES`` lists those that ended (the fixtures' exports).

    ``jobs`` lists only the jobs named, as ``sacct -j 12,14_3`` (:func:`sacct_selection`),
    eligible or not: sacct does not hide the jobs a list names. ``starttime`` keeps only
    the rows that had not ended before it (End on or after it, or none yet: slurmdbd's
    ``time_end >= start || time_end = 0``, as_mysql_jobacct_process.c). ``latest`` keeps, of the
    rows listed, each job's last, as sacct without ``-D`` does after its selection: given
    every run, a requeued job waiting for its begin time shows its REQUEUED run."""
    by_key = {j.key: j for j in sim.jobs.values()}
    keys = table["JobID"].to_numpy(dtype=object)
    unstarted = table["Start"].isna().to_numpy()
    states = table["State"].to_numpy(dtype=object)
    ends = table["End"].to_numpy(dtype=object)
    keep = np.ones(len(table), dtype=bool)
    raws = table["JobIDRaw"].to_numpy(dtype=object).copy()
    task_ids = pd.to_numeric(table["ArrayTaskID"], errors="coerce").fillna(_NO_TASK)
    task_ids = task_ids.to_numpy(dtype="int64")
    records: dict[tuple, list[tuple[int, object]]] = {}  # (array, state, end) -> its rows
    last = {key: i for i, key in enumerate(keys)}  # (sacct -D: a job's last run is its last)
    for i, key in enumerate(keys):
        job = by_key.get(key)
        if array or job is None or job.array_id is None:
            continue
        if taken_out(job):
            keep[i] = False
        elif unstarted[i] and _in_record_then(job, last[key] == i, ends[i], sim.origin):
            records.setdefault((job.array_id, states[i], ends[i]), []).append((i, job))
    converted = arrays_converted(sim, sim.now) if records else set()
    for (array_id, _state, _end), rows in records.items():
        rows.sort(key=lambda r: r[1].array_task)
        (first, head), *rest = rows
        for i, _job in rest:
            keep[i] = False
        if not rest and array_id in converted:  # (the record is its last task now)
            continue
        tasks = array_task_str([job.array_task for _i, job in rows], head.throttle)
        keys[first] = f"{array_name(head)}_[{tasks}]"
        task_ids[first] = _NO_TASK
        raws[first] = head.array_job  # (the record is the array's job: its JobID)
    if jobs is not None:
        keep &= sacct_selection(jobs, table, keys, task_ids)
    elif eligible_only and not array:
        now = sim.origin + pd.Timedelta(seconds=sim.now)
        eligible = table["Eligible"]
        # (a task the throttle holds back has none: processes.unthrottled)
        keep &= (eligible.notna() & (eligible <= now)).to_numpy()
    if starttime is not None:
        keep &= (table["End"].isna() | (table["End"] >= starttime)).to_numpy()
    if latest:  # (the last listed row of each job: keys are its JobID as printed)
        kept = np.flatnonzero(keep)
        final = {keys[i]: i for i in kept}
        keep[kept] = [final[keys[i]] == i for i in kept]
    array_ids = pd.to_numeric(table["ArrayJobID"], errors="coerce").fillna(0)
    order = pd.DataFrame(
        {
            "submit": table["Submit"].dt.floor("s").to_numpy(),  # (sacct: whole seconds)
            "array": array_ids.to_numpy(dtype="int64"),
            "task": task_ids,
            "raw": pd.to_numeric(pd.Series(raws), errors="coerce").to_numpy(),
        }
    )[keep]
    rows = order.sort_values(list(order.columns), kind="stable").index.to_numpy()
    out = table.assign(JobID=keys, JobIDRaw=pd.array(raws, dtype=table["JobIDRaw"].dtype))
    return out.iloc[rows].reset_index(drop=True)


def with_db_ends(sim: Simulation, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (every run, one row per record of :func:`iter_records`, in its order) with
    the End and Elapsed slurmdbd has for a run that had ended when ``scontrol requeue`` made
    its job pend again: the requeue time (job_mgr.c _job_requeue_op; the run's ``db_end``,
    Engine._requeue_finished), not when its nodes were freed."""
    ends = [(i, run["db_end"]) for i, (_j, run, _l) in enumerate(iter_records(sim))
            if run.get("db_end") is not None]  # fmt: skip
    if not ends:
        return table
    rows = [i for i, _t in ends]
    col = table.columns.get_loc
    end = sim.origin + pd.to_timedelta([t for _i, t in ends], unit="s")
    start = pd.DatetimeIndex(table["Start"].iloc[rows])
    table.iloc[rows, col("End")] = end
    table.iloc[rows, col("Elapsed")] = (end - start).where(start.notna(), pd.Timedelta(0))
    return table


def _in_record_then(job, last: bool, end, origin: pd.Timestamp) -> bool:
    """Whether a run of ``job`` that never started ended (or, its last, waits) in its
    array's pending record: its last run while the task is in the record now; an earlier
    one (``sacct -D``: a record scancel ended whole, then requeued) unless scontrol had
    split the task off before that run ended."""
    if last:
        return bool(job.in_rec)
    if job.split is None:
        return True
    return pd.isna(end) or origin + pd.Timedelta(seconds=job.split) > end


def sacct_selection(
    jobs: str | Sequence, table: pd.DataFrame, keys: np.ndarray, task_ids: np.ndarray
) -> np.ndarray:
    """Which rows ``sacct -j`` lists for ``jobs`` (``"12,14_3"``, or a list), ``keys`` the
    rows' JobIDs and ``task_ids`` their task ids (:data:`_NO_TASK` for no task, and for an
    array's pending record). As slurmdbd selects them (as_mysql_jobacct_process.c): ``12``
    names job 12 and every row of array 12 (``id_job`` or ``id_array_job``); ``12_3`` the row
    of array 12 whose task id is 3, which a task still in a pending record of several tasks
    has not (it has a line of its own once it starts or is split off). A scenario's id names
    its job or array as its number does."""
    words = _sacct_job_words(jobs)
    raw = table["JobIDRaw"].astype("string").fillna("").to_numpy(dtype=object)
    arrays = table["ArrayJobID"].astype("string").fillna("").to_numpy(dtype=object)
    names = np.array([re.sub(r"_(\[.*\]|\d+)$", "", str(k)) for k in keys], dtype=object)
    chosen = np.zeros(len(table), dtype=bool)
    for word in words:
        chosen |= (raw == word) | (arrays == word) | (keys == word) | (names == word)
        job, under, task = word.rpartition("_")
        if under and task.isdigit() and job:  # (or a task: myarray_3, 12_3)
            chosen |= (task_ids == int(task)) & ((arrays == job) | (names == job))
    return chosen


def _sacct_job_words(jobs) -> list[str]:
    """``sacct -j``'s job list as words: a string split at commas (empty items skipped, as
    ``slurm_addto_step_list`` skips them), a job number, or a list of both. A word sacct
    refuses ("Bad job/step specified": ``-1``, ``2_*``, ``2_-1``) is an error here too, and
    so is a step (``12.0``, ``12.batch``: a simulation has none). ``X_N`` is an array task
    only when N is a number; a scenario id may hold underscores (``after_drain``)."""
    if isinstance(jobs, bool) or not isinstance(jobs, str | int | np.integer | list | tuple):
        raise SlurmlabError(
            f'sacct -j: jobs={jobs!r} is not a job list: give JobIDs as a string ("12,14_3"), '
            "a job number, or a list of them"
        )
    items = [jobs] if not isinstance(jobs, list | tuple) else list(jobs)
    shown = jobs if isinstance(jobs, str) else ",".join(map(str, items))
    words = []
    for item in items:
        if isinstance(item, int | np.integer) and not isinstance(item, bool):
            item = str(int(item))
        if not isinstance(item, str):
            raise SlurmlabError(
                f"sacct -j {shown}: {item!r} is not a job id: give JobIDs as strings or "
                'whole numbers (e.g. 12, "14_3")'
            )
        words += [w.strip() for w in item.split(",") if w.strip()]
    if not words:
        raise SlurmlabError(f"sacct -j {shown!r}: no job id in it; give some, e.g. -j 12,14_3")
    for word in words:
        base, under, task = word.rpartition("_")
        if "." in word and not under:
            raise SlurmlabError(
                f"sacct -j {shown}: {word!r} names a job step; a simulation has no steps "
                f"(sacct -X): give the job's id, {word.split('.')[0]}"
            )
        if (
            (under and (not base or (base.isdigit() and not task.isdigit())))
            or not re.fullmatch(r"[\w.-]+", word)
            or (word.startswith("-"))
        ):
            raise SlurmlabError(
                f"sacct -j {shown}: {word!r} is not a job: give JobIDs, array tasks or "
                "scenario ids, comma-separated (e.g. 12,14_3); sacct refuses it too (Bad "
                "job/step specified)"
            )
    return words


@dataclass
class SimulationResult:
    """A finished (or paused) simulation: the job table, the event log and the metrics.

    ``jobs`` has one row per job (sacct's columns); ``jobs_all_runs`` one per run, as
    ``sacct --duplicates``. ``squeue(at=)`` and ``sinfo(at=)`` show the cluster at any time.
    ``policy`` is the policy's name and ``params`` its parameters as the run used them, so
    the results of a sweep tell themselves apart (their repr shows both).
    """

    sim: Simulation = field(repr=False)
    policy: str = "easy"
    wall_s: float = 0.0
    #: a Lab's result: its run goes on as its user acts (sbatch, release...), so it never
    #: counts as over for running out of events (see :attr:`metrics`)
    live: bool = field(default=False, repr=False)

    def __repr__(self) -> str:
        params = f", params={self.params!r}" if self.params else ""
        return f"SimulationResult(policy={self.policy!r}{params}, wall_s={self.wall_s:.3f})"

    @property
    def params(self) -> dict:
        """The policy's parameters as the run used them: keywords given to ``simulate``, else
        the cluster's SchedulerParameters, else the policy's defaults (``{"bf_interval":
        30.0, "bf_window": 1440.0, ...}`` for ``slurm``; ``{}`` for ``fifo``, ``easy`` and
        ``conservative``, which take none)."""
        policy = self.sim.policy
        if not is_dataclass(policy):
            return {}
        skip = ("name", "interval")  # (its name is .policy; interval is bf_interval's)
        return {f.name: getattr(policy, f.name) for f in fields(policy) if f.name not in skip}

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """One row per job (its last run, as ``sacct`` without ``-D``) with sacct's columns and
        types, plus ``StartedBy`` (``main`` scheduler or ``backfill``); times are timestamps
        from ``origin``. A requeued job's earlier runs are in :attr:`jobs_all_runs`: hours and
        utilization from the analyzers equal :attr:`metrics` on that table (on this one they
        leave those runs out, and warn)."""
        return job_table(self.sim)

    @cached_property
    def jobs_all_runs(self) -> pd.DataFrame:
        """One row per run (a requeued job's earlier runs too), as ``sacct --duplicates``.
        When no job was requeued it has the same rows as :attr:`jobs` (a copy of it)."""
        if not self.sim.requeued():  # (every job has one run: no second table to build)
            return self.jobs.copy()
        return with_db_ends(self.sim, self._runs_held.copy())

    @cached_property
    def _runs_held(self) -> pd.DataFrame:
        """One row per run, each ending when its nodes were freed: :attr:`jobs_all_runs`
        but for a finished run that ``scontrol requeue`` rewrote (its End there is the
        requeue's, as slurmdbd records it); what :attr:`metrics` counts as used."""
        if not self.sim.requeued():
            return self.jobs
        return job_table(self.sim, duplicates=True)

    @cached_property
    def events(self) -> pd.DataFrame:
        """The event log, in order: submissions, starts, ends, requeues, node and reservation
        changes (what Gantt charts and queue plots are drawn from); columns and kinds in
        :func:`slurmlab.sim.recorder.event_table`."""
        return event_table(self.sim)

    @cached_property
    def runs(self) -> pd.DataFrame:
        """Per run: allocated, useful, lost, checkpoint and restart seconds (goodput data)."""
        return run_accounting(self.sim)

    def goodput(self) -> pd.DataFrame:
        """Per job: its runs and requeues, allocated, useful, lost, checkpointing and restart
        hours, and goodput (useful / allocated; NaN when nothing was allocated).

        The hours are GPU-hours for a job whose runs had GPUs and CPU-hours for a CPU-only
        job, as its ``unit`` column says (``"GPU-hours"``, ``"CPU-hours"``): sum them per
        unit. ``metrics["goodput"]`` is the GPU-hours rows' useful over allocated (the
        CPU-hours rows' when no job had a GPU)."""
        r = self.runs
        w = r["NGPUS"].where(r["NGPUS"] > 0, r["NCPUS"])
        per = r.assign(
            alloc_h=r["allocated_s"] * w / 3600, useful_h=r["useful_s"] * w / 3600,
            lost_h=r["lost_s"] * w / 3600, ckpt_h=r["writing_s"] * w / 3600,
            restart_h=r["restarting_s"] * w / 3600,
        )  # fmt: skip
        out = per.groupby("JobID", sort=False).agg(
            runs=("Start", "size"), requeues=("Restarts", "max"), allocated_h=("alloc_h", "sum"),
            useful_h=("useful_h", "sum"), lost_h=("lost_h", "sum"), checkpoint_h=("ckpt_h", "sum"),
            restart_h=("restart_h", "sum"), gpus=("NGPUS", "max"),
        )  # fmt: skip
        out.insert(2, "unit", np.where(out.pop("gpus") > 0, "GPU-hours", "CPU-hours"))
        out["goodput"] = out["useful_h"] / out["allocated_h"].where(out["allocated_h"] > 0)
        # every requeue, one whose next run has not started yet too (the job's Restarts)
        restarts = self.jobs.set_index("JobID")["Restarts"]
        out["requeues"] = restarts.reindex(out.index).fillna(out["requeues"]).astype("int64")
        return out.reset_index()

    @cached_property
    def metrics(self) -> dict:
        """``jobs``, ``started``, ``completed``, ``states``, ``mean_wait_s``, ``median_wait_s``,
        ``p95_wait_s``, ``mean_bounded_slowdown``, ``utilization`` (CPUs), ``gpu_utilization``,
        ``makespan_s``, ``backfilled``, ``cpu_hours``, ``gpu_hours``, failure and goodput
        figures, ``policy`` and ``wall_s``; each defined in :mod:`slurmlab.sim.metrics`."""
        sim = self.sim
        # finished (the window ends at the last End): a simulate() without until that ran
        # until nothing was left to happen, or a stopped run (until=, a Lab) in which no job
        # runs nor waits for anything that may still come (a held job waits for a release)
        finished = (sim.ran_out and not self.live) or not sim.in_progress()
        now = None if finished else self.origin + pd.Timedelta(seconds=sim.now)
        m = schedule_metrics(self.jobs, self.sim.cluster.tres(), all_runs=self._runs_held, now=now)
        m.update(failure_metrics(self.runs, requeues=int(self.jobs["Restarts"].sum())))
        m["policy"] = self.policy
        m["wall_s"] = self.wall_s
        return m

    @property
    def origin(self) -> pd.Timestamp:
        return self.sim.origin

    @property
    def cluster(self):
        return self.sim.cluster

    def sacct(self, duplicates: bool = False) -> pd.DataFrame:
        """The job table, as ``sacct`` (``duplicates=True``: every run, as ``sacct -D``)."""
        if not isinstance(duplicates, (bool, np.bool_)):  # (sacct("JobID,State"): a slip)
            raise SlurmlabError(
                f"sacct(duplicates={duplicates!r}): duplicates is True or False (every run, as "
                "sacct -D); to pick columns use sacct_text(fields=...) or the table's columns"
            )
        return self.jobs_all_runs if duplicates else self.jobs

    def sacct_text(
        self,
        fields: str | Sequence[str] | None = None,
        *,
        duplicates: bool = False,
        array: bool = False,
        jobs: str | Sequence | None = None,
        starttime=None,
        parsable: bool = False,
        parsable2: bool = False,
    ) -> str:
        """:meth:`sacct` as sacct prints it: its default columns ``JobID JobName Partition
        Account AllocCPUS State ExitCode`` at sacct's fixed widths. A text too long for its
        column is cut, its last character a ``+`` (JobName, State, Timelimit, AllocTRES...);
        a date is cut without one, and a number (AllocCPUS, NNodes, Priority) or a duration
        (Elapsed) is never cut, pushing the next column on, as sacct's print_fields.c does.
        ``fields`` picks columns as ``sacct --format`` does (``"JobID,Elapsed,Timelimit,
        Start"``; ``JobName%30`` widens one; a field by any prefix of its name, any case, the
        first in sacct's order: ``jobn``, and ``st`` is Start), with sacct's spellings:
        ``00:20:00``, ``1-00:00:00``, ``UNLIMITED``, ``Unknown``. ``parsable=True`` prints as
        ``sacct -p`` (a ``|`` after every value), ``parsable2=True`` as ``sacct -P`` (``|``
        between values). One line per job allocation (a simulation has no job steps, so
        ``-X`` changes nothing); ``duplicates=True``: every run, as ``sacct -D``.

        The time window: as sacct, only jobs that had not ended before ``starttime``
        (``sacct -S``: seconds from the start, a duration or a date and time). Without it,
        a finished simulation's lists every job since its start (an export of the whole
        run), while a :class:`~slurmlab.Lab`'s window starts at midnight of the current
        (simulated) day, sacct's default: a job that ended before that midnight is not
        listed (``starttime=0`` lists every job since the start; :meth:`sacct_before_window`
        names the others; ``%sacct`` says so); with ``jobs`` it starts at the epoch (sacct.1
        DEFAULT TIME WINDOW; slurmdb_defs.c slurmdb_job_cond_def_start_end).

        Lines as plain sacct lists them (:func:`sacct_records`): the tasks still in an
        array's pending record as one line, ``12_[3-9%2]`` (JobIDRaw the array's), none for
        a task scancel took out of it before it started, and only jobs eligible by now (a
        held job, one waiting for a dependency or its ``--begin``, and a record waiting for
        its throttle are not listed, as sacct without ``-j`` hides them); in sacct's order
        (by Submit, then ArrayJobID and task). ``array=True`` prints every row of
        :meth:`sacct` instead, one line per task (as newer sacct's ``--array``) and per
        job, eligible or not. ``jobs="12,14_3"`` lists only those, eligible or not, as
        ``sacct -j`` (``12`` names a job or a whole array, ``14_3`` a task that has a line
        of its own: started, or split off its array's record). Without ``duplicates``
        each job shows its last listed run (a requeued job waiting for its begin time:
        REQUEUED). State shows ``CANCELLED`` where sacct adds who did it (``CANCELLED by
        1001``, cut to ``CANCELLED+`` in its default width): slurmlab has no user ids.
        """
        for name, flag in (
            ("array", array),
            ("duplicates", duplicates),
            ("parsable", parsable),
            ("parsable2", parsable2),
        ):
            if not isinstance(flag, bool | np.bool_):  # ("no" would be taken as yes)
                raise SlurmlabError(f"sacct_text({name}={flag!r}): {name} is True or False")
        if parsable and parsable2:
            raise SlurmlabError(
                "sacct_text: give parsable=True (sacct -p, a '|' after every value) or "
                "parsable2=True (-P, none after the last), not both"
            )
        since = self.sacct_window(starttime, jobs=jobs is not None)
        rows = self._sacct_rows(duplicates, array=array, jobs=jobs, starttime=since)
        return sacct_text(rows, fields, parsable=parsable, parsable2=parsable2)

    def sacct_window(self, starttime=None, *, jobs: bool = False) -> pd.Timestamp | None:
        """Where sacct's time window starts (``sacct -S``; ``starttime`` as :meth:`sacct_text`
        takes it): that time when given; else none with a job list (``jobs``: ``-j``, from
        the epoch) or for a finished simulation (a :func:`~slurmlab.simulate` result, read
        as an export of its whole run); else, for a :class:`~slurmlab.Lab`'s, midnight of
        the simulated day (slurmdb_defs.c slurmdb_job_cond_def_start_end). A start after
        the window's end, now (sacct's without ``-E``: now + 1 s, its query being [S, E)),
        is an error in sacct's words (options.c: "Start time ... requested is after end
        time ...", exit 1)."""
        if starttime is not None:
            t = parse_instant(starttime, self.origin, what="sacct starttime")
            end = math.floor(self.sim.now) + 1.0
            if t > end:
                start_text, end_text = (
                    _slurm_time(self.origin + pd.Timedelta(seconds=x), "") for x in (t, end)
                )
                raise SlurmlabError(
                    f"Start time ({start_text}) requested is after end time ({end_text}). "
                    f"sacct's window ends now (t={self.sim.now:g}s) when no end is given: "
                    f"give a start time (sacct -S, starttime=) at or before {end_text}"
                )
            return self.origin + pd.Timedelta(seconds=t)
        if jobs or not self.live:
            return None
        return (self.origin + pd.Timedelta(seconds=self.sim.now)).normalize()

    def _sacct_rows(self, duplicates: bool, **options) -> pd.DataFrame:
        """:func:`sacct_records` over every run, each job's last listed one unless
        ``duplicates`` (a requeued job not yet eligible again shows its last run)."""
        return sacct_records(self.sim, self.jobs_all_runs, latest=not duplicates, **options)

    def sacct_unlisted(self, duplicates: bool = False, *, starttime=None) -> list[str]:
        """The JobIDs (as sacct prints them: ``12``, ``14_[0-3]``) that :meth:`sacct_text`
        leaves out now for want of an eligible time: a job held, or waiting for a
        dependency, a begin time, a reservation or its array's throttle, has none yet, and
        a hold clears it for good (a job held while it ran, and finished so, is never
        listed). ``sacct_text(jobs=...)`` lists them, as ``sacct -j`` does. (Jobs that
        ended before the time window, ``starttime``, are :meth:`sacct_before_window`'s.)"""
        since = self.sacct_window(starttime)
        listed = set(self._sacct_rows(duplicates, starttime=since)["JobID"])
        every = self._sacct_rows(duplicates, eligible_only=False, starttime=since)["JobID"]
        return list(dict.fromkeys(k for k in every if k not in listed))

    def sacct_before_window(self, duplicates: bool = False, *, starttime=None) -> list[str]:
        """The JobIDs :meth:`sacct_text` leaves out now because they ended before its time
        window starts (``starttime``; by default midnight of the simulated day, sacct's
        default window): ``sacct_text(starttime=0)`` lists them."""
        since = self.sacct_window(starttime)
        listed = set(self._sacct_rows(duplicates, starttime=since)["JobID"])
        every = self._sacct_rows(duplicates)["JobID"]
        return list(dict.fromkeys(k for k in every if k not in listed))

    def squeue(self, at=None) -> pd.DataFrame:
        """Jobs pending or running at ``at`` (seconds from the start, a time, or the end)."""
        return squeue_frame(self.sim, at)

    def squeue_text(
        self, at=None, *, array: bool = False, start: bool = False, long: bool = False
    ) -> str:
        """:meth:`squeue` as squeue (22.05) prints it, in its own formats and widths:

        * by default ``%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R`` (a value longer than its
          column is cut, as squeue cuts it: a job named ``averylongname`` shows ``averylon``);
        * ``start=True``: ``squeue --start``, the pending jobs only, by expected start (N/A
          last), ``%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R`` (START_TIME as
          ``2026-01-05T10:00:00``, SCHEDNODES ``(null)`` where no nodes are planned);
        * ``long=True``: ``squeue -l``, the simulated time on a line of its own, then STATE
          and TIME_LIMIT (``%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R``).

        An empty queue is the header line alone. An array's tasks that have not started are
        its one pending record (``12_[3-9%2]``), as plain squeue shows them; ``array=True``
        lists each task, as ``squeue -r``. :meth:`squeue` has every column as a table."""
        for key, value in (("array", array), ("start", start), ("long", long)):
            if not isinstance(value, bool | np.bool_):  # ("no" would be taken as yes)
                raise SlurmlabError(f"squeue_text({key}={value!r}): {key} is True or False")
        if start and long:
            raise SlurmlabError(
                "squeue_text: give start=True (squeue --start) or long=True (-l), not both"
            )
        frame = squeue_frame(self.sim, at, collapse=not array)
        if start:
            frame = frame[frame["ST"] == "PD"]
            frame = frame.sort_values("START_TIME", kind="stable", na_position="last")
        frame = frame.assign(
            START_TIME=[_slurm_time(v, "N/A") for v in frame["START_TIME"]],
            SCHEDNODES=frame["SCHEDNODES"].fillna("(null)"),
            STATE=frame["ST"].map({"PD": "PENDING", "R": "RUNNING"}),
        )
        layout = _SQUEUE_START if start else _SQUEUE_LONG if long else _SQUEUE_DEFAULT
        lines = [" ".join(_squeue_cell(h, w, right, True) for _c, h, w, right, _cut in layout)]
        for row in frame.itertuples(index=False):
            values = dict(zip(frame.columns, row, strict=True))
            lines.append(
                " ".join(
                    _squeue_cell(str(values[c]), w, right, cut) for c, _h, w, right, cut in layout
                )
            )
        if long:
            now = self.sim.origin + pd.Timedelta(seconds=_seconds(self.sim, at))
            lines.insert(0, now.strftime("%a %b %d %H:%M:%S %Y"))  # (print_date: slurm_ctime2_r)
        return "\n".join(lines)

    def sinfo(self, at=None) -> pd.DataFrame:
        """The sinfo view at ``at``: partitions by node state (idle, mix, alloc, down, drain)."""
        return self.sim.cluster.sinfo(node_states(self.sim, at))

    def sinfo_text(self, at=None) -> str:
        """:meth:`sinfo` as sinfo prints it."""
        return self.sim.cluster.sinfo_text(node_states(self.sim, at))

    def node_usage(self, at=None) -> pd.DataFrame:
        """Each node at ``at`` (seconds from the start, a time, or now), one row per node in
        the cluster's node order (slurmctld's node table: by name), with the fields
        ``scontrol show node`` prints:

        * ``NodeName``; ``Partitions``, the partitions it is in (``"train,debug"``);
        * ``State``, sinfo's long state at ``at`` (``sinfo -N -l``): idle, mixed (some CPUs
          allocated), allocated (every CPU: a node whose GPUs are all taken but not its CPUs
          is mixed, as in Slurm), down* (failed), drained, draining, reserved, maint...; the
          same state :meth:`sinfo` shows for it, in its long word;
        * ``CPUAlloc`` of ``CPUTot``, ``AllocMem`` of ``RealMemory`` (MB; AllocMem is 0 where
          memory is not a consumable resource), ``GPUAlloc`` of ``GPUTot`` (0 on nodes
          without GPUs): what the jobs running at ``at`` hold;
        * ``JobIDs``: those jobs, comma-separated (``"12,14_3"``), ``""`` if none.

        It reads the runs :meth:`squeue` and :meth:`sinfo` read, so it agrees with them:
        summed over the nodes, CPUAlloc is the NCPUS of the runs of :attr:`jobs_all_runs`
        in progress at ``at``.

        For example, one job on the ``ai`` preset (its test runs this example)::

            lab = slurmlab.Lab("ai")
            lab.sbatch("-p train -N 1 -c 8 --gres=gpu:8 -t 10", runtime=60)   # job 1
            lab.result.node_usage().set_index("NodeName").loc["gpu001"].to_dict()
            # {'Partitions': 'train,debug', 'State': 'mixed', 'CPUAlloc': 8, 'CPUTot': 96,
            #  'AllocMem': 64000, 'RealMemory': 1024000, 'GPUAlloc': 8, 'GPUTot': 8,
            #  'JobIDs': '1'}

        A dashboard's "GPUs in use" tile at ``t`` is ``node_usage(at=t)["GPUAlloc"].sum()``.
        """
        return node_usage_frame(self.sim, at)

    def seconds(self, column: str = "Start") -> pd.Series:
        """A time column (Submit, Eligible, Start or End) as seconds from the simulation
        start."""
        jobs = self.jobs
        times = [c for c in jobs.columns if pd.api.types.is_datetime64_any_dtype(jobs[c])]
        if column not in times:
            if isinstance(column, str) and column in jobs:
                why = f"{column} is not a time column"
            else:
                close = difflib.get_close_matches(str(column), list(jobs.columns), n=1)
                why = f"the job table has no column {column!r}" + (
                    f" (did you mean {close[0]!r}?)" if close else ""
                )
            raise SlurmlabError(
                f"seconds({column!r}): {why}; give a time column: {', '.join(times)}"
            )
        return (jobs[column] - self.origin).dt.total_seconds()

    def sprio(self, at=None) -> pd.DataFrame:
        """``sprio -l`` at ``at``: each eligible pending job's priority and its weighted factors
        (held jobs and jobs not yet eligible are left out, as in Slurm). Needs
        PriorityType=priority/multifactor, as sprio does (the presets use priority/basic)."""
        return sprio_frame(self.sim, _seconds(self.sim, at))

    def sprio_text(self, at=None) -> str:
        """:meth:`sprio` as ``sprio -l`` prints it, in its fixed format ``%.15i %9r %.8u %.10Y
        %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T`` (sprio.c): no ACCOUNT
        column (:meth:`sprio` has it), the job's partition the one column left-justified,
        a value longer than its column cut, and each line as wide as the format (an empty
        TRES is 20 spaces)."""
        frame = self.sprio(at)
        lines = [" ".join(_squeue_cell(h, w, right, True) for _c, h, w, right in _SPRIO_LONG)]
        for row in frame.itertuples(index=False):
            values = dict(zip(frame.columns, row, strict=True))
            lines.append(
                " ".join(_squeue_cell(str(values[c]), w, r, True) for c, _h, w, r in _SPRIO_LONG)
            )
        return "\n".join(lines)

    def sshare(self, at=None) -> pd.DataFrame:
        """``sshare -a -l`` at ``at``: shares, decayed usage and fair-share factors. Needs
        PriorityType=priority/multifactor (the presets use priority/basic)."""
        if self.sim.prio is None:
            raise SlurmlabError(
                "sshare needs PriorityType=priority/multifactor; this cluster uses priority/basic "
                "(jobs run in submit order, no fair share)"
            )
        return self.sim.prio.sshare(_seconds(self.sim, at))

    def sshare_text(self, at=None) -> str:
        """:meth:`sshare` as ``sshare -a -l`` prints it (sshare/process.c, print_fields.c):
        under Fair Tree the fields ``Account User RawShares NormShares RawUsage NormUsage
        EffectvUsage FairShare LevelFS GrpTRESMins TRESRunMins``, LevelFS left out with
        PriorityFlags=NO_FAIR_TREE (or DEPTH_OBLIVIOUS), at sshare's widths, then a line of
        dashes. Account is left-justified, each account indented one space per level below
        root and its users one more (``slurmdb_tree_name_get``); a text too long for its
        column is cut, its last character ``+``; numbers are right-justified, six decimals
        (``%f``, ``inf``). GrpTRESMins is blank (slurmlab models no such limit);
        TRESRunMins is, per association and summed up the tree, the TRES-minutes left to
        its running jobs (allocation x time limit, less what each decay cycle has taken
        since the job started: :func:`tres_run_mins`), cut by its 30 columns as sshare cuts
        it (``cpu=43,mem=43000,energy=0,nod+``; ``sshare -P`` prints it whole)."""
        frame = self.sshare(at)
        t = _seconds(self.sim, at)
        tree, fair = self.sim.tree, self.sim.prio.w.fair_tree
        run_mins = tres_run_mins(self.sim, t)
        layout = [spec for spec in _SSHARE_LONG if fair or spec[0] != "LevelFS"]
        header = [_sshare_cell(name, width, "str") for name, width, _kind in layout]
        lines = [" ".join(header), " ".join("-" * abs(w) for _n, w, _k in layout)]
        for row in frame.astype(object).itertuples(index=False):
            rec = dict(zip(frame.columns, row, strict=True))
            account, user = rec["Account"], rec["User"] or ""
            key = f"{account}/{user}" if user else account
            rec["Account"] = " " * (len(tree.path(account)) - 1 + bool(user)) + account
            rec["User"] = user or None
            rec["GrpTRESMins"] = None
            rec["TRESRunMins"] = run_mins.get(key)
            cells = [_sshare_cell(rec[name], width, kind) for name, width, kind in layout]
            lines.append(" ".join(cells))
        return "\n".join(line.rstrip() for line in lines)

    def srun_env(self, jobid) -> pd.DataFrame:
        """The srun environment of a job's current (or last) run (SLURM_RESTART_COUNT: its
        requeues, set once it has been requeued)."""
        from slurmlab.srun import srun_env

        jobs = self.sim._lookup(jobid)  # noqa: SLF001
        if len(jobs) > 1:  # (an array: srun runs in one task's allocation)
            running = [j.key for j in jobs if j.state == "RUNNING"]
            said = f"running: {', '.join(running[:5])}" if running else "none of them runs now"
            raise SlurmlabError(
                f"srun_env({jobid!r}): it names {len(jobs)} array tasks ({said}); give one "
                f"task, e.g. srun_env({jobs[0].key!r}) (srun runs in one job's allocation)"
            )
        job = jobs[0]
        nodes = [self.sim.node_names[i] for i in job.nodes] or None
        if nodes is None:
            raise SlurmlabError(f"job {job.key} is not running: it has no allocation")
        return srun_env(
            replace(job.spec, partition=job.partition),  # (-p a,b: the one it runs in)
            nodes,
            job.raw,
            cluster=self.sim.cluster,
            restart_count=job.restarts,
            account=job.account,
            qos=job.qos,
            cpus=[int(c) for c in job.usage[:, 0]],
            array_job_id=None if job.array_job is None else int(job.array_job),
            array_task_id=job.array_task,
        )

    def why_pending(self, jobid, at=None) -> str:
        """Why a job waits (at ``at``), in words, with the smallest change that would help."""
        from slurmlab.sim.explain import why_pending

        return why_pending(self.sim, jobid, _seconds(self.sim, at))


#: ``sshare -l``'s fields (sshare/process.c fields[]: width, negative left-justified) and
#: how print_fields.c prints each: text (print_fields_str, _print_tres: cut, last character
#: ``+``), whole numbers (print_fields_uint32/64) and decimals (print_fields_double)
_SSHARE_LONG = [
    ("Account", -20, "str"), ("User", 10, "str"), ("RawShares", 10, "int"),
    ("NormShares", 11, "float"), ("RawUsage", 11, "int"), ("NormUsage", 11, "float"),
    ("EffectvUsage", 13, "float"), ("FairShare", 10, "float"), ("LevelFS", 10, "float"),
    ("GrpTRESMins", 30, "str"), ("TRESRunMins", 30, "str"),
]  # fmt: skip


def _sshare_cell(value, width: int, kind: str) -> str:
    """One value as print_fields.c prints it in a column of ``width`` (negative:
    left-justified); None (or NaN) is blank. A decimal too wide for ``%f`` is written
    ``%.Ne`` with N narrowed until it fits, as print_fields_double does."""
    n = abs(width)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        text = ""
    elif kind == "int":
        text = str(int(value))
    elif kind == "float":
        text = f"{value:{n}f}"
        if len(text) > n:  # (print_fields_double: e-notation, its precision narrowed)
            wide = len(f"{value:{n}.{n}e}")
            p = n - (wide - n) if wide > n else n
            text = f"{value:{p}.{p}e}" if p >= 0 else f"{value:e}"
    else:
        text = str(value)
        if len(text) > n:
            text = text[: n - 1] + "+"
    return text.ljust(n) if width < 0 else text.rjust(n)


#: The TRES slurmctld always has, in their ids' order (tres ids 1-8, slurmdb_defs.c)
_BASE_TRES = ("cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages")


def _cluster_tres(cluster) -> list[str]:
    """The TRES sshare lists: the base ones, then the cluster's AccountingStorageTRES
    beyond them in their order; without that setting ``gres/gpu`` and its types when the
    cluster has GPUs, as slurmlab's AllocTRES shows them (see recorder._Tres)."""
    tracked = cluster.setting("AccountingStorageTRES")
    if tracked is not None:
        extra = [x.strip() for x in tracked.split(",") if x.strip()]
    else:
        types = sorted({k for n in cluster.nodes for k in n.gpu_types})
        extra = (
            (["gres/gpu"] + [f"gres/gpu:{k}" for k in types])
            if cluster.tres().get("gres/gpu")
            else []
        )
    names = list(_BASE_TRES)
    for name in extra:
        if name.lower() not in names:
            names.append(name.lower())
    return names


def tres_run_mins(sim: Simulation, t: float) -> dict[str, str]:
    """sshare's TRESRunMins at ``t``, per association key (``"llm"``, ``"llm/alice"``,
    ``"root"``), as slurmctld keeps grp_used_tres_run_secs: a job adds its allocation times
    its time limit when it starts (acct_policy_job_begin; energy never), each decay cycle
    (every PriorityCalcPeriod) takes off the seconds run since the last, a job that ends
    takes off the rest, and every association up to root holds its jobs' sum; sshare
    divides each sum by 60 (TRES-minutes, whole). Real Slurm 22.05, the backfill
    fixture's ``sshare -a -l -P``: ``cpu=41,mem=41000,energy=0,node=6,...`` for bob's two
    jobs (1 CPU x 60 s and 8 CPUs x 300 s) before the first decay cycle."""
    prio, cluster = sim.prio, sim.cluster
    names = _cluster_tres(cluster)
    decayed = prio.last_recalc(t) if prio.w.calc_period > 0 else t  # the last cycle <= t
    secs: dict[str, dict[str, float]] = {}
    for job, run, _last in records_at(sim, t):
        start = run["Start"]
        if start is None or start > t:
            continue
        limit = request_at(job, t)[0]
        limit = 0xFFFFFFFF * 60 if math.isinf(limit) else limit  # (INFINITE minutes)
        left = max(limit - max(0.0, decayed - start), 0.0)
        alloc = job.res.allocated(run["usage"])
        weights = prio.billing.get(run["Partition"], {})
        amounts = {
            "cpu": alloc["cpu"], "mem": alloc["mem"], "node": alloc["node"],
            "billing": int(billed_tres(alloc, weights, max_tres=prio.w.max_tres)),
            "gres/gpu": alloc["gres/gpu"],
        }  # fmt: skip
        for i, row in zip(run["nodes"], run["usage"].tolist(), strict=True):
            for kind in cluster.nodes[i].gpu_types:
                key = f"gres/gpu:{kind.lower()}"
                amounts[key] = amounts.get(key, 0) + int(row[2])
        key = job.assoc
        if key is None:  # (no accounts: the user's association under root, as sshare lists)
            key = f"root/{job.user}" if f"root/{job.user}" in sim.tree.parent else "root"
        while key is not None:
            into = secs.setdefault(key, {})
            for name in names:
                into[name] = into.get(name, 0.0) + amounts.get(name, 0) * left
            key = sim.tree.parent.get(key)
    return {
        key: ",".join(f"{name}={int(secs.get(key, {}).get(name, 0.0)) // 60}" for name in names)
        for key in sim.tree.parent
    }


def _record_plans(sim: Simulation, t: float, heads: dict) -> dict[int, tuple[float, tuple]]:
    """The expected start and nodes each array's pending record shows at ``t``, when a cycle
    reserved for several of its tasks: backfill.c plans the record's tasks one after another
    (next_task) and the record keeps the last one's start and nodes (real Slurm 22.05, the
    backfill-arrays fixture: tasks 1 and 2 reserved at 280 and 340 s, squeue --start shows
    340). Arrays none of whose tasks has a planned start are left out."""
    out: dict[int, tuple[float, tuple]] = {}
    for job in unfinished_at(sim, t):
        if job.array_id not in heads or not _unsplit_at(job, t):
            continue
        p = last_before(job.plans, t, None)
        if p is None or not math.isfinite(p):
            continue
        best = out.get(job.array_id)
        if best is None or p >= best[0]:
            out[job.array_id] = (p, last_before(job.sched, t, None))
    return out
