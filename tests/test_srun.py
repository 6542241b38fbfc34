"""The environment srun gives each task of a job, and the PyTorch DDP variables."""

import pytest

from slurmlab import Cluster, JobSpec, Lab, SbatchError, SlurmlabError, srun_env
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
    assert first["SLURM_GPUS_ON_NODE"] == 4
    assert first["SLURM_JOB_PARTITION"] == "train"
    assert first["SLURM_JOB_ACCOUNT"] == "ml"
    assert first["SLURM_STEP_NUM_TASKS"] == 8
    assert first["SLURM_STEP_TASKS_PER_NODE"] == "4(x2)"
    assert first["SLURM_NTASKS_PER_NODE"] == 4
    # set only when they apply, as real srun sets them: no -c, never requeued
    assert "SLURM_CPUS_PER_TASK" not in first
    assert "SLURM_RESTART_COUNT" not in first
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


def test_no_gpus_means_no_cuda_visible_devices():
    """A CPU job's tasks get neither CUDA_VISIBLE_DEVICES nor SLURM_GPUS_ON_NODE (real srun
    sets them only where the job holds GPUs); -c sets SLURM_CPUS_PER_TASK."""
    env = srun_env(JobSpec.from_args("-N 1 -n 2 -c 3"), "cpu01", 3)
    assert "CUDA_VISIBLE_DEVICES" not in env.columns
    assert "SLURM_GPUS_ON_NODE" not in env.columns
    assert env["SLURM_CPUS_PER_TASK"].tolist() == [3, 3]


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


# -- --gpu-bind: which of its node's GPUs each task sees ----------------------------------------


def _devices(args: str, nodelist="gpu01") -> list[str]:
    return srun_env(JobSpec.from_args(args), nodelist, 7)["CUDA_VISIBLE_DEVICES"].tolist()


def test_gpu_bind_map_gpu():
    """map_gpu:<list> binds task i (SLURM_LOCALID) to the i-th GPU id of the list."""
    args = "-N 1 --ntasks-per-node=4 --gres=gpu:4 --gpu-bind=map_gpu:3,2,1,0"
    assert _devices(args) == ["3", "2", "1", "0"]


def test_gpu_bind_map_gpu_repeats_and_reuses_the_list():
    """'0*2' stands for '0,0'; more tasks than list elements reuse it from the start."""
    args = "-N 1 --ntasks-per-node=8 --gres=gpu:2 --gpu-bind=map_gpu:0*2,1"
    assert _devices(args) == ["0", "0", "1", "0", "0", "1", "0", "0"]


def test_gpu_bind_map_applies_on_every_node():
    """The list is per node: the lowest task on each node gets its first element."""
    args = "-N 2 --ntasks-per-node=2 --gres=gpu:2 --gpu-bind=map_gpu:1,0"
    assert _devices(args, "gpu[01-02]") == ["1", "0", "1", "0"]


def test_gpu_bind_mask_gpu():
    """mask_gpu:<list> gives task i the GPUs whose bits are set in the i-th hex mask."""
    args = "-N 1 --ntasks-per-node=2 --gres=gpu:4 --gpu-bind=mask_gpu:0x3,C"
    assert _devices(args) == ["0,1", "2,3"]


def test_gpu_bind_single():
    """single:<tasks_per_gpu> binds tasks to one GPU each, that many tasks per GPU, in order."""
    args = "-N 1 --ntasks-per-node=4 --gres=gpu:2 --gpu-bind=single:2"
    assert _devices(args) == ["0", "0", "1", "1"]


def test_gpu_bind_per_task():
    """per_task:<gpus_per_task> gives each task that many GPUs, in order."""
    args = "-N 1 --ntasks-per-node=2 --gres=gpu:4 --gpu-bind=per_task:2"
    assert _devices(args) == ["0,1", "2,3"]


def test_gpu_bind_none_undoes_gpus_per_task_binding():
    """--gpu-bind=none: every task sees every GPU of the step on its node."""
    args = "-N 1 --ntasks-per-node=4 --gpus-per-task=1 --gpu-bind=none"
    assert _devices(args) == ["0,1,2,3"] * 4


def test_gpu_bind_closest_without_topology_sees_all_gpus():
    """closest binds to the GPUs near the task's CPUs; with no topology that is all of them."""
    args = "-N 1 --ntasks-per-node=2 --gres=gpu:2 --gpu-bind=closest"
    assert _devices(args) == ["0,1", "0,1"]


def test_gpu_bind_verbose_prefix_and_case():
    """A 'verbose,' prefix is accepted (Slurm then reports the binding); names are case-blind."""
    args = "-N 1 --ntasks-per-node=2 --gres=gpu:2 --gpu-bind=verbose,MAP_GPU:1,0"
    assert _devices(args) == ["1", "0"]


def test_gpu_bind_outside_the_allocation_falls_back_to_first_gpu():
    """A task bound to no GPU of the step gets the first one, as Slurm does, with a warning."""
    args = "-N 1 --ntasks-per-node=2 --gres=gpu:2 --gpu-bind=map_gpu:5,1"
    with pytest.warns(UserWarning, match=r"map_gpu:5,1.*rank 0.*first GPU"):
        assert _devices(args) == ["0", "1"]


@pytest.mark.parametrize(
    "value",
    ["map_gpu:", "map_gpu:1*0", "single:0"],  # (sbatch refuses the others at submission:
)  # tests/test_qa_stop27_sbatch.py)
def test_gpu_bind_invalid_value(value):
    """An invalid --gpu-bind that sbatch's lenient check lets through names the option, the
    value and the forms srun accepts."""
    job = JobSpec.from_args(f"-N 1 -n 2 --gres=gpu:2 --gpu-bind={value}")
    with pytest.raises(SbatchError, match=r"--gpu-bind=.*map_gpu:<list>.*single:<tasks_per_gpu>"):
        srun_env(job, "gpu01", 1)


# -- GPUs per node follow the tasks on it ------------------------------------------------------


def test_gpus_per_task_uneven_tasks():
    """--gpus-per-task: a node gets its own tasks x GPUs per task (2 tasks: 2, 1 task: 1)."""
    env = srun_env(JobSpec.from_args("-n 3 -N 2 --gpus-per-task=1"), "gpu[01-02]", 7)
    assert env["SLURM_GPUS_ON_NODE"].tolist() == [2, 2, 1]
    assert env["CUDA_VISIBLE_DEVICES"].tolist() == ["0", "1", "0"]


def test_simulated_job_gpus_per_task_uneven_tasks():
    """On a simulated job too, while the allocation keeps one shape per node (4 GPUs)."""
    lab = Lab("teaching")
    job = lab.sbatch("-n 3 -N 2 --gpus-per-task=1 -t 10", runtime=300)
    lab.advance(10)
    env = lab.result.srun_env(job)
    assert dict(zip(env["SLURMD_NODENAME"], env["SLURM_GPUS_ON_NODE"])) == {
        "gpu01": 2,
        "gpu02": 1,
    }
    assert "gres/gpu=4" in lab.result.sacct()["AllocTRES"].iloc[0]


# -- account and QOS -----------------------------------------------------------------------------


def test_resolved_account_and_qos():
    """A simulated job passes its resolved account and QOS (what sacct shows)."""
    env = srun_env(JobSpec.from_args("-N 1 -n 1"), "cpu01", 3, account="root", qos="high")
    assert (env.loc[0, "SLURM_JOB_ACCOUNT"], env.loc[0, "SLURM_JOB_QOS"]) == ("root", "high")


def test_account_and_qos_from_the_request():
    """Without them, the request's own -A and --qos are shown."""
    env = srun_env(JobSpec.from_args("-N 1 -n 1 -A ml --qos=long"), "cpu01", 3)
    assert (env.loc[0, "SLURM_JOB_ACCOUNT"], env.loc[0, "SLURM_JOB_QOS"]) == ("ml", "long")


def test_simulated_job_resolved_account():
    """A job without -A runs under its resolved default account, as sacct shows it."""
    lab = Lab("teaching")
    job = lab.sbatch("-n 1 -t 10", runtime=300)
    lab.advance(10)
    env = lab.result.srun_env(job)
    row = lab.result.sacct().iloc[0]
    got = (env.loc[0, "SLURM_JOB_ACCOUNT"], env.loc[0, "SLURM_JOB_QOS"])
    assert got == (row["Account"], row["QOS"])


def test_options_come_back_as_sbatch_passes_them_on():
    """GPU options as typed, --gpu-bind as given, memory per CPU or per node (real srun's,
    datasets/realslurm/srun-env: SLURM_GPUS=a100:2, SLURM_GPUS_PER_NODE=a100:1)."""
    env = srun_env(
        JobSpec.from_args("-n 2 --gpus=a100:2 --gpu-bind=single:1 --mem-per-cpu=500"), "gpu1"
    )
    first = env.iloc[0]
    assert (first["SLURM_GPUS"], first["SLURM_GPU_BIND"]) == ("a100:2", "single:1")
    assert first["SLURM_MEM_PER_CPU"] == 500 and "SLURM_MEM_PER_NODE" not in env.columns
    env = srun_env(JobSpec.from_args("-N 1 --mem=4000 --gpus-per-node=a100:1"), "gpu1")
    assert env.iloc[0]["SLURM_GPUS_PER_NODE"] == "a100:1"
    assert env.iloc[0]["SLURM_MEM_PER_NODE"] == 4000
    assert "SLURM_GPUS" not in env.columns and "SLURM_GPU_BIND" not in env.columns
