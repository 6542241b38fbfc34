"""Stop 46: fidelity against the real-Slurm fixtures recorded on 2026-12-07 (mix-17, mix-18,
ddp-shapes, gpu-cap, dep-requeue; datasets/realslurm/README.md).

* A job whose begin time (``--begin``, a requeue's delay) passes with nothing else going on
  keeps showing ``BeginTime`` until a scheduler pass tests it: slurmctld clears WAIT_TIME
  only in ``job_independent`` (job_mgr.c), which the passes call. sprio lists it meanwhile.
* Slurm's will-run test frees running jobs in batches (cons_common/job_test.c
  ``_will_run_test``) and plans a blocked job at the end of a batch, on the nodes best fit
  then (ddp-shapes); the ``slurm`` policy plans so too.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from realslurm_fixtures import DATA, ids, real_queue, starts
from realslurm_fixtures import replay as _run

from slurmlab.scenario import Scenario
from slurmlab.sim.result import sprio_frame, squeue_frame


@pytest.mark.parametrize(
    "name,keys,times",
    [
        ("dep-requeue", ("a1", "r1", "q1"), (150, 160, 170)),  # eligible 139-143, start 171
        ("begin-quiet", ("late",), (140, 150, 160, 170)),  # eligible 140, start 172
    ],
)
def test_a_begin_time_passed_quietly_shows_begintime_until_a_pass(name, keys, times):
    """Between a job's begin time and the pass that starts it, squeue's reason is
    BeginTime, as real squeue showed it every 10 s (queue.csv); it was Priority."""
    result = _run(name)
    real = real_queue(name)
    for t in times:
        want = real[(real["t"] == t) & real["key"].isin(keys)].set_index("key")["reason"]
        assert set(want) == {"BeginTime"}, (t, want.to_dict())
        got = squeue_frame(result.sim, float(t)).set_index("JOBID")["NODELIST(REASON)"]
        assert {k: got[k] for k in keys} == dict.fromkeys(keys, "(BeginTime)"), t


def test_sprio_lists_a_job_whose_begin_time_passed_though_its_reason_is_begintime():
    """Real sprio listed the requeued a1 from 140 s and r1, q1 from 150 s (their begin times
    139-143 s) although squeue still said BeginTime: sprio tests the begin time."""
    result = _run("dep-requeue")
    by_real = {v: k for k, v in ids("dep-requeue").items()}
    real = pd.read_csv(DATA / "dep-requeue/sprio.csv", dtype={"job_id": str})
    for t in (140, 150, 160, 170):
        want = {by_real[j] for j in real[real["t"] == t]["job_id"]}
        got = set(sprio_frame(result.sim, float(t))["JOBID"])
        assert got == want, t


def test_why_pending_says_the_begin_time_has_passed_and_a_pass_is_awaited():
    """The explanation of a BeginTime job whose begin time has passed names the pass it
    waits for, not a begin time to come."""
    text = _run("begin-quiet").why_pending("late", at=150.0)
    assert "(BeginTime)" in text
    assert "came at" in text and "sched_interval" in text


def test_requeued_jobs_show_their_requeued_run_in_plain_sacct_while_they_wait():
    """Real sacct -X at 50 s listed a1, r1 and q1 (requeued at 18-22 s) with their REQUEUED
    runs, the new runs not eligible yet: the simulation's sacct_text lists the same (and
    tests/test_sacct_records.py now compares what sacct_text lists, each job's last listed
    run, with the fixtures' sacct -X snapshots)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        partial = Scenario.load(DATA / "scenarios/dep-requeue.yaml").run(until=50.0)
    rows = [line.split() for line in partial.sacct_text(["JobID", "State"]).splitlines()[2:]]
    states = dict(rows)
    assert {k: states.get(k) for k in ("a1", "r1", "q1")} == dict.fromkeys(
        ("a1", "r1", "q1"), "REQUEUED"
    )


def test_ddp_shapes_mem0_job_backfills_beside_a_will_run_batch_plan():
    """Slurm's will-run test (cons_common/job_test.c _will_run_test) frees running jobs in
    batches and plans a blocked job at the end of the batch's last job on the nodes best fit
    then: ddpx on gpu[1-2] at 123 s, so memz backfills on the idle gpu4 at 11 s, as the
    simulator's slurm policy now plans it (SlurmBackfill._will_run)."""
    result = _run("ddp-shapes")
    runs = result.sacct(duplicates=True).set_index("JobID")
    start = (runs.loc["memz", "Start"] - result.origin).total_seconds()
    assert abs(start - 11.0) <= 10.0
    assert runs.loc["memz", "NodeList"] == "gpu4"


def test_a_job_cancelled_pending_before_slurmdbd_heard_of_it_never_ran():
    """mix-18's j19, cancelled 3 s after its submission, has a Start in real sacct (its
    cancel time: job_signal sets a pending job's start and end to now, and slurmdbd had no
    record of it yet) with ``None assigned`` and Elapsed 0: the fidelity reader takes it as
    never started, as the simulation has it."""
    from slurmlab.analysis.fidelity import real_runs

    real = starts("mix-18")
    row = real[real["id"] == "j19"].iloc[0]
    assert row["nodelist"] == "None assigned" and row["start_s"] == 80
    runs = real_runs(real.drop(columns="key")).set_index("key")
    assert pd.isna(runs.loc["j19", "start"])
    assert runs.loc["j19", "state"] == "CANCELLED"
    assert not pd.isna(runs.loc["j00", "start"])  # (a run with nodes keeps its start)
