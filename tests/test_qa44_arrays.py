"""Stop 44's QA findings on dependencies, arrays and --begin, each against Slurm 22.05.8's source.

The lab starts at 2026-01-05 00:00:00 on the ``tiny`` cluster (4 nodes).
"""

from __future__ import annotations

import warnings
from datetime import datetime, time, timedelta

import pytest

from slurmlab import JobSpec, Lab
from slurmlab.errors import RequestError, SbatchError
from slurmlab.spec.job import TimeOfDay

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _job(lab: Lab, key):
    """The engine's record of the job (or array task) ``key``."""
    return lab.sim.jobs[lab.sim._ids_of(key)[0]]  # noqa: SLF001


# -- 1. a failed dependency stays failed ------------------------------------------------------
def test_a_failed_dependency_stays_failed_when_its_job_is_requeued_and_completes():
    """sbatch(1): "Once a job dependency fails due to the termination state of a preceding
    job, the dependent job will never be run, even if the preceding job is requeued and has
    a different termination state." job_scheduler.c test_job_dependency tests only the
    conditions still DEPEND_NOT_FULFILLED: DEPEND_FAILED sticks."""
    lab = Lab("tiny")
    parent = lab.sbatch("-n1 -t 5 -J parent", runtime="30s")
    child = lab.sbatch(f"-n1 -t 5 -J child --dependency=afterok:{parent}", runtime="30s")
    lab.advance(10)
    lab.scancel(parent)
    lab.advance(120)
    assert _job(lab, child).reason == "DependencyNeverSatisfied"
    lab.requeue(parent)  # (a CANCELLED job, within MinJobAge: it runs again and completes)
    lab.advance("5m")
    assert _job(lab, parent).state == "COMPLETED"
    assert _job(lab, child).state == "PENDING"
    assert _job(lab, child).reason == "DependencyNeverSatisfied"
    assert "(DependencyNeverSatisfied)" in lab.squeue_text()


def test_a_fulfilled_condition_stays_fulfilled_when_its_job_is_requeued():
    """test_job_dependency: a condition DEPEND_FULFILLED is not tested again, though the list
    is flushed only once all are: afterok:A:B runs once B completes, A requeued meanwhile."""
    lab = Lab("tiny")
    a = lab.sbatch("-n1 -t 5 -J a", runtime="30s")
    b = lab.sbatch("-N4 --exclusive -t 5 -J b", runtime="5m")
    waits = lab.sbatch(f"-n1 -t 5 --dependency=afterok:{a}:{b}", runtime="30s")
    lab.advance(60)  # a completed (fulfilled); b still runs
    lab.requeue(a)  # pending again, for its requeue delay
    lab.advance("4m30s")  # b completes at 5:30 (it started when a ended)
    assert _job(lab, b).end == 330 and _job(lab, a).state == "RUNNING"  # (a from 330 too)
    assert _job(lab, waits).start == 330  # not held back by a's requeue


def test_a_cancelled_task_fails_afterok_on_its_array_even_when_requeued_and_completed():
    """job_mgr.c test_job_array_complete is false once the array's max_exit_code is not 0;
    _job_array_comp raises it to 9 for a task that ended otherwise than COMPLETED (cancelled
    included) and nothing lowers it: the array's afterok fails, its afternotok is met."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-3 -n1 -t 5 -J sweep", runtime="60s")
    ok = lab.sbatch(f"-n1 -t 5 -J agg --dependency=afterok:{a}", runtime="30s")
    notok = lab.sbatch(f"-n1 -t 5 -J onfail --dependency=afternotok:{a}", runtime="30s")
    lab.advance(10)
    lab.scancel(f"{a}_2")
    lab.advance(5)
    lab.requeue(f"{a}_2")
    lab.advance("6m")
    assert [_job(lab, f"{a}_{t}").state for t in range(4)] == ["COMPLETED"] * 4
    assert _job(lab, ok).state == "PENDING"
    assert _job(lab, ok).reason == "DependencyNeverSatisfied"
    assert _job(lab, notok).state == "COMPLETED"


def test_a_task_requeued_while_running_leaves_afterok_on_its_array_met():
    """A requeue is no completion: job_completion_logger(job, requeue=true) leaves
    max_exit_code alone (_job_array_comp), so afterok on the array runs once all complete."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-1 -n1 -t 5", runtime="60s")
    ok = lab.sbatch(f"-n1 -t 5 --dependency=afterok:{a}", runtime="30s")
    lab.advance(10)
    lab.requeue(f"{a}_1")
    lab.advance("6m")
    assert _job(lab, ok).state == "COMPLETED"


# -- 2. --begin as 22.05's parse_time reads it ------------------------------------------------
@pytest.mark.parametrize("begin", ["now+1h", "now+30m", "now+90s", "now+2d", "now+1hr"])
def test_begin_refuses_unit_abbreviations(begin):
    """parse_time.c _get_delta matches each unit of un[] (seconds, second, minutes, minute,
    hours, hour, days, day, weeks, week) by strncasecmp over the unit's own length: an
    abbreviation matches none, and sbatch says "Invalid --begin specification"."""
    with pytest.raises(SbatchError, match=r"now\+1hour"):
        JobSpec.from_args(["-n1", f"--begin={begin}"])


def test_begin_refuses_elevenses():
    """elevenses came with Slurm 23.02's parse_time; 22.05's has midnight, noon, fika and
    teatime only."""
    with pytest.raises(SbatchError, match=r"23\.02.*write 11:00"):
        JobSpec.from_args(["-n1", "--begin=elevenses"])


@pytest.mark.parametrize(
    ("begin", "expected"),
    [
        ("now+1hour", timedelta(hours=1)),  # un[] "hour" matches "hour" and "hours"
        ("now+1hours", timedelta(hours=1)),
        ("now + 2 days", timedelta(days=2)),  # blanks skipped
        ("NOW+3WEEKS", timedelta(weeks=3)),  # xstrncasecmp
        ("now+90", timedelta(seconds=90)),  # seconds by default
        ("now-1hour", timedelta(hours=-1)),  # now[{+|-}count...]: in the past, at once
        ("tomorrowT10:00", TimeOfDay(time(10), day=1)),  # 'T' separates words
        ("noon tomorrow", TimeOfDay(time(12), day=1)),  # a time, then a date
        ("today 15:00", TimeOfDay(time(15), day=0)),
        ("0:30pm", TimeOfDay(time(12, 30))),  # _get_time: hr + 12, 24 is 12
        ("01/06-10:00", TimeOfDay(time(10), month=1, mday=6)),
        ("2026-02-31", datetime(2026, 3, 3)),  # slurm_mktime normalises the day
        ("uts1767657600", datetime(2026, 1, 6)),  # seconds since the epoch (UTC)
    ],
)
def test_begin_takes_what_parse_time_takes(begin, expected):
    """Each form is accepted by parse_time (src/common/parse_time.c), and round-trips."""
    spec = JobSpec.from_args(["-n1", f"--begin={begin}"])
    assert spec.begin == expected
    assert JobSpec.from_args(spec.to_args()) == spec


@pytest.mark.parametrize(
    "begin", ["20260105", "2026-01-05T10:00:00.5", "tomorrowt10:00", "13:00pm", "uts999999", ""]
)
def test_begin_refuses_what_parse_time_refuses(begin):
    """YYYYMMDD reads as month 20; a fraction of a second, a lowercase 't' (only 'T'
    separates), hour 13 PM (25) and a uts below 1000000 are refused; an empty time is 0,
    which sbatch refuses ("Invalid --begin specification")."""
    with pytest.raises(SbatchError, match=r"--begin="):
        JobSpec.from_args(["-n1", f"--begin={begin}"])


def test_begin_in_the_past_starts_at_once():
    """job_mgr.c _copy_job_desc_to_job_record keeps a begin time only when later than now."""
    lab = Lab("tiny")
    lab.advance("1h")
    j = lab.sbatch("-n1 -t 5 --begin=now-1hour", runtime=60)
    assert _job(lab, j).start == 3600


def test_begin_tomorrow_at_a_time_in_a_lab():
    lab = Lab("tiny")
    j = lab.sbatch("-n1 -t 5 --begin=tomorrowT10:00", runtime=60)
    assert _job(lab, j).begin == 86400 + 36000


# -- 3. aftercorr arrays split off their pending tasks when queued -----------------------------
def test_aftercorr_tasks_get_their_jobids_at_the_first_pass():
    """job_scheduler.c build_job_queue splits an aftercorr array's pending tasks into records
    of their own (job_array_split: new JobIDs, in task order; the last keeps the array's,
    job_array_post_sched) at the first scheduling pass after its submission, up to
    correspond_after_task_cnt (10) pending split-off tasks."""
    lab = Lab("tiny")
    lab.sbatch("-N4 --exclusive -t 10", runtime="5m")  # 1
    a = lab.sbatch("--array=0-3 -n1 -t 5", runtime="1m")  # 2
    c = lab.sbatch(f"--array=0-3 -n1 -t 5 --dependency=aftercorr:{a}", runtime="1m")  # 3
    assert [_job(lab, f"{c}_{t}").raw for t in range(4)] == [4, 5, 6, 3]
    assert lab.sbatch("-n1 -t 5", runtime="1m") == 7


def test_aftercorr_splits_at_most_ten_pending_tasks_at_a_time():
    """build_job_queue: no split while num_pending_job_array_tasks >= 10; more split off as
    the split ones start."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-13 -n1 -t 5", runtime="1m")
    c = lab.sbatch(f"--array=0-13 -n1 -t 5 --dependency=aftercorr:{a}", runtime="1m")
    split = [t for t in range(14) if _job(lab, f"{c}_{t}").raw != c]
    assert split == list(range(10))
    lab.advance("10m")
    raws = [_job(lab, f"{c}_{t}").raw for t in range(14)]
    assert len(set(raws)) == 14 and raws[-1] == c


# -- 4. singleton compares JobIDs ---------------------------------------------------------------
def test_singleton_is_not_held_by_a_requeued_task_with_a_later_jobid():
    """job_scheduler.c _find_singleton_job blocks on a pending job only when its job_id is
    lower: task 1_1, split off its array's record when it started (JobID 4), requeued, does
    not hold back job 3 once the running task 1_2 ends."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-2 -N4 --exclusive -t 5 -J s", runtime="60s")
    lab.advance(1)
    s = lab.sbatch("-n1 -t 5 -J s --dependency=singleton", runtime="30s")
    lab.advance(69)
    lab.requeue(f"{a}_1")
    lab.advance("5m")
    assert _job(lab, f"{a}_1").raw == 4 and _job(lab, s).raw == 3
    assert _job(lab, s).start == _job(lab, f"{a}_2").end == 130


# -- 5. valid syntax that was refused -----------------------------------------------------------
def test_a_task_list_with_a_comma_is_one_condition_per_task():
    """update_job_dependency expands ``_[...]`` (_xlate_array_dep) before it splits the list
    at ',' and '?': afterok:1_[0,2] is afterok:1_0:1_2."""
    spec = JobSpec.from_args(["-n1", "--dependency=afterok:1_[0,2]?afterany:2"])
    assert [str(d) for d in spec.dependency] == ["afterok:1_0:1_2", "afterany:2"]
    assert spec.dependency_any
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-2 -n1 -t 5", runtime="60s")
    lab.scancel(f"{a}_1")
    j = lab.sbatch(f"-n1 -t 5 --dependency=afterok:{a}_[0,2]", runtime="30s")
    lab.advance("5m")
    assert _job(lab, j).start == 60  # task 1's cancel does not count


@pytest.mark.parametrize("array", ["0-15%0", "0-15%"])
def test_a_zero_or_empty_throttle_is_none(array):
    """job_mgr.c _create_job_array sets max_run_tasks only when atoi of the text after '%'
    is above 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = JobSpec.from_args(["-n1", f"--array={array}"])
    assert spec.array.throttle is None and len(spec.array.indices) == 16


# -- 6. ArrayTaskThrottle through one task ---------------------------------------------------
def test_a_throttle_through_one_pending_task_splits_it_and_changes_nothing():
    """update_job_str splits 1_7 off the pending record (a JobID of its own) and _update_job
    sets max_run_tasks only on a record with array_recs (job_mgr.c ~12306): the split-off
    task has none, so the array keeps %4."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-9%4 -n1 -t 10", runtime="1m")
    lab.update(f"{a}_7", throttle=1)
    assert {j.throttle for j in lab.sim.jobs.values()} == {4}
    assert _job(lab, f"{a}_7").raw == 6  # (after 1_0..1_3's 2..5)
    lab.update(a, throttle=2)  # the array's JobID: its pending record
    assert {j.throttle for j in lab.sim.jobs.values()} == {2}


def test_a_throttle_through_the_task_that_keeps_the_arrays_jobid_changes_it():
    """job_array_post_sched keeps array_recs on the last task to leave the record, which
    keeps the array's JobID; naming all the record's tasks updates the record."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-1 -n1 -t 10", runtime="1m")  # both start: 1_1 keeps JobID 1
    lab.update(f"{a}_1", throttle=3)
    assert {j.throttle for j in lab.sim.jobs.values()} == {3}
    lab.update(f"{a}_0", throttle=1)  # JobID 2: no array_recs
    assert {j.throttle for j in lab.sim.jobs.values()} == {3}


def test_a_throttle_on_a_plain_job_is_no_error():
    lab = Lab("tiny")
    j = lab.sbatch("-n1 -t 10", runtime="1m")
    lab.update(j, throttle=2)  # scontrol says nothing: the job has no array_recs
    assert _job(lab, j).throttle is None


# -- 7. a JobID slurmctld cannot read -------------------------------------------------------
@pytest.mark.parametrize("ref", ["0", "1x"])
def test_a_dependency_on_no_jobid_is_a_job_dependency_problem(ref):
    """_parse_dependency_jobid_new: job_id 0, or anything after it but _TASK, ',', '?', ':'
    or '+', is ESLURM_DEPENDENCY ("Job dependency problem"), whatever jobs exist."""
    lab = Lab("tiny")
    lab.sbatch("-n1 -t 5", runtime=60)
    with pytest.raises(RequestError, match="Job dependency problem") as exc:
        lab.sbatch(f"-n1 -t 5 --dependency=afterok:{ref}")
    assert "ended long ago" not in str(exc.value)


def test_the_tasks_of_one_pending_record_do_not_hold_one_another_back():
    """_find_singleton_job: the record of an array's pending tasks has one job_id, the
    array's, and does not block itself; its dependency, fulfilled, is flushed before its
    tasks start (test_job_dependency), so they run side by side as nodes allow."""
    lab = Lab("tiny")
    a = lab.sbatch("--array=0-2 -n1 -t 5 -J s --dependency=singleton", runtime=60)
    lab.advance("5m")
    assert [_job(lab, f"{a}_{t}").start for t in range(3)] == [0, 0, 0]


def test_scontrol_update_time_limit_is_read_in_whole_minutes():
    # scontrol/update_job.c: time_limit = time_str2mins(val), a part of a minute rounded up
    # (parse_time.c), before +/- is applied: the real bf-cancel recording's slurmctld log
    # says "setting time_limit to 2" after TimeLimit=1:30
    import pandas as pd

    from slurmlab import Lab

    lab = Lab("tiny")
    a = lab.sbatch("-n 1 -t 10:00", runtime=300)
    b = lab.sbatch("-n 1 -t 10:00", runtime=300)
    lab.advance(10)
    lab.update(a, time="1:30")
    lab.update(b, time="-0:30")
    lab.advance(400)
    rows = lab.result.jobs.set_index("JobID")
    assert rows.loc[str(a), "Timelimit"] == pd.Timedelta(minutes=2)
    assert rows.loc[str(a), "State"] == "TIMEOUT"
    assert rows.loc[str(a), "Elapsed"] == pd.Timedelta(minutes=2)
    assert rows.loc[str(b), "Timelimit"] == pd.Timedelta(minutes=9)
