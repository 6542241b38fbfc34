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
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pyarrow as pa

from slurmlab.records.sacct import SacctParseError, _RawTable
from slurmlab.spec.units import array_task_str

FIELDS = (
    "JobID", "JobIDRaw", "JobName", "User", "Group", "Account", "Partition", "QOS", "State",
    "Reason", "ExitCode", "DerivedExitCode", "Submit", "Eligible", "Start", "End",
    "ElapsedRaw", "TimelimitRaw", "TotalCPU", "UserCPU", "SystemCPU", "NNodes", "NCPUS",
    "NTasks", "ReqMem", "MaxRSS", "NodeList", "AllocTRES", "ReqTRES", "Priority", "Restarts",
    "Cluster", "Constraints", "WorkDir", "SubmitLine", "Flags",
)  # fmt: skip
#: User names whose uid is the same on every system (sacct prints uids, the JSON names).
_UIDS = {"root": "0"}
#: The JSON flags that say which scheduler started a job, in the text export's words, in
#: the order sacct's text export tests them (one is written: slurmdb_job_flags_str).
_SCHED_FLAGS = {
    "STARTED_ON_SUBMIT": "SchedSubmit",
    "STARTED_ON_SCHEDULE": "SchedMain",
    "STARTED_ON_BACKFILL": "SchedBackfill",
}


def _number(value: Any) -> int | float | None:
    """A plain number, or the ``number`` of a ``{"set", "infinite", "number"}`` wrapper."""
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite", False):
            return None
        value = value.get("number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _infinite(value: Any) -> bool:
    return isinstance(value, dict) and bool(value.get("infinite"))


def _word(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value[:1])
    return "" if value is None else str(value)


def _seconds(value: Any) -> str:
    """``{"seconds": s, "microseconds": us}`` as a sacct duration."""
    if not isinstance(value, dict):
        return ""
    seconds = _number(value.get("seconds")) or 0
    micro = _number(value.get("microseconds")) or 0
    total = int(seconds) * 1_000_000 + int(micro)
    hours, rest = divmod(total // 1_000_000, 3600)
    days, hours = divmod(hours, 24)  # (as sacct -P writes it: 426-16:00:00, not 10240:00:00)
    text = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    if days:
        text = f"{days}-{text}"
    if total % 1_000_000:
        text += f".{total % 1_000_000:06d}"
    return text


def _tres(items: Any) -> str:
    if not isinstance(items, list):
        return ""
    parts = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind, name, count = item.get("type"), item.get("name") or "", _number(item.get("count"))
        if kind is None or count is None:
            continue
        key = f"{kind}/{name}" if name else str(kind)
        parts.append(f"{key}={int(count)}M" if kind == "mem" else f"{key}={int(count)}")
    return ",".join(parts)


def _tres_count(tres: str, key: str) -> str:
    """The count of ``key`` (``cpu``, ``node``) in a TRES string such as ``cpu=4,node=1``."""
    return next((p.split("=", 1)[1] for p in tres.split(",") if p.startswith(f"{key}=")), "")


def _state(state: Any, killer: Any) -> str:
    """The State column as sacct -P prints it: ``CANCELLED by <uid>`` when a user cancelled.

    The JSON names that user (``kill_request_user``); sacct prints the uid. ``root`` is uid 0
    everywhere; any other name is kept (the JSON has no uid to give).
    """
    word = _word(state.get("current")) if isinstance(state, dict) else _word(state)
    if word.upper() == "CANCELLED" and isinstance(killer, str) and killer:
        return f"{word} by {_UIDS.get(killer, killer)}"
    return word


def _time(value: Any) -> str:
    number = _number(value)
    return str(int(number)) if number else ""  # epoch seconds; 0 means "not yet"


def _exit(value: Any) -> str:
    """``code:signal`` from an exit code object, as the text export writes it.

    A step killed by a signal has no return code: 22.05 (dbv0.0.38) writes
    ``"return_code": null, "signal": {"signal_id": 15}``, later layouts an unset
    ``{"set": false, ...}`` return code and ``"signal": {"id": {"number": 15}}``; sacct -P
    shows both as ``0:15``.
    """
    if not isinstance(value, dict):
        return ""
    code = _number(value.get("return_code"))
    signal = value.get("signal")
    number = None
    if isinstance(signal, dict):
        number = next(
            (n for key in ("id", "signal_id") if (n := _number(signal.get(key))) is not None),
            None,
        )
    if code is None and number is None:
        return ""
    return f"{int(code or 0)}:{int(number or 0)}"


def _job_id(job: dict) -> str:
    job_id = _number(job.get("job_id"))
    array = job.get("array") or {}
    array_id, task = _number(array.get("job_id")), _number(array.get("task_id"))
    het = job.get("het") or {}
    het_id, offset = _number(het.get("job_id")), _number(het.get("job_offset"))
    if array_id and task is not None:
        return f"{int(array_id)}_{int(task)}"
    if array_id and array.get("task"):
        return f"{int(array_id)}_[{_task_list(str(array['task']))}]"
    if het_id and offset is not None:
        return f"{int(het_id)}+{int(offset)}"
    return "" if job_id is None else str(int(job_id))


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


def _job_row(job: dict) -> dict[str, str]:
    assoc = job.get("association") or {}
    time = job.get("time") or {}
    state = job.get("state") or {}
    tres = job.get("tres") or {}
    limit = time.get("limit")
    allocated = _tres(tres.get("allocated"))
    requested = _tres(tres.get("requested"))
    # sacct's print.c: NCPUS and NNodes from the allocation, else from the request (a job
    # cancelled while pending); ReqMem from the request
    counted = allocated or requested
    nodes = int(_number(job.get("allocation_nodes")) or 0)
    comment = job.get("comment") if isinstance(job.get("comment"), dict) else {}
    flags = job.get("flags") if isinstance(job.get("flags"), list) else []
    flags = [f for f in flags if isinstance(f, str)]
    return {
        "JobID": _job_id(job),
        "JobIDRaw": str(_number(job.get("job_id")) or ""),
        "JobName": str(job.get("name") or ""),
        "User": str(job.get("user") or assoc.get("user") or ""),
        "Group": str(job.get("group") or ""),
        "Account": str(job.get("account") or assoc.get("account") or ""),
        "Partition": str(job.get("partition") or assoc.get("partition") or ""),
        "QOS": str(job.get("qos") or ""),
        "State": _state(state, job.get("kill_request_user")),
        "Reason": str(state.get("reason") or "") if isinstance(state, dict) else "",
        "ExitCode": _exit(job.get("exit_code")),
        "DerivedExitCode": _exit(job.get("derived_exit_code")),
        "Submit": _time(time.get("submission")),
        "Eligible": _time(time.get("eligible")),
        "Start": _time(time.get("start")),
        "End": _time(time.get("end")),
        "ElapsedRaw": str(int(_number(time.get("elapsed")) or 0)),
        "TimelimitRaw": "UNLIMITED" if _infinite(limit) else str(int(_number(limit) or 0) or ""),
        "TotalCPU": _seconds(time.get("total")),
        "UserCPU": _seconds(time.get("user")),
        "SystemCPU": _seconds(time.get("system")),
        "NNodes": str(nodes) if nodes else _tres_count(counted, "node") or "0",
        "NCPUS": _tres_count(counted, "cpu"),
        "NTasks": "",
        "ReqMem": _tres_count(requested, "mem"),
        "MaxRSS": "",
        "NodeList": str(job.get("nodes") or ""),
        "AllocTRES": allocated,
        "ReqTRES": requested,
        "Priority": str(int(p)) if (p := _number(job.get("priority"))) is not None else "",
        # (22.05's JSON has no restart count: unknown, never 0)
        "Restarts": str(int(r)) if (r := _number(job.get("restart_cnt"))) is not None else "",
        "Cluster": str(job.get("cluster") or ""),
        "Constraints": str(job.get("constraints") or ""),
        "WorkDir": str(job.get("working_directory") or ""),
        "SubmitLine": str(job.get("submit_line") or comment.get("job") or ""),
        # the first of submit, main, backfill, as sacct's text writes the bits
        # (slurmdb_job_flags_str): a requeued run's JSON can keep its earlier run's bit
        "Flags": next((text for f, text in _SCHED_FLAGS.items() if f in flags), ""),
    }


def _step_row(alloc: dict[str, str], step: dict) -> dict[str, str]:
    info = step.get("step") or {}
    step_id = info.get("id")
    if isinstance(step_id, dict):
        step_id = step_id.get("step_id", step_id)
    name = str(step_id if step_id is not None else "")
    if "." in name:  # newer layouts write "123.batch"
        name = name.split(".", 1)[1]
    time = step.get("time") or {}
    tres = step.get("tres") or {}
    used = (
        (tres.get("requested") or {}).get("max")
        if isinstance(tres.get("requested"), dict)
        else None
    )
    rss = next(
        (
            int(_number(t.get("count")) or 0)
            for t in used or []
            if isinstance(t, dict) and t.get("type") == "mem"
        ),
        None,
    )
    nodes = step.get("nodes") or {}
    tasks = step.get("tasks") or {}
    allocated = _tres(tres.get("allocated"))
    row = dict.fromkeys(FIELDS, "")
    row.update(
        {
            "JobID": f"{alloc['JobID']}.{name}",
            "JobIDRaw": f"{alloc['JobIDRaw']}.{name}",
            "JobName": str(info.get("name") or ""),
            "State": _state(step.get("state"), step.get("kill_request_user")),
            "ExitCode": _exit(step.get("exit_code")),
            "Start": _time(time.get("start")),
            "End": _time(time.get("end")),
            "ElapsedRaw": str(int(_number(time.get("elapsed")) or 0)),
            "TotalCPU": _seconds(time.get("total")),
            "UserCPU": _seconds(time.get("user")),
            "SystemCPU": _seconds(time.get("system")),
            "NNodes": str(int(_number(nodes.get("count")) or 0)) if isinstance(nodes, dict) else "",
            # sacct's print.c: the step's CPUs, else its job's
            "NCPUS": _tres_count(allocated, "cpu") or alloc["NCPUS"],
            "NTasks": str(int(_number(tasks.get("count")) or 0)) if isinstance(tasks, dict) else "",
            "MaxRSS": str(rss) if rss is not None else "",  # bytes, as sacct --noconvert
            "NodeList": str(nodes.get("range") or "") if isinstance(nodes, dict) else "",
            "AllocTRES": allocated,
        }
    )
    return row


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
    rows: list[dict[str, str]] = []
    for job in jobs:
        if not isinstance(job, dict):
            continue
        alloc = _job_row(job)
        rows.append(alloc)
        for step in job.get("steps") or []:
            if isinstance(step, dict):
                rows.append(_step_row(alloc, step))
    columns = {name: pa.array([row[name] for row in rows], pa.string()) for name in FIELDS}
    return _RawTable(
        file=file,
        names=list(FIELDS),
        columns=columns,
        lines=np.arange(1, len(rows) + 1, dtype=np.int64),
        bad=[],
        fmt="json",
        delimiter=None,
    )
