"""Small helpers shared by the analyzers: hours, weights, which runs started and when they
ended, which rows are one job, and the tiny demo table."""

from __future__ import annotations

import difflib
import io
import re
import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from slurmlab.errors import SlurmlabError, warn_at_caller
from slurmlab.records.sacct import DERIVED_COLUMNS, SACCT_FIELDS, check_job_table
from slurmlab.records.schema import JOB_COLUMNS

#: States that end a run without its work being done (the GPU-hours are lost).
FAILED_STATES = (
    "FAILED",
    "TIMEOUT",
    "CANCELLED",
    "PREEMPTED",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "REQUEUED",
)

_DEMO = """\
JobID|JobIDRaw|JobName|User|Account|Partition|QOS|State|ExitCode|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|AllocTRES|ReqMem|TotalCPU|MaxRSS|NTasks
100|100|train|ann|vision|gpu|normal|COMPLETED|0:0|2024-03-01T08:00:00|2024-03-01T08:00:00|2024-03-01T08:30:00|2024-03-01T10:30:00|02:00:00|04:00:00|1|16|billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,mem=128G,node=1|128G|20:00:00||
100.batch|100.batch|batch|||||COMPLETED|0:0|2024-03-01T08:30:00|2024-03-01T08:30:00|2024-03-01T08:30:00|2024-03-01T10:30:00|02:00:00||1|16|cpu=16,gres/gpu=4,mem=128G,node=1||20:00:00|65536M|1
101|101|sweep|bob|nlp|gpu|normal|TIMEOUT|0:15|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T10:00:00|01:00:00|01:00:00|1|8|billing=8,cpu=8,gres/gpu=2,mem=64G,node=1|64G|02:00:00||
101.batch|101.batch|batch|||||CANCELLED|0:15|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T10:00:02|01:00:02||1|8|cpu=8,gres/gpu=2,mem=64G,node=1||02:00:00|16384M|1
102|102|prep|ann|vision|cpu|normal|FAILED|1:0|2024-03-01T09:30:00|2024-03-01T09:30:00|2024-03-01T10:30:00|2024-03-01T10:45:00|00:15:00|01:00:00|1|4|billing=4,cpu=4,mem=8G,node=1|8G|00:30:00||
102.batch|102.batch|batch|||||FAILED|1:0|2024-03-01T10:30:00|2024-03-01T10:30:00|2024-03-01T10:30:00|2024-03-01T10:45:00|00:15:00||1|4|cpu=4,mem=8G,node=1||00:30:00|2048M|1
103_[1-3%1]|103|grid|bob|nlp|gpu|normal|PENDING|0:0|2024-03-01T10:00:00|2024-03-01T10:00:00|Unknown|Unknown|00:00:00|02:00:00|1|0||16G||||
"""


def demo_jobs() -> pd.DataFrame:
    """A tiny job table (3 runs and a pending array of 3 tasks) for examples and doctests."""
    from slurmlab.records.sacct import read_sacct

    return read_sacct(io.StringIO(_DEMO))


def hours(durations: pd.Series) -> np.ndarray:
    """Durations as float hours (NaT gives 0)."""
    return durations.dt.total_seconds().fillna(0.0).to_numpy(dtype=float) / 3600.0


def count(values: pd.Series) -> np.ndarray:
    """A nullable count column as floats with NA as 0."""
    return pd.to_numeric(values, errors="coerce").fillna(0).to_numpy(dtype=float)


def tasks(jobs: pd.DataFrame) -> np.ndarray:
    """How many jobs each row stands for (a pending array range row stands for several)."""
    if "ArrayTasks" not in jobs:
        return np.ones(len(jobs))
    return count(jobs["ArrayTasks"].fillna(1))


#: Every column name a job table can have from sacct or slurmlab (to tell a typo or a
#: column of another table, such as wait_times' Size, from a field the export lacks).
_KNOWN = frozenset(SACCT_FIELDS) | frozenset(DERIVED_COLUMNS) | frozenset(JOB_COLUMNS)

#: Columns analyzers make that are not the job table's, and where they come from.
_MADE = {"Size": "the CPU-count classes wait_times makes; wait_stats(by='Size') groups by it"}


def check_jobs(jobs, who: str) -> None:
    """The error :func:`~slurmlab.records.sacct.check_job_table` gives for an argument that
    is not a job table (a SimulationResult, a path, None ...), naming ``who``."""
    check_job_table(jobs, who)


def check_columns(jobs: pd.DataFrame, needed: tuple[str, ...], who: str) -> None:
    check_job_table(jobs, who.split("(")[0])
    missing = [c for c in needed if c not in jobs.columns]
    # a name no export has (not a sacct field) that is a typo of a column, or another
    # table's column: "export it with sacct -o" would not help, so say what it is
    columns = [str(k) for k in jobs.columns]
    hints = {
        c: _MADE.get(c)
        or next(
            (
                f"did you mean {m!r}?"
                for m in difflib.get_close_matches(str(c), columns, n=1, cutoff=0.7)
            ),
            None,
        )
        for c in missing
        if c not in _KNOWN
    }
    hints = {c: h for c, h in hints.items() if h}
    if hints:
        raise SlurmlabError(
            f"{who}: the job table has no column(s) {', '.join(map(str, hints))}, which "
            + ("is not a sacct field" if len(hints) == 1 else "are not sacct fields")
            + f" ({'; '.join(f'{c}: {h}' for c, h in hints.items())})"
        )
    if missing:
        if any(c in _MEASURED for c in missing):  # what jobs used: only sacct measures it
            raise SlurmlabError(
                f"{who}: the job table has no column(s) {', '.join(missing)}, which only a real "
                "export has (a simulation does not measure what jobs do): read one with "
                f"read_sacct, exported with sacct -o {','.join(missing)}"
            )
        raise SlurmlabError(
            f"{who}: the job table has no column(s) {', '.join(missing)}; export them with "
            f"sacct -o {','.join(missing)} (or pass a table made by read_sacct or simulate)"
        )


def by_columns(
    by, who: str, *, none: str | None = None, many: bool = True, example: str = "Partition"
) -> list[str] | None:
    """The grouping columns ``by`` names, as a list: one column name, or (``many``) a list of
    them; None only where the analyzer has a whole-cluster total (``none`` says what None
    gives). Anything else is an error naming ``who``, the value and the forms it takes."""
    if by is None and none is not None:
        return None
    if isinstance(by, str) and by:
        return [by]
    names = list(by) if many and isinstance(by, (list, tuple, pd.Index, np.ndarray)) else []
    if names and all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names):
        return names
    forms = [f"a column name (by={example!r})"]
    if many:
        forms.append("a list of them (by=['Account', 'User'])")
    if none is not None:
        forms.append(f"None ({none})")
    one = "" if many else f"; {who} groups by one column"
    raise SlurmlabError(
        f"{who}(by={by!r}): give {', '.join(forms[:-1])}{' or ' if len(forms) > 1 else ''}"
        f"{forms[-1]}{one}"
    )


def check_by(
    jobs: pd.DataFrame,
    by: str | Sequence[str] | None,
    who: str,
    made: Sequence[str] = (),
    *,
    name_by: bool = True,
) -> None:
    """The error :func:`check_columns` gives, for grouping columns (``by=``) the table lacks,
    followed by the columns it has (any of them groups); ``made`` names the columns the
    analyzer makes itself (``Size``). ``name_by``: the error starts ``who(by=...)``."""
    if by is None:
        return
    names = [by] if isinstance(by, str) else list(by)
    try:
        check_columns(
            jobs, tuple(c for c in names if c not in made), f"{who}(by={by!r})" if name_by else who
        )
    except SlurmlabError as exc:
        if not isinstance(jobs, pd.DataFrame):  # (not a job table: that error says it all)
            raise
        has = [str(c) for c in jobs.columns] + [c for c in made if c not in jobs.columns]
        shown = ", ".join(has[:60]) + (f" ... ({len(has)} in all)" if len(has) > 60 else "")
        raise SlurmlabError(f"{exc}; group by one of the table's columns: {shown}") from None


def warn_blank_by(jobs: pd.DataFrame, by: Sequence[str], who: str) -> None:
    """One warning per grouping column that is blank in every row (an export without that
    field: read_sacct makes every schema column), so every row is in one group "(none)".

    >>> import io, warnings
    >>> from slurmlab.records.sacct import read_sacct
    >>> jobs = read_sacct(io.StringIO("JobID|User|State|Elapsed|NCPUS\\n1|ann|COMPLETED|01:00:00|4\\n"))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_blank_by(jobs, ["Account"], "usage")
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    usage: no Account in the export (blank in every row), so all 1 row(s) are in one group
    '(none)'; add Account to sacct -o, or group by a column the export has (by='User')
    """
    if not len(jobs):
        return
    exported = {str(f).lower() for f in jobs.attrs.get("fields") or ()}
    for column in by:
        if column not in jobs or jobs[column].notna().any():
            continue
        if column in SACCT_FIELDS and exported and column.lower() not in exported:
            fix = f"add {column} to sacct -o"
        else:  # (the field is there, or the table is not an export: its values are blank)
            fix = f"fill in its {column} column"
        other = next((c for c in _GROUPS if c not in by and known(jobs, c)), None)
        warn_at_caller(
            f"{who}: no {column} in the export (blank in every row), so all {len(jobs)} "
            f"row(s) are in one group '(none)'; {fix}"
            + (f", or group by a column the export has (by={other!r})" if other else "")
        )


#: Columns a job table is usually grouped by (to suggest one the export has).
_GROUPS = ("Account", "User", "Partition", "QOS")


def check_choice(value, allowed: Sequence[str], who: str, name: str) -> None:
    """An error when ``value`` (the argument ``name``) is not one of ``allowed``, with a
    did-you-mean for a close spelling."""
    if isinstance(value, str) and value in allowed:
        return
    close = difflib.get_close_matches(str(value).lower(), list(allowed), n=1, cutoff=0.6)
    raise SlurmlabError(
        f"{who}: {name}={value!r}: use {', '.join(allowed[:-1])} or {allowed[-1]}"
        + (f" (did you mean {close[0]!r}?)" if close else "")
    )


def check_count(n, who: str, name: str = "n") -> int:
    """``n`` as a whole number of at least 0 (an int, or its digits as text), else an error
    naming ``who`` and the value."""
    from slurmlab.spec.units import parse_whole

    try:
        return parse_whole(n, what=name, minimum=0)
    except SlurmlabError:
        raise SlurmlabError(
            f"{who}: {name}={n!r} is not a count; give a whole number of at least 0 (e.g. "
            f"{name}=10)"
        ) from None


def check_freq(freq: str, who: str, name: str = "freq", fixed: bool = True) -> None:
    """A clear error for a ``freq``/``period`` pandas cannot use (``fixed``: a length of time
    such as ``1h`` or ``1D``; else a calendar period, as :func:`period_code` takes it)."""
    if not fixed:
        period_code(freq, who, name)
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pandas' "use 'BOGUS' instead"
            if pd.Timedelta(pd.tseries.frequencies.to_offset(freq)) <= pd.Timedelta(0):
                raise ValueError(freq)
    except (ValueError, TypeError, AttributeError):
        raise SlurmlabError(
            f"{who}: {name}={freq!r} is not a pandas frequency of a fixed length; use e.g. "
            "'1h', '6h', '1D' or '7D'"
        ) from None


_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def period_code(period: str, who: str, name: str = "period") -> str:
    """The pandas Period frequency of a calendar ``period``: one hour, day, week (``W``,
    ``W-MON`` ...), month, quarter or year. pandas' start-anchored names, which its Periods
    refuse, are taken for the same periods: ``MS`` is the month ``M``, ``QS`` the quarter
    ``Q`` (``QS-DEC``, quarters from December, is ``Q-NOV``, quarters ending in November),
    ``YS`` (``AS``) the year ``Y``, as are the end-anchored ``ME``, ``QE`` and ``YE``. A
    multiple (``2D``, ``2MS``) is refused: pandas counts its periods from each time, so they
    are no grid (sum the ``D`` or ``MS`` rows instead).

    >>> [period_code(p, "usage") for p in ("D", "W", "MS", "QS", "QS-DEC", "YS", "ME")]
    ['D', 'W-SUN', 'M', 'Q-DEC', 'Q-NOV', 'Y-DEC', 'M']
    """
    from pandas.tseries import offsets

    examples = "'D', 'W', 'MS' (or 'M'), 'QS' (or 'Q') or 'YS' (or 'Y')"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # ('AS': use 'YS'; 'M': use 'ME')
            offset = pd.tseries.frequencies.to_offset(period)
    except (ValueError, TypeError, AttributeError):
        offset = None
    kind = type(offset)
    if kind in (offsets.MonthBegin, offsets.MonthEnd):
        code = "M"
    elif kind in (offsets.QuarterBegin, offsets.QuarterEnd):
        last = offset.startingMonth - (kind is offsets.QuarterBegin)  # (the quarter's end)
        code = f"Q-{_MONTHS[(last - 1) % 12]}"
    elif kind in (offsets.YearBegin, offsets.YearEnd):
        last = offset.month - (kind is offsets.YearBegin)
        code = f"Y-{_MONTHS[(last - 1) % 12]}"
    else:
        code = offset.freqstr if offset is not None else None
        if offset is not None and offset.n != 1:
            code = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                code = pd.Timestamp("2024-01-01").to_period(code).freqstr if code else None
        except (ValueError, TypeError, AttributeError):
            code = None
    if offset is not None and offset.n != 1:
        base = re.sub(r"^[+-]?[0-9]+", "", str(period).strip())
        raise SlurmlabError(
            f"{who}: {name}={period!r} is a multiple of a period, which pandas counts from "
            f"each run's own start, not on a calendar grid; use one period ({name}={base!r}) "
            "and add up its rows"
        )
    if code is None:
        raise SlurmlabError(f"{who}: {name}={period!r} is not a pandas period; use e.g. {examples}")
    return code


#: Where a wait starts: Submit (the default: what users feel) or Eligible (when the job was
#: allowed to run: after its holds, dependencies, --begin time or requeue delay).
Since = Literal["Submit", "Eligible"]


def check_since(jobs: pd.DataFrame, since: str, who: str) -> None:
    """A clear error for a ``since`` that is neither Submit nor Eligible, or an Eligible the
    table does not have."""
    if since not in ("Submit", "Eligible"):
        raise SlurmlabError(
            f"{who}: since={since!r} is not a start of a wait; use since='Submit' (Start - "
            "Submit) or since='Eligible' (Start - Eligible, Slurm's Reserved field)"
        )
    if since == "Eligible" and ("Eligible" not in jobs or not jobs["Eligible"].notna().any()):
        raise SlurmlabError(
            f"{who}(since='Eligible'): the job table has no Eligible times; export them with "
            "sacct -o ...,Submit,Eligible,Start (or use since='Submit')"
        )


def waits(jobs: pd.DataFrame, since: Since = "Submit") -> pd.Series:
    """Start - Submit (or Start - Eligible, ``since="Eligible"``; Submit where a row's
    Eligible is Unknown) of each row, NaT where unknown and for a row that is no run (see
    :func:`started`: never allocated, whatever its Start says). The one rule of every
    analyzer: a wait below 0 (Start before Submit) is unknown, left out of counts of waits
    and their means, and warned about once per call: sacct writes naive local times, so a
    DST change (or a host clock off) can put Start before Submit.

    >>> waits(demo_jobs()).dt.total_seconds().tolist()[:3]
    [1800.0, 0.0, 3600.0]
    """
    begin = jobs["Submit"]
    if since == "Eligible":
        begin = jobs["Eligible"].fillna(begin)
    wait = run_starts(jobs) - begin
    negative = (wait < pd.Timedelta(0)).to_numpy()
    if negative.any():
        ids = jobs["JobID"].astype("string").to_numpy()[negative][:5] if "JobID" in jobs else []
        warn_at_caller(
            f"{int(negative.sum())} run(s) started before they were "
            + ("submitted (Start < Submit" if since == "Submit" else "eligible (Start < Eligible")
            + f": JobID {', '.join(map(str, ids))}{' ...' if negative.sum() > 5 else ''}); "
            "their waits are unknown and left out. "
            + (
                "Its epoch times were made naive local times, which repeat an hour at a "
                "daylight-saving change: read without tz= (UTC) for exact waits"
                if jobs.attrs.get("dst_lines")
                else "sacct writes naive local times, so a daylight-saving change (or a host "
                "clock off) does this: export with TZ=UTC sacct ..."
            )
        )
        wait = wait.where(~negative)
    return wait


#: What each kind of hours needs: (job-table column, the sacct -o field that gives it).
HOURS_NEEDS = {
    "gpu_hours": (("Elapsed", "Elapsed,ElapsedRaw"), ("NGPUS", "AllocTRES")),
    "cpu_hours": (("Elapsed", "Elapsed,ElapsedRaw"), ("NCPUS", "NCPUS (or AllocCPUS)")),
    "node_hours": (("Elapsed", "Elapsed,ElapsedRaw"), ("NNodes", "NNodes (or AllocNodes)")),
}
HOURS_NAMES = {"gpu_hours": "GPU-hours", "cpu_hours": "CPU-hours", "node_hours": "node-hours"}


def unknown_hours(jobs: pd.DataFrame) -> dict[str, str]:
    """The hours a table cannot give, as ``{"gpu_hours": why}``: a column every row lacks (an
    export without AllocTRES has no GPU counts; one whose AllocTRES is blank in every run is
    told apart, since adding the field would not help). Such hours are unknown (NaN or None),
    never 0.

    >>> unknown_hours(demo_jobs())
    {}
    >>> no_gpus = demo_jobs().assign(NGPUS=pd.NA)
    >>> no_gpus.attrs["fields"] = [f for f in no_gpus.attrs["fields"] if f != "AllocTRES"]
    >>> unknown_hours(no_gpus)
    {'gpu_hours': 'the export has no AllocTRES: add it to sacct -o'}
    """
    return unknown_columns(jobs, HOURS_NEEDS)


def unknown_columns(
    jobs: pd.DataFrame, wanted: dict[str, tuple[tuple[str, str], ...]]
) -> dict[str, str]:
    """Of ``wanted`` (``{name: ((column, sacct -o field), ...)}``, as ``HOURS_NEEDS``), those
    a table cannot give, as ``{name: why}``: a column every started run lacks. See
    :func:`unknown_hours`."""
    out = {}
    if not len(jobs):
        return out
    ran = started(jobs)
    if not ran.any():
        return out  # (no run: no hours to know; 0, not unknown)
    exported = {str(f).lower() for f in jobs.attrs.get("fields") or ()}
    for kind, needs in wanted.items():
        lacking = [
            field
            for column, field in needs
            if column not in jobs or jobs[column].isna().to_numpy()[ran].all()
        ]
        empty = [f for f in lacking if _field_names(f) & exported]  # (there, but blank)
        missing = [f for f in lacking if f not in empty]
        why = []
        if missing:
            why.append(f"the export has no {', '.join(missing)}: add it to sacct -o")
        if empty:
            why.append(
                f"{', '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty in every run "
                "of the export: "
                + (
                    "its Slurm recorded no GPUs (AccountingStorageTRES without gres/gpu, or "
                    "an older Slurm)"
                    if empty == ["AllocTRES"]
                    else "its Slurm did not record them"
                )
            )
        if why:
            out[kind] = "; ".join(why)
    return out


def _field_names(field: str) -> set[str]:
    """The sacct -o names in a HOURS_NEEDS field text (``"NNodes (or AllocNodes)"``), lower
    case."""
    return {name.lower() for name in re.findall(r"[A-Za-z]+", field) if name != "or"}


def warn_unknown_hours(unknown: dict[str, str], who: str) -> None:
    """One warning naming the hours that are unknown (NaN, not 0) and the field to add."""
    if unknown:
        warn_at_caller(
            f"{who}: "
            + "; ".join(
                f"{HOURS_NAMES[k]} are unknown, NaN not 0 ({why})" for k, why in unknown.items()
            )
        )


def missing_runs(jobs: pd.DataFrame) -> list[str]:
    """The jobs whose earlier runs the table lacks: requeued (Restarts > 0) with fewer rows
    than runs. A job requeued N times has had N + 1 runs, each a row of ``sacct -D`` (and of
    a simulation's ``jobs_all_runs``); ``sacct`` without ``-D`` (and ``result.jobs``) keeps
    its last run only.

    >>> import io
    >>> from slurmlab.records.sacct import read_sacct
    >>> text = (
    ...     "JobID|State|Elapsed|NCPUS|Restarts\\n"
    ...     "7|COMPLETED|01:00:00|8|1\\n"
    ...     "8|COMPLETED|01:00:00|8|0\\n"
    ... )
    >>> missing_runs(read_sacct(io.StringIO(text)))
    ['7']
    """
    if not len(jobs) or "Restarts" not in jobs or "JobID" not in jobs:
        return []
    restarts = pd.to_numeric(jobs["Restarts"], errors="coerce").fillna(0).to_numpy(dtype=float)
    if not (restarts > 0).any():
        return []
    rows = pd.DataFrame({"key": job_keys(jobs).to_numpy(), "restarts": restarts})[leads(jobs)]
    per = rows.groupby("key", sort=False)["restarts"].agg(["size", "max"])
    return [str(k) for k in per.index[per["max"] >= per["size"]]]


def warn_missing_runs(jobs: pd.DataFrame, who: str, what: str = "hours") -> None:
    """One warning when the table shows requeued jobs without their earlier runs (see
    :func:`missing_runs`): ``what`` they held is left out of the analyzer's numbers."""
    ids = missing_runs(jobs)
    if ids:
        shown = ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")
        warn_at_caller(
            f"{who}: {len(ids)} requeued job(s) (Restarts > 0: JobID {shown}) have runs before "
            "their last that are not in the table (it holds each job's last run, as sacct "
            f"without -D does), so the {what} of those runs are left out; for a simulation "
            "pass result.jobs_all_runs (every run: the numbers then match result.metrics), for "
            "a real cluster export with sacct -D"
        )


def known(jobs: pd.DataFrame, column: str) -> bool:
    """Whether the table has a column with at least one value (read_sacct makes every schema
    column, so a field the export lacks is a column of NA)."""
    return column in jobs and bool(jobs[column].notna().any())


#: Columns only a real export has: what the jobs used, measured by Slurm.
_MEASURED = frozenset(("TotalCPU", "MaxRSS", "AveRSS", "CPUTimeRAW", "TRESUsageInTot"))


#: States only a run that started can be in (to tell runs that ran without a Start column).
_RAN_STATES = ("RUNNING", "COMPLETED", "COMPLETING", "SUSPENDED", "TIMEOUT", "OUT_OF_MEMORY")


def _ran_by_elapsed(jobs: pd.DataFrame) -> np.ndarray:
    ran = np.zeros(len(jobs), dtype=bool)
    if "Elapsed" in jobs:
        ran |= (jobs["Elapsed"].fillna(pd.Timedelta(0)) > pd.Timedelta(0)).to_numpy()
    if "State" in jobs:
        ran |= jobs["State"].isin(_RAN_STATES).fillna(False).to_numpy(dtype=bool)
    if "JobID" in jobs and jobs.attrs.get("steps") is not None:
        # a job with a step (.batch, .extern ...) had an allocation on its nodes: it started,
        # even a FAILED one that ran for 0 s
        from slurmlab.records.sacct import steps

        owners = steps(jobs)["AllocJobID"].astype("string")
        ran |= jobs["JobID"].astype("string").isin(owners).fillna(False).to_numpy(dtype=bool)
    return ran


def never_allocated(jobs: pd.DataFrame) -> np.ndarray:
    """Rows that never got an allocation, whatever their Start says: no node (NodeList is
    sacct's ``None assigned``; where the export has no NodeList, NNodes, sacct's AllocNodes,
    is 0) and no time run (Elapsed 0; End - Start where Elapsed is unknown). Older Slurm
    writes such rows, with a Start, for a job it killed while pending (job_mgr.c sets its
    start_time = end_time = now), where 22.05 writes Start ``None``; sacct's AllocNodes is
    "0 if the job is pending", and so is NCPUS (AllocCPUS) where NNodes is the count asked. A NodeList that names nodes says the job was given them: such
    a row is a run (of 0 s), whatever NNodes says (while a job pends, 22.05's NNodes is the
    count it asked for). An export with neither NNodes nor NodeList cannot tell: no row is
    found there.

    >>> import io
    >>> from slurmlab.records.sacct import read_sacct
    >>> text = (
    ...     "JobID|State|Start|End|Elapsed|AllocNodes\\n"
    ...     "1|CANCELLED|2022-09-09T17:39:37|2022-09-09T17:39:37|00:00:00|0\\n"
    ...     "2|FAILED|2022-09-09T17:39:37|2022-09-09T17:39:37|00:00:00|1\\n"
    ... )
    >>> never_allocated(read_sacct(io.StringIO(text))).tolist()
    [True, False]
    """
    if "NodeList" in jobs and jobs["NodeList"].notna().any():
        # the nodes it was given, or none (read_sacct reads sacct's "None assigned" as NA:
        # in a table that has node lists, a row without one was given no node); this
        # outranks NNodes, which is the count requested while a job pends (22.05)
        nodes = jobs["NodeList"].astype("string").str.strip().replace("None assigned", "")
        none = ~nodes.fillna("").ne("").to_numpy(dtype=bool)
    elif "NNodes" in jobs:
        none = (jobs["NNodes"] == 0).fillna(False).to_numpy(dtype=bool)
    else:
        none = np.zeros(len(jobs), dtype=bool)
    if "NCPUS" in jobs and not ("NodeList" in jobs and jobs["NodeList"].notna().any()):
        # (sacct's NCPUS is AllocCPUS: 0 for a job never given CPUs, whatever NNodes asked)
        none |= (jobs["NCPUS"] == 0).fillna(False).to_numpy(dtype=bool)
    if not none.any():
        return none
    ran_for = jobs["Elapsed"] if "Elapsed" in jobs else pd.Series(pd.NaT, index=jobs.index)
    if "Start" in jobs and "End" in jobs:
        ran_for = ran_for.fillna(jobs["End"] - jobs["Start"])
    return none & (ran_for.fillna(pd.Timedelta(0)) <= pd.Timedelta(0)).to_numpy(dtype=bool)


def started(jobs: pd.DataFrame) -> np.ndarray:
    """Which rows are runs that started: those with a Start time, but a row that never got an
    allocation (:func:`never_allocated`: no node and no time run, as older Slurm writes a job
    cancelled while pending) is no run, as a Start of None is, nor is a PENDING row (sacct
    -T gives a job still pending the window's end as its Start). A table whose Start is missing
    throughout (an export without the Start field, such as reportseff's) cannot say so; there
    a run started if it has an Elapsed above 0, a state only a started run has (COMPLETED
    ...) or a step (.batch, .extern ...).
    """
    if "Start" in jobs and jobs["Start"].notna().any():
        out = jobs["Start"].notna().to_numpy() & ~never_allocated(jobs)
        if "State" in jobs:  # (sacct -T writes a Start for a job still pending: the window's
            # end, as_mysql_jobacct_process.c; a pending row is never a run)
            out &= ~jobs["State"].astype("string").eq("PENDING").to_numpy(
                dtype=bool, na_value=False
            )
        return out
    return _ran_by_elapsed(jobs)


def run_starts(jobs: pd.DataFrame) -> pd.Series:
    """The Start of each row that is a run that started (:func:`started`), NaT for the
    others: a row that never got an allocation has no start, whatever its Start says."""
    start = jobs["Start"]
    if not start.notna().any():
        return start
    return start.where(started(jobs))


def require_start(jobs: pd.DataFrame, who: str) -> None:
    """An error naming the fix when runs started but the table has no Start times."""
    check_columns(jobs, ("Start",), who)
    if len(jobs) and not jobs["Start"].notna().any() and _ran_by_elapsed(jobs).any():
        raise SlurmlabError(
            f"{who}: the job table has no Start times (its runs ran, by their Elapsed and "
            "State, but when is unknown); export them with sacct -o ...,Submit,Start,End"
        )


def require_submit(jobs: pd.DataFrame, who: str, eligible: bool = False) -> None:
    """An error naming the fix when the table has rows but no Submit times (an export
    without the Submit field: read_sacct makes the column, blank): every wait starts at
    Submit, so none is known, where 0 rows would read as "no job waited". ``eligible``: an
    Eligible time will do instead (when a job began pending)."""
    check_columns(jobs, ("Submit",), who)
    begin = jobs["Submit"].notna()
    if eligible and "Eligible" in jobs:
        begin |= jobs["Eligible"].notna()
    if len(jobs) and not begin.any():
        raise SlurmlabError(
            f"{who}: the job table has no Submit times"
            + (
                " (nor Eligible), so when each job began pending is unknown; export them with "
                "sacct -o ...,Submit,Eligible,Start"
                if eligible
                else ", so every wait (Start - Submit) is unknown; export them with sacct -o "
                "...,Submit,Start"
            )
        )


#: States of a run that still holds its allocation (its steps may still run): sacct's
#: RUNNING and SUSPENDED, and the squeue-side states of a job not yet done (COMPLETING while
#: its steps end, CONFIGURING while its nodes boot, STOPPED, SIGNALING). REQUEUED and
#: RESIZING rows are runs that ended (a requeue; the allocation before a resize).
RUNNING_STATES = ("RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "STOPPED", "SIGNALING")


def still_running(jobs: pd.DataFrame) -> np.ndarray:
    """Which rows are runs still going when the export was taken: by their State where it is
    known (RUNNING_STATES; not blank or UNKNOWN), else by an End that is Unknown in an
    export that has End times. An export without the End field (read_sacct makes the
    column, blank) says nothing by it, so a COMPLETED row there has ended.

    >>> import io
    >>> from slurmlab.records.sacct import read_sacct
    >>> text = "JobID|State|Elapsed\\n1|COMPLETED|01:00:00\\n2|RUNNING|00:10:00\\n"
    >>> still_running(read_sacct(io.StringIO(text))).tolist()
    [False, True]
    """
    out = np.zeros(len(jobs), dtype=bool)
    state = (
        jobs["State"].astype("string")
        if "State" in jobs
        else pd.Series(pd.NA, index=jobs.index, dtype="string")
    )
    # (read_sacct reads a blank State as UNKNOWN: as unknown as a missing one)
    has_state = (state.notna() & state.ne("UNKNOWN")).to_numpy(dtype=bool, na_value=False)
    out[has_state] = state[has_state].isin(RUNNING_STATES).to_numpy(dtype=bool)
    if known(jobs, "End"):
        out |= ~has_state & jobs["End"].isna().to_numpy(dtype=bool)
    return out


def run_ends(jobs: pd.DataFrame) -> pd.Series:
    """When each run gave its allocation back: Start + Elapsed (+ Suspended, where the export
    has it: a suspended job keeps its allocation, and sacct's Elapsed leaves that time out)
    where both are known, else End as written (NaT when unknown).

    Elapsed, not End - Start: sacct computes Elapsed from epoch times, while Start and End
    are naive local times, an hour apart too many (or too few) across a daylight-saving
    change; so the time a run holds its allocation is the time its hours count (Elapsed x
    count). A run still going (RUNNING, SUSPENDED) has an End that is Unknown, or stale as
    in XDMoD's non-ended sample: its Elapsed is its time so far.

    >>> jobs = demo_jobs()
    >>> run_ends(jobs).dt.strftime("%H:%M").tolist()[:3]
    ['10:30', '10:00', '10:45']
    """
    end = jobs["End"] if "End" in jobs else pd.Series(pd.NaT, index=jobs.index, dtype="M8[ns]")
    if "Start" not in jobs or "Elapsed" not in jobs:
        return end
    held = jobs["Elapsed"]
    if "Suspended" in jobs and pd.api.types.is_timedelta64_dtype(jobs["Suspended"]):
        held = held + jobs["Suspended"].fillna(pd.Timedelta(0))
    out = (jobs["Start"] + held).fillna(end)
    return out.where(~(out < jobs["Start"]), jobs["Start"])


def job_keys(jobs: pd.DataFrame) -> pd.Series:
    """The job each row belongs to: its JobID, or for a het-job component (``12+1``) its
    leader's id (``12``): the components of a het job are one job. An export of several
    clusters (``sacct -M a,b``, a Cluster column with several values) keys them by cluster
    too (``a:12``), as job ids repeat across clusters."""
    key = jobs["JobID"].astype("string")
    if "HetJobID" in jobs:
        key = jobs["HetJobID"].astype("string").fillna(key)
    return by_cluster(jobs, key)


def by_cluster(jobs: pd.DataFrame, key: pd.Series) -> pd.Series:
    """``key`` (job ids), prefixed by the row's cluster (``a:12``) in an export of several
    clusters (``sacct -M a,b``: a Cluster column with several values), where job ids repeat."""
    if "Cluster" in jobs:
        cluster = jobs["Cluster"].astype("string")
        if cluster.nunique(dropna=True) > 1:
            return cluster.fillna("") + ":" + key
    return key


def leads(jobs: pd.DataFrame) -> np.ndarray:
    """Rows that stand for their job: all but the other components of a het job (+1, +2 ...)."""
    if "HetJobOffset" not in jobs:
        return np.ones(len(jobs), dtype=bool)
    return (jobs["HetJobOffset"].fillna(0) == 0).to_numpy(dtype=bool)


def counted(count: int, word: str) -> str:
    """A count and its noun, singular for one: ``1 job``, ``2 jobs``, ``1,500 runs``."""
    return f"{count:,} {word}{'s' * (count != 1)}"
