"""``simulate()``: run a workload on a cluster under a policy and return the result."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence

from slurmlab.errors import SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.sim.engine import Simulation
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.result import SimulationResult
from slurmlab.spec.cluster import SCHEDULER_PARAMETERS, Cluster
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.units import parse_instant
from slurmlab.spec.workload import Action, Workload

__all__ = ["simulate"]


def simulate(
    cluster: Cluster | str,
    workload: Workload,
    policy="easy",
    seed: int = 0,
    *,
    progress: bool = False,
    enforce_time_limit: bool | None = None,
    requeue_delay: float = 121.0,
    actions: Sequence[Action] = (),
    failures: Sequence[NodeFailure] = (),
    random_failures: RandomFailures | None = None,
    accounts: Sequence[Account] = (),
    qos: Sequence[Qos] = (),
    reservations: Sequence[Reservation] = (),
    until: float | str | None = None,
    **policy_params,
) -> SimulationResult:
    """Simulate ``workload`` on ``cluster`` under ``policy`` until every job has ended, or
    until the simulated time ``until`` (seconds, ``"3d"``, or a date and time): jobs still
    pending or running then are reported so (sacct's PENDING, RUNNING), and the metrics
    cover the window up to it. A run in which failures come faster than jobs can make
    progress never ends on its own (Slurm requeues such jobs for ever too): bound it so.

    ``cluster`` is a :class:`Cluster`, a preset name (``"ai"``) or a slurm.conf path.

    ``policy`` is ``"fifo"``, ``"easy"``, ``"conservative"``, ``"slurm"`` or a policy
    object; extra keyword arguments are the policy's parameters (e.g. ``bf_interval=5``
    for ``"slurm"``, which otherwise takes them from the cluster's SchedulerParameters).
    ``enforce_time_limit`` defaults to True, and to False for trace workloads (``read_swf``),
    which replay recorded run times even past their limits (Slurm's OverTimeLimit=UNLIMITED).
    ``actions`` are scripted admin actions (cancel, requeue, hold, release, requeuehold,
    drain, resume) at given times.
    ``failures`` are scripted node failures and ``random_failures`` a random failure model
    (drawn from ``seed``, or the model's own seed). ``accounts`` (a fair-share tree),
    ``qos`` and ``reservations`` are what sacctmgr and scontrol would create; priority
    settings (PriorityType, PriorityWeight*, PreemptType...) come from the cluster. ``progress=True`` shows a progress bar.
    """
    t0 = time.perf_counter()
    cluster = Cluster.coerce(cluster)
    if not isinstance(workload, Workload):
        raise SlurmlabError(
            f"workload must be a slurmlab Workload, not {type(workload).__name__} "
            f"{str(workload)[:60]!r}: build one with ai_workload(...), read_swf(PATH), "
            "Scenario.load(PATH).workload or Workload([...])"
        )
    if enforce_time_limit is None:
        enforce_time_limit = workload.kind != "trace"
    if policy == "slurm":
        policy_params = {**slurm_params(cluster), **policy_params}
    sim = Simulation(
        cluster,
        policy,
        seed=seed,
        origin=workload.origin,
        enforce_time_limit=enforce_time_limit,
        requeue_delay=requeue_delay,
        policy_params=policy_params,
        accounts=accounts,
        qos=qos,
        reservations=reservations,
    )
    stop = None if until is None else parse_instant(until, sim.origin, what="until")
    if stop is not None and stop < 0:
        raise SlurmlabError(
            f"until={until!r} is before the simulation's start ({sim.origin}): give a later time"
        )
    if stop is not None and math.isinf(stop):
        stop = None  # (for ever: until everything has ended)
    sim.add_workload(workload)
    sim.add_actions(actions)
    sim.add_failures(failures, random_failures)
    if progress and len(workload) >= 1000:
        from tqdm.auto import tqdm

        horizon = max(j.submit for j in workload.jobs) or 1.0
        if stop is not None:
            horizon = min(horizon, stop)
        with tqdm(total=100, unit="%", desc="simulating", leave=False) as bar:
            for k in range(1, 101):
                sim.run(until=horizon * k / 100)
                bar.update(1)
            sim.run(until=stop)
    else:
        sim.run(until=stop)
    name = policy if isinstance(policy, str) else getattr(policy, "name", type(policy).__name__)
    return SimulationResult(sim, name, time.perf_counter() - t0)


#: SchedulerParameters that change nothing in a simulation whose cycles take no time
#: (they tune how slurmctld yields its locks or spreads its work).
_NO_EFFECT = {
    "bf_continue", "bf_yield_interval", "bf_yield_sleep", "bf_max_time", "max_rpc_cnt",
    "max_rpc_count", "bf_node_space_size", "max_sched_time", "sched_min_interval",
}  # fmt: skip


def slurm_params(cluster: Cluster) -> dict:
    """The ``slurm`` policy's parameters from the cluster's SchedulerParameters line.

    Values were checked when the cluster was read (whole numbers in Slurm's ranges).
    ``bf_interval=-1`` turns the backfill cycles off, as in Slurm. SchedulerParameters that
    would change scheduling but are not modelled, and a SchedulerType other than
    sched/backfill, are named in a warning (they are ignored).
    """
    given = cluster.scheduler_parameters
    out = {}
    for key in SCHEDULER_PARAMETERS:
        if given.get(key):
            out[key] = int(given[key])
    ignored = sorted(k for k in given if k not in SCHEDULER_PARAMETERS and k not in _NO_EFFECT)
    if ignored:
        warnings.warn(
            f"SchedulerParameters {', '.join(ignored)}: not modelled by slurmlab's slurm "
            f"policy, which ignores them (it models {', '.join(SCHEDULER_PARAMETERS)})",
            stacklevel=3,
        )
    stype = (cluster.setting("SchedulerType", "sched/backfill") or "").strip().lower()
    if stype != "sched/backfill":
        warnings.warn(
            f"SchedulerType={stype}: the slurm policy models sched/backfill; for Slurm's "
            "sched/builtin (strict priority order, no backfill) use policy='fifo'",
            stacklevel=3,
        )
    return out
