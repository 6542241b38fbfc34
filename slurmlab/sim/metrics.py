"""Scheduling metrics of a job table, with exact definitions.

* wait = Start - Submit, over jobs that started (mean, median, p95, in seconds);
* bounded slowdown = max(1, (wait + run) / max(run, 10 s)), averaged over jobs that
  started and ended, where run = End - Start (Feitelson's bounded slowdown, tau = 10 s); a
  job still running when a run stopped (``until=``, a ``Lab``) does not count, where
  ``analysis.bounded_slowdown`` lists every run that started, a running one by its run so
  far: ``bounded_slowdown(jobs[jobs["End"].notna()])`` of ``result.jobs`` has the rows
  averaged here;
* wait, slowdown, ``started``, ``completed``, ``states`` and ``backfilled`` count each job
  once, by its last run (as ``sacct`` without ``-D`` shows it): a requeued job's Submit is
  its requeue time, so its wait is that of its last run; a job requeued and pending when a
  run stops counts as not started;
* utilization = used resource-seconds / (capacity x makespan), for CPUs and for GPUs,
  where used resource-seconds = allocated CPUs (GPUs) x Elapsed over all runs (every run a
  requeued job had, a running one up to now), and capacity is every node's (FUTURE ones
  included);
* makespan = last End - first Submit, for a finished run; else the window ends when the
  run stopped: now - first Submit. The first Submit is over every row of all runs, a job
  that never started included (it was submitted and waited: the window opens when the first
  job arrives, as ``analysis.utilization``'s does), while the last End is over the runs that
  started: a job cancelled while pending has an End (its cancel time, as sacct writes it)
  but held nothing, so when stuck jobs are cancelled (or purged) does not stretch the
  window; wait statistics, by contrast, count only jobs that started (above). A run is
  finished when nothing is left to happen in it: a ``simulate()`` without ``until`` that
  ran to its end (whatever jobs it left pending never start), or a run stopped at a time
  (``until=``, a ``Lab``) in which no job runs and none waits for anything that may still
  come. A pending job waits while its reason may still clear: its turn, nodes, a
  ``--begin`` time, a dependency, a limit, and a hold (``lab.release``, a scenario's
  ``release`` action clears it), but not a reason that never clears
  (``PartitionTimeLimit``, ``DependencyNeverSatisfied``...:
  ``slurmlab.sim.engine.NEVER_CLEARS``); jobs still to be submitted do not count;
* a mean, median or percentile over no job (none started, or none ended) is NaN;
* goodput (with the figures of failures) is defined in :func:`failure_metrics`;
* backfilled = jobs started out of priority order (``StartedBy == "backfill"``): while a
  job of their partition waited ahead of them and held it (``easy``, ``conservative``; not
  one a maintenance window keeps out, which FIFO's pass goes past too), or by a backfill
  cycle of the ``slurm`` policy. Under ``slurm`` that is the simulated cycles' starts, far
  fewer than a real cluster's sdiag "Total backfilled jobs" (sacct's ``SchedBackfill``
  flag) for the same jobs: the simulator tries a batch job at its submission, while Slurm
  never starts one there; it waits for the main scheduler's next run, which slurmctld's
  background loop makes at most every ``batch_sched_delay`` (3 s) after a submission
  (controller.c; ``sched_min_interval`` paces it too), and a backfill cycle that comes
  first starts it instead. On the first 32 real-Slurm fixtures (``datasets/realslurm``, each
  scenario replayed under its ``slurm`` policy and compared with
  ``analysis.fidelity``'s ``real_runs``/``simulated_runs``' ``started_by``), real Slurm
  started 168 of its 397 runs by backfill, the simulation 30 of 398 (``array-lines``: 56
  of 58 against 0). Compare ``backfilled`` between policies and settings of simulations,
  not with a real cluster's counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["BSLD_TAU", "schedule_metrics"]

BSLD_TAU = 10.0
NAN = float("nan")


def schedule_metrics(
    jobs: pd.DataFrame, capacity: dict[str, int], *, all_runs=None, now: pd.Timestamp | None = None
) -> dict:
    """The metrics above for a job table (``all_runs``: every run, for utilization).

    ``now`` is when a simulation that has not finished (see above) stopped: a job still
    runs or waits then, so the window ends there, not at the last End (an idle machine
    with jobs waiting is unused capacity), and running jobs count their resource-seconds up
    to it. A finished run passes no ``now``: its window ends at its last End.
    """
    runs = jobs if all_runs is None else all_runs
    started = jobs[jobs["Start"].notna()]
    wait = (started["Start"] - started["Submit"]).dt.total_seconds().to_numpy(dtype=float)
    ended = started[started["End"].notna()]
    run = (ended["End"] - ended["Start"]).dt.total_seconds().to_numpy(dtype=float)
    w_end = (ended["Start"] - ended["Submit"]).dt.total_seconds().to_numpy(dtype=float)
    bsld = np.maximum(1.0, (w_end + run) / np.maximum(run, BSLD_TAU)) if len(run) else np.array([])
    first = runs["Submit"].min()  # a requeue resets Submit: the first run's counts
    # the last End of a run that started: a job cancelled while pending has an End (when it
    # was cancelled) but held nothing; its Submit still opens the window (it waited)
    last = runs.loc[runs["Start"].notna(), "End"].max()
    if now is not None and runs["End"].isna().any():  # jobs still run or wait: it ends now
        last = now if pd.isna(last) else max(last, now)
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
        # over no job at all a mean is undefined: NaN (``--json`` prints null), never 0
        "mean_wait_s": float(wait.mean()) if len(wait) else NAN,
        "median_wait_s": float(np.median(wait)) if len(wait) else NAN,
        "p95_wait_s": float(np.percentile(wait, 95)) if len(wait) else NAN,
        "mean_bounded_slowdown": float(bsld.mean()) if len(bsld) else NAN,
        "utilization": cpu_s / (cap_cpu * span) if cap_cpu and span > 0 else 0.0,
        "gpu_utilization": gpu_s / (cap_gpu * span) if cap_gpu and span > 0 else 0.0,
        "makespan_s": float(span),
        "backfilled": int((jobs["StartedBy"] == "backfill").sum()),
        "cpu_hours": cpu_s / 3600.0,
        "gpu_hours": gpu_s / 3600.0,
    }


def run_accounting(sim) -> pd.DataFrame:
    """One row per run: allocated, useful, lost, checkpoint-writing and restart seconds.

    ``useful`` is work saved for good (counted once), ``lost`` the work since the
    last completed checkpoint when a run was cut, ``writing``/``restarting`` the
    checkpoint overheads. GPU (and CPU) counts come from the run's allocation.
    """
    from slurmlab.sim.engine import iter_records

    rows = []
    for job, run, _last in iter_records(sim):
        if run["Start"] is None:
            continue
        end = run["End"] if run["End"] is not None else sim.now
        usage = run["usage"]
        rows.append(
            {
                "JobID": job.key,
                "JobIDRaw": job.raw,
                "Restarts": run["Restarts"],
                "State": run["State"],
                "Start": run["Start"],
                "End": end,
                "NGPUS": int(usage[:, 2].sum()),
                "NCPUS": int(usage[:, 0].sum()),
                "allocated_s": end - run["Start"],
                "useful_s": run["useful"],
                "lost_s": run["lost"],
                "writing_s": run["writing"],
                "restarting_s": run["restarting"],
            }
        )
    cols = ["JobID", "JobIDRaw", "Restarts", "State", "Start", "End", "NGPUS", "NCPUS"]
    cols += ["allocated_s", "useful_s", "lost_s", "writing_s", "restarting_s"]
    return pd.DataFrame(rows, columns=cols)


def failure_metrics(runs: pd.DataFrame, requeues: int) -> dict:
    """Goodput and the cost of failures from :func:`run_accounting` rows.

    goodput = useful GPU-hours / allocated GPU-hours over the runs that had GPUs, or, when no
    run had a GPU, useful CPU-hours / allocated CPU-hours (so a CPU-only job in a run with
    GPU jobs does not count: ``SimulationResult.goodput()``'s rows in GPU-hours, summed, give
    it); NaN when nothing was allocated (no run started, or every run lasted 0 s), as any
    ratio over nothing is; GPU-hours lost to failures = lost work x GPUs of runs that ended NODE_FAIL or
    PREEMPTED; mean time to recovery = from a failed run's end to the next run's start,
    NaN when no failed run has been followed by another yet; ``requeues`` is every requeue
    (the job table's Restarts, summed: a job requeued and still pending counts).
    """
    weight = runs["NGPUS"] if runs["NGPUS"].sum() > 0 else runs["NCPUS"]
    alloc = float((runs["allocated_s"] * weight).sum())
    useful = float((runs["useful_s"] * weight).sum())
    failed = runs["State"].isin(["NODE_FAIL", "PREEMPTED"])
    gpu = runs["NGPUS"]
    # a failed run followed by the same job's next run (runs in order of job, then start)
    by_job = runs.sort_values(["JobIDRaw", "Start"])
    jid = by_job["JobIDRaw"].to_numpy()
    cut = by_job["State"].isin(["NODE_FAIL", "PREEMPTED"]).to_numpy()[:-1]
    follows = cut & (jid[1:] == jid[:-1])
    starts = by_job["Start"].to_numpy(dtype=float)
    recoveries = starts[1:][follows] - by_job["End"].to_numpy(dtype=float)[:-1][follows]
    return {
        "goodput": useful / alloc if alloc > 0 else NAN,  # (over nothing: unknown)
        "gpu_hours_allocated": float((runs["allocated_s"] * gpu).sum()) / 3600,
        "gpu_hours_useful": float((runs["useful_s"] * gpu).sum()) / 3600,
        "gpu_hours_lost_to_failures": float((runs["lost_s"] * gpu)[failed].sum()) / 3600,
        "gpu_hours_lost": float((runs["lost_s"] * gpu).sum()) / 3600,
        "gpu_hours_checkpointing": float((runs["writing_s"] * gpu).sum()) / 3600,
        "gpu_hours_restarting": float((runs["restarting_s"] * gpu).sum()) / 3600,
        "requeues": int(requeues),
        "mean_time_to_recovery_s": float(np.mean(recoveries)) if len(recoveries) else NAN,
    }
