"""Regressions from the stop-19 QA round (the Lab, scenario files, the engine)."""

from __future__ import annotations

import pandas as pd
import pytest

import slurmlab
from slurmlab.errors import SbatchError, SlurmlabError
from slurmlab.scenario import ScenarioError


def test_lab_times_take_the_timedeltas_sacct_returns():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-t 30", runtime=600)
    limit = lab.sacct().Timelimit[0]  # a pandas Timedelta
    lab.advance(limit)
    assert lab.now == 1800.0
    lab.sbatch("-t 30", runtime=lab.sacct().Elapsed[0])  # 10 minutes
    lab.run()
    assert lab.sacct().Elapsed.dt.total_seconds().tolist() == [600.0, 600.0]


def test_a_begin_time_no_simulation_can_hold_is_refused_at_submission():
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SbatchError, match=r"--begin='now\+100000000000': too far"):
        lab.sbatch("-t 10 --begin=now+100000000000")
    with pytest.raises(SlurmlabError, match=r"--begin=2999-01-01 00:00:00: more than 1e\+09 s"):
        lab.sbatch("-t 10 --begin=2999-01-01")
    first = lab.sbatch("-t 10 --begin=now+2hours", runtime=60)
    assert first == 1  # a refused sbatch uses up no job id
    lab.run()
    assert lab.sacct().Start.tolist() == [lab.result.origin + pd.Timedelta(hours=2)]


def test_a_long_workloads_late_submissions_run_and_keep_their_times():
    """The 31-year bound is on a wait (--begin after the submission), not on when a long
    workload submits: a generated million-job workload runs for decades (the benchmark's
    pool at load 0.5 spans about 50 years), and its times are the job table's."""
    from slurmlab import JobSpec, Workload, WorkloadJob

    spec = JobSpec.from_args("-n 1 -t 10")
    wait = JobSpec.from_args("-n 1 -t 10 --begin=now+1hour")  # (from its submission)
    late = 1.5e9  # about 47.5 years after the start
    jobs = [WorkloadJob(spec, 0.0, 60.0), WorkloadJob(spec, late, 60.0)]
    w = Workload.from_jobs([*jobs, WorkloadJob(wait, late, 60.0)])
    result = slurmlab.simulate("tiny", w, policy="fifo", progress=False)
    assert result.seconds("Start").tolist() == [0.0, late, late + 3600]
    assert result.jobs.End.iloc[1] == result.origin + pd.Timedelta(seconds=late + 60)


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ("{submit: .inf, runtime: 10, args: -n 1}", "submit"),
        ("{submit: 0, runtime: 1.0e+10, args: -n 1}", "runtime"),
        ("{submit: '40000-00:00:00', runtime: 10, args: -n 1}", "submit"),
    ],
)
def test_scenario_times_no_simulation_can_hold_name_the_field(tmp_path, entry, field):
    path = tmp_path / "s.yaml"
    path.write_text(f"cluster: tiny\njobs:\n  - {entry}\n")
    with pytest.raises(ScenarioError, match=rf"jobs\[0\]: field '{field}'.*over 1e\+09 s"):
        slurmlab.Scenario.load(path)


def test_scenario_day_forms_mean_what_sbatch_t_means(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: ai\njobs:\n"
        "  - {id: a, submit: '1-2:3', runtime: '1-12:00', args: -N 1 -t 1-12:00 -p train}\n"
    )
    result = slurmlab.Scenario.load(path).run()
    row = result.jobs.iloc[0]
    assert result.seconds("Submit").iloc[0] == 93780.0
    assert row.Elapsed.total_seconds() == row.Timelimit.total_seconds() == 129600.0
    assert row.State == "COMPLETED"


# -- sbatch --test-only, --uid, non-text input ------------------------------------------------
def test_test_only_prints_the_estimate_and_submits_nothing(capsys):
    """sbatch(1): --test-only validates the request and estimates when it would start, from
    running jobs' time limits; "No job is actually submitted"."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 3 --exclusive -t 60", runtime="1h")  # node[1-3] until 01:00
    capsys.readouterr()
    assert lab.sbatch("--test-only -N 4 -t 10") is None
    assert capsys.readouterr().out == (
        "sbatch: Job 2 to start at 2026-01-05T01:00:00 using 4 processors on nodes node[1-4] "
        "in partition main\n"
    )
    assert lab.sbatch("--test-only -N 1 --exclusive -t 10") is None
    out = capsys.readouterr().out
    cpus = lab.cluster.nodes[3].cpus
    assert out.startswith(f"sbatch: Job 3 to start at 2026-01-05T00:00:00 using {cpus} processors")
    assert "on nodes node4 in partition main" in out
    assert lab.squeue().JOBID.tolist() == ["1"]  # nothing submitted
    # each estimate used up a job id, as real Slurm 22.05's does (stop 20, by hand)
    assert lab.sbatch("-t 10", runtime=60) == 4
    lab.drain("node1,node2,node3,node4")
    with pytest.raises(SlurmlabError, match="Requested node configuration is not available"):
        lab.sbatch("--test-only -N 1 -t 10")


def test_test_only_in_the_cell_magic(capsys):
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 3 --exclusive -t 60", runtime="1h")
    capsys.readouterr()
    ip.run_cell_magic("sbatch", "--test-only", "#!/bin/bash\n#SBATCH -N 2 -t 30\nsrun hostname\n")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "sbatch: Job 2 to start at 2026-01-05T01:00:00 using 2 processors on nodes node[1-2] "
        "in partition main\n"
    )
    assert lab.squeue().JOBID.tolist() == ["1"]


def test_uid_names_the_user_and_a_disagreement_is_refused():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-t 10 --uid=alice", runtime=60)
    lab.sbatch("-t 10", runtime=60, user="bob")
    lab.sbatch("-t 10 --uid=carol", runtime=60, user="carol")
    assert lab.sacct().User.tolist() == ["alice", "bob", "carol"]
    with pytest.raises(SlurmlabError, match="user='bob' and --uid=alice disagree"):
        lab.sbatch("-t 10 --uid=alice", user="bob")
    mine = slurmlab.Lab("tiny")
    mine.sbatch("-t 10")
    assert mine.sacct().User.tolist() == ["you"]


@pytest.mark.parametrize("bad", [None, 5, 2.5, {"N": 2}])
def test_sbatch_of_something_else_than_text_says_what_to_give(bad):
    with pytest.raises(SlurmlabError, match="give sbatch options as text"):
        slurmlab.Lab("tiny").sbatch(bad)


# -- priority/basic: one priority per array ---------------------------------------------------
def test_an_arrays_tasks_share_one_basic_priority():
    """Slurm sets an array's priority once, on its one job record (tasks split off copy it):
    under priority/basic the next submission is one below the array, whatever its size."""
    from slurmlab.sim.simulate import simulate
    from slurmlab.spec.cluster import Cluster
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    one = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=1 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE"
    )

    def job(i, args, submit):
        return WorkloadJob(JobSpec.from_args(args), submit, 60, id=i)

    result = simulate(
        one,
        Workload(
            [
                job("blk", "-t 1", 0),
                job("c", "-t 1 --nice=3", 1),
                job("arr", "--array=0-5 -t 1", 2),
                job("d", "-t 1", 3),
            ]
        ),  # fmt: skip
        "fifo",
    )
    prio = dict(zip(result.jobs.JobID, result.jobs.Priority))
    assert {prio[f"arr_{i}"] for i in range(6)} == {prio["blk"] - 2}
    assert prio["d"] == prio["blk"] - 3  # one below the array
    assert prio["c"] == prio["blk"] - 1 - 3  # its nice puts it below the array's tasks
    start = dict(zip(result.jobs.JobID, result.seconds("Start")))
    assert [start[f"arr_{i}"] for i in range(6)] == [60.0 * (i + 1) for i in range(6)]
    assert (start["d"], start["c"]) == (420.0, 480.0)


# -- scontrol hold / release -------------------------------------------------------------------
def test_hold_and_release_in_a_lab():
    lab = slurmlab.Lab("tiny", policy="easy")
    busy = lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    first = lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    second = lab.sbatch("-N 1 -t 10", runtime=60)
    held = lab.sbatch("-H -N 1 -t 10", runtime=60)
    reasons = lab.squeue().set_index("JOBID")["NODELIST(REASON)"]
    assert reasons[str(held)] == "(JobHeldUser)"
    assert "lab.release" in lab.why_pending(held)
    assert not pd.isna(lab.squeue().set_index("JOBID").START_TIME[str(first)])
    lab.hold(first)  # the first in line waits: the next one goes ahead of it
    queue = lab.squeue().set_index("JOBID")
    reasons = queue["NODELIST(REASON)"]
    assert reasons[str(first)] == "(JobHeldUser)" and reasons[str(second)] == "(Resources)"
    assert pd.isna(queue.START_TIME[str(first)])  # its planned start is gone
    lab.advance(600)  # busy ends: second starts, first stays held
    states = lab.sacct().set_index("JobID").State
    assert states[str(second)] in ("RUNNING", "COMPLETED") and states[str(first)] == "PENDING"
    lab.release(first)
    lab.release(held)
    lab.run()
    jobs = lab.sacct().set_index("JobID")
    assert (jobs.State == "COMPLETED").all()
    assert jobs.loc[str(first), "Start"] == lab.result.origin + pd.Timedelta(seconds=660)
    # busy ended at 600, more than MinJobAge (300 s) ago: slurmctld has purged its record
    with pytest.raises(SlurmlabError, match="Invalid job id specified"):
        lab.hold(busy)
    with pytest.raises(SlurmlabError, match="Invalid job id specified"):
        lab.release(busy)


# -- sbatch details ------------------------------------------------------------------------------
def test_a_script_files_name_names_the_job_and_wrap_takes_no_script():
    lab = slurmlab.Lab("tiny")
    script = "#!/bin/bash\nsrun hostname\n"
    lab.sbatch(script, args="jobs/train.sh")  # sbatch jobs/train.sh: named after the file
    lab.sbatch(script)  # read from standard input: "sbatch"
    lab.sbatch("-t 5 --wrap=hostname")
    lab.sbatch("-t 5 -J mine eval.sh")
    assert lab.sacct().JobName.tolist() == ["train.sh", "sbatch", "wrap", "mine"]
    with pytest.raises(SbatchError, match="Script arguments not permitted with --wrap option"):
        lab.sbatch(script, args="--wrap=hostname")
    with pytest.raises(SbatchError, match="Script arguments not permitted with --wrap option"):
        lab.sbatch("--wrap=hostname train.sh")


def test_refusals_for_size_say_which_partitions_would_do():
    """Too many nodes for the partition pends for ever (EnforcePartLimits=NO, as real Slurm
    22.05 does; stop 20): why_pending names the partitions that would do. A node shape no
    node of the partition has is refused, naming them."""
    lab = slurmlab.Lab("ai")
    debug, train = lab.sbatch("-p debug -N 3 -t 30"), lab.sbatch("-p train -N 33")
    assert lab.why_pending(debug).endswith(
        "has only 2; it will never start (with EnforcePartLimits=NO Slurm accepts such a job "
        "and leaves it pending). Fix: ask for --nodes=2 or fewer (scontrol update JobId=1 "
        "NumNodes=2-2, in a Lab lab.update(1, nodes='2-2')), or another partition (-p train, "
        "-p cpu)."
    )  # (NumNodes=2 would keep the maximum, 3: test_qa45_why.py)
    assert lab.why_pending(train).endswith(
        "Fix: ask for --nodes=32 or fewer (scontrol update JobId=2 NumNodes=32-32, in a Lab "
        "lab.update(2, nodes='32-32'))."
    )
    with pytest.raises(
        SlurmlabError, match=r"partitions whose nodes can hold it: -p train, -p debug"
    ):
        lab.sbatch("-p cpu --gres=gpu:8")


def test_an_empty_array_throttle_is_none():
    """job_mgr.c _create_job_array sets max_run_tasks only when atoi after '%' is above 0."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("--array=0-3% -t 5")
    assert {j.throttle for j in lab.sim.jobs.values() if j.array_job == str(a)} == {None}


def test_the_cli_warns_of_jobs_that_never_started(tmp_path, capsys):
    from slurmlab.cli import main

    path = tmp_path / "never.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        "  - {id: a, submit: 0, runtime: 100, args: -N 1 -t 2-00:00:00}\n"  # over MaxTime 1-0
        "  - {id: b, submit: 0, runtime: 100, args: -N 1 -t 10}\n"
    )
    assert main(["simulate", str(path), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "1 job never started: a (PartitionTimeLimit)" in err


def test_squeue_text_shows_an_arrays_pending_tasks_as_one_record():
    """Plain squeue shows the tasks that have not started as the array's one pending
    record (2_[2-5,7%2]); squeue -r (array=True), and the DataFrame, list each task."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    lab.sbatch("--array=0-5,7%2 -t 10", runtime=60)
    ids = [line.split()[0] for line in lab.result.squeue_text().splitlines()[1:]]
    assert ids == ["2_[0-5,7%2]", "1"]
    lab.advance(601)
    ids = [line.split()[0] for line in lab.result.squeue_text().splitlines()[1:]]
    assert ids == ["2_[2-5,7%2]", "2_0", "2_1"]
    every = [line.split()[0] for line in lab.result.squeue_text(array=True).splitlines()[1:]]
    assert every == ["2_2", "2_3", "2_4", "2_5", "2_7", "2_0", "2_1"]
    assert lab.squeue().JOBID.tolist() == every


def test_an_sbatch_directive_error_names_its_script_line():
    lab = slurmlab.Lab("tiny")
    script = "#!/bin/bash\n#SBATCH -N 1\n#SBATCH -t 10\n#SBATCH --nodes=abc\nsrun x\n"
    with pytest.raises(SbatchError, match=r"^script line 4: #SBATCH directive: --nodes='abc'"):
        lab.sbatch(script)


def test_a_job_started_on_extra_nodes_is_counted_once():
    """X starts on node1 by moving W's reservation to node[3-4]; Y, on node1's other CPUs,
    takes nothing W needs and starts too (X was counted twice, and Y waited)."""
    from slurmlab.sim.simulate import simulate
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    def job(i, args, submit, runtime):
        return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=i)

    jobs = [
        job("r34", "-N 2 -w node[3-4] --exclusive -t 10", 0, 600),
        job("r2", "-N 1 -w node2 --exclusive -t 20", 0, 1200),
        job("W", "-N 2 --exclusive -t 10", 1, 600),
        job("X", "-n 8 --mem=1000 -t 30", 1, 1800),
        job("Y", "-n 8 --mem=1000 -t 30", 1, 1800),
    ]
    result = simulate(slurmlab.Cluster.preset("tiny"), Workload(jobs), "easy")
    starts = {j.key: j.start for j in result.sim.jobs.values()}
    assert starts == {"r34": 0, "r2": 0, "W": 600, "X": 1, "Y": 1}


def test_test_only_makes_a_submissions_checks_and_waits_for_begin(capsys):
    from slurmlab.spec.qos import Reservation

    lab = slurmlab.Lab(
        "tiny",
        reservations=[
            Reservation("maint", start=3600, duration=7200, nodes="node[1-4]", users=("you",))
        ],
    )
    capsys.readouterr()
    lab.sbatch("--test-only -N 1 -t 30 --begin=now+600")
    assert "to start at 2026-01-05T00:10:00" in capsys.readouterr().out
    lab.sbatch("--test-only -N 1 -t 60 --begin=now+600")  # would run into the reservation
    assert "to start at 2026-01-05T03:00:00" in capsys.readouterr().out
    for args, error in [
        ("--qos=nope", "Invalid qos specification"),
        ("--dependency=afterok:999", "no job '999' was submitted before it"),
        ("--reservation=nope", "Requested reservation is invalid"),
        ("--reservation=maint", "would wait for its reservation maint"),
        ("-t 3-00:00:00", "would wait for PartitionTimeLimit"),
        ("-H", "would wait for JobHeldUser"),
    ]:
        with pytest.raises(SlurmlabError, match=error):
            lab.sbatch(f"--test-only -N 1 -t 30 {args}".replace("-t 30 -t", "-t"))
    # nothing submitted; the two estimates used up ids 1 and 2, the refusals none
    assert lab.squeue().empty and lab.sbatch("-t 5") == 3


def test_holding_some_tasks_of_an_array_splits_them_off():
    """scontrol hold 2_3 splits that task off the array's pending record: it shows its own
    reason, and the others keep theirs; holding the whole array splits nothing."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    array = lab.sbatch("--array=0-5 -N 1 --exclusive -t 10", runtime=600)
    lab.hold(f"{array}_3")
    reasons = lab.squeue().set_index("JOBID")["NODELIST(REASON)"]
    assert reasons["2_3"] == "(JobHeldUser)"
    assert {reasons[f"2_{i}"] for i in (0, 1, 2, 4, 5)} == {"(Resources)"}
    assert "(JobHeldUser)" in lab.why_pending("2_3")
    # plain squeue folds it back into the record's line, adding its reason (squeue's
    # _combine_pending_array_tasks; real Slurm 22.05 in tests/test_qa_stop21.py)
    first = lab.result.squeue_text().splitlines()[1].split()
    assert (first[0], first[-1]) == ("2_[0-5]", "(Resources,JobHeldUser)")
    whole = slurmlab.Lab("tiny")
    whole.sbatch("-N 4 --exclusive -t 10", runtime=600)
    whole.hold(whole.sbatch("--array=0-5 -N 1 --exclusive -t 10", runtime=600))
    lines = whole.result.squeue_text().splitlines()[1:]
    assert [line.split()[0] for line in lines] == ["2_[0-5]", "1"] and "JobHeldUser" in lines[0]


def test_a_workload_job_and_its_request_agree_on_user_and_account():
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import WorkloadJob

    spec = JobSpec.from_args("-t 5 --uid=bob -A llm")
    assert WorkloadJob(spec, user="bob", account="llm").user == "bob"
    with pytest.raises(SlurmlabError, match="user='alice' but its request says --uid=bob"):
        WorkloadJob(spec, user="alice")
    with pytest.raises(SlurmlabError, match="account='vision' but its request says --account=llm"):
        WorkloadJob(spec, account="vision")


def test_numpy_timedeltas_are_durations_too():
    import numpy as np

    from slurmlab.spec.units import parse_seconds

    assert parse_seconds(np.timedelta64(90, "m")) == 5400.0
    with pytest.raises(SlurmlabError, match="not a number"):
        parse_seconds(np.timedelta64("NaT"))


def test_a_job_that_never_starts_does_not_stretch_a_finished_runs_window():
    """makespan = last End - first Submit for a finished run: a job left pending for ever (its
    dependency failed) does not stretch it to the last event (a node back a day later)."""
    from slurmlab.sim.faults import NodeFailure
    from slurmlab.sim.simulate import simulate
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    def job(i, args, submit, runtime, **kw):
        return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=i, **kw)

    jobs = [job("p", "-n 1 -t 10", 0, 100, exit_code=1), job("late", "-n 16 -t 10", 50, 10)]
    never = job("dep", "-n 1 -t 10 --dependency=afterok:p", 5, 100)
    failures = [NodeFailure("node4", 200, 86400)]
    tiny = slurmlab.Cluster.preset("tiny")
    alone = simulate(tiny, Workload(jobs), "easy", failures=failures).metrics
    stuck = simulate(tiny, Workload([*jobs, never]), "easy", failures=failures).metrics
    assert stuck["makespan_s"] == alone["makespan_s"] == 100.0
    assert stuck["utilization"] == alone["utilization"]
    lab = slurmlab.Lab("tiny")  # stopped early, with a job waiting: the window ends now
    lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    lab.advance(90)
    assert lab.result.metrics["makespan_s"] == 90.0


def test_the_simulated_table_follows_the_readers_conventions(tmp_path):
    """A run that never started has NA NodeList and AllocTRES in both tables (sacct prints
    "None assigned" and nothing), and ReqMem is the job's request (sacct since 21.08)."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 2 --mem=1000 -t 10", runtime=60)
    never = lab.sbatch("-N 4 --exclusive -t 10 --begin=now+1hour", runtime=60)
    lab.scancel(never)
    lab.run()
    jobs = lab.sacct().set_index("JobID")
    assert pd.isna(jobs.loc[str(never), "NodeList"]) and pd.isna(jobs.loc[str(never), "AllocTRES"])
    assert jobs.loc["1", "ReqMem"] == 2000 and "mem=2000M" in jobs.loc["1", "ReqTRES"]
    # (its Eligible is its begin time, which the cancel leaves (_setup_job_start_msg):
    # plain sacct lists it once that time has passed, -j whenever named)
    listed = str(never) in lab.result.sacct_text(fields="JobID,NodeList").split()
    assert listed == (lab.now >= 3600)
    shown = lab.result.sacct_text(fields="JobID,NodeList", jobs=str(never))
    assert "None assigned" in shown
    path = tmp_path / "export.psv"
    slurmlab.write_sacct(lab.sacct(), path)
    back = slurmlab.read_sacct(path).set_index("JobID")
    for col in ("NodeList", "AllocTRES"):
        assert pd.isna(back.loc[str(never), col]), col
    assert back.loc["1", "ReqMem"] == 2000
