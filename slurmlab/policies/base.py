"""What a scheduling policy sees and what it returns.

A policy never touches the engine. The controller hands it a read-only
:class:`QueueView` (the pending jobs in Slurm's evaluation order, the running jobs
with their expected ends, and free resources per node) and the policy *returns*
a :class:`Decision`: which jobs start now on which nodes, which jobs hold a
reservation at a future time, and the pending reason of every job it looked at.

Your own policy
---------------
Any object with a ``schedule(view)`` method that returns a :class:`Decision` is a policy:
``slurmlab.simulate(cluster, workload, policy=MyPolicy())``, ``Lab(..., policy=MyPolicy())``.
Everything else is optional:

* ``name``: the label of its runs (``result.policy``); the class name lower-cased when absent.
* ``interval``: seconds between timer cycles, which call ``backfill(view)`` (absent or None:
  no timer, only ``schedule`` runs). Cycles fall on multiples of ``interval``; after a cycle
  that started nothing the timer sleeps until the next event (a decision that depends on the
  clock alone is not asked for again until something happens).
* ``backfill(view)``: what a timer cycle decides; when absent, a cycle calls ``schedule``.

``schedule`` runs at the end of every instant in which something happened (a submission,
an end, a node failing or coming back...): a *pass*. An example, shortest time limit first
and no backfill (``tests/test_qa_stop29_policy.py`` runs it as written)::

    import slurmlab
    from slurmlab.policies import Decision, Start


    class ShortestFirst:
        # shortest time limit first; the first job that does not fit blocks the rest

        def schedule(self, view):
            decision = Decision()
            free = view.free.copy()  # the view's arrays are read-only: plan on a copy
            blocked, started = False, set()
            for job in sorted(view.queue, key=lambda j: (j.limit, j.id)):
                if job.id in started:  # (-p a,b: a job is queued once per partition)
                    continue
                if blocked:  # (it blocks at the first record that does not fit)
                    decision.reasons[job.id] = "Priority"
                    continue
                nodes = view.choose_nodes(job, free)  # (Slurm's selection, every rule)
                if nodes is None:
                    decision.reasons[job.id] = "Resources"
                    blocked = True
                    continue
                free[list(nodes)] -= job.usage(nodes, view.capacity)
                decision.starts.append(Start(job.id, nodes, partition=job.partition))
                started.add(job.id)
            return decision


    workload = slurmlab.ai_workload(60, "tiny", seed=1)
    result = slurmlab.simulate("tiny", workload, policy=ShortestFirst(), progress=False)
    print(result.policy, result.metrics["started"])  # shortestfirst 60

The rules a decision follows (the controller checks every decision of a policy that is
not one of the built-in classes, ``Fifo``, ``Easy``, ``Conservative``, ``SlurmBackfill``,
before it applies anything, and raises :class:`~slurmlab.errors.PolicyError` naming the
policy, the time, the job and the mistake; a subclass of a built-in is checked too):

* ``schedule`` returns a :class:`Decision` (``Decision()`` starts nothing).
* It starts only jobs of ``view.queue``, each once, with ``Start(job.id, nodes)``: ``nodes``
  a tuple of ``job.count`` distinct node indices (from ``job.count`` to ``job.most`` for a
  ``--nodes=MIN-MAX`` job; ``view.node_names[i]`` names node ``i``),
  each in ``job.mask`` and up (``view.up``), whose free resources hold the job (its
  :meth:`PendingJob.usage`; ``--exclusive`` jobs take whole idle nodes, and
  ``job.whole_memory`` ones the whole memory of nodes none of whose memory is allocated:
  :meth:`QueueView.choose_nodes`, or :func:`~slurmlab.policies.placement.choose_nodes` given
  ``job.request``, places them so), counting the decision's earlier starts. ``Start.by`` is
  ``"main"`` or ``"backfill"`` (the ``backfilled`` metric counts ``"backfill"``).
* A job Slurm may spread over nodes (``-n`` without ``-N``: ``job.spread`` is its tasks,
  one task's demand and what each node holds besides) may start on
  ``spread_nodes(free, job.request, mask)``'s answer
  (:func:`~slurmlab.policies.placement.spread_nodes`: a ``Spread``, one node or several,
  with its usage on each, which :meth:`PendingJob.usage` returns; ``-n N --gpus=M`` has its
  GPUs dealt over the nodes), as Slurm places it; or on ``job.count`` nodes of
  ``job.demand``, as any other job.
* A job submitted to several partitions (``-p a,b``) is in ``view.queue`` once per
  partition (same ``id``, that partition's ``partition``, ``mask``, ``limit``...): start it
  once, naming the record with ``Start(job.id, nodes, partition=job.partition)``
  (``view.multi`` says whether any such job is queued).
* ``job.mask`` does not include ``up``: use ``job.mask & view.up``.
* ``view.free``, ``view.capacity`` and ``view.up`` are read-only: ``view.free.copy()`` to
  plan on (writing into them raises numpy's "assignment destination is read-only").
* ``view.queue`` can be read as often as needed (and ``len``, ``[i]``); the jobs are made
  as it is read, so a policy that stops early never pays for the rest.
* ``Decision.reasons`` names jobs of ``view.queue`` with a pending reason Slurm gives:
  ``"Resources"`` (next in line but it does not fit), ``"Priority"`` (jobs ahead of it wait)...
* ``Decision.planned[job.id] = t`` (not before ``view.now``) and ``planned_nodes`` are a
  waiting job's expected start and nodes, as ``squeue --start`` shows them. A plan stands
  until the job starts or a decision with ``complete=True`` leaves it out: ``complete``
  says ``planned`` lists every plan that still stands (a policy that plans again at every
  pass sets it, or the plans it dropped stay).
* Planning helpers: :func:`~slurmlab.policies.backfill.availability` (the pass's profile,
  running jobs ending at their limits) and :class:`~slurmlab.policies.profile.Profile`'s
  ``earliest``/``fits``/``reserve`` (``prof.earliest(job.request, mask, job.limit)``).
  ``earliest`` returns ``(i, t, nodes)``: start the job now only when ``i == 0`` (and
  ``t <= view.now``); ``i > 0`` with ``t == view.now`` is a start that counts on running
  jobs past their limits ending now, which they may not.
* ``view.resume`` is always None for it: passes are continued (only the jobs that joined
  the queue handed over) for the built-in classes alone; any other policy, a subclass of
  one too, gets the whole queue at every pass.
* ``view.facts(job)`` gives a queued record's :class:`JobFacts` (user, account, priority,
  eligible time), read when asked: a policy of per-user caps or of age thresholds uses it.
  ``job.array`` names the array whose pending record a task is part of (Slurm tests such
  a record task after task), ``job.array_job`` the array of any task.
* ``job.throttle`` is N for a task of a ``--array=...%N`` array (``job.array_job``), of
  which ``view.array_tasks`` tasks run: start at most N less those
  (:class:`ArrayThrottles` counts them); the controller refuses the starts beyond, which
  then wait for ``JobArrayTaskLimit``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import tee
from operator import attrgetter
from typing import Literal, NamedTuple, Protocol

import numpy as np

from slurmlab.policies.placement import CPU, GPU, MEM, Request, choose_nodes, held

#: squeue's reason (slurmctld's state_desc, with the reason Resources) for a job whose
#: partition has fewer nodes left than it asks for: down, drained, or held in this pass for a
#: job of a higher PriorityTier partition that could not start (job_scheduler.c removes a
#: blocked partition's nodes from those the later jobs of its pass may use); the main
#: scheduler then blocks the job's partition too
NODES_OUT = (
    "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions"
)

__all__ = [
    "CPU",
    "GPU",
    "MEM",
    "NODES_OUT",
    "ArrayThrottles",
    "BlockedBy",
    "Decision",
    "JobFacts",
    "PendingJob",
    "PendingQueue",
    "Policy",
    "QueueView",
    "RunningJob",
    "Start",
    "policy_name",
]


class JobFacts(NamedTuple):
    """Who a queued job is and where it stands, read when a policy asks
    (:attr:`QueueView.facts`): its user and account, its priority (in the partition of the
    record asked about: ``-p a,b`` gives each record its partition's), and when it became
    eligible (sacct's Eligible, in simulated seconds: Slurm's begin_time)."""

    user: str
    account: str
    priority: float
    eligible: float


class BlockedBy(NamedTuple):
    """Whose window one of :attr:`QueueView.blocked_windows` is: the advance reservation's
    name (its own jobs may use its nodes during it), whether it is a maintenance one
    (``Flags=MAINT``), and the partitions every node of which such a one holds
    (``whole``). Slurm's backfill tries a job of such a partition again at the window's
    exact end (reservation.c ``job_test_resv``: ESLURM_RESERVATION_MAINT, ``*when =
    resv_ptr->end_time``); a job the window holds back otherwise, a maintenance one on
    part of its partition included, at that end rounded up to ``bf_resolution`` plus 1 s
    (``find_resv_end``, backfill.c ``++resv_end``)."""

    name: str
    maint: bool
    whole: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class PendingJob:
    """A job waiting to start, as a policy sees it.

    ``demand`` is the per-node (CPUs, MB, GPUs) vector, ``count`` the number of
    nodes, ``mask`` the nodes it may use (partition, features, GPU type; *not* whether
    they are up: start it on ``mask & view.up``),
    ``limit`` its time limit in seconds (``inf`` for UNLIMITED), ``planned`` the start
    time and nodes a previous pass reserved for it (conservative keeps its schedule),
    ``rows`` the (count x 3) usage it takes on its nodes unless ``exclusive`` (optional:
    computed from ``demand`` when absent). ``mask`` is for starting now; plans use
    :attr:`plan_mask`.

    ``request`` is how it is placed (:class:`~slurmlab.policies.placement.Request`, which
    says what each of its fields means): ``demand``, ``count``, ``exclusive``,
    ``mem_per_cpu``, ``most``, ``gres_fixed``, ``gpus_per_job``, ``whole_memory`` and
    ``spread``, made with the record. Node selection takes it:
    ``choose_nodes(free, view.capacity, job.request, mask, view.weights)``,
    ``prof.fits(job.request, mask, job.limit)``.
    """

    id: int
    partition: str
    demand: np.ndarray
    count: int
    mask: np.ndarray
    limit: float
    exclusive: bool = False
    reservation: str | None = None
    need: tuple[int, int, int] = (0, 0, 0)
    planned: tuple[float, tuple[int, ...]] | None = None
    rows: np.ndarray | None = None  # demand on each of its ``count`` nodes, when given
    #: the nodes it may be planned on later, when ``mask`` leaves out nodes an advance
    #: reservation holds during the job's window from now (profiles block those nodes
    #: for the reservation's window only, so plans may use them before and after it)
    reach: np.ndarray | None = None
    #: MB of memory per CPU when it asks per CPU and memory is consumable, else 0 (Request)
    mem_per_cpu: int = 0
    #: whether it takes the whole memory of each node it gets, on nodes whose memory
    #: differs (Request; :meth:`usage` holds each node's own)
    whole_memory: bool = False
    #: a GPU (GRES) job whose tasks per node are fixed (``-n 1``, ``--ntasks-per-node``...;
    #: Request)
    gres_fixed: bool = False
    #: the GPUs of a job that asks for them per job and none per node, else 0 (Request)
    gpus_per_job: int = 0
    #: whether, when it cannot start, it stops the main scheduler's pass over its partition
    #: (it waits for Resources). A job every node of whose partition a maintenance
    #: reservation holds during its window does not: Slurm's main scheduler skips over it
    #: and tries the later jobs (job_scheduler.c, ESLURM_RESERVATION_BUSY), which then wait
    #: for their own reason (Resources), not for Priority
    blocks: bool = True
    #: whether it names with ``-w`` every node it needs (``mask`` is those nodes): when it
    #: cannot start, Slurm's main scheduler does not stop at its partition but keeps those
    #: nodes from the later jobs of the pass (job_scheduler.c ``_schedule``: a job whose
    #: req_node_bitmap holds at least its min_nodes sets fail_by_part false and takes its
    #: nodes out of avail_node_bitmap), which then wait for their own reason
    pinned: bool = False
    #: whether it is ``pinned`` and over a QOS/association TRES limit, which Slurm tests
    #: only once node selection has picked its nodes (acct_policy_job_runnable_post_select):
    #: the main scheduler's pass does not start it but keeps its ``-w`` nodes from the later
    #: jobs, as for a pinned job that cannot start (job_scheduler.c ``_schedule``:
    #: ESLURM_ACCOUNTING_POLICY falls through to the req_node_bitmap block). Only the main
    #: passes of ``fifo`` and ``slurm`` are handed such records; the controller names its
    #: reason
    over_limit: bool = False
    #: whether its QOS preempted running jobs for it (preempt/qos) and it has not started
    #: yet: the room its victims free is meant for it (``conservative`` places it before the
    #: reservations standing when it arrived, which would otherwise take that room)
    preempting: bool = False
    #: whether its request changed (``scontrol update``: nodes, time limit, partition)
    #: since the last pass: ``conservative`` places it again in priority order among the
    #: standing reservations, so it keeps its precedence over the jobs behind it (their
    #: reservations stay: it takes only room none of them holds)
    updated: bool = False
    #: ``--nodes=MIN-MAX``: MAX (``count`` is MIN), else None (Request); a decision may
    #: start it on any number of nodes from ``count`` to ``most``
    most: int | None = None
    #: the most nodes a backfill reservation may hold for it (``slurm`` policy): a job
    #: over a QOS/association limit on the nodes it would get gets no reservation on more
    #: (backfill.c tests the limits on the planned nodes before it reserves them); None:
    #: no such cap
    reserve_most: int | None = None
    #: the array whose pending record it is part of (Slurm keeps an array's tasks that have
    #: not started, nor been requeued or split off by scontrol, in one job record, which its
    #: schedulers test task after task), else None
    array: int | None = None
    #: the array an array task belongs to, in its pending record or split off it (Slurm's
    #: schedulers skip the array's later elements in a partition once one was rejected
    #: there: job_scheduler.c and backfill.c ``reject_array_job``), else None
    array_job: int | None = None
    #: an array task under a ``--array=...%N`` throttle: N (at most N tasks of its array
    #: ``array_job`` run at once), else None. Slurm tests it as each task is reached
    #: (job_mgr.c ``job_array_start_test``: the tasks running, ``tot_run_tasks``, against
    #: ``max_run_tasks``), so any task reached may start while fewer run, counting the
    #: pass's own starts (:attr:`QueueView.array_tasks`, :class:`ArrayThrottles`); later
    #: ones wait for JobArrayTaskLimit, untested. A reservation does not count against it.
    throttle: int | None = None
    #: ``--time-min`` in seconds (0: none): Slurm's backfill (the ``slurm`` policy) plans
    #: and starts the job with its limit lowered to it (``Start.limit``)
    time_min: float = 0.0
    #: a job Slurm may spread over several nodes (``-n`` without ``-N``): (its tasks, the
    #: (CPUs, MB, GPUs) of one task, what each node holds besides); None for every other
    #: job (Request). The built-in policies place it where
    #: :func:`~slurmlab.policies.placement.spread_nodes` puts it in the free resources
    #: (``Profile.spread_fits``/``spread_earliest`` in a profile): one node, or several,
    #: with its usage on each
    spread: tuple[int, np.ndarray, np.ndarray] | None = None
    #: job records just before it in Slurm's evaluation order that the controller evaluated
    #: or left out itself, and that Slurm's main scheduler counts toward its
    #: ``default_queue_depth`` all the same (job_scheduler.c counts ``job_depth`` before
    #: testing limits, reservations and nodes): jobs held by a QOS or association limit,
    #: jobs waiting for ReqNodeNotAvail, and, before the first job of a pass, the jobs in
    #: advance reservations (sorted first, evaluated by the controller's reservation step)
    ahead: int = 0
    #: what decides whether the request fits, but for its time limit (partition, per-node
    #: need, node count, node set, reach, exclusive): within a pass resources only shrink
    #: and a longer window is harder to fit, so a shape that failed for a limit fails for
    #: every longer one (policies skip those). Masks are shared per node set and kept alive
    #: by the job, so their ids name them. Computed once, here: policies look it up per job.
    shape: tuple = field(init=False, repr=False, compare=False)
    #: how it is placed (see the class): made here from its fields, once
    request: Request = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        request = Request(
            self.demand, self.count, self.exclusive, self.mem_per_cpu, self.most,
            self.gres_fixed, self.gpus_per_job, self.whole_memory, self.spread,
        )  # fmt: skip
        object.__setattr__(self, "request", request)
        object.__setattr__(
            self,
            "shape",
            (
                self.partition,
                self.need,
                self.count,
                id(self.mask),
                id(self.reach),
                self.exclusive,
                self.most,
                None if self.spread is None else (self.spread[0], *self.spread[1].tolist()),
                self.gres_fixed,
                self.gpus_per_job,
                self.whole_memory,
            ),  # fmt: skip
        )

    def usage(self, nodes: tuple[int, ...], capacity: np.ndarray) -> np.ndarray:
        """What the job takes on ``nodes`` (one (CPUs, MB, GPUs) row per node): whole nodes
        (``capacity``'s rows) when ``exclusive``, each node's whole memory when
        ``whole_memory``, else its ``rows`` (or ``demand`` on each); on the nodes of a spread
        job (:class:`~slurmlab.policies.placement.Spread`), what it takes on each."""
        spread = getattr(nodes, "rows", None)
        if spread is not None:
            return spread
        if self.exclusive:
            return capacity[list(nodes)]
        if self.whole_memory:
            return held(self.demand, capacity, nodes, whole_memory=True)
        if self.rows is not None and len(self.rows) == len(nodes):
            return self.rows
        return np.broadcast_to(self.demand, (len(nodes), 3))  # (-N MIN-MAX: any number)

    @property
    def plan_mask(self) -> np.ndarray:
        """The nodes a plan (a future start found in a profile) may use."""
        return self.mask if self.reach is None else self.reach

    def may_fit(self, ranks: tuple[list[int], list[int], list[int]]) -> bool:
        """A cheap necessary check: False when fewer than ``count`` up nodes have enough
        of some resource (``ranks`` from :meth:`QueueView.free_ranks`; jobs ask for >= 1 node)."""
        c = self.count
        cpu, mem, gpu = ranks
        if c > len(cpu):
            return False
        n = self.need
        return n[0] <= cpu[-c] and n[1] <= mem[-c] and n[2] <= gpu[-c]

    def with_plan(self, plan: tuple[float, tuple[int, ...]] | None) -> PendingJob:
        """This record with ``planned`` set to ``plan``, every other field (``request`` and
        ``shape`` too: neither depends on the plan) shared, as ``replace(self, planned=plan)``
        gives. The controller makes one for every job whose standing plan moved, at every
        pass (under ``conservative`` on a trace, most of the queue): copying the fields
        costs half of building the record again."""
        if type(self) is not PendingJob:  # (a subclass may have fields of its own)
            return replace(self, planned=plan)
        new = _new(PendingJob)
        for name, value in zip(_SLOTS, _slot_values(self)):
            _set(new, name, value)
        _set(new, "planned", plan)
        return new


_SLOTS = PendingJob.__slots__  # (every field's, those made in __post_init__ too)
_slot_values = attrgetter(*_SLOTS)
_new, _set = object.__new__, object.__setattr__


class ArrayThrottles:
    """Slurm's ``%N`` test over one pass (job_mgr.c ``job_array_start_test``): a task may
    start while fewer than N tasks of its array run. Slurm asks it of each task as a
    scheduler reaches it, and a start counts at once (node_scheduler.c
    ``job_array_start`` raises ``tot_run_tasks``), so whichever tasks are reached first
    and can start take the free slots, wherever they are queued; a task that cannot start
    holds none. Use: ``throttles = ArrayThrottles(view)``; ``if job.throttle is not None
    and throttles.full(job)`` (the task waits for JobArrayTaskLimit, untested), and
    ``throttles.start(job)`` for each start."""

    __slots__ = ("running", "_owned")

    def __init__(self, view: QueueView) -> None:
        # array -> its tasks running, those this pass started included (its own copy of the
        # view's, made when a task of a throttled array starts: two counts over one view,
        # or a view built by hand with a plain dict, never share one)
        self.running: Mapping[int, int] = view.array_tasks
        self._owned = False

    def full(self, job: PendingJob) -> bool:
        """Whether ``job``'s array runs its ``%N`` tasks, counting the pass's starts."""
        return self.running.get(job.array_job, 0) >= job.throttle

    def start(self, job: PendingJob) -> None:
        """Count a start (of any job: one without a throttle counts nowhere)."""
        if job.throttle is not None:
            if not self._owned:
                self.running, self._owned = dict(self.running), True
            self.running[job.array_job] = self.running.get(job.array_job, 0) + 1


@dataclass(frozen=True, slots=True)
class RunningJob:
    """A running job: its nodes, per-node usage and when the scheduler expects it to end."""

    id: int
    nodes: tuple[int, ...]
    usage: np.ndarray
    expected_end: float


class PendingQueue:
    """The queue of a pass: its jobs are made as they are first read, kept, and replayed.

    Iterate it as often as you like (each ``for`` starts at the first job); a policy that
    stops early never pays for the jobs after. ``len(queue)`` and ``queue[i]`` work too, and
    read the whole queue; ``bool(queue)`` reads one job.
    """

    __slots__ = ("_all", "_head")

    def __init__(self, jobs: Iterable[PendingJob]):
        (self._head,) = tee(jobs, 1)  # (never advanced: each reader iterates a copy of it)
        self._all: list[PendingJob] | None = None

    def __iter__(self) -> Iterator[PendingJob]:
        return self._head.__copy__()

    def _list(self) -> list[PendingJob]:
        if self._all is None:
            self._all = list(self._head.__copy__())
        return self._all

    def __len__(self) -> int:
        return len(self._list())

    def __getitem__(self, index):
        return self._list()[index]

    def __bool__(self) -> bool:
        return next(self._head.__copy__(), None) is not None

    def __repr__(self) -> str:
        return f"PendingQueue({[job.id for job in self]})"


@dataclass(frozen=True, slots=True)
class QueueView:
    """Read-only state for one scheduling pass.

    ``queue`` is already in Slurm's evaluation order (partition PriorityTier, then
    priority, then submit time, then job id), a :class:`PendingQueue` (the controller's;
    read it as often as needed: its jobs are made as they are read, so a policy that stops
    early never pays for the rest). ``free``/``capacity`` are (nodes x 3) arrays over
    (CPUs, MB, GPUs); ``up`` marks nodes that can take new jobs. All three are read-only
    views of the engine's arrays: copy ``free`` to plan on.

    Continuing a pass: when nothing happened since the previous pass but new jobs joined
    the end of the queue (no job ended, started or was requeued, no node, priority or
    reservation changed, no running job reached its expected end), the controller hands
    back what the previous pass returned as ``Decision.resume`` in ``resume``, and
    ``queue`` holds only the new jobs (``start`` is their position in the whole queue).
    The earlier jobs' outcome cannot change (resources only became scarcer, later), so
    a policy continues from its saved state instead of scanning them again. ``fifo``,
    ``easy`` and ``slurm``'s main scheduler continue passes, and ``slurm``'s backfill
    cycles continue the previous cycle the same way (tests check that a continued pass or
    cycle equals a full one); a policy that returns no ``resume`` always gets the whole
    queue, and so does one whose class sets ``resume_whole_queue`` (``conservative``,
    which recomputes its whole plan but skips searches the saved state shows unneeded).
    Only those exact classes continue passes: any other policy, a subclass of a built-in
    too (which may order the queue its own way), gets the whole queue and ``resume`` None
    at every pass.
    """

    now: float
    queue: Iterable[PendingJob]
    running: Sequence[RunningJob]
    free: np.ndarray
    capacity: np.ndarray
    up: np.ndarray
    node_names: Sequence[str]
    blocked_windows: Sequence[tuple[float, float, np.ndarray]] = ()
    partitions: int = 1  # how many partitions have queued jobs (a pass may stop when all block)
    resume: object = None  # the previous pass's Decision.resume, when this pass continues it
    start: int = 0  # position of the first job of ``queue`` in the whole queue
    min_cpus: int = 1  # the fewest CPUs per node any queued job needs (nothing smaller fits)
    #: ids of jobs whose pending reason is not "Priority" (a policy need not repeat it)
    odd: Collection[int] = frozenset()
    whole: bool = False  # ``queue`` holds every queued job (none left out by limits etc.)
    #: for each partition sharing nodes with another, the nodes outside it (a mask): Slurm's
    #: main scheduler keeps a blocked partition's nodes from the later jobs of its pass,
    #: whatever their partition (partitions sharing no node need no mask)
    outside: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: node Weights (slurm.conf): best fit takes the lowest first; None when all alike
    weights: np.ndarray | None = None
    #: some queued job waits in several partitions (``-p a,b``): ``queue`` then holds a
    #: record per partition for it (same id), in evaluation order, and its reason is the
    #: one its last record gets, as in Slurm (so a policy states each record's reason, even
    #: for a job that ``odd`` leaves out)
    multi: bool = False
    #: ``facts(job)``: the :class:`JobFacts` of a queued record (user, account, priority,
    #: eligible time), read from the engine when asked (a policy that never asks pays
    #: nothing); None outside a simulation
    facts: Callable[[PendingJob], JobFacts] | None = None
    #: some queued job is an array task (then ``PendingJob.array`` records may be queued)
    arrays: bool = False
    #: array -> how many of its tasks run (read-only; arrays without running tasks may be
    #: absent): what a ``%N`` throttle counts (:attr:`PendingJob.throttle`)
    array_tasks: Mapping[int, int] = field(default_factory=dict)
    #: the simulation's origin (its time 0) in Unix epoch seconds: Slurm aligns its
    #: will-run test's batches on epoch seconds (cons_common/job_test.c _will_run_test)
    epoch: float = 0.0
    #: for each of ``blocked_windows``, in the same order, the reservation it is
    #: (:class:`BlockedBy`); empty in a view built by hand (every window then holds its nodes
    #: from everyone, to its exact end)
    blocked_by: Sequence[BlockedBy] = ()

    def choose_nodes(
        self, job: PendingJob, free: np.ndarray | None = None, mask: np.ndarray | None = None
    ) -> tuple[int, ...] | None:
        """The nodes Slurm's selection gives ``job`` on the up nodes of its partition with
        ``free`` resources (the view's by default; a policy planning on a copy passes the
        copy), within ``mask`` when given; None when it does not fit: every rule of the
        record, as ``choose_nodes(free, view.capacity, job.request, usable, view.weights)``
        (:func:`~slurmlab.policies.placement.choose_nodes`: node Weights, ``--mem-per-cpu``,
        ``--nodes=MIN-MAX``, GPU placement)."""
        usable = job.mask & self.up if mask is None else job.mask & mask & self.up
        free = self.free if free is None else free
        return choose_nodes(free, self.capacity, job.request, usable, self.weights)

    def free_ranks(self, free: np.ndarray | None = None) -> tuple[list[int], list[int], list[int]]:
        """Free CPUs, MB and GPUs of the up nodes, each list sorted ascending: ``[r][-c]``
        is the ``c``-th largest free amount of resource ``r`` on any up node. A job of
        ``count`` nodes fits nowhere unless ``count`` of them have enough of each (quick
        rejects, see :meth:`PendingJob.may_fit`; ``[r][-1]`` is the most free anywhere)."""
        f = self.free if free is None else free
        if len(f) == 1:  # a one-node pool: no numpy call needed
            if not self.up[0]:
                return [], [], []
            c, m, g = f[0].tolist()
            return [c], [m], [g]
        up = self.up
        n_up = np.count_nonzero(up)  # (a plain C call: up.all() goes through a Python wrapper)
        if n_up == len(up):  # no boolean indexing (a copy) when every node is up
            ranks = f.copy()
        elif n_up:
            ranks = f[up]
        else:
            return [], [], []
        ranks.sort(axis=0)  # in place (np.sort's wrapper costs about as much)
        cpu, mem, gpu = ranks.T.tolist()
        return cpu, mem, gpu


@dataclass(frozen=True, slots=True)
class Start:
    """Start job ``job`` now on node indices ``nodes`` (``by``: main scheduler or backfill).

    ``partition``: for a job queued in several partitions (``-p a,b``: one
    :class:`PendingJob` per partition, same id), the partition of the record started (its
    ``PendingJob.partition``); None: the first of its records whose mask holds the nodes.
    ``limit``: a lower time limit for the job (not below its ``--time-min``).
    """

    job: int
    nodes: tuple[int, ...]
    by: Literal["main", "backfill"] = "main"
    partition: str | None = None
    #: the time limit (seconds) this run gets instead of the job's: lower, down to its
    #: ``PendingJob.time_min`` (``--time-min``), or None to keep it
    limit: float | None = None


@dataclass(slots=True)
class Decision:
    """What a pass decided: starts, planned starts (``squeue --start``) and pending reasons.

    ``planned`` (job id -> start time, not before now) and ``planned_nodes`` (job id ->
    node indices) are waiting jobs' expected starts. A plan stands until its job starts or
    a decision with ``complete=True`` leaves it out; without ``complete`` (the default) a
    plan a decision no longer names stays as it was. ``reasons`` maps job ids of the
    pass's queue to Slurm pending reasons (``"Resources"``, ``"Priority"``...).
    """

    starts: list[Start] = field(default_factory=list)
    planned: dict[int, float] = field(default_factory=dict)
    planned_nodes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: the nodes a planned start is planned on, as ``squeue --start`` shows them (SCHEDNODES)
    #: when they are not ``planned_nodes`` (a plan conservative keeps standing)
    sched_nodes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    resume: object = None  # the policy's state at the end of the pass, to continue it
    #: the reason of every queued job the decision does not name (a pass over the whole
    #: queue that stopped early: nothing more could start and every partition has its
    #: reservation)
    rest: str | None = None
    #: ``rest`` applies only to the queued jobs before this position in the queue's order
    #: (a main pass that tests default_queue_depth + 1 jobs leaves the later ones as they were)
    rest_limit: int | None = None
    #: ``planned`` names every standing planned start: a pending job it leaves out has none
    #: (a reservation it held is gone; ``squeue --start`` shows N/A)
    complete: bool = False
    #: partitions where a pass continuing this one (see :class:`QueueView`) would decide
    #: nothing for a new job waiting for Priority, of that one partition and no array task:
    #: the controller then skips such a pass (FIFO: every job behind a blocked partition
    #: waits, job_scheduler.c ``_schedule``). Empty: every continued pass is run. Only the
    #: built-in policies' passes are continued, so only theirs are skipped
    settled: Collection[str] = ()


class Policy(Protocol):
    """A scheduling policy: ``schedule`` at every pass (see the module's docs).

    Only ``schedule`` is required. ``name`` defaults to the class name lower-cased;
    ``interval`` (seconds) to None, no timer; with an ``interval``, ``backfill`` runs at
    every timer cycle, and defaults to ``schedule``.
    """

    def schedule(self, view: QueueView) -> Decision: ...


def policy_name(policy) -> str:
    """A policy object's label: its ``name``, else its class name lower-cased."""
    name = getattr(policy, "name", None)
    return name if isinstance(name, str) and name else type(policy).__name__.lower()
