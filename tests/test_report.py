"""The HTML report: self-contained, and every text from the export escaped."""

from __future__ import annotations

import io
import re

import pytest

from slurmlab.records.sacct import read_sacct
from slurmlab.report import render_report, write_report

EVIL = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>"]


def evil_jobs():
    rows = [
        "JobID|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES|TotalCPU|Timelimit"
    ]
    for i, name in enumerate(EVIL * 2):
        rows.append(
            f"{i + 1}|{name}|{EVIL[i % 2]}|{EVIL[(i + 1) % 2]}|{name}|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:0{i}:00|"
            f"2024-01-01T02:00:00|01:5{i}:00|4|1|cpu=4,gres/gpu=1|01:00:00|03:00:00"
        )
    return read_sacct(io.StringIO("\n".join(rows)))


def test_export_text_is_only_escaped():
    """A job/user/account named <script>... shows as text: no raw tag reaches the HTML."""
    page = render_report(evil_jobs())
    for evil in EVIL:
        assert evil not in page
        assert evil.lower() not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # inside figure JSON the names are \\u003c-escaped
    assert "\\u003cscript\\u003ealert(1)\\u003c\\u002fscript\\u003e" in page


def test_report_is_self_contained(tmp_path):
    out = write_report(evil_jobs(), tmp_path / "report.html")
    page = out.read_text(encoding="utf-8")
    assert "<script src=" not in page  # plotly.js is inline: works offline
    assert len(re.findall(r"Plotly\.newPlot", page)) >= 4
    assert page.count("<html") == 1


def test_report_cli(tmp_path, capsys):
    from slurmlab.cli import main

    src = tmp_path / "export.txt"
    from slurmlab.records.sacct import write_sacct

    src.write_text(write_sacct(evil_jobs()))
    out = tmp_path / "r.html"
    assert main(["report", str(src), "-o", str(out), "--cluster", "tiny"]) == 0
    page = out.read_text()
    assert all(evil not in page for evil in EVIL)


@pytest.mark.parametrize("text", ["JobID|State\n1|PENDING\n", "JobID|State|Start|End|Elapsed\n"])
def test_report_of_tiny_or_empty_tables(text):
    page = render_report(read_sacct(io.StringIO(text)))
    assert "<h1>" in page
