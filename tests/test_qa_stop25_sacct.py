"""QA stop 25: the sacct readers on daily exports that list a run twice, sizes without a unit,
epoch times across a daylight-saving change, unusual delimiters, --json against -P text, and
the reasons of rows left out (each test quotes its input and asserts the exact outcome)."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

from slurmlab import analysis as an
from slurmlab.cli import main
from slurmlab.records.sacct import (
    SacctParseError,
    SacctParseWarning,
    parse_memory,
    read_sacct,
    steps,
)

REAL = Path(__file__).resolve().parents[1] / "datasets/realslurm"


def read(text: str, **kwargs) -> pd.DataFrame:
    return read_sacct(io.StringIO(text), **kwargs)


def messages(caught) -> list[str]:
    return [str(w.message) for w in caught]


# --------------------------------------------------- 1. a run listed by two daily exports

DAY_HEADER = "JobID|JobIDRaw|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Account\n"
DAY1 = DAY_HEADER + (
    "1|1|RUNNING|2024-01-01T22:00:00|2024-01-01T23:00:00|Unknown|00:59:00|4|cpu=4,gres/gpu=2|a\n"
    "1.batch|1.batch|RUNNING|2024-01-01T23:00:00|2024-01-01T23:00:00|Unknown|00:59:00|4|cpu=4|\n"
    "2|2|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|01:00:00|4|"
    "cpu=4,gres/gpu=2|a\n"
)
DAY2 = DAY_HEADER + (
    "1|1|COMPLETED|2024-01-01T22:00:00|2024-01-01T23:00:00|2024-01-02T03:00:00|04:00:00|4|"
    "cpu=4,gres/gpu=2|a\n"
    "1.batch|1.batch|COMPLETED|2024-01-01T23:00:00|2024-01-01T23:00:00|2024-01-02T03:00:00|"
    "04:00:00|4|cpu=4|\n"
    "3|3|COMPLETED|2024-01-02T10:00:00|2024-01-02T10:00:00|2024-01-02T11:00:00|01:00:00|4|"
    "cpu=4,gres/gpu=2|a\n"
)


def write_days(tmp_path, *texts: str) -> list[Path]:
    paths = []
    for day, text in enumerate(texts, start=1):
        path = tmp_path / f"day{day}.psv"
        path.write_text(text)
        paths.append(path)
    return paths


def test_a_run_running_in_one_export_and_completed_in_the_next_counts_once(tmp_path):
    """Job 1 is RUNNING in day 1's export and COMPLETED in day 2's (same JobIDRaw, Submit and
    Start): one run, kept as its COMPLETED row, in the place of its first row; 3 runs and
    12 GPU-hours (2 GPUs x (1 + 4 + 1) h), not 4 runs and 13.97 GPU-hours."""
    d1, d2 = write_days(tmp_path, DAY1, DAY2)
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct([d1, d2])
    assert messages(caught) == [
        "concat_sacct: 1 run(s) appear in more than one export with different rows (a job "
        "still RUNNING or PENDING when one export was taken has ended by the next, as exports "
        "taken at midnight list it): each is kept once, as its most final row (an ended state, "
        f"then the latest End, then the later export): JobID 1: kept {d2}:2 (COMPLETED), left "
        f"out {d1}:2 (RUNNING)"
    ]
    assert jobs[["JobID", "State"]].values.tolist() == [
        ["1", "COMPLETED"],
        ["2", "COMPLETED"],
        ["3", "COMPLETED"],
    ]
    assert jobs.loc[0, "Elapsed"] == pd.Timedelta(hours=4)
    assert steps(jobs)[["JobID", "State", "JobState"]].values.tolist() == [
        ["1.batch", "COMPLETED", "COMPLETED"]
    ]
    assert jobs.attrs["duplicate_rows"] == 1
    assert jobs.attrs["duplicate_lines"] == [f"{d1}:2"]
    assert jobs.attrs["duplicate_steps"] == 1
    s = an.summary(jobs)
    assert (s.jobs, s.runs, s.steps, s.gpu_hours) == (3, 3, 1, 12.0)


def test_the_order_of_the_exports_does_not_decide_which_row_is_kept(tmp_path):
    """An ended state beats RUNNING whichever export comes first."""
    d1, d2 = write_days(tmp_path, DAY1, DAY2)
    with pytest.warns(SacctParseWarning, match=f"JobID 1: kept {d2}:2 \\(COMPLETED\\), left out "):
        jobs = read_sacct([d2, d1])
    assert jobs["JobID"].tolist() == ["1", "3", "2"]
    assert jobs["State"].tolist() == ["COMPLETED"] * 3
    assert an.summary(jobs).gpu_hours == 12.0


def test_runs_of_a_requeued_job_are_kept_apart(tmp_path):
    """sacct -D lists each run of a requeued job with its own Submit (a requeue resets it:
    batch_requeue_fini, job_mgr.c, "so we get different records in the database"): two
    exports listing one run each give two runs, not one, and no warning. (QA 45: the second
    run's Submit was the first's, which Slurm never writes.)"""
    one = DAY_HEADER + (
        "7|7|REQUEUED|2024-01-01T22:00:00|2024-01-01T22:00:00|2024-01-01T23:00:00|01:00:00|4|"
        "cpu=4|a\n"
    )
    two = DAY_HEADER + (
        "7|7|COMPLETED|2024-01-01T23:00:00|2024-01-02T01:00:00|2024-01-02T02:00:00|01:00:00|4|"
        "cpu=4|a\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read_sacct(write_days(tmp_path, one, two))
    assert jobs["State"].tolist() == ["REQUEUED", "COMPLETED"]
    assert jobs.attrs["duplicate_rows"] == 0
    assert an.summary(jobs).runs == 2


def test_a_job_pending_in_one_export_and_cancelled_in_the_next_is_one_job(tmp_path):
    """Never started (Start Unknown in both): the same record, kept as CANCELLED."""
    one = DAY_HEADER + "9|9|PENDING|2024-01-01T23:00:00|Unknown|Unknown|00:00:00|4||a\n"
    two = (
        DAY_HEADER
        + "9|9|CANCELLED by 1000|2024-01-01T23:00:00|Unknown|2024-01-02T08:00:00|00:00:00|4||a\n"
    )
    with pytest.warns(SacctParseWarning, match=r"JobID 9: kept .*day2.psv:2 \(CANCELLED\)"):
        jobs = read_sacct(write_days(tmp_path, one, two))
    assert jobs[["JobID", "State", "CancelledBy"]].values.tolist() == [["9", "CANCELLED", "1000"]]


def test_without_jobidraw_the_jobid_names_the_run(tmp_path):
    """Exports without JobIDRaw: JobID, Submit and Start are the key."""
    header = "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
    one = header + "5_2|RUNNING|2024-01-01T20:00:00|2024-01-01T21:00:00|Unknown|03:00:00|2\n"
    two = (
        header
        + "5_2|TIMEOUT|2024-01-01T20:00:00|2024-01-01T21:00:00|2024-01-02T01:00:00|04:00:00|2\n"
    )
    with pytest.warns(SacctParseWarning, match=r"1 run\(s\) appear in more than one export"):
        jobs = read_sacct(write_days(tmp_path, one, two))
    assert jobs[["JobID", "State"]].values.tolist() == [["5_2", "TIMEOUT"]]
    assert an.summary(jobs).cpu_hours == 8.0


def test_rows_of_one_export_are_never_collapsed(tmp_path):
    """A file that lists an ended run twice, differently, is not guessed at: with another
    export's row of that run, all three rows are kept (and one file alone keeps both).
    (QA 45: a file listing a run RUNNING, then again, is exports joined without their
    headers and is collapsed: tests/test_qa45_sacct.py.)"""
    twice = DAY_HEADER + (
        "4|4|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|01:00:00|4|"
        "cpu=4|a\n"
        "4|4|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T12:00:00|02:00:00|4|"
        "cpu=4|a\n"
    )
    once = DAY_HEADER + (
        "4|4|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T12:30:00|02:30:00|4|"
        "cpu=4|a\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read(twice)["End"].dt.hour.tolist() == [11, 12]
        jobs = read_sacct(write_days(tmp_path, twice, once))
    assert jobs["End"].dt.hour.tolist() == [11, 12, 12]
    assert jobs.attrs["duplicate_rows"] == 0


# ------------------------------------------------------------- 2. sizes without a unit


def test_a_bare_maxrss_is_bytes_as_sacct_noconvert_writes_it():
    """Slurm >= 17.11 keeps MaxRSS as a TRES count in bytes and prints it with
    convert_num_unit(..., UNIT_NONE, ...): --noconvert writes 1174753280, 1120.33 MB."""
    text = (
        "JobID|State|Elapsed|NCPUS|ReqMem|MaxRSS|AveRSS|MaxVMSize|MaxDiskRead|NTasks\n"
        "1|COMPLETED|01:00:00|4|16000M|||||\n"
        "1.batch|COMPLETED|01:00:00|4||1174753280|587376640|2147483648|12|2\n"
    )
    jobs = read(text)
    step = steps(jobs).iloc[0]
    assert step["MaxRSS"] == 1174753280 / 2**20 == 1120.33203125
    assert step["AveRSS"] == 560.166015625
    assert step["MaxVMSize"] == 2048.0
    assert step["MaxDiskRead"] == 12.0  # disk I/O is printed from MB: a bare value is MB
    assert jobs.loc[0, "MaxRSS"] == 1120.33203125
    assert jobs.loc[0, "MemUsed"] == 2240.6640625  # x NTasks
    assert jobs.loc[0, "ReqMem"] == 16000


def test_small_sizes_sacct_leaves_unconverted_are_bytes_too():
    """By default sacct converts only whole multiples of 512 bytes from 1 KiB up: 512 stays
    512 (bytes), and 0 is 0 in any unit."""
    assert parse_memory("512") == 512 / 2**20
    assert parse_memory("0") == 0.0
    assert parse_memory("4664K") == 4664 / 1024
    assert parse_memory("16000", bare_unit_mb=1.0) == 16000.0


# --------------------------------------------- 3. epoch times across a daylight-saving change

#: 2024-11-03 in New York: 01:50 EDT, then the clocks go back, 01:10 EST (20 minutes later).
AUTUMN = (
    "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
    "1|COMPLETED|1730613000|1730614200|1730617800|01:00:00|4\n"
)


def test_epoch_times_across_the_autumn_change_are_flagged_with_advice_that_fits():
    """Epoch input read with tz=: the reader names the row, the fields and values and the
    hour lost, and advises reading without tz= (UTC), not exporting with TZ=UTC."""
    with pytest.warns(UserWarning) as caught:
        jobs = read(AUTUMN, tz="America/New_York")
    assert messages(caught) == [
        "<buffer>: 1 row(s) have times on both sides of a daylight-saving change in "
        "America/New_York (tz='America/New_York'), so as naive local times (the job table's) they are off "
        "against each other by the change: line 2 (JobID 1): Submit 1730613000 is 2024-11-03 "
        "01:50:00 EDT and Start 1730614200 is 2024-11-03 01:10:00 EST, so Start - Submit "
        "reads -00:40:00 instead of 00:20:00; waits and run times computed from them are off "
        "too (attrs['dst_lines'] lists the lines). The epoch seconds are exact: read without "
        "tz= to keep the times in UTC, which has no daylight-saving change"
    ]
    assert jobs.attrs["dst_lines"] == [2]
    assert jobs.loc[0, "Submit"] == pd.Timestamp("2024-11-03 01:50:00")  # the schema's naive
    with pytest.warns(UserWarning, match="shown here in UTC"):
        utc = read(AUTUMN)
    assert utc.attrs["dst_lines"] == []
    assert (utc.loc[0, "Start"] - utc.loc[0, "Submit"]) == pd.Timedelta(minutes=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read(AUTUMN, tz="UTC").attrs["dst_lines"] == []


def test_cli_dst_advice_names_the_flag(tmp_path, capsys):
    """slurmlab summary --tz: the reader's warning says to leave --tz out, in the CLI's words."""
    path = tmp_path / "epoch.psv"
    path.write_text(AUTUMN)
    assert main(["summary", str(path), "--tz", "America/New_York"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(
        f"slurmlab: warning: {path}: 1 row(s) have times on both sides of a daylight-saving "
        "change in America/New_York (--tz America/New_York), so as naive local times"
    )
    assert "read without --tz to keep the times in UTC" in err and "tz=" not in err


def test_a_wait_across_the_spring_change_is_flagged_too():
    """01:50 EST, then 03:10 EDT: 20 minutes that read as 1:20:00 in local time."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
        "2|COMPLETED|1710053400|1710054600|1710058200|01:00:00|4\n"
        "3|COMPLETED|1710058200|1710058800|1710062400|01:00:00|4\n"
    )
    with pytest.warns(UserWarning, match="reads 01:20:00 instead of 00:20:00") as caught:
        jobs = read(text, tz="America/New_York")
    assert len(caught) == 1 and "1 row(s)" in str(caught[0].message)
    assert jobs.attrs["dst_lines"] == [2]


def test_json_times_across_the_change_are_flagged_by_row():
    """--json: the same check, the row named by its number among the JSON's rows."""
    job = {
        "job_id": 6,
        "state": {"current": "COMPLETED"},
        "time": {"submission": 1730613000, "start": 1730614200, "end": 1730617800},
        "tres": {"allocated": [{"type": "cpu", "count": 1}], "requested": []},
        "steps": [],
    }
    data = json.dumps({"jobs": [job]})
    with pytest.warns(UserWarning, match=r"row 1 \(JobID 6\): Submit 1730613000 is") as caught:
        jobs = read(data, tz="America/New_York")
    assert len(caught) == 1
    assert jobs.attrs["dst_lines"] == [1]


# ------------------------------------------------------------------- 4. delimiter messages


def test_a_header_split_by_an_unusual_delimiter_names_it():
    """sacct takes any --delimiter: a header of field names split by ':::' says so."""
    text = "JobID:::State:::Elapsed\n1:::COMPLETED:::01:00:00\n"
    with pytest.raises(SacctParseError) as info:
        read(text)
    assert str(info.value) == (
        "<buffer>: 'JobID:::State:::Elapsed': has a header that does not split on the "
        "delimiter '|' ('|' was detected), but it does on ':::'; give delimiter=':::' "
        "(slurmlab detects only '^|^', '\u2603', '\\t', '|', ';')"
    )
    jobs = read(text, delimiter=":::")
    assert jobs[["JobID", "State"]].values.tolist() == [["1", "COMPLETED"]]
    assert jobs.loc[0, "Elapsed"] == pd.Timedelta(hours=1)


def test_cli_delimiter_advice_uses_the_flag(tmp_path, capsys):
    """On the command line the advice is --delimiter ':::' / --delimiter ','."""
    colons = tmp_path / "x"
    colons.write_text("JobID:::State:::Elapsed\n1:::COMPLETED:::01:00:00\n")
    assert main(["summary", str(colons)]) == 1
    assert capsys.readouterr().err == (
        f"slurmlab: error: {colons}: 'JobID:::State:::Elapsed': has a header that does not "
        "split on the delimiter '|' ('|' was detected), but it does on ':::'; give "
        "--delimiter ':::' (slurmlab detects only '^|^', '\u2603', '\\t', '|', ';')\n"
    )
    assert main(["summary", str(colons), "--delimiter", ":::"]) == 0
    assert capsys.readouterr().out.startswith("1 job (1 run, 0 steps)")
    comma = tmp_path / "x.csv"
    comma.write_text("JobID,State,Elapsed\n1,COMPLETED,00:01:00\n")
    assert main(["summary", str(comma), "--delimiter", ";"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"slurmlab: error: {comma}: 'JobID,State,Elapsed': has a header that does not split "
        "on the delimiter ';' (--delimiter ';' was given), but it does on ','; give "
        "--delimiter ',' (slurmlab detects only '^|^', '\u2603', '\\t', '|', ';')\n"
    )
    assert "delimiter=" not in err


# ----------------------------------------------------------------- 5. --json against -P text


def test_json_gives_what_the_text_export_gives_on_the_failures_fixture():
    """Real Slurm 22.05: CancelledBy (text 'CANCELLED by 0', JSON kill_request_user 'root'),
    the request of job 4 cancelled while pending (NCPUS 4, NNodes 1), the CPUs of each step,
    and MaxRSS (JSON bytes, text KiB) are the same from both exports."""
    folder = REAL / "failures"
    text = read_sacct(folder / "sacct.txt")
    data = read_sacct(folder / "sacct.json", tz="UTC")
    columns = ["JobID", "State", "CancelledBy", "NCPUS", "NNodes", "NGPUS", "ReqMem"]
    a = text[columns].sort_values("JobID", kind="stable").reset_index(drop=True)
    b = data[columns].sort_values("JobID", kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    four = b.set_index("JobID").loc["4"]
    assert (four["State"], four["CancelledBy"], four["NCPUS"], four["NNodes"]) == (
        "CANCELLED",
        "0",
        4,
        1,
    )
    assert b.loc[b["CancelledBy"].notna(), "JobID"].tolist() == ["4", "5"]
    key = ["JobID", "Start"]
    sa = steps(text).sort_values(key, kind="stable").reset_index(drop=True)
    sb = steps(data).sort_values(key, kind="stable").reset_index(drop=True)
    usage = ["JobID", "NCPUS", "NNodes", "NTasks", "MaxRSS"]
    pd.testing.assert_frame_equal(sa[usage], sb[usage])
    assert sb.loc[sb["JobID"] == "3.batch", "NCPUS"].tolist() == [32]


def test_json_names_other_cancelling_users_and_counts_a_pending_request():
    """The JSON has user names, not uids: root is uid 0 everywhere, another name is kept."""
    job = {
        "job_id": 12,
        "allocation_nodes": 0,
        "state": {"current": "CANCELLED"},
        "kill_request_user": "alice",
        "time": {"submission": 1700000000, "end": 1700000600},
        "tres": {
            "allocated": [],
            "requested": [
                {"type": "cpu", "count": 8},
                {"type": "mem", "count": 4000},
                {"type": "node", "count": 2},
            ],
        },
        "steps": [],
    }
    with pytest.warns(UserWarning, match="shown here in UTC"):
        jobs = read(json.dumps({"jobs": [job]}))
    assert jobs[["State", "CancelledBy", "NCPUS", "NNodes", "ReqMem"]].values.tolist() == [
        ["CANCELLED", "alice", 8, 2, 4000]
    ]


# ------------------------------------------------------------ 6. why rows were left out

BAD = "JobID|State|Elapsed|NCPUS\n1|COMPLETED|01:00:00|4\n2|COMPLETED|1:00|4\n3|FAILED|00:10:00|x\n"


def test_errors_warn_gives_the_reason_of_each_row_left_out():
    """Each reason is the error errors='raise' gives (file, line, column, value, fix)."""
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read(BAD, errors="warn")
    assert messages(caught) == [
        "<buffer>: left out 2 malformed row(s) at line(s) 3, 4; fix the export, or read with "
        "errors='coerce' to keep them with NA for the bad values:\n"
        "  <buffer>, line 3, column Elapsed: '1:00': is not a duration sacct writes "
        "[D-HH:]MM:SS[.mmm]; sacct writes 1-02:03:04, 02:03:04 or 03:04.567 (two-digit "
        "minutes and seconds, below 60): the value may be cut short (a truncated file?) or the "
        "columns shifted\n"
        "  <buffer>, line 4, column NCPUS: 'x': is not a whole number; check the field list: "
        "the columns may be shifted"
    ]
    assert jobs["JobID"].tolist() == ["1"] and jobs.attrs["bad_lines"] == [3, 4]
    with pytest.raises(SacctParseError) as info:
        read(BAD)
    assert str(info.value).startswith(
        "<buffer>, line 3, column Elapsed: '1:00': is not a duration sacct writes"
    )


def test_errors_warn_shows_ten_reasons_and_counts_the_rest():
    """A truncated line is a reason too; past ten, the rest are counted."""
    rows = "".join(f"{n}|COMPLETED|bad{n}|4\n" for n in range(1, 13))
    text = "JobID|State|Elapsed|NCPUS\n0|COMPLETED\n" + rows
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read(text, errors="warn")
    (message,) = messages(caught)
    lines = message.split("\n")
    assert lines[0].startswith("<buffer>: left out 13 malformed row(s) at line(s) 2, 3, 4,")
    assert lines[1] == (
        "  <buffer>, line 2: '0|COMPLETED': has 2 fields where the header has 4 (a truncated "
        "line?); check that the export was written completely; if rows of an export with "
        "fewer fields were appended here, put that export's header line before them"
    )
    assert lines[2].startswith("  <buffer>, line 3, column Elapsed: 'bad1': is not a sacct")
    assert len(lines) == 12 and lines[-1] == "  and 3 more (attrs['bad_lines'] lists every line)"
    assert len(jobs) == 0 and jobs.attrs["bad_rows"] == 13


def test_cli_errors_warn_prints_the_reasons(tmp_path, capsys):
    path = tmp_path / "bad.psv"
    path.write_text(BAD)
    assert main(["summary", str(path), "--errors", "warn"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(
        f"slurmlab: warning: {path}: left out 2 malformed row(s) at line(s) 3, 4; fix the "
        "export, or read with --errors coerce to keep them with NA for the bad values:\n"
        f"  {path}, line 3, column Elapsed: '1:00': is not a duration sacct writes"
    )
    assert f"  {path}, line 4, column NCPUS: 'x': is not a whole number" in err
