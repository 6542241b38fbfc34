"""Line magics for notebooks (``%load_ext slurmlab``): Slurm's commands, typed as on a login
node, on the current :class:`~slurmlab.sim.lab.Lab` (the one ``%%sbatch`` submits to).

* ``%squeue [--start] [-r] [-l]``, ``%sinfo``, ``%sacct [-o FIELDS] [-j JOBS] [-S TIME] [-D]
  [-X] [-p|-P] [--array]``: print the lab's views as the commands print them;
* ``%scancel 12 14``;
* ``%sbatch --wrap=COMMAND [--runtime DURATION] [sbatch options]``: submit a job without a
  script, as ``sbatch --wrap`` does (IPython refuses a ``%%sbatch`` cell with an empty
  body; ``%%sbatch --wrap=...`` over a blank cell body works too);
* ``%scontrol update JobId=12 [NumNodes=N] [TimeLimit=T] [Partition=P]
  [ArrayTaskThrottle=N]``, ``%scontrol hold|release|requeue|requeuehold 12,14``.

As the commands, ``%scancel`` and ``%scontrol`` print nothing when all went well, and each
magic prints an error line on stderr when
Slurm would refuse (the cell goes on: one mistake does not stop a workshop's notebook);
warnings are printed as the commands print theirs.
"""

from __future__ import annotations

import re
import shlex
import sys
import warnings

import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.sim.lab import current_lab
from slurmlab.sim.lab import sbatch_magic as _sbatch_cell
from slurmlab.spec.parse_time import read_past_time

__all__ = ["MAGICS"]

#: scontrol update's keys slurmlab changes, in any case, and Lab.update's argument for each
_UPDATE_KEYS = {"numnodes": "nodes", "reqnodes": "nodes", "timelimit": "time",
                "partition": "partition", "arraytaskthrottle": "throttle"}  # fmt: skip
_JOB_COMMANDS = ("hold", "release", "requeue", "requeuehold")


def _run(command: str, act) -> None:
    """Run ``act``; print its warnings and its SlurmlabError as ``command`` prints them."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            act()
    except SlurmlabError as exc:
        _say(command, "warning", [w.message for w in caught])
        _say(command, "error", [exc])
        return
    _say(command, "warning", [w.message for w in caught])


def _say(command: str, kind: str, messages) -> None:
    """Print each message on stderr, as ``command: kind: ...`` unless it says its command
    already (``scancel: error: Kill job error ...``, ``scontrol update JobId=...: ...``)."""
    for message in messages:
        text = str(message)
        print(text if text.startswith(command) else f"{command}: {kind}: {text}", file=sys.stderr)


def _words(command: str, line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:  # unbalanced quotes
        raise SlurmlabError(f"{command} {line}: {exc}") from None


def scontrol_magic(line: str) -> None:
    """``%scontrol update JobId=12 TimeLimit=30``, ``%scontrol hold 12``: see the module."""

    def act() -> None:
        words = _words("scontrol", line)
        if not words:
            raise SlurmlabError(
                "give a command: update JobId=N [NumNodes=N] [TimeLimit=T] [Partition=P] "
                "[ArrayTaskThrottle=N], "
                f"or {', '.join(_JOB_COMMANDS)} followed by job ids"
            )
        command, rest = words[0].lower(), words[1:]
        lab = current_lab()
        if command in _JOB_COMMANDS:
            if not rest:
                raise SlurmlabError(f"scontrol {command}: give the job ids, e.g. {command} 12")
            ids = []
            for word in rest:  # (scontrol strips JobId= and Job=: update_job.c)
                key, eq, value = word.partition("=")
                if eq and key.lower() in ("jobid", "job"):
                    word = value
                elif eq:
                    raise SlurmlabError(
                        f"scontrol {command} {word}: slurmlab's %scontrol names jobs by id "
                        f"(JobId=12 or 12), not by {key}= (use lab.squeue() to find the ids)"
                    )
                ids.append(word)
            getattr(lab, command)(",".join(ids))
            return
        if command != "update":
            raise SlurmlabError(
                f"{words[0]!r}: slurmlab's %scontrol knows update, {', '.join(_JOB_COMMANDS)} "
                "(for show job/partition/node: %squeue, %sinfo, lab.sprio())"
            )
        jobid, changes = None, {}
        for word in rest:
            key, eq, value = word.partition("=")
            low = key.lower()
            if not eq or not value:
                raise SlurmlabError(f"update: {word!r}: expected Key=Value, e.g. TimeLimit=30")
            if low in ("jobid", "job"):
                jobid = value
            elif low in _UPDATE_KEYS:
                changes[_UPDATE_KEYS[low]] = value
            else:
                raise SlurmlabError(
                    f"update: {key}= is not one slurmlab changes (it changes NumNodes, "
                    "TimeLimit and Partition of a job, and an array's ArrayTaskThrottle)"
                )
        if jobid is None:
            raise SlurmlabError("update: give the job, e.g. update JobId=12 TimeLimit=30")
        nodes = changes.get("nodes")
        if nodes is not None and nodes.isdigit():
            changes["nodes"] = int(nodes)
        lab.update(jobid, **changes)

    _run("scontrol", act)


def sbatch_magic(line: str) -> None:
    """``%sbatch --wrap=hostname -t 5``: the ``%%sbatch`` cell magic without a cell, for a
    job whose script ``--wrap`` makes (sbatch reads no script then); prints ``Submitted
    batch job N`` as ``%%sbatch`` does. Without ``--wrap`` it is sbatch's "Batch script is
    empty!": write the script in a ``%%sbatch`` cell."""
    _sbatch_cell(line, "")


def scancel_magic(line: str) -> None:
    """``%scancel 12 14``: cancel jobs of the current lab."""

    def act() -> None:
        if not line.strip():
            raise SlurmlabError("give the job ids to cancel, e.g. scancel 12")
        current_lab().scancel(line.strip())

    _run("scancel", act)


def squeue_magic(line: str) -> None:
    """``%squeue [--start] [-r|--array] [-l|--long]``."""

    def act() -> None:
        flags = {"start": False, "array": False, "long": False}
        for word in _words("squeue", line):
            name = {"--start": "start", "-r": "array", "--array": "array", "-l": "long",
                    "--long": "long"}.get(word)  # fmt: skip
            if name is None:
                raise SlurmlabError(
                    f"{word!r}: slurmlab's %squeue takes --start, -r (--array) and -l (--long); "
                    "lab.squeue() is the table to filter"
                )
            flags[name] = True
        print(current_lab().squeue_text(**flags))

    _run("squeue", act)


def sinfo_magic(line: str) -> None:
    """``%sinfo``."""

    def act() -> None:
        if line.strip():
            raise SlurmlabError(
                f"{line.strip()!r}: slurmlab's %sinfo takes no options; lab.sinfo() is the "
                "table to filter"
            )
        print(current_lab().sinfo_text())

    _run("sinfo", act)


def sacct_magic(line: str) -> None:
    """``%sacct [-o|--format FIELDS] [-j|--jobs JOBS] [-S|--starttime TIME] [-D|--duplicates]
    [-X|--allocations] [-p|--parsable] [-P|--parsable2] [--array]``: ``-S`` read as sacct
    reads it (parse_time in the past: ``2026-01-05``, ``10:00`` today, ``now-2hours``,
    :func:`~slurmlab.spec.parse_time.read_past_time`), the start of the window of
    :meth:`~slurmlab.sim.result.SimulationResult.sacct_text`'s ``starttime`` (without it
    and ``-j``, sacct's window starts at midnight of the simulated day); ``-X`` changes
    nothing (a simulation has no job steps: every line is an allocation)."""

    def act() -> None:
        words = _words("sacct", line)
        given: dict[str, str] = {}  # fields, jobs, starttime
        duplicates = array = parsable = parsable2 = False
        i = 0
        while i < len(words):
            word = words[i]
            if word in ("-D", "--duplicates"):
                duplicates = True
            elif word == "--array":  # (newer sacct's: one line per array task)
                array = True
            elif word in ("-X", "--allocations"):  # (every line already is one)
                pass
            elif word in ("-p", "--parsable", "-P", "--parsable2"):  # (the last one counts)
                parsable2 = word in ("-P", "--parsable2")
                parsable = not parsable2
            else:
                for key, short, long, example in _SACCT_VALUED:
                    if word in (short, long):
                        i += 1
                        if i == len(words):
                            raise SlurmlabError(f"{word} needs {example}")
                        given[key] = _joined(given.get(key), words[i], key)
                        break
                    if word.startswith((f"{long}=", short)):
                        value = word[len(long) + 1 :] if word[1] == "-" else word[2:]
                        given[key] = _joined(given.get(key), value, key)
                        break
                else:
                    raise SlurmlabError(
                        f"{word!r}: slurmlab's %sacct takes -o FIELDS, -j JOBS, -S TIME, -D, "
                        "-X, -p, -P and --array; lab.sacct() is the table to filter"
                    )
            i += 1
        lab = current_lab()
        if "starttime" in given:  # (sacct reads -S with parse_time, in the past)
            given["starttime"] = pd.Timestamp(
                read_past_time(given["starttime"], lab.date, what="sacct -S")
            )
        text = lab.sacct_text(
            given.get("fields"),
            duplicates=duplicates,
            array=array,
            jobs=given.get("jobs"),
            starttime=given.get("starttime"),
            parsable=parsable,
            parsable2=parsable2,
        )
        print(text)
        header = 1 if parsable or parsable2 else 2  # (-p, -P: no line of dashes)
        if "jobs" in given and len(text.splitlines()) <= header:  # (the header alone)
            words = [w for w in re.split(r",(?![^\[]*\])", given["jobs"]) if w]
            unknown = [w for w in words if lab.sim._ids_of(w) is None]  # noqa: SLF001
            why = (
                f"no job {', '.join(unknown)} was submitted"
                if unknown
                else "a task scancel took out of its array's pending record has no line of "
                "its own (%sacct --array lists every task)"
            )
            print(f"(slurmlab) sacct lists nothing for -j {given['jobs']}: {why}", file=sys.stderr)
        window = None if "jobs" in given else given.get("starttime")
        before = (
            [] if "jobs" in given else lab.result.sacct_before_window(duplicates, starttime=window)
        )
        if before:  # (sacct's default window starts at midnight: jobs of yesterday vanish)
            shown = ", ".join(before[:8]) + (", ..." if len(before) > 8 else "")
            since = lab.result.sacct_window(window)
            print(
                f"(slurmlab) not listed: {shown}, which ended before {since:%Y-%m-%dT%H:%M:%S}"
                f"; sacct lists the jobs not ended before its -S time, midnight today without "
                f"one: %sacct -S {lab.result.origin:%Y-%m-%d} lists every job since the start",
                file=sys.stderr,
            )
        hidden = (
            []
            if array or "jobs" in given
            else lab.result.sacct_unlisted(duplicates, starttime=window)
        )
        if hidden:  # (sacct says nothing of them: a learner wonders where the job went)
            shown = ", ".join(hidden[:8]) + (", ..." if len(hidden) > 8 else "")
            numbers = ",".join(dict.fromkeys(k.split("_")[0] for k in hidden))
            print(
                f"(slurmlab) not listed: {shown}. sacct lists only jobs with an eligible time "
                "by now: a job held, or waiting for a dependency, a begin time, a reservation "
                "or its array's throttle, has none yet, and scontrol hold clears it for good "
                f"(even a running job's); %sacct -j {numbers} lists them",
                file=sys.stderr,
            )

    _run("sacct", act)


def _joined(before: str | None, value: str, key: str) -> str:
    """A repeated -o or -j adds to the list, as sacct's options.c does (``-o JobID -o State``
    is ``-o JobID,State``); a repeated -S replaces the time."""
    return value if before is None or key == "starttime" else f"{before},{value}"


#: %sacct's options that take a value: (what it sets, -x, --long, what it needs)
_SACCT_VALUED = (
    ("fields", "-o", "--format", "a field list, e.g. -o JobID,State"),
    ("jobs", "-j", "--jobs", "a job list, e.g. -j 12,14_3"),
    ("starttime", "-S", "--starttime", "a time, e.g. -S 2026-01-05, -S 10:00 or -S now-2hours"),
)


#: name -> line magic, registered by ``%load_ext slurmlab``
MAGICS = {
    "sbatch": sbatch_magic,
    "scontrol": scontrol_magic,
    "scancel": scancel_magic,
    "squeue": squeue_magic,
    "sinfo": sinfo_magic,
    "sacct": sacct_magic,
}
