"""Whole-core allocation on nodes with ThreadsPerCore > 1 (stop 28).

Real Slurm 22.05 (datasets/realslurm/threads, every thread a CPU, CR_Core_Memory) allocates
every thread of a core together: ``-n 1`` gets 2 CPUs. The fidelity tests compare the whole
fixture (AllocTRES, ReqTRES, starts); these check the rules one by one on small clusters.
"""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster, JobSpec, Scenario, simulate, srun_env
from slurmlab.errors import RequestError, SbatchError, ScenarioError, SlurmlabError
from slurmlab.spec.cluster import Node, Partition
from slurmlab.spec.slurm_conf import parse_slurm_conf
from slurmlab.spec.workload import Workload, WorkloadJob

CONF = """ClusterName=ht
SelectType=select/cons_tres
SelectTypeParameters={params}
NodeName=c[1-2] Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=128000
PartitionName=cpu Nodes=c[1-2] Default=YES DefMemPerCPU=1000
"""


def _cluster(params: str = "CR_Core_Memory", extra: str = "") -> Cluster:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return parse_slurm_conf(CONF.format(params=params) + extra)


def _shape(args: str, cluster: Cluster | None = None) -> tuple[int, int]:
    """(CPUs, MB) per node of ``args`` on ``cluster`` (default: CR_Core_Memory)."""
    res = JobSpec.from_args(args).resources(cluster or _cluster())
    return res.cpus_per_node, res.mem_per_node_mb


@pytest.mark.parametrize(
    ("args", "cpus", "mem"),
    [
        # recorded from real Slurm 22.05 (datasets/realslurm/threads/sacct.txt)
        ("-n 1", 2, 2000),
        ("-n 3", 4, 4000),
        ("-c 3", 4, 4000),
        ("-n 2 -c 3", 6, 6000),  # 6 CPUs: 3 cores, not 2 per task
        ("-n 3 --ntasks-per-core=1", 6, 6000),
        ("-n 3 --hint=nomultithread", 6, 3000),  # memory counts the threads it may use
        ("-n 3 --threads-per-core=1", 6, 3000),
        ("-n 3 --mem-per-cpu=1000", 4, 4000),
        ("-n 1 -c 2", 2, 2000),
        ("-n 5 --mem=2000", 6, 2000),
        # by the same rules (dist_tasks.c: a task of more CPUs than its usable threads
        # takes whole cores of its own under --ntasks-per-core=1)
        ("-n 2 -c 3 --ntasks-per-core=1", 8, 8000),
        ("-n 3 --hint=compute_bound", 6, 3000),
        ("-n 3 --hint=multithread", 4, 4000),
    ],
)
def test_whole_cores_are_allocated(args, cpus, mem):
    assert _shape(args) == (cpus, mem)


def test_tasks_per_node_on_two_nodes_round_on_each():
    res = JobSpec.from_args("-N 2 --ntasks-per-node=3").resources(_cluster())
    assert (res.nodes, res.cpus_per_node) == (2, 4)  # real Slurm: NCPUS 8


def test_cr_cpu_counts_each_thread_as_a_cpu():
    """Under CR_CPU Slurm allocates single CPUs (threads), and so does slurmlab."""
    assert _shape("-n 3", _cluster("CR_CPU_Memory")) == (3, 3000)


def test_cpus_equal_to_cores_count_cores_not_threads():
    """CPUs=16 on 16 cores of 2 threads: each core is one CPU, allocated alone."""
    text = CONF.format(params="CR_Core_Memory")
    text = text.replace("ThreadsPerCore=2", "ThreadsPerCore=2 CPUs=16")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cluster = parse_slurm_conf(text)
    assert {n.threads_per_core for n in cluster.nodes} == {1}
    assert _shape("-n 3", cluster) == (3, 3000)


def test_one_task_per_core_setting_and_the_multithread_hint():
    """SelectTypeParameters=CR_Core_Memory,CR_ONE_TASK_PER_CORE gives every job
    --ntasks-per-core=1 unless it says otherwise; --hint=multithread lifts it (verify_hint)."""
    cluster = _cluster("CR_Core_Memory,CR_ONE_TASK_PER_CORE")
    assert _shape("-n 3", cluster) == (6, 6000)
    assert _shape("-n 3 --hint=multithread", cluster) == (4, 4000)
    assert _shape("-n 3 --ntasks-per-core=2", cluster) == (4, 4000)


def test_hint_beside_ntasks_per_core_is_ignored_with_sbatchs_reason():
    with pytest.warns(UserWarning) as caught:
        spec = JobSpec.from_args("-n 2 --hint=nomultithread --ntasks-per-core=2")
    assert [str(w.message) for w in caught] == [
        "--hint=nomultithread is ignored: sbatch ignores --hint beside --ntasks-per-core or "
        "--threads-per-core (Following options are mutually exclusive with --hint); give one "
        "or the other"
    ]
    assert spec.core_limits() == (2, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _shape("-n 2 --hint=nomultithread --ntasks-per-core=2") == (2, 2000)


def test_cpu_bind_is_no_sbatch_option_so_hint_stays_alone():
    """sbatch 22.05 has no --cpu-bind (slurm_opt.c: set_func_srun only), so it never sets
    aside --hint (validate_hint_option)."""
    with pytest.raises(SbatchError, match="unrecognized option '--cpu-bind=verbose'"):
        JobSpec.from_args("--hint=nomultithread --cpu-bind=verbose")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert JobSpec.from_args("--hint=nomultithread").core_limits() == (None, 1)


def test_script_hint_and_command_line_ntasks_per_core_warn_once():
    script = "#!/bin/bash\n#SBATCH --hint=nomultithread\nsrun hostname\n"
    with pytest.warns(UserWarning) as caught:
        spec = JobSpec.from_sbatch(script, args=["--ntasks-per-core=2"])
    assert len([w for w in caught if "is ignored" in str(w.message)]) == 1
    assert spec.core_limits() == (2, None)


def test_threads_per_core_needs_nodes_with_that_many_threads():
    with pytest.raises(RequestError) as info:
        JobSpec.from_args("--threads-per-core=4").resources(_cluster())
    assert str(info.value) == (
        "--threads-per-core=4: no node of partition 'cpu' has 4 threads per core (at most 2): "
        "Requested node configuration is not available; ask --threads-per-core=2 or leave it "
        "out"
    )


def test_a_one_thread_limit_fits_fewer_tasks_on_a_node():
    """-n 17 --threads-per-core=1: 16 cores per node, so two nodes."""
    res = JobSpec.from_args("-n 17 --threads-per-core=1").resources(_cluster())
    assert res.nodes == 2
    assert JobSpec.from_args("-n 17").resources(_cluster()).nodes == 1  # 32 threads


def test_options_round_trip():
    spec = JobSpec.from_args("-n 3 --ntasks-per-core=1 --threads-per-core=1")
    assert "--ntasks-per-core=1" in spec.to_args()
    assert JobSpec.from_args(spec.to_args()) == spec


@pytest.mark.parametrize("field", ["ntasks_per_core", "threads_per_core"])
def test_counts_must_be_whole_numbers(field):
    with pytest.raises(SlurmlabError, match="must be a whole number of at least 1"):
        JobSpec(**{field: 0})


def test_node_threads_must_divide_its_cpus():
    with pytest.raises(SlurmlabError) as info:
        Node("n1", cpus=6, threads_per_core=4)
    assert str(info.value) == (
        "Node 'n1': CPUs=6 is not a whole number of cores of ThreadsPerCore=4 threads; give "
        "CPUs as cores x threads per core"
    )
    with pytest.raises(SlurmlabError, match="ThreadsPerCore=0 must be a whole number"):
        Node("n1", cpus=6, threads_per_core=0)


def test_a_partition_mixing_thread_counts_is_named():
    text = (
        "SelectTypeParameters=CR_Core_Memory\n"
        "NodeName=a1 Sockets=1 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=1000\n"
        "NodeName=b1 CPUs=8 RealMemory=1000\n"
        "PartitionName=all Nodes=a1,b1 Default=YES\nSelectType=select/cons_tres\n"
    )
    with pytest.warns(UserWarning) as caught:
        cluster = parse_slurm_conf(text)
    assert [str(w.message) for w in caught] == [
        "slurm.conf line 4: PartitionName=all: its nodes have ThreadsPerCore 1 and 2 "
        "(threads counted as CPUs): Slurm allocates whole cores of each node, slurmlab sizes "
        "a job's cores in this partition for 2 threads per core on every node (a job of one "
        "task per node on several nodes gets 2 CPUs on each, even on a node of 1; a job on "
        "one node gets that node's own cores); put nodes of different ThreadsPerCore in "
        "separate partitions"
    ]
    assert JobSpec.from_args("-n 1").resources(cluster).cpus_per_node == 2


def test_eight_single_task_jobs_fill_an_eight_core_node():
    """Real Slurm (threads, block 3): nine one-task jobs on a node of 8 cores x 2 threads,
    a second apart: eight run at once, the ninth waits for the first to end."""
    cluster = Cluster(
        "ht",
        (Node("n1", cpus=16, memory_mb=64000, threads_per_core=2),),
        (Partition("p", ("n1",), default=True),),
        {"SelectTypeParameters": "CR_Core"},
    )
    jobs = [
        WorkloadJob(JobSpec.from_args("-n 1 -t 2"), submit=i, runtime=30, id=f"j{i}")
        for i in range(9)
    ]
    result = simulate(cluster, Workload(tuple(jobs)), policy="fifo", progress=False)
    starts = result.seconds("Start").tolist()
    assert starts == [0, 1, 2, 3, 4, 5, 6, 7, 30]
    assert set(result.jobs["NCPUS"]) == {2}


def test_inline_scenario_nodes_take_threads_per_core(tmp_path):
    path = tmp_path / "ht.yaml"
    path.write_text(
        "cluster:\n"
        "  nodes: [{name: n1, cpus: 16, memory: 64000, threads_per_core: 2}]\n"
        "jobs:\n"
        "  - {submit: 0, runtime: 10, args: '-n 3 -t 1'}\n"
    )
    result = Scenario.load(path).run()
    assert result.jobs["NCPUS"].tolist() == [4]
    path.write_text(path.read_text().replace("threads_per_core: 2", "threads_per_core: 3"))
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert "cluster.nodes[0]" in str(info.value)
    assert "CPUs=16 is not a whole number of cores of ThreadsPerCore=3" in str(info.value)


def test_srun_sees_the_whole_cores():
    """SLURM_CPUS_ON_NODE is the CPUs allocated on the node: both threads of the core."""
    env = srun_env(JobSpec.from_args("-n 1"), nodelist="c1", cluster=_cluster())
    assert env["SLURM_CPUS_ON_NODE"].tolist() == [2]
