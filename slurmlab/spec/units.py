"""Slurm's small value syntaxes: durations, memory sizes, counts and hostlists, and the plain
values of scenario files (whole numbers, numbers, flags, lists of names); and the limits of
Slurm's counts (``MAX_COUNT16``, ``MAX_COUNT``...), which the specs check.

Slurm writes time limits as ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M`` or
``D-H:M:S`` (``UNLIMITED``/``INFINITE`` for none) and memory in MB unless a
``K``/``M``/``G``/``T`` suffix says otherwise. Hostlists (``gpu[01-04]``) are
expanded and compressed by python-hostlist, never by hand.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime, timedelta
from numbers import Integral, Real

import hostlist
import numpy as np

from slurmlab.errors import SlurmlabError, warn_at_caller

__all__ = [
    "check_switch",
    "compress_hostlist",
    "expand_hostlist",
    "format_duration",
    "format_memory_mb",
    "index_ranges",
    "array_task_str",
    "parse_duration",
    "parse_flag",
    "parse_instant",
    "parse_list_of",
    "parse_memory_mb",
    "parse_names",
    "parse_number",
    "parse_seconds",
    "span_words",
    "parse_time_limit",
    "parse_whole",
    "ascii_digits",
    "suffixed_count",
    "tick_at_or_after",
    "tick_at_or_before",
    "MAX_COUNT",
    "MAX_COUNT16",
    "MAX_MEMORY_MB",
    "MAX_SECONDS",
    "UINT16_MAX",
    "UINT32_MAX",
]

_UNLIMITED = {"UNLIMITED", "INFINITE", "INFINITY"}


#: the longest time slurmlab reads (about 31.7 years): a time limit, a scenario's offsets
#: and durations, a --begin's wait, ``until``, and an SWF trace's times. A larger number is
#: nearly always a unit slip (milliseconds, or a Unix timestamp given as an offset). It is a
#: bound on what is read, not on a run: a generated workload's submissions may come later
#: (the job table's times reach pandas' year 2262)
MAX_SECONDS = 1e9


def parse_duration(text: str | int | float | timedelta, *, what: str = "time") -> timedelta | None:
    """Parse a Slurm time limit (``sbatch -t`` forms) into a timedelta; None means unlimited.

    Digits are ASCII and decimal, as Slurm's ``time_str2mins`` reads them; a limit longer
    than :data:`MAX_SECONDS` (about 31 years) is refused, as a likely unit slip.

    >>> parse_duration("90")
    datetime.timedelta(seconds=5400)
    >>> parse_duration("1-02:00:00")
    datetime.timedelta(days=1, seconds=7200)
    >>> parse_duration("UNLIMITED") is None
    True
    """
    if isinstance(text, timedelta):
        return text
    if isinstance(text, bool):
        raise SlurmlabError(f"invalid {what} {text!r}: expected a Slurm time such as 2:00:00")
    if isinstance(text, int | float):
        # a bare number of minutes, as sbatch reads it
        if not text >= 0:  # (NaN too)
            raise SlurmlabError(f"invalid {what} {text!r}: must be a number of minutes >= 0")
        return _limit(text * 60, text, what)
    s = str(text).strip()
    if s.upper() in _UNLIMITED:
        return None
    m = re.fullmatch(r"(?:([0-9]+)-)?([0-9]+)(?::([0-9]+))?(?::([0-9]+))?", s)
    if not m:
        raise SlurmlabError(
            f"invalid {what} {text!r}: use minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED"
            + (" (sbatch: Invalid --time specification)" if what == "--time" else "")
            + (_unit_hint(s) or _form_hint(s))
        )
    days, a, b, c = m.groups()
    a, b, c = int(a), b and int(b), c and int(c)
    if days is None:
        if b is None:  # M
            return _limit(a * 60, text, what)
        if c is None:  # M:S
            return _limit(a * 60 + b, text, what)
        return _limit(a * 3600 + b * 60 + c, text, what)  # H:M:S
    return _limit(int(days) * 86400 + a * 3600 + (b or 0) * 60 + (c or 0), text, what)


def parse_time_limit(value, *, what: str) -> timedelta | None:
    """A time limit given in Python (a job's ``time_limit``, a partition's ``max_time`` and
    ``default_time``, a QOS's ``max_wall``): a ``timedelta`` (pandas' too; numpy's is read),
    None (none given), or text as Slurm reads a limit (``sbatch -t``, MaxTime=, MaxWall=):
    ``M``, ``M:S``, ``H:M:S``, ``D-H[:M[:S]]``, ``UNLIMITED`` (None).

    A bare Python number is minutes, as Slurm reads a limit, with a warning: slurmlab's
    other Python times (``submit``, ``runtime``, a reservation's ``duration``) are seconds,
    so ``3600`` may have been meant as an hour. ``"2h"`` is refused, as Slurm refuses it,
    with the Slurm time to write.

    >>> parse_time_limit("1:00:00", what="max_time"), parse_time_limit("UNLIMITED", what="t")
    (datetime.timedelta(seconds=3600), None)
    """
    if value is None or isinstance(value, timedelta):
        return value
    if isinstance(value, np.timedelta64):
        return timedelta(seconds=parse_seconds(value, what=what))
    if isinstance(value, Real) and not isinstance(value, bool):
        number = int(value) if isinstance(value, Integral) else float(value)
        limit = parse_duration(number, what=what)
        warn_at_caller(
            f"{what}={number!r} is read as {number} minutes ({format_duration(limit)}), as "
            f"Slurm reads a time limit (sbatch -t {number}, MaxTime={number}, MaxWall="
            f"{number}), while slurmlab's other Python "
            f"times are seconds; write {what.rsplit(' ', 1)[-1]}='{format_duration(limit)}' or "
            f"timedelta(minutes={number}) to say minutes, or timedelta(seconds={number}) "
            "for seconds"
        )
        return limit
    if not isinstance(value, str):
        raise SlurmlabError(
            f"invalid {what} {value!r}: give a timedelta, or a Slurm time such as '2:00:00' "
            "(a bare number is minutes, as sbatch -t reads it), or 'UNLIMITED'"
        )
    try:
        return parse_duration(value, what=what)
    except SlurmlabError as exc:
        try:
            seconds = parse_seconds(value, what=what)
        except SlurmlabError:
            raise exc from None
        raise SlurmlabError(
            f"{exc} (a time limit takes Slurm's forms, without a unit such as 'h': write "
            f"'{format_duration(timedelta(seconds=seconds))}' or "
            f"timedelta(seconds={seconds:g}))"
        ) from None


def _limit(seconds: float, text, what: str) -> timedelta:
    """``seconds`` as a time limit, or an error for one longer than :data:`MAX_SECONDS`
    (timedelta itself overflows near 2.7 million years; pandas' job table near 292)."""
    if seconds > MAX_SECONDS:
        raise SlurmlabError(
            f"invalid {what} {text!r}: too long to count (Invalid time limit specification): "
            f"over {MAX_SECONDS:.0e} s (about 31 years), the longest time limit slurmlab "
            "reads; give a shorter [days-]hours:minutes:seconds, or UNLIMITED for no limit"
        )
    return timedelta(seconds=seconds)


_UNIT_WORDS = {  # (_UNIT_SECONDS's letters, defined below, and the words people write)
    "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
    "minutes": 60, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "day": 86400,
    "days": 86400,
}  # fmt: skip


def _unit_hint(text: str) -> str:
    """For a time limit written with a unit (``2h``, ``90 min``): Slurm's way to write it."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]+)", text.strip())
    word = m.group(2).lower() if m else ""
    unit = _UNIT_SECONDS.get(word) or _UNIT_WORDS.get(word)
    if unit is None:
        return ""
    seconds = round(float(m.group(1)) * unit)
    form = format_duration(timedelta(seconds=seconds))
    minutes = f", or {seconds // 60} (minutes)" if seconds % 60 == 0 else ""
    return f" (Slurm takes no units: write {form}{minutes})"


def _form_hint(text: str) -> str:
    """Why number-like ``text`` is not a number here, for the forms Python and YAML 1.1 read
    and Slurm's ``strtol(..., 10)`` does not: ``0x10``, ``1_000``, other scripts' digits."""
    m = re.fullmatch(r"[-+]?0([xXoObB])[0-9a-fA-F_]+", text)
    if m:
        base = {"x": "hexadecimal", "o": "octal", "b": "binary"}[m.group(1).lower()]
        try:
            decimal = f"write {int(text, 0)}"
        except ValueError:
            decimal = "write the number in decimal"
        return (
            f" ({text} is {base} in YAML 1.1 and Python; Slurm reads numbers in decimal: {decimal})"
        )
    if "_" in text and re.fullmatch(r"[-+]?[0-9_]+(\.[0-9_]*)?[a-zA-Z]*", text):
        return f" (Slurm takes no '_' between digits: write {text.replace('_', '')})"
    if any(c.isdigit() and not c.isascii() for c in text):
        ascii_ = "".join(str(unicodedata.digit(c, c)) if not c.isascii() else c for c in text)
        return f" (Slurm reads the ASCII digits 0-9 only: write {ascii_})"
    return ""


_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SECONDS_HELP = (
    "give seconds (e.g. 3600), a Slurm time ([D-]HH:MM:SS, or M:S, D-H, D-H:M as sbatch -t "
    "reads them, e.g. 1:00:00 or 1-12:00) or a number with s/m/h/d (e.g. 2h)"
)


def span_words(big: int, big_unit: str, small: int, small_unit: str) -> str:
    """``1 h 30 min``, ``45 min``, ``2 h`` (a part that is 0 left out, unless both are):
    how the warnings on a two-part ``M:S`` time say what it is read as and what was meant."""
    parts = [f"{n} {unit}" for n, unit in ((big, big_unit), (small, small_unit)) if n]
    return " ".join(parts) or f"0 {small_unit}"


def parse_seconds(value: str | int | float | timedelta, *, what: str = "time") -> float:
    """Parse a scenario offset or duration: seconds as a number, Slurm's time forms as text
    (``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S``, read as ``sbatch -t`` reads them), a
    number with a unit (``45s``, ``30m``, ``2h``, ``1.5d``), several (``2h30m``, ``1d12h``)
    or a ``timedelta`` (also pandas').

    Unlike ``sbatch -t``, a bare number here means seconds. At most :data:`MAX_SECONDS`.

    >>> parse_seconds(90), parse_seconds("1:30"), parse_seconds("1-00:00:00"), parse_seconds("2h")
    (90.0, 90.0, 86400.0, 7200.0)
    >>> parse_seconds("1-12"), parse_seconds("1-12:30"), parse_seconds("1:00:00")
    (129600.0, 131400.0, 3600.0)
    >>> parse_seconds("2h30m"), parse_seconds("1d 12h")
    (9000.0, 129600.0)
    """
    seconds = _seconds(value, what)
    if seconds > MAX_SECONDS:
        raise SlurmlabError(
            f"invalid {what} {value!r}: over {MAX_SECONDS:.0e} s (about 31 years), the longest "
            "time slurmlab reads (a larger number is usually a unit slip); give a shorter time"
        )
    return seconds


def _seconds(value, what: str) -> float:
    try:
        return _seconds_of(value, what)
    except OverflowError:  # (digits beyond a float: parse_seconds says it is too long)
        return math.inf


def _seconds_of(value, what: str) -> float:
    if isinstance(value, bool):
        raise SlurmlabError(f"invalid {what} {value!r}: {_SECONDS_HELP}")
    if isinstance(value, date):  # (YAML reads an unquoted 2026-01-05 as one)
        raise SlurmlabError(
            f"invalid {what} {value.isoformat()!r}: a date, where a time is counted: "
            f"{_SECONDS_HELP}"
        )
    if isinstance(value, timedelta):
        value = value.total_seconds()
    elif isinstance(value, np.timedelta64):  # (NaT divides to NaN, refused below)
        value = float(value / np.timedelta64(1, "s"))
    if isinstance(value, int | float):
        if value != value:  # (NaN is not equal to itself)
            raise SlurmlabError(f"invalid {what} {value!r}: not a number; {_SECONDS_HELP}")
        if value < 0:
            raise SlurmlabError(
                f"invalid {what} {value!r}: must not be negative (seconds, 0 or more)"
            )
        return float(value)
    s = str(value).strip()
    if s.startswith("-") and s[1:].strip()[:1].isdigit():
        try:
            magnitude = _seconds_of(s[1:].strip(), what)
        except SlurmlabError:
            pass  # (not a duration with a minus sign: the general help below)
        else:
            if magnitude == 0:
                return 0.0  # ("-0" is no negative time)
            raise SlurmlabError(
                f"invalid {what} {value!r}: must not be negative (a duration, 0 or more)"
            )
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?", s):
        return float(s)
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([smhd])", s, flags=re.IGNORECASE)
    if m:
        return float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()]
    if re.fullmatch(r"(?:[0-9]+(?:\.[0-9]+)?\s*[smhd]\s*){2,4}", s, flags=re.IGNORECASE):
        parts = re.findall(r"([0-9]+(?:\.[0-9]+)?)\s*([smhd])", s, flags=re.IGNORECASE)
        units = ["dhms".index(u.lower()) for _, u in parts]
        if units == sorted(set(units)):  # (2h30m, 1d12h: each unit once, largest first)
            return sum(float(n) * _UNIT_SECONDS[u.lower()] for n, u in parts)
        raise SlurmlabError(
            f"invalid {what} {value!r}: give each unit once, the largest first (e.g. 1d12h "
            f"or 2h30m); {_SECONDS_HELP}"
        )
    m = re.fullmatch(r"([0-9]+)-([0-9]+)(?::([0-9]+))?(?::([0-9]+(?:\.[0-9]+)?))?", s)  # D-H:M:S
    if m:
        d, h, mi, sec = m.groups()
        return int(d) * 86400 + int(h) * 3600 + int(mi or 0) * 60 + float(sec or 0)
    m = re.fullmatch(r"(?:([0-9]+):)?([0-9]+):([0-9]+(?:\.[0-9]+)?)", s)  # [H:]M:S
    if not m:
        raise SlurmlabError(f"invalid {what} {value!r}: {_SECONDS_HELP}{_form_hint(s)}")
    h, mi, sec = m.groups()
    return int(h or 0) * 3600 + int(mi) * 60 + float(sec)


def parse_instant(value, origin, *, what: str = "time") -> float:
    """Seconds from ``origin`` (a ``pandas.Timestamp``) to ``value``: seconds or a duration as
    :func:`parse_seconds` reads them (``3600``, ``"1:00:00"``, ``"2h"``), or a date and time
    (``"2026-01-05T10:00"``, a ``datetime`` or ``Timestamp``); ``math.inf`` means for ever.

    >>> import pandas as pd
    >>> o = pd.Timestamp("2026-01-05")
    >>> parse_instant("3600", o), parse_instant("2h", o), parse_instant("2026-01-05T01:00", o)
    (3600.0, 7200.0, 3600.0)
    """
    import pandas as pd  # (the spec layer's other readers need no pandas)

    when = None
    if value is pd.NaT or (isinstance(value, np.datetime64) and np.isnat(value)):
        raise SlurmlabError(f"invalid {what} {value!r}: NaT is no time; give a date and time")
    if isinstance(value, pd.Timestamp | datetime | np.datetime64):  # (a column's .values too)
        when = value
    elif isinstance(value, float) and value == math.inf:
        return math.inf  # for ever (``until``)
    else:
        try:
            return parse_seconds(value, what=what)
        except SlurmlabError:
            if not isinstance(value, str):
                raise  # (a number or a duration: its own error says what is wrong)
            if re.fullmatch(r"\s*-\s*[0-9.]+\s*[a-z]*\s*", value):  # ("-5", "-2h")
                raise SlurmlabError(
                    f"invalid {what} {value!r}: a time before the start; give 0 or more "
                    "(seconds, a duration such as 2h, or a date and time)"
                ) from None
            if not re.match(r"\s*[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
                raise SlurmlabError(
                    f"invalid {what} {value!r}: {_SECONDS_HELP}, or a date and time "
                    "(e.g. 2026-01-05T10:00)"
                ) from None
            when = value
    try:
        return (pd.Timestamp(when) - origin).total_seconds()
    except (ValueError, TypeError, OverflowError) as exc:
        raise SlurmlabError(
            f"invalid {what} {value!r}: {exc} (give a date and time like 2026-01-05T10:00, "
            f"counted from the simulation's start {origin})"
        ) from None


def format_duration(td: timedelta | None) -> str:
    """Format a duration as Slurm prints it (``[D-]HH:MM:SS``; ``UNLIMITED`` for None).

    >>> format_duration(timedelta(days=1, hours=2))
    '1-02:00:00'
    >>> format_duration(timedelta(minutes=30))
    '30:00'
    """
    if td is None:
        return "UNLIMITED"
    total = int(td.total_seconds())
    days, rest = divmod(total, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    if days:
        return f"{days}-{h:02d}:{m:02d}:{s:02d}"
    if h:
        return f"{h}:{m:02d}:{s:02d}"
    return f"{m}:{s:02d}"


_MEM_UNITS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


def parse_memory_mb(text: str | int, *, what: str = "memory") -> int:
    """Parse a Slurm memory size into MB (default unit MB; K/M/G/T suffixes, 1024-based).

    >>> parse_memory_mb("64G"), parse_memory_mb("4000"), parse_memory_mb("512K")
    (65536, 4000, 1)
    """
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise SlurmlabError(f"invalid {what} {text!r}: must not be negative")
        return text
    s = str(text).strip()
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([KMGT])?B?", s, flags=re.IGNORECASE)
    if not m:
        raise SlurmlabError(
            f"invalid {what} {text!r}: give a size in MB or with a K/M/G/T suffix (e.g. 64G)"
            + _form_hint(s)
        )
    value = float(m.group(1)) * _MEM_UNITS[(m.group(2) or "M").upper()]
    if value == math.inf:  # (digits beyond a float's range)
        raise SlurmlabError(f"invalid {what} {text!r}: too large a size")
    return int(-(-value // 1))  # round up, as Slurm does for partial MB


def format_memory_mb(mb: int) -> str:
    """A memory size in MB as sacct prints it (ReqMem, the ``mem=`` of TRES strings).

    Slurm's ``convert_num_unit2`` with CONVERT_NUM_UNIT_EXACT: the next unit up while the
    number is at least 1024 and a multiple of 512 (a half is still exact), two decimals
    when not whole (real Slurm 22.05: ``2000M``, ``32000M``, ``62.50G``, ``125G``; 0 is
    ``0``). :func:`parse_memory_mb` reads every such size back exactly: unlike the C code,
    a half (``1024.50G``) is not converted again (Slurm would print ``1.00T``, losing it).

    >>> format_memory_mb(64000), format_memory_mb(32000), format_memory_mb(1048576)
    ('62.50G', '32000M', '1T')
    """
    if not mb:
        return "0"
    value, unit = float(mb), 0
    units = "MGTP"
    while value >= 1024 and value % 512 == 0 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    number = f"{int(value)}" if value == int(value) else f"{value:.2f}"
    return f"{number}{units[unit]}"


#: bytes in C's ``char`` order (signed on x86: bytes above 127 before NUL), for bytes' order
_SIGNED_CHAR = bytes((b + 128) % 256 for b in range(256))
_DIGIT_RUNS = re.compile(r"([0-9]+)")


def node_order_key(name: str) -> tuple:
    """A node name's place in slurmctld's node table, as a sort key.

    slurmctld sorts its node table by name whatever the order of slurm.conf's NodeName=
    lines (read_config.c ``_sort_node_record_table_ptr``, each time it reads slurm.conf,
    before any node bitmap is built), comparing names with ``strnatcmp`` (strnatcmp.c): a
    run of digits in both names is compared as a number (``n2`` before ``n10``), unless one
    of them starts with 0, then digit by digit (``n05`` before ``n5``, ``n010`` before
    ``n02``); other characters by their byte value (C's signed ``char``: bytes of non-ASCII
    names first), a name before any longer name it begins. Node names hold no spaces,
    which strnatcmp would skip.

    The key alternates the name's text between runs of digits (its bytes, then ``0`` when
    digits follow, NUL at the end: what strnatcmp compares a digit or the end with) and
    each run's rank among runs.

    >>> sorted(["n10", "n2", "gpu1", "n1-ib", "n1"], key=node_order_key)
    ['gpu1', 'n1', 'n1-ib', 'n2', 'n10']
    >>> sorted(["n5", "n05", "n010", "n02"], key=node_order_key)
    ['n010', 'n02', 'n05', 'n5']
    """
    pieces = _DIGIT_RUNS.split(name)  # text, digits, text, ..., text
    last = len(pieces) - 1
    return tuple(
        ((1, len(piece), piece) if piece[0] != "0" else (0, piece))
        if i % 2
        else (piece.encode() + (b"0" if i < last else b"\0")).translate(_SIGNED_CHAR)
        for i, piece in enumerate(pieces)
    )


def tick_at_or_before(t: float, period: float, start: float = 0.0) -> float:
    """The last tick at or before ``t`` of a grid every ``period`` seconds from ``start``:
    slurmctld's timers from its start (the periodic main-scheduler pass, the priority
    recalculation), backfill's bf_resolution slots on epoch seconds
    (:func:`~slurmlab.policies.nodespace.slot_of`). The next tick after ``t`` is this plus
    ``period``."""
    return start + math.floor((t - start) / period) * period


def tick_at_or_after(t: float, period: float, start: float = 0.0) -> float:
    """The first tick at or after ``t`` of the timer of :func:`tick_at_or_before`; the last
    tick strictly before ``t`` is this minus ``period``."""
    return start + math.ceil((t - start) / period) * period


def expand_hostlist(expr: str) -> list[str]:
    """Expand a Slurm hostlist expression (``gpu[01-03],cpu1``) into names, in order."""
    try:
        return hostlist.expand_hostlist(expr)
    except hostlist.BadHostlist as exc:
        raise SlurmlabError(f"invalid hostlist {expr!r}: {exc}") from None


def compress_hostlist(names) -> str:
    """Compress node names into Slurm's hostlist form (``gpu[01-03]``), sorted as Slurm does.

    Slurm ranges only a name's trailing number (hostlist.c ``hostname_create_dims``):
    ``node1-ib,node2-ib`` stays as it is, where python-hostlist would write
    ``node[1-2]-ib``."""
    names = list(names)
    plain = [n for n in names if not n[-1:].isdigit() and any(c.isdigit() for c in n)]
    if not plain:
        return hostlist.collect_hostlist(names)
    ranged = [n for n in names if n not in set(plain)]
    pieces = (
        [(hostlist.numerically_sorted(ranged)[0], hostlist.collect_hostlist(ranged))]
        if ranged
        else []
    )
    pieces += [(n, n) for n in dict.fromkeys(plain)]
    first = {key: i for i, key in enumerate(hostlist.numerically_sorted([k for k, _ in pieces]))}
    return ",".join(text for key, text in sorted(pieces, key=lambda kv: first[kv[0]]))


def ordered_hostlist(names) -> str:
    """Node names in Slurm's hostlist form in the order given, not sorted: a job's node list
    as slurmctld writes it (node_mgr.c ``bitmap2node_name_sortable(bitmap, false)``: the
    node table's order, by name as :func:`node_order_key` sorts them). Given ``n05,n5``
    (slurmctld's order: ``strnatcmp`` compares a zero-padded number digit by digit) it
    writes ``n05,n5`` where :func:`compress_hostlist`, sorting by python-hostlist's numeric
    key, writes ``n[5,05]``; names on which both orders agree read as
    :func:`compress_hostlist` writes them.

    Consecutive numbers of one prefix make a range (``hostrange_join``), and ranges of one
    prefix next to each other share a bracket (hostlist.c ``_get_bracketed_list``), when
    their zero padding agrees (``n09,n10`` is ``n[09-10]``; ``n8,n09`` two entries)."""
    groups: list[list] = []  # [prefix, [[low, high], ...], widest padding, narrowest]
    for name in names:
        stem = name.rstrip("0123456789")
        digits = name[len(stem) :]
        if not digits:
            groups.append([name, None, 0, 0])
            continue
        n = int(digits)
        low, high = (len(digits), len(digits)) if digits[0] == "0" and len(digits) > 1 else (
            1, len(digits),
        )  # fmt: skip
        last = groups[-1] if groups else None
        if last is not None and last[1] is not None and last[0] == stem:
            both = max(last[2], low), min(last[3], high)
            if both[0] <= both[1]:
                last[2], last[3] = both
                if n == last[1][-1][1] + 1:
                    last[1][-1][1] = n
                else:
                    last[1].append([n, n])
                continue
        groups.append([stem, [[n, n]], low, high])
    out = []
    for stem, runs, width, _most in groups:
        if runs is None:
            out.append(stem)
        elif len(runs) == 1 and runs[0][0] == runs[0][1]:
            out.append(f"{stem}{runs[0][0]:0{width}d}")
        else:
            parts = [
                f"{a:0{width}d}" if a == b else f"{a:0{width}d}-{b:0{width}d}" for a, b in runs
            ]
            out.append(f"{stem}[{','.join(parts)}]")
    return ",".join(out)


def index_ranges(indices: list[int]) -> str:
    """``0-3,5,7-8``: array task indices (ascending) as Slurm prints them."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


#: the characters squeue and sacct print of an array's pending task list by default
#: (SLURM_BITSTR_LEN unset: 64, the buffer's trailing NUL included)
BITSTR_LEN = 64


def array_task_str(indices, throttle: int | None = None, bitstr_len: int = BITSTR_LEN) -> str:
    """The task list of an array's pending record as squeue and sacct print it (between the
    brackets of ``12_[...]``), as Slurm 22.05's xlate_array_task_str writes it
    (slurm_protocol_defs.c):

    * a regular stride as ``first-last:step`` when the tasks span more than 10 ids, number
      more than 5 and the second id is not among them;
    * else ranges (``0-3,5,7-8``) cut to ``bitstr_len`` - 1 characters, a list that would
      reach ``bitstr_len`` - 2 ending in ``...`` instead (SLURM_BITSTR_LEN, 64 unless set; 0
      prints it whole);
    * then the throttle, ``%N``.

    >>> array_task_str([0, 1, 2, 3, 5], throttle=2)
    '0-3,5%2'
    >>> array_task_str(range(0, 21, 2))
    '0-20:2'
    >>> array_task_str(range(0, 100, 3), bitstr_len=0)
    '0-99:3'
    >>> array_task_str([i for i in range(99) if i % 3])[-12:]
    '29,31-32,...'
    """
    tasks = sorted(set(indices))
    if not tasks:
        raise ValueError("array_task_str: an array's pending record holds at least one task")
    first, last = tasks[0], tasks[-1]
    text = None
    if last - first > 10 and len(tasks) > 5 and tasks[1] != first + 1:
        step = tasks[1] - first
        if all(b - a == step for a, b in zip(tasks, tasks[1:])):
            text = f"{first}-{last}:{step}"
    if text is None:
        text = index_ranges(tasks)
        if bitstr_len > 0:  # (bit_fmt into a buffer of bitstr_len bytes, NUL included)
            text = text[: bitstr_len - 1]
            if len(text) > bitstr_len - 3:
                text = text[: bitstr_len - 4] + "..."
    return text if throttle is None else f"{text}%{throttle}"


# -- Slurm's number limits: the one place slurmlab defines them ----------------------------------
#: The largest values of Slurm's 16- and 32-bit counts (uint16_t, uint32_t), as slurm.conf's
#: reader takes them (parse_value.c ``s_p_handle_uint16``: "... is greater than 65535").
UINT16_MAX = 2**16 - 1
UINT32_MAX = 2**32 - 1

#: the largest count slurmlab takes where Slurm keeps one in 16 bits (uint16_t; the two values
#: above it, 0xfffe and 0xffff, are Slurm's NO_VAL16 and INFINITE16): a node's CPUs, a
#: partition's PriorityTier and PriorityJobFactor (slurm.conf(5): "may not exceed 65533")
MAX_COUNT16 = 2**16 - 3

#: the largest count slurmlab takes where Slurm keeps one in 32 bits (uint32_t; the two
#: values above it, 0xfffffffe and 0xffffffff, are Slurm's NO_VAL and INFINITE)
MAX_COUNT = 2**32 - 3

#: the most memory (MB) a node holds: Slurm's RealMemory is 64 bits; slurmlab stops at 2**48
#: MB (256 EiB), far beyond any node, so that sums over a cluster's nodes fit in 64 bits
MAX_MEMORY_MB = 2**48


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is ASCII decimal digits, as Slurm's parsers (strtol) read numbers:
    ``str.isdigit`` also takes other scripts' digits ('５'), which ``int`` then reads.

    >>> ascii_digits("42"), ascii_digits("４２"), ascii_digits(""), ascii_digits("-1")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit()


#: Slurm's count suffixes (slurm_protocol_defs.c ``suffix_mult``), by lower-case suffix:
#: K or KiB is 1024, KB 1000, and so on up to P.
_COUNT_SUFFIXES = {"": 1}
for _power, _letter in enumerate("kmgtp", start=1):
    _COUNT_SUFFIXES |= {
        _letter: 1024**_power,
        f"{_letter}ib": 1024**_power,
        f"{_letter}b": 1000**_power,
    }


def suffixed_count(text: str) -> int | None:
    """``text`` as Slurm reads a count with an optional suffix (a GRES count: gres.c
    ``_get_gres_cnt``; gres.conf's Count=): ASCII digits, then K, M, G, T or P, alone or
    with iB (1024-based) or B (1000-based), in any case. None when it is not one.

    >>> suffixed_count("8"), suffixed_count("2K"), suffixed_count("2kib"), suffixed_count("1KB")
    (8, 2048, 2048, 1000)
    >>> suffixed_count("2x") is None, suffixed_count("K") is None
    (True, True)
    """
    m = re.fullmatch(r"([0-9]+)([A-Za-z]*)", text)
    mult = _COUNT_SUFFIXES.get(m.group(2).lower()) if m else None
    return None if mult is None else int(m.group(1)) * mult


def parse_whole(value, *, what: str, minimum: int = 0, maximum: int | None = None) -> int:
    """A whole number from ``minimum`` to ``maximum`` (None: no bound; :data:`MAX_COUNT` for
    a count Slurm keeps in 32 bits): an int, or ASCII decimal digits as text, as Slurm's
    ``strtol(..., 10)`` reads them (not ``0x10``, ``1_000`` or other scripts' digits).

    >>> parse_whole("8", what="cpus")
    8
    """
    whole = isinstance(value, Integral) and not isinstance(value, bool)  # numpy ints too
    if (
        whole
        or (isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]+\s*", value))
        or (isinstance(value, float) and value.is_integer())
    ):
        n = int(value)
    else:
        hint = _form_hint(value.strip()) if isinstance(value, str) else ""
        raise SlurmlabError(
            f"invalid {what} {value!r}: give a whole number (e.g. {max(minimum, 1)}){hint}"
        )
    if n < minimum:
        raise SlurmlabError(f"invalid {what} {value!r}: must be at least {minimum}")
    if maximum is not None and n > maximum:
        why = " (Slurm keeps it in 32 bits)" if maximum == MAX_COUNT else ""
        raise SlurmlabError(f"invalid {what} {value!r}: must be at most {maximum}{why}")
    return n


def parse_number(value, *, what: str, minimum: float = 0.0, strict: bool = False) -> float:
    """A number of at least ``minimum`` (above it with ``strict``), given as a number or
    text (ASCII decimal digits, with an optional fraction and exponent).

    >>> parse_number("0.7", what="shape")
    0.7
    """
    number = isinstance(value, Real) and not isinstance(value, bool)
    pattern = r"\s*-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?\s*"
    if not (number or isinstance(value, str) and re.fullmatch(pattern, value)):
        hint = _form_hint(value.strip()) if isinstance(value, str) else ""
        raise SlurmlabError(f"invalid {what} {value!r}: give a number (e.g. 1.5){hint}")
    try:
        x = float(value)
    except OverflowError:  # (an int beyond a float's range)
        raise SlurmlabError(f"invalid {what} {value!r}: too large a number") from None
    if x != x:  # NaN
        raise SlurmlabError(f"invalid {what} {value!r}: give a number (e.g. 1.5)")
    if x < minimum or (strict and x == minimum):
        bound = "above" if strict else "at least"
        raise SlurmlabError(f"invalid {what} {value!r}: must be {bound} {minimum:g}")
    return x


def parse_flag(value, *, what: str) -> bool:
    """A yes/no value: YAML's true/false (yes/no, on/off); anything else is an error."""
    if isinstance(value, bool):
        return value
    raise SlurmlabError(f"invalid {what} {value!r}: give true or false")


def parse_names(value, *, what: str, hostlist_ok: bool = False) -> tuple[str, ...]:
    """A list of names: one name, a list of names, or (``hostlist_ok``) a hostlist expression
    such as ``gpu[01-04]``.

    >>> parse_names(["alice", "bob"], what="users"), parse_names("n[1-2]", what="nodes", hostlist_ok=True)
    (('alice', 'bob'), ('n1', 'n2'))
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(expand_hostlist(value)) if hostlist_ok else (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str | int) for v in value):
        if hostlist_ok:
            return tuple(n for v in value for n in expand_hostlist(str(v)))
        return tuple(str(v) for v in value)
    raise SlurmlabError(f"invalid {what} {value!r}: give a name or a list of names")


def parse_list_of(items, cls: type, *, what: str) -> list:
    """``items`` (one or several) as a list of ``cls`` objects, a dict read as a scenario
    file's entry (``cls.from_dict``) where ``cls`` has that form; an error names the first
    item that is neither (a name...) and how to build one."""
    if isinstance(items, cls | str | dict):
        items = [items]
    try:
        items = list(items)
    except TypeError:
        items = [items]
    from_dict = getattr(cls, "from_dict", None)
    for i, item in enumerate(items):
        if isinstance(item, dict) and from_dict is not None:  # (a scenario entry's form)
            items[i] = from_dict(item, where=f"{what}[{i}]")
        elif not isinstance(item, cls):
            raise SlurmlabError(
                f"{what}: {item!r} is a {type(item).__name__}, not a slurmlab.{cls.__name__} "
                f"(build one with slurmlab.{cls.__name__}(...); a scenario file's entries are "
                "read by Scenario.load)"
            )
    return items


def check_switch(where: str, key: str, value, allowed: str = "True or False") -> None:
    """A switch is True or False (None too where ``allowed`` names it): ``"no"``, which
    Python takes for true, is an error."""
    if not isinstance(value, bool | np.bool_) and not (value is None and "None" in allowed):
        raise SlurmlabError(f"{where}({key}={value!r}): {key} is {allowed}")
