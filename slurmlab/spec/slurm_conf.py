"""Read a real ``slurm.conf`` (and ``gres.conf``) into a :class:`Cluster`.

Handles what real files contain: comments, ``\\`` line continuations, quoted
values, case-insensitive keys, hostlist ranges, ``NodeName=DEFAULT`` and
``PartitionName=DEFAULT`` lines, ``Nodes=ALL``, and CPUs computed from
Sockets x CoresPerSocket x ThreadsPerCore when ``CPUs`` is absent. Global settings
are kept (``Cluster.settings``) and checked as they are read (``setting_problem``): a
malformed line raises :class:`ConfigError` naming the line number and the key. A
setting Slurm would act on but slurmlab does not model (``ReturnToService=0``,
``PriorityFlags=INCR_ONLY``, a partition's ``PreemptMode``...) is named in a warning
with its file and line; keys that change nothing a simulation shows (``SlurmctldHost``,
``AuthType``...) are kept silently. A key slurm.conf(5) does not have (``PriorityWieghtAge``),
on a global, NodeName= or PartitionName= line, is named in a warning with the closest key
Slurm has: slurmctld 22.05 refuses to start on it, and slurmlab ignores it.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from slurmlab.errors import ConfigError, SlurmlabError
from slurmlab.spec.cluster import (
    KNOWN_KEYS,
    NODE_OPTIONS,
    PARTITION_OPTIONS,
    PRIORITY_JOB_FACTOR_MAX,
    SCHEDULER_KEYS,
    Cluster,
    ConfSettings,
    Gres,
    Node,
    Partition,
    parse_gres,
    parse_time_value,
    quote_split,
    setting_problem,
    setting_warning,
    unknown_key_warning,
)
from slurmlab.spec.units import expand_hostlist, parse_memory_mb

__all__ = ["SCHEDULER_KEYS", "parse_gres_conf", "parse_slurm_conf", "read_text"]

_CANON = KNOWN_KEYS  # (lower case -> the spelling slurm.conf(5) uses)

#: A NodeName= line's options: Slurm's (NODE_OPTIONS), and one slurmlab also reads,
#: scontrol's name for Features.
_NODE_KEYS = NODE_OPTIONS | {"AvailableFeatures"}

_NODE_INT = {"cpus", "boards", "sockets", "socketsperboard", "corespersocket", "threadspercore"}


def read_text(path_or_text: str | Path) -> tuple[str, str]:
    """Return (text, source name) for a path or a literal text."""
    if isinstance(path_or_text, Path):
        return path_or_text.read_text(encoding="utf-8"), str(path_or_text)
    s = str(path_or_text)
    if "\n" not in s and "=" not in s:
        p = Path(s)
        if not p.exists():
            raise SlurmlabError(f"slurm.conf file {s!r} does not exist")
        return p.read_text(encoding="utf-8"), s
    return s, "slurm.conf"


def _logical_lines(text: str):
    """Yield (line number, content) with comments stripped and continuations joined."""
    buf, start = "", None
    for no, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw).rstrip()
        if start is None:
            start = no
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        if buf.strip():
            yield start, buf.strip()
        buf, start = "", None
    if buf.strip():
        yield start, buf.strip()


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out)


def _pairs(line: str, no: int, source: str) -> list[tuple[str, str]]:
    try:
        tokens = quote_split(line)
    except ValueError as exc:
        raise ConfigError(
            f"cannot split {line!r}: {exc} (unbalanced quotes?)", source=source, line=no
        ) from None
    pairs = []
    for tok in tokens:
        key, eq, value = tok.partition("=")
        if not eq or not key:
            raise ConfigError(
                f"{tok!r} is not Key=Value; every setting must be written Key=Value",
                source=source,
                line=no,
            )
        pairs.append((key, value))
    return pairs


def _int(value: str, key: str, no: int, source: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ConfigError(
            f"{key}={value!r} is not a whole number", source=source, line=no
        ) from None


def _node_from(kv: dict[str, str], name: str, no: int, source: str) -> Node:
    low = {k.lower(): v for k, v in kv.items()}
    spelled = {k.lower(): k for k in kv}
    for k in _NODE_INT:
        if k in low:
            _int(low[k], spelled[k], no, source)
    if "cpus" in low or "procs" in low:
        cpus = _int(low.get("cpus", low.get("procs")), "CPUs", no, source)
    else:
        boards = int(low.get("boards", 1))
        sockets = int(low.get("sockets", low.get("socketsperboard", 1)))
        cores = int(low.get("corespersocket", 1))
        threads = int(low.get("threadspercore", 1))
        cpus = boards * sockets * cores * threads
    try:
        mem = parse_memory_mb(low.get("realmemory", "1"), what="RealMemory")
    except SlurmlabError as exc:
        raise ConfigError(str(exc), source=source, line=no) from None
    try:
        gres = parse_gres(low.get("gres", ""))
    except SlurmlabError as exc:
        raise ConfigError(str(exc), source=source, line=no) from None
    feats = low.get("features", low.get("feature", low.get("availablefeatures", "")))
    features = frozenset(f for f in re.split(r"[,\s]+", feats) if f)
    port = low.get("port")
    state = low.get("state", "UNKNOWN").upper().split("+")[0]
    if state not in ("IDLE", "UP", "DOWN", "DRAIN", "FUTURE", "UNKNOWN", "CLOUD"):
        raise ConfigError(
            f"State={low['state']!r} is not a node state (UNKNOWN, IDLE, DOWN, DRAIN, FUTURE, CLOUD)",
            source=source,
            line=no,
        )
    return Node(
        name=name,
        cpus=cpus,
        memory_mb=mem,
        gres=gres,
        features=features,
        addr=None,
        port=_int(port, "Port", no, source) if port else None,
        state="IDLE" if state in ("UNKNOWN", "UP", "CLOUD") else state,
        weight=_int(low.get("weight", "1"), "Weight", no, source),
    )


def parse_slurm_conf(
    path_or_text: str | Path, gres_conf: str | Path | None = None, *, name: str | None = None
) -> Cluster:
    """Parse slurm.conf text or a path into a Cluster (see the module docstring)."""
    text, source = read_text(path_or_text)
    settings = ConfSettings()  # (each remembers its line, for the warnings about it)
    node_default: dict[str, str] = {}
    part_default: dict[str, str] = {}
    nodes: dict[str, Node] = {}
    node_line: dict[str, int] = {}
    raw_parts: list[tuple[int, dict[str, str]]] = []
    for no, line in _logical_lines(text):
        pairs = _pairs(line, no, source)
        head, value = pairs[0]
        hl = head.lower()
        if hl == "nodename":
            kv = dict(pairs[1:])
            _warn_unknown_options(kv, "node option", f"NodeName={value}", no, source, 4)
            if value.upper() == "DEFAULT":
                node_default.update(kv)
                continue
            merged = {**node_default, **kv}
            try:
                names = expand_hostlist(value)
            except SlurmlabError as exc:
                raise ConfigError(f"NodeName={value!r}: {exc}", source=source, line=no) from None
            addrs = None
            for k, v in merged.items():
                if k.lower() == "nodeaddr":
                    addrs = expand_hostlist(v)
                    if len(addrs) not in (1, len(names)):
                        raise ConfigError(
                            f"NodeAddr={v!r} names {len(addrs)} addresses for {len(names)} nodes",
                            source=source,
                            line=no,
                        )
            ports = None
            for k, v in list(merged.items()):
                if k.lower() == "port" and "[" in v:  # Port=[16821-16824]: one port per node
                    try:
                        ports = expand_hostlist(v)
                    except SlurmlabError as exc:
                        raise ConfigError(f"Port={v!r}: {exc}", source=source, line=no) from None
                    if len(ports) not in (1, len(names)):
                        raise ConfigError(
                            f"Port={v!r} names {len(ports)} ports for {len(names)} nodes",
                            source=source,
                            line=no,
                        )
                    merged = {kk: vv for kk, vv in merged.items() if kk.lower() != "port"}
            for i, n in enumerate(names):
                node = _node_from(merged, n, no, source)
                if addrs:
                    node = Node(**{**_fields(node), "addr": addrs[i if len(addrs) > 1 else 0]})
                if ports:
                    port = ports[i if len(ports) > 1 else 0]
                    node = Node(**{**_fields(node), "port": _int(port, "Port", no, source)})
                nodes[n] = node
                node_line[n] = no
        elif hl == "partitionname":
            kv = dict(pairs[1:])
            if value.upper() == "DEFAULT":
                part_default.update(kv)
                continue
            raw_parts.append((no, {"PartitionName": value, **part_default, **kv}))
        elif hl in ("include", "nodeset", "downnodes", "frontendname", "switchname"):
            settings.setdefault(head, value)
            settings.where.setdefault(head, f"{source} line {no}")
        else:
            if len(pairs) > 1:
                raise ConfigError(
                    f"{head}={value!r} is followed by {pairs[1][0]!r}: put one global setting per line",
                    source=source,
                    line=no,
                )
            key = _CANON.get(hl, head)
            problem = setting_problem(key, value)
            if problem:
                raise ConfigError(problem, source=source, line=no)
            settings[key] = value
            settings.where[key] = f"{source} line {no}"
    if not nodes:
        raise ConfigError("no NodeName lines: a cluster needs at least one node", source=source)
    if gres_conf is not None:
        nodes = _apply_gres_conf(nodes, gres_conf)
    partitions = [_partition(kv, no, source, list(nodes)) for no, kv in raw_parts]
    if not partitions:
        partitions = [Partition("default", tuple(nodes), default=True)]
    cluster_name = name or settings.get("ClusterName") or Path(source).stem
    try:
        return Cluster(cluster_name, tuple(nodes.values()), tuple(partitions), settings)
    except ConfigError:
        raise
    except SlurmlabError as exc:
        raise ConfigError(str(exc), source=source) from None


def _fields(node: Node) -> dict:
    return {f: getattr(node, f) for f in Node.__slots__}


#: Partition options slurmlab applies beyond the Partition fields (in lower case).
_PARTITION_MODELLED = {
    "defmempercpu", "defmempernode", "defmempergpu", "maxmempercpu", "maxmempernode",
    "tresbillingweights", "hidden", "oversubscribe", "allowaccounts", "denyaccounts",
}  # fmt: skip


def _partition(kv: dict[str, str], no: int, source: str, all_nodes: list[str]) -> Partition:
    low = {k.lower(): (k, v) for k, v in kv.items()}
    pname = kv["PartitionName"]
    nodes_expr = low.get("nodes", ("Nodes", ""))[1]
    if not nodes_expr:
        raise ConfigError(f"PartitionName={pname}: Nodes= is missing", source=source, line=no)
    if nodes_expr.upper() == "ALL":
        names = list(all_nodes)
    else:
        try:
            names = expand_hostlist(nodes_expr)
        except SlurmlabError as exc:
            raise ConfigError(f"Nodes={nodes_expr!r}: {exc}", source=source, line=no) from None
    missing = [n for n in names if n not in all_nodes]
    if missing:
        raise ConfigError(
            f"Nodes={nodes_expr!r} of partition {pname!r} names undefined nodes {missing[:5]}; "
            "define them with NodeName= first",
            source=source,
            line=no,
        )

    def get(key, default=None):
        return low.get(key.lower(), (key, default))[1]

    def yes(key):
        v = get(key, "NO")
        if v.upper() not in ("YES", "NO"):
            raise ConfigError(f"{key}={v!r} must be YES or NO", source=source, line=no)
        return v.upper() == "YES"

    max_nodes = get("MaxNodes")
    known = {"partitionname", "nodes", "default", "maxtime", "defaulttime", "maxnodes"}
    known |= {"prioritytier", "priorityjobfactor", "state", "priority", "minnodes"}
    options = {k: v for lk, (k, v) in low.items() if lk not in known}
    slurms = {o.lower() for o in PARTITION_OPTIONS}
    _warn_unknown_options(options, "partition option", f"partition {pname!r}", no, source, 6)
    for k, v in options.items():  # (a partition's own TRESBillingWeights, DefMemPerCPU...)
        problem = setting_problem(k, v) if k.lower() in slurms else None
        if problem:
            raise ConfigError(f"partition {pname!r}: {problem}", source=source, line=no)
    over = get("OverSubscribe", "NO").upper()
    if over not in ("NO", "EXCLUSIVE", "YES", "FORCE") and not over.startswith(("YES:", "FORCE:")):
        raise ConfigError(
            f"partition {pname!r}: OverSubscribe={over!r} must be NO, EXCLUSIVE, YES[:N] or "
            "FORCE[:N]",
            source=source,
            line=no,
        )
    ignored = [k for k in options if k.lower() in slurms - _PARTITION_MODELLED]
    if over not in ("NO", "EXCLUSIVE"):
        ignored.append(f"OverSubscribe={over}")
    if ignored:
        warnings.warn(
            f"{source} line {no}: partition {pname!r}: {', '.join(ignored)} not modelled by "
            "slurmlab (ignored)",
            stacklevel=5,
        )
    for k, v in options.items():  # (a modelled option may name what is not: TRES, say)
        note = setting_warning(k, v) if k.lower() in _PARTITION_MODELLED else None
        if note:
            warnings.warn(f"{source} line {no}: partition {pname!r}: {note}", stacklevel=5)
    tier = get("PriorityTier", "1")
    job_factor = get("PriorityJobFactor", "1")
    factor_key = "PriorityJobFactor"
    if get("Priority") is not None:  # the old name sets both (read_config.c)
        tier = job_factor = get("Priority")
        factor_key = "Priority"
    factor = _int(job_factor, factor_key, no, source)
    if not 0 <= factor <= PRIORITY_JOB_FACTOR_MAX:
        raise ConfigError(
            f"partition {pname!r}: {factor_key}={job_factor!r} must be a whole number from 0 to "
            f"{PRIORITY_JOB_FACTOR_MAX} (slurm.conf(5): it may not exceed 65533)",
            source=source,
            line=no,
        )
    state = get("State", "UP").upper()
    if state not in ("UP", "DOWN", "DRAIN", "INACTIVE"):
        raise ConfigError(
            f"State={state!r} must be UP, DOWN, DRAIN or INACTIVE", source=source, line=no
        )
    return Partition(
        name=pname,
        nodes=tuple(names),
        default=yes("Default"),
        max_time=parse_time_value(get("MaxTime", "UNLIMITED"), "MaxTime", no, source),
        default_time=(
            parse_time_value(get("DefaultTime"), "DefaultTime", no, source)
            if get("DefaultTime")
            else None
        ),
        max_nodes=(
            None
            if max_nodes is None or max_nodes.upper() == "UNLIMITED"
            else _int(max_nodes, "MaxNodes", no, source)
        ),
        priority_tier=_int(tier, "PriorityTier", no, source),
        priority_job_factor=factor,
        min_nodes=_int(get("MinNodes", "1"), "MinNodes", no, source),
        state=state,
        options=options,
    )


def _warn_unknown_options(
    kv: dict[str, str], kind: str, what: str, no: int, source: str, stacklevel: int
) -> None:
    """Warn about each key of a NodeName= or PartitionName= line that is not one of that
    line's options in Slurm (``kind``: "node option" or "partition option"), naming the
    closest one; ``stacklevel`` points the warning at the caller of ``from_slurm_conf``."""
    options = _NODE_KEYS if kind == "node option" else PARTITION_OPTIONS
    for k, v in kv.items():
        note = unknown_key_warning(k, v, kind, options)
        if note is None and kind == "node option":
            spec = next((s for s in _SPECIALIZED if s.lower() == k.lower()), None)
            if spec is not None:
                note = f"{spec}={v}: not modelled by slurmlab (ignored); {_SPECIALIZED[spec]}"
        if note:
            warnings.warn(f"{source} line {no}: {what}: {note}", stacklevel=stacklevel)


#: Node options that keep resources from jobs (core specialization), which slurmlab ignores.
_SPECIALIZED = {
    "CoreSpecCount": "Slurm keeps that many cores for system use, so jobs get fewer CPUs than "
    "CPUs= says; slurmlab gives jobs every CPU",
    "CPUSpecList": "Slurm keeps those CPUs for system use, so jobs get fewer than CPUs= says; "
    "slurmlab gives jobs every CPU",
    "MemSpecLimit": "Slurm keeps that much memory (MB) for system use, so jobs get less than "
    "RealMemory= says; slurmlab gives jobs all of it",
}


def parse_gres_conf(path_or_text: str | Path) -> dict[str, list[Gres]]:
    """Parse gres.conf into node name -> list of Gres (types and counts from File=/Count=)."""
    text, source = read_text(path_or_text)
    source = source if source != "slurm.conf" else "gres.conf"
    out: dict[str, list[Gres]] = {}
    for no, line in _logical_lines(text):
        kv = {k.lower(): v for k, v in _pairs(line, no, source)}
        if "autodetect" in kv and "name" not in kv:
            continue
        if "name" not in kv:
            raise ConfigError(f"line {line!r} has no Name= (e.g. Name=gpu)", source=source, line=no)
        if "file" in kv:
            try:
                count = len(expand_hostlist(kv["file"]))
            except SlurmlabError as exc:
                raise ConfigError(f"File={kv['file']!r}: {exc}", source=source, line=no) from None
        elif "count" in kv:
            count = _int(kv["count"], "Count", no, source)
        else:
            count = 1
        nodes = expand_hostlist(kv["nodename"]) if "nodename" in kv else ["*"]
        for n in nodes:
            out.setdefault(n, []).append(Gres(kv["name"], kv.get("type"), count))
    return out


def _apply_gres_conf(nodes: dict[str, Node], gres_conf: str | Path) -> dict[str, Node]:
    """Fill GRES types from gres.conf; its counts must agree with slurm.conf's Gres=."""
    table = parse_gres_conf(gres_conf)
    out = {}
    for name, node in nodes.items():
        entries = table.get(name, []) + table.get("*", [])
        if not entries:
            out[name] = node
            continue
        declared = {g.name: sum(x.count for x in node.gres if x.name == g.name) for g in entries}
        found: dict[str, int] = {}
        for g in entries:
            found[g.name] = found.get(g.name, 0) + g.count
        for gname, cnt in found.items():
            if declared.get(gname) and declared[gname] != cnt:
                raise ConfigError(
                    f"node {name}: gres.conf lists {cnt} {gname} but slurm.conf Gres= declares "
                    f"{declared[gname]}; make the counts agree",
                    source="gres.conf",
                )
        typed = [g for g in entries if g.type] or entries
        others = tuple(g for g in node.gres if g.name not in found)
        out[name] = Node(**{**_fields(node), "gres": tuple(typed) + others})
    return out
