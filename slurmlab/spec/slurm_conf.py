"""Read a real ``slurm.conf`` (and ``gres.conf``) into a :class:`Cluster`.

Handles what real files contain: comments, ``\\`` line continuations, quoted
values, case-insensitive keys, a leading byte-order mark, hostlist ranges,
``NodeName=DEFAULT`` and ``PartitionName=DEFAULT`` lines, ``Nodes=ALL``, ``NodeSet=``
names in a partition's ``Nodes=``, ``DownNodes=`` lines, ``Include`` lines (a relative
path is read from the including file's directory, as Slurm does), GRES counts with Slurm's
suffixes (``gpu:2K``), a ``Port=`` range with or without brackets, and CPUs computed from
Sockets x CoresPerSocket x ThreadsPerCore when ``CPUs`` is absent (and reset to it, with a
warning, when CPUs= matches none of the topology's counts, as slurmctld resets it). A
gres.conf is read as slurmd reads it: it describes the GRES slurm.conf's ``Gres=`` declares
and adds none; what slurmd would ignore or refuse is named (``_check_gres_conf``). Global
settings are kept (``Cluster.settings``) and checked as they are read (``setting_problem``):
a malformed line raises :class:`ConfigError` naming the file, the line number, the key
and the value. This module reads the text; the ranges of the values are the specs'
(:class:`Node`, :class:`Partition`, :class:`Gres`), so that slurm.conf, a scenario and
Python agree, and here their errors get the file and the line. A setting Slurm would act
on but slurmlab does not model (``ReturnToService=0``, ``PriorityFlags=INCR_ONLY``, a
partition's ``PreemptMode``...) is named in a warning with its file and line; keys that
change nothing a simulation shows (``SlurmctldHost``, ``AuthType``...) are kept silently. A
global key slurm.conf(5) does not have (``PriorityWieghtAge``) is named in a warning with the
closest key Slurm has (slurmctld 22.05 refuses to start on it; slurmlab ignores it). A key a
NodeName=, PartitionName=, DownNodes= or NodeSet= line does not take (``RealMemroy=``), a
misspelt line keyword (``NodeNmae=``) and a node or partition name holding ``=`` (a space
missing: ``NodeName=n[1-2]CPUs=8``) are errors with the fix, as slurmctld stops on them and
the run would go on without the value meant. A gres.conf line naming nodes slurm.conf does
not define is named in a warning (no slurmd reads it). Repeats follow slurmctld: a node or a
partition defined twice is an error; a key given twice (on one line, or a global key on
two lines) is named in a warning, and the last value wins; a repeated ``SlurmctldHost``
adds a controller (the first is the primary), as in Slurm. The nodes come out in
slurmctld's node table order, by name whatever the order of the NodeName= lines
(:class:`Cluster`: read_config.c ``_sort_node_record_table_ptr``).
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
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
    backfill_conflict,
    conf_bool,
    gres_types,
    mixed_gpu_note,
    no_consume_gpu_note,
    node_gres_problem,
    parse_gres,
    parse_time_value,
    preempt_conflict,
    select_conflict,
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

#: A NodeName= line's options: Slurm's (read_config.c ``_nodename_options``). scontrol's
#: AvailableFeatures is not one: slurmctld refuses it ("Parsing error at unrecognized key").
_NODE_KEYS = NODE_OPTIONS

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
    """Yield (line number, content) as parse_config.c ``_get_next_line`` reads a slurm.conf:
    a ``#`` not escaped by a backslash ends the line (``_strip_comments``: quotes do not
    matter); a line ending in an odd number of backslashes (blanks after them aside) goes
    on in the next one, with nothing between (``_strip_continuation``: ``Nodes=a,\\``
    then ``b`` is ``Nodes=a,b``); then every backslash escapes the character after it
    (``_strip_escapes``: ``rack\\#3`` is ``rack#3``)."""
    buf, start = "", None
    for no, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        if start is None:
            start = no
        body = line.rstrip()
        slashes = len(body) - len(body.rstrip("\\"))
        if slashes % 2:
            buf += body[:-1]
            continue
        buf += line
        content = _strip_escapes(buf).strip()
        if content:
            yield start, content
        buf, start = "", None
    content = _strip_escapes(buf).strip()
    if content:
        yield start, content


def _strip_comment(line: str) -> str:
    """The line up to its first ``#`` not escaped (after an even number of backslashes)."""
    if "#" not in line:
        return line
    slashes = 0
    for i, ch in enumerate(line):
        if ch == "#" and slashes % 2 == 0:
            return line[:i]
        slashes = slashes + 1 if ch == "\\" else 0
    return line


def _strip_escapes(line: str) -> str:
    """Every backslash dropped, the character after it kept (``\\\\`` is one backslash)."""
    return re.sub(r"\\(.?)", r"\1", line) if "\\" in line else line


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
#: One Key=Value of a slurm.conf line, as parse_config.c's keyvalue_pattern reads it: blanks
#: may stand around the "=", and the value is quoted (blanks inside) or runs to a blank.
_KEY_VALUE = re.compile(r'\s*([A-Za-z0-9_.]+)\s*([-*+/]?)=\s*(?:"([^"]*)"|(\S+))(?=\s|$)')


#: Option names of node, partition and global lines (lower case): a value after "Key= "
#: that starts with one was most likely meant as an option of its own.
_OPTION_WORDS = frozenset(
    k.lower() for k in (*NODE_OPTIONS, *PARTITION_OPTIONS, *KNOWN_KEYS.values())
)


def _pairs(line: str, no: int, source: str) -> list[tuple[str, str]]:
    """A line's Key=Value pairs, read as slurmctld reads them (``_keyvalue_regex``): ``CPUs =
    4`` is CPUs=4, and after ``Key=`` and blanks the next word is its value (``Key= a=b``
    gives Key the value ``a=b``, which is warned about). ``Key=`` at a line's end is an
    empty value; a word that is not Key=Value is an error, as slurmctld stops on it."""
    pairs: list[tuple[str, str]] = []
    pos, n = 0, len(line)
    while pos < n:
        m = _KEY_VALUE.match(line, pos)
        if m is None:
            rest = line[pos:].strip()
            end = re.fullmatch(r"([A-Za-z0-9_.]+)\s*=", rest)
            if end:  # (Key= at the end: an empty value)
                pairs.append((end.group(1), ""))
                break
            if not rest:
                break
            word = rest.split()[0]
            hint = ""
            if '"' in rest:
                hint = " (a quoted value needs its closing quote)"
            elif "'" in rest:
                hint = " (slurm.conf quotes a value with \" only, not ')"
            if word.startswith("=") and pairs:  # "bf_interval =60": slurmctld stops too
                k, v = pairs[-1]
                hint = f" (a space before '='? write {k}={v}{word} with no space)"
            elif pairs and pairs[-1][1].endswith(","):  # "AllowAccounts=a, b"
                k, v = pairs[-1]
                hint = f" (a space after a comma? a list is one word: write {k}={v}{word})"
            raise ConfigError(
                f"{word!r} is not Key=Value; every setting must be written Key=Value{hint}",
                source=source,
                line=no,
            )
        key, op, quoted, plain = m.groups()
        value = quoted if quoted is not None else plain
        if quoted is None and '"' in value:  # (slurmctld would keep the quote in the value)
            raise ConfigError(
                f'{key}={value}: a quote that is not closed; write {key}="..." around a '
                "value with blanks, or no quotes (a '#' ends the line even inside quotes, as "
                "in slurmctld: write \\# for a '#' in a value)",
                source=source,
                line=no,
            )
        if op:
            raise ConfigError(
                f"{key}{op}={value}: the {op}= operator (parse_config.c S_P_OPERATOR_*) is "
                f"not modelled here; write {key}=VALUE",
                source=source,
                line=no,
            )
        gap = line[m.start(2) : m.start(3) if quoted is not None else m.start(4)]
        if (
            quoted is None
            and gap.endswith((" ", "\t"))
            and value.split("=")[0].lower() in _OPTION_WORDS
        ):  # (Features= Weight=5: Weight=5 is the features, as slurmctld reads it)
            warn_at_caller(
                f"{source} line {no}: {key}= {value}: with blanks after its '=', {key} takes "
                f"the next word as its value, as slurmctld reads it ({key}={value}); if "
                f"{key} was meant to be empty, write {key}= last on the line"
            )
        pairs.append((key, value))
        pos = m.end()
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
            _real_memory(value, what, no, source)
        elif low == "gres":
            _node_gres(value, what, no, source)
        elif low == "state":
            state = _node_state(value)
            if state is None:
                raise ConfigError(
                    f"{what}: State={value!r} is not a node state (slurmctld stops: "
                    f'"Invalid state {value}"); give UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FUTURE '
                    "or CLOUD (node_conf.c state_str2int)",
                    source=source,
                    line=no,
                )
            if value.upper().startswith("FAIL"):
                _warn_fail_state(value, what, no, source)
            elif value.upper().startswith("CLOUD"):
                _warn_cloud_state(value, what, no, source)
            elif value.upper() in ("ALLOCATED", "MIXED", "ERROR"):
                warn_at_caller(
                    f"{source} line {no}: {what}: State={value}: not modelled by slurmlab: "
                    "Slurm shows the node so until its slurmd registers; slurmlab starts it "
                    "IDLE"
                )


def _warn_fail_state(value: str, what: str, no: int, source: str) -> None:
    """``State=FAIL...`` (a NodeName= or DownNodes= line): drained here, as it schedules."""
    warn_at_caller(
        f"{source} line {no}: {what}: State={value}: slurmlab has no FAIL state; it drains "
        "the node instead, which schedules the same (Slurm starts no new job on a failing "
        "node either), but sinfo shows drain where Slurm shows fail"
    )


def _warn_cloud_state(value: str, what: str, no: int, source: str) -> None:
    """``State=CLOUD`` (a NodeName= or DownNodes= line): Slurm starts the node powered down
    (node_conf.c ``state_str2int``: IDLE | CLOUD | POWERED_DOWN, sinfo's ``idle~``) and
    boots it with ResumeProgram when a job is given it (power_save.c; without a
    ResumeProgram and SuspendProgram power saving is off and the node never boots). slurmlab
    models no power saving: the node is IDLE and up from the start."""
    warn_at_caller(
        f"{source} line {no}: {what}: State={value}: not modelled by slurmlab: Slurm starts "
        "the node powered down (idle~) and boots it with ResumeProgram when a job is given "
        "it, the job waiting for the boot (up to ResumeTimeout; without a ResumeProgram the "
        "node never boots); slurmlab starts it IDLE and powered up, and jobs start on it at "
        "once. Give State=IDLE to simulate an always-on node, or State=FUTURE to keep it "
        "out of use"
    )


def _node_state(value: str) -> str | None:
    """A NodeName= line's ``State=`` as slurmlab models it, read as node_conf.c
    ``state_str2int`` reads it: a base state's name (any case), or a word beginning with
    CLOUD, DRAIN or FAIL; None for anything else (``UP``: slurmctld stops)."""
    word = value.upper().split("+")[0]
    if word in ("UNKNOWN", "IDLE", "ALLOCATED", "MIXED", "ERROR"):
        return "IDLE"
    if word in ("DOWN", "FUTURE"):
        return word
    if word.startswith(("DRAIN", "FAIL")):
        return "DRAIN"
    if word.startswith("CLOUD"):
        return "IDLE"
    return None


def _real_memory(value: str, what: str, no: int, source: str) -> int:
    """A node's ``RealMemory=`` in MB, read as slurmctld reads it: a uint64 (parse_value.c
    ``s_p_handle_uint64``: ``strtoull`` in base 0, so ``0x`` is hexadecimal and a leading 0
    octal, then an optional ``k``/``K`` that multiplies by 1024). Anything else (``16GB``,
    ``2G``, ``1.5``) stops slurmctld: a ConfigError naming the line. A number whose leading
    0 makes it octal, or that is hexadecimal, is named in a warning with the MB it stands
    for. The Node checks the range.

    >>> _real_memory("64000", "NodeName=n1", 1, "slurm.conf"), _real_memory("2K", "", 1, "")
    (64000, 2048)
    """
    mb = _uint64_mb(value)
    if mb is None:
        shown = f"{what}: " if what else ""
        fix = "write it in MB, e.g. RealMemory=64000"
        if re.fullmatch(r"[0-9.]+\s*[KMGTkmgt][Bb]?", value):  # (a size with a unit: 16GB)
            fix = f"write it in MB: RealMemory={parse_memory_mb(value)}"
        why = "is less than zero" if value.startswith("-") else "is not a valid number"
        raise ConfigError(
            f"{shown}RealMemory={value!r} is not a whole number of MB: slurmctld stops on it "
            f'("RealMemory value ({value}) {why}"); {fix}',
            source=source,
            line=no,
        )
    if value[:1] == "0" and value.rstrip("kK") != "0":
        base = "hexadecimal" if value[:2].lower() == "0x" else "octal"
        warn_at_caller(
            f"{source} line {no}: {what}: RealMemory={value}: Slurm reads a number that starts "
            f"with 0 as {base} (strtoull, base 0): {mb} MB, and so does slurmlab; write "
            f"RealMemory={mb} if that is meant"
        )
    return mb


def _uint64_mb(value: str) -> int | None:
    """``value`` as ``s_p_handle_uint64`` reads a count (see :func:`_real_memory`), or None
    when slurmctld would refuse it."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kK]?)", value)
    if m is None:
        return None
    digits, kilo = m.groups()
    base = 16 if digits[:2].lower() == "0x" else 8 if digits[0] == "0" else 10
    return int(digits, base) * (1024 if kilo else 1)


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


@dataclass(frozen=True, slots=True)
class _Topology:
    """A NodeName= line's CPUs as read_config.c ``_parse_nodename`` makes them up.

    ``sockets`` is the node's sockets in all (Slurm's ``tot_sockets``), ``cores`` per
    socket, ``threads`` per core; ``cpus`` its CPUs, which count threads, cores or sockets;
    ``written`` the CPUs= given when Slurm reset it (None: kept); ``both_sockets`` whether
    Sockets= and SocketsPerBoard= were both given (Slurm uses SocketsPerBoard).
    """

    sockets: int
    cores: int
    threads: int
    cpus: int
    written: int | None = None
    both_sockets: bool = False

    @property
    def threads_per_cpu_core(self) -> int:
        """The threads per core the node's CPUs count (1 when CPUs counts cores or sockets):
        slurmlab's ``Node.threads_per_core``."""
        full = self.sockets * self.cores * self.threads
        return self.threads if self.threads > 1 and self.cpus == full else 1


def _topology(low: dict[str, str]) -> _Topology:
    """The topology of a NodeName= line (``low``: its options over its DEFAULT ones, keys
    in lower case, counts already checked), as read_config.c ``_parse_nodename`` makes it:
    CPUs= (or its old name Procs=); the sockets from Sockets=, else Boards x SocketsPerBoard
    (also when both are given), else CPUs / (CoresPerSocket x ThreadsPerCore) when that
    divides, else Boards; CPUs, when absent, Sockets x CoresPerSocket x ThreadsPerCore; and a
    CPUs= that is none of Sockets, Sockets x CoresPerSocket and Sockets x CoresPerSocket x
    ThreadsPerCore reset to the last ("match no Sockets, ... Resetting CPUs.").

    >>> _topology({"sockets": "2", "corespersocket": "8", "threadspercore": "2", "cpus": "20"})
    _Topology(sockets=2, cores=8, threads=2, cpus=32, written=20, both_sockets=False)
    """
    count = {k: int(v) for k, v in low.items() if k in _NODE_INT}
    boards = count.get("boards", 1)
    cores = count.get("corespersocket", 1)
    threads = count.get("threadspercore", 1)
    cpus = count.get("cpus", count.get("procs"))
    both = "sockets" in count and "socketsperboard" in count
    if "sockets" in count and not both:
        sockets = count["sockets"]
    elif "socketsperboard" in count:
        sockets = boards * count["socketsperboard"]
    elif cpus is not None and cpus >= cores * threads and cpus % (cores * threads) == 0:
        sockets = cpus // (cores * threads)
    else:
        sockets = boards
    full = sockets * cores * threads
    if cpus is None:
        return _Topology(sockets, cores, threads, full, None, both)
    if cpus in (sockets, sockets * cores, full):
        return _Topology(sockets, cores, threads, cpus, None, both)
    return _Topology(sockets, cores, threads, full, cpus, both)


#: The keys that give a node's features, in the order read_config.c ``_parse_nodename``
#: looks for them (on the line, then on its DEFAULT line).
_FEATURE_KEYS = ("feature", "features")


def _node_options(defaults: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """A NodeName= line's options over its DEFAULT ones (``_merged``), the features given
    by the first of Feature=, Features= on the line, then Feature=, Features= on the DEFAULT
    line (read_config.c ``_parse_nodename``): a line's own features win, whatever the
    spelling of either, and are kept as ``Features``."""
    merged = _merged(defaults, own)
    value = next(
        (
            v
            for kv in (own, defaults)
            for want in _FEATURE_KEYS
            for k, v in kv.items()
            if k.lower() == want
        ),
        None,
    )
    out = {k: v for k, v in merged.items() if k.lower() not in _FEATURE_KEYS}
    return out if value is None else out | {"Features": value}


def _node_from(kv: dict[str, str], name: str, what: str, no: int, source: str) -> Node:
    """The node a NodeName= line defines, without its address and port (``kv``: its options
    over its DEFAULT ones, from ``_node_options``, each already checked by
    ``_check_node_options``)."""
    low = {k.lower(): v for k, v in kv.items()}
    feats = next((low[k] for k in _FEATURE_KEYS if k in low), "")
    state = _node_state(low.get("state", "UNKNOWN")) or "IDLE"
    shape = _topology(low)
    with _at_line(what, no, source):
        return Node(
            name=name,
            cpus=shape.cpus,
            memory_mb=_uint64_mb(low.get("realmemory", "1")) or 0,
            gres=_node_gres(low.get("gres", ""), what, no, source),
            features=frozenset(f for f in re.split(r"[,\s]+", feats) if f),
            state=state,
            # (read_config.c: INFINITE, 4294967295, is lowered by one: a node never "unusable")
            weight=_weight(low.get("weight", "1")),
            threads_per_core=shape.threads_per_cpu_core,
        )


def _weight(value: str) -> int:
    """A node's Weight: INFINITE (4294967295) is lowered by one, as read_config.c does; a
    value out of range is left for the Node to refuse."""
    weight = int(value)
    return weight - 1 if weight == UINT32_MAX else weight


def _warn_topology(
    kv: dict[str, str], value: str, own: dict[str, str], default_at: str, no: int, src: str
) -> None:
    """Name in a warning what slurmctld logs and changes of a NodeName= line's topology
    (read_config.c ``_parse_nodename``): a CPUs= it resets, and Sockets= beside
    SocketsPerBoard= (``default_at``: where the NodeName=DEFAULT line is, for a value from
    it)."""
    low = {k.lower(): v for k, v in kv.items()}
    shape = _topology(low)
    what = f"NodeName={value}"
    if shape.both_sockets:
        warn_at_caller(
            f"{src} line {no}: {what}: Sockets={low['sockets']} and SocketsPerBoard="
            f"{low['socketsperboard']} are both given; Slurm uses SocketsPerBoard (slurmctld "
            f'logs "NodeNames={value} Sockets=# and SocketsPerBoard=# is invalid , using '
            f'SocketsPerBoard"): {shape.sockets} sockets, and so does slurmlab; give one of them'
        )
    if shape.written is not None:
        s, c, t = shape.sockets, shape.cores, shape.threads
        key = "CPUs" if "cpus" in low else "Procs"
        mine = any(k.lower() == key.lower() for k in own)
        origin = "" if mine else f" (from the NodeName=DEFAULT line, {default_at})"
        warn_at_caller(
            f"{src} line {no}: {what}: {key}={shape.written}{origin} is none of Sockets ({s}), "
            f"Sockets x CoresPerSocket ({s * c}) and Sockets x CoresPerSocket x ThreadsPerCore "
            f'({s * c * t}); slurmctld resets it ("NodeNames={value} CPUs={shape.written} '
            "match no Sockets, Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore. "
            f'Resetting CPUs.") to {s * c * t}, and so does slurmlab; give CPUs={s * c * t} '
            "or leave CPUs= out"
        )


def _check_default_node(kv: dict[str, str], what: str, no: int, source: str) -> None:
    """Check a NodeName=DEFAULT line's values as a node's (CPUs=70000 is too many), so that
    the error names this line rather than each line that uses them."""
    for key in kv:  # (read_config.c _parse_nodename: an address is one node's own)
        if key.lower() in ("nodeaddr", "bcastaddr"):
            raise ConfigError(
                f"{what}: {key} not allowed with NodeName=DEFAULT (slurmctld stops); give "
                "each node its address on its own NodeName= line",
                source=source,
                line=no,
            )
    template = _node_from(kv, "DEFAULT", what, no, source)
    port = next((v for k, v in kv.items() if k.lower() == "port"), None)
    with _at_line(what, no, source):
        for p in _ports(port, what, no, source) if port else ():
            replace(template, port=p)


def _node_line(value: str, kv: dict[str, str], no: int, source: str) -> list[Node]:
    """The nodes of one NodeName= line (``kv``: its options over its DEFAULT ones)."""
    what = f"NodeName={value}"
    if value.upper() == "ALL":  # (read_config.c _parse_nodename: ALL names every node)
        raise ConfigError(
            "NodeName=ALL: 'ALL' is a reserved word disallowed for use with NodeName (slurmctld "
            "stops); name the nodes, e.g. NodeName=n[1-4]",
            source=source,
            line=no,
        )
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
        _warn_cloud_state(value, what, no, source)
        return "IDLE"  # (as on a NodeName= line)
    if word == "UNKNOWN":
        return None  # (slurmctld leaves the state as it is)
    if word.startswith("FAIL"):
        _warn_fail_state(value, what, no, source)
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
    #: (whether a NodeName= line's CPUs count more than one thread per core)
    threaded: bool = False
    #: (where the last NodeName=DEFAULT line is; each NodeName= line's NodeName=value)
    node_default_at: tuple[str, int] = ("slurm.conf", 0)
    node_what: dict[tuple[str, int], str] = field(default_factory=dict)

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
            _misspelt_line_kind(head, value, pairs, no, src)
            self.global_line(head, value, pairs, no, src)
            return
        read_line, options = line_kinds[kind]
        what = f"{_CANON.get(kind, head)}={value}"
        if kind in ("nodename", "partitionname") and "=" in value:
            raise ConfigError(_glued(head, value, options), source=src, line=no)
        kv = _options(pairs[1:], what, no, src)
        _refuse_unknown_options(kv, options, what, no, src)
        if options != "partition option":  # (a partition's are checked with its defaults)
            _warn_unknown_options(kv, options, what, no, src)
        read_line(value, kv, what, no, src)

    def node_line(self, value: str, kv: dict[str, str], what: str, no: int, src: str) -> None:
        _check_node_options(kv, what, no, src)
        if value.upper() == "DEFAULT":
            _check_default_node(kv, what, no, src)
            self.node_default = _merged(self.node_default, kv)
            self.unused_default["NodeName"] = self.node_default_at = (src, no)
            return
        self.unused_default.pop("NodeName", None)
        options = _node_options(self.node_default, kv)
        _warn_topology(options, value, kv, _at(self.node_default_at, src), no, src)
        if _topology({k.lower(): v for k, v in options.items()}).threads_per_cpu_core > 1:
            self.threaded = True
        self.node_what[(src, no)] = what
        for node in _node_line(value, options, no, src):
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
            space = ""
            if not value:  # "SchedulerParameters= bf_interval=60"
                space = (
                    f" (a space after '='? write {head}={pairs[1][0]}={pairs[1][1]} with no space)"
                )
            elif value.endswith(","):  # "SchedulerParameters=a=1, b=2": a list split by a space
                space = (
                    f" (a space after a comma? {head}'s list is one word: write "
                    f"{head}={value}{pairs[1][0]}={pairs[1][1]} with no space)"
                )
            raise ConfigError(
                f"{head}={value!r} is followed by {pairs[1][0]!r}: put one global setting per "
                f"line{space}",
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
        types = gres_types(self.settings)
        checked: set[str] = set()
        for node in nodes.values():  # (named at its NodeName= line: slurmctld stops there)
            problem = node_gres_problem(node, types, checked)
            if problem:
                src, no = self.node_at[node.name]
                raise ConfigError(f"{self.node_what[src, no]}: {problem}", source=src, line=no)
        with_gres = [n for n in nodes.values() if n.gres]
        if types is None and with_gres:  # (node_conf.c: gres_name_filter keeps none)
            src, no = self.node_at[with_gres[0].name]
            names = compress_hostlist([n.name for n in with_gres])
            warn_at_caller(
                f"{src} line {no}: Gres= on {names} without GresTypes: slurmctld keeps no "
                "GRES a GresTypes line does not declare (node_conf.c gres_name_filter), so in "
                "Slurm these nodes have none and every --gres/--gpus job is refused; slurmlab "
                "keeps them as written; add GresTypes="
                + ",".join(sorted({g.name for n in with_gres for g in n.gres}))
            )
        if gres_conf is not None:
            _check_gres_conf(nodes, gres_conf, types, self.node_at)
        mixed = mixed_gpu_note(nodes.values())
        if mixed:
            warn_at_caller(f"{source}: nodes {mixed}")
        shared = no_consume_gpu_note(nodes.values())
        if shared:
            first = next(
                n for n in nodes.values() if any(g.no_consume and g.name == "gpu" for g in n.gres)
            )
            src, no = self.node_at[first.name]
            warn_at_caller(f"{src} line {no}: nodes {shared}")
        members = _node_set_members(self.node_sets, nodes)
        partitions = [
            _partition(kv, no, src, nodes, members, self.node_sets)
            for src, no, kv in self.partition_lines
        ]
        partitions = self.last_default(partitions)
        self.warn_def_mem()
        for kind, noun in (("NodeName", "node"), ("PartitionName", "partition")):
            if kind in self.unused_default and (partitions or kind == "NodeName"):
                src, no = self.unused_default[kind]
                warn_at_caller(
                    f"{src} line {no}: {kind}=DEFAULT: no {kind}= line follows it, so its "
                    f"values apply to no {noun} (Slurm applies DEFAULT values to later lines "
                    f"only); move it above the {noun}s it is for"
                )
        if not partitions:
            partitions = [self.default_partition(nodes, source)]
        self.warn_threads(nodes, partitions, source)
        if "selecttype" not in self.global_at:
            warn_at_caller(f"{source}: {_NO_SELECT_TYPE}")
        conflict = preempt_conflict(self.settings)
        if conflict:  # (named at the PreemptType line, else the PreemptMode one)
            src, no = self.global_at.get("preempttype") or self.global_at["preemptmode"]
            raise ConfigError(conflict, source=src, line=no)
        conflict = select_conflict(self.settings)
        if conflict:  # (named at the SelectTypeParameters line)
            src, no = self.global_at["selecttypeparameters"]
            raise ConfigError(conflict, source=src, line=no)
        conflict = backfill_conflict(self.settings)
        if conflict:  # (named at the SchedulerParameters line)
            src, no = self.global_at["schedulerparameters"]
            raise ConfigError(conflict, source=src, line=no)
        try:
            cluster = Cluster(name, tuple(nodes.values()), tuple(partitions), self.settings)
        except ConfigError:
            raise
        except SlurmlabError as exc:
            raise ConfigError(str(exc), source=source) from None
        whole = _whole_memory_partitions(cluster)
        if whole:
            warn_at_caller(
                f"{source}: memory is a consumable resource here (no SelectTypeParameters "
                "line: select/cons_tres's default is CR_Core_Memory) "
                f"and partition{'s' * (len(whole) > 1)} {', '.join(whole)} set no "
                "DefMemPerCPU, DefMemPerNode or DefMemPerGPU: a job without --mem gets the whole "
                "memory of each of its nodes, as in Slurm, so such jobs never share a node; "
                "set DefMemPerCPU (e.g. RealMemory / CPUs) to let them share"
            )
        return cluster

    def last_default(self, partitions: list[Partition]) -> list[Partition]:
        """``partitions`` with only the last Default=YES one the default, as slurmctld makes
        it (read_config.c ``_build_single_partitionline_info``: "changing default partition
        from p to q"); each change is named in a warning at the later line."""
        defaults = [p for p in partitions if p.default]
        for before, after in zip(defaults, defaults[1:], strict=False):
            src, no = self.part_at[after.name]
            was = _at(self.part_at[before.name], src)
            warn_at_caller(
                f"{src} line {no}: PartitionName={after.name}: Default=YES, and partition "
                f"{before.name!r} ({was}) is Default=YES too; Slurm makes the last one the "
                f'default (slurmctld logs "_parse_part_spec: changing default partition from '
                f'{before.name} to {after.name}") and so does slurmlab: a job without -p goes '
                f"to {defaults[-1].name!r}; give Default=YES to one partition"
            )
        last = defaults[-1] if defaults else None
        return [p if p is last or not p.default else replace(p, default=False) for p in partitions]

    def warn_def_mem(self) -> None:
        """Name a global DefMemPerCPU given beside DefMemPerNode in a warning: slurmctld uses
        DefMemPerNode (read_config.c ``_validate_and_set_defaults``: "DefMemPerCPU ignored,
        since it's mutually exclusive with DefMemPerNode"), and so does slurmlab
        (job.py ``_mem_settings``)."""
        for kind in ("Def", "Max"):  # (MaxMemPerNode over MaxMemPerCPU, likewise)
            cpu_key, node_key = f"{kind}MemPerCPU", f"{kind}MemPerNode"
            if cpu_key.lower() in self.global_at and node_key.lower() in self.global_at:
                src, no = self.global_at[cpu_key.lower()]
                node_at = _at(self.global_at[node_key.lower()], src)
                rule = _mem_ignored(kind, self.settings[node_key], node_at)
                warn_at_caller(f"{src} line {no}: {cpu_key}={self.settings[cpu_key]}: {rule}")

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
                    f"(a job of one task per node on several nodes gets {counts[-1]} CPUs "
                    f"on each, even on a node of {counts[0]}; a job on one node gets that "
                    "node's own cores); put nodes of different ThreadsPerCore in separate "
                    "partitions"
                )

    def default_partition(self, nodes: dict[str, Node], source: str) -> Partition:
        """The partition of a slurm.conf with no PartitionName= line: every node, in a
        partition ``default``, with the values of a PartitionName=DEFAULT line if there is
        one, named in a warning: Slurm has no partition at all then, and refuses every job
        (job_mgr.c ``_get_job_parts``: "No partition specified or system default partition";
        with -p, "Invalid partition name specified")."""
        if not self.part_default:
            warn_at_caller(
                f"{source}: no PartitionName= line: Slurm then has no partition, and "
                'slurmctld refuses every job ("No partition specified or system default '
                "partition\"); slurmlab puts every node in a partition 'default' (Default=YES); "
                "add a line such as PartitionName=main Nodes=ALL Default=YES"
            )
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


#: Why a slurm.conf without a SelectType line is warned about (what SelectType=select/linear
#: is warned about, cluster.py NOT_MODELLED): read_config.c takes DEFAULT_SELECT_TYPE then.
_NO_SELECT_TYPE = (
    "no SelectType line: Slurm 22.05 then uses select/linear (read_config.h "
    "DEFAULT_SELECT_TYPE), which allocates only whole nodes, one job per node; slurmlab "
    "allocates cores and GPUs like select/cons_tres, several jobs per node, memory as "
    "SelectTypeParameters says (not consumed without it); add SelectType=select/cons_tres "
    "for what slurmlab models (Slurm then consumes memory, CR_Core_Memory, unless "
    "SelectTypeParameters says otherwise), or give jobs --exclusive for whole nodes"
)

#: Why a FrontendName= line is ignored.
_FRONT_END = (
    "not modelled by slurmlab (ignored): front-end nodes exist only in a Slurm built with "
    '--enable-front-end (a standard slurmctld stops on this line: "Use of FrontendName in '
    'slurm.conf without Slurm being configured/built with the --enable-front-end option"); '
    "a front end only runs job scripts, on resources still allocated from the NodeName= "
    "nodes, so scheduling is the same"
)


_DEF_MEM = ("DefMemPerCPU", "DefMemPerNode", "DefMemPerGPU")


def _whole_memory_partitions(cluster: Cluster) -> list[str]:
    """The partitions where a job without ``--mem`` gets its nodes' whole memory because
    of cons_tres's default CR_Core_Memory (no SelectTypeParameters line): memory consumed
    and no default per CPU, node or GPU, in the partition or globally (job_mgr.c leaves
    pn_min_memory 0, which select/cons_tres reads as all of a node's memory)."""
    if (
        not cluster.memory_tracked
        or cluster.setting("SelectTypeParameters", None)  # (memory asked for: no surprise)
        or any(cluster.setting(k, None) for k in _DEF_MEM)
    ):
        return []
    return [p.name for p in cluster.partitions if not any(p.option(k) for k in _DEF_MEM)]


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
#: A partition's S_P_BOOLEAN options (Slurm 22.05 read_config.c _parse_partitionname),
#: lower case.
_PARTITION_BOOLEANS = frozenset(
    ("disablerootjobs", "exclusiveuser", "hidden", "lln", "reqresv", "rootonly")
)

_PARTITION_MODELLED = {
    "defmempercpu", "defmempernode", "defmempergpu", "maxmempercpu", "maxmempernode",
    "tresbillingweights", "hidden", "oversubscribe", "allowaccounts", "denyaccounts",
    "overtimelimit",
}  # fmt: skip


def _mem_ignored(kind: str, node: str, at: str) -> str:
    """Why a DefMemPerCPU (MaxMemPerCPU) beside DefMemPerNode (MaxMemPerNode) is ignored
    (read_config.c, for the global lines and for a partition's, ``_parse_partitionname``)."""
    effect = (
        f"a job that asks for no memory gets {node} MB per node"
        if kind == "Def"
        else f"a job may have up to {node} MB per node, whatever its CPUs"
    )
    return (
        f"{kind}MemPerNode={node} ({at}) is also given, and Slurm uses it (slurmctld logs "
        f'"{kind}MemPerCPU ignored, since it\'s mutually exclusive with {kind}MemPerNode"), and '
        f"so does slurmlab: {effect}; give one of them"
    )


#: A partition without nodes: Slurm has one, slurmlab cannot model one.
_NO_NODES = (
    "Slurm accepts a partition without nodes (sinfo shows it with 0 nodes, and a job sent "
    "there waits), but slurmlab cannot model one"
)


def _partition(
    kv: dict[str, str],
    no: int,
    source: str,
    all_nodes: Mapping[str, Node],
    node_sets: dict[str, list[str]],
    set_lines: Mapping[str, tuple[str, int, dict[str, str]]] | None = None,
) -> Partition:
    """The partition a PartitionName= line defines (``kv``: its options over its DEFAULT
    ones), over ``all_nodes`` (every node, by name); ``node_sets``: each NodeSet's nodes,
    ``set_lines``: where each is defined and its options."""
    low = {k.lower(): (k, v) for k, v in kv.items()}
    pname = kv["PartitionName"]
    if "shared" in low:  # the old name of OverSubscribe, read when it is not given
        shared = low.pop("shared")
        kv = {k: v for k, v in kv.items() if k != shared[0]}
        if "oversubscribe" not in low:
            low["oversubscribe"] = ("OverSubscribe", shared[1])
            kv["OverSubscribe"] = shared[1]
    nodes_expr = low.get("nodes", ("Nodes", ""))[1]
    if not nodes_expr:
        raise ConfigError(
            f"PartitionName={pname}: Nodes= is missing: {_NO_NODES}; give Nodes=... (or ALL), "
            "or remove the line",
            source=source,
            line=no,
        )
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
    if not names:  # (every name in Nodes= a NodeSet that matches no node)
        raise ConfigError(
            f"PartitionName={pname}: Nodes={nodes_expr} has no node: "
            f"{_empty_node_sets(nodes_expr, set_lines or {}, all_nodes, source)}; {_NO_NODES}; "
            "give the NodeSet a Feature= some nodes have, or the partition other nodes",
            source=source,
            line=no,
        )

    def get(key, default=None):
        return low.get(key.lower(), (key, default))[1]

    def yes(key):
        v = get(key, "NO")
        if conf_bool(v) is None:
            raise ConfigError(
                f"{key}={v!r} must be YES or NO (Slurm also takes TRUE/FALSE, 1/0, UP/DOWN)",
                source=source,
                line=no,
            )
        return bool(conf_bool(v))

    what = f"partition {pname!r}"
    known = {"partitionname", "nodes", "default", "maxtime", "defaulttime", "maxnodes"}
    known |= {"prioritytier", "priorityjobfactor", "state", "priority", "minnodes"}
    options = {k: v for lk, (k, v) in low.items() if lk not in known}
    for k, v in list(options.items()):  # (S_P_BOOLEAN options: yes/no, true/false, 1/0, up/down)
        if k.lower() in _PARTITION_BOOLEANS:
            flag = conf_bool(v)
            if flag is None:
                raise ConfigError(
                    f"{what}: {k}={v!r} must be YES or NO (Slurm also takes TRUE/FALSE, 1/0, "
                    "UP/DOWN)",
                    source=source,
                    line=no,
                )
            options[k] = "YES" if flag else "NO"
    slurms = {o.lower() for o in PARTITION_OPTIONS} - {"selecttypeparameters"}
    _warn_unknown_options(options, "partition option", what, no, source)
    for k, v in options.items():  # (a partition's own TRESBillingWeights, DefMemPerCPU...)
        problem = setting_problem(k, v) if k.lower() in slurms else None
        if problem:
            raise ConfigError(f"{what}: {problem}", source=source, line=no)
    _check_partition_select(_option_value(low, "SelectTypeParameters"), what, no, source)
    _warn_partition_rules(low, what, no, source)
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


def _option_value(low: dict[str, tuple[str, str]], key: str) -> str | None:
    """The value of ``key`` among a line's options by lower-case name, or None."""
    return low.get(key.lower(), (key, None))[1]


def _check_partition_select(value: str | None, what: str, no: int, source: str) -> None:
    """A partition's own SelectTypeParameters, as read_config.c ``_parse_partitionname``
    reads it: it must start with CR_Core or CR_Socket (in any case; the rest is not read),
    else slurmctld stops ("Bad value for SelectTypeParameters")."""
    if value is not None and not value.lower().startswith(("cr_core", "cr_socket")):
        raise ConfigError(
            f"{what}: SelectTypeParameters={value!r}: a partition takes CR_Core, CR_Core_Memory, "
            'CR_Socket or CR_Socket_Memory; slurmctld stops on it ("Bad value for '
            f'SelectTypeParameters: {value}"); give one of those, or leave it to the global line',
            source=source,
            line=no,
        )


def _warn_partition_rules(low: dict[str, tuple[str, str]], what: str, no: int, source: str) -> None:
    """Name in a warning a partition's options that Slurm ignores (read_config.c
    ``_parse_partitionname``): DenyAccounts beside AllowAccounts, DefMemPerCPU beside
    DefMemPerNode. slurmlab ignores them too (Partition.admits_account, job.py
    ``_mem_settings``)."""
    allow, deny = _option_value(low, "AllowAccounts"), _option_value(low, "DenyAccounts")
    if allow and allow.strip().upper() != "ALL" and deny is not None:
        names = ",".join(a.strip().lower() for a in allow.split(",") if a.strip())
        warn_at_caller(
            f"{source} line {no}: {what}: AllowAccounts={allow} and DenyAccounts={deny} are "
            'both given; Slurm ignores DenyAccounts (slurmctld logs "Both AllowAccounts and '
            'DenyAccounts are defined, DenyAccounts will be ignored"), and so does slurmlab: '
            f"only accounts {names} may use it; give one of them"
        )
    for kind in ("Def", "Max"):
        per_node = _option_value(low, f"{kind}MemPerNode")
        per_cpu = _option_value(low, f"{kind}MemPerCPU")
        if per_node is not None and per_cpu is not None:
            rule = _mem_ignored(kind, per_node, "on this line")
            warn_at_caller(f"{source} line {no}: {what}: {kind}MemPerCPU={per_cpu}: {rule}")


def _empty_node_sets(
    nodes_expr: str,
    set_lines: Mapping[str, tuple[str, int, dict[str, str]]],
    all_nodes: Mapping[str, Node],
    source: str,
) -> str:
    """Why each NodeSet a partition's ``Nodes=`` names matches no node."""
    have = sorted({f for n in all_nodes.values() for f in n.features})
    features = f"the nodes have {', '.join(have)}" if have else "no node has a feature"
    out = []
    for name in expand_hostlist(nodes_expr):
        if name not in set_lines:
            continue
        src, no, kv = set_lines[name]
        feature = next((v for k, v in kv.items() if k.lower() == "feature"), None)
        nodes = next((v for k, v in kv.items() if k.lower() == "nodes"), None)
        given = " ".join(f"{k}={v}" for k, v in kv.items()) or "no Feature= or Nodes="
        if feature is not None:
            why = f"no node has feature {feature!r} ({features})"
        elif nodes is not None:
            why = f"Nodes={nodes} lists none"
        else:
            why = "it gives no Feature= or Nodes="
        out.append(f"NodeSet={name} ({_at((src, no), source)}: {given}) matches no node: {why}")
    return "; ".join(out)


def _max_nodes(value: str, what: str, no: int, source: str) -> int | None:
    """A partition's MaxNodes= (None: UNLIMITED), a uint32 in Slurm."""
    if value.upper() in ("UNLIMITED", "INFINITE"):
        return None
    return _whole(
        value, "MaxNodes", no, source, most=MAX_COUNT, least=1, what=what, unlimited=True, spec=True
    )


#: How the lines that define records start (read_config.c ``slurm_conf_options``: S_P_ARRAY
#: keys), by lower-case name: a key close to one is that line's keyword misspelt.
_LINE_KINDS = {
    k.lower(): k for k in ("NodeName", "PartitionName", "DownNodes", "NodeSet", "FrontendName")
}


def _misspelt_line_kind(head: str, value: str, pairs: list, no: int, source: str) -> None:
    """Refuse a line whose first key is not one of Slurm's but close to a record keyword
    (``NodeNmae=n[1-2] CPUs=8``): slurmctld stops on it ("Parsing error at unrecognized
    key"), and read as a global setting it would only be "followed by" its options."""
    low = head.lower()
    if low in _CANON:
        return
    close = difflib.get_close_matches(low, list(_LINE_KINDS), n=1, cutoff=0.75)
    if not close:
        return
    meant = _LINE_KINDS[close[0]]
    rest = " ".join(f"{k}={v}" for k, v in pairs[1:])
    raise ConfigError(
        f'{head}={value}: {head} is not a slurm.conf key (slurmctld 22.05 stops: "Parsing '
        f'error at unrecognized key: {head}"); did you mean {meant}? write {meant}={value}'
        + (f" {rest}" if rest else ""),
        source=source,
        line=no,
    )


def _glued(head: str, value: str, kind: str) -> str:
    """The error for a node or partition name holding '=' (``NodeName=n[1-2]CPUs=8``): an
    option glued to the name, a space missing before it, most likely."""
    what = "node" if kind == "node option" else "partition"
    options = _NODE_KEYS if kind == "node option" else PARTITION_OPTIONS
    before, _, after = value.partition("=")
    glued = max(
        (o for o in options if before.lower().endswith(o.lower()) and len(before) > len(o)),
        key=len,
        default=None,
    )
    if glued is not None:
        name = before[: -len(glued)]
        return (
            f"{head}={value}: a {what} name cannot hold '=': a space is missing before "
            f"{glued}= (slurmctld would read the {what} name {value!r}); write "
            f"{head}={name} {before[-len(glued) :]}={after}"
        )
    return (
        f"{head}={value}: a {what} name cannot hold '=' (slurmctld would read the {what} name "
        f"{value!r}); separate each Key=Value from the next with a space"
    )


def _refuse_unknown_options(kv: dict[str, str], kind: str, what: str, no: int, source: str) -> None:
    """Refuse a key of a NodeName=, PartitionName=, DownNodes= or NodeSet= line that is not
    one of that line's options in Slurm 22.05 (read_config.c ``_nodename_options``,
    ``_partition_options``...): slurmctld stops on it (parse_config.c: "Parsing error at
    unrecognized key", then "Unable to process configuration file", fatal), so the run would
    go on without the value meant (RealMemroy=: RealMemory 1). The error names the closest
    option, or where the key belongs."""
    options = {
        "node option": _NODE_KEYS,
        "partition option": PARTITION_OPTIONS,
        "DownNodes option": _DOWN_NODES_KEYS | {"DownNodes"},
        "NodeSet option": _NODE_SET_KEYS | {"NodeSet"},
    }[kind]
    known = {o.lower(): o for o in options}
    for key, value in kv.items():
        low = key.lower()
        if low in known:
            continue
        close = difflib.get_close_matches(low, list(known), n=1, cutoff=0.75)
        if close:
            hint = f"did you mean {known[close[0]]}?"
        elif low in _CANON:
            hint = f"{_CANON[low]} is a global setting: give it on a line of its own"
        elif kind == "node option" and low in ("availablefeatures", "activefeatures"):
            hint = f"{key} is scontrol's name (scontrol show node); slurm.conf's is Features="
        elif kind == "node option" and low in _by_lower_gres():
            hint = (
                f"{key}= is a gres.conf option: a line NodeName=... Name=gpu File=... belongs "
                "in gres.conf"
            )
        else:
            hint = f"see slurm.conf(5) for the {kind}s; remove it"
        raise ConfigError(
            f'{what}: {key}={value}: not a slurm.conf {kind} (slurmctld 22.05 stops: "Parsing '
            f'error at unrecognized key: {key}"); {hint}',
            source=source,
            line=no,
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


# -- gres.conf ----------------------------------------------------------------------------------
#: How a gres.conf line starts (gres.c ``gres_g_node_config_load``: ``_gres_conf_options``),
#: and the options of a NodeName= or Name= line (``_gres_options``). slurmd stops on any
#: other key ("Parsing error at unrecognized key", then "error opening/reading gres.conf").
_GRES_LINE_STARTS = ("NodeName", "Name", "AutoDetect")
_GRES_OPTIONS = frozenset({
    "AutoDetect", "Count", "CPUs", "Cores", "File", "Files", "Flags", "Link", "Links",
    "MultipleFiles", "Name", "Type",
})  # fmt: skip

#: The libraries gres.conf's AutoDetect= names (gres.conf(5)).
_GPU_LIBRARIES = {"nvml": "NVIDIA's NVML", "rsmi": "AMD's ROCm SMI", "oneapi": "Intel's oneAPI"}

#: GRES whose lines may count more than their device files (gres.c ``_is_shared_name``).
_SHARED_GRES = ("mps", "shard")


@dataclass(frozen=True, slots=True)
class _GresLine:
    """One line of a gres.conf: where it is, the nodes it is for (None: every node that
    reads the file, as a line without NodeName= is), its GRES name (None: an AutoDetect
    line), type, count, whether it names device files, its AutoDetect= and its Cores=."""

    source: str
    no: int
    text: str
    nodes: frozenset[str] | None
    name: str | None = None
    type: str | None = None
    count: int = 0
    has_file: bool = False
    autodetect: str | None = None
    cores: str | None = None


def parse_gres_conf(path_or_text: str | Path) -> dict[str, list[Gres]]:
    """Parse gres.conf into node name -> list of Gres (types and counts from File=/Count=);
    a line without NodeName= is listed under ``"*"``. The lines are read as slurmd reads
    them (see :func:`_gres_conf_lines`); how they meet slurm.conf's Gres= is
    ``Cluster.from_slurm_conf``'s to check.

    >>> parse_gres_conf("NodeName=g[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-3]")["g2"]
    [Gres(name='gpu', type='a100', count=4, no_consume=False)]
    """
    out: dict[str, list[Gres]] = {}
    for line in _gres_conf_lines(path_or_text):
        if line.name is not None:
            for n in sorted(line.nodes) if line.nodes is not None else ["*"]:
                out.setdefault(n, []).append(Gres(line.name, line.type, line.count))
    return out


def _gres_conf_lines(path_or_text: str | Path) -> list[_GresLine]:
    """The lines of a gres.conf, read as slurmd reads them (gres.c
    ``gres_g_node_config_load``, ``_parse_gres_config``): each starts with NodeName=, Name=
    or AutoDetect= (a line of its own, for the whole file); a key gres.conf does not have
    stops slurmd, and is a ConfigError naming the file, the line and the closest key. The
    count is File='s devices (MultipleFiles=: one), else Count= (with Slurm's suffixes), else
    1; a Count= other than File='s devices stops slurmd but for mps and shard."""
    text, source = read_text(path_or_text)
    source = source if source != "slurm.conf" else "gres.conf"
    out = []
    for no, line in _logical_lines(text):
        pairs = _pairs(line, no, source)
        head, value = pairs[0]
        start = next((k for k in _GRES_LINE_STARTS if k.lower() == head.lower()), None)
        if start is None:
            raise ConfigError(_gres_key_problem(head, value, None, source), source=source, line=no)
        if start == "AutoDetect":
            if len(pairs) > 1:
                rest = " ".join(f"{k}={v}" for k, v in pairs[1:])
                raise ConfigError(
                    f"AutoDetect={value} is followed by {rest}: a line that starts with "
                    "AutoDetect= sets it for every node and takes nothing else; slurmd stops on "
                    f'it ("Parse error in file {source} line {no}: \\"{rest}\\""); set it for '
                    f"some nodes with NodeName=... AutoDetect={value}, or give {rest} a line "
                    "of its own",
                    source=source,
                    line=no,
                )
            out.append(_GresLine(source, no, f"AutoDetect={value}", None, autodetect=value))
            continue
        what = f"{start}={value}"
        kv = _options(pairs[1:], what, no, source)
        for key, v in kv.items():
            if key.lower() not in _by_lower_gres():
                raise ConfigError(_gres_key_problem(key, v, start, source), source=source, line=no)
        low = {k.lower(): v for k, v in kv.items()}
        nodes = None
        if start == "NodeName":
            try:
                nodes = frozenset(expand_hostlist(value))
            except SlurmlabError as exc:
                raise ConfigError(f"NodeName={value!r}: {exc}", source=source, line=no) from None
        name = value if start == "Name" else low.get("name")
        detect = low.get("autodetect") if start == "NodeName" else None
        if name is None:
            if detect is not None:
                out.append(
                    _GresLine(source, no, f"{what} AutoDetect={detect}", nodes, autodetect=detect)
                )
                continue
            raise ConfigError(f"line {line!r} has no Name= (e.g. Name=gpu)", source=source, line=no)
        text_of = f"{what} Name={name}" if start == "NodeName" else what
        if low.get("type"):
            text_of += f" Type={low['type']}"
        count, has_file = _gres_line_count(name, low, text_of, no, source)
        with _at_line(f"Name={name}", no, source):  # (a count above the Gres's bound)
            Gres(name, low.get("type"), count)
        cores = low.get("cores", low.get("cpus"))
        out.append(
            _GresLine(
                source, no, text_of, nodes, name, low.get("type"), count, has_file, detect, cores
            )
        )
    return out


@lru_cache(maxsize=1)
def _by_lower_gres() -> dict[str, str]:
    """gres.conf's line options by lower-case name."""
    return {k.lower(): k for k in _GRES_OPTIONS}


def _gres_key_problem(key: str, value: str, start: str | None, source: str) -> str:
    """The error for a key gres.conf does not have (``start``: how its line starts; None: the
    key starts the line)."""
    says = (
        f'slurmd stops on it ("Parsing error at unrecognized key: {key}", then "error '
        f'opening/reading {source}")'
    )
    if start == "Name" and key.lower() == "nodename":
        return (
            f"{key}={value}: a line that starts with Name= is for every node and takes no "
            f"NodeName=, and {says}; put NodeName={value} first on the line"
        )
    if start is None:
        starts = {k.lower(): k for k in _GRES_LINE_STARTS}
        close = difflib.get_close_matches(key.lower(), list(starts), n=1, cutoff=0.6)
        hint = (
            f"did you mean {starts[close[0]]}?"
            if close
            else "a gres.conf line starts with NodeName=, Name= or AutoDetect="
        )
        return f"{key}={value}: not a key a gres.conf line starts with, and {says}; {hint}"
    close = difflib.get_close_matches(key.lower(), list(_by_lower_gres()), n=1, cutoff=0.6)
    hint = (
        f"did you mean {_by_lower_gres()[close[0]]}?"
        if close
        else f"gres.conf's keys are {', '.join(sorted(_GRES_OPTIONS))}"
    )
    return f"{key}={value}: not a gres.conf key, and {says}; {hint}"


def _gres_line_count(
    name: str, low: dict[str, str], what: str, no: int, source: str
) -> tuple[int, bool]:
    """(count, whether it names device files) of a gres.conf line (gres.c
    ``_parse_gres_config``)."""
    files = low.get("file", low.get("files"))
    multiple = low.get("multiplefiles")
    if files is not None and multiple is not None:
        raise ConfigError(
            f'{what}: File= and MultipleFiles= are both given; slurmd stops ("File and '
            'MultipleFiles options are mutually exclusive"); give one of them',
            source=source,
            line=no,
        )
    count = None
    for key, given in (("File", files), ("MultipleFiles", multiple)):
        if given is not None:
            try:
                devices = len(expand_hostlist(given))
            except SlurmlabError as exc:
                raise ConfigError(f"{key}={given!r}: {exc}", source=source, line=no) from None
            count = devices if key == "File" else 1
    if "count" not in low:
        return (1 if count is None else count), count is not None
    written = _gres_conf_count(low["count"], no, source)
    if count is not None and written != count and name not in _SHARED_GRES:
        raise ConfigError(
            f"{what}: Count={low['count']} but File= names {count} device"
            f'{"s" * (count != 1)}; slurmd stops ("Invalid GRES record for {name}, count does '
            f'not match File value"); give Count={count} or leave Count= out',
            source=source,
            line=no,
        )
    return written, count is not None


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


def _check_gres_conf(
    nodes: Mapping[str, Node],
    gres_conf: str | Path,
    types: set[str] | None,
    node_at: Mapping[str, tuple[str, int]],
) -> None:
    """Check a gres.conf against slurm.conf's Gres= as slurmd merges them (gres.c
    ``gres_g_node_config_load``, ``_merge_config``): the GRES of a node are those its
    slurm.conf Gres= declares, types included; gres.conf only gives them device files
    (and cores and links). So nodes keep their slurm.conf GRES, and what slurmd would do
    otherwise is named:

    - a line for a GRES GresTypes lacks is ignored ("Ignoring gres.conf record, invalid
      name"), a warning;
    - a line (or the part of its count) that no Gres= of a node takes is ignored ("A line in
      gres.conf for GRES gpu has 4 more configured than expected in slurm.conf. Ignoring
      extra GRES."), a warning: a line without NodeName= gives no GPU to a node whose Gres=
      has none;
    - a Gres= without a type takes lines of any type and drops their type (``_match_type``),
      a warning: a job asking for that type is refused, in Slurm and here;
    - GPUs a node's gpu lines give fewer of than its Gres= declares, or of another type,
      are an error: slurmd drops a GPU without a device file, and slurmctld sets the node
      INVAL ("gres/gpu count reported lower than configured");
    - GPUs no gpu line with File= covers are named in a warning (slurmlab keeps them), and
      so is AutoDetect, which slurmlab cannot run, and Cores=.

    ``types``: slurm.conf's GresTypes (None: not set, every name taken); ``node_at``: where
    each node is defined. Lines that stop slurmd are ConfigErrors (``_gres_conf_lines``,
    ``_check_gres_records``).
    """
    lines = _gres_conf_lines(gres_conf)
    _warn_unknown_gres_nodes(lines, nodes)
    records = [r for r in lines if r.name is not None]
    if types is not None:
        known = {t.lower() for t in types}
        for r in records:
            if r.name.lower() not in known:
                warn_at_caller(
                    f"{r.source} line {r.no}: {r.text}: {r.name!r} is not in GresTypes "
                    f'({", ".join(sorted(types))}); slurmd ignores the line ("Ignoring '
                    f'gres.conf record, invalid name: {r.name}"), and so does slurmlab; add '
                    f"{r.name} to GresTypes or remove the line"
                )
        records = [r for r in records if r.name.lower() in known]
    extra: dict[tuple[_GresLine, int, bool], list[str]] = {}
    dropped: dict[tuple, list[str]] = {}
    fileless: dict[_GresLine | None, list[str]] = {}
    detected: dict[_GresLine, list[str]] = {}
    # each node's records, in file order, found through an index (a gres.conf of one line per
    # node, as configuration tools write it, made this loop nodes x lines)
    everyone = [k for k, r in enumerate(records) if r.nodes is None]
    named: dict[str, list[int]] = {}
    for k, r in enumerate(records):
        for name in r.nodes or ():
            named.setdefault(name, []).append(k)
    auto_every = [r for r in lines if r.autodetect is not None and r.nodes is None]
    auto_own: dict[str, _GresLine] = {}  # (the last line naming the node holds)
    for r in lines:
        if r.autodetect is not None and r.nodes is not None:
            for name in r.nodes:
                auto_own[name] = r
    for node in nodes.values():
        own = named.get(node.name)
        mine = [records[k] for k in (sorted(everyone + own) if own else everyone)]
        detect = _node_autodetect(auto_own.get(node.name), auto_every)
        if detect is not None and node.gpus:
            detected.setdefault(detect, []).append(node.name)
        _check_gres_records(mine, node.name)
        left = list(mine)  # (records no Gres= of the node has taken yet)
        for name in dict.fromkeys(g.name.lower() for g in node.gres):
            pool = [r for r in mine if r.name.lower() == name]
            short = _merge_gres(node, name, pool, left, extra, dropped)
            if name != "gpu" or detect is not None:
                continue  # (other GRES without a file are counted as written: _merge_gres2)
            if short and pool:
                _gpu_shortfall(node, short, pool, node_at)
            covered = sum(r.count for r in pool if r.has_file)
            if covered < node.gpus:
                first = next((r for r in pool if not r.has_file), None)
                fileless.setdefault(first, []).append(node.name)
        for r in left:
            declares = any(g.name.lower() == r.name.lower() for g in node.gres)
            extra.setdefault((r, r.count, declares), []).append(node.name)
    _warn_gres_conf(records, extra, dropped, fileless, detected, nodes, gres_conf)


def _warn_unknown_gres_nodes(lines: list[_GresLine], nodes: Mapping[str, Node]) -> None:
    """Warn about each gres.conf line whose NodeName= names nodes slurm.conf does not define
    (a typo, or another cluster's file): slurmd reads only the lines that name its own node,
    so no node takes such a line, in Slurm and in slurmlab."""
    for r in lines:
        if r.nodes is None:
            continue
        unknown = sorted(n for n in r.nodes if n not in nodes)
        if not unknown:
            continue
        every = len(unknown) == len(r.nodes)
        close = difflib.get_close_matches(unknown[0], list(nodes), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        warn_at_caller(
            f"{r.source} line {r.no}: {r.text}: {compress_hostlist(unknown)} "
            f"{'is' if len(unknown) == 1 else 'are'} not {'a node' if len(unknown) == 1 else 'nodes'} "
            f"of slurm.conf{hint}, whose nodes are {compress_hostlist(list(nodes))}; slurmd "
            "reads only the gres.conf lines that name its own node, so "
            + ("no node takes this line" if every else "those names take nothing")
            + ", in Slurm and in slurmlab; write NodeName= with slurm.conf's node names"
        )


def _node_autodetect(own: _GresLine | None, every: list[_GresLine]) -> _GresLine | None:
    """The AutoDetect line that holds for a node: its own (the last line naming it), else the
    file's (the last for every node; gres.c ``_handle_local_autodetect`` /
    ``_handle_global_autodetect``), unless it is off."""
    found = own if own is not None else (every[-1] if every else None)
    return None if found is None or found.autodetect.lower() == "off" else found


def _check_gres_records(mine: list[_GresLine], node: str) -> None:
    """The records of one node that stop slurmd (gres.c ``_foreach_gres_conf``): of one
    GRES, some with File= and some without, some with Type= and some without, or two
    without either."""
    by_name: dict[str, list[_GresLine]] = {}
    for r in mine:
        by_name.setdefault(r.name.lower(), []).append(r)
    for group in by_name.values():
        first, name = group[0], group[0].name
        for r in group[1:]:
            problem = None
            mixed = (
                f"gres.conf for {name}, some records have {{}} specification while others do not"
            )
            if r.has_file != first.has_file:
                problem = mixed.format('"File"')
                fix = "give each of the node's lines File=, or none"
            elif (r.type is None) != (first.type is None):
                problem = mixed.format('"Type="')
                fix = "give each of the node's lines Type=, or none"
            elif not r.has_file and r.type is None:
                problem = f"gres.conf duplicate records for {name}"
                fix = "give the node one line for it (one Count=)"
            if problem:
                raise ConfigError(
                    f"{r.text}: node {node} also has line {first.no} for {name}; slurmd stops "
                    f'("{problem}"); {fix}',
                    source=r.source,
                    line=r.no,
                )


def _merge_gres(
    node: Node,
    name: str,
    pool: list[_GresLine],
    left: list[_GresLine],
    extra: dict,
    dropped: dict,
) -> list[tuple[Gres, int]]:
    """Match a node's Gres= of one name with its gres.conf lines as slurmd does (gres.c
    ``_merge_gres2``): each Gres= item takes, in order, the lines of its type (an item
    without a type: of any type, whose type is dropped) until its count is met; a line's
    count beyond it is ignored. Returns the items left short, with how many they lack; the
    lines taken are removed from ``left``, their excess noted in ``extra``, their dropped
    types in ``dropped``."""
    short = []
    for item in (g for g in node.gres if g.name.lower() == name):
        got, typed = 0, []
        for r in pool:
            if got >= item.count:
                break
            if r not in left or (
                item.type is not None and (r.type or "").lower() != item.type.lower()
            ):
                continue
            left.remove(r)
            take = min(r.count, item.count - got)
            if r.count > take:
                extra.setdefault((r, r.count - take, True), []).append(node.name)
            if item.type is None and r.type:
                typed.append((r, take))
            got += take
        if typed:  # (one warning for the lines of the same Gres= item on several nodes)
            dropped.setdefault((item, tuple(typed)), []).append(node.name)
        if got < item.count:
            short.append((item, item.count - got))
    return short


def _gpu_shortfall(
    node: Node,
    short: list[tuple[Gres, int]],
    pool: list[_GresLine],
    node_at: Mapping[str, tuple[str, int]],
) -> None:
    """The error for a node whose gpu lines give fewer GPUs (of a type) than its Gres=."""
    item, lack = short[0]
    label = f"gpu:{item.type}" if item.type else "gpu"
    src, no = node_at[node.name]
    reported = node.gpus - sum(n for _, n in short)
    others = sorted(
        {r.type for r in pool if r.type and r.type.lower() != (item.type or "").lower()}
    )
    first = pool[0]
    matched = item.type is None or any((r.type or "").lower() == item.type.lower() for r in pool)
    if matched:
        why, fix = "", "make the counts agree"
    elif others:
        why = f" (its gpu lines have Type={', '.join(others)})"
        fix = (
            f"write Type={item.type} in gres.conf, or Gres=gpu:{others[0]}:{item.count} in "
            "slurm.conf"
        )
    else:
        why = " (its gpu lines have no type)"
        fix = f"write Type={item.type} in gres.conf"
    raise ConfigError(
        f"node {node.name}: gres.conf lists {item.count - lack} {label} but slurm.conf Gres= "
        f"declares {item.count} ({src} line {no}: Gres={','.join(map(str, node.gres))}){why}; "
        "slurmd finds no device file for the rest and drops them (gres.c _merge_config), and "
        'slurmctld sets the node INVAL ("gres/gpu count reported lower than configured '
        f'({reported} < {node.gpus})"); {fix}',
        source=first.source,
        line=first.no,
    )


def _warn_gres_conf(
    records: list[_GresLine],
    extra: dict,
    dropped: dict,
    fileless: dict,
    detected: dict,
    nodes: Mapping[str, Node],
    gres_conf: str | Path,
) -> None:
    """The warnings of ``_check_gres_conf``, one per gres.conf line (naming its nodes)."""
    for (r, more, declares), names in extra.items():
        hosts = compress_hostlist(names)
        label = f"{r.name}:{r.type}" if r.type else r.name
        if declares:
            whose = f"slurm.conf's Gres= of {hosts} takes {r.count - more} of this line's {r.count}"
        else:
            whose = f"slurm.conf's Gres= of {hosts} declares no {label}, so they have none"
        fix = (
            "give the line NodeName= the nodes it is for"
            if r.nodes is None and not declares
            else "make gres.conf and slurm.conf's Gres= agree"
        )
        warn_at_caller(
            f'{r.source} line {r.no}: {r.text}: {whose}; slurmd ignores the {more} more ("A line '
            f"in gres.conf for GRES {label} has {more} more configured than expected in "
            f'slurm.conf. Ignoring extra GRES."), and so does slurmlab; {fix}'
        )
    for (item, typed), names in dropped.items():
        r = typed[0][0]
        also = f" (and line{'s' * (len(typed) > 2)} {', '.join(str(t.no) for t, _ in typed[1:])})"
        counts: dict[str, int] = {}
        for t, take in typed:
            counts[t.type] = counts.get(t.type, 0) + take
        written = ",".join(f"{item.name}:{t}:{n}" for t, n in counts.items())
        warn_at_caller(
            f"{r.source} line {r.no}{also if len(typed) > 1 else ''}: {r.text}: slurm.conf's "
            f"Gres= of {compress_hostlist(names)} names {item.name} without a type ({item}), so "
            f"slurmd matches {'these lines' if len(typed) > 1 else 'this line'} to it and drops "
            f"Type={', '.join(counts)} (gres.c _match_type): their {item.name} has no type, in "
            f"Slurm and in slurmlab, and a job asking --gres={item.name}:{r.type}:N is refused; "
            f"write the type in slurm.conf: Gres={written}"
        )
    for r, names in fileless.items():
        where = f"{r.source} line {r.no}: {r.text}" if r else str(_gres_source(gres_conf))
        gpus = nodes[names[0]].gpus
        files = f"/dev/nvidia[0-{gpus - 1}]" if gpus > 1 else "/dev/nvidia0"
        warn_at_caller(
            f"{where}: GPUs of {compress_hostlist(names)} have no File= in gres.conf; Slurm "
            "22.05's slurmd drops a GPU without a device file (gres.c: \"Removing file-less "
            "GPU\"), so those nodes would register fewer GPUs than slurm.conf's Gres= declares "
            "and slurmctld would set them INVAL; slurmlab keeps the GPUs; give their gpu lines "
            f"File= (e.g. File={files}) or AutoDetect=nvml"
        )
    for r, names in detected.items():
        untyped = [n for n in names if any(g.name == "gpu" and not g.type for g in nodes[n].gres)]
        note = (
            f"; {compress_hostlist(untyped)} have GPUs without a type (Gres=gpu:N), so a job "
            "asking --gres=gpu:<type>:N is refused: write the type in Gres=, e.g. "
            f"Gres=gpu:<type>:{nodes[untyped[0]].gpus}"
            if untyped
            else ""
        )
        head = r.text if r.name is None else f"{r.text} AutoDetect={r.autodetect}"
        library = _GPU_LIBRARIES.get(r.autodetect.lower(), "the GPU library")
        warn_at_caller(
            f"{r.source} line {r.no}: {head}: not modelled by slurmlab (ignored): slurmd asks "
            f"{library} for the GPUs of {compress_hostlist(names)} (their device files, "
            "cores and links); slurmlab takes the GPUs slurm.conf's Gres= declares, with the "
            f"types written there{note}"
        )
    bound = [r for r in records if r.cores is not None]
    if bound:
        r = bound[0]
        also = f" (also on line{'s' * (len(bound) > 2)} {', '.join(str(b.no) for b in bound[1:])})"
        warn_at_caller(
            f"{r.source} line {r.no}: {r.text}: Cores={r.cores}{also if len(bound) > 1 else ''}: "
            "not modelled by slurmlab (ignored): Slurm prefers a GRES's cores for the jobs "
            "that use it (and gives them only those with --gres-flags=enforce-binding); "
            "slurmlab places jobs without regard to which cores are next to which GPU"
        )


def _gres_source(gres_conf: str | Path) -> str:
    """How a gres.conf is named in messages: its path, or gres.conf for a text."""
    source = read_text(gres_conf)[1]
    return source if source != "slurm.conf" else "gres.conf"
