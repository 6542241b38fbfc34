"""Review stop 25, the SWF reader and `slurmlab simulate`: fractional times, partial
executions, a guessed machine size, the trace's time zone, and the command's output.

The SWF definition (v2.2, https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): "it is
permissable to use floating point values for time fields"; status "1 if the job was
completed, 0 if it failed, and 5 if cancelled. If information about checkpointing or
swapping is included, other values are also possible": 2 "this partial execution will be
continued", 3 "this is the last partial execution, job completed", 4 "... job failed";
version 2.2 "added TimeZoneString header comment" and deprecated "the buggy TimeZone header".
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from slurmlab.cli import main
from slurmlab.errors import SlurmlabError
from slurmlab.records.swf import SwfDropWarning, read_swf, swf_cluster
from slurmlab.sim.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
KTH = ROOT.parent / "shared" / "datasets" / "public" / "swf" / "KTH-SP2-1996-2.1-cln.swf.gz"
COURSE = ROOT / "course" / "scenarios"

#: The header of the Parallel Workloads Archive's KTH SP2 trace, as the archive writes it.
KTH_HEADER = """\
; Version: 2.2
; Computer: IBM SP2
; Installation: Swedish Royal Institute of Technology (KTH)
; MaxJobs: 28490
; MaxRecords: 28476
; Preemption: No
; UnixStartTime: 843480031
; TimeZone: 3600
; TimeZoneString: Europe/Stockholm
; StartTime: Mon Sep 23 14:00:31 CEST 1996
; EndTime:   Fri Aug 29 10:55:01 CEST 1997
; MaxNodes: 100
; MaxProcs: 100
"""


def write(tmp_path, text: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def quiet_read(path, **kw):
    """read_swf with warnings turned into errors: the read must not warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_swf(path, **kw)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["simulate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- 1. time fields may have fractions; counts may not ------------------------------------------
FLOAT_SWF = """\
; MaxProcs: 10
1 0 -1 100.5 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10.25 -1 50 2 -1 -1 2 200.5 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_fractional_times_are_read_as_they_are(tmp_path):
    """Submit, run and requested times with fractions (the definition allows floating point
    values for time fields) are replayed exactly, not refused or rounded."""
    w = quiet_read(write(tmp_path, FLOAT_SWF))
    assert [(j.id, j.submit, j.runtime, j.spec.time_limit.total_seconds()) for j in w.jobs] == [
        ("1", 0.0, 100.5, 200.0),
        ("2", 10.25, 50.0, 200.5),
    ]
    result = simulate(swf_cluster(10), w)
    assert list(result.seconds("End")) == [100.5, 60.25]


def test_fractional_times_reach_jobs_out(tmp_path, capsys):
    path = write(tmp_path, FLOAT_SWF)
    csv = tmp_path / "jobs.csv"
    code, out, err = cli(capsys, str(path), "--quiet", "--jobs-out", str(csv))
    assert (code, err) == (0, "")
    jobs = pd.read_csv(csv)
    assert jobs[["JobID", "Submit", "Start", "End", "Timelimit"]].values.tolist() == [
        [1, 0.0, 0.0, 100.5, 200.0],
        [2, 10.25, 10.25, 60.25, 200.5],
    ]


def test_other_time_fields_may_have_fractions(tmp_path):
    """Wait, average CPU time and think time: time fields too."""
    line = "1 0 3.5 100 2 99.75 -1 2 200 -1 1 1 1 -1 -1 -1 -1 0.5\n"
    assert len(quiet_read(write(tmp_path, "; MaxProcs: 10\n" + line))) == 1


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("alloc_procs", "1 0 -1 100 2.5 -1 -1 -1 200 -1 1 1 1 -1 -1 -1 -1 -1"),
        ("req_procs", "1 0 -1 100 2 -1 -1 2.5 200 -1 1 1 1 -1 -1 -1 -1 -1"),
        ("job", "1.5 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1"),
        ("user", "1 0 -1 100 2 -1 -1 2 200 -1 1 1.5 1 -1 -1 -1 -1 -1"),
    ],
)
def test_counts_and_numbers_stay_whole(tmp_path, field, line):
    """Processors, job, user and executable numbers are counts: a fraction is an error."""
    path = write(tmp_path, "; MaxProcs: 10\n" + line + "\n")
    value = "2.5" if "procs" in field else "1.5"
    with pytest.raises(SlurmlabError) as err:
        read_swf(path)
    assert str(err.value) == (
        f"{path}: line 2: field {field!r} is {value}, not a whole number (SWF counts and "
        "numbers are whole; times may have fractions); fix or delete the line"
    )


def test_a_word_in_a_field_no_longer_says_fields_are_whole_numbers(tmp_path):
    path = write(tmp_path, "; MaxProcs: 10\n1 0 -1 100 2 -1 -1 abc 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    with pytest.raises(SlurmlabError) as err:
        read_swf(path)
    assert str(err.value) == (
        f"{path}: line 2: field 'req_procs' is 'abc', not a number; SWF fields are numbers "
        "(counts whole, times in seconds), -1 when missing"
    )


def test_a_negative_fractional_submit_time_is_named_as_written(tmp_path):
    path = write(tmp_path, "; MaxProcs: 10\n1 -0.5 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    with pytest.raises(SlurmlabError) as err:
        read_swf(path)
    assert str(err.value) == (
        f"{path}: line 2: field 'submit' is -0.5: a job needs its submit time (seconds from "
        "the trace start); fix or delete the line"
    )


# -- 2. partial executions (status 2, 3, 4) are refused, saying what they are ------------------
AWK = "awk '/^;/ || $11 < 2 || $11 > 4' TRACE > whole.swf"


def test_partial_executions_without_a_whole_job_line_are_refused(tmp_path):
    """Two parts of job 1 (status 2, then 3): no line gives the whole job."""
    path = write(
        tmp_path,
        "; MaxProcs: 10\n"
        "1 0 -1 100 2 -1 -1 2 200 -1 2 1 1 -1 -1 -1 -1 -1\n"
        "1 500 -1 50 2 -1 -1 2 200 -1 3 1 1 -1 -1 -1 -1 -1\n",
    )
    with pytest.raises(SlurmlabError) as err:
        read_swf(path)
    assert str(err.value) == (
        f"{path}: line 2: field 'status' is 2 (this partial execution will be continued): a "
        "partial-execution record of job 1, which was checkpointed or swapped out; slurmlab "
        "replays each job once, from one line: no line describes job 1 as a whole (status 0, "
        "1 or 5): write one line for the whole job in place of its partial executions, or "
        f"delete them ({AWK})"
    )


PARTS_WITH_WHOLE = (
    "; MaxProcs: 4\n"
    "1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "1 0 -1 60 2 -1 -1 2 200 -1 2 1 1 -1 -1 -1 -1 -1\n"
    "1 80 -1 40 2 -1 -1 2 200 -1 4 1 1 -1 -1 -1 -1 -1\n"
    "2 5 -1 10 2 -1 -1 2 20 -1 5 1 1 -1 -1 -1 -1 -1\n"
)


def test_partial_executions_after_the_whole_job_name_its_line(tmp_path):
    """The whole job (status 1) on line 2, its parts after it: the parts are the problem,
    not a repeated job number."""
    path = write(tmp_path, PARTS_WITH_WHOLE)
    with pytest.raises(SlurmlabError) as err:
        read_swf(path)
    assert str(err.value) == (
        f"{path}: line 3: field 'status' is 2 (this partial execution will be continued): a "
        "partial-execution record of job 1, which was checkpointed or swapped out; slurmlab "
        "replays each job once, from one line: line 2 is job 1 as a whole (status 1), so "
        f"delete the partial-execution lines ({AWK})"
    )


@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
def test_the_suggested_awk_command_keeps_one_line_per_job(tmp_path):
    """The command in the error leaves the header and the whole-job lines, which read."""
    path = write(tmp_path, PARTS_WITH_WHOLE)
    whole = subprocess.run(
        ["awk", "/^;/ || $11 < 2 || $11 > 4", str(path)], capture_output=True, text=True
    ).stdout
    assert whole == (
        "; MaxProcs: 4\n"
        "1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 5 -1 10 2 -1 -1 2 20 -1 5 1 1 -1 -1 -1 -1 -1\n"
    )
    w = quiet_read(write(tmp_path, whole, "whole.swf"))
    assert [(j.id, j.runtime) for j in w.jobs] == [("1", 100.0), ("2", 10.0)]


@pytest.mark.parametrize("status", ["-1", "0", "1", "5"])
def test_whole_job_statuses_are_read(tmp_path, status):
    line = f"1 0 -1 100 2 -1 -1 2 200 -1 {status} 1 1 -1 -1 -1 -1 -1\n"
    assert [j.id for j in quiet_read(write(tmp_path, "; MaxProcs: 4\n" + line)).jobs] == ["1"]


def test_skip_invalid_does_not_drop_partial_executions(tmp_path):
    """skip_invalid is for jobs the machine cannot run; a part is no job: still an error."""
    path = write(tmp_path, PARTS_WITH_WHOLE)
    with pytest.raises(SlurmlabError, match="line 3: field 'status' is 2"):
        read_swf(path, skip_invalid=True)


# -- 3. a guessed machine size warns; --json says the machine and what was dropped -------------
NO_SIZE = (
    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "2 5 -1 50 6 -1 -1 6 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
)


@pytest.mark.parametrize("header", ["", "; MaxProcs: -1\n; MaxNodes: -1\n"])
def test_a_machine_size_taken_from_the_widest_job_is_a_warning(tmp_path, header):
    path = write(tmp_path, header + NO_SIZE)
    message = (
        f"{path}: the header gives no machine size (MaxProcs and MaxNodes are absent or -1): "
        "the machine is taken to be 6 processors, the widest job; pass --procs N (procs=N) "
        "to set its size"
    )
    with pytest.warns(UserWarning, match=f"^{re.escape(message)}$"):
        w = read_swf(path)
    assert w.max_procs == 6


@pytest.mark.parametrize(("header", "kw"), [("; MaxProcs: 8\n", {}), ("", {"procs": 8})])
def test_a_given_machine_size_does_not_warn(tmp_path, header, kw):
    assert quiet_read(write(tmp_path, header + NO_SIZE), **kw).max_procs == 8


def test_the_cli_prints_the_size_warning(tmp_path, capsys):
    path = write(tmp_path, NO_SIZE)
    code, out, err = cli(capsys, str(path), "--quiet", "--json")
    assert code == 0
    assert err == (
        f"slurmlab: warning: {path}: the header gives no machine size (MaxProcs and MaxNodes "
        "are absent or -1): the machine is taken to be 6 processors, the widest job; pass "
        "--procs N to set its size\n"
    )
    assert json.loads(out)["procs"] == 6


DROPS = """\
; MaxProcs: 10
1 0 -1 100 -1 -1 -1 -1 200 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 -1 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1
3 0 -1 100 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
4 0 -1 0 0 -1 -1 0 -1 -1 1 1 1 -1 -1 -1 -1 -1
5 1 -1 100 12 -1 -1 12 200 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_read_swf_warnings_say_why_jobs_were_dropped(tmp_path):
    path = write(tmp_path, DROPS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = read_swf(path, skip_invalid=True)
    drops = [(str(c.message), c.message.counts) for c in caught if c.category is SwfDropWarning]
    assert drops == [
        (
            f"{path}: dropped 3 of 5 jobs with no processors or an unknown run time (SWF -1; "
            "the first at line 2, job 1)",
            {"no processors": 2, "unknown run time": 1},
        ),
        (
            f"{path}: dropped 1 job wider than 10 processors (the first: line 6, job 5, "
            "12 processors)",
            {"wider than the machine": 1},
        ),
    ]
    # (job 3, the one kept, has no requested time: its limit is its run time, said too)
    assert [str(c.message) for c in caught if c.category is not SwfDropWarning] == [
        f"{path}: 1 of 1 job has no requested time (SWF field 9 is -1 or 0), so their time "
        "limit is their run time: the schedulers know those run times exactly (perfect "
        "estimates), which makes backfilling look better than with users' estimates "
        "(Mu'alem & Feitelson 2001); compare policies on traces with requested times, or "
        "mind it"
    ]
    assert w.dropped == 4 and [j.id for j in w.jobs] == ["3"]


def test_json_reports_the_processors_and_the_dropped_jobs(tmp_path, capsys):
    """procs, dropped and dropped_why are added; every earlier key is still there, and
    utilization can be checked: cpu_hours / (procs x makespan)."""
    path = write(tmp_path, DROPS)
    code, out, err = cli(capsys, str(path), "--quiet", "--json", "--skip-invalid")
    assert code == 0
    m = json.loads(out)
    assert (m["procs"], m["dropped"], m["dropped_why"]) == (
        10,
        4,
        {"no processors": 2, "unknown run time": 1, "wider than the machine": 1},
    )
    for key in ("jobs", "mean_wait_s", "median_wait_s", "p95_wait_s", "mean_bounded_slowdown"):
        assert key in m
    for key in ("utilization", "makespan_s", "backfilled", "wall_s", "cpu_hours", "policy"):
        assert key in m
    assert m["jobs"] == 1 and m["makespan_s"] == 100.0
    assert m["utilization"] == pytest.approx(m["cpu_hours"] * 3600 / (m["procs"] * 100.0))


def test_json_of_a_scenario_reports_its_cluster_and_no_drops(capsys):
    code, out, err = cli(capsys, str(COURSE / "backfill-basics.yaml"), "--quiet", "--json")
    m = json.loads(out)
    assert (code, m["procs"], m["dropped"], m["dropped_why"]) == (0, 4 * 16, 0, {})


def test_json_procs_of_a_trace_on_a_cluster_is_the_clusters(tmp_path, capsys):
    path = write(tmp_path, "; MaxProcs: 1000\n" + NO_SIZE)
    code, out, err = cli(capsys, str(path), "--quiet", "--json", "--cluster", "tiny")
    assert (code, err, json.loads(out)["procs"]) == (0, "", 64)


# -- 4. time zero in the trace's own time zone ----------------------------------------------
RECORDS = (
    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "2 3456000 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"  # 40 days later: CET, not CEST
)


def test_kth_time_zero_is_its_header_start_time_in_stockholm(tmp_path):
    """UnixStartTime 843480031 is 12:00:31 UTC, 14:00:31 CEST, the header's StartTime."""
    w = quiet_read(write(tmp_path, KTH_HEADER + RECORDS))
    assert w.origin == pd.Timestamp("1996-09-23 14:00:31")
    assert w.origin.tzinfo is None  # (the job table's times are naive, as sacct's)


def test_job_times_are_time_zero_plus_the_trace_seconds_across_a_dst_change(tmp_path):
    """As documented: time zero plus the seconds, so after the end of summer time (27 Oct
    1996) the table is an hour ahead of Stockholm's clock; the docstring's recipe is exact."""
    w = quiet_read(write(tmp_path, KTH_HEADER + RECORDS))
    jobs = simulate(swf_cluster(100), w).jobs
    assert list(jobs["Submit"]) == [
        pd.Timestamp("1996-09-23 14:00:31"),
        pd.Timestamp("1996-11-02 14:00:31"),
    ]
    exact = (jobs.Submit - w.origin + pd.Timestamp(843480031, unit="s", tz="UTC")).dt.tz_convert(
        "Europe/Stockholm"
    )
    assert [t.strftime("%Y-%m-%d %H:%M:%S %Z") for t in exact] == [
        "1996-09-23 14:00:31 CEST",
        "1996-11-02 13:00:31 CET",
    ]


@pytest.mark.skipif(not KTH.exists(), reason="the PWA traces are not in ../shared")
def test_the_real_kth_trace_starts_at_its_header_start_time():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (it drops one job with no run time)
        w = read_swf(KTH)
    assert w.origin == pd.Timestamp("1996-09-23 14:00:31")


@pytest.mark.parametrize(
    ("zone", "start", "local"),
    [
        ("US/Mountain", 781275672, "1994-10-04 07:01:12"),  # LANL CM-5: 07:01:12 MDT
        ("US/Pacific", 749458803, "1993-10-01 00:00:03"),  # NASA iPSC: 00:00:03 PDT
    ],
)
def test_other_archive_zones_are_known(tmp_path, zone, start, local):
    header = f"; MaxProcs: 8\n; UnixStartTime: {start}\n; TimeZoneString: {zone}\n"
    assert quiet_read(write(tmp_path, header + RECORDS)).origin == pd.Timestamp(local)


def test_an_unknown_zone_is_a_warning_and_time_zero_stays_utc(tmp_path):
    header = "; MaxProcs: 8\n; UnixStartTime: 843480031\n; TimeZoneString: Mars/Olympus\n"
    path = write(tmp_path, header + RECORDS)
    message = (
        f"{path}: line 3: header field 'TimeZoneString' is 'Mars/Olympus', a time zone this "
        "system does not know: the job table's times are in UTC; write a tz database name "
        "('; TimeZoneString: Europe/Stockholm') or install the tzdata package"
    )
    with pytest.warns(UserWarning, match=f"^{re.escape(message)}$"):
        w = read_swf(path)
    assert w.origin == pd.Timestamp("1996-09-23 12:00:31")


def test_without_a_time_zone_string_time_zero_is_utc(tmp_path):
    header = "; MaxProcs: 8\n; UnixStartTime: 843480031\n; TimeZone: 3600\n"
    assert quiet_read(write(tmp_path, header + RECORDS)).origin == pd.Timestamp(
        "1996-09-23 12:00:31"
    )


def test_a_time_zone_string_given_twice_differently_is_an_error(tmp_path):
    header = KTH_HEADER + "; TimeZoneString: UTC\n"
    with pytest.raises(SlurmlabError, match="line 14: header field 'TimeZoneString' is 'UTC', but"):
        read_swf(write(tmp_path, header + RECORDS))


def test_jobs_out_seconds_do_not_depend_on_the_time_zone(tmp_path, capsys):
    """--jobs-out counts seconds from the trace's time zero, wherever it is."""
    tables = []
    for name, header in (
        ("utc.swf", KTH_HEADER.replace("; TimeZoneString", "; Zone")),
        ("kth.swf", KTH_HEADER),
    ):
        csv = tmp_path / f"{name}.csv"
        path = write(tmp_path, header + RECORDS, name)
        code, _, err = cli(capsys, str(path), "--quiet", "--jobs-out", str(csv))
        assert (code, err) == (0, "")
        tables.append(pd.read_csv(csv)[["JobID", "Submit", "Start", "End"]])
    pd.testing.assert_frame_equal(*tables)
    assert tables[1].values.tolist() == [[1, 0.0, 0.0, 100.0], [2, 3456000.0, 3456000.0, 3456100.0]]


# -- 5. the command's help, summary line and progress bar -------------------------------------
def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_policy_help_says_easy_is_the_default_for_traces(capsys):
    text = _help(capsys)
    assert "the scheduling policy (default: the scenario's own; easy for an SWF trace)" in text
    assert (
        "--procs PROCS SWF: machine size in processors (default: the header's MaxProcs, else "
        "MaxNodes, else the widest job, with a warning)" in text
    )
    assert (
        "--progress show the progress bar (on stderr; runs of 1,000 jobs or more) even when "
        "stderr is not a terminal" in text
    )


POOL = """\
; MaxProcs: 10
1 0 -1 100 6 -1 -1 6 100 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 100 8 -1 -1 8 100 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 1000 2 -1 -1 2 1000 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_the_summary_shows_median_and_p95_wait_and_no_last_run_note_without_requeues(
    tmp_path, capsys
):
    code, out, err = cli(capsys, str(write(tmp_path, POOL)), "--quiet")
    assert (code, err) == (0, "")
    assert re.fullmatch(
        re.escape(
            "policy easy: 3 jobs, mean wait 33 s, median wait 0 s, p95 wait 89 s, mean bounded "
            "slowdown 1.33, utilization CPU 33.9%, makespan 1002 s, backfilled 1, "
        )
        + r"\d+\.\d\d s wall\n",
        out,
    )


def test_the_last_run_note_appears_when_jobs_were_requeued(capsys):
    code, out, _ = cli(capsys, str(COURSE / "checkpoint-256gpu.yaml"), "--quiet")
    assert code == 0
    assert re.search(
        r"mean wait (\d+) s \(each job's last run\), median wait \1 s, p95 wait \1 s,", out
    )
    assert re.search(r"requeues [1-9]\d*,", out)


@pytest.fixture
def progress_seen(monkeypatch):
    """The progress= the command passes to simulate()."""
    import slurmlab.sim.simulate as module

    seen = []
    real = module.simulate

    def spy(*args, progress=False, **kw):
        seen.append(progress)
        return real(*args, progress=False, **kw)

    monkeypatch.setattr(module, "simulate", spy)
    return seen


@pytest.mark.parametrize(
    ("tty", "flags", "progress"),
    [
        (False, [], False),  # a file or a pipe: no bar redrawn into it
        (True, [], True),
        (False, ["--progress"], True),  # asked for
        (True, ["--quiet"], False),
    ],
)
def test_the_bar_is_on_only_on_a_terminal_unless_asked(
    tmp_path, capsys, monkeypatch, progress_seen, tty, flags, progress
):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    code, _, _ = cli(capsys, str(write(tmp_path, POOL)), *flags)
    assert (code, progress_seen) == (0, [progress])


def test_quiet_and_progress_together_are_an_error(tmp_path, capsys):
    code, out, err = cli(capsys, str(write(tmp_path, POOL)), "--quiet", "--progress")
    assert (code, out) == (1, "")
    assert err == "slurmlab: error: give --quiet (no progress bar) or --progress, not both\n"


def test_a_long_trace_piped_writes_no_bar(tmp_path):
    """1000 jobs (the bar's threshold), stderr a pipe: stderr stays empty; --progress draws."""
    lines = "".join(f"{n} {n} -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n" for n in range(1, 1001))
    path = write(tmp_path, "; MaxProcs: 4\n" + lines)
    run = [sys.executable, "-m", "slurmlab", "simulate", str(path), "--json"]
    piped = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert (piped.returncode, piped.stderr) == (0, "")
    asked = subprocess.run([*run, "--progress"], capture_output=True, text=True, cwd=ROOT)
    assert asked.returncode == 0 and "simulating" in asked.stderr
