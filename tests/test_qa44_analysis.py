"""QA 44, metrics and analysis: a job cancelled while pending does not stretch the makespan;
cpu_efficiency tells a run still going by its State, not by an End the export lacks;
pending_over_time leaves out a job that never became eligible; usage takes pandas'
start-anchored periods (MS, QS, YS) and refuses multiples, which are no calendar grid."""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab import analysis as an
from slurmlab.errors import SlurmlabError

ROOT = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    env = os.environ.get("SLURMLAB_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


PUBLIC = _shared() / "datasets/public/sacct"


def table(text: str) -> pd.DataFrame:
    return slurmlab.read_sacct(io.StringIO(text))


def cpu_utilization(runs: pd.DataFrame, cluster, **window) -> float:
    """analysis.utilization over the whole table, as one fraction (metrics' definition)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = an.utilization(runs, capacity=cluster, by=None, **window)
    cpus = u[u["resource"] == "cpus"]
    covered = cpus["covered"].dt.total_seconds()
    return float((cpus["used"] * covered).sum() / (cpus["capacity"].iloc[0] * covered.sum()))


# -- 1. makespan: the last End of a run that started --------------------------------------


def test_a_job_cancelled_while_pending_does_not_stretch_the_makespan():
    """makespan = last End of a run that started - first Submit: a job that pends for ever
    (-N 5 on 4 nodes) and is cancelled at 200 s has an End (its cancel time, as sacct
    writes it) but held nothing, so the window is the 60 s the other job ran."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 10", runtime=60)
    stuck = lab.sbatch("-N 5 -t 10", runtime=60)
    lab.advance(200)
    lab.scancel(stuck)
    lab.run()
    runs = lab.result.jobs_all_runs
    assert runs["End"].max() == lab.result.origin + pd.Timedelta(seconds=200)
    m = lab.result.metrics
    assert m["makespan_s"] == 60.0
    assert m["utilization"] == pytest.approx(cpu_utilization(runs, lab.cluster))


def test_partition_limits_metrics_equal_the_analyzers_utilization():
    """The QA repro: the partition-limits scenario's stuck jobs are cancelled at 90 s; the
    last run ends at 70 s. Makespan 70 s, and metrics["utilization"] is what
    analysis.utilization gives on jobs_all_runs, as its docstring says."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = slurmlab.Scenario.load(
            ROOT / "datasets/realslurm/scenarios/partition-limits.yaml"
        ).run()
    assert r.metrics["makespan_s"] == 70.0
    assert r.metrics["utilization"] == pytest.approx(0.015625)
    assert r.metrics["utilization"] == pytest.approx(cpu_utilization(r.jobs_all_runs, r.cluster))


def test_a_stopped_run_with_a_held_job_matches_the_analyzer_given_its_end():
    """The one case the two windows differ (analysis.utilization's docstring): a run
    stopped at 150 s with only a held job left counts its metrics to 150 s; the table ends
    at its last end (100 s) unless end= gives the stop time."""
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    jobs = [
        WorkloadJob(JobSpec.from_args(["-N", "4", "--exclusive", "-t", "10"]), 0, 100, id="a"),
        WorkloadJob(JobSpec.from_args(["-N", "1", "-t", "10", "-H"]), 0, 10, id="h"),
    ]
    r = slurmlab.simulate("tiny", Workload(jobs), "easy", until=150)
    assert r.metrics["utilization"] == pytest.approx(100 / 150)
    assert cpu_utilization(r.jobs_all_runs, r.cluster) == pytest.approx(1.0)
    stop = r.origin + pd.Timedelta(seconds=r.sim.now)
    assert cpu_utilization(r.jobs_all_runs, r.cluster, end=stop) == pytest.approx(100 / 150)


# -- 2. cpu_efficiency: running by State ---------------------------------------------------

#: reportseff's issue-16 job row, without End (as its field list has none), and a job
#: cancelled by a user with End Unknown (slurm2sql's test data), each with a step.
NO_END = """\
JobID|State|Elapsed|NCPUS|TotalCPU
65638294|COMPLETED|07:36:03|16|4-23:56:21
65638294.batch|COMPLETED|07:36:03|16|4-23:56:21
"""
CANCELLED_UNKNOWN_END = """\
JobID|State|Start|End|Elapsed|NCPUS|TotalCPU
43977780|CANCELLED by 1300204|2019-08-01T00:35:27|Unknown|00:00:17|1|00:00.804
43977780.0|CANCELLED|2019-08-01T00:35:27|Unknown|00:00:17|1|00:00.804
44000000|RUNNING|2019-08-01T00:35:27|Unknown|00:10:00|1|00:00:00
44000000.batch|RUNNING|2019-08-01T00:35:27|Unknown|00:10:00|1|00:00:00
"""


def test_cpu_efficiency_of_an_export_without_end_is_known():
    """read_sacct makes End a column of NaT when the export lacks it: that says nothing of
    whether a COMPLETED run is still going (reportseff's test_issue_16: 98.6 %)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "still running" warning)
        eff = an.cpu_efficiency(table(NO_END))
    assert eff["cpu_efficiency"].tolist() == pytest.approx([431781 / (27363 * 16)])


def test_cpu_efficiency_of_a_cancelled_run_with_end_unknown_is_known():
    """A run whose State has ended (CANCELLED by a uid) counts whatever its End says; a
    RUNNING one is NaN, with the warning."""
    with pytest.warns(UserWarning, match="1 of 2 run\\(s\\) are still running"):
        eff = an.cpu_efficiency(table(CANCELLED_UNKNOWN_END))
    assert eff["cpu_efficiency"].iloc[0] == pytest.approx(0.804 / 17)
    assert pd.isna(eff["cpu_efficiency"].iloc[1])


def test_without_state_an_unknown_end_still_says_running():
    """Where the State is unknown, an End Unknown in an export that has End times is a run
    still going, and a known End one that ended."""
    text = """\
JobID|Start|End|Elapsed|NCPUS|TotalCPU
1|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|2|01:00:00
1.batch|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|2|01:00:00
2|2024-01-01T00:00:00|Unknown|01:00:00|2|00:30:00
2.batch|2024-01-01T00:00:00|Unknown|01:00:00|2|00:30:00
"""
    lines = text.splitlines()
    blank = "\n".join(
        [lines[0].replace("JobID|", "JobID|State|", 1)]
        + [line.replace("|", "||", 1) for line in lines[1:]]
    )
    for export in (text, blank):  # no State field; a blank State (read as UNKNOWN)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the reader's: a blank State is no sacct state)
            jobs = table(export)
        with pytest.warns(UserWarning, match="1 of 2 run\\(s\\) are still running"):
            eff = an.cpu_efficiency(jobs)
        assert eff["cpu_efficiency"].iloc[0] == 0.5
        assert pd.isna(eff["cpu_efficiency"].iloc[1])


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"public samples not found at {PUBLIC}")
def test_reportseff_issue_16_cpu_efficiency():
    """The QA repro on the real capture, with reportseff's field list (no End)."""
    fields = (
        "AdminComment,AllocCPUS,Elapsed,JobID,JobIDRaw,MaxRSS,NNodes,NTasks,ReqMem,State,"
        "Timelimit,TotalCPU"
    )
    jobs = slurmlab.read_sacct(
        PUBLIC / "reportseff_issue16-many-steps.caretpipe.txt", fields=fields
    )
    eff = an.cpu_efficiency(jobs)
    assert round(float(eff["cpu_efficiency"].iloc[0]) * 100, 1) == 98.6


# -- 3. pending_over_time: never eligible, never pending -----------------------------------


def test_a_job_that_never_became_eligible_is_never_pending():
    """The dependency fixture's d_never (its dependency failed; Eligible Unknown, cancelled
    at 13:54:57) waited on a dependency only, which is not pending: the count is 0 until
    the second solo job pends at 13:54:55, then 1."""
    jobs = slurmlab.read_sacct(ROOT / "datasets/realslurm/dependency/sacct.txt")
    never = jobs[jobs["JobName"] == "d_never"]
    assert never["Eligible"].isna().all() and never["Start"].isna().all()
    pending = an.pending_over_time(jobs, by=None)
    assert pending["pending"].tolist() == [0, 1, 0, 0]
    assert pending["time"].iloc[1] == pd.Timestamp("2026-12-02 13:54:55")


HELD = """\
JobID|State|Submit|Eligible|Start|End|Elapsed|NCPUS|NNodes
1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T00:20:00|00:10:00|1|1
2|PENDING|2024-01-01T00:00:00|Unknown|Unknown|Unknown|00:00:00|1|1
3|COMPLETED|2024-01-01T00:05:00|Unknown|2024-01-01T00:05:00|2024-01-01T00:15:00|00:10:00|1|1
"""


def test_pending_from_eligible_and_from_submit_where_the_export_lacks_it():
    """A held job (Eligible Unknown, still PENDING) is not pending; a run that started with
    Eligible Unknown (held while it ran) pends from Submit; without the Eligible field every
    run pends from Submit."""
    held = an.pending_over_time(table(HELD), by=None)
    assert held.assign(t=held["time"].dt.strftime("%H:%M"))[["t", "pending"]].values.tolist() == [
        ["00:00", 1],
        ["00:10", 0],
        ["00:20", 0],
    ]
    no_eligible = table(
        "\n".join(
            "|".join(f for i, f in enumerate(line.split("|")) if i != 3)
            for line in HELD.splitlines()
        )
    )
    assert "Eligible" not in no_eligible.attrs["fields"]
    assert an.pending_over_time(no_eligible, by=None)["pending"].tolist() == [2, 1, 1]


def test_without_state_a_job_that_never_started_stops_pending_at_its_end():
    """An export without State: a job that never started but has an End (cancelled while
    pending) pends until that End, not to the end of the export."""
    text = """\
JobID|Submit|Eligible|Start|End|Elapsed|NCPUS|NNodes
1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|1
2|2024-01-01T00:00:00|2024-01-01T00:00:00|Unknown|2024-01-01T00:20:00|00:00:00|1|1
"""
    pending = an.pending_over_time(table(text), by=None)
    assert pending["pending"].tolist() == [1, 0, 0]
    assert pending["time"].dt.strftime("%H:%M").tolist() == ["00:00", "00:20", "01:00"]


# -- 4. usage: pandas' start-anchored periods ----------------------------------------------

LONG = """\
JobID|Account|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES
1|a|COMPLETED|2024-01-10T05:00:00|2024-01-10T05:00:00|2024-04-13T05:00:00|94-00:00:00|1|1|cpu=1,node=1
"""


@pytest.mark.parametrize(
    ("period", "same", "rows"),
    [("MS", "M", 4), ("QS", "Q", 2), ("YS", "Y", 1), ("ME", "M", 4), ("QS-JAN", "Q-DEC", 2)],
)
def test_usage_takes_start_anchored_periods(period, same, rows):
    """usage's docstring names "MS": it is the month, as "QS" the quarter and "YS" the
    year (pandas' Periods refuse those names); the hours are the same and add up."""
    jobs = table(LONG)
    got = an.usage(jobs, by="Account", period=period)
    pd.testing.assert_frame_equal(got, an.usage(jobs, by="Account", period=same))
    assert len(got) == rows and got["cpu_hours"].sum() == pytest.approx(94 * 24)


def test_usage_quarters_from_december_start_in_december():
    u = an.usage(table(LONG), by="Account", period="QS-DEC")
    assert u["period"].dt.strftime("%Y-%m-%d").tolist() == ["2023-12-01", "2024-03-01"]
    assert u["cpu_hours"].sum() == pytest.approx(94 * 24)


def test_usage_refuses_a_multiple_of_a_period():
    """pandas counts a multiple's periods ('2D') from each time, not on a grid: the hours
    came out negative; it is refused, naming the one period to use."""
    with pytest.raises(SlurmlabError, match=r"period='2D' is a multiple .*\(period='D'\)"):
        an.usage(table(LONG), by="Account", period="2D")
    with pytest.raises(SlurmlabError, match=r"period='bogus' is not a pandas period; .*'MS'"):
        an.usage(table(LONG), by="Account", period="bogus")
