"""Stop 35: findings, each with its input and exact outcome."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster, JobSpec
from slurmlab.errors import RequestError

AI = Cluster.preset("ai")  # cpu[01-08]: 128 CPUs, 512000 MB, DefMemPerCPU=8000 in cpu


def resolved(args: str, cluster: Cluster = AI):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = JobSpec.from_args(args.split()).resources(cluster)
    return res, [str(w.message) for w in caught]


def test_a_node_range_with_more_tasks_than_min_holds_is_no_longer_refused():
    """``-N 1-4 -n 200 -p cpu``: Slurm accepts it (200 CPUs, up to 4 nodes) and spreads the
    tasks; slurmlab refused it ("the job needs 200 CPUs per node ... largest node has 128").
    With DefMemPerCPU=8000 a node's 512000 MB hold 64 of its CPUs, so the tasks need 4
    nodes: 50 each, the shape Slurm gives on 4 free nodes (no warning: MAX is taken)."""
    res, said = resolved("-N 1-4 -n 200 -p cpu")
    assert (res.nodes, res.tasks_per_node, res.cpus_per_node) == (4, (50,) * 4, 50)
    assert res.mem_per_node_mb == 400000 and res.max_nodes is None
    assert said == []


def test_the_fewest_nodes_the_tasks_fit_on_is_said_in_the_warning():
    """With memory per node (``--mem=100G``) CPUs decide: 2 nodes of 100 tasks, and the
    warning says why it is not MIN."""
    res, said = resolved("-N 1-4 -n 200 -p cpu --mem=100G")
    assert (res.nodes, res.tasks_per_node) == (2, (100, 100))
    assert said == [
        "--nodes=1-4 with -n 200: slurmlab allocates 2 nodes (the fewest its tasks fit on), as "
        "its shape per node depends on the node count; Slurm takes up to 4 nodes when they are "
        "free and spreads the tasks over them; write --nodes=2 or --nodes=4 for a fixed count, "
        "or --ntasks-per-node for a shape per node"
    ]


def test_tasks_that_fit_on_min_still_get_min_with_the_warning():
    res, said = resolved("-N 1-4 -n 64 -p cpu")
    assert (res.nodes, res.tasks_per_node) == (1, (64,))
    assert said and "allocates 1 node (the minimum)" in said[0]


def test_tasks_that_do_not_fit_on_max_are_refused_with_maxs_shape():
    """``-N 1-2 -n 300``: even 2 nodes cannot hold 150 tasks each; the error names the
    shape on MAX nodes, not on MIN."""
    with pytest.raises(RequestError, match=r"needs 150 CPUs per node \(150 tasks of 1 CPU"):
        JobSpec.from_args(["-N", "1-2", "-n", "300", "-p", "cpu"]).resources(AI)
