"""Scheduling metrics of a job table, with exact definitions.

* wait = Start - Submit, over jobs that started (mean, median, p95, in seconds);
* bounded slowdown = max(1, (wait + run) / max(run, 10 s)), averaged over jobs that
  ended, where run = End - Start (Feitelson's bounded slowdown with tau = 10 s);
* utilization = used resource-seconds / (capacity x (last End - first Submit)), for CPUs
  and for GPUs, where used resource-seconds = allocated CPUs (GPUs) x Elapsed over all runs;
* makespan = last End - first Submit;
* backfilled = jobs started out of priority order (``StartedBy == "backfill"``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["BSLD_TAU", "schedule_metrics"]

BSLD_TAU = 10.0


def schedule_metrics(jobs: pd.DataFrame, capacity: dict[str, int], *, all_runs=None) -> dict:
    """The metrics above for a job table (``all_runs``: every run, for utilization)."""
    runs = jobs if all_runs is None else all_runs
    started = jobs[jobs["Start"].notna()]
    wait = (started["Start"] - started["Submit"]).dt.total_seconds().to_numpy(dtype=float)
    ended = started[started["End"].notna()]
    run = (ended["End"] - ended["Start"]).dt.total_seconds().to_numpy(dtype=float)
    w_end = (ended["Start"] - ended["Submit"]).dt.total_seconds().to_numpy(dtype=float)
    bsld = np.maximum(1.0, (w_end + run) / np.maximum(run, BSLD_TAU)) if len(run) else np.array([])
    first = jobs["Submit"].min()
    last = runs["End"].max()
    span = (last - first).total_seconds() if pd.notna(first) and pd.notna(last) else 0.0
    elapsed = runs["Elapsed"].dt.total_seconds().fillna(0).to_numpy(dtype=float)
    cpu_s = float((runs["NCPUS"].fillna(0).to_numpy(dtype=float) * elapsed).sum())
    gpu_s = float((runs["NGPUS"].fillna(0).to_numpy(dtype=float) * elapsed).sum())
    cap_cpu, cap_gpu = capacity.get("cpu", 0), capacity.get("gres/gpu", 0)
    states = jobs["State"].value_counts()
    return {
        "jobs": int(len(jobs)),
        "started": int(len(started)),
        "completed": int(states.get("COMPLETED", 0)),
        "states": {str(k): int(v) for k, v in states.items()},
        "mean_wait_s": float(wait.mean()) if len(wait) else 0.0,
        "median_wait_s": float(np.median(wait)) if len(wait) else 0.0,
        "p95_wait_s": float(np.percentile(wait, 95)) if len(wait) else 0.0,
        "mean_bounded_slowdown": float(bsld.mean()) if len(bsld) else 0.0,
        "utilization": cpu_s / (cap_cpu * span) if cap_cpu and span > 0 else 0.0,
        "gpu_utilization": gpu_s / (cap_gpu * span) if cap_gpu and span > 0 else 0.0,
        "makespan_s": float(span),
        "backfilled": int((jobs["StartedBy"] == "backfill").sum()),
        "cpu_hours": cpu_s / 3600.0,
        "gpu_hours": gpu_s / 3600.0,
    }
