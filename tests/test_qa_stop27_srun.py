"""srun_env lays tasks out as ``--distribution`` says (slurm_step_layout.c, Slurm 22.05.8),
and sets SLURM_CPUS_PER_GPU with ``--cpus-per-gpu`` (env.c set_env_from_opts).

The tables below were computed by hand from slurm_step_layout.c, with each node's slots
(Slurm's ``cpus[]``) equal to the allocation's tasks on it:

- ``_task_layout_cyclic`` deals the task ids round-robin over the nodes that still have
  room. ``-N 2 -n 4`` (slots 2,2) puts 0,2 on node 0 and 1,3 on node 1. ``-N 3 -n 7``
  (slots 3,2,2) goes round 0: 0 1 2, round 1: 3 4 5, round 2: 6 on node 0 only. So node 0
  has 0,3,6, node 1 has 1,4 and node 2 has 2,5.
- ``_task_layout_plane`` first counts the tasks per node: one on each node, then up to
  ``plane_size`` more per node in each round, only where there is room. With slots equal
  to the allocation, the counts come out as the allocation's. It then deals the ids in
  blocks of ``plane_size``: round j gives node i its next block.
  ``plane=2 -N 2 -n 8`` (4,4): node 0 gets 0,1 then 4,5, node 1 gets 2,3 then 6,7.
  ``plane=2 -N 3 -n 7`` (3,2,2): node 0 gets 0,1 then 6, node 1 gets 2,3, node 2 gets 4,5.
  ``plane=3 -N 2 -n 8`` (4,4): node 0 gets 0,1,2 then 3 more ids, but only one fits (6).
  Node 1 gets 3,4,5, then 7.
- SLURM_LOCALID numbers a node's tasks in id order. RANK is SLURM_PROCID, LOCAL_RANK is
  SLURM_LOCALID and NODE_RANK is SLURM_NODEID. ``--gpu-bind`` binds by SLURM_LOCALID.
"""

import dataclasses

import pytest

from slurmlab import JobSpec, Lab, SbatchError, SlurmlabError, srun_env
from slurmlab.srun import Distribution, task_layout


def _env(args: str, nodelist: str):
    return srun_env(JobSpec.from_args(args), nodelist, 42)


def _columns(env, *names):
    return {name: env[name].tolist() for name in names}


def test_cyclic_two_nodes():
    """-N 2 -n 4 -m cyclic: ranks 0,2 on the first node and 1,3 on the second."""
    env = _env("-N 2 -n 4 -m cyclic", "gpu[001-002]")
    assert env["SLURM_PROCID"].tolist() == [0, 1, 2, 3]
    assert _columns(env, "SLURMD_NODENAME", "SLURM_NODEID", "SLURM_LOCALID") == {
        "SLURMD_NODENAME": ["gpu001", "gpu002", "gpu001", "gpu002"],
        "SLURM_NODEID": [0, 1, 0, 1],
        "SLURM_LOCALID": [0, 0, 1, 1],
    }
    assert _columns(env, "RANK", "LOCAL_RANK", "NODE_RANK", "LOCAL_WORLD_SIZE") == {
        "RANK": [0, 1, 2, 3],
        "LOCAL_RANK": [0, 0, 1, 1],
        "NODE_RANK": [0, 1, 0, 1],
        "LOCAL_WORLD_SIZE": [2, 2, 2, 2],
    }
    assert set(env["SLURM_DISTRIBUTION"]) == {"cyclic"}
    assert set(env["SLURM_TASKS_PER_NODE"]) == {"2(x2)"}


def test_cyclic_three_uneven_nodes():
    """-N 3 -n 7 -m cyclic (3,2,2 tasks): node 0 has 0,3,6, node 1 has 1,4, node 2 has 2,5."""
    env = _env("-N 3 -n 7 -m cyclic", "n[1-3]")
    assert _columns(env, "SLURM_NODEID", "SLURM_LOCALID", "LOCAL_WORLD_SIZE") == {
        "SLURM_NODEID": [0, 1, 2, 0, 1, 2, 0],
        "SLURM_LOCALID": [0, 0, 0, 1, 1, 1, 2],
        "LOCAL_WORLD_SIZE": [3, 2, 2, 3, 2, 2, 3],
    }
    assert set(env["SLURM_TASKS_PER_NODE"]) == {"3,2(x2)"}


@pytest.mark.parametrize(
    ("args", "nodelist", "node_ids", "local_ids"),
    [
        ("-N 2 -n 8 -m plane=2", "n[1-2]", [0, 0, 1, 1, 0, 0, 1, 1], [0, 1, 0, 1, 2, 3, 2, 3]),
        ("-N 3 -n 7 -m plane=2", "n[1-3]", [0, 0, 1, 1, 2, 2, 0], [0, 1, 0, 1, 0, 1, 2]),
        ("-N 2 -n 8 -m plane=3", "n[1-2]", [0, 0, 0, 1, 1, 1, 0, 1], [0, 1, 2, 0, 1, 2, 3, 3]),
    ],
)
def test_plane(args, nodelist, node_ids, local_ids):
    """plane=N deals the ids in blocks of N per node; each node keeps its task count."""
    env = _env(args, nodelist)
    assert env["SLURM_NODEID"].tolist() == node_ids
    assert env["SLURM_LOCALID"].tolist() == local_ids
    assert env["NODE_RANK"].tolist() == node_ids
    assert env["LOCAL_RANK"].tolist() == local_ids
    size = int(args.rpartition("=")[2])
    assert (set(env["SLURM_DISTRIBUTION"]), set(env["SLURM_DIST_PLANESIZE"])) == (
        {"plane"},
        {size},
    )


def test_block_is_unchanged_and_the_default():
    """Without -m, and with -m block: consecutive ranks share a node; no plane size."""
    for args in ("-N 2 -n 4", "-N 2 -n 4 -m block"):
        env = _env(args, "n[1-2]")
        assert env["SLURM_NODEID"].tolist() == [0, 0, 1, 1]
        assert env["SLURM_LOCALID"].tolist() == [0, 1, 0, 1]
        assert set(env["SLURM_DISTRIBUTION"]) == {"block"}
        assert "SLURM_DIST_PLANESIZE" not in env.columns
    assert set(_env("-N 2 -n 2", "n[1-2]")["SLURM_DISTRIBUTION"]) == {"cyclic"}


def test_gpu_bind_follows_the_local_id():
    """--gpu-bind and --gpus-per-task bind by SLURM_LOCALID, so cyclic ranks 0 and 1 (each
    local 0 on its node) get the same GPU, and ranks 2 and 3 (local 1) get the other one."""
    args = "-N 2 --ntasks-per-node=2 --gres=gpu:2 -m cyclic --gpu-bind=map_gpu:1,0"
    assert _env(args, "g[1-2]")["CUDA_VISIBLE_DEVICES"].tolist() == ["1", "1", "0", "0"]
    args = "-N 2 --ntasks-per-node=2 --gpus-per-task=1 -m cyclic"
    assert _env(args, "g[1-2]")["CUDA_VISIBLE_DEVICES"].tolist() == ["0", "0", "1", "1"]
    args = "-N 2 --ntasks-per-node=4 --gpus-per-task=1 -m plane=2"
    assert _env(args, "g[1-2]")["CUDA_VISIBLE_DEVICES"].tolist() == list("01012323")


@pytest.mark.parametrize(
    ("value", "shown", "node_ids"),
    [
        ("cyclic:block", "cyclic:block", [0, 1, 0, 1]),
        ("block:cyclic", "block:cyclic", [0, 0, 1, 1]),
        ("*:*", "block:cyclic", [0, 0, 1, 1]),
        ("*:block:*", "block:block:block", [0, 0, 1, 1]),
        ("Cyclic:fcyclic", "cyclic:fcyclic", [0, 1, 0, 1]),
        ("cyclic,NoPack", "cyclic,nopack", [0, 1, 0, 1]),
        ("pack", "block,pack", [0, 0, 1, 1]),
    ],
)
def test_only_the_first_part_places_tasks(value, shown, node_ids):
    """The socket and core parts only bind CPUs. SLURM_DISTRIBUTION is written as Slurm
    writes it (format_task_dist_states): lower case, '*' expanded, then ',pack' or ',nopack'.
    With 'pack' alone, srun picks its default layout."""
    env = _env(f"-N 2 -n 4 -m {value}", "n[1-2]")
    assert set(env["SLURM_DISTRIBUTION"]) == {shown}
    assert env["SLURM_NODEID"].tolist() == node_ids


@pytest.mark.parametrize("value", ["arbitrary", "hostfile"])
def test_arbitrary_is_refused_as_not_modelled(value):
    """arbitrary takes the layout from the SLURM_HOSTFILE file, which slurmlab does not model."""
    with pytest.raises(SlurmlabError, match=r"SLURM_HOSTFILE.*not model.*plane=N"):
        _env(f"-N 2 -n 4 -m {value}", "n[1-2]")


@pytest.mark.parametrize("value", ["bogus", "plane", "plane=0", "block:block:block:block"])
def test_invalid_distribution(value):
    """A value Slurm refuses is refused with its words, even on a JobSpec built in Python
    (when it is built: its checks read the value)."""
    with pytest.raises(SbatchError, match="Invalid --distribution specification"):
        job = dataclasses.replace(JobSpec.from_args("-N 2 -n 4"), other=(("distribution", value),))
        srun_env(job, "n[1-2]", 1)


def test_distribution_parse():
    """Distribution.parse: the layout, the plane size and the flag."""
    assert Distribution.parse("plane=4") == Distribution("plane", plane_size=4)
    assert Distribution.parse("hostfile").nodes == "arbitrary"
    assert Distribution.parse("nopack") == Distribution("", flag="nopack")
    assert Distribution.parse("nopack").text("cyclic") == "cyclic,nopack"


@pytest.mark.parametrize(
    ("dist", "slots", "ntasks", "options", "tids"),
    [
        # srun(1): three 2-CPU nodes, four tasks
        ("block", [2, 2, 2], 4, {}, ((0, 1), (2,), (3,))),
        ("cyclic", [2, 2, 2], 4, {}, ((0, 3), (1,), (2,))),
        # slurm_step_layout.c's comments
        ("cyclic", [4, 2, 4, 2], 12, {}, ((0, 4, 8, 10), (1, 5), (2, 6, 9, 11), (3, 7))),
        ("plane", [4, 1, 1], 6, {"plane_size": 2}, ((0, 1, 4, 5), (2,), (3,))),
        # block counts round-robin, pack fills node by node
        ("block", [4, 4], 5, {}, ((0, 1, 2), (3, 4))),
        ("block", [4, 4], 5, {"pack": True}, ((0, 1, 2, 3), (4,))),
        # spare slots: plane puts up to a plane on the first node (counts 3,1)
        ("plane", [8, 8], 4, {"plane_size": 4}, ((0, 1, 2), (3,))),
        # more tasks than slots: oversubscribed as Slurm does
        ("block", [2, 1], 5, {}, ((0, 1, 2), (3, 4))),
        ("cyclic", [2, 1], 5, {}, ((0, 2, 4), (1, 3))),
        ("plane", [1, 1], 5, {"plane_size": 2}, ((0, 1, 4), (2, 3))),
    ],
)
def test_task_layout(dist, slots, ntasks, options, tids):
    """task_layout ports _task_layout_block/_cyclic/_plane. Hand traces:
    block [4,4] n=5: round 0 gives 1,1 and round 1 gives 2,2, so the counts are 3,2. With
    pack, pass 1 gives 1,1 and pass 2 fills node 0 up to 4, so 4,1.
    plane [8,8] n=4 size 4: one task each (1,1), then node 0 takes 2 more (3,1).
    block [2,1] n=5: rounds give 1,1 then 2,1 (no room left), then oversubscribe: 3,2.
    cyclic [2,1] n=5: 5 tasks on 3 slots, so each node may go 1 over (ceil(2/2)).
    plane [1,1] n=5 size 2: 1,1, then no room (oversubscribe), then 3,1, then 3,2."""
    assert task_layout(dist, slots, ntasks, **options) == tids


def test_task_layout_refuses_bad_input():
    """Every node needs a slot, plane a size, and the layout must be one of the three."""
    with pytest.raises(SlurmlabError, match="slots"):
        task_layout("block", [2, 0], 2)
    with pytest.raises(SlurmlabError, match="plane_size"):
        task_layout("plane", [2, 2], 2)
    with pytest.raises(SlurmlabError, match="not block, cyclic or plane"):
        task_layout("arbitrary", [2, 2], 2)


def test_simulated_job_is_laid_out_cyclic():
    """Result.srun_env passes the job's -m on: a simulated cyclic job's ranks alternate."""
    lab = Lab("teaching")
    job = lab.sbatch("-N 2 --ntasks-per-node=2 -m cyclic -t 10", runtime=300)
    lab.advance(10)
    env = lab.result.srun_env(job)
    assert env["SLURM_NODEID"].tolist() == [0, 1, 0, 1]
    assert env["SLURM_LOCALID"].tolist() == [0, 0, 1, 1]


def test_cpus_per_gpu_is_set():
    """--cpus-per-gpu=12 sets SLURM_CPUS_PER_GPU=12, next to SLURM_MEM_PER_GPU. Without the
    option the variable is not set, which matches the real fixture."""
    args = "-N 1 --ntasks-per-node=8 --gres=gpu:8 --cpus-per-gpu=12 --mem-per-gpu=10G"
    env = srun_env(JobSpec.from_args(args), "gpu001", 1, cluster="ai")
    assert set(env["SLURM_CPUS_PER_GPU"]) == {12}
    columns = list(env.columns)
    assert columns.index("SLURM_CPUS_PER_GPU") == columns.index("SLURM_MEM_PER_GPU") + 1
    plain = srun_env(JobSpec.from_args("-N 1 --ntasks-per-node=8 --gres=gpu:8"), "gpu001", 1)
    assert "SLURM_CPUS_PER_GPU" not in plain.columns
