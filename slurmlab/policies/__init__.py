"""Scheduling policies: pure objects that read a :class:`QueueView` and return a :class:`Decision`.

The built-ins (``fifo``, ``easy``, ``conservative``, ``slurm``) live in :mod:`.backfill`;
:mod:`.base` documents the protocol a policy of your own follows, with an example.
"""

from slurmlab.errors import PolicyError
from slurmlab.policies.backfill import (
    POLICIES,
    Conservative,
    Easy,
    Fifo,
    SlurmBackfill,
    availability,
    make_policy,
)
from slurmlab.policies.base import (
    CPU,
    GPU,
    MEM,
    ArrayThrottles,
    Decision,
    JobFacts,
    PendingJob,
    PendingQueue,
    Policy,
    QueueView,
    RunningJob,
    Start,
    policy_name,
)
from slurmlab.policies.placement import Request, Spread, choose_nodes, spread_nodes
from slurmlab.policies.profile import Profile, make_profile

__all__ = [
    # the protocol: what a policy sees and returns
    "CPU",
    "GPU",
    "MEM",
    "ArrayThrottles",
    "Decision",
    "JobFacts",
    "PendingJob",
    "PendingQueue",
    "Policy",
    "PolicyError",
    "QueueView",
    "RunningJob",
    "Start",
    "policy_name",
    # helpers a policy plans with
    "Profile",
    "Request",
    "Spread",
    "availability",
    "choose_nodes",
    "make_profile",
    "spread_nodes",
    # the built-ins
    "POLICIES",
    "Conservative",
    "Easy",
    "Fifo",
    "SlurmBackfill",
    "make_policy",
]
