"""The cluster: nodes with CPUs, memory and typed GPUs, grouped into partitions.

A ``Cluster`` is a frozen value built in Python, from a named preset, or from a
real ``slurm.conf`` (+ ``gres.conf``). It keeps the scheduler-relevant global
settings (``SchedulerParameters``, ``PriorityWeight*``, ``JobRequeue``...) for the
engine, and renders an ``sinfo``-like view of itself.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import pandas as pd

from slurmlab.errors import ConfigError, RequestError, SlurmlabError
from slurmlab.spec.units import compress_hostlist, format_duration, parse_duration

__all__ = ["Cluster", "Gres", "Node", "Partition", "parse_gres"]

NODE_STATES = ("IDLE", "UP", "DOWN", "DRAIN", "FUTURE", "UNKNOWN", "CLOUD")
PARTITION_STATES = ("UP", "DOWN", "DRAIN", "INACTIVE")


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
    path = Path(value)
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


@dataclass(frozen=True, slots=True)
class Gres:
    """One generic resource on a node, e.g. ``gpu:h100:8`` (name, type, count)."""

    name: str
    type: str | None
    count: int

    def __post_init__(self):
        if self.count < 0:
            raise SlurmlabError(f"Gres {self.name!r}: count {self.count} must not be negative")

    def __str__(self) -> str:
        return ":".join([self.name] + ([self.type] if self.type else []) + [str(self.count)])


def parse_gres(text: str, *, what: str = "Gres") -> tuple[Gres, ...]:
    """Parse a node's ``Gres=`` value (``gpu:h100:8,nvme:1`` ; ``(S:0-1)`` socket hints dropped).

    >>> parse_gres("gpu:h100:8")
    (Gres(name='gpu', type='h100', count=8),)
    """
    if text in ("", "(null)", "none", "None"):
        return ()
    out = []
    for item in re.split(r",(?![^()]*\))", text):
        item = re.sub(r"\(.*\)$", "", item.strip())
        parts = item.split(":")
        try:
            if len(parts) == 1:
                out.append(Gres(parts[0], None, 1))
            elif len(parts) == 2:
                if parts[1].isdigit():
                    out.append(Gres(parts[0], None, int(parts[1])))
                else:
                    out.append(Gres(parts[0], parts[1], 1))
            elif len(parts) == 3:
                out.append(Gres(parts[0], parts[1], _count(parts[2])))
            else:
                raise ValueError
        except ValueError:
            raise SlurmlabError(
                f"invalid {what} {text!r}: expected name[:type]:count, e.g. gpu:h100:8"
            ) from None
    return tuple(out)


def _count(s: str) -> int:
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    if not m:
        raise ValueError(s)
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]


@dataclass(frozen=True, slots=True)
class Node:
    """A compute node: CPUs, memory in MB, generic resources (GPUs) and features."""

    name: str
    cpus: int = 1
    memory_mb: int = 1
    gres: tuple[Gres, ...] = ()
    features: frozenset[str] = frozenset()
    addr: str | None = None
    port: int | None = None
    state: str = "IDLE"
    weight: int = 1

    def __post_init__(self):
        if not self.name:
            raise SlurmlabError("Node: name must not be empty")
        if self.cpus < 1:
            raise SlurmlabError(f"Node {self.name!r}: CPUs={self.cpus} must be at least 1")
        if self.memory_mb < 0:
            raise SlurmlabError(f"Node {self.name!r}: RealMemory={self.memory_mb} is negative")
        if self.state.upper() not in NODE_STATES:
            raise SlurmlabError(
                f"Node {self.name!r}: State={self.state!r} is not one of {', '.join(NODE_STATES)}"
            )
        object.__setattr__(self, "features", frozenset(self.features))
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
    """A partition: a named set of nodes with time limits, a priority tier and a state."""

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
        if not self.nodes:
            raise SlurmlabError(f"Partition {self.name!r}: it has no nodes; give Nodes=...")
        if self.state.upper() not in PARTITION_STATES:
            raise SlurmlabError(
                f"Partition {self.name!r}: State={self.state!r} is not one of "
                f"{', '.join(PARTITION_STATES)}"
            )
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "state", self.state.upper())
        if self.max_nodes is not None and self.max_nodes < 1:
            raise SlurmlabError(f"Partition {self.name!r}: MaxNodes={self.max_nodes} must be >= 1")
        if self.min_nodes < 0:
            raise SlurmlabError(f"Partition {self.name!r}: MinNodes={self.min_nodes} must be >= 0")

    def option(self, key: str, default: str | None = None) -> str | None:
        """One of the partition line's other options by name (case-insensitive), as text."""
        low = key.lower()
        return next((v for k, v in self.options.items() if k.lower() == low), default)

    def admits_account(self, account: str | None) -> bool:
        """AllowAccounts / DenyAccounts (slurm.conf(5)): whether jobs of ``account`` may
        run here (Slurm rejects others at submission)."""
        allow = [a.strip() for a in self.option("AllowAccounts", "ALL").split(",") if a.strip()]
        deny = [a.strip() for a in self.option("DenyAccounts", "").split(",") if a.strip()]
        if allow != ["ALL"] and account not in allow:
            return False
        return account not in deny

    @property
    def time_limit_default(self) -> timedelta | None:
        """The limit a job gets when it asks for none: DefaultTime, else MaxTime."""
        return self.default_time if self.default_time is not None else self.max_time


@dataclass(frozen=True, slots=True)
class Cluster:
    """A Slurm cluster: nodes, partitions and the scheduler-relevant slurm.conf settings."""

    name: str
    nodes: tuple[Node, ...]
    partitions: tuple[Partition, ...]
    settings: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "partitions", tuple(self.partitions))
        if not self.nodes:
            raise SlurmlabError(f"Cluster {self.name!r}: it has no nodes")
        names = [n.name for n in self.nodes]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SlurmlabError(f"Cluster {self.name!r}: node names repeated: {sorted(dup)}")
        known = set(names)
        pnames = [p.name for p in self.partitions]
        if len(set(pnames)) != len(pnames):
            raise SlurmlabError(f"Cluster {self.name!r}: partition names repeated: {pnames}")
        for p in self.partitions:
            missing = [n for n in p.nodes if n not in known]
            if missing:
                raise SlurmlabError(
                    f"Partition {p.name!r}: nodes {compress_hostlist(missing)} are not defined; "
                    "add NodeName lines for them"
                )
        if sum(p.default for p in self.partitions) > 1:
            raise SlurmlabError(
                f"Cluster {self.name!r}: more than one partition has Default=YES "
                f"({[p.name for p in self.partitions if p.default]})"
            )
        for key, value in self.settings.items():
            problem = setting_problem(key, value)
            if problem:
                raise SlurmlabError(f"Cluster {self.name!r}: {problem}")

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
        if isinstance(value, str | Path) and str(value) and Path(value).exists():
            if Path(value).is_dir():
                inside = Path(value) / "slurm.conf"
                hint = f"; give {str(inside)!r}" if inside.is_file() else ""
                raise SlurmlabError(
                    f"cluster {str(value)!r} is neither a preset ({', '.join(presets())}) nor a "
                    f"slurm.conf file: it is a directory{hint} (or give a slurmlab.Cluster)"
                )
            return cls.from_slurm_conf(Path(value), gres_conf)
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
        for n in self.nodes:
            if n.name == name:
                return n
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
            f"{', '.join(p.name for p in self.partitions)})"
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
        """Whether memory is a consumable resource (SelectTypeParameters=CR_*_Memory)."""
        return "memory" in (self.setting("SelectTypeParameters", "") or "").lower()

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
        """
        return format_fixed(self.sinfo(node_states), SINFO_FORMAT)

    def __repr__(self) -> str:
        t = self.tres()
        gpus = f", {t['gres/gpu']} GPUs" if "gres/gpu" in t else ""
        return (
            f"Cluster({self.name!r}: {t['node']} nodes, {t['cpu']} CPUs{gpus}, "
            f"partitions {', '.join(p.name for p in self.partitions)})"
        )


def _state_word(state: str) -> str:
    s = state.lower()
    return {"up": "idle", "unknown": "unk", "future": "futr"}.get(s, s)


def sinfo_frame(cluster: Cluster, node_states: Mapping[str, str]) -> pd.DataFrame:
    """sinfo's default view: a row per partition and node state. Like sinfo without
    ``--all``/``--future``, it leaves out Hidden=YES partitions and FUTURE nodes."""
    rows = []
    default = next((p for p in cluster.partitions if p.default), None)
    by_name = {n.name: n for n in cluster.nodes}
    for p in cluster.partitions:
        if str(p.option("Hidden", "NO")).upper() == "YES":
            continue
        groups: dict[str, list[str]] = {}
        for n in p.nodes:
            st = node_states.get(n) or _state_word(by_name[n].state)
            if st in ("future", "futr"):  # (a FUTURE node resumed is shown like any other)
                continue
            groups.setdefault(st, []).append(n)
        for st, names in groups.items():
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


def quote_split(line: str) -> list[str]:
    """Split a slurm.conf line into tokens, honouring quotes."""
    lex = shlex.shlex(line, posix=True)
    lex.whitespace_split = True
    lex.commenters = ""
    return list(lex)


#: slurm.conf keys checked when a cluster is built, with the form Slurm accepts.
_WHOLE_WEIGHTS = (
    "PriorityWeightAge", "PriorityWeightAssoc", "PriorityWeightFairshare",
    "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
)  # fmt: skip
_TIMES = ("PriorityDecayHalfLife", "PriorityCalcPeriod", "PriorityMaxAge")
_UINT32_MAX = 4294967295


_MEMORY_KEYS = {"defmempercpu", "defmempernode", "defmempergpu", "maxmempercpu", "maxmempernode"}

#: SchedulerParameters the ``slurm`` policy models: (lowest, highest) whole value Slurm
#: accepts (sched/backfill's _load_config; bf_window in minutes), and what it means.
SCHEDULER_PARAMETERS = {
    "bf_interval": (1, 10800, "seconds between backfill cycles (-1: no backfill), e.g. 30"),
    "bf_resolution": (1, 3600, "seconds, e.g. 60"),
    "bf_window": (1, 43200, "minutes, e.g. 1440"),
    "bf_max_job_test": (1, 1000000, "jobs, e.g. 500"),
    "default_queue_depth": (1, 1000000, "jobs, e.g. 100"),
    "sched_interval": (
        1,
        1000000,
        "seconds between full main-scheduler passes (-1: none), e.g. 60",
    ),
}


def scheduler_parameters_problem(value: str) -> str | None:
    """What is wrong with a SchedulerParameters line's modelled options, or None.

    >>> scheduler_parameters_problem("bf_interval=5,bf_window=abc")
    "SchedulerParameters bf_window='abc' must be a whole number from 1 to 43200 (minutes, e.g. 1440)"
    """
    seen: set[str] = set()
    for item in str(value).split(","):
        key, _, raw = item.strip().partition("=")
        key, raw = key.strip().lower(), raw.strip()  # (slurmctld matches them in any case)
        if key not in SCHEDULER_PARAMETERS:
            continue
        if key in seen:
            return f"SchedulerParameters gives {key} twice; keep one"
        seen.add(key)
        low, high, what = SCHEDULER_PARAMETERS[key]
        if key in ("bf_interval", "sched_interval") and raw == "-1":
            continue
        if not raw.isdigit() or not low <= int(raw) <= high:
            return (
                f"SchedulerParameters {key}={raw!r} must be a whole number from {low} to "
                f"{high} ({what})"
            )
    return None


def setting_problem(key: str, value: str) -> str | None:
    """What is wrong with a scheduler setting of slurm.conf, or None when Slurm would take it.

    PriorityWeight* are whole numbers from 0 to 4294967295 (uint32); PriorityWeightTRES and
    TRESBillingWeights are ``TRES=number`` lists; PriorityDecayHalfLife, PriorityCalcPeriod
    and PriorityMaxAge are Slurm times; JobRequeue is 0 or 1.

    >>> setting_problem("PriorityWeightAge", "1000") is None
    True
    >>> setting_problem("JobRequeue", "no")
    "JobRequeue='no' must be 0 (never requeue batch jobs) or 1 (requeue them, the default)"
    """
    low = key.lower()
    text = str(value).strip()
    for name in _WHOLE_WEIGHTS:
        if low == name.lower():
            if not text.isdigit() or int(text) > _UINT32_MAX:
                return f"{key}={value!r} must be a whole number from 0 to {_UINT32_MAX}, e.g. 1000"
            return None
    if low == "schedulerparameters":
        return scheduler_parameters_problem(text)
    if low in _MEMORY_KEYS and not (text.isdigit() or text.upper() == "UNLIMITED"):
        return f"{key}={value!r} must be a whole number of MB (or UNLIMITED), e.g. 4000"
    if low == "enforcepartlimits" and text.upper() not in ("ALL", "ANY", "NO", "YES"):
        return f"{key}={value!r} must be ALL, ANY, NO or YES"
    if low == "priorityweighttres":
        return _tres_list_problem(key, value, whole=True)
    if low == "tresbillingweights":
        return _tres_list_problem(key, value, whole=False)
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
            return None
    if low == "jobrequeue" and text not in ("0", "1"):
        return (
            f"{key}={value!r} must be 0 (never requeue batch jobs) or 1 (requeue them, the default)"
        )
    return None


def _tres_list_problem(key: str, value: str, *, whole: bool) -> str | None:
    example = "CPU=1000,Mem=2000,GRES/gpu=3000" if whole else "CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
    form = "a whole number >= 0" if whole else "a number >= 0 (Mem may end in K, M, G or T)"
    for item in str(value).strip().strip('"').split(","):
        if not item.strip():
            continue
        name, eq, number = (x.strip() for x in item.partition("="))
        if not eq or not name:
            return f"{key}={value!r}: {item.strip()!r} is not TRES=weight; write e.g. {example}"
        if whole:
            ok = number.isdigit() and int(number) <= _UINT32_MAX
        else:
            if name.lower() == "mem" and number[-1:].upper() in ("K", "M", "G", "T"):
                number = number[:-1]
            ok = re.fullmatch(r"\d+(\.\d*)?|\.\d+", number) is not None
        if not ok:
            return f"{key}={value!r}: the weight of {name} must be {form}; e.g. {example}"
    return None


def parse_time_value(value: str, key: str, line: int, source: str) -> timedelta | None:
    try:
        return parse_duration(value, what=key)
    except SlurmlabError as exc:
        raise ConfigError(str(exc), source=source, line=line) from None
