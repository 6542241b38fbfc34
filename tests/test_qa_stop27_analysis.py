"""Analyzers against independent pandas (QA findings, stop 27): a row never allocated is no
run; the first period of utilization begins with the export; summary's waits count jobs as
the simulator's metrics do; an allocation lasts its Elapsed across a daylight-saving change;
unknown states and padded rows are warned about."""

from __future__ import annotations

import io
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slurmlab
from slurmlab import analysis as an
from slurmlab.cli import main
from slurmlab.records.sacct import SacctParseWarning, read_sacct, write_sacct
from slurmlab.report import render_report

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "datasets/realslurm"
SHARED = Path(os.environ.get("SLURMLAB_SHARED") or ROOT.parent / "shared")
PUBLIC = SHARED / "datasets/public/sacct"
needs_public = pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"no public samples at {PUBLIC}")

# field order A of the hpc-cost-simulator captures (datasets/public/sacct/README.md)
ORDER_A = [
    "State", "JobID", "ReqCPUS", "ReqMem", "ReqNodes", "Constraints", "Submit", "Eligible",
    "Start", "Elapsed", "Suspended", "End", "ExitCode", "DerivedExitCode", "AllocNodes", "NCPUS",
    "MaxDiskRead", "MaxDiskWrite", "MaxPages", "MaxRSS", "MaxVMSize", "CPUTime", "UserCPU",
    "SystemCPU", "TotalCPU",
]  # fmt: skip
ORDER_A26 = [*ORDER_A, "Partition"]


def read(text: str, **kwargs) -> pd.DataFrame:
    return read_sacct(io.StringIO(text), **kwargs)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def round_trip(result) -> pd.DataFrame:
    """A simulation's every run (sacct -D) written as --parsable2 text and read back."""
    return read(write_sacct(result.sacct(duplicates=True)))


# ------------------------------------------------- 1. a row that never got an allocation

#: Older Slurm kills a pending job with start_time = end_time = now (job_mgr.c): jobs 2 and 3
#: have a Start, equal to their End, no node (AllocNodes 0) and Elapsed 0.
NEVER_ALLOCATED = (
    "JobID|State|Partition|Submit|Start|End|Elapsed|AllocNodes|NCPUS|AllocTRES|ReqMem\n"
    "1|COMPLETED|gpu|2022-09-09T10:00:00|2022-09-09T10:10:00|2022-09-09T11:10:00|01:00:00|1|8|"
    "cpu=8,gres/gpu=2|8G\n"
    "2|CANCELLED by 32874|gpu|2022-09-09T10:00:00|2022-09-09T12:00:00|2022-09-09T12:00:00|"
    "00:00:00|0|8|cpu=8,gres/gpu=2|8G\n"
    "3|FAILED|gpu|2022-09-09T10:30:00|2022-09-09T10:40:00|2022-09-09T10:40:00|00:00:00|0|8|"
    "cpu=8,gres/gpu=2|8G\n"
)


def test_a_row_with_a_start_but_no_allocation_is_a_job_and_no_run_in_every_analyzer():
    """A job cancelled before it started is a job and no run (README), also where older
    Slurm wrote it a Start: no node (AllocNodes 0) and Elapsed 0 make it no run, as Start
    None does in 22.05. It counts as a job with its final state."""
    jobs = read(NEVER_ALLOCATED)
    s = an.summary(jobs)
    assert (s.jobs, s.runs) == (3, 1)
    assert s.states == {"CANCELLED": 1, "COMPLETED": 1, "FAILED": 1}
    assert (s.mean_wait_s, s.median_wait_s, s.p95_wait_s) == (600.0, 600.0, 600.0)
    assert an.wait_times(jobs)["JobID"].tolist() == ["1"]
    assert an.bounded_slowdown(jobs)["JobID"].tolist() == ["1"]
    assert an.wait_stats(jobs)["runs"].tolist() == [1]
    assert an.failure_cost(jobs).empty  # they held nothing: no failed run
    assert an.usage(jobs, by="Partition")[["runs", "jobs"]].values.tolist() == [[1, 1]]
    assert an.usage(jobs, by="Partition", period="D")["runs"].tolist() == [1]
    assert an.biggest_runs(jobs)["JobID"].tolist() == ["1"]
    assert an.memory_efficiency(jobs.assign(MaxRSS=1.0))["JobID"].tolist() == ["1"]
    u = quiet(an.utilization, jobs, capacity={"gpu": {"cpus": 16, "gpus": 4, "nodes": 2}})
    gpus = u[u.resource == "gpus"]
    used_h = (gpus["used"] * gpus["covered"].dt.total_seconds() / 3600).sum()
    assert used_h == pytest.approx(2.0)  # job 1's 2 GPUs for 1 h, nothing else
    # they pended until they ended (job 2 from 10:00 to 12:00, job 3 from 10:30 to 10:40)
    pending = an.pending_over_time(jobs, by=None).set_index("time")["pending"]
    assert pending[pd.Timestamp("2022-09-09T10:30:00")] == 2  # jobs 2 and 3 (1 started)
    assert pending[pd.Timestamp("2022-09-09T12:00:00")] == 0


def test_none_assigned_with_the_requested_node_count_is_no_run_either():
    """22.05 writes NNodes as the count requested for a job that never ran, and NodeList
    ``None assigned``: with Elapsed 0 that row is no run, whatever its Start says."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NNodes|NodeList|NCPUS\n"
        "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|"
        "n1|4\n"
        "2|CANCELLED|2024-01-01T00:00:00|2024-01-01T00:20:00|2024-01-01T00:20:00|00:00:00|1|"
        "None assigned|4\n"
    )
    s = an.summary(read(text))
    assert (s.jobs, s.runs, s.mean_wait_s) == (2, 1, 0.0)


def test_named_nodes_or_no_node_count_keep_a_zero_second_row_a_run():
    """A row whose NodeList names nodes was given them (a run of 0 s, whatever NNodes says);
    where the export has neither NNodes nor NodeList, a Start makes a run, as before."""
    named = (
        "JobID|State|Submit|Start|End|Elapsed|NNodes|NodeList|NCPUS\n"
        "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:05:00|2024-01-01T00:05:00|00:00:00|0|"
        "n[1-2]|0\n"
    )
    assert an.summary(read(named)).runs == 1
    no_count = (
        "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
        "1|CANCELLED|2024-01-01T00:00:00|2024-01-01T00:05:00|2024-01-01T00:05:00|00:00:00|4\n"
    )
    s = an.summary(read(no_count))
    assert (s.runs, s.mean_wait_s) == (1, 300.0)


def test_the_report_of_an_export_of_never_allocated_jobs_says_no_job_started():
    jobs = read(NEVER_ALLOCATED).iloc[1:]  # jobs 2 and 3 only
    page = quiet(render_report, jobs)
    assert "no job in the export started." in page
    assert "0 runs" in page


@needs_public
def test_the_aws_export_counts_its_sixty_never_allocated_jobs_as_no_runs():
    """sacct-output-v2: 50 CANCELLED and 10 FAILED jobs with AllocNodes 0, Elapsed 0 and
    Start = End; the numbers of an independent pandas count (AllocNodes > 0)."""
    path = PUBLIC / "hpc-cost-simulator_sacct-output-v2.txt"
    jobs = quiet(read_sacct, path, fields=ORDER_A26)
    rows = [line.split("|") for line in path.read_text().splitlines() if line.strip()]
    raw = pd.DataFrame([r + [""] * (26 - len(r)) for r in rows], columns=ORDER_A26)
    alloc = raw[~raw["JobID"].str.contains(".", regex=False)]
    ran = alloc["AllocNodes"] != "0"
    submit = pd.to_datetime(alloc["Submit"], format="%Y-%m-%dT%H:%M:%S")
    start = pd.to_datetime(alloc["Start"].where(ran), format="%Y-%m-%dT%H:%M:%S")
    wait = (start - submit).dt.total_seconds().dropna()
    s = an.summary(jobs)
    assert s.runs == int(ran.sum()) == 423
    assert s.mean_wait_s == pytest.approx(wait.mean())
    assert s.median_wait_s == pytest.approx(wait.median())
    cost = quiet(an.failure_cost, jobs).set_index("State")["runs"]
    assert (cost["CANCELLED"], cost["FAILED"]) == (41, 119)


# ----------------------------------------------------------- 2. the first period of utilization


def test_the_first_period_begins_at_the_export_start():
    """Real Slurm, a 4-minute run at 12:21 (preemption fixture): one 1h period covering
    12:21:31 to 12:25:51, not diluted by the 21 minutes before the first Submit."""
    jobs = read_sacct(REAL / "preemption/sacct.txt")
    cluster = quiet(
        slurmlab.Cluster.from_slurm_conf,
        REAL / "preemption.slurm.conf",
        gres_conf=REAL / "gres.conf",
    )
    u = an.utilization(jobs, capacity=cluster, freq="1h", by=None)
    gpus = u[u.resource == "gpus"]
    assert len(gpus) == 1 and gpus["covered"].iloc[0] == pd.Timedelta("4min 20s")
    # independently: GPU-seconds allocated / (16 GPUs x (last End - first Submit))
    ran = jobs[jobs["Start"].notna()]
    gpu_s = ((ran["End"] - ran["Start"]).dt.total_seconds() * ran["NGPUS"]).sum()
    window = (ran["End"].max() - jobs["Submit"].min()).total_seconds()
    assert gpus["utilization"].iloc[0] == pytest.approx(gpu_s / (16 * window))
    assert gpus["utilization"].iloc[0] == pytest.approx(0.752, abs=1e-3)


#: The first job is submitted 37 minutes into the day: a simulation's utilization counts
#: its window from there (first Submit to last End), and so must the analyzer.
LATE_START = {
    "name": "late-start",
    "cluster": "tiny",
    "policy": "easy",
    "jobs": [
        {"id": "a", "submit": "37m", "runtime": "50m", "args": "-N 2 --gres=gpu:2 -t 2:00:00"},
        {"id": "b", "submit": "40m", "runtime": "80m", "args": "-N 4 --gres=gpu:1 -t 2:00:00"},
        {"id": "c", "submit": "2h", "runtime": "10m", "args": "-N 1 --gres=gpu:2 -t 30:00"},
    ],
}


def _utilization_over_the_span(u: pd.DataFrame, resource: str) -> float:
    rows = u[u.resource == resource]
    covered = rows["covered"].dt.total_seconds()
    return float((rows["used"] * covered).sum() / (rows["capacity"].iloc[0] * covered.sum()))


def test_utilization_of_a_run_that_starts_late_in_its_first_period_equals_the_metrics():
    result = slurmlab.Scenario.from_dict(LATE_START).run()
    jobs = round_trip(result)
    assert jobs["Submit"].min().strftime("%H:%M") == "00:37"
    for freq in ("1h", "1D"):
        u = an.utilization(jobs, capacity=result.cluster, freq=freq, by=None)
        assert u["covered"].iloc[0] < pd.Timedelta(freq)  # from 00:37, not from 00:00
        assert _utilization_over_the_span(u, "cpus") == pytest.approx(result.metrics["utilization"])
        assert _utilization_over_the_span(u, "gpus") == pytest.approx(
            result.metrics["gpu_utilization"]
        )


# -------------------------------------------------- 3. summary's waits are the metrics' waits

SCENARIOS = [
    *sorted((ROOT / "course/scenarios").glob("*.yaml")),
    REAL / "scenarios/preemption.yaml",  # preempted and requeued jobs
    REAL / "scenarios/failures.yaml",  # a requeued job, a job cancelled while pending
    REAL / "scenarios/holds.yaml",  # requeue and requeuehold
]


def _same(metric: float, value: float | None) -> bool:
    return value is None if math.isnan(metric) else value == pytest.approx(metric)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_summary_waits_of_the_sacct_export_equal_the_simulation_metrics(path):
    """mean, median and p95 wait mean the same in ``summary`` of a run's sacct -D export as in
    its ``metrics``: over jobs, each once by its last run (a requeue resets Submit), jobs
    that started only."""
    result = quiet(lambda: slurmlab.Scenario.load(path).run())  # (KillWait: not modelled)
    s = an.summary(round_trip(result))
    for key in ("mean_wait_s", "median_wait_s", "p95_wait_s"):
        assert _same(result.metrics[key], getattr(s, key)), key


#: Job 7 ran twice (requeued: its second run's Submit is the requeue); job 9 was requeued and
#: is pending again at the export's end, so it has no wait; job 8 waited 0 s.
REQUEUED = (
    "JobID|State|Submit|Eligible|Start|End|Elapsed|NCPUS\n"
    "7|REQUEUED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|"
    "2024-01-01T01:30:00|00:30:00|4\n"
    "7|COMPLETED|2024-01-01T01:30:00|2024-01-01T01:50:00|2024-01-01T02:00:00|"
    "2024-01-01T03:00:00|01:00:00|4\n"
    "8|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|"
    "2024-01-01T00:10:00|00:10:00|4\n"
    "9|NODE_FAIL|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:30:00|"
    "2024-01-01T00:40:00|00:10:00|4\n"
    "9|PENDING|2024-01-01T00:40:00|2024-01-01T00:40:00|Unknown|Unknown|00:00:00|0\n"
)


def test_summary_waits_count_each_job_once_by_its_last_run():
    s = an.summary(read(REQUEUED))
    assert (s.jobs, s.runs) == (3, 4)
    waits = np.array([1800.0, 0.0])  # job 7's last run, job 8
    assert (s.mean_wait_s, s.median_wait_s) == (900.0, 900.0)
    assert s.p95_wait_s == np.percentile(waits, 95) == 1710.0
    eligible = np.array([600.0, 0.0])  # from Eligible: job 7 was eligible at 01:50
    assert (s.mean_wait_eligible_s, s.median_wait_eligible_s) == (300.0, 300.0)
    assert s.p95_wait_eligible_s == np.percentile(eligible, 95)
    assert s.words().splitlines()[-1].startswith("Jobs waited 15 min (median), 15 min (mean)")
    # wait_times still lists every run that started
    assert len(an.wait_times(read(REQUEUED))) == 4


def test_summary_json_has_the_p95_waits(tmp_path, capsys):
    path = tmp_path / "requeued.psv"
    path.write_text(REQUEUED)
    assert main(["summary", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["p95_wait_s"] == 1710.0 and "p95_wait_eligible_s" in data
    assert data == json.loads(json.dumps(an.summary(read(REQUEUED)).to_dict()))


# ----------------------------------------------------- 4. allocations across a DST change

#: Europe/Amsterdam, naive local times: job 1 runs across the spring change (2024-03-31
#: 02:00 -> 03:00), so End - Start reads 25 h while sacct's Elapsed (from epoch times) is 24 h.
ACROSS_SPRING = (
    "JobID|State|Submit|Start|End|Elapsed|NNodes|NCPUS\n"
    "1|COMPLETED|2024-03-30T12:00:00|2024-03-30T12:00:00|2024-03-31T13:00:00|1-00:00:00|1|128\n"
    "2|COMPLETED|2024-03-31T10:00:00|2024-03-31T10:00:00|2024-03-31T12:00:00|02:00:00|1|8\n"
)


def test_utilization_area_equals_the_hours_across_a_daylight_saving_change():
    """A run holds its allocation for its Elapsed (Start + Elapsed), so the utilization area
    is the CPU-hours Elapsed x NCPUS gives, not an hour x 128 CPUs more."""
    jobs = read(ACROSS_SPRING)
    hours = an.summary(jobs).cpu_hours
    assert hours == 24 * 128 + 2 * 8
    for freq in ("1h", "1D", "7D"):
        u = quiet(an.utilization, jobs, freq=freq, by=None)
        cpus = u[u.resource == "cpus"]
        area = (cpus["used"] * cpus["covered"].dt.total_seconds() / 3600).sum()
        assert area == pytest.approx(hours)


# ---------------------------------------------------------------- 5. unknown states


def test_an_unknown_state_is_warned_about_once_with_its_lines_and_the_fix():
    text = (
        "JobID|State|Submit\n"
        "141|CANCELLED by 32874|2022-09-09T17:39:14\n"
        "141|INVALID|2022-09-09T17:39:14\n"
        "142|INVALID|2022-09-09T17:40:00\n"
        "143|BOGUS|2022-09-09T17:41:00\n"
        "144|CD|2022-09-09T17:42:00\n"
    )
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read(text)
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        "<buffer>: State 'INVALID' (line(s) 3, 4); State 'BOGUS' (line(s) 5) are not sacct "
        "job states (sacct's JOB STATE CODES: BOOT_FAIL, CANCELLED,"
    )
    assert "correct its State" in message and "fields=" in message
    assert jobs.attrs["unknown_states"] == {"INVALID": 2, "BOGUS": 1}
    # the final-state rule is kept: the last row of job 141 is its state, now not silently
    assert quiet(an.summary, jobs).states["INVALID"] == 2


def test_known_states_and_their_abbreviations_give_no_warning():
    text = "JobID|State\n1|CANCELLED by 1234\n2|CANCELLED+\n3|TO\n4|OOM\n5|PD\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read(text)
    assert jobs.attrs["unknown_states"] == {}


@needs_public
def test_the_public_invalid_state_is_named_with_its_file_and_line():
    path = PUBLIC / "hpc-cost-simulator_issue-61.txt"
    with pytest.warns(SacctParseWarning, match=r"State 'INVALID' \(line\(s\) 4\)") as caught:
        read_sacct(path, fields=ORDER_A26)
    assert str(path) in str(caught[0].message)


# ------------------------------------------------------------------- 6. padded rows

HEAD = "JobID|State|Elapsed|Partition\n1|COMPLETED|00:01:00|gpu\n"
SHORT_BLOCK = "".join(f"{i}|COMPLETED|00:01:00\n" for i in range(2, 8))


def test_rows_padded_because_they_are_short_are_warned_about():
    """A block of short rows is read as an export with fewer fields appended: padded, and
    the warning names how many, the first lines, the field list in use, the blank field and
    the fix."""
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read(HEAD + SHORT_BLOCK)
    (message,) = [str(w.message) for w in caught]
    assert jobs.attrs["padded_rows"] == 6
    assert "6 row(s) have fewer fields than the field list in use (4 fields: " in message
    assert "JobID,State,Elapsed,Partition), line(s) 3, 4, 5, 6, 7, 8:" in message
    assert "their Partition is blank" in message
    assert "fields=" in message and "concat_sacct" in message


def test_rows_after_a_header_with_fewer_fields_are_warned_about_too():
    with pytest.warns(SacctParseWarning, match=r"1 row\(s\) have fewer fields") as caught:
        jobs = read(HEAD + "JobID|State|Elapsed\n2|COMPLETED|00:02:00\n")
    assert jobs.attrs["padded_rows"] == 1
    assert "header line of their own" in str(caught[0].message)


def test_with_the_right_field_list_nothing_is_padded_and_nothing_is_warned():
    rows = "".join(f"{i}|COMPLETED|00:01:00\n" for i in range(1, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read(rows, fields="JobID,State,Elapsed")
    assert jobs.attrs["padded_rows"] == 0 and len(jobs) == 7


@needs_public
def test_the_aws_export_warns_of_its_padded_rows_and_its_25_field_part_reads_silently(tmp_path):
    """sacct-output-v2: 846 rows of 25 fields among rows of 26, read with the 26-field list,
    are padded with a warning; its 25-field rows alone, read with the 25-field list they were
    written with, are not padded and give no warning."""
    path = PUBLIC / "hpc-cost-simulator_sacct-output-v2.txt"
    with pytest.warns(SacctParseWarning, match=r"846 row\(s\) have fewer fields") as caught:
        read_sacct(path, fields=ORDER_A26)
    assert "their Partition is blank" in str(caught[0].message)
    lines = path.read_text().splitlines(keepends=True)
    part = tmp_path / "v2-25-fields.txt"
    part.write_text("".join(line for line in lines if line.count("|") == 24))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read_sacct(part, fields=ORDER_A)
    assert jobs.attrs["padded_rows"] == 0 and len(jobs) + len(slurmlab.sacct_steps(jobs)) == 846
