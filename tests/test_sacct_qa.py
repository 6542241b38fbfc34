"""QA findings on the sacct reader, the anonymizer and the analyzers: one rule per test.

Each test states the rule it checks; the inputs are the smallest exports that broke it.
"""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_sacct_public import FIELDS, SACCT

from slurmlab import analysis as an
from slurmlab.anonymize import Anonymizer, anonymize_file
from slurmlab.errors import SlurmlabError
from slurmlab.records.sacct import SacctParseError, read_sacct, steps, write_sacct

REAL = Path(__file__).resolve().parents[1] / "datasets/realslurm"


def read(text: str, **kwargs) -> pd.DataFrame:
    return read_sacct(io.StringIO(text), **kwargs)


def texts(column: pd.Series) -> list:
    """A text column as a list, a missing value as None."""
    return [None if pd.isna(v) else v for v in column]


def read_quietly(text: str, **kwargs) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jobs = read(text, **kwargs)
    return jobs, [str(w.message) for w in caught]


# -- 1, 10: the delimiter inside a value ----------------------------------------------------------


def test_a_pipe_in_a_value_is_not_taken_for_a_trailing_delimiter():
    """A -P row with one field too many whose last field is empty is not a -p row when that
    reading makes no sense: ``[broadwell|skylake]`` stays one Constraints value."""
    text = "JobID|State|Elapsed|Constraints|Comment\n1|COMPLETED|00:01:00|[broadwell|skylake]|\n"
    jobs = read(text)
    assert jobs["Constraints"].tolist() == ["[broadwell|skylake]"]
    assert jobs["Comment"].isna().all()
    assert jobs.attrs["repaired_rows"] == 1


def test_a_pipe_in_the_job_name_of_a_row_with_an_empty_last_field():
    """``a|b`` in JobName with the last field empty: the name is repaired, no column shifts
    (the error used to blame Elapsed)."""
    text = (
        "JobID|JobName|State|Elapsed|Comment\n1|a|b|COMPLETED|00:01:00|\n2|ok|COMPLETED|00:01:00|\n"
    )
    jobs = read(text)
    assert jobs["JobName"].tolist() == ["a|b", "ok"]
    assert jobs["State"].tolist() == ["COMPLETED", "COMPLETED"]


def test_a_pipe_in_every_hundredth_job_name_of_a_realistic_export():
    """The synthetic export's layout (free text last, WorkDir blank on steps) with ``|x`` in
    JobName on every 100th line reads, each such row repaired (it used to raise at line 100)."""
    from slurmlab.records.synth import synth_sacct

    lines = synth_sacct(150, seed=3).splitlines()
    names = lines[0].split("|")
    at = names.index("JobName")
    changed = 0
    for i in range(100, len(lines), 100):
        pieces = lines[i - 1].split("|")
        pieces[at] += "|x"
        lines[i - 1] = "|".join(pieces)
        changed += 1
    jobs = read("\n".join(lines) + "\n")
    every = pd.concat([jobs[["JobID", "JobName"]], steps(jobs)[["JobID", "JobName"]]])
    assert every["JobName"].str.endswith("|x").sum() == changed
    assert jobs.attrs["repaired_rows"] == changed and jobs.attrs["bad_rows"] == 0


PIPES = (
    "JobID|JobName|User|State|Elapsed|NCPUS|Constraints|Comment\n"
    "1|some_jobname . | grep hot|ann|COMPLETED|00:01:00|4||\n"
    "2|ok|ann|COMPLETED|00:01:00|4|[broadwell|skylake]|\n"
    "3|x|ann|COMPLETED|00:01:00|4|[broadwell|skylake]|hello|world\n"
    "4|plain|ann|COMPLETED|00:01:00|4||\n"
)


def test_two_free_text_columns_with_the_delimiter_are_ambiguous():
    """Constraints and Comment both holding ``|``: the row splits more than one way, so it is
    an error naming the line, both columns and the fix (a delimiter absent from the data)."""
    with pytest.raises(SacctParseError) as info:
        read(PIPES)
    err = info.value
    assert err.line == 4 and err.column == "Constraints, Comment"
    message = str(err)
    assert "more than one way" in message and "--delimiter='^|^'" in message
    jobs, caught = read_quietly(PIPES, errors="warn")
    assert jobs["JobID"].tolist() == ["1", "2", "4"] and jobs.attrs["bad_lines"] == [4]
    assert jobs["JobName"].tolist() == ["some_jobname . | grep hot", "ok", "plain"]
    assert texts(jobs["Constraints"]) == [None, "[broadwell|skylake]", None]
    assert len(caught) == 1


# -- 7, 8: short lines --------------------------------------------------------------------------


def test_a_lone_short_row_is_reported_not_padded():
    """A truncated row in a small file is an error naming the line and both field counts."""
    text = (
        "JobID|State|Submit|Elapsed\n1|COMPLETED|2024-01-01T00:00:00|00:01:00\n"
        "2|COMPLETED|2024-01-01T00:00:00\n3|COMPLETED|2024-01-01T00:00:00|00:01:00\n"
    )
    with pytest.raises(SacctParseError, match="has 3 fields where the header has 4") as info:
        read(text)
    assert info.value.line == 3
    jobs, caught = read_quietly(text, errors="warn")
    assert jobs["JobID"].tolist() == ["1", "3"] and jobs.attrs["padded_rows"] == 0
    assert "line(s) 3" in caught[0]


def test_an_appended_export_with_fewer_columns_is_still_padded():
    """Rows appended from an export with fewer fields are padded when there is evidence: a
    block of consecutive rows with that count, or a header line of their own."""
    head = "JobID|State|Elapsed|Partition\n1|COMPLETED|00:01:00|gpu\n"
    block = "".join(f"{i}|COMPLETED|00:01:00\n" for i in range(2, 8))
    jobs = read(head + block)
    assert len(jobs) == 7 and jobs.attrs["padded_rows"] == 6
    assert texts(jobs["Partition"]) == ["gpu"] + [None] * 6
    with_header = head + "JobID|State|Elapsed\n2|COMPLETED|00:02:00\n"
    jobs = read(with_header)
    assert jobs["Elapsed"].tolist() == [pd.Timedelta(minutes=1), pd.Timedelta(minutes=2)]
    assert jobs.attrs["padded_rows"] == 1 and jobs.attrs["bad_rows"] == 0


def test_a_repeated_header_with_other_columns_maps_by_name():
    """Two exports joined with their headers (the second in another order) read by name."""
    text = "JobID|State|Elapsed\n1|COMPLETED|00:01:00\nJobID|Elapsed|State\n2|00:02:00|FAILED\n"
    jobs = read(text)
    assert jobs["State"].tolist() == ["COMPLETED", "FAILED"]
    assert jobs["Elapsed"].tolist() == [pd.Timedelta(minutes=1), pd.Timedelta(minutes=2)]
    same = "JobID|State\n1|COMPLETED\nJobID|State\n2|FAILED\n"  # cat a.psv b.psv
    assert read(same)["JobID"].tolist() == ["1", "2"]


@pytest.mark.parametrize("errors", ["raise", "warn"])
def test_a_newline_inside_the_last_column_is_joined(errors):
    """A Comment broken by a newline is joined even when Comment is the last column."""
    text = (
        "JobID|State|Elapsed|NCPUS|Comment\n1|COMPLETED|01:00:00|4|line one\nline two\n"
        "line three\n2|COMPLETED|01:00:00|8|\n"
    )
    jobs, caught = read_quietly(text, errors=errors)
    assert texts(jobs["Comment"]) == ["line one\nline two\nline three", None]
    assert jobs["NCPUS"].tolist() == [4, 8] and caught == []
    parsable = "JobID|State|Elapsed|NCPUS|Comment|\n1|COMPLETED|01:00:00|4|a\nb|\n2|COMPLETED|01:00:00|8||\n"
    assert texts(read(parsable)["Comment"]) == ["a\nb", None]


def test_a_stray_line_after_a_row_keeps_the_row():
    """A line that is not a row and cannot belong to a free-text column is reported; the row
    before it is kept as it was."""
    text = "JobID|State|Elapsed\n1|COMPLETED|00:01:00\nhello there\n2|FAILED|00:00:01\n"
    with pytest.raises(SacctParseError) as info:
        read(text)
    assert info.value.line == 3
    jobs, _ = read_quietly(text, errors="warn")
    assert jobs["JobID"].tolist() == ["1", "2"] and jobs.attrs["bad_lines"] == [3]


# -- 2, 3: the anonymizer -------------------------------------------------------------------------

LEAKY = (
    "JobID|User|JobName|State|Elapsed|Comment\n"
    "1|alice|train|alice_secret|COMPLETED|00:01:00|\n"
    "2|bob|ok|COMPLETED|00:01:00|first line\nsecret second line by bob\n"
)


def test_the_anonymizer_leaks_no_part_of_a_split_value(tmp_path):
    """A JobName holding the delimiter and a Comment broken over two lines are pseudonymised
    whole; the output reads back with the same jobs."""
    src, out = tmp_path / "a.psv", tmp_path / "a_out.psv"
    src.write_text(LEAKY)
    anonymize_file(src, out, salt="s")
    text = out.read_text()
    for secret in ("alice", "secret", "bob", "first line", "train"):
        assert secret not in text
    back = read_sacct(out)
    assert back["State"].tolist() == ["COMPLETED", "COMPLETED"]
    assert back["Elapsed"].tolist() == [pd.Timedelta(minutes=1)] * 2


def test_the_anonymizer_refuses_what_it_cannot_split(tmp_path):
    src, out = tmp_path / "a.psv", tmp_path / "b.psv"
    src.write_text(PIPES)
    with pytest.raises(SacctParseError, match="cannot be anonymized safely") as info:
        anonymize_file(src, out, salt="s")
    assert info.value.line == 4 and not out.exists()


def test_anonymized_uids_never_collide_and_agree_across_columns(tmp_path):
    """UIDs map one to one (these two used to share a pseudonym); the uid in 'CANCELLED by'
    gets the same pseudonym as in the UID column."""
    a = Anonymizer("x")
    assert a.pseudonym("uid", "104322") != a.pseudonym("uid", "105486")
    uids = [str(u) for u in range(100_000, 130_000)]
    assert len({a.pseudonym("uid", u) for u in uids}) == len(uids)
    assert all(a.pseudonym("uid", u).isdigit() for u in uids[:100])
    src, out = tmp_path / "u.psv", tmp_path / "o.psv"
    src.write_text("JobID|UID|State\n1|104322|COMPLETED\n2|105486|CANCELLED by 104322\n")
    anonymize_file(src, out, salt="x")
    back = read_sacct(out)
    assert back.loc[1, "CancelledBy"] == str(back.loc[0, "UID"])
    assert back["UID"].nunique() == 2


def test_text_pseudonyms_are_made_unique_when_hashes_collide():
    """Two values whose short hashes collide still get different pseudonyms."""
    a = Anonymizer("x")
    a._short = lambda kind, value: "same"  # force every short hash to collide
    first, second = a.pseudonym("user", "ann"), a.pseudonym("user", "bob")
    assert first != second and a.pseudonym("user", "ann") == first


# -- 4, 5, 11, 12: analyzers --------------------------------------------------------------------

RUNNING = (
    "JobID|User|Account|Partition|State|Submit|Start|End|Elapsed|NNodes|NCPUS|AllocTRES|NodeList\n"
    "1|a|x|p|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|4|cpu=4,node=1|n1\n"
    "2|a|x|p|RUNNING|2024-01-01T00:00:00|2024-01-01T00:00:00|Unknown|05:00:00|1|6|cpu=6,node=1|n2\n"
)


def test_a_running_job_holds_its_cpus_until_start_plus_elapsed():
    """A RUNNING run (End Unknown) holds its CPUs for its Elapsed, as usage() counts it."""
    jobs = read(RUNNING)
    u = an.utilization(jobs, capacity={"p": {"cpus": 10, "gpus": 0, "nodes": 2}}, freq="1h")
    cpus = u[u.resource == "cpus"].set_index("time")["used"]
    assert cpus.tolist() == [10.0, 6.0, 6.0, 6.0, 6.0]
    assert cpus.sum() == pytest.approx(an.usage(jobs)["cpu_hours"].sum()) == 34.0
    assert an.summary(jobs).last_end == "2024-01-01T05:00:00"


def test_a_running_row_with_a_stale_end_and_a_pending_row_with_an_end():
    """xdmod's non-ended states: a RUNNING row whose End equals its Start runs for its
    Elapsed; a PENDING row with an End is still pending at the end of the export."""
    text = (
        "JobID|Partition|State|Submit|Start|End|Elapsed|NCPUS|NNodes\n"
        "1|p|RUNNING|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|03:00:00|2|1\n"
        "2|p|PENDING|2024-01-01T00:30:00|Unknown|2024-01-01T00:30:00|00:00:00|2|1\n"
    )
    jobs = read(text)
    u = an.utilization(jobs, capacity={"p": {"cpus": 2, "gpus": 0, "nodes": 1}}, freq="1h")
    assert u[u.resource == "cpus"]["used"].tolist() == [2.0, 2.0, 2.0]
    pending = an.pending_over_time(jobs, freq="1h", by=None)
    assert pending["pending"].tolist() == [0.0, 1.0, 1.0, 1.0]


NO_START = "JobID|User|State|Elapsed|NCPUS|ReqMem|NNodes\n1|ann|COMPLETED|01:00:00|4|8G|1\n2|ann|PENDING|00:00:00|4|8G|1\n"


def test_without_a_start_column_runs_are_decided_by_elapsed_and_state():
    """An export without Start: a run that has an Elapsed ran; usage counts it and
    memory_efficiency lists it; analyzers that need Start say so."""
    jobs = read(NO_START)
    u = an.usage(jobs, by="User")
    assert u[["runs", "jobs", "cpu_hours"]].values.tolist() == [[1, 1, 4.0]]
    assert an.memory_efficiency(jobs.assign(MaxRSS=1.0))["JobID"].tolist() == ["1"]
    with pytest.raises(SlurmlabError, match="no Start times"):
        an.wait_times(jobs)
    with pytest.raises(SlurmlabError, match="no Start times"):
        an.utilization(jobs, freq="1h")


@pytest.mark.skipif(not SACCT.is_dir(), reason="public samples not found")
@pytest.mark.parametrize("name", sorted(n for n in FIELDS if n.startswith("reportseff")))
def test_reportseff_exports_without_start_get_memory_efficiency(name):
    """reportseff's fixtures have no Start field: every run that ran is still in the memory
    efficiency table, and the report draws it (it used to be empty and silently left out)."""
    from slurmlab.report import render_report

    jobs = read_sacct(SACCT / name, fields=FIELDS[name])
    eff = an.memory_efficiency(jobs)
    assert len(eff) > 0 and eff["memory_efficiency"].notna().all()
    page = render_report(jobs)
    assert "<h2>Memory efficiency</h2>" in page and "no Start times" in page


def test_the_report_says_why_a_figure_is_missing():
    from slurmlab.report import render_report

    page = render_report(read(NO_START))
    assert "no Start times" in page
    assert "Memory efficiency" in page and "MaxRSS" in page


def test_a_het_job_is_one_job():
    """Het components 12+0 and 12+1 are one job (its leader's state) and one run (they
    start together: runs count the leader only, in summary and usage alike)."""
    text = (
        "JobID|JobIDRaw|User|Account|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES\n"
        "12+0|12|u|acc|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|2|1|cpu=2\n"
        "12+1|13|u|acc|FAILED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|2|1|cpu=2\n"
        "14|14|u|acc|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|2|1|cpu=2\n"
    )
    jobs = read(text)
    s = an.summary(jobs)
    assert (s.jobs, s.runs, s.states) == (2, 2, {"COMPLETED": 2})
    u = an.usage(jobs, by="Account")
    assert u[["runs", "jobs"]].values.tolist() == [[2, 2]]
    assert len(an.wait_times(jobs)) == 2
    assert an.pending_over_time(jobs, freq="1h", by=None)["pending"].max() == 0


E1 = """\
JobID|JobIDRaw|JobName|User|Account|Partition|State|ExitCode|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqMem|AllocTRES|TotalCPU|MaxRSS|NTasks|NodeList
10|10|a|u1|acc|gpu|CANCELLED by 1234|0:15|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|2-00:00:00|1|4|4000Mc|billing=4,cpu=4,gres/gpu:a100=2,gres/gpu=2,mem=16000M,node=1|31:09.458||1|gpu1
10.batch|10.batch|batch||||CANCELLED|0:15|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00||1|4||cpu=4,mem=16000M,node=1|31:09.458|1828196K|1|gpu1
10.extern|10.extern|extern||||COMPLETED|0:0|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00||1|4||cpu=4,mem=16000M,node=1|00:00.001|0|1|gpu1
11_[1-5%2]|11|arr|u1|acc|gpu,cpu|PENDING|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|UNLIMITED|1|1|1Gn|||||None assigned
12+0|12|het|u2|acc|cpu|COMPLETED|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|01:00|Partition_Limit|1|2|0n|cpu=2,node=1||||c1
12+1|13|het|u2|acc|cpu|COMPLETED|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|Partition_limit|1|2|0c|cpu=2,node=1||||c2
12+0.0|12.0|hostname||||COMPLETED|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00||1|2||cpu=2,node=1|00:01.000|100M|2|c1
14|14|x|u3|acc|cpu|NODE_FAIL|0:0|2024-01-01T00:00:00|None|None|2024-01-01T00:00:05|00:00:00|1-00:00:00|1|0||||||None assigned
15|15|x|u3|acc|cpu|OOM|0:125|2024-01-01T00:00:00|Unknown|2024-01-01T00:00:00|Unknown|22-08:05:48|30-00:00:00|2|64|2T|cpu=64,node=2|451-06:00:24||| c[01-02]
"""


def test_the_qa_export_with_a_het_job_counts_nine_jobs():
    """10, the pending range 11_[1-5%2] (5 tasks), het job 12 (two components), 14 and 15."""
    assert an.summary(read(E1)).jobs == 9


def _requeues_by_loop(jobs: pd.DataFrame) -> pd.DataFrame:
    """The former implementation (a Python loop per JobID), as a reference."""
    from slurmlab.analysis._common import count, hours

    frame = jobs.assign(_gpu_h=hours(jobs["Elapsed"]) * count(jobs["NGPUS"]), _pos=range(len(jobs)))
    frame = frame.sort_values(["Submit", "_pos"], kind="stable", na_position="first")
    frame = frame.assign(_restarts=pd.to_numeric(frame["Restarts"], errors="coerce").fillna(0))
    rows = []
    for job_id, runs in frame.groupby("JobID", sort=False):
        if len(runs) < 2 and runs["_restarts"].max() == 0:
            continue
        rows.append(
            {
                "JobID": job_id,
                "runs": int(runs["Start"].notna().sum()),  # the rows that started
                "Restarts": int(runs["_restarts"].max()),
                "states": ">".join(runs["State"].astype(str)),
                "final_state": runs["State"].iloc[-1],
                "lost_gpu_hours": float(runs["_gpu_h"].iloc[:-1].sum()),
            }
        )
    return pd.DataFrame(rows)


def test_requeues_agree_with_the_loop_on_a_synthetic_export():
    """The vectorised requeues() gives the loop's answer on a -D export with requeues."""
    from slurmlab.records.synth import synth_sacct

    jobs = read(synth_sacct(3000, seed=5))
    got = an.requeues(jobs)
    want = _requeues_by_loop(jobs)
    assert len(got) > 10
    pd.testing.assert_frame_equal(
        got.sort_values("JobID").reset_index(drop=True),
        want.sort_values("JobID").reset_index(drop=True),
        check_dtype=False,
    )


def test_requeues_of_a_het_job_group_by_its_leader():
    text = (
        "JobID|State|Submit|Elapsed|NCPUS|AllocTRES|Restarts\n"
        "7+0|NODE_FAIL|2024-01-01T00:00:00|01:00:00|8|cpu=8,gres/gpu=4|0\n"
        "7+1|NODE_FAIL|2024-01-01T00:00:00|01:00:00|8|cpu=8,gres/gpu=2|0\n"
        "7+0|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|1\n"
        "7+1|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=2|1\n"
    )
    r = an.requeues(read(text))
    assert r.to_dict("records") == [
        {
            "JobID": "7",
            "runs": 2,
            "Restarts": 1,
            "states": "NODE_FAIL>COMPLETED",
            "final_state": "COMPLETED",
            "lost_gpu_hours": 6.0,
        }
    ]


# -- 6, 9: values ------------------------------------------------------------------------------


@pytest.mark.skipif(not (REAL / "failures/sacct.json").exists(), reason="no realslurm fixture")
def test_json_exit_signal_of_slurm_22_05():
    """22.05 writes a signalled step as return_code null and signal.signal_id 15: 0:15, as
    the text export says."""
    jobs = read_sacct(REAL / "failures/sacct.json", tz="UTC")
    text = read_sacct(REAL / "failures/sacct.txt")
    key = ["JobID", "Start"]
    a = steps(jobs).sort_values(key).reset_index(drop=True)
    b = steps(text).sort_values(key).reset_index(drop=True)
    signalled = b["ExitSignal"] > 0  # (22.05's JSON says 0 for a FAILED step's 1:0: a quirk)
    assert signalled.sum() == 3
    assert a.loc[signalled, "ExitCode"].tolist() == b.loc[signalled, "ExitCode"].tolist()
    batch = a.set_index("JobID").loc[["2.batch", "5.batch"]]
    assert batch["ExitCode"].tolist() == ["0:15", "0:15"]
    assert batch["ExitSignal"].tolist() == [15, 15] and batch["ExitStatus"].tolist() == [0, 0]


@pytest.mark.parametrize(
    "exit_code",
    [
        {"status": "SIGNALED", "return_code": None, "signal": {"signal_id": 9, "name": "Killed"}},
        {
            "status": ["SIGNALED"],
            "return_code": {"set": False, "infinite": False, "number": 0},
            "signal": {"id": {"set": True, "infinite": False, "number": 9}, "name": "KILL"},
        },
    ],
    ids=["dbv0.0.38", "v0.0.39+"],
)
def test_json_exit_signal_in_both_spellings(exit_code):
    from slurmlab.records.sacct_json import _exit

    assert _exit(exit_code) == "0:9"


def test_legacy_alloc_gres_gives_gpus_when_alloc_tres_has_none():
    """Before 20.11 (or without AccountingStorageTRES=gres/gpu) AllocTRES lists no GPUs but
    AllocGRES does: gpu:4 is 4 GPUs, not 0."""
    text = (
        "JobID|State|AllocTRES|ReqTRES|AllocGRES|ReqGRES\n"
        "1|COMPLETED|cpu=8,mem=10G,node=1|cpu=8,mem=10G,node=1|gpu:4|gpu:4\n"
        "2|COMPLETED|cpu=8,mem=10G,node=1|cpu=8,gres/gpu=2,mem=10G,node=1||\n"
        "3|COMPLETED|cpu=8,gres/gpu=2,gres/gpu:a100=2|||\n"
        "4|PENDING||cpu=8|gpu:V100:2|gpu:V100:2\n"
        "5|PENDING|||gpu:1|gpu:1\n"
        "6|PENDING||cpu=8,gres/gpu=3||\n"
    )
    jobs = read(text)
    assert jobs["NGPUS"].tolist() == [4, 0, 2, 2, 1, 3]
    assert jobs.loc[3, "GPUType"] == "V100"


# -- 13, 14: the command line -------------------------------------------------------------------


def test_a_bad_time_zone_is_one_clear_error(tmp_path, capsys):
    from slurmlab.cli import main

    path = tmp_path / "epoch.psv"
    path.write_text(
        "JobID|State|Submit|Start|End|Elapsed\n1|COMPLETED|1704067200|1704067200|1704070800|01:00:00\n"
    )
    for export in (path, tmp_path / "std.psv"):
        (tmp_path / "std.psv").write_text("JobID|State\n1|COMPLETED\n")
        with pytest.raises(SystemExit) as info:
            main(["summary", str(export), "--tz", "Mars/Base"])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "Mars/Base" in err and "time zone" in err and "Traceback" not in err
    with pytest.raises(SlurmlabError, match="'Mars/Base' is not a time zone"):
        read_sacct(tmp_path / "std.psv", tz="Mars/Base")


def test_epoch_times_without_tz_are_utc_and_say_so(tmp_path):
    """Epoch-second (and --json) times need the exporting host's zone: without tz they are
    shown in UTC, with a warning saying so; with tz they are that zone's local times."""
    text = "JobID|State|Submit\n1|COMPLETED|1704067200\n"
    jobs, caught = read_quietly(text)
    assert jobs.loc[0, "Submit"] == pd.Timestamp("2024-01-01 00:00:00")
    assert len(caught) == 1 and "UTC" in caught[0] and "tz=" in caught[0]
    berlin, caught = read_quietly(text, tz="Europe/Berlin")
    assert berlin.loc[0, "Submit"] == pd.Timestamp("2024-01-01 01:00:00") and caught == []
    standard, caught = read_quietly("JobID|Submit\n1|2024-01-01T00:00:00\n")
    assert caught == []


def test_cli_help_says_how_times_are_read(capsys):
    from slurmlab.cli import main

    with pytest.raises(SystemExit):
        main(["summary", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "UTC" in help_text and "epoch" in help_text


def test_cli_messages_use_the_flags_of_the_command_line(tmp_path, capsys):
    """On the command line the advice names --errors, not the API's errors='warn'."""
    from slurmlab.cli import main

    bad = tmp_path / "bad.psv"
    bad.write_text("JobID|Elapsed\n1|ten\n")
    assert main(["summary", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "--errors warn" in err and "errors='" not in err
    assert main(["summary", str(bad), "--errors", "warn", "--json"]) == 0
    err = capsys.readouterr().err
    # (the warning gives each row's reason itself, and names --errors coerce to keep them)
    assert "--errors coerce" in err and "errors='" not in err
    trunc = tmp_path / "trunc.psv"
    trunc.write_text("JobID|State|Elapsed\n1|COMPLETED\n2|COMPLETED|00:01:00\n")
    assert main(["summary", str(trunc)]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "has 2 fields where the header has 3" in err
    assert "errors='" not in err


def test_round_trip_of_a_joined_comment():
    """A Comment with a newline writes back as -P text that reads to the same value."""
    text = "JobID|State|Comment\n1|COMPLETED|a\nb\n2|FAILED|\n"
    jobs = read(text)
    again = read(write_sacct(jobs))
    assert texts(again["Comment"]) == ["a\nb", None]


def test_summary_json_of_the_cli_counts_the_het_job_once(tmp_path, capsys):
    from slurmlab.cli import main

    path = tmp_path / "het.psv"
    path.write_text("JobID|State\n12+0|COMPLETED\n12+1|COMPLETED\n")
    assert main(["summary", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 1


# -- the invariant behind 1, 2, 7, 8, 10 ------------------------------------------------------

_TEXT = st.text(alphabet="ab xyz|", max_size=8)
# the line after a newline inside a value starts with no JobID
_AFTER = st.tuples(st.sampled_from("abcxyz"), st.text(alphabet="ab xyz", max_size=6))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            _TEXT,
            st.one_of(_TEXT, st.tuples(_TEXT, _AFTER).map(lambda t: f"{t[0]}\n{''.join(t[1])}")),
            st.sampled_from(["COMPLETED", "FAILED", "CANCELLED by 7"]),
            st.integers(0, 99),
            _TEXT,
            st.one_of(_TEXT, st.tuples(_TEXT, _AFTER).map(lambda t: f"{t[0]}\n{''.join(t[1])}")),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    ),
    st.booleans(),
)
def test_a_row_is_read_as_written_or_reported_never_misread(rows, parsable):
    """Free text with the delimiter or a newline inside: every row reads back exactly as
    written, or its line is reported; no value lands in another column."""
    end = "|" if parsable else ""
    lines = ["JobID|JobName|State|NCPUS|Constraints|Comment" + end]
    where = {}
    for i, (name, name2, state, cpus, constraints, comment, truncate) in enumerate(rows, 1):
        name = name if i % 2 else name2  # a newline in the middle column, or in the last
        fields = [str(i), name, state, str(cpus), constraints, comment]
        text = "|".join(fields) + end
        if truncate and i == len(rows):  # a cut last line (with fewer fields than the header)
            text = "|".join([fields[0], fields[1].replace("|", ""), fields[2]])
        # a line inside a value with a row's width is a row (its JobID is checked): out of scope;
        # so is a row cut by a newline whose first line already has a row's width (a name of
        # delimiters, "|||||\na": sacct -P writes the same bytes for other rows)
        parts = text.split("\n")
        assume(len(parts) == 1 or all(len(part.split("|")) not in (6, 7) for part in parts))
        where[str(i)] = ("\n".join(lines).count("\n") + 2, fields, truncate)
        lines.append(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            jobs = read("\n".join(lines) + "\n", errors="warn")
        except SacctParseError as exc:
            # the field list is right, so the whole file is refused only when most lines have
            # more fields than it names and only the last (free-text) column could take them:
            # then nothing tells it from a list that lacks columns
            body = "\n".join(lines[1:]).split("\n")
            counts = [len(t.split("|")) - (parsable and t.endswith("|")) for t in body]
            longer = sum(c > 6 and not (c == 7 and t.endswith("|")) for c, t in zip(counts, body))
            assert "only the last column, Comment" in str(exc), exc
            assert len(body) >= 3 and longer > 0.5 * len(body), exc
            return
    bad = set(jobs.attrs["bad_lines"])
    got = {row.JobID: row for row in jobs.itertuples()}
    for job_id, (line, fields, truncate) in where.items():
        if job_id in got:
            row = got[job_id]
            assert not (truncate and job_id == str(len(rows)))
            values = [row.JobName, row.Constraints, row.Comment]
            assert [v if isinstance(v, str) else "" for v in values] == [fields[1], *fields[4:]]
            assert (row.State, row.NCPUS) == (fields[2].split()[0], int(fields[3]))
        else:
            assert line in bad, (job_id, line, bad)
    assert set(got) <= set(where)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "|", "||", "\nq", "|\nq", "[a|b]"]),
            st.sampled_from(["", "|", "\nq", "|\nq|r", "[a|b]"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_the_anonymizer_never_passes_a_piece_of_a_value_through(tmp_path_factory, rows):
    """Whatever the delimiters and newlines inside JobName and Comment, the anonymizer writes
    every secret pseudonymised, or refuses the file."""
    lines = ["JobID|User|JobName|State|Elapsed|Comment"]
    for i, (name, comment, cut) in enumerate(rows, 1):
        fields = [str(i), f"usr{i}sec", f"jn{i}sec{name}", "COMPLETED", "00:01:00"]
        fields.append(f"cm{i}sec{comment}")
        lines.append("|".join(fields[:3] if cut and i == len(rows) else fields))
    folder = tmp_path_factory.mktemp("anon")
    src, out = folder / "in.psv", folder / "out.psv"
    src.write_text("\n".join(lines) + "\n")
    try:
        anonymize_file(src, out, salt="k")
    except SacctParseError:
        assert not out.exists()
        return
    assert "sec" not in out.read_text()


# -- review 16b ------------------------------------------------------------------------------


@pytest.mark.parametrize("latin1", [False, True])  # the fast path, and the slow one
def test_a_header_further_down_with_unknown_names_is_a_header(latin1):
    """A line that starts with JobID is a header, even with names sacct does not know (kept as
    text columns, as in the first header): never joined onto the row before it."""
    first = "JobID|User|State|WorkDir\n" + "".join(
        f"{i}|alice|COMPLETED|/home/alice/p{i}\n" for i in range(1, 4)
    )
    second = "jobid%10|User|State|WorkDir|Foo\n" + "".join(
        f"{i}|bob|FAILED|/home/bob/q{i}|secretbob{i}\n" for i in range(10, 13)
    )
    data = (first + second).encode()
    if latin1:
        data = data.replace(b"/home/alice/p1", b"/home/al\xe9ce/p1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*not UTF-8")  # (read as Latin-1, said)
        jobs = read_sacct(io.BytesIO(data))
    assert jobs["JobID"].tolist() == ["1", "2", "3", "10", "11", "12"]
    assert jobs["WorkDir"].tolist()[3:] == ["/home/bob/q10", "/home/bob/q11", "/home/bob/q12"]
    assert jobs["WorkDir"].iloc[0] == ("/home/aléce/p1" if latin1 else "/home/alice/p1")
    assert texts(jobs["Foo"]) == [None, None, None, "secretbob10", "secretbob11", "secretbob12"]
    assert "Foo" in jobs.attrs["fields"] and jobs.attrs["repaired_rows"] == 0


def test_rows_that_all_resolve_one_way_are_not_refused_as_a_wrong_field_list():
    """A -X export whose every row has a pipe in JobName: each row has one reading (State and
    Elapsed after it check it), so the file reads instead of being refused."""
    text = "JobID|JobName|State|Elapsed\n" + "".join(
        f"5_{i}|prep|clean|COMPLETED|00:01:00\n" for i in range(3)
    )
    jobs = read(text)
    assert jobs["JobName"].tolist() == ["prep|clean"] * 3
    assert jobs["State"].tolist() == ["COMPLETED"] * 3
    assert jobs.attrs["repaired_rows"] == 3


def test_a_field_list_that_lacks_columns_is_still_refused():
    """Rows longer than the list, with only a free-text last column to take the extra: one
    error naming the field list (nothing after Comment could check the repair)."""
    text = "".join(f"{i}|COMPLETED|00:01:00|x\n" for i in range(1, 4))
    with pytest.raises(SacctParseError, match="only the last column, Comment"):
        read(text, fields="JobID,State,Comment")
    with pytest.raises(SacctParseError, match="field list names 2"):
        read(text, fields="JobID,State")


@pytest.mark.parametrize("latin1", [False, True])
def test_a_hash_line_inside_a_free_text_value_is_joined(latin1):
    """A newline inside the last (free-text) column, then a line starting with #: part of the
    value, not a comment."""
    data = b"JobID|JobName|State|Comment\n1|j|COMPLETED|run\n#SBATCH -t 5\n2|k|FAILED|x\n"
    if latin1:
        data = data.replace(b"|j|", b"|j\xe9|")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*not UTF-8")  # (read as Latin-1, said)
        jobs = read_sacct(io.BytesIO(data))
    assert jobs["Comment"].tolist() == ["run\n#SBATCH -t 5", "x"]


@pytest.mark.parametrize("latin1", [False, True])
def test_a_hash_line_after_a_row_that_cannot_take_it_is_counted(latin1):
    """A # line right after a row whose last column is not free text is left out with a
    warning naming its line; # lines at the top or after a blank line stay comments."""
    data = b"# exported\nJobID|Comment|State\n1|r|COMPLETED\n#SBATCH -t 5\n2|x|FAILED\n\n# end\n"
    if latin1:
        data = data.replace(b"|r|", b"|r\xe9|")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jobs = read_sacct(io.BytesIO(data))
    messages = [str(w.message) for w in caught if "'#' line" in str(w.message)]
    assert len(messages) == 1 and "skipped 1 '#' line(s)" in messages[0]
    assert "line(s) 4:" in messages[0]
    assert jobs["JobID"].tolist() == ["1", "2"]


def test_het_components_are_one_run_in_usage_and_summary():
    text = (
        "JobID|JobIDRaw|User|Account|State|Start|Elapsed|NCPUS|NGPUS|NNodes\n"
        "12+0|12|u|acc|COMPLETED|2024-01-01T00:00:00|00:01:00|2|0|1\n"
        "12+1|13|u|acc|COMPLETED|2024-01-01T00:00:00|00:01:00|2|0|1\n"
        "12+2|14|u|acc|COMPLETED|2024-01-01T00:00:00|00:01:00|2|0|1\n"
    )
    jobs = read(text)
    assert an.summary(jobs).runs == 1
    assert an.usage(jobs, by="User")[["runs", "jobs"]].values.tolist() == [[1, 1]]


def test_the_anonymizer_docstring_says_old_pseudonyms_do_not_join():
    import slurmlab.anonymize as module

    doc = " ".join(module.__doc__.split())
    assert "before 2026-12-03 do not match" in doc and "re-anonymize" in doc


def test_the_report_shows_a_capacity_mismatch_in_the_page():
    from slurmlab.analysis._common import demo_jobs
    from slurmlab.report import render_report

    cap = {"gpu": {"cpus": 8, "gpus": 4, "nodes": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = render_report(demo_jobs(), capacity=cap)
    assert "allocates more than the capacity has" in page
    assert "is not in the capacity" in page


def test_the_report_draws_pending_jobs_when_no_job_started():
    from slurmlab.report import render_report

    text = "JobID|State|Submit|Start|End|Elapsed|NCPUS|NGPUS|NNodes|Partition\n" + "".join(
        f"{i}|PENDING|2024-01-01T0{i}:00:00|Unknown|Unknown|00:00:00|1|0|1|cpu\n"
        for i in range(1, 4)
    )
    page = render_report(read(text))
    assert "no job in the export started" in page
    assert "<h2>Pending jobs</h2>" in page


def test_a_column_that_is_not_a_sacct_field_is_anonymized_whole(tmp_path):
    """A site's own column (here ``Foo``, under a header further down) says nothing about
    what it holds: the anonymizer replaces its values rather than passing them through."""
    from slurmlab.anonymize import Anonymizer, anonymize_text

    text = (
        "JobID|User|State|WorkDir\n1|alice|COMPLETED|/home/alice/p1\n"
        "JobID|User|State|WorkDir|Foo\n10|bob|FAILED|/home/bob/q10|secretbob10\n"
    )
    out = anonymize_text(text, Anonymizer("s"))
    out = out if isinstance(out, str) else out.text
    assert "secretbob10" not in out and "alice" not in out and "COMPLETED" in out
