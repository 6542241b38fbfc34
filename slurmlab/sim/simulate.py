"""``simulate()``: run a workload on a cluster under a policy and return the result."""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import math
import time
from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from slurmlab.errors import SlurmlabError, collected_warnings, warn_at_caller
from slurmlab.policies.backfill import POLICIES
from slurmlab.policies.base import policy_name
from slurmlab.policies.fairshare import Account
from slurmlab.sim.engine import Simulation
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.result import SimulationResult
from slurmlab.spec.cluster import (
    SCHEDULER_PARAMETERS,
    SLURM_SCHEDULER_PARAMETERS,
    Cluster,
    inert_settings,
)
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.units import check_switch, parse_instant, parse_list_of
from slurmlab.spec.workload import (
    AFTER_ARRAY,
    NUMERIC_JOBID,
    Action,
    Workload,
    jobid_clash,
    jobid_numbers,
)

__all__ = ["simulate"]


def simulate(
    cluster: Cluster | str,
    workload: Workload,
    policy="easy",
    seed: int = 0,
    *,
    progress: bool = False,
    enforce_time_limit: bool | None = None,
    requeue_delay: float | str | None = None,
    actions: Sequence[Action] = (),
    failures: Sequence[NodeFailure] = (),
    random_failures: RandomFailures | Sequence[RandomFailures] | None = None,
    accounts: Sequence[Account] = (),
    qos: Sequence[Qos] = (),
    reservations: Sequence[Reservation] = (),
    until: float | str | None = None,
    slurmctld_start: float = 0.0,
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
    object: one with a ``schedule(view)`` method returning a ``Decision`` (the protocol, an
    example and the rules its decisions follow: :mod:`slurmlab.policies.base`; a decision
    that breaks one raises a ``PolicyError``); extra keyword arguments are the policy's parameters (e.g. ``bf_interval=5``
    for ``"slurm"``, which otherwise takes them from the cluster's SchedulerParameters), and
    the result keeps them (``result.params``). A keyword that is neither simulate's nor the
    policy's is an error, with a did-you-mean for a misspelling of simulate's own
    (``progres=True``).
    ``seed`` matters only with ``random_failures``: their times are drawn from it (unless the
    model has a seed of its own); everything else in a run is determined by its inputs, so
    without random failures every seed gives the same result (to vary the jobs, vary the
    workload's seed: ``ai_workload(n, cluster, seed=...)``).
    ``enforce_time_limit`` (True or False) defaults to True, and to False for trace workloads
    (``read_swf``), which replay recorded run times even past their limits (Slurm's
    OverTimeLimit=UNLIMITED).
    ``requeue_delay`` (seconds or a duration) is how long a requeued job waits before it may
    start again; default: the cluster's AuthInfo ``cred_expire`` (120 s unless set) plus one
    second, as in Slurm.
    ``slurmctld_start`` (seconds, 0 or less) is when slurmctld started, before the
    simulation's start: Slurm's periodic main-scheduler pass falls every ``sched_interval``
    from then (controller.c ``_slurmctld_background``), which decides when a job made
    eligible by time alone (a requeue's delay, ``--begin``) or a victim's PreemptExemptTime's
    end is seen, and so does priority/multifactor's recalculation, every PriorityCalcPeriod
    (``_decay_thread``); default 0, slurmctld starting with the simulation.
    ``actions`` are scripted admin actions (cancel, requeue, hold, release, requeuehold,
    update, drain, resume) at given times (seconds, or a duration such as ``"1h"``).
    Jobs without an ``id`` are numbered 1, 2, ... in submit order, as sbatch numbers them:
    an ``id`` that is such a number of another job is an error. A trace's jobs wider than
    the whole cluster, which can never start, are warned about; so, without ``until``, are
    the jobs the run leaves PENDING (nothing more could change: they never start).
    ``failures`` are scripted node failures and ``random_failures`` a random failure model,
    or several (one per group of nodes, say: each fails its nodes on its own).
    ``accounts`` (a fair-share tree), ``qos`` and ``reservations`` are what sacctmgr and
    scontrol would create; priority settings (PriorityType, PriorityWeight*, PreemptType...)
    come from the cluster. Account shares, QOS priorities and QOS ``preempt`` lists that the
    cluster's settings leave without effect (``priority/basic``, as every preset has, a
    PriorityWeightFairshare or PriorityWeightQOS of 0, no ``PreemptType=preempt/qos``) are
    warned about; to give a preset those settings, derive a cluster from it::

        ai = Cluster.preset("ai")
        fair = dataclasses.replace(ai, settings={**ai.settings,
            "PriorityType": "priority/multifactor", "PriorityWeightFairshare": "10000"})

    (checked as a slurm.conf's are: ``PriorityWeightAge="abc"`` is an error).
    ``progress=True`` shows a progress bar for a workload of 1,000 jobs or more (a shorter
    run ends before a bar could say anything; the command line passes True on a terminal);
    the run is then advanced in 100 steps, which costs some speed.

    Warnings are shown when the run ends, at the line that called ``simulate``; under
    Python's default filter, each once per process for that line (a sweep of 20 runs shows
    it once), while ``simplefilter("always")``, ``"error"``, ``"ignore"`` and
    ``pytest.warns`` act as they always do.
    """
    t0 = time.perf_counter()
    _check_arguments(policy, progress, enforce_time_limit, policy_params)
    with collected_warnings():
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
                warn_at_caller(
                    "the slurm policy on a trace's processor pool: Slurm's backfill reserves "
                    "whole nodes, and the pool is one node, so every planned job holds the whole "
                    "machine and no job backfills beside it (easy backfills into the processors "
                    "its reservation leaves). To compare with Slurm as it runs on real nodes, "
                    "replay the trace on one-processor nodes (slower): a cluster of "
                    "'NodeName=n[1-N] CPUs=1' (cluster= in Python, --cluster on the command line)"
                )
        sim = Simulation(
            cluster,
            policy,
            seed=seed,
            origin=workload.origin,
            enforce_time_limit=bool(enforce_time_limit),
            requeue_delay=requeue_delay,
            policy_params=policy_params,
            accounts=accounts,
            qos=qos,
            reservations=reservations,
            slurmctld_start=slurmctld_start,
        )
        stop = None if until is None else parse_instant(until, sim.origin, what="until")
        if stop is not None and stop < 0:
            raise SlurmlabError(
                f"until={until!r} is before the simulation's start ({sim.origin}): give a later "
                "time"
            )
        if stop is not None and math.isinf(stop):
            stop = None  # (for ever: until everything has ended)
        check_jobids(workload)
        warn_too_wide(workload, cluster)
        sim.add_workload(workload)
        actions = sim.add_actions(actions)  # (their times in seconds)
        sim.add_failures(failures, random_failures)
        # (a scenario warns about these when it loads, naming its file and line)
        if not _INERT_CHECKED.get():
            warn_inert(cluster, list(sim.tree.accounts.values()), list(sim.qos.values()))
        if stop is None and sim.starts_nothing:
            # bf_interval=-1 and sched_interval=-1 (warned about): no job ever starts, so the
            # run ends at the last submission or scripted event (priority recalculations, and
            # random failures, would otherwise go on for ever around jobs that wait)
            stop = max(
                [j.submit for j in workload.jobs]
                + [a.at for a in actions]
                + [f.at for f in parse_list_of(failures, NodeFailure, what="failures")],
                default=0.0,
            )
        if progress and len(workload) >= 1000:
            _run_with_bar(sim, workload, stop)
        else:
            sim.run(until=stop)
        if stop is None and not sim.starts_nothing:
            warn_never_started(sim)
    name = policy if isinstance(policy, str) else policy_name(policy)
    return SimulationResult(sim, name, time.perf_counter() - t0)


#: Set while a Scenario runs: it warned about inert sections when it loaded (file and line).
_INERT_CHECKED: contextvars.ContextVar[bool] = contextvars.ContextVar("inert", default=False)


@contextlib.contextmanager
def inert_checked():
    """Within it, ``simulate`` does not warn about account shares, QOS priorities and QOS
    ``preempt`` lists the cluster leaves without effect: the caller (Scenario.run) did."""
    token = _INERT_CHECKED.set(True)
    try:
        yield
    finally:
        _INERT_CHECKED.reset(token)


def _run_with_bar(sim: Simulation, workload: Workload, stop: float | None) -> None:
    """Run in 100 steps of the time to the last submission, with a progress bar."""
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


#: simulate's own keywords: a close misspelling of one is named as such, not taken for a
#: policy parameter.
_KEYWORDS = (
    "cluster", "workload", "policy", "seed", "progress", "enforce_time_limit", "requeue_delay",
    "actions", "failures", "random_failures", "accounts", "qos", "reservations", "until",
    "slurmctld_start",
)  # fmt: skip


def _parameters(cls) -> list[str]:
    """A policy class's parameters (its dataclass fields but its name and cycle interval)."""
    return [f.name for f in fields(cls) if f.name not in ("name", "interval")]


def _check_arguments(policy, progress, enforce_time_limit, params: dict) -> None:
    """Clear errors for a policy that is none, switches that are not True or False, and a
    keyword that is neither simulate's nor the policy's."""
    check_policy(policy, "simulate")
    check_switch("simulate", "progress", progress)
    check_switch(
        "simulate", "enforce_time_limit", enforce_time_limit,
        "True, False or None (the workload's kind)",
    )  # fmt: skip
    check_policy_params(policy, params, "simulate()", _KEYWORDS, _KEYWORDS[2:])


def check_policy(policy, where: str) -> None:
    """A policy is a name or a policy object: not None, and not a policy class, which has the
    method but no parameters set. A policy object needs a ``schedule(view)`` method; its
    ``name`` (a string), ``interval`` (None or seconds > 0) and ``backfill(view)`` are
    optional (slurmlab.policies.base)."""
    names = ", ".join(repr(n) for n in POLICIES)
    if isinstance(policy, type) and callable(getattr(policy, "schedule", None)):
        raise SlurmlabError(
            f"{where}(policy={policy.__name__}): {policy.__name__} is a policy class, not a "
            f"policy object; give {policy.__name__}() (with its parameters, if any) or a "
            f"policy name ({names})"
        )
    if isinstance(policy, str):
        return
    if not callable(getattr(policy, "schedule", None)):
        raise SlurmlabError(
            f"{where}(policy={policy!r}): give a policy name ({names}) or a policy object "
            "(one with a schedule(view) method returning a Decision: see "
            "slurmlab.policies.base, or slurmlab.policies.Easy())"
        )
    label = f"{where}(policy={type(policy).__name__}(...))"
    name = getattr(policy, "name", None)
    if name is not None and not (isinstance(name, str) and name):
        raise SlurmlabError(
            f"{label}: the policy's name is {name!r}; give a string (or none: the class "
            "name lower-cased labels the runs)"
        )
    interval = getattr(policy, "interval", None)
    number = isinstance(interval, int | float | np.integer | np.floating)
    if interval is not None and (
        isinstance(interval, bool) or not number or not (0 < interval < math.inf)
    ):
        raise SlurmlabError(
            f"{label}: interval={interval!r} must be None (no timer cycles) or the seconds "
            "between the cycles that call its backfill(view), a number > 0"
        )
    backfill = getattr(policy, "backfill", None)
    if backfill is not None and not callable(backfill):
        raise SlurmlabError(
            f"{label}: its backfill is {backfill!r}, not a method; define backfill(view) "
            "returning a Decision, or leave it out (timer cycles then call schedule)"
        )


def check_policy_params(
    policy, params: dict, where: str, keywords: Sequence[str], listed: Sequence[str]
) -> None:
    """A keyword that is neither one of ``where``'s own (``keywords``: a close misspelling
    of one gets a did-you-mean; the error lists ``listed``) nor a parameter of the policy
    is an error."""
    cls = POLICIES.get(policy) if isinstance(policy, str) else None
    accepted = _parameters(cls) if cls is not None else []
    for key in params:
        if key in accepted or (isinstance(policy, str) and cls is None):
            continue  # (an unknown policy name: make_policy names the policies)
        close = difflib.get_close_matches(key, keywords, n=1, cutoff=0.75)
        if close:
            raise SlurmlabError(
                f"{where} has no keyword {key}=: did you mean {close[0]}=? (other keywords "
                "are the policy's parameters)"
            )
        takes = f"it takes {', '.join(accepted)}" if accepted else "it takes none"
        what = f"policy {policy!r}" if cls is not None else "a policy object"
        owners = [n for n, c in POLICIES.items() if key in _parameters(c)]
        if key == "name":
            hint = ": the policy is named by policy= (to label runs, keep them in a dict)"
        elif owners:
            hint = f": {key} is a parameter of policy={owners[0]!r}"
        else:
            every = sorted({p for c in POLICIES.values() for p in _parameters(c)})
            near = difflib.get_close_matches(key, every, n=1, cutoff=0.75)
            hint = f" (did you mean {near[0]}?)" if near else ""
        raise SlurmlabError(
            f"{what} has no parameter {key}{hint}; {takes}, and {where.removesuffix('()')}'s "
            f"own keywords are {', '.join(listed)}"
        )


def check_jobids(workload: Workload, where: str = "simulate") -> None:
    """No job's ``id`` is the JobID a job without one gets (:func:`jobid_clash`): like
    sbatch, the simulation numbers jobs 1, 2, ... in submit order, and a job without an
    ``id`` is known by that number, so ``id="1"`` on another job would make two jobs ``1``
    in the job table (a scenario file is checked so when it loads). Ids are compared as
    text: ``id=1`` is the JobID ``1`` too."""
    _no_unknown_jobid_refs(workload, where)
    clash = jobid_clash(workload.jobs)
    if clash is None:
        return
    i, j, first = clash
    jobs = workload.jobs
    key = str(jobs[i].id)
    fix = f"workload.jobs[{i}] one that is not a number (e.g. id='job{key}')"
    if j is None:
        raise SlurmlabError(
            f"{where}: workload.jobs[{i}] has id={jobs[i].id!r}, which may be the JobID of a "
            f"job without an id: {AFTER_ARRAY} (from {first} on here); give the "
            f"jobs without an id ids too, or {fix}"
        )
    name = jobs[j].spec.name  # (-J, if given)
    named = f" ({f'{name!r}, ' if name else ''}submitted at t={jobs[j].submit:g}s)"
    raise SlurmlabError(
        f"{where}: workload.jobs[{i}] has id={jobs[i].id!r}, which is also the JobID of "
        f"workload.jobs[{j}]{named}, a job without an id (like sbatch, the simulation "
        "numbers jobs 1, 2, ... in submit order, one number per submission): two jobs "
        f"would be {key!r} in the job table; give workload.jobs[{j}] an id too, or {fix}"
    )


def _no_unknown_jobid_refs(workload: Workload, where: str) -> None:
    """A ``--dependency`` names no JobID the run decides (:func:`jobid_numbers`): which job
    it would name depends on how many array tasks have started by then."""
    if not any(j.spec.dependency for j in workload.jobs):
        return  # (no numbering needed: a trace's million jobs are not sorted for nothing)
    numbers = [n for n in jobid_numbers(workload.jobs) if n is not None]
    if len(numbers) == len(workload.jobs):
        return
    first = max(numbers) + 1
    ids = {j.id for j in workload.jobs if j.id is not None}  # (an id names its job)
    for i, job in enumerate(workload.jobs):
        for dep in job.spec.dependency:
            for ref in dep.job_ids:
                m = NUMERIC_JOBID.fullmatch(ref)
                if m and int(m.group(1)) >= first and ref not in ids and m.group(1) not in ids:
                    raise SlurmlabError(
                        f"{where}: workload.jobs[{i}] --dependency={dep.kind}:{ref}: JobID "
                        f"{ref} is not known before the run: {AFTER_ARRAY} (from {first} on "
                        "here); give the job it means an id and name it by that (an array "
                        "task: ID_TASK)"
                    )


def warn_never_started(sim: Simulation) -> None:
    """Warn about the jobs a run without ``until`` left PENDING (it went on until nothing
    could change: they never start), naming the first few and their reasons."""
    stuck = [j for j in sim.jobs.values() if j.state == "PENDING"]
    if stuck:
        named = ", ".join(f"{j.key} ({j.reason})" for j in stuck[:5])
        more = f" and {len(stuck) - 5} more" if len(stuck) > 5 else ""
        warn_at_caller(
            f"{len(stuck)} job{'s' * (len(stuck) != 1)} never started: {named}{more}; "
            f"{'they are' if len(stuck) > 1 else 'it is'} in the job table as PENDING, and "
            "left out of waits and slowdowns (result.why_pending(id) explains each reason)"
        )


def warn_too_wide(workload: Workload, cluster: Cluster) -> None:
    """Warn once about the jobs of a trace (``read_swf``) that ask for more processors than
    the whole cluster has: they can never start, and stay PENDING (as ``read_swf(cluster=)``
    refuses each such job when it reads the trace)."""
    if workload.kind != "trace":
        return
    size = sum(n.cpus for n in cluster.nodes)
    # (the CPUs a job asks for at least: a trace's jobs are processors-only, -n N)
    wide = [(j.spec.ntasks or 1) * (j.spec.cpus_per_task or 1) for j in workload.jobs]
    wide = [w for w in wide if w > size]
    if wide:
        n = len(wide)
        warn_at_caller(
            f"simulate: {n} of the {len(workload)} jobs of trace {workload.name!r} ask for "
            f"more processors than cluster {cluster.name!r} has ({size} CPUs; the widest asks "
            f"for {max(wide)}): {'they' if n > 1 else 'it'} can never start and stay"
            f"{'' if n > 1 else 's'} PENDING; give a cluster of at least {max(wide)} CPUs "
            "(swf_cluster(workload): the trace's own machine), or drop them with "
            "read_swf(path, cluster=..., skip_invalid=True)"
        )


def warn_inert(cluster: Cluster, accounts: Sequence[Account], qos: Sequence[Qos]) -> None:
    """Warn about account shares (other than 1), QOS priorities and QOS ``preempt`` lists
    that the cluster's settings leave without effect
    (:func:`slurmlab.spec.cluster.inert_settings`), as a scenario does when it loads."""
    inert = inert_settings(cluster)

    def warn(field_name: str, what: str, values: str) -> None:
        why = inert[field_name]
        value = cluster.setting(why.key) or why.default
        if why.key == "PreemptType":
            value = value.strip().lower()
        elif why.key == "PreemptMode":
            value = value.strip().upper()
        has = f"its {why.key} is 0" if why.default == "0" else f"it has {why.key}={value}"
        pairs = ", ".join(f"{k!r}: {v!r}" for k, v in why.needed.items())
        warn_at_caller(
            f"simulate: {what} ({values}) have no effect on cluster {cluster.name!r}: {has}, "
            f"{why.consequence}, as in Slurm; to use them, give the cluster "
            f"{', '.join(f'{k}={v}' for k, v in why.needed.items())} (dataclasses.replace("
            f"cluster, settings={{**cluster.settings, {pairs}}}), or in its slurm.conf)"
        )

    preempts = [q for q in qos if q.preempt] if "preempt" in inert else []
    if preempts:
        lists = "; ".join(f"{q.name}: {','.join(q.preempt)}" for q in preempts)
        warn("preempt", "the QOS preempt lists", lists)
    shares = [a for a in accounts if a.shares != 1] if "shares" in inert else []
    if shares:
        warn("shares", "the accounts' shares", ", ".join(f"{a.name}={a.shares}" for a in shares))
    prioritized = [q for q in qos if q.priority] if "priority" in inert else []
    if prioritized:
        values = ", ".join(f"{q.name}={q.priority}" for q in prioritized)
        warn("priority", "the QOS priorities", values)


#: SchedulerParameters that change nothing in a simulation whose cycles take no time
#: (they tune how slurmctld yields its locks or spreads its work; a busy slurmctld may cut
#: a backfill cycle short at bf_max_time, which a simulated cycle never is), or that only
#: grant a permission (enable_user_top: users may run scontrol top).
_NO_EFFECT = {
    "bf_continue", "bf_yield_interval", "bf_yield_sleep", "bf_max_time", "max_rpc_cnt",
    "max_rpc_count", "max_sched_time", "sched_min_interval", "enable_user_top",
}  # fmt: skip

#: SchedulerParameters the engine reads under every policy (not the slurm policy's own):
#: correspond_after_task_cnt, how many tasks of an aftercorr array are split off at once
_ENGINE_READ = {"correspond_after_task_cnt"}

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
        warn_at_caller(
            f"{where}: SchedulerParameters {_item(key, given[key])}: not a Slurm 22.05 "
            "SchedulerParameters option: Slurm ignores it and so does slurmlab (the option "
            f"meant keeps its default); {hint}"
        )
    ignored = sorted(
        k
        for k in given
        if k in known
        and k not in SCHEDULER_PARAMETERS
        and k not in _NO_EFFECT
        and k not in _ENGINE_READ
    )
    if ignored:
        hints = "".join(f"; {k}: {_HINTS[k]}" for k in ignored if k in _HINTS)
        warn_at_caller(
            f"{where}: SchedulerParameters {', '.join(ignored)}: not modelled by slurmlab's "
            f"slurm policy, which ignores them (it models {', '.join(SCHEDULER_PARAMETERS)})"
            + hints
        )
    stype = (cluster.setting("SchedulerType", "sched/backfill") or "").strip().lower()
    if stype != "sched/backfill":
        warn_at_caller(
            f"{_where(cluster, 'SchedulerType')}: SchedulerType={stype}: the slurm policy "
            "models sched/backfill; for Slurm's sched/builtin (strict priority order, no "
            "backfill) use policy='fifo'"
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
