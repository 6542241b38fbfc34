"""Synthetic workloads with a fixed seed: an AI cluster's job mix, or a processor pool's.

``ai_workload`` draws the jobs a shared AI training cluster sees: many short
single-GPU evaluations, single-node fine-tunes, multi-node pre-training runs and
CPU data preparation, arriving as a Poisson stream sized to an offered load.
Users ask for more time than they need (run time = limit x a Beta draw), as on
real clusters. Every draw comes from ``numpy.random.default_rng(SeedSequence(seed))``
streams, never the global generator.
"""

from __future__ import annotations

import os
from datetime import timedelta
from numbers import Real

import numpy as np

from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import parse_whole
from slurmlab.spec.workload import Workload, WorkloadJob

__all__ = ["ai_workload", "pool_workload"]

#: (share of jobs, nodes range, GPUs per node, time limit range in hours, name)
_AI_MIX = (
    (0.45, (1, 1), 1, (0.25, 2.0), "eval"),
    (0.25, (1, 1), 8, (2.0, 12.0), "finetune"),
    (0.10, (2, 8), 8, (4.0, 48.0), "pretrain"),
    (0.05, (8, 16), 8, (12.0, 72.0), "pretrain-large"),
    (0.15, (1, 1), 0, (0.5, 6.0), "dataprep"),
)


def _streams(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def ai_workload(
    n_jobs: int, cluster: Cluster | str = "ai", *, seed: int = 0, load: float = 0.9
) -> Workload:
    """``n_jobs`` AI-cluster jobs for ``cluster`` (a preset with ``train`` and ``cpu`` partitions,
    or any cluster with GPU nodes), offered at ``load`` x the cluster's GPU capacity. Time
    limits never exceed their partition's MaxTime, and CPUs per task never exceed what its
    nodes have (4 per GPU, 16 for data preparation, when the nodes have them): every job
    can run."""
    n_jobs, seed, load = _checked("ai_workload", n_jobs, seed, load)
    if isinstance(cluster, str | os.PathLike):  # a preset's name or a slurm.conf path
        cluster = Cluster.coerce(cluster)
    if not isinstance(cluster, Cluster):
        raise SlurmlabError(
            f"ai_workload: cluster {cluster!r} is not a cluster; give a slurmlab.Cluster, a "
            "preset name (Cluster.preset names them) or a slurm.conf path"
        )
    gpu_parts = [p for p in cluster.partitions if any(cluster.node(n).gpus for n in p.nodes)]
    cpu_parts = [p for p in cluster.partitions if not any(cluster.node(n).gpus for n in p.nodes)]
    if not gpu_parts:
        raise SlurmlabError(f"ai_workload: cluster {cluster.name!r} has no GPU partition")
    gpart = max(gpu_parts, key=lambda p: len(p.nodes))
    cpart = cpu_parts[0] if cpu_parts else gpart
    gpn = max(cluster.node(n).gpus for n in gpart.nodes)
    max_nodes = len(gpart.nodes)
    # CPUs per task that every node of the partition has (a job may land on any of them)
    gpu_node_cpus = min(cluster.node(n).cpus for n in gpart.nodes if cluster.node(n).gpus)
    prep_cpus = max(1, min(16, min(cluster.node(n).cpus for n in cpart.nodes)))
    kinds, sizes, limits, fractions, gaps = _streams(seed, 5)
    shares = np.array([m[0] for m in _AI_MIX])
    kind = kinds.choice(len(_AI_MIX), size=n_jobs, p=shares / shares.sum())
    jobs = []
    gpu_seconds = 0.0
    specs = []
    for i in range(n_jobs):
        share, (lo, hi), g, (tlo, thi), name = _AI_MIX[kind[i]]
        nodes = int(min(sizes.integers(lo, hi + 1), max_nodes))
        gpus = min(g, gpn)
        hours = float(np.exp(limits.uniform(np.log(tlo), np.log(thi))))
        limit = timedelta(minutes=max(5, int(hours * 60)))
        part = gpart if gpus else cpart
        if part.max_time is not None and limit > part.max_time:  # what the partition allows
            limit = part.max_time
        runtime = limit.total_seconds() * float(fractions.beta(2.0, 2.5))
        if gpus:
            spec = JobSpec(
                name=name, partition=gpart.name, nodes=nodes, gpus_per_node=gpus,
                ntasks_per_node=gpus, cpus_per_task=max(1, min(4, gpu_node_cpus // gpus)),
                time_limit=limit,
            )  # fmt: skip
            gpu_seconds += nodes * gpus * runtime
        else:
            spec = JobSpec(
                name=name,
                partition=cpart.name,
                ntasks=1,
                cpus_per_task=prep_cpus,
                time_limit=limit,
            )
        specs.append((spec, runtime))
    capacity = sum(cluster.node(n).gpus for n in gpart.nodes)
    span = gpu_seconds / (capacity * load)
    arrivals = np.sort(gaps.uniform(0, span, size=n_jobs))
    users = ("alice", "bob", "carol", "dave", "erin", "frank")
    accounts = {
        "alice": "llm",
        "bob": "llm",
        "carol": "vision",
        "dave": "vision",
        "erin": "speech",
        "frank": "speech",
    }
    for i, ((spec, runtime), t) in enumerate(zip(specs, arrivals)):
        user = users[i % len(users)]
        jobs.append(
            WorkloadJob(
                spec,
                submit=float(round(t)),
                runtime=float(round(runtime)),
                id=None,
                user=user,
                account=accounts[user],
            )
        )
    return Workload(tuple(jobs), name=f"ai-{n_jobs}-seed{seed}")


def pool_workload(n_jobs: int, procs: int, *, seed: int = 0, load: float = 0.9) -> Workload:
    """A processors-only workload for a pool of ``procs`` (like an SWF trace): log-uniform
    widths in 1..procs (``floor(exp(U(0, log(procs + 1))))``: 1 is the commonest) and run
    times (10 s to 10 h), limits overestimated 1-5x (whole minutes), Poisson arrivals at
    ``load``."""
    n_jobs, seed, load = _checked("pool_workload", n_jobs, seed, load)
    procs = parse_whole(procs, what="pool_workload: procs", minimum=1)
    widths_r, runs_r, over_r, gaps_r = _streams(seed, 4)
    width = np.clip(np.exp(widths_r.uniform(0, np.log(procs + 1), n_jobs)).astype(int), 1, procs)
    run = np.exp(runs_r.uniform(np.log(10), np.log(36000), n_jobs)).round()
    limit = np.ceil(run * over_r.uniform(1.0, 5.0, n_jobs) / 60.0) * 60.0
    span = float((width * run).sum()) / (procs * load)
    submit = np.sort(gaps_r.uniform(0, span, n_jobs)).round()
    jobs = tuple(
        WorkloadJob(
            JobSpec(ntasks=int(w), time_limit=timedelta(seconds=float(lim))),
            submit=float(s),
            runtime=float(r),
            id=str(i + 1),
        )  # fmt: skip
        for i, (w, r, lim, s) in enumerate(zip(width, run, limit, submit))
    )
    return Workload(jobs, name=f"pool-{n_jobs}-seed{seed}", kind="trace", max_procs=procs)


def _checked(what: str, n_jobs, seed, load) -> tuple[int, int, float]:
    """The generators' common parameters, checked: whole n_jobs >= 1 and seed >= 0, and a
    load in (0, 5] (the offered load, a share of the cluster's capacity)."""
    n_jobs = parse_whole(n_jobs, what=f"{what}: n_jobs", minimum=1)
    seed = parse_whole(seed, what=f"{what}: seed")
    if isinstance(load, bool) or not isinstance(load, Real) or not 0 < load <= 5:  # numpy's too
        raise SlurmlabError(
            f"{what}: load={load!r} must be a number in (0, 5] (the offered load: 0.9 keeps "
            "the cluster 90 % busy on average)"
        )
    return n_jobs, seed, float(load)
