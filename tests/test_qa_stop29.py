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
