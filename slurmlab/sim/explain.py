"""``why_pending``: why a job waits, in words, and the smallest change that would help.

It reads the job's pending reason at a time, rebuilds the cluster's free
resources then, and tries three small changes to the request: fewer nodes, a
shorter time limit (to fit before the next reservation, i.e. to be backfilled),
and another partition. A change is offered when it would start the job now: it fits
in what the running jobs (ending at their time limits) and the plans backfill would
keep for the jobs before it leave (:func:`_room`). Where none would, it says when fewer
nodes or a shorter limit would start it sooner if nothing else changed, placing the jobs
queued ahead of it in turn (:func:`_sooner_on_fewer`, :func:`_picture`). For a job its
group's running jobs keep over a QOS/association limit it gives the numbers, the jobs that
hold the limit, when enough of them end and the start then, and fewer nodes within the
limit's slack (:func:`_group_limit`, :func:`_within_slack`).
``tools/why_pending_check.py`` checks these claims by making each change in a replay.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import NamedTuple

import numpy as np
import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.policies.nodespace import slot_of
from slurmlab.policies.placement import Request, bare_request, choose_nodes, covers
from slurmlab.policies.placement import held as held_rows
from slurmlab.policies.profile import Profile, hold_windows
from slurmlab.sim.controller import MAINT_REASON
from slurmlab.sim.engine import (
    NODES_OUT,
    Simulation,
    _unsplit_at,
    array_heads,
    last_tried,
    records_at,
    shown_as,
    up_at,
    used_at,
)
from slurmlab.sim.recorder import last_before, priority_at
from slurmlab.spec.units import compress_hostlist, format_duration

__all__ = ["why_pending"]

_WORDS = {
    MAINT_REASON: (
        "a maintenance reservation holds every node of partition {p} during its time limit "
        "from now; it starts after the maintenance (or, with a limit that ends before the "
        "maintenance begins, before it)"
    ),
    "Priority": "jobs with higher priority are ahead of it in partition {p}",
    "Resources": "it is first in line in partition {p} but the resources it needs are busy",
    "Dependency": "it waits for its dependency ({d}) to be satisfied",
    "DependencyNeverSatisfied": "its dependency ({d}) can never be satisfied; it will never start "
    "(scancel it, or resubmit with a dependency that can be met)",
    "BeginTime": "its --begin time has not come yet",
    "PartitionTimeLimit": "its time limit {tl} exceeds partition {p}'s MaxTime {mt}",
    "PartitionNodeLimit": "it asks for {n} nodes but partition {p} allows {nodes} per job",
    "PartitionConfig": "it asks for {cpus} CPUs but partition {p} has {pcpus} in all; it will "
    "never start (with EnforcePartLimits=NO Slurm accepts such a job and leaves it pending)",
    "JobArrayTaskLimit": "its array already runs the maximum number of tasks (%{thr})",
    "ReqNodeNotAvail": "a node it needs is down or drained",
    "MaxMemPerLimit": "its memory exceeds partition {p}'s MaxMemPerNode or MaxMemPerCPU; it "
    "will never start (ask for less memory per node, or another partition)",
    "PartitionDown": "partition {p} is DOWN; it waits until an administrator brings it up",
    "PartitionInactive": "partition {p} is INACTIVE; it waits until an administrator brings it up",
    "JobHeldUser": "it is held (sbatch -H, or scontrol hold); it waits until released "
    "(scontrol release; in a Lab, lab.release(jobid))",
    "JobHeldAdmin": "an administrator held it (scontrol hold); it waits until an "
    "administrator releases it (scontrol release)",
    "job requeued in held state": "scontrol requeuehold requeued it and held it; it waits until "
    "released (scontrol release, by its user too)",
    "Reservation": "its reservation {resv} has not started yet",
    "InvalidReservation": "its reservation {resv} had ended when it was submitted; it will never "
    "start (resubmit without --reservation, or with a current one)",
    "ReservationDeleted": "its reservation {resv} ended while it waited, and Slurm holds such jobs;"
    " it will never start (resubmit without --reservation)",
    "QOSMaxWallDurationPerJobLimit": "its time limit {tl} exceeds QOS {q}'s MaxWall; it will never "
    "start as it is (ask for a shorter -t, or another QOS)",
    "QOSMaxJobsPerUserLimit": "its user already runs as many jobs as QOS {q} allows per user "
    "(MaxJobsPerUser); it starts when one of them ends",
    "AssocMaxJobsLimit": "its user already runs as many jobs as account {a} allows (MaxJobs); it "
    "starts when one of them ends",
}
_MORE_NODES_THAN_IT_HAS = (
    "it asks for {n} nodes but partition {p} has only {most}; it will never start (with "
    "EnforcePartLimits=NO Slurm accepts such a job and leaves it pending)"
)
_GRP = (
    ("GrpCpuLimit", "CPUs"),
    ("GrpGRES", "GPUs"),
    ("GrpNodeLimit", "nodes"),
    ("GrpMemLimit", "memory"),
)
for _name, _what in _GRP:  # GrpTRES of a QOS, and of an account or one of its parents
    _many = "much" if _what == "memory" else "many"
    _WORDS[f"QOS{_name}"] = (
        f"the jobs of QOS {{q}} already use as {_many} {_what} as its GrpTRES allows; it starts "
        "when enough of them end"
    )
    _WORDS[f"Assoc{_name}"] = (
        f"the jobs of account {{a}} (or a parent account) already use as {_many} {_what} as "
        "its GrpTRES allows; it starts when enough of them end"
    )
for _name in ("MaxCpuPerUserLimit", "MaxGRESPerUser", "MaxNodePerUserLimit", "MaxMemoryPerUser"):
    _WORDS[f"QOS{_name}"] = (
        "its user's running jobs in QOS {q} already use as much of a resource as the QOS "
        "allows per user (MaxTRESPerUser); it starts when enough of them end"
    )


def _held_from(
    sim: Simulation,
    job,
    t: float,
    partition: str | None = None,
    *,
    ahead_only: bool = True,
    heads=None,
) -> np.ndarray:
    """Nodes the main scheduler keeps from ``job`` at ``t`` (``fifo`` and ``slurm``): those
    of every other partition where a queued job ahead of it waits, since a blocked
    partition's nodes go to no later job of the pass. ``ahead_only=False`` counts every
    queued job of the other partitions (a job moved to another partition may change tier).
    ``partition``: the job's, or the one it would move to."""
    held = np.zeros(len(sim.node_names), dtype=bool)
    partition = partition or job.partition
    if getattr(sim.policy, "name", None) not in ("fifo", "slurm"):
        return held
    key = job.sort_key()
    for other in sim.jobs.values():
        if other is job or other.partition == partition or held[other.mask].all():
            continue
        if ahead_only and other.sort_key() >= key:
            continue
        if _state_at(sim, other, t) != "pending":
            continue
        # in the queue (not held back by a rule)
        if _reason_at(sim, other, t, heads) in ("Resources", "Priority"):
            held |= sim.partition_nodes[other.partition]
    return held


def _reason_at(sim: Simulation, job, t: float, heads=None) -> str:
    """The pending reason ``job`` shows at ``t`` (an array's pending tasks: their record's)."""
    reason = "None"
    for when, r in shown_as(sim, job, t, heads).reasons:
        if when > t:
            break
        reason = r
    # (squeue's words for Resources when a higher tier's job holds the nodes: explained as
    # Resources, with the nodes held named)
    return "Resources" if reason == NODES_OUT else reason


def _begin_at(sim: Simulation, job, t: float) -> float | None:
    """The begin time (``--begin``, a requeue delay's end) of ``job``'s run pending at ``t``."""
    runs = [*job.runs, sim._run_record(job, job.state)]  # noqa: SLF001
    return next((r["Begin"] for r in runs if r["End"] is None or r["End"] > t), None)


def _state_at(sim: Simulation, job, t: float) -> str:
    """The job at ``t``: "not yet submitted", "pending", "running", or the state its last
    run ended in (every run counts: a requeued job pends again from its requeue)."""
    runs = [*job.runs, sim._run_record(job, job.state)]  # noqa: SLF001
    if t < runs[0]["Submit"]:
        return "not yet submitted"
    for run in runs:
        if run["End"] is not None and t >= run["End"]:
            continue  # this run is over by t
        return "running" if run["Start"] is not None and run["Start"] <= t else "pending"
    return runs[-1]["State"]


def _not_avail(sim: Simulation, job, t: float) -> str | None:
    """ReqNodeNotAvail with none of the job's nodes down: advance reservations hold so many
    of them during its time limit from ``t`` that the rest could not hold it even idle
    (the controller's ``_reserved_out``). None when a node of it is down (the usual words)."""
    up = up_at(sim, t)
    if job.alts is not None or (job.mask & ~up).any():  # (-p a,b: the controller's Resources)
        return None
    names = [
        r.name
        for r, mask in sim.reservations.values()
        if r.start < t + job.limit and r.end > t and (mask & job.mask).any()
        and r.name != job.spec.reservation
    ]  # fmt: skip
    if not names:
        return None
    room = _room_after_reservations(sim, job, t, up)
    first = min(r.start for r, _m in sim.reservations.values() if r.name in names)
    when = (
        f" (or, with a time limit ending by {_when(sim, first, inside=True)}, before {'it' if len(names) == 1 else 'them'})"
        if first > t
        else ""
    )
    return (
        f"advance reservation{'s' if len(names) > 1 else ''} {', '.join(names)} hold"
        f"{'' if len(names) > 1 else 's'} nodes it needs during its time limit from now, and "
        "the nodes left could not hold it even if they were idle (squeue: 'ReqNodeNotAvail, "
        f"May be reserved for other job'); it holds back no later job of partition "
        f"{job.partition}, and starts at {_when(sim, room)} at the earliest, once the "
        f"reservations leave room for it{when}"
    )


def _room_after_reservations(sim: Simulation, job, t: float, up: np.ndarray) -> float:
    """The first moment from ``t`` (a reservation's end) at which the advance reservations
    overlapping ``job``'s time limit from then leave enough of its nodes up at ``t`` to hold
    it were they idle: the earliest start the reservations allow (not the last of their
    ends: with two reservations, the job may fit once the first is over, as backfill then
    plans it; reservation.c ``job_test_resv`` removes only the nodes of reservations whose
    window overlaps the job's). A ``-p a,b`` job: the earliest of its partitions' records."""
    records = (
        [sim._pending_of(job)]  # noqa: SLF001
        if job.alts is None
        else [sim._pending_of(job, (None,) * 4 + (i,)) for i in range(len(job.alts))]  # noqa: SLF001
    )
    ends = sorted({r.end for r, _m in sim.reservations.values() if r.end > t})
    for start in ends:
        for record in records:
            held = sim._reserved_nodes(start, start + record.limit, besides=job.spec.reservation)  # noqa: SLF001
            usable = record.mask & up if held is None else record.mask & up & ~held
            picked = choose_nodes(sim.capacity, sim.capacity, record.request, usable, sim.weights)
            if picked is not None:
                return start
    return ends[-1]


def _when(sim: Simulation, t: float, inside: bool = False) -> str:
    """A moment as seconds from the run's start and as the date and time squeue and sacct
    print (the run's origin plus ``t``, ISO 8601 as squeue's START_TIME: slurm_make_time_str
    with the default TIME_FORMAT): ``t=7200s (2026-01-05T02:00:00)``, or with a comma
    (``inside`` parentheses)."""
    if not math.isfinite(t):
        return "never"
    stamp = (sim.origin + pd.Timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S")
    return f"t={t:.0f}s, {stamp}" if inside else f"t={t:.0f}s ({stamp})"


def _expected(sim: Simulation, job, t: float) -> str:
    """``squeue --start``'s expected start of the pending ``job`` at ``t`` (its START_TIME and
    SCHEDNODES), in words, or "" when it shows none (N/A)."""
    from slurmlab.sim.result import squeue_frame  # (result imports this module)

    frame = squeue_frame(sim, at=t)
    row = frame[frame["JOBID"] == job.key]
    if row.empty or pd.isna(row["START_TIME"].iloc[0]):
        return ""
    start = (row["START_TIME"].iloc[0] - sim.origin).total_seconds()
    nodes = row["SCHEDNODES"].iloc[0]
    on = f" on {nodes}" if isinstance(nodes, str) and nodes else ""
    return f"squeue --start shows it expected to start at {_when(sim, start)}{on}."


def why_pending(sim: Simulation, jobid, t: float) -> str:
    jobs = sim._lookup(jobid)  # noqa: SLF001
    states = [_state_at(sim, j, t) for j in jobs]
    k = states.index("pending") if "pending" in states else 0  # an array: its first pending task
    if len(jobs) == 1:
        return _why_one(sim, jobs[0], states[0], t)
    pending = states.count("pending")
    said = (
        f"first pending task, {jobs[k].key}" if pending else f"first task, {jobs[k].key}"
    )  # (an array, or a range of its tasks: say which task is explained)
    return (
        f"{jobid} names {len(jobs)} array tasks, {pending} of them pending at {_when(sim, t)}; "
        f"about its {said}: " + _why_one(sim, jobs[k], states[k], t)
    )


def _update_command(
    job, *, nodes: int | str | None = None, time: str | None = None, partition: str | None = None
) -> str:
    """The scontrol update, and the Lab call, that make one change why_pending suggests
    (``nodes``, ``time`` or ``partition``)."""
    arg = job.key if job.key.isdigit() else repr(job.key)
    if nodes is not None:
        words, kw = f"NumNodes={nodes}", f"nodes={nodes!r}"  # (a range is a string)
    elif time is not None:
        words, kw = f"TimeLimit={time}", f'time="{time}"'
    else:
        words, kw = f"Partition={partition}", f'partition="{partition}"'
    return f"scontrol update JobId={job.key} {words}, in a Lab lab.update({arg}, {kw})"


def _node_span(job, low: int, high: int) -> int | str:
    """The NumNodes value that gives ``job`` from ``low`` to ``high`` nodes. scontrol's
    ``NumNodes=N`` sets the minimum alone (scontrol/update_job.c: get_resource_arg_range
    leaves max_nodes NO_VAL) and slurmctld keeps the job's maximum (job_mgr.c _update_job:
    max_nodes NO_VAL is "unchanged"), so while that maximum is above ``high`` the range
    must be written out: ``low-high``."""
    top = max(job.count, job.spec.max_nodes or 0, job.most or 0)
    return high if low == high and top <= high else f"{low}-{high}"


def _exempt_at(sim: Simulation, job, t: float) -> list[tuple[str, float]]:
    """(key, time) of the running jobs at ``t`` that ``job``'s QOS may preempt but that
    their PreemptExemptTime still protects, and when it ends for each (preempt/qos)."""
    if not getattr(sim, "preemption", False):
        return []
    targets = sim.qos[job.qos].preempt
    if not targets:
        return []
    out = []
    for other in sim.jobs.values():
        if other.qos not in targets or other.id == job.id:
            continue
        for run in [*other.runs, sim._run_record(other, other.state)]:  # noqa: SLF001
            start, end = run["Start"], run["End"]
            if start is None or start > t or (end is not None and end <= t):
                continue
            free_at = start + sim._exempt_time(other)  # noqa: SLF001
            if free_at > t:
                out.append((other.key, free_at))
    return out


def _preempting_at(sim: Simulation, job, t: float) -> list[tuple[str, float]]:
    """(key, end) of the jobs ``job`` has preempted by ``t`` that are still running at
    ``t``, in their GraceTime: each ends at its preemption plus its QOS's GraceTime (or
    earlier, should it end on its own)."""
    out = []
    for when, kind, vid, key, detail in sim.events:
        if when > t:
            break
        if kind == "update" and vid == job.id and ("NumNodes=" in detail or "Partition=" in detail):
            out = []  # (a new partition or size gives up the room its preemptions free)
            continue
        if kind != "preempt" or detail != f"by {job.key}":
            continue
        victim = sim.jobs[vid]
        runs = [*victim.runs, sim._run_record(victim, victim.state)]  # noqa: SLF001
        run = next(
            (r for r in runs if r["Start"] is not None and r["Start"] <= when
             and (r["End"] is None or r["End"] > when)),
            None,
        )  # fmt: skip
        if run is not None and (run["End"] is None or run["End"] > t):
            end = when + sim.qos[victim.qos].grace_time
            out.append((key, end if run["End"] is None else min(end, run["End"])))
    return out


def _why_one(sim: Simulation, job, state: str, t: float) -> str:
    if state == "pending" and job.alts is not None:  # -p a,b: its record tried last, whose
        with _as_record(sim, job, last_tried(sim, job)[0]):  # reason squeue shows
            return _why_record(sim, job, state, t)
    return _why_record(sim, job, state, t)


@contextmanager
def _as_record(sim: Simulation, job, partition: str):
    """A job of several partitions (``-p a,b``) explained as its record in ``partition``:
    its request shape there, put back after."""
    now = next(a for a in job.alts if a[0].partition == job.partition)
    there = next(a for a in job.alts if a[0].partition == partition)
    sim._set_shape(job, there[0], there[1])  # noqa: SLF001
    try:
        yield
    finally:
        sim._set_shape(job, now[0], now[1])  # noqa: SLF001


class _Hint(NamedTuple):
    """A change that would let a job start sooner: its words; the change as Lab.update
    takes it (None: scontrol update cannot make it); and, for the limits' test
    (:func:`_possible`), the nodes it would get, its demand per node there (None: its own)
    and the partition of a move (None: its own)."""

    text: str
    change: dict | None
    nodes: tuple | None
    demand: np.ndarray | None = None
    partition: str | None = None


def _limit_owner(job, reason: str) -> str:
    """Whose limit a QOS/association limit reason names: ``QOS high`` or ``account llm``."""
    return f"QOS {job.qos}" if reason.startswith("QOS") else f"account {job.account}"


def _why_record(sim: Simulation, job, state: str, t: float) -> str:
    if state != "pending":
        return _not_pending(sim, job, state, t)
    reason = _reason_at(sim, job, t)
    part = sim.cluster.partition(job.partition)
    most = min(len(part.nodes), part.max_nodes or len(part.nodes))  # nodes a job may get
    part_cpus = sim.cluster.partition_cpus(part.name)
    words = _WORDS.get(reason, "it waits ({r})")
    if reason == "PartitionNodeLimit" and job.count > len(part.nodes):
        words = _MORE_NODES_THAN_IT_HAS
    text = words.format(
        p=job.partition, r=reason, d=",".join(map(str, job.spec.dependency)),
        tl=format_duration(None if math.isinf(job.limit) else timedelta(seconds=job.limit)),
        mt=format_duration(part.max_time), thr=job.throttle,
        n=f"{job.count}-{job.spec.max_nodes}" if job.spec.max_nodes else job.count,
        nodes=f"at least {part.min_nodes}" if job.count < part.min_nodes
        else f"at most {most}",
        cpus=job.res.ntasks * job.res.cpus_per_task, pcpus=part_cpus,
        q=job.qos, a=job.account, resv=job.spec.reservation, most=most,
    )  # fmt: skip
    said = _reason_text(sim, job, reason, t, text)
    lines = [f"Job {job.key} is pending ({reason}): {said.text}.", *said.lines]
    # (squeue --start's planned start, after the reason: a job waiting in the queue)
    expected = _expected(sim, job, t) if reason in ("Resources", "Priority") else ""
    if expected:
        lines.insert(1, expected)
    if job.alts is not None:  # -p a,b: it waits in each partition (a queue record each)
        lines.append(_partitions_line(sim, job))
    lines.extend(_fixes(sim, job, reason, part, most, part_cpus))
    if said.slack:  # (a limit holds it: fewer nodes may be within it)
        lines.extend(_within_slack(sim, job, reason, t))
    if reason not in ("Priority", "Resources") and not said.reserved_out:
        return " ".join(lines)
    victims = _preempting_at(sim, job, t)
    if victims:  # (it waits for its victims' GraceTime, not for a change of request)
        said = ", ".join(
            f"job {key} (until {_when(sim, end, inside=True)})" for key, end in victims
        )
        lines.append(
            f"It is preempting {said}: a preempted job runs on for its QOS's GraceTime, and "
            f"this job starts on the nodes it frees at {_when(sim, max(e for _k, e in victims))}."
        )
        return " ".join(lines)
    exempt = _exempt_at(sim, job, t) if reason == "Resources" else []
    if exempt:  # (it preempts them once their exempt time is over, if it still needs to)
        said = ", ".join(f"job {key} (until {_when(sim, at, inside=True)})" for key, at in exempt)
        them = "it" if len(exempt) == 1 else "them"
        lines.append(
            f"Its QOS {job.qos} may preempt {said}: PreemptExemptTime protects {them} until "
            f"then, so it preempts from {_when(sim, min(at for _k, at in exempt))}, if it still "
            "needs the nodes."
        )
        return " ".join(lines)
    never = _never_within_limits(sim, job)
    if never:  # (over a limit on its own: no change of nodes, time or partition helps)
        if expected:  # (a plan that passes without a start)
            lines[lines.index(expected)] = expected[:-1] + ", but it will not start then."
        lines.append(never)
        return " ".join(lines)
    return _changes_that_help(sim, job, reason, t, lines, said.reserved_out)


class _Reason(NamedTuple):
    """What :func:`_reason_text` says of a pending reason: its words, the lines that follow
    them, the advance reservations' words when they keep the job out (else None), and
    whether fewer nodes within its QOS/association limit may start it now (a limit holds
    it, now: :func:`_within_slack`)."""

    text: str
    lines: list[str]
    reserved_out: str | None
    slack: bool = False


def _reason_text(sim: Simulation, job, reason: str, t: float, text: str) -> _Reason:
    """The words for ``reason`` (``text``: its entry of ``_WORDS``) where the case says more:
    a requeue's delay or a begin time no pass has looked at since (BeginTime), a
    maintenance under way, advance reservations that leave too few nodes
    (ReqNodeNotAvail, :func:`_not_avail`), too few nodes up (Resources), a QOS/association
    limit over on its own nodes (:func:`_own_allocation_over_limit`) or with nothing else
    running."""
    # (the requeue: at its run's end, or later for scontrol requeue of a finished job)
    requeued = [w for w, kind, jid, _k, _d in sim.events if kind == "requeue" and jid == job.id]
    requeued = [w for w in requeued if w <= t]
    if reason == "BeginTime" and requeued:  # a requeue's delay, not --begin
        delay = sim.options.requeue_delay
        text = (
            f"it was requeued at {_when(sim, max(requeued))}, and a requeued job is eligible again "
            f"only {delay:g} s later (Slurm's delay), at {_when(sim, max(requeued) + delay)}"
        )
    begin = _begin_at(sim, job, t) if reason == "BeginTime" else None
    if begin is not None and begin <= t:  # (the slurm policy: no pass has looked since)
        came = (
            f"it was requeued at {_when(sim, max(requeued))} and its requeue delay ended at"
            if requeued
            else "its --begin time came at"
        )
        text = (
            f"{came} {_when(sim, begin)}, but Slurm clears BeginTime only when a scheduling "
            "pass tests the job (job_mgr.c job_independent), and a begin time reached calls "
            "none: the next event's pass, or the periodic main-scheduler pass "
            "(sched_interval), tests it"
        )
    if reason == MAINT_REASON:
        windows = [
            (r.start, r.end)
            for r, mask in sim.reservations.values()
            if r.maint and r.start <= t < r.end and (mask & job.mask).any()
        ]
        if windows:  # (under way: no limit ends before it begins)
            room = _room_after_reservations(sim, job, t, up_at(sim, t))
            text = (
                f"a maintenance reservation holds every node of partition {job.partition}; "
                f"it starts at {_when(sim, room)} at the earliest, once the reservations "
                "leave room for it"
            )
    reserved_out = _not_avail(sim, job, t) if reason == "ReqNodeNotAvail" else None
    if reserved_out:  # (a shorter limit or fewer nodes may help: the hints below)
        text = reserved_out
    up = up_at(sim, t)
    tried, count = last_tried(sim, job)  # (-p a,b: the record tried last sets the reason)
    n_up = int(up[sim.partition_index(tried)].sum())
    if reason == "Resources" and n_up < count:  # job_scheduler.c: min_nodes > available
        nodes = sim.cluster.partition(tried).nodes
        out = compress_hostlist(n for n in nodes if not up[sim.node_index[n]])
        n_all = len(nodes)
        text = (
            f"it asks for {count} node{'s' * (count > 1)} but only {n_up} of "
            f"partition {tried}'s {n_all} node{'s' * (n_all != 1)} "
            f"{'is' if n_up == 1 else 'are'} "
            f"up ({out} {'are' if n_all - n_up > 1 else 'is'} down or drained): "
            f"squeue shows '{NODES_OUT}', and Slurm's main scheduler starts no later job of "
            "the partition in this pass"
        )
    own = _own_allocation_over_limit(sim, job, reason, t)
    if own:  # (not only other jobs' use: what it would get is over the limit)
        text, own = own[0], own[1:]
    elif (
        reason.startswith(("QOSGrp", "QOSMax", "AssocGrp"))
        and reason in _WORDS
        and reason != "QOSMaxWallDurationPerJobLimit"
        and sim._limit_reason(job, alone=True)  # noqa: SLF001 - over with nothing running
    ):
        whose = _limit_owner(job, reason)
        text = (
            f"its request alone is over {whose}'s limit: with no other job of it running it "
            "would still be, so it will never start as it is; ask for less (scontrol "
            f"update), or use another {whose.split()[0]}"
        )
        return _Reason(text, own, reserved_out, slack=t == sim.env.now)
    elif t == sim.env.now and sim._limits:  # noqa: SLF001 - what its group holds is known now
        held = _group_limit(sim, job, reason, t)
        if held:
            return _Reason(held[0], held[1:], reserved_out, slack=True)
    return _Reason(text, own, reserved_out)


def _not_pending(sim: Simulation, job, state: str, t: float) -> str:
    """The line for a job not pending at ``t``: running, not yet submitted, or ended."""
    if state in ("running", "not yet submitted"):
        return f"Job {job.key} is {state} at {_when(sim, t)}; it is not pending."
    runs = [*job.runs, sim._run_record(job, job.state)]  # noqa: SLF001
    end = max((r["End"] for r in runs if r["End"] is not None and r["End"] <= t), default=t)
    return f"Job {job.key} is not pending: it ended {state} at {_when(sim, end)}."


def _partitions_line(sim: Simulation, job) -> str:
    """The line for a job submitted to several partitions (``-p a,b``): where it waits
    (a queue record each, tried in PriorityTier order), and where it cannot."""
    order, held = [], []
    for res, shape, _p in job.alts:
        why = sim._partition_reason(job, res, shape)  # noqa: SLF001
        if why is None:
            order.append(res.partition)
        else:  # its limits there (MaxTime, MaxNodes...): that record is not queued
            held.append((res.partition, why))
    never = [p for p in job.parts.split(",") if p not in order and p not in dict(held)]
    cannot = [f"{p} ({why})" for p, why in held] + [f"{p} (it can never run there)" for p in never]
    where = (
        f"it waits in {' and '.join(order)}, tried in that order (PriorityTier first), "
        "and starts in the first with room"
        if len(order) > 1
        else f"it waits in {order[0]} only"
        if order
        else "it waits in none of them"
    )
    return (
        f"It was submitted to several partitions (-p {job.spec.partition}): {where}"
        + (f"; not in {', '.join(cannot)}" if cannot else "")
        + f". The reason and what follows are about partition {job.partition}."
    )


def _fixes(sim: Simulation, job, reason: str, part, most: int, part_cpus: int) -> list[str]:
    """The ``Fix:`` lines for a job over a limit of its partition or QOS (its time limit,
    node count or CPUs), each with the change that clears it; and, for a node-count fix, a
    QOS/association limit the fixed request would still be over on its own."""
    out: list[str] = []
    if reason == "QOSMaxWallDurationPerJobLimit":
        wall = format_duration(sim.qos[job.qos].max_wall)
        out.append(f"Fix: ask for at most -t {wall} ({_update_command(job, time=wall)}).")
    if reason in ("PartitionTimeLimit",):
        top = format_duration(part.max_time)
        out.append(f"Fix: ask for at most -t {top} ({_update_command(job, time=top)}).")
    if reason == "PartitionNodeLimit" and job.count < part.min_nodes:
        out.append(f"Fix: ask for --nodes={part.min_nodes} or more, or another partition.")
    elif reason == "PartitionNodeLimit" and job.spec.gpus and job.spec.gpus_per_node:
        gpn = job.spec.gpus_per_node  # (--gpus / --gpus-per-node made the node count)
        out.append(
            f"Fix: ask for --gpus={most * gpn} or fewer (with --gpus-per-node={gpn}: {most} "
            f"nodes){_roomier(sim, job)}."
        )
    elif reason == "PartitionNodeLimit" and job.count <= most < (job.spec.max_nodes or 0):
        span = _node_span(job, job.count, most)  # (-N MIN-MAX)
        out.append(
            f"Fix: ask for --nodes={span} ({_update_command(job, nodes=span)}){_roomier(sim, job)}."
        )
    elif reason == "PartitionNodeLimit":
        out.append(
            f"Fix: ask for --nodes={most} or fewer "
            f"({_update_command(job, nodes=_node_span(job, most, most))}){_roomier(sim, job)}."
        )
    if reason == "PartitionNodeLimit" and part.min_nodes <= job.count and not job.spec.gpus:
        over = _over_on_its_own(sim, job, most)
        if over:
            whose = _limit_owner(job, over)
            out.append(
                f"On {most} node{'s' * (most > 1)} it would still be over a limit of {whose} "
                f"({over}) even with no other job of it running: ask for fewer nodes, or less "
                "on each, too."
            )
    if reason == "PartitionConfig":
        widest = max(sim.cluster.node(n).cpus for n in part.nodes)
        out.append(
            f"Fix: ask for at most {part_cpus} CPU{'s' * (part_cpus != 1)} in all and {widest} on "
            "a node (-n, -c, "
            f"--ntasks-per-node){_roomier(sim, job)}."
        )
    return out


def _changes_that_help(
    sim: Simulation,
    job,
    reason: str,
    t: float,
    lines: list[str],
    reserved_out: str | None,
) -> str:
    """``lines`` (the job's reason and what follows it), completed for a job waiting in the
    queue (or for nodes advance reservations hold) whom no preemption or limit of its own
    keeps waiting: the nodes held for a job of another partition, memory it waits for, and
    the smallest changes of its request that would start it now (:class:`_Hint`), tested
    against the limits and the jobs ahead (:func:`_possible`); or why none is given."""
    up = up_at(sim, t)
    free = sim.capacity - used_at(sim, t)
    heads = array_heads(sim, t)  # (once: every array's pending record at t)
    if job.throttle is not None:  # (its array's running tasks fill %N)
        waits = _array_held(sim, job, t, heads, job.partition, split=False)
        if waits:
            lines[0] = f"Job {job.key} is pending ({reason}): {waits}."
            return " ".join(lines)
    head = heads.get(job.array_id) if job.array_id is not None else None
    if reason == "Resources" and head is not None and head is not job and _unsplit_at(job, t):
        lines[0] = lines[0].replace(  # (squeue shows the record's reason on every task)
            f"it is first in line in partition {job.partition}",
            f"its array's pending record is first in line in partition {job.partition} "
            f"(Slurm tries its first task, {head.key}, and this one after it)",
        )
    windows = _reserved_against(sim, job, t)
    held = _held_from(sim, job, t, heads=heads)
    mask = job.mask & up & ~held
    if reason == "Resources" and held.any():
        unheld = _outside(job.mask & up, windows, t + job.limit)
        if choose_nodes(free, sim.capacity, bare_request(job), unheld):
            idle = held & job.mask & up & (free[:, 0] == sim.capacity[:, 0])
            names = compress_hostlist([n for n, i in zip(sim.node_names, idle) if i])
            lines[0] = (
                f"Job {job.key} is pending (Resources): it is first in line in partition "
                f"{job.partition}, and the nodes it could use are held: "
                f"{names + (' is' if idle.sum() == 1 else ' are') if names else 'they are'} "
                "kept for a higher-priority job waiting in another partition over the same "
                "nodes (Slurm's main scheduler gives no job after a blocked one the nodes of "
                "its partition)."
            )
    # the planned starts a change must not delay (:func:`_planned_from`), and the room they
    # and the running jobs (ending at their limits) leave from now on, as backfill sees it
    planned = _planned_from(sim, job, t)  # (other job, when its plan holds its nodes from)
    ahead = [start for _other, start in planned]
    # (a slurm backfill cycle starts a later job only if it tested it: bf_max_job_test)
    tested = reason != "Priority" or _tested(sim, job, t)
    later = (
        reason == "Priority"
        and _backfills(sim.policy)
        and tested
        and _planned_ahead(sim, job, t, heads)
    )
    first = reason == "Resources" or bool(reserved_out)  # (it waits for no job ahead)
    # (a job behind others starts in a backfill cycle, up to bf_interval later)
    delay = _cycle_delay(sim.policy) if later else 0.0
    room = _room(sim, t, free, planned)
    # how long a change must find room for from now: its limit (ending by a plan's start,
    # or one second before it under slurm), from up to a cycle away; and whether every plan
    # in that time names its nodes (squeue --start's SCHEDNODES: else no node is sure)
    span = job.limit + delay + _strict(sim.policy)
    known = _plans_known(planned, t, t + span)
    hints: list[_Hint] = []
    usable = _outside(mask, windows, t + job.limit)
    fits_now = choose_nodes(free, sim.capacity, bare_request(job), usable)
    memory_bound = False
    if reason == "Resources" and fits_now is None and not job.exclusive and job.demand[1] > 0:
        # memory alone: its CPUs and GPUs are free now on enough nodes, not the MB it asks
        # (a job asking none gets each node's whole memory under CR_*_Memory)
        demand = job.demand.copy()
        demand[1] = 0
        if choose_nodes(free, sim.capacity, Request(demand, job.count), usable) is not None:
            memory_bound = True
            lines.append(_memory_wait(sim, job, free, demand, usable))
    if fits_now is None:
        # fewer nodes: for the first job in line, or for a later one when the policy
        # backfills (under fifo, and Slurm's main scheduler alone, a later job waits for
        # Priority whatever its size); whole nodes for --exclusive; and only where it would
        # delay no planned start (backfill would not start it: backfill.c _try_sched on the
        # node_space map, which holds each plan's resources, not whole nodes)
        if known and (first or later):
            fewer = _fewer_now(sim, job, room, usable, span)
            hints += [fewer] if fewer else []
        if first or later:  # ending before an advance reservation begins
            shorter = _before_reservation(sim, job, free, mask, windows, ahead, t, delay)
            if shorter:
                nodes = _pick(sim, job, room, job.count, shorter[2])
                hints.append(_Hint(*shorter[:2], nodes))
    elif ahead and tested:  # (started by a backfill cycle: up to bf_interval later)
        gap = _gap_on(sim, job, planned, free, usable, t)
        gap -= _cycle_delay(sim.policy) + _strict(sim.policy)
        if gap >= 60 and gap < job.limit:
            limit = format_duration(timedelta(seconds=int(gap // 60) * 60))
            slurm = getattr(sim.policy, "name", None) == "slurm"
            if job.time_min:  # (its limit may not go below it: a new sbatch, then)
                if slurm:
                    low = format_duration(timedelta(seconds=job.time_min))
                    hints.append(
                        _Hint(
                            f"with --time-min={limit} (instead of {low}) Slurm's backfill "
                            "could start it now with that limit, ending before the next "
                            "reservation (a new sbatch: scontrol update cannot set a limit "
                            "below its --time-min)",
                            None,
                            _pick(sim, job, room, job.count, usable),
                        )
                    )
            else:
                flexible = ""
                if slurm and sim.policy.interval is not None:
                    flexible = (
                        f" (or, at submission, keep -t and add --time-min={limit}: Slurm's "
                        "backfill starts such a job in a gap with its limit lowered to that)"
                    )
                hints.append(
                    _Hint(
                        f"with -t {limit} (instead of "
                        f"{format_duration(timedelta(seconds=job.limit)) if not math.isinf(job.limit) else 'UNLIMITED'}) "
                        f"it would end before the next reservation and could be backfilled now{flexible}",
                        {"time": limit},
                        _pick(sim, job, room, job.count, usable),
                    )
                )
    hints.extend(_moves(sim, job, t, heads, free, up, windows))
    hints, stopped = _possible(sim, job, t, hints, heads, free, up)
    lines.extend(stopped)
    if hints:
        lines.append(_hints_line(job, hints))
    unreserved = _no_reservation(sim, job, t)
    if unreserved:
        lines.append(unreserved)
    elif not tested:  # (under slurm: no planned start, so no cycle reserved for it)
        lines.append(_untested(sim, job, t))
    elif not hints and not memory_bound and not stopped:
        # (none now: when with fewer nodes or a shorter limit, if sooner; behind others
        # under slurm, its own start as the jobs ahead start, sharing nodes: see there)
        slurm = getattr(sim.policy, "name", None) == "slurm"
        shared = _room(sim, t, free, [], whole=False) if slurm and not first else room
        estimate = _sooner_on_fewer(sim, job, t, room, shared, mask, heads)
        lines.append(
            f"No small change to the request would let it start now. {estimate}"
            if estimate
            else "No small change to the request would let it start now; it has to wait."
        )
    return " ".join(lines)


def _hints_line(job, hints: list[_Hint]) -> str:
    """``Smallest changes that would let it start sooner: ...``, with the commands."""
    updates = [_update_command(job, **h.change) for h in hints if h.change]
    return (
        "Smallest changes that would let it start sooner: "
        + "; ".join(h.text for h in hints)
        + (
            ". Make one with scontrol update, which keeps its place in the queue (a new "
            "sbatch would queue behind the jobs submitted since): " + "; ".join(updates)
            if updates
            else ""
        )
        + "."
    )


def _sooner_on_fewer(
    sim: Simulation, job, t: float, room: Profile, shared: Profile, mask: np.ndarray, heads
) -> str | None:
    """``If nothing else changes ..., with --nodes=K it would start at about T instead of
    T0`` (and ``with -t L ... at about T1``): the most nodes fewer than its own, and the
    longest shorter time limit, with which ``job`` would start before it would as it is,
    each found as backfill plans a job, at its earliest fit in the pictures of
    :func:`_picture`; or None. Said only where those pictures are whole.

    Its own start is the earliest of its plan (squeue --start) and its fits in the
    pictures built on ``room`` and ``shared`` (:func:`_room`); a change's start, the latest
    of its fits in them. Under ``slurm`` they differ for a job behind others: backfill
    plans the jobs ahead on whole nodes (``room``, the plans standing), but the main
    scheduler starts each where it first fits, sharing nodes (``shared``: no plan, every
    job ahead placed), often sooner than planned, so a change is said to start it sooner
    only where it would in both. Under ``easy`` and ``slurm`` backfill starts a job that
    fits and delays no plan before the jobs ahead of it that fit only later, so its own
    start may also be its fit with only those of them placed that start by its fit with
    none placed (:func:`_before_them`). An array task that an update splits off its
    array's pending record is placed in the queue as one (:func:`_queued_ahead`)."""
    name = getattr(sim.policy, "name", None)
    rooms = [(room, _plans_as(sim))] + ([(shared, "none")] if shared is not room else [])
    split = job.array_id is not None and _unsplit_at(job, t)
    now = [_picture(sim, job, t, r, heads, split=False, plans=p) for r, p in rooms]
    changed = now
    if split:
        changed = [_picture(sim, job, t, r, heads, split=True, plans=p) for r, p in rooms]
    span = job.limit + _strict(sim.policy)
    request = replace(job.request, most=None)
    if _backfills(sim.policy) and name != "conservative":
        now.append(_before_them(sim, job, t, room, heads, request, mask, span))
        if _reason_at(sim, job, t, heads) == "Priority":  # (it holds no reservation)
            behind = _behind(sim, job, t, heads)
            if behind is None or None in changed:
                return None
            changed = [p._replace(behind=behind) for p in changed]
    if None in now or None in changed:
        return None
    own_start = min(_start_in([p], request, mask, span) for p in now)
    plan = _plan_at(job, t)
    if plan is not None and plan[1] is not None:  # (its own plan, where one stands)
        own_start = min(own_start, max(plan[1], t))
    sooner = [
        said
        for said in (
            _fewer_start(sim, job, changed, request, mask, span, own_start),
            _shorter_start(sim, job, changed, request, mask, own_start),
        )
        if said is not None
    ]
    if not sooner:
        return None
    instead = (
        f"instead of about {_when(sim, own_start)}"
        if math.isfinite(own_start)
        else "while as it is it finds no room in that picture"
    )
    (change, start, command), more = sooner[0], sooner[1:]
    placed = any(p.placed for p in now + changed)
    queue = ", the jobs queued ahead of it start in turn at their earliest fits" * placed
    also = "".join(f"; {c} it would start at about {_when(sim, s)} ({u})" for c, s, u in more)
    splits = (
        " Any update splits it off its array's pending record: it is then queued by its "
        "task id, before the tasks still in the record (job_scheduler.c sort_job_queue2)."
    )
    return (
        "If nothing else changes (the running jobs end at their time limits, the planned "
        f"starts ahead of it stand{queue}), {change} it would start at about "
        f"{_when(sim, start)}, {instead} ({command}){also}." + splits * split
    )


def _fewer_now(sim: Simulation, job, room: Profile, usable, span: float, within=None):
    """``with --nodes=K (instead of N) it could start now``: the most nodes fewer than
    ``job``'s on which it fits now in ``room`` for ``span`` seconds, as a :class:`_Hint`
    (None: on none); ``within(k, shape)``: only counts of nodes it accepts (a limit's)."""
    for k in range(job.count - 1, 0, -1):
        shape = _shape_on(sim, job, k)
        if shape is None or (within is not None and not within(k, shape)):
            continue
        nodes = _pick(sim, job, room, k, usable, span, demand=shape, ranged=False)
        if nodes:
            top = job.spec.max_nodes  # (-N MIN-MAX: NumNodes=N would keep the maximum)
            upto = f"-{top}" if top and top > job.count else ""
            return _Hint(
                f"with --nodes={k} (instead of {job.count}{upto}) it could start now",
                {"nodes": _node_span(job, k, k)},
                nodes,
                shape,
            )
    return None


def _before_them(sim: Simulation, job, t: float, room: Profile, heads, request, mask, span):
    """The picture in which ``job`` may start before jobs queued ahead of it, as backfill
    starts a later job that fits while they wait: only the jobs ahead that would start by
    its fit with none of them placed are placed (:func:`_picture`, ``place``); or None."""
    alone = _picture(sim, job, t, room, heads, split=False, plans="asked", place=-math.inf)
    if alone is None:
        return None
    by = _start_in([alone], request, mask, span)
    return _picture(sim, job, t, room, heads, split=False, plans="asked", place=by)


class _Picture(NamedTuple):
    """The room a job waits in if nothing else changes (:func:`_picture`): the profile, the
    earliest it may start (None: any time), whether jobs queued ahead of it were placed,
    and the jobs queued behind it that backfill may start first (:func:`_behind`)."""

    room: Profile
    after: float | None
    placed: bool
    behind: tuple = ()


def _start_in(pictures: list[_Picture], request, mask: np.ndarray, span: float) -> float:
    """The latest of ``request``'s starts for ``span`` seconds in ``pictures``
    (:func:`_start_there`; inf: it finds none in one of them)."""
    return max(_start_there(p, request, mask, span) for p in pictures)


def _start_there(picture: _Picture, request, mask: np.ndarray, span: float) -> float:
    """``request``'s earliest fit in ``picture`` (inf: none), once the jobs queued behind it
    that fit before it have started there: backfill starts a later job that fits while
    one holding no reservation waits (backfill.c _attempt_backfill)."""
    room, after = picture.room, picture.after
    found = room.earliest(request, mask, span, not_before=after)
    if found is not None and picture.behind:
        room = room.copy()
        for other, usable, their_span in picture.behind:  # (in queue order)
            theirs = room.earliest(other.request, usable, their_span)
            if theirs is not None and theirs[1] < found[1]:
                _i, start, nodes = theirs
                usage = held_rows(
                    other.demand, room.capacity, nodes, other.exclusive, other.whole_memory
                )
                room.reserve(nodes, usage, start, start + other.limit)
        found = room.earliest(request, mask, span, not_before=after)
    return math.inf if found is None else found[1]


def _behind(sim: Simulation, job, t: float, heads) -> tuple | None:
    """The jobs queued behind ``job`` at ``t`` on nodes it may use, in queue order, each
    with the nodes it may use and how long it holds them; None where a QOS/association
    limit applies to one (:func:`_limited`) or one is of several partitions or
    ``--spread-job``."""
    key, up, out = _key_at(job, t), up_at(sim, t), []
    for other in sorted(sim.jobs.values(), key=lambda o: _key_at(o, t)):
        if (
            other is job
            or _key_at(other, t) <= key
            or not (other.mask & job.mask).any()
            or _state_at(sim, other, t) != "pending"
            or _reason_at(sim, other, t, heads) not in ("Resources", "Priority")
        ):
            continue
        if _limited(sim, other, t) or other.alts is not None or other.spread is not None:
            return None
        out.append((other, other.mask & up, other.limit + _strict(sim.policy)))
    return tuple(out)


def _plans_as(sim: Simulation) -> str:
    """How the policy's plans hold nodes (:func:`_picture`'s ``plans``): ``"whole"`` under
    ``slurm`` (backfill's map reserves whole nodes), else ``"asked"``."""
    return "whole" if getattr(sim.policy, "name", None) == "slurm" else "asked"


def _picture(
    sim: Simulation, job, t: float, room: Profile, heads, *, split: bool, plans: str,
    place: float = math.inf, own_limit: bool = False,
):  # fmt: skip
    """The room ``job`` waits in if nothing else changes (a :class:`_Picture`): ``room``
    (the running jobs end at their time limits, the planned starts stand) with the advance
    reservations holding their nodes whole, and each job queued ahead of it
    (:func:`_queued_ahead`) whose plan does not name its nodes placed at its earliest fit,
    in queue order, as backfill plans the jobs it tests (backfill.c _attempt_backfill):
    from its planned start, and a task of an array with ``%N`` from when one of the
    array's N slots frees (job_mgr.c job_array_start_test; :func:`_slots`). Under a policy
    that does not backfill no job starts before one queued ahead of it in its partition
    (job_scheduler.c: a blocked job stops its partition in the pass). None where the
    picture is not whole: a QOS/association limit on it (:func:`_limited`), or a job
    ahead of it that cannot be placed.

    ``split``: as an update would split array task ``job`` off its record; ``plans``: how
    the jobs ahead are placed: ``"whole"`` holding their whole nodes (``slurm``'s backfill
    map), ``"asked"`` holding what they ask, ``"none"`` no plan stands (``room`` holds
    none) and every job ahead is placed where it first fits, on what it asks; ``place``: a job ahead is placed only where it would start by then;
    ``own_limit``: the limits on ``job`` itself are the caller's (:func:`_limit_start`)."""
    if job.spread is not None or (_limited(sim, job, t) and not own_limit):
        return None
    ahead = _queued_ahead(sim, job, t, heads, split)
    if ahead is None:
        return None
    later = room.copy()
    hold_windows(  # (the other advance reservations hold their nodes whole)
        later,
        [
            (r.start, r.end, sim.capacity * nodes[:, None])
            for r, nodes in sim.reservations.values()
            if r.name != job.spec.reservation and nodes.any()
        ],
        t,
    )
    up, after, slots, placed = up_at(sim, t), {}, {}, False
    for other, start, planned in ahead:
        if plans == "none":  # (no plan stands: each where it first fits)
            start, planned = None, False
        if planned:  # (its plan, on the nodes it names, is in room)
            after[other.partition] = max(after.get(other.partition, t), start)
            continue
        if not _backfills(sim.policy) and other.partition in after:
            start = max(start or t, after[other.partition])
        free = None
        if other.throttle is not None:
            free = slots.setdefault(other.array_id, _slots(sim, other, t))
            slot = heapq.heappop(free)
            start = max(start or t, slot)
        span = other.limit + _strict(sim.policy)
        found = later.earliest(other.request, other.mask & up, span, not_before=start)
        if found is None:
            return None
        _i, start, nodes = found
        if start > place:  # (not placed: its slot stays free)
            if free is not None:
                heapq.heappush(free, slot)
            continue
        usage = held_rows(
            other.demand,
            sim.capacity,
            nodes,
            plans == "whole" or other.exclusive,
            other.whole_memory,
        )
        later.reserve(nodes, usage, start, start + other.limit)
        if free is not None:
            heapq.heappush(free, start + other.limit)
        after[other.partition] = max(after.get(other.partition, t), start)
        placed = True
    mine = None if _backfills(sim.policy) else after.get(job.partition)
    if job.throttle is not None:  # (its own array's slots, once the tasks ahead took theirs)
        own = slots.setdefault(job.array_id, _slots(sim, job, t))
        mine = max(mine or t, own[0])
    return _Picture(later, mine, placed)


def _queued_ahead(sim: Simulation, job, t: float, heads, split: bool):
    """The jobs queued ahead of ``job`` at ``t`` on nodes it may use, in queue order
    (waiting for Resources or Priority, or for their array's ``%N``: JobArrayTaskLimit),
    each with its planned start (squeue --start; None: none) and whether that plan names
    its nodes (:func:`_room` holds them); None where one of several partitions (``-p
    a,b``) or with ``--spread-job`` has no plan to place it by, or a QOS/association limit
    applies to one pending (:func:`_limited`: when it lets it start is not known), or
    where a plan was made behind a task waiting for its array's throttle (the task goes
    first once a slot frees, so that plan does not stand). ``split``: in the order an
    update that splits array task ``job`` off its record gives (:func:`_split_order`)."""
    out, waits = [], False
    order = _split_order(sim, job, t) if split else (lambda o: _key_at(o, t))
    key = order(job)
    others = sorted((o for o in sim.jobs.values() if o is not job and order(o) < key), key=order)
    for other in others:
        if not (other.mask & job.mask).any() or _state_at(sim, other, t) != "pending":
            continue
        if _limited(sim, other, t):
            return None
        reason = _reason_at(sim, other, t, heads)
        if reason not in ("Resources", "Priority", "JobArrayTaskLimit"):
            continue
        plan = _plan_of(sim, other, t, heads)
        waits = waits or reason == "JobArrayTaskLimit"
        if reason != "JobArrayTaskLimit" and plan is not None and plan[1] is not None:
            if waits:
                return None
            out.append((other, plan[1], last_before(other.sched, t, None) is not None))
        elif other.alts is not None or other.spread is not None:
            return None
        else:
            out.append((other, None, False))
    return out


def _limited(sim: Simulation, job, t: float) -> bool:
    """Whether a QOS/association limit may hold ``job`` back from ``t`` on (its QOS's
    GrpTRES, MaxTRESPerUser or MaxJobsPerUser, its account's or a parent's GrpTRES or
    MaxJobs: :func:`_limit_groups`): when such a limit lets a job start depends on the jobs of its
    group then (acct_policy.c), which the picture does not follow. At the present moment,
    a limit that its group's running jobs and every pending job of the group together
    could not reach (:func:`_may_reach`) holds no job back if nothing else changes."""
    if not sim._limits:  # noqa: SLF001
        return False
    groups = _limit_groups(sim, job)
    if not groups:
        return False
    if t != sim.env.now:
        return True
    return any(_may_reach(sim, job, group, t) for group in groups)


def _may_reach(sim: Simulation, job, group: tuple, t: float) -> bool:
    """Whether the running jobs of a limit's ``group`` and every job of it pending at ``t``
    could together be over one of its limits: each pending job counted at the most it
    may hold (up to MAX nodes, an ``--exclusive`` one its largest nodes whole), nodes
    counted as if no two shared one (Slurm counts a shared node once). Kept with the
    limits' sums until a job starts or ends, or anything else happens (a submission, an
    update, a cancellation: an event): a picture asks it of every job it places. Keyed by
    the job's QOS too: which of the group's limits apply depends on it (a QOS's GrpTRES
    replaces the account's for its TRES, a QOS MaxJobsPerUser the account's MaxJobs)."""
    cache = sim._used_cache()  # noqa: SLF001
    key = ("may reach", group, job.qos, t, len(sim.events))
    if key not in cache:
        cache[key] = _reaches(sim, job, group, t)
    return cache[key]


def _reaches(sim: Simulation, job, group: tuple, t: float) -> bool:
    """:func:`_may_reach`, not kept."""
    used, _held, running = sim._used_by(group)  # noqa: SLF001
    pending = [
        o for o in sim.jobs.values()
        if sim._in_group(o, group) and _state_at(sim, o, t) == "pending"  # noqa: SLF001
    ]  # fmt: skip
    counted = sim._count_limit(job)  # noqa: SLF001
    if counted is not None and counted[2] == group and running + len(pending) > counted[1]:
        return True
    limits = next((c[1] for c in sim._checks(job)[1] if c[-1] == group), {})  # noqa: SLF001
    total = dict(used)
    for o in pending:
        for k, v in _most_held(sim, o).items():
            total[k] = total.get(k, 0) + v
    return any(total.get(k, 0) > v for k, v in limits.items())


def _most_held(sim: Simulation, job) -> dict[str, int]:
    """The most of each TRES the pending ``job`` may hold once it starts: on up to MAX
    nodes, an ``--exclusive`` job every CPU, MB and GPU of its largest nodes."""
    n = max(job.count, job.most or 0, job.spec.max_nodes or 0)
    per = sim.capacity[job.mask].max(axis=0) if job.exclusive else job.demand
    if job.exclusive and not job.mask.any():
        per = job.demand
    gpu = max(int(per[2]) * n, job.gpus_per_job)
    return {"cpu": int(per[0]) * n, "mem": int(per[1]) * n, "gres/gpu": gpu, "node": n}


def _split_key(job, t: float) -> tuple:
    """The queue key of array task ``job`` once an update splits it off its array's pending
    record: ordered before the tasks still in the record (``SimJob.split_order``)."""
    tasks = len(job.spec.array.indices) if job.spec.array is not None else 1
    return (*_key_at(job, t)[:3], job.split_order(tasks))


def _split_order(sim: Simulation, job, t: float):
    """The queue key of each job once an update splits array task ``job`` off its record:
    ``job`` and, when one task is left in the record, that task too, go by their task ids
    (the record's last task is a job of its own; :func:`_array_held`)."""
    left = [
        o for o in sim.jobs.values()
        if o.array_id == job.array_id and o is not job and _unsplit_at(o, t)
        and _state_at(sim, o, t) == "pending"
    ]  # fmt: skip
    split = {job.id} | ({left[0].id} if len(left) == 1 else set())
    return lambda o: _split_key(o, t) if o.id in split else _key_at(o, t)


def _slots(sim: Simulation, job, t: float) -> list[float]:
    """When each of the ``%N`` slots of ``job``'s array frees, from ``t`` (a heap): now for
    each slot no task holds, else the end of the running task that holds it, at its time
    limit. More tasks may run than ``%N`` (the throttle lowered since they started): a task
    starts only while fewer than N run (job_mgr.c ``job_array_start_test``), so the first
    slot frees when all but N - 1 of them have ended, and the N slots are held by the N
    running tasks that end last."""
    ends = []
    for other in sim.jobs.values():
        if other.array_id == job.array_id and _state_at(sim, other, t) == "running":
            runs = [*other.runs, sim._run_record(other, other.state)]  # noqa: SLF001
            start = max(r["Start"] for r in runs if r["Start"] is not None and r["Start"] <= t)
            ends.append(start + other.limit)
    ends = sorted(ends)[max(len(ends) - job.throttle, 0) :]
    ends += [t] * max(job.throttle - len(ends), 0)
    heapq.heapify(ends)
    return ends


def _fewer_start(sim, job, pictures, request, mask, span, own_start):
    """(words, start, command) of the most nodes fewer than ``job``'s with which it would
    start, at its fits in ``pictures`` (:func:`_start_in`), a minute or more before
    ``own_start``, not now (what would start it now, the hints above say); or None."""
    now = pictures[0].room.times[0]
    for k in range(job.count - 1, 0, -1):
        shape = _shape_on(sim, job, k)
        if shape is None:
            continue
        start = _start_in(pictures, replace(request, demand=shape, count=k), mask, span)
        if start >= own_start - 60 or start <= now:
            continue
        top = job.spec.max_nodes
        upto = f"-{top}" if top and top > job.count else ""
        command = _update_command(job, nodes=_node_span(job, k, k))
        return f"with --nodes={k} (instead of {job.count}{upto})", start, command
    return None


def _shorter_start(sim, job, pictures, request, mask, own_start):
    """(words, start, command) of the longest whole-minute time limit below ``job``'s (not
    below its --time-min: an update may not go there) with which it could run from some
    start in the first of ``pictures`` before a plan or advance reservation takes its
    nodes, if with it it would start, at its fits in ``pictures`` (:func:`_start_in`), a
    minute or more before ``own_start``, not now (what would start it now, the hints above
    say); or None."""
    if math.isinf(job.limit):
        return None
    later, after = pictures[0].room, pictures[0].after
    strict, low, best = _strict(sim.policy), max(1, math.ceil(job.time_min / 60)), 0
    top = math.ceil(job.limit / 60) - 1
    if low > top:  # (--time-min leaves no whole minute below its limit)
        return None
    for i, start in enumerate(later.times):
        if start >= own_start - 60 or top <= best:
            break
        if start <= later.times[0] or (after is not None and start < after):
            continue
        lo, hi = max(low, best + 1), top
        if later.fits(request, mask, lo * 60 + strict, at=i) is None:
            continue
        while lo < hi:  # (the longest limit that fits from there)
            mid = (lo + hi + 1) // 2
            if later.fits(request, mask, mid * 60 + strict, at=i) is None:
                hi = mid - 1
            else:
                lo = mid
        best = lo
    if not best:
        return None
    start = _start_in(pictures, request, mask, best * 60 + strict)
    if start >= own_start - 60 or start <= later.times[0]:
        return None
    text = format_duration(timedelta(seconds=best * 60))
    now = format_duration(timedelta(seconds=job.limit))
    return f"with -t {text} (instead of {now})", start, _update_command(job, time=text)


def _no_reservation(sim: Simulation, job, t: float) -> str | None:
    """Under the ``slurm`` policy, why backfill gives ``job`` no reservation at ``t``: it is
    too young (``bf_min_age_reserve``) or of too low a priority (``bf_min_prio_reserve``);
    else None."""
    policy = sim.policy
    if getattr(policy, "name", None) != "slurm":
        return None
    age = getattr(policy, "bf_min_age_reserve", 0)
    least = getattr(policy, "bf_min_prio_reserve", 0)
    since = job.eligible if job.eligible is not None and job.eligible <= t else None
    if age and since is not None and t - since < age:
        return (
            f"It has been eligible for {t - since:.0f} s, less than bf_min_age_reserve={age}: "
            "backfill gives it no reservation (squeue --start shows N/A), and it holds no "
            "later job of its partition back; it starts when it fits now, and gets a "
            f"reservation from {_when(sim, since + age)}."
        )
    priority = priority_at(sim, job, t)
    if least and priority < least:
        return (
            f"Its priority, {priority:.0f}, is below bf_min_prio_reserve={least}: backfill "
            "gives it no reservation (squeue --start shows N/A), and it holds no later job "
            "of its partition back; it starts when it fits now."
        )
    return None


def _untested(sim: Simulation, job, t: float) -> str:
    """Why the ``slurm`` policy's last backfill cycle gave a job no planned start: none has
    run since the job became eligible, or it did not test it (``bf_max_job_test`` and the
    per-cycle caps)."""
    policy = sim.policy
    interval = getattr(policy, "interval", None)
    ran = sim.cycle_times[: bisect_right(sim.cycle_times, t)]  # (a cycle at t has run by now)
    since = job.eligible if job.eligible is not None else job.submit
    if interval and (not ran or ran[-1] < since):
        last = f" (the last ran at {_when(sim, ran[-1], inside=True)})" if ran else ""
        # (the next cycle the run made, else the one its timer is armed for)
        later = sim.cycle_times[len(ran) :]
        after = later[0] if later else sim._next_poll(t)
        return (
            f"No backfill cycle has run since it became eligible at {_when(sim, since)}{last}: "
            f"one runs bf_interval={interval:g} s after the last, then at the first second "
            f"something changed, and the next, at {_when(sim, after)}, is the first that can "
            "test it (squeue --start shows N/A until a cycle gives it a start)."
        )
    caps = [
        f"{getattr(policy, key)} {what} ({key})"
        for key, what in (
            ("bf_max_job_user", "of one user"),
            ("bf_max_job_assoc", "of one account and user"),
            ("bf_max_job_part", "of one partition"),
            ("bf_max_job_user_part", "of one user in one partition"),
        )
        if getattr(policy, key, 0)
    ]
    said = f", at most {', '.join(caps)}" if caps else ""
    if getattr(policy, "bf_max_job_start", 0):
        said += f", and it ends after {policy.bf_max_job_start} starts (bf_max_job_start)"
    main = getattr(policy, "sched_interval", 60) != -1
    first = " a main-scheduler pass starts it when it is first in line and fits" if main else ""
    if job.array_id is not None and _unsplit_at(job, t) and not policy.bf_max_job_array_resv:
        return (
            "Backfill tests no array's pending tasks (bf_max_job_array_resv=0, squeue "
            "--start shows N/A)"
            + (f";{first}." if main else ", and with no main scheduler (sched_interval=-1) "
               "none of them ever starts.")
        )  # fmt: skip
    tested = getattr(policy, "bf_max_job_test", 500)
    return (
        "The last backfill cycle did not test it (squeue --start shows N/A): a cycle tests "
        f"at most {tested} job{'s' * (tested != 1)} in priority order (bf_max_job_test, "
        "counted between job "
        f"records: an array's pending tasks are one, tested task after task){said}, and "
        "stops once its map holds bf_node_space_size reservations; a cycle tests it once "
        "fewer jobs are ahead of it (the jobs ahead start, end or are cancelled)"
        + (f", and{first}." if main else ".")
    )


def _memory_wait(sim, job, free: np.ndarray, demand: np.ndarray, usable: np.ndarray) -> str:
    """The line for a job that waits for memory alone (``demand``: its request without
    memory): where the MB it asks for come from, and the most per node it could start with
    now, or that its nodes have none free."""
    asked = job.spec.mem_mb is not None or job.spec.mem_per_cpu_mb is not None
    asked = asked or job.spec.mem_per_gpu_mb is not None
    mb = int(job.demand[1])
    whole = job.res.mem_whole_node and not asked  # (no DefMem*: a node's whole memory)
    if asked:
        whence = ""
    elif whole:
        whence = (
            " (it asks for none and the cluster sets no DefMemPerCPU, DefMemPerGPU or "
            "DefMemPerNode, so it gets a node's whole memory)"
        )
    else:
        whence = " (it asks for none: the cluster's default for it)"
    # the nodes its CPUs and GPUs fit on now, the count-th most free memory among them
    room = np.sort(free[usable & covers(free, demand), 1])[::-1]
    most = int(room[job.count - 1]) if room.size >= job.count else 0
    head = (
        "What it waits for is memory: the CPUs and GPUs it needs are free now on enough "
        f"nodes, but not {mb} MB per node{whence}; "
    )
    if job.whole_memory:  # (nodes of several sizes: each one's own, wholly free)
        head = (
            "What it waits for is memory: the CPUs and GPUs it needs are free now on enough "
            f"nodes, but it takes the whole memory of each node it gets{whence or ' (--mem=0)'}"
            f", and fewer than {job.count} of those nodes have none of their memory allocated; "
        )
    if most > 0:
        return head + f"with --mem={most}M per node or less it could start now."
    if whole:
        return head + (
            "those nodes have no memory free: the jobs running there hold it all (a job that "
            "asks for none gets a node's whole memory here, as this one does), so it waits "
            "for one of them to end; give the jobs --mem (or the cluster DefMemPerCPU) so "
            "that several share a node."
        )
    return head + (
        "those nodes have no memory free: the jobs running there hold it all (--mem=0 "
        "takes a node's whole memory), so it waits for one of them to end."
    )


def _reserved_against(sim: Simulation, job, t: float) -> list[tuple[float, str, np.ndarray]]:
    """(start, name, nodes) of the advance reservations not yet over at ``t`` that ``job``
    may not use (all but its own ``--reservation``): no job may run on their nodes into
    their window, so no hint may count on those nodes past the window's start."""
    return [
        (r.start, r.name, nodes)
        for r, nodes in sim.reservations.values()
        if r.end > t and r.name != job.spec.reservation
    ]


def _outside(mask: np.ndarray, windows, until: float) -> np.ndarray:
    """``mask`` without the nodes of reservations that begin before ``until``."""
    for start, _name, nodes in windows:
        if start < until:
            mask = mask & ~nodes
    return mask


def _planned_from(
    sim: Simulation, job, t: float, tier: int | None = None
) -> list[tuple[object, float]]:
    """The other jobs planned at ``t`` to start from ``t`` on whose plans a change of ``job``
    must not delay, each with when its plan holds its nodes from (``t`` at the earliest).
    Backfill plans jobs in priority order and starts a later one only where it delays none
    of the plans made before it (backfill.c _attempt_backfill: each job tested against the
    node_space map of the jobs before it), so only the plans of jobs ahead of it count, as
    ``tier`` (a move's partition's PriorityTier) orders it; ``conservative`` keeps every
    standing plan and places an updated job among them (``Conservative.schedule``), so
    every plan counts."""
    every = getattr(sim.policy, "name", None) == "conservative"
    mine = _key_at(job, t, tier)
    out = []
    for other in sim.jobs.values():
        if other is job or (not every and _key_at(other, t) >= mine):
            continue
        plan = _plan_at(other, t)  # (an array's pending record: its first task's plan)
        if plan is not None and plan[1] is not None and plan[1] >= t:
            # (under slurm a plan starting within bf_resolution of t may hold its nodes from
            # before t: it holds them now)
            held = _held_from_start(sim.policy, plan[1], sim._epoch)  # noqa: SLF001
            out.append((other, max(held, t)))
    return out


def _plan_of(sim: Simulation, job, t: float, heads=None):
    """The (time, planned start) ``job`` shows at ``t``: an array task still in its array's
    pending record shows the record's, its first task's (squeue)."""
    head = heads.get(job.array_id) if heads is not None and job.array_id is not None else None
    if head is not None and head is not job and _unsplit_at(job, t) and _unsplit_at(head, t):
        return _plan_at(head, t)
    return _plan_at(job, t)


def _room(
    sim: Simulation, t: float, free: np.ndarray, planned, whole: bool | None = None
) -> Profile:
    """The resources free from ``t`` on as backfill maps them: the running jobs end at their
    time limits, and each ``planned`` job holds its SCHEDNODES from its planned start for
    its time limit (:func:`_plans_known` says whether every plan names its nodes): what it
    asks on each under ``easy`` and ``conservative`` (their profiles), the whole nodes
    under ``slurm``, whose node_space map reserves nodes (backfill.c _add_reservation takes
    the job's node bitmap out of each slot's avail_bitmap); ``whole=False``: what each
    asks under ``slurm`` too."""
    if whole is None:
        whole = getattr(sim.policy, "name", None) == "slurm"
    releases = [
        (run["Start"] + other.limit, tuple(run["nodes"]), run["usage"])
        for other, run, _last in records_at(sim, t)
        if run["Start"] is not None and run["Start"] <= t and run["nodes"]
    ]
    room = Profile(t, free, sim.capacity, releases, sim.weights)
    for other, start in planned:
        nodes = last_before(other.sched, t, None)
        if nodes:
            nodes = tuple(nodes)
            room.reserve(
                nodes,
                held_rows(
                    other.demand,
                    sim.capacity,
                    nodes,
                    whole or other.exclusive,
                    other.whole_memory,
                ),
                start,
                start + other.limit,
            )
    return room


def _plans_known(planned, t: float, until: float) -> bool:
    """Whether every plan of ``planned`` that holds its nodes from before ``until`` names
    them (squeue --start's SCHEDNODES): a plan of unknown nodes may hold any node."""
    return all(
        last_before(other.sched, t, None) is not None for other, start in planned if start < until
    )


def _gap_on(sim: Simulation, job, planned, free: np.ndarray, usable: np.ndarray, t: float):
    """Seconds from ``t`` until a job that fits now would meet a planned start: on the nodes
    it fits on now, the ``job.count``-th latest first planned start (a plan holds the nodes
    its SCHEDNODES name; one that names none, every node), so it may run up to then on the
    nodes whose plans come last."""
    first = np.full(len(sim.node_names), math.inf)
    for other, start in planned:
        nodes = last_before(other.sched, t, None)
        if nodes is None:
            np.minimum(first, start, out=first)
        else:
            at = list(nodes)
            first[at] = np.minimum(first[at], start)
    if job.exclusive:
        fit = usable & (free == sim.capacity).all(axis=1)
    else:
        fit = usable & covers(free, job.demand)
    room = np.sort(first[fit])[::-1]
    return (room[job.count - 1] if room.size >= job.count else first.min()) - t


def _held_from_start(policy, start: float, epoch: float) -> float:
    """When a job planned to start at ``start`` holds its nodes from: ``slurm``'s backfill
    reserves from the start rounded down to ``bf_resolution`` on the epoch's grid
    (:func:`~slurmlab.policies.nodespace.slot_of`; ``epoch``: time 0's epoch second);
    others from it."""
    if getattr(policy, "name", None) == "slurm":
        res = policy.bf_resolution
        return slot_of(start, res, epoch % res)
    return start


def _strict(policy) -> float:
    """Seconds a job must end before another job's planned start: ``slurm``'s node_space
    counts a job ending at a planned reservation's first second as overlapping it
    (backfill.c: begin_time <= end_time); elsewhere, and for advance reservations
    (reservation.c job_test_resv), a job ending at ``t`` frees its nodes for ``t``."""
    return 1.0 if getattr(policy, "name", None) == "slurm" else 0.0


def _tested(sim: Simulation, job, t: float) -> bool:
    """Whether the last backfill cycle before ``t`` tested ``job`` (it gave it a planned
    start): under ``slurm`` a cycle tests at most ``bf_max_job_test`` jobs and stops when its
    node_space map is full (``bf_node_space_size``); a job it does not test shows N/A."""
    if getattr(sim.policy, "name", None) != "slurm":
        return True
    plan = _plan_at(job, t)
    if plan is not None and plan[1] is not None:
        return True
    if job.array_id is None or not _unsplit_at(job, t):
        return False
    # an array's pending task shows its record's plan (squeue): the record was tested when
    # a cycle planned any of its tasks
    return any(
        (p := _plan_at(other, t)) is not None and p[1] is not None
        for other in sim.jobs.values()
        if other.array_id == job.array_id and _unsplit_at(other, t)
    )


def _cycle_delay(policy) -> float:
    """How much later than now a backfill cycle may start a job: ``slurm``'s ``bf_interval``
    (its cycles run on their own clock); ``easy`` and ``conservative`` backfill in the pass."""
    return float(policy.interval) if getattr(policy, "name", None) == "slurm" else 0.0


def _before_reservation(
    sim: Simulation, job, free, mask, windows, ahead, t: float, delay: float
) -> tuple[str, dict, np.ndarray] | None:
    """``with -t H:MM:00 ... it would end before reservation R begins``, that change
    (``{"time": "H:MM:00"}``) and the nodes it may use: the longest whole-minute limit under the job's own with which
    it fits now on nodes no reservation takes before it ends, and ends before every other
    job's planned start, even if it starts ``delay`` seconds from now; or None."""
    for start, name, _nodes in sorted(windows, key=lambda w: w[0], reverse=True):
        limit = int((start - t - delay) // 60) * 60  # (ending at its start: no overlap)
        if (
            limit < 60
            or limit >= job.limit
            or limit < job.time_min  # (an update may not go below it)
            or any(p < t + delay + limit for p in ahead)
        ):
            continue
        usable = _outside(mask, windows, t + limit)
        if choose_nodes(free, sim.capacity, bare_request(job), usable):
            now = (
                format_duration(timedelta(seconds=job.limit))
                if not math.isinf(job.limit)
                else "UNLIMITED"
            )
            text = format_duration(timedelta(seconds=limit))
            return (
                f"with -t {text} (instead of {now}) it would end before reservation {name} "
                "takes its nodes and could start now",
                {"time": text},
                usable,
            )
    return None


def _roomier(sim: Simulation, job) -> str:
    """``, or another partition (-p a, -p b)``: the partitions with the nodes and CPUs the job
    asks for (a fix for PartitionNodeLimit, PartitionConfig), or nothing."""
    cluster, cpus = sim.cluster, job.res.cpus_per_node * job.count
    roomier = [
        f"-p {p.name}"
        for p in cluster.partitions
        if p.name != job.partition
        and min(len(p.nodes), p.max_nodes or len(p.nodes)) >= job.count
        and cluster.partition_cpus(p.name) >= cpus
    ]
    return f", or another partition ({', '.join(roomier)})" if roomier else ""


def _backfills(policy) -> bool:
    """Whether the policy starts later jobs ahead of a blocked one (``easy``,
    ``conservative``, ``slurm`` with backfill cycles; not ``fifo``, nor ``slurm`` with
    ``bf_interval=-1``)."""
    name = getattr(policy, "name", None)
    return name in ("easy", "conservative") or (name == "slurm" and policy.interval is not None)


def _planned_ahead(
    sim: Simulation, job, t: float, heads=None, partition: str | None = None,
    tier: int | None = None,
) -> bool:  # fmt: skip
    """Whether every job first in line ahead of ``job`` in its partition (or ``partition``,
    where a move would put it with PriorityTier ``tier``; reason Resources at ``t``) holds a
    planned start then: backfill starts a later job only when it delays no such
    reservation, and before a ``slurm`` backfill cycle has planned one, which it would be is
    not known yet. An array task in its array's pending record shows the record's plan."""
    partition = partition or job.partition
    key, found = _key_at(job, t, tier), False
    for other in sim.jobs.values():
        if other is job or other.partition != partition or _key_at(other, t) >= key:
            continue
        if _state_at(sim, other, t) != "pending":
            continue
        if _reason_at(sim, other, t, heads) == "Resources":
            plan = _plan_of(sim, other, t, heads)
            if plan is None or plan[1] is None:
                return False
            found = True
    return found


_HOLD = "The running jobs that hold it end at their time limits"
_TRES = {"cpu": "CPUs", "mem": "MB of memory", "node": "nodes", "gres/gpu": "gres/gpu"}


def _group_limit(sim: Simulation, job, reason: str, t: float) -> list[str]:
    """A job its group's running jobs keep over a QOS/association limit at the present
    moment ``t``: the reason's words with the numbers (the limit, what the group's running
    jobs hold, what the job needs), the jobs that hold it, and when, if nothing else
    changes, enough of them end at their time limits for the limit to let it start
    (:func:`_limit_lets`), with its start then where the queue's picture shows room
    (:func:`_limit_start`). Slurm tests the limits on the sums of the group's running jobs
    (acct_policy.c _qos_job_runnable_post_select, acct_policy_job_runnable_pre_select):
    ``Controller._limit_over``. [] where the engine's test names another reason."""
    over = sim._limit_over(job)  # noqa: SLF001
    if over is None or over.reason != reason or not over.group:
        return []
    holders = sorted(sim._group_jobs(over.group), key=lambda r: (_end_of(r), r.id))  # noqa: SLF001
    if not holders:
        return []
    words = _held_words(sim, job, over)
    listed = ", ".join(
        f"job {r.key} at {_when(sim, _end_of(r))}"
        if math.isfinite(_end_of(r))
        else f"job {r.key} (no time limit)"
        for r in holders[:6]
    )
    if len(holders) > 6:
        listed += f" and {len(holders) - 6} more"
    out = [words, f"{_HOLD}: {listed}."]
    lets = _limit_lets(sim, job) if _ends_tell(sim, job) else None
    if lets is None:
        return out
    when, ended = lets
    keys = [r.key for r in ended]
    if len(keys) > 6:
        keys = [*keys[:6], f"{len(keys) - 6} more"]
    who = (
        f"job {keys[0]} ends by its time limit at about"
        if len(keys) == 1
        else f"jobs {', '.join(keys[:-1])} and {keys[-1]} end by their time limits by about"
    )
    start = _limit_start(sim, job, t, when)
    then = (
        f"; from then the limit lets it start, and it would start at about {_when(sim, start)}"
        if start is not None
        else "; from then the limit lets it start, once nodes are free for it"
    )
    out.append(
        "If nothing else changes (the running jobs end at their time limits), "
        f"{who} {_when(sim, when)}{then}."
    )
    return out


def _ends_tell(sim: Simulation, job) -> bool:
    """Whether the ends of its group's running jobs tell when ``job``'s limits let it
    start: not for a ``-N MIN-MAX`` job under a TRES limit (it takes up to MAX nodes, which
    the limit then tests), nor under a node= limit for a job that may share nodes (Slurm
    counts a node its group's jobs hold once, acct_policy.c _get_unique_job_node_cnt, so
    it may start sooner on one of theirs)."""
    checks = sim._checks(job)[1]  # noqa: SLF001
    if job.most is not None and checks:
        return False
    return job.exclusive or not any("node" in check[1] for check in checks)


def _end_of(job) -> float:
    """When the running ``job`` ends at its time limit."""
    return job.start + job.limit


def _held_words(sim: Simulation, job, over) -> str:
    """``alice's running jobs in QOS normal hold 16 of the 16 gres/gpu MaxTRESPerUser
    allows; this job needs 8 more``: the numbers of a limit ``over`` (a ``LimitOver``)."""
    kind, name = over.group[0], over.group[1]
    if over.tres == "jobs":
        where = f"QOS {over.group[2]}" if kind == "user" else f"account {over.group[2]}"
        what = "MaxJobsPerUser" if kind == "user" else "MaxJobs"
        return (
            f"{name} already runs {over.used} job{'s' * (over.used != 1)} in {where}, as "
            f"many as its {what} allows ({over.limit}); this job would be one more"
        )
    if kind == "user":
        whose = f"{name}'s running jobs in QOS {over.group[2]}"
    elif kind == "qos":
        whose = f"the running jobs of QOS {name}"
    else:
        parent = f" (a parent of {job.account})" if name != job.account else ""
        whose = f"the running jobs of account {name}{parent} and its child accounts"
    limit = "MaxTRESPerUser" if kind == "user" else "GrpTRES"
    return (
        f"{whose} hold {over.used} of the {over.limit} {_TRES.get(over.tres, over.tres)} "
        f"its {limit} allows; this job needs {over.need} more"
    )


def _limit_groups(sim: Simulation, job) -> list[tuple]:
    """The groups whose running jobs ``job``'s QOS/association limits count (as
    ``Controller._used_by`` names them): those of its TRES limits and job counts."""
    _count, checks = sim._checks(job)  # noqa: SLF001
    counted = sim._count_limit(job)  # noqa: SLF001
    return [check[-1] for check in checks] + ([counted[2]] if counted else [])


def _limit_lets(sim: Simulation, job):
    """(when, the jobs ended by then that held it back): the first end at its time limit of
    a running job of ``job``'s limit groups after which its limits let it start (on the
    nodes it would get if every usable node were idle, for an ``--exclusive`` job: Slurm
    tests them again on the nodes it picks), with no other job of them started; None if
    none does. The jobs named are those of the groups whose limit it was over on the way
    (not every job of its other groups that ends by then)."""
    jobs = {r.id: r for g in _limit_groups(sim, job) for r in sim._group_jobs(g)}  # noqa: SLF001
    idle = _idle_of(sim, job) if job.exclusive else None
    held: set[tuple] = set()  # the groups whose limit held it on the way

    def over(gone: frozenset) -> bool:  # (noting the groups that hold it)
        found = [sim._limit_over(job, without=gone)]  # noqa: SLF001
        if idle is not None:
            found.append(sim._limit_over(job, picked=idle, without=gone))  # noqa: SLF001
        held.update(o.group for o in found if o is not None)
        return any(o is not None for o in found)

    over(frozenset())  # (what holds it now)
    for end in sorted({_end_of(r) for r in jobs.values() if math.isfinite(_end_of(r))}):
        gone = frozenset(i for i, r in jobs.items() if _end_of(r) <= end)
        if not over(gone):
            ended = [r for i, r in jobs.items() if i in gone and _in_any(sim, r, held)]
            return (end, sorted(ended, key=lambda r: (_end_of(r), r.id))) if ended else None
    return None


def _in_any(sim: Simulation, job, groups) -> bool:
    """Whether ``job`` counts in one of the limits' ``groups``."""
    return any(sim._in_group(job, g) for g in groups)  # noqa: SLF001


def _limit_start(sim: Simulation, job, t: float, when: float) -> float | None:
    """When ``job``, which its limits let start from ``when`` (:func:`_limit_lets`), would
    start, in the pictures of the queue :func:`_sooner_on_fewer` uses (:func:`_picture`:
    the running jobs end at their time limits, the plans ahead stand, the jobs queued
    ahead placed in turn, those behind it that fit first started: a job held by a limit
    holds no reservation and blocks none behind it, job_scheduler.c); None where that is
    not sure: another pending job shares one of its limits (which of them the limit lets
    start first is not followed), or a picture is not whole."""
    if job.alts is not None or job.spread is not None or job.most is not None:
        return None
    if job.exclusive and not _alike(sim, job.mask):
        return None
    groups = _limit_groups(sim, job)
    rivals = (
        o for o in sim.jobs.values()
        if o is not job and any(sim._in_group(o, g) for g in groups)  # noqa: SLF001
    )  # fmt: skip
    if any(_state_at(sim, o, t) == "pending" for o in rivals):
        return None
    heads, up = array_heads(sim, t), up_at(sim, t)
    if _held_from(sim, job, t, heads=heads).any():
        return None
    planned = _planned_from(sim, job, t)
    if not _plans_known(planned, t, math.inf):
        return None
    behind = _behind(sim, job, t, heads)
    if behind is None:
        return None
    free = sim.capacity - used_at(sim, t)
    rooms = [(_room(sim, t, free, planned), _plans_as(sim))]
    if _plans_as(sim) == "whole":
        rooms.append((_room(sim, t, free, [], whole=False), "none"))
    pictures = []
    for room, plans in rooms:
        p = _picture(sim, job, t, room, heads, split=False, plans=plans, own_limit=True)
        if p is None:
            return None
        pictures.append(p._replace(after=max(when, p.after or when), behind=behind))
    request = replace(job.request, most=None)
    start = _start_in(pictures, request, job.mask & up, job.limit + _strict(sim.policy))
    return start if math.isfinite(start) else None


def _within_slack(sim: Simulation, job, reason: str, t: float) -> list[str]:
    """For a job a TRES limit holds now (its group's running jobs, or its request alone): the
    most nodes fewer than its own on which it would be within the limit now
    (``Controller._limit_reason`` on that shape, and on the nodes it would get) and could
    start now, as the hints for a job
    waiting for Resources say it (:func:`_fewer_now`, checked by :func:`_possible`), when
    no job of its partition waits ahead of it or, under a backfilling policy, every one
    that does holds a planned start; else nothing."""
    if job.alts is not None or job.array_id is not None or job.spec.nodes is None:
        return []
    if reason in ("QOSMaxJobsPerUserLimit", "AssocMaxJobsLimit") or job.count < 2:
        return []
    heads, up = array_heads(sim, t), up_at(sim, t)
    ahead = _planned_ahead(sim, job, t, heads)
    waiting = any(
        o is not job and o.partition == job.partition and _key_at(o, t) < _key_at(job, t)
        and _state_at(sim, o, t) == "pending"
        and _reason_at(sim, o, t, heads) in ("Resources", "Priority")
        for o in sim.jobs.values()
    )  # fmt: skip
    if waiting and not (ahead and _backfills(sim.policy)):
        return []
    free = sim.capacity - used_at(sim, t)
    planned = _planned_from(sim, job, t)
    delay = _cycle_delay(sim.policy) if waiting else 0.0
    span = job.limit + delay + _strict(sim.policy)
    if not _plans_known(planned, t, t + span):
        return []
    windows = _reserved_against(sim, job, t)
    usable = _outside(job.mask & up & ~_held_from(sim, job, t, heads=heads), windows, t + span)

    def within(k: int, shape) -> bool:
        record = _Reshaped(job, count=k, demand=shape, most=None)
        return sim._limit_reason(job, record, k) is None  # noqa: SLF001

    hint = _fewer_now(sim, job, _room(sim, t, free, planned), usable, span, within)
    if hint is None:
        return []
    hint = hint._replace(text=hint.text + " within the limit")
    kept, _why = _possible(sim, job, t, [hint], heads, free, up)
    return [_hints_line(job, kept)] if kept else []


def _own_allocation_over_limit(sim: Simulation, job, reason: str, t: float) -> list[str]:
    """A job that its QOS/association limits would let start on what it asks for, but not on
    the nodes it would get: the reason's words, then the lines that say why, with a fix.
    What the limits' groups use is known at the present moment only: at a past one, only
    whether it is over on its own on the nodes it would get if every usable node were idle
    (``alone``); else the reason's own words. Over on its own, it is said so even when its
    group's running jobs would stop it too (they ending would not start it).

    Slurm tests the limits again on the nodes it picks (acct_policy_job_runnable_post_select)
    and tries no fewer: a ``-N MIN-MAX`` job takes up to MAX nodes, an ``--exclusive`` one
    every CPU and GPU of its nodes. While too few nodes are free it tests them on the nodes
    it would get if every usable node were idle, none counted as one its QOS or account holds
    (``Controller._busy_limits``): over a limit there, the job shows that limit instead
    of Resources and holds no later job back, though it may well start once nodes are free."""
    present = t == sim.env.now
    if (
        not reason.startswith(("QOS", "Assoc"))
        or reason in ("QOSMaxJobsPerUserLimit", "AssocMaxJobsLimit")  # (a count: no nodes)
        or not sim._limits  # noqa: SLF001
        or job.alts is not None
        or sim._limit_reason(job, alone=True) is not None  # noqa: SLF001 - its request alone
    ):
        return []
    # (over with what its group's running jobs hold, on what it asks for)
    used = present and sim._limit_reason(job) is not None  # noqa: SLF001
    record = sim._pending_of(job)  # noqa: SLF001
    if job.most is not None:
        record = sim._within_limits(job, record)  # noqa: SLF001
    now = None
    if present:
        usable = record.mask & sim.up
        now = choose_nodes(sim.free, sim.capacity, record.request, usable, sim.weights)
    idle = sim._idle_pick(record) if now is None else now  # noqa: SLF001
    if idle is None:
        return []
    if not present and (
        (job.most is None and not job.exclusive)
        or not sim._limit_reason(job, picked=idle, alone=True)  # noqa: SLF001
    ):  # (within it on its own: over with what its group's jobs held then, the reason's
        return []  # own words; what they held then is not kept)
    if present and not used and now is None and not sim._limit_reason(job, picked=idle):  # noqa: SLF001
        n = len(idle)
        return [
            "too few nodes are free for it, and then Slurm tests the limits on the nodes it "
            "would get if every usable node were idle, counting none of them as held by its "
            "QOS or account yet",
            f"On those {n} node{'s' * (n > 1)} it would be over that limit, so it waits for "
            "the limit rather than for Resources, and holds no later job of its partition "
            "back. It starts when enough nodes are free and the ones it gets keep it within "
            "the limit.",
        ]
    if job.most is None and not job.exclusive:
        return []
    if not sim._limit_reason(job, picked=idle, alone=True):  # noqa: SLF001
        if used:
            return []  # (the reason's words: its group's jobs hold too much)
        return [  # (over only with what its QOS's or account's running jobs hold)
            "on the nodes it would get, with what the running jobs of its QOS or account "
            "hold, it would go over that limit; it starts when enough of them end"
        ]
    words = "on the nodes it would get, it would go over that limit of its QOS or account"
    if job.exclusive:
        return [
            words,
            "Here it is its own size: with --exclusive it holds every CPU and GPU of the "
            f"{'nodes' if job.count > 1 else 'node'} it gets, and Slurm checks the limit on "
            "those, not on what it asks for.",
            "Fix: ask for fewer nodes, or drop --exclusive and ask for the CPUs and GPUs it "
            "needs (scontrol update cannot change --exclusive: submit it again).",
        ]
    fits = max(
        (
            n
            for n in range(job.count, job.most + 1)
            if not sim._limit_reason(job, None, n, alone=used or not present)  # noqa: SLF001
        ),
        default=None,
    )
    if fits is None:
        return []
    span = _node_span(job, job.count, fits)
    return [
        words,
        f"Here it is its own size: on {job.count} node{'s' * (job.count > 1)} it would be "
        "within that limit, but it "
        f"asks for up to {job.most} (--nodes={job.count}-{job.most}) and takes as many as are "
        "free: Slurm checks the limit on the nodes it picks and does not try fewer.",
        f"Fix: narrow the range to --nodes={span} ({_update_command(job, nodes=span)}).",
    ]


def _shape_on(sim: Simulation, job, count: int) -> np.ndarray | None:
    """What ``job`` asks per node (CPUs, MB, GPUs) on ``count`` nodes: ``-n`` tasks spread
    over fewer nodes put more on each (as Slurm lays out tasks on the node count an update
    gives it); None when the request cannot be laid out on that many."""
    if job.spec.nodes is None or job.alts is not None:
        return job.demand
    try:
        res = replace(job.spec, nodes=count, max_nodes=None).resources(sim.cluster)
    except SlurmlabError:
        return None
    return np.array([res.cpus_per_node, res.mem_per_node_mb, res.gpus_per_node])


def _pick(
    sim: Simulation, job, room: Profile, count: int, mask: np.ndarray, span: float = 0.0, *,
    demand=None, whole: bool | None = None, whole_memory: bool | None = None,
    ranged: bool = True,
):  # fmt: skip
    """The nodes ``job`` would get now among ``mask`` on ``count`` nodes, free in ``room``
    (:func:`_room`) for ``span`` seconds from now (0: free now), as ``demand`` asks per node
    (``whole`` nodes or not, each node's ``whole_memory`` or not, for a move), as the engine
    picks them; or None. A ``-N MIN-MAX`` job (``ranged``) takes as many as are free up to
    its MAX lowered to its node limits (node_scheduler.c get_node_cnts;
    ``Controller._node_cap``)."""
    most = job.most if ranged else None
    if most is not None:
        most = sim._node_cap(job, most, count)  # noqa: SLF001
    request = replace(
        job.request,
        demand=job.demand if demand is None else demand,
        count=count,
        exclusive=job.exclusive if whole is None else whole,
        most=most,
        whole_memory=job.whole_memory if whole_memory is None else whole_memory,
        spread=None,
    )
    return room.fits(request, mask, span)


class _Reshaped:
    """A job as another request shape asks (the attributes given), else as itself."""

    def __init__(self, job, **shape) -> None:
        self.__dict__.update(shape)
        self._job = job

    def __getattr__(self, name: str):
        return getattr(self._job, name)


def _over_limits(sim: Simulation, job, t: float, picked, demand=None, partition=None):
    """The QOS/association limit ``job`` would be over if a change started it at ``t`` on
    the nodes ``picked`` (as ``demand`` asks per node in ``partition``, for a move), or None.

    slurmctld tests the job counts before it picks nodes and the TRES limits on the nodes it
    picks (acct_policy.c acct_policy_job_runnable_pre_select and _post_select, called from
    node_scheduler.c select_nodes): the engine's test, ``Controller._limit_reason``. What
    the limits' groups use is known at the present moment only: at a past one, whether the
    job is over on its own (``alone``)."""
    if not sim._limits or not picked:  # noqa: SLF001
        return None
    record = None
    if demand is not None:  # (a move: its request shape in the other partition)
        record = _Reshaped(job, count=len(picked), demand=demand, partition=partition)
    return sim._limit_reason(job, record, picked=picked, alone=t != sim.env.now)  # noqa: SLF001


def _possible(
    sim: Simulation, job, t: float, hints: list[_Hint], heads, free: np.ndarray, up: np.ndarray
) -> tuple[list[_Hint], list[str]]:
    """The ``hints`` that would start the job now, and the lines that say why the others
    would not: a QOS/association limit on the nodes it would get (:func:`_over_limits`), or,
    for an array task, the engine holding it back (:func:`_array_held`); a job ahead of it
    that the change would let take those nodes first (:func:`_ahead_takes`)."""
    kept, why = [], []
    for hint in hints:
        partition = hint.partition or job.partition
        over = _over_limits(sim, job, t, hint.nodes, hint.demand, partition)
        held = None if over else _array_held(sim, job, t, heads, partition)
        rival = None if over or held else _limit_rival(sim, job, t, heads, partition)
        first = (
            None
            if over or held or rival
            else _ahead_takes(sim, job, t, heads, free, up, hint.nodes)
        )
        if over:
            whose = _limit_owner(job, over)
            said = f"it would be over a limit of {whose} ({over}) there"
        elif held:
            said = held
        elif first:
            said = (
                f"its own planned start keeps those nodes from job {first.key}, ahead of it: "
                "an update drops that plan, and that job may take them first"
            )
        elif rival:
            said = (
                f"job {rival.key} shares a limit of its QOS or account with it and would be "
                "queued ahead of it, so it may take what the limit leaves first"
            )
        else:
            kept.append(hint)
            continue
        if said not in why:
            why.append(said)
    if not why:
        return kept, []
    return kept, [
        "A change of nodes, time or partition that would give it free nodes now would not "
        f"start it now: {'; '.join(why)}."
    ]


def _ahead_takes(sim: Simulation, job, t: float, heads, free, up, picked):
    """A queued job ahead of ``job`` that may use nodes a change would give it (``picked``)
    once ``job`` gives up its planned start (or None): one that fits on free nodes now, or
    one planned to start after ``job``. A standing reservation (``conservative``) may be
    what keeps the nodes from that job, or pushed its plan back; an update drops the job's
    plan (job_mgr.c _update_job resets its start time), and the job ahead is tested, and
    planned, first."""
    plan = _plan_at(job, t)
    if not picked or plan is None or plan[1] is None:
        return None
    on = np.zeros(len(sim.node_names), dtype=bool)
    on[list(picked)] = True
    key = job.sort_key()
    for other in sim.jobs.values():
        if other is job or other.sort_key() >= key or _state_at(sim, other, t) != "pending":
            continue
        if not (other.mask & on).any() or _reason_at(sim, other, t, heads) not in (
            "Resources",
            "Priority",
        ):
            continue
        # (off the nodes advance reservations take during its time limit)
        usable = _outside(other.mask & up, _reserved_against(sim, other, t), t + other.limit)
        if choose_nodes(free, sim.capacity, bare_request(other), usable):
            return other
        theirs = _plan_at(other, t)  # (planned after it: its plan may have pushed it back)
        if theirs is not None and theirs[1] is not None and theirs[1] > plan[1]:
            return other
    return None


def _limit_rival(sim: Simulation, job, t: float, heads, partition: str):
    """A queued job that shares a QOS/association limit with ``job`` (its QOS's GrpTRES; its
    user's MaxTRESPerUser or MaxJobsPerUser there; its account's) and that goes before it
    once it is in ``partition`` (a lower PriorityTier comes later: job_scheduler.c
    sort_job_queue2), or None. Such a job is tested first, and starting it may leave the
    limit no room for this one (acct_policy.c counts every running job of the group), which
    the limits' test of the change alone does not see."""
    if not sim._limits:  # noqa: SLF001
        return None
    q = sim.qos[job.qos]
    per_user = q.max_tres_per_user or q.max_jobs_per_user is not None
    _count, checks = sim._checks(job)  # noqa: SLF001
    accounts = any(check[-1][0] == "account" for check in checks)
    if not (q.grp_tres or per_user or accounts):
        return None
    tier = sim.cluster.partition(partition).priority_tier
    mine = _in_tier(job.sort_key(), tier)
    for other in sim.jobs.values():
        if other is job or other.sort_key() >= mine or _state_at(sim, other, t) != "pending":
            continue
        shared = (
            (other.qos == job.qos and (q.grp_tres or (per_user and other.user == job.user)))
            or (accounts and other.account == job.account)
        )  # fmt: skip
        if shared and _reason_at(sim, other, t, heads) in ("Resources", "Priority"):
            return other
    return None


def _never_within_limits(sim: Simulation, job) -> str | None:
    """The line for a job over a QOS/association limit on its own on the nodes it would get
    if every usable node were idle (an ``--exclusive`` job's whole nodes, up to MAX of a
    ``-N MIN-MAX`` one), with no other job of its QOS, user or account running: it will
    never start as it is. Slurm tests the limits on the nodes it picks
    (acct_policy_job_runnable_post_select) and, while too few are free, on that idle
    selection (node_scheduler.c _pick_best_nodes test_only); the engine's
    ``Controller._limit_reason`` with ``alone``. Said only where every pick is alike: a
    ``-N MIN-MAX`` job may start on fewer nodes while few are free, and an ``--exclusive``
    one on smaller nodes of a mixed partition. None otherwise."""
    if not sim._limits or job.alts is not None:  # noqa: SLF001
        return None
    over = sim._limit_reason(job, alone=True)  # noqa: SLF001
    if not over and job.exclusive and job.most is None and _alike(sim, job.mask):
        idle = _idle_of(sim, job)  # (any nodes it may get: the same whole nodes)
        over = idle and sim._limit_reason(job, picked=idle, alone=True)  # noqa: SLF001
    if not over:
        return None
    whose = _limit_owner(job, over)
    size = " (with --exclusive: every CPU and GPU of its nodes)" if job.exclusive else ""
    return (
        f"On the nodes it would get{size} it is over a limit of {whose} ({over}) even with "
        f"no other job of it running: it will never start as it is (its reason becomes "
        f"{over} once Slurm tests it on nodes). Fix: ask for less (fewer nodes, or without "
        f"--exclusive the CPUs and GPUs it needs), or use another {whose.split()[0]}."
    )


def _alike(sim: Simulation, mask: np.ndarray) -> bool:
    """Whether the nodes of ``mask`` all have the same CPUs, memory and GPUs."""
    rows = sim.capacity[mask]
    return bool(len(rows)) and bool((rows == rows[0]).all())


def _over_on_its_own(sim: Simulation, job, count: int) -> str | None:
    """The QOS/association limit ``job`` would be over on ``count`` nodes (as it would ask
    on them), with no other job of its QOS, user or account running, or None: the
    engine's test (``Controller._limit_reason``, ``alone``), on the nodes it would get if
    every usable node were idle for an ``--exclusive`` job (only where all are alike)."""
    if not sim._limits or job.alts is not None:  # noqa: SLF001
        return None
    shape = _shape_on(sim, job, count)
    if shape is None:
        return None
    picked = None
    if job.exclusive:
        if not _alike(sim, job.mask):
            return None
        picked = choose_nodes(sim.capacity, sim.capacity, Request(shape, count, True), job.mask)
        if picked is None:
            return None
    record = _Reshaped(job, count=count, demand=shape, most=None)
    return sim._limit_reason(job, record, count, picked=picked, alone=True)  # noqa: SLF001


def _idle_of(sim: Simulation, job):
    """The nodes ``job`` would get if every usable node were idle (``Controller._idle_pick``,
    a ``-N MIN-MAX`` job's MAX lowered to its node limits), or None."""
    record = sim._pending_of(job)  # noqa: SLF001
    if job.most is not None:
        record = sim._within_limits(job, record)  # noqa: SLF001
    return sim._idle_pick(record)  # noqa: SLF001


_QUEUED = ("Resources", "Priority", "JobArrayTaskLimit", "ReqNodeNotAvail", MAINT_REASON)


def _array_held(
    sim: Simulation, job, t: float, heads, partition: str, split: bool = True
) -> str | None:
    """Why the engine would not start array task ``job`` now even on free nodes, once a
    change (which splits it off its array's pending record) puts it in ``partition``; None
    when nothing would.

    The task is then ordered before the tasks still in the record, after the array's
    split-off tasks of lower task id, and after the record's last task when one is left
    (slurmctld sorts an array's tasks by task id, the pending record after them:
    job_scheduler.c sort_job_queue2; ``SimJob.split_order``). A task of its partition
    queued ahead of it goes first. Under ``%N``, a task may start while fewer than N of
    its array's tasks run, whatever its place (job_mgr.c job_array_start_test counts the
    running tasks; the queued ones ahead of it, which cannot start now, hold no slot):
    while they fill the throttle it waits for JobArrayTaskLimit. ``split=False``: as it
    is, unchanged."""
    if job.array_id is None:
        return None
    tier = sim.cluster.partition(partition).priority_tier
    tasks = len(job.spec.array.indices) if job.spec.array is not None else 1
    mine = (*_key_at(job, t, tier)[:3], job.split_order(tasks)) if split else _key_at(job, t)
    others = [
        o for o in sim.jobs.values()
        if o.array_id == job.array_id and o is not job and _state_at(sim, o, t) == "pending"
    ]  # fmt: skip
    unsplit = [o for o in others if _unsplit_at(o, t)]
    ahead = []
    for o in others:
        key = _key_at(o, t)
        if split and _unsplit_at(job, t) and len(unsplit) == 1 and o is unsplit[0]:
            key = (*key[:3], o.split_order(tasks))  # (the record's last task: a job of its own)
        if key < mine and _reason_at(sim, o, t, heads) in _QUEUED:
            ahead.append(o)
    if job.throttle is not None:
        running = sum(
            1 for o in sim.jobs.values()
            if o.array_id == job.array_id and _state_at(sim, o, t) == "running"
        )  # fmt: skip
        if running >= job.throttle:
            return (
                f"its array runs {running} task{'s' * (running != 1)}, as many as its "
                f"--array=...%{job.throttle} lets run at once, so it waits until one of them "
                "ends (JobArrayTaskLimit)"
            )
    first = [o for o in ahead if o.partition == partition]
    if first:
        return (
            f"task {first[0].key} of its array would be ahead of it in partition {partition} "
            "(an array's split-off tasks go in task order, and the record's last task is one "
            "of them), and goes first"
        )
    return None


def _key_at(job, t: float, tier: int | None = None) -> tuple:
    """The job's place in the queue at ``t``: its sort key, with an array task that was
    still in its array's pending record then ordered by its own id, as the record's tasks
    are (a task split off later is ordered before the record from then on:
    ``SimJob.split_order``); with ``tier``, as a job moved to a partition of that
    PriorityTier (:func:`_in_tier`)."""
    key = job.sort_key()
    if job.array_id is not None and _unsplit_at(job, t):
        key = (*key[:3], job.id)
    return key if tier is None else _in_tier(key, tier)


def _in_tier(key: tuple, tier: int) -> tuple:
    """A queue key (``SimJob.sort_key``) of a job in a partition of PriorityTier ``tier``:
    the partition's tier sorts first, then the job's priority, submit time and id
    (job_scheduler.c sort_job_queue2)."""
    return (-tier, *key[1:])


def _move_delay(sim: Simulation, job, part, t: float, heads=None) -> float | None:
    """How much later than ``t`` ``job``, moved to partition ``part``, could start there
    (None: it could not). The partition is up and takes its time limit and node count; and
    no job queued there goes before it (PriorityTier, then priority: a job queued there
    first would start first), or every one waiting first in line there holds a planned
    start and the policy backfills (a backfill cycle, up to bf_interval later under
    ``slurm``, starts it where it delays none of their plans: :func:`_moves` tests that).
    Queued: waiting for Resources or Priority; a held job, one whose --begin has not come or
    whose dependency is not met is not in the queue the scheduler tests (job_scheduler.c
    build_job_queue, job_independent)."""
    if part.state.upper() != "UP":
        return None
    if part.max_time is not None and job.limit > part.max_time.total_seconds():
        return None
    if part.max_nodes is not None and max(job.count, job.spec.max_nodes or 0) > part.max_nodes:
        return None
    if job.count < part.min_nodes or not part.admits_account(job.account):
        return None
    mine = _key_at(job, t, part.priority_tier)
    queued = any(
        other.partition == part.name
        and other is not job
        and _key_at(other, t) < mine
        and _state_at(sim, other, t) == "pending"
        and _reason_at(sim, other, t, heads) in ("Resources", "Priority")
        for other in sim.jobs.values()
    )
    if not queued:
        return 0.0
    if not _backfills(sim.policy) or not _planned_ahead(
        sim, job, t, heads, part.name, part.priority_tier
    ):
        return None
    return _cycle_delay(sim.policy)


def _moves(
    sim: Simulation, job, t: float, heads, free: np.ndarray, up: np.ndarray, windows
) -> list[_Hint]:
    """``partition 'p' has room for it now``: the other partitions where ``job`` could
    start now (:func:`_move_delay`) on nodes free for its time limit, off the nodes
    advance reservations take then and those the main scheduler keeps for a job waiting in
    another partition (:func:`_held_from`), where it delays no planned start there
    (:func:`_planned_from` as that partition's PriorityTier orders it), each with the nodes
    it would get: a whole-memory job (``--mem=0``, or no --mem and no DefMemPer*) only
    nodes none of whose memory is allocated (placement.fitting_mask)."""
    hints = []
    for other in sim.cluster.partitions:
        if other.name == job.partition:
            continue
        delay = _move_delay(sim, job, other, t, heads)
        if delay is None:
            continue
        try:
            res = replace(job.spec, partition=other.name).resources(sim.cluster)
        except SlurmlabError:
            continue
        if res.limit_reason is not None:  # it would pend there for ever (MaxMemPerLimit)
            continue
        omask = np.zeros(len(sim.node_names), dtype=bool)
        omask[[sim.node_index[n] for n in res.candidates]] = True
        whole_memory = sim._whole_memory(res, omask)  # noqa: SLF001
        demand = np.array([res.cpus_per_node, res.mem_per_node_mb, res.gpus_per_node])
        omask &= up & ~_held_from(sim, job, t, other.name, ahead_only=False, heads=heads)
        omask = _outside(omask, windows, t + job.limit)
        planned = _planned_from(sim, job, t, other.priority_tier)
        span = job.limit + delay + _strict(sim.policy)
        if not _plans_known(planned, t, t + span):
            continue  # (a plan within its time limit whose nodes are not known: any node)
        there = _pick(
            sim,
            job,
            _room(sim, t, free, planned),
            res.nodes,
            omask,
            span,
            demand=demand,
            whole=res.whole_node,
            whole_memory=whole_memory,
        )  # (the nodes it would get there: a -N MIN-MAX job takes up to MAX)
        if there:
            hints.append(
                _Hint(
                    f"partition {other.name!r} has room for it now (-p {other.name})",
                    {"partition": other.name},
                    there,
                    demand,
                    other.name,
                )
            )
    return hints


def _plan_at(job, t: float):
    """The (time, planned start) a pending job had at ``t``, if any."""
    out = None
    for when, p in job.plans:
        if when > t:
            break
        out = (when, p)
    if out is None or job.state != "PENDING" and (job.start is not None and job.start <= t):
        return None
    return out
