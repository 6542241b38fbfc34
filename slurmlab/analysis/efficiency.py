"""How well jobs used what they asked for: CPU, memory and time-limit efficiency.

Efficiency needs step data: sacct leaves MaxRSS blank on allocation rows, so read_sacct
carries the steps' peak up to each job (``MaxRSS``; ``MemUsed`` = max over steps of MaxRSS x
NTasks). All three return one row per run with the ratio in a column named after the verb.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    RUNNING_STATES,
    check_columns,
    check_jobs,
    count,
    started,
    still_running,
    unknown_columns,
)
from slurmlab.errors import warn_at_caller

__all__ = ["cpu_efficiency", "memory_efficiency", "requested_memory_mb", "timelimit_accuracy"]

_ID = ("JobID", "JobIDRaw", "User", "Account", "Partition", "State")


def _ids(jobs: pd.DataFrame) -> pd.DataFrame:
    return jobs[[c for c in _ID if c in jobs]].copy()


def cpu_efficiency(jobs: pd.DataFrame) -> pd.DataFrame:
    """TotalCPU / (Elapsed x NCPUS) per run that ran (1.0 = every allocated core busy).

    sacct sums a job's TotalCPU from its steps, so an allocation-only export (``sacct -X``)
    shows TotalCPU 0 for every job: a run with no step rows and TotalCPU 0 used an unknown
    amount of CPU, not none. Its efficiency is NaN, with one warning (export without -X), as
    is every run's in an export without NCPUS (or AllocCPUS, or AllocTRES, its source).
    So is a run still running (``_common.still_running``: its State says so, or, where the
    State is unknown, its End is Unknown): slurmdbd records a step's CPU time when the step
    ends, so its TotalCPU counts only the steps that ended (0 while its batch step runs),
    against all the time it has run. A run whose State has ended counts whatever its End
    says (an export without the End field, a ``CANCELLED by 0`` row with End Unknown).

    >>> from slurmlab.analysis._common import demo_jobs
    >>> cpu_efficiency(demo_jobs())["cpu_efficiency"].round(3).tolist()
    [0.625, 0.25, 0.5]
    """
    check_jobs(jobs, "cpu_efficiency")
    check_columns(jobs, ("TotalCPU", "Elapsed", "NCPUS"), "cpu_efficiency")
    ran = jobs.loc[jobs["Elapsed"].fillna(pd.Timedelta(0)) > pd.Timedelta(0)]
    _warn_unknown(jobs, "NCPUS", "NCPUS (or AllocCPUS)", "the CPUs allocated", "cpu_efficiency")
    allocated = ran["Elapsed"].dt.total_seconds().to_numpy(float) * count(ran["NCPUS"])
    used = ran["TotalCPU"].dt.total_seconds().to_numpy(float)
    # TotalCPU 0 without a step to sum it from: unknown (sacct -X), not idle
    step_rows, stepped = _stepped(ran)
    unknown = (used == 0) & ~stepped
    if unknown.any():
        why = (
            "the export has no step rows (it was made with sacct -X, and sacct sums a job's "
            "TotalCPU from its steps, so it is 0 there)"
            if len(step_rows) == 0
            else "they have no step rows in the export to sum TotalCPU from"
        )
        warn_at_caller(
            f"cpu_efficiency: {int(unknown.sum())} of {len(ran)} run(s) have TotalCPU 0 and "
            f"{why}: their CPU use is unknown, so their cpu_efficiency is NaN, not 0; export "
            "with the steps (drop -X from the sacct command)"
        )
        used = np.where(unknown, np.nan, used)
    running = still_running(ran) & ~np.isnan(used)
    if running.any():
        warn_at_caller(
            f"cpu_efficiency: {int(running.sum())} of {len(ran)} run(s) are still running "
            f"(State {', '.join(RUNNING_STATES)}, or, where the State is unknown, End "
            "Unknown): sacct's TotalCPU counts a step's CPU time only once the step ends, so "
            "theirs is unknown and their cpu_efficiency is NaN; export again once they have "
            "ended"
        )
        used = np.where(running, np.nan, used)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(allocated > 0, used / allocated, np.nan)
    out = _ids(ran).assign(
        TotalCPU=ran["TotalCPU"], Elapsed=ran["Elapsed"], NCPUS=ran["NCPUS"], cpu_efficiency=ratio
    )
    return out.reset_index(drop=True)


def _stepped(runs: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The step rows of ``runs`` and, per run, whether it has any in the table."""
    from slurmlab.records.sacct import steps

    if "JobID" not in runs:
        return pd.DataFrame({"AllocJobID": []}), np.zeros(len(runs), dtype=bool)
    step_rows = steps(runs)
    stepped = runs["JobID"].astype("string").isin(step_rows["AllocJobID"].astype("string"))
    return step_rows, stepped.fillna(False).to_numpy(dtype=bool)


def _warn_unknown(jobs: pd.DataFrame, column: str, field: str, what: str, who: str) -> None:
    """One warning when every run lacks ``column`` (the export has no such field, or it is
    blank throughout): every ratio is NaN then, and the warning names the field to add."""
    why = unknown_columns(jobs, {column: ((column, field),)}).get(column)
    if why:
        warn_at_caller(f"{who}: {what} are unknown, so every run's {who} is NaN ({why})")


def requested_memory_mb(jobs: pd.DataFrame) -> pd.Series:
    """The job's whole memory request in MB: ReqMem x NCPUS for a legacy per-CPU request
    (``4000Mc``), x NNodes for a per-node one (``1Gn``), else ReqMem as written.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> requested_memory_mb(demo_jobs()).tolist()[:3]
    [131072.0, 65536.0, 8192.0]
    """
    check_jobs(jobs, "requested_memory_mb")
    check_columns(jobs, ("ReqMem", "NCPUS", "NNodes"), "requested_memory_mb")
    mem = pd.to_numeric(jobs["ReqMem"], errors="coerce").astype(float)
    per = (
        (jobs["ReqMemPer"] if "ReqMemPer" in jobs else pd.Series("", index=jobs.index))
        .astype("string")
        .fillna("")
        .to_numpy()
    )
    cpus = pd.to_numeric(jobs["NCPUS"], errors="coerce").astype(float)
    nodes = pd.to_numeric(jobs["NNodes"], errors="coerce").astype(float).fillna(1.0)
    factor = np.where(per == "cpu", cpus, np.where(per == "node", nodes, 1.0))
    return pd.Series(mem.to_numpy() * factor, index=jobs.index, name="ReqMemTotal")


def memory_efficiency(jobs: pd.DataFrame) -> pd.DataFrame:
    """Peak memory used / memory requested per run that started (MemUsed, else MaxRSS, over
    ReqMem; NaN where either is unknown). Without Start times a run started if it has an
    Elapsed above 0 or a state only a started run has. sacct writes MaxRSS on step rows only,
    so a run without MaxRSS and without step rows (``sacct -X``) used an unknown amount of
    memory: NaN, with one warning, as is every run of an export without ReqMem. So is a run
    still running (as in :func:`cpu_efficiency`): slurmdbd records a step's MaxRSS when the
    step ends, so its MaxRSS is the peak of the steps that ended only.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> memory_efficiency(demo_jobs())["memory_efficiency"].tolist()
    [0.5, 0.25, 0.25]
    """
    check_jobs(jobs, "memory_efficiency")
    check_columns(jobs, ("ReqMem", "NCPUS", "NNodes"), "memory_efficiency")
    if "MemUsed" not in jobs:  # (what jobs used: only an export has it, as for TotalCPU)
        check_columns(jobs, ("MaxRSS",), "memory_efficiency")
    ran = jobs.loc[started(jobs)]
    _warn_unknown(jobs, "ReqMem", "ReqMem", "the memory requests", "memory_efficiency")
    requested = requested_memory_mb(ran)
    if "MemUsed" in ran:
        used = ran["MemUsed"].astype(float)
    elif "MaxRSS" in ran:
        used = ran["MaxRSS"].astype(float)
    else:
        used = pd.Series(np.nan, index=ran.index)
    if "MaxRSS" in jobs:  # (MaxRSS blank and no step to take it from: sacct -X)
        step_rows, stepped = _stepped(ran)
        blind = used.isna().to_numpy() & ~stepped
        if blind.any():
            why = (
                "the export has no step rows (it was made with sacct -X), and sacct writes "
                "MaxRSS on step rows only (allocation rows leave it blank)"
                if len(step_rows) == 0
                else "they have no step rows in the export to take it from (sacct writes "
                "MaxRSS on step rows only)"
            )
            warn_at_caller(
                f"memory_efficiency: {int(blind.sum())} of {len(ran)} run(s) have no MaxRSS "
                f"and {why}: their memory use is unknown, so their memory_efficiency is NaN; "
                "export with the steps (drop -X from the sacct command)"
            )
    running = still_running(ran) & used.notna().to_numpy()
    if running.any():  # (slurmdbd stores a step's MaxRSS when it ends: as_mysql_step_complete)
        warn_at_caller(
            f"memory_efficiency: {int(running.sum())} of {len(ran)} run(s) are still running "
            f"(State {', '.join(RUNNING_STATES)}, or, where the State is unknown, End "
            "Unknown): sacct's MaxRSS is recorded when a step ends, so theirs is the peak of "
            "the steps that ended only and their memory_efficiency is NaN; export again once "
            "they have ended"
        )
    ratio = used.where(~running) / requested.where(requested > 0)
    out = _ids(ran).assign(MemUsedMB=used, ReqMemMB=requested, memory_efficiency=ratio)
    return out.reset_index(drop=True)


def timelimit_accuracy(jobs: pd.DataFrame) -> pd.DataFrame:
    """Elapsed / Timelimit per run that ran (1.0 = used the whole limit; NaN if unlimited).

    A run still running (as in :func:`cpu_efficiency`) has used only part of what it will
    use, so its ratio is NaN, with one warning (its Elapsed is kept): counting its time so far
    would read the limits as more generous than they are.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> timelimit_accuracy(demo_jobs())["timelimit_accuracy"].tolist()
    [0.5, 1.0, 0.25]
    """
    check_jobs(jobs, "timelimit_accuracy")
    check_columns(jobs, ("Elapsed", "Timelimit"), "timelimit_accuracy")
    ran = jobs.loc[jobs["Elapsed"].fillna(pd.Timedelta(0)) > pd.Timedelta(0)]
    limit = ran["Timelimit"].dt.total_seconds()
    ratio = ran["Elapsed"].dt.total_seconds() / limit.where(limit > 0)
    running = still_running(ran) & ratio.notna().to_numpy()
    if running.any():
        warn_at_caller(
            f"timelimit_accuracy: {int(running.sum())} of {len(ran)} run(s) are still running "
            f"(State {', '.join(RUNNING_STATES)}, or, where the State is unknown, End "
            "Unknown): their Elapsed is the time so far, not the run's, so their "
            "timelimit_accuracy is NaN; export again once they have ended"
        )
        ratio = ratio.where(~running)
    out = _ids(ran).assign(
        Elapsed=ran["Elapsed"], Timelimit=ran["Timelimit"], timelimit_accuracy=ratio.astype(float)
    )
    return out.reset_index(drop=True)
