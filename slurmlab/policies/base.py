"""What a scheduling policy sees and what it returns.

A policy never touches the engine. The controller hands it a read-only
:class:`QueueView` (the pending jobs in Slurm's evaluation order, the running jobs
with their expected ends, and free resources per node) and the policy *returns*
a :class:`Decision`: which jobs start now on which nodes, which jobs hold a
reservation at a future time, and the pending reason of every job it looked at.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

__all__ = [
    "CPU",
    "GPU",
    "MEM",
    "Decision",
    "PendingJob",
    "Policy",
    "QueueView",
    "RunningJob",
    "Start",
]

#: Resource axes of the per-node arrays: free[node, axis].
CPU, MEM, GPU = 0, 1, 2


@dataclass(frozen=True, slots=True)
class PendingJob:
    """A job waiting to start, as a policy sees it.

    ``demand`` is the per-node (CPUs, MB, GPUs) vector, ``count`` the number of
    nodes, ``mask`` the nodes it may use (partition, features, GPU type, up),
    ``limit`` its time limit in seconds (``inf`` for UNLIMITED), ``planned`` the start
    time and nodes a previous pass reserved for it (conservative keeps its schedule),
    ``rows`` the (count x 3) usage it takes on its nodes unless ``exclusive`` (optional:
    computed from ``demand`` when absent). ``mask`` is for starting now; plans use
    :attr:`plan_mask`.
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
    #: MB of memory per CPU when the job asks per CPU and memory is consumable, else 0:
    #: node selection counts a node's available CPUs as far as its free memory goes
    mem_per_cpu: int = 0
    #: whether, when it cannot start, it stops the main scheduler's pass over its partition
    #: (it waits for Resources). A job every node of whose partition a maintenance
    #: reservation holds during its window does not: Slurm's main scheduler skips over it
    #: and tries the later jobs (job_scheduler.c, ESLURM_RESERVATION_BUSY), which then wait
    #: for their own reason (Resources), not for Priority
    blocks: bool = True
    #: what decides whether the request fits, but for its time limit (partition, per-node
    #: need, node count, node set, reach, exclusive): within a pass resources only shrink
    #: and a longer window is harder to fit, so a shape that failed for a limit fails for
    #: every longer one (policies skip those). Masks are shared per node set and kept alive
    #: by the job, so their ids name them. Computed once, here: policies look it up per job.
    shape: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(
            self,
            "shape",
            (self.partition, self.need, self.count, id(self.mask), id(self.reach), self.exclusive),
        )

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


@dataclass(frozen=True, slots=True)
class RunningJob:
    """A running job: its nodes, per-node usage and when the scheduler expects it to end."""

    id: int
    nodes: tuple[int, ...]
    usage: np.ndarray
    expected_end: float


@dataclass(frozen=True, slots=True)
class QueueView:
    """Read-only state for one scheduling pass.

    ``queue`` is already in Slurm's evaluation order (partition PriorityTier, then
    priority, then submit time, then job id) and may be a lazy iterable: a policy
    that stops early never pays for the rest. ``free``/``capacity`` are (nodes x 3)
    arrays over (CPUs, MB, GPUs); ``up`` marks nodes that can take new jobs.

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
        if up.all():  # no boolean indexing (a copy) when every node is up
            ranks = f.copy()
        elif up.any():
            ranks = f[up]
        else:
            return [], [], []
        ranks.sort(axis=0)  # in place (np.sort's wrapper costs about as much)
        cpu, mem, gpu = ranks.T.tolist()
        return cpu, mem, gpu


@dataclass(frozen=True, slots=True)
class Start:
    """Start job ``job`` now on node indices ``nodes`` (``by``: main scheduler or backfill)."""

    job: int
    nodes: tuple[int, ...]
    by: Literal["main", "backfill"] = "main"


@dataclass(slots=True)
class Decision:
    """What a pass decided: starts, planned starts (``squeue --start``) and pending reasons."""

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


class Policy(Protocol):
    """A scheduling policy: ``schedule`` on events; optionally ``backfill`` every ``interval`` s."""

    name: str
    interval: float | None

    def schedule(self, view: QueueView) -> Decision: ...

    def backfill(self, view: QueueView) -> Decision: ...
