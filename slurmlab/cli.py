"""The ``slurmlab`` command: thin argument parsing over the public API."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from slurmlab import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slurmlab",
        description="Learn Slurm for AI training clusters: simulate its scheduler, "
        "analyze sacct exports.",
    )
    parser.add_argument("--version", action="version", version=f"slurmlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_sinfo(sub)
    try:
        from slurmlab import commands_sim
    except ImportError:  # pragma: no cover - arrives with the engine
        commands_sim = None
    if commands_sim is not None:
        commands_sim.add_subcommands(sub)
    try:
        from slurmlab import commands_sacct
    except ImportError:  # pragma: no cover - arrives with the sacct reader
        commands_sacct = None
    if commands_sacct is not None:
        commands_sacct.add_subcommands(sub)
    return parser


def _add_sinfo(sub) -> None:
    p = sub.add_parser("sinfo", help="print a cluster's partitions like sinfo")
    p.add_argument(
        "cluster",
        help="a preset name (tiny, teaching, ai), a slurm.conf path, or a scenario file "
        "(.yaml, .yml, .json: its cluster)",
    )
    p.add_argument("--gres-conf", help="gres.conf path for a slurm.conf cluster")
    p.set_defaults(func=_run_sinfo)


def load_cluster(name: str, gres_conf: str | None = None):
    from slurmlab.errors import SlurmlabError
    from slurmlab.spec.cluster import Cluster

    try:
        return Cluster.coerce(name, gres_conf)
    except SlurmlabError as exc:  # ("or give a slurmlab.Cluster" means nothing in a shell)
        text = str(exc).replace(" (or give a slurmlab.Cluster)", "")
        if text == str(exc):
            raise
        raise SlurmlabError(text) from None


def _run_sinfo(args) -> int:
    from slurmlab.errors import SlurmlabError

    path = Path(args.cluster)
    if path.suffix.lower() in (".yaml", ".yml", ".json") and not path.is_file():
        raise SlurmlabError(
            f"scenario file {args.cluster!r} not found (from {Path.cwd()}); give its path, "
            "a preset name (tiny, teaching, ai) or a slurm.conf"
        )
    if path.suffix.lower() in (".yaml", ".yml", ".json"):
        from slurmlab.scenario import Scenario

        if args.gres_conf:
            raise SlurmlabError(
                f"--gres-conf applies to a slurm.conf; {args.cluster} is a scenario (its "
                "cluster section names its gres.conf: cluster: {slurm_conf: ..., gres_conf: ...})"
            )
        print(Scenario.load(path).cluster.sinfo_text())
        return 0
    print(load_cluster(args.cluster, args.gres_conf).sinfo_text())
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as the command's own line: ``slurmlab: warning: ...`` (not Python's
    ``file:line: UserWarning`` with a source line)."""
    print(f"slurmlab: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from slurmlab.errors import SlurmlabError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning  # (as the command's own lines, no traceback)
            return int(args.func(args) or 0)
    except SlurmlabError as exc:
        print(f"slurmlab: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that cannot be read or written: it names the file
        print(f"slurmlab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
