"""Stop 29: a dashboard builder's review (latency and consistency of the public views): the
past seen through ``at=`` is what a live view showed then, the metrics window does not
depend on how a job waits, ``at=`` takes ``numpy.datetime64``, no second job table when no
job was requeued, and a per-node view at any time (each finding with its input and exact
outcome)."""

from __future__ import annotations

import dataclasses
import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

import slurmlab
from slurmlab.errors import SlurmlabError
from slurmlab.sim.metrics import schedule_metrics
from slurmlab.sim.recorder import job_table
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import expand_hostlist
from slurmlab.spec.workload import Action, Workload, WorkloadJob

POLICIES = ["fifo", "easy", "conservative", "slurm"]


def _job(name: str, args: str, submit: float, runtime: float, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(shlex.split(args)), submit, runtime, id=name, **kw)


def _views(result, at=None) -> tuple:
    """Every squeue view a time slider shows, at ``at`` (None: now)."""
    return (
        result.squeue(at=at),
        result.squeue_text(at=at),
        result.squeue_text(at=at, start=True),
        result.squeue_text(at=at, array=True),
    )


# -- finding 4: the past at t does not depend on what happens after t ------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_an_array_task_requeued_later_shows_at_t_what_the_live_view_showed(policy):
    """An array's pending tasks are one record with one reason and one expected start until
    a task first starts; a task requeued later was part of that record before it started, so
    ``squeue(at=t)`` for an earlier t shows it as the live view did then (its own reason
    history, JobArrayTaskLimit, is not shown before it left the record)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab = slurmlab.Lab("ai", policy)
    lab.sbatch("-p cpu -N 8 --exclusive -t 60", runtime="10m")  # fills the cpu partition
    a = lab.sbatch("-p cpu -c 16 -t 60 --array=0-3%2", runtime="10m")
    live = {lab.now: _views(lab.result)}
    for _ in range(4):  # 300 ... 1200 s: the blocker ends at 600, tasks 0, 1 run 600-1200
        lab.advance("5m")
        live[lab.now] = _views(lab.result)
    lab.advance("5m")  # 1500 s: tasks 2 and 3 run since 1200
    lab.requeue(f"{a}_2")
    lab.advance("1h")
    for t, then in live.items():
        later = _views(lab.result, at=t)
        pd.testing.assert_frame_equal(later[0], then[0])
        assert later[1:] == then[1:], (policy, t)
    at0 = lab.result.squeue(at=0).set_index("JOBID")
    assert at0.loc[["2_0", "2_1", "2_2", "2_3"], "NODELIST(REASON)"].tolist() == ["(Resources)"] * 4
    task2 = at0.loc["2_2"]
    if policy in ("easy", "conservative"):  # their planned start for the array's record
        assert (task2["START_TIME"], task2["SCHEDNODES"]) == (
            pd.Timestamp("2026-01-05 01:00:00"),
            "cpu01",
        )
    else:
        assert pd.isna(task2["START_TIME"]) and task2["SCHEDNODES"] is None
    record = " ".join(lab.result.squeue_text(at=0).splitlines()[1].split())
    assert record == "2_[0-3%2] cpu sbatch you PD 0:00 1 (Resources)"
    # after its requeue, task 2 pends as a job of its own (not part of the record again)
    q = lab.result.squeue(at=1500).set_index("JOBID")
    assert q.loc["2_2", "ST"] == "PD" and q.loc["2_2", "NODELIST(REASON)"] == "(BeginTime)"


# -- finding 5: the metrics window of a stopped run ------------------------------------------


@pytest.mark.parametrize(
    "second", ["-p cpu -N 1 -c 4 -t 60 -H", "-p cpu -N 1 -c 4 -t 60 --begin=now+10hours"]
)
def test_a_held_job_keeps_a_labs_window_open_like_a_begin_time(second):
    """A Lab stopped at 3600 s with one job still pending: held (waiting for lab.release)
    or waiting for its --begin time, it waits, so the window ends now (3600 s): the cpu
    partition (1024 of the 4096 CPUs) busy 600 s of it."""
    lab = slurmlab.Lab("ai")
    lab.sbatch("-p cpu -N 8 --exclusive -t 60", runtime="10m")
    lab.sbatch(second, runtime="10m")
    lab.advance("1h")
    m = lab.result.metrics
    assert m["makespan_s"] == 3600.0
    assert m["utilization"] == 1024 * 600 / (4096 * 3600)


def test_a_finished_run_ends_its_window_at_the_last_end_and_a_stopped_one_now():
    """Finished = nothing left to happen: a simulate() without until that ran to its end
    (its held job is never released: window 0-100 s), or a stopped run where no job runs nor
    waits for anything that may still come. until=150 with the held job: window 0-150 s; a
    Lab run out of events with the job held: its window ends now (the lab can release it);
    released and run to the end: 0-160 s; a job whose dependency can never be satisfied
    does not keep a Lab's window open (0-100 s at 200 s)."""
    tiny = slurmlab.Cluster.preset("tiny")
    jobs = [_job("a", "-N 4 --exclusive -t 10", 0, 100), _job("h", "-N 1 -t 10 -H", 0, 10)]
    done = slurmlab.simulate(tiny, Workload(jobs), "easy").metrics
    assert (done["makespan_s"], done["utilization"]) == (100.0, 1.0)
    stopped = slurmlab.simulate(tiny, Workload(jobs), "easy", until=150).metrics
    assert (stopped["makespan_s"], stopped["utilization"]) == (150.0, 100 / 150)

    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 10", runtime=100)
    held = lab.sbatch("-N 1 -t 10 -H", runtime=10)
    lab.run()  # (nothing left to happen by itself: 100 s)
    lab.advance(50)
    assert (lab.now, lab.result.metrics["makespan_s"]) == (150.0, 150.0)
    lab.release(held)
    lab.run()
    assert (lab.now, lab.result.metrics["makespan_s"]) == (160.0, 160.0)

    lab = slurmlab.Lab("tiny")
    first = lab.sbatch("-N 4 --exclusive -t 10", runtime=100, exit_code=1)
    lab.sbatch(f"-N 1 -t 10 --dependency=afterok:{first}", runtime=10)
    lab.advance(200)
    assert lab.squeue()["NODELIST(REASON)"].tolist() == ["(DependencyNeverSatisfied)"]
    assert lab.result.metrics["makespan_s"] == 100.0


# -- finding 6: at= takes numpy.datetime64 ---------------------------------------------------


@pytest.fixture(scope="module")
def multifactor_run():
    ai = slurmlab.Cluster.preset("ai")
    settings = dict(ai.settings) | {
        "PriorityType": "priority/multifactor",
        "PriorityWeightAge": "100",
        "PriorityWeightFairshare": "1000",
    }
    cluster = dataclasses.replace(ai, settings=settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return slurmlab.simulate(cluster, slurmlab.ai_workload(200, "ai", seed=1), "easy")


def test_at_takes_numpy_datetime64_as_a_timestamp(multifactor_run):
    """``jobs["Start"].values`` (what a SelectionSlider built from it hands back) holds
    numpy.datetime64: every view's at= reads it as the same instant as the Timestamp."""
    r = multifactor_run
    stamp = r.jobs["Start"].iloc[18]  # (3 jobs pending then, each listed by sprio)
    value = r.jobs["Start"].values[18]
    assert isinstance(value, np.datetime64)
    pd.testing.assert_frame_equal(r.squeue(at=value), r.squeue(at=stamp))
    assert (r.squeue(at=value)["ST"] == "PD").sum() == len(r.sprio(at=value)) == 3
    pd.testing.assert_frame_equal(r.sinfo(at=value), r.sinfo(at=stamp))
    pd.testing.assert_frame_equal(r.sprio(at=value), r.sprio(at=stamp))
    pd.testing.assert_frame_equal(r.sshare(at=value), r.sshare(at=stamp))
    pd.testing.assert_frame_equal(r.node_usage(at=value), r.node_usage(at=stamp))
    assert r.squeue_text(at=value, long=True) == r.squeue_text(at=stamp, long=True)
    assert r.sinfo_text(at=value) == r.sinfo_text(at=stamp)
    assert r.sprio_text(at=value) == r.sprio_text(at=stamp)
    pending = r.squeue(at=stamp).query("ST == 'PD'")["JOBID"].iloc[0]
    assert r.why_pending(pending, at=value) == r.why_pending(pending, at=stamp)
    with pytest.raises(SlurmlabError, match=r"at=NaT is no time"):
        r.squeue(at=np.datetime64("NaT"))
    with pytest.raises(SlurmlabError, match=r"at=NaT is no time"):
        r.sinfo(at=pd.NaT)


def test_lab_run_until_takes_numpy_datetime64():
    """Lab.run(until=...) reads a numpy.datetime64 as the same calendar time."""
    lab = slurmlab.Lab("tiny")
    lab.run(until=np.datetime64("2026-01-05T01:00"))
    assert lab.now == 3600.0
    with pytest.raises(SlurmlabError, match=r"is no time"):
        lab.run(until=np.datetime64("NaT"))


# -- finding 1: no second job table when no job was requeued ---------------------------------


def test_jobs_all_runs_of_a_run_without_requeues_equals_the_duplicates_table():
    """With every job run once, jobs_all_runs is a copy of jobs (no second table is built)
    and equals what ``job_table(sim, duplicates=True)`` builds; metrics are those of it."""
    r = slurmlab.simulate("ai", slurmlab.ai_workload(150, "ai", seed=2), "easy", until="2d")
    assert not r.sim.requeued()
    assert r.jobs_all_runs is not r.jobs
    pd.testing.assert_frame_equal(r.jobs_all_runs, job_table(r.sim, duplicates=True))
    pd.testing.assert_frame_equal(r.jobs_all_runs, r.jobs)
    now = r.origin + pd.Timedelta(seconds=r.sim.now)
    full = schedule_metrics(
        r.jobs, r.cluster.tres(), all_runs=job_table(r.sim, duplicates=True), now=now
    )
    assert {k: r.metrics[k] for k in full} == full


def test_a_requeued_job_still_gets_its_earlier_run_in_jobs_all_runs():
    """A requeue: the engine says so, and jobs_all_runs has the earlier run as its own row."""
    lab = slurmlab.Lab("tiny")
    j = lab.sbatch("-N 1 -t 10", runtime=300)
    lab.advance(60)
    lab.requeue(j)
    lab.advance("10m")
    assert lab.sim.requeued()
    runs = lab.result.jobs_all_runs
    assert runs["State"].tolist() == ["REQUEUED", "COMPLETED"]
    pd.testing.assert_frame_equal(runs, job_table(lab.sim, duplicates=True))
    assert len(lab.result.jobs) == 1


# -- finding 7: the nodes at t, as scontrol show node ----------------------------------------


def test_node_usage_docstring_example():
    """The example in SimulationResult.node_usage's docstring gives what it shows."""
    lab = slurmlab.Lab("ai")
    assert lab.sbatch("-p train -N 1 -c 8 --gres=gpu:8 -t 10", runtime=60) == 1
    assert lab.result.node_usage().set_index("NodeName").loc["gpu001"].to_dict() == {
        "Partitions": "train,debug", "State": "mixed", "CPUAlloc": 8, "CPUTot": 96,
        "AllocMem": 64000, "RealMemory": 1024000, "GPUAlloc": 8, "GPUTot": 8, "JobIDs": "1",
    }  # fmt: skip
    usage = lab.node_usage()
    pd.testing.assert_frame_equal(usage, lab.result.node_usage())
    assert list(usage.columns) == [
        "NodeName", "Partitions", "State", "CPUAlloc", "CPUTot", "AllocMem", "RealMemory",
        "GPUAlloc", "GPUTot", "JobIDs",
    ]  # fmt: skip
    assert usage["NodeName"].tolist() == lab.sim.node_names
    cpu = usage.set_index("NodeName").loc["cpu01"]
    assert (cpu["Partitions"], cpu["State"], cpu["GPUTot"], cpu["JobIDs"]) == ("cpu", "idle", 0, "")
    assert {c: str(usage[c].dtype) for c in ("CPUAlloc", "GPUAlloc", "GPUTot")} == dict.fromkeys(
        ("CPUAlloc", "GPUAlloc", "GPUTot"), "int64"
    )


def _sinfo_states(result, t) -> dict[str, str]:
    """Each node's sinfo STATE at t, from sinfo's rows (partition, state, nodelist)."""
    out = {}
    for row in result.sinfo(at=t).itertuples():
        for node in expand_hostlist(row.NODELIST):
            out[node] = row.STATE
    return out


LONG = {"idle": "idle", "mix": "mixed", "alloc": "allocated", "down": "down",
        "drng": "draining", "drain": "drained"}  # fmt: skip


def test_node_usage_agrees_with_the_jobs_running_and_with_sinfo():
    """At every t: CPUAlloc summed over the nodes is the NCPUS of the runs in progress at t
    (jobs_all_runs: Start <= t < End), GPUAlloc their NGPUS; each node's JobIDs are the runs
    whose NodeList holds it; State is sinfo's, in its long word (a failed node down*, a
    drained one drained, a node with all GPUs but not all CPUs taken mixed)."""
    wl = slurmlab.ai_workload(120, "ai", seed=4)
    whole = WorkloadJob(JobSpec.from_args(shlex.split("-p cpu -N 2 --exclusive -t 120")), 0, 7200)
    wl = dataclasses.replace(wl, jobs=(*wl.jobs, whole))  # (two nodes allocated 0-2 h)
    failures = [slurmlab.NodeFailure("gpu002", "3h", "2h")]
    actions = [Action("5h", "drain", "gpu005"), Action("9h", "resume", "gpu005")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = slurmlab.simulate("ai", wl, "easy", failures=failures, actions=actions, until="2d")
    runs = r.jobs_all_runs
    seen = set()
    for hours in [0.5, 1, 3, 3.5, 5, 6, 8, 12, 20, 30, 47]:
        t = hours * 3600
        at = r.origin + pd.Timedelta(seconds=t)
        usage = r.node_usage(at=t)
        running = runs[(runs["Start"] <= at) & (runs["End"].isna() | (runs["End"] > at))]
        assert usage["CPUAlloc"].sum() == running["NCPUS"].sum()
        assert usage["GPUAlloc"].sum() == running["NGPUS"].sum()
        assert (usage["CPUAlloc"] <= usage["CPUTot"]).all()
        assert (usage["GPUAlloc"] <= usage["GPUTot"]).all()
        on: dict[str, list[str]] = {}
        for row in running.sort_values("JobIDRaw", key=lambda s: s.astype(int)).itertuples():
            for node in expand_hostlist(row.NodeList):
                on.setdefault(node, []).append(row.JobID)
        assert dict(zip(usage["NodeName"], usage["JobIDs"])) == {
            n: ",".join(on.get(n, [])) for n in r.sim.node_names
        }
        sinfo = _sinfo_states(r, t)
        for node, state in zip(usage["NodeName"], usage["State"]):
            word = sinfo[node].rstrip("*$")
            assert state == LONG[word] + sinfo[node][len(word) :], (t, node)
        seen.update(usage["State"])
    assert {"idle", "mixed", "allocated", "down*", "drained"} <= seen


def test_node_usage_counts_gpus_a_mixed_node_holds():
    """A node whose 8 GPUs are all taken but only 8 of its 96 CPUs shows mixed (as sinfo
    says mix), with GPUAlloc 8 of 8: the GPU panel reads GPUAlloc, not State."""
    lab = slurmlab.Lab("ai")
    lab.sbatch("-p train -N 2 -c 8 --gres=gpu:8 -t 10", runtime=600)
    lab.sbatch("-p cpu -N 1 --exclusive -t 10", runtime=600)
    usage = lab.node_usage().set_index("NodeName")
    assert usage.loc[
        ["gpu001", "gpu002"], ["State", "CPUAlloc", "GPUAlloc", "JobIDs"]
    ].values.tolist() == [
        ["mixed", 8, 8, "1"],
        ["mixed", 8, 8, "1"],
    ]
    assert usage.loc["cpu01", ["State", "CPUAlloc", "CPUTot", "JobIDs"]].tolist() == [
        "allocated", 128, 128, "2",
    ]  # fmt: skip
    lab.advance("20m")
    assert lab.node_usage()["JobIDs"].tolist() == [""] * 40
    assert lab.result.node_usage(at=0).set_index("NodeName").loc["gpu002", "JobIDs"] == "1"
