"""Turn the engine's job records and event log into flat tables.

The job table has sacct's columns and dtypes (:mod:`slurmlab.records.schema`),
one row per job, or per run with ``duplicates=True`` (as ``sacct --duplicates``
shows earlier runs of requeued jobs). Times are anchored at the simulation's origin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from slurmlab.records.schema import conform
from slurmlab.sim.engine import Simulation, iter_records
from slurmlab.spec.units import compress_hostlist

__all__ = ["SIMULATED_COLUMNS", "event_table", "job_table"]

SIMULATED_COLUMNS = (
    "JobID", "JobIDRaw", "ArrayJobID", "ArrayTaskID", "HetJobID", "HetJobOffset", "JobName",
    "User", "Account", "Partition", "QOS", "State", "ExitCode", "Submit", "Eligible", "Start",
    "End", "Elapsed", "Timelimit", "NNodes", "NCPUS", "NGPUS", "ReqMem", "NodeList",
    "AllocTRES", "ReqTRES", "Priority", "Reason", "Restarts", "StartedBy",
)  # fmt: skip


def _tres(cpus: int, mem: int, nodes: int, gpus: int, gpu_type: str | None) -> str:
    parts = [f"cpu={cpus}"]
    if gpus:
        parts.append(f"gres/gpu={gpus}")
        if gpu_type:
            parts.append(f"gres/gpu:{gpu_type}={gpus}")
    if mem:
        parts.append(f"mem={mem}M")
    parts.append(f"node={nodes}")
    return ",".join(sorted(parts))


def job_table(sim: Simulation, *, duplicates: bool = False) -> pd.DataFrame:
    """The job table: the current (last) run of every job, or every run with ``duplicates``."""
    # the columns a simulation knows; conform() adds any other schema column, empty
    rows: dict[str, list] = {c: [] for c in SIMULATED_COLUMNS}
    nan = np.nan
    names = sim.node_names
    for job, run, last in iter_records(sim):
        if not duplicates and not last:
            continue
        res = job.res
        started = run["Start"] is not None
        nodes = run["nodes"]
        count = len(nodes) if started else res.nodes
        usage = run["usage"]
        cpus = int(usage[:, 0].sum()) if started else res.cpus_per_node * res.nodes
        mem = int(usage[:, 1].sum()) if started else res.mem_per_node_mb * res.nodes
        gpus = int(usage[:, 2].sum()) if started else res.gpus_per_node * res.nodes
        rows["JobID"].append(job.key)
        rows["JobIDRaw"].append(str(job.id))
        rows["ArrayJobID"].append(job.array_job)
        rows["ArrayTaskID"].append(job.array_task)
        rows["HetJobID"].append(None)
        rows["HetJobOffset"].append(None)
        rows["JobName"].append(job.name)
        rows["User"].append(job.user)
        rows["Account"].append(job.account)
        rows["Partition"].append(job.partition)
        rows["QOS"].append(job.spec.qos or "normal")
        rows["State"].append(run["State"])
        rows["ExitCode"].append(run["ExitCode"])
        rows["Submit"].append(run["Submit"])
        rows["Eligible"].append(nan if run["Eligible"] is None else run["Eligible"])
        rows["Start"].append(nan if run["Start"] is None else run["Start"])
        rows["End"].append(nan if run["End"] is None else run["End"])
        rows["Elapsed"].append(nan)
        rows["Timelimit"].append(job.limit)
        rows["NNodes"].append(count)
        rows["NCPUS"].append(cpus)
        rows["NGPUS"].append(gpus)
        rows["ReqMem"].append(res.mem_per_node_mb)
        rows["NodeList"].append(
            compress_hostlist(names[i] for i in nodes) if started else "None assigned"
        )
        rows["AllocTRES"].append(_tres(cpus, mem, count, gpus, res.gpu_type) if started else "")
        rows["ReqTRES"].append(
            _tres(
                res.cpus_per_node * res.nodes, res.mem_per_node_mb * res.nodes, res.nodes,
                res.gpus_per_node * res.nodes, res.gpu_type,
            )
        )  # fmt: skip
        rows["Priority"].append(int(job.priority))
        rows["Reason"].append(job.reason if run["State"] == "PENDING" else "None")
        rows["Restarts"].append(run["Restarts"])
        rows["StartedBy"].append(run["by"])
    frame = pd.DataFrame(rows)
    origin = sim.origin
    for col in ("Submit", "Eligible", "Start", "End"):
        frame[col] = origin + pd.to_timedelta(frame[col].astype(float), unit="s")
    limit = frame["Timelimit"].astype(float)
    frame["Timelimit"] = pd.to_timedelta(limit.where(np.isfinite(limit)), unit="s")
    now = origin + pd.to_timedelta(sim.now, unit="s")
    end = frame["End"].where(frame["End"].notna(), now)
    frame["Elapsed"] = (end - frame["Start"]).where(frame["Start"].notna(), pd.Timedelta(0))
    out = conform(frame)
    out.attrs["origin"] = origin
    return out


EVENT_COLUMNS = ["time", "event", "JobIDRaw", "JobID", "detail"]


def event_table(sim: Simulation) -> pd.DataFrame:
    """The event log: one row per submit / eligible / start / end / requeue / node event."""
    frame = pd.DataFrame(sim.events, columns=EVENT_COLUMNS)
    frame["JobIDRaw"] = frame["JobIDRaw"].astype("Int64")
    return frame
