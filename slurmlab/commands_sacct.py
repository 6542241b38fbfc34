"""The sacct subcommands of ``slurmlab``: summary, report and anonymize.

``slurmlab.cli`` calls :func:`add_subcommands`; each command parses its arguments, calls the
public API and prints. A :class:`SacctParseError` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from slurmlab.records.sacct import SacctParseError

__all__ = ["add_subcommands"]


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
    parser.add_argument("--tz", help="time zone of the host that ran sacct, e.g. Europe/Berlin")


def add_subcommands(subparsers) -> None:
    """Register ``summary``, ``report`` and ``anonymize`` on an argparse subparsers object."""
    p = subparsers.add_parser("summary", help="summarise a sacct export in words or JSON")
    p.add_argument("export", help="a sacct export (-P/-p text, gzip/bz2/xz, or --json)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
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
    p.add_argument(
        "--cluster",
        help="capacity for utilization: a preset name or a slurm.conf path (else inferred)",
    )
    p.add_argument("--title", help="the report's title")
    _reading_options(p)
    p.set_defaults(func=run_report)

    p = subparsers.add_parser(
        "anonymize", help="replace users, accounts, names and nodes by stable pseudonyms"
    )
    p.add_argument("export", help="a sacct export")
    p.add_argument("-o", "--output", required=True, help="the anonymized export to write")
    p.add_argument("--salt", help="secret key of the pseudonyms (same salt, same pseudonyms)")
    p.add_argument("--mapping", help="also write the original -> pseudonym mapping (CSV) here")
    p.add_argument("--fields", help="field list of a header-less export")
    p.add_argument("--delimiter", help="the delimiter (detected when not given)")
    p.set_defaults(func=run_anonymize)


def _fail(exc: Exception) -> int:
    print(f"slurmlab: error: {exc}", file=sys.stderr)
    return 2


def _read(args):
    from slurmlab.records.sacct import read_sacct

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
        print(f"slurmlab: warning: {warning.message}", file=sys.stderr)
    return jobs


def run_summary(args) -> int:
    from slurmlab.analysis.summary import summary

    try:
        jobs = _read(args)
    except SacctParseError as exc:
        return _fail(exc)
    result = summary(jobs)
    if args.json:
        data = result.to_dict()
        data.pop("runs", None)
        data["runs"] = result.runs
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(result.words())
    return 0


def run_report(args) -> int:
    from slurmlab.report import write_report

    try:
        jobs = _read(args)
    except SacctParseError as exc:
        return _fail(exc)
    capacity = None
    if args.cluster:
        from slurmlab.cli import load_cluster

        capacity = load_cluster(args.cluster)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_report(jobs, args.output, capacity=capacity, title=args.title)
    for warning in caught:  # the report itself says when capacity is inferred
        if "no capacity given" not in str(warning.message):
            print(f"slurmlab: warning: {warning.message}", file=sys.stderr)
    print(f"wrote {Path(args.output).resolve()}")
    return 0


def run_anonymize(args) -> int:
    from slurmlab.anonymize import anonymize_file

    try:
        result = anonymize_file(
            args.export,
            args.output,
            salt=args.salt,
            fields=args.fields,
            delimiter=args.delimiter,
            mapping_path=args.mapping,
        )
    except SacctParseError as exc:
        return _fail(exc)
    print(f"wrote {args.output} ({result.replaced} values replaced)")
    if args.mapping:
        print(f"wrote the mapping to {args.mapping} (keep it private)")
    return 0
