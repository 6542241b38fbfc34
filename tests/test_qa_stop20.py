"""Regressions from stop 20: squeue's display checked against real Slurm 22.05 by hand
(tools/realslurm/up.sh; the commands and outputs are quoted in each test)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import slurmlab

REAL = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"


def _ids(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines()[1:]]


def test_a_pending_array_record_of_one_task_keeps_its_brackets_until_a_task_is_split_off():
    """Real Slurm: ``sbatch --array=3`` pending shows ``2_[3]`` in plain squeue (``2_3`` with
    -r); ``--array=1-5 --exclusive`` on four free nodes, four tasks running, shows the
    pending one as ``6_5``: a record that lost tasks to jobs of their own prints the last
    one alone, as squeue -r does."""
    lab = slurmlab.Lab("tiny")  # four nodes
    lab.sbatch("-N 3 --exclusive -t 10", runtime=600)
    lab.sbatch("--array=0-1 -N 1 --exclusive -t 10", runtime=600)  # task 0 starts, 1 waits
    lab.sbatch("--array=3 -N 1 --exclusive -t 10", runtime=600)  # never split
    lab.sbatch("--array=4-5 -N 1 --exclusive -t 10", runtime=600)
    lab.advance(1)
    assert _ids(lab.result.squeue_text()) == ["2_1", "4_[3]", "5_[4-5]", "1", "2_0"]
    assert _ids(lab.result.squeue_text(array=True)) == ["2_1", "4_3", "5_4", "5_5", "1", "2_0"]
    # the record's history: before task 0 started, array 2 was one record of two tasks
    assert _ids(lab.result.squeue_text(at=0))[:3] == ["2_1", "4_[3]", "5_[4-5]"]


def test_squeue_start_shows_a_begin_time_job_starting_at_its_begin_time():
    """Real Slurm: ``sbatch --begin=now+600`` at 00:12:12 shows START_TIME 00:22:12 with
    reason BeginTime (and so does the pending record of such an array)."""
    lab = slurmlab.Lab("tiny")
    lab.advance(60)
    lab.sbatch("-t 10 --begin=now+600", runtime=60)
    lab.sbatch("-t 10 --begin=now+600 --array=1-2", runtime=60)
    lab.advance(5)
    frame = lab.squeue()
    begin = lab.result.origin + pd.Timedelta(seconds=660)
    assert frame.START_TIME.tolist() == [begin] * 3
    assert set(frame["NODELIST(REASON)"]) == {"(BeginTime)"}
    text = lab.result.squeue_text()
    assert _ids(text) == ["1", "2_[1-2]"]
    assert text.count(begin.strftime("%Y-%m-%dT%H:%M:%S")) == 2
    lab.run()
    assert lab.squeue().empty and lab.sacct().Start.tolist() == [begin] * 3


@pytest.mark.filterwarnings("ignore:.*not modelled by slurmlab")
def test_a_requeued_job_waiting_for_its_begin_time_shows_it_as_real_squeue_did():
    """The real failures scenario: job ``requeued`` went back to the queue at 30 s with
    BeginTime 151 s (requeue delay); real squeue showed START_TIME 151 s at 40, 50, 60 s
    (queue.csv). (From 151 s to its start at 176 s, the next main-scheduler pass, it still
    said BeginTime with no START_TIME; slurmlab starts it at 151 s: README, start latency.)"""
    real = pd.read_csv(REAL / "failures" / "queue.csv")
    real = real[(real.name == "requeued") & (real.reason == "BeginTime") & (real.t < 151)]
    assert len(real) >= 3
    result = slurmlab.Scenario.load(REAL / "scenarios" / "failures.yaml").run()
    for t, start_s in zip(real.t, real.start_s, strict=True):
        row = result.squeue(at=t).set_index("JOBID").loc["requeued"]
        assert row["NODELIST(REASON)"] == "(BeginTime)"
        assert (row.START_TIME - result.origin).total_seconds() == start_s
