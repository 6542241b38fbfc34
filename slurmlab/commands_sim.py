"""``slurmlab simulate``: run a scenario file or an SWF trace under a policy.

An input is an SWF trace by its name (``.swf``, ``.swf.gz``) or else by its content (``;``
comment lines and records of whitespace-separated numbers, plain or gzipped), so that
``<(zcat trace.swf.gz | head -500)`` and ``trace.txt`` are traces too; anything else is a
scenario (YAML or JSON). A pipe can be read only once: it is copied to a temporary file.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import json
import math
import numbers
import re
import shutil
import sys
import tempfile
import warnings
import zlib
from dataclasses import fields
from pathlib import Path

from slurmlab.errors import SlurmlabError
from slurmlab.paths import check_distinct, check_writable
from slurmlab.policies.backfill import POLICIES

__all__ = ["add_subcommands"]


SIMULATE_JSON_KEYS = """\
simulate --json prints one object with these keys (null where a mean has no job to
average: none started, or none ended):
  policy                 the policy simulated
  params                 {parameter: value}: the policy's parameters as used (the slurm
                         policy: its SchedulerParameters, from the cluster's slurm.conf
                         and the scenario); {} for the other policies
  jobs, started, completed, backfilled, requeues
                         counts of jobs, each once by its last run; backfilled: under easy
                         and conservative, started while a job of their partition waited
                         ahead of them; under slurm, started by its backfill cycles (fewer
                         than real Slurm's sdiag: see metrics.py); requeues: every requeue
  states                 {State: jobs}: each job's final state
  mean_wait_s, median_wait_s, p95_wait_s
                         seconds from Submit to Start, over the jobs that started
  mean_bounded_slowdown  mean of max(1, (wait + run) / max(run, 10 s)), jobs that ended
  utilization, gpu_utilization
                         fractions (0 to 1) of the CPUs' (GPUs') capacity used from the
                         first Submit to the last End of a job that ran (or to --until)
  makespan_s             seconds from the first Submit to the last End of a job that ran
                         (or to --until)
  cpu_hours, gpu_hours   CPU-hours and GPU-hours allocated, over every run
  goodput                useful / allocated GPU-hours (CPU-hours without GPUs), 0 to 1
  gpu_hours_allocated, gpu_hours_useful, gpu_hours_lost, gpu_hours_lost_to_failures,
  gpu_hours_checkpointing, gpu_hours_restarting
                         GPU-hours; lost: work since the last checkpoint when a run was
                         cut (to_failures: by NODE_FAIL or PREEMPTED)
  mean_time_to_recovery_s
                         seconds from a failed run's end to the job's next start
  wall_s                 seconds the simulation took on this computer (differs each run)
  procs                  the machine's processors (CPUs of all its nodes)
  dropped                jobs of an SWF trace left out when it was read: always those with
                         no processors or an unknown run time (SWF -1), and with
                         --skip-invalid those the machine cannot run (0 for a scenario)
  dropped_why            {reason: jobs}: why they were left out; each reason is a short
                         English phrase (e.g. "wider than the machine"), for people to
                         read: compare dropped, not these keys, in a script
"""


def add_subcommands(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate a scenario (.yaml/.json) or an SWF trace (.swf, .swf.gz)",
        description="Simulate a scenario file or a Standard Workload Format trace.",
        epilog=SIMULATE_JSON_KEYS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "input",
        help="scenario file (YAML or JSON) or SWF trace, plain or gzipped: a trace by its name "
        "(.swf, .swf.gz) or else by its content (';' comment lines, records of 18 numbers), "
        "so a pipe such as <(zcat trace.swf.gz | head -500) works",
    )
    p.add_argument(
        "--policy",
        choices=sorted(POLICIES),
        help="the scheduling policy (default: the scenario's own; easy for an SWF trace)",
    )
    p.add_argument("--cluster", help="a preset name or a slurm.conf path (overrides the input's)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        type=_param,
        metavar="NAME=VALUE",
        help="a policy parameter, e.g. --param bf_max_job_user=20 (repeat for more); it adds "
        "to or overrides the scenario's and the cluster's SchedulerParameters",
    )
    p.add_argument(
        "--procs",
        type=_procs,
        help="SWF: machine size in processors (default: the header's MaxProcs, else MaxNodes, "
        "else the widest job, with a warning)",
    )
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="SWF: drop and count the jobs the machine cannot run (wider than it; on a "
        "--cluster, also over its partition's MaxTime) instead of stopping at the first",
    )
    p.add_argument(
        "--jobs-out", help="write the job table as CSV (times in seconds from the start)"
    )
    p.add_argument("--duplicates", action="store_true", help="--jobs-out: every run, as sacct -D")
    p.add_argument(
        "--sacct-out",
        help="write every run as a sacct export (sacct -a -P -D, dates from the scenario's "
        "origin, plus slurmlab's own Restarts column, which sacct 22.05 has not) that "
        "slurmlab summary and slurmlab report read",
    )
    p.add_argument(
        "--until",
        help="stop at this simulated time (seconds, 3d, or a date and time); jobs still "
        "pending or running then are reported so",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the metrics as one JSON object (its keys: below)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--progress",
        action="store_true",
        help="show the progress bar (on stderr; runs of 1,000 jobs or more) even when stderr "
        "is not a terminal, where it is off by default",
    )
    p.set_defaults(func=run_simulate)


def _param(text: str) -> tuple[str, int | float]:
    """``--param NAME=VALUE``: a policy parameter and its number (argparse reports the
    error); whether the policy simulated takes it is checked when it is made."""
    name, eq, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not eq or not name:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not NAME=VALUE; write e.g. --param bf_max_job_user=20"
        )
    known = sorted(
        {f.name for cls in POLICIES.values() for f in fields(cls)} - {"name", "interval"}
    )
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        raise argparse.ArgumentTypeError(
            f"{name!r} is no policy parameter"
            + (f" (did you mean {close[0]}?)" if close else "")
            + f"; the policies take {', '.join(known)}"
        )
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: {value!r} is not a number; write e.g. --param {name}=20"
        ) from None
    return name, int(number) if number.is_integer() else number


def _procs(text: str) -> int:
    """``--procs N``: a whole number of at least 1 (argparse reports the error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a machine size: give a whole number of processors, at least 1"
        )
    return value


_KINDS = "a scenario (.yaml, .yml, .json) or an SWF trace (.swf, .swf.gz, or by its content)"
#: How much of an input is looked at to tell an SWF trace from a scenario.
_SNIFF_BYTES = 1 << 16
_GZIP = b"\x1f\x8b"


def _is_swf(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".swf") or name.endswith(".swf.gz")


def _cannot_read(path: Path, exc: OSError) -> SlurmlabError:
    fix = "; check its permissions" if exc.errno in (errno.EACCES, errno.EPERM) else ""
    return SlurmlabError(f"input {str(path)!r} cannot be read ({exc.strerror or exc}){fix}")


def _check_input(path: Path, folder: Path | None = None) -> tuple[bool, Path]:
    """Raise unless ``path`` is an SWF trace or a text (scenario) file; return whether it is
    an SWF trace, and the file to read it from: ``path``, or for a pipe (which can be read
    once only) a copy of it in ``folder`` (a temporary folder the caller removes)."""
    if not path.exists():
        stdin = (
            " ('-' names no standard input here: give the file, or a pipe as one, <(zcat ...))"
            if str(path) == "-"
            else ""
        )
        raise SlurmlabError(f"input {str(path)!r} does not exist; give {_KINDS}{stdin}")
    if path.is_dir():
        raise SlurmlabError(f"input {str(path)!r} is a directory; give {_KINDS}")
    if _is_swf(path):
        return True, path
    pipe = not path.is_file()  # (<(...), /dev/stdin)
    if pipe and folder is None:
        raise SlurmlabError(f"input {str(path)!r} is not a file; give {_KINDS}")
    try:
        if pipe:
            copy = folder / "input"
            with open(path, "rb") as src, open(copy, "wb") as dst:
                head = src.read(_SNIFF_BYTES)
                dst.write(head)
                shutil.copyfileobj(src, dst)
        else:
            with open(path, "rb") as fh:
                head = fh.read(_SNIFF_BYTES)
            copy = path
        swf = _looks_like_swf(head)
        if not swf:  # any other input is read as a scenario, so it must be text
            _check_scenario_text(path, copy.read_bytes())
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    if pipe:  # (named by what it holds; messages name the input as given)
        named = copy.with_name("input.swf.gz" if head.startswith(_GZIP) else "input.swf")
        copy = copy.rename(named if swf else copy.with_name("input.yaml"))
    return swf, copy


def _sniffed_lines(head: bytes) -> list[str]:
    """The first lines of an input that are not blank, decompressed if gzipped; the last
    one left out when it may be cut (the rest of the input was not read)."""
    cut = len(head) >= _SNIFF_BYTES
    if head.startswith(_GZIP):
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, _SNIFF_BYTES)
        except zlib.error:
            return []
        cut = True
    lines = [line.strip() for line in head.decode("utf-8", errors="replace").splitlines()]
    lines = [line.lstrip("\ufeff") for line in lines if line.strip()]
    return lines[:-1] if cut and len(lines) > 1 else lines


def _looks_like_swf(head: bytes) -> bool:
    """SWF (plain or gzipped): it starts with a ``;`` comment line (its header) or with a
    record, whitespace-separated numbers (18 of them; the reader checks each record). A
    scenario starts with neither: YAML comments are ``#``, JSON starts ``{``."""
    lines = _sniffed_lines(head)
    if not lines:
        return False
    if lines[0].startswith(";"):
        return True
    fields = lines[0].split()
    return len(fields) >= 2 and all(_is_number(field) for field in fields)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_scenario_text(path: Path, data: bytes) -> None:
    """Raise unless ``data`` can be a scenario: text, and not a sacct export (-P or --json),
    which the other commands read."""
    analyse = f"analyse an export with `slurmlab summary {path}` or `slurmlab report {path}`"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if data.startswith(_GZIP):
            lines = _sniffed_lines(data[:_SNIFF_BYTES])
            if lines and _looks_like_sacct(lines[0]):
                raise SlurmlabError(
                    f"input {str(path)!r} is a gzip-compressed sacct export (its first line "
                    f"is the header {lines[0][:60]!r}); slurmlab simulate reads {_KINDS}: "
                    f"{analyse} (they read it compressed)"
                ) from None
            hint = (
                "it is gzip-compressed, and its text is neither an SWF trace (';' comment "
                "lines, records of numbers) nor a sacct export; if it is a gzipped SWF "
                "trace, name it NAME.swf.gz to read it as one"
            )
        else:
            from slurmlab.records.swf import OTHER_COMPRESSION

            packed = next((v for k, v in OTHER_COMPRESSION.items() if data.startswith(k)), None)
            hint = (
                f"it is {packed[0]}-compressed: decompress it first ({packed[1]}), then give "
                "the .swf (or gzip it: slurmlab reads .swf.gz)"
                if packed
                else "it is a binary file, not scenario text"
            )
        raise SlurmlabError(
            f"input {str(path)!r} is neither a scenario nor an SWF trace ({hint}); "
            f"slurmlab simulate reads {_KINDS}"
        ) from None
    first = next((line for line in text.splitlines() if line.strip()), "")
    if _looks_like_sacct(first):
        raise SlurmlabError(
            f"input {str(path)!r} looks like a sacct export (its first line is the header "
            f"{first[:60]!r}); slurmlab simulate reads {_KINDS}: {analyse}"
        )
    if text.lstrip("\ufeff \t\r\n").startswith("{"):
        try:
            doc = json.loads(text.lstrip("\ufeff"))
        except ValueError:
            return  # (the scenario reader names the line)
        if isinstance(doc, dict) and "meta" in doc and isinstance(doc.get("jobs"), list):
            raise SlurmlabError(
                f"input {str(path)!r} is a sacct --json export (top-level 'meta' and "
                f"'jobs'), not a scenario; slurmlab simulate reads {_KINDS}: {analyse}"
            )


def _looks_like_sacct(line: str) -> bool:
    """A header of sacct field names split by ``|`` (``sacct -P``'s first line)."""
    from slurmlab.records.sacct import SACCT_FIELDS

    names = [n.strip().lower() for n in line.split("|") if n.strip()]
    known = {f.lower() for f in SACCT_FIELDS}
    return len(names) >= 2 and sum(n in known for n in names) >= max(2, len(names) // 2)


#: The Python API's words in messages -> the command line's flags.
_CLI_WORDS = (
    (re.compile(r" \((skip_invalid=True|procs=N)\)"), ""),
    (re.compile(r"(?<![-\w])until=('[^']*'|\S+)"), r"--until \1"),
    (re.compile(r"\(cluster= in Python, --cluster on the command line\)"), "(--cluster)"),
    (re.compile(r"(?<![-\w])policy='(\w+)'"), r"--policy \1"),
)


def _cli_words(text: str, renames: list[tuple[str, str]] = ()) -> str:
    """A message of the Python API in the words of the command line; ``renames``: (the
    temporary copy of a piped input, the input as given)."""
    for pattern, replacement in _CLI_WORDS:
        text = pattern.sub(replacement, text)
    for copy, given in renames:
        text = text.replace(repr(copy), repr(given)).replace(copy, given)
    return text


def _check_options(args, swf: bool) -> None:
    """Options that do not apply to this input are errors, not silently ignored."""
    if args.quiet and args.progress:
        raise SlurmlabError("give --quiet (no progress bar) or --progress, not both")
    if args.duplicates and not args.jobs_out:
        raise SlurmlabError(
            "--duplicates applies to --jobs-out (it writes every run of a requeued job, as "
            "sacct -D, into that CSV); add --jobs-out FILE.csv, or leave --duplicates out"
        )
    if not swf:
        for flag, given in (
            ("--procs", args.procs is not None),
            ("--skip-invalid", args.skip_invalid),
        ):
            if given:
                raise SlurmlabError(
                    f"{flag} applies to SWF traces only, and {args.input!r} is a scenario "
                    "(its cluster section sets the machine; --cluster overrides it)"
                )
    elif args.procs is not None and args.cluster:
        raise SlurmlabError(
            f"give --procs {args.procs} (a pool of that many processors) or --cluster "
            f"{args.cluster}, not both: the trace runs on one machine"
        )
    _check_until(args.until)


#: How --until is read, for its errors.
_UNTIL_HELP = (
    "--until is a time counted from the simulation's start (seconds, e.g. 3600, 3d or "
    "1:00:00) or a date and time (e.g. 2026-01-05T10:00)"
)


def _check_until(until: str | None, origin=None) -> None:
    """--until, with the reason it cannot be read: a negative time, one beyond what
    slurmlab reads (about 31 years), a date past that from ``origin`` (the input's start;
    None: not known yet) or past what pandas' times hold (the year 2262)."""
    import pandas as pd

    from slurmlab.spec.units import MAX_SECONDS, parse_seconds

    if until is None:
        return
    if not re.match(r"\s*[0-9]{4}-[0-9]{2}-[0-9]{2}", until):  # (not a date: a time)
        try:
            parse_seconds(until, what="until")
        except SlurmlabError as exc:  # (its words list the forms, or say what is wrong)
            said = (
                f"{exc}, or a date and time (e.g. 2026-01-05T10:00)"
                if "give seconds" in str(exc)
                else f"{exc}; {_UNTIL_HELP}"
            )
            raise SlurmlabError(said) from None
        return
    try:
        stamp = pd.Timestamp(until)
    except (ValueError, OverflowError):  # (not a date: the simulation's reader says why)
        return
    if stamp.tz is not None:
        return  # (the simulation's reader says what it makes of a zone)
    if stamp > pd.Timestamp.max:
        raise SlurmlabError(
            f"invalid until {until!r}: after {pd.Timestamp.max:%Y-%m-%d}, the last time "
            "pandas (and the job table's times) can hold; give an earlier date"
        )
    if origin is None or origin.tz is not None:  # (a zone: the simulation's reader says)
        return
    if stamp > origin + pd.Timedelta(seconds=MAX_SECONDS):
        days = (stamp.to_pydatetime() - origin.to_pydatetime()).days
        raise SlurmlabError(
            f"invalid until {until!r}: {days} days after the simulation's start "
            f"({origin}), over {MAX_SECONDS:.0e} s (about 31 years), the longest time "
            "slurmlab reads; give an earlier date"
        )


def _check_sacct_ids(scenario, path: Path) -> None:
    """--sacct-out: every job id must read back from a sacct export (write_sacct's rule)."""
    from slurmlab.records.sacct import writable_id

    bad = [j.id for j in scenario.workload.jobs if j.id is not None and not writable_id(j.id)]
    if bad:
        raise SlurmlabError(
            f"--sacct-out: {path}: job id {bad[0]!r} would not read back from a sacct export "
            "(a JobID is sacct's own, 123 or 123_4, or a name: a letter first, then no '.', "
            "'+', '[', ']' or space, which would read as a step, a het-job component or an "
            "array range); rename it (e.g. with '-' for '.'), or leave --sacct-out out"
        )


def _shown(path: Path) -> str:
    """A resolved path as written from here: relative to the current folder when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def run_simulate(args) -> int:
    """``slurmlab simulate``: errors and warnings in the command line's words."""
    renames: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="slurmlab-") as folder:
        try:
            return _simulate(args, Path(folder), renames)
        except SlurmlabError as exc:
            text = _cli_words(str(exc), renames)
            if text == str(exc):
                raise
            raise SlurmlabError(text) from None


def _simulate(args, folder: Path, renames: list[tuple[str, str]]) -> int:
    from slurmlab.cli import load_cluster
    from slurmlab.records.swf import SwfDropWarning, read_swf, swf_cluster
    from slurmlab.scenario import DefaultClusterWarning, Scenario
    from slurmlab.sim.simulate import simulate

    swf, path = _check_input(Path(args.input), folder)
    if str(path) != args.input and path.parent == folder:
        renames.append((str(path), args.input))
    _check_options(args, swf)
    outputs = [
        ("--jobs-out", args.jobs_out, "jobs.csv"),
        ("--sacct-out", args.sacct_out, "jobs.psv"),
    ]
    inputs = [
        ("the input trace" if swf else "the input scenario", args.input),
        ("the --cluster slurm.conf", args.cluster),
    ]
    if args.cluster and Path(args.cluster).is_file():  # (not a preset's name)
        from slurmlab.spec.slurm_conf import included_files

        what = "a file the --cluster slurm.conf includes"
        inputs += [(what, _shown(p)) for p in included_files(args.cluster)]
    check_distinct(inputs, outputs)
    for flag, out, example in outputs:
        if out:
            check_writable(Path(out), flag, example)
    # (a bar redrawn into a file or a pipe fills it: only on a terminal, unless asked for)
    progress = not args.quiet and (args.progress or sys.stderr.isatty())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if swf:
            cluster = load_cluster(args.cluster) if args.cluster else None
            workload = read_swf(
                path, procs=args.procs, skip_invalid=args.skip_invalid, cluster=cluster
            )
            cluster = cluster or swf_cluster(workload.max_procs)
            _check_until(args.until, workload.origin)
            result = simulate(
                cluster,
                workload,
                args.policy or "easy",
                progress=progress,
                until=args.until,
                **dict(args.param),
            )
        else:
            with warnings.catch_warnings():
                if args.cluster:  # (the scenario's own cluster is not used: no default to name)
                    warnings.filterwarnings("ignore", category=DefaultClusterWarning)
                scenario = Scenario.load(path)
            workload = scenario.workload
            _check_until(args.until, workload.origin)
            named = [(what, _shown(path)) for what, path in scenario.named_sources()]
            check_distinct(named, outputs)
            if args.cluster:  # checked again on that cluster: errors name file and entry
                scenario = scenario.with_cluster(load_cluster(args.cluster))
            if args.sacct_out:  # (before simulating: the export is written after)
                _check_sacct_ids(scenario, path)
            if args.policy and args.policy != scenario.policy and scenario.policy_params:
                given = ", ".join(f"{k}={v}" for k, v in scenario.policy_params.items())
                warnings.warn(
                    f"{_shown(path)}: --policy {args.policy} replaces the scenario's policy "
                    f"{scenario.policy!r}, and its parameters ({given}) are left out: they "
                    f"are {scenario.policy!r}'s",
                    stacklevel=1,
                )
            result = scenario.run(
                args.policy, progress=progress, until=args.until, **dict(args.param)
            )
    dropped_why: dict[str, int] = {}
    for w in caught:
        print(f"slurmlab: warning: {_cli_words(str(w.message), renames)}", file=sys.stderr)
        if isinstance(w.message, SwfDropWarning):
            for why, count in w.message.counts.items():
                dropped_why[why] = dropped_why.get(why, 0) + count
    metrics = result.metrics
    if not metrics["jobs"] and len(workload) and args.until is not None:
        first = min(job.submit for job in workload)
        print(
            f"slurmlab: warning: {args.input}: no job is submitted before --until "
            f"{args.until}: {_first_of(len(workload))} is submitted at {first:g} s "
            "(jobs not submitted by then are left out); waits and slowdown below are "
            "undefined (n/a; null in --json), utilization and makespan 0",
            file=sys.stderr,
        )
    elif not metrics["jobs"]:
        print(
            f"slurmlab: warning: {args.input}: no jobs to simulate: waits and slowdown below "
            "are undefined (n/a; null in --json), utilization and makespan 0",
            file=sys.stderr,
        )
    elif args.until is not None and metrics["started"] < metrics["jobs"]:
        waiting = metrics["jobs"] - metrics["started"]
        print(
            f"slurmlab: warning: {args.input}: at --until {args.until}, {waiting} of its "
            f"{_n(metrics['jobs'], 'job')} submitted by then had not started: waits and slowdown "
            "below count only the jobs that started, so a policy that leaves jobs waiting "
            "looks better; compare policies over the whole run, or on the same started jobs "
            "(--jobs-out)",
            file=sys.stderr,
        )
    # (jobs that never started: simulate warns, a warning line here)
    if args.jobs_out:
        write_jobs_csv(result, args.jobs_out, duplicates=args.duplicates)
    if args.sacct_out:
        from slurmlab.records.sacct import write_sacct

        try:
            write_sacct(result.sacct(duplicates=True), args.sacct_out)
        except OSError as exc:  # (a disk full, a folder removed meanwhile)
            raise SlurmlabError(
                f"--sacct-out {args.sacct_out!r}: cannot write it ({exc.strerror or exc}); "
                "choose another path"
            ) from None
    if args.json:
        # what utilization is a fraction of, and what the SWF reader left out
        machine = {
            "params": result.params,
            "procs": sum(n.cpus for n in result.cluster.nodes),
            "dropped": workload.dropped if swf else 0,
            "dropped_why": dropped_why,
        }
        print(json.dumps(_json_ready(metrics | machine), default=float, allow_nan=False))
    else:
        # (a cluster without GPUs has no GPU utilization to speak of, rather than 0 %)
        gpus = result.cluster.tres().get("gres/gpu", 0)
        gpu = f" (GPU {metrics['gpu_utilization']:.1%})" if gpus else ""
        # failures: what a checkpointing scenario is about
        failed = metrics["requeues"] or metrics["gpu_hours_lost"] > 0
        lost = (
            f"goodput {metrics['goodput']:.1%}, requeues {metrics['requeues']}, " if failed else ""
        )
        # a requeued job waits once per run: its wait is counted to its last start
        last = " (each job's last run)" if metrics["requeues"] else ""
        # a mean over no job (none started, none ended) is n/a, as --json's null, not "nan"
        waits = [
            _mean(metrics[k], ".0f", " s") for k in ("mean_wait_s", "median_wait_s", "p95_wait_s")
        ]
        waits[0] += last if waits[0] != "n/a" else " (no job started)"
        slowdown = _mean(metrics["mean_bounded_slowdown"], ".2f")
        slowdown += " (no job ended)" if slowdown == "n/a" and waits[1] != "n/a" else ""
        print(f"policy {metrics['policy']}: {_n(metrics['jobs'], 'job')}, "
              f"mean wait {waits[0]}, median wait {waits[1]}, p95 wait {waits[2]}, "
              f"mean bounded slowdown {slowdown}, "
              f"utilization CPU {metrics['utilization']:.1%}{gpu}, {lost}"
              f"makespan {metrics['makespan_s']:.0f} s, backfilled {metrics['backfilled']}, "
              f"{metrics['wall_s']:.2f} s wall")  # fmt: skip
    return 0


def _n(count: int, word: str) -> str:
    """``1 job``, ``2 jobs``, ``0 jobs``: a count and its noun."""
    return f"{count} {word}{'s' * (count != 1)}"


def _first_of(jobs: int) -> str:
    """``the first of its 3 jobs``; ``its one job``."""
    return "its one job" if jobs == 1 else f"the first of its {jobs} jobs"


def _mean(value, spec: str, unit: str = "") -> str:
    """``value`` formatted with ``spec`` and ``unit``; n/a for a mean over no job (NaN)."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:{spec}}{unit}"


def _json_ready(value):
    """``value`` with NaN and infinities as None (JSON null): JSON has no NaN."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        return None
    return value


def write_jobs_csv(result, path: str, *, duplicates: bool = False) -> None:
    """The job table as CSV with Submit/Eligible/Start/End in seconds from the start."""
    table = result.sacct(duplicates=duplicates).copy()
    for col in ("Submit", "Eligible", "Start", "End"):
        table[col] = (table[col] - result.origin).dt.total_seconds()
    for col in ("Elapsed", "Timelimit"):
        table[col] = table[col].dt.total_seconds()
    try:
        table.to_csv(path, index=False)
    except OSError as exc:
        raise SlurmlabError(
            f"--jobs-out {str(path)!r}: cannot write it ({exc}); choose another path"
        ) from None
