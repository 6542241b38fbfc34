"""Node selection as select/cons_tres does it (placement.py), on small hand-made states.

Each case states the free (CPUs, MB, GPUs) per node and the nodes Slurm 22.05's
``_eval_nodes`` picks; the ``placement`` fixture of datasets/realslurm checks the same rules
against real Slurm (tests/test_fidelity.py), and tests/test_profile_speed_equivalence.py
compares the implementation with a line-by-line transcription of the C code on random states.
"""

from __future__ import annotations

import numpy as np
import pytest

import slurmlab
from slurmlab.policies.placement import Request, choose_nodes


def pick(free, demand, count=1, *, mask=None, weights=None, mem_per_cpu=0, exclusive=False):
    free = np.array(free, dtype=np.int64)
    capacity = np.array([[16, 64000, 4]] * len(free), dtype=np.int64)
    mask = np.ones(len(free), dtype=bool) if mask is None else np.array(mask)
    weights = None if weights is None else np.array(weights)
    request = Request(np.array(demand), count, exclusive, mem_per_cpu)
    return choose_nodes(free, capacity, request, mask, weights)


def test_the_fewest_available_cpus_not_the_fewest_free_gpus():
    # (placement block 1) node 0: 4 CPUs, 3 GPUs free; node 1: 11 CPUs, 1 GPU free
    assert pick([[4, 60000, 3], [11, 60000, 1], [16, 64000, 4]], [1, 1000, 1]) == (0,)


def test_a_tight_run_beats_a_tight_node_in_a_looser_run():
    # (block 2) node 1 has no GPU free and splits the nodes into runs {0} and {2, 3}: the
    # run with the fewest CPUs (10 against 4 + 16) wins, though node 2 is the tightest node
    free = [[10, 60000, 2], [15, 60000, 0], [4, 60000, 2], [16, 64000, 4]]
    assert pick(free, [1, 1000, 1]) == (0,)
    assert pick(free, [1, 1000, 0]) == (2,)  # a CPU-only job: one run, the tightest node


def test_a_multi_node_job_takes_the_runs_nodes_in_order():
    # (block 3) one run of four: its first two nodes, not the two tightest
    free = [[16, 64000, 4], [16, 64000, 4], [4, 60000, 2], [4, 60000, 2]]
    assert pick(free, [1, 1000, 1], 2) == (0, 1)


def test_a_run_with_enough_nodes_first():
    # (block 5) runs {0} (4 CPUs) and {2, 3} (32): only the second has two nodes
    free = [[4, 60000, 1], [15, 60000, 0], [16, 64000, 4], [16, 64000, 4]]
    assert pick(free, [1, 1000, 1], 2) == (2, 3)


def test_a_later_run_too_small_but_with_more_cpus_replaces_one_big_enough():
    # (block 6) runs {0, 1} (2 + 2 CPUs, enough nodes) and {3} (16 CPUs, one node): Slurm
    # takes node 3 first, then the tightest of the first run
    free = [[2, 50000, 3], [2, 50000, 3], [15, 60000, 0], [16, 64000, 4]]
    assert pick(free, [1, 1000, 1], 2) == (0, 3)
    # the other way round (the big run later) the run with enough nodes stays chosen
    free = [[16, 64000, 4], [15, 60000, 0], [2, 50000, 3], [2, 50000, 3]]
    assert pick(free, [1, 1000, 1], 2) == (2, 3)


def test_cpus_count_as_far_as_free_memory_goes_for_memory_per_cpu():
    # (block 7) node 0: 14 CPUs but 4000 MB free; node 1: 8 CPUs, 56000 MB
    free = [[14, 4000, 3], [8, 56000, 3], [16, 64000, 4], [16, 64000, 4]]
    assert pick(free, [1, 1000, 1], mem_per_cpu=1000) == (0,)
    assert pick(free, [1, 1000, 1]) == (1,)  # memory per node (--mem): CPUs alone


def test_the_lowest_weight_first_even_without_enough_nodes():
    # runs {0, 1} (Weight 5) and {2} (Weight 1): the light node, then the best of the rest
    free = [[16, 64000, 4], [8, 64000, 4], [16, 64000, 4]]
    assert pick(free, [1, 1000, 0], weights=[5, 5, 1]) == (2,)
    assert pick(free, [1, 1000, 0], 2, weights=[5, 5, 1]) == (1, 2)


def test_exclusive_jobs_and_too_few_nodes():
    free = [[16, 64000, 4], [15, 63000, 4], [16, 64000, 4]]
    assert pick(free, [16, 64000, 4], 2, exclusive=True) == (0, 2)
    assert pick(free, [16, 64000, 4], 3, exclusive=True) is None
    assert pick(free, [1, 1000, 1], 2, mask=[False, True, False]) is None


def test_a_pending_jobs_request_is_made_from_its_fields():
    """A policy places a job by ``job.request``: made from the record's own fields, and made
    again when a record is derived from it (``dataclasses.replace``), so the two never
    disagree."""
    from dataclasses import replace

    from slurmlab.policies import PendingJob

    demand, mask = np.array([2, 1000, 1]), np.ones(4, dtype=bool)
    job = PendingJob(1, "p", demand, 2, mask, 60.0, True, mem_per_cpu=500, most=3,
                     gres_fixed=True, gpus_per_job=4, whole_memory=False)  # fmt: skip
    r = job.request
    assert (r.demand is demand, r.count, r.exclusive, r.mem_per_cpu, r.most) == (
        True, 2, True, 500, 3,
    )  # fmt: skip
    assert (r.gres_fixed, r.gpus_per_job, r.whole_memory, r.spread) == (True, 4, False, None)
    assert replace(job, most=4, exclusive=False).request.most == 4
    assert not replace(job, most=4, exclusive=False).request.exclusive


def test_spread_nodes_refuses_a_request_that_may_not_spread():
    """Only a job of ``-n`` without ``-N`` (``request.spread``) is spread over nodes; any
    other request is refused with the function to place it with."""
    from slurmlab.policies import spread_nodes

    free = np.array([[16, 64000, 4]] * 2)
    with pytest.raises(ValueError, match="place it with choose_nodes"):
        spread_nodes(free, Request(np.array([1, 1000, 0])), np.ones(2, dtype=bool))


@pytest.fixture
def lab(realslurm_cluster):
    return slurmlab.Lab(realslurm_cluster)


def test_the_lab_places_jobs_as_real_slurm_did(lab):
    """The placement fixture's block 7 typed into a Lab on the same slurm.conf: the probe
    goes to gpu1 (memory for 4 more CPUs) as in real Slurm, where free CPUs alone say gpu2.
    (A one-task GPU job, it takes the first fitting node anyway: tests/test_qa44_placement.py.)"""
    a = lab.sbatch("-n 2 --mem=60000 --gres=gpu:1 -w gpu1 -t 2:00 -p gpu -A llm --wrap=x")
    b = lab.sbatch("-n 8 --gres=gpu:1 -w gpu2 -t 2:00 -p gpu -A llm --wrap=x")
    probe = lab.sbatch("-n 1 --gres=gpu:1 -t 2:00 -p gpu -A llm --wrap=x")
    per_node = lab.sbatch("--mem=1000 --gres=gpu:1 -t 2:00 -p gpu -A llm --wrap=x")
    lab.advance("1s")
    nodes = lab.squeue().set_index("JOBID")["NODELIST(REASON)"]
    assert [nodes[str(j)] for j in (a, b, probe)] == ["gpu1", "gpu2", "gpu1"]
    # --mem is per node: CPUs alone count, gpu2 (8 free) is the tightest with a GPU (no -n:
    # its task count is open, so Slurm counts every node's free CPUs)
    assert nodes[str(per_node)] == "gpu2"


def test_a_request_is_one_demand_row_on_one_node_or_more():
    """A Request (what a custom policy or a notebook may build) refuses a demand that is not
    one (CPUs, MB, GPUs) row and a node count below one, naming the value."""
    with pytest.raises(ValueError, match="demand 5 is not one"):
        Request(5)
    with pytest.raises(ValueError, match="not one"):
        Request(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="count 0"):
        Request(np.array([1, 0, 0]), count=0)
    with pytest.raises(ValueError, match="most 0"):
        Request(np.array([1, 0, 0]), most=0)
    assert Request([1, 0, 0], count=2).count == 2
