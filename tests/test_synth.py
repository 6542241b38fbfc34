"""The synthetic export generator: seeded, realistic, and readable by read_sacct."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from slurmlab import analysis as an
from slurmlab.records.sacct import read_sacct, steps
from slurmlab.records.synth import FIELDS, SynthConfig, main, synth_sacct

DATASET = Path(__file__).resolve().parents[1] / "datasets/synthetic/sacct-synthetic.psv"


def test_same_seed_same_bytes_other_seed_other_bytes():
    assert synth_sacct(200, seed=3) == synth_sacct(200, seed=3)
    assert synth_sacct(200, seed=3) != synth_sacct(200, seed=4)


def test_global_random_state_is_untouched():
    import random

    import numpy as np

    np.random.seed(1)
    random.seed(1)
    before = (np.random.random(), random.random())
    np.random.seed(1)
    random.seed(1)
    synth_sacct(50, seed=9)
    assert (np.random.random(), random.random()) == before


def test_export_has_every_edge_case_the_issue_lists():
    jobs = read_sacct(
        io.StringIO(synth_sacct(1500, seed=2026, config=SynthConfig(jobs_per_day=120)))
    )
    assert jobs.attrs["fields"] == list(FIELDS) and len(FIELDS) == 30
    states = set(jobs["State"])
    assert {
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED",
        "OUT_OF_MEMORY",
        "REQUEUED",
        "PREEMPTED",
        "NODE_FAIL",
    } <= states
    assert jobs["ArrayTaskRange"].notna().any()  # pending ranges
    assert jobs["ArrayJobID"].notna().any()
    assert (jobs.groupby("JobID").size() > 1).any()  # --duplicates rows of requeued jobs
    assert set(jobs["GPUType"].dropna()) == {"a100", "h100"}
    assert jobs["Account"].nunique() == 7
    s = steps(jobs)
    assert {"batch", "extern", "0"} <= set(s["StepID"])
    timeouts = s[(s["JobState"] == "TIMEOUT") & (s["StepID"] == "batch")]
    assert (timeouts["State"] == "CANCELLED").all() and (timeouts["ExitCode"] == "0:15").all()
    assert s["User"].isna().all()
    assert len(an.requeues(jobs)) > 0


def test_committed_dataset_is_what_the_command_makes(tmp_path):
    """datasets/synthetic/README.md gives the command; it must reproduce the committed file."""
    if not DATASET.exists():
        pytest.skip("dataset not present")
    out = tmp_path / "again.psv"
    main(["--jobs", "1500", "--seed", "2026", "--jobs-per-day", "120", "-o", str(out)])
    assert out.read_bytes() == DATASET.read_bytes()


def test_config_is_validated():
    with pytest.raises(ValueError, match="array_fraction"):
        SynthConfig(array_fraction=2)
