"""QA 45: the sacct reader on daily exports joined with ``cat`` or taken with ``sacct -T``,
multi-cluster exports, heterogeneous steps; utilization of what an export cannot tell; a
simulation's GPUType on a cluster that accounts only untyped GPUs."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab import analysis as an
from slurmlab.records.sacct import SacctParseWarning, read_sacct, steps, write_sacct

ROOT = Path(__file__).resolve().parents[1]

HEADER = (
    "JobID|JobIDRaw|User|Account|Partition|State|Submit|Eligible|Start|End|Elapsed|NCPUS|"
    "AllocTRES|ReqTRES\n"
)
MONDAY = (
    "1|1|u|a|gpu|RUNNING|2024-03-04T20:00:00|2024-03-04T20:00:00|2024-03-04T21:00:00|Unknown|"
    "02:59:59|4|cpu=4,gres/gpu=1,node=1|cpu=4,gres/gpu=1,node=1\n"
    "3_[1-4]|3|u|a|gpu|PENDING|2024-03-04T22:00:00|2024-03-04T22:00:00|Unknown|Unknown|"
    "00:00:00|1||cpu=1,gres/gpu=1,node=1\n"
)
TUESDAY = (
    "1|1|u|a|gpu|COMPLETED|2024-03-04T20:00:00|2024-03-04T20:00:00|2024-03-04T21:00:00|"
    "2024-03-05T01:00:00|04:00:00|4|cpu=4,gres/gpu=1,node=1|cpu=4,gres/gpu=1,node=1\n"
) + "".join(
    f"3_{task}|{raw}|u|a|gpu|COMPLETED|2024-03-04T22:00:00|2024-03-04T22:00:00|"
    "2024-03-05T02:00:00|2024-03-05T03:00:00|01:00:00|1|cpu=1,gres/gpu=1,node=1|"
    "cpu=1,gres/gpu=1,node=1\n"
    for task, raw in ((1, 4), (2, 5), (3, 6), (4, 3))
)


def _read(path, **kwargs):
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(path, **kwargs)
    return jobs, [str(w.message) for w in caught]


# -- 1. daily exports joined with cat -----------------------------------------------------


def test_daily_exports_joined_with_cat_count_each_run_once(tmp_path):
    """``cat mon.psv tue.psv > week.psv`` lists job 1 RUNNING then COMPLETED and the pending
    array record 3_[1-4] before its tasks: one sacct export never lists a (JobIDRaw, Submit)
    twice (slurmdbd's job table: ``unique index (id_job, time_submit)``,
    accounting_storage_mysql.c create_cluster_tables), so the file is
    read as read_sacct([mon, tue]) reads the two: 5 jobs, 8 GPU-hours, not 9 jobs with 4
    phantom PENDING and 11 GPU-hours, with a warning naming the file and the fix."""
    week = tmp_path / "week.psv"
    week.write_text(HEADER + MONDAY + HEADER + TUESDAY)
    jobs, caught = _read(week)
    assert len(caught) == 1
    assert caught[0].startswith(f"{week}: lists 2 run(s) more than once with different rows")
    assert "the header comes again at line(s) 4" in caught[0]
    assert "JobID 1: kept line 5 (COMPLETED), left out line 2 (RUNNING)" in caught[0]
    assert "JobID 3_4: kept line 9 (COMPLETED), left out line 3 (PENDING)" in caught[0]
    assert "read_sacct(['day1.psv', 'day2.psv'])" in caught[0]
    s = an.summary(jobs)
    assert (s.jobs, s.states, s.gpu_hours) == (5, {"COMPLETED": 5}, 8.0)
    assert jobs.attrs["duplicate_lines"] == [2, 3]
    # the same as the two files read as a list
    mon, tue = tmp_path / "mon.psv", tmp_path / "tue.psv"
    mon.write_text(HEADER + MONDAY)
    tue.write_text(HEADER + TUESDAY)
    both, _ = _read([mon, tue])
    columns = ["JobID", "JobIDRaw", "State", "Start", "End", "Elapsed"]
    assert jobs[columns].equals(both[columns])


def test_exports_joined_without_their_headers_are_told_apart_by_a_run_listed_again(tmp_path):
    """``sacct -n`` exports appended to one file: no header marks the second, but job 1's
    RUNNING row listed again (the same JobID, JobIDRaw and Submit: one record,
    accounting_storage_mysql.c's unique index) starts it."""
    week = tmp_path / "week.psv"
    week.write_text(MONDAY + TUESDAY)
    jobs, caught = _read(week, fields=HEADER.strip())
    assert "looks like several exports joined" in caught[0]
    assert jobs["State"].tolist() == ["COMPLETED"] * 5
    assert an.summary(jobs).gpu_hours == 8.0


def test_a_file_that_lists_the_pending_tasks_of_a_simulated_array_keeps_them():
    """A simulation's table lists each pending task of an array under the array's JobIDRaw
    (Slurm's one pending record stands for them all until job_array_split, job_mgr.c,
    gives a starting task a job id of its own): written and read back, no task is
    collapsed, though they share JobIDRaw and Submit."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N4 --exclusive -t 10", runtime=600)
    lab.sbatch("--array=0-2 -N4 --exclusive -t 10", runtime=60)
    lab.advance(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = read_sacct(io.StringIO(write_sacct(lab.sacct())))
    assert back["JobID"].tolist() == ["1", "2_0", "2_1", "2_2"]
    assert back["JobIDRaw"].tolist() == ["1", "2", "2", "2"]


# -- 2. daily exports taken with sacct -T ---------------------------------------------------

TRUNC_HEADER = (
    "JobID|JobIDRaw|User|Account|Partition|State|Submit|Eligible|Start|End|Elapsed|NCPUS|"
    "NodeList|AllocTRES\n"
)
MONDAY_T = TRUNC_HEADER + (
    "1|1|u|a|gpu|RUNNING|2024-03-04T20:00:00|2024-03-04T20:00:00|2024-03-04T21:00:00|"
    "2024-03-05T00:00:00|03:00:00|4|g1|cpu=4,gres/gpu=1,node=1\n"
    "2|2|u|a|gpu|PENDING|2024-03-04T22:00:00|2024-03-04T22:00:00|2024-03-05T00:00:00|"
    "2024-03-05T00:00:00|00:00:00|4|None assigned|\n"
)
TUESDAY_T = TRUNC_HEADER + (
    "1|1|u|a|gpu|COMPLETED|2024-03-04T20:00:00|2024-03-04T20:00:00|2024-03-05T00:00:00|"
    "2024-03-05T01:00:00|01:00:00|4|g1|cpu=4,gres/gpu=1,node=1\n"
    "2|2|u|a|gpu|COMPLETED|2024-03-04T22:00:00|2024-03-04T22:00:00|2024-03-05T02:00:00|"
    "2024-03-05T03:00:00|01:00:00|4|g2|cpu=4,gres/gpu=2,node=1\n"
)


def test_truncated_daily_exports_join_into_whole_runs(tmp_path):
    """``sacct -T``: as_mysql_jobacct_process.c (_cluster_get_jobs, JOBCOND_FLAG_NO_TRUNC
    unset) cuts Start to -S and End to -E, and gives a job not started Start = End. A run
    is its (JobIDRaw, Submit) (a requeue gets a new submit time: batch_requeue_fini,
    job_mgr.c, "so we get different records in the database"), not its Start: job 1 is one
    run from 21:00 to 01:00 (4 h), not two, and no requeue is invented."""
    mon, tue = tmp_path / "mon.psv", tmp_path / "tue.psv"
    mon.write_text(MONDAY_T)
    tue.write_text(TUESDAY_T)
    jobs, caught = _read([mon, tue])
    assert any("look taken with sacct -T (--truncate)" in m and "JobID 1)" in m for m in caught)
    assert jobs[["JobID", "State"]].values.tolist() == [["1", "COMPLETED"], ["2", "COMPLETED"]]
    assert jobs["Start"].tolist() == [
        pd.Timestamp("2024-03-04T21:00:00"),
        pd.Timestamp("2024-03-05T02:00:00"),  # (the PENDING row's cut Start is no start)
    ]
    assert jobs["Elapsed"].tolist() == [pd.Timedelta(hours=4), pd.Timedelta(hours=1)]
    s = an.summary(jobs)
    assert (s.jobs, s.runs, s.gpu_hours) == (2, 2, 6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert an.requeues(jobs).empty


def test_without_submit_the_start_still_tells_runs_apart(tmp_path):
    """An export without Submit has only Start to tell a requeued job's runs apart: two
    exports with one run each stay two runs."""
    header = "JobID|JobIDRaw|State|Start|End|Elapsed|NCPUS\n"
    one = tmp_path / "one.psv"
    two = tmp_path / "two.psv"
    one.write_text(header + "7|7|REQUEUED|2024-01-01T22:00:00|2024-01-01T23:00:00|01:00:00|4\n")
    two.write_text(header + "7|7|COMPLETED|2024-01-02T01:00:00|2024-01-02T02:00:00|01:00:00|4\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read_sacct([one, two])
    assert jobs["State"].tolist() == ["REQUEUED", "COMPLETED"]


# -- 3. multi-cluster exports ---------------------------------------------------------------

MULTI = """JobID|JobIDRaw|Cluster|User|State|Submit|Start|End|Elapsed|NCPUS|NTasks|ReqMem|AllocTRES|MaxRSS
10|10|alpha|u1|COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T12:00:00|02:00:00|4||8G|cpu=4,mem=8G,node=1|
10.batch|10.batch|alpha||COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T12:00:00|02:00:00|4|1||cpu=4,mem=8G,node=1|100M
10.0|10.0|alpha||COMPLETED|2024-03-01T10:45:00|2024-03-01T10:45:00|2024-03-01T12:00:00|01:15:00|4|1||cpu=4,mem=8G,node=1|6G
10|10|beta|u2|FAILED|2024-03-01T10:30:00|2024-03-01T10:30:00|2024-03-01T11:00:00|00:30:00|8||16G|cpu=8,mem=16G,node=1|
10.batch|10.batch|beta||FAILED|2024-03-01T10:30:00|2024-03-01T10:30:00|2024-03-01T11:00:00|00:30:00|8|1||cpu=8,mem=16G,node=1|1G
"""


def test_steps_of_a_multi_cluster_export_belong_to_their_own_clusters_job():
    """``sacct -M all``: each cluster numbers its own jobs (one job table per cluster,
    ``"<cluster>_job_table"``, accounting_storage_mysql.c create_cluster_tables), so step 10.0 of alpha is not
    beta's job 10's: its state, MaxRSS and memory efficiency stay with alpha's."""
    jobs = read_sacct(io.StringIO(MULTI))
    assert jobs["MaxRSS"].tolist() == [6144.0, 1024.0]
    assert steps(jobs)[["JobID", "Cluster", "JobState"]].values.tolist() == [
        ["10.batch", "alpha", "COMPLETED"],
        ["10.0", "alpha", "COMPLETED"],
        ["10.batch", "beta", "FAILED"],
    ]
    assert steps(jobs[jobs["Cluster"] == "beta"])["Cluster"].tolist() == ["beta"]
    eff = an.memory_efficiency(jobs)
    assert eff["MemUsedMB"].tolist() == [6144.0, 1024.0]


# -- 4. heterogeneous steps ----------------------------------------------------------------


def test_a_heterogeneous_steps_components_are_read_as_steps_of_their_job():
    """``srun ... : ...`` in one allocation (Slurm 20.11+): log_build_step_id_str (log.c)
    appends ``+%u`` (step_het_comp) to the step id, and sacct's print.c builds JobID and
    JobIDRaw of a step with it (``61034.0+0``)."""
    text = (
        "JobID|JobIDRaw|State|Start|End|Elapsed|NCPUS\n"
        "61034|61034|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|01:00:00|20\n"
        "61034.0+0|61034.0+0|COMPLETED|2024-03-01T10:01:00|2024-03-01T10:31:00|00:30:00|4\n"
        "61034.0+1|61034.0+1|FAILED|2024-03-01T10:01:00|2024-03-01T10:31:00|00:30:00|1\n"
    )
    jobs = read_sacct(io.StringIO(text))
    assert jobs["JobID"].tolist() == ["61034"]
    assert steps(jobs)[["JobID", "AllocJobID", "StepID", "JobState"]].values.tolist() == [
        ["61034.0+0", "61034", "0+0", "COMPLETED"],
        ["61034.0+1", "61034", "0+1", "COMPLETED"],
    ]
    assert slurmlab.records.sacct.parse_job_id("61034.0+1").step == "0+1"


# -- 5. utilization of what the export cannot tell ----------------------------------------


def test_utilization_of_a_count_the_export_lacks_is_nan_not_zero():
    """An export without AllocTRES, NNodes and NodeList cannot tell GPUs or nodes in use:
    utilization says NaN with a warning, as usage() does, not 0 % (sacct -o without them:
    print.c prints only the fields asked for)."""
    text = (
        "JobID|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS\n"
        "1|u|a|gpu|COMPLETED|2024-03-04T10:00:00|2024-03-04T10:00:00|2024-03-04T11:00:00|"
        "01:00:00|4\n"
    )
    jobs = read_sacct(io.StringIO(text))
    with pytest.warns(UserWarning) as caught:
        u = an.utilization(jobs, capacity={"gpu": {"cpus": 8, "gpus": 8, "nodes": 2}})
    by = u.set_index("resource")
    assert by.loc["cpus", "used"] == 4.0 and by.loc["cpus", "utilization"] == 0.5
    assert pd.isna(by.loc["gpus", "used"]) and pd.isna(by.loc["gpus", "utilization"])
    assert pd.isna(by.loc["nodes", "used"]) and pd.isna(by.loc["nodes", "utilization"])
    text = "\n".join(str(w.message) for w in caught)
    assert "utilization: GPUs used are unknown, NaN not 0 (the export has no AllocTRES" in text
    assert "nodes used are unknown, NaN not 0 (the export has no NNodes" in text


# -- 6. a simulation's GPUType ------------------------------------------------------------


def test_a_simulated_gputype_is_what_its_alloctres_says_on_an_untyped_gpu_cluster():
    """A cluster with AccountingStorageTRES=gres/gpu accounts GPUs untyped: AllocTRES has
    ``gres/gpu=1`` and no ``gres/gpu:a100`` entry (slurmctld records only the TRES
    AccountingStorageTRES lists: assoc_mgr.c assoc_mgr_find_tres_pos), so sacct's export (the
    realslurm fixture, AllocTRES printed as stored: print.c PRINT_TRESA) cannot say a100; the simulated table says what its own AllocTRES says,
    and a write_sacct/read_sacct round trip keeps it."""
    scenario = ROOT / "datasets/realslurm/scenarios/failures.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = slurmlab.Scenario.load(scenario).run("slurm").jobs_all_runs
        real = read_sacct(ROOT / "datasets/realslurm/failures/sacct.txt")
        back = read_sacct(io.StringIO(write_sacct(sim)))
    gpu = sim["NGPUS"].fillna(0) > 0
    assert gpu.any()
    assert not sim["AllocTRES"].str.contains("gres/gpu:", regex=False).fillna(False).any()
    assert sim.loc[gpu, "GPUType"].isna().all()
    assert real.loc[real["NGPUS"].fillna(0) > 0, "GPUType"].isna().all()
    assert sim["GPUType"].equals(back["GPUType"])


def test_truncated_exports_joined_without_an_elapsed_column():
    """An export of -T segments need not list Elapsed: the run is joined (earliest Start,
    the last End and State) all the same."""
    head = "JobID|JobIDRaw|Submit|Start|End|State\n"
    mon = head + "7|7|2023-12-31T20:00:00|2024-01-01T00:00:00|2024-01-02T00:00:00|RUNNING\n"
    tue = head + "7|7|2023-12-31T20:00:00|2024-01-02T00:00:00|2024-01-02T06:00:00|COMPLETED\n"
    for source in (io.StringIO(mon + tue), [io.StringIO(mon), io.StringIO(tue)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = slurmlab.read_sacct(source)
        assert table[["JobID", "State"]].values.tolist() == [["7", "COMPLETED"]]
        assert table["Start"].iloc[0] == pd.Timestamp("2024-01-01")
        assert table["End"].iloc[0] == pd.Timestamp("2024-01-02 06:00")
