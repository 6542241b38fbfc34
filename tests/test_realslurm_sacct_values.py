"""read_sacct on exports written by real Slurm 22.05 (datasets/realslurm): spot-checked values
of states, times, TRES, steps, arrays and requeued runs, against the raw text."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from slurmlab.records.sacct import read_sacct, steps

REAL = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
EXPORTS = sorted(REAL.glob("*/sacct.txt")) + sorted(REAL.glob("*/sacct.json"))


@pytest.mark.parametrize("path", EXPORTS, ids=[f"{p.parent.name}/{p.name}" for p in EXPORTS])
def test_every_real_export_reads_without_error(path):
    """Every fixture reads with errors='raise' and loses no row (allocations + steps = lines)."""
    jobs = read_sacct(path, tz="UTC" if path.suffix == ".json" else None)
    assert jobs.attrs["bad_rows"] == 0
    if path.suffix == ".txt":
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()[1:] if ln.strip()]
        assert len(jobs) + len(steps(jobs)) == len(lines)


@pytest.fixture(scope="module")
def failures():
    path = REAL / "failures" / "sacct.txt"
    if not path.exists():
        pytest.skip("no failures fixture")
    return read_sacct(path)


def one(jobs, name, state=None):
    rows = jobs[(jobs.JobName == name) & ((jobs.State == state) if state else True)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_states_exit_codes_and_suffixes(failures):
    """FAILED keeps its exit code; 'CANCELLED by 0' is CANCELLED; TIMEOUT is TIMEOUT."""
    assert one(failures, "fail").State == "FAILED" and one(failures, "fail").ExitCode == "1:0"
    assert one(failures, "timeout").State == "TIMEOUT"
    assert one(failures, "cancel_pending").State == "CANCELLED"
    assert one(failures, "cancel_running").State == "CANCELLED"


def test_times_and_elapsed(failures):
    """Times are naive datetimes; a job cancelled while pending has no Start and no nodes;
    a TIMEOUT job's Elapsed runs past its 1-minute limit (KillWait and the timeout check)."""
    pending = one(failures, "cancel_pending")
    assert pd.isna(pending.Start) and pd.isna(pending.NodeList)
    timeout = one(failures, "timeout")
    assert timeout.Timelimit == pd.Timedelta(minutes=1)
    assert timeout.Elapsed == timeout.End - timeout.Start == pd.Timedelta(seconds=85)


def test_tres_nodes_and_gpus(failures):
    """AllocTRES gives CPUs, GPUs and nodes: a 2-node CPU job with 64 CPUs and no GPU, and a
    1-GPU job on gpu1."""
    blocker = one(failures, "cpu_blocker")
    assert (blocker.NNodes, blocker.NCPUS, blocker.NGPUS, blocker.NodeList) == (
        2,
        64,
        0,
        "cpu[1-2]",
    )
    fail = one(failures, "fail")
    assert (fail.NCPUS, fail.NGPUS, fail.NodeList) == (1, 1, "gpu1")


def test_requeued_runs_are_two_rows_keyed_by_submit(failures):
    """`scontrol requeue` leaves two runs of the same JobIDRaw (sacct -D), told apart by Submit:
    the first REQUEUED, the second COMPLETED, submitted when the first ended."""
    runs = failures[failures.JobName == "requeued"].sort_values("Submit")
    assert runs.JobIDRaw.nunique() == 1 and runs.State.tolist() == ["REQUEUED", "COMPLETED"]
    first, second = runs.iloc[0], runs.iloc[1]
    assert second.Submit == first.End
    assert (second.Start - second.Submit).total_seconds() >= 121  # the requeue delay


def test_steps_carry_their_job_state(failures):
    """Steps are reachable; a TIMEOUT job's .batch is CANCELLED 0:15 but carries TIMEOUT; the
    multi-step job's failing step 7.1 is FAILED 1:0 while the job COMPLETED."""
    st = steps(failures).set_index("JobID")
    batch = st.loc[f"{one(failures, 'timeout').JobIDRaw}.batch"]
    assert (batch.State, batch.ExitCode, batch.JobState) == ("CANCELLED", "0:15", "TIMEOUT")
    job = one(failures, "multistep").JobIDRaw
    assert st.loc[f"{job}.1", "State"] == "FAILED" and st.loc[f"{job}.1", "ExitCode"] == "1:0"
    assert st.loc[f"{job}.1", "JobState"] == "COMPLETED"


def test_array_tasks_have_their_own_raw_ids():
    """Array tasks `1_0`, `1_1`... each have their own JobIDRaw; ArrayJobID/ArrayTaskID split."""
    path = REAL / "arrays" / "sacct.txt"
    if not path.exists():
        pytest.skip("no arrays fixture")
    jobs = read_sacct(path)
    thr = jobs[jobs.JobName == "thr"].set_index("ArrayTaskID").sort_index()
    assert thr.index.tolist() == [0, 1, 2, 3, 4, 5]
    assert thr.ArrayJobID.unique().tolist() == ["1"]
    assert thr.JobIDRaw.nunique() == 6 and thr.loc[0, "JobID"] == "1_0"
