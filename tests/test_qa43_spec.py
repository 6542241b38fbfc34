"""QA 43: --begin's time of day in the current minute, --dependency mixing ',' and '?',
``%sbatch --wrap`` without a script, and --kill-on-invalid-dep kept in the request; each as
Slurm 22.05 does it (parse_time.c, job_scheduler.c, sbatch.c, slurm_opt.c)."""

from __future__ import annotations

import warnings
from datetime import datetime, time

import pytest

import slurmlab
from slurmlab import JobSpec, SbatchError
from slurmlab.spec.job import Dependency, TimeOfDay


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no warning expected)
        return fn(*args, **kwargs)


# -- 1. --begin: a time of day is today's only when its hour:minute is later than now's -----
@pytest.mark.parametrize(
    ("now", "begin", "resolved"),
    [
        ("2026-01-05T00:00:00", "midnight", "2026-01-06T00:00:00"),
        ("2026-01-05T00:00:00", "00:00", "2026-01-06T00:00:00"),
        ("2026-01-05T10:30:20", "10:30:50", "2026-01-06T10:30:50"),  # (seconds not compared)
        ("2026-01-05T10:30:20", "10:30", "2026-01-06T10:30:00"),
        ("2026-01-05T10:30:50", "10:31:10", "2026-01-05T10:31:10"),  # (a later minute: today)
        ("2026-01-05T10:30:20", "11:00", "2026-01-05T11:00:00"),
        ("2026-01-05T12:00:00", "noon", "2026-01-06T12:00:00"),
        ("2026-01-05T11:59:59", "noon", "2026-01-05T12:00:00"),
        ("2026-01-05T15:00:30", "fika", "2026-01-06T15:00:00"),
        ("2026-01-05T16:00:00", "teatime", "2026-01-06T16:00:00"),
        ("2026-01-05T10:30:20", "tomorrow", "2026-01-06T00:00:00"),
        # a date without a year: this year only when month, day, hour, minute are later
        ("2026-01-05T00:00:00", "01/05", "2027-01-05T00:00:00"),
        ("2026-01-05T10:30:20", "01/05-10:30:50", "2027-01-05T10:30:50"),
        ("2026-01-05T10:30:20", "01/05-10:31", "2026-01-05T10:31:00"),
        ("2026-01-05T10:30:20", "01/06", "2026-01-06T00:00:00"),
    ],
)
def test_begin_time_of_day_is_tomorrows_unless_its_minute_is_later(now, begin, resolved):
    """parse_time chooses today when the hour is later, or the same hour and a later minute,
    than now's (seconds are not compared), else tomorrow; a date without a year likewise
    compares month, day, hour and minute."""
    spec = JobSpec.from_args(f"--begin={begin}")
    assert isinstance(spec.begin, TimeOfDay)
    assert spec.begin.resolve(datetime.fromisoformat(now)) == datetime.fromisoformat(resolved)


def test_begin_midnight_at_the_labs_first_second_waits_a_day():
    """Lab('tiny') starts at 2026-01-05 00:00:00: --begin=midnight is the next midnight, as
    sbatch resolves it, not at once."""
    lab = slurmlab.Lab("tiny")
    jobs = [lab.sbatch(f"-n 1 -t 10 --begin={b}", runtime=60) for b in ("midnight", "00:00")]
    lab.advance("10:30:20")
    late = lab.sbatch("-n 1 -t 10 --begin=10:30:50", runtime=60)
    queue = lab.squeue().set_index("JOBID").loc[[str(j) for j in (*jobs, late)]]
    assert queue["NODELIST(REASON)"].tolist() == ["(BeginTime)"] * 3
    assert [t.isoformat() for t in queue.START_TIME] == [
        "2026-01-06T00:00:00",
        "2026-01-06T00:00:00",
        "2026-01-06T10:30:50",
    ]


def test_time_of_day_resolves_in_python_too():
    at = TimeOfDay(time(0))
    assert at.resolve(datetime(2026, 1, 5)) == datetime(2026, 1, 6)
    assert at.resolve(datetime(2026, 1, 5, 0, 0, 1)) == datetime(2026, 1, 6)
    assert TimeOfDay(time(0, 1)).resolve(datetime(2026, 1, 5, 0, 0, 59)) == datetime(
        2026, 1, 5, 0, 1
    )


# -- 2. --dependency with ',' and '?': one '?' makes the whole list 'any' -------------------
def test_dependency_mixing_separators_is_any_with_a_warning():
    """update_job_dependency accepts ',' and '?' in one list; one '?' sets its or_flag, and
    _depend_list2str marks every condition OR: the whole list is 'any'."""
    with pytest.warns(UserWarning) as caught:
        spec = JobSpec.from_args("--dependency=afterok:1,afterany:1?afternotok:1")
    assert [str(w.message) for w in caught] == [
        "--dependency='afterok:1,afterany:1?afternotok:1' mixes ',' (all) and '?' (any): one "
        "'?' makes the whole list 'any' in Slurm (the job may start when any one of its "
        "conditions is satisfied, not all of them); write "
        "--dependency=afterok:1?afterany:1?afternotok:1 to say so, or use ',' alone for 'all'"
    ]
    assert spec.dependency == (
        Dependency("afterok", ("1",)),
        Dependency("afterany", ("1",)),
        Dependency("afternotok", ("1",)),
    )
    assert spec.dependency_any
    assert spec.to_args() == ["--dependency=afterok:1?afterany:1?afternotok:1"]
    assert _quiet(JobSpec.from_args, spec.to_args()) == spec
    assert _quiet(JobSpec, dependency="afterok:1?afterany:2").dependency_any


def test_dependency_bare_ids_with_both_separators():
    """A bare job id (afterany) may follow '?' and be followed by ',' (Slurm's
    _parse_dependency_jobid_old), never followed by '?' or by a TYPE:ID condition."""
    with pytest.warns(UserWarning, match="mixes ','"):
        spec = JobSpec.from_args("--dependency=afterok:1?2,3")
    assert spec.dependency_any and [str(d) for d in spec.dependency] == [
        "afterok:1",
        "afterany:2",
        "afterany:3",
    ]
    with pytest.raises(SbatchError, match=r"write --dependency=afterany:2\?afterany:3,afterok:1"):
        JobSpec.from_args("--dependency=2?3,afterok:1")


def test_dependency_mixed_any_runs_when_one_condition_holds():
    """The whole list is 'any': a job waiting on afterok (failed) and afternotok (met) of a
    failed job starts once it fails."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-n 1 -t 10", runtime=60, exit_code=1)
    with pytest.warns(UserWarning, match="mixes ','"):
        b = lab.sbatch(f"-n 1 -t 10 --dependency=afterok:{a},afterok:{a}?afternotok:{a}")
    lab.advance(61)
    assert lab.squeue().set_index("JOBID").loc[str(b), "ST"] == "R"


# -- 3. %sbatch --wrap, and %%sbatch --wrap over a blank cell -----------------------------
@pytest.fixture
def ip():
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    return ip


def test_sbatch_line_magic_submits_a_wrap_job(ip, capsys):
    """sbatch reads no script with --wrap (sbatch.c makes one of the command): %sbatch takes
    the options on one line, %%sbatch takes --wrap over a blank cell body."""
    lab = slurmlab.Lab("tiny")
    capsys.readouterr()
    ip.run_line_magic("sbatch", "--wrap=hostname -t 5")
    ip.run_cell_magic("sbatch", "--wrap=hostname -t 5 --runtime 2m", "\n")
    ip.run_line_magic("sbatch", "--parsable --wrap='echo hi' -J w")
    out, err = capsys.readouterr()
    assert (out, err) == ("Submitted batch job 1\nSubmitted batch job 2\n3\n", "")
    assert lab.squeue().NAME.tolist() == ["wrap", "wrap", "w"]
    assert "sbatch" in ip.magics_manager.magics["line"]


def test_sbatch_line_magic_without_wrap_is_an_empty_script(ip, capsys):
    slurmlab.Lab("tiny")
    capsys.readouterr()
    ip.run_line_magic("sbatch", "-t 5")
    ip.run_cell_magic("sbatch", "-t 5", "  \n")
    _out, err = capsys.readouterr()
    assert err.splitlines() == [
        "sbatch: error: Batch script is empty! Give the script (#!/bin/bash, then #SBATCH "
        "lines and commands), or the command alone with --wrap=COMMAND (sbatch then reads no "
        "script)",
        "sbatch: error: Batch script contains only whitespace! Give the script (#!/bin/bash, "
        "then #SBATCH lines and commands), or the command alone with --wrap=COMMAND (sbatch "
        "then reads no script)",
    ]


def test_from_sbatch_blank_script_with_wrap_is_the_wrap_job():
    spec = _quiet(JobSpec.from_sbatch, "\n", "--wrap=hostname -t 5")
    assert (spec.wrap, spec.script, spec.job_name) == ("hostname", None, "wrap")
    with pytest.raises(SbatchError, match="Script arguments not permitted with --wrap"):
        JobSpec.from_sbatch("#!/bin/sh\nhostname\n", "--wrap=hostname")


# -- 4. --kill-on-invalid-dep=yes|no is kept in the request --------------------------------
@pytest.mark.parametrize(
    ("args", "kept"),
    [
        ("--kill-on-invalid-dep=yes", True),
        ("--kill-on-invalid-dep=no", False),
        ("--kill-on-invalid-dep YES", True),
        ("-t 5", None),
    ],
)
def test_kill_on_invalid_dep_is_kept_without_a_warning(args, kept):
    """sbatch's arg_set_kill_on_invalid_dep takes yes or no in any case; the request keeps
    it (None: the cluster's DependencyParameters decide) and to_args() gives it back."""
    spec = _quiet(JobSpec.from_args, args)
    assert spec.kill_on_invalid_dep is kept
    assert _quiet(JobSpec.from_args, spec.to_args()) == spec
    assert (f"--kill-on-invalid-dep={'yes' if kept else 'no'}" in spec.to_args()) == (
        kept is not None
    )
    assert spec.other == ()


def test_kill_on_invalid_dep_values_and_yes_wins():
    """Any other word is sbatch's "Invalid --kill-on-invalid-dep specification"; yes and no
    set separate flags that nothing clears, and handle_invalid_dependency tests yes first."""
    with pytest.raises(SbatchError, match="Invalid --kill-on-invalid-dep specification"):
        JobSpec.from_args("--kill-on-invalid-dep=true")
    with pytest.warns(UserWarning, match="yes wins"):
        spec = JobSpec.from_sbatch(
            "#!/bin/sh\n#SBATCH --kill-on-invalid-dep=yes\nsrun x\n", "--kill-on-invalid-dep=no"
        )
    assert spec.kill_on_invalid_dep is True
    assert _quiet(JobSpec, kill_on_invalid_dep=False).to_args() == ["--kill-on-invalid-dep=no"]
    with pytest.raises(SbatchError, match=r"give kill_on_invalid_dep=True"):
        JobSpec(kill_on_invalid_dep="yes")


KILL_CONF = "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Default=YES\n"


@pytest.mark.parametrize(
    ("params", "flag", "state"),
    [
        ("", "yes", "CANCELLED"),
        ("DependencyParameters=kill_invalid_depend\n", "no", "PENDING"),
    ],
)
def test_kill_on_invalid_dep_overrides_the_cluster(params, flag, state):
    """handle_invalid_dependency tests the job's own flag first (KILL_INV_DEP cancels it,
    NO_KILL_INV_DEP leaves it pending as DependencyNeverSatisfied), and only then
    DependencyParameters=kill_invalid_depend."""
    cluster = slurmlab.Cluster.from_slurm_conf(params + KILL_CONF)
    workload = slurmlab.Workload(
        (
            slurmlab.WorkloadJob(JobSpec.from_args("-n 1"), 0, 10, id="fails", exit_code=1),
            slurmlab.WorkloadJob(
                JobSpec.from_args(f"-n 1 --dependency=afterok:fails --kill-on-invalid-dep={flag}"),
                1,
                10,
                id="never",
            ),
        )
    )
    jobs = slurmlab.simulate(cluster, workload, until=100).jobs.set_index("JobID")
    assert jobs.loc["never", "State"] == state


def test_options_after_a_script_name_in_a_scenario_are_refused(tmp_path):
    """sbatch stops reading options at the script name: in `train.sh -N 2 -t 10` the rest
    are the script's arguments. A scenario ran such a job on one node with a day's limit
    without a word; now the entry's field is named."""
    path = tmp_path / "s.yaml"
    path.write_text(
        'cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 60, args: "train.sh -N 2 -t 10"}\n'
    )
    with pytest.raises(
        slurmlab.ScenarioError,
        match=r"line 3: jobs\[0\] \(id 'a'\): field 'args': '-N 2 -t 10' after the script name 'train.sh'",
    ):
        slurmlab.Scenario.load(path)


@pytest.mark.parametrize("line", ["#SBTACH -N 2", "#SBACH -t 10", "#SABTCH --gres=gpu:1"])
def test_a_misspelt_sbatch_directive_is_named(line):
    with pytest.warns(UserWarning, match="is a comment to sbatch"):
        spec = JobSpec.from_sbatch(f"#!/bin/bash\n{line}\nsrun hostname\n")
    assert spec.nodes is None and spec.time_limit is None and spec.gpus_per_node is None


def test_a_file_name_given_as_the_script_says_so():
    with pytest.raises(SbatchError, match=r"looks like a file's name: give the file"):
        JobSpec.from_sbatch("train.sbatch")
