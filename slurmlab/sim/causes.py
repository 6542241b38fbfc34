"""Why a running job was interrupted: typed causes carried by ``simpy.Interrupt``.

The job's process branches on the cause's type to decide the final state, whether
the job is requeued, and how much of its work survives (checkpoints).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cancelled", "NodeFailed", "Preempted", "Requeued"]


@dataclass(frozen=True, slots=True)
class Cancelled:
    """``scancel``: the job ends CANCELLED."""

    by: str = "user"


@dataclass(frozen=True, slots=True)
class NodeFailed:
    """A node of the allocation went DOWN: the run ends NODE_FAIL (requeued if allowed)."""

    node: str


@dataclass(frozen=True, slots=True)
class Preempted:
    """A higher-priority job took the resources: the run ends PREEMPTED."""

    by: int
    requeue: bool = True


@dataclass(frozen=True, slots=True)
class Requeued:
    """``scontrol requeue``: the run ends REQUEUED and the job pends again."""

    by: str = "admin"
