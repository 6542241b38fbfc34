"""A job request as sbatch reads it: from ``#SBATCH`` lines, an argument list, or Python.

``JobSpec`` is the request *as written* (frozen, validated on its own);
``JobSpec.resources(cluster)`` resolves it against a cluster into the per-node
shape Slurm allocates (nodes, CPUs, memory, GPUs per node, time limit), and
rejects at submission what no node of the partition could ever run, in Slurm's
words ("Requested node configuration is not available").
"""

from __future__ import annotations

import math
import re
import shlex
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, time, timedelta
from typing import Literal

from slurmlab.errors import RequestError, SbatchError, SlurmlabError
from slurmlab.spec.cluster import Cluster, Gres, Node, Partition
from slurmlab.spec.units import (
    compress_hostlist,
    expand_hostlist,
    format_duration,
    parse_duration,
    parse_memory_mb,
)

__all__ = ["ArraySpec", "Dependency", "JobSpec", "Resources", "SignalSpec", "TimeOfDay"]

DependencyKind = Literal["after", "afterok", "afterany", "afternotok", "aftercorr", "singleton"]
_DEP_KINDS = ("after", "afterok", "afterany", "afternotok", "aftercorr", "singleton")
MAX_ARRAY_SIZE = 1001  # Slurm's default MaxArraySize: indices 0..1000


@dataclass(frozen=True, slots=True)
class ArraySpec:
    """``--array``: the task indices and the ``%N`` throttle (max tasks running at once)."""

    indices: tuple[int, ...]
    throttle: int | None = None

    def __post_init__(self):
        if not self.indices:
            raise SbatchError("--array: no task indices")
        if min(self.indices) < 0:
            raise SbatchError(f"--array: negative index {min(self.indices)}")
        if self.throttle is not None and self.throttle < 1:
            raise SbatchError(f"--array: throttle %{self.throttle} must be at least 1")
        object.__setattr__(self, "indices", tuple(sorted(set(self.indices))))

    @classmethod
    def parse(cls, text: str) -> ArraySpec:
        """Parse ``0-15``, ``1,3,5``, ``0-99:2``, ``0-15%4``.

        >>> ArraySpec.parse("0-6:2%2")
        ArraySpec(indices=(0, 2, 4, 6), throttle=2)
        """
        body, _, thr = text.partition("%")
        idx: list[int] = []
        for part in body.split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part.strip())
            if not m:
                raise SbatchError(
                    f"--array={text!r}: invalid job array specification; use e.g. 0-15, 1,3,5, "
                    "0-99:2 or 0-15%4"
                )
            lo, hi, step = int(m.group(1)), m.group(2), m.group(3)
            if hi is None:
                idx.append(lo)
                continue
            hi, step = int(hi), int(step or 1)
            if hi < lo or step < 1:
                raise SbatchError(f"--array={text!r}: range {part!r} is empty or has step < 1")
            idx.extend(range(lo, hi + 1, step))
        if max(idx) >= MAX_ARRAY_SIZE:
            raise SbatchError(
                f"--array={text!r}: index {max(idx)} exceeds MaxArraySize={MAX_ARRAY_SIZE} "
                f"(indices 0..{MAX_ARRAY_SIZE - 1})"
            )
        if thr and not thr.isdigit():
            raise SbatchError(f"--array={text!r}: throttle %{thr} is not a number")
        return cls(tuple(idx), int(thr) if thr else None)

    def __str__(self) -> str:
        runs, idx = [], list(self.indices)
        i = 0
        while i < len(idx):
            j = i
            while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
                j += 1
            runs.append(str(idx[i]) if i == j else f"{idx[i]}-{idx[j]}")
            i = j + 1
        return ",".join(runs) + (f"%{self.throttle}" if self.throttle else "")


@dataclass(frozen=True, slots=True)
class Dependency:
    """One ``--dependency`` condition: ``afterok:12:13`` or ``singleton``."""

    kind: DependencyKind
    job_ids: tuple[str, ...] = ()

    def __post_init__(self):
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


@dataclass(frozen=True, slots=True)
class TimeOfDay:
    """``--begin`` at a time of day: the next time the clock shows ``at`` after submission
    (today, or tomorrow if that time has passed), or ``day`` days after the submission's
    date (``tomorrow``: day 1 at 00:00)."""

    at: time
    day: int | None = None

    def resolve(self, submitted: datetime) -> datetime:
        """The begin time of a job submitted at ``submitted``."""
        midnight = submitted.replace(hour=0, minute=0, second=0, microsecond=0)
        if self.day is not None:
            return midnight + timedelta(days=self.day) + _since_midnight(self.at)
        t = midnight + _since_midnight(self.at)
        return t if t >= submitted else t + timedelta(days=1)


def _since_midnight(at: time) -> timedelta:
    return timedelta(hours=at.hour, minutes=at.minute, seconds=at.second)


@dataclass(frozen=True, slots=True)
class SignalSpec:
    """``--signal=[{R|B}:]sig[@sig_time]``: signal ``sig`` sent ``seconds`` before the time limit."""

    signal: str = "USR1"
    seconds: int = 60
    batch_only: bool = False
    reservation: bool = False

    @classmethod
    def parse(cls, text: str) -> SignalSpec:
        """Parse ``--signal``'s value.

        >>> SignalSpec.parse("B:USR1@120")
        SignalSpec(signal='USR1', seconds=120, batch_only=True, reservation=False)
        """
        m = re.fullmatch(r"(?:([RB]{1,2}):)?(?:SIG)?([A-Z0-9]+)(?:@(\d+))?", text.strip().upper())
        if not m:
            raise SbatchError(f"--signal={text!r}: use [{{R|B}}:]sig[@sig_time], e.g. B:USR1@120")
        flags, sig, secs = m.groups()
        if secs is not None and int(secs) > 65535:
            raise SbatchError(f"--signal={text!r}: sig_time must be 0..65535 seconds")
        return cls(
            sig, int(secs) if secs is not None else 60, "B" in (flags or ""), "R" in (flags or "")
        )

    def __str__(self) -> str:
        prefix = ("R" if self.reservation else "") + ("B" if self.batch_only else "")
        return (f"{prefix}:" if prefix else "") + f"{self.signal}@{self.seconds}"


@dataclass(frozen=True, slots=True)
class Resources:
    """A request resolved against a cluster: the per-node shape Slurm allocates.

    Every node of the allocation gets the same shape (``cpus_per_node``,
    ``mem_per_node_mb``, ``gpus_per_node``); tasks are laid out block-wise
    (``tasks_per_node``). ``mem_per_node_mb`` is 0 where memory is not a
    consumable resource. ``whole_node`` is set by ``--exclusive``.
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
    mem_per_gpu_mb: int = 0  # memory scales with the GPUs (--mem-per-gpu)
    mem_whole_node: bool = False  # --mem=0, or no default: each node's whole memory

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
            out["gres/gpu"] = self.gpus_per_node * self.nodes
            if self.gpu_type:
                out[f"gres/gpu:{self.gpu_type}"] = out["gres/gpu"]
        return out


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
    "mem": ("mem_mb", "mem", None),
    "mem-per-cpu": ("mem_per_cpu_mb", "mem", None),
    "mem-per-gpu": ("mem_per_gpu_mb", "mem", None),
    "gres": ("gres", "gres", None),
    "gpus": ("gpus", "gpus", "G"),
    "gpus-per-node": ("gpus_per_node", "gpus", None),
    "gpus-per-task": ("gpus_per_task", "gpus", None),
    "time": ("time_limit", "time", "t"),
    "begin": ("begin", "begin", "b"),
    "array": ("array", "array", "a"),
    "dependency": ("dependency", "dependency", "d"),
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
# Options sbatch accepts that do not change scheduling: kept verbatim in JobSpec.other.
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
    "cpu-bind": (True, None),
    "mem-bind": (True, None),
    "tres-bind": (True, None),
    "hint": (True, None),
    "distribution": (True, "m"),
    "threads-per-core": (True, None),
    "cores-per-socket": (True, None),
    "sockets-per-node": (True, None),
    "licenses": (True, "L"),
    "wckey": (True, None),
    "profile": (True, None),
    "propagate": (True, None),
    "gres-flags": (True, None),
    "tmp": (True, None),
    "time-min": (True, None),
    "deadline": (True, None),
    "switches": (True, None),
    "network": (True, None),
    "acctg-freq": (True, None),
    "container": (True, None),
    "clusters": (True, "M"),
    "parsable": (False, None),
    "test-only": (False, None),
    "quiet": (False, "Q"),
    "verbose": (False, "v"),
    "wait": (False, "W"),
    "no-kill": (False, "k"),
    "overcommit": (False, "O"),
    "oversubscribe": (False, "s"),
    "contiguous": (False, None),
    "spread-job": (False, None),
    "use-min-nodes": (False, None),
    "kill-on-invalid-dep": (True, None),
    "get-user-env": (False, None),
    "ignore-pbs": (False, None),
    "immediate": (False, "I"),
}
_SHORT = {s: ln for ln, (_, _, s) in _OPTIONS.items() if s}
_SHORT.update({s: ln for ln, (_, s) in _PASSTHROUGH.items() if s})
_ALL_LONG = sorted(set(_OPTIONS) | set(_PASSTHROUGH))


def _lookup(name: str) -> str:
    """Resolve a long option name, allowing unambiguous prefixes as getopt_long does."""
    if name in _OPTIONS or name in _PASSTHROUGH:
        return name
    matches = [n for n in _ALL_LONG if n.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise SbatchError(f"option --{name} is ambiguous: it could be --{', --'.join(matches)}")
    raise SbatchError(f"unrecognized option --{name}; see `sbatch --help` for the options")


@dataclass(frozen=True, slots=True)
class JobSpec:
    """A batch job request, as the options of ``sbatch`` describe it.

    Fields left None were not given (Slurm's defaults then apply when the request
    is resolved against a cluster). Build with :meth:`from_sbatch`, :meth:`from_args`
    or directly; derive variants with ``dataclasses.replace``.
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
    begin: timedelta | datetime | TimeOfDay | None = None
    array: ArraySpec | None = None
    dependency: tuple[Dependency, ...] = ()
    dependency_any: bool = False
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

    def __post_init__(self):
        for f in ("nodes", "ntasks", "ntasks_per_node", "cpus_per_task", "cpus_per_gpu"):
            v = getattr(self, f)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise SbatchError(f"--{_flag(f)}={v!r}: must be a whole number of at least 1")
        for f in (
            "gpus_per_node",
            "gpus",
            "gpus_per_task",
            "mem_mb",
            "mem_per_cpu_mb",
            "mem_per_gpu_mb",
        ):
            v = getattr(self, f)
            if v is not None and (not isinstance(v, int) or v < 0):
                raise SbatchError(f"--{_flag(f)}={v!r}: must be a whole number >= 0")
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
        gpu_forms = [f for f in ("gpus_per_node", "gpus", "gpus_per_task") if getattr(self, f)]
        if len(gpu_forms) > 1:
            raise SbatchError(
                f"GPU requests {', '.join('--' + _flag(f) for f in gpu_forms)} cannot be combined; "
                "ask per node (--gres=gpu:N / --gpus-per-node), per job (--gpus) or per task"
            )
        if self.gpus_per_task and self.ntasks is None and self.ntasks_per_node is None:
            raise SbatchError(
                "--gpus-per-task needs a task count: add -n/--ntasks or --ntasks-per-node"
            )
        if self.time_limit is not None and self.time_limit <= timedelta(0):
            raise SbatchError(f"--time={format_duration(self.time_limit)}: must be positive")
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

    # -- parsing ---------------------------------------------------------------------------
    @classmethod
    def from_args(cls, args: str | Sequence[str], *, base: JobSpec | None = None) -> JobSpec:
        """Build a request from sbatch/srun options (a list, or one shell-quoted string).

        >>> JobSpec.from_args("-N 4 --gres=gpu:8 -t 2:00:00").tres()["gres/gpu"]
        32
        """
        if isinstance(args, str):
            try:
                args = shlex.split(args)
            except ValueError as exc:
                raise SbatchError(f"cannot split options {args!r}: {exc}") from None
        values: dict = {} if base is None else {f.name: getattr(base, f.name) for f in fields(cls)}
        other = list(values.get("other", ()))
        i = 0
        args = list(args)
        while i < len(args):
            tok = args[i]
            if tok == "--":
                break
            if tok.startswith("--"):
                name, eq, val = tok[2:].partition("=")
                long = _lookup(name)
                has_val = eq == "="
            elif tok.startswith("-") and len(tok) >= 2:
                short = tok[1]
                if short not in _SHORT:
                    raise SbatchError(f"invalid option -{short} in {tok!r}; see `sbatch --help`")
                long = _SHORT[short]
                val = tok[2:].lstrip("=") if len(tok) > 2 else ""
                has_val = len(tok) > 2
            else:
                # the first positional argument is the batch script; the rest are its arguments
                other.append(("script-file", " ".join(args[i:])))
                break
            if long in _PASSTHROUGH:
                takes, _ = _PASSTHROUGH[long]
                if takes and not has_val:
                    i, val = _next_value(args, i, long)
                other.append((long, val if takes else None))
                i += 1
                continue
            dest, kind, _ = _OPTIONS[long]
            if kind in ("true", "false"):
                if has_val:
                    raise SbatchError(f"--{long} takes no value (got {val!r})")
                values[dest] = kind == "true"
            elif kind in ("exclusive", "nice"):
                values.update(_parse_value(long, kind, val if has_val else None, values))
            else:
                if not has_val:
                    i, val = _next_value(args, i, long)
                values.update(_parse_value(long, kind, val, values))
            i += 1
        values["other"] = tuple(other)
        if base is not None:
            # as sbatch does: a memory option on the command line replaces the script's one
            mem = ("mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb")
            given = [f for f in mem if values[f] is not None and values[f] != getattr(base, f)]
            if given:
                for f in mem:
                    if f not in given:
                        values[f] = None
        return cls(**values)

    @classmethod
    def from_sbatch(cls, script_text: str, args: str | Sequence[str] | None = None) -> JobSpec:
        """Build a request from a batch script's ``#SBATCH`` lines (and command-line ``args``).

        Directives after the first command line are ignored, as sbatch ignores them;
        ``args`` override the script's directives. Like sbatch, a script must start with
        ``#!`` (blank lines before it are forgiven: a notebook cell often starts with one).
        """
        if not script_text.lstrip().startswith("#!"):
            raise SbatchError(
                "This does not look like a batch script. The first line must start with #! "
                "followed by the path to an interpreter. For instance: #!/bin/sh"
            )
        directives: list[str] = []
        for lineno, line in enumerate(script_text.splitlines(), start=1):
            s = line.strip()
            if not s:
                continue
            if s.startswith("#SBATCH"):
                body = s[len("#SBATCH") :]
                if body and not body[0].isspace():
                    continue  # e.g. '#SBATCHX' is a comment
                try:
                    # an unquoted '#' starts a trailing comment, as in sbatch
                    directives.extend(shlex.split(body, comments=True))
                except ValueError as exc:
                    raise SbatchError(f"script line {lineno}: cannot read {s!r}: {exc}") from None
                continue
            if s.startswith("#"):
                continue
            break  # first command: later #SBATCH lines are ignored
        try:
            spec = cls.from_args(directives)
        except SbatchError as exc:
            raise SbatchError(f"#SBATCH directive: {exc}") from None
        spec = replace(spec, script=script_text)
        if args:
            spec = cls.from_args(args, base=spec)
        return spec

    # -- rendering -------------------------------------------------------------------------
    def to_args(self) -> list[str]:
        """The request as canonical sbatch options (``from_args(to_args())`` round-trips)."""
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
        for f in ("ntasks", "ntasks_per_node", "cpus_per_task", "cpus_per_gpu"):
            if getattr(self, f) is not None:
                add(_flag(f), getattr(self, f))
        for f in ("mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb"):
            if getattr(self, f) is not None:
                add(_flag(f), f"{getattr(self, f)}M")
        t = f"{self.gpu_type}:" if self.gpu_type else ""
        gres = [str(g) for g in self.other_gres]
        if self.gpus_per_node is not None:
            gres.insert(0, f"gpu:{t}{self.gpus_per_node}")
        if gres:
            add("gres", ",".join(gres))
        if self.gpus is not None:
            add("gpus", f"{t}{self.gpus}")
        if self.gpus_per_task is not None:
            add("gpus-per-task", f"{t}{self.gpus_per_task}")
        if self.time_requested:
            add("time", format_duration(self.time_limit))
        if self.begin is not None:
            add("begin", _format_begin(self.begin))
        if self.array is not None:
            add("array", str(self.array))
        if self.dependency:
            add("dependency", ("?" if self.dependency_any else ",").join(map(str, self.dependency)))
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
    @property
    def job_name(self) -> str:
        """The name Slurm shows: ``--job-name``, else ``wrap`` for --wrap, else ``sbatch``."""
        if self.name:
            return self.name
        return "wrap" if self.wrap is not None else "sbatch"

    def _tasks_and_nodes(self) -> tuple[int, int]:
        nodes = self.nodes
        if nodes is None:
            if self.ntasks and self.ntasks_per_node:
                nodes = math.ceil(self.ntasks / self.ntasks_per_node)
            else:
                nodes = 1
        if self.ntasks is not None:
            tasks = self.ntasks
        elif self.ntasks_per_node is not None:
            tasks = self.ntasks_per_node * nodes
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
        cpus = tasks * (self.cpus_per_task or 1)
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

    def resources(self, cluster: Cluster) -> Resources:
        """Resolve against ``cluster``: the per-node shape, or :class:`RequestError` as sbatch says.

        Partition limits (MaxTime, MaxNodes) do not reject the job: like Slurm's default
        ``EnforcePartLimits=NO`` they leave it pending (reasons PartitionTimeLimit,
        PartitionNodeLimit); what no node of the partition can ever hold is rejected.
        """
        return resolve(self, cluster)

    def validate(self, cluster: Cluster) -> JobSpec:
        """Check the request against ``cluster`` (raising :class:`RequestError`); return it."""
        self.resources(cluster)
        return self


def _flag(field_name: str) -> str:
    return {
        "mem_mb": "mem",
        "mem_per_cpu_mb": "mem-per-cpu",
        "mem_per_gpu_mb": "mem-per-gpu",
        "gpus_per_node": "gpus-per-node",
    }.get(field_name, field_name.replace("_", "-"))


def _next_value(args: list[str], i: int, long: str) -> tuple[int, str]:
    if i + 1 >= len(args):
        raise SbatchError(f"option --{long} requires a value")
    return i + 1, args[i + 1]


def _int(long: str, val: str) -> int:
    if not re.fullmatch(r"\d+", val.strip()):
        raise SbatchError(f"--{long}={val!r}: expected a whole number")
    return int(val)


def _gpu_count(long: str, val: str, values: dict) -> tuple[str | None, int]:
    """Parse ``[type:]N`` of --gpus / --gpus-per-node / --gpus-per-task."""
    parts = val.split(":")
    if parts[0] == "gpu":
        parts = parts[1:]
    if len(parts) == 1:
        typ, n = None, parts[0]
    elif len(parts) == 2:
        typ, n = parts
    else:
        raise SbatchError(f"--{long}={val!r}: expected [type:]count, e.g. h100:8")
    if not n.isdigit():
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
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", val.strip())
        if not m or int(m.group(1)) < 1:
            raise SbatchError(f"--nodes={val!r}: expected N or MIN-MAX with N >= 1, e.g. 2 or 2-4")
        return {"nodes": int(m.group(1)), "max_nodes": int(m.group(2)) if m.group(2) else None}
    if kind == "mem":
        try:
            return {dest: parse_memory_mb(val, what=f"--{long}")}
        except SlurmlabError as exc:
            raise SbatchError(str(exc)) from None
    if kind == "time":
        try:
            limit = parse_duration(val, what="--time")
            if limit is not None and limit == timedelta(0):
                limit = (
                    None  # sbatch(1): "A time limit of zero requests that no time limit be imposed"
                )
            return {"time_limit": limit, "time_requested": True}
        except SlurmlabError as exc:
            raise SbatchError(str(exc)) from None
    if kind == "gres":
        out: dict = {"gpus_per_node": None, "other_gres": ()}
        others = []
        for item in val.split(","):
            item = item.strip()
            if item.lower() == "none":
                continue
            parts = item.split(":")
            if parts[0] != "gpu":
                n = parts[-1] if len(parts) > 1 else "1"
                if not n.isdigit():
                    raise SbatchError(
                        f"--gres={val!r}: count {n!r} of {parts[0]!r} is not a number"
                    )
                others.append(Gres(parts[0], parts[1] if len(parts) == 3 else None, int(n)))
                continue
            if len(parts) == 1:
                typ, n = None, "1"
            elif len(parts) == 2:
                typ, n = (None, parts[1]) if parts[1].isdigit() else (parts[1], "1")
            elif len(parts) == 3:
                typ, n = parts[1], parts[2]
            else:
                raise SbatchError(f"--gres={val!r}: expected gpu[:type]:count, e.g. gpu:h100:8")
            if not n.isdigit():
                raise SbatchError(f"--gres={val!r}: GPU count {n!r} is not a number")
            if out["gpus_per_node"] is not None:
                if typ != out.get("gpu_type"):
                    raise SbatchError(
                        f"--gres={val!r}: several GPU types in one request are not supported here; "
                        "ask for one type"
                    )
                out["gpus_per_node"] += int(n)
            else:
                out["gpus_per_node"] = int(n)
                out["gpu_type"] = typ
        out["other_gres"] = tuple(others)
        return out
    if kind == "gpus":
        typ, n = _gpu_count(long, val, values)
        out = {dest: n}
        if typ:
            out["gpu_type"] = typ
        return out
    if kind == "begin":
        return {"begin": _parse_begin(val)}
    if kind == "array":
        return {"array": ArraySpec.parse(val)}
    if kind == "dependency":
        return _parse_dependency(val)
    if kind == "exclusive":
        if val not in (None, "user", "mcs", "topo"):
            raise SbatchError(f"--exclusive={val!r}: use --exclusive, or =user, =mcs, =topo")
        if val is not None:  # said, never silently changed
            warnings.warn(
                f"--exclusive={val} is simulated as --exclusive (whole nodes): slurmlab does "
                f"not model sharing nodes by {val}",
                stacklevel=2,
            )
        return {"exclusive": True}
    if kind == "nice":
        if val is None:
            return {"nice": 100}
        if not re.fullmatch(r"[+-]?\d+", val):
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


_UNITS = {"": 1, "s": 1, "sec": 1, "seconds": 1, "second": 1, "m": 60, "min": 60, "minutes": 60}
_UNITS.update({"minute": 60, "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400})
_UNITS.update({"days": 86400, "w": 604800, "week": 604800, "weeks": 604800})


_NAMED_TIMES = {"midnight": 0, "elevenses": 11, "noon": 12, "fika": 15, "teatime": 16}
_BEGIN_HELP = (
    "use now+N[seconds|minutes|hours|days|weeks], HH:MM[:SS][AM|PM], midnight, noon, "
    "elevenses, fika, teatime, today, tomorrow, MMDDYY, MM/DD/YY or YYYY-MM-DD[THH:MM[:SS]]"
)


def _parse_begin(val: str) -> timedelta | datetime | TimeOfDay:
    """``--begin`` as sbatch(1) reads it: ``now+N[units]`` (from submission), a time of day
    (``HH:MM[:SS]`` with an optional AM/PM, ``midnight``, ``noon``, ``elevenses``, ``fika``,
    ``teatime``: the next time the clock shows it), ``today``, ``tomorrow``, or a date
    (``MMDDYY``, ``MM/DD/YY``, ``YYYY-MM-DD[THH:MM[:SS]]``)."""
    v = val.strip().lower()
    m = re.fullmatch(r"now(?:\s*\+\s*(\d+)\s*([a-z]*))?", v)
    if m:
        if (m.group(2) or "") not in _UNITS:
            raise SbatchError(
                f"--begin={val!r}: unknown unit {m.group(2)!r}; use seconds, minutes, hours, days, weeks"
            )
        return timedelta(seconds=int(m.group(1) or 0) * _UNITS[m.group(2) or ""])
    if v == "today":  # today's date at 00:00, already past: at once
        return timedelta(0)
    if v == "tomorrow":
        return TimeOfDay(time(0), day=1)
    if v in _NAMED_TIMES:
        return TimeOfDay(time(_NAMED_TIMES[v]))
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?", v)
    if m:
        h, mi, sec, half = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), m.group(4)
        if half and not 1 <= h <= 12:
            raise SbatchError(f"--begin={val!r}: with AM/PM the hour is 1 to 12")
        if half:
            h = h % 12 + (12 if half == "pm" else 0)
        try:
            return TimeOfDay(time(h, mi, sec))
        except ValueError as exc:
            raise SbatchError(f"--begin={val!r}: {exc}") from None
    for pattern, fmt in ((r"\d{6}", "%m%d%y"), (r"\d{1,2}/\d{1,2}/\d{2}", "%m/%d/%y")):
        if re.fullmatch(pattern, v):
            try:
                return datetime.strptime(v, fmt)
            except ValueError as exc:
                raise SbatchError(f"--begin={val!r}: {exc}") from None
    try:
        when = datetime.fromisoformat(val.strip())
    except ValueError:
        raise SbatchError(f"--begin={val!r}: {_BEGIN_HELP}") from None
    if when.tzinfo is not None:
        raise SbatchError(
            f"--begin={val!r}: give the cluster's local time, without a timezone "
            "(e.g. 2026-01-05T10:00), as sbatch takes it"
        )
    return when


def _format_begin(b: timedelta | datetime | TimeOfDay) -> str:
    if isinstance(b, timedelta):
        return f"now+{int(b.total_seconds())}"
    if isinstance(b, TimeOfDay):
        return "tomorrow" if b.day == 1 else b.at.isoformat()
    return b.isoformat()


def _parse_dependency(val: str) -> dict:
    any_ = "?" in val
    if any_ and "," in val:
        raise SbatchError(f"--dependency={val!r}: use ',' (all) or '?' (any), not both")
    deps = []
    for item in re.split(r"[,?]", val):
        parts = item.strip().split(":")
        kind = parts[0]
        ids = tuple(p.split("+")[0] for p in parts[1:])
        if any(not i for i in ids):
            raise SbatchError(f"--dependency={val!r}: empty job id in {item!r}")
        deps.append(Dependency(kind, ids))  # validates the kind
    return {"dependency": tuple(deps), "dependency_any": any_}


# -- resolution against a cluster --------------------------------------------------------------
def _node_fits_type(node: Node, spec: JobSpec) -> bool:
    if spec.gpu_type:
        return node.gpu_types.get(spec.gpu_type, 0) > 0
    return True


def features_match(expr: str | None, features: frozenset[str]) -> bool:
    """Evaluate a ``--constraint`` expression (``a&b``, ``a|b``, ``[a|b]``, ``a*2`` counts ignored)."""
    if not expr:
        return True
    e = expr.replace("[", "").replace("]", "")
    for alt in e.split("|"):
        need = [re.sub(r"\*\d+$", "", x).strip() for x in alt.split("&")]
        if all(n in features for n in need if n):
            return True
    return False


def resolve(spec: JobSpec, cluster: Cluster) -> Resources:
    if spec.partition and "," in spec.partition:
        raise RequestError(
            f"-p {spec.partition}: several partitions per job are not modelled; pick one"
        )
    try:
        part: Partition = (
            cluster.partition(spec.partition) if spec.partition else cluster.default_partition
        )
    except RequestError:
        raise
    except SlurmlabError as exc:
        raise RequestError(f"Job {spec.job_name!r}: {exc}") from None
    pool = [cluster.node(n) for n in part.nodes]
    if spec.nodelist:
        unknown = [n for n in spec.nodelist if n not in part.nodes]
        if unknown:
            raise RequestError(
                f"--nodelist={compress_hostlist(spec.nodelist)}: {compress_hostlist(unknown)} "
                f"not in partition {part.name!r}: Requested node configuration is not available"
            )
        if spec.nodes is not None and spec.nodes > len(spec.nodelist):
            raise RequestError(
                f"--nodelist={compress_hostlist(spec.nodelist)} names {len(spec.nodelist)} nodes "
                f"but --nodes={spec.nodes}: list every node the job should get (topping up a "
                "node list with other nodes is not modelled)"
            )
        # -w: the job runs on exactly these nodes (Slurm: they must all be in the allocation)
        pool = [n for n in pool if n.name in spec.nodelist]
    pool = [n for n in pool if n.name not in spec.exclude]
    pool = [n for n in pool if features_match(spec.constraint, n.features)]
    if not pool:
        raise RequestError(
            f"Job {spec.job_name!r}: no node of partition {part.name!r} has features "
            f"{spec.constraint!r}: Requested node configuration is not available"
        )
    if spec.gpu_type and not any(_node_fits_type(n, spec) for n in pool):
        have = sorted({t for n in pool for t in n.gpu_types})
        raise RequestError(
            f"Job {spec.job_name!r}: GPU type {spec.gpu_type!r} is not in partition {part.name!r} "
            f"(it has {', '.join(have) or 'no typed GPUs'}): Invalid generic resource (gres) "
            "specification"
        )
    pool = [n for n in pool if _node_fits_type(n, spec)]
    cpt = spec.cpus_per_task or 1
    max_cpus = max(n.cpus for n in pool)
    max_gpus = max(n.gpus for n in pool)

    # nodes and tasks
    nodes = spec.nodes
    if nodes is None and spec.nodelist:
        nodes = len(spec.nodelist)  # -w without -N: every listed node
    if nodes is None:
        if spec.ntasks and spec.ntasks_per_node:
            nodes = math.ceil(spec.ntasks / spec.ntasks_per_node)
        elif spec.gpus and max_gpus:
            nodes = math.ceil(spec.gpus / max_gpus)
        elif spec.ntasks and spec.gpus_per_task and max_gpus:
            nodes = math.ceil(spec.ntasks / max(1, max_gpus // spec.gpus_per_task))
        elif spec.ntasks:
            per_node = max(1, max_cpus // cpt)
            nodes = math.ceil(spec.ntasks / per_node)
        else:
            nodes = 1
    if spec.ntasks is not None:
        ntasks = spec.ntasks
    elif spec.ntasks_per_node is not None:
        ntasks = spec.ntasks_per_node * nodes
    else:
        ntasks = nodes
    if ntasks < nodes:
        raise RequestError(
            f"Job {spec.job_name!r}: -n {ntasks} tasks on -N {nodes} nodes leaves nodes without a "
            "task; ask for at least one task per node"
        )
    base, extra = divmod(ntasks, nodes)
    tasks_per_node = tuple(base + (1 if i < extra else 0) for i in range(nodes))
    if spec.ntasks_per_node is not None and max(tasks_per_node) > spec.ntasks_per_node:
        raise RequestError(
            f"Job {spec.job_name!r}: -n {ntasks} with --ntasks-per-node={spec.ntasks_per_node} "
            f"needs at least {math.ceil(ntasks / spec.ntasks_per_node)} nodes, not {nodes}"
        )

    # GPUs per node
    if spec.gpus_per_node:
        gpn = spec.gpus_per_node
    elif spec.gpus:
        gpn = math.ceil(spec.gpus / nodes)
        if spec.gpus < nodes:
            raise RequestError(
                f"Job {spec.job_name!r}: --gpus={spec.gpus} on {nodes} nodes: every node of the "
                "allocation needs at least one GPU"
            )
    elif spec.gpus_per_task:
        gpn = spec.gpus_per_task * max(tasks_per_node)
    else:
        gpn = 0
    cpn = max(tasks_per_node) * cpt
    if spec.cpus_per_gpu and gpn:
        cpn = max(cpn, spec.cpus_per_gpu * gpn)

    # memory per node
    per_cpu = per_gpu = 0
    if not cluster.memory_tracked:
        mem = 0
    elif spec.mem_mb is not None:
        mem = spec.mem_mb  # 0 means all the node's memory
    elif spec.mem_per_cpu_mb is not None:
        per_cpu = spec.mem_per_cpu_mb
        mem = per_cpu * cpn
    elif spec.mem_per_gpu_mb is not None:
        per_gpu = spec.mem_per_gpu_mb
        mem = per_gpu * max(gpn, 1)
    else:
        # the partition's DefMemPerCPU/DefMemPerNode win over the global ones (slurm.conf(5))
        popts = {k.lower(): v for k, v in part.options.items()}
        if "defmempercpu" in popts or "defmempernode" in popts:
            dpc, dpn = popts.get("defmempercpu"), popts.get("defmempernode")
        else:
            dpc, dpn = cluster.setting("DefMemPerCPU"), cluster.setting("DefMemPerNode")
        if dpc and dpc.upper() != "UNLIMITED":
            per_cpu = int(dpc)
            mem = per_cpu * cpn
        elif dpn and dpn.upper() != "UNLIMITED":
            mem = int(dpn)
        else:
            mem = 0  # Slurm's default: the whole memory of each node
    fitting = [
        n for n in pool if n.cpus >= cpn and n.gpus >= gpn and (mem == 0 or n.memory_mb >= mem)
    ]
    whole_node = spec.exclusive
    if len(fitting) < nodes:
        why = []
        if not any(n.cpus >= cpn for n in pool):
            why.append(f"{cpn} CPUs per node (largest node has {max_cpus})")
        if not any(n.gpus >= gpn for n in pool):
            why.append(f"{gpn} GPUs per node (largest node has {max_gpus})")
        if mem and not any(n.memory_mb >= mem for n in pool):
            why.append(f"{mem} MB per node (largest node has {max(n.memory_mb for n in pool)} MB)")
        if not why:
            why.append(f"{nodes} nodes (partition {part.name!r} has {len(fitting)} that fit)")
        hint = ""
        if gpn > max_gpus and max_gpus:
            total = gpn * nodes
            hint = f"; use --nodes={math.ceil(total / max_gpus)} --gres=gpu:{max_gpus}"
        raise RequestError(
            f"Job {spec.job_name!r}: asks for {' and '.join(why)} in partition {part.name!r}: "
            f"Requested node configuration is not available{hint}"
        )
    whole_memory = mem == 0 and cluster.memory_tracked
    if whole_memory:
        mem = min(n.memory_mb for n in fitting)
    time_limit = spec.time_limit if spec.time_requested else part.time_limit_default
    gpu_type = spec.gpu_type
    if gpu_type is None and gpn:
        # an untyped request on nodes of one GPU type gets that type (sacct's gres/gpu:h100)
        types = {n.gpu_type for n in fitting}
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
        whole_node=whole_node,
        features=spec.constraint,
        candidates=tuple(n.name for n in fitting),
        mem_per_cpu_mb=per_cpu,
        mem_per_gpu_mb=per_gpu,
        mem_whole_node=whole_memory,
    )
