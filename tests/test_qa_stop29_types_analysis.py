"""QA stop 29: arguments of the wrong kind to the analyzers, the report, the sacct reader and
writer, the anonymizer and a simulation's views each give a clear slurmlab error naming the
argument, the value and the fix (never a raw AttributeError or a silently wrong result); and
two docs findings: ``summary`` of an export without AllocTRES/NCPUS whose jobs all pend says
0 hours (nothing ran: known, as the docs now say), and the command line's warnings use its
own flags."""

import datetime
import io
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
import slurmlab.analysis as A
from slurmlab import SlurmlabError
from slurmlab.analysis._common import demo_jobs
from slurmlab.cli import main

PENDING_EXPORT = Path("/work/shared/datasets/public/sacct/tdhock-slurm_sacct-PENDING.txt")
EPOCH_TEXT = (
    "JobID|State|Submit|Start|End|Elapsed\n1|COMPLETED|1700000000|1700000100|1700000200|00:01:40\n"
)


@pytest.fixture(scope="module")
def result():
    """Two 64-CPU jobs of 1 s on the tiny cluster: job 2 waits 1 s for job 1."""
    spec = slurmlab.JobSpec.from_args("-n 64 -t 5")
    workload = slurmlab.Workload(
        [
            slurmlab.WorkloadJob(spec, runtime=1),
            slurmlab.WorkloadJob(spec, runtime=1),
        ]
    )
    return slurmlab.simulate("tiny", workload)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# ---------------------------------------------- 1. a SimulationResult, a Lab, a path, None

ANALYZERS = {
    "biggest_runs": lambda t: A.biggest_runs(t),
    "bounded_slowdown": lambda t: A.bounded_slowdown(t),
    "cpu_efficiency": lambda t: A.cpu_efficiency(t),
    "failure_cost": lambda t: A.failure_cost(t),
    "gpu_hours": lambda t: A.gpu_hours(t),
    "memory_efficiency": lambda t: A.memory_efficiency(t),
    "pending_over_time": lambda t: A.pending_over_time(t),
    "requested_memory_mb": lambda t: A.requested_memory_mb(t),
    "requeues": lambda t: A.requeues(t),
    "share_vs_target": lambda t: A.share_vs_target(t, {"llm": 1}),
    "summary": lambda t: A.summary(t),
    "timelimit_accuracy": lambda t: A.timelimit_accuracy(t),
    "top_consumers": lambda t: A.top_consumers(t),
    "usage": lambda t: A.usage(t),
    "utilization": lambda t: A.utilization(t),
    "wait_stats": lambda t: A.wait_stats(t),
    "wait_times": lambda t: A.wait_times(t),
    "write_report": lambda t: slurmlab.write_report(t, "never-written.html"),
    "write_sacct": lambda t: slurmlab.write_sacct(t),
    "sacct_steps": lambda t: slurmlab.sacct_steps(t),
}


def test_every_analyzer_of_slurmlab_analysis_is_covered():
    assert set(A.__all__) - {"Summary", "capacity_of"} <= set(ANALYZERS)


@pytest.mark.parametrize("name", sorted(ANALYZERS))
def test_a_simulation_result_is_refused_naming_result_jobs(name, result):
    """wait_stats(r) for wait_stats(r.jobs): the function, the kind given and the fix."""
    with pytest.raises(
        SlurmlabError,
        match=rf"^{name}: the job table is a SimulationResult, not a DataFrame; pass "
        r"result\.jobs \(each job's last run, as sacct\) or result\.jobs_all_runs",
    ):
        ANALYZERS[name](result)


@pytest.mark.parametrize("name", ["summary", "usage", "write_sacct", "sacct_steps"])
def test_a_lab_is_refused_naming_lab_sacct(name):
    with pytest.raises(
        SlurmlabError,
        match=rf"^{name}: the job table is a Lab, not a DataFrame; pass lab\.sacct\(\)",
    ):
        ANALYZERS[name](slurmlab.Lab("tiny"))


@pytest.mark.parametrize("name", ["wait_stats", "utilization", "write_report", "requeues"])
def test_a_path_is_refused_naming_read_sacct(name):
    with pytest.raises(
        SlurmlabError,
        match=rf"^{name}: the job table is the str 'jobs\.psv', not a DataFrame; read the "
        r"export first: jobs = read_sacct\('jobs\.psv'\)",
    ):
        ANALYZERS[name]("jobs.psv")


@pytest.mark.parametrize("name", ["summary", "bounded_slowdown", "write_sacct"])
def test_none_is_refused(name):
    with pytest.raises(SlurmlabError, match=rf"^{name}: the job table is None, not a DataFrame"):
        ANALYZERS[name](None)


def test_summary_of_a_frame_without_columns_names_them():
    with pytest.raises(
        SlurmlabError, match=r"^summary: the job table has no column\(s\) JobID, State"
    ):
        A.summary(pd.DataFrame())


def test_requested_memory_of_a_frame_without_columns_names_them():
    with pytest.raises(
        SlurmlabError,
        match=r"^requested_memory_mb: the job table has no column\(s\) ReqMem, NCPUS, NNodes",
    ):
        A.requested_memory_mb(pd.DataFrame())


def test_capacity_of_takes_a_preset_name_as_simulate_does():
    by_name = A.capacity_of("tiny")
    pd.testing.assert_frame_equal(by_name, A.capacity_of(slurmlab.Cluster.preset("tiny")))


def test_capacity_of_a_result_or_a_table_names_the_fix(result):
    with pytest.raises(
        SlurmlabError,
        match=r"^capacity_of: the cluster is a SimulationResult, not a Cluster; pass its "
        r"cluster: result\.cluster",
    ):
        A.capacity_of(result)
    with pytest.raises(
        SlurmlabError,
        match=r"^capacity_of: the cluster is a DataFrame, not a Cluster; give a Cluster",
    ):
        A.capacity_of(result.jobs)


# --------------------------------------------------------------- 5. write_sacct(fields=)


def test_write_sacct_fields_as_one_string_is_split_at_commas(result):
    text = slurmlab.write_sacct(result.jobs, fields="JobID,State")
    assert text == "JobID|State\n1|COMPLETED\n2|COMPLETED\n"


def test_write_sacct_fields_in_any_case_are_the_tables_columns(result):
    text = slurmlab.write_sacct(result.jobs, fields=["jobid", " state "])
    assert text == "JobID|State\n1|COMPLETED\n2|COMPLETED\n"


def test_write_sacct_refuses_a_misspelt_field_with_close_names(result):
    with pytest.raises(
        SlurmlabError,
        match=r"^write_sacct: fields= names 'Stat', which is not a column of this job table, "
        r"so its values would be blank \('Stat': did you mean State",
    ):
        slurmlab.write_sacct(result.jobs, fields=["JobID", "Stat"])


def test_write_sacct_refuses_a_field_the_table_lacks(result):
    """A simulation measures no MaxRSS: a blank column would look like a real export's."""
    with pytest.raises(
        SlurmlabError, match=r"^write_sacct: fields= names 'MaxRSS', which is not a column"
    ):
        slurmlab.write_sacct(result.jobs, fields="JobID,MaxRSS")


def test_write_sacct_fields_of_the_export_write_as_the_default_does():
    jobs = _quiet(slurmlab.read_sacct, io.StringIO("JobID|State|AllocCPUS\n1|COMPLETED|4\n"))
    assert slurmlab.write_sacct(jobs, fields=jobs.attrs["fields"]) == slurmlab.write_sacct(jobs)
    assert slurmlab.write_sacct(jobs, fields="jobid,alloccpus") == "JobID|AllocCPUS\n1|4\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"header": "no"}, r"^write_sacct\(header='no'\): header is True or False$"),
        ({"include_steps": 1}, r"^write_sacct\(include_steps=1\): include_steps is True or False$"),
        (
            {"delimiter": ""},
            r"^write_sacct\(delimiter=''\): the delimiter is one or more characters",
        ),
    ],
)
def test_write_sacct_switches_and_delimiter_are_checked(result, kwargs, message):
    with pytest.raises(SlurmlabError, match=message):
        slurmlab.write_sacct(result.jobs, **kwargs)


def test_write_sacct_header_false_still_works(result):
    assert slurmlab.write_sacct(result.jobs, fields="JobID", header=False) == "1\n2\n"


# ---------------------------------------------------------- 6. bounded_slowdown(tau=)


def test_bounded_slowdown_tau_as_a_number_is_seconds(result):
    """Job 2 waits 1 s and runs 1 s: with tau 10 s both slowdowns are bounded to 1; a tau
    of 0.5 s leaves its (1 + 1) / 1 = 2 (tau=10 was 10 ns before)."""
    assert A.bounded_slowdown(result.jobs, tau=10).BoundedSlowdown.tolist() == [1.0, 1.0]
    assert A.bounded_slowdown(result.jobs, tau="10s").BoundedSlowdown.tolist() == [1.0, 1.0]
    assert A.bounded_slowdown(result.jobs, tau=0.5).BoundedSlowdown.tolist() == [1.0, 2.0]
    assert A.bounded_slowdown(result.jobs, tau=pd.Timedelta("500ms")).BoundedSlowdown.tolist() == [
        1.0,
        2.0,
    ]


def test_bounded_slowdown_tau_in_pandas_words_is_still_read(result):
    assert A.bounded_slowdown(result.jobs, tau="500ms").BoundedSlowdown.tolist() == [1.0, 2.0]
    assert A.bounded_slowdown(result.jobs, tau="10 seconds").BoundedSlowdown.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("tau", [None, "-10s", "ten", -5])
def test_bounded_slowdown_refuses_a_tau_that_is_no_duration(result, tau):
    with pytest.raises(SlurmlabError, match=rf"^bounded_slowdown: invalid tau {tau!r}"):
        A.bounded_slowdown(result.jobs, tau=tau)


# ------------------------------------------------ 13. by=, n=, resource=, shares=


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda j: A.usage(j, by=None), r"^usage\(by=None\): give a column name \(by='Account'\)"),
        (lambda j: A.wait_stats(j, by=None), r"^wait_stats\(by=None\): give a column name"),
        (lambda j: A.failure_cost(j, by=None), r"^failure_cost\(by=None\): give a column name"),
        (
            lambda j: A.utilization(j, by=["Partition"]),
            r"^utilization\(by=\['Partition'\]\): give a column name \(by='Partition'\) or None "
            r"\(the whole cluster\); utilization groups by one column",
        ),
        (
            lambda j: A.pending_over_time(j, by=["Partition"]),
            r"^pending_over_time\(by=\['Partition'\]\): .*pending_over_time groups by one column",
        ),
        (
            lambda j: A.share_vs_target(j, {"vision": 1}, by=["Account"]),
            r"^share_vs_target\(by=\['Account'\]\): give a column name \(by='Account'\)",
        ),
    ],
)
def test_a_by_of_the_wrong_kind_is_a_clear_error(call, message):
    with pytest.raises(SlurmlabError, match=message):
        call(demo_jobs())


def test_failure_cost_groups_by_a_list_as_usage_does():
    out = A.failure_cost(demo_jobs(), by=["State", "User"])
    assert out[["State", "User", "runs"]].values.tolist() == [
        ["TIMEOUT", "bob", 1],
        ["FAILED", "ann", 1],
    ]


def test_top_consumers_and_biggest_runs_take_n_as_text_digits():
    assert A.top_consumers(demo_jobs(), n="1")["User"].tolist() == ["ann"]
    assert A.biggest_runs(demo_jobs(), n="1")["JobID"].tolist() == ["100"]


@pytest.mark.parametrize("n", [2.5, -1, "five"])
def test_a_count_n_that_is_not_one_is_refused(n):
    with pytest.raises(SlurmlabError, match=rf"^top_consumers: n={n!r} is not a count"):
        A.top_consumers(demo_jobs(), n=n)
    with pytest.raises(SlurmlabError, match=rf"^biggest_runs: n={n!r} is not a count"):
        A.biggest_runs(demo_jobs(), n=n)


@pytest.mark.parametrize("call", [A.top_consumers, A.biggest_runs])
def test_an_unknown_resource_is_a_slurmlab_error_with_a_guess(call):
    with pytest.raises(
        SlurmlabError,
        match=rf"^{call.__name__}: resource='gpus': use cpu_hours, gpu_hours or node_hours "
        r"\(did you mean 'gpu_hours'\?\)$",
    ):
        call(demo_jobs(), resource="gpus")


def test_share_vs_target_takes_a_series_as_a_dict():
    shares = pd.Series({"vision": 1, "nlp": 1})
    got = A.share_vs_target(demo_jobs(), shares)
    want = A.share_vs_target(demo_jobs(), {"vision": 1, "nlp": 1})
    pd.testing.assert_frame_equal(got, want)
    assert got["ratio"].tolist() == [1.6, 0.4]


@pytest.mark.parametrize(
    ("shares", "message"),
    [
        ({}, r"^share_vs_target: shares=\{\} has no share above 0"),
        (["vision"], r"^share_vs_target: shares is a list; give \{group: share\}"),
        ({"vision": "1"}, r"^share_vs_target: shares\['vision'\] is '1'; a share is a number"),
        ({"vision": -1, "nlp": 2}, r"^share_vs_target: shares\['vision'\] is -1"),
        ({"vision": float("nan"), "nlp": 2}, r"^share_vs_target: shares\['vision'\] is nan"),
    ],
)
def test_shares_that_are_not_numbers_of_at_least_0_are_refused(shares, message):
    with pytest.raises(SlurmlabError, match=message):
        A.share_vs_target(demo_jobs(), shares)


def test_share_vs_target_unknown_resource_is_a_slurmlab_error():
    with pytest.raises(SlurmlabError, match=r"^share_vs_target: resource='gpus': use cpu_hours"):
        A.share_vs_target(demo_jobs(), {"vision": 1}, resource="gpus")


def test_by_size_in_usage_says_what_size_is():
    """Size is not a sacct field: 'export it with sacct -o Size' would not help."""
    with pytest.raises(
        SlurmlabError,
        match=r"^usage: the job table has no column\(s\) Size, which is not a sacct field "
        r"\(Size: the CPU-count classes wait_times makes; wait_stats\(by='Size'\) groups by it\)",
    ):
        A.usage(demo_jobs(), by="Size")


def test_a_misspelt_by_column_gets_a_guess():
    with pytest.raises(
        SlurmlabError,
        match=r"^usage: the job table has no column\(s\) Acount, which is not a sacct field "
        r"\(Acount: did you mean 'Account'\?\)",
    ):
        A.usage(demo_jobs(), by="Acount")


# ----------------------------------------------------- 14. read_sacct inputs and tz


@pytest.mark.parametrize("tz", [1, 3600, 1.0, True])
def test_a_number_as_tz_is_refused(tz):
    """tz=1 was read as one second east of UTC."""
    with pytest.raises(
        SlurmlabError,
        match=rf"^tz={tz!r} is a number, not a time zone \(a number would be read as seconds "
        r"east of UTC, not hours\); give it as text: 'UTC', an offset such as '\+01:00'",
    ):
        slurmlab.read_sacct(io.StringIO(EPOCH_TEXT), tz=tz)


def test_tz_as_an_offset_text_or_a_tzinfo_is_read():
    jobs = slurmlab.read_sacct(io.StringIO(EPOCH_TEXT), tz="+01:00")
    assert jobs["Submit"][0] == pd.Timestamp("2023-11-14 23:13:20")
    jobs = slurmlab.read_sacct(io.StringIO(EPOCH_TEXT), tz=datetime.timezone.utc)
    assert jobs["Submit"][0] == pd.Timestamp("2023-11-14 22:13:20")


def test_read_sacct_of_a_job_table_or_a_result_names_what_to_do(result):
    with pytest.raises(
        SlurmlabError,
        match=r"^read_sacct: the export is a DataFrame, not a path or a file; it is a job "
        r"table already",
    ):
        slurmlab.read_sacct(result.jobs)
    with pytest.raises(
        SlurmlabError,
        match=r"^read_sacct: the export is a SimulationResult, not a path or a file; its job "
        r"table is result\.jobs",
    ):
        slurmlab.read_sacct(result)
    with pytest.raises(SlurmlabError, match=r"^read_sacct: the export is None, not a path"):
        slurmlab.read_sacct(None)


def test_read_sacct_of_a_list_with_none_names_none(tmp_path):
    path = tmp_path / "a.psv"
    path.write_text("JobID|State\n1|COMPLETED\n")
    with pytest.raises(SlurmlabError, match=r"^read_sacct: the export is None, not a path"):
        slurmlab.read_sacct([path, None])


def test_read_sacct_of_a_generator_reads_each_path(tmp_path):
    paths = []
    for i in (1, 2):
        paths.append(tmp_path / f"{i}.psv")
        paths[-1].write_text(f"JobID|State\n{i}|COMPLETED\n")
    jobs = slurmlab.read_sacct(p for p in paths)
    assert jobs["JobID"].tolist() == ["1", "2"]


def test_read_sacct_of_the_export_text_says_to_wrap_it():
    with pytest.raises(
        SlurmlabError,
        match=r"^read_sacct: the path given is text of 2 lines \(starting 'JobID\|State'\), not "
        r"a file name: to read an export held in a string, wrap it: io\.StringIO\(text\)",
    ):
        slurmlab.read_sacct("JobID|State\n1|COMPLETED\n")


def test_read_sacct_errors_and_delimiter_words_are_slurmlab_errors():
    with pytest.raises(
        SlurmlabError, match=r"^read_sacct: errors='ignore': use 'raise', 'warn' or 'coerce'$"
    ):
        slurmlab.read_sacct(io.StringIO(EPOCH_TEXT), errors="ignore")
    with pytest.raises(
        SlurmlabError,
        match=r"^read_sacct: delimiter='tab' names a delimiter; give the character itself",
    ):
        slurmlab.read_sacct(io.StringIO(EPOCH_TEXT), delimiter="tab")


# ---------------------------------------------- 17. write_report and anonymize_file


def test_write_report_with_the_arguments_swapped(result, tmp_path):
    out = str(tmp_path / "r.html")
    with pytest.raises(
        SlurmlabError,
        match=r"^write_report\('.*r\.html', <DataFrame>\): the job table comes first, then "
        r"the path: write_report\(jobs, '.*r\.html'\)",
    ):
        slurmlab.write_report(out, result.jobs)
    assert not Path(out).exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"title": 5}, r"^write_report\(title=5\): the title is text"),
        (
            {"capacity": "ai"},
            r"^write_report\(capacity='ai'\): a capacity is a Cluster, not its name or path: "
            r"give capacity=Cluster\.preset\('ai'\)",
        ),
        ({"capacity": 64}, r"^write_report\(capacity=64\): give a Cluster"),
    ],
)
def test_write_report_arguments_of_the_wrong_kind(result, tmp_path, kwargs, message):
    with pytest.raises(SlurmlabError, match=message):
        slurmlab.write_report(result.jobs, tmp_path / "r.html", **kwargs)


def test_write_report_of_an_empty_frame_names_the_columns(tmp_path):
    with pytest.raises(
        SlurmlabError, match=r"^write_report: the job table has no column\(s\) JobID, State"
    ):
        slurmlab.write_report(pd.DataFrame(), tmp_path / "r.html")


def test_write_report_path_that_is_not_a_path(result):
    with pytest.raises(SlurmlabError, match=r"^write_report: the path is a int, not a file name"):
        slurmlab.write_report(result.jobs, 5)


def test_anonymize_salt_as_a_whole_number_is_its_digits(tmp_path):
    src = tmp_path / "e.psv"
    src.write_text("JobID|User|State\n1|ann|COMPLETED\n")
    slurmlab.anonymize_file(src, tmp_path / "a.psv", salt=42)
    slurmlab.anonymize_file(src, tmp_path / "b.psv", salt="42")
    assert (tmp_path / "a.psv").read_text() == (tmp_path / "b.psv").read_text()
    assert "ann" not in (tmp_path / "a.psv").read_text()


def test_anonymize_salt_of_another_kind_is_refused(tmp_path):
    src = tmp_path / "e.psv"
    src.write_text("JobID|User|State\n1|ann|COMPLETED\n")
    with pytest.raises(SlurmlabError, match=r"^anonymize_file: salt=4\.2 is a float; give text"):
        slurmlab.anonymize_file(src, tmp_path / "a.psv", salt=4.2)


def test_anonymize_a_job_table_says_to_write_it_first(result, tmp_path):
    with pytest.raises(
        SlurmlabError,
        match=r"^anonymize_file: source is a DataFrame, not a file path; give the path of the "
        r"sacct export \(to anonymize a job table, write it first: write_sacct",
    ):
        slurmlab.anonymize_file(result.jobs, tmp_path / "a.psv")


# ------------------------------------------------ 19 and 21. a simulation's views


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start": "no"}, r"^squeue_text\(start='no'\): start is True or False$"),
        ({"array": 1}, r"^squeue_text\(array=1\): array is True or False$"),
        ({"long": None}, r"^squeue_text\(long=None\): long is True or False$"),
    ],
)
def test_squeue_text_switches_are_true_or_false(result, kwargs, message):
    with pytest.raises(SlurmlabError, match=message):
        result.squeue_text(at=0, **kwargs)


def test_seconds_of_a_misspelt_or_non_time_column(result):
    with pytest.raises(
        SlurmlabError,
        match=r"^seconds\('Stat'\): the job table has no column 'Stat' \(did you mean "
        r"'State'\?\); give a time column: Submit, Eligible, Start, End$",
    ):
        result.seconds("Stat")
    with pytest.raises(
        SlurmlabError,
        match=r"^seconds\('State'\): State is not a time column; give a time column: Submit, "
        r"Eligible, Start, End$",
    ):
        result.seconds("State")
    assert result.seconds("Start").tolist() == [0.0, 1.0]


# ----------------------------------------------------------- docs 7 and 8


def test_summary_of_a_pending_only_export_without_the_fields_is_zero_hours():
    """docs #7: JobID|ExitCode|State|MaxRSS|Elapsed, both jobs PENDING: nothing ran, so 0
    hours of each, known whatever the fields (the docs now say so; the 0.0 stays)."""
    s = _quiet(A.summary, _quiet(slurmlab.read_sacct, PENDING_EXPORT))
    assert (s.jobs, s.runs, s.gpu_hours, s.cpu_hours, s.unknown_hours) == (2, 0, 0.0, 0.0, None)


def test_summary_of_a_pending_only_export_with_the_fields_is_zero():
    text = "JobID|State|AllocTRES|NCPUS|Elapsed\n1|PENDING||0|00:00:00\n"
    s = A.summary(slurmlab.read_sacct(io.StringIO(text)))
    assert (s.runs, s.gpu_hours, s.cpu_hours, s.unknown_hours) == (0, 0.0, 0.0, None)


def test_cli_warning_of_an_unknown_state_uses_the_command_lines_words(tmp_path, capsys):
    """docs #8: '(fields=)' and "(attrs['unknown_states'])" are the Python API's words."""
    path = tmp_path / "inv.psv"
    path.write_text("JobID|State|Elapsed\n1|INVALID|00:01:00\n")
    assert main(["summary", str(path)]) == 0
    err = capsys.readouterr().err
    assert "State 'INVALID' (line(s) 2) is not a sacct job state" in err
    assert err.rstrip().endswith("give the field list the export was written with (--fields)")
    assert "attrs[" not in err
    assert "fields=" not in err
