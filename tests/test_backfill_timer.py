"""When the ``slurm`` policy's backfill cycles run: as Slurm 22.05's backfill thread
(backfill.c ``backfill_agent``) runs them, not on a grid from the simulation's start.

After a cycle the thread sleeps ``bf_interval``, then polls every second until
``_more_work`` (a job, node, partition or reservation update since the cycle). While
jobs stay queued the cycles go on every ``bf_interval`` (a cycle that reserves a job a
start bumps ``last_job_update`` itself: ``_attempt_backfill``, ``start_res >
start_time``); after one that left no job queued, the next cycle runs at the first poll
second at or after the next change.
"""

from __future__ import annotations

import yaml

from slurmlab import Scenario

#: one 4-GPU node; bf_interval=20; slurmctld (and the backfill thread, whose first sleep
#: counts from its start) started 13 s before time 0, so it polls every second from 7 s. A holds the node 7-207 s (limit 5:00); B (submitted
#: at 10) and C (at 50) want the whole node too.
DOC = """
name: timer
cluster:
  nodes:
    - {name: "gpu1", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "gpu1", default: true}
  settings:
    SchedulerParameters: "bf_interval=20%s"
policy: slurm
slurmctld_start: -13
jobs:
  - {id: A, submit: 7, runtime: 200, args: "-N 1 --exclusive -t 5"}
  - {id: B, submit: 10, runtime: 50, args: "-N 1 --exclusive -t 5"}
  - {id: C, submit: 50, runtime: 50, args: "-N 1 --exclusive -t 5"}
"""


def _cycles() -> list[float]:
    result = Scenario.from_dict(yaml.safe_load(DOC % "")).run()
    return [t for t in result.sim.cycle_times if t < 200]


def test_cycles_that_reserve_go_on_every_bf_interval():
    """A starts at its submission, 7 s, and the thread's first cycle runs then (no job
    left to test: not in cycle_times; the thread's polls have begun at 7 s). B's submission at 10 s is seen at 27 s (7 +
    bf_interval); that cycle reserves B a start (A's limit, 307 s), and so does every
    cycle after it, every 20 s: C's submission at 50 s is seen at 67 s. (On a grid of
    bf_interval from the start: 20 and 60 s.)"""
    assert _cycles() == [27.0, 67.0]


def test_after_a_cycle_that_left_no_job_queued_the_next_change_is_seen_at_once():
    """Without B and C, the cycle of A's start (7 s) leaves no job queued, and nothing
    changes before 27 s: the thread polls every second from 27 s, so a job submitted at
    50 s (D, which waits for A) gets its cycle at 50 s, after the main pass of that
    instant; the cycle after it, D still queued, 20 s later (70 s), sees E (submitted at
    60 s). On a grid of bf_interval from the start they would have run at 60 and 80 s."""
    doc = yaml.safe_load(DOC % "")
    doc["jobs"] = [
        doc["jobs"][0],
        {"id": "D", "submit": 50, "runtime": 50, "args": "-N 1 --exclusive -t 5"},
        {"id": "E", "submit": 60, "runtime": 50, "args": "-N 1 --exclusive -t 5"},
    ]
    result = Scenario.from_dict(doc).run()
    assert [t for t in result.sim.cycle_times if t < 200] == [50.0, 70.0]


def test_the_first_cycle_counts_from_slurmctlds_start():
    """backfill_agent sets last_backfill_time when it starts, then sleeps bf_interval:
    jobs queued at 0 s get their first cycle at slurmctld's start + 20 s (7 s with
    slurmctld started at -13 s, 20 s with it started at 0 s), polls every second after."""
    for start, first in ((-13, 7.0), (0, 20.0)):
        doc = yaml.safe_load(DOC % "")
        doc["slurmctld_start"] = start
        doc["jobs"] = [dict(j, submit=0) for j in doc["jobs"]]
        result = Scenario.from_dict(doc).run()
        assert result.sim.cycle_times[0] == first, start


def test_an_sbatch_after_the_cluster_drained_follows_the_cycle_of_the_last_change():
    """The backfill thread runs a cycle for a change even when nothing is left queued or
    running (``_more_work``), and the next cycle comes ``bf_interval`` after it. With no
    main scheduler and bf_interval=30, X starts at the first cycle (30 s) and ends at
    130 s: the thread, polling every second since 90 s, runs a cycle at 130 s. A job
    submitted in a Lab at 150 s is seen at 160 s, as when it comes from the workload."""
    from slurmlab.sim.lab import Lab
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    lab = Lab("tiny", "slurm", sched_interval=-1, bf_interval=30)
    lab.sbatch("-N 1 -t 10", runtime=100)
    lab.run(until=150)
    lab.sbatch("-N 1 -t 10", runtime=50)
    lab.run()
    jobs = [
        WorkloadJob(JobSpec.from_args("-N 1 -t 10"), submit, run, id=jid)
        for jid, submit, run in (("X", 0, 100), ("Y", 150, 50))
    ]
    same = Lab("tiny", "slurm", sched_interval=-1, bf_interval=30, workload=Workload(jobs)).run()
    for one in (lab, same):
        assert one.sim.cycle_times == [30.0, 160.0]
        assert [j.start for j in one.sim.jobs.values()] == [30.0, 160.0]
