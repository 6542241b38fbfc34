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
from slurmlab.policies import Decision, Start, choose_nodes, spread_nodes
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


def test_tasks_are_dealt_out_one_per_node_in_turn():
    mask = np.ones(2, dtype=bool)
    free = np.array([[20, 30000, 0], [24, 120000, 0]])
    nodes = spread_nodes(free, 32, TASK, mask)
    assert nodes == (0, 1) and nodes.rows.tolist() == [[16, 16000, 0], [16, 16000, 0]]
    free = np.array([[30, 300000, 0], [2, 120000, 0], [10, 100000, 0]])
    nodes = spread_nodes(free, 32, TASK, np.ones(3, dtype=bool))
    # (in node order until the tasks are held: 30 + 2; then dealt out up to each node's)
    assert nodes == (0, 1) and nodes.rows[:, 0].tolist() == [30, 2]
    assert spread_nodes(free, 43, TASK, np.ones(3, dtype=bool)) is None  # (42 held at most)
    # memory per task bounds what a node holds: 5 tasks of 1000 MB on the first
    free = np.array([[30, 5000, 0], [30, 100000, 0]])
    assert spread_nodes(free, 32, TASK, np.ones(2, dtype=bool)).rows[:, 0].tolist() == [5, 27]


def test_a_run_of_lower_weight_goes_first_and_one_node_that_holds_the_rest_is_taken():
    free = np.array([[10, 10**6, 0], [30, 10**6, 0], [12, 10**6, 0]])
    weights = np.array([2, 1, 1])  # cpu2 and cpu3 first (lower Weight), a run of their own
    nodes = spread_nodes(free, 40, TASK, np.ones(3, dtype=bool), weights)
    assert nodes == (1, 2) and nodes.rows[:, 0].tolist() == [28, 12]
    # the run cpu2-cpu3 holds 42: no single node of it holds 40, so both, in order


def test_which_requests_may_spread():
    cluster = three_nodes()

    def spreads(args: str) -> bool:
        spec = JobSpec.from_args(args)
        return spread_of(spec, spec.resources(cluster), cluster) is not None

    assert spreads("-n 32") and spreads("-n 4 -c 2") and spreads("-n 2 --mem-per-cpu=500")
    for fixed in ("-n 1", "-N 1 -n 32", "-n 32 --ntasks-per-node=32", "-n 32 --exclusive",
                  "-n 32 --mem=1000", "-n 8 -w cpu1", "-N 1-2 -n 8"):  # fmt: skip
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
                nodes = choose_nodes(free, view.capacity, job.demand, job.count, job.mask)
                if nodes is None and job.spread is not None:
                    nodes = spread_nodes(free, *job.spread, job.mask & view.up)
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
