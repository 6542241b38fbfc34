"""The synthetic workload generators: what their docstrings promise, and checked parameters."""

from __future__ import annotations

import numpy as np
import pytest

from slurmlab import Cluster, SlurmlabError, simulate
from slurmlab.spec.synthetic import ai_workload, pool_workload


def test_pool_widths_are_log_uniform_from_one_to_the_pool():
    """Widths cover 1..procs, 1 the commonest (log-uniform: P(w) ~ log((w+1)/w))."""
    widths = np.array([j.spec.ntasks for j in pool_workload(20_000, 128, seed=2).jobs])
    assert widths.min() == 1 and widths.max() == 128
    share = np.bincount(widths, minlength=129)[1:] / len(widths)
    assert share[0] == share.max()
    assert share[0] == pytest.approx(np.log(2) / np.log(129), abs=0.01)


def test_same_seed_same_workload_other_seed_other():
    def key(w):
        return [(j.spec.ntasks, j.submit, j.runtime) for j in w.jobs]

    assert key(pool_workload(200, 64, seed=3)) == key(pool_workload(200, 64, seed=3))
    assert key(pool_workload(200, 64, seed=3)) != key(pool_workload(200, 64, seed=4))


SMALL = Cluster.from_slurm_conf(
    "GresTypes=gpu\n"
    "NodeName=g[1-2] CPUs=16 RealMemory=64000 Gres=gpu:8\n"
    "NodeName=c1 CPUs=8 RealMemory=32000\n"
    "PartitionName=gpu Nodes=g[1-2] Default=YES MaxTime=2:00:00\n"
    "PartitionName=cpu Nodes=c1 MaxTime=1:00:00\n"
)


def test_every_ai_job_fits_the_cluster_it_was_made_for():
    """On 16-CPU 8-GPU nodes an 8-GPU job's tasks get 2 CPUs each (a 1-GPU job's one task
    keeps 4); data preparation gets the 8 CPUs of its 8-CPU node: every job runs (8-GPU
    jobs asked for 32 CPUs per node and data preparation for 16 before)."""
    work = ai_workload(200, SMALL, seed=0)
    result = simulate(SMALL, work, "easy")
    assert result.metrics["completed"] == 200
    assert {j.spec.cpus_per_task for j in work.jobs} == {2, 4, 8}


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: pool_workload(5, 8, load=0), "load=0 must be a number in"),
        (lambda: pool_workload(5, 8, load=float("nan")), "load=nan"),
        (lambda: pool_workload(5, 8, load=-1), "load=-1"),
        (lambda: pool_workload(5, 2.5), "procs 2.5"),
        (lambda: pool_workload(5, 8, seed=-1), "seed -1"),
        (lambda: ai_workload(2.5, "tiny"), "n_jobs 2.5"),
        (lambda: ai_workload(0, "tiny"), "n_jobs 0"),
        (lambda: ai_workload(5, "tiny", load="0.5"), "load='0.5'"),
    ],
)
def test_parameters_are_checked_and_named(call, needle):
    with pytest.raises(SlurmlabError, match=needle):
        call()
