"""Checkpoint/restart: how much useful work a run does, saves and loses.

A job needs ``work`` seconds of useful computation (its true run time). With a
checkpoint ``interval`` I, a ``write_cost`` C and a ``restart_cost`` R, a run that
resumes from saved progress P first spends R loading the checkpoint (only after a
restart from one: a run cut short before its first checkpoint starts again from zero,
with nothing to load), then alternates I seconds of work with C seconds of writing, and needs
no checkpoint after its last piece of work. When a run is cut short (node
failure, preemption, time limit), the work since its last *completed* checkpoint
is lost; the next run resumes from there. Without checkpoints every restart
starts from zero.

The theory learners meet: Young's interval sqrt(2 C M) (Young 1974), Daly's
higher-order interval (Daly 2006, FGCS 22(3)), and Daly's expected goodput for
exponential failures with mean time between failures M of the whole allocation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slurmlab.errors import SlurmlabError, unknown_fields
from slurmlab.spec.units import parse_flag, parse_number, parse_seconds

__all__ = [
    "Checkpoint",
    "RunOutcome",
    "daly_interval",
    "expected_goodput",
    "run_length",
    "run_outcome",
    "young_interval",
]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A job's checkpointing: every ``interval`` s of work, ``write_cost`` s to save it,
    ``restart_cost`` s to load it after a restart; ``on_signal``: with ``--signal``, write a
    final checkpoint when the signal arrives before the time limit and requeue (chaining
    allocations)."""

    interval: float
    write_cost: float = 0.0
    restart_cost: float = 0.0
    on_signal: bool = False

    def __post_init__(self):  # times as numbers or durations ("1h", "30:00")
        set_ = object.__setattr__
        set_(self, "interval", parse_seconds(self.interval, what="checkpoint interval"))
        set_(self, "write_cost", parse_seconds(self.write_cost, what="checkpoint write_cost"))
        set_(self, "restart_cost", parse_seconds(self.restart_cost, what="checkpoint restart_cost"))
        set_(self, "on_signal", parse_flag(self.on_signal, what="checkpoint on_signal"))
        if not self.interval > 0:
            raise SlurmlabError(
                f"checkpoint interval {self.interval:g} must be positive: give the seconds of "
                "work between two checkpoints (e.g. interval: 3600, or '1h'); leave out "
                "'checkpoint' for a job that does not checkpoint"
            )
        if self.write_cost < 0 or self.restart_cost < 0:
            raise SlurmlabError("checkpoint write_cost and restart_cost must not be negative")

    @classmethod
    def from_dict(cls, doc: dict, *, where: str = "checkpoint") -> Checkpoint:
        """From a scenario entry ``{interval, write_cost, restart_cost, on_signal}``."""
        known = {"interval", "write_cost", "restart_cost", "on_signal"}
        unknown = set(doc) - known if isinstance(doc, dict) else set()
        if unknown:
            raise SlurmlabError(f"{where}: {unknown_fields(unknown, known)}")
        if not isinstance(doc, dict) or "interval" not in doc:
            raise SlurmlabError(f"{where}: give at least 'interval' (seconds or HH:MM:SS)")
        return cls(
            interval=parse_seconds(doc["interval"], what=f"{where}.interval"),
            write_cost=parse_seconds(doc.get("write_cost", 0), what=f"{where}.write_cost"),
            restart_cost=parse_seconds(doc.get("restart_cost", 0), what=f"{where}.restart_cost"),
            on_signal=parse_flag(doc.get("on_signal", False), what=f"{where}.on_signal"),
        )


def run_length(remaining: float, ckpt: Checkpoint | None, restarted: bool) -> float:
    """Wall seconds a run needs to finish ``remaining`` work if nothing interrupts it."""
    if ckpt is None:
        return remaining
    writes = max(0, math.ceil(remaining / ckpt.interval) - 1) if remaining > 0 else 0
    return (ckpt.restart_cost if restarted else 0.0) + remaining + writes * ckpt.write_cost


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run cut after ``elapsed`` seconds did: saved work, lost work, overheads."""

    saved: float  # useful work kept (seconds), counted once
    lost: float  # work done since the last completed checkpoint, thrown away
    writing: float  # seconds spent writing checkpoints
    restarting: float  # seconds spent loading the checkpoint


def run_outcome(
    elapsed: float,
    remaining: float,
    ckpt: Checkpoint | None,
    restarted: bool,
    *,
    final_checkpoint: bool = False,
) -> RunOutcome:
    """Account for a run of ``elapsed`` seconds that had ``remaining`` work to do.

    A run that reaches its end (``elapsed >= run_length``) saves all its work.
    ``final_checkpoint``: the run ended by writing one last checkpoint (its last
    ``write_cost`` seconds, after a ``--signal``), which saves the work done before it.
    """
    full = run_length(remaining, ckpt, restarted)
    if elapsed >= full - 1e-9:
        writes = full - remaining - (ckpt.restart_cost if (ckpt and restarted) else 0.0)
        return RunOutcome(remaining, 0.0, writes, ckpt.restart_cost if ckpt and restarted else 0.0)
    if ckpt is None:
        return RunOutcome(0.0, elapsed, 0.0, 0.0)
    if final_checkpoint:
        # the run's last write_cost seconds write one more checkpoint, saving all work so far
        write = min(elapsed, ckpt.write_cost)
        cut = run_outcome(elapsed - write, remaining, ckpt, restarted)
        return RunOutcome(
            min(remaining, cut.saved + cut.lost), 0.0, cut.writing + write, cut.restarting
        )
    load = min(elapsed, ckpt.restart_cost if restarted else 0.0)
    t = elapsed - load
    cycle = ckpt.interval + ckpt.write_cost
    k = int(t // cycle) if cycle > 0 else 0
    rest = t - k * cycle
    work_in_cycle = min(rest, ckpt.interval)
    write_in_cycle = max(0.0, rest - ckpt.interval)
    return RunOutcome(
        min(remaining, k * ckpt.interval), work_in_cycle, k * ckpt.write_cost + write_in_cycle, load
    )


def _costs(write_cost: float, mtbf: float) -> tuple[float, float]:
    """A checkpoint's write cost (>= 0) and an MTBF (> 0), checked: seconds, or durations
    as everywhere else in the failure API ("1m", "10h", "1:00:00")."""
    return _secs(write_cost, "write_cost"), _secs(mtbf, "mtbf", positive=True)


def _secs(value, what: str, *, positive: bool = False) -> float:
    """Seconds (any number: an MTBF of 1e12 s is "no failures") or a duration."""
    if not isinstance(value, int | float):  # ("1h", a timedelta...; a number stays as given)
        value = parse_seconds(value, what=f"{what} (seconds or a duration)")
    return parse_number(value, what=f"{what} (seconds or a duration)", strict=positive)


def young_interval(write_cost: float, mtbf: float) -> float:
    """Young's first-order optimal checkpoint interval: sqrt(2 C M).

    >>> round(young_interval(60, 36000))
    2078
    """
    c, m = _costs(write_cost, mtbf)
    return math.sqrt(2.0 * c * m)


def daly_interval(write_cost: float, mtbf: float) -> float:
    """Daly's higher-order optimal interval (Daly 2006, eq. 37); M itself when C >= 2M."""
    c, m = _costs(write_cost, mtbf)
    if c >= 2 * m:
        return m
    x = c / (2 * m)
    return math.sqrt(2 * c * m) * (1 + math.sqrt(x) / 3 + x / 9) - c


def expected_goodput(interval: float, write_cost: float, restart_cost: float, mtbf: float) -> float:
    """Daly's expected fraction of allocated time that is useful work (exponential failures).

    T_wall / T_work = M e^(R/M) (e^((tau + C)/M) - 1) / tau, so goodput is its inverse.
    ``mtbf`` is the mean time between failures of the job's whole allocation
    (a node's MTBF divided by the number of nodes).
    """
    c, m = _costs(write_cost, mtbf)
    tau = _secs(interval, "interval", positive=True)
    r = _secs(restart_cost, "restart_cost")
    return tau / (m * math.exp(r / m) * math.expm1((tau + c) / m))
