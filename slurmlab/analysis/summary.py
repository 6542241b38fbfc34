"""A job table in numbers and in words: what ``slurmlab summary`` prints.

Counting rules: a job is one JobID (each array task once, each requeued job once, a pending
range such as ``123_[3-5%2]`` as the tasks it stands for, a het job's components ``12+0``,
``12+1`` once); a run is one of its allocation rows that started (each run of a requeued job;
a het job once; a pending job, or one cancelled before it started, is a job and no run, as in
``usage``, ``failure_cost`` and ``requeues``: a row with a Start that never got an
allocation, no node and Elapsed 0 as older Slurm records a job cancelled while pending, is
no run either); its state is the state of its last row (a het job's: its leader's); hours
count every run of the table, earlier runs of requeued jobs included (a table without them,
``sacct`` without ``-D`` or a simulation's ``result.jobs``, is warned about: pass ``sacct
-D``'s, or ``result.jobs_all_runs``, whose hours are the simulation's ``metrics``); they
are None (unknown, with the sacct -o fields to add in ``unknown_hours``) when the runs lack
the columns they need, never 0; an export in which nothing ran used 0 hours, whatever its
fields.

Waits count jobs, not runs, as a simulation's ``metrics`` do (``slurmlab/sim/metrics.py``):
each job once, by its last run (a requeue resets Submit, so a requeued job's wait is that of
its last run), jobs whose last run started only; ``mean_wait_s``, ``median_wait_s`` and
``p95_wait_s`` (``np.percentile``, linear) are over those waits (``wait_times`` and
``wait_stats`` list every run). A wait below 0 (Start before Submit, as a DST change gives)
is unknown, as in ``wait_times``. Waits are from Submit (what users feel); where the export
has Eligible, ``mean_wait_eligible_s``, ``median_wait_eligible_s`` and
``p95_wait_eligible_s`` are from Eligible (Slurm's Reserved: holds, dependencies,
``--begin`` and a requeue's delay left out), else None.

Without an Account column the words name the top GPU users instead of accounts. Step rows
whose job's allocation row is not in the export (``sacct -j 1234.batch``, a grep) count as
steps only, never as jobs, runs or hours, with a warning naming their jobs.
``last_end`` is when the last run ended, or holds its allocation until (Start + Elapsed).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from slurmlab.analysis._common import (
    HOURS_NAMES,
    check_columns,
    check_jobs,
    count,
    counted,
    hours,
    job_keys,
    known,
    leads,
    run_ends,
    started,
    tasks,
    unknown_hours,
    waits,
    warn_missing_runs,
)
from slurmlab.errors import warn_at_caller

__all__ = ["Summary", "summary"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The headline numbers of a job table (see :func:`summary`)."""

    jobs: int
    runs: int
    steps: int
    states: dict[str, int]
    gpu_hours: float | None  # None: unknown (see unknown_hours)
    cpu_hours: float | None
    gpu_hours_by_account: dict[str, float]
    gpu_hours_by_user: dict[str, float]
    #: Waits from Submit to Start, in seconds, over jobs: each job once, by its last run (a
    #: requeue resets Submit), jobs that started only; None when none started.
    mean_wait_s: float | None
    median_wait_s: float | None
    p95_wait_s: float | None
    first_submit: str | None
    last_end: str | None
    bad_rows: int
    #: Why gpu_hours / cpu_hours are unknown: the sacct -o fields the export lacks.
    unknown_hours: dict[str, str] | None = None
    #: Waits from Eligible (when the job was allowed to run: after holds, dependencies,
    #: --begin, a requeue's delay) to Start, as Slurm's Reserved field, over the same jobs;
    #: None without Eligible.
    mean_wait_eligible_s: float | None = None
    median_wait_eligible_s: float | None = None
    p95_wait_eligible_s: float | None = None

    def to_dict(self) -> dict:
        """Plain JSON-ready values; waits in seconds rounded to the millisecond (``6120.0``,
        not the ``6119.999999999999`` a percentile can give; the fields keep every digit)."""
        data = asdict(self)
        for key in _WAIT_FIELDS:
            if data[key] is not None:
                data[key] = round(data[key], 3)
        return data

    def words(self) -> str:
        """A few sentences a person can read."""
        states = ", ".join(f"{n} {s}" for s, n in self.states.items()) or "none"
        # an export without Account: the top users instead, and the line says so
        by_account = bool(self.gpu_hours_by_account)
        top = self.gpu_hours_by_account if by_account else self.gpu_hours_by_user
        top = sorted(top.items(), key=lambda kv: -kv[1])[:3]
        lines = [
            f"{counted(self.jobs, 'job')} ({counted(self.runs, 'run')}, "
            f"{counted(self.steps, 'step')}) from {self.first_submit or '?'} "
            f"to {self.last_end or '?'}.",
            f"Final states: {states}.",
            _hours_sentence(self),
        ]
        if top and self.gpu_hours:
            lines.append(
                (
                    "Top GPU accounts: "
                    if by_account
                    else "Top GPU users (no Account in the export): "
                )
                + ", ".join(f"{a} {h:,.1f} h ({h / self.gpu_hours:.0%})" for a, h in top)
                + "."
            )
        if self.mean_wait_s is not None:
            lines.append(
                f"Jobs waited {_human(self.median_wait_s)} (median), {_human(self.mean_wait_s)} (mean) "
                "from submit to start"
                + (
                    f", and {_human(self.median_wait_eligible_s)} (median), "
                    f"{_human(self.mean_wait_eligible_s)} (mean) from eligible to start (time "
                    "held, on dependencies or --begin left out)."
                    if self.mean_wait_eligible_s is not None
                    else "."
                )
            )
        if self.bad_rows:
            lines.append(f"{self.bad_rows} malformed row(s) were left out or coerced.")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.words()


#: The waits of a Summary, in seconds.
_WAIT_FIELDS = (
    "mean_wait_s",
    "median_wait_s",
    "p95_wait_s",
    "mean_wait_eligible_s",
    "median_wait_eligible_s",
    "p95_wait_eligible_s",
)


def _hours_sentence(s: Summary) -> str:
    if s.gpu_hours is not None and s.cpu_hours is not None:
        text = f"Allocated {s.gpu_hours:,.1f} GPU-hours and {s.cpu_hours:,.1f} CPU-hours."
        if s.gpu_hours == 0 and s.cpu_hours > 0:  # a CPU cluster, or GPUs Slurm never counted
            text += (
                " No run's AllocTRES names a GPU: if the cluster has GPUs, its slurm.conf "
                "lacks AccountingStorageTRES=gres/gpu and Slurm recorded none."
            )
        return text
    known = [
        f"{value:,.1f} {name}-hours"
        for name, value in (("GPU", s.gpu_hours), ("CPU", s.cpu_hours))
        if value is not None
    ]
    unknown = "; ".join(f"{k} unknown ({why})" for k, why in (s.unknown_hours or {}).items())
    return (f"Allocated {' and '.join(known)}; " if known else "Allocated hours: ") + unknown + "."


def _warn_orphan_steps(jobs: pd.DataFrame, step_rows: pd.DataFrame) -> None:
    """One warning for step rows (.batch, .0 ...) whose job's allocation row is not in the
    export (``sacct -j 5.batch``, or a grep that lost the job rows): a step is part of its
    job's allocation, so jobs, runs and hours, which count allocation rows, leave it out."""
    if not len(step_rows) or "AllocJobID" not in step_rows:
        return
    owners = step_rows["AllocJobID"].astype("string")
    orphan = ~owners.isin(jobs["JobID"].astype("string")).fillna(False).to_numpy(dtype=bool)
    if not orphan.any():
        return
    ids = list(dict.fromkeys(owners[orphan].dropna()))
    first = ids[0] if ids else "?"
    step = str(step_rows["JobID"].to_numpy()[orphan][0])
    shown = ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")
    bad = jobs.attrs.get("bad_lines") or []
    if bad:  # (read_sacct left malformed rows out: the job rows may well be among them)
        lines = ", ".join(map(str, bad[:10])) + (" ..." if len(bad) > 10 else "")
        warn_at_caller(
            f"summary: {int(orphan.sum())} step row(s) of {len(ids)} job(s) (JobID {shown}) "
            f"have no allocation row in the table: read_sacct left malformed rows out (line(s) "
            f"{lines}), their job rows most likely among them; jobs, runs and hours leave "
            "those jobs out: read with errors='coerce' to keep the rows with NA for the bad "
            "values, or fix them"
        )
        return
    if len(jobs) == 0:
        warn_at_caller(
            f"summary: the table has {int(orphan.sum())} step row(s) (.batch, .0 ...) and no "
            f"allocation row (sacct -j {step}, or a grep that lost the job rows): jobs, runs "
            f"and hours count allocation rows, so they are 0; export the jobs too (sacct -j "
            f"{first})"
        )
        return
    warn_at_caller(
        f"summary: {int(orphan.sum())} step row(s) of {len(ids)} job(s) whose allocation row "
        f"is not in the export (JobID {shown}) are left out of jobs, runs and hours, which "
        f"count allocation rows (the steps count only as steps); an export filtered on steps "
        f"(sacct -j {step}) or a grep loses the job rows: export the jobs too (sacct -j "
        f"{first}, or without -j on steps)"
    )


def _unknown_hours(jobs: pd.DataFrame) -> dict[str, str]:
    """Which hours the table cannot give (a column every run lacks), and the fix. An export
    in which nothing ran used 0 hours, whatever its fields (known, not unknown)."""
    unknown = unknown_hours(jobs)
    return {HOURS_NAMES[k]: unknown[k] for k in ("gpu_hours", "cpu_hours") if k in unknown}


def _human(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _by(frame: pd.DataFrame, column: str, values: np.ndarray) -> dict[str, float]:
    if not known(frame, column):  # an export without Account: no "(none)" holding everything
        return {}
    keys = frame[column].astype("string").fillna("(none)").to_numpy()
    totals = pd.Series(values).groupby(keys).sum()
    return {
        str(k): round(float(v), 6) for k, v in totals.sort_values(ascending=False).items() if v > 0
    }


def summary(jobs: pd.DataFrame) -> Summary:
    """Count jobs, steps and states, sum CPU/GPU-hours, and describe waits.

    >>> from slurmlab.analysis._common import demo_jobs
    >>> s = summary(demo_jobs())
    >>> s.jobs, s.states, s.gpu_hours
    (6, {'PENDING': 3, 'COMPLETED': 1, 'FAILED': 1, 'TIMEOUT': 1}, 10.0)
    """
    from slurmlab.records.sacct import steps as steps_of

    check_jobs(jobs, "summary")
    check_columns(jobs, ("JobID", "State"), "summary")
    step_rows = steps_of(jobs)
    step_count = len(step_rows)
    _warn_orphan_steps(jobs, step_rows)
    unknown = _unknown_hours(jobs)
    warn_missing_runs(jobs, "summary")
    weight = tasks(jobs)
    h = hours(jobs["Elapsed"]) if "Elapsed" in jobs else np.zeros(len(jobs))
    gpu = h * count(jobs["NGPUS"]) if "NGPUS" in jobs else np.zeros(len(jobs))
    cpu = h * count(jobs["NCPUS"]) if "NCPUS" in jobs else np.zeros(len(jobs))
    # the last run of each job; among a het job's components (one Submit) its leader
    order = pd.DataFrame(
        {
            "State": jobs["State"].to_numpy(),
            "_w": weight,
            "_key": job_keys(jobs).to_numpy(),
            "_lead": leads(jobs),
            "_pos": np.arange(len(jobs)),
        }
    )
    if "Submit" in jobs:
        order["Submit"] = jobs["Submit"].to_numpy()
        order = order.sort_values(["Submit", "_lead", "_pos"], kind="stable", na_position="first")
    else:
        order = order.sort_values(["_lead", "_pos"], kind="stable")
    last = order.drop_duplicates("_key", keep="last")
    states = last.groupby(last["State"].astype("string").fillna("UNKNOWN"))["_w"].sum()
    states = states.reset_index().sort_values(
        ["_w", "State"], ascending=[False, True], kind="stable"
    )
    states = {str(k): int(v) for k, v in zip(states["State"], states["_w"])}
    wait = eligible = None
    if "Start" in jobs and "Submit" in jobs:
        # each job once, by its last run (a requeue resets Submit: the wait of that run), as
        # the simulator's metrics count them; a job whose last row did not start has none
        final = last["_pos"].to_numpy()
        wait = _seconds(waits(jobs), final)
        if known(jobs, "Eligible"):
            with warnings.catch_warnings():  # (a wait below 0 is warned about once, above)
                warnings.simplefilter("ignore")
                eligible = _seconds(waits(jobs, since="Eligible"), final)
    first = jobs["Submit"].min() if "Submit" in jobs else None
    ends = [e for e in (jobs.get("End"), run_ends(jobs)) if e is not None and e.notna().any()]
    end = max(e.max() for e in ends) if ends else None
    return Summary(
        jobs=int(last["_w"].sum()),
        runs=int((started(jobs) & leads(jobs)).sum()),
        steps=step_count,
        states=states,
        gpu_hours=None if "GPU-hours" in unknown else round(float(gpu.sum()), 6),
        cpu_hours=None if "CPU-hours" in unknown else round(float(cpu.sum()), 6),
        gpu_hours_by_account=_by(jobs, "Account", gpu),
        gpu_hours_by_user=_by(jobs, "User", gpu),
        mean_wait_s=_stat(wait, np.mean),
        median_wait_s=_stat(wait, np.median),
        p95_wait_s=_stat(wait, _p95),
        first_submit=None if first is None or pd.isna(first) else first.isoformat(),
        last_end=None if end is None or pd.isna(end) else end.isoformat(),
        bad_rows=int(jobs.attrs.get("bad_rows", 0)),
        unknown_hours=unknown or None,
        mean_wait_eligible_s=_stat(eligible, np.mean),
        median_wait_eligible_s=_stat(eligible, np.median),
        p95_wait_eligible_s=_stat(eligible, _p95),
    )


def _seconds(wait: pd.Series, rows: np.ndarray) -> np.ndarray:
    """The known waits of the given rows, in seconds."""
    seconds = wait.dt.total_seconds().to_numpy(dtype=float)[rows]
    return seconds[~np.isnan(seconds)]


def _p95(seconds: np.ndarray) -> float:
    return np.percentile(seconds, 95)


def _stat(seconds: np.ndarray | None, how) -> float | None:
    """A statistic of waits in seconds (as ``slurmlab.sim.metrics`` computes it), None over
    no wait."""
    return float(how(seconds)) if seconds is not None and len(seconds) else None
