"""The controller: one scheduling pass, as Slurm's slurmctld runs it.

Each pass hands the policy a read-only view (the eligible queue in evaluation order,
running jobs, free resources) and applies the decision it returns; a decision of a policy
that is not one of the built-in classes is checked first (:meth:`Controller._check`), so a
mistake raises a PolicyError and changes nothing. Before the policy,
jobs with an advance reservation are started on their reservation's nodes and, under
PreemptType=preempt/qos, preempting jobs free room by preempting lower-QOS jobs. The
``slurm`` policy's backfill cycle runs on a timer: ``bf_interval`` after the last cycle,
then at the first second something changed (:meth:`Controller._next_poll`).
"""

from __future__ import annotations

import difflib
import math
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import replace
from functools import cached_property, cmp_to_key
from heapq import heappop
from numbers import Real
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from slurmlab.errors import PolicyError
from slurmlab.policies.backfill import POLICIES, SlurmBackfill
from slurmlab.policies.base import (
    Decision,
    JobFacts,
    PendingJob,
    PendingQueue,
    QueueView,
    RunningJob,
    Start,
    policy_name,
)
from slurmlab.policies.placement import choose_nodes, fitting_mask
from slurmlab.sim.causes import Preempted
from slurmlab.sim.timing import AFTER_PASS, LATE, URGENT
from slurmlab.spec.job import spread_of
from slurmlab.spec.qos import Reservation
from slurmlab.spec.units import tick_at_or_after, tick_at_or_before

if TYPE_CHECKING:  # the engine assembles these mixins; only types come back
    from slurmlab.sim.engine import SimJob

__all__ = ["MAINT_REASON", "Controller"]

#: The reason of a job a maintenance reservation (Flags=MAINT) keeps from every node of its
#: partition (node_scheduler.c, select_nodes: ESLURM_RESERVATION_MAINT).
MAINT_REASON = "ReqNodeNotAvail, Reserved for maintenance"

#: The policy classes whose decisions are applied unchecked and whose passes may be continued
#: (exactly these classes: a subclass is checked, and gets the whole queue at every pass).
BUILT_IN = frozenset(POLICIES.values())

_QOS_USER_REASON = {
    "cpu": "QOSMaxCpuPerUserLimit", "gres/gpu": "QOSMaxGRESPerUser",
    "node": "QOSMaxNodePerUserLimit", "mem": "QOSMaxMemoryPerUser",
}  # fmt: skip
_QOS_GRP_REASON = {
    "cpu": "QOSGrpCpuLimit", "gres/gpu": "QOSGrpGRES", "node": "QOSGrpNodeLimit",
    "mem": "QOSGrpMemLimit",
}  # fmt: skip
_ASSOC_GRP_REASON = {
    "cpu": "AssocGrpCpuLimit", "gres/gpu": "AssocGrpGRES", "node": "AssocGrpNodeLimit",
    "mem": "AssocGrpMemLimit",
}  # fmt: skip


#: The QOS/association limits Slurm tests before node selection
#: (acct_policy_job_runnable_pre_select: job counts and wall time); the others, TRES limits,
#: it tests once nodes are picked (acct_policy_job_runnable_post_select)
_PRE_SELECT = frozenset(
    ("QOSMaxJobsPerUserLimit", "QOSMaxWallDurationPerJobLimit", "AssocMaxJobsLimit")
)


class LimitOver(NamedTuple):
    """A QOS/association limit a job would exceed (:meth:`Controller._limit_over`): its
    reason in Slurm's words, the TRES (``jobs`` for a job count), the limit, what the
    group's running jobs hold of it, what the job would add, and the group (as
    :meth:`Controller._used_by` names it)."""

    reason: str
    tres: str
    limit: int
    used: int
    need: int
    group: tuple


class _RunningView:
    """The running jobs as policies see them, built only if a policy looks (FIFO never does).

    A job is expected to end at its time limit. Past it, ``overtime`` (the OverTimeLimit of a
    job's partition, from :meth:`EngineOptions.over_time`, and KillWait in seconds; None for a
    trace replay, which does not enforce limits) gives the guess of Slurm's will-run test (cons_common/job_test.c
    ``_guess_job_end``, when the job's end_time is not after now): the end plus KillWait plus
    OverTimeLimit; with OverTimeLimit=UNLIMITED, now plus the job's own limit; never before
    now + 1 s. A trace job past its limit may end at any moment: now."""

    __slots__ = ("_items", "_jobs", "_now", "_overtime")

    def __init__(self, jobs: dict, now: float, overtime: tuple[Callable, float] | None = None):
        self._jobs, self._now, self._items, self._overtime = jobs, now, None, overtime

    def _build(self) -> list[RunningJob]:
        if self._items is None:
            now = self._now
            items = []
            for j in self._jobs.values():
                r = j.running_view  # made once per run: expected to end at its limit ...
                if r is None:
                    r = j.running_view = RunningJob(j.id, j.nodes, j.usage, j.start + j.limit)
                if r.expected_end < now:  # ... or, past it, at Slurm's guess (see above)
                    end = self._past_limit(r, j.limit, j.partition)
                    r = RunningJob(j.id, j.nodes, j.usage, end)
                items.append(r)
            self._items = items
        return self._items

    def _past_limit(self, r: RunningJob, limit: float, partition: str) -> float:
        now = self._now
        if self._overtime is None:  # (a trace: "may end at any moment")
            return now
        over_time, kill_wait = self._overtime
        over = over_time(partition)
        if over == math.inf:  # OverTimeLimit=UNLIMITED: "No idea when the job might end"
            end = now + limit if limit != math.inf else now + 365 * 86400.0
        else:
            end = r.expected_end + kill_wait + over
        return max(end, now + 1.0)

    def __iter__(self):
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._jobs)


#: TRES ids (slurmdb_defs: cpu 1, mem 2, energy 3, node 4, billing 5; GRES after them)
_TRES_ORDER = {"cpu": 1, "mem": 2, "energy": 3, "node": 4, "billing": 5}


def _ancestry(tree, account: str) -> list[str]:
    """``account`` and the declared accounts above it, nearest first (root left out)."""
    out = []
    while account in tree.accounts:
        out.append(account)
        account = tree.parent[account]
    return out


def _sum_tres(jobs) -> tuple[dict[str, int], set[int]]:
    """The TRES ``jobs`` hold, and their nodes. Nodes count once however many of the jobs
    share them (acct_policy.c keeps a node bitmap per QOS, user and association). An
    ``--exclusive`` job holds its nodes' CPUs and GPUs but only the memory Slurm allocates
    it (its AllocTRES: what it asks for, or DefMemPerCPU x the CPUs), not the nodes' own."""
    out = {"cpu": 0, "mem": 0, "gres/gpu": 0, "node": 0}
    nodes: set[int] = set()
    for j in jobs:
        u = j.usage.sum(axis=0)
        out["cpu"] += int(u[0])
        out["mem"] += j.res.allocated(j.usage)["mem"] if j.exclusive else int(u[1])
        out["gres/gpu"] += int(u[2])
        nodes.update(j.nodes)
    out["node"] = len(nodes)
    return out, nodes


def _record_of(job: SimJob) -> int | None:
    """:attr:`PendingJob.array`: the job's array while it is part of the array's pending
    record (never started nor requeued, not split off), else None."""
    if job.array_id is None or job.runs or job.split is not None:
        return None
    return job.array_id


class Controller:
    """The scheduling half of :class:`~slurmlab.sim.engine.Simulation` (a mixin)."""

    def request_pass(self, main: bool = True) -> None:
        """Ask for one scheduling pass at the end of the current instant (none without a
        main scheduler, sched_interval=-1: the backfill timer is armed all the same).
        ``main=False``: a change that calls no main-scheduler pass in Slurm (a reservation's
        end, :meth:`_resv_edge`) arms only the backfill timer and the periodic pass."""
        if main and not self._pass_pending and not self._main_off:
            self._pass_pending = True
            self._at(0, self._pass, LATE)
        # (with no job queued too, while more is to come: Slurm's backfill thread runs its
        # cycle for a change all the same, _more_work, and its phase follows that cycle)
        more = self.queue or self.running or self._arrivals_left
        if getattr(self.policy, "interval", None) and not self._timer_running:
            now = self.env.now
            idle = self._bf_idle  # (the cycle for the last change with nothing left, not
            if idle is not None and idle < now:  # simulated: it ran, and a later sbatch
                self._bf_last = self._last_tick = idle  # follows its phase)
                self._bf_busy = False
            self._bf_idle = None
            if more:
                self._timer_running = True
                self._schedule_timer()
            else:
                self._bf_idle = self._next_poll(now)
        full = self._full_every
        if full and not self._full_armed and len(self.queue) > self._full_depth:
            # the periodic main-scheduler pass over the whole queue: on its grid of
            # sched_interval, after something changed (with nothing new it would start nothing)
            self._full_armed = True
            now = self.env.now  # (its grid: from slurmctld's start)
            after = tick_at_or_before(now, full, self._main_phase) + full
            self._at(after - now, self._full_pass, AFTER_PASS)

    #: job records the last reservation step tested (see :attr:`PendingJob.ahead`)
    _resv_depth: int = 0

    @cached_property
    def _overtime(self) -> tuple[Callable[[str], float], float] | None:
        """(OverTimeLimit of a partition, KillWait in seconds), with which plans guess when a job running
        past its time limit ends (:class:`_RunningView`); None when limits are not enforced
        (a trace replay: such a job may end at any moment)."""
        if not self.options.enforce_time_limit:
            return None
        kill_wait = float(self.cluster.setting("KillWait", "30") or 30)
        return (self.options.over_time, kill_wait)

    def _full_pass(self, _event=None) -> None:
        """sched_interval: the main scheduler over the whole queue (``default_queue_depth``
        limits only the passes on events); needed only while the queue is deeper than that."""
        self._full_armed = False
        if len(self.queue) <= self._full_depth:  # (event passes see every queued job)
            return
        self._begin_times_seen()
        self._resume = None  # (the event passes continue from their own state)
        self._apply(self._decide("full_pass", self._view(pins=self._pins_over_limit())))
        self._resume = None

    def _pending_of(self, job: SimJob, key: tuple | None = None) -> PendingJob:
        """The job as policies see it (built once per queued spell: it does not change); for
        ``-p a,b``, its record of the partition of queue entry ``key`` (one per partition,
        as build_job_queue makes them: same id, that partition's request shape)."""
        if job.alts is not None:
            alt = job.alts[key[4]]
            if alt[2] is None:
                shape = alt[1]
                p, _tier, _limit, exclusive, demand, mask, count, rows, need, per_cpu = shape[:10]
                alt[2] = PendingJob(
                    job.id, p, demand, count, mask, self._limit_in(job, shape), exclusive,
                    job.spec.reservation, need, None, rows, mem_per_cpu=per_cpu, most=shape[10],
                    array=_record_of(job), array_job=job.array_id, time_min=job.time_min,
                    spread=spread_of(job.spec, alt[0], self.cluster), gres_fixed=job.gres_fixed,
                    gpus_per_job=job.gpus_per_job, pinned=bool(job.spec.nodelist),
                    whole_memory=shape[11], throttle=job.throttle,
                )  # fmt: skip
            return alt[2]
        if job.pending is None:
            job.pending = PendingJob(
                job.id, job.partition, job.demand, job.count, job.mask, job.limit,
                job.exclusive, job.spec.reservation, job.need, None,
                job.rows, mem_per_cpu=job.mem_per_cpu, most=job.most, array=_record_of(job),
                array_job=job.array_id, time_min=job.time_min, spread=job.spread,
                gres_fixed=job.gres_fixed, gpus_per_job=job.gpus_per_job,
                pinned=bool(job.spec.nodelist), whole_memory=job.whole_memory, throttle=job.throttle,
            )  # fmt: skip
        return job.pending

    def _queued_records(self, job: SimJob) -> list[PendingJob]:
        """``-p a,b``: the job's records in the queue now, one per partition it waits in."""
        return [self._pending_of(job, key) for key in job.entries]

    @staticmethod
    def _with_plan(job: SimJob, pending: PendingJob) -> PendingJob:
        """The pending view with the job's standing reservation (kept while it stands)."""
        plan = (job.planned, job.planned_nodes)
        cached = job.pending_plan  # (base view, plan, base view with the plan)
        if cached is None or cached[0] is not pending or cached[1] != plan:
            planned = pending.with_plan(plan)
            cached = job.pending_plan = (pending, plan, planned)
        return cached[2]

    def partition_index(self, partition: str) -> list[int]:
        """The indices of the partition's nodes (kept: a partition's nodes never change)."""
        idx = self._partition_idx.get(partition)
        if idx is None:
            names = self.cluster.partition(partition).nodes
            idx = self._partition_idx[partition] = [self.node_index[n] for n in names]
        return idx

    def _partition_up(self, partition: str) -> int:
        """How many of the partition's nodes are up (not down, drained or future)."""
        return int(self.up[self.partition_index(partition)].sum())

    def _nodes_not_avail(self, record: PendingJob) -> bool:
        """Whether too few of the nodes the job may use are up (down, drained), though
        enough of its partition's are: select's ESLURM_NODE_NOT_AVAIL, the job is passed
        over (ReqNodeNotAvail). (With too few of its partition's up, job_scheduler.c gives
        it Resources and fails its partition: the policy sees it, and it blocks there.)

        The counts are kept per mask and partition until a node changes state (every queued
        job is tested at every pass while a node is out, which is always on a large
        cluster)."""
        counts = self._up_counts
        hit = counts.get(id(record.mask))
        if hit is None or hit[0] is not record.mask:  # (the mask is kept: its id its own)
            hit = counts[id(record.mask)] = (record.mask, int((record.mask & self.up).sum()))
        if hit[1] >= record.count:
            return False
        part = counts.get(record.partition)
        if part is None:
            part = counts[record.partition] = self._partition_up(record.partition)
        return part >= record.count

    def _pending_jobs(self, order=None, reserve: bool = False, pins: bool = False):
        """The eligible queue in evaluation order (``order``: as the pass computed it),
        lazily. An array task under ``%N`` is left out while its array's running tasks fill
        the throttle, else handed over (the policy counts its starts against it:
        :attr:`PendingJob.throttle`), but for the tasks of a pending record beyond its free
        slots (``reserve``, a ``slurm`` backfill cycle, which reserves for them too: all);
        jobs of advance reservations are left to the reservation step, but for such a
        cycle, which plans them too, before the other jobs as Slurm sorts them
        (job_scheduler.c ``sort_job_queue2``: a job with a reservation first;
        :meth:`_in_reservation`).
        ``pins``: a main pass that keeps the nodes of ``-w`` jobs over a TRES limit from the
        later jobs (:attr:`PendingJob.over_limit`, :meth:`_pins_over_limit`)."""
        if order is not None:
            queue = order
        else:
            queue = self._in_order() if self.preemption else self.queue
        if not self._filtering():
            jobs = self.jobs
            for key, jid in queue:  # nothing to filter: the common case, kept lean
                job = jobs[jid]
                pending = job.pending or self._pending_of(job, key)
                if (
                    job.planned_nodes is not None
                    and job.planned is not None
                    and (job.alts is None or pending.partition == job.plan_part)
                ):  # (-p a,b: the standing plan is its record's)
                    pending = self._with_plan(job, pending)
                if job.victims:  # (preempt/qos: it preempted jobs and waits for their room)
                    pending = replace(pending, preempting=True)
                if job.updated:  # (scontrol update changed its request since the last pass)
                    pending = replace(pending, updated=True)
                yield pending
            return
        tasks_running = self._tasks_running  # array -> its tasks running
        handed, withheld = self._handed, self._withheld  # (see _withheld_reasons)
        handed.clear()
        withheld.clear()
        cut: dict[tuple, np.ndarray] = {}  # masks less reserved nodes, one array per node set
        out: dict = {}  # which of those a request cannot use, and who holds nodes whole
        memo: dict[tuple, tuple] = {}  # limit tests of one request by one user, QOS, account
        # records left out below that Slurm's main scheduler counts toward its depth (limits,
        # ReqNodeNotAvail), and first those of the reservation step: PendingJob.ahead
        ahead = self._resv_depth if self.reservations else 0
        if reserve and self.reservations:  # (sorted first: job_scheduler.c sort_job_queue2)
            for key, jid in queue:
                job = self.jobs[jid]
                if job.spec.reservation and not self._throttle_full(job):
                    # (a task whose array's running tasks fill %N is not queued:
                    # build_job_queue's job_array_start_test; the loop below says why)
                    record = job.pending or self._pending_of(job, key)
                    inside = self._in_reservation(job, record, cut)
                    if inside is not None:
                        yield inside
        for key, jid in queue:
            job = self.jobs[jid]
            record = job.pending or self._pending_of(job, key)
            if job.throttle is not None:
                aid = job.array_id
                running = tasks_running.get(aid, 0)
                if running >= job.throttle:
                    # its running tasks fill %N: not queued (job_scheduler.c build_job_queue:
                    # job_independent, job_array_start_test)
                    if job.reason != "JobArrayTaskLimit":
                        self._set_reason(job, "JobArrayTaskLimit")
                    continue
                if record.array is not None and not reserve:
                    # a pending record's tasks beyond its free slots are never reached with
                    # one free (the record is tested task after task, at most that many
                    # start): left out, they wait as the pass leaves the record
                    # (_withheld_reasons). A backfill cycle gets them all (it reserves on)
                    rec = (aid, record.partition)
                    given = handed.get(rec)
                    if given is None:
                        given = handed[rec] = []
                    elif len(given) >= job.throttle - running:
                        left = withheld.get(rec)
                        if left is None:
                            withheld[rec] = [jid]
                        else:
                            left.append(jid)
                        continue
                    given.append(jid)
                else:  # (split-off tasks: each a record of its own, all handed over)
                    handed.setdefault(aid, []).append(jid)
            if job.spec.reservation:
                continue  # started by the reservation pass (a backfill cycle's: see above)
            if self._nodes_out and self._nodes_not_avail(record):
                self._set_reason(job, "ReqNodeNotAvail")
                ahead += 1
                continue
            if self._limits:
                over = self._over.get((jid, record.partition)) if self._over else None
                if over is not None and over[0] == self.env.now and over[1] == self._since(over):
                    ahead += 1
                    continue  # its start there was refused at this moment, and nothing that
                    # may let it start changed since (its reason is set)
                reason, record, busy = self._limits_for(job, record, memo)
                if reason:
                    self._set_reason(job, reason)
                    if pins and record.pinned and reason not in _PRE_SELECT:
                        yield replace(record, over_limit=True, ahead=ahead)
                        ahead = 0
                        continue
                    ahead += 1
                    continue
                if busy:  # (over a limit on the nodes it would get: if it cannot start, it
                    self._own[jid] = busy  # waits for that limit, blocking nothing)
            pending = record
            if (
                job.planned_nodes is not None
                and job.planned is not None
                and (job.alts is None or pending.partition == job.plan_part)
            ):
                pending = self._with_plan(job, pending)
            if job.victims:  # (preempt/qos: it preempted jobs and waits for their room)
                pending = replace(pending, preempting=True)
            if job.updated:  # (scontrol update changed its request since the last pass)
                pending = replace(pending, updated=True)
            if self.reservations:
                blocked = self._reserved_nodes(self.env.now, self.env.now + pending.limit)
                # (the record's mask: -p a,b gives each partition's record its own nodes)
                if blocked is not None and (pending.mask & blocked).any():
                    key = (id(pending.mask), blocked.tobytes())
                    mask = cut.get(key)
                    if mask is None:
                        mask = cut[key] = pending.mask & ~blocked
                    # it may start now only off the reserved nodes; plans may use them
                    # outside the reservations' windows (the profile blocks those)
                    maint = self._under_maintenance(job)
                    if maint:
                        self._own[job.id] = MAINT_REASON
                    elif (
                        pending.blocks
                        and job.alts is None
                        and self._reserved_out(pending, mask, out)
                    ):
                        self._own[job.id] = "ReqNodeNotAvail"
                        maint = True  # (blocks nothing either)
                    blocks = pending.blocks and not maint
                    pending = replace(pending, mask=mask, reach=pending.mask, blocks=blocks)
            if ahead:
                pending = replace(pending, ahead=ahead)
                ahead = 0
            yield pending

    def _in_reservation(self, job: SimJob, record: PendingJob, cut: dict) -> PendingJob | None:
        """A job of an advance reservation as a ``slurm`` backfill cycle sees it once the
        reservation has begun: on the reservation's nodes (less those another reservation
        holds during the job's window from now, unless its own is a maintenance one),
        blocking nothing (its reason stays the one the reservation step gave it); None
        before the reservation begins, or while a QOS/association limit holds it.

        backfill.c ``_attempt_backfill`` tests it as any other job, on the nodes
        reservation.c ``job_test_resv`` gives it: none before the reservation starts
        (ESLURM_INVALID_TIME_VALUE, "reservation defer": no expected start), then the
        reservation's, with no bound on the job's end, so its plan may reach past the
        reservation's end (``resv-backfill``: in3 planned on gpu4 to 220 s, the reservation
        ending at 160 s). The policy lets it use its own reservation's window
        (:attr:`QueueView.blocked_by`). ``cut``: the pass's masks, one array per node set."""
        r, nodes = self.reservations[job.spec.reservation]
        now = self.env.now
        if not r.start <= now < r.end:
            return None
        if self._limits and self._limit_reason(job):
            return None
        if not r.maint:  # (as the reservation pass: job_test_resv's overlapping reservations)
            others = self._reserved_nodes(now, now + record.limit, r.name)
            if others is not None:
                nodes = nodes & ~others
        key = (r.name, id(record.mask), nodes.tobytes())
        mask = cut.get(key)
        if mask is None:
            mask = cut[key] = record.mask & nodes
        if job.planned_nodes is not None and job.planned is not None and job.alts is None:
            record = self._with_plan(job, record)
        return replace(record, mask=mask, reach=None, blocks=False)

    def _pins_over_limit(self) -> bool:
        """Whether the main passes are handed the ``-w`` jobs over a TRES limit
        (:attr:`PendingJob.over_limit`): under a policy whose passes are Slurm's main
        scheduler's (``pins_over_limit``: ``fifo`` and ``slurm``; EASY and conservative are
        the literature's)."""
        return bool(self._limits) and getattr(self.policy, "pins_over_limit", False)

    def _in_order(self) -> list[tuple[tuple, int]]:
        """The queue in Slurm's evaluation order (job_scheduler.c ``sort_job_queue2``).

        That is the order the queue is kept in (tier, priority, submit, id), except under
        preempt/qos: there a job goes before every job whose QOS its own QOS may preempt,
        whatever their priorities, and only before those. That pairwise rule is no sort
        key: the queue is sorted with it as a comparator. Where the rule orders every set
        of jobs consistently (no cycle such as a before b by preemption, b before c and c
        before a by priority), the order is the one Slurm's sort gives; in a cycle Slurm's
        outcome depends on its sort algorithm (glibc's merge sort over the jobs in creation
        order) and this one's may differ.
        """
        queue, jobs, preempts = self.queue, self.jobs, self._preempts
        present = [q for q, n in self._qos_queued.items() if n]  # (kept by _enqueue/_dequeue)
        if not any(preempts[q].intersection(present) for q in present):
            return queue
        # When no job comes after one its QOS may preempt, the rule agrees with the kept
        # order on every pair: the sort would return that order (one scan, not a sort)
        seen: set[str] = set()
        for _key, jid in queue:
            q = jobs[jid].qos
            if not preempts[q].isdisjoint(seen):
                break
            seen.add(q)
        else:
            return queue

        def compare(a: tuple[tuple, int], b: tuple[tuple, int]) -> int:
            qa, qb = jobs[a[1]].qos, jobs[b[1]].qos
            if qb in preempts[qa]:
                return -1
            if qa in preempts[qb]:
                return 1
            return -1 if a[0] < b[0] else 1

        # (from the kept order, nearly sorted: Python's sort needs few comparisons)
        return sorted(queue, key=cmp_to_key(compare))

    def _resv_edge(self, r: Reservation, what: str) -> None:
        """A reservation starts or ends. At its end its pending jobs are held (reason
        ReservationDeleted, as reservation.c does unless the reservation has NO_HOLD_JOBS_
        AFTER_END): the jobs still queued leave the queue here, the others are held when
        they would become eligible (see ``_ineligible_reason``).

        Its start calls the main scheduler (controller.c ``_slurmctld_background``:
        ``set_node_maint_mode`` counts the reservations begun and then calls
        ``queue_job_scheduler``); its end calls none under the ``slurm`` policy: nothing in
        slurmctld does (``set_node_maint_mode`` only clears the nodes' flags,
        reservation.c ``job_resv_check`` purges the record and bumps ``last_resv_update``,
        which wakes backfill only: ``_more_work``). The nodes it held are then taken by
        the next backfill cycle, which no longer counts it (``job_test_resv``: a
        reservation with ``end_time <= now`` is over), or by the next event's pass or the
        periodic main-scheduler pass (every sched_interval from slurmctld's start), whichever
        comes first (real Slurm: ``resv-backfill``, big started by backfill 2 s after the
        reservation's end; here at the end, where the grid of its bf_interval=5 falls).
        The other policies pass at every edge."""
        if what == "reservation_end":
            for _key, jid in list(self.queue):
                job = self.jobs[jid]
                if job.spec.reservation == r.name:
                    self._dequeue(job)
                    self.waiting.add(job.id)
                    self._set_reason(job, "ReservationDeleted")
        self._changed()
        self.events.append((self.env.now, what, None, None, r.name))
        quiet = what == "reservation_end" and isinstance(self.policy, SlurmBackfill)
        if quiet and self.queue:
            # (the end bumps last_resv_update, backfill.c _more_work: a stopped timer runs
            # a cycle at its next poll, _next_poll, this instant included)
            self._wake_at(self.env.now)  # (the periodic pass, backfill off or slower)
        self.request_pass(main=not quiet)

    def _under_maintenance(self, job) -> bool:
        """Whether a maintenance reservation (Flags=MAINT) holds every node of the job's
        partition during its window from now (reservation.c job_test_resv: the job then
        cannot run, ESLURM_RESERVATION_MAINT)."""
        windows = self._maint_windows.get(job.partition)
        if windows is None:  # (reservations and partitions are fixed: once per partition)
            part = self.partition_nodes[job.partition]
            windows = self._maint_windows[job.partition] = [
                (r.start, r.end)
                for r, mask in self.reservations.values()
                if r.maint and not (part & ~mask).any()
            ]
        now = self.env.now
        return any(start < now + job.limit and end > now for start, end in windows)

    def _reserved_out(self, record: PendingJob, mask: np.ndarray, memo: dict) -> bool:
        """Whether ``record``, off the nodes reservations hold (``mask``), could not run
        even if those it may use were idle, and none of them is busy for it: select's
        ESLURM_NODE_NOT_AVAIL (node_scheduler.c ``_pick_best_nodes``: not runable_avail,
        no nodes_busy; busy is not idle for an ``--exclusive`` job, held by an
        ``--exclusive`` job for a job that shares). It waits for ReqNodeNotAvail ("May be
        reserved for other job") and does not block its partition: job_scheduler.c fails a
        partition on ESLURM_NODES_BUSY only. With a usable node busy, it is
        ESLURM_NODES_BUSY (Resources, and it blocks). ``memo``: the pass's, per node set
        and request shape.

        Simplifications: busy is the nodes' state at the start of the pass (a job started
        earlier in the same pass, submitted at the same instant, is not counted), and a
        ``-p a,b`` job is not tested (its records keep Resources)."""
        usable = mask & self.up
        key = ("out", usable.tobytes(), record.shape, record.most, record.mem_per_cpu)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = self._idle_pick(replace(record, mask=usable), cached=False) is None
        if not hit:
            return False
        idx = np.flatnonzero(usable)
        if record.exclusive:
            return bool((self.free[idx] == self.capacity[idx]).all())
        held = memo.get("held")
        if held is None:  # (nodes of --exclusive jobs: share_node_bitmap's complement)
            held = memo["held"] = {n for r in self.running.values() if r.exclusive for n in r.nodes}
        return held.isdisjoint(idx.tolist())

    def _since(self, over: tuple) -> tuple:
        """A refusal's marker (``_over``) as it would be now: what changed since shows."""
        return ("any", self._run_epoch) if over[1][0] == "any" else ("end", self._n_ended)

    def _own_reasons(self, reasons: dict[int, str], own: dict[int, str]) -> dict[int, str]:
        """The pass's ``reasons`` with those of the jobs that block nothing in Slurm's words
        (``own``: job -> its reason), those a maintenance window keeps out
        (:meth:`_under_maintenance`) and those over a limit on the nodes they would get
        (:meth:`_busy_limits`).

        Such a job blocks nothing (``PendingJob.blocks``): the policies give it Resources, and
        the later jobs of its partition too until one that blocks. A job given Resources
        cannot start: ``ReqNodeNotAvail, Reserved for maintenance`` (node_scheduler.c
        select_nodes, ESLURM_RESERVATION_MAINT), or the limit's reason
        (ESLURM_ACCOUNTING_POLICY). One given Priority waits behind a job that blocks its
        partition: Slurm's main scheduler skips it without a test and replaces only no reason
        or Resources with Priority (job_scheduler.c, "Retaining previous scheduling Reason"),
        so it keeps its own reason once it had it (backfill.c sets no reason on a job it
        plans).
        """
        out = dict(reasons)
        for jid, reason in own.items():
            given = reasons.get(jid)
            if given == "Resources":
                out[jid] = reason
            elif given == "Priority" and self.jobs[jid].reason == reason:
                del out[jid]
        return out

    def _reserved_nodes(self, t0: float, t1: float, besides: str | None = None):
        """Nodes held by reservations overlapping [t0, t1) (None when there are none), but
        reservation ``besides``."""
        out = None
        for r, mask in self.reservations.values():
            if r.start < t1 and r.end > t0 and r.name != besides:
                out = mask.copy() if out is None else out | mask
        return out

    def _limit_over(
        self, job: SimJob, record: PendingJob | None = None, nodes: int | None = None, **kw
    ) -> LimitOver | None:
        """The QOS/association limit that starting ``job`` now would exceed with its numbers
        (a :class:`LimitOver`), or None: :meth:`_limit_reason`'s test, for why_pending."""
        return self._limit_reason(job, record, nodes, numbers=True, **kw)

    def _limit_reason(
        self,
        job: SimJob,
        record: PendingJob | None = None,
        nodes: int | None = None,
        *,
        picked: tuple[int, ...] | None = None,
        busy: tuple[int, ...] | None = None,
        plan: bool = False,
        alone: bool = False,
        without: frozenset = frozenset(),
        numbers: bool = False,
    ):
        """The QOS/association limit that starting ``job`` now would exceed, in Slurm's words,
        or None (``-p a,b``: as its ``record`` of one partition asks, node_scheduler.c testing
        the TRES limits for the partition tried); ``numbers``: a :class:`LimitOver` in place
        of the words (:meth:`_limit_over`; the engine's tests, on the hot path, take the
        words alone).

        In acct_policy.c's order: the job counts and its time first
        (acct_policy_job_runnable_pre_select: QOS MaxJobsPerUser, then QOS MaxWall, then the
        association's MaxJobs), then the TRES
        (_qos_job_runnable_post_select: QOS GrpTRES before MaxTRESPerUser, then the
        association's GrpTRES), each limit's TRES in TRES id order (cpu, mem, node...).
        ``nodes``: on that many nodes (``--nodes=MIN-MAX``), by default its minimum.
        ``picked``: the nodes it gets (node_scheduler.c tests the limits again once they are
        picked): their number; all their CPUs and GPUs for an ``--exclusive`` job (the job's
        total_cpus and its whole nodes' GRES; its memory what Slurm allocates it there); and
        for node= limits only those no job of the limit's QOS, user or association holds
        already (unique nodes, acct_policy.c).
        ``busy``: the nodes a test-only selection gives it while it cannot start (see
        :meth:`_busy_limits`): their number and, for an ``--exclusive`` job, their GRES;
        the CPUs and memory it asks for; no node counted as held but those it names (-w).
        ``plan``: with ``busy``, as backfill tests the nodes it plans (:meth:`_busy_limits`).
        ``alone``: as if no job of its QOS, user or account ran (is it over on its own?).
        ``without``: as if the running jobs of these ids had ended (why_pending's "when").
        """
        count, checks = self._checks(job, without)
        if count is not None and count.reason == "QOSMaxJobsPerUserLimit" and not alone:
            return count if numbers else count.reason
        src = job if record is None else record
        wall = self.qos[job.qos].max_wall  # (its own limit: over it, alone too)
        if wall is not None and src.limit > wall.total_seconds() and not job.admin_time:
            if not numbers:
                return "QOSMaxWallDurationPerJobLimit"
            secs = int(wall.total_seconds())
            return LimitOver("QOSMaxWallDurationPerJobLimit", "time", secs, 0, int(src.limit), ())
        if count is not None and not alone:
            return count if numbers else count.reason
        if picked is not None:
            nodes = len(picked)
        elif busy is not None:
            nodes = len(busy)
        n = src.count if nodes is None else nodes
        demand = src.demand
        cpu, mem, gpu = int(demand[0]) * n, int(demand[1]) * n, int(demand[2]) * n
        gpu = max(gpu, job.gpus_per_job)  # (-N k --gpus=M: M, dealt over its nodes)
        spread = getattr(picked, "rows", None)  # (-n without -N over several nodes: its own)
        if spread is not None:
            cpu, mem, gpu = (int(v) for v in spread.sum(axis=0))
        if picked is not None and job.exclusive:
            whole = self.capacity[list(picked)]
            cpu, gpu = int(whole[:, 0].sum()), int(whole[:, 2].sum())
            # (the memory Slurm allocates it on those nodes, as its AllocTRES will show)
            mem = self._res_of(job, record).allocated(whole)["mem"]
        named = None
        if busy is not None:
            # select_nodes: the CPUs it asks for (its min_cpus: no total_cpus before it
            # starts), memory per CPU for those or per node for each node, and GRES per node
            # (_handle_exclusive_gres: an --exclusive job's whole nodes')
            cpu = int(demand[0]) * src.count
            if src.mem_per_cpu:
                mem = int(demand[1]) * src.count
            if plan:  # (backfill's test of a plan: the will-run test's total_cpus, and
                # GRES as asked)
                whole = self.capacity[list(busy), 0].sum()
                cpu = int(whole) if job.exclusive else int(demand[0]) * n
            elif job.exclusive:
                gpu = int(self.capacity[list(busy), 2].sum())
            named = self._named_nodes(job)
        for items, limited, used, held, reasons, group in checks:
            if alone:
                used, held = {}, set()
            node = n
            if held and "node" in limited:
                if picked is not None:  # (acct_policy.c _get_unique_job_node_cnt)
                    node = len(set(picked) - held)
                elif busy is not None:  # (no job_resrcs yet: only the nodes it names)
                    node = n - len(named & held) if named else n
                else:  # before nodes are picked: as many left out as held nodes it could
                    # start on now, or as it names (-w) if it cannot (never more than Slurm
                    # leaves out on the nodes it picks, or on a test-only selection)
                    out = self._held_in(group, held, src, without)
                    if job.spec.nodelist:
                        out = max(out, len(self._named_nodes(job) & held))
                    node = max(0, n - out)
            need = {"cpu": cpu, "mem": mem, "gres/gpu": gpu, "node": node}
            for k, limit in items:
                if used.get(k, 0) + need.get(k, 0) > limit:
                    if not numbers:
                        return reasons[k]
                    return LimitOver(reasons[k], k, limit, used.get(k, 0), need.get(k, 0), group)
        return None

    @staticmethod
    def _res_of(job: SimJob, record: PendingJob | None):
        """The job's resolved request (``-p a,b``: the one of ``record``'s partition)."""
        if record is None or job.alts is None:
            return job.res
        return next((r for r, *_ in job.alts if r.partition == record.partition), job.res)

    def _checks(
        self, job: SimJob, without: frozenset = frozenset()
    ) -> tuple[LimitOver | None, list[tuple]]:
        """The limits ``job`` is tested against, for as long as no job starts or ends: (the
        job-count limit it is over, or None; the TRES limits in acct_policy.c's order, each
        as (its (TRES, value) pairs in TRES id order, the limits, the TRES and nodes its
        group's running jobs hold, the reasons, the group)); ``without``: as if the running
        jobs of these ids had ended.

        The job counts first (acct_policy_job_runnable_pre_select: QOS MaxJobsPerUser, then
        the association's MaxJobs unless the QOS has a MaxJobsPerUser), then the TRES (_qos_job_runnable_post_select: QOS GrpTRES
        before MaxTRESPerUser, then the association's GrpTRES)."""
        key = ("checks", job.qos, job.user, job.account)
        cache = self._used_cache(without)
        got = cache.get(key)
        if got is not None:
            return got
        q = self.qos[job.qos]

        def used_by(group):
            return self._used_by(group, without)

        count = None
        counted = self._count_limit(job)
        if counted is not None:
            reason, most, group = counted
            running = used_by(group)[2]
            if running + 1 > most:
                count = LimitOver(reason, "jobs", most, running, 1, group)
        accounts = self._accounts_up(job.account)
        checks = []

        def add(limits, group, reasons):
            used, held, _n = used_by(group)
            items = [
                (k, limits[k]) for k in sorted(limits, key=lambda k: (_TRES_ORDER.get(k, 99), k))
            ]
            checks.append((items, limits, used, held, reasons, group))

        if q.grp_tres:
            add(q.grp_tres, ("qos", job.qos), _QOS_GRP_REASON)
        if q.max_tres_per_user:
            add(q.max_tres_per_user, ("user", job.user, job.qos), _QOS_USER_REASON)
        # GrpTRES counts every job running in an account *and its children*: the job's
        # account and each of its ancestors must have room
        # (a TRES the QOS's GrpTRES limits is not tested against the associations':
        # acct_policy.c skips limits the QOS set, QOS limits overriding association ones)
        for acct in accounts:
            limits = acct.grp_tres
            if limits and q.grp_tres:
                limits = {k: v for k, v in limits.items() if k not in q.grp_tres}
            if limits:
                add(limits, ("account", acct.name), _ASSOC_GRP_REASON)
        got = cache[key] = (count, checks)
        return got

    def _count_limit(self, job: SimJob) -> tuple[str, int, tuple] | None:
        """The job-count limit ``job`` is tested against, as (its reason, the limit, the
        group whose running jobs it counts), or None: the QOS's MaxJobsPerUser, else the
        MaxJobs of its account or, without one, of its nearest ancestor that has one
        (limits are inherited down the tree; a QOS with a MaxJobsPerUser, reached or not,
        overrides it: acct_policy_job_runnable_pre_select tests the association's only
        while the QOS's max_jobs_pu is INFINITE). MaxJobs counts the jobs each user runs
        in the association."""
        q = self.qos[job.qos]
        if q.max_jobs_per_user is not None:
            return "QOSMaxJobsPerUserLimit", q.max_jobs_per_user, ("user", job.user, job.qos)
        accounts = self._accounts_up(job.account)
        max_jobs = next((a.max_jobs for a in accounts if a.max_jobs is not None), None)
        if max_jobs is None:
            return None
        return "AssocMaxJobsLimit", max_jobs, ("assoc", job.user, job.account)

    def _accounts_up(self, account: str) -> list:
        """``account`` and its ancestors in the tree, nearest first (none if it is not in
        the tree): where its association limits come from."""
        if account not in self.tree.accounts:
            return []
        return [self.tree.accounts[a] for a in _ancestry(self.tree, account)]

    def _held_in(self, group: tuple, held: set[int], src, without: frozenset = frozenset()) -> int:
        """How many of the nodes ``group``'s running jobs hold the job (or record) ``src``
        could start on now: Slurm tests no TRES before it picks nodes, and a job that may
        land on held nodes adds none there (cached with the sums, per request)."""
        cache = self._used_cache(without)
        mask = src.mask
        key = ("held_in", group, mask.tobytes(), src.need, src.exclusive, src.whole_memory)
        got = cache.get(key)
        if got is None:
            idx = sorted(held)
            fits = fitting_mask(
                self.free[idx],
                self.capacity[idx],
                src.demand,
                mask[idx],
                src.exclusive,
                src.whole_memory,
            )
            got = cache[key] = int(fits.sum())
        return got

    def _limits_for(
        self, job: SimJob, record: PendingJob, memo: dict
    ) -> tuple[str | None, PendingJob, str | None]:
        """(the limit ``job``'s request is over, or None; the record to hand the policy, MAX
        lowered to its node limits and blocking nothing when busy; the limit it is over on
        the nodes it would get while busy, or None): :meth:`_limit_reason`,
        :meth:`_within_limits` and :meth:`_busy_limits`. Their results are kept for
        one pass (``memo``) per request shape, user, QOS and account, and the records made
        per job while its request stays the same: a deep queue holds many alike."""
        key = (record.shape, record.mem_per_cpu, record.limit, job.qos, job.user, job.account,
               job.spec.nodelist, job.spec.reservation, job.alts is None,
               job.admin_time)  # fmt: skip
        got = memo.get(key)
        if got is None:
            reason = self._limit_reason(job, None if job.alts is None else record)
            capped = busy = reserve = None
            if not reason:
                capped = self._within_limits(job, record) if record.most is not None else record
                busy, reserve = self._busy_limits(job, capped)
            got = memo[key] = (reason, None if capped is None else capped.most, busy, reserve)
        reason, most, busy, reserve = got
        if reason:
            return reason, record, None
        mine = self._limit_records.setdefault(job.id, {})  # (dropped when it starts)
        made = mine.get(record.partition)
        if made is None or made[0] is not record:
            made = mine[record.partition] = [record, {}]
        variant = made[1].get((most, busy is None, reserve))
        if variant is None:
            variant = record
            if most != record.most:
                variant = replace(variant, most=most)
            if busy:
                variant = replace(variant, blocks=False, reserve_most=reserve)
            made[1][most, busy is None, reserve] = variant
        return None, variant, busy

    def _used_cache(self, without: frozenset = frozenset()) -> dict:
        """The limits' cache: valid until a job starts or ends (``without``: one of its
        own, for the sums as if the running jobs of those ids had ended)."""
        epoch, cache = self._used
        if epoch != self._run_epoch:
            cache = {}
            self._used = (self._run_epoch, cache)
        return cache.setdefault(("without", without), {}) if without else cache

    def _group_jobs(self, group: tuple) -> list[SimJob]:
        """The running jobs of a limit's ``group``: ("qos", Q), ("user", U, Q) (a user's
        jobs in QOS Q), ("assoc", U, A) (a user's jobs in account A) or ("account", A)
        (the jobs of A and its child accounts)."""
        return [r for r in self.running.values() if self._in_group(r, group)]

    def _in_group(self, job: SimJob, group: tuple) -> bool:
        """Whether ``job`` counts in a limit's ``group`` (:meth:`_group_jobs`)."""
        kind = group[0]
        if kind == "qos":
            return job.qos == group[1]
        if kind == "user":
            return (job.user, job.qos) == group[1:]
        if kind == "assoc":
            return (job.user, job.account) == group[1:]
        return group[1] in _ancestry(self.tree, job.account)

    def _used_by(
        self, group: tuple, without: frozenset = frozenset()
    ) -> tuple[dict[str, int], set[int], int]:
        """The TRES, nodes and number of the running jobs of a limit's ``group``
        (:meth:`_group_jobs`; ``without``: but those of these ids). Cached until a job
        starts or ends: a pass tests many jobs against the same sums."""
        cache = self._used_cache(without)
        got = cache.get(group)
        if got is None:
            jobs = [r for r in self._group_jobs(group) if r.id not in without]
            got = cache[group] = (*_sum_tres(jobs), len(jobs))
        return got

    def _busy_limits(
        self, job: SimJob, record: PendingJob, cached: bool = True
    ) -> tuple[str | None, int | None]:
        """(the QOS/association limit ``job``, as ``record`` asks, its MAX lowered to its
        node limits, would exceed on the nodes Slurm tests it on when too few are free, or
        None; when it is over, the most nodes a backfill reservation may hold for it, 0 for
        none).

        select_nodes (node_scheduler.c), finding the nodes busy, picks nodes as if every
        usable node were idle (``_pick_best_nodes``' test-only selection, possible_bitmap,
        off the nodes advance reservations hold for others, ``_get_req_features``) and tests
        the limits on them (acct_policy_job_runnable_post_select): up to MAX of a
        ``-N MIN-MAX`` job, an ``--exclusive`` job's whole nodes' GRES, and no node counted
        as one its QOS or association holds already (the job has no allocation yet). Over a
        limit, the job waits for it instead of Resources, and does not stop the main
        scheduler's pass over its partition (job_scheduler.c, "delayed for accounting
        policy"). backfill.c tests the limits again on the nodes it plans before it reserves
        them (no node counted as held): their number, the CPUs the will-run test gives it
        (whole nodes' for ``--exclusive``), its GRES as asked (``_handle_exclusive_gres`` is
        select_nodes'), and skips the reservation when that is over a limit. Tested only
        where it can differ from the test on its request (node= limits, ``--exclusive``
        jobs, node ranges); (None, None) when it can never fit."""
        if not (job.exclusive or record.most is not None or self._node_limits):
            return None, None
        if self.reservations:
            blocked = self._reserved_nodes(
                self.env.now, self.env.now + record.limit, job.spec.reservation
            )
            if blocked is not None and (record.mask & blocked).any():
                record, cached = replace(record, mask=record.mask & ~blocked), False
        nodes = self._idle_pick(record, cached)
        if nodes is None:
            return None, None
        src = None if job.alts is None else record
        reason = self._limit_reason(job, src, busy=nodes)
        if not reason:
            return None, None
        most = next(
            (
                n
                for n in range(len(nodes), record.count - 1, -1)
                if not self._limit_reason(job, src, busy=nodes[:n], plan=True)
            ),
            0,
        )
        return reason, most

    def _idle_pick(self, record: PendingJob, cached: bool = True) -> tuple[int, ...] | None:
        """The nodes ``record`` would get if every usable node were idle (a test-only
        selection), or None when it can never fit on the nodes up. ``cached``: per request
        shape (whose mask a job keeps alive) while no node goes up or down."""
        key = (record.shape, record.most, record.mem_per_cpu)
        if cached and key in self._idle_picks:
            return self._idle_picks[key]
        usable = record.mask & self.up
        nodes = choose_nodes(self.capacity, self.capacity, record.request, usable, self.weights)
        if cached:
            self._idle_picks[key] = nodes
        return nodes

    def _named_nodes(self, job: SimJob) -> set[int]:
        """The nodes ``job`` names with ``--nodelist`` (-w)."""
        return {self.node_index[n] for n in job.spec.nodelist if n in self.node_index}

    def _within_limits(self, job: SimJob, record: PendingJob) -> PendingJob:
        """A ``--nodes=MIN-MAX`` job's record with MAX lowered to its limits on nodes."""
        most = self._node_cap(job, record.most, record.count)
        return record if most == record.most else replace(record, most=most)

    def _node_cap(self, job: SimJob, most: int, count: int) -> int | None:
        """``most`` lowered to the node limits of the job's QOS and associations, as
        node_scheduler.c ``get_node_cnts`` lowers max_nodes with acct_policy.c
        ``acct_policy_get_max_nodes``: to the limits' values (QOS MaxTRESPerUser and
        GrpTRES node=, else the associations' GrpTRES node=), not to the room they leave;
        None when that leaves no more than ``count``. The nodes it then gets are checked
        against every limit (``_apply``): over one, it does not start, and waits (Slurm
        does not try fewer nodes)."""
        q = self.qos[job.qos]
        caps = [q.max_tres_per_user.get("node"), q.grp_tres.get("node")]
        if caps[1] is None and job.account in self.tree.accounts:
            # (an association's GrpTRES node= counts unless the QOS sets its own: the
            # nearest one that sets it, acct_policy_get_max_nodes walking up the parents)
            caps.append(next((
                self.tree.accounts[a].grp_tres["node"]
                for a in _ancestry(self.tree, job.account)
                if "node" in self.tree.accounts[a].grp_tres
            ), None))  # fmt: skip
        most = min([most] + [c for c in caps if c is not None])
        return most if most > count else None

    def _view(
        self, resume=None, fresh: int = 0, order=None, reserve: bool = False, pins: bool = False
    ) -> QueueView:
        now = self.env.now
        running = _RunningView(self.running, now, self._overtime)
        if resume is None or getattr(self.policy, "resume_whole_queue", False):
            queue, start = self._pending_jobs(order, reserve, pins), 0
        else:
            queue, start = self._tail(fresh), len(self.queue) - fresh
        free, capacity, up = self._read_only()
        return QueueView(
            now, PendingQueue(queue), running, free, capacity, up, self.node_names,
            self.blocked_windows, self._parts_queued, resume, start, self._smallest_cpus(),
            self._odd, not self._filtering(), self.outside, self.weights, self._multi > 0,
            self._facts, self._arrays > 0, MappingProxyType(self._tasks_running), self._epoch,
            self.blocked_by,
        )  # fmt: skip

    def _facts(self, pending: PendingJob) -> JobFacts:
        """:attr:`QueueView.facts`: a queued record's user, account, priority (its
        partition's, for ``-p a,b``) and eligible time."""
        job = self.jobs[pending.id]
        priority = job.priority
        if job.alts is not None and pending.partition != job.partition:
            k = next(k for k, alt in enumerate(job.alts) if alt[0].partition == pending.partition)
            priority = self._priority_in(job, k)
        eligible = job.eligible if job.eligible is not None else job.submit
        return JobFacts(job.user, job.account, priority, eligible)

    def _read_only(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read-only views (no copies) of the engine's free, capacity and up arrays, made once:
        a policy writing into one gets numpy's "assignment destination is read-only"."""
        views = getattr(self, "_views", None)
        if (
            views is None  # (a view of another array: a copied simulation's, say)
            or views[0].base is not self.free
            or views[1].base is not self.capacity
            or views[2].base is not self.up
        ):
            views = self._views = (self.free.view(), self.capacity.view(), self.up.view())
            for v in views:
                v.flags.writeable = False
        return views

    def _filtering(self) -> bool:
        """Whether the pass's queue leaves jobs out (throttles, reservations, limits, nodes).

        While it does, no pass continues the previous one: the jobs a pass leaves out get
        their reasons as it reaches them, and a continued pass would reach new jobs a full
        one does not (one that stops where every partition is blocked), or not reach old
        ones it does (a new job's partition had none queued)."""
        return bool(self._throttles or self.reservations or self._limits or self._nodes_out)

    def _smallest_cpus(self) -> int:
        if self._min_cpus is None:
            self._min_cpus = min(self._cpu_needs, default=1)
        return self._min_cpus

    def _tail(self, n: int):
        """The last ``n`` queued jobs, as policies see them (a continued pass)."""
        jobs = self.jobs
        for key, jid in self.queue[len(self.queue) - n :]:
            job = jobs[jid]
            yield job.pending or self._pending_of(job, key)

    def _changed(self) -> None:
        """Something other than jobs joining the queue happened: no pass or cycle continues."""
        self._resume = self._cycle = None

    def _can_resume(self) -> bool:
        """Whether this pass may continue the previous one (see :class:`QueueView`).

        Since that pass only jobs joined the queue (every other change clears
        ``_resume``), all after the jobs it saw, and :meth:`_unchanged` holds.
        """
        if self._resume is None or not self._fresh or not self._fresh_after:
            return False
        return self._unchanged()

    def _can_continue_cycle(self) -> bool:
        """Whether this backfill cycle may continue the previous one, as :meth:`_can_resume`.

        No job left the queue since (that clears ``_cycle``), so the jobs that joined all
        sort after the ones it saw when its last job is still where it was.
        """
        n = self._cycle_len
        if self._cycle is None or (n and self.queue[n - 1][0] != self._cycle_key):
            return False
        return self._unchanged()

    def _unchanged(self) -> bool:
        """What continuing needs besides "only jobs joined": nothing filters the queue and
        no running job has reached its expected end (a trace job past its limit "may end at
        any moment", which moves with the clock)."""
        if self._filtering() or self.preemption:
            return False
        ends, now = self._expected_ends, self.env.now
        while ends and ends[0][0] <= now:  # the earliest expected end of a running job
            _t, jid, _n, run = ends[0]
            job = self.jobs[jid]
            if job.state == "RUNNING" and job.proc is run:
                return False  # a job past its expected end: the profile moves with the clock
            heappop(ends)  # that run is over
        return True

    def _pass(self, _event=None) -> None:
        self._pass_pending = False
        if not self.queue:
            return
        self._begin_times_seen()
        order = self._before_main()
        if self._can_resume():
            if self._settled():
                return  # (the new jobs stay fresh: a later pass continuing sees them)
            view = self._view(self._resume, len(self._fresh))
        else:
            view = self._view(order=order, pins=self._pins_over_limit())
        self._fresh, self._fresh_after, self._seen = [], True, 0
        decision = self._decide("schedule", view)
        self._apply(decision)
        # jobs that became eligible while applying (after:<job> dependencies) were not seen
        # (only the built-in classes continue passes: see QueueView)
        built_in = type(self.policy) in BUILT_IN
        self._resume = decision.resume if not self._fresh and built_in else None
        self._settled_in = decision.settled
        self._last_key = self.queue[-1][0] if self.queue else None

    def _settled(self) -> bool:
        """Whether the pass about to continue the previous one would decide nothing: every
        new job waits for Priority in one of the partitions its decision called settled
        (:attr:`Decision.settled`), and none is an array task or queued in several
        partitions (whose records a pass counts and skips by its own rules)."""
        settled = self._settled_in
        if not settled or self._arrays or self._multi:
            return False
        jobs, odd, fresh = self.jobs, self._odd, self._fresh
        # (the jobs of the passes skipped before stay so: only the newer ones are read, so
        # a long wait behind a blocked job costs no more per arrival as it grows)
        if all(jid not in odd and jobs[jid].partition in settled for jid in fresh[self._seen :]):
            self._seen = len(fresh)
            return True
        return False

    def _reservation_pass(self, order=None) -> None:
        """Jobs with an advance reservation are evaluated first, on their reservation's nodes,
        in priority order.

        As in job_scheduler.c ``schedule``: a job of a reservation that finds its nodes busy
        (ESLURM_NODES_BUSY) fails that reservation for the rest of the pass (failed_resv),
        and its later jobs wait for Priority without a test, so a smaller later job does not
        slip ahead of it; other reservations and the partition go on. A job whose ``-w``
        list covers its node count fails nothing: only its nodes are kept from the later
        jobs of the pass. A job whose
        reservation's nodes are all held by another reservation over its time limit waits
        for 'ReqNodeNotAvail, Reserved for maintenance' (node_scheduler.c
        ``_build_node_list``: resv_overlap with no usable node left), failing nothing.
        The ``slurm`` policy's backfill cycles plan these jobs once their reservation has
        begun, and may start them (:meth:`_in_reservation`).

        Slurm sorts these jobs first (job_scheduler.c ``sort_job_queue2``), so under the
        ``slurm`` policy they are the first records its main scheduler counts toward
        ``default_queue_depth``: the step tests at most that many + 1, and the main pass
        counts them before its own (:attr:`PendingJob.ahead`). Without a main scheduler
        (sched_interval=-1: a backfill cycle's step) no depth applies."""
        failed: set[str] = set()  # reservations whose job found its nodes busy this pass
        kept_out = np.zeros(len(self.up), dtype=bool)  # nodes -w jobs that wait hold (below)
        depth = getattr(self.policy, "default_queue_depth", None)
        limit = None if depth is None or self._main_off else depth + 1
        tested, left = 0, set()  # records tested (an array's: task after task), records left
        self._resv_depth = 0
        for key, jid in list(self.queue if order is None else order):
            job = self.jobs[jid]
            if not job.spec.reservation:
                continue
            if self._throttle_full(job):  # (its array's running tasks, this pass's starts
                # counted, fill %N: job_scheduler.c _schedule tests job_array_start_test
                # before the job counts toward the depth)
                self._set_reason(job, "JobArrayTaskLimit")
                continue
            if limit is not None:  # (as Fifo.main_pass counts records: an array's tasks
                # while they start; the record is left at the first that does not)
                array = (job.pending or self._pending_of(job, key)).array
                if array is None or array not in left:
                    tested += 1
                    if tested > limit:
                        break
                    self._resv_depth = tested
                    if array is not None:  # left unless this task starts (below)
                        left.add(array)
            if job.spec.reservation in failed:
                self._set_reason(job, "Priority")
                continue
            r, mask = self.reservations[job.spec.reservation]
            if not r.maint:  # (job_test_resv: not on another reservation's nodes meanwhile,
                # a maintenance one's say; a job of a maintenance reservation uses them all)
                others = self._reserved_nodes(self.env.now, self.env.now + job.limit, r.name)
                if others is not None:
                    if not (mask & ~others).any():  # (all of them: resv_overlap)
                        self._set_reason(job, MAINT_REASON)
                        continue
                    mask = mask & ~others
            most = job.most
            if most is not None and self._limits:
                most = self._node_cap(job, most, job.count)
            if kept_out.any():
                mask = mask & ~kept_out
            request = job.request if most == job.most else replace(job.request, most=most)
            nodes = choose_nodes(
                self.free, self.capacity, request, job.mask & mask & self.up, self.weights
            )
            reason = self._limit_reason(job) if self._limits else None
            if not reason and self._limits:  # on the nodes it gets, or would get
                if nodes is not None:
                    reason = self._limit_reason(job, picked=nodes)
                elif job.alts is None:  # (on its reservation's nodes)
                    record = self._pending_of(job)
                    record = replace(record, mask=record.mask & mask, most=most)
                    reason = self._busy_limits(job, record, cached=False)[0]
            if reason:  # (Slurm checks limits first)
                self._set_reason(job, reason)
            elif nodes is None:
                self._set_reason(job, "Resources")
                named = self._named_nodes(job) if job.spec.nodelist else set()
                if len(named) >= job.count:  # -w covering its nodes: those are kept from the
                    kept_out[list(named)] = True  # later jobs, the reservation fails not
                else:  # (job_scheduler.c: fail_by_part false for such a job)
                    failed.add(r.name)
            else:  # (a backfill cycle's step when there is no main scheduler)
                self._start(job, nodes, "backfill" if self._main_off else "main")
                if limit is not None and array is not None:
                    left.discard(array)  # (its next task is tested)

    def _preempt_pass(self, order=None) -> None:
        """PreemptType=preempt/qos: a job whose QOS may preempt others frees room by doing so.

        Preempting jobs are taken in the queue's order (:meth:`_in_order`). The candidates
        are running jobs of a QOS the preemptor's may preempt, in preempt_qos.c's order:
        lowest QOS priority first, then fewest nodes (to preempt small jobs rather than
        large ones), then oldest job (Slurm's job list order). They are added one by one
        until the preemptor fits, then re-sorted to preempt fewer (:meth:`_victims_for`);
        those on the nodes it then gets are preempted. A job that
        has run less than its QOS PreemptExemptTime (else slurm.conf's) is no candidate:
        the preemptor looks again at the first periodic main-scheduler pass (sched_interval)
        after that time, or at an earlier event's pass. Each victim's own QOS PreemptMode
        (else the cluster's) decides: CANCEL ends it PREEMPTED, REQUEUE requeues it (when
        requeueable), OFF exempts it; it goes after its QOS GraceTime. A preemptor that its
        own QOS/association limit holds preempts nobody: Slurm checks limits first. As
        Slurm's main scheduler tests jobs one at a time, what an earlier preemptor of the
        pass takes (free room, or its victims' nodes) is not free for a later one.
        """
        now = self.env.now
        jobs = self.jobs
        order = self._in_order() if order is None else order
        pool = self.free.copy()  # what the preemptors before this one leave
        # (-p a,b: a job queued in several partitions preempts for its first partition)
        preemptors = dict.fromkeys(jid for _key, jid in order if jobs[jid].preempting)
        # %N: an array's tasks running, and those of this pass that take room (they start
        # next): a task beyond its throttle preempts nobody, as Slurm's main scheduler
        # tests job_array_start_test before it selects nodes (job_scheduler.c _schedule)
        tasks: dict[int, int] = {}

        def full(job) -> bool:  # whether its array's tasks fill %N, the pass's counted
            if job.throttle is None:
                return False
            taken = tasks.get(job.array_id)
            if taken is None:
                taken = tasks[job.array_id] = self._array_running(job.array_id)
            return taken >= job.throttle

        def count(job) -> None:  # a task that takes room (after full() said it may)
            if job.throttle is not None:
                tasks[job.array_id] += 1

        for job in [jobs[jid] for jid in preemptors]:
            if any(
                jobs[v].state == "RUNNING" and jobs[v].preempted_by == job.id for v in job.victims
            ):
                if not full(job):
                    count(job)  # (it starts when they end)
                continue  # its victims are still in their grace time (a victim's later run,
                # after a requeue, is no longer its victim: it may be preempted again)
            if full(job):
                continue  # (over it: no need to look for room)
            if self._limits:  # Slurm checks limits first: a job that may not start preempts none
                reason = self._limit_reason(job)
                if reason:
                    self._set_reason(job, reason)
                    continue
            q = self.qos[job.qos]
            mask = job.mask & self.up
            if self.reservations:
                blocked = self._reserved_nodes(self.env.now, self.env.now + job.limit)
                if blocked is not None:
                    mask = mask & ~blocked
            nodes = choose_nodes(pool, self.capacity, job.request, mask, self.weights)
            if nodes is not None:  # it starts without preempting: what it takes is not free
                count(job)
                self._take(pool, job, nodes)
                continue
            cands, exempt_until = [], None
            for r in self.running.values():
                if r.qos not in q.preempt or r.preempted_by is not None:
                    continue
                until = r.start + self._exempt_time(r)
                if until > now:  # PreemptExemptTime: not yet
                    exempt_until = until if exempt_until is None else min(exempt_until, until)
                    continue
                cands.append(r)
            cands.sort(key=self._victim_order)
            found = self._victims_for(job, pool, mask, cands)
            if found is None:
                if exempt_until is not None:
                    self._wake_at(exempt_until)
                continue
            victims, nodes = found
            count(job)
            for v in victims:
                pool[list(v.nodes)] += v.usage
            self._take(pool, job, nodes)
            for v in victims:
                v.preempted_by = job.id
                requeue = self._preempt_mode_of(v) == "REQUEUE" and v.requeue
                self.log("preempt", v, f"by {job.key}")
                grace = self.qos[v.qos].grace_time
                if now + grace < v.start + v.limit:  # "its end time is set to the current
                    # time plus GraceTime" (slurm.conf): squeue and backfill plan with it
                    v.running_view = RunningJob(v.id, v.nodes, v.usage, now + grace)
                self._at(
                    grace,
                    lambda _e, v=v, r=requeue, b=job.id, run=v.proc: self._preempt(v, b, r, run),
                    URGENT,
                )
            job.victims = tuple(v.id for v in victims)

    #: PreemptParameters reorder_count: how often the candidates are re-sorted (default 1)
    _REORDER_COUNT = 1

    def _victims_for(
        self, job: SimJob, pool: np.ndarray, mask: np.ndarray, cands: list[SimJob]
    ) -> tuple[list[SimJob], tuple[int, ...]] | None:
        """The jobs ``job`` preempts and the nodes it gets, or None when removing every
        candidate leaves it no room: select/cons_tres ``_run_now`` (cons_common/job_test.c).
        Candidates, in order, are taken out one by one until the job fits; it then re-sorts
        them to preempt fewer: the one that made it fit first, then the others taken out by
        how many of the chosen nodes they hold (most first), the rest after them, and tries
        again, up to ``reorder_count`` (1) more times past the first fit, or until a pass
        has tried as many fits as there are candidates. The victims are the jobs taken out
        in the last try that hold some of its nodes (-n 4 then -n 12 on a 16-CPU node: a
        -n 12 preemptor takes out both, then, with -n 12 first, preempts only it)."""
        passes = 0
        while True:
            free = pool.copy()
            nodes, fit = None, None
            for k, victim in enumerate(cands):
                free[list(victim.nodes)] += victim.usage
                nodes = choose_nodes(free, self.capacity, job.request, mask, self.weights)
                if nodes is not None:
                    fit = k
                    break
            if fit is None:
                return None
            taken = set(nodes)
            passes += 1
            if passes - 1 > self._REORDER_COUNT or len(cands) <= passes:
                return [v for v in cands[: fit + 1] if taken & set(v.nodes)], nodes
            usable = {v.id: len(taken & set(v.nodes)) for v in cands[:fit]}
            usable[cands[fit].id] = 99999
            cands = sorted(cands, key=lambda v: -usable.get(v.id, 0))  # (stable, as qsort's)

    def _take(self, pool: np.ndarray, job: SimJob, nodes: tuple[int, ...]) -> None:
        """Count what ``job`` will hold on ``nodes`` as used in a pass's own copy of free."""
        idx = list(nodes)
        pool[idx] -= job.usage_on(idx, self.capacity)

    def _victim_order(self, r: SimJob) -> tuple[int, int, int]:
        """preempt_qos.c's candidate order: QOS priority, then node count (each capped at
        0xffff, as Slurm packs them into one number), then job id (job list order)."""
        return (min(self.qos[r.qos].priority, 0xFFFF), min(len(r.nodes), 0xFFFF), r.id)

    def _exempt_time(self, r: SimJob) -> float:
        """How long a job runs before it may be preempted: its QOS PreemptExemptTime, else
        slurm.conf's (0: at once)."""
        own = self.qos[r.qos].preempt_exempt_time
        return self.preempt_exempt if own is None else own

    def _wake_at(self, t: float) -> None:
        """A pass at Slurm's first periodic main-scheduler pass (every sched_interval) from
        ``t`` on, for what changes with no event that calls the main scheduler: a job's
        PreemptExemptTime ends (Slurm preempts in main-scheduler passes only: the real-Slurm
        preemption fixture's victim became preemptable at 120 s and was preempted at the
        periodic pass, 172 s), a begin time passes quietly (:meth:`_recheck`), an advance
        reservation ends (:meth:`_resv_edge`). The
        passes fall every sched_interval from slurmctld's start (``slurmctld_start``:
        controller.c ``_slurmctld_background``, ``last_full_sched_time``). Without a main
        scheduler (slurm policy, sched_interval=-1), at the first backfill cycle."""
        grid = self._main_grid
        if grid is None:  # (no periodic pass: the next event's pass, if any, looks again)
            return
        t = tick_at_or_after(t, grid, self._main_phase)
        if self._wake is not None and self.env.now <= self._wake <= t:
            return
        self._wake = t
        self._at(t - self.env.now, self._woken)

    def _woken(self, _event=None) -> None:
        self._wake = None  # (its pass may arm the next wake)
        self.request_pass()

    def _backfill_alone(self, _event=None) -> None:
        """A backfill cycle without a main scheduler (sched_interval=-1): the cycle is where
        Slurm then starts jobs in advance reservations and preempts (backfill.c tests each
        job with its preemptee candidates; preempt.html, "Limitations of Preemption During
        Backfill Scheduling"), so the reservation and preemption steps of a pass run first,
        as they do before the main scheduler."""
        if self.queue:
            self._begin_times_seen()
            self._clear_held_nodes()  # (the cycle has jobs to test, even if these steps
            self._before_main()  # start them all)
        self._backfill_tick()

    def _clear_held_nodes(self) -> None:
        """A backfill cycle with jobs to test clears the sched_nodes held jobs kept
        (backfill.c ``_clear_job_estimates``, pending jobs only: one cancelled since keeps
        them; see ``Simulation._hold``)."""
        for jid in self._held_nodes:
            if self.jobs[jid].state == "PENDING":
                self.jobs[jid].unschedule(self.env.now)
        self._held_nodes.clear()

    def _before_main(self) -> list | None:
        """A pass's first steps: jobs in advance reservations, then preemption. Returns the
        queue's order under preempt/qos (a pairwise one: computed once per pass), else None."""
        order = self._in_order() if self.preemption else None
        if self.reservations:
            self._reservation_pass(order)
            if order is not None and len(order) != len(self.queue):  # (some started)
                order = [e for e in order if self.jobs[e[1]].state == "PENDING"]
        if self.preemption:
            self._preempt_pass(order)
        return order

    def _preempt_mode_of(self, victim: SimJob) -> str:
        """The preempted job's mode: its QOS PreemptMode, else the cluster's (preempt_qos.c)."""
        return self.qos[victim.qos].preempt_mode or self.preempt_mode

    def _preempt(self, victim: SimJob, by: int, requeue: bool, run) -> None:
        """GraceTime is over: end the run it was given for (not a later one, after a requeue)."""
        if victim.state == "RUNNING" and victim.proc is run:
            self.interrupt(victim, Preempted(by, requeue))

    def _schedule_timer(self) -> None:
        """Arm the backfill timer for its next poll (:meth:`_next_poll`)."""
        now = self.env.now
        delay = self._next_poll(now) - now
        self._at(delay, self._backfill_alone if self._main_off else self._backfill_tick, AFTER_PASS)

    def _next_poll(self, t: float) -> float:
        """The first instant from ``t`` on at which Slurm's backfill thread runs a cycle
        for a change at ``t`` (backfill.c ``backfill_agent``). After a cycle it sleeps
        ``bf_interval`` (``_my_sleep``), then polls every second (``short_sleep``) until
        ``wait_time >= backfill_interval`` and ``_more_work`` (a job, node, partition or
        reservation update since the cycle). While jobs stay queued the cycles find it
        every ``bf_interval`` (each cycle that reserves a job a start bumps
        ``last_job_update`` itself: ``_attempt_backfill``, ``start_res > start_time``,
        which ``build_job_queue`` cleared; the real-Slurm fixtures keep this phase while
        jobs pend); the simulation skips those that would change nothing, and a change
        is seen at the first of them at or after it. After a cycle that left no job
        queued, the first poll second at or after the change runs it (after the main
        pass of its instant). So the cycles' phase follows the last cycle, not a grid
        from the start. The first sleep counts from slurmctld's start (``backfill_agent``
        sets ``last_backfill_time`` then). A tick already run at that instant saw nothing
        of it."""
        interval = self.policy.interval
        due = self._bf_last + interval
        if t <= due:
            poll = due
        elif self._bf_busy:  # (a cycle every bf_interval since)
            poll = due + math.ceil((t - due) / interval) * interval
        else:  # (1-s polls since)
            poll = due + math.ceil(t - due)
        if poll == self._last_tick:
            poll += interval if self._bf_busy else 1.0
        return poll

    def _backfill_tick(self, _event=None) -> None:
        """One backfill cycle, after the main pass of its instant; re-armed while jobs pend.

        A cycle can only start jobs after something changed (an event): a cycle after a
        cycle that started nothing, with nothing logged between, would start nothing. The
        timer then stops until the next event requests a pass, which re-arms it for the
        first poll second of Slurm's backfill thread at or after it (:meth:`_next_poll`):
        the polls in between were idle, and are not simulated (speed, same starts). Such a
        cycle can still plan differently in two cases: a job planned beyond ``bf_window``
        gets its reservation (and squeue --start its SCHEDNODES) once the window reaches
        its start, and under ``bf_min_age_reserve`` a job gets one once it is old enough;
        the stopped timer wakes for the first tick at which either happens.
        """
        self._last_tick = self.env.now
        if not self.queue:  # (a cycle with no job to test: Slurm's runs all the same)
            self._bf_last = self.env.now
            self._bf_busy = False
            self._timer_running = False
            return
        self._clear_held_nodes()
        wake = self._bf_wake  # (a moment the last cycle's plans change at, now passed: the
        if len(self.events) == self._bf_seen and (wake is None or wake > self.env.now):
            self._timer_running = False  # cycle runs, and finds the next such moment)
            if self._bf_busy:  # (Slurm's cycle, which would change nothing)
                self._bf_last = self.env.now
            self._arm_wake()
            return
        self._resume = None  # the cycle plans and starts jobs: the main pass starts afresh
        self.cycle_times.append(self.env.now)
        self._bf_last = self.env.now
        self._begin_times_seen()
        if self._can_continue_cycle():  # only jobs joined since the last cycle
            view = self._view(self._cycle, len(self.queue) - self._cycle_len)
        else:  # (slurm: an array's record is planned beyond its %N's free slots)
            view = self._view(reserve=type(self.policy) is SlurmBackfill)
        # (a policy without a backfill method runs its schedule at every cycle)
        method = "backfill" if hasattr(self.policy, "backfill") else "schedule"
        decision = self._decide(method, view, cycle=True)
        queued = len(self.queue)
        started = self._apply(decision)  # (a start a limit refused is none)
        # (a start, or a job made eligible while applying, clears or voids what it saw; only
        # the built-in classes continue cycles)
        same = not started and len(self.queue) == queued
        self._cycle = decision.resume if same and type(self.policy) in BUILT_IN else None
        self._cycle_len = len(self.queue)
        self._cycle_key = self.queue[-1][0] if self.queue else None
        self._bf_seen = -1 if started else len(self.events)
        window = getattr(self.policy, "bf_window", None)  # (minutes)
        horizon = self.env.now + window * 60.0 if window else math.inf
        beyond = min((t for t in decision.planned.values() if horizon < t < math.inf), default=None)
        self._bf_wake = None if beyond is None else beyond - window * 60.0
        self._bf_busy = bool(self.queue)  # (see _next_poll)
        age = getattr(self.policy, "bf_min_age_reserve", 0)
        if age:  # the first moment a queued job is old enough to get a reservation
            now, jobs = self.env.now, self.jobs
            aged = (jobs[jid].eligible + age for _key, jid in self.queue)
            older = min((t for t in aged if t > now), default=None)
            if older is not None and (self._bf_wake is None or older < self._bf_wake):
                self._bf_wake = older
        if self.running or self._arrivals_left or self._future_work() or self._pass_pending:
            self._schedule_timer()
        else:  # (nothing will happen: jobs held back by a reservation still get their plans)
            self._timer_running = False
            self._arm_wake()

    def _arm_wake(self) -> None:
        """With the timer stopped, a cycle at the first tick at which the last cycle's plans
        would change (:meth:`_backfill_tick`): its bf_window reaches the earliest start
        planned beyond it, or a queued job reaches ``bf_min_age_reserve``."""
        wake = self._bf_wake
        if wake is not None and wake > self.env.now:
            self._at(self._next_poll(wake) - self.env.now, self._wake_cycle, AFTER_PASS)

    def _wake_cycle(self, _event=None) -> None:
        """The first tick at which the plans would change (:meth:`_arm_wake`): a cycle,
        unless an event re-armed the timer since it stopped (that timer's cycles see it)."""
        if self._timer_running or not self.queue:
            return
        self._timer_running = True
        self._bf_seen = -1
        (self._backfill_alone if self._main_off else self._backfill_tick)()

    def _array_running(self, array_id: int) -> int:
        """How many tasks of the array run now (job_mgr.c ``tot_run_tasks``)."""
        return self._tasks_running.get(array_id, 0)

    def _throttle_full(self, job: SimJob) -> bool:
        """Whether ``job`` is a task of an array whose running tasks fill its ``%N``
        (job_mgr.c ``job_array_start_test``)."""
        return job.throttle is not None and self._array_running(job.array_id) >= job.throttle

    def _over_throttle(self, job: SimJob) -> bool:
        """Whether a decision's start of array task ``job`` is over its array's %N, its
        running tasks counted with the decision's earlier starts: then it waits for
        JobArrayTaskLimit. The built-in policies never start one
        (:class:`~slurmlab.policies.base.ArrayThrottles`); a policy of your own may."""
        if not self._throttle_full(job):
            return False
        self._set_reason(job, "JobArrayTaskLimit")
        return True

    def _withheld_reasons(self) -> None:
        """After a pass, the reasons of the tasks of throttled arrays whose running tasks
        now fill %N: JobArrayTaskLimit, as the next pass's build_job_queue sets it
        (job_array_start_test) for the tasks the pass gave the policy and left waiting.
        The tasks of a pending record the pass left out beyond its free slots (the record's
        first tasks had them) wait so too, or else as a task of the record the pass looked
        at and left waiting (the same request, so the same wait: Slurm shows a record's
        waiting tasks as one, with one reason)."""
        jobs, running, limit = self.jobs, self._tasks_running, "JobArrayTaskLimit"
        for tasks in self._handed.values():
            for jid in tasks:
                job = jobs[jid]
                if job.state == "PENDING" and job.reason != limit and self._throttle_full(job):
                    self._set_reason(job, limit)
        for record, tasks in self._withheld.items():
            reason = limit
            if running.get(record[0], 0) < jobs[tasks[0]].throttle:
                reason = next(  # (the record's tasks given to the policy)
                    (
                        other.reason
                        for j in self._handed.get(record, ())
                        if (other := jobs[j]).state == "PENDING"
                        and other.reason not in (limit, "None")
                    ),
                    limit,
                )
            for jid in tasks:
                job = jobs[jid]
                if job.reason != reason and job.state == "PENDING":
                    self._set_reason(job, reason)
        self._withheld.clear()
        self._handed.clear()

    def _future_work(self) -> bool:
        """Whether anything scheduled later could let a pending job start.

        Node repairs and resumes need no timer: they request a pass, which re-arms it (a
        node that stays DOWN must not keep the timer ticking for ever).
        """
        reasons = {self.jobs[j].reason for j in self.waiting}
        # a dependency is released by another job's start or end: only while some job can
        # still run (a job waiting on a held one, with nothing else to do, waits for ever)
        return "BeginTime" in reasons or ("Dependency" in reasons and self._work_remaining())

    def _apply(self, decision: Decision) -> int:
        """Start the decision's jobs (each checked against the limits on the nodes it gets)
        and set the pending reasons it names; return how many jobs started."""
        refused = several = False
        jobs = self.jobs
        started = 0
        for start in decision.starts:
            job = jobs[start.job]
            record = None
            if job.alts is not None:  # -p a,b: the partition of the record it starts in
                if job.state != "PENDING":  # (a built-in's second record: skipped)
                    continue
                record = record_for(self._queued_records(job), start)
                several = True
            if self._over_throttle(job):
                continue
            if self._limits:
                # on the nodes it gets (acct_policy_job_runnable_post_select), counting this
                # pass's earlier starts
                reason = self._limit_reason(job, record, picked=start.nodes)
                if reason:  # another start of this pass used up the limit, or the nodes it
                    self._set_reason(job, reason)  # got (-N MIN-MAX, --exclusive) are over it
                    refused = True
                    # not tried again in that partition at this moment unless a job ends (its
                    # room frees), or, for a job whose nodes another start may change (-N
                    # MIN-MAX fewer, --exclusive others), a job starts (other starts only
                    # add to what the limits count)
                    part = job.partition if record is None else record.partition
                    shifts = job.most is not None or job.exclusive
                    marker = ("any", self._run_epoch) if shifts else ("end", self._n_ended)
                    self._over[job.id, part] = (self.env.now, marker)
                    continue
            if record is not None:
                self.use_partition(job, record.partition)
            if start.limit is not None and start.limit < job.limit:
                self._lower_limit(job, start.limit)
            self._start(job, start.nodes, start.by)
            started += 1
        if several:
            # A job of several partitions (-p a,b) that started in one may have blocked
            # another for the rest of the pass (or held a reservation there): the next pass
            # is a whole one, which no longer sees that block (Slurm's next pass does not),
            # and a policy without a timer gets one now (Slurm's periodic passes look again)
            decision.resume = None
            if not getattr(self.policy, "interval", None):
                self.request_pass()
        stale = False  # a job refused at this moment, before a change that may let it start
        if started and self._over:
            now = self.env.now
            self._over = {k: v for k, v in self._over.items() if v[0] == now}  # (this moment's)
            stale = any(v[1] != self._since(v) for v in self._over.values())
        if refused or stale:  # the policy counted the refused job's nodes as taken, or a
            self.request_pass()  # start changed what a refused one would get: look again now
        now = self.env.now
        reasons = decision.reasons
        if self._own:  # (filled while the pass read the queue; rarely any)
            reasons = self._own_reasons(reasons, self._own)
            self._own = {}
        for jid, reason in reasons.items():
            job = jobs[jid]
            if job.reason != reason and job.state == "PENDING":  # (mostly unchanged)
                self._set_reason(job, reason)
        if self._handed:  # (throttled arrays' tasks: see there)
            self._withheld_reasons()
        if decision.rest is not None:  # the reason of queued jobs the pass did not name
            last = decision.rest_limit
            for jid in [j for j in self._odd if j not in decision.reasons]:
                job = jobs[jid]
                if job.state == "PENDING" and jid not in self.waiting:
                    if last is not None and bisect_left(self.queue, (job.sort_key(), jid)) >= last:
                        continue  # (not reached by a pass limited to the first jobs)
                    self._set_reason(job, decision.rest)
        planned_nodes, plans, shown = decision.planned_nodes, self._plans, decision.sched_nodes
        for jid, t in decision.planned.items():
            job = jobs[jid]
            if job.alts is not None:
                if job.state != "PENDING":  # (started in another partition in the pass)
                    continue
                nodes = planned_nodes.get(jid)  # the record a standing plan is kept in
                job.plan_part = (
                    None
                    if nodes is None
                    else record_for(self._queued_records(job), Start(jid, nodes)).partition
                )
            job.planned_nodes = planned_nodes.get(jid)
            if job.planned != t:
                job.planned = t
                if job.shown_plan() != t:  # (an updated job's may be shown still)
                    job.plans.append((now, t))
            nodes = shown.get(jid, job.planned_nodes)  # (squeue --start's SCHEDNODES)
            if nodes != (job.sched[-1][1] if job.sched else None):
                job.sched.append((now, nodes))
            plans.add(jid)
        if self._updated:  # (the pass has seen the requests scontrol update changed)
            for jid in self._updated:
                jobs[jid].updated = False
            self._updated.clear()
        if decision.complete and len(self._plans) > len(decision.planned):
            for jid in [j for j in self._plans if j not in decision.planned]:
                self._plans.discard(jid)
                job = jobs[jid]
                if job.state == "PENDING":  # its plan is gone
                    job.drop_plan(now)
        return started

    # -- a policy's decisions ------------------------------------------------------------------
    def _decide(self, method: str, view: QueueView, cycle: bool = False) -> Decision:
        """Ask the policy (its ``method``; ``cycle``: in a timer cycle) for a decision; check it
        unless the policy is one of the built-in classes (trusted: they keep their speed).

        When the policy raises (its error gets a note naming the pass) or its decision is
        refused, nothing is applied, and another pass is requested: a Lab goes on, asking the
        policy again at its next step."""
        try:
            decision = getattr(self.policy, method)(view)
            if type(self.policy) not in BUILT_IN:
                self._check(decision, view, method)
        except BaseException as exc:
            if isinstance(exc, Exception) and not isinstance(exc, PolicyError):
                # (the policy's own error, at its own line: say which pass ran it)
                now = _seconds(self.env.now)
                note = f"in policy {policy_name(self.policy)!r}, {method}() at t={now} s"
                if hasattr(exc, "add_note"):  # (Python 3.11+; 3.10 raises it without)
                    exc.add_note(note)
            self._own = {}  # (filled while the queue was read)
            self._withheld.clear()
            self._handed.clear()
            if cycle:
                self._timer_running = False  # (re-armed by the pass requested here)
            self.request_pass()
            raise
        return decision

    def _check(self, decision, view: QueueView, method: str) -> None:
        """Raise a PolicyError, before anything is applied, when a policy's decision breaks a
        rule of the protocol (slurmlab.policies.base): it is no Decision; a start names a job
        not in this pass's queue, or one twice, on nodes that are not ``count`` distinct
        indices of up nodes in the job's mask with room for it (counting the decision's
        earlier starts; ``--exclusive``: whole idle nodes); ``Start.by`` is not main or
        backfill; a reason is not one of Slurm's; a planned start is not a time from now on."""
        now = self.env.now
        where = f"policy {policy_name(self.policy)!r}, {method}() at t={_seconds(now)} s"

        def fail(message: str):
            raise PolicyError(f"{where}: {message}")

        if not isinstance(decision, Decision):
            got = "None" if decision is None else f"a {type(decision).__name__}"
            hint = (
                " (its starts go in Decision(starts=[Start(job_id, nodes), ...]))"
                if isinstance(decision, list | tuple)
                else ""
            )
            fail(
                f"returned {got}: {method}() must return a "
                f"slurmlab.policies.Decision{hint}; return Decision() to start nothing"
            )
        queue: dict = {}  # (reads the rest of the pass's queue; -p a,b: a record each)
        for record in view.queue:
            queue.setdefault(record.id, []).append(record)
        jobs, names, n_nodes = self.jobs, self.node_names, len(self.free)

        def label(jid) -> str:
            job = jobs.get(jid) if _is_id(jid) else None
            return f"job {job.key}" if job is not None else f"job {jid!r}"

        def queued(jid, what: str) -> list[PendingJob]:
            pending = queue.get(jid) if _is_id(jid) else None
            if pending is not None:
                return pending
            job = jobs.get(jid) if _is_id(jid) else None
            if job is None:
                ids = "" if _is_id(jid) else " (ids are ints: PendingJob.id)"
                fail(f"{what}: no job has id {jid!r}{ids}; name jobs of view.queue")
            if job.state == "PENDING":
                why = f"pending ({job.reason}) but not in this pass's queue"
            elif job.state == "RUNNING":
                why = f"RUNNING since t={_seconds(job.start)} s"
            else:
                why = job.state
            fail(f"{what}: job {job.key} is {why}; name only jobs of view.queue")

        def check_spread(nodes, rows, job, what: str) -> None:
            if job.spread is None:
                fail(
                    f"{what}: {label(job.id)} may not spread over nodes (its PendingJob.spread "
                    "is None: it asks for a node count, GPUs, --mem or --exclusive); give "
                    "choose_nodes's plain tuple of nodes"
                )
            ntasks, task, node = job.spread
            rows = np.asarray(rows)
            col = int(np.flatnonzero(task)[0])  # (CPUs; GPUs for --gpus alone)
            tasks = rows[:, col] // task[col] if rows.shape == (len(nodes), 3) else None
            # -n N --gpus=M: M GPUs dealt over the nodes, one or more on each, besides the
            # tasks (at least one on each node: max(N, nodes) in all)
            per_job = job.gpus_per_job if col == 0 and task[2] == node[2] == 0 else 0
            gpus = rows[:, 2] if tasks is not None and per_job else None
            if (
                tasks is None
                or (tasks < 1).any()
                or int(tasks.sum()) != max(ntasks, len(nodes) if per_job else 0)
                or (rows[:, :2] != (np.outer(tasks, task) + node)[:, :2]).any()
                or (gpus is None and (rows[:, 2] != tasks * task[2] + node[2]).any())
                or (gpus is not None and ((gpus < 1).any() or int(gpus.sum()) != per_job))
            ):
                gpus_said = f", {per_job} GPUs in all (one or more on each)" if per_job else ""
                fail(
                    f"{what}: the usage of {label(job.id)} on its nodes (Spread.rows) must "
                    f"hold its {ntasks} tasks of {task.tolist()}, one or more on each node, "
                    f"and {node.tolist()} on each{gpus_said}; give spread_nodes's answer "
                    "for job.request"
                )

        def check_dealt(nodes, rows, job, what: str) -> None:
            rows = None if rows is None else np.asarray(rows)
            if (
                rows is None
                or rows.shape != (len(nodes), 3)
                or (rows[:, :2] != job.demand[:2]).any()
                or (rows[:, 2] < 1).any()
                or int(rows[:, 2].sum()) != job.gpus_per_job
            ):
                fail(
                    f"{what}: {label(job.id)} asks for {job.gpus_per_job} GPUs over its "
                    f"{job.count} nodes (-N {job.count} --gpus={job.gpus_per_job}): give "
                    "choose_nodes's answer for job.request, whose rows deal them over the "
                    "nodes (one or more on each)"
                )

        def check_nodes(nodes, job, what: str) -> None:
            if not isinstance(nodes, tuple) or not all(map(_is_id, nodes)):
                fail(
                    f"{what}: nodes must be a tuple of node indices (ints, as choose_nodes "
                    f"returns), not {nodes!r}; e.g. tuple(int(i) for i in nodes)"
                )
            bad = next((i for i in nodes if not 0 <= i < n_nodes), None)
            if bad is not None:
                fail(
                    f"{what}: node index {bad} is out of range: the cluster has {n_nodes} "
                    f"nodes, indices 0 to {n_nodes - 1} (view.node_names[i] names node i)"
                )
            if len(set(nodes)) != len(nodes):
                twice = next(i for i in nodes if nodes.count(i) > 1)
                fail(f"{what}: node {names[twice]} ({twice}) is given twice; give distinct nodes")
            rows = getattr(nodes, "rows", None)
            dealt = (
                job.gpus_per_job > 0
                and not job.exclusive
                and job.gpus_per_job > job.demand[2] * job.count
            )
            if dealt:  # (-N k --gpus=M: M GPUs dealt over its k nodes, placement._dealt)
                check_dealt(nodes, rows, job, what)
            elif rows is not None:  # (placement.Spread: -n without -N over several nodes)
                check_spread(nodes, rows, job, what)
                return
            if job.most is not None and not job.count <= len(nodes) <= job.most:
                fail(
                    f"{what}: {label(job.id)} asks for {job.count} to {job.most} nodes (-N "
                    f"{job.count}-{job.most}), got {len(nodes)}; give that many distinct "
                    "nodes, as choose_nodes does for job.request"
                )
            if job.most is None and len(nodes) != job.count:
                fail(
                    f"{what}: {label(job.id)} asks for {job.count} node(s) (-N {job.count}), "
                    f"got {len(nodes)}; give {job.count} distinct nodes, as choose_nodes does "
                    "for job.request"
                )

        free, capacity, up = self.free.copy(), self.capacity, self.up
        started: dict = {}
        starts = decision.starts
        if not isinstance(starts, list | tuple):
            fail(f"Decision.starts is {starts!r}: give a list of Start(job_id, nodes)")
        for k, start in enumerate(starts):
            if not isinstance(start, Start):
                fail(f"Decision.starts[{k}] is {start!r}, not a Start: give Start(job_id, nodes)")
            what = f"Start(job={start.job!r}, nodes={start.nodes!r}) (starts[{k}])"
            records = queued(start.job, what)
            pending = record_for(records, start)
            if pending is None:
                fail(
                    f"{what}: {label(start.job)} is not queued in partition "
                    f"{start.partition!r} (it is in {', '.join(r.partition for r in records)}); "
                    "give Start(..., partition=job.partition) of the record you start"
                )
            if start.job in started:
                fail(
                    f"{what}: {label(start.job)} is started twice (also by starts"
                    f"[{started[start.job]}]); start each job once"
                )
            started[start.job] = k
            if start.by not in ("main", "backfill"):
                fail(
                    f"{what}: by={start.by!r} must be 'main' (in priority order) or 'backfill' "
                    "(ahead of a job that waits)"
                )
            if start.limit is not None:
                limit, low = start.limit, pending.time_min
                ok = isinstance(limit, Real) and not isinstance(limit, bool)
                if not ok or not (low and low <= limit <= pending.limit):
                    allowed = (
                        f"from its --time-min, {_seconds(low)} s, to its limit, "
                        + (
                            "UNLIMITED"
                            if math.isinf(pending.limit)
                            else f"{_seconds(pending.limit)} s"
                        )
                        if low
                        else "none: it has no --time-min (PendingJob.time_min 0)"
                    )
                    fail(
                        f"{what}: limit={limit!r} is no time limit {label(start.job)} may get "
                        f"({allowed}); give None to keep its limit"
                    )
            nodes = start.nodes
            check_nodes(nodes, pending, what)
            off = [names[i] for i in nodes if not pending.mask[i]]
            if off:
                fail(
                    f"{what}: {label(start.job)} may not use node {','.join(off)} (partition "
                    f"{pending.partition}, its features and GPU type: PendingJob.mask); choose "
                    "among job.mask & view.up"
                )
            down = [names[i] for i in nodes if not up[i]]
            if down:
                fail(
                    f"{what}: node {','.join(down)} is not up (down, drained or not in service: "
                    "view.up is False there); choose among job.mask & view.up"
                )
            rows = pending.usage(nodes, capacity)
            for r, i in enumerate(nodes):
                need = capacity[i] if pending.exclusive else rows[r]
                if pending.exclusive and (free[i] != capacity[i]).any():
                    fail(
                        f"{what}: {label(start.job)} asks for whole nodes (--exclusive) but "
                        f"node {names[i]} is not idle ({_amounts(free[i])} free of "
                        f"{_amounts(capacity[i])}{_earlier(started, starts, i)})"
                    )
                short = next((a for a in range(3) if free[i][a] < need[a]), None)
                if short is not None:
                    fail(
                        f"{what}: node {names[i]} has {_amount(short, free[i][short])} free"
                        f"{_earlier(started, starts, i)}, {label(start.job)} needs "
                        f"{_amount(short, need[short])} there; choose nodes in a copy of "
                        "view.free less the decision's earlier starts (choose_nodes does)"
                    )
                free[i] -= need
        known = _pending_reasons()
        for jid, reason in decision.reasons.items():
            queued(jid, f"Decision.reasons[{jid!r}]")
            _check_reason(reason, f"Decision.reasons[{jid!r}]", known, fail)
        if decision.rest is not None:
            _check_reason(decision.rest, "Decision.rest", known, fail)
        for jid, t in decision.planned.items():
            what = f"Decision.planned[{jid!r}] = {t!r}"
            queued(jid, what)
            if jid in started and not jobs[jid].alts:  # (-p a,b: another record's plan)
                fail(
                    f"{what}: {label(jid)} starts in this decision (starts[{started[jid]}]); "
                    "a planned start is for a job that waits"
                )
            number = isinstance(t, int | float | np.integer | np.floating)
            if not number or isinstance(t, bool) or math.isnan(t):
                fail(f"{what}: a planned start is a time in seconds (float), not {t!r}")
            if t < now:
                fail(
                    f"{what}: {label(jid)}'s planned start is before now (t={_seconds(now)} s); "
                    "plan it at now or later (Profile.earliest gives such times)"
                )
        for field_name in ("planned_nodes", "sched_nodes"):
            for jid, nodes in getattr(decision, field_name).items():
                what = f"Decision.{field_name}[{jid!r}] = {nodes!r}"
                queued(jid, what)
                check_nodes(nodes, jobs[jid], what)


def record_for(records: list[PendingJob], start: Start) -> PendingJob | None:
    """The record of a job (``-p a,b``: one per partition) a start starts: the one of
    ``start.partition``, or without one the first whose node mask holds all its nodes."""
    if start.partition is not None:
        return next((r for r in records if r.partition == start.partition), None)
    if len(records) > 1:
        for r in records:
            if r.count <= len(start.nodes) <= (r.most or r.count) and all(
                r.mask[i] for i in start.nodes
            ):
                return r
    return records[0]


def _is_id(value) -> bool:
    """An int (a job id or node index; numpy's too), not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _seconds(t: float) -> str:
    """A simulated time in seconds, as messages show it (600, 12.5)."""
    return f"{t:.0f}" if t == int(t) else f"{t:.3f}".rstrip("0")


_UNITS = ("CPUs", "MB", "GPUs")


def _amount(axis: int, value) -> str:
    """``1 CPU``, ``2 CPUs``, ``0 MB``: an amount of one resource, singular for one."""
    unit = _UNITS[axis]
    return f"{int(value)} {unit[:-1] if int(value) == 1 and unit != 'MB' else unit}"


def _amounts(row) -> str:
    return "/".join(_amount(a, row[a]) for a in range(3))


def _earlier(started: dict, starts, node: int) -> str:
    """Words for the decision's earlier starts on ``node``, if any."""
    ks = [k for k in started.values() if node in starts[k].nodes][:-1]
    return f" after starts{ks} of this decision" if ks else ""


def _pending_reasons() -> frozenset[str]:
    """The pending reasons the project knows (those why_pending explains): a policy's reasons
    must be among them."""
    from slurmlab.sim.explain import _WORDS  # (explain imports the engine, which imports this)

    return frozenset(_WORDS)


def _check_reason(reason, what: str, known: frozenset[str], fail) -> None:
    if isinstance(reason, str) and reason in known:
        return
    close = difflib.get_close_matches(reason, known, n=1) if isinstance(reason, str) else []
    hint = f"did you mean {close[0]!r}? " if close else ""
    fail(
        f"{what} = {reason!r} is not a pending reason of Slurm's; {hint}use 'Resources' (next "
        "in line but it does not fit), 'Priority' (jobs ahead of it wait) or another of "
        "squeue's reasons"
    )
