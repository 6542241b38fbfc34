"""QA stop 25, a last review of the stop's changes: the fixes it asked for."""

from __future__ import annotations

import copy
import io
import pickle
import warnings
from pathlib import Path

import pytest

import slurmlab
from slurmlab.analysis import share_vs_target, summary
from slurmlab.cli import main
from slurmlab.errors import ScenarioError
from slurmlab.records.swf import SwfDropWarning

HEADER = "JobID|JobIDRaw|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Account\n"


def test_a_job_pending_in_one_export_and_finished_in_the_next_is_one_run(tmp_path):
    day1, day2 = tmp_path / "d1.psv", tmp_path / "d2.psv"
    day1.write_text(
        HEADER
        + "7|7|PENDING|2024-01-01T22:00:00|Unknown|Unknown|00:00:00|4||a\n"
        + "8|8|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|"
        "01:00:00|4|cpu=4,gres/gpu=2|a\n"
    )
    day2.write_text(
        HEADER + "7|7|COMPLETED|2024-01-01T22:00:00|2024-01-02T01:00:00|2024-01-02T03:00:00|"
        "02:00:00|4|cpu=4,gres/gpu=2|a\n"
    )
    with pytest.warns(UserWarning, match="JobID 7: kept .*d2.psv:2 .COMPLETED., left out"):
        jobs = slurmlab.read_sacct([day1, day2])
    assert jobs[["JobID", "State"]].values.tolist() == [["7", "COMPLETED"], ["8", "COMPLETED"]]
    assert summary(jobs).gpu_hours == 6.0


def test_sacct_out_refuses_an_id_that_would_not_read_back_before_simulating(tmp_path, capsys):
    path = tmp_path / "id.yaml"
    path.write_text('cluster: tiny\njobs:\n  - {id: train.1, runtime: 60, args: "-N 1 -t 5"}\n')
    out = tmp_path / "x.psv"
    assert main(["simulate", str(path), "--sacct-out", str(out)]) == 1
    assert "job id 'train.1' would not read back from a sacct export" in capsys.readouterr().err
    assert not out.exists()


def test_share_vs_target_of_unknown_hours_is_unknown():
    text = "JobID|State|Account|Start|End|Elapsed|NCPUS\n1|COMPLETED|a|2024-01-01T00:00:00|"
    text += "2024-01-01T01:00:00|01:00:00|4\n"
    jobs = slurmlab.read_sacct(io.StringIO(text))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = share_vs_target(jobs, {"a": 1, "b": 1})
    assert out["share"].isna().all() and out["ratio"].isna().all()


def test_hours_of_an_export_where_nothing_ran_are_zero_not_unknown():
    text = "JobID|State|Account|Submit|Start|AllocTRES\n1|PENDING|a|2024-01-01T00:00:00|Unknown|\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "unknown" warning: nothing ran)
        s = summary(slurmlab.read_sacct(io.StringIO(text)))
    assert (s.runs, s.gpu_hours) == (0, 0.0)


def test_a_negative_wait_in_a_utc_json_export_is_not_blamed_on_tz(tmp_path):
    jobs = slurmlab.read_sacct(
        io.StringIO(
            "JobID|State|Submit|Start|End|Elapsed|NCPUS\n1|COMPLETED|2024-01-01T01:00:00|"
            "2024-01-01T00:30:00|2024-01-01T02:00:00|01:30:00|4\n"
        )
    )
    jobs.attrs["format"] = "json"
    with pytest.warns(UserWarning) as caught:
        slurmlab.analysis.wait_times(jobs)
    text = " ".join(str(w.message) for w in caught)
    assert "export with TZ=UTC" in text and "read without tz=" not in text


def test_the_report_says_why_top_users_are_missing(tmp_path):
    path = tmp_path / "e.psv"
    path.write_text(
        "JobID|Account|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES\n"
        "1|a|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|"
        "4|cpu=4\n"
    )
    html = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slurmlab.write_report(slurmlab.read_sacct(path), html)
    assert "Top users are not shown: the export has no User" in html.read_text()


def test_a_submit_with_a_time_zone_is_explained_not_a_type_error(tmp_path):
    path = tmp_path / "tz.yaml"
    path.write_text(
        'cluster: tiny\njobs:\n  - {submit: 2026-01-05T08:00:00Z, runtime: 10, args: "-t 1"}\n'
    )
    with pytest.raises(ScenarioError, match="write submit: 8:00:00, or set origin"):
        slurmlab.Scenario.load(path)


def test_swf_drop_warnings_pickle_and_copy_with_their_counts():
    w = SwfDropWarning("dropped 2 jobs", {"no processors": 2})
    for again in (pickle.loads(pickle.dumps(w)), copy.copy(w)):
        assert (str(again), again.counts) == ("dropped 2 jobs", {"no processors": 2})


def test_the_cli_prints_warnings_as_its_own_lines(tmp_path, capsys):
    conf = Path(__file__).resolve().parents[1] / "datasets" / "realslurm" / "slurm.conf"
    assert main(["sinfo", str(conf)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("slurmlab: warning: ") and "UserWarning" not in err


def test_sinfo_of_a_missing_scenario_file_says_so(tmp_path, capsys):
    assert main(["sinfo", str(tmp_path / "nothere.yaml")]) == 1
    assert "nothere.yaml' not found" in capsys.readouterr().err


def test_a_time_before_the_start_is_refused_as_a_date_too():
    result = slurmlab.Scenario.load(
        Path(__file__).resolve().parents[1] / "course" / "scenarios" / "backfill-basics.yaml"
    ).run()
    with pytest.raises(slurmlab.SlurmlabError, match="before the simulation's start"):
        result.squeue_text(at="2025-01-01T00:00")
