"""JobIDs as slurmctld gives them: one per submission (an array one for all its tasks), and
one more for each array task that leaves its array's pending record, but the last.

slurmctld keeps an array's pending tasks in one job record, the array's JobID. A task that
starts, or that scontrol changes alone, is split off into a record of its own and takes the
next JobID then (job_mgr.c job_array_split); the last task of the record keeps the array's
(job_array_post_sched); a pending task scancel ends is only taken out of the record
(job_str_signal). The fixtures' JobIDRaw are compared in test_fidelity.py.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slurmlab import (
    Cluster,
    JobSpec,
    Lab,
    Scenario,
    Workload,
    WorkloadJob,
    read_sacct,
    simulate,
    write_sacct,
)
from slurmlab.errors import SlurmlabError
from slurmlab.scenario import ScenarioError
from slurmlab.spec.workload import Action


def tiny_lab() -> Lab:
    return Lab(Cluster.preset("tiny"))  # 4 nodes


def raws(lab: Lab) -> dict[str, int]:
    jobs = lab.sacct()
    return dict(zip(jobs["JobID"], jobs["JobIDRaw"].astype(int), strict=True))


def test_a_job_after_an_array_gets_the_next_number_when_no_task_started():
    """Submitted at one instant, before any pass: the array is 1, the job 2 (Slurm gives
    no number per task)."""
    work = Workload(
        (
            WorkloadJob(JobSpec.from_args("--array=0-5 -N1 -t 1:00:00 --exclusive"), 0, 600),
            WorkloadJob(JobSpec.from_args("-N1 -t 1:00:00"), 0, 600),
        )
    )
    jobs = simulate(Cluster.preset("tiny"), work, policy="fifo", progress=False).jobs
    assert jobs["JobID"].tolist() == [f"1_{t}" for t in range(6)] + ["2"]
    # tasks 0-3 started at t=0 (3..6), 4 after them (7), 5 last: the array's JobID
    assert jobs["JobIDRaw"].tolist() == ["3", "4", "5", "6", "7", "1", "2"]
    assert set(jobs["ArrayJobID"].dropna()) == {"1"}


def test_tasks_that_start_take_numbers_and_the_next_sbatch_counts_them():
    lab = tiny_lab()
    first = lab.sbatch("--array=0-5 -N1 -t 1:00:00 --exclusive", runtime="30m")
    assert first == 1
    # four tasks started at once (2..5): the next submission is 6, as in real Slurm
    assert lab.sbatch("-N1 -t 1:00:00", runtime="30m") == 6
    assert raws(lab) == {"1_0": 2, "1_1": 3, "1_2": 4, "1_3": 5, "1_4": 1, "1_5": 1, "6": 6}
    lab.advance("31m")  # 1_4 starts (others still pend): 7; then 1_5, the last, keeps 1
    lab.advance("31m")
    assert raws(lab) == {"1_0": 2, "1_1": 3, "1_2": 4, "1_3": 5, "1_4": 7, "1_5": 1, "6": 6}
    assert lab.sbatch("-N1 -t 1:00:00", runtime="1m") == 8


def test_an_array_of_one_task_keeps_its_number():
    lab = tiny_lab()
    assert lab.sbatch("--array=3 -N1 -t 10:00", runtime="1m") == 1
    assert raws(lab) == {"1_3": 1}
    assert lab.sbatch("-N1 -t 10:00", runtime="1m") == 2


def test_a_cancelled_pending_task_takes_no_number():
    """scancel of a task in the record only takes it out: the next task to start is the
    record's last, so it keeps the array's JobID."""
    lab = tiny_lab()
    lab.sbatch("-N4 --exclusive -t 10:00", runtime="10m")  # 1: the whole cluster
    lab.sbatch("--array=0-1 -N1 -t 10:00", runtime="1m")  # 2: both tasks pend
    lab.scancel("2_0")
    lab.advance("11m")
    assert raws(lab) == {"1": 1, "2_0": 2, "2_1": 2}
    assert lab.sbatch("-N1 -t 10:00", runtime="1m") == 3


def test_scontrol_on_some_tasks_splits_them_with_numbers_of_their_own():
    lab = tiny_lab()
    lab.sbatch("-N4 --exclusive -t 10:00", runtime="10m")  # 1
    lab.sbatch("--array=0-3 -N1 -t 10:00", runtime="1m")  # 2
    lab.hold("2_1")  # split off now: JobID 3
    assert lab.sbatch("-N1 -t 10:00", runtime="1m") == 4
    assert raws(lab)["2_1"] == 3
    lab.release("2_1")
    lab.advance("11m")  # 2_0 and 2_2 leave the record (5, 6), 2_3 last keeps 2
    got = raws(lab)
    assert (got["2_0"], got["2_1"], got["2_2"], got["2_3"]) == (5, 3, 6, 2)


def test_scontrol_on_every_task_of_the_record_splits_nothing():
    """update_job_str: a request that covers every pending task of the record changes the
    record whole (bit_super_set): no split, no number, one squeue line."""
    lab = tiny_lab()
    lab.sbatch("-N4 --exclusive -t 10:00", runtime="10m")  # 1
    lab.sbatch("--array=0-3 -N1 -t 10:00", runtime="1m")  # 2
    lab.advance("11m")  # 2_0..2_3 start: 3, 4, 5 and 2
    lab.sbatch("-N4 --exclusive -t 10:00", runtime="10m")  # 6
    lab.sbatch("--array=0-2 -N1 -t 10:00", runtime="1m")  # 7
    lab.hold("7_[0-2]")  # every task the record holds
    assert lab.sbatch("-N1 -t 1:00", runtime="1m") == 8
    lines = [ln.split() for ln in lab.squeue_text().splitlines()[1:]]
    assert ["7_[0-2]", "JobHeldUser"] in [[ln[0], ln[-1].strip("()")] for ln in lines]


def test_the_array_number_names_every_task_and_a_task_number_one_task():
    lab = tiny_lab()
    lab.sbatch("--array=0-5 -N1 -t 1:00:00", runtime="30m")  # 1: 0-3 run as 2..5
    lab.scancel(3)  # 1_1's own JobID
    states = dict(zip(lab.sacct()["JobID"], lab.sacct()["State"], strict=True))
    assert states["1_1"] == "CANCELLED" and states["1_0"] == "RUNNING"
    lab.scancel(1)  # the array's JobID: every task left
    assert set(lab.sacct()["State"]) == {"CANCELLED"}
    with pytest.raises(SlurmlabError, match="Invalid job id"):
        lab.scancel(9)


def test_srun_env_shows_the_tasks_own_jobid_and_the_arrays():
    lab = tiny_lab()
    lab.sbatch("-N1 -t 10:00", runtime="10m")  # 1
    lab.sbatch("--array=0-1 -N1 -t 10:00", runtime="10m")  # 2: 2_0 is 3, 2_1 keeps 2
    env = lab.srun_env("2_0").iloc[0]
    assert (env["SLURM_JOB_ID"], env["SLURM_ARRAY_JOB_ID"]) == (3, 2)
    assert env["SLURM_ARRAY_TASK_ID"] == 0
    env = lab.srun_env("2_1").iloc[0]
    assert (env["SLURM_JOB_ID"], env["SLURM_ARRAY_JOB_ID"]) == (2, 2)
    # the array's JobID names both tasks (srun --jobid=2 would attach to 2_1, the job
    # record 2 now: slurmlab asks which task, test_qa_stop35)
    with pytest.raises(SlurmlabError, match="names 2 array tasks"):
        lab.srun_env(2)


def test_test_only_uses_a_number_after_an_array_too():
    lab = tiny_lab()
    lab.sbatch("--array=0-1 -N1 -t 10:00", runtime="10m")  # 1: 1_0 is 2, 1_1 keeps 1
    assert lab.sbatch("-N1 -t 10:00 --test-only") is None
    assert lab.sbatch("-N1 -t 10:00", runtime="1m") == 4  # (3 went to --test-only)


def test_the_event_log_names_each_job_by_its_jobidraw_in_the_job_table():
    lab = tiny_lab()
    lab.sbatch("--array=0-5 -N1 -t 1:00:00", runtime="30m")
    lab.advance("2h")
    events = lab.result.events.dropna(subset=["JobID"])
    table = raws(lab)
    assert all(int(r) == table[j] for j, r in zip(events["JobID"], events["JobIDRaw"]))


def test_a_task_scancel_took_out_of_the_record_cannot_be_requeued():
    """job_str_signal only takes a pending task out of its array's record: no job record is
    left to requeue (Invalid job id), and the record's last task keeps the array's JobID."""
    lab = tiny_lab()
    a = lab.sbatch("--array=0-3 -N4 --exclusive -t 10", runtime=60)  # 1_0 runs: JobID 2
    lab.scancel(f"{a}_[1-2]")
    lab.advance("2m")
    with pytest.raises(SlurmlabError, match="Invalid job id specified .scancel took it out"):
        lab.requeue(f"{a}_[1-2]")
    lab.advance("10m")
    assert raws(lab) == {"1_0": 2, "1_1": 1, "1_2": 1, "1_3": 1}
    assert lab.sbatch("-N1 -t 5", runtime=5) == 3


def test_a_record_cancelled_whole_pends_again_whole_when_requeued():
    """scancel of every task of the record ends the record itself; requeue of it (or of one
    of its tasks) brings all its tasks back, and they take numbers as they start."""
    lab = tiny_lab()
    lab.sbatch("-N4 --exclusive -t 10", runtime=60)  # 1
    a = lab.sbatch("--array=0-3 -N4 --exclusive -t 10", runtime=60)  # 2
    lab.scancel(a)
    lab.requeue(f"{a}_1")
    lab.advance("1h")
    states = dict(zip(lab.sacct()["JobID"], lab.sacct()["State"], strict=True))
    assert set(states.values()) == {"COMPLETED"}
    assert raws(lab) == {"1": 1, "2_0": 3, "2_1": 4, "2_2": 5, "2_3": 2}


def test_a_release_of_a_task_not_held_splits_it_too():
    """update_job_str splits the tasks it names off the record before it looks at holds."""
    lab = tiny_lab()
    a = lab.sbatch("--array=0-5 -N4 --exclusive -t 10", runtime=60)  # 1_0 runs: 2
    lab.release(f"{a}_3")
    assert lab.sbatch("-N1 -t 5", runtime=5) == 4
    lab.hold(f"{a}_[4,2]")  # split in task order, as the record's bitmap is walked
    got = raws(lab)
    assert (got["1_2"], got["1_3"], got["1_4"]) == (5, 3, 6)


def test_two_exports_of_a_simulation_join_its_pending_tasks_to_their_runs(tmp_path):
    """Tasks pending in one export show the array's JobIDRaw; in the next they have their
    own: concat_sacct joins each to its run by array, task and Submit."""
    lab = tiny_lab()
    lab.sbatch("-N4 --exclusive -t 10", runtime=60)
    lab.sbatch("-N4 --exclusive -t 10", runtime=60)
    lab.sbatch("--array=0-2 -N4 --exclusive -t 10", runtime=60)
    lab.advance(5)
    (tmp_path / "day1").write_text(write_sacct(lab.sacct()))
    lab.advance("10m")
    (tmp_path / "day2").write_text(write_sacct(lab.sacct()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = read_sacct([tmp_path / "day1", tmp_path / "day2"])
    assert both["JobID"].tolist() == ["1", "2", "3_0", "3_1", "3_2"]
    assert both["JobIDRaw"].tolist() == ["1", "2", "4", "5", "3"]
    assert (both["State"] == "COMPLETED").all()


def write(tmp_path, jobs: str):
    path = tmp_path / "s.yaml"
    path.write_text(f"cluster: tiny\npolicy: fifo\njobs:\n{jobs}")
    return path


def test_a_scenario_names_jobs_by_number_up_to_the_first_array(tmp_path):
    path = write(
        tmp_path,
        "  - {submit: 0, runtime: 60, args: '-N1 -t 10:00'}\n"
        "  - {submit: 0, runtime: 60, args: '--array=0-3 -N1 -t 10:00'}\n"
        "  - {submit: 5, runtime: 60, args: '-N1 -t 10:00 --dependency=afterok:2_3'}\n"
        "  - {submit: 5, runtime: 60, args: '-N1 -t 10:00 --dependency=afterok:1'}\n",
    )
    jobs = Scenario.load(path).run().jobs.set_index("JobID")
    assert jobs.loc["2_3", "JobIDRaw"] == "2" and jobs.loc["2_0", "JobIDRaw"] == "3"
    # submitted at 5 s after three tasks took 3, 4 and 5: JobIDs 6 and 7
    assert jobs.index[-2:].tolist() == ["6", "7"]


def test_a_scenario_number_after_an_array_is_refused_with_the_fix(tmp_path):
    path = write(
        tmp_path,
        "  - {submit: 0, runtime: 60, args: '--array=0-3 -N1 -t 10:00'}\n"
        "  - {submit: 5, runtime: 60, args: '-N1 -t 10:00'}\n"
        "  - {submit: 9, runtime: 60, args: '-N1 -t 10:00 --dependency=afterok:2'}\n",
    )
    with pytest.raises(ScenarioError, match=r"afterok:2: job '2' is not known before the run"):
        Scenario.load(path)


def test_a_numeric_id_that_may_be_a_later_jobid_is_refused(tmp_path):
    path = write(
        tmp_path,
        "  - {submit: 0, runtime: 60, args: '--array=0-3 -N1 -t 10:00'}\n"
        "  - {submit: 5, runtime: 60, args: '-N1 -t 10:00'}\n"
        "  - {id: 7, submit: 9, runtime: 60, args: '-N1 -t 10:00'}\n",
    )
    with pytest.raises(ScenarioError, match=r"'7' may be the JobID of a job without an id"):
        Scenario.load(path)
    spec = JobSpec.from_args("-N1 -t 10:00")
    jobs = (
        WorkloadJob(JobSpec.from_args("--array=0-3 -N1 -t 10:00"), 0, 60),
        WorkloadJob(spec, 5, 60),
        WorkloadJob(spec, 9, 60, id="7"),
    )
    with pytest.raises(SlurmlabError, match="may be the JobID of a job without an id"):
        simulate(Cluster.preset("tiny"), Workload(jobs), progress=False)


def test_a_scenario_action_or_dependency_on_a_number_after_an_array_is_refused(tmp_path):
    jobs = (
        "  - {submit: 0, runtime: 60, args: '--array=0-2 -N1 -t 10:00'}\n"
        "  - {submit: 5, runtime: 60, args: '-N1 -t 10:00'}\n"
    )
    path = tmp_path / "a.yaml"
    path.write_text(
        f"cluster: tiny\njobs:\n{jobs}actions:\n  - {{at: 20, action: cancel, job: 3}}\n"
    )
    with pytest.raises(ScenarioError, match=r"JobID '3' is not known before the run: .*ID_TASK"):
        Scenario.load(path)
    spec = JobSpec.from_args("-N1 -t 10:00 -d afterok:3")
    work = Workload(
        (
            WorkloadJob(JobSpec.from_args("--array=0-2 -N1 -t 10:00"), 0, 60),
            WorkloadJob(JobSpec.from_args("-N1 -t 10:00"), 5, 60),
            WorkloadJob(spec, 10, 60),
        )
    )
    with pytest.raises(SlurmlabError, match=r"afterok:3: JobID 3 is not known before the run"):
        simulate(Cluster.preset("tiny"), work, progress=False)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 600),  # submit
            st.integers(1, 5),  # tasks (1: a plain job)
            st.integers(1, 4),  # nodes
            st.integers(0, 900),  # runtime
        ),
        min_size=1,
        max_size=12,
    ),
    st.lists(
        st.tuples(
            st.integers(0, 1200),  # at
            st.sampled_from(["cancel", "hold", "release", "requeue"]),
            st.integers(0, 11),  # which job
            st.integers(-1, 4),  # which task (-1: the whole job)
        ),
        max_size=6,
    ),
    st.sampled_from(["fifo", "easy", "conservative", "slurm"]),
)
def test_every_number_is_given_once(jobs, actions, policy):
    """Plain jobs, arrays and the tasks split off take the numbers 1..N, each once, whatever
    scancel, scontrol hold/release and requeue do to them; an array's JobID is the JobIDRaw
    of at most one of its tasks (the last to leave its record; none when tasks pending in
    it were cancelled)."""
    work = Workload(
        tuple(
            WorkloadJob(
                JobSpec.from_args(f"-N{n} -t 15:00" + (f" --array=0-{k - 1}" if k > 1 else "")),
                submit,
                run,
                id=f"j{i}",
            )
            for i, (submit, k, n, run) in enumerate(jobs)
        )
    )
    acts = []
    for at, what, i, task in actions:
        if i < len(jobs) and jobs[i][0] <= at:
            tasks = jobs[i][1]
            target = f"j{i}" if task < 0 or tasks == 1 else f"j{i}_{task % tasks}"
            acts.append(Action(at, what, target))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = simulate(
            Cluster.preset("tiny"), work, policy=policy, actions=acts, progress=False
        ).jobs
    plain = table["ArrayJobID"].isna()
    given_ = table.loc[plain, "JobIDRaw"].astype(int).tolist()
    for array, tasks in table[~plain].groupby("ArrayJobID"):
        own = tasks["JobIDRaw"].astype(int)
        kept = own == int(array)
        # (a task cancelled in the record shows the record's JobID too; it never ran)
        assert (kept & tasks["Start"].notna()).sum() <= 1
        given_ += [int(array), *own[~kept]]
    assert sorted(given_) == list(range(1, len(given_) + 1))
