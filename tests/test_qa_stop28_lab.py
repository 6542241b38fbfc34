"""Stop 28: a workshop instructor's live demo of preemption, QOS and reservations in a Lab
(the review's findings, each with its input and exact outcome)."""

from __future__ import annotations

import warnings

import pytest

import slurmlab
from slurmlab.errors import SlurmlabError

CONF = """ClusterName=demo
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PreemptType=preempt/qos
PreemptMode=REQUEUE
GresTypes=gpu
NodeName=node[1-4] CPUs=16 RealMemory=64000 Gres=gpu:2
PartitionName=main Nodes=node[1-4] Default=YES MaxTime=1-00:00:00 State=UP
"""


def _lab(grace: float = 0, **kw) -> slurmlab.Lab:
    qos = [
        slurmlab.Qos("normal"),
        slurmlab.Qos("scavenger", grace_time=grace),
        slurmlab.Qos("high", priority=100, preempt=["scavenger"]),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return slurmlab.Lab(slurmlab.Cluster.from_slurm_conf(CONF), qos=qos, **kw)


def _runs(lab) -> list[tuple[str, str, str, str]]:
    table = lab.sacct(duplicates=True)
    return [
        (r.JobName, r.State, str(r.Start)[11:19], str(r.End)[11:19]) for r in table.itertuples()
    ]


def _preempted_then_requeued(trigger) -> slurmlab.Lab:
    """scav (scavenger) runs on all four nodes; urgent (high) preempts it at 10 min; then
    ``trigger`` takes urgent off its node, and urgent becomes eligible again."""
    lab = _lab()
    lab.sbatch("-N 4 --exclusive -t 2:00:00 --qos=scavenger -J scav", runtime="90m")
    lab.advance("10m")
    urgent = lab.sbatch("-N 1 --exclusive -t 30 --qos=high -J urgent", runtime="20m")
    lab.advance("1m")
    trigger(lab, urgent)
    lab.advance("5m")
    return lab


def test_a_preemptor_requeued_preempts_its_old_victim_again():
    """The review's bug: once urgent's victim had been requeued and restarted, urgent pended
    (Resources) until the victim ended (01:42), as if the victim were still in its GraceTime.
    Slurm preempts the victim's new run as it did the first (preempt.html)."""
    lab = _preempted_then_requeued(lambda lab, urgent: lab.requeue(urgent))
    assert _runs(lab) == [
        ("scav", "PREEMPTED", "00:00:00", "00:10:00"),
        ("scav", "PREEMPTED", "00:12:01", "00:13:01"),
        ("scav", "PENDING", "", ""),
        ("urgent", "REQUEUED", "00:10:00", "00:11:00"),
        ("urgent", "RUNNING", "00:13:01", ""),
    ]


def test_a_preemptor_whose_node_failed_preempts_again_once_eligible():
    lab = _preempted_then_requeued(lambda lab, urgent: lab.fail("node1", down_for="2m"))
    runs = _runs(lab)
    assert ("urgent", "NODE_FAIL", "00:10:00", "00:11:00") in runs
    assert runs[-1][:3] == ("urgent", "RUNNING", "00:13:01")
    assert ("scav", "PREEMPTED", "00:13:00", "00:13:01") in runs


def test_why_pending_names_the_victims_in_their_grace_time():
    lab = _lab(grace=60)
    lab.sbatch("-N 4 --gres=gpu:2 -t 2:00:00 --qos=scavenger -J scav", runtime="90m")
    lab.advance("10m")
    urgent = lab.sbatch("-N 1 --gres=gpu:2 -t 30 --qos=high -J urgent", runtime="20m")
    assert lab.why_pending(urgent) == (
        "Job 2 is pending (Resources): it is first in line in partition main but the "
        "resources it needs are busy. squeue --start shows it expected to start at t=660s "
        "(2026-01-05T00:11:00) on node1. It is preempting job 1 (until t=660s, "
        "2026-01-05T00:11:00): a preempted job runs on for its QOS's GraceTime, and this job "
        "starts on the nodes it frees at t=660s (2026-01-05T00:11:00)."
    )
    lab.advance(60)
    assert lab.squeue()["ST"].tolist().count("R") == 1  # urgent runs, scav pends again


@pytest.mark.parametrize("ids", ["2,3", "2 3", [2, 3], ("2", "3")])
def test_hold_and_release_take_scontrols_job_list(ids):
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 60 -J blocker", runtime="1h")
    for name in ("a", "b"):
        lab.sbatch(f"-N 1 --exclusive -t 10 -J {name}")
    lab.hold(ids)
    assert set(lab.squeue().set_index("JOBID").loc[["2", "3"], "NODELIST(REASON)"]) == {
        "(JobHeldUser)"
    }
    lab.release(ids)
    assert "(JobHeldUser)" not in set(lab.squeue()["NODELIST(REASON)"])


def test_a_job_list_with_a_refused_job_does_the_others_and_says_which():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 60 -J blocker", runtime="1h")
    lab.sbatch("-N 1 --exclusive -t 10 -J a")
    with pytest.raises(SlurmlabError) as info:
        lab.requeue("1,2")  # 2 is pending: refused, 1 is requeued
    assert str(info.value) == (
        "scontrol requeue 2: Job is pending execution (1 of the 2 jobs named was done)"
    )
    assert lab.sacct(duplicates=True)["State"].tolist()[0] == "REQUEUED"


def test_an_unknown_id_in_a_job_list_is_an_error_and_the_others_are_held():
    """scontrol's _next_job_id loop handles each id on its own (stop 41: before, one unknown
    id changed nothing)."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 60 -J blocker", runtime="1h")
    lab.sbatch("-N 1 --exclusive -t 10 -J a")
    with pytest.raises(SlurmlabError, match="Invalid job id specified: '9'"):
        lab.hold("2,9")
    assert "(JobHeldUser)" in set(lab.squeue()["NODELIST(REASON)"])


def test_a_maintenance_window_created_now_on_a_running_lab():
    """scontrol create reservation on a running lab: its start counts from now; nodes a
    running job holds past the start are busy; node_count takes the lowest free nodes; the
    waiting jobs are planned around it from the next pass."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 60 -J long", runtime="1h")
    lab.advance("5m")
    with pytest.raises(SlurmlabError) as info:
        lab.reserve("pm", "2h", nodes="node[1-4]", users="root", flags="maint")
    assert str(info.value) == (
        "reservation 'pm': Requested nodes are busy: node1 is held by job 1 (until t=3600s) "
        "over an overlapping window; pick other nodes or another time"
    )
    assert lab.reserve("pm", "2h", start="10m", node_count=2, users="root", flags="maint") == (
        "node2",
        "node3",
    )
    assert lab.reserve("alice_r", "1h", nodes="node4", users="alice") == ("node4",)
    wide = lab.sbatch("-N 2 -t 30 -J wide", runtime="10m")
    mine = lab.sbatch("-N 1 -t 10 -J ok --reservation=alice_r", runtime="5m", user="alice")
    lab.advance("1m")
    queue = lab.squeue().set_index("JOBID")
    # (node1, the one node the reservations leave it, could not hold it idle, and it is
    # not busy for it -- 'long' shares its node: select's ESLURM_NODE_NOT_AVAIL)
    assert (
        queue.loc[str(wide), "NODELIST(REASON)"]
        == "(ReqNodeNotAvail, May be reserved for other job)"
    )
    assert queue.loc[str(mine), "NODELIST(REASON)"] == "node4"
    events = lab.result.events
    created = events[events["event"] == "reservation_create"]
    assert list(zip(created["time"], created["detail"], strict=True)) == [
        (300.0, "pm"),
        (300.0, "alice_r"),
    ]
    lab.advance("10m")  # pm holds node[2-3] from 15 min
    assert lab.sinfo_text().count("maint") == 1


def test_a_reservation_name_in_use_or_a_past_start_is_refused():
    lab = slurmlab.Lab("tiny")
    lab.advance("1h")
    lab.reserve("r", "1h", nodes="node1", users="root")
    with pytest.raises(SlurmlabError, match="Reservation request name is in use"):
        lab.reserve("r", "1h", nodes="node2", users="root")
    with pytest.raises(SlurmlabError) as info:
        lab.sim.create_reservation(
            slurmlab.Reservation("old", 60, "1h", nodes="node2", users="root")
        )
    assert str(info.value) == (
        "reservation 'old': its start t=60s is before now (t=3600s): Reservation request has "
        "invalid start time"
    )


def test_a_scenario_of_a_cluster_alone_makes_a_lab(tmp_path):
    """jobs: [] (a cluster, its QOS and reservations for a live demo) is a scenario; a
    missing jobs section still says how to write one, and names jobs: []."""
    path = tmp_path / "demo.yaml"
    path.write_text(
        "cluster: tiny\n"
        "reservations:\n"
        "  - {name: pm, start: 1h, duration: 1h, node_count: 2, users: [root], flags: [maint]}\n"
        "jobs: []\n"
    )
    lab = slurmlab.Scenario.load(path).lab()
    lab.advance("1h")
    assert "  maint node[1-2]" in lab.sinfo_text()
    path.write_text("cluster: tiny\n")
    with pytest.raises(slurmlab.ScenarioError) as info:
        slurmlab.Scenario.load(path)
    assert str(info.value).endswith(
        "'jobs' must be a list of job entries; add one: '  - {submit: 0, runtime: 1h, args: "
        '"-N 1 -t 2:00:00"}\' (or write jobs: [] for a scenario of a cluster alone, for '
        "scenario.lab())"
    )
