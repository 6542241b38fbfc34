"""The errors slurmlab raises: each names the thing, the rule, the value and the fix."""

from __future__ import annotations

import os
import sys
import warnings

__all__ = [
    "NODE_CONFIG_UNAVAILABLE",
    "ConfigError",
    "RequestError",
    "SbatchError",
    "ScenarioError",
    "SlurmlabError",
    "warn_at_caller",
]

#: slurmctld's words (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE) for a request its node
#: selection test refuses at submission, after the job got its id: a RequestError that says
#: them has used up a job id in real Slurm.
NODE_CONFIG_UNAVAILABLE = "Requested node configuration is not available"


class SlurmlabError(ValueError):
    """Base class of every input error slurmlab raises."""


class ConfigError(SlurmlabError):
    """A slurm.conf / gres.conf text that cannot be read (names the line and the key)."""

    def __init__(self, message: str, *, source: str = "slurm.conf", line: int | None = None):
        self.source = source
        self.line = line
        where = f"{source} line {line}: " if line is not None else f"{source}: "
        super().__init__(where + message)


class SbatchError(SlurmlabError):
    """An sbatch/srun option that is unknown or has a malformed value."""


class RequestError(SlurmlabError):
    """A job request that no node of its partition can ever satisfy (Slurm rejects it at submit)."""


class ScenarioError(SlurmlabError):
    """A scenario document with a missing or invalid entry.

    Names the file and, for a file, the line (``source``, ``line``), then the entry and
    the field; ``path`` locates them in the document (``("jobs", 2, "args")``).
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        path: tuple = (),
    ):
        self.message, self.source, self.line, self.path = message, source, line, tuple(path)
        if source is None:
            super().__init__(message)
        else:
            super().__init__(f"{source} line {line}: {message}" if line else f"{source}: {message}")


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the line that called slurmlab (``lab.sbatch(...)``, ``read_sacct(...)``), not
    at a line of slurmlab's own source: the caller of the outermost slurmlab frame, so that
    frames of other libraries between two of slurmlab's (simpy's) are passed over too
    (Python 3.12's ``skip_file_prefixes`` would stop at them)."""
    frame, level, outermost = sys._getframe(0), 1, 1  # noqa: SLF001 (as warnings walks it)
    while frame is not None:
        if frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            outermost = level
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=outermost + 1)
