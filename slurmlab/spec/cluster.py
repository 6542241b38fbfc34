"""The cluster: nodes with CPUs, memory and typed GPUs, grouped into partitions.

A ``Cluster`` is a frozen value built in Python, from a named preset, or from a
real ``slurm.conf`` (+ ``gres.conf``). It keeps the scheduler-relevant global
settings (``SchedulerParameters``, ``PriorityWeight*``, ``JobRequeue``...) for the
engine, and renders an ``sinfo``-like view of itself.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import lru_cache
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pandas as pd

from slurmlab.errors import ConfigError, RequestError, SlurmlabError, warn_at_caller
from slurmlab.paths import home_path
from slurmlab.spec.units import (
    MAX_COUNT,
    MAX_COUNT16,
    MAX_MEMORY_MB,
    UINT16_MAX,
    UINT32_MAX,
    ascii_digits,
    compress_hostlist,
    expand_hostlist,
    format_duration,
    node_order_key,
    parse_duration,
    parse_list_of,
    parse_memory_mb,
    parse_time_limit,
    parse_whole,
    suffixed_count,
)

__all__ = ["Cluster", "Gres", "Node", "Partition", "parse_gres"]

NODE_STATES = ("IDLE", "UP", "DOWN", "DRAIN", "FUTURE", "UNKNOWN", "CLOUD")
PARTITION_STATES = ("UP", "DOWN", "DRAIN", "INACTIVE")
#: A partition's PriorityJobFactor "may not exceed 65533" (slurm.conf(5); a uint16 in Slurm).
PRIORITY_JOB_FACTOR_MAX = MAX_COUNT16


def _conf_source(value, kind: str) -> str | Path:
    """``value`` as ``parse_slurm_conf`` takes it: text unchanged, a path checked first.

    A str with a newline or an ``=`` is the file's text (as ``parse_slurm_conf`` decides);
    anything else is a path, which must name a readable UTF-8 file: otherwise a ConfigError
    naming ``kind`` (slurm.conf or gres.conf), the path and the fix.
    """
    if isinstance(value, str) and ("\n" in value or "=" in value):
        return value
    if isinstance(value, os.PathLike):
        value = Path(value)
    if not isinstance(value, str | Path):
        raise SlurmlabError(
            f"{kind}: give a path or the file's text, not {type(value).__name__} {value!r}"
        )
    if str(value).strip() == "":
        raise ConfigError(
            f"the path is empty; give the path of a {kind} file or its text", source=kind
        )
    path = home_path(value)  # ("~/slurm.conf", as pandas' readers take it)
    source = str(path)
    if not path.exists():
        raise ConfigError(f"{kind} file does not exist; check the path", source=source)
    if path.is_dir():
        inside = path / kind
        hint = f"give {str(inside)!r}" if inside.is_file() else f"give the {kind} file in it"
        raise ConfigError(f"is a directory, not a {kind} file; {hint}", source=source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{kind} file cannot be read ({exc.strerror})", source=source) from None
    problem = None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text (byte {exc.start} is {data[exc.start : exc.start + 1]!r})"
    if problem is None and b"\x00" in data:
        problem = "not text (it holds NUL bytes)"
    if problem is not None:
        raise ConfigError(
            f"is not a {kind} file: {problem}; it starts {data[:12]!r}; give the {kind} text file",
            source=source,
        )
    return path


def whole_value(value, owner: str, key: str, example: int = 1) -> int:
    """A count given in Python as Slurm's readers would take it: an int (numpy's too), a
    whole float (``8.0``) or ASCII decimal digits as text (``"8"``); anything else (``8.5``,
    ``True``, ``"16G"``, None) is an error naming ``owner``, ``key`` and the value. The
    range is the caller's to check."""
    if isinstance(value, Real) and not isinstance(value, bool | Integral | float):
        value = float(value)  # (numpy's floats: whole ones are read as parse_whole reads 8.0)
    try:
        return parse_whole(value, what=key, minimum=-(2**63))
    except SlurmlabError:
        raise SlurmlabError(
            f"{owner}: {key}={value!r} is not a whole number; give e.g. {key}={example}"
        ) from None


def flag_value(value, owner: str, key: str) -> bool:
    """A yes/no field given in Python: True or False (numpy's bool too); a string such as
    ``"no"`` is refused, never read as true for being non-empty."""
    if isinstance(value, bool):
        return value
    if isinstance(value, np.bool_):  # (a column's value)
        return bool(value)
    raise SlurmlabError(f"{owner}: {key} {value!r} is not True or False; give {key}=True or False")


def text_value(value, owner: str, key: str, example: str) -> str:
    """A word given in Python (a state, a name): text, else an error naming the field."""
    if isinstance(value, str):
        return value
    raise SlurmlabError(f"{owner}: {key}={value!r} is not text; give e.g. {key}={example!r}")


def _gres_value(value, owner: str) -> tuple[Gres, ...]:
    """A node's ``gres`` given in Python: Gres objects, or text as slurm.conf's Gres= takes
    it (``"gpu:h100:8,nvme:1"``), one or a list of them."""
    items = [value] if isinstance(value, str | Gres) else value
    if isinstance(items, list | tuple | set | frozenset):
        out: list[Gres] = []
        for item in items:
            if isinstance(item, Gres):
                out.append(item)
            elif isinstance(item, str):
                out.extend(parse_gres(item, what=f"{owner} gres"))
            else:
                break
        else:
            return tuple(out)
    raise SlurmlabError(
        f"{owner}: gres={value!r} is neither Gres objects nor GRES text; give e.g. "
        "gres='gpu:h100:8' (as slurm.conf's Gres=) or gres=(Gres('gpu', 'h100', 8),)"
    )


def _features_value(value, owner: str) -> frozenset[str]:
    """A node's ``features`` given in Python: names, or text split at commas as slurm.conf's
    Features=a100,nvlink (never a string's letters)."""
    items = [value] if isinstance(value, str) else value
    if isinstance(items, list | tuple | set | frozenset) and all(isinstance(f, str) for f in items):
        return frozenset(w for f in items for w in re.split(r"[,\s]+", f) if w)
    raise SlurmlabError(
        f"{owner}: features={value!r} is not a list of feature names; give e.g. "
        "features='a100,nvlink' (as slurm.conf's Features=) or features={'a100', 'nvlink'}"
    )


def _node_names_value(value, owner: str) -> tuple[str, ...]:
    """A partition's ``nodes`` given in Python: names or hostlists (``"gpu[01-04]"``), one
    or a list of them, expanded in order (never a string's letters)."""
    items = [value] if isinstance(value, str) else value
    if isinstance(items, list | tuple) and all(isinstance(n, str) for n in items):
        try:
            return tuple(n for item in items for n in expand_hostlist(item))
        except SlurmlabError as exc:
            raise SlurmlabError(f"{owner}: nodes: {exc}") from None
    raise SlurmlabError(
        f"{owner}: nodes={value!r} is not a list of node names; give e.g. "
        "nodes='gpu[01-04]' (a hostlist, as slurm.conf's Nodes=) or nodes=('gpu01', 'gpu02')"
    )


def _settings_text(cluster: str, settings) -> Mapping[str, str]:
    """``settings`` with every value as slurm.conf's text (:func:`_setting_text`): the
    mapping itself when all are text already (a ConfSettings keeps where each was read)."""
    if not isinstance(settings, Mapping):
        raise SlurmlabError(
            f"Cluster {cluster!r}: settings={settings!r} is not a mapping of slurm.conf keys; "
            "give e.g. settings={'PriorityType': 'priority/multifactor'} (or {} for none)"
        )
    text = {k: _setting_text(cluster, k, v) for k, v in settings.items()}
    if all(text[k] is v for k, v in settings.items()):
        return settings
    out = type(settings)(text) if isinstance(settings, ConfSettings) else text
    if isinstance(settings, ConfSettings):
        out.where.update(settings.where)
    return out


def _setting_text(cluster: str, key, value) -> str:
    """A setting given in Python as slurm.conf's text: numbers as they are written
    (``10000`` is ``"10000"``), so that every reader sees what a slurm.conf would give;
    True/False, None and other objects are refused (``JobRequeue=0`` in slurm.conf, never a
    Python truth value)."""
    if not isinstance(key, str):
        raise SlurmlabError(
            f"Cluster {cluster!r}: setting name {key!r} is not text; give slurm.conf's key, "
            "e.g. 'PriorityWeightFairshare'"
        )
    if isinstance(value, str):
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, Real) and not isinstance(value, bool) and value == value:
        return str(int(value)) if float(value).is_integer() else str(float(value))
    fix = "give the text slurm.conf would hold, e.g. 'PriorityWeightFairshare': '10000'"
    if value is None:
        fix = f"leave {key} out for Slurm's default, or give the text slurm.conf would hold"
    elif isinstance(value, bool | np.bool_):
        fix = (
            f"give the text slurm.conf would hold: {key}='0' or '1' (or 'NO'/'YES' where "
            "slurm.conf takes words), never a Python truth value"
        )
    elif isinstance(value, Mapping):
        pairs = ",".join(f"{k}={v}" for k, v in value.items())
        fix = f"give it as slurm.conf's comma list, e.g. {key}={pairs!r}"
    raise SlurmlabError(
        f"Cluster {cluster!r}: setting {key}={value!r} is not slurm.conf text; {fix}"
    )


#: The largest count of a GRES other than GPUs: gres.c ``_get_gres_cnt`` reads it with
#: strtoll into 64 bits (slurm.conf(5): ``bandwidth:lustre:no_consume:4G``).
GRES_COUNT_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Gres:
    """One generic resource on a node, e.g. ``gpu:h100:8`` (name, type, count).

    ``no_consume`` is slurm.conf's ``no_consume`` flag (``bandwidth:lustre:no_consume:4G``):
    jobs asking for the GRES do not hold it, so any number of them may use it at once. A GPU
    count is at most 2**32 - 1 (slurmlab counts a node's GPUs as other resources), another
    GRES's at most 2**63 - 1, as Slurm reads it."""

    name: str
    type: str | None
    count: int
    no_consume: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise SlurmlabError(
                f"Gres: name {self.name!r} is not a GRES name; give text such as 'gpu'"
            )
        if self.type is not None and not isinstance(self.type, str):
            raise SlurmlabError(
                f"Gres {self.name!r}: type {self.type!r} is not text; give e.g. 'h100', or None"
            )
        object.__setattr__(self, "count", whole_value(self.count, f"Gres {self.name!r}", "count"))
        if self.count < 0:
            raise SlurmlabError(f"Gres {self.name!r}: count {self.count} must not be negative")
        most = UINT32_MAX if self.name == "gpu" else GRES_COUNT_MAX
        if self.count > most:
            raise SlurmlabError(
                f"Gres {self.name!r}: count {self.count} is too large (at most {most})"
            )
        if not isinstance(self.no_consume, bool):
            raise SlurmlabError(
                f"Gres {self.name!r}: no_consume={self.no_consume!r} is not True or False"
            )

    def __str__(self) -> str:
        flag = ["no_consume"] if self.no_consume else []
        return ":".join([self.name, *([self.type] if self.type else []), *flag, str(self.count)])


def parse_gres(text: str, *, what: str = "Gres") -> tuple[Gres, ...]:
    """Parse a node's ``Gres=`` value (``gpu:h100:8,nvme:1``) as slurmctld reads it (gres.c
    ``_get_gres_cnt``): each item is ``name[:type][:no_consume][:count]``; the text after
    its last colon is its count when it starts with a digit, with an optional suffix
    (``gpu:2K`` is 2048 GPUs: :func:`~slurmlab.spec.units.suffixed_count`), else its type,
    with a count of 1 (``gpu:tesla``); ``no_consume`` (in any case) is a flag, never a type
    (gres.c ``gres_add_type``). A ``(S:0-1)`` socket binding is dropped.

    >>> parse_gres("gpu:h100:8")
    (Gres(name='gpu', type='h100', count=8, no_consume=False),)
    >>> [str(g) for g in parse_gres("gpu:2K,nic:x1:1kb,gpu:tesla(S:0-1),nvme")]
    ['gpu:2048', 'nic:x1:1000', 'gpu:tesla:1', 'nvme:1']
    >>> [str(g) for g in parse_gres("bandwidth:lustre:no_consume:4G")]
    ['bandwidth:lustre:no_consume:4294967296']
    """
    if text in ("", "(null)", "none", "None"):
        return ()
    out = []
    for item in re.split(r",(?![^()]*\))", text):
        name, *rest = re.sub(r"\(.*\)$", "", item.strip()).split(":")
        types, last = (rest[:-1], rest[-1]) if rest else ([], "")
        if ascii_digits(last[:1]):
            count = suffixed_count(last)
            if count is None:
                raise SlurmlabError(
                    f"invalid {what} {text!r}: the count {last!r} of {item.strip()!r} is not a "
                    "whole number with an optional K, M, G, T or P suffix (slurmctld logs "
                    f'"Bad GRES configuration: {item.strip()}" and gives the node none); '
                    "write e.g. gpu:8 or gpu:h100:8"
                )
        else:
            count, types = 1, rest
        no_consume = any(t.lower() == "no_consume" for t in types)
        types = [t for t in types if t.lower() != "no_consume"]
        if not name or len(types) > 1 or "" in types:
            raise SlurmlabError(
                f"invalid {what} {text!r}: expected name[:type][:no_consume]:count, e.g. gpu:h100:8"
            )
        out.append(Gres(name, types[0] if types else None, count, no_consume))
    return tuple(out)


def gres_types(settings: Mapping[str, str]) -> set[str] | None:
    """slurm.conf's ``GresTypes`` as a set of names (None when it is not set)."""
    value = next((v for k, v in settings.items() if k.lower() == "grestypes"), None)
    return None if value is None else {t.strip() for t in str(value).split(",") if t.strip()}


def mixed_gpu_note(nodes) -> str | None:
    """What slurmlab does not model on nodes with GPUs of several types (``Gres=gpu:a100:4,
    gpu:v100:2``), in words, or None when no node has them: a node's GPUs are one count, so
    jobs asking for one type may together hold more of it than the node has (Slurm counts
    each type); one job alone never gets more of its type than the node has."""
    mixed = [n.name for n in nodes if len(n.gpu_types) > 1]
    if not mixed:
        return None
    first = next(n for n in nodes if n.name == mixed[0])
    kinds = ", ".join(f"{t}:{c}" for t, c in first.gpu_types.items())
    return (
        f"{compress_hostlist(mixed)} have GPUs of several types ({mixed[0]}: {kinds}): slurmlab "
        "counts a node's GPUs together, so jobs asking for one type may together hold more of "
        "it than the node has, where Slurm counts each type (one job alone gets no more than "
        "the node has of its type)"
    )


def no_consume_gpu_note(nodes) -> str | None:
    """What slurmlab does not model of GPUs flagged ``no_consume`` (``Gres=gpu:no_consume:2``),
    in words, or None when no node has them: Slurm lets any number of jobs use them at once,
    slurmlab allocates them as other GPUs, to one job at a time."""
    flagged = [n.name for n in nodes if any(g.name == "gpu" and g.no_consume for g in n.gres)]
    if not flagged:
        return None
    return (
        f"{compress_hostlist(flagged)} have GPUs flagged no_consume: not modelled by slurmlab; "
        "Slurm lets any number of jobs use them at once (a job's GPUs are not held), slurmlab "
        "allocates them as other GPUs, each to one job at a time; drop no_consume to say so, "
        "or give jobs that share them no --gres=gpu"
    )


def gres_name_problem(name: str, types: set[str] | None) -> str | None:
    """Why a node may not have a GRES called ``name`` (the rule, without the fix), or None.

    With ``GresTypes`` set, a node's GRES must be one it declares (slurmctld refuses the
    node otherwise). Without it (inline clusters, or a slurm.conf that does not set it) any
    name is taken as declared, but a near miss of ``gpu`` (``gpus``, ``GPU``) is refused: the
    node would hold no GPU, and every GPU job would be refused for want of one.

    >>> gres_name_problem("gpu", None) is None, gres_name_problem("nvme", None) is None
    (True, True)
    >>> gres_name_problem("gpus", {"gpu"}).startswith("'gpus' is not in GresTypes (gpu)")
    True
    """
    if types is not None:
        if name in types:
            return None
        return (
            f"{name!r} is not in GresTypes ({', '.join(sorted(types)) or 'empty'}), and "
            "slurmctld refuses a node GRES that GresTypes does not declare"
        )
    if name != "gpu" and gres_name_suggestion(name, None) == "gpu":
        return (
            f"{name!r} is not a GRES slurmlab counts as GPUs (only 'gpu' is, as in Slurm), so "
            "the node would have no GPU"
        )
    return None


def node_gres_problem(node: Node, types: set[str] | None, checked: set[str]) -> str | None:
    """Why slurmctld would refuse ``node``'s Gres= (``Gres=gpus:4: ...; did you mean
    'gpu'?``), or None; names already in ``checked`` are not checked again, and the names
    found good are added to it."""
    for g in node.gres:
        if g.name in checked:
            continue
        problem = gres_name_problem(g.name, types)
        if problem:
            close = gres_name_suggestion(g.name, types)
            fix = f"did you mean {close!r}?" if close else "add it to GresTypes"
            if close and types is None:
                fix += f" (a GRES really named {g.name!r} is declared in GresTypes)"
            return f"Gres={g}: {problem}; {fix}"
        checked.add(g.name)
    return None


def gres_name_suggestion(name: str, types: set[str] | None) -> str | None:
    """The declared GRES name (``gpu`` without GresTypes) ``name`` is a near miss of."""
    if types is None:
        close = difflib.get_close_matches(name.lower(), ["gpu"], n=1, cutoff=0.75)
    else:
        close = difflib.get_close_matches(name, sorted(types), n=1, cutoff=0.6)
    return close[0] if close else None


@dataclass(frozen=True, slots=True)
class Node:
    """A compute node: CPUs, memory in MB, generic resources (GPUs) and features.

    ``threads_per_core`` is how many of its CPUs share a core (slurm.conf's ThreadsPerCore,
    where the node's CPUs count threads). Under a core allocation (SelectTypeParameters
    CR_Core*, CR_Socket*, or unset) Slurm allocates whole cores on such a node: ``-n 3`` with
    two threads per core gets 4 CPUs (see :func:`slurmlab.spec.job.resolve`).

    Each value is checked against the range Slurm keeps it in, whatever reads it (slurm.conf,
    a scenario, Python): CPUs from 1 to 65533 (a uint16 less NO_VAL16 and INFINITE16),
    memory up to 2**48 MB, Weight a uint32, Port from 1 to 65535 (node_conf.c).

    Given in Python, values may be written as slurm.conf writes them: ``gres="gpu:h100:8"``
    (Gres=), ``features="a100,nvlink"`` (Features=, a comma list), counts as text or numpy
    integers, ``memory_mb="16G"``.
    """

    name: str
    cpus: int = 1
    memory_mb: int = 1
    gres: tuple[Gres, ...] = ()
    features: frozenset[str] = frozenset()
    addr: str | None = None
    port: int | None = None
    state: str = "IDLE"
    weight: int = 1
    threads_per_core: int = 1

    def __post_init__(self):
        if not self.name:
            raise SlurmlabError("Node: name must not be empty")
        owner = f"Node {self.name!r}"
        text_value(self.name, "Node", "name", "gpu01")
        set_ = object.__setattr__  # values given in Python, read as slurm.conf reads them
        for key, example in (("cpus", 64), ("weight", 1), ("threads_per_core", 2)):
            set_(self, key, whole_value(getattr(self, key), owner, key, example))
        if self.port is not None:
            set_(self, "port", whole_value(self.port, owner, "port", 6818))
        if isinstance(self.memory_mb, str):  # RealMemory, or a size such as "16G"
            set_(self, "memory_mb", parse_memory_mb(self.memory_mb, what=f"{owner} memory_mb"))
        else:
            set_(self, "memory_mb", whole_value(self.memory_mb, owner, "memory_mb", 16384))
        set_(self, "gres", _gres_value(self.gres, owner))
        set_(self, "features", _features_value(self.features, owner))
        text_value(self.state, owner, "state", "IDLE")
        if self.addr is not None:
            text_value(self.addr, owner, "addr", "10.0.0.1")
        threads = self.threads_per_core
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise SlurmlabError(
                f"Node {self.name!r}: ThreadsPerCore={threads!r} must be a whole number of at "
                "least 1"
            )
        if isinstance(self.cpus, int) and self.cpus % threads:
            raise SlurmlabError(
                f"Node {self.name!r}: CPUs={self.cpus} is not a whole number of cores of "
                f"ThreadsPerCore={threads} threads; give CPUs as cores x threads per core"
            )
        if self.cpus < 1:
            raise SlurmlabError(f"Node {self.name!r}: CPUs={self.cpus} must be at least 1")
        if self.cpus > MAX_COUNT16:  # (slurmctld keeps a node's CPUs in 16 bits)
            raise SlurmlabError(
                f"Node {self.name!r}: CPUs={self.cpus} is too many (Slurm allows at most "
                f"{MAX_COUNT16} per node)"
            )
        if self.memory_mb < 0:
            raise SlurmlabError(f"Node {self.name!r}: RealMemory={self.memory_mb} is negative")
        if self.memory_mb > MAX_MEMORY_MB:
            raise SlurmlabError(
                f"Node {self.name!r}: RealMemory={self.memory_mb} MB is too large (at most "
                f"{MAX_MEMORY_MB} MB)"
            )
        if not 0 <= self.weight <= UINT32_MAX:
            raise SlurmlabError(
                f"Node {self.name!r}: Weight={self.weight} must be a whole number from 0 to "
                f"{UINT32_MAX} (Slurm keeps it in 32 bits)"
            )
        if self.port is not None and not 1 <= self.port <= UINT16_MAX:
            raise SlurmlabError(
                f'Node {self.name!r}: Port={self.port} is not a port (slurmctld: "Invalid Port '
                f'{self.port}"); give a whole number from 1 to {UINT16_MAX}'
            )
        if self.state.upper() not in NODE_STATES:
            raise SlurmlabError(
                f"Node {self.name!r}: State={self.state!r} is not one of {', '.join(NODE_STATES)}"
            )
        object.__setattr__(self, "state", self.state.upper())

    @property
    def gpus(self) -> int:
        """Number of GPUs (``gres/gpu``) on this node, all types together."""
        return sum(g.count for g in self.gres if g.name == "gpu")

    @property
    def gpu_types(self) -> dict[str, int]:
        """GPUs per type (``{'h100': 8}``); untyped GPUs are not listed."""
        out: dict[str, int] = {}
        for g in self.gres:
            if g.name == "gpu" and g.type:
                out[g.type] = out.get(g.type, 0) + g.count
        return out

    @property
    def gpu_type(self) -> str | None:
        """The node's GPU type when it has exactly one, else None."""
        types = self.gpu_types
        return next(iter(types)) if len(types) == 1 else None


@dataclass(frozen=True, slots=True)
class Partition:
    """A partition: a named set of nodes with time limits, a priority tier and a state.

    Each count is checked against the range Slurm keeps it in, whatever reads it: MaxNodes
    (None: UNLIMITED) from 1 and MinNodes from 0 to 4294967293 (a uint32 less NO_VAL and
    INFINITE), PriorityTier and PriorityJobFactor from 0 to 65533 (slurm.conf(5)).

    Given in Python, ``nodes`` may be a hostlist (``"gpu[01-04]"``, as Nodes=) and
    ``max_time``/``default_time`` Slurm's time text (``"2:00:00"``, ``"UNLIMITED"``; a bare
    number is minutes, as MaxTime=, and a Python number is warned about); ``default`` is
    True or False.

    ``nodes`` are kept in the order of slurmctld's node table, by name
    (:func:`~slurmlab.spec.units.node_order_key`), whatever order they are given in: a
    partition's nodes are a bitmap over that table (partition_mgr.c ``build_part_bitmap``),
    so ``nodes[0]`` is its first node (``_mem_per_node_part``).
    """

    name: str
    nodes: tuple[str, ...]
    default: bool = False
    max_time: timedelta | None = None
    default_time: timedelta | None = None
    max_nodes: int | None = None
    min_nodes: int = 1
    priority_tier: int = 1
    priority_job_factor: int = 1
    state: str = "UP"
    options: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if not self.name:
            raise SlurmlabError("Partition: name must not be empty")
        owner = f"Partition {self.name!r}"
        text_value(self.name, "Partition", "name", "gpu")
        set_ = object.__setattr__  # values given in Python, read as slurm.conf reads them
        set_(self, "nodes", tuple(sorted(_node_names_value(self.nodes, owner), key=node_order_key)))
        set_(self, "default", flag_value(self.default, owner, "default"))
        for key in ("max_time", "default_time"):  # MaxTime=, DefaultTime=: Slurm's times
            set_(self, key, parse_time_limit(getattr(self, key), what=f"{owner} {key}"))
        if isinstance(self.max_nodes, str) and self.max_nodes.strip().upper() == "UNLIMITED":
            set_(self, "max_nodes", None)
        elif self.max_nodes is not None:
            set_(self, "max_nodes", whole_value(self.max_nodes, owner, "max_nodes", 4))
        for key in ("min_nodes", "priority_tier", "priority_job_factor"):
            set_(self, key, whole_value(getattr(self, key), owner, key))
        text_value(self.state, owner, "state", "UP")
        if not isinstance(self.options, Mapping):
            raise SlurmlabError(
                f"{owner}: options={self.options!r} is not a mapping; give slurm.conf's other "
                "partition options as {'OverSubscribe': 'NO', ...}"
            )
        if not self.nodes:
            raise SlurmlabError(
                f"Partition {self.name!r}: it has no nodes; slurmlab cannot model a partition "
                "without nodes (Slurm accepts one: sinfo shows it with 0 nodes, and a job sent "
                "there waits); give it nodes (Nodes=... in slurm.conf)"
            )
        if self.state.upper() not in PARTITION_STATES:
            raise SlurmlabError(
                f"Partition {self.name!r}: State={self.state!r} is not one of "
                f"{', '.join(PARTITION_STATES)}"
            )
        object.__setattr__(self, "state", self.state.upper())
        if self.max_nodes is not None and not 1 <= self.max_nodes <= MAX_COUNT:
            none = (
                " (0 would let no job start: every job needs a node)" if self.max_nodes == 0 else ""
            )
            raise SlurmlabError(
                f"Partition {self.name!r}: MaxNodes={self.max_nodes} must be a whole number from "
                f"1 to {MAX_COUNT}, or UNLIMITED{none}"
            )
        if not 0 <= self.min_nodes <= MAX_COUNT:
            raise SlurmlabError(
                f"Partition {self.name!r}: MinNodes={self.min_nodes} must be a whole number from "
                f"0 to {MAX_COUNT}"
            )
        for key, value in (
            ("PriorityTier", self.priority_tier),
            ("PriorityJobFactor", self.priority_job_factor),
        ):
            if not 0 <= value <= MAX_COUNT16:
                raise SlurmlabError(
                    f"Partition {self.name!r}: {key}={value} must be a whole number from 0 to "
                    f"{MAX_COUNT16} (slurm.conf(5): it may not exceed {MAX_COUNT16})"
                )

    def option(self, key: str, default: str | None = None) -> str | None:
        """One of the partition line's other options by name (case-insensitive), as text."""
        low = key.lower()
        return next((v for k, v in self.options.items() if k.lower() == low), default)

    def admits_account(self, account: str | None) -> bool:
        """AllowAccounts / DenyAccounts (slurm.conf(5)): whether jobs of ``account`` may
        run here (Slurm rejects others at submission), as slurmctld's
        ``part_policy_valid_acct`` (partition_mgr.c) decides.

        Account names match in any case: read_config.c ``_parse_partitionname`` lower-cases
        AllowAccounts and DenyAccounts, and job_mgr.c ``_validate_job_desc`` the job's
        account. AllowAccounts=ALL restricts nothing; with AllowAccounts given, DenyAccounts
        is ignored ("Both AllowAccounts and DenyAccounts are defined, DenyAccounts will be
        ignored"). A job without an account is refused where AllowAccounts is given.

        >>> Partition("p", ("n1",), options={"AllowAccounts": "LLM", "DenyAccounts": "llm"}
        ...           ).admits_account("llm")
        True
        """
        own = account.lower() if account else None
        allow = (self.option("AllowAccounts") or "").strip()
        if allow and allow.upper() != "ALL":
            return own is not None and own in _accounts(allow)
        return own is None or own not in _accounts(self.option("DenyAccounts") or "")

    @property
    def time_limit_default(self) -> timedelta | None:
        """The limit a job gets when it asks for none: DefaultTime, else MaxTime."""
        return self.default_time if self.default_time is not None else self.max_time


def _accounts(text: str) -> set[str]:
    """The account names of an AllowAccounts / DenyAccounts list, in lower case."""
    return {a.strip().lower() for a in text.split(",") if a.strip()}


class ConfSettings(dict):
    """Global settings read from a slurm.conf: key -> value text, like any settings dict,
    that also remember where each was read (``where["KillWait"] == "slurm.conf line 31"``),
    so that a warning about one names its file and line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.where: dict[str, str] = {}


def preempt_conflict(settings: Mapping[str, str]) -> str | None:
    """Why slurmctld would refuse these settings' PreemptType with their PreemptMode, or
    None (read_config.c: preempt/qos and preempt/partition_prio need a mode other than OFF,
    the default; preempt/none, the default type, takes none but OFF, GANG aside).

    >>> preempt_conflict({"PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"}) is None
    True
    """
    low = {k.lower(): v for k, v in settings.items()}
    ptype = str(low.get("preempttype") or "preempt/none").strip().lower()
    given = low.get("preemptmode")
    words = {w.strip().upper() for w in str(given or "OFF").split(",") if w.strip()}
    mode_off = not (words - {"OFF", "GANG", "WITHIN"})
    said = f"PreemptMode={given}" if given else "no PreemptMode (OFF)"
    if ptype in ("preempt/qos", "preempt/partition_prio") and mode_off:
        return (
            f'PreemptType={ptype} with {said}: slurmctld refuses to start ("PreemptType and '
            "PreemptMode values incompatible\"); set PreemptMode=REQUEUE or CANCEL (a QOS's "
            "own PreemptMode does not replace it)"
        )
    if ptype == "preempt/none" and words - {"OFF", "GANG"}:
        shown = low.get("preempttype") or "preempt/none (the default)"
        return (
            f'{said} with PreemptType={shown}: slurmctld refuses to start ("PreemptType and '
            'PreemptMode values incompatible"); set PreemptType=preempt/qos to preempt, or '
            "drop PreemptMode"
        )
    return None


#: What Slurm does for each PreemptMode slurmlab does not model (preempt_mode_warning).
_PREEMPT_MODES_NOT_MODELLED = {
    "SUSPEND": "Slurm suspends a job it preempts and resumes it when the preemptor ends",
    "GANG": (
        "Slurm time-slices jobs that share CPUs (OverSubscribe=FORCE), one SchedulerTimeSlice "
        "each in turn; slurmlab runs each job on CPUs of its own, without time slicing"
    ),
    "WITHIN": "Slurm lets jobs of the same QOS preempt one another",
}


def preempt_mode_warning(settings: Mapping[str, str]) -> str | None:
    """What slurmlab leaves out of a PreemptMode of SUSPEND, GANG or WITHIN under a
    PreemptType other than preempt/qos (the only one slurmlab preempts with), or None. There
    no job is preempted, so the simulation runs as without them (spec/qos.py
    ``simulated_preempt_mode``); under preempt/qos they are refused when it simulates.

    >>> print(preempt_mode_warning({"PreemptMode": "GANG"}))
    PreemptMode=GANG: not modelled by slurmlab (ignored); GANG: Slurm time-slices jobs ...
    """
    low = {k.lower(): str(v) for k, v in settings.items()}
    ptype = (low.get("preempttype") or "preempt/none").strip().lower()
    given = low.get("preemptmode", "").strip()
    words = [w.strip().upper() for w in given.split(",") if w.strip()]
    unmodelled = [w for w in words if w in _PREEMPT_MODES_NOT_MODELLED]
    if ptype == "preempt/qos" or not unmodelled:
        return None
    no_job = f"slurmlab preempts no job under PreemptType={ptype}"
    why = "; ".join(
        f"{w}: {_PREEMPT_MODES_NOT_MODELLED[w]}" + ("" if w == "GANG" else f"; {no_job}")
        for w in unmodelled
    )
    return f"PreemptMode={given}: not modelled by slurmlab (ignored); {why}"


@dataclass(frozen=True, slots=True)
class Inert:
    """Why a scheduling field has no effect on a cluster (:func:`inert_settings`): the
    setting ``key`` (Slurm's ``default`` when it is not set) leaves it so, with the
    ``consequence``; ``needed`` are the settings that would give it effect."""

    key: str
    default: str
    consequence: str
    needed: dict[str, str]


def inert_settings(cluster: Cluster) -> dict[str, Inert]:
    """Which of QOS ``preempt`` lists, account ``shares`` and QOS ``priority`` the
    cluster's settings leave without effect (Slurm ignores them as silently), keyed by those
    field names; a field they do take effect in is left out.

    - ``preempt``: preemption needs PreemptType=preempt/qos and a PreemptMode other than
      OFF (Slurm's default);
    - ``shares``: only priority/multifactor's fair-share factor reads them, weighted by
      PriorityWeightFairshare;
    - ``priority``: a QOS's priority counts in priority/multifactor's QOS factor (weighted
      by PriorityWeightQOS) and, while preemption is on, in the order preempt/qos picks
      its victims.

    Both a scenario (naming its file and lines) and :func:`slurmlab.simulate` warn with it.
    """
    ptype = (cluster.setting("PreemptType") or "preempt/none").strip().lower()
    mode = (cluster.setting("PreemptMode") or "OFF").strip().upper()
    preempting = ptype == "preempt/qos" and mode != "OFF"
    multifactor = "multifactor" in (cluster.setting("PriorityType") or "").lower()
    out: dict[str, Inert] = {}
    if not preempting:
        needed = {"PreemptType": "preempt/qos"} if ptype != "preempt/qos" else {}
        if mode == "OFF":
            needed["PreemptMode"] = "REQUEUE"
        key, default = ("PreemptType", "preempt/none")
        if ptype == "preempt/qos":
            key, default = ("PreemptMode", "OFF")
        out["preempt"] = Inert(key, default, "so no job is preempted", needed)
    for field_name, weight_key, factor in (
        ("shares", "PriorityWeightFairshare", "fair-share"),
        ("priority", "PriorityWeightQOS", "QOS"),
    ):
        if field_name == "priority" and preempting:
            continue  # (preempt/qos orders its victims by QOS priority)
        needed = {} if multifactor else {"PriorityType": "priority/multifactor"}
        raw = (cluster.setting(weight_key) or "0").strip()
        if (int(raw) if raw.isdigit() else 0) == 0:  # (checked when the cluster was read)
            needed[weight_key] = "10000"
        if not needed:
            continue
        if multifactor:
            why = f"so the {factor} factor counts for nothing in a job's priority"
            out[field_name] = Inert(weight_key, "0", why, needed)
        else:
            why = "so a job's priority follows its submit order and no priority factor counts"
            out[field_name] = Inert("PriorityType", "priority/basic", why, needed)
    return out


_DERIVED: OrderedDict[int, tuple[Cluster, dict]] = OrderedDict()
_DERIVED_KEPT = 8  # clusters whose facts are kept (a notebook works with one or two)


def derived(cluster: Cluster) -> dict:
    """A dict of facts derived from ``cluster``, kept beside it (it is frozen, so they never
    change; a field would change its pickles and ``dataclasses.asdict``): its nodes by name
    here, the node pools of :func:`slurmlab.spec.job.resolve` there."""
    hit = _DERIVED.get(id(cluster))
    if hit is None or hit[0] is not cluster:  # (the cluster is kept: its id its own)
        hit = _DERIVED[id(cluster)] = (cluster, {})
        while len(_DERIVED) > _DERIVED_KEPT:
            _DERIVED.popitem(last=False)
    return hit[1]


def _nodes_by_name(cluster: Cluster) -> dict[str, Node]:
    """``cluster``'s nodes by name, built once (a cluster of thousands of nodes looks its
    nodes up by name once per node of a partition, per request shape resolved: a linear
    scan made that quadratic)."""
    facts = derived(cluster)
    by_name = facts.get("by_name")
    if by_name is None:
        by_name = facts["by_name"] = {n.name: n for n in cluster.nodes}
    return by_name


@dataclass(frozen=True, slots=True)
class Cluster:
    """A Slurm cluster: nodes, partitions and the scheduler-relevant slurm.conf settings.

    Each setting is checked (a value Slurm would refuse is an error); one that Slurm would
    act on but slurmlab does not model is named in a warning ("not modelled by slurmlab
    (ignored)"), with its file and line when it was read from a slurm.conf.

    ``nodes`` are kept in slurmctld's node table order, by name whatever order they are
    given in (read_config.c ``_sort_node_record_table_ptr``, ``strnatcmp``: gpu2 before
    gpu10; :func:`~slurmlab.spec.units.node_order_key`). Node indices, a job's nodes and the
    runs of consecutive nodes that placement weighs follow it; Weight= does not change it.
    """

    name: str
    nodes: tuple[Node, ...]
    partitions: tuple[Partition, ...]
    settings: Mapping[str, str] = field(default_factory=dict)
    #: a trace's processor pool (:func:`slurmlab.records.swf.swf_cluster`): one node
    #: standing for the machine's processors (``simulate`` warns that the ``slurm``
    #: policy's whole-node reservations hold all of it)
    processor_pool: bool = False

    def __post_init__(self):
        text_value(self.name, "Cluster", "name", "mycluster")
        what = f"Cluster {self.name!r}"
        nodes = parse_list_of(self.nodes, Node, what=what)  # (slurmctld's node table order)
        object.__setattr__(
            self, "nodes", tuple(sorted(nodes, key=lambda n: node_order_key(n.name)))
        )
        object.__setattr__(
            self, "partitions", tuple(parse_list_of(self.partitions, Partition, what=what))
        )
        object.__setattr__(self, "settings", _settings_text(self.name, self.settings))
        if self.processor_pool and len(self.nodes) != 1:
            raise SlurmlabError(f"Cluster {self.name!r}: a processor pool is one node")
        if not self.nodes:
            raise SlurmlabError(f"Cluster {self.name!r}: it has no nodes")
        names = [n.name for n in self.nodes]
        known = set(names)
        if len(known) != len(names):
            dup = {n for n, k in Counter(names).items() if k > 1}
            raise SlurmlabError(
                f"Cluster {self.name!r}: node names repeated: {compress_hostlist(dup)} "
                f"{'is' if len(dup) == 1 else 'are'} defined twice (two NodeName lines, or "
                "two nodes entries, name them); define each node once"
            )
        pnames = [p.name for p in self.partitions]
        if len(set(pnames)) != len(pnames):
            dup = sorted(n for n, k in Counter(pnames).items() if k > 1)
            raise SlurmlabError(
                f"Cluster {self.name!r}: partition names repeated: {', '.join(dup)} "
                f"{'is' if len(dup) == 1 else 'are'} defined twice; give each partition its "
                "own name (one PartitionName line, or one partitions entry, each)"
            )
        for p in self.partitions:
            missing = [n for n in p.nodes if n not in known]
            if missing:
                raise SlurmlabError(
                    f"Partition {p.name!r}: nodes {compress_hostlist(missing)} are not defined; "
                    "add NodeName lines for them"
                )
        types = gres_types(self.settings)
        checked: set[str] = set()
        for node in self.nodes:
            problem = node_gres_problem(node, types, checked)
            if problem:
                raise SlurmlabError(f"Node {node.name!r}: {problem}")
        defaults = [p.name for p in self.partitions if p.default]
        if len(defaults) > 1:
            raise SlurmlabError(
                f"Cluster {self.name!r}: more than one partition has Default=YES ({defaults}); "
                "make one of them the default (a slurm.conf read with from_slurm_conf follows "
                "slurmctld instead: the last Default=YES partition is the default)"
            )
        for key, value in self.settings.items():
            problem = setting_problem(key, value)
            if problem:
                raise SlurmlabError(f"Cluster {self.name!r}: {problem}")
        where = getattr(self.settings, "where", {})  # (ConfSettings: read from a file)
        note = None if isinstance(self.settings, ConfSettings) else no_consume_gpu_note(self.nodes)
        if note:  # (a slurm.conf's is named at its NodeName= line)
            warn_at_caller(f"Cluster {self.name!r}: nodes {note}")
        conflict = (
            preempt_conflict(self.settings)
            or select_conflict(self.settings)
            or backfill_conflict(self.settings)
            or usage_reset_conflict(self.settings)
        )
        if conflict:
            raise SlurmlabError(f"Cluster {self.name!r}: {conflict}")
        for key, value in self.settings.items():
            note = unknown_key_warning(key, value) or setting_warning(key, value)
            if key.lower() == "preemptmode":
                note = preempt_mode_warning(self.settings)
            if note:
                warn_at_caller(f"{where.get(key) or f'Cluster {self.name!r}'}: {note}")

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_slurm_conf(
        cls,
        path_or_text: str | Path,
        gres_conf: str | Path | None = None,
        *,
        name: str | None = None,
    ) -> Cluster:
        """Build a cluster from a real ``slurm.conf`` (a path or its text) and optional gres.conf.

        A path that is missing, empty, a directory or not UTF-8 text is a
        :class:`~slurmlab.ConfigError` naming the file (slurm.conf or gres.conf) and the fix.
        """
        from slurmlab.spec.slurm_conf import parse_slurm_conf

        conf = _conf_source(path_or_text, "slurm.conf")
        gres = None if gres_conf is None else _conf_source(gres_conf, "gres.conf")
        return parse_slurm_conf(conf, gres, name=name)

    @classmethod
    def coerce(cls, value: Cluster | str | Path, gres_conf: str | Path | None = None) -> Cluster:
        """``value`` as a cluster: a Cluster, a preset name (``"ai"``) or a slurm.conf path."""
        if isinstance(value, Cluster):
            return value
        from slurmlab.spec.presets import presets

        if isinstance(value, str) and value in presets():
            return cls.preset(value)
        if isinstance(value, str | Path) and str(value) and (path := home_path(value)).exists():
            value = path  # ("~/slurm.conf", as pandas' readers take it)
            if value.is_dir():
                inside = value / "slurm.conf"
                hint = f"; give {str(inside)!r}" if inside.is_file() else ""
                raise SlurmlabError(
                    f"cluster {str(value)!r} is neither a preset ({', '.join(presets())}) nor a "
                    f"slurm.conf file: it is a directory{hint} (or give a slurmlab.Cluster)"
                )
            return cls.from_slurm_conf(value, gres_conf)
        raise SlurmlabError(
            f"cluster {value!r} is neither a preset ({', '.join(presets())}) nor a slurm.conf "
            "file that exists (or give a slurmlab.Cluster)"
        )

    @classmethod
    def preset(cls, name: str) -> Cluster:
        """A named example cluster; ``slurmlab.presets()`` lists the names."""
        from slurmlab.spec.presets import preset

        return preset(name)

    # -- lookups ------------------------------------------------------------------------------
    def node(self, name: str) -> Node:
        node = _nodes_by_name(self).get(name) if isinstance(name, str) else None
        if node is not None:
            return node
        raise SlurmlabError(f"Cluster {self.name!r}: no node named {name!r}")

    def partition(self, name: str | None = None) -> Partition:
        """The named partition, or the default one (Default=YES) for None."""
        if name is None:
            return self.default_partition
        for p in self.partitions:
            if p.name == name:
                return p
        raise SlurmlabError(
            f"invalid partition specified: {name!r} (this cluster has "
            f"{', '.join(p.name for p in self.partitions)}): Invalid partition name specified"
        )

    @property
    def default_partition(self) -> Partition:
        """The Default=YES partition, where a job without ``-p`` goes. Without one Slurm
        rejects such a job ("No partition specified or system default partition")."""
        if not self.partitions:
            raise SlurmlabError(f"Cluster {self.name!r}: it has no partitions")
        for p in self.partitions:
            if p.default:
                return p
        raise RequestError(
            "No partition specified or system default partition: give -p "
            f"({', '.join(p.name for p in self.partitions)}), or make one partition the "
            "default (Default=YES in slurm.conf, default: true in a scenario's inline "
            "partitions, Partition(..., default=True) in Python)"
        )

    @property
    def has_default_partition(self) -> bool:
        return any(p.default for p in self.partitions)

    def setting(self, key: str, default: str | None = None) -> str | None:
        """A global slurm.conf setting by name (case-insensitive), as text."""
        if not isinstance(key, str):
            raise SlurmlabError(
                f"Cluster {self.name!r}: setting name {key!r} is not text; give slurm.conf's "
                "key, e.g. cluster.setting('JobRequeue')"
            )
        low = key.lower()
        for k, v in self.settings.items():
            if k.lower() == low:
                return v
        return default

    @property
    def scheduler_parameters(self) -> dict[str, str]:
        """``SchedulerParameters`` as a dict, names in lower case (``bf_interval=5`` ->
        ``{'bf_interval': '5'}``)."""
        raw = self.setting("SchedulerParameters", "") or ""
        out = {}
        for item in raw.split(","):
            item = item.strip()
            if item:
                k, _, v = item.partition("=")
                out[k.strip().lower()] = v.strip()  # (slurmctld matches them in any case)
        return out

    @property
    def memory_tracked(self) -> bool:
        """Whether memory is a consumable resource: SelectTypeParameters=CR_*_Memory, or
        SelectType=select/cons_tres or select/cons_res with no SelectTypeParameters, which
        then use CR_Core_Memory (cons_common.c ``select_p_node_init``: "SelectTypeParameters
        not specified, using default value: CR_Core_Memory"). Settings that name no
        SelectType (a cluster built in Python) leave memory untracked."""
        params = (self.setting("SelectTypeParameters", "") or "").strip()
        if not params:
            select = (self.setting("SelectType", "") or "").strip().lower()
            return select in ("select/cons_tres", "select/cons_res")
        return "memory" in params.lower()

    @property
    def core_allocation(self) -> bool:
        """Whether Slurm allocates whole cores (SelectTypeParameters CR_Core*, CR_Socket*,
        or unset, as Slurm's default CR_Core_Memory), rather than single CPUs (CR_CPU*):
        on nodes with ThreadsPerCore > 1 a job then gets every thread of its cores."""
        return "cr_cpu" not in (self.setting("SelectTypeParameters", "") or "").lower()

    @property
    def one_task_per_core(self) -> bool:
        """SelectTypeParameters' CR_ONE_TASK_PER_CORE: ``--ntasks-per-core=1`` by default."""
        return "cr_one_task_per_core" in (self.setting("SelectTypeParameters", "") or "").lower()

    @property
    def requeue_delay(self) -> float:
        """How long a requeued job waits before it may start again: AuthInfo's
        ``cred_expire`` (default 120 s) plus one second, as batch_requeue_fini (job_mgr.c)
        sets the job's begin time (slurm.conf(5): cred_expire "also controls how long a
        requeued job must wait before starting again")."""
        expire = _cred_expire(self.setting("AuthInfo", "") or "")
        return float((120 if expire is None else expire) + 1)

    @property
    def job_requeue(self) -> bool:
        """slurm.conf ``JobRequeue`` (default 1: batch jobs are requeued after node failure)."""
        return (self.setting("JobRequeue", "1") or "1").strip() != "0"

    def with_node_states(self, states: Mapping[str, str]) -> Cluster:
        """A copy with some nodes' states changed (``{'gpu01': 'DOWN'}``)."""
        return replace(
            self,
            nodes=tuple(replace(n, state=states.get(n.name, n.state)) for n in self.nodes),
        )

    # -- views --------------------------------------------------------------------------------
    def partition_cpus(self, name: str | None = None) -> int:
        """The CPUs of a partition's nodes in all (Slurm's ``total_cpus`` of a partition)."""
        return sum(self.node(n).cpus for n in self.partition(name).nodes)

    def tres(self) -> dict[str, int]:
        """Trackable-resource totals with Slurm's TRES names.

        >>> Cluster.preset("tiny").tres()["gres/gpu"]
        8
        """
        out = {
            "cpu": sum(n.cpus for n in self.nodes),
            "mem": sum(n.memory_mb for n in self.nodes),
            "node": len(self.nodes),
        }
        gpus = sum(n.gpus for n in self.nodes)
        if gpus:
            out["gres/gpu"] = gpus
            types: dict[str, int] = {}
            for n in self.nodes:
                for t, c in n.gpu_types.items():
                    types[t] = types.get(t, 0) + c
            for t in sorted(types):
                out[f"gres/gpu:{t}"] = types[t]
        return out

    def sinfo(self, node_states: Mapping[str, str] | None = None) -> pd.DataFrame:
        """An ``sinfo``-like table: one row per (partition, node state), like sinfo's default.

        ``node_states`` overrides node states (``{'gpu01': 'alloc'}``), as a simulation does.
        """
        return sinfo_frame(self, node_states or {})

    def sinfo_text(self, node_states: Mapping[str, str] | None = None) -> str:
        """The ``sinfo`` default output as text (PARTITION AVAIL TIMELIMIT NODES STATE NODELIST).

        Uses sinfo's default format ``%9P %.5a %.10l %.6D %.6t %N``: fixed widths,
        right-justified where the format has a dot, long values cut like sinfo cuts them.
        The PARTITION column is as wide as the longest name printed, the default
        partition's ``*`` counted, and at least 9 (sinfo's print.c
        ``_set_part_field_size``): ``interactive*`` is printed whole.
        """
        frame = self.sinfo(node_states)
        return format_fixed(frame, sinfo_format(frame))

    def __repr__(self) -> str:
        t = self.tres()
        counts = [(t["node"], "node"), (t["cpu"], "CPU"), (t.get("gres/gpu"), "GPU")]
        said = ", ".join(f"{n} {word}{'s' * (n != 1)}" for n, word in counts if n is not None)
        parts = [p.name for p in self.partitions]
        return (
            f"Cluster({self.name!r}: {said}, partition{'s' * (len(parts) != 1)} {', '.join(parts)})"
        )


def _state_word(state: str) -> str:
    s = state.lower()
    return {"up": "idle", "unknown": "unk", "future": "futr"}.get(s, s)


#: sinfo's compact node states as raw Slurm node states (slurm.h: base UNKNOWN 0, DOWN 1,
#: IDLE 2, ALLOCATED 3, MIXED 5, FUTURE 6, with flag bits RES 0x20, DRAIN 0x200, NO_RESPOND
#: 0x800, MAINT 0x8000, PLANNED 0x200000), each the flags that make slurm_protocol_defs.c
#: node_state_string_compact print it: resv is an idle node of a reservation in force
#: (reservation.c set_node_maint_mode sets RES on its nodes, and MAINT for a maintenance
#: one), drng a draining node still running jobs, plnd an idle node sched/backfill planned
#: a job on (backfill.c _handle_planned; it sorts above every other state)
_SINFO_STATE_VALUES = {
    "unk": 0x0,
    "down": 0x1,
    "idle": 0x2,
    "alloc": 0x3,
    "mix": 0x5,
    "futr": 0x6,
    "future": 0x6,
    "resv": 0x22,
    "maint": 0x8022,
    "drain": 0x202,
    "drng": 0x203,
    "plnd": 0x200002,
}
_SINFO_MARKS = {"*": 0x800, "$": 0x8020}  # (not responding; in a maintenance reservation)


def sinfo_state_value(state: str) -> int:
    """The raw Slurm node state behind a compact sinfo state (``down*`` is DOWN|NO_RESPOND,
    0x801), which sinfo's default sort ``#P,-t`` orders by, largest first (sort.c
    ``_sort_by_state`` compares sinfo_data's node_state, flag bits included); -1 for a word
    it does not know.

    >>> sorted(["alloc", "mix", "down*", "resv", "idle"], key=sinfo_state_value, reverse=True)
    ['down*', 'resv', 'mix', 'alloc', 'idle']
    """
    word = state.rstrip("*$")
    value = _SINFO_STATE_VALUES.get(word)
    if value is None:
        return -1
    for mark in state[len(word) :]:
        value |= _SINFO_MARKS[mark]
    return value


def sinfo_frame(cluster: Cluster, node_states: Mapping[str, str]) -> pd.DataFrame:
    """sinfo's default view: a row per partition and node state. Like sinfo without
    ``--all``/``--future``, it leaves out Hidden=YES partitions and FUTURE nodes."""
    rows = []
    default = next((p for p in cluster.partitions if p.default), None)
    by_name = {n.name: n for n in cluster.nodes}
    for p in cluster.partitions:
        if conf_bool(p.option("Hidden", "NO")):
            continue
        groups: dict[str, list[str]] = {}
        for n in p.nodes:
            st = node_states.get(n) or _state_word(by_name[n].state)
            if st in ("future", "futr"):  # (a FUTURE node resumed is shown like any other)
                continue
            groups.setdefault(st, []).append(n)
        # sinfo's default sort "#P,-t": partitions as configured, then decreasing raw node
        # state, flag bits included (down* and resv above mix and alloc; see sinfo_state_value)
        for st, names in sorted(groups.items(), key=lambda g: -sinfo_state_value(g[0])):
            rows.append(
                {
                    "PARTITION": p.name + ("*" if p is default else ""),
                    "AVAIL": p.state.lower() if p.state != "INACTIVE" else "inact",
                    "TIMELIMIT": "infinite" if p.max_time is None else format_duration(p.max_time),
                    "NODES": len(names),
                    "STATE": st,
                    "NODELIST": compress_hostlist(names),
                }
            )
    return pd.DataFrame(
        rows, columns=["PARTITION", "AVAIL", "TIMELIMIT", "NODES", "STATE", "NODELIST"]
    )


def format_table(frame: pd.DataFrame, right: Iterable[str] = ("NODES",)) -> str:
    """Render a frame as a Slurm-style fixed-width text table (upper-case headers)."""
    right = set(right)
    cols = list(frame.columns)
    cells = [[str(v) for v in row] for row in frame.astype(object).itertuples(index=False)]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]

    def fmt(values):
        return " ".join(
            v.rjust(w) if c in right else v.ljust(w) for v, w, c in zip(values, widths, cols)
        ).rstrip()

    return "\n".join([fmt(cols)] + [fmt(r) for r in cells])


#: sinfo's default ``%9P %.5a %.10l %.6D %.6t %N``: (column, width, right-justified).
SINFO_FORMAT = (
    ("PARTITION", 9, False),
    ("AVAIL", 5, True),
    ("TIMELIMIT", 10, True),
    ("NODES", 6, True),
    ("STATE", 6, True),
    ("NODELIST", 0, False),
)


def sinfo_format(frame: pd.DataFrame) -> tuple:
    """:data:`SINFO_FORMAT` with the PARTITION width sinfo gives the rows of ``frame`` (its
    PARTITION column, the default's ``*`` already on): the longest, at least 9
    (print.c ``_set_part_field_size``, MIN_PART_FIELD_SIZE; the default format sets
    part_field_flag), so a name is never cut and keeps its ``*``."""
    width = max([SINFO_FORMAT[0][1], *(len(str(p)) for p in frame["PARTITION"])])
    return (("PARTITION", width, False), *SINFO_FORMAT[1:])


def format_fixed(frame: pd.DataFrame, spec) -> str:
    """Render rows the way Slurm's ``%.Nx`` format fields do (width 0: as long as needed)."""

    def cell(value, width, right):
        v = str(value)
        if width == 0:
            return v
        v = v[:width]
        return v.rjust(width) if right else v.ljust(width)

    lines = [" ".join(cell(c, w, r) for c, w, r in spec).rstrip()]
    for row in frame.astype(object).itertuples(index=False):
        rec = dict(zip(frame.columns, row))
        lines.append(" ".join(cell(rec[c], w, r) for c, w, r in spec).rstrip())
    return "\n".join(lines)


def conf_bool(value) -> bool | None:
    """A slurm.conf boolean as parse_config.c ``s_p_handle_boolean`` reads it: YES, UP, TRUE
    or 1 is true, NO, DOWN, FALSE or 0 false (any case); anything else None."""
    word = str(value).strip().lower()
    if word in ("yes", "up", "true", "1"):
        return True
    if word in ("no", "down", "false", "0"):
        return False
    return None


#: slurm.conf keys checked when a cluster is built, with the form Slurm accepts.
_WHOLE_WEIGHTS = (
    "PriorityWeightAge", "PriorityWeightAssoc", "PriorityWeightFairshare",
    "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
)  # fmt: skip
_TIMES = ("PriorityDecayHalfLife", "PriorityCalcPeriod", "PriorityMaxAge")
#: Settings slurm.conf reads as booleans (read_config.c S_P_BOOLEAN: parse_value.c
#: ``s_p_handle_boolean``, whose words :func:`conf_bool` reads)
_BOOLEANS = ("PriorityFavorSmall",)


_MEMORY_KEYS = {"defmempercpu", "defmempernode", "defmempergpu", "maxmempercpu", "maxmempernode"}

#: SchedulerParameters the ``slurm`` policy models: (lowest, highest) whole value Slurm
#: accepts (sched/backfill's _load_config, job_scheduler.c; bf_window in minutes), and what
#: it means. ``bf_interval`` and ``sched_interval`` also take -1 (off).
SCHEDULER_PARAMETERS = {
    "bf_interval": (1, 10800, "seconds between backfill cycles, e.g. 30"),
    "bf_resolution": (1, 3600, "seconds, e.g. 60"),
    "bf_window": (1, 43200, "minutes, e.g. 1440"),
    "bf_max_job_test": (1, 1000000, "jobs, e.g. 500"),
    "bf_node_space_size": (
        2,
        2000000,
        "records of a backfill cycle's map, e.g. 500; by default bf_max_job_test",
    ),
    "bf_max_job_array_resv": (
        0,
        1000,
        "tasks of one job array a backfill cycle reserves for, e.g. 20, the default; 0: "
        "backfill tests no array's pending tasks at all",
    ),
    "bf_max_job_user": (
        0,
        1000000,
        "jobs of one user a backfill cycle tests, e.g. 20; 0: no limit",
    ),
    "bf_max_job_assoc": (
        0,
        1000000,
        "jobs of one association (account and user) a backfill cycle tests, e.g. 20; 0: no limit",
    ),
    "bf_max_job_part": (
        0,
        1000000,
        "jobs of one partition a backfill cycle tests, e.g. 100; 0: no limit",
    ),
    "bf_max_job_user_part": (
        0,
        1000000,
        "jobs of one user in one partition a backfill cycle tests, e.g. 10; 0: no limit",
    ),
    "bf_max_job_start": (0, 10000, "jobs one backfill cycle starts at most, e.g. 50; 0: no limit"),
    "bf_min_age_reserve": (
        0,
        2592000,
        "seconds a job must have been eligible before backfill reserves for it, e.g. 600",
    ),
    "bf_min_prio_reserve": (
        0,
        4294967295,
        "the priority below which backfill starts a job only at once, never reserves for it",
    ),
    "default_queue_depth": (0, 1000000, "jobs, e.g. 100; 0 tests one job"),
    "sched_interval": (
        0,
        1000000,
        "seconds between full main-scheduler passes, e.g. 60 (0: at every loop of slurmctld's "
        "background thread, about every second)",
    ),
}

#: What -1 means for the parameters that take it.
_OFF = {"bf_interval": "-1 (no backfill)", "sched_interval": "-1 (no main scheduler)"}

#: Every SchedulerParameters option of Slurm 22.05 (slurm.conf(5), its SchedulerParameters
#: section), lower case, plus two spellings slurmctld also reads: ``max_rpc_count``
#: (job_scheduler.c, for max_rpc_cnt) and ``max_job_bf`` (the old name of bf_max_job_test:
#: sched/builtin reads it, sched/backfill refuses it, see :func:`backfill_conflict`). Slurm finds each as ``name=`` (or ``name``) anywhere in the line and
#: ignores anything else.
SLURM_SCHEDULER_PARAMETERS = (
    "allow_zero_lic", "assoc_limit_stop", "batch_sched_delay", "bb_array_stage_cnt",
    "bf_busy_nodes", "bf_continue", "bf_hetjob_immediate", "bf_hetjob_prio", "bf_interval",
    "bf_job_part_count_reserve", "bf_licenses", "bf_max_job_array_resv", "bf_max_job_assoc",
    "bf_max_job_part", "bf_max_job_start", "bf_max_job_test", "bf_max_job_user",
    "bf_max_job_user_part", "bf_max_time", "bf_min_age_reserve", "bf_min_prio_reserve",
    "bf_node_space_size", "bf_one_resv_per_job", "bf_resolution", "bf_running_job_reserve",
    "bf_window", "bf_window_linear", "bf_yield_interval", "bf_yield_sleep",
    "build_queue_timeout", "correspond_after_task_cnt", "default_queue_depth", "defer",
    "delay_boot", "disable_job_shrink", "disable_hetjob_steps", "enable_hetjob_steps",
    "enable_user_top", "ignore_numa", "ignore_prefer_validation", "max_array_tasks",
    "max_rpc_cnt", "max_sched_time", "max_script_size", "max_switch_wait",
    "no_backup_scheduling", "no_env_cache", "nohold_on_prolog_fail", "pack_serial_at_end",
    "partition_job_depth", "preempt_reorder_count", "preempt_strict_order",
    "preempt_youngest_first", "reduce_completing_frag", "requeue_setup_env_fail",
    "salloc_wait_nodes", "sbatch_wait_nodes", "sched_interval", "sched_max_job_start",
    "sched_min_interval", "spec_cores_first", "step_retry_count", "step_retry_time",
    "whole_hetjob",
    "max_rpc_count", "max_job_bf",
)  # fmt: skip


def scheduler_parameters_problem(value: str) -> str | None:
    """What is wrong with a SchedulerParameters line's modelled options, or None.

    A modelled option must be a whole number in Slurm's range, given once. An option of
    Slurm's written with a space before ``=`` is refused: slurmctld looks for ``name=`` and
    would not see it (it would keep the default), which is surely not what was meant.
    Options that are not Slurm's are warned about when a simulation uses them.

    >>> scheduler_parameters_problem("bf_interval=5,bf_window=abc")
    "SchedulerParameters bf_window='abc' must be a whole number from 1 to 43200 (minutes, e.g. 1440)"
    """
    seen: set[str] = set()
    for item in str(value).split(","):
        item = item.strip()
        key, eq, raw = item.partition("=")
        name = key.strip().lower()  # (slurmctld matches them in any case)
        if eq and name != key.lower() and name in SLURM_SCHEDULER_PARAMETERS:
            written = name + "=" + raw.strip()
            return (
                f"SchedulerParameters {item!r}: Slurm does not recognise an option with a space "
                f"before '=' (it looks for '{name}=') and would use its default; write {written}"
            )
        key, raw = name, raw.strip()
        if key not in SCHEDULER_PARAMETERS:
            continue
        if key in seen:
            return f"SchedulerParameters gives {key} twice; keep one"
        seen.add(key)
        low, high, what = SCHEDULER_PARAMETERS[key]
        if key in _OFF and raw == "-1":
            continue
        if not ascii_digits(raw) or not low <= int(raw) <= high:
            off = f"{_OFF[key]} or " if key in _OFF else ""
            return (
                f"SchedulerParameters {key}={raw!r} must be {off}a whole number "
                f"from {low} to {high} ({what})"
            )
    return None


#: Whole-number settings: key -> (lowest, highest, what it counts), as slurmctld reads them
#: (read_config.c; uint16 unless slurm.conf(5) says less).
_WHOLE_SETTINGS = {
    "CompleteWait": (0, 65535, "seconds, e.g. 0, the default"),
    "FairShareDampeningFactor": (1, 65535, "e.g. 1, the default"),
    "KillOnBadExit": (0, 1, "1: a task that fails kills its step; 0, the default: it does not"),
    "KillWait": (0, 65535, "seconds, e.g. 30, the default"),
    "MaxArraySize": (0, 4000001, "e.g. 1001, the default"),
    "ResumeTimeout": (0, 65535, "seconds, e.g. 60, the default"),
    "ReturnToService": (0, 2, "0, the default, 1 or 2"),
    "SchedulerTimeSlice": (5, 65535, "seconds, e.g. 30, the default"),
    "SlurmdTimeout": (0, 65535, "seconds, e.g. 300, the default"),
}

#: Settings that take one of a few words (in any case): key -> the words slurm.conf(5) lists.
_CHOICES = {
    "EnforcePartLimits": ("ALL", "ANY", "NO", "YES"),
    "PreemptType": ("preempt/none", "preempt/partition_prio", "preempt/qos"),
    "PriorityType": ("priority/basic", "priority/multifactor"),
    "PriorityUsageResetPeriod": (
        "NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY",
    ),
    "SelectType": ("select/cons_tres", "select/cons_res", "select/linear", "select/cray_aries"),
}  # fmt: skip

#: Slurm's PriorityFlags (slurm.conf(5), 22.05 on) and the three slurmlab models.
PRIORITY_FLAGS = (
    "ACCRUE_ALWAYS", "CALCULATE_RUNNING", "DEPTH_OBLIVIOUS", "INCR_ONLY", "MAX_TRES",
    "NO_FAIR_TREE", "NO_NORMAL_ALL", "NO_NORMAL_ASSOC", "NO_NORMAL_PART", "NO_NORMAL_QOS",
    "NO_NORMAL_TRES", "SMALL_RELATIVE_TO_TIME",
)  # fmt: skip
_PRIORITY_FLAGS_MODELLED = ("NO_FAIR_TREE", "DEPTH_OBLIVIOUS", "MAX_TRES")
_PRIORITY_FLAGS_OLD = ("FAIR_TREE",)  # (before 19.05 it turned Fair Tree on: now the default)

#: Slurm's PreemptModes (slurm.conf(5)); slurmlab runs OFF, CANCEL and REQUEUE and refuses
#: the others when it simulates (spec/qos.py parse_preempt_mode).
_PREEMPT_MODES = ("OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "WITHIN")

#: TRES names (slurm.conf(5) AccountingStorageTRES). slurmlab counts cpu, mem, node and
#: gres/gpu; the others are Slurm's but weigh nothing in a simulation.
_TRES_MODELLED = ("cpu", "mem", "node", "gres/gpu")
_TRES_OTHER = ("billing", "energy", "fs/disk", "fs/lustre", "ic/ofed", "pages", "vmem")
_TRES_PREFIXES = ("gres/", "license/", "bb/")
_TRES_NAMES = (
    "CPU, Mem, Node, GRES/<name>[:<type>] (e.g. GRES/gpu), Billing, Energy, FS/Disk, "
    "FS/Lustre, IC/OFED, Pages, VMem, License/<name> or BB/<name>"
)


def _words(words, last: str = "or") -> str:
    """``("A", "B", "C")`` -> ``"A, B or C"`` (``last="and"``: ``"A, B and C"``)."""
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def _by_name(table: Mapping, low: str):
    """The entry of ``table`` whose key is ``low`` in any case, else None."""
    return next((v for k, v in table.items() if k.lower() == low), None)


#: slurm.conf keys Slurm 22.05 has removed (read_config.c ``_validate_and_set_defaults``,
#: and ``_defunct_option`` for SchedulerAuth): key -> (what slurmctld says, the fix). Of
#: these, slurmctld stops on every value of AccountingStorageLoc, AccountingStoreJobComment
#: and SallocDefaultCommand, and on FastSchedule but FastSchedule=1; it logs the others
#: (:func:`obsolete_setting`).
_REMOVED_KEYS = {
    "AccountingStorageLoc": (
        "The AccountingStorageLoc option has been removed. It is safe to remove from your "
        "configuration.",
        "remove the line",
    ),
    "AccountingStoreJobComment": (
        "The AccountingStoreJobComment option has been removed, please use "
        "AccountingStoreFlags=job_comment option instead.",
        "write AccountingStoreFlags=job_comment instead (or remove the line)",
    ),
    "SallocDefaultCommand": (
        "SallocDefaultCommand has been removed. Please consider setting "
        "LaunchParameters=use_interactive_step instead.",
        "remove the line (LaunchParameters=use_interactive_step gives salloc its shell)",
    ),
    "FastSchedule": (
        "The FastSchedule option has been removed. Please update your configuration.",
        "remove the line (slurmctld schedules by the node sizes slurm.conf gives)",
    ),
    "SchedulerAuth": (
        'The option "SchedulerAuth" is defunct, see man slurm.conf.',
        "slurmctld ignores it, as slurmlab does; remove the line",
    ),
}


def obsolete_setting(key: str, value: str) -> tuple[bool, str] | None:
    """Whether slurmctld 22.05 stops on a global setting Slurm has removed or renamed, and
    its words with the fix; None for any other setting.

    slurmctld stops on AccountingStorageLoc, AccountingStoreJobComment,
    SallocDefaultCommand and FastSchedule other than 1 (fatal, read_config.c
    ``_validate_and_set_defaults``); it logs FastSchedule=1 ("Ignoring obsolete"),
    SchedulerAuth ("defunct", ``_defunct_option``) and MpiDefault=openmpi (read as none),
    and goes on.

    >>> obsolete_setting("FastSchedule", "1")[0], obsolete_setting("FastSchedule", "2")[0]
    (False, True)
    >>> obsolete_setting("MpiDefault", "pmi2") is None
    True
    """
    low, text = key.lower(), str(value).strip()
    if low == "mpidefault":
        if text != "openmpi":  # (xstrcmp: case matters)
            return None
        return False, (
            'slurmctld reads it as MpiDefault=none and logs "Translating obsolete '
            "'MpiDefault=openmpi' option to 'MpiDefault=none'. Please update your "
            'configuration."; write MpiDefault=none'
        )
    name = next((k for k in _REMOVED_KEYS if k.lower() == low), None)
    if name is None:
        return None
    said, fix = _REMOVED_KEYS[name]
    number = int(text) if name == "FastSchedule" and ascii_digits(text) else None
    if name == "SchedulerAuth" or number == 1:
        if number == 1:
            said = "Ignoring obsolete FastSchedule=1 option. Please remove from your configuration."
            fix = "slurmctld goes on without it, as slurmlab does; remove the line"
        return False, f'slurmctld logs "{said}"; {fix}'
    if number == 2:
        said = (
            "The FastSchedule option has been removed. The FastSchedule=2 functionality is "
            "available through the SlurmdParameters=config_overrides option."
        )
        fix = "write SlurmdParameters=config_overrides instead (or remove the line)"
    return True, f'slurmctld refuses to start ("{said}"); {fix}'


def setting_problem(key: str, value: str) -> str | None:
    """What is wrong with a global setting of slurm.conf, or None when Slurm would take it.

    PriorityWeight* are whole numbers from 0 to 4294967295 (uint32); PriorityWeightTRES and
    TRESBillingWeights are ``TRES=number`` lists of Slurm's TRES names; PriorityDecayHalfLife,
    PriorityCalcPeriod, PriorityMaxAge and PreemptExemptTime are Slurm times; JobRequeue is
    0 or 1; PriorityFlags and PreemptMode are lists of Slurm's words; PreemptType, PriorityType,
    SelectType... are one of Slurm's plugins; timeouts and counts are whole numbers in range.

    >>> setting_problem("PriorityWeightAge", "1000") is None
    True
    >>> setting_problem("JobRequeue", "no")
    "JobRequeue='no' must be 0 (never requeue batch jobs) or 1 (requeue them, the default)"
    >>> setting_problem("PreemptType", "preempt/bogus")
    "PreemptType='preempt/bogus' must be preempt/none, preempt/partition_prio or preempt/qos"
    """
    low = key.lower()
    text = str(value).strip()
    obsolete = obsolete_setting(key, text)
    if obsolete is not None and obsolete[0]:
        return f"{key}={value}: Slurm 22.05 has removed {key}: {obsolete[1]}"
    for name in _WHOLE_WEIGHTS:
        if low == name.lower():
            if not ascii_digits(text) or int(text) > UINT32_MAX:
                return f"{key}={value!r} must be a whole number from 0 to {UINT32_MAX}, e.g. 1000"
            return None
    if low == "schedulerparameters":
        return scheduler_parameters_problem(text)
    if low in _MEMORY_KEYS and not (ascii_digits(text) or text.upper() == "UNLIMITED"):
        return f"{key}={value!r} must be a whole number of MB (or UNLIMITED), e.g. 4000"
    if any(low == name.lower() for name in _BOOLEANS):
        if conf_bool(text) is None:
            return (
                f'{key}={value!r} is not a boolean (Slurm: "{text}" is not a valid option for '
                f'"{key}"); write YES, TRUE, 1 or UP, or NO, FALSE, 0 or DOWN (e.g. {key}=YES)'
            )
        return None
    choices = _by_name(_CHOICES, low)
    if choices is not None:
        if text.lower() not in (c.lower() for c in choices):
            return f"{key}={value!r} must be {_words(choices)}"
        return None
    whole = _by_name(_WHOLE_SETTINGS, low)
    if whole is not None:
        lowest, highest, what = whole
        if not ascii_digits(text) or not lowest <= int(text) <= highest:
            return f"{key}={value!r} must be a whole number from {lowest} to {highest} ({what})"
        return None
    if low == "priorityweighttres":
        return _tres_list_problem(key, value, signed=True)
    if low == "tresbillingweights":
        return _tres_list_problem(key, value, signed=False)
    if low == "priorityflags":
        known = PRIORITY_FLAGS + _PRIORITY_FLAGS_OLD
        bad = [f for f in _list(text) if f.upper() not in known]
        if bad:
            return (
                f"{key}={value!r}: {bad[0]!r} is not a Slurm priority flag; give a comma list "
                f"of {_words(PRIORITY_FLAGS, 'and')}"
            )
        return None
    if low == "preemptmode":
        bad = [m for m in _list(text) if m.upper() not in _PREEMPT_MODES] or ([] if text else [""])
        if bad:
            return (
                f"{key}={value!r}: {bad[0]!r} is not a PreemptMode; Slurm's are "
                f"{_words(_PREEMPT_MODES, 'and')} (slurmlab runs OFF, CANCEL and REQUEUE)"
            )
        return None
    if low == "preemptexempttime" and text != "-1":  # (-1, the default: no job is exempt)
        if not _is_time(text) and text.upper() not in ("UNLIMITED", "INFINITE"):
            return (
                f"{key}={value!r} must be -1 (none, the default), UNLIMITED (never preempted) "
                "or a Slurm time: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S (e.g. 10 or 0:10:00)"
            )
        return None
    if low == "overtimelimit":
        unlimited = text.upper() in ("UNLIMITED", "INFINITE")  # (s_p_handle_uint16)
        if not unlimited and not (ascii_digits(text) and int(text) <= MAX_COUNT16):
            return (
                f"{key}={value!r} must be a whole number of minutes up to {MAX_COUNT16}, "
                "or UNLIMITED"
            )
        return None
    if low == "suspendtime":  # (NONE, INFINITE or -1, the default: power saving off)
        if text.upper() not in ("NONE", "INFINITE", "-1") and not ascii_digits(text):
            return f"{key}={value!r} must be a whole number of seconds, or NONE (the default)"
        return None
    if low in ("requeueexit", "requeueexithold"):
        for item in _list(text):
            first, _, last = item.partition("-")
            if (
                not (ascii_digits(first) and (not last or ascii_digits(last)))
                or int(last or first) > 255
            ):
                return (
                    f"{key}={value!r}: {item!r} is not an exit code (0-255) or a range of "
                    "them; write e.g. 1-9,18"
                )
        return None
    for name in _TIMES:
        if low == name.lower():
            try:
                limit = parse_duration(text, what=key)
            except SlurmlabError:
                return (
                    f"{key}={value!r} is not a Slurm time: use minutes, M:S, H:M:S, D-H, "
                    "D-H:M or D-H:M:S (e.g. 7-0 or 1:00:00)"
                )
            if limit is None and low == "prioritymaxage":  # (UNLIMITED: no age ever counts)
                return f"{key}={value!r} must be a time, e.g. 7-0 (the default, 7 days)"
            if low == "prioritycalcperiod" and (limit is None or not limit.total_seconds()):
                # read_config.c: time_str2mins (minutes rounded up) must be >= 1
                return (
                    f'{key}={value!r}: slurmctld refuses it (Bad value "{text}" for '
                    "PriorityCalcPeriod): it must be a time of at least one minute; write e.g. "
                    f"{key}=5 (minutes, the default)"
                )
            return None
    if low == "selecttypeparameters":
        return _select_type_parameters_problem(key, value)
    if low == "authinfo" and "cred_expire=" in text:
        expire = _cred_expire(text)
        if expire is None or expire < 5:
            return (
                f"{key}={value!r}: cred_expire must be a whole number of seconds, at least 5 "
                "(Slurm logs it invalid and takes 120, the default); e.g. cred_expire=120"
            )
        return None
    if low == "jobrequeue" and text not in ("0", "1"):
        return (
            f"{key}={value!r} must be 0 (never requeue batch jobs) or 1 (requeue them, the default)"
        )
    return None


def _cred_expire(authinfo: str) -> int | None:
    """AuthInfo's ``cred_expire=N`` as slurm_cred.c reads it (atoi after the key: its
    leading digits), or None when the setting names none."""
    at = authinfo.find("cred_expire=")
    if at < 0:
        return None
    number = re.match(r"\s*([+-]?\d+)?", authinfo[at + len("cred_expire=") :]).group(1)
    value = int(number) if number else 0
    return value if value <= 2**31 - 1 else 0  # (beyond an int: atoi's is undefined)


def _list(text: str) -> list[str]:
    """The items of a comma list, stripped, empty ones dropped."""
    return [item.strip() for item in text.strip('"').split(",") if item.strip()]


def _is_time(text: str) -> bool:
    """Whether ``text`` is a Slurm time that ends (minutes, M:S, H:M:S, D-H...; not UNLIMITED)."""
    try:
        return parse_duration(text) is not None
    except SlurmlabError:
        return False


def _tres_name_problem(name: str) -> str | None:
    """Why ``name`` is not one of Slurm's TRES names, or None."""
    low = name.lower()
    if low in _TRES_MODELLED or low in _TRES_OTHER:
        return None
    prefix = next((p for p in _TRES_PREFIXES if low.startswith(p)), None)
    if prefix is not None and low[len(prefix) :].strip(":"):
        return None
    hint = " (GPUs are GRES/gpu)" if low in ("gpu", "gpus") else ""
    return f"{name!r} is not a Slurm TRES{hint}; Slurm's TRES are {_TRES_NAMES}"


#: TRES whose counts are in MB (slurmdb_defs.c ``slurmdb_get_tres_base_unit``: UNIT_MEGA);
#: the others are plain counts (UNIT_NONE)
_MEGA_TRES = ("mem", "bb")
_UNITS = "KMGTP"  # (slurm_protocol_api.c get_unit_type: K is 1 ... P is 5; no unit 0)


def billing_unit_divisor(tres: str, unit: str) -> int:
    """What a TRESBillingWeights weight ending in ``unit`` is divided by: 1024 for each step
    the unit is above the TRES's own unit (MB for Mem and BB, 1 for the others), nothing
    for a unit at or below it (slurm_protocol_api.c ``_tres_weight_item`` with
    ``get_convert_unit_val``). So Mem=1K and Mem=1M weigh a MB 1, Mem=1G 1/1024, Mem=1T
    1/1024^2, Mem=1P 1/1024^3; CPU=1K weighs a CPU 1/1024. A unit Slurm refuses, or one
    whose divisor overflows Slurm's C int (1024^4 and up: CPU=1T, CPU=1P), is an error.

    >>> [billing_unit_divisor("Mem", u) for u in "KMGTP"]
    [1, 1, 1024, 1048576, 1073741824]
    >>> billing_unit_divisor("GRES/gpu", "k")
    1024
    """
    step = _UNITS.find(unit.upper()) + 1 if len(unit) == 1 else 0
    if step == 0:
        raise SlurmlabError(
            f'the weight of {tres} ends in {unit!r}, not a unit (Slurm: "Invalid unit type '
            f"'{unit}'. Possible options are 'KMGTP'\"); write e.g. {tres}=0.25G"
        )
    base = 2 if tres.split("/")[0].lower() in _MEGA_TRES else 0  # (UNIT_MEGA, UNIT_NONE)
    if step - base >= 4:
        raise SlurmlabError(
            f"the weight of {tres} in {unit.upper()} would be divided by 1024^{step - base}, "
            "which overflows the C int Slurm converts it with; write the weight per unit "
            "(e.g. CPU=0.001) or use K, M or G"
        )
    return 1024 ** max(step - base, 0)


def billing_weight(tres: str, text: str, *, signed: bool = False) -> float:
    """A TRESBillingWeights (or PriorityWeightTRES) weight as a weight per unit of the TRES
    (per MB for Mem): a number, which may end in a unit (:func:`billing_unit_divisor`; as
    strtod and ``_tres_weight_item`` read it, only the first character after the number
    counts). ``signed``: it may be negative (PriorityWeightTRES: "Negative values are
    allowed", slurm.conf(5)).

    >>> billing_weight("Mem", "0.25G"), billing_weight("Mem", "2K"), billing_weight("CPU", "1")
    (0.000244140625, 2.0, 1.0)
    >>> billing_weight("CPU", "-1000", signed=True)
    -1000.0
    """
    sign = "-?" if signed else ""
    m = re.fullmatch("(" + sign + r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)", text.strip())
    if m is None:
        kind = "a number" if signed else "a number >= 0"
        example = "CPU=-1000,GRES/gpu=4000" if signed else "CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
        raise SlurmlabError(
            f"the weight of {tres} must be {kind}, which may end in K, M, G, T or P; "
            f"write e.g. {example}"
        )
    number, unit = m.groups()
    return float(number) / (billing_unit_divisor(tres, unit[0]) if unit else 1)


def _tres_list_problem(key: str, value: str, *, signed: bool) -> str | None:
    """What is wrong with a TRES=weight list (``signed``: PriorityWeightTRES, whose weights
    may be negative; TRESBillingWeights' may not), or None; both read by
    ``_tres_weight_item`` (strtod, then a unit)."""
    example = "CPU=1000,Mem=2000,GRES/gpu=3000" if signed else "CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
    for item in str(value).strip().strip('"').split(","):
        if not item.strip():
            continue
        name, eq, number = (x.strip() for x in item.partition("="))
        if not eq or not name:
            return f"{key}={value!r}: {item.strip()!r} is not TRES=weight; write e.g. {example}"
        problem = _tres_name_problem(name)
        if problem:
            return f"{key}={value!r}: {problem}"
        try:
            billing_weight(name, number, signed=signed)
        except SlurmlabError as exc:
            return f"{key}={value!r}: {exc}"
    return None


#: Global settings Slurm acts on that slurmlab does not model: key -> (the values that ask
#: for nothing slurmlab lacks, in upper case; what Slurm would do, and what slurmlab does).
#: Any other value is named in a warning. Defaults from slurm.conf(5) and read_config.c;
#: a default slurmlab does not match either (KillWait=30, SlurmdTimeout=300) is not named,
#: only a value a site chose. Not here: Licenses count only for jobs that ask for some
#: (``-L``, itself warned about); PriorityParameters means nothing to priority/multifactor.
NOT_MODELLED: dict[str, tuple[frozenset[str], str]] = {
    "CompleteWait": (
        frozenset({"0"}),
        "Slurm starts no job while another has been COMPLETING for less than this many "
        "seconds; slurmlab frees a job's nodes the moment it ends",
    ),
    "JobSubmitPlugins": (
        frozenset({""}),
        "Slurm passes each job through these plugins, which may change or refuse it; "
        "slurmlab submits jobs as written",
    ),
    "KillOnBadExit": (
        frozenset({"0"}),
        "Slurm ends a whole step when one of its tasks fails; slurmlab does not simulate "
        "a job's tasks",
    ),
    "KillWait": (
        frozenset({"30"}),
        "Slurm waits up to this many seconds between SIGTERM and SIGKILL when it ends a job "
        "(time limit, scancel, preemption); slurmlab's jobs end at the SIGTERM (KillWait counts "
        "only in the plans for a job running past its limit under OverTimeLimit)",
    ),
    "PreemptParameters": (
        frozenset({""}),
        "they change which jobs Slurm preempts and when; slurmlab preempts as without them",
    ),
    "PreemptType": (
        frozenset({"PREEMPT/NONE", "PREEMPT/QOS"}),
        "Slurm lets jobs of a partition with a higher PriorityTier preempt jobs of lower "
        "ones; slurmlab preempts only under preempt/qos, so no job is preempted",
    ),
    "PrioritySiteFactorPlugin": (
        frozenset({"", "SITE_FACTOR/NONE"}),
        "slurmlab adds no site factor to job priorities",
    ),
    "PriorityWeightAssoc": (
        frozenset({"0"}),
        "Slurm adds this weight times the job's association Priority (sacctmgr modify "
        "account/user ... set Priority=N, over the largest one); associations have no "
        "Priority in slurmlab, so every job's ASSOC factor is 0",
    ),
    "PriorityUsageResetPeriod": (
        frozenset({"NONE"}),
        "Slurm clears all fair-share usage at each period; slurmlab only decays it "
        "(PriorityDecayHalfLife)",
    ),
    "RequeueExit": (
        frozenset({""}),
        "Slurm requeues a batch job that exits with one of these codes; slurmlab ends it FAILED",
    ),
    "RequeueExitHold": (
        frozenset({""}),
        "Slurm requeues and holds a batch job that exits with one of these codes "
        "(SPECIAL_EXIT); slurmlab ends it FAILED",
    ),
    "ResumeTimeout": (
        frozenset({"60"}),
        "power saving is not modelled: slurmlab's nodes never power down or boot",
    ),
    "ReturnToService": (
        frozenset({"1", "2"}),
        "Slurm keeps a failed node DOWN until an admin resumes it; slurmlab returns it to "
        "service when its failure's down_for (repair) ends, as ReturnToService=1 or 2 do "
        "(give down_for: null and a resume action to keep it down)",
    ),
    "SchedulerTimeSlice": (
        frozenset({"30"}),
        "only gang scheduling (PreemptMode=GANG) slices time, and slurmlab does not model it",
    ),
    "SelectType": (
        frozenset({"SELECT/CONS_TRES", "SELECT/CONS_RES"}),
        "Slurm allocates only whole nodes; slurmlab allocates CPUs, memory and GPUs like "
        "select/cons_tres (give jobs --exclusive for whole nodes)",
    ),
    "SlurmdTimeout": (
        frozenset({"300"}),
        "slurmlab marks a failed node DOWN at once (its jobs end NODE_FAIL when it fails), "
        "not after SlurmdTimeout",
    ),
    "SuspendTime": (
        frozenset({"NONE", "INFINITE", "-1"}),
        "power saving is not modelled: slurmlab never powers idle nodes down, and no job "
        "waits for a node to boot",
    ),
    "TopologyPlugin": (
        frozenset({"", "TOPOLOGY/NONE", "TOPOLOGY/DEFAULT", "TOPOLOGY/FLAT"}),
        "Slurm puts each job under as few network switches as it can (topology.conf), and "
        "topology/hypercube and topology/3d_torus order slurmctld's node table by their "
        "ranking; slurmlab picks "
        "nodes without regard to the network, its node table in name order",
    ),
}

#: Global keys slurmlab reads (slurm_conf.py keeps them with their canonical spelling, as it
#: does the keys of ``NOT_MODELLED``, which it names in a warning when they ask for what it
#: does not model). TRESBillingWeights is a partition option in Slurm; slurmlab also takes it
#: as a global line, the default of partitions without their own.
SCHEDULER_KEYS = (
    "ClusterName",
    "SchedulerType",
    "SchedulerParameters",
    "SelectType",
    "SelectTypeParameters",
    "PriorityType",
    "PriorityWeightAge",
    "PriorityWeightFairshare",
    "PriorityWeightJobSize",
    "PriorityWeightPartition",
    "PriorityWeightQOS",
    "PriorityWeightAssoc",
    "PriorityWeightTRES",
    "PriorityDecayHalfLife",
    "PriorityMaxAge",
    "PriorityFavorSmall",
    "PriorityCalcPeriod",
    "PriorityFlags",
    "FairShareDampeningFactor",
    "PreemptType",
    "PreemptMode",
    "PreemptExemptTime",
    "JobRequeue",
    "DependencyParameters",
    "DefMemPerCPU",
    "DefMemPerNode",
    "DefMemPerGPU",
    "DefCpuPerGPU",
    "EnforcePartLimits",
    "MaxMemPerCPU",
    "MaxMemPerNode",
    "OverTimeLimit",
    "TRESBillingWeights",
    "AccountingStorageTRES",
    "GresTypes",
)

#: The keys of slurm.conf(5) in Slurm 22.05: read_config.c ``slurm_conf_options[]`` (the
#: line keys NodeName, PartitionName, NodeSet... among them) and Include. slurmctld refuses to
#: start on any other ("Parsing error at unrecognized key"): slurmlab names it in a warning
#: with the closest known key (``unknown_key_warning``). Besides the keys slurmlab reads
#: (slurm_conf.py ``SCHEDULER_KEYS``) and those it names as not modelled (``NOT_MODELLED``),
#: most change nothing a simulation shows (AuthType, SlurmctldLogFile...) and are kept silently.
SLURM_CONF_KEYS = frozenset({
    "AccountingStorageBackupHost", "AccountingStorageEnforce", "AccountingStorageExternalHost",
    "AccountingStorageHost", "AccountingStorageLoc", "AccountingStorageParameters",
    "AccountingStoragePass", "AccountingStoragePort", "AccountingStorageTRES",
    "AccountingStorageType", "AccountingStorageUser", "AccountingStoreFlags",
    "AccountingStoreJobComment", "AcctGatherEnergyType", "AcctGatherFilesystemType",
    "AcctGatherInfinibandType", "AcctGatherInterconnectType", "AcctGatherNodeFreq",
    "AcctGatherProfileType", "AllowSpecResourcesUsage", "AuthAltParameters", "AuthAltTypes",
    "AuthInfo", "AuthType", "BackupAddr", "BackupController", "BatchStartTimeout",
    "BcastExclude", "BcastParameters", "BurstBufferParameters", "BurstBufferType",
    "CliFilterPlugins", "ClusterName", "CommunicationParameters", "CompleteWait", "ControlAddr",
    "ControlMachine", "CoreSpecPlugin", "CpuFreqDef", "CpuFreqGovernors", "CredType",
    "CryptoType", "DebugFlags", "DefCpuPerGPU", "DefMemPerCPU", "DefMemPerGPU",
    "DefMemPerNode", "DependencyParameters", "DisableRootJobs", "DownNodes", "EioTimeout",
    "EnforcePartLimits", "Epilog", "EpilogMsgTime", "EpilogSlurmctld", "ExtSensorsFreq",
    "ExtSensorsType", "FairShareDampeningFactor", "FastSchedule", "FederationParameters",
    "FirstJobId", "FrontendName", "GetEnvTimeout", "GpuFreqDef", "GresTypes",
    "GroupUpdateForce", "GroupUpdateTime", "HealthCheckInterval", "HealthCheckNodeState",
    "HealthCheckProgram", "InactiveLimit", "Include", "InteractiveStepOptions",
    "JobAcctGatherFrequency", "JobAcctGatherParams", "JobAcctGatherType", "JobCompHost",
    "JobCompLoc", "JobCompParams", "JobCompPass", "JobCompPort", "JobCompType", "JobCompUser",
    "JobContainerType", "JobCredentialPrivateKey", "JobCredentialPublicCertificate",
    "JobFileAppend", "JobRequeue", "JobSubmitPlugins", "KeepAliveTime", "KillOnBadExit",
    "KillWait", "LaunchParameters", "LaunchType", "Licenses", "LogTimeFormat", "MailDomain",
    "MailProg", "MaxArraySize", "MaxDBDMsgs", "MaxJobCount", "MaxJobId", "MaxMemPerCPU",
    "MaxMemPerNode", "MaxNodeCount", "MaxStepCount", "MaxTasksPerNode", "MCSParameters",
    "MCSPlugin", "MessageTimeout", "MinJobAge", "MpiDefault", "MpiParams",
    "NodeFeaturesPlugins", "NodeName", "NodeSet", "OverTimeLimit", "PartitionName",
    "PlugStackConfig", "PluginDir", "PowerParameters", "PowerPlugin", "PreemptExemptTime",
    "PreemptMode", "PreemptType", "PrEpParameters", "PrEpPlugins",
    "PriorityCalcPeriod", "PriorityDecayHalfLife", "PriorityFavorSmall", "PriorityFlags",
    "PriorityMaxAge", "PriorityParameters", "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin", "PriorityType", "PriorityUsageResetPeriod", "PriorityWeightAge",
    "PriorityWeightAssoc", "PriorityWeightFairshare", "PriorityWeightJobSize",
    "PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightTRES", "PrivateData",
    "ProctrackType", "Prolog", "PrologEpilogTimeout", "PrologFlags", "PrologSlurmctld",
    "PropagatePrioProcess", "PropagateResourceLimits", "PropagateResourceLimitsExcept",
    "RebootProgram", "ReconfigFlags", "RequeueExit", "RequeueExitHold", "ResumeFailProgram",
    "ResumeProgram", "ResumeRate", "ResumeTimeout", "ResvEpilog", "ResvOverRun", "ResvProlog",
    "ReturnToService", "RoutePlugin", "SallocDefaultCommand", "SbcastParameters",
    "SchedulerAuth", "SchedulerParameters", "SchedulerTimeSlice", "SchedulerType",
    "ScronParameters", "SelectType", "SelectTypeParameters", "SlurmctldAddr", "SlurmctldDebug",
    "SlurmctldHost", "SlurmctldLogFile", "SlurmctldParameters", "SlurmctldPidFile",
    "SlurmctldPlugstack", "SlurmctldPort", "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg",
    "SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmdDebug", "SlurmdLogFile",
    "SlurmdParameters", "SlurmdPidFile", "SlurmdPort", "SlurmdSpoolDir", "SlurmdSyslogDebug",
    "SlurmdTimeout", "SlurmdUser", "SlurmSchedLogFile", "SlurmSchedLogLevel", "SlurmUser",
    "SrunEpilog", "SrunPortRange", "SrunProlog", "StateSaveLocation", "SuspendExcNodes",
    "SuspendExcParts", "SuspendProgram", "SuspendRate", "SuspendTime", "SuspendTimeout",
    "SwitchParameters", "SwitchType", "TaskEpilog", "TaskPlugin", "TaskPluginParam",
    "TaskProlog", "TCPTimeout", "TmpFS", "TopologyParam", "TopologyPlugin", "TrackWCKey",
    "TreeWidth", "UnkillableStepProgram", "UnkillableStepTimeout", "UsePAM", "VSizeFactor",
    "WaitTime", "X11Parameters",
})  # fmt: skip

#: The options of a PartitionName= line (read_config.c ``_partition_options[]``, 22.05).
PARTITION_OPTIONS = frozenset({
    "AllocNodes", "AllowAccounts", "AllowGroups", "AllowQos", "Alternate", "CpuBind",
    "DefCpuPerGPU", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "Default", "DefaultTime",
    "DenyAccounts", "DenyQos", "DisableRootJobs", "ExclusiveUser", "GraceTime", "Hidden", "LLN",
    "MaxCPUsPerNode", "MaxMemPerCPU", "MaxMemPerNode", "MaxNodes", "MaxTime", "MinNodes",
    "Nodes", "OverSubscribe", "OverTimeLimit", "PartitionName", "PreemptMode", "Priority",
    "PriorityJobFactor", "PriorityTier", "QOS", "ReqResv", "ResumeTimeout", "RootOnly",
    "SelectTypeParameters", "Shared", "State", "SuspendTime", "SuspendTimeout",
    "TRESBillingWeights",
})  # fmt: skip

#: The options of a NodeName= line (read_config.c ``_nodename_options[]``, 22.05).
NODE_OPTIONS = frozenset({
    "BcastAddr", "Boards", "CoreSpecCount", "CoresPerSocket", "CPUs", "CPUSpecList", "CpuBind",
    "Feature", "Features", "Gres", "MemSpecLimit", "NodeAddr", "NodeHostname", "NodeName",
    "Port", "Procs", "RealMemory", "Reason", "Sockets", "SocketsPerBoard", "State",
    "ThreadsPerCore", "TmpDisk", "TRESWeights", "Weight",
})  # fmt: skip

#: The global keys slurmlab knows, by lower-case name (slurm.conf matches keys in any case):
#: Slurm's, those NOT_MODELLED names and those slurmlab reads, spelled as those tables do.
KNOWN_KEYS = {k.lower(): k for k in (*SLURM_CONF_KEYS, *NOT_MODELLED, *SCHEDULER_KEYS)}

#: Keys of Slurm's other configuration files, often put in slurm.conf by mistake.
_OTHER_FILES = {
    "switchname": "topology.conf", "cgroupplugin": "cgroup.conf",
    "constraincores": "cgroup.conf", "constraindevices": "cgroup.conf",
    "constrainramspace": "cgroup.conf", "autodetect": "gres.conf", "dbdhost": "slurmdbd.conf",
    "storagetype": "slurmdbd.conf",
}  # fmt: skip


@lru_cache(maxsize=8)
def _by_lower(options: frozenset[str]) -> dict[str, str]:
    """A line's options by lower-case name (made once per set, not once per key)."""
    return {k.lower(): k for k in options}


def unknown_key_warning(
    key: str, value: str, kind: str = "key", options: Iterable[str] | None = None
) -> str | None:
    """The warning for a key slurm.conf does not have, or None for one of Slurm's keys.

    ``kind`` says where it was given: a global ``key`` (checked against
    :data:`SLURM_CONF_KEYS`), or a ``partition option`` / ``node option`` (checked against
    ``options``). Slurm 22.05 refuses to start on an unknown key; slurmlab ignores it, and
    names the closest key Slurm has (``difflib``), or where the key belongs.

    >>> unknown_key_warning("PriorityWeightAge", "1000") is None
    True
    >>> unknown_key_warning("PriorityWieghtAge", "1000").endswith("did you mean PriorityWeightAge?")
    True
    """
    known = KNOWN_KEYS if options is None else _by_lower(frozenset(options))
    low = key.lower()
    if low in known:
        return None
    close = difflib.get_close_matches(low, list(known), n=1, cutoff=0.75)
    if low in _OTHER_FILES:
        hint = f"it belongs in {_OTHER_FILES[low]}, not in slurm.conf"
    elif options is not None and low in KNOWN_KEYS:  # (a global key on a NodeName= line...)
        hint = f"{KNOWN_KEYS[low]} is a global setting: give it on a line of its own"
    elif close:
        hint = f"did you mean {known[close[0]]}?"
    else:
        hint = "see slurm.conf(5) for Slurm's keys"
    return (
        f"{key}={value}: not a slurm.conf {kind}: Slurm 22.05 refuses to start on it "
        f'("Parsing error at unrecognized key: {key}") and slurmlab ignores it; {hint}'
    )


#: How slurmlab allocates a node's CPUs under CR_Core* (and every word but CR_CPU*).
_WHOLE_CORES = (
    "slurmlab allocates whole cores (every thread of a core where a node's CPUs count "
    "threads, ThreadsPerCore > 1)"
)

#: SelectTypeParameters words slurmlab does not model, with what Slurm does and what
#: slurmlab does instead (Cluster.core_allocation, Cluster.memory_tracked, placement.py).
_SELECT_PARAMS_NOT_MODELLED = {
    "CR_SOCKET": f"Slurm allocates whole sockets; {_WHOLE_CORES}, as under CR_Core",
    "CR_SOCKET_MEMORY": (
        f"Slurm allocates whole sockets; {_WHOLE_CORES} and memory, as under CR_Core_Memory"
    ),
    "CR_MEMORY": (
        "Slurm (select/linear) allocates memory only and lets jobs share a node's CPUs; "
        f"{_WHOLE_CORES} and memory, as select/cons_tres with CR_Core_Memory"
    ),
    "CR_LLN": (
        "Slurm puts each job on the least loaded nodes (the most idle CPUs); slurmlab picks "
        "nodes as select/cons_tres does without it (the lowest Weight first, then the "
        "tightest fit, in the node table's order: by name)"
    ),
    "CR_PACK_NODES": (
        "Slurm lays a step's tasks out on as few of the job's nodes as it can, where the job "
        "has more CPUs than its tasks use; slurmlab's srun_env lays them out as without it "
        "(ask for it with --distribution=block,pack)"
    ),
    "CR_CORE_DEFAULT_DIST_BLOCK": (
        "Slurm gives a job a node's cores in block order (a socket's before the next's) "
        "rather than cyclic across sockets; slurmlab does not track which cores a job gets"
    ),
}

#: SelectTypeParameters' words (parse_select_type_param, slurm_selecttype_info.c): one way to
#: allocate, and flags beside it.
_SELECT_ALLOCATIONS = (
    "CR_CPU", "CR_CPU_Memory", "CR_Core", "CR_Core_Memory", "CR_Socket", "CR_Socket_Memory",
    "CR_Memory",
)  # fmt: skip
_SELECT_FLAGS = (
    "CR_ONE_TASK_PER_CORE", "CR_CORE_DEFAULT_DIST_BLOCK", "CR_LLN", "CR_Pack_Nodes",
    "CR_ALLOCATE_FULL_SOCKET", "other_cons_res", "other_cons_tres",
)  # fmt: skip


def _select_type_parameters_problem(key: str, value: str) -> str | None:
    """Why slurmctld would refuse this SelectTypeParameters (slurm_selecttype_info.c
    ``parse_select_type_param``, called by read_config.c, which stops on a failure: "Bad
    SelectTypeParameter"), or None: each word one of Slurm's (in any case), at most one way
    to allocate, and CR_ONE_TASK_PER_CORE not beside CR_CPU*."""
    words = _list(str(value))
    known = {w.lower(): w for w in (*_SELECT_ALLOCATIONS, *_SELECT_FLAGS)}
    for word in words:
        if word.lower() not in known:
            close = difflib.get_close_matches(word.lower(), list(known), n=1, cutoff=0.6)
            fix = (
                f"did you mean {known[close[0]]}?"
                if close
                else f"give one of {_words(_SELECT_ALLOCATIONS)}, and optionally "
                f"{_words(_SELECT_FLAGS)}"
            )
            return (
                f"{key}={value!r}: {word!r} is not a SelectTypeParameter; slurmctld refuses to "
                f'start ("Bad SelectTypeParameter: {word}"); {fix}'
            )
    ways = [w for w in words if w.lower() in {a.lower() for a in _SELECT_ALLOCATIONS}]
    if len(ways) > 1:
        return (
            f"{key}={value!r} gives {_words(ways, 'and')}: Slurm takes one way to allocate "
            f'({_words(_SELECT_ALLOCATIONS)}) and refuses to start ("Bad SelectTypeParameter: '
            f'{value}"); keep one'
        )
    lows = {w.lower() for w in words}
    if "cr_one_task_per_core" in lows and lows & {"cr_cpu", "cr_cpu_memory"}:
        return (
            f'{key}={value!r}: slurmctld refuses to start ("CR_ONE_TASK_PER_CORE is not '
            'compatible with CR_CPU*, please change to use CR_CORE* instead.")'
        )
    return None


def usage_reset_conflict(settings: Mapping[str, str]) -> str | None:
    """Why slurmctld would refuse these settings' PriorityDecayHalfLife=0 (usage never
    decays), or None: it needs PriorityUsageResetPeriod set, to any value (read_config.c:
    "You have to either have PriorityDecayHalfLife != 0 or PriorityUsageResetPeriod set to
    something or the priority plugin will result in rolling over."). Slurm checks it
    whatever the PriorityType.

    >>> usage_reset_conflict({"PriorityDecayHalfLife": "0", "PriorityUsageResetPeriod": "NONE"})
    >>> print(usage_reset_conflict({"PriorityDecayHalfLife": "0"}))
    PriorityDecayHalfLife=0 with no PriorityUsageResetPeriod: slurmctld refuses it ...
    """
    low = {k.lower(): (k, str(v)) for k, v in settings.items()}
    if "priorityusageresetperiod" in low or "prioritydecayhalflife" not in low:
        return None
    key, text = low["prioritydecayhalflife"]
    try:
        half_life = parse_duration(text.strip(), what=key)
    except SlurmlabError:
        return None  # (setting_problem names it)
    if half_life is None or half_life.total_seconds():  # (UNLIMITED: not 0 to slurmctld)
        return None
    where = getattr(settings, "where", {}).get(key)
    at = f" ({where})" if where else ""
    return (
        f"{key}={text.strip()}{at} with no PriorityUsageResetPeriod: slurmctld refuses it "
        '("You have to either have PriorityDecayHalfLife != 0 or PriorityUsageResetPeriod set '
        'to something or the priority plugin will result in rolling over."); for usage that '
        "never decays add PriorityUsageResetPeriod=NONE, else give a half-life, e.g. "
        f"{key}=7-0 (the default)"
    )


def backfill_conflict(settings: Mapping[str, str]) -> str | None:
    """Why slurmctld would refuse these settings' SchedulerParameters under
    SchedulerType=sched/backfill (the default), or None: ``max_job_bf=`` without
    ``bf_max_job_test=`` is fatal there (backfill.c ``_load_config``: "Invalid parameter
    max_job_bf. The option is no longer supported"); sched/builtin still reads it.

    >>> backfill_conflict({"SchedulerParameters": "bf_max_job_test=50,max_job_bf=50"})
    >>> print(backfill_conflict({"SchedulerParameters": "bf_interval=5,max_job_bf=50"}))
    SchedulerParameters max_job_bf=50 under SchedulerType=sched/backfill: slurmctld ...
    """
    low = {k.lower(): str(v) for k, v in settings.items()}
    stype = low.get("schedulertype", "sched/backfill").strip().lower()
    params = low.get("schedulerparameters", "").lower()
    if stype != "sched/backfill" or "bf_max_job_test=" in params:
        return None
    found = re.search(r"max_job_bf=([^,]*)", params)  # (anywhere: xstrcasestr, as Slurm)
    if found is None:
        return None
    value = found.group(1).strip()
    return (
        f"SchedulerParameters max_job_bf={value} under SchedulerType=sched/backfill: "
        'slurmctld refuses to start ("Invalid parameter max_job_bf. The option is no longer '
        'supported, please use bf_max_job_test instead.", backfill.c _load_config); write '
        f"bf_max_job_test={value}"
    )


def select_conflict(settings: Mapping[str, str]) -> str | None:
    """Why slurmctld would refuse these settings' SelectTypeParameters under their
    SelectType, or None: select/cons_tres and select/cons_res need CR_CPU*, CR_Core* or
    CR_Socket* when SelectTypeParameters is given (cons_common.c ``select_p_node_init``;
    when it is not given they use CR_Core_Memory).

    >>> select_conflict({"SelectType": "select/cons_tres", "SelectTypeParameters": "CR_Core"})
    >>> print(select_conflict({"SelectType": "select/cons_res", "SelectTypeParameters": "CR_LLN"}))
    SelectTypeParameters='CR_LLN' under SelectType=select/cons_res: it names no way to ...
    """
    low = {k.lower(): str(v) for k, v in settings.items()}
    stype = low.get("selecttype", "").strip().lower()
    given = low.get("selecttypeparameters", "").strip()
    if stype not in ("select/cons_tres", "select/cons_res") or not given:
        return None
    ways = {w.lower() for w in _SELECT_ALLOCATIONS} - {"cr_memory"}
    words = {w.lower() for w in _list(given)}
    if words & ways:
        return None
    fix = (
        "write CR_Core_Memory (or CR_CPU_Memory, CR_Socket_Memory) in place of CR_Memory"
        if "cr_memory" in words
        else "add one of CR_CPU, CR_CPU_Memory, CR_Core, CR_Core_Memory, CR_Socket or "
        "CR_Socket_Memory"
    )
    return (
        f"SelectTypeParameters={given!r} under SelectType={stype}: it names no way to "
        'allocate CPUs, and slurmctld refuses to start ("Invalid SelectTypeParameters: ... You '
        f'need at least CR_(CPU|CORE|SOCKET)*"); {fix}'
    )


def setting_warning(key: str, value: str) -> str | None:
    """What slurmlab ignores of a (valid) global slurm.conf setting that Slurm acts on, or None.

    >>> setting_warning("SlurmdTimeout", "300") is None  # (the default)
    True
    >>> print(setting_warning("PriorityFlags", "MAX_TRES,INCR_ONLY"))
    PriorityFlags INCR_ONLY: not modelled by slurmlab (ignored); it models NO_FAIR_TREE, ...
    """
    low = key.lower()
    text = str(value).strip().strip('"')
    ignored: list[str] = []
    obsolete = obsolete_setting(key, text)
    if obsolete is not None:  # (one slurmctld stops on is refused: setting_problem)
        return None if obsolete[0] else f"{key}={text}: obsolete in Slurm 22.05: {obsolete[1]}"
    if low == "priorityflags":
        ignored = [f for f in _list(text) if f.upper() in PRIORITY_FLAGS]
        ignored = [f for f in ignored if f.upper() not in _PRIORITY_FLAGS_MODELLED]
        why = f"it models {_words(_PRIORITY_FLAGS_MODELLED, 'and')}"
    elif low in ("priorityweighttres", "tresbillingweights"):
        names = [item.partition("=")[0].strip() for item in _list(text)]
        ignored = [n for n in names if n.lower() not in _TRES_MODELLED]
        why = "it counts CPU, Mem, Node and GRES/gpu (all types together) only"
    elif low == "selecttypeparameters":
        ignored = [w for w in _list(text) if w.upper() in _SELECT_PARAMS_NOT_MODELLED]
        why = "; ".join(f"{w}: {_SELECT_PARAMS_NOT_MODELLED[w.upper()]}" for w in ignored)
    else:
        entry = _by_name(NOT_MODELLED, low)
        if entry is None or text.upper() in entry[0]:
            return None
        return f"{key}={text}: not modelled by slurmlab (ignored); {entry[1]}"
    if not ignored:
        return None
    return f"{key} {', '.join(ignored)}: not modelled by slurmlab (ignored); {why}"


def parse_time_value(value: str, key: str, line: int, source: str) -> timedelta | None:
    try:
        return parse_duration(value, what=key)
    except SlurmlabError as exc:
        raise ConfigError(str(exc), source=source, line=line) from None
