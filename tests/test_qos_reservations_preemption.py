"""QOS limits, advance reservations and QOS preemption, one rule per test.

The cluster: node n[1-4], each 4 CPUs, 8000 MB and 2 GPUs, one partition ``main``.
Users ann and ben are in account ``physics``, cat in ``biology``. ``-t`` is in
minutes, submit and run times in seconds.
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab.errors import RequestError, ScenarioError, SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.scenario import Scenario
from slurmlab.sim.checkpoint import Checkpoint
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos, Reservation, parse_tres_limits
from slurmlab.spec.units import expand_hostlist
from slurmlab.spec.workload import Workload, WorkloadJob

NODES = """
NodeName=n[1-4] CPUs=4 RealMemory=8000 Gres=gpu:2
PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE
"""
BASIC = Cluster.from_slurm_conf(NODES)
MULTIFACTOR = Cluster.from_slurm_conf(
    "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightQOS=10000\n"
    "PriorityCalcPeriod=1\n" + NODES
)
ACCOUNTS = (Account("physics", users=("ann", "ben")), Account("biology", users=("cat",)))
POLICIES = ("fifo", "easy", "conservative", "slurm")


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def run(*jobs: WorkloadJob, policy="easy", cluster=BASIC, **kw):
    kw.setdefault("accounts", ACCOUNTS)
    return simulate(cluster, Workload(jobs), policy, **kw)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def column(result, name: str) -> dict:
    return dict(zip(result.jobs["JobID"], result.jobs[name], strict=True))


def reasons(result, at) -> dict[str, str]:
    """squeue's NODELIST(REASON) at ``at``, by JOBID."""
    q = result.squeue(at=at)
    return dict(zip(q["JOBID"], q["NODELIST(REASON)"], strict=True))


def intervals(result):
    """Every run as (JobID, User, GPUs, start, end, node names), from sacct -D."""
    t = result.jobs_all_runs
    t = t[t["Start"].notna()]
    start = (t["Start"] - result.origin).dt.total_seconds()
    end = (t["End"] - result.origin).dt.total_seconds()
    return [
        (jid, user, int(g), s, e, set(expand_hostlist(nl)))
        for jid, user, g, s, e, nl in zip(
            t["JobID"], t["User"], t["NGPUS"], start, end, t["NodeList"], strict=True
        )
    ]


# -- QOS limits ----------------------------------------------------------------------------------
def test_max_jobs_per_user_holds_the_users_next_job():
    """MaxJobsPerUser=1: ann's second job waits (QOSMaxJobsPerUserLimit) though nodes are idle;
    cat's job is not held back by ann's limit."""
    result = run(
        job("a1", "-N 1 -t 10", user="ann"),
        job("a2", "-N 1 -t 10", user="ann"),
        job("c1", "-N 1 -t 10", user="cat"),
        qos=[Qos("normal", max_jobs_per_user=1)],
    )
    assert starts(result) == {"a1": 0, "a2": 60, "c1": 0}
    assert reasons(result, at=30)["a2"] == "(QOSMaxJobsPerUserLimit)"


def test_max_tres_per_user_caps_a_users_gpus():
    """MaxTRESPerUser=gres/gpu=2: ann's second 2-GPU job pends with QOSMaxGRESPerUser."""
    result = run(
        job("g1", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("g2", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("c1", "-N 1 --gres=gpu:2 -t 10", user="cat"),
        qos=[Qos("normal", max_tres_per_user={"gres/gpu": 2})],
    )
    assert starts(result) == {"g1": 0, "g2": 60, "c1": 0}
    assert reasons(result, at=30)["g2"] == "(QOSMaxGRESPerUser)"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_refused_by_a_limit_does_not_hold_nodes_for_others(policy):
    """Within one pass, a job the limit refuses leaves its nodes to the next jobs at once.

    ann's g2 is refused (ann already holds 2 GPUs with g1); the four other jobs fill the
    four nodes at t=0 under every policy.
    """
    result = run(
        job("g1", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("g2", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("c1", "-N 1 --gres=gpu:2 -t 10", user="cat"),
        job("b1", "-N 1 --gres=gpu:2 -t 10", user="ben"),
        job("c2", "-N 1 --gres=gpu:2 -t 10 -q free", user="cat"),
        qos=[Qos("normal", max_tres_per_user={"gres/gpu": 2}), Qos("free")],
        policy=policy,
    )
    assert starts(result) == {"g1": 0, "g2": 60, "c1": 0, "b1": 0, "c2": 0}


def test_max_tres_per_user_counts_only_jobs_of_that_qos():
    """The per-user limit belongs to the QOS: ann's job in another QOS does not count."""
    result = run(
        job("g1", "-N 1 --gres=gpu:2 -t 10 -q free", user="ann"),
        job("g2", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        qos=[Qos("normal", max_tres_per_user={"gres/gpu": 2}), Qos("free")],
    )
    assert starts(result) == {"g1": 0, "g2": 0}


def test_grp_tres_caps_all_jobs_of_a_qos_together():
    """GrpTRES=gres/gpu=4 on QOS ``shared``: the third 2-GPU job, any user, pends QOSGrpGRES."""
    result = run(
        job("a", "-N 1 --gres=gpu:2 -t 10 -q shared", user="ann"),
        job("b", "-N 1 --gres=gpu:2 -t 10 -q shared", user="ben"),
        job("c", "-N 1 --gres=gpu:2 -t 10 -q shared", user="cat"),
        qos=[Qos("shared", grp_tres={"gres/gpu": 4})],
    )
    assert starts(result) == {"a": 0, "b": 0, "c": 60}
    assert reasons(result, at=30)["c"] == "(QOSGrpGRES)"


def test_max_wall_keeps_a_longer_job_pending_for_ever():
    """MaxWall=30 minutes: a job asking -t 60 never starts (QOSMaxWallDurationPerJobLimit);
    the simulation still ends when the other jobs are done."""
    for cluster in (BASIC, MULTIFACTOR):
        result = run(
            job("long", "-N 1 -t 60 -q short", user="ann"),
            job("ok", "-N 1 -t 30 -q short", user="ann"),
            qos=[Qos("short", max_wall=timedelta(minutes=30))],
            cluster=cluster,
        )
        assert column(result, "State") == {"long": "PENDING", "ok": "COMPLETED"}
        assert column(result, "Reason")["long"] == "QOSMaxWallDurationPerJobLimit"


def test_a_job_over_a_per_user_limit_on_its_own_never_starts_and_the_simulation_ends():
    """A request larger than MaxTRESPerUser pends for ever (QOSMaxGRESPerUser), under any
    priority type, and does not keep simulated time running."""
    for cluster in (BASIC, MULTIFACTOR):
        result = run(
            job("huge", "-N 2 --gres=gpu:2 -t 10", user="ann"),
            job("fits", "-N 1 --gres=gpu:2 -t 10", user="ann"),
            qos=[Qos("normal", max_tres_per_user={"gres/gpu": 2})],
            cluster=cluster,
        )
        assert column(result, "State") == {"huge": "PENDING", "fits": "COMPLETED"}
        assert column(result, "Reason")["huge"] == "QOSMaxGRESPerUser"
        assert result.sim.now < 600


def test_account_grp_tres_caps_the_accounts_jobs_together():
    """An account's GrpTRES=gres/gpu=2: ben waits (AssocGrpGRES) while ann uses physics' GPUs."""
    accounts = (
        Account("physics", users=("ann", "ben"), grp_tres={"gres/gpu": 2}),
        Account("biology", users=("cat",)),
    )
    result = run(
        job("a", "-N 1 --gres=gpu:2 -t 10", user="ann"),
        job("b", "-N 1 --gres=gpu:2 -t 10", user="ben"),
        job("c", "-N 1 --gres=gpu:2 -t 10", user="cat"),
        accounts=accounts,
    )
    assert starts(result) == {"a": 0, "b": 60, "c": 0}
    assert reasons(result, at=30)["b"] == "(AssocGrpGRES)"


def test_account_max_jobs_holds_each_users_next_job():
    """An account's MaxJobs=1 is per user (sacctmgr(1): "each user ... in this association"):
    ann's second physics job pends with AssocMaxJobsLimit; ben's first one starts."""
    accounts = (Account("physics", users=("ann", "ben"), max_jobs=1),)
    result = run(
        job("a", "-N 1 -t 10", user="ann"),
        job("a2", "-N 1 -t 10", user="ann"),
        job("b", "-N 1 -t 10", user="ben"),
        accounts=accounts,
    )
    assert starts(result) == {"a": 0, "a2": 60, "b": 0}
    assert reasons(result, at=30)["a2"] == "(AssocMaxJobsLimit)"


def test_an_unknown_qos_is_rejected_at_submission():
    """--qos must name a QOS that exists (sbatch: Invalid qos specification)."""
    with pytest.raises(RequestError, match="Invalid qos specification"):
        run(job("a", "-N 1 -t 10 -q gold", user="ann"))


def test_an_unknown_account_is_rejected_at_submission():
    """With an account tree, a user outside it (or a wrong -A) is rejected at submission."""
    with pytest.raises(RequestError, match="Invalid account"):
        run(job("a", "-N 1 -t 10", user="zoe"))
    with pytest.raises(RequestError, match="Invalid account"):
        run(job("a", "-N 1 -t 10 -A chemistry", user="ann"))


def test_a_user_may_charge_only_an_account_that_lists_them():
    """Slurm (AccountingStorageEnforce=associations) rejects -A for an account the user has
    no association with; a tree whose accounts list no users at all gives each user an
    implicit association (1 share) under the account it charges."""
    with pytest.raises(RequestError, match="user 'cat' account 'physics': Invalid account"):
        run(job("a", "-N 1 -t 10 -A physics", user="cat"))
    open_tree = (Account("physics"), Account("biology"))
    result = run(job("a", "-N 1 -t 10 -A physics", user="cat"), accounts=open_tree)
    assert result.jobs.set_index("JobID").loc["a", "Account"] == "physics"


def test_qos_preempt_must_name_known_qos():
    """A QOS may only preempt QOS that exist."""
    with pytest.raises(SlurmlabError, match="unknown QOS 'ghost'"):
        run(job("a", "-N 1 -t 10", user="ann"), qos=[Qos("high", preempt=("ghost",))])


def test_tres_limits_parse_like_sacctmgr():
    """``gres/gpu=16,cpu=64,mem=1G`` (or ``gpu=16``) -> counts; memory in MB."""
    assert parse_tres_limits("gres/gpu=16,cpu=64,mem=1G") == {
        "gres/gpu": 16,
        "cpu": 64,
        "mem": 1024,
    }
    assert parse_tres_limits({"gpu": 2}) == {"gres/gpu": 2}
    with pytest.raises(SlurmlabError, match="unknown TRES 'disk'"):
        parse_tres_limits("disk=5")


jobs_strategy = st.lists(
    st.tuples(
        st.sampled_from(["ann", "ben", "cat"]),
        st.integers(0, 600),  # submit
        st.integers(1, 2),  # nodes
        st.integers(0, 2),  # GPUs per node
        st.integers(30, 900),  # run time
        st.integers(5, 20),  # time limit, minutes
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs_strategy, st.sampled_from(POLICIES), st.booleans())
def test_a_user_never_exceeds_max_tres_per_user(specs, policy, multifactor):
    """Replaying the job table: at every instant each user holds at most MaxTRESPerUser GPUs."""
    limit = 3
    jobs = [
        job(f"j{i}", f"-N {n} --gres=gpu:{g} -t {t}", submit=s, runtime=r, user=u)
        for i, (u, s, n, g, r, t) in enumerate(specs)
    ]
    result = run(
        *jobs,
        policy=policy,
        cluster=MULTIFACTOR if multifactor else BASIC,
        qos=[Qos("normal", max_tres_per_user={"gres/gpu": limit})],
    )
    runs = intervals(result)
    for _jid, user, _g, s, _e, _nodes in runs:
        held = sum(g for _j, u, g, s2, e2, _n in runs if u == user and s2 <= s < e2)
        assert held <= limit
    state = column(result, "State")
    for i, (_u, _s, n, g, _r, _t) in enumerate(specs):
        assert (state[f"j{i}"] == "PENDING") == (n * g > limit)


# -- reservations --------------------------------------------------------------------------------
#: ``launch``: n[3-4] for ann, from t=3600 for 2 hours.
LAUNCH = Reservation("launch", start=3600, duration=7200, nodes=("n3", "n4"), users=("ann",))


def test_a_reservation_job_starts_at_the_window_on_the_reserved_nodes():
    """--reservation: the job waits (Reservation) until the window opens, then runs on its nodes."""
    result = run(
        job("train", "-N 2 -t 60 --reservation=launch", runtime=1800, user="ann"),
        reservations=[LAUNCH],
    )
    assert starts(result) == {"train": 3600}
    assert column(result, "NodeList") == {"train": "n[3-4]"}
    assert reasons(result, at=100) == {"train": "(Reservation)"}


def test_a_reservation_job_stays_on_the_reserved_nodes_even_when_others_are_idle():
    """Jobs inside a reservation are confined to its nodes: a third one waits for them."""
    result = run(
        job("r1", "-N 1 --exclusive -t 60 --reservation=launch", submit=3600, user="ann"),
        job("r2", "-N 1 --exclusive -t 60 --reservation=launch", submit=3600, user="ann"),
        job("r3", "-N 1 --exclusive -t 60 --reservation=launch", submit=3600, user="ann"),
        reservations=[LAUNCH],
    )
    assert starts(result) == {"r1": 3600, "r2": 3600, "r3": 3660}
    assert set(column(result, "NodeList").values()) == {"n3", "n4"}


def test_a_job_for_an_ended_reservation_never_starts():
    """After the window, a job asking for the reservation pends with InvalidReservation."""
    result = run(
        job("late", "-N 1 -t 10 --reservation=launch", submit=10_800, user="ann"),
        reservations=[LAUNCH],
    )
    assert column(result, "State") == {"late": "PENDING"}
    assert column(result, "Reason") == {"late": "InvalidReservation"}


def test_short_evaluation_job_fills_the_gap_before_a_reservation_and_long_one_waits():
    """The seed's core example: a job may use reserved-soon nodes only if it ends before the
    reservation starts.

    A whole-cluster reservation for ann starts at t=3600. At t=0 ``eval-short`` (-t 30,
    ends by 1800) runs on it; ``eval-long`` (-t 90) would still run at 3600 and waits until
    the reservation ends at 10800; ann's ``train`` starts exactly at 3600.
    """
    resv = Reservation("big", start=3600, duration=7200, node_count=4, users=("ann",))
    result = run(
        job("eval-short", "-N 4 --exclusive -t 30", runtime=1500, user="ben"),
        job("eval-long", "-N 1 --exclusive -t 90", runtime=1500, user="ben"),
        job("train", "-N 4 --exclusive -t 120 --reservation=big", runtime=7000, user="ann"),
        reservations=[resv],
    )
    assert starts(result) == {"eval-short": 0, "eval-long": 10_800, "train": 3600}


@pytest.mark.parametrize("policy", POLICIES)
def test_reserved_nodes_take_short_jobs_only(policy):
    """With n[3-4] reserved from t=3600, every policy puts a 1-hour job on them at once and
    keeps a 2-hour one off them (it runs on n[1-2] or waits for the end of the window)."""
    result = run(
        job("busy", "-N 2 --exclusive -t 600", runtime=36_000, user="cat"),
        job("hour", "-N 2 --exclusive -t 60", runtime=3000, user="ben"),
        job("two-hours", "-N 2 --exclusive -t 120", runtime=3000, user="ben"),
        reservations=[LAUNCH],
        policy=policy,
    )
    s = starts(result)
    assert s["hour"] < 60
    assert s["two-hours"] == 10_800
    assert column(result, "NodeList")["hour"] == "n[3-4]"


def test_non_members_are_denied_the_reservation():
    """--reservation by a user or account it does not admit: Access denied at submission."""
    with pytest.raises(RequestError, match="Access denied to requested reservation"):
        run(job("x", "-N 1 -t 10 --reservation=launch", user="ben"), reservations=[LAUNCH])


def test_a_reservation_admits_whole_accounts():
    """A reservation for account physics admits ben too."""
    resv = Reservation("phys", start=0, duration=3600, nodes=("n1",), accounts=("physics",))
    result = run(job("x", "-N 1 -t 10 --reservation=phys", user="ben"), reservations=[resv])
    assert column(result, "NodeList") == {"x": "n1"}


def test_an_unknown_reservation_is_rejected_at_submission():
    """--reservation must name an existing reservation."""
    with pytest.raises(RequestError, match="Requested reservation is invalid"):
        run(job("x", "-N 1 -t 10 --reservation=nope", user="ann"))


def test_reservations_are_validated():
    """A reservation needs a positive duration, nodes or a node count, and someone to admit."""
    with pytest.raises(SlurmlabError, match="duration must be positive"):
        Reservation("r", start=0, duration=0, node_count=1, users=("ann",))
    with pytest.raises(SlurmlabError, match="give nodes or node_count"):
        Reservation("r", start=0, duration=10, users=("ann",))
    with pytest.raises(SlurmlabError, match="give users or accounts"):
        Reservation("r", start=0, duration=10, node_count=1)
    with pytest.raises(SlurmlabError, match="unknown nodes"):
        run(
            job("x", "-N 1 -t 10", user="ann"),
            reservations=[Reservation("r", 0, 10, nodes=("n9",), users=("ann",))],
        )


reservation_workloads = st.lists(
    st.tuples(
        st.sampled_from(["ann", "ben", "cat"]),
        st.integers(0, 5000),  # submit
        st.integers(1, 2),  # nodes
        st.integers(60, 3000),  # run time
        st.integers(5, 60),  # time limit, minutes
        st.booleans(),  # asks for the reservation (ann only)
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reservation_workloads,
    st.sampled_from(POLICIES),
    st.integers(0, 4000),
    st.integers(600, 4000),
)
def test_no_job_runs_inside_a_reservation_it_does_not_belong_to(specs, policy, start, length):
    """On reserved nodes, no other job's [Start, End) overlaps the window; jobs of the
    reservation run only inside it, only on its nodes."""
    resv = Reservation("r", start=start, duration=length, nodes=("n2", "n3"), users=("ann",))
    jobs = [
        job(
            f"j{i}",
            f"-N {n} -t {t}" + (" --reservation=r" if inside and u == "ann" else ""),
            submit=s,
            runtime=r,
            user=u,
        )
        for i, (u, s, n, r, t, inside) in enumerate(specs)
    ]
    result = run(*jobs, policy=policy, reservations=[resv])
    members = {f"j{i}" for i, (u, *_rest, inside) in enumerate(specs) if inside and u == "ann"}
    for jid, _u, _g, s, e, nodes in intervals(result):
        if jid in members:
            assert resv.start <= s < resv.end
            assert nodes <= {"n2", "n3"}
        elif nodes & {"n2", "n3"}:
            assert e <= resv.start or s >= resv.end


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reservation_workloads,
    st.sampled_from(POLICIES),
    st.integers(60, 4000),
    st.sampled_from([True, False]),
)
def test_backfill_never_delays_a_reservation_start(specs, policy, start, multifactor):
    """Whatever else runs, a job waiting for its reservation starts when the window opens."""
    resv = Reservation("r", start=start, duration=3600, node_count=2, users=("ann",))
    others = [
        job(f"j{i}", f"-N {n} -t {t}", submit=s, runtime=r, user=u)
        for i, (u, s, n, r, t, _inside) in enumerate(specs)
    ]
    train = job("train", "-N 2 --exclusive -t 60 --reservation=r", runtime=3600, user="ann")
    result = run(
        train,
        *others,
        policy=policy,
        reservations=[resv],
        cluster=MULTIFACTOR if multifactor else BASIC,
    )
    assert starts(result)["train"] == start


def test_reservations_load_from_a_scenario(tmp_path):
    """A scenario's ``reservations`` section: nodes as a hostlist, times as [D-]HH:MM:SS."""
    (tmp_path / "s.yaml").write_text(
        """
cluster: {nodes: [{name: "n[1-4]", cpus: 4, memory: 8000}]}
accounts: [{name: physics, users: [ann, ben]}]
reservations:
  - {name: launch, start: "1:00:00", duration: "2:00:00", nodes: "n[3-4]", users: [ann]}
jobs:
  - {id: train, runtime: 600, args: "-N 2 -t 60 --reservation=launch", user: ann}
  - {id: eval, runtime: 600, args: "-N 4 -t 120", user: ben}
"""
    )
    scenario = Scenario.load(tmp_path / "s.yaml")
    assert scenario.reservations == (
        Reservation("launch", 3600, 7200, nodes=("n3", "n4"), users=("ann",)),
    )
    assert starts(scenario.run()) == {"train": 3600, "eval": 10_800}


# -- preemption ----------------------------------------------------------------------------------
def preempt_cluster(mode: str = "REQUEUE", ptype: str = "preempt/qos") -> Cluster:
    """Two 4-CPU nodes with PreemptType/PreemptMode set."""
    return Cluster.from_slurm_conf(
        f"PreemptType={ptype}\nPreemptMode={mode}\n"
        "NodeName=m[1-2] CPUs=4 RealMemory=8000\n"
        "PartitionName=main Nodes=m[1-2] Default=YES MaxTime=INFINITE\n"
    )


#: ``high`` may preempt ``scavenger`` only; ``normal`` is the default QOS.
PREEMPT_QOS = (Qos("scavenger"), Qos("high", priority=1000, preempt=("scavenger",)))


def preempt_run(*jobs, mode="REQUEUE", ptype="preempt/qos", qos=PREEMPT_QOS, **kw):
    return run(*jobs, cluster=preempt_cluster(mode, ptype), qos=qos, **kw)


def test_preemption_picks_only_qos_listed_in_preempt():
    """preempt/qos: ``urgent`` (QOS high) preempts the scavenger job, never the normal one,
    even though the normal job has the lower priority (submitted later)."""
    result = preempt_run(
        job("scav", "-N 1 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("norm", "-N 1 --exclusive -t 60", runtime=3000, user="ben"),
        job("urgent", "-N 1 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        mode="CANCEL",
    )
    assert column(result, "State") == {
        "scav": "PREEMPTED",
        "norm": "COMPLETED",
        "urgent": "COMPLETED",
    }
    assert starts(result)["urgent"] == 100
    assert column(result, "NodeList")["urgent"] == column(result, "NodeList")["scav"]


def test_no_preemption_while_the_victims_would_not_free_enough():
    """A preemptor needing both nodes preempts nobody while the other node runs an
    unpreemptable job; when that one ends (t=1000), preempting the scavenger suffices."""
    result = preempt_run(
        job("scav", "-N 1 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("norm", "-N 1 --exclusive -t 60", runtime=1000, user="ben"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        mode="CANCEL",
    )
    t = result.jobs.set_index("JobID")
    assert t.loc["scav", "State"] == "PREEMPTED"
    assert (t.loc["scav", "End"] - result.origin).total_seconds() == 1000
    assert starts(result)["urgent"] == 1000


def test_a_qos_without_a_preempt_list_does_not_preempt():
    """Priority alone does not preempt: QOS ``top`` (priority 5000, no preempt list) waits."""
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=1000, user="ann"),
        job("vip", "-N 1 --exclusive -t 10 -q top", submit=100, user="cat"),
        qos=(*PREEMPT_QOS, Qos("top", priority=5000)),
    )
    assert column(result, "State")["scav"] == "COMPLETED"
    assert starts(result)["vip"] == 1000


def test_cancel_mode_ends_the_victim_preempted_for_good():
    """PreemptMode=CANCEL: the victim ends PREEMPTED at the preemption and never runs again."""
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        mode="CANCEL",
    )
    t = result.jobs.set_index("JobID")
    assert t.loc["scav", "State"] == "PREEMPTED"
    assert (t.loc["scav", "End"] - result.origin).total_seconds() == 100
    assert t.loc["scav", "Restarts"] == 0
    assert len(result.sacct(duplicates=True)) == 2


def test_requeue_mode_runs_the_victim_again():
    """PreemptMode=REQUEUE: the victim's run ends PREEMPTED, it pends again (same JobID,
    Restarts=1), becomes eligible after the requeue delay and reruns from the start."""
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=1000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
    )
    runs = result.sacct(duplicates=True)
    scav = runs[runs["JobID"] == "scav"]
    assert list(scav["State"]) == ["PREEMPTED", "COMPLETED"]
    seconds = (scav[["Start", "End"]] - result.origin).apply(lambda c: c.dt.total_seconds())
    assert seconds.values.tolist() == [[0, 100], [700, 1700]]
    assert column(result, "Restarts")["scav"] == 1
    assert starts(result)["urgent"] == 100


def test_a_checkpointed_victim_resumes_from_its_checkpoint():
    """With checkpoints every 100 s of work (restart cost 10 s), a victim preempted at t=350
    keeps 300 s of work: its second run takes 10 + 700 s."""
    ckpt = Checkpoint(interval=100, write_cost=0, restart_cost=10)
    result = preempt_run(
        job(
            "scav",
            "-N 2 --exclusive -t 60 -q scavenger",
            runtime=1000,
            user="ann",
            checkpoint=ckpt,
        ),  # fmt: skip
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=350, runtime=200, user="cat"),
    )
    runs = result.sacct(duplicates=True)
    scav = runs[runs["JobID"] == "scav"]
    seconds = (scav[["Start", "End"]] - result.origin).apply(lambda c: c.dt.total_seconds())
    assert list(scav["State"]) == ["PREEMPTED", "COMPLETED"]
    assert seconds.values.tolist() == [[0, 350], [550, 1260]]


def test_grace_time_delays_the_preemption():
    """GraceTime=120 s on the victim's QOS: it runs on until 120 s after the preemptor
    arrives, which starts then."""
    qos = (Qos("scavenger", grace_time=120), Qos("high", priority=1000, preempt=("scavenger",)))
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        qos=qos,
        mode="CANCEL",
    )
    t = result.jobs.set_index("JobID")
    assert (t.loc["scav", "End"] - result.origin).total_seconds() == 220
    assert t.loc["scav", "State"] == "PREEMPTED"
    assert starts(result)["urgent"] == 220


def test_the_victims_qos_preempt_mode_overrides_the_clusters():
    """A QOS PreemptMode applies to jobs *of* that QOS: scavenger's CANCEL beats the
    cluster's REQUEUE; PreemptMode=OFF on a QOS is the cluster's mode (sacctmgr(1);
    preempt_qos.c ``_job_preempt_mode`` takes the QOS's only when it is not OFF, 0), so its
    jobs are requeued as the cluster says, and a warning says so."""
    qos = (
        Qos("scavenger", preempt_mode="CANCEL"),
        Qos("high", priority=1000, preempt=("scavenger",), preempt_mode="REQUEUE"),
    )
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        qos=qos,
    )
    assert column(result, "State")["scav"] == "PREEMPTED"
    assert column(result, "Restarts")["scav"] == 0
    with pytest.warns(UserWarning, match="Slurm reads OFF as the cluster's PreemptMode"):
        off = (Qos("scavenger", preempt_mode="OFF"), PREEMPT_QOS[1])
    assert off[0].preempt_mode is None
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        qos=off,
    )
    assert column(result, "Restarts")["scav"] == 1  # (the cluster's REQUEUE)
    assert starts(result)["urgent"] == 100


@pytest.mark.parametrize(("ptype", "mode"), [("preempt/none", "REQUEUE"), ("preempt/qos", "OFF")])
def test_preempt_type_and_mode_that_slurmctld_refuses_are_refused(ptype, mode):
    """PreemptType=preempt/none with a PreemptMode, or preempt/qos with PreemptMode=OFF:
    slurmctld refuses to start ("PreemptType and PreemptMode values incompatible",
    read_config.c); until stop 28 slurmlab ran them with no preemption, silently."""
    with pytest.raises(SlurmlabError, match="PreemptType and PreemptMode values incompatible"):
        preempt_run(
            job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
            job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
            ptype=ptype,
            mode=mode,
        )


def test_no_preemption_without_preempt_qos():
    """PreemptType=preempt/none (and no PreemptMode): the high job simply waits."""
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
        ptype="preempt/none",
        mode="OFF",
    )
    assert column(result, "State") == {"scav": "COMPLETED", "urgent": "COMPLETED"}
    assert starts(result) == {"scav": 0, "urgent": 3000}


def test_preemption_events_name_the_preemptor():
    """The event log records each preemption and who caused it."""
    result = preempt_run(
        job("scav", "-N 2 --exclusive -t 60 -q scavenger", runtime=3000, user="ann"),
        job("urgent", "-N 2 --exclusive -t 10 -q high", submit=100, runtime=600, user="cat"),
    )
    ev = result.events
    assert isinstance(ev, pd.DataFrame)
    pre = [tuple(r) for r in result.sim.events if r[1] == "preempt"]
    assert pre == [(100, "preempt", 1, "scav", "by urgent")]


def test_qos_and_accounts_load_from_a_scenario(tmp_path):
    """Scenario sections ``qos`` and ``accounts`` become Qos and Account values (sacctmgr's)."""
    (tmp_path / "s.yaml").write_text(
        """
cluster: {nodes: [{name: "n[1-2]", cpus: 4, memory: 8000, gres: "gpu:2"}]}
accounts:
  - {name: physics, shares: 70, users: [ann], grp_tres: "gres/gpu=2", max_jobs: 3}
qos:
  - {name: low}
  - {name: high, priority: 100, preempt: low, grace_time: "0:02:00", max_wall: "1:00:00",
     max_jobs_per_user: 2, max_tres_per_user: "gres/gpu=4", grp_tres: {gpu: 8}}
jobs:
  - {id: a, runtime: 60, args: "-N 1 --gres=gpu:2 -t 10 -q high", user: ann}
  - {id: b, runtime: 60, args: "-N 1 --gres=gpu:2 -t 10 -q high", user: ann}
"""
    )
    scenario = Scenario.load(tmp_path / "s.yaml")
    assert scenario.accounts == (
        Account("physics", 70.0, users=("ann",), grp_tres={"gres/gpu": 2}, max_jobs=3),
    )
    assert scenario.qos == (
        Qos("low"),
        Qos(
            "high", priority=100, preempt=("low",), grace_time=120.0, max_jobs_per_user=2,
            max_tres_per_user={"gres/gpu": 4}, grp_tres={"gres/gpu": 8},
            max_wall=timedelta(hours=1),
        ),
    )  # fmt: skip
    # QOS high's GrpTRES gres/gpu=8 overrides physics' gres/gpu=2 (acct_policy.c skips an
    # association limit the QOS sets): both start; without the QOS's, physics' holds b back
    assert starts(scenario.run()) == {"a": 0, "b": 0}
    text = (tmp_path / "s.yaml").read_text().replace(", grp_tres: {gpu: 8}", "")
    (tmp_path / "s.yaml").write_text(text)
    assert starts(Scenario.load(tmp_path / "s.yaml").run()) == {"a": 0, "b": 60}


def test_scenario_sections_reject_unknown_fields(tmp_path):
    """A misspelt field in qos/accounts/reservations is an error naming the entry."""
    from slurmlab.errors import ScenarioError

    doc = {
        "cluster": "tiny",
        "qos": [{"name": "high", "priorty": 5}],
        "jobs": [{"runtime": 60, "args": "-N 1"}],
    }
    with pytest.raises(ScenarioError, match=r"qos\[0\]: unknown field\(s\) \['priorty'\]"):
        Scenario.from_dict(doc)


def test_a_plain_string_is_one_name_never_its_letters():
    """users="alice" is the user alice (not a, l, i, c, e); nodes may be a hostlist."""
    from slurmlab import Account, Lab, Qos, Reservation
    from slurmlab.errors import RequestError

    assert Account("llm", users="alice").users == ("alice",)
    assert Qos("high", preempt="normal").preempt == ("normal",)
    r = Reservation("r", 0, 3600, nodes="node[1-2]", users="alice", accounts="llm")
    assert (r.nodes, r.users, r.accounts) == (("node1", "node2"), ("alice",), ("llm",))
    lab = Lab("tiny", reservations=[Reservation("r", 0, 3600, nodes="node1", users="alice")])
    with pytest.raises(RequestError, match="Access denied"):
        lab.sbatch("-N 1 -t 10 --reservation=r", user="ali")
    assert lab.sbatch("-N 1 -t 10 --reservation=r", user="alice") == 1
    with pytest.raises(SlurmlabError, match="give a name or a list of names"):
        Account("llm", users=5)


def test_python_objects_take_text_numbers_and_reject_wrong_types():
    """Built in Python, the specs read numbers given as text or durations, and a wrong type
    is a SlurmlabError naming what to build (never a raw TypeError/AttributeError later)."""
    import slurmlab
    from slurmlab import Checkpoint, Lab, NodeFailure, Qos, RandomFailures, Reservation

    assert Qos("high", priority="10").priority == 10
    assert Reservation("r", "1:00:00", "30m", node_count=1, users="you").start == 3600
    assert NodeFailure("node1", at="1h").at == 3600
    assert RandomFailures(mtbf="30d").mtbf == 30 * 86400
    assert Checkpoint(interval="1h").interval == 3600
    bad = [
        (lambda: Lab("tiny", accounts=[{"name": "a"}]), "not a slurmlab.Account"),
        (lambda: Lab("tiny", qos=["high"]), "not a slurmlab.Qos"),
        (
            lambda: slurmlab.simulate("tiny", slurmlab.ai_workload(5, "tiny"), failures=["node1"]),
            "not a slurmlab.NodeFailure",
        ),  # (a dict is read as a scenario's failures entry: stop 43)
        (lambda: Qos("high", priority="lots"), "priority"),
        (
            lambda: slurmlab.WorkloadJob(slurmlab.JobSpec(), 0, 5, checkpoint={"interval": 5}),
            "not a slurmlab.Checkpoint",
        ),  # noqa: E501
        (lambda: slurmlab.WorkloadJob(slurmlab.JobSpec(), float("nan"), 5), "submit nan"),
    ]
    for make, message in bad:
        with pytest.raises(SlurmlabError, match=message):
            make()
    run = slurmlab.simulate(
        "tiny", slurmlab.ai_workload(5, "tiny"), failures=[{"node": "node1", "at": 5}]
    )
    assert "node_down" in set(run.events["event"])


def test_reservations_do_not_share_nodes_over_one_window():
    """A node_count reservation takes the lowest nodes no overlapping reservation holds; two
    reservations naming one node over overlapping windows are refused (Requested nodes are
    busy); so are a QOS preempting itself and a user listed twice."""
    from slurmlab import Account, Lab, Qos, Reservation

    lab = Lab(
        "tiny",
        reservations=[
            Reservation("a", 0, 3600, node_count=2, users="you"),
            Reservation("b", 1800, 3600, node_count=2, users="you"),
            Reservation("c", 7200, 3600, node_count=4, users="you"),  # later: any nodes
        ],
    )
    held = {
        name: tuple(lab.sim.node_names[i] for i in m.nonzero()[0])
        for name, (_r, m) in lab.sim.reservations.items()
    }  # noqa: E501
    assert held == {
        "a": ("node1", "node2"),
        "b": ("node3", "node4"),
        "c": ("node1", "node2", "node3", "node4"),
    }  # noqa: E501
    with pytest.raises(
        SlurmlabError, match="Requested nodes are busy: node2 is held by reservation 'a'"
    ):
        Lab("tiny", reservations=[
            Reservation("a", 0, 3600, nodes="node[1-2]", users="you"),
            Reservation("b", 100, 60, nodes="node2", users="you"),
        ])  # fmt: skip
    with pytest.raises(SlurmlabError, match="cannot preempt itself"):
        Qos("high", preempt=["normal", "high"])
    with pytest.raises(SlurmlabError, match="listed twice"):
        Account("llm", users=["alice", "alice"])


def test_a_scenario_with_overlapping_reservations_names_the_entry(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\n"
        "jobs:\n  - {submit: 0, runtime: 60, args: '-t 10'}\n"
        "reservations:\n"
        "  - {name: a, start: 0, duration: 3600, nodes: 'node[1-3]', users: [user]}\n"
        "  - {name: b, start: 60, duration: 60, node_count: 2, users: [user]}\n"
    )
    with pytest.raises(
        ScenarioError, match=r"line 6: reservations\[1\]: .*Requested nodes are busy"
    ):
        Scenario.load(path)
