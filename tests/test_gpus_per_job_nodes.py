"""``-N k --gpus=M`` (GPUs per job on a fixed node count) deals the M GPUs over the k nodes
unevenly, as Slurm does.

Real Slurm 22.05 in the ``gpus-per-job`` fixture (``datasets/realslurm``: gpu[1-4] of 4
A100s) gave ``-N 2 --gpus=5`` on idle gpu[2-3] 4 + 1 GPUs, ``--gpus=4`` 3 + 1 (``scontrol -d
show job``: ``Nodes=gpu2 ... GRES=gpu:a100:4``, ``Nodes=gpu3 ... GRES=gpu:a100:1``), and
sacct's AllocTRES ``gres/gpu=5``; ``gpu-shapes``' ``gtot`` the same. gres_select_filter.c
``_set_job_bits1``/``_get_job_cnt`` give each node, in node order, what it has up to the GPUs
left less one for each node after it; job_test.c ``_eval_nodes`` (``gres_per_job``) picks
the nodes, more free GPUs first, and stops at max_nodes k."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import slurmlab
from slurmlab.errors import RequestError
from slurmlab.policies import Request, choose_nodes
from slurmlab.spec.job import JobSpec, resolve

POLICIES = ("fifo", "easy", "conservative", "slurm")
CAP = np.array([[16, 64000, 4]] * 4)


def test_resolve_holds_the_gpus_per_job_not_a_share_per_node(realslurm_cluster):
    """``-N 2 --gpus=5``: ReqTRES ``gres/gpu=5`` (gpus-per-job probe1), no warning of GPUs
    rounded up; each node needs one GPU at least."""
    spec = JobSpec.from_args("-N 2 --gpus=5 -p gpu -t 1:00")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = resolve(spec, realslurm_cluster)
    assert (res.gpus_per_node, res.gpus_per_job) == (1, 5)
    assert res.requested()["gres/gpu"] == 5


def test_more_gpus_than_the_nodes_hold_is_refused(realslurm_cluster):
    """``_eval_nodes`` stops at max_nodes: two 4-GPU nodes never hold 9."""
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        resolve(JobSpec.from_args("-N 2 --gpus=9 -p gpu -t 1:00"), realslurm_cluster)


@pytest.mark.parametrize(
    "gpus,free_gpus,nodes,dealt",
    [
        (5, [3, 4, 4, 4], (1, 2), [4, 1]),  # probe1: gpu1 has 3, gpu[2-3] chosen
        (4, [3, 4, 4, 4], (1, 2), [3, 1]),  # probe2
        (7, [3, 4, 4, 4], (1, 2), [4, 3]),  # probe3
        (5, [4, 3, 4, 4], (2, 3), [4, 1]),  # probe5: gpu2 3 free, gpu[3-4] (a run of 2)
        (5, [2, 3, 0, 0], (0, 1), [2, 3]),  # node order, not the order picked
    ],
)
def test_choose_nodes_deals_the_gpus_in_node_order(gpus, free_gpus, nodes, dealt):
    """``_set_job_bits1``: each node in node order min(its free GPUs, GPUs left less one for
    each node after it)."""
    free = CAP.copy()
    free[:, 2] = free_gpus
    demand = np.array([1, 1000, 1])
    got = choose_nodes(free, CAP, Request(demand, 2, gpus_per_job=gpus), np.ones(4, bool))
    assert tuple(got) == nodes
    assert got.rows.tolist() == [[1, 1000, g] for g in dealt]


def test_choose_nodes_waits_when_the_nodes_hold_too_few():
    free = CAP.copy()
    free[:, 2] = [1, 1, 2, 0]
    demand = np.array([1, 1000, 1])
    assert choose_nodes(free, CAP, Request(demand, 2, gpus_per_job=5), np.ones(4, bool)) is None


@pytest.mark.parametrize("policy", POLICIES)
def test_gpus_per_job_probes_hold_what_slurm_allocated(realslurm_cluster, policy):
    """gpus-per-job probe1: ``-N 2 --gpus=5`` next to a 1-GPU job on gpu1 runs on gpu[2-3]
    with AllocTRES gres/gpu=5 (not 6), and leaves 3 GPUs free there: ``-N 1 --gres=gpu:3``
    starts at once on gpu3 (1 GPU taken), not gpu2 (4 taken)."""
    lab = slurmlab.Lab(realslurm_cluster, policy=policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab.sbatch("-n 1 --gres=gpu:1 -w gpu1 -t 1:00 -p gpu --wrap=x", runtime=25)
        probe = lab.sbatch("-N 2 --gpus=5 -t 1:00 -p gpu --wrap=x", runtime=20)
        lab.sbatch("-n 1 --gres=gpu:3 -w gpu1 -t 1:00 -p gpu --wrap=x", runtime=20)
        three = lab.sbatch("-n 1 --gres=gpu:3 -w gpu3 -t 1:00 -p gpu --wrap=x", runtime=20)
        lab.advance("1s")
        queue = lab.squeue().set_index("JOBID")
        assert queue.loc[str(probe), "NODELIST(REASON)"] == "gpu[2-3]"
        assert queue.loc[str(three), "ST"] == "R"
        lab.advance("2m")
        jobs = lab.sacct().set_index("JobIDRaw")
    assert jobs.loc[str(probe), "AllocTRES"] == "billing=2,cpu=2,gres/gpu=5,mem=2000M,node=2"


# --- DefCpuPerGPU -------------------------------------------------------------------------

GPU_CONF = (
    "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
    "GresTypes=gpu\n{glob}"
    "NodeName=g[1-2] CPUs=32 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=gpu Nodes=ALL Default=YES DefMemPerCPU=1000 {part}\n"
)


def _gpu_cluster(glob: str = "", part: str = "") -> slurmlab.Cluster:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return slurmlab.Cluster.from_slurm_conf(GPU_CONF.format(glob=glob, part=part))


@pytest.mark.parametrize(
    "args,cpus",
    [
        ("--gres=gpu:2", 12),  # 2 GPUs x 6
        ("-n 2 --gpus-per-node=1", 6),  # more than the tasks' 2
        ("-n 8 --gres=gpu:1", 8),  # the tasks' CPUs are more
        ("--gres=gpu:2 -c 3", 3),  # -c: no default (orig_cpus_per_task set)
        ("--gres=gpu:2 --cpus-per-gpu=2", 4),  # the option wins
        ("-n 2 --gpus-per-task=1", 12),  # cpus_per_task raised to 1 x 6
        ("-n 2", 2),  # no GPUs: no default
    ],
)
def test_def_cpu_per_gpu_gives_a_gpu_job_without_cpus_its_cpus(args, cpus):
    """slurm.conf(5) DefCpuPerGPU; cons_common/job_test.c ``_set_gpu_defaults`` (only while
    the job gave no -c) and gres_select_util.c ``gres_select_util_job_set_defs`` (the
    default where ``--cpus-per-gpu`` is unset; ``cpus_per_task`` >= GPUs per task x it)."""
    res = resolve(JobSpec.from_args(f"{args} -t 10"), _gpu_cluster(glob="DefCpuPerGPU=6\n"))
    assert res.cpus_per_node * res.nodes == cpus


def test_the_partitions_def_cpu_per_gpu_comes_before_the_global_one():
    """``_set_gpu_defaults``: the partition's job_defaults_list first."""
    cluster = _gpu_cluster(glob="DefCpuPerGPU=6\n", part="DefCpuPerGPU=3")
    assert resolve(JobSpec.from_args("--gres=gpu:2 -t 10"), cluster).cpus_per_node == 6


def test_def_cpu_per_gpu_is_no_longer_warned_as_not_modelled():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        slurmlab.Cluster.from_slurm_conf(GPU_CONF.format(glob="DefCpuPerGPU=6\n", part=""))
    assert not [w for w in caught if "DefCpuPerGPU" in str(w.message)]


def test_a_bad_def_cpu_per_gpu_is_named():
    cluster = _gpu_cluster(part="DefCpuPerGPU=lots")
    with pytest.raises(RequestError, match="partition 'gpu': DefCpuPerGPU='lots'"):
        resolve(JobSpec.from_args("--gres=gpu:1 -t 10"), cluster)


# --- State=CLOUD --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["NodeName=g[1-2] CPUs=32 RealMemory=64000 State=CLOUD", "DownNodes=g2 State=CLOUD"],
)
def test_a_cloud_node_is_warned_with_its_file_line_and_what_slurmlab_does(tmp_path, line):
    """node_conf.c ``state_str2int``: CLOUD is IDLE | CLOUD | POWERED_DOWN (idle~), booted by
    ResumeProgram (power_save.c); slurmlab models no power saving, and says so."""
    first = line if line.startswith("NodeName") else "NodeName=g[1-2] CPUs=32 RealMemory=64000"
    down = "" if line.startswith("NodeName") else line + "\n"
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "ClusterName=c\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
        f"{first}\n{down}PartitionName=p Nodes=ALL Default=YES\n"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster = slurmlab.Cluster.from_slurm_conf(conf)
    said = [str(w.message) for w in caught if "CLOUD" in str(w.message)]
    no = 4 if line.startswith("NodeName") else 5
    assert len(said) == 1 and said[0].startswith(f"{conf} line {no}: ")
    assert "State=CLOUD" in said[0] and "powered down" in said[0] and "IDLE" in said[0]
    assert {n.state for n in cluster.nodes} == {"IDLE"}


def test_srun_env_shows_the_gpus_dealt_on_each_node(realslurm_cluster):
    """gpus-per-job probe1's allocation on idle gpu[2-3]: GRES=gpu:a100:4 on gpu2 and 1 on
    gpu3 (``scontrol -d show job``): SLURM_GPUS_ON_NODE and CUDA_VISIBLE_DEVICES follow."""
    from slurmlab.srun import srun_env

    env = srun_env("-N 2 --gpus=5 -p gpu -t 1:00", "gpu[2-3]", cluster=realslurm_cluster)
    assert env["SLURM_GPUS_ON_NODE"].astype(int).tolist() == [4, 1]
    assert env["CUDA_VISIBLE_DEVICES"].tolist() == ["0,1,2,3", "0"]


def test_a_custom_policy_that_drops_the_gpus_per_job_is_told_so(realslurm_cluster):
    """The controller checks a custom policy's nodes: a -N 2 --gpus=5 job must hold its 5
    GPUs over its nodes, which choose_nodes deals only given them (``job.request`` holds
    them; a request of the policy's own may leave them out)."""
    from slurmlab.errors import PolicyError
    from slurmlab.policies import Decision, Start

    class Forgetful:
        def schedule(self, view):
            d = Decision()
            for job in view.queue:
                own = Request(job.demand, job.count)  # (without its GPUs per job)
                nodes = choose_nodes(view.free, view.capacity, own, job.mask)
                if nodes is not None:
                    d.starts.append(Start(job.id, nodes))
            return d

    lab = slurmlab.Lab(realslurm_cluster, policy=Forgetful())
    with warnings.catch_warnings(), pytest.raises(PolicyError, match="5 GPUs over its 2 nodes"):
        warnings.simplefilter("ignore")
        lab.sbatch("-N 2 --gpus=5 -t 1:00 -p gpu --wrap=x", runtime=20)
