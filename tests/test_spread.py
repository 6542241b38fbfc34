"""A job of ``-n`` tasks without ``-N`` spreads over several nodes when no one node holds
them all, as Slurm does (select/cons_tres ``_eval_nodes`` picks the nodes, and
``dist_tasks_compute_c_b`` deals the tasks out one per node in turn). Found by the random
real-Slurm mix ``datasets/realslurm/mix-7``: ``-n 32`` started on cpu[1-2] with 20 and 24
CPUs free there, which the simulator left waiting for a whole node until stop 41."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from slurmlab import Cluster, Lab, simulate
from slurmlab.errors import PolicyError
from slurmlab.policies import Decision, Request, Start, choose_nodes, spread_nodes
from slurmlab.spec.cluster import Node, Partition
from slurmlab.spec.job import JobSpec, spread_of
from slurmlab.spec.workload import Workload, WorkloadJob

POLICIES = ("fifo", "easy", "conservative", "slurm")
TASK = np.array([1, 1000, 0])  # one CPU, DefMemPerCPU=1000


def three_nodes(weights=None) -> Cluster:
    nodes = tuple(
        Node(f"cpu{i}", cpus=32, memory_mb=128000, weight=(weights or {}).get(i, 1))
        for i in (1, 2, 3)
    )
    return Cluster(
        "three",
        nodes,
        (Partition("cpu", ("cpu1", "cpu2", "cpu3"), default=True),),
        settings={"SelectTypeParameters": "CR_Core_Memory", "DefMemPerCPU": "1000"},
    )


NONE = np.zeros(3, dtype=int)


def tasks(ntasks: int, task=TASK, per_node=NONE) -> Request:
    """The request of ``ntasks`` tasks of ``task`` that may spread, ``per_node`` on each
    node besides (its demand and count: one task on one node)."""
    return Request(task, 1, spread=(ntasks, task, per_node))


def test_each_node_takes_what_it_holds_of_the_tasks_left():
    """As real Slurm placed mix-7's j10 (scontrol show job -d: Nodes=cpu1 CPU_IDs=0-15,28-31
    Mem=20000, Nodes=cpu2 CPU_IDs=0-11 Mem=12000)."""
    mask = np.ones(2, dtype=bool)
    free = np.array([[20, 30000, 0], [24, 120000, 0]])
    nodes = spread_nodes(free, tasks(32), mask)
    assert nodes == (0, 1) and nodes.rows.tolist() == [[20, 20000, 0], [12, 12000, 0]]
    free = np.array([[30, 300000, 0], [2, 120000, 0], [10, 100000, 0]])
    nodes = spread_nodes(free, tasks(32), np.ones(3, dtype=bool))
    assert nodes == (0, 1) and nodes.rows[:, 0].tolist() == [30, 2]  # (in node order)
    assert spread_nodes(free, tasks(43), np.ones(3, dtype=bool)) is None  # (42 held)
    # memory per task bounds what a node holds: 5 tasks of 1000 MB on the first
    free = np.array([[30, 5000, 0], [30, 100000, 0]])
    assert spread_nodes(free, tasks(32), mask).rows[:, 0].tolist() == [5, 27]
    # what each node holds besides (--mem, --gres=gpu:N): a node without it holds no task
    per_node = np.array([0, 2000, 1])
    free = np.array([[30, 100000, 0], [8, 100000, 2], [30, 100000, 1]])
    one_cpu = np.array([1, 0, 0])
    nodes = spread_nodes(free, tasks(20, one_cpu, per_node), np.ones(3, dtype=bool))
    assert nodes == (2,) and nodes.rows.tolist() == [[20, 2000, 1]]  # (it holds them all)
    nodes = spread_nodes(free, tasks(35, one_cpu, per_node), np.ones(3, dtype=bool))
    assert nodes == (1, 2) and nodes.rows.tolist() == [[8, 2000, 1], [27, 2000, 1]]


def test_one_node_that_holds_the_rest_and_the_lowest_weight_first():
    mask = np.ones(3, dtype=bool)
    free = np.array([[10, 10**6, 0], [30, 10**6, 0], [12, 10**6, 0]])
    # one run: cpu2 holds all 25 (the tightest that does)
    assert spread_nodes(free, tasks(25), mask).rows[:, 0].tolist() == [25]
    weights = np.array([2, 1, 1])  # cpu2 and cpu3 first (lower Weight), a run of their own
    nodes = spread_nodes(free, tasks(40), mask, weights)
    assert nodes == (1, 2) and nodes.rows[:, 0].tolist() == [30, 10]
    # the lowest Weight first even when it holds too few: 10 there, the rest on the next
    free, weights = np.array([[10, 10**6, 0], [32, 10**6, 0]]), np.array([1, 2])
    nodes = spread_nodes(free, tasks(20), np.ones(2, dtype=bool), weights)
    assert nodes == (0, 1) and nodes.rows[:, 0].tolist() == [10, 10]


def test_which_requests_may_spread():
    cluster = three_nodes()

    def spreads(args: str) -> bool:
        spec = JobSpec.from_args(args)
        return spread_of(spec, spec.resources(cluster), cluster) is not None

    for free in ("-n 32", "-n 4 -c 2", "-n 2 --mem-per-cpu=500", "-n 32 --mem=1000", "-n 48"):
        assert spreads(free), free
    for fixed in ("-n 1", "-N 1 -n 32", "-n 32 --ntasks-per-node=32", "-n 32 --exclusive",
                  "-n 8 -w cpu1", "-N 1-2 -n 8"):  # fmt: skip
        assert not spreads(fixed), fixed


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_spreads_a_job_no_one_node_holds(policy):
    lab = Lab(three_nodes(), policy)
    lab.sbatch("-N 1 -n 20 -t 5 -w cpu1", runtime=100)
    lab.sbatch("-N 1 -n 12 -t 5 -w cpu2", runtime=100)
    lab.sbatch("-N 1 -n 30 -t 5 -w cpu3", runtime=100)
    spread = lab.sbatch("-n 32 -t 5", runtime=100)
    lab.advance(10)
    row = lab.sacct().set_index("JobID").loc[str(spread)]
    assert (row.State, row.NodeList, row.NNodes, row.NCPUS) == ("RUNNING", "cpu[1-2]", 2, 32)
    assert row.AllocTRES == "billing=32,cpu=32,mem=32000M,node=2"
    env = lab.srun_env(spread)
    assert env["SLURM_TASKS_PER_NODE"].iloc[0] == "12,20"  # (12 free on cpu1, 20 on cpu2)
    assert len(env) == 32 and env["SLURM_JOB_NUM_NODES"].iloc[0] == 2
    lab.advance(200)
    assert lab.sacct().set_index("JobID").loc[str(spread), "State"] == "COMPLETED"


@pytest.mark.parametrize("policy", POLICIES)
def test_one_node_that_holds_it_comes_first_and_a_fixed_count_never_spreads(policy):
    lab = Lab(three_nodes(), policy)
    lab.sbatch("-N 1 -n 20 -t 5 -w cpu1", runtime=100)
    lab.sbatch("-N 1 -n 20 -t 5 -w cpu2", runtime=100)
    one = lab.sbatch("-n 14 -t 5", runtime=100)  # (only cpu3, idle, holds it whole)
    lab.sbatch("-N 1 -n 18 -t 5 -w cpu3", runtime=100)  # (the rest of cpu3 taken after)
    fixed = lab.sbatch("-N 1 -n 24 -t 5", runtime=100)  # 12 + 12 free, but -N 1
    lab.advance(10)
    table = lab.sacct().set_index("JobID")
    assert table.loc[str(one), "NodeList"] == "cpu3"
    assert table.loc[str(fixed), "State"] == "PENDING"


@pytest.mark.parametrize("policy", ("easy", "conservative", "slurm"))
def test_a_backfilled_spread_delays_no_reservation(policy):
    """The blocked whole-cluster job's reservation stands; a spread job starts ahead of it
    only when its window ends before it (the profile's least free on each node)."""
    jobs = [
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 10 -w cpu1"), 0, 300, id="a"),
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 10 -w cpu2"), 0, 300, id="b"),
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 2 -w cpu3"), 0, 100, id="c"),
        WorkloadJob(JobSpec.from_args("-N 3 --exclusive -t 5"), 1, 100, id="wide"),
        WorkloadJob(JobSpec.from_args("-n 30 -t 15"), 2, 100, id="long"),  # over 600 s
        WorkloadJob(JobSpec.from_args("-n 30 -t 5"), 3, 50, id="short"),  # ends before
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = simulate(three_nodes(), Workload(tuple(jobs)), policy, progress=False)
    t = result.jobs.set_index("JobID")
    start = (t["Start"] - result.origin).dt.total_seconds()
    assert start["short"] < 100 and t.loc["short", "NodeList"] == "cpu[1-3]"
    assert t.loc["short", "StartedBy"] == "backfill"
    assert start["wide"] == 300  # (when a and b end: it is not delayed)
    assert start["long"] >= 400  # (after wide: its window would reach into wide's)


def test_a_custom_policy_may_start_a_spread_job_and_nothing_else_on_several_nodes():
    class Spreading:
        def __init__(self, wrong=False):
            self.wrong = wrong

        def schedule(self, view):
            d, free = Decision(), view.free.copy()
            for job in view.queue:
                nodes = choose_nodes(free, view.capacity, job.request, job.mask)
                if nodes is None and job.spread is not None:
                    nodes = spread_nodes(free, job.request, job.mask & view.up)
                    if self.wrong:
                        nodes.rows = nodes.rows * 2
                if nodes is not None:
                    free[list(nodes)] -= job.usage(nodes, view.capacity)
                    d.starts.append(Start(job.id, nodes))
            return d

    jobs = [
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 10 -w cpu1"), 0, 300, id="a"),
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 10 -w cpu2"), 0, 300, id="b"),
        WorkloadJob(JobSpec.from_args("-N 1 -n 20 -t 10 -w cpu3"), 0, 300, id="c"),
        WorkloadJob(JobSpec.from_args("-n 30 -t 5"), 1, 100, id="spread"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = simulate(three_nodes(), Workload(tuple(jobs)), Spreading(), progress=False)
        assert done.jobs.set_index("JobID").loc["spread", "NodeList"] == "cpu[1-3]"
        with pytest.raises(PolicyError, match="must\\s+hold its 30 tasks"):
            simulate(three_nodes(), Workload(tuple(jobs)), Spreading(wrong=True), progress=False)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_planned_for_later_spreads_once_room_frees_on_several_nodes(policy):
    """Planned on one node at the running jobs' limits (600 s), it starts at 50 s over
    cpu[1-3] when d ends (conservative moves its standing reservation to now)."""
    jobs = [
        WorkloadJob(JobSpec.from_args(f"-N 1 -n 20 -t 10 -w cpu{i}"), 0, 300, id=f"r{i}")
        for i in (1, 2, 3)
    ] + [
        WorkloadJob(JobSpec.from_args("-N 1 -n 12 -t 10 -w cpu3"), 0, 50, id="d"),
        WorkloadJob(JobSpec.from_args("-n 30 -t 5"), 1, 100, id="spread"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = simulate(three_nodes(), Workload(tuple(jobs)), policy, progress=False)
    t = result.jobs.set_index("JobID")
    start = (t.loc["spread", "Start"] - result.origin).total_seconds()
    assert t.loc["spread", "NodeList"] == "cpu[1-3]"
    assert start == 50 or (policy == "slurm" and 50 <= start <= 80)  # (its next cycle)


def test_a_one_node_pool_never_spreads():
    from slurmlab.records.swf import swf_cluster

    pool = swf_cluster(64)
    spec = JobSpec(ntasks=8)
    assert spread_of(spec, spec.resources(pool), pool) is None


@pytest.mark.parametrize("policy", ("easy", "conservative", "slurm"))
def test_a_job_that_may_spread_is_planned_as_it_would_start(policy):
    """-n 34 (more than a 32-CPU node) resolved to 2 nodes of 17, which two nodes hold only
    at 240 s; spread, it holds at 120 s on cpu1's 32 and cpu2's 2: squeue --start shows that
    plan, and it starts then."""
    jobs = [
        WorkloadJob(JobSpec.from_args(f"-N 1 -n 28 -t {m} -w cpu{i}"), 0, 60 * m, id=f"r{i}")
        for i, m in ((1, 2), (2, 4), (3, 10))
    ] + [WorkloadJob(JobSpec.from_args("-n 34 -t 5"), 1, 60, id="wide")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = simulate(three_nodes(), Workload(tuple(jobs)), policy, progress=False)
        queue = result.squeue(at=90).set_index("JOBID")
    start = (queue.loc["wide", "START_TIME"] - result.origin).total_seconds()
    assert start == 120 and queue.loc["wide", "SCHEDNODES"] == "cpu[1-2]"
    row = result.jobs.set_index("JobID").loc["wide"]
    assert (row.Start - result.origin).total_seconds() == 120 and row.NodeList == "cpu[1-2]"


def test_srun_env_of_a_job_spread_unevenly_over_its_resolved_node_count():
    """-n 48 resolves to 2 nodes of 24 (a node holds 32); spread, it takes 30 + 18."""
    lab = Lab(three_nodes(), "fifo")
    lab.sbatch("-N 1 -n 2 -t 5 -w cpu1", runtime=100)
    lab.sbatch("-N 1 -n 14 -t 5 -w cpu2", runtime=100)
    lab.sbatch("-N 1 -n 32 -t 5 -w cpu3", runtime=100)
    wide = lab.sbatch("-n 48 -t 5", runtime=100)
    lab.advance(5)
    assert lab.sacct().set_index("JobID").loc[str(wide), "NodeList"] == "cpu[1-2]"
    assert lab.srun_env(wide)["SLURM_TASKS_PER_NODE"].iloc[0] == "30,18"
