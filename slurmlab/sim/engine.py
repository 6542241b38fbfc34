"""The simpy simulation of a Slurm controller: queue, scheduling passes, running jobs.

simpy owns time; this module owns meaning. Each run of a job is a simpy event at
its planned end, and may be interrupted with a typed cause
(:mod:`slurmlab.sim.causes`). Scheduling decisions come from a pure policy
(:mod:`slurmlab.policies`), which the controller applies.

Same-time rule. All events at one instant are applied before one scheduling
pass, in this order: first job ends (and node state changes), then arrivals
(submissions, begin times reached, dependencies satisfied), then the pass. A job
ending at t therefore frees its resources for a job starting at t, and
utilization never exceeds 100%. A job that ends at the instant it starts (zero
run time) is one more event at that instant, so another pass follows at the same
time. (simpy orders same-time events by priority: :mod:`slurmlab.sim.timing`.)

Speed without changing a decision: a pass after arrivals only continues the previous
pass with the new jobs (``QueueView.resume``); resolved requests are cached per cluster
across simulations; the backfill timer sleeps while idle. ``tests/test_engine_golden.py``
pins every decision and reason history, ``benchmarks/README.md`` says what each bought.

The class is assembled from three parts: this module (submission, eligibility,
dependencies, priority, control), :mod:`.controller` (the scheduling pass) and
:mod:`.processes` (job and node lifecycles).
"""

from __future__ import annotations

import gc
import math
import re
import warnings
from bisect import bisect_left, insort
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import timedelta

import numpy as np
import pandas as pd
import simpy

from slurmlab.errors import RequestError, SlurmlabError, warn_at_caller
from slurmlab.policies.backfill import SlurmBackfill, availability, make_policy
from slurmlab.policies.base import (  # noqa: F401 (NODES_OUT: sim modules)
    MEM,
    NODES_OUT,
    BlockedBy,
    PendingJob,
)
from slurmlab.policies.fairshare import Account, AccountTree
from slurmlab.policies.placement import (
    Request,
    bare_request,
    choose_nodes,
    gres_fixed,
    held,
)
from slurmlab.policies.priority import MultifactorWeights, basic_priority, sort_key
from slurmlab.sim.accounting import PriorityState
from slurmlab.sim.causes import Cancelled, Requeued
from slurmlab.sim.controller import Controller
from slurmlab.sim.history import FactorHistory
from slurmlab.sim.processes import Lifecycles, in_record
from slurmlab.sim.timing import AFTER_PASS, INF, LATE, NORMAL, URGENT, slurmctld_start_seconds
from slurmlab.sim.updates import Updates
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import (
    TIME_MIN_INFINITE,
    JobSpec,
    Resources,
    TimeOfDay,
    first_partition,
    listed_partitions,
    never_runs_in,
    resolve_all,
    spread_of,
)
from slurmlab.spec.qos import (
    Qos,
    Reservation,
    place_reservations,
    preemption_loop,
    reservation_pools,
    simulated_preempt_mode,
)
from slurmlab.spec.units import (
    MAX_SECONDS,
    array_task_str,
    parse_duration,
    parse_list_of,
    parse_seconds,
    parse_whole,
)
from slurmlab.spec.workload import DEFAULT_ORIGIN, Action, Workload, WorkloadJob

__all__ = ["Simulation"]


#: squeue's reason for a job ``scontrol requeuehold`` held (slurmctld's state_desc; the
#: state_reason is WAIT_HELD_USER: its user may release it).
REQUEUE_HELD = "job requeued in held state"
#: squeue's reason for a job whose partition has fewer nodes up than it asks for
#: (slurmlab.policies.base.NODES_OUT, imported here for the sim layer's modules)
#: The reasons of a held job (priority 0 while held).
HOLDS = frozenset(("JobHeldUser", "JobHeldAdmin", REQUEUE_HELD))

#: Pending reasons that never clear by waiting.
PERMANENT = {
    "PartitionTimeLimit", "PartitionNodeLimit", "DependencyNeverSatisfied", "PartitionDown",
    "QOSMaxWallDurationPerJobLimit", "InvalidReservation", "PartitionInactive",
    "MaxMemPerLimit", "ReservationDeleted", "PartitionConfig", *HOLDS,
}  # fmt: skip
#: Pending reasons no event nor command clears (only scancel ends such a wait): the
#: permanent ones but the holds, which ``scontrol release`` clears.
NEVER_CLEARS = frozenset(PERMANENT - HOLDS)
#: Why a pending job may not be eligible yet (slurmctld's job_independent: held, a begin
#: time to come, a dependency, a reservation not in force). A job waiting for any other
#: reason (a partition's or QOS's limit, a partition down) is eligible: its begin time is
#: set, it accrues age, and sacct shows its Eligible (real Slurm 22.05, the limits and
#: partition-limits fixtures).
NOT_YET_ELIGIBLE = frozenset(
    {
        *HOLDS, "BeginTime", "Dependency", "DependencyNeverSatisfied", "Reservation",
        "ReservationDeleted", "InvalidReservation",
    }
)  # fmt: skip


class SimJob:
    """The engine's mutable record of one job (one array task is one job)."""

    __slots__ = (
        "account", "array_id", "array_job", "array_task", "begin", "by", "count", "demand", "deps",
        "deps_any", "eligible", "end", "exit_code", "id", "key", "limit", "mask", "name", "nodes",
        "partition", "pending", "planned", "priority", "proc", "reason", "reasons", "res",
        "restarts", "runtime", "seq", "spec", "start", "state", "submit", "tier", "user", "wjob",
        "plans", "requeue", "runs", "usage", "throttle", "exclusive", "work_left", "ckpt",
        "run_plan", "acct", "assoc", "qos", "charged", "factors", "preempting", "victims",
        "preempted_by", "planned_nodes", "live", "rows", "running_view", "pending_plan", "need",
        "scratch", "held", "split", "mem_per_cpu", "sched", "alts", "parts", "entries",
        "plan_part", "requests", "updated", "req_tres", "admin_time", "most", "full_limit",
        "raw", "in_rec", "order", "spread", "dep_done", "gres_fixed", "gpus_per_job",
        "whole_memory", "_request",
    )  # fmt: skip

    def __init__(self):
        self.reasons: list[tuple[float, str]] = []
        self.plans: list[tuple[float, float | None]] = []  # (when, planned start or None)
        #: (when, the nodes of its planned start or None): squeue --start's SCHEDNODES
        self.sched: list[tuple[float, tuple[int, ...] | None]] = []
        self.runs: list[dict] = []
        self.state = "PENDING"
        self.reason = "None"
        self.start = None
        self.end = None
        self.nodes: tuple[int, ...] = ()
        self.by = None
        self.planned = None
        self.planned_nodes = None
        self.restarts = 0
        self.exit_code = "0:0"
        self.proc = None  # the run's end event
        self.live = False  # a run is in progress and not yet interrupted
        self.running_view = None  # the run as policies see it (policies.base.RunningJob)
        self.pending_plan = None  # (pending, plan, pending with that plan): conservative
        self.eligible = None
        self.pending: PendingJob | None = None
        self.run_plan = None  # (remaining work, restarted, planned length, how it ends)
        self.scratch = False  # its next run starts from the beginning (no checkpoint restored)
        self.acct = {"useful": 0.0, "lost": 0.0, "writing": 0.0, "restarting": 0.0}
        self.charged = 0.0
        #: priorities over time: (time, priority) under priority/basic, a FactorHistory
        #: of its recalculations under priority/multifactor
        self.factors: list[tuple[float, object]] | FactorHistory = []
        self.preempting = False
        self.victims: tuple[int, ...] = ()
        self.preempted_by = None
        #: ``-p a,b``: (Resources, request shape, PendingJob or None) per partition it may
        #: run in, in the order slurmctld tries them; None for a job of one partition
        self.alts: list | None = None
        self.parts: str | None = None  # ``-p a,b``: its partitions as squeue shows them
        self.entries: list | None = None  # ``-p a,b``: its queue entries while queued
        self.plan_part: str | None = None  # ``-p a,b``: the partition of its standing plan
        #: (when, limit, count, partition) before each scontrol update (sim.updates), or None
        self.requests: list | None = None
        self.updated = False  # its request changed since the last pass (PendingJob.updated)
        #: sacct's ReqTRES once scontrol update changed its node count (Slurm keeps the rest
        #: of the request's TRES), else None: its resources' own
        self.req_tres: dict | None = None
        #: its time limit was set by an operator (scontrol update as root: slurmctld's
        #: ADMIN_SET_LIMIT), which exempts it from the partition's MaxTime and the QOS
        #: MaxWall (job_mgr.c job_limits_check, acct_policy.c)
        self.admin_time = False
        #: the limit a job without -t had before backfill lowered it to its --time-min (a
        #: requeue gives it back: job_mgr.c _job_requeue_op), else None
        self.full_limit: float | None = None
        #: an array task in its array's pending record (slurmctld's one job record for the
        #: tasks not started yet, the array's JobID; :func:`in_record`), or in that record
        #: when scancel ended it whole
        self.in_rec = False
        #: its --dependency conditions decided for good, (condition index, job id or None for
        #: singleton) -> 'ok' or 'never' (Simulation._dependency_state), or None: none yet
        self.dep_done: dict | None = None

    @property
    def request(self) -> Request:
        """How it is placed (:class:`~slurmlab.policies.placement.Request`), from its request
        shape (:meth:`Simulation._set_shape`); made when first read: the policies place its
        ``PendingJob``'s, so most jobs never need their own."""
        if self._request is None:
            self._request = Request(
                self.demand, self.count, self.exclusive, self.mem_per_cpu, self.most,
                self.gres_fixed, self.gpus_per_job, self.whole_memory, self.spread,
            )  # fmt: skip
        return self._request

    @property
    def time_min(self) -> float:
        """``--time-min`` in seconds, 0 without one (or an unlimited one, on an unlimited
        job: it cannot lower the limit)."""
        low = self.spec.time_min
        return 0.0 if low is None or low == TIME_MIN_INFINITE else low.total_seconds()

    def rows_on(self, n: int) -> np.ndarray:
        """What it holds on each of ``n`` nodes (not ``--exclusive``, not ``whole_memory``):
        its shape per node (``--nodes=MIN-MAX`` takes any number of nodes from MIN to MAX)."""
        rows = self.rows
        return rows if len(rows) == n else np.broadcast_to(self.demand, (n, 3))

    def usage_on(self, nodes: list[int], capacity: np.ndarray) -> np.ndarray:
        """What it holds on ``nodes`` (a new array): whole nodes under ``--exclusive``, each
        node's own memory when it takes all of it (:func:`~slurmlab.policies.placement.held`),
        else :meth:`rows_on`."""
        if self.exclusive or self.whole_memory:
            return held(self.demand, capacity, nodes, self.exclusive, self.whole_memory)
        return self.rows_on(len(nodes))

    def unschedule(self, now: float) -> None:
        """Its planned nodes are gone (started, held, its plan dropped): SCHEDNODES (null)."""
        if self.sched and self.sched[-1][1] is not None:
            self.sched.append((now, None))

    def shown_plan(self) -> float | None:
        """The planned start ``squeue --start`` shows now (None: N/A). It is ``planned`` but
        after an update, whose new request the policies plan afresh while squeue still
        shows the old plan (``Updates._update_pending``)."""
        return self.plans[-1][1] if self.plans else None

    def drop_plan(self, now: float, *, keep_nodes: bool = False) -> None:
        """Its planned start and nodes are gone (held, requeued, a pass left it no plan):
        squeue --start shows N/A and SCHEDNODES (null). ``keep_nodes``: SCHEDNODES still
        shows the nodes it was planned on (a hold, until a backfill cycle clears them)."""
        if self.shown_plan() is not None:
            self.plans.append((now, None))
        if not keep_nodes:
            self.unschedule(now)
        self.planned = self.planned_nodes = None

    def sort_key(self):
        """Slurm's evaluation order: tier, priority, submit, id (under preempt/qos, see
        ``Controller._in_order``); ``order`` is the id it is ordered by (:meth:`split_order`)."""
        return sort_key(self.tier, self.priority, self.submit, self.order)

    def nodes_guess(self) -> int:
        """A pending ``-N MIN-MAX`` job's node count as slurmctld's test of it gives it
        (node_cnt_wag, total_cpus): up to MAX of its partition's nodes that fit it."""
        return max(self.count, min(self.most, int(self.mask.sum())))

    def split_order(self, tasks: int) -> float:
        """The id an array task is ordered by once it is a record of its own while pending
        (split off by scontrol, or the last task of the record): slurmctld sorts an array's
        tasks by the array's JobID and then by task id, its pending record (task id NO_VAL)
        after them (job_scheduler.c sort_job_queue2), so such a task goes before the tasks
        still in the record, and after every job submitted before the array. Its place
        among the array's ``tasks`` ids (``array_id``, ``array_id + 1``, ...) is kept."""
        rank = self.id - self.array_id
        return self.array_id - 1 + (rank + 1) / (tasks + 1)


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """Engine switches that are not policy: how time limits and requeues behave."""

    enforce_time_limit: bool = True
    requeue_delay: float = 121.0
    over_time_limit: float = 0.0
    #: a partition's own OverTimeLimit (seconds), which overrides the cluster's for its jobs
    partition_over_time: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self):  # requeue_delay as seconds or a duration ("2m", "0:02:01"), >= 0
        delay = parse_seconds(self.requeue_delay, what="requeue_delay")
        object.__setattr__(self, "requeue_delay", delay)

    def over_time(self, partition: str) -> float:
        """The OverTimeLimit (seconds) of a job running in ``partition``: the partition's own
        when its line sets one, else the cluster's (job_mgr.c ``job_time_limit``,
        cons_common/job_test.c ``_guess_job_end``)."""
        return self.partition_over_time.get(partition, self.over_time_limit)


def _over_time(text: str) -> float:
    """An OverTimeLimit's minutes (or UNLIMITED/INFINITE) in seconds."""
    return INF if text.strip().upper() in ("UNLIMITED", "INFINITE") else float(text) * 60.0


_RESOLUTIONS: OrderedDict[int, tuple] = OrderedDict()
_RESOLUTIONS_KEPT = 4  # clusters whose resolutions are kept (a notebook re-simulates one)
_DEMAND_MAX = 2**62  # above any node capacity (Node caps CPUs, memory and GRES)
_RESOLUTIONS_MAX = 200_000  # specs remembered per cluster (a trace's are mostly distinct)


def _resolutions(cluster: Cluster) -> tuple[dict, dict, dict, dict]:
    """Caches of resolved requests for ``cluster``, shared by every simulation of it.

    Specs and clusters are frozen, so a spec resolves the same way every time: a widget
    re-simulating a workload on a slider move pays for resolution once. Four dicts:
    spec -> Resources, id(spec) -> (spec, Resources, shape) (the spec is kept, so its id
    stays its own), Resources -> shape (the engine's per-request arrays, read-only), and
    candidate node names -> node mask (one read-only array per node set).
    The caches of the last few clusters are kept, each up to ``_RESOLUTIONS_MAX`` specs.
    """
    key = id(cluster)
    hit = _RESOLUTIONS.get(key)
    if hit is None or hit[0] is not cluster:
        hit = _RESOLUTIONS[key] = (cluster, {}, {}, {}, {})
        while len(_RESOLUTIONS) > _RESOLUTIONS_KEPT:
            _RESOLUTIONS.popitem(last=False)
    _RESOLUTIONS.move_to_end(key)
    return hit[1], hit[2], hit[3], hit[4]


@contextmanager
def _paused_gc():
    """Pause the cyclic garbage collector while simulating (restored after).

    A simulation allocates many long-lived objects (jobs, records), and every full
    collection rescans all of them: the collector cost grew faster than the run (5 % of an
    `easy` run of 100,000 jobs, 29 % at 300,000), which made 100k -> 1M jobs grow faster
    than n log n. The engine makes no cyclic garbage per job (tens of objects per run, a
    test checks), so nothing piles up; reference counting frees the rest as before.

    What the run made is handed to the oldest generation as it stands (``gc.freeze`` then
    ``gc.unfreeze``: two list merges), not left in the youngest, whose first collection
    after the run would scan every object of it once (5-6 % of a run) only to promote it.
    A dropped run's few dozen cyclic objects then wait for a full collection. Objects the
    caller froze stay frozen (nothing is moved then).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class Simulation(Controller, Lifecycles, Updates):
    """One simulated cluster: submit jobs, advance time, read the state at any moment."""

    def __init__(
        self,
        cluster: Cluster,
        policy="easy",
        *,
        seed: int = 0,
        origin: pd.Timestamp | None = None,
        enforce_time_limit: bool = True,
        requeue_delay: float | str | None = None,
        priority: Callable[[SimJob], float] | None = None,
        policy_params: dict | None = None,
        accounts: Sequence[Account] = (),
        qos: Sequence[Qos] = (),
        reservations: Sequence[Reservation] = (),
        slurmctld_start: float = 0.0,
    ):
        self.cluster = cluster
        self.policy = make_policy(policy, **(policy_params or {}))
        # the slurm policy's periodic full passes: every sched_interval while more jobs queue
        # than an event pass tests (default_queue_depth + 1); None when there are none
        every = getattr(self.policy, "sched_interval", -1)
        if every == 0:  # (controller.c: difftime(now, last_full_sched_time) >= 0 holds at each
            every = 1  # loop of slurmctld's background thread, about every second)
        self._full_every = every if every > 0 else None
        self._full_depth = self.policy.default_queue_depth + 1 if every > 0 else 0
        # sched_interval=-1: no main scheduler at all (job_scheduler.c _schedule() returns at
        # once); jobs start in backfill cycles only, which then run the reservation and
        # preemption steps of a pass too (controller: _schedule_timer)
        self._main_off = getattr(self.policy, "sched_interval", None) == -1
        # Slurm's periodic main-scheduler pass (sched_interval, 60 s by default), when a time
        # (not an event) lets a job start: a preemption victim's exempt time ends. Without a
        # main scheduler, the backfill cycle's (bf_interval; None: neither runs)
        grid = every if hasattr(self.policy, "sched_interval") else None
        if grid is None:
            given = cluster.scheduler_parameters.get("sched_interval")
            grid = 60 if given is None else int(given) or 1  # (0: about every second)
        if self._main_off:
            grid = getattr(self.policy, "interval", None) or -1
        self._main_grid = grid if grid > 0 else None
        #: where the periodic pass's grid starts: slurmctld's start (seconds from the
        #: simulation's, <= 0). controller.c ``_slurmctld_background`` sets
        #: ``last_full_sched_time`` when the thread starts and again only at each periodic
        #: pass (no other schedule() call moves it), so the passes fall every sched_interval
        #: from slurmctld's start (real fixtures: preempt-gpu started 10 s before its first
        #: job, periodic pass at 170 s; node-fail-gpu 8 s before, 172 s). Without a main
        #: scheduler the backfill cycle's grid is the simulation's own.
        self._ctld_start = slurmctld_start_seconds(slurmctld_start)
        self._main_phase = 0.0 if self._main_off else self._ctld_start
        #: no job can ever start: the slurm policy without a main scheduler nor backfill
        self.starts_nothing = self._main_off and not getattr(self.policy, "interval", None)
        if self.starts_nothing:
            warnings.warn(
                "slurm policy: bf_interval=-1 and sched_interval=-1 turn off both the backfill "
                "cycles and the main scheduler: Slurm would start no job, and neither does the "
                "simulation (every job stays PENDING); drop one of them (SchedulerParameters)",
                stacklevel=3,
            )
        self.seed = parse_whole(seed, what="seed")  # explicit seeds: a whole number, no surprises
        self.origin = DEFAULT_ORIGIN if origin is None else pd.Timestamp(origin)
        self._epoch = self.origin.timestamp()  # (QueueView.epoch)
        # slurm.conf MinJobAge: how long slurmctld keeps a finished job's record (_records)
        self._min_job_age = _min_job_age(cluster)
        self.options = EngineOptions(
            enforce_time_limit=enforce_time_limit,
            requeue_delay=cluster.requeue_delay if requeue_delay is None else requeue_delay,
            over_time_limit=_over_time(cluster.setting("OverTimeLimit", "0") or "0"),
            partition_over_time={
                p.name: _over_time(v)
                for p in cluster.partitions
                for k, v in p.options.items()
                if k.lower() == "overtimelimit"
            },
        )
        self.env = simpy.Environment()
        self.node_names = [n.name for n in cluster.nodes]
        self.node_index = {n: i for i, n in enumerate(self.node_names)}
        self._account_rules = {  # partitions with AllowAccounts / DenyAccounts
            p.name: p
            for p in cluster.partitions
            if p.option("AllowAccounts") is not None or p.option("DenyAccounts") is not None
        }
        weights = [n.weight for n in cluster.nodes]  # (None when every node weighs the same)
        self.weights = np.array(weights) if len(set(weights)) > 1 else None
        self.partition_nodes: dict[str, np.ndarray] = {}  # each partition's nodes, as a mask
        for p in cluster.partitions:
            mask = np.zeros(len(self.node_names), dtype=bool)
            mask[[self.node_index[n] for n in p.nodes]] = True
            self.partition_nodes[p.name] = mask
        # the nodes outside each partition that shares nodes with another (QueueView.outside)
        self.outside = {
            name: ~mask
            for name, mask in self.partition_nodes.items()
            if any((mask & m).any() for o, m in self.partition_nodes.items() if o != name)
        }
        self.capacity = np.array(
            [[n.cpus, n.memory_mb if cluster.memory_tracked else 0, n.gpus] for n in cluster.nodes],
            dtype=np.int64,
        )
        self.free = self.capacity.copy()
        self.up = np.array([n.state not in ("DOWN", "DRAIN", "FUTURE") for n in cluster.nodes])
        # whether any node is down or drained (only then can a job lack usable nodes)
        self._nodes_out = not self.up.all()
        self._up_counts: dict = {}  # (Controller._nodes_not_avail)
        self.node_state = {n.name: n.state for n in cluster.nodes}
        self.node_events: list[tuple[float, str, str]] = []
        self.jobs: dict[int, SimJob] = {}
        self.by_key: dict[str, list[int]] = {}
        self.queue: list[tuple[tuple, int]] = []  # eligible pending jobs, in evaluation order
        self.waiting: set[int] = set()  # pending but not eligible (begin time, dependency, limits)
        self.running: dict[int, SimJob] = {}
        self._tasks_running: dict[int, int] = {}  # array -> its tasks running (%N)
        self.dependents: dict[int, set[int]] = {}
        self.events: list[tuple] = []
        self._plans: set[int] = set()  # jobs a pass gave a planned start (squeue --start)
        self._held_nodes: set[int] = set()  # held jobs whose SCHEDNODES no cycle cleared yet
        self._updated: set[int] = set()  # jobs whose request changed since the last pass
        self._scripted = 0  # scripted events still to come (actions, failures, repairs...)
        self._unbounded = False  # running with no end time (see run)
        self._partition_idx: dict[str, list[int]] = {}  # a partition's node indices
        self._down_for_good: set[str] = set()  # nodes a failure took down with no repair
        self._back_at: dict[str, float] = {}  # when a failed node's outage ends (its repair)
        self._next_id = 1  # the engine's own job ids: one per job (array task), in submit order
        #: the next JobID number slurmctld gives (sbatch; an array task leaving its array's
        #: pending record), and what each given names: a job's or a split task's key, an
        #: array's name; and how many tasks each array's pending record holds (array_id)
        self._next_jobid = 1
        self._numbers: dict[int, str] = {}
        self._array_numbers: dict[int, str] = {}
        self._in_record: dict[int, int] = {}
        #: the arrays some of whose pending tasks scontrol split off their record
        self._split_arrays: set[int] = set()
        #: the arrays one of whose tasks ended otherwise than COMPLETED (a run not requeued),
        #: even if it ran again since: slurmctld's max_exit_code of the array (_release_dependents)
        self._array_failed: set[int] = set()
        #: when each array's pending record became its last task (:func:`arrays_converted`)
        self.converted_at: dict[int, float] = {}
        self._seq = 0
        self._pass_pending = False
        self._timer_running = False
        self._full_armed = False  # the slurm policy's next sched_interval pass is armed
        self._last_tick = None  # when the backfill timer last ran (a cycle or an idle poll)
        #: when the last backfill cycle ran (backfill.c last_backfill_time: slurmctld's start
        #: before the first, backfill_agent's first sleep counts from it)
        self._bf_last = self._ctld_start
        self._bf_busy = False  # the last backfill cycle left jobs queued (Controller._next_poll)
        #: when the backfill thread runs a cycle for a change that left nothing queued, running
        #: or to come (Controller.request_pass: not simulated, an sbatch in a Lab may follow)
        self._bf_idle = None
        self._arrivals_left = 0
        self._priority_fn = priority
        self._bf_seen = -1  # event count at the last idle backfill cycle
        #: when backfill cycles ran (idle ticks, which would decide nothing, left out)
        self.cycle_times: list[float] = []
        #: when the earliest start the last backfill cycle planned beyond bf_window enters
        #: the window (an idle timer still wakes for the cycle that reserves it), or None
        self._bf_wake: float | None = None
        self._multi = 0  # queued jobs of several partitions (-p a,b)
        self._arrays = (
            0  # queue entries of array tasks (PendingJob.array records may be among them)
        )
        self._queued: Counter[str] = Counter()  # queued jobs per partition
        self._parts_queued = 0  # partitions with queued jobs
        self._cpu_needs: Counter[int] = Counter()  # queued jobs by CPUs per node
        self._min_cpus: int | None = None  # the smallest of those (None: to recompute)
        self._odd: set[int] = set()  # jobs whose reason is neither "Priority" nor "None"
        #: queued jobs that still show BeginTime: no pass has looked since their begin time
        #: passed quietly (Simulation._recheck, _begin_times_seen)
        self._unseen: set[int] = set()
        # jobs of this pass that block nothing, and the reason each shows instead of
        # Resources: a maintenance window keeps them out, or a limit on the nodes they
        # would get (Controller._own_reasons)
        self._own: dict[int, str] = {}
        self._failure_waits: set = set()  # the random failure processes' pending timeouts
        self._random_failures = False  # whether random failure processes run (add_failures)
        # throttled array tasks a pass gave the policy, per pending record (array,
        # partition), split-off tasks per array; the tasks of pending records it left out,
        # per record (_withheld_reasons)
        self._handed: dict[tuple | int, list[int]] = {}
        self._withheld: dict[tuple, list[int]] = {}
        #: (job, partition) whose start a QOS/association limit refused on the nodes it got ->
        #: (that moment, starts so far): not tried again there until something else starts
        #: (Controller._apply)
        self._over: dict[tuple[int, str], tuple[float, tuple[str, int]]] = {}
        #: partition -> (start, end) of the maintenance reservations holding all its nodes
        self._maint_windows: dict[str, list[tuple[float, float]]] = {}
        self._throttles = False  # any array with a %N throttle was submitted
        self._time_min_said = False  # (a --time-min job under fifo/easy/conservative)
        # continuing passes (QueueView.resume): the last pass's state, cleared by any change
        # but jobs joining the queue; the jobs that joined since; the last queued key then
        self._resume = None
        self._fresh: list[int] = []
        self._fresh_after = True  # every fresh job sorts after the last pass's last job
        self._last_key = None
        self._settled_in: Collection[str] = ()  # (the last decision's Decision.settled)
        self._seen = 0  # fresh jobs found settled (Controller._settled)
        # the same for backfill cycles (the slurm policy): the last cycle's state, the queue's
        # length then and its last key (jobs joining since sort after it if it stayed put)
        self._cycle = None
        self._cycle_len = 0
        self._cycle_key = None
        self._expected_ends: list[tuple] = []  # heap: (end, id, restarts, run)
        self._drained: set[str] = set()  # nodes an admin drained (kept drained across a failure)
        deps = (cluster.setting("DependencyParameters", "") or "").lower()
        self._kill_invalid_depend = "kill_invalid_depend" in deps
        #: arrays with --dependency=aftercorr and tasks in their pending record, which each
        #: scheduling pass splits into records of their own (Simulation._split_aftercorr);
        #: whether such a split is armed; how many split-off tasks may pend at once
        self._corr_arrays: set[int] = set()
        self._corr_armed = False
        corr = cluster.scheduler_parameters.get("correspond_after_task_cnt")
        corr = re.match(r"\s*[+-]?[0-9]*", str(corr or "")).group().strip()
        self._corr_cnt = max(int(corr) if corr.lstrip("+-") else 0, _CORRESPOND_TASK_CNT)
        # specs resolve the same way every time on one cluster: cached across simulations
        self._resolved, self._resolved_id, self._shapes, self._masks = _resolutions(cluster)
        self.blocked_windows: list[tuple[float, float, np.ndarray]] = []
        self.blocked_by: list[BlockedBy] = []  # (whose each window is: QueueView.blocked_by)
        # priority/multifactor, fair share, QOS, reservations, preemption
        self.qos: dict[str, Qos] = {"normal": Qos("normal")}
        self.qos.update({q.name: q for q in parse_list_of(qos, Qos, what="qos")})
        for q in self.qos.values():
            for other in q.preempt:
                if other not in self.qos:
                    raise SlurmlabError(f"QOS {q.name!r}: preempt names unknown QOS {other!r}")
        loop = preemption_loop({q.name: q.preempt for q in self.qos.values()})
        if loop:
            raise SlurmlabError(
                f"QOS {' -> '.join(loop)}: these QOS may preempt one another in a loop, and "
                'their jobs would preempt each other for ever (sacctmgr refuses it: "QOS '
                "Preemption loop detected\"); take one of them out of the other's preempt list"
            )
        accounts = parse_list_of(accounts, Account, what="accounts")
        self.tree = AccountTree(accounts, root_user=bool(accounts))
        self.has_accounts = bool(accounts)
        weights = MultifactorWeights.from_cluster(cluster)
        self.prio = (
            PriorityState(cluster, weights, self.tree, self.qos, ctld_start=self._ctld_start)
            if weights
            else None
        )
        self._tick_armed = False
        self._arm_priority_tick()
        self._job_requeue = cluster.job_requeue  # slurm.conf JobRequeue (looked up once)
        ptype = (cluster.setting("PreemptType", "preempt/none") or "").lower()
        self.preempt_mode = simulated_preempt_mode(  # (refused under preempt/qos only)
            cluster.setting("PreemptMode", "OFF") or "OFF", ptype, what="slurm.conf PreemptMode"
        )
        self.preemption = ptype == "preempt/qos" and self.preempt_mode != "OFF"
        exempt = (cluster.setting("PreemptExemptTime", "-1") or "-1").strip()
        # slurm.conf PreemptExemptTime (a Slurm time). -1, the default, is none, and so are
        # UNLIMITED and INFINITE: time_str2secs reads all three as INFINITE, which
        # acct_policy_get_preemptable_time takes as "none" (slurm.conf(5): "A time of -1
        # disables the option, equivalent to 0")
        none = exempt == "-1" or exempt.upper() in ("UNLIMITED", "INFINITE")
        self.preempt_exempt = 0.0 if none else _seconds(exempt, "PreemptExemptTime")
        # QOS -> the QOS it may preempt (preempt/qos orders the queue by it)
        self._preempts = {q.name: frozenset(q.preempt) for q in self.qos.values()}
        self._wake: float | None = None  # a pass armed for when a PreemptExemptTime ends
        self._qos_queued: Counter[str] = Counter()  # queued jobs per QOS (under preemption)
        self._limits = any(  # (a limit of 0 is a limit: Slurm holds every job it covers)
            q.max_jobs_per_user is not None
            or q.max_tres_per_user
            or q.grp_tres
            or q.max_wall is not None
            for q in self.qos.values()
        ) or any(a.grp_tres or a.max_jobs is not None for a in accounts)
        # (node= limits count the nodes a busy job would get: Controller._busy_limits)
        self._run_epoch = 0  # changes whenever a job starts or ends
        self._used: tuple[int, dict] = (-1, {})  # (epoch, limit group -> running TRES)
        self._idle_picks: dict[tuple, tuple[int, ...] | None] = {}  # (while nodes stay up)
        self._limit_records: dict[int, dict] = {}  # job -> partition -> Controller._limits_for's
        self._n_ended = 0  # jobs that ended (or left running), for limits refused (_over)
        self._node_limits = any(
            "node" in q.max_tres_per_user or "node" in q.grp_tres for q in self.qos.values()
        ) or any("node" in a.grp_tres for a in accounts)
        self.reservations: dict[str, tuple[Reservation, np.ndarray]] = {}
        reservations = parse_list_of(reservations, Reservation, what="reservations")
        names = [r.name for r in reservations]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise SlurmlabError(f"reservation {twice!r} is defined twice")
        for r in reservations:
            unknown = [n for n in r.nodes if n not in self.node_index]
            if unknown:
                raise SlurmlabError(f"reservation {r.name!r}: unknown nodes {unknown}")
        for r, nodes in place_reservations(
            reservations, self.node_names, **reservation_pools(self.cluster)
        ):
            self._add_reservation(r, nodes)

    # -- time -------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.env.now

    @property
    def ran_out(self) -> bool:
        """Whether the last :meth:`run` (without ``until``) went on until nothing was left to
        happen: the jobs it left pending never start."""
        return self._unbounded and self.env.peek() == INF

    def in_progress(self) -> bool:
        """Whether a job runs now, or pends waiting for something that may still come: its
        turn, nodes, a begin time, a dependency, a limit, or a release (a held job waits for
        ``scontrol release``); not one whose reason never clears (:data:`NEVER_CLEARS`)."""
        if self.running:
            return True
        jobs = self.jobs
        pending = [j for _key, j in self.queue] + list(self.waiting)
        return any(jobs[j].reason not in NEVER_CLEARS for j in pending)

    def requeued(self) -> bool:
        """Whether any job has had more than one run (an earlier run ended, the job requeued):
        only then do ``sacct -D``'s rows differ from ``sacct``'s."""
        return any(job.runs for job in self.jobs.values())

    def _at(self, delay: float, callback, priority: int = NORMAL) -> simpy.Event:
        ev = simpy.Event(self.env)
        ev._ok = True
        ev._value = None
        ev.callbacks.append(callback)
        self.env.schedule(ev, priority, delay)
        return ev

    def _scripted_at(self, delay: float, action, priority: int = NORMAL) -> None:
        """A scripted event (an admin action, a failure, a repair, a reservation edge): while
        one is still to come, the cluster may still change (see :meth:`_work_remaining`)."""
        self._scripted += 1

        def fire(_event) -> None:
            self._scripted -= 1
            action()

        self._at(delay, fire, priority)

    def log(self, kind: str, job: SimJob | None = None, detail: str = "") -> None:
        self.events.append(
            (self.env.now, kind, job.id if job else None, job.key if job else None, detail)
        )

    # -- submission ---------------------------------------------------------------------------
    def add_workload(self, workload: Workload) -> None:
        """Schedule every job of ``workload`` to be submitted at its submit time."""
        given = workload.jobs
        submits = [j.submit for j in given]  # (a stable sort: ties keep the workload's order)
        order = sorted(range(len(given)), key=submits.__getitem__)
        jobs = [given[k] for k in order]
        if self.has_accounts:  # every user's association exists before its first job, as
            for j in jobs:  # sacctmgr made it (implicit ones too: AccountTree.resolve)
                with suppress(RequestError):  # (refused when submitted, as before)
                    self.tree.resolve(j.user or j.spec.user or "user", j.account or j.spec.account)
        self._arrivals_left += len(jobs)
        self.env.process(self._arrivals(jobs, order))

    def _arrivals(self, jobs: list[WorkloadJob], positions: list[int]):
        i, n = 0, len(jobs)
        while i < n:
            t = jobs[i].submit
            if t > self.env.now:
                yield self.env.timeout(t - self.env.now)
            while i < n and jobs[i].submit <= self.env.now:
                self._arrivals_left -= 1
                wjob = jobs[i]
                try:
                    self.submit(wjob)
                except RequestError as exc:
                    if not wjob.id:  # (else its errors name it already)
                        name = f" {wjob.spec.job_name!r}" if wjob.spec.job_name else ""
                        exc = RequestError(
                            f"job{name} (workload job {positions[i] + 1}, submitted at "
                            f"t={wjob.submit:.0f}s): {exc}"
                        )
                    self._refused(exc)
                i += 1

    def _refused(self, exc: RequestError) -> None:
        """A workload job refused at its submission: the error stops the run once everything
        else at this instant has happened (its other arrivals, its scheduling pass: the
        refusal is queued after them), so ``simulate`` fails with it and a Lab's ``advance``
        raises it with the lab complete at that instant; the workload's later jobs still
        arrive, as slurmctld refuses one sbatch and takes the next (a Lab that advances
        again goes on with them)."""

        def refuse(_event) -> None:
            raise exc

        self._at(0, refuse, _LAST)

    def _checked(self, wjob: WorkloadJob) -> tuple[Resources, tuple]:
        """The request resolved against the cluster, with sbatch's and slurmctld's checks of a
        submission (a RequestError otherwise): its resources and request shape; for ``-p
        a,b``, a tuple of (resources, shape) per partition it may run in, in the order
        slurmctld tries them."""
        spec = wjob.spec
        hit = self._resolved_id.get(id(spec))  # hashing a JobSpec costs more than this
        if hit is not None and hit[0] is spec:
            res, shape = hit[1], hit[2]
        else:
            try:
                res = self._resolved.get(spec)
                if res is None:
                    if spec.partition and "," in spec.partition:
                        refused: list = []
                        res = resolve_all(spec, self.cluster, refused=refused)
                        for name, error in refused:
                            warn_at_caller(f"{_who(wjob)}{never_runs_in(spec, name, error, res)}")
                    else:
                        res = spec.resources(self.cluster)
                    self._resolved[spec] = res
            except RequestError as exc:
                raise RequestError(f"{_who(wjob)}{exc}") from None
            if isinstance(res, tuple):  # -p a,b
                shape = tuple((r, self._shape_of(r)) for r in res)
            else:
                shape = self._shape_of(res)
            if len(self._resolved_id) >= _RESOLUTIONS_MAX:  # bound the memory kept between runs
                self._resolved_id.clear()
                self._resolved.clear()
            self._resolved_id[id(spec)] = (spec, res, shape)  # keeps spec alive: id stays its own
        if spec.nice < 0:  # validate_job_create_req: an operator's privilege
            user = wjob.user or spec.user or "user"
            operators = {"root", self.cluster.setting("SlurmUser", "root") or "root"}
            if user not in operators:
                raise RequestError(
                    f"{_who(wjob)}--nice={spec.nice}: Invalid --nice value (a negative nice "
                    f"raises the job's priority: only root or SlurmUser may give one, and "
                    f"the job's user is {user!r}); give --nice=0 or more"
                )
        if spec.reservation is not None and spec.reservation not in self.reservation_names():
            raise RequestError(
                f"{_who(wjob)}--reservation={spec.reservation}: "
                "Requested reservation is invalid (no such reservation)"
            )
        for dep in spec.dependency:  # checked before any job exists: sbatch rejects it whole
            missing = [ref for ref in dep.job_ids if self._ids_of(ref) is None]
            if missing and not _JOBID.fullmatch(missing[0]):
                # job_scheduler.c _parse_dependency_jobid_new: a JobID of 0, or one followed
                # by anything but _TASK, _*, ',', '?', ':' or '+', is ESLURM_DEPENDENCY
                raise RequestError(
                    f"{_who(wjob)}--dependency={dep.kind}:{missing[0]}: Job dependency problem "
                    f"(no job {missing[0]!r} was submitted before it, and slurmctld reads no "
                    "JobID in it: it refuses a JobID of 0 or one followed by anything but _TASK "
                    "or _*); name a job submitted earlier by its JobID or scenario id, e.g. "
                    f"{dep.kind}:12 or {dep.kind}:12_3"
                )
            if missing:
                raise RequestError(  # real Slurm 22.05 takes an unknown job for one that
                    f"{_who(wjob)}--dependency={dep.kind}:{missing[0]}: no "  # ended long ago
                    f"job {missing[0]!r} was submitted before it (real Slurm would take it for "
                    "a job that ended long ago, count the dependency as satisfied and start "
                    "the job at once; slurmlab refuses it as a likely mistake): name a job "
                    "submitted earlier"
                )
        return res, shape

    def _shape_of(self, res: Resources) -> tuple:
        shape = self._shapes.get(res)
        if shape is None:
            shape = self._shapes[res] = self._shape(res)
        return shape

    def submit(self, wjob: WorkloadJob) -> list[int]:
        """Submit now: validate, create the job (one per array task), queue it; return ids."""
        spec = wjob.spec
        res, shape = self._checked(wjob)
        tasks = spec.array.indices if spec.array else (None,)
        ids = []
        array_id = None
        seq = raw = None  # priority/basic sets an array's priority once, for the whole array
        corr = spec.array is not None and any(d.kind == "aftercorr" for d in spec.dependency)
        for task in tasks:
            # (one JobID for a submission: an array's tasks share it until each leaves its
            # pending record, see _leave_record)
            job = self._new_job(wjob, spec, res, shape, seq, raw)
            seq, raw = job.seq, job.raw
            if spec.array:
                array_id = array_id or job.id
                base = wjob.id or str(job.raw)
                job.array_job, job.array_task = str(job.raw), task
                job.key = f"{base}_{task}"
                job.throttle = spec.array.throttle
                self._throttles = self._throttles or job.throttle is not None
                job.array_id = array_id
                job.in_rec = True
                if corr:  # (its pending record tests aftercorr as a whole: _ref_state)
                    self._corr_arrays.add(array_id)
            self.by_key.setdefault(job.key, []).append(job.id)
            if spec.array:
                self.by_key.setdefault(base, []).append(job.id)
            ids.append(job.id)
            self.log("submit", job)
            self._enqueue(job)
        if spec.array:
            self._array_numbers[job.raw] = base
            self._in_record[array_id] = len(tasks)
        elif wjob.id is not None:  # (a job without an id is its number in by_key already)
            self._numbers[job.raw] = job.key
        first = self.jobs[ids[0]]
        if first.ckpt is not None and first.ckpt.on_signal:  # (once per sbatch: arrays too)
            _warn_on_signal(first, wjob.id or (first.array_job if spec.array else first.key))
        if spec.time_min is not None and not self._time_min_said:
            self._time_min_said = True
            _warn_time_min(self.policy, wjob.id or first.key)
        self._arm_priority_tick()
        if corr:
            self._arm_aftercorr_split()
        self.request_pass()
        return ids

    @property
    def next_id(self) -> int:
        """The JobID the next job submitted gets."""
        return self._next_jobid

    def use_id(self) -> int:
        """Use up the next JobID without a job, as ``sbatch --test-only`` does in real Slurm
        22.05 (``Job 1 to start at ...``; the next submission is job 2); return it."""
        self._next_jobid += 1
        return self._next_jobid - 1

    def will_run(self, wjob: WorkloadJob) -> tuple[float, tuple[int, ...], Resources] | None:
        """``sbatch --test-only`` (Slurm's job_will_run): when and on which nodes (indices) a
        job would start if submitted now, and its resources there (``-p a,b``: in the
        partition where it would start first), or None if it never would on the nodes up now.

        As Slurm's will-run test does, it counts running jobs as ending at their time limits
        and keeps advance reservations, but no pending job: a job queued ahead may well
        start first. It starts no earlier than the job's ``--begin``. Nothing is submitted.
        A request a submission would refuse raises that RequestError; one that would wait
        for something else than resources and time (a dependency, a hold, a limit, its
        reservation) raises a SlurmlabError naming the reason: no estimate for those.
        """
        spec = wjob.spec
        res, shape = self._checked(wjob)
        next_id, jobid, seq = self._next_id, self._next_jobid, self._seq
        try:  # every check a submission makes, then the job is dropped again
            job = self._new_job(wjob, spec, res, shape, None)
        finally:
            self._next_id, self._next_jobid, self._seq = next_id, jobid, seq
        del self.jobs[job.id]
        if spec.dependency or spec.reservation:  # (no reason computed: it registers the job)
            reason = "Dependency" if spec.dependency else f"its reservation {spec.reservation}"
        else:
            reason = self._ineligible_reason(job)
        if reason not in (None, "BeginTime"):
            raise SlurmlabError(
                f"--test-only: the job would wait for {reason}, not only for resources or its "
                "begin time: slurmlab gives no start estimate for it (submit it, and "
                "why_pending explains the wait)"
            )
        now = self.env.now
        best = None
        alts = (
            [(job.res, None)] if job.alts is None else [job.alts[k][:2] for k in self.waits_in(job)]
        )
        for res, shape in alts:
            if shape is not None:  # -p a,b: each partition (job_start_data), the earliest
                self._set_shape(job, res, shape)
            prof = availability(self._view())
            found = prof.earliest(
                job.request, job.mask & self.up, job.limit,
                not_before=job.begin if job.begin > now else None,
            )  # fmt: skip
            if found is not None and (best is None or found[1] < best[0]):
                best = (found[1], found[2], job.res)
        return best

    def reservation_names(self) -> set[str]:
        return set(self.reservations)

    def create_reservation(self, r: Reservation) -> tuple[str, ...]:
        """``scontrol create reservation`` while the simulation runs: ``r`` (its start in
        seconds of simulated time, not before now) holds its nodes, or ``node_count`` of the
        lowest-named nodes free of other reservations and running jobs over its window, as
        Slurm picks them. Refused as Slurm refuses it: a name in use, an unknown node, a
        start already past, a node another reservation holds over the window (MAINT aside),
        or one a running job holds past the start, by its time limit ("Requested nodes are
        busy"; IGNORE_JOBS is not modelled). Returns the nodes it holds."""
        if r.name in self.reservations:
            raise SlurmlabError(
                f"reservation {r.name!r}: Reservation request name is in use (an existing "
                "reservation has it); give another name"
            )
        unknown = [n for n in r.nodes if n not in self.node_index]
        if unknown:
            raise SlurmlabError(f"reservation {r.name!r}: unknown nodes {unknown}")
        now = self.env.now
        if r.start < now:
            raise SlurmlabError(
                f"reservation {r.name!r}: its start t={r.start:g}s is before now "
                f"(t={now:g}s): Reservation request has invalid start time"
            )
        jobs_on: dict[str, str] = {}
        for job in sorted(self.running.values(), key=lambda j: j.id):
            view = job.running_view
            end = view.expected_end if view is not None else job.start + job.limit
            if end > r.start:  # (by its time limit: Slurm expects it to run that long)
                until = "with no time limit" if end == INF else f"until t={end:g}s"
                for i in job.nodes:
                    jobs_on.setdefault(self.node_names[i], f"job {job.key} ({until})")
        # (the others on the nodes they hold: placed again by count, one created while
        # jobs ran could land elsewhere, and the new one would overlap it)
        existing = [
            replace(
                res, nodes=tuple(self.node_names[i] for i in np.flatnonzero(mask)), node_count=None
            )
            for res, mask in self.reservations.values()
        ]
        out = [n for n, up in zip(self.node_names, self.up, strict=True) if not up]
        placed = place_reservations(
            [*existing, r], self.node_names, jobs_on, unavailable=out,
            **reservation_pools(self.cluster),
        )  # fmt: skip
        nodes = placed[-1][1]
        self._add_reservation(r, nodes)
        self._changed()
        self.events.append((now, "reservation_create", None, None, r.name))
        self.request_pass()
        return nodes

    def _add_reservation(self, r: Reservation, nodes: tuple[str, ...]) -> None:
        """``scontrol create reservation``: ``nodes`` (from :func:`place_reservations`) are
        kept for its users during its window."""
        idx = [self.node_index[n] for n in nodes]
        mask = np.zeros(len(self.node_names), dtype=bool)
        mask[idx] = True
        self.reservations[r.name] = (r, mask)
        self._maint_windows.clear()  # (which partitions a maintenance window holds whole)
        usage = np.zeros_like(self.capacity)
        usage[mask] = self.capacity[mask]
        self.blocked_windows.append((r.start, r.end, usage))
        whole = frozenset(  # (job_test_resv: a MAINT one over every node of a partition)
            name
            for name, part in self.partition_nodes.items()
            if r.maint and not (part & ~mask).any()
        )
        self.blocked_by.append(BlockedBy(r.name, r.maint, whole))
        for t, what in ((r.start, "reservation_start"), (r.end, "reservation_end")):
            self._scripted_at(max(0.0, t - self.env.now), lambda w=what: self._resv_edge(r, w))

    def _new_job(
        self,
        wjob: WorkloadJob,
        spec: JobSpec,
        res: Resources,
        shape: tuple,
        seq: int | None,
        raw: int | None = None,
    ) -> SimJob:
        job = SimJob()
        res, shape = self._alternatives(job, spec, res, shape)
        job.key = wjob.id or str(self._next_jobid)  # (its id once the checks below pass:
        job.wjob, job.spec, job.res = wjob, spec, res  # a rejected sbatch uses up no JobID)
        job.name = spec.job_name
        job.user = wjob.user or spec.user or "user"
        job.account, assoc = self.tree.resolve(job.user, wjob.account or spec.account)
        job.qos = spec.qos or "normal"
        if job.qos not in self.qos:
            raise RequestError(
                f"{_who(wjob)}--qos={job.qos}: Invalid qos specification (known: "
                f"{', '.join(sorted(self.qos))})"
            )
        job.assoc = assoc if self.has_accounts else None
        self._admitted(wjob, job, [a[0] for a in job.alts or [[res]]], shape)
        begin = spec.begin
        if begin is None:
            job.begin = self.env.now
        elif isinstance(begin, timedelta):
            job.begin = self.env.now + begin.total_seconds()
        elif isinstance(begin, TimeOfDay):  # the next such time of day (the clock's date)
            submitted = (self.origin + pd.Timedelta(seconds=self.env.now)).to_pydatetime()
            job.begin = (pd.Timestamp(begin.resolve(submitted)) - self.origin).total_seconds()
        else:
            job.begin = (pd.Timestamp(begin) - self.origin).total_seconds()
        if begin is not None and job.begin - self.env.now > MAX_SECONDS:
            # (a date: --begin=now+... is checked as it is read. The submission itself may
            # come later than MAX_SECONDS into a long workload: its times are the job
            # table's, which pandas holds to the year 2262)
            raise RequestError(
                f"{_who(wjob)}--begin={begin}: more than {MAX_SECONDS:.0e} s (about 31 "
                f"years) after its submission (t={self.env.now:g} s from the simulation's "
                f"start, {self.origin}), the longest wait a job can hold; give an earlier "
                "--begin"
            )
        job.id = job.order = self._next_id
        self._next_id += 1
        if raw is None:  # the submission's JobID (an array's later tasks: the first's)
            raw = self._next_jobid
            self._next_jobid += 1
        job.raw = raw
        if seq is None:  # (an array's tasks share their submission's: one priority)
            # a job held at submission (sbatch -H) has priority 0 and takes no place in
            # priority/basic's order: it gets one when released (real Slurm 22.05)
            self._seq += 0 if spec.hold else 1
            seq = self._seq
        job.seq = seq
        job.preempting = self.preemption and bool(self.qos[job.qos].preempt)
        self._set_shape(job, res, shape)
        job.submit = self.env.now
        job.runtime = float(wjob.runtime)
        job.work_left = job.runtime
        job.ckpt = wjob.checkpoint
        job.array_job = job.array_task = job.array_id = job.throttle = None
        job.requeue = self._job_requeue if spec.requeue is None else spec.requeue
        job.usage = None
        job.priority = self._priority(job, at_submit=True)
        job.deps = spec.dependency
        job.deps_any = spec.dependency_any
        # the hold's reason, or None: sbatch -H; scontrol hold / release change it
        job.held = "JobHeldUser" if spec.hold else None
        job.split = None  # when an array task left its array's pending record (see hold)
        self.jobs[job.id] = job
        return job

    def _alternatives(self, job: SimJob, spec: JobSpec, res, shape) -> tuple:
        """Set the job's partitions to try (``-p a,b``: one (resources, shape, PendingJob)
        per partition, ``job.alts``; None for one partition) and return the resources and
        shape of the first."""
        if not isinstance(res, tuple):
            job.alts = job.parts = None
            return res, shape
        job.alts = [[r, sh, None] for r, sh in shape]
        # squeue's list (real Slurm 22.05, the multi-partition fixture): the partitions
        # in the order tried (PriorityTier first), then those that can never run it
        tried = [r.partition for r in res]
        never = [p for p in listed_partitions(spec, self.cluster) if p not in tried]
        job.parts = ",".join(tried + never)
        return shape[0]

    def _admitted(self, wjob: WorkloadJob, job: SimJob, results: list, shape: tuple) -> None:
        """The checks of a request that depend on where it runs (a submission's, and an
        update's of its partition or size): each partition's AllowAccounts/DenyAccounts, the
        job's association, and its reservation's access and nodes (``shape``: the request
        shape of its first partition). A RequestError otherwise."""
        parts = () if not self._account_rules else [r.partition for r in results]
        for part in parts:
            rule = self._account_rules.get(part)  # (-p a,b: each must admit it, job_mgr.c
            if rule is not None and not rule.admits_account(job.account):  # ACCESS_DENIED)
                raise RequestError(
                    f"{_who(wjob)}account {job.account!r} in partition {part!r}: "
                    "Invalid account or account/partition combination specified (the "
                    "partition's AllowAccounts/DenyAccounts do not admit it)"
                )
        if self.has_accounts and job.assoc is None:
            raise RequestError(
                f"{_who(wjob)}user {job.user!r} account {job.account!r}: Invalid account or "
                "account/partition combination specified"
            )
        spec = wjob.spec
        if spec.reservation is not None and spec.reservation in self.reservations:
            resv = self.reservations[spec.reservation][0]
            if not resv.admits(job.user, job.account):
                raise RequestError(
                    f"{_who(wjob)}--reservation={spec.reservation}: Access denied to requested "
                    f"reservation (it admits users {list(resv.users)} and accounts "
                    f"{list(resv.accounts)})"
                )
            held = self.reservations[spec.reservation][1]
            usable = int((held & shape[5]).sum())  # (shape[5] is its node mask, [6] its count)
            if usable < shape[6]:
                raise RequestError(
                    f"{_who(wjob)}--reservation={spec.reservation}: Requested node "
                    f"configuration is not available (the job needs {shape[6]} "
                    f"node{'s' if shape[6] != 1 else ''}; the "
                    f"reservation holds {int(held.sum())}, {usable} of which can run it)"
                )

    def _set_shape(self, job: SimJob, res: Resources, shape: tuple) -> None:
        """Give the job the request shape of ``res`` (for ``-p a,b``: of the partition it
        starts in, and of its first one while it waits)."""
        job.res = res
        (
            job.partition, job.tier, job.limit, job.exclusive, job.demand, job.mask, job.count,
            job.rows, job.need, job.mem_per_cpu, job.most, job.whole_memory,
        ) = shape  # fmt: skip
        job.spread = spread_of(job.spec, res, self.cluster)
        spec = job.spec  # (node selection counts its nodes' CPUs as its own: placement.py)
        job.gres_fixed = gres_fixed(
            gres=bool(res.gpus_per_node or spec.gpus or spec.gpus_per_task or spec.other_gres),
            ntasks=spec.ntasks, nodes=spec.nodes, max_nodes=spec.max_nodes,
            ntasks_per_node=spec.ntasks_per_node, ntasks_per_core=spec.ntasks_per_core,
        )  # fmt: skip
        # GPUs per job (--gpus, or --gpus-per-task times -n) rank its nodes by free GPUs
        # unless it asks some per node (placement.gpu_weights)
        per_task = (spec.gpus_per_task or 0) * (spec.ntasks or 0)
        job.gpus_per_job = 0 if spec.gpus_per_node else spec.gpus or per_task
        job._request = None  # (made when first read: SimJob.request)
        if job.spec.time_min is not None or self.qos[job.qos].max_wall is not None:
            # (rarely: a limit backfill lowered to --time-min holds in every partition, with
            # -t; a QOS MaxWall)
            job.limit = self._limit_in(job, shape)

    def _limit_in(self, job: SimJob, shape: tuple) -> float:
        """The job's time limit in the partition of ``shape``: without -t and a DefaultTime,
        the QOS MaxWall (acct_policy.c _set_time_limit)."""
        max_wall = self.qos[job.qos].max_wall
        if job.spec.time_requested:  # (-t, or the --time-min backfill lowered it to)
            limit = job.spec.time_limit
            return math.inf if limit is None else min(shape[2], limit.total_seconds())
        if max_wall is None:
            return shape[2]
        # (-p a,b: the DefaultTime of the first partition named, see resolve_all)
        named = shape[0] if job.alts is None else first_partition(job.spec.partition)
        if self.cluster.partition(named).default_time is None:
            return max_wall.total_seconds()
        return shape[2]

    def use_partition(self, job: SimJob, partition: str) -> None:
        """``-p a,b``: the job starts in ``partition`` (one of its own); its request shape
        becomes that partition's, as slurmctld sets ``part_ptr`` for the attempt."""
        for res, shape, _pending in job.alts:
            if res.partition == partition:
                if job.partition != partition:
                    self._set_shape(job, res, shape)
                return
        raise SlurmlabError(  # pragma: no cover - the controller checks the partition
            f"job {job.key} may not run in partition {partition!r} (-p {job.parts})"
        )

    def _shape(self, res: Resources) -> tuple:
        """What every job with these resolved resources shares (arrays are read-only)."""
        # (a request pending for ever on its partition's size may ask for more than 64 bits
        # hold, -N 1 --ntasks-per-node=2147483647 -c 2147483647: any amount above every
        # node's capacity compares the same, so it is capped there)
        demand = np.array(
            [min(v, _DEMAND_MAX) for v in (res.cpus_per_node, res.mem_per_node_mb,
                                          res.gpus_per_node)],
            dtype=np.int64,
        )  # fmt: skip
        mask = self._masks.get(res.candidates)  # one array per node set: policies compare ids
        if mask is None:
            mask = np.zeros(len(self.node_names), dtype=bool)
            mask[[self.node_index[n] for n in res.candidates]] = True
            mask.flags.writeable = False
            self._masks[res.candidates] = mask
        demand.flags.writeable = False
        rows = np.broadcast_to(demand, (res.nodes, 3))  # its usage on its nodes (unless whole)
        tier = self.cluster.partition(res.partition).priority_tier
        limit = INF if res.time_limit is None else res.time_limit.total_seconds()
        need = (res.cpus_per_node, res.mem_per_node_mb, res.gpus_per_node)
        # node selection counts a node's CPUs only as far as its free memory goes for a job
        # whose (consumable) memory is per CPU (placement.py)
        per_cpu = res.mem_per_cpu_mb if res.mem_per_node_mb and not res.whole_node else 0
        return (
            res.partition, tier, limit, res.whole_node, demand, mask, res.nodes, rows, need,
            per_cpu, res.max_nodes, self._whole_memory(res, mask),
        )  # fmt: skip

    def _whole_memory(self, res: Resources, mask: np.ndarray) -> bool:
        """Whether a job taking each node's whole memory (``--mem=0``, or no memory asked for
        and no DefMemPer* default) is to be placed as one (:attr:`PendingJob.whole_memory`):
        where its nodes' memory differs. On nodes of one size its demand, their memory, fits
        only a node none of whose memory is allocated and holds all of it, as Slurm's does
        (cons_common ``_verify_node_state``, ``_job_test``), so it is placed as any other job."""
        if not res.mem_whole_node or res.whole_node:
            return False
        sizes = self.capacity[mask, MEM]
        return bool(len(sizes)) and int(sizes.min()) != int(sizes.max())

    def _priority(self, job: SimJob, *, at_submit: bool = False) -> float:
        if self._priority_fn is not None:
            return self._priority_fn(job)
        if self.prio is not None:
            f = self.prio.factors(job, self.env.now, at_submit=at_submit)
            if not job.factors:  # (its history of recalculations, kept compactly)
                job.factors = FactorHistory()
            job.factors.add(self.env.now, f)
            return f.priority(self.prio.w)
        return basic_priority(job.seq, job.spec.nice)

    def _reprioritise(self, job: SimJob) -> None:
        """Set a job's priority again (a release; a requeue under multifactor). Under
        multifactor the factors keep its history; otherwise the values are kept in
        ``job.factors`` (its first value from the start), so that a snapshot of an earlier
        moment shows the one it had then."""
        new = self._priority(job)
        if self.prio is None and new != job.priority:
            if not job.factors:
                job.factors.append((-math.inf, job.priority))
            job.factors.append((self.env.now, new))
        job.priority = new

    def _rekeyed(self, key: tuple, job: SimJob) -> tuple:
        """A queue entry's key after the job's priority changed."""
        if job.alts is None:
            return job.sort_key()
        new = (key[0], -self._priority_in(job, key[4]), *key[2:])  # (-p a,b: one entry
        job.entries[job.entries.index(key)] = new  # per partition)
        return new

    def _priority_in(self, job: SimJob, k: int) -> float:
        """``-p a,b``: the job's priority in its ``k``-th partition. Under priority/multifactor
        the partition factor and the TRES factors are the partition's (priority_array, one
        priority per partition, which build_job_queue gives each record); otherwise it is
        the job's priority."""
        part = job.alts[k][0].partition
        if self.prio is None or self._priority_fn is not None or part == job.partition:
            return job.priority
        latest = job.factors.at(self.env.now) if job.factors else None  # (as recorded:
        if latest is None:  # the job size as it counted then, as sprio shows it)
            latest = self.prio.factors(job, self.env.now)
        return self.prio.in_partition(latest, job, part).priority(self.prio.w)

    def _arm_priority_tick(self) -> None:
        """Schedule the next recalculation: every PriorityCalcPeriod from slurmctld's start
        (:meth:`PriorityState.next_recalc`)."""
        if self.prio is None or self._tick_armed:
            return
        self._tick_armed = True
        self._at(self.prio.next_recalc(self.env.now) - self.env.now, self._priority_tick, URGENT)

    def _priority_tick(self, _event=None) -> None:
        """PriorityCalcPeriod: decay and charge usage, recompute fair share and priorities.

        The recalculation keeps itself going only while something can still change (jobs
        run, arrive, or wait for a time or an event, or pending jobs wait for a scripted
        event such as a node repair: their ages grow meanwhile); a queue of jobs that can
        never start must not tick for ever. A submission or a job start re-arms it.
        """
        self._tick_armed = False
        self._changed()
        if not self._main_off:  # (the pass this tick asks for, at this instant, looks at
            self._begin_times_seen()  # them: their factors are as then)
        self.prio.tick(self.env.now, self.running.values())
        queued = dict.fromkeys(j for _k, j in self.queue)  # (-p a,b: a job has several)
        pending = [self.jobs[j] for j in queued] + [self.jobs[j] for j in self.waiting]
        for job in pending:
            job.priority = self._priority(job)
        self.queue = sorted((self._rekeyed(k, self.jobs[j]), j) for k, j in self.queue)
        self.log("priority", None, "")
        if (
            self.running
            or self._arrivals_left
            or self._future_work()
            or any(self.jobs[j].reason == "Reservation" for j in self.waiting)
            or (self._scripted and (self.queue or self.waiting))
        ):
            self._arm_priority_tick()
        if self.queue:
            self.request_pass()

    # -- eligibility --------------------------------------------------------------------------
    def _enqueue(self, job: SimJob, *, unseen: bool = False) -> None:
        """Put a pending job in the queue if eligible now, else wait with a reason.
        ``unseen``: its begin time passed with no pass to look at it (:meth:`_recheck`): it
        keeps BeginTime until one does (:meth:`_begin_times_seen`)."""
        reason = self._ineligible_reason(job)
        if reason is None:
            if job.eligible is None:
                job.eligible = self.env.now
                self.log("eligible", job)
            self._queue_entries(job)
            self.waiting.discard(job.id)
            if unseen and job.reason == "BeginTime":
                self._unseen.add(job.id)
            else:
                # a task of an array whose running tasks fill its %N waits for JobArrayTaskLimit
                # from now, as the next pass's build_job_queue finds (job_array_start_test),
                # whether or not that pass reads the queue as far
                full = self._throttle_full(job)
                self._set_reason(job, "JobArrayTaskLimit" if full else "Priority")
            return
        kill = job.spec.kill_on_invalid_dep  # (the job's own flag first: job_mgr.c
        if kill is None:  # handle_invalid_dependency; then DependencyParameters)
            kill = self._kill_invalid_depend
        if reason == "DependencyNeverSatisfied" and kill:
            # --kill-on-invalid-dep / kill_invalid_depend: Slurm cancels such a job at once
            self.waiting.discard(job.id)
            job.state, job.end, job.exit_code = "CANCELLED", self.env.now, "0:0"
            self._set_reason(job, "Dependency")  # (what sacct shows for it: the real fixture)
            self.log("end", job, "CANCELLED")
            self._release_dependents(job)
            return
        self.waiting.add(job.id)
        if job.eligible is None and reason not in NOT_YET_ELIGIBLE:
            job.eligible = self.env.now
            self.log("eligible", job)
        self._set_reason(job, reason)
        if reason == "BeginTime":
            self._at(job.begin - self.env.now, lambda _e, j=job: self._recheck(j, quiet=True))
        elif reason == "Reservation":
            start = self.reservations[job.spec.reservation][0].start
            self._at(start - self.env.now, lambda _e, j=job: self._recheck(j))

    def _queue_entries(self, job: SimJob) -> None:
        """Put an eligible pending job's entries in the queue."""
        if job.alts is None:
            self._add_entry(job, job.sort_key(), job.partition, job.need[0])
        else:  # -p a,b: one entry per partition it may wait in (build_job_queue)
            self._multi += 1
            job.entries = []
            for k in self.waits_in(job):
                shape = job.alts[k][1]
                key = (-shape[1], -self._priority_in(job, k), job.submit, job.order, k)
                job.entries.append(key)
                self._add_entry(job, key, shape[0], shape[8][0])
            first = job.alts[job.entries[0][4]]  # (it waits there first: its limits,
            if first[0].partition != job.partition:  # reasons and hints are that one's)
                self._set_shape(job, first[0], first[1])

    def _in_queue(self, job: SimJob) -> bool:
        """Whether ``job`` has entries in the queue."""
        if job.alts is not None:
            return job.entries is not None
        entry = (job.sort_key(), job.id)
        i = bisect_left(self.queue, entry)
        return i < len(self.queue) and self.queue[i] == entry

    def _reorder(self, job: SimJob, order: float) -> None:
        """Order a pending job by ``order`` from now on (its queue entries moved)."""
        if job.order == order:
            return
        queued = self._in_queue(job)
        if queued:
            self._dequeue(job)
        job.order = order
        if queued:
            self._queue_entries(job)

    def _add_entry(self, job: SimJob, key: tuple, partition: str, cpus: int) -> None:
        insort(self.queue, (key, job.id))
        self._fresh.append(job.id)
        if self._last_key is not None and key <= self._last_key:
            self._fresh_after = False
        self._queued[partition] += 1
        if self._queued[partition] == 1:
            self._parts_queued += 1
        self._cpu_needs[cpus] += 1
        if job.array_id is not None:
            self._arrays += 1
        if self.preemption:
            self._qos_queued[job.qos] += 1
        if self._min_cpus is not None and cpus < self._min_cpus:
            self._min_cpus = cpus

    def _dequeue(self, job: SimJob) -> None:
        if job.alts is None:
            self._drop_entry(job, job.sort_key(), job.partition, job.need[0])
        else:
            for key in job.entries:
                shape = job.alts[key[4]][1]
                self._drop_entry(job, key, shape[0], shape[8][0])
            job.entries = None
            self._multi -= 1
        self._changed()
        if self._corr_arrays and not job.in_rec and job.array_id in self._corr_arrays:
            self._arm_aftercorr_split()  # (a split-off task starts: more may split off)

    def _drop_entry(self, job: SimJob, key: tuple, partition: str, c: int) -> None:
        entry, queue = (key, job.id), self.queue
        if queue and queue[0] == entry:  # (FIFO's starts: the head of the queue)
            i = 0
        else:
            i = bisect_left(queue, entry)
            if i == len(queue) or queue[i] != entry:  # pragma: no cover - engine bug
                raise RuntimeError(f"job {job.key} is not in the queue")
        del queue[i]
        self._queued[partition] -= 1
        if not self._queued[partition]:
            self._parts_queued -= 1
        if self.preemption:
            self._qos_queued[job.qos] -= 1
        if job.array_id is not None:
            self._arrays -= 1
        self._cpu_needs[c] -= 1
        if not self._cpu_needs[c]:
            del self._cpu_needs[c]
            if c == self._min_cpus:
                self._min_cpus = None  # recomputed when asked

    def _recheck(self, job: SimJob, quiet: bool = False) -> None:
        """A waiting job's time came (its begin time, its reservation's start): queue it if
        it may be. ``quiet``: its begin time (``--begin``, a requeue's delay) passed, which
        is no event in Slurm: nothing calls the main scheduler (job_independent only tests
        the time when a pass looks), and a backfill cycle runs only when a job, node,
        partition or reservation changed since the last (backfill.c ``_more_work``). The
        job waits for the next event's pass or the periodic main-scheduler pass
        (sched_interval): real-Slurm fixtures preempt-reorder (requeued victims eligible at
        141-146 s, started at the periodic pass at 172 s) and begin-quiet. This is the
        ``slurm`` policy's (Slurm's own schedulers); under the others, as the engine's rule
        of same-time events says, a begin time reached is an arrival, and a pass follows.

        So is its reason: only job_independent (job_mgr.c) clears WAIT_TIME, when a pass or
        a cycle tests the job, so a job queued quietly shows BeginTime until the pass that
        looks at it (:meth:`_begin_times_seen`), as real squeue did until its start (begin-quiet
        140-172 s; failures, preemption, preempt-reorder, preempt-grace: requeued jobs)."""
        if job.state == "PENDING" and job.id in self.waiting:
            seen = self._bf_seen == len(self.events)  # (the backfill timer saw every event)
            quiet = (
                quiet
                and isinstance(self.policy, SlurmBackfill)
                and self._main_grid is not None
                and self._quiet_since(self.env.now)
            )
            self._enqueue(job, unseen=quiet)
            if job.id not in self.waiting:
                if quiet:
                    if seen:  # (its eligibility is no change for the backfill cycle)
                        self._bf_seen = len(self.events)
                    self._wake_at(self.env.now)
                else:
                    self.request_pass()

    def _begin_times_seen(self) -> None:
        """A pass or a backfill cycle tests the queue: the jobs queued quietly once their begin
        time passed (:meth:`_recheck`) lose BeginTime now. build_job_queue tests every pending
        job (job_scheduler.c ``_job_runnable_test1`` calls job_independent, which turns
        WAIT_TIME into no reason once begin_time has passed), for the main scheduler and
        backfill alike, whatever their depth; the pass then gives each its own reason."""
        if not self._unseen:
            return
        jobs, waiting = self.jobs, self.waiting
        for jid in self._unseen:
            job = jobs[jid]
            if job.state == "PENDING" and job.reason == "BeginTime" and jid not in waiting:
                self._set_reason(job, "Priority")
        self._unseen.clear()

    def _quiet_since(self, now: float) -> bool:
        """Whether nothing but eligibilities happened in the last ``bf_interval`` seconds. A
        change that soon may still have its backfill cycle to come in Slurm (a cycle runs
        ``bf_interval`` after the last one, if something changed since: backfill.c), which
        then sees a job whose begin time has passed meanwhile (real fixture node-failure:
        cpu1 resumed at 150 s, train eligible at 151 s started at 153 s)."""
        interval = getattr(self.policy, "interval", None) or 0
        for t, kind, *_rest in reversed(self.events):
            if now - t >= interval:
                return True
            if kind != "eligible":
                return False
        return True

    def _ineligible_reason(self, job: SimJob) -> str | None:
        """Why ``job`` may not be queued now, in job_mgr.c ``job_independent``'s order: a
        hold, and a reservation deleted under it, keep their reason; then its dependency
        (tested first, "so we can cancel jobs before dependent job records get purged"),
        its ``--begin`` time and its reservation's start; only an independent job is tested
        against its partition (job_scheduler.c ``_job_runnable_test2``), None when it may."""
        if job.held:  # a hold outranks the rest (real Slurm 22.05: a held job over its
            return job.held  # partition's MaxTime shows JobHeldUser, PartitionTimeLimit after)
        resv = None
        if job.spec.reservation:
            resv = self.reservations[job.spec.reservation][0]
            if self.env.now >= resv.end:  # held if it was pending when the reservation ended
                return "ReservationDeleted" if job.submit < resv.end else "InvalidReservation"
        if job.deps:
            state = self._dependency_state(job)
            if state != "ok":
                return "DependencyNeverSatisfied" if state == "never" else "Dependency"
            # fulfilled: Slurm flushes the list (job_scheduler.c test_job_dependency), so a
            # job requeued later does not wait for it again (a singleton for its namesake)
            job.deps, job.deps_any, job.dep_done = (), False, None
        if job.begin > self.env.now:
            return "BeginTime"
        if resv is not None and self.env.now < resv.start:
            return "Reservation"
        if job.alts is None:
            return self._partition_reason(job, job.res, None)
        # -p a,b: it waits in the partitions whose limits it meets; none: the first's
        reasons = [self._partition_reason(job, res, shape) for res, shape, _p in job.alts]
        return None if None in reasons else reasons[0]

    def waits_in(self, job: SimJob) -> list[int]:
        """``-p a,b``: the indices in ``job.alts`` of the partitions it may wait in (whose
        state and limits it meets: :meth:`_partition_reason`), in the order they are tried."""
        return [
            k
            for k, (res, shape, _pending) in enumerate(job.alts)
            if self._partition_reason(job, res, shape) is None
        ]

    def _partition_reason(self, job: SimJob, res: Resources, shape: tuple | None) -> str | None:
        """Why the job cannot wait in the partition of ``shape`` (its own for None): the
        partition's state and limits; None when it can."""
        if shape is None:
            part, limit, count = self.cluster.partition(job.partition), job.limit, job.count
        else:
            part, limit, count = (
                self.cluster.partition(shape[0]),
                self._limit_in(job, shape),
                shape[6],
            )
        if part.state in ("DOWN", "INACTIVE"):
            return "PartitionDown" if part.state == "DOWN" else "PartitionInactive"
        if (
            part.max_time is not None
            and limit > part.max_time.total_seconds()
            and not job.admin_time  # (an operator's limit: job_mgr.c ADMIN_SET_LIMIT)
        ):
            return "PartitionTimeLimit"
        # (-N MIN-MAX: its MAX too, job_mgr.c _part_access_check, though it could run on MIN)
        if part.max_nodes is not None and max(count, job.spec.max_nodes or 0) > part.max_nodes:
            return "PartitionNodeLimit"
        if count < part.min_nodes:  # (EnforcePartLimits=NO, the default: it pends)
            return "PartitionNodeLimit"
        if res.limit_reason is not None:  # above MaxMemPerNode / MaxMemPerCPU
            return res.limit_reason
        return None  # (a QOS's MaxWall is a QOS limit: Controller._limit_reason)

    def _named_array(self, key: str) -> str:
        """``key``, or the name of the array (its scenario id) whose JobID ``key`` is."""
        return self._array_numbers.get(int(key), key) if key.isdigit() else key

    def _ids_of(self, key: str | int) -> list[int] | None:
        """The job ids ``key`` names (see :meth:`_lookup`), or None. As in Slurm, an array's
        JobID names the whole array (its last task keeps that JobID), ``JOBID_TASK`` one
        task, also when the array has a scenario id (``arr``, ``arr_3``), and a task's own
        JobID (given when it left the array's pending record) that task; a job with a
        scenario id is also known by its JobID. ``JOBID_*`` names the whole array, as in
        scancel (opt.c) and --dependency (job_scheduler.c)."""
        key = str(key)
        if key.endswith("_*"):
            key = key[:-2]
        ids = self.by_key.get(key)
        if ids is None and key.isdigit():
            n = int(key)
            named = self._array_numbers.get(n) or self._numbers.get(n)
            if named is not None:
                return self.by_key.get(named)
        if ids is None:
            m = _TASK_RANGE.fullmatch(key) or _ONE_TASK.fullmatch(key)
            if m:  # ARRAY_[1-3,5] or ARRAY_3: tasks of an array
                base = self._named_array(m.group(1))
                out = []
                for task in _task_indices(m.group(2)):
                    some = self.by_key.get(f"{base}_{task}")
                    if some is None:
                        return None
                    out += some
                return out or None
        return ids

    def _targets(self, job: SimJob, ref: str) -> list[SimJob]:
        ids = self._ids_of(ref)
        if ids is None:  # pragma: no cover - submit checks every reference first
            raise SlurmlabError(
                f"job {job.key}: --dependency names job {ref!r}, which was not submitted before it"
            )
        for i in ids:
            self.dependents.setdefault(i, set()).add(job.id)
        return [self.jobs[i] for i in ids]

    def _dependency_state(self, job: SimJob) -> str:
        """'ok', 'wait' or 'never' for the job's --dependency list (',' all / '?' any).

        Each condition on one job (``afterok:12:13`` is two) is decided once: slurmctld tests
        only those still DEPEND_NOT_FULFILLED (job_scheduler.c test_job_dependency), so one
        that failed stays failed, and one fulfilled stays fulfilled, whatever the job it
        names does later (sbatch(1): "Once a job dependency fails due to the termination
        state of a preceding job, the dependent job will never be run, even if the
        preceding job is requeued and has a different termination state")."""
        results = []
        done = job.dep_done
        for k, dep in enumerate(job.deps):
            if dep.kind == "singleton":
                state = done.get((k, None)) if done else None
                if state is None:
                    state = self._singleton_state(job)
                    if state != "wait":
                        done = self._decided(job, (k, None), state)
                results.append(state)
                continue
            states = []
            for ref in dep.job_ids:
                state = done.get((k, ref)) if done else None
                if state is None:
                    state = self._ref_state(job, dep.kind, ref)
                    if state != "wait":
                        done = self._decided(job, (k, ref), state)
                states.append(state)
            if "never" in states:
                results.append("never")
            elif all(s == "ok" for s in states):
                results.append("ok")
            else:
                results.append("wait")
        if job.deps_any:
            if "ok" in results:
                return "ok"
            return "never" if all(r == "never" for r in results) else "wait"
        if "never" in results:
            return "never"
        return "ok" if all(r == "ok" for r in results) else "wait"

    @staticmethod
    def _decided(job: SimJob, key: tuple, state: str) -> dict:
        """Keep a dependency condition's outcome for good (:meth:`_dependency_state`)."""
        if job.dep_done is None:
            job.dep_done = {}
        job.dep_done[key] = state
        return job.dep_done

    def _ref_state(self, job: SimJob, kind: str, ref: str) -> str:
        """One dependency condition on the job(s) ``ref`` names: 'ok', 'wait' or 'never'.

        A whole job array is tested as a whole, as Slurm does: ``afterok`` is satisfied once
        every task has ended and all completed, ``afternotok`` once every task has ended and
        one did not, ``afterany`` once every task has ended, ``after`` once every task has
        started. ``aftercorr`` makes an array task wait for the task of the same index.
        A task that once ended otherwise than COMPLETED counts as not completed even if it
        was requeued and completed since: job_mgr.c test_job_array_complete is false once
        the array's max_exit_code is not 0, which _job_array_comp raises for such an end
        (9 for a cancelled task) and nothing lowers.
        """
        if kind == "aftercorr" and self._corr_record(job):
            # the array's pending record: tested as a whole, and "still depends" rather than
            # failed (job_scheduler.c _test_job_dependency_common, array_task_id NO_VAL)
            state = self._ref_state(job, "afterok", ref)
            return "wait" if state == "never" else state
        targets = self._targets(job, ref)
        whole = self._whole_array(ref, targets[0])
        age = self._min_job_age
        if age:  # records slurmctld had purged when the job was submitted (see _records)
            oldest = job.submit - age
            targets = [
                t for t in targets
                if t.state in ("PENDING", "RUNNING") or t.end is None or t.end >= oldest
            ]  # fmt: skip
            if not targets:  # test_job_dependency: "job is gone, dependency lifted"
                return "ok"
        if len(targets) == 1 and whole is None:
            return _dep_one(kind, targets[0])
        if kind == "aftercorr":
            mine = [t for t in targets if t.array_task == job.array_task]
            if mine:  # (no such task, or not an array task: the whole array)
                return _dep_one(kind, mine[0])
        if kind == "after":
            return "ok" if all(_dep_one(kind, t) == "ok" for t in targets) else "wait"
        if any(t.state in ("PENDING", "RUNNING") for t in targets):
            return "wait"
        if kind == "afterany":
            return "ok"
        completed = whole not in self._array_failed and all(t.state == "COMPLETED" for t in targets)
        if kind == "afternotok":
            return "never" if completed else "ok"
        return "ok" if completed else "never"  # afterok, aftercorr

    def _whole_array(self, ref: str, target: SimJob) -> int | None:
        """The array (its first task's id) ``ref`` names whole (``12``, ``12_*``, a scenario
        id), of which ``target`` is a task; None when it names tasks or a job that is no
        array (slurmctld's array_task_id INFINITE, tested by test_job_array_complete)."""
        if target.array_id is None:
            return None
        key = ref.removesuffix("_*")
        base = array_name(target)
        named = self._array_numbers.get(int(key)) if key.isascii() and key.isdigit() else None
        return target.array_id if key == base or named == base else None

    def _singleton_state(self, job: SimJob) -> str:
        """``--dependency=singleton``: no job of the same name and user may be running, nor
        pending with a lower JobID (job_scheduler.c _find_singleton_job compares the job_id
        of the records: a task in its array's pending record has the array's, one split off
        or requeued after it ran its own, given later; the tasks of one record do not
        block one another).

        It waits for the first such job, and when that one runs, also for the first pending
        one: a running job requeued pends again (with its own, higher JobID for a task),
        which releases no dependent, while the pending one's start or end does."""
        running = None
        for other in self.jobs.values():
            if other.name != job.name or other.user != job.user or other.id == job.id:
                continue
            if other.state == "PENDING" and other.raw < job.raw:
                self.dependents.setdefault(other.id, set()).add(job.id)
                running = running or other
                break
            if other.state == "RUNNING" and running is None:
                running = other
        if running is None:
            return "ok"
        self.dependents.setdefault(running.id, set()).add(job.id)
        return "wait"

    def _release_dependents(self, job: SimJob) -> None:
        """Look again at the jobs depending on ``job`` (it started or ended). A job whose
        dependency is now satisfied joins the queue, and a pass follows at this instant:
        a dependency satisfied is an arrival (``after:`` is satisfied by a start, inside a
        pass, so the pass that follows is another one at the same time).

        An array task's end otherwise than COMPLETED (not a requeue: that ends no run in
        job_completion_logger's sense) marks its array for good (``_array_failed``): its
        max_exit_code, job_mgr.c _job_array_comp."""
        if job.array_id is not None and job.state not in ("COMPLETED", "RUNNING", "PENDING"):
            self._array_failed.add(job.array_id)
            if job.array_id in self._corr_arrays and not job.in_rec:
                self._arm_aftercorr_split()  # (a split-off task cancelled while pending)
        released = False
        for jid in sorted(self.dependents.pop(job.id, ())):
            dep = self.jobs[jid]
            if dep.state == "PENDING" and jid in self.waiting:
                self._enqueue(dep)
                released = released or jid not in self.waiting
        if released:
            self.request_pass()

    def _set_reason(self, job: SimJob, reason: str) -> None:
        if job.reason != reason:
            if reason == "Priority" or reason == "None":
                self._odd.discard(job.id)
            else:
                self._odd.add(job.id)
            job.reason = reason
            job.reasons.append((self.env.now, reason))

    # -- control ------------------------------------------------------------------------------
    def cancel(self, key: str | int) -> None:
        """``scancel``: end a pending or running job (all tasks of an array) as CANCELLED. A
        job that has already ended is refused with scancel's error, and so is one whose record
        slurmctld has purged (:meth:`_records`)."""
        jobs = self._records(key, "scancel")
        if not any(j.state in ("PENDING", "RUNNING") for j in jobs):
            raise SlurmlabError(
                f"scancel: error: Kill job error on job id {key}: Job/step already completing "
                "or completed"
            )
        # (every task of a record: it ends whole, CANCELLED with them; some: taken out of it)
        for job in self._some_of_records(jobs):
            self._leave_record(job, ended=True)
        for job in jobs:
            if job.state == "RUNNING":
                self.interrupt(job, Cancelled())
            elif job.state == "PENDING":
                if job.id in self.waiting:
                    self.waiting.discard(job.id)
                else:
                    self._dequeue(job)
                job.state = "CANCELLED"
                job.end = self.env.now
                job.exit_code = "0:0"
                self.log("end", job, "CANCELLED")
                self._release_dependents(job)
                self.request_pass()

    def hold(self, key: str | int, *, admin: bool = False) -> None:
        """``scontrol hold``: a pending job waits until released, with reason JobHeldUser
        (by the job's user) or JobHeldAdmin (``admin``: by an administrator, as a scenario's
        actions are). A running job runs on, shown held (squeue: that reason, priority 0, as
        in real Slurm 22.05); the hold matters if it is requeued: it then pends, held. A job
        that has ended is refused, as scontrol refuses it."""
        self._hold(key, "JobHeldAdmin" if admin else "JobHeldUser", "hold")

    def requeue_hold(self, key: str | int) -> None:
        """``scontrol requeuehold``: requeue the job (:meth:`requeue`) and hold it; squeue
        shows the reason as slurmctld words it, ``job requeued in held state``."""
        jobs = self._records(key, "scontrol requeuehold")  # (a purged job: refused in its words)
        # only the jobs it requeues are held: a pending one (an array's waiting tasks) is
        # left as it is (_job_requeue_op, job_mgr.c: ESLURM_JOB_PENDING before the hold)
        requeued = {j.id for j in jobs if j.state != "PENDING"}
        self.requeue(key, "scontrol requeuehold")  # (a running job is held before its
        # interruption requeues it)
        self._hold(key, REQUEUE_HELD, "requeuehold", only=requeued)

    def _hold(self, key: str | int, reason: str, command: str, only: set | None = None) -> None:
        jobs = self._records(key, f"scontrol {command}")
        if only is not None:
            jobs = [j for j in jobs if j.id in only]
        if not any(j.state in ("PENDING", "RUNNING") for j in jobs):
            raise SlurmlabError(f"scontrol {command} {key}: Job has already finished")
        self._split_tasks(jobs)
        for job in jobs:
            if job.held in (reason, "JobHeldAdmin") or job.state not in ("PENDING", "RUNNING"):
                continue
            job.held = reason
            if job.state == "RUNNING":  # (nothing to schedule: it keeps its nodes; squeue
                job.reasons.append((self.env.now, reason))  # shows it, a requeue keeps it)
                if reason != REQUEUE_HELD:
                    # _hold_job_rec (job_mgr.c) zeroes its begin time and stores that in the
                    # database: sacct shows the run's Eligible as Unknown (real fixture holds;
                    # a release does not store it again); requeuehold holds the next run only
                    job.eligible = None
                continue
            if job.id not in self.waiting:
                self._dequeue(job)
                self.waiting.add(job.id)
            # no longer eligible: it is again when released (sacct's Eligible, and the age
            # factor counts from then: real Slurm 22.05, fixture holds)
            job.eligible = None
            # squeue --start: N/A. Slurm's hold leaves the job's sched_nodes: only a backfill
            # cycle with jobs to test clears them (backfill.c _attempt_backfill:
            # _clear_job_estimates after build_job_queue), so SCHEDNODES keeps the nodes of
            # its last plan till then (real fixture holds: a held job's gpu1 while every
            # pending job is held); the slurm policy's cycles clear them (_backfill_tick)
            kept = bool(getattr(self.policy, "interval", None))
            job.drop_plan(self.env.now, keep_nodes=kept)
            if kept and job.sched and job.sched[-1][1] is not None:
                self._held_nodes.add(job.id)
            self._plans.discard(job.id)
            self._set_reason(job, reason)
            self._changed()
            # a change for the next backfill cycle too, which is not skipped as idle
            # (_update_job, job_mgr.c, sets last_job_update: backfill.c _more_work)
            self._bf_seen = -1
            self.request_pass()

    def _corr_record(self, job: SimJob) -> bool:
        """Whether ``job`` is a task in the pending record of an aftercorr array, one not yet
        its last task (:meth:`_split_aftercorr`)."""
        return (
            job.array_id in self._corr_arrays
            and in_record(job)
            and job.array_id not in self.converted_at
        )

    def _arm_aftercorr_split(self) -> None:
        """Split aftercorr arrays' tasks once this instant's events are done, before its
        scheduling pass (or right after the pass that started a split-off task)."""
        if not self._corr_armed:
            self._corr_armed = True
            self._at(0, self._split_aftercorr, NORMAL)

    def _split_aftercorr(self, _event=None) -> None:
        """Each scheduling pass, slurmctld's build_job_queue (job_scheduler.c) splits the
        pending tasks of an array with an aftercorr dependency off its pending record, one
        by one in task order, into records of their own (job_array_split: each the next
        JobID), while fewer than ``correspond_after_task_cnt`` (SchedulerParameters, 10 by
        default) of its tasks pend split off; a record left with one task becomes that task
        (job_array_post_sched: it keeps the array's JobID). Each split-off task then tests
        its own aftercorr, on the task of the same index. No more once the record's
        dependencies are satisfied (the list flushed). slurmlab splits at the instant of the
        submission, and whenever a split-off task starts or is cancelled."""
        self._corr_armed = False
        now = self.env.now
        for array_id in sorted(self._corr_arrays):
            first = self.jobs[array_id]
            n = len(first.spec.array.indices)
            tasks = [self.jobs[i] for i in range(array_id, array_id + n)]
            record = [t for t in tasks if in_record(t)]
            if (
                not record
                or array_id in self.converted_at
                or not any(d.kind == "aftercorr" for d in record[0].deps)
            ):
                self._corr_arrays.discard(array_id)
                continue
            pending = sum(t.state == "PENDING" and not t.in_rec for t in tasks)
            take = min(self._corr_cnt - pending, len(record) - 1)
            if take > 0:
                self._split_tasks(record[:take])
            if len(record) - max(take, 0) == 1 and pending + max(take, 0) < self._corr_cnt:
                self.converted_at.setdefault(array_id, now)  # (its one task: post_sched)
                self._corr_arrays.discard(array_id)
            for job in record[: max(take, 0)] + record[-1:]:
                self._recheck(job)  # (its own aftercorr now, or the record's still)

    def _split_tasks(self, jobs: list[SimJob]) -> None:
        """Slurm keeps an array's pending tasks in one job record until they start; changing
        some of them but not all (scontrol hold 12_3) splits those off into records of their
        own, which show their own reason and get JobIDs of their own (:meth:`_leave_record`).
        Changing every task the record holds splits nothing (job_mgr.c update_job_str)."""
        now = self.env.now
        for job in self._some_of_records(jobs):
            self._split_arrays.add(job.array_id)
            self._leave_record(job)
            job.split = now
            job.pending = job.pending_plan = None  # (its record: its own now)
            for alt in job.alts or ():
                alt[2] = None
            self._reorder(job, job.split_order(len(job.spec.array.indices)))

    def _some_of_records(self, jobs: list[SimJob]) -> list[SimJob]:
        """The array tasks of ``jobs`` in their arrays' pending records, where ``jobs`` names
        some of a record's tasks but not all (a command naming all acts on the record whole),
        each array's in task order (the record's bitmap order)."""
        out: list[SimJob] = []
        for array_id in {j.array_id for j in jobs if j.array_id is not None}:
            chosen = [j for j in jobs if j.array_id == array_id and in_record(j)]
            if len(chosen) < self._in_record[array_id]:
                out += sorted(chosen, key=lambda j: j.array_task)
        return out

    def _leave_record(self, job: SimJob, ended: bool = False) -> None:
        """An array task leaves its array's pending record (:func:`in_record`): it starts,
        scontrol changes it alone, or (``ended``) scancel ends it while pending. A task that
        leaves others behind gets a JobID of its own, the next number (job_mgr.c
        job_array_split); the last keeps the array's (job_array_post_sched). A cancelled
        task gets none: slurmctld only takes it out of the record (job_str_signal)."""
        job.in_rec = False
        left = self._in_record[job.array_id] - 1
        self._in_record[job.array_id] = left
        if left and not ended:
            job.raw = self._next_jobid
            self._next_jobid += 1
            self._numbers[job.raw] = job.key
            if left == 1:  # the record is its last task now (job_array_post_sched)
                self.converted_at.setdefault(job.array_id, self.env.now)
                if job.array_id in self._split_arrays:  # ordered by its task id among the
                    tasks = len(job.spec.array.indices)  # tasks split off before it (only
                    ids = range(job.array_id, job.array_id + tasks)  # they can tie with it)
                    last = next(t for i in ids if in_record(t := self.jobs[i]))
                    self._reorder(last, last.split_order(tasks))

    def release(self, key: str | int, *, admin: bool = False) -> None:
        """``scontrol release``: a held job (``sbatch -H``, ``scontrol hold``) may start
        again (a running one is no longer shown held), with its priority set again: under
        priority/basic it goes behind every job submitted before the release. Releasing a job
        that is not held does nothing, and one that has ended is refused, as scontrol does
        (real Slurm 22.05). An administrator's hold (JobHeldAdmin) is released only by an
        administrator (``admin``, as a scenario's actions are): its user is refused, Access/
        permission denied (job_mgr.c _update_job: a user may release a WAIT_HELD_USER hold
        only), and the job stays held; the others named are released."""
        jobs = self._records(key, "scontrol release")
        if not any(j.state in ("PENDING", "RUNNING") for j in jobs):
            raise SlurmlabError(f"scontrol release {key}: Job has already finished")
        held = [j for j in jobs if j.state in ("PENDING", "RUNNING") and j.held]
        denied = [] if admin else [j for j in held if j.held == "JobHeldAdmin"]
        held = [j for j in held if j not in denied]
        # (update_job_str splits the tasks named off their array's record before it looks
        # at their holds: a release of a task not held splits it too)
        self._split_tasks(jobs)
        if held:  # its priority is set again (job_mgr.c set_job_prio): under priority/basic it
            self._seq += 1  # goes behind every job queued (real Slurm 22.05); one for all
        for job in held:  # the tasks released together, as for one submission
            job.held = None
            job.seq = self._seq
            self._reprioritise(job)
            if job.state == "RUNNING":
                job.reasons.append((self.env.now, "None"))
            else:
                self._recheck(job)
        if denied:
            raise SlurmlabError(
                f"scontrol release {key}: Access/permission denied for job "
                f"{', '.join(j.key for j in denied)} (an administrator held it: JobHeldAdmin; "
                "its user may release only a user's hold, JobHeldUser. An administrator "
                "releases it: a scenario's action {at: ..., action: release, job: "
                f"{denied[0].key}}}, or in a Lab lab.release({denied[0].key!r}, admin=True))"
            )

    def requeue(self, key: str | int, command: str = "scontrol requeue") -> None:
        """``scontrol requeue``: a running job's run ends REQUEUED and it pends again; a
        finished one pends again to run from the start (scontrol(1): "a running, suspended
        or finished Slurm batch job") while slurmctld still holds its record, MinJobAge after
        its end (:meth:`_records`). A job that may not be requeued (``--no-requeue``, or
        ``JobRequeue=0`` without ``--requeue``) is refused, as Slurm refuses it."""
        jobs = [j for j in self._records(key, command) if not taken_out(j)]
        if not jobs:  # (scancel took it out of its array's pending record: job_str_signal)
            raise SlurmlabError(
                f"{command} {key}: Invalid job id specified (scancel took it out of its "
                "array's pending record before it started, so slurmctld keeps no record of it)"
            )
        whole = {j.array_id for j in jobs if j.in_rec and j.state != "PENDING"}
        if whole:  # a record scancel ended whole is one job record: all its tasks pend again
            more = [j for j in self.jobs.values() if j.array_id in whole and j.in_rec]
            jobs = sorted({*jobs, *more}, key=lambda j: j.id)  # (in task order)
        if all(j.state == "PENDING" for j in jobs):
            raise SlurmlabError(f"{command} {key}: Job is pending execution")
        stuck = [j.key for j in jobs if not j.requeue and j.state != "PENDING"]
        if stuck:
            raise SlurmlabError(
                f"{command} {key}: Requested operation is presently disabled for job "
                f"{stuck[0]} (it is not requeueable: --no-requeue, or JobRequeue=0 without "
                "--requeue)"
            )
        for job in jobs:
            if job.state == "RUNNING":
                self.interrupt(job, Requeued())
            elif job.state != "PENDING":  # finished: its last run stays in sacct -D
                self._changed()
                if job.ckpt is None or job.work_left <= 0:
                    # the batch script runs again from the start (a completed one too), so
                    # the work its last run saved is done again: lost, not useful twice
                    job.work_left, job.scratch = job.runtime, True
                    job.acct["lost"] += job.acct["useful"]
                    job.acct["useful"] = 0.0
                # else it resumes from its last checkpoint, as after any other requeue
                self._requeue_finished(job)
                self.request_pass()

    def _requeue_finished(self, job: SimJob) -> None:
        """A finished job pends again: slurmdbd's record of its last run becomes REQUEUED,
        ending now (job_mgr.c _job_requeue_op sets end_time = now for a job not completing
        and job_state = JOB_REQUEUE before job_completion_logger; as_mysql_job_complete
        rewrites the run's row, db_index still set, with time_end and that state). Its
        nodes were free from its end: the run's End stays that (squeue, sinfo and goodput
        at a time read it); ``db_end``, the End sacct shows, is the requeue
        (SimulationResult.jobs_all_runs)."""
        self._requeue(job, "REQUEUED")
        job.runs[-1]["db_end"] = self.env.now

    def _work_remaining(self) -> bool:
        """Whether anything can still happen without random failures (they stop otherwise).

        Work remains while jobs run or arrive, a scripted event is to come, a queued job
        could run on the nodes that are or will be back in service, or a job waits for a time
        (BeginTime). Otherwise nothing can change: with nothing running, a job held by a
        QOS/association limit, one that no node in service can ever hold, and one waiting on
        a dependency among them, never start (Slurm would leave them pending for ever).
        """
        if self.running or self._arrivals_left or self._scripted:
            return True
        held = ("QOS", "Assoc")
        back = self.capacity.copy()  # every node that is or will be back, idle
        out = [self.node_index[n] for n in self._drained | self._down_for_good]
        back[out] = 0
        for key, jid in self.queue:
            job = self.jobs[jid]
            if job.reason.startswith(held):
                continue
            rec = job if job.alts is None else self._pending_of(job, key)  # (-p a,b: its record)
            mask = rec.mask
            if job.spec.reservation and job.spec.reservation in self.reservations:
                mask = mask & self.reservations[job.spec.reservation][1]
            if choose_nodes(back, self.capacity, bare_request(rec), mask):  # (could it ever)
                return True
        return any(
            self.jobs[j].reason not in PERMANENT and self.jobs[j].reason != "Dependency"
            for j in self.waiting
        )

    def add_actions(self, actions) -> list[Action]:
        """Schedule scripted admin actions (cancel, requeue, hold, release, requeuehold or
        update a job; drain or resume a node); return them with ``at`` in seconds.

        An action's ``at`` is read as the API's other times are (seconds, ``"1h"``,
        ``"1:00:00"``, a timedelta). An action runs after the arrivals of its instant (so it
        can name a job submitted then) and before that instant's scheduling pass.
        """
        timed = [_timed(act) for act in parse_list_of(actions, Action, what="actions")]
        for act in timed:
            self._scripted_at(act.at - self.env.now, lambda a=act: self._do(a), LATE)
        return timed

    def _do(self, act) -> None:
        """One scripted action. One that Slurm would refuse (requeue of a job that may not
        be requeued, say) is a warning, as scontrol prints an error and the cluster goes on."""
        try:
            if act.action == "cancel":
                self.cancel(act.target)
            elif act.action == "requeue":
                self.requeue(act.target)
            elif act.action == "hold":  # (an administrator's: JobHeldAdmin)
                self.hold(act.target, admin=True)
            elif act.action == "release":  # (an administrator's: any hold)
                self.release(act.target, admin=True)
            elif act.action == "requeuehold":
                self.requeue_hold(act.target)
            elif act.action == "update":  # (an administrator's: an operator may raise limits)
                changes = dict(act.changes)
                self.update(
                    act.target, nodes=changes.get("nodes"), time_limit=changes.get("time"),
                    partition=changes.get("partition"), operator=True,
                    throttle=changes.get("throttle"),
                )  # fmt: skip
            elif act.action == "drain":
                self.set_node_state(act.target, "DRAIN")
            else:
                self.set_node_state(act.target, "IDLE")
        except SlurmlabError as exc:
            warnings.warn(
                f"action {act.action} {act.target} at t={act.at:g}s refused: {exc}", stacklevel=2
            )
            self.events.append((self.env.now, "refused", None, None, f"{act.action} {act.target}"))

    def _lookup(self, key: str | int) -> list[SimJob]:
        """The jobs ``key`` names: a job's id or key, an array (all its tasks), an array task
        ``ID_TASK``, or an array task's own numeric JobID (JobIDRaw), as scancel takes them."""
        ids = self._ids_of(key)
        if ids is None:
            raise SlurmlabError(f"Invalid job id specified: {key!r}{self._why_unknown(key)}")
        return [self.jobs[i] for i in ids]

    def _why_unknown(self, key: str | int) -> str:
        """Why no job has the id ``key``, when slurmlab can say: the tasks an array named
        ``ARRAY_TASK`` has, or that no job was submitted yet."""
        key = str(key)
        m = _TASK_RANGE.fullmatch(key) or _ONE_TASK.fullmatch(key)
        if m:
            named = self.by_key.get(self._named_array(m.group(1)), ())
            tasks = [self.jobs[i].array_task for i in named]
            if tasks and None not in tasks:
                listed = array_task_str(tasks, bitstr_len=0)
                return f" (array {m.group(1)} has tasks {listed}: name one of those)"
        if not self.jobs:
            return " (no job has been submitted yet)"
        return ""

    def _records(self, key: str | int, command: str) -> list[SimJob]:
        """The jobs ``key`` names (:meth:`_lookup`) whose records slurmctld still holds, for
        ``command`` (scancel, scontrol requeue/hold/release) to act on.

        slurmctld purges the record of a job that ended MinJobAge seconds ago or more
        (slurm.conf, 300 by default; 0 purges none; job_mgr.c ``_list_find_job_old``) at its
        periodic purge: slurmlab counts it gone once more than MinJobAge has passed. A
        command naming only purged jobs fails with "Invalid job id specified"; purged tasks
        of an array it names are left out. Each task counts by its own end (Slurm keeps an
        array's head record until the whole array has ended; slurmlab does not tell it
        apart). sacct still lists purged jobs (the database keeps them).
        """
        if command == "scancel" and self._ids_of(key) is None:  # (scancel's own words)
            raise SlurmlabError(
                f"scancel: error: Kill job error on job id {key}: Invalid job id specified"
                f"{self._why_unknown(key)}"
            )
        jobs = self._lookup(key)
        age = self._min_job_age
        if not age:
            return jobs
        oldest = self.env.now - age
        kept = [
            j for j in jobs if j.state in ("PENDING", "RUNNING") or j.end is None or j.end >= oldest
        ]
        if kept:
            return kept
        end = max(j.end for j in jobs)
        where = "scancel: error: Kill job error on job id" if command == "scancel" else command
        raise SlurmlabError(
            f"{where} {key}: Invalid job id specified (it ended at t={end:g}s, more than "
            f"MinJobAge={age:g} s before t={self.env.now:g}s, so slurmctld has purged its "
            "record; sacct still lists it): submit it again, or set MinJobAge higher (0 keeps "
            "every record)"
        )

    def run(self, until: float | None = None, progress=None) -> None:
        """Advance simulated time (to ``until``, or until nothing is left to happen)."""
        with _paused_gc():
            self._run_until(until, progress)

    def _run_until(self, until: float | None, progress) -> None:
        self._unbounded = until is None  # (a job failing for ever then ends the run: _requeue)
        if until is None:
            if progress is None and not self._random_failures:
                self.env.run()
                return
            queue = self.env._queue  # simpy's heap of (time, priority, id, event)
            while self.env.peek() < INF:
                # random failures go on for ever: the run ends before the next failure or
                # repair once nothing is left to happen (not at the failure, days later)
                if queue[0][3] in self._failure_waits and not self._work_remaining():
                    return
                self.env.step()
                if progress is not None:
                    progress(self.env.now)
            return
        while self.env.peek() <= until:
            self.env.step()
        if until > self.env.now:  # (nothing happens up to it: the clock moves there. Not
            self._at(until - self.env.now, _nothing)  # env.run(until), which leaves its spent
            self.env.step()  # stop event in the queue, so that peek() never reaches inf)


#: (after everything else at an instant: a refused arrival's error)
_LAST = AFTER_PASS + 1


def _nothing(_event) -> None:
    pass


def taken_out(job: SimJob) -> bool:
    """Whether scancel took ``job``, an array task, out of its array's pending record alone
    before it ever started: slurmctld then keeps no record of it (job_str_signal)."""
    return (
        job.array_id is not None
        and not job.in_rec
        and job.split is None
        and job.state == "CANCELLED"
        and all(r["Start"] is None for r in job.runs)
        and job.start is None
    )


def array_name(task) -> str:
    """The array's name as its tasks' JobIDs show it: ``7`` for ``7_5``, a scenario's id
    (``step`` for ``step_5``)."""
    return task.key[: -len(f"_{task.array_task}")]


_TASK_RANGE = re.compile(r"(.+)_\[([\d,\s-]+)\]")
#: job_scheduler.c CORRESPOND_ARRAY_TASK_CNT: the least correspond_after_task_cnt
_CORRESPOND_TASK_CNT = 10
#: a JobID slurmctld reads in --dependency: not 0, an optional _TASK or _* after it
_JOBID = re.compile(r"0*[1-9][0-9]*(?:_(?:[0-9]+|\*))?")
_ONE_TASK = re.compile(r"(\d+)_(\d+)")  # JOBID_TASK of an array known by its scenario id


def _task_indices(text: str) -> list[int]:
    """``1-3,5`` -> [1, 2, 3, 5] (scancel's ``ARRAY_[...]`` task list)."""
    out = []
    for part in text.replace(" ", "").split(","):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            return []
        out += range(int(a), int(b or a) + 1)
    return out


def _dep_one(kind: str, target: SimJob) -> str:
    """One dependency condition against one job: 'ok', 'wait' or 'never'."""
    st = target.state
    if kind == "after":
        return "ok" if st != "PENDING" or target.start is not None else "wait"
    if st in ("PENDING", "RUNNING"):
        return "wait"
    if kind == "afterany":
        return "ok"
    if kind in ("afterok", "aftercorr"):
        return "ok" if st == "COMPLETED" else "never"
    if kind == "afternotok":
        return "never" if st == "COMPLETED" else "ok"
    raise AssertionError(kind)  # pragma: no cover


def last_tried(sim: Simulation, job: SimJob) -> tuple[str, int]:
    """The partition and node count of the job's record a pass tries last: its own, and for
    ``-p a,b`` the last partition it waits in (whose attempt leaves the reason squeue shows:
    a busy partition tried after one short of nodes clears that one's state_desc)."""
    waits = [] if job.alts is None else sim.waits_in(job)
    if not waits:
        return job.partition, job.count
    shape = job.alts[waits[-1]][1]
    return shape[0], shape[6]


def iter_records(sim: Simulation) -> Iterable[tuple[SimJob, dict, bool]]:
    """Every run of every job as (job, run, is_last): earlier runs of requeued jobs first."""
    for job in sim.jobs.values():
        for run in job.runs:
            yield job, run, False
        yield job, sim._run_record(job, job.state), True  # noqa: SLF001


def _unsplit_at(job: SimJob, t: float) -> bool:
    """Whether an array task is still part of its array's pending record at ``t``: submitted,
    and neither started nor ended by then (once it has, it is a job of its own for good)."""
    span = _unsplit_span(job)
    return span is not None and span[0] <= t < span[1]


def _unsplit_span(job: SimJob) -> tuple[float, float] | None:
    """The times ``[from, until)`` at which an array task is part of its array's pending
    record (:func:`_unsplit_at`), or None when there are none: from its submission until it
    first starts, ends without starting (cancelled) or is split off by scontrol (on some of
    the array's tasks). Only its first run counts, so that the record at ``t`` is what it
    was then: a task started (or requeued) later was in the record until it left it, and a
    requeued task pends as a job of its own, as in Slurm."""
    if job.runs:  # (requeued: its first run's times)
        first = job.runs[0]
        submit, start, end = first["Submit"], first["Start"], first["End"]
    else:
        submit, start, end = job.submit, job.start, job.end
    until = math.inf
    if start is not None:
        until = start
    elif end is not None:
        until = end
    if job.split is not None:
        until = min(until, job.split)
    return (submit, until) if until > submit else None


def array_heads(sim: Simulation, t: float) -> dict[int, SimJob]:
    """For each job array, the task whose reason and expected start all its pending tasks
    show at ``t``.

    Slurm keeps the tasks that have not started in one job record (the array's JobID) with
    one reason and one expected start; a task becomes a job of its own when it starts.
    ``squeue -r`` lists the tasks of that record with the record's reason, which the
    scheduler set when it evaluated the record: its first task.
    """
    heads: dict[int, SimJob] = {}
    # (in JobID order: an array's tasks in task order; a task in its array's record at t is
    # pending then, so among the unfinished jobs)
    for job in unfinished_at(sim, t):
        if job.array_id is not None and job.array_id not in heads and _unsplit_at(job, t):
            heads[job.array_id] = job
    return heads


def arrays_converted(sim: Simulation, t: float) -> set[int]:
    """The job arrays whose pending record had become a plain task record by ``t``.

    slurmctld turns an array's pending record into its last task when splitting a task off
    it leaves one task (job_array_split, job_array_post_sched), the task starting or
    scontrol changing it alone: squeue then prints ``6_5``. A record that shrank otherwise
    (tasks cancelled, whose scancel only takes them out of it) keeps its task list:
    ``6_[1]`` (real Slurm 22.05; ``2_[3]`` before anything). The engine notes when it
    happens (commands at one instant count in the order they were given)."""
    return {a for a, when in sim.converted_at.items() if when <= t}


def shown_as(sim: Simulation, job: SimJob, t: float, heads=None) -> SimJob:
    """The job whose reason and expected start ``job`` shows at ``t`` (pending at ``t``):
    its array's head while it is part of the array's pending record, else itself."""
    if job.array_id is None or not _unsplit_at(job, t):
        return job
    heads = array_heads(sim, t) if heads is None else heads
    return heads.get(job.array_id, job)


def up_at(sim: Simulation, t: float) -> np.ndarray:
    """Which nodes are up at time ``t`` (not down, drained or future): the nodes' states as
    configured, then as the simulation changed them."""
    state = {n.name: n.state for n in sim.cluster.nodes}
    for when, name, st in sim.node_events:
        if when > t:
            break
        state[name] = st
    return np.array([state[n] not in ("DOWN", "DRAIN", "FUTURE") for n in sim.node_names])


def used_at(sim: Simulation, t: float) -> np.ndarray:
    """The (nodes x 3) resources held by runs in progress at time ``t``."""
    used = np.zeros_like(sim.capacity)
    for _job, run, _last in records_at(sim, t):  # (not ended by t)
        if run["Start"] is not None and run["Start"] <= t:
            used[list(run["nodes"])] += run["usage"]
    return used


def unfinished_at(sim: Simulation, t: float) -> Iterable[SimJob]:
    """The jobs that may have a run not ended at ``t``, in JobID order: at the simulation's
    present (``t`` is now) the jobs it queues, holds back or runs (``queue``, ``waiting``
    and ``running``: ``_priority_tick``'s pending jobs are the first two), since every other
    job ended by now and so did every earlier run (a requeue queues the job again); at
    another time every job. So a view of the present costs what the active jobs do, not
    what every job ever submitted does."""
    if t != sim.now:
        return sim.jobs.values()
    ids = {j for _key, j in sim.queue}
    ids.update(sim.waiting, sim.running)
    jobs = sim.jobs
    return [jobs[j] for j in sorted(ids)]


def records_at(sim: Simulation, t: float) -> Iterable[tuple[SimJob, dict, bool]]:
    """The runs of :func:`iter_records` submitted by ``t`` and not ended by then (pending or
    running at ``t``: squeue's rows), in the same order."""
    for job in unfinished_at(sim, t):
        # (a run requeued in the second it was submitted gives the next one a Submit a second
        # later, batch_requeue_fini's "now + 1": that one is queued from the requeue all the
        # same, so a run is there from its Submit or, when it was queued as the run before
        # ended, from that end. A finished job requeued later by scontrol is not listed
        # between its end and the requeue: squeue shows no finished job)
        before = None  # the End of the run before
        for run in job.runs:
            end = run["End"]
            if _queued_by(run["Submit"], before, t) and (end is None or end > t):
                yield job, run, False
            before = end
        if _queued_by(job.submit, before, t) and (job.end is None or job.end > t):
            yield job, sim._run_record(job, job.state), True  # noqa: SLF001


def _queued_by(submit: float, before: float | None, t: float) -> bool:
    """Whether a run submitted at ``submit``, after a run that ended at ``before`` (None:
    the first run), is in the queue at ``t``: from its Submit, or from the end of the run
    before when it was requeued then (its Submit that end or a second later)."""
    if submit <= t:
        return True
    return before is not None and before <= t and submit - before <= 1


def _min_job_age(cluster: Cluster) -> float:
    """slurm.conf MinJobAge in seconds: 300 by default, 0 for no purging (slurm.conf(5))."""
    text = (cluster.setting("MinJobAge", "300") or "300").strip()
    if not (text.isascii() and text.isdigit()):
        raise SlurmlabError(
            f"slurm.conf MinJobAge={text!r}: must be a whole number of seconds, e.g. 300 (the "
            "default; 0 keeps every finished job's record)"
        )
    return float(text)


def _seconds(text: str, key: str) -> float:
    """A slurm.conf time (minutes, M:S, H:M:S, D-H...) in seconds; UNLIMITED is 0 (none)."""
    limit = parse_duration(text, what=f"slurm.conf {key}")
    return 0.0 if limit is None else limit.total_seconds()


def _timed(act: Action) -> Action:
    """``act`` with its ``at`` in seconds: a duration (``"1h"``, a timedelta) read as
    :func:`parse_seconds` reads one; a negative or unreadable time is an error."""
    at = parse_seconds(act.at, what=f"action {act.action} {act.target}: at")
    if type(act.at) in (int, float):  # (already seconds: kept as given)
        return act
    return replace(act, at=at)


def _warn_time_min(policy, key: str) -> None:
    """``--time-min`` is used by Slurm's backfill only (the ``slurm`` policy): say so, once
    per run, when a built-in policy without it meets one."""
    name = getattr(policy, "name", None)
    if name in ("fifo", "easy", "conservative") and type(policy).__module__.startswith("slurmlab"):
        warn_at_caller(
            f"job {key} asks for --time-min, which only Slurm's backfill uses (policy "
            f"'slurm': it may start such a job early with its limit lowered to --time-min); "
            f"under policy {name!r} these jobs keep their full time limits"
        )


def _warn_on_signal(job: SimJob, name: str) -> None:
    """A checkpoint ``on_signal`` that can never act (said once per submission, naming the
    job or array): without ``--signal`` no signal comes before the time limit; with one
    that comes less than the checkpoint's ``write_cost`` before it, the last checkpoint
    cannot be written in time; a job that may not be requeued cannot requeue itself
    (scontrol refuses). Either way the job is killed at its limit (TIMEOUT), its work since
    the last periodic checkpoint lost: the classic mistakes of copying the trap + requeue
    pattern."""
    who, sig, cost = f"job {name}", job.spec.signal, job.ckpt.write_cost
    margin = int(cost) + 60
    if sig is None:
        why = (
            f"{who}: checkpoint on_signal needs --signal: without it no signal comes before "
            f"the time limit to write a last checkpoint; add e.g. --signal=B:USR1@{margin} "
            "(seconds before the limit: more than the checkpoint's write_cost)"
        )
    elif sig.seconds < cost:
        why = (
            f"{who}: --signal comes {sig.seconds:g} s before the time limit, less than the "
            f"checkpoint's write_cost ({cost:g} s), so its last checkpoint cannot be written "
            f"in time; give e.g. --signal=B:USR1@{margin}"
        )
    elif not job.requeue:
        why = (
            f"{who} may not be requeued (--no-requeue, or JobRequeue=0 without --requeue), so "
            "its checkpoint on_signal cannot requeue it on the signal; drop --no-requeue or "
            "add --requeue"
        )
    else:
        return
    warn_at_caller(
        f"{why}; as it is, it is killed at its time limit (TIMEOUT) if it runs that long"
    )


def _who(wjob: WorkloadJob) -> str:
    """``job a: `` for a workload job with an id of its own (a scenario's), else nothing: a
    rejected sbatch gets no job id, and its error must not name the next one (a workload's
    job without an id is named by its position, see ``_arrivals``)."""
    return f"job {wjob.id}: " if wjob.id else ""
