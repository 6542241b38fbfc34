"""A workload: job requests with their submit times and true run times.

The true ``runtime`` is what the job would need; the scheduler never sees it
(it plans with the time limit). Times are seconds from the workload's start;
``origin`` anchors them to a calendar time for the job table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from numbers import Integral

import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import parse_seconds, parse_whole

__all__ = [
    "DEFAULT_ORIGIN",
    "Action",
    "Workload",
    "WorkloadJob",
    "check_exit_code",
    "check_name",
]

#: Where a simulation's clock starts when nothing else says (a Monday, midnight).
DEFAULT_ORIGIN = pd.Timestamp("2026-01-05 00:00:00")


def check_exit_code(code, *, what: str = "exit_code") -> int:
    """A job's exit code: a whole number 0..255, as a process's exit status is (0 ends the
    job COMPLETED, anything else FAILED)."""
    if isinstance(code, Integral) and not isinstance(code, bool) and 0 <= code <= 255:
        return int(code)
    raise SlurmlabError(f"{what} is {code!r}; use a whole number 0..255")


def check_name(value, *, what: str) -> str:
    """A user or account name: text, not empty, without spaces (Slurm's names are words)."""
    if isinstance(value, str) and value and not any(c.isspace() for c in value):
        return value
    raise SlurmlabError(
        f"{what} is {value!r}; give a name (letters, digits, '-', '_'), e.g. 'alice'"
    )


@dataclass(frozen=True, slots=True)
class WorkloadJob:
    """One submission: the request, when it is submitted and how long it really runs."""

    spec: JobSpec
    submit: float = 0.0
    runtime: float = 60.0
    id: str | None = None
    user: str | None = None
    account: str | None = None
    exit_code: int = 0
    checkpoint: object | None = None

    def __post_init__(self):
        object.__setattr__(self, "id", _job_id(self.id))
        who = f"job {self.id}" if self.id else "job"
        if not isinstance(self.spec, JobSpec):
            raise SlurmlabError(
                f"{who}: spec {self.spec!r} is not a JobSpec (JobSpec.from_args('-N 2 -t 30'))"
            )
        # seconds as numbers or durations ("2h"); never negative or NaN
        if not isinstance(self.submit, float) or not self.submit >= 0:
            object.__setattr__(self, "submit", parse_seconds(self.submit, what=f"{who}: submit"))
        if not isinstance(self.runtime, float) or not self.runtime >= 0:
            object.__setattr__(self, "runtime", parse_seconds(self.runtime, what=f"{who}: runtime"))
        if self.checkpoint is not None and not hasattr(self.checkpoint, "interval"):
            raise SlurmlabError(
                f"{who}: checkpoint {self.checkpoint!r} is not a slurmlab.Checkpoint: give "
                "slurmlab.Checkpoint(interval=3600, write_cost=60), or in Lab.sbatch its dict "
                "{'interval': 3600, 'write_cost': 60} (a scenario's checkpoint: field's form)"
            )
        check_exit_code(self.exit_code, what=f"{who}: exit_code")
        if isinstance(self.account, str):  # Slurm's accounts are lower case (as JobSpec's)
            object.__setattr__(self, "account", self.account.lower())
        for key, option in (("user", "--uid"), ("account", "--account")):
            given, asked = getattr(self, key), getattr(self.spec, key)
            if given is not None:
                check_name(given, what=f"{who}: {key}")
                if asked is not None and asked != given:
                    raise SlurmlabError(
                        f"{who}: {key}={given!r} but its request says {option}={asked}; give "
                        "it once"
                    )


@dataclass(frozen=True, slots=True)
class Workload:
    """An ordered collection of :class:`WorkloadJob` (ties in submit time keep this order)."""

    jobs: tuple[WorkloadJob, ...] = ()
    name: str = "workload"
    origin: pd.Timestamp = field(default=DEFAULT_ORIGIN)
    dropped: int = 0
    #: "trace" workloads replay recorded run times even past their limits.
    kind: str = "scenario"
    max_procs: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "jobs", _workload_jobs(self.jobs))
        if not isinstance(self.name, str):
            raise SlurmlabError(f"Workload: name={self.name!r} is not text; give e.g. 'sweep'")
        object.__setattr__(self, "origin", _origin(self.origin))
        if self.kind not in KINDS:
            raise SlurmlabError(
                f"Workload {self.name!r}: kind={self.kind!r} is not one of {', '.join(KINDS)} "
                "('scenario': time limits end jobs; 'trace': recorded run times replay even "
                "past their limits, as read_swf gives)"
            )
        if self.max_procs is not None:
            what = f"Workload {self.name!r}: max_procs"
            object.__setattr__(self, "max_procs", parse_whole(self.max_procs, what=what, minimum=1))
        object.__setattr__(
            self, "dropped", parse_whole(self.dropped, what=f"Workload {self.name!r}: dropped")
        )
        ids = [j.id for j in self.jobs if j.id is not None]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise SlurmlabError(f"workload {self.name!r}: job ids repeated: {dup[:5]}")

    def __len__(self) -> int:
        return len(self.jobs)

    def __repr__(self) -> str:
        """One line, as a Cluster's (the jobs are ``.jobs``): name, jobs, the span of their
        submit times, kind and origin, e.g. ``Workload('two': 2 jobs, submits 0 s to 1.5 h,
        kind scenario, origin 2026-01-05 00:00:00)``."""
        parts = [f"{len(self.jobs)} job{'s' * (len(self.jobs) != 1)}"]
        if self.jobs:
            submits = [j.submit for j in self.jobs]
            parts.append(f"submits {_span(min(submits))} to {_span(max(submits))}")
        parts += [f"kind {self.kind}", f"origin {self.origin}"]
        if self.dropped:
            parts.append(f"{self.dropped} dropped")
        if self.max_procs is not None:
            parts.append(f"{self.max_procs} processors")
        return f"Workload({self.name!r}: {', '.join(parts)})"

    def __iter__(self) -> Iterator[WorkloadJob]:
        return iter(self.jobs)

    def __getitem__(self, key):
        """A job (``w[0]``), or a Workload of some of the jobs (``w[:2000]``, the first 2,000
        of a trace) that keeps the name, origin, kind and machine size: a trace's slice
        still replays its run times past their limits (``kind="trace"``), where jobs taken
        into ``Workload.from_jobs`` would be a scenario's, ended at their limits."""
        if isinstance(key, slice):  # (the drops were the whole trace's: none of the slice)
            return replace(self, jobs=self.jobs[key], dropped=0)
        if isinstance(key, bool) or not isinstance(key, Integral):
            raise SlurmlabError(
                f"Workload {self.name!r}[{key!r}]: give a position (w[0]) or a slice (w[:100])"
            )
        return self.jobs[int(key)]

    @classmethod
    def from_jobs(cls, jobs: Iterable[WorkloadJob], **kw) -> Workload:
        return cls(tuple(jobs), **kw)


#: Workload kinds: a scenario's jobs end at their limits; a trace's replay recorded run times.
KINDS = ("scenario", "trace")


def _job_id(value) -> str | None:
    """A job's ``id`` as the text JobIDs are (``1`` and ``"1"`` are one id): text, or a
    whole number (numpy's too); a float, even ``1.0``, is refused (it is no job id)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value))
    raise SlurmlabError(
        f"job id {value!r} is not a job id; give text or a whole number, e.g. id='train-1' or id=7"
    )


def _workload_jobs(jobs) -> tuple[WorkloadJob, ...]:
    """A workload's jobs: WorkloadJobs, one or a list of them; an error names the first item
    that is none (a JobSpec wants its submit time and run time) and how to make one."""
    if isinstance(jobs, WorkloadJob):
        return (jobs,)
    if jobs is None or isinstance(jobs, str | JobSpec) or not isinstance(jobs, Iterable):
        items = [jobs]
    else:
        items = list(jobs)
    if hasattr(jobs, "columns"):  # (a DataFrame iterates over its column names)
        raise SlurmlabError(
            "Workload: got a DataFrame; a workload is a list of WorkloadJob (a job table's "
            "jobs cannot be replayed from the table: build WorkloadJob(spec, submit=..., "
            "runtime=...) for each)"
        )
    for item in items:
        if isinstance(item, JobSpec):
            raise SlurmlabError(
                f"Workload: {item!r} is a JobSpec, not a WorkloadJob; wrap it with its submit "
                "and run times: WorkloadJob(spec, submit=0, runtime=600)"
            )
        if not isinstance(item, WorkloadJob):
            raise SlurmlabError(
                f"Workload: {item!r} is a {type(item).__name__}, not a WorkloadJob; give a "
                "list of WorkloadJob(spec, submit=..., runtime=...)"
            )
    return tuple(items)


def _origin(value) -> pd.Timestamp:
    """A workload's ``origin``: a date and time without a time zone, from 1970 to 2200 (a
    job table's times fit), as text or a Timestamp/datetime; a number is refused (it would
    be counted from 1970)."""
    origin = None
    if isinstance(value, str | datetime | date):
        try:
            origin = pd.Timestamp(value)
        except (ValueError, TypeError, OverflowError):
            origin = None
    if (
        origin is None
        or origin is pd.NaT
        or origin.tzinfo is not None
        or not 1970 <= origin.year <= 2200
    ):
        raise SlurmlabError(
            f"Workload: origin={value!r} is not a date and time from 1970 to 2200 without a "
            "time zone; give the calendar time the workload starts at, e.g. "
            "origin='2026-01-05T08:00'"
        )
    return origin


def _span(seconds: float) -> str:
    """Seconds from the start in the largest unit that keeps them readable (``1.5 h``)."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


#: Scripted admin actions and what each names (a job or a node).
ACTIONS = {
    "cancel": "job", "requeue": "job", "hold": "job", "release": "job", "requeuehold": "job",
    "update": "job", "drain": "node", "resume": "node",
}  # fmt: skip
#: What an ``update`` action may change (scontrol update's NumNodes, TimeLimit, Partition,
#: and an array's ArrayTaskThrottle).
UPDATE_FIELDS = ("nodes", "time", "partition", "throttle")


def node_range(text: str) -> tuple[int, int | None] | None:
    """``"N"`` or ``"MIN-MAX"`` (scontrol's NumNodes) as (N, None) or (MIN, MAX); None when
    the text is neither."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    return None if m is None else (int(m[1]), int(m[2]) if m[2] is not None else None)


def update_value(key: str, value):
    """An update's value checked as scontrol reads it (a SlurmlabError naming the field
    otherwise): ``nodes`` a count of at least 1 or ``"MIN-MAX"``; ``time`` a time limit as
    ``-t`` reads it (``"1:00:00"``, ``"30"`` minutes, ``"UNLIMITED"``, a timedelta), or
    ``"+T"``/``"-T"`` to add or take off; ``partition`` a name, or several (``a,b``)."""
    if key == "nodes":
        if isinstance(value, Integral) and not isinstance(value, bool) and value >= 1:
            return int(value)
        span = node_range(value) if isinstance(value, str) else None
        if span is None or span[0] < 1 or (span[1] is not None and span[1] < span[0]):
            raise SlurmlabError(
                f"nodes={value!r}: give a node count of at least 1 or MIN-MAX, e.g. 2 or 2-2 "
                "(scontrol update NumNodes=)"
            )
        return span[0] if span[1] is None else f"{span[0]}-{span[1]}"
    if key == "throttle":
        if isinstance(value, Integral) and not isinstance(value, bool) and value >= 0:
            return int(value)
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        raise SlurmlabError(
            f"throttle={value!r}: give a whole number of tasks, e.g. 4 (0: no limit; "
            "scontrol update ArrayTaskThrottle=)"
        )
    if key == "time":
        if isinstance(value, Integral) and not isinstance(value, bool) and value < 0:
            raise SlurmlabError(
                f"time={value!r}: a negative number; to take {-value} minutes off, write it as "
                f"text: time: '-{-value}' (scontrol update TimeLimit=-{-value})"
            )
        if isinstance(value, float | bool):
            raise SlurmlabError(
                f"time={value!r}: scontrol update TimeLimit= takes whole minutes or "
                "[D-]HH:MM:SS (parse_time.c refuses a fraction); write e.g. time: '1:30' for "
                "a minute and a half, or time: 2"
            )
        text = value[1:] if isinstance(value, str) and value[:1] in "+-" else value
        if isinstance(text, Integral):
            text = str(text)  # (minutes, as -t 30)
        try:
            JobSpec(time_limit=text)
        except SlurmlabError as exc:
            raise SlurmlabError(
                f"time={value!r}: {exc} (scontrol update TimeLimit=; +T or -T adds or takes off)"
            ) from None
        return str(value) if isinstance(value, Integral) else value
    if (
        not isinstance(value, str)
        or not value.strip()
        or any(not p.strip() for p in value.split(","))
    ):
        raise SlurmlabError(
            f"partition={value!r}: give a partition's name, or several as a,b "
            "(scontrol update Partition=)"
        )
    return value.strip()


def unknown_action(kind) -> str:
    """The error for an action that is none of :data:`ACTIONS` (a node failure is no admin
    action: it has its own section, ``failures``)."""
    failure = str(kind).lower() in ("fail", "failure", "down", "node_fail")
    hint = "; a node failure is a 'failures' entry ({node, at, down_for})" if failure else ""
    return f"action {kind!r} is not one of {', '.join(ACTIONS)}{hint}"


@dataclass(frozen=True, slots=True)
class Action:
    """A scripted admin action at ``at`` seconds: cancel, requeue, hold, release,
    requeuehold or update a job (scancel, scontrol), drain or resume a node. An update's
    ``changes`` are (field, value) pairs of :data:`UPDATE_FIELDS` (``(("nodes", 2),
    ("time", "1:00:00"))``), made as an administrator makes them (``scontrol update``)."""

    at: float
    action: str
    target: str
    changes: tuple[tuple[str, object], ...] = ()

    def __post_init__(self):
        if self.action not in ACTIONS:
            raise SlurmlabError(unknown_action(self.action))
        changes = self.changes
        if isinstance(changes, dict):
            changes = tuple(changes.items())
            object.__setattr__(self, "changes", changes)
        if isinstance(changes, str | bytes) or not all(
            isinstance(c, tuple | list) and len(c) == 2 for c in changes
        ):
            raise SlurmlabError(
                f"action {self.action} {self.target}: changes={changes!r}: give a mapping, "
                "e.g. changes={'time': '1:00:00'}"
            )
        if self.action == "update":
            if not changes:
                raise SlurmlabError(
                    f"action update {self.target}: nothing to change; give changes among "
                    f"{', '.join(UPDATE_FIELDS)}, e.g. changes={{'time': '1:00:00'}}"
                )
            checked = []
            for key, value in changes:
                if key not in UPDATE_FIELDS:
                    raise SlurmlabError(
                        f"action update {self.target}: {key!r} is not one of "
                        f"{', '.join(UPDATE_FIELDS)}"
                    )
                try:
                    checked.append((key, update_value(key, value)))
                except SlurmlabError as exc:
                    raise SlurmlabError(f"action update {self.target}: {exc}") from None
            object.__setattr__(self, "changes", tuple(checked))
        elif changes:
            raise SlurmlabError(
                f"action {self.action} {self.target}: changes are for update actions only"
            )


def jobid_numbers(jobs: tuple[WorkloadJob, ...]) -> list[int | None]:
    """Each job's JobID number as a simulation gives it, where it is known before the run,
    else None.

    Like sbatch, slurmctld numbers submissions 1, 2, ... in submit order (jobs submitted
    at the same time in the workload's order), and an array takes one number for all its
    tasks. But each array task that leaves its array's pending record (it starts, or
    ``scontrol`` changes it alone) takes the next number then, all but the last, which
    keeps the array's (job_mgr.c job_array_split, job_array_post_sched; the ``arrays``
    fixture: an array submitted after two tasks of another had started got JobID 4, not 2).
    So the numbers of the jobs submitted after an array of two or more tasks depend on the
    run: None for those. The jobs submitted at the same time as the first such array are
    numbered before any of its tasks can start (a simulation submits every job of an
    instant before its scheduling pass).
    """
    out: list[int | None] = [None] * len(jobs)
    cut = None  # the submit time of the first array of several tasks
    for n, i in enumerate(sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i)), 1):
        if cut is not None and jobs[i].submit > cut:
            break
        out[i] = n
        array = jobs[i].spec.array
        if cut is None and array is not None and len(array.indices) > 1:
            cut = jobs[i].submit
    return out


def jobid_clash(jobs: tuple[WorkloadJob, ...]) -> tuple[int, int | None, int | None] | None:
    """The first job whose ``id`` would also be the JobID of a job without one, or None.

    A job without an ``id`` is known by its number (:func:`jobid_numbers`), an array's tasks
    by ``NUMBER_TASK``; an ``id`` that is the same text would make two jobs of that JobID.
    Returns ``(i, j, None)``: ``jobs[i].id`` is the JobID of ``jobs[j]``; or ``(i, None,
    n)``: ``jobs[i].id`` is a number (or ``NUMBER_TASK``) not below ``n``, the first number
    the run decides, while a job without an id gets one of those."""
    if all(j.id is None for j in jobs) or all(j.id is not None for j in jobs):
        return None  # (only numbers, or only ids: none can be the other's)
    numbers = jobid_numbers(jobs)
    numbered: dict[str, int] = {}  # the JobIDs (and array task ids) of jobs without an id
    for j, job in enumerate(jobs):
        n = numbers[j]
        if job.id is None and n is not None:
            numbered[str(n)] = j
            if job.spec.array is not None:
                numbered.update({f"{n}_{t}": j for t in job.spec.array.indices})
    known = [n for n in numbers if n is not None]
    first_unknown = max(known) + 1 if len(known) < len(jobs) else None
    unknown_unnamed = any(job.id is None and n is None for job, n in zip(jobs, numbers))
    for i, job in enumerate(jobs):
        if job.id is None:
            continue
        if job.id in numbered:
            return i, numbered[job.id], None
        m = NUMERIC_JOBID.fullmatch(job.id)
        if unknown_unnamed and m and int(m.group(1)) >= first_unknown:
            return i, None, first_unknown
    return None


#: A numeric JobID (``7``) or array task (``7_3``): the number is its group 1.
NUMERIC_JOBID = re.compile(r"(\d+)(?:_\d+)?")

#: Why a JobID after an array is known only once the run gives it (:func:`jobid_numbers`).
AFTER_ARRAY = (
    "after an array of several tasks the run decides the JobIDs, as slurmctld does (each "
    "task that starts takes the next number, all but the last)"
)
