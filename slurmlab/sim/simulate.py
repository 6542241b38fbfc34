"""``simulate()``: run a workload on a cluster under a policy and return the result."""

from __future__ import annotations

import difflib
import math
import time
import warnings
from collections.abc import Sequence

from slurmlab.errors import SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.sim.engine import Simulation
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.result import SimulationResult
from slurmlab.spec.cluster import SCHEDULER_PARAMETERS, SLURM_SCHEDULER_PARAMETERS, Cluster
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.units import parse_instant, parse_list_of
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
    progress would never end on its own (Slurm requeues such jobs for ever too): bound it
    so; without ``until``, a job requeued 10,000 times ends the run with an error. Under
    the ``slurm`` policy with ``bf_interval=-1`` and ``sched_interval=-1`` no job ever starts
    (as in Slurm; a warning says so): the run ends at the last submission or scripted event.

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
        if cluster.processor_pool:
            warnings.warn(
                "the slurm policy on a trace's processor pool: Slurm's backfill reserves whole "
                "nodes, and the pool is one node, so every planned job holds the whole machine "
                "and no job backfills beside it (easy backfills into the processors its "
                "reservation leaves). To compare with Slurm as it runs on real nodes, replay "
                "the trace on one-processor nodes (slower): a cluster of 'NodeName=n[1-N] "
                "CPUs=1' (cluster= in Python, --cluster on the command line)",
                UserWarning,
                stacklevel=2,
            )
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
    if stop is None and sim.starts_nothing:
        # bf_interval=-1 and sched_interval=-1 (warned about): no job ever starts, so the run
        # ends at the last submission or scripted event (priority recalculations, and random
        # failures, would otherwise go on for ever around jobs that wait)
        stop = max(
            [j.submit for j in workload.jobs]
            + [a.at for a in parse_list_of(actions, Action, what="actions")]
            + [f.at for f in parse_list_of(failures, NodeFailure, what="failures")],
            default=0.0,
        )
    if progress and len(workload) >= 1000:
        from tqdm.auto import tqdm

        horizon = max(j.submit for j in workload.jobs) or 1.0
        if stop is not None:
            horizon = min(horizon, stop)
        # (the simulated time to the last submission, in percent; no rate: "%/s" means nothing)
        bar_format = (
            "{desc}: {percentage:3.0f}% of the time to the last submission |{bar}| "
            "{elapsed}<{remaining}"
        )
        with tqdm(total=100, desc="simulating", leave=False, bar_format=bar_format) as bar:
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
    "max_rpc_count", "max_sched_time", "sched_min_interval",
}  # fmt: skip

#: What to say about an option of Slurm's that the slurm policy does not model, when a
#: modelled one does its work.
_HINTS = {"max_job_bf": "it is the old name of bf_max_job_test: write bf_max_job_test"}


def slurm_params(cluster: Cluster) -> dict:
    """The ``slurm`` policy's parameters from the cluster's SchedulerParameters line.

    Values were checked when the cluster was read (whole numbers in Slurm's ranges).
    ``bf_interval=-1`` turns the backfill cycles off and ``sched_interval=-1`` the main
    scheduler, as in Slurm. Warnings, naming the slurm.conf file and line (or the scenario's
    ``cluster.settings.SchedulerParameters``), name the options that are not Slurm's (Slurm
    ignores them too, so its defaults apply), the options of Slurm's that would change
    scheduling but are not modelled (ignored), and a SchedulerType other than sched/backfill.
    """
    given = cluster.scheduler_parameters
    out = {}
    for key in SCHEDULER_PARAMETERS:
        if given.get(key):
            out[key] = int(given[key])
    where = _where(cluster, "SchedulerParameters")
    known = set(SLURM_SCHEDULER_PARAMETERS)
    for key in (k for k in given if k not in known):
        close = difflib.get_close_matches(key, SLURM_SCHEDULER_PARAMETERS, n=1, cutoff=0.75)
        hint = f"did you mean {close[0]}?" if close else "see slurm.conf(5) for Slurm's options"
        warnings.warn(
            f"{where}: SchedulerParameters {_item(key, given[key])}: not a Slurm 22.05 "
            "SchedulerParameters option: Slurm ignores it and so does slurmlab (the option "
            f"meant keeps its default); {hint}",
            stacklevel=3,
        )
    ignored = sorted(
        k for k in given if k in known and k not in SCHEDULER_PARAMETERS and k not in _NO_EFFECT
    )
    if ignored:
        hints = "".join(f"; {k}: {_HINTS[k]}" for k in ignored if k in _HINTS)
        warnings.warn(
            f"{where}: SchedulerParameters {', '.join(ignored)}: not modelled by slurmlab's "
            f"slurm policy, which ignores them (it models {', '.join(SCHEDULER_PARAMETERS)})"
            + hints,
            stacklevel=3,
        )
    stype = (cluster.setting("SchedulerType", "sched/backfill") or "").strip().lower()
    if stype != "sched/backfill":
        warnings.warn(
            f"{_where(cluster, 'SchedulerType')}: SchedulerType={stype}: the slurm policy "
            "models sched/backfill; for Slurm's sched/builtin (strict priority order, no "
            "backfill) use policy='fifo'",
            stacklevel=3,
        )
    return out


def _where(cluster: Cluster, key: str) -> str:
    """Where a setting was given: its slurm.conf file and line, or the scenario's line and
    ``cluster.settings.<key>``, as the cluster's other warnings say (else the cluster)."""
    where = getattr(cluster.settings, "where", {})
    low = key.lower()
    found = next((v for k, v in where.items() if k.lower() == low), None)
    return found or f"Cluster {cluster.name!r}"


def _item(key: str, value: str) -> str:
    return f"{key}={value}" if value else key
