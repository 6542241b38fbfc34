"""``sacct --json`` exports, turned into the same string columns a ``-P`` export gives.

Slurm's data_parser changes its JSON with each version: 22.05 (``dbv0.0.38``) writes plain
numbers and strings, later layouts (``v0.0.39`` onward) wrap numbers as
``{"set": true, "infinite": false, "number": 5}`` and states as lists. Both are read here
into sacct's column names, then parsed by :mod:`slurmlab.records.sacct` like text.

Where the JSON holds a value in another form, it is written as ``sacct -P`` prints it (the
rules of sacct's ``print.c``): NCPUS and NNodes of a job that has no allocation (cancelled
while pending) are its request (the ``cpu=``/``node=`` of ReqTRES), a job cancelled by a user
is ``CANCELLED by <uid>`` (the JSON names the user in ``kill_request_user``: ``root`` is uid 0
on every system, another name is kept as it is, since the JSON has no uid), and MaxRSS is in
bytes. What the JSON lacks stays missing: 22.05's ``exit_code`` is ``SUCCESS``/0 for every job
that exited (its dumper drops the status), so a FAILED job's ``1:0`` reads as ``0:0``.

What sacct writes for a value it has not got is missing here too: ``null`` (22.05 writes a
count that is unset or INFINITE as null: a time limit, a pending job's start, the energy of
a TRES list), an unset ``{"set": false}`` wrapper, a start or end of 0 (not yet). A value
sacct never writes (a text where a number belongs, a negative count, a job without its
``time``, ``tres`` or ``state``, an entry of ``jobs`` that is no object) is an error naming
the job entry (``jobs[3] (job_id 4)``), the JSON field and the value as written, read with
``errors=`` as a text export's bad values are: ``"warn"`` leaves the row out, ``"coerce"``
keeps it with the value NA. A non-empty top-level ``errors`` list (``Unable to contact
slurmdbd``) is quoted in a warning, and refused when the export has no job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from slurmlab.errors import warn_at_caller
from slurmlab.records.sacct import (
    SacctParseError,
    SacctParseWarning,
    _Bad,
    _JsonBad,
    _RawTable,
)
from slurmlab.spec.units import array_task_str

FIELDS = (
    "JobID", "JobIDRaw", "JobName", "User", "Group", "Account", "Partition", "QOS", "State",
    "Reason", "ExitCode", "DerivedExitCode", "Submit", "Eligible", "Start", "End",
    "ElapsedRaw", "TimelimitRaw", "TotalCPU", "UserCPU", "SystemCPU", "NNodes", "NCPUS",
    "NTasks", "ReqMem", "MaxRSS", "NodeList", "AllocTRES", "ReqTRES", "Priority", "Restarts",
    "Cluster", "Constraints", "WorkDir", "SubmitLine", "Flags",
)  # fmt: skip
#: The JSON field each column is read from: on a job's entry, and on a step's (``steps[i]``).
JSON_FIELDS = {
    "JobID": ("job_id", "step.id"), "JobIDRaw": ("job_id", "step.id"),
    "JobName": ("name", "step.name"), "User": ("user", "user"), "Group": ("group", "group"),
    "Account": ("account", "account"), "Partition": ("partition", "partition"),
    "QOS": ("qos", "qos"), "State": ("state.current", "state"),
    "Reason": ("state.reason", "state.reason"), "ExitCode": ("exit_code", "exit_code"),
    "DerivedExitCode": ("derived_exit_code", "derived_exit_code"),
    "Submit": ("time.submission", "time.submission"), "Eligible": ("time.eligible", "-"),
    "Start": ("time.start", "time.start"), "End": ("time.end", "time.end"),
    "ElapsedRaw": ("time.elapsed", "time.elapsed"), "TimelimitRaw": ("time.limit", "-"),
    "Suspended": ("time.suspended", "time.suspended"), "TotalCPU": ("time.total", "time.total"),
    "UserCPU": ("time.user", "time.user"), "SystemCPU": ("time.system", "time.system"),
    "NNodes": ("allocation_nodes", "nodes.count"), "NCPUS": ("tres.allocated", "tres.allocated"),
    "NTasks": ("-", "tasks.count"), "ReqMem": ("tres.requested", "-"),
    "MaxRSS": ("-", "tres.requested.max"), "NodeList": ("nodes", "nodes.range"),
    "AllocTRES": ("tres.allocated", "tres.allocated"), "ReqTRES": ("tres.requested", "-"),
    "Priority": ("priority", "-"), "Restarts": ("restart_cnt", "-"), "Cluster": ("cluster", "-"),
    "Constraints": ("constraints", "-"), "WorkDir": ("working_directory", "-"),
    "SubmitLine": ("submit_line", "-"), "Flags": ("flags", "-"),
}  # fmt: skip
#: User names whose uid is the same on every system (sacct prints uids, the JSON names).
_UIDS = {"root": "0"}
#: The JSON flags that say which scheduler started a job, in the text export's words, in
#: the order sacct's text export tests them (one is written: slurmdb_job_flags_str).
_SCHED_FLAGS = {
    "STARTED_ON_SUBMIT": "SchedSubmit",
    "STARTED_ON_SCHEDULE": "SchedMain",
    "STARTED_ON_BACKFILL": "SchedBackfill",
}
_AGAIN = "the export was edited or is corrupt: export it again with sacct --json"
_NUMBER_HINT = f"sacct --json writes a whole number of at least 0 here (null when unset); {_AGAIN}"
_TIME_HINT = (
    "sacct --json writes a time as epoch seconds (e.g. 1700000000; 0 or null when not yet); "
    + _AGAIN
)
_TEXT_HINT = f"sacct --json writes a text here (or null); {_AGAIN}"
#: (a field that is not there: no value to show)
_ABSENT = object()


@dataclass
class _At:
    """Where values are read: a row (its line among the rows), the prefix of its fields
    (``steps[0].`` on a step's row) and the list the values sacct never writes go to."""

    line: int
    prefix: str
    bad: dict[tuple[int, str], _JsonBad]
    #: the columns noted on this row (the file's ``bad`` holds every row's)
    noted: list[str] = field(default_factory=list)

    def note(self, column: str, field: str, value: Any, problem: str, hint: str) -> None:
        shown = None if value is _ABSENT else _json_text(value)
        found = _JsonBad(self.line, column, self.prefix + field, shown, problem, hint)
        if (self.line, column) not in self.bad:  # (the first of a column is named)
            self.bad[self.line, column] = found
            self.noted.append(column)


def _json_text(value: Any) -> str:
    """A value as the JSON writes it (``"two"``, ``-5``, ``null``), cut to 80 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a text", bool: "a boolean"}
    return "null" if value is None else kinds.get(type(value), "a number")


def _number(value: Any) -> int | float | None:
    """A plain number, or the ``number`` of a ``{"set", "infinite", "number"}`` wrapper."""
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite", False):
            return None
        value = value.get("number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _whole(
    at: _At | None, value: Any, column: str, field: str, hint: str = _NUMBER_HINT
) -> int | None:
    """A count or a time of the JSON: a whole number of at least 0, plain or the ``number``
    of a ``{"set", "infinite", "number"}`` wrapper; None where sacct has none (``null``, an
    unset or infinite wrapper). Anything else is noted at ``at`` (and is None)."""
    number = value
    if isinstance(value, dict) and {"set", "infinite", "number"} & set(value):
        if value.get("set", True) is False or value.get("infinite", False) is True:
            return None
        number, field = value.get("number"), f"{field}.number"
    if number is None:
        return None
    problem = None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        problem = f"is {_kind(number)}, not a number"
    elif number != number or number in (float("inf"), float("-inf")):
        problem = "is not a number"
    elif number < 0:
        problem = "is negative"
    elif number != int(number):
        problem = "is not a whole number"
    if problem is None:
        return int(number)
    if at is not None:
        at.note(column, field, number, problem, hint)
    return None


def _text(at: _At, value: Any, column: str, field: str) -> str:
    """A text of the JSON (a name, a node list); ``null`` or absent is blank."""
    if value is None or value is _ABSENT:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # (a name that is a number)
    at.note(column, field, value, f"is {_kind(value)}, not a text", _TEXT_HINT)
    return ""


def _object(at: _At, job: dict, key: str, column: str, what: str) -> dict | None:
    """A job's (or step's) ``time``, ``tres``, ``state``: an object sacct always writes
    (``what`` says what it holds). Missing or another thing: noted, and None."""
    value = job.get(key, _ABSENT)
    if isinstance(value, dict):
        return value
    problem = (
        "is missing" if value is _ABSENT or value is None else f"is {_kind(value)}, not an object"
    )
    at.note(
        column,
        key,
        value,
        f"{problem}: sacct --json writes {key!r} for every {'step' if at.prefix else 'job'} "
        f"({what})",
        _AGAIN,
    )
    return None


def _infinite(value: Any) -> bool:
    return isinstance(value, dict) and value.get("infinite") is True


def _word(at: _At, value: Any, column: str, field: str) -> str:
    """A state: a text (22.05), or a list of them whose first is the state (later layouts)."""
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return value[0]
        at.note(column, field, value, "is not a list of state names", _STATE_HINT)
        return ""
    if value is None or value is _ABSENT:
        return ""
    if isinstance(value, str):
        return value
    at.note(column, field, value, f"is {_kind(value)}, not a state name", _STATE_HINT)
    return ""


_STATE_HINT = f'sacct --json writes a state as "COMPLETED" (or ["COMPLETED"]); {_AGAIN}'


def _seconds(at: _At, value: Any, column: str, field: str) -> str:
    """``{"seconds": s, "microseconds": us}`` as a sacct duration."""
    if value is None:
        return ""
    if not isinstance(value, dict):
        at.note(
            column,
            field,
            value,
            f"is {_kind(value)}, not an object",
            'sacct --json writes CPU times as {"seconds": 5, "microseconds": 0}; ' + _AGAIN,
        )
        return ""
    seconds = _whole(at, value.get("seconds"), column, f"{field}.seconds")
    micro = _whole(at, value.get("microseconds"), column, f"{field}.microseconds")
    total = int(seconds or 0) * 1_000_000 + int(micro or 0)
    hours, rest = divmod(total // 1_000_000, 3600)
    days, hours = divmod(hours, 24)  # (as sacct -P writes it: 426-16:00:00, not 10240:00:00)
    text = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    if days:
        text = f"{days}-{text}"
    if total % 1_000_000:
        text += f".{total % 1_000_000:06d}"
    return text


def _tres(at: _At, items: Any, column: str, field: str) -> str | None:
    """A TRES list as sacct -P writes it (``cpu=4,mem=1000M,gres/gpu=1``); None when an entry
    is one sacct never writes (noted). An entry whose count is null (22.05's energy) is left
    out, as sacct -P leaves it out."""
    if items is None or items is _ABSENT:
        return ""
    if not isinstance(items, list):
        at.note(column, field, items, f"is {_kind(items)}, not a list", _TRES_HINT)
        return None
    parts = []
    for k, item in enumerate(items):
        where = f"{field}[{k}]"
        if not isinstance(item, dict):
            at.note(column, where, item, f"is {_kind(item)}, not a TRES object", _TRES_HINT)
            return None
        kind, name = item.get("type"), item.get("name")
        if not isinstance(kind, str) or not kind:
            at.note(
                column,
                f"{where}.type",
                item.get("type", _ABSENT),
                "is missing" if "type" not in item else "is not a TRES type",
                _TRES_HINT,
            )
            return None
        if name is not None and not isinstance(name, str):
            at.note(column, f"{where}.name", name, "is not a TRES name", _TRES_HINT)
            return None
        count = item.get("count")
        if count is None:
            continue  # (sacct has no count for it)
        number = _whole(at, count, column, f"{where}.count", _TRES_HINT)
        if (at.line, column) in at.bad:
            return None
        if number is None:
            continue  # (an unset or infinite wrapper: no count)
        key = f"{kind}/{name}" if name else kind
        parts.append(f"{key}={number}M" if kind == "mem" else f"{key}={number}")
    return ",".join(parts)


_TRES_HINT = (
    'sacct --json writes a TRES list as [{"type": "gres", "name": "gpu", "count": 4}, ...] '
    f"(a whole count, or null); {_AGAIN}"
)


def _tres_count(tres: str, key: str) -> str:
    """The count of ``key`` (``cpu``, ``node``) in a TRES string such as ``cpu=4,node=1``."""
    return next((p.split("=", 1)[1] for p in tres.split(",") if p.startswith(f"{key}=")), "")


def _state(at: _At, state: Any, killer: Any, field: str) -> str:
    """The State column as sacct -P prints it: ``CANCELLED by <uid>`` when a user cancelled.

    The JSON names that user (``kill_request_user``); sacct prints the uid. ``root`` is uid 0
    everywhere; any other name is kept (the JSON has no uid to give).
    """
    if isinstance(state, dict):
        if "current" not in state:
            at.note("State", f"{field}.current", _ABSENT, "is missing", _STATE_HINT)
        word = _word(at, state.get("current", _ABSENT), "State", f"{field}.current")
    else:
        word = _word(at, state, "State", field)
    if word.upper() == "CANCELLED" and isinstance(killer, str) and killer:
        return f"{word} by {_UIDS.get(killer, killer)}"
    return word


def _time(at: _At, value: Any, column: str, field: str) -> str:
    number = _whole(at, value, column, field, _TIME_HINT)
    return str(number) if number else ""  # epoch seconds; 0 means "not yet"


def _exit(
    value: Any, at: _At | None = None, column: str = "ExitCode", field: str = "exit_code"
) -> str:
    """``code:signal`` from an exit code object, as the text export writes it.

    A step killed by a signal has no return code: 22.05 (dbv0.0.38) writes
    ``"return_code": null, "signal": {"signal_id": 15}``, later layouts an unset
    ``{"set": false, ...}`` return code and ``"signal": {"id": {"number": 15}}``; sacct -P
    shows both as ``0:15``. A job still pending has neither (22.05: status ``PENDING``).
    """
    if not isinstance(value, dict):
        if value is not None and at is not None:
            at.note(column, field, value, f"is {_kind(value)}, not an object", _EXIT_HINT)
        return ""
    code = _whole(at, value.get("return_code"), column, f"{field}.return_code", _EXIT_HINT)
    signal = value.get("signal")
    number = None
    if isinstance(signal, dict):
        for key in ("id", "signal_id"):
            if key in signal:
                number = _whole(at, signal[key], column, f"{field}.signal.{key}", _EXIT_HINT)
                break
    elif signal is not None and at is not None:
        at.note(column, f"{field}.signal", signal, f"is {_kind(signal)}, not an object", _EXIT_HINT)
    if code is None and number is None:
        return ""
    return f"{code or 0}:{number or 0}"


_EXIT_HINT = (
    'sacct --json writes an exit code as {"status": "SUCCESS", "return_code": 0} (a signal: '
    f'"signal": {{"signal_id": 15}}); {_AGAIN}'
)


def _job_id(at: _At, job: dict) -> str:
    if "job_id" not in job or job["job_id"] is None:
        at.note(
            "JobID",
            "job_id",
            job.get("job_id", _ABSENT),
            "is missing: sacct --json writes every job's job_id",
            _AGAIN,
        )
        return ""
    job_id = _whole(at, job["job_id"], "JobID", "job_id")
    array = _part(at, job, "array")
    array_id = _whole(at, array.get("job_id"), "JobID", "array.job_id")
    task = _whole(at, array.get("task_id"), "JobID", "array.task_id")
    het = _part(at, job, "het")
    het_id = _whole(at, het.get("job_id"), "JobID", "het.job_id")
    offset = _whole(at, het.get("job_offset"), "JobID", "het.job_offset")
    if job_id is None or (at.line, "JobID") in at.bad:
        return ""
    tasks = array.get("task")
    if array_id and task is not None:
        return f"{array_id}_{task}"
    if array_id and isinstance(tasks, str) and tasks:
        return f"{array_id}_[{_task_list(tasks)}]"
    if het_id and offset is not None:
        return f"{het_id}+{offset}"
    return str(job_id)


def _part(at: _At, job: dict, key: str) -> dict:
    """An optional object of a job (``array``, ``het``): {} when absent or null."""
    value = job.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    at.note("JobID", key, value, f"is {_kind(value)}, not an object", _AGAIN)
    return {}


def _task_list(text: str) -> str:
    """The tasks of an array's pending record as sacct prints them (``0-3``): Slurm 22.05's
    JSON gives them as the record's task bitmap in hexadecimal (``0xF``; the
    ``array-records`` fixture), sacct's text as ranges."""
    if not _HEX.fullmatch(text):
        return text
    bits = int(text, 16)
    # (as sacct's text with SLURM_BITSTR_LEN=0: a regular stride as 0-20:2, never cut)
    tasks = [i for i in range(bits.bit_length()) if bits >> i & 1]
    return array_task_str(tasks, bitstr_len=0) if tasks else ""


_HEX = re.compile(r"0x[0-9A-Fa-f]+")


def _job_row(at: _At, job: dict) -> dict[str, str]:
    assoc = job.get("association") if isinstance(job.get("association"), dict) else {}
    time = _object(at, job, "time", "ElapsedRaw", "its submit, start and end times") or {}
    given = _object(at, job, "state", "State", "its state")
    state = given or {}
    tres = _object(at, job, "tres", "AllocTRES", "the TRES allocated and requested") or {}
    limit = time.get("limit")
    allocated = _tres(at, tres.get("allocated"), "AllocTRES", "tres.allocated")
    requested = _tres(at, tres.get("requested"), "ReqTRES", "tres.requested")
    # sacct's print.c: NCPUS and NNodes from the allocation, else from the request (a job
    # cancelled while pending); ReqMem from the request. (A TRES list noted as wrong gives
    # none of them: NA.)
    counted = "" if allocated is None else allocated or requested or ""
    nodes = _whole(at, job.get("allocation_nodes"), "NNodes", "allocation_nodes") or 0
    comment = job.get("comment") if isinstance(job.get("comment"), dict) else {}
    flags = job.get("flags") if isinstance(job.get("flags"), list) else []
    flags = [f for f in flags if isinstance(f, str)]
    elapsed = _whole(at, time.get("elapsed"), "ElapsedRaw", "time.elapsed")
    row = {
        "JobID": _job_id(at, job),
        "JobIDRaw": "",
        "JobName": _text(at, job.get("name"), "JobName", "name"),
        "User": _text(at, job.get("user") or assoc.get("user"), "User", "user"),
        "Group": _text(at, job.get("group"), "Group", "group"),
        "Account": _text(at, job.get("account") or assoc.get("account"), "Account", "account"),
        "Partition": _text(
            at, job.get("partition") or assoc.get("partition"), "Partition", "partition"
        ),
        "QOS": _text(at, job.get("qos"), "QOS", "qos"),
        "State": "" if given is None else _state(at, state, job.get("kill_request_user"), "state"),
        "Reason": _text(at, state.get("reason"), "Reason", "state.reason"),
        "ExitCode": _exit(job.get("exit_code"), at, "ExitCode", "exit_code"),
        "DerivedExitCode": _exit(
            job.get("derived_exit_code"), at, "DerivedExitCode", "derived_exit_code"
        ),
        "Submit": _time(at, time.get("submission"), "Submit", "time.submission"),
        "Eligible": _time(at, time.get("eligible"), "Eligible", "time.eligible"),
        "Start": _start(at, time, elapsed),
        "End": _time(at, time.get("end"), "End", "time.end"),
        "ElapsedRaw": "" if elapsed is None else str(elapsed),
        "TimelimitRaw": "UNLIMITED"
        if _infinite(limit)
        else str(_whole(at, limit, "TimelimitRaw", "time.limit") or ""),
        "TotalCPU": _seconds(at, time.get("total"), "TotalCPU", "time.total"),
        "UserCPU": _seconds(at, time.get("user"), "UserCPU", "time.user"),
        "SystemCPU": _seconds(at, time.get("system"), "SystemCPU", "time.system"),
        "NNodes": str(nodes) if nodes else _tres_count(counted, "node") or "0",
        "NCPUS": _tres_count(counted, "cpu"),
        "NTasks": "",
        "ReqMem": _tres_count(requested or "", "mem"),
        "MaxRSS": "",
        "NodeList": _text(at, job.get("nodes"), "NodeList", "nodes"),
        "AllocTRES": allocated or "",
        "ReqTRES": requested or "",
        "Priority": _optional(_whole(at, job.get("priority"), "Priority", "priority")),
        # (22.05's JSON has no restart count: unknown, never 0)
        "Restarts": _optional(_whole(at, job.get("restart_cnt"), "Restarts", "restart_cnt")),
        "Cluster": _text(at, job.get("cluster"), "Cluster", "cluster"),
        "Constraints": _text(at, job.get("constraints"), "Constraints", "constraints"),
        "WorkDir": _text(at, job.get("working_directory"), "WorkDir", "working_directory"),
        "SubmitLine": _text(
            at, job.get("submit_line") or comment.get("job"), "SubmitLine", "submit_line"
        ),
        # the first of submit, main, backfill, as sacct's text writes the bits
        # (slurmdb_job_flags_str): a requeued run's JSON can keep its earlier run's bit
        "Flags": next((text for f, text in _SCHED_FLAGS.items() if f in flags), ""),
    }
    if row["JobID"]:
        row["JobIDRaw"] = str(_whole(None, job.get("job_id"), "JobID", "job_id"))
    return _blank_noted(at, row)


def _optional(number: int | None) -> str:
    return "" if number is None else str(number)


def _start(at: _At, time: dict, elapsed: int | None) -> str:
    """``time.start``; null or 0 (never started) only for a run that took no time."""
    start = _time(at, time.get("start"), "Start", "time.start")
    if not start and elapsed and (at.line, "Start") not in at.bad:
        at.note(
            "Start",
            "time.start",
            time.get("start", _ABSENT),
            f"is {'missing' if 'start' not in time else 'not set'} but time.elapsed is "
            f"{elapsed} s: a run that took time has a start (sacct --json writes 0 or null "
            "only for one that never started)",
            _AGAIN,
        )
    return start


def _blank_noted(at: _At, row: dict[str, str]) -> dict[str, str]:
    """A row whose noted values are blank (NA with errors='coerce'): a TRES list noted as
    wrong blanks what is read from it."""
    for column in at.noted:  # (this row's own: the file's list is not walked per row)
        row[column] = ""
        if column == "AllocTRES":
            row["NCPUS"] = ""
        elif column == "ReqTRES":
            row["ReqMem"] = ""
        elif column == "JobID":
            row["JobIDRaw"] = ""
    return row


def _step_row(at: _At, alloc: dict[str, str], step: dict) -> dict[str, str]:
    info = step.get("step")
    if info is not None and not isinstance(info, dict):
        at.note("JobID", "step", info, f"is {_kind(info)}, not an object", _STEP_HINT)
    info = info if isinstance(info, dict) else {}
    step_id = info.get("id")
    if isinstance(step_id, dict):
        step_id = step_id.get("step_id", step_id)
    name = ""
    if isinstance(step_id, (str, int)) and not isinstance(step_id, bool) and str(step_id):
        name = str(step_id)
    else:
        problem = "is missing" if "id" not in info else "is not a step id"
        at.note("JobID", "step.id", info.get("id", _ABSENT), problem, _STEP_HINT)
    if "." in name:  # newer layouts write "123.batch"
        name = name.split(".", 1)[1]
    time = _object(at, step, "time", "ElapsedRaw", "its start and end times") or {}
    tres = step.get("tres") if isinstance(step.get("tres"), dict) else {}
    requested = tres.get("requested")
    used = requested.get("max") if isinstance(requested, dict) else None
    rss = None
    for k, t in enumerate(used if isinstance(used, list) else []):
        if isinstance(t, dict) and t.get("type") == "mem":
            rss = _whole(at, t.get("count"), "MaxRSS", f"tres.requested.max[{k}].count")
            break
    nodes = step.get("nodes") if isinstance(step.get("nodes"), dict) else {}
    tasks = step.get("tasks") if isinstance(step.get("tasks"), dict) else {}
    allocated = _tres(at, tres.get("allocated"), "AllocTRES", "tres.allocated")
    elapsed = _whole(at, time.get("elapsed"), "ElapsedRaw", "time.elapsed")
    row = dict.fromkeys(FIELDS, "")
    row.update(
        {
            "JobID": f"{alloc['JobID']}.{name}" if alloc["JobID"] and name else "",
            "JobIDRaw": f"{alloc['JobIDRaw']}.{name}" if alloc["JobIDRaw"] and name else "",
            "JobName": _text(at, info.get("name"), "JobName", "step.name"),
            "State": _state(at, step.get("state"), step.get("kill_request_user"), "state"),
            "ExitCode": _exit(step.get("exit_code"), at, "ExitCode", "exit_code"),
            "Start": _start(at, time, elapsed),
            "End": _time(at, time.get("end"), "End", "time.end"),
            "ElapsedRaw": "" if elapsed is None else str(elapsed),
            "TotalCPU": _seconds(at, time.get("total"), "TotalCPU", "time.total"),
            "UserCPU": _seconds(at, time.get("user"), "UserCPU", "time.user"),
            "SystemCPU": _seconds(at, time.get("system"), "SystemCPU", "time.system"),
            "NNodes": _optional(_whole(at, nodes.get("count"), "NNodes", "nodes.count")),
            # sacct's print.c: the step's CPUs, else its job's
            "NCPUS": _tres_count(allocated or "", "cpu") or alloc["NCPUS"],
            "NTasks": _optional(_whole(at, tasks.get("count"), "NTasks", "tasks.count")),
            "MaxRSS": _optional(rss),  # bytes, as sacct --noconvert
            "NodeList": _text(at, nodes.get("range"), "NodeList", "nodes.range"),
            "AllocTRES": allocated or "",
        }
    )
    return _blank_noted(at, row)


_STEP_HINT = f'sacct --json names each step: "step": {{"id": "batch"}} (or a number); {_AGAIN}'


def _report_errors(file: str, document: dict, jobs: list) -> None:
    """A non-empty top-level ``errors`` list (sacct could not query slurmdbd: ``Unable to
    contact slurmdbd``) quoted in a warning, or refused when the export has no job; a
    ``warnings`` list (later layouts) quoted in a warning."""
    for key in ("errors", "warnings"):
        said = document.get(key)
        if not said:
            continue
        items = said if isinstance(said, list) else [said]
        quoted = "; ".join(_said(item) for item in items[:5]) + (" ..." if len(items) > 5 else "")
        if key == "errors" and not jobs:
            raise SacctParseError(
                f"reports {len(items)} error(s) and holds no job: {quoted}",
                file=file,
                hint="sacct could not list the jobs: fix what it reports (slurmdbd reachable, "
                "the query's -S/-E window) and export again",
            )
        what = (
            "its jobs may be incomplete: sacct lists what it could get"
            if key == "errors"
            else "the jobs are read as written"
        )
        warn_at_caller(
            f"{file}: the export reports {len(items)} {key[:-1]}(s): {quoted}; {what}; fix what "
            "it reports and export again",
            SacctParseWarning,
        )


def _said(item: Any) -> str:
    """One entry of ``errors``: ``{"error": ..., "error_number": ..., "description": ...,
    "source": ...}`` (openapi's resp_error) in words."""
    if not isinstance(item, dict):
        return _json_text(item)
    words = [str(item[k]) for k in ("error", "description") if item.get(k)]
    extra = [f"{k} {item[k]}" for k in ("error_number", "error_code", "source") if item.get(k)]
    text = ": ".join(words) or _json_text(item)
    return f"{text!r}" + (f" ({', '.join(extra)})" if extra else "")


def json_to_raw(file: str, data: bytes) -> _RawTable:
    """Turn a ``sacct --json`` document into string columns named like sacct's fields."""
    try:
        document = json.loads(data.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise SacctParseError(
            f"starts like JSON but is not valid JSON ({exc.msg} at line {exc.lineno})",
            file=file,
            hint="write it with `sacct --json > file.json`, or export text with -P",
        ) from None
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, list):
        raise SacctParseError(
            "is JSON without a top-level 'jobs' list: not a sacct --json export",
            file=file,
            hint="write it with `sacct --json > file.json`",
        )
    _report_errors(file, document, jobs)
    rows: list[dict[str, str]] = []
    places: list[tuple[str, str]] = []  # (each line's job entry and field prefix)
    found: dict[tuple[int, str], _JsonBad] = {}
    whole: list[_Bad] = []  # (entries that are no object: no row to keep)

    def not_an_object(record: str, prefix: str, value: Any, what: str) -> None:
        places.append((record, prefix))
        whole.append(
            _Bad(
                line=len(places),
                column=None,
                value=_json_text(value),
                problem=f"is {_kind(value) if value is not None else 'null'}, not {what}",
                hint=_AGAIN,
                drop=True,
                field=prefix.rstrip(".") or None,
            )
        )

    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            not_an_object(f"jobs[{i}]", "", job, "a job object")
            continue
        raw_id = job.get("job_id")
        shown = _json_text(raw_id) if isinstance(raw_id, (int, str)) else None
        record = f"jobs[{i}]" + (f" (job_id {shown})" if shown else "")
        places.append((record, ""))
        alloc = _job_row(_At(len(places), "", found), job)
        rows.append(alloc)
        steps = job.get("steps")
        if steps is not None and not isinstance(steps, list):
            not_an_object(record, "steps.", steps, "a list of steps")
            continue
        for k, step in enumerate(steps or []):
            if not isinstance(step, dict):
                not_an_object(record, f"steps[{k}].", step, "a step object")
                continue
            places.append((record, f"steps[{k}]."))
            rows.append(_step_row(_At(len(places), f"steps[{k}].", found), alloc, step))
    gone = {b.line for b in whole}
    lines = [n for n in range(1, len(places) + 1) if n not in gone]
    columns = {name: pa.array([row[name] for row in rows], pa.string()) for name in FIELDS}
    return _RawTable(
        file=file,
        names=list(FIELDS),
        columns=columns,
        lines=np.asarray(lines, dtype=np.int64),
        bad=whole,
        fmt="json",
        delimiter=None,
        json_rows=places,
        json_fields=JSON_FIELDS,
        json_bad=found,
    )
