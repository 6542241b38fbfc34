"""Times as Slurm 22.05's ``parse_time`` reads them (src/common/parse_time.c): sbatch's
``--begin`` and ``--deadline`` (:func:`_parse_begin`, a time from the submission) and sacct's
``-S`` (:func:`read_past_time`, a time in the past)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from slurmlab.errors import SbatchError, warn_at_caller
from slurmlab.spec.units import MAX_SECONDS


@dataclass(frozen=True, slots=True)
class TimeOfDay:
    """``--begin`` without a full date, resolved when the job is submitted.

    A time of day: today's ``at`` if its hour and minute are later than the submission's,
    else tomorrow's; seconds are not compared, so ``--begin=midnight`` (or ``00:00``)
    submitted at 00:00:00, or ``10:30:50`` submitted at 10:30:20, is tomorrow's. ``day``:
    that many days after the submission's date (``tomorrow`` is day 1 at 00:00). ``month``
    and ``mday``: a date without a year (``MM/DD``, ``MMDD``) at ``at``, this year if its
    month, day, hour and minute are later than the submission's, else next year. Both as
    Slurm's ``parse_time`` reads them (src/common/parse_time.c).
    """

    at: time
    day: int | None = None
    month: int | None = None
    mday: int | None = None

    def __post_init__(self):
        if (self.month is None) != (self.mday is None):
            raise SbatchError("--begin: a date without a year needs both a month and a day")
        if self.month is not None:
            if self.day is not None:
                raise SbatchError("--begin: give a month and day, or a day offset, not both")
            # (_get_date's range; mktime() rolls a day past the month's end into the next)
            if not (1 <= self.month <= 12 and 1 <= self.mday <= 31):
                raise SbatchError(
                    f"--begin={self.month:02d}/{self.mday:02d}: not a date (MM/DD: a month "
                    "from 01 to 12, a day from 01 to 31)"
                )

    def resolve(self, submitted: datetime) -> datetime:
        """The begin time of a job submitted at ``submitted``."""
        midnight = submitted.replace(hour=0, minute=0, second=0, microsecond=0)
        if self.month is not None:
            now = (submitted.month, submitted.day, submitted.hour, submitted.minute)
            later = (self.month, self.mday, self.at.hour, self.at.minute) > now
            year = submitted.year if later else submitted.year + 1
            return _mktime(year, self.month, self.mday) + _since_midnight(self.at)
        if self.day is not None:
            return midnight + timedelta(days=self.day) + _since_midnight(self.at)
        today = (self.at.hour, self.at.minute) > (submitted.hour, submitted.minute)
        return midnight + timedelta(days=0 if today else 1) + _since_midnight(self.at)

    def resolve_past(self, now: datetime) -> datetime:
        """The time ``parse_time(text, past=1)`` gives at ``now`` (sacct's ``-S``): a time of
        day is today's, later than now or not; a date without a year is this year's, last
        year's when its month is after now's; ``today``/``tomorrow`` as without ``past``."""
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if self.month is not None:
            year = now.year - 1 if self.month > now.month else now.year
            return _mktime(year, self.month, self.mday) + _since_midnight(self.at)
        return midnight + timedelta(days=self.day or 0) + _since_midnight(self.at)


def _mktime(year: int, month: int, mday: int) -> datetime:
    """The date ``mktime()`` makes of a day of a month, up to 31: a day past the month's end
    rolls into the next month (02/30 is March's 2nd, or 1st in a leap year), as
    ``parse_time`` gives it (parse_time.c checks only 1-31)."""
    return datetime(year, month, 1) + timedelta(days=mday - 1)


def read_past_time(text: str, now: datetime, *, what: str) -> datetime:
    """A time as Slurm 22.05's ``parse_time(text, 1)`` reads it for sacct's ``-S``/``-E``
    (src/common/parse_time.c, the ``past`` flag), at ``now``: the forms of ``--begin``
    (:func:`_read_begin`: ``2026-01-05``, ``2026-01-05T10:00``, ``01/05``, ``10:00``,
    ``midnight``, ``now-2hours``, ``today``...), a time of day being today's and a date
    without a year this year's or last (:meth:`TimeOfDay.resolve_past`). ``what`` names
    the option in an error (``%sacct -S``)."""
    try:
        value = _read_begin(str(text))
    except SbatchError as e:
        why = str(e).split(": ", 1)[-1]
        raise SbatchError(f"{what} {text!r}: {why}") from None
    except OverflowError:
        value = None
    if value is None:
        raise SbatchError(f"{what} {text!r}: too far away to count")
    if isinstance(value, timedelta):
        return now + value
    if isinstance(value, TimeOfDay):
        return value.resolve_past(now)
    return value


def _since_midnight(at: time) -> timedelta:
    return timedelta(hours=at.hour, minutes=at.minute, seconds=at.second)


#: parse_time's unit names (src/common/parse_time.c ``un[]``), tried in this order, each
#: matched by its own length: ``hour`` matches ``now+1hour`` and ``now+1hours``, but no
#: abbreviation (``now+1h``, ``now+30m``, ``now+90s``) matches any
_UNITS = (
    ("seconds", 1), ("second", 1), ("minutes", 60), ("minute", 60), ("hours", 3600),
    ("hour", 3600), ("days", 86400), ("day", 86400), ("weeks", 604800), ("week", 604800),
)  # fmt: skip
#: parse_time's named times of day (Slurm 22.05; ``elevenses`` came in 23.02)
_NAMED_TIMES = {"midnight": 0, "noon": 12, "fika": 15, "teatime": 16}
_BEGIN_HELP = (
    "use now[+|-N[seconds|minutes|hours|days|weeks]] (e.g. now+1hour: no abbreviation such as "
    "now+1h), HH:MM[:SS][AM|PM], midnight, noon, fika, teatime, today, tomorrow, MMDD[YY], "
    "MM/DD[/YY], MM.DD[.YY], YYYY-MM-DD, a date and a time together (MM/DD-HH:MM, "
    "YYYY-MM-DDTHH:MM, tomorrowT10:00, noon tomorrow) or uts<seconds since the epoch>"
)


def _parse_begin(val: str) -> timedelta | datetime | TimeOfDay:
    """``--begin`` read by :func:`_read_begin`; a time too far away to count, or more than
    ``MAX_SECONDS`` after submission, is an error."""
    try:
        begin = _read_begin(val)
    except OverflowError:
        begin = None
    if begin is None or isinstance(begin, timedelta) and begin.total_seconds() > MAX_SECONDS:
        raise SbatchError(
            f"--begin={val!r}: too far in the future (a simulation holds at most "
            f"{MAX_SECONDS:.0e} s, about 31 years); {_BEGIN_HELP}"
        )
    return begin


def _read_begin(val: str) -> timedelta | datetime | TimeOfDay:
    """``--begin`` as Slurm 22.05's ``parse_time`` (src/common/parse_time.c) reads it.

    A sequence of words, blanks, ``-`` and ``T`` between them: ``now`` with an optional
    ``+N`` or ``-N`` and a unit (``seconds``, the default, ``minutes``, ``hours``, ``days``,
    ``weeks``, or the singular; no abbreviation), a :class:`timedelta` from submission; a time
    of day (``HH:MM[:SS]`` with an optional AM/PM, ``midnight``, ``noon``, ``fika``,
    ``teatime``); a date (``today``, ``tomorrow``, ``MMDD[YY]``, ``MM/DD[/YY]``,
    ``MM.DD[.YY]``, ``YYYY-MM-DD``). A time alone is today's if its hour and minute are later
    than the submission's, else tomorrow's; a date alone is at 00:00, a date without a year
    this year's if still ahead, else next year's (:class:`TimeOfDay`); a date with a time,
    in either order (``tomorrowT10:00``, ``noon tomorrow``, ``01/06-10:00``), that day's
    time. ``uts<N>`` is N seconds since the epoch, the simulated clock read as UTC. A time
    already past starts the job at once (slurmctld keeps no begin time before now).
    """
    help_ = f"--begin={val!r}: Invalid time specification; {_BEGIN_HELP}"
    if val[:3].lower() == "uts":  # strtol: blanks, a sign, digits and nothing after
        m = re.fullmatch(r"\s*([+-]?[0-9]+)", val[3:])
        if not m or not 1_000_000 <= int(m.group(1)) < 2**63 - 1:
            raise SbatchError(help_)
        return datetime(1970, 1, 1) + timedelta(seconds=int(m.group(1)))
    if re.search(r"[0-9](?:Z|\+[0-9]{2}:?[0-9]{2})\s*$", val):  # ('Z', '+': no time here)
        raise SbatchError(
            f"--begin={val!r}: Invalid time specification: give the cluster's local time, "
            "without a timezone (e.g. 2026-01-05T10:00), as sbatch takes it"
        )
    s, low = val, val.lower()
    n = len(s)

    def at(i: int) -> str:
        return s[i] if i < n else ""

    def digit(i: int) -> bool:
        return at(i) in "0123456789" and at(i) != ""

    hour = minute = second = None
    day = mdy = None  # today/tomorrow: days after the submission's date; or (month, day, year)
    delta = None  # now[+-N]
    times = dates = 0  # (parse_time keeps the last of each)
    pos = 0
    while pos < n and s[pos] != "\n":
        c = s[pos]
        if c in " \t-T":  # (isblank, '-' and 'T' separate words)
            pos += 1
            continue
        if delta is not None:  # (slurmctld would take the date and time of now+N, then these)
            raise SbatchError(
                f"--begin={val!r}: now+N followed by another date or time is not modelled by "
                "slurmlab; give now+N alone, or a date and time"
            )
        word = next(
            (w for w in ("today", "tomorrow", *_NAMED_TIMES) if low.startswith(w, pos)), None
        )
        if word in ("today", "tomorrow"):
            day, mdy, dates = (0 if word == "today" else 1), None, dates + 1
            pos += len(word)
            continue
        if word is not None:
            hour, minute, second = _NAMED_TIMES[word], 0, 0
            pos, times = pos + len(word), times + 1
            continue
        if low.startswith("elevenses", pos):  # (parse_time of Slurm 23.02 and later)
            raise SbatchError(
                f"--begin={val!r}: Invalid time specification: elevenses (11:00) came in Slurm "
                "23.02, and 22.05's parse_time does not know it; write 11:00"
            )
        if low.startswith("now", pos):
            if pos:  # (parse_time then reads past its own position: undefined)
                raise SbatchError(help_)
            pos, delta = _now_delta(s, low, pos + 3, val)
            continue
        if not digit(pos):
            raise SbatchError(help_)
        if at(pos + 1) == ":" or at(pos + 2) == ":":  # _get_time
            pos, (hour, minute, second) = _clock(s, low, pos, help_)
            times += 1
        else:  # _get_date
            pos, mdy = _date(s, pos, help_)
            day, dates = None, dates + 1
    if times > 1 or dates > 1:  # (2026-01-05T10:00-05:00 is 05:00: no UTC offset)
        warn_at_caller(
            f"--begin={val!r} gives more than one {'time' if times > 1 else 'date'}: Slurm's "
            "parse_time keeps the last one (a '-05:00' after a time is the time 05:00, not a "
            "UTC offset); give one date and one time"
        )
    if delta is not None:
        return timedelta(seconds=delta)
    if hour is None and day is None and mdy is None:  # (parse_time returns 0)
        raise SbatchError(f"--begin={val!r}: Invalid --begin specification; {_BEGIN_HELP}")
    clock = time(hour or 0, minute or 0, second or 0)
    if day is not None:
        if day == 0 and hour is None:  # today's 00:00 has passed: at once
            return timedelta(0)
        return TimeOfDay(clock, day=day)
    if mdy is not None:
        month, mday, year = mdy
        if year is None:
            try:
                return TimeOfDay(clock, month=month, mday=mday)
            except SbatchError:
                raise SbatchError(
                    f"--begin={val!r}: {month:02d}/{mday:02d} is not a date"
                ) from None
        try:
            return _mktime(year, month, mday) + _since_midnight(clock)
        except (ValueError, OverflowError):
            raise SbatchError(help_) from None
    return TimeOfDay(clock)


def _now_delta(s: str, low: str, i: int, val: str) -> tuple[int, int]:
    """After ``now``: blanks, then the end or ``+N``/``-N`` with an optional unit (parse_time's
    ``_get_delta``); the position after it and the seconds."""
    n = len(s)
    while i < n and s[i] in " \t":
        i += 1
    if i >= n or s[i] == "\n":
        return i, 0
    if s[i] not in "+-":
        raise SbatchError(f"--begin={val!r}: Invalid time specification; {_BEGIN_HELP}")
    sign = -1 if s[i] == "-" else 1
    count, digits, j = 0, 0, i + 1
    while j < n and s[j] != "\n":
        if s[j].isspace():
            j += 1
            continue
        unit = next(((u, k) for u, k in _UNITS if low.startswith(u, j)), None)
        if unit is not None:
            j += len(unit[0])
            count *= unit[1]
            break
        if s[j] in "0123456789":
            count, digits = count * 10 + int(s[j]), digits + 1
            j += 1
            continue
        word = re.match(r"[a-z]*", low[j:]).group()
        raise SbatchError(
            f"--begin={val!r}: Invalid time specification: {word or s[j]!r} is not a unit Slurm "
            "22.05 knows (seconds, minutes, hours, days, weeks, or the singular, spelt out: "
            f"e.g. now+1hour, now+30minutes); {_BEGIN_HELP}"
        )
    if not digits:
        raise SbatchError(
            f"--begin={val!r}: Invalid time specification (now{s[i]} needs a "
            f"number, e.g. now{s[i]}1hour); {_BEGIN_HELP}"
        )
    return j, sign * count


def _clock(s: str, low: str, pos: int, help_: str) -> tuple[int, tuple[int, int, int]]:
    """``HH:MM[:SS] [AM|PM]`` at ``pos`` (parse_time's ``_get_time``): the position after it
    and (hour, minute, second)."""

    def two(i: int) -> int:
        if not (s[i : i + 2].isdigit() and len(s[i : i + 2]) == 2 and s[i : i + 2].isascii()):
            raise SbatchError(help_)
        return int(s[i : i + 2])

    i = pos
    if s[i + 1] == ":":
        hour, i = int(s[i]), i + 1
    else:
        hour, i = two(i), i + 2
    if hour > 23 or s[i : i + 1] != ":":
        raise SbatchError(help_)
    minute, i = two(i + 1), i + 3
    second = 0
    if s[i : i + 1] == ":":
        second, i = two(i + 1), i + 3
    if minute > 59 or second > 59:
        raise SbatchError(help_)
    while i < len(s) and s[i].isspace():
        i += 1
    half = low[i : i + 2]
    if half == "pm":  # 12pm is noon, 13pm no time
        hour = 12 if hour == 12 else hour + 12
        i += 2
    elif half == "am":  # 12am is midnight
        hour = 0 if hour == 12 else hour
        i += 2
    if hour > 23 or (half == "am" and hour > 11):
        raise SbatchError(f"{help_} (with AM/PM the hour is 0 to 12)")
    return i, (hour, minute, second)


def _date(s: str, pos: int, help_: str) -> tuple[int, tuple[int, int, int | None]]:
    """``YYYY-MM-DD`` or ``MMDD[YY]``, ``MM/DD[/YY]``, ``MM.DD[.YY]`` at ``pos`` (parse_time's
    ``_get_date``): the position after it and (month, day, year or None: a year ``00`` is
    none, as parse_time reads it)."""
    n = len(s)

    def num(i: int, most: int) -> tuple[int, int]:  # 1..most digits (at least one)
        j = i
        while j < n and j - i < most and s[j] in "0123456789":
            j += 1
        if j == i:
            raise SbatchError(help_)
        return int(s[i:j]), j

    year = None
    if n >= pos + 7 and s[pos + 4 : pos + 5] == "-" and s[pos + 7 : pos + 8] == "-":
        if not all(c in "0123456789" for c in s[pos : pos + 4]):
            raise SbatchError(help_)
        year = int(s[pos : pos + 4])
        month, i = num(pos + 5, 2)
        mday, i = num(i + 1, 2)
    else:
        month, i = num(pos, 2)
        if s[i : i + 1] in (".", "/"):
            i += 1
        mday, i = num(i, 2)
        if s[i : i + 1] in (".", "/"):
            i += 1
        if i < n and s[i] in "0123456789":
            if s[i + 1 : i + 2] not in tuple("0123456789"):
                raise SbatchError(help_)
            yy, i = int(s[i : i + 2]), i + 2
            year = 2000 + yy if yy else None
    if not 1 <= month <= 12 or not 1 <= mday <= 31:
        raise SbatchError(help_)
    return i, (month, mday, year)


def _format_begin(b: timedelta | datetime | TimeOfDay) -> str:
    """``begin`` as ``--begin`` text that :func:`_read_begin` reads back the same."""
    if isinstance(b, timedelta):
        seconds = int(b.total_seconds())
        return f"now-{-seconds}" if seconds < 0 else f"now+{seconds}"
    if isinstance(b, TimeOfDay):
        at = f"{b.at.hour:02d}:{b.at.minute:02d}:{b.at.second:02d}"
        if b.month is not None:
            return f"{b.month:02d}/{b.mday:02d}" + (f"-{at}" if b.at != time(0) else "")
        if b.day in (0, 1):  # today / tomorrow, at a time (tomorrowT10:00:00)
            word = "today" if b.day == 0 else "tomorrow"
            return word + (f"T{at}" if b.at != time(0) else "")
        return at
    return f"{b.year:04d}-{b.month:02d}-{b.day:02d}T{b.hour:02d}:{b.minute:02d}:{b.second:02d}"
