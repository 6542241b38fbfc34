"""read_sacct on small hand-written exports: one edge case of real sacct output per test."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import warnings

import pandas as pd
import pytest

from slurmlab.records.sacct import SacctParseError, SacctParseWarning, read_sacct, steps
from slurmlab.records.schema import JOB_COLUMNS

HEADER = "JobID|JobIDRaw|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|ReqMem|ExitCode"
ROWS = [
    "10|10|train|ann|ml|gpu|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|8|billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1|64G|0:0",
    "10.batch|10.batch|batch||||COMPLETED|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|8|cpu=8,mem=64G,node=1||0:0",
]


def read(text: str, **kwargs) -> pd.DataFrame:
    return read_sacct(io.StringIO(text), **kwargs)


def test_schema_columns_and_dtypes():
    jobs = read("\n".join([HEADER, *ROWS]))
    assert list(jobs.columns[: len(JOB_COLUMNS)]) == list(JOB_COLUMNS)
    for name, dtype in JOB_COLUMNS.items():
        assert jobs[name].dtype == dtype, name
    assert jobs.loc[0, "NGPUS"] == 4
    assert jobs.loc[0, "ReqMem"] == 65536
    assert jobs.loc[0, "Elapsed"] == pd.Timedelta(hours=1)
    assert steps(jobs)["StepID"].tolist() == ["batch"]


@pytest.mark.parametrize("delimiter", ["|", "^|^", "\u2603", "\t"])
@pytest.mark.parametrize("trailing", [False, True])
def test_delimiters_and_trailing_delimiter_are_detected(delimiter, trailing):
    lines = [
        line.replace("|", delimiter) + (delimiter if trailing else "") for line in [HEADER, *ROWS]
    ]
    jobs = read("\n".join(lines))
    assert jobs.attrs["delimiter"] == delimiter
    assert jobs.attrs["format"] == ("parsable" if trailing else "parsable2")
    assert jobs["JobName"].tolist() == ["train"]


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_files_are_detected_from_content(tmp_path, compress):
    path = tmp_path / "export.txt"  # the name says nothing
    path.write_bytes(compress(("\n".join([HEADER, *ROWS]) + "\n").encode()))  # (as sacct ends it)
    assert read_sacct(path)["JobID"].tolist() == ["10"]


def test_headerless_export_needs_fields_and_comments_are_skipped():
    text = "# exported by hand\n\n" + "\n".join(ROWS) + "\n"
    with pytest.raises(SacctParseError, match="does not look like a sacct export"):
        read(text)
    jobs = read(text, fields=HEADER.split("|"))
    assert jobs.attrs["steps"].lines.tolist() == [3]
    assert read(text, fields=HEADER.replace("|", ","))["NGPUS"].tolist() == [4]


def test_columns_in_any_order_and_case_and_unknown_columns_kept():
    text = "state|jobid|Whatever\nRUNNING|5|some text\n"
    jobs = read(text)
    assert jobs["State"].tolist() == ["RUNNING"]
    assert jobs["Whatever"].tolist() == ["some text"]


def test_steps_arrays_het_jobs():
    text = "JobID|State\n123_4|COMPLETED\n123_4.batch|COMPLETED\n123_[5-9%2]|PENDING\n77+0|COMPLETED\n77+1|COMPLETED\n77+0.0|COMPLETED\n9|RUNNING\n9.interactive|RUNNING\n9.extern|RUNNING\n"
    jobs = read(text).set_index("JobID")
    assert jobs.loc["123_4", "ArrayJobID"] == "123" and jobs.loc["123_4", "ArrayTaskID"] == 4
    assert jobs.loc["123_[5-9%2]", "ArrayTasks"] == 5
    assert jobs.loc["123_[5-9%2]", "ArrayTaskRange"] == "5-9%2"
    assert jobs.loc["77+1", "HetJobID"] == "77" and jobs.loc["77+1", "HetJobOffset"] == 1
    s = steps(read(text))
    assert s["JobID"].tolist() == ["123_4.batch", "77+0.0", "9.interactive", "9.extern"]
    assert s["AllocJobID"].tolist() == ["123_4", "77+0", "9", "9"]


def test_requeued_runs_are_separate_rows_keyed_by_submit():
    text = (
        "JobID|JobIDRaw|State|Submit|Elapsed|NCPUS\n"
        "5|5|REQUEUED|2024-01-01T00:00:00|00:30:00|4\n"
        "5|5|NODE_FAIL|2024-01-01T01:00:00|00:10:00|4\n"
        "5|5|COMPLETED|2024-01-01T02:00:00|01:00:00|4\n"
    )
    jobs = read(text)
    assert len(jobs) == 3
    assert not jobs.duplicated(["JobIDRaw", "Submit"]).any()


def test_timestamps_unknown_none_blank_and_epoch():
    text = "JobID|Submit|Start|End\n1|2024-01-01T00:00:00|Unknown|\n2|2024-01-01 00:00:00|None|1704067200\n"
    jobs = read(text, tz="UTC")
    assert jobs["Start"].isna().all()
    assert jobs.loc[1, "Submit"] == pd.Timestamp("2024-01-01")
    assert jobs.loc[1, "End"] == pd.Timestamp("2024-01-01")
    assert jobs.attrs["tz"] == "UTC"


def test_durations_prefer_raw_columns_and_limits():
    text = "JobID|Elapsed|ElapsedRaw|Timelimit|TimelimitRaw\n1|00:01:29|90|UNLIMITED|UNLIMITED\n2|01:00|60|Partition_Limit|30\n"
    jobs = read(text)
    assert jobs["Elapsed"].tolist() == [pd.Timedelta(seconds=90), pd.Timedelta(seconds=60)]
    assert pd.isna(jobs.loc[0, "Timelimit"])
    assert jobs.loc[1, "Timelimit"] == pd.Timedelta(minutes=30)


def test_pipe_inside_job_name_is_repaired():
    text = "JobID|JobName|State|Elapsed\n1|some . | grep hot|COMPLETED|00:01:00\n2|ok|FAILED|00:00:01\n"
    jobs = read(text)
    assert jobs["JobName"].tolist() == ["some . | grep hot", "ok"]
    assert jobs.attrs["repaired_rows"] == 1


def test_pipe_that_cannot_be_placed_is_reported():
    text = "JobID|State|Elapsed\n1|COMPLETED|00:01:00|extra\n2|FAILED|00:00:01\n"
    with pytest.raises(SacctParseError, match="line 2"):
        read(text)
    with pytest.warns(UserWarning, match="line"):
        jobs = read(text, errors="warn")
    assert jobs["JobID"].tolist() == ["2"] and jobs.attrs["bad_rows"] == 1


def test_newline_inside_a_value_with_trailing_delimiter():
    text = (
        "JobID^|^AdminComment^|^State^|^\n1^|^line one\nline two^|^COMPLETED^|^\n2^|^^|^FAILED^|^\n"
    )
    jobs = read(text)
    assert (
        jobs["AdminComment"].tolist() == ["line one\nline two", None]
        or jobs["AdminComment"].iloc[0] == "line one\nline two"
    )
    assert jobs["State"].tolist() == ["COMPLETED", "FAILED"]


def test_bad_value_error_names_file_line_column_value_and_fix():
    text = "JobID|Elapsed\n1|00:01:00\n2|ten minutes\n"
    with pytest.raises(SacctParseError) as info:
        read(text)
    err = info.value
    assert (err.line, err.column, err.value) == (3, "Elapsed", "ten minutes")
    assert "<buffer>" in str(err) and "errors='coerce'" in str(err)
    coerced = read(text, errors="coerce")
    assert len(coerced) == 2 and pd.isna(coerced.loc[1, "Elapsed"])
    assert coerced.attrs["bad_lines"] == [3]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warned = read(text, errors="warn")
    assert len(caught) == 1 and "line(s) 3" in str(caught[0].message)
    assert warned["JobID"].tolist() == ["1"]


def test_not_an_export_at_all():
    with pytest.raises(SacctParseError, match="does not look like a sacct export"):
        read("<html><body>Hello</body></html>\n")
    with pytest.raises(SacctParseError, match="no rows"):
        read("# nothing\n\n")
    with pytest.raises(SacctParseError, match="no such file"):
        read_sacct("/nonexistent/export.txt")


def test_wrong_field_list_is_one_clear_error():
    with pytest.raises(SacctParseError, match="field list"):
        read("1|a|b|c\n2|a|b|c\n", fields=["JobID", "State"])


def test_states_keep_first_word_and_expand_abbreviations():
    text = "JobID|State\n1|CANCELLED by 1234\n2|CANCELLED+\n3|TO\n4|NEW_STATE\n5|OOM\n"
    jobs = read(text)
    assert jobs["State"].tolist() == [
        "CANCELLED",
        "CANCELLED",
        "TIMEOUT",
        "NEW_STATE",
        "OUT_OF_MEMORY",
    ]
    assert jobs.attrs["unknown_states"] == {"NEW_STATE": 1}


def test_gpus_from_reqtres_when_not_allocated_and_zero_without_gpu():
    text = "JobID|State|AllocTRES|ReqTRES\n1|PENDING||cpu=4,gres/gpu=2\n2|COMPLETED|cpu=4,mem=1G|cpu=4\n3|COMPLETED||\n"
    assert read(text)["NGPUS"].tolist() == [2, 0, pd.NA]


def test_input_frame_operations_keep_steps_cheaply():
    jobs = read("\n".join([HEADER, *ROWS]))
    subset = jobs[jobs["User"] == "nobody"]
    assert len(steps(subset)) == 0
    both = pd.concat([jobs, jobs])  # attrs compare by identity: no "ambiguous truth value"
    assert len(both) == 2


def test_a_directory_or_a_binary_file_is_not_an_export(tmp_path):
    """A folder is named as one (not "no such file"); a binary file is "not text" with a short
    escaped excerpt (not 64 raw bytes); UTF-16 says how to convert it."""
    with pytest.raises(SacctParseError, match="is a directory, not a sacct export") as info:
        read_sacct(tmp_path)
    assert info.value.file == str(tmp_path)
    elf = tmp_path / "a.out"
    elf.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4)
    with pytest.raises(SacctParseError) as info:
        read_sacct(elf)
    message = str(info.value)
    assert "is not text (it starts b'\\x7fELF\\x02\\x01\\x01\\x00\\x01\\x02" in message
    assert "a binary file, not a sacct export" in message and len(message) < 300
    wide = tmp_path / "export-utf16.psv"
    wide.write_bytes("JobID|State\n1|COMPLETED\n".encode("utf-16"))
    with pytest.raises(SacctParseError, match="UTF-16 text.*iconv -f UTF-16 -t UTF-8"):
        read_sacct(wide)


def test_a_few_latin1_bytes_are_still_text(tmp_path):
    """An export with a non-UTF-8 job name (XDMoD converts to ISO-8859-1) is still read: that
    line as Latin-1, with a warning."""
    path = tmp_path / "latin1.psv"
    path.write_bytes("JobID|JobName|State\n1|a\xe0b|COMPLETED\n".encode("latin-1"))
    with pytest.warns(SacctParseWarning, match="line 2 holds bytes that are not UTF-8"):
        jobs = read_sacct(path)
    assert jobs["State"].tolist() == ["COMPLETED"] and jobs["JobName"].tolist() == ["aàb"]
