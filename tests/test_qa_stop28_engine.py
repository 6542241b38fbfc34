"""Stop 28's engine findings: a scripted cancel of an ended job, the pending reason in a
maintenance window under every policy, and MinJobAge (slurmctld purging ended jobs)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import slurmlab
from slurmlab import Cluster, SlurmlabError

POLICIES = ("fifo", "easy", "conservative", "slurm")
MAINT_REASON = "ReqNodeNotAvail, Reserved for maintenance"


def _scenario(tmp_path, text: str) -> slurmlab.Scenario:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return slurmlab.Scenario.load(path)


def _run(scenario: slurmlab.Scenario, policy: str | None = None):
    """Run, returning the result and the warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = scenario.run(policy) if policy else scenario.run()
    return result, [str(w.message) for w in caught]


def _events(result) -> list[tuple]:
    return [(row.time, row.event, row.detail) for row in result.events.itertuples()]


def _cluster(min_job_age: str | None) -> Cluster:
    setting = "" if min_job_age is None else f"MinJobAge={min_job_age}\n"
    return Cluster.from_slurm_conf(
        setting + "NodeName=n[1-2] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES"
    )


# -- 1. a scripted cancel of a job that has ended ------------------------------------------------
def test_a_scripted_cancel_of_an_ended_job_is_refused_with_scancels_error(tmp_path):
    """scancel of a job that has ended fails ("Kill job error on job id N: Job/step already
    completing or completed"): a scenario's cancel action is refused as its release is, with
    a warning and a `refused` event (it was silently ignored)."""
    sc = _scenario(
        tmp_path,
        """cluster: tiny
jobs:
  - {id: a, submit: 0, runtime: 1h, args: "-N 1 -t 2:00:00"}
actions:
  - {at: 3720, action: cancel, job: a}
  - {at: 3720, action: release, job: a}
""",
    )
    result, messages = _run(sc)
    assert messages == [
        "action cancel a at t=3720s refused: scancel: error: Kill job error on job id a: "
        "Job/step already completing or completed",
        "action release a at t=3720s refused: scontrol release a: Job has already finished",
    ]
    assert _events(result) == [
        (0.0, "submit", ""),
        (0.0, "eligible", ""),
        (0.0, "start", "main"),
        (3600.0, "end", "COMPLETED"),
        (3720.0, "refused", "cancel a"),
        (3720.0, "refused", "release a"),
    ]
    assert result.jobs["State"].tolist() == ["COMPLETED"]


def test_lab_scancel_of_an_ended_job_still_warns_and_cancels_the_others():
    """Lab.scancel keeps scancel's warning for a job that has ended, and cancels the others."""
    lab = slurmlab.Lab("tiny")
    done = lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    lab.advance(120)
    waiting = lab.sbatch("-N 4 --exclusive -t 10 --begin=now+1hour", runtime=60)
    with pytest.warns(UserWarning) as caught:
        lab.scancel(f"{done} {waiting}")
    assert [str(w.message) for w in caught] == [
        f"scancel: error: Kill job error on job id {done}: Job/step already completing or completed"
    ]
    assert lab.sacct().set_index("JobID")["State"].to_dict() == {
        str(done): "COMPLETED",
        str(waiting): "CANCELLED",
    }


# -- 2. the pending reason in a maintenance window -----------------------------------------------
MAINT = """cluster: tiny
reservations:
  - {name: pm, start: 1h, duration: 1h, nodes: "node[1-4]", users: [root], flags: [maint]}
jobs:
  - {id: x, submit: "1:10:00", runtime: 5m, args: "-N 1 -t 10"}
  - {id: y, submit: "1:10:00", runtime: 5m, args: "-N 1 -t 10"}
"""


@pytest.mark.parametrize("policy", POLICIES)
def test_every_job_a_maintenance_window_keeps_out_shows_its_reason(tmp_path, policy):
    """A MAINT reservation over every node of the partition: Slurm's main scheduler tries
    each job (a job it keeps out does not stop the pass over its partition, job_scheduler.c
    ESLURM_RESERVATION_BUSY) and each gets 'ReqNodeNotAvail, Reserved for maintenance'
    (node_scheduler.c select_nodes); backfill sets no reason on a job it plans. So y shows it
    too, under every policy (it showed Priority under easy, conservative and slurm, and
    sacct's Reason was None under easy and conservative). The starts are unchanged. sacct
    keeps the reason's code, ReqNodeNotAvail (job_reason_string; the maintenance fixture)."""
    result, _ = _run(_scenario(tmp_path, MAINT), policy)
    queue = result.squeue(at="1:30:00").set_index("JOBID")["NODELIST(REASON)"].to_dict()
    assert queue == {"x": f"({MAINT_REASON})", "y": f"({MAINT_REASON})"}
    jobs = result.jobs.set_index("JobID")
    assert jobs["Reason"].to_dict() == {"x": "ReqNodeNotAvail", "y": "ReqNodeNotAvail"}
    assert jobs["Start"].dt.strftime("%H:%M").to_dict() == {"x": "02:00", "y": "02:00"}


BEHIND = """cluster: tiny
reservations:
  - {name: pm, start: 1h, duration: 1h, nodes: "node[1-4]", users: [root], flags: [maint]}
jobs:
  - {id: big, submit: 0, runtime: 50m, args: "-N 4 --exclusive -t 55"}
  - {id: s, submit: 10m, runtime: 5m, args: "-N 4 --exclusive -t 9"}
  - {id: y, submit: 10m, runtime: 5m, args: "-N 1 -t 2:00:00"}
"""


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_behind_one_that_blocks_its_partition_waits_for_priority_until_tried(
    tmp_path, policy
):
    """s (9 min, ending before the maintenance) waits for Resources and blocks its partition:
    Slurm's main scheduler skips y without trying it (Priority). Once s starts (big ends at
    50 min), y is tried: the maintenance keeps it out. Every policy says so."""
    result, _ = _run(_scenario(tmp_path, BEHIND), policy)

    def reasons(at):
        return result.squeue(at=at).set_index("JOBID")["NODELIST(REASON)"].to_dict()

    assert reasons("0:20:00") == {"big": "node[1-4]", "s": "(Resources)", "y": "(Priority)"}
    assert reasons("0:52:00") == {"s": "node[1-4]", "y": f"({MAINT_REASON})"}
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"big": "00:00", "s": "00:50", "y": "02:00"}


KEPT = """cluster: tiny
reservations:
  - {name: pm, start: 1h, duration: 1h, nodes: "node[1-4]", users: [root], flags: [maint]}
jobs:
  - {id: big, submit: 0, runtime: 50m, args: "-N 4 --exclusive -t 55"}
  - {id: y, submit: 10m, runtime: 5m, args: "-N 1 -t 2:00:00 --nice=1000"}
  - {id: s, submit: 20m, runtime: 5m, args: "-N 4 --exclusive -t 9"}
"""


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_the_maintenance_keeps_out_keeps_its_reason_behind_a_blocker(tmp_path, policy):
    """y is kept out by the maintenance from 10 min; s, ahead of it from 20 min (y's nice),
    waits for Resources and blocks the partition. Slurm's main scheduler then skips y and
    replaces only no reason or Resources with Priority ("Retaining previous scheduling
    Reason", job_scheduler.c); backfill sets none: y keeps its reason (under slurm it showed
    Priority from 20 to 50 min)."""
    result, _ = _run(_scenario(tmp_path, KEPT), policy)
    queue = result.squeue(at="0:30:00").set_index("JOBID")["NODELIST(REASON)"].to_dict()
    assert queue == {"big": "node[1-4]", "s": "(Resources)", "y": f"({MAINT_REASON})"}
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"big": "00:00", "y": "02:00", "s": "00:50"}


# -- 3. MinJobAge: slurmctld forgets an ended job ------------------------------------------------
def test_lab_requeue_of_a_job_that_ended_long_ago_is_refused():
    """slurmctld purges a job's record MinJobAge (300 s by default) after it ends; scontrol
    requeue then fails with 'Invalid job id specified' (the SRE's review: a job completed a
    day earlier ran again). scancel, hold and release fail alike; sacct keeps the job."""
    lab = slurmlab.Lab(_cluster(None), "easy")
    job = lab.sbatch("-J done -N 1 -t 60", runtime=600)
    lab.advance("1d")
    with pytest.raises(SlurmlabError) as caught:
        lab.requeue(job)
    assert str(caught.value) == (
        f"scontrol requeue {job}: Invalid job id specified (it ended at t=600s, more than "
        "MinJobAge=300 s before t=86400s, so slurmctld has purged its record; sacct still "
        "lists it): submit it again, or set MinJobAge higher (0 keeps every record)"
    )
    for act, command in (
        (lab.scancel, "scancel: error: Kill job error on job id"),
        (lab.hold, "scontrol hold"),
        (lab.release, "scontrol release"),
    ):
        with pytest.raises(SlurmlabError, match=f"^{command} {job}: Invalid job id specified"):
            act(job)
    lab.run()
    assert lab.sacct(duplicates=True)["State"].tolist() == ["COMPLETED"]


@pytest.mark.parametrize(
    ("min_job_age", "after", "runs"),
    [
        (None, 300, ["REQUEUED", "COMPLETED"]),  # the default, 300 s: just in time
        (None, 301, ["COMPLETED"]),  # one second too late
        ("600", 500, ["REQUEUED", "COMPLETED"]),
        ("600", 700, ["COMPLETED"]),
        ("0", 86400, ["REQUEUED", "COMPLETED"]),  # 0: no record is ever purged
    ],
)
def test_a_job_can_be_requeued_while_slurmctld_keeps_its_record(min_job_age, after, runs):
    """MinJobAge (slurm.conf(5); 0 "prevents any job record purging"): a job that ended
    more than that long ago is refused; one that ended less (or as) long ago runs again
    (its finished run's record rewritten REQUEUED: job_mgr.c _job_requeue_op)."""
    lab = slurmlab.Lab(_cluster(min_job_age), "easy")
    job = lab.sbatch("-N 1 -t 60", runtime=600)
    lab.advance(600 + after)
    try:
        lab.requeue(job)
    except SlurmlabError as exc:
        assert "Invalid job id specified" in str(exc)
    lab.run()
    assert lab.sacct(duplicates=True)["State"].tolist() == runs


def test_purged_tasks_of_an_array_are_left_out_and_a_purged_task_is_refused():
    """Each task of an array is purged by its own end: scancel of the array cancels the
    tasks slurmctld still holds; naming a purged task alone is refused."""
    lab = slurmlab.Lab("tiny")
    arr = lab.sbatch("--array=1-2%1 -N 4 --exclusive -t 20", runtime=600)
    lab.advance(1000)  # task 1 ended at 600 (purged at 900), task 2 runs
    lab.scancel(arr)
    with pytest.raises(SlurmlabError, match=f"^scontrol requeue {arr}_1: Invalid job id"):
        lab.requeue(f"{arr}_1")
    states = lab.sacct().set_index("JobID")["State"].to_dict()
    assert states == {f"{arr}_1": "COMPLETED", f"{arr}_2": "CANCELLED"}


def test_lab_scancel_cancels_the_others_and_names_a_purged_job():
    """A purged job among scancel's ids is an error (raised once the others are done, as
    scancel handles each id on its own: stop 41)."""
    lab = slurmlab.Lab("tiny")
    old = lab.sbatch("-N 1 -t 10", runtime=60)
    lab.advance(1000)
    waiting = lab.sbatch("-N 1 -t 10 --begin=now+1hour", runtime=60)
    with pytest.raises(SlurmlabError, match=f"Kill job error on job id {old}: Invalid job id"):
        lab.scancel([waiting, old])
    assert lab.sacct().set_index("JobID").loc[str(waiting), "State"] == "CANCELLED"


def test_scenario_actions_on_a_purged_job_are_refused_with_warnings(tmp_path):
    """A scenario's requeue, requeuehold and cancel of a job that ended more than MinJobAge
    ago: warnings (scontrol's and scancel's errors) and `refused` events; the run goes on."""
    sc = _scenario(
        tmp_path,
        """cluster: tiny
jobs:
  - {id: a, submit: 0, runtime: 1h, args: "-N 1 -t 2:00:00"}
actions:
  - {at: 2h, action: requeue, job: a}
  - {at: 2h, action: requeuehold, job: a}
  - {at: 2h, action: cancel, job: a}
""",
    )
    result, messages = _run(sc)
    purged = (
        "Invalid job id specified (it ended at t=3600s, more than MinJobAge=300 s before "
        "t=7200s, so slurmctld has purged its record; sacct still lists it): submit it again, "
        "or set MinJobAge higher (0 keeps every record)"
    )
    assert messages == [
        f"action requeue a at t=7200s refused: scontrol requeue a: {purged}",
        f"action requeuehold a at t=7200s refused: scontrol requeuehold a: {purged}",
        f"action cancel a at t=7200s refused: scancel: error: Kill job error on job id a: {purged}",
    ]
    assert _events(result)[-3:] == [
        (7200.0, "refused", "requeue a"),
        (7200.0, "refused", "requeuehold a"),
        (7200.0, "refused", "cancel a"),
    ]
    assert result.jobs_all_runs["State"].tolist() == ["COMPLETED"]


def test_a_min_job_age_that_is_no_number_of_seconds_is_an_error():
    """slurm.conf MinJobAge is a whole number of seconds."""
    with pytest.raises(SlurmlabError) as caught:
        slurmlab.Lab(_cluster("5min"))
    assert str(caught.value) == (
        "slurm.conf MinJobAge='5min': must be a whole number of seconds, e.g. 300 (the "
        "default; 0 keeps every finished job's record)"
    )


def test_the_time_of_a_purge_is_the_end_plus_min_job_age():
    """(The date a record is gone: the job's End in sacct plus MinJobAge.)"""
    lab = slurmlab.Lab(_cluster("120"), "easy")
    job = lab.sbatch("-N 1 -t 60", runtime=60)
    lab.advance(60 + 120)
    end = lab.sacct().set_index("JobID").loc[str(job), "End"]
    assert end == lab.result.origin + pd.Timedelta(seconds=60)
    with pytest.raises(SlurmlabError, match="Job has already finished"):
        lab.hold(job)  # 120 s after its end: still held by slurmctld
    lab.advance(1)
    with pytest.raises(SlurmlabError, match="Invalid job id specified"):
        lab.hold(job)
