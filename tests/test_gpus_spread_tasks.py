"""``-n N --gpus=M`` without ``-N`` spreads its tasks and GPUs over nodes, as Slurm does.

Real Slurm 22.05 in the ``gpus-spread3`` fixture (``datasets/realslurm``: gpu1 with one free
GPU, gpu2 with two, gpu3 and gpu4 none) started ``-n 4 --gpus=3``, ``-n 3 --gpus=3 -c 2``
and ``-n 8 --gpus=3`` at once on gpu[1-2], one task on gpu1 and the rest on gpu2 (``scontrol
-d show job``: 1 + 3, 2 + 4 and 1 + 7 CPUs), and ``gpus-spread2`` ``-n 2 --gpus=3`` with a
task on each; ``-n 1 --gpus=3`` waited (cons_tres ``choose_nodes`` caps the nodes at the task
count). select/cons_tres ``_eval_nodes`` (job_test.c) adds nodes, more free GPUs first, each
its CPUs up to those the job has left but one task at least (``_cpus_to_use``) and its GPUs
(gres_sched.c ``gres_sched_add``), until the CPUs and ``gres_sched_test`` are satisfied;
``dist_tasks_compute_c_b`` (dist_tasks.c) then puts one task on each node and the rest where
CPUs are left. The GPUs go over the nodes in node order, each what it has up to those left
less one for each node after it (gres_select_filter.c ``_set_job_bits1``, ``_get_job_cnt``):
``--gpus=5`` on gpu1's four and gpu2's two is 4 + 1 (``gpus-spread2``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import slurmlab
from slurmlab.errors import PolicyError
from slurmlab.policies import Decision, Request, Start, choose_nodes, spread_nodes
from slurmlab.spec.job import JobSpec, resolve, spread_of

POLICIES = ("fifo", "easy", "conservative", "slurm")
#: gpus-spread3's blocks: gpu1 one free GPU (a job of 3 pinned), gpu2 two, gpu3-4 none
FREE = np.array([[15, 63000, 1], [15, 63000, 2], [15, 63000, 0], [15, 63000, 0]])
ALL = np.ones(4, dtype=bool)
NONE = np.zeros(3, int)


def tasks(ntasks, task, per_node=NONE, gpus_per_job=0):
    """The request of ``ntasks`` tasks of ``task`` that may spread, ``per_node`` on each
    node, ``gpus_per_job`` GPUs per job (its demand and count: one task on one node)."""
    task = np.asarray(task)
    return Request(task, 1, gpus_per_job=gpus_per_job, spread=(ntasks, task, np.asarray(per_node)))


@pytest.mark.parametrize(
    "ntasks,cpt,cpus",
    [(4, 1, [1, 3]), (3, 2, [2, 4]), (8, 1, [1, 7]), (2, 1, [1, 1])],
    ids=["n4", "n3c2", "n8", "n2"],
)
def test_tasks_and_gpus_per_job_spread_one_task_on_each_node_and_the_rest_on_one(ntasks, cpt, cpus):
    """gpus-spread3 probe1-3, gpus-spread2 probe1: gpu2 (two free GPUs) is picked first and
    takes the CPUs of all the tasks, gpu1 adds its one GPU and one task's CPUs; the tasks
    then go one on each node and the rest on gpu2 (``dist_tasks_compute_c_b``)."""
    task = np.array([cpt, 1000 * cpt, 0])
    nodes = spread_nodes(FREE, tasks(ntasks, task, gpus_per_job=3), ALL)
    assert tuple(nodes) == (0, 1)
    assert nodes.rows.tolist() == [[c, 1000 * c, g] for c, g in zip(cpus, [1, 2], strict=True)]


def test_one_node_that_holds_tasks_and_gpus_takes_them_all():
    """A node holding every task and GPU is the tightest single fit (``_eval_nodes``)."""
    free = FREE.copy()
    free[3, 2] = 4  # gpu4 idle
    nodes = spread_nodes(free, tasks(4, [1, 1000, 0], gpus_per_job=3), ALL)
    assert tuple(nodes) == (3,) and nodes.rows.tolist() == [[4, 4000, 3]]


def test_never_more_nodes_than_tasks():
    """``choose_nodes`` (job_test.c): ``max_nodes = MAX(num_tasks, min_nodes)``: -n 2
    --gpus=3 on three nodes of one free GPU waits."""
    free = np.array([[15, 63000, 1], [15, 63000, 1], [15, 63000, 1]])
    task = [1, 1000, 0]
    assert spread_nodes(free, tasks(2, task, gpus_per_job=3), np.ones(3, bool)) is None
    assert spread_nodes(free, tasks(3, task, gpus_per_job=3), np.ones(3, bool))


def test_gpus_per_job_go_over_the_nodes_in_node_order():
    """``_set_job_bits1``: node order, each node what it has up to the GPUs left less one for
    each node after it, whatever order ``_eval_nodes`` picked them in: ``--gpus=5`` takes
    gpu2's four first (more free GPUs), then gpu1 for the fifth; gpu1 gets its 2, gpu2 3."""
    free = np.array([[15, 63000, 2], [15, 63000, 4], [15, 63000, 0]])
    nodes = spread_nodes(free, tasks(5, [0, 0, 1], [1, 1000, 0]), np.ones(3, bool))
    assert tuple(nodes) == (0, 1) and nodes.rows[:, 2].tolist() == [2, 3]
    # gpus-spread2 probe5: gpu1 idle (4), gpu2 two free: 4 + 1
    free = np.array([[16, 64000, 4], [15, 63000, 2], [15, 63000, 0]])
    nodes = spread_nodes(free, tasks(5, [0, 0, 1], [1, 1000, 0]), np.ones(3, bool))
    assert nodes.rows[:, 2].tolist() == [4, 1]


def test_only_two_tasks_or_more_spread(realslurm_cluster):
    """-n 1 --gpus=3 keeps to one node (gpus-spread3 probe4 waited until cancelled); -n 4
    --gpus=3 spreads its tasks, with no GPUs per node or task: they are per job."""
    one = JobSpec.from_args("-n 1 --gpus=3 -p gpu -t 1:00")
    four = JobSpec.from_args("-n 4 --gpus=3 -p gpu -t 1:00")
    assert spread_of(one, resolve(one, realslurm_cluster), realslurm_cluster) is None
    ntasks, task, node = spread_of(four, resolve(four, realslurm_cluster), realslurm_cluster)
    assert (ntasks, task.tolist(), node.tolist()) == (4, [1, 1000, 0], [0, 0, 0])


def _pin(lab):
    """gpus-spread3's block: pinned jobs leave gpu1 one free GPU, gpu2 two, gpu3-4 none."""
    for node, gpus in (("gpu1", 3), ("gpu2", 2), ("gpu3", 4), ("gpu4", 4)):
        lab.sbatch(f"-n 1 --gres=gpu:{gpus} -w {node} -t 1:00 -p gpu --wrap=x", runtime=25)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_probes_start_at_once_on_two_nodes_as_in_real_slurm(realslurm_cluster, policy):
    """gpus-spread3: -n 4 --gpus=3 starts at once on gpu[1-2] (cpu=4, gres/gpu=3, 2 nodes),
    -n 1 --gpus=3 waits for a node with three GPUs free (gpu1, when its pinned job ends)."""
    lab = slurmlab.Lab(realslurm_cluster, policy=policy)
    _pin(lab)
    probe = lab.sbatch("-n 4 --gpus=3 -t 1:00 -p gpu --wrap=x", runtime=20)
    single = lab.sbatch("-n 1 --gpus=3 -t 1:00 -p gpu --wrap=x", runtime=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab.advance("1s")
        queue = lab.squeue().set_index("JOBID")
        assert queue.loc[str(probe), "NODELIST(REASON)"] == "gpu[1-2]"
        assert queue.loc[str(single), "ST"] == "PD"
        lab.advance("2m")
        jobs = lab.sacct().set_index("JobIDRaw")
    row = jobs.loc[str(probe)]
    assert row["AllocTRES"] == "billing=4,cpu=4,gres/gpu=3,mem=4000M,node=2"
    start = (jobs["Start"] - jobs["Start"].min()).dt.total_seconds()
    assert start[str(probe)] == 0 and start[str(single)] >= 25


def test_a_custom_policy_that_drops_the_gpus_per_job_is_told_so(realslurm_cluster):
    """The controller checks a custom policy's spread: a -n N --gpus=M job must hold its M
    GPUs over the nodes, which spread_nodes deals only given them (``job.request`` holds
    them; a request of the policy's own may leave them out)."""

    class Forgetful:
        def schedule(self, view):
            d, free = Decision(), view.free.copy()
            for job in view.queue:
                own = Request(job.demand, job.count, spread=job.spread)  # (no GPUs per job)
                nodes = choose_nodes(free, view.capacity, own, job.mask)
                if nodes is None and job.spread is not None:
                    nodes = spread_nodes(free, own, job.mask & view.up)
                if nodes is not None:
                    free[list(nodes)] -= job.usage(nodes, view.capacity)
                    d.starts.append(Start(job.id, nodes))
            return d

    lab = slurmlab.Lab(realslurm_cluster, policy=Forgetful())
    _pin(lab)
    with warnings.catch_warnings(), pytest.raises(PolicyError, match="3 GPUs in all"):
        warnings.simplefilter("ignore")
        lab.sbatch("-n 4 --gpus=3 -t 1:00 -p gpu --wrap=x", runtime=20)  # (a pass at once)
