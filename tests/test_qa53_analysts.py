"""An HPC team's own sacct exports through the reader and the efficiency analyzers: counts
sacct takes from the TRES strings, and efficiencies that cannot be known said so."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from slurmlab import analysis as an
from slurmlab.records.sacct import SacctParseError, read_sacct
from slurmlab.report import render_report

PUBLIC = Path("/work/shared/datasets/public/sacct")

TRES_ONLY = (
    "JobID|State|Submit|Start|End|Elapsed|AllocTRES|ReqTRES|TotalCPU|MaxRSS|NTasks\n"
    "5|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|"
    "billing=8,cpu=8,gres/gpu=2,gres/gpu:a100=2,mem=16G,node=2|"
    "billing=8,cpu=8,gres/gpu=2,mem=16G,node=2|04:00:00||\n"
    "5.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|"
    "cpu=4,mem=8G,node=1||04:00:00|4G|1\n"
    "6|PENDING|2024-01-01T00:00:00|Unknown|Unknown|00:00:00||billing=4,cpu=4,mem=1000M,node=1|"
    "00:00:00||\n"
)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call(*args, **kwargs)
    return out, [str(w.message) for w in caught]


def test_counts_missing_as_fields_come_from_the_tres_strings_as_sacct_prints_them():
    """sacct's NCPUS and NNodes are AllocTRES's cpu= and node= (ReqTRES's where AllocTRES is
    blank), and its ReqMem is ReqTRES's mem= (print.c: cpu_tres_rec_count, PRINT_NNODES,
    PRINT_REQ_MEM): an export that has the TRES strings but not those fields still knows
    them, so CPU-hours, node-hours and efficiencies are numbers, not unknown."""
    jobs = read_sacct(io.StringIO(TRES_ONLY))
    assert jobs["NCPUS"].tolist() == [8, 4]
    assert jobs["NNodes"].tolist() == [2, 1]
    assert jobs["ReqMem"].tolist() == [16384, 1000]
    s = an.summary(jobs)
    assert (s.cpu_hours, s.gpu_hours, s.unknown_hours) == (8.0, 2.0, None)
    use, caught = _quiet(an.usage, jobs)
    assert (use["cpu_hours"].tolist(), use["node_hours"].tolist()) == ([8.0], [2.0])
    assert not [m for m in caught if "unknown" in m]
    # seff: TotalCPU / (Elapsed x CPUs) and peak memory / the memory requested
    assert an.cpu_efficiency(jobs)["cpu_efficiency"].tolist() == [0.5]
    assert an.memory_efficiency(jobs)["memory_efficiency"].tolist() == [0.25]
    step = jobs.attrs["steps"].frame
    assert step["NCPUS"].tolist() == [4]  # (a step's own AllocTRES)


def test_explicit_count_fields_are_kept_over_the_tres_strings():
    """Where the export has NCPUS, NNodes and ReqMem they are what is read, whatever the TRES
    strings say (only a missing field is taken from them)."""
    text = (
        "JobID|State|Elapsed|NCPUS|NNodes|ReqMem|AllocTRES|ReqTRES\n"
        "5|COMPLETED|01:00:00|6|3|4000Mc|cpu=8,mem=16G,node=2|cpu=8,mem=16G,node=2\n"
    )
    jobs = read_sacct(io.StringIO(text))
    assert (jobs["NCPUS"][0], jobs["NNodes"][0], jobs["ReqMem"][0]) == (6, 3, 4000)
    assert jobs["ReqMemPer"][0] == "cpu"


def test_cpu_efficiency_without_cpu_counts_says_why_every_ratio_is_nan():
    """An export with neither NCPUS/AllocCPUS nor AllocTRES cannot say how many CPUs a run
    had: every cpu_efficiency is NaN, with a warning naming the field to add (as usage says
    of its CPU-hours), never NaN in silence."""
    text = (
        "JobID|State|Start|Elapsed|TotalCPU\n"
        "5|COMPLETED|2024-01-01T00:00:00|01:00:00|04:00:00\n"
        "5.batch|COMPLETED|2024-01-01T00:00:00|01:00:00|04:00:00\n"
    )
    eff, caught = _quiet(an.cpu_efficiency, read_sacct(io.StringIO(text)))
    assert eff["cpu_efficiency"].isna().all()
    assert caught == [
        "cpu_efficiency: the CPUs allocated are unknown, so every run's cpu_efficiency is NaN "
        "(the export has no NCPUS (or AllocCPUS): add it to sacct -o)"
    ]


def test_memory_efficiency_of_an_allocation_only_export_is_unknown_with_a_warning():
    """sacct writes MaxRSS on step rows only (the man page: -X leaves usage fields blank on
    allocation rows), so memory_efficiency of a run without steps is NaN with one warning
    naming the fix (drop -X), as cpu_efficiency's for TotalCPU; a run with steps is a ratio."""
    text = (
        "JobID|State|Start|Elapsed|NCPUS|NNodes|ReqMem|MaxRSS|NTasks\n"
        "5|COMPLETED|2024-01-01T00:00:00|01:00:00|4|1|16G||\n"
        "6|COMPLETED|2024-01-01T00:00:00|01:00:00|4|1|16G||\n"
    )
    eff, caught = _quiet(an.memory_efficiency, read_sacct(io.StringIO(text)))
    assert eff["memory_efficiency"].isna().all()
    assert len(caught) == 1
    assert caught[0].startswith("memory_efficiency: 2 of 2 run(s) have no MaxRSS and the export")
    assert "sacct -X" in caught[0] and "drop -X" in caught[0]
    steps = text + "6.batch|COMPLETED|2024-01-01T00:00:00|01:00:00|4|1||4G|1\n"
    eff, caught = _quiet(an.memory_efficiency, read_sacct(io.StringIO(steps)))
    assert eff["memory_efficiency"].tolist()[1] == 0.25
    assert len(caught) == 1 and "1 of 2 run(s) have no MaxRSS and they have no step" in caught[0]


def test_memory_efficiency_without_reqmem_says_so():
    """Without ReqMem (and without ReqTRES to take it from) no run's request is known: every
    memory_efficiency is NaN, with a warning naming the field, never NaN in silence."""
    text = (
        "JobID|State|Start|Elapsed|NCPUS|NNodes|MaxRSS|NTasks\n"
        "5|COMPLETED|2024-01-01T00:00:00|01:00:00|4|1||\n"
        "5.batch|COMPLETED|2024-01-01T00:00:00|01:00:00|4|1|4G|1\n"
    )
    eff, caught = _quiet(an.memory_efficiency, read_sacct(io.StringIO(text)))
    assert eff["memory_efficiency"].isna().all()
    assert caught == [
        "memory_efficiency: the memory requests are unknown, so every run's memory_efficiency "
        "is NaN (the export has no ReqMem: add it to sacct -o)"
    ]


def test_memory_efficiency_of_a_running_job_is_unknown_with_a_warning():
    """slurmdbd stores a step's usage (MaxRSS) when the step ends (as_mysql_step_complete), so
    a job still running shows the peak of its ended steps only (a short ``.0``, not the batch
    step still running): its memory_efficiency is NaN with a warning, as its cpu_efficiency
    is; MemUsedMB still shows what the export says. A job that ended keeps its ratio."""
    text = (
        "JobID|State|Start|End|Elapsed|NCPUS|NNodes|ReqMem|MaxRSS|NTasks\n"
        "5|RUNNING|2024-01-01T00:00:00|Unknown|02:00:00|4|1|16G||\n"
        "5.batch|RUNNING|2024-01-01T00:00:00|Unknown|02:00:00|4|1|||1\n"
        "5.0|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|4|1||100M|1\n"
        "6|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|1|16G||\n"
        "6.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|1||8G|1\n"
    )
    eff, caught = _quiet(an.memory_efficiency, read_sacct(io.StringIO(text)))
    assert eff["MemUsedMB"].tolist() == [100.0, 8192.0]
    assert eff["memory_efficiency"].isna().tolist() == [True, False]
    assert eff["memory_efficiency"][1] == 0.5
    assert len(caught) == 1
    assert caught[0].startswith("memory_efficiency: 1 of 2 run(s) are still running")
    assert "export again once they have ended" in caught[0]


def test_report_says_why_memory_efficiency_is_not_shown():
    """The report's note for a missing memory-efficiency figure gives the reason the analyzer
    found (here: an allocation-only export), not a generic one."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NCPUS|NNodes|ReqMem|MaxRSS\n"
        "5|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|1|"
        "16G|\n"
    )
    jobs = read_sacct(io.StringIO(text))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = render_report(jobs, capacity={"(none)": {"cpus": 4, "gpus": 0, "nodes": 1}})
    assert "Memory efficiency is not shown: 1 of 1 run(s) have no MaxRSS" in page
    assert not [w for w in caught if "memory_efficiency" in str(w.message)]


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="public sacct samples not present")
def test_public_manyfields_export_node_hours_come_from_alloctres():
    """tdhock's manyfields export (Compute Canada cedar) has AllocTRES ``node=1`` but no NNodes:
    its one run's node-hours are 1 node x Elapsed 01:00:29, not unknown."""
    jobs = read_sacct(PUBLIC / "tdhock-slurm_sacct-manyfields.txt")
    use, caught = _quiet(an.usage, jobs)
    assert use["node_hours"].tolist() == [pytest.approx(3629 / 3600)]
    assert not [m for m in caught if "unknown" in m]


def test_header_less_fixed_width_output_is_named_with_the_fix():
    """sacct without -P/-p (and with -n: no header) pads columns with spaces and cuts long
    values (CANCELLED+): read with a field list, it is named as such with the fix (sacct -P),
    not as a field list that does not match."""
    text = (
        "1234           train        gpu         ml          8  COMPLETED      0:0 \n"
        "1234.batch      batch                    ml          8  CANCELLED+     0:15 \n"
    )
    fields = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
    with pytest.raises(SacctParseError) as caught:
        read_sacct(io.StringIO(text), fields=fields)
    message = str(caught.value)
    assert "line 1" in message and "1234           train" in message
    assert "sacct's fixed-width output" in message and "sacct -P -o JobID" in message


def test_written_times_across_a_daylight_saving_change_in_tz_are_warned_about():
    """Text times are the sacct host's naive local time: given its zone (tz=), rows whose
    times lie on both sides of a daylight-saving change there are named in a warning (the
    wait of job 2, 01:50 EST to 03:10 EDT, was 20 min, not the 1 h 20 min it reads), as
    epoch-second rows are; times in the repeated autumn hour decide nothing, and a zone
    without the change (or no tz) warns of nothing."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
        "1|COMPLETED|2023-11-05T00:50:00|2023-11-05T01:20:00|2023-11-05T02:20:00|01:00:00|1\n"
        "2|COMPLETED|2023-03-12T01:50:00|2023-03-12T03:10:00|2023-03-12T04:10:00|01:00:00|1\n"
        "3|COMPLETED|2023-11-05T01:30:00|2023-11-05T01:40:00|2023-11-05T01:50:00|00:10:00|1\n"
        "4|COMPLETED|2023-06-01T00:00:00|2023-06-01T01:00:00|2023-06-01T02:00:00|01:00:00|1\n"
    )
    jobs, caught = _quiet(read_sacct, io.StringIO(text), tz="America/New_York")
    assert len(caught) == 1
    assert caught[0].startswith("<buffer>: 2 row(s) have times on both sides of a daylight")
    assert (
        "line 3 (JobID 2): Submit 2023-03-12T01:50:00 EST, Start 2023-03-12T03:10:00 EDT"
        in (caught[0])
    )
    assert "line 2 (JobID 1)" in caught[0] and "JobID 3" not in caught[0]
    assert "TZ=UTC" in caught[0]
    assert an.wait_times(jobs)["Wait"].dt.total_seconds().tolist()[1] == 4800.0  # (as written)
    for tz in ("Asia/Tokyo", None):
        _, caught = _quiet(read_sacct, io.StringIO(text), tz=tz)
        assert caught == []


def test_timelimit_accuracy_of_a_run_still_running_is_nan_with_a_warning():
    """A running job's Elapsed is its time so far: its share of the limit is not known yet, so
    it is NaN (named in one warning), as its CPU and memory efficiencies are; ended runs keep
    their ratio."""
    text = (
        "JobID|State|Elapsed|Timelimit|End\n"
        "1|COMPLETED|00:30:00|01:00:00|2024-01-01T01:00:00\n"
        "2|RUNNING|00:10:00|01:00:00|Unknown\n"
    )
    jobs = read_sacct(io.StringIO(text))
    with pytest.warns(UserWarning, match=r"timelimit_accuracy: 1 of 2 run\(s\) are still running"):
        out = an.timelimit_accuracy(jobs)
    assert out["timelimit_accuracy"].tolist()[0] == 0.5
    assert np.isnan(out["timelimit_accuracy"].tolist()[1])
    assert out["Elapsed"].tolist()[1] == pd.Timedelta(minutes=10)


def test_summary_json_lists_its_counts_in_the_order_the_help_gives(tmp_path, capsys):
    """``slurmlab summary --json``'s keys begin jobs, runs, steps, as its --help lists them
    (scripts reading the JSON do not care, people reading it do)."""
    import json

    from slurmlab.cli import main

    path = tmp_path / "s.txt"
    path.write_text("JobID|State|Start|Elapsed\n5|COMPLETED|2024-01-01T00:00:00|01:00:00\n")
    assert main(["summary", str(path), "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out))[:3] == ["jobs", "runs", "steps"]
