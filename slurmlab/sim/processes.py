"""Job and node lifecycles: a running job waits for its end event; nodes fail and come back.

A run is one simpy event at its planned end (a process per job would cost three events
and a generator for the same meaning). The run may be interrupted with a typed cause
(:mod:`slurmlab.sim.causes`): like ``simpy.Process.interrupt``, the interruption is
delivered by an urgent event at the current instant, and is void if the run has ended
by then. The cause decides the final state, whether the job is requeued, and (with
:mod:`slurmlab.sim.checkpoint`) how much of its work survives.
Nodes are drained, resumed, failed (scripted or from :mod:`slurmlab.sim.faults` models)
and repaired here.
"""

from __future__ import annotations

import math
import warnings
from heapq import _siftdown, _siftup, heappush  # (_sift*: see _unschedule)
from typing import TYPE_CHECKING

import numpy as np

from slurmlab.errors import SlurmlabError
from slurmlab.sim.causes import Cancelled, NodeFailed, Preempted, Requeued
from slurmlab.sim.checkpoint import run_length, run_outcome
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.timing import URGENT
from slurmlab.sim.updates import set_limit
from slurmlab.spec.units import compress_hostlist, expand_hostlist, parse_list_of

#: a job requeued this many times gets a warning (failures may outpace its progress)
REQUEUE_WARNING = 100
#: requeues of one job after which a run without an end time stops with an error: it has
#: shown it cannot finish (each run failing before it ends), and would run for ever
REQUEUE_LIMIT = 10_000

if TYPE_CHECKING:  # the engine assembles these mixins; only types come back
    from slurmlab.sim.engine import SimJob

__all__ = ["Lifecycles"]


def pending_partitions(job: SimJob, t: float, parts: str | None = None) -> str:
    """The partition squeue and sacct show for a job of several partitions (``-p a,b``)
    pending at ``t`` whose list was ``parts`` then (None: its list now): the list as given,
    or, once it has run in one of them, the partition it ran in then the others
    (job_scheduler.c ``rebuild_job_part_list``)."""
    parts = job.parts if parts is None else parts
    names = parts.split(",")
    last = None
    for run in job.runs:
        if run["Start"] is not None and run["Start"] <= t:
            last = run["Partition"]
    if len(names) == 1 or last not in names:
        return parts
    return ",".join([last] + [p for p in names if p != last])


def in_record(job: SimJob) -> bool:
    """Whether ``job`` is an array task pending in its array's pending record: never started
    nor split off by scontrol (slurmctld keeps such tasks in one job record, the array's
    JobID; a record scancel ended whole pends again whole when requeued)."""
    return job.in_rec and job.state == "PENDING"


def unthrottled(job: SimJob, eligible: float) -> float | None:
    """The eligible time slurmdbd has for an array task that waited for its array's throttle
    (JobArrayTaskLimit) since it became eligible: slurmctld zeroes its begin time while the
    throttle holds it back (job_mgr.c job_array_start_test) and sets it to the time it next
    finds the task eligible (job_independent), when the reason it waits for changes or it
    starts; None while the throttle still holds it. Its age factor still counts from
    ``eligible``: the throttle leaves its accrue time alone (real Slurm 22.05: the ``arrays``,
    ``backfill-throttle`` and ``array-lines`` fixtures' Eligible are the tasks' starts)."""
    reasons = job.reasons
    for k in range(len(reasons) - 1, -1, -1):
        t, why = reasons[k]
        if t < eligible:
            break
        if why == "JobArrayTaskLimit":
            if k + 1 < len(reasons):
                return reasons[k + 1][0]
            return job.start if job.start is not None and job.start >= t else None
    return eligible


class Lifecycles:
    """The job- and node-lifecycle half of :class:`~slurmlab.sim.engine.Simulation` (a mixin)."""

    def _start(self, job: SimJob, nodes: tuple[int, ...], by: str) -> None:
        if in_record(job):  # (an array task: it leaves its array's pending record)
            self._leave_record(job)
        self._dequeue(job)
        job.victims = ()  # (what it preempted for is behind it: PendingJob.preempting)
        spread = getattr(nodes, "rows", None)  # (a job spread over nodes: placement.Spread)
        if spread is not None:
            idx = list(nodes)
            usage = np.array(spread, dtype=self.free.dtype)
            self.free[idx] -= usage
            short = (self.free[idx] < 0).any()
        elif len(nodes) == 1:  # one row: basic indexing is several times cheaper than a list
            i = nodes[0]
            whole = job.exclusive or job.whole_memory  # (what it holds depends on the node)
            usage = job.usage_on([i], self.capacity) if whole else job.rows_on(1)
            row = self.free[i]
            row -= usage[0]
            short = row[0] < 0 or row[1] < 0 or row[2] < 0
        else:
            idx = list(nodes)
            usage = job.usage_on(idx, self.capacity)
            self.free[idx] -= usage
            short = (self.free[idx] < 0).any()
        if short:  # pragma: no cover - a policy bug, never input
            raise RuntimeError(f"policy {self.policy.name} oversubscribed nodes for job {job.key}")
        job.usage = usage
        job.running_view = None
        job.nodes = tuple(nodes)
        job.state = "RUNNING"
        job.start = self.env.now
        job.by = by
        job.planned_nodes = None
        job.unschedule(self.env.now)  # (node_scheduler.c: sched_nodes freed at the start)
        self._set_reason(job, "None")
        self.running[job.id] = job
        if job.array_id is not None:  # (node_scheduler.c job_array_start: tot_run_tasks)
            self._tasks_running[job.array_id] = self._tasks_running.get(job.array_id, 0) + 1
        self._limit_records.pop(job.id, None)
        self._run_epoch += 1  # (the limits' sums of running jobs are cached per epoch)
        self._arm_priority_tick()
        self.log("start", job, by)
        self._run(job)
        if job.id in self.dependents:  # --dependency=after:<this job> is satisfied by its start
            self._release_dependents(job)

    def _run_length(self, job: SimJob, restarted: bool | None = None) -> tuple[float, str]:
        """How long this run lasts and how it ends if nothing interrupts it.

        The run needs its remaining work plus checkpoint overheads (:mod:`.checkpoint`).
        Past the time limit (+ OverTimeLimit) it is killed (TIMEOUT), unless the job
        checkpoints on ``--signal``: then, when the signal arrives, it writes a final
        checkpoint (``write_cost`` s) and requeues itself. A signal that leaves no time to
        save any work (or to finish the write before the limit) cannot help: TIMEOUT.
        """
        if restarted is None:  # (a run in progress passes its own: job.run_plan)
            restarted = _restarted(job)
        need = run_length(job.work_left, job.ckpt, restarted)
        limit = job.limit + self.options.over_time(job.partition)
        if self.options.enforce_time_limit and need > limit:
            sig, ckpt = job.spec.signal, job.ckpt
            # (a job that may not be requeued cannot requeue itself: scontrol refuses it)
            if ckpt is not None and ckpt.on_signal and sig is not None and job.requeue:
                length = max(0.0, job.limit - sig.seconds) + ckpt.write_cost
                saved = run_outcome(
                    length, job.work_left, ckpt, restarted, final_checkpoint=True
                ).saved
                if length <= job.limit and saved > 0:
                    return length, "SIGNAL_REQUEUE"
            return limit, "TIMEOUT"
        return need, "COMPLETED" if job.wjob.exit_code == 0 else "FAILED"

    def _run(self, job: SimJob) -> None:
        """Plan the run's end: one event, ``job.live`` until the run ends or is interrupted."""
        length, state = self._run_length(job)
        job.run_plan = (job.work_left, _restarted(job))
        job.scratch = False
        job.live = True
        job.proc = self._at(length, lambda _e, j=job, s=state: self._run_ended(j, s), URGENT)
        heappush(self._expected_ends, (job.start + job.limit, job.id, job.restarts, job.proc))

    def _run_ended(self, job: SimJob, state: str) -> None:
        """The run ends on its own, in ``state``. A job preempted whose run ends during its
        GraceTime ends so too (COMPLETED, FAILED, TIMEOUT), and is not requeued: Slurm
        requeues or kills a victim only at its grace end (preempt.c slurm_job_preempt returns
        while _job_check_grace_internal finds the grace running), and a job that exits first
        gets the state of its exit (job_mgr.c _job_complete; its preemptor starts when the
        resources are free, as after any end)."""
        job.live = False
        if state == "SIGNAL_REQUEUE":
            self._account(job, final_checkpoint=True)
            self._finish(job, "REQUEUED", "0:0", requeue=True)
            return
        self._account(job, final_checkpoint=False)
        code = f"{job.wjob.exit_code}:0" if state == "FAILED" else "0:0"
        self._finish(job, state, code)

    def interrupt(self, job: SimJob, cause) -> None:
        """Interrupt a running job's run with a typed cause, as ``simpy.Process.interrupt`` does.

        Delivered by an urgent event now; void if the run has ended (or was interrupted)
        by then.
        """
        if job.live:
            self._at(0, lambda _e, j=job, p=job.proc, c=cause: self._deliver(j, p, c), URGENT)

    def _deliver(self, job: SimJob, run, cause) -> None:
        if not job.live or job.proc is not run:
            return  # the run ended first, or another interruption was delivered
        job.live = False
        self._drop_end(run)
        self._account(job, final_checkpoint=False)
        self._interrupted(job, cause)

    def _drop_end(self, run) -> None:
        """The run's planned end no longer happens (interrupted, or planned again), nor
        moves the clock when its time comes."""
        run.callbacks.clear()
        _unschedule(self.env, run)

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
        # The job's own row (sacct's allocation line) shows ExitCode 0:0 for every one of
        # these: the signal (0:15) is on its .batch step (datasets/realslurm/failures).
        if isinstance(cause, Cancelled):
            self._finish(job, "CANCELLED", "0:0")
        elif isinstance(cause, NodeFailed):
            self._finish(job, "NODE_FAIL", "0:0", requeue=job.requeue)
        elif isinstance(cause, Preempted):
            self._finish(job, "PREEMPTED", "0:0", requeue=cause.requeue)
        elif isinstance(cause, Requeued):
            self._finish(job, "REQUEUED", "0:0", requeue=True)
        else:  # pragma: no cover - causes are a closed set
            raise TypeError(f"unknown interruption cause {cause!r}")

    def _finish(self, job: SimJob, state: str, exit_code: str, requeue: bool = False) -> None:
        self._changed()
        if self.prio is not None:
            self.prio.charge(job, self.env.now)
        if len(job.nodes) == 1:
            self.free[job.nodes[0]] += job.usage[0]
        else:
            self.free[list(job.nodes)] += job.usage
        del self.running[job.id]
        if job.array_id is not None:  # (job_mgr.c _job_array_comp)
            self._tasks_running[job.array_id] -= 1
        self._run_epoch += 1
        self._n_ended += 1
        job.end = self.env.now
        job.exit_code = exit_code
        self.log("end", job, state)
        if requeue:
            self._requeue(job, state)
            if job.id in self.dependents:  # (a singleton's running blocker pends again,
                self._release_dependents(job)  # behind it when its JobID is higher)
        else:
            job.state = state
            self._release_dependents(job)
        self.request_pass()

    def _requeue(self, job: SimJob, state: str) -> None:
        """The run ends in ``state``; the job pends again as the same JobID (sacct -D shows both)."""
        job.runs.append(self._run_record(job, state))
        job.restarts += 1
        if job.restarts == REQUEUE_WARNING:  # say it once: the run may never end
            warnings.warn(
                f"job {job.key} has been requeued {job.restarts} times (last: {state} at "
                f"t={self.env.now:.0f}s): if failures come faster than it can make progress, "
                "the simulation never ends; simulate(..., until=...) stops it at a time",
                stacklevel=1,
            )
        if job.restarts >= REQUEUE_LIMIT and self._unbounded:
            raise SlurmlabError(
                f"job {job.key} has been requeued {job.restarts} times (last: {state} at "
                f"t={self.env.now:.0f}s) without ending: failures come faster than it can make "
                "progress, so the simulation would never end. Bound it with until= "
                "(simulate, Scenario.run, Lab.run) or --until (slurmlab simulate), or make "
                "failures rarer (mtbf) or the job checkpoint"
            )
        job.state = "PENDING"
        # batch_requeue_fini (job_mgr.c): "make sure the submit isn't the same as the last
        # submit so put now + 1 so we get different records in the database"
        now = self.env.now  # (Slurm's times are whole seconds)
        job.submit = now + 1 if math.floor(now) == math.floor(job.submit) else now
        job.eligible = None
        job.start = job.end = None
        job.nodes, job.usage, job.by = (), None, None
        job.drop_plan(now)  # the plan of its first wait (squeue --start: its begin time, or N/A)
        job.acct = {"useful": 0.0, "lost": 0.0, "writing": 0.0, "restarting": 0.0}
        job.preempted_by = None
        job.charged = 0.0
        job.begin = self.env.now + self.options.requeue_delay
        if job.full_limit is not None:  # (lowered to its --time-min: its default again)
            self._remember(job)
            set_limit(job, job.full_limit)
            job.full_limit = None
        job.pending = None
        # Its priority is kept: no requeue path of job_mgr.c calls set_job_prio
        # (kill_running_job_by_node_name, _job_requeue_op, batch_requeue_fini; only a
        # release after a hold does), so under priority/basic a training job requeued after
        # a node failure keeps its place ahead of the jobs submitted since. Under
        # multifactor (and a custom priority) its factors are computed again, as Slurm's
        # periodic recalculation does, from its new submit and begin times.
        if self.prio is not None or self._priority_fn is not None:
            self._reprioritise(job)
        self.log("requeue", job, state)
        self._enqueue(job)

    def _run_record(self, job: SimJob, state: str) -> dict:
        eligible = job.eligible
        if eligible is None and job.reason == "BeginTime" and job.start is None and not job.deps:
            # waiting for its begin time (--begin, a requeue's delay), pending still or ended
            # so (cancelled): slurmdbd has that time as its eligible time from the run's first
            # record (accounting_storage_slurmdbd.c _setup_job_start_msg: eligible_time =
            # begin_time), and a cancel leaves it. One waiting for a dependency has none
            eligible = job.begin
        elif eligible is not None and job.throttle is not None:
            eligible = unthrottled(job, eligible)
        # Begin: the begin time in force for this run (--begin, or the requeue delay's end),
        # which squeue --start shows at an earlier time while the run waited for it
        return {
            "Submit": job.submit, "Eligible": eligible, "Begin": job.begin, "Start": job.start,
            "End": job.end,
            "State": state, "ExitCode": job.exit_code, "nodes": job.nodes, "by": job.by,
            "Restarts": job.restarts, "usage": job.usage, "raw": job.raw, **job.acct,
            "Partition": job.partition
            if job.alts is None or job.start is not None
            else pending_partitions(job, self.env.now),
        }  # fmt: skip

    def _node(self, name: str) -> int:
        """The index of node ``name``, as scontrol names a mistake."""
        if name not in self.node_index:
            raise SlurmlabError(
                f"Invalid node name specified: {name!r} (nodes: {compress_hostlist(self.node_names)})"
            )
        return self.node_index[name]

    def set_node_state(self, name: str, state: str) -> None:
        """Admin node state: ``DRAIN`` (running jobs finish, no new ones), ``IDLE`` (resume)."""
        i = self._node(name)
        if state == "DRAIN" and self._in_repair(name):
            # a node that failed and is being repaired stays down; it comes back drained
            # (sinfo shows it drain* meanwhile: node_state_string_compact tests DRAIN first)
            self._drained.add(name)
            self.node_events.append((self.env.now, name, "DRAIN"))
            self.events.append((self.env.now, "node_drain", None, None, name))
            return
        if state == "IDLE" and self._in_repair(name):
            # a node that failed and is being repaired does not respond: Slurm shows a
            # resumed one idle* (IDLE+NOT_RESPONDING) and allocates nothing on it, until its
            # pings time out again (SlurmdTimeout) and mark it down. slurmlab keeps it down*
            # until the repair, when it comes back (its drain, if any, is lifted now)
            self._drained.discard(name)
            warnings.warn(
                f"node {name} failed and is down until its repair at "
                f"t={self._back_at[name]:.0f}s: resuming it lifts its drain, and it returns "
                "to service when repaired; until then sinfo shows it down* (Slurm shows a "
                "resumed node that does not respond as idle* until SlurmdTimeout marks it "
                "down again, and allocates nothing on it either way)",
                stacklevel=3,
            )
            return
        self._changed()
        if state == "DRAIN":
            self._drained.add(name)
        elif state == "IDLE":  # (resumed: a node failed for good is back in service too)
            self._drained.discard(name)
            self._down_for_good.discard(name)
            self._back_at.pop(name, None)
        self.node_state[name] = state
        self.up[i] = state not in ("DOWN", "DRAIN", "FUTURE")
        self._idle_picks.clear()  # (test-only selections are on the nodes up)
        self._nodes_out = not self.up.all()
        self._up_counts = {}  # (Controller._nodes_not_avail)
        self.node_events.append((self.env.now, name, state))
        self.events.append((self.env.now, f"node_{state.lower()}", None, None, name))
        self.request_pass()

    def _in_repair(self, name: str) -> bool:
        """Whether the node failed and its repair is still to come."""
        return self.node_state[name] == "DOWN" and self._back_at.get(name, 0) > self.env.now

    def fail_node(self, name: str, down_for: float | None = None, *, repaired=False) -> bool:
        """The node goes DOWN now: jobs on it end NODE_FAIL (requeued if allowed). It comes
        back after ``down_for`` seconds (None: never, unless the caller ``repaired`` it).

        False if it was already down: no job is touched, and the outage lasts until the
        later of its repair and this one (``down_for`` None: for good), so a node that fails
        again while it is being repaired comes back when both repairs are done."""
        i = self._node(name)
        if self.node_state[name] == "DOWN":
            if down_for is None and not repaired:  # down already, and now for good
                self._down_for_good.add(name)
            elif (  # (an outage a failure started: a node configured DOWN stays so)
                down_for is not None
                and name in self._back_at
                and self.env.now + down_for > self._back_at[name]
            ):
                self._back_at[name] = self.env.now + down_for
                self._scripted_at(down_for, lambda: self._repair(name), URGENT)
            return False
        self.set_node_state(name, "DOWN")
        for job in list(self.running.values()):
            if i in job.nodes and job.live:
                self.interrupt(job, NodeFailed(name))
        if down_for is None:
            if not repaired:
                self._down_for_good.add(name)
        else:
            self._back_at[name] = self.env.now + down_for
            self._scripted_at(down_for, lambda: self._repair(name), URGENT)
        return True

    def _repair(self, name: str) -> None:
        """A repaired node returns to service, still drained if an admin drained it (not one
        a later failure took down for good, nor one whose outage a later failure made
        longer)."""
        if self._back_at.get(name, 0) > self.env.now:
            return
        if self.node_state[name] == "DOWN" and name not in self._down_for_good:
            if name in self._drained:  # (repaired: no longer failed, still drained)
                self.node_events.append((self.env.now, name, "IDLE"))
            self.set_node_state(name, "DRAIN" if name in self._drained else "IDLE")

    def add_failures(self, failures=(), random=None) -> None:
        """Scripted failures (:class:`NodeFailure`) and random ones (:class:`RandomFailures`:
        one model or several, say one per group of nodes, each failing its nodes on its own)."""
        models = (
            [] if random is None else parse_list_of(random, RandomFailures, what="random_failures")
        )
        for f in parse_list_of(failures, NodeFailure, what="failures"):
            names = expand_hostlist(f.node)  # (a hostlist, gpu[01-02], fails each node)
            unknown = [n for n in names if n not in self.node_index]
            if unknown:
                raise SlurmlabError(
                    f"failures: node {unknown[0]!r} is not in cluster {self.cluster.name!r} "
                    f"(it has {compress_hostlist(self.node_names)})"
                )
            for name in names:
                self._scripted_at(
                    f.at - self.env.now, lambda n=name, f=f: self.fail_node(n, f.down_for)
                )
        self._random_failures = self._random_failures or bool(models)
        for k, model in enumerate(models):
            # one stream per node of the cluster, whichever nodes the model names (naming
            # fewer or more nodes, or in another order, changes no node's failures)
            streams = model.streams(self.node_names, self.seed, k)
            for name in list(model.nodes) or self.node_names:
                if name not in self.node_index:
                    raise SlurmlabError(
                        f"random_failures: node {name!r} is not in cluster {self.cluster.name!r} "
                        f"(it has {compress_hostlist(self.node_names)})"
                    )
                self.env.process(self._failure_process(name, streams[name], model))

    def _failure_process(self, name, rng, model):
        # (its waits are in _failure_waits: a run without an end stops before one of them
        # when nothing is left to happen, rather than move the clock to it: _run_until)
        waits = self._failure_waits
        while True:
            wait = self.env.timeout(model.draw(rng))
            waits.add(wait)
            yield wait
            waits.discard(wait)
            if not self._work_remaining():
                continue  # (no failure while nothing can happen; a Lab may submit more later)
            if not self.fail_node(name, repaired=True):
                continue  # already down (a scripted failure, say): nothing to repair either
            self._back_at[name] = self.env.now + model.repair
            wait = self.env.timeout(model.repair)
            waits.add(wait)
            yield wait
            waits.discard(wait)
            self._repair(name)


def _restarted(job: SimJob) -> bool:
    """Whether the run restores a checkpoint first (and pays its restart cost): a requeued
    job that checkpoints and has saved progress, unless it was requeued to run again from
    the beginning (a job cut short before its first checkpoint has none to load)."""
    return (
        job.restarts > 0
        and job.ckpt is not None
        and not job.scratch
        and job.work_left < job.runtime
    )


def _unschedule(env, event) -> None:
    """Take a scheduled event out of simpy's queue (the planned end of an interrupted run):
    left there, void, it would still advance the clock to its time when nothing else is
    left (``Lab.run()`` after a scancel). The heap is mended at the entry's place, not
    rebuilt: a cluster of thousands of nodes keeps thousands of entries (an end per running
    job, a failure timer per node), and rebuilding it per cancelled or failed job made
    cancelling 4,000 tasks take 2 s. (Entries are unique, (time, priority, id): the heap
    pops them in the same order however it is laid out.)"""
    queue = env._queue  # simpy's heap of (time, priority, id, event)
    for i, entry in enumerate(queue):
        if entry[3] is event:
            last = queue.pop()
            if i < len(queue):
                queue[i] = last
                _siftup(queue, i)  # (heapq's own repair of a replaced entry, both ways)
                _siftdown(queue, 0, i)
            return
