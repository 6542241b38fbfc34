"""The simpy simulation of a Slurm controller: queue, scheduling passes, running jobs.

simpy owns time; this module owns meaning. Each running job is a simpy process
that waits for its end and may be interrupted with a typed cause
(:mod:`slurmlab.sim.causes`). Scheduling decisions come from a pure policy
(:mod:`slurmlab.policies`), which the controller applies.

Same-time rule. All events at one instant are applied before one scheduling
pass, in this order: first job ends (and node state changes), then arrivals
(submissions, begin times reached, dependencies satisfied), then the pass. A job
ending at t therefore frees its resources for a job starting at t, and
utilization never exceeds 100%. A job that ends at the instant it starts (zero
run time) is one more event at that instant, so another pass follows at the same
time. (simpy orders same-time events by priority: ends are URGENT (0), arrivals
NORMAL (1), the pass LATE (2).)
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

import numpy as np
import pandas as pd
import simpy

from slurmlab.errors import RequestError, SlurmlabError
from slurmlab.policies.backfill import make_policy
from slurmlab.policies.base import Decision, PendingJob, QueueView, RunningJob
from slurmlab.policies.fairshare import Account, AccountTree
from slurmlab.policies.placement import choose_nodes
from slurmlab.policies.priority import MultifactorWeights, basic_priority, sort_key
from slurmlab.sim.accounting import PriorityState
from slurmlab.sim.causes import Cancelled, NodeFailed, Preempted, Requeued
from slurmlab.sim.checkpoint import run_length, run_outcome
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec, Resources
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.workload import DEFAULT_ORIGIN, Workload, WorkloadJob

__all__ = ["Simulation"]

URGENT, NORMAL, LATE, AFTER_PASS = 0, 1, 2, 3
INF = math.inf

#: Pending reasons that never clear by waiting.
PERMANENT = {
    "PartitionTimeLimit", "PartitionNodeLimit", "DependencyNeverSatisfied", "PartitionDown",
    "QOSMaxWallDurationPerJobLimit", "InvalidReservation", "JobHeldUser", "PartitionInactive",
}  # fmt: skip

_QOS_USER_REASON = {
    "cpu": "QOSMaxCpuPerUserLimit", "gres/gpu": "QOSMaxGRESPerUser",
    "node": "QOSMaxNodePerUserLimit", "mem": "QOSMaxMemoryPerUser",
}  # fmt: skip
_QOS_GRP_REASON = {
    "cpu": "QOSGrpCpuLimit", "gres/gpu": "QOSGrpGRES", "node": "QOSGrpNodeLimit",
    "mem": "QOSGrpMemLimit",
}  # fmt: skip
_ASSOC_GRP_REASON = {
    "cpu": "AssocGrpCpuLimit", "gres/gpu": "AssocGrpGRES", "node": "AssocGrpNodeLimit",
    "mem": "AssocGrpMemLimit",
}  # fmt: skip


class _RunningView:
    """The running jobs as policies see them, built only if a policy looks (FIFO never does)."""

    __slots__ = ("_items", "_jobs", "_now")

    def __init__(self, jobs: dict, now: float):
        self._jobs, self._now, self._items = jobs, now, None

    def _build(self) -> list[RunningJob]:
        if self._items is None:
            now = self._now
            self._items = [
                RunningJob(j.id, j.nodes, j.usage, max(j.start + j.limit, now))
                for j in self._jobs.values()
            ]
        return self._items

    def __iter__(self):
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._jobs)


def _job_tres(job) -> dict[str, int]:
    n = job.count
    return {
        "cpu": int(job.demand[0]) * n, "mem": int(job.demand[1]) * n, "gres/gpu": int(job.demand[2]) * n,
        "node": n,
    }  # fmt: skip


def _sum_tres(jobs) -> dict[str, int]:
    out = {"cpu": 0, "mem": 0, "gres/gpu": 0, "node": 0}
    for j in jobs:
        u = j.usage.sum(axis=0)
        out["cpu"] += int(u[0])
        out["mem"] += int(u[1])
        out["gres/gpu"] += int(u[2])
        out["node"] += len(j.nodes)
    return out


class SimJob:
    """The engine's mutable record of one job (one array task is one job)."""

    __slots__ = (
        "account", "array_id", "array_job", "array_task", "begin", "by", "count", "demand", "deps",
        "deps_any", "eligible", "end", "exit_code", "id", "key", "limit", "mask", "name", "nodes",
        "partition", "pending", "planned", "priority", "proc", "reason", "reasons", "res",
        "restarts", "runtime", "seq", "spec", "start", "state", "submit", "tier", "user", "wjob",
        "plans", "requeue", "runs", "usage", "throttle", "exclusive", "work_left", "ckpt",
        "run_plan", "acct", "assoc", "qos", "charged", "factors", "preempting", "victims",
        "preempted_by", "planned_nodes",
    )  # fmt: skip

    def __init__(self):
        self.reasons: list[tuple[float, str]] = []
        self.plans: list[tuple[float, float]] = []
        self.runs: list[dict] = []
        self.state = "PENDING"
        self.reason = "None"
        self.start = None
        self.end = None
        self.nodes: tuple[int, ...] = ()
        self.by = None
        self.planned = None
        self.planned_nodes = None
        self.restarts = 0
        self.exit_code = "0:0"
        self.proc = None
        self.eligible = None
        self.pending: PendingJob | None = None
        self.run_plan = None  # (remaining work, restarted, planned length, how it ends)
        self.acct = {"useful": 0.0, "lost": 0.0, "writing": 0.0, "restarting": 0.0}
        self.charged = 0.0
        self.factors: list[tuple[float, object]] = []
        self.preempting = False
        self.victims: tuple[int, ...] = ()
        self.preempted_by = None

    def sort_key(self):
        """Slurm's evaluation order: preempting jobs first, then tier, priority, submit, id."""
        return (
            0 if self.preempting else 1,
            *sort_key(self.tier, self.priority, self.submit, self.id),
        )


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """Engine switches that are not policy: how time limits and requeues behave."""

    enforce_time_limit: bool = True
    requeue_delay: float = 121.0
    over_time_limit: float = 0.0


class Simulation:
    """One simulated cluster: submit jobs, advance time, read the state at any moment."""

    def __init__(
        self,
        cluster: Cluster,
        policy="easy",
        *,
        seed: int = 0,
        origin: pd.Timestamp | None = None,
        enforce_time_limit: bool = True,
        requeue_delay: float = 121.0,
        priority: Callable[[SimJob], float] | None = None,
        policy_params: dict | None = None,
        accounts: Sequence[Account] = (),
        qos: Sequence[Qos] = (),
        reservations: Sequence[Reservation] = (),
    ):
        self.cluster = cluster
        self.policy = make_policy(policy, **(policy_params or {}))
        self.seed = seed
        self.origin = DEFAULT_ORIGIN if origin is None else pd.Timestamp(origin)
        ot = cluster.setting("OverTimeLimit", "0") or "0"
        self.options = EngineOptions(
            enforce_time_limit=enforce_time_limit,
            requeue_delay=requeue_delay,
            over_time_limit=INF if ot.upper() == "UNLIMITED" else float(ot) * 60.0,
        )
        self.env = simpy.Environment()
        self.node_names = [n.name for n in cluster.nodes]
        self.node_index = {n: i for i, n in enumerate(self.node_names)}
        self.capacity = np.array(
            [[n.cpus, n.memory_mb if cluster.memory_tracked else 0, n.gpus] for n in cluster.nodes],
            dtype=np.int64,
        )
        self.free = self.capacity.copy()
        self.up = np.array([n.state not in ("DOWN", "DRAIN", "FUTURE") for n in cluster.nodes])
        self.node_state = {n.name: n.state for n in cluster.nodes}
        self.node_events: list[tuple[float, str, str]] = []
        self.jobs: dict[int, SimJob] = {}
        self.by_key: dict[str, list[int]] = {}
        self.queue: list[tuple[tuple, int]] = []  # eligible pending jobs, in evaluation order
        self.waiting: set[int] = set()  # pending but not eligible (begin time, dependency, limits)
        self.running: dict[int, SimJob] = {}
        self.dependents: dict[int, set[int]] = {}
        self.events: list[tuple] = []
        self._next_id = 1
        self._seq = 0
        self._pass_pending = False
        self._timer_running = False
        self._arrivals_left = 0
        self._priority_fn = priority
        self._bf_seen = -1  # event count at the last idle backfill cycle
        self._queued: Counter[str] = Counter()  # queued jobs per partition
        self._drained: set[str] = set()  # nodes an admin drained (kept drained across a failure)
        deps = (cluster.setting("DependencyParameters", "") or "").lower()
        self._kill_invalid_depend = "kill_invalid_depend" in deps
        self._resolved: dict[JobSpec, Resources] = {}  # specs resolve the same way every time
        self.blocked_windows: list[tuple[float, float, np.ndarray]] = []
        # priority/multifactor, fair share, QOS, reservations, preemption
        self.qos: dict[str, Qos] = {"normal": Qos("normal")}
        self.qos.update({q.name: q for q in qos})
        for q in self.qos.values():
            for other in q.preempt:
                if other not in self.qos:
                    raise SlurmlabError(f"QOS {q.name!r}: preempt names unknown QOS {other!r}")
        self.tree = AccountTree(accounts)
        self.has_accounts = bool(accounts)
        weights = MultifactorWeights.from_cluster(cluster)
        self.prio = PriorityState(cluster, weights, self.tree, self.qos) if weights else None
        self._tick_armed = False
        self._arm_priority_tick()
        ptype = (cluster.setting("PreemptType", "preempt/none") or "").lower()
        self.preempt_mode = (cluster.setting("PreemptMode", "OFF") or "OFF").split(",")[0].upper()
        self.preemption = ptype == "preempt/qos" and self.preempt_mode != "OFF"
        self._limits = any(
            q.max_jobs_per_user or q.max_tres_per_user or q.grp_tres for q in self.qos.values()
        ) or any(a.grp_tres or a.max_jobs for a in accounts)
        self.reservations: dict[str, tuple[Reservation, np.ndarray]] = {}
        for r in reservations:
            self._add_reservation(r)

    # -- time -------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.env.now

    def _at(self, delay: float, callback, priority: int = NORMAL) -> simpy.Event:
        ev = simpy.Event(self.env)
        ev._ok = True
        ev._value = None
        ev.callbacks.append(callback)
        self.env.schedule(ev, priority, delay)
        return ev

    def log(self, kind: str, job: SimJob | None = None, detail: str = "") -> None:
        self.events.append(
            (self.env.now, kind, job.id if job else None, job.key if job else None, detail)
        )

    # -- submission ---------------------------------------------------------------------------
    def add_workload(self, workload: Workload) -> None:
        """Schedule every job of ``workload`` to be submitted at its submit time."""
        jobs = sorted(enumerate(workload.jobs), key=lambda p: (p[1].submit, p[0]))
        self._arrivals_left += len(jobs)
        self.env.process(self._arrivals([j for _, j in jobs]))

    def _arrivals(self, jobs: list[WorkloadJob]):
        i, n = 0, len(jobs)
        while i < n:
            t = jobs[i].submit
            if t > self.env.now:
                yield self.env.timeout(t - self.env.now)
            while i < n and jobs[i].submit <= self.env.now:
                self._arrivals_left -= 1
                self.submit(jobs[i])
                i += 1

    def submit(self, wjob: WorkloadJob) -> list[int]:
        """Submit now: validate, create the job (one per array task), queue it; return ids."""
        spec = wjob.spec
        try:
            res = self._resolved.get(spec)
            if res is None:
                res = self._resolved[spec] = spec.resources(self.cluster)
        except RequestError as exc:
            raise RequestError(f"job {wjob.id or spec.job_name}: {exc}") from None
        if spec.reservation is not None and spec.reservation not in self.reservation_names():
            raise RequestError(
                f"job {wjob.id or spec.job_name}: --reservation={spec.reservation}: "
                "Requested reservation is invalid (no such reservation)"
            )
        tasks = spec.array.indices if spec.array else (None,)
        ids = []
        array_id = None
        for task in tasks:
            job = self._new_job(wjob, spec, res)
            if spec.array:
                array_id = array_id or job.id
                base = wjob.id or str(array_id)
                job.array_job, job.array_task = str(array_id), task
                job.key = f"{base}_{task}"
                job.throttle = spec.array.throttle
                job.array_id = array_id
            self.by_key.setdefault(job.key, []).append(job.id)
            if spec.array:
                self.by_key.setdefault(wjob.id or str(array_id), []).append(job.id)
            ids.append(job.id)
            self.log("submit", job)
            self._enqueue(job)
        self._arm_priority_tick()
        self.request_pass()
        return ids

    def reservation_names(self) -> set[str]:
        return set(self.reservations)

    def _add_reservation(self, r: Reservation) -> None:
        """``scontrol create reservation``: its nodes are kept for its users during its window."""
        if r.name in self.reservations:
            raise SlurmlabError(f"reservation {r.name!r} is defined twice")
        if r.nodes:
            unknown = [n for n in r.nodes if n not in self.node_index]
            if unknown:
                raise SlurmlabError(f"reservation {r.name!r}: unknown nodes {unknown}")
            idx = [self.node_index[n] for n in r.nodes]
        else:
            if r.node_count > len(self.node_names):
                raise SlurmlabError(
                    f"reservation {r.name!r}: node_count {r.node_count} exceeds the cluster's "
                    f"{len(self.node_names)} nodes"
                )
            idx = list(range(r.node_count))  # the lowest nodes, deterministically
        mask = np.zeros(len(self.node_names), dtype=bool)
        mask[idx] = True
        self.reservations[r.name] = (r, mask)
        usage = np.zeros_like(self.capacity)
        usage[mask] = self.capacity[mask]
        self.blocked_windows.append((r.start, r.end, usage))
        for t, what in ((r.start, "reservation_start"), (r.end, "reservation_end")):
            self._at(max(0.0, t - self.env.now), lambda _e, w=what: self._resv_edge(r, w), NORMAL)

    def _new_job(self, wjob: WorkloadJob, spec: JobSpec, res: Resources) -> SimJob:
        job = SimJob()
        job.id = self._next_id
        self._next_id += 1
        self._seq += 1
        job.seq = self._seq
        job.key = wjob.id or str(job.id)
        job.wjob, job.spec, job.res = wjob, spec, res
        job.name = spec.job_name
        job.user = wjob.user or spec.user or "user"
        job.account = wjob.account or spec.account or self.tree.default_account(job.user) or "root"
        job.qos = spec.qos or "normal"
        if job.qos not in self.qos:
            raise RequestError(
                f"job {job.key}: --qos={job.qos}: Invalid qos specification (known: "
                f"{', '.join(sorted(self.qos))})"
            )
        job.assoc = self.tree.association(job.account, job.user) if self.has_accounts else None
        if self.has_accounts and job.assoc is None:
            raise RequestError(
                f"job {job.key}: user {job.user!r} account {job.account!r}: Invalid account or "
                "account/partition combination specified"
            )
        if spec.reservation is not None and spec.reservation in self.reservations:
            resv = self.reservations[spec.reservation][0]
            if not resv.admits(job.user, job.account):
                raise RequestError(
                    f"job {job.key}: --reservation={spec.reservation}: Access denied to requested "
                    f"reservation (it admits users {list(resv.users)} and accounts "
                    f"{list(resv.accounts)})"
                )
        job.preempting = self.preemption and bool(self.qos[job.qos].preempt)
        job.partition = res.partition
        job.tier = self.cluster.partition(res.partition).priority_tier
        job.submit = self.env.now
        job.runtime = float(wjob.runtime)
        job.work_left = job.runtime
        job.ckpt = wjob.checkpoint
        job.limit = INF if res.time_limit is None else res.time_limit.total_seconds()
        job.array_job = job.array_task = job.array_id = job.throttle = None
        job.requeue = self.cluster.job_requeue if spec.requeue is None else spec.requeue
        job.exclusive = res.whole_node
        job.demand = np.array(
            [res.cpus_per_node, res.mem_per_node_mb, res.gpus_per_node], dtype=np.int64
        )
        mask = np.zeros(len(self.node_names), dtype=bool)
        mask[[self.node_index[n] for n in res.candidates]] = True
        job.mask = mask
        job.count = res.nodes
        job.usage = None
        job.priority = self._priority(job)
        job.deps = spec.dependency
        job.deps_any = spec.dependency_any
        begin = spec.begin
        if begin is None:
            job.begin = self.env.now
        elif isinstance(begin, timedelta):
            job.begin = self.env.now + begin.total_seconds()
        else:
            job.begin = (pd.Timestamp(begin) - self.origin).total_seconds()
        self.jobs[job.id] = job
        return job

    def _priority(self, job: SimJob) -> float:
        if self._priority_fn is not None:
            return self._priority_fn(job)
        if self.prio is not None:
            f = self.prio.factors(job, self.env.now)
            job.factors.append((self.env.now, f))
            return f.priority(self.prio.w)
        return basic_priority(job.seq, job.spec.nice)

    def _arm_priority_tick(self) -> None:
        """Schedule the next recalculation at the next multiple of PriorityCalcPeriod."""
        if self.prio is None or self._tick_armed:
            return
        self._tick_armed = True
        period, now = self.prio.w.calc_period, self.env.now
        self._at(period - (now % period) if now % period else period, self._priority_tick, URGENT)

    def _priority_tick(self, _event=None) -> None:
        """PriorityCalcPeriod: decay and charge usage, recompute fair share and priorities.

        The recalculation keeps itself going only while something can still change (jobs
        run, arrive, or wait for a time or an event); a queue of jobs that can never start
        must not tick for ever. A submission or a job start re-arms it.
        """
        self._tick_armed = False
        self.prio.tick(self.env.now, self.running.values())
        pending = [self.jobs[j] for _k, j in self.queue] + [self.jobs[j] for j in self.waiting]
        for job in pending:
            job.priority = self._priority(job)
        self.queue = sorted((self.jobs[j].sort_key(), j) for _k, j in self.queue)
        self.log("priority", None, "")
        if (
            self.running
            or self._arrivals_left
            or self._future_work()
            or any(self.jobs[j].reason == "Reservation" for j in self.waiting)
        ):
            self._arm_priority_tick()
        if self.queue:
            self.request_pass()

    # -- eligibility --------------------------------------------------------------------------
    def _enqueue(self, job: SimJob) -> None:
        """Put a pending job in the queue if eligible now, else wait with a reason."""
        reason = self._ineligible_reason(job)
        if reason is None:
            if job.eligible is None:
                job.eligible = self.env.now
                self.log("eligible", job)
            insort(self.queue, (job.sort_key(), job.id))
            self._queued[job.partition] += 1
            self.waiting.discard(job.id)
            self._set_reason(job, "Priority")
            return
        if reason == "DependencyNeverSatisfied" and self._kill_invalid_depend:
            # DependencyParameters=kill_invalid_depend: Slurm cancels such a job at once
            self.waiting.discard(job.id)
            job.state, job.end, job.exit_code = "CANCELLED", self.env.now, "0:0"
            self._set_reason(job, reason)
            self.log("end", job, "CANCELLED")
            self._release_dependents(job)
            return
        self.waiting.add(job.id)
        self._set_reason(job, reason)
        if reason == "BeginTime":
            self._at(job.begin - self.env.now, lambda _e, j=job: self._recheck(j))
        elif reason == "Reservation":
            start = self.reservations[job.spec.reservation][0].start
            self._at(start - self.env.now, lambda _e, j=job: self._recheck(j))

    def _dequeue(self, job: SimJob) -> None:
        entry = (job.sort_key(), job.id)
        i = bisect_left(self.queue, entry)
        if i == len(self.queue) or self.queue[i] != entry:  # pragma: no cover - engine bug
            raise RuntimeError(f"job {job.key} is not in the queue")
        del self.queue[i]
        self._queued[job.partition] -= 1

    def _recheck(self, job: SimJob) -> None:
        if job.state == "PENDING" and job.id in self.waiting:
            self._enqueue(job)
            if job.id not in self.waiting:
                self.request_pass()

    def _ineligible_reason(self, job: SimJob) -> str | None:
        part = self.cluster.partition(job.partition)
        if part.state in ("DOWN", "INACTIVE"):
            return "PartitionDown" if part.state == "DOWN" else "PartitionInactive"
        if part.max_time is not None and job.limit > part.max_time.total_seconds():
            return "PartitionTimeLimit"
        if part.max_nodes is not None and job.count > part.max_nodes:
            return "PartitionNodeLimit"
        q = self.qos[job.qos]
        if q.max_wall is not None and job.limit > q.max_wall.total_seconds():
            return "QOSMaxWallDurationPerJobLimit"
        if job.spec.hold:
            return "JobHeldUser"
        if job.spec.reservation:
            resv = self.reservations[job.spec.reservation][0]
            if self.env.now >= resv.end:
                return "InvalidReservation"
            if self.env.now < resv.start:
                return "Reservation"
        if job.begin > self.env.now:
            return "BeginTime"
        if job.deps:
            state = self._dependency_state(job)
            if state != "ok":
                return "DependencyNeverSatisfied" if state == "never" else "Dependency"
        return None

    def _targets(self, job: SimJob, ref: str) -> list[SimJob]:
        ids = self.by_key.get(ref)
        if ids is None:
            raise SlurmlabError(
                f"job {job.key}: --dependency names job {ref!r}, which was not submitted before it"
            )
        for i in ids:
            self.dependents.setdefault(i, set()).add(job.id)
        return [self.jobs[i] for i in ids]

    def _dependency_state(self, job: SimJob) -> str:
        """'ok', 'wait' or 'never' for the job's --dependency list (',' all / '?' any)."""
        results = []
        for dep in job.deps:
            if dep.kind == "singleton":
                results.append(self._singleton_state(job))
                continue
            states = []
            for ref in dep.job_ids:
                for t in self._targets(job, ref):
                    states.append(_dep_one(dep.kind, t))
            if "never" in states:
                results.append("never")
            elif all(s == "ok" for s in states):
                results.append("ok")
            else:
                results.append("wait")
        if job.deps_any:
            if "ok" in results:
                return "ok"
            return "never" if all(r == "never" for r in results) else "wait"
        if "never" in results:
            return "never"
        return "ok" if all(r == "ok" for r in results) else "wait"

    def _singleton_state(self, job: SimJob) -> str:
        for other in self.jobs.values():
            if (
                other.id < job.id
                and other.name == job.name
                and other.user == job.user
                and other.state in ("PENDING", "RUNNING")
            ):
                self.dependents.setdefault(other.id, set()).add(job.id)
                return "wait"
        return "ok"

    def _release_dependents(self, job: SimJob) -> None:
        for jid in sorted(self.dependents.pop(job.id, ())):
            dep = self.jobs[jid]
            if dep.state == "PENDING" and jid in self.waiting:
                self._enqueue(dep)

    def _set_reason(self, job: SimJob, reason: str) -> None:
        if job.reason != reason:
            job.reason = reason
            job.reasons.append((self.env.now, reason))

    # -- the scheduling pass ---------------------------------------------------------------------
    def request_pass(self) -> None:
        """Ask for one scheduling pass at the end of the current instant."""
        if not self._pass_pending:
            self._pass_pending = True
            self._at(0, self._pass, LATE)
        if self.policy.interval and not self._timer_running and self.queue:
            self._timer_running = True
            self._schedule_timer()

    def _pending_jobs(self):
        """The eligible queue in evaluation order, lazily; throttled array tasks left out."""
        throttled: dict[int, int] = {}
        for _key, jid in self.queue:
            job = self.jobs[jid]
            if job.throttle is not None:
                running = throttled.get(job.array_id)
                if running is None:
                    running = sum(1 for r in self.running.values() if r.array_id == job.array_id)
                if running >= job.throttle:
                    self._set_reason(job, "JobArrayTaskLimit")
                    throttled[job.array_id] = running
                    continue
                throttled[job.array_id] = running + 1
            if job.spec.reservation:
                continue  # started by the reservation pass, inside its reservation
            if self._limits:
                reason = self._limit_reason(job)
                if reason:
                    self._set_reason(job, reason)
                    continue
            if job.pending is None:
                job.pending = PendingJob(
                    job.id, job.partition, job.demand, job.count, job.mask, job.limit,
                    job.exclusive, job.spec.reservation, tuple(int(x) for x in job.demand),
                )  # fmt: skip
            pending = job.pending
            if job.planned_nodes is not None and job.planned is not None:
                pending = replace(pending, planned=(job.planned, job.planned_nodes))
            if self.reservations:
                blocked = self._reserved_nodes(self.env.now, self.env.now + job.limit)
                if blocked is not None and (job.mask & blocked).any():
                    yield replace(pending, mask=job.mask & ~blocked)
                    continue
            yield pending

    def _resv_edge(self, r: Reservation, what: str) -> None:
        self.events.append((self.env.now, what, None, None, r.name))
        self.request_pass()

    def _reserved_nodes(self, t0: float, t1: float) -> np.ndarray | None:
        """Nodes held by reservations overlapping [t0, t1) (None when there are none)."""
        out = None
        for r, mask in self.reservations.values():
            if r.start < t1 and r.end > t0:
                out = mask.copy() if out is None else out | mask
        return out

    def _limit_reason(self, job: SimJob) -> str | None:
        """The QOS/association limit that starting ``job`` now would exceed, in Slurm's words."""
        q = self.qos[job.qos]
        need = _job_tres(job)
        if q.max_jobs_per_user is not None:
            n = sum(1 for r in self.running.values() if r.user == job.user and r.qos == job.qos)
            if n + 1 > q.max_jobs_per_user:
                return "QOSMaxJobsPerUserLimit"
        if q.max_tres_per_user:
            used = _sum_tres(
                r for r in self.running.values() if r.user == job.user and r.qos == job.qos
            )
            for k, lim in q.max_tres_per_user.items():
                if used.get(k, 0) + need.get(k, 0) > lim:
                    return _QOS_USER_REASON[k]
        if q.grp_tres:
            used = _sum_tres(r for r in self.running.values() if r.qos == job.qos)
            for k, lim in q.grp_tres.items():
                if used.get(k, 0) + need.get(k, 0) > lim:
                    return _QOS_GRP_REASON[k]
        acct = self.tree.accounts.get(job.account)
        if acct is not None and (acct.grp_tres or acct.max_jobs):
            mine = [r for r in self.running.values() if r.account == job.account]
            if acct.max_jobs is not None and len(mine) + 1 > acct.max_jobs:
                return "AssocMaxJobsLimit"
            used = _sum_tres(mine)
            for k, lim in acct.grp_tres.items():
                if used.get(k, 0) + need.get(k, 0) > lim:
                    return _ASSOC_GRP_REASON[k]
        return None

    def _view(self) -> QueueView:
        now = self.env.now
        running = _RunningView(self.running, now)
        return QueueView(
            now, self._pending_jobs(), running, self.free, self.capacity, self.up,
            self.node_names, self.blocked_windows, sum(1 for c in self._queued.values() if c),
        )  # fmt: skip

    def _pass(self, _event=None) -> None:
        self._pass_pending = False
        if not self.queue:
            return
        if self.reservations:
            self._reservation_pass()
        if self.preemption:
            self._preempt_pass()
        self._apply(self.policy.schedule(self._view()))

    def _reservation_pass(self) -> None:
        """Jobs with an advance reservation are evaluated first, on their reservation's nodes."""
        for _key, jid in list(self.queue):
            job = self.jobs[jid]
            if not job.spec.reservation:
                continue
            _r, mask = self.reservations[job.spec.reservation]
            nodes = choose_nodes(
                self.free, self.capacity, job.demand, job.count, job.mask & mask & self.up,
                job.exclusive,
            )  # fmt: skip
            if nodes is None:
                self._set_reason(job, "Resources")
            elif not (self._limits and self._limit_reason(job)):
                self._start(job, nodes, "main")

    def _preempt_pass(self) -> None:
        """PreemptType=preempt/qos: a job whose QOS may preempt others frees room by doing so.

        The fewest lower-QOS running jobs (lowest priority, most recently started first)
        whose nodes let the preemptor start are preempted. Each victim's own QOS PreemptMode
        (else the cluster's) decides: CANCEL ends it PREEMPTED, REQUEUE requeues it (when
        requeueable), OFF exempts it; it goes after its QOS GraceTime.
        """
        for _key, jid in list(self.queue):
            job = self.jobs[jid]
            if not job.preempting:
                break  # preempting jobs sort first
            if any(self.jobs[v].state == "RUNNING" for v in job.victims):
                continue  # victims are still in their grace time
            q = self.qos[job.qos]
            mask = job.mask & self.up
            if self.reservations:
                blocked = self._reserved_nodes(self.env.now, self.env.now + job.limit)
                if blocked is not None:
                    mask = mask & ~blocked
            if choose_nodes(self.free, self.capacity, job.demand, job.count, mask, job.exclusive):
                continue
            cands = sorted(
                (
                    r
                    for r in self.running.values()
                    if r.qos in q.preempt
                    and r.preempted_by is None
                    and self._preempt_mode_of(r) != "OFF"
                ),
                key=lambda r: (r.priority, -r.start, -r.id),
            )
            free = self.free.copy()
            chosen, nodes = [], None
            for victim in cands:
                free[list(victim.nodes)] += victim.usage
                chosen.append(victim)
                nodes = choose_nodes(
                    free, self.capacity, job.demand, job.count, mask, job.exclusive
                )
                if nodes is not None:
                    break
            if nodes is None:
                continue
            victims = [v for v in chosen if set(v.nodes) & set(nodes)]
            for v in victims:
                v.preempted_by = job.id
                requeue = self._preempt_mode_of(v) == "REQUEUE" and v.requeue
                self.log("preempt", v, f"by {job.key}")
                grace = self.qos[v.qos].grace_time
                self._at(grace, lambda _e, v=v, r=requeue, b=job.id: self._preempt(v, b, r), URGENT)
            job.victims = tuple(v.id for v in victims)

    def _preempt_mode_of(self, victim: SimJob) -> str:
        """The preempted job's mode: its QOS PreemptMode, else the cluster's (preempt_qos.c)."""
        return self.qos[victim.qos].preempt_mode or self.preempt_mode

    def _preempt(self, victim: SimJob, by: int, requeue: bool) -> None:
        if victim.state == "RUNNING" and victim.proc.is_alive:
            victim.proc.interrupt(Preempted(by, requeue))

    def _schedule_timer(self) -> None:
        """Arm the backfill timer for the next multiple of the policy's interval."""
        interval = self.policy.interval
        now = self.env.now
        delay = interval - (now % interval) if now % interval else interval
        self._at(delay, self._backfill_tick, AFTER_PASS)

    def _backfill_tick(self, _event=None) -> None:
        """One backfill cycle, after the main pass of its instant; re-armed while jobs pend."""
        if not self.queue:
            self._timer_running = False
            return
        # A cycle can only start jobs after something changed (an event): an idle cycle
        # after an idle cycle would start nothing, so it is skipped (speed, same starts).
        if len(self.events) != self._bf_seen:
            decision = self.policy.backfill(self._view())
            self._apply(decision)
            self._bf_seen = -1 if decision.starts else len(self.events)
        if self.running or self._arrivals_left or self._future_work() or self._pass_pending:
            self._schedule_timer()
        else:
            self._timer_running = False

    def _future_work(self) -> bool:
        """Whether anything scheduled later could let a pending job start.

        Node repairs and resumes need no timer: they request a pass, which re-arms it (a
        node that stays DOWN must not keep the timer ticking for ever).
        """
        return any(self.jobs[j].reason in ("BeginTime", "Dependency") for j in self.waiting)

    def _apply(self, decision: Decision) -> None:
        refused = False
        for start in decision.starts:
            job = self.jobs[start.job]
            if self._limits:
                reason = self._limit_reason(job)
                if reason:  # another start of this pass used up the limit
                    self._set_reason(job, reason)
                    refused = True
                    continue
            self._start(job, start.nodes, start.by)
        if refused:  # the policy counted the refused job's nodes as taken: look again now
            self.request_pass()
        now = self.env.now
        for jid, reason in decision.reasons.items():
            job = self.jobs[jid]
            if job.state == "PENDING":
                self._set_reason(job, reason)
        for jid, t in decision.planned.items():
            job = self.jobs[jid]
            job.planned_nodes = decision.planned_nodes.get(jid)
            if job.planned != t:
                job.planned = t
                job.plans.append((now, t))

    # -- running jobs -------------------------------------------------------------------------------
    def _start(self, job: SimJob, nodes: tuple[int, ...], by: str) -> None:
        self._dequeue(job)
        idx = list(nodes)
        usage = self.capacity[idx].copy() if job.exclusive else np.tile(job.demand, (len(idx), 1))
        if (self.free[idx] < usage).any():  # pragma: no cover - a policy bug, never input
            raise RuntimeError(f"policy {self.policy.name} oversubscribed nodes for job {job.key}")
        self.free[idx] -= usage
        job.usage = usage
        job.nodes = tuple(nodes)
        job.state = "RUNNING"
        job.start = self.env.now
        job.by = by
        job.planned_nodes = None
        self._set_reason(job, "None")
        self.running[job.id] = job
        self._arm_priority_tick()
        self.log("start", job, by)
        job.proc = self.env.process(self._run(job))
        if job.id in self.dependents:  # --dependency=after:<this job> is satisfied by its start
            self._release_dependents(job)

    def _run_length(self, job: SimJob) -> tuple[float, str]:
        """How long this run lasts and how it ends if nothing interrupts it.

        The run needs its remaining work plus checkpoint overheads (:mod:`.checkpoint`).
        Past the time limit (+ OverTimeLimit) it is killed (TIMEOUT), unless the job
        checkpoints on ``--signal``: then, when the signal arrives, it writes a final
        checkpoint (``write_cost`` s) and requeues itself. A signal that leaves no time to
        save any work (or to finish the write before the limit) cannot help: TIMEOUT.
        """
        restarted = job.restarts > 0 and job.ckpt is not None
        need = run_length(job.work_left, job.ckpt, restarted)
        limit = job.limit + self.options.over_time_limit
        if self.options.enforce_time_limit and need > limit:
            sig, ckpt = job.spec.signal, job.ckpt
            if ckpt is not None and ckpt.on_signal and sig is not None:
                length = max(0.0, job.limit - sig.seconds) + ckpt.write_cost
                saved = run_outcome(
                    length, job.work_left, ckpt, restarted, final_checkpoint=True
                ).saved
                if length <= job.limit and saved > 0:
                    return length, "SIGNAL_REQUEUE"
            return limit, "TIMEOUT"
        return need, "COMPLETED" if job.wjob.exit_code == 0 else "FAILED"

    def _run(self, job: SimJob):
        length, state = self._run_length(job)
        job.run_plan = (job.work_left, job.restarts > 0 and job.ckpt is not None)
        done = simpy.Event(self.env)
        done._ok, done._value = True, None
        self.env.schedule(done, URGENT, length)
        try:
            yield done
        except simpy.Interrupt as interrupt:
            self._account(job, final_checkpoint=False)
            self._interrupted(job, interrupt.cause)
            return
        if state == "SIGNAL_REQUEUE":
            self._account(job, final_checkpoint=True)
            self._finish(job, "REQUEUED", "0:0", requeue=True)
            return
        self._account(job, final_checkpoint=False)
        code = f"{job.wjob.exit_code}:0" if state == "FAILED" else "0:0"
        self._finish(job, state, code)

    def _account(self, job: SimJob, *, final_checkpoint: bool) -> None:
        """Book the run's useful, lost and overhead seconds; keep the saved progress."""
        remaining, restarted = job.run_plan
        out = run_outcome(
            self.env.now - job.start, remaining, job.ckpt, restarted,
            final_checkpoint=final_checkpoint,
        )  # fmt: skip
        job.work_left = remaining - out.saved
        if job.ckpt is None and out.saved < remaining:
            job.work_left = job.runtime  # no checkpoint: a restart begins from zero
        job.acct = {
            "useful": out.saved, "lost": out.lost, "writing": out.writing,
            "restarting": out.restarting,
        }  # fmt: skip

    def _interrupted(self, job: SimJob, cause) -> None:
        if isinstance(cause, Cancelled):
            self._finish(job, "CANCELLED", "0:15")
        elif isinstance(cause, NodeFailed):
            self._finish(job, "NODE_FAIL", "0:0", requeue=job.requeue)
        elif isinstance(cause, Preempted):
            self._finish(job, "PREEMPTED", "0:15", requeue=cause.requeue)
        elif isinstance(cause, Requeued):
            self._finish(job, "REQUEUED", "0:15", requeue=True)
        else:  # pragma: no cover - causes are a closed set
            raise TypeError(f"unknown interruption cause {cause!r}")

    def _finish(self, job: SimJob, state: str, exit_code: str, requeue: bool = False) -> None:
        if self.prio is not None:
            self.prio.charge(job, self.env.now)
        idx = list(job.nodes)
        self.free[idx] += job.usage
        del self.running[job.id]
        job.end = self.env.now
        job.exit_code = exit_code
        self.log("end", job, state)
        if requeue:
            self._requeue(job, state)
        else:
            job.state = state
            self._release_dependents(job)
        self.request_pass()

    def _requeue(self, job: SimJob, state: str) -> None:
        """The run ends in ``state``; the job pends again as the same JobID (sacct -D shows both)."""
        job.runs.append(self._run_record(job, state))
        job.restarts += 1
        job.state = "PENDING"
        job.submit = self.env.now
        job.eligible = None
        job.start = job.end = None
        job.nodes, job.usage, job.by, job.planned = (), None, None, None
        job.planned_nodes = None
        job.acct = {"useful": 0.0, "lost": 0.0, "writing": 0.0, "restarting": 0.0}
        job.preempted_by = None
        job.charged = 0.0
        job.begin = self.env.now + self.options.requeue_delay
        job.pending = None
        self.log("requeue", job, state)
        self._enqueue(job)

    def _run_record(self, job: SimJob, state: str) -> dict:
        return {
            "Submit": job.submit, "Eligible": job.eligible, "Start": job.start, "End": job.end,
            "State": state, "ExitCode": job.exit_code, "nodes": job.nodes, "by": job.by,
            "Restarts": job.restarts, "usage": job.usage, **job.acct,
        }  # fmt: skip

    # -- control ------------------------------------------------------------------------------------
    def cancel(self, key: str | int) -> None:
        """``scancel``: end a pending or running job (all tasks of an array) as CANCELLED."""
        for job in self._lookup(key):
            if job.state == "RUNNING":
                job.proc.interrupt(Cancelled())
            elif job.state == "PENDING":
                if job.id in self.waiting:
                    self.waiting.discard(job.id)
                else:
                    self._dequeue(job)
                job.state = "CANCELLED"
                job.end = self.env.now
                job.exit_code = "0:0"
                self.log("end", job, "CANCELLED")
                self._release_dependents(job)
                self.request_pass()

    def requeue(self, key: str | int) -> None:
        """``scontrol requeue``: a running job's run ends REQUEUED and it pends again."""
        for job in self._lookup(key):
            if job.state == "RUNNING":
                job.proc.interrupt(Requeued())
            elif job.state not in ("PENDING",):
                raise SlurmlabError(
                    f"job {job.key}: cannot requeue a job in state {job.state} (only running jobs)"
                )

    def set_node_state(self, name: str, state: str) -> None:
        """Admin node state: ``DRAIN`` (running jobs finish, no new ones), ``IDLE`` (resume)."""
        if name not in self.node_index:
            raise SlurmlabError(f"Invalid node name specified: {name!r}")
        i = self.node_index[name]
        if state == "DRAIN":
            self._drained.add(name)
        elif state == "IDLE":
            self._drained.discard(name)
        self.node_state[name] = state
        self.up[i] = state not in ("DOWN", "DRAIN", "FUTURE")
        self.node_events.append((self.env.now, name, state))
        self.events.append((self.env.now, f"node_{state.lower()}", None, None, name))
        self.request_pass()

    def fail_node(self, name: str, down_for: float | None = None) -> None:
        """The node goes DOWN now: jobs on it end NODE_FAIL (requeued if allowed)."""
        if name not in self.node_index:
            raise SlurmlabError(f"failure of unknown node {name!r}")
        i = self.node_index[name]
        if self.node_state[name] == "DOWN":
            return
        self.set_node_state(name, "DOWN")
        for job in list(self.running.values()):
            if i in job.nodes and job.proc.is_alive:
                job.proc.interrupt(NodeFailed(name))
        if down_for is not None:
            self._at(down_for, lambda _e, n=name: self._repair(n), URGENT)

    def _repair(self, name: str) -> None:
        """A repaired node returns to service, still drained if an admin drained it."""
        if self.node_state[name] == "DOWN":
            self.set_node_state(name, "DRAIN" if name in self._drained else "IDLE")

    def add_failures(self, failures=(), random=None) -> None:
        """Scripted failures (:class:`NodeFailure`) and random ones (:class:`RandomFailures`)."""
        for f in failures:
            if f.node not in self.node_index:
                raise SlurmlabError(
                    f"failures: node {f.node!r} is not in cluster {self.cluster.name!r}"
                )
            self._at(
                f.at - self.env.now, lambda _e, f=f: self.fail_node(f.node, f.down_for), URGENT
            )
        if random is not None:
            names = list(random.nodes) or self.node_names
            for name, rng in random.streams(names, self.seed).items():
                if name not in self.node_index:
                    raise SlurmlabError(f"random_failures: node {name!r} is not in the cluster")
                self.env.process(self._failure_process(name, rng, random))

    def _failure_process(self, name, rng, model):
        while True:
            yield self.env.timeout(model.draw(rng))
            if not self._work_remaining():
                return
            self.fail_node(name)
            yield self.env.timeout(model.repair)
            self._repair(name)

    def _work_remaining(self) -> bool:
        """Jobs still to run: running, queued, arriving, or waiting on something that passes."""
        if self.running or self._arrivals_left:
            return True
        # with nothing running, a job held by a QOS/association limit can never start
        held = ("QOS", "Assoc")
        return any(not self.jobs[j].reason.startswith(held) for _k, j in self.queue) or any(
            self.jobs[j].reason not in PERMANENT for j in self.waiting
        )

    def add_actions(self, actions) -> None:
        """Schedule scripted admin actions (cancel/requeue a job, drain/resume a node).

        An action runs after the arrivals of its instant (so it can name a job submitted
        then) and before that instant's scheduling pass.
        """
        for act in actions:
            self._at(act.at - self.env.now, lambda _e, a=act: self._do(a), LATE)

    def _do(self, act) -> None:
        if act.action == "cancel":
            self.cancel(act.target)
        elif act.action == "requeue":
            self.requeue(act.target)
        elif act.action == "drain":
            self.set_node_state(act.target, "DRAIN")
        else:
            self.set_node_state(act.target, "IDLE")

    def _lookup(self, key: str | int) -> list[SimJob]:
        ids = self.by_key.get(str(key))
        if ids is None:
            raise SlurmlabError(f"Invalid job id specified: {key!r}")
        return [self.jobs[i] for i in ids]

    def run(self, until: float | None = None, progress=None) -> None:
        """Advance simulated time (to ``until``, or until nothing is left to happen)."""
        if until is None:
            if progress is None:
                self.env.run()
            else:
                while self.env.peek() < INF:
                    self.env.step()
                    progress(self.env.now)
            return
        while self.env.peek() <= until:
            self.env.step()
        if until > self.env.now:
            self.env.run(until=until)


def _dep_one(kind: str, target: SimJob) -> str:
    """One dependency condition against one job: 'ok', 'wait' or 'never'."""
    st = target.state
    if kind == "after":
        return "ok" if st != "PENDING" or target.start is not None else "wait"
    if st in ("PENDING", "RUNNING"):
        return "wait"
    if kind == "afterany":
        return "ok"
    if kind in ("afterok", "aftercorr"):
        return "ok" if st == "COMPLETED" else "never"
    if kind == "afternotok":
        return "never" if st == "COMPLETED" else "ok"
    raise AssertionError(kind)  # pragma: no cover


def iter_records(sim: Simulation) -> Iterable[tuple[SimJob, dict, bool]]:
    """Every run of every job as (job, run, is_last): earlier runs of requeued jobs first."""
    for job in sim.jobs.values():
        for run in job.runs:
            yield job, run, False
        yield job, sim._run_record(job, job.state), True  # noqa: SLF001
