"""A job request as sbatch reads it: from ``#SBATCH`` lines, an argument list, or Python.

``JobSpec`` is the request *as written* (frozen, validated on its own);
``JobSpec.resources(cluster)`` resolves it against a cluster into the per-node
shape Slurm allocates (nodes, CPUs, memory, GPUs per node, time limit), and
rejects at submission what no node of the partition could ever run, in Slurm's
words ("Requested node configuration is not available").

Known simplifications: every node of an allocation gets the same shape (Slurm may
lay tasks out unevenly), so ``-N MIN-MAX`` takes up to MAX nodes only when its shape per
node does not depend on how many it gets: with more tasks (``-n``) than MIN it gets MIN, with
a warning (``--gpus``, GPUs per job, gets MIN as in Slurm).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shlex
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from numbers import Integral, Real
from pathlib import Path
from typing import Literal

import numpy as np

from slurmlab.errors import RequestError, SbatchError, SlurmlabError, warn_at_caller
from slurmlab.spec.cluster import Cluster, Gres, Node, Partition
from slurmlab.spec.cluster import derived as cluster_facts
from slurmlab.spec.parse_time import _BEGIN_HELP, TimeOfDay, _format_begin, _parse_begin
from slurmlab.spec.units import ascii_digits as _digits
from slurmlab.spec.units import (
    compress_hostlist,
    expand_hostlist,
    format_duration,
    format_memory_mb,
    parse_duration,
    parse_memory_mb,
    parse_seconds,
    parse_time_limit,
)

__all__ = [
    "ArraySpec",
    "Dependency",
    "Distribution",
    "JobSpec",
    "Resources",
    "SignalSpec",
    "TimeOfDay",
]

DependencyKind = Literal["after", "afterok", "afterany", "afternotok", "aftercorr", "singleton"]
_DEP_KINDS = ("after", "afterok", "afterany", "afternotok", "aftercorr", "singleton")
#: Slurm 22.05's other dependency types (slurmctld/job_scheduler.c), refused by name
_DEP_KINDS_NOT_MODELLED = {
    "afterburstbuffer": "wait for the burst buffer stage-out of the jobs",
    "expand": "grow the jobs' allocation with this one's",
}
MAX_ARRAY_SIZE = 1001  # Slurm's default MaxArraySize: indices 0..1000
LARGEST_ARRAY_SIZE = 4000001  # the largest MaxArraySize slurm.conf(5) allows


@dataclass(frozen=True, slots=True)
class ArraySpec:
    """``--array``: the task indices and the ``%N`` throttle (max tasks running at once).

    ``step`` is the step Slurm reports to the tasks (SLURM_ARRAY_TASK_STEP): the number
    after the specification's first ``:`` (``0-99:2``), else 1, as slurmctld reads it.
    """

    indices: tuple[int, ...]
    throttle: int | None = None
    step: int = 1

    def __post_init__(self):
        if not self.indices:
            raise SbatchError("--array: no task indices")
        if min(self.indices) < 0:
            raise SbatchError(f"--array: negative index {min(self.indices)}")
        if self.throttle is not None and self.throttle < 1:
            raise SbatchError(f"--array: throttle %{self.throttle} must be at least 1")
        if self.step < 1:
            raise SbatchError(f"--array: step :{self.step} must be at least 1")
        object.__setattr__(self, "indices", tuple(sorted(set(self.indices))))

    @classmethod
    def parse(cls, text: str) -> ArraySpec:
        """Parse ``0-15``, ``1,3,5``, ``0-99:2``, ``0-15%4`` (``%0`` and a bare ``%``: no
        throttle, as slurmctld reads them).

        >>> ArraySpec.parse("0-6:2%2")
        ArraySpec(indices=(0, 2, 4, 6), throttle=2, step=2)
        """
        body, percent, thr = text.partition("%")
        idx: list[int] = []
        for part in body.split(","):
            m = re.fullmatch(r"([0-9]+)(?:-([0-9]+)(?::([0-9]+))?)?", part.strip())
            if not m:
                raise SbatchError(
                    f"--array={text!r}: invalid job array specification; use e.g. 0-15, 1,3,5, "
                    "0-99:2 or 0-15%4"
                )
            lo, hi, step = int(m.group(1)), m.group(2), m.group(3)
            hi, step = lo if hi is None else int(hi), int(step or 1)
            if hi < lo or step < 1:
                raise SbatchError(f"--array={text!r}: range {part!r} is empty or has step < 1")
            if hi >= LARGEST_ARRAY_SIZE:  # (checked before the indices are listed; a
                raise SbatchError(  # cluster's own MaxArraySize is checked at submission)
                    f"--array={text!r}: index {hi} exceeds the largest MaxArraySize Slurm "
                    f"allows, {LARGEST_ARRAY_SIZE} (indices 0..{LARGEST_ARRAY_SIZE - 1})"
                )
            idx.extend(range(lo, hi + 1, step))
        # slurmctld's _create_job_array reads the throttle with atoi and sets it only when
        # above 0: %0, a bare % (and atoi's 0 for text) mean no throttle
        m = re.match(r"\s*([+-]?[0-9]+)", thr)
        throttle = int(m.group(1)) if m else 0
        if thr and not _digits(thr):
            _warn(
                f"--array={text!r}: throttle %{thr} is not a number; slurmctld reads it as "
                f"{max(throttle, 0)} (atoi){', no throttle' if throttle < 1 else ''}: write "
                "e.g. 0-15%4 to run at most 4 tasks at once"
            )
        step = re.match(r"[0-9]*", body.partition(":")[2]).group()  # (slurmctld: atoi)
        return cls(tuple(idx), throttle if throttle > 0 else None, int(step) if step else 1)

    def __str__(self) -> str:
        """The indices as ranges, then the throttle: with a step above 1, runs of that step
        as ``lo-hi:step`` and every other index alone (``0,1,2,3,10-20:2``); else runs of
        consecutive indices as ``lo-hi``. It parses back to the same indices and step."""
        runs, idx, step = [], list(self.indices), self.step
        i = 0
        while i < len(idx):
            j = i
            while j + 1 < len(idx) and idx[j + 1] == idx[j] + step:
                j += 1
            if i == j:
                runs.append(str(idx[i]))
            else:
                runs.append(f"{idx[i]}-{idx[j]}" + (f":{step}" if step > 1 else ""))
            i = j + 1
        return ",".join(runs) + (f"%{self.throttle}" if self.throttle else "")


@dataclass(frozen=True, slots=True)
class Dependency:
    """One ``--dependency`` condition: ``afterok:12:13`` or ``singleton``."""

    kind: DependencyKind
    job_ids: tuple[str, ...] = ()

    def __post_init__(self):
        ids = self.job_ids  # ("12", "13"); text is split at ':' and numbers are ids
        ids = ids.split(":") if isinstance(ids, str) else [ids] if isinstance(ids, int) else ids
        if not isinstance(ids, list | tuple) or not all(
            isinstance(i, str) or isinstance(i, Integral) and not isinstance(i, bool) for i in ids
        ):
            raise SbatchError(
                f"--dependency: job ids {self.job_ids!r} are not job ids; give e.g. "
                "Dependency('afterok', ('12', '13'))"
            )
        object.__setattr__(self, "job_ids", tuple(str(i) for i in ids))
        if self.kind in _DEP_KINDS_NOT_MODELLED:
            raise SbatchError(
                f"--dependency={self}: {self.kind!r} is a Slurm dependency type "
                f"({_DEP_KINDS_NOT_MODELLED[self.kind]}) that is not modelled by slurmlab; "
                f"use one of {', '.join(_DEP_KINDS)}"
            )
        if self.kind not in _DEP_KINDS:
            raise SbatchError(
                f"--dependency: unknown type {self.kind!r}; use one of {', '.join(_DEP_KINDS)}"
            )
        if self.kind == "singleton" and self.job_ids:
            raise SbatchError("--dependency=singleton takes no job ids")
        if self.kind != "singleton" and not self.job_ids:
            raise SbatchError(f"--dependency={self.kind}: give job ids, e.g. {self.kind}:1234")

    def __str__(self) -> str:
        return ":".join((self.kind, *self.job_ids))


# The signal names Slurm knows (proc_args.c ``signals_mapping``), written with or without SIG
_SIGNALS = (
    "HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM", "USR1", "USR2", "URG", "CONT", "STOP",
    "TSTP", "TTIN", "TTOU", "XCPU",
)  # fmt: skip
_SIGNAL_HELP = (
    "use [{R|B}:]sig[@sig_time], sig a name (" + ", ".join(_SIGNALS) + ", with or without "
    "SIG) or a number 1-65535 and sig_time 0-65535 seconds, e.g. B:USR1@120"
)


def _signal_name(text: str) -> str | None:
    """A signal as Slurm's ``sig_name2num`` reads it: ``USR1``, ``sigusr1``, ``10`` (numbers
    1-65535 are kept as numbers); None for anything else."""
    word = text.strip()
    if re.fullmatch(r"\+?[0-9]+", word):
        return str(int(word)) if 1 <= int(word) <= 65535 else None
    name = word.upper().removeprefix("SIG")
    return name if name in _SIGNALS else None


@dataclass(frozen=True, slots=True)
class SignalSpec:
    """``--signal=[{R|B}:]sig[@sig_time]``: signal ``sig`` sent ``seconds`` before the time limit.

    ``signal`` is a name Slurm knows (``USR1``; ``SIGUSR1`` and ``usr1`` are read as it) or a
    number 1-65535; ``seconds`` is 0-65535 (60 when not given).
    """

    signal: str = "USR1"
    seconds: int = 60
    batch_only: bool = False
    reservation: bool = False

    def __post_init__(self):
        name = _signal_name(str(self.signal))
        if name is None:
            raise SbatchError(
                f"--signal: {self.signal!r} is not a signal: Invalid --signal specification; "
                + _SIGNAL_HELP
            )
        object.__setattr__(self, "signal", name)
        secs = self.seconds
        if not isinstance(secs, int) or isinstance(secs, bool) or not 0 <= secs <= 65535:
            raise SbatchError(
                f"--signal={name}@{secs}: sig_time must be 0-65535 seconds: Invalid --signal "
                "specification"
            )

    @classmethod
    def parse(cls, text: str) -> SignalSpec:
        """Parse ``--signal``'s value as sbatch's ``get_signal_opts`` does: an optional ``R``
        and ``B`` (either order, any case) and ``:``, a signal, an optional ``@sig_time``.

        >>> SignalSpec.parse("B:USR1@120")
        SignalSpec(signal='USR1', seconds=120, batch_only=True, reservation=False)
        >>> SignalSpec.parse("sigterm").signal
        'TERM'
        """
        rest, flags = text, ""
        for letter in "RBR":  # R, then (sbatch only) B, then R again: RB and BR
            if rest[:1].upper() == letter:
                rest, flags = rest[1:], flags + letter
        sig, at, secs = rest.removeprefix(":").partition("@")
        bad = f"--signal={text!r}: Invalid --signal specification"
        name = _signal_name(sig)
        if name is None:
            raise SbatchError(f"{bad}: {sig.strip()!r} is not a signal; {_SIGNAL_HELP}")
        if at and not (re.fullmatch(r"\s*\+?[0-9]+", secs) and int(secs) <= 65535):
            raise SbatchError(
                f"{bad}: sig_time {secs!r} is not a number of seconds 0-65535; {_SIGNAL_HELP}"
            )
        return cls(name, int(secs) if at else 60, "B" in flags, "R" in flags)

    def __str__(self) -> str:
        prefix = ("R" if self.reservation else "") + ("B" if self.batch_only else "")
        return (f"{prefix}:" if prefix else "") + f"{self.signal}@{self.seconds}"


@dataclass(frozen=True, slots=True)
class Resources:
    """A request resolved against a cluster: the per-node shape Slurm allocates.

    Every node of the allocation gets the same shape (``cpus_per_node``,
    ``mem_per_node_mb``, ``gpus_per_node``); tasks are laid out block-wise
    (``tasks_per_node``). ``mem_per_node_mb`` is 0 where memory is not a
    consumable resource. ``whole_node`` is set by ``--exclusive``. A job taking each
    node's whole memory (``mem_whole_node``) gets each node's own, at least
    ``mem_per_node_mb`` (the least of its nodes'), on nodes none of whose memory is
    allocated (cons_common ``_verify_node_state``, ``_job_test``).

    ``limit_reason`` names a partition limit the request exceeds that Slurm, with the
    default ``EnforcePartLimits=NO``, accepts and leaves pending for ever:
    ``MaxMemPerLimit`` when its memory is above MaxMemPerNode (or MaxMemPerCPU x its CPUs).
    """

    partition: str
    nodes: int
    ntasks: int
    tasks_per_node: tuple[int, ...]
    cpus_per_task: int
    cpus_per_node: int
    mem_per_node_mb: int
    gpus_per_node: int
    gpu_type: str | None
    time_limit: timedelta | None
    whole_node: bool = False
    features: str | None = None
    candidates: tuple[str, ...] = field(default=(), repr=False)
    mem_per_cpu_mb: int = 0  # memory scales with the CPUs (--mem-per-cpu, DefMemPerCPU)
    mem_per_gpu_mb: int = 0  # memory scales with the GPUs (--mem-per-gpu, DefMemPerGPU)
    mem_whole_node: bool = False  # --mem=0, or no default: each node's whole memory
    limit_reason: str | None = None  # a limit that leaves it pending (MaxMemPerLimit)
    #: the memory per node sacct's ReqMem and ReqTRES report where it is not
    #: ``mem_per_node_mb``: where memory is no consumable resource (``mem_per_node_mb`` 0),
    #: the memory per node asked for; for each node's whole memory (``mem_whole_node``, or
    #: none asked for where memory is not consumable), the memory of the partition's first
    #: node (job_mgr.c ``job_get_tres_mem``), whichever nodes the job gets
    req_mem_mb: int = 0
    #: ``-N k --gpus=M`` (k > 1, GPUs per job on a fixed node count): M, dealt over the
    #: nodes as Slurm deals them (``placement.deal_gpus``: 4 + 1 for ``-N 2 --gpus=5`` on
    #: idle 4-GPU nodes), ``gpus_per_node`` 1, the least a node of the job holds; else 0
    gpus_per_job: int = 0
    #: CPUs per GPU: ``--cpus-per-gpu``, else the partition's or slurm.conf's DefCpuPerGPU
    #: for a GPU job without ``-c`` (:func:`_with_def_cpus_per_gpu`); 0: none
    cpus_per_gpu: int = 0
    #: the node count the request fixed (-N, --nodelist, --gpus with --gpus-per-node), as
    #: slurmctld's min_nodes; None when it fixed none (slurmctld then counts 1 until it runs)
    req_nodes: int | None = None
    #: the CPUs asked for, as sbatch's min_cpus: the tasks (-n; else --ntasks-per-node, or
    #: one, per node of req_nodes, or one) times CPUs per task
    req_cpus: int = 0
    #: ``--nodes=MIN-MAX`` (``nodes`` is MIN): the most nodes it takes when they are free
    #: (MAX, at most the partition's MaxNodes), as slurmctld's req_nodes; None for a fixed
    #: count. Every node gets the same shape whatever their number (tasks per node, memory
    #: and GPUs per node), so only the totals change with the nodes it gets
    max_nodes: int | None = None

    def requested(self) -> dict[str, int]:
        """sacct's ReqTRES totals (``cpu``, ``mem`` MB, ``node``, ``gres/gpu``): the shape on
        every node, but the CPUs asked for (``req_cpus``) where the allocation holds more
        (whole cores, ``--cpus-per-gpu``, the same shape on nodes of uneven tasks), with
        memory per CPU for those CPUs, as real Slurm 22.05 reports them
        (datasets/realslurm/threads: ``-n 3`` asks cpu=3, mem 3 x DefMemPerCPU, and is
        allocated cpu=4; ``--gres=gpu:1 --cpus-per-gpu=3`` asks cpu=1)."""
        cpus = self.cpus_per_node * self.nodes
        mem = (self.req_mem_mb or self.mem_per_node_mb) * self.nodes
        if self.req_cpus and self.req_cpus < cpus:
            cpus = self.req_cpus
            if self.mem_per_cpu_mb and self.mem_per_node_mb:
                mem = self.mem_per_cpu_mb * cpus
        return {
            "cpu": cpus,
            "mem": mem,
            "node": self.nodes,
            "gres/gpu": self.gpus_per_job or self.gpus_per_node * self.nodes,
        }

    def allocated(self, usage) -> dict[str, int]:
        """sacct's AllocTRES totals (``cpu``, ``mem`` MB, ``node``, ``gres/gpu``) of an
        allocation, from the rows (CPUs, MB, GPUs per node) the engine holds for it: all of
        each node under ``--exclusive``, of which Slurm allocates only the memory asked for."""
        cpus, gpus = int(usage[:, 0].sum()), int(usage[:, 2].sum())
        if self.whole_node:
            mem = sum(self.alloc_mem_mb(int(c), int(g), int(m)) for c, m, g in usage.tolist())
        else:
            mem = int(usage[:, 1].sum())
        return {"cpu": cpus, "mem": mem, "node": len(usage), "gres/gpu": gpus}

    def alloc_mem_mb(self, cpus: int, gpus: int, node_mem_mb: int) -> int:
        """The memory Slurm allocates on one node where the job holds ``cpus`` CPUs and
        ``gpus`` GPUs (under ``--exclusive``, all of the node's): a per-CPU or per-GPU
        request scales with them, ``--mem=0`` (or no default) takes the node's memory, and
        ``--mem`` or DefMemPerNode is what it says. ``--exclusive`` allocates all CPUs and
        GRES but only the memory asked for (sbatch(1)); sacct's AllocTRES shows this."""
        if self.mem_whole_node:
            return node_mem_mb
        if self.mem_per_cpu_mb:
            return self.mem_per_cpu_mb * cpus
        if self.mem_per_gpu_mb:
            return self.mem_per_gpu_mb * max(gpus, 1)
        return self.mem_per_node_mb

    def tres(self) -> dict[str, int]:
        """Allocated TRES totals (``node``, ``cpu``, ``mem`` MB, ``gres/gpu``[``:type``])."""
        out = {
            "cpu": self.cpus_per_node * self.nodes,
            "mem": self.mem_per_node_mb * self.nodes,
            "node": self.nodes,
        }
        if self.gpus_per_node:
            out["gres/gpu"] = self.gpus_per_job or self.gpus_per_node * self.nodes
            if self.gpu_type:
                out[f"gres/gpu:{self.gpu_type}"] = out["gres/gpu"]
        return out


#: A job asking for more nodes than its partition has pends for ever (EnforcePartLimits=NO);
#: above this count, more than any cluster has, it is refused at once instead (nothing is
#: built with one entry per node for a count such as -N 99999999999)
MAX_PENDING_NODES = 100_000


# -- the option table ---------------------------------------------------------------------------
# long name -> (field or handler, kind, short). kinds: int, str, flag, optional, and parsers.
_OPTIONS: dict[str, tuple[str, str, str | None]] = {
    "job-name": ("name", "str", "J"),
    "partition": ("partition", "str", "p"),
    "account": ("account", "str", "A"),
    "qos": ("qos", "str", "q"),
    "nodes": ("nodes", "nodes", "N"),
    "ntasks": ("ntasks", "int", "n"),
    "ntasks-per-node": ("ntasks_per_node", "int", None),
    "tasks-per-node": ("ntasks_per_node", "int", None),
    "cpus-per-task": ("cpus_per_task", "int", "c"),
    "cpus-per-gpu": ("cpus_per_gpu", "int", None),
    "ntasks-per-core": ("ntasks_per_core", "int", None),
    "threads-per-core": ("threads_per_core", "int", None),
    "mem": ("mem_mb", "mem", None),
    "mem-per-cpu": ("mem_per_cpu_mb", "mem", None),
    "mem-per-gpu": ("mem_per_gpu_mb", "mem", None),
    "gres": ("gres", "gres", None),
    "gpus": ("gpus", "gpus", "G"),
    "gpus-per-node": ("gpus_per_node", "gpus", None),
    "gpus-per-task": ("gpus_per_task", "gpus", None),
    "time": ("time_limit", "time", "t"),
    "time-min": ("time_min", "time", None),
    "begin": ("begin", "begin", "b"),
    "array": ("array", "array", "a"),
    "dependency": ("dependency", "dependency", "d"),
    "kill-on-invalid-dep": ("kill_on_invalid_dep", "yesno", None),
    "requeue": ("requeue", "true", None),
    "no-requeue": ("requeue", "false", None),
    "exclusive": ("exclusive", "exclusive", None),
    "signal": ("signal", "signal", None),
    "reservation": ("reservation", "str", None),
    "constraint": ("constraint", "str", "C"),
    "nice": ("nice", "nice", None),
    "nodelist": ("nodelist", "hosts", "w"),
    "exclude": ("exclude", "hosts", "x"),
    "hold": ("hold", "true", "H"),
    "wrap": ("wrap", "str", None),
    "uid": ("user", "str", None),
}
# Options sbatch accepts that slurmlab does not simulate: kept verbatim in JobSpec.other.
# long name -> (takes a value, short).
_PASSTHROUGH: dict[str, tuple[bool, str | None]] = {
    "output": (True, "o"),
    "error": (True, "e"),
    "input": (True, "i"),
    "chdir": (True, "D"),
    "mail-type": (True, None),
    "mail-user": (True, None),
    "export": (True, None),
    "export-file": (True, None),
    "open-mode": (True, None),
    "comment": (True, None),
    "gpu-bind": (True, None),
    "mem-bind": (True, None),
    "cpu-freq": (True, None),
    "gpu-freq": (True, None),
    "hint": (True, None),
    "distribution": (True, "m"),
    "cores-per-socket": (True, None),
    "sockets-per-node": (True, None),
    "licenses": (True, "L"),
    "wckey": (True, None),
    "profile": (True, None),
    "propagate": (True, None),
    "gres-flags": (True, None),
    "tmp": (True, None),
    "deadline": (True, None),
    "switches": (True, None),
    "network": (True, None),
    "acctg-freq": (True, None),
    "container": (True, None),
    "clusters": (True, "M"),
    "cluster": (True, None),  # (its own entry: getopt_long takes an exact name, slurm_opt.c)
    "context": (True, None),
    "gid": (True, None),
    "parsable": (False, None),
    "test-only": (False, None),
    "quiet": (False, "Q"),
    "verbose": (False, "v"),
    "wait": (False, "W"),
    "wait-all-nodes": (True, None),
    "no-kill": (False, "k"),
    "overcommit": (False, "O"),
    "oversubscribe": (False, "s"),
    "contiguous": (False, None),
    "spread-job": (False, None),
    "use-min-nodes": (False, None),
    "get-user-env": (False, None),
    "ignore-pbs": (False, None),
    "ntasks-per-gpu": (True, None),  # (accepted only where it changes nothing: see below)
}
# Pass-through options that change scheduling in Slurm: accepted, with a warning saying
# what Slurm would do that the simulation does not. (--use-min-nodes is not here: with it
# -N MIN-MAX is allocated its minimum, as in Slurm.)
_NOT_SIMULATED: dict[str, str] = {
    "licenses": "Slurm holds the job until the licenses are free",
    "overcommit": "Slurm allocates one CPU per node instead of one per task",
    "deadline": "Slurm cancels the job if it cannot end by the deadline",
    "tmp": "Slurm only uses nodes with that much TmpDisk",
    "oversubscribe": "Slurm may share the job's CPUs with other jobs",
    "contiguous": "Slurm only allocates contiguous nodes",
    "spread-job": "Slurm spreads the job over as many nodes as it can",
    "switches": "Slurm waits for an allocation on at most that many leaf switches",
    "no-kill": "Slurm keeps the job running when one of its nodes fails",
    "cores-per-socket": "Slurm only uses nodes with that many cores per socket",
    "sockets-per-node": "Slurm only uses nodes with that many sockets",
    "gres-flags": "Slurm may bind the job's GPUs to the cores next to them",
    "clusters": "Slurm may send the job to another cluster",
}
#: Options sbatch reads as another's (slurm_opt.c gives both the same set function)
_SAME_AS = {"cluster": "clusters"}
# Real sbatch options whose effect slurmlab does not model: refused by name.
_NOT_MODELLED: dict[str, str | None] = {
    "ntasks-per-socket": None,
    "gpus-per-socket": None,
    "ntasks-per-tres": None,
    "mincpus": None,
    "prefer": None,
    "core-spec": "S",
    "thread-spec": None,
    "extra-node-info": "B",
    "cluster-constraint": None,
    "batch": None,
    "bb": None,
    "bbf": None,
    "nodefile": "F",
    "priority": None,
    "mcs-label": None,
    "reboot": None,
    "delay-boot": None,
    "power": None,
    "help": "h",
    "usage": None,
    "version": "V",
}
#: Options sbatch 22.05 does not have: slurm_option_table_create (slurm_opt.c) gives sbatch's
#: getopt table only the options with a set_func or set_func_sbatch, so these, of srun or
#: salloc or of a later Slurm, are unrecognized options to it. long name -> (short, what it is)
_LATER = "it was added in a Slurm release after 22.05, the one slurmlab simulates"
_NOT_SBATCH: dict[str, tuple[str | None, str]] = {
    "cpu-bind": (None, "it is an srun option (put it on the srun line of the batch script)"),
    "immediate": ("I", "it is a salloc and srun option; sbatch queues the job whatever is free"),
    "tres-bind": (None, _LATER),
    "tres-per-task": (None, _LATER),
    "segment": (None, _LATER),
    "cpus-per-gres": (None, "CPUs per GPU are --cpus-per-gpu"),
}
#: The options of the pyxis SPANK plugin (NVIDIA/pyxis args.c ``spank_opts``), which a site
#: adds to sbatch and srun through plugstack.conf: they choose the container (enroot) the
#: job's tasks run in. Stock sbatch 22.05 does not have them.
_PYXIS = frozenset({
    "container-image", "container-mounts", "container-workdir", "container-name",
    "container-save", "container-mount-home", "no-container-mount-home",
    "container-remap-root", "no-container-remap-root", "container-entrypoint",
    "no-container-entrypoint", "container-entrypoint-log", "container-writable",
    "container-readonly", "container-env",
})  # fmt: skip


def _pyxis_refusal(name: str, value: str | None) -> str:
    """The refusal of a pyxis option, which sbatch without the plugin does not know."""
    given = f"--{name}" if value is None else f"--{name}={value}"
    return (
        f"unrecognized option '{given}': it is an option of the pyxis SPANK plugin (enroot "
        "containers), which some sites add to sbatch and srun; stock sbatch (Slurm 22.05) "
        "does not have it. It chooses the container the job's tasks run in and has no effect "
        "on scheduling: remove it (and the job's other pyxis --container-* options) to "
        "simulate the job"
    )


_SHORT = {s: ln for ln, (_, _, s) in _OPTIONS.items() if s}
_SHORT.update({s: ln for ln, (_, s) in _PASSTHROUGH.items() if s})
_SHORT.update({s: ln for ln, s in _NOT_MODELLED.items() if s})
_ALL_LONG = sorted(set(_OPTIONS) | set(_PASSTHROUGH) | set(_NOT_MODELLED))


def _lookup(name: str, value: str | None = None) -> str:
    """Resolve a long option name, allowing unambiguous prefixes as getopt_long does.

    An unknown name is an error that names it (and its value) and suggests the closest
    option: ``unrecognized option --partiton (value 'gpu'); did you mean --partition?``.
    """
    if name in _OPTIONS or name in _PASSTHROUGH or name in _NOT_MODELLED:
        return _SAME_AS.get(name, name)
    matches = [n for n in _ALL_LONG if name and n.startswith(name)]
    if len(matches) == 1:
        return _SAME_AS.get(matches[0], matches[0])
    if len(matches) > 1:
        hint = ""
        if f"{name}s" in matches:  # (--gpu=1, --node=2: the plural is the option meant)
            shown = f"={value}" if value is not None else ""
            hint = f"; did you mean --{name}s{shown}?"
            if name == "gpu":
                hint += f" (GPUs per job; per node: --gres=gpu:{value or 'N'})"
        raise SbatchError(
            f"option --{name} is ambiguous: it could be --{', --'.join(matches)}{hint}"
        )
    if name in _NOT_SBATCH:
        short, what = _NOT_SBATCH[name]
        spelled = f"-{short}/--{name}" if short else f"--{name}"
        raise SbatchError(
            f"unrecognized option '--{name}{'' if value is None else f'={value}'}': sbatch "
            f"(Slurm 22.05) has no {spelled}: {what}; remove it"
        )
    if name in _PYXIS:
        raise SbatchError(_pyxis_refusal(name, value))
    given = f" (value {value!r})" if value is not None else ""
    # a near spelling only (a typo, a letter left out or swapped): --bogus is no --gpus
    close = [
        c
        for c in difflib.get_close_matches(name, _ALL_LONG, n=3, cutoff=0.6)
        if _edits(name, c) <= max(2, len(name) // 4)
    ][:1]
    hint = f"did you mean --{close[0]}?" if close else "see `sbatch --help` for the options"
    raise SbatchError(f"unrecognized option --{name}{given}; {hint}")


def _edits(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: letters inserted, deleted, replaced or swapped."""
    d = [[i + j if not i * j else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(
                d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _not_modelled(long: str) -> SbatchError:
    short = _NOT_MODELLED[long]
    spelled = f"-{short}/--{long}" if short else f"--{long}"
    return SbatchError(f"sbatch accepts {spelled} but slurmlab does not model it; remove it")


def _warn(message: str) -> None:
    """Warn at the line that called slurmlab (see :func:`slurmlab.errors.warn_at_caller`)."""
    warn_at_caller(message)


#: A comment that was meant as a directive: '# SBATCH', '#sbatch'.
_LOOKS_LIKE_DIRECTIVE = re.compile(r"#\s*sbatch", re.IGNORECASE)

#: sbatch's magic words (sbatch/opt.c ``_opt_batch_script``): a line that starts with one,
#: at its very first character, holds options; '#SLURM' is read too, with an error message.
_MAGIC_WORDS = ("#SBATCH", "#SLURM")

#: sbatch's message for a script that does not start with '#!' (sbatch.c ``has_shebang``)
_NO_SHEBANG = (
    "This does not look like a batch script. The first line must start with #! followed by "
    "the path to an interpreter. For instance: #!/bin/sh"
)


def _misspelt_directive(line: str) -> bool:
    """A comment whose first word is a misspelt SBATCH (``#SBTACH -N 2``, ``#SBACH``): one
    or two letters swapped, missing or wrong, followed by an option."""
    word, _, rest = line[1:].strip().partition(" ")
    if not rest.lstrip().startswith("-") or not 4 <= len(word) <= 8:
        return False
    return difflib.SequenceMatcher(None, word.upper(), "SBATCH").ratio() >= 0.65


def _warn_not_directive(lineno: int, line: str) -> None:
    """sbatch reads only lines that start with '#SBATCH': this one sets nothing."""
    _warn(
        f"script line {lineno}: {line!r} is a comment to sbatch, which reads only lines "
        "starting with '#SBATCH' (upper case, no space after '#'); it sets nothing: write it "
        "as '#SBATCH --option'"
    )


def _warn_indented_directive(lineno: int, line: str) -> None:
    """sbatch reads '#SBATCH' only at the start of a line: an indented one is a comment."""
    _warn(
        f"script line {lineno}: {line!r} is indented: sbatch reads #SBATCH only at the start "
        "of a line, so to sbatch this line is a comment and it sets nothing; start the line "
        "with #SBATCH (for a script in an indented Python string, pass textwrap.dedent(script))"
    )


def _warn_slurm_magic(lineno: int, line: str) -> None:
    """'#SLURM' lines: sbatch applies them, with an error message (once per script)."""
    _warn(
        f"script line {lineno}: {line!r}: sbatch applies #SLURM lines as #SBATCH lines and "
        'says "Change from #SLURM to #SBATCH in your script and verify the options are valid '
        'in sbatch"; slurmlab applies them too: write #SBATCH'
    )


def _warn_pbs(pbs: list[tuple[int, str]]) -> None:
    """'#PBS' lines: sbatch translates them into options (unless --ignore-pbs); slurmlab
    does not."""
    lines = ", ".join(str(n) for n, _ in pbs)
    _warn(
        f"script line{'s' * (len(pbs) > 1)} {lines} ({pbs[0][1]!r}"
        f"{', ...' if len(pbs) > 1 else ''}): sbatch translates #PBS lines into its options "
        "(unless --ignore-pbs), slurmlab does not: here they set nothing; write them as "
        "#SBATCH options"
    )


def _check_shebang(script_text: str) -> None:
    """sbatch's ``has_shebang``: '#!' at the start of the file. Blank lines before it are
    forgiven (a notebook cell or a Python string often starts with one); an indented
    '#!' and a byte-order mark are named in the error."""
    lines = script_text.splitlines()
    lineno, first = next(((n, ln) for n, ln in enumerate(lines, 1) if ln.strip()), (1, ""))
    if first.startswith("#!"):
        return
    if first.startswith("\ufeff"):
        raise SbatchError(
            f"script line {lineno}: the script starts with a UTF-8 byte order mark (BOM, "
            f"U+FEFF, invisible in most editors) before its first character: {_NO_SHEBANG}; "
            "save the file without the BOM (in Python: read it with encoding='utf-8-sig'; "
            "in a shell: sed -i '1s/^\\xEF\\xBB\\xBF//' script)"
        )
    if first.lstrip().startswith("#!"):
        raise SbatchError(
            f"script line {lineno}: {first!r} is indented: {_NO_SHEBANG} (sbatch needs #! at "
            "the very first character of the script); remove the indentation (for a script "
            "in an indented Python string, pass textwrap.dedent(script))"
        )
    text = script_text.strip()
    if len(lines) == 1 and " " not in text and ("/" in text or "." in text):
        raise SbatchError(  # (a file's name given as the script's text)
            f"{_NO_SHEBANG}. The script given is {text!r}, which looks like a file's name: "
            f"give the file (JobSpec.from_sbatch(Path({text!r}))) or its text "
            f"(Path({text!r}).read_text())"
        )
    raise SbatchError(_NO_SHEBANG)


def _refuses(cls: type[JobSpec], directives: list[str]) -> bool:
    """Whether sbatch refuses these directives (read as :meth:`JobSpec._parsed` reads them)."""
    try:
        cls._parsed(directives)
    except SbatchError:
        return True
    return False


#: sbatch's heterogeneous-job component separator: an #SBATCH line whose first word is
#: hetjob (or packjob, its old name), in any case (sbatch/opt.c ``_opt_batch_script``)
_HETJOB = re.compile(r"\s*(?:hetjob|packjob)(?:\s|$)", re.IGNORECASE)


def _hetjob_refusal(where: str) -> str:
    """The refusal of a heterogeneous job: sbatch reads the options after an ``#SBATCH
    hetjob`` line (or a ``:`` on its command line) as another component of one job
    (sbatch/opt.c ``_opt_batch_script``, sbatch.c ``main``), which slurmlab does not
    simulate."""
    return (
        f"{where} separates the components of a heterogeneous job (sbatch reads the options "
        "after it as another component of the same job, with resources of its own); slurmlab "
        "does not simulate heterogeneous jobs: submit each component as a job of its own "
        "(the later ones with --dependency=after:<first job's id> to start them once the "
        "first has started), or keep one component's options"
    )


def _warn_late_directives(script: list[str], first: int, command: str) -> None:
    """#SBATCH lines after the first command are ignored by sbatch: name them."""
    late = [
        n for n, line in enumerate(script[first:], start=first + 1) if line.startswith("#SBATCH")
    ]
    if late:
        _warn(
            f"script line{'s' * (len(late) > 1)} {', '.join(map(str, late))}: #SBATCH after the "
            f"first command (line {first}: {command!r}) {'are' if len(late) > 1 else 'is'} "
            "ignored, as sbatch does; move every #SBATCH line above the first command"
        )


def _warn_not_simulated(long: str, value: str | None) -> None:
    given = f"--{long}" if value is None else f"--{long}={value}"
    _warn(
        f"{given} is accepted but not simulated: {_NOT_SIMULATED[long]}; slurmlab schedules "
        "the job as if it were absent"
    )


#: JobSpec's counts of at least 1 besides the nodes, in the order to_args writes them
_TASK_COUNTS = (
    "ntasks", "ntasks_per_node", "cpus_per_task", "cpus_per_gpu", "ntasks_per_core",
    "threads_per_core",
)  # fmt: skip


#: JobSpec's counts that may be 0 (GPUs, memory)
_ZERO_COUNTS = (
    "gpus_per_node", "gpus", "gpus_per_task", "mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb",
)  # fmt: skip
#: JobSpec's text fields, each with an example value
_TEXT_FIELDS = {
    "name": "train", "partition": "gpu", "account": "llm", "qos": "normal", "user": "alice",
    "gpu_type": "h100", "reservation": "maint", "constraint": "a100&nvlink",
    "wrap": "srun python train.py", "script": "#!/bin/bash\nsrun python train.py",
}  # fmt: skip
#: JobSpec's yes/no fields, with the option True stands for
_COUNT_FIELDS = ("nodes", "max_nodes", *_TASK_COUNTS, *_ZERO_COUNTS, "nice")
_FLAG_FIELDS = {
    "requeue": "--requeue",
    "exclusive": "--exclusive",
    "hold": "--hold",
    "time_requested": "a time limit was asked for",
    "dependency_any": "'?' between the dependencies: any of them",
    "kill_on_invalid_dep": "--kill-on-invalid-dep=yes",
}
#: the yes/no fields that may be None, and what None stands for
_UNSET_FLAGS = {
    "requeue": ", False (--no-requeue) or None (the cluster's JobRequeue)",
    "kill_on_invalid_dep": (
        ", False (--kill-on-invalid-dep=no) or None (the cluster's DependencyParameters)"
    ),
}


def _begin_value(value) -> timedelta | datetime | TimeOfDay | None:
    """``begin`` given in Python: a ``timedelta`` after submission (``now+N``), a date and
    time (``datetime``, pandas' Timestamp), a :class:`TimeOfDay`; a number (numpy's too) is
    seconds after submission, as ``--begin=now+3600``; text is read as ``--begin`` reads it
    (``now+1hour``, ``noon``, ``2026-01-05T10:00``), or a delay with a unit (``2h``)."""
    if value is None or isinstance(value, timedelta | TimeOfDay):
        return value
    if isinstance(value, datetime):
        if value != value or value.tzinfo is not None:  # (NaT is not equal to itself)
            raise SbatchError(
                f"JobSpec begin={value!r}: give the cluster's local date and time, without a "
                "time zone (e.g. datetime(2026, 1, 5, 10, 0)), as sbatch --begin takes it"
            )
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, np.timedelta64) or (
        isinstance(value, Real) and not isinstance(value, bool)
    ):
        try:
            return timedelta(seconds=parse_seconds(value, what="JobSpec begin"))
        except SlurmlabError as exc:
            raise SbatchError(f"{exc} (a number is seconds after submission)") from None
    if not isinstance(value, str):
        raise SbatchError(
            f"JobSpec begin={value!r} is not a begin time; give seconds after submission "
            "(3600), a timedelta, a datetime, or text as sbatch --begin takes it "
            "('now+1hour', '2026-01-05T10:00')"
        )
    try:
        return _parse_begin(value)
    except SbatchError as exc:
        if re.fullmatch(r"\s*[0-9]+(\.[0-9]+)?\s*[smhdSMHD]\s*", value):  # 2h: now+2h
            return timedelta(seconds=parse_seconds(value, what="JobSpec begin"))
        raise SbatchError(
            f"{exc} (in Python, begin=3600 or timedelta(hours=1) is an hour after submission)"
        ) from None


def _hostlist_value(value, field_name: str) -> tuple[str, ...]:
    """``nodelist`` / ``exclude`` given in Python: names or hostlists (``"gpu[01-02]"``,
    ``"gpu01,gpu02"``), one or a list of them, as ``--nodelist`` reads them."""
    items = [value] if isinstance(value, str) else value
    flag = _flag(field_name)
    if not isinstance(items, list | tuple | set | frozenset) or not all(
        isinstance(n, str) for n in items
    ):
        raise SbatchError(
            f"JobSpec {field_name}={value!r} is not node names; give a hostlist as "
            f"--{flag} takes it ({field_name}='gpu[001-002]') or a list of names"
        )
    try:
        return tuple(n for item in items for n in expand_hostlist(item))
    except SlurmlabError as exc:
        raise SbatchError(f"--{flag}: {exc}") from None


def _other_gres_value(value) -> tuple[Gres, ...]:
    """``other_gres`` given in Python: Gres objects, or text as ``--gres`` takes it
    (``"nvme:1"``), one or a list of them; GPUs belong in ``gpus_per_node``."""
    items = [value] if isinstance(value, str | Gres) else value
    if not isinstance(items, list | tuple):
        items = [object()]  # (refused below)
    out: list[Gres] = []
    for item in items:
        if isinstance(item, Gres):
            out.append(item)
            continue
        if not isinstance(item, str):
            raise SbatchError(
                f"JobSpec other_gres={value!r} is not GRES; give text as --gres takes it "
                "(other_gres='nvme:1') or Gres objects"
            )
        parsed = _parse_value("gres", "gres", item, {})
        if parsed["gpus_per_node"] is not None:
            raise SbatchError(
                f"JobSpec other_gres={value!r} asks for GPUs: other_gres holds the GRES other "
                "than GPUs; give GPUs as gpus_per_node=N (with gpu_type), or use "
                f"JobSpec.from_args('--gres={item}')"
            )
        out.extend(parsed["other_gres"])
    counts: dict[tuple[str, str | None], int] = {}
    for gres in out:  # (a name and type given twice: the last count, as --gres reads it)
        _last_count(counts, (gres.name, gres.type), gres.count, f"other_gres={value!r}")
    if len(counts) == len(out):
        return tuple(out)
    return tuple(Gres(name, typ, n) for (name, typ), n in counts.items())


def _dependency_value(value) -> tuple[tuple[Dependency, ...], bool]:
    """``dependency`` given in Python: Dependency objects, or text as ``--dependency``
    takes it (``"afterok:1:2"``, ``"afterok:1?afterany:2"``), one or a list of them; and
    whether the text joins them with ``?`` (any)."""
    items = [value] if isinstance(value, str | Dependency) else value
    if not isinstance(items, list | tuple):
        items = [object()]  # (refused below)
    deps: list[Dependency] = []
    any_ = False
    for item in items:
        if isinstance(item, Dependency):
            deps.append(item)
        elif isinstance(item, str):
            parsed = _parse_dependency(item)
            deps.extend(parsed["dependency"])
            any_ = any_ or parsed["dependency_any"]
        else:
            raise SbatchError(
                f"JobSpec dependency={value!r} is not a dependency; give text as --dependency "
                "takes it (dependency='afterok:12') or Dependency objects"
            )
    return tuple(deps), any_


def _parsed_value(value, cls, field_name: str, example: str):
    """``array`` / ``signal`` given in Python: the object, or text as its option takes it."""
    if value is None or isinstance(value, cls):
        return value
    if isinstance(value, Integral) and not isinstance(value, bool) and cls is ArraySpec:
        value = str(int(value))
    if isinstance(value, str):
        return cls.parse(value)
    raise SbatchError(
        f"JobSpec {field_name}={value!r} is not --{field_name}; give text as sbatch takes it "
        f"({field_name}={example!r}) or a {cls.__name__}"
    )


def _other_value(value) -> tuple[tuple[str, str | None], ...]:
    """``other`` (the options kept verbatim) given in Python: (option, value) pairs."""
    if isinstance(value, list | tuple) and all(
        isinstance(p, list | tuple)
        and len(p) == 2
        and isinstance(p[0], str)
        and (p[1] is None or isinstance(p[1], str))
        for p in value
    ):
        return tuple(tuple(p) for p in value)
    raise SbatchError(
        f"JobSpec other={value!r} is not (option, value) pairs; give e.g. "
        "other=(('output', 'train.out'),), or build the request with "
        "JobSpec.from_args('--output=train.out')"
    )


@dataclass(frozen=True, slots=True)
class JobSpec:
    """A batch job request, as the options of ``sbatch`` describe it.

    Fields left None were not given (Slurm's defaults then apply when the request
    is resolved against a cluster). Build with :meth:`from_sbatch`, :meth:`from_args`
    or directly; derive variants with ``dataclasses.replace``.

    ``-t`` is read as sbatch reads it, rounded up to whole minutes; a ``time_limit`` given
    in Python is kept to the second (a trace's limit): a ``timedelta``, or text in Slurm's
    forms (``"1:00:00"``; a bare number is minutes, as ``-t``, and a Python number is warned
    about). ``begin`` is a ``timedelta`` or a number of seconds after submission (as
    ``--begin=now+3600``), a ``datetime``, or text as ``--begin`` reads it. Fields that hold
    an option's value take its text as sbatch does: ``nodelist="gpu[01-02]"``,
    ``other_gres="nvme:1"``, ``dependency="afterok:12"``, ``array="0-15%4"``. ``gpus_per_node`` is asked with
    ``--gres=gpu:N`` or ``--gpus-per-node=N``; ``gpus_per_node_option`` remembers which, for
    error messages (it is not part of the request's value).
    """

    name: str | None = None
    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    user: str | None = None
    nodes: int | None = None
    max_nodes: int | None = None
    ntasks: int | None = None
    ntasks_per_node: int | None = None
    cpus_per_task: int | None = None
    cpus_per_gpu: int | None = None
    ntasks_per_core: int | None = None
    threads_per_core: int | None = None
    mem_mb: int | None = None
    mem_per_cpu_mb: int | None = None
    mem_per_gpu_mb: int | None = None
    gpus_per_node: int | None = None
    gpus: int | None = None
    gpus_per_task: int | None = None
    gpu_type: str | None = None
    other_gres: tuple[Gres, ...] = ()
    time_limit: timedelta | None = None
    time_requested: bool = False
    #: ``--time-min``: the ``slurm`` policy's backfill may start the job with its limit
    #: lowered to this (None: no such option; :data:`TIME_MIN_INFINITE` for 0, -1 or
    #: UNLIMITED, which slurmctld refuses unless the job's limit is unlimited too)
    time_min: timedelta | None = None
    begin: timedelta | datetime | TimeOfDay | None = None
    array: ArraySpec | None = None
    dependency: tuple[Dependency, ...] = ()
    dependency_any: bool = False
    #: ``--kill-on-invalid-dep=yes|no``: cancel the job (True) or leave it pending (False)
    #: when its dependency can never be satisfied; None: as the cluster's
    #: DependencyParameters says (``kill_invalid_depend``)
    kill_on_invalid_dep: bool | None = None
    requeue: bool | None = None
    exclusive: bool = False
    signal: SignalSpec | None = None
    reservation: str | None = None
    constraint: str | None = None
    nice: int = 0
    nodelist: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hold: bool = False
    wrap: str | None = None
    script: str | None = None
    other: tuple[tuple[str, str | None], ...] = field(default=())
    gpus_per_node_option: Literal["gres", "gpus-per-node"] = field(
        default="gres", compare=False, repr=False
    )

    def __post_init__(self):
        self._read_python_values()
        for f in ("account", "qos"):
            # slurmctld lower-cases the account (job_mgr.c, xstrtolower) and finds the QOS in
            # any case (assoc_mgr.c, xstrcasecmp): -A LLM is llm, -q HIGH is QOS high
            v = getattr(self, f)
            if isinstance(v, str) and v != v.lower():
                object.__setattr__(self, f, v.lower())
        for f in ("nodes", *_TASK_COUNTS):
            v = getattr(self, f)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise SbatchError(f"--{_flag(f)}={v!r}: must be a whole number of at least 1")
        for f in _ZERO_COUNTS:
            v = getattr(self, f)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise SbatchError(f"--{_flag(f)}={v!r}: must be a whole number >= 0")
        if self.max_nodes is not None and (
            not isinstance(self.max_nodes, int) or isinstance(self.max_nodes, bool)
        ):
            raise SbatchError(
                f"max_nodes={self.max_nodes!r}: must be a whole number (--nodes=MIN-MAX)"
            )
        if self.max_nodes is not None and self.nodes is None:
            raise SbatchError(
                f"max_nodes={self.max_nodes} needs a minimum: write --nodes=MIN-{self.max_nodes}"
            )
        if self.max_nodes is not None and self.nodes is not None and self.max_nodes < self.nodes:
            raise SbatchError(f"--nodes={self.nodes}-{self.max_nodes}: maximum below minimum")
        if self.gpu_type is not None and all(
            getattr(self, f) is None for f in ("gpus_per_node", "gpus", "gpus_per_task")
        ):
            raise SbatchError(
                f"GPU type {self.gpu_type!r} without a GPU count: write e.g. "
                f"--gres=gpu:{self.gpu_type}:1 or --gpus={self.gpu_type}:1"
            )
        mems = [
            f
            for f in ("mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb")
            if getattr(self, f) is not None
        ]
        if len(mems) > 1:
            raise SbatchError("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive")
        self._check_gpu_counts()
        if self.cpus_per_task is not None and self.cpus_per_gpu is not None:
            raise SbatchError(
                f"--cpus-per-gpu={self.cpus_per_gpu} is mutually exclusive with "
                f"--cpus-per-task={self.cpus_per_task}; keep one"
            )
        if self.exclusive and any(k == "oversubscribe" for k, _ in self.other):
            raise SbatchError(
                "--exclusive and --oversubscribe options are mutually exclusive; keep one"
            )
        if self.constraint is not None:
            _parse_constraint(self.constraint)  # raises SbatchError naming what is wrong
        self._check_plane()
        if self.time_limit is not None and self.time_limit <= timedelta(0):
            raise SbatchError(f"--time={format_duration(self.time_limit)}: must be positive")
        if self.time_min is not None and self.time_min <= timedelta(0):
            raise SbatchError(f"--time-min={format_duration(self.time_min)}: must be positive")
        if not isinstance(self.nice, int) or isinstance(self.nice, bool):
            raise SbatchError(f"--nice={self.nice!r}: must be a whole number adjustment")
        if not -2147483645 <= self.nice <= 2147483645:
            raise SbatchError(f"--nice={self.nice}: out of range")
        if self.time_limit is not None:
            object.__setattr__(self, "time_requested", True)
        if len(self.dependency) < 2:
            # '?' (any) versus ',' (all) only means something between two or more conditions
            object.__setattr__(self, "dependency_any", False)
        # --nodelist / --exclude name a set of nodes: keep them in Slurm's hostlist order
        for f in ("nodelist", "exclude"):
            names = getattr(self, f)
            if names:
                object.__setattr__(self, f, tuple(expand_hostlist(compress_hostlist(names))))

    def _read_python_values(self) -> None:
        """The fields as sbatch would read them when given in Python: counts as numpy's ints
        too, a time limit or begin time as a number or text, a hostlist, GRES, dependency,
        array or signal as its option's text (``nodelist="gpu[01-02]"``, never a string's
        letters); a value of the wrong kind is an error naming the field and the fix."""
        # (every job of a trace is a JobSpec: values already of their kind, as from_args
        # and the readers give them, take the quick paths below)
        set_ = object.__setattr__
        for f in _TEXT_FIELDS:
            v = getattr(self, f)
            if v is not None and type(v) is not str and not isinstance(v, str):
                raise SbatchError(
                    f"JobSpec {f}={v!r} is not text; give e.g. {f}={_TEXT_FIELDS[f]!r} (as "
                    f"sbatch's --{_flag(f)})"
                )
        for f in _COUNT_FIELDS:
            v = getattr(self, f)
            kind = type(v)  # (numpy's ints are read as ints; bools are refused later)
            if kind is not int and kind is not bool and v is not None and isinstance(v, Integral):
                set_(self, f, int(v))
        for f, meaning in _FLAG_FIELDS.items():
            v = getattr(self, f)
            if type(v) is bool or (v is None and f in _UNSET_FLAGS):
                continue
            if isinstance(v, np.bool_):  # (a column's value)
                set_(self, f, bool(v))
                continue
            raise SbatchError(
                f"JobSpec {f} {v!r} is not True or False; give {f}=True ({meaning})"
                + _UNSET_FLAGS.get(f, " or False")
            )
        for f in ("time_limit", "time_min"):
            value = getattr(self, f)
            if value is not None and type(value) is not timedelta:
                try:
                    set_(self, f, parse_time_limit(value, what=f))
                except SbatchError:
                    raise
                except SlurmlabError as exc:
                    raise SbatchError(f"JobSpec: {exc}") from None
        if self.begin is not None:
            set_(self, "begin", _begin_value(self.begin))
        for f in ("nodelist", "exclude"):
            if getattr(self, f) != ():
                set_(self, f, _hostlist_value(getattr(self, f), f))
        if self.other_gres != ():
            set_(self, "other_gres", _other_gres_value(self.other_gres))
        if self.dependency != ():
            deps, any_ = _dependency_value(self.dependency)
            set_(self, "dependency", deps)
            if any_:
                set_(self, "dependency_any", True)
        if self.array is not None:
            set_(self, "array", _parsed_value(self.array, ArraySpec, "array", "0-15%4"))
        if self.signal is not None:
            set_(self, "signal", _parsed_value(self.signal, SignalSpec, "signal", "B:USR1@120"))
        if self.other != ():
            set_(self, "other", _other_value(self.other))

    def _check_plane(self) -> None:
        """sbatch's check of ``-m plane=N`` against the tasks (opt.c ``_opt_verify``): with
        fewer than N tasks per node on average and too few to reach the last node in blocks
        of N, it refuses the job ("a simple check", as its comment says: not every case)."""
        given = [v for k, v in self.other if k == "distribution"]
        size = Distribution.parse(given[-1]).plane_size if given else 0
        if not size:
            return
        nodes = self.nodes or 1  # (sbatch's defaults: one node, one task)
        tasks = self.ntasks or (self.ntasks_per_node or 0) * nodes or 1
        if tasks // size < nodes and (nodes - 1) * size >= tasks:
            raise SbatchError(
                f"--distribution={given[-1]}: Too few processes for the requested "
                f"{{plane,node}} distribution ({tasks} task(s) in blocks of {size} cannot "
                f"reach {nodes} nodes); give more tasks (-n), a smaller plane size, or fewer "
                "nodes"
            )

    def _check_gpu_counts(self) -> None:
        """Slurm's ``_test_gres_cnt`` (gres.c): GPUs per job, per node and per task may be
        combined when they agree (tasks = per job / per task, tasks per node = per node /
        per task, nodes = per job / per node); any other combination is refused."""
        per_job, per_node = self.gpus or 0, self.gpus_per_node or 0
        per_task = self.gpus_per_task or 0
        t = f"{self.gpu_type}:" if self.gpu_type else ""
        job_f, node_f = f"--gpus={t}{per_job}", _gpn_flag(self)
        task_f = f"--gpus-per-task={t}{per_task}"
        bad = ": Invalid generic resource (gres) specification"
        if per_job and per_node:
            # (what agrees with the node count asked, else the nearest whole number of nodes)
            want = f"--gpus={t}{per_node * (self.nodes or max(1, round(per_job / per_node)))}"
            if per_node > per_job:  # gres.c: "Failed to ensure --gpus >= --gpus-per-node"
                raise SbatchError(
                    f"{job_f} is fewer GPUs than {node_f} asks for on one node (Slurm: "
                    f"Failed to ensure --gpus >= --gres=gpu/--gpus-per-node){bad}; ask "
                    f"{want}, or leave --gpus out"
                )
            if per_job % per_node:
                raise SbatchError(
                    f"{job_f} is not a whole number of nodes of {node_f} (the job gets the "
                    f"same GPUs on every node){bad}; ask e.g. {want}, or leave --gpus out"
                )
            nodes = per_job // per_node
            if self.nodes is not None and not (
                self.nodes <= nodes <= (self.max_nodes or self.nodes)
            ):
                asked = f"{self.nodes}" + (f"-{self.max_nodes}" if self.max_nodes else "")
                raise SbatchError(
                    f"{job_f} with {node_f} makes {nodes} node{'s' * (nodes != 1)}, but "
                    f"--nodes={asked}{bad}; ask {want}, or leave --gpus out"
                )
        for flag, count, what, given, given_flag in (
            (job_f, per_job, "tasks", self.ntasks, "--ntasks"),
            (node_f, per_node, "tasks per node", self.ntasks_per_node, "--ntasks-per-node"),
        ):
            if not (count and per_task):
                continue
            if count % per_task:
                raise SbatchError(f"{flag} is not a whole number of tasks of {task_f}{bad}")
            if given is not None and given != count // per_task:
                raise SbatchError(
                    f"{flag} with {task_f} makes {count // per_task} {what}, but "
                    f"{given_flag}={given}{bad}; drop {given_flag} or make them agree"
                )
        if per_task and self.ntasks is None and self.ntasks_per_node is None and not per_job:
            raise SbatchError(
                f"{task_f} needs a task count: add -n/--ntasks, --ntasks-per-node or --gpus"
            )

    # -- parsing ---------------------------------------------------------------------------
    @classmethod
    def from_args(cls, args: str | Sequence[str], *, base: JobSpec | None = None) -> JobSpec:
        """Build a request from sbatch/srun options (a list, or one shell-quoted string).

        Options are read as sbatch's getopt_long reads them: ``-N 2`` or ``-N2`` (``-N=2``
        gives ``-N`` the value ``=2``), ``--nodes=2`` or ``--nodes 2``, ``-Hv`` for ``-H -v``.

        A list's words are taken as sbatch receives them, as text (``["-N", 2]`` is
        ``-N 2``). ``base`` is a request whose options these override.

        Once all are read, the node counts are checked and set as sbatch's ``_opt_verify``
        sets them (:func:`_sbatch_nodelist`: ``-w`` raises the minimum node count to its
        hosts; ``-n`` below it drops hosts, with sbatch's warning).

        >>> JobSpec.from_args("-N 4 --gres=gpu:8 -t 2:00:00").tres()["gres/gpu"]
        32
        """
        return _as_submitted(cls._parsed(args, base))

    @classmethod
    def _parsed(cls, args: str | Sequence[str], base: JobSpec | None = None) -> JobSpec:
        """:meth:`from_args` before sbatch's final checks of the node counts (a script's
        directives are read so, before the command line's options override them)."""
        args = _words(args, "JobSpec.from_args")
        if base is not None and not isinstance(base, JobSpec):
            raise SbatchError(
                f"JobSpec.from_args: base={base!r} is not a JobSpec; give the request these "
                "options override, e.g. base=JobSpec.from_args('-t 30'), or put all the "
                "options in one list"
            )
        values: dict = {} if base is None else {f.name: getattr(base, f.name) for f in fields(cls)}
        other = list(values.get("other", ()))
        for long, val, short in _options(list(args)):
            if long in _NOT_MODELLED:
                raise _not_modelled(long)
            if long == "script-file" and val.split(" ", 1)[0] == ":":  # (sbatch.c main)
                raise SbatchError(_hetjob_refusal(f"':' in {' '.join(args)!r}"))
            if short is not None and val.startswith("="):
                _set_short_with_equals(short, long, val, values, other)
            else:
                _set_option(long, val, values, other)
        values["other"] = tuple(other)
        if values.get("wrap") is not None and any(k == "script-file" for k, _ in other):
            raise SbatchError(
                "Script arguments not permitted with --wrap option (--wrap makes the batch "
                "script from its command: drop the script name, or --wrap)"
            )
        if base is not None:
            # as sbatch does: a memory option on the command line replaces the script's one
            mem = ("mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb")
            given = [f for f in mem if values[f] is not None and values[f] != getattr(base, f)]
            if given:
                for f in mem:
                    if f not in given:
                        values[f] = None
        spec = cls(**values)
        ignored = spec.option("hint") is not None and not spec._hint_applies()
        if ignored and (base is None or base._hint_applies() or base.option("hint") is None):
            _warn(
                f"--hint={spec.option('hint')} is ignored: sbatch ignores --hint beside "
                "--ntasks-per-core or --threads-per-core (Following options are mutually "
                "exclusive with --hint); give one or the other"
            )
        return spec

    @classmethod
    def from_sbatch(cls, script_text: str, args: str | Sequence[str] | None = None) -> JobSpec:
        """Build a request from a batch script's ``#SBATCH`` lines (and command-line ``args``).

        Lines are read as sbatch's ``_opt_batch_script`` reads them: a line starting with
        ``#SBATCH`` (at its first character; ``#SBATCH--time=10`` too) holds options, and so
        does one starting with ``#SLURM`` (with sbatch's warning); an indented ``#SBATCH``,
        ``# SBATCH`` and ``#sbatch`` are comments to sbatch (named in a warning, as are
        ``#PBS`` lines, which sbatch translates and slurmlab does not). Directives after the
        first command line are ignored, as sbatch ignores them (with a warning naming them);
        ``args`` override the script's directives. Like sbatch, a script must start with
        ``#!`` at its first character (blank lines before it are forgiven: a notebook cell
        often starts with one; an indented script is refused: dedent it) and must not have
        DOS line breaks (``\\r\\n``).

        ``script_text`` is the script's text; a ``pathlib.Path`` is read, and names the job
        after the file as ``sbatch train.sh`` does. An empty (or blank) script with
        ``--wrap`` in ``args`` is no script at all: sbatch reads none with ``--wrap``.
        """
        script_file = None
        if isinstance(script_text, os.PathLike):
            script_file = Path(script_text)
            try:
                script_text = script_file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
                raise SbatchError(
                    f"JobSpec.from_sbatch: cannot read the batch script {str(script_file)!r} "
                    f"({why}); check the path, or give the script's text"
                ) from None
        if not isinstance(script_text, str):
            raise SbatchError(
                f"JobSpec.from_sbatch: got {type(script_text).__name__} {script_text!r}; give "
                "a batch script's text ('#!/bin/bash\\n#SBATCH -t 30\\n...') or a "
                "pathlib.Path of its file"
            )
        if not script_text.strip():
            # sbatch reads no script with --wrap (sbatch.c: it makes one of the command)
            spec = cls.from_args(args) if args is not None else None
            if spec is not None and spec.wrap is not None and script_file is None:
                return spec
            if spec is not None and spec.wrap is not None:  # (a file named: sbatch's error)
                raise SbatchError(
                    "Script arguments not permitted with --wrap option (--wrap makes the "
                    "batch script from its command: give the script or --wrap, not both)"
                )
            raise SbatchError(
                ("Batch script is empty!" if not script_text else "Batch script contains only "
                 "whitespace!") + " Give the script (#!/bin/bash, then #SBATCH lines and "
                "commands), or the command alone with --wrap=COMMAND (sbatch then reads no "
                "script)"
            )  # fmt: skip
        if "\r\n" in script_text:
            raise SbatchError(
                "Batch script contains DOS line breaks (\\r\\n) instead of expected UNIX line "
                "breaks (\\n); convert it with dos2unix"
            )
        _check_shebang(script_text)
        directives: list[str] = []
        lines: list[tuple[int, int]] = []  # (script line, how many directive words by then)
        glued: set[int] = set()  # lines with no space after the magic word ('#SBATCHX')
        pbs: list[tuple[int, str]] = []
        slurm_magic_warned = False
        script = script_text.splitlines()
        for lineno, line in enumerate(script, start=1):
            magic = next((w for w in _MAGIC_WORDS if line.startswith(w)), None)
            if magic is not None:  # (a prefix test at column 0, as sbatch's xstrncmp)
                body = line[len(magic) :]
                if magic == "#SLURM" and not slurm_magic_warned:
                    _warn_slurm_magic(lineno, line)
                    slurm_magic_warned = True
                if body[:1] and not body[0].isspace():
                    glued.add(lineno)
                if _HETJOB.match(body):
                    raise SbatchError(_hetjob_refusal(f"script line {lineno}: {line!r}"))
                try:
                    # an unquoted '#' starts a trailing comment, as in sbatch
                    directives.extend(shlex.split(body, comments=True))
                except ValueError as exc:
                    raise SbatchError(
                        f"script line {lineno}: cannot read {line.strip()!r}: {exc}"
                    ) from None
                lines.append((lineno, len(directives)))
                continue
            s = line.strip()
            if not s:
                continue
            if s.startswith("#"):
                if s.startswith(_MAGIC_WORDS):  # '  #SBATCH': a comment to sbatch
                    _warn_indented_directive(lineno, line)
                elif _LOOKS_LIKE_DIRECTIVE.match(s) or _misspelt_directive(s):
                    _warn_not_directive(lineno, s)  # '# SBATCH', '#sbatch', '#SBTACH'
                elif line.startswith("#PBS"):
                    pbs.append((lineno, line))
                continue
            _warn_late_directives(script, lineno, s)
            break  # first command: later #SBATCH lines are ignored
        try:
            spec = cls._parsed(directives)
        except SbatchError as exc:
            # the first line whose directives, with those above it, are refused (read again
            # quietly: the read above has given each warning once)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                refused = next((n for n, upto in lines if _refuses(cls, directives[:upto])), None)
            where = "" if refused is None else f"script line {refused}: "
            raise SbatchError(f"{where}#SBATCH directive: {exc}") from None
        if any(k == "script-file" for k, _ in spec.other):
            _refuse_stray_word(directives, lines, glued)
        spec = replace(spec, script=script_text)
        if script_file is not None and not any(k == "script-file" for k, _ in spec.other):
            spec = replace(spec, other=(*spec.other, ("script-file", str(script_file))))
        if args is not None:
            args = _words(args, "JobSpec.from_sbatch: args")
        if args:
            script_wrap, spec = spec.wrap, cls._parsed(args, base=spec)
            if spec.wrap != script_wrap:  # --wrap on the command line, with a script
                raise SbatchError(
                    "Script arguments not permitted with --wrap option (--wrap makes the batch "
                    "script from its command: give the script or --wrap, not both)"
                )
        if pbs and not any(k == "ignore-pbs" for k, _ in spec.other):
            _warn_pbs(pbs)
        return _as_submitted(spec)

    # -- rendering -------------------------------------------------------------------------
    def to_args(self) -> list[str]:
        """The request as canonical sbatch options.

        ``from_args(to_args())`` round-trips, except a time limit built in Python with
        seconds in it: sbatch reads ``-t`` in whole minutes, rounded up.
        """
        out: list[str] = []

        def add(flag, value):
            out.append(f"--{flag}={value}")

        if self.name is not None:
            add("job-name", self.name)
        for f in ("partition", "account", "qos", "reservation", "constraint"):
            if getattr(self, f) is not None:
                add(_flag(f), getattr(self, f))
        if self.user is not None:
            add("uid", self.user)
        if self.nodes is not None:
            add("nodes", str(self.nodes) + (f"-{self.max_nodes}" if self.max_nodes else ""))
        for f in _TASK_COUNTS:
            if getattr(self, f) is not None:
                add(_flag(f), getattr(self, f))
        for f in ("mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb"):
            if getattr(self, f) is not None:
                add(_flag(f), f"{getattr(self, f)}M")
        t = f"{self.gpu_type}:" if self.gpu_type else ""
        gres = [str(g) for g in self.other_gres]
        if self.gpus_per_node is not None and self.gpus_per_node_option == "gpus-per-node":
            add("gpus-per-node", f"{t}{self.gpus_per_node}")  # (as written: SLURM_GPUS_PER_NODE)
        elif self.gpus_per_node is not None:
            gres.insert(0, f"gpu:{t}{self.gpus_per_node}")
        if gres:
            add("gres", ",".join(gres))
        if self.gpus is not None:
            add("gpus", f"{t}{self.gpus}")
        if self.gpus_per_task is not None:
            add("gpus-per-task", f"{t}{self.gpus_per_task}")
        if self.time_requested:
            add("time", format_duration(self.time_limit))
        if self.time_min is not None:
            add("time-min", _time_min_text(self.time_min))
        if self.begin is not None:
            add("begin", _format_begin(self.begin))
        if self.array is not None:
            add("array", str(self.array))
        if self.dependency:
            add("dependency", ("?" if self.dependency_any else ",").join(map(str, self.dependency)))
        if self.kill_on_invalid_dep is not None:
            add("kill-on-invalid-dep", "yes" if self.kill_on_invalid_dep else "no")
        if self.requeue is not None:
            out.append("--requeue" if self.requeue else "--no-requeue")
        if self.exclusive:
            out.append("--exclusive")
        if self.signal is not None:
            add("signal", str(self.signal))
        if self.nice:
            add("nice", self.nice)
        if self.nodelist:
            add("nodelist", compress_hostlist(self.nodelist))
        if self.exclude:
            add("exclude", compress_hostlist(self.exclude))
        if self.hold:
            out.append("--hold")
        if self.wrap is not None:
            add("wrap", self.wrap)
        for k, v in self.other:
            if k != "script-file":
                out.append(f"--{k}" if v is None else f"--{k}={v}")
        return out

    def to_sbatch(self, command: str = "srun python train.py") -> str:
        """A batch script whose ``#SBATCH`` lines give this request."""
        lines = ["#!/bin/bash"] + [f"#SBATCH {shlex.quote(a)}" for a in self.to_args()]
        return "\n".join(lines + [command, ""])

    def __repr__(self) -> str:
        return f"JobSpec({shlex.join(self.to_args())})"

    # -- derived values ----------------------------------------------------------------------
    def core_limits(self, *, one_task_per_core: bool = False) -> tuple[int | None, int | None]:
        """(tasks per core, threads per core) the job is limited to, None where unlimited:
        ``--ntasks-per-core`` and ``--threads-per-core``, else what ``--hint`` implies
        (``nomultithread``, ``compute_bound``, ``memory_bound``: one thread per core;
        ``multithread``: no limit on tasks per core, even under CR_ONE_TASK_PER_CORE), else
        one task per core where SelectTypeParameters has CR_ONE_TASK_PER_CORE (sbatch's
        ``verify_hint``; slurmctld's ``_set_multi_core_data``). ``--hint`` is ignored beside
        ``--ntasks-per-core`` or ``--threads-per-core``, as sbatch ignores it.

        >>> JobSpec.from_args("-n 3 --hint=nomultithread").core_limits()
        (None, 1)
        """
        per_core, threads = self.ntasks_per_core, self.threads_per_core
        multithread = False
        if self._hint_applies():
            for word in re.split(r",(?![0-9])", self.option("hint") or ""):
                word = word.lower()
                if word in _THREAD_HINTS:
                    threads = _THREAD_HINTS[word]
                elif word == "multithread":
                    threads, multithread = None, True
        if per_core is None and one_task_per_core and not multithread:
            per_core = 1
        return per_core, threads

    def option(self, name: str) -> str | None:
        """The value of a pass-through option (``hint``, ``output``...), the last one given,
        or None."""
        return next((v for k, v in reversed(self.other) if k == name), None)

    def _hint_applies(self) -> bool:
        """sbatch's ``validate_hint_option``: --hint counts unless --ntasks-per-core or
        --threads-per-core is given with it (-B and --cpu-bind, which it names too, are
        refused: sbatch 22.05 has no --cpu-bind, and slurmlab does not model -B)."""
        if self.option("hint") is None:
            return False
        return self.ntasks_per_core is None and self.threads_per_core is None

    @property
    def job_name(self) -> str:
        """The name Slurm shows: ``--job-name``, else ``wrap`` for --wrap, else the batch
        script's file name when one is given (``sbatch train.sh``), else ``sbatch`` (a script
        read from standard input)."""
        if self.name:
            return self.name
        if self.wrap is not None:
            return "wrap"
        script = next((v for k, v in self.other if k == "script-file" and v), None)
        return script.split()[0].rsplit("/", 1)[-1] if script else "sbatch"

    def _tasks_and_nodes(self) -> tuple[int, int]:
        """Tasks and nodes before placement (nodes the cluster would choose count as 1)."""
        counts = _counts(self)
        nodes = counts.nodes
        if nodes is None:
            if counts.ntasks and counts.ntasks_per_node:
                nodes = math.ceil(counts.ntasks / counts.ntasks_per_node)
            else:
                nodes = 1
        if counts.ntasks is not None:
            tasks = counts.ntasks
        elif counts.ntasks_per_node is not None:
            tasks = counts.ntasks_per_node * nodes
        else:
            tasks = nodes
        return tasks, nodes

    def tres(self) -> dict[str, int]:
        """The totals this request asks for, with Slurm's TRES names, before placement.

        ``node`` and ``cpu`` always; ``mem`` (MB) where the request fixes it; ``gres/gpu``
        (and ``gres/gpu:TYPE``) where GPUs are asked for. ``--gres=gpu:8 -N 4`` is 32 GPUs.
        """
        tasks, nodes = self._tasks_and_nodes()
        gpus = 0
        if self.gpus_per_node:
            gpus = self.gpus_per_node * nodes
        elif self.gpus:
            gpus = self.gpus
        elif self.gpus_per_task:
            gpus = self.gpus_per_task * tasks
        cpus = tasks * _counts(self).cpus_per_task
        if self.cpus_per_gpu and gpus:
            cpus = max(cpus, self.cpus_per_gpu * gpus)
        out = {"cpu": cpus, "node": nodes}
        if self.mem_mb:
            out["mem"] = self.mem_mb * nodes
        elif self.mem_per_cpu_mb is not None:
            out["mem"] = self.mem_per_cpu_mb * cpus
        elif self.mem_per_gpu_mb is not None and gpus:
            out["mem"] = self.mem_per_gpu_mb * gpus
        if gpus:
            out["gres/gpu"] = gpus
            if self.gpu_type:
                out[f"gres/gpu:{self.gpu_type}"] = gpus
        return out

    def resources(self, cluster: Cluster | str | Path) -> Resources:
        """Resolve against ``cluster`` (a Cluster, a preset name such as ``"ai"`` or a
        slurm.conf path): the per-node shape, or :class:`RequestError` as sbatch says.

        Partition limits (MaxTime, MaxNodes, MaxMemPerNode, MaxMemPerCPU) do not reject the
        job: like Slurm's default ``EnforcePartLimits=NO`` they leave it pending (reasons
        PartitionTimeLimit, PartitionNodeLimit, MaxMemPerLimit); what no node of the
        partition can ever hold is rejected. sbatch's own adjustments are made, with its
        warnings: ``-N 3 -n 2`` runs on 2 nodes.
        """
        return resolve(self, cluster)

    def validate(self, cluster: Cluster | str | Path) -> JobSpec:
        """Check the request against ``cluster`` (a Cluster, a preset name or a slurm.conf
        path), raising :class:`RequestError`; return it."""
        self.resources(cluster)
        return self


def _words(args, what: str) -> list[str]:
    """sbatch's command-line words: one shell-quoted string split as a shell would, or a
    list whose words are taken as text (a number, a path), as sbatch receives them."""
    if isinstance(args, str):
        try:
            return shlex.split(args)
        except ValueError as exc:
            raise SbatchError(f"cannot split options {args!r}: {exc}") from None
    fix = 'give the options as text ("-N 2 -t 30") or a list of words (["-N", "2", "-t", "30"])'
    if not isinstance(args, list | tuple):
        hint = ""
        if isinstance(args, os.PathLike):
            hint = "; for a batch script's file, use JobSpec.from_sbatch(Path(...))"
        raise SbatchError(f"{what}: got {type(args).__name__} {args!r}; {fix}{hint}")
    for word in args:
        ok = isinstance(word, str | os.PathLike) or (
            isinstance(word, Real) and not isinstance(word, bool)
        )
        if not ok:
            raise SbatchError(
                f"{what}: {word!r} in {list(args)!r} is not a word of sbatch's command line; {fix}"
            )
    return [w if isinstance(w, str) else str(w) for w in args]


def _flag(field_name: str) -> str:
    return {
        "mem_mb": "mem",
        "mem_per_cpu_mb": "mem-per-cpu",
        "mem_per_gpu_mb": "mem-per-gpu",
        "gpus_per_node": "gpus-per-node",
    }.get(field_name, field_name.replace("_", "-"))


def _gpn_flag(spec: JobSpec) -> str:
    """The GPUs-per-node request as the user spelled it: ``--gres=gpu:2`` or
    ``--gpus-per-node=2``."""
    t = f"{spec.gpu_type}:" if spec.gpu_type else ""
    if spec.gpus_per_node_option == "gpus-per-node":
        return f"--gpus-per-node={t}{spec.gpus_per_node}"
    return f"--gres=gpu:{t}{spec.gpus_per_node}"


#: ``--time-min=0`` (or -1, UNLIMITED): sbatch sends INFINITE (slurm_opt.c
#: ``arg_set_time_min``), above any limit but an unlimited one
TIME_MIN_INFINITE = timedelta.max


def _parse_time_limit(long: str, val: str) -> timedelta | None:
    """A ``-t``/``--time-min`` value as sbatch reads it (``time_str2mins``): whole minutes,
    a limit with seconds rounded up (``-t 0:30`` is 1 minute); 0, -1 and UNLIMITED are None
    (``time_str2secs`` reads -1 as INFINITE)."""
    if val.strip() == "-1":
        return None
    try:
        limit = parse_duration(val, what=f"--{long}")
    except SlurmlabError as exc:
        raise SbatchError(str(exc)) from None
    except OverflowError:
        raise SbatchError(
            f"--{long}={val!r}: Invalid time limit specification (too long to count); give "
            "[days-]hours:minutes:seconds, or UNLIMITED"
        ) from None
    if limit is None:
        return None
    minutes = math.ceil(limit.total_seconds() / 60)
    # sbatch(1): "A time limit of zero requests that no time limit be imposed"
    return timedelta(minutes=minutes) if minutes else None


def _next_value(args: list[str], i: int, spelled: str, long: str) -> str:
    """The word ``args[i]`` that follows an option needing a value (``-N 2``, ``--time 30``)."""
    if i >= len(args):
        name = spelled if spelled == f"--{long}" else f"{spelled} (--{long})"
        raise SbatchError(f"option {name} requires a value")
    return args[i]


# Options whose value is optional: given only glued to them (--exclusive=user, -kfoo), never
# the next word (getopt_long's optional_argument)
_OPTIONAL_VALUE = frozenset({"exclusive", "nice", "no-kill", "get-user-env"})


def _takes(long: str) -> Literal["none", "optional", "required"]:
    """Whether the option takes a value, as sbatch's getopt_long table has it."""
    if long in _OPTIONAL_VALUE:
        return "optional"
    if long in _OPTIONS:
        return "none" if _OPTIONS[long][1] in ("true", "false") else "required"
    if long in _PASSTHROUGH:
        return "required" if _PASSTHROUGH[long][0] else "none"
    return "optional"  # (_NOT_MODELLED: refused by name, with or without a value)


def _options(args: list[str]):
    """The options in ``args`` as sbatch's getopt_long reads them.

    Yields ``(long name, value or None, short)``, ``short`` being the letter of a short
    option whose value was glued to it (``-N2``). A short option's value is the rest of its
    word (so ``-N=2`` gives ``=2``) or else the next word; several short options without
    values may share a word (``-Hv``). A long option's value follows ``=`` or is the next
    word (an optional value only follows ``=``). The first word that is not an option (or
    whatever follows ``--``) is the batch script with its arguments: ``("script-file", ...)``.
    """
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if tok == "--":
            if i < len(args):
                yield "script-file", " ".join(args[i:]), None
            return
        if tok.startswith("--"):
            name, eq, val = tok[2:].partition("=")
            long = _lookup(name, val if eq else None)
            takes = _takes(long)
            if eq and takes == "none":
                raise SbatchError(f"option --{long} takes no value (got {val!r}); write --{long}")
            if not eq and takes == "required":
                val, i = _next_value(args, i, f"--{long}", long), i + 1
            yield long, (val if eq or takes == "required" else None), None
        elif tok.startswith("-") and len(tok) > 1:
            for j in range(1, len(tok)):
                short = tok[j]
                if short not in _SHORT:
                    raise SbatchError(f"invalid option -{short} in {tok!r}; {_short_hint(short)}")
                long = _SHORT[short]
                takes, glued = _takes(long), tok[j + 1 :]
                if takes == "none":
                    yield long, None, None
                elif glued:
                    yield long, glued, short
                    break
                elif takes == "required":
                    val, i = _next_value(args, i, f"-{short}", long), i + 1
                    yield long, val, None
                else:
                    yield long, None, None
        else:
            yield "script-file", " ".join(args[i - 1 :]), None
            return


def _short_hint(short: str) -> str:
    """What a letter sbatch does not take is: another command's option, or nothing."""
    long = next((n for n, (s, _) in _NOT_SBATCH.items() if s == short), None)
    if long is None:
        return "see `sbatch --help`"
    return f"sbatch (Slurm 22.05) has no -{short}/--{long}: {_NOT_SBATCH[long][1]}; remove it"


def _refuse_stray_word(
    directives: list[str], lines: list[tuple[int, int]], glued: set[int] = frozenset()
) -> None:
    """A word of the ``#SBATCH`` lines that is neither an option nor its value: sbatch
    reads all the directives as one command line and refuses the script at the first such
    word ("Invalid directive found in batch script", sbatch/opt.c), instead of taking it
    for a script name as it would on the command line."""
    done = 0
    for lineno, upto in lines:
        for long, val, _short in _options(directives[:upto]):
            if long != "script-file":
                continue
            k = next(k for k in range(upto) if " ".join(directives[k:upto]) == val)
            word, prev = directives[k], directives[k - 1] if k else ""
            if prev.startswith("--") and "=" not in prev:
                takes = _takes(_lookup(prev[2:], None))
            else:
                takes = None
            if takes == "optional":  # (--nice 0: --nice takes its value after '=' only)
                hint = f"write {prev}={word}"
            elif k == done and lineno in glued:  # '#SBATCHX': the word is 'X'
                hint = "put a space after #SBATCH, as in '#SBATCH --time=10'"
            elif k == done:
                hint = "start each #SBATCH line with an option"
            else:
                hint = 'quote a value with spaces, as in --job-name="my job"'
            raise SbatchError(
                f"script line {lineno}: Invalid directive found in batch script: {word} "
                f"(sbatch refuses the script: each word of an #SBATCH line is an option or "
                f"an option's value; {hint})"
            )
        done = upto


def _set_option(long: str, val: str | None, values: dict, other: list) -> None:
    """Apply one option to the request being built: ``values`` holds JobSpec fields,
    ``other`` the options kept verbatim (and the script's name)."""
    if long in _PASSTHROUGH or long == "script-file":
        if long in _VALUE_CHECKS:
            _VALUE_CHECKS[long](val)  # (checked, as sbatch checks it)
        if long in _NOT_SIMULATED:
            _warn_not_simulated(long, val)
        other.append((long, val))
        return
    dest, kind, _ = _OPTIONS[long]
    if kind in ("true", "false"):
        values[dest] = kind == "true"
    else:
        values.update(_parse_value(long, kind, val, values))


def _set_short_with_equals(short: str, long: str, val: str, values: dict, other: list) -> None:
    """``-N=2``: getopt gives ``-N`` the value ``=2`` (the ``=`` is part of it), as sbatch
    reads it; a value that is then invalid says why, a valid one (``-J=x`` names the job
    ``=x``) is kept with a warning."""
    fix = f"write -{short} {val[1:]} or --{long}={val[1:]}"
    why = f"-{short}{val} gives -{short} the value {val!r} (sbatch keeps the '=' after a "
    why += "short option)"
    try:
        _set_option(long, val, values, other)
    except SbatchError as exc:
        raise SbatchError(f"{exc}; {why}: {fix}") from None
    _warn(f"{why}; {fix} if {val[1:]!r} was meant")


# -- values of pass-through options, checked as sbatch checks them (slurm_opt.c) ---------------
def _check_open_mode(val: str) -> None:
    """``arg_set_open_mode``: the first letter decides (a: append, t: truncate)."""
    if val[:1] not in ("a", "A", "t", "T"):
        raise SbatchError(
            f"--open-mode={val!r}: Invalid --open-mode specification; use --open-mode=append "
            "or --open-mode=truncate"
        )


_HINTS = ("compute_bound", "memory_bound", "multithread", "nomultithread")


def _check_hint(val: str) -> None:
    """``verify_hint`` (proc_args.c): words split at each ',' not followed by a digit."""
    for word in re.split(r",(?![0-9])", val):
        if word.lower() == "help":
            raise SbatchError(
                f"--hint={val}: sbatch prints the --hint help and exits (no job); use "
                f"--hint={' or --hint='.join(_HINTS)}"
            )
        if word.lower() not in _HINTS:
            raise SbatchError(
                f'--hint={val}: unrecognized --hint argument "{word}", see --hint=help; use '
                f"{', '.join(_HINTS[:-1])} or {_HINTS[-1]}"
            )


_DIST_LEVELS = ("block", "cyclic", "fcyclic")
_DIST_HELP = (
    "use block, cyclic or arbitrary, optionally followed by :block, :cyclic or :fcyclic (for "
    "sockets, then cores) and ,Pack or ,NoPack (e.g. cyclic:block,NoPack), or plane=N"
)


@dataclass(frozen=True, slots=True)
class Distribution:
    """A ``-m/--distribution`` value as srun reads it (``verify_dist_type``, proc_args.c).

    ``name`` is SLURM_DISTRIBUTION as Slurm writes it (``format_task_dist_states``: lower
    case, a ``*`` replaced by its level's default, ``plane`` without its size), '' when only
    ``pack``/``nopack`` is given (srun then picks block or cyclic). Its first part
    (:attr:`nodes`) lays the tasks out on the nodes; the parts after ``:`` choose the CPUs of
    a node a task is bound to (sockets, then cores), not its node. ``plane_size`` is N of
    ``plane=N``; ``flag`` is ``pack``, ``nopack`` or ''.

    >>> Distribution.parse("Cyclic:*")
    Distribution(name='cyclic:cyclic', plane_size=0, flag='')
    >>> Distribution.parse("plane=4").nodes, Distribution.parse("*:block,NoPack").text("block")
    ('plane', 'block:block,nopack')
    """

    name: str
    plane_size: int = 0
    flag: Literal["", "pack", "nopack"] = ""

    @property
    def nodes(self) -> str | None:
        """How task ids go to nodes: block, cyclic, plane or arbitrary (None: srun's default)."""
        return self.name.split(":")[0] or None

    def text(self, default: str) -> str:
        """SLURM_DISTRIBUTION, ``default`` (srun's block or cyclic) standing in for no layout."""
        return (self.name or default) + (f",{self.flag}" if self.flag else "")

    @classmethod
    def parse(cls, text: str) -> Distribution:
        """Read a ``--distribution`` value as ``verify_dist_type`` (proc_args.c) does:
        ``plane=N``, or up to three ``:``-separated levels (``*`` is the default of its
        level) that name one of Slurm's layouts, then an optional ``,pack`` or ``,nopack``;
        ``pack`` or ``nopack`` alone (``hostfile`` reads as ``arbitrary``)."""
        bad = f"--distribution={text!r}: Invalid --distribution specification"
        if text[:5].lower() == "plane":  # (a plane size can't be combined with anything)
            size = text.partition("=")[2]
            if not ("=" in text and re.fullmatch(r"\s*[+]?[0-9]+", size) and 0 < int(size) < 2**31):
                raise SbatchError(
                    f"{bad} (Invalid plane size or size not specified); write plane=N, N a "
                    "whole number of at least 1 (tasks laid out in blocks of N per node)"
                )
            return cls("plane", plane_size=int(size))
        if not text or text[0] == ",":
            raise SbatchError(f"{bad}; {_DIST_HELP}")
        base, _, flag = text.partition(",")
        levels = [w for w in base.split(":") if w]  # (strtok: empty words are skipped)
        defaults = ["block", "cyclic", None]
        words: list[str] = []
        for i, word in enumerate(levels):
            if i > 2:
                raise SbatchError(
                    f"{bad}: at most three levels (nodes:sockets:cores); {_DIST_HELP}"
                )
            words.append((defaults[i] or words[1]) if word == "*" else word.lower())
        if len(words) == 1 and words[0] in ("pack", "nopack") and not flag:
            return cls("", flag=words[0])
        known = len(words) == 1 and words[0] in ("block", "cyclic", "arbitrary", "hostfile")
        known = known or (
            1 < len(words) <= 3
            and words[0] in ("block", "cyclic")
            and all(w in _DIST_LEVELS for w in words[1:])
        )
        if not known:
            raise SbatchError(f"{bad}: {base!r} is not a layout; {_DIST_HELP}")
        if flag and flag.lower() not in ("pack", "nopack"):
            raise SbatchError(f"{bad}: {flag!r} is not Pack or NoPack; {_DIST_HELP}")
        name = ":".join(words)
        return cls("arbitrary" if name == "hostfile" else name, flag=flag.lower())


def _check_deadline(val: str) -> None:
    """``arg_set_deadline``: a time as ``parse_time`` reads it (the forms of --begin)."""
    try:
        _parse_begin(val)
    except SbatchError:
        raise SbatchError(
            f"--deadline={val!r}: Invalid --deadline specification; "
            + _BEGIN_HELP.replace("use ", "give a time as --begin takes it: ", 1)
        ) from None


def _check_wait_all_nodes(val: str) -> None:
    """``arg_set_wait_all_nodes``: ``parse_int``, then 0 or 1."""
    fix = "use --wait-all-nodes=0 (start at once) or --wait-all-nodes=1 (wait for every node)"
    if not re.fullmatch(r"\s*[+]?[0-9]+", val):
        raise SbatchError(
            f'--wait-all-nodes={val!r}: Invalid numeric value "{val}" for --wait-all-nodes.; ' + fix
        )
    if int(val) > 1:
        raise SbatchError(f"--wait-all-nodes={val}: Invalid --wait-all-nodes specification; {fix}")


def _gpu_bind_ok(bind: str) -> bool:
    """``_valid_gpu_bind`` (tres_bind.c), as lenient as it is: ``closest`` and ``none`` are
    recognised by their first letter, ``per_task:``/``single:`` by a number that is not
    negative (strtol: a word is 0), ``map_gpu:``/``mask_gpu:`` by lists of numbers."""
    low = bind.lower()
    low = low[len("verbose,") :] if low.startswith("verbose,") else low
    if low[:1] in ("c", "n"):
        return True
    for prefix, digits in (("map_gpu:", "0-9"), ("mask_gpu:", "0-9a-f")):
        if low.startswith(prefix):
            items = [i for i in low[len(prefix) :].split(",") if i]
            if prefix == "mask_gpu:":
                items = [i.removeprefix("0x") for i in items]
            return all(re.fullmatch(rf"[{digits}]+(?:\*[0-9]*)?", i) for i in items)
    if low.startswith(("per_task:", "single:")):
        return not re.match(r"\s*-\s*[0-9]", low.partition(":")[2])
    return False


def _check_gpu_bind(val: str) -> None:
    """``arg_set_gpu_bind``: ``tres_bind_verify_cmdline("gpu:" + value)``."""
    parts = f"gpu:{val}".split(";")
    if all(p.startswith("gpu:") and _gpu_bind_ok(p[4:]) for p in parts if p):
        return
    raise SbatchError(
        f"--gpu-bind={val!r}: Invalid --gpu-bind argument: gpu:{val}; use closest, none, "
        "map_gpu:ID[,ID...], mask_gpu:MASK[,MASK...], per_task:N or single:N (each may "
        "follow verbose,)"
    )


#: --mail-type's words (proc_args.c ``parse_mail_type``), read in any case
_MAIL_TYPES = (
    "NONE", "BEGIN", "END", "FAIL", "REQUEUE", "ALL", "INVALID_DEPEND", "STAGE_OUT",
    "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS",
)  # fmt: skip


def _check_mail_type(val: str) -> None:
    """``arg_set_mail_type`` (slurm_opt.c) with ``parse_mail_type`` (proc_args.c): the
    comma-separated words (any case) are read up to NONE; words it does not know are
    skipped, and the value is refused ("Invalid --mail-type specification") only when it
    holds none it knows (``BEGINEND``, ``''``)."""
    words = [w.upper() for w in val.split(",") if w]
    if any(w in _MAIL_TYPES for w in words):
        return
    raise SbatchError(
        f"--mail-type={val!r}: Invalid --mail-type specification; give a comma list of "
        f"{', '.join(_MAIL_TYPES[:-1])} or {_MAIL_TYPES[-1]} (e.g. --mail-type=BEGIN,END)"
    )


def _check_ntasks_per_gpu(val: str) -> None:
    """``arg_set_ntasks_per_gpu`` (slurm_opt.c): ``parse_int(..., positive)``."""
    if not re.fullmatch(r"[0-9]+", val.strip()) or int(val) < 1:
        raise SbatchError(
            f'--ntasks-per-gpu={val!r}: Invalid numeric value "{val}" for --ntasks-per-gpu; '
            "give a whole number of tasks per GPU of at least 1, e.g. --ntasks-per-gpu=1"
        )
    _int("ntasks-per-gpu", val)


_VALUE_CHECKS = {
    "ntasks-per-gpu": _check_ntasks_per_gpu,
    "mail-type": _check_mail_type,
    "open-mode": _check_open_mode,
    "hint": _check_hint,
    "distribution": Distribution.parse,
    "deadline": _check_deadline,
    "wait-all-nodes": _check_wait_all_nodes,
    "gpu-bind": _check_gpu_bind,
}


def _int(long: str, val: str) -> int:
    """A count as sbatch's parse_int reads it: decimal ASCII digits, below strtol's
    LONG_MAX (which sbatch refuses as too big)."""
    if not re.fullmatch(r"[0-9]+", val.strip()):
        raise SbatchError(f"--{long}={val!r}: expected a whole number")
    if int(val) >= _LONG_MAX:
        raise SbatchError(
            f"--{long}={val.strip()}: Numeric argument too big (sbatch reads at most "
            f"{_LONG_MAX - 1})"
        )
    return int(val)


_LONG_MAX = 2**63 - 1


def _gres_text(values: dict) -> str:
    typ = values.get("gpu_type")
    return f"gpu:{typ}:{values['gpus_per_node']}" if typ else f"gpu:{values['gpus_per_node']}"


def _warn_gres_wins(gres: str, per_node: int) -> None:
    """--gres=gpu and --gpus-per-node together: sbatch sends both in one per-node request
    (``gres:gpu:M,gpu:N``, --gres last: slurm_opt.c) and the controller keeps the last count
    (gres.c _get_next_job_gres), so --gres wins whatever their order."""
    _warn(
        f"--gres={gres} and --gpus-per-node={per_node} both ask for GPUs per node; as Slurm "
        f"does, the --gres count is kept and --gpus-per-node={per_node} is ignored (give one "
        "of the two)"
    )


def _last_count(
    counts: dict[tuple[str, str | None], int], key: tuple[str, str | None], n: int, given: str
) -> None:
    """Record one ``name[:type]:count`` of a GRES list: a name and type given again keeps
    its last count, as slurmctld does (gres.c ``gres_job_state_validate``: the record
    ``_get_next_job_gres`` finds for the name and type is set, ``gres_per_node = cnt``); a
    count of 0 is skipped (``_get_next_gres``), so it never replaces one. A repeat is named
    in a warning."""
    if key in counts and n and counts[key] != n:
        name = ":".join(k for k in key if k)
        _warn(
            f"{given}: {name} is asked twice ({counts[key]}, then {n}); as Slurm does, the last "
            f"count is kept, not the sum: {name}:{n}; give each GRES once"
        )
    if n or key not in counts:
        counts[key] = n


def _one_gpu_request(
    counts: dict[tuple[str, str | None], int], given: str
) -> tuple[str | None, int] | None:
    """The (type, count) of the GPUs among a GRES list's ``counts``, or None without any:
    GPU entries of count 0 are dropped when another asks for GPUs (``_get_next_gres`` skips
    them). An untyped count beside a typed one is refused as slurmctld refuses it
    (``_merge_generic_data``: "Invalid GRES specification (with and without type
    identification)"); several types, which Slurm allocates each of, slurmlab does not
    model."""
    gpus = {typ: n for (name, typ), n in counts.items() if name == "gpu"}
    if len(gpus) > 1:
        gpus = {typ: n for typ, n in gpus.items() if n} or {None: 0}
    if len(gpus) > 1 and None in gpus:
        raise SbatchError(
            f"{given}: Invalid GRES specification (with and without type identification): "
            "Slurm refuses a GPU count without a type beside one with a type; ask for one type"
        )
    if len(gpus) > 1:
        raise SbatchError(
            f"{given}: several GPU types in one request ({', '.join(map(str, gpus))}) are not "
            "modelled by slurmlab; ask for one type"
        )
    return next(iter(gpus.items()), None)


def _gpu_count(long: str, val: str, values: dict) -> tuple[str | None, int]:
    """Parse ``[type:]N`` of --gpus / --gpus-per-node / --gpus-per-task. A comma list is
    sent as one GRES list (proc_args.c ``xfmt_tres``), read as ``--gres``'s: a type given
    again keeps its last count (:func:`_last_count`)."""
    if "," in val:
        counts: dict[tuple[str, str | None], int] = {}
        for item in val.split(","):
            if item:  # (strtok: empty items are skipped)
                typ, n = _gpu_count(long, item, {})
                _last_count(counts, ("gpu", typ), n, f"--{long}={val}")
        found = _one_gpu_request(counts, f"--{long}={val!r}")
        if found is None:
            raise SbatchError(f"--{long}={val!r}: expected [type:]count, e.g. h100:8")
        val = f"{found[0]}:{found[1]}" if found[0] else str(found[1])
    parts = val.split(":")
    if parts[0] == "gpu":
        parts = parts[1:]
    if len(parts) == 1:
        typ, n = None, parts[0]
    elif len(parts) == 2:
        typ, n = parts
    else:
        raise SbatchError(f"--{long}={val!r}: expected [type:]count, e.g. h100:8")
    if not _digits(n):
        raise SbatchError(f"--{long}={val!r}: GPU count {n!r} is not a number")
    if typ and values.get("gpu_type") and values["gpu_type"] != typ:
        raise SbatchError(
            f"--{long}={val!r}: GPU type {typ!r} conflicts with {values['gpu_type']!r}"
        )
    return typ, int(n)


def _parse_value(long: str, kind: str, val: str | None, values: dict) -> dict:
    dest = _OPTIONS[long][0]
    if kind == "str":
        if val == "":
            raise SbatchError(f"--{long} needs a non-empty value")
        return {dest: val}
    if kind == "int":
        return {dest: _int(long, val)}
    if kind == "nodes":
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", val.strip())
        if not m or int(m.group(1)) < 1:
            raise SbatchError(f"--nodes={val!r}: expected N or MIN-MAX with N >= 1, e.g. 2 or 2-4")
        return {"nodes": int(m.group(1)), "max_nodes": int(m.group(2)) if m.group(2) else None}
    if kind == "mem":
        try:
            mb = parse_memory_mb(val, what=f"--{long}")
        except SlurmlabError as exc:
            raise SbatchError(str(exc)) from None
        if "." in val:  # Slurm's str_to_mbytes reads a whole number (strtoll)
            raise SbatchError(
                f"--{long}={val!r}: invalid memory constraint: Slurm takes a whole number "
                f"with an optional K/M/G/T suffix; write e.g. {mb}M"
            )
        return {dest: mb}
    if kind == "time" and long == "time-min":  # (0, -1, UNLIMITED: INFINITE, arg_set_time_min)
        low = _parse_time_limit(long, val)
        return {"time_min": TIME_MIN_INFINITE if low is None else low}
    if kind == "time":
        return {"time_limit": _parse_time_limit(long, val), "time_requested": True}
    if kind == "gres":
        out: dict = {"gpus_per_node": None, "other_gres": ()}
        counts: dict[tuple[str, str | None], int] = {}
        for item in val.split(","):
            item = item.strip()
            if item.lower() == "none":
                continue
            parts = item.split(":")
            if len(parts) == 1:
                typ, n = None, "1"
            elif len(parts) == 2:
                typ, n = (None, parts[1]) if _digits(parts[1]) else (parts[1], "1")
            elif len(parts) == 3:
                typ, n = parts[1], parts[2]
            else:
                raise SbatchError(
                    f"--gres={val!r}: {item!r} is not name[:type][:count], e.g. gpu:h100:8"
                )
            if not parts[0] or typ == "":
                raise SbatchError(f"--gres={val!r}: {item!r} has an empty name or type")
            if not _digits(n):
                what = "GPU count" if parts[0] == "gpu" else "count"
                raise SbatchError(f"--gres={val!r}: {what} {n!r} in {item!r} is not a number")
            _last_count(counts, (parts[0], typ), int(n), f"--gres={val}")
        gpus = _one_gpu_request(counts, f"--gres={val!r}")
        others = [Gres(name, typ, n) for (name, typ), n in counts.items() if name != "gpu"]
        if gpus is not None:
            out["gpu_type"], out["gpus_per_node"] = gpus
        out["other_gres"] = tuple(others)
        if out["gpus_per_node"] is None and values.get("gpus_per_node_option") == "gpus-per-node":
            del out["gpus_per_node"]  # (sbatch keeps --gpus-per-node apart from --gres=nvme:1)
        if out.get("gpus_per_node") is not None:
            if values.get("gpus_per_node_option") == "gpus-per-node":
                _warn_gres_wins(val, values["gpus_per_node"])
            out["gpus_per_node_option"] = "gres"
            # a type from --gpus / --gpus-per-task holds for an untyped --gres and must agree
            # with a typed one (a --gres given before, in the script, is replaced by this one)
            prior = values.get("gpu_type")
            replaces = values.get("gpus_per_node") is not None and (
                values.get("gpus_per_node_option", "gres") == "gres"
            )
            if prior and not replaces:
                if out["gpu_type"] is None:
                    out["gpu_type"] = prior
                elif out["gpu_type"] != prior:
                    raise SbatchError(
                        f"--gres={val!r}: GPU type {out['gpu_type']!r} conflicts with {prior!r}"
                    )
        return out
    if kind == "gpus":
        typ, n = _gpu_count(long, val, values)
        if (
            dest == "gpus_per_node"
            and values.get("gpus_per_node_option") == "gres"
            and values.get("gpus_per_node") is not None
        ):
            _warn_gres_wins(_gres_text(values), n)
            return {}
        out = {dest: n}
        if typ:
            out["gpu_type"] = typ
        if dest == "gpus_per_node":
            out["gpus_per_node_option"] = "gpus-per-node"
        return out
    if kind == "begin":
        return {"begin": _parse_begin(val)}
    if kind == "array":
        return {"array": ArraySpec.parse(val)}
    if kind == "dependency":
        return _parse_dependency(val)
    if kind == "yesno":
        return {dest: _kill_on_invalid_dep(val, values.get(dest))}
    if kind == "exclusive":
        if val not in (None, "user", "mcs", "topo"):
            raise SbatchError(f"--exclusive={val!r}: use --exclusive, or =user, =mcs, =topo")
        if val is not None:  # said, never silently changed
            _warn(
                f"--exclusive={val} is simulated as --exclusive (whole nodes): slurmlab does "
                f"not model sharing nodes by {val}"
            )
        return {"exclusive": True}
    if kind == "nice":
        if val is None:
            return {"nice": 100}
        if not re.fullmatch(r"[+-]?[0-9]+", val):
            raise SbatchError(f"--nice={val!r}: expected a whole number adjustment")
        return {"nice": int(val)}
    if kind == "signal":
        return {"signal": SignalSpec.parse(val)}
    if kind == "hosts":
        try:
            return {dest: tuple(expand_hostlist(val))}
        except SlurmlabError as exc:
            raise SbatchError(f"--{long}: {exc}") from None
    raise AssertionError(kind)  # pragma: no cover - table and parser are written together


def _parse_dependency(val: str) -> dict:
    """``--dependency`` as slurmctld's ``update_job_dependency`` reads it: ``type:id[:id...]``
    conditions joined by ``,`` (all) or ``?`` (any), ``singleton``, and Slurm's old format, a
    bare job id, meaning ``afterany:id``. As in Slurm, a bare id must not be followed by a
    ``type:id`` condition nor by ``?`` (Slurm then reads the whole rest as one condition).

    Both separators in one list are accepted as slurmctld accepts them, with a warning: one
    ``?`` anywhere makes the whole list "any" (``update_job_dependency`` sets its or_flag, and
    ``_depend_list2str`` then marks every condition SLURM_FLAGS_OR)."""
    text = _expand_task_lists(val)
    any_ = "?" in text
    deps = []
    items = re.split(r"[,?]", text)
    seps = [*re.findall(r"[,?]", text), ""]  # the separator after each item
    fix = "".join(
        (f"afterany:{i.strip()}" if _bare_job_id(i) else i.strip()) + sep
        for i, sep in zip(items, seps, strict=True)
    )
    for pos, item in enumerate(items):
        if _bare_job_id(item):  # the old format: a job id alone
            job, bad = item.strip(), f"--dependency={val!r}: Job dependency problem: "
            if not re.fullmatch(r"[0-9]+(?:_(?:[0-9]+|\*))?", job):
                raise SbatchError(f"{bad}{job!r} is not a job id (write e.g. afterany:12)")
            if any(":" in i for i in items[pos + 1 :]) or seps[pos] == "?":
                raise SbatchError(
                    f"{bad}a bare job id ({job}, the old format of afterany:{job}) may only be "
                    f"followed by ',' and other bare ids; write --dependency={fix}"
                )
            deps.append(Dependency("afterany", (job,)))
            continue
        parts = item.strip().split(":")
        kind = parts[0].lower()  # (slurmctld compares the types in any case)
        if _digits(kind[:1]):
            raise SbatchError(
                f"--dependency={val!r}: Job dependency problem: {item.strip()!r} is not "
                "TYPE:ID; a bare job id means afterany:ID, several jobs are afterany:ID:ID "
                "(e.g. afterany:1:2)"
            )
        delayed = [p for p in parts[1:] if "+" in p]
        if delayed:
            job, _, delay = delayed[0].partition("+")
            raise SbatchError(
                f"--dependency={val!r}: a delay after job {job} ('+{delay}' minutes) is not "
                f"modelled by slurmlab; remove '+{delay}' (the job then waits for {kind}:{job} "
                "alone)"
            )
        ids = tuple(parts[1:])
        if any(not i for i in ids):
            raise SbatchError(f"--dependency={val!r}: empty job id in {item!r}")
        deps.append(Dependency(kind, ids))  # validates the kind
    if any_ and "," in text:
        _warn(
            f"--dependency={val!r} mixes ',' (all) and '?' (any): one '?' makes the whole list "
            "'any' in Slurm (the job may start when any one of its conditions is satisfied, "
            f"not all of them); write --dependency={'?'.join(map(str, deps))} to say so, or "
            "use ',' alone for 'all'"
        )
    return {"dependency": tuple(deps), "dependency_any": any_}


def _kill_on_invalid_dep(val: str, before: bool | None) -> bool:
    """``--kill-on-invalid-dep=yes|no`` as sbatch's ``arg_set_kill_on_invalid_dep`` reads it
    (either word, in any case). Each sets its own bit of the job's flags and none clears the
    other, so a ``yes`` given anywhere (an ``#SBATCH`` line, the command line) wins over a
    ``no`` (``handle_invalid_dependency`` tests KILL_INV_DEP first)."""
    word = val.lower() if val is not None else ""  # (xstrcasecmp: the whole word)
    if word not in ("yes", "no"):
        raise SbatchError(
            f"--kill-on-invalid-dep={val!r}: Invalid --kill-on-invalid-dep specification; use "
            "--kill-on-invalid-dep=yes (cancel the job when its dependency can never be "
            "satisfied) or =no (leave it pending)"
        )
    if before and word == "no":
        _warn(
            "--kill-on-invalid-dep=no after --kill-on-invalid-dep=yes: sbatch keeps both "
            "flags, and Slurm then cancels the job (yes wins); give the option once"
        )
        return True
    return word == "yes"


#: ``JOBID_[task list]`` in a --dependency (job_scheduler.c ``_xlate_array_dep``)
_TASK_LIST_DEP = re.compile(r"([^:,?\[\]]+)_\[([^\]]*)\]")


def _expand_task_lists(val: str) -> str:
    """``afterok:1_[0,2]`` -> ``afterok:1_0:1_2``: slurmctld's ``update_job_dependency``
    expands an array's task list (``_xlate_array_dep``) before it splits the list at ``,``
    and ``?``, into one condition per task. The list is ``bit_unfmt``'s: ``a-b`` ranges and
    single tasks joined by ``,``, or one ``a-b:step`` (which, as ``bitfmt2int`` reads it,
    stops before ``b``)."""

    def tasks(m: re.Match) -> str:
        job, listed = m.group(1), m.group(2)
        out: set[int] = set()
        step = re.fullmatch(r"([0-9]+)-([0-9]+):([0-9]+)", listed)
        if step:
            first, last, every = map(int, step.groups())
            out.update(range(first, last, every) if every > 0 else ())
        elif re.fullmatch(r"[0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*", listed):
            for part in listed.split(","):
                a, _, b = part.partition("-")
                out.update(range(int(a), int(b or a) + 1))
        if not out:
            raise SbatchError(
                f"--dependency={val!r}: Job dependency problem: {m.group(0)!r} is not a task "
                f"list; write e.g. {job}_[0-3,7] or {job}_[0-9:2]"
            )
        return ":".join(f"{job}_{t}" for t in sorted(out))

    return _TASK_LIST_DEP.sub(tasks, val) if "_[" in val else val


def _bare_job_id(item: str) -> bool:
    """Whether a ``--dependency`` item is Slurm's old format: no ``:``, starting with a digit."""
    return ":" not in item and _digits(item.strip()[:1])


# -- --constraint -------------------------------------------------------------------------------
_ConstraintTree = str | tuple  # a feature name, or (op, left, right) with op "&" or "|"


@lru_cache(maxsize=512)
def _parse_constraint(expr: str) -> _ConstraintTree:
    """``--constraint`` read as Slurm reads it: strictly left to right, ``&`` (and) and ``|``
    (or) without precedence (``a|b&c`` asks for ``(a|b)&c``), parentheses grouping.

    Matching OR (``[a|b]``: all nodes share one alternative) and node counts (``a*2``)
    are refused: slurmlab does not model them.
    """
    where = f"--constraint={expr!r}"
    if "[" in expr or "]" in expr:
        raise SbatchError(
            f"{where}: matching OR in brackets (every node shares one alternative) is not "
            "modelled by slurmlab; write the features with &, | and ( ), e.g. 'a100|h100'"
        )
    if "*" in expr:
        raise SbatchError(
            f"{where}: node counts (feature*N) are not modelled by slurmlab; remove '*N'"
        )
    tokens = re.findall(r"[&|()]|[^&|()\s]+", expr)
    pos = 0

    def fail(what: str) -> SbatchError:
        return SbatchError(f"{where}: {what}; write features joined by & and |, e.g. 'a100&ib'")

    def term() -> _ConstraintTree:
        nonlocal pos
        if pos == len(tokens):
            raise fail("a feature name is missing at the end")
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            node = expression()
            if pos == len(tokens) or tokens[pos] != ")":
                raise fail("a '(' is not closed")
            pos += 1
            return node
        if tok in ("&", "|", ")"):
            raise fail(f"{tok!r} stands where a feature name should")
        return tok

    def expression() -> _ConstraintTree:
        nonlocal pos
        node = term()
        while pos < len(tokens) and tokens[pos] in ("&", "|"):
            op = tokens[pos]
            pos += 1
            node = (op, node, term())
        return node

    tree = expression()
    if pos != len(tokens):
        raise fail(f"{tokens[pos]!r} stands where & or | should")
    return tree


def _constraint_holds(tree: _ConstraintTree, features: frozenset[str]) -> bool:
    if isinstance(tree, str):
        return tree in features
    op, left, right = tree
    if op == "&":
        return _constraint_holds(left, features) and _constraint_holds(right, features)
    return _constraint_holds(left, features) or _constraint_holds(right, features)


def features_match(expr: str | None, features: frozenset[str]) -> bool:
    """Whether a node with ``features`` satisfies the ``--constraint`` expression ``expr``.

    Slurm reads it left to right without precedence, parentheses grouping:

    >>> features_match("foo|bar&baz", frozenset({"foo"}))  # (foo|bar)&baz
    False
    >>> features_match("foo&(bar|baz)", frozenset({"foo", "baz"}))
    True
    """
    if not expr:
        return True
    return _constraint_holds(_parse_constraint(expr), features)


# -- sbatch's checks of the node counts ---------------------------------------------------------
def _sbatch_nodelist(spec: JobSpec) -> tuple[JobSpec, str | None]:
    """The request as sbatch submits it given ``-w`` (sbatch/opt.c ``_opt_verify``), and
    sbatch's warning or None.

    The hosts listed raise the minimum node count (``-N 2-4 -w node[1-3]``: 3-4; without
    ``-N``: 3), the maximum stays -N's (``-N 2`` is 2-2: verify_node_count), and a minimum
    above the maximum is refused: ``-N 2 -w node[1-3]`` is "invalid number of nodes (-N
    3-2)". A count above the hosts is kept (``-N 3 -w node1``: the list is part of the
    nodes). Fewer tasks (``-n``) than that minimum set both counts to the tasks, with
    sbatch's warning, and drop the last hosts of the list beyond them: ``-n 2 -w
    node[1-3]`` runs on node[1-2]."""
    if not spec.nodelist:
        return spec, None
    hosts, listed = len(spec.nodelist), compress_hostlist(spec.nodelist)
    low = hosts if spec.nodes is None else max(hosts, spec.nodes)
    high = spec.max_nodes if spec.max_nodes is not None else spec.nodes  # (None: no maximum)
    if high is not None and low > high:
        asked = f"--nodes={spec.nodes}" + (f"-{spec.max_nodes}" if spec.max_nodes else "")
        raise SbatchError(
            f"invalid number of nodes (-N {low}-{high}): --nodelist={listed} names {hosts} "
            f"nodes, and sbatch raises the minimum node count to them, above {asked}'s "
            f"maximum of {high}; list at most {high} nodes, or ask --nodes={hosts}"
        )
    if spec.ntasks is None or spec.ntasks >= low:
        return spec, None
    ntasks = spec.ntasks
    warning = f"can't run {ntasks} processes on {low} nodes, setting nnodes to {ntasks}"
    if hosts > ntasks:
        warning += (
            f" (sbatch drops {compress_hostlist(spec.nodelist[ntasks:])} from --nodelist="
            f"{listed}: the job gets {compress_hostlist(spec.nodelist[:ntasks])})"
        )
    kept = replace(
        spec,
        nodelist=spec.nodelist[:ntasks],
        nodes=None if spec.nodes is None else ntasks,
        max_nodes=None,
    )
    return kept, warning


def _ntasks_per_gpu_problem(spec: JobSpec) -> str | None:
    """Why slurmlab refuses the request's ``--ntasks-per-gpu=K``, or None (none given, or
    one that changes nothing).

    sbatch refuses it beside --gpus-per-task or --ntasks-per-node (slurm_opt.c
    ``_validate_ntasks_per_gpu``), and without GPUs, -n or -N (gres.c
    ``gres_job_state_validate``: "--ntasks-per-tres needs either a GRES GPU specification
    or a node/ntask specification"). Otherwise slurmctld sets the job's task count to its
    GPUs times K, whatever -n said (``gres_job_state_validate``: ``num_tasks = gpus *
    ntasks_per_tres``), or, without GPUs, its GPUs to its tasks over K; puts the same number
    of tasks on each node (cons_tres job_test.c ``_select_cores``); and srun binds each task
    to one GPU (``--gpu-bind=single:K``). slurmlab does not model that, so it takes the
    option only where it changes nothing: one GPU for the whole job (--gpus=1, or
    --gres=gpu:1 / --gpus-per-node=1 on one node) and K tasks on one node (-n K, which may
    be left out when K is 1, and -N 1 when K > 1): the task count is then K as given, every
    task on the job's node, and every task sees the one GPU, bound or not.

    >>> print(_ntasks_per_gpu_problem(JobSpec.from_args("--gpus=1 --ntasks-per-gpu=1")))
    None
    """
    k = spec.option("ntasks-per-gpu")
    if k is None:
        return None
    if not _digits(k) or int(k) < 1:  # (given in Python: other=(("ntasks-per-gpu", k),))
        return f"--ntasks-per-gpu={k!r}: must be a whole number of tasks per GPU, at least 1"
    k, given = int(k), f"--ntasks-per-gpu={k}"
    for option, field_name in (
        ("--gpus-per-task", "gpus_per_task"),
        ("--ntasks-per-node", "ntasks_per_node"),
    ):
        if getattr(spec, field_name) is not None:
            return (
                f"{given}: {option} is mutually exclusive with --ntasks-per-gpu and "
                "SLURM_NTASKS_PER_GPU (sbatch refuses the job); keep one"
            )
    nodes = _counts(spec).nodes or 1
    gpus = spec.gpus or (spec.gpus_per_node or 0) * nodes
    tasks = spec.ntasks
    if tasks is None and spec.nodes is not None and spec.max_nodes in (None, spec.nodes):
        tasks = spec.nodes * k  # (gres_job_state_validate: min_nodes x ntasks_per_tres)
    if not gpus and tasks is None:
        return (
            f"{given} without GPUs, -n or -N: sbatch refuses it (Invalid generic resource "
            "(gres) specification: --ntasks-per-tres needs either a GRES GPU specification or "
            "a node/ntask specification); ask for GPUs, e.g. --gpus=1"
        )
    if not gpus and tasks % k:
        return (
            f"{given} with {tasks} tasks: sbatch refuses it (-n/--ntasks has to be a multiple "
            f"of --ntasks-per-gpu, gres.c _test_gres_cnt); give -n a multiple of {k}"
        )
    if gpus == 1 and (spec.ntasks or 1) == k and nodes == 1 and (k == 1 or spec.nodes == 1):
        return None
    if not gpus:
        effect = f"give the job {tasks // k} GPU(s), its {tasks} task(s) over {k}"
        fix = f"ask for the GPUs instead (--gpus={tasks // k})"
    else:
        effect = (
            f"run {gpus * k} task(s) ({gpus} GPU(s) x {k}), the same number on each node, each "
            "bound to one GPU"
        )
        fix = f"give -n {gpus * k} instead (srun's --gpu-bind=single:{k} binds the tasks)"
    return (
        f"{given}: here Slurm would {effect}, which slurmlab does not model (it takes "
        "--ntasks-per-gpu only where that changes nothing: one GPU for the job and -n tasks "
        f"per GPU on one node, e.g. --gpus=1 --ntasks-per-gpu=1); {fix}, or remove it"
    )


def _as_submitted(spec: JobSpec) -> JobSpec:
    """``spec`` read from sbatch's options, as sbatch submits it: :func:`_sbatch_nodelist`,
    its warning given (a ``--ntasks-per-gpu`` slurmlab cannot run as Slurm would is refused:
    :func:`_ntasks_per_gpu_problem`)."""
    problem = _ntasks_per_gpu_problem(spec)
    if problem:
        raise SbatchError(problem)
    spec, warning = _sbatch_nodelist(spec)
    if warning:
        _warn(warning)  # sbatch's own words
    return spec


def _check_submitted(spec: JobSpec) -> None:
    """A request built in Python (or changed with ``dataclasses.replace``) whose node counts
    sbatch would refuse or change (:func:`_sbatch_nodelist`) is refused: slurmlab runs the
    request as it is written."""
    problem = _ntasks_per_gpu_problem(spec)
    if problem:
        raise RequestError(problem)
    try:
        submitted, warning = _sbatch_nodelist(spec)
    except SbatchError as exc:
        raise RequestError(f"{exc} (as sbatch refuses these options)") from None
    if submitted is not spec:
        raise RequestError(
            f"-n {spec.ntasks} with --nodelist={compress_hostlist(spec.nodelist)}: sbatch "
            f"would submit it changed: {warning}; build the request with JobSpec.from_args, "
            f"or list {spec.ntasks} nodes"
        )


# -- resolution against a cluster --------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _TaskCounts:
    """The task and node counts the options fix before any node is looked at, as sbatch and
    slurmctld derive them: GPUs per job / per task give the tasks, per node / per task the
    tasks per node, per job / per node the nodes (gres.c ``_test_gres_cnt``); ``-w`` raises
    the node count to the list's length (:func:`_sbatch_nodelist` has refused a list longer
    than the maximum, and dropped hosts beyond the tasks); ``-n`` below ``-N`` lowers it,
    with sbatch's warning."""

    ntasks: int | None
    ntasks_per_node: int | None
    nodes: int | None  # None: the partition's node sizes decide
    nodes_from: str  # what fixed ``nodes``: "-N", "--nodelist", "--gpus" (or "")
    cpus_per_task: int
    warning: str | None = None


def _counts(spec: JobSpec) -> _TaskCounts:
    per_task = spec.gpus_per_task or 0
    ntasks, per_node = spec.ntasks, spec.ntasks_per_node
    if ntasks is None and spec.gpus and per_task:
        ntasks = spec.gpus // per_task
    if per_node is None and spec.gpus_per_node and per_task:
        per_node = spec.gpus_per_node // per_task
    cpt = spec.cpus_per_task or 1
    if spec.cpus_per_gpu and per_task and spec.cpus_per_task is None:
        cpt = spec.cpus_per_gpu * per_task  # (_test_gres_cnt: cpus_per_gres x gres_per_task)
    nodes, nodes_from = spec.nodes, ("-N" if spec.nodes is not None else "")
    if spec.gpus and spec.gpus_per_node:
        nodes, nodes_from = spec.gpus // spec.gpus_per_node, "--gpus"
    if spec.nodelist and nodes_from != "--gpus" and (nodes is None or nodes <= len(spec.nodelist)):
        # sbatch/opt.c _opt_verify: min_nodes = MAX(hosts, min_nodes)
        nodes, nodes_from = len(spec.nodelist), "--nodelist"
    warning = None
    if nodes_from == "-N" and ntasks is not None and ntasks < nodes:
        warning = f"can't run {ntasks} processes on {nodes} nodes, setting nnodes to {ntasks}"
        nodes = ntasks
    return _TaskCounts(ntasks, per_node, nodes, nodes_from, cpt, warning)


_THREAD_HINTS = {"nomultithread": 1, "compute_bound": 1, "memory_bound": 1}


@dataclass(frozen=True, slots=True)
class _CoreUse:
    """How a request uses the cores of nodes with ThreadsPerCore > 1 (threads counted as
    CPUs) under a core allocation, as select/cons_tres does (cons_common.c
    ``common_cpus_per_core``, dist_tasks.c ``_block_sync_core_bitmap``).

    A core's threads are all allocated together: ``-n 3`` on two threads per core takes 2
    cores, 4 CPUs. Of each core the job may use ``usable`` threads: all of them by default,
    ``--threads-per-core=T`` (or ``--hint=nomultithread``, ``compute_bound``,
    ``memory_bound``: 1) at most T, ``--ntasks-per-core=K`` at most K x CPUs per task. Its
    CPUs are spread over cores of that many threads, and each core counts all its threads;
    with ``--ntasks-per-core=1`` a task of more CPUs than a core holds takes whole cores of
    its own. Memory per CPU counts the cores' usable threads under ``--threads-per-core``
    and all their threads otherwise (real Slurm 22.05, datasets/realslurm/threads: ``-n 3``
    gets cpu=4 and mem 4 x DefMemPerCPU; ``-n 3 --hint=nomultithread`` cpu=6, mem 3 x;
    ``-n 3 --ntasks-per-core=1`` cpu=6, mem 6 x). On one thread per core, or under
    SelectTypeParameters=CR_CPU*, every CPU is allocated alone (``threads`` 1).
    """

    threads: int  # threads per core the job's nodes count as CPUs (1: CPUs allocated alone)
    usable: int  # of which the job may use
    per_task_cores: bool  # --ntasks-per-core=1 with more CPUs per task than usable threads
    cpus_per_task: int
    limited: bool  # usable set by --threads-per-core (memory then counts usable threads)

    @classmethod
    def of(cls, spec: JobSpec, cluster: Cluster, pool: _Pool, cpt: int) -> _CoreUse:
        threads = max(n.threads_per_core for n in pool.reps) if cluster.core_allocation else 1
        per_core, limit = spec.core_limits(one_task_per_core=cluster.one_task_per_core)
        usable = threads
        if per_core:
            usable = min(usable, per_core * cpt)
        if limit:
            usable = min(usable, limit)
        return cls(threads, usable, per_core == 1 and cpt > usable, cpt, bool(limit))

    def usable_cpus(self, node_cpus: int) -> int:
        """The CPUs of a node of ``node_cpus`` the job's tasks may use."""
        return node_cpus // self.threads * self.usable

    def allocated(self, cpus: int, tasks: int) -> tuple[int, int]:
        """(CPUs allocated, CPUs counted for memory per CPU) on a node where the job's
        tasks (``tasks`` of them) ask for ``cpus`` CPUs."""
        if self.threads == 1:
            return cpus, cpus
        cores = -(-cpus // self.usable)
        if self.per_task_cores:
            cores = max(cores, tasks * -(-self.cpus_per_task // self.usable))
        mem_threads = self.usable if self.limited else self.threads
        return cores * self.threads, cores * mem_threads


_MEM_GROUPS = (
    ("DefMemPerCPU", "DefMemPerNode"),
    ("DefMemPerGPU",),
    ("MaxMemPerCPU", "MaxMemPerNode"),
)


def _mem_settings(part: Partition, cluster: Cluster) -> dict[str, int | None]:
    """The memory defaults and limits of ``part`` in MB (None: not set, 0 or UNLIMITED).

    A partition's own DefMemPerCPU/DefMemPerNode replace both global ones, and likewise
    MaxMemPerCPU/MaxMemPerNode and DefMemPerGPU (slurm.conf(5)). Of DefMemPerCPU and
    DefMemPerNode both given (on the partition's line, or both global), DefMemPerNode holds:
    read_config.c reads it first, and ignores the other ("DefMemPerCPU ignored, since it's
    mutually exclusive with DefMemPerNode": ``_parse_partitionname`` and
    ``_validate_and_set_defaults``); likewise MaxMemPerNode over MaxMemPerCPU."""
    out: dict[str, int | None] = {}
    for group in _MEM_GROUPS:
        own = any(part.option(k) is not None for k in group)
        for key in group:
            raw = part.option(key) if own else cluster.setting(key)
            if key in ("DefMemPerCPU", "MaxMemPerCPU"):  # (the per-node one beside it holds)
                node_key = key.replace("CPU", "Node")
                per_node = part.option(node_key) if own else cluster.setting(node_key)
                raw = None if (per_node or "").strip() else raw
            text = (raw or "").strip().upper()
            if text in ("", "UNLIMITED", "INFINITE", "0"):
                out[key] = None
            elif _digits(text):
                out[key] = int(text)
            else:
                where = f"partition {part.name!r}" if own else "slurm.conf"
                raise RequestError(
                    f"{where}: {key}={raw!r} is not a whole number of MB; fix the cluster's "
                    "configuration"
                )
    return out


def _def_cpus_per_gpu(part: Partition, cluster: Cluster) -> int:
    """DefCpuPerGPU of ``part`` (its PartitionName= line's, else slurm.conf's global one; 0:
    none). select/cons_tres ``_set_gpu_defaults`` (cons_common/job_test.c) takes the
    partition's job_defaults_list first, then the global ``def_cpu_per_gpu``."""
    own = part.option("DefCpuPerGPU")
    raw = own if own is not None else cluster.setting("DefCpuPerGPU")
    text = (raw or "").strip()
    if not text:
        return 0
    if not _digits(text):
        where = f"partition {part.name!r}" if own is not None else "slurm.conf"
        raise RequestError(
            f"{where}: DefCpuPerGPU={raw!r} is not a whole number of CPUs; fix the cluster's "
            "configuration (e.g. DefCpuPerGPU=8)"
        )
    return int(text)


def _with_def_cpus_per_gpu(spec: JobSpec, part: Partition, cluster: Cluster) -> JobSpec:
    """``spec`` with DefCpuPerGPU as its ``--cpus-per-gpu`` where Slurm applies it: a job
    asking for GPUs (``--gpus``, ``--gpus-per-node``/``--gres=gpu``, ``--gpus-per-task``)
    with neither ``--cpus-per-gpu`` nor ``-c`` (cons_common/job_test.c ``_set_gpu_defaults``
    sets it only while ``orig_cpus_per_task`` is NO_VAL; gres_select_util.c
    ``gres_select_util_job_set_defs`` as def_cpus_per_gres, which the CPU counts use where
    ``cpus_per_gres`` is unset, and raises ``cpus_per_task`` to GPUs per task x it)."""
    if spec.cpus_per_gpu is not None or spec.cpus_per_task is not None:
        return spec
    if not (spec.gpus or spec.gpus_per_node or spec.gpus_per_task):
        return spec
    default = _def_cpus_per_gpu(part, cluster)
    return replace(spec, cpus_per_gpu=default) if default else spec


def _oversubscribe(part: Partition) -> str:
    """The partition's OverSubscribe (NO, EXCLUSIVE, YES[:N], FORCE[:N]); EXCLUSIVE gives
    every job whole nodes, as --exclusive does (slurm.conf(5))."""
    return str(part.option("OverSubscribe", "NO")).upper()


def spread_of(
    spec: JobSpec, res: Resources, cluster: Cluster
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(tasks, one task's (CPUs, MB, GPUs), what each node holds besides) for a job Slurm
    may spread over several nodes, else None (:attr:`PendingJob.spread`): ``-n`` of two
    tasks or more without ``-N``, ``--ntasks-per-node``, a node list, ``--exclusive`` or
    ``--mem-per-gpu``, whose CPUs are its tasks' (no whole cores rounded up), its memory
    per CPU, per node (``--mem``: held on each node) or none, its GPUs per node
    (``--gres=gpu:N``: on each node), per task (``--gpus-per-task``: with each task) or per
    job (``--gpus=M``: neither, dealt over its nodes with its ``PendingJob.gpus_per_job``),
    in a partition of two nodes or more that allows several; and ``--gpus=N`` alone
    (:func:`_gpus_spread`). slurmctld gives such a job min_nodes 1 and no maximum, and the
    select plugin as many nodes as hold its tasks and GPUs, at most one per task
    (:func:`spread_nodes`: ``-n 4 --gpus=3`` on a node with one free GPU and one with two
    takes both, real Slurm 22.05 in gpus-spread3)."""
    gpus = _gpus_spread(spec, res, cluster)
    if gpus is not None:
        return gpus
    if (
        spec.ntasks is None
        or spec.ntasks < 2
        or spec.nodes is not None
        or spec.ntasks_per_node is not None
        or spec.nodelist
        or spec.mem_per_gpu_mb is not None
        or (spec.gpus and (spec.gpus_per_node or spec.gpus_per_task or spec.cpus_per_gpu))
        or (spec.gpus_per_task and (spec.gpus_per_node or spec.cpus_per_gpu))
        or res.max_nodes is not None
        or res.whole_node
        or res.mem_whole_node
        or res.cpus_per_gpu
        or res.cpus_per_node != -(-res.ntasks // res.nodes) * res.cpus_per_task
    ):  # fmt: skip
        return None
    per_task_gpus = spec.gpus_per_task or 0  # (-n N --gpus-per-task=G: G GPUs go with each
    # task, as cons_tres spreads them: mix-14's -n 2 --gpus-per-task=1 on gpu[1,3], one free
    # GPU on each)
    per_cpu = per_node_mem = 0
    if res.mem_per_node_mb:
        if spec.mem_mb is not None:
            per_node_mem = res.mem_per_node_mb
        elif res.mem_per_cpu_mb and res.mem_per_node_mb == res.mem_per_cpu_mb * res.cpus_per_node:
            per_cpu = res.mem_per_cpu_mb
        else:
            return None
    part = cluster.partition(res.partition)
    if len(part.nodes) < 2 or (part.max_nodes is not None and part.max_nodes < 2):
        return None  # (one node: a trace's pool, too)
    task = np.array([res.cpus_per_task, per_cpu * res.cpus_per_task, per_task_gpus], dtype=np.int64)
    per_node_gpus = 0 if per_task_gpus or spec.gpus else res.gpus_per_node  # (--gpus=M:
    # GPUs per job, dealt over the nodes by spread_nodes)
    node = np.array([0, per_node_mem, per_node_gpus], dtype=np.int64)
    task.flags.writeable = node.flags.writeable = False
    return res.ntasks, task, node


def _gpus_spread(
    spec: JobSpec, res: Resources, cluster: Cluster
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """:func:`spread_of` for ``--gpus=N`` alone (no ``-N``, ``-n``, ``--ntasks-per-node``,
    node list, GPUs or CPUs per node, task or GPU, ``--mem-per-gpu``, ``--exclusive``): N
    "tasks" of one GPU, each node also holding the job's CPUs and memory per node. slurmctld
    gives such a job min_nodes 1 and no maximum, and select/cons_tres ``_eval_nodes`` adds
    nodes (by their GPU weight, :func:`~slurmlab.policies.placement.gpu_weights`) until
    ``gres_sched_test`` finds the GPUs held (real Slurm 22.05, mix-14: ``--gpus=3`` on gpu2's
    one free GPU and gpu4's two, NumCPUs=2)."""
    if (
        not spec.gpus
        or spec.ntasks is not None
        or spec.nodes is not None
        or spec.ntasks_per_node is not None
        or spec.nodelist
        or spec.gpus_per_node or spec.gpus_per_task or spec.cpus_per_gpu
        or spec.mem_per_gpu_mb is not None
        or res.max_nodes is not None
        or res.whole_node
        or res.mem_whole_node
        or res.mem_per_gpu_mb
        or res.cpus_per_gpu
    ):  # fmt: skip
        return None
    part = cluster.partition(res.partition)
    if len(part.nodes) < 2 or (part.max_nodes is not None and part.max_nodes < 2):
        return None
    cpn = res.cpus_per_task
    mem = (
        res.mem_per_cpu_mb * cpn
        if res.mem_per_cpu_mb
        else (res.mem_per_node_mb if spec.mem_mb is not None else 0)
    )
    task = np.array([0, 0, 1], dtype=np.int64)
    node = np.array([cpn, mem, 0], dtype=np.int64)
    task.flags.writeable = node.flags.writeable = False
    return spec.gpus, task, node


def _spread_pool(
    spec: JobSpec, cluster: Cluster, pool: _Pool, shape: Resources, cores: _CoreUse, need_mem: int
) -> _Pool | None:
    """The nodes of ``pool`` that hold at least one task of a job Slurm may spread over
    nodes (:func:`spread_of` of its ``shape``), when together they hold all its tasks; else
    None. Each node holds its usable CPUs' worth of tasks (and no more than its memory holds,
    memory per CPU or per node), as select/cons_tres ``_eval_nodes`` takes each node's
    available CPUs until the tasks are held (job_test.c): ``-n 30`` on nodes of 24 and 8
    CPUs runs on both, 24 + 6, where an even share (15 per node) fits one. Its nodes are
    the job's candidates, so that :func:`spread_nodes` may place it on any of them."""
    spread = spread_of(spec, shape, cluster)
    if spread is None:
        return None
    ntasks, task, node = spread
    tracked = cluster.memory_tracked

    def holds(n: Node) -> int:
        room = (
            cores.usable_cpus(n.cpus) - int(node[0]),
            (n.memory_mb if tracked else 0) - int(node[1]),
            n.gpus - int(node[2]),
        )
        if min(room) < 0 or (not tracked and n.memory_mb < need_mem):  # (the floor where
            return 0  # memory is not consumed; else the room above)
        return min(r // int(t) for r, t in zip(room, task, strict=True) if t > 0)

    held = pool.where(lambda n: holds(n) > 0)
    if sum(holds(rep) * len(g) for rep, g in zip(held.reps, held._groups, strict=True)) < ntasks:
        return None  # (counted per class of nodes alike)
    return held


def first_partition(names: str) -> str:
    """The first partition ``-p a,b`` names (empty names skipped, as strtok_r skips them)."""
    return next((n for n in names.split(",") if n), "")


def partition_names(spec: JobSpec, cluster: Cluster) -> list[str]:
    """The partitions ``-p a,b`` names, in the order slurmctld tries them: each once, by
    PriorityTier (highest first; equal tiers in the order given), as ``get_part_list`` and
    ``_select_nodes_parts`` (job_mgr.c) order a job's ``part_ptr_list``. A name that is no
    partition refuses the whole job, as slurmctld does ("invalid partition specified")."""
    names: list[str] = []
    for name in (spec.partition or "").split(","):
        if not name:  # (get_part_list: strtok_r on "," skips empty names, -p main,)
            continue
        if name != name.strip():  # (but keeps spaces: " gpu" is no partition)
            raise RequestError(
                f"-p {spec.partition!r}: invalid partition specified: {name!r} (spaces around "
                "a name): Invalid partition name specified; separate names with commas "
                "alone, e.g. -p train,spot"
            )
        if name not in names:
            names.append(name)
    for name in names:
        try:
            cluster.partition(name)
        except SlurmlabError:
            known = ", ".join(p.name for p in cluster.partitions)
            raise RequestError(
                f"-p {spec.partition}: invalid partition specified: {name} (this cluster has "
                f"{known}): Invalid partition name specified"
            ) from None
    tiers = {p.name: p.priority_tier for p in cluster.partitions}
    return sorted(names, key=lambda n: -tiers[n])  # (stable: equal tiers keep their order)


#: partition states that take no new jobs (slurm.conf(5): "no new jobs may be queued")
TAKES_NO_JOBS = ("DRAIN", "INACTIVE")


def listed_partitions(spec: JobSpec, cluster: Cluster) -> list[str]:
    """The job's partition list as slurmctld keeps it (``part_ptr_list``, what sprio lists):
    :func:`partition_names` without the DRAIN or INACTIVE ones, which ``_get_job_parts``
    drops (job_mgr.c ``_alt_part_test``: the partition takes no jobs)."""
    return [
        n for n in partition_names(spec, cluster) if cluster.partition(n).state not in TAKES_NO_JOBS
    ]


def resolve_all(
    spec: JobSpec, cluster: Cluster | str | Path, *, refused: list | None = None
) -> tuple[Resources, ...]:
    """The request resolved in each partition it may run in (``-p a,b``: one
    :class:`Resources` per partition, in the order slurmctld tries them; one for a single
    partition). A partition that could never run the job (too few nodes of its kind, a
    drained partition...) is left out with a warning naming why, as slurmctld passes it
    over ("non-runnable in partition"), or, given a ``refused`` list, with (partition,
    why) appended to it instead (:func:`never_runs_in` words it); when none could, the job
    is refused, with each partition's reason."""
    if not spec.partition or "," not in spec.partition:
        return (resolve(spec, cluster),)
    if not isinstance(cluster, Cluster):
        cluster = Cluster.coerce(cluster)
    if spec.reservation is not None:
        raise RequestError(
            f"-p {spec.partition} with --reservation={spec.reservation}: several partitions "
            "for a job in a reservation are not modelled; give one partition (the "
            "reservation's)"
        )
    out: list[Resources] = []
    dropped: list[tuple[str, str]] = []
    # without -t, the time limit is set once, from the first partition named (job_mgr.c
    # _valid_job_part: its DefaultTime); without one it stays unset, and each partition's
    # MaxTime applies where the job starts (node_scheduler.c select_nodes)
    first = cluster.partition(first_partition(spec.partition))
    for name in partition_names(spec, cluster):
        one = replace(spec, partition=name)
        if not spec.time_requested and name != first.name:
            limit = first.default_time or cluster.partition(name).max_time
            one = replace(one, time_limit=limit, time_requested=True)
        try:
            out.append(resolve(one, cluster))
        except RequestError as exc:
            dropped.append((name, str(exc)))
    if not out:
        why = "; ".join(f"in partition {n}: {e}" for n, e in dropped)
        raise RequestError(
            f"-p {spec.partition}: no partition can run the job ({why}); fix the request or "
            "name a partition that can run it"
        )
    if refused is not None:
        refused.extend(dropped)
    else:
        for name, error in dropped:
            _warn(never_runs_in(spec, name, error, out))
    return tuple(out)


def never_runs_in(spec: JobSpec, name: str, error: str, kept) -> str:
    """The warning for a partition of ``-p a,b`` that could never run the job."""
    return (
        f"-p {spec.partition}: the job can never run in partition {name} ({error}); it waits "
        f"in {', '.join(r.partition for r in kept)} only"
    )


def _partition_of(spec: JobSpec, cluster: Cluster) -> Partition:
    try:
        part = cluster.partition(spec.partition) if spec.partition else cluster.default_partition
    except RequestError:
        raise
    except SlurmlabError as exc:
        raise RequestError(str(exc)) from None
    if part.state in TAKES_NO_JOBS:
        raise RequestError(
            f"partition {part.name!r} is {part.state}: Required partition not available "
            "(inactive or drain); submit to another partition"
        )
    return part


def _node_class(node: Node) -> tuple:
    """What a request's shape is checked against on a node: nodes alike in these are alike
    to :func:`resolve` (their names, addresses, states and weights aside)."""
    return (node.cpus, node.memory_mb, node.gres, node.features, node.threads_per_core)


class _Pool(tuple):
    """Nodes a request may use, in partition order, grouped into classes of nodes alike to
    :func:`resolve` (:func:`_node_class`). A cluster of thousands of nodes has a handful of
    classes: a check of one node of a class (``reps``) answers for all of them, so resolving
    a request costs the same on 4,000 nodes as on 4 (it was linear in the nodes, per
    request: a replay of a large cluster's export resolves tens of thousands)."""

    reps: tuple[Node, ...]  # one node of each class, in order of first appearance
    _groups: tuple[tuple[int, ...], ...]  # each class's positions
    _subsets: dict[tuple[int, ...], _Pool]  # where(): the classes kept -> the pool
    _names: tuple[str, ...] | None

    def __new__(cls, nodes):
        self = super().__new__(cls, nodes)
        groups: dict[tuple, list[int]] = {}
        for i, node in enumerate(self):
            groups.setdefault(_node_class(node), []).append(i)
        self._groups = tuple(map(tuple, groups.values()))
        self.reps = tuple(self[g[0]] for g in self._groups)
        self._subsets, self._names = {}, None
        return self

    def where(self, test) -> _Pool:
        """The nodes of the classes whose nodes pass ``test`` (a test of one node's class:
        CPUs, memory, GRES, features, threads per core; never its name)."""
        keep = tuple(k for k, rep in enumerate(self.reps) if test(rep))
        if len(keep) == len(self.reps):
            return self
        hit = self._subsets.get(keep)
        if hit is None:
            hit = self._subsets[keep] = _Pool(
                self[i] for i in sorted(i for k in keep for i in self._groups[k])
            )
        return hit

    @property
    def names(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(n.name for n in self)
        return self._names


def _known(cluster: Cluster, what: str):
    """The cluster's GRES names (``"gres"``), node features (``"features"``) or node names
    (``"nodes"``), as a set computed once."""
    memo = cluster_facts(cluster)
    hit = memo.get(what)
    if hit is None:
        if what == "gres":
            hit = {g.name for n in cluster.nodes for g in n.gres}
        elif what == "features":
            hit = set().union(*(n.features for n in cluster.nodes))
        else:
            hit = {n.name for n in cluster.nodes}
        hit = memo[what] = frozenset(hit)
    return hit


def _partition_node_memory(cluster: Cluster, part: Partition) -> int:
    """The memory (MB) a request for each node's whole memory (``--mem=0``, or none and no
    DefMemPer*) counts per node before it runs: that of the partition's first node (job_mgr.c
    ``job_get_tres_mem``, ``_mem_per_node_part``: the first node of the partition's node
    bitmap), which sacct's ReqMem and ReqTRES keep. The first in slurmctld's node table,
    which is sorted by name (:attr:`Partition.nodes`): real Slurm showed ReqMem 125G
    (cpu1's) for ``--mem=0`` in a partition of gpu[1-4] (64000 MB, listed first in
    slurm.conf) and cpu[1-2] (datasets/realslurm/mem0-mixed)."""
    return cluster.node(part.nodes[0]).memory_mb


def _partition_cpus(cluster: Cluster, part: Partition) -> int:
    memo = cluster_facts(cluster)
    hit = memo.get(("cpus", part.name))
    if hit is None:
        hit = memo[("cpus", part.name)] = cluster.partition_cpus(part.name)
    return hit


def _eligible_nodes(spec: JobSpec, cluster: Cluster, part: Partition) -> _Pool:
    """:func:`_find_eligible_nodes`, kept per cluster for each partition and node filter;
    not for filters by node name (``-w``, ``-x``): an export replayed may name different
    nodes on every job, and a pool of thousands of nodes kept per list would hold hundreds
    of megabytes."""
    if spec.nodelist or spec.exclude:
        return _find_eligible_nodes(spec, cluster, part)
    key = (
        "pool",
        part.name,
        spec.constraint,
        spec.gpu_type,
        spec.other_gres,
        spec.threads_per_core,
    )
    memo = cluster_facts(cluster)
    pool = memo.get(key)
    if pool is None:
        pool = memo[key] = _find_eligible_nodes(spec, cluster, part)
    return pool


def _find_eligible_nodes(spec: JobSpec, cluster: Cluster, part: Partition) -> _Pool:
    """The nodes of ``part`` the request may use (--nodelist, --exclude, --constraint and the
    GPU type and the other GRES applied in turn); a filter that leaves none is named in the
    error. A name in --nodelist or --exclude that is no node of the cluster is refused, as
    slurmctld refuses it ("Invalid node name specified")."""
    unavailable = "Requested node configuration is not available"
    pool = [cluster.node(n) for n in part.nodes]
    known = _known(cluster, "nodes")
    for option, names in (("--nodelist", spec.nodelist), ("--exclude", spec.exclude)):
        unknown = [n for n in names if n not in known]
        if unknown:
            raise RequestError(
                f"{option}={compress_hostlist(names)!r}: {compress_hostlist(unknown)!r} is not "
                f"a node of cluster {cluster.name!r} ({compress_hostlist(known)}): Invalid node "
                f"name specified; name nodes of the cluster, e.g. {option}={cluster.nodes[0].name}"
            )
    if spec.nodelist:
        unknown = [n for n in spec.nodelist if n not in part.nodes]
        if unknown:
            raise RequestError(
                f"--nodelist={compress_hostlist(spec.nodelist)}: {compress_hostlist(unknown)} "
                f"not in partition {part.name!r}: {unavailable}"
            )
        both = [n for n in spec.nodelist if n in spec.exclude]
        if both:
            raise RequestError(
                f"--nodelist={compress_hostlist(spec.nodelist)} and --exclude="
                f"{compress_hostlist(spec.exclude)} both name {compress_hostlist(both)}: a node "
                "cannot be required and excluded (Invalid node name specified); drop it from one"
            )
        # -w: the job runs on exactly these nodes (Slurm: they must all be in the allocation)
        pool = [n for n in pool if n.name in spec.nodelist]
    if spec.exclude:
        pool = [n for n in pool if n.name not in spec.exclude]
        if not pool:
            raise RequestError(
                f"--exclude={compress_hostlist(spec.exclude)} leaves no node of partition "
                f"{part.name!r} ({compress_hostlist(part.nodes)}): {unavailable}"
            )
    if spec.constraint:
        _check_features(spec, cluster)
        kept = [n for n in pool if features_match(spec.constraint, n.features)]
        lacking = sorted({n.name for n in pool} - {n.name for n in kept})
        if spec.nodelist and lacking:
            raise RequestError(
                f"--nodelist names {compress_hostlist(lacking)}, without the features "
                f"--constraint={spec.constraint!r} asks for: {unavailable}"
            )
        if not kept:
            have = sorted(set().union(*(n.features for n in pool)))
            raise RequestError(
                f"no node of partition {part.name!r} has the features "
                f"--constraint={spec.constraint!r} asks for (its nodes have "
                f"{', '.join(have) or 'no features'}): {unavailable}"
            )
        pool = kept
    if spec.gpu_type and not any(_node_fits_type(n, spec) for n in pool):
        most = max((n.gpu_types.get(spec.gpu_type, 0) for n in pool), default=0)
        if most:  # (the type is there, not as many per node)
            raise RequestError(
                f"{spec.gpus_per_node} GPUs of type {spec.gpu_type!r} per node: no node of "
                f"partition {part.name!r} has so many (at most {most}): Requested node "
                f"configuration is not available; ask for {most} or fewer per node, on more "
                "nodes"
            )
        lost = _type_left_out_by(spec, cluster, part)
        if lost:  # (the partition has it; -w, -x or -C left it out)
            raise RequestError(f"GPU type {spec.gpu_type!r}: {lost}")
        have = sorted({t for n in pool for t in n.gpu_types})
        signed = re.fullmatch(r"[-+][0-9]+", spec.gpu_type)  # (gpu:-1: Slurm reads a type)
        raise RequestError(
            f"GPU type {spec.gpu_type!r} is not in partition {part.name!r} "
            f"(it has {', '.join(have) or 'no typed GPUs'}): Requested node configuration is "
            "not available"
            + (
                f"; {spec.gpu_type} after gpu: is read as a type, as Slurm reads it: a GPU "
                "count is a whole number of 0 or more (e.g. --gres=gpu:1)"
                if signed
                else ""
            )
        )
    pool = [n for n in pool if _node_fits_type(n, spec)]
    for gres in spec.other_gres:  # (their use by other jobs is not tracked: placement only)
        kept = [n for n in pool if _gres_count(n, gres) >= gres.count]
        if not kept:
            have = sorted({str(g) for n in pool for g in n.gres if g.name == gres.name})
            raise RequestError(
                f"--gres={gres}: no node of partition {part.name!r} has {gres} (its nodes have "
                f"{', '.join(have) or f'no {gres.name}'}): {unavailable}"
            )
        pool = kept
    if spec.threads_per_core:  # (-B's threads: nodes with fewer threads per core are not used)
        kept = [n for n in pool if n.threads_per_core >= spec.threads_per_core]
        if not kept:
            most = max(n.threads_per_core for n in pool)
            raise RequestError(
                f"--threads-per-core={spec.threads_per_core}: no node of partition "
                f"{part.name!r} has {spec.threads_per_core} threads per core (at most {most}): "
                f"{unavailable}; ask --threads-per-core={most} or leave it out"
            )
        pool = kept
    return _Pool(pool)


def _type_left_out_by(spec: JobSpec, cluster: Cluster, part: Partition) -> str | None:
    """Why no node of ``part`` with the GPUs of the type the request asks for is left to it,
    when the partition has such nodes: the option (``--nodelist``, ``--exclude``,
    ``--constraint``, applied in turn) that leaves them all out; else None."""
    pool = [n for n in (cluster.node(name) for name in part.nodes) if _node_fits_type(n, spec)]
    if not pool:
        return None
    having = f"{compress_hostlist([n.name for n in pool])}, and"
    them = "that node" if len(pool) == 1 else "those nodes"
    filters = []
    if spec.nodelist:
        filters.append(("--nodelist", spec.nodelist, lambda n: n.name in spec.nodelist))
    if spec.exclude:
        filters.append(("--exclude", spec.exclude, lambda n: n.name not in spec.exclude))
    if spec.constraint:
        filters.append(
            ("--constraint", None, lambda n: features_match(spec.constraint, n.features))
        )
    for option, names, test in filters:
        pool = [n for n in pool if test(n)]
        if not pool:
            given = f"{option}={compress_hostlist(names) if names else repr(spec.constraint)}"
            fix = "name a node with it" if option == "--nodelist" else f"drop {option}"
            return (
                f"partition {part.name!r} has it on {having} {given} leaves out {them}: "
                f"Requested node configuration is not available; {fix}, or ask for another "
                "GPU type"
            )
    return None


def _check_mem_per_gpu(spec: JobSpec) -> None:
    """``--mem-per-gpu`` needs a GPU request, even with --exclusive (gres.c
    ``gres_job_state_validate``): slurmctld refuses the job, and sbatch says "Invalid
    generic resource (gres) specification"."""
    if spec.mem_per_gpu_mb is None or spec.gpus_per_node or spec.gpus or spec.gpus_per_task:
        return
    raise RequestError(
        f"--mem-per-gpu={spec.mem_per_gpu_mb}M: Requested mem_per_tres=gres:gpu:"
        f"{spec.mem_per_gpu_mb} but did not request any GPU: Invalid generic resource (gres) "
        "specification; ask for GPUs (e.g. --gpus-per-node=1), or give the memory with --mem "
        "or --mem-per-cpu"
    )


def _constraint_names(tree: _ConstraintTree) -> list[str]:
    """The feature names of a ``--constraint`` expression, in order."""
    if isinstance(tree, str):
        return [tree]
    return _constraint_names(tree[1]) + _constraint_names(tree[2])


def _check_features(spec: JobSpec, cluster: Cluster) -> None:
    """Each feature ``--constraint`` names must be a feature of some node of the cluster
    (job_scheduler.c ``_valid_node_feature``), whatever the operators: slurmctld refuses the
    job with "Invalid feature specification"."""
    have = _known(cluster, "features")
    unknown = [f for f in _constraint_names(_parse_constraint(spec.constraint)) if f not in have]
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(have), n=1)
        hint = f"did you mean {close[0]}?" if close else "name features its nodes have"
        raise RequestError(
            f"--constraint={spec.constraint!r}: {', '.join(map(repr, unknown))} is a feature of "
            f"no node of cluster {cluster.name!r} (its nodes have "
            f"{', '.join(sorted(have)) or 'no features'}): Invalid feature specification; {hint}"
        )


def _gres_names(cluster: Cluster) -> set[str]:
    """The generic resources the cluster knows: GresTypes and every node's Gres."""
    names = _known(cluster, "gres")
    return names | {t.strip() for t in (cluster.setting("GresTypes") or "").split(",") if t.strip()}


def _check_gres_names(spec: JobSpec, cluster: Cluster) -> None:
    """A --gres name the cluster does not know is refused, as slurmctld refuses it
    (``ESLURM_INVALID_GRES``), never dropped."""
    known = _gres_names(cluster)
    for gres in spec.other_gres:
        if gres.name not in known:
            close = difflib.get_close_matches(gres.name, sorted(known), n=1)
            hint = f"did you mean {close[0]}?" if close else "remove it"
            raise RequestError(
                f"--gres={gres}: {gres.name!r} is not a generic resource of cluster "
                f"{cluster.name!r} (GresTypes: {', '.join(sorted(known)) or 'none'}): Invalid "
                f"generic resource (gres) specification; {hint}"
            )


def _gres_count(node: Node, gres: Gres) -> int:
    """How many of ``gres`` (its name, and its type when it has one) the node has."""
    return sum(
        g.count
        for g in node.gres
        if g.name == gres.name and (gres.type is None or g.type == gres.type)
    )


def _as_options(partitions: list[str]) -> str:
    """``-p train`` or ``-p train, -p big``: partitions named as the option that picks them."""
    return ", ".join(f"-p {name}" for name in partitions)


def _pool_size(pool: list[Node], part: Partition) -> str:
    """``4 nodes``, or ``2 nodes the request may use (of 4)`` when -w/-x/-C/a type narrowed it."""
    if len(pool) == len(part.nodes):
        return f"{len(pool)} node{'s' * (len(pool) != 1)}"
    return f"{len(pool)} node{'s' * (len(pool) != 1)} the request may use (of {len(part.nodes)})"


def _node_fits_type(node: Node, spec: JobSpec) -> bool:
    """Whether the node has the job's GPU type, as many of it as the job asks per node
    (``--gres=gpu:a100:5`` fits no node of 4 A100s, whatever other GPUs it has)."""
    if spec.gpu_type:
        return node.gpu_types.get(spec.gpu_type, 0) >= max(1, spec.gpus_per_node or 0)
    return True


def resolve(spec: JobSpec, cluster: Cluster | str | Path) -> Resources:
    """The per-node shape Slurm allocates to ``spec`` in ``cluster`` (:meth:`JobSpec.resources`;
    a preset name or a slurm.conf path is read as :func:`slurmlab.simulate` reads it)."""
    if not isinstance(cluster, Cluster):
        if not isinstance(cluster, str | os.PathLike):
            raise SlurmlabError(
                f"cluster {cluster!r} is not a cluster; give a slurmlab.Cluster, a preset name "
                "(Cluster.preset names them) or a slurm.conf path"
            )
        cluster = Cluster.coerce(cluster)
    if not isinstance(spec, JobSpec):
        raise SlurmlabError(
            f"resolve: {spec!r} is not a JobSpec; build one with JobSpec.from_args('-N 2 -t 30')"
        )
    if spec.partition and "," in spec.partition:  # several partitions: the first that can
        return resolve_all(spec, cluster, refused=[])[0]  # run it (the engine keeps them
        # all, and warns about the others naming the job)
    _check_mem_per_gpu(spec)
    _check_submitted(spec)
    _check_gres_names(spec, cluster)
    _check_array_size(spec, cluster)
    part = _partition_of(spec, cluster)
    pool = _eligible_nodes(spec, cluster, part)
    spec = _with_def_cpus_per_gpu(spec, part, cluster)
    counts = _counts(spec)
    if counts.warning:
        _warn(counts.warning)  # sbatch's own words
    limits = _mem_settings(part, cluster)
    tracked = cluster.memory_tracked
    cpt, per_cpu_asked = counts.cpus_per_task, spec.mem_per_cpu_mb
    max_per_cpu = limits["MaxMemPerCPU"]
    if tracked and per_cpu_asked and max_per_cpu and per_cpu_asked > max_per_cpu:
        # sbatch(1) --mem-per-cpu: above MaxMemPerCPU it becomes a limit per task; the CPUs
        # per task grow and --mem-per-cpu shrinks so that their product is what was asked
        ratio = math.ceil(per_cpu_asked / max_per_cpu)
        cpt *= ratio
        per_cpu_asked = math.ceil(per_cpu_asked / ratio)
    cores = _CoreUse.of(spec, cluster, pool, cpt)
    max_cpus = cores.usable_cpus(max(n.cpus for n in pool.reps))  # (CPUs its tasks may use)
    max_gpus = max(n.gpus for n in pool.reps)

    # nodes and tasks
    nodes, ntasks, per_node = counts.nodes, counts.ntasks, counts.ntasks_per_node
    if (
        counts.nodes_from == "-N"
        and spec.max_nodes is not None
        and ntasks
        and per_node
        and nodes < math.ceil(ntasks / per_node) <= spec.max_nodes
    ):  # -N MIN-MAX: MIN rises to hold the tasks (cons_common job_test.c, real Slurm 22.05:
        nodes = math.ceil(ntasks / per_node)  # -N 1-3 -n 6 --ntasks-per-node=2 on 3 nodes)
    elif counts.nodes_from == "-N" and spec.max_nodes is not None and ntasks and per_node is None:
        # -N 1-4 -n 200 on nodes of 128 CPUs: Slurm spreads the tasks over up to MAX nodes;
        # slurmlab's one shape per node needs at least the fewest nodes that enough of the
        # partition's nodes hold (by CPUs, and by memory when it is given per CPU)
        per_cpu_mem = per_cpu_asked
        if per_cpu_mem is None and spec.mem_mb is None and spec.mem_per_gpu_mb is None:
            per_cpu_mem = 0 if spec.gpus_per_node or spec.gpus else limits["DefMemPerCPU"]
        per_cpu_mem = per_cpu_mem if tracked else 0
        fits = [  # the tasks each node holds
            min(
                cores.usable_cpus(n.cpus) // cpt,
                n.memory_mb // (per_cpu_mem * cpt) if per_cpu_mem else ntasks,
            )
            for n in pool
        ]
        nodes = next(  # (none: MAX, and the error names its shape)
            (
                k
                for k in range(nodes, spec.max_nodes + 1)
                if sum(f >= math.ceil(ntasks / k) for f in fits) >= k
            ),
            spec.max_nodes,
        )
    if spec.nodelist:
        listed = compress_hostlist(spec.nodelist)
        if counts.nodes_from == "--gpus" and nodes < len(spec.nodelist):
            raise RequestError(
                f"--gpus={spec.gpus} with {_gpn_flag(spec)} makes {nodes} nodes but "
                f"--nodelist={listed} names {len(spec.nodelist)}: Node count specification "
                "invalid"
            )
        if nodes > len(spec.nodelist):
            needs = (
                f"--nodes={spec.nodes}"
                if counts.nodes_from == "-N"
                else f"{_gpn_flag(spec)} --gpus={spec.gpus} needs {nodes}"
            )
            raise RequestError(
                f"--nodelist={listed} names {len(spec.nodelist)} node{'s' * (len(spec.nodelist) != 1)} "
                f"but {needs}: list "
                "every node the job should get (topping up a node list with other nodes is "
                "not modelled)"
            )
        if spec.max_nodes is not None and len(spec.nodelist) < spec.max_nodes:
            _warn(
                f"--nodes={spec.nodes}-{spec.max_nodes} with --nodelist={listed}: slurmlab "
                f"gives the job the {len(spec.nodelist)} listed node"
                f"{'s' * (len(spec.nodelist) != 1)}; Slurm adds other free nodes up to "
                f"{spec.max_nodes} (topping up a node list is not modelled); list every node "
                "the job should get"
            )
    # how the node count was found, for the errors: "--gpus=9 needs 5 nodes of 2 GPUs"
    if spec.ntasks is not None or ntasks is None:
        tasks_said = f"-n {ntasks}"
    else:  # (the tasks --gpus / --gpus-per-task make)
        tasks_said = f"--gpus={spec.gpus} --gpus-per-task={spec.gpus_per_task} ({ntasks} tasks)"
    if counts.nodes_from == "-N":
        wanted = f"--nodes={spec.nodes}" + (f"-{spec.max_nodes}" if spec.max_nodes else "")
        lowered = f"{wanted} with {tasks_said} asks for {nodes} nodes"
        derived = wanted if nodes == spec.nodes else lowered
    elif counts.nodes_from == "--gpus":
        derived = f"--gpus={spec.gpus} with {_gpn_flag(spec)} needs {nodes} nodes"
    elif counts.nodes_from == "--nodelist":
        derived = (
            f"--nodelist={compress_hostlist(spec.nodelist)} names {nodes} node{'s' * (nodes != 1)}"
        )
    elif ntasks and per_node:
        nodes = math.ceil(ntasks / per_node)
        given = (
            f"--ntasks-per-node={per_node}"
            if spec.ntasks_per_node is not None
            else f"{_gpn_flag(spec)} --gpus-per-task={spec.gpus_per_task} ({per_node} per node)"
        )
        derived = f"{tasks_said} with {given} needs {nodes} nodes"
    elif ntasks and spec.gpus_per_task and max_gpus:
        fit = max(1, min(max_gpus // spec.gpus_per_task, max_cpus // cpt))
        nodes = math.ceil(ntasks / fit)
        per_task = "" if spec.ntasks is None else f" with --gpus-per-task={spec.gpus_per_task}"
        derived = (
            f"{tasks_said}{per_task} needs {nodes} nodes ({fit} tasks fit on a node of "
            f"{max_gpus} GPUs and {max_cpus} CPUs)"
        )
    elif spec.gpus and max_gpus:
        nodes = math.ceil(spec.gpus / max_gpus)
        derived = f"--gpus={spec.gpus} needs {nodes} nodes of {max_gpus} GPUs"
        fit = max(1, max_cpus // cpt)
        if ntasks and math.ceil(ntasks / fit) > nodes:  # (-n N --gpus=M: its tasks' CPUs too)
            nodes = math.ceil(ntasks / fit)
            derived = (
                f"{tasks_said} --gpus={spec.gpus} needs {nodes} nodes ({fit} tasks of {cpt} "
                f"CPU{'s' * (cpt > 1)} fit on a node of {max_cpus} CPUs)"
            )
    elif ntasks:
        fit = max(1, max_cpus // cpt)
        nodes = math.ceil(ntasks / fit)
        derived = (
            f"{tasks_said} needs {nodes} nodes ({fit} tasks of {cpt} CPU{'s' * (cpt > 1)} fit "
            f"on a node of {max_cpus} CPUs)"
        )
    else:
        nodes, derived = 1, "one node"
    enforce = (cluster.setting("EnforcePartLimits", "NO") or "NO").strip().upper()
    part_limit = None  # more CPUs or nodes than the partition has: it pends for ever
    if enforce == "NO" and nodes <= MAX_PENDING_NODES:
        # like any partition limit under EnforcePartLimits=NO. Real Slurm 22.05 tests the
        # CPUs first (min_cpus against the partition's total, with or without -N): -n 100,
        # -N 2 -c 64, -N 7 -c 64, -N 2 --ntasks-per-node=40 on a 2-node partition of 64 CPUs
        # pend with PartitionConfig, -N 7 and -N 3 --exclusive with PartitionNodeLimit; such
        # a job pends without its per-node shape being checked (-N 2 -c 64 on 32-CPU nodes).
        # Only a node count asked for (-N, --gpus with GPUs per node) pends for its size:
        # one slurmlab derives (-n 30 --ntasks-per-node=10, --gpus=20 alone) is refused
        tasks = ntasks if ntasks is not None else (per_node or 1) * nodes
        if tasks * cpt > _partition_cpus(cluster, part):
            part_limit = "PartitionConfig"
        elif nodes > len(part.nodes) and counts.nodes_from in ("-N", "--gpus"):
            part_limit = "PartitionNodeLimit"
    if nodes > len(pool) and part_limit is None:  # (before anything is sized by the count)
        bigger = [p.name for p in cluster.partitions if len(p.nodes) >= nodes and p is not part]
        most = f"{len(pool)} node{'s' * (len(pool) != 1)}"
        fix = (
            f"; ask for at most {most}"
            if derived.startswith("--nodes")
            else f"; ask for what fits on {most}"
        )
        fix += f", or another partition ({_as_options(bigger)})" if bigger else ""
        raise RequestError(
            f"{derived}; partition {part.name!r} has {_pool_size(pool, part)}: Requested node "
            f"configuration is not available{fix}"
        )
    if ntasks is None:
        ntasks = per_node * nodes if per_node is not None else nodes
    if ntasks < nodes:
        why = {"--nodelist": "every node --nodelist names", "--gpus": "--gpus / GPUs per node"}
        raise RequestError(
            f"-n {ntasks} tasks on {nodes} nodes ({why.get(counts.nodes_from, '-N')}) "
            "leaves nodes without a task; ask for at least one task per node"
        )
    base, extra = divmod(ntasks, nodes)
    tasks_per_node = tuple(base + (1 if i < extra else 0) for i in range(nodes))
    if per_node is not None and max(tasks_per_node) > per_node:
        given = (
            f"--ntasks-per-node={per_node}"
            if spec.ntasks_per_node is not None
            else f"{_gpn_flag(spec)} --gpus-per-task={spec.gpus_per_task} ({per_node} per node)"
        )
        raise RequestError(
            f"{tasks_said} with {given} needs at least {math.ceil(ntasks / per_node)} nodes, "
            f"not {nodes}"
        )

    # GPUs and CPUs per node
    dealt = 0  # (-N k --gpus=M: M GPUs dealt over the nodes, Resources.gpus_per_job)
    if spec.gpus_per_node:
        gpn = spec.gpus_per_node
    elif spec.gpus:
        if spec.gpus < nodes:
            raise RequestError(
                f"--gpus={spec.gpus} on {nodes} nodes: every node of the allocation needs at "
                "least one GPU"
            )
        gpn = math.ceil(spec.gpus / nodes)
        if _deals_gpus(spec, counts, nodes, part, limits, per_cpu_asked, tracked):
            gpn, dealt = 1, spec.gpus
        elif gpn * nodes != spec.gpus:
            _warn_gpus_rounded(spec, nodes, gpn)
    else:
        gpn = 0
    if spec.gpus_per_task:
        gpn = max(gpn, spec.gpus_per_task * max(tasks_per_node))
    cpn = max(tasks_per_node) * cpt
    if spec.cpus_per_gpu and gpn:
        cpn = max(cpn, spec.cpus_per_gpu * gpn)
    # whole cores, and the CPUs that count for memory per CPU
    cpn, mem_cpus = cores.allocated(cpn, max(tasks_per_node))

    # memory per node: the request, else the partition's defaults, else the global ones
    per_cpu = per_gpu = 0
    if spec.mem_mb is not None:
        mem = spec.mem_mb  # 0 means all the node's memory
    elif per_cpu_asked is not None:
        per_cpu = per_cpu_asked
        mem = per_cpu * mem_cpus
    elif spec.mem_per_gpu_mb is not None:
        per_gpu = spec.mem_per_gpu_mb
        mem = per_gpu * max(gpn, 1)
    elif gpn and limits["DefMemPerGPU"]:
        per_gpu = limits["DefMemPerGPU"]
        mem = per_gpu * gpn
    elif limits["DefMemPerCPU"]:
        per_cpu = limits["DefMemPerCPU"]
        mem = per_cpu * mem_cpus
    else:
        mem = limits["DefMemPerNode"] or 0  # none: the whole memory of each node
    asked = mem
    # the memory a node must have: where memory is no consumable resource too, a node with
    # less than the job asks is none of its nodes (node_scheduler.c _build_node_list tests
    # pn_min_memory <= RealMemory whatever SelectTypeParameters says: a --mem-per-cpu value
    # alone, a --mem per node; "Memory specification can not be satisfied")
    need_mem = mem if tracked else per_cpu or (0 if per_gpu else mem)
    per_cpu_floor = not tracked and bool(per_cpu)  # (need_mem is per CPU then)
    if not tracked:  # memory is no consumable resource: none is allocated, but sacct's
        mem = per_cpu = per_gpu = 0  # ReqMem and ReqTRES still report the request (asked)
    if tracked and mem and not (per_cpu or per_gpu) and max_per_cpu and mem > max_per_cpu * cpn:
        # a memory per node above MaxMemPerCPU x its CPUs gets more CPUs, as a per-CPU
        # request does (job_mgr.c _valid_pn_min_mem), rather than pending for ever
        cpn = cores.allocated(math.ceil(mem / max_per_cpu), max(tasks_per_node))[0]
    limit_reason = _mem_limit_reason(spec, cluster, part, limits, mem, per_cpu, per_gpu)

    # --exclusive takes every CPU of a node, and --mem-per-cpu then counts them all
    exclusive_per_cpu = per_cpu if spec.exclusive and spec.mem_per_cpu_mb else 0

    def fits(n: Node) -> bool:
        return (
            n.cpus >= cpn
            and n.gpus >= gpn
            and n.memory_mb >= need_mem
            and exclusive_per_cpu * n.cpus <= n.memory_mb
        )

    fitting = pool.where(fits)
    if dealt and not part_limit and len(fitting) >= nodes:  # (else as any request below)
        _check_dealt_gpus(spec, fitting, nodes, part)
    shape = Resources(  # (what spread_of tests: whether the job may spread over nodes)
        part.name, nodes, ntasks, tasks_per_node, cpt, cpn, mem, gpn, None, None,
        whole_node=spec.exclusive or _oversubscribe(part) == "EXCLUSIVE",
        mem_per_cpu_mb=per_cpu, mem_whole_node=mem == 0 and tracked,
    )  # fmt: skip
    spread = _spread_pool(spec, cluster, pool, shape, cores, need_mem)
    if spread is not None:  # -n without -N: every node that holds one of its tasks
        fitting = spread
    if len(fitting) < nodes and not part_limit:  # (pending for ever: no sizes are checked)
        why = []
        tasks_here = max(tasks_per_node)
        cpu_unmet = not any(n.cpus >= cpn for n in pool)
        mem_unmet = not any(n.memory_mb >= need_mem for n in pool)
        if cpu_unmet:
            how = f"{tasks_here} tasks of {cpt} CPU{'s' * (cpt > 1)}, " if tasks_here > 1 else ""
            why.append(f"{cpn} CPUs per node ({how}largest node has {max_cpus})")
        if not any(n.gpus >= gpn for n in pool):
            why.append(f"{gpn} GPUs per node (largest node has {max_gpus})")
        if mem_unmet and per_cpu_floor:
            biggest = max(n.memory_mb for n in pool)
            why.append(f"{need_mem} MB per CPU (largest node has {biggest} MB)")
        elif mem_unmet:
            how = f"{cpn} CPUs x {per_cpu} MB, " if per_cpu else ""
            how = f"{gpn} GPUs x {per_gpu} MB, " if per_gpu and gpn > 1 else how
            biggest = max(n.memory_mb for n in pool)
            why.append(f"{need_mem} MB per node ({how}largest node has {biggest} MB)")
        if exclusive_per_cpu and not any(exclusive_per_cpu * n.cpus <= n.memory_mb for n in pool):
            why.append(
                f"--mem-per-cpu={exclusive_per_cpu}M for each of a node's CPUs, which "
                "--exclusive allocates (more than the memory of any node)"
            )
        if not why:  # each size fits some node, but not enough nodes hold them all
            per = " per CPU" if per_cpu_floor else ""
            sizes = [f"{cpn} CPU{'s' * (cpn > 1)}"] + [f"{need_mem} MB{per}"] * bool(need_mem)
            sizes += [f"{gpn} GPU{'s' * (gpn > 1)}"] * bool(gpn)
            raise RequestError(
                f"{derived}; only {len(fitting)} node{'s' * (len(fitting) != 1)} of partition "
                f"{part.name!r} can hold {' and '.join(sizes)}: Requested node configuration is "
                "not available"
            )
        hint = ""
        wider = math.ceil(gpn * nodes / max_gpus) if max_gpus else 0
        elsewhere = [
            p.name
            for p in cluster.partitions
            if p is not part and sum(fits(cluster.node(n)) for n in p.nodes) >= nodes
        ]
        if gpn > max_gpus and max_gpus and not spec.gpus_per_task and wider <= len(pool):
            per = (
                f"--gpus-per-node={max_gpus}"
                if spec.gpus_per_node_option == "gpus-per-node"
                else f"--gres=gpu:{max_gpus}"
            )  # (the option the request used; the total said, when it is more than asked)
            total = wider * max_gpus
            more = f" ({total} GPUs)" if total != gpn * nodes else ""
            hint = f"; use --nodes={wider} {per}{more}"
        elif exclusive_per_cpu:
            hint = "; ask --mem instead, or a smaller --mem-per-cpu"
        elif elsewhere:
            hint = f"; partitions whose nodes can hold it: {_as_options(elsewhere)}"
        elif mem_unmet or cpu_unmet:  # (no partition has nodes that big: what one holds)
            biggest = max(n.memory_mb for n in pool)
            asks = [f"-c {max_cpus // max(tasks_here, 1)}"] * (cpu_unmet and max_cpus >= tasks_here)
            if mem_unmet and spec.mem_mb:  # (memory the user asked for, not a default)
                asks.append(f"--mem={format_memory_mb(biggest)}")
            elif mem_unmet and spec.mem_per_cpu_mb and not cpu_unmet:
                asks.append(f"--mem-per-cpu={biggest // (1 if per_cpu_floor else cpn)}M")
            if asks:
                hint = f"; the most its nodes hold: {' and '.join(asks)}"
        subject = f"job {spec.name!r}" if spec.name else "the job"  # (never an invented name)
        # sbatch's first error line names what cannot be met (real Slurm 22.05)
        first = [
            line
            for line, unmet in (
                ("CPU count per node can not be satisfied", cpu_unmet),
                ("Memory specification can not be satisfied", mem_unmet),
            )
            if unmet
        ]
        raise RequestError(
            "".join(f"{line}; " for line in first)
            + f"{subject} needs {' and '.join(why)} in partition {part.name!r}: "
            f"Requested node configuration is not available{hint}"
        )
    if enforce in ("ALL", "ANY", "YES"):  # slurm.conf(5): refuse at submission, not pend
        _enforce_part_limits(spec, part, nodes, enforce)
    most = None
    if (
        spec.max_nodes is not None
        and spec.max_nodes > spec.nodes
        and counts.nodes_from == "-N"
        and not any(k == "use-min-nodes" for k, _ in spec.other)
    ):
        most = _most_nodes(spec, counts, part, nodes)
    whole_memory = mem == 0 and tracked
    if whole_memory:  # (the least it gets: each node gives it its own, Resources.allocated)
        mem = min((n.memory_mb for n in fitting.reps), default=0)
    # (real Slurm 22.05, CR_Core and no default: ReqMem is each node's memory, --mem=0 too)
    requested = asked if asked and not tracked else 0
    if not asked:
        requested = _partition_node_memory(cluster, part)
    time_limit = spec.time_limit if spec.time_requested else part.time_limit_default
    if spec.time_min is not None:
        _check_time_min(spec, part, time_limit)
    gpu_type = spec.gpu_type
    if gpu_type is None and gpn:
        # an untyped request on nodes of one GPU type gets that type (sacct's gres/gpu:h100)
        types = {n.gpu_type for n in fitting.reps}
        gpu_type = types.pop() if len(types) == 1 else None
    return Resources(
        partition=part.name,
        nodes=nodes,
        ntasks=ntasks,
        tasks_per_node=tasks_per_node,
        cpus_per_task=cpt,
        cpus_per_node=cpn,
        mem_per_node_mb=mem,
        gpus_per_node=gpn,
        gpu_type=gpu_type,
        time_limit=time_limit,
        whole_node=spec.exclusive or _oversubscribe(part) == "EXCLUSIVE",
        features=spec.constraint,
        candidates=fitting.names,
        mem_per_cpu_mb=per_cpu,
        mem_per_gpu_mb=per_gpu,
        mem_whole_node=whole_memory,
        req_mem_mb=requested,
        gpus_per_job=dealt,
        cpus_per_gpu=spec.cpus_per_gpu or 0,
        limit_reason=part_limit or limit_reason,
        req_nodes=nodes if counts.nodes_from else None,
        req_cpus=(
            counts.ntasks
            if counts.ntasks is not None
            else (counts.ntasks_per_node or 1) * (nodes if counts.nodes_from else 1)
        )
        * counts.cpus_per_task,
        max_nodes=most,
    )


def _check_array_size(spec: JobSpec, cluster: Cluster) -> None:
    """``--array`` indices below the cluster's MaxArraySize (slurm.conf; 1001 by default,
    0 turns arrays off), as slurmctld checks them at submission (job_mgr.c
    ``_valid_array_inx``: "Invalid job array specification")."""
    if spec.array is None or not spec.array.indices:
        return
    raw = cluster.setting("MaxArraySize", str(MAX_ARRAY_SIZE))
    size = int(raw) if str(raw).strip().isdigit() else MAX_ARRAY_SIZE
    top = max(spec.array.indices)
    if top >= size:
        said = "MaxArraySize=0 turns job arrays off" if size == 0 else f"indices 0..{size - 1}"
        raise RequestError(
            f"--array={spec.array}: index {top} exceeds MaxArraySize={size} of cluster "
            f"{cluster.name!r} ({said}): Invalid job array specification; use indices "
            "below it, or raise MaxArraySize in the cluster's slurm.conf"
        )


def _deals_gpus(
    spec: JobSpec, counts, nodes: int, part: Partition, limits, per_cpu_asked, tracked: bool
) -> bool:
    """Whether ``--gpus=M`` on the ``-N k`` nodes (k > 1) is dealt over them as Slurm deals
    it, unevenly (:attr:`Resources.gpus_per_job`): gres_select_filter.c ``_set_job_bits1``
    gives each node, in node order, what it has up to the GPUs left less one for each node
    after it (real Slurm 22.05, ``gpus-per-job``: ``-N 2 --gpus=5`` 4 + 1, ``--gpus=4`` 3 +
    1 on idle 4-GPU nodes). Not where a node's CPUs or memory follow its GPUs
    (``--cpus-per-gpu`` or DefCpuPerGPU, ``--mem-per-gpu`` or DefMemPerGPU) or its own
    memory (``--mem=0``, or no memory asked for and no default), nor for whole nodes
    (``--exclusive``, OverSubscribe=EXCLUSIVE), ``--gpus-per-task``, ``-N MIN-MAX`` or a
    node list: slurmlab gives those the same GPUs on every node (:func:`_warn_gpus_rounded`)."""
    default_mem = limits["DefMemPerCPU"] or limits["DefMemPerNode"]
    if spec.mem_mb is not None:
        mem_ok = spec.mem_mb != 0 or not tracked
    else:
        per_gpu = per_cpu_asked is None and limits["DefMemPerGPU"]
        mem_ok = not per_gpu and (per_cpu_asked is not None or default_mem or not tracked)
    return (
        counts.nodes_from == "-N"
        and nodes > 1
        and spec.max_nodes is None
        and not (spec.gpus_per_task or spec.cpus_per_gpu or spec.exclusive or spec.nodelist)
        and spec.mem_per_gpu_mb is None
        and _oversubscribe(part) != "EXCLUSIVE"
        and bool(mem_ok)
    )


def _check_dealt_gpus(spec: JobSpec, fitting: _Pool, nodes: int, part: Partition) -> None:
    """``-N k --gpus=M`` dealt over k nodes: the k nodes of the partition with the most GPUs
    must hold M (cons_tres ``_eval_nodes`` stops at max_nodes k; ``gres_sched_test``),
    else the request is refused ("Requested node configuration is not available")."""
    sizes = sorted((min(n.gpus, spec.gpus) for n in fitting), reverse=True)
    if sum(sizes[:nodes]) < spec.gpus:
        raise RequestError(
            f"--gpus={spec.gpus} on --nodes={nodes}: the {nodes} nodes of partition "
            f"{part.name!r} with the most GPUs hold {sum(sizes[:nodes])}: Requested node "
            f"configuration is not available; ask more nodes, or --gpus={sum(sizes[:nodes])}"
        )


def _warn_gpus_rounded(spec: JobSpec, nodes: int, gpn: int) -> None:
    """``--gpus=N`` that does not divide over the nodes: slurmlab gives every node the same
    shape, so it holds more GPUs than asked; Slurm holds N, split unevenly."""
    t = f"{spec.gpu_type}:" if spec.gpu_type else ""
    _warn(
        f"--gpus={t}{spec.gpus} on {nodes} nodes: slurmlab holds the same {gpn} GPUs on every "
        f"node ({gpn * nodes} GPUs, {gpn * nodes - spec.gpus} more than asked), where Slurm "
        f"holds {spec.gpus}, split unevenly over the nodes; ask --gpus={t}{gpn * nodes} (or "
        f"--gpus-per-node={t}{gpn}) to simulate what is held, or a count that {nodes} nodes "
        "share evenly"
    )


def _most_nodes(spec: JobSpec, counts: _TaskCounts, part: Partition, nodes: int) -> int | None:
    """``-N MIN-MAX``: the most nodes the job takes (slurmctld's req_nodes: MAX, at most the
    partition's MaxNodes, node_scheduler.c ``get_node_cnts``), or None when it takes MIN.

    A request of GPUs per job (``--gpus``) takes MIN in Slurm too (cons_tres ``_eval_nodes``
    aims at min_nodes when GRES are asked per job). cons_tres takes no more nodes than the
    job has tasks (``job_test.c``: max_nodes = MAX(num_tasks, min_nodes)), and slurmctld
    counts ``--ntasks-per-node=K`` without ``-n`` as K x MIN tasks (job_mgr.c): ``-N 1-3
    --ntasks-per-node=2`` gets at most 2 nodes (real Slurm 22.05: 2 nodes, 4 tasks). More
    tasks per job (``-n``) than MIN are spread over up to that many nodes, their shape per
    node depending on how many it gets, which slurmlab does not model: it allocates MIN,
    with a warning."""
    if spec.gpus is not None:
        return None
    most = spec.max_nodes if part.max_nodes is None else min(spec.max_nodes, part.max_nodes)
    tasks = counts.ntasks
    if tasks is None and spec.ntasks_per_node is not None:
        tasks = spec.ntasks_per_node * nodes
    if tasks is not None:
        most = min(most, max(tasks, nodes))
    if most <= nodes:
        return None
    if counts.ntasks is not None:
        _warn(
            f"--nodes={spec.nodes}-{spec.max_nodes} with -n {counts.ntasks}: slurmlab "
            f"allocates {nodes} node{'s' * (nodes != 1)} "
            f"({'the minimum' if nodes == spec.nodes else 'the fewest its tasks fit on'}), "
            "as its shape per node "
            f"depends on the node count; Slurm takes up to {most} nodes when they are free "
            f"and spreads the tasks over them; write --nodes={nodes} or --nodes={most} for a "
            "fixed count, or --ntasks-per-node for a shape per node"
        )
        return None
    return most


def _check_time_min(spec: JobSpec, part: Partition, limit: timedelta | None) -> None:
    """slurmctld refuses a ``--time-min`` above the job's time limit (the partition's
    DefaultTime without ``-t``) or above the partition's MaxTime, whatever
    EnforcePartLimits says (job_mgr.c ``_valid_job_part``)."""
    low = spec.time_min
    if low == TIME_MIN_INFINITE and limit is None and spec.time_requested and not part.max_time:
        return  # (-t UNLIMITED, a partition without MaxTime: as long as its limit)
    above = [
        f"{what} {format_duration(value)}"
        for what, value in (
            ("the time limit" + ("" if spec.time_requested else " (DefaultTime)"),
             limit if spec.time_requested or part.default_time is not None else None),
            (f"MaxTime of partition {part.name!r}", part.max_time),
        )
        if value is not None and low > value
    ]  # fmt: skip
    if low == TIME_MIN_INFINITE and not above:  # (INFINITE > NO_VAL: no limit given)
        above = ["the time limit (none given)"]
    if above:
        raise RequestError(
            f"--time-min={_time_min_text(low)} is above {' and '.join(above)}: Invalid "
            "time-min specification (exceeds job's time or other limits); give a --time-min "
            "no longer than the job's -t"
            + (" (sbatch reads --time-min=0, -1 and UNLIMITED as INFINITE: to have no "
               "minimum, leave --time-min out)" if low == TIME_MIN_INFINITE else "")
        )  # fmt: skip


def _time_min_text(low: timedelta) -> str:
    """A ``--time-min`` as sbatch takes it back (INFINITE: ``UNLIMITED``)."""
    return "UNLIMITED" if low == TIME_MIN_INFINITE else format_duration(low)


def _enforce_part_limits(spec: JobSpec, part: Partition, nodes: int, enforce: str) -> None:
    """EnforcePartLimits=ALL/ANY/YES: a job over the partition's MaxTime, or outside its
    MinNodes..MaxNodes, is refused at submission (with the default NO it pends)."""
    where = f"partition {part.name!r} (EnforcePartLimits={enforce})"
    limit = spec.time_limit if spec.time_requested else part.time_limit_default
    if part.max_time is not None and limit is not None and limit > part.max_time:
        raise RequestError(
            f"-t {format_duration(limit)} is above MaxTime "
            f"{format_duration(part.max_time)} of {where}: Requested time limit is invalid "
            "(missing or exceeds some limit)"
        )
    top = max(nodes, spec.max_nodes or 0)  # (-N MIN-MAX: its MAX too, _part_access_check)
    if (part.max_nodes is not None and top > part.max_nodes) or nodes < part.min_nodes:
        allowed = f"{part.min_nodes}-{part.max_nodes or 'UNLIMITED'}"
        asked = f"{nodes}-{top}" if top > nodes else f"{nodes}"
        raise RequestError(
            f"{asked} node{'s' * (asked != '1')}, outside {allowed} of {where}: Node count "
            "specification invalid"
        )


def _mem_limit_reason(
    spec: JobSpec,
    cluster: Cluster,
    part: Partition,
    limits: dict[str, int | None],
    mem: int,
    per_cpu: int,
    per_gpu: int,
) -> str | None:
    """``MaxMemPerLimit`` when the memory per node (or per CPU) is above MaxMemPerNode (or
    MaxMemPerCPU), else None. Under ``EnforcePartLimits=ALL/ANY/YES`` Slurm rejects such a
    job at submission ("Memory required by task is not available"); under the default NO it
    accepts it and leaves it pending. A memory per GPU is not held to these limits (they
    bound a job's memory per node or per CPU), nor is ``--mem=0`` (the whole node)."""
    if not mem or per_gpu:
        return None
    max_node, max_cpu = limits["MaxMemPerNode"], limits["MaxMemPerCPU"]
    if max_node and mem > max_node:
        over = f"{mem} MB per node is above MaxMemPerNode={max_node}"
    elif max_cpu and per_cpu > max_cpu:
        over = f"{per_cpu} MB per CPU is above MaxMemPerCPU={max_cpu}"
    else:  # (a memory per node above MaxMemPerCPU x CPUs got more CPUs instead: resolve)
        return None
    enforce = (cluster.setting("EnforcePartLimits", "NO") or "NO").strip().upper()
    if enforce in ("ALL", "ANY", "YES"):
        raise RequestError(
            f"{over} in partition {part.name!r} "
            f"(EnforcePartLimits={enforce}): Memory required by task is not available"
        )
    return "MaxMemPerLimit"
