"""QA 45: preemption grace, requeues, begin times and holds as Slurm 22.05 records them.

Each test quotes the minimal case a QA report found and the Slurm source it follows
(/tmp/slsrc/slurm-slurm-22-05-8-1). Times are seconds from the start; ``-t`` in minutes.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab import Checkpoint, Cluster, JobSpec, Lab, Qos, Workload, WorkloadJob, simulate
from slurmlab.errors import SlurmlabError
from slurmlab.scenario import Scenario

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"

PREEMPT = Cluster.from_slurm_conf(
    "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nPreemptType=preempt/qos\nPreemptMode=REQUEUE\n"
    "NodeName=m[1-2] CPUs=4 RealMemory=8000\n"
    "PartitionName=main Nodes=m[1-2] Default=YES MaxTime=INFINITE\n"
)
GRACE_QOS = (Qos("scavenger", grace_time=120), Qos("high", priority=1000, preempt=("scavenger",)))


def _runs(result, jid: str) -> list[tuple]:
    """The job's runs (sacct -D) as (State, Start, End) in seconds (None: no time)."""
    t = result.sacct(duplicates=True)
    t = t[t["JobID"] == jid]

    def sec(col):
        return [None if v != v else v for v in (t[col] - result.origin).dt.total_seconds()]

    return list(zip(t["State"], sec("Start"), sec("End"), strict=True))


# -- F1: an exit during GraceTime ----------------------------------------------------------------
@pytest.mark.parametrize("ckpt", [None, Checkpoint(interval=100)])
def test_a_victim_that_ends_during_its_grace_time_completes_and_is_not_requeued(ckpt):
    """scav (150 s of work) is preempted at 100 with 120 s of grace and ends by itself at
    150: COMPLETED, once, and urgent starts then. Slurm requeues a victim only at its grace
    end (preempt.c slurm_job_preempt returns while _job_check_grace_internal finds the grace
    running); a job exiting first gets its exit's state (job_mgr.c _job_complete). With a
    checkpoint the old rule gave it a second, empty run (00:00:00)."""
    jobs = [
        WorkloadJob(JobSpec.from_args("-N 2 --exclusive -t 60 -q scavenger"), 0, 150, id="scav",
                    checkpoint=ckpt),
        WorkloadJob(JobSpec.from_args("-N 2 --exclusive -t 10 -q high"), 100, 600, id="urgent"),
    ]  # fmt: skip
    r = simulate(PREEMPT, Workload(jobs), "easy", qos=GRACE_QOS)
    assert _runs(r, "scav") == [("COMPLETED", 0.0, 150.0)]
    assert _runs(r, "urgent") == [("COMPLETED", 150.0, 750.0)]
    assert r.metrics["requeues"] == 0
    assert r.metrics["goodput"] == pytest.approx(1.0)


def test_a_victim_still_running_at_its_grace_end_is_requeued():
    """The other side of the rule: scav needs 300 s, past its grace end (100 + 120): it is
    requeued then, PREEMPTED (preempt.c slurm_job_preempt -> job_requeue at the grace end)."""
    jobs = [
        WorkloadJob(JobSpec.from_args("-N 2 --exclusive -t 60 -q scavenger"), 0, 300, id="scav"),
        WorkloadJob(JobSpec.from_args("-N 2 --exclusive -t 10 -q high"), 100, 60, id="urgent"),
    ]
    r = simulate(PREEMPT, Workload(jobs), "easy", qos=GRACE_QOS)
    assert _runs(r, "scav")[0] == ("PREEMPTED", 0.0, 220.0)
    assert _runs(r, "urgent") == [("COMPLETED", 220.0, 280.0)]


# -- F2: scontrol requeue of a finished job --------------------------------------------------------
def test_requeue_of_a_finished_job_rewrites_its_run_as_requeued_ending_at_the_requeue():
    """A job that completed at 60, requeued at 100: sacct -D shows that run REQUEUED with End
    100 (job_mgr.c _job_requeue_op: end_time = now for a job not completing, job_state =
    JOB_REQUEUE before job_completion_logger; as_mysql_job.c as_mysql_job_complete rewrites
    the row, db_index still set). Its nodes were free from 60: squeue at 80 lists nothing."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-N 1 -t 10", runtime=60)
    lab.advance(100)
    lab.requeue(a)
    lab.run()
    r = lab.result
    assert [(s, st) for s, st, _e in _runs(r, "1")] == [("REQUEUED", 0.0), ("COMPLETED", 221.0)]
    assert _runs(r, "1")[0][2] == 100.0
    first = r.sacct(duplicates=True).iloc[0]
    assert first["Elapsed"].total_seconds() == 100.0
    assert r.squeue(at=80).empty
    assert r.node_usage(at=80)["CPUAlloc"].sum() == 0
    text = r.sacct_text("JobID,State,End,Elapsed", duplicates=True).splitlines()
    assert text[2].split() == ["1", "REQUEUED", "2026-01-05T00:01:40", "00:01:40"]


# -- F3: squeue --start of a held job with a begin time to come ----------------------------------
def test_squeue_start_shows_a_held_jobs_begin_time_as_real_slurm():
    """holds fixture (datasets/realslurm/holds/snapshots.txt): at t=50 requeueheld (requeued
    held at 30) shows 30+121 s and run_held (requeued at 40, held) 40+121 s, before the
    jobs without a start: job_mgr.c pack_job reports begin_time when there is no expected
    start and begin_time > now, whatever the reason."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = Scenario.load(DATA / "scenarios" / "holds.yaml").run()
    rows = r.squeue_text(at=50, start=True).splitlines()[1:]
    shown = [(line.split()[0], line.split()[5]) for line in rows]
    at = (r.origin + pd.Timedelta(seconds=s) for s in (151, 161))  # (the fixture's real t0)
    assert shown[:2] == [
        ("requeueheld", next(at).strftime("%Y-%m-%dT%H:%M:%S")),
        ("run_held", next(at).strftime("%Y-%m-%dT%H:%M:%S")),
    ]
    assert all(start == "N/A" for _job, start in shown[2:])


# -- F4: cancelled while waiting for a begin time --------------------------------------------------
def test_a_job_cancelled_before_its_begin_time_keeps_it_as_eligible_and_is_listed():
    """b (--begin=now+60) cancelled at 10; a cancelled at 80 in its requeue delay (begin
    181): slurmdbd has their begin times as Eligible from the first record
    (accounting_storage_slurmdbd.c _setup_job_start_msg: eligible_time = begin_time; job_mgr.c
    _job_create sets --begin's), which a cancel leaves, so plain sacct lists both once those
    times have passed (as_mysql_jobacct_process.c: time_eligible < end)."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-N 1 -t 10", runtime=300)
    b = lab.sbatch("-N 1 -t 10 --begin=now+60", runtime=60)
    lab.advance(10)
    lab.scancel(b)
    lab.advance(50)
    lab.fail("node1", down_for=30)
    lab.advance(20)
    lab.scancel(a)
    lab.advance(600)
    t = lab.sacct(duplicates=True)
    eligible = (t["Eligible"] - lab.result.origin).dt.total_seconds().tolist()
    assert list(zip(t["JobID"], t["State"], eligible, strict=True)) == [
        ("1", "NODE_FAIL", 0.0), ("1", "CANCELLED", 181.0), ("2", "CANCELLED", 60.0),
    ]  # fmt: skip
    assert lab.result.sacct_unlisted() == []
    listed = [line.split()[:2] for line in lab.sacct_text("JobID,State").splitlines()[2:]]
    assert listed == [["2", "CANCELLED"], ["1", "CANCELLED"]]


def test_a_job_cancelled_while_waiting_on_a_dependency_has_no_eligible_time():
    """One cancelled while it waits for a dependency never became eligible: Eligible stays
    Unknown (job_mgr.c job_independent never set its begin time), and plain sacct hides it."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-N 1 -t 10", runtime=300)
    b = lab.sbatch(f"-N 1 -t 10 --dependency=afterok:{a}", runtime=60)
    lab.advance(10)
    lab.scancel(b)
    lab.advance(10)
    row = lab.sacct().set_index("JobID").loc["2"]
    assert row["State"] == "CANCELLED" and row["Eligible"] != row["Eligible"]  # (NaT)
    assert lab.result.sacct_unlisted() == ["2"]


# -- F5: sacct -j with a scenario id holding an underscore ---------------------------------------
def test_sacct_jobs_takes_a_scenario_id_with_an_underscore():
    """node-failure's ``after_drain`` is a job's id, not task ``drain`` of array ``after``:
    ``X_N`` is an array task only when N is a number (sacct's slurm_addto_step_list), while
    ``2_-1`` is still refused as sacct refuses it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = Scenario.load(DATA / "scenarios" / "node-failure.yaml").run()
    assert r.sacct_text("JobID,State", jobs="after_drain").splitlines()[2].split() == [
        "after_drain", "COMPLETED",
    ]  # fmt: skip
    with pytest.raises(SlurmlabError, match="Bad job/step specified"):
        r.sacct_text("JobID,State", jobs="2_-1")


# -- D4: a user may not release an administrator's hold ------------------------------------------
HOLD_DOC = {
    "cluster": "tiny",
    "jobs": [
        {"id": "a", "submit": 0, "runtime": 3600, "args": "-N 4 --exclusive -t 2:00:00"},
        {"id": "b", "submit": 10, "runtime": 3600, "args": "-N 1 -t 30"},
    ],
    "actions": [{"at": 20, "action": "hold", "job": "b"}],
}


def test_the_labs_user_cannot_release_an_administrators_hold():
    """b held by a scenario action (JobHeldAdmin): ``lab.release`` is refused in scontrol's
    words, the job stays held (job_mgr.c _update_job: a non-operator releases only a
    WAIT_HELD_USER or WAIT_RESV_DELETED hold, else ESLURM_ACCESS_DENIED; scontrol
    update_job.c prints "Access/permission denied for job b"); the administrator may."""
    lab = Scenario.from_dict(HOLD_DOC).lab()
    lab.advance(30)
    with pytest.raises(SlurmlabError) as info:
        lab.release("b")
    assert str(info.value).startswith("scontrol release b: Access/permission denied for job b")
    assert "admin=True" in str(info.value)
    assert lab.result.squeue().set_index("JOBID").loc["b", "NODELIST(REASON)"] == "(JobHeldAdmin)"
    lab.release("b", admin=True)  # (the Lab's pass follows at once, as for any command)
    assert lab.result.squeue().set_index("JOBID").loc["b", "NODELIST(REASON)"] == "(Resources)"
    lab.hold("b", admin=True)
    assert lab.result.squeue().set_index("JOBID").loc["b", "NODELIST(REASON)"] == "(JobHeldAdmin)"


def test_a_scenario_release_action_releases_an_administrators_hold():
    """A scenario's actions are an administrator's (the operator may release any hold)."""
    doc = {
        **HOLD_DOC,
        "actions": [*HOLD_DOC["actions"], {"at": 40, "action": "release", "job": "b"}],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a refused action would warn)
        r = Scenario.from_dict(doc).run(until=60)
    assert r.squeue(at=50).set_index("JOBID").loc["b", "NODELIST(REASON)"] == "(Resources)"


def test_the_labs_user_releases_a_users_hold():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    b = lab.sbatch("-N 1 -t 10 -H", runtime=60)
    lab.release(b)
    assert lab.result.squeue().set_index("JOBID").loc[str(b), "NODELIST(REASON)"] == "(Resources)"


# -- D5: squeue -l's date ----------------------------------------------------------------------------
def test_squeue_long_zero_pads_the_day():
    """squeue.c print_date -> slurm_time.c slurm_ctime2_r: "%a %b %d %T %Y"."""
    assert slurmlab.Lab("tiny").squeue_text(long=True).splitlines()[0] == "Mon Jan 05 00:00:00 2026"


# -- D7: sacct -S after now ----------------------------------------------------------------------
def test_sacct_start_after_now_is_an_error_in_saccts_words():
    """sacct without -E ends its window now + 1 s (slurmdb_defs.c
    slurmdb_job_cond_def_start_end); a later -S is "Start time (...) requested is after end
    time (...)." and exit 1 (sacct options.c)."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-t 50")
    with pytest.raises(SlurmlabError) as info:
        lab.sacct_text(starttime="1h")
    assert str(info.value).startswith(
        "Start time (2026-01-05T01:00:00) requested is after end time (2026-01-05T00:00:01)."
    )
    assert lab.sacct_text(starttime=1).splitlines()[2].split()[0] == "1"  # (now + 1 s: listed)


def test_metrics_count_a_requeued_finished_run_until_its_nodes_were_freed():
    """sacct shows a finished run that scontrol requeue rewrote ending at the requeue
    (jobs_all_runs, as slurmdbd records it), but its nodes were free from its real end:
    the simulator's own cpu_hours and utilization count what was held."""
    lab = Lab("tiny")
    j = lab.sbatch("-N 1 -c 16 -t 60", runtime=600)
    lab.advance("12m")
    held = lab.result.metrics["cpu_hours"]
    lab.requeue(j)
    lab.advance("1m")  # (it pends for its requeue delay: no new run yet)
    result = lab.result
    first = result.jobs_all_runs.iloc[0]
    assert first["State"] == "REQUEUED" and first["Elapsed"].total_seconds() == 720
    assert result.metrics["cpu_hours"] == held == 16 * 600 / 3600
