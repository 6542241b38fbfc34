"""``slurmlab simulate``'s text line: a mean over no job (no job started, or none ended by
``--until``) is "n/a", as ``--json`` gives it null, never Python's "nan"."""

from __future__ import annotations

import pytest

from slurmlab.cli import main

NEVER = "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 10, args: '-N 100'}\n"
LONG = "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 3000, args: '-N 1 -t 1:00:00'}\n"


def _line(capsys, tmp_path, text: str, *extra: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    assert main(["simulate", str(path), "--quiet", *extra]) == 0
    return capsys.readouterr().out


def test_no_job_started_gives_no_mean_wait(capsys, tmp_path):
    """A job that can never start (PartitionConfig): no wait, no slowdown to average."""
    out = _line(capsys, tmp_path, NEVER)
    assert "nan" not in out
    assert "mean wait n/a (no job started), median wait n/a, p95 wait n/a, " in out
    assert "mean bounded slowdown n/a," in out


@pytest.mark.parametrize("until", ["100", "30m"])
def test_no_job_ended_by_until_gives_no_mean_slowdown(capsys, tmp_path, until):
    """Stopped before the only job ends: its wait is known (0 s), its slowdown is not."""
    out = _line(capsys, tmp_path, LONG, "--until", until)
    assert "nan" not in out
    assert "mean wait 0 s, median wait 0 s, p95 wait 0 s, " in out
    assert "mean bounded slowdown n/a (no job ended), " in out


def test_the_warning_of_no_jobs_names_the_means_as_the_line_shows_them(capsys, tmp_path):
    """With no job at all the warning says the means below are undefined as the line shows
    them (n/a), not as Python prints a NaN."""
    path = tmp_path / "s.yaml"
    path.write_text("cluster: tiny\njobs: []\n")
    assert main(["simulate", str(path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "undefined (n/a; null in --json)" in captured.err and "nan" not in captured.err
    assert "mean wait n/a (no job started)" in captured.out
