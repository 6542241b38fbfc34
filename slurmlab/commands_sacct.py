"""The sacct subcommands of ``slurmlab``: summary, report and anonymize.

``slurmlab.cli`` calls :func:`add_subcommands`; each command parses its arguments, calls the
public API and prints. A :class:`~slurmlab.SlurmlabError` (a :class:`SacctParseError` among
them) becomes one line on stderr and exit status 1 (2 is argparse's, for a wrong command
line: ``slurmlab.cli`` lists them). Messages written for the Python API
(``errors='warn'``, ``fields=...``) are shown with this command line's flags (``--errors
warn``, ``--fields``).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import warnings
from pathlib import Path

from slurmlab.cli import EXIT_INPUT
from slurmlab.errors import SlurmlabError
from slurmlab.paths import check_distinct, check_writable

__all__ = ["add_subcommands"]

#: The API's words in messages -> the command line's flags.
_CLI_WORDS = (
    (re.compile(r"errors='(raise|warn|coerce)'"), r"--errors \1"),
    (re.compile(r"fields=\[\.\.\.\] / --fields"), "--fields"),
    (re.compile(r"fields= / --fields"), "--fields"),  # (not "--fields / --fields")
    (re.compile(r"fields=\.\.\."), "--fields"),
    (re.compile(r"leave fields=None"), "leave out --fields"),
    (re.compile(r"(?<![-\w])fields=(?=[)\s;,])"), "--fields"),  # ("... written with (fields=)")
    # (the table's attrs are the Python API's: the command line has none to look in)
    (re.compile(r",? and attrs\['duplicate_lines'\] lists the lines left out"), ""),
    (re.compile(r" ?\(attrs\['\w+'\][^)]*\)"), ""),
    (re.compile(r"""(?<![-\w])delimiter=('[^']*'|"[^"]*")"""), r"--delimiter \1"),
    (re.compile(r"(?<![-\w])delimiter=(?=[)\s;,])"), "--delimiter"),
    (re.compile(r"tz= the time zone"), "--tz, the time zone"),
    (re.compile(r"without tz="), "without --tz"),
    (re.compile(r"tz='([^']*)'"), r"--tz \1"),
    (
        re.compile(r"capacity=Cluster\.from_slurm_conf\(<its slurm\.conf>\) or a \{partition: "
                   r"\{\.\.\.\}\} mapping"),
        "--cluster <its slurm.conf> (or a preset name), or --capacity FILE",
    ),
)  # fmt: skip

_TZ_HELP = (
    "time zone of the host that ran sacct, e.g. Europe/Berlin. Text times "
    "(YYYY-MM-DDTHH:MM:SS) are that host's local time and are kept as written; epoch-second "
    "times (SLURM_TIME_FORMAT=%%s) and --json exports are shown in this zone, and in UTC when "
    "--tz is not given (with a warning); rows whose times fall on both sides of a "
    "daylight-saving change in this zone are warned about (leave --tz out to keep epoch "
    "times in UTC)"
)


SUMMARY_JSON_KEYS = """\
summary --json prints one object with these keys (null where a value is unknown):
  jobs, runs, steps   counts: JobIDs (each array task, each requeued job once); their
                      runs that started (each run of a requeued job, as sacct -D); steps
  states              {State: jobs}: each job's final state
  gpu_hours, cpu_hours
                      hours over every run (GPUs or CPUs x Elapsed); null when the export
                      lacks the fields, which unknown_hours names (0 when nothing ran)
  gpu_hours_by_account, gpu_hours_by_user
                      {name: GPU-hours}
  mean_wait_s, median_wait_s, p95_wait_s
                      seconds from Submit to Start, each job once (its last run), over
                      the jobs that started; null when none did
  mean_wait_eligible_s, median_wait_eligible_s, p95_wait_eligible_s
                      the same from Eligible (holds, dependencies, --begin left out);
                      null without an Eligible field
  first_submit, last_end
                      the first Submit and the last end, YYYY-MM-DDTHH:MM:SS as the
                      export writes them (--tz for epoch and --json times)
  bad_rows            malformed rows left out (--errors warn) or kept with NA (coerce)
  unknown_hours       null, or {"GPU-hours"/"CPU-hours": why they are unknown, naming the
                      sacct -o field to add}
"""


def _cli_words(text: str) -> str:
    """A message of the Python API in the words of the command line."""
    for pattern, replacement in _CLI_WORDS:
        text = pattern.sub(replacement, text)
    return text


def _time_zone(text: str) -> str:
    """argparse type of --tz: checked before any file is read."""
    from slurmlab.records.sacct import check_time_zone

    try:
        check_time_zone(text)
    except SlurmlabError as exc:
        message = str(exc).replace(f"tz={text!r} ", f"{text!r} ", 1)
        raise argparse.ArgumentTypeError(message) from None
    return text


def _reading_options(parser) -> None:
    parser.add_argument(
        "--errors",
        choices=("raise", "warn", "coerce"),
        default="raise",
        help="malformed rows: stop (raise), leave out with a warning (warn), or keep with NA (coerce)",
    )
    parser.add_argument(
        "--fields",
        help="field list of a header-less export, e.g. JobID,State,Elapsed (as given to sacct -o)",
    )
    parser.add_argument("--delimiter", help="the delimiter (detected when not given)")
    parser.add_argument("--tz", type=_time_zone, help=_TZ_HELP)


def add_subcommands(subparsers) -> None:
    """Register ``summary``, ``report`` and ``anonymize`` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "summary",
        help="summarise a sacct export in words or JSON",
        epilog=SUMMARY_JSON_KEYS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("export", help="a sacct export (-P/-p text, gzip/bz2/xz, or --json)")
    p.add_argument("--json", action="store_true", help="print one JSON object (its keys: below)")
    _reading_options(p)
    p.set_defaults(func=run_summary)

    p = subparsers.add_parser("report", help="write a self-contained HTML report of a sacct export")
    p.add_argument("export", help="a sacct export")
    p.add_argument(
        "-o",
        "--output",
        default="report.html",
        help="the HTML file to write (default: report.html in the current folder)",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--cluster",
        help="capacity for utilization: a preset name or a slurm.conf path (else inferred)",
    )
    where.add_argument(
        "--capacity",
        metavar="FILE",
        help="capacity for utilization as a YAML or JSON file: {partition: {cpus: N, gpus: N, "
        "nodes: N}} (for a cluster without a slurm.conf at hand)",
    )
    p.add_argument("--title", help="the report's title")
    _reading_options(p)
    p.set_defaults(func=run_report)

    p = subparsers.add_parser(
        "anonymize", help="replace users, accounts, names and nodes by stable pseudonyms"
    )
    p.add_argument("export", help="a sacct export")
    p.add_argument("-o", "--output", required=True, help="the anonymized export to write")
    p.add_argument(
        "--salt",
        help="secret key of the pseudonyms: the same salt gives the same pseudonyms, so give one "
        "to anonymize several exports consistently (default: a random salt, so pseudonyms "
        "differ from one run to the next)",
    )
    p.add_argument("--mapping", help="also write the original -> pseudonym mapping (CSV) here")
    p.add_argument("--fields", help="field list of a header-less export")
    p.add_argument("--delimiter", help="the delimiter (detected when not given)")
    p.set_defaults(func=run_anonymize)


def _fail(exc: Exception) -> int:
    print(f"slurmlab: error: {_cli_words(str(exc))}", file=sys.stderr)
    return EXIT_INPUT


def _warn(message) -> None:
    print(f"slurmlab: warning: {_cli_words(str(message))}", file=sys.stderr)


def _read(args):
    from slurmlab.records.sacct import read_sacct

    _check_not_other_input(args.export, getattr(args, "command", None) or "summary")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jobs = read_sacct(
            args.export,
            fields=args.fields,
            delimiter=args.delimiter,
            tz=getattr(args, "tz", None),
            errors=args.errors,
        )
    for warning in caught:
        _warn(warning.message)
    return jobs


#: The first data rows looked at to tell a `simulate --jobs-out` CSV from a sacct export.
_SNIFF_BYTES = 1 << 16
#: A scenario document is small; a larger JSON file is a sacct --json export.
_SCENARIO_MAX_BYTES = 16 << 20


def _check_not_other_input(export: str, command: str) -> None:
    """Files slurmlab writes or reads elsewhere, named as what they are (and what to give
    instead) before the sacct reader takes them for a malformed export: the CSV of
    ``slurmlab simulate --jobs-out`` and a scenario in JSON (a .yaml one the reader names).
    A pipe is left to the reader: it can be read only once."""
    from slurmlab.commands_sim import _is_swf, _sniffed_lines

    path = Path(export)
    try:
        if not path.is_file():
            return
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
        first = (_sniffed_lines(head) or [""])[0]
        numbers = first.split()
        swf = (
            _is_swf(path)
            or first.startswith(";")
            or (len(numbers) == 18 and all(re.fullmatch(r"-?\d+(\.\d+)?", n) for n in numbers))
        )  # (an SWF trace, by its name, its ';' header or a record of 18 numbers)
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
        if text.lstrip().startswith("{"):
            if path.stat().st_size > _SCENARIO_MAX_BYTES or '"meta"' in text[:4096]:
                return  # (sacct --json writes its meta first: read it once, by the reader)
            doc = json.loads(path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff"))
        else:
            doc = None
    except (OSError, ValueError):  # (unreadable, not JSON: the reader's error says so)
        return
    if swf:
        raise SlurmlabError(
            f"{export}: is an SWF trace (the Standard Workload Format: ';' header lines, then "
            f"records of 18 numbers), not a sacct export, which slurmlab {command} reads; "
            f"simulate it: slurmlab simulate {export} (add --sacct-out jobs.psv to write a "
            f"sacct export of the run for slurmlab {command})"
        )
    if isinstance(doc, dict) and "meta" not in doc and {"cluster", "policy"} & set(doc):
        raise SlurmlabError(
            f"{export}: is a scenario file (JSON with a "
            f"{' and a '.join(repr(k) for k in ('cluster', 'policy') if k in doc)} section), "
            f"not a sacct export; simulate it into one first: slurmlab simulate {export} "
            f"--sacct-out jobs.psv, and give slurmlab {command} jobs.psv"
        )
    if doc is None and _is_jobs_csv(text):
        raise SlurmlabError(
            f"{export}: is the job table `slurmlab simulate --jobs-out` writes (CSV, times in "
            "seconds from the simulation's start), not a sacct export, which slurmlab "
            f"{command} reads; write one with `slurmlab simulate SCENARIO --sacct-out "
            f"jobs.psv` (dates from the scenario's origin) and give slurmlab {command} that, "
            "or read the CSV with pandas (pd.read_csv)"
        )


def _is_jobs_csv(text: str) -> bool:
    """The CSV of ``simulate --jobs-out``: sacct column names split by ',' and Elapsed in
    seconds (``3000.0``), which a sacct export writes as ``[D-]HH:MM:SS``."""
    lines = text.splitlines()[:21]
    if len(lines) < 2 or "|" in lines[0]:
        return False
    rows = list(csv.reader(lines))
    header = rows[0]
    if not {"JobID", "Submit", "Elapsed"} <= set(header):
        return False
    at = header.index("Elapsed")
    seconds = re.compile(r"\d+(\.\d+)?")
    return any(len(row) > at and seconds.fullmatch(row[at]) for row in rows[1:])


def _encodable(text: str, stream) -> bool:
    """Whether ``stream`` (stdout) can write ``text`` in its encoding."""
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def run_summary(args) -> int:
    from slurmlab.analysis.summary import summary

    try:
        jobs = _read(args)
    except SlurmlabError as exc:
        return _fail(exc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = summary(jobs)
    for warning in caught:
        _warn(warning.message)
    if args.json:
        data = result.to_dict()
        text = json.dumps(data, indent=2, ensure_ascii=False)
        if not _encodable(text, sys.stdout):  # (an ASCII locale: "\u00e9", the same JSON)
            text = json.dumps(data, indent=2)
        print(text)
    else:
        print(result.words())
    return 0


def _check_outputs(args, outputs: list[tuple[str, str | None, str]]) -> None:
    """Before reading anything: no output may be an input file or another output, and each
    must be writable (errors as ``simulate --jobs-out`` gives them)."""
    inputs = [
        ("the export", args.export),
        ("the --cluster slurm.conf", getattr(args, "cluster", None)),
        ("the --capacity file", getattr(args, "capacity", None)),
    ]
    check_distinct(inputs, outputs)
    for flag, path, example in outputs:
        if path:
            check_writable(Path(path), flag, example)


def _write_error(flag: str, path: str, exc: OSError) -> SlurmlabError:
    """A file that could not be written after all (a disk full, a folder removed meanwhile)."""
    return SlurmlabError(
        f"{flag} {str(path)!r}: cannot write it ({exc.strerror or exc}); choose another path"
    )


def run_report(args) -> int:
    from slurmlab.report import write_report

    try:
        _check_outputs(args, [("-o", args.output, "report.html")])
        jobs = _read(args)
        capacity = None
        if args.cluster:
            from slurmlab.cli import load_cluster

            capacity = load_cluster(args.cluster)
        elif args.capacity:
            capacity = _load_capacity(args.capacity)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            write_report(jobs, args.output, capacity=capacity, title=args.title)
    except SlurmlabError as exc:
        return _fail(exc)
    except OSError as exc:
        return _fail(_write_error("-o", args.output, exc))
    for warning in caught:  # the report itself says when capacity is inferred
        if "no capacity given" not in str(warning.message):
            _warn(warning.message)
    print(f"wrote {Path(args.output).resolve()}")
    return 0


_CAPACITY_EXAMPLE = "{gpu: {cpus: 512, gpus: 64, nodes: 8}, cpu: {cpus: 256, gpus: 0, nodes: 4}}"


def _load_capacity(path: str) -> dict:
    """A ``--capacity`` file: {partition: {cpus, gpus, nodes}} in YAML (JSON is YAML); each
    value a whole number of at least 0 (``512.0`` and ``1e3``, as a JSON writer may give
    them, too); a partition or key given twice is refused, not the last one kept (errors name
    the file, the partition and the value)."""
    import yaml

    from slurmlab.scenario import _Loader

    try:
        doc = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_Loader)
    except OSError as exc:
        raise SlurmlabError(f"--capacity {path!r}: cannot read it ({exc.strerror})") from None
    except yaml.MarkedYAMLError as exc:  # one line: where, and what (yaml's own has several)
        mark = exc.problem_mark
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = (
            exc.problem
            if isinstance(exc, yaml.constructor.ConstructorError)
            else (f"not YAML or JSON: {exc.problem}" + (f" ({exc.context})" if exc.context else ""))
        )
        raise SlurmlabError(f"--capacity {path!r}{where}: {what}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise SlurmlabError(f"--capacity {path!r}: not YAML or JSON ({exc})") from None
    if not isinstance(doc, dict) or not doc:
        raise SlurmlabError(
            f"--capacity {path!r}: expected a mapping of partitions, e.g. {_CAPACITY_EXAMPLE}"
        )
    for name, value in doc.items():
        if not isinstance(value, dict):
            raise SlurmlabError(
                f"--capacity {path!r}: partition {str(name)!r} is {value!r}, not a mapping of "
                f"cpus, gpus and nodes; e.g. {_CAPACITY_EXAMPLE}"
            )
        for key, count in value.items():
            if key not in ("cpus", "gpus", "nodes"):
                raise SlurmlabError(
                    f"--capacity {path!r}: partition {str(name)!r} has the key {str(key)!r}; "
                    f"the keys are cpus, gpus and nodes, e.g. {_CAPACITY_EXAMPLE}"
                )
            if isinstance(count, float) and count.is_integer():
                count = value[key] = int(count)
            whole = isinstance(count, int) and not isinstance(count, bool)
            if not whole or count < 0:
                raise SlurmlabError(
                    f"--capacity {path!r}: partition {str(name)!r}: {key}={count!r} is not a "
                    "count; give a whole number of at least 0 (0 for a resource it does not "
                    "have)"
                )
    return {str(name): value for name, value in doc.items()}


def run_anonymize(args) -> int:
    from slurmlab.anonymize import anonymize_file

    try:
        _check_not_other_input(args.export, getattr(args, "command", None) or "summary")
        _check_outputs(
            args,
            [("-o", args.output, "anonymized.psv"), ("--mapping", args.mapping, "mapping.csv")],
        )
        result = anonymize_file(
            args.export,
            args.output,
            salt=args.salt,
            fields=args.fields,
            delimiter=args.delimiter,
            mapping_path=args.mapping,
        )
    except SlurmlabError as exc:
        return _fail(exc)
    except OSError as exc:
        mapping = args.mapping and exc.filename and Path(exc.filename) == Path(args.mapping)
        flag, path = ("--mapping", args.mapping) if mapping else ("-o", args.output)
        return _fail(_write_error(flag, path, exc))
    n = result.replaced
    print(f"wrote {args.output} ({n} value{'s' * (n != 1)} replaced)")
    if args.salt is None:
        print(
            "slurmlab: note: no --salt: a random salt was used, so another run (or another "
            "export) gets other pseudonyms; give --salt S to keep them the same",
            file=sys.stderr,
        )
    if args.mapping:
        print(f"wrote the mapping to {args.mapping} (keep it private)")
    return 0
