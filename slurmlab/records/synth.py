"""Realistic synthetic ``sacct -P -D`` exports of any size, from a seed.

The generator writes what a busy AI cluster's accounting looks like: several accounts and
users, a typed-GPU partition (A100 and H100 nodes), a CPU and a debug partition; arrays
(and pending array ranges such as ``812_[4-9%2]``), ``.batch``/``.extern``/``.0`` steps,
failures, timeouts (whose ``.batch`` step is CANCELLED 0:15), OOM kills, jobs cancelled
while pending, and requeued jobs whose earlier runs appear as ``--duplicates`` rows.

It works in three passes. *Draw*: every job, array task and run gets its shape, its wished
start (submit plus a scheduler latency), its run time and its outcome. *Place*: runs are
taken in order of wished start and each gets the earliest time at or after it when enough
nodes have room (CPUs, GPUs and memory) for its whole run, on the lowest-named such nodes
(conservative backfill: a run placed earlier is never moved by a later one), so no node
ever holds more than it has; a run that cannot start before the export ends stays PENDING,
one still running at the end is RUNNING. *Write*: the rows, in submission order.

Randomness comes from ``numpy.random.SeedSequence(seed)`` spawned into independent streams
(arrivals, shapes, outcomes, usage); the global generator is never touched, so one seed
gives one file, byte for byte.

    python -m slurmlab.records.synth --jobs 2000 --seed 2026 -o export.psv
"""

from __future__ import annotations

import argparse
import datetime as dt
import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FIELDS", "SynthConfig", "synth_sacct"]

#: The 30 columns written, as ``sacct -o`` would take them.
FIELDS: tuple[str, ...] = (
    "JobID", "JobIDRaw", "JobName", "User", "Account", "Partition", "QOS", "State", "ExitCode",
    "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw", "Timelimit", "TimelimitRaw",
    "NNodes", "NCPUS", "NTasks", "ReqMem", "AllocTRES", "ReqTRES", "NodeList", "TotalCPU",
    "MaxRSS", "Priority", "Restarts", "Reason", "WorkDir",
)  # fmt: skip

_ACCOUNTS = {  # account -> (users, share of submissions, GPU-heavy?)
    "vision": (8, 0.25, True),
    "nlp": (10, 0.30, True),
    "speech": (4, 0.08, True),
    "robotics": (5, 0.10, True),
    "bio": (6, 0.12, False),
    "physics": (5, 0.10, False),
    "ops": (2, 0.05, False),
}
_NAMES = (
    "train",
    "eval",
    "sweep",
    "preprocess",
    "finetune",
    "infer",
    "bench",
    "tokenize",
    "ckpt-merge",
    "notebook",
)


@dataclass(frozen=True, slots=True)
class _Partition:
    prefix: str  # node names: prefix + zero-padded number
    nodes: int  # in one copy of the cluster
    cpus: int  # per node
    gpus: int  # per node
    gpu_types: tuple[str, ...]
    mem_gb: int  # per node
    max_hours: int


_PARTITIONS = {
    "gpu": _Partition("gpu", 64, 64, 8, ("a100", "h100"), 1024, 48),
    "cpu": _Partition("cpu", 128, 128, 0, (), 512, 72),
    "debug": _Partition("dbg", 4, 32, 2, ("a100",), 256, 1),
}

#: Submissions a day that one copy of the cluster takes with its GPUs about 80 % busy.
_JOBS_PER_DAY_PER_COPY = 120.0


@dataclass(frozen=True, slots=True)
class SynthConfig:
    """Shape of a synthetic export; the defaults look like a busy mid-size AI cluster.

    ``copies``: how many copies of the cluster (64 GPU, 128 CPU and 4 debug nodes) the
    export's cluster has; their nodes are numbered on (the second copy's GPU nodes are
    ``gpu[065-128]``) and each submission runs in one of them, in turn. ``None`` gives one
    copy per 120 submissions a day, so any ``jobs_per_day`` keeps the GPUs about 80 % busy
    instead of queueing without end.
    """

    start: str = "2026-01-05T00:00:00"
    jobs_per_day: float = _JOBS_PER_DAY_PER_COPY
    array_fraction: float = 0.08
    requeue_fraction: float = 0.03
    pending_range_fraction: float = 0.5  # of arrays submitted in the last tenth of the export
    copies: int | None = None

    def __post_init__(self):
        if self.jobs_per_day <= 0:
            raise ValueError(f"SynthConfig: jobs_per_day={self.jobs_per_day} must be positive")
        for name in ("array_fraction", "requeue_fraction", "pending_range_fraction"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"SynthConfig: {name}={value} must be between 0 and 1")
        if self.copies is not None and self.copies < 1:
            raise ValueError(
                f"SynthConfig: copies={self.copies} must be at least 1 (or None: one copy per "
                f"{_JOBS_PER_DAY_PER_COPY:g} jobs a day)"
            )
        try:
            dt.datetime.fromisoformat(self.start)
        except ValueError:
            raise ValueError(
                f"SynthConfig: start={self.start!r} is not a time; give YYYY-MM-DDTHH:MM:SS"
            ) from None

    @property
    def cluster_copies(self) -> int:
        """``copies``, or one copy per 120 submissions a day when it is None."""
        if self.copies is not None:
            return self.copies
        return max(1, math.ceil(self.jobs_per_day / _JOBS_PER_DAY_PER_COPY))


def _dur(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    text = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _cpu_time(seconds: float) -> str:
    """TotalCPU as sacct writes it: MM:SS.mmm under an hour, else [D-]HH:MM:SS."""
    if seconds < 3600:
        millis = int(round(seconds * 1000))
        return f"{millis // 60000:02d}:{millis // 1000 % 60:02d}.{millis % 1000:03d}"
    return _dur(int(seconds))


def _mem(mb: float) -> str:
    """A size the way sacct's default output rescales it (K, M or G, varying row by row)."""
    kb = mb * 1024
    if kb < 1024 * 10:
        return f"{int(kb)}K"
    if mb < 1024 * 10:
        return f"{mb:.2f}M"
    return f"{mb / 1024:.2f}G"


def _hostlist(prefix: str, numbers: Sequence[int], width: int) -> str:
    """Slurm's hostlist of some nodes of one prefix: ``gpu007``, ``gpu[003,007-008]``."""
    if len(numbers) == 1:
        return f"{prefix}{numbers[0]:0{width}d}"
    ranges, lo = [], numbers[0]
    for prev, n in zip(numbers, [*numbers[1:], None]):
        if n is None or n != prev + 1:
            ranges.append(f"{lo:0{width}d}" if lo == prev else f"{lo:0{width}d}-{prev:0{width}d}")
            lo = n
    return f"{prefix}[{','.join(ranges)}]"


# --- place: nodes that keep track of what they hold over time --------------------------------


class _Node:
    """What one node holds over time, as steps: ``held[i]`` (CPUs, GPUs, GB) from ``times[i]``
    to ``times[i + 1]``; the last step lasts for ever (and holds nothing once every run ends)."""

    __slots__ = ("number", "room", "times", "held")

    def __init__(self, number: int, room: tuple[int, int, int]):
        self.number = number
        self.room = room  # CPUs, GPUs, GB of memory
        self.times = [-1]
        self.held = [(0, 0, 0)]

    def forget_before(self, now: int) -> None:
        """Drop the steps that end at or before ``now`` (runs are placed in time order)."""
        k = bisect_right(self.times, now) - 1
        if k > 0:
            del self.times[:k], self.held[:k]

    def fits(self, need: tuple[int, int, int], start: int, end: int) -> bool:
        """Has it room for ``need`` over the whole of [start, end)?"""
        times, held, (rc, rg, rm) = self.times, self.held, self.room
        i = bisect_right(times, start) - 1
        while i < len(times) and times[i] < end:
            c, g, m = held[i]
            if c + need[0] > rc or g + need[1] > rg or m + need[2] > rm:
                return False
            i += 1
        return True

    def starts(self, need, earliest: int, duration: int, deadline: int):
        """Yield, earliest first, the [lo, hi) intervals of start times in [earliest, deadline)
        at which ``need`` fits for ``duration`` seconds: a step without room at [a, b) rules
        out the starts in (a - duration, b)."""
        times, held, (rc, rg, rm) = self.times, self.held, self.room
        lo = earliest
        for i, a in enumerate(times):
            b = times[i + 1] if i + 1 < len(times) else deadline
            c, g, m = held[i]
            if b <= lo or (c + need[0] <= rc and g + need[1] <= rg and m + need[2] <= rm):
                continue
            if a - duration + 1 >= deadline:
                break
            if a - duration + 1 > lo:
                yield lo, a - duration + 1
            lo = b
        if lo < deadline:
            yield lo, deadline

    def _split(self, t: int) -> int:
        i = bisect_left(self.times, t)
        if i == len(self.times) or self.times[i] != t:
            self.times.insert(i, t)
            self.held.insert(i, self.held[i - 1])
        return i

    def hold(self, need: tuple[int, int, int], start: int, end: int) -> None:
        i, k = self._split(start), self._split(end)
        for j in range(i, k):
            c, g, m = self.held[j]
            self.held[j] = (c + need[0], g + need[1], m + need[2])


def _place(nodes: list[_Node], count: int, need, duration: int, wish: int, deadline: int):
    """The earliest start in [wish, deadline) when ``count`` of ``nodes`` have room for
    ``need`` during ``duration`` seconds, and the lowest-named such nodes; None if none."""
    duration = max(duration, 1)  # a run of 0 s still takes its nodes for an instant
    chosen = []
    for node in nodes:  # now, on the lowest-named nodes with room?
        node.forget_before(wish)
        if node.fits(need, wish, wish + duration):
            chosen.append(node)
            if len(chosen) == count:
                break
    if len(chosen) < count:  # not now: the first instant when `count` nodes have room
        for node in nodes:
            node.forget_before(wish)
        if count == 1:  # the earliest first free interval of any node
            no_room = (deadline, deadline)
            start = min(next(n.starts(need, wish, duration, deadline), no_room)[0] for n in nodes)
        else:  # sweep every node's free intervals for the first time `count` of them overlap
            edges = sorted(
                (t, step)
                for node in nodes
                for lo, hi in node.starts(need, wish, duration, deadline)
                for t, step in ((lo, 1), (hi, -1))
            )  # at one instant, an interval's end (-1) sorts before another's start (+1)
            free, start = 0, deadline
            for t, step in edges:
                free += step
                if free >= count:
                    start = t
                    break
        if start >= deadline:
            return None
        wish = start
        chosen = [n for n in nodes if n.fits(need, start, start + duration)][:count]
    for node in chosen:
        node.hold(need, wish, wish + duration)
    return wish, tuple(n.number for n in chosen)


# --- draw: jobs, their tasks and runs ---------------------------------------------------------


@dataclass(slots=True)
class _Run:
    """One run of a job or array task: what it wants, how it ends, and (once placed) where."""

    number: int  # 0, then 1 after a requeue, ...
    latency: int  # seconds from submit to the wished start
    duration: int  # seconds it runs once started
    state: str
    exit_code: str
    cancelled_pending: bool  # cancelled before it started, at its wished start
    gap: int  # seconds from its end to the requeued run's submit
    busy: float  # share of its CPUs' time used
    rss: float  # peak memory, share of the request
    step_rss: tuple[float, float, float]
    submit: int = 0
    start: int | None = None
    end: int | None = None
    nodes: tuple[int, ...] = ()
    reason: str = "None"
    reached: bool = False  # runs after one still pending or running at the end are not


def _outcome(last: bool, u: float, o: np.ndarray, limit_s: int, want: float):
    """State, exit code, run time and whether it was cancelled while pending, of one run."""
    elapsed = int(min(max(want, 5.0), limit_s))
    if not last:
        state = ("REQUEUED", "PREEMPTED", "NODE_FAIL")[int(o[0] * 3)]
        return state, "0:0", int(elapsed * (0.1 + 0.8 * o[1])) + 1, False
    if u < 0.07:
        code = (1, 2, 127, 137)[int(o[2] * 4)]
        return "FAILED", f"{code}:0", int(elapsed * 0.3 * o[1]) + 1, False
    if u < 0.13:
        return "TIMEOUT", "0:15", limit_s, False
    if u < 0.15:
        return "OUT_OF_MEMORY", "0:125", int(elapsed * (0.05 + 0.55 * o[1])) + 1, False
    if u < 0.20:
        return "CANCELLED", "0:0", int(elapsed * 0.8 * o[1]), bool(o[3] < 0.3)
    if u < 0.205:
        return "NODE_FAIL", "0:0", int(elapsed * (0.1 + 0.8 * o[1])) + 1, False
    return "COMPLETED", "0:0", elapsed, False


def synth_sacct(n_jobs: int, *, seed: int = 0, config: SynthConfig | None = None) -> str:
    """``sacct -P -D`` text (with header) of about ``n_jobs`` jobs; same seed, same text.

    >>> text = synth_sacct(50, seed=1)
    >>> text.splitlines()[0].split("|")[:3]
    ['JobID', 'JobIDRaw', 'JobName']
    >>> synth_sacct(50, seed=1) == text
    True
    """
    if n_jobs < 1:
        raise ValueError(f"synth_sacct: n_jobs={n_jobs} must be at least 1")
    config = config or SynthConfig()
    arrivals, shapes, outcomes, usage = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)
    )
    export_end = int(n_jobs / config.jobs_per_day * 86400)  # seconds after config.start
    jobs = _draw_jobs(n_jobs, config, export_end, arrivals, shapes, outcomes, usage)
    runs = _draw_runs(jobs, config, outcomes, usage)
    _place_runs(jobs, runs, config.cluster_copies, export_end)
    return _write(jobs, runs, config)


def _draw_jobs(n_jobs, config, export_end, arrivals, shapes, outcomes, usage) -> list[dict]:
    """Every submission's shape (account, partition, size, limit, array, ...), as a dict."""
    accounts = list(_ACCOUNTS)
    weights = np.array([_ACCOUNTS[a][1] for a in accounts])
    users = {a: [f"{a[:3]}{i:02d}" for i in range(_ACCOUNTS[a][0])] for a in accounts}
    uids = {u: 100000 + k for k, u in enumerate(u for a in accounts for u in users[a])}
    submit_s = np.sort(arrivals.uniform(0.0, export_end, n_jobs)).astype(np.int64)
    account_idx = shapes.choice(len(accounts), size=n_jobs, p=weights / weights.sum())
    user_u, partition_u, type_u = shapes.random((3, n_jobs))
    node_choice = shapes.choice([1, 1, 1, 1, 2, 4, 8], n_jobs)
    gpu_choice = shapes.choice([1, 2, 4, 8, 8], n_jobs)
    cpu_choice = shapes.choice([1, 4, 16, 32, 64, 128], n_jobs)
    limit_choice = shapes.choice([30, 60, 120, 240, 480, 1440, 2880], n_jobs)
    mem_choice = shapes.choice([4, 8, 16, 32, 64, 128, 256], n_jobs)
    name_idx = shapes.integers(0, len(_NAMES), n_jobs)
    is_array = shapes.random(n_jobs) < config.array_fraction
    array_size = np.where(is_array, shapes.integers(2, 24, n_jobs), 1)
    id_gap = shapes.integers(0, 3, n_jobs)
    priority = usage.integers(1000, 200000, n_jobs)
    outcome_u = outcomes.random(n_jobs)
    pending_range = (
        is_array
        & (submit_s > export_end * 0.9)
        & (outcomes.random(n_jobs) < config.pending_range_fraction)
    )
    range_lo = outcomes.integers(0, 3, n_jobs)
    throttle = np.where(outcomes.random(n_jobs) < 0.5, outcomes.integers(1, 5, n_jobs), 0)

    jobs = []
    next_id = 1_000_000
    for j in range(n_jobs):
        account = accounts[account_idx[j]]
        user = users[account][int(user_u[j] * len(users[account]))]
        if _ACCOUNTS[account][2]:
            partition = "debug" if partition_u[j] < 0.08 else "gpu"
        else:
            partition = "cpu" if partition_u[j] < 0.9 else "gpu"
        part = _PARTITIONS[partition]
        # array tasks (sweeps, preprocessing) take one node each: a 20-task array of
        # 8-node jobs would hold the whole GPU partition for days
        single = partition == "debug" or is_array[j]
        nodes = 1 if single else int(min(node_choice[j], part.nodes))
        if part.gpus:
            gpus_per_node = min(int(gpu_choice[j]) if nodes == 1 else part.gpus, part.gpus)
            gtype = part.gpu_types[int(type_u[j] * len(part.gpu_types))]
            cpus = nodes * gpus_per_node * 8
        else:
            gpus_per_node, gtype = 0, None
            cpus = nodes * int(cpu_choice[j])
        gpus = nodes * gpus_per_node
        mem_gb = int(mem_choice[j]) * nodes
        tasks = int(array_size[j])
        tres = [f"billing={cpus + 8 * gpus}", f"cpu={cpus}"]
        if gpus:
            tres += [f"gres/gpu:{gtype}={gpus}", f"gres/gpu={gpus}"]
        tres += [f"mem={mem_gb}G", f"node={nodes}"]
        name = _NAMES[name_idx[j]]
        pending = None  # a pending array range: its JobID and Reason
        if pending_range[j]:
            limit = f"%{throttle[j]}" if throttle[j] else ""
            pending = (
                f"{next_id}_[{range_lo[j]}-{range_lo[j] + tasks - 1}{limit}]",
                "JobArrayTaskLimit" if limit else "Priority",
            )
        jobs.append(
            {
                "base_id": next_id, "array": bool(is_array[j]), "tasks": tasks,
                "pending_range": pending, "submit": int(submit_s[j]), "name": name,
                "user": user, "uid": uids[user], "account": account, "partition": partition,
                "nodes": nodes, "cpus": cpus, "gpus": gpus, "mem_gb": mem_gb,
                "need": (cpus // nodes, gpus_per_node, int(mem_choice[j])),  # on each node
                "limit_min": int(min(part.max_hours * 60, limit_choice[j])),
                "alloc_tres": ",".join(tres),
                "req_tres": ",".join(t for t in tres if not t.startswith("billing=")),
                "size_factor": 1.0 + math.log2(1 + gpus + cpus / 32),
                "priority": int(priority[j]), "outcome_u": float(outcome_u[j]),
                "workdir": f"/home/{user}/{name}",
            }
        )  # fmt: skip
        next_id += tasks + int(id_gap[j])
    return jobs


def _draw_runs(jobs: list[dict], config: SynthConfig, outcomes, usage) -> list[list[_Run]]:
    """Every array task's (or job's) runs: one, or more when it is requeued. Indexed like
    ``_tasks(jobs)``."""
    tasks = _tasks(jobs)
    requeue_u, extra_u = outcomes.random((2, len(tasks)))
    run_counts = 1 + (requeue_u < config.requeue_fraction) * (1 + (extra_u < 0.25))
    n_runs = int(run_counts.sum())
    latency_e = usage.exponential(1.0, n_runs)
    want_z = usage.standard_normal(n_runs)
    o = outcomes.random((n_runs, 5))
    r = usage.random((n_runs, 5))
    runs, k = [], 0
    for t, (j, _) in enumerate(tasks):
        job = jobs[j]
        limit_s = job["limit_min"] * 60
        scale = 60.0 if job["partition"] == "debug" else 600.0 * job["size_factor"]
        task_runs = []
        for number in range(int(run_counts[t])):
            last = number == run_counts[t] - 1
            want = math.exp(math.log(limit_s * 0.35) + 0.9 * want_z[k])
            state, exit_code, elapsed, cancelled_pending = _outcome(
                last, job["outcome_u"], o[k], limit_s, want
            )
            task_runs.append(
                _Run(
                    number=number, latency=int(latency_e[k] * scale), duration=elapsed,
                    state=state, exit_code=exit_code, cancelled_pending=cancelled_pending,
                    gap=1 + int(r[k, 0] * 119),
                    busy=0.2 * o[k, 4] if state == "FAILED" else 0.2 + 0.78 * o[k, 4],
                    rss=1.05 if state == "OUT_OF_MEMORY" else 0.05 + 0.85 * r[k, 1],
                    step_rss=(0.9 + 0.1 * r[k, 2], 0.9 + 0.1 * r[k, 3], 0.9 + 0.1 * r[k, 4]),
                )
            )  # fmt: skip
            k += 1
        runs.append(task_runs)
    return runs


def _tasks(jobs: list[dict]) -> list[tuple[int, int]]:
    """(job index, task number) of every array task or plain job that may run."""
    return [
        (j, t)
        for j, job in enumerate(jobs)
        if not job["pending_range"]
        for t in range(job["tasks"])
    ]


def _place_runs(jobs: list[dict], runs: list[list[_Run]], copies: int, export_end: int) -> None:
    """Give each run its start, end and nodes: in order of wished start, the earliest time
    at or after it when enough nodes of its partition (in its copy of the cluster) have room
    for its whole run, on the lowest-named of them. A run that gets no room before the export
    ends is PENDING, one that outlasts it RUNNING; either way it is its job's last."""
    pools = {
        (c, name): [
            _Node(c * part.nodes + i + 1, (part.cpus, part.gpus, part.mem_gb))
            for i in range(part.nodes)
        ]
        for c in range(copies)
        for name, part in _PARTITIONS.items()
    }
    tasks = _tasks(jobs)
    queue = []  # (wished start, task, run number): ties go to the earlier submission
    for t, (j, _) in enumerate(tasks):
        first = runs[t][0]
        first.submit = jobs[j]["submit"]
        queue.append((first.submit + first.latency, t, 0))
    heapq.heapify(queue)
    while queue:
        wish, t, number = heapq.heappop(queue)
        j = tasks[t][0]
        run, job = runs[t][number], jobs[j]
        run.reached = True
        if wish >= export_end:  # not yet eligible when the export is taken
            run.state, run.exit_code, run.reason = "PENDING", "0:0", "Priority"
            continue
        if run.cancelled_pending:
            run.end = wish  # cancelled at this time, before it started
            continue
        pool = pools[j % copies, job["partition"]]
        placed = _place(pool, job["nodes"], job["need"], run.duration, wish, export_end)
        if placed is None:  # no room before the export ends
            run.state, run.exit_code, run.reason = "PENDING", "0:0", "Resources"
            continue
        run.start, run.nodes = placed
        if run.start + run.duration > export_end:  # still running when the export is taken
            run.state, run.exit_code, run.duration = "RUNNING", "0:0", export_end - run.start
            continue
        run.end = run.start + run.duration
        if number + 1 < len(runs[t]):  # requeued: the next run is submitted again
            later = runs[t][number + 1]
            later.submit = run.end + run.gap
            heapq.heappush(queue, (later.submit + later.latency, t, number + 1))


def _write(jobs: list[dict], runs: list[list[_Run]], config: SynthConfig) -> str:
    """The export's text: per submission its pending range, or per task each run reached
    and its steps."""
    origin = dt.datetime.fromisoformat(config.start).replace(microsecond=0, tzinfo=None)

    def ts(seconds: int | None) -> str:
        return (
            "Unknown" if seconds is None else (origin + dt.timedelta(seconds=seconds)).isoformat()
        )

    copies = config.cluster_copies
    width = {name: max(3, len(str(p.nodes * copies))) for name, p in _PARTITIONS.items()}
    lines = ["|".join(FIELDS)]
    task_runs = iter(runs)
    for job in jobs:
        limit_min, account = job["limit_min"], job["account"]
        common = {
            "JobName": job["name"], "User": job["user"], "Account": account,
            "Partition": job["partition"], "QOS": "high" if account == "ops" else "normal",
            "Timelimit": _dur(limit_min * 60), "TimelimitRaw": str(limit_min),
            "NNodes": str(job["nodes"]), "NTasks": "", "ReqMem": f"{job['mem_gb']}G",
            "ReqTRES": job["req_tres"], "MaxRSS": "", "Priority": str(job["priority"]),
            "WorkDir": job["workdir"],
        }  # fmt: skip
        if job["pending_range"]:
            job_id, reason = job["pending_range"]
            row = {
                **common, "JobID": job_id, "JobIDRaw": str(job["base_id"]), "State": "PENDING",
                "ExitCode": "0:0", "Submit": ts(job["submit"]), "Eligible": ts(job["submit"]),
                "Start": "Unknown", "End": "Unknown", "Elapsed": "00:00:00", "ElapsedRaw": "0",
                "NCPUS": "0", "AllocTRES": "", "NodeList": "None assigned",
                "TotalCPU": "00:00:00", "Restarts": "0", "Reason": reason,
            }  # fmt: skip
            lines.append("|".join(row[f] for f in FIELDS))
            continue
        part, prefix = job["partition"], _PARTITIONS[job["partition"]].prefix
        for task in range(job["tasks"]):
            job_id = f"{job['base_id']}_{task}" if job["array"] else str(job["base_id"])
            for run in next(task_runs):
                if not run.reached:
                    break
                started = run.start is not None
                elapsed = run.duration if started else 0
                total_cpu = elapsed * job["cpus"] * run.busy if started else 0.0
                row = {
                    **common, "JobID": job_id, "JobIDRaw": str(job["base_id"] + task),
                    "State": f"CANCELLED by {job['uid']}" if run.state == "CANCELLED" else run.state,
                    "ExitCode": run.exit_code, "Submit": ts(run.submit),
                    "Eligible": ts(run.submit), "Start": ts(run.start), "End": ts(run.end),
                    "Elapsed": _dur(elapsed), "ElapsedRaw": str(elapsed),
                    "NCPUS": str(job["cpus"] if started else 0),
                    "AllocTRES": job["alloc_tres"] if started else "",
                    "NodeList": _hostlist(prefix, run.nodes, width[part]) if started else "None assigned",
                    "TotalCPU": _cpu_time(total_cpu), "Restarts": str(run.number),
                    "Reason": run.reason,
                }  # fmt: skip
                lines.append("|".join(row[f] for f in FIELDS))
                if started:
                    first_node = f"{prefix}{run.nodes[0]:0{width[part]}d}"
                    lines.extend(_steps(row, run, job, total_cpu, first_node))
    return "\n".join(lines) + "\n"


def _steps(row: dict, run: _Run, job: dict, total_cpu: float, first_node: str) -> list[str]:
    """The .batch, .extern and (for GPU / multi-node jobs) .0 step rows of one run."""
    nodes, gpus, cpus = job["nodes"], job["gpus"], job["cpus"]
    running = run.state == "RUNNING"
    step_state = {"TIMEOUT": "CANCELLED", "NODE_FAIL": "CANCELLED", "PREEMPTED": "CANCELLED"}.get(
        run.state, run.state
    )
    step_exit = {"TIMEOUT": "0:15", "NODE_FAIL": "0:9", "PREEMPTED": "0:15"}.get(
        run.state, run.exit_code
    )
    rss_mb = job["mem_gb"] * 1024 / nodes * run.rss  # per node
    kinds = ["batch", "extern"] + (["0"] if gpus or nodes > 1 else [])
    rows = []
    for kind, rss_jitter in zip(kinds, run.step_rss):
        if kind == "batch":  # the batch script: all the work, unless srun runs a .0 step
            cpu_share = 0.05 if (gpus or nodes > 1) else 1.0
            n, tasks, rss, node_list = 1, 1, rss_mb * 0.6, first_node
        elif kind == "extern":
            n, tasks, cpu_share, rss, node_list = nodes, nodes, 0.0, 1.0, row["NodeList"]
        else:  # the srun step: a task per GPU, at least one per node
            n, tasks, cpu_share, node_list = nodes, max(nodes, gpus), 0.95, row["NodeList"]
            rss = rss_mb / max(1, tasks // nodes)
        step = dict(row)
        step.update(
            {
                "JobID": f"{row['JobID']}.{kind}", "JobIDRaw": f"{row['JobIDRaw']}.{kind}",
                "JobName": kind if kind != "0" else row["JobName"], "User": "", "Account": "",
                "Partition": "", "QOS": "", "State": "COMPLETED" if kind == "extern" and not running else step_state,
                "ExitCode": "0:0" if kind == "extern" else step_exit,
                "Submit": row["Start"], "Eligible": row["Start"], "Timelimit": "", "TimelimitRaw": "",
                "NNodes": str(n), "NTasks": str(tasks), "ReqMem": "", "ReqTRES": "",
                "NodeList": node_list, "TotalCPU": _cpu_time(total_cpu * cpu_share),
                "MaxRSS": _mem(max(rss * rss_jitter, 0.5)) if not running else "",
                "Priority": "", "Restarts": "", "Reason": "", "WorkDir": "",
            }
        )  # fmt: skip
        if kind == "batch":  # sacct shows no billing= on the batch step
            step["AllocTRES"] = step["AllocTRES"].replace(f"billing={cpus + 8 * gpus},", "")
        rows.append("|".join(step[f] for f in FIELDS))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m slurmlab.records.synth", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--jobs", type=int, default=2000, help="how many jobs (submissions) to write"
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed: same seed, same file")
    parser.add_argument(
        "--jobs-per-day",
        type=float,
        default=_JOBS_PER_DAY_PER_COPY,
        help="arrival rate (one copy of the cluster per 120 a day)",
    )
    parser.add_argument("-o", "--output", required=True, help="the export to write")
    args = parser.parse_args(argv)
    with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(
            synth_sacct(
                args.jobs, seed=args.seed, config=SynthConfig(jobs_per_day=args.jobs_per_day)
            )
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
