"""Association limits over the account tree, limits before preemption, the PreemptModes
slurmlab models, and a victim's exit during GraceTime; one rule per test.

The cluster: node n[1-4], each 4 CPUs, 8000 MB and 2 GPUs, one partition ``main``.
``-t`` is in minutes, submit and run times in seconds.
"""

from __future__ import annotations

import pytest

from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.scenario import Scenario
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos, parse_preempt_mode
from slurmlab.spec.workload import Workload, WorkloadJob

NODES = """
NodeName=n[1-4] CPUs=4 RealMemory=8000 Gres=gpu:2
PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE
"""
BASIC = Cluster.from_slurm_conf(NODES)


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def run(*jobs: WorkloadJob, cluster=BASIC, **kw):
    return simulate(cluster, Workload(jobs), "easy", **kw)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def reasons(result, at) -> dict[str, str]:
    """squeue's (REASON) of the jobs pending at ``at``, by JOBID."""
    q = result.squeue(at=at)
    q = q[q["ST"] == "PD"]
    return dict(zip(q["JOBID"], q["NODELIST(REASON)"], strict=True))


def runs(result, jid: str) -> list[tuple[str, float, float]]:
    """The job's runs (sacct -D) as (State, Start, End) in seconds."""
    t = result.sacct(duplicates=True)
    t = t[t["JobID"] == jid]
    start = (t["Start"] - result.origin).dt.total_seconds()
    end = (t["End"] - result.origin).dt.total_seconds()
    return list(zip(t["State"], start, end, strict=True))


# -- MaxJobs: per user in the association ----------------------------------------------------------
def test_max_jobs_counts_the_users_jobs_not_the_accounts():
    """MaxJobs=1 on physics: ann and ben each run one job at once; each one's second job
    waits (AssocMaxJobsLimit) for their own first to end."""
    accounts = (Account("physics", users=("ann", "ben"), max_jobs=1),)
    result = run(
        job("a1", "-N 1 -t 10", user="ann"),
        job("a2", "-N 1 -t 10", user="ann"),
        job("b1", "-N 1 -t 10", user="ben", runtime=120),
        job("b2", "-N 1 -t 10", user="ben"),
        accounts=accounts,
    )
    assert starts(result) == {"a1": 0, "a2": 60, "b1": 0, "b2": 120}
    assert reasons(result, at=30) == {"a2": "(AssocMaxJobsLimit)", "b2": "(AssocMaxJobsLimit)"}


def test_max_jobs_is_inherited_by_a_child_account():
    """A child account without its own MaxJobs takes its parent's (sacctmgr limits are
    inherited down the tree); it still counts the user's jobs in the child account."""
    accounts = (
        Account("dept", max_jobs=1),
        Account("team", parent="dept", users=("ann",)),
    )
    result = run(
        job("a1", "-N 1 -t 10", user="ann"), job("a2", "-N 1 -t 10", user="ann"), accounts=accounts
    )
    assert starts(result) == {"a1": 0, "a2": 60}
    assert reasons(result, at=30)["a2"] == "(AssocMaxJobsLimit)"


def test_a_limit_of_zero_holds_every_job_it_covers():
    """MaxJobs=0 (association) and MaxJobsPerUser=0 (QOS) are limits, not "unset": Slurm
    holds the jobs (used 0 >= limit 0) for ever; the run ends with them pending."""
    accounts = (Account("physics", users=("ann",), max_jobs=0), Account("bio", users=("ben",)))
    qos = (Qos("frozen", max_jobs_per_user=0),)
    result = run(
        job("a", "-N 1 -t 10", user="ann"),
        job("b", "-N 1 -t 10 -q frozen", user="ben"),
        job("c", "-N 1 -t 10", user="ben"),
        accounts=accounts,
        qos=qos,
    )
    table = result.jobs.set_index("JobID")
    assert table["State"].to_dict() == {"a": "PENDING", "b": "PENDING", "c": "COMPLETED"}
    assert table["Reason"].to_dict()["a"] == "AssocMaxJobsLimit"
    assert table["Reason"].to_dict()["b"] == "QOSMaxJobsPerUserLimit"


# -- GrpTRES: an account and its children ----------------------------------------------------------
def test_a_parents_grp_tres_covers_its_child_accounts():
    """GrpTRES=gres/gpu=2 on dept counts the jobs of its children: ann (team) and cat
    (other, also under dept) share dept's two GPUs; dan (outside dept) does not."""
    accounts = (
        Account("dept", grp_tres={"gres/gpu": 2}),
        Account("team", parent="dept", users=("ann", "ben")),
        Account("other", parent="dept", users=("cat",)),
        Account("elsewhere", users=("dan",)),
    )
    result = run(
        job("a", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("b", "-N 1 --gres=gpu:2 -t 10", user="ben"),
        job("c", "-N 1 --gres=gpu:1 -t 10", user="cat"),
        job("d", "-N 1 --gres=gpu:2 -t 10", user="dan"),
        accounts=accounts,
    )
    assert starts(result) == {"a": 0, "b": 60, "c": 120, "d": 0}
    assert reasons(result, at=30) == {"b": "(AssocGrpGRES)", "c": "(AssocGrpGRES)"}


def test_the_childs_own_grp_tres_still_applies_under_a_looser_parent():
    """Every level must have room: team's GrpTRES=cpu=4 holds ben though dept allows 16."""
    accounts = (
        Account("dept", grp_tres={"cpu": 16}),
        Account("team", parent="dept", users=("ann", "ben"), grp_tres={"cpu": 4}),
    )
    result = run(
        job("a", "-N 1 -n 4 -t 10", user="ann"),
        job("b", "-N 1 -n 1 -t 10", user="ben"),
        accounts=accounts,
    )
    assert starts(result) == {"a": 0, "b": 60}
    assert reasons(result, at=30)["b"] == "(AssocGrpCpuLimit)"


# -- limits before preemption ----------------------------------------------------------------------
PREEMPT = Cluster.from_slurm_conf("PreemptType=preempt/qos\nPreemptMode=CANCEL\n" + NODES)


def _second_high_job(user: str):
    """Three scavenger jobs fill the cluster but one node, which ann's high job h1 takes;
    at t=100 a second high job h2 (QOS high, MaxJobsPerUser=1) of ``user`` arrives."""
    qos = (Qos("scav"), Qos("high", priority=100, preempt=("scav",), max_jobs_per_user=1))
    return run(
        *(
            job(f"v{i}", "-N 1 --exclusive -t 60 -q scav", runtime=3600, user="bob")
            for i in (1, 2, 3)
        ),
        job("h1", "-N 1 --exclusive -t 60 -q high", runtime=3000, user="ann"),
        job("h2", "-N 1 --exclusive -t 60 -q high", submit=100, runtime=600, user=user),
        cluster=PREEMPT,
        qos=qos,
    )


def test_a_preemptor_its_own_limit_blocks_preempts_nobody():
    """Slurm checks limits before preemption: h2 (QOS high, MaxJobsPerUser=1) waits for
    ann's h1 with QOSMaxJobsPerUserLimit and preempts no scavenger job; it starts on h1's
    node when h1 ends."""
    result = _second_high_job("ann")
    states = dict(zip(result.jobs["JobID"], result.jobs["State"], strict=True))
    assert states == {s: "COMPLETED" for s in ("v1", "v2", "v3", "h1", "h2")}
    assert starts(result)["h2"] == 3000
    assert reasons(result, at=200)["h2"] == "(QOSMaxJobsPerUserLimit)"
    assert not [e for e in result.sim.events if e[1] == "preempt"]


def test_a_preemptor_within_its_limit_still_preempts():
    """The same preemptor of another user (its limit has room) preempts at once: v1, since
    candidates of one QOS priority and node count go in Slurm's job list order (oldest first)."""
    result = _second_high_job("cat")
    assert starts(result)["h2"] == 100
    assert [e[3] for e in result.sim.events if e[1] == "preempt"] == ["v1"]


# -- PreemptMode: OFF, CANCEL and REQUEUE only --------------------------------------------------
@pytest.mark.parametrize(
    ("value", "mode"), [("off", "OFF"), ("cancel", "CANCEL"), (" Requeue ", "REQUEUE")]
)
def test_preempt_modes_slurmlab_models(value, mode):
    assert parse_preempt_mode(value) == mode


@pytest.mark.parametrize("value", ["SUSPEND", "GANG", "SUSPEND,GANG", "requeue,gang", "WITHIN"])
def test_suspend_and_gang_are_refused_not_run_as_cancel(value):
    """SUSPEND/GANG used to behave as CANCEL silently; now the error names the setting and
    what slurmlab models."""
    with pytest.raises(SlurmlabError) as info:
        parse_preempt_mode(value)
    assert f"PreemptMode={value}" in str(info.value)
    assert "slurmlab models PreemptMode OFF, CANCEL and REQUEUE" in str(info.value)
    with pytest.raises(SlurmlabError, match="QOS 'low' preempt_mode"):
        Qos("low", preempt_mode=value)


def test_an_unknown_preempt_mode_is_refused():
    with pytest.raises(SlurmlabError, match="PreemptMode=KILL: not a PreemptMode"):
        parse_preempt_mode("KILL")


def test_a_qos_preempt_mode_cluster_means_the_clusters():
    """sacctmgr's PreemptMode=cluster is the default: the QOS takes the cluster's mode."""
    assert Qos.from_dict({"name": "low", "preempt_mode": "cluster"}).preempt_mode is None
    assert Qos.from_dict({"name": "low", "preempt_mode": "requeue"}).preempt_mode == "REQUEUE"


PREEMPT_DOC = """\
cluster:
  nodes: [{{name: "n[1-2]", cpus: 4}}]
  settings:
    PreemptType: preempt/qos
    PreemptMode: {mode}
qos:
  - {{name: high, priority: 100, preempt: [low]}}
  - {{name: low{extra}}}
jobs:
  - {{id: v, runtime: 3600, args: "-N 1 --exclusive -t 2:00:00 --qos=low"}}
"""


def test_a_scenarios_cluster_preempt_mode_suspend_is_a_load_error(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(PREEMPT_DOC.format(mode="SUSPEND,GANG", extra=""))
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value).startswith(f"{path} line 5: cluster: PreemptMode=SUSPEND,GANG: ")
    assert "slurmlab models PreemptMode OFF, CANCEL and REQUEUE" in str(info.value)


def test_a_scenarios_qos_preempt_mode_gang_is_a_load_error_naming_the_entry(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(PREEMPT_DOC.format(mode="CANCEL", extra=", preempt_mode: gang"))
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value).startswith(f"{path} line 8: qos[1].preempt_mode=gang: ")


# -- GraceTime ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["CANCEL", "REQUEUE"])
def test_an_exit_during_grace_time_ends_the_job_as_it_exits(mode):
    """GraceTime=300 s; the victim selected at t=1000 ends on its own at 1030, inside the
    grace time: it ends COMPLETED, not requeued (job_mgr.c _job_complete sets the state from
    its exit; preempt.c slurm_job_preempt requeues or kills only at the grace end), and its
    preemptor starts then."""
    cluster = Cluster.from_slurm_conf(
        f"PreemptType=preempt/qos\nPreemptMode={mode}\n"
        "NodeName=n1 CPUs=4 RealMemory=8000\nPartitionName=main Nodes=n1 Default=YES\n"
    )
    qos = (Qos("low", grace_time=300), Qos("high", priority=100, preempt=("low",)))
    result = run(
        job("v", "-N 1 --exclusive -t 60 -q low", runtime=1030),
        job("hi", "-N 1 --exclusive -t 10 -q high", submit=1000, runtime=60),
        cluster=cluster,
        qos=qos,
    )
    assert runs(result, "v") == [("COMPLETED", 0, 1030)]
    assert starts(result)["hi"] == 1030
