"""Read a real ``slurm.conf`` (and ``gres.conf``) into a :class:`Cluster`.

Handles what real files contain: comments, ``\\`` line continuations, quoted
values, case-insensitive keys, a leading byte-order mark, hostlist ranges,
``NodeName=DEFAULT`` and ``PartitionName=DEFAULT`` lines, ``Nodes=ALL``, ``NodeSet=``
names in a partition's ``Nodes=``, ``DownNodes=`` lines, ``Include`` lines (a relative
path is read from the including file's directory, as Slurm does), GRES counts with Slurm's
suffixes (``gpu:2K``), a ``Port=`` range with or without brackets, and CPUs computed from
Sockets x CoresPerSocket x ThreadsPerCore when ``CPUs`` is absent. Global settings are kept
(``Cluster.settings``) and checked as they are read (``setting_problem``): a malformed line
raises :class:`ConfigError` naming the file, the line number, the key and the value. This
module reads the text; the ranges of the values are the specs' (:class:`Node`,
:class:`Partition`, :class:`Gres`), so that slurm.conf, a scenario and Python agree, and
here their errors get the file and the line. A setting Slurm would act on but slurmlab
does not model (``ReturnToService=0``, ``PriorityFlags=INCR_ONLY``, a partition's
``PreemptMode``...) is named in a warning with its file and line; keys that change nothing
a simulation shows (``SlurmctldHost``, ``AuthType``...) are kept silently. A key
slurm.conf(5) does not have (``PriorityWieghtAge``), on a global, NodeName= or
PartitionName= line, is named in a warning with the closest key Slurm has: slurmctld 22.05
refuses to start on it, and slurmlab ignores it. Repeats follow slurmctld: a node or a
partition defined twice is an error; a key given twice (on one line, or a global key on
two lines) is named in a warning, and the last value wins; a repeated ``SlurmctldHost``
adds a controller (the first is the primary), as in Slurm.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from slurmlab.errors import ConfigError, SlurmlabError, warn_at_caller
from slurmlab.spec.cluster import (
    KNOWN_KEYS,
    NODE_OPTIONS,
    PARTITION_OPTIONS,
    SCHEDULER_KEYS,
    Cluster,
    ConfSettings,
    Gres,
    Node,
    Partition,
    parse_gres,
    parse_time_value,
    preempt_conflict,
    quote_split,
    setting_problem,
    setting_warning,
    unknown_key_warning,
)
from slurmlab.spec.units import (
    MAX_COUNT,
    MAX_COUNT16,
    UINT16_MAX,
    UINT32_MAX,
    compress_hostlist,
    expand_hostlist,
    parse_memory_mb,
    suffixed_count,
)

__all__ = ["SCHEDULER_KEYS", "included_files", "parse_gres_conf", "parse_slurm_conf", "read_text"]

_CANON = KNOWN_KEYS  # (lower case -> the spelling slurm.conf(5) uses)

#: A NodeName= line's options: Slurm's (NODE_OPTIONS), and one slurmlab also reads,
#: scontrol's name for Features.
_NODE_KEYS = NODE_OPTIONS | {"AvailableFeatures"}

#: The options of a DownNodes= and a NodeSet= line (read_config.c ``_downnodes_options``,
#: ``_nodeset_options``).
_DOWN_NODES_KEYS = frozenset({"Reason", "State"})
_NODE_SET_KEYS = frozenset({"Feature", "Nodes"})

#: A node's counts, each a uint16 in Slurm (read_config.c ``_nodename_options``); a Node
#: holds CPUs (or its old name Procs) and bounds it, the others only make it up.
_NODE_INT = {"cpus", "procs", "boards", "sockets", "socketsperboard", "corespersocket"}
_NODE_INT |= {"threadspercore"}
_NODE_CPUS = {"cpus", "procs"}

#: Slurm's spelling of each key, by lower-case name (as slurmctld's messages name them).
_SPELLING = {k.lower(): k for k in (*NODE_OPTIONS, *PARTITION_OPTIONS, *KNOWN_KEYS.values())}

#: Global lines that may repeat, each adding a record (read_config.c: S_P_ARRAY options):
#: their values are kept in order, joined with commas (SlurmctldHost: the first is the
#: primary controller, the others its backups).
_REPEATABLE = {"slurmctldhost"}


def read_text(path_or_text: str | Path) -> tuple[str, str]:
    """Return (text, source name) for a path or a literal text; a leading BOM is dropped."""
    text, source, _ = _read(path_or_text)
    return text, source


def _read(path_or_text: str | Path) -> tuple[str, str, Path | None]:
    """(text without a leading byte-order mark, source name, the file read or None)."""
    if isinstance(path_or_text, Path):
        path = path_or_text
    else:
        s = str(path_or_text)
        if "\n" in s or "=" in s:
            return s.removeprefix("\ufeff"), "slurm.conf", None
        path = Path(s)
        if not path.exists():
            raise SlurmlabError(f"slurm.conf file {s!r} does not exist")
    return path.read_text(encoding="utf-8").removeprefix("\ufeff"), str(path), path


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


# -- Include ------------------------------------------------------------------------------------
def _conf_lines(
    text: str, source: str, path: Path | None, settings: ConfSettings, chain=(), opened=None
):
    """Yield (source, line number, content) of a slurm.conf, each ``Include`` line replaced
    by the lines of the file it names (parse_config.c ``_parse_include_directive``: a line
    that starts with the word "include", any case, then white space). Each file included is
    appended to the list ``opened`` when one is given."""
    for no, line in _logical_lines(text):
        if not re.match(r"include(\s|$)", line, re.IGNORECASE):
            yield source, no, line
            continue
        target, written = _include_target(line, no, source, path, settings)
        seen = [p.resolve() for p in (*chain, path) if p is not None]
        if target.resolve() in seen:
            raise ConfigError(
                f"Include {written}: {target} is already being read (it includes itself, "
                "directly or through another file), so Slurm would read it without end; "
                "remove the loop",
                source=source,
                line=no,
            )
        included = _read_included(target, written, no, source)
        if opened is not None:
            opened.append(target)
        yield from _conf_lines(included, str(target), target, settings, (*chain, path), opened)


def _include_target(
    line: str, no: int, source: str, path: Path | None, settings: ConfSettings
) -> tuple[Path, str]:
    """The file an ``Include`` line names, and its name as written. A relative name is
    found in the directory of the file that holds the line (parse_config.c
    ``_add_full_path``); ``%c`` stands for ClusterName, in lower case."""
    words = line.split()
    if len(words) == 1:
        raise ConfigError(
            f"{line!r} names no file; write Include and the file, e.g. Include nodes.conf",
            source=source,
            line=no,
        )
    written = words[1]
    if len(words) > 2:
        raise ConfigError(
            f"{line!r}: an Include line names one file, and Slurm refuses the rest of the line "
            f'("Parse error in file {source} line {no}: \\"{" ".join(words[2:])}\\""); '
            "write one Include line per file",
            source=source,
            line=no,
        )
    name = written
    if "%c" in name:
        cluster = settings.get("ClusterName")
        if cluster is None:
            raise ConfigError(
                f"Include {written}: %c stands for ClusterName, which no line above sets "
                '(Slurm: "Did not get ClusterName for include path"); set ClusterName= '
                "before this line",
                source=source,
                line=no,
            )
        name = name.replace("%c", cluster.lower())
    target = Path(name)
    if not target.is_absolute():
        if path is None:
            raise ConfigError(
                f"Include {written}: this slurm.conf was given as text, so there is no "
                f"directory to find {name!r} in (Slurm looks in the directory of the file "
                "that includes it); give the slurm.conf's path instead of its text, give an "
                "absolute path, or paste that file's lines here",
                source=source,
                line=no,
            )
        target = path.parent / target
    return target, written


def _read_included(target: Path, written: str, no: int, source: str) -> str:
    """The text of an included file; a ConfigError naming the Include line otherwise."""
    shown = written if str(target) == written else f"{written} ({target})"
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        problem = "does not exist"
    except IsADirectoryError:
        problem = "is a directory, not a file"
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror})"
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"is not UTF-8 text (byte {exc.start} is {data[exc.start : exc.start + 1]!r})"
        else:
            if "\x00" not in text:
                return text.removeprefix("\ufeff")
            problem = "is not text (it holds NUL bytes)"
    raise ConfigError(
        f'Include {shown}: the file {problem}; slurmctld stops ("Include" failed in file '
        f"{source} line {no}); check the path",
        source=source,
        line=no,
    )


# -- one line's options -------------------------------------------------------------------------
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


def _options(pairs: list[tuple[str, str]], what: str, no: int, source: str) -> dict[str, str]:
    """A line's Key=Value options (after its first); a key given twice, in any case, is
    named in a warning and its last value wins, as in Slurm (parse_config.c
    ``_handle_common``: "specified more than once, latest value used")."""
    out: dict[str, str] = {}
    first: dict[str, str] = {}  # (lower case -> the spelling first used)
    for key, value in pairs:
        low = key.lower()
        if low in first:
            was = first[low]
            says = f"{_SPELLING.get(low, key)} 1 specified more than once, latest value used"
            warn_at_caller(
                f"{source} line {no}: {what}: {key} is given twice on this line ({was}="
                f'{out[was]}, then {key}={value}); Slurm uses the last (slurmctld logs "{says}") '
                f"and so does slurmlab: {key}={value}; give it once"
            )
            out[was] = value
        else:
            first[low] = key
            out[key] = value
    return out


def _merged(defaults: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """``defaults`` (a DEFAULT line's options) overridden by a line's ``own``, matching keys
    in any case."""
    spelled = {k.lower(): k for k in own}
    out = {}
    for k, v in defaults.items():
        mine = spelled.get(k.lower())
        if mine is None:
            out[k] = v
        else:  # (the line's own value, where the default was)
            out[mine] = own[mine]
    return out | own


def _whole(
    value: str,
    key: str,
    no: int,
    source: str,
    *,
    most: int,
    least: int = 0,
    what: str = "",
    unlimited: bool = False,
    spec: bool = False,
) -> int:
    """``value`` of ``key`` as Slurm reads a count (parse_value.c ``s_p_handle_uint16`` /
    ``uint32``): ASCII digits; else a ConfigError with the line and value.

    ``most`` is the largest value: for a key a spec holds (``spec``: CPUs, Weight, Port,
    PriorityTier, MaxNodes...) the spec's own bound, which only the spec checks (its error
    gets this line by :func:`_at_line`); for another (Sockets...) the largest value of its
    type in Slurm, checked here. (``least`` and ``unlimited`` are only named in the fix: the
    caller refuses a smaller count, and reads UNLIMITED.)"""
    head = f"{what}: " if what else ""
    spelled = _SPELLING.get(key.lower(), key)
    if re.fullmatch(r"[0-9]+", value):
        if spec or int(value) <= most:
            return int(value)
        why = (
            f'is greater than {most}, the most Slurm takes ("{spelled} value ({value}) is '
            f'greater than {most}")'
        )
    elif re.fullmatch(r"-[0-9]+", value):
        why = f'is less than zero (Slurm: "{spelled} value ({value}) is less than zero")'
    else:
        why = "is not a whole number"
    raise ConfigError(
        f"{head}{key}={value!r} {why}; give a whole number from {least} to {most}"
        + (", or UNLIMITED" if unlimited else ""),
        source=source,
        line=no,
    )


# -- nodes --------------------------------------------------------------------------------------
@contextmanager
def _at_line(what: str | None, no: int, source: str):
    """An error raised inside (a value a spec refuses) as a ConfigError naming the file, the
    line and ``what`` (``NodeName=n[1-4]``; None: the spec's words name it) before the
    spec's own words."""
    try:
        yield
    except ConfigError:
        raise
    except SlurmlabError as exc:
        raise ConfigError(f"{what}: {exc}" if what else str(exc), source=source, line=no) from None


def _check_node_options(kv: dict[str, str], what: str, no: int, source: str) -> None:
    """Check the syntax of a NodeName= line's own values (its DEFAULT values were checked on
    their line), so that an error names the line, the key and the value as written. Their
    ranges are the Node's to check (a DEFAULT line's: ``_check_default_node``)."""
    for key, value in kv.items():
        low = key.lower()
        if low in _NODE_INT:
            cpus = low in _NODE_CPUS
            most = MAX_COUNT16 if cpus else UINT16_MAX
            if _whole(value, key, no, source, most=most, least=1, what=what, spec=cpus) == 0:
                names = what.partition("=")[2]
                says = f': "NodeNames={names} {_SPELLING[low]}=0 is invalid, reset to 1"'
                raise ConfigError(
                    f"{what}: {key}=0 is invalid: a node has at least 1 (slurmctld resets it "
                    f"to 1{'' if names.upper() == 'DEFAULT' else says}); give the node's real "
                    f"{key}",
                    source=source,
                    line=no,
                )
        elif low == "weight":
            _whole(value, key, no, source, most=UINT32_MAX, what=what, spec=True)
        elif low == "port":
            _ports(value, what, no, source)
        elif low == "realmemory":
            with _at_line(what, no, source):
                parse_memory_mb(value, what="RealMemory")
        elif low == "gres":
            _node_gres(value, what, no, source)
        elif low == "state":
            state = value.upper().split("+")[0]
            if state not in ("IDLE", "UP", "DOWN", "DRAIN", "FUTURE", "UNKNOWN", "CLOUD"):
                raise ConfigError(
                    f"State={value!r} is not a node state (UNKNOWN, IDLE, DOWN, DRAIN, "
                    "FUTURE, CLOUD)",
                    source=source,
                    line=no,
                )


def _node_gres(value: str, what: str, no: int, source: str) -> tuple[Gres, ...]:
    """A node's ``Gres=`` as slurmctld reads it (:func:`~slurmlab.spec.cluster.parse_gres`);
    an error names the file and the line."""
    with _at_line(what, no, source):
        return parse_gres(value, what="Gres")


def _ports(value: str, what: str, no: int, source: str) -> list[int]:
    """A ``Port=`` value: one port, or a range or list of them, one per node, with or without
    brackets (``[27001-27010]`` or ``27001-27010``: node_conf.c reads a value that holds
    '-' or ',' as ``[value]``). Each is a whole number here; the Node checks its range."""
    text = f"[{value}]" if value[:1] != "[" and ("-" in value or "," in value) else value
    try:
        ports = expand_hostlist(text)
    except SlurmlabError as exc:
        raise ConfigError(f"{what}: Port={value!r}: {exc}", source=source, line=no) from None
    return [
        _whole(p, "Port", no, source, most=UINT16_MAX, least=1, what=what, spec=True) for p in ports
    ]


def _node_cpus(low: dict[str, str]) -> int:
    """A node's CPUs: CPUs= (or its old name Procs=), else Boards x Sockets (or
    SocketsPerBoard) x CoresPerSocket x ThreadsPerCore, each 1 when absent."""
    count = {k: int(v) for k, v in low.items() if k in _NODE_INT}
    if "cpus" in count or "procs" in count:
        return count.get("cpus", count.get("procs"))
    sockets = count.get("sockets", count.get("socketsperboard", 1))
    return (
        count.get("boards", 1)
        * sockets
        * count.get("corespersocket", 1)
        * count.get("threadspercore", 1)
    )


def _threads_counted(kv: dict[str, str]) -> tuple[int, int] | None:
    """(ThreadsPerCore, cores) of a NodeName= line whose CPUs count more than one thread
    per core (CPUs= absent, or equal to cores x threads), else None."""
    low = {k.lower(): v for k, v in kv.items()}
    threads = int(low.get("threadspercore", "1"))
    if threads < 2:
        return None
    cores = _node_cpus({k: v for k, v in low.items() if k not in ("cpus", "procs")}) // threads
    if _node_cpus(low) != cores * threads:
        return None
    return threads, cores


def _node_from(kv: dict[str, str], name: str, what: str, no: int, source: str) -> Node:
    """The node a NodeName= line defines, without its address and port (``kv``: its options
    over its DEFAULT ones, each already checked by ``_check_node_options``)."""
    low = {k.lower(): v for k, v in kv.items()}
    feats = low.get("features", low.get("feature", low.get("availablefeatures", "")))
    state = low.get("state", "UNKNOWN").upper().split("+")[0]
    with _at_line(what, no, source):
        return Node(
            name=name,
            cpus=_node_cpus(low),
            memory_mb=parse_memory_mb(low.get("realmemory", "1"), what="RealMemory"),
            gres=_node_gres(low.get("gres", ""), what, no, source),
            features=frozenset(f for f in re.split(r"[,\s]+", feats) if f),
            state="IDLE" if state in ("UNKNOWN", "UP", "CLOUD") else state,
            weight=int(low.get("weight", "1")),
            threads_per_core=(_threads_counted(kv) or (1, 0))[0],
        )


def _check_default_node(kv: dict[str, str], what: str, no: int, source: str) -> None:
    """Check a NodeName=DEFAULT line's values as a node's (CPUs=70000 is too many), so that
    the error names this line rather than each line that uses them."""
    template = _node_from(kv, "DEFAULT", what, no, source)
    port = next((v for k, v in kv.items() if k.lower() == "port"), None)
    with _at_line(what, no, source):
        for p in _ports(port, what, no, source) if port else ():
            replace(template, port=p)


def _node_line(value: str, kv: dict[str, str], no: int, source: str) -> list[Node]:
    """The nodes of one NodeName= line (``kv``: its options over its DEFAULT ones)."""
    what = f"NodeName={value}"
    try:
        names = expand_hostlist(value)
    except SlurmlabError as exc:
        raise ConfigError(f"NodeName={value!r}: {exc}", source=source, line=no) from None
    if not names:
        raise ConfigError(
            "NodeName= names no node; give the node names, e.g. NodeName=n[1-4]",
            source=source,
            line=no,
        )
    addrs = ports = None
    for k, v in list(kv.items()):
        if k.lower() == "nodeaddr":
            try:
                addrs = expand_hostlist(v)
            except SlurmlabError as exc:
                raise ConfigError(
                    f"{what}: NodeAddr={v!r}: {exc}", source=source, line=no
                ) from None
            if len(addrs) not in (1, len(names)):
                raise ConfigError(
                    f"NodeAddr={v!r} names {len(addrs)} addresses for {len(names)} nodes",
                    source=source,
                    line=no,
                )
        if k.lower() == "port":  # Port=[16821-16824] or 16821-16824: one port per node
            ports = _ports(v, what, no, source)
            if len(ports) not in (1, len(names)):
                raise ConfigError(
                    f"Port={v!r} names {len(ports)} ports for {len(names)} nodes (slurmctld: "
                    '"Port count must equal that of NodeName records or there must be no '
                    'more than one")',
                    source=source,
                    line=no,
                )
    template = _node_from(kv, names[0], what, no, source)
    out = []
    with _at_line(what, no, source):
        for i, n in enumerate(names):
            addr = addrs[i if len(addrs) > 1 else 0] if addrs else None
            port = ports[i if len(ports) > 1 else 0] if ports else None
            out.append(replace(template, name=n, addr=addr, port=port))
    return out


def _down_state(value: str, what: str, no: int, source: str) -> str | None:
    """The state a DownNodes= line's ``State=`` gives its nodes (None: leave them as they
    are), read as slurmctld's ``state_str2int`` reads it (any case; DRAIN..., FAIL...)."""
    word = value.upper()
    if word in ("DOWN", "IDLE", "FUTURE"):
        return word
    if word.startswith("DRAIN"):
        return "DRAIN"
    if word.startswith("CLOUD"):
        return "IDLE"  # (as on a NodeName= line)
    if word == "UNKNOWN":
        return None  # (slurmctld leaves the state as it is)
    if word.startswith("FAIL"):
        warn_at_caller(
            f"{source} line {no}: {what}: State={value}: slurmlab has no FAIL state; it "
            "drains the node instead, which schedules the same (Slurm starts no new job on "
            "a failing node either), but sinfo shows drain where Slurm shows fail"
        )
        return "DRAIN"
    if word in ("ALLOCATED", "MIXED", "ERROR"):
        warn_at_caller(
            f"{source} line {no}: {what}: State={value}: not modelled by slurmlab (ignored): "
            "Slurm shows the node so until its slurmd registers; slurmlab leaves the nodes "
            "as their NodeName= line says; use DOWN, DRAIN, FAIL or FUTURE"
        )
        return None
    raise ConfigError(
        f'{what}: State={value!r} is not a state DownNodes takes (Slurm: "Invalid State '
        f'\\"{value}\\"", and it ignores the line); give DOWN (the default), DRAIN, FAIL, '
        "FAILING or FUTURE",
        source=source,
        line=no,
    )


# -- the file -----------------------------------------------------------------------------------
def parse_slurm_conf(
    path_or_text: str | Path, gres_conf: str | Path | None = None, *, name: str | None = None
) -> Cluster:
    """Parse slurm.conf text or a path into a Cluster (see the module docstring)."""
    text, source, path = _read(path_or_text)
    conf = _Conf()
    for src, no, line in _conf_lines(text, source, path, conf.settings):
        conf.read(line, no, src)
    if not conf.nodes:
        raise ConfigError("no NodeName lines: a cluster needs at least one node", source=source)
    name = name or conf.settings.get("ClusterName") or Path(source).stem
    return conf.cluster(name, gres_conf, source)


def included_files(path: str | Path) -> tuple[Path, ...]:
    """The files a slurm.conf reads through its ``Include`` lines, in the order Slurm reads
    them, each once, resolved (not the slurm.conf itself). The file is read as
    :func:`parse_slurm_conf` reads it (an ``Include`` naming ``%c`` needs the ClusterName of a
    line above), without its warnings: call it on a file that parses."""
    text, source, top = _read(Path(path))
    conf, opened = _Conf(), []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for src, no, line in _conf_lines(text, source, top, conf.settings, opened=opened):
            conf.read(line, no, src)  # (a ClusterName line above names %c)
    return tuple(dict.fromkeys(p.resolve() for p in opened))


@dataclass
class _Conf:
    """What the lines of a slurm.conf say, as they are read: one ``read`` per line, in the
    order of the file (DEFAULT lines apply to the lines after them), then ``cluster``."""

    settings: ConfSettings = field(default_factory=ConfSettings)
    nodes: dict[str, Node] = field(default_factory=dict)
    node_default: dict[str, str] = field(default_factory=dict)
    part_default: dict[str, str] = field(default_factory=dict)
    #: (each line kind's DEFAULT line no later line has used yet)
    unused_default: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: (where each node, partition and global key (in lower case) was defined)
    node_at: dict[str, tuple[str, int]] = field(default_factory=dict)
    part_at: dict[str, tuple[str, int]] = field(default_factory=dict)
    global_at: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: (lines read once every node is known: (source, line number, value, options))
    partition_lines: list[tuple[str, int, dict[str, str]]] = field(default_factory=list)
    down_lines: list[tuple[str, int, str, dict[str, str]]] = field(default_factory=list)
    node_sets: dict[str, tuple[str, int, dict[str, str]]] = field(default_factory=dict)
    #: (NodeName= lines whose CPUs count more than one thread per core: source, line, names,
    #: ThreadsPerCore, cores)
    threaded: list[tuple[str, int, str, int, int]] = field(default_factory=list)

    def read(self, line: str, no: int, src: str) -> None:
        pairs = _pairs(line, no, src)
        head, value = pairs[0]
        kind = head.lower()
        if kind == "include":  # (the Include lines Slurm reads were replaced by _conf_lines)
            raise ConfigError(
                f"Include={value}: Slurm's Include line has no '=' (slurmctld 22.05 stops on "
                'this one: "Parsing error at unrecognized key: Include"); write '
                f"Include {value}",
                source=src,
                line=no,
            )
        if kind == "switchname":  # (a topology.conf line: the network is not modelled)
            warn_at_caller(f"{src} line {no}: {unknown_key_warning(head, value)}")
            return
        if kind == "frontendname":
            warn_at_caller(f"{src} line {no}: FrontendName={value}: {_FRONT_END}")
            return
        line_kinds = {
            "nodename": (self.node_line, "node option"),
            "partitionname": (self.partition_line, "partition option"),
            "downnodes": (self.down_nodes_line, "DownNodes option"),
            "nodeset": (self.node_set_line, "NodeSet option"),
        }
        if kind not in line_kinds:
            self.global_line(head, value, pairs, no, src)
            return
        read_line, options = line_kinds[kind]
        what = f"{_CANON.get(kind, head)}={value}"
        kv = _options(pairs[1:], what, no, src)
        if options != "partition option":  # (a partition's are checked with its defaults)
            _warn_unknown_options(kv, options, what, no, src)
        read_line(value, kv, what, no, src)

    def node_line(self, value: str, kv: dict[str, str], what: str, no: int, src: str) -> None:
        _check_node_options(kv, what, no, src)
        if value.upper() == "DEFAULT":
            _check_default_node(kv, what, no, src)
            self.node_default = _merged(self.node_default, kv)
            self.unused_default["NodeName"] = (src, no)
            return
        self.unused_default.pop("NodeName", None)
        threads = _threads_counted(_merged(self.node_default, kv))
        if threads:
            self.threaded.append((src, no, value, *threads))
        for node in _node_line(value, _merged(self.node_default, kv), no, src):
            if node.name in self.node_at:
                raise ConfigError(
                    f"{what}: node {node.name} is already defined on "
                    f'{_at(self.node_at[node.name], src)}; slurmctld refuses this ("Duplicated '
                    f'NodeName {node.name} in the config file"); define each node once',
                    source=src,
                    line=no,
                )
            self.nodes[node.name] = node
            self.node_at[node.name] = (src, no)

    def partition_line(self, value: str, kv: dict[str, str], what: str, no: int, src: str) -> None:
        if value.upper() == "DEFAULT":
            self.part_default = _merged(self.part_default, kv)
            self.unused_default["PartitionName"] = (src, no)
            return
        if value in self.part_at:
            raise ConfigError(
                f"{what}: partition {value!r} is already defined on "
                f'{_at(self.part_at[value], src)}; slurmctld refuses this ("duplicate entry for '
                f'partition {value}"); define each partition once',
                source=src,
                line=no,
            )
        self.part_at[value] = (src, no)
        self.unused_default.pop("PartitionName", None)
        merged = {"PartitionName": value, **_merged(self.part_default, kv)}
        self.partition_lines.append((src, no, merged))

    def down_nodes_line(self, value: str, kv: dict[str, str], what: str, no: int, src: str) -> None:
        self.down_lines.append((src, no, value, kv))  # (applied once every node is known)

    def node_set_line(self, value: str, kv: dict[str, str], what: str, no: int, src: str) -> None:
        if value in self.node_sets:
            warn_at_caller(
                f"{src} line {no}: {what}: NodeSet {value!r} is already defined on "
                f"{_at(self.node_sets[value][:2], src)}; Slurm uses the first definition and "
                "so does slurmlab; give each NodeSet its own name"
            )
            return
        self.node_sets[value] = (src, no, kv)

    def global_line(self, head: str, value: str, pairs: list, no: int, src: str) -> None:
        if len(pairs) > 1:
            raise ConfigError(
                f"{head}={value!r} is followed by {pairs[1][0]!r}: put one global setting per line",
                source=src,
                line=no,
            )
        low = head.lower()
        key = _CANON.get(low, head)
        problem = setting_problem(key, value)
        if problem:
            raise ConfigError(problem, source=src, line=no)
        before = next((k for k in self.settings if k.lower() == low), None)
        if before is not None and low in _REPEATABLE:  # (one more record: kept in order)
            key, value = before, f"{self.settings[before]},{value}"
        elif before is not None:
            warn_at_caller(
                f"{src} line {no}: {head}={value}: {key} is already set on "
                f"{_at(self.global_at[low], src)} ({before}={self.settings[before]}); "
                f'Slurm uses the last value (slurmctld logs "{key} 1 specified more than '
                f'once, latest value used") and so does slurmlab: {key}={value}; set it once'
            )
            del self.settings[before]
        self.settings[key] = value
        self.settings.where[key] = f"{src} line {no}"
        self.global_at[low] = (src, no)

    def cluster(self, name: str, gres_conf: str | Path | None, source: str) -> Cluster:
        """The cluster the lines read define (with the DownNodes= states and gres.conf)."""
        nodes = dict(self.nodes)
        for src, no, value, kv in self.down_lines:
            _apply_down_nodes(nodes, value, kv, no, src)
        if gres_conf is not None:
            nodes = _apply_gres_conf(nodes, gres_conf)
        members = _node_set_members(self.node_sets, nodes)
        partitions = [
            _partition(kv, no, src, nodes, members) for src, no, kv in self.partition_lines
        ]
        for kind, noun in (("NodeName", "node"), ("PartitionName", "partition")):
            if kind in self.unused_default and (partitions or kind == "NodeName"):
                src, no = self.unused_default[kind]
                warn_at_caller(
                    f"{src} line {no}: {kind}=DEFAULT: no {kind}= line follows it, so its "
                    f"values apply to no {noun} (Slurm applies DEFAULT values to later lines "
                    f"only); move it above the {noun}s it is for"
                )
        if not partitions:
            partitions = [self.default_partition(nodes)]
        self.warn_threads(nodes, partitions, source)
        conflict = preempt_conflict(self.settings)
        if conflict:  # (named at the PreemptType line, else the PreemptMode one)
            src, no = self.global_at.get("preempttype") or self.global_at["preemptmode"]
            raise ConfigError(conflict, source=src, line=no)
        try:
            return Cluster(name, tuple(nodes.values()), tuple(partitions), self.settings)
        except ConfigError:
            raise
        except SlurmlabError as exc:
            raise ConfigError(str(exc), source=source) from None

    def warn_threads(
        self, nodes: dict[str, Node], partitions: list[Partition], source: str
    ) -> None:
        """A partition whose nodes differ in ThreadsPerCore (as CPUs), under a core
        allocation: Slurm allocates each node's own whole cores, slurmlab one shape on every
        node of a job, its cores sized for the most threads per core of the partition."""
        params = str(self.settings.get("SelectTypeParameters", "CR_Core_Memory")).upper()
        if not self.threaded or "CR_CPU" in params:
            return
        for part in partitions:
            counts = sorted({nodes[n].threads_per_core for n in part.nodes if n in nodes})
            if len(counts) > 1:
                src, no = self.part_at.get(part.name, (source, 0))
                where = f"{src} line {no}: " if no else f"{src}: "
                warn_at_caller(
                    f"{where}PartitionName={part.name}: its nodes have "
                    f"ThreadsPerCore {' and '.join(map(str, counts))} (threads counted as "
                    "CPUs): Slurm allocates whole cores of each node, slurmlab sizes a job's "
                    f"cores in this partition for {counts[-1]} threads per core on every node "
                    "(a job of one task gets "
                    f"{counts[-1]} CPUs even on a node of {counts[0]}); put nodes of "
                    "different ThreadsPerCore in separate partitions"
                )

    def default_partition(self, nodes: dict[str, Node]) -> Partition:
        """The partition of a slurm.conf with no PartitionName= line: every node, in a
        partition ``default``, with the values of a PartitionName=DEFAULT line if there is
        one (named in a warning: Slurm would have no partition at all)."""
        if not self.part_default:
            return Partition("default", tuple(nodes), default=True)
        src, no = self.unused_default["PartitionName"]
        given = " ".join(f"{k}={v}" for k, v in self.part_default.items())
        warn_at_caller(
            f"{src} line {no}: PartitionName=DEFAULT {given}: no PartitionName= line follows, "
            "so in Slurm these values apply to no partition, and with no partition slurmctld "
            'refuses every job ("No partition specified or system default partition"); '
            "slurmlab puts every node in a partition 'default' and gives it these values; add "
            "a line such as PartitionName=main Nodes=ALL Default=YES"
        )
        kv = _merged({"Nodes": "ALL", "Default": "YES"}, self.part_default)
        return _partition({"PartitionName": "default", **kv}, no, src, nodes, {})


#: Why a FrontendName= line is ignored.
_FRONT_END = (
    "not modelled by slurmlab (ignored): front-end nodes exist only in a Slurm built with "
    '--enable-front-end (a standard slurmctld stops on this line: "Use of FrontendName in '
    'slurm.conf without Slurm being configured/built with the --enable-front-end option"); '
    "a front end only runs job scripts, on resources still allocated from the NodeName= "
    "nodes, so scheduling is the same"
)


def _at(place: tuple[str, int], source: str) -> str:
    """``line 3`` in the file being read, ``extra.conf line 3`` in another."""
    return f"line {place[1]}" if place[0] == source else f"{place[0]} line {place[1]}"


def _apply_down_nodes(
    nodes: dict[str, Node], value: str, kv: dict[str, str], no: int, source: str
) -> None:
    """Set the state a DownNodes= line gives its nodes (slurmctld ``_handle_downnodes_line``,
    after every NodeName= line is read). Reason= is a label slurmlab does not keep, as on a
    NodeName= line."""
    what = f"DownNodes={value}"
    try:
        names = expand_hostlist(value)
    except SlurmlabError as exc:
        raise ConfigError(f"{what}: {exc}", source=source, line=no) from None
    state_text = next((v for k, v in kv.items() if k.lower() == "state"), "DOWN")
    state = _down_state(state_text, what, no, source)
    unknown = [n for n in names if n not in nodes]
    if unknown:
        warn_at_caller(
            f"{source} line {no}: {what}: {compress_hostlist(unknown)} is not defined by any "
            f'NodeName= line; slurmctld logs "DownNode \\"{unknown[0]}\\" does not exist!" '
            "and skips it, and so does slurmlab; check the node names"
        )
    if state is not None:
        for n in names:
            if n in nodes:
                nodes[n] = replace(nodes[n], state=state)


def _node_set_members(
    node_sets: dict[str, tuple[str, int, dict[str, str]]], nodes: dict[str, Node]
) -> dict[str, list[str]]:
    """The nodes of each NodeSet=: those with its Feature=, then those its Nodes= lists
    (slurmctld ``nodespec_to_hostlist``)."""
    out: dict[str, list[str]] = {}
    for set_name, (src, no, kv) in node_sets.items():
        what = f"NodeSet={set_name}"
        if set_name in nodes:
            raise ConfigError(
                f"{what}: {set_name!r} is also the name of a node; slurm.conf(5): a NodeSet "
                'name "must not overlap with any NodeName definitions"; rename the NodeSet',
                source=src,
                line=no,
            )
        low = {k.lower(): v for k, v in kv.items()}
        found = [n for n, node in nodes.items() if low.get("feature") in node.features]
        if low.get("nodes"):
            try:
                listed = expand_hostlist(low["nodes"])
            except SlurmlabError as exc:
                raise ConfigError(f"{what}: Nodes=: {exc}", source=src, line=no) from None
            missing = [n for n in listed if n not in nodes]
            if missing:
                raise ConfigError(
                    f"{what}: Nodes={low['nodes']!r} names undefined nodes "
                    f"{compress_hostlist(missing)}; define them with NodeName= lines",
                    source=src,
                    line=no,
                )
            found += listed
        out[set_name] = list(dict.fromkeys(found))
    return out


#: Partition options slurmlab applies beyond the Partition fields (in lower case).
_PARTITION_MODELLED = {
    "defmempercpu", "defmempernode", "defmempergpu", "maxmempercpu", "maxmempernode",
    "tresbillingweights", "hidden", "oversubscribe", "allowaccounts", "denyaccounts",
}  # fmt: skip


def _partition(
    kv: dict[str, str],
    no: int,
    source: str,
    all_nodes: Mapping[str, Node],
    node_sets: dict[str, list[str]],
) -> Partition:
    """The partition a PartitionName= line defines (``kv``: its options over its DEFAULT
    ones), over ``all_nodes`` (every node, by name)."""
    low = {k.lower(): (k, v) for k, v in kv.items()}
    pname = kv["PartitionName"]
    nodes_expr = low.get("nodes", ("Nodes", ""))[1]
    if not nodes_expr:
        raise ConfigError(f"PartitionName={pname}: Nodes= is missing", source=source, line=no)
    if nodes_expr.upper() == "ALL":
        names = list(all_nodes)
    else:
        try:
            listed = expand_hostlist(nodes_expr)
        except SlurmlabError as exc:
            raise ConfigError(f"Nodes={nodes_expr!r}: {exc}", source=source, line=no) from None
        # (a NodeSet's name stands for its nodes: slurmctld nodespec_to_hostlist)
        names = list(dict.fromkeys(m for n in listed for m in node_sets.get(n, [n])))
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

    what = f"partition {pname!r}"
    known = {"partitionname", "nodes", "default", "maxtime", "defaulttime", "maxnodes"}
    known |= {"prioritytier", "priorityjobfactor", "state", "priority", "minnodes"}
    options = {k: v for lk, (k, v) in low.items() if lk not in known}
    slurms = {o.lower() for o in PARTITION_OPTIONS}
    _warn_unknown_options(options, "partition option", what, no, source)
    for k, v in options.items():  # (a partition's own TRESBillingWeights, DefMemPerCPU...)
        problem = setting_problem(k, v) if k.lower() in slurms else None
        if problem:
            raise ConfigError(f"{what}: {problem}", source=source, line=no)
    over = get("OverSubscribe", "NO").upper()
    if over not in ("NO", "EXCLUSIVE", "YES", "FORCE") and not over.startswith(("YES:", "FORCE:")):
        raise ConfigError(
            f"{what}: OverSubscribe={over!r} must be NO, EXCLUSIVE, YES[:N] or FORCE[:N]",
            source=source,
            line=no,
        )
    ignored = [k for k in options if k.lower() in slurms - _PARTITION_MODELLED]
    if over not in ("NO", "EXCLUSIVE"):
        ignored.append(f"OverSubscribe={over}")
    if ignored:
        warn_at_caller(
            f"{source} line {no}: {what}: {', '.join(ignored)} not modelled by slurmlab (ignored)"
        )
    for k, v in options.items():  # (a modelled option may name what is not: TRES, say)
        note = setting_warning(k, v) if k.lower() in _PARTITION_MODELLED else None
        if note:
            warn_at_caller(f"{source} line {no}: {what}: {note}")
    tier = get("PriorityTier", "1")
    job_factor = get("PriorityJobFactor", "1")
    tier_key = "PriorityTier"
    factor_key = "PriorityJobFactor"
    if get("Priority") is not None:  # the old name sets both (read_config.c)
        tier = job_factor = get("Priority")
        tier_key = factor_key = "Priority"
    state = get("State", "UP").upper()
    if state not in ("UP", "DOWN", "DRAIN", "INACTIVE"):
        raise ConfigError(
            f"State={state!r} must be UP, DOWN, DRAIN or INACTIVE", source=source, line=no
        )
    with _at_line(None, no, source):  # (the Partition checks the ranges, naming itself)
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
            max_nodes=_max_nodes(get("MaxNodes", "UNLIMITED"), what, no, source),
            priority_tier=_whole(
                tier, tier_key, no, source, most=MAX_COUNT16, what=what, spec=True
            ),
            priority_job_factor=_whole(
                job_factor, factor_key, no, source, most=MAX_COUNT16, what=what, spec=True
            ),
            min_nodes=_whole(
                get("MinNodes", "1"), "MinNodes", no, source, most=MAX_COUNT, what=what, spec=True
            ),
            state=state,
            options=options,
        )


def _max_nodes(value: str, what: str, no: int, source: str) -> int | None:
    """A partition's MaxNodes= (None: UNLIMITED), a uint32 in Slurm."""
    if value.upper() in ("UNLIMITED", "INFINITE"):
        return None
    return _whole(
        value, "MaxNodes", no, source, most=MAX_COUNT, least=1, what=what, unlimited=True, spec=True
    )


def _warn_unknown_options(kv: dict[str, str], kind: str, what: str, no: int, source: str) -> None:
    """Warn about each key of a NodeName=, PartitionName=, DownNodes= or NodeSet= line that
    is not one of that line's options in Slurm (``kind``: "node option", "partition
    option"...), naming the closest one."""
    options = {
        "node option": _NODE_KEYS,
        "partition option": PARTITION_OPTIONS,
        "DownNodes option": _DOWN_NODES_KEYS,
        "NodeSet option": _NODE_SET_KEYS,
    }[kind]
    for k, v in kv.items():
        note = unknown_key_warning(k, v, kind, options)
        if note is None and kind == "node option":
            spec = next((s for s in _SPECIALIZED if s.lower() == k.lower()), None)
            if spec is not None:
                note = f"{spec}={v}: not modelled by slurmlab (ignored); {_SPECIALIZED[spec]}"
        if note:
            warn_at_caller(f"{source} line {no}: {what}: {note}")


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
            count = _gres_conf_count(kv["count"], no, source)
        else:
            count = 1
        nodes = expand_hostlist(kv["nodename"]) if "nodename" in kv else ["*"]
        with _at_line(f"Name={kv['name']}", no, source):  # (a count above the Gres's bound)
            gres = Gres(kv["name"], kv.get("type"), count)
        for n in nodes:
            out.setdefault(n, []).append(gres)
    return out


def _gres_conf_count(value: str, no: int, source: str) -> int:
    """gres.conf ``Count=``: a whole number with an optional suffix (gres.c: ``suffix_mult``)."""
    count = suffixed_count(value)
    if count is None:
        raise ConfigError(
            f"Count={value!r} is not a whole number with an optional K, M, G, T or P suffix",
            source=source,
            line=no,
        )
    return count


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
        out[name] = replace(node, gres=tuple(typed) + others)
    return out
