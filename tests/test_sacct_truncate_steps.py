"""A step that spans several ``sacct -T`` (--truncate) exports is one step of its run.

With -T, as_mysql_jobacct_process.c (_cluster_get_jobs, ``JOBCOND_FLAG_NO_TRUNC`` unset)
cuts a step's start to the window's start (``step->start = job_cond->usage_start``) and its
end to the window's end, and gives it ``step->elapsed = end - start - step->suspended``
(the step record's whole suspended time); sacct's print.c prints a step's Submit, Eligible
and Start all as ``step->start``, and CPUTime as ``elapsed * step_cpu_tres_rec_count`` (the
CPUs it prints as NCPUS). A step's usage (TotalCPU, TRESUsageInTot ...) is read whole from
the step record in every window, never cut (written when the step ends:
as_mysql_step_complete); a job row's TotalCPU is the sum over the steps its window lists
that ended (sacct/options.c, get_data). The exports below are made by hand from these rules.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from slurmlab.records.sacct import SacctParseWarning, read_sacct, steps

HEADER = (
    "JobID|JobIDRaw|Cluster|User|State|Submit|Eligible|Start|End|Elapsed|ElapsedRaw|CPUTime|"
    "CPUTimeRAW|Suspended|NCPUS|TotalCPU|TRESUsageInTot"
)
MON, TUE, WED = "2024-03-04", "2024-03-05", "2024-03-06"


def _t(day: str, hour: int) -> pd.Timestamp:
    return pd.Timestamp(day) + pd.Timedelta(hours=hour)


def _span(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _row(job_id, raw, state, submit, start, end, *, step=False, total="00:00:00", tres="",
         cluster="alpha", suspended=0, ncpus=4, drop=()) -> str:  # fmt: skip
    """One row as sacct -T prints it: a step's Submit and Eligible are its (cut) Start;
    Elapsed = End - Start - Suspended (never below 0), CPUTime = Elapsed * NCPUS."""
    start_at, end_at = pd.Timestamp(start), pd.Timestamp(end)
    seconds = max(int((end_at - start_at).total_seconds()) - suspended, 0)
    submit = start_at if step else pd.Timestamp(submit)
    cells = [
        job_id, raw, cluster, "" if step else "u", state, submit.isoformat(), submit.isoformat(),
        start_at.isoformat(), end_at.isoformat(), _span(seconds), str(seconds),
        _span(seconds * ncpus), str(seconds * ncpus), _span(suspended), str(ncpus), total, tres,
    ]  # fmt: skip
    names = HEADER.split("|")
    return "|".join(cell for name, cell in zip(names, cells) if name not in drop)


def _export(rows, drop=()) -> str:
    header = "|".join(name for name in HEADER.split("|") if name not in drop)
    return "\n".join([header, *rows]) + "\n"


def _read(tmp_path, days: dict[str, list[str]], drop=()):
    """The exports read as a list, and the same exports joined with cat: both the same."""
    paths = []
    for name, rows in days.items():
        path = tmp_path / f"{name}.psv"
        path.write_text(_export(rows, drop))
        paths.append(path)
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(paths)
    assert any("look taken with sacct -T (--truncate)" in str(w.message) for w in caught)
    week = tmp_path / "week.psv"
    week.write_text("".join(p.read_text() for p in paths))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joined = read_sacct(week)
    # (a column the exports lack is the schema's, empty: not compared)
    columns = [c for c in jobs.columns if c in joined.columns and c not in drop]
    pd.testing.assert_frame_equal(jobs[columns], joined[columns], check_like=False)
    pd.testing.assert_frame_equal(steps(jobs), steps(joined)[steps(jobs).columns])
    return jobs, steps(jobs)


SHOWN = ["JobID", "State", "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw",
         "CPUTime", "CPUTimeRAW", "TotalCPU", "TRESUsageInTot"]  # fmt: skip


def _values(frame, columns=SHOWN) -> list[list]:
    return frame[[c for c in columns if c in frame]].astype(object).values.tolist()


def _two_days(drop=()) -> dict[str, list[str]]:
    """Job 1 runs from Mon 21:00 to Tue 01:00, its .batch step all along."""
    return {
        "mon": [
            _row("1", "1", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0), drop=drop),
            _row(
                "1.batch", "1.batch", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True, drop=drop
            ),  # fmt: skip
        ],
        "tue": [
            _row(
                "1",
                "1",
                "COMPLETED",
                _t(MON, 20),
                _t(TUE, 0),
                _t(TUE, 1),
                total="03:00:00",
                drop=drop,
            ),  # fmt: skip
            _row(
                "1.batch",
                "1.batch",
                "COMPLETED",
                0,
                _t(TUE, 0),
                _t(TUE, 1),
                step=True,
                total="03:00:00",
                tres="cpu=03:00:00,mem=2G",
                drop=drop,
            ),  # fmt: skip
        ],
    }


def test_a_step_spanning_two_windows_is_one_step_from_its_first_start_to_its_last_end(tmp_path):
    """1.batch in Monday's export (Start 21:00, End cut to 00:00) and Tuesday's (Start cut to
    00:00, End 01:00) is one step: Submit, Eligible and Start 21:00 (print.c: a step's three
    are step->start), End 01:00, Elapsed 4 h and CPUTime 4 h x 4 CPUs (print.c: elapsed *
    step_cpu_tres_rec_count), its usage Tuesday's (the step record's whole, not summed with
    Monday's RUNNING row, which has none yet). Before: two rows, keyed on their own Submit."""
    jobs, step_rows = _read(tmp_path, _two_days())
    whole = [_t(MON, 21), _t(MON, 21), _t(MON, 21), _t(TUE, 1), pd.Timedelta(hours=4), 14400]
    whole += [pd.Timedelta(hours=16), 57600, pd.Timedelta(hours=3)]
    assert _values(step_rows) == [["1.batch", "COMPLETED", *whole, "cpu=03:00:00,mem=2G"]]
    assert _values(jobs, SHOWN[:-1]) == [["1", "COMPLETED", _t(MON, 20), _t(MON, 20), *whole[2:]]]
    assert step_rows["JobState"].tolist() == ["COMPLETED"]


def test_a_step_spanning_three_windows_is_one_step(tmp_path):
    """Running Mon 22:00 to Wed 03:00, a step is cut in three exports (the middle one from
    00:00 to 24:00 on both sides); joined it is 29 hours, its usage Wednesday's."""
    days = {
        "mon": [
            _row("2", "2", "RUNNING", _t(MON, 21), _t(MON, 22), _t(TUE, 0), ncpus=2),
            _row("2.0", "2.0", "RUNNING", 0, _t(MON, 22), _t(TUE, 0), step=True, ncpus=2),
        ],
        "tue": [
            _row("2", "2", "RUNNING", _t(MON, 21), _t(TUE, 0), _t(WED, 0), ncpus=2),
            _row("2.0", "2.0", "RUNNING", 0, _t(TUE, 0), _t(WED, 0), step=True, ncpus=2),
        ],
        "wed": [
            _row(
                "2", "2", "FAILED", _t(MON, 21), _t(WED, 0), _t(WED, 3), ncpus=2, total="1-10:00:00"
            ),  # fmt: skip
            _row(
                "2.0",
                "2.0",
                "FAILED",
                0,
                _t(WED, 0),
                _t(WED, 3),
                step=True,
                ncpus=2,
                total="1-10:00:00",
                tres="cpu=1-10:00:00",
            ),  # fmt: skip
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    whole = [_t(MON, 22), _t(WED, 3), pd.Timedelta(hours=29), 29 * 3600]
    whole += [pd.Timedelta(hours=58), 58 * 3600, pd.Timedelta(hours=34)]
    assert _values(step_rows) == [
        ["2.0", "FAILED", _t(MON, 22), _t(MON, 22), *whole, "cpu=1-10:00:00"]
    ]
    assert _values(jobs, SHOWN[:-1]) == [["2", "FAILED", _t(MON, 21), _t(MON, 21), *whole]]


def test_steps_inside_one_window_stay_as_they_are_beside_one_spanning_two(tmp_path):
    """Job 3's .0 ran Mon 21:30-22:30 and its .1 Tue 00:30-00:45, each inside one window (the
    other export does not list it: its step query asks time_start <= -E and time_end >= -S);
    its .batch spans both. Three steps, each once, .0 and .1 as read; the job's TotalCPU is
    the sum over its three ended steps (options.c sums a job's ended steps), where each
    export's job row sums only the steps of its window."""
    days = {
        "mon": [
            _row("3", "3", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0), total="00:50:00"),
            _row("3.batch", "3.batch", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True),
            _row(
                "3.0",
                "3.0",
                "COMPLETED",
                0,
                "2024-03-04T21:30",
                "2024-03-04T22:30",
                step=True,
                total="00:50:00",
                tres="cpu=00:50:00",
            ),  # fmt: skip
        ],
        "tue": [
            _row("3", "3", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 1), total="00:25:00"),
            _row(
                "3.batch",
                "3.batch",
                "COMPLETED",
                0,
                _t(TUE, 0),
                _t(TUE, 1),
                step=True,
                total="00:15:00",
                tres="cpu=00:15:00",
            ),  # fmt: skip
            _row(
                "3.1",
                "3.1",
                "COMPLETED",
                0,
                "2024-03-05T00:30",
                "2024-03-05T00:45",
                step=True,
                total="00:10:00",
                tres="cpu=00:10:00",
            ),  # fmt: skip
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    assert step_rows["JobID"].tolist() == ["3.batch", "3.0", "3.1"]
    assert step_rows["Start"].tolist() == [
        _t(MON, 21), pd.Timestamp("2024-03-04T21:30"), pd.Timestamp("2024-03-05T00:30")
    ]  # fmt: skip
    assert step_rows["Elapsed"].tolist() == [
        pd.Timedelta(hours=4), pd.Timedelta(hours=1), pd.Timedelta(minutes=15)
    ]  # fmt: skip
    assert step_rows["TotalCPU"].tolist() == [
        pd.Timedelta(minutes=15), pd.Timedelta(minutes=50), pd.Timedelta(minutes=10)
    ]  # fmt: skip
    assert jobs["TotalCPU"].tolist() == [pd.Timedelta(minutes=75)]
    assert jobs["Elapsed"].tolist() == [pd.Timedelta(hours=4)]


def test_each_run_of_a_requeued_job_keeps_its_own_batch_step(tmp_path):
    """sacct -D -T: job 4's first run (submitted Mon 10:00) runs Mon 22:00 to Tue 02:00 and is
    requeued (a new submit time, Tue 02:00: batch_requeue_fini, job_mgr.c, "so we get
    different records in the database"); its second runs Tue 23:00 to Wed 01:00. Each run's
    .batch spans two windows; Tuesday's export lists both runs and both .batch steps. Each
    step joins with its own run's other segment (its run told by Start in that export, as
    read_sacct attaches steps), never with the other run's."""
    first, second = _t(MON, 10), _t(TUE, 2)
    days = {
        "mon": [
            _row("4", "4", "RUNNING", first, _t(MON, 22), _t(TUE, 0)),
            _row("4.batch", "4.batch", "RUNNING", 0, _t(MON, 22), _t(TUE, 0), step=True),
        ],
        "tue": [
            _row("4", "4", "REQUEUED", first, _t(TUE, 0), _t(TUE, 2), total="01:00:00"),
            _row(
                "4.batch",
                "4.batch",
                "CANCELLED",
                0,
                _t(TUE, 0),
                _t(TUE, 2),
                step=True,
                total="01:00:00",
                tres="cpu=01:00:00",
            ),  # fmt: skip
            _row("4", "4", "RUNNING", second, _t(TUE, 23), _t(WED, 0)),
            _row("4.batch", "4.batch", "RUNNING", 0, _t(TUE, 23), _t(WED, 0), step=True),
        ],
        "wed": [
            _row("4", "4", "COMPLETED", second, _t(WED, 0), _t(WED, 1), total="00:30:00"),
            _row(
                "4.batch",
                "4.batch",
                "COMPLETED",
                0,
                _t(WED, 0),
                _t(WED, 1),
                step=True,
                total="00:30:00",
                tres="cpu=00:30:00",
            ),  # fmt: skip
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    assert _values(jobs, ["State", "Submit", "Start", "End", "Elapsed", "TotalCPU"]) == [
        ["REQUEUED", first, _t(MON, 22), _t(TUE, 2), pd.Timedelta(hours=4), pd.Timedelta(hours=1)],
        ["COMPLETED", second, _t(TUE, 23), _t(WED, 1), pd.Timedelta(hours=2),
         pd.Timedelta(minutes=30)],
    ]  # fmt: skip
    assert _values(step_rows, ["JobID", "State", "Start", "End", "Elapsed", "TotalCPU"]) == [
        ["4.batch", "CANCELLED", _t(MON, 22), _t(TUE, 2), pd.Timedelta(hours=4),
         pd.Timedelta(hours=1)],
        ["4.batch", "COMPLETED", _t(TUE, 23), _t(WED, 1), pd.Timedelta(hours=2),
         pd.Timedelta(minutes=30)],
    ]  # fmt: skip


@pytest.mark.parametrize("cputime", [True, False])
def test_an_export_without_elapsed_joins_a_steps_start_and_end(tmp_path, cputime):
    """Without Elapsed and ElapsedRaw (-o without them) the step's segments still join on
    Start and End, its usage the last row's; with CPUTime and NCPUS the reader recovers each
    segment's Elapsed (CPUTime / NCPUS: print.c's elapsed * CPUs), and the joined step's is
    the whole span's, as is its CPUTime."""
    drop = (
        ("Elapsed", "ElapsedRaw") if cputime else ("Elapsed", "ElapsedRaw", "CPUTime", "CPUTimeRAW")
    )
    jobs, step_rows = _read(tmp_path, _two_days(drop), drop)
    assert _values(step_rows, ["JobID", "Submit", "Start", "End", "TotalCPU"]) == [
        ["1.batch", _t(MON, 21), _t(MON, 21), _t(TUE, 1), pd.Timedelta(hours=3)]
    ]
    assert _values(jobs, ["JobID", "Start", "End"]) == [["1", _t(MON, 21), _t(TUE, 1)]]
    if cputime:
        for frame in (jobs, step_rows):
            assert _values(frame, ["Elapsed", "CPUTime"]) == [
                [pd.Timedelta(hours=4), pd.Timedelta(hours=16)]
            ]
    else:
        assert "Elapsed" not in step_rows


def test_a_multi_cluster_export_joins_each_clusters_step_with_its_own_job(tmp_path):
    """sacct -M all -T: alpha and beta each number their own job 5 (one job table per
    cluster: accounting_storage_mysql.c), each with a .batch spanning Monday and Tuesday,
    submitted at the same time: each cluster's step joins its own segments, with its own
    usage, and its job's TotalCPU is its own step's."""
    days = {
        "mon": [
            _row("5", "5", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0)),
            _row("5.batch", "5.batch", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True),
            _row("5", "5", "RUNNING", _t(MON, 20), _t(MON, 23), _t(TUE, 0), cluster="beta"),
            _row(
                "5.batch",
                "5.batch",
                "RUNNING",
                0,
                _t(MON, 23),
                _t(TUE, 0),
                step=True,
                cluster="beta",
            ),  # fmt: skip
        ],
        "tue": [
            _row("5", "5", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 1), total="03:00:00"),
            _row(
                "5.batch",
                "5.batch",
                "COMPLETED",
                0,
                _t(TUE, 0),
                _t(TUE, 1),
                step=True,
                total="03:00:00",
            ),  # fmt: skip
            _row(
                "5",
                "5",
                "TIMEOUT",
                _t(MON, 20),
                _t(TUE, 0),
                _t(TUE, 2),
                cluster="beta",
                total="01:00:00",
            ),  # fmt: skip
            _row(
                "5.batch",
                "5.batch",
                "CANCELLED",
                0,
                _t(TUE, 0),
                _t(TUE, 2),
                step=True,
                cluster="beta",
                total="01:00:00",
            ),  # fmt: skip
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    columns = ["Cluster", "State", "Start", "End", "Elapsed", "TotalCPU"]
    assert _values(jobs, columns) == [
        ["alpha", "COMPLETED", _t(MON, 21), _t(TUE, 1), pd.Timedelta(hours=4),
         pd.Timedelta(hours=3)],
        ["beta", "TIMEOUT", _t(MON, 23), _t(TUE, 2), pd.Timedelta(hours=3),
         pd.Timedelta(hours=1)],
    ]  # fmt: skip
    assert _values(step_rows, [*columns, "JobState"]) == [
        [*_values(jobs, columns)[0][:1], "COMPLETED", *_values(jobs, columns)[0][2:],
         "COMPLETED"],
        [*_values(jobs, columns)[1][:1], "CANCELLED", *_values(jobs, columns)[1][2:],
         "TIMEOUT"],
    ]  # fmt: skip


def test_array_task_and_heterogeneous_steps_join_too(tmp_path):
    """An array task's step (6_1.batch, JobIDRaw 7) and a heterogeneous step's component
    (8.0+1: log_build_step_id_str appends ``+%u``) span two windows: each is one step of
    its own job."""
    days = {
        "mon": [
            _row("6_1", "7", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0)),
            _row("6_1.batch", "7.batch", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True),
            _row("8", "8", "RUNNING", _t(MON, 20), _t(MON, 22), _t(TUE, 0)),
            _row("8.0+0", "8.0+0", "RUNNING", 0, _t(MON, 22), _t(TUE, 0), step=True),
            _row("8.0+1", "8.0+1", "RUNNING", 0, _t(MON, 22), _t(TUE, 0), step=True),
        ],
        "tue": [
            _row("6_1", "7", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 1)),
            _row("6_1.batch", "7.batch", "COMPLETED", 0, _t(TUE, 0), _t(TUE, 1), step=True),
            _row("8", "8", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 2)),
            _row("8.0+0", "8.0+0", "COMPLETED", 0, _t(TUE, 0), _t(TUE, 2), step=True),
            _row("8.0+1", "8.0+1", "COMPLETED", 0, _t(TUE, 0), _t(TUE, 2), step=True),
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    assert _values(jobs, ["JobID", "Start", "Elapsed"]) == [
        ["6_1", _t(MON, 21), pd.Timedelta(hours=4)],
        ["8", _t(MON, 22), pd.Timedelta(hours=4)],
    ]
    assert _values(step_rows, ["JobID", "StepID", "Start", "Elapsed", "JobState"]) == [
        ["6_1.batch", "batch", _t(MON, 21), pd.Timedelta(hours=4), "COMPLETED"],
        ["8.0+0", "0+0", _t(MON, 22), pd.Timedelta(hours=4), "COMPLETED"],
        ["8.0+1", "0+1", _t(MON, 22), pd.Timedelta(hours=4), "COMPLETED"],
    ]


def test_a_suspended_steps_joined_elapsed_leaves_out_its_suspended_time(tmp_path):
    """-T subtracts a step's whole suspended time in every window (``step->elapsed -=
    step->suspended``: the record's value, not the window's), so Monday's 3 h segment shows
    2 h and Tuesday's 1 h segment 0 (never below 0); joined: 4 h less 1 h."""
    days = {
        "mon": [
            _row("9", "9", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0)),
            _row(
                "9.0", "9.0", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True, suspended=3600
            ),  # fmt: skip
        ],
        "tue": [
            _row("9", "9", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 1)),
            _row(
                "9.0", "9.0", "COMPLETED", 0, _t(TUE, 0), _t(TUE, 1), step=True, suspended=3600
            ),  # fmt: skip
        ],
    }
    _, step_rows = _read(tmp_path, days)
    assert _values(step_rows, ["Elapsed", "ElapsedRaw", "CPUTimeRAW"]) == [
        [pd.Timedelta(hours=3), 3 * 3600, 4 * 3 * 3600]
    ]


def test_a_step_whose_job_is_not_in_its_export_is_kept_in_every_row(tmp_path):
    """A step whose allocation row is missing from an export (an edited file) cannot be
    told a run: its segments are kept apart, none dropped, as before (summary warns about
    such steps)."""
    days = {
        "mon": [
            _row("10.batch", "10.batch", "RUNNING", 0, _t(MON, 21), _t(TUE, 0), step=True),
            _row("11", "11", "RUNNING", _t(MON, 20), _t(MON, 21), _t(TUE, 0)),
        ],
        "tue": [
            _row("10.batch", "10.batch", "COMPLETED", 0, _t(TUE, 0), _t(TUE, 1), step=True),
            _row("11", "11", "COMPLETED", _t(MON, 20), _t(TUE, 0), _t(TUE, 1)),
        ],
    }
    jobs, step_rows = _read(tmp_path, days)
    assert step_rows["JobID"].tolist() == ["10.batch", "10.batch"]
    assert step_rows["Start"].tolist() == [_t(MON, 21), _t(TUE, 0)]
    assert jobs["JobID"].tolist() == ["11"]


def test_exports_without_submit_tell_runs_by_start_and_keep_their_steps(tmp_path):
    """Exports without a Submit column tell a run by its Start (concat_sacct): job 1, still
    RUNNING in Monday's export (taken without -T: End Unknown) and COMPLETED in Tuesday's,
    is one run, its most final row, and its step one row, read one file at a time and
    joined."""
    from slurmlab.records.sacct import concat_sacct

    header = "JobID|JobIDRaw|State|Start|End|Elapsed|NCPUS|TotalCPU"
    days = {
        "mon": ["1|1|RUNNING|2024-03-04T21:00:00|Unknown|03:00:00|4|00:00:00",
                "1.batch|1.batch|RUNNING|2024-03-04T21:00:00|Unknown|03:00:00|4|00:00:00"],
        "tue": ["1|1|COMPLETED|2024-03-04T21:00:00|2024-03-05T01:00:00|04:00:00|4|03:00:00",
                "1.batch|1.batch|COMPLETED|2024-03-04T21:00:00|2024-03-05T01:00:00|04:00:00|4|"
                "03:00:00"],
    }  # fmt: skip
    tables = []
    for name, rows in days.items():
        path = tmp_path / f"{name}.psv"
        path.write_text("\n".join([header, *rows]) + "\n")
        tables.append(read_sacct(path))
    with pytest.warns(SacctParseWarning, match="more than one export"):
        jobs = concat_sacct(tables)
    assert jobs["State"].tolist() == ["COMPLETED"]
    step_rows = steps(jobs)
    assert step_rows["JobID"].tolist() == ["1.batch"]
    assert step_rows["State"].tolist() == ["COMPLETED"]
