"""The errors slurmlab raises: each names the thing, the rule, the value and the fix."""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "NODE_CONFIG_UNAVAILABLE",
    "ConfigError",
    "PolicyError",
    "RequestError",
    "SbatchError",
    "ScenarioError",
    "SlurmlabError",
    "collected_warnings",
    "effective_action",
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


class PolicyError(SlurmlabError):
    """A decision of a policy object that the engine cannot apply (a start on a node that is
    not up or too small, a job started twice, a pending reason Slurm does not have...).

    Names the policy, the simulated time, the job and the rule; nothing of the decision has
    been applied (a Lab stays usable).
    """


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


# -- warnings: at the caller's line, once per line under Python's default action ----------------
#
# Python shows a warning whose filter action is "default" once per line: it remembers the
# lines in a registry, and forgets them whenever the filters change. Every
# ``warnings.catch_warnings()`` changes them on the way in and out, pandas enters one in
# many of its operations, so a sweep of 20 simulations would show the same warning 20
# times. slurmlab remembers the warnings it has shown in a registry of its own, forgotten
# only when the filters in force when a warning is raised are not the ones of the last
# one (the user's own ``catch_warnings`` block, a test's, ``simplefilter(...)``): a block
# that came and went in between, as pandas' do, changes nothing. Every other action
# (``always``, ``error``, ``ignore``, ``module``, ``once``; pytest.warns and
# ``catch_warnings(record=True)`` with ``simplefilter("always")``) is Python's own.

_shown: set[tuple] = set()  # (text, category, filename, line) of warnings shown
_shown_under: tuple = (None, None, None)  # (filters list, a copy of it, defaultaction)
_local = threading.local()  # .collecting: this thread is inside collected_warnings()


def unknown_fields(unknown, known, *, allowed: bool = True) -> str:
    """``unknown field(s) [...]`` for a document entry, with a did-you-mean for each field
    spelled close to a known one (``runtim``: ``runtime``) and, with ``allowed``, the list of
    known fields."""
    import difflib

    names = sorted(unknown, key=str)
    guesses = [
        f"{name!r}: did you mean {close[0]!r}?"
        for name in names
        if (close := difflib.get_close_matches(str(name), sorted(known), n=1, cutoff=0.7))
    ]
    text = f"unknown field(s) {names}"
    if guesses:
        text += f" ({'; '.join(guesses)})"
    return text + (f"; allowed: {sorted(known)}" if allowed else "")


def _matches(pattern, text: str) -> bool:
    """A filter's message or module pattern against a value, as ``_warnings`` tests it (a
    plain string, as the built-in default filters have, must be equal)."""
    if pattern is None:
        return True
    if type(pattern) is str:
        return pattern == text
    return bool(pattern.match(text))


def effective_action(text: str, category: type[Warning], module: str, lineno: int) -> str:
    """The action the warning filters give a warning (``"default"``, ``"always"``,
    ``"error"``...), found as ``warnings.warn_explicit`` finds it: the first filter whose
    message, category, module and line match, else ``warnings.defaultaction``."""
    for action, message, cat, mod, line in warnings.filters:
        if (
            _matches(message, text)
            and issubclass(category, cat)
            and _matches(mod, module)
            and (line == 0 or line == lineno)
        ):
            return action
    return warnings.defaultaction


def _first_time(key: tuple) -> bool:
    """Whether a warning shown under the "default" action has not been shown since the
    filters in force became the current ones (and remember it)."""
    global _shown_under
    filters = warnings.filters
    under, copy, default = _shown_under
    if filters is not under or filters != copy or warnings.defaultaction != default:
        _shown.clear()
        _shown_under = (filters, list(filters), warnings.defaultaction)
    if key in _shown:
        return False
    _shown.add(key)
    return True


def _module_of(filename: str, caller) -> tuple[str, dict | None]:
    """The module name (and globals) a warning at ``filename`` is filtered by: the caller's
    for its own file, a dotted name for a file of slurmlab's, else a loaded module's with
    that file, else the file without ``.py`` (as ``warnings.warn_explicit`` would)."""
    if caller is not None and filename == caller.f_code.co_filename:
        return caller.f_globals.get("__name__", "<string>"), caller.f_globals
    if filename.startswith(_PACKAGE_DIR):
        rest = os.path.splitext(filename[len(_PACKAGE_DIR) :])[0].replace(os.sep, ".")
        return "slurmlab." + rest.removesuffix(".__init__"), None
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            return module.__name__, None
    return (filename[:-3] if filename.lower().endswith(".py") else filename), None


def _show(message, category, filename: str, lineno: int, module: str, module_globals) -> None:
    """Warn at this file and line, once per process where the action is "default"."""
    text = str(message)
    if isinstance(message, Warning):
        category = type(message)
    action = effective_action(text, category, module, lineno)
    if action == "default" and not _first_time((text, category, filename, lineno)):
        return
    registry = None
    if module_globals is not None:  # (Python's registry of that module, as warnings.warn)
        registry = module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, filename, lineno, module, registry)


def _caller():
    """The frame that called slurmlab: the caller of the outermost frame of slurmlab's own
    source, so that frames of other libraries between two of slurmlab's (simpy's) are passed
    over too (Python 3.12's ``skip_file_prefixes`` would stop at them). None when there is
    none (slurmlab's own code at the bottom of the stack)."""
    frame, outermost = sys._getframe(1), None  # noqa: SLF001 (as warnings walks it)
    while frame is not None:
        code = frame.f_code.co_filename
        if code.startswith(_PACKAGE_DIR) or (  # (or code slurmlab generated: a dataclass's
            code.startswith("<")  # __init__, whose file is "<string>")
            and str(frame.f_globals.get("__name__", "")).startswith("slurmlab.")
        ):
            outermost = frame
        frame = frame.f_back
    return sys._getframe(1) if outermost is None else outermost.f_back  # noqa: SLF001


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the line that called slurmlab (``lab.sbatch(...)``, ``read_sacct(...)``), not
    at a line of slurmlab's own source; under Python's default action, once per process for
    that line and text, whatever ``catch_warnings`` blocks pandas entered in between (the
    filters ``always``, ``error``, ``ignore``... act as Python's)."""
    frame = _caller()
    if frame is None:  # (no caller outside slurmlab: Python finds the line)
        warnings.warn(message, category, stacklevel=2)
        return
    module = frame.f_globals.get("__name__", "<string>")
    if getattr(_local, "collecting", False):  # collected_warnings() shows it, once
        warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno, module)
        return
    _show(message, category, frame.f_code.co_filename, frame.f_lineno, module, frame.f_globals)


@contextmanager
def collected_warnings() -> Iterator[None]:
    """Show the warnings raised inside (by slurmlab, simpy, pandas...) when the block ends,
    each as :func:`warn_at_caller` shows it: slurmlab's (a ``UserWarning`` at a line of its
    own source) at the line that called slurmlab, and under the default action once per
    process.

    What the filters ``ignore`` never reaches it, and ``error`` raises where the warning
    is raised, as without it. It collects through ``warnings.showwarning`` (the documented
    hook), for this thread only: warnings of other threads pass through untouched.
    """
    if getattr(_local, "collecting", False):  # (an outer block shows them)
        yield
        return
    caller = _caller()
    thread = threading.get_ident()
    caught: list[tuple] = []
    previous = warnings.showwarning
    active = True

    def collect(message, category, filename, lineno, file=None, line=None):
        if active and threading.get_ident() == thread:
            caught.append((message, category, filename, lineno))
        else:  # another thread's, or left installed behind another thread's block
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = collect
    _local.collecting = True
    try:
        yield
    finally:
        _local.collecting = False
        active = False
        if warnings.showwarning is collect:  # (else another thread's hook sits on ours)
            warnings.showwarning = previous
        for message, category, filename, lineno in caught:
            # slurmlab's own (UserWarning) at the caller's line; another library's warning
            # about slurmlab's use of it (a pandas FutureWarning) stays where it arose
            ours = issubclass(category, UserWarning) and filename.startswith(_PACKAGE_DIR)
            if caller is not None and ours:
                filename, lineno = caller.f_code.co_filename, caller.f_lineno
            module, _globals = _module_of(filename, caller)
            # (no registry: this warning passed warnings.warn's filters and its registry once
            # already, and one raised at the caller's line, stacklevel=, was entered in that
            # module's registry then: passing it again would hide it; _show dedupes)
            _show(message, category, filename, lineno, module, None)
