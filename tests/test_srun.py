"""The environment srun gives each task of a job, and the PyTorch DDP variables."""

import pytest

from slurmlab import Cluster, JobSpec, SlurmlabError, srun_env
from slurmlab.srun import master_port, tasks_per_node_string

DDP = JobSpec.from_args("-J ddp -A ml -p train -N 2 --ntasks-per-node=4 --gres=gpu:h100:4")


@pytest.fixture(scope="module")
def env():
    return srun_env(DDP, nodelist="gpu[001-002]", job_id=42)


def test_one_row_per_task(env):
    """srun starts ntasks tasks: one row each, ranks 0..N-1 in order."""
    assert len(env) == 8
    assert env["SLURM_PROCID"].tolist() == list(range(8))
    assert env["RANK"].tolist() == list(range(8))


def test_task_layout_block_wise(env):
    """Tasks fill the first node, then the next: node ids, local ids and host names."""
    assert env["SLURM_NODEID"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert env["SLURM_LOCALID"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert env["LOCAL_RANK"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert env["NODE_RANK"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert env["SLURMD_NODENAME"].tolist() == ["gpu001"] * 4 + ["gpu002"] * 4


def test_job_wide_variables(env):
    """Every task sees the same job id, compressed nodelist, counts and DDP rendezvous."""
    first = env.iloc[5].to_dict()
    assert first["SLURM_JOB_ID"] == 42
    assert first["SLURM_JOB_NAME"] == "ddp"
    assert first["SLURM_JOB_NODELIST"] == "gpu[001-002]"
    assert first["SLURM_NNODES"] == 2
    assert first["SLURM_NTASKS"] == 8
    assert first["SLURM_TASKS_PER_NODE"] == "4(x2)"
    assert first["SLURM_CPUS_PER_TASK"] == 1
    assert first["SLURM_GPUS_ON_NODE"] == 4
    assert first["SLURM_JOB_PARTITION"] == "train"
    assert first["SLURM_JOB_ACCOUNT"] == "ml"
    assert first["SLURM_RESTART_COUNT"] == 0
    assert first["MASTER_ADDR"] == "gpu001"
    assert first["MASTER_PORT"] == 15042
    assert first["WORLD_SIZE"] == 8
    assert first["LOCAL_WORLD_SIZE"] == 4
    for column in (
        "SLURM_JOB_ID",
        "SLURM_TASKS_PER_NODE",
        "WORLD_SIZE",
        "MASTER_ADDR",
        "MASTER_PORT",
    ):
        assert env[column].nunique() == 1, column


def test_cuda_visible_devices_all_node_gpus(env):
    """Without --gpus-per-task every task sees all the node's allocated GPUs, numbered from 0."""
    assert set(env["CUDA_VISIBLE_DEVICES"]) == {"0,1,2,3"}


def test_cuda_visible_devices_bound_per_task():
    """With --gpus-per-task=N each task sees its own N GPUs."""
    job = JobSpec.from_args("-N 2 --ntasks-per-node=4 --gpus-per-task=2")
    env = srun_env(job, "gpu[01-02]", 7)
    assert env["CUDA_VISIBLE_DEVICES"].tolist() == ["0,1", "2,3", "4,5", "6,7"] * 2
    assert set(env["SLURM_GPUS_ON_NODE"]) == {8}


def test_no_gpus_means_empty_cuda_visible_devices():
    """A CPU job's tasks get an empty CUDA_VISIBLE_DEVICES and 0 GPUs on the node."""
    env = srun_env(JobSpec.from_args("-N 1 -n 2"), "cpu01", 3)
    assert env["CUDA_VISIBLE_DEVICES"].tolist() == ["", ""]
    assert env["SLURM_GPUS_ON_NODE"].tolist() == [0, 0]


def test_uneven_tasks_per_node():
    """-N 2 -n 5 puts 3 tasks then 2: SLURM_TASKS_PER_NODE is '3,2'."""
    env = srun_env(JobSpec.from_args("-N 2 -n 5"), ["a1", "a2"], 9)
    assert set(env["SLURM_TASKS_PER_NODE"]) == {"3,2"}
    assert env["LOCAL_WORLD_SIZE"].tolist() == [3, 3, 3, 2, 2]
    assert env["SLURM_NODEID"].tolist() == [0, 0, 0, 1, 1]


def test_restart_count():
    """SLURM_RESTART_COUNT tells a requeued job how many times it was restarted."""
    env = srun_env(DDP, "gpu[001-002]", 42, restart_count=2)
    assert set(env["SLURM_RESTART_COUNT"]) == {2}


def test_with_cluster_resolves_defaults():
    """With a cluster, the partition and GPU shape come from resolving the request."""
    job = JobSpec.from_args("--gpus=16 --ntasks-per-node=8")
    env = srun_env(job, "gpu[001-002]", 1, cluster=Cluster.preset("ai"))
    assert len(env) == 16
    assert set(env["SLURM_JOB_PARTITION"]) == {"train"}
    assert set(env["SLURM_GPUS_ON_NODE"]) == {8}


def test_wrong_nodelist_length():
    """The nodelist must name exactly as many nodes as the job has."""
    with pytest.raises(SlurmlabError, match="has 3 nodes but the job asks for 2"):
        srun_env(DDP, "gpu[001-003]", 42)


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        ([4, 4], "4(x2)"),
        ([3, 2], "3,2"),
        ([8], "8"),
        ([4, 4, 3], "4(x2),3"),
        ([2, 1, 1], "2,1(x2)"),
    ],
)
def test_tasks_per_node_string(counts, text):
    """SLURM_TASKS_PER_NODE writes runs of equal counts as N(xK)."""
    assert tasks_per_node_string(counts) == text


def test_master_port_from_job_id():
    """MASTER_PORT is 15000 plus the job id's last four digits."""
    assert (master_port(42), master_port(123456)) == (15042, 18456)
