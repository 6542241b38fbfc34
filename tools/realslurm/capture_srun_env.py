"""Record the environment real ``srun`` gives each task, for slurmlab.srun_env to match.

``bash tools/realslurm/run_all.sh srun-env`` (root) runs it on a fresh one-machine cluster
(``make realslurm`` does too, after the scenarios); by hand, with the cluster up::

    SLURM_CONF=/tmp/slurmlab-realslurm/etc/slurm.conf \
        .venv/bin/python tools/realslurm/capture_srun_env.py --out datasets/realslurm/srun-env

For each case below it submits a batch job as alice whose script runs ``srun`` once; every
task writes its environment to a file. When the job has ended, the variables slurmlab
models (and a few it does not) are collected into ``env.csv`` (one row per case and task: case, variable, value)
and the cases, job ids, node lists and commands into ``meta.json``. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

#: (case, sbatch options, srun options): the layouts a DDP job uses, and uneven ones.
CASES = [
    ("ddp_2x4", "-N 2 --ntasks-per-node=4 --gres=gpu:4 -p gpu -A llm", ""),
    ("gpus_per_task", "-N 2 --ntasks-per-node=2 --gpus-per-task=1 -p gpu -A llm", ""),
    ("map_gpu", "-n 3 --gres=gpu:2 --gpu-bind=map_gpu:1,0 -p gpu -A llm", ""),
    ("single", "-N 1 --ntasks-per-node=4 --gpus-per-node=2 --gpu-bind=single:2 -p gpu -A llm", ""),
    ("uneven_cpu", "-N 2 -n 5 -c 2 -p cpu -A llm --qos=high", ""),
    ("gpus_per_task_2", "-n 2 --gpus-per-task=2 -p gpu -A llm", ""),
    ("typed_gpus", "-n 2 --gpus=a100:2 --gpu-bind=single:1 -p gpu -A llm", ""),
    ("mem_per_node", "-N 1 -n 2 --mem=4000 --gpus-per-node=a100:1 -p gpu -A llm", ""),
    # requeued once while running (scontrol requeue): its second run's tasks
    ("requeued", "-N 2 --ntasks-per-node=1 --gres=gpu:1 -p gpu -A llm", ""),
]

#: Cases requeued by the administrator a few seconds into their first run.
REQUEUED = {"requeued"}

#: The variables compared with slurmlab.srun_env (the rest of each dump is kept out).
VARIABLES = [
    "SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_NNODES", "SLURM_NTASKS",
    "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURMD_NODENAME", "SLURM_TASKS_PER_NODE",
    "SLURM_CPUS_PER_TASK", "SLURM_GPUS_ON_NODE", "CUDA_VISIBLE_DEVICES", "SLURM_JOB_PARTITION",
    "SLURM_JOB_ACCOUNT", "SLURM_JOB_QOS", "SLURM_RESTART_COUNT", "SLURM_STEP_NODELIST",
    "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE", "SLURM_GPUS_PER_TASK",
    "SLURM_NODELIST", "SLURM_JOB_NUM_NODES", "SLURM_STEP_NUM_NODES", "SLURM_NPROCS",
    "SLURM_NTASKS_PER_NODE", "SLURM_GPUS_PER_NODE", "SLURM_GPUS", "SLURM_STEPID",
    "SLURM_JOB_CPUS_PER_NODE", "SLURM_CPUS_ON_NODE", "SLURM_DISTRIBUTION", "SLURM_GPU_BIND",
    "SLURM_MEM_PER_CPU", "SLURM_MEM_PER_NODE", "SLURM_MEM_PER_GPU", "SLURM_CPUS_PER_GPU",
]  # fmt: skip

SCRIPT = """#!/bin/bash
srun {srun} bash -c 'env > {dump}/$SLURM_JOB_ID.$SLURM_PROCID.env'
sleep {sleep}
"""


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True)


def requeue_when_running(job_id: str, after_s: float = 5, timeout_s: float = 60) -> None:
    """``scontrol requeue`` the job ``after_s`` seconds after it starts running."""
    end = time.time() + timeout_s
    while run(["squeue", "-h", "-j", job_id, "-o", "%T"]).stdout.strip() != "RUNNING":
        if time.time() > end:
            raise RuntimeError(f"job {job_id} did not start within {timeout_s} s")
        time.sleep(0.5)
    time.sleep(after_s)
    res = run(["scontrol", "requeue", job_id])
    if res.returncode:
        raise RuntimeError(f"scontrol requeue {job_id}: {res.stderr.strip()}")


def wait_done(job_id: str, timeout_s: float = 120) -> str:
    """The job's final state (sacct's), once squeue no longer lists it and the accounting
    database has its end (it lags slurmctld by a moment)."""
    end = time.time() + timeout_s
    while time.time() < end:
        if not run(["squeue", "-h", "-j", job_id, "-o", "%i"]).stdout.strip():
            out = run(["sacct", "-n", "-X", "-P", "-j", job_id, "-o", "State"]).stdout.strip()
            if out and out.split()[0] not in ("PENDING", "RUNNING", "REQUEUED", "COMPLETING"):
                return out
        time.sleep(1)
    raise RuntimeError(f"job {job_id} not ended (in squeue and sacct) after {timeout_s} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--work",
        type=Path,
        default=Path(os.environ.get("REALSLURM_DIR", "/tmp/slurmlab-realslurm")),
    )
    args = ap.parse_args(argv)
    dump = args.work / "srun-env"
    dump.mkdir(parents=True, exist_ok=True)
    os.chmod(dump, 0o777)
    version = run(["sinfo", "--version"]).stdout.strip()
    meta = {"slurm_version": version, "cases": []}
    rows = []
    for name, sbatch, srun in CASES:
        cmd = ["runuser", "-u", "alice", "--", "sbatch", "--parsable", f"--job-name={name}"]
        cmd += [f"--chdir={args.work / 'jobs'}", f"--output={args.work / 'out'}/%x-%j.out"]
        cmd += ["-t", "2:00", *shlex.split(sbatch)]
        script = SCRIPT.format(srun=srun, dump=dump, sleep=20 if name in REQUEUED else 0)
        res = subprocess.run(cmd, input=script, capture_output=True, text=True)
        if res.returncode:
            print(f"{name}: sbatch failed: {res.stderr.strip()}", file=sys.stderr)
            return 1
        job_id = res.stdout.strip().split(";")[0]
        if name in REQUEUED:  # (its second run's dumps replace the first's)
            requeue_when_running(job_id)
        state = wait_done(job_id, timeout_s=400)
        dumps = sorted(dump.glob(f"{job_id}.*.env"), key=lambda p: int(p.name.split(".")[1]))
        envs = [
            dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
            for path in dumps
        ]
        # (the node list from the tasks: sacct -X showed one node of a 2-node job once)
        nodelist = envs[0].get("SLURM_JOB_NODELIST", "") if envs else ""
        print(f"{name}: job {job_id} {state} on {nodelist}, {len(envs)} tasks")
        meta["cases"].append(
            {"case": name, "sbatch": sbatch, "srun": srun, "job_id": int(job_id),
             "state": state, "nodelist": nodelist, "tasks": len(envs), "cmd": shlex.join(cmd[4:])}
        )  # fmt: skip
        for env in envs:
            for var in VARIABLES:
                if var in env:
                    rows.append({"case": name, "procid": int(env["SLURM_PROCID"]),
                                 "variable": var, "value": env[var]})  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "env.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["case", "procid", "variable", "value"])
        w.writeheader()
        w.writerows(rows)
    (args.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {args.out}/env.csv ({len(rows)} values) and meta.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
