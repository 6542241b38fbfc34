"""Stop 30: an instructor's review (a workshop built on Lab, scenario files and the CLI)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import slurmlab
from slurmlab import JobSpec, Lab, simulate
from slurmlab.errors import RequestError, SbatchError, ScenarioError
from slurmlab.scenario import Scenario
from slurmlab.spec.workload import Workload, WorkloadJob


def test_simulate_warns_about_jobs_that_never_start():
    """The CLI said "1 job never started"; simulate and Scenario.run said nothing, and a
    notebook showed NaN waits with no hint."""
    w = Workload((WorkloadJob(JobSpec.from_args("-p debug -t 2:00:00"), 0, 60, id="a"),))
    with pytest.warns(UserWarning, match=r"^1 job never started: a \(PartitionTimeLimit\); "):
        result = simulate("ai", w, "easy", progress=False)
    assert result.jobs["State"].tolist() == ["PENDING"]
    with warnings.catch_warnings():  # a run bounded by until= ends with jobs still waiting
        warnings.simplefilter("error")
        simulate("ai", w, "easy", until=30, progress=False)


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("2h", "write 2:00:00, or 120 (minutes)"),
        ("90m", "write 1:30:00, or 90 (minutes)"),
        ("2 hours", "write 2:00:00, or 120 (minutes)"),
        ("1d", "write 1-00:00:00, or 1440 (minutes)"),
        ("45s", "write 0:45)"),
    ],
)
def test_a_time_limit_with_a_unit_says_how_slurm_writes_it(value, fix):
    with pytest.raises(SbatchError) as err:
        JobSpec.from_args(["-t", value])
    assert "Invalid --time specification" in str(err.value)
    assert f"(Slurm takes no units: {fix}" in str(err.value)


def test_a_negative_gpu_count_is_explained():
    """--gres=gpu:-1: Slurm reads -1 as a GPU type (so does slurmlab); the error says so."""
    with pytest.raises(RequestError, match="a GPU count is a whole number of 0 or more"):
        Lab("ai", "easy").sbatch("--gres=gpu:-1 -t 5")


def test_a_dependency_on_a_job_submitted_at_the_same_time_says_the_file_order_counts(tmp_path):
    path = tmp_path / "deps.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        "  - {id: eval, submit: 0, runtime: 60, args: '--dependency=afterok:prep -t 5'}\n"
        "  - {id: prep, submit: 0, runtime: 60, args: '-t 5'}\n"
    )
    with pytest.raises(ScenarioError) as err:
        Scenario.load(path)
    text = str(err.value)
    assert "is submitted at 0 s, not before this job (0 s)" in text
    assert "move 'prep' above this job, or give it an earlier submit" in text


def test_a_job_waiting_for_its_begin_time_has_it_as_eligible_time_in_sacct():
    """slurmdbd records a pending job's begin time as its eligible time at submission
    (as_mysql_job_start: time_eligible = begin_time), so sacct shows it before it starts.
    Checked on real Slurm 22.05 (stop 30, by hand): `sbatch --begin=now+60` at 08:32:40,
    sacct -X while PENDING: Eligible 08:33:40, Start Unknown."""
    lab = Lab("ai", "easy")
    lab.sbatch("--begin=now+1hour -t 10", runtime=60)
    lab.advance("1m")
    row = lab.sacct().iloc[0]
    assert row["State"] == "PENDING" and row["Reason"] == "BeginTime"
    assert row["Eligible"] == row["Submit"] + pd.Timedelta(hours=1)
    lab.advance("2h")
    row = lab.sacct().iloc[0]
    assert row["Eligible"] == row["Start"] == row["Submit"] + pd.Timedelta(hours=1)


def test_a_held_job_with_a_dependency_keeps_an_unknown_eligible_time():
    lab = Lab("ai", "easy")
    first = lab.sbatch("-t 10", runtime=600)
    lab.sbatch(f"--dependency=afterok:{first} -t 10", runtime=60)
    lab.advance("1m")
    assert pd.isna(lab.sacct().iloc[1]["Eligible"])
    assert slurmlab.__name__ == "slurmlab"


def test_a_dependency_on_a_misspelt_job_suggests_the_id(tmp_path):
    path = tmp_path / "deps.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        "  - {id: train, submit: 0, runtime: 60, args: '-t 5'}\n"
        "  - {id: eval, submit: 10, runtime: 60, args: '--dependency=afterok:tran -t 5'}\n"
    )
    with pytest.raises(
        ScenarioError, match=r"job 'tran' is not in this scenario \(did you mean 'train'\?\)"
    ):
        Scenario.load(path)


def test_a_misspelt_scenario_file_name_suggests_the_file(tmp_path):
    (tmp_path / "backfill-basics.yaml").write_text("cluster: tiny\njobs: []\n")
    with pytest.raises(ScenarioError) as err:
        Scenario.load(tmp_path / "backfill-basic.yaml")
    assert f"did you mean {str(tmp_path / 'backfill-basics.yaml')!r}?" in str(err.value)


def test_sacct_shows_a_pending_jobs_reason_as_slurmctld_gives_it_to_the_database():
    """Real Slurm 22.05, checked by hand at stop 30 (a 4-node exclusive job running, then
    jobs behind it): sacct -X showed Reason None for the jobs pending for Resources and for
    Priority, JobHeldUser for a held one, Dependency, BeginTime (--begin=now+300) and
    PartitionTimeLimit for the others; Eligible the submit time for the first two, Unknown
    for the held and the dependent ones, the begin time for the --begin one. slurmctld keeps
    only reasons other than waiting one's turn for the database (state_reason_prev_db)."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    lab.sbatch("-N 4 -t 10", runtime=60)
    lab.sbatch("-N 1 -t 10", runtime=60)
    lab.sbatch("-N 1 -H -t 10", runtime=60)
    lab.sbatch("-N 1 --dependency=afterok:1 -t 10", runtime=60)
    lab.sbatch("-N 1 --begin=now+300 -t 10", runtime=60)
    lab.sbatch("-N 1 -t 2-00:00:00", runtime=60)  # tiny's MaxTime is 1 day
    lab.advance("10s")
    table = lab.sacct().set_index("JobID")
    assert table["Reason"].to_dict() == {
        "1": "None", "2": "None", "3": "None", "4": "JobHeldUser", "5": "Dependency",
        "6": "BeginTime", "7": "PartitionTimeLimit",
    }  # fmt: skip
    submit = table.loc["2", "Submit"]
    assert table.loc["2", "Eligible"] == table.loc["3", "Eligible"] == submit
    assert pd.isna(table.loc["4", "Eligible"]) and pd.isna(table.loc["5", "Eligible"])
    assert table.loc["6", "Eligible"] == submit + pd.Timedelta(minutes=5)
