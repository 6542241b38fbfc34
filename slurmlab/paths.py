"""Files in and files out: no output may overwrite an input, nor another output.

Commands read a scenario, a slurm.conf or a sacct export and write CSV, sacct exports, HTML
reports and mappings. Checked before any work, a name given twice (``report e.psv -o
e.psv``, or the same file by a symlink, a hard link or ``./e.psv``) is an error that names
both files, and an output that cannot be written is one too, rather than a lost input or a
run thrown away at its end.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from slurmlab.errors import SlurmlabError

__all__ = ["check_distinct", "check_writable", "home_path", "same_file"]

PathLike = str | os.PathLike


def home_path(path: PathLike) -> Path:
    """``path`` with a leading ``~`` (or ``~user``) as that home directory, as pandas'
    readers take it (``os.path.expanduser``); left as written when there is no such home,
    so that the reader says the file does not exist (``Path.expanduser`` raises a bare
    RuntimeError there)."""
    return Path(os.path.expanduser(path))


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name one file.

    When both exist, ``os.path.samefile`` decides: a symlink, a hard link, ``./x`` and ``x``
    are the same file. Otherwise (an output not written yet) their absolute paths, with
    symlinks resolved, are compared.
    """
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:  # (one went away meanwhile, or cannot be looked at: compare the names)
        pass
    return _absolute(a) == _absolute(b)


def _absolute(path: PathLike) -> Path:
    """``path`` resolved; when it cannot be (a symlink loop), its absolute, normalised name."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):  # (Python before 3.13 raises RuntimeError on a loop)
        return Path(os.path.abspath(path))


def check_distinct(
    inputs: Iterable[tuple[str, PathLike | None]],
    outputs: Sequence[tuple[str, PathLike | None, str]],
) -> None:
    """Refuse an output that is one of the input files or another output.

    ``inputs`` are (what it is, path), e.g. ``("the export", "e.psv")``; only existing files
    count (``--cluster tiny`` names a preset, not a file). ``outputs`` are (option, path, an
    example of a good name), e.g. ``("-o", "report.html", "report.html")``; an output not
    given (None) is skipped. The error names the option, both paths and a fix.
    """
    inputs = list(inputs)
    given = [(flag, path, example) for flag, path, example in outputs if path]
    for flag, path, example in given:
        for what, source in inputs:
            if source and os.path.isfile(source) and same_file(path, source):
                raise SlurmlabError(
                    f"{flag} {str(path)!r} is {what} {str(source)!r}{_same(path, source)}: "
                    f"writing it would destroy {what}; give {flag} another name, e.g. {flag} "
                    f"{example}"
                )
    for i, (flag, path, example) in enumerate(given):
        for other, other_path, other_example in given[i + 1 :]:
            if same_file(path, other_path):
                raise SlurmlabError(
                    f"{flag} {str(path)!r} and {other} {str(other_path)!r} are one file"
                    f"{_same(path, other_path)}: one would overwrite the other; give each its "
                    f"own name, e.g. {flag} {example} {other} {other_example}"
                )


def _same(a: PathLike, b: PathLike) -> str:
    """`` (the same file)`` when two names of one file are written differently."""
    return "" if str(a) == str(b) else " (the same file)"


def check_writable(path: Path, flag: str, example: str) -> None:
    """Refuse, before any work, an output ``path`` (given as ``flag``) that cannot be written:
    a directory, a missing folder, a read-only place. ``example`` is a good file name.

    It is really opened for appending, since ``os.access`` says yes to root even
    on a read-only file system; a file that did not exist is removed again.
    """
    where = f"{flag} {str(path)!r}"
    if str(path) == "-":  # (the shell's "stdout" would be a file named '-' here)
        raise SlurmlabError(
            f"{where}: slurmlab writes {flag} to a file, not to stdout (where its own lines "
            f"go); give a file name, e.g. {flag} {example}"
        )
    if path.is_dir():
        raise SlurmlabError(
            f"{where} is a directory; give a file name, e.g. {str(path / example)!r}"
        )
    if not path.parent.is_dir():
        problem = "is not a folder" if path.parent.exists() else "does not exist"
        raise SlurmlabError(
            f"{where}: folder {str(path.parent)!r} {problem}; create it first "
            f"(mkdir -p {path.parent}) or choose another path"
        )
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise SlurmlabError(
            f"{where}: cannot write it ({exc.strerror}); choose another path"
        ) from None
    if not existed:
        path.unlink(missing_ok=True)
