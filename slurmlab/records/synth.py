"""Realistic synthetic ``sacct -P -D`` exports of any size, from a seed.

The generator writes what a busy AI cluster's accounting looks like: several accounts and
users, a typed-GPU partition (A100 and H100 nodes), a CPU and a debug partition; arrays
(and pending array ranges such as ``812_[4-9%2]``), ``.batch``/``.extern``/``.0`` steps,
failures, timeouts (whose ``.batch`` step is CANCELLED 0:15), OOM kills, jobs cancelled
while pending, and requeued jobs whose earlier runs appear as ``--duplicates`` rows.

Randomness comes from ``numpy.random.SeedSequence(seed)`` spawned into independent streams
(arrivals, shapes, outcomes, usage); the global generator is never touched, so one seed
gives one file, byte for byte.

    python -m slurmlab.records.synth --jobs 2000 --seed 2026 -o export.psv
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["FIELDS", "SynthConfig", "synth_sacct"]

#: The 30 columns written, as ``sacct -o`` would take them.
FIELDS: tuple[str, ...] = (
    "JobID", "JobIDRaw", "JobName", "User", "Account", "Partition", "QOS", "State", "ExitCode",
    "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw", "Timelimit", "TimelimitRaw",
    "NNodes", "NCPUS", "NTasks", "ReqMem", "AllocTRES", "ReqTRES", "NodeList", "TotalCPU",
    "MaxRSS", "Priority", "Restarts", "Reason", "WorkDir",
)  # fmt: skip

_ACCOUNTS = {  # account -> (users, share of submissions, GPU-heavy?)
    "vision": (8, 0.25, True),
    "nlp": (10, 0.30, True),
    "speech": (4, 0.08, True),
    "robotics": (5, 0.10, True),
    "bio": (6, 0.12, False),
    "physics": (5, 0.10, False),
    "ops": (2, 0.05, False),
}
_NAMES = (
    "train",
    "eval",
    "sweep",
    "preprocess",
    "finetune",
    "infer",
    "bench",
    "tokenize",
    "ckpt-merge",
    "notebook",
)
_PARTITIONS = {  # name -> (node prefix, nodes, cpus/node, gpus/node, gpu types, mem GB/node, max time h)
    "gpu": ("gpu", 64, 64, 8, ("a100", "h100"), 1024, 48),
    "cpu": ("cpu", 128, 128, 0, (), 512, 72),
    "debug": ("dbg", 4, 32, 2, ("a100",), 256, 1),
}


@dataclass(frozen=True, slots=True)
class SynthConfig:
    """Shape of a synthetic export; the defaults look like a busy mid-size AI cluster."""

    start: str = "2026-01-05T00:00:00"
    jobs_per_day: float = 150.0
    array_fraction: float = 0.08
    requeue_fraction: float = 0.03
    pending_range_fraction: float = 0.5  # of arrays submitted in the last tenth of the export

    def __post_init__(self):
        if self.jobs_per_day <= 0:
            raise ValueError(f"SynthConfig: jobs_per_day={self.jobs_per_day} must be positive")
        for name in ("array_fraction", "requeue_fraction", "pending_range_fraction"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"SynthConfig: {name}={value} must be between 0 and 1")


def _dur(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    text = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _cpu_time(seconds: float) -> str:
    """TotalCPU as sacct writes it: MM:SS.mmm under an hour, else [D-]HH:MM:SS."""
    if seconds < 3600:
        millis = int(round(seconds * 1000))
        return f"{millis // 60000:02d}:{millis // 1000 % 60:02d}.{millis % 1000:03d}"
    return _dur(int(seconds))


def _ts(t: pd.Timestamp | None) -> str:
    return "Unknown" if t is None else t.strftime("%Y-%m-%dT%H:%M:%S")


def _mem(mb: float) -> str:
    """A size the way sacct's default output rescales it (K, M or G, varying row by row)."""
    kb = mb * 1024
    if kb < 1024 * 10:
        return f"{int(kb)}K"
    if mb < 1024 * 10:
        return f"{mb:.2f}M"
    return f"{mb / 1024:.2f}G"


def _nodelist(prefix: str, first: int, count: int) -> str:
    if count == 1:
        return f"{prefix}{first:03d}"
    return f"{prefix}[{first:03d}-{first + count - 1:03d}]"


def synth_sacct(n_jobs: int, *, seed: int = 0, config: SynthConfig | None = None) -> str:
    """``sacct -P -D`` text (with header) of about ``n_jobs`` jobs; same seed, same text.

    >>> text = synth_sacct(50, seed=1)
    >>> text.splitlines()[0].split("|")[:3]
    ['JobID', 'JobIDRaw', 'JobName']
    >>> synth_sacct(50, seed=1) == text
    True
    """
    if n_jobs < 1:
        raise ValueError(f"synth_sacct: n_jobs={n_jobs} must be at least 1")
    config = config or SynthConfig()
    arrivals, shapes, outcomes, usage = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)
    )
    origin = pd.Timestamp(config.start)
    horizon = n_jobs / config.jobs_per_day * 86400.0

    accounts = list(_ACCOUNTS)
    weights = np.array([_ACCOUNTS[a][1] for a in accounts])
    users = {a: [f"{a[:3]}{i:02d}" for i in range(_ACCOUNTS[a][0])] for a in accounts}
    uids = {u: 100000 + k for k, u in enumerate(u for a in accounts for u in users[a])}

    submit_s = np.sort(arrivals.uniform(0.0, horizon, n_jobs))
    account_idx = shapes.choice(len(accounts), size=n_jobs, p=weights / weights.sum())
    is_array = shapes.random(n_jobs) < config.array_fraction
    array_size = np.where(is_array, shapes.integers(2, 24, n_jobs), 1)
    name_idx = shapes.integers(0, len(_NAMES), n_jobs)
    outcome_u = outcomes.random(n_jobs)
    lines = ["|".join(FIELDS)]
    next_id = 1_000_000
    for j in range(n_jobs):
        account = accounts[account_idx[j]]
        gpu_heavy = _ACCOUNTS[account][2]
        user = users[account][int(shapes.integers(0, len(users[account])))]
        if gpu_heavy:
            partition = "debug" if shapes.random() < 0.08 else "gpu"
        else:
            partition = "cpu" if shapes.random() < 0.9 else "gpu"
        prefix, n_nodes_part, cpn, gpn, gpu_types, mem_gb, max_h = _PARTITIONS[partition]
        nodes = (
            1
            if partition == "debug"
            else int(min(shapes.choice([1, 1, 1, 1, 2, 4, 8]), n_nodes_part))
        )
        if gpn:
            gpus_per_node = int(shapes.choice([1, 2, 4, 8, 8]) if nodes == 1 else gpn)
            gpus_per_node = min(gpus_per_node, gpn)
            gtype = gpu_types[int(shapes.integers(0, len(gpu_types)))]
            cpus = nodes * gpus_per_node * 8
        else:
            gpus_per_node, gtype = 0, None
            cpus = nodes * int(shapes.choice([1, 4, 16, 32, 64, 128]))
        gpus = nodes * gpus_per_node
        limit_min = int(min(max_h * 60, shapes.choice([30, 60, 120, 240, 480, 1440, 2880])))
        mem_mb = int(shapes.choice([4, 8, 16, 32, 64, 128, 256])) * 1024 * nodes
        name = _NAMES[name_idx[j]]
        tasks = int(array_size[j])
        base_id = next_id
        raw_ids = list(range(next_id, next_id + tasks))
        next_id += tasks + int(shapes.integers(0, 3))
        submit = origin + pd.Timedelta(seconds=float(submit_s[j]))
        size_factor = 1.0 + np.log2(1 + gpus + cpus / 32)
        workdir = f"/home/{user}/{name}"
        tres = [f"billing={cpus + 8 * gpus}", f"cpu={cpus}"]
        if gpus:
            tres += [f"gres/gpu:{gtype}={gpus}", f"gres/gpu={gpus}"]
        tres += [f"mem={mem_mb // 1024}G", f"node={nodes}"]
        alloc_tres = ",".join(tres)
        req_tres = ",".join(t for t in tres if not t.startswith("billing="))
        priority = int(usage.integers(1000, 200000))
        pending_range = (
            is_array[j]
            and submit_s[j] > horizon * 0.9
            and outcomes.random() < config.pending_range_fraction
        )
        if pending_range:
            lo = int(outcomes.integers(0, 3))
            hi = lo + tasks - 1
            throttle = f"%{int(outcomes.integers(1, 5))}" if outcomes.random() < 0.5 else ""
            row = {
                "JobID": f"{base_id}_[{lo}-{hi}{throttle}]", "JobIDRaw": str(base_id), "JobName": name,
                "User": user, "Account": account, "Partition": partition, "QOS": "normal",
                "State": "PENDING", "ExitCode": "0:0", "Submit": _ts(submit), "Eligible": _ts(submit),
                "Start": "Unknown", "End": "Unknown", "Elapsed": "00:00:00", "ElapsedRaw": "0",
                "Timelimit": _dur(limit_min * 60), "TimelimitRaw": str(limit_min), "NNodes": str(nodes),
                "NCPUS": "0", "NTasks": "", "ReqMem": f"{mem_mb // 1024}G", "AllocTRES": "",
                "ReqTRES": req_tres, "NodeList": "None assigned", "TotalCPU": "00:00:00", "MaxRSS": "",
                "Priority": str(priority), "Restarts": "0", "Reason": "JobArrayTaskLimit" if throttle else "Priority",
                "WorkDir": workdir,
            }  # fmt: skip
            lines.append("|".join(row[f] for f in FIELDS))
            continue
        for t in range(tasks):
            job_id = f"{base_id}_{t}" if is_array[j] else str(base_id)
            raw = str(raw_ids[t])
            runs = 1
            if outcomes.random() < config.requeue_fraction:
                runs += 1 + int(outcomes.random() < 0.25)
            run_submit = submit
            for run in range(runs):
                last = run == runs - 1
                wait = (
                    usage.exponential(600.0 * size_factor)
                    if partition != "debug"
                    else usage.exponential(60.0)
                )
                start = run_submit + pd.Timedelta(seconds=float(wait))
                u = outcome_u[j] if last else 2.0
                want = float(np.exp(usage.normal(np.log(limit_min * 60 * 0.35), 0.9)))
                elapsed = int(min(max(want, 5.0), limit_min * 60))
                exit_code, state, cancelled_by = "0:0", "COMPLETED", None
                if not last:
                    state = ["REQUEUED", "PREEMPTED", "NODE_FAIL"][int(outcomes.integers(0, 3))]
                    elapsed = int(elapsed * outcomes.uniform(0.1, 0.9)) + 1
                elif u < 0.07:
                    state, exit_code = "FAILED", f"{int(outcomes.choice([1, 2, 127, 137]))}:0"
                    elapsed = int(elapsed * outcomes.uniform(0.0, 0.3)) + 1
                elif u < 0.13:
                    state, exit_code, elapsed = "TIMEOUT", "0:15", limit_min * 60
                elif u < 0.15:
                    state, exit_code = "OUT_OF_MEMORY", "0:125"
                    elapsed = int(elapsed * outcomes.uniform(0.05, 0.6)) + 1
                elif u < 0.20:
                    state, exit_code, cancelled_by = "CANCELLED", "0:0", uids[user]
                    elapsed = int(elapsed * outcomes.uniform(0.0, 0.8))
                elif u < 0.205:
                    state, exit_code = "NODE_FAIL", "0:0"
                    elapsed = int(elapsed * outcomes.uniform(0.1, 0.9)) + 1
                never_started = state == "CANCELLED" and outcomes.random() < 0.3
                end = start + pd.Timedelta(seconds=elapsed)
                export_end = origin + pd.Timedelta(seconds=horizon)
                if last and start > export_end:
                    state, never_started = "PENDING", True
                elif last and end > export_end:
                    state, exit_code = "RUNNING", "0:0"
                    elapsed = int((export_end - start).total_seconds())
                    end = None
                first_node = int(usage.integers(1, n_nodes_part - nodes + 2))
                node_list = _nodelist(prefix, first_node, nodes)
                restarts = str(run)
                state_text = f"CANCELLED by {cancelled_by}" if cancelled_by else state
                busy = (
                    float(outcomes.uniform(0.2, 0.98))
                    if state != "FAILED"
                    else float(outcomes.uniform(0.0, 0.2))
                )
                total_cpu = elapsed * cpus * busy
                rss_mb = (
                    mem_mb
                    / nodes
                    * (1.05 if state == "OUT_OF_MEMORY" else float(usage.uniform(0.05, 0.9)))
                )
                if never_started:
                    row_start, row_end, elapsed, node_list = (
                        None,
                        (start if state == "CANCELLED" else None),
                        0,
                        "None assigned",
                    )
                    total_cpu, ncpus, atres = 0.0, 0, ""
                else:
                    row_start, row_end, ncpus, atres = start, end, cpus, alloc_tres
                reason = (
                    "None" if not never_started else ("Priority" if state == "PENDING" else "None")
                )
                row = {
                    "JobID": job_id, "JobIDRaw": raw, "JobName": name, "User": user, "Account": account,
                    "Partition": partition, "QOS": "high" if account == "ops" else "normal",
                    "State": state_text, "ExitCode": exit_code, "Submit": _ts(run_submit),
                    "Eligible": _ts(run_submit), "Start": _ts(row_start), "End": _ts(row_end),
                    "Elapsed": _dur(elapsed), "ElapsedRaw": str(elapsed), "Timelimit": _dur(limit_min * 60),
                    "TimelimitRaw": str(limit_min), "NNodes": str(nodes), "NCPUS": str(ncpus), "NTasks": "",
                    "ReqMem": f"{mem_mb // 1024}G", "AllocTRES": atres, "ReqTRES": req_tres,
                    "NodeList": node_list, "TotalCPU": _cpu_time(total_cpu), "MaxRSS": "",
                    "Priority": str(priority), "Restarts": restarts, "Reason": reason, "WorkDir": workdir,
                }  # fmt: skip
                lines.append("|".join(row[f] for f in FIELDS))
                if not never_started:
                    lines.extend(
                        _steps(
                            row,
                            state,
                            exit_code,
                            elapsed,
                            nodes,
                            gpus,
                            cpus,
                            total_cpu,
                            rss_mb,
                            usage,
                        )
                    )
                if end is not None:
                    run_submit = end + pd.Timedelta(seconds=float(usage.integers(1, 120)))
    return "\n".join(lines) + "\n"


def _steps(job, state, exit_code, elapsed, nodes, gpus, cpus, total_cpu, rss_mb, rng) -> list[str]:
    """The .batch, .extern and (for GPU / multi-node jobs) .0 step rows of one run."""
    running = state in ("RUNNING",)
    step_state = {"TIMEOUT": "CANCELLED", "NODE_FAIL": "CANCELLED", "PREEMPTED": "CANCELLED"}.get(
        state, state
    )
    step_exit = {"TIMEOUT": "0:15", "NODE_FAIL": "0:9", "PREEMPTED": "0:15"}.get(state, exit_code)
    if step_state.startswith("CANCELLED by"):
        step_state = "CANCELLED"
    kinds = ["batch", "extern"] + (["0"] if gpus or nodes > 1 else [])
    rows = []
    for kind in kinds:
        first_node = job["NodeList"].split(",")[0]
        if "[" in first_node:
            prefix, rest = first_node.split("[", 1)
            first_node = prefix + rest.split("-")[0].split(",")[0].rstrip("]")
        if kind == "batch":  # the batch script: all the work, unless srun runs a .0 step
            cpu_share = 0.05 if (gpus or nodes > 1) else 1.0
            n, tasks, rss, node_list = 1, 1, rss_mb * 0.6, first_node
        elif kind == "extern":
            n, tasks, cpu_share, rss, node_list = nodes, nodes, 0.0, 1.0, job["NodeList"]
        else:
            n, tasks, cpu_share, rss, node_list = (
                nodes,
                max(nodes, gpus),
                0.95,
                rss_mb / max(1, max(nodes, gpus) // nodes),
                job["NodeList"],
            )
        s_state = "COMPLETED" if kind == "extern" and not running else step_state
        s_exit = "0:0" if kind == "extern" else step_exit
        row = dict(job)
        row.update(
            {
                "JobID": f"{job['JobID']}.{kind}", "JobIDRaw": f"{job['JobIDRaw']}.{kind}",
                "JobName": kind if kind != "0" else job["JobName"], "User": "", "Account": "",
                "Partition": "", "QOS": "", "State": s_state, "ExitCode": s_exit,
                "Submit": job["Start"], "Eligible": job["Start"], "Timelimit": "", "TimelimitRaw": "",
                "NNodes": str(n), "NTasks": str(tasks), "ReqMem": "", "ReqTRES": "",
                "NodeList": node_list, "TotalCPU": _cpu_time(total_cpu * cpu_share),
                "MaxRSS": _mem(max(rss * float(rng.uniform(0.9, 1.0)), 0.5)) if not running else "",
                "Priority": "", "Restarts": "", "Reason": "", "WorkDir": "",
                "Elapsed": _dur(elapsed), "ElapsedRaw": str(elapsed),
            }
        )  # fmt: skip
        if kind == "batch":  # sacct shows no billing= on the batch step
            row["AllocTRES"] = row["AllocTRES"].replace(f"billing={cpus + 8 * gpus},", "")
        rows.append("|".join(row[f] for f in FIELDS))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m slurmlab.records.synth", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--jobs", type=int, default=2000, help="how many jobs (submissions) to write"
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed: same seed, same file")
    parser.add_argument(
        "--jobs-per-day", type=float, default=SynthConfig.jobs_per_day, help="arrival rate"
    )
    parser.add_argument("-o", "--output", required=True, help="the export to write")
    args = parser.parse_args(argv)
    with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(
            synth_sacct(
                args.jobs, seed=args.seed, config=SynthConfig(jobs_per_day=args.jobs_per_day)
            )
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
