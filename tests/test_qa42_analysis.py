"""QA 42, analysis: wait_stats groups by any column of the job table; an export without
Submit is an error, not 0 rows; step rows without their job row are warned about with a real
job id; a grouping column the export lacks and shares naming groups it lacks are warned
about; pending counts are whole numbers and the summary's JSON waits are rounded."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import slurmlab
from slurmlab import analysis as an
from slurmlab.cli import main
from slurmlab.errors import SlurmlabError

#: Three runs: 1 (a100, waited 10 min), 2 (h100, 2 nodes, 30 min), 3 (no GPU, 60 min).
FULL = """\
JobID|JobName|User|Account|Partition|QOS|State|ExitCode|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|AllocTRES
1|a|u1|acc1|gpu|normal|COMPLETED|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|02:00:00|1|8|cpu=8,gres/gpu:a100=2,gres/gpu=2,node=1
2|b|u2|acc2|gpu|normal|COMPLETED|0:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:30:00|2024-01-01T01:30:00|01:00:00|02:00:00|2|16|cpu=16,gres/gpu:h100=4,gres/gpu=4,node=2
3|a|u1|acc1|cpu|normal|FAILED|1:0|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|2024-01-01T01:10:00|00:10:00|01:00:00|1|4|cpu=4,node=1
"""

#: The fields of the QA report: no Submit (nor Eligible).
NO_SUBMIT = """\
JobID|State|Start|End|Elapsed|AllocTRES|NCPUS|Partition
1|COMPLETED|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|cpu=8,gres/gpu=2|8|gpu
2|COMPLETED|2024-01-01T00:30:00|2024-01-01T01:30:00|01:00:00|cpu=4|4|cpu
"""

#: The QA repro: job 5's steps without job 5's allocation row, and job 6 whole.
ORPHANS = """\
JobID|State|Start|End|Elapsed|NCPUS|AllocTRES
5.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|cpu=4
5.0|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|cpu=4
6|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|cpu=4
"""


def export(tmp_path, text, name="e.psv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def read(tmp_path, text, name="e.psv"):
    return slurmlab.read_sacct(export(tmp_path, text, name))


def messages(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught]


# ------------------------------------------------------------- 1. wait_stats(by=any column)


@pytest.mark.parametrize(
    ("by", "groups", "runs", "mean_h"),
    [
        ("GPUType", ["(none)", "a100", "h100"], [1, 1, 1], [1.0, 1 / 6, 0.5]),
        ("NNodes", [1, 2], [2, 1], [7 / 12, 0.5]),
        ("JobName", ["a", "b"], [2, 1], [7 / 12, 0.5]),
        ("Timelimit", [pd.Timedelta("1h"), pd.Timedelta("2h")], [1, 2], [1.0, 1 / 3]),
        ("ExitCode", ["0:0", "1:0"], [2, 1], [1 / 3, 1.0]),
        ("User", ["u1", "u2"], [2, 1], [7 / 12, 0.5]),
        ("Size", ["2-8 CPUs", "9-32 CPUs"], [2, 1], [7 / 12, 0.5]),
    ],
)
def test_wait_stats_groups_by_any_column_of_the_job_table(tmp_path, by, groups, runs, mean_h):
    """The docstring's promise: ``by`` may be any column (it was a KeyError for every column
    wait_times does not keep)."""
    stats = an.wait_stats(read(tmp_path, FULL), by=by)
    assert stats[by].tolist() == groups
    assert stats["runs"].tolist() == runs
    assert stats["mean_h"].tolist() == pytest.approx(mean_h)


def test_wait_stats_groups_by_a_list_mixing_job_columns_and_size(tmp_path):
    stats = an.wait_stats(read(tmp_path, FULL), by=["Partition", "GPUType", "Size"])
    assert stats[["Partition", "GPUType", "Size"]].values.tolist() == [
        ["cpu", "(none)", "2-8 CPUs"],
        ["gpu", "a100", "2-8 CPUs"],
        ["gpu", "h100", "9-32 CPUs"],
    ]
    assert stats["max_h"].tolist() == pytest.approx([1.0, 1 / 6, 0.5])


def test_wait_stats_by_a_column_the_table_lacks_names_it_and_the_columns_it_has(tmp_path):
    jobs = read(tmp_path, FULL)
    with pytest.raises(SlurmlabError) as error:
        an.wait_stats(jobs, by="Bogus")
    assert str(error.value) == (
        "wait_stats(by=['Bogus']): the job table has no column(s) Bogus; export them with "
        "sacct -o Bogus (or pass a table made by read_sacct or simulate); group by one of the "
        f"table's columns: {', '.join(jobs.columns)}, Size"
    )
    with pytest.raises(SlurmlabError) as error:
        an.wait_stats(jobs, by="GPUtype")
    assert str(error.value).startswith(
        "wait_stats(by=['GPUtype']): the job table has no column(s) GPUtype, which is not a "
        "sacct field (GPUtype: did you mean 'GPUType'?); group by one of the table's columns: "
        "JobID, JobIDRaw, "
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda j: an.usage(j, by="GPUType")["GPUType"].tolist(),
        lambda j: an.failure_cost(j, by="GPUType")["GPUType"].tolist(),
        lambda j: sorted(set(an.pending_over_time(j, by="GPUType")["GPUType"])),
    ],
)
def test_the_other_analyzers_group_by_any_column_too(tmp_path, call):
    jobs = read(tmp_path, FULL)
    assert set(call(jobs)) <= {"(none)", "a100", "h100"} and call(jobs)


def test_usage_by_a_column_the_table_lacks_names_the_columns_it_has(tmp_path):
    jobs = read(tmp_path, FULL)
    with pytest.raises(SlurmlabError) as error:
        an.usage(jobs, by="Nope")
    assert str(error.value) == (
        "usage: the job table has no column(s) Nope; export them with sacct -o Nope (or pass "
        "a table made by read_sacct or simulate); group by one of the table's columns: "
        f"{', '.join(jobs.columns)}"
    )


# ----------------------------------------------------------- 2. an export without Submit


@pytest.mark.parametrize(
    ("call", "who"),
    [
        (an.wait_times, "wait_times"),
        (an.wait_stats, "wait_stats"),
        (lambda j: an.wait_stats(j, by="Size"), "wait_stats"),
        (an.bounded_slowdown, "bounded_slowdown"),
    ],
)
def test_waits_of_an_export_without_submit_are_an_error_not_zero_rows(tmp_path, call, who):
    with pytest.raises(SlurmlabError) as error:
        call(read(tmp_path, NO_SUBMIT))
    assert str(error.value) == (
        f"{who}: the job table has no Submit times, so every wait (Start - Submit) is "
        "unknown; export them with sacct -o ...,Submit,Start"
    )


def test_pending_over_time_of_an_export_without_submit_is_an_error(tmp_path):
    with pytest.raises(SlurmlabError) as error:
        an.pending_over_time(read(tmp_path, NO_SUBMIT))
    assert str(error.value) == (
        "pending_over_time: the job table has no Submit times (nor Eligible), so when each "
        "job began pending is unknown; export them with sacct -o ...,Submit,Eligible,Start"
    )


def test_pending_over_time_needs_submit_or_eligible_not_both(tmp_path):
    """A job pends from Eligible (else Submit): an export with Eligible only still counts."""
    text = NO_SUBMIT.replace("JobID|", "JobID|Eligible|").replace(
        "\n1|", "\n1|2024-01-01T00:00:00|"
    )
    text = text.replace("\n2|", "\n2|2024-01-01T00:00:00|")
    pending = an.pending_over_time(read(tmp_path, text), by=None)
    assert pending["pending"].tolist() == [2, 1, 0, 0]


def test_an_empty_table_still_gives_empty_tables(tmp_path):
    jobs = read(tmp_path, NO_SUBMIT).iloc[:0]
    assert len(an.wait_times(jobs)) == 0 and len(an.pending_over_time(jobs)) == 0


# ---------------------------------------------------- 3. steps whose job row is not there


def test_steps_without_their_job_row_are_warned_about_beside_other_jobs(tmp_path):
    jobs = read(tmp_path, ORPHANS)
    s, said = messages(lambda: an.summary(jobs))
    assert (s.jobs, s.runs, s.steps, s.cpu_hours) == (1, 1, 2, 4.0)
    assert said == [
        "summary: 2 step row(s) of 1 job(s) whose allocation row is not in the export (JobID "
        "5) are left out of jobs, runs and hours, which count allocation rows (the steps "
        "count only as steps); an export filtered on steps (sacct -j 5.batch) or a grep loses "
        "the job rows: export the jobs too (sacct -j 5, or without -j on steps)"
    ]


def test_the_summary_command_says_so_too(tmp_path, capsys):
    assert main(["summary", str(export(tmp_path, ORPHANS))]) == 0
    err = capsys.readouterr().err
    assert "summary: 2 step row(s) of 1 job(s) whose allocation row is not in the export" in err


def test_a_steps_only_export_names_its_own_job_id_not_5(tmp_path):
    text = "JobID|State|Elapsed|NCPUS\n77.batch|COMPLETED|01:00:00|4\n77.0|COMPLETED|01:00:00|4\n"
    s, said = messages(lambda: an.summary(read(tmp_path, text)))
    assert (s.jobs, s.runs, s.steps) == (0, 0, 2)
    assert said == [
        "summary: the table has 2 step row(s) (.batch, .0 ...) and no allocation row (sacct "
        "-j 77.batch, or a grep that lost the job rows): jobs, runs and hours count "
        "allocation rows, so they are 0; export the jobs too (sacct -j 77)"
    ]


def test_many_jobs_without_their_rows_are_counted_and_a_few_named(tmp_path):
    steps = "".join(f"{i}.batch|COMPLETED|01:00:00|4\n" for i in range(10, 17))
    text = "JobID|State|Elapsed|NCPUS\n" + steps + "9|COMPLETED|01:00:00|4\n"
    _, said = messages(lambda: an.summary(read(tmp_path, text)))
    assert said[0].startswith(
        "summary: 7 step row(s) of 7 job(s) whose allocation row is not in the export (JobID "
        "10, 11, 12, 13, 14 ...) are left out"
    )


def test_steps_of_jobs_filtered_out_of_the_table_are_not_warned_about(tmp_path):
    """Filtering the table filters its steps: those jobs are not missing from the export."""
    text = (
        "JobID|User|State|Elapsed|NCPUS\n5|ann|COMPLETED|01:00:00|4\n"
        "5.batch||COMPLETED|01:00:00|4\n6|bob|COMPLETED|01:00:00|4\n"
    )
    jobs = read(tmp_path, text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = an.summary(jobs[jobs["User"] == "bob"])
        assert (s.jobs, s.steps) == (1, 0)
        assert an.summary(jobs).steps == 1


# -------------------------------------------- 4. a grouping column or a share not exported


def test_usage_by_an_account_the_export_lacks_warns(tmp_path):
    jobs = read(tmp_path, NO_SUBMIT.replace("|Partition\n", "|Partition|NNodes\n").replace(
        "|gpu\n", "|gpu|1\n").replace("|cpu\n", "|cpu|1\n"))  # fmt: skip
    table, said = messages(lambda: an.usage(jobs, by="Account"))
    assert table["Account"].tolist() == ["(none)"]
    assert said == [
        "usage: no Account in the export (blank in every row), so all 2 row(s) are in one "
        "group '(none)'; add Account to sacct -o, or group by a column the export has "
        "(by='Partition')"
    ]
    _, said = messages(lambda: an.top_consumers(jobs, by="User"))
    assert said == [
        "top_consumers: no User in the export (blank in every row), so all 2 row(s) are in "
        "one group '(none)'; add User to sacct -o, or group by a column the export has "
        "(by='Partition')"
    ]


def test_usage_by_columns_the_export_has_does_not_warn(tmp_path):
    jobs = read(tmp_path, FULL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert an.usage(jobs, by="Account")["Account"].tolist() == ["acc1", "acc2"]
        an.share_vs_target(jobs, {"acc1": 1, "acc2": 1})


def test_share_vs_target_names_groups_the_export_does_not_have(tmp_path):
    jobs = read(tmp_path, FULL)
    table, said = messages(lambda: an.share_vs_target(jobs, {"user498": 0.5, "acc1": 1}))
    assert table["Account"].tolist() == ["user498", "acc1", "acc2"]
    assert table["gpu_hours"].tolist() == [0.0, 2.0, 4.0]
    assert said == [
        "share_vs_target: no job in the export has Account 'user498' (in shares), so its "
        "usage is 0; the export's Account values: 'acc1', 'acc2' (check the spelling, and "
        "that the export covers those groups and is not anonymized)"
    ]
    _, said = messages(lambda: an.share_vs_target(jobs, {"x": 1, "y": 1}, by="User"))
    assert said[0].startswith(
        "share_vs_target: no job in the export has User 'x', 'y' (in shares), so their usage "
        "is 0; the export's User values: 'u1', 'u2'"
    )


# ----------------------------------------------------------------------- 5. formatting


def test_pending_counts_are_whole_numbers(tmp_path):
    jobs = read(tmp_path, FULL)
    exact = an.pending_over_time(jobs, by=None)
    assert exact["pending"].dtype == np.int64
    assert exact["pending"].tolist() == [3, 2, 1, 0, 0]
    sampled = an.pending_over_time(jobs, freq="30min")
    assert sampled["pending"].dtype == np.int64
    assert sampled["pending"].tolist() == [2, 0, 0, 0, 1, 1, 0, 0]


def test_the_summary_json_rounds_waits_but_the_summary_keeps_them(tmp_path, capsys):
    """Waits 0, 10 and 110 min: np.percentile's p95 is 5999.999999999999 s."""
    rows = [(1, "00:00:00"), (2, "00:10:00"), (3, "01:50:00")]
    text = "JobID|State|Submit|Start|Elapsed|NCPUS\n" + "".join(
        f"{i}|COMPLETED|2024-01-01T00:00:00|2024-01-01T{start}|00:10:00|1\n" for i, start in rows
    )
    path = export(tmp_path, text)
    s = an.summary(slurmlab.read_sacct(path))
    assert s.p95_wait_s == np.percentile([0.0, 600.0, 6600.0], 95) != 6000.0
    assert s.to_dict()["p95_wait_s"] == 6000.0
    assert main(["summary", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"p95_wait_s": 6000.0' in out and "5999.99" not in out
    assert json.loads(out)["mean_wait_s"] == 2400.0
