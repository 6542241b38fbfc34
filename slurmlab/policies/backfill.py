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
  than that), and every ``bf_interval`` seconds a backfill pass plans like Conservative for at
  most ``bf_max_job_test`` jobs, with start times rounded to ``bf_resolution``, no
  reservation beyond ``bf_window`` minutes, and reservations of whole nodes.

Every policy plans with time limits (running jobs are assumed to end at their
limits), never with true run times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from operator import itemgetter
from typing import ClassVar

import numpy as np

from slurmlab.errors import SlurmlabError
from slurmlab.policies.base import Decision, PendingJob, QueueView, Start
from slurmlab.policies.placement import choose_nodes
from slurmlab.policies.profile import Profile, make_profile
from slurmlab.spec.cluster import SCHEDULER_PARAMETERS

__all__ = ["POLICIES", "Conservative", "Easy", "Fifo", "SlurmBackfill", "make_policy"]


def _profile(
    view: QueueView, free: np.ndarray | None = None, started=(), resolution: float = 0.0
) -> Profile:
    """The profile of a pass: running jobs (and jobs ``started`` in it) end at their limits
    (rounded up to ``resolution`` when backfill discretises time)."""
    if resolution:
        releases = [(_round_up(r.expected_end, resolution), r.nodes, r.usage) for r in view.running]
    else:
        releases = [(r.expected_end, r.nodes, r.usage) for r in view.running]
    releases += started
    prof = make_profile(
        view.now, view.free if free is None else free, view.capacity, releases, view.weights
    )
    for t0, t1, usage in view.blocked_windows:  # advance reservations held by others
        if t1 > view.now:
            nodes = tuple(int(i) for i in np.flatnonzero(usage.any(axis=1)))
            prof.reserve(nodes, usage[list(nodes)], max(t0, view.now), t1)
    return prof


def _usage(job: PendingJob, capacity: np.ndarray, nodes: tuple[int, ...]) -> np.ndarray:
    """Per-node resources a job holds on ``nodes`` (whole nodes with --exclusive)."""
    if job.exclusive:
        return capacity[list(nodes)]
    if job.rows is not None and len(job.rows) == len(nodes):
        return job.rows
    return np.broadcast_to(job.demand, (len(nodes), 3))


def _request_shape(job: PendingJob) -> tuple:
    """What decides whether a request fits, but for its time limit. Resources only shrink
    during a pass, and a longer window is harder to fit: a shape that failed for a limit
    fails for every longer one in the same pass (policies skip those)."""
    # masks are shared per node set (and kept alive through the pass: ids are not reused)
    return (job.need, job.count, id(job.mask), id(job.reach), job.exclusive)


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

    def schedule(self, view: QueueView) -> Decision:
        return self.main_pass(view, self._free(view))

    def _free(self, view: QueueView) -> np.ndarray:
        return view.free.copy()

    def main_pass(self, view: QueueView, free: np.ndarray, limit: int | None = None) -> Decision:
        d = Decision()
        # continuing the previous pass: its blocked partitions stay blocked
        blocked: set[str] = set() if view.resume is None else view.resume
        ranks = view.free_ranks(free)
        capacity, up, partitions = view.capacity, view.up, view.partitions
        usable = up  # up nodes outside every blocked partition
        outside = view.outside
        for p in blocked:
            if p in outside:
                usable = usable & outside[p]
        d.resume = blocked
        for n, job in enumerate(view.queue, start=view.start):
            if limit is not None and n >= limit:
                break
            if job.partition in blocked:
                # behind a blocked job of its partition it waits for Priority (queued jobs
                # do unless a pass said otherwise: only those need saying it again)
                if job.id in view.odd:
                    d.reasons[job.id] = "Priority"
                continue
            nodes = None
            if job.may_fit(ranks):
                nodes = choose_nodes(
                    free, capacity, job.demand, job.count, job.mask & usable, job.exclusive,
                    view.weights,
                )  # fmt: skip
            if nodes is None:
                blocked.add(job.partition)
                if job.partition in outside:  # its nodes are held for it
                    usable = usable & outside[job.partition]
                d.reasons[job.id] = "Resources"
                if len(blocked) >= partitions:
                    # every partition with queued jobs is blocked: the rest wait for Priority
                    # (the jobs not reached in a continued pass are new ones, which already do)
                    if limit is None and view.whole and view.resume is None:
                        d.rest = "Priority"
                    break
                continue
            _take(free, job, capacity, nodes)
            ranks = view.free_ranks(free)
            d.starts.append(Start(job.id, nodes, "main"))
        return d

    def backfill(self, view: QueueView) -> Decision:  # pragma: no cover - no timer
        return Decision()


@dataclass
class Easy(Fifo):
    """FIFO plus one reservation per partition for its first blocked job (EASY backfilling)."""

    name: str = "easy"

    def schedule(self, view: QueueView) -> Decision:
        d = Decision()
        prof = None  # built at the first blocked job: before it, free now is all that matters
        reserved: set[str] = set()
        if view.resume is not None:  # continue the previous pass (its starts now run)
            prof, reserved = view.resume
            if prof is not None:
                prof.advance(view.now)
        free = view.free.copy()
        stale = True  # the ranks of free amounts are computed when a job needs them
        started = []
        stopped = False
        up, capacity, odd, min_cpus = view.up, view.capacity, view.odd, view.min_cpus
        all_up = bool(up.all())  # then a job's mask needs no masking
        failed: dict[tuple, float] = {}  # _request_shape -> the shortest limit that failed
        for job in view.queue:
            if stale:  # (after a start, the pass may well end: no ranks computed in vain)
                cpus, mems, gpus = view.free_ranks(free)
                stale = False
            nodes = None
            # PendingJob.may_fit, inline (the loop's hottest test on long queues)
            c, need = job.count, job.need
            if (
                c <= len(cpus)
                and need[0] <= cpus[-c]
                and need[1] <= mems[-c]
                and need[2] <= gpus[-c]
            ):
                shape = _request_shape(job)
                shortest = failed.get(shape)
                if shortest is None or job.limit < shortest:
                    mask = job.mask if all_up else job.mask & up
                    if prof is None:
                        nodes = choose_nodes(
                            free, capacity, job.demand, job.count, mask, job.exclusive,
                            view.weights,
                        )  # fmt: skip
                    else:
                        nodes = prof.fits(
                            job.demand, job.count, mask, job.limit, exclusive=job.exclusive
                        )
                    if nodes is None:  # before the profile, any limit fails alike
                        failed[shape] = job.limit if prof is not None else 0.0
            if nodes is not None:
                usage = _take(free, job, view.capacity, nodes)
                stale = True
                if prof is not None:
                    prof.reserve(nodes, usage, view.now, view.now + job.limit, at=0)
                else:
                    started.append((view.now + job.limit, nodes, usage))
                # out of priority order (backfilled) when a job of its partition waits ahead
                by = "backfill" if job.partition in reserved else "main"
                d.starts.append(Start(job.id, nodes, by))
                continue
            if job.partition in reserved:
                if job.id in odd:
                    d.reasons[job.id] = "Priority"
                if (
                    (cpus[-1] if cpus else -1) < min_cpus
                    and len(reserved) >= view.partitions
                    and view.whole
                ):
                    # nothing more can start: the rest wait their turn (the jobs not reached
                    # in a continued pass are new ones, which already do)
                    d.rest = "Priority" if view.resume is None else None
                    stopped = True
                    break
                continue
            if prof is None:
                prof = _profile(view, free, started)
            reserved.add(job.partition)
            d.reasons[job.id] = "Resources"
            self.plan(prof, job, view, d)
        d.resume = None if stopped else (prof, reserved)
        d.complete = view.resume is None  # (a continued pass keeps the reservations it had)
        return d

    def plan(self, prof: Profile, job: PendingJob, view: QueueView, d: Decision) -> None:
        found = prof.earliest(
            job.demand, job.count, job.plan_mask & view.up, job.limit, exclusive=job.exclusive
        )
        if found is None:
            return
        i, t, nodes = found
        prof.reserve(nodes, _usage(job, view.capacity, nodes), t, t + job.limit, at=i)
        d.planned[job.id] = t


@dataclass
class Conservative(Easy):
    """EASY with a reservation for every pending job: no job is ever delayed by a later one.

    Each pass keeps the standing schedule: every job's reservation from the previous
    pass goes back into the profile, then, in order of reservation time, each job is
    taken out and put back at its earliest fit -- never later than it was, since its old
    slot is still free (Mu'alem & Feitelson's *compression* when jobs end early; see
    ``Profile.replan``, which on a one-node pool leaves a job that cannot start earlier
    where it is, the same outcome without the two profile updates). Jobs
    without a reservation yet (new ones) then get the earliest slot that delays nobody,
    in priority order. Jobs whose slot is now start now.

    After arrivals only, a job whose window no change of the profile reached since its
    own search (see ``_undisturbed``) keeps its place without a new search: the search
    would find the same start and nodes. On the teaching workload that skips 45 % of the
    searches; the plans are those of a full recomputation (tests compare both).
    """

    name: str = "conservative"
    #: a pass after arrivals only still sees every job (it recomputes the whole plan),
    #: with what changed in the profile during the previous pass (see below)
    resume_whole_queue: ClassVar[bool] = True

    def schedule(self, view: QueueView) -> Decision:
        d = Decision()
        now, capacity, up = view.now, view.capacity, view.up
        # After arrivals only, the profile is the one the previous pass left, and ``since``
        # holds the changes that pass made to it, in order, and how many came before each
        # job's placement: a job none of whose later changes reach its window keeps its
        # place without a search (see _undisturbed).
        since = view.resume
        prof = _profile(view)
        kept, fresh = [], []  # (planned start, position, job, nodes, usage); (position, job)
        for n, job in enumerate(view.queue):
            plan = job.planned
            if plan is not None and plan[0] >= now:
                t, nodes = plan
                usage = _usage(job, capacity, nodes)
                prof.reserve(nodes, usage, t, t + job.limit)
                kept.append((t, n, job, nodes, usage))
            else:
                fresh.append((n, job))
        if kept and not prof.valid():  # nodes failed or shrank under the plan: plan again
            prof = _profile(view)
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

        def placed(n: int, job: PendingJob, found) -> None:
            if found is None:
                d.reasons[job.id] = "Resources"
                return
            i, t, nodes = found
            if t <= now and i == 0:
                starting.append((n, job, nodes))
                return
            waiting.append((n, job, None))
            d.planned[job.id] = t
            d.planned_nodes[job.id] = nodes

        kept.sort(key=itemgetter(0, 1))  # by reservation time, then position (compression)
        for t, n, job, nodes, usage in kept:
            if (
                since is not None
                and t > now
                and job.id in since[1]
                and _undisturbed(t, t + job.limit, since[0][since[1][job.id] :], changes)
            ):
                placed(n, job, (-1, t, nodes))  # it stays: its search would find the same
                before[job.id] = len(changes)  # (and counts as searched here, from now on)
                continue
            found = prof.replan(
                job.demand, job.count, job.plan_mask & up, job.limit, t, nodes, usage,
                exclusive=job.exclusive,
            )  # fmt: skip
            if found is None or found[1] != t or found[2] != nodes:
                changes.append((t, t + job.limit, True))  # its old slot, freed
                if found is not None:
                    changes.append((found[1], found[1] + job.limit, False))
            before[job.id] = len(changes)
            placed(n, job, found)
        for n, job in fresh:  # then jobs without a reservation, in priority order
            found = prof.earliest(
                job.demand, job.count, job.plan_mask & up, job.limit, exclusive=job.exclusive
            )
            if found is not None:
                i, t, nodes = found
                prof.reserve(nodes, _usage(job, capacity, nodes), t, t + job.limit, at=i)
                changes.append((t, t + job.limit, False))
            before[job.id] = len(changes)
            placed(n, job, found)
        # In priority order (jobs were placed in order of reservation time): the first job of
        # a partition left waiting waits for Resources, the later ones for Priority, and a job
        # starting behind one of them is backfilled (started out of priority order).
        first_blocked: set[str] = set()
        for _n, job, nodes in sorted(waiting + starting, key=itemgetter(0)):
            if nodes is not None:  # starting (waiting jobs carry no nodes here)
                by = "backfill" if job.partition in first_blocked else "main"
                d.starts.append(Start(job.id, nodes, by))
                continue
            d.reasons[job.id] = "Priority" if job.partition in first_blocked else "Resources"
            first_blocked.add(job.partition)
        d.resume = (changes, before)
        d.complete = True  # every queued job was placed again, or found no place
        return d


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

    Parameters keep Slurm's names and documented defaults (slurm.conf(5)).
    """

    name: str = "slurm"
    resume_whole_queue: ClassVar[bool] = False  # its main scheduler continues passes
    bf_interval: float = 30.0
    bf_resolution: float = 60.0
    bf_window: float = 1440.0  # minutes
    bf_max_job_test: int = 500
    default_queue_depth: int = 100
    sched_interval: float = 60.0
    interval: float | None = None

    def __post_init__(self):
        for key, (_low, _high, what) in SCHEDULER_PARAMETERS.items():
            value = getattr(self, key)
            if key in ("bf_interval", "sched_interval") and value == -1:
                continue  # as in Slurm: no backfill cycles / no periodic full passes
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise SlurmlabError(
                    f"SchedulerParameters {key}={value!r} must be a positive number ({what})"
                )
        self.interval = None if self.bf_interval == -1 else float(self.bf_interval)

    def schedule(self, view: QueueView) -> Decision:
        """The main scheduler: FIFO per partition over the first ``default_queue_depth`` + 1
        jobs (job_scheduler.c stops when ``job_depth++ > def_job_limit``: one more job than
        the depth is tested)."""
        return self.main_pass(view, view.free.copy(), limit=self.default_queue_depth + 1)

    def full_pass(self, view: QueueView) -> Decision:
        """The main scheduler's periodic pass every ``sched_interval`` (sched_config: "At
        less frequent intervals, defined by sched_interval, the main scheduling loop will
        run, considering all jobs"): the whole queue, no ``default_queue_depth``."""
        return self.main_pass(view, view.free.copy())

    def backfill(self, view: QueueView) -> Decision:
        """One backfill cycle: plan every tested job; start those whose planned start is now.

        A cycle after arrivals only (``view.resume``) continues the previous one: its plans
        and reasons stand (the profile, built from time limits rounded to ``bf_resolution``,
        is the same from the new ``now`` on), and only the new jobs are planned. A cycle
        that planned a job beyond ``bf_window`` is not continued, since the window moves with
        the clock and the next cycle may give that job a reservation.
        """
        d = Decision()
        horizon = view.now + self.bf_window * 60.0
        # _request_shape -> (the shortest limit that could not start within the window,
        # whether it can never start)
        hopeless: dict[tuple, tuple[float, bool]]
        if view.resume is not None:
            prof, hopeless, reasons, planned, waiting = view.resume
            prof.advance(view.now)
            d.reasons.update(reasons)
            d.planned.update(planned)
        else:
            prof = _profile(view, resolution=self.bf_resolution)
            hopeless = {}
            waiting = set()  # partitions whose first job in line is left waiting (Resources)
        beyond = False  # some job was planned beyond the window
        # Each cycle clears every pending job's expected start first (backfill.c,
        # _clear_job_estimates): one beyond bf_max_job_test has none ("Until an attempt is
        # made to backfill schedule a job, its expected initiation time value will not be set")
        d.complete = True
        for n, job in enumerate(view.queue, start=view.start):
            if n >= self.bf_max_job_test:
                break
            # (partitions over the same nodes share a mask: a shape counts per partition,
            # since the first job of each partition waits for Resources, the rest Priority)
            shape = (job.partition, _request_shape(job))
            seen = hopeless.get(shape)
            if seen is not None and job.limit >= seen[0]:
                d.reasons[job.id] = "Resources" if seen[1] else "Priority"
                continue
            mask = job.plan_mask & view.up
            found = prof.earliest(
                job.demand,
                job.count,
                mask,
                job.limit,
                exclusive=job.exclusive,
                resolution=self.bf_resolution,
            )
            if found is None:
                d.reasons[job.id] = "Resources"
                hopeless[shape] = (job.limit, True)
                continue
            i, t, nodes = found
            if t <= view.now and i == 0:
                prof.reserve(
                    nodes, _usage(job, view.capacity, nodes), view.now, view.now + job.limit, at=0
                )
                d.starts.append(Start(job.id, nodes, "backfill"))
                continue
            d.reasons[job.id] = "Priority" if job.partition in waiting else "Resources"
            waiting.add(job.partition)
            if t > horizon:
                hopeless[shape] = (job.limit, False)
                beyond = True
                continue  # "StartTime set to time after current backfill window. No reservation"
            # like Slurm, planned reservations take whole nodes
            end = _round_up(t + job.limit, self.bf_resolution)
            prof.reserve(nodes, view.capacity[list(nodes)], t, end, at=i)
            d.planned[job.id] = t
        if not (d.starts or beyond):
            d.resume = (prof, hopeless, d.reasons, d.planned, waiting)
        return d


def _round_up(t: float, res: float) -> float:
    return t if math.isinf(t) or not res else math.ceil(t / res) * res


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
        raise SlurmlabError(
            f"policy {name!r} has no parameter {', '.join(sorted(unknown))}"
            + (f"; it takes {', '.join(sorted(allowed))}" if allowed else "; it takes none")
        )
    return cls(**params)
