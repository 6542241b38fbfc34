"""QA stop 24: each test quotes its input and the exact outcome."""

from __future__ import annotations

import io
import re

import pytest

from slurmlab import analysis as an
from slurmlab.records.sacct import read_sacct
from slurmlab.report import render_report

HEADER = (
    "JobID|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES"
)


def _row(job, state, start, elapsed, gpus):
    end = "Unknown" if start == "Unknown" else "2024-01-01T05:00:00"
    tres = f"cpu=8,gres/gpu={gpus}" if gpus else "cpu=8"
    return (
        f"{job}|train{job}|ann|llm|gpu|{state}|2024-01-01T00:00:00|{start}|{end}|{elapsed}|8|1|"
        f"{tres}"
    )


def _three_pending_two_ran():
    rows = [
        HEADER,
        _row(1, "COMPLETED", "2024-01-01T01:00:00", "02:00:00", 8),  # 16 GPU-hours
        _row(2, "FAILED", "2024-01-01T01:00:00", "00:30:00", 4),  # 2 GPU-hours
        _row(3, "PENDING", "Unknown", "00:00:00", 0),
        _row(4, "CANCELLED by 1000", "Unknown", "00:00:00", 0),
        _row(5, "COMPLETED", "2024-01-01T01:00:00", "00:00:00", 8),  # ran 0 s: 0 hours
    ]
    return read_sacct(io.StringIO("\n".join(rows)))


def test_biggest_runs_lists_only_runs_that_used_the_resource():
    """Two runs used GPUs; the pending job, the one cancelled before it started and the 0-s run
    are not among the 'biggest' (they used to fill the report's top-10 table)."""
    big = an.biggest_runs(_three_pending_two_ran())
    assert big["JobID"].tolist() == ["1", "2"]
    assert big["gpu_hours"].tolist() == [16.0, 2.0]
    assert an.biggest_runs(_three_pending_two_ran(), resource="cpu_hours", n=1)[
        "cpu_hours"
    ].tolist() == [16.0]
    with pytest.raises(
        ValueError, match=r"resource='gpus': use cpu_hours, gpu_hours or node_hours"
    ):
        an.biggest_runs(_three_pending_two_ran(), resource="gpus")


def test_report_biggest_runs_table_has_the_two_runs():
    page = render_report(_three_pending_two_ran())
    table = page[page.index("Biggest runs") :]
    table = table[: table.index("</table>")]
    assert re.findall(r"<td>(train\d)</td>", table) == ["train1", "train2"]


REQUEUED_AND_PENDING = """JobID|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Restarts
7|NODE_FAIL|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|8|cpu=8,gres/gpu=4|0
7|PENDING|2024-01-01T01:00:00|Unknown|Unknown|00:00:00|8|cpu=8,gres/gpu=4|1
8|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T02:00:00|02:00:00|8|cpu=8,gres/gpu=4|0
9|CANCELLED by 42|2024-01-01T00:00:00|Unknown|2024-01-01T00:10:00|00:00:00|8||0
10_[1-3]|PENDING|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|8||0
"""


def test_runs_mean_the_same_in_every_analyser():
    """Runs are the rows that started: job 7's NODE_FAIL run and job 8's. Job 7's pending
    row, job 9 (cancelled before it started) and the pending range are jobs, not runs: the
    summary used to count 5 runs (every row), failure_cost a CANCELLED 'run' of 0 hours,
    requeues 2 runs for job 7."""
    jobs = read_sacct(io.StringIO(REQUEUED_AND_PENDING))
    s = an.summary(jobs)
    assert (s.jobs, s.runs) == (6, 2)
    assert "6 jobs (2 runs, 0 steps)" in s.words()
    assert int(an.usage(jobs)["runs"].sum()) == 2
    cost = an.failure_cost(jobs)
    assert cost[["State", "runs", "gpu_hours"]].to_dict("records") == [
        {"State": "NODE_FAIL", "runs": 1, "gpu_hours": 4.0}
    ]
    (row,) = an.requeues(jobs).to_dict("records")
    assert (row["runs"], row["Restarts"], row["states"]) == (1, 1, "NODE_FAIL>PENDING")
    assert row["lost_gpu_hours"] == 4.0


def test_a_failed_job_with_a_step_ran_in_an_export_without_start_times():
    """reportseff-style export (no Start field): a FAILED job of Elapsed 0 whose .batch step
    exists ran (and failed at once); a CANCELLED one without steps never started."""
    text = (
        "JobID|State|Elapsed|NCPUS|TotalCPU\n"
        "1|FAILED|00:00:00|8|00:00.007\n"
        "1.batch|FAILED|00:00:00|8|00:00.006\n"
        "2|CANCELLED by 129319|00:00:00|16|00:00:00\n"
    )
    jobs = read_sacct(io.StringIO(text))
    assert an.summary(jobs).runs == 1
    assert an.failure_cost(jobs)["State"].tolist() == ["FAILED"]
