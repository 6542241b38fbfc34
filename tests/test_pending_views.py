"""What a learner reads about a pending job: its reason, its expected start
(``squeue --start``) and ``why_pending``'s hints, checked against what the scheduler
then really does."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest

import slurmlab
from slurmlab import Lab


def reasons(lab: Lab) -> dict[str, str]:
    q = lab.squeue()
    return dict(zip(q["JOBID"], q["NODELIST(REASON)"], strict=True))


def start_times(lab: Lab) -> dict[str, pd.Timestamp]:
    q = lab.squeue()
    return dict(zip(q["JOBID"], q["START_TIME"], strict=True))


# -- pending reasons --------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize("later", ["--begin=now+30minutes", "dependency"])
def test_a_job_overtaken_by_a_higher_priority_one_waits_for_priority(policy, later):
    """A higher-priority job that becomes eligible later (begin time, dependency) takes the
    head of the line: the job that was first now waits for Priority, as Slurm names it."""
    lab = Lab("tiny", policy=policy)
    lab.sbatch("-N 4 --exclusive -t 1:00:00", runtime="1h")
    if later == "dependency":
        first = lab.sbatch("-N 1 -t 10 --begin=now+20minutes", runtime=60)
        ahead = lab.sbatch(f"-N 4 -t 10 --dependency=afterany:{first}", runtime=60)
        waits = lab.sbatch("-N 1 -t 10", runtime=60)
        lab.advance("25m")  # `first` cannot start either (the cluster is full)
        assert reasons(lab)[str(ahead)] == "(Dependency)"
    else:
        ahead = lab.sbatch("-N 1 -t 10 --begin=now+30minutes", runtime=60)
        waits = lab.sbatch("-N 1 -t 10", runtime=60)
        lab.advance("10m")
        assert reasons(lab)[str(waits)] == "(Resources)"
        lab.advance("21m")
        assert reasons(lab)[str(ahead)] == "(Resources)"
    if later != "dependency":
        assert reasons(lab)[str(waits)] == "(Priority)"
    assert "higher priority are ahead" in lab.why_pending(waits) or later == "dependency"


def test_slurm_backfill_names_the_first_job_of_each_partition_resources():
    """Backfill cycles agree with the main scheduler: the first waiting job of *each*
    partition waits for Resources (not only the queue's first)."""
    lab = Lab("teaching", policy="slurm")
    lab.sbatch("-p gpu -N 8 --exclusive -t 2:00:00", runtime="2h")
    lab.sbatch("-p cpu -N 2 --exclusive -t 2:00:00", runtime="2h")
    g = lab.sbatch("-p gpu -N 1 --exclusive -t 1:00:00", runtime="1h")
    c1 = lab.sbatch("-p cpu -N 1 --exclusive -t 1:00:00", runtime="1h")
    c2 = lab.sbatch("-p cpu -N 1 --exclusive -t 1:00:00", runtime="1h")
    for t in (0, 30, 90):  # the main scheduler, then backfill cycles
        lab.run(until=t)
        r = reasons(lab)
        assert (r[str(g)], r[str(c1)], r[str(c2)]) == ("(Resources)", "(Resources)", "(Priority)")
    assert "first in line in partition cpu" in lab.why_pending(c1)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_an_arrays_pending_tasks_show_one_reason_and_start(policy):
    """Slurm keeps an array's tasks that have not started in one record, with one reason
    and one expected start (real squeue -r at t=10 on the arrays fixture: 4_5 and 4_7 both
    Resources). A task that started is a job of its own: once requeued, its own reason."""
    lab = Lab("tiny", policy=policy)
    blocker = lab.sbatch("-N 4 --exclusive -t 10", runtime=300)
    array = lab.sbatch("--array=1-3 -N 4 --exclusive -t 10", runtime=60)
    lab.advance(10)
    shown = reasons(lab)
    assert {shown[f"{array}_{i}"] for i in (1, 2, 3)} == {"(Resources)"}
    starts = start_times(lab)
    assert len({starts[f"{array}_{i}"] for i in (1, 2, 3)}) == 1
    assert "pending (Resources)" in lab.why_pending(f"{array}_3")
    lab.scancel(blocker)
    lab.advance(30)  # task 1 runs; 2 and 3 are still the array's record
    lab.requeue(f"{array}_1")  # task 2 starts; task 1 waits for its begin time
    lab.advance(1)
    shown = reasons(lab)
    assert shown[f"{array}_1"] == "(BeginTime)"  # its own: it ran, it is a job of its own
    assert shown[f"{array}_3"] == "(Resources)"  # the record's (task 3 is all that is left)
    table = lab.sacct().set_index("JobID")["Reason"]
    # (sacct: waiting for Resources is not kept for the database: None, real Slurm 22.05)
    assert (table[f"{array}_1"], table[f"{array}_3"]) == ("BeginTime", "None")


def test_conservative_names_reasons_in_priority_order():
    """Conservative places jobs in order of their reservations, but names reasons in
    priority order: the higher-priority job is the one waiting for Resources."""
    lab = Lab("tiny", policy="conservative")
    lab.sbatch("-N 4 --exclusive -t 1:00:00", runtime="1h")
    b = lab.sbatch("-N 1 -t 10 --begin=now+30minutes", runtime=60)
    d = lab.sbatch("-N 1 -t 10", runtime=60)
    lab.advance("31m")
    assert reasons(lab)[str(b)] == "(Resources)"
    assert reasons(lab)[str(d)] == "(Priority)"


# -- expected starts (squeue --start) -------------------------------------------------------
@pytest.mark.parametrize(("policy", "third"), [("easy", "-t 60"), ("slurm", "-t 1-00:00:00")])
def test_a_job_that_loses_its_reservation_loses_its_expected_start(policy, third):
    """A job whose reservation went to a higher-priority one shows START_TIME N/A (EASY
    reserves only the first; Slurm's backfill makes no reservation beyond bf_window), and
    never the stale time it had; the times shown are the real starts."""
    lab = Lab("tiny", policy=policy)
    lab.sbatch("-N 4 --exclusive -t 60", runtime="1h")
    low = lab.sbatch("-N 4 --exclusive -t 60 --nice=1000", runtime="1h")
    lab.advance(60)
    assert start_times(lab)[str(low)] == pd.Timestamp("2026-01-05 01:00")
    high = lab.sbatch(f"-N 4 --exclusive {third}", runtime="1h")
    lab.advance(60)
    shown = start_times(lab)
    assert shown[str(high)] == pd.Timestamp("2026-01-05 01:00")
    assert pd.isna(shown[str(low)])
    lab.run()
    starts = lab.sacct().set_index("JobID")["Start"]
    assert starts[str(high)] == pd.Timestamp("2026-01-05 01:00")
    assert starts[str(low)] > pd.Timestamp("2026-01-05 01:00")


def test_conservative_keeps_a_reservation_from_a_later_higher_priority_job():
    lab = Lab("tiny", policy="conservative")
    lab.sbatch("-N 4 --exclusive -t 60", runtime="1h")
    low = lab.sbatch("-N 4 --exclusive -t 60 --nice=1000", runtime="1h")
    lab.advance(60)
    high = lab.sbatch("-N 4 --exclusive -t 60", runtime="1h")
    lab.advance(60)
    shown = start_times(lab)
    assert shown[str(low)] == pd.Timestamp("2026-01-05 01:00")  # never delayed
    assert shown[str(high)] == pd.Timestamp("2026-01-05 02:00")
    lab.run()
    starts = lab.sacct().set_index("JobID")["Start"]
    assert list(starts[[str(low), str(high)]]) == list(shown[str(j)] for j in (low, high))


# -- why_pending's hints --------------------------------------------------------------------
def test_the_fewer_nodes_hint_counts_whole_nodes_for_exclusive_jobs():
    lab = Lab("tiny")
    lab.sbatch("-N 1 -c 1 -t 60", runtime="1h")  # one CPU of node1
    lab.sbatch("-N 2 --exclusive -t 60", runtime="1h")  # node2, node3
    j = lab.sbatch("-N 3 --exclusive -t 10", runtime=60)
    text = lab.why_pending(j)
    assert "--nodes=1 (instead of 3)" in text  # only node4 is idle
    assert "--nodes=2" not in text


def test_no_fewer_nodes_hint_for_a_job_waiting_its_turn():
    lab = Lab("tiny", policy="fifo")
    lab.sbatch("-N 3 --exclusive -t 60", runtime="1h")
    lab.sbatch("-N 4 --exclusive -t 30", runtime=600)  # first in line
    j = lab.sbatch("-N 2 --exclusive -t 10", runtime=60)
    assert "--nodes" not in lab.why_pending(j)


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_fewer_nodes_hint_for_a_later_job_when_the_policy_backfills(policy):
    """Behind a blocked job (reason Priority), fewer nodes let a job be backfilled now when
    it ends before the blocked job's reservation; fifo would still keep it waiting."""
    lab = Lab("teaching", policy=policy)
    lab.sbatch("-N 6 --gres=gpu:4 -t 4:00:00", runtime="3h")
    lab.sbatch("-N 8 --gres=gpu:4 -t 2:00:00", runtime="1h")  # blocked, reserved
    j = lab.sbatch("-N 3 --gres=gpu:4 -t 1:00:00", runtime="1h")
    lab.advance(100)
    text = lab.why_pending(j)
    assert "(Priority)" in text and "with --nodes=2 (instead of 3) it could start now" in text
    two = Lab("teaching", policy=policy)  # and it does
    two.sbatch("-N 6 --gres=gpu:4 -t 4:00:00", runtime="3h")
    two.sbatch("-N 8 --gres=gpu:4 -t 2:00:00", runtime="1h")
    k = two.sbatch("-N 2 --gres=gpu:4 -t 1:00:00", runtime="1h")
    two.advance(100)
    assert two.sim.jobs[k].state == "RUNNING"
    off = Lab("teaching", policy="slurm", bf_interval=-1)  # Slurm without backfill cycles
    off.sbatch("-N 6 --gres=gpu:4 -t 4:00:00", runtime="3h")
    off.sbatch("-N 8 --gres=gpu:4 -t 2:00:00", runtime="1h")
    j = off.sbatch("-N 3 --gres=gpu:4 -t 1:00:00", runtime="1h")
    off.advance(100)
    assert "--nodes" not in off.why_pending(j)


def test_no_partition_hint_beyond_that_partitions_max_time():
    lab = Lab("teaching")
    lab.sbatch("-p cpu -N 2 --exclusive -t 60", runtime="1h")
    j = lab.sbatch("-p cpu -N 1 -c 16 -t 60", runtime="1h")
    assert "debug" not in lab.why_pending(j)  # debug's MaxTime is 30:00
    lab = Lab("teaching")
    lab.sbatch("-p cpu -N 2 --exclusive -t 60", runtime="1h")
    short = lab.sbatch("-p cpu -N 1 -c 16 -t 20", runtime=600)
    assert "partition 'debug' has room for it now (-p debug)" in lab.why_pending(short)
    lab.sbatch("-p debug -N 2 --exclusive -t 30", runtime=600)  # debug busy, and then
    lab.sbatch("-p debug -N 1 -t 10", runtime=60)  # a job waiting there
    assert "-p debug" not in lab.why_pending(short)


def _queue(rng: random.Random) -> list[tuple[str, float]]:
    jobs = []
    for _ in range(rng.randint(3, 7)):
        part = rng.choice(["gpu", "gpu", "debug", "cpu"])
        count = rng.choice([1, 2] if part != "gpu" else [1, 1, 2, 4, 8])
        extra = rng.choice([" --exclusive", " -c 16", " --gres=gpu:4" if part != "cpu" else ""])
        limit = rng.choice([10, 20, 30] if part == "debug" else [10, 30, 60, 120])
        runtime = limit * 60 if rng.random() < 0.7 else rng.randint(60, limit * 60)
        jobs.append((f"-p {part} -N {count} -t {limit}{extra}", runtime))
    return jobs


def _start(policy: str, jobs, k: int) -> float | None:
    lab = Lab("teaching", policy=policy)
    ids = [lab.sbatch(args, runtime=rt) for args, rt in jobs]
    lab.run()
    return lab.sim.jobs[ids[k]].start


_HINTS = {
    r"with --nodes=(\d+) \(instead of \d+\) it could start now": lambda a, v: re.sub(
        r"-N \d+", f"-N {v}", a
    ),
    r"with -t (\S+) \(instead of \S+\) it would end before": lambda a, v: re.sub(
        r"-t \d+", f"-t {v}", a
    ),
    r"partition '(\w+)' has room for it now": lambda a, v: re.sub(r"-p \w+", f"-p {v}", a),
}


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_every_hint_is_true(policy):
    """Each change why_pending suggests, made to the request, lets the job start at once
    (checked by simulating the queue again with that one request changed)."""
    checked = 0
    for seed in range(40):
        jobs = _queue(random.Random(seed))
        lab = Lab("teaching", policy=policy)
        ids = [lab.sbatch(args, runtime=rt) for args, rt in jobs]
        for k, jid in enumerate(ids):
            if lab.sim.jobs[jid].state != "PENDING":
                continue
            text = lab.why_pending(jid)
            for pattern, change in _HINTS.items():
                m = re.search(pattern, text)
                if m:
                    args, runtime = jobs[k]
                    changed = list(jobs)
                    new = change(args, m.group(1))
                    limit = slurmlab.JobSpec.from_args(new).time_limit.total_seconds()
                    changed[k] = (new, min(runtime, limit))
                    assert _start(policy, changed, k) == 0.0, (seed, jobs, k, text)
                    checked += 1
    assert checked >= 10


def test_why_pending_knows_the_state_at_any_time_across_requeues():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = slurmlab.Scenario.load(root / "course/scenarios/backfill-basics.yaml").run()
    assert "it ended COMPLETED at" in done.why_pending("short")  # after the run: not "running"
    runs = slurmlab.Scenario.load(root / "datasets/realslurm/scenarios/failures.yaml").run()
    assert "it ended FAILED at t=10s" in runs.why_pending("fail", at=100)  # (asked at 100)
    first = runs.sim.jobs[runs.sim._ids_of("requeued")[0]].runs[0]  # noqa: SLF001
    assert "is running" in runs.why_pending("requeued", at=first["Start"] + 1)
    assert "is pending" in runs.why_pending("requeued", at=first["End"] + 1)  # requeued
    assert "ended COMPLETED" in runs.why_pending("requeued", at=300)
    assert "not yet submitted" in runs.why_pending("requeued", at=0)
