"""Read Standard Workload Format traces (the Parallel Workloads Archive).

SWF: one job per line, 18 whitespace-separated fields, ``-1`` for missing, ``;``
header lines (``MaxProcs``, ``MaxNodes``, ``UnixStartTime``, ``TimeZoneString``...). Plain or
gzipped.
Each job becomes a processors-only request on a single pool of MaxProcs CPUs:
width = requested processors if > 0 else allocated; time limit = requested time
if > 0 else the run time (at least 1 s: Slurm limits are positive). Jobs with
width <= 0 or an unknown (negative) run time are dropped and counted in a warning;
zero run times are kept. A trace records what really happened, so its run times
are replayed as they are, even past the requested time.

Every field is a finite number written with ASCII digits, a ``-`` only in front, and
optionally a fraction (``2.5``) and an exponent (``1e2``, ``1.5E+1``): not ``１00``,
``1_00`` or ``+100``, which Python's ``float()`` would take. Time fields
(submit, wait, run, requested, average CPU and think time) may have fractions: the SWF
definition (v2.2) allows "floating point values for time fields". The counts and numbers read
here (job number, processors, user, executable) are whole numbers; -1 is "missing", and no
other negative number is SWF. The status is one of the definition's (1 completed, 0 failed,
5 cancelled, -1 missing; 2, 3, 4 partial executions), and a job's preceding job is never the
job itself. Anything else is an error naming the file, the line, the field and the value. So
is a partial-execution record (status 2, 3 or 4: one line per part of a job that was
checkpointed or swapped out), as slurmlab replays each job once. A preceding job that is not
in the trace, and a header field the reader uses written without its colon
(``; MaxProcs 64``, a comment to SWF), are warned about. A file named ``.gz`` must be gzip
data (a file that is, whatever its name, is read as such).
"""

from __future__ import annotations

import gzip
import re
import warnings
import zlib
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from slurmlab.errors import RequestError, SlurmlabError
from slurmlab.paths import home_path
from slurmlab.spec.cluster import Cluster, Node, Partition
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import MAX_SECONDS, check_switch
from slurmlab.spec.workload import DEFAULT_ORIGIN, Workload, WorkloadJob

__all__ = ["SWF_FIELDS", "SwfDropWarning", "read_swf", "read_swf_table", "swf_cluster"]

SWF_FIELDS = (
    "job", "submit", "wait", "run", "alloc_procs", "avg_cpu", "used_mem", "req_procs",
    "req_time", "req_mem", "status", "user", "group", "executable", "queue", "partition",
    "preceding_job", "think_time",
)  # fmt: skip

#: the largest time (s) a field may hold (MAX_SECONDS, as scenarios), and the latest
#: UnixStartTime (2100-01-01): beyond them pandas times overflow; no trace comes near
MAX_UNIX_START = 4_102_444_800
#: header fields the reader uses: given twice with different values, the trace is ambiguous
_READ_HEADER = frozenset(("MaxProcs", "MaxNodes", "UnixStartTime", "TimeZoneString"))

#: The counts and numbers read_swf turns into a job: a fraction is an error. (Time fields
#: may have fractions: "it is permissable to use floating point values for time fields".)
WHOLE_FIELDS = ("job", "alloc_procs", "req_procs", "user", "executable")

#: The SWF status codes (the definition's field 11).
SWF_STATUS = {
    1: "completed",
    0: "failed",
    5: "cancelled",
    -1: "missing",
    2: "partial execution, to be continued",
    3: "last partial execution, completed",
    4: "last partial execution, failed",
}
#: Fields read_swf reads (or checks) where only -1 (missing) may be negative (job and submit
#: have rules of their own: a job needs both).
_MISSING_ONLY = (
    "run", "alloc_procs", "req_procs", "req_time", "user", "executable", "preceding_job",
)  # fmt: skip

#: SWF status codes of partial executions (a job checkpointed or swapped out, one line per part)
PARTIAL_STATUS = {
    2: "this partial execution will be continued",
    3: "the last partial execution, job completed",
    4: "the last partial execution, job failed",
}


class SwfDropWarning(UserWarning):
    """read_swf dropped jobs: ``counts`` maps each reason to its number of jobs."""

    def __init__(self, message: str, counts: dict[str, int] | None = None):
        super().__init__(message)
        self.counts = counts or {}

    def __reduce__(self):  # (pickled and copied with its counts: multiprocessing, xdist)
        return (type(self), (str(self), self.counts))


_GZIP = b"\x1f\x8b"
#: Other compressions a trace may come in, by their magic bytes: (name, how to undo it).
OTHER_COMPRESSION = {
    b"BZh": ("bzip2", "bunzip2 FILE"),
    b"\xfd7zXZ\x00": ("xz", "unxz FILE"),
    b"\x28\xb5\x2f\xfd": ("zstd", "unzstd FILE"),
    b"PK\x03\x04": ("zip", "unzip FILE"),
}


def _open_text(path: Path):
    """The trace as text lines, and whether it is gzipped (by its magic bytes, not its
    name); a UTF-8 byte-order mark is skipped."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(16)
    except OSError as exc:
        raise SlurmlabError(f"SWF file {str(path)!r}: cannot read it ({exc.strerror})") from None
    if magic.startswith(_GZIP):
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace"), True
    if path.name.lower().endswith(".gz"):  # (a failed download, or a plain trace misnamed)
        plain = path.name[:-3]
        raise SlurmlabError(
            f"SWF file {str(path)!r} is named .gz but is not gzip data (it starts {magic!r}); "
            f"if it is a plain SWF trace, rename it to {plain!r}; else fetch it again "
            "(gzip -t FILE checks a gzipped file)"
        )
    for sig, (kind, undo) in OTHER_COMPRESSION.items():
        if magic.startswith(sig):
            raise SlurmlabError(
                f"SWF file {str(path)!r} is {kind}-compressed; slurmlab reads SWF traces plain "
                f"or gzipped: decompress it first ({undo})"
            )
    return open(path, encoding="utf-8-sig", errors="replace"), False


def _read(path: Path) -> tuple[pd.DataFrame, dict[str, str], dict[str, int], dict[str, int]]:
    """The records, the header fields, the line of each header field, and the line of each
    header field the reader uses written without its colon (``; MaxProcs 64``: a comment)."""
    if not path.exists():
        raise SlurmlabError(f"SWF file {str(path)!r} does not exist")
    if path.is_dir():
        raise SlurmlabError(
            f"SWF file {str(path)!r} is a directory; give a trace file (.swf or .swf.gz)"
        )
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    colonless: dict[str, int] = {}
    rows: list[list[float]] = []
    lines: list[int] = []
    no = 0
    fh, gzipped = _open_text(path)
    try:
        with fh:
            for no, line in enumerate(fh, start=1):
                s = line.strip()
                if not s:
                    continue
                if s.startswith(";"):
                    key, sep, value = s[1:].partition(":")
                    key = key.strip()
                    if sep and key and " " not in key:
                        spelt = {k.lower(): k for k in _READ_HEADER}.get(key.lower())
                        if spelt and spelt != key:  # (SWF's field names are case-sensitive)
                            warnings.warn(
                                f"{path}: line {no}: header field {key!r} is not read: SWF "
                                f"names it {spelt!r} (the case counts); write '; {spelt}: "
                                f"{value.strip()}'",
                                stacklevel=3,
                            )
                        if key in header and key not in _READ_HEADER:
                            continue  # (Note: lines repeat; the first of each is kept)
                        if key in header and header[key] != value.strip():
                            raise SlurmlabError(
                                f"{path}: line {no}: header field {key!r} is {value.strip()!r}, "
                                f"but line {header_lines[key]} set it to {header[key]!r}; keep "
                                "one (a trace has one header)"
                            )
                        header[key], header_lines[key] = value.strip(), no
                    else:
                        _warn_colonless(s, path, no, colonless)
                    continue
                rows.append(_record(s, path, no, gzipped))
                lines.append(no)
    except (EOFError, OSError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        what = "its gzip data" if gzipped else "it"
        after = f" after line {no}" if no else ""
        raise SlurmlabError(
            f"SWF file {str(path)!r}: cannot read {what}{after} ({exc}); the file is truncated "
            "or corrupt: fetch it again (gzip -t FILE checks a gzipped file)"
        ) from None
    table = pd.DataFrame(np.array(rows).reshape(-1, 18), columns=list(SWF_FIELDS))
    table["line"] = lines
    return table, header, header_lines, colonless


def _warn_colonless(s: str, path: Path, no: int, colonless: dict[str, int]) -> None:
    """A header field the reader uses, written without its colon (``; MaxProcs 64``): SWF
    reads such a line as a comment, so say so (and remember it for the size warning)."""
    words = s[1:].split(None, 1)
    if len(words) < 2 or words[0] not in _READ_HEADER:
        return
    key, value = words[0], words[1].strip()
    first = value.split()[0]
    looks = (
        re.fullmatch(r"[A-Za-z_]+(?:/[-+\w]+)*", first, re.ASCII)
        if key == "TimeZoneString"
        else _NUMBER_RE.fullmatch(first)
    )
    if looks:  # (not a sentence that starts with the word: "; MaxNodes is unknown")
        colonless.setdefault(key, no)
        warnings.warn(
            f"{path}: line {no}: {s!r} is read as a comment: an SWF header field has a colon "
            f"after its name; write '; {key}: {value}'",
            stacklevel=4,
        )


#: A number as SWF writes it: ASCII digits, an optional '-' (-1: missing), a fraction, an
#: exponent (``float()`` also takes ``１00``, ``1_00`` and ``+100``, which SWF never writes).
_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)


def _record(s: str, path: Path, no: int, gzipped: bool = False) -> list[float]:
    """One SWF record: 18 finite numbers (errors name the line, the field and the value)."""
    parts = s.split()
    if len(parts) != 18:
        if "\x00" in s or "\ufffd" in s:  # (NUL, or bytes that are not UTF-8 text)
            what = "its gzip data decompresses to" if gzipped else "it holds"
            raise SlurmlabError(
                f"{path}: line {no}: not text ({what} bytes such as {s[:20]!r}): an SWF "
                "trace is text, one job per line; check that the file is an SWF trace"
            )
        raise SlurmlabError(
            f"{path}: line {no}: {len(parts)} field{'s' * (len(parts) != 1)}, SWF has 18 "
            f"whitespace-separated fields (value {s[:60]!r}); fix the line, or start it with ';' "
            "if it is a comment"
        )
    try:
        values = [float(p) for p in parts]
    except ValueError:
        i = next(i for i, p in enumerate(parts) if not _is_number(p))
        raise SlurmlabError(
            f"{path}: line {no}: field {SWF_FIELDS[i]!r} is {parts[i]!r}, not a number; SWF "
            "fields are numbers (counts whole, times in seconds), -1 when missing"
        ) from None
    total = sum(values)
    if total - total != 0:  # nan or inf somewhere, or a sum too large: look at each value
        for i, v in enumerate(values):
            if v - v != 0:
                raise SlurmlabError(
                    f"{path}: line {no}: field {SWF_FIELDS[i]!r} is {parts[i]!r}, not a finite "
                    "number; SWF fields are finite numbers, -1 when missing"
                )
    if not s.isascii() or "_" in s or "+" in s:  # what float() takes but SWF never writes
        _check_forms(s, parts, values, path, no)
    return values


def _check_forms(s: str, parts: list[str], values: list[float], path: Path, no: int) -> None:
    """Raise for a field float() read but SWF never writes so (``１00``, ``1_00``, ``+100``),
    or fields split by other whitespace than SWF's (a no-break space)."""
    i = next((i for i, p in enumerate(parts) if not _NUMBER_RE.fullmatch(p)), None)
    if i is not None:
        form = (
            "characters that are not ASCII digits"
            if not parts[i].isascii()
            else "a '_'"
            if "_" in parts[i]
            else "a '+'"
        )
        raise SlurmlabError(
            f"{path}: line {no}: field {SWF_FIELDS[i]!r} is {parts[i]!r}, not a number as SWF "
            f"writes them (it has {form}); write it with the ASCII digits 0-9, a leading '-' "
            f"only for -1 (missing), e.g. {_plain(values[i])}"
        )
    odd = next((c for c in s if c.isspace() and not c.isascii()), None)
    if odd is not None:
        raise SlurmlabError(
            f"{path}: line {no}: fields separated by {odd!r}, not by spaces or tabs as SWF "
            "separates them; replace it with a space"
        )


def _plain(value: float) -> str:
    """A number as SWF writes it (``100``, ``2.5``)."""
    return str(int(value)) if value == int(value) else repr(value)


def read_swf_table(path: str | Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """The raw SWF records (18 named numeric columns, with ``line``) and the header fields."""
    table, header, _, _ = _read(home_path(path))
    return table, header


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def swf_cluster(procs: int | Workload, name: str = "swf") -> Cluster:
    """The processors-only machine of a trace: one pool node of ``procs`` CPUs and no
    memory (a Slurm node's default RealMemory, 1 MB, would show as every job's ReqMem).
    ``procs`` may be the trace itself (:func:`read_swf`'s Workload): its ``max_procs``."""
    if isinstance(procs, Workload):
        if procs.max_procs is None:
            raise SlurmlabError(
                f"workload {procs.name!r} is no SWF trace (it has no machine size): give the "
                "number of processors, swf_cluster(256)"
            )
        procs = procs.max_procs
    if isinstance(procs, bool) or not isinstance(procs, (int, np.integer)):
        raise SlurmlabError(
            f"swf_cluster: procs {procs!r} is not a whole number of processors; give one "
            "(swf_cluster(256)) or the trace (swf_cluster(read_swf(path)))"
        )
    if procs < 1:
        raise SlurmlabError(f"SWF machine size {procs} must be at least 1 processor")
    pool = Node("pool", cpus=int(procs), memory_mb=0)
    return Cluster(
        name, (pool,), (Partition("batch", ("pool",), default=True),), processor_pool=True
    )


def read_swf(
    path: str | Path,
    *,
    procs: int | None = None,
    skip_invalid: bool = False,
    cluster: Cluster | str | Path | None = None,
) -> Workload:
    """Read an SWF trace into a trace Workload (see the module docstring).

    The machine is a pool of ``procs`` processors (default: the header's MaxProcs, else
    MaxNodes, else the widest job, with a warning; -1 in the header means missing), or
    ``cluster`` when the trace is to run on a real cluster (a :class:`Cluster`, a preset
    name or a slurm.conf path, as ``simulate`` takes; then ``max_procs`` is that cluster's
    CPU count). A job the machine cannot run (wider than it; on a ``cluster``, also
    a time limit over its default partition's MaxTime, which would pend for ever) raises an
    error naming it, unless ``skip_invalid=True`` (True or False) drops and counts it. Each drop is one
    :class:`slurmlab.records.swf.SwfDropWarning`, whose ``counts`` say why.

    Time zero is the header's UnixStartTime as the trace's local time: the wall clock of
    the zone its ``TimeZoneString`` names (the SWF v2.2 header for it; the older
    ``TimeZone`` offset is deprecated as buggy and not read), as sacct shows a cluster's
    local times, so hours of the day are the site's (daily cycles). A zone this system does
    not know is a warning, and time zero stays in UTC, as it is without a TimeZoneString;
    without UnixStartTime it is the default origin. Job times are time zero plus the trace's
    seconds, so after a daylight-saving change they are an hour off the local clock; exact
    local times are ``(jobs.Submit - w.origin + pd.Timestamp(UnixStartTime, unit="s",
    tz="UTC")).dt.tz_convert(TimeZoneString)``. KTH's header (``UnixStartTime: 843480031``,
    ``TimeZoneString: Europe/Stockholm``, ``StartTime: Mon Sep 23 14:00:31 CEST 1996``)
    gives time zero 1996-09-23 14:00:31.
    """
    path = home_path(path)  # ("~/trace.swf", as pandas' readers take it)
    check_switch("read_swf", "skip_invalid", skip_invalid)  # ("no" would be taken for True)
    if cluster is not None:
        cluster = Cluster.coerce(cluster)  # (a preset name or a slurm.conf path, as simulate)
    if procs is not None and (
        isinstance(procs, bool) or not isinstance(procs, int | np.integer) or procs < 1
    ):
        raise SlurmlabError(
            f"procs={procs!r}: the machine size must be a whole number of at least 1 processor"
        )
    if procs is not None and cluster is not None:
        raise SlurmlabError(
            f"give procs={procs} (a pool of that many processors) or cluster={cluster.name!r}, "
            "not both: the trace runs on one machine"
        )
    table, header, header_lines, colonless = _read(path)
    _check_records(table, path)
    _warn_unknown_preceding(table, path)
    width = np.where(table["req_procs"] > 0, table["req_procs"], table["alloc_procs"])
    run = table["run"].to_numpy()
    req = table["req_time"].to_numpy()
    limit = np.maximum(np.where(req > 0, req, run), 1.0)
    keep = (width > 0) & (run >= 0)
    dropped = int((~keep).sum())
    if dropped:
        no_procs = int((width <= 0).sum())
        counts = {"no processors": no_procs, "unknown run time": dropped - no_procs}
        first = int(np.flatnonzero(~keep)[0])
        warnings.warn(
            SwfDropWarning(
                f"{path}: dropped {dropped} of {len(table)} job{'s' * (len(table) != 1)} with "
                "no processors or an unknown run time (SWF -1; the first at line "
                f"{int(table['line'].iloc[first])}, job {int(table['job'].iloc[first])})",
                {k: v for k, v in counts.items() if v},
            ),
            stacklevel=2,
        )
    if cluster is not None:
        size = sum(n.cpus for n in cluster.nodes)
        wide = keep & _cannot_run(width, keep, cluster)
    else:
        size = procs or _header_size(header, header_lines, path)
        if size is None:
            size = int(width[keep].max()) if keep.any() else 1
            basis = "the widest job" if keep.any() else "there is no job to size it by"
            lacking = "; ".join(
                f"line {line} writes {key} without its colon (; {key}: N)"
                for key, line in colonless.items()
                if key in ("MaxProcs", "MaxNodes")
            )
            warnings.warn(
                f"{path}: the header gives no machine size (MaxProcs and MaxNodes are absent "
                f"or -1{'; ' + lacking if lacking else ''}): the machine is taken to be {size} "
                f"processor{'s' * (size != 1)}, {basis}; pass --procs N (procs=N) to set its "
                "size",
                stacklevel=2,
            )
        wide = keep & (width > size)
    if wide.any():
        first = int(np.flatnonzero(wide)[0])
        job, w = int(table["job"].iloc[first]), int(width[first])
        if cluster is None:
            machine, why = f"{size} processors", f" but the machine has {size}"
            larger = "--procs N (procs=N) to enlarge the machine"
        else:
            machine = f"cluster {cluster.name!r}"
            why = f", which {machine} cannot give one job ({_cannot_run_reason(w, cluster)})"
            larger = "a --cluster that can hold it"
        dropped += _refuse_or_drop(
            path, table, wide, first, skip_invalid,
            reason=f"job {job} asks for {w} processors{why}", fix=larger,
            kind=f"wider than {machine}", detail=f"job {job}, {w} processors",
            why="wider than the machine",
        )  # fmt: skip
        keep &= ~wide
    part = None if cluster is None else cluster.default_partition
    if part is not None and part.max_time is not None:  # such a job would pend for ever
        max_s = part.max_time.total_seconds()
        long = keep & (limit > max_s)
        if long.any():
            first = int(np.flatnonzero(long)[0])
            what = (
                f"job {int(table['job'].iloc[first])} asks for {limit[first]:.0f} s, over "
                f"the MaxTime of partition {part.name!r}, {max_s:.0f} s"
            )
            dropped += _refuse_or_drop(
                path, table, long, first, skip_invalid,
                reason=f"{what} (it would pend for ever, PartitionTimeLimit)",
                fix="a --cluster whose default partition allows it",
                kind=f"over the MaxTime of partition {part.name!r}", detail=what,
                why="over the partition's MaxTime",
            )  # fmt: skip
            keep &= ~long
    order = np.lexsort((table["job"].to_numpy(), table["submit"].to_numpy()))
    guessed = keep & ~(req > 0)
    if guessed.any():  # (a time limit the run time itself: estimates no scheduler has)
        n, total = int(guessed.sum()), int(keep.sum())
        warnings.warn(
            f"{path}: {n} of {total} job{'s' * (total != 1)} {'has' if n == 1 else 'have'} no "
            "requested time (SWF field "
            "9 is -1 or 0), so their time limit is their run time: the schedulers know those run "
            "times exactly (perfect estimates), which makes backfilling look better than "
            "with users' estimates (Mu'alem & Feitelson 2001); compare policies on traces "
            "with requested times, or mind it",
            stacklevel=2,
        )
    jobs = []
    sub = table["submit"].to_numpy()
    num = table["job"].to_numpy()
    usr = table["user"].to_numpy()
    exe = table["executable"].to_numpy()
    for i in order:
        if not keep[i]:
            continue
        spec = JobSpec(
            name=f"app{int(exe[i])}" if exe[i] >= 0 else None,  # SWF executable number
            ntasks=int(width[i]),
            time_limit=timedelta(seconds=float(limit[i])),
        )
        jobs.append(
            WorkloadJob(
                spec,
                submit=float(sub[i]),
                runtime=float(run[i]),
                id=str(int(num[i])),
                user=f"u{int(usr[i])}" if usr[i] >= 0 else None,
            )
        )
    start = _header_whole(
        header, header_lines, "UnixStartTime", path,
        "write the trace's start as whole seconds since 1970 ('; UnixStartTime: 843480031'), "
        "or -1 if it is unknown",
    )  # fmt: skip
    if start is not None and not 0 <= start <= MAX_UNIX_START:
        raise SlurmlabError(
            f"{path}: line {header_lines['UnixStartTime']}: header field 'UnixStartTime' is "
            f"{start}, not a time between 1970 and 2100; write the trace's start as whole "
            "seconds since 1970 ('; UnixStartTime: 843480031'), or -1 if it is unknown"
        )
    origin = DEFAULT_ORIGIN if start is None else _local_origin(start, header, header_lines, path)
    return Workload(
        tuple(jobs), name=path.name, origin=origin, dropped=dropped, kind="trace",
        max_procs=size,
    )  # fmt: skip


def _refuse_or_drop(
    path: Path,
    table: pd.DataFrame,
    bad: np.ndarray,
    first: int,
    skip_invalid: bool,
    *,
    reason: str,
    fix: str,
    kind: str,
    detail: str,
    why: str,
) -> int:
    """Jobs the machine cannot run (``bad``; ``first`` the first in the file): an error naming
    that job's line, unless ``skip_invalid``; then a warning counting them (``why``, in its
    ``counts``). Returns the count."""
    line = int(table["line"].iloc[first])
    if not skip_invalid:
        raise SlurmlabError(
            f"{path}: line {line}: {reason}; pass --skip-invalid (skip_invalid=True) to drop "
            f"such jobs, or {fix}"
        )
    count = int(bad.sum())
    warnings.warn(
        SwfDropWarning(
            f"{path}: dropped {count} job{'s' * (count != 1)} {kind} (the first: line {line}, {detail})",
            {why: count},
        ),
        stacklevel=3,
    )
    return count


def _local_origin(
    start: int, header: dict[str, str], lines: dict[str, int], path: Path
) -> pd.Timestamp:
    """UnixStartTime as the wall clock of the header's TimeZoneString (UTC without one, or
    with a zone this system does not know: a warning says so)."""
    utc = pd.Timestamp(start, unit="s", tz="UTC")
    name = header.get("TimeZoneString")
    if name is None:
        return utc.tz_localize(None)
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        warnings.warn(
            f"{path}: line {lines['TimeZoneString']}: header field 'TimeZoneString' is "
            f"{name!r}, a time zone this system does not know: the job table's times are in "
            "UTC; write a tz database name ('; TimeZoneString: Europe/Stockholm') or install "
            "the tzdata package",
            stacklevel=3,
        )
        return utc.tz_localize(None)
    return utc.tz_convert(zone).tz_localize(None)


def _check_records(table: pd.DataFrame, path: Path) -> None:
    """Raise for the first line (in file order) that breaks a rule: a fraction in a field
    read as a whole number, a negative job number or submit time, a partial execution, a
    repeated job number."""
    problems: list[tuple[int, str]] = []  # (row, message and fix), first row of each rule
    fix = "; fix or delete the line"
    for name in WHOLE_FIELDS:
        values = table[name].to_numpy()
        bad = np.flatnonzero(values != np.floor(values))
        if len(bad):
            problems.append(
                (int(bad[0]), f"field {name!r} is {float(values[bad[0]])!r}, not a whole number "
                 f"(SWF counts and numbers are whole; times may have fractions){fix}")
            )  # fmt: skip
    for name, rule in (
        ("job", "every record needs its job number (SWF counts jobs from 1)"),
        ("submit", "a job needs its submit time (seconds from the trace start)"),
    ):
        values = table[name].to_numpy()
        bad = np.flatnonzero(values < 0)
        if len(bad):
            value = float(values[bad[0]])
            value = int(value) if value == int(value) else value  # (submit may be fractional)
            missing = " (SWF's missing)" if value == -1 else ""
            problems.append((int(bad[0]), f"field {name!r} is {value}{missing}: {rule}{fix}"))
    for name in ("submit", "wait", "run", "req_time"):  # (over MAX_SECONDS: a unit slip)
        values = table[name].to_numpy()
        bad = np.flatnonzero(values > MAX_SECONDS)
        if len(bad):
            value = float(values[bad[0]])
            problems.append(
                (int(bad[0]), f"field {name!r} is {value:.0f} s, over {MAX_SECONDS:.0e} s "
                 f"(31 years): SWF times are seconds{fix}")
            )  # fmt: skip
    for name in _MISSING_ONLY:  # -1 is missing; no other negative number is SWF
        values = table[name].to_numpy()
        bad = np.flatnonzero((values < 0) & (values != -1))
        if len(bad):
            problems.append(
                (int(bad[0]), f"field {name!r} is {_plain(float(values[bad[0]]))}: SWF writes -1 "
                 f"for a missing value and no other negative number{fix}")
            )  # fmt: skip
    status = table["status"].to_numpy()
    bad = np.flatnonzero(~np.isin(status, list(SWF_STATUS)))
    if len(bad):
        known = ", ".join(f"{code} ({what})" for code, what in SWF_STATUS.items())
        problems.append(
            (int(bad[0]), f"field 'status' is {_plain(float(status[bad[0]]))}, not an SWF status: "
             f"{known}{fix}")
        )  # fmt: skip
    own = np.flatnonzero(table["preceding_job"].to_numpy() == table["job"].to_numpy())
    if len(own):
        job = int(table["job"].iloc[own[0]])
        problems.append(
            (int(own[0]), f"field 'preceding_job' is {job}, the job's own number: a job cannot "
             f"wait for itself to end; give the job it follows, or -1 for none{fix}")
        )  # fmt: skip
    partial = _partial_execution(table)
    if partial is not None:
        problems.append(partial)
    repeated = table["job"].duplicated()
    if repeated.any():
        row = int(np.flatnonzero(repeated.to_numpy())[0])
        job = table["job"].iloc[row]
        earlier = int(table["line"][table["job"] == job].iloc[0])
        problems.append(
            (row, f"field 'job': job number {int(job)} repeats the one on line {earlier}; "
             f"SWF job numbers are unique{fix}")
        )  # fmt: skip
    if problems:
        row, message = min(problems, key=lambda p: p[0])  # stable: the first rule on a tie
        raise SlurmlabError(f"{path}: line {int(table['line'].iloc[row])}: {message}")


def _warn_unknown_preceding(table: pd.DataFrame, path: Path) -> None:
    """A preceding job (field 17) that is not in the trace: the feedback it describes cannot
    be followed (slurmlab replays the recorded submit times, and does not use the field)."""
    preceding = table["preceding_job"].to_numpy()
    unknown = np.flatnonzero((preceding != -1) & ~np.isin(preceding, table["job"].to_numpy()))
    if not len(unknown):
        return
    first = int(unknown[0])
    warnings.warn(
        f"{path}: line {int(table['line'].iloc[first])}: field 'preceding_job' is "
        f"{_plain(float(preceding[first]))}, but no such job is in the trace"
        + (f" (and {len(unknown) - 1} more such jobs)" if len(unknown) > 1 else "")
        + "; slurmlab replays the recorded submit times and does not use the field; write -1 "
        "if the job follows none",
        stacklevel=3,
    )


def _partial_execution(table: pd.DataFrame) -> tuple[int, str] | None:
    """The first partial-execution record (status 2, 3 or 4) and what to do about it, if any.

    A job checkpointed or swapped out has one SWF line per part, with one job number;
    slurmlab replays each job once, from one line, and a part is not the job."""
    status = table["status"].to_numpy()
    bad = np.flatnonzero(np.isin(status, list(PARTIAL_STATUS)))
    if not len(bad):
        return None
    row = int(bad[0])
    code, job = int(status[row]), int(table["job"].iloc[row])
    whole = np.flatnonzero(
        (table["job"].to_numpy() == job) & ~np.isin(status, list(PARTIAL_STATUS))
    )
    delete = "awk '/^;/ || $11 < 2 || $11 > 4' TRACE > whole.swf"
    if len(whole):
        line, whole_status = int(table["line"].iloc[whole[0]]), int(status[whole[0]])
        how = (
            f"line {line} is job {job} as a whole (status {whole_status}), so delete the "
            f"partial-execution lines ({delete})"
        )
    else:
        how = (
            f"no line describes job {job} as a whole (status 0, 1 or 5): write one line for "
            f"the whole job in place of its partial executions, or delete them ({delete})"
        )
    return row, (
        f"field 'status' is {code} ({PARTIAL_STATUS[code]}): a partial-execution record of "
        f"job {job}, which was checkpointed or swapped out; slurmlab replays each job once, "
        f"from one line: {how}"
    )


def _header_whole(
    header: dict[str, str], lines: dict[str, int], key: str, path: Path, fix: str
) -> int | None:
    """A whole-number header field; None when it is absent or -1 (SWF's missing)."""
    if key not in header:
        return None
    text = header[key]
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value - value == 0 and value == int(value)):
        raise SlurmlabError(
            f"{path}: line {lines[key]}: header field {key!r} is {text!r}, not a whole number; "
            f"{fix}"
        )
    return None if value == -1 else int(value)


def _header_size(header: dict[str, str], lines: dict[str, int], path: Path) -> int | None:
    """The machine size from MaxProcs, else MaxNodes (-1 or absent: missing), else None."""
    for key in ("MaxProcs", "MaxNodes"):
        fix = (
            f"write the machine size as a number of processors ('; {key}: 128'), or -1 if it "
            "is unknown, or pass --procs N (procs=N) to set it"
        )
        size = _header_whole(header, lines, key, path, fix)
        if size is not None and size < 1:
            raise SlurmlabError(
                f"{path}: line {lines[key]}: header field {key!r} is {header[key]!r}, not a "
                f"machine size (at least 1 processor); {fix}"
            )
        if size is not None:
            return size
    return None


def _cannot_run(width: np.ndarray, keep: np.ndarray, cluster: Cluster) -> np.ndarray:
    """Which widths no partition node set of ``cluster`` can give one job (sbatch's check)."""
    bad = [w for w in np.unique(width[keep]) if _cannot_run_reason(int(w), cluster) is not None]
    return np.isin(width, bad)


def _cannot_run_reason(width: int, cluster: Cluster) -> str | None:
    """Why ``cluster`` rejects a job of ``width`` processors (as sbatch says), or would leave
    it pending for ever (more CPUs or nodes than its partition has), or None."""
    spec = JobSpec(ntasks=width)
    try:
        res = spec.resources(cluster)
    except RequestError as exc:
        return str(exc)
    if res.limit_reason in ("PartitionConfig", "PartitionNodeLimit"):
        part = cluster.partition(res.partition)
        cpus = cluster.partition_cpus(part.name)
        return (
            f"partition {part.name!r} has {cpus} CPU{'s' * (cpus != 1)} on {len(part.nodes)} "
            f"node{'s' * (len(part.nodes) != 1)}: it would pend for ever, {res.limit_reason}"
        )
    return None
