"""Read and write ``sacct`` exports: Slurm's accounting records as one job table.

``read_sacct()`` turns what real Slurm writes (``-P``/``-p``, any delimiter, with or without
a header, gzip/bz2/xz, ``--json``) into the job table of :mod:`slurmlab.records.schema`;
``write_sacct()`` writes a table back as ``--parsable2`` text that reads to the same table.

The design, in short:

* **One row per allocation run.** The returned frame holds the allocation rows (``123``,
  ``123_4``, ``123+0``, and pending array ranges such as ``123_[1-5%2]``; and, beside a
  numeric JobIDRaw, a JobID that is a name, as ``write_sacct`` writes a simulation's scenario
  ids). With ``sacct --duplicates`` a requeued job appears once per run, all with the same
  JobID: the key of a run is ``(JobIDRaw, Submit)``, never JobID alone. Derived columns:
  ``ArrayJobID``, ``ArrayTaskID``, ``ArrayTaskRange`` (``"1-5%2"`` on a pending range row),
  ``ArrayTasks`` (how many tasks the row stands for: 3 for ``123_[3-5%2]``, else 1),
  ``HetJobID``, ``HetJobOffset``, ``NGPUS`` and ``GPUType`` (what was allocated: AllocTRES,
  else the pre-20.11 AllocGRES; else what was requested: ReqTRES, else ReqGRES; typed and
  untyped entries are the same GPUs),
  ``ReqMemPer`` (``"cpu"``/``"node"`` for the legacy ``4000Mc``/``1Gn`` suffix, NA when
  absent), ``ExitStatus``/``ExitSignal`` and ``StartedBy`` (``main``, ``backfill`` or
  ``submit`` from Flags' SchedMain, SchedBackfill, SchedSubmit). An export without NCPUS
  (AllocCPUS), NNodes (AllocNodes) or ReqMem gets them from AllocTRES's ``cpu=``/``node=``
  (ReqTRES's where AllocTRES is blank) and ReqTRES's ``mem=``, where sacct's print.c takes them.
* **Steps in a second frame.** ``.batch``, ``.extern``, ``.interactive`` and ``.0 .. .N`` rows
  are returned by :func:`steps` (``slurmlab.sacct_steps(jobs)``: the steps of the jobs still in ``jobs``, plus
  steps whose allocation row is not in the export). Each step row carries ``AllocJobID``,
  ``StepID`` and ``JobState``: the state of its allocation run (a TIMEOUT job's ``.batch``
  says CANCELLED; with ``--duplicates`` a step belongs to the run it started in). The
  allocation rows also receive what only steps know: ``MaxRSS`` (MB, max over steps),
  ``MemUsed`` (MB, max over steps of the memory of all the step's tasks: TRESUsageInTot's
  ``mem``, the sum of each task's peak, else MaxRSS x NTasks, the largest task's peak times
  the tasks; an upper bound of the job's peak either way) and
  TotalCPU when the allocation row lacks it. The step frame lives in ``attrs["steps"]`` inside
  a small holder that pandas copies by reference (a DataFrame directly in ``attrs`` would be
  deep-copied by every operation and breaks ``pd.concat``).
* **Units.** Times are naive ``datetime64[ns]``: text times (``2024-01-01T10:00:00``) as
  written, the local time of the host that ran sacct; epoch seconds (``SLURM_TIME_FORMAT=%s``
  and every ``--json`` export) converted to ``tz``, and to UTC when no ``tz`` is given (with
  a warning saying so). Naive local times repeat an hour when daylight-saving time ends and
  skip one when it starts, so rows whose epoch times fall on both sides of such a change are
  warned about (their waits are off by the hour; ``attrs["dst_lines"]``): read without
  ``tz`` to keep UTC, which has no such change. Rows of text times on both sides of one in
  ``tz``, when it is given, are warned about too (export with ``TZ=UTC sacct``).
  ``Unknown``, ``None`` and blank give NaT;
  ``tz`` is recorded in ``attrs["tz"]`` and a name that is not a time zone is an error.
  Durations are ``timedelta64[ns]`` (``*Raw`` columns win when present; ``UNLIMITED`` and
  ``Partition_Limit`` give NaT; without Elapsed it is CPUTime / NCPUS); ReqMem is whole MB
  (Int64); other sizes (MaxRSS, AveRSS, MaxVMSize, disk I/O) are float MB. A size without a
  unit is read in the unit sacct prints it from: bytes for MaxRSS, AveRSS, MaxVMSize and
  AveVMSize (``--noconvert`` writes ``1174753280``: 1120.3 MB), MB for ReqMem and disk I/O.
  States keep the first word only (``CANCELLED by 1234`` is CANCELLED, the uid goes to
  ``CancelledBy``); abbreviations are expanded; a state sacct does not have (``INVALID``) is
  kept as written, counted in ``attrs["unknown_states"]`` and warned about, with its lines
  (on a job's last row it becomes the job's final state). Columns slurmlab does not know are
  kept as text.
* **Bad rows.** ``errors="raise"`` stops at the first malformed row with a
  :class:`SacctParseError` naming file, line, column, value and a fix. ``"warn"`` leaves such
  rows out, counts them in ``attrs["bad_rows"]`` (lines in ``attrs["bad_lines"]``) and warns
  once, with the reason of each (the error ``"raise"`` gives: file, line, column, value and
  fix), the first ten and a count of the rest. ``"coerce"`` turns bad values into NA (rows
  whose JobID or field count cannot be understood are still left out and counted).
* **Rows that are not one line of the header's width** are read in Python, by rules that
  never guess: the delimiter inside a free-text value (``|`` in a JobName, ``[a|b]`` in
  Constraints) is placed back when exactly one reading of the row makes every other field fit
  its column (a last empty field is --parsable's trailing delimiter only when that reading
  fits); a row that reads more than one way (``|`` in two free-text columns) is an error
  naming the columns and the fix (a delimiter absent from the data). A line that does not
  start with a JobID continues the row before it (a newline inside a value, the last column
  included). Rows with fewer fields are padded with blanks (``attrs["padded_rows"]``) only
  on evidence of an export with fewer columns appended to this one: a run of at least five
  consecutive such rows, or a header line of their own (a header further down switches the
  columns of the rows after it, by name); either way a warning names how many, their first
  lines, the field list and the fields left blank (real sacct writes every field of every
  row: a short row is never its own doing). A lone short row is reported as truncated, with
  both field counts. A file whose rows mostly do not fit the header gets one error (wrong
  field list or delimiter). Repaired rows are counted in ``attrs["repaired_rows"]``.
* **Repeated rows and several exports.** A row that repeats an earlier row exactly (exports
  joined with ``cat``, or whose -S/-E windows overlap) is left out with a warning naming both
  lines, and counted in ``attrs["duplicate_rows"]`` (lines in ``["duplicate_lines"]``).
  ``read_sacct([day1, day2, ...])`` reads each file and joins them with :func:`concat_sacct`
  (steps kept, a run two files list kept once: rows of different files with the same
  JobIDRaw and Submit, as slurmdbd keys a record, are one run, kept as its most final row,
  so a job RUNNING in one day's export and COMPLETED in the next counts once, COMPLETED;
  ``sacct -T`` exports, whose Start is cut to each -S, join into the whole run); ``pd.concat``
  would drop the steps (a warning from :func:`steps` says so) and count such runs twice.
  One file that lists a run twice, differently, after a header again (``cat day1 day2``) or
  after a RUNNING/PENDING row of it (``sacct -n`` exports appended) is such exports joined,
  and is read as that list, with a warning.
* **Values sacct cannot write are bad values**, as malformed ones are: out of range (a time
  outside 1678..2262, a ``*Raw`` duration over 292 years, an exit code over 255, 2**31 GPUs),
  negative counts, impossible dates (``2024-02-30``), durations other than ``D-HH:MM:SS``,
  ``HH:MM:SS`` and ``MM:SS[.mmm]`` with two-digit minutes and seconds below 60, and array
  ranges that are reversed, empty or beyond MaxArraySize (4,000,001 tasks); an AllocTRES or
  ReqTRES entry that is not a count (``cpu=abc``; sizes such as ``mem=64G`` have a unit), a
  TRES given twice (``gres/gpu=4,gres/gpu=8``), or a ``gres/gpu`` total below its typed
  entries' sum; a NodeList that is not a hostlist (``node[1-``); a JobIDRaw that is not a
  number; and times that contradict each other: End before Start by more than a
  daylight-saving change (within one: a warning), or, for a run that ended, an Elapsed other
  than End - Start - Suspended (such an error names all the columns and their values).
* **Warnings.** A file whose last line has no line end (sacct ends every line: it may be
  truncated); a field list or header naming a field sacct does not have (a did-you-mean
  suggestion; other unknown header columns are kept quietly, as text); padded rows and
  unknown states (above, as :class:`SacctParseWarning`).
* **attrs.** ``source``, ``format`` (``parsable``/``parsable2``/``json``), ``delimiter``,
  ``tz``, ``fields`` (the columns as read), ``bad_rows``, ``bad_lines``, ``padded_rows``,
  ``repaired_rows``, ``duplicate_rows``, ``duplicate_lines``, ``dst_lines``,
  ``unknown_states`` and ``steps``.

The hot path of a well-formed file is vectorised: pyarrow's CSV reader splits the fields
(rows with the wrong field count go to a slow path), RE2 regexes validate durations, sizes
and job ids, and columns with repeated values (states, TRES strings, time limits, times)
are parsed once per distinct value.
"""

from __future__ import annotations

import bz2
import datetime
import difflib
import gzip
import io
import json
import lzma
import math
import numbers
import os
import re
import types
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as _field
from pathlib import Path
from typing import IO, Literal

import hostlist
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from slurmlab.errors import SlurmlabError, warn_at_caller
from slurmlab.paths import home_path
from slurmlab.records.schema import (
    JOB_COLUMNS,
    STATE_ABBREVIATIONS,
    STATES,
    TERMINAL_STATES,
    conform,
)
from slurmlab.spec.units import format_memory_mb

__all__ = [
    "JobIdParts",
    "SacctParseError",
    "SacctParseWarning",
    "check_job_table",
    "check_time_zone",
    "concat_sacct",
    "expand_nodelist",
    "gres_gpus",
    "parse_duration",
    "parse_job_id",
    "parse_memory",
    "parse_reqmem",
    "parse_state",
    "parse_timestamp",
    "parse_tres",
    "read_sacct",
    "steps",
    "tres_gpus",
    "write_sacct",
]

ErrorMode = Literal["raise", "warn", "coerce"]
Source = str | os.PathLike | bytes | IO[str] | IO[bytes]


class SacctParseError(SlurmlabError):
    """A sacct export, or one value in it, that slurmlab cannot read.

    The message names the file, the line, the column and the value, says which rule the
    value breaks and how to fix the export; the parts are also attributes.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: str | None = None,
        value: str | None = None,
        hint: str | None = None,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.problem, self.file, self.line = problem, file, line
        self.column, self.value, self.hint = column, value, hint
        #: (a --json export: the job entry, ``jobs[3] (job_id 4)``, and the JSON field, such
        #: as ``time.start``; ``value`` is then the value as the JSON writes it)
        self.record, self.field = record, field
        if record is not None:  # (a row of a --json export is named by its job entry)
            named = f" ({column})" if column and field and column != field else ""
            places = (file, record, f"field {field}{named}" if field else None)
        else:
            places = (
                file,
                f"line {line}" if line is not None else None,
                f"column{'s' if ', ' in column else ''} {column}" if column else None,
            )
        where = ", ".join(part for part in places if part)
        text = f"{where}: " if where else ""
        if value is not None:
            shown = value if len(value) <= 80 else value[:77] + "..."
            text += f"{shown}: " if record is not None else f"{shown!r}: "
        text += problem
        if hint:
            text += f"; {hint}"
        super().__init__(text)

    def __reduce__(self):  # keep the keyword-only fields when pickled (multiprocessing)
        return (
            _rebuild_error,
            (
                self.problem, self.file, self.line, self.column, self.value, self.hint,
                self.record, self.field,
            ),
        )  # fmt: skip


def _rebuild_error(problem, file, line, column, value, hint, record=None, field=None):
    return SacctParseError(
        problem, file=file, line=line, column=column, value=value, hint=hint, record=record,
        field=field,
    )  # fmt: skip


class SacctParseWarning(UserWarning):
    """Rows of a sacct export were not read as written: left out (``errors="warn"``, a
    repeated row, ``#`` lines), padded (fewer fields than the field list), or with a State
    sacct does not have."""


# --------------------------------------------------------------------------- field names

#: sacct --helpformat (Slurm 14.03 .. 25.11, plus the removed ReqGRES/AllocGRES/Reserved).
SACCT_FIELDS: tuple[str, ...] = (
    "Account", "AdminComment", "AllocCPUS", "AllocGRES", "AllocNodes", "AllocTRES", "AssocID",
    "AveCPU", "AveCPUFreq", "AveDiskRead", "AveDiskWrite", "AvePages", "AveRSS", "AveVMSize",
    "BlockID", "Cluster", "Comment", "Constraints", "ConsumedEnergy", "ConsumedEnergyRaw",
    "Container", "CPUTime", "CPUTimeRAW", "DBIndex", "DerivedExitCode", "Elapsed",
    "ElapsedRaw", "Eligible", "End", "ExitCode", "Extra", "FailedNode", "Flags", "GID",
    "Group", "JobID", "JobIDRaw", "JobName", "Layout", "Licenses", "MaxDiskRead",
    "MaxDiskReadNode", "MaxDiskReadTask", "MaxDiskWrite", "MaxDiskWriteNode",
    "MaxDiskWriteTask", "MaxPages", "MaxPagesNode", "MaxPagesTask", "MaxRSS", "MaxRSSNode",
    "MaxRSSTask", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask", "McsLabel", "MinCPU",
    "MinCPUNode", "MinCPUTask", "NCPUS", "NNodes", "NodeList", "NTasks", "Partition",
    "Planned", "PlannedCPU", "PlannedCPURAW", "Priority", "QOS", "QOSRAW", "QOSREQ", "Reason",
    "ReqCPUFreq", "ReqCPUFreqGov", "ReqCPUFreqMax", "ReqCPUFreqMin", "ReqCPUS", "ReqGRES",
    "ReqMem", "ReqNodes", "ReqTRES", "Reservation", "ReservationId", "Reserved", "ResvCPU",
    "ResvCPURAW", "Restarts", "SegmentSize", "SLUID", "Start", "State", "StdErr", "StdIn",
    "StdOut", "Submit", "SubmitLine", "Suspended", "SystemComment", "SystemCPU", "Timelimit",
    "TimelimitRaw", "TotalCPU", "TRESUsageInAve", "TRESUsageInMax", "TRESUsageInMaxNode",
    "TRESUsageInMaxTask", "TRESUsageInMin", "TRESUsageInMinNode", "TRESUsageInMinTask",
    "TRESUsageInTot", "TRESUsageOutAve", "TRESUsageOutMax", "TRESUsageOutMaxNode",
    "TRESUsageOutMaxTask", "TRESUsageOutMin", "TRESUsageOutMinNode", "TRESUsageOutMinTask",
    "TRESUsageOutTot", "UID", "User", "UserCPU", "WCKey", "WCKeyID", "WorkDir",
)  # fmt: skip
_CANONICAL = {name.lower(): name for name in SACCT_FIELDS}

_TIME_FIELDS = frozenset({"Submit", "Eligible", "Start", "End"})
_DURATION_FIELDS = frozenset(
    {"Elapsed", "Timelimit", "Suspended", "CPUTime", "TotalCPU", "UserCPU", "SystemCPU",
     "AveCPU", "MinCPU", "Planned", "PlannedCPU", "Reserved", "ResvCPU"}
)  # fmt: skip
_INT_FIELDS = frozenset(
    {"NNodes", "NCPUS", "AllocCPUS", "ReqCPUS", "NTasks", "AllocNodes", "Restarts", "Priority",
     "ElapsedRaw", "CPUTimeRAW", "TimelimitRaw", "PlannedCPURAW", "ResvCPURAW", "UID", "GID"}
)  # fmt: skip
_MEMORY_FIELDS = frozenset(
    {"MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize", "MaxDiskRead", "MaxDiskWrite",
     "AveDiskRead", "AveDiskWrite"}
)  # fmt: skip
_EXIT_FIELDS = frozenset({"ExitCode", "DerivedExitCode"})
#: Free text that may contain the delimiter; a row with extra fields is repaired into one.
_FREE_TEXT = (
    "JobName", "Constraints", "Comment", "AdminComment", "SystemComment", "SubmitLine",
    "WorkDir", "StdOut", "StdErr", "StdIn", "Extra", "Reason",
)  # fmt: skip
#: Columns computed by the reader, never read from or written to sacct text.
DERIVED_COLUMNS = (
    "ArrayJobID", "ArrayTaskID", "ArrayTaskRange", "ArrayTasks", "HetJobID", "HetJobOffset",
    "NGPUS", "GPUType", "ReqMemPer", "ExitStatus", "ExitSignal", "CancelledBy", "MemUsed",
    "StartedBy", "AllocJobID", "StepID", "JobState",
)  # fmt: skip

# INVALID: what 22.05 writes for Reserved of a job cancelled while pending
_MISSING = ("", "Unknown", "UNKNOWN", "None", "NONE", "N/A", "(null)", '""', "INVALID")
_NO_LIMIT = ("UNLIMITED", "Partition_Limit", "Partition_limit", "INFINITE")

_DELIMITERS = ("^|^", "\u2603", "\t", "|", ";")

# ------------------------------------------------------------------- scalar field parsers

#: What sacct writes (``secs2time_str``/``_elapsed_time`` in its source): ``D-HH:MM:SS``,
#: ``HH:MM:SS`` or ``MM:SS.mmm``, minutes and seconds always two digits (and below 60, checked
#: after the match), hours two digits after a day part. Hours without days may have 1 to 4
#: digits (hand-made files write ``1:00:00``). Digit counts are bounded so that any match
#: fits in int64 nanoseconds (< 292 years).
_DURATION_RE = (
    r"^(?:(?P<d>\d{1,5})-(?P<h>\d\d):|(?P<hh>\d{1,4}):)?(?P<m>\d\d):(?P<s>\d\d)"
    r"(?:\.(?P<f>\d{1,9}))?$"
)
#: Any duration-like text: a value that matches this but not ``_DURATION_RE`` is one sacct
#: never writes (a field of one digit, 60 seconds or more, a cut or too large value).
_LOOSE_DURATION_RE = re.compile(r"^(?:\d+-)?(?:\d+:)?\d+:\d+(?:\.\d+)?$", re.ASCII)
#: The largest MaxArraySize slurm.conf(5) allows: array task ids run from 0 to 4,000,000.
LARGEST_ARRAY_SIZE = 4_000_001
#: int64 nanoseconds hold +-292 years: the times a job table can hold.
_MIN_TIME, _MAX_TIME = pd.Timestamp("1678-01-01"), pd.Timestamp("2262-04-11")
_MEMORY_RE = r"^(?P<num>\d+(?:\.\d*)?|\.\d+)(?P<unit>[KMGTPE]?)(?P<per>[nc]?)$"
# (a step of a heterogeneous step, ``srun ... : ...`` in one allocation, ends in ``+N``, its
# component: log_build_step_id_str (log.c) appends ``+%u`` when step_het_comp is set, and
# sacct's JobID and JobIDRaw (print.c) are built with it: ``61034.0+1``)
_JOBID_RE = (
    r"^(?P<base>\d+)"
    r"(?:_(?P<task>\d{1,9})|_\[(?P<range>[0-9,%\-:.]*)\]?|\+(?P<het>\d{1,9}))?"
    r"(?:\.(?P<step>[A-Za-z0-9_\-]+(?:\+\d{1,9})?))?$"
)
#: A JobID that is a name, not a number: what ``write_sacct`` writes for a simulation's
#: scenario ids (``big``, ``sweep_3``). It starts with a letter and holds no space, ``.``,
#: ``+``, ``[`` or ``]`` (they would read as a step, a het-job component or an array range);
#: it is read only beside a numeric JobIDRaw, so a shifted column is still an error.
_NAME_RE = r"^\p{L}[^\s.+\[\]]*$"
_RAW_ID_RE = r"^\s*\d+\s*$"
#: Derived id columns a file may carry for rows whose JobID is a name (never sacct's own).
_ID_COLUMNS = {"ArrayJobID": False, "ArrayTaskID": True, "HetJobID": False, "HetJobOffset": True}
#: sacct's Flags -> StartedBy (which scheduler started the job).
_STARTED_BY = {"SchedBackfill": "backfill", "SchedMain": "main", "SchedSubmit": "submit"}
#: code:signal; each part 0..255 (an 8-bit exit status, a signal number), checked after the match
_EXIT_RE = r"^\d{1,18}:\d{1,18}$"
_JOBID_PY = re.compile(_JOBID_RE, re.ASCII)
_UNIT_MB = {"": None, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}
_UNIT_MB["E"] = 1024.0**4
#: What a size written without a unit means, in MB: the unit sacct prints it from
#: (``convert_num_unit(value, ..., orig_type, ...)`` in src/sacct/print.c, checked in 22.05.8).
#: Since step usage became TRES (by 18.08: NEWS, seff moves from rss_max to
#: tres_usage_in_max in 18.08.5), RSS and virtual memory are counts in bytes
#: (``UNIT_NONE``), so a bare value is bytes: every value with ``--noconvert``, and by default
#: one below 1024 or not a multiple of 512 (``CONVERT_NUM_UNIT_EXACT`` leaves it unconverted,
#: as an AveRSS can be). Disk I/O is printed from MB (``UNIT_MEGA``) and ReqMem from MB, so a
#: bare value there is MB. Older releases printed RSS from KB (``UNIT_KILO``), always with
#: its ``K``: a bare value other than 0 never came from them.
_BYTES = 1 / 1024**2
_BARE_MB = {
    "ReqMem": 1.0,
    **dict.fromkeys(("MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize"), _BYTES),
    **dict.fromkeys(("MaxDiskRead", "MaxDiskWrite", "AveDiskRead", "AveDiskWrite"), 1.0),
}


def parse_duration(text: str | None) -> pd.Timedelta | None:
    """Parse a sacct duration: ``D-HH:MM:SS``, ``HH:MM:SS`` or ``MM:SS[.mmm]`` (a two-part
    value is MM:SS; minutes and seconds are two digits below 60, as sacct writes them).

    Returns None for a missing value or a limit sacct shows as ``UNLIMITED`` or
    ``Partition_Limit``.

    >>> parse_duration("1-02:03:04")
    Timedelta('1 days 02:03:04')
    >>> parse_duration("31:09.458")
    Timedelta('0 days 00:31:09.458000')
    >>> parse_duration("UNLIMITED") is None
    True
    """
    text = _clean(text)
    if text in _MISSING or text in _NO_LIMIT:
        return None
    match = re.match(_DURATION_RE, text, re.ASCII)
    if not match or _duration_parts_wrong(match):
        problem, hint = _duration_problem(text)
        raise SacctParseError(problem, value=text, hint=hint)
    d, m, s, f = (match.group(k) or "" for k in "dmsf")
    h = match.group("h") or match.group("hh") or ""
    seconds = ((int(d or 0) * 24 + int(h or 0)) * 60 + int(m)) * 60 + int(s)
    return pd.Timedelta(seconds * 10**9 + int(f.ljust(9, "0") or 0), unit="ns")


def _duration_parts_wrong(match: re.Match) -> bool:
    """Minutes or seconds of 60 and more, or 24 hours and more after a day part."""
    return (
        int(match.group("m")) >= 60
        or int(match.group("s")) >= 60
        or (match.group("h") is not None and int(match.group("h")) >= 24)
    )


def _duration_problem(text: str) -> tuple[str, str]:
    """(problem, hint) for a value that is not a duration sacct writes."""
    hint = (
        "sacct writes 1-02:03:04, 02:03:04 or 03:04.567 (two-digit minutes and seconds, "
        "below 60): the value may be cut short (a truncated file?) or the columns shifted"
    )
    if _LOOSE_DURATION_RE.match(text):
        days = int(text.split("-", 1)[0]) if "-" in text else 0
        if days > 99999 or any(len(p) > 18 for p in re.split(r"[-:.]", text)):
            return "is out of range: longer than a duration slurmlab can hold (292 years)", hint
        return "is not a duration sacct writes [D-HH:]MM:SS[.mmm]", hint
    return "is not a sacct duration [D-][HH:]MM:SS[.mmm]", hint


def parse_memory(text: str | None, *, bare_unit_mb: float = _BYTES) -> float | None:
    """Parse a sacct size (``1828196K``, ``2659.95M``, ``2T``, ``0``) into MB (MiB).

    A legacy ``n``/``c`` suffix is accepted and ignored (see :func:`parse_reqmem`); a bare
    number is in ``bare_unit_mb`` MB: bytes by default, as sacct writes MaxRSS, AveRSS and
    MaxVMSize without a unit (``--noconvert``; sizes below 1 KiB); MB for ReqMem and disk I/O.

    >>> parse_memory("2048K")
    2.0
    >>> parse_memory("1.5G")
    1536.0
    >>> parse_memory("1174753280")  # sacct --noconvert: bytes
    1120.33203125
    """
    text = _clean(text)
    if text in _MISSING:
        return None
    match = re.match(_MEMORY_RE, text, re.ASCII)
    if not match:
        raise SacctParseError(
            "is not a sacct size (a number with an optional K/M/G/T/P unit)",
            value=text,
            hint="sacct writes sizes such as 1828196K, 2659.95M or 2T",
        )
    factor = _UNIT_MB[match.group("unit")]
    value = float(match.group("num")) * (bare_unit_mb if factor is None else factor)
    if not value < 2.0**53:  # inf or absurd: no machine has this much memory
        raise SacctParseError(
            "is out of range: too large to be a memory size", value=text, hint="check the column"
        )
    return value


def parse_reqmem(text: str | None) -> tuple[int | None, str | None]:
    """Parse ReqMem into (whole MB, per) where per is ``"cpu"``, ``"node"`` or None.

    Up to Slurm 21.08 ReqMem ends in ``c`` (per CPU) or ``n`` (per node); later releases
    drop the suffix and report the job's request. A bare number is MB.

    >>> parse_reqmem("4000Mc")
    (4000, 'cpu')
    >>> parse_reqmem("1Gn")
    (1024, 'node')
    >>> parse_reqmem("199G")
    (203776, None)
    """
    text = _clean(text)
    if text in _MISSING:
        return None, None
    mb = parse_memory(text, bare_unit_mb=1.0)
    per = {"c": "cpu", "n": "node"}.get(text[-1])
    return (None if mb is None else math.ceil(mb) if mb < 1 else int(round(mb))), per


def parse_tres(text: str | None) -> dict[str, str]:
    """Split a TRES string into a dict, in the order written.

    >>> parse_tres("billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1")["gres/gpu:a100"]
    '4'
    """
    text = _clean(text)
    if text in _MISSING:
        return {}
    out: dict[str, str] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SacctParseError(
                "is not a TRES list key=value,key=value",
                value=text,
                hint="sacct writes TRES as billing=8,cpu=8,gres/gpu=4,mem=64G,node=1",
            )
        key = key.strip()
        if key in out:  # (sacct writes each TRES once: which one would be right?)
            raise SacctParseError(
                f"{key} is given twice ({out[key]} and {value.strip()})",
                value=text,
                hint="sacct writes each TRES once, as billing=8,cpu=8,gres/gpu=4,mem=64G,node=1; "
                "the value is corrupt or was edited: keep the right one",
            )
        out[key] = value.strip()
    return out


#: TRES whose amount sacct writes as a size with a unit (``mem=64G``); the others are counts.
_TRES_SIZES = ("mem", "vmem", "fs/", "bb/", "gres/gpumem")
_TRES_COUNT_RE = re.compile(r"^\d+$", re.ASCII)
_TRES_SIZE_RE = re.compile(r"^\d+(?:\.\d+)?[KMGTPE]?$", re.ASCII)
_TRES_HINT = (
    "sacct writes TRES as billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1 (counts, "
    "and sizes with a unit); the value is corrupt or the columns are shifted"
)


def _allocated_tres(text: str | None) -> tuple[int | None, str | None]:
    """(GPUs, GPU type) of an AllocTRES/ReqTRES string, every entry checked as sacct writes
    it: each TRES once, counts whole numbers, sizes a number with an optional unit."""
    pairs = parse_tres(text)
    gpus = _gpu_counts(pairs.items())  # (GPU entries first, with their own messages)
    for key, value in pairs.items():
        size = key.startswith(_TRES_SIZES)
        if not (_TRES_SIZE_RE if size else _TRES_COUNT_RE).match(value):
            what = (
                "a size (a number with an optional K/M/G/T/P unit, as mem=64G)"
                if size
                else "a count (a whole number of at least 0)"
            )
            raise SacctParseError(f"{key}={value} is not {what}", value=text, hint=_TRES_HINT)
    return gpus


def _gpu_counts(pairs: Iterable[tuple[str, str]]) -> tuple[int | None, str | None]:
    """GPUs from gres/gpu entries: the untyped count if present (the total, never smaller
    than the typed sum), else the typed sum."""
    pairs = list(pairs)
    untyped, typed, types, parts = None, 0, [], []
    for key, value in pairs:
        if key != "gres/gpu" and not key.startswith("gres/gpu:"):
            continue
        if not _digits(value.strip()):
            raise SacctParseError(
                f"GPU count of {key} is not a whole number of at least 0",
                value=value,
                hint="a TRES GPU entry looks like gres/gpu:a100=4",
            )
        count = int(value)
        if count >= 2**31:  # no node holds 2 billion GPUs: Slurm's GRES counts are 32-bit
            raise SacctParseError(
                f"GPU count of {key} is out of range (2**31 or more)",
                value=value,
                hint="a TRES GPU entry looks like gres/gpu:a100=4; check the column",
            )
        if key == "gres/gpu":
            untyped = count
        else:
            typed += count
            types.append(key.split(":", 1)[1])
            parts.append(f"{key}={count}")
    gpu_type = ",".join(sorted(set(types))) or None
    if untyped is not None and untyped < typed:  # sacct: the total, and each type's part
        raise SacctParseError(
            f"gres/gpu={untyped} is fewer GPUs than its typed entries"
            + (
                f" ({parts[0]})"
                if len(parts) == 1
                else f" add up to ({' + '.join(parts)} = {typed})"
            ),
            value=",".join(f"{key}={value}" for key, value in pairs),
            hint="sacct writes gres/gpu as the job's GPUs in all and gres/gpu:TYPE as the part "
            "of each type, so the total is at least their sum; the value is corrupt or was edited",
        )
    if untyped is not None:
        return untyped, gpu_type
    return (typed if types else None), gpu_type


def tres_gpu_type(alloc: str | None, req: str | None = None) -> str | None:
    """GPUType as the reader derives it for a row: the GPU type(s) of AllocTRES's typed
    ``gres/gpu:TYPE`` entries, or of ReqTRES's when AllocTRES is blank (a pending job); None
    when that list has no typed entry (a cluster whose AccountingStorageTRES tracks only
    ``gres/gpu`` writes none, so sacct cannot tell the type).

    >>> tres_gpu_type("cpu=8,gres/gpu:a100=4,gres/gpu=4,node=1")
    'a100'
    >>> tres_gpu_type("cpu=8,gres/gpu=4,node=1", "cpu=8,gres/gpu:a100=4,gres/gpu=4") is None
    True
    """
    for text in (alloc, req):
        if _clean(text) not in _MISSING_SET:
            return _allocated_tres(text)[1]
    return None


def tres_gpus(text: str | None) -> int | None:
    """GPUs in a TRES string; typed and untyped entries are the same GPUs, never summed.

    >>> tres_gpus("billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1")
    4
    >>> tres_gpus("gres/gpu:a100=1,gres/gpu:a40=2")
    3
    >>> tres_gpus("cpu=8,mem=10G") is None
    True
    """
    return _gpu_counts(parse_tres(text).items())[0]


_GRES_ITEM_RE = re.compile(
    r"^(?P<name>[^:()]+)(?::(?P<type>[^:()]+))?(?::(?P<count>\d+))?(?:\(.*\))?$",
    re.ASCII,
)


def gres_gpus(text: str | None) -> int | None:
    """GPUs in a pre-20.11 ReqGRES/AllocGRES string (``gpu:4``, ``gpu:V100:2(IDX:0-1)``).

    >>> gres_gpus("hbm:0,gpu:V100:2(IDX:0-1)")
    2
    """
    text = _clean(text)
    if text in _MISSING:
        return None
    total, seen = 0, False
    for item in re.split(r",(?![^(]*\))", text):
        match = _GRES_ITEM_RE.match(item.strip())
        if not match:
            raise SacctParseError(
                "is not a GRES list",
                value=text,
                hint="legacy GRES looks like gpu:4 or gpu:V100:2(IDX:0-1)",
            )
        if match.group("name") != "gpu":
            continue
        seen = True
        count = match.group("count")
        if count is None and match.group("type") and _digits(match.group("type")):
            count = match.group("type")
        total += int(count) if count is not None else 1
        if total >= 2**31:
            raise SacctParseError(
                "has a GPU count that is out of range (2**31 or more)",
                value=text,
                hint="legacy GRES looks like gpu:4 or gpu:V100:2(IDX:0-1); check the column",
            )
    return total if seen else None


def parse_timestamp(text: str | None) -> pd.Timestamp | None:
    """Parse a sacct time (``2019-12-11T18:39:02``); Unknown, None or blank give None.

    >>> parse_timestamp("2019-12-11T18:39:02")
    Timestamp('2019-12-11 18:39:02')
    >>> parse_timestamp("Unknown") is None
    True
    """
    text = _clean(text)
    if text in _MISSING:
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"):
        try:
            return pd.Timestamp(pd.to_datetime(text, format=fmt))
        except (ValueError, OverflowError):
            continue
    if _digits(text) and len(text) <= 11 and int(text) <= _MAX_EPOCH:
        return pd.Timestamp(int(text), unit="s")
    if _time_out_of_range(text):
        raise SacctParseError(_TIME_RANGE_PROBLEM, value=text, hint=_TIME_RANGE_HINT)
    raise SacctParseError(
        "is not a sacct time YYYY-MM-DDTHH:MM:SS",
        value=text,
        hint="export with SLURM_TIME_FORMAT=standard (a shell profile may set another format)",
    )


#: The largest epoch second a job table can hold (2262-04-11).
_MAX_EPOCH = 9_223_372_036
_TIME_RANGE_PROBLEM = "is out of range: slurmlab holds times from 1678 to 2262"
_TIME_RANGE_HINT = "the value is corrupt or the columns are shifted; check the export"


def _time_out_of_range(text: str) -> bool:
    """A well-formed time (or epoch seconds) outside the years 1678 to 2262."""
    if _digits(text):
        return len(text) >= 9 and int(text) > _MAX_EPOCH
    match = re.match(r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)$", text, re.ASCII)
    if not match:
        return False
    try:
        pd.Timestamp(f"2000-{match.group(2)}-{match.group(3)}")  # a real month and day
    except ValueError:
        return False
    year = int(match.group(1))
    return not (1678 <= year <= 2261)


def parse_state(text: str | None) -> str:
    """Normalise a state: first word, upper case, ``+`` dropped, abbreviations expanded.

    Unknown words are kept as written (upper case); a blank state is ``UNKNOWN``.

    >>> parse_state("CANCELLED by 1234")
    'CANCELLED'
    >>> parse_state("TO")
    'TIMEOUT'
    >>> parse_state("OUT_OF_ME+")  # (cut by a fixed-width column: the one state it begins)
    'OUT_OF_MEMORY'
    """
    words = _clean(text).split()
    if not words:
        return "UNKNOWN"
    word = words[0].upper()
    cut = word.endswith("+")  # (sacct's fixed-width columns cut it: OUT_OF_ME+)
    word = STATE_ABBREVIATIONS.get(word.rstrip("+"), word.rstrip("+"))
    if cut and word not in STATES:
        whole = [s for s in STATES if s.startswith(word)]
        if len(whole) == 1:
            return whole[0]
    return word


@dataclass(frozen=True, slots=True)
class JobIdParts:
    """The pieces of a sacct JobID such as ``123_4.batch``, ``123_[1-5%2]`` or ``123+1.0``."""

    job_id: str  # the allocation's JobID, without the step
    array_job_id: str | None
    array_task_id: int | None
    array_range: str | None  # "1-5%2" on a pending array row
    array_tasks: int  # how many tasks the row stands for
    het_job_id: str | None
    het_offset: int | None
    step: str | None  # "batch", "extern", "interactive", "0", ...


def _range_check(expression: str, closed: bool = True) -> tuple[int | None, str | None]:
    """(how many tasks an array expression such as ``1,4-9%2`` stands for, None) or
    (None, why sacct never writes it): reversed (``5-1``), empty (``[]``, ``1,,3``),
    malformed (``1--5``) or beyond MaxArraySize (task ids 0 to 4,000,000).

    As xlate_array_task_str (slurm_protocol_defs.c) writes them: a regular stride as
    ``first-last:step`` (``1-59:2``, 30 tasks), and a list longer than SLURM_BITSTR_LEN (64
    characters by default) cut short, its last three characters turned into ``...``. An
    expression cut short (``...``, or without its ``]``) counts only the parts before the
    cut: the last may itself be cut (``57`` of ``571``), so it is left out."""
    body, pct, throttle = expression.partition("%")
    if pct and closed and not _digits(throttle):
        return None, f"its throttle %{throttle} is not a number"
    dots = body.endswith("...")
    if dots:
        body = body[:-3]
    if "." in body:
        return None, "a '.' that is not the '...' of a list cut short"
    parts = body.split(",")
    total = 0
    for i, part in enumerate(parts):
        if (dots or (not closed and not pct)) and i == len(parts) - 1:
            continue  # cut short at SLURM_BITSTR_LEN: count the parts before it
        span, colon, step = part.partition(":")
        lo, dash, hi = span.partition("-")
        if (
            not _digits(lo)
            or (dash and not _digits(hi))
            or (colon and not (dash and _digits(step) and int(step) > 0))
        ):
            what = "an empty part" if not part else f"the part {part!r} is not N, N-M or N-M:S"
            return None, what
        if int(lo) >= LARGEST_ARRAY_SIZE or (dash and int(hi) >= LARGEST_ARRAY_SIZE):
            return None, (
                f"task ids above {LARGEST_ARRAY_SIZE - 1:,}: Slurm's largest MaxArraySize is "
                f"{LARGEST_ARRAY_SIZE:,}"
            )
        if dash and int(hi) < int(lo):
            return None, f"the range {span} is reversed"
        total += (int(hi) - int(lo)) // int(step or 1) + 1 if dash else 1
    if total == 0:
        return None, "no whole task id" + (" before the cut" if dots or not closed else "")
    if total > LARGEST_ARRAY_SIZE:
        return None, f"more than {LARGEST_ARRAY_SIZE:,} tasks, Slurm's largest MaxArraySize"
    return total, None


def _range_cut(expression: str, closed: bool) -> bool:
    """Whether sacct cut an array expression short (SLURM_BITSTR_LEN): ``...`` before its
    throttle or end, or no ``]``."""
    return not closed or expression.partition("%")[0].endswith("...")


def _range_tasks(expression: str, closed: bool = True) -> int | None:
    """How many tasks an array expression such as ``1,4-9%2`` stands for (None: malformed)."""
    return _range_check(expression, closed)[0]


_RANGE_HINT = (
    "a pending array row looks like 123_[1-5], 123_[1,4-9] or 123_[1-5%2] (at most "
    "4,000,001 tasks); the value is corrupt or the columns are shifted"
)


def parse_job_id(text: str) -> JobIdParts:
    """Split a sacct JobID into allocation, array, het-job and step parts.

    >>> parse_job_id("123_[1,4-9%2]").array_tasks
    7
    >>> parse_job_id("123_4.batch").step
    'batch'
    """
    text = _clean(text)
    match = re.match(_JOBID_RE, text, re.ASCII)
    if not match:
        raise SacctParseError(
            "is not a sacct JobID",
            value=text,
            hint="JobID looks like 123, 123.batch, 123_4, 123_[1-5%2] or 123+0.0",
        )
    base, task, rng, het, step = (match.group(k) for k in ("base", "task", "range", "het", "step"))
    tasks = 1
    if rng is not None:
        tasks, why = _range_check(rng, closed=text.split(".", 1)[0].endswith("]"))
        if tasks is None:
            raise SacctParseError(
                f"has an array range sacct never writes ({why})", value=text, hint=_RANGE_HINT
            )
    is_array = task is not None or rng is not None
    job_id = text.split(".", 1)[0] if step else text
    return JobIdParts(
        job_id=job_id,
        array_job_id=base if is_array else None,
        array_task_id=int(task) if task is not None else None,
        array_range=rng,
        array_tasks=tasks,
        het_job_id=base if het is not None else None,
        het_offset=int(het) if het is not None else None,
        step=step,
    )


def expand_nodelist(text: str | None) -> list[str]:
    """Expand a Slurm hostlist (``d13n[03,05,07-08]``); ``None assigned`` gives [].

    >>> expand_nodelist("hero[4515-4516],d13n[03,05]")
    ['hero4515', 'hero4516', 'd13n03', 'd13n05']
    """
    text = _clean(text)
    if text in _MISSING or text == "None assigned":
        return []
    try:
        return list(hostlist.expand_hostlist(text))
    except hostlist.BadHostlist as exc:
        raise SacctParseError(
            f"is not a Slurm hostlist ({exc})",
            value=text,
            hint="a NodeList looks like node[01-08],gpu3",
        ) from None


def _digits(text: str) -> bool:
    """ASCII digits only (``"²".isdigit()`` is True in Python; sacct never writes it)."""
    return text.isascii() and text.isdigit()


def _clean(text: str | None) -> str:
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    if text is pd.NA:
        return ""
    return str(text).strip()


# ----------------------------------------------------------------------- loading the text


def _source_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return getattr(source, "name", None) or "<buffer>"


def _check_source(source, who: str) -> None:
    """An error naming what was given when ``source`` is no path, bytes or open file (a job
    table, a simulation, None), and for text that is an export itself, not its path."""
    if isinstance(source, (str, bytes, os.PathLike)) or callable(getattr(source, "read", None)):
        text = isinstance(source, str) and ("\n" in source or "\r" in source)
        if text and not os.path.exists(source):
            first = source.lstrip().splitlines()[0] if source.strip() else ""
            shown = first if len(first) <= 40 else first[:37] + "..."
            raise SlurmlabError(
                f"{who}: the path given is text of {_lines(len(source.splitlines()))} "
                f"(starting {shown!r}), not a file name: to read an export held in a "
                "string, wrap it: io.StringIO(text)"
            )
        return
    kind = type(source).__name__
    if isinstance(source, pd.DataFrame):
        fix = (
            "it is a job table already (what read_sacct returns): pass it to the analyzers "
            "as it is"
            + (
                ", or write it out first with write_sacct(jobs, 'export.psv')"
                if who != "read_sacct"
                else ""
            )
        )
    elif hasattr(source, "jobs_all_runs"):
        fix = "its job table is result.jobs (every run: result.jobs_all_runs); no reading needed"
    else:
        fix = "give the path of a sacct export (a str or Path), its bytes, or an open file"
    what = "None" if source is None else f"a {kind}"
    raise SlurmlabError(f"{who}: the export is {what}, not a path or a file; {fix}")


def _load_bytes(source: Source, who: str = "read_sacct") -> tuple[str, bytes]:
    _check_source(source, who)
    name = _source_name(source)
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, (str, os.PathLike)):
        path = home_path(source)  # ("~/export.psv", as pandas' readers take it)
        if not path.exists():
            raise SacctParseError(
                "no such file",
                file=str(path),
                hint="check the path of the sacct export"
                + (
                    " ('-' names no standard input here: give the file, or a pipe as one, "
                    "<(sacct -P -o ...))"
                    if str(source) == "-"
                    else ""
                ),
            )
        if path.is_dir():
            raise SacctParseError(
                "is a directory, not a sacct export",
                file=str(path),
                hint="give the export file in it (sacct -P ... > export.psv)",
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SacctParseError(
                f"cannot be read ({exc.strerror})", file=str(path), hint="check its permissions"
            ) from None
    else:
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
    try:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        elif data[:3] == b"BZh":
            data = bz2.decompress(data)
        elif data[:6] == b"\xfd7zXZ\x00":
            data = lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        raise SacctParseError(
            f"is a damaged compressed file ({exc})", file=name, hint="decompress it by hand"
        ) from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    _check_text(name, data)
    return name, data


def _check_text(name: str, data: bytes) -> None:
    """A binary file (NUL bytes, or mostly bytes that are not UTF-8 text) is one clear error
    showing a short escaped excerpt; a text export with a few odd bytes is read as usual."""
    head = data[:4096]
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise SacctParseError(
            f"is UTF-16 text (it starts {head[:12]!r}), not UTF-8",
            file=name,
            hint=f"convert it: iconv -f UTF-16 -t UTF-8 {name} > export.psv",
        )
    text = head.decode("utf-8", errors="replace")
    odd = text.count("\ufffd") + sum(
        1 for c in text if c < " " and c not in "\t\n\r"
    )  # undecodable bytes and control characters
    if b"\x00" in head or odd > max(8, len(text) // 10):
        raise SacctParseError(
            f"is not text (it starts {head[:16]!r}): a binary file, not a sacct export",
            file=name,
            hint="export with sacct -P ... > export.psv (gzip, bz2 and xz files are read too)",
        )


# --------------------------------------------------------------------- splitting the rows


@dataclass
class _Bad:
    line: int
    column: str | None
    value: str | None
    problem: str
    hint: str
    drop: bool  # the row cannot be kept even with errors="coerce"
    ambiguous: bool = False  # the row fits the field list more than one way
    attached: bool = False  # a line after a row that starts well (only that row is wrong)
    field: str | None = None  # (--json: the JSON field, as ``steps[0]``; value: JSON text)


@dataclass
class _JsonBad:
    """A value of a ``--json`` export that sacct never writes, found as the JSON was read:
    its row (``line``) is kept, with the cell of ``column`` blank (NA with errors='coerce';
    a JobID problem leaves the row out all the same)."""

    line: int
    column: str  # the sacct column the value is read into
    field: str  # the JSON field, as ``time.start`` or ``steps[0].time.elapsed``
    value: str | None  # the value as the JSON writes it (None: the field is missing)
    problem: str
    hint: str


@dataclass
class _RawTable:
    """String columns of an export, before any field is converted."""

    file: str
    names: list[str]
    columns: dict[str, pa.Array]
    lines: np.ndarray
    bad: list[_Bad]
    fmt: str
    delimiter: str | None
    padded: int = 0
    padded_lines: list[int] = _field(default_factory=list)  # (the padded rows' lines)
    padded_by_position: bool = False  # some were short rows (else named by a header line)
    padded_fields: tuple[str, ...] = ()  # the field list they were padded against
    padded_missing: list[str] = _field(default_factory=list)  # the fields they lack
    repaired: int = 0
    epoch: bool = False  # some times were epoch seconds (SLURM_TIME_FORMAT=%s, --json)
    skipped: list[int] = _field(default_factory=list)  # "#" lines among the rows, not joined
    comments: list[int] = _field(default_factory=list)  # "#" lines that follow no row
    duplicates: list[int] = _field(default_factory=list)  # rows that repeat an earlier row
    headers: list[int] = _field(default_factory=list)  # a header again (exports joined)
    #: (--json: each row's job entry, ``jobs[3] (job_id 4)``, and the prefix of its fields,
    #: ``steps[0].`` on a step's row, by line - 1; the JSON field each column is read from,
    #: on a job's row and on a step's; the values found wrong as the JSON was read)
    json_rows: list[tuple[str, str]] = _field(default_factory=list)
    json_fields: dict[str, tuple[str, str]] = _field(default_factory=dict)
    json_bad: dict[tuple[int, str], _JsonBad] = _field(default_factory=dict)


def _canonical(name: str) -> str:
    name = name.strip()
    name = re.sub(r"%-?\d+$", "", name)  # a --format width such as JobName%30
    return _CANONICAL.get(name.lower(), name)


def _detect_delimiter(sample: list[str]) -> str:
    for delim in _DELIMITERS[:2]:
        if all(delim in line for line in sample):
            return delim
    best, best_count = "|", 0
    for delim in _DELIMITERS[2:]:
        low = min(line.count(delim) for line in sample)
        if low > best_count:
            best, best_count = delim, low
    return best


def _header_names(first: str, delimiter: str) -> list[str] | None:
    tokens = first.split(delimiter)
    if len(tokens) > 1 and tokens[-1].strip() == "":
        tokens = tokens[:-1]
    known = sum(t.strip().lower() in _CANONICAL for t in tokens)
    plain = all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(%-?\d+)?", t.strip()) for t in tokens)
    if plain and known >= max(1, len(tokens) // 2):
        return [_canonical(t) for t in tokens]
    return None


#: A field name of a header line, with an optional --format width (``JobName%30``).
_HEADER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:%-?\d+)?")


def _header_delimiter(first: str) -> str | None:
    """The delimiter that splits a first line into sacct field names, or None: one of those
    slurmlab detects, a comma, or the one string found between every two names of the line
    (sacct takes any characters for --delimiter: ``JobID:::State:::Elapsed`` gives ``:::``;
    a --parsable header also ends with it)."""
    for other in (*_DELIMITERS, ","):
        if other in first and _header_names(first, other) is not None:
            return other
    line = first.strip()
    names = list(_HEADER_NAME.finditer(line))
    between = {line[a.end() : b.start()] for a, b in zip(names, names[1:])}
    if len(between) != 1:
        return None
    other = between.pop()
    if not other or other.isspace() or _header_names(line, other) is None:
        return None
    return other


def _fields(count: int) -> str:
    """``1 field``, ``25 fields``."""
    return f"{count} field{'s' * (count != 1)}"


def _lines(count: int) -> str:
    """``1 line``, ``3 lines``."""
    return f"{count} line{'s' * (count != 1)}"


_FIXED_WIDTH_HINT = (
    "sacct without -P/-p writes fixed-width columns and cuts long values (CANCELLED+, "
    "node names); re-export with `sacct -P -o JobID,...` (slurmlab reads -P and -p output)"
)


def _not_an_export(file: str, first: str, delimiter: str, given: bool) -> SacctParseError:
    if str(file).lower().endswith((".yaml", ".yml", ".json")) and not first.lstrip().startswith(
        ("{", "[")
    ):  # (a scenario, whose 'cluster: tiny' splits on ': ': simulate it first)
        return SacctParseError(
            "is a scenario file, not a sacct export",
            file=file,
            value=first,
            hint=f"simulate it into one first: slurmlab simulate {file} --sacct-out jobs.psv "
            "(in Python: write_sacct(Scenario.load(path).run().sacct(duplicates=True), ...))",
        )
    tokens = first.split(delimiter)
    if len(tokens) > 1 and tokens[-1].strip() == "":
        tokens = tokens[:-1]  # (--parsable's trailing delimiter)
    named = [t for t in tokens if t.strip()]
    other = _header_delimiter(first)
    doubled = other is not None and other != delimiter and delimiter in other  # (--delimiter=';;')
    if (
        len(named) < len(tokens)
        and not doubled
        and _header_names(delimiter.join(named), delimiter) is not None
    ):
        at = next(i for i, t in enumerate(tokens) if not t.strip())
        before = next((t.strip() for t in reversed(tokens[:at]) if t.strip()), None)
        after = next((t.strip() for t in tokens[at + 1 :] if t.strip()), None)
        where = (
            f"between {before} and {after}"
            if before and after
            else f"before {after}"
            if after
            else f"after {before}"
        )
        return SacctParseError(
            f"has a header whose field {at + 1} ({where}) has no name: every column of a "
            "sacct export has a field name",
            file=file,
            value=first,
            hint=f"delete the extra {delimiter!r} (two delimiters in a row) or name the column, "
            "as sacct -P -o JobID,... writes the header",
        )
    if len(first.split()) > 1 and _header_names(" ".join(first.split()), " ") is not None:
        return SacctParseError(
            "is sacct's fixed-width output (its header's field names are separated by spaces), "
            "which cannot be read",
            file=file,
            value=first,
            hint=_FIXED_WIDTH_HINT,
        )
    if other is not None and other != delimiter:
        how = f"delimiter={delimiter!r} was given" if given else f"{delimiter!r} was detected"
        return SacctParseError(
            f"has a header that does not split on the delimiter {delimiter!r} ({how}), but "
            f"it does on {other!r}",
            file=file,
            value=first,
            hint=f"give delimiter={other!r}"
            + (
                ", or leave delimiter= out to detect it"
                if given and other in _DELIMITERS
                else f" (slurmlab detects only {', '.join(map(repr, _DELIMITERS))})"
                if other not in _DELIMITERS
                else ""
            ),
        )
    words = first.split()
    if first.lstrip().startswith(";") or (
        len(words) == 18 and all(re.fullmatch(r"-?\d+(?:\.\d+)?", w) for w in words)
    ):  # (an SWF trace: ';' header lines, records of 18 numbers)
        return SacctParseError(
            "is an SWF trace (the Standard Workload Format: ';' header lines, then records of "
            "18 numbers), not a sacct export",
            file=file,
            value=first,
            hint=f"simulate it: slurmlab simulate {file} (in Python: read_swf(path) gives its "
            "workload); slurmlab summary and read_sacct read sacct exports",
        )
    return SacctParseError(
        "does not look like a sacct export: the first line is not a header of sacct field "
        "names and no field list was given",
        file=file,
        line=None,
        value=first,
        hint="export with `sacct -P -o JobID,...` (with the header), or pass "
        "fields=[...] / --fields for a header-less export",
    )


def _warn_unknown_fields(file: str, names: Sequence[str], given: bool) -> None:
    """Warn about a name that is not a sacct field (a typo: ``Stat`` for State): always for a
    field list the caller typed, for a header only when a sacct field is a close match that
    the header lacks (other unknown header columns are kept as text, as documented)."""
    known = _SACCT_NAMES | set(DERIVED_COLUMNS)
    lower = list(_CANONICAL)
    for name in names:
        if name in known:
            continue
        close = difflib.get_close_matches(name.lower(), lower, n=1, cutoff=0.8)
        guess = _CANONICAL[close[0]] if close else None
        if guess in names:
            guess = None
        if not given and guess is None:
            continue
        where = "the field list (fields= / --fields)" if given else "the header"
        warnings.warn(
            f"{file}: {where} names {name!r}, which is not a sacct field"
            + (f" (did you mean {guess}?)" if guess else "")
            + "; it is read as a text column, and slurmlab does not interpret it"
            + (f", so {guess} is missing" if guess else ""),
            SacctParseWarning,
            stacklevel=5,
        )


def _layout(
    file: str, sample: list[str], fields: Sequence[str] | str | None, delimiter: str | None
) -> tuple[str, list[str] | None, list[str]]:
    """(delimiter, the header's names or None, the column names) of an export's first lines."""
    delim = delimiter or _detect_delimiter(sample)
    header = _header_names(sample[0], delim)
    if isinstance(fields, str):
        fields = [f for f in re.split(r"[,|\s]+", fields) if f]
    if fields is None:
        if header is None:
            raise _not_an_export(file, sample[0], delim, delimiter is not None)
        _warn_unknown_fields(file, header, given=False)
        return delim, header, header
    names = [_canonical(f) for f in fields]
    _warn_unknown_fields(file, names, given=True)
    if header is not None and [h.lower() for h in header] != [n.lower() for n in names]:
        raise SacctParseError(
            "has a header that differs from the fields given",
            file=file,
            value=sample[0],
            hint="leave fields=None to use the file's own header",
        )
    return delim, header, names


def _split(
    file: str,
    data: bytes,
    fields: Sequence[str] | str | None,
    delimiter: str | None,
) -> _RawTable:
    head = data[:65536].decode("utf-8", errors="replace").splitlines()
    if len(data) > 65536 and len(head) > 1:
        head = head[:-1]  # the last line of the sample may be cut
    sample = [line for line in head if line.strip() and not line.strip().startswith("#")][:20]
    if not sample:
        raise SacctParseError(
            "has no rows (only blank or # comment lines)",
            file=file,
            hint="check the sacct command that wrote it",
        )
    ruler = next(
        (line for line in sample[1:3] if re.fullmatch(r"\s*-{3,}(?:\s+-{3,})*\s*", line)), None
    )
    if ruler is not None:  # a header underlined with ----- : sacct's default (not -P) output
        raise SacctParseError(
            "is sacct's fixed-width output (a header underlined with -----), which cannot be read",
            file=file,
            value=sample[0],
            hint=_FIXED_WIDTH_HINT,
        )
    delim, header, names = _layout(file, sample, fields, delimiter)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise SacctParseError(
            f"names column(s) {', '.join(dup)} twice",
            file=file,
            hint="list each sacct field once in -o/--format",
        )
    if "JobID" not in names:
        raise SacctParseError(
            "has no JobID column",
            file=file,
            hint="add JobID to sacct -o (slurmlab needs it to tell jobs from steps)",
        )
    n = len(names)
    trailing = _is_parsable(sample, header is not None, delim, n)
    width = n + 1 if trailing else n

    def slowly() -> _RawTable:
        return _split_python(file, data, names, delim, trailing, header is not None)

    if not data.isascii():
        try:  # pyarrow decodes a row it hands to on_invalid as strict UTF-8, and a row that
            data.decode("utf-8")  # is not fails inside pyarrow (an "Exception ignored"
        except UnicodeDecodeError:  # traceback on stderr): such a file goes the Python way,
            return slowly()  # which reads the odd lines as Latin-1 with a warning
    # pyarrow splits the fields; it needs a one-byte delimiter
    sep = delim
    encoded = delim.encode("utf-8")
    if len(encoded) != 1 or encoded in (b"\n", b"\r", b'"'):
        if b"\x1f" in data:
            return slowly()
        data = data.replace(encoded, b"\x1f")
        sep = "\x1f"
    irregular: list[tuple[int, str]] = []

    def on_invalid(row) -> str:  # (only UTF-8 reaches pyarrow: row.text is always text)
        irregular.append((row.number, row.text))
        return "skip"

    keys = [f"f{i}" for i in range(width)]
    try:
        table = pa_csv.read_csv(
            io.BytesIO(data),
            # 1 MB blocks (pyarrow's default) parse twice as fast as one big block
            read_options=pa_csv.ReadOptions(column_names=keys, use_threads=False),
            parse_options=pa_csv.ParseOptions(
                delimiter=sep,
                quote_char=False,
                escape_char=False,
                double_quote=False,
                ignore_empty_lines=False,
                newlines_in_values=False,
                invalid_row_handler=on_invalid,
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(keys, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowException:  # not UTF-8, or a row pyarrow cannot number: go slowly
        data = data.replace(b"\x1f", encoded)
        return slowly()
    if any(number is None for number, _ in irregular):
        data = data.replace(b"\x1f", encoded)
        return slowly()
    total = table.num_rows + len(irregular)
    is_regular = np.ones(total + 1, dtype=bool)
    is_regular[0] = False
    is_regular[[number for number, _ in irregular]] = False
    lines = np.flatnonzero(is_regular)
    columns = [
        col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
        for col in (table.column(k) for k in keys)
    ]
    moved: list[tuple[int, str]] = []
    drop = None
    if trailing:  # a non-empty last field: the delimiter was inside a value
        spill = pc.not_equal(columns[-1], "").to_numpy(zero_copy_only=False)
        if spill.any():
            for pos in np.flatnonzero(spill):
                moved.append((int(lines[pos]), delim.join(c[int(pos)].as_py() for c in columns)))
            drop = ~spill
        columns = columns[:-1]
    comment = pc.starts_with(pc.utf8_ltrim_whitespace(columns[0]), "#")
    comment = comment.to_numpy(zero_copy_only=False)
    for pos in np.flatnonzero(comment):  # a row whose first field begins with "#"
        if _hash_row(names, [c[int(pos)].as_py() for c in columns], False):
            comment[pos] = False
    comments = [  # "#" lines: joined onto a row that ends in free text, else counted
        (number, text) for number, text in irregular if text.strip().startswith("#")
    ]
    if comment.any():  # a "# ..." line that happens to hold the right number of fields
        ending = delim if trailing else ""
        for pos in np.flatnonzero(comment):
            comments.append(
                (int(lines[pos]), delim.join(c[int(pos)].as_py() for c in columns) + ending)
            )
        drop = ~comment if drop is None else drop & ~comment
    blank = pc.equal(columns[0], "").to_numpy(zero_copy_only=False)
    if blank.any():  # an empty line becomes a row of blanks: leave it out
        empty = blank.copy()
        for column in columns[1:]:
            empty &= pc.equal(column, "").to_numpy(zero_copy_only=False)
        if empty.any():
            drop = ~empty if drop is None else drop & ~empty
    # header lines: the first line, and the same header again where exports were joined
    # (cat a.psv b.psv); a header with other columns further down: read slowly, by name
    heads = pc.match_substring_regex(
        columns[names.index("JobID")], pattern=r"^\s*jobid(%-?\d+)?\s*$", ignore_case=True
    ).to_numpy(zero_copy_only=False)
    if names.index("JobID") != 0:  # a line that starts with JobID is a header too
        heads |= pc.match_substring_regex(
            columns[0], pattern=r"^\s*jobid(%-?\d+)?\s*$", ignore_case=True
        ).to_numpy(zero_copy_only=False)
    for pos in np.flatnonzero(heads):
        tokens = [_canonical(c[int(pos)].as_py()).lower() for c in columns]
        if tokens != [name.lower() for name in names]:
            data = data.replace(b"\x1f", encoded)
            return slowly()
    headers = lines[heads].tolist()[1 if header is not None else 0 :]  # (again: joined)
    if heads.any():
        drop = ~heads if drop is None else drop & ~heads
    if drop is not None:
        kept = np.flatnonzero(drop)
        if kept.size and kept[-1] - kept[0] + 1 == kept.size:  # only a prefix/suffix dropped
            columns = [c.slice(int(kept[0]), int(kept.size)) for c in columns]
        else:
            mask = pa.array(drop)
            columns = [c.filter(mask) for c in columns]
        lines = lines[drop]
    if sep != delim:
        irregular = [(number, text.replace("\x1f", delim)) for number, text in irregular]
    raw = _RawTable(
        file=file,
        names=names,
        columns=dict(zip(names, columns)),
        lines=lines,
        bad=[],
        fmt="parsable" if trailing else "parsable2",
        delimiter=delim,
        headers=headers,
    )
    pending = [
        (number, text)
        for number, text in sorted(irregular + moved)
        if text.strip() and not text.strip().startswith("#")
    ]
    if comments:
        data = set(lines.tolist()) | {number for number, _ in pending}
        joined = _comment_lines(raw, sorted(comments), data)
        if joined:
            pending = sorted(pending + joined)
    if any(_mid_header(text, delim, names) not in (None, names) for _, text in pending):
        data = data.replace(b"\x1f", encoded)
        return slowly()  # a header with other columns further down: read by name
    if pending:
        _repair_irregular(raw, pending)
    return raw


def _comment_lines(
    raw: _RawTable, comments: list[tuple[int, str]], data: set[int]
) -> list[tuple[int, str]]:
    """The ``#`` lines that continue a row ending in a free-text column (a newline inside the
    value, then a line such as ``#SBATCH -t 5``): those right after a row (or such a line) are
    joined onto it when the row ends in a free-text column, else counted in ``raw.skipped``
    (and warned about), never dropped silently. ``#`` lines that follow no row (at the top, or
    after a blank line) are comments."""
    free_last = raw.names[-1] in _FREE_SET
    joined: list[tuple[int, str]] = []
    follows = set(data)
    for number, text in comments:
        if number - 1 not in follows:
            raw.comments.append(number)
            continue
        follows.add(number)
        if free_last:
            joined.append((number, text))
        else:
            raw.skipped.append(number)
    return joined


def _hash_row(names: Sequence[str], pieces: Sequence[str], trailing: bool) -> bool:
    """Whether a line beginning with ``#`` is a row all the same: sacct writes no comments,
    and a JobName or Comment may begin with ``#``; a line of all the fields that begins with
    such a free-text column, whose JobID is valid and every other field fits its column, is
    a row (``#exp1|12|COMPLETED|...``; not ``#PENDING|12|...``, a row commented out)."""
    width = len(names) + trailing
    return (
        len(pieces) == width
        and not (trailing and pieces[-1])
        and names[0] in _FREE_SET
        and "JobID" in names
        and _job_id_ok(names, pieces)
        and all(_field_ok(name, value) for name, value in zip(names, pieces))
    )


def _continues(text: str, names: Sequence[str], pieces: list[str]) -> bool:
    """Whether a line can only continue the row before it (a ``#`` line starts one only
    when it is a whole row: :func:`_hash_row`)."""
    if text.lstrip().startswith("#"):
        return not (_hash_row(names, pieces, False) or _hash_row(names, pieces, True))
    return not _starts_row(names, pieces)


def _is_parsable(sample: list[str], has_header: bool, delim: str, n: int) -> bool:
    """Whether an export was written with -p (a trailing delimiter on every line)."""
    if has_header:
        return sample[0].rstrip("\r\n").endswith(delim)
    ends = sum(len(r.split(delim)) == n + 1 and r.endswith(delim) for r in sample)
    return bool(sample) and ends > len(sample) / 2


def decode_export(data: bytes, file: str) -> str:
    """An export's text: UTF-8, and a line that is not (XDMoD writes job names in
    ISO-8859-1) read as Latin-1 with a warning naming its lines, so that no byte is lost and
    two different names never become one (as replacement characters would make them)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    pieces = re.split(rb"(\r\n|\n|\r)", data)  # lines and their ends, numbered as pyarrow does
    out, odd = [], []
    for i, piece in enumerate(pieces):
        try:
            out.append(piece.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(piece.decode("latin-1"))
            odd.append((i // 2 + 1, piece))
    _warn_latin1(file, odd)
    return "".join(out)


def export_lines(data: bytes, file: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of an export's bytes, one by one, as :func:`decode_export` and
    :func:`_text_lines` give them (a line that is not UTF-8 read as Latin-1, with the same
    warning, given before the first line): for a reader that keeps little at a time."""
    odd: set[int] = set()
    try:
        data.decode("utf-8")  # (nearly always: then no line needs looking at)
    except UnicodeDecodeError:
        found = []
        for number, piece in _byte_lines(data):
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                found.append((number, piece))
        odd = {number for number, _ in found}
        _warn_latin1(file, found)
    for number, piece in _byte_lines(data):
        yield number, piece.decode("latin-1" if number in odd else "utf-8")


def _byte_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``data`` (without their ends), as :func:`_text_lines` splits."""
    for number, match in enumerate(re.finditer(rb"([^\r\n]*)(\r\n|\n|\r|$)", data), 1):
        yield number, match.group(1)
        if not match.group(2):  # the end of the data
            return


def _warn_latin1(file: str, odd: list[tuple[int, bytes]]) -> None:
    """Warn that the lines ``odd`` (number, bytes) were read as Latin-1."""
    number, line = odd[0]
    bad = next(b for b in line if b >= 0x80)  # (an invalid line has a byte of 0x80 or more)
    at = line.index(bytes([bad]))
    shown = ", ".join(map(str, [n for n, _ in odd][:10])) + (", ..." if len(odd) > 10 else "")
    warn_at_caller(
        f"{file}: line{'s' * (len(odd) > 1)} {shown} {'hold' if len(odd) > 1 else 'holds'} "
        f"bytes that are not UTF-8 (line {number}: {line[max(0, at - 10) : at + 10]!r}); "
        "they are read as Latin-1 (ISO-8859-1, as XDMoD writes job names: "
        f"{line[max(0, at - 10) : at + 10].decode('latin-1')!r}); if the file is in another "
        "encoding, convert it (iconv -f ENCODING -t UTF-8) and read it again",
        SacctParseWarning,
    )


def _text_lines(text: str) -> list[str]:
    """The lines of a text as pyarrow numbers them (``\\r\\n``, ``\\n`` and ``\\r`` end one)."""
    return re.split(r"\r\n|\n|\r", text)


def _split_python(
    file: str, data: bytes, names: list[str], delim: str, trailing: bool, has_header: bool
) -> _RawTable:
    """The slow path: every line through Python (odd bytes, or headers further down)."""
    text = decode_export(data, file)
    lines: list[tuple[int, str]] = []
    skipped: list[int] = []
    comments: list[int] = []
    seen_header = not has_header
    layout = names
    previous = -1  # the last line that is (or continues) a row
    mid = False  # a header further down
    for number, line in enumerate(_text_lines(text), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#") and not (
            seen_header and _hash_row(layout, line.split(delim), trailing)
        ):  # (see _comment_lines)
            if number - 1 == previous:
                previous = number
                if layout[-1] in _FREE_SET:
                    lines.append((number, line))  # a line of a free-text value: joined
                else:
                    skipped.append(number)
            else:
                comments.append(number)
            continue
        if not seen_header:
            seen_header = True
            continue
        other = _mid_header(line, delim, names)
        if other is not None:
            layout = other
            mid = True
        else:
            previous = number
        lines.append((number, line))
    raw = _RawTable(
        file=file,
        names=list(names),
        columns={name: pa.array([], pa.string()) for name in names},
        lines=np.zeros(0, dtype=np.int64),
        bad=[],
        fmt="parsable" if trailing else "parsable2",
        delimiter=delim,
        skipped=skipped,
        comments=comments,
    )
    if mid:
        _check_fit(file, names, delim, trailing, lines, 0)  # headers further down: by name
        _add_rows(raw, _resolve_rows(names, delim, trailing, lines))
        return raw
    # the lines of the right width are rows as they are (as on the fast path); the others
    # (and the rows that lines continue, taken back there) are repaired
    width = len(names) + trailing
    regular: list[tuple[int, list[str]]] = []
    pending: list[tuple[int, str]] = []
    for number, line in lines:
        pieces = line.split(delim)
        if (
            len(pieces) == width
            and not (trailing and pieces[-1])
            and (not line.lstrip().startswith("#") or _hash_row(names, pieces, trailing))
        ):
            regular.append((number, pieces))
        else:
            pending.append((number, line))
    raw.lines = np.fromiter((number for number, _ in regular), np.int64, len(regular))
    values = list(zip(*(pieces for _, pieces in regular))) or [()] * len(names)
    raw.columns = {name: pa.array(values[k], pa.string()) for k, name in enumerate(names)}
    if pending:
        _repair_irregular(raw, pending)
    return raw


def _check_fit(
    file: str,
    names: Sequence[str],
    delim: str,
    parsable: bool,
    pending: list[tuple[int, str]],
    regular: int,
) -> None:
    """One error when most rows do not fit the field list (a wrong list or delimiter), rather
    than an error per row: decided on the first 50 such rows after trying to repair them, so a
    row that resolves (one way, or ambiguously: it fits the list) never counts against it."""
    total = regular + len(pending)
    if len(pending) < 2 or len(pending) <= 0.5 * total:
        return
    counts: list[int] = []
    longer = 0  # rows longer than their header, whose last column takes any extra unchecked
    layout: Sequence[str] = names
    for _, text in pending:
        other = _mid_header(text, delim, names)
        if other is not None:  # a header further down: the rows after it are its width
            layout = other
            continue
        c, n = len(text.split(delim)) - (parsable and text.endswith(delim)), len(layout)
        counts.append(c)
        longer += c > n and not (c == n + 1 and text.endswith(delim)) and layout[-1] in _FREE_SET
    # Most rows longer than the list and a free-text last column, which takes any extra fields
    # unchecked: no field after it confirms the repair, so the list more likely lacks columns.
    unchecked = total >= 3 and longer > 0.5 * total
    if not unchecked:
        probe = pending[:50]
        found = _resolve_rows(names, delim, parsable, probe)
        # (the lines after a row that starts well are that row's problem, not the list's)
        unfit = {bad.line for bad in found.bad if not (bad.ambiguous or bad.attached)}
        if len(unfit) <= max(1, 0.5 * len(probe)):
            return
    common = max(set(counts), key=counts.count)
    words = len(re.split(r"\s{2,}", pending[0][1].strip()))
    if common == 1 and words > 1 and abs(words - len(names)) <= 1:
        # (columns padded with spaces, one field per column: sacct without -P/-p, -n)
        raise SacctParseError(
            f"is not split by the delimiter {delim!r}: its {words} values are separated by "
            f"runs of spaces, as in sacct's fixed-width output, which cannot be read",
            file=file,
            line=pending[0][0],
            value=pending[0][1],
            hint=_FIXED_WIDTH_HINT,
        )
    last = (
        f", and only the last column, {names[-1]} (free text), could take the extra fields, "
        "with no field after it to check them"
        if unchecked
        else ""
    )
    raise SacctParseError(
        f"most rows have {_fields(common)} but the field list names {len(names)}{last}",
        file=file,
        line=pending[0][0],
        hint="the field list does not match the export: check fields=... (or the header) "
        "and the delimiter"
        + (
            f"; if {names[-1]} really holds the delimiter, re-export with one that never occurs "
            "in the data (sacct -P --delimiter='^|^') or with another field last"
            if unchecked
            else ""
        ),
    )


def _repair_irregular(raw: _RawTable, pending: list[tuple[int, str]]) -> None:
    """Lines the fast path could not take as rows: join, repair, pad or report them."""
    names, delim = raw.names, raw.delimiter or "|"
    # A line that does not start a row continues the one before it (a newline inside the last
    # column): take that row back from the regular ones so that the two can be joined.
    regular = raw.lines
    waiting = {number for number, _ in pending}
    pulled = set()
    for number, text in pending:
        if number - 1 in waiting or not _continues(text, names, text.split(delim)):
            continue
        if _mid_header(text, delim, names) is not None:
            continue
        pos = int(np.searchsorted(regular, number - 1))
        if pos < len(regular) and regular[pos] == number - 1:
            pulled.add(pos)
    if pulled:
        at = sorted(pulled)
        ending = delim if raw.fmt == "parsable" else ""
        columns = [raw.columns[name] for name in names]
        pending = sorted(
            pending
            + [(int(regular[p]), delim.join(c[p].as_py() for c in columns) + ending) for p in at]
        )
        keep = np.ones(len(regular), dtype=bool)
        keep[at] = False
        mask = pa.array(keep)
        raw.columns = {name: raw.columns[name].filter(mask) for name in names}
        raw.lines = regular = regular[keep]
    # (after the rows that lines continue are taken back: they are judged with them)
    _check_fit(raw.file, names, delim, raw.fmt == "parsable", pending, len(raw.lines))
    _add_rows(raw, _resolve_rows(names, delim, raw.fmt == "parsable", pending, regular))


def _add_rows(raw: _RawTable, found: _Found) -> None:
    """Put the rows found by :func:`_resolve_rows` among the regular rows, in line order."""
    raw.bad.extend(found.bad)
    raw.repaired += found.repaired
    raw.headers = sorted(raw.headers + found.headers)
    if not found.rows:
        return
    names = list(raw.names)
    main = tuple(names)
    # rows of an export with fewer columns: the others are blank (warned about in _normalize)
    padded = [row for row in found.rows if row.names != main and not set(main) <= set(row.names)]
    if padded:
        raw.padded += len(padded)
        raw.padded_lines += [row.line for row in padded]
        raw.padded_by_position |= any(row.short for row in padded)
        raw.padded_fields = main
        lacking = {name for row in padded for name in main if name not in row.names}
        raw.padded_missing = [name for name in main if name in lacking]
    known = set(names)
    for layout in {row.names for row in found.rows}:
        names += [name for name in layout if name not in known]
        known.update(layout)
    if all(row.names == main for row in found.rows):
        values = [list(column) for column in zip(*(row.values for row in found.rows))]
        values += [[""] * len(found.rows) for _ in names[len(main) :]]
    else:
        index = {name: k for k, name in enumerate(names)}
        values = [[""] * len(found.rows) for _ in names]
        for r, row in enumerate(found.rows):
            for name, value in zip(row.names, row.values):
                values[index[name]][r] = value
    size = len(raw.lines)
    lines = np.concatenate([raw.lines, np.asarray([row.line for row in found.rows], np.int64)])
    order = pa.array(np.argsort(lines, kind="stable"))
    raw.columns = {
        name: pa.concat_arrays(
            [
                raw.columns[name].cast(pa.string())
                if name in raw.columns
                else pa.array([""] * size, pa.string()),
                pa.array(values[k], pa.string()),
            ]
        ).take(order)
        for k, name in enumerate(names)
    }
    raw.lines = lines[order.to_numpy()]
    raw.names = names


# ------------------------------------------------- rows that are not one line of the right width
#
# A row whose field count differs from the header's is read here, in Python (they are rare):
# a newline inside a value breaks a row over several lines (joined again), the delimiter inside
# a free-text value adds fields (placed back into the one free-text column that can take them),
# and exports appended with fewer columns give shorter rows (padded, when a block of them or a
# header of their own says so). A row that fits more than one way is an error, never a guess.

#: A run of at least this many consecutive rows sharing a shorter field count is an export with
#: fewer fields appended to this one (a lone short row is a truncated line).
_APPENDED_RUN = 5
#: More extra fields than this in one row are not placed (the combinations explode).
_MAX_EXTRA = 8
_FREE_SET = frozenset(_FREE_TEXT)
_MISSING_SET = frozenset(_MISSING) | frozenset(_NO_LIMIT)
_SACCT_NAMES = frozenset(SACCT_FIELDS)
_JOBID_CHECK = re.compile(_JOBID_RE, re.ASCII)
#: The first field of a header line further down: ``JobID``, optionally with a width.
_LITERAL_JOBID = re.compile(r"^\s*jobid(?:%-?\d+)?\s*$", re.IGNORECASE)
_NAME_CHECK = re.compile(r"^[^\W\d_][^\s.+\[\]]*$")
_TRES_CHECK = re.compile(r"^[^=,]+=[^,]*(?:,[^=,]+=[^,]*)*$")
#: Names of users, accounts, partitions, nodes ...: no space, ':' or '=' (unlike the times,
#: durations and TRES lists a shifted column would put there).
_NAME_FIELD = re.compile(r"^(?:[^\s:=]+|None assigned)$")
_CHECKS = {
    **dict.fromkeys(
        [
            "User",
            "Group",
            "Account",
            "Partition",
            "QOS",
            "Cluster",
            "WCKey",
            "NodeList",
            "Reservation",
            "FailedNode",
        ],
        _NAME_FIELD,
    ),
    **dict.fromkeys(
        _TIME_FIELDS, re.compile(r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d|\d{1,11})$", re.ASCII)
    ),
    **dict.fromkeys(_DURATION_FIELDS, re.compile(_DURATION_RE, re.ASCII)),
    **dict.fromkeys(_INT_FIELDS, re.compile(r"^-?\d{1,18}$", re.ASCII)),
    **dict.fromkeys([*_MEMORY_FIELDS, "ReqMem"], re.compile(_MEMORY_RE, re.ASCII)),
    **dict.fromkeys(_EXIT_FIELDS, re.compile(_EXIT_RE, re.ASCII)),
    "State": re.compile(r"^[A-Za-z_]+\+?(?:\s+by\s+\S+)?$"),
    **dict.fromkeys(
        ["AllocTRES", "ReqTRES", *(f for f in SACCT_FIELDS if f.startswith("TRESUsage"))],
        _TRES_CHECK,
    ),
}
_DELIMITER_FIX = (
    "re-export with a delimiter that never occurs in the data, e.g. sacct -P "
    "--delimiter='^|^' ... (slurmlab detects ^|^ and \u2603; give any other with "
    "delimiter=), or leave the free-text fields (JobName, Constraints, Comment, SubmitLine, "
    "WorkDir) out, or use sacct --json; or read with errors='warn' to leave the row out"
)


@dataclass
class _Row:
    line: int
    names: tuple[str, ...]  # the columns of this row (fewer for an appended export)
    values: list[str]
    trailing: bool = False  # written with --parsable's trailing delimiter
    short: bool = False  # fewer fields than its layout: the last ones are missing


@dataclass
class _Found:
    rows: list[_Row]
    bad: list[_Bad]
    headers: list[int]  # lines that are a header again
    repaired: int = 0


@dataclass
class _Line:
    number: int
    text: str
    pieces: list[str]
    names: tuple[str, ...]
    starts: bool  # could be the first line of a row (else it continues the one before)


def _mid_header(text: str, delim: str, main: Sequence[str]) -> list[str] | None:
    """The names of a header line further down (exports joined), or None for a data line.

    A line whose first field is literally ``JobID`` (any case, optionally with a ``%N``
    width) is always a header: its names are read as the first header's are (names sacct does
    not know are kept as text columns), and it never continues the row before it. Otherwise
    only sacct's field names (or the first header's) count, so no value of the data is ever
    taken for a header.
    """
    if "jobid" not in text.lower():
        return None
    if _LITERAL_JOBID.match(text.split(delim, 1)[0]):
        tokens = text.split(delim)
        if len(tokens) > 1 and tokens[-1].strip() == "":
            tokens = tokens[:-1]
        literal = [_canonical(t) for t in tokens]
        if [n.lower() for n in literal] == [m.lower() for m in main]:
            return list(main)
        return literal
    names = _header_names(text, delim)
    if names is None or "JobID" not in names:
        return None
    if not all(name in _SACCT_NAMES or name in main for name in names):
        return None
    return names if [n.lower() for n in names] != [m.lower() for m in main] else list(main)


def _field_ok(name: str, value: str) -> bool:
    """Whether ``value`` can be a ``name`` field of sacct's (a quick check, for row repair)."""
    if "\n" in value:
        return name in _FREE_SET
    if name in _FREE_SET:
        return True
    text = value.strip()
    if name == "JobID":
        return bool(_JOBID_CHECK.match(text) or _NAME_CHECK.match(text))
    if text in _MISSING_SET:
        return True
    check = _CHECKS.get(name)
    return check is None or check.match(text) is not None


def _job_id_ok(names: Sequence[str], values: Sequence[str]) -> bool:
    """A JobID that is a name is read only beside a numeric JobIDRaw (as ``_job_ids``)."""
    if "JobID" not in names:
        return True
    value = values[names.index("JobID")].strip()
    if _JOBID_CHECK.match(value):
        return True
    if "JobIDRaw" not in names or not _NAME_CHECK.match(value):
        return False
    at = names.index("JobIDRaw")
    return at < len(values) and _digits(values[at].strip())


def _starts_row(names: Sequence[str], pieces: list[str]) -> bool:
    """Whether a line can be the first line of a row: it reaches a valid JobID (a line that
    does not continues the row before it: a newline inside a value)."""
    if "JobID" not in names:
        return True
    at = names.index("JobID")
    if len(pieces) >= len(names) and any(name in _FREE_SET for name in names[:at]):
        return True  # a delimiter inside an earlier free-text value may move the JobID
    return at < len(pieces) and _job_id_ok(names, pieces)


def _alignments(names: Sequence[str], pieces: list[str], delim: str) -> list[list[str]]:
    """Every way to read ``pieces`` as one row of ``names``: the extra fields go back into
    free-text columns, every other field must fit its column (at most a few are returned)."""
    n, c = len(names), len(pieces)
    if c < n or c - n > _MAX_EXTRA:
        return []
    free_after = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        free_after[i] = free_after[i + 1] + (names[i] in _FREE_SET)
    found: list[list[str]] = []
    values: list[str] = []

    def place(i: int, k: int) -> None:
        spare = (c - k) - (n - i)
        if len(found) >= 8 or (spare and not free_after[i]):
            return
        if i == n:
            if _job_id_ok(names, values):
                found.append(list(values))
            return
        name = names[i]
        if name in _FREE_SET:
            takes = range(1, spare + 2) if free_after[i + 1] else (spare + 1,)
            for take in takes:
                values.append(delim.join(pieces[k : k + take]))
                place(i + 1, k + take)
                values.pop()
        elif _field_ok(name, pieces[k]):
            values.append(pieces[k])
            place(i + 1, k + 1)
            values.pop()

    place(0, 0)
    return found


def _balanced(text: str) -> bool:
    return text.count("[") == text.count("]") and text.count("(") == text.count(")")


def _readings(
    names: Sequence[str], pieces: list[str], delim: str, trailing_first: bool
) -> list[tuple[list[str], bool]]:
    """The readings of a row as (values, trailing); one is a row, more are ambiguous.

    A last empty field may be --parsable's trailing delimiter or an empty free-text value after
    a delimiter inside a value: both readings are tried (the trailing one first when the file,
    or a block of rows around this one, is --parsable). Among several readings, those whose
    free text has balanced brackets win (``[broadwell|skylake]`` is one value).
    """

    def plain() -> list[tuple[list[str], bool]]:
        return [(values, False) for values in _alignments(names, pieces, delim)]

    if len(pieces) > len(names) and pieces[-1] == "":
        cut = [(values, True) for values in _alignments(names, pieces[:-1], delim)]
        groups = [lambda: cut, plain] if trailing_first else [lambda: cut + plain()]
    else:
        groups = [plain]
    free = [i for i, name in enumerate(names) if name in _FREE_SET]
    for group in groups:
        unique: dict[tuple[str, ...], tuple[list[str], bool]] = {}
        for values, t in group():
            unique.setdefault(tuple(values), (values, t))
        readings = list(unique.values())
        if len(readings) > 1:
            balanced = [r for r in readings if all(_balanced(r[0][i]) for i in free)]
            readings = balanced or readings
        if readings:
            return readings
    return []


def _resolve_rows(
    names: Sequence[str],
    delim: str,
    parsable: bool,
    lines: list[tuple[int, str]],
    regular: np.ndarray | None = None,
) -> _Found:
    """Rows from lines that are not one regular row each (or from every line, slowly).

    ``lines`` are (line number, text) in order, without comments and the first header;
    ``regular`` are the line numbers of the rows read elsewhere (a run of appended rows must
    not have one between its rows). A header line further down switches the columns of the
    rows after it; a line that cannot start a row (no JobID) continues the row before it.
    """
    found = _Found([], [], [])
    items, _after = _line_items(names, delim, parsable, lines, found.headers)
    _resolve_items(items, delim, parsable, found, regular)
    return found


def _line_items(
    names: Sequence[str],
    delim: str,
    parsable: bool,
    lines: Iterable[tuple[int, str]],
    headers: list[int],
    layout: tuple[str, ...] | None = None,
) -> tuple[list[_Line], tuple[str, ...]]:
    """The lines as :class:`_Line` items (a header further down is not one: its number goes
    to ``headers``), and the columns in effect after them. ``layout``: those in effect
    before them (the first header's by default)."""
    main = tuple(names)
    items: list[_Line] = []
    layout = main if layout is None else layout
    for number, text in lines:
        pieces = text.split(delim)
        other = _mid_header(text, delim, main)
        if other is not None:
            headers.append(number)
            layout = tuple(other)
            continue
        width = len(layout)
        whole = len(pieces) == width + 1 and pieces[-1] == "" if parsable else len(pieces) == width
        if text.lstrip().startswith("#"):
            starts = _hash_row(layout, pieces, parsable)
        else:
            starts = whole or _starts_row(layout, pieces)
        items.append(_Line(number, text, pieces, layout, starts))
    return items, layout


def _line_kind(item: _Line):
    """What sets a line apart in a run of lines alike (see :func:`_resolve_items`): short
    of its layout's fields, or one more, empty (the trailing delimiter); None for neither."""
    c, width = len(item.pieces), len(item.names)
    if item.starts and c < width:
        return ("short", c, item.names)
    if c == width + 1 and item.pieces[-1] == "":
        return ("trailing", c, item.names)
    return None


def _resolve_items(
    items: list[_Line],
    delim: str,
    parsable: bool,
    found: _Found,
    regular: np.ndarray | None = None,
) -> None:
    """Add the rows of ``items`` to ``found`` (or why they are none: ``found.bad``); see
    :func:`_resolve_rows`."""
    slots = (
        np.searchsorted(regular, [item.number for item in items])
        if regular is not None and len(regular) and items
        else np.zeros(len(items), dtype=np.int64)
    )

    # evidence: runs of rows that share a shorter count, or a trailing delimiter
    appended = [False] * len(items)
    trailing_first = [parsable] * len(items)
    kinds = [_line_kind(item) for item in items]
    i = 0
    while i < len(items):
        j = i + 1
        if kinds[i] is not None:
            while j < len(items) and kinds[j] == kinds[i] and slots[j] == slots[i]:
                j += 1
            if j - i >= _APPENDED_RUN:
                for k in range(i, j):
                    if kinds[i][0] == "short":
                        appended[k] = True
                    else:
                        trailing_first[k] = True
        i = j

    i = 0
    while i < len(items):
        first = items[i]
        j = i + 1
        while (
            j < len(items)
            and not items[j].starts
            and items[j].number == items[j - 1].number + 1
            and items[j].names == first.names
        ):
            j += 1
        width, c = len(first.names), len(first.pieces)
        if not first.starts:
            found.bad += [_not_a_row(item) for item in items[i:j]]
            i = j
            continue
        if j == i + 1 and (
            c == width or (c == width + 1 and first.pieces[-1] == "" and trailing_first[i])
        ):  # one line, the right width: nothing to repair
            found.rows.append(_Row(first.number, first.names, first.pieces[:width], c > width))
            i += 1
            continue
        placed = False
        for k in range(j, i, -1):  # the most lines first: a value may span several
            pieces = (
                first.pieces if k == i + 1 else "\n".join(x.text for x in items[i:k]).split(delim)
            )
            readings = _readings(first.names, pieces, delim, trailing_first[i])
            if not readings:
                continue
            if len(readings) == 1:
                values, trailing = readings[0]
                found.rows.append(_Row(first.number, first.names, values, trailing))
                found.repaired += 1
            else:
                found.bad.append(_ambiguous(first, pieces, readings, delim))
            found.bad += [_not_a_row(item, attached=True) for item in items[k:j]]
            placed = True
            break
        if not placed:
            if c < width and appended[i]:
                found.rows.append(_Row(first.number, first.names[:c], first.pieces, short=True))
            elif c < width:
                found.bad.append(
                    _Bad(
                        line=first.number,
                        column=None,
                        value=first.text,
                        problem=f"has {_fields(c)} where the header has {width} (a truncated "
                        "line?)",
                        hint="check that the export was written completely; if rows of an "
                        "export with fewer fields were appended here, put that export's header "
                        "line before them; or read with errors='warn' to leave the row out",
                        drop=True,
                    )
                )
            else:
                free = [name for name in first.names if name in _FREE_SET]
                where = (
                    f"no free-text column ({', '.join(free)}) can take the extra "
                    f"field{'s' if c - width > 1 else ''}"
                    if free
                    else "the export has no free-text column to hold it"
                )
                found.bad.append(
                    _Bad(
                        line=first.number,
                        column=None,
                        value=first.text,
                        problem=f"has {_fields(c)} where the header has {width}: either the row "
                        "has a column the header (or fields=) does not name, or the delimiter "
                        f"{delim!r} is inside a value and {where}",
                        hint="if the export has more columns than the header names, give the "
                        "field list it was written with (the --format of its sacct command); "
                        f"else {_DELIMITER_FIX}",
                        drop=True,
                    )
                )
            found.bad += [_not_a_row(item, attached=True) for item in items[i + 1 : j]]
        i = j


def _not_a_row(item: _Line, attached: bool = False) -> _Bad:
    return _Bad(
        line=item.number,
        column=None,
        value=item.text,
        problem="is not a row (it does not start with a JobID) and does not continue the row "
        "before it (a newline can only be inside a free-text value such as Comment)",
        hint="check this line and the one before it in the export; or read with "
        "errors='warn' to leave the line out",
        drop=True,
        attached=attached,
    )


def _ambiguous(
    first: _Line, pieces: list[str], readings: list[tuple[list[str], bool]], delim: str
) -> _Bad:
    names = first.names
    differ = [
        k for k, _ in enumerate(names) if len({tuple(values)[k] for values, _ in readings}) > 1
    ]
    columns = [names[k] for k in differ] or ["(trailing delimiter)"]
    example = (
        f" ({names[differ[0]]} {readings[0][0][differ[0]]!r} or {readings[1][0][differ[0]]!r})"
        if differ
        else ""
    )
    return _Bad(
        line=first.number,
        column=", ".join(columns),
        value=first.text,
        problem=f"has {_fields(len(pieces))} where the header has {len(names)}: the delimiter "
        f"{delim!r} is inside the values of {' and '.join(columns)}, so the row splits more "
        f"than one way{example}",
        hint=_DELIMITER_FIX,
        drop=True,
        ambiguous=True,
    )


# ------------------------------------------------------------- vectorised column converters


def _dictionary_apply(arr: pa.Array, convert, *, always: bool = False):
    """Run ``convert`` once per distinct value when values repeat a lot.

    A sample decides whether encoding pays; ``always`` forces it (Python converters).
    """
    if len(arr) > 2000:
        if not always:
            sample = arr.slice(0, 20000)
            if pc.count_distinct(sample).as_py() > 0.3 * len(sample):
                return convert(arr)
        encoded = pc.dictionary_encode(arr)
        if len(encoded.dictionary) * 2 < len(arr):
            values, bad = convert(encoded.dictionary)
            indices = encoded.indices
            return values.take(indices), bad[indices.to_numpy(zero_copy_only=False)]
    return convert(arr)


def _missing_mask(arr: pa.Array, extra: Sequence[str] = ()) -> pa.Array:
    return pc.is_in(pc.utf8_trim_whitespace(arr), value_set=pa.array(list(_MISSING) + list(extra)))


def _to_int(parts: pa.Array) -> pa.Array:
    return pc.cast(pc.if_else(pc.equal(parts, ""), pa.scalar(None, pa.string()), parts), pa.int64())


def _bad(ok: np.ndarray, arr: pa.Array, extra: Sequence[str] = ()) -> np.ndarray:
    """Rows that failed to parse and are not a missing-value token."""
    if ok.all():
        return np.zeros(len(ok), dtype=bool)
    bad = ~ok
    bad[bad] = ~_missing_mask(arr.filter(pa.array(bad)), extra).to_numpy(zero_copy_only=False)
    return bad


def _durations(arr: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Durations in ns: validate with the regex, then split at - : . and add up in numpy."""
    arr = pc.utf8_trim_whitespace(arr)
    ok = pc.match_substring_regex(arr, pattern=_DURATION_RE)
    ok_np = ok.to_numpy(zero_copy_only=False)
    text = pc.if_else(ok, arr, "0:0")
    lists = pc.split_pattern(
        pc.replace_substring(pc.replace_substring(text, "-", ":"), ".", ":"), ":"
    )
    offsets = lists.offsets.to_numpy()
    start, end = offsets[:-1], offsets[1:]
    values = pc.cast(lists.values, pa.int64()).to_numpy()
    widths = pc.utf8_length(lists.values).to_numpy()
    has_day = pc.match_substring(text, "-").to_numpy(zero_copy_only=False)
    has_frac = pc.match_substring(text, ".").to_numpy(zero_copy_only=False)
    colons = pc.count_substring(text, ":").to_numpy()
    first = start + has_day
    days = np.where(has_day, values[start], 0)
    hours = np.where(colons == 2, values[first], 0)
    minutes = values[first + (colons == 2)]
    seconds = values[first + (colons == 2) + 1]
    last = end - 1
    frac = np.where(has_frac, values[last] * 10 ** (9 - np.where(has_frac, widths[last], 9)), 0)
    total = (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1_000_000_000 + frac
    # sacct writes minutes and seconds below 60, and hours below 24 after a day part
    ok_np = ok_np & (minutes < 60) & (seconds < 60) & ~(has_day & (hours >= 24))
    out = pa.array(total, pa.int64(), mask=~ok_np).cast(pa.duration("ns"))
    return out, _bad(ok_np, arr, _NO_LIMIT)


def _ints(arr: pa.Array, extra_missing: Sequence[str] = ()) -> tuple[pa.Array, np.ndarray]:
    arr = pc.utf8_trim_whitespace(arr)
    ok = pc.match_substring_regex(arr, pattern=r"^\d{1,18}$")  # sacct's counts are >= 0
    values = pc.cast(pc.if_else(ok, arr, pa.scalar(None, pa.string())), pa.int64())
    return values, _bad(ok.to_numpy(zero_copy_only=False), arr, extra_missing)


def _memory(arr: pa.Array, bare_unit_mb: float) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """Sizes in MB (float64), the n/c suffix, and the bad mask."""
    arr = pc.utf8_trim_whitespace(arr)
    matched = pc.extract_regex(arr, pattern=_MEMORY_RE)
    ok = pc.is_valid(matched)
    num = pc.struct_field(matched, "num")
    num = pc.cast(pc.if_else(pc.equal(num, ""), pa.scalar(None, pa.string()), num), pa.float64())
    unit = pc.struct_field(matched, "unit")
    factor = pc.case_when(
        pc.make_struct(*(pc.equal(unit, u) for u in ("K", "M", "G", "T", "P", "E"))),
        *(pa.scalar(_UNIT_MB[u]) for u in ("K", "M", "G", "T", "P", "E")),
        pa.scalar(bare_unit_mb),
    )
    values = pc.multiply(num, factor)
    fits = pc.fill_null(pc.less(values, 2.0**53), True)
    ok = pc.and_(ok, fits)
    values = pc.if_else(fits, values, pa.scalar(None, pa.float64()))
    return values, pc.struct_field(matched, "per"), _bad(ok.to_numpy(zero_copy_only=False), arr)


def _timestamps(
    arr: pa.Array, tz: str | None, seen: set[str] | None = None
) -> tuple[pa.Array, np.ndarray]:
    """Times as naive datetimes; epoch seconds are shown in ``tz`` (UTC when None), and
    ``seen`` receives ``"epoch"`` when there were any."""
    arr = pc.utf8_trim_whitespace(arr)
    values = pc.strptime(arr, format="%Y-%m-%dT%H:%M:%S", unit="s", error_is_null=True)
    missing = _missing_mask(arr).to_numpy(zero_copy_only=False)
    got = pc.is_valid(values).to_numpy(zero_copy_only=False)
    todo = ~(got | missing)
    if seen is not None and got.any():
        seen.add("written")
    if todo.any():  # other spellings: "YYYY-MM-DD HH:MM:SS" and epoch seconds (%s)
        spaced = pc.strptime(arr, format="%Y-%m-%d %H:%M:%S", unit="s", error_is_null=True)
        values = pc.coalesce(values, spaced)
        if seen is not None and pc.any(pc.is_valid(values)).as_py():
            seen.add("written")  # (dates written: with epoch seconds too, a mixed export)
        is_epoch = pc.and_(
            pc.match_substring_regex(arr, pattern=r"^\d{9,11}$"),
            pc.less_equal(pc.utf8_lpad(arr, 11, "0"), f"{_MAX_EPOCH:011d}"),
        )
        epoch = pc.cast(pc.if_else(is_epoch, arr, pa.scalar(None, pa.string())), pa.int64())
        if pc.any(is_epoch).as_py():
            if seen is not None:
                seen.add("epoch")
            # (whole seconds, the missing ones as 0 and masked after: pandas converts a float
            # array with NaN through a multiply that can overflow, FloatingPointError)
            whole = pc.fill_null(epoch, 0).to_numpy(zero_copy_only=False)
            seconds = pd.to_datetime(whole, unit="s", utc=True)
            local = seconds.tz_convert(tz).tz_localize(None) if tz else seconds.tz_localize(None)
            epoch_ts = pa.array(local.astype("datetime64[s]"), pa.timestamp("s"))
            epoch_ts = pc.if_else(pc.is_valid(epoch), epoch_ts, pa.scalar(None, pa.timestamp("s")))
            values = pc.coalesce(values, epoch_ts)
        got = pc.is_valid(values).to_numpy(zero_copy_only=False)
    # strptime rolls an impossible date over (2024-02-30 -> 03-01) and takes any year: the
    # day written must be the day read, and the year one that int64 nanoseconds hold
    written = pc.utf8_slice_codeunits(arr, 8, 10)
    two = pc.match_substring_regex(written, pattern=r"^\d\d$")
    day = pc.cast(pc.if_else(two, written, "0"), pa.int64())
    texty = pc.match_substring(arr, "-")  # (epoch seconds have no day written)
    rolled = pc.and_(texty, pc.or_(pc.invert(two), pc.not_equal(day, pc.day(values))))
    outside = pc.or_(
        pc.less(values, pa.scalar(_MIN_TIME.to_pydatetime(), pa.timestamp("s"))),
        pc.greater_equal(values, pa.scalar(_MAX_TIME.to_pydatetime(), pa.timestamp("s"))),
    )
    wrong = pc.fill_null(pc.or_(rolled, outside), False)
    if pc.any(wrong).as_py():
        values = pc.if_else(wrong, pa.scalar(None, pa.timestamp("s")), values)
        got = got & ~wrong.to_numpy(zero_copy_only=False)
    return values.cast(pa.timestamp("ns")), ~(got | missing)


def _states(arr: pa.Array) -> tuple[pa.Array, pa.Array, np.ndarray]:
    def convert(values: pa.Array):
        texts = values.to_pylist()
        states = [parse_state(t) for t in texts]
        by = [
            m.group(1) if (m := re.match(r"^\s*CANCELLED by (\S+)", t or "")) else None
            for t in texts
        ]
        return pa.StructArray.from_arrays(
            [pa.array(states, pa.string()), pa.array(by, pa.string())], ["state", "by"]
        ), np.zeros(len(texts), dtype=bool)

    struct, bad = _dictionary_apply(arr, convert, always=True)
    return struct.field("state"), struct.field("by"), bad


def _tres_gpu_column(arr: pa.Array, legacy: bool) -> tuple[pa.Array, pa.Array, np.ndarray]:
    def convert(values: pa.Array):
        counts, types, bad = [], [], []
        for text in values.to_pylist():
            try:
                if legacy:
                    count, kind = gres_gpus(text), None
                    if count is not None:
                        kinds = re.findall(r"gpu:([A-Za-z][^:(,]*):\d", text or "")
                        kind = ",".join(sorted(set(kinds))) or None
                else:
                    count, kind = _allocated_tres(text)
                bad.append(False)
            except SacctParseError:
                count, kind = None, None
                bad.append(True)
            counts.append(count)
            types.append(kind)
        return pa.StructArray.from_arrays(
            [pa.array(counts, pa.int64()), pa.array(types, pa.string())], ["n", "type"]
        ), np.asarray(bad, dtype=bool)

    struct, bad = _dictionary_apply(arr, convert, always=True)
    return struct.field("n"), struct.field("type"), bad


#: stands for a cut list's "..." while JobIDs are split at their first "." (a step's)
_ELLIPSIS = "\u2026"
_ALLOC_RE = (
    r"^(?P<base>\d+)(?:_(?P<task>\d{1,9})|_\[(?P<range>[0-9,%\-:.]*)\]?|\+(?P<het>\d{1,9}))?$"
)


def _job_ids(
    arr: pa.Array, raw_ids: pa.Array | None = None
) -> tuple[dict[str, pa.Array], np.ndarray]:
    """Split JobIDs into allocation, step, array and het-job parts (vectorised).

    The full regex only validates (fast); the allocation/step split is one split at "."; the
    array/het regex runs only on the rows that have ``_`` or ``+``. With ``raw_ids`` (the
    JobIDRaw column) a JobID that is a name (``_NAME_RE``) beside a numeric JobIDRaw is an
    allocation row too (``"Named"`` in the result marks them); its array and het-job parts
    are not guessed from the name.
    """
    arr = pc.utf8_trim_whitespace(arr)
    n = len(arr)
    ok = pc.match_substring_regex(arr, pattern=_JOBID_RE).to_numpy(zero_copy_only=False)
    cut_list = pc.any(pc.match_substring(arr, "...")).as_py()
    if cut_list:  # (an array list sacct cut short, 124_[1,4,...57...]: its dots are no step)
        arr = pc.replace_substring(arr, "...", _ELLIPSIS)
    named = np.zeros(n, dtype=bool)
    if raw_ids is not None and not ok.all():
        named = (
            ~ok
            & pc.match_substring_regex(arr, pattern=_NAME_RE).to_numpy(zero_copy_only=False)
            & pc.match_substring_regex(raw_ids, pattern=_RAW_ID_RE).to_numpy(zero_copy_only=False)
        )
    lists = pc.split_pattern(arr, pattern=".", max_splits=1)
    offsets = lists.offsets.to_numpy()
    starts, lengths = offsets[:-1], np.diff(offsets)
    flat = lists.values
    alloc = flat.take(pa.array(starts))
    if cut_list:
        alloc = pc.replace_substring(alloc, _ELLIPSIS, "...")
    has_step = lengths == 2
    step = flat.take(pa.array(np.where(has_step, starts + 1, 0), mask=~has_step))
    step = pc.if_else(pc.equal(step, ""), pa.scalar(None, pa.string()), step)
    out = {
        "AllocJobID": alloc,
        "ArrayJobID": pa.nulls(n, pa.string()),
        "ArrayTaskID": pa.nulls(n, pa.int64()),
        "ArrayTaskRange": pa.nulls(n, pa.string()),
        "HetJobID": pa.nulls(n, pa.string()),
        "HetJobOffset": pa.nulls(n, pa.int64()),
        "StepID": step,
        "ArrayTasks": pa.array(np.ones(n, dtype=np.int64)),
        "Named": pa.array(named),
        "Cut": pa.array(np.zeros(n, dtype=bool)),
    }
    special = pc.or_(pc.match_substring(alloc, "_"), pc.match_substring(alloc, "+"))
    special = special.to_numpy(zero_copy_only=False) & ok
    if special.any():
        mask = pa.array(special)
        sub = alloc.filter(mask)
        parts = pc.extract_regex(sub, pattern=_ALLOC_RE)
        base, task, rng, het = (pc.struct_field(parts, k) for k in ("base", "task", "range", "het"))
        null = pa.scalar(None, pa.string())
        is_range = pc.match_substring(sub, "_[")
        is_array = pc.or_(pc.not_equal(task, ""), is_range)
        is_het = pc.not_equal(het, "")
        ranges = pc.if_else(is_range, rng, null)
        tasks = [1] * len(sub)
        if pc.any(is_range).as_py():
            closed = pc.match_substring_regex(sub, pattern=r"\]$").to_pylist()
            listed = list(zip(ranges.to_pylist(), closed))
            tasks = [1 if r is None else _range_tasks(r, c) for r, c in listed]
            cut = np.zeros(n, dtype=bool)
            cut[np.flatnonzero(special)] = [r is not None and _range_cut(r, c) for r, c in listed]
            out["Cut"] = pa.array(cut)
            wrong = np.array([t is None for t in tasks])
            if wrong.any():  # a range sacct never writes: a bad JobID
                where = np.flatnonzero(special)[wrong]
                ok = ok.copy()
                ok[where] = False
                tasks = [1 if t is None else t for t in tasks]
        for name, values in (
            ("ArrayJobID", pc.if_else(is_array, base, null)),
            ("ArrayTaskID", _to_int(task)),
            ("ArrayTaskRange", ranges),
            ("HetJobID", pc.if_else(is_het, base, null)),
            ("HetJobOffset", _to_int(het)),
            ("ArrayTasks", pa.array(tasks, pa.int64())),
        ):
            out[name] = pc.replace_with_mask(out[name], mask, values.cast(out[name].type))
    return out, ~(ok | named)


def _id_column(
    arr: pa.Array, derived: pa.Array, named: np.ndarray, whole: bool
) -> tuple[pa.Array, np.ndarray]:
    """An ArrayJobID/ArrayTaskID/HetJobID/HetJobOffset column written in the file.

    sacct never writes these: ``write_sacct`` does, for rows whose JobID is a name (a
    simulation's ``sweep_3`` cannot say it is task 3 of array 2). On such rows the file's value
    is taken; on the other rows JobID decides and a value that disagrees with it is bad.
    """
    text = _text(pc.utf8_trim_whitespace(arr))
    if whole:
        given, bad = _ints(pc.fill_null(text, ""))
    else:
        given, bad = text, np.zeros(len(arr), dtype=bool)
    given = given.cast(derived.type)
    blank = pc.is_null(given).to_numpy(zero_copy_only=False)
    same = pc.fill_null(pc.equal(given, derived), False).to_numpy(zero_copy_only=False)
    bad = bad | (~named & ~blank & ~same)
    return pc.if_else(pa.array(named), given, derived), bad


# ----------------------------------------------------------------------------- normalising


def _text(arr: pa.Array) -> pa.Array:
    """Free text with blanks as missing; R's ``""`` for an empty field is blank too."""
    arr = arr.cast(pa.string())
    blank = pc.or_(pc.equal(arr, ""), pc.equal(arr, '""'))
    return pc.if_else(blank, pa.scalar(None, pa.string()), arr)


def _null_like(n: int, type_: pa.DataType) -> pa.Array:
    return pa.nulls(n, type_)


def _convert(raw: _RawTable, tz: str | None) -> tuple[dict[str, pa.Array], dict[str, np.ndarray]]:
    """Typed arrow columns (sacct names plus derived ones) and a bad-value mask per column."""
    cols = {name: pc.fill_null(raw.columns[name].cast(pa.string()), "") for name in raw.names}
    size = len(raw.lines)
    seen: set[str] = set()
    out: dict[str, pa.Array] = {}
    problems: dict[str, np.ndarray] = {}

    def note(column: str, bad: np.ndarray) -> None:
        if bad.any():
            problems[column] = problems.get(column, np.zeros(len(bad), bool)) | bad

    ids, bad = _job_ids(cols["JobID"], cols.get("JobIDRaw"))
    raw_bad = np.zeros(size, dtype=bool)
    if "JobIDRaw" in cols:  # a number (123, 123.batch on a step row), as sacct writes it
        raw_text = pc.utf8_trim_whitespace(cols["JobIDRaw"])
        raw_ok = pc.match_substring_regex(raw_text, pattern=_RAW_ROW_RE)
        raw_bad = _bad(raw_ok.to_numpy(zero_copy_only=False), raw_text)
        # a JobID that is a name is read only beside a numeric JobIDRaw: that one is to blame
        named_bad = bad & pc.match_substring_regex(
            pc.utf8_trim_whitespace(cols["JobID"]), pattern=_NAME_RE
        ).to_numpy(zero_copy_only=False)
        note("JobID, JobIDRaw", named_bad)
        note("JobIDRaw", raw_bad & ~named_bad)
        bad = bad & ~named_bad
    note("JobID", bad)
    named = ids.pop("Named").to_numpy(zero_copy_only=False)
    cut = ids.pop("Cut").to_numpy(zero_copy_only=False) & ~bad
    if cut.any():
        warn_at_caller(
            f"{raw.file}: {int(cut.sum())} pending array row(s) "
            f"({_lines_shown(raw, raw.lines[cut].tolist())}) have a task list sacct cut short "
            "at SLURM_BITSTR_LEN (64 characters unless set; it ends in '...' or lacks its "
            "']'): their ArrayTasks counts only the tasks written whole, fewer than pending. "
            "To count them all, export again with SLURM_BITSTR_LEN=0 set (sacct then writes "
            "every list whole: SLURM_BITSTR_LEN=0 sacct -P ...)",
            SacctParseWarning,
        )
    out["JobID"] = _text(pc.utf8_trim_whitespace(cols["JobID"]))
    out.update(ids)
    for name, whole in _ID_COLUMNS.items():
        if name in cols:
            out[name], bad = _id_column(cols[name], out[name], named, whole)
            note(name, bad)
    for name in raw.names:
        arr = cols[name]
        if name == "JobID" or name in _ID_COLUMNS:
            continue
        bad = None
        if name in _TIME_FIELDS:
            twin = next((t for t in ("Submit", "Start") if t in out and t != name), None)
            if twin is not None and pc.all(pc.equal(arr, cols[twin])).as_py():
                out[name], bad = out[twin], problems.get(twin, np.zeros(len(arr), dtype=bool))
            else:  # (Eligible is usually Submit: parsed once)
                out[name], bad = _dictionary_apply(arr, lambda a: _timestamps(a, tz, seen))
        elif name in _DURATION_FIELDS:
            out[name], bad = _dictionary_apply(arr, _durations)
        elif name in _INT_FIELDS:
            extra = _NO_LIMIT if name == "TimelimitRaw" else ()
            out[name], bad = _ints(arr, extra)
        elif name == "ReqMem":

            def reqmem(a):
                mb, per, b = _memory(a, 1.0)
                return pa.StructArray.from_arrays([mb, per], ["mb", "per"]), b

            struct, bad = _dictionary_apply(arr, reqmem)
            # whole MB, as Slurm keeps them; a request below 1 MB (512K) is 1 MB, not 0 (which
            # means a node's whole memory)
            mb = struct.field("mb")
            whole = pc.if_else(pc.less(mb, 1.0), pc.ceil(mb), pc.round(mb))
            out["ReqMem"] = pc.cast(whole, pa.int64())
            per = struct.field("per")
            out["ReqMemPer"] = pc.case_when(
                pc.make_struct(pc.equal(per, "c"), pc.equal(per, "n")),
                pa.scalar("cpu"),
                pa.scalar("node"),
            )
        elif name in _MEMORY_FIELDS:
            bare = _BARE_MB[name]

            def size_mb(a, bare=bare):
                mb, _per, b = _memory(a, bare)
                return mb, b

            out[name], bad = _dictionary_apply(arr, size_mb)
        elif name == "State":
            out["State"], out["CancelledBy"], bad = _states(arr)
        elif name in _EXIT_FIELDS:
            text = pc.utf8_trim_whitespace(arr)
            ok = pc.match_substring_regex(text, pattern=_EXIT_RE)
            if pc.any(ok).as_py():  # each part 0..255
                parts = pc.split_pattern(pc.if_else(ok, text, "0:0"), ":")
                small = pc.and_(
                    pc.less_equal(pc.cast(pc.list_element(parts, 0), pa.int64()), 255),
                    pc.less_equal(pc.cast(pc.list_element(parts, 1), pa.int64()), 255),
                )
                ok = pc.and_(ok, small)
            bad = ~(
                ok.to_numpy(zero_copy_only=False)
                | _missing_mask(text).to_numpy(zero_copy_only=False)
            )
            out[name] = pc.if_else(ok, text, pa.scalar(None, pa.string()))
            if name == "ExitCode":
                pieces = pc.split_pattern(pc.if_else(ok, text, "0:0"), ":")
                null = pa.scalar(None, pa.int64())
                out["ExitStatus"] = pc.if_else(
                    ok, pc.cast(pc.list_element(pieces, 0), pa.int64()), null
                )
                out["ExitSignal"] = pc.if_else(
                    ok, pc.cast(pc.list_element(pieces, 1), pa.int64()), null
                )
        elif name == "Flags":
            out[name] = _text(arr)
            started = pa.nulls(size, pa.string())
            for flag, by in _STARTED_BY.items():  # SchedBackfill wins if a job says both
                has = pc.fill_null(pc.match_substring(out[name], flag), False)
                started = pc.if_else(pc.and_(has, pc.is_null(started)), pa.scalar(by), started)
            out["StartedBy"] = started
        elif name == "NodeList":
            text = _text(arr)
            none = pc.equal(pc.fill_null(text, ""), "None assigned")
            bad = _nodelists(arr)
            none = pc.or_(none, pa.array(bad))  # (errors='coerce': a bad one is NA)
            out[name] = pc.if_else(none, pa.scalar(None, pa.string()), text)
        else:
            out[name] = _text(arr)
        if bad is not None:
            note(name, bad)

    # GPUs: what was allocated (AllocTRES, else the pre-20.11 AllocGRES: sites without
    # AccountingStorageTRES=gres/gpu list GPUs only there), else what was requested (ReqTRES,
    # else ReqGRES: pending jobs). A given list without a GPU entry means 0 GPUs only when no
    # other list of its kind names some; an allocation is never overridden by a request.
    ngpus, gtype = _null_like(size, pa.int64()), _null_like(size, pa.string())
    for group in (("AllocTRES", "AllocGRES"), ("ReqTRES", "ReqGRES")):
        given_any = pa.array(np.zeros(size, dtype=bool))
        for name in group:
            if name not in cols:
                continue
            count, kind, bad = _tres_gpu_column(cols[name], name.endswith("GRES"))
            note(name, bad)
            given = pc.and_(pc.invert(_missing_mask(cols[name])), pc.invert(pa.array(bad)))
            if not name.endswith("GRES"):  # (gpu=2: GPUs slurmlab cannot count, not 0)
                odd = _odd_gpu_entries(raw, name, cols[name], bad)
                if odd.any():
                    given = pc.and_(given, pa.array(~odd))
                    count = pc.if_else(pa.array(odd), pa.scalar(None, pa.int64()), count)
            given_any = pc.or_(given_any, given)
            gtype = pc.if_else(pc.is_null(ngpus), kind, gtype)
            ngpus = pc.coalesce(ngpus, count)
        ngpus = pc.if_else(pc.and_(pc.is_null(ngpus), given_any), pa.scalar(0, pa.int64()), ngpus)
    requested = [name for name in ("ReqTRES", "ReqGRES") if name in cols]
    if (
        requested
        and not any(name in cols for name in ("AllocTRES", "AllocGRES"))
        and pc.any(pc.greater(ngpus, 0)).as_py()
    ):
        warnings.warn(
            f"{raw.file}: the export has no AllocTRES, so NGPUS (and GPU-hours) are what "
            f"was requested ({', '.join(requested)}), which can differ from what was allocated "
            "(--exclusive, --gpus over several nodes); add AllocTRES to sacct -o",
            SacctParseWarning,
            stacklevel=4,
        )
    out["NGPUS"], out["GPUType"] = ngpus, gtype
    _warn_blank_alloc_tres(raw, cols, ngpus, ids)

    # prefer the *Raw columns: exact, and cheaper than text
    for raw_name, name, unit in (
        ("ElapsedRaw", "Elapsed", 10**9),
        ("TimelimitRaw", "Timelimit", 60 * 10**9),
        ("CPUTimeRAW", "CPUTime", 10**9),
    ):
        if raw_name in out:
            over = pc.fill_null(pc.greater(out[raw_name], (2**63 - 1) // unit), False)
            if pc.any(over).as_py():  # more than int64 nanoseconds hold (292 years)
                note(raw_name, over.to_numpy(zero_copy_only=False))
                out[raw_name] = pc.if_else(over, pa.scalar(None, pa.int64()), out[raw_name])
            exact = pc.multiply(out[raw_name], unit).cast(pa.duration("ns"))
            out[name] = pc.coalesce(exact, out[name]) if name in out else exact
    if "NCPUS" not in out and "AllocCPUS" in out:
        out["NCPUS"] = out["AllocCPUS"]
    if "Elapsed" not in out and "CPUTime" in out and "NCPUS" in out:
        # CPUTime is Elapsed x NCPUS by definition: recover Elapsed (slyme's field list)
        cpus = pc.if_else(pc.greater(out["NCPUS"], 0), out["NCPUS"], pa.scalar(None, pa.int64()))
        ns = pc.divide(pc.cast(out["CPUTime"], pa.int64()), cpus)
        out["Elapsed"] = ns.cast(pa.duration("ns"))
    if "NNodes" not in out and "AllocNodes" in out:
        out["NNodes"] = out["AllocNodes"]
    # an export without those fields but with AllocTRES/ReqTRES holds the same counts
    for name, key in (("NCPUS", "cpu"), ("NNodes", "node")):
        if name not in out and ("AllocTRES" in cols or "ReqTRES" in cols):
            out[name] = _tres_count(cols, key)
    if "ReqMem" not in out and "ReqTRES" in cols:  # (print.c's ReqMem is ReqTRES's mem=)
        found = pc.extract_regex(cols["ReqTRES"], pattern=r"(?:^|,)mem=(?P<size>[^,]*)")
        mb, _per, _bad_mem = _memory(pc.fill_null(pc.struct_field(found, "size"), ""), 1.0)
        out["ReqMem"] = pc.cast(pc.if_else(pc.less(mb, 1.0), pc.ceil(mb), pc.round(mb)), pa.int64())
    if "JobIDRaw" in out:
        first = pc.list_element(
            pc.split_pattern(pc.fill_null(out["JobIDRaw"], ""), ".", max_splits=1), 0
        )
        first = pc.if_else(pa.array(raw_bad), pa.scalar(None, pa.string()), _text(first))
        out["JobIDRaw"] = pc.coalesce(first, out["AllocJobID"])
    else:
        out["JobIDRaw"] = out["AllocJobID"]
    _check_times(raw, out, note)
    raw.epoch = "epoch" in seen
    if {"epoch", "written"} <= seen:
        warnings.warn(
            f"{raw.file}: its times mix epoch seconds and written dates (sacct writes one "
            "export one way, by SLURM_TIME_FORMAT): the epoch ones are shown in tz= (UTC "
            "without it), the written ones as written (the local time of the host that ran "
            "sacct), so the two can be hours apart; export them one way",
            SacctParseWarning,
            stacklevel=4,
        )
    return out, problems


def _tres_count(cols: dict[str, pa.Array], key: str) -> pa.Array:
    """The ``key=`` count (``cpu``, ``node``) of each row's AllocTRES, or of its ReqTRES where
    AllocTRES is blank (a job that never got an allocation): what sacct prints as NCPUS and
    NNodes (print.c takes both from these TRES strings: cpu_tres_rec_count, PRINT_NNODES)."""
    pattern = rf"(?:^|,){key}=(?P<n>\d{{1,18}})(?:,|$)"
    size = len(next(iter(cols.values())))
    out = _null_like(size, pa.int64())
    for name in ("AllocTRES", "ReqTRES"):
        if name not in cols:
            continue
        text = pc.utf8_trim_whitespace(cols[name])
        found = pc.cast(pc.struct_field(pc.extract_regex(text, pattern=pattern), "n"), pa.int64())
        if name == "AllocTRES":
            out = found
            blank = pc.equal(text, "")
        else:
            out = pc.if_else(blank, found, out) if "AllocTRES" in cols else found
    return out


def _odd_gpu_entries(raw: _RawTable, name: str, arr: pa.Array, bad: np.ndarray) -> np.ndarray:
    """Rows of a TRES column with a GPU entry sacct never writes (``gpu=2``, ``GRES/gpu=2``:
    sacct writes ``gres/gpu=2``), named in a warning: their GPUs are unknown, not 0. The
    mask of them."""
    odd = np.zeros(len(arr), dtype=bool)
    # (a fast look for the rows to check: a key with "gpu" and no "/", or GRES/ in capitals;
    # on the column's distinct values, far fewer than its rows)
    distinct = pc.unique(arr)
    bare = pc.match_substring_regex(distinct, r"(?:^|,)\s*[^,=/]*gpu[^,=]*=", ignore_case=True)
    cased = pc.match_substring_regex(distinct, r"(?:^|,)\s*[^,=/]*[A-Z][^,=/]*/")
    hits = pc.or_(bare, cased)
    maybe = pc.fill_null(pc.take(hits, pc.index_in(arr, value_set=distinct)), False)
    first = None  # (the first such entry's key, for the warning)
    for pos in np.flatnonzero(maybe.to_numpy(zero_copy_only=False) & ~bad).tolist():
        keys = [item.partition("=")[0].strip() for item in (arr[pos].as_py() or "").split(",")]
        found = next((k for k in keys if _odd_gpu_key(k)), None)
        if found is not None:
            odd[pos] = True
            first = first or found
    if odd.any():
        pos = np.flatnonzero(odd)
        meant = "gres/gpu" + first.lower().partition("gpu")[2].removeprefix("s")
        warn_at_caller(
            f"{raw.file}: {len(pos)} row(s) ({_lines_shown(raw, raw.lines[pos].tolist())}) have "
            f"a GPU entry in {name} that sacct never writes ({first}=..., in "
            f"{arr[int(pos[0])].as_py()!r}): sacct writes GPUs as gres/gpu=N (gres/gpu:TYPE=N "
            "for a type), so their GPUs are not counted from it: NGPUS is <NA> (unknown, not "
            f"0) unless another TRES field names them; write {meant}=N for it (the value was "
            "edited, or written by another tool)",
            SacctParseWarning,
        )
    return odd


def _odd_gpu_key(key: str) -> bool:
    """A TRES key naming GPUs as sacct never writes it (``gpu``, ``gpus:a100``,
    ``GRES/gpu``): not under ``gres/``, nor a license or burst buffer that says gpu."""
    return "gpu" in key.lower() and not key.startswith(("gres/", "license/", "bb/"))


def _warn_blank_alloc_tres(
    raw: _RawTable, cols: dict[str, pa.Array], ngpus: pa.Array, ids: dict[str, pa.Array]
) -> None:
    """Warn about allocation rows of runs that took time but have a blank AllocTRES, when
    the export's other runs have theirs (every run blank is unknown_hours' to name): sacct
    writes the TRES of every allocation, so such a row was cut or edited; its GPUs are
    unknown (NGPUS <NA>), and GPU-hours count without it."""
    if "AllocTRES" not in cols:
        return
    missing = _missing_mask(cols["AllocTRES"]).to_numpy(zero_copy_only=False)
    if not missing.any():  # (the usual export: nothing to look at)
        return
    if "ElapsedRaw" in cols:
        took, _ = _ints(cols["ElapsedRaw"])
        took = pc.greater(took, 0)
    elif "Elapsed" in cols:
        took, _ = _dictionary_apply(cols["Elapsed"], _durations)
        took = pc.greater(pc.cast(took, pa.int64()), 0)
    else:
        return
    took = pc.and_(pc.fill_null(took, False), pc.is_null(ids["StepID"]))
    ran = took.to_numpy(zero_copy_only=False)
    blank = missing & ran
    if "AllocGRES" in cols:  # (GPUs of an older Slurm, listed there)
        blank &= _missing_mask(cols["AllocGRES"]).to_numpy(zero_copy_only=False)
    if not blank.any() or blank.sum() == ran.sum():
        return
    requested = (blank & pc.is_valid(ngpus).to_numpy(zero_copy_only=False)).any()
    what = "NGPUS is <NA>" + (
        ", or what ReqTRES requested where it names GPUs" if requested else ""
    )
    warn_at_caller(
        f"{raw.file}: {int(blank.sum())} run(s) that took time have a blank AllocTRES "
        f"({_lines_shown(raw, raw.lines[blank].tolist())}), while the export's other runs "
        "have theirs: sacct writes the TRES of every allocation, so these rows were cut or "
        f"edited; their GPUs are unknown, not 0 ({what}), and GPU-hours leave them out; "
        "export them again, or fill in their AllocTRES",
        SacctParseWarning,
    )


#: What sacct writes as JobIDRaw: the job's number, with the step on a step row (``0+1``:
#: a heterogeneous step's component).
_RAW_ROW_RE = r"^\d+(?:\.[A-Za-z0-9_\-]+(?:\+\d{1,9})?)?$"
#: A Slurm hostlist: names and bracketed ranges (``node[01-08,12]x``), joined by commas.
_RANGES = r"\[\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\]"
_HOSTLIST_RE = rf"^(?:[^\[\],\s]|{_RANGES})+(?:,(?:[^\[\],\s]|{_RANGES})+)*$"
#: A daylight-saving change moves sacct's naive local times by at most this much (an hour;
#: 30 minutes on Lord Howe Island): a row off by it is not refused.
_DST_NS = 3600 * 10**9
_DST_SHIFTS_NS = (1800 * 10**9, 3600 * 10**9)


def _nodelists(arr: pa.Array) -> np.ndarray:
    """NodeLists that are not Slurm hostlists (``node[1-``): the bad mask. A fast regex, and
    for the values it refuses, the hostlist module has the last word."""
    text = pc.utf8_trim_whitespace(arr)
    ok = pc.match_substring_regex(text, pattern=_HOSTLIST_RE).to_numpy(zero_copy_only=False)
    bad = _bad(ok, text, ("None assigned",))
    for pos in np.flatnonzero(bad):
        try:
            hostlist.expand_hostlist(text[int(pos)].as_py())
            bad[pos] = False
        except hostlist.BadHostlist:
            pass
    return bad


def _check_times(raw: _RawTable, out: dict[str, pa.Array], note) -> None:
    """Rows whose times contradict each other, as sacct never writes them: End before Start
    (by more than a daylight-saving change: within one, a warning), and, for a run that
    ended, an Elapsed that is not End - Start - Suspended. Their bad values become NA
    (errors='coerce')."""
    if "Start" not in out or "End" not in out:
        return
    start = pc.cast(out["Start"], pa.int64())
    span = pc.subtract(pc.cast(out["End"], pa.int64()), start)  # (null when one is missing)
    known = pc.is_valid(span).to_numpy(zero_copy_only=False)
    span_ns = pc.fill_null(span, 0).to_numpy(zero_copy_only=False)
    backwards = known & (span_ns < -_DST_NS)
    if backwards.any():
        note("Start, End", backwards)
        out["End"] = pc.if_else(pa.array(backwards), pa.scalar(None, out["End"].type), out["End"])
    shifted = known & (span_ns < 0) & ~backwards
    wrong = _elapsed_wrong(raw, out, note, known, span, backwards)
    shifted &= ~wrong  # (those are errors: their Elapsed says the times are wrong)
    if shifted.any():
        pos = np.flatnonzero(shifted)
        shown = ", ".join(str(int(raw.lines[p])) for p in pos[:10]) + (
            " ..." if len(pos) > 10 else ""
        )
        warn_at_caller(
            f"{raw.file}: {len(pos)} row(s) end before they start, by up to an hour (line(s) "
            f"{shown}): sacct writes naive local times, so a daylight-saving change does "
            "this; their run times are off by it: export with TZ=UTC sacct ... to avoid it",
            UserWarning,
        )


def _elapsed_wrong(raw: _RawTable, out: dict, note, known, span, backwards) -> np.ndarray:
    """Rows of runs that ended whose Elapsed is not End - Start - Suspended (nor off by a
    daylight-saving change): noted as bad, their Elapsed NA; the mask of them."""
    none = np.zeros(len(known), dtype=bool)
    elapsed_in = next((n for n in ("ElapsedRaw", "Elapsed") if n in raw.names), None)
    if elapsed_in is None or "Elapsed" not in out or "State" not in out:
        return none
    # only a run that ended has End - Start as its Elapsed (a RUNNING row's End may be the end
    # of the export's -E window, and its Elapsed runs to the time of the export)
    ended = pc.is_in(out["State"], value_set=pa.array(sorted(TERMINAL_STATES)))
    known = known & pc.fill_null(ended, False).to_numpy(zero_copy_only=False)
    elapsed = pc.cast(out["Elapsed"], pa.int64())
    diff = pc.subtract(elapsed, span)
    suspended = "Suspended" in raw.names and "Suspended" in out
    if suspended:  # (sacct: Elapsed = End - Start - Suspended)
        diff = pc.add(diff, pc.fill_null(pc.cast(out["Suspended"], pa.int64()), 0))
    checked = pc.is_valid(diff).to_numpy(zero_copy_only=False) & known & ~backwards
    diff_ns = pc.fill_null(diff, 0).to_numpy(zero_copy_only=False)
    fits = (diff_ns == 0) | np.isin(np.abs(diff_ns), _DST_SHIFTS_NS)
    if not suspended:  # time suspended is not in the export: Elapsed may be shorter
        fits |= diff_ns < 0
    wrong = checked & ~fits
    if wrong.any():
        key = f"Start, End, {'Suspended, ' if suspended else ''}{elapsed_in}"
        note(key, wrong)
        out["Elapsed"] = pc.if_else(
            pa.array(wrong), pa.scalar(None, out["Elapsed"].type), out["Elapsed"]
        )
    return wrong


def _frame(columns: dict[str, pa.Array], mask: pa.Array | None) -> pd.DataFrame:
    """A pandas frame from typed arrow columns (strings stay pyarrow-backed)."""
    arrays, names = [], []
    for name, arr in columns.items():
        if mask is not None:
            arr = arr.filter(mask)
        if pa.types.is_string(arr.type) or pa.types.is_null(arr.type):
            arr = pc.cast(arr, pa.large_string())
        arrays.append(arr)
        names.append(name)
    table = pa.Table.from_arrays(arrays, names=names)
    return table.to_pandas(types_mapper=_PANDAS_TYPES.get, split_blocks=True, self_destruct=True)


_PANDAS_TYPES = {
    pa.int64(): pd.Int64Dtype(),
    pa.large_string(): pd.StringDtype("pyarrow"),
}


_OVERLAP_WHY = (
    "overlapping or concatenated exports (sacct -S/-E windows that overlap list a job that "
    "spans them in each; cat day1 day2 repeats it) would count the run twice"
)


def _shown_pairs(pairs: list[tuple[object, object]], verb: str) -> str:
    shown = ", ".join(f"{a} {verb} {b}" for a, b in pairs[:10])
    shown = shown.replace(", ", ", line ") if verb.endswith("line") else shown
    return shown + (f" and {len(pairs) - 10} more" if len(pairs) > 10 else "")


def _drop_duplicates(raw: _RawTable) -> None:
    """Leave out rows that repeat an earlier row exactly, with a warning naming the lines.

    Only rows whose JobID repeats are compared (fast when, as usual, none does)."""
    if len(raw.lines) < 2 or "JobID" not in raw.columns:
        return
    ids = pc.utf8_trim_whitespace(raw.columns["JobID"].cast(pa.string()))
    codes = pc.dictionary_encode(ids).indices.to_numpy(zero_copy_only=False)
    repeated = np.bincount(codes)[codes] > 1
    if not repeated.any():
        return
    where = np.flatnonzero(repeated)
    # (with --duplicates a requeued job's runs share a JobID: the times tell them apart)
    narrow = [n for n in ("Submit", "Start", "End", "State") if n in raw.columns]
    if narrow and len(where) > 1:
        taken = pa.array(where)
        keys = pc.binary_join_element_wise(
            ids.take(taken), *(raw.columns[n].cast(pa.string()).take(taken) for n in narrow), "\x1f"
        )
        codes = pc.dictionary_encode(keys).indices.to_numpy(zero_copy_only=False)
        where = where[np.bincount(codes)[codes] > 1]
        if not len(where):
            return
    taken = pa.array(where)
    values = [raw.columns[name].take(taken).to_pylist() for name in raw.names]
    first: dict[tuple, int] = {}
    drop = np.zeros(len(raw.lines), dtype=bool)
    pairs: list[tuple[int, int]] = []
    for pos, key in zip(where.tolist(), zip(*values)):
        seen = first.setdefault(key, pos)
        if seen != pos:
            drop[pos] = True
            pairs.append((int(raw.lines[pos]), int(raw.lines[seen])))
    if not pairs:
        return
    warnings.warn(
        f"{raw.file}: left out {len(pairs)} row(s) that repeat an earlier row exactly (line "
        f"{_shown_pairs(pairs, 'repeats line')}): {_OVERLAP_WHY}; each run is kept once, and "
        "attrs['duplicate_lines'] lists the lines left out",
        SacctParseWarning,
        stacklevel=4,
    )
    keep = pa.array(~drop)
    raw.columns = {name: arr.filter(keep) for name, arr in raw.columns.items()}
    raw.lines = raw.lines[~drop]
    raw.duplicates = sorted(line for line, _ in pairs)


def _normalize(raw: _RawTable, tz: str | None, errors: ErrorMode) -> pd.DataFrame:
    _drop_duplicates(raw)
    out, problems = _convert(raw, tz)
    if raw.epoch and tz is None:
        warnings.warn(
            f"{raw.file}: its times are epoch seconds (SLURM_TIME_FORMAT=%s or --json), "
            "shown here in UTC; pass tz= the time zone of the host that ran sacct (e.g. "
            "tz='Europe/Berlin') to see its local times, as a -P export shows them",
            UserWarning,
            stacklevel=3,
        )
    if raw.skipped:
        warnings.warn(
            f"{raw.file}: skipped {len(raw.skipped)} '#' line(s) among the rows, at line(s) "
            f"{_some(raw.skipped)}: they follow no row that ends in a free-text column, so they are read as "
            "comments; if they are part of a value, export that field last (or with --json)",
            SacctParseWarning,
            stacklevel=3,
        )
    if raw.comments:
        warnings.warn(
            f"{raw.file}: skipped {len(raw.comments)} '#' comment line(s), at line(s) "
            f"{_some(raw.comments)}: "
            "sacct writes no comments, so they were added to the export; a line beginning "
            "with '#' that has every field and a valid JobID is read as a row (a JobName "
            "such as '#exp1')",
            SacctParseWarning,
            stacklevel=3,
        )
    problems = _with_json_problems(raw, problems)
    lines = raw.lines
    bad_lines: list[int] = sorted(b.line for b in raw.bad)
    row_bad = np.zeros(len(lines), dtype=bool)
    for mask in problems.values():
        row_bad |= mask
    if errors == "raise" and (raw.bad or row_bad.any()):
        first_line, column = None, None
        for name, mask in problems.items():
            pos = int(np.flatnonzero(mask)[0])
            if first_line is None or lines[pos] < first_line:
                first_line, column, value = int(lines[pos]), name, _cell(raw, name, pos)
        structural = min(raw.bad, key=lambda b: b.line) if raw.bad else None
        if structural is not None and (first_line is None or structural.line <= first_line):
            raise _bad_error(raw, structural)
        raise _row_error(raw, first_line, column, value)
    keep = None
    if row_bad.any() or raw.bad:
        drop = problems.get("JobID", np.zeros(len(lines), dtype=bool))
        if "JobID, JobIDRaw" in problems:  # (a name without its JobIDRaw: no key either)
            drop = drop | problems["JobID, JobIDRaw"]
        if errors == "warn":
            drop = drop | row_bad
        # with "coerce" the converters have already turned bad values into NA
        bad_lines = sorted(set(bad_lines) | set(lines[row_bad].tolist()))
        keep = ~drop
        if errors == "warn":
            warnings.warn(_left_out(raw, bad_lines, problems), SacctParseWarning, stacklevel=3)
        else:  # "coerce": say which rows kept NA and which could not be kept at all
            gone = sorted({b.line for b in raw.bad} | set(lines[drop].tolist()))
            warnings.warn(
                _left_out(raw, bad_lines, problems, ("coerce", gone)),
                SacctParseWarning,
                stacklevel=3,
            )
        lines = lines[keep]
    dst_lines = _across_dst(raw, out, tz, keep) if raw.epoch and tz is not None else []
    if tz is not None and not raw.epoch:
        _warn_text_across_dst(raw, out, tz, keep)
    raw.columns = {}  # the text columns are no longer needed: free them
    if keep is not None:
        keep_arr = pa.array(keep)
        out = {name: arr.filter(keep_arr) for name, arr in out.items()}
    out, lines = _joined_exports(raw, out, lines)
    is_step = pc.is_valid(out["StepID"])
    step_mask = is_step.to_numpy(zero_copy_only=False)
    alloc_cols = {k: v for k, v in out.items() if k not in ("StepID", "AllocJobID")}
    jobs = _frame(alloc_cols, pc.invert(is_step))
    step_cols = {"JobID": out["JobID"], "AllocJobID": out["AllocJobID"], "StepID": out["StepID"]}
    step_cols.update({k: v for k, v in out.items() if k not in step_cols})
    step_rows = _frame(step_cols, is_step)
    owners = _by_cluster(out["AllocJobID"], out.get("Cluster"))
    step_to_job = _step_owner(owners, is_step)
    step_to_job = _owner_by_start(jobs, step_rows, step_to_job, owners, is_step)
    jobs, step_rows = _join_steps(jobs, step_rows, step_to_job)
    unknown = jobs.loc[~jobs["State"].isin(list(STATES)), "State"] if "State" in jobs else None
    if unknown is not None and len(unknown):
        _warn_unknown_states(raw, unknown, lines[~step_mask])
    if raw.padded_lines:
        _warn_padded(raw)
    if not len(jobs) and not len(step_rows) and not raw.bad and not len(raw.duplicates):
        warnings.warn(
            f"{raw.file}: has a header but no rows: the sacct command selected no job (sacct "
            "lists only the caller's jobs without -a, and only today's without -S/-E); the "
            "table is empty",
            SacctParseWarning,
            stacklevel=3,
        )
    jobs = conform(jobs)
    jobs.attrs.update(
        {
            "source": raw.file,
            "format": raw.fmt,
            "delimiter": raw.delimiter,
            "tz": tz,
            "bad_rows": len(bad_lines),
            "bad_lines": bad_lines,
            "padded_rows": raw.padded,
            "repaired_rows": raw.repaired,
            "duplicate_rows": len(raw.duplicates),
            "duplicate_lines": list(raw.duplicates),
            "dst_lines": dst_lines,
            "unknown_states": {}
            if unknown is None
            else {str(k): int(v) for k, v in unknown.value_counts().items()},
            "fields": list(raw.names),
            "steps": _StepsRef(step_rows, step_to_job < 0, lines[~step_mask]),
        }
    )
    return jobs


#: Usage sacct gives a job row as the sum over its steps that ended (options.c, get_data:
#: ``job->tot_cpu_sec += step->tot_cpu_sec`` ... for each step not below JOB_COMPLETE).
_STEP_SUMS = ("TotalCPU", "UserCPU", "SystemCPU")
#: The columns :func:`_join_segments` reads or sets (those of them an export has).
_SEGMENT_COLUMNS = (
    "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw", "CPUTime", "CPUTimeRAW",
    "Suspended", "NCPUS", *_STEP_SUMS,
)  # fmt: skip


def _joined_exports(
    raw: _RawTable, out: dict[str, pa.Array], lines: np.ndarray
) -> tuple[dict[str, pa.Array], np.ndarray]:
    """One file that lists a run (same Cluster, User, JobIDRaw and Submit) in rows that
    differ is several exports joined (``cat mon.psv tue.psv > week.psv``): one export never
    does, as slurmdbd's job table holds one record per (id_job, time_submit) of a cluster
    (``unique index``, accounting_storage_mysql.c). Its parts (split where a header comes
    again, or where a row repeats the JobID of a run the part already listed) are joined as
    :func:`concat_sacct` joins exports, with a warning naming the file and its lines; a
    step's rows by its StepID and its run's Submit (:func:`_run_submits`)."""
    key = ["JobIDRaw" if "JobIDRaw" in out else "JobID"]
    times = _run_times(out)
    if len(lines) < 2 or not times or raw.fmt == "json":  # (JSON: one document, one export)
        return out, lines
    ids = pc.dictionary_encode(out[key[0]]).indices.to_numpy(zero_copy_only=False)
    again = np.flatnonzero(np.bincount(ids)[ids] > 1)
    if not again.size:  # (as usual: every JobIDRaw once)
        return out, lines
    if not raw.headers:  # (no header again: a run listed twice shares its key and times)
        codes = {"id": ids[again]}
        for name in ["Cluster", "StepID", *times]:  # (a job's steps share its JobIDRaw)
            if name in out:
                column = pc.dictionary_encode(out[name].take(pa.array(again)))
                codes[name] = column.indices.to_numpy(zero_copy_only=False)
        if not pd.DataFrame(codes).duplicated().any():  # (a requeued job's runs: apart)
            return out, lines
    # (JobIDRaw last: _pending_as_started gives a pending array task its run's)
    key = [c for c in ("Cluster", "User") if c in raw.names] + ["StepID"] + key
    wanted = {*key, *times, *_SEGMENT_COLUMNS, "JobID", "AllocJobID", "State"}
    wanted |= {"ArrayJobID", "ArrayTaskID"}
    frame = _frame({c: out[c] for c in out if c in wanted}, None).copy()  # (writable)
    live = (
        frame["State"].isin(set(STATES) - TERMINAL_STATES).fillna(False).to_numpy(dtype=bool)
        if "State" in frame
        else np.zeros(len(frame), dtype=bool)
    )
    is_step = frame["StepID"].notna().to_numpy(dtype=bool)
    ident = frame
    if is_step.any() and times == ["Submit"]:  # (a step's run: its job's Submit, not its own)
        submit = frame["Submit"].to_numpy(dtype="datetime64[ns]").copy()
        submit[is_step] = _run_submits(frame[~is_step], frame[is_step])
        ident = frame.assign(Submit=submit)
    part = _export_parts(ident[[*key, *times, "JobID"]], live, raw.headers, lines)
    take, left, kept = _keep_most_final(ident, key, part, np.zeros(len(frame), dtype=bool))
    if not left.size:
        return out, lines
    runs, shown = _runs_shown(frame, left, kept, lambda r: f"line {lines[r]}")
    joined = _join_segments(frame, left, kept, is_step)
    cut = frame["JobID"].iloc[joined].astype(str).tolist()
    if ident is not frame:  # (steps, told by their run's Submit)
        steps_kept = take[is_step[take]]
        run_submit = ident["Submit"].to_numpy()[steps_kept]
        _sum_step_usage(frame, joined[~is_step[joined]], frame.iloc[steps_kept], run_submit)
    warnings.warn(
        f"{raw.file}: lists {runs} run(s) more than once with different rows (the same "
        "JobIDRaw and Submit, which one sacct export never repeats: slurmdbd keeps one "
        "record per job id and submit time), so the file looks like several exports joined "
        "(cat day1 day2 > file"
        + (f"; the header comes again at line(s) {_some(raw.headers)}" if raw.headers else "")
        + "): each run is kept once, as its most final row (an ended state, then the latest "
        f"End, then the later row): {shown}. Read the exports as a list instead, "
        "read_sacct(['day1.psv', 'day2.psv']), which joins them (concat_sacct)"
        + (f"; and {_truncated(cut)}" if cut else ""),
        SacctParseWarning,
        stacklevel=4,
    )
    raw.duplicates = sorted(raw.duplicates + lines[left].tolist())
    if cut:
        for name in _SEGMENT_COLUMNS:
            if name in out:  # (an export may have no Elapsed)
                out[name] = pa.array(frame[name], type=out[name].type)
    order = pa.array(take)
    return {name: arr.take(order) for name, arr in out.items()}, lines[take]


def _export_parts(
    ident: pd.DataFrame, live: np.ndarray, headers: list[int], lines: np.ndarray
) -> np.ndarray:
    """Which export of a joined file each row came from (0, 1 ...): a new one begins at a
    header line further down (``headers``), and (exports joined without their headers, sacct -n) at a
    row whose ``ident`` (the run's key, Submit and JobID) a ``live`` row of the current part
    already has: a state that can still change (RUNNING, PENDING ...; an ended run's row
    listed twice is no sign of a later export, and is left as it is)."""
    bounds = [int(np.searchsorted(lines, h)) for h in headers]
    codes = ident.groupby(list(ident.columns), dropna=False, sort=False).ngroup().to_numpy()
    repeated = np.flatnonzero(np.bincount(codes)[codes] > 1)
    seen: dict[int, bool] = {}  # (the current part's idents: whether their row was live)
    for pos in repeated.tolist():
        if seen.get(codes[pos], False):
            bounds.append(pos)
            seen = {}
        seen.setdefault(codes[pos], bool(live[pos]))
    part = np.zeros(len(lines), dtype=np.int64)
    if bounds:
        part = np.searchsorted(np.unique(bounds), np.arange(len(lines)), side="right")
    return part


def _lines_shown(raw: _RawTable, lines: Sequence[int], most: int = 10) -> str:
    """``line(s) 3, 4 ...`` (of a --json export, its job entries: ``jobs[2] (job_id 3)``),
    the first ``most`` of them."""
    more = f" and {len(lines) - most} more" if len(lines) > most else ""
    if raw.fmt == "json":
        return ", ".join(_json_row(raw, int(n)) for n in lines[:most]) + more
    shown = ", ".join(str(int(n)) for n in lines[:most])
    return f"line(s) {shown}{more}"


def _json_row(raw: _RawTable, line: int) -> str:
    """A row of a --json export named by its job entry: ``jobs[2] (job_id 3)``, and
    ``jobs[2] (job_id 3) steps[0]`` for a step's row."""
    record, prefix = raw.json_rows[line - 1]
    return f"{record} {prefix.rstrip('.')}" if prefix else record


def _with_json_problems(raw: _RawTable, problems: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The bad-value masks, with the values the --json reader found wrong first (on a row,
    the one named by errors='raise')."""
    if not raw.json_bad:
        return problems
    out: dict[str, np.ndarray] = {}
    for line, column in raw.json_bad:
        pos = int(np.searchsorted(raw.lines, line))
        if pos < len(raw.lines) and raw.lines[pos] == line:  # (not left out as a repeat)
            out.setdefault(column, np.zeros(len(raw.lines), dtype=bool))[pos] = True
    for name, mask in problems.items():
        out[name] = out[name] | mask if name in out else mask
    return out


_ADVICE = "; or read with errors='warn' (skip the row) or errors='coerce' (NA)"


def _bad_error(raw: _RawTable, b: _Bad) -> SacctParseError:
    """The error for a row that cannot be read (a --json entry that is no object)."""
    if raw.fmt == "json":
        record = raw.json_rows[b.line - 1][0]
        where = {"record": record, "field": b.field}
        return SacctParseError(
            b.problem, file=raw.file, line=b.line, value=b.value, hint=b.hint, **where
        )
    return SacctParseError(
        b.problem, file=raw.file, line=b.line, column=b.column, value=b.value, hint=b.hint
    )


def _row_error(raw: _RawTable, line: int, column: str, value: str) -> SacctParseError:
    """The error for a bad value: in a text export, its line and column; in a --json one, its
    job entry (``jobs[3] (job_id 4)``), its JSON field and the value as the JSON has it."""
    if raw.fmt != "json":
        return _value_error(raw.file, line, column, value)
    record, prefix = raw.json_rows[line - 1]
    found = raw.json_bad.get((line, column))
    if found is not None:
        return SacctParseError(
            found.problem, file=raw.file, line=line, column=column, value=found.value,
            hint=found.hint + _ADVICE, record=record, field=found.field,
        )  # fmt: skip
    text = _value_error(raw.file, line, column, value)
    step = 1 if prefix else 0
    fields = [raw.json_fields.get(part, (part, part))[step] for part in column.split(", ")]
    field = ", ".join(prefix + f for f in dict.fromkeys(fields))
    shown = value.strip()
    if ", " not in column and not re.fullmatch(r"-?\d+(?:\.\d+)?", shown):
        shown = json.dumps(shown, ensure_ascii=False)  # (as the JSON writes a text)
    hint = text.hint or ""
    for said, meant in _SHIFTED_WORDS:  # (a JSON has no columns to shift)
        hint = said.sub(meant, hint)
    return SacctParseError(
        text.problem, file=raw.file, line=line, column=column, value=shown,
        hint=hint.lstrip("; "), record=record, field=field,
    )  # fmt: skip


#: A text export's advice about shifted columns, as said of a --json export.
_SHIFTED_WORDS = (
    (re.compile(r"check the field list: the columns may be shifted"), "the value is corrupt"),
    (re.compile(r";? ?if the columns are shifted[^;]*"), ""),
    (re.compile(r" or the columns (?:are|were) shifted"), " or edited"),
)


def _warn_unknown_states(raw: _RawTable, unknown: pd.Series, lines: np.ndarray) -> None:
    """One warning naming each State value sacct does not have and its lines: such a value
    is kept as written (``attrs["unknown_states"]``), and on a job's last row it becomes the
    job's final state, so it must not pass silently."""
    where = lines[np.asarray(unknown.index)]
    values = unknown.astype(str).to_numpy()
    parts = [
        ("a blank State (read as 'UNKNOWN')" if value == "UNKNOWN" else f"State {value!r}")
        + f" ({_lines_shown(raw, where[values == value].tolist(), 5)})"
        for value in dict.fromkeys(values)
    ]
    several = len(parts) > 1
    warn_at_caller(
        f"{raw.file}: {'; '.join(parts)} {'are' if several else 'is'} not "
        f"{'sacct job states' if several else 'a sacct job state'} (sacct's JOB STATE CODES: "
        f"{', '.join(STATES)}); {'they are' if several else 'it is'} kept as written "
        "(attrs['unknown_states']), and on a job's last row such a state becomes the job's "
        "final state in summary and the analyzers. If the row was edited or made by hand, "
        "correct its State (or delete the row); a state sacct cut short to fit a column "
        "(ending in '+') is read whole only when it begins one state alone: export with -P "
        "(parsable, nothing cut); if the State column holds another field's values, give "
        "the field list the export was written with (fields=)",
        SacctParseWarning,
    )


def _warn_padded(raw: _RawTable) -> None:
    """One warning for rows padded with blanks (fewer fields than the field list in use):
    how many, their first lines, the field list, the fields they lack and the fix."""
    n, fields, missing = len(raw.padded_lines), raw.padded_fields, raw.padded_missing
    if raw.padded_by_position:
        how = (
            "read as rows of an export with fewer fields appended to this one (a block of "
            "consecutive short rows), their last field(s) missing"
        )
        fix = (
            "If the file is one export, read it with the field list sacct wrote it with "
            "(fields=...); if exports with different fields were joined, read each with its "
            "own fields= and join them with slurmlab.records.sacct.concat_sacct([read_sacct(a, fields=...), "
            "read_sacct(b, fields=...)])"
        )
    else:
        how = "read by the header line of their own before them, which names fewer fields"
        fix = (
            f"To know {'it' if len(missing) == 1 else 'them'} for those rows, re-export "
            "their jobs with the same fields as the rest "
            f"(sacct -P -o {','.join(fields)} ...)"
        )
    warn_at_caller(
        f"{raw.file}: {n} row(s) have fewer fields than the field list in use ({len(fields)} "
        f"fields: {','.join(fields)}), {_lines_shown(raw, sorted(raw.padded_lines))}: {how}, so "
        f"their {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} blank, unknown to "
        f"every analyzer (a '(none)' group in wait_stats and usage). {fix} "
        "(attrs['padded_rows'] counts these rows)",
        SacctParseWarning,
    )


def _signed(delta: pd.Timedelta) -> str:
    return ("-" if delta < pd.Timedelta(0) else "") + _fmt_duration(abs(delta))


def _across_dst(
    raw: _RawTable, out: dict[str, pa.Array], tz: str, keep: np.ndarray | None
) -> list[int]:
    """The lines of allocation rows whose epoch-second times fall on both sides of a
    daylight-saving change in ``tz``, with a warning naming them.

    Shown as the job table's naive local times, such times are off against each other by the
    change (a wait across the autumn change reads an hour shorter, even below 0; across the
    spring one an hour longer), and every analyzer computes waits and run times from them.
    Epoch seconds themselves are exact: read without ``tz`` they stay in UTC, which has no
    such change.
    """
    names = [n for n in ("Submit", "Eligible", "Start", "End") if n in raw.names and n in out]
    if len(names) < 2:
        return []
    epochs, offsets = [], []
    for name in names:
        text = pc.utf8_trim_whitespace(raw.columns[name].cast(pa.string()))
        is_epoch = pc.match_substring_regex(text, pattern=r"^\d{9,11}$")
        seconds = pc.cast(pc.if_else(is_epoch, text, pa.scalar(None, pa.string())), pa.int64())
        epoch = seconds.to_numpy(zero_copy_only=False).astype("float64")
        local = pc.cast(out[name], pa.int64()).to_numpy(zero_copy_only=False).astype("float64")
        epochs.append(epoch)
        offsets.append(local / 1e9 - epoch)  # the zone's UTC offset at that time (NaN: none)
    offset = np.vstack(offsets)
    known = ~np.isnan(offset)
    across = _across_change(offset, known, out, keep)
    if not across.any():
        return []
    examples = []
    for pos in np.flatnonzero(across)[:5].tolist():
        at = [k for k in range(len(names)) if known[k, pos]]
        a = at[0]
        b = next(k for k in at if offset[k, pos] != offset[a, pos])
        shown = [
            pd.Timestamp(int(epochs[k][pos]), unit="s", tz="UTC").tz_convert(tz) for k in (a, b)
        ]
        local = [t.tz_localize(None) for t in shown]
        job = raw.columns["JobID"][pos].as_py().strip()
        examples.append(
            f"{'row' if raw.fmt == 'json' else 'line'} {int(raw.lines[pos])} (JobID {job}): "
            f"{names[a]} {int(epochs[a][pos])} is {shown[0]:%Y-%m-%d %H:%M:%S %Z} and "
            f"{names[b]} {int(epochs[b][pos])} is {shown[1]:%Y-%m-%d %H:%M:%S %Z}, so "
            f"{names[b]} - {names[a]} reads {_signed(local[1] - local[0])} instead of "
            f"{_signed(shown[1] - shown[0])}"
        )
    count = int(across.sum())
    warn_at_caller(
        f"{raw.file}: {count} row(s) have times on both sides of a daylight-saving change in "
        f"{tz} (tz={tz!r}), so as naive local times (the job table's) they are off against each "
        f"other by the change: {'; '.join(examples)}{' ...' if count > 5 else ''}; waits and "
        "run times computed from them are off too (attrs['dst_lines'] lists the lines). "
        "The epoch seconds are exact: read without tz= to keep the times in UTC, which has no "
        "daylight-saving change",
        UserWarning,
    )
    return raw.lines[across].tolist()


def _across_change(
    offset: np.ndarray, known: np.ndarray, out: dict[str, pa.Array], keep: np.ndarray | None
) -> np.ndarray:
    """Which allocation rows (kept ones, with ``keep``) have UTC offsets (one row of
    ``offset`` per time field, ``known`` where given) that differ between their times: rows
    on both sides of a daylight-saving change."""
    low = np.where(known, offset, np.inf).min(axis=0)
    high = np.where(known, offset, -np.inf).max(axis=0)
    across = (known.sum(axis=0) >= 2) & (high > low)
    across &= ~pc.is_valid(out["StepID"]).to_numpy(zero_copy_only=False)
    return across if keep is None else across & keep


def _warn_text_across_dst(
    raw: _RawTable, out: dict[str, pa.Array], tz: str, keep: np.ndarray | None
) -> None:
    """One warning naming the allocation rows whose written times (the local time of the
    host that ran sacct, in ``tz``) lie on both sides of a daylight-saving change there: a
    wait across the spring change reads an hour longer than it was, across the autumn one an
    hour shorter. A time in the repeated autumn hour could be either, so it decides nothing."""
    names = [n for n in ("Submit", "Eligible", "Start", "End") if n in raw.names and n in out]
    if len(names) < 2:
        return
    offsets = []
    for name in names:
        local = pd.DatetimeIndex(pc.cast(out[name], pa.int64()).to_numpy(zero_copy_only=False))
        try:
            aware = local.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")
        except (TypeError, ValueError):  # (a fixed offset such as '+01:00': no change)
            return
        utc = aware.tz_convert("UTC").tz_localize(None)
        offsets.append(np.asarray((local - utc).total_seconds(), dtype="float64"))
    offset = np.vstack(offsets)
    known = ~np.isnan(offset)
    across = _across_change(offset, known, out, keep)
    if not across.any():
        return
    examples = []
    for pos in np.flatnonzero(across)[:5].tolist():
        at = [k for k in range(len(names)) if known[k, pos]]
        a = at[0]
        b = next(k for k in at if offset[k, pos] != offset[a, pos])
        zone = [
            pd.Timestamp(int(pc.cast(out[names[k]], pa.int64())[pos].as_py()))
            .tz_localize(tz)
            .strftime("%Y-%m-%dT%H:%M:%S %Z")
            for k in (a, b)
        ]
        job = raw.columns["JobID"][pos].as_py().strip()
        examples.append(
            f"line {int(raw.lines[pos])} (JobID {job}): {names[a]} {zone[0]}, {names[b]} {zone[1]}"
        )
    count = int(across.sum())
    warn_at_caller(
        f"{raw.file}: {count} row(s) have times on both sides of a daylight-saving change in "
        f"{tz} (tz={tz!r}): {'; '.join(examples)}{' ...' if count > 5 else ''}; sacct writes "
        "naive local times, so waits (Start - Submit) and other differences of these times "
        "are off by the change (Elapsed is exact); export with TZ=UTC sacct ... (or "
        "SLURM_TIME_FORMAT=%s, epoch seconds) for exact ones",
        UserWarning,
    )


#: Rows whose reasons the errors="warn" warning spells out (the others are counted).
_REASONS_SHOWN = 10
#: The end of a hint that advises errors='warn': said to a reader that already left the row out.
_WARN_ADVICE = re.compile(r";? or read with errors='warn'.*$")


def _left_out(
    raw: _RawTable,
    bad_lines: list[int],
    problems: dict[str, np.ndarray],
    coerced: tuple[str, list[int]] | None = None,
) -> str:
    """The errors="warn" warning: how many rows were left out, and why, one line per bad
    value in line order (each the error errors="raise" gives, without its advice to read with
    errors='warn'), the first ``_REASONS_SHOWN`` of them and a count of the rest.
    ``coerced``: ("coerce", the lines of the rows left out all the same), for the
    errors="coerce" warning (the other bad rows were kept with NA)."""
    found: list[tuple[int, int, SacctParseError]] = []
    for b in sorted(raw.bad, key=lambda b: b.line)[:_REASONS_SHOWN]:
        found.append((b.line, 0, _bad_error(raw, b)))
    order = {name: k for k, name in enumerate(raw.names, start=1)}
    for name, mask in problems.items():
        for pos in np.flatnonzero(mask)[:_REASONS_SHOWN].tolist():
            line, value = int(raw.lines[pos]), _cell(raw, name, pos)
            found.append((line, order.get(name, 0), _row_error(raw, line, name, value)))
    found.sort(key=lambda item: item[:2])
    reasons = []
    for _, _, e in found[:_REASONS_SHOWN]:
        where = {"file": e.file, "line": e.line, "column": e.column, "value": e.value}
        hint = _WARN_ADVICE.sub("", e.hint or "") or None
        reasons.append(
            str(SacctParseError(e.problem, **where, hint=hint, record=e.record, field=e.field))
        )
    rest = len(raw.bad) + sum(int(m.sum()) for m in problems.values()) - len(reasons)
    detail = "\n  ".join(reasons) + (
        f"\n  and {rest} more (attrs['bad_lines'] lists every line)" if rest > 0 else ""
    )
    if coerced is not None:  # errors="coerce": which rows kept NA, which could not be kept
        kept = sorted(set(bad_lines) - set(coerced[1]))
        out = [f"{raw.file}: errors='coerce': "]
        if kept:
            out.append(
                f"kept {len(kept)} malformed row(s) with NA for the bad values, at "
                f"{_rows_at(raw, kept)}"
            )
        if coerced[1]:
            out.append(
                ("; " if kept else "")
                + f"left out {len(coerced[1])} row(s) that cannot be kept (no JobID or not "
                f"a whole row), at {_rows_at(raw, coerced[1])}"
            )
        return "".join(out) + ":\n  " + detail
    return (
        f"{raw.file}: left out {len(bad_lines)} malformed row(s) at {_rows_at(raw, bad_lines)}; "
        "fix the export, or read with errors='coerce' to keep them with NA for the bad "
        "values:\n  " + detail
    )


def _rows_at(raw: _RawTable, lines: Sequence[int], most: int = 20) -> str:
    """``line(s) 3, 4 ...``; of a --json export, its job entries (``jobs[2] (job_id 3)``)."""
    if raw.fmt == "json":
        more = " ..." if len(lines) > most else ""
        return ", ".join(_json_row(raw, int(n)) for n in lines[:most]) + more
    return f"line(s) {_some(lines, most)}"


def _some(lines: Sequence[int], most: int = 20) -> str:
    """Line numbers, the first ``most`` of them."""
    return ", ".join(map(str, lines[:most])) + (" ..." if len(lines) > most else "")


def _cell(raw: _RawTable, name: str, pos: int) -> str:
    """The text of a column at a row; of several (``"Start, End"``, values that contradict
    each other) as ``Start=..., End=...``."""
    if name in raw.columns:
        return raw.columns[name][pos].as_py() or ""
    return ", ".join(
        f"{part}={(raw.columns[part][pos].as_py() or '').strip()}" for part in name.split(", ")
    )


def _by_cluster(ids: pa.Array, clusters: pa.Array | None, always: bool = False) -> pa.Array:
    """Job ids, prefixed by their cluster when the export holds several (``sacct -M a,b``,
    ``-M all``: a Cluster column with more than one value), where job ids repeat: each
    cluster's slurmdbd numbers its own jobs (the job table is one per cluster,
    ``"<cluster>_job_table"``, accounting_storage_mysql.c). As concat_sacct and
    ``analysis._common.job_keys`` key them. ``always``: prefix even one cluster's ids."""
    if clusters is None or (not always and pc.count_distinct(clusters).as_py() < 2):
        return ids
    text = pc.fill_null(clusters.cast(pa.string()), "")
    return pc.binary_join_element_wise(text, ids.cast(pa.string()), "\x1f")


def _owned_by(jobs: pd.DataFrame, step_frame: pd.DataFrame) -> np.ndarray:
    """Which step rows belong to an allocation row of ``jobs`` (by job id, and by cluster
    when the steps are of several clusters: :func:`_by_cluster`)."""
    wanted = _text_column(jobs, "JobID")
    owned = pa.array(step_frame["AllocJobID"].to_numpy(na_value=None), pa.string())
    if "Cluster" in jobs and "Cluster" in step_frame and step_frame["Cluster"].nunique() > 1:
        wanted = _by_cluster(wanted, _text_column(jobs, "Cluster"), always=True)
        owned = _by_cluster(owned, _text_column(step_frame, "Cluster"), always=True)
    return pc.is_in(owned, value_set=wanted).to_numpy(zero_copy_only=False)


def _text_column(frame: pd.DataFrame, name: str) -> pa.Array | None:
    """A text column of ``frame`` as an arrow array (None when ``frame`` has none)."""
    if name not in frame:
        return None
    return pa.array(frame[name].astype("string").to_numpy(na_value=None), pa.string())


def _step_owner(alloc_ids: pa.Array, is_step: pa.Array) -> np.ndarray:
    """For each step row, the position of its allocation run (the last one), or -1.
    ``alloc_ids``: each row's allocation id (with its cluster: :func:`_by_cluster`)."""
    jobs = alloc_ids.filter(pc.invert(is_step))
    steps_ = alloc_ids.filter(is_step)
    if len(steps_) == 0:
        return np.zeros(0, dtype=np.int64)
    reverse = jobs.take(pa.array(np.arange(len(jobs) - 1, -1, -1)))
    found = pc.index_in(steps_, value_set=reverse)
    pos = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(pos >= 0, len(jobs) - 1 - pos, -1)


def _owner_by_start(
    jobs: pd.DataFrame,
    step_rows: pd.DataFrame,
    owner: np.ndarray,
    alloc_ids: pa.Array,
    is_step: pa.Array,
) -> np.ndarray:
    """With --duplicates a JobID has several runs: give each step the run it started in.
    ``alloc_ids``/``is_step`` as for :func:`_step_owner` (a job id with its cluster)."""
    if not len(owner) or not len(jobs) or "Start" not in jobs or "Start" not in step_rows:
        return owner
    job_ids = alloc_ids.filter(pc.invert(is_step)).to_numpy(zero_copy_only=False)
    step_ids = alloc_ids.filter(is_step).to_numpy(zero_copy_only=False)
    repeated = pd.Series(job_ids).duplicated(keep=False).to_numpy()
    pick = np.flatnonzero((owner >= 0) & repeated[np.maximum(owner, 0)])
    if not pick.size:
        return owner
    runs = pd.DataFrame(
        {
            "key": job_ids[repeated],
            "at": jobs["Start"].to_numpy()[repeated],
            "run": np.flatnonzero(repeated),
        }
    ).dropna(subset=["at"])
    wanted = pd.DataFrame(
        {
            "key": step_ids[pick],
            "at": step_rows["Start"].to_numpy()[pick],
            "pos": pick,
        }
    ).dropna(subset=["at"])
    if runs.empty or wanted.empty:
        return owner
    matched = pd.merge_asof(
        wanted.sort_values("at"), runs.sort_values("at"), on="at", by="key", direction="backward"
    ).dropna(subset=["run"])
    owner = owner.copy()
    owner[matched["pos"].to_numpy(dtype=np.int64)] = matched["run"].to_numpy(dtype=np.int64)
    return owner


def _step_runs(jobs: pd.DataFrame, step_rows: pd.DataFrame) -> np.ndarray:
    """For each row of ``step_rows``, the position in ``jobs`` of the run it belongs to, or
    -1, as read_sacct attaches them (:func:`_step_owner`, then :func:`_owner_by_start` for a
    job id with several runs); both frames of one export (their JobID, AllocJobID, Cluster
    and Start)."""
    ids = pa.concat_arrays([_text_column(jobs, "JobID"), _text_column(step_rows, "AllocJobID")])
    clusters = None
    if "Cluster" in jobs and "Cluster" in step_rows:
        clusters = pa.concat_arrays(
            [_text_column(jobs, "Cluster"), _text_column(step_rows, "Cluster")]
        )
    owners = _by_cluster(ids, clusters)
    is_step = pa.array(np.arange(len(ids)) >= len(jobs))
    owner = _step_owner(owners, is_step)
    return _owner_by_start(jobs, step_rows, owner, owners, is_step)


def _run_submits(
    jobs: pd.DataFrame, step_rows: pd.DataFrame, among: set | None = None
) -> np.ndarray:
    """For each row of ``step_rows``, the Submit of the run it belongs to
    (:func:`_step_runs`): the time that tells a step's run (:func:`_keep_most_final`).
    ``among``: only for the steps of these JobIDs (the rest keep their own: see
    :func:`_among`).

    A step's own Submit is its start (print.c prints step->start as a JOBSTEP's Submit),
    which ``sacct -T`` cuts to -S (as_mysql_jobacct_process.c, _cluster_get_jobs), so the
    rows of a step that spans two exports differ in it; its run's Submit (the job record's
    time_submit, never cut) does not. A step whose run is not in its export keeps its own
    Submit (its segments stay apart: nothing tells them one step)."""
    submit = step_rows["Submit"].to_numpy(dtype="datetime64[ns]").copy()
    if "Submit" not in jobs or not len(step_rows):
        return submit
    rows, values = _of_runs(jobs, step_rows, among, "Submit", dtype="datetime64[ns]")
    submit[rows] = values
    return submit


def _of_runs(
    jobs: pd.DataFrame, step_rows: pd.DataFrame, among: set | None, column: str, **as_numpy
) -> tuple[np.ndarray, np.ndarray]:
    """The positions of ``step_rows`` whose run is among ``jobs`` (:func:`_step_runs`; only
    JobIDs ``among``: :func:`_among`), and those runs' ``column`` (``to_numpy(**as_numpy)``)."""
    jobs, rows = _among(jobs, step_rows, among)
    owner = _step_runs(jobs, step_rows.iloc[rows])
    has = owner >= 0
    return rows[has], jobs[column].to_numpy(**as_numpy)[owner[has]]


def _among(
    jobs: pd.DataFrame, step_rows: pd.DataFrame, among: set | None
) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of ``jobs`` and the positions of ``step_rows`` whose JobID (a step's
    AllocJobID) is in ``among`` (all of them when None): the jobs whose rows were joined,
    so that joining exports of millions of rows looks only at the few runs they share (a
    step in two exports has its job in both)."""
    if among is None:
        return jobs, np.arange(len(step_rows))
    rows = np.flatnonzero(step_rows["AllocJobID"].isin(among).to_numpy(dtype=bool))
    return jobs[jobs["JobID"].isin(among).to_numpy(dtype=bool)], rows


def _value_error(file: str, line: int, column: str, value: str) -> SacctParseError:
    rules = {
        "JobID": ("is not a sacct JobID", "JobID looks like 123, 123.batch, 123_4, 123_[1-5%2] or 123+0.0 "
                  "(a name, such as a simulation's scenario id written by write_sacct, is read only "
                  "beside a numeric JobIDRaw and holds no space, '.', '+', '[' or ']'); "
                  "if the columns are shifted, check the field list or the delimiter"),
        "id": (f"does not agree with the JobID of its row (sacct has no {column} field: "
               "slurmlab reads it from JobID, 123_4 or 123+1)",
               f"a file may carry {column} only for rows whose JobID is a name (as write_sacct "
               "writes a simulation's scenario ids), and ArrayTaskID/HetJobOffset are whole "
               f"numbers; fix the value or drop the {column} column"),
        "time": ("is not a sacct time YYYY-MM-DDTHH:MM:SS",
                 "export with SLURM_TIME_FORMAT=standard (a shell profile may set another format)"),
        "duration": ("is not a sacct duration [D-][HH:]MM:SS[.mmm]",
                     "sacct writes 1-02:03:04, 02:03:04, 03:04 or 03:04.567"),
        "int": ("is not a whole number", "check the field list: the columns may be shifted"),
        "memory": ("is not a sacct size (a number with an optional K/M/G/T/P unit and n/c suffix)",
                   "sacct writes sizes such as 1828196K, 2659.95M, 2T or 4000Mc"),
        "exit": ("is not an exit code code:signal", "sacct writes ExitCode as 0:0 or 1:15"),
        "tres": ("is not a TRES list sacct writes", _TRES_HINT),
        "raw": ("is not a sacct JobIDRaw (a whole number: 123, or 123.batch on a step row)",
                "if the columns are shifted, check the field list or the delimiter"),
        "named": ("JobID is a name, which is read only beside a numeric JobIDRaw, and "
                  "JobIDRaw is not a number",
                  _NAMED_HINT),
        "nodes": ("is not a Slurm hostlist", _NODES_HINT),
        "order": ("End is before Start", _TIMES_HINT),
        "elapsed": ("Elapsed is not End - Start - Suspended", _TIMES_HINT),
    }  # fmt: skip
    kind = (
        "JobID" if column == "JobID"
        else "raw" if column == "JobIDRaw"
        else "named" if column == "JobID, JobIDRaw"
        else "nodes" if column == "NodeList"
        else "order" if column == "Start, End"
        else "elapsed" if column.startswith("Start, End, ")
        else "id" if column in _ID_COLUMNS
        else "time" if column in _TIME_FIELDS
        else "duration" if column in _DURATION_FIELDS
        else "int" if column in _INT_FIELDS
        else "memory" if column in _MEMORY_FIELDS or column == "ReqMem"
        else "exit" if column in _EXIT_FIELDS
        else "tres"
    )  # fmt: skip
    problem, hint = _specific_problem(kind, column, value.strip()) or rules[kind]
    hint += "; or read with errors='warn' (skip the row) or errors='coerce' (NA)"
    return SacctParseError(problem, file=file, line=line, column=column, value=value, hint=hint)


_RAW_UNITS = {"ElapsedRaw": 1, "CPUTimeRAW": 1, "TimelimitRaw": 60}


def _specific_problem(kind: str, column: str, value: str) -> tuple[str, str] | None:
    """A sharper (problem, hint) than the rule of the column's kind, when the value has the
    right form but is out of range, negative, or one sacct never writes."""
    if kind == "time":
        if _time_out_of_range(value):
            return _TIME_RANGE_PROBLEM, _TIME_RANGE_HINT
        if re.match(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d$", value, re.ASCII):
            return (
                "is not a real date and time (no such day of the month, or an hour, minute or "
                "second out of range)",
                "the value is corrupt or the columns are shifted; check the export",
            )
    elif kind == "duration":
        return _duration_problem(value)
    elif kind == "int":
        if re.match(r"^-\d+$", value, re.ASCII):
            return (
                "is negative: sacct's counts and seconds are whole numbers of at least 0",
                "the value is corrupt or the columns are shifted; check the export",
            )
        if _digits(value) and (
            len(value) > 18
            or int(value) > (2**63 - 1) // (_RAW_UNITS.get(column, 1) * 10**9)
            and column in _RAW_UNITS
        ):
            limit = "292 years" if column in _RAW_UNITS else "18 digits"
            return (
                f"is out of range: more than slurmlab can hold ({limit})",
                "the value is corrupt or the columns are shifted; check the export",
            )
    elif kind == "memory":
        if re.match(_MEMORY_RE, value, re.ASCII):
            return (
                "is out of range: too large to be a memory size",
                "the value is corrupt or the columns are shifted; check the export",
            )
    elif kind == "exit":
        if re.match(r"^\d+:\d+$", value, re.ASCII):
            return (
                "is out of range: an exit code and a signal are each 0 to 255",
                "sacct writes ExitCode as 0:0, 1:0 or 0:15; the value is corrupt or the "
                "columns are shifted",
            )
    elif kind == "JobID":
        match = _JOBID_PY.match(value)
        if match and match.group("range") is not None:
            _, why = _range_check(match.group("range"), value.split(".", 1)[0].endswith("]"))
            if why:
                return f"has an array range sacct never writes ({why})", _RANGE_HINT
    elif kind == "named" and value.endswith("JobIDRaw="):
        return (
            "JobID is a name, which is read only beside a numeric JobIDRaw, and JobIDRaw is blank",
            _NAMED_HINT,
        )
    elif kind == "nodes":
        try:
            expand_nodelist(value)
        except SacctParseError as exc:
            return exc.problem, _NODES_HINT
    elif kind in ("order", "elapsed"):
        return _times_problem(value)
    elif kind == "tres":
        try:
            if column.endswith("GRES"):
                gres_gpus(value)
            else:
                _allocated_tres(value)
        except SacctParseError as exc:
            return exc.problem, exc.hint or ""
    return None


_NAMED_HINT = (
    "give the row its numeric JobIDRaw (as write_sacct writes a simulation's scenario ids); "
    "if the columns are shifted (a user name where the JobID should be), check the field list "
    "or the delimiter"
)
_NODES_HINT = (
    "a NodeList looks like node[01-08],gpu3; the value is corrupt (cut short?) or the columns "
    "are shifted"
)
_TIMES_HINT = (
    "sacct never writes such times: the values are corrupt or the columns are shifted; check "
    "the export"
)


def _times_problem(value: str) -> tuple[str, str]:
    """(problem, hint) for times of a row that contradict each other, from its
    ``Start=..., End=...[, Suspended=...], Elapsed=...`` text."""
    given = dict(part.split("=", 1) for part in value.split(", "))
    start, end = (_any_time(given[k]) for k in ("Start", "End"))
    span = end - start
    if span < -pd.Timedelta(hours=1):  # (within an hour: Elapsed is what contradicts them)
        return (
            f"End is before Start, by {_fmt_duration(-span)} (more than a daylight-saving "
            "change: a run ends after it starts)",
            _TIMES_HINT,
        )
    elapsed_in = next(k for k in ("ElapsedRaw", "Elapsed") if k in given)
    elapsed = (
        pd.Timedelta(seconds=int(given[elapsed_in]))
        if elapsed_in == "ElapsedRaw"
        else parse_duration(given[elapsed_in])
    )
    suspended = parse_duration(given["Suspended"]) if "Suspended" in given else None
    less = f" - Suspended ({_fmt_duration(suspended)})" if suspended else ""
    rule = (
        "sacct writes Elapsed as End - Start - Suspended"
        if "Suspended" in given
        else "sacct writes Elapsed as End - Start (less any time suspended)"
    )
    return (
        f"{elapsed_in} is {_fmt_duration(elapsed)} but End - Start{less} is "
        f"{_signed(span - (suspended or pd.Timedelta(0)))}: {rule}",
        _TIMES_HINT,
    )


def _any_time(text: str) -> pd.Timestamp:
    """A time as written (text or epoch seconds), for a message."""
    stamp = parse_timestamp(text)
    if stamp is None:  # (never: both times were read)
        raise SacctParseError("is not a sacct time", value=text)
    return stamp


class _StepsRef:
    """Holds the step frame in ``attrs``: copied by reference, compared by identity.

    pandas deep-copies ``attrs`` on most operations; a frame there would be copied each time.
    """

    __slots__ = ("frame", "lines", "orphans")

    def __init__(self, frame: pd.DataFrame, orphans: np.ndarray, lines: np.ndarray) -> None:
        self.frame = frame
        self.orphans = orphans  # steps whose allocation row is not in the export
        self.lines = lines  # the line number of each allocation row, as read

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return f"<{len(self.frame)} step rows; use slurmlab.sacct_steps(jobs)>"


def _tres_mem_mb(column: pd.Series) -> np.ndarray:
    """The ``mem=`` of TRES usage strings (``cpu=08:00:00,mem=55G``) in MB; NaN without one.
    A bare number is bytes (sacct writes usage in bytes unless it adds a unit)."""
    found = column.astype("string").str.extract(r"(?:^|,)mem=(\d+(?:\.\d+)?)([KMGTPE]?)(?:,|$)")
    value = pd.to_numeric(found[0], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    units = found[1].fillna("").to_numpy(dtype=object)
    scale = np.array([_UNIT_MB[u] or 1 / 1024**2 for u in units], dtype="float64")
    return value * scale


def _join_steps(
    jobs: pd.DataFrame, step_rows: pd.DataFrame, owner: np.ndarray
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Carry each allocation's state down to its steps, and step usage up to the job."""
    has = owner >= 0
    if "State" in jobs:
        states = pa.array(jobs["State"].array, pa.large_string())
        taken = (
            states.take(pa.array(np.where(has, owner, 0), mask=~has))
            if len(states)
            else pa.nulls(len(owner), pa.large_string())
        )
        step_rows["JobState"] = pd.Series(pd.arrays.ArrowStringArray(taken), index=step_rows.index)
    if not has.any():
        return jobs, step_rows
    if "MaxRSS" in step_rows:
        rss = step_rows["MaxRSS"].to_numpy(dtype="float64", na_value=np.nan)
        tasks = (
            step_rows["NTasks"].to_numpy(dtype="float64", na_value=np.nan)
            if "NTasks" in step_rows
            else np.ones(len(rss))
        )
        used = rss * np.where(np.isnan(tasks), 1.0, tasks)
        if "TRESUsageInTot" in step_rows:  # the step's tasks' peaks summed: tighter
            summed = _tres_mem_mb(step_rows["TRESUsageInTot"])
            used = np.where(np.isnan(summed), used, summed)
        ok = has & ~np.isnan(rss)
        peak = np.full(len(jobs), -np.inf)
        np.maximum.at(peak, owner[ok], rss[ok])
        total = np.full(len(jobs), -np.inf)
        np.maximum.at(total, owner[ok], used[ok])
        peak[np.isinf(peak)] = np.nan
        total[np.isinf(total)] = np.nan
        own = (
            jobs["MaxRSS"].to_numpy(dtype="float64")
            if "MaxRSS" in jobs
            else np.full(len(jobs), np.nan)
        )
        jobs["MaxRSS"] = np.where(np.isnan(own), peak, own)
        jobs["MemUsed"] = total
    if "TotalCPU" in step_rows:
        cpu = step_rows["TotalCPU"].to_numpy().astype("int64")
        ok = has & ~pd.isna(step_rows["TotalCPU"]).to_numpy()
        summed = np.zeros(len(jobs), dtype=np.int64)
        np.add.at(summed, owner[ok], cpu[ok])
        counted = np.zeros(len(jobs), dtype=bool)
        counted[owner[ok]] = True
        own = jobs["TotalCPU"]
        empty = (own.isna() | (own == pd.Timedelta(0))).to_numpy() & counted
        jobs["TotalCPU"] = own.where(~empty, pd.Series(summed.astype("timedelta64[ns]")))
    return jobs, step_rows


# ------------------------------------------------------------------------------ public API


def read_sacct(
    path_or_buffer: Source | Sequence[str | os.PathLike],
    *,
    fields: Sequence[str] | str | None = None,
    delimiter: str | None = None,
    tz: str | None = None,
    errors: ErrorMode = "raise",
) -> pd.DataFrame:
    """Read a sacct export into the job table (one row per allocation run).

    ``fields`` names the columns of a header-less export (a list or ``"JobID,State,..."``);
    ``delimiter`` is detected when not given (``|``, ``^|^``, ``☃``, TAB, ``;``); ``tz`` is the
    time zone of the exporting host, as text (an IANA name such as ``"Europe/Berlin"``,
    ``"UTC"``, or an offset such as ``"+01:00"``; a number is refused, since pandas would
    read ``tz=1`` as one second), kept in ``attrs["tz"]``: epoch-second times (``SLURM_TIME_FORMAT=%s``, ``--json``) are shown in
    it, and in UTC (with a warning) when it is None; text times are kept as written. Rows
    whose epoch times fall on both sides of a daylight-saving change in ``tz`` are warned
    about and listed in ``attrs["dst_lines"]``: as naive local times their waits are off by
    the change (UTC has none); so, with a warning, are rows of text times on both sides of
    one in ``tz``. Steps: ``slurmlab.sacct_steps(jobs)``.

    Rows that repeat an earlier row exactly (overlapping exports joined with ``cat``) are left
    out with a warning naming their lines (``attrs["duplicate_rows"]``/``["duplicate_lines"]``);
    so are the earlier rows of a run such a file lists again, differently (RUNNING in one
    day's part, COMPLETED in the next: it is read as :func:`concat_sacct` joins exports).
    ``path_or_buffer`` is a path, bytes or an open file (text held in a string: wrap it in
    ``io.StringIO``). A list of paths (exports per day or week) reads each with the same
    options and joins them
    with :func:`slurmlab.records.sacct.concat_sacct`: steps kept, a run listed in more than one file kept once (as
    its most final row: COMPLETED rather than the RUNNING of an earlier day's export).

    >>> import io
    >>> text = "JobID|State|AllocTRES|Elapsed\\n7|TIMEOUT|cpu=8,gres/gpu=2|01:00:00\\n7.batch|CANCELLED||01:00:00\\n"
    >>> jobs = read_sacct(io.StringIO(text))
    >>> jobs[["JobID", "State", "NGPUS"]].to_dict("records")
    [{'JobID': '7', 'State': 'TIMEOUT', 'NGPUS': 2}]
    >>> from slurmlab import sacct_steps
    >>> sacct_steps(jobs)[["JobID", "State", "JobState"]].to_dict("records")
    [{'JobID': '7.batch', 'State': 'CANCELLED', 'JobState': 'TIMEOUT'}]
    """
    if errors not in ("raise", "warn", "coerce"):
        raise SlurmlabError(f"read_sacct: errors={errors!r}: use 'raise', 'warn' or 'coerce'")
    check_time_zone(tz)
    if isinstance(delimiter, str) and delimiter.strip().lower() == "tab":
        raise SlurmlabError(
            f"read_sacct: delimiter={delimiter!r} names a delimiter; give the character "
            "itself: delimiter='\\t' (or leave it out: TAB is detected)"
        )
    if isinstance(path_or_buffer, types.GeneratorType):
        path_or_buffer = tuple(path_or_buffer)  # (paths made on the fly: read as a list)
    if isinstance(path_or_buffer, (list, tuple)):
        if not path_or_buffer:
            raise SlurmlabError("read_sacct: the list of exports is empty; give at least one path")
        tables = [
            read_sacct(p, fields=fields, delimiter=delimiter, tz=tz, errors=errors)
            for p in path_or_buffer
        ]
        return concat_sacct(tables)
    file, data = _load_bytes(path_or_buffer)
    head = data[:4096].lstrip()
    if head[:1] in (b"{", b"["):
        from slurmlab.records.sacct_json import json_to_raw

        raw = json_to_raw(file, data)
    else:
        raw = _split(file, data, fields, delimiter)
        if isinstance(path_or_buffer, (str, os.PathLike)):
            _warn_no_line_end(file, data)
    del data  # the text is in arrow columns now; free it before converting
    return _normalize(raw, tz, errors)


def concat_sacct(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Join job tables read from several exports (one per day or week), steps included.

    ``pd.concat`` drops what the tables carry in ``attrs`` (their steps among them) and keeps
    a run that two exports both list (sacct -S/-E windows that overlap list a job that spans
    them in each) twice. Here each run is kept once:

    * a row that repeats a row of an earlier table exactly is left out, with a warning naming
      both files and lines;
    * rows of different tables that are the same run but differ (a job still RUNNING or
      PENDING when one export was taken has ended by the next) are collapsed into the most
      final one, with a warning saying how many runs and which row was kept. The same run
      is the same JobIDRaw (JobID when a table was read without JobIDRaw) and Submit (Start
      when no table has Submit; a requeued job's runs differ in it; Unknown equals Unknown),
      and the same Cluster and User when every table has them (JobIDs repeat across
      clusters); a step, the same StepID of the same run (the Submit of its run, not its
      own, which is its Start). The most final row has an ended state
      (``TERMINAL_STATES``: not RUNNING, PENDING, SUSPENDED ...), then the latest End, then
      comes from the later table; a run or step whose rows start at different times
      (``sacct -T``) takes the earliest Start, and Elapsed from it, with a warning
      (:func:`_join_segments`). Rows of one table are
      never collapsed here (read_sacct joins the exports one file holds), and a run that one
      table lists twice is left as it is.

    ``attrs``: ``source`` (the files, joined by ", "), ``sources``, counts summed,
    ``duplicate_rows``/``duplicate_steps`` counting every row left out, and
    ``bad_lines``/``duplicate_lines``/``dst_lines`` as ``"file:line"`` texts.

    >>> import io
    >>> day = "JobID|State|Start|Elapsed|NCPUS\\n1|COMPLETED|2024-01-01T23:00:00|02:00:00|4\\n"
    >>> one = read_sacct(io.StringIO(day))
    >>> two = read_sacct(io.StringIO(day + "2|FAILED|2024-01-02T10:00:00|00:10:00|4\\n"))
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     both = concat_sacct([one, two])
    >>> both["JobID"].tolist(), both.attrs["duplicate_rows"]
    (['1', '2'], 1)
    """
    tables = list(tables)
    if not tables:
        raise SlurmlabError("concat_sacct: no tables given; give the tables read_sacct returned")
    if len({t.attrs.get("tz") for t in tables}) > 1:
        zones = ", ".join(repr(t.attrs.get("tz")) for t in tables)
        raise SlurmlabError(
            f"concat_sacct: the tables were read with different tz ({zones}), so their epoch "
            "times are in different zones; read every export with the same tz="
        )
    sources = [str(t.attrs.get("source", f"table {i}")) for i, t in enumerate(tables)]
    frames, step_frames, origin, step_of = [], [], [], []
    tables_with_steps: list[pd.DataFrame] = []  # (the table of each of step_frames)
    for i, table in enumerate(tables):
        ref = table.attrs.get("steps")
        lines = ref.lines if ref is not None and len(ref.lines) == len(table) else None
        frames.append(table)
        origin += [(sources[i], None if lines is None else int(x)) for x in
                   (lines if lines is not None else [None] * len(table))]  # fmt: skip
        if ref is not None:
            step_frames.append(steps(table) if lines is None else ref.frame)
            step_of.append(np.full(len(step_frames[-1]), i))
            tables_with_steps.append(table)
    jobs = pd.concat(frames, ignore_index=True, sort=False)
    table_of = np.repeat(np.arange(len(tables)), [len(t) for t in tables])
    compare = [c for c in jobs.columns if not c.startswith("_")]
    dup = jobs.duplicated(subset=compare, keep="first").to_numpy() if len(jobs) else np.array([])
    pairs: list[tuple[str, str]] = []
    if dup.any():
        hashes = pd.util.hash_pandas_object(jobs[compare], index=False).to_numpy()
        first: dict[int, int] = {}
        for pos, h in enumerate(hashes):
            seen = first.setdefault(int(h), pos)
            if dup[pos]:
                pairs.append((_where(origin[pos]), _where(origin[seen])))
        warn_at_caller(
            f"concat_sacct: left out {len(pairs)} row(s) that repeat a row of an earlier "
            f"export exactly ({_shown_pairs(pairs, 'repeats')}): {_OVERLAP_WHY}; each run is "
            "kept once",
            SacctParseWarning,
        )
    # the same run, not repeated exactly: keep its most final row
    key = ["JobIDRaw" if all("JobIDRaw" in t.attrs.get("fields", ()) for t in tables) else "JobID"]
    for column in ("User", "Cluster"):  # (job ids repeat across clusters: sacct -M a,b)
        if all(column in t.attrs.get("fields", ()) for t in tables):
            key.insert(0, column)
    take, left, kept = _keep_most_final(jobs, key, table_of, dup)
    merged = [_where(origin[r]) for r in left.tolist()]
    joined = _join_segments(jobs, left, kept)
    cut = jobs["JobID"].iloc[joined].astype(str).tolist()
    among = set(jobs["JobID"].iloc[np.concatenate([left, kept])].dropna())  # (runs joined)
    if merged:
        runs, shown = _runs_shown(jobs, left, kept, lambda r: _where(origin[r]))
        warn_at_caller(
            f"concat_sacct: {runs} run(s) appear in more than one export with different "
            "rows (a job still RUNNING or PENDING when one export was taken has ended by the "
            "next, as exports taken at midnight list it): each is kept once, as its most "
            f"final row (an ended state, then the latest End, then the later export): {shown}",
            SacctParseWarning,
        )
    is_joined = np.zeros(len(jobs), dtype=bool)
    is_joined[joined] = True
    jobs = jobs.iloc[take].reset_index(drop=True)
    joined = np.flatnonzero(is_joined[take])
    kept_lines = np.asarray([-1 if origin[r][1] is None else origin[r][1] for r in take], np.int64)
    step_frame, step_dup, moved = _concat_steps(
        jobs, joined, step_frames, tables_with_steps, step_of, key, among
    )
    cut += moved
    if cut:
        warn_at_caller(f"concat_sacct: {_truncated(cut)}", SacctParseWarning)
    orphans = ~_owned_by(jobs, step_frame)
    _state_of_runs(jobs, step_frame, among)
    jobs = conform(jobs)

    def total(key: str) -> int:
        return sum(int(t.attrs.get(key, 0)) for t in tables)

    def located(key: str) -> list[str]:
        return [f"{src}:{line}" for src, t in zip(sources, tables) for line in t.attrs.get(key, [])]

    unknown: dict[str, int] = {}
    for t in tables:
        for state, n in t.attrs.get("unknown_states", {}).items():
            unknown[state] = unknown.get(state, 0) + n
    formats = {t.attrs.get("format") for t in tables}
    delimiters = {t.attrs.get("delimiter") for t in tables}
    fields = list(dict.fromkeys(f for t in tables for f in t.attrs.get("fields", [])))
    jobs.attrs.update(
        {
            "source": ", ".join(sources),
            "sources": sources,
            "format": formats.pop() if len(formats) == 1 else "mixed",
            "delimiter": delimiters.pop() if len(delimiters) == 1 else None,
            "tz": tables[0].attrs.get("tz"),
            "bad_rows": total("bad_rows"),
            "bad_lines": located("bad_lines"),
            "padded_rows": total("padded_rows"),
            "repaired_rows": total("repaired_rows"),
            "duplicate_rows": total("duplicate_rows") + len(pairs) + len(merged),
            "duplicate_lines": located("duplicate_lines") + [a for a, _ in pairs] + merged,
            "duplicate_steps": step_dup,
            "dst_lines": located("dst_lines"),
            "unknown_states": unknown,
            "fields": fields,
            "steps": _StepsRef(step_frame, orphans, kept_lines),
        }
    )
    return jobs


def _concat_steps(
    jobs: pd.DataFrame,
    joined: np.ndarray,
    step_frames: list[pd.DataFrame],
    tables: list[pd.DataFrame],
    step_of: list[np.ndarray],
    key: list[str],
    among: set,
) -> tuple[pd.DataFrame, int, list[str]]:
    """:func:`concat_sacct`'s steps: the step rows of every table (``step_frames``, read
    from ``tables``; ``step_of``: the table of each row), each step kept once as its runs
    are (:func:`_keep_most_final` on ``key`` and StepID, a step's run told by its job's
    Submit), its -T segments joined (:func:`_join_segments`), and the usage sacct sums over
    steps given to the runs joined (rows ``joined`` of ``jobs``, changed in place:
    :func:`_sum_step_usage`). Returns the steps, how many rows were left out, and the JobIDs
    of the steps whose Start moved."""
    if not step_frames:
        return steps(pd.DataFrame({"JobID": pd.Series(dtype="string")})), 0, []
    step_frame = pd.concat(step_frames, ignore_index=True, sort=False)
    if not len(step_frame):
        return step_frame, 0, []
    again = step_frame.duplicated(keep="first").to_numpy()
    ident = step_frame
    if "Submit" in step_frame and among:  # (a step's run: its job's Submit, not its own)
        none = np.datetime64("NaT", "ns")
        runs = [
            _run_submits(t, f, among) if "Submit" in f else np.full(len(f), none)
            for t, f in zip(tables, step_frames)
        ]
        ident = step_frame.assign(Submit=np.concatenate(runs))
    order, left, kept = _keep_most_final(ident, [*key, "StepID"], np.concatenate(step_of), again)
    moved = _join_segments(step_frame, left, kept, np.ones(len(step_frame), dtype=bool))
    cut = step_frame["JobID"].iloc[moved].astype(str).tolist()
    dropped = len(step_frame) - len(order)
    told = ident is not step_frame  # (steps told by their run's Submit)
    step_frame = step_frame.iloc[order].reset_index(drop=True)
    if told:
        _sum_step_usage(jobs, joined, step_frame, ident["Submit"].to_numpy()[order])
    return step_frame, dropped, cut


def _state_of_runs(jobs: pd.DataFrame, step_rows: pd.DataFrame, among: set) -> None:
    """Give the steps of the runs joined (JobIDs ``among``) their run's State as joined
    (JobState: the kept row's, where an earlier export's step had its run's state that
    day, RUNNING); a step whose run is not in ``jobs`` keeps its own export's."""
    if not among or not len(step_rows) or "JobState" not in step_rows or "State" not in jobs:
        return
    rows, values = _of_runs(jobs, step_rows, among, "State", dtype=object, na_value=None)
    state = step_rows["JobState"].to_numpy(dtype=object, na_value=None).copy()
    state[rows] = values
    step_rows["JobState"] = pd.array(state, dtype=step_rows["JobState"].dtype)


def _keep_most_final(
    frame: pd.DataFrame, key: list[str], table: np.ndarray, repeats: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``frame`` to keep, in order; the rows left out as another table's row of
    the same run (see :func:`concat_sacct`), in row order; and the row kept for each.

    ``repeats`` marks rows that repeat an earlier row exactly (left out too). The same run:
    equal ``key`` columns plus Submit (missing equals missing), as slurmdbd keys its job
    table (``unique index (id_job, time_submit)``, one table per cluster:
    accounting_storage_mysql.c); a requeued job's runs never share it (batch_requeue_fini,
    job_mgr.c: "make sure the submit isn't the same as the last submit ... so we get
    different records in the database"), and a run's Start may not be the same in two exports
    (``sacct -T`` cuts it to -S: :func:`_join_segments`). Without Submit, Start tells runs
    apart. A table with two rows of one key lists two runs, never guessed apart, so that key
    is left alone, as is every key when neither Submit nor Start was exported (nothing tells
    a requeued job's runs apart). The row kept is the most final (an ended state, then the
    latest End, then the later table) and takes the place of the run's first row.
    """
    none = np.zeros(0, dtype=np.int64)
    take = np.arange(len(frame))
    keep = ~repeats if len(repeats) else np.ones(len(frame), dtype=bool)
    times = _run_times(frame)
    rows = np.flatnonzero(keep)
    if len(rows) < 2 or not times:
        return take[keep], none, none
    probe = _pending_as_started(frame, key, keep, times)
    group = probe[key + times].iloc[rows].groupby(key + times, dropna=False, sort=False)
    group = group.ngroup().to_numpy()
    shared = np.bincount(group)[group] > 1
    rows, group = rows[shared], group[shared]
    twice = pd.DataFrame({"g": group, "t": table[rows]}).duplicated().to_numpy()
    alone = ~np.isin(group, group[twice])  # (one table lists it twice: left as it is)
    rows, group = rows[alone], group[alone]
    if not rows.size:
        return take[keep], none, none
    ended = (
        frame["State"].isin(TERMINAL_STATES).fillna(False).to_numpy(dtype=bool)
        if "State" in frame
        else np.zeros(len(frame), dtype=bool)
    )
    end = (
        frame["End"].to_numpy(dtype="datetime64[ns]").astype(np.int64)  # NaT: the smallest
        if "End" in frame
        else np.zeros(len(frame), dtype=np.int64)
    )
    order = np.lexsort((table[rows], end[rows], ended[rows], group))
    last = np.r_[group[order][1:] != group[order][:-1], True]
    best = np.zeros(group.max() + 1, dtype=np.int64)
    best[group[order][last]] = rows[order][last]
    first = np.full(group.max() + 1, len(frame), dtype=np.int64)
    np.minimum.at(first, group, rows)  # (rows are in order: the run's first row)
    runs = np.unique(group)
    take[first[runs]] = best[runs]
    keep[rows[rows != first[group]]] = False
    left = rows != best[group]
    return take[keep], rows[left], best[group][left]


def _runs_shown(
    frame: pd.DataFrame, left: np.ndarray, kept: np.ndarray, where: Callable[[int], str]
) -> tuple[int, str]:
    """How many runs :func:`_keep_most_final` collapsed, and the first ten as text: ``JobID
    1: kept tue.psv:2 (COMPLETED), left out mon.psv:2 (RUNNING)``."""
    state = frame["State"] if "State" in frame else pd.Series("?", index=frame.index)
    runs = list(dict.fromkeys(kept.tolist()))
    shown = [
        f"JobID {frame['JobID'].iloc[best]}: kept {where(best)} ({state.iloc[best]}), left out "
        + ", ".join(f"{where(r)} ({state.iloc[r]})" for r in left[kept == best])
        for best in runs[:10]
    ]
    return len(runs), "; ".join(shown) + (f"; and {len(runs) - 10} more" if len(runs) > 10 else "")


def _join_segments(
    frame: pd.DataFrame, left: np.ndarray, kept: np.ndarray, is_step: np.ndarray | None = None
) -> np.ndarray:
    """Give each run :func:`_keep_most_final` collapsed the earliest Start of its rows that
    had started, and Elapsed from it to the kept row's End; the rows whose Start moved.

    A run's Start is set once (its record's time_start), so its rows differ in Start only in
    exports taken with ``sacct -T`` (--truncate): as_mysql_jobacct_process.c
    (_cluster_get_jobs, JOBCOND_FLAG_NO_TRUNC unset) cuts a Start before -S to
    -S and an End after -E to -E, and gives a job not started yet Start = End (a PENDING
    row: left out here). Joined, a run's segments are the whole run again. A step's rows
    (``is_step``) are cut the same way: see :func:`_join_step_segments`. ElapsedRaw, CPUTime
    and CPUTimeRAW follow the new Elapsed (:func:`_with_elapsed`)."""
    none = np.zeros(0, dtype=np.int64)
    if not left.size or "Start" not in frame:
        return none
    start = frame["Start"].to_numpy(dtype="datetime64[ns]")
    began = ~np.isnat(start)
    if "State" in frame:
        began &= (frame["State"] != "PENDING").fillna(True).to_numpy(dtype=bool)
    rows = np.concatenate([left, np.unique(kept)])
    owner = np.concatenate([kept, np.unique(kept)])
    ok = began[rows]
    earliest = pd.Series(start[rows][ok]).groupby(owner[ok]).min()
    moved = earliest[earliest.to_numpy() < start[earliest.index.to_numpy()]]
    if moved.empty:
        return none
    at = moved.index.to_numpy()
    step = np.zeros(len(at), dtype=bool) if is_step is None else is_step[at]
    elapsed = None
    if step.any():
        elapsed = _join_step_segments(frame, rows, owner, at[step], moved.to_numpy()[step])
    frame.iloc[at, frame.columns.get_loc("Start")] = moved.to_numpy()
    jobs = at[~step]
    if "End" in frame and "Elapsed" in frame and jobs.size:
        end = frame["End"].iloc[jobs]
        whole = (end - frame["Start"].iloc[jobs]).where(end.notna(), frame["Elapsed"].iloc[jobs])
        _with_elapsed(frame, jobs, whole.to_numpy())
    if elapsed is not None:
        _with_elapsed(frame, at[step], elapsed)
    return at


def _join_step_segments(
    frame: pd.DataFrame, rows: np.ndarray, owner: np.ndarray, at: np.ndarray, start: np.ndarray
) -> np.ndarray | None:
    """Join the -T segments of the steps kept at ``at`` (``rows``: every segment, ``owner``:
    the row kept for each; ``start``: their earliest Start); their new Elapsed (None without
    an Elapsed column), which the caller sets.

    sacct -T cuts a step's Start and End to the window (as_mysql_jobacct_process.c,
    _cluster_get_jobs: ``step->start = job_cond->usage_start`` ...) and prints Submit and
    Eligible as that Start (print.c: a JOBSTEP's Submit, Eligible and Start are
    step->start), so the joined step takes the earliest Start for the three and its
    segments' latest End. Its Elapsed there is End - Start less the step's suspended time,
    which -T does not cut (``step->elapsed -= step->suspended``, the record's whole value),
    so each segment tells it: End - Start - Elapsed, the largest (a segment shorter than it
    shows Elapsed 0), or Suspended where exported. Usage (TotalCPU, MaxRSS, TRESUsageInTot
    ...) is read whole from the step record in every segment, never cut: the kept row's, the
    most final (a step's usage is written when it ends, as_mysql_step_complete in
    as_mysql_job.c, so a RUNNING segment shows none), never summed."""
    mine = np.isin(owner, at)
    rows, owner = rows[mine], owner[mine]
    if "End" in frame:
        ends = pd.Series(frame["End"].to_numpy(dtype="datetime64[ns]")[rows]).groupby(owner).max()
        latest = ends.reindex(at).to_numpy(dtype="datetime64[ns]")
        has = ~np.isnat(latest)
        frame.iloc[at[has], frame.columns.get_loc("End")] = latest[has]
    for name in ("Submit", "Eligible"):
        if name in frame:
            frame.iloc[at, frame.columns.get_loc(name)] = start
    if "Elapsed" not in frame or "End" not in frame:
        return None
    seg = frame.iloc[rows]
    gap = (seg["End"] - seg["Start"] - seg["Elapsed"]).to_numpy(dtype="timedelta64[ns]")
    if "Suspended" in frame:
        gap = np.fmax(gap, seg["Suspended"].to_numpy(dtype="timedelta64[ns]"))
    gap = pd.Series(gap).groupby(owner).max().reindex(at).to_numpy(dtype="timedelta64[ns]")
    zero = np.timedelta64(0, "ns")
    gap = np.where(np.isnat(gap), zero, np.maximum(gap, zero))
    end = frame["End"].to_numpy(dtype="datetime64[ns]")[at]
    whole = np.maximum(end - start - gap, zero)
    return np.where(np.isnat(end), frame["Elapsed"].to_numpy(dtype="timedelta64[ns]")[at], whole)


def _with_elapsed(frame: pd.DataFrame, at: np.ndarray, elapsed: np.ndarray) -> None:
    """Set Elapsed of rows ``at``, and the columns sacct derives from it: ElapsedRaw (its
    seconds), CPUTime and CPUTimeRAW (print.c: ``elapsed * cpu_tres_rec_count``, the
    allocated CPUs it prints as NCPUS; without NCPUS, the row's CPUTime per Elapsed)."""
    before = _seconds(frame["Elapsed"].iloc[at])
    frame.iloc[at, frame.columns.get_loc("Elapsed")] = elapsed
    seconds = _seconds(frame["Elapsed"].iloc[at])
    if "ElapsedRaw" in frame:
        frame.iloc[at, frame.columns.get_loc("ElapsedRaw")] = pd.array(seconds).astype("Int64")
    cpus = _seconds(frame["NCPUS"].iloc[at]) if "NCPUS" in frame else np.full(len(at), np.nan)
    for name in ("CPUTime", "CPUTimeRAW"):
        if name not in frame:
            continue
        per = np.full(len(at), np.nan)
        np.divide(_seconds(frame[name].iloc[at]), before, out=per, where=before > 0)
        total = np.where(np.isnan(cpus), per, cpus) * seconds
        ok = ~np.isnan(total)
        value = (
            pd.to_timedelta(total[ok], unit="s")
            if name == "CPUTime"
            else pd.array(np.round(total[ok])).astype("Int64")
        )
        frame.iloc[at[ok], frame.columns.get_loc(name)] = value


def _sum_step_usage(
    jobs: pd.DataFrame, at: np.ndarray, step_rows: pd.DataFrame, run_submit: np.ndarray
) -> None:
    """Give the joined runs at ``at`` (rows of ``jobs``) the usage sacct sums over a job's
    ended steps (``_STEP_SUMS``), summed over their steps once joined: with -T a job row
    sums only the steps its window lists, so no segment holds the whole run's, but each
    step's row holds that step's whole usage (:func:`_join_step_segments`). ``run_submit``:
    the Submit of each step's run (:func:`_run_submits`); a run matches its steps by Cluster
    (where both have it), JobID (a step's AllocJobID) and Submit. A run with no ended step
    among ``step_rows`` (an export without steps, -X) keeps its kept row's usage."""
    fields = [c for c in _STEP_SUMS if c in jobs and c in step_rows]
    if not fields or not at.size or not len(step_rows) or "State" not in step_rows:
        return
    ended = step_rows["State"].isin(TERMINAL_STATES).fillna(False).to_numpy(dtype=bool)
    by = [c for c in ("Cluster",) if c in jobs and c in step_rows]
    step_key = [step_rows[c].to_numpy(dtype=object)[ended] for c in by]
    step_key += [step_rows["AllocJobID"].to_numpy(dtype=object)[ended], run_submit[ended]]
    sums = step_rows.loc[ended, fields].groupby(step_key, dropna=False).sum(min_count=1)
    job_key = [jobs[c].to_numpy(dtype=object)[at] for c in by]
    job_key += [jobs["JobID"].to_numpy(dtype=object)[at], jobs["Submit"].to_numpy()[at]]
    found = sums.reindex(pd.MultiIndex.from_arrays(job_key))
    for name in fields:
        value = found[name].to_numpy()
        ok = ~pd.isna(value)
        jobs.iloc[at[ok], jobs.columns.get_loc(name)] = value[ok]


def _seconds(column: pd.Series) -> np.ndarray:
    """A duration or number column as float seconds (NaN where missing)."""
    if pd.api.types.is_timedelta64_dtype(column):
        return column.dt.total_seconds().to_numpy(dtype="float64", na_value=np.nan)
    return column.to_numpy(dtype="float64", na_value=np.nan)


def _truncated(jobs: list[str]) -> str:
    """The warning's text for runs (JobIDs) :func:`_join_segments` joined."""
    shown = ", ".join(jobs[:10]) + (f" and {len(jobs) - 10} more" if len(jobs) > 10 else "")
    return (
        f"{len(jobs)} run(s) or step(s) have a different Start in different rows (JobID "
        f"{shown}): the exports look taken with sacct -T (--truncate), which cuts a Start "
        "before -S to -S and an End after -E to -E; each was given its earliest Start, and "
        "Elapsed from it to its last End (a step's less its suspended time); a step's usage "
        "(TotalCPU, MaxRSS, TRESUsage...) is whole in each of its rows, so its last row's is "
        "kept, and a job's TotalCPU, UserCPU and SystemCPU, which sacct sums over the steps "
        "its window lists, are summed over its steps joined (the kept row's window only in "
        "an export without steps, -X); export without -T for whole runs"
    )


def _run_times(frame: pd.DataFrame | dict[str, pa.Array]) -> list[str]:
    """The time that, with the job id, tells a run (see :func:`_keep_most_final`): Submit,
    else (not exported: a job table has the column, empty) Start."""
    for name in ("Submit", "Start"):
        column = frame.get(name)
        if column is None or not len(column):
            continue
        nulls = column.null_count if isinstance(column, pa.Array) else column.isna().sum()
        if nulls < len(column):
            return [name]
    return []


def _pending_as_started(
    frame: pd.DataFrame, key: list[str], keep: np.ndarray, times: list[str]
) -> pd.DataFrame:
    """``frame``'s key and ``times``, where a row not started yet (no Start, a state that has
    not ended: a job still pending when one export was taken) takes the JobIDRaw of the one
    run of its array task that started (:func:`_tasks_as_started`) and, when Start tells
    runs apart (no Submit), the Start of the one run another row of its key started, so
    that the two are one run."""
    probe = frame[[*key, *times]].copy()
    if "Start" not in frame:
        return probe
    start = frame["Start"].isna().to_numpy()
    ended = (
        frame["State"].isin(TERMINAL_STATES).fillna(False).to_numpy(dtype=bool)
        if "State" in frame
        else np.zeros(len(frame), dtype=bool)
    )
    waiting = start & ~ended & keep
    if not waiting.any():
        return probe
    if key[-1] == "JobIDRaw" and "ArrayTaskID" in frame and "Submit" in frame:
        _tasks_as_started(frame, probe, waiting, ~start & keep, key[:-1])
    if "Start" not in times:
        return probe
    runs: dict[tuple, set] = {}
    for row in probe[~start & keep].itertuples(index=False):
        runs.setdefault(tuple(row[:-1]), set()).add(row[-1])
    for i in np.flatnonzero(waiting):
        found = runs.get(tuple(probe.iloc[i, :-1]))
        if found is not None and len(found) == 1:
            probe.iloc[i, -1] = next(iter(found))
    return probe


def _tasks_as_started(
    frame: pd.DataFrame,
    probe: pd.DataFrame,
    waiting: np.ndarray,
    started: np.ndarray,
    also: list[str],
) -> None:
    """A pending array task's row (``7_3``: one task) takes the JobIDRaw of the one run of
    that task and Submit that started in another export: a task gets its own
    JobIDRaw when it starts, so until then it shows the array's, as every task still in the
    array's pending record does (a simulation's job table has a row for each). ``also``:
    the other key columns the run must share (Cluster, User)."""
    task = frame["ArrayTaskID"].notna().to_numpy(dtype=bool)
    pending = np.flatnonzero(waiting & task)
    if not pending.size:
        return
    array = frame["ArrayJobID"].to_numpy(dtype=object)
    index = frame["ArrayTaskID"].to_numpy(dtype=object)
    submit = frame["Submit"].to_numpy(dtype=object)
    if also:  # (the other key columns, with the submit time, as one value)
        submit = list(zip(*(probe[c].to_numpy(dtype=object) for c in also), submit))
    raw = probe["JobIDRaw"].to_numpy(dtype=object)
    runs: dict[tuple, set] = {}
    # (only the arrays with a pending task's row: an export may hold millions of tasks)
    wanted = frame["ArrayJobID"].isin(set(array[pending])).to_numpy(dtype=bool)
    for i in np.flatnonzero(started & task & wanted):
        runs.setdefault((array[i], index[i], submit[i]), set()).add(raw[i])
    at_raw = probe.columns.get_loc("JobIDRaw")
    for i in pending:
        found = runs.get((array[i], index[i], submit[i]))
        if found is not None and len(found) == 1:
            probe.iloc[i, at_raw] = next(iter(found))


def _where(origin: tuple[str, int | None]) -> str:
    source, line = origin
    return source if line is None else f"{source}:{line}"


def _warn_no_line_end(file: str, data: bytes) -> None:
    """sacct ends every line with a line end: a file whose last line has none may have been
    cut (an interrupted ``sacct > file``, a full disk), and a cut inside the last field still
    reads (``10:00:00`` cut to ``10:00``). A warning, not an error: hand-made files (one of
    the public samples among them) often lack the last line end."""
    end = data.rstrip(b" \t")
    if not end or end.endswith((b"\n", b"\r")):
        return
    last = end.rsplit(b"\n", 1)[-1].strip()
    if last.startswith(b"#"):
        return
    line = data.count(b"\n") + 1 if b"\n" in data else data.count(b"\r") + 1
    shown = last[-40:].decode("utf-8", errors="replace")
    warnings.warn(
        f"{file}, line {line}: the last line has no line end, so the file may be truncated "
        f"(an interrupted sacct > file, a full disk, a cut copy) and its last row cut short "
        f"(it ends {shown!r}); it was read as written: check it against sacct, or re-export",
        SacctParseWarning,
        stacklevel=3,
    )


def check_time_zone(tz: str | None) -> None:
    """Raise a :class:`~slurmlab.SlurmlabError` unless ``tz`` is None or a time zone: a name
    (``"UTC"``, ``"Europe/Berlin"``), an offset as text (``"+01:00"``) or a ``tzinfo``. A number
    is refused: pandas would read ``tz=1`` as one second east of UTC, not one hour."""
    if tz is None or isinstance(tz, datetime.tzinfo):
        return
    if not isinstance(tz, str):
        number = isinstance(tz, numbers.Real)
        raise SlurmlabError(
            f"tz={tz!r} is "
            + ("a number" if number else f"a {type(tz).__name__}")
            + ", not a time zone"
            + (" (a number would be read as seconds east of UTC, not hours)" if number else "")
            + "; give it as text: 'UTC', an offset such as '+01:00', or the IANA name of the "
            "zone of the host that ran sacct, such as 'Europe/Berlin'"
        )
    try:
        pd.Timestamp(0, tz="UTC").tz_convert(tz)
    except Exception:  # pytz, zoneinfo and dateutil each raise their own error
        raise SlurmlabError(
            f"tz={tz!r} is not a time zone; give the IANA name of the zone of the host "
            "that ran sacct, such as 'Europe/Berlin', 'America/New_York' or 'UTC'"
        ) from None


def check_job_table(jobs, who: str) -> None:
    """A :class:`~slurmlab.SlurmlabError` unless ``jobs`` is a job table (a DataFrame, as
    ``read_sacct`` and a simulation's ``result.jobs`` give), naming what was given and what
    to pass instead: a ``SimulationResult`` or a ``Lab`` is not its table."""
    if isinstance(jobs, pd.DataFrame):
        return
    kind = type(jobs).__name__
    made = "read_sacct('export.psv') or simulate(...).jobs"
    if hasattr(jobs, "jobs_all_runs"):  # a SimulationResult (records never imports sim)
        what, fix = (
            f"a {kind}",
            "pass result.jobs (each job's last run, as sacct) or result.jobs_all_runs (every "
            "run, as sacct -D: its hours match result.metrics)",
        )
    elif hasattr(jobs, "sbatch") and hasattr(jobs, "sacct"):  # a Lab
        what, fix = f"a {kind}", "pass lab.sacct() (lab.sacct(duplicates=True): every run)"
    elif isinstance(jobs, (str, os.PathLike)):
        shown = str(jobs) if len(str(jobs)) <= 60 else str(jobs)[:57] + "..."
        what = f"the {kind} {shown!r}"
        fix = f"read the export first: jobs = read_sacct({shown!r})"
    elif jobs is None:
        what, fix = "None", f"pass a job table: {made}"
    else:
        what, fix = f"a {kind}", f"pass a job table (a DataFrame): {made}"
    raise SlurmlabError(f"{who}: the job table is {what}, not a DataFrame; {fix}")


def steps(jobs: pd.DataFrame) -> pd.DataFrame:
    """The step rows (``.batch``, ``.extern``, ``.0`` ...) of the jobs in ``jobs``.

    Filtering ``jobs`` first filters the steps too. Steps whose allocation row is not in the
    export at all are always returned. A table without steps gives an empty frame.
    """
    check_job_table(jobs, "sacct_steps")
    ref = jobs.attrs.get("steps")
    if ref is None:
        # (a simulation's table has the reader's columns too, but never a sacct field
        # outside the schema: joined simulations with other origins lose their attrs too)
        raw = [c for c in jobs.columns if c not in JOB_COLUMNS and c not in DERIVED_COLUMNS]
        made_by_reader = "ArrayTasks" in jobs.columns and "origin" not in jobs.attrs and raw
        if len(jobs) and "source" not in jobs.attrs and made_by_reader:
            warnings.warn(
                "steps: this job table has the columns read_sacct makes but no steps attached: "
                "pandas drops them (they live in attrs) when tables with different attrs are "
                "joined, as pd.concat of two read_sacct tables does, so steps, MaxRSS per step "
                "and step counts are lost; join exports with "
                "slurmlab.records.sacct.concat_sacct([...]) or read_sacct([path, ...]), which "
                "keep them",
                UserWarning,
                stacklevel=2,
            )
        return pd.DataFrame(
            {
                name: pd.Series(dtype="string")
                for name in ("JobID", "AllocJobID", "StepID", "JobState")
            }
        )
    frame = ref.frame
    if len(frame) == 0:
        return frame.copy()
    keep = _owned_by(jobs, frame) | ref.orphans
    return frame.loc[keep].reset_index(drop=True)


# ----------------------------------------------------------------------------- writing


def _fmt_duration(value) -> str:
    if pd.isna(value):
        return ""
    total_ns = int(pd.Timedelta(value).value)
    seconds, ns = divmod(total_ns, 10**9)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    if days:
        text = f"{days}-{text}"
    if ns:
        text += "." + f"{ns:09d}".rstrip("0")
    return text


def _fmt_mb(value) -> str:
    if pd.isna(value):
        return ""
    return f"{float(value)!r}M"


def _format_column(frame: pd.DataFrame, name: str, blank_times: str) -> list[str]:
    col = frame[name]
    if name in _TIME_FIELDS:
        text = col.dt.strftime("%Y-%m-%dT%H:%M:%S")
        return text.fillna(blank_times).tolist()
    if name in _DURATION_FIELDS:
        if name == "Timelimit":
            return [("UNLIMITED" if pd.isna(v) else _fmt_duration(v)) for v in col]
        return [_fmt_duration(v) for v in col]
    if name == "ReqMem":
        per = frame["ReqMemPer"] if "ReqMemPer" in frame else pd.Series(pd.NA, index=frame.index)
        suffix = {"cpu": "c", "node": "n"}
        return [
            ""
            if pd.isna(v)
            else f"{format_memory_mb(int(v))}{suffix.get(p, '') if not pd.isna(p) else ''}"
            for v, p in zip(col, per)
        ]
    if name in _MEMORY_FIELDS:
        return [_fmt_mb(v) for v in col]
    if name == "NodeList":
        return ["None assigned" if pd.isna(v) else str(v) for v in col]
    if name == "State" and "CancelledBy" in frame:
        return [
            "" if pd.isna(s) else (f"{s} by {b}" if s == "CANCELLED" and not pd.isna(b) else str(s))
            for s, b in zip(col, frame["CancelledBy"])
        ]
    return ["" if pd.isna(v) else str(v) for v in col]


def _default_fields(frame: pd.DataFrame) -> list[str]:
    names = [c for c in frame.columns if c not in DERIVED_COLUMNS and not c.startswith("_")]
    if "AllocTRES" not in names:
        names.append("AllocTRES")
    return names


_NOT_A_NAME = (
    "which is neither a sacct JobID (123, 123_4, 123.batch) nor a name (a letter first, then "
    "no space, '.', '+', '[' or ']': they would read as a step, a het-job component or an "
    "array range)"
)


def writable_id(value: str) -> bool:
    """Whether a JobID written by :func:`write_sacct` reads back as itself: sacct's own
    (123, 123_4, 123.batch), or a name (a letter first, then no space, '.', '+', '[' or ']')."""
    value = value.strip()
    if _JOBID_PY.match(value):
        return True
    return bool(value) and value[0].isalpha() and not any(c.isspace() or c in ".+[]" for c in value)


def _named_rows(jobs: pd.DataFrame, names: list[str], delimiter: str) -> np.ndarray:
    """Rows whose JobID is a name (a simulation's scenario id), checked to read back.

    A JobID that is neither sacct's (123, 123_4, 123.batch) nor a name read_sacct reads back
    (a letter first; no space, '.', '+', '[', ']' or delimiter; beside a numeric JobIDRaw) is
    an error naming the row: written, it would read back as another job or not at all.
    """
    ids = jobs["JobID"].astype("string").fillna("").to_numpy(dtype=object)
    sacct_like = np.fromiter((bool(_JOBID_PY.match(v.strip())) for v in ids), bool, len(ids))
    named = ~sacct_like & (ids != "")
    raws = (
        jobs["JobIDRaw"].astype("string").fillna("").to_numpy(dtype=object)
        if "JobIDRaw" in jobs
        else np.full(len(ids), "", dtype=object)
    )
    for pos in np.flatnonzero(named):
        value, raw = ids[pos], raws[pos].strip()
        why = fix = None
        if not writable_id(value):
            why = _NOT_A_NAME
            fix = "give the job an id of letters, digits, '-' and '_' (e.g. 'eval-1')"
        elif delimiter in value:
            why = f"which contains the delimiter {delimiter!r}"
            fix = "write with another delimiter="
        elif not _digits(raw):
            why = (
                f"whose JobIDRaw {raw!r} is not a number (a JobID that is a name is read back "
                "only beside its numeric JobIDRaw)"
            )
            fix = "give the row its numeric JobIDRaw"
        elif "JobIDRaw" not in names:
            why = (
                "and fields= leaves out JobIDRaw (a JobID that is a name is read back only "
                "beside its numeric JobIDRaw)"
            )
            fix = "add JobIDRaw to fields"
        if why is not None:
            raise SlurmlabError(
                f"write_sacct: row {pos} has JobID {value!r}, {why}, so read_sacct could not "
                f"read it back; {fix}"
            )
    return named


def _flags(jobs: pd.DataFrame) -> pd.Series:
    """sacct's Flags (SchedMain, SchedBackfill, SchedSubmit) from StartedBy."""
    words = {by: flag for flag, by in _STARTED_BY.items()}
    return jobs["StartedBy"].map(words, na_action="ignore").astype("string")


def _synth_tres(jobs: pd.DataFrame) -> pd.Series:
    """AllocTRES for rows that lack it, built from NCPUS, NGPUS, ReqMem and NNodes."""
    parts = []
    for cpus, gpus, mem, nodes in zip(
        jobs.get("NCPUS", pd.Series(pd.NA, index=jobs.index)),
        jobs.get("NGPUS", pd.Series(pd.NA, index=jobs.index)),
        jobs.get("ReqMem", pd.Series(pd.NA, index=jobs.index)),
        jobs.get("NNodes", pd.Series(pd.NA, index=jobs.index)),
    ):
        items = []
        if not pd.isna(cpus):
            items.append(f"cpu={int(cpus)}")
        if not pd.isna(gpus) and int(gpus) > 0:
            items.append(f"gres/gpu={int(gpus)}")
        if not pd.isna(mem):
            items.append(f"mem={int(mem)}M")
        if not pd.isna(nodes):
            items.append(f"node={int(nodes)}")
        parts.append(",".join(items) or pd.NA)
    return pd.Series(parts, index=jobs.index, dtype="string")


def _write_fields(fields: str | Sequence[str], allowed: Sequence[str]) -> list[str]:
    """The names ``fields`` gives (a list, or one string split at commas as ``sacct
    --format`` splits it), each spelt as the table spells it (``jobid`` is JobID); a name the
    table has no column for is an error naming it, with the close ones (never a blank
    column)."""
    items = fields.split(",") if isinstance(fields, str) else fields
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Iterable):
        raise SlurmlabError(
            f"write_sacct: fields={fields!r} is not a field list; give names as a list "
            "(['JobID', 'State']) or one string ('JobID,State', as sacct --format)"
        )
    spelling = {str(name).lower(): str(name) for name in reversed(list(allowed))}
    names, unknown = [], []
    for item in items:
        name = str(item).strip()
        if not name and isinstance(fields, str):
            continue  # ("JobID,State," as sacct reads it)
        if name.lower() in spelling:
            names.append(spelling[name.lower()])
        else:
            unknown.append(name)
    if unknown:
        close = {
            name: [spelling[c] for c in difflib.get_close_matches(name.lower(), spelling, n=3)]
            for name in unknown
        }
        hints = "; ".join(
            f"{name!r}: did you mean {' or '.join(close[name])}?" for name in unknown if close[name]
        )
        shown = list(dict.fromkeys(allowed))
        listed = ", ".join(shown[:30]) + (" ..." if len(shown) > 30 else "")
        raise SlurmlabError(
            f"write_sacct: fields= names {', '.join(map(repr, unknown))}, which "
            + ("is not a column" if len(unknown) == 1 else "are not columns")
            + " of this job table, so "
            + ("its" if len(unknown) == 1 else "their")
            + " values would be blank"
            + (f" ({hints})" if hints else "")
            + f"; the table has {listed}"
        )
    if not names:
        raise SlurmlabError(
            f"write_sacct: fields={fields!r} names no field; give e.g. 'JobID,State,Elapsed'"
        )
    return names


def write_sacct(
    jobs: pd.DataFrame,
    path_or_buffer: str | os.PathLike | IO[str] | None = None,
    *,
    fields: str | Sequence[str] | None = None,
    delimiter: str = "|",
    header: bool = True,
    include_steps: bool = True,
) -> str | None:
    """Write a job table as ``sacct --parsable2`` text (with steps after their job).

    Derived columns (ArrayJobID, NGPUS, ...) are not written: they are read back from JobID
    and AllocTRES. A table from :func:`read_sacct` is written with the columns it was read
    with; any other table (a simulation) gets its columns in schema order, with an AllocTRES
    built from NCPUS, NGPUS, ReqMem and NNodes when it has none and StartedBy as sacct's Flags
    (SchedMain, SchedBackfill). A JobID that is a name (a scenario id such as ``big`` or
    ``sweep_3``) is written as it is, beside its numeric JobIDRaw, with ArrayJobID and
    ArrayTaskID columns for those rows (a name cannot say it is an array task); a JobID that
    could not be read back (``eval 1``, ``a.b``) is a :class:`~slurmlab.SlurmlabError`.
    ``fields`` picks the columns: a list, or one string split at commas as ``sacct --format``
    splits it (``"JobID,State,Elapsed"``), in any case; a name the table has no column for is
    an error naming it (never a blank column). ``header`` and ``include_steps`` are True or
    False. Returns the text when no destination is given.

    >>> import io
    >>> jobs = read_sacct(io.StringIO("JobID|State|Elapsed\\n1|COMPLETED|00:01:00\\n"))
    >>> print(write_sacct(jobs, fields=["JobID", "State", "Elapsed"]), end="")
    JobID|State|Elapsed
    1|COMPLETED|00:01:00
    """
    check_job_table(jobs, "write_sacct")
    for key, value in (("header", header), ("include_steps", include_steps)):
        if not isinstance(value, (bool, np.bool_)):
            raise SlurmlabError(f"write_sacct({key}={value!r}): {key} is True or False")
    if not isinstance(delimiter, str) or not delimiter:
        raise SlurmlabError(
            f"write_sacct(delimiter={delimiter!r}): the delimiter is one or more characters "
            "put between fields, such as '|' (sacct -P's)"
        )
    read_fields = jobs.attrs.get("fields")
    jobs = jobs.copy()
    if read_fields is None and ("AllocTRES" not in jobs or jobs["AllocTRES"].isna().all()):
        jobs["AllocTRES"] = _synth_tres(jobs)  # a simulated table: say what was allocated
        if "Start" in jobs:  # (to those that started: a pending job has no allocation,
            jobs.loc[jobs["Start"].isna(), "AllocTRES"] = pd.NA  # tres_alloc_str is unset)
    if (
        read_fields is None
        and "Flags" not in jobs
        and "StartedBy" in jobs
        and jobs["StartedBy"].notna().any()
    ):
        jobs["Flags"] = _flags(jobs)  # a simulated table: which scheduler started each job
    if fields is not None:
        step_columns = ("AllocJobID", "StepID", "JobState") if include_steps else ()
        names = _write_fields(fields, [*jobs.columns, *(read_fields or ()), *step_columns])
    elif read_fields is not None:
        names = list(read_fields)  # the columns the export had, in its order
    else:
        names = _default_fields(jobs)
    named = _named_rows(jobs, names, delimiter) if "JobID" in jobs else np.zeros(len(jobs), bool)
    if named.any():
        # sacct says "task 3 of array 2" only in a JobID such as 2_3; a name cannot, so the
        # id columns are written for those rows (read_sacct reads them back)
        for name in _ID_COLUMNS:
            if name in jobs:
                jobs[name] = jobs[name].where(named)
        if fields is None:
            extra = [
                c for c in _ID_COLUMNS if c in jobs and jobs[c].notna().any() and c not in names
            ]
            at = names.index("JobIDRaw") + 1 if "JobIDRaw" in names else 1
            names[at:at] = extra
    step_frame = steps(jobs) if include_steps else pd.DataFrame()
    rows = jobs.assign(_order=np.arange(len(jobs), dtype=float), _sub=0)
    if len(step_frame):
        first = pd.Series(np.arange(len(jobs), dtype=float), index=jobs["JobID"].to_numpy())
        first = first[~first.index.duplicated(keep="last")]
        step_frame = step_frame.assign(
            _order=step_frame["AllocJobID"].map(first).to_numpy(),
            _sub=np.arange(1, len(step_frame) + 1),
        )
        rows = pd.concat([rows, step_frame], ignore_index=True, sort=False)
        rows = rows.sort_values(["_order", "_sub"], kind="stable").reset_index(drop=True)
    blank = "Unknown"
    columns = []
    for name in names:
        if name not in rows:
            columns.append([""] * len(rows))
        else:
            columns.append(_format_column(rows, name, blank))
    lines = [delimiter.join(names)] if header else []
    lines += [delimiter.join(values) for values in zip(*columns)]
    text = "\n".join(lines) + "\n"
    if path_or_buffer is None:
        return text
    if isinstance(path_or_buffer, (str, os.PathLike)):
        Path(path_or_buffer).write_text(text, encoding="utf-8")
    else:
        path_or_buffer.write(text)
    return None
