"""Fidelity: how closely a simulated job table follows what real Slurm did.

Both tables are keyed by the scenario's job id (``id`` or ``id_task`` for array
tasks) and the run number (0 for the first run, 1 after one requeue...). Start
times are seconds from the scenario start. A simulated start is *within
tolerance* when it is at most ``tolerance_s`` from the real one; the start *order*
matches when no pair of jobs that real Slurm started more than ``tolerance_s``
apart was started the other way round by the simulator. Each run's nodes (a
hostlist expression, empty when it never started) are carried beside its start.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["compare_starts", "order_violations", "real_runs", "simulated_runs"]


def real_runs(starts: pd.DataFrame) -> pd.DataFrame:
    """Runs from a real cluster's ``starts.csv`` (tools/realslurm): key, run, start, state,
    who started it and its nodes (``nodelist``, when the file has it).

    >>> real = pd.DataFrame({"id": ["a", "a"], "array_task": [None, None],
    ...     "submit_s": [0, 30], "start_s": [0, 151], "state": ["REQUEUED", "COMPLETED"],
    ...     "flags": ["SchedMain", "SchedBackfill"]})
    >>> real_runs(real)[["key", "run", "start"]].values.tolist()
    [['a', 0, 0.0], ['a', 1, 151.0]]
    """
    frame = starts[starts["id"].notna() & (starts["id"].astype(str) != "")].copy()
    task = frame["array_task"].astype("string").fillna("")
    frame["key"] = frame["id"].astype(str) + np.where(task != "", "_" + task, "")
    frame = frame.sort_values(["key", "submit_s"], kind="stable")
    frame["run"] = frame.groupby("key").cumcount()
    flags = frame["flags"].astype("string").fillna("")
    nodes = frame["nodelist"] if "nodelist" in frame else pd.Series("", index=frame.index)
    unassigned = nodes.astype("string").fillna("").eq("None assigned").to_numpy(dtype=bool)
    nodes = nodes.astype("string").fillna("").replace("None assigned", "")
    # A pending job that scancel ends gets start_time = end_time = now (job_mgr.c
    # job_signal), which slurmdbd keeps as its Start when the job's first record had not
    # reached it yet (slurmctld sends those every 5 s): sacct then shows a Start with
    # "None assigned" and Elapsed 0 (real Slurm 22.05, mix-18's j19, cancelled 3 s after its
    # submission). It never ran: no start.
    start = pd.to_numeric(frame["start_s"], errors="coerce").to_numpy(dtype=float)
    start[unassigned] = np.nan
    return pd.DataFrame(
        {
            "key": frame["key"].to_numpy(),
            "run": frame["run"].to_numpy(),
            "start": start,
            "state": frame["state"].astype(str).str.split().str[0].to_numpy(),
            "started_by": np.where(
                flags.str.contains("SchedBackfill"),
                "backfill",
                np.where(flags.str.contains("SchedMain"), "main", ""),
            ),
            "nodes": nodes.to_numpy(dtype=object),
        }
    )


def simulated_runs(jobs: pd.DataFrame) -> pd.DataFrame:
    """Runs from a simulated job table (``result.sacct(duplicates=True)``), times in seconds."""
    origin = jobs.attrs.get("origin")
    start = (jobs["Start"] - origin).dt.total_seconds() if origin is not None else jobs["Start"]
    return pd.DataFrame(
        {
            "key": jobs["JobID"].astype(str).to_numpy(),
            "run": jobs["Restarts"].fillna(0).astype(int).to_numpy(),
            "start": start.to_numpy(dtype=float),
            "state": jobs["State"].astype(str).to_numpy(),
            "started_by": jobs["StartedBy"].astype("string").fillna("").to_numpy(),
            "nodes": jobs["NodeList"].astype("string").fillna("").to_numpy(dtype=object),
        }
    )


def compare_starts(
    simulated: pd.DataFrame, real: pd.DataFrame, *, tolerance_s: float = 10.0
) -> pd.DataFrame:
    """One row per run of either table: real and simulated start, difference, within tolerance.

    ``simulated`` and ``real`` are frames from :func:`simulated_runs` and :func:`real_runs`.
    Jobs that never started on one side count as within tolerance only if they never
    started on the other side either.
    """
    both = real.merge(simulated, on=["key", "run"], how="outer", suffixes=("_real", "_sim"))
    diff = both["start_sim"] - both["start_real"]
    never = both["start_real"].isna() & both["start_sim"].isna()
    both["diff_s"] = diff
    both["within"] = never | (diff.abs() <= tolerance_s)
    return both.sort_values(
        ["start_real", "key", "run"], kind="stable", na_position="last"
    ).reset_index(drop=True)


def order_violations(compared: pd.DataFrame, *, tolerance_s: float = 10.0) -> list[tuple[str, str]]:
    """Pairs (a, b) that real Slurm started a before b (by more than the tolerance) but the
    simulator started b strictly before a."""
    rows = compared.dropna(subset=["start_real", "start_sim"])
    keys = (rows["key"] + "#" + rows["run"].astype(str)).tolist()
    real = rows["start_real"].to_numpy()
    sim = rows["start_sim"].to_numpy()
    out = []
    for i in range(len(rows)):
        for j in range(len(rows)):
            if real[i] + tolerance_s < real[j] and sim[j] < sim[i]:
                out.append((keys[i], keys[j]))
    return out
