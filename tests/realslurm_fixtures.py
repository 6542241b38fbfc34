"""Readers of the real-Slurm fixtures (datasets/realslurm/NAME/) for the fidelity tests:
the job names of a fixture, real squeue snapshots and starts keyed by them, and the
simulator's replay of the same scenario (the scorecard's, run once per process).

A row's ``key`` is the scenario's job id, with ``_TASK`` for an array task (Slurm's
``JOBID_TASK``), so real and simulated rows meet on it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "datasets" / "realslurm"
sys.path.insert(0, str(ROOT / "tools" / "realslurm"))

from scorecard import replay_result as replay  # noqa: E402

__all__ = ["DATA", "ids", "real_queue", "replay", "sim_runs", "starts"]


def ids(name: str) -> dict[str, str]:
    """Real Slurm's job id of each of the scenario's jobs (meta.json ``job_ids``)."""
    return json.loads((DATA / name / "meta.json").read_text())["job_ids"]


def _task_key(base: pd.Series, task: pd.Series) -> pd.Series:
    return base + task.where(task == "", "_" + task)


def real_queue(name: str) -> pd.DataFrame:
    """queue.csv (real squeue --start at each snapshot), with each row's ``key``."""
    by_real = {v: k for k, v in ids(name).items()}
    queue = pd.read_csv(DATA / name / "queue.csv", dtype={"job_id": str})
    job, _, task = (queue["job_id"].str.partition("_")[i] for i in range(3))
    queue["key"] = _task_key(job.map(by_real), task)
    return queue


def starts(name: str) -> pd.DataFrame:
    """starts.csv (every run real Slurm started, seconds from t0), with each row's ``key``."""
    frame = pd.read_csv(DATA / name / "starts.csv", dtype={"array_task": "string"})
    frame["key"] = _task_key(frame["id"], frame["array_task"].fillna(""))
    return frame


def sim_runs(name: str) -> pd.DataFrame:
    """The replay's runs (sacct with requeued runs), with Submit, Eligible, Start and End as
    seconds from the scenario's origin (``submit_s`` ...)."""
    result = replay(name)
    runs = result.sacct(duplicates=True)
    for col in ("Submit", "Eligible", "Start", "End"):
        runs[f"{col.lower()}_s"] = (runs[col] - result.origin).dt.total_seconds()
    return runs
