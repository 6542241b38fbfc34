"""GPU jobs of fixed tasks per node count every fitting node as the same CPUs (placement.py,
``gres_fixed``), and a pending ``-N MIN-MAX`` job's size counts the CPUs of its plan.

Slurm 22.05's select/cons_tres trims the usable cores of every node for a GRES job whose
tasks per node are fixed (``gres_select_filter_sock_core``), so such a job takes the first
node of the shortest run of fitting nodes, where a CPU-only job, or a GPU job without ``-n``,
takes the tightest. Real Slurm's probes (2026-12-06, the fixture cluster, not a fixture of
their own) and the mix-11 and mix-12 fixtures show it; the states below are the probes'.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slurmlab.policies.placement import Request, best_fit, choose_nodes, gres_fixed
from slurmlab.policies.profile import Profile

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
CAPACITY = np.array([[16, 64000, 4]] * 4, dtype=np.int64)


def pick(free, demand, count=1, *, fixed=False):
    free = np.array(free, dtype=np.int64)
    capacity = np.array([[16, 64000, 4]] * len(free), dtype=np.int64)
    mask = np.ones(len(free), dtype=bool)
    request = Request(np.array(demand), count, mem_per_cpu=1000, gres_fixed=fixed)
    return choose_nodes(free, capacity, request, mask)


@pytest.mark.parametrize(
    "args,fixed",
    [
        (dict(ntasks=1), True),  # -n 1 --gres=gpu:1: num_tasks 1
        (dict(ntasks=None), False),  # --gres=gpu:1: no -n, num_tasks 0, open
        (dict(nodes=2), False),  # -N 2 --gres=gpu:1 (placement blocks 3, 5, 6)
        (dict(nodes=1), False),  # -N 1 --gres=gpu:4: max_nodes 1 but no task count
        (dict(nodes=2, ntasks=2), True),  # one task per node
        (dict(nodes=2, ntasks=4), False),  # more tasks than nodes: open
        (dict(nodes=1, ntasks=4), True),  # -N 1 -n 4: max_nodes 1 fixes num_tasks
        (dict(ntasks=2), False),  # -n 2 --gres=gpu:2 without -N (backfill-mix j18): open
        (dict(nodes=2, max_nodes=4, ntasks=2), True),  # sbatch lowers MAX to -n
        (dict(nodes=1, max_nodes=2, ntasks=4), False),
        (dict(nodes=2, ntasks_per_node=4), True),  # --ntasks-per-node (ai_workload's)
        (dict(ntasks=1, ntasks_per_core=1), False),  # its tasks: that times the cores
        (dict(ntasks=1, gres=False), False),  # a CPU-only job is never trimmed
    ],
)
def test_which_jobs_slurm_trims(args, fixed):
    """_select_cores fixes a node's tasks for --ntasks-per-node, -n 1, -n equal to -N and
    -N 1 with -n; gres_select_filter_sock_core trims only those of a GRES job."""
    kw = dict(gres=True, ntasks=None, nodes=None, max_nodes=None, ntasks_per_node=None)
    assert gres_fixed(**{**kw, **args}) is fixed


def test_a_one_task_gpu_job_takes_the_first_fitting_node():
    """Probe E2 (mix-11's j14): gpu1 idle, gpu2 14 CPUs and 2 GPUs free, gpu3 and gpu4 13
    and 1. `-n 1 --gres=gpu:1` went to gpu1; untrimmed, gpu3 (the first tightest)."""
    free = [[16, 64000, 4], [14, 62000, 2], [13, 61000, 1], [13, 61000, 1]]
    assert pick(free, [1, 1000, 1], fixed=True) == (0,)
    assert pick(free, [1, 1000, 1]) == (2,)  # --gres=gpu:1 without -n: the tightest


def test_a_one_task_gpu_job_ignores_which_fitting_node_is_tighter():
    """Probe E1 (mix-11's j10): gpu1 and gpu2 have no GPU free; gpu3 14 CPUs, gpu4 13.
    Real Slurm: gpu3, the first of the run, not gpu4."""
    free = [[15, 60000, 0], [15, 60000, 0], [14, 62000, 2], [13, 61000, 1]]
    assert pick(free, [1, 1000, 1], fixed=True) == (2,)
    assert pick(free, [1, 1000, 1]) == (3,)


def test_runs_compare_by_their_node_counts():
    """Every fitting node counts the same, so a run's CPUs are its node count: a one-task
    job takes the shortest run with enough nodes (here node 3 alone, not the run of nodes
    0-1 with fewer CPUs), a two-node job the smallest run of two or more, in order."""
    free = [[4, 60000, 2], [4, 60000, 2], [15, 60000, 0], [16, 64000, 4]]
    assert pick(free, [1, 1000, 1], fixed=True) == (3,)
    assert pick(free, [1, 1000, 1]) == (0,)
    free = [[2, 60000, 2]] * 3 + [[16, 64000, 0]] + [[16, 64000, 4]] * 2
    assert pick(free, [1, 1000, 1], 2, fixed=True) == (4, 5)
    assert pick(free, [1, 1000, 1], 2) == (0, 1)


def test_best_fit_and_profiles_plan_by_the_same_rule():
    """best_fit (the planner's path: Profile) follows the same rule, so a plan (squeue
    --start's SCHEDNODES) puts the job where a start now would."""
    free = np.array([[16, 64000, 4], [14, 62000, 2], [13, 61000, 1], [13, 61000, 1]])
    idx = np.arange(4)
    demand = np.array([1, 1000, 1])
    fixed, open_ = Request(demand, gres_fixed=True), Request(demand)
    assert best_fit(free, idx, fixed) == (0,)
    assert best_fit(free, idx, open_) == (2,)
    prof = Profile(0.0, free, CAPACITY, [])
    mask = np.ones(4, dtype=bool)
    assert prof.earliest(fixed, mask, 60.0) == (0, 0.0, (0,))
    assert prof.earliest(open_, mask, 60.0) == (0, 0.0, (2,))
    assert prof.fits(fixed, mask, 60.0) == (0,)


_E2 = """\
    - {id: f2, submit: 0, runtime: 120, user: alice, args: "-p gpu -w gpu2 -n 2 --gres=gpu:2 -t 5 -A llm"}
    - {id: f3, submit: 0, runtime: 120, user: alice, args: "-p gpu -w gpu3 -n 3 --gres=gpu:3 -t 5 -A llm"}
    - {id: f4, submit: 0, runtime: 120, user: alice, args: "-p gpu -w gpu4 -n 3 --gres=gpu:3 -t 5 -A llm"}
"""  # noqa: E501


@pytest.mark.parametrize(
    "probe,node",
    [
        ("-n 1 --gres=gpu:1", "gpu1"),  # real Slurm (probe E2)
        ("--gres=gpu:1", "gpu3"),  # no -n: open task count, the tightest node
        ("-n 1 -c 2 --gres=gpu:1", "gpu1"),
        ("-N 1 --ntasks-per-node=2 --gres=gpu:1", "gpu1"),
        ("-n 1", "gpu3"),  # CPU-only: the tightest (real Slurm, probe E4)
    ],
)
def test_the_engine_places_gpu_jobs_as_real_slurm(realslurm_run, probe, node):
    """The engine starts each probe where Slurm's rule puts it in probe E2's state."""
    jobs = (
        _E2
        + f'- {{id: p, submit: 5, runtime: 30, user: bob, args: "-p gpu {probe} -t 2 -A llm"}}\n'
    )
    result = realslurm_run(jobs)
    assert result.jobs.set_index("JobID").loc["p", "NodeList"] == node


def test_a_planned_one_task_gpu_job_is_planned_on_the_first_fitting_node(realslurm_run):
    """Backfill's plan (SCHEDNODES) uses the same rule: with every GPU held until 120 s on
    gpu1 and gpu2 and until 60 s on gpu3 and gpu4 (gpu4 tighter), a waiting `-n 1
    --gres=gpu:1` job starts on gpu3 when its jobs end (50 s). Its plan before then follows
    the will-run test's batches (cons_common/job_test.c _will_run_test): the ends at 60 s
    round up to 90, and the end at 120 s falls within 90 + 30, so all three are freed in one
    batch and the job is planned at the last one's end, 120 s, on the best fit of the idle
    gpu[1-3], gpu1."""
    jobs = """\
        - {id: a, submit: 0, runtime: 110, user: alice, args: "-p gpu -w gpu[1-2] -N 2 --gres=gpu:4 -t 2 -A llm"}
        - {id: b, submit: 0, runtime: 50, user: alice, args: "-p gpu -w gpu3 -n 2 --gres=gpu:4 -t 1 -A llm"}
        - {id: c, submit: 0, runtime: 50, user: alice, args: "-p gpu -w gpu4 -n 8 --gres=gpu:4 -t 1 -A llm"}
        - {id: d, submit: 0, runtime: 200, user: alice, args: "-p gpu -w gpu4 -n 6 -t 5 -A llm"}
        - {id: p, submit: 5, runtime: 30, user: bob, args: "-p gpu -n 1 --gres=gpu:1 -t 2 -A llm"}
    """  # noqa: E501
    result = realslurm_run(jobs)
    assert result.jobs.set_index("JobID").loc["p", "NodeList"] == "gpu3"
    start = result.squeue(at=20.0).set_index("JOBID")
    assert start.loc["p", "SCHEDNODES"] == "gpu1"
    assert start.loc["p", "START_TIME"] == result.origin + pd.Timedelta(seconds=120)


def test_a_pending_node_range_jobs_size_counts_its_planned_nodes(realslurm_run):
    """job_ptr->total_cpus, which the job size factor counts, is set by backfill's will-run
    test to the CPUs of the nodes it plans: a `-N 1-2 --gres=gpu:2` job planned on gpu1 alone
    (the others are held for long) has sprio JOBSIZE 87 ((1/6 + 1/128) / 2), as in real Slurm,
    not 91 (the two nodes it would get on an idle partition)."""
    jobs = """\
        - {id: b1, submit: 0, runtime: 100, user: alice, args: "-p gpu -w gpu1 -n 1 --gres=gpu:4 -t 2:00 -A llm"}
        - {id: b234, submit: 0, runtime: 400, user: alice, args: "-p gpu -N 3 -w gpu[2-4] --gres=gpu:4 -t 10:00 -A llm"}
        - {id: range, submit: 5, runtime: 30, user: carol, args: "-p gpu -N 1-2 --gres=gpu:2 -t 3:00 -A vision"}
    """  # noqa: E501
    result = realslurm_run(jobs)
    sprio = result.sprio(90).set_index("JOBID")
    assert sprio.loc["range", "JOBSIZE"] == 87
