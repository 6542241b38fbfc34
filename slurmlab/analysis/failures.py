"""What went wrong and what it cost: hours of runs that did not complete, and requeues.

A run that ended FAILED, TIMEOUT, CANCELLED, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL,
DEADLINE or REQUEUED held its CPUs and GPUs without finishing its work (a requeued job's
earlier runs, shown by ``sacct --duplicates``, end REQUEUED, PREEMPTED or NODE_FAIL).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    FAILED_STATES,
    check_by,
    check_columns,
    count,
    hours,
    job_keys,
    leads,
    started,
)

__all__ = ["failure_cost", "requeues"]


def failure_cost(jobs: pd.DataFrame, by: str = "State") -> pd.DataFrame:
    """Runs, CPU-hours and GPU-hours of runs that did not complete, per state (or ``by``).

    A run is an allocation row that started (as ``usage`` and ``summary`` count runs; a het
    job's components once): a job cancelled before it started cost nothing and is no run.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> failure_cost(demo_jobs())[["State", "runs", "gpu_hours", "cpu_hours"]]
         State  runs  gpu_hours  cpu_hours
    0  TIMEOUT     1        2.0        8.0
    1   FAILED     1        0.0        1.0
    """
    check_columns(jobs, ("State", "Elapsed", "NCPUS", "NGPUS"), "failure_cost")
    check_by(jobs, by, "failure_cost")
    lost = jobs.loc[
        jobs["State"].isin(FAILED_STATES).fillna(False).to_numpy(dtype=bool) & started(jobs)
    ]
    h = hours(lost["Elapsed"])
    frame = pd.DataFrame(
        {
            by: lost[by].astype("string").fillna("(none)").to_numpy(),
            "runs": leads(lost).astype("int64"),
            "gpu_hours": h * count(lost["NGPUS"]),
            "cpu_hours": h * count(lost["NCPUS"]),
        }
    )
    out = frame.groupby(by, sort=False).sum().reset_index()
    return out.sort_values("gpu_hours", ascending=False, kind="stable").reset_index(drop=True)


def requeues(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs that ran more than once: runs, Restarts, the state of each run, hours lost.

    A job is its JobID (a het job's components, ``7+0`` and ``7+1``, are job ``7``: the
    states are its leader's, the hours its components'); its runs are the rows ``sacct
    --duplicates`` writes (ordered by Submit) that started (a job requeued and pending again
    has one row more than runs, and its ``states`` end PENDING). ``lost_gpu_hours`` counts
    every run but the last.

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
    check_columns(jobs, ("JobID", "State", "Elapsed", "NGPUS"), "requeues")
    columns = ["JobID", "runs", "Restarts", "states", "final_state", "lost_gpu_hours"]
    restarts = jobs["Restarts"] if "Restarts" in jobs else pd.Series(0, index=jobs.index)
    frame = pd.DataFrame(
        {
            "key": job_keys(jobs).to_numpy(),
            "component": jobs["JobID"].astype("string").to_numpy(),
            "state": jobs["State"].astype(str).to_numpy(),
            "gpu_h": hours(jobs["Elapsed"]) * count(jobs["NGPUS"]),
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
        {"runs": by_job["ran"].max().astype(int), "Restarts": by_job["restarts"].max().astype(int)}
    )
    table = table[(table["runs"] > 1) | (table["Restarts"] > 0)]
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
    table["lost_gpu_hours"] = lost.sum().astype(float)
    return table.rename_axis("JobID").reset_index()[columns]
