"""The four scheduling policies, each the previous one plus one idea.

* :class:`Fifo` -- strict priority order; a partition's queue blocks at its first
  job that cannot start (Slurm's main scheduler without backfill).
* :class:`Easy` -- FIFO plus one reservation: the first blocked job of each partition
  is reserved at its *shadow time* (computed from running jobs' time limits); a
  later job may start now only if it does not delay that reservation, i.e. it ends
  before the shadow time or uses only the *extra* resources. (Lifka 1995, "The ANL/IBM
  SP scheduling system"; Mu'alem & Feitelson 2001, IEEE TPDS 12(6).)
* :class:`Conservative` -- EASY with a reservation for everyone: every pending job,
  in priority order, gets the earliest start that delays no job ahead of it; jobs
  whose earliest start is now start (Mu'alem & Feitelson 2001). Recomputed each pass.
* :class:`SlurmBackfill` -- Slurm's sched/backfill (slurm.conf(5), sched_config): the
  main scheduler (FIFO per partition, at most ``default_queue_depth`` jobs) runs on every
  event and over the whole queue every ``sched_interval`` seconds (while the queue is deeper
  than that; ``sched_interval=-1`` turns it off), and every ``bf_interval`` seconds a backfill
  pass plans like Conservative for at most ``bf_max_job_test`` tested jobs, each reserving
  whole nodes from its start to its end rounded down to ``bf_resolution``, no reservation
  beyond ``bf_window`` minutes, and none once its map holds ``bf_node_space_size`` records;
  an array's pending tasks tested as one record (at most ``bf_max_job_array_resv`` of
  them reserved), with the per-cycle caps ``bf_max_job_user`` / ``_assoc`` / ``_part`` /
  ``_user_part`` / ``_start`` and the thresholds ``bf_min_age_reserve`` /
  ``bf_min_prio_reserve``
  (backfill.c; checked against real Slurm 22.05 in datasets/realslurm).

Every policy plans with time limits (running jobs are assumed to end at their
limits), never with true run times.

A job of a node-count range (``-N MIN-MAX``, :attr:`PendingJob.most`) is tested with MIN
and takes up to MAX of the nodes it could use instead: starting now, those free now
(FIFO, a main pass) or free throughout its window in the pass's profile (a backfilled
start: no reservation loses a node); planned, those free throughout its planned window
(backfill.c's will-run test with ``req_nodes`` = MAX).
"""

from __future__ import annotations

import difflib
import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import itemgetter
from typing import ClassVar, NamedTuple

import numpy as np

from slurmlab.errors import SlurmlabError, warn_at_caller
from slurmlab.policies.base import (
    NODES_OUT,
    ArrayThrottles,
    BlockedBy,
    Decision,
    JobFacts,
    PendingJob,
    QueueView,
    Start,
)
from slurmlab.policies.nodespace import (
    NodeSpace,
    bits_mask,
    node_bits,
    nodes_bits,
    retry_after,
    slot_of,
)
from slurmlab.policies.placement import choose_nodes, reads_free, spread_nodes
from slurmlab.policies.planmap import PlanProfile
from slurmlab.policies.profile import (
    MERGE_FROM,
    Profile,
    _best_fit_bits,
    _node_index,
    hold_windows,
    make_profile,
    noted_fits,
)
from slurmlab.spec.cluster import SCHEDULER_PARAMETERS

__all__ = [
    "POLICIES",
    "Conservative",
    "Easy",
    "Fifo",
    "SlurmBackfill",
    "availability",
    "make_policy",
]


def availability(
    view: QueueView, free: np.ndarray | None = None, started=(), windows=None
) -> Profile:
    """The profile of a pass: running jobs (and jobs ``started`` in it) end at their limits,
    and the advance reservations (``windows``, (start, end, usage) each: by default the
    view's ``blocked_windows``) hold their nodes."""
    releases = [(r.expected_end, r.nodes, r.usage) for r in view.running]
    releases += started
    prof = make_profile(
        view.now, view.free if free is None else free, view.capacity, releases, view.weights
    )
    hold_windows(prof, view.blocked_windows if windows is None else windows, view.now)
    return prof


def _usage(job: PendingJob, capacity: np.ndarray, nodes: tuple[int, ...]) -> np.ndarray:
    """Per-node resources a job holds on ``nodes`` (:meth:`PendingJob.usage`)."""
    return job.usage(nodes, capacity)


def _take(free: np.ndarray, job: PendingJob, capacity: np.ndarray, nodes) -> np.ndarray:
    """Subtract the job's usage on ``nodes`` from ``free`` (in place); return the usage."""
    usage = _usage(job, capacity, nodes)
    if len(nodes) == 1:  # basic indexing: several times cheaper than a list of one
        free[nodes[0]] -= usage[0]
    else:
        free[list(nodes)] -= usage
    return usage


@dataclass
class Fifo:
    """Strict priority order; the queue blocks at the first job that cannot start, per partition.

    Slurm's main scheduler without backfill: once a job of a partition is left
    pending, no later job of that partition starts in this pass (sched_config), nor any
    job on that partition's nodes, whatever its own partition (job_scheduler.c: "Do not
    schedule more jobs in this partition or on nodes in this partition"): with
    overlapping partitions a lower-tier job cannot take the nodes a blocked one waits for.
    """

    name: str = "fifo"
    interval: float | None = None
    #: a continued pass sees only the new jobs (see QueueView)
    resume_whole_queue: ClassVar[bool] = False
    #: its passes are Slurm's main scheduler's (:meth:`main_pass`): they are handed the
    #: ``-w`` jobs over a TRES limit, whose nodes they keep from later jobs
    #: (:attr:`PendingJob.over_limit`)
    pins_over_limit: ClassVar[bool] = True

    def schedule(self, view: QueueView) -> Decision:
        d = self.main_pass(view, self._free(view))
        if d.resume is not None:  # a new job of a blocked partition would wait for Priority
            d.settled = d.resume[0]  # (the blocked set, as the next continued pass has it)
        return d

    def _free(self, view: QueueView) -> np.ndarray:
        return view.free.copy()

    def main_pass(self, view: QueueView, free: np.ndarray, limit: int | None = None) -> Decision:
        """One pass of the main scheduler over ``view.queue``, testing at most ``limit`` job
        records (None: all).

        Slurm counts a job array's pending tasks as one record (:attr:`PendingJob.array`):
        the pass tests its tasks one after another while they start, each counting toward
        the limit, and leaves the record at the first that does not (job_scheduler.c
        ``next_task``, ``job_depth``); its other tasks are not tested in that pass. A job of
        ``-p a,b`` already started in an earlier partition's record counts no more."""
        d = Decision()
        capacity, up, partitions = view.capacity, view.up, view.partitions
        # up nodes outside every blocked partition and the nodes a -w or over-limit job
        # keeps; continuing the previous pass, its blocked partitions and kept nodes stay so,
        # and the jobs still queued ahead of the new ones count (a pass is continued only
        # when none of them is an array task: see below)
        blocked: set[str]
        blocked, usable = (set(), up) if view.resume is None else view.resume
        depth = view.start
        ranks = None  # computed when a job needs them (a start may well end the pass)
        outside = view.outside
        cut = False  # (stopped at the depth limit)
        begun: set[int] = set()  # (-p a,b: a job queued in several partitions starts once)
        # arrays' pending records, (array, partition), the pass has left (their other tasks
        # are not tested); the record of the job tested last, and whether it goes on
        left: set = set()
        last, keep = None, False
        # the last array element tested and not started, as (array, partition), and its id:
        # the array's later elements there (tasks split off its record) are not tested
        reject, rejected = None, None
        # (with a limit, array records can be told from positions only by reading them)
        scan = view.arrays and limit is not None
        throttles = ArrayThrottles(view)  # (%N: its tasks running, per array)
        for job in view.queue:
            if limit is not None and job.ahead:  # records the controller left out or
                depth += job.ahead  # tested itself count as well (PendingJob.ahead)
                if depth > limit:
                    cut = True
                    break
            if last is not None and not keep:  # its task did not start: the record is left
                left.add(last)
            last = None
            record = None if job.array is None else (job.array, job.partition)
            if record is not None and record in left:
                continue  # not tested
            if job.id in begun:
                continue  # (-p a,b: started from another partition's record)
            if job.array_job is not None:
                if reject == (job.array_job, job.partition):
                    if rejected in d.reasons:  # (fill_array_reasons: the rejected one's)
                        d.reasons[job.id] = d.reasons[rejected]
                    continue  # "already rejected array element": not tested nor counted
                reject, rejected = (job.array_job, job.partition), job.id
                if job.throttle is not None and throttles.full(job):
                    # job_array_start_test, before the depth is counted and before its
                    # partition's block (job_scheduler.c _schedule): its array's running
                    # tasks, this pass's starts with them, fill %N; the array's later
                    # elements here are rejected too
                    d.reasons[job.id] = "JobArrayTaskLimit"
                    continue
            depth += 1  # (each task a record's test reaches counts: job_scheduler.c next_task)
            if limit is not None and depth > limit:
                # (the next pass starts from the head of the queue again, as every
                # _schedule() call does: one cut at its depth is not continued)
                cut = True
                break
            last, keep = record, False
            if job.partition in blocked:
                # behind a blocked job of its partition it waits for Priority (queued jobs
                # do unless a pass said otherwise: only those need saying it again; -p a,b:
                # the last record's reason stands, so it is said whenever one was said)
                if job.id in view.odd or (view.multi and job.id in d.reasons):
                    d.reasons[job.id] = "Priority"
                continue
            if job.over_limit:  # (PendingJob.over_limit: its reason is the limit's)
                usable = usable & ~job.mask
                continue
            nodes = None
            if ranks is None:
                ranks = view.free_ranks(free)
            if job.spread is not None:  # (-n without -N: one node or several)
                nodes = spread_nodes(free, job.request, job.mask & usable, view.weights)
            elif job.may_fit(ranks):
                nodes = choose_nodes(free, capacity, job.request, job.mask & usable, view.weights)
            if nodes is None:
                if job.pinned:  # (-w: its nodes are kept from the later jobs, not its partition)
                    d.reasons[job.id] = "Resources"
                    usable = usable & ~job.mask
                    continue
                if not job.blocks:  # (a maintenance window holds its whole partition)
                    d.reasons[job.id] = "Resources"
                    continue
                reason = "Resources"
                if (
                    usable is not up
                    and job.partition in outside
                    and int((usable & ~outside[job.partition]).sum()) < job.count
                ):  # job_scheduler.c: fewer of its partition's nodes are left than it asks
                    reason = NODES_OUT  # for, the others held for a blocked partition's job
                elif self._passed_over(job, view):  # (slurm: too young, or of too low a
                    d.reasons[job.id] = "Resources"  # priority, to hold its partition; a job
                    continue  # short of nodes fails it all the same: fail_this_part)
                blocked.add(job.partition)
                if job.partition in outside:  # its nodes are held for it
                    usable = usable & outside[job.partition]
                d.reasons[job.id] = reason
                if len(blocked) >= partitions and not view.multi and not scan:
                    # every partition with queued jobs is blocked: the rest wait for Priority
                    # (the jobs not reached in a continued pass are new ones, which already do;
                    # -p a,b: a job's later records may be among them, and their Priority
                    # would be its reason, so the pass goes on; so it does when array
                    # records may lie ahead, to count them as records)
                    if view.whole and view.resume is None:
                        d.rest = "Priority"  # (a main pass of the slurm policy: up to its
                        d.rest_limit = limit  # depth; job_scheduler.c leaves the rest)
                    break
                continue
            _take(free, job, capacity, nodes)
            ranks = None
            d.starts.append(Start(job.id, nodes, "main", job.partition))
            begun.add(job.id)
            throttles.start(job)
            keep = True  # (an array's record: its next task)
            reject = None
        # the next pass may continue this one, unless it was cut at its depth or array
        # records were tested (a continued pass would count by positions and forget which
        # array elements were rejected): then the next pass is a full one
        d.resume = None if cut or view.arrays else (blocked, usable)
        return d

    def backfill(self, view: QueueView) -> Decision:  # pragma: no cover - no timer
        return Decision()

    def _passed_over(self, job: PendingJob, view: QueueView) -> bool:
        """Whether a job that cannot start leaves its partition to the later jobs of the
        pass (the ``slurm`` policy's thresholds; never under FIFO)."""
        return False


@dataclass
class Easy(Fifo):
    """FIFO plus one reservation per partition for its first blocked job (EASY backfilling).

    A later job starts now if it delays no reservation: it fits in the profile (which holds
    the reservations on the nodes planned for them), or, on a multi-node cluster, it fits
    now and every reservation of the pass can still start when planned with it running,
    perhaps on other nodes than those first planned (Lifka's "extra" nodes: the profile
    pins a reservation to nodes, EASY only promises its start time). On a one-node pool
    the two tests are the same.
    """

    name: str = "easy"
    pins_over_limit: ClassVar[bool] = False  # (the literature's: no main scheduler)

    def schedule(self, view: QueueView) -> Decision:
        d = Decision()
        prof = None  # built at the first blocked job: before it, free now is all that matters
        reserved: set[str] = set()
        # the reserved partitions whose reserved jobs block nothing (PendingJob.blocks: a
        # maintenance window keeps them out): Slurm's main scheduler tries the later jobs
        # there, which wait for their own reason (Resources), not for Priority
        unblocked: set[str] = set()
        plans: list[list] = []  # this pass's reservations: [job, start, nodes, usage]
        # the profile, when its first plan came without one (_Shadow): what builds it
        late = None
        if view.resume is not None:  # continue the previous pass (its starts now run)
            prof, reserved, plans, unblocked, late = view.resume
            if prof is not None:
                prof.advance(view.now)
        free = view.free.copy()
        stale = True  # the ranks of free amounts are computed when a job needs them
        started = []
        started_ids: list[int] = []
        stopped = False
        up, capacity, odd, min_cpus = view.up, view.capacity, view.odd, view.min_cpus
        multi = view.multi
        all_up = np.count_nonzero(up) == len(up)  # then a job's mask needs no masking
        failed: dict[tuple, float] = {}  # PendingJob.shape -> the shortest limit that failed
        extra = _PastReservations()  # the second test, with what it found (cleared on changes)
        begun: set[int] = set()  # (-p a,b: a job queued in several partitions starts once)
        throttles = ArrayThrottles(view)  # (%N: its tasks running, per array)
        for job in view.queue:
            if job.id in begun:
                continue
            if job.throttle is not None and throttles.full(job):  # (see Fifo.main_pass)
                d.reasons[job.id] = "JobArrayTaskLimit"
                continue
            if stale:  # (after a start, the pass may well end: no ranks computed in vain)
                cpus, mems, gpus = view.free_ranks(free)
                stale = False
            nodes = None
            # PendingJob.may_fit, inline (the loop's hottest test on long queues)
            c, need = job.count, job.need
            if job.spread is not None:  # (-n without -N: one node or several)
                mask = job.mask if all_up else job.mask & up
                if prof is None and late is None:
                    nodes = spread_nodes(free, job.request, mask, view.weights)
                else:
                    if prof is None:
                        prof, late = late.build(view.now), None
                    nodes = prof.spread_fits(job.request, mask, job.limit)
            elif (
                c <= len(cpus)
                and need[0] <= cpus[-c]
                and need[1] <= mems[-c]
                and need[2] <= gpus[-c]
            ):
                shape = job.shape
                shortest = failed.get(shape)
                if shortest is None or job.limit < shortest:
                    mask = job.mask if all_up else job.mask & up
                    if prof is None and late is None:
                        nodes = choose_nodes(free, capacity, job.request, mask, view.weights)
                    elif extra.delays(job):  # (so it does not fit in the profile either)
                        shape = None
                    elif prof is None and late.before(view.now, view.now + job.limit, free):
                        # the profile from now to its end holds what is free now, or more:
                        # it fits as on free (and with the plan out as well: no second test)
                        nodes = choose_nodes(free, capacity, job.request, mask, view.weights)
                    else:
                        if prof is None:
                            prof, late = late.build(view.now), None
                        nodes = prof.fits(job.request, mask, job.limit)
                        if nodes is None and len(capacity) > 1:
                            moved = extra.test(prof, plans, job, mask, view)
                            if moved == "delays":  # (a longer limit may pick other nodes)
                                shape = None
                            elif moved is not None:
                                nodes, prof = moved
                                failed.clear()  # reservations moved: failures may not hold
                                extra.clear()
                    if nodes is None and shape is not None:  # (no memo: shape None)
                        # before the first blocked job, any limit fails alike
                        failed[shape] = 0.0 if prof is None and late is None else job.limit
            if nodes is not None:
                usage = _take(free, job, view.capacity, nodes)
                stale = True
                if prof is not None:
                    prof.reserve(nodes, usage, view.now, view.now + job.limit, at=0)
                    extra.clear()
                elif late is not None:
                    late.start(view.now + job.limit, nodes, usage)
                else:
                    started.append((view.now + job.limit, nodes, usage))
                    started_ids.append(job.id)
                # out of priority order (backfilled) when a job of its partition waits ahead
                # and blocks it (behind only jobs a maintenance window keeps out, Slurm's
                # main scheduler, and FIFO's pass, would start it as well)
                by = "main"
                if job.partition in reserved and not (unblocked and job.partition in unblocked):
                    by = "backfill"
                d.starts.append(Start(job.id, nodes, by, job.partition))
                begun.add(job.id)
                throttles.start(job)
                continue
            if job.partition in reserved:
                if unblocked and job.partition in unblocked:  # (tried: it cannot start)
                    d.reasons[job.id] = "Resources"
                    if job.blocks:  # the first job that blocks its partition
                        unblocked.discard(job.partition)
                elif job.id in odd or (multi and job.id in d.reasons):
                    d.reasons[job.id] = "Priority"  # (-p a,b: see Fifo.main_pass)
                if (
                    (cpus[-1] if cpus else -1) < min_cpus
                    and len(reserved) >= view.partitions
                    and view.whole
                    and not multi  # (-p a,b: see Fifo.main_pass)
                ):
                    # nothing more can start: the rest wait their turn (the jobs not reached
                    # in a continued pass are new ones, which already do)
                    d.rest = "Priority" if view.resume is None else None
                    stopped = True
                    break
                continue
            reserved.add(job.partition)
            if not job.blocks:
                unblocked.add(job.partition)
            d.reasons[job.id] = "Resources"
            if prof is None and late is None:  # the profile's first plan
                prof, late, planned = self._first_plan(
                    view, job, free, started, started_ids, all_up
                )
            else:
                if prof is None:
                    prof, late = late.build(view.now), None
                planned = self.plan(prof, job, view, job.plan_mask if all_up else None)
            if planned is not None:
                plans.append([job, *planned])
                extra.clear()
                _plan(d, job.id, planned[0], planned[1])
        d.resume = None if stopped else (prof, reserved, plans, unblocked, late)
        d.complete = view.resume is None  # (a continued pass keeps the reservations it had)
        return d

    def _first_plan(self, view: QueueView, job: PendingJob, free, started, ids, all_up: bool):
        """Plan the first blocked job of a pass that has no profile yet: (profile, what
        builds it instead, planned as :meth:`plan` gives it).

        The profile is built and searched, unless the previous search of this job (kept in
        a :class:`_Shadow`) shows that this profile gives the same start and nodes: then the
        profile is built only when a later job needs it (many passes after a job's end need
        none: nothing else fits now)."""
        r = job.request
        if not (
            1 < len(free) < MERGE_FROM  # (a Profile: make_profile)
            and all_up
            and not view.blocked_windows
            and job.spread is None
            and not (r.exclusive or r.whole_memory or reads_free(r))
        ):
            prof = availability(view, free, started)
            return prof, None, self.plan(prof, job, view, job.plan_mask if all_up else None)
        ran = {x.id: (x.expected_end, x.nodes, x.usage) for x in view.running}
        ran.update(zip(ids, started))
        shadow = self.__dict__.get("_shadow")
        if shadow is not None and shadow.holds(job, view, free, ran):
            t, nodes = shadow.start, shadow.nodes
            usage = _usage(job, view.capacity, nodes)
            late = _Late(view, free, list(ran.values()), (nodes, usage, t, t + job.limit))
            return None, late, (t, nodes, usage)
        prof = make_profile(view.now, free, view.capacity, list(ran.values()), view.weights)
        mask = job.plan_mask
        found, note = prof.earliest_noted(r, mask, job.limit)
        if found is None:
            return prof, None, None
        i, t, nodes = found
        usage = _usage(job, view.capacity, nodes)
        prof.reserve(nodes, usage, t, t + job.limit, at=i)
        if note is not None:
            self._shadow = _Shadow(job, view, free.copy(), ran, t, nodes, note, node_bits(mask))
        return prof, None, (t, nodes, usage)

    @staticmethod
    def plan(prof: Profile, job: PendingJob, view: QueueView, mask=None) -> tuple | None:
        """Reserve the job's earliest start in ``prof``: (start, nodes, usage), or None.
        ``mask``: ``job.plan_mask & view.up``, when the caller has it."""
        if mask is None:
            mask = job.plan_mask & view.up
        found = _earliest(prof, job, mask, job.limit)
        if found is None:
            return None
        i, t, nodes = found
        usage = _usage(job, view.capacity, nodes)
        prof.reserve(nodes, usage, t, t + job.limit, at=i)
        return t, nodes, usage


class _Late:
    """EASY's profile while it is not built (:meth:`Easy._first_plan`): what builds it, as
    built at its pass's ``made`` and moved on to a later ``now`` (a continued pass)."""

    __slots__ = ("capacity", "first", "free", "made", "plan", "releases", "weights")

    def __init__(self, view: QueueView, free: np.ndarray, releases: list, plan: tuple):
        self.made, self.capacity, self.weights = view.now, view.capacity, view.weights
        self.free, self.releases, self.plan = free, releases, plan  # plan: nodes, usage, t, end
        self.first = min((end for end, *_ in releases), default=math.inf)  # (the first release)

    def before(self, now: float, end: float, free: np.ndarray) -> bool:
        """Whether the profile holds exactly ``free`` from ``now`` on and at least as much until
        ``end``: no job gives back its resources by ``now`` (its first interval holds
        ``free``, each later one more, up to the plan's start), ``end`` is not after the
        plan's start, and ``free`` is what it is built from (so a job whose window ends by
        then fits there as on ``free``; the pass's starts since are among the releases)."""
        if not (now < self.first and end <= self.plan[2] and now < self.plan[2]):
            return False
        if free is not self.free:  # (a continued pass: what the previous one left)
            if free.tobytes() != self.free.tobytes():
                return False
            self.free = free  # (its starts are taken from it)
        return True

    def start(self, end: float, nodes: tuple[int, ...], usage: np.ndarray) -> None:
        """A job starts now (taken from ``free`` already): as reserved from now, it gives its
        resources back at its ``end``."""
        self.releases.append((end, nodes, usage))
        self.first = min(self.first, end)

    def build(self, now: float) -> Profile:
        prof = make_profile(self.made, self.free, self.capacity, self.releases, self.weights)
        nodes, usage, t, end = self.plan
        prof.reserve(nodes, usage, t, end)
        if now != self.made:
            prof.advance(now)
        return prof


class _Shadow:
    """EASY's search for a blocked job's start (its *shadow time*), kept to show that a later
    pass's profile gives the same start and nodes without building it.

    The search was made in the profile ``P0`` of a pass at ``now0``: free resources
    ``free0`` and the jobs running (or started in that pass) ``ran0``, every node up, no
    advance reservation, the job first to plan (no reservation in it). It found start ``t0``
    (after ``now0``) on ``nodes``. The job's fit is its fit mask's (not exclusive,
    whole_memory nor reads_free: best fit then picks by the fitting nodes only). The same
    job (the same object: the same request, mask and limit) in a profile ``P`` of the same
    kind at ``now`` (``now0 <= now < t0``), of jobs ``ran``, gets the same start and nodes
    when (:meth:`holds`):

    1. ``free`` is ``free0`` plus what the jobs of ``ran0`` that are not in ``ran`` (same
       id, end and nodes), *E*, held, less what the jobs of ``ran`` not in ``ran0``, *B*,
       hold. Then from ``now`` on ``P`` is ``P0`` plus each E job's usage on its nodes until
       its end in ``P0``, less each B job's until its end in ``P``: the other jobs give
       back the same at the same instants (an end not after ``now0``, in ``P0``'s second
       interval at ``now0``, is at or before ``now`` in both).
    2. Every E job on a node of the job's mask ended in ``P0`` by ``t0``;
    3. the most nodes fitting throughout the window of any start ``P0`` tried before ``t0``
       plus the E jobs' nodes of the mask are fewer than the job needs;
    4. no B job on a node fitting throughout its window at ``t0`` in ``P0`` ends after
       ``t0``.

    Why. A start ``s < t0`` in ``P`` lies in an interval ``q`` of ``P0`` starting at or
    before it (from ``now >= now0`` on); its window reaches at least as far as ``q``'s.
    Off the E nodes ``P`` holds no more than ``P0``, so a node fitting throughout ``s``'s
    window in ``P`` fits throughout ``q``'s in ``P0``, or is an E node: by 3 too few nodes,
    so no start before ``t0`` fits. From ``t0`` on the mask's nodes hold in ``P`` what
    they hold in ``P0`` (2), less B jobs' usage: a node not fitting throughout the window in
    ``P0`` does not in ``P``, and one fitting does (4). So the nodes fitting throughout the
    window at ``t0`` are the same, and best fit picks the same nodes. And ``t0`` starts an
    interval of ``P``: else the interval of ``P`` holding it starts earlier, holds there
    what ``P`` holds at ``t0``, and the window from its start would have those same fitting
    nodes, enough for the job, against the above.
    """

    __slots__ = ("allowed", "clean", "free", "job", "most", "nodes", "note", "now", "ran",
                 "start", "weights")  # fmt: skip

    def __init__(self, job, view, free, ran, start, nodes, note, allowed):
        self.job, self.now, self.weights = job, view.now, view.weights
        self.free, self.ran = free, ran
        self.start, self.nodes, self.note, self.allowed = start, nodes, note, allowed
        self.most = self.clean = None  # (from the note, when first needed)

    def holds(self, job: PendingJob, view: QueueView, free: np.ndarray, ran: dict) -> bool:
        """Whether ``job`` gets this start and nodes in the profile of ``view`` (every node up,
        no advance reservation) with ``free`` and ``ran`` (see the class)."""
        now, t0 = view.now, self.start
        if job is not self.job or view.weights is not self.weights or not self.now <= now < t0:
            return False
        old = self.ran
        ended = [e for k, e in old.items() if _other(ran.get(k), e)]
        begun = [b for k, b in ran.items() if _other(old.get(k), b)]
        if not (ended or begun):
            return self.free.tobytes() == free.tobytes()  # (1)
        freed, now0, allowed = 0, self.now, self.allowed
        for end, nodes, _usage in ended:
            bits = nodes_bits(nodes) & allowed
            if bits:
                if max(end, now0) > t0:  # (2)
                    return False
                freed |= bits
        if freed or any(end > t0 for end, *_ in begun):
            if self.most is None:
                self.most, self.clean = noted_fits(self.note, job.limit)
            if self.most + freed.bit_count() >= job.count:  # (3)
                return False
            clean = self.clean
            for end, nodes, _usage in begun:  # (4)
                if end > t0 and nodes_bits(nodes) & clean:
                    return False
        expected = self.free.copy()  # (1)
        for _end, nodes, usage in ended:
            expected[_node_index(nodes)] += usage
        for _end, nodes, usage in begun:
            expected[_node_index(nodes)] -= usage
        return expected.tobytes() == free.tobytes()


def _other(entry: tuple | None, was: tuple) -> bool:
    """Whether a job's (end, nodes, usage) ``entry`` is not the one it ``was`` (None: gone)."""
    return entry is None or entry[0] != was[0] or entry[1] != was[1]


class _PastReservations:
    """EASY's second test, over one pass: a job that does not fit in the profile (where the
    pass's reservations hold the nodes planned for them) may still start now if it fits
    with the reservations taken out and each of them, in order, can then still start when
    planned, on some nodes. (A reservation cannot start earlier than planned: it was placed
    at its earliest, and the profile has only filled since.)

    In a deep queue the pass asks it of many jobs, most of them alike. While the profile and
    the plans stay as they were (the pass calls :meth:`clear` at every start, plan and
    move), it keeps the profile with the reservations out (built once, not once per job)
    and each request found to delay a reservation, with its limit (:meth:`delays`): the
    answer reads only that profile, the plans and the job (the fields :meth:`_key` names,
    and its mask less the pass's down nodes), and changes nothing, so the same request at
    the same limit gets it again.

    A longer limit need not get it, though resources only shrink. It does while the limit
    ends in the same interval of the profile with the reservations out (the job's window
    then holds the same intervals, and each reservation placed again starts and ends at
    times of that profile, so its window holds all of the interval the job ends in or none
    of it); that case is not kept, as in deep queues it gave nothing the same limit did not.
    A limit ending later may give the job other nodes (where its window meets an advance
    reservation, unless its mask leaves those out, as the engine's masks do), or hold its
    nodes where a reservation starts; the reservations, placed again one by one by best
    fit, need not fail alike then: one pushed to other nodes may leave room for a later one.
    Random passes give such cases for the first; none were found for the second, but no
    rule shows there are none.
    """

    __slots__ = ("_delays", "_out")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self._out: Profile | None = None  # the profile with the reservations out
        # _key(job) -> a job that delays a reservation (held: the ids stay its own)
        self._delays: dict[tuple, PendingJob] = {}

    @staticmethod
    def _key(job: PendingJob) -> tuple:
        """What the test reads of a job: its ``shape`` (partition, need, node count, mask and
        reach by id, exclusive), its limit, ``mem_per_cpu`` (which shape leaves out: it
        changes which nodes best fit picks, not whether any fit) and its demand and rows by
        id."""
        return job.shape, job.limit, job.mem_per_cpu, id(job.demand), id(job.rows)

    def delays(self, job: PendingJob) -> bool:
        """Whether the job is known to delay a reservation (so it does not fit in the
        profile either)."""
        return self._key(job) in self._delays

    def test(self, prof: Profile, plans: list[list], job: PendingJob, mask, view: QueueView):
        """(The job's nodes, the profile with the reservations back, some perhaps on other
        nodes), with ``plans`` updated; else nothing changes and it returns None when the job
        does not fit even with the reservations out (nor would it with a longer limit), or
        "delays" when it would delay one."""
        if not plans or any(t < view.now for _job, t, *_ in plans):
            return None  # (a plan already due: left where it is)
        capacity, now, limit = view.capacity, view.now, job.limit
        out = self._out
        if out is None:
            out = self._out = prof.copy()
            for other, t, taken, usage in plans:
                out.reserve(taken, -usage, t, t + other.limit)
        nodes = out.fits(job.request, mask, limit)
        if nodes is None:
            return None
        trial = out.copy()
        usage = _usage(job, capacity, nodes)
        trial.reserve(nodes, usage, now, now + limit, at=0)
        moved = []
        for other, t, *_ in plans:
            at = bisect_right(trial.times, t) - 1  # (the last interval starting at t)
            on = other.plan_mask & view.up
            if other.spread is not None:
                new = trial.spread_fits(other.request, on, other.limit, at=at)
            else:
                new = trial.fits(other.request, on, other.limit, at=at)
            if new is None:  # it would delay this reservation
                self._delays[self._key(job)] = job
                return "delays"
            taken = _usage(other, capacity, new)
            trial.reserve(new, taken, t, t + other.limit, at=at)
            moved.append((new, taken))
        for entry, (new, taken) in zip(plans, moved):
            entry[2:] = [new, taken]
        # the job out again: the caller takes it in with its start, as any other start
        trial.reserve(nodes, -usage, now, now + limit, at=0)
        return nodes, trial


@dataclass
class Conservative(Easy):
    """EASY with a reservation for every pending job: no job is ever delayed by a later one.

    Each pass keeps the standing schedule: every job's reservation from the previous
    pass goes back into the profile, then, in priority order, each job is taken out and
    put back at its earliest fit -- never later than it was, since its old slot is still
    free (Mu'alem & Feitelson's *compression* when jobs end early, in the order pyss's
    ConservativeScheduler compresses: a hole a job leaves goes to the first job in
    priority order that fits it, not to the one reserved earliest; see
    ``Profile.replan``, which on a one-node pool leaves a job that cannot start earlier
    where it is, the same outcome without the two profile updates). Jobs
    without a reservation yet (new ones) then get the earliest slot that delays nobody,
    in priority order. Jobs whose slot is now start now.

    A job whose planned start has passed (a running job ahead of it ran past its time
    limit: traces replay run times as they are, OverTimeLimit=UNLIMITED; Mu'alem &
    Feitelson's jobs never overrun) has lost its reservation: it is placed again among the
    jobs without one, after the standing reservations, which may then overtake it. Keeping
    it ahead (placing it first and moving the reservations it breaks) was tried: it gave the
    priority order, but on the LANL trace, where a third of the jobs overrun, it took 3.7x
    as long (388 s against 105 s) and doubled the mean wait of its first 15,000 jobs.

    A job whose request changed (``scontrol update``, ``PendingJob.updated``) is placed
    again in its priority order among the standing reservations, at its earliest fit that
    delays none of them: it keeps its precedence over the jobs behind it, and takes only
    room none of their reservations holds.

    Under preempt/qos a job that preempted others for room (``PendingJob.preempting``) is
    placed first, before the reservations standing when it arrived: the room its victims
    free is meant for it (left to a reservation made earlier, it would preempt again).

    A job that may spread over nodes (``-n`` without ``-N``: ``PendingJob.spread``) is placed
    where ``spread_nodes`` puts it (one node or several) at its earliest fit
    (``Profile.spread_earliest``), its standing reservation taken out and placed again so;
    found at its own start on the same nodes, it keeps its tasks per node as they were
    (``_replan_spread``: a plan stands as its start and nodes).

    After arrivals only, a job whose window no change of the profile reached since its
    own search (see ``_undisturbed``) keeps its place without a new search: the search
    would find the same start and nodes. On the teaching workload that skips 45 % of the
    searches; the plans are those of a full recomputation (tests compare both). Such a
    pass also starts from the profile the previous one left, its reservations in place,
    when that is the profile it would build (``_left_profile``).

    On multi-node clusters each reservation holds the nodes best fit gave it, as Maui's and
    Slurm's reservations do: a later job is not slipped in by moving an earlier reservation
    to other nodes at the same start (EASY does that for its one reservation per
    partition; for every reservation it would be a search over node sets). So a job may
    wait where another choice of nodes would have delayed no one, and an array's tasks
    may start out of index order (a later task's nodes free up first; Slurm, which plans
    an array's pending tasks as one record, starts them in order).
    """

    name: str = "conservative"
    #: a pass after arrivals only still sees every job (it recomputes the whole plan),
    #: with what changed in the profile during the previous pass (see below)
    resume_whole_queue: ClassVar[bool] = True
    #: jobs that start now before any reservation stands start without a profile (below;
    #: tests switch it off to compare)
    _eager: ClassVar[bool] = True

    def schedule(self, view: QueueView) -> Decision:
        d = Decision()
        now, capacity, up = view.now, view.capacity, view.up
        all_up = np.count_nonzero(up) == len(up)  # then a job's mask needs no masking
        # After arrivals only, the profile is the one the previous pass left, and ``since``
        # holds the changes that pass made to it, in order, and how many came before each
        # job's placement: a job none of whose later changes reach its window keeps its
        # place without a search (see _undisturbed).
        # (-p a,b: a job's records other than the one holding its standing plan are placed
        # with the new jobs, after the standing plans, so a skip could see a profile a full
        # pass would not: no searches are skipped while such a job is queued)
        since = None if view.multi else view.resume
        kept, fresh = [], []  # (planned start, position, job, nodes, usage); (position, job)
        # preempt/qos: a job that preempted others for room is placed first, before the
        # reservations standing when it arrived, so that it gets the room its victims free
        # (PendingJob.preempting); a pass that has one skips no search
        urgent: list[tuple[int, PendingJob]] = []
        for n, job in enumerate(view.queue):
            if job.preempting:
                urgent.append((n, job))
                continue
            if job.updated:  # its request changed: placed again in its order (no nodes)
                kept.append((now, n, job, None, None))
                continue
            plan = job.planned
            if plan is not None and plan[0] >= now:
                t, nodes = plan
                kept.append((t, n, job, nodes, _usage(job, capacity, nodes)))
            else:
                fresh.append((n, job))
        if urgent:
            since = None
        # Before the first job that does not start now, with no reservation standing (none
        # kept, none urgent, no advance reservation), the profile only rises with time: each
        # job's earliest fit is now, on the nodes best fit gives it in what is free now, or
        # later. Those jobs start without a profile being built (a pass on a large cluster
        # builds one of every running job's end on every node: thousands of nodes made an
        # under-loaded run 150 times slower than EASY); the rest is placed as below.
        started_now: list[tuple[int, PendingJob, tuple, float, np.ndarray]] = []
        free = None
        if self._eager and not (kept or urgent or view.multi or view.blocked_windows):
            free = view.free.copy()
            early = ArrayThrottles(view)  # (placed() counts them again, below)
            for n, job in fresh:
                if not 0 < job.limit < math.inf:  # (a reservation of no length holds
                    break  # nothing, one without end is never released: placed below)
                if job.throttle is not None and early.full(job):
                    break  # (%N: it waits for JobArrayTaskLimit, below)
                mask = job.plan_mask if all_up else job.plan_mask & up
                if job.spread is not None:  # (-n without -N: one node or several)
                    nodes = spread_nodes(free, job.request, mask, view.weights)
                else:
                    nodes = choose_nodes(free, capacity, job.request, mask, view.weights)
                if nodes is None:
                    break
                usage = _take(free, job, capacity, nodes)
                started_now.append((n, job, nodes, now + job.limit, usage))
                early.start(job)
            fresh = fresh[len(started_now) :]
        # After arrivals only, the profile the previous pass left is this pass's, its
        # reservations already in place (see _left_profile); else one is built (also when
        # none stands: then jobs may have started above, which that profile lacks)
        prof = None if since is None or not kept else _left_profile(since[2], view, kept)
        left = prof is not None
        if not left and (fresh or kept or urgent):  # (none is needed when all start now)
            prof = availability(view, free, [(t, ns, u) for _n, _j, ns, t, u in started_now])
        found_urgent = self._place_first(urgent, prof, view, all_up)
        if not left:
            for t, _n, job, nodes, usage in kept:
                if nodes is not None:
                    prof.reserve(nodes, usage, t, t + job.limit)
        if kept and not prof.valid():  # nodes failed or shrank under the plan: plan again
            prof = availability(view)
            found_urgent = self._place_first(urgent, prof, view, all_up)
            fresh = sorted([(n, job) for _t, n, job, _nodes, _u in kept] + fresh)
            kept = []
            since = None
        waiting: list[tuple[int, PendingJob, None]] = []  # jobs given a future start
        starting: list[tuple[int, PendingJob, tuple]] = []  # jobs starting now (..., nodes)
        # The pass is recomputed even after arrivals only (no continuing from a job on, as
        # fifo and easy do): a second compression of an unchanged plan can still move a job
        # earlier, and a reservation added after a job was placed can change which nodes
        # best fit gives it. What may be skipped is the search of one job (see below).
        changes: list[tuple[float, float, bool]] = []  # (start, end, freed) in this pass
        before: dict[int, int] = {}  # job id -> the changes made before its placement

        begun: set[int] = set()  # (-p a,b: a job queued in several partitions starts once)
        # %N: a task reached once its array's running tasks, with those starting in this
        # pass, fill the throttle is not placed (no reservation either) and waits for
        # JobArrayTaskLimit, as Slurm's backfill skips it (job_array_start_test)
        throttles = ArrayThrottles(view)

        # the reservations the profile holds at the end of the pass, and whether it holds
        # them as the next pass would put them back (see _left_profile)
        plans: dict[int, tuple[float, tuple[int, ...]]] = {}
        exact = prof is not None and not (urgent or view.multi or view.blocked_windows)

        def placed(n: int, job: PendingJob, found) -> None:
            nonlocal exact
            if found is None:
                d.reasons[job.id] = "Resources"
                return
            i, t, nodes = found
            if job.limit <= 0:  # (a reservation of no length holds its interval, whatever
                exact = False  # its length: profiles with other breakpoints differ there)
            if t <= now and i == 0:
                starting.append((n, job, nodes))
                begun.add(job.id)
                throttles.start(job)
                return
            waiting.append((n, job, None))
            if job.id not in d.planned or t < d.planned[job.id]:  # (-p a,b: the earliest)
                d.planned[job.id] = t
                d.planned_nodes[job.id] = nodes
            plans[job.id] = (t, nodes)

        for n, job, found in found_urgent:
            if job.throttle is not None and throttles.full(job):  # (its room goes unused)
                _unplace(prof, job, found, view, d, changes)
                continue
            if job.id not in begun:
                if found is not None:
                    changes.append((found[1], found[1] + job.limit, False))
                before[job.id] = len(changes)
                placed(n, job, found)
        kept.sort(key=itemgetter(1))  # in priority order (compression)
        for t, n, job, nodes, usage in kept:
            if job.throttle is not None and throttles.full(job):  # its reservation goes
                _unplace(prof, job, (-1, t, nodes) if nodes else None, view, d, changes)
                continue
            if nodes is None:  # (PendingJob.updated) its earliest fit that delays no one
                found = _reserve_earliest(prof, job, view, all_up)
                if found is not None:
                    changes.append((found[1], found[1] + job.limit, False))
                before[job.id] = len(changes)
                placed(n, job, found)
                continue
            if (
                since is not None
                and t > now
                and job.id in since[1]
                and _undisturbed(t, t + job.limit, since[0][since[1][job.id] :], changes)
            ):
                placed(n, job, (-1, t, nodes))  # it stays: its search would find the same
                before[job.id] = len(changes)  # (and counts as searched here, from now on)
                continue
            if job.spread is not None:  # (out, then back in at its earliest, as Slurm places it)
                found = _replan_spread(prof, job, view, all_up, t, nodes, usage)
            else:
                on = job.plan_mask if all_up else job.plan_mask & up
                found = prof.replan(job.request, on, job.limit, t, nodes, usage)
            if found is None or found[1] != t or found[2] != nodes:
                changes.append((t, t + job.limit, True))  # its old slot, freed
                if found is not None:
                    changes.append((found[1], found[1] + job.limit, False))
            before[job.id] = len(changes)
            placed(n, job, found)
        for n, job, nodes, _end, _taken in started_now:  # (as the loop below places them)
            changes.append((now, now + job.limit, False))
            before[job.id] = len(changes)
            placed(n, job, (0, now, nodes))
        for n, job in fresh:  # then jobs without a reservation, in priority order
            if job.id in begun:
                continue
            if job.throttle is not None and throttles.full(job):
                d.reasons[job.id] = "JobArrayTaskLimit"
                continue
            found = _reserve_earliest(prof, job, view, all_up)
            if found is not None:
                changes.append((found[1], found[1] + job.limit, False))
            before[job.id] = len(changes)
            placed(n, job, found)
        # In priority order (new jobs were placed after the standing ones): the first job of
        # a partition left waiting waits for Resources, the later ones for Priority, and a job
        # starting behind one of them is backfilled (started out of priority order). Jobs
        # that block nothing (PendingJob.blocks: a maintenance window keeps them out) leave
        # the later ones to wait for Resources too, until one that blocks, and a job
        # starting behind only such jobs is not backfilled (FIFO's pass starts it too).
        blocking: set[str] = set()  # partitions with a job left waiting that blocks
        for _n, job, nodes in sorted(waiting + starting, key=itemgetter(0)):
            if nodes is not None:  # starting (waiting jobs carry no nodes here)
                by = "backfill" if job.partition in blocking else "main"
                d.starts.append(Start(job.id, nodes, by, job.partition))
                continue
            if job.partition in blocking:
                d.reasons[job.id] = "Priority"
            else:
                d.reasons[job.id] = "Resources"
                if job.blocks:
                    blocking.add(job.partition)
        left = _Left([prof], plans, prof.free_now()) if exact else None
        d.resume = (changes, before, left)
        d.complete = True  # every queued job was placed again, or found no place
        return d

    @staticmethod
    def _place_first(urgent, prof, view: QueueView, all_up: bool) -> list:
        """Place the jobs waiting for the room their preemption frees (in priority order)
        before anything else: [(position, job, earliest found or None)]. (-p a,b: a job's
        first record that starts now is its only one placed.)"""
        out, now, starting = [], view.now, set()
        for n, job in urgent:
            if job.id in starting:
                continue
            found = _reserve_earliest(prof, job, view, all_up)
            if found is not None and found[1] <= now and found[0] == 0:
                starting.add(job.id)
            out.append((n, job, found))
        return out


class _Left(NamedTuple):
    """What a conservative pass leaves for the next one after arrivals only: its profile
    (in a list, taken once), the reservations it holds ({job id: (start, nodes)}) and what
    is free at its first instant (what is free now, once the pass's jobs have started)."""

    prof: list[Profile]
    plans: dict[int, tuple[float, tuple[int, ...]]]
    free: np.ndarray


def _left_profile(left: _Left | None, view: QueueView, kept: list) -> Profile | None:
    """The profile the previous pass left, from ``now`` on, when it is the one this pass
    would build (running jobs' ends, advance reservations) with the standing reservations
    ``kept`` ((start, position, job, nodes, usage) each) put back; else None.

    After arrivals only no job ended and no node changed (``QueueView.resume``); the jobs
    that pass started now run from its instant to their limits, which it held as
    reservations (checked: what is free now is what it left free then, so none of them was
    refused), and it holds exactly the reservations that stand now, on the same nodes.
    Its breakpoints may differ from a new profile's (a job that moved left its old slot's
    edges; the intervals before ``now`` are dropped): an extra breakpoint has the same free
    resources on both sides, so every search finds the same start and nodes there (a start
    at it fits, on the same nodes, at the breakpoint before it, which comes first).
    """
    if left is None or not left.prof or view.blocked_windows:
        return None
    prof = left.prof.pop()  # (a profile changes as a pass uses it: only one may)
    plans = left.plans
    if len(kept) != len(plans) or not np.array_equal(view.free, left.free):
        return None
    for t, _n, job, nodes, _usage in kept:
        if plans.get(job.id) != (t, nodes):  # (None: its request changed, or it is new)
            return None
    prof.advance(view.now)
    return prof


def _unplace(prof: Profile, job: PendingJob, found, view: QueueView, d: Decision, changes) -> None:
    """Conservative: take a task its array's ``%N`` holds back out of ``prof`` (``found``: the
    (interval, start, nodes) it holds there, or None), with no plan; it waits for
    JobArrayTaskLimit."""
    d.reasons[job.id] = "JobArrayTaskLimit"
    if found is not None:
        _i, t, nodes = found
        prof.reserve(nodes, -_usage(job, view.capacity, nodes), t, t + job.limit)
        changes.append((t, t + job.limit, True))  # (its slot, freed)


def _earliest(
    prof: Profile, job: PendingJob, mask: np.ndarray, limit: float, not_before: float | None = None
):
    """The job's earliest fit in ``prof`` for ``limit`` seconds on ``mask``: (interval index,
    start, nodes), or None; ``not_before``: no fit starts earlier (the search begins there).
    A job that may spread over nodes (``-n`` without ``-N``) is placed as Slurm places it
    (:meth:`Profile.spread_earliest`: one node or several), searched from the start."""
    if job.spread is not None:
        return prof.spread_earliest(job.request, mask, limit)
    return prof.earliest(job.request, mask, limit, not_before=not_before)


def _ends(view: QueueView) -> tuple[list[float], list[int], set]:
    """The running jobs' expected ends, sorted (cons_common/job_test.c
    ``_cr_job_list_sort``), the nodes each holds as a bitmask (:func:`nodes_bits`), and the
    ends as a set: (ends, held, ends). (A handful of running jobs: Python's lists and ints
    cost a fraction of numpy's calls on arrays that small.)"""
    running = sorted(view.running, key=lambda r: r.expected_end)
    ends = [float(r.expected_end) for r in running]
    if len(view.capacity) == 1:  # (a one-node pool: every running job holds it)
        held = [1] * len(running)
    else:
        held = [nodes_bits(tuple(r.nodes)) for r in running]
    return ends, held, set(ends)


#: cons_common/job_test.c ``_will_run_test``: the first batch's window (``time_window``)
WILL_RUN_WINDOW = 30.0
#: (nodes, node count) -> a mask of those nodes alone (:func:`_fit_now`'s window test)
_ONLY: dict[tuple, np.ndarray] = {}
_ONLY_MAX = 4096  # (emptied when full)


def _record_start(space: NodeSpace, t: float) -> float | None:
    """The start of the map's record holding ``t`` (where backfill.c's try holding ``t``
    is made from), None beyond the map."""
    return space.times[bisect_right(space.times, t) - 1] if t < space.end else None


def _try_nodes(
    space: NodeSpace, bits: int, t: float, limit: float, blocked, start: float | None
) -> int:
    """The nodes of ``bits`` (a bitmask, :func:`node_bits`) backfill.c's try holding ``t``
    may use (``avail_bitmap``), as a bitmask: free of plans in the map from ``start``, the
    start of the record holding ``t`` (:func:`_record_start`), for the job's limit, and of
    the advance reservations overlapping that window (``blocked``, as (start, end, node
    bits): job_test_resv takes them out; the will-run test then skips the running jobs on
    them). Beyond the map (``start`` None), the reservations alone."""
    start = t if start is None else start
    return space.free_of(bits, start, start + limit, blocked)[0]


def _will_run(prof: Profile, job: PendingJob, mask, usable: int, limit: float, found, cycle, epoch):
    """Move a planned start ``found`` (interval index, start, nodes: the first moment the job
    fits in the cycle's profile) to where Slurm's will-run test puts it, on the nodes best
    fit there; ``found`` unchanged when the job does not fit there. A start that is no
    running job's end goes to :func:`_fit_now` (its nodes only may change).

    Slurm (22.05): backfill.c ``_attempt_backfill`` tries a job from ``start_res`` (now,
    then TRY_LATER the end of a ``node_space`` record) with ``avail_bitmap`` the nodes no
    record reserves from ``start_res`` to ``start_res`` + its limit, and ``_try_sched``
    calls ``select_g_job_test(SELECT_MODE_WILL_RUN)``, cons_common/job_test.c
    ``_will_run_test``, on them. That test sees only running jobs (not the reservations):
    if the job fits now, it starts now; else it sorts the running jobs that hold any of
    those nodes (``bit_overlap_any``; the others are skipped) by ``end_time``
    (``_cr_job_list_sort``: the expected end, ``_guess_job_end`` for one past it) and takes
    them out of a copy of the node usage in batches. ``end_time`` is the first one's end
    rounded *up* to the next multiple of 30 epoch seconds (``+ time_window - delta``, a
    whole 30 s when it is one already); a batch takes jobs while the next ends by
    ``end_time + time_window``, and ``time_window`` (30 s) then doubles until the next job
    ends within it (``bf_window_scale`` unset). After each batch the job is tested with the
    normal node selection (``_job_test``, best fit on the then-free resources); when it
    fits, its start is the end of the batch's last job (``last_job_ptr->end_time``), on the
    nodes chosen then. backfill.c keeps the later of that and ``start_res``, tries again
    later when it is past ``later_start`` or overlaps a reservation
    (``_test_resv_overlap``), and reserves from it rounded down to ``bf_resolution``.

    Here: the first moment the job fits (``found``) is in the batch that first frees room
    for it, so its start is the end of the batch (:func:`_will_run_batches`: cut on the
    whole end-sorted list, this cycle's starts among the running jobs) that takes out a job
    ending then on the try's nodes ``usable`` (:func:`_try_nodes`, as a bitmask: those of
    ``mask`` the reservations and the advance reservations leave free from the start of the
    map's record holding that moment for the job's limit); ``epoch``
    (:attr:`QueueView.epoch`) puts the simulation's clock on epoch seconds. The nodes are
    the best fit there in the profile (reservations held). A first fit that is no running
    job's end (a reservation's end: backfill.c's TRY_LATER) keeps its time, on the nodes
    :func:`_fit_now` gives (``cycle``: the :class:`_Cycle`, its map, the running jobs' ends
    and what is free now)."""
    t = found[1]
    e, held, known = cycle.ends
    if t not in known:  # (no running job ends then: a try at a map record's edge)
        return _fit_now(prof, job, mask, usable, limit, found, cycle, epoch)
    if e[-1] <= t:  # (no running job ends after t: the batch ends at t)
        return found
    k = bisect_left(e, t)  # (the jobs ending at t: one on the try's nodes? bit_overlap_any)
    while k < len(e) and e[k] == t and not held[k] & usable:
        k += 1
    if k == len(e) or e[k] != t:
        return found
    ends = cycle.batches_on(usable, epoch)
    k = bisect_left(ends, t)
    if k == len(ends):
        return found
    last = ends[k]  # (the batch taking out the job ending at t)
    at = bisect_right(prof.times, last) - 1
    if last <= t or prof.times[at] != last:
        return found
    fits = prof.fits if job.spread is None else prof.spread_fits
    nodes = fits(job.request, mask, limit, at=at)
    return found if nodes is None else (at, last, nodes)


def _fit_now(prof: Profile, job: PendingJob, mask, on: int, limit: float, found, cycle, epoch):
    """The nodes of a start ``found`` at the edge of a map record (a try of backfill.c's
    TRY_LATER, no running job's end): ``_will_run_test`` first tests the job on the
    resources the running jobs leave free *now* (``_job_test``, SELECT_MODE_RUN_NOW) over
    the try's nodes ``on`` (those no plan holds from the record holding the start for the
    job's limit: :func:`_try_nodes`); when it fits there, those are its nodes and backfill.c
    keeps the try's time as its start. So a job planned after another's reservation goes to
    the node tightest now, not to the best fit once the running jobs have ended (real Slurm:
    ``preempt-gpu``).
    When it does not fit now, the test takes the running jobs on the try's nodes out in
    batches of their ends (:func:`_batch_nodes`): the nodes are those best fit after the
    first batch that frees room for it, the nodes of the earliest-ending jobs, not the best
    fit once every running job has ended (real Slurm: ``node-range``'s long on gpu[3-4],
    freed first). ``found`` unchanged when no batch ending by the try's time frees room for
    it, or when the nodes chosen are not free for its window in the profile (an advance
    reservation)."""
    t = found[1]
    space = cycle.space
    if t >= space.end or len(prof.times) < 2 or len(mask) == 1:  # (one node: its own)
        return found
    fits = prof.fits if job.spread is None else prof.spread_fits
    nodes = None
    if cycle.fits_now(job):  # (most cycles of a busy machine: not on what is free now)
        # what the running jobs (this cycle's starts among them) leave free now, as the
        # test's future_usage: not the profile's first interval, where a reservation whose
        # start rounds down to now or before already holds its nodes
        nodes = _select(job, cycle.running_alone(), bits_mask(on, len(mask)))
    if nodes is None:
        nodes = _batch_nodes(cycle, prof, job, on, t, epoch)
    if nodes is None or nodes == found[2]:
        return found
    only = _ONLY.get((nodes, len(mask)))  # (kept: a profile knows a mask by its id)
    if only is None:
        if len(_ONLY) >= _ONLY_MAX:
            _ONLY.clear()
        only = _ONLY[(nodes, len(mask))] = bits_mask(nodes_bits(nodes), len(mask))
    i = found[0]
    again = fits(job.request, only, limit, at=i)
    return found if again is None else (i, t, again)


def _batch_nodes(cycle, prof, job: PendingJob, on: int, t: float, epoch):
    """The nodes cons_common/job_test.c ``_will_run_test`` picks for ``job`` on ``on``
    (the try's ``avail_bitmap``, as a bitmask) when it does not fit now,
    or None when the batch that frees room for it ends after ``t`` (the try's time;
    backfill.c would then keep that later start) or none does.

    The test sees the running jobs only (``future_usage``: no plan, no reservation; the
    jobs this cycle started are running jobs too, :meth:`_Cycle.start`) and takes them out
    in the batches :func:`_will_run_batches` makes; after each it tests the job at that
    moment (``_job_test``: best fit on what is then free on ``usable``), and the first fit
    gives its nodes. What is free after a batch ending at ``last`` is what every running
    job ending by ``last`` leaves (a batch cut between jobs ending in the same second, whose
    order Slurm's ``list_sort`` leaves open, is taken whole). The answer depends on the
    request and the nodes only, so a cycle's run keeps the walk's per both."""
    ends = cycle.batches_on(on, epoch)
    base = _snapshots(cycle, prof, ends)
    if base is not None:
        last, nodes = _pick(ends, job, on, prof, base)
    else:  # (the walk, kept per request and nodes: numpy node selection, batch by batch)
        key = (job.shape, job.mem_per_cpu, on)
        hit = cycle.walked.get(key)
        if hit is None:
            usable = bits_mask(on, len(prof.capacity))
            hit = cycle.walked[key] = _walk(ends, job, usable, cycle.running_alone())
        last, nodes = hit
    return None if last > t else nodes


def _will_run_batches(e: list[float], held: list[int], on: int, epoch: float) -> list[float]:
    """The ends of ``_will_run_test``'s batches after which it tests the job, from the
    running jobs' ends ``e`` (sorted: ``_cr_job_list_sort``) and nodes ``held`` (bitmasks),
    on the try's nodes ``on``; ``epoch`` puts the clock on epoch seconds.

    job_test.c: a job holding none of ``on`` is skipped (``bit_overlap_any``); the first
    job taken out sets ``end_time``, its end rounded up to the next multiple of 30 epoch
    seconds (a whole 30 s when it is one already); after each job taken out the batch goes
    on while the *next job of the whole list* (``list_peek_next``, on ``on`` or not) ends
    by ``end_time + time_window``, and ``time_window`` (30 s) then doubles until that next
    job ends within it (``bf_window_scale`` unset). A batch of more than 201 jobs goes on
    into the next without a test (``rm_job_cnt++ > 200``: ``goto timer_check``)."""
    out: list[float] = []
    n, k = len(e), 0
    barrier = None
    window = WILL_RUN_WINDOW
    while k < n:
        last, removed, tested = None, 0, True
        while k < n:
            end = e[k]
            k += 1
            if not held[k - 1] & on:
                continue  # (job has no usable nodes: skip it)
            if barrier is None:
                barrier = end + WILL_RUN_WINDOW - (end + epoch) % WILL_RUN_WINDOW
            last = end
            if k == n or e[k] > barrier + window:
                break
            if removed > 200:
                tested = False
                break
            removed += 1
        if last is None:
            break
        if tested:
            out.append(last)
            window *= 2
            while k < n and e[k] > barrier + window:
                window *= 2
    return out


def _snapshots(cycle, prof, ends: list[float]):
    """The base profile whose intervals at ``ends`` are what the running jobs leave free
    then (a :class:`PlanProfile`'s ``base``: the running jobs, this cycle's starts, no
    plan), or None where it is not: a profile of another kind, one that became whole, a
    cycle with advance reservations (the base holds them; the test does not), or a batch
    ending by now (the base releases every job past its end at once)."""
    if type(prof) is not PlanProfile or prof._whole is not None or cycle.windows:
        return None
    base = prof.base
    if ends and ends[0] <= base.times[0]:
        return None
    return base


def _pick(ends: list[float], job: PendingJob, on: int, prof, base) -> tuple:
    """:func:`_batch_nodes` from the base profile's intervals at the batches' ends: for a
    request best fit places without reading free amounts, the base's fit mask there (ints,
    kept per request) on ``on`` and the pick kept per fitting nodes
    (:func:`~slurmlab.policies.profile._best_fit_bits`); for others node selection on the
    interval's free resources over ``on``. (last end, nodes) of the first batch giving
    nodes, or (inf, None)."""
    request = job.request
    bits = usable = None
    if job.spread is None and not (request.exclusive or reads_free(request)):
        bits = prof._fit_bits(request)
    if bits is None:
        usable = bits_mask(on, len(base.capacity))
    times, count = base.times, request.count
    for last in ends:
        b = bisect_right(times, last) - 1
        if bits is not None:
            clean = bits[b] & on
            if clean.bit_count() < count:
                continue
            nodes = _best_fit_bits(clean, request, base.weights)
        elif job.spread is None:
            nodes = choose_nodes(base.free[b], base.capacity, request, usable, base.weights)
        else:
            nodes = spread_nodes(base.free[b], request, usable, base.weights)
        if nodes is not None:
            return last, nodes
    return math.inf, None


def _walk(ends: list[float], job: PendingJob, usable: np.ndarray, alone) -> tuple:
    """:func:`_batch_nodes` by taking the running jobs (:attr:`_Cycle.alone`) out of what
    is free now, batch by batch: (the last end of the first batch after which ``job``
    fits, its nodes then), or (inf, None)."""
    free, capacity, weights, releases = alone
    free, n = free.copy(), 0
    for last in ends:
        while n < len(releases) and releases[n][0] <= last:  # (job_res_rm_job)
            _end, held_nodes, usage = releases[n]
            free[held_nodes] += usage
            n += 1
        nodes = _select(job, (free, capacity, weights), usable)
        if nodes is not None:
            return last, nodes
    return math.inf, None


def _select(job: PendingJob, alone: tuple, usable: np.ndarray):
    """Node selection for ``job`` on ``usable`` over what ``alone`` (free, capacity, Weights,
    ...: :attr:`_Cycle.alone`) leaves free: the will-run test's ``_job_test``."""
    free, capacity, weights = alone[:3]
    if job.spread is None:
        return choose_nodes(free, capacity, job.request, usable, weights)
    return spread_nodes(free, job.request, usable, weights)


def _reserve_earliest(prof: Profile, job: PendingJob, view: QueueView, all_up: bool):
    """Reserve ``job`` at its earliest fit in ``prof`` (on the up nodes its plans may use);
    return that (interval index, start, nodes), or None when it never fits."""
    mask = job.plan_mask if all_up else job.plan_mask & view.up
    found = _earliest(prof, job, mask, job.limit)
    if found is not None:
        i, t, nodes = found
        prof.reserve(nodes, _usage(job, view.capacity, nodes), t, t + job.limit, at=i)
    return found


def _replan_spread(prof: Profile, job: PendingJob, view: QueueView, all_up: bool, t, nodes, usage):
    """Compress the standing reservation of a job that may spread (``-n`` without ``-N``):
    take its ``usage`` on ``nodes`` from ``t`` out and put it back where
    :meth:`Profile.spread_earliest` puts it; return that (interval index, start, nodes).

    Found at its own start on the same nodes, it stays as it was, its usage on each node too
    (as :meth:`Profile.replan` leaves a job it finds where it was): a plan is kept from pass
    to pass as its start and nodes (``PendingJob.planned``), which a new dealing of the
    tasks alone would not change, so the next pass would put the old usage back beside room
    this one gave to others, overcommitting the nodes (a plan no longer valid is recomputed
    from scratch: jobs ahead then take standing reservations' slots)."""
    prof.reserve(nodes, -usage, t, t + job.limit)
    found = _reserve_earliest(prof, job, view, all_up)
    if found is None or found[1] != t or found[2] != nodes:  # (the same tuple, rows aside)
        return found
    i, _t, new = found  # it stays: its old usage back in place of the new one
    back = usage - _usage(job, view.capacity, new)
    if back.any():
        prof.reserve(nodes, back, t, t + job.limit, at=i)
    return i, t, nodes


def _running_alone(view: QueueView, begun: list) -> tuple:
    """What the will-run test starts from (:attr:`_Cycle.alone`): (free now, capacity,
    Weights, each running job's (end, nodes as a list, usage) sorted by end, the jobs this
    cycle started (``begun``) among them)."""
    releases = sorted(
        ((float(r.expected_end), list(r.nodes), r.usage) for r in view.running), key=itemgetter(0)
    )
    free = view.free
    if begun:
        free = free.copy()
        for _end, nodes, usage in begun:  # (taken since the view's free resources)
            free[nodes] -= usage
        releases += begun
        releases.sort(key=itemgetter(0))
    return free, view.capacity, view.weights, releases


def _undisturbed(start: float, end: float, *changes: list[tuple[float, float, bool]]) -> bool:
    """Whether a job reserved from ``start`` to ``end`` would keep its place despite the
    ``changes`` (start, end, freed) made to the profile since it was placed there by a
    search (its planned start after ``now``, which has not moved since).

    Its search looks at the profile from now to ``end`` only: it starts no later than
    ``start``, where its own slot is. Freed room before ``end`` might let it start earlier;
    room taken cannot (its own slot was left alone), but room taken inside its window can
    change the nodes best fit picks (a node with less to spare fits better). Changes
    beyond those bounds leave its search with the same profile, hence the same answer.
    A zero-length job fits in the interval where it starts, whose end the rule does not
    know: it is never left alone.
    """
    if end <= start:
        return False
    return not any(a < end and (freed or b > start) for part in changes for a, b, freed in part)


@dataclass
class SlurmBackfill(Conservative):
    """Slurm's sched/backfill: the main scheduler on events plus a periodic backfill pass.

    Parameters keep Slurm's names and documented defaults (slurm.conf(5));
    ``bf_node_space_size`` None is Slurm's default, ``bf_max_job_test``.
    A job array's tasks that have not started (nor been requeued or split off) are one job
    record in Slurm (:attr:`PendingJob.array`): a cycle tests them task after task while
    they start, or get reservations up to ``bf_max_job_array_resv`` (20 by default), then
    leaves the record, and its other tasks are not tested in that cycle (no reason change,
    no expected start); ``bf_max_job_test`` is checked between records, so a record's tasks
    are tested to its end (backfill.c ``next_task``). A deep array behind a job it cannot
    be planned around is thus one test, and later jobs are still tested. A throttled
    array's record (``%N``) is reserved for beyond its throttle too, up to
    ``bf_max_job_array_resv`` tasks: a reservation does not count against the throttle
    (job_array_start_test counts running tasks), so the cycle goes on after one; after a
    start that fills the throttle it leaves the record (:class:`ArrayThrottles`).

    The per-cycle caps and reservation thresholds follow backfill.c (all 0, off, by
    default): before a job is tested, a cycle that has already counted
    ``bf_max_job_user_part`` jobs of its user in its partition, ``bf_max_job_part`` of its
    partition, ``bf_max_job_assoc`` of its association (account and user) or
    ``bf_max_job_user`` of its user skips it (``_job_exceeds_max_bf_param``: its reason
    stands, it has no expected start), and otherwise counts it toward each, whether it then
    fits or not; a cycle ends once it has started ``bf_max_job_start`` jobs; a job of
    priority below ``bf_min_prio_reserve`` (the per-QOS MinPrioThreshold that overrides it
    is not modelled) or eligible for less than ``bf_min_age_reserve`` seconds may start now
    but gets no reservation (``TEST_NOW_ONLY``). ``bf_max_job_assoc`` set with
    ``bf_max_job_user`` wins, with a warning, as Slurm logs. Under any of them a cycle is
    never continued from the previous one (:meth:`backfill`).
    A job with ``--time-min`` (:attr:`PendingJob.time_min`) is tested, planned and started
    by a cycle with its limit lowered to its ``--time-min`` (``Start.limit``), as Slurm
    22.05's backfill.c does (see :func:`_bf_limit`); the main scheduler starts it with its
    full limit.
    ``sched_interval=-1`` disables the main scheduling loop: slurmctld's ``_schedule()``
    returns at once on every call (job_scheduler.c), so jobs start only in backfill cycles
    (the simulation then runs the reservation and preemption steps of a pass at each cycle:
    Slurm's backfill starts jobs in advance reservations and preempts, backfill.c
    ``_try_sched`` with preemptee candidates). ``bf_interval=-1`` disables backfill; with
    both, no job ever starts.
    """

    name: str = "slurm"
    resume_whole_queue: ClassVar[bool] = False  # its main scheduler continues passes
    pins_over_limit: ClassVar[bool] = True  # (its schedule is the main scheduler's)
    bf_interval: float = 30.0
    bf_resolution: float = 60.0
    bf_window: float = 1440.0  # minutes
    bf_max_job_test: int = 500
    default_queue_depth: int = 100
    sched_interval: float = 60.0
    bf_node_space_size: int | None = None  # records; None: bf_max_job_test, as in Slurm
    bf_max_job_array_resv: int = 20  # tasks of one array reserved per cycle
    # per-cycle caps of jobs tested (0: none) and starts, and who gets no reservation
    bf_max_job_user: int = 0
    bf_max_job_assoc: int = 0
    bf_max_job_part: int = 0
    bf_max_job_user_part: int = 0
    bf_max_job_start: int = 0
    bf_min_age_reserve: int = 0  # seconds
    bf_min_prio_reserve: int = 0
    interval: float | None = None

    def __post_init__(self):
        for key, (low, high, what) in SCHEDULER_PARAMETERS.items():
            value = getattr(self, key)
            if isinstance(value, np.integer | np.floating):  # (np.int64(5) from a sweep)
                value = value.item()
                setattr(self, key, value)
            if key in ("bf_interval", "sched_interval") and value == -1:
                continue  # as in Slurm: no backfill cycles / no main scheduler
            if key == "bf_node_space_size" and value is None:
                continue  # (Slurm's default: bf_max_job_test)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not (
                number and math.isfinite(value) and value == int(value) and low <= value <= high
            ):
                off = {
                    "bf_interval": "-1 (no backfill) or ",
                    "sched_interval": "-1 (no main scheduler) or ",
                }
                raise SlurmlabError(
                    f"slurm policy parameter {key}={value!r} must be {off.get(key, '')}a whole "
                    f"number from {low} to {high} ({what}), as in SchedulerParameters"
                )
        if self.bf_max_job_assoc and self.bf_max_job_user:
            warn_at_caller(
                f"slurm policy: bf_max_job_user={self.bf_max_job_user} and bf_max_job_assoc="
                f'{self.bf_max_job_assoc} are both set; as in Slurm ("Both bf_max_job_user '
                'and bf_max_job_assoc are set: bf_max_job_assoc taking precedence"), only '
                "bf_max_job_assoc applies: keep one"
            )
            self.bf_max_job_user = 0
        self.interval = None if self.bf_interval == -1 else float(self.bf_interval)

    @property
    def _thresholds(self) -> bool:
        """Whether a reservation threshold is set (bf_min_age_reserve, bf_min_prio_reserve)."""
        return bool(self.bf_min_age_reserve or self.bf_min_prio_reserve)

    @property
    def _caps(self) -> bool:
        """Whether a per-cycle cap or a reservation threshold is set (bf_max_job_user ...)."""
        return bool(
            self.bf_max_job_user or self.bf_max_job_assoc or self.bf_max_job_part
            or self.bf_max_job_user_part or self.bf_max_job_start or self._thresholds
        )  # fmt: skip

    @property
    def node_space_size(self) -> int:
        """The records the backfill map may hold: ``bf_node_space_size``, by default
        ``bf_max_job_test`` (backfill.c ``_load_config``)."""
        return self.bf_max_job_test if self.bf_node_space_size is None else self.bf_node_space_size

    def schedule(self, view: QueueView) -> Decision:
        """The main scheduler: FIFO per partition over the first ``default_queue_depth`` + 1
        job records (job_scheduler.c stops when ``job_depth++ > def_job_limit``: one more
        record than the depth is tested; ``default_queue_depth=0`` tests one; an array's
        pending tasks are one record, each task it tests counting: :meth:`main_pass`). With
        ``sched_interval=-1`` it decides nothing (``_schedule()`` returns at once)."""
        if self.sched_interval == -1:
            return Decision()
        d = self.main_pass(view, view.free.copy(), limit=self.default_queue_depth + 1)
        if self._thresholds:
            d.resume = None  # (whether a job blocks its partition changes with its age)
        return d

    def _passed_over(self, job: PendingJob, view: QueueView) -> bool:
        """job_scheduler.c: a job eligible for less than ``bf_min_age_reserve`` seconds, or
        of priority below ``bf_min_prio_reserve``, does not block its partition when it
        cannot start ("Consider other jobs in this partition if job has been waiting for
        less than bf_min_age_reserve time"): slurm.conf(5), such jobs "will not prevent a
        newly submitted job from starting immediately, even if the newly submitted job has
        a lower priority". It waits for Resources."""
        if not self._thresholds:
            return False
        return self._no_reserve(_facts(view, job), view.now)

    def full_pass(self, view: QueueView) -> Decision:
        """The main scheduler's periodic pass every ``sched_interval`` (sched_config: "At
        less frequent intervals, defined by sched_interval, the main scheduling loop will
        run, considering all jobs"): the whole queue, no ``default_queue_depth``."""
        if self.sched_interval == -1:
            return Decision()
        d = self.main_pass(view, view.free.copy())
        if self._thresholds:
            d.resume = None
        return d

    def backfill(self, view: QueueView) -> Decision:
        """One backfill cycle (backfill.c ``_attempt_backfill``): each tested job, in priority
        order, starts now if it can without delaying a reservation, else is planned.

        Running jobs are expected to end at their time limits, to the second. A job that
        cannot start now is planned where Slurm's will-run test puts it: at the end of the
        last running job of the batch of ends after which it fits (:func:`_will_run`). A planned job
        reserves its whole nodes from its start to its end, both rounded *down* to
        ``bf_resolution`` (so a job that would end a few seconds into a reserved slot cannot
        use it), and a job ending at the first second of a reservation overlaps it
        (backfill.c tests ``begin_time <= end_time``); its expected start (``squeue
        --start``) is not rounded. On a trace's processor pool (one node) a planned job
        therefore holds the whole pool, as the issue's processors-only model has it
        (simulate warns: replay on one-processor nodes to compare with Slurm's backfill). A job planned beyond
        ``bf_window`` gets an expected start but no reservation, and a reservation holds its
        nodes only up to the map's end (the window's end rounded down to ``bf_resolution``):
        beyond it backfill.c has no record to hold them in, and a job that such reservations
        hold back to the map's end gets no expected start (backfill.c's tries run out of
        records). A job for which the
        reservations leave too few nodes at every try (:meth:`NodeSpace.reachable`) is passed
        over untested, and does not count toward ``bf_max_job_test``. A whole-node job the
        cycle starts holds its nodes in the map until its end rounded down (backfill.c
        ``_bf_reserve_running``; Slurm leaves preemptable jobs out, which slurmlab does not
        tell apart). Each reservation adds up to two records to the map
        (:class:`NodeSpace`); once it holds ``bf_node_space_size`` records, the next job
        to reserve ends the cycle ("table size limit of %u reached"): it keeps its expected
        start, but no reservation, and the jobs after it are not tested (a job started
        then simply holds no record).

        A cycle after arrivals only (``view.resume``, whose queue holds the new jobs) may
        continue the previous one: running jobs' expected ends and the plans do not move
        with the clock. Only whether a job is reached depends on when the cycle runs (its
        window starts now), so the jobs it saw are walked again over the new map with their
        reservations; when each is reached as before, its plan and reason stand and only the
        new jobs are planned; otherwise the whole queue is planned again, as it is when the
        walk over the new map fills it to ``bf_node_space_size`` before a reservation (its
        records depend on where the map begins). A cycle that planned a job beyond
        ``bf_window`` (the window moves with the clock), one whose reservation was cut at the
        map's end when the new map ends later, or that stopped at
        ``bf_max_job_test`` or at ``bf_node_space_size``, is not continued.

        Advance reservations (:meth:`_windows`) hold their nodes in the cycle's profile to
        their ends rounded up to ``bf_resolution`` plus 1 s, where Slurm tries a job they
        held back again (a maintenance one over the job's whole partition, to its exact end,
        where :func:`_met` lifts the rounding for that job). The jobs of a reservation
        that has begun come first in the view (the controller sorts them so, as Slurm does)
        and may use its window on its nodes: their plans may reach past its end, but a start
        after it is no plan (:func:`_met`); they keep the reason the reservation step gave
        them and block nothing.
        """
        d = Decision()
        d.complete = True
        now = view.now
        windows = self._windows(view)  # advance reservations (see there)
        blocked = [(w.start, w.end, w.bits) for w in windows]  # (start, end, nodes' bits)
        up = node_bits(view.up)
        queue = view.queue
        cycle = view.resume
        if cycle is not None:
            fresh = self._node_space(view)
            # (a reservation cut at the map's end would reach further in a map that ends
            # later: plan again then)
            moved = cycle.clipped and fresh.end != cycle.space.end
            if not moved and cycle.still_reached(fresh, now, up, blocked, self.node_space_size):
                cycle.prof.advance(now)
                cycle.space = fresh
                d.reasons.update(cycle.reasons)
                d.planned.update(cycle.planned)
                d.sched_nodes.update(cycle.sched_nodes)
            else:  # plan the whole queue again, the jobs it saw first
                queue = [job for job, _reached, _held in cycle.seen] + list(queue)
                cycle = None
        if cycle is None:
            held = [(w.start, w.held, w.usage) for w in windows]
            prof = availability(view, windows=held)
            if type(prof) is Profile:  # (2 to MERGE_FROM nodes: plans held as node bits)
                prof = PlanProfile(prof)
            cycle = _Cycle(prof, self._node_space(view), ends=_ends(view), windows=windows)
        cycle.free_ranks, cycle.ranks = view.free_ranks, None  # (read when first needed)
        cycle.alone_of, cycle.alone = (lambda: _running_alone(view, cycle.begun)), None
        cycle.begun, cycle.walked, cycle.batches = [], {}, {}
        beyond = self._plan_jobs(queue, view, cycle, up, blocked, d)
        cycle.free_ranks = cycle.alone_of = None  # (the view is not kept with the cycle)
        # (a cycle cut short by bf_max_job_test or by a full map did not see every job: not
        # continued either; nor one under per-cycle caps, whose counts and ages a continued
        # cycle would have to carry)
        if not (
            d.starts or beyond or cycle.full or cycle.tested >= self.bf_max_job_test or self._caps
        ):
            cycle.reasons, cycle.planned, cycle.sched_nodes = d.reasons, d.planned, d.sched_nodes
            d.resume = cycle
        return d

    def _plan_jobs(self, queue, view, cycle, up: int, blocked, d: Decision) -> bool:
        """Test ``queue`` in order (starts, plans, reasons into ``d``); whether a job was
        planned beyond the window."""
        now = view.now
        horizon = now + self.bf_window * 60.0
        prof, space, hopeless, waiting = cycle.prof, cycle.space, cycle.hopeless, cycle.waiting
        all_up = up == (1 << len(view.up)) - 1  # then a job's mask needs no masking
        beyond = False  # some job was planned beyond the window
        # Each cycle clears every pending job's expected start first (backfill.c,
        # _clear_job_estimates): one beyond bf_max_job_test has none ("Until an attempt is
        # made to backfill schedule a job, its expected initiation time value will not be set")
        tested, max_tested = cycle.tested, self.bf_max_job_test
        table = self.node_space_size  # the records the map may hold (bf_node_space_size)
        res, off = self._grid(view)
        first_slot = slot_of(now, res, off)
        unreached, seen, reasons = cycle.unreached, cycle.seen, d.reasons
        begun: set[int] = set()  # (-p a,b: a job queued in several partitions starts once)
        caps, no_reserve = self._caps, False
        # An array's pending record in a partition (PendingJob.array; -p a,b: one per
        # partition) is tested task after task (backfill.c next_task) while its tasks start,
        # or get reservations up to bf_max_job_array_resv; then the cycle leaves it, and its
        # other tasks are not tested in this cycle. bf_max_job_test is tested between
        # records, not between a record's tasks. bf_max_job_array_resv=0: backfill tests no
        # array record (_job_runnable_now: pend_run_tasks >= bf_max_job_array_resv).
        opened, left = cycle.opened, cycle.left  # records being tested; records left
        array_resv = self.bf_max_job_array_resv
        last, keep = None, False  # the record of the job tested last; whether it goes on
        # %N: arrays' running tasks with this cycle's starts (a reservation does not count:
        # the cycle goes on reserving for a throttled record, up to bf_max_job_array_resv)
        throttles = ArrayThrottles(view)
        windows = cycle.windows
        # the partitions a maintenance window holds whole (their jobs are tried at its end)
        whole = {p for w in windows if w.by is not None for p in w.by.whole}
        # what the profile holds of the advance reservations that a job tested does not
        # meet (its own reservation's window; for -w, or a partition a maintenance window
        # holds whole, the rounding after its end), taken out for that job and put back
        # after it: (nodes, usage, start, end)
        lifted: list = []
        inside: set[int] = set()  # jobs of advance reservations met (they block nothing)
        # On a one-node pool: shape -> (limit, start) of the last search for that shape,
        # then of its search with the shortest limit: a search for the shape with a limit
        # no shorter than one of them begins at its start (the last's when it may: the
        # latest, as it was made last). Within the loop the profile only loses room (plans
        # and starts; lifted advance reservations are put back before the next job), and a
        # longer window is harder to fit, so no earlier start can fit (the rule of
        # ``hopeless`` above); the search would reach the same first fit, only after walking
        # every interval the cycle's plans hold before it. (A search with more room, a job's
        # lifted reservations, is neither used nor kept; nor on larger clusters, whose
        # searches are numpy's, not a walk.)
        pool = len(view.capacity) == 1
        searched: dict[tuple, tuple[float, float, float, float]] = {}
        for job in queue:  # (deep queues: mostly jobs of a shape already known to fail)
            if lifted:
                for nodes, usage, a, b in lifted:
                    prof.reserve(nodes, usage, a, b)
                lifted.clear()
            if job.reservation is not None:
                inside.add(job.id)
            if last is not None and not keep:  # its task neither started nor was reserved
                opened.discard(last)
                left.add(last)
            last = None
            record = None if job.array is None else (job.array, job.partition)
            if record is not None and (record in left or not array_resv):
                seen.append((job, None, None))  # (not tested; kept in seen for a cycle
                continue  # planned again)
            if record is None or record not in opened:
                if tested >= max_tested:
                    break
                if record is not None:
                    opened.add(record)
            if job.id in begun:
                continue  # (-p a,b: started from another partition's record)
            if job.array_job is not None:  # (see main_pass: backfill.c reject_array_job)
                if cycle.reject == (job.array_job, job.partition):
                    seen.append((job, None, None))
                    continue
                cycle.reject = (job.array_job, job.partition)
            last, keep = record, False
            if job.throttle is not None and throttles.full(job):
                # job_array_start_test (backfill.c, after job_test_count++): untested, it
                # waits for JobArrayTaskLimit, and its record is left
                tested += 1
                reasons[job.id] = "JobArrayTaskLimit"
                seen.append((job, None, None))
                continue
            if caps:
                facts = _facts(view, job)
                if self._over_caps(job, facts, cycle.counts):
                    continue  # skipped: its reason stands, it has no expected start
                no_reserve = self._no_reserve(facts, now)
            # (partitions over the same nodes share a mask: a shape counts per partition,
            # since the first job of each partition waits for Resources, the rest Priority)
            shape, limit, low = job.shape, job.limit, job.time_min
            if 0 < low < limit:  # (_bf_limit, written out: a call per job walked)
                limit = low
            known = hopeless.get(shape)
            if (
                known is not None
                and limit >= known[0]
                and (known[2] is None or limit == known[0] or not view.blocked_windows)
            ):
                tested += 1
                seen.append((job, None, None))
                reasons[job.id] = "Resources" if known[1] else "Priority"
                t = known[2]  # a start beyond the window (see below) is this job's too,
                # unless reservations cut at the map's end hold its nodes since
                if (
                    t is not None
                    and not no_reserve  # (TEST_NOW_ONLY: no start but now)
                    and (cycle.cut is None or not (job.plan_mask & cycle.cut).any())
                ):
                    _plan(d, job.id, t)
                continue
            # the reservations it meets, its own's end, the windows it is tried after
            meets, own_end, exact = blocked, math.inf, ()
            if windows and (job.reservation is not None or job.pinned or job.partition in whole):
                meets, own_end, exact = _met(job, windows, now, lifted)
                for nodes, usage, a, b in lifted:
                    prof.reserve(nodes, -usage, a, b)
            missed = unreached.get(shape)  # (cycle.reached's own first test, made here
            # without the call: in a deep queue most jobs are of a shape already not reached)
            if missed is not None and limit >= missed and not no_reserve:
                reached = False
            else:
                bits = cycle.plan_bits(job, up)  # (the up nodes its plans may use)
                if pool and not meets and not no_reserve:  # (cycle.reached, as
                    # NodeSpace.reachable takes a one-node map meeting no reservation)
                    reached = job.count == 1 and bits == 1 and space._reachable_one(limit, now)
                    if not reached:
                        unreached[shape] = limit
                else:
                    reached = cycle.reached(
                        space, unreached, job, limit, bits, now, meets, now_only=no_reserve,
                        exact=exact,
                    )  # fmt: skip
            if not reached:
                seen.append((job, False, None))
                if job.partition in waiting:
                    reasons[job.id] = "Priority"
                else:
                    reasons[job.id] = "Resources"
                    if job.blocks:  # (see below)
                        waiting.add(job.partition)
                continue  # passed over untested (too few nodes outside the reservations)
            tested += 1
            mask = job.plan_mask if all_up else job.plan_mask & view.up
            after = searched.get(shape) if pool and not lifted else None
            bound = None  # (where its search begins)
            if after is not None:
                if limit >= after[0]:
                    bound = after[1]
                elif limit >= after[2]:
                    bound = after[3]
            found = _earliest(prof, job, mask, limit, bound)
            if pool and not lifted and found is not None:
                shortest = after[2:] if after is not None and after[2] < limit else ()
                searched[shape] = (limit, found[1], *(shortest or (limit, found[1])))
            if found is not None and found[1] > now:
                t = found[1]
                at = _record_start(space, t)
                if pool and not meets and not lifted:
                    # A one-node pool meeting no advance reservation: the try's nodes are
                    # the job's own (``bits``), as _try_nodes would find. Each plan holds the
                    # whole node in ``prof`` (a request asks at least one CPU: JobSpec's
                    # counts are at least 1) from one second before its map begin to its map
                    # end (cut at the map's end, where the map's last record runs on), a
                    # whole-node start from now to its end (the map: to its end rounded
                    # down), so ``t``, a fit there, is at or after the end of every plan
                    # before it and its window ends a second before any plan after it.
                    # The map's records end where plans do (a free record and a held one
                    # are never merged), so the record holding ``t`` is free, begins at or
                    # after those ends, and no record held begins by its start + ``limit``
                    # (<= t + limit). (test_will_run_batches.py, test_pool_cycle_paths.py check it.)
                    usable = bits
                else:
                    usable = _try_nodes(space, bits, t, limit, meets, at)  # (the try's nodes)
                cycle.tries[len(seen)] = (t, limit, bits, meets, at, usable)
                if not pool or t in cycle.ends[2]:  # (else _will_run hands it to _fit_now,
                    # which keeps it on a one-node pool: the node is its own)
                    found = _will_run(prof, job, mask, usable, limit, found, cycle, view.epoch)
            if found is not None and found[1] > own_end:
                found = None  # (job_test_resv: its reservation over by then, no plan)
            if found is None:
                seen.append((job, True, None))
                reasons[job.id] = "Resources"
                hopeless[shape] = (limit, True, None)
                continue
            i, t, nodes = found
            if t <= now and i == 0:
                usage = _usage(job, view.capacity, nodes)
                prof.reserve(nodes, usage, now, now + limit, at=0)
                cycle.start(now + limit, nodes, usage)
                lower = limit if limit < job.limit else None  # (--time-min)
                d.starts.append(Start(job.id, nodes, "backfill", job.partition, lower))
                begun.add(job.id)
                throttles.start(job)
                if job.exclusive and space.records < table:
                    # _bf_reserve_running: a whole-node job started holds its nodes in the
                    # map from its start to its end rounded down (none when the map is full)
                    space.reserve(nodes, first_slot, slot_of(now + limit, res, off))
                cycle.reject = None
                if self.bf_max_job_start and len(d.starts) >= self.bf_max_job_start:
                    break  # "bf_max_job_start limit of %d reached": the cycle ends
                keep = True  # (an array's record: its next task)
                continue
            if job.partition in waiting:
                reasons[job.id] = "Priority"
            else:
                reasons[job.id] = "Resources"
                # the later jobs of its partition wait for Priority, unless it blocks nothing
                # (PendingJob.blocks: a maintenance window keeps it out); they do not either
                if job.blocks:
                    waiting.add(job.partition)
            if no_reserve:  # TEST_NOW_ONLY (bf_min_age_reserve, bf_min_prio_reserve): it
                seen.append((job, True, None))  # could only start now: no reservation,
                continue  # no expected start
            if t >= space.end and cycle.cut is not None and (mask & cycle.cut).any():
                # held back to the map's end by reservations cut there: backfill.c's tries
                # (TRY_LATER) reach the map's last record, where only the nodes no
                # reservation holds to the end are free, and the will-run test there gives
                # its start beyond the window ("StartTime set to time after current backfill
                # window. No reservation created"): squeue --start shows it, with no nodes.
                # Too few such nodes: no start ("can not start until too far in the
                # future"), N/A, and so for the same shape with a longer limit (it waits for
                # Resources as this one does when this one blocks nothing)
                later = _earliest(prof, job, mask & ~cycle.cut, limit)
                if later is None:
                    hopeless[shape] = (limit, not job.blocks, None)
                else:
                    beyond = True  # (a start beyond the window: see below)
                    _plan(d, job.id, later[1])
                seen.append((job, True, None))
                continue
            if t > horizon:
                # "StartTime set to time after current backfill window. No reservation
                # created" (backfill.c): squeue --start still shows it. So it does for each
                # later job of the shape, which Slurm tests and finds the same start: nothing
                # is held beyond the map's end, so a reservation made in between cannot move
                # it, and no longer limit can start earlier or, with no advance reservation
                # ahead (free room only grows after the map), later
                hopeless[shape] = (limit, not job.blocks, t)
                beyond = True
                _plan(d, job.id, t)  # (-p a,b: the earliest)
                continue
            if job.reserve_most is not None and len(nodes) > job.reserve_most:
                # over a QOS/association limit on the nodes planned: "adding reservation
                # for %pJ blocked by acct_policy_job_runnable_post_select", no reservation;
                # the will-run test's start stays (backfill.c ``continue``s): squeue --start
                # shows it, with no nodes
                _plan(d, job.id, t)
                seen.append((job, True, None))
                continue
            # Like Slurm, planned reservations take whole nodes, from the start and to the end
            # rounded *down* to bf_resolution (backfill.c), at least one slot long, from the
            # slot of now at the earliest
            begin = max(slot_of(t, res, off), first_slot)
            end = max(slot_of(t + limit, res, off), begin + res)
            if space.records >= table:
                # "table size limit of %u reached": the cycle ends before this reservation;
                # the job keeps its expected start and nodes (backfill.c sets them first)
                _plan(d, job.id, t, nodes)
                cycle.full = True
                break
            # In the cycle's own profile the reservation holds its nodes from one second
            # before: backfill.c tests a job over its node_space records with
            # ``begin_time <= end_time``, so a job ending at the first second of a planned
            # reservation overlaps it (a job starting at its end does not). (A
            # simplification for a job planned for later: backfill.c's walk takes its end
            # from now, and its final _test_resv_overlap compares ``begin_time <
            # end_reserve`` on times rounded down to bf_resolution, so Slurm may plan a job
            # ending at, or within the first slot of, a reservation that begins after now +
            # its limit before it; see the README.) It holds them only within the map, which
            # ends at the window's end rounded down: beyond it backfill.c has no record to
            # hold them in
            if begin < space.end:
                hold = (max(begin - 1.0, now), min(end, space.end))
                prof.hold(nodes, *hold)  # (whole nodes: Profile.hold, PlanProfile)
                if end > space.end:
                    if cycle.cut is None:
                        cycle.cut = np.zeros(len(view.capacity), dtype=bool)
                    cycle.cut[list(nodes)] = True
            if end > space.end:
                cycle.clipped = True
            space.reserve(nodes, begin, end)
            seen.append((job, True, (nodes, begin, end)))
            _plan(d, job.id, t, nodes)  # (backfill.c: sched_nodes, where it reserves)
            cycle.reject = None  # ("Clear assumed rejected array status")
            if record is not None:  # "Try making reservation for next task of job array"
                # (counted per array, not per record: -p a,b's second record goes on from
                # the first's count, backfill.c test_array_job_id / test_array_count)
                if cycle.test_array == record[0]:
                    cycle.test_count += 1
                else:
                    cycle.test_array, cycle.test_count = record[0], 1
                keep = cycle.test_count < array_resv
        for nodes, usage, a, b in lifted:
            prof.reserve(nodes, usage, a, b)
        for jid in inside:  # a job of an advance reservation keeps the reason the
            reasons.pop(jid, None)  # controller's reservation step gave it
        cycle.tested = tested
        return beyond

    def _windows(self, view: QueueView) -> list[_Window]:
        """The advance reservations not yet over, as a cycle holds them
        (:class:`_Window`): each holds its nodes in the cycle's profile up to its end rounded
        up to ``bf_resolution`` (on epoch seconds) plus 1 s.

        backfill.c: a try that meets a reservation (job_test_resv's ``resv_overlap``: its
        nodes taken out of the try) sets ``later_start`` to reservation.c ``find_resv_end``
        (the first reservation end after the try, rounded up to ``bf_resolution``) plus 1
        (``++resv_end``), when that is before the window's end; the job is tried there next
        (real Slurm: ``resv-backfill``), a maintenance reservation on part of the job's
        partition included. A job every node of whose partition a maintenance reservation
        holds (:attr:`BlockedBy.whole`), or whose ``-w`` nodes a reservation holds, is moved
        to the reservation's exact end instead (job_test_resv: ESLURM_RESERVATION_MAINT,
        ESLURM_NODES_BUSY, ``*when = resv_ptr->end_time``): :func:`_met` gives it the
        exact end. A map record ending between a reservation's end and that rounding would
        let Slurm try there, where the profile still holds the nodes (a simplification)."""
        now, (res, off) = view.now, self._grid(view)
        window_end = slot_of(now + self.bf_window * 60.0, res, off)
        by = view.blocked_by
        out = []
        for k, (t0, t1, usage) in enumerate(view.blocked_windows):
            if t1 <= now:
                continue
            who = by[k] if k < len(by) else None
            held = t1
            if who is not None and t1 != math.inf:
                later = retry_after(t1, res, off)
                if later < window_end:
                    held = later
            on = usage.any(axis=1)
            nodes = tuple(int(i) for i in np.flatnonzero(on))
            out.append(_Window(t0, t1, held, usage, node_bits(on), who, nodes, usage[list(nodes)]))
        return out

    def _grid(self, view: QueueView) -> tuple[float, float]:
        """``bf_resolution`` and where time 0 falls on its grid of epoch seconds (backfill.c
        rounds epoch seconds: :func:`~slurmlab.policies.nodespace.slot_of`'s ``offset``)."""
        return self.bf_resolution, view.epoch % self.bf_resolution

    def _node_space(self, view: QueueView) -> NodeSpace:
        res, off = self._grid(view)
        return NodeSpace(view.now, self.bf_window * 60.0, res, len(view.capacity), off)

    def _over_caps(self, job: PendingJob, facts: JobFacts, counts: dict) -> bool:
        """Whether the cycle has already tested as many jobs of the job's user in its
        partition (``bf_max_job_user_part``), of its partition (``bf_max_job_part``), of its
        association (``bf_max_job_assoc``: its account and user) or of its user
        (``bf_max_job_user``) as the cap; if not, the job counts toward each (backfill.c
        ``_job_exceeds_max_bf_param``, before the job is tested)."""
        keys = []
        if self.bf_max_job_user_part:
            keys.append((("user_part", facts.user, job.partition), self.bf_max_job_user_part))
        if self.bf_max_job_part:
            keys.append((("part", job.partition), self.bf_max_job_part))
        if self.bf_max_job_assoc:
            keys.append((("assoc", facts.account, facts.user), self.bf_max_job_assoc))
        if self.bf_max_job_user:
            keys.append((("user", facts.user), self.bf_max_job_user))
        if any(counts.get(key, 0) >= cap for key, cap in keys):
            return True
        for key, _cap in keys:
            counts[key] = counts.get(key, 0) + 1
        return False

    def _no_reserve(self, facts: JobFacts, now: float) -> bool:
        """backfill.c's TEST_NOW_ONLY: the job may start now but gets no reservation when its
        priority is below ``bf_min_prio_reserve`` or it has been eligible for less than
        ``bf_min_age_reserve`` seconds (its begin_time: sacct's Eligible)."""
        if self.bf_min_prio_reserve and facts.priority < self.bf_min_prio_reserve:
            return True
        return bool(self.bf_min_age_reserve) and now - facts.eligible < self.bf_min_age_reserve


def _facts(view: QueueView, job: PendingJob) -> JobFacts:
    """The job's :class:`JobFacts` from the view; a view built by hand (no ``facts``) gives
    no user or account, and no priority or age that a threshold would hold back."""
    if view.facts is None:
        return JobFacts("", "", math.inf, -math.inf)
    return view.facts(job)


def _plan(d: Decision, jid: int, t: float, nodes: tuple[int, ...] | None = None) -> None:
    """A planned start and its nodes (squeue --start; None: a start without a reservation,
    no SCHEDNODES given); a job queued in several partitions (``-p a,b``, a record each)
    shows its earliest."""
    if jid not in d.planned or t < d.planned[jid]:
        d.planned[jid] = t
        if nodes is not None:
            d.sched_nodes[jid] = nodes


class _Window(NamedTuple):
    """An advance reservation as a backfill cycle sees it (:meth:`SlurmBackfill._windows`)."""

    start: float
    end: float
    held: float  # until when the cycle's profile holds its nodes (its end, or later)
    usage: np.ndarray  # what it holds on each node (whole nodes)
    bits: int  # its nodes, as a bitmask (:func:`node_bits`)
    by: BlockedBy | None  # whose it is (None in a view built by hand)
    nodes: tuple[int, ...]  # its nodes
    rows: np.ndarray  # what it holds on each of them (``usage[list(nodes)]``)


def _met(job: PendingJob, windows: list[_Window], now: float, lifted: list):
    """The advance reservations ``job`` meets, as (start, end, nodes' bits), the end of its
    own reservation (``inf`` for a job in none), and the windows that move its tries to
    their exact ends, as (start, end); into ``lifted``, what of the cycle's profile does
    not hold it back, as (nodes, usage, start, end): its own reservation's window
    (reservation.c ``job_test_resv`` gives such a job the reservation's nodes), and the
    rounding after the end of a reservation on its ``-w`` nodes, or of a maintenance one
    on every node of its partition (it is tried at that exact end: job_test_resv's
    ESLURM_NODES_BUSY, ESLURM_RESERVATION_MAINT, ``*when = resv_ptr->end_time``)."""
    meets, own_end, exact = [], math.inf, []
    for w in windows:
        if w.by is not None and w.by.name == job.reservation:
            own_end = w.end
            lifted.append((w.nodes, w.rows, max(w.start, now), w.held))
            continue
        meets.append((w.start, w.end, w.bits))
        whole = w.by is not None and job.partition in w.by.whole
        if whole:
            exact.append((w.start, w.end))
        if w.held > w.end and (
            whole or (job.pinned and (job.plan_mask & w.usage.any(axis=1)).any())
        ):
            lifted.append((w.nodes, w.rows, max(w.end, now), w.held))
    return meets, own_end, exact


@dataclass
class _Cycle:
    """What a backfill cycle keeps for the next one to continue it (see
    :meth:`SlurmBackfill.backfill`)."""

    prof: Profile | PlanProfile  # (PlanProfile on 2 to MERGE_FROM nodes)
    space: NodeSpace
    #: request shape -> (limit, whether the later jobs of that shape wait for Resources: none
    #: ever fits, or the one that failed blocks nothing, and the start it was planned at
    #: beyond the window, else None)
    hopeless: dict = field(default_factory=dict)
    unreached: dict = field(default_factory=dict)  # request shape -> shortest limit not reached
    #: partitions whose first job that blocks (PendingJob.blocks) waits (Resources)
    waiting: set = field(default_factory=set)
    tested: int = 0  # jobs tested (bf_max_job_test)
    #: jobs counted toward bf_max_job_user / _assoc / _part / _user_part, per key
    counts: dict = field(default_factory=dict)
    #: arrays' pending records, (array, partition), the cycle is testing
    opened: set = field(default_factory=set)
    #: the array whose tasks the cycle reserved for last, and how many in a row
    test_array: int | None = None
    test_count: int = 0
    #: the last array element tested and neither started nor reserved, (array, partition):
    #: the array's later elements there are not tested (backfill.c reject_array_job)
    reject: tuple | None = None
    #: records the cycle has tested and left (their other tasks are not tested)
    left: set = field(default_factory=set)
    full: bool = False  # the map reached bf_node_space_size records: the cycle ended there
    clipped: bool = False  # a reservation reached beyond the map's end (held up to it)
    cut: np.ndarray | None = None  # nodes reservations hold up to the map's end (cut there)
    #: each job met, in order: (job, reached?, its reservation (nodes, begin, end) or None)
    seen: list = field(default_factory=list)
    #: index in :attr:`seen` -> (start, limit, nodes' bits, advance reservations met, start
    #: of the map's record holding the start (None: beyond the map), the try's nodes) of
    #: each job the will-run test planned (:func:`_try_nodes`). The try is from the start of
    #: that record, and the map's first record begins now (backfill.c's first try is from
    #: now to now + its limit), so a later cycle may try it from later, reaching
    #: reservations that begin later; and the map's end moves with the clock
    #: (:meth:`still_reached` tests such a try again)
    tries: dict = field(default_factory=dict)
    reasons: dict = field(default_factory=dict)
    planned: dict = field(default_factory=dict)
    sched_nodes: dict = field(default_factory=dict)
    #: id of a job's plan mask -> (the mask, its bitmask); holding the mask keeps its id
    bits: dict = field(default_factory=dict)
    #: the running jobs' expected ends, sorted, and their nodes (:func:`_ends`)
    ends: tuple | None = None
    #: the advance reservations not yet over (:meth:`SlurmBackfill._windows`)
    windows: list = field(default_factory=list)
    #: the cycle's view's :meth:`QueueView.free_ranks`, set while a cycle runs (a continued
    #: one comes after arrivals only, but reads them again), and what it gave, once read
    free_ranks: Callable[[], tuple] | None = None
    ranks: tuple | None = None
    #: the running jobs alone (no plan, no advance reservation: the will-run test's
    #: ``future_usage``): what is free now, the capacity, the nodes' Weights and each running
    #: job's (end, nodes, usage) by end (:func:`_running_alone`), read when first needed in
    #: a cycle's run (``alone_of``, set while it runs), for :func:`_walk`
    alone_of: Callable[[], tuple] | None = None
    alone: tuple | None = None
    #: the jobs this run of the cycle started, (end, nodes as a list, usage) each: running
    #: jobs for the will-run test (:meth:`start`)
    begun: list = field(default_factory=list)
    #: (shape, mem_per_cpu, try's nodes) -> :func:`_batch_nodes`'s answer, for this run
    walked: dict = field(default_factory=dict)
    #: try's nodes -> :func:`_will_run_batches` over :attr:`ends`, for this run
    batches: dict = field(default_factory=dict)

    def reached(
        self,
        space: NodeSpace,
        unreached: dict,
        job: PendingJob,
        limit: float,
        usable: int,
        now,
        blocked,
        now_only: bool = False,
        exact=(),
    ) -> bool:
        """Whether the node_space walk over ``space`` reaches ``job`` tested for ``limit``
        seconds (:func:`_bf_limit`; :meth:`NodeSpace.reachable` over ``usable``, the up nodes
        its plans may use, as a bitmask: :meth:`plan_bits`), a shape not reached at some
        limit being not reached at a longer one (``unreached``: shape -> shortest limit not
        reached; reservations only take room, so it holds for the cycle). ``now_only``: a
        job that may only start now (TEST_NOW_ONLY) has its first try alone, and no shape
        is noted. ``exact``: the windows that move its tries to their ends (:func:`_met`)."""
        if not now_only:
            missed = unreached.get(job.shape)
            if missed is not None and limit >= missed:
                return False
        if space.reachable(usable, job.count, limit, now, blocked, now_only=now_only, exact=exact):
            return True
        if not now_only:
            unreached[job.shape] = limit
        return False

    def plan_bits(self, job: PendingJob, up: int) -> int:
        """The up nodes (``up``, a bitmask) the job's plans may use, as a bitmask
        (:func:`node_bits` of its :attr:`~PendingJob.plan_mask`, cached per mask)."""
        mask = job.plan_mask
        hit = self.bits.get(id(mask))
        if hit is None:
            hit = self.bits[id(mask)] = (mask, node_bits(mask))
        return hit[1] & up

    def start(self, end: float, nodes: tuple[int, ...], usage: np.ndarray) -> None:
        """A job this cycle started, running to ``end`` on ``nodes``: cons_common
        ``_build_cr_job_list`` takes every running job (those backfill started earlier in
        the cycle too) for the will-run test, and their ends cut its batches like any
        other's (:attr:`ends`, :attr:`alone`; the answers kept are stale)."""
        e, held, known = self.ends
        k = bisect_right(e, end)
        self.ends = (e[:k] + [end] + e[k:], held[:k] + [nodes_bits(tuple(nodes))] + held[k:],
                     known | {end})  # fmt: skip
        self.begun.append((float(end), list(nodes), usage))
        self.alone = None
        self.walked, self.batches = {}, {}

    def batches_on(self, on: int, epoch: float) -> list[float]:
        """:func:`_will_run_batches` over the running jobs (:attr:`ends`) for the try's
        nodes ``on`` (kept per ``on`` until a start)."""
        hit = self.batches.get(on)
        if hit is None:
            e, held, _known = self.ends
            hit = self.batches[on] = _will_run_batches(e, held, on, epoch)
        return hit

    def running_alone(self) -> tuple:
        """The running jobs alone (:attr:`alone`, read once per run)."""
        if self.alone is None:
            self.alone = self.alone_of()
        return self.alone

    def fits_now(self, job: PendingJob) -> bool:
        """Whether ``job`` may fit on the resources free when the cycle began
        (:meth:`PendingJob.may_fit` on :attr:`free_ranks`, read once; a job that may spread
        over nodes is not told by it: True)."""
        if job.spread is not None:
            return True
        if self.ranks is None:
            self.ranks = self.free_ranks()
        return job.may_fit(self.ranks)

    def still_reached(self, space: NodeSpace, now: float, up: int, blocked, size: int) -> bool:
        """Walk the jobs seen again over ``space`` (a map for ``now``), putting their
        reservations back in order: whether each is reached as it was, its will-run try
        made from a later record start now (:attr:`tries`) has the nodes it had, and the map
        keeps room for each reservation (fewer than ``size`` records before it)."""
        unreached: dict = {}  # as in a cycle: shape -> the shortest limit not reached
        tries = self.tries
        for k, (job, reached, held) in enumerate(self.seen):
            if (
                reached is not None
                and self.reached(
                    space, unreached, job, _bf_limit(job), self.plan_bits(job, up), now, blocked
                )
                != reached
            ):
                return False
            tried = tries.get(k)
            if tried is not None:  # (tried from a later record start now: the same nodes?
                t, limit, bits, meets, start, usable = tried  # within the map still?)
                moved = _record_start(space, t)
                if moved != start and (
                    start is None or _try_nodes(space, bits, t, limit, meets, moved) != usable
                ):
                    return False
            if held is not None:
                if space.records >= size:
                    return False  # a cycle now would end at this reservation
                space.reserve(*held)
        return True


def _bf_limit(job: PendingJob) -> float:
    """The limit Slurm 22.05's backfill tests, plans and starts a job with: its
    ``--time-min`` when below its limit (backfill.c sets ``time_limit = time_min`` before
    the will-run test and does not raise it again for a start: ``comp_time_limit`` is
    already ``time_min`` when ``_reset_job_time_limit`` caps the extension; later Slurm
    extends the limit up to the next reservation), else its limit. A plan gives the job
    its full limit back (``_set_job_time_limit``): only a start keeps the lower one."""
    low = job.time_min
    return low if 0 < low < job.limit else job.limit


POLICIES = {"fifo": Fifo, "easy": Easy, "conservative": Conservative, "slurm": SlurmBackfill}


def make_policy(name: str | object = "easy", **params) -> object:
    """A policy by name (``fifo``, ``easy``, ``conservative``, ``slurm``) with parameters."""
    if not isinstance(name, str):
        if params:
            raise SlurmlabError("parameters can only be given with a policy name")
        return name
    try:
        cls = POLICIES[name]
    except KeyError:
        raise SlurmlabError(
            f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}"
        ) from None
    allowed = {f.name for f in fields(cls) if f.name not in ("name", "interval")}  # no ClassVars
    unknown = set(params) - allowed
    if unknown:
        first = sorted(unknown)[0]
        close = difflib.get_close_matches(first, sorted(allowed), n=1, cutoff=0.75)
        raise SlurmlabError(
            f"policy {name!r} has no parameter {', '.join(sorted(unknown))}"
            + (f" (did you mean {close[0]}?)" if close else "")
            + (f"; it takes {', '.join(sorted(allowed))}" if allowed else "; it takes none")
        )
    return cls(**params)
