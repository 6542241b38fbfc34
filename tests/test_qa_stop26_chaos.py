"""QA stop 26: a tester combining features at random (failures, preemption, reservations,
actions, checkpoints under every policy). Two interactions were wrong; each test quotes the
minimal case."""

from __future__ import annotations

import warnings

import pytest

from slurmlab.scenario import Scenario

PREEMPT = {
    "cluster": {
        "nodes": [{"name": "n1", "cpus": 2, "memory": 4000}],
        "settings": {"PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"},
    },
    "qos": [
        {"name": "low", "grace_time": 120},
        {"name": "high", "priority": 10, "preempt": ["low"]},
    ],
}


def test_work_done_in_a_grace_time_counts_when_the_job_ends_in_it():
    # v is preempted at 100 with 120 s of grace and ends its 150 s of work at 150, inside
    # its grace time: it ends COMPLETED, once, its work all useful (job_mgr.c _job_complete
    # takes the state from its exit; preempt.c requeues only at the grace end), and p
    # starts then
    doc = {
        **PREEMPT,
        "jobs": [
            {"id": "v", "submit": 0, "runtime": 150, "args": "-n 2 -t 10 --qos=low"},
            {"id": "p", "submit": 100, "runtime": 60, "args": "-n 2 -t 10 --qos=high"},
        ],
    }
    r = Scenario.from_dict(doc).run()
    runs = r.runs[r.runs["JobID"] == "v"]
    assert runs["State"].tolist() == ["COMPLETED"]
    assert runs["useful_s"].tolist() == [150.0]
    assert r.goodput().set_index("JobID").loc["v", "goodput"] == pytest.approx(1.0)
    assert r.runs.set_index("JobID").loc["p", "Start"] == r.runs.set_index("JobID").loc["v", "End"]


def test_resuming_a_failed_node_before_its_repair_leaves_it_down():
    # n1 fails at 10 for 1,000 s; an admin resume at 15 brought it back at once and `a` ran
    # on the broken node from 20. Slurm allocates nothing on a node that does not respond
    doc = {
        "cluster": {"nodes": [{"name": "n1", "cpus": 2, "memory": 4000}]},
        "jobs": [{"id": "a", "submit": 20, "runtime": 60, "args": "-n 1 -t 10"}],
        "failures": [{"node": "n1", "at": 10, "down_for": 1000}],
        "actions": [{"at": 15, "action": "resume", "node": "n1"}],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = Scenario.from_dict(doc).run()
    assert r.seconds("Start").tolist() == [1010.0]
    assert r.sinfo(at=500)["STATE"].tolist() == ["down*"]
    assert any("returns to service when repaired" in str(w.message) for w in caught)


def test_draining_then_resuming_a_failed_node_leaves_it_down_until_its_repair():
    # a drain turned the failed node's state into DRAIN, so the resume that followed
    # brought it back at once, and `a` ran on it 980 s before its repair
    doc = {
        "cluster": {"nodes": [{"name": "n1", "cpus": 2, "memory": 4000}]},
        "jobs": [{"id": "a", "submit": 30, "runtime": 60, "args": "-n 1 -t 10"}],
        "failures": [{"node": "n1", "at": 10, "down_for": 1000}],
        "actions": [
            {"at": 15, "action": "drain", "node": "n1"},
            {"at": 20, "action": "resume", "node": "n1"},
        ],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the resume's warning)
        r = Scenario.from_dict(doc).run()
    assert r.seconds("Start").tolist() == [1010.0]
    # drained while down, not resumed after the repair: it comes back drained
    doc["actions"] = doc["actions"][:1]
    r = Scenario.from_dict(doc).run(until=2000)
    assert r.jobs["State"].tolist() == ["PENDING"]
    assert r.sinfo(at=1500)["STATE"].tolist() == ["drain"]
