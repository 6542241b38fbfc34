"""Analyzers on small tables: each rule stated in the test's docstring."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slurmlab import analysis as an
from slurmlab.analysis._common import demo_jobs
from slurmlab.records.sacct import read_sacct

REQUEUED = """JobID|JobIDRaw|User|Account|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Restarts
7|7|ann|ml|NODE_FAIL|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|8|cpu=8,gres/gpu=4|0
7|7|ann|ml|PREEMPTED|2024-01-01T01:30:00|2024-01-01T02:00:00|2024-01-01T02:30:00|00:30:00|8|cpu=8,gres/gpu=4|1
7|7|ann|ml|COMPLETED|2024-01-01T03:00:00|2024-01-01T03:00:00|2024-01-01T04:00:00|01:00:00|8|cpu=8,gres/gpu=4|2
8|8|bob|cv|CANCELLED by 42|2024-01-01T00:00:00|Unknown|2024-01-01T00:10:00|00:00:00|0||0
"""


def table(text: str = REQUEUED) -> pd.DataFrame:
    return read_sacct(io.StringIO(text))


def test_inputs_are_never_mutated():
    jobs = demo_jobs()
    before = jobs.copy()
    for verb in (
        an.usage,
        an.wait_times,
        an.cpu_efficiency,
        an.memory_efficiency,
        an.timelimit_accuracy,
        an.failure_cost,
        an.requeues,
        an.bounded_slowdown,
    ):
        verb(jobs)
    pd.testing.assert_frame_equal(jobs, before)


def test_requeued_job_counts_once_but_every_run_counts_hours():
    """A requeued job is one job in its final state; GPU-hours sum over all its runs. Job 8,
    cancelled before it started, is a job and not a run."""
    s = an.summary(table())
    assert s.jobs == 2 and s.runs == 3
    assert s.states == {"CANCELLED": 1, "COMPLETED": 1}
    assert s.gpu_hours == pytest.approx(4 * 2.5)
    assert s.gpu_hours_by_user == {"ann": 10.0}


def test_requeues_and_lost_hours():
    r = an.requeues(table())
    assert r.to_dict("records") == [
        {
            "JobID": "7",
            "runs": 3,
            "Restarts": 2,
            "states": "NODE_FAIL>PREEMPTED>COMPLETED",
            "final_state": "COMPLETED",
            "lost_gpu_hours": 6.0,
        }
    ]


def test_failure_cost_includes_earlier_runs():
    cost = an.failure_cost(table()).set_index("State")
    assert cost.loc["NODE_FAIL", "gpu_hours"] == 4.0
    assert cost.loc["PREEMPTED", "gpu_hours"] == 2.0
    assert cost["runs"].tolist() == [1, 1]
    assert "CANCELLED" not in cost.index  # job 8 was cancelled before it started: no run


def test_pending_array_range_counts_as_its_tasks():
    """A pending range row 103_[1-3%1] is 3 jobs and 3 pending tasks."""
    s = an.summary(demo_jobs())
    assert s.jobs == 6 and s.states["PENDING"] == 3


def test_summary_json_keys_from_the_issue():
    keys = set(an.summary(demo_jobs()).to_dict())
    assert {
        "jobs",
        "steps",
        "states",
        "gpu_hours",
        "cpu_hours",
        "gpu_hours_by_account",
        "gpu_hours_by_user",
        "mean_wait_s",
        "median_wait_s",
        "first_submit",
        "last_end",
        "bad_rows",
    } <= keys
    json.dumps(an.summary(demo_jobs()).to_dict())
    assert "GPU-hours" in an.summary(demo_jobs()).words()


def test_usage_per_period_and_top_consumers():
    u = an.usage(table(), by=["User"], period="D")
    assert u["gpu_hours"].sum() == pytest.approx(10.0)
    top = an.top_consumers(table(), by="Account", n=1)
    assert top["Account"].tolist() == ["ml"] and top["share"].tolist() == [1.0]


def test_share_vs_target_keeps_groups_without_usage():
    out = an.share_vs_target(table(), {"ml": 1, "cv": 3}).set_index("Account")
    assert out.loc["cv", "share"] == 0.0 and out.loc["cv", "target"] == 0.75
    assert out.loc["ml", "ratio"] == 4.0


def test_wait_stats_by_gpu_count_and_size():
    by_gpu = an.wait_stats(table(), by="NGPUS")
    assert by_gpu["runs"].sum() == 3
    by_size = an.wait_stats(demo_jobs(), by="Size")
    assert set(by_size["Size"]) <= {"1 CPU", "2-8 CPUs", "9-32 CPUs", "33-128 CPUs", ">128 CPUs"}


def test_utilization_infers_capacity_with_a_warning():
    with pytest.warns(UserWarning, match="inferred"):
        u = an.utilization(demo_jobs(), freq="30min")
    gpus = u[(u.resource == "gpus") & (u.Partition == "gpu")]
    assert gpus["utilization"].max() == pytest.approx(1.0)


def test_utilization_with_a_cluster_preset():
    from slurmlab import Cluster

    cluster = Cluster.preset("tiny")
    cap = an.capacity_of(cluster)
    assert cap["cpus"].sum() > 0
    u = an.utilization(demo_jobs(), capacity=cluster, freq="1h", by=None)
    assert set(u["resource"]) == {"cpus", "gpus", "nodes"}


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20 * 60), st.integers(0, 10 * 60), st.integers(0, 8)),
        min_size=1,
        max_size=30,
    )
)
def test_utilization_conserves_gpu_hours(runs):
    """Mean allocated GPUs x the covered part of each period, summed, equals the GPU-hours of
    the runs (the first period begins at the export's start, its first submit; the last
    ends at the export's horizon, its last end)."""
    t0 = pd.Timestamp("2024-01-01")
    rows = ["JobID|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES"]
    for i, (start, length, gpus) in enumerate(runs):
        s, e = t0 + pd.Timedelta(minutes=start), t0 + pd.Timedelta(minutes=start + length)
        el = pd.Timedelta(minutes=length)
        rows.append(
            f"{i + 1}|COMPLETED|{s:%Y-%m-%dT%H:%M:%S}|{s:%Y-%m-%dT%H:%M:%S}|{e:%Y-%m-%dT%H:%M:%S}|{int(el.total_seconds()) // 3600:02d}:{int(el.total_seconds()) // 60 % 60:02d}:00|1|1|cpu=1,gres/gpu={gpus}"
        )
    jobs = read_sacct(io.StringIO("\n".join(rows)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = an.utilization(jobs, freq="1h", by=None)
    gpu = u[u.resource == "gpus"]
    covered = gpu["covered"].dt.total_seconds() / 3600
    assert (gpu["used"] * covered).sum() == pytest.approx(an.gpu_hours(jobs), abs=1e-9)
    assert (covered.iloc[1:-1] == 1).all() and ((covered >= 0) & (covered <= 1)).all()
    first, horizon = jobs["Submit"].min(), (jobs["Start"] + jobs["Elapsed"]).max()
    assert covered.sum() == pytest.approx((horizon - first) / pd.Timedelta("1h"))
    assert (gpu["utilization"].dropna() <= 1 + 1e-9).all()


def test_pending_over_time_stops_at_cancel():
    p = an.pending_over_time(table(), freq="5min", by=None)
    at = p.set_index("time")["pending"]
    assert at[pd.Timestamp("2024-01-01 00:05")] == 1  # job 8 pending until cancelled at 00:10


def test_efficiency_from_public_multi_step_job():
    jobs = demo_jobs()
    eff = an.memory_efficiency(jobs).set_index("JobID")
    assert eff.loc["100", "memory_efficiency"] == 0.5
    t = an.timelimit_accuracy(jobs).set_index("JobID")
    assert t.loc["101", "timelimit_accuracy"] == 1.0


def test_missing_columns_are_named():
    from slurmlab.errors import SlurmlabError

    with pytest.raises(SlurmlabError, match="TotalCPU"):
        an.cpu_efficiency(pd.DataFrame({"Elapsed": pd.to_timedelta([1], unit="s"), "NCPUS": [1]}))


def test_analyzers_compose_with_pipe():
    out = demo_jobs().pipe(an.usage, by="Partition")
    assert np.isclose(out["cpu_hours"].sum(), an.summary(demo_jobs()).cpu_hours)


def test_summary_cli_json_and_errors(tmp_path, capsys):
    from slurmlab.cli import main

    path = tmp_path / "export.txt"
    path.write_text(REQUEUED)
    assert main(["summary", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["jobs"] == 2 and data["gpu_hours"] == 10.0 and data["bad_rows"] == 0
    bad = tmp_path / "bad.txt"
    bad.write_text("JobID|Elapsed\n1|ten\n")
    assert main(["summary", str(bad)]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("slurmlab: error:")
        and "line 2" in err
        and len(err.strip().splitlines()) == 1
    )
    assert main(["summary", str(bad), "--errors", "coerce", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bad_rows"] == 1
    headerless = tmp_path / "noheader.txt"
    headerless.write_text("1|COMPLETED|00:01:00\n")
    assert main(["summary", str(headerless), "--fields", "JobID,State,Elapsed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["states"] == {"COMPLETED": 1}


def test_usage_per_period_splits_a_run_across_the_periods_it_ran_in():
    """A 4-GPU run from 22:00 to 02:00 counts 8 GPU-hours on each day; it counts as one run,
    on the day it started."""
    from slurmlab.records.schema import conform

    jobs = conform(
        pd.DataFrame(
            {
                "JobID": ["1"], "JobIDRaw": ["1"], "Account": ["ml"], "State": ["COMPLETED"],
                "Start": [pd.Timestamp("2026-01-05 22:00")],
                "End": [pd.Timestamp("2026-01-06 02:00")],
                "Elapsed": [pd.Timedelta(hours=4)], "NCPUS": [8], "NGPUS": [4], "NNodes": [1],
            }
        )
    )  # fmt: skip
    u = an.usage(jobs, by="Account", period="D").set_index("period")
    assert u["gpu_hours"].tolist() == [8.0, 8.0]
    assert u["runs"].tolist() == [1, 0]
    assert u["cpu_hours"].sum() == pytest.approx(32.0)


def _recorded(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def test_utilization_warns_when_the_capacity_does_not_fit_the_export():
    """More allocated than the capacity has (utilization above 1) and a partition of the
    export missing from the capacity are warned about by name, with the values."""
    cap = {"gpu": {"cpus": 8, "gpus": 4, "nodes": 1}}  # demo: 16 CPUs, 6 GPUs in gpu; no cpu
    u, caught = _recorded(lambda: an.utilization(demo_jobs(), capacity=cap, freq="1h"))
    assert len(caught) == 2
    missing, over = caught
    assert "partition 'cpu' (1 run) of the export is not in the capacity (it has 'gpu')" in (
        missing
    )
    assert "its utilization is NaN" in missing
    assert "partition 'gpu': 6.0 gpus allocated on average in the 1h from 2024-03-01 09:00:00" in (
        over
    )
    assert "against a capacity of 4 (utilization 1.50)" in over
    assert "partition 'gpu': 24.0 cpus" in over and "(utilization 3.00)" in over
    assert u.loc[u.Partition == "cpu", "utilization"].isna().all()


def test_utilization_that_fits_warns_nothing_and_nan_means_no_such_resource():
    """A capacity that covers the export: no warning; a partition without GPUs has NaN GPU
    utilization (0 of 0), which the docstring explains."""
    cap = {"gpu": {"cpus": 64, "gpus": 8, "nodes": 2}, "cpu": {"cpus": 8, "gpus": 0, "nodes": 1}}
    u, caught = _recorded(lambda: an.utilization(demo_jobs(), capacity=cap, freq="1h"))
    assert caught == []
    cpu_gpus = u[(u.Partition == "cpu") & (u.resource == "gpus")]
    assert (cpu_gpus["used"] == 0).all() and cpu_gpus["utilization"].isna().all()
    assert u["utilization"].max() <= 1


def test_utilization_names_a_resource_the_capacity_leaves_out():
    cap = {"gpu": {"cpus": 64, "nodes": 2}, "cpu": {"cpus": 8, "gpus": 0, "nodes": 1}}
    _, caught = _recorded(lambda: an.utilization(demo_jobs(), capacity=cap, freq="1h"))
    assert len(caught) == 1 and "gives no gpus for partition 'gpu'" in caught[0]


def test_utilization_capacity_mistakes_are_errors():
    from slurmlab import Cluster
    from slurmlab.errors import SlurmlabError

    jobs = demo_jobs()
    with pytest.raises(SlurmlabError, match="cannot be split by='Account'"):
        an.utilization(jobs, capacity=Cluster.preset("tiny"), by="Account")
    with pytest.raises(SlurmlabError, match=r"unknown key\(s\) \['gpu'\]"):
        an.utilization(jobs, capacity={"gpu": {"cpus": 8, "gpu": 4}})
    with pytest.raises(SlurmlabError, match="gpus='four' is not a count"):
        an.utilization(jobs, capacity={"gpu": {"cpus": 8, "gpus": "four", "nodes": 1}})
    with pytest.raises(SlurmlabError, match="capacity is 42"):
        an.utilization(jobs, capacity=42)


def test_utilization_of_the_whole_cluster_counts_shared_nodes_once():
    """Partitions that share nodes (ai: debug is two of train's nodes): by=None's capacity
    is the cluster's nodes, each once."""
    from slurmlab import Cluster

    ai = Cluster.preset("ai")
    u, _ = _recorded(lambda: an.utilization(demo_jobs(), capacity=ai, by=None))
    cap = u.drop_duplicates("resource").set_index("resource")["capacity"]
    assert cap["nodes"] == len(ai.nodes) == 40
    assert cap["gpus"] == sum(n.gpus for n in ai.nodes)


def test_utilization_of_the_synthetic_export_against_the_wrong_preset_warns():
    """The README's example on datasets/synthetic with the ai preset: partition 'gpu' is not
    in it and partition 'cpu' allocates three times its CPUs: both are named."""
    from pathlib import Path

    from slurmlab import Cluster

    path = Path(__file__).resolve().parents[1] / "datasets/synthetic/sacct-synthetic.psv"
    if not path.exists():
        pytest.skip("no synthetic export")
    jobs = read_sacct(path)
    _, caught = _recorded(lambda: an.utilization(jobs, capacity=Cluster.preset("ai")))
    text = " ".join(caught)
    assert "partition 'gpu'" in text and "not in the capacity" in text
    assert "partition 'cpu': 3021.9 cpus" in text and "(utilization 2.95)" in text


def test_usage_counts_runs_that_started_and_each_job_once():
    """runs: the runs that started (a requeued job's three runs); jobs: the jobs among them
    (that job once), so jobs <= runs; job 8, cancelled while pending, used nothing. Both
    counts are whole numbers (int64)."""
    u = an.usage(table(), by="Account").set_index("Account")
    assert u.loc["ml", ["runs", "jobs"]].tolist() == [3, 1]
    assert u.loc["cv", ["runs", "jobs", "gpu_hours"]].tolist() == [0, 0, 0.0]
    assert str(u["runs"].dtype) == str(u["jobs"].dtype) == "int64"


def test_usage_never_counts_more_jobs_than_runs_on_the_synthetic_export():
    """A pending array range (one row standing for 13 tasks) and requeued runs used to make
    jobs exceed runs (nlp: 720 runs, 732 jobs)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "datasets/synthetic/sacct-synthetic.psv"
    if not path.exists():
        pytest.skip("no synthetic export")
    jobs = read_sacct(path)
    u = an.usage(jobs, by="Account")
    assert (u["jobs"] <= u["runs"]).all() and u["jobs"].dtype == "int64"
    started = jobs[jobs["Start"].notna()]
    assert u["runs"].sum() == len(started)
    assert u["jobs"].sum() == started.groupby("Account")["JobID"].nunique().sum()


def test_usage_per_period_counts_a_job_where_its_first_run_started():
    """A job requeued across midnight: a run on each day, the job on the first day only."""
    text = """JobID|JobIDRaw|Account|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES
7|7|ml|REQUEUED|2024-01-01T23:00:00|2024-01-01T23:00:00|2024-01-01T23:30:00|00:30:00|8|1|cpu=8,gres/gpu=4
7|7|ml|COMPLETED|2024-01-02T01:00:00|2024-01-02T01:00:00|2024-01-02T02:00:00|01:00:00|8|1|cpu=8,gres/gpu=4
"""
    u = an.usage(table(text), by="Account", period="D")
    assert u["runs"].tolist() == [1, 1] and u["jobs"].tolist() == [1, 0]
    assert u["gpu_hours"].tolist() == [2.0, 4.0]


def test_utilization_counts_a_shared_node_once():
    """Two jobs on one node at once: one node busy, not two (NodeList, not NNodes)."""
    t = pd.Timestamp("2026-01-05")
    jobs = pd.DataFrame(
        {
            "JobID": ["1", "2", "3"],
            "Partition": ["gpu"] * 3,
            "Start": [t, t, t],
            "End": [t + pd.Timedelta(hours=1)] * 3,
            "NCPUS": [8, 8, 16],
            "NGPUS": [1, 1, 2],
            "NNodes": [1, 1, 2],
            "NodeList": ["gpu01", "gpu01", "gpu[01-02]"],
        }
    )
    u = an.utilization(jobs, capacity={"gpu": {"cpus": 64, "gpus": 16, "nodes": 2}})
    nodes = u[(u["resource"] == "nodes")]
    assert nodes["used"].iloc[0] == 2.0  # gpu01 and gpu02, each counted once
    assert nodes["utilization"].iloc[0] == 1.0
