"""Stop 44: a past view (``squeue(at=t)``, ``sprio(at=t)``) shows the job as it was at ``t``.

Each test stops a Lab at ``t`` (the live view) and compares it with the finished run's view
at ``t``: what the job became later (a requeue's begin time, the partition it ran in, an
update of its partition) must not leak into the earlier snapshot.
"""

from __future__ import annotations

import random
import warnings

import pandas as pd
import pytest

from slurmlab.scenario import Scenario


def _live_and_past(doc: dict, t: float):
    """The scenario's Lab stopped at ``t``, and its finished run (whose views look back)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = Scenario.from_dict(doc)
        return s.lab().advance(t), s.run()


def _one_node(jobs: list, failures: list) -> dict:
    return {
        "cluster": {
            "nodes": [{"name": "n1", "cpus": 4, "memory": 8000}],
            "partitions": [{"name": "p", "nodes": "n1", "default": True}],
        },
        "policy": "easy",
        "jobs": jobs,
        "failures": failures,
    }


def test_a_begin_time_wait_shows_the_begin_of_that_run_not_of_a_later_requeue():
    """squeue --start shows a job waiting for its --begin at that begin time; the begin a
    later NODE_FAIL requeue sets (its end + the 121 s requeue delay) is not that run's."""
    doc = _one_node(
        [{"id": "a", "submit": 0, "runtime": 1500, "args": "--begin=now+600"}],
        [{"node": "n1", "at": 1000, "down_for": 500}],
    )
    lab, r = _live_and_past(doc, 100)
    assert lab.squeue_text(start=True) == r.squeue_text(at=100, start=True)
    assert r.squeue(at=100)["START_TIME"].tolist() == [r.origin + pd.Timedelta(seconds=600)]


def test_a_requeued_run_waiting_shows_its_own_begin_not_the_next_requeues():
    """A job requeued twice: while its second run waits out the requeue delay, START_TIME
    is that run's begin (first failure + 121 s), not the third run's."""
    doc = _one_node(
        [{"id": "a", "submit": 0, "runtime": 1000}],
        [{"node": "n1", "at": 100, "down_for": 50}, {"node": "n1", "at": 300, "down_for": 50}],
    )
    lab, r = _live_and_past(doc, 150)
    assert lab.squeue_text(start=True) == r.squeue_text(at=150, start=True)
    assert r.squeue(at=150)["START_TIME"].tolist() == [r.origin + pd.Timedelta(seconds=221)]


_TWO = {
    "nodes": [
        {"name": "n1", "cpus": 4, "memory": 8000},
        {"name": "n2", "cpus": 4, "memory": 8000},
    ]
}


def test_a_pending_job_of_several_partitions_shows_the_nodes_of_its_partition_then():
    """NODES of a ``-n 18 -p p1,p0`` job waiting for its --begin: the node count in p1 (its
    first partition: 5 nodes of 4 CPUs), not in p0, where it runs later (one 32-CPU node)."""
    doc = {
        "cluster": {
            "nodes": [
                {"name": "n1", "cpus": 16, "memory": 64000},
                {"name": "n2", "cpus": 32, "memory": 16000},
                {"name": "n5", "cpus": 4, "memory": 8000},
            ],
            "partitions": [
                {"name": "p0", "nodes": "n1,n2,n5", "default": True},
                {"name": "p1", "nodes": "n5"},
            ],
        },
        "policy": "fifo",
        "jobs": [
            {"id": "a", "submit": 0, "runtime": 3000, "args": "-n 18 --begin=now+350 -p p1,p0"}
        ],
    }
    lab, r = _live_and_past(doc, 30)
    assert r.squeue(at=30)[["JOBID", "NODES"]].values.tolist() == [["a", 5]]
    assert lab.squeue_text() == r.squeue_text(at=30)
    assert r.squeue(at=400)[["PARTITION", "NODES"]].values.tolist() == [["p0", 1]]


def test_past_rows_are_ordered_by_the_partitions_of_that_time():
    """squeue sorts by the partition shown (-S P,t,-p): a pending ``-p b,a`` job ("b,a")
    after a job of "a", though it later runs in a."""
    doc = {
        "cluster": {
            **_TWO,
            "partitions": [
                {"name": "a", "nodes": "n1,n2", "default": True},
                {"name": "b", "nodes": "n2"},
            ],
        },
        "policy": "fifo",
        "jobs": [
            {"id": "x", "submit": 0, "runtime": 100, "args": "-t 5 -n 6 --begin=now+60 -p b,a"},
            {"id": "y", "submit": 0, "runtime": 100, "args": "-t 5 --begin=now+60 -p a"},
        ],
    }
    lab, r = _live_and_past(doc, 30)
    assert r.squeue(at=30)[["JOBID", "PARTITION"]].values.tolist() == [["y", "a"], ["x", "b,a"]]
    assert lab.squeue_text() == r.squeue_text(at=30)


def test_sprio_before_an_update_of_the_partition_lists_the_partition_of_then():
    """``scontrol update Partition=b`` at 100 s: sprio at 50 s lists the job in a."""
    doc = {
        "cluster": {
            **_TWO,
            "partitions": [
                {"name": "a", "nodes": "n1", "default": True},
                {"name": "b", "nodes": "n1,n2"},
            ],
            "settings": {
                "PriorityType": "priority/multifactor",
                "PriorityWeightJobSize": 100,
            },
        },
        "policy": "easy",
        "jobs": [{"id": "x", "submit": 0, "runtime": 100, "args": "-t 5 -N 2"}],
        "actions": [{"at": 100, "action": "update", "job": "x", "partition": "b"}],
    }
    lab, r = _live_and_past(doc, 50)
    assert r.sprio(at=50)[["JOBID", "PARTITION"]].values.tolist() == [["x", "a"]]
    pd.testing.assert_frame_equal(lab.sprio(), r.sprio(at=50))
    assert r.squeue(at=50)["PARTITION"].tolist() == ["a"]


def _random_scenario(seed: int) -> dict:
    """Three nodes, three partitions, jobs of one or several partitions (some with --begin,
    an array among them), two node failures (their jobs requeued), an update of a job's
    partition and perhaps a requeue, under priority/multifactor."""
    rng = random.Random(seed)
    jobs = []
    for i in range(8):
        size = rng.choice(["-n 1", "-n 3", "-n 6", "-N 2", "-n 10"])
        part = rng.choice(["a", "b", "c", "b,a", "c,b", "a,c"])
        if part == "c" and size in ("-N 2", "-n 10"):  # (c: one node of 8 CPUs)
            size = "-n 6"
        begin = f" --begin=now+{rng.randrange(30, 400)}" if rng.random() < 0.4 else ""
        jobs.append(
            {
                "id": f"j{i}",
                "submit": rng.randrange(0, 300),
                "runtime": rng.randrange(60, 500),
                "args": f"-t 10 {size} -p {part}{begin}",
            }
        )
    begin = f" --begin=now+{rng.randrange(30, 300)}" if rng.random() < 0.6 else ""
    jobs.append(
        {
            "id": "arr",
            "submit": rng.randrange(0, 200),
            "runtime": rng.randrange(60, 300),
            "args": f"-t 10 -n 3 --array=0-3%2 -p {rng.choice(['a', 'b,a'])}{begin}",
        }
    )
    failures = [
        {"node": rng.choice(["n1", "n2", "n3"]), "at": rng.randrange(50, 700), "down_for": 120}
        for _ in range(2)
    ]
    k = rng.randrange(8)
    actions = [
        {
            "at": jobs[k]["submit"] + rng.randrange(0, 300),
            "action": "update",
            "job": f"j{k}",
            "partition": rng.choice(["a", "b", "b,a"]),
        }
    ]
    if rng.random() < 0.5:
        k = rng.randrange(8)
        actions.append(
            {"at": jobs[k]["submit"] + rng.randrange(0, 300), "action": "requeue", "job": f"j{k}"}
        )
    return {
        "cluster": {
            "nodes": [
                {"name": "n1", "cpus": 4, "memory": 8000},
                {"name": "n2", "cpus": 8, "memory": 8000},
                {"name": "n3", "cpus": 8, "memory": 8000},
            ],
            "partitions": [
                {"name": "a", "nodes": "n1,n2,n3", "default": True},
                {"name": "b", "nodes": "n2,n3"},
                {"name": "c", "nodes": "n3"},
            ],
            "settings": {
                "PriorityType": "priority/multifactor",
                "PriorityWeightJobSize": 100,
                "PriorityWeightAge": 100,
            },
        },
        "policy": rng.choice(["easy", "slurm"]),
        "jobs": jobs,
        "failures": failures,
        "actions": actions,
    }


@pytest.mark.parametrize("seed", range(12))
def test_a_lab_stopped_at_t_shows_what_the_finished_run_shows_at_t(seed):
    """At any instant, the live squeue and sprio of a Lab stopped there are the finished
    run's views at that instant: with requeues, --begin, jobs of several partitions and
    updates of their partition. (The instants fall between whole seconds, where no event
    does.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = Scenario.from_dict(_random_scenario(seed))
        r = s.run()
        lab = s.lab()
        rng = random.Random(seed)
        for t in sorted(rng.randrange(1, 900) + 0.5 for _ in range(8)):
            lab.run(until=t)
            pd.testing.assert_frame_equal(lab.squeue(), r.squeue(at=t), obj=f"squeue at {t}")
            pd.testing.assert_frame_equal(lab.sprio(), r.sprio(at=t), obj=f"sprio at {t}")
