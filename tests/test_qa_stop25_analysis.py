"""Analyzers, figures and the report (QA findings, stop 25): the utilization figure groups by
its grouping column; the pending queue is exact; unknown is NaN/None, never 0; waits from
Eligible; no "(none)" account standing for everything."""

from __future__ import annotations

import io
import math
import os
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab import analysis as an
from slurmlab import viz
from slurmlab.errors import SlurmlabError
from slurmlab.records.sacct import read_sacct
from slurmlab.report import render_report

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SLURMLAB_SHARED") or ROOT.parent / "shared")
PUBLIC = SHARED / "datasets/public/sacct"
needs_public = pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"no public samples at {PUBLIC}")

# field orders of header-less public captures, from datasets/public/sacct/README.md
ORDER_A26 = [
    "State", "JobID", "ReqCPUS", "ReqMem", "ReqNodes", "Constraints", "Submit", "Eligible",
    "Start", "Elapsed", "Suspended", "End", "ExitCode", "DerivedExitCode", "AllocNodes", "NCPUS",
    "MaxDiskRead", "MaxDiskWrite", "MaxPages", "MaxRSS", "MaxVMSize", "CPUTime", "UserCPU",
    "SystemCPU", "TotalCPU", "Partition",
]  # fmt: skip
ORDER_B = [
    "JobID", "JobName", "User", "Partition", "NodeList", "NNodes", "NCPUs", "NTasks", "State",
    "Submit", "Start", "End", "Timelimit", "Elapsed", "TotalCPU", "CPUTime", "UserCPU",
    "SystemCPU", "ReqMem", "MaxRSS", "MaxVMSize", "ReqTRES", "AllocTRES", "TRESUsageInMax",
    "TRESUsageInTot", "TRESUsageOutTot", "MaxDiskRead", "MaxDiskWrite", "MaxRSSNode",
    "MaxRSSTask", "MaxVMSizeNode", "MaxVMSizeTask", "MaxDiskReadNode", "MaxDiskReadTask",
    "MaxDiskWriteNode", "MaxDiskWriteTask", "Comment",
]  # fmt: skip

# two partitions on shared nodes: debug is two of train's eight nodes
SHARED_NODES = """\
name: shared-nodes
cluster:
  name: workshop
  nodes:
    - {name: "gpu[01-08]", cpus: 64, memory: 512000, gres: "gpu:a100:4"}
  partitions:
    - {name: train, nodes: "gpu[01-08]", default: true, max_time: "2-00:00:00"}
    - {name: debug, nodes: "gpu[07-08]", max_time: "1:00:00", priority_tier: 10}
policy: easy
jobs:
  - {id: big, submit: 0, runtime: 2h, args: "-N 8 --gres=gpu:4 -t 3:00:00 -p train"}
  - {id: dbg, submit: "0:20:00", runtime: 5m, args: "-p debug --gres=gpu:1 -t 10:00"}
"""


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def read(text: str) -> pd.DataFrame:
    return quiet(read_sacct, io.StringIO(text))


@pytest.fixture(scope="module")
def shared_nodes(tmp_path_factory):
    path = tmp_path_factory.mktemp("sc") / "shared-nodes.yaml"
    path.write_text(SHARED_NODES)
    scenario = slurmlab.Scenario.load(path)
    return scenario, quiet(scenario.run)


# --------------------------------------------------------------- 1. utilization_figure


def test_utilization_figure_has_one_line_per_partition_going_forward_in_time(shared_nodes):
    """The figure groups by the table's grouping column (Partition), not by its second
    column (covered, since it was added): one trace per partition, time increasing."""
    scenario, result = shared_nodes
    util = quiet(an.utilization, result.jobs, capacity=scenario.cluster)
    fig = viz.utilization_figure(util)
    assert [t.name for t in fig.data] == ["debug", "train"]
    for trace in fig.data:
        x = list(trace.x)
        assert x == sorted(x) and len(set(x)) == len(x)
    named = viz.utilization_figure(util, by="Partition")
    assert [t.name for t in named.data] == ["debug", "train"]


def test_utilization_figure_of_the_whole_cluster_and_of_the_synthetic_export():
    """by=None gives one line "all"; the synthetic export one line per partition."""
    jobs = quiet(read_sacct, ROOT / "datasets/synthetic/sacct-synthetic.psv")
    fig = viz.utilization_figure(quiet(an.utilization, jobs))
    assert [t.name for t in fig.data] == ["debug", "gpu"]  # (GPUs: cpu has none, no line)
    fig = viz.utilization_figure(quiet(an.utilization, jobs), "cpus")
    assert [t.name for t in fig.data] == ["cpu", "debug", "gpu"]
    assert [t.name for t in viz.utilization_figure(quiet(an.utilization, jobs, by=None)).data] == [
        "all"
    ]
    page = quiet(render_report, jobs)
    assert '"name":"0 days 01:00:00"' not in page


def test_partitions_sharing_nodes_are_warned_about_and_named_in_the_figure(shared_nodes):
    """debug's nodes gpu[07-08] are train's too: per partition, debug counts only its own
    job (train's 8-node job keeps its nodes busy), so the analyzer warns and the figure's
    title says each line counts only its own partition's jobs."""
    scenario, result = shared_nodes
    with pytest.warns(UserWarning, match=r"'debug' and 'train' share gpu\[07-08\]\. Each"):
        util = an.utilization(result.jobs, capacity=scenario.cluster)
    assert util.attrs["shared_partitions"] == ["debug", "train"]
    title = viz.utilization_figure(util).layout.title.text
    assert title == (
        "Allocated GPUs / capacity<br><sup>partitions debug, train share nodes: each line "
        "counts only its own partition's jobs</sup>"
    )
    with warnings.catch_warnings():  # the whole cluster, each node once: nothing to say
        warnings.simplefilter("error")
        whole = an.utilization(result.jobs, capacity=scenario.cluster, by=None)
    assert "shared_partitions" not in whole.attrs


def test_a_capacity_mapping_summed_over_shared_nodes_is_warned_about():
    """Without a Cluster, the export's NodeList shows the sharing: n1 ran jobs of a and b,
    so a mapping summed over partitions counts it twice."""
    jobs = read(
        "JobID|Partition|State|Submit|Start|End|Elapsed|NNodes|NCPUS|NodeList\n"
        "1|a|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|4|n1\n"
        "2|b|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|4|n1\n"
    )
    cap = {"a": {"cpus": 8, "gpus": 0, "nodes": 1}, "b": {"cpus": 8, "gpus": 0, "nodes": 1}}
    with pytest.warns(UserWarning, match=r"by the export's NodeList\): 'a' and 'b' share n1\. "):
        an.utilization(jobs, capacity=cap, by=None)
    with pytest.warns(UserWarning, match="counts only its own jobs"):
        an.utilization(jobs, capacity=cap)


# --------------------------------------------------------------- 2. pending, axis titles


def test_pending_over_time_is_exact_by_default():
    """backfill-basics under EASY: big pends 00:00:10-00:50, long 00:00:30-01:00 (report is
    held until 01:00, not pending). Hourly ticks saw 0 at 00:00, 01:00 and 01:30; the exact
    table has a row at every change."""
    scenario = slurmlab.Scenario.load(ROOT / "course/scenarios/backfill-basics.yaml")
    jobs = quiet(scenario.run, "easy").jobs
    pending = an.pending_over_time(jobs)
    assert [(t.strftime("%H:%M:%S"), p) for t, p in zip(pending["time"], pending["pending"])] == [
        ("00:00:00", 0.0),
        ("00:00:10", 1.0),
        ("00:00:30", 2.0),
        ("00:50:00", 1.0),
        ("01:00:00", 0.0),
        ("01:30:00", 0.0),
    ]
    assert set(pending["Partition"]) == {"main"} and "freq" not in pending.attrs
    sampled = an.pending_over_time(jobs, freq="1h")
    assert sampled["pending"].tolist() == [0.0, 0.0, 0.0] and sampled.attrs["freq"] == "1h"


def test_pending_figure_draws_steps_only_for_the_exact_table():
    jobs = quiet(slurmlab.Scenario.load(ROOT / "course/scenarios/backfill-basics.yaml").run).jobs
    exact = viz.pending_figure(an.pending_over_time(jobs))
    assert [(t.mode, t.line.shape) for t in exact.data] == [("lines", "hv")]
    assert (exact.layout.title.text, exact.layout.xaxis.title.text) == ("Pending jobs", "time")
    sampled = viz.pending_figure(an.pending_over_time(jobs, freq="1h"))
    assert [(t.mode, t.line.shape) for t in sampled.data] == [("lines+markers", None)]
    assert sampled.layout.title.text == "Pending jobs (sampled every 1h)"


def test_figures_have_axis_titles_and_unit_names_in_capitals():
    from slurmlab.analysis._common import demo_jobs

    jobs = demo_jobs()
    util = quiet(an.utilization, jobs)
    assert [
        (f.layout.title.text, f.layout.xaxis.title.text, f.layout.yaxis.title.text)
        for f in (
            viz.utilization_figure(util),
            viz.utilization_figure(util, resource="cpus"),
            viz.wait_figure(an.wait_times(jobs)),
            viz.states_figure({"COMPLETED": 1}),
            viz.usage_figure(an.usage(jobs), resource="cpu_hours"),
        )
    ] == [
        ("Allocated GPUs / capacity", "time", "utilization"),
        ("Allocated CPUs / capacity", "time", "utilization"),
        ("Wait from submit to start, by Partition", "Partition", "hours"),
        ("Final state of each job", "state", "jobs"),
        ("CPU-hours by Account", "CPU-hours", "Account"),
    ]


# --------------------------------------------------------------- 3. cpu_efficiency of -X

X_EXPORT = """\
JobID|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|TotalCPU
1|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T01:00:00|01:00:00|16|cpu=16,gres/gpu=2|00:00:00
2|FAILED|2026-01-05T00:00:00|2026-01-05T00:10:00|2026-01-05T00:40:00|00:30:00|4|cpu=4|00:00:00
"""


def test_cpu_efficiency_of_an_export_without_steps_is_nan_with_one_warning():
    """sacct -X leaves TotalCPU 0 (a job's TotalCPU is summed from its steps): unknown."""
    jobs = read(X_EXPORT)
    with pytest.warns(UserWarning) as caught:
        eff = an.cpu_efficiency(jobs)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "cpu_efficiency: 2 of 2 run(s) have TotalCPU 0 and the export has no step rows (it "
        "was made with sacct -X, and sacct sums a job's TotalCPU from its steps, so it is 0 "
        "there): their CPU use is unknown, so their cpu_efficiency is NaN, not 0; export with "
        "the steps (drop -X from the sacct command)"
    )
    assert eff["cpu_efficiency"].isna().tolist() == [True, True]


def test_a_run_with_steps_keeps_its_measured_efficiency():
    """Job 1 has a .batch step (TotalCPU 8 h over 16 CPUs x 1 h: 0.5); job 2 has none and
    TotalCPU 0: NaN."""
    jobs = read(
        X_EXPORT.replace("|00:00:00\n2|", "|\n2|", 1)
        + "1.batch|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T01:00:00"
        "|01:00:00|16||08:00:00\n"
    )
    with pytest.warns(UserWarning, match=r"1 of 2 run\(s\) have TotalCPU 0 and they have no step"):
        eff = an.cpu_efficiency(jobs)
    assert eff["cpu_efficiency"].tolist()[0] == 0.5 and math.isnan(eff["cpu_efficiency"][1])


def test_the_report_of_an_export_without_steps_draws_no_cpu_efficiency():
    page = quiet(render_report, read(X_EXPORT))
    assert "<h2>CPU efficiency</h2>" not in page
    assert "CPU efficiency is not shown: 2 of 2 run(s) have TotalCPU 0" in page
    assert "drop -X from the sacct command" in page


# --------------------------------------------------------------- 4. waits from Eligible

DEPENDENCY = ROOT / "datasets/realslurm/dependency/sacct.txt"


def test_waits_from_submit_and_from_eligible_on_the_real_dependency_fixture():
    """Real Slurm: jobs waiting on dependencies wait 11.0 s on average from Submit, but
    only 2/9 s from Eligible (Slurm's Reserved: the dependency's time left out)."""
    jobs = read_sacct(DEPENDENCY)
    submit = an.wait_times(jobs)["Wait"].dt.total_seconds()
    eligible = an.wait_times(jobs, since="Eligible")["Wait"].dt.total_seconds()
    assert submit.tolist() == [0.0, 0.0, 18.0, 38.0, 6.0, 4.0, 14.0, 2.0, 17.0]
    assert eligible.tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    assert submit.mean() == 11.0 and eligible.mean() == pytest.approx(2 / 9)
    stats = an.wait_stats(jobs, by="Partition", since="Eligible")
    assert stats["max_h"].tolist() == [pytest.approx(2 / 3600)]
    s = an.summary(jobs)
    assert (s.mean_wait_s, s.median_wait_s) == (11.0, 6.0)
    assert (s.mean_wait_eligible_s, s.median_wait_eligible_s) == (pytest.approx(2 / 9), 0.0)
    assert s.words().splitlines()[-1] == (
        "Jobs waited 6 s (median), 11 s (mean) from submit to start, and 0 s (median), 0 s "
        "(mean) from eligible to start (time held, on dependencies or --begin left out)."
    )
    page = quiet(render_report, jobs)
    assert "Waits by partition (from eligible to start" in page


def test_since_eligible_needs_eligible_times_and_since_is_checked():
    jobs = read(X_EXPORT)  # no Eligible field
    with pytest.raises(
        SlurmlabError, match=r"wait_times\(since='Eligible'\): the job table has no Eligible"
    ):
        an.wait_times(jobs, since="Eligible")
    with pytest.raises(SlurmlabError, match=r"since='Start' is not a start of a wait"):
        an.wait_stats(jobs, since="Start")
    assert an.summary(jobs).mean_wait_eligible_s is None
    assert an.wait_times(jobs).attrs["since"] == "Submit"


# --------------------------------------------------------------- 5. unknown is NaN/None


@pytest.fixture(scope="module")
def no_alloc_tres():
    """hpc-cost-simulator's capture: no AllocTRES (so no GPU counts), no Restarts, no Account."""
    return quiet(read_sacct, PUBLIC / "hpc-cost-simulator_sacct-output-v2.txt", fields=ORDER_A26)


@needs_public
def test_gpu_hours_without_alloc_tres_are_unknown_everywhere(no_alloc_tres):
    jobs = no_alloc_tres
    assert an.summary(jobs).gpu_hours is None
    unknown = (
        r"GPU-hours are unknown, NaN not 0 \(the export has no AllocTRES: add it to sacct -o\)"
    )
    with pytest.warns(UserWarning, match="gpu_hours: " + unknown):
        assert math.isnan(an.gpu_hours(jobs))
    with pytest.warns(UserWarning, match="usage: " + unknown):
        use = an.usage(jobs, by="Partition")
    assert use["gpu_hours"].isna().all()
    assert use["cpu_hours"].round(6).tolist() == [25.374167, 1.271389, 0.000278]
    with pytest.warns(UserWarning, match="failure_cost: " + unknown):
        cost = an.failure_cost(jobs)
    assert cost["gpu_hours"].isna().all()
    assert cost["State"].tolist() == ["OUT_OF_MEMORY", "FAILED", "CANCELLED"]  # by CPU-hours
    with pytest.warns(UserWarning, match="biggest_runs: " + unknown):
        assert an.biggest_runs(jobs).empty
    biggest = quiet(an.biggest_runs, jobs, resource="cpu_hours", n=2)
    assert biggest["JobID"].tolist() == ["134217819", "134217831"]
    assert biggest["gpu_hours"].isna().all()
    top = quiet(an.top_consumers, jobs, by="Partition")
    assert top["share"].isna().all()


@needs_public
def test_requeues_without_restarts_says_restarts_are_unknown(no_alloc_tres):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert an.requeues(no_alloc_tres).empty  # no job has two runs in the export
    assert [str(w.message).split(",")[0] for w in caught] == [
        "requeues: the export has no Restarts",
        "requeues: GPU-hours are unknown",
    ]


def test_requeues_of_an_export_without_restarts_or_alloc_tres_shows_them_unknown():
    """Job 7 ran twice (sacct -D): found by its runs, but its Restarts is <NA> (no Restarts
    field) and its lost GPU-hours NaN (no AllocTRES), not 0."""
    jobs = read(
        "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
        "7|NODE_FAIL|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|8\n"
        "7|COMPLETED|2024-01-01T02:00:00|2024-01-01T02:00:00|2024-01-01T03:00:00|01:00:00|8\n"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = an.requeues(jobs)
    assert [str(w.message).split(":")[0] for w in caught] == ["requeues", "requeues"]
    row = table.iloc[0]
    assert (row["JobID"], row["runs"], row["states"]) == ("7", 2, "NODE_FAIL>COMPLETED")
    assert row["Restarts"] is pd.NA and math.isnan(row["lost_gpu_hours"])
    assert str(table["Restarts"].dtype) == "Int64"


# --------------------------------------------------------------- 6. no Account


@needs_public
def test_an_export_without_account_names_top_users_not_a_none_account():
    """hb-jobinfo's capture (order B) has User but no Account."""
    jobs = quiet(read_sacct, PUBLIC / "hb-jobinfo_sacct-snowman-delim.txt", fields=ORDER_B)
    s = an.summary(jobs)
    assert s.gpu_hours_by_account == {}
    assert s.words().splitlines()[3] == (
        "Top GPU users (no Account in the export): user498 138.3 h (63%), user490 38.3 h "
        "(17%), user427 15.5 h (7%)."
    )
    assert "(none)" not in s.words()
    page = quiet(render_report, jobs)
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert "Usage by user" in headings and "Usage by account" not in headings
    assert "Usage is shown by user: the export has no Account (add it to sacct -o)." in page


def test_an_export_without_account_or_user_draws_no_usage_bars():
    page = quiet(render_report, read(X_EXPORT))
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert not any(h.startswith("Usage by") for h in headings) and "Top users" not in headings
    assert "the export has no Account and no User" in page
