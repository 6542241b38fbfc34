"""Invariants of every policy on random small clusters and random workloads (hypothesis).

Clusters have 1-4 nodes with varied CPUs, memory and GPUs; workloads 10-40 jobs with
``-N``/``-n``/``--gres``/``--mem``/``-t``/``--exclusive`` (and, where the invariant allows,
``--begin``, ``--dependency`` and arrays). The checks read only the public results: the
job table, the event log, and the plans the scheduler announced (``squeue --start``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab.errors import SlurmlabError
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec, spread_of
from slurmlab.spec.units import expand_hostlist
from slurmlab.spec.workload import Workload, WorkloadJob

# random requests with -N above -n are run on -n nodes, with sbatch's warning (tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore:can't run .* processes on")

POLICIES = ("fifo", "easy", "conservative", "slurm")
TERMINAL = {"COMPLETED", "TIMEOUT", "FAILED", "CANCELLED"}
#: Reasons that never clear by waiting.
PERMANENT = {
    "DependencyNeverSatisfied",
    "PartitionTimeLimit",
    "PartitionNodeLimit",
    "PartitionConfig",
}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def clusters(draw) -> Cluster:
    """1-4 nodes, each 2-16 CPUs, 4000-32000 MB (consumable) and 0-4 GPUs, one partition."""
    lines = ["SelectType=select/cons_tres", "SelectTypeParameters=CR_Core_Memory"]
    lines += ["DefMemPerCPU=1000", "GresTypes=gpu", "SchedulerParameters=bf_interval=10"]
    n = draw(st.integers(1, 4))
    for i in range(1, n + 1):
        cpus = draw(st.sampled_from([2, 4, 8, 16]))
        mem = draw(st.sampled_from([4000, 8000, 32000]))
        gpus = draw(st.integers(0, 4))
        gres = f" Gres=gpu:{gpus}" if gpus else ""
        lines.append(f"NodeName=n{i} CPUs={cpus} RealMemory={mem}{gres}")
    lines.append(f"PartitionName=p Nodes=n[1-{n}] Default=YES MaxTime=INFINITE")
    return Cluster.from_slurm_conf("\n".join(lines))


@st.composite
def requests(draw, cluster: Cluster, extras: bool) -> tuple[str, float, float, int]:
    """sbatch options, submit time, run time and exit code of one job."""
    nodes = len(cluster.nodes)
    args = [f"-t {draw(st.integers(1, 10))}"]
    if draw(st.booleans()):
        low = draw(st.integers(1, nodes))
        if draw(st.integers(0, 3)) == 0:  # -N MIN-MAX: up to MAX nodes when free
            args.append(f"-N {low}-{draw(st.integers(low, nodes + 1))}")
        else:
            args.append(f"-N {low}")
    if draw(st.booleans()):
        args.append(f"-n {draw(st.integers(1, 16))}")
    if draw(st.booleans()):
        args.append(f"--gres=gpu:{draw(st.integers(1, 4))}")
    if draw(st.booleans()):
        args.append(f"--mem={draw(st.sampled_from([500, 2000, 8000]))}")
    if draw(st.integers(0, 5)) == 0:
        args.append("--exclusive")
    if extras and draw(st.integers(0, 7)) == 0:
        args.append(f"--array=0-{draw(st.integers(1, 4))}%{draw(st.integers(1, 2))}")
    if extras and draw(st.integers(0, 7)) == 0:
        args.append(f"--begin=now+{draw(st.integers(1, 600))}")
    if extras and draw(st.integers(0, 5)) == 0:
        args.append(f"-J {draw(st.sampled_from(['a', 'b']))}")
    submit = float(draw(st.integers(0, 600)))
    runtime = float(draw(st.sampled_from([0, 30, 60, 120, 300, 600, 900])))
    code = draw(st.sampled_from([0, 0, 0, 1]))
    return " ".join(args), submit, runtime, code


@st.composite
def scenarios(draw, extras: bool = True) -> tuple[Cluster, Workload]:
    """A random cluster and 10-40 jobs that fit on it (requests it could never hold are left out).

    With ``extras``, jobs may also have --array throttles, --begin and dependencies on
    earlier jobs (afterok / afterany / afternotok / singleton).
    """
    cluster = draw(clusters())
    drawn = sorted(
        draw(st.lists(requests(cluster, extras), min_size=10, max_size=40)), key=lambda r: r[1]
    )
    jobs = []
    for args, submit, runtime, code in drawn:
        if extras and jobs and draw(st.integers(0, 3)) == 0:
            kind = draw(st.sampled_from(["afterok", "afterany", "afternotok", "singleton"]))
            target = draw(st.sampled_from(jobs)).id
            args += (
                " --dependency=singleton"
                if kind == "singleton"
                else f" --dependency={kind}:{target}"
            )
        spec = JobSpec.from_args(args)
        try:
            spec.resources(cluster)
        except SlurmlabError:
            continue
        jobs.append(WorkloadJob(spec, submit, runtime, id=f"j{len(jobs) + 1}", exit_code=code))
    return cluster, Workload(tuple(jobs))


def per_node_usage(cluster: Cluster, spec: JobSpec, node: str) -> np.ndarray:
    """What one job holds on one of its nodes: its per-node shape, or the whole node."""
    res = spec.resources(cluster)
    n = cluster.node(node)
    if res.whole_node:
        return np.array([n.cpus, n.memory_mb, n.gpus])
    return np.array([res.cpus_per_node, res.mem_per_node_mb, res.gpus_per_node])


def allocations(cluster, workload, result) -> dict[str, dict[str, np.ndarray]]:
    """JobID -> node -> (CPUs, MB, GPUs) held, from NodeList and the job's resources."""
    specs = {j.id: j.spec for j in workload.jobs}
    out = {}
    for row in result.jobs.itertuples():
        if row.State == "PENDING":
            continue
        spec = specs[row.JobID.split("_")[0]]
        names = expand_hostlist(row.NodeList)
        res = spec.resources(cluster)
        spread = spread_of(spec, res, cluster)
        if spread is not None:
            # -n without -N, placed as Slurm spreads it (one node or several): its tasks
            # dealt out unevenly (the engine's record of its usage), all of them, one or
            # more on each node
            (sim_job,) = [result.sim.jobs[i] for i in result.sim.by_key[row.JobID]]
            usage = sim_job.runs[-1]["usage"] if sim_job.runs else sim_job.usage
            tasks = usage[:, 0] // spread[1][0]
            assert (tasks >= 1).all() and tasks.sum() == spread[0], row.JobID
            assert (usage == np.outer(tasks, spread[1]) + spread[2]).all(), row.JobID
            out[row.JobID] = dict(zip(names, usage))
        else:
            out[row.JobID] = {n: per_node_usage(cluster, spec, n) for n in names}
        total = sum(out[row.JobID].values())
        tres = dict(kv.split("=") for kv in row.AllocTRES.split(","))
        assert int(tres["cpu"]) == total[0], row.JobID
        assert int(tres["node"]) == len(out[row.JobID]), row.JobID
        assert int(tres.get("gres/gpu", 0)) == total[2], row.JobID
    return out


@pytest.mark.parametrize("policy", POLICIES)
@SETTINGS
@given(case=scenarios())
def test_no_node_ever_holds_more_than_it_has(policy, case):
    """Replaying the event log start by start, no node's CPUs, memory or GPUs are oversubscribed."""
    cluster, workload = case
    result = simulate(cluster, workload, policy)
    held = allocations(cluster, workload, result)
    capacity = {n.name: np.array([n.cpus, n.memory_mb, n.gpus]) for n in cluster.nodes}
    used = {n: np.zeros(3, dtype=int) for n in capacity}
    for event, jobid in result.events[["event", "JobID"]].itertuples(index=False):
        if event == "start":
            for node, usage in held[jobid].items():
                used[node] += usage
                assert (used[node] <= capacity[node]).all(), (jobid, node, used[node])
        elif event == "end":
            for node, usage in held[jobid].items():
                used[node] -= usage
    assert all(not u.any() for u in used.values())


@pytest.mark.parametrize("policy", POLICIES)
@SETTINGS
@given(case=scenarios())
def test_every_job_ends_exactly_once_or_waits_for_good_reason(policy, case):
    """Each job starts at most once and ends once in one terminal state (TIMEOUT exactly when
    its run time exceeds its limit), or stays PENDING for a reason that never clears."""
    cluster, workload = case
    result = simulate(cluster, workload, policy)
    jobs = result.jobs.set_index("JobID")
    counts = result.events.groupby(["JobID", "event"]).size()
    runtime = {j.id: j.runtime for j in workload.jobs}
    for jobid, row in jobs.iterrows():
        if row.State == "PENDING":
            assert row.Reason in PERMANENT or row.Reason == "Dependency", (jobid, row.Reason)
            assert counts.get((jobid, "start"), 0) == 0
            assert counts.get((jobid, "end"), 0) == 0
            continue
        assert row.State in TERMINAL, (jobid, row.State)
        assert counts[(jobid, "start")] == 1 and counts[(jobid, "end")] == 1, jobid
        limit = row.Timelimit.total_seconds()
        run = runtime[jobid.split("_")[0]]
        assert (row.State == "TIMEOUT") == (run > limit), jobid
        assert (row.End - row.Start).total_seconds() == min(run, limit), jobid


@pytest.mark.parametrize("policy", POLICIES)
@SETTINGS
@given(case=scenarios())
def test_no_job_starts_before_submit_begin_or_its_dependencies(policy, case):
    """Start >= Eligible >= Submit (+ --begin offset); a dependent starts only once its
    condition holds; a job pending on a dependency waits for one that really never holds.
    A job submitted more than MinJobAge (300 s) after every job it names ended finds them
    purged, and its dependency lifted (job_scheduler.c test_job_dependency)."""
    cluster, workload = case
    result = simulate(cluster, workload, policy)
    table = result.jobs
    by_id = {j.id: j for j in workload.jobs}
    rows = {jid: row for jid, row in zip(table["JobID"], table.itertuples())}
    # the job table lists jobs in submit order (an array's tasks share their JobID until
    # they start: JobIDRaw is no submit order)
    order = {jid: k for k, jid in enumerate(table["JobID"])}
    tasks: dict[str, list] = {}
    for jid, row in rows.items():
        tasks.setdefault(jid.split("_")[0], []).append(row)
    for jid, row in rows.items():
        wjob = by_id[jid.split("_")[0]]
        begin = wjob.spec.begin.total_seconds() if wjob.spec.begin else 0
        if row.State == "PENDING":
            if row.Reason == "DependencyNeverSatisfied":
                dep = wjob.spec.dependency[0]
                targets = tasks[dep.job_ids[0]]
                if dep.kind == "afterok":  # a target ended other than COMPLETED
                    assert any(t.State not in ("PENDING", "COMPLETED") for t in targets), jid
                else:
                    assert dep.kind == "afternotok", jid
                    assert any(t.State == "COMPLETED" for t in targets), jid
            continue
        assert row.Start >= row.Eligible >= row.Submit, jid
        assert (row.Eligible - row.Submit).total_seconds() >= begin, jid
        for dep in wjob.spec.dependency:
            if dep.kind == "singleton":
                earlier = [
                    r
                    for other, r in rows.items()
                    if order[other] < order[jid]  # submitted before it
                    # (not a task of its own array: they share its pending record's JobID,
                    # and _find_singleton_job blocks on a lower one only; test_qa44_arrays)
                    and other.split("_")[0] != jid.split("_")[0]
                    and r.JobName == row.JobName
                    and r.User == row.User
                    and r.State != "PENDING"
                ]
                assert all(r.End <= row.Start for r in earlier), jid
                continue
            submitted = result.origin + pd.Timedelta(seconds=wjob.submit)
            for target in tasks[dep.job_ids[0]]:
                assert target.State != "PENDING" and target.End <= row.Start, (jid, dep)
                if (submitted - target.End).total_seconds() > 300:  # (purged: lifted)
                    continue
                if dep.kind == "afterok":
                    assert target.State == "COMPLETED", (jid, dep)
                elif dep.kind == "afternotok":
                    assert target.State != "COMPLETED", (jid, dep)


@pytest.mark.parametrize("policy", ["easy", "conservative"])
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=scenarios(extras=False))
def test_backfilling_never_delays_a_reservation(policy, case):
    """A job never starts later than a start time the scheduler planned for it: under EASY
    the blocked head's reservation, under conservative every pending job's reservation.

    Jobs are eligible on submission here (no --begin, no dependencies), so a job ahead in
    the queue stays ahead; running jobs end by their limits, so plans only move earlier.
    """
    cluster, workload = case
    result = simulate(cluster, workload, policy)
    for job in result.sim.jobs.values():
        for when, planned in job.plans:
            assert job.start <= planned, (job.key, job.start, when, planned)
