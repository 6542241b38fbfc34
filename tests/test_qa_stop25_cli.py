"""QA stop 25, the command line for an instructor: a scenario's sinfo, and a simulated
report from the shell (simulate --sacct-out, then summary or report)."""

from __future__ import annotations

from pathlib import Path

import slurmlab
from slurmlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
BACKFILL = ROOT / "course" / "scenarios" / "backfill-basics.yaml"


def test_sinfo_of_a_scenario_prints_its_cluster(capsys):
    assert main(["sinfo", str(BACKFILL)]) == 0
    out = capsys.readouterr().out
    assert out == slurmlab.Scenario.load(BACKFILL).cluster.sinfo_text() + "\n"
    assert out.splitlines()[0].split() == [
        "PARTITION",
        "AVAIL",
        "TIMELIMIT",
        "NODES",
        "STATE",
        "NODELIST",
    ]


def test_sinfo_of_a_scenario_refuses_a_gres_conf(capsys, tmp_path):
    assert main(["sinfo", str(BACKFILL), "--gres-conf", str(tmp_path / "gres.conf")]) == 1
    assert "--gres-conf applies to a slurm.conf" in capsys.readouterr().err


def test_a_simulated_sacct_export_feeds_summary_and_report(capsys, tmp_path):
    out = tmp_path / "jobs.psv"
    assert main(["simulate", str(BACKFILL), "--sacct-out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    jobs = slurmlab.read_sacct(out)
    result = slurmlab.Scenario.load(BACKFILL).run()
    assert sorted(jobs["JobID"]) == sorted(result.jobs["JobID"])
    assert (jobs["Start"].sort_values().tolist()) == result.jobs["Start"].sort_values().tolist()
    assert main(["summary", str(out)]) == 0
    assert capsys.readouterr().out.startswith("5 jobs (5 runs, 0 steps)")
    html = tmp_path / "report.html"
    assert main(["report", str(out), "-o", str(html)]) == 0
    assert html.stat().st_size > 0


def test_report_of_a_scenario_says_how_to_simulate_it_first(capsys, tmp_path):
    assert main(["report", str(BACKFILL), "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert "is a scenario file, not a sacct export" in err
    assert f"slurmlab simulate {BACKFILL} --sacct-out jobs.psv" in err


def test_sacct_out_must_be_writable_before_simulating(capsys, tmp_path):
    assert main(["simulate", str(BACKFILL), "--sacct-out", str(tmp_path / "no" / "x.psv")]) == 1
    assert "--sacct-out" in capsys.readouterr().err
