"""``scontrol update`` of a job: its node count, time limit or partition changed while it
waits, or its time limit while it runs, as slurmctld's ``_update_job`` (job_mgr.c, Slurm
22.05) changes them. Checked against real Slurm 22.05.8 by hand (stop 32; the commands and
outputs are quoted in tests/test_scontrol_update.py).

* A pending job keeps its place: Submit and Eligible stay, and so does its priority under
  priority/basic (multifactor: below). Its standing plan is made again for the new
  request by the pass that follows (under ``slurm``, backfill's next cycle), and ``squeue
  --start`` shows the old one (START_TIME, SCHEDNODES) until then, as slurmctld keeps
  start_time and sched_nodes (the ``update`` fixture; job_mgr.c ``_update_job``). The changed
  request is checked as a submission of it would be (slurmlab refuses what sbatch would
  refuse, such as GPUs in a partition without any; Slurm takes such an update and the job
  then pends for ever, BadConstraints), and must still be admitted where it runs
  (AllowAccounts, its reservation); a partition's limits it breaks make it pend
  (PartitionNodeLimit, PartitionTimeLimit), as in Slurm.
* TimeLimit: a user may lower it (pending or running), and raise a pending job's up to
  its partition's MaxTime; only an operator (a scenario's action is an administrator's)
  raises it further or raises a running job's ("Access/permission denied"). An
  operator's limit is exempt from the partition's MaxTime and the QOS MaxWall
  (slurmctld's ADMIN_SET_LIMIT) until a user changes it. ``+T`` and ``-T`` add to or
  take from the limit, as scontrol's ``TimeLimit=+30``. A running job then ends at its
  start plus the new limit (+ OverTimeLimit) if its work is not done by then, TIMEOUT;
  when that moment has passed, OverTimeLimit after the update (slurmctld sets the end to
  now; its periodic time-limit check ends the job up to 30 s later). A job checkpointing
  on ``--signal`` whose signal moment has passed is signalled at the update, and writes
  its last checkpoint and requeues if that ends within its limit.
* Under priority/multifactor every update, refused or not, sets the job's priority
  again (job_mgr.c, unless it is held).
* NumNodes: a pending job's minimum. ``N`` keeps the maximum it had (``-N 3`` updated
  to ``NumNodes=1`` is ``-N 1-3``, which starts on up to 3 nodes when they are free, as
  in Slurm), and above that maximum is
  "Node count specification invalid": ``"N-N"`` (or ``"MIN-MAX"``) sets both. A task
  count below the new minimum is raised to it; without ``-n`` the tasks follow the nodes
  (slurmctld keeps the job's CPU count, NumCPUs: a ``-N 3`` job moved to one node asks
  for 3 CPUs there; slurmlab for 1, as a new ``-N 1`` job). A running job: Slurm can
  shrink it (not modelled: refused, saying so); growing is "Requested operation not
  supported on this system".
* Partition: a pending job's only ("Job is no longer pending execution"; the partition
  list it already has is accepted). A new partition or node count gives up the room its
  preemptions (preempt/qos) were freeing: the next pass preempts for the new request.

An array named whole changes every task (a running task's refusals are reported with the
others' success); some of its pending tasks are split off its pending record. Views of an
earlier moment (``squeue(at=...)``) show the request as it was then (``why_pending`` of
an earlier moment explains the request as it is now); the job tables (sacct) show it as
it is now (a requeued job's earlier runs as they ran), as sacct does; ReqTRES after a NumNodes change keeps the
CPUs, memory, billing and GPUs first asked for and changes the node count only, as Slurm
22.05 does (``-N 2 --gres=gpu:2`` updated to one node shows gres/gpu=4 in ReqTRES and 2
in AllocTRES; the update fixture's wide, cpu=2 and node=1).
"""

from __future__ import annotations

import math
import operator
from dataclasses import replace
from datetime import timedelta
from heapq import heappush
from typing import TYPE_CHECKING

from slurmlab.errors import SlurmlabError
from slurmlab.sim.timing import URGENT
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import format_duration, index_ranges
from slurmlab.spec.workload import node_range, update_value

if TYPE_CHECKING:  # the engine assembles this mixin; only types come back
    from slurmlab.sim.engine import SimJob

__all__ = ["Updates", "request_at"]


def request_at(
    job: SimJob, t: float, *, ended: bool = False
) -> tuple[float, int, str, dict | None, bool]:
    """The job's request as it was at ``t``: (time limit in seconds, node count, partition
    as squeue shows it, sacct's ReqTRES or None for its resources' own, and whether an
    update has changed it since). The values before the first update after ``t`` (at or
    after ``t`` for a run that ``ended`` at ``t``: an update in that instant came after
    it), else the current ones."""
    for when, limit, count, partition, req in job.requests or ():
        if t < when or (ended and t == when):
            return limit, count, partition, req, True
    return job.limit, job.count, job.parts or job.partition, job.req_tres, False


def _limit_text(seconds: float) -> str:
    return "UNLIMITED" if math.isinf(seconds) else format_duration(timedelta(seconds=seconds))


class _Refusal(SlurmlabError):
    """One job's refusal: scontrol's words and why (grouped with the same refusals of an
    array's other tasks, as scontrol prints ``28_0-3: Access/permission denied``)."""

    def __init__(self, words: str, job: SimJob, why: str = ""):
        self.words, self.why, self.job = words, why, job
        super().__init__(f"{words} for job {job.key}" + (f" ({why})" if why else ""))


def _refused(words: str, job: SimJob, why: str = "") -> _Refusal:
    """scontrol's error line for one job (``Access/permission denied for job 12``), and why."""
    return _Refusal(words, job, why)


def _grouped(refusals: list[_Refusal]) -> list[str]:
    """The refusals, those of one array with the same words and reason as one line naming
    its tasks (``1_[0-3]``)."""
    groups: dict[tuple, list[_Refusal]] = {}
    for r in refusals:
        array = r.job.array_job if r.job.array_task is not None else None
        groups.setdefault((array, r.words, r.why) if array else (id(r),), []).append(r)
    lines = []
    for rs in groups.values():
        first = rs[0]
        if len(rs) == 1:
            lines.append(str(first))
            continue
        base = first.job.key.rsplit("_", 1)[0]
        tasks = index_ranges(sorted(r.job.array_task for r in rs))
        lines.append(
            f"{first.words} for job {base}_[{tasks}]" + (f" ({first.why})" if first.why else "")
        )
    return lines


class Updates:
    """``scontrol update`` for :class:`~slurmlab.sim.engine.Simulation` (a mixin)."""

    def update(
        self,
        key: str | int,
        *,
        nodes: int | str | None = None,
        time_limit=None,
        partition: str | None = None,
        operator: bool = False,
        throttle: int | None = None,
    ) -> None:
        """``scontrol update JobId=KEY [NumNodes=N] [TimeLimit=T] [Partition=P]``, with the
        rules of the module's docstring. ``nodes`` is a count or ``"MIN-MAX"``;
        ``time_limit`` is read as ``-t`` (``"1:00:00"``, ``"30"`` minutes, ``"UNLIMITED"``,
        a timedelta; ``"+30"``/``"-30"`` relative). Refusals are raised together once the
        jobs not refused have changed, each as scontrol prints it. ``throttle``
        (``ArrayTaskThrottle=N``, an array's %N; 0: no limit) is changed on its own, with
        Slurm's rules of which records hold it: :meth:`update_throttle`."""
        if throttle is not None:
            if nodes is not None or time_limit is not None or partition is not None:
                raise SlurmlabError(
                    f"scontrol update JobId={key} ArrayTaskThrottle={throttle}: change the "
                    "throttle on its own (one update), then the other fields"
                )
            self.update_throttle(key, throttle)
            return
        jobs = self._records(key, "scontrol update")
        fields = {
            name: value
            for name, value in (("nodes", nodes), ("time_limit", time_limit),
                                ("partition", partition))
            if value is not None
        }  # fmt: skip
        command = " ".join(["scontrol update", f"JobId={key}", *_scontrol_words(fields)])
        if not fields:
            raise SlurmlabError(
                f"{command}: No changes specified (give nodes=, time=, partition= or throttle=)"
            )
        live = [j for j in jobs if j.state in ("PENDING", "RUNNING")]
        if not live:
            raise SlurmlabError(f"{command}: Job has already finished")
        self._split_tasks(jobs)  # (some tasks of an array: split off its pending record)
        refused: list[_Refusal] = []
        for job in live:
            try:
                if job.state == "RUNNING":
                    self._update_running(job, fields, operator)
                else:
                    self._update_pending(job, fields, operator)
            except _Refusal as exc:
                refused.append(exc)
                if job.state == "PENDING":  # (its priority is set again all the same)
                    self._set_priority_again(job)
        if refused:
            done = len(live) - len(refused)
            tail = f" ({done} of {len(live)} jobs changed)" if len(live) > 1 else ""
            raise SlurmlabError(f"{command}: " + "; ".join(_grouped(refused)) + tail)

    def update_throttle(self, key: str | int, throttle) -> None:
        """``scontrol update JobId=KEY ArrayTaskThrottle=N``: at most N tasks of the array
        run at once from now (0: no limit), as ``--array=...%N`` would have set; tasks
        already running beyond a lowered limit run on.

        As in Slurm 22.05, the throttle is the array's ``array_recs`` (job_mgr.c
        ``_update_job`` sets max_run_tasks only on a record that has them): the array's
        pending record and the task that keeps the array's JobID (the last to leave that
        record), even once it has ended. KEY naming the array, its pending record's tasks
        all, or that task changes it; KEY naming some of the tasks still in the pending
        record splits them off into records of their own (``update_job_str``, as for any
        update: they get JobIDs of their own) and changes nothing else, as does KEY naming
        another task or a job that is no array (no error: scontrol says nothing); a job
        that has ended and holds no array's throttle is refused ("Job has already
        finished")."""
        command = f"scontrol update JobId={key} ArrayTaskThrottle={throttle}"
        try:  # (as a scenario's update action reads it)
            limit = update_value("throttle", throttle) or None
        except SlurmlabError as exc:
            raise SlurmlabError(f"{command}: {exc}") from None
        jobs = self._records(key, "scontrol update")
        self._split_tasks(jobs)  # (some tasks of a pending record: split off it)
        arrays = {j.array_id for j in jobs if _holds_array_recs(j)}
        if not arrays:
            if all(j.state not in ("PENDING", "RUNNING") for j in jobs):
                raise SlurmlabError(f"{command}: Job has already finished")
            return
        for job in self.jobs.values():
            if job.array_id in arrays and job.throttle != limit:
                job.throttle = limit
                job.pending = job.pending_plan = None  # (policies see the new %N)
                for alt in job.alts or ():
                    alt[2] = None
        self._throttles = self._throttles or limit is not None
        for array in sorted(arrays):
            self.log("update", self.jobs[array], f"ArrayTaskThrottle={limit or 0}")
        self._changed()
        self.request_pass()

    def _set_priority_again(self, job: SimJob) -> None:
        """job_mgr.c ``update_job``: after any update of a job that is not held, refused or
        not, its priority is set again, unless under priority/basic (multifactor: its
        factors as they are now, the job size with its node count). A queued job takes its
        new place in the queue at once."""
        if self.prio is None or job.held:
            return
        if job.state == "PENDING" and job.id not in self.waiting:
            self._dequeue(job)
            self._reprioritise(job)
            self._enqueue(job)
            self.request_pass()
        else:
            self._reprioritise(job)

    @staticmethod
    def _new_limit(job: SimJob, spec: JobSpec, value) -> tuple[JobSpec, float]:
        """``spec`` with time limit ``value`` (``+T``/``-T``: relative to the job's), and
        that limit in seconds. scontrol reads it in whole minutes, a part of one rounded up
        (update_job.c ``time_str2mins``: ``TimeLimit=1:30`` is 2 minutes, ``-0:30`` takes
        one off), before a relative change is applied."""
        sign = value[0] if isinstance(value, str) and value[:1] in "+-" else ""
        try:
            spec = replace(spec, time_limit=value[1:] if sign else value, time_requested=True)
        except SlurmlabError as exc:
            raise _refused("Invalid time limit specification", job, str(exc)) from None
        seconds = math.inf if spec.time_limit is None else spec.time_limit.total_seconds()
        if math.isfinite(seconds) and seconds % 60:
            seconds = math.ceil(seconds / 60) * 60
            spec = replace(spec, time_limit=timedelta(seconds=seconds))
        if sign:
            if math.isinf(job.limit) or math.isinf(seconds):
                raise _refused(
                    "Invalid time limit specification", job, "a relative change needs finite limits"
                )
            seconds = job.limit + seconds if sign == "+" else job.limit - seconds
            if seconds <= 0:
                raise _refused(
                    "Invalid time limit specification", job,
                    f"{value} leaves no time of its {_limit_text(job.limit)}",
                )  # fmt: skip
            spec = replace(spec, time_limit=timedelta(seconds=seconds))
        return spec, seconds

    def _update_running(self, job: SimJob, fields: dict, operator: bool) -> None:
        # (job_mgr.c compares the request with the job's partition string: -p b,a's list)
        if "partition" in fields and fields["partition"] != (job.parts or job.partition):
            raise _refused("Job is no longer pending execution", job)
        if "nodes" in fields:
            low, _high = _node_range(fields["nodes"], job)
            if low > job.count:
                raise _refused("Requested operation not supported on this system", job)
            if low < job.count:
                raise _refused(
                    "Job is no longer pending execution", job,
                    f"NumNodes={low} would shrink the running job: Slurm releases its other "
                    "nodes at once, slurmlab does not model that; only a pending job's node "
                    "count changes here",
                )  # fmt: skip
        if "time_limit" not in fields:
            return
        if job.preempted_by is not None:  # (job_mgr.c: preempt_time set, ESLURM_JOB_FINISHED)
            raise _refused("Job has already finished", job, "it is being preempted")
        spec, new = self._new_limit(job, job.spec, fields["time_limit"])
        if new == job.limit:
            return
        if job.time_min and new < job.time_min:  # (real Slurm 22.05, checked by hand)
            raise _refused(
                "Invalid time-min specification (exceeds job's time or other limits)", job,
                f"TimeLimit={_limit_text(new)} is below its --time-min, "
                f"{_limit_text(job.time_min)}",
            )  # fmt: skip
        if new > job.limit and not operator:
            raise _refused(
                "Access/permission denied", job,
                f"a user may lower a running job's time limit, {_limit_text(job.limit)}; only "
                "an operator or administrator may raise it",
            )  # fmt: skip
        self._remember(job)
        job.spec, job.wjob = spec, replace(job.wjob, spec=spec)
        set_limit(job, new)
        job.full_limit = None  # (a limit set by update stays at a requeue: limit_set)
        job.admin_time = operator  # (limit_set.time: an operator's is ADMIN_SET_LIMIT)
        # its end is planned again: the old event leaves simpy's queue (as an interruption's)
        self._drop_end(job.proc)
        end, state = self._new_end(job)
        job.proc = self._at(
            end - self.env.now, lambda _e, j=job, s=state: self._run_ended(j, s), URGENT
        )
        self._expect_end(job)
        job.running_view = None  # (policies see its new expected end)
        self.log("update", job, f"TimeLimit={_limit_text(new)}")
        self._set_priority_again(job)
        self._changed()
        self.request_pass()

    def _lower_limit(self, job: SimJob, limit: float) -> None:
        """Start the job with a lower time limit (``Start.limit``: Slurm 22.05's backfill
        starts a ``--time-min`` job with its limit lowered to it, backfill.c). sacct and
        squeue show the lower limit from then on. A job with ``-t`` keeps it, requeued
        too (slurmctld stores no other); one without gets its default back at a requeue
        (``_job_requeue_op``: limit_set.time)."""
        self._remember(job)
        if job.spec.time_requested:
            spec = replace(job.spec, time_limit=timedelta(seconds=limit))
            job.spec, job.wjob = spec, replace(job.wjob, spec=spec)
        elif job.full_limit is None:
            job.full_limit = job.limit
        set_limit(job, limit)
        if job.alts is not None:  # (-p a,b: its records are made again if it is requeued)
            for alt in job.alts:
                alt[2] = None
        self.log("update", job, f"TimeLimit={_limit_text(limit)} (--time-min, by backfill)")

    def _new_end(self, job: SimJob) -> tuple[float, str]:
        """When and how the running job ends under its new limit. Its work may still end
        it first. Else, when the new end (start + limit) has passed, slurmctld sets it to
        now (job_mgr.c), so the job still gets OverTimeLimit from the update; and a job
        whose ``--signal`` moment has passed gets the signal now (at the next time-limit
        check in Slurm), then writes its last checkpoint and requeues if that ends by its
        limit."""
        now = self.env.now
        _remaining, restarted = job.run_plan
        length, state = self._run_length(job, restarted)
        end = job.start + length
        if state == "TIMEOUT":
            end = max(job.start + job.limit, now) + self.options.over_time(job.partition)
        elif state == "SIGNAL_REQUEUE" and end - job.ckpt.write_cost < now:
            end = now + job.ckpt.write_cost  # (signalled now: the final write follows)
            if end > job.start + job.limit:
                end = max(job.start + job.limit, now) + self.options.over_time(job.partition)
                state = "TIMEOUT"
        return max(end, now), state

    def _expect_end(self, job: SimJob) -> None:
        """The run's expected end (start + limit) in the heap :meth:`_unchanged` reads; an
        entry of the same moment (a limit set back to an earlier value) is replaced, so that
        no two entries compare their events."""
        entry = (job.start + job.limit, job.id, job.restarts, job.proc)
        ends = self._expected_ends
        for i, old in enumerate(ends):
            if old[:3] == entry[:3]:
                ends[i] = entry  # (same key: the heap stays a heap)
                return
        heappush(ends, entry)

    def _update_pending(self, job: SimJob, fields: dict, operator: bool) -> None:
        spec = job.spec
        changes: dict = {}
        if "nodes" in fields:
            low, high = _node_range(fields["nodes"], job)
            # its maximum: -N N is N-N; without -N none (sbatch leaves max_nodes unset)
            top = spec.max_nodes or spec.nodes or math.inf
            if high is None:  # NumNodes=N sets the minimum and keeps the maximum
                if low > top:
                    raise _refused(
                        "Node count specification invalid", job,
                        f"NumNodes={low} is above its maximum, {top}: NumNodes={low}-{low} "
                        "sets both",
                    )  # fmt: skip
                high = top
            if low < 1 or high < low:
                asked = fields["nodes"]
                raise _refused("Node count specification invalid", job, f"NumNodes={asked}")
            changes["nodes"] = low
            changes["max_nodes"] = high if low < high < math.inf else None
            if spec.ntasks is not None and spec.ntasks < low:
                changes["ntasks"] = low  # (job_mgr.c: num_tasks at least min_nodes)
        if "partition" in fields:
            changes["partition"] = fields["partition"]
        try:
            spec = replace(spec, **changes)
        except SlurmlabError as exc:  # (a count past what a request may hold, say)
            raise _refused("Invalid job specification", job, str(exc)) from None
        new = None
        if "time_limit" in fields:
            spec, new = self._new_limit(job, spec, fields["time_limit"])
        wjob = replace(job.wjob, spec=spec)
        try:
            res, shape = self._checked(wjob)
            if isinstance(res, tuple):  # -p a,b: each partition it may run in
                results, first = list(res), shape[0][1]
            else:
                results, first = [res], shape
            self._admitted(wjob, job, results, first)
        except SlurmlabError as exc:  # (a RequestError, or an SbatchError of the request)
            text = str(exc)
            if "Invalid partition name" in text:  # (Slurm refuses these too)
                raise _refused("Invalid partition name specified", job, text) from None
            if "INACTIVE" in text or "Required partition not available" in text:
                raise _refused(
                    "Required partition not available (inactive or drain)", job, text
                ) from None
            if "Invalid time-min specification" in text:  # (a limit below its --time-min)
                raise _refused(
                    "Invalid time-min specification (exceeds job's time or other limits)", job,
                    text.split(": Invalid time-min")[0],
                ) from None  # fmt: skip
            raise _refused(
                "Requested node configuration is not available", job,
                f"{text}; slurmlab refuses what a submission of the changed request would be "
                "refused for, where Slurm takes the update and leaves the job pending (e.g. "
                "BadConstraints)",
            ) from None  # fmt: skip
        if new is not None and new > job.limit and not operator:
            # (job_mgr.c: the MaxTime of its partition, the new one if that changes too)
            part = self.cluster.partition(results[0].partition)
            top = math.inf if part.max_time is None else part.max_time.total_seconds()
            if new > top:
                raise _refused(
                    "Access/permission denied", job,
                    f"a user may raise a pending job's time limit up to its partition's "
                    f"MaxTime, {_limit_text(top)} in {part.name!r}; only an operator or "
                    "administrator above it",
                )  # fmt: skip
        kept = job.req_tres or job.res.requested()  # (ReqTRES: Slurm changes its node only)
        self._remember(job)
        if "time_limit" in fields:
            job.admin_time = operator  # (limit_set.time: an operator's is ADMIN_SET_LIMIT)
        if "partition" in fields or "nodes" in fields:
            # the room its preemptions free is for the request it had: the preempted jobs
            # go on ending, and the next pass preempts for the new one if it may
            job.victims = ()
        queued = job.id not in self.waiting
        if queued:
            self._dequeue(job)  # (its entries as they were: -p a,b, one per partition)
        else:
            self.waiting.discard(job.id)
        res, shape = self._alternatives(job, spec, res, shape)
        job.spec, job.wjob = spec, wjob
        self._set_shape(job, res, shape)
        if "nodes" in fields:
            job.req_tres = {**kept, "node": job.count}
        job.pending = job.pending_plan = None  # (policies see the new request)
        # its plan is for the old request: the policies plan it afresh, while squeue --start
        # shows the old one (StartTime, SchedNodes) until a pass replaces it or drops it
        # (_apply: it stays in _plans): _update_job (job_mgr.c) leaves start_time and
        # sched_nodes, which only backfill's next cycle clears and sets again (backfill.c
        # _clear_job_estimates; the main scheduler keeps them: build_job_queue clear_start)
        job.planned = job.planned_nodes = None
        job.updated = True  # (conservative places it again in its order: PendingJob.updated)
        self._updated.add(job.id)
        if self.prio is not None and not job.held:  # (multifactor: set again at once)
            self._reprioritise(job)
        self.log("update", job, " ".join(_scontrol_words(fields, job)))
        self._changed()
        self._enqueue(job)
        self.request_pass()

    def _remember(self, job: SimJob) -> None:
        """Keep the request as it was until now, for views of earlier moments."""
        if job.requests is None:
            job.requests = []
        job.requests.append(
            (self.env.now, job.limit, job.count, job.parts or job.partition, job.req_tres)
        )


def _holds_array_recs(job: SimJob) -> bool:
    """Whether ``job``'s job record holds its array's ``array_recs`` (the throttle): a task
    in the array's pending record, or the task that keeps the array's JobID once it left it
    (job_mgr.c job_array_post_sched keeps array_recs there), but not one scancel took out
    of the record before it started (slurmctld keeps no record of it: job_str_signal)."""
    if job.array_id is None or job.raw != int(job.array_job):
        return False
    return job.in_rec or job.start is not None or bool(job.runs)


def set_limit(job: SimJob, seconds: float) -> None:
    """Give the job the time limit ``seconds`` (``inf``: none), its resources' too."""
    job.res = replace(
        job.res, time_limit=None if math.isinf(seconds) else timedelta(seconds=seconds)
    )
    job.limit = seconds


def _node_range(value, job: SimJob) -> tuple[int, int | None]:
    """NumNodes as scontrol reads it: ``N`` (the minimum; a numpy integer too, as a table
    gives it) or ``"MIN-MAX"``."""
    if not isinstance(value, bool | str):
        try:
            return operator.index(value), None
        except TypeError:
            pass
    span = node_range(value) if isinstance(value, str) else None
    if span is None:
        raise _refused(
            "Invalid numeric value", job, f"NumNodes={value!r}: give a count or MIN-MAX, e.g. 2"
        )
    return span


def _scontrol_words(fields: dict, job: SimJob | None = None) -> list[str]:
    """The update as scontrol's words (``NumNodes=2 TimeLimit=1:00:00 Partition=gpu``):
    the values asked for, or, with ``job``, the values they became."""
    words = []
    if "nodes" in fields:
        value = fields["nodes"]
        if job is not None:
            top = job.spec.max_nodes
            value = f"{job.count}-{top}" if top else job.count
        words.append(f"NumNodes={value}")
    if "time_limit" in fields:
        value = fields["time_limit"]
        if job is not None:
            value = _limit_text(job.limit)
        elif isinstance(value, timedelta):
            value = format_duration(value)
        words.append(f"TimeLimit={value}")
    if "partition" in fields:
        words.append(f"Partition={fields['partition'] if job is None else job.spec.partition}")
    return words
