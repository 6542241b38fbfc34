"""Stop 41: what a QA round and Slurm's source found."""

from __future__ import annotations

import pytest

from slurmlab import Lab
from slurmlab.errors import SlurmlabError
from slurmlab.sim.magics import scancel_magic


def _states(lab: Lab) -> dict[str, str]:
    return lab.sacct().set_index("JobID")["State"].to_dict()


def test_scancel_splits_ids_at_commas_outside_task_lists():
    """scancel (opt.c ``_xlate_job_step_ids``) takes ``12_3,12_5`` and ``12,14`` as several
    ids, as scontrol's job_list does; slurmlab refused them as one unknown id."""
    lab = Lab("tiny", "fifo")
    blocker = lab.sbatch("--exclusive -N 4 -t 1:00:00", runtime="1h")
    arr = lab.sbatch("-N 1 --array=0-5 -t 10", runtime="5m")
    other = lab.sbatch("-N 1 -t 10", runtime="5m")
    lab.advance(1)
    lab.scancel(f"{arr}_3,{arr}_4")
    states = _states(lab)
    assert states[f"{arr}_3"] == states[f"{arr}_4"] == "CANCELLED"
    assert [k for k, v in states.items() if v == "CANCELLED"] == [f"{arr}_3", f"{arr}_4"]
    lab.scancel(f"{arr}_[0-1,5],{other}")  # (a comma inside brackets stays in its list)
    states = _states(lab)
    assert {k for k, v in states.items() if v == "CANCELLED"} == {
        f"{arr}_{t}" for t in (0, 1, 3, 4, 5)
    } | {str(other)}
    assert states[f"{arr}_2"] == "PENDING" and states[str(blocker)] == "RUNNING"


def test_scancel_and_scontrol_handle_each_id_on_its_own():
    """scancel sends one request per id (scancel.c) and job_str_signal cancels the tasks of
    a task list that exist; scontrol's _next_job_id loop goes on past an invalid id. The
    errors are raised once the rest is done."""
    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 4 --exclusive -t 10", runtime="5m")
    first = lab.sbatch("-N 1 -t 10", runtime="5m")
    arr = lab.sbatch("--array=0-5 -N 1 -t 10", runtime="5m")
    with pytest.raises(
        SlurmlabError,
        match=r"on job id 999: Invalid job id specified \(the other 1 id named: cancelled\)",
    ):
        lab.scancel(f"{first},999")
    assert _states(lab)[str(first)] == "CANCELLED"
    with pytest.raises(SlurmlabError, match=rf"its tasks {arr}_\[4-5\] were cancelled"):
        lab.scancel(f"{arr}_[4-100]")
    with pytest.raises(SlurmlabError, match="'999'.*1 of the 2 jobs named was done"):
        lab.hold(f"{arr}_0,999")
    states = _states(lab)
    assert [states[f"{arr}_{t}"] for t in range(6)] == ["PENDING"] * 4 + ["CANCELLED"] * 2
    assert lab.squeue().set_index("JOBID").loc[f"{arr}_0", "NODELIST(REASON)"] == "(JobHeldUser)"


def test_scancel_magic_takes_a_comma_list(capsys):
    lab = Lab("tiny", "fifo")
    a = lab.sbatch("-N 4 --exclusive -t 10", runtime="5m")
    b = lab.sbatch("-N 4 --exclusive -t 10", runtime="5m")
    scancel_magic(f"{a},{b}")
    _out, err = capsys.readouterr()
    assert err == ""
    assert _states(lab) == {str(a): "CANCELLED", str(b): "CANCELLED"}


def _two_jobs() -> Lab:
    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 1 -t 10", runtime="5m")
    lab.sbatch("--array=0-3 -N 1 -t 10", runtime="5m")
    lab.advance(1)
    return lab


def test_sacct_text_takes_a_job_number_and_refuses_what_sacct_refuses():
    import numpy as np

    lab = _two_jobs()
    one = lab.sacct_text("JobID,State", jobs="1")
    assert lab.sacct_text("JobID,State", jobs=1) == one
    assert lab.sacct_text("JobID,State", jobs=np.int64(1)) == one
    assert lab.sacct_text("JobID,State", jobs="1,,2") == lab.sacct_text("JobID,State", jobs="1,2")
    assert lab.sacct_text("JobID,State", jobs=[1, "2_1"]).split()[-4:] == [
        "1", "RUNNING", "2_1", "RUNNING"
    ]  # fmt: skip
    for bad, said in (
        (1.0, "is not a job list"),
        ([1.0], "is not a job id"),
        ("-1", "Bad job/step specified"),
        ("2_*", "Bad job/step specified"),
        ("2_-1", "Bad job/step specified"),
        ("1.batch", "a simulation has no steps"),
        ("", "no job id in it"),
        (True, "is not a job list"),
    ):
        with pytest.raises(SlurmlabError, match=said):
            lab.sacct_text(jobs=bad)
    with pytest.raises(SlurmlabError, match="is not a field list"):
        lab.sacct_text(123)
    with pytest.raises(SlurmlabError, match="duplicates is True or False"):
        lab.sacct_text(duplicates="no")


def test_sacct_magic_adds_up_repeated_format_and_job_options(capsys):
    from slurmlab.sim.magics import sacct_magic

    lab = _two_jobs()
    sacct_magic("-o JobID -o State -j 1 --jobs=2_0")
    out, _err = capsys.readouterr()
    assert out == lab.sacct_text("JobID,State", jobs="1,2_0") + "\n"


@pytest.mark.parametrize("low", ["0", "-1", "UNLIMITED"])
def test_time_min_zero_or_unlimited_is_infinite_and_refused_as_slurmctld_does(low):
    """slurm_opt.c arg_set_time_min: 0 (and -1, UNLIMITED) is INFINITE, above any limit;
    job_mgr.c refuses it: Invalid time-min specification. slurmlab dropped it silently."""
    from slurmlab.spec.job import TIME_MIN_INFINITE, JobSpec

    assert JobSpec.from_args([f"--time-min={low}", "-t", "30"]).time_min == TIME_MIN_INFINITE
    assert "--time-min=UNLIMITED" in JobSpec.from_args([f"--time-min={low}"]).to_args()
    lab = Lab("tiny", "slurm")
    with pytest.raises(SlurmlabError, match="Invalid time-min specification.*leave --time-min"):
        lab.sbatch(f"--time-min={low} -t 30 -N 1")
    with pytest.raises(SlurmlabError, match="Invalid time-min specification"):
        lab.sbatch(f"--time-min={low} -N 1")  # (above MaxTime)
    assert lab.sbatch("--time-min=10 -t 30 -N 1") == 1


def test_a_warning_raised_at_the_callers_line_inside_simulate_is_shown(tmp_path):
    """engine.py warns with stacklevel= at the user's line; collected_warnings passed it to
    that module's registry a second time, so Python's default action hid it."""
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(
        "import slurmlab\n"
        "from slurmlab.spec.synthetic import ai_workload\n"
        "w = ai_workload(5, 'tiny', seed=1)\n"
        "slurmlab.simulate('tiny', w, policy='slurm', bf_interval=-1, sched_interval=-1,\n"
        "                  progress=False)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("bf_interval=-1 and sched_interval=-1 turn off both") == 1
    assert f"{script}:4: UserWarning" in done.stderr


def test_the_scenario_format_in_the_docstring_loads_and_runs(tmp_path):
    import textwrap
    import warnings

    import slurmlab.scenario as module
    from slurmlab import Scenario

    block = module.__doc__.split("every field it takes is below::\n\n", 1)[1]
    text = textwrap.dedent(block.split("\n\nFields in detail", 1)[0])
    path = tmp_path / "example.yaml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its fair-share and QOS fields on priority/basic)
        jobs = Scenario.load(path).run().jobs
    assert list(jobs["JobID"]) == ["big"]


def test_jobid_star_names_the_whole_array(tmp_path):
    """scancel 12_* (opt.c: array_id INFINITE), --dependency=afterok:12_* (job_scheduler.c)
    and a scenario action's ``job: sw_*`` name the whole array."""
    from slurmlab import Scenario

    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    arr = lab.sbatch("--array=0-3 -N 1 -t 10", runtime=60)
    after = lab.sbatch(f"-N 1 -t 10 --dependency=afterany:{arr}_*", runtime=60)
    lab.advance(1)
    lab.scancel(f"{arr}_*")
    states = _states(lab)
    assert [states[f"{arr}_{t}"] for t in range(4)] == ["CANCELLED"] * 4
    lab.advance(120)
    assert _states(lab)[str(after)] in ("RUNNING", "COMPLETED")
    path = tmp_path / "star.yaml"
    path.write_text(
        "cluster: tiny\npolicy: fifo\njobs:\n"
        '  - {id: big, submit: 0, runtime: 100, args: "-N 4 --exclusive -t 10"}\n'
        '  - {id: sw, submit: 0, runtime: 50, args: "--array=0-3 -N 1 -t 10"}\n'
        'actions:\n  - {at: 5, action: cancel, job: "sw_*"}\n'
    )
    jobs = Scenario.load(path).run().jobs.set_index("JobID")["State"]
    assert list(jobs[[f"sw_{t}" for t in range(4)]]) == ["CANCELLED"] * 4


def test_scontrol_job_list_forms(capsys):
    from slurmlab.sim.magics import scontrol_magic

    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    two = lab.sbatch("-N 1 -t 10", runtime=60)
    scontrol_magic(f"hold JobId={two}")  # (scontrol strips JobId= and Job=)
    assert lab.squeue().set_index("JOBID").loc[str(two), "NODELIST(REASON)"] == "(JobHeldUser)"
    scontrol_magic(f"release Job={two}")
    scontrol_magic("hold Name=foo")
    scontrol_magic("hold [2-4]")
    _out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 2 and "not by Name=" in lines[0]
    assert "'[2-4]'" in lines[1]  # (the word kept whole, not '2-4]')
    assert lab.squeue().set_index("JOBID").loc[str(two), "NODELIST(REASON)"] == "(Resources)"


def test_empty_partition_names_are_skipped_as_strtok_skips_them():
    lab = Lab("tiny", "fifo")
    for spelled in ("main,", ",main", "main,,main"):
        lab.sbatch(f"-p {spelled} -N 1 -t 5")
    assert set(lab.sacct()["Partition"]) == {"main"}
    with pytest.raises(SlurmlabError, match="Invalid partition name specified"):
        lab.sbatch("-p , -N 1 -t 5")


def test_a_node_count_update_names_one_job_as_scontrol_wants():
    """update_job.c _is_single_job: NumNodes for several ids is 'Invalid job ID', and for an
    array of several records 'Job resizing not supported for job arrays'."""
    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=60)
    one = lab.sbatch("-N 1-3 -t 10", runtime=60)
    arr = lab.sbatch("--array=0-2 -N 1-3 -t 10", runtime=60)
    lab.advance(1)
    with pytest.raises(SlurmlabError, match=f"Invalid job ID {one},{arr}"):
        lab.update(f"{one},{arr}", nodes=2)
    lab.update(arr, nodes=2)  # (one pending record: one job to scontrol)
    lab.hold(f"{arr}_1")  # (split off: two records now)
    with pytest.raises(SlurmlabError, match="Job resizing not supported for job arrays"):
        lab.update(arr, nodes=3)
    lab.update(f"{arr}_0", nodes=3)
    lab.update(f"{arr}_2", time="5")  # (other changes may name an array of many records)


@pytest.mark.parametrize(
    ("value", "said"),
    [("1.5", "parse_time.c refuses a fraction"), ("-5", "write it as text: time: '-5'")],
)
def test_an_update_actions_time_as_a_yaml_number_is_whole_minutes(tmp_path, value, said):
    from slurmlab import Scenario
    from slurmlab.errors import ScenarioError

    path = tmp_path / "u.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        '  - {id: a, submit: 0, runtime: 100, args: "-N 4 --exclusive -t 10"}\n'
        '  - {id: b, submit: 0, runtime: 50, args: "-N 1 -t 10"}\n'
        f"actions:\n  - {{at: 5, action: update, job: b, time: {value}}}\n"
    )
    with pytest.raises(ScenarioError, match=rf"line 6: actions\[0\]: field 'time'.*{said}"):
        Scenario.load(path)


def test_an_update_with_nothing_to_change_says_what_it_takes():
    lab = Lab("tiny", "fifo")
    job = lab.sbatch("-N 1 -t 10")
    with pytest.raises(SlurmlabError, match="No changes specified.*time=, partition= or throttle="):
        lab.update(job)
