"""Round trips (table -> sacct text -> read_sacct -> same table) and sacct --json input."""

from __future__ import annotations

import io
import json
import re
import warnings

import pandas as pd
import pytest
from test_sacct_public import FIELDS, SACCT

from slurmlab.records.sacct import SacctParseError, read_sacct, steps, write_sacct
from slurmlab.records.schema import conform, empty_job_table


def assert_same_table(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b[a.columns], check_dtype=False)
    sa, sb = steps(a), steps(b)
    key = ["JobID", "StepID"]
    pd.testing.assert_frame_equal(
        sa.sort_values(key, kind="stable").reset_index(drop=True),
        sb[sa.columns].sort_values(key, kind="stable").reset_index(drop=True),
        check_dtype=False,
    )


@pytest.mark.skipif(not SACCT.is_dir(), reason="public samples not found")
@pytest.mark.parametrize(
    "name", sorted(FIELDS) + ["slurm2sql_test-data1.psv", "tdhock-slurm_sacct-all-cols.tsv"]
)
def test_public_files_round_trip(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jobs = read_sacct(SACCT / name, fields=FIELDS.get(name), errors="warn")
    again = read_sacct(io.StringIO(write_sacct(jobs)))
    assert_same_table(jobs, again)


def test_a_simulated_table_round_trips():
    """A table that never was sacct text (the simulator's) writes and reads back."""
    sim = conform(
        pd.DataFrame(
            {
                "JobID": ["1", "2_3", "2_[4-6%2]"],
                "JobIDRaw": ["1", "5", "2"],
                "JobName": ["train <b>", "sweep", "sweep"],
                "User": ["ann", "bob", "bob"],
                "Account": ["ml", "ml", "ml"],
                "Partition": ["gpu", "gpu", "gpu"],
                "State": ["COMPLETED", "TIMEOUT", "PENDING"],
                "ExitCode": ["0:0", "0:15", "0:0"],
                "Submit": pd.to_datetime(
                    ["2024-01-01 00:00", "2024-01-01 00:05", "2024-01-01 00:05"]
                ),
                "Start": pd.to_datetime(["2024-01-01 00:01", "2024-01-01 00:06", None]),
                "End": pd.to_datetime(["2024-01-01 01:01", "2024-01-01 02:06", None]),
                "Elapsed": pd.to_timedelta(["01:00:00", "02:00:00", "00:00:00"]),
                "Timelimit": pd.to_timedelta(["02:00:00", "02:00:00", "02:00:00"]),
                "NNodes": [1, 2, 1],
                "NCPUS": [8, 16, 0],
                "NGPUS": [4, 8, 0],
                "ReqMem": [65536, 1024, 1024],
                "Priority": [10, 20, 30],
            }
        )
    )
    text = write_sacct(sim)
    back = read_sacct(io.StringIO(text))
    columns = [c for c in sim.columns if sim[c].notna().any() and c not in ("AllocTRES", "NGPUS")]
    pd.testing.assert_frame_equal(sim[columns], back[columns], check_dtype=False)
    # NGPUS comes back from AllocTRES, which only a job that started has (tres_alloc_str):
    # the pending one's is unknown
    started = sim["Start"].notna()
    assert back.loc[started, "NGPUS"].tolist() == sim.loc[started, "NGPUS"].tolist()
    assert back.loc[~started, "NGPUS"].isna().all()


def test_empty_table_writes_a_header():
    text = write_sacct(empty_job_table())
    assert text.startswith("JobID|JobIDRaw|JobName")


V0038 = {
    "meta": {"plugin": {"type": "openapi/dbv0.0.38"}},
    "errors": [],
    "jobs": [
        {
            "account": "ml",
            "array": {"job_id": 0, "task_id": None},
            "association": {"account": "ml", "cluster": "c", "partition": None, "user": "ann"},
            "cluster": "c",
            "exit_code": {"status": "SUCCESS", "return_code": 0},
            "derived_exit_code": {"status": "SUCCESS", "return_code": 0},
            "het": {"job_id": 0, "job_offset": None},
            "job_id": 42,
            "name": "train",
            "nodes": "gpu[1-2]",
            "partition": "gpu",
            "priority": 100,
            "qos": "normal",
            "state": {"current": "COMPLETED", "reason": "None"},
            "time": {
                "elapsed": 3600,
                "eligible": 1704067200,
                "end": 1704070800,
                "start": 1704067200,
                "submission": 1704067100,
                "suspended": 0,
                "limit": 120,
                "total": {"seconds": 7000, "microseconds": 0},
                "user": {"seconds": 6000, "microseconds": 0},
                "system": {"seconds": 1000, "microseconds": 0},
            },
            "tres": {
                "allocated": [
                    {"type": "cpu", "name": None, "id": 1, "count": 16},
                    {"type": "mem", "name": None, "id": 2, "count": 65536},
                    {"type": "node", "name": None, "id": 4, "count": 2},
                    {"type": "gres", "name": "gpu", "id": 1001, "count": 8},
                    {"type": "gres", "name": "gpu:a100", "id": 1002, "count": 8},
                ],
                "requested": [{"type": "mem", "name": None, "id": 2, "count": 65536}],
            },
            "user": "ann",
            "allocation_nodes": 2,
            "steps": [
                {
                    "step": {"job_id": 42, "id": "batch", "name": "batch"},
                    "state": "COMPLETED",
                    "exit_code": {"status": "SUCCESS", "return_code": 0},
                    "time": {"elapsed": 3600, "start": 1704067200, "end": 1704070800},
                    "tres": {"requested": {"max": [{"type": "mem", "count": 2147483648}]}},
                    "nodes": {"count": 1, "range": "gpu1"},
                    "tasks": {"count": 1},
                }
            ],
        }
    ],
}


def _v0041():
    doc = json.loads(json.dumps(V0038))
    job = doc["jobs"][0]
    job["state"] = {"current": ["COMPLETED"], "reason": "None"}
    for key in ("elapsed", "eligible", "end", "start", "submission"):
        job["time"][key] = (
            {"set": True, "infinite": False, "number": job["time"][key]}
            if key != "elapsed"
            else job["time"][key]
        )
    job["time"]["elapsed"] = {"set": True, "infinite": False, "number": 3600}  # 23.11+ wraps it
    job["allocation_nodes"] = {"set": True, "infinite": False, "number": 2}
    job["exit_code"] = {
        "status": ["SUCCESS"],
        "return_code": {"set": True, "infinite": False, "number": 0},
        "signal": {"id": {"set": True, "infinite": False, "number": 0}, "name": ""},
    }
    job["time"]["limit"] = {"set": True, "infinite": False, "number": 120}
    job["priority"] = {"set": True, "infinite": False, "number": 100}
    job["array"] = {
        "job_id": 40,
        "task_id": {"set": True, "infinite": False, "number": 2},
        "task": "",
    }
    job["steps"][0]["step"]["id"] = "42.batch"
    job["steps"][0]["state"] = ["COMPLETED"]
    return doc


@pytest.mark.parametrize("doc", [V0038, _v0041()], ids=["dbv0.0.38", "v0.0.41"])
def test_sacct_json_layouts(doc):
    jobs = read_sacct(io.BytesIO(json.dumps(doc).encode()), tz="UTC")
    assert jobs.attrs["format"] == "json"
    row = jobs.iloc[0]
    assert row["State"] == "COMPLETED" and row["NGPUS"] == 8 and row["NCPUS"] == 16
    assert row["Elapsed"] == pd.Timedelta(hours=1) and row["Timelimit"] == pd.Timedelta(hours=2)
    assert row["Start"] == pd.Timestamp("2024-01-01 00:00:00")
    assert row["NNodes"] == 2 and row["ExitCode"] == "0:0"
    s = steps(jobs)
    assert s["StepID"].tolist() == ["batch"] and s.loc[0, "MaxRSS"] == 2048.0
    assert jobs.loc[0, "MemUsed"] == 2048.0


def test_json_that_is_not_sacct():
    from slurmlab.records.sacct import SacctParseError

    with pytest.raises(SacctParseError, match="not a sacct --json export"):
        read_sacct(io.StringIO('{"hello": 1}'))
    with pytest.raises(SacctParseError, match="not valid JSON"):
        read_sacct(io.StringIO('{"jobs": [}'))


# -- a simulation's table: scenario ids, array tasks NAME_3, requeued runs ---------------------
SIMULATED = {
    "cluster": "tiny",
    "policy": "easy",
    "jobs": [
        {"id": "running", "submit": 0, "runtime": 3000, "args": "-N 2 --gres=gpu:2 -t 1:40:00"},
        {"id": "big", "submit": 10, "runtime": 600, "args": "-N 4 --gres=gpu:2 -t 1:00:00"},
        {"id": "short", "submit": 20, "runtime": 1200, "args": "-N 1 --gres=gpu:2 -t 30:00"},
        {"id": "sweep", "submit": 30, "runtime": 100, "args": "-N 1 -t 10 --array=1-3"},
        {"submit": 40, "runtime": 100, "args": "-N 1 -t 10 --array=0-1"},
        {"submit": 50, "runtime": 100, "args": "-N 1 -t 10"},
        {"id": "job_7", "submit": 60, "runtime": 100, "args": "-N 1 -t 10"},
    ],
    "actions": [
        {"at": 100, "action": "requeue", "job": "running"},
        {"at": 70, "action": "requeue", "job": "sweep_2"},
    ],
}


@pytest.mark.parametrize("duplicates", [False, True], ids=["last-runs", "sacct-D"])
def test_a_simulation_round_trips_with_scenario_ids(duplicates):
    """write_sacct(result.jobs) reads back to the same table: scenario ids (running), array
    tasks named after them (sweep_2: task 2 of array 4), a plain id that only looks like a
    task (job_7), numeric JobIDs (7_0, 9), requeued runs sharing a JobID, StartedBy."""
    from slurmlab import Scenario

    result = Scenario.from_dict(SIMULATED).run()
    sim = result.sacct(duplicates=duplicates)
    assert {"running", "sweep_2", "job_7", "7_0"} <= set(sim["JobID"])
    assert sim["StartedBy"].eq("backfill").any() and sim["State"].eq("REQUEUED").any() == (
        duplicates
    )
    back = read_sacct(io.StringIO(write_sacct(sim)))
    pd.testing.assert_frame_equal(sim, back[sim.columns], check_dtype=False)
    row = back.set_index(back["JobID"] + "#" + back["Restarts"].astype(str))
    assert row.loc["job_7#0", ["ArrayJobID", "ArrayTaskID"]].isna().all()
    assert row.loc["sweep_2#1", "ArrayTaskID"] == 2


def test_a_simulated_run_that_never_started_reads_back_with_blank_nodes():
    """A job cancelled while pending: NodeList "None assigned" and an empty AllocTRES in the
    simulator's table read back as NA, as they do from a real export (the rest is equal)."""
    from slurmlab import Scenario

    doc = {
        "cluster": "tiny",
        "jobs": [
            {"id": "all", "submit": 0, "runtime": 1000, "args": "-N 4 --exclusive -t 1:00:00"},
            {"id": "waits", "submit": 1, "runtime": 100, "args": "-N 1 -t 10"},
        ],
        "actions": [{"at": 50, "action": "cancel", "job": "waits"}],
    }
    sim = Scenario.from_dict(doc).run().jobs
    back = read_sacct(io.StringIO(write_sacct(sim)))
    never = sim["Start"].isna()
    assert never.tolist() == [False, True]
    assert back.loc[never, ["NodeList", "AllocTRES", "StartedBy"]].isna().all().all()
    same = [c for c in sim.columns if c not in ("NodeList", "AllocTRES")]
    pd.testing.assert_frame_equal(sim[same], back[same], check_dtype=False)


def test_names_in_jobid_need_a_numeric_jobidraw():
    """A name in JobID reads only beside a numeric JobIDRaw: a shifted column (a user name
    where the JobID should be) is still an error, and so is a name that holds '.' or '+'."""
    ok = "JobID|JobIDRaw|State\nbig|2|COMPLETED\nsweep_3|6|COMPLETED\n"
    assert read_sacct(io.StringIO(ok))["JobID"].tolist() == ["big", "sweep_3"]
    # (a name beside a JobIDRaw that is not a number names both columns: test_qa_stop26_fuzz_records)
    both = ("JobID, JobIDRaw", "JobID=alice, JobIDRaw=alice")
    for text, (column, value) in (
        ("JobID|State\nbig|COMPLETED\n", ("JobID", "big")),  # no JobIDRaw
        ("JobID|JobIDRaw|State\nalice|alice|COMPLETED\n", both),  # shifted columns
        ("JobID|JobIDRaw|State\neval.1|3|COMPLETED\n", ("JobID", "eval.1")),  # would be a step
        ("JobID|JobIDRaw|State\nx+1|3|COMPLETED\n", ("JobID", "x+1")),  # would be a het job
        ("JobID|JobIDRaw|State\n12abc|3|COMPLETED\n", ("JobID", "12abc")),  # a number gone wrong
    ):
        with pytest.raises(SacctParseError, match="numeric JobIDRaw") as info:
            read_sacct(io.StringIO(text))
        assert (info.value.line, info.value.column, info.value.value) == (2, column, value)


def test_id_columns_in_a_file_must_agree_with_jobid():
    """ArrayJobID/ArrayTaskID in a file are taken for rows whose JobID is a name and must
    agree with a sacct JobID elsewhere (a disagreement is an error, never silently used)."""
    text = "JobID|JobIDRaw|ArrayJobID|ArrayTaskID|State\nsweep_3|6|4|3|COMPLETED\n5_1|7|5|1|COMPLETED\n"
    jobs = read_sacct(io.StringIO(text))
    assert jobs["ArrayJobID"].tolist() == ["4", "5"] and jobs["ArrayTaskID"].tolist() == [3, 1]
    bad = "JobID|JobIDRaw|ArrayJobID|State\n5_1|7|9|COMPLETED\n"
    with pytest.raises(SacctParseError, match="does not agree with the JobID") as info:
        read_sacct(io.StringIO(bad))
    assert (info.value.column, info.value.value) == ("ArrayJobID", "9")


@pytest.mark.parametrize(
    ("jobid", "raw", "message"),
    [
        ("eval 1", "1", "neither a sacct JobID"),
        ("a.b", "1", "neither a sacct JobID"),
        ("run|x", "1", "contains the delimiter"),
        ("big", "", "is not a number"),
    ],
)
def test_write_sacct_refuses_a_jobid_it_could_not_read_back(jobid, raw, message):
    from slurmlab.errors import SlurmlabError

    sim = conform(pd.DataFrame({"JobID": ["1", jobid], "JobIDRaw": ["1", raw]}))
    with pytest.raises(SlurmlabError, match=f"row 1 has JobID '{re.escape(jobid)}'.*{message}"):
        write_sacct(sim)


def test_write_sacct_with_fields_keeps_jobidraw_for_names():
    from slurmlab.errors import SlurmlabError

    sim = conform(pd.DataFrame({"JobID": ["big"], "JobIDRaw": ["2"], "State": ["COMPLETED"]}))
    with pytest.raises(SlurmlabError, match="add JobIDRaw to fields"):
        write_sacct(sim, fields=["JobID", "State"])
    back = read_sacct(io.StringIO(write_sacct(sim, fields=["JobID", "JobIDRaw", "State"])))
    assert back["JobID"].tolist() == ["big"]


def test_flags_give_started_by():
    """sacct's Flags say which scheduler started a job: StartedBy, as the simulator says."""
    text = "JobID|Flags\n1|SchedBackfill,StartRecieved\n2|SchedMain\n3|SchedSubmit\n4|\n"
    jobs = read_sacct(io.StringIO(text))
    assert jobs["StartedBy"].tolist() == ["backfill", "main", "submit", pd.NA]
