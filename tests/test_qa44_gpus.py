"""A job asking for GPUs per job (``--gpus=N``) prefers the nodes with more GPUs free
(placement.py, ``gpu_weights``), now and in backfill's plans.

Slurm 22.05 gives every node the sched_weight ``Weight << 8 | 0xff``
(node_scheduler.c ``_set_sched_weight``); select/cons_tres ``can_job_run_on_node`` sets its
low byte to ``0xff - near_gpu_cnt``, the node's usable free GPUs capped at the job's GPUs per
node or else per job (``gres_select_filter_remove_unusable``), and ``_eval_nodes`` takes the
lowest weight first. A per-node request caps every usable node alike, so only GPUs per job
rank nodes. Real Slurm (fixture gpus-per-job, gpu-shapes' gtot) placed ``-N 2 --gpus=5``
on gpu[2-3] with gpu1 partly used, where the CPU best fit alone gives gpu[1-2].
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import numpy as np
import pytest

from slurmlab import Lab
from slurmlab.policies.placement import Request, best_fit, choose_nodes, gpu_weights
from slurmlab.policies.profile import Profile
from slurmlab.scenario import Scenario

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
CAPACITY = np.array([[16, 64000, 4]] * 4, dtype=np.int64)
ALL = np.ones(4, dtype=bool)
#: gpu1 with one GPU and one CPU taken (probe1's state), gpu2-4 idle
GPU1_USED = np.array([[15, 63000, 3], [16, 64000, 4], [16, 64000, 4], [16, 64000, 4]])


def test_the_weights_rank_free_gpus_up_to_the_jobs_gpus_below_the_node_weight():
    """The low byte is 0xff less the free GPUs, counted up to the job's GPUs per job; a
    slurm.conf Weight sits above it (<< 8), so it always goes first."""
    assert gpu_weights(GPU1_USED, None, 5).tolist() == [252, 251, 251, 251]
    assert gpu_weights(GPU1_USED, None, 2).tolist() == [253, 253, 253, 253]  # (min(3, 2))
    weights = np.array([1, 2, 2, 2])
    assert gpu_weights(GPU1_USED, weights, 5).tolist() == [256 + 252, 512 + 251, 763, 763]


@pytest.mark.parametrize(
    "gpus_per_job,nodes",
    [
        (5, (1, 2)),  # probe1: gpu[2-3], not gpu1 with 3 GPUs free
        (4, (1, 2)),  # probe2
        (7, (1, 2)),  # probe3
        (3, (0, 1)),  # 3 GPUs per job: gpu1's 3 free weigh as the others' 4
        (0, (0, 1)),  # GPUs per node (--gres=gpu:3): every usable node weighs the same
    ],
)
def test_gpus_per_job_prefer_nodes_with_more_free_gpus(gpus_per_job, nodes):
    """cons_tres ranks nodes by min(free GPUs, GPUs per job) before the CPU best fit."""
    demand = np.array([1, 1000, 3])
    got = choose_nodes(GPU1_USED, CAPACITY, Request(demand, 2, gpus_per_job=gpus_per_job), ALL)
    assert got == nodes


def test_the_cpu_rule_decides_among_equal_gpu_weights():
    """probe4: gpu1 with all 4 GPUs but 12 CPUs free weighs as the idle nodes, and a job
    of two nodes takes the run's nodes in order: gpu[1-2]."""
    free = np.array([[12, 60000, 4], [16, 64000, 4], [16, 64000, 4], [16, 64000, 4]])
    request = Request(np.array([1, 1000, 1]), 2, gpus_per_job=5)
    assert best_fit(free, np.arange(4), request) == (0, 1)


def test_a_plan_weighs_the_gpus_free_throughout_its_window():
    """Backfill's will-run test weighs the nodes by the GPUs free where the job would run:
    gpu2 keeps one GPU taken past 60 s, so a `-N 2 --gpus=5` job planned at 60 s goes to
    gpu3 and gpu4 (gpu1 alone is too short a run of the lowest weight)."""
    free = np.array([[15, 63000, 0], [14, 62000, 0], [15, 63000, 0], [15, 63000, 0]])
    back = np.array([[1, 1000, 4], [1, 1000, 3], [1, 1000, 4], [1, 1000, 4]])
    prof = Profile(0.0, free, CAPACITY, [(60.0, (0, 1, 2, 3), back)])
    demand = np.array([1, 1000, 3])
    assert prof.earliest(Request(demand, 2, gpus_per_job=5), ALL, 100.0)[1:] == (60.0, (2, 3))
    assert prof.earliest(Request(demand, 2), ALL, 100.0)[1:] == (60.0, (0, 1))


@pytest.mark.parametrize("pin,nodes", [("gpu1", "gpu[2-3]"), ("gpu2", "gpu[3-4]")])
def test_the_engine_places_gpus_per_job_as_real_slurm(pin, nodes):
    """Real Slurm's probe1 and probe5 (fixture gpus-per-job): a node with a GPU taken is
    passed over by `-N 2 --gpus=5`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab = Lab(DATA / "slurm.conf", "slurm")
    lab.sbatch(f"-n 1 --gres=gpu:1 -w {pin} -t 10", runtime=100)
    job = lab.sbatch("-N 2 --gpus=5 -t 10", runtime=100)
    lab.advance(1)
    assert lab.squeue().set_index("JOBID").loc[str(job), "NODELIST(REASON)"] == nodes


def test_backfills_plan_for_gpus_per_job_shows_the_nodes_it_starts_on(realslurm_run):
    """While every GPU is held until 60 s (one of gpu2's until 300 s), a waiting `-N 2
    --gpus=5` job is planned on gpu[3-4] (SCHEDNODES) and starts there."""
    jobs = """\
        - {id: a, submit: 0, runtime: 50, user: alice, args: "-p gpu -w gpu1 -n 1 --gres=gpu:4 -t 1 -A llm"}
        - {id: b, submit: 0, runtime: 50, user: alice, args: "-p gpu -w gpu2 -n 1 --gres=gpu:3 -t 1 -A llm"}
        - {id: c, submit: 0, runtime: 290, user: alice, args: "-p gpu -w gpu2 -n 1 --gres=gpu:1 -t 5 -A llm"}
        - {id: d, submit: 0, runtime: 50, user: alice, args: "-p gpu -w gpu[3-4] -N 2 --gres=gpu:4 -t 1 -A llm"}
        - {id: p, submit: 5, runtime: 30, user: bob, args: "-p gpu -N 2 --gpus=5 -t 2 -A llm"}
    """  # noqa: E501
    result = realslurm_run(jobs)
    assert result.squeue(at=20.0).set_index("JOBID").loc["p", "SCHEDNODES"] == "gpu[3-4]"
    assert result.jobs.set_index("JobID").loc["p", "NodeList"] == "gpu[3-4]"


@pytest.mark.parametrize("name", ["gpus-per-job", "gpu-shapes"])
def test_the_fixtures_runs_get_real_slurms_nodes(name):
    """Every run of the two fixtures starts on the nodes real Slurm 22.05 gave it (without
    the weights: probe1, probe2, probe5 and gtot on gpu[1-2])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(DATA / "scenarios" / f"{name}.yaml").run()
    with open(DATA / name / "starts.csv", newline="") as f:
        real = {row["id"]: row["nodelist"] for row in csv.DictReader(f)}
    sim = result.jobs.set_index("JobID")["NodeList"].to_dict()
    assert {k: sim[k] for k in real} == real
