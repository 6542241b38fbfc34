"""Stop 29: accounts and QOS in any case (as Slurm), swf_cluster of a trace."""

from __future__ import annotations

import pytest

from slurmlab import Account, JobSpec, Lab, Qos, Reservation, Scenario, Workload, WorkloadJob
from slurmlab.errors import SlurmlabError
from slurmlab.records.swf import swf_cluster


def test_a_jobs_account_and_qos_are_lower_case_as_slurmctld_makes_them():
    # job_mgr.c lower-cases job_desc->account; assoc_mgr.c finds a QOS with xstrcasecmp
    spec = JobSpec.from_args("-A LLM -q HIGH -t 10")
    assert (spec.account, spec.qos) == ("llm", "high")
    assert WorkloadJob(JobSpec.from_args("-t 10"), account="Vision").account == "vision"


def test_accounts_qos_and_reservations_are_named_in_lower_case_as_sacctmgr_does():
    a = Account("Physics", parent="ROOT", users=("alice",))
    assert (a.name, a.parent) == ("physics", "root")
    q = Qos("HIGH", priority=10, preempt="Low,SCAV")
    assert (q.name, q.preempt) == ("high", ("low", "scav"))
    r = Reservation("maint", start=0, duration="1h", nodes=("gpu1",), accounts="LLM")
    assert r.accounts == ("llm",) and r.admits("bob", "llm")


def test_a_lab_job_asking_for_an_account_in_capitals_runs_in_that_account():
    lab = Lab(
        "teaching",
        accounts=[Account("LLM", shares=10, users=("alice",))],
        qos=[Qos("High", priority=100)],
    )
    lab.sbatch("-A Llm -q HIGH -t 10 --wrap=hostname", user="alice")
    lab.advance("1m")
    row = lab.sacct().iloc[0]
    assert (row["Account"], row["QOS"], row["State"]) == ("llm", "high", "RUNNING")


def test_a_scenario_naming_accounts_and_qos_in_other_cases_runs():
    doc = {
        "cluster": "teaching",
        "accounts": [{"name": "LLM", "users": ["alice"]}],
        "qos": [{"name": "High"}],
        "jobs": [
            {"id": "a", "submit": 0, "runtime": 60, "user": "alice", "account": "Llm",
             "args": "-q high -t 10"},
            {"id": "b", "submit": 0, "runtime": 60, "user": "alice", "args": "-A LLM -t 10"},
        ],
    }  # fmt: skip
    jobs = Scenario.from_dict(doc).run(progress=False).jobs
    assert jobs["Account"].tolist() == ["llm", "llm"]
    assert jobs["QOS"].tolist()[0] == "high"
    assert set(jobs["State"]) == {"COMPLETED"}


def test_swf_cluster_takes_the_trace_itself_or_a_whole_number():
    trace = Workload(name="t", kind="trace", max_procs=64)
    assert swf_cluster(trace).nodes[0].cpus == 64
    with pytest.raises(SlurmlabError, match=r"workload 'w' is no SWF trace .*swf_cluster\(256\)"):
        swf_cluster(Workload(name="w"))
    for bad in ("100", 2.5, None, True):
        with pytest.raises(SlurmlabError, match=r"procs .* is not a whole number of processors"):
            swf_cluster(bad)


def test_time_to_recovery_pairs_each_failed_run_with_the_same_jobs_next_run():
    """failure_metrics, vectorised: a NODE_FAIL or PREEMPTED run counts from its end to the
    next start of the same job (rows in any order), never to another job's run."""
    import pandas as pd

    from slurmlab.sim.metrics import failure_metrics

    rows = [  # (JobIDRaw, State, Start, End)
        (2, "PREEMPTED", 0.0, 100.0),
        (1, "NODE_FAIL", 10.0, 50.0),
        (1, "COMPLETED", 170.0, 300.0),  # 120 s after job 1's failure
        (2, "COMPLETED", 130.0, 200.0),  # 30 s after job 2's preemption
        (3, "NODE_FAIL", 0.0, 20.0),  # job 3 not run again yet: no recovery
        (4, "COMPLETED", 25.0, 40.0),
    ]
    runs = pd.DataFrame(rows, columns=["JobIDRaw", "State", "Start", "End"])
    runs = runs.assign(NGPUS=1, NCPUS=1, allocated_s=runs["End"] - runs["Start"])
    runs = runs.assign(useful_s=0.0, lost_s=0.0, writing_s=0.0, restarting_s=0.0)
    assert failure_metrics(runs, 2)["mean_time_to_recovery_s"] == 75.0
    ok = runs[runs["State"] == "COMPLETED"]
    assert pd.isna(failure_metrics(ok, 0)["mean_time_to_recovery_s"])
    assert pd.isna(failure_metrics(runs.iloc[:0], 0)["mean_time_to_recovery_s"])


def test_the_gpu_utilization_figure_draws_no_line_for_a_partition_without_gpus():
    """widget review: the cpu partition's GPU line was all NaN (0 of 0 GPUs); its CPU line
    stays, and a table whose only group has no GPUs still draws that group (nothing hidden
    when there is nothing else)."""
    import warnings

    from slurmlab.analysis import utilization
    from slurmlab.analysis._common import demo_jobs
    from slurmlab.viz import utilization_figure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        util = utilization(demo_jobs())
    assert [t.name for t in utilization_figure(util, "gpus").data] == ["gpu"]
    assert [t.name for t in utilization_figure(util, "cpus").data] == ["cpu", "gpu"]
    only_cpu = util[util["Partition"] == "cpu"]
    assert [t.name for t in utilization_figure(only_cpu, "gpus").data] == ["cpu"]


def test_until_takes_a_numpy_datetime64_and_refuses_nat():
    """A column's ``.values`` are numpy datetime64: read as a Timestamp; NaT is no time."""
    import numpy as np
    import pandas as pd

    from slurmlab.spec.units import parse_instant

    origin = pd.Timestamp("2026-01-05")
    assert parse_instant(np.datetime64("2026-01-05T01:00"), origin) == 3600.0
    for nat in (pd.NaT, np.datetime64("NaT")):
        with pytest.raises(SlurmlabError, match=r"NaT is no time; give a date and time"):
            parse_instant(nat, origin)


def test_the_readmes_own_policy_example_runs_as_written():
    """README, "Your own policy": the example policy runs every job of its workload, checked
    by the controller (it is no built-in class), and is labelled by its class name."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("### Your own policy", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    result = scope["result"]
    assert (result.policy, result.metrics["started"]) == ("shortestfirst", 60)
    assert set(result.jobs["State"]) == {"COMPLETED"}
