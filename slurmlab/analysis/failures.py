"""What went wrong and what it cost: hours of runs that did not complete, and requeues.

A run that ended FAILED, TIMEOUT, CANCELLED, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL,
DEADLINE or REQUEUED held its CPUs and GPUs without finishing its work (a requeued job's
earlier runs, shown by ``sacct --duplicates``, end REQUEUED, PREEMPTED or NODE_FAIL).
"""

from __future__ import annotations

import pandas as pd

from slurmlab.analysis._common import FAILED_STATES, check_columns, count, hours

__all__ = ["failure_cost", "requeues"]


def failure_cost(jobs: pd.DataFrame, by: str = "State") -> pd.DataFrame:
    """Runs, CPU-hours and GPU-hours of runs that did not complete, per state (or ``by``).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> failure_cost(demo_jobs())[["State", "runs", "gpu_hours", "cpu_hours"]]
         State  runs  gpu_hours  cpu_hours
    0  TIMEOUT     1        2.0        8.0
    1   FAILED     1        0.0        1.0
    """
    check_columns(jobs, ("State", "Elapsed", "NCPUS", "NGPUS"), "failure_cost")
    lost = jobs.loc[jobs["State"].isin(FAILED_STATES)]
    h = hours(lost["Elapsed"])
    frame = pd.DataFrame(
        {
            by: lost[by].astype("string").fillna("(none)").to_numpy(),
            "runs": 1,
            "gpu_hours": h * count(lost["NGPUS"]),
            "cpu_hours": h * count(lost["NCPUS"]),
        }
    )
    out = frame.groupby(by, sort=False).sum().reset_index()
    return out.sort_values("gpu_hours", ascending=False, kind="stable").reset_index(drop=True)


def requeues(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs that ran more than once: runs, Restarts, the state of each run, hours lost.

    A job is its JobID; its runs are the rows ``sacct --duplicates`` writes (ordered by
    Submit). ``lost_gpu_hours`` counts every run but the last.

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
    frame = jobs.assign(_gpu_h=hours(jobs["Elapsed"]) * count(jobs["NGPUS"]), _pos=range(len(jobs)))
    if "Submit" in frame:
        frame = frame.sort_values(["Submit", "_pos"], kind="stable", na_position="first")
    restarts = frame["Restarts"] if "Restarts" in frame else pd.Series(0, index=frame.index)
    frame = frame.assign(_restarts=pd.to_numeric(restarts, errors="coerce").fillna(0))
    rows = []
    for job_id, runs in frame.groupby("JobID", sort=False):
        if len(runs) < 2 and runs["_restarts"].max() == 0:
            continue
        rows.append(
            {
                "JobID": job_id,
                "runs": len(runs),
                "Restarts": int(runs["_restarts"].max()),
                "states": ">".join(runs["State"].astype(str)),
                "final_state": runs["State"].iloc[-1],
                "lost_gpu_hours": float(runs["_gpu_h"].iloc[:-1].sum()),
            }
        )
    columns = ["JobID", "runs", "Restarts", "states", "final_state", "lost_gpu_hours"]
    return pd.DataFrame(rows, columns=columns)
