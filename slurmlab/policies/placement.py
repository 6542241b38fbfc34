"""Node selection: which nodes a job gets when several would do.

Slurm's own rule (select/cons_tres, ``_eval_nodes`` in
``src/plugins/select/cons_tres/job_test.c`` of Slurm 22.05, the default path: no topology,
no ``CR_LLN``/``LLN``, no ``bf_busy_nodes``), checked against real Slurm in the
``placement`` fixture of ``datasets/realslurm``:

1. The nodes the job may use and on which its per-node request fits form *runs*: nodes next
   to each other in the cluster's node order (slurmctld's node table, the order of its node
   bitmaps: by name, ``gpu2`` before ``gpu10``, whatever the order of slurm.conf's lines;
   :attr:`slurmlab.Cluster.nodes`) with the same Weight. A node the job cannot use ends a
   run.
2. A run is chosen: the one of lowest Weight; among equal Weights the first with enough
   nodes for the rest of the job, or one with enough nodes and fewer available CPUs (the
   tightest), or, while none has enough, the one with the most CPUs. As in Slurm, a later run
   without enough nodes but with more CPUs replaces a run with enough (the comparisons are
   made run by run, in node order).
3. From that run a job still needing one node takes the node with the fewest available CPUs
   (the first of equals); a job needing more takes the run's nodes in order, from its first.
   If the run had too few, the next run is chosen for the rest.

A node's *available CPUs* are its free CPUs, but for a job whose memory is per CPU
(``--mem-per-cpu`` or DefMemPerCPU, memory consumable) no more than its free memory holds
(``can_job_run_on_node``). A job does not go to the node with the fewest free GPUs, but a
GPU (GRES) job whose tasks per node are fixed (:func:`gres_fixed`: ``-n 1``, ``-N 2 -n 2``,
``--ntasks-per-node``, ``-N 1 -n 4``) counts on every node it fits only the CPUs it needs:
Slurm's ``gres_select_filter_sock_core`` trims each node's usable cores down to them, so all
fitting nodes count the same. Such a job takes the first node of the shortest run of fitting
nodes, and a job of several nodes compares runs by their node counts (the smallest with
enough; the first of equals). ``--exclusive`` needs wholly idle nodes, and a job taking a
node's whole memory (``whole_memory``: ``--mem=0``, or no memory asked for and no DefMemPer*
default, memory consumable) needs a node none of whose memory is allocated, and is charged
that node's own memory (cons_common ``_verify_node_state``: "all memory requested", and
``_job_test``'s "Allocate all node memory"; :func:`held`). ``weights`` is None when every
node has the same Weight.

A job asking for GPUs per job (``--gpus=N``, or ``--gpus-per-task`` with ``-n``; none per
node: :attr:`Request.gpus_per_job`) weighs its nodes also by their free GPUs, counted up
to N (:func:`gpu_weights`): below the Weight of rule 2, a node with more of them goes first,
and a change of them ends a run, as cons_tres's ``can_job_run_on_node`` sets the low byte of
each node's sched_weight (``-N 2 --gpus=5`` with a GPU taken on gpu1: gpu[2-3], real Slurm in
the ``gpus-per-job`` fixture). A per-node request (``--gres=gpu:N``, ``--gpus-per-node``)
caps every usable node at N, so its nodes weigh alike. The same holds for plans, by the GPUs
free throughout their window. ``-N k --gpus=M`` needs one free GPU on each of its k nodes
(``gres_select_filter_remove_unusable``), and the M are then dealt over the nodes picked in
node order (:func:`deal_gpus`): 4 + 1 for ``--gpus=5`` on two idle 4-GPU nodes, real Slurm
in ``gpus-per-job``; :func:`best_fit` returns them as a :class:`Spread`.

A job that may spread its tasks (``-n`` without ``-N``: :attr:`Request.spread`) is
placed by :func:`spread_nodes`, as Slurm places it: runs of the nodes that hold any of its
tasks, chosen by the same rule and counted in tasks, and from a run the one node that holds
the rest (the tightest), or else the run's nodes in order, each taking what it holds of the
tasks left. So it takes one node when one holds it all, and several when none does; a plan
for later (backfill, ``squeue --start``) is placed so too (``Profile.spread_earliest``).
``-n N --gpus-per-task=G`` spreads so too, its tasks with G GPUs each, its nodes weighed by
:func:`gpu_weights`; ``--gpus=N`` alone (no ``-N``, ``-n``) spreads its GPUs
(:func:`_spread_gpus`: real Slurm put ``--gpus=3`` on gpu4's 2 free GPUs and gpu2's 1 in the
``mix-14`` fixture), and ``-n N --gpus=M`` its tasks and GPUs both, on N nodes at most (one
task on gpu1's 1 free GPU and three on gpu2's 2 for ``-n 4 --gpus=3`` in ``gpus-spread3``).

Not modelled: the GPU weights of an ``--exclusive`` GPU job, which Slurm does not cap (its
nodes' whole GPU counts rank them; alike on the fixtures' GPU nodes), of GPUs near the job's
cores by socket (``Cores=`` in gres.conf), and those a job without GPUs inherits in
backfill's will-run test from the last GPU job tested (slurmctld resets a node's
sched_weight only in the main scheduler's ``_sync_node_weight``); ``--gpus-per-task`` with
an open task count, whose usable CPUs Slurm trims to the tasks a node's free GPUs hold (so
they differ from node to node);
``--ntasks-per-socket`` and ``--ntasks-per-board`` (not trimmed here). A job of several
nodes counts in a run only the nodes its whole per-node shape fits on, where Slurm also
counts nodes holding at least one of its tasks, as it may give them fewer (20, 20, 5, 0, 20
and 20 CPUs free: a ``-N 2 -n 40`` job takes the first two nodes here; in Slurm the run of
the first three has more CPUs than the last two, so it takes the last two). A one-node job
is placed as in Slurm: ``_can_job_run_on_node`` leaves out the nodes that cannot hold all
its tasks. Slurm's main scheduler skips nodes still completing a job that ended in the same
second (real starts a second after an end can land elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "CPU",
    "GPU",
    "MEM",
    "Request",
    "Spread",
    "bare_request",
    "best_fit",
    "choose_nodes",
    "covers",
    "deal_gpus",
    "fitting_mask",
    "gpu_weights",
    "gres_fixed",
    "held",
    "idle",
    "reads_free",
    "spread_nodes",
]


#: Resource axes of the per-node arrays: free[node, axis] (:mod:`slurmlab.policies.base`
#: gives them to policies).
CPU, MEM, GPU = 0, 1, 2

_LOOP_CUTS = 64  # fitting nodes up to which _cuts loops in Python


@dataclass(frozen=True, slots=True, eq=False)
class Request:
    """How a job is placed: what :func:`choose_nodes`, :func:`best_fit`, :func:`spread_nodes`
    and the :class:`~slurmlab.policies.profile.Profile` methods take of it, besides what the
    moment gives (free resources, the nodes it may use, node Weights, its time limit).
    A policy passes its job's (:attr:`~slurmlab.policies.base.PendingJob.request`, made with
    the job's record); tests and notebooks make their own (``Request(demand, 2)``).
    Compared by identity (it holds arrays).

    * ``demand``: the (CPUs, MB, GPUs) it asks on each node; ``count``: how many nodes
      (MIN of ``--nodes=MIN-MAX``).
    * ``exclusive``: ``--exclusive``: wholly idle nodes only, held whole.
    * ``mem_per_cpu``: MB of memory per CPU when the job asks per CPU (``--mem-per-cpu`` or
      DefMemPerCPU) and memory is consumable, else 0: a node's available CPUs count only as
      far as its free memory goes.
    * ``most``: MAX of ``--nodes=MIN-MAX``, else None: the job takes as many of the fitting
      nodes as there are, up to ``most``, and at least ``count`` (slurmctld's
      ``get_node_cnts`` asks the select plugin for ``req_nodes`` = MAX, which accepts MIN);
      planned, those free throughout its window.
    * ``gres_fixed``: a GPU (GRES) job whose tasks per node are fixed (``-n 1``,
      ``--ntasks-per-node``...; :func:`gres_fixed`): every node it fits counts the same CPUs.
    * ``gpus_per_job``: the GPUs of a job that asks for them per job (``--gpus=N``;
      ``--gpus-per-task`` times ``-n``) and none per node, else 0: nodes with more free GPUs
      first, counted up to that many (:func:`gpu_weights`); ``-N k --gpus=M`` deals them over
      its nodes (:func:`deal_gpus`), as does ``-n N --gpus=M`` (:func:`spread_nodes`).
    * ``whole_memory``: it takes the whole memory of each node it gets (``--mem=0``, or no
      memory asked for and no DefMemPer* default; memory consumable) on nodes whose memory
      differs: only nodes none of whose memory is allocated fit, and it holds each one's own
      memory (:func:`held`); ``demand`` holds the least of its nodes'. On nodes of one size
      ``demand`` is their whole memory, which already says all this, and it is False.
    * ``spread``: for a job Slurm may spread over several nodes (``-n`` without ``-N``): (its
      tasks, the (CPUs, MB, GPUs) of one task, what each node holds besides: ``--mem``, GPUs
      per node), which :func:`spread_nodes` places (``demand`` and ``count`` are then the
      shape it resolved to: its tasks on the fewest nodes, evenly); else None.
    """

    demand: np.ndarray
    count: int = 1
    exclusive: bool = False
    mem_per_cpu: int = 0
    most: int | None = None
    gres_fixed: bool = False
    gpus_per_job: int = 0
    whole_memory: bool = False
    spread: tuple[int, np.ndarray, np.ndarray] | None = None

    def __post_init__(self):  # (cheap: one per queued job)
        try:  # (None: a record built by hand for what does not place it, throttle counts)
            row = self.demand is None or len(self.demand) == 3
        except TypeError:
            row = False
        if not row:
            raise ValueError(
                f"Request: demand {self.demand!r} is not one (CPUs, MB, GPUs) row; give "
                "what the job asks on each node, e.g. np.array([8, 64000, 1])"
            )
        if self.count < 1 or (self.most is not None and self.most < 1):
            raise ValueError(
                f"Request: count {self.count!r} / most {self.most!r}: a job asks for one "
                "node or more"
            )


def bare_request(job) -> Request:
    """What a job asks (``demand`` on ``count`` nodes), with ``--exclusive`` and whole
    memory, without the rules that only pick among fitting nodes: for whether it could fit
    at all (``job``: anything with those four attributes, a job in another shape too)."""
    return Request(job.demand, job.count, job.exclusive, whole_memory=job.whole_memory)


# Reducing numpy's short (CPUs, MB, GPUs) axis costs several times more than a
# comparison per resource: these two spell ``.all(axis=-1)`` out.
def covers(free: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """``(free >= demand).all(axis=-1)``: where the per-node demand fits."""
    ok = free[..., 0] >= demand[0]
    ok &= free[..., 1] >= demand[1]
    ok &= free[..., 2] >= demand[2]
    return ok


def idle(free: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``(free == capacity).all(axis=-1)``: where nodes are wholly idle."""
    ok = free[..., 0] == capacity[..., 0]
    ok &= free[..., 1] == capacity[..., 1]
    ok &= free[..., 2] == capacity[..., 2]
    return ok


def fitting_mask(
    free: np.ndarray,
    capacity: np.ndarray,
    demand: np.ndarray,
    mask: np.ndarray,
    exclusive: bool,
    whole_memory: bool = False,
) -> np.ndarray:
    """Boolean per node: the job's per-node demand fits in ``free`` there (wholly idle
    nodes for ``exclusive``, nodes of wholly free memory for ``whole_memory``)."""
    ok = covers(free, demand)  # (free may hold several intervals: one row of ok each)
    ok &= mask
    if exclusive:
        ok &= idle(free, capacity)
    elif whole_memory:
        ok &= free[..., MEM] == capacity[..., MEM]
    return ok


def held(
    demand: np.ndarray,
    capacity: np.ndarray,
    nodes: tuple[int, ...],
    exclusive: bool = False,
    whole_memory: bool = False,
) -> np.ndarray:
    """What a job of per-node ``demand`` holds on ``nodes``, one (CPUs, MB, GPUs) row per
    node: the nodes whole (``capacity``'s rows) when ``exclusive``; ``demand`` with each
    node's own memory when ``whole_memory``, as cons_common ``_job_test`` charges a job
    asking for all memory (``needed_mem = avail_mem``, node by node); else ``demand`` on
    each (a read-only view)."""
    if exclusive:
        return capacity[list(nodes)]
    rows = np.broadcast_to(demand, (len(nodes), 3))
    if whole_memory:
        rows = rows.copy()
        rows[:, MEM] = capacity[list(nodes), MEM]
    return rows


def choose_nodes(
    free: np.ndarray,
    capacity: np.ndarray,
    request: Request,
    mask: np.ndarray,
    weights: np.ndarray | None = None,
) -> tuple[int, ...] | None:
    """The nodes Slurm would pick for ``request`` among those of ``mask`` (ascending), or
    None when too few fit (the rule of the module's docstring): ``request.count`` of them,
    up to ``request.most`` for a ``--nodes=MIN-MAX`` job. ``weights``: the nodes' Weights
    (None: all alike)."""
    if len(free) == 1:  # a one-node pool (SWF traces): skip numpy's per-call overhead
        f, d = free[0], request.demand
        if request.count != 1 or not mask[0] or f[0] < d[0] or f[1] < d[1] or f[2] < d[2]:
            return None
        if request.exclusive and not (f == capacity[0]).all():
            return None
        if request.whole_memory and f[MEM] != capacity[0][MEM]:
            return None
        return (0,)
    ok = fitting_mask(free, capacity, request.demand, mask, request.exclusive, request.whole_memory)
    return best_fit(free, ok.nonzero()[0], request, weights)


def reads_free(request: Request) -> bool:
    """Whether :func:`best_fit` weighs the free amounts of the fitting nodes for
    ``request``: not for a GPU job whose tasks per node are fixed (``gres_fixed``) without
    GPUs per job, for which every fitting node counts the same (``free`` may be None)."""
    return not request.gres_fixed or bool(request.gpus_per_job)


def best_fit(
    free: np.ndarray | None,
    idx: np.ndarray | list[int],
    request: Request,
    weights: np.ndarray | None = None,
) -> tuple[int, ...] | None:
    """The nodes Slurm picks for ``request`` among the fitting nodes ``idx`` (ascending: an
    array, or a list), or None: the rule of the module's docstring. Where its GPUs per job
    are more than its GPUs per node hold on the nodes (``-N k --gpus=M``: one GPU per node
    at least), the M GPUs are dealt over the nodes picked (:func:`deal_gpus`), a
    :class:`Spread` whose rows hold them, or None when those nodes' free GPUs fall short
    (``_eval_nodes`` stops at max_nodes; ``gres_sched_test`` fails)."""
    nodes = _best_fit(free, idx, request, weights)
    gpus = request.gpus_per_job
    if not gpus or nodes is None or request.exclusive:
        return nodes
    if gpus <= request.demand[GPU] * len(nodes):
        return nodes
    return _dealt(free, nodes, request.demand, gpus)


def _dealt(free: np.ndarray, nodes: tuple[int, ...], demand: np.ndarray, gpus: int):
    """``-N k --gpus=M`` on ``nodes``: their rows, ``demand`` with the M GPUs dealt over
    them in node order (:func:`deal_gpus`), or None when their free GPUs hold fewer."""
    have = np.minimum(free[list(nodes), GPU], gpus).tolist()
    if sum(have) < gpus:
        return None
    out = Spread(nodes)
    out.rows = np.tile(demand.astype(free.dtype), (len(nodes), 1))
    out.rows[:, GPU] = deal_gpus(have, gpus)
    return out


def _best_fit(
    free: np.ndarray | None,
    idx: np.ndarray | list[int],
    request: Request,
    weights: np.ndarray | None,
) -> tuple[int, ...] | None:
    """:func:`best_fit`'s choice of nodes.

    A ``--nodes=MIN-MAX`` job (``count`` MIN) takes as many of them as there are, up to
    ``most``; a run has *enough* nodes when it holds what the job still needs of MIN
    (cons_tres ``_enough_nodes``), and it still takes up to that many from it."""
    n = len(idx)
    count = request.count
    if n < count:
        return None
    least = count
    most = request.most
    if most is not None and most > count:
        count = min(most, n)
    nodes = idx if isinstance(idx, list) else idx.tolist()
    if n == count:  # no choice to make
        return tuple(nodes)
    if request.gpus_per_job:
        weights = gpu_weights(free, weights, request.gpus_per_job)
    if weights is None and nodes[-1] - nodes[0] == n - 1:  # one run (often)
        if count > 1:  # its nodes in order
            return tuple(nodes[:count])
        if request.gres_fixed:  # (every node counts the same: the first)
            return (nodes[0],)
        # the first tightest
        return (nodes[int(_available(free, idx, request.mem_per_cpu).argmin())],)
    cpus = [1] * n if request.gres_fixed else _available(free, idx, request.mem_per_cpu).tolist()
    # the runs, as [first, last + 1) positions in ``nodes``
    weight = [0] * n if weights is None else weights[idx].tolist()
    cuts = _cuts(idx, weights, nodes, weight)
    bounds = [0, *cuts, n]
    runs = list(zip(bounds, bounds[1:]))
    sums = [sum(cpus[a:b]) for a, b in runs]
    chosen: list[int] = []
    need = count
    slack = count - least  # (nodes a MIN-MAX job may do without)
    while need:
        best = _best_run(runs, weight, sums, [b - a >= need - slack for a, b in runs])
        a, b = runs[best]
        if need == 1:
            run = cpus[a:b]
            chosen.append(nodes[a + run.index(min(run))])
            need = 0
        else:
            take = nodes[a : min(b, a + need)]
            chosen += take
            need -= len(take)
        runs[best] = (a, a)
    return tuple(sorted(chosen))


def _best_run(runs: list, weight: list, sums: list, enough: list[bool]) -> int:
    """The run a job takes nodes from next (``_eval_nodes``): the lowest Weight; among equal
    Weights the first with ``enough``, or one with enough and a smaller ``sums`` (the
    tightest), or, while none has enough, the one with the largest. Used-up runs
    (``a == b``) are passed over."""
    best, best_w, best_sum, best_enough = None, 0, 0, False
    for r, (a, b) in enumerate(runs):
        if a == b:  # used up
            continue
        if best is None or weight[a] < best_w:
            new = True
        else:
            new = weight[a] == best_w and (
                (enough[r] and not best_enough)
                or (enough[r] and sums[r] < best_sum)
                or (not enough[r] and sums[r] > best_sum)
            )
        if new:
            best, best_w, best_sum, best_enough = r, weight[a], sums[r], enough[r]
    return best


def _cuts(
    idx: np.ndarray, weights: np.ndarray | None, nodes: list | None = None, weight: list = ()
) -> list[int]:
    """Where runs of the fitting nodes ``idx`` begin, after the first: positions k where
    ``idx[k]`` does not follow ``idx[k - 1]``, or its Weight differs. (Found by numpy: a
    Python loop over thousands of fitting nodes dominated large clusters. Up to
    ``_LOOP_CUTS`` of them, given as lists too, ``nodes`` and their ``weight``, a loop is
    the faster: 0.6 against 3.6 us for a dozen nodes, numpy's per-call cost.)"""
    if nodes is not None and len(nodes) <= _LOOP_CUTS:
        if weights is None:
            return [k for k in range(1, len(nodes)) if nodes[k] != nodes[k - 1] + 1]
        return [
            k
            for k in range(1, len(nodes))
            if nodes[k] != nodes[k - 1] + 1 or weight[k] != weight[k - 1]
        ]
    step = np.diff(idx) != 1
    if weights is not None:
        step |= np.diff(weights[idx]) != 0
    return (step.nonzero()[0] + 1).tolist()


def gpu_weights(free: np.ndarray, weights: np.ndarray | None, gpus_per_job: int) -> np.ndarray:
    """The weights a job asking for ``gpus_per_job`` GPUs per job (``--gpus=N``, or
    ``--gpus-per-task`` times ``-n``; none per node) sees: slurm.conf's Weight first, then
    the node with more free GPUs, counted up to ``gpus_per_job`` (the lowest weight first).

    slurmctld's ``_set_sched_weight`` (node_scheduler.c) sets a node's sched_weight to
    ``Weight << 8 | 0xff``; select/cons_tres ``can_job_run_on_node`` (job_test.c) sets its
    low byte to ``0xff - near_gpu_cnt`` ("favor nodes with more co-located GPUs"), the free
    GPUs ``gres_select_filter_remove_unusable`` (gres_select_filter.c) finds near the
    node's usable cores (all of them without ``Cores=`` in gres.conf), capped at the GPUs per
    node the job asks, or else at its GPUs per job. A per-node request caps every usable
    node at the same count, so only GPUs per job rank nodes: ``-N 2 --gpus=5`` takes two
    nodes with 4 GPUs free over one with 3 (real Slurm 22.05, fixture gpus-per-job).
    ``_eval_nodes`` begins a run at every change of sched_weight and takes the lowest."""
    near = np.minimum(free[:, GPU], min(gpus_per_job, 0xFF)).astype(np.int64)
    base = 0 if weights is None else weights.astype(np.int64) << 8
    return base + (0xFF - near)


def gres_fixed(
    *,
    gres: bool,
    ntasks: int | None,
    nodes: int | None,
    max_nodes: int | None,
    ntasks_per_node: int | None,
    ntasks_per_core: int | None = None,
) -> bool:
    """Whether Slurm counts on every node a job fits only the CPUs the job needs (so every
    fitting node counts the same, :func:`best_fit`): a job asking for GRES (``gres``: GPUs
    or other GRES) whose tasks per node are fixed.

    select/cons_tres ``_select_cores`` (job_test.c) fixes the tasks of a node for
    ``--ntasks-per-node``; for ``-N 1`` (max_nodes 1) with ``-n``; for ``-n 1``; for
    ``-n`` equal to ``-N`` (one task per node). For such a GRES job,
    ``gres_select_filter_sock_core`` (cons_common/gres_select_filter.c) then clears the
    node's free cores beyond those the tasks need (``while (avail_cores_tot > req_cpus)``)
    and caps its available CPUs at tasks x CPUs per task. A job without ``-n`` (sbatch
    sends no task count, slurmctld's num_tasks is 0: ``--gres=gpu:1``, ``-N 2
    --gres=gpu:1``) or with more tasks than ``-N`` nodes has an open task count
    (max_tasks_this_node NO_VAL) and is not trimmed; nor, without ``--ntasks-per-node``, is
    a job with ``--ntasks-per-core`` (its tasks per node: that times the node's cores).
    ``max_nodes``: the MAX of ``-N MIN-MAX`` (None: MIN), which sbatch lowers to ``-n``."""
    if not gres:
        return False
    if ntasks_per_node is not None:
        return True
    if ntasks is None or ntasks_per_core is not None:
        return False
    if ntasks == 1:
        return True
    if nodes is None:  # (no -N: slurmctld's max_nodes 0)
        return False
    most = nodes if max_nodes is None else min(max_nodes, ntasks)  # (details->max_nodes)
    return most == 1 or nodes == most == ntasks


def _available(free: np.ndarray, idx: np.ndarray, mem_per_cpu: int) -> np.ndarray:
    """Slurm's available CPUs on the nodes ``idx``: free CPUs, as far as free memory goes
    for a job asking ``mem_per_cpu`` MB per CPU."""
    cpus = free[:, CPU][idx]  # (a column, then the nodes: a third of free[idx, CPU]'s cost)
    if mem_per_cpu:
        cpus = np.minimum(cpus, free[:, MEM][idx] // mem_per_cpu)
    return cpus


class Spread(tuple):
    """The nodes of a job spread over several (:func:`spread_nodes`): a tuple of node indices
    like any other, with ``rows``, the (CPUs, MB, GPUs) it takes on each (its tasks dealt out
    unevenly), which :meth:`PendingJob.usage` returns for them."""

    rows: np.ndarray


def spread_nodes(
    free: np.ndarray, request: Request, mask: np.ndarray, weights: np.ndarray | None = None
) -> Spread | None:
    """The nodes Slurm spreads a job's tasks over among those of ``mask``
    (``request.spread``: its ``ntasks`` tasks of ``per_task`` (CPUs, MB, GPUs), each node
    also holding ``per_node``), and the usage on each, or None when the free nodes of
    ``mask`` cannot hold them.

    select/cons_tres ``_eval_nodes`` for a job of one node at least and no most: a node's
    available CPUs are what it holds of the job's tasks (a node without ``per_node`` free
    holds none); runs of nodes are chosen as in :func:`best_fit` (lowest Weight first, then
    the first with enough, or the tightest with enough, or while none has enough the
    largest); from a run the one node holding all the tasks left (the tightest such), else
    its nodes in order until the tasks are held. Each node takes what it holds of the tasks
    left, in the order picked (``_cpus_to_use``; ``dist_tasks_compute_c_b`` stays within
    it): 32 tasks on nodes holding 20 and 24 take 20 and 12 (real Slurm 22.05, mix-7).
    For ``-n N --gpus=M`` (tasks and nodes without GPUs) the request's GPUs per job are
    dealt over the nodes too (:func:`_spread_gpus`)."""
    if request.spread is None:
        raise ValueError(
            "spread_nodes: this request may not spread over nodes (its spread is None: it "
            "asks for a node count, GPUs, --mem or --exclusive); place it with choose_nodes"
        )
    ntasks, per_task, per_node = request.spread
    gpus_per_job = request.gpus_per_job
    if per_task[CPU] == 0:  # --gpus=N alone: its GPUs spread, a task's CPUs on each node
        return _spread_gpus(free, 1, per_node, per_task * 0, ntasks, mask, weights)
    if gpus_per_job and per_task[GPU] == 0 and per_node[GPU] == 0:  # -n N --gpus=M
        return _spread_gpus(free, ntasks, per_task, per_node, gpus_per_job, mask, weights)
    if per_task[GPU] > 0 and per_node[GPU] == 0:  # -n N --gpus-per-task=G: GPUs per job
        weights = gpu_weights(free, weights, ntasks * int(per_task[GPU]))
    holds = _tasks_held(free, per_task, per_node)
    idx = np.flatnonzero(mask & (holds > 0))
    cap = holds[idx].astype(np.int64).tolist()
    if sum(cap) < ntasks:
        return None
    taken = _deal(idx, weights, cap, cap, ntasks)  # (a run's size: the tasks it holds)
    return _spread(free, idx, taken, per_task, per_node)


def _tasks_held(free: np.ndarray, per_task: np.ndarray, per_node: np.ndarray) -> np.ndarray:
    """Per node, how many tasks of ``per_task`` its ``free`` resources hold besides
    ``per_node`` (0 where ``per_node`` does not fit)."""
    room = free - per_node
    holds = np.where((room >= 0).all(axis=1), room[:, CPU] // per_task[CPU], 0)
    for r in (MEM, GPU):
        if per_task[r] > 0:
            holds = np.minimum(holds, room[:, r] // per_task[r])
    return holds


def _deal(
    idx: np.ndarray,
    weights: np.ndarray | None,
    cap: list[int],
    size: list[int],
    need: int,
    gpus: list[int] | None = None,
    gpus_need: int = 0,
) -> dict[int, int]:
    """``_eval_nodes``' choice of nodes for ``need`` units (tasks, or GPUs per job) among the
    usable nodes ``idx``, each holding ``cap`` of them: runs of nodes as in :func:`best_fit`,
    compared by ``size`` (their tasks, or available CPUs), ``enough`` when they hold the
    units left; from a run the tightest node (by ``size``) holding all the units left, else
    its nodes in order, each taking what it holds. Returns {position in ``idx``: units}, in
    the order picked (the caller checked that ``cap`` holds ``need``).

    ``gpus``/``gpus_need``: GPUs per job besides tasks (``-n N --gpus=M``): each node holds
    ``gpus`` of them, and the units left are both (``gres_sched_sufficient`` besides the
    CPUs: a run or a node holds the rest when it holds both); a node taken once the tasks
    are held still takes one (``_cpus_to_use``: at least ``pn_min_cpus``)."""
    weight = [0] * len(cap) if weights is None else weights[idx].tolist()
    bounds = [0, *_cuts(idx, weights), len(cap)]
    runs = list(zip(bounds, bounds[1:]))
    sums = [sum(size[a:b]) for a, b in runs]
    holds = [sum(cap[a:b]) for a, b in runs]
    if gpus is not None:  # (a node or run holds the rest when it holds both)
        gpu_holds = [sum(gpus[a:b]) for a, b in runs]
    taken: dict[int, int] = {}
    while need > 0 or gpus_need > 0:
        enough = [t >= need for t in holds]
        if gpus is not None:
            enough = [e and g >= gpus_need for e, g in zip(enough, gpu_holds, strict=True)]
        a, b = runs[best := _best_run(runs, weight, sums, enough)]
        single = [k for k in range(a, b) if cap[k] >= need]
        if gpus is not None:
            single = [k for k in single if gpus[k] >= gpus_need]
        if single:
            taken[min(single, key=lambda k: size[k])] = max(need, 1)
            need = gpus_need = 0
        else:
            for k in range(a, b):
                taken[k] = max(min(cap[k], need), 1)
                need -= cap[k]
                if gpus is not None:
                    gpus_need -= gpus[k]
                if need <= 0 and gpus_need <= 0:
                    break
        runs[best] = (a, a)
    return taken


def _spread(
    free: np.ndarray,
    idx: np.ndarray,
    taken: dict[int, int],
    unit: np.ndarray,
    per_node: np.ndarray,
    gpus: list[int] | None = None,
) -> Spread:
    """The :class:`Spread` of ``taken`` units of ``unit`` on the nodes ``idx`` (by position),
    each node also holding ``per_node``, and ``gpus`` (in node order) when given."""
    order = sorted(taken)
    units = np.array([taken[k] for k in order], dtype=free.dtype)
    out = Spread(int(idx[k]) for k in order)
    out.rows = np.outer(units, unit.astype(free.dtype)) + per_node.astype(free.dtype)
    if gpus is not None:
        out.rows[:, GPU] += gpus
    return out


def _spread_gpus(
    free: np.ndarray,
    ntasks: int,
    per_task: np.ndarray,
    per_node: np.ndarray,
    gpus: int,
    mask: np.ndarray,
    weights: np.ndarray | None,
) -> Spread | None:
    """:func:`spread_nodes` for GPUs per job: ``-n N --gpus=M`` (``ntasks`` N of
    ``per_task``, each node also holding ``per_node``), and ``--gpus=M`` alone (one task of
    the job's CPUs and memory per node). select/cons_tres ``_eval_nodes`` with
    ``gres_per_job``: a node is usable when it holds a task and one free GPU or more
    (``gres_select_filter_remove_unusable``: min_gres 1); runs of usable nodes of equal
    :func:`gpu_weights` (more free GPUs first) are compared by their available CPUs
    (enough: they hold the tasks and GPUs left); from the chosen run the tightest node
    holding both, else its nodes in order (:func:`_deal`), each adding its CPUs, capped at
    the job's CPUs left but one task at least (``_cpus_to_use``), and its GPUs
    (``gres_sched_add``), until the tasks and GPUs are held. ``choose_nodes`` caps the
    nodes at the job's task count (``-n 1 --gpus=3`` waits for one node).

    Its tasks then go one on each node and the rest where CPUs are left
    (:func:`_dist_tasks`), its GPUs over the nodes in node order (:func:`deal_gpus`):
    ``-n 4 --gpus=3`` on gpu1's one free GPU and gpu2's two takes one task on gpu1 and
    three on gpu2 (real Slurm 22.05, gpus-spread3; ``--gpus=3`` alone: mix-14)."""
    holds = _tasks_held(free, per_task, per_node)
    idx = np.flatnonzero(mask & (holds > 0) & (free[:, GPU] >= 1))
    cap = holds[idx].astype(np.int64).tolist()
    gpu = np.minimum(free[idx, GPU], gpus).astype(np.int64).tolist()
    if sum(cap) < ntasks or sum(gpu) < gpus:
        return None
    cpus = free[idx, CPU].astype(np.int64).tolist()  # (runs compared by available CPUs)
    taken = _deal(idx, gpu_weights(free, weights, gpus), cap, cpus, ntasks, gpu, gpus)
    if ntasks > 1 and len(taken) > ntasks:  # (choose_nodes: max_nodes = num_tasks; its
        return None  # retries without the nodes of fewest resources are not modelled)
    order = sorted(taken)
    tasks = _dist_tasks([taken[k] for k in order], max(ntasks, len(order)))
    return _spread(
        free, idx, dict(zip(order, tasks)), per_task, per_node,
        deal_gpus([gpu[k] for k in order], gpus),
    )  # fmt: skip


def _dist_tasks(avail: list[int], ntasks: int) -> list[int]:
    """The tasks of each node (in node order) that may hold ``avail`` of them:
    select/cons_tres ``dist_tasks_compute_c_b`` (block or cyclic) gives each node one, then
    the rest a task per node in turn to the nodes with room left."""
    tasks = [1] * len(avail)
    left = ntasks - len(avail)
    while left > 0 and any(t < room for t, room in zip(tasks, avail, strict=True)):
        for k, room in enumerate(avail):
            if left and tasks[k] < room:
                tasks[k] += 1
                left -= 1
    return tasks


def deal_gpus(free: list[int], gpus: int) -> list[int]:
    """GPUs per job over the nodes of a job, in node order, each with ``free`` GPUs:
    ``gres_select_filter_select_and_set`` (gres_select_filter.c ``_set_job_bits1``,
    ``_get_job_cnt``) gives a node what it has, up to the GPUs left less one for each node
    after it: ``--gpus=5`` on gpu1's four and gpu2's two takes 4 + 1 (real Slurm 22.05,
    gpus-spread2), and on gpu1's two and gpu2's four 2 + 3 (node order, not the order
    ``_eval_nodes`` picked them in)."""
    out = []
    for k, have in enumerate(free):
        out.append(min(have, gpus - (len(free) - 1 - k)))
        gpus -= out[-1]
    return out
