"""Shortcuts that make deep queues, big arrays and long sessions cheap decide and show exactly
what the plain computation does.

* EASY's second test (a job that does not fit in the profile may start past the pass's
  reservations) keeps, while the profile and the plans stand, the profile with the
  reservations out and the requests found to delay one at a limit: the schedules equal
  those of EASY testing every job from scratch (every start, reason and planned start).
* Whether an array's pending record became a plain task record (``squeue`` prints ``6_5``)
  is one sweep over the tasks' times, not a count of the tasks at every start.
* ``squeue``/``sinfo``/``sprio`` of the present look only at the jobs the simulation queues,
  holds back or runs, not at every job ever submitted.

Each is compared with the plain computation, kept here, on seeded random workloads and
sessions, and two small views show why a request is remembered with its limit and its memory
per CPU; nothing here is timed (benchmarks/ measures speed).
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from test_engine_properties import SETTINGS, scenarios

from slurmlab import Cluster, Lab, simulate
from slurmlab.errors import SlurmlabError
from slurmlab.policies import backfill
from slurmlab.policies.backfill import Easy
from slurmlab.policies.base import PendingJob, QueueView, RunningJob, Start
from slurmlab.sim import engine
from slurmlab.sim.faults import NodeFailure
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Reservation
from slurmlab.spec.workload import Workload, WorkloadJob

# random requests with -N above -n are run on -n nodes, with sbatch's warning (tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore:can't run .* processes on")

# -- EASY's second test ---------------------------------------------------------------------

COLUMNS = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason"]


def history(result):
    """Every job's table row plus its whole history of pending reasons and planned starts."""
    return result.jobs[COLUMNS], [(j.id, j.reasons, j.plans) for j in result.sim.jobs.values()]


class FromScratch:
    """Runs a simulation as it is, counting the jobs EASY's second test answered from what
    it found before, and again with that test as it was before it kept anything: no answer
    remembered, the profile with the reservations out built again for every job."""

    def __init__(self):
        self.remembered = 0

    def both(self, *args, **kwargs):
        """(the run as it is, the run from scratch), as :func:`history` gives them."""
        cls = backfill._PastReservations
        delays, test = cls.delays, cls.test

        def counted(trials, job):
            known = delays(trials, job)
            self.remembered += known
            return known

        def from_scratch(trials, *args):
            trials.clear()
            return test(trials, *args)

        try:  # (not monkeypatch: hypothesis runs many examples per test call)
            cls.delays = counted
            remembering = history(simulate(*args, **kwargs))
            cls.delays, cls.test = (lambda _trials, _job: False), from_scratch
            scratch = history(simulate(*args, **kwargs))
        finally:
            cls.delays, cls.test = delays, test
        return remembering, scratch


def same(a, b) -> bool:
    return a[0].equals(b[0]) and a[1] == b[1]


def deep_queue(n: int, seed: int) -> Workload:
    """A build-up on the ``ai`` preset far over its capacity: a few request shapes with fixed
    limits (as a learner resubmits one script), in three partitions, arrays, dependencies."""
    rng = random.Random(seed)
    jobs: list[WorkloadJob] = []
    for i in range(n):
        r = rng.random()
        if r < 0.45:
            args = f"-N 1 --gres=gpu:h100:{rng.choice([1, 2, 4, 8])} -t 4:00:00"
        elif r < 0.55:
            args = f"-N {rng.choice([2, 4])} --ntasks-per-node=8 --gres=gpu:8 -t 6:00:00"
        elif r < 0.65:
            args = "--array=0-3 --gres=gpu:1 -t 1:00:00"
        elif r < 0.75 and jobs:
            target = rng.choice(jobs[-20:]).id
            args = f"-d {rng.choice(['afterok', 'afterany'])}:{target} --gres=gpu:2 -t 2:00:00"
        elif r < 0.90:
            args = "-p cpu -c 16 -t 1:00:00"
        else:
            args = "-p debug --gres=gpu:1 -t 30"
        runtime = rng.choice([300, 1200, 3600, 10800])
        jobs.append(WorkloadJob(JobSpec.from_args(args), 20.0 * i, runtime, id=f"j{i + 1}"))
    return Workload(tuple(jobs))


MIXED = Cluster.from_slurm_conf(
    """
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
NodeName=a[1-3] CPUs=8 RealMemory=16000 Gres=gpu:2 Weight=1
NodeName=b[1-3] CPUs=16 RealMemory=32000 Gres=gpu:4 Weight=2
NodeName=c[1-2] CPUs=4 RealMemory=8000 Weight=1
PartitionName=gpu Nodes=a[1-3],b[1-3] Default=YES MaxTime=INFINITE
PartitionName=big Nodes=b[1-3] MaxTime=INFINITE PriorityTier=2
PartitionName=all Nodes=a[1-3],b[1-3],c[1-2] MaxTime=INFINITE
"""
)


def mixed(n: int, seed: int) -> Workload:
    """Overlapping partitions, node Weights, --exclusive, and two requests of one need that
    differ in memory per CPU only (best fit then counts CPUs differently), at a few limits;
    run times past the limits (a trace replay) keep the profile moving."""
    rng = random.Random(seed)
    shapes = [
        "-p gpu -N 1 --gres=gpu:1 -c 2 -t {}",
        "-p gpu -N 2 --gres=gpu:2 -t {}",
        "-p big -N 1 --exclusive -t {}",
        "-p all -N 1 -c 2 --mem-per-cpu=1500 -t {}",
        "-p all -N 1 -c 2 --mem=3000 -t {}",
        "-p all -N 3 -c 1 -t {}",
    ]
    jobs = []
    for i in range(n):
        args = rng.choice(shapes).format(rng.choice([5, 10, 10, 20]))
        runtime = rng.choice([60, 300, 600, 900, 1500])  # (some past their limits)
        jobs.append(WorkloadJob(JobSpec.from_args(args), 15.0 * i, runtime, id=f"m{i + 1}"))
    return Workload(tuple(jobs))


@pytest.mark.parametrize("seed", [1, 2])
def test_easy_remembering_equals_easy_from_scratch_on_a_deep_queue(seed):
    """A queue thousands deep of a few shapes: most tests are answered from memory."""
    runs = FromScratch()
    remembering, scratch = runs.both(Cluster.preset("ai"), deep_queue(900, seed), "easy")
    assert same(remembering, scratch)
    assert runs.remembered > 1000  # (the shortcut was taken)


@pytest.mark.parametrize("seed", [3, 4])
def test_easy_remembering_equals_easy_from_scratch_with_reservations_and_failures(seed):
    """Advance reservations (masks cut by their windows; blocked windows in the profile), a
    node failure and repair, and jobs running past their limits."""
    runs = FromScratch()
    remembering, scratch = runs.both(
        MIXED,
        mixed(500, seed),
        "easy",
        enforce_time_limit=False,
        reservations=(
            Reservation("held", start=1200, duration=1800, nodes=("a1", "b1"), users=("ops",)),
            Reservation("late", start=4000, duration=600, node_count=2, users=("ops",)),
            Reservation(
                "maint",
                start=6000,
                duration=900,
                nodes=("c1", "c2"),
                users=("ops",),
                flags=("maint",),
            ),
        ),
        failures=(NodeFailure("b2", at=2500, down_for=900), NodeFailure("a3", at=3000)),
    )
    assert same(remembering, scratch)
    assert runs.remembered > 0


@SETTINGS
@given(case=scenarios())
def test_easy_remembering_equals_easy_from_scratch_on_random_workloads(case):
    cluster, workload = case
    remembering, scratch = FromScratch().both(cluster, workload, "easy")
    assert same(remembering, scratch)


def test_a_longer_limit_gets_its_own_answer():
    """Why a request found to delay a reservation is remembered at its limit only. Nodes x,
    y, z (4 CPUs each) are busy until t=5 (x and y half); an advance reservation holds x
    from 30 to 60. P (x only) is planned at 5 on x, Q (y or z) at 5 on y, R (x or y) at 15
    on x. A 2-CPU job on x or y at limit 20 gets x (best fit, first of equals), where P
    then no longer fits: it would delay P. The same request at limit 40 cannot have x (its
    window meets the advance reservation), gets y, and P, Q moved to z, and R all still
    start when planned: it starts. (The engine's masks would leave x out of the longer
    job's nodes; a policy answers any view.)"""
    capacity = np.array([[4, 0, 0]] * 3)
    running = [
        RunningJob(1, (0,), np.array([[2, 0, 0]]), 5.0),
        RunningJob(2, (1,), np.array([[2, 0, 0]]), 5.0),
        RunningJob(3, (2,), np.array([[4, 0, 0]]), 5.0),
    ]
    free = np.array([[2, 0, 0], [2, 0, 0], [0, 0, 0]])
    held = np.array([[4, 0, 0], [0, 0, 0], [0, 0, 0]])  # x, from 30 to 60

    def pending(id, partition, cpus, nodes, limit):
        mask = masks.setdefault(nodes, np.array([n in nodes for n in "xyz"]))
        demand = demands.setdefault(cpus, np.array([cpus, 0, 0]))
        return PendingJob(id, partition, demand, 1, mask, limit, need=(cpus, 0, 0))

    masks, demands = {}, {}
    queue = [
        pending(10, "px", 4, "x", 10.0),
        pending(11, "pq", 4, "yz", 20.0),
        pending(12, "pj", 4, "xy", 10.0),
        pending(13, "pj", 2, "xy", 20.0),
        pending(14, "pj", 2, "xy", 40.0),  # (the same request: one shape)
    ]
    assert queue[3].shape == queue[4].shape
    view = QueueView(
        0.0, queue, running, free, capacity, np.ones(3, dtype=bool), ["x", "y", "z"],
        blocked_windows=[(30.0, 60.0, held)], partitions=3,
    )  # fmt: skip
    decision = Easy().schedule(view)
    assert decision.starts == [Start(14, (1,), "backfill", "pj")]
    assert decision.planned == {10: 5.0, 11: 5.0, 12: 15.0}


def test_memory_per_cpu_is_part_of_the_request():
    """Two jobs of one shape (2 CPUs and 2000 MB on x or y) but for memory per CPU. Without
    it best fit ties x and y (3 CPUs free each) and takes x, where P then no longer fits;
    with 1000 MB per CPU, y's 2000 MB free leave it 2 usable CPUs, fewer than x's 3, so
    the job goes to y, and P, Q (moved to z) and R all still start when planned."""
    capacity = np.array([[4, 8000, 0]] * 3)
    running = [
        RunningJob(1, (0,), np.array([[1, 0, 0]]), 5.0),
        RunningJob(2, (1,), np.array([[1, 6000, 0]]), 5.0),
        RunningJob(3, (2,), np.array([[4, 0, 0]]), 5.0),
    ]
    free = capacity - [[1, 0, 0], [1, 6000, 0], [4, 0, 0]]
    x, yz, xy = (np.array([n in nodes for n in "xyz"]) for nodes in ("x", "yz", "xy"))
    four, two = np.array([4, 0, 0]), np.array([2, 2000, 0])
    queue = [
        PendingJob(10, "px", four, 1, x, 10.0, need=(4, 0, 0)),
        PendingJob(11, "pq", four, 1, yz, 20.0, need=(4, 0, 0)),
        PendingJob(12, "pj", four, 1, xy, 10.0, need=(4, 0, 0)),
        PendingJob(13, "pj", two, 1, xy, 20.0, need=(2, 2000, 0)),
        PendingJob(14, "pj", two, 1, xy, 20.0, need=(2, 2000, 0), mem_per_cpu=1000),
    ]
    assert queue[3].shape == queue[4].shape
    view = QueueView(
        0.0, queue, running, free, capacity, np.ones(3, dtype=bool), ["x", "y", "z"],
        partitions=3,
    )  # fmt: skip
    decision = Easy().schedule(view)
    assert decision.starts == [Start(14, (1,), "backfill", "pj")]
    assert decision.planned == {10: 5.0, 11: 5.0, 12: 15.0}


# -- array records: converted to a task record ----------------------------------------------


def unsplit_at(job, t: float) -> bool:
    """The plain rule: a task in its array's pending record at ``t``: submitted, not split
    off, and neither started nor ended (cancelled) by then in its first run; once it has
    left the record it is a job of its own for good (a later requeue does not change what
    the record was before)."""
    first = job.runs[0] if job.runs else {"Submit": job.submit, "Start": job.start, "End": job.end}
    if first["Submit"] > t or (job.split is not None and job.split <= t):
        return False
    if first["Start"] is not None:
        return first["Start"] > t
    return first["End"] is None or first["End"] > t


def random_tasks(rng: random.Random) -> SimpleNamespace:
    """A made-up simulation of a few arrays whose tasks' times collide often."""
    times = [0.0, 10.0, 20.0, 30.0, 40.0]
    jobs = {}
    for array_id in (1, 100, 200):
        for k in range(rng.randint(1, 6)):
            submit = rng.choice(times[:2])
            start = end = split = None
            runs = []
            fate = rng.random()
            if fate < 0.5:
                start = submit + rng.choice(times)
                end = start + rng.choice(times) if rng.random() < 0.5 else None
            elif fate < 0.7:
                end = submit + rng.choice(times)  # cancelled while pending
            if rng.random() < 0.2:
                split = submit + rng.choice(times)
            if rng.random() < 0.1:  # ran before (or was cancelled), requeued
                first = submit + rng.choice(times)
                began = first if rng.random() < 0.8 else None
                runs = [{"Submit": submit, "Start": began, "End": first + rng.choice(times)}]
            jobs[array_id + k] = SimpleNamespace(
                array_id=array_id, submit=submit, start=start, end=end, split=split, runs=runs
            )
    return SimpleNamespace(jobs=jobs)


def test_unsplit_spans_equal_the_plain_rule_on_made_up_tasks():
    """(Which records became their last task is no longer computed from the tasks' times:
    the engine notes when, in command order: test_sacct_records.py.)"""
    rng = random.Random(0)
    for _ in range(3000):
        sim = random_tasks(rng)
        for t in (0.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 80.0, 1e9):
            for job in sim.jobs.values():
                assert engine._unsplit_at(job, t) == unsplit_at(job, t)


# -- a random session, looked at as it goes ---------------------------------------------------

SESSION = Cluster.from_slurm_conf(
    """
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=100
PriorityCalcPeriod=1
NodeName=n[1-4] CPUs=8 RealMemory=16000 Gres=gpu:2
NodeName=m[1-2] CPUs=16 RealMemory=32000
PartitionName=gpu Nodes=n[1-4] Default=YES MaxTime=INFINITE
PartitionName=all Nodes=n[1-4],m[1-2] MaxTime=INFINITE
"""
)


def session_steps(rng: random.Random, lab: Lab, steps: int):
    """Random learner commands (arrays with throttles, holds of some tasks, --begin,
    dependencies, cancels, requeues, drains and failures); yields after each."""
    ids: list[int] = []
    for _ in range(steps):
        r = rng.random()
        try:
            if r < 0.35:
                opts = rng.choice(
                    [
                        "--gres=gpu:1 -t 10",
                        "-N 2 --gres=gpu:2 -t 20",
                        "-p all -c 4 -t 15",
                        f"--array=0-{rng.randint(1, 7)} --gres=gpu:1 -t 10",
                        f"--array=0-{rng.randint(2, 6)}%2 -p all -c 2 -t 5",
                        "--begin=now+300 -c 2 -t 5",
                        "-H -c 1 -t 5",
                    ]
                )
                if ids and rng.random() < 0.2:
                    opts += f" -d afterany:{rng.choice(ids)}"
                ids.append(lab.sbatch(opts, runtime=rng.choice(["2m", "5m", "12m", "30m"])))
            elif r < 0.45 and ids:
                lab.scancel(rng.choice(ids))
            elif r < 0.55 and ids:
                jid = rng.choice(ids)  # (a task of an array: split off its record)
                lab.hold(f"{jid}_{rng.randint(0, 3)}" if rng.random() < 0.5 else jid)
            elif r < 0.62 and ids:
                lab.release(rng.choice(ids))
            elif r < 0.68 and ids:
                lab.requeue(rng.choice(ids))
            elif r < 0.72:
                lab.drain(rng.choice(["n1", "m1"]))
            elif r < 0.76:
                lab.resume(rng.choice(["n1", "m1"]))
            elif r < 0.79:
                lab.fail(rng.choice(["n2", "m2"]), down_for=rng.choice([None, "10m"]))
            else:
                lab.advance(rng.choice(["30s", "1m", "3m", "7m"]))
        except SlurmlabError:
            pass  # (a command Slurm refuses: the session goes on)
        yield


def records(pairs) -> list[tuple]:
    return [
        (job.id, last, run["Submit"], run["Start"], run["End"], run["State"])
        for job, run, last in pairs
    ]


def plain_records_at(sim, t: float) -> list[tuple]:
    """Every run there at ``t``: from its Submit, or from the end of the job's run before it
    (a run requeued in its first second gives the next a Submit one second later)."""
    out, before = [], {}  # job id -> End of its previous run
    for job, run, last in engine.iter_records(sim):
        prev = before.get(job.id)
        there = run["Submit"] <= t or (prev is not None and prev <= t)
        if there and (run["End"] is None or run["End"] > t):
            out.append((job, run, last))
        before[job.id] = run["End"]
    return records(out)


def plain_used_at(sim, t: float) -> np.ndarray:
    used = np.zeros_like(sim.capacity)
    for _job, run, _last in engine.iter_records(sim):
        s, e = run["Start"], run["End"]
        if s is not None and s <= t and (e is None or e > t):
            used[list(run["nodes"])] += run["usage"]
    return used


def views(lab: Lab) -> list:
    return [
        lab.squeue(),
        lab.squeue_text(),
        lab.squeue_text(array=True),
        lab.squeue_text(start=True),
        lab.sinfo(),
        lab.sprio(),
    ]


def assert_same_views(fast: list, full: list) -> None:
    for a, b in zip(fast, full, strict=True):
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
        else:
            assert a == b


@pytest.mark.filterwarnings("ignore:scancel. error. Kill job error")  # (a job that ended)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_views_of_the_present_equal_views_over_every_job(seed, monkeypatch):
    """squeue, sinfo and sprio now, from the queued, held back and running jobs only, equal
    the same views over every job ever submitted; and the records and the resources in use
    at any time equal the plain filters over every record."""
    rng = random.Random(seed)
    lab = Lab(SESSION, "easy")
    seen_times: set[float] = set()
    for step, _ in enumerate(session_steps(rng, lab, 400)):
        sim = lab.sim
        now = sim.now
        seen_times.add(now)
        assert records(engine.records_at(sim, now)) == plain_records_at(sim, now)
        assert (engine.used_at(sim, now) == plain_used_at(sim, now)).all()
        if step % 10:
            continue
        fast = views(lab)
        with monkeypatch.context() as m:  # every job, as at any other time
            m.setattr(engine, "unfinished_at", lambda sim, _t: sim.jobs.values())
            full = views(lab)
        assert_same_views(fast, full)
        for t in rng.sample(sorted(seen_times), min(3, len(seen_times))):  # times past
            assert records(engine.records_at(sim, t)) == plain_records_at(sim, t)
            assert (engine.used_at(sim, t) == plain_used_at(sim, t)).all()
            for job in sim.jobs.values():
                assert engine._unsplit_at(job, t) == unsplit_at(job, t)
    assert len(lab.sim.jobs) > 50 and any(j.array_id for j in lab.sim.jobs.values())


def converted_by_starts(sim, t: float) -> set[int]:
    """The plain count for arrays no scontrol command split: a record is its last task from
    the first start that leaves at most one task unsplit."""
    arrays: dict[int, list] = {}
    for job in sim.jobs.values():
        if job.array_id is not None and job.submit <= t:
            arrays.setdefault(job.array_id, []).append(job)
    return {
        array_id
        for array_id, tasks in arrays.items()
        if any(
            sum(unsplit_at(j, s) for j in tasks) <= 1
            for s in {j.start for j in tasks if j.start is not None and j.start <= t}
        )
    }


def test_a_big_array_converts_as_the_plain_count_says():
    """A 300-task array whose tasks start in waves: at every instant its record's state
    (``12_[...]`` or the last task) is the one the plain count gives."""
    lab = Lab("ai")
    lab.sbatch("--array=0-299 --gres=gpu:1 -t 60", runtime="10m")
    for _ in range(8):
        lab.advance("5m")
        for t in {j.start for j in lab.sim.jobs.values() if j.start is not None} | {lab.now}:
            assert engine.arrays_converted(lab.sim, t) == converted_by_starts(lab.sim, t)
    assert engine.arrays_converted(lab.sim, lab.now) == {1}  # (its last task ran on its own)
