"""The environment ``srun`` gives each task, and what a PyTorch DDP launcher derives from it.

For an allocation (nodes, tasks laid out as ``--distribution`` says, GPUs per node) this
builds, per task, the variables Slurm sets (SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID,
SLURM_TASKS_PER_NODE in Slurm's ``4(x2)`` form, CUDA_VISIBLE_DEVICES as ``--gpu-bind``
binds the task...) and the ones torch.distributed reads (RANK, LOCAL_RANK, WORLD_SIZE,
MASTER_ADDR...).

GPU ids (in ``--gpu-bind`` lists and in CUDA_VISIBLE_DEVICES) number the GPUs the step
holds on a node from 0, as the node numbers them when the job holds its first GPUs.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import pandas as pd

from slurmlab.errors import SbatchError, SlurmlabError
from slurmlab.policies.placement import deal_gpus
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import Distribution, JobSpec, _warn_gpus_rounded, spread_of
from slurmlab.spec.units import (
    compress_hostlist,
    expand_hostlist,
    node_order_key,
    ordered_hostlist,
    parse_whole,
)

__all__ = [
    "Distribution",
    "GpuBind",
    "master_port",
    "srun_env",
    "task_layout",
    "tasks_per_node_string",
]

_GPU_BIND_FORMS = (
    "[verbose,]closest, map_gpu:<list>, mask_gpu:<list>, none, per_task:<gpus_per_task> "
    "or single:<tasks_per_gpu>, e.g. map_gpu:0,1 or map_gpu:0*4,1*4 (decimal GPU ids), "
    "mask_gpu:0x3,0xC (hex masks)"
)


@dataclass(frozen=True, slots=True)
class GpuBind:
    """How ``--gpu-bind`` binds the tasks of a node to its GPUs (srun(1)).

    ``default`` is srun without ``--gpu-bind``: ``--gpus-per-task=N`` binds as ``per_task:N``,
    otherwise every task sees every GPU. ``closest`` binds a task to the GPUs next to its
    CPUs; slurmlab has no CPU/GPU topology, so (as Slurm does without ``Cores=`` in
    gres.conf) that is every GPU. ``map_gpu``/``mask_gpu`` give the task with SLURM_LOCALID
    i the i-th entry of ``entries`` (a GPU id or a mask; ``(value, repeat)`` pairs, the
    list reused from the start when the tasks outnumber it).

    >>> GpuBind.parse("verbose,map_gpu:0*2,1").devices(local_id=2, gpus=2)
    (1,)
    """

    kind: Literal["default", "closest", "map_gpu", "mask_gpu", "none", "per_task", "single"]
    entries: tuple[tuple[int, int], ...] = ()
    count: int = 0  # per_task: GPUs per task; single: tasks per GPU
    verbose: bool = False

    def __post_init__(self):
        if self.kind in ("map_gpu", "mask_gpu") and not self.entries:
            raise SbatchError(f"GpuBind {self.kind!r} needs entries: (GPU id or mask, repeat)")
        if self.kind in ("per_task", "single") and self.count < 1:
            raise SbatchError(f"GpuBind {self.kind!r} needs a count of at least 1")

    @classmethod
    def parse(cls, text: str | None) -> GpuBind:
        """Read a ``--gpu-bind`` value (None: the option was not given)."""
        if text is None:
            return cls("default")
        body, verbose = text.strip(), False
        if body.lower().startswith("verbose,"):
            body, verbose = body[len("verbose,") :], True
        name, colon, arg = body.partition(":")
        name = name.lower()
        if not colon and name in ("closest", "none"):
            return cls(name, verbose=verbose)
        if colon and name in ("map_gpu", "mask_gpu"):
            digits = r"\d+" if name == "map_gpu" else r"(?:0[xX])?[0-9a-fA-F]+"
            what = "decimal GPU id" if name == "map_gpu" else "hex GPU mask"
            entries = []
            for item in arg.split(","):
                m = re.fullmatch(rf"({digits})(?:\*(\d+))?", item.strip())
                if not m:
                    raise _gpu_bind_error(text, f"{item!r} is not a {what}[*repeat]")
                if m.group(2) is not None and int(m.group(2)) < 1:
                    raise _gpu_bind_error(text, f"{item!r}: a repetition count must be >= 1")
                value = int(m.group(1), 10 if name == "map_gpu" else 16)
                entries.append((value, int(m.group(2) or 1)))
            return cls(name, entries=tuple(entries), verbose=verbose)
        if colon and name in ("per_task", "single"):
            if not re.fullmatch(r"\d+", arg.strip()) or int(arg) < 1:
                raise _gpu_bind_error(text, f"{name} needs a whole number of at least 1")
            return cls(name, count=int(arg), verbose=verbose)
        raise _gpu_bind_error(text, f"unknown binding {body!r}")

    def devices(self, local_id: int, gpus: int, gpus_per_task: int = 0) -> tuple[int, ...]:
        """The GPUs (0 .. ``gpus``-1, those of the step on the node) task ``local_id`` sees.

        Empty when the binding names none of them: Slurm then binds the task to the first.
        ``per_task`` gives a task what is left when the GPUs run out, as Slurm does.
        """
        kind, count = self.kind, self.count
        if kind == "default" and gpus_per_task:
            kind, count = "per_task", gpus_per_task
        if kind in ("default", "closest", "none"):
            return tuple(range(gpus))
        if kind == "per_task":
            return tuple(range(local_id * count, min((local_id + 1) * count, gpus)))
        if kind == "single":
            if gpus <= 1:
                return tuple(range(gpus))
            return (local_id // count,) if local_id // count < gpus else ()
        value = self._entry(local_id)
        if kind == "map_gpu":
            return (value,) if value < gpus else ()
        return tuple(g for g in range(gpus) if value >> g & 1)

    def _entry(self, local_id: int) -> int:
        """The map/mask entry of task ``local_id``, the list reused from its start."""
        offset = local_id % sum(repeat for _, repeat in self.entries)
        for value, repeat in self.entries:
            if offset < repeat:
                return value
            offset -= repeat
        raise AssertionError("unreachable: offset < the sum of the repeats")


def _gpu_bind_error(text: str, why: str) -> SbatchError:
    return SbatchError(f"--gpu-bind={text!r}: {why}; srun accepts {_GPU_BIND_FORMS}")


def task_layout(
    distribution: Literal["block", "cyclic", "plane"],
    slots: Sequence[int],
    ntasks: int,
    *,
    plane_size: int = 0,
    pack: bool = False,
) -> tuple[tuple[int, ...], ...]:
    """The task ids (SLURM_PROCID) srun puts on each node, in SLURM_LOCALID order.

    slurm_step_layout.c's ``_task_layout_block``/``_cyclic``/``_plane``: ``slots`` is how
    many tasks each node takes (Slurm's ``cpus[]``: the step's CPUs on the node over its
    CPUs per task, at least 1, and no more than ``--ntasks-per-node`` unless the layout is
    plane). Each layout first counts a node's tasks, then numbers them. ``block`` deals
    one task per node with room, round after round, and numbers each node's tasks
    consecutively (with ``pack``: one task per node, then fill nodes in order); ``cyclic``
    deals the task ids themselves round-robin; ``plane`` gives every node one task, then up
    to ``plane_size`` more per node and round, and deals the ids in blocks of
    ``plane_size``. More tasks than slots oversubscribe the nodes, as Slurm does.

    >>> task_layout("block", [2, 2, 2], 4)  # srun(1)'s examples: three 2-CPU nodes
    ((0, 1), (2,), (3,))
    >>> task_layout("cyclic", [2, 2, 2], 4)
    ((0, 3), (1,), (2,))
    >>> task_layout("cyclic", [4, 2, 4, 2], 12)  # slurm_step_layout.c's comments
    ((0, 4, 8, 10), (1, 5), (2, 6, 9, 11), (3, 7))
    >>> task_layout("plane", [4, 1, 1], 6, plane_size=2)
    ((0, 1, 4, 5), (2,), (3,))
    """
    slots, n = [int(s) for s in slots], len(slots)
    if not n or min(slots) < 1 or ntasks < 0:
        raise SlurmlabError(
            f"task_layout: slots={slots} must give every node (at least one) room for a "
            f"task, and ntasks={ntasks} must be at least 0"
        )
    if distribution == "plane" and plane_size < 1:
        raise SlurmlabError(
            f"task_layout: plane needs a plane_size of at least 1, not {plane_size}"
        )
    if distribution not in ("block", "cyclic", "plane"):
        raise SlurmlabError(
            f"task_layout: distribution {distribution!r} is not block, cyclic or plane"
        )
    if distribution == "cyclic":
        return _layout_cyclic(slots, ntasks)
    counts = (_plane_counts if distribution == "plane" else _block_counts)(
        slots, ntasks, plane_size if distribution == "plane" else pack
    )
    tids: list[list[int]] = [[] for _ in slots]
    step = plane_size if distribution == "plane" else max(counts, default=0)
    taskid = 0
    while taskid < ntasks:  # deal blocks of `step` ids (block: each node's all at once)
        for i in range(n):
            take = min(step, counts[i] - len(tids[i]), ntasks - taskid)
            tids[i].extend(range(taskid, taskid + take))
            taskid += take
    return tuple(map(tuple, tids))


def _block_counts(slots: list[int], ntasks: int, pack: bool) -> list[int]:
    """``_task_layout_block``'s count: a cyclic deal (or, packed, fill nodes in order)."""
    n, counts, placed = len(slots), [0] * len(slots), 0
    if pack:
        for i in range(n):  # pass 1: one task on each node
            if placed < ntasks and counts[i] < slots[i]:
                counts[i], placed = counts[i] + 1, placed + 1
        for i in range(n):  # pass 2: fill the remaining slots node by node
            take = min(slots[i] - counts[i], ntasks - placed)
            counts[i], placed = counts[i] + take, placed + take
        while placed < ntasks:  # pass 3: spread the rest over all nodes
            for i in range(min(n, ntasks - placed)):
                counts[i], placed = counts[i] + 1, placed + 1
        return counts
    j, over = 0, False
    while placed < ntasks:
        space = False
        for i in range(n):
            if placed < ntasks and (j < slots[i] or over):
                counts[i], placed = counts[i] + 1, placed + 1
                space = space or j + 1 < slots[i]
        over = over or not space  # (no room left: oversubscribe every node)
        j += 1
    return counts


def _layout_cyclic(slots: list[int], ntasks: int) -> tuple[tuple[int, ...], ...]:
    """``_task_layout_cyclic``: task ids dealt round-robin over the nodes with room."""
    n, tids, taskid = len(slots), [[] for _ in slots], 0
    over = sum(slots) < ntasks
    max_over = -(-(ntasks - sum(slots)) // n) if over else 0
    j = 0
    while taskid < ntasks:
        space = False
        for i in range(n):
            if taskid < ntasks and (j < slots[i] or (over and j < slots[i] + max_over)):
                tids[i].append(taskid)
                taskid += 1
                space = space or j + 1 < slots[i]
        over = over or not space
        j += 1
    return tuple(map(tuple, tids))


def _plane_counts(slots: list[int], ntasks: int, plane_size: int) -> list[int]:
    """``_task_layout_plane``'s count: one task per node, then up to a plane per node and round."""
    n, counts, placed = len(slots), [0] * len(slots), 0
    for i in range(min(n, ntasks)):  # one task on each node first
        counts[i], placed = counts[i] + 1, placed + 1
    first, over = True, False
    while placed < ntasks:
        space = False
        for i in range(n):
            for _ in range(1 if first else 0, plane_size):
                if placed < ntasks and (slots[i] != counts[i] or over):
                    counts[i], placed = counts[i] + 1, placed + 1
                    space = space or slots[i] - (counts[i] + 1) >= 0
        over, first = over or not space, False
    return counts


def tasks_per_node_string(counts: Sequence[int]) -> str:
    """Slurm's SLURM_TASKS_PER_NODE form: runs of equal counts as ``N(xK)``.

    >>> tasks_per_node_string([4, 4, 3])
    '4(x2),3'
    """
    out: list[str] = []
    i = 0
    while i < len(counts):
        j = i
        while j + 1 < len(counts) and counts[j + 1] == counts[i]:
            j += 1
        k = j - i + 1
        out.append(f"{counts[i]}(x{k})" if k > 1 else str(counts[i]))
        i = j + 1
    return ",".join(out)


def master_port(job_id: int) -> int:
    """The rendezvous port PyTorch Lightning derives: 15000 + the job id's last 4 digits."""
    return 15000 + int(job_id) % 10000


def srun_env(
    job: JobSpec | str | Sequence[str],
    nodelist: str | Sequence[str] = "node[1-2]",
    job_id: int = 1,
    *,
    cluster: Cluster | str | None = None,
    restart_count: int = 0,
    account: str | None = None,
    qos: str | None = None,
    cpus: Sequence[int] | None = None,
    array_job_id: int | None = None,
    array_task_id: int | None = None,
) -> pd.DataFrame:
    """One row per task: the environment variables srun sets for it (SLURM_*,
    CUDA_VISIBLE_DEVICES), then those torch.distributed reads, which srun does **not** set:
    RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are what a launcher (torchrun,
    PyTorch Lightning) or the batch script derives from SLURM_PROCID, SLURM_LOCALID,
    SLURM_NTASKS and the first node of SLURM_JOB_NODELIST (MASTER_PORT: Lightning's choice,
    15000 + the job id's last four digits).

    ``job`` is the request: a :class:`JobSpec`, or sbatch options as text
    (``"-N 2 --gres=gpu:8"``) or a list of words, read as :meth:`JobSpec.from_args` reads
    them. ``nodelist`` is the allocation (a hostlist expression or names); its length must
    equal the job's node count. ``job_id`` is a whole number. With ``cluster`` (a
    :class:`Cluster`, a preset name such as ``"ai"`` or a slurm.conf path, as ``simulate``
    takes) the request is resolved against it (partition, default GPUs and CPUs), and the
    nodelist must name its nodes; without, the request's own numbers are used.
    ``restart_count`` is how many times the job was requeued (a whole number, 0 at first).
    ``account`` and ``qos`` are the job's resolved ones (a simulated job's, as sacct shows
    them); by default the request's ``-A`` (or '') and ``--qos`` (or 'normal'). ``cpus``
    is the CPUs the job holds on each node (a simulated job's allocation); by default the
    resolved shape's (every CPU of the node with ``--exclusive`` and ``cluster``). They make
    SLURM_JOB_CPUS_PER_NODE (``4(x2)``) and each node's SLURM_CPUS_ON_NODE. Slurm gives a
    job of uneven tasks per node CPUs in its own pattern (``8,2`` for ``-N 2 -n 5 -c 2``
    on idle 32-CPU nodes, where slurmlab's one shape per node holds ``6(x2)``). Without
    ``cluster`` or ``cpus``, the CPUs of ``--exclusive`` (the nodes' own) are unknown and
    the two columns are left out.

    The step is the one a plain ``srun`` in the batch script starts: the first
    (SLURM_STEPID 0), over the whole allocation (the SLURM_STEP_* variables equal the
    job's). A node's GPUs are those Slurm gives the step there: with ``--gpus-per-task``
    alone, the node's tasks times GPUs per task (SLURM_GPUS_ON_NODE); each task sees those
    ``--gpu-bind`` (see :class:`slurmlab.srun.GpuBind`) binds it to, in CUDA_VISIBLE_DEVICES.

    As real srun (22.05, checked in ``datasets/realslurm/srun-env``), some variables are
    set only when they apply, so their columns appear only then: SLURM_CPUS_PER_TASK with
    ``-c``, SLURM_NTASKS_PER_NODE with ``--ntasks-per-node``, SLURM_GPUS,
    SLURM_GPUS_PER_TASK and SLURM_GPUS_PER_NODE with ``--gpus``, ``--gpus-per-task`` and
    ``--gpus-per-node`` (as typed: ``a100:2``), SLURM_GPU_BIND with ``--gpu-bind``,
    SLURM_MEM_PER_CPU with ``--mem-per-cpu`` or DefMemPerCPU (else SLURM_MEM_PER_NODE with
    ``--mem``, SLURM_MEM_PER_GPU with ``--mem-per-gpu``), SLURM_CPUS_PER_GPU with
    ``--cpus-per-gpu`` (env.c ``set_env_from_opts``), SLURM_GPUS_ON_NODE and
    CUDA_VISIBLE_DEVICES when the job holds GPUs, SLURM_DIST_PLANESIZE with
    ``--distribution=plane=N``, SLURM_RESTART_COUNT after a requeue (a script reads it as
    ``os.environ.get("SLURM_RESTART_COUNT", "0")``). Not given: SLURM_JOB_GPUS,
    SLURM_STEP_GPUS and GPU_DEVICE_ORDINAL, the indices of the node's GPUs the job holds
    (gres_common.c): slurmlab does not track which of a node's GPUs a job gets (the
    CUDA_VISIBLE_DEVICES shown count from 0, as a task sees its GPUs under cgroup's
    ConstrainDevices).

    Tasks go to nodes as ``-m/--distribution`` says (:func:`task_layout`, Slurm's
    slurm_step_layout.c): ``block`` numbers each node's tasks consecutively, ``cyclic`` deals
    the task ids round-robin (``-N 2 -n 4``: ranks 0 and 2 on the first node, 1 and 3 on the
    second), ``plane=N`` deals them in blocks of N. Only the ids move: every node keeps the
    allocation's tasks (SLURM_TASKS_PER_NODE, LOCAL_WORLD_SIZE), numbered by SLURM_LOCALID
    in id order, and ``--gpu-bind`` binds by SLURM_LOCALID. (With CPUs to spare on a node,
    Slurm's ``plane`` can put up to N tasks on the first nodes, where slurmlab keeps the
    allocation's count.) The parts after ``:`` (``cyclic:block``) only bind CPUs; they show
    in SLURM_DISTRIBUTION, written as Slurm writes it (``*:*`` as ``block:cyclic``,
    ``plane=4`` as ``plane``). Without ``--distribution`` it is srun's default: ``cyclic``
    when there are no more tasks than nodes, else ``block`` (launch.c; ``block`` too with
    ``--mem=0``, step_mgr.c). ``arbitrary`` (a hostfile's order) is refused: not modelled.

    SLURM_CPUS_PER_TASK is the batch job's ``-c``, which the tasks inherit; since 22.05 srun
    no longer reads it (RELEASE_NOTES: it reads SRUN_CPUS_PER_TASK only). A plain ``srun``
    starts its tasks with 1 CPU each unless given ``srun -c N`` (or ``export
    SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK``), so under CPU binding (task/affinity, cgroup
    ConstrainCores) each rank's DataLoader workers share one CPU. The real
    ``-N 2 -n 5 -c 2`` job in ``datasets/realslurm/srun-env`` shows it: its step put 2
    tasks on the node where the job holds 2 CPUs (``8,2``), one CPU per task, not 2.
    (``--cpus-per-gpu`` does carry over: srun reads SLURM_CPUS_PER_GPU back.)

    For an array task (a job with ``--array``), the SLURM_ARRAY_* variables: the array's
    job id (``array_job_id``, by default ``job_id``; in Slurm, as in a simulation, a task
    gets a JobID of its own when it starts, and the array's goes to the task started last
    from its pending record),
    the task's index (``array_task_id``, by default the first index), and the array's
    COUNT, MIN, MAX and STEP (slurmctld's ``_create_job_array``).

    RANK is SLURM_PROCID and NODE_RANK SLURM_NODEID, so with ``cyclic`` or ``plane`` RANK is
    not ``NODE_RANK * LOCAL_WORLD_SIZE + LOCAL_RANK`` (what torchrun's layout assumes).
    The derived columns are those of one task per GPU started by ``srun`` itself. With
    ``srun torchrun --nproc_per_node=G`` (one task per node), torchrun starts G workers
    on each node and sets RANK, LOCAL_RANK and WORLD_SIZE for them (WORLD_SIZE = nodes x G),
    and its rendezvous endpoint (``--rdzv_endpoint``) replaces MASTER_ADDR/MASTER_PORT:
    the table's derived columns then describe srun's tasks, not torchrun's workers.

    >>> env = srun_env(JobSpec.from_args("-N 2 --ntasks-per-node=8 --gres=gpu:8"), "gpu[01-02]", 42)
    >>> env.loc[9, ["RANK", "LOCAL_RANK", "SLURMD_NODENAME"]].to_dict()
    {'RANK': 9, 'LOCAL_RANK': 1, 'SLURMD_NODENAME': 'gpu02'}
    """
    job = _job_of(job)
    restart_count = parse_whole(restart_count, what="srun_env: restart_count")
    job_id = parse_whole(job_id, what="srun_env: job_id", minimum=1)
    if array_job_id is not None:
        array_job_id = parse_whole(array_job_id, what="srun_env: array_job_id", minimum=1)
    if cluster is not None:
        cluster = Cluster.coerce(cluster)  # (a preset name or a slurm.conf path too)
    hosts = expand_hostlist(nodelist) if isinstance(nodelist, str) else list(nodelist)
    if cluster is not None:
        _check_hosts(hosts, nodelist, cluster)
    order = _allocation_order(hosts, nodelist)
    hosts = [hosts[i] for i in order]
    if (
        job.max_nodes is not None
        and job.nodes is not None
        and job.nodes < len(hosts) <= job.max_nodes
    ):
        # --nodes=MIN-MAX given more than MIN: the step is that of the nodes it got
        job = replace(job, nodes=len(hosts), max_nodes=None)
    bind_text = next((v for k, v in reversed(job.other) if k == "gpu-bind"), None)
    bind = GpuBind.parse(bind_text)
    if cluster is not None:
        res = job.resources(cluster)
        n_nodes, per_node, gpn = res.nodes, list(res.tasks_per_node), res.gpus_per_node
        cpt, partition = res.cpus_per_task, res.partition
        per_cpu = res.mem_per_cpu_mb  # (DefMemPerCPU too)
    else:
        ntasks, n_nodes = job._tasks_and_nodes()  # noqa: SLF001 - same package
        base, extra = divmod(ntasks, n_nodes)
        per_node = [base + (1 if i < extra else 0) for i in range(n_nodes)]
        if job.gpus_per_node:
            gpn = job.gpus_per_node
        elif job.gpus:
            gpn = -(-job.gpus // n_nodes)
            if job.gpus % n_nodes:  # (as a cluster's resolution warns it)
                _warn_gpus_rounded(job, n_nodes, gpn)
        else:
            gpn = (job.gpus_per_task or 0) * max(per_node)
        cpt, partition = job.cpus_per_task or 1, job.partition
        per_cpu = job.mem_per_cpu_mb
    if (
        cluster is not None
        and cpus is not None
        and len(hosts) >= n_nodes
        and spread_of(job, res, cluster) is not None
        and hasattr(cpus, "__len__")
        and len(cpus) == len(hosts)
    ):
        # -n without -N, placed as Slurm spreads it (placement.py: perhaps unevenly): the
        # tasks on each node are its CPUs there over the CPUs per task
        given = [parse_whole(c, what="srun_env: cpus entry", minimum=1) for c in cpus]
        n_nodes, per_node = len(hosts), [given[i] // cpt for i in order]
    if len(hosts) != n_nodes:
        raise SlurmlabError(
            f"srun_env: nodelist {nodelist!r} has {len(hosts)} nodes but the job asks for "
            f"{n_nodes}; give exactly {n_nodes} node name{'s' if n_nodes > 1 else ''}"
        )
    if cpus is not None:
        if isinstance(cpus, str | bytes) or not hasattr(cpus, "__iter__"):
            raise SlurmlabError(
                f"srun_env: cpus={cpus!r}: give the CPUs the job holds on each node as a list, "
                f"one whole number per node of the nodelist, e.g. cpus={[8] * n_nodes}"
            )
        node_cpus = [parse_whole(c, what="srun_env: cpus entry", minimum=1) for c in cpus]
        if len(node_cpus) != n_nodes:
            raise SlurmlabError(
                f"srun_env: cpus={list(cpus)} gives {len(node_cpus)} nodes' CPUs but the job "
                f"has {n_nodes} nodes; give one count per node of the nodelist"
            )
        node_cpus = [node_cpus[i] for i in order]  # (each node keeps its count)
    elif cluster is not None and res.whole_node:
        known = {n.name: n.cpus for n in cluster.nodes}
        node_cpus = [known.get(host, res.cpus_per_node) for host in hosts]
    elif cluster is not None:
        node_cpus = [res.cpus_per_node] * n_nodes
    elif job.exclusive:  # every CPU of nodes whose size is unknown without the cluster
        node_cpus = None
    else:
        cpn = max(per_node) * cpt
        node_cpus = [max(cpn, (job.cpus_per_gpu or 0) * gpn)] * n_nodes
    gpt = job.gpus_per_task or 0
    if gpt and not job.gpus_per_node and not job.gpus:
        # Slurm gives each node its own tasks' GPUs; the simulated allocation holds the
        # largest node's count on every node (one shape per node)
        node_gpus = [count * gpt for count in per_node]
    elif cluster is not None and res.gpus_per_job:
        # -N k --gpus=M: dealt over the nodes in node order, as Slurm deals them on idle
        # nodes (placement.deal_gpus; on partly used ones each gets what was free)
        have = [min(cluster.node(h).gpus, res.gpus_per_job) for h in hosts]
        node_gpus = deal_gpus(have, res.gpus_per_job)
    else:
        node_gpus = [gpn] * n_nodes
    ntasks = sum(per_node)
    compressed = ordered_hostlist(hosts)  # (the allocation's order: the node table's)
    layout = tasks_per_node_string(per_node)
    cpu_layout = None if node_cpus is None else tasks_per_node_string(node_cpus)

    def typed(count):  # a GPU option as sbatch passes it on: "a100:2", or the count alone
        return f"{job.gpu_type}:{count}" if count and job.gpu_type else count

    # set only when they apply: asked for (or a default, DefMemPerCPU), GPUs as typed, the
    # restart count after a requeue (env.c: setup_env, env_array_for_batch_job, set_env_from_opts)
    optional = {
        name: value
        for name, value in (
            ("SLURM_CPUS_PER_TASK", job.cpus_per_task and cpt),
            ("SLURM_NTASKS_PER_NODE", job.ntasks_per_node),
            ("SLURM_MEM_PER_CPU", per_cpu),
            ("SLURM_MEM_PER_NODE", not per_cpu and job.mem_mb),
            ("SLURM_MEM_PER_GPU", job.mem_per_gpu_mb),
            ("SLURM_CPUS_PER_GPU", job.cpus_per_gpu),
            ("SLURM_GPUS", typed(job.gpus)),
            ("SLURM_GPUS_PER_TASK", typed(job.gpus_per_task)),
            (
                "SLURM_GPUS_PER_NODE",
                typed(job.gpus_per_node_option == "gpus-per-node" and job.gpus_per_node),
            ),
            ("SLURM_GPU_BIND", bind_text),
            ("SLURM_RESTART_COUNT", int(restart_count)),
        )
        if value
    }
    optional |= _array_env(job, job_id, array_job_id, array_task_id)
    dist_text = next((v for k, v in reversed(job.other) if k == "distribution"), None)
    dist = Distribution.parse(dist_text) if dist_text is not None else Distribution("")
    # srun's own choice without one (launch.c; block too with --mem=0, step_mgr.c)
    default = "cyclic" if ntasks <= n_nodes and job.mem_mb != 0 else "block"
    if dist.nodes == "arbitrary":
        raise SlurmlabError(
            f"srun_env: --distribution={dist_text} lays the tasks out in the order of the "
            "hostfile SLURM_HOSTFILE names, which slurmlab does not model; use block, cyclic "
            "or plane=N"
        )
    if dist.nodes == "plane":
        optional["SLURM_DIST_PLANESIZE"] = dist.plane_size
    # the allocation's tasks per node are the slots: every layout keeps those counts
    tids = task_layout(
        dist.nodes or default,
        per_node,
        ntasks,
        plane_size=dist.plane_size,
        pack=dist.flag == "pack",
    )
    rows, unbound = [], []
    for node_id, (host, count, gpus, on_node) in enumerate(
        zip(hosts, per_node, node_gpus, node_cpus or [None] * n_nodes)
    ):
        for local, rank in enumerate(tids[node_id]):
            devices = bind.devices(local, gpus, gpt) if gpus else ()
            if gpus and not devices:
                unbound.append(rank)
                devices = (0,)
            row = {
                "SLURM_JOB_ID": job_id,
                "SLURM_JOB_NAME": job.job_name,
                "SLURM_JOB_NODELIST": compressed,
                "SLURM_NODELIST": compressed,
                "SLURM_NNODES": n_nodes,
                "SLURM_JOB_NUM_NODES": n_nodes,
                "SLURM_NTASKS": ntasks,
                "SLURM_NPROCS": ntasks,
                "SLURM_PROCID": rank,
                "SLURM_LOCALID": local,
                "SLURM_NODEID": node_id,
                "SLURMD_NODENAME": host,
                "SLURM_TASKS_PER_NODE": layout,
                "SLURM_STEPID": 0,
                "SLURM_STEP_NODELIST": compressed,
                "SLURM_STEP_NUM_NODES": n_nodes,
                "SLURM_STEP_NUM_TASKS": ntasks,
                "SLURM_STEP_TASKS_PER_NODE": layout,
                "SLURM_JOB_PARTITION": partition or "",
                "SLURM_JOB_ACCOUNT": account if account is not None else job.account or "",
                "SLURM_JOB_QOS": qos if qos is not None else job.qos or "normal",
                "SLURM_DISTRIBUTION": dist.text(default),
                **optional,
            }
            if cpu_layout is not None:
                row["SLURM_JOB_CPUS_PER_NODE"] = cpu_layout
                row["SLURM_CPUS_ON_NODE"] = on_node
            if gpus:  # (Slurm sets neither on a node where the job holds no GPU)
                row["SLURM_GPUS_ON_NODE"] = gpus
                row["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, devices))
            row |= {
                "MASTER_ADDR": hosts[0],
                "MASTER_PORT": master_port(job_id),
                "WORLD_SIZE": ntasks,
                "RANK": rank,
                "LOCAL_RANK": local,
                "LOCAL_WORLD_SIZE": count,
                "NODE_RANK": node_id,
            }
            rows.append(row)
    if unbound:
        ranks = ", ".join(map(str, sorted(unbound)))
        warnings.warn(
            f"--gpu-bind={bind_text}: binds rank {ranks} to no GPU the "
            "step holds on its node (GPU ids count that node's GPUs from 0); as Slurm does, "
            "each such task gets the first GPU instead",
            stacklevel=2,
        )
    return pd.DataFrame(sorted(rows, key=lambda row: row["SLURM_PROCID"]))


def _job_of(job) -> JobSpec:
    """The request: a JobSpec, or sbatch options as text (``"-N 2 --gres=gpu:8"``) or a list
    of words, read as :meth:`JobSpec.from_args` reads them."""
    if isinstance(job, JobSpec):
        return job
    if isinstance(job, str) or (
        isinstance(job, list | tuple) and job and all(isinstance(w, str) for w in job)
    ):
        return JobSpec.from_args(job)
    raise SlurmlabError(
        f"srun_env: job={job!r} ({type(job).__name__}) is not a request: give a JobSpec "
        '(JobSpec.from_args("-N 2 --gres=gpu:8")) or sbatch options as text ("-N 2 --gres=gpu:8")'
    )


def _allocation_order(hosts: list[str], nodelist) -> list[int]:
    """The order Slurm lists an allocation's nodes in, as indices into ``hosts``: its node
    table's, by name (``gpu9`` before ``gpu10``: :func:`~slurmlab.spec.units.node_order_key`,
    bitmap2node_name), which numbers the tasks (SLURM_NODEID, the ranks, MASTER_ADDR) and
    SLURM_JOB_NODELIST. A nodelist given in another order is warned about."""
    order = sorted(range(len(hosts)), key=lambda i: node_order_key(hosts[i]))
    if order != sorted(order):
        shown = ",".join(hosts[i] for i in order)
        warnings.warn(
            f"srun_env: nodelist {nodelist!r} is not in the order Slurm lists a job's nodes "
            f"(slurmctld's node table, by name: {shown}); Slurm numbers the nodes and tasks "
            "(SLURM_NODEID, RANK, MASTER_ADDR) in that order, so the environment is shown in it",
            stacklevel=3,
        )
    return order


def _check_hosts(hosts: list[str], nodelist, cluster: Cluster) -> None:
    """Every node of the allocation is one of the cluster's."""
    names = {n.name for n in cluster.nodes}
    unknown = [h for h in hosts if h not in names]
    if unknown:
        raise SlurmlabError(
            f"srun_env: nodelist {nodelist!r} names {compress_hostlist(unknown)}, which "
            f"cluster {cluster.name!r} does not have (it has "
            f"{compress_hostlist(sorted(names))}); give nodes of the cluster, or leave "
            "cluster= out"
        )


def _array_env(job: JobSpec, job_id, array_job_id, array_task_id) -> dict[str, int]:
    """SLURM_ARRAY_* of an array task; none for a job without ``--array``."""
    if job.array is None:
        if array_job_id is not None or array_task_id is not None:
            raise SlurmlabError("srun_env: array_job_id/array_task_id need a job with --array")
        return {}
    indices = job.array.indices
    task = indices[0] if array_task_id is None else parse_whole(array_task_id, what="array_task_id")
    if task not in indices:
        raise SlurmlabError(
            f"srun_env: array_task_id={task} is not a task of --array={job.array}; "
            f"give one of its indices"
        )
    return {
        "SLURM_ARRAY_JOB_ID": job_id if array_job_id is None else array_job_id,
        "SLURM_ARRAY_TASK_ID": task,
        "SLURM_ARRAY_TASK_COUNT": len(indices),
        "SLURM_ARRAY_TASK_MIN": indices[0],
        "SLURM_ARRAY_TASK_MAX": indices[-1],
        "SLURM_ARRAY_TASK_STEP": job.array.step,
    }
