"""Line magics for notebooks (``%load_ext slurmlab``): Slurm's commands, typed as on a login
node, on the current :class:`~slurmlab.sim.lab.Lab` (the one ``%%sbatch`` submits to): the
most recently created lab still in use, not one the notebook deleted (``del lab``) or
replaced (``lab = slurmlab.Lab(...)`` again; :func:`follow_names`).

* ``%squeue [--start] [-r] [-l]``, ``%sinfo``, ``%sacct [-o FIELDS] [-j JOBS] [-S TIME] [-D]
  [-X] [-p|-P] [--array]``: print the lab's views as the commands print them;
* ``%scancel 12 14``, ``%scancel [-u USER|--me] [-t STATE] [-n NAME] [-p PARTITION] [ids]``;
* ``%sbatch --wrap=COMMAND [--runtime DURATION] [sbatch options]``: submit a job without a
  script, as ``sbatch --wrap`` does (IPython refuses a ``%%sbatch`` cell with an empty
  body; ``%%sbatch --wrap=...`` over a blank cell body works too);
* ``%scontrol update JobId=12 [NumNodes=N] [TimeLimit=T] [Partition=P]
  [ArrayTaskThrottle=N]`` (``TimeLimit+=T``/``-=T``, ``Key Value`` words, keys cut short as
  scontrol allows: ``TimeL=30``), ``%scontrol hold|release|requeue|requeuehold 12,14``.

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
import weakref

import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.records.schema import STATE_ABBREVIATIONS, STATES
from slurmlab.sim.lab import Lab, current_lab, let_go
from slurmlab.sim.lab import sbatch_magic as _sbatch_cell
from slurmlab.sim.result import squeue_frame
from slurmlab.spec.parse_time import read_past_time

__all__ = ["MAGICS", "follow_names"]

#: scontrol update's keys slurmlab changes, in update_job.c's order: (key, the fewest letters
#: it may be cut to, Lab.update's argument; None: the job)
_UPDATE_KEYS = (
    ("JobId", 3, None),
    ("ArrayTaskThrottle", 10, "throttle"),
    ("TimeLimit", 5, "time"),
    ("ReqNodes", 8, "nodes"),
    ("NumNodes", 8, "nodes"),
    ("Partition", 2, "partition"),
)
#: update_job.c's keys that take no value, with the fewest letters they may be cut to
_UPDATE_FLAGS = (("Nice", 2), ("ResetAccrueTime", 3))
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
        jobid, changes = _update_request(rest)
        lab.update(jobid, **changes)

    _run("scontrol", act)


def _abbreviates(tag: str, key: str, fewest: int) -> bool:
    """Whether update_job.c's ``xstrncasecmp(tag, key, MAX(taglen, fewest))`` matches: ``tag``
    is ``key`` or ``key`` cut to at least ``fewest`` letters, in any case (``TimeL``)."""
    return fewest <= len(tag) <= len(key) and key.lower().startswith(tag.lower())


def _not_changed(key: str) -> SlurmlabError:
    return SlurmlabError(
        f"update: {key} is not one slurmlab changes (it changes NumNodes, TimeLimit and "
        "Partition of a job, and an array's ArrayTaskThrottle)"
    )


def _update_request(words: list[str]) -> tuple[str, dict]:
    """(the job, Lab.update's arguments) of ``scontrol update``'s words, read as update_job.c
    ``scontrol_update_job`` reads them, one after the other: ``Key=Value``, or ``Key Value``
    (a word without '=' takes the next one as its value), keys in any case and cut short
    (:func:`_abbreviates`); ``TimeLimit+=30``, ``TimeLimit-=30`` and ``TimeLimit=+30`` change
    the limit by that much (of one job: JobId= first); ``+=``/``-=`` on any other key is
    refused."""
    jobid, changes = None, {}
    i = 0
    while i < len(words):
        word, i = words[i], i + 1
        tag, eq, value = word.partition("=")
        sign = ""
        if eq and tag[-1:] in ("+", "-"):
            sign, tag = tag[-1], tag[:-1]
        elif not eq:
            if any(_abbreviates(tag, key, fewest) for key, fewest in _UPDATE_FLAGS):
                raise _not_changed(tag)  # (Nice, ResetAccrueTime: no value)
            if i == len(words):
                raise SlurmlabError(
                    f"update: Invalid input: {word} (Request aborted): give Key=Value or Key "
                    "Value, e.g. TimeLimit=30"
                )
            value, i = words[i], i + 1
        found = [(k, a) for k, fewest, a in _UPDATE_KEYS if _abbreviates(tag, k, fewest)]
        if not found:
            raise _not_changed(f"{tag}=" if eq else tag)
        key, arg = found[0]
        if key == "TimeLimit" and value[:1] in ("+", "-"):
            if sign:
                raise SlurmlabError(
                    f"update: {word}: Invalid syntax, variations of +=- are not accepted "
                    "(write TimeLimit+=30 or TimeLimit=+30)"
                )
            sign, value = value[0], value[1:]
        if not value:
            raise SlurmlabError(f"update: {word}: no value; give one, e.g. TimeLimit=30")
        if sign and key != "TimeLimit":
            raise SlurmlabError(f"update: Option {word} does not accept [+|-]= syntax")
        if sign:
            _check_relative_job(jobid)
            value = sign + value
        if arg is None:
            jobid = value
        else:
            changes[arg] = int(value) if arg == "nodes" and value.isdigit() else value
    if jobid is None:
        raise SlurmlabError("update: give the job, e.g. update JobId=12 TimeLimit=30")
    return jobid, changes


def _check_relative_job(jobid: str | None) -> None:
    """A TimeLimit increment or decrement is of the one job JobId= named before it (the
    limit update_job.c ``_get_job_time`` reads): a job or an array task, not a list."""
    if jobid is None:
        raise SlurmlabError(
            "update: JobId must precede TimeLimit increment or decrement (write update "
            "JobId=12 TimeLimit+=30)"
        )
    if not re.fullmatch(r"\d+(_\d+)?", jobid):
        raise SlurmlabError(
            f"update: Invalid job ID {jobid} (a TimeLimit increment or decrement is of one "
            "job, 12 or 12_3: update each alone, or give TimeLimit=T)"
        )


def sbatch_magic(line: str) -> None:
    """``%sbatch --wrap=hostname -t 5``: the ``%%sbatch`` cell magic without a cell, for a
    job whose script ``--wrap`` makes (sbatch reads no script then); prints ``Submitted
    batch job N`` as ``%%sbatch`` does. Without ``--wrap`` it is sbatch's "Batch script is
    empty!": write the script in a ``%%sbatch`` cell."""
    _sbatch_cell(line, "")


def scancel_magic(line: str) -> None:
    """``%scancel 12 14``, ``%scancel -u you -t PENDING``: cancel jobs of the current lab
    (:func:`_scancel_filtered` for the filters)."""

    def act() -> None:
        ids, filters = _scancel_request(_words("scancel", line))
        if not ids and not filters:
            raise SlurmlabError("give the job ids to cancel, e.g. scancel 12")
        if filters:
            _scancel_filtered(ids, filters)
        else:
            current_lab().scancel(" ".join(ids))

    _run("scancel", act)


#: scancel's long options (src/scancel/opt.c ``_opt_args``) -> the letter or name it sets
_SCANCEL_LONG = {
    "account": "A", "batch": "b", "ctld": "ctld", "full": "f", "help": "help", "hurry": "H",
    "interactive": "i", "cluster": "M", "clusters": "M", "jobname": "n", "me": "me",
    "name": "n", "nodelist": "w", "partition": "p", "qos": "q", "quiet": "Q",
    "reservation": "R", "sibling": "sibling", "signal": "s", "state": "t", "usage": "usage",
    "user": "u", "verbose": "v", "version": "V", "wckey": "wckey",
}  # fmt: skip
#: scancel's options that take a value (its getopt string "A:bfHiM:n:p:Qq:R:s:t:u:vVw:")
_SCANCEL_VALUED = frozenset("AMnpqRstuw") | {"sibling", "wckey"}
#: the filters %scancel applies: option -> (its spelling, the squeue column it compares)
_SCANCEL_FILTERS = {
    "u": ("-u/--user", "USER"),
    "me": ("--me", "USER"),
    "t": ("-t/--state", "ST"),
    "n": ("-n/--name", "NAME"),
    "p": ("-p/--partition", "PARTITION"),
}
_SCANCEL_TAKES = (
    "job ids, -u/--user USER, --me, -t/--state STATE, -n/--name NAME and -p/--partition"
)


def _scancel_option(word: str) -> str:
    """The option a word names, as scancel's getopt_long reads it (a long name cut short
    while it names one option); refused if scancel has none."""
    if not word.startswith("--"):
        letter = word[1]
        if letter not in "AbfHiMnpQqRstuvVw":  # (scancel's getopt string)
            raise SlurmlabError(f"invalid option -- '{letter}' (%scancel takes {_SCANCEL_TAKES})")
        return letter
    name = word[2:].partition("=")[0]
    if name in _SCANCEL_LONG:
        return _SCANCEL_LONG[name]
    found = {_SCANCEL_LONG[n] for n in _SCANCEL_LONG if name and n.startswith(name)}
    if len(found) != 1:
        why = "ambiguous" if found else "unrecognized"
        raise SlurmlabError(f"{why} option '{word}' (%scancel takes {_SCANCEL_TAKES})")
    return found.pop()


def _scancel_request(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """(the job ids, the filters) of scancel's words, read as its getopt_long reads them:
    options anywhere among the ids, a value glued (``-uyou``, ``--user=you``) or the next
    word; a filter given twice keeps the last. Options slurmlab's %scancel does not take
    are refused by name."""
    ids: list[str] = []
    filters: dict[str, str] = {}
    i = 0
    while i < len(words):
        word, i = words[i], i + 1
        if word == "--":
            ids.extend(words[i:])
            break
        if not word.startswith("-") or word == "-":
            ids.append(word)
            continue
        key = _scancel_option(word)
        value = None
        if key in _SCANCEL_VALUED:
            glued = word.partition("=")[2] if word.startswith("--") else word[2:]
            if glued or "=" in word:
                value = glued
            elif i < len(words):
                value, i = words[i], i + 1
            else:
                raise SlurmlabError(f"option '{word}' requires an argument")
        if key not in _SCANCEL_FILTERS:
            raise SlurmlabError(
                f"{word}: slurmlab's %scancel does not take this scancel option; it takes "
                f"{_SCANCEL_TAKES}"
            )
        if key in ("u", "me"):
            filters.pop("u", None)
            filters.pop("me", None)
            value = "you" if key == "me" else value  # (a Lab's jobs are yours: user "you")
        elif key == "t":
            value = _scancel_state(value)
        filters[key] = value
    return ids, filters


def _scancel_state(text: str) -> str:
    """A job state as scancel's ``_xlate_state_name`` (job_state_num) reads it: a state's
    name or its compact code, in any case."""
    word = text.upper()
    state = STATE_ABBREVIATIONS.get(word, word)
    if state not in STATES:
        raise SlurmlabError(
            f"Invalid job state specified: {text}; Valid job states are PENDING, RUNNING, "
            "and SUSPENDED"
        )
    return {"PENDING": "PD", "RUNNING": "R", "SUSPENDED": "S"}.get(state, state)


def _scancel_filtered(ids: list[str], filters: dict[str, str]) -> None:
    """scancel with filters (scancel.c ``_verify_job_ids``, ``_filter_job_records``,
    ``_cancel_jobs``): of the jobs pending or running, each record (a job, an array task,
    an array's pending record) that matches every filter, by equal text (-n the job's name,
    -p its partition, -u its user, -t its state), and, with ids given, that one of them
    names, is cancelled whole; an id that names no job is scancel's error, once the others
    are cancelled. Nothing matching is no error (scancel says so only with -v)."""
    lab = current_lab()
    errors, named = [], None
    if ids:
        named = set()
        for one in ids:
            try:
                named.update(map(id, lab.sim._records(one, "scancel")))  # noqa: SLF001
            except SlurmlabError as exc:
                errors.append(str(exc))
    chosen = []
    for row in squeue_frame(lab.sim, collapse=True).itertuples(index=False):
        row = row._asdict()
        key = re.sub(r"%\d+\]$", "]", row["JOBID"])  # (12_[3-9%2]: the record 12_[3-9])
        if any(row[column] != filters[f] for f, (_, column) in _SCANCEL_FILTERS.items()
               if f in filters):  # fmt: skip
            continue
        if named is None or any(
            id(j) in named
            for j in lab.sim._records(key, "scancel")  # noqa: SLF001
        ):
            chosen.append(key)
    if chosen:
        lab.scancel(chosen)
    elif not errors:
        given = " ".join(f"{_SCANCEL_FILTERS[f][0]}={v}" for f, v in filters.items())
        print(f"(slurmlab) scancel: no active job matches all of {given}", file=sys.stderr)
    if errors:
        raise SlurmlabError("; ".join(errors))


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


def follow_names(ipython) -> None:
    """After each cell of ``ipython``, let go (:func:`~slurmlab.sim.lab.let_go`) each lab a
    variable of the notebook named and none names now: ``del lab``, or ``lab =
    slurmlab.Lab(...)`` run again, ends that lab's turn as the current one, even while
    IPython's ``Out`` history (a cell that ended in ``lab.advance("1h")``) still holds it. A
    lab no variable ever named (``slurmlab.Lab("tiny")`` alone in a cell) stays current."""
    named: weakref.WeakSet[Lab] = weakref.WeakSet()

    def after_cell(result=None) -> None:
        now = [
            value
            for key, value in list(ipython.user_ns.items())
            if isinstance(value, Lab) and not key.startswith("_")  # (not _, _5: Out's)
        ]
        for lab in list(named):
            if not any(lab is value for value in now):
                let_go(lab)
        named.clear()
        named.update(now)

    ipython.events.register("post_run_cell", after_cell)


#: name -> line magic, registered by ``%load_ext slurmlab``
MAGICS = {
    "sbatch": sbatch_magic,
    "scontrol": scontrol_magic,
    "scancel": scancel_magic,
    "squeue": squeue_magic,
    "sinfo": sinfo_magic,
    "sacct": sacct_magic,
}
