"""A deliberately simple reference of ``fifo`` and ``easy`` for processors-only workloads.

Independent of slurmlab: plain Python over one pool of ``procs`` processors, written
straight from the definitions, for the engine to be compared with exactly.

* Same-time rule: at an instant, jobs ending then free their processors first,
  then jobs submitted then join the queue, then one scheduling pass. A job that
  starts with run time 0 ends at that same instant, so another pass follows.
* FIFO: start the queue's head while it fits; the queue blocks at the first job
  that does not.
* EASY (Lifka 1995; Mu'alem & Feitelson 2001): FIFO, then for the first blocked
  job compute its *shadow time* (when enough processors are free, counting
  running jobs as ending at start + limit, or "now" for a job already past its
  limit) and the *extra* processors left at the shadow time after it starts.
  A later job starts now if it fits now and either ends by the shadow time or
  uses no more than the extra processors; one that ends after the shadow time
  uses up extra processors.
* Trace semantics: run times are replayed as they are, even past the limit.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

__all__ = ["RefJob", "reference_starts"]


@dataclass(frozen=True)
class RefJob:
    """One job: submitted at ``submit``, needs ``width`` processors, runs ``runtime`` s.

    ``limit`` is the requested time, the only duration the scheduler plans with.
    """

    id: str
    submit: float
    width: int
    runtime: float
    limit: float


def reference_starts(jobs: list[RefJob], procs: int, policy: str = "easy") -> dict[str, float]:
    """Each job's start time under ``policy`` ("fifo" or "easy"), by job id.

    The queue is in submit order, ties in list order.
    """
    if policy not in ("fifo", "easy"):
        raise ValueError(f"unknown policy {policy!r}")
    arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    queue: list[RefJob] = []
    running: dict[str, tuple[float, RefJob]] = {}  # id -> (start, job)
    ends: list[tuple[float, int, str]] = []  # heap of (end time, tie-break, id)
    starts: dict[str, float] = {}
    free = procs
    k = 0

    def start(job: RefJob, now: float) -> None:
        nonlocal free
        free -= job.width
        starts[job.id] = now
        running[job.id] = (now, job)
        heapq.heappush(ends, (now + job.runtime, len(starts), job.id))

    def end_jobs(now: float) -> None:
        nonlocal free
        while ends and ends[0][0] <= now:
            _, _, jid = heapq.heappop(ends)
            free += running.pop(jid)[1].width

    def fifo_pass(now: float) -> None:
        while queue and queue[0].width <= free:
            start(queue.pop(0), now)

    def easy_pass(now: float) -> None:
        fifo_pass(now)
        if not queue:
            return
        head = queue[0]
        # shadow time: the first expected end at which the head fits
        expected = sorted((max(s + j.limit, now), j.width) for s, j in running.values())
        avail = free
        shadow, extra = None, 0
        for n, (t, width) in enumerate(expected):
            avail += width
            last_at_t = n + 1 == len(expected) or expected[n + 1][0] != t
            if last_at_t and avail >= head.width:
                shadow, extra = t, avail - head.width
                break
        assert shadow is not None, "the head is never wider than the machine"
        later = []
        for n, job in enumerate(queue[1:], start=1):
            if free == 0:  # nothing more can start now
                later += queue[n:]
                break
            ends_by_shadow = now + job.limit <= shadow
            if job.width <= free and (ends_by_shadow or job.width <= extra):
                start(job, now)
                if not ends_by_shadow:
                    extra -= job.width
            else:
                later.append(job)
        queue[1:] = later

    one_pass = fifo_pass if policy == "fifo" else easy_pass
    while k < len(arrivals) or ends:
        now = min(
            jobs[arrivals[k]].submit if k < len(arrivals) else float("inf"),
            ends[0][0] if ends else float("inf"),
        )
        end_jobs(now)
        while k < len(arrivals) and jobs[arrivals[k]].submit <= now:
            queue.append(jobs[arrivals[k]])
            k += 1
        one_pass(now)
        while ends and ends[0][0] <= now:  # zero-length jobs ended: one more pass
            end_jobs(now)
            one_pass(now)
    return starts
