"""QA stop 23: the sacct readers and analysers on duplicated, out-of-range, cut and
mistyped input (each test quotes the input and the exact outcome)."""

from __future__ import annotations

import io
import warnings

import pandas as pd
import pytest

from slurmlab import analysis as an
from slurmlab import viz
from slurmlab.errors import SlurmlabError
from slurmlab.records.sacct import (
    SacctParseError,
    SacctParseWarning,
    concat_sacct,
    parse_duration,
    parse_job_id,
    parse_timestamp,
    read_sacct,
    steps,
)


def read(text: str, **kwargs) -> pd.DataFrame:
    return read_sacct(io.StringIO(text), **kwargs)


def read_quietly(text: str, **kwargs) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read(text, **kwargs)


# ---------------------------------------------------------------- 1. duplicate runs (#1, #15)

HEADER = "JobID|JobIDRaw|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Partition|Account\n"
RUN = (
    "1|1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|"
    "cpu=4,gres/gpu=2|p|a\n"
)
STEP = (
    "1.batch|1.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|"
    "01:00:00|4|cpu=4|||\n"
)


def test_a_row_repeated_by_cat_is_read_once_with_a_warning_naming_the_lines():
    """cat day1 day2 > month repeats a run: it is kept once, the repeats are named."""
    text = HEADER + RUN + RUN + STEP + STEP
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read(text)
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        "<buffer>: left out 2 row(s) that repeat an earlier row exactly "
        "(line 3 repeats line 2, line 5 repeats line 4): overlapping or concatenated exports"
    )
    assert jobs["JobID"].tolist() == ["1"]
    assert steps(jobs)["JobID"].tolist() == ["1.batch"]
    assert jobs.attrs["duplicate_rows"] == 2
    assert jobs.attrs["duplicate_lines"] == [3, 5]
    s = an.summary(jobs)
    assert (s.runs, s.gpu_hours, s.cpu_hours) == (1, 2.0, 4.0)
    assert an.requeues(jobs).empty


def test_two_runs_of_a_requeued_job_are_not_duplicates():
    """sacct -D: the same JobID twice with another Submit is two runs, both kept, no warning."""
    text = (
        "JobID|State|Submit|Elapsed|NCPUS\n"
        "7|NODE_FAIL|2024-01-01T00:00:00|01:00:00|8\n"
        "7|COMPLETED|2024-01-01T02:00:00|03:00:00|8\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read(text)
    assert jobs["State"].tolist() == ["NODE_FAIL", "COMPLETED"]
    assert jobs.attrs["duplicate_rows"] == 0


D1 = (
    "JobID|JobIDRaw|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Partition|Account|MaxRSS\n"
    "1|1|COMPLETED|2024-01-01T22:00:00|2024-01-01T22:00:00|2024-01-02T02:00:00|04:00:00|4|"
    "cpu=4,gres/gpu=2|p|a|\n"
    "1.batch|1.batch|COMPLETED|2024-01-01T22:00:00|2024-01-01T22:00:00|2024-01-02T02:00:00|"
    "04:00:00|4|cpu=4|||2G\n"
    "2|2|COMPLETED|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|01:00:00|4|"
    "cpu=4,gres/gpu=2|p|a|\n"
)
D2 = (
    "JobID|JobIDRaw|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Partition|Account|MaxRSS\n"
    "1|1|COMPLETED|2024-01-01T22:00:00|2024-01-01T22:00:00|2024-01-02T02:00:00|04:00:00|4|"
    "cpu=4,gres/gpu=2|p|a|\n"
    "1.batch|1.batch|COMPLETED|2024-01-01T22:00:00|2024-01-01T22:00:00|2024-01-02T02:00:00|"
    "04:00:00|4|cpu=4|||2G\n"
    "3|3|COMPLETED|2024-01-02T10:00:00|2024-01-02T10:00:00|2024-01-02T11:00:00|01:00:00|4|"
    "cpu=4,gres/gpu=2|p|a|\n"
    "3.batch|3.batch|COMPLETED|2024-01-02T10:00:00|2024-01-02T10:00:00|2024-01-02T11:00:00|"
    "01:00:00|4|cpu=4|||6G\n"
)


def test_a_list_of_daily_exports_keeps_steps_and_counts_a_shared_run_once(tmp_path):
    """Job 1 spans midnight, so both days' exports list it: 12 GPU-hours, not 20."""
    (tmp_path / "d1.psv").write_text(D1)
    (tmp_path / "d2.psv").write_text(D2)
    paths = [tmp_path / "d1.psv", tmp_path / "d2.psv"]
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(paths)
    (message,) = [str(w.message) for w in caught]
    assert f"{paths[1]}:2 repeats {paths[0]}:2" in message
    assert jobs["JobID"].tolist() == ["1", "2", "3"]
    assert steps(jobs)["JobID"].tolist() == ["1.batch", "3.batch"]
    assert jobs.attrs["duplicate_rows"] == 1
    assert jobs.attrs["duplicate_lines"] == [f"{paths[1]}:2"]
    assert jobs.attrs["duplicate_steps"] == 1
    assert jobs.attrs["sources"] == [str(p) for p in paths]
    s = an.summary(jobs)
    assert (s.jobs, s.runs, s.steps, s.gpu_hours) == (3, 3, 2, 12.0)
    assert an.requeues(jobs).empty
    assert jobs.set_index("JobID").loc["3", "MaxRSS"] == 6144.0  # from its step


def test_pd_concat_loses_the_steps_and_says_so():
    """pandas drops attrs on concat: steps() warns instead of returning nothing silently."""
    joined = pd.concat([read(D1), read_quietly(D2)], ignore_index=True)
    with pytest.warns(UserWarning, match=r"no steps attached.*concat_sacct"):
        assert steps(joined).empty
    with pytest.warns(UserWarning, match="concat_sacct"):
        concatenated = concat_sacct([read(D1), read(D2)])
    assert len(steps(concatenated)) == 2


def test_concat_of_tables_read_with_different_time_zones_is_refused():
    one = read("JobID|State\n1|COMPLETED\n", tz="UTC")
    two = read("JobID|State\n2|COMPLETED\n", tz="Europe/Berlin")
    with pytest.raises(SlurmlabError, match="different tz"):
        concat_sacct([one, two])


# ------------------------------------------------------------ 2. out-of-range values (#2, #3)

OUT_OF_RANGE = [
    (
        "JobID|State|AllocTRES\n1|COMPLETED|cpu=4,gres/gpu=99999999999999999999\n",
        "AllocTRES",
        "GPU count of gres/gpu is out of range",
    ),
    ("JobID|State|ExitCode\n1|FAILED|99999999999999999999:0\n", "ExitCode", "out of range"),
    ("JobID|State|ExitCode\n1|FAILED|256:0\n", "ExitCode", "out of range"),
    ("JobID|State|Submit\n1|COMPLETED|2300-01-01T00:00:00\n", "Submit", "out of range"),
    ("JobID|State|Submit\n1|COMPLETED|1600-01-01T00:00:00\n", "Submit", "out of range"),
    ("JobID|State|ElapsedRaw\n1|COMPLETED|999999999999\n", "ElapsedRaw", "out of range"),
    ("JobID|State|TimelimitRaw\n1|COMPLETED|999999999999\n", "TimelimitRaw", "out of range"),
    ("JobID|State|ReqMem\n1|COMPLETED|99999999999999999999\n", "ReqMem", "out of range"),
    ("JobID|State|NCPUS\n1|COMPLETED|9223372036854775808\n", "NCPUS", "out of range"),
    ("JobID|State|Elapsed\n1|COMPLETED|999999-00:00:00\n", "Elapsed", "out of range"),
]


@pytest.mark.parametrize(("text", "column", "problem"), OUT_OF_RANGE)
def test_out_of_range_values_are_a_sacct_parse_error(text, column, problem):
    value = text.splitlines()[1].split("|")[2]
    with pytest.raises(SacctParseError) as info:
        read(text)
    error = info.value
    assert (error.file, error.line, error.column, error.value) == ("<buffer>", 2, column, value)
    assert problem in error.problem
    with pytest.warns(SacctParseWarning, match="left out 1 malformed row"):
        assert read(text, errors="warn").empty
    coerced = read(text, errors="coerce")
    assert coerced.attrs["bad_rows"] == 1 and coerced["JobID"].tolist() == ["1"]


def test_coerce_turns_an_overflowing_elapsed_raw_into_na_not_a_wrapped_duration():
    jobs = read("JobID|State|ElapsedRaw\n1|COMPLETED|999999999999\n", errors="coerce")
    assert pd.isna(jobs.loc[0, "Elapsed"])


def test_epoch_seconds_beyond_2262_are_out_of_range():
    with pytest.raises(SacctParseError, match="out of range") as info:
        read("JobID|State|Submit\n1|COMPLETED|99999999999\n", tz="UTC")
    assert (info.value.line, info.value.column) == (2, "Submit")
    with pytest.raises(SacctParseError, match="out of range"):
        parse_timestamp("99999999999")


# -------------------------------------------------------- 3. a last line without its line end


def test_a_file_whose_last_line_has_no_line_end_warns_that_it_may_be_truncated(tmp_path):
    path = tmp_path / "cut.psv"
    path.write_text(
        "JobID|State|NCPUS|Start|Elapsed\n"
        "1|COMPLETED|8|2024-01-01T00:00:00|10:00:00\n"
        "2|COMPLETED|8|2024-01-01T00:00:00|10:00"
    )
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(path)
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        f"{path}, line 3: the last line has no line end, so the file may be truncated"
    )
    assert "'2|COMPLETED|8|2024-01-01T00:00:00|10:00'" in message
    assert len(jobs) == 2  # read as written, and said so


def test_a_file_that_ends_with_a_line_end_does_not_warn(tmp_path):
    path = tmp_path / "whole.psv"
    path.write_text("JobID|State|Elapsed\n1|COMPLETED|10:00:00\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_sacct(path)["JobID"].tolist() == ["1"]


# --------------------------------------------------------------- 4. impossible calendar dates


def test_february_30_is_rejected_like_month_13():
    with pytest.raises(SacctParseError) as info:
        read("JobID|State|Submit\n1|COMPLETED|2024-02-30T10:00:00\n")
    assert (info.value.line, info.value.column, info.value.value) == (
        2,
        "Submit",
        "2024-02-30T10:00:00",
    )
    assert "is not a real date and time" in info.value.problem
    jobs = read("JobID|State|Submit\n1|COMPLETED|2024-02-29T10:00:00\n")  # a leap year
    assert jobs.loc[0, "Submit"] == pd.Timestamp("2024-02-29 10:00:00")
    coerced = read("JobID|State|Submit\n1|COMPLETED|2023-02-29 10:00:00\n", errors="coerce")
    assert pd.isna(coerced.loc[0, "Submit"]) and coerced.attrs["bad_rows"] == 1


# ------------------------------------------------------- 5. durations sacct never writes (#8)


@pytest.mark.parametrize("value", ["00:99", "99:99:99", "1-02:0", "1-2:3", "1-25:00:00", "5:3"])
def test_durations_sacct_never_writes_are_rejected(value):
    with pytest.raises(SacctParseError) as info:
        read(f"JobID|State|Elapsed\n1|COMPLETED|{value}\n")
    assert (info.value.line, info.value.column, info.value.value) == (2, "Elapsed", value)
    with pytest.raises(SacctParseError):
        parse_duration(value)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("1-02:03:04", 93784),
        ("02:03:04", 7384),
        ("31:09.458", 1869.458),
        ("00:00.001", 0.001),
        ("451-06:00:24", 451 * 86400 + 6 * 3600 + 24),
        ("03:04", 184),
    ],
)
def test_durations_sacct_writes_still_read(value, seconds):
    jobs = read(f"JobID|State|Elapsed|TotalCPU\n1|COMPLETED|{value}|{value}\n")
    assert jobs.loc[0, "Elapsed"].total_seconds() == pytest.approx(seconds)
    assert jobs.loc[0, "TotalCPU"].total_seconds() == pytest.approx(seconds)
    assert parse_duration(value).total_seconds() == pytest.approx(seconds)


# --------------------------------------------- 6. malformed array ranges and negatives (#9, #10)


@pytest.mark.parametrize(
    ("job_id", "why"),
    [
        (
            "1_[1-99999999999]",
            "task ids above 4,000,000: Slurm's largest MaxArraySize is 4,000,001",
        ),
        ("1_[5-1]", "the range 5-1 is reversed"),
        ("1_[]", "an empty part"),
        ("1_[%2]", "an empty part"),
        ("1_[1--5]", "the part '1--5' is not N, N-M or N-M:S"),
        ("1_[1,,3]", "an empty part"),
        ("1_[0-4000001]", "task ids above 4,000,000: Slurm's largest MaxArraySize is 4,000,001"),
    ],
)
def test_array_ranges_sacct_never_writes_are_bad_job_ids(job_id, why):
    text = f"JobID|State\n{job_id}|PENDING\n2|COMPLETED\n"
    with pytest.raises(SacctParseError) as info:
        read(text)
    assert (info.value.line, info.value.column, info.value.value) == (2, "JobID", job_id)
    assert info.value.problem == f"has an array range sacct never writes ({why})"
    coerced = read(text, errors="coerce")
    assert coerced["JobID"].tolist() == ["2"] and coerced.attrs["bad_lines"] == [2]
    with pytest.raises(SacctParseError, match="array range"):
        parse_job_id(job_id)


def test_valid_and_cut_array_ranges_still_count_their_tasks():
    jobs = read("JobID|State\n1_[1-5%2]|PENDING\n2_[1,4-9]|PENDING\n3_[1-3,7-1|PENDING\n")
    # 3_[1-3,7-1 was cut at SLURM_BITSTR_LEN: its cut last part is not counted
    assert jobs["ArrayTasks"].tolist() == [5, 7, 3]
    assert parse_job_id("123_[0-4000000]").array_tasks == 4_000_001


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ("JobID|State|NCPUS\n1|COMPLETED|-5\n", "NCPUS", "is negative"),
        ("JobID|State|ElapsedRaw\n1|COMPLETED|-5\n", "ElapsedRaw", "is negative"),
        (
            "JobID|State|AllocTRES\n1|COMPLETED|cpu=4,gres/gpu=-2\n",
            "AllocTRES",
            "GPU count of gres/gpu is not a whole number of at least 0",
        ),
    ],
)
def test_negative_counts_and_durations_are_bad_values(text, column, problem):
    with pytest.raises(SacctParseError) as info:
        read(text)
    assert (info.value.line, info.value.column) == (2, column)
    assert info.value.problem.startswith(problem)
    assert read(text, errors="coerce").attrs["bad_rows"] == 1


# ---------------------------------------------------------- 7. field names that are typos (#11)


def test_a_field_list_with_a_typo_warns_with_a_suggestion():
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read("1|COMPLETED|01:00:00\n", fields="JobID,Stat,Elapsed")
    (message,) = [str(w.message) for w in caught]
    assert message == (
        "<buffer>: the field list (fields= / --fields) names 'Stat', which is not a sacct field "
        "(did you mean State?); it is read as a text column, and slurmlab does not interpret "
        "it, so State is missing"
    )
    assert jobs["Stat"].tolist() == ["COMPLETED"]  # kept, as documented


def test_a_header_with_a_typo_warns_but_other_unknown_columns_are_kept_quietly():
    with pytest.warns(SacctParseWarning, match=r"'Elapsd'.*did you mean Elapsed\?"):
        read("JobID|State|Elapsd\n1|COMPLETED|01:00:00\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read("JobID|State|MyNotes\n1|COMPLETED|fine\n")
    assert jobs["MyNotes"].tolist() == ["fine"]


# ------------------------------------------------------- 8. unknown by= and bad freq (#16)


@pytest.mark.parametrize(
    "call",
    [
        lambda j: an.wait_stats(j, by="Nope"),
        lambda j: an.utilization(j, by="Nope"),
        lambda j: an.pending_over_time(j, by="Nope"),
        lambda j: an.failure_cost(j, by="Nope"),
        lambda j: an.usage(j, by="Nope"),
    ],
)
def test_an_unknown_by_column_is_a_clear_error(call):
    from slurmlab.analysis._common import demo_jobs

    with pytest.raises(SlurmlabError, match=r"has no column\(s\) Nope; export them with sacct -o"):
        call(demo_jobs())


def test_an_invalid_freq_or_period_is_a_clear_error():
    from slurmlab.analysis._common import demo_jobs

    jobs = demo_jobs()
    with pytest.raises(SlurmlabError, match=r"utilization: freq='bogus' is not a pandas"):
        an.utilization(jobs, freq="bogus")
    with pytest.raises(SlurmlabError, match=r"pending_over_time: freq='MS' is not a pandas"):
        an.pending_over_time(jobs, freq="MS")
    with pytest.raises(SlurmlabError, match=r"usage: period='bogus' is not a pandas period"):
        an.usage(jobs, period="bogus")


# ------------------------------------------------------------ 9. messages for common mistakes


def test_fixed_width_output_is_named_with_the_fix():
    text = "JobID    JobName  State\n-------- -------- ----------\n1        a        CANCELLED+\n"
    with pytest.raises(SacctParseError) as info:
        read(text)
    assert "is sacct's fixed-width output" in info.value.problem
    assert "re-export with `sacct -P" in info.value.hint
    with pytest.raises(SacctParseError, match="fixed-width output"):
        read(text, fields="JobID,JobName,State")


def test_a_header_that_does_not_split_on_the_given_delimiter_says_so():
    with pytest.raises(SacctParseError) as info:
        read("JobID|State\n1|COMPLETED\n", delimiter=",")
    assert info.value.problem == (
        "has a header that does not split on the delimiter ',' (delimiter=',' was given), "
        "but it does on '|'"
    )


# --------------------------------------------------------------------------- 10. figures (#20)


def test_wait_figure_orders_numeric_groups_as_numbers():
    waits = pd.DataFrame(
        {
            "Wait": pd.to_timedelta([1, 2, 3, 4], unit="h"),
            "NGPUS": pd.array([16, 2, 1, 8], dtype="Int64"),
        }
    )
    assert [t.name for t in viz.wait_figure(waits, by="NGPUS").data] == ["1", "2", "8", "16"]


def test_failure_figure_groups_its_two_axes_side_by_side():
    cost = pd.DataFrame({"State": ["FAILED"], "gpu_hours": [2.0], "cpu_hours": [8.0]})
    fig = viz.failure_figure(cost)
    assert [(t.offsetgroup, t.yaxis) for t in fig.data] == [("1", None), ("2", "y2")]


def test_efficiency_figure_says_values_are_clipped_at_200_percent():
    fig = viz.efficiency_figure(pd.DataFrame({"cpu_efficiency": [0.5, 3.0]}), "cpu_efficiency")
    assert fig.layout.xaxis.title.text == (
        "CPU efficiency (TotalCPU / (Elapsed x NCPUS)) (values above 200% counted at 200%)"
    )
    assert list(fig.data[0].x) == [0.5, 2.0]
    # (stop 42: plotly's bins are [start + k size, ...): 2.0 needs a bin of its own)
    bins = fig.data[0].xbins
    assert bins.start <= 2.0 < bins.end and (2.0 - bins.start) / bins.size < 41


# ----------------------------------------------------------- 11. unknown hours, steps only (#12)


def test_summary_says_hours_are_unknown_when_the_export_lacks_their_fields():
    jobs = read("JobID|State|Elapsed\n1|COMPLETED|01:00:00\n")
    s = an.summary(jobs)
    assert (s.gpu_hours, s.cpu_hours) == (None, None)
    assert s.unknown_hours == {
        "GPU-hours": "the export has no AllocTRES: add it to sacct -o",
        "CPU-hours": "the export has no NCPUS (or AllocCPUS): add it to sacct -o",
    }
    assert (
        "Allocated hours: GPU-hours unknown (the export has no AllocTRES: add it to sacct -o); "
        "CPU-hours unknown (the export has no NCPUS (or AllocCPUS): add it to sacct -o)."
    ) in s.words()
    cpu_only = an.summary(read("JobID|State|Elapsed|NCPUS\n1|COMPLETED|01:00:00|4\n"))
    assert (cpu_only.gpu_hours, cpu_only.cpu_hours) == (None, 4.0)
    assert cpu_only.words().splitlines()[2] == (
        "Allocated 4.0 CPU-hours; GPU-hours unknown (the export has no AllocTRES: add it to "
        "sacct -o)."
    )


def test_a_cpu_cluster_export_with_alloc_tres_has_zero_gpu_hours_not_unknown():
    s = an.summary(
        read("JobID|State|Elapsed|NCPUS|AllocTRES\n1|COMPLETED|01:00:00|4|cpu=4,node=1\n")
    )
    assert (s.gpu_hours, s.cpu_hours) == (0.0, 4.0)


def test_a_steps_only_export_warns_in_summary():
    jobs = read(
        "JobID|State|Elapsed|NCPUS|MaxRSS\n5.batch|COMPLETED|01:00:00|4|1G\n"
        "5.0|COMPLETED|01:00:00|4|1G\n"
    )
    with pytest.warns(UserWarning, match=r"2 step row\(s\) .* and no allocation row"):
        s = an.summary(jobs)
    assert (s.jobs, s.runs, s.steps) == (0, 0, 2)


def test_the_report_does_not_show_zero_hours_it_cannot_know(tmp_path):
    from slurmlab.report import render_report

    jobs = read(
        "JobID|User|Account|State|Submit|Start|End|Elapsed\n"
        "1|ann|a|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = render_report(jobs)
    assert "0.0 GPU-hours" not in page
    assert "Usage, top users, failure hours and the biggest runs are not shown" in page


# ---------------------------------------------------------------- 12. negative waits (#7)

DST = (
    "JobID|State|Submit|Start|End|Elapsed|NCPUS|Partition\n"
    "1|COMPLETED|2024-10-27T02:50:00|2024-10-27T02:10:00|2024-10-27T03:10:00|02:00:00|4|p\n"
    "2|COMPLETED|2024-10-27T00:00:00|2024-10-27T01:00:00|2024-10-27T02:00:00|01:00:00|4|p\n"
)


def test_a_negative_wait_is_unknown_in_every_analyser_with_a_warning():
    jobs = read(DST)
    with pytest.warns(UserWarning) as caught:
        s = an.summary(jobs)
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        "1 run(s) started before they were submitted (Start < Submit: JobID 1)"
    )
    assert "export with TZ=UTC" in message
    assert (s.mean_wait_s, s.median_wait_s) == (3600.0, 3600.0)
    with pytest.warns(UserWarning, match="started before they were submitted"):
        table = an.wait_times(jobs)
    assert pd.isna(table.loc[0, "Wait"]) and table.loc[1, "Wait"] == pd.Timedelta(hours=1)
    with pytest.warns(UserWarning, match="started before they were submitted"):
        stats = an.wait_stats(jobs)
    assert stats[["Partition", "runs", "mean_h", "median_h"]].to_dict("records") == [
        {"Partition": "p", "runs": 2, "mean_h": 1.0, "median_h": 1.0}
    ]


# -- bytes that are not UTF-8 (#6) ------------------------------------------------------------
LATIN1 = b"JobID|User|JobName|State\n1|alice|caf\xe9|COMPLETED\n2|bob|caf\xe8|COMPLETED\n"


def test_a_line_that_is_not_utf8_is_read_as_latin1_with_a_warning(tmp_path):
    """XDMoD writes job names in ISO-8859-1: such a line is read as Latin-1 (no byte lost,
    no replacement character), with a warning naming the lines and the bytes."""
    path = tmp_path / "l1.psv"
    path.write_bytes(LATIN1)
    with pytest.warns(SacctParseWarning) as caught:
        table = read_sacct(path)
    assert table["JobName"].tolist() == ["café", "cafè"]
    assert table["State"].tolist() == ["COMPLETED", "COMPLETED"]
    (message,) = [str(w.message) for w in caught if "UTF-8" in str(w.message)]
    assert message.startswith(f"{path}: lines 2, 3 hold bytes that are not UTF-8 (line 2: ")
    assert "read as Latin-1" in message and "iconv -f ENCODING -t UTF-8" in message


def test_the_anonymizer_keeps_two_names_that_differ_only_in_a_latin1_byte_apart(tmp_path):
    from slurmlab.anonymize import anonymize_file

    path, out, mapping = tmp_path / "l1.psv", tmp_path / "out.psv", tmp_path / "map.csv"
    path.write_bytes(LATIN1)
    with pytest.warns(SacctParseWarning, match="not UTF-8"):
        anonymize_file(path, out, mapping_path=mapping)
    names = [line.split("|")[2] for line in out.read_text().splitlines()[1:]]
    assert len(set(names)) == 2
    rows = mapping.read_text(encoding="utf-8").splitlines()
    assert {r.split(",")[1] for r in rows if r.startswith("job,")} == {"café", "cafè"}


# -- the last period of a utilization (#13) ----------------------------------------------------
def test_the_last_period_is_averaged_over_what_the_export_covers():
    """A run still RUNNING at the export counts to Start + Elapsed (01:30, the horizon): the
    01:00 period is averaged over its 30 covered minutes (2 GPUs), not diluted to 1.0."""
    text = (
        "JobID|State|Partition|Start|End|Elapsed|NCPUS|NNodes|AllocTRES\n"
        "1|COMPLETED|gpu|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|1|cpu=4,gres/gpu=4\n"
        "2|RUNNING|gpu|2024-01-01T00:30:00|Unknown|01:00:00|2|1|cpu=2,gres/gpu=2\n"
    )
    jobs = read_sacct(io.StringIO(text))
    u = an.utilization(jobs, capacity={"gpu": {"cpus": 8, "gpus": 8, "nodes": 2}}, freq="1h")
    gpu = u[u.resource == "gpus"].set_index("time")
    assert gpu["used"].tolist() == [5.0, 2.0]
    assert gpu["covered"].tolist() == [pd.Timedelta("1h"), pd.Timedelta("30min")]
    assert gpu["utilization"].tolist() == [5 / 8, 2 / 8]


# -- slurmlab report --capacity (#19) ----------------------------------------------------------
def test_report_takes_a_capacity_file_and_its_page_speaks_to_both_kinds_of_user(tmp_path, capsys):
    from slurmlab.cli import main

    export = tmp_path / "e.psv"
    export.write_text(
        "JobID|State|Partition|Start|End|Elapsed|NCPUS|NNodes|NodeList|AllocTRES\n"
        "1|COMPLETED|gpu|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|1|g1|"
        "cpu=4,gres/gpu=4\n"
        "2|COMPLETED|cpu|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|2|1|c1|cpu=2\n"
    )
    cap = tmp_path / "cap.yaml"
    cap.write_text("gpu: {cpus: 8, gpus: 8, nodes: 1}\ncpu: {cpus: 8, gpus: 0, nodes: 1}\n")
    out = tmp_path / "r.html"
    assert main(["report", str(export), "-o", str(out), "--capacity", str(cap)]) == 0
    assert "Capacity was inferred" not in out.read_text()
    capsys.readouterr()
    partial = tmp_path / "partial.yaml"
    partial.write_text("{gpu: {cpus: 8, gpus: 8, nodes: 1}}\n")  # no 'cpu' partition
    assert main(["report", str(export), "-o", str(out), "--capacity", str(partial)]) == 0
    err = capsys.readouterr().err
    assert "'cpu' (1 run) of the export is not in the capacity" in err
    assert "--cluster <its slurm.conf> (or a preset name), or --capacity FILE" in err
    page = out.read_text()
    assert "(capacity= in Python; --cluster or --capacity on the command line)" in page
    bad = tmp_path / "bad.yaml"
    bad.write_text("[1, 2]\n")
    assert main(["report", str(export), "-o", str(out), "--capacity", str(bad)]) == 1
    assert "expected a mapping of partitions" in capsys.readouterr().err
    both = ["report", str(export), "--capacity", str(cap), "--cluster", "tiny"]
    with pytest.raises(SystemExit):
        main(both)
