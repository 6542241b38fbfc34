"""The ``slurmlab`` command: thin argument parsing over the public API.

Exit status (the epilog of ``slurmlab --help`` says the same): 0 done; 1 an input that
cannot be used (a file missing, unreadable or malformed, an output that cannot be written),
with one ``slurmlab: error:`` line naming it and the fix; 2 a usage error (argparse's: an
unknown option, a missing argument, no command); 130 interrupted (Ctrl-C); 141 stdout closed
early (``slurmlab ... | head``), quietly, as a command killed by SIGPIPE (128 + 13) is.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from slurmlab import __version__

#: Exit statuses: a script can tell a wrong command line (2) from a bad input (1).
EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2  # (argparse's own)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
EXIT_CLOSED_STDOUT = 141  # 128 + SIGPIPE, as `yes | head -1` reports yes

EPILOG = """\
exit status:
  0    done
  1    an input could not be used: a file missing, unreadable or malformed, a value
       out of range, an output that cannot be written (one "slurmlab: error:" line
       names it and the fix)
  2    a usage error: no command, an unknown command or option, a missing argument,
       an option value argparse refuses (it prints the usage)
  130  interrupted (Ctrl-C): one line, "slurmlab: interrupted"
  141  stdout was closed before the output was written (slurmlab ... | head): no
       message, as for a command killed by SIGPIPE (128 + 13)
"""


class _Parser(argparse.ArgumentParser):
    """argparse, but --help and --version on a closed stdout stop as any output does (exit
    141): argparse itself drops the error, so that a pipe closed early exited 0 or 141
    depending on the buffering."""

    def _print_message(self, message: str, file=None) -> None:
        if message and file is sys.stdout:
            file.write(message)
        else:
            super()._print_message(message, file)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="slurmlab",
        description="Learn Slurm for AI training clusters: simulate its scheduler, "
        "analyze sacct exports.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
        nargs="?",
        help="a preset name (tiny, teaching, ai), a slurm.conf path, or a scenario file "
        "(.yaml, .yml, .json: its cluster)",
    )
    p.add_argument(
        "--cluster",
        dest="cluster_option",
        metavar="CLUSTER",
        help="the same, as simulate and report take it",
    )
    p.add_argument(
        "--gres-conf", help="gres.conf path for a slurm.conf cluster (not a preset or a scenario)"
    )
    p.set_defaults(func=_run_sinfo, usage_error=p.error)


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
    from slurmlab.spec.presets import presets

    if (args.cluster is None) == (args.cluster_option is None):  # (a usage error: exit 2)
        how = "once, not both as CLUSTER and --cluster" if args.cluster else "to show"
        args.usage_error(
            f"give the cluster {how}: a preset name (tiny, teaching, ai), a "
            "slurm.conf path or a scenario file, as `slurmlab sinfo ai` or `slurmlab sinfo "
            "--cluster ai`"
        )
    args.cluster = args.cluster or args.cluster_option
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
    if args.gres_conf and args.cluster in presets():  # (a preset is chosen before a file)
        raise SlurmlabError(
            f"--gres-conf applies to a slurm.conf; {args.cluster!r} is a preset, whose GPUs "
            f"are part of it: leave --gres-conf {args.gres_conf} out, or give the slurm.conf "
            "that gres.conf goes with"
        )
    print(load_cluster(args.cluster, args.gres_conf).sinfo_text())
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as the command's own line: ``slurmlab: warning: ...`` (not Python's
    ``file:line: UserWarning`` with a source line)."""
    _say(f"slurmlab: warning: {message}")


def _say(line: str) -> None:
    """One line on stderr; a closed stderr is not worth a second error."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout's file descriptor at /dev/null, so that the interpreter's final flush of
    what could not be written cannot fail again ("Exception ignored ... BrokenPipeError"):
    the recipe of Python's documentation (signal module, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (no real file descriptor: nothing to do)
        pass


#: Errors of a write that failed for want of room or a device, not of a file slurmlab named.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _stdout_failed(exc: OSError) -> bool:
    """Whether ``exc`` came from writing stdout (a full disk: ``slurmlab ... > /dev/full``):
    every file a command reads or writes is named in its errors, stdout's are not."""
    if exc.filename is not None:
        return False
    try:
        sys.stdout.flush()  # (what could not be written is still in its buffer)
    except OSError:
        return True
    except (ValueError, AttributeError):
        return False
    return exc.errno in _WRITE_ERRNOS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv``; returns the exit status (argparse exits itself, with
    2, on a usage error, and with 0 after --help and --version)."""
    from slurmlab.errors import SlurmlabError

    try:
        try:
            return _dispatch(argv)
        finally:  # (here, not at exit: a closed or full stdout is reported like any error)
            sys.stdout.flush()
    except BrokenPipeError:  # stdout closed early (| head): quiet, as for SIGPIPE
        _silence_stdout()
        return EXIT_CLOSED_STDOUT
    except KeyboardInterrupt:
        _say("slurmlab: interrupted")
        return EXIT_INTERRUPTED
    except SlurmlabError as exc:
        _say(f"slurmlab: error: {exc}")
        return EXIT_INPUT
    except UnicodeEncodeError as exc:  # (stdout in a locale that cannot show a name)
        encoding = getattr(sys.stdout, "encoding", None) or exc.encoding
        _say(
            f"slurmlab: error: stdout's encoding ({encoding}) cannot write "
            f"{exc.object[exc.start : exc.end]!r}; set PYTHONIOENCODING=utf-8 (or a UTF-8 "
            "locale, LANG=C.UTF-8), or use --json where the command has it"
        )
        return EXIT_INPUT
    except OSError as exc:  # a file that cannot be read or written: it names the file
        if _stdout_failed(exc):
            _silence_stdout()
            _say(f"slurmlab: error: cannot write the output to stdout ({exc.strerror or exc})")
        else:
            _say(f"slurmlab: error: {exc}")
        return EXIT_INPUT


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # (`slurmlab $CMD file` with $CMD empty must fail)
        parser.print_usage(sys.stderr)
        parser.exit(
            EXIT_USAGE,
            "slurmlab: error: give a command: sinfo, simulate, summary, report or anonymize "
            "(slurmlab --help describes them)\n",
        )
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # (as the command's own lines, no traceback)
        return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
