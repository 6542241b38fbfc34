"""What went wrong and what it cost: hours of runs that did not complete, and requeues.

A run that ended FAILED, TIMEOUT, CANCELLED, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL,
DEADLINE or REQUEUED held its CPUs and GPUs without finishing its work (a requeued job's
earlier runs, shown by ``sacct --duplicates``, end REQUEUED, PREEMPTED or NODE_FAIL).
What the export cannot say is unknown, never 0: GPU-hours without AllocTRES are NaN,
Restarts without a Restarts field is <NA>, each with a warning naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    FAILED_STATES,
    by_cluster,
    by_columns,
    check_by,
    check_columns,
    check_jobs,
    count,
    hours,
    job_keys,
    known,
    leads,
    started,
    unknown_hours,
    warn_missing_runs,
    warn_unknown_hours,
)
from slurmlab.errors import warn_at_caller

__all__ = ["failure_cost", "requeues"]


def failure_cost(jobs: pd.DataFrame, by: str | Sequence[str] = "State") -> pd.DataFrame:
    """Runs, CPU-hours and GPU-hours of runs that did not complete, per state (or ``by``: a
    column, or a list of them such as ``["State", "User"]``).

    A run is an allocation row that started (as ``usage`` and ``summary`` count runs; a het
    job's components once): a job cancelled before it started cost nothing and is no run.
    Hours the export cannot give are NaN (see ``usage``); the rows are biggest first by
    GPU-hours, or by CPU-hours when GPU-hours are unknown.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> failure_cost(demo_jobs())[["State", "runs", "gpu_hours", "cpu_hours"]]
         State  runs  gpu_hours  cpu_hours
    0  TIMEOUT     1        2.0        8.0
    1   FAILED     1        0.0        1.0
    """
    check_jobs(jobs, "failure_cost")
    by = by_columns(by, "failure_cost", example="State")
    check_columns(jobs, ("State", "Elapsed", "NCPUS", "NGPUS"), "failure_cost")
    check_by(jobs, by, "failure_cost")
    lost = jobs.loc[
        jobs["State"].isin(FAILED_STATES).fillna(False).to_numpy(dtype=bool) & started(jobs)
    ]
    unknown = {k: v for k, v in unknown_hours(jobs).items() if k in ("gpu_hours", "cpu_hours")}
    warn_unknown_hours(unknown, "failure_cost")
    warn_missing_runs(jobs, "failure_cost")
    h = hours(lost["Elapsed"])
    nan = np.full(len(lost), np.nan)
    frame = pd.DataFrame(
        {
            **{c: lost[c].astype("string").fillna("(none)").to_numpy() for c in by},
            "runs": leads(lost).astype("int64"),
            "gpu_hours": nan if "gpu_hours" in unknown else h * count(lost["NGPUS"]),
            "cpu_hours": nan if "cpu_hours" in unknown else h * count(lost["NCPUS"]),
        }
    )
    out = frame.groupby(by, sort=False).sum(min_count=1).reset_index()
    order = "cpu_hours" if "gpu_hours" in unknown else "gpu_hours"
    return out.sort_values(order, ascending=False, kind="stable").reset_index(drop=True)


def requeues(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs that ran more than once: runs, Restarts, the state of each run, hours lost.

    A job is its JobID (a het job's components, ``7+0`` and ``7+1``, are job ``7``: the
    states are its leader's, the hours its components'); its runs are the rows ``sacct
    --duplicates`` writes (ordered by Submit) that started (a job requeued and pending again
    has one row more than runs, and its ``states`` end PENDING). ``lost_gpu_hours`` counts
    every run but the last, whole (NaN when the export has no AllocTRES): what the earlier
    runs held. sacct does not know checkpoints, so for a job that resumes from one this is
    an upper bound of the work lost; a simulation's ``metrics["gpu_hours_lost"]`` counts
    only the work since each run's last checkpoint. ``Restarts`` is <NA>, with a warning,
    when the export has no Restarts field (Slurm 22.05's sacct has none; newer releases'
    has): then only jobs with several runs in the export (``sacct -D``) are found.

    >>> import io
    >>> from slurmlab.records.sacct import read_sacct
    >>> text = '''JobID|State|Submit|Elapsed|NCPUS|AllocTRES|Restarts
    ... 7|NODE_FAIL|2024-01-01T00:00:00|01:00:00|8|cpu=8,gres/gpu=4|0
    ... 7|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|1
    ... 8|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|0'''
    >>> requeues(read_sacct(io.StringIO(text)))[["JobID", "runs", "states", "lost_gpu_hours"]]
      JobID  runs               states  lost_gpu_hours
    0     7     2  NODE_FAIL>COMPLETED             4.0
    """
    check_jobs(jobs, "requeues")
    check_columns(jobs, ("JobID", "State", "Elapsed", "NGPUS"), "requeues")
    columns = ["JobID", "runs", "Restarts", "states", "final_state", "lost_gpu_hours"]
    has_restarts = known(jobs, "Restarts")
    if len(jobs) and not has_restarts:
        warn_at_caller(
            "requeues: the export has no Restarts, so Restarts is unknown (<NA>, not 0) and "
            "only jobs with several runs in the export are found: export with sacct -D "
            "(--duplicates: each run of a requeued job is a row), and add Restarts to -o "
            "where your sacct has that field (Slurm 22.05's has none; newer releases' has)"
        )
    unknown = {k: v for k, v in unknown_hours(jobs).items() if k == "gpu_hours"}
    warn_unknown_hours(unknown, "requeues")
    warn_missing_runs(jobs, "requeues", "lost GPU-hours")
    restarts = jobs["Restarts"] if has_restarts else pd.Series(0, index=jobs.index)
    frame = pd.DataFrame(
        {
            "key": job_keys(jobs).to_numpy(),
            "component": by_cluster(jobs, jobs["JobID"].astype("string")).to_numpy(),
            "state": jobs["State"].astype(str).to_numpy(),
            "gpu_h": (
                np.full(len(jobs), np.nan)
                if unknown
                else hours(jobs["Elapsed"]) * count(jobs["NGPUS"])
            ),
            "restarts": pd.to_numeric(restarts, errors="coerce").fillna(0).to_numpy(),
            "lead": leads(jobs),
            "ran": started(jobs),
            "pos": np.arange(len(jobs)),
        }
    )
    if "Submit" in jobs:
        frame["submit"] = jobs["Submit"].to_numpy()
        frame = frame.sort_values(["submit", "pos"], kind="stable", na_position="first")
    # the n-th row of a component is its n-th run; a job has as many runs as its components
    # (rows that started: a requeued job pending again has a row that is not yet a run)
    frame["run"] = frame.groupby("component", sort=False).cumcount().to_numpy()
    ran = frame.groupby("component", sort=False)["ran"].transform("sum")
    by_job = frame.assign(ran=ran).groupby("key", sort=False)
    table = pd.DataFrame(
        {
            "runs": by_job["ran"].max().astype(int),
            "Restarts": by_job["restarts"].max().astype("Int64"),
        }
    )
    table = table[(table["runs"] > 1) | (table["Restarts"] > 0)]
    if not has_restarts:
        table["Restarts"] = pd.array([pd.NA] * len(table), dtype="Int64")
    if table.empty:
        return pd.DataFrame(columns=columns)
    mine = frame[frame["key"].isin(table.index)]
    last_run = mine.groupby("key", sort=False)["run"].transform("max")
    lost = mine["gpu_h"].where(mine["run"] < last_run, 0.0).groupby(mine["key"], sort=False)
    has_lead = mine.groupby("key", sort=False)["lead"].transform("any")
    leaders = mine[mine["lead"] | ~has_lead]  # a het job's states are its leader's
    states = leaders.groupby("key", sort=False)["state"]
    table["states"] = states.agg(">".join)
    table["final_state"] = states.last()
    table["lost_gpu_hours"] = np.nan if unknown else lost.sum().astype(float)
    return table.rename_axis("JobID").reset_index()[columns]
