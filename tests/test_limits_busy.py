"""QOS/association limits tested on the nodes a job would get while too few are free.

select_nodes (node_scheduler.c, Slurm 22.05), finding a job's nodes busy, picks nodes as if
every usable node were idle (``_pick_best_nodes``' test-only selection) and tests
acct_policy_job_runnable_post_select on them: up to MAX nodes of a ``-N MIN-MAX`` job, an
``--exclusive`` job's whole nodes' GRES, no node counted as its QOS's or account's yet (the
job has no allocation: ``_get_unique_job_node_cnt``), but those it names with ``-w``. Over a
limit there the job shows the limit, not Resources, and job_scheduler.c does not stop its
partition for it ("delayed for accounting policy"). Real Slurm did both in the
``limits-busy`` fixture (tests/test_fidelity.py replays it).
"""

from __future__ import annotations

import pytest

from slurmlab import Cluster, Lab, Qos

POLICIES = ("fifo", "easy", "conservative", "slurm")
GPU4 = (
    "GresTypes=gpu\nNodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=p Nodes=ALL Default=YES\n"
)
CPU8 = "NodeName=n[1-4] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES\n"


def lab_of(conf: str, policy: str, **qos) -> Lab:
    return Lab(Cluster.from_slurm_conf(conf), policy=policy, qos=[Qos("normal"), Qos("lim", **qos)])


def reason(lab: Lab, jid: int) -> str:
    return lab.squeue().set_index("JOBID").loc[str(jid), "NODELIST(REASON)"]


def state(lab: Lab, jid: int) -> str:
    return lab.sacct().set_index("JobID").loc[str(jid), "State"]


def nodelist(lab: Lab, jid: int) -> str:
    return lab.sacct().set_index("JobID").loc[str(jid), "NodeList"]


@pytest.mark.parametrize("policy", POLICIES)
def test_an_exclusive_job_over_a_gres_limit_on_whole_nodes_waits_for_the_limit(policy):
    """GrpTRES gres/gpu=8: with half the nodes busy, -N 3 --exclusive (no GPU asked for)
    would hold 12 GPUs on 3 idle nodes: QOSGrpGRES, not Resources (real: x3 in limits-busy)."""
    lab = lab_of(GPU4, policy, grp_tres="gres/gpu=8")
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=150)
    x3 = lab.sbatch("-N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(1)
    assert reason(lab, x3) == "(QOSGrpGRES)"
    lab.advance(200)  # (idle now: on the nodes it gets, 12 GPUs all the same)
    assert reason(lab, x3) == "(QOSGrpGRES)"


@pytest.mark.parametrize("policy", ["fifo", "slurm"])
def test_the_main_scheduler_does_not_stop_at_a_job_delayed_for_a_limit(policy):
    """job_scheduler.c: ESLURM_ACCOUNTING_POLICY does not fail the partition. A later 2-node
    job starts at once on the two idle nodes (real: after in limits-busy, at its submission),
    though it runs into the plan Slurm's backfill makes for x3."""
    lab = lab_of(GPU4, policy, grp_tres="gres/gpu=8")
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=150)
    x3 = lab.sbatch("-N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(10)
    after = lab.sbatch("-N 2 -t 10:00", runtime=60)
    lab.advance(1)
    assert state(lab, after) == "RUNNING" and nodelist(lab, after) == "n[3-4]"
    assert reason(lab, x3) == "(QOSGrpGRES)"


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_backfilling_policies_still_hold_its_reservation(policy):
    """EASY and conservative plan such a job as real Slurm's backfill did (x3's SCHEDNODES
    gpu[1-3] at the blocker's limit): a later job that would delay the plan waits."""
    lab = lab_of(GPU4, policy, grp_tres="gres/gpu=8")
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=150)
    x3 = lab.sbatch("-N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(10)
    after = lab.sbatch("-N 2 -t 10:00", runtime=60)
    lab.advance(1)
    assert state(lab, after) == "PENDING"
    assert lab.squeue().set_index("JOBID").loc[str(x3), "SCHEDNODES"] is not None


@pytest.mark.parametrize("policy", POLICIES)
def test_a_busy_range_job_counts_max_nodes_none_as_the_qos_s(policy):
    """GrpTRES node=2, a 1-CPU job of the QOS on n1: -N 1-2 -c 8 cannot start while every
    node is busy; on 2 idle nodes, none counted as the QOS's, 1 + 2 > 2: QOSGrpNodeLimit
    (real: rg in limits-busy). When n2 frees it starts there alone (1 + 1)."""
    lab = lab_of(CPU8, policy, grp_tres="node=2")
    lab.sbatch("-n 1 --qos=lim -t 5:00", runtime=600)  # n1
    lab.sbatch("-N 1 --exclusive -t 5:00", runtime=100)  # n2
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=600)  # n[3-4]
    rg = lab.sbatch("-N 1-2 -c 8 --qos=lim -t 5:00", runtime=30)
    lab.advance(1)
    assert reason(lab, rg) == "(QOSGrpNodeLimit)"
    text = lab.why_pending(rg)
    assert "too few nodes are free for it" in text
    assert "counting none of them as held by its QOS or account yet" in text
    assert "holds no later job of its partition back" in text
    lab.advance(100)
    assert state(lab, rg) == "RUNNING" and nodelist(lab, rg) == "n2"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_plain_job_with_a_node_limit_is_tested_on_nodes_not_yet_the_qos_s(policy):
    """GrpTRES node=2 with the QOS's 1-CPU jobs on n1 and n2: a -N 1 -c 8 job of the QOS that
    cannot start now shows QOSGrpNodeLimit (a whole idle node counts: 2 + 1), though on
    what it asks it is within the limit (the job lands on the QOS's nodes, once free)."""
    lab = lab_of(CPU8, policy, grp_tres="node=2")
    lab.sbatch("-N 2 --qos=lim -t 5:00", runtime=100)  # n[1-2], 1 CPU each
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=600)  # n[3-4]
    j = lab.sbatch("-c 8 --qos=lim -t 5:00", runtime=30)
    lab.advance(1)
    assert reason(lab, j) == "(QOSGrpNodeLimit)"
    lab.advance(100)
    assert state(lab, j) == "RUNNING"


@pytest.mark.parametrize("policy", POLICIES)
def test_nodes_named_with_w_that_the_qos_holds_are_not_counted_again(policy):
    """_get_unique_job_node_cnt with no allocation yet leaves out the nodes the job names
    (req_node_bitmap) that the QOS holds: -w n1,n2 -N 2 -c 8 beside the QOS's job on n1 is
    1 + 1 new node: within node=2, so it waits for Resources."""
    lab = lab_of(CPU8, policy, grp_tres="node=2")
    lab.sbatch("-n 1 --qos=lim -w n1 -t 5:00", runtime=100)
    j = lab.sbatch("-N 2 -w n1,n2 -c 8 --qos=lim -t 5:00", runtime=30)
    lab.advance(1)
    assert reason(lab, j) == "(Resources)"
    lab.advance(100)
    assert nodelist(lab, j) == "n[1-2]"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_over_a_limit_when_busy_keeps_it_behind_a_blocked_job(policy):
    """Behind a job that blocks its partition the main scheduler skips a job without a test
    and replaces only no reason or Resources with Priority (job_scheduler.c): x3, already
    showing its limit, keeps it behind a higher-priority job that waits for Resources; a
    job that had no reason gets Priority."""
    conf = GPU4 + "PriorityType=priority/multifactor\nPriorityWeightQOS=10000\n"
    lab = Lab(
        Cluster.from_slurm_conf(conf),
        policy=policy,
        qos=[Qos("normal"), Qos("lim", grp_tres="gres/gpu=8"), Qos("hi", priority=100)],
    )
    lab.sbatch("-N 4 --exclusive -t 5:00", runtime=100)
    x3 = lab.sbatch("-N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(1)
    assert reason(lab, x3) == "(QOSGrpGRES)"
    urgent = lab.sbatch("-N 4 --exclusive --qos=hi -t 5:00", runtime=10)
    later = lab.sbatch("-n 1 -t 5:00", runtime=10)
    lab.advance(1)
    assert reason(lab, urgent) == "(Resources)"
    assert (reason(lab, x3), reason(lab, later)) == ("(QOSGrpGRES)", "(Priority)")


def test_a_job_of_an_advance_reservation_shows_the_limit_too():
    lab = lab_of(GPU4, "easy", grp_tres="gres/gpu=8")
    lab.reserve("r1", "1h", node_count=4, users="you")
    lab.sbatch("--reservation=r1 -N 2 --exclusive -t 5:00", runtime=150)
    j = lab.sbatch("--reservation=r1 -N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(1)
    assert reason(lab, j) == "(QOSGrpGRES)"


def test_without_a_limit_on_what_it_would_get_nothing_changes():
    """A QOS with a CPU limit only (CPUs count what the job asks for while it waits: its
    min_cpus) leaves a busy -N 1-2 job waiting for Resources, blocking its partition."""
    lab = lab_of(CPU8, "fifo", grp_tres="cpu=12")
    lab.sbatch("-N 4 --exclusive -t 5:00", runtime=100)
    j = lab.sbatch("-N 1-2 -c 8 --qos=lim -t 5:00", runtime=30)
    later = lab.sbatch("-n 1 -t 5:00", runtime=30)
    lab.advance(1)
    assert reason(lab, j) == "(Resources)"
    assert reason(lab, later) == "(Priority)"


# -- the review of the change (stop 34) -----------------------------------------------------


def _node_limit_lab(policy: str) -> tuple[Lab, int, int]:
    """QOS lim GrpTRES node=2 holding n1 (1 CPU); n2 busy 2 min, n[3-4] 20 min; J (-N 2 -c 4,
    QOS lim) would hold 2 idle nodes, none counted as the QOS's: 1 + 2 > 2."""
    lab = lab_of(CPU8, policy, grp_tres="node=2")
    lab.sbatch("-n 1 --qos=lim -w n1 -t 20:00", runtime=1200)
    lab.sbatch("-N 1 --exclusive -w n2 -t 2:00", runtime=120)
    lab.sbatch("-N 2 --exclusive -w n3,n4 -t 20:00", runtime=1200)
    j = lab.sbatch("-N 2 -c 4 --qos=lim -t 5:00", runtime=30)
    big = lab.sbatch("-N 4 --exclusive -t 5:00", runtime=30)
    return lab, j, big


def test_slurms_backfill_gives_no_reservation_to_a_job_over_a_limit_on_its_plan():
    """backfill.c tests the limits on the nodes it plans (no node counted as the QOS's yet)
    and reserves nothing when that is over ("adding reservation ... blocked by
    acct_policy_job_runnable_post_select"): J gets no plan, and a small job backfills onto
    n1 at the next cycle instead of waiting behind J's reservation."""
    lab, j, _big = _node_limit_lab("slurm")
    small = lab.sbatch("-n 1 -t 5:00", runtime=300)
    lab.advance(40)
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(j), "NODELIST(REASON)"] == "(QOSGrpNodeLimit)"
    assert q.loc[str(j), "SCHEDNODES"] is None
    assert state(lab, small) == "RUNNING" and nodelist(lab, small) == "n1"


def test_a_plan_within_the_limit_is_still_reserved():
    """x3's case in limits-busy: backfill counts the GRES a job asks for (whole-node GRES
    are select_nodes'), so an --exclusive job over GrpTRES gres/gpu only on whole nodes is
    planned, as real Slurm planned it (SCHEDNODES gpu[1-3])."""
    lab = lab_of(GPU4, "slurm", grp_tres="gres/gpu=8")
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=150)
    x3 = lab.sbatch("-N 3 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(40)
    assert lab.squeue().set_index("JOBID").loc[str(x3), "SCHEDNODES"] is not None


@pytest.mark.parametrize("policy", POLICIES)
def test_the_later_job_waits_for_its_own_reason_under_every_policy(policy):
    """J blocks nothing: the 4-node job behind it waits for Resources, not for Priority (a
    standing plan once dropped J's blocks=False under conservative)."""
    lab, j, big = _node_limit_lab(policy)
    for t in (1, 30, 60):
        lab.advance(t - lab.now)
        q = lab.squeue().set_index("JOBID")
        assert q.loc[str(j), "NODELIST(REASON)"] == "(QOSGrpNodeLimit)"
        assert q.loc[str(big), "NODELIST(REASON)"] == "(Resources)"


@pytest.mark.parametrize("policy", POLICIES)
def test_the_nodes_it_would_get_leave_out_reservations_of_others(policy):
    """_get_req_features takes other reservations' nodes out before the test-only pick: with
    n[1-2] reserved for another user, -N 1-3 --exclusive would get n[3-4] (8 GPUs, within
    GrpTRES gres/gpu=8), so it waits for Resources and holds the partition."""
    lab = lab_of(GPU4, policy, grp_tres="gres/gpu=8")
    lab.reserve("r", "2h", nodes="n[1-2]", users="other")
    lab.sbatch("-N 2 --exclusive -t 5:00", runtime=150)
    x = lab.sbatch("-N 1-3 --exclusive --qos=lim -t 3:00", runtime=30)
    later = lab.sbatch("-n 1 -t 3:00", runtime=30)
    lab.advance(1)
    assert reason(lab, x) == "(Resources)"
    if policy == "fifo":
        assert reason(lab, later) == "(Priority)"


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_refused_at_a_moment_is_tried_again_when_a_job_ends_then(policy):
    """QOS node=2 and its job on n1 holding all 8 CPUs: the later QOS job waits; cancelled at
    the same moment, the first frees the room, and the waiting one starts at once."""
    for args in ("-N 2", "-N 1-2 -c 8"):
        lab = lab_of(CPU8, policy, grp_tres="node=2")
        first = lab.sbatch("-N 1 -c 8 --qos=lim -t 20:00", runtime=1200)
        lab.advance(5)
        j = lab.sbatch(f"{args} --qos=lim -t 5:00", runtime=30)
        lab.scancel(first)
        lab.advance(1)
        start = lab.sacct().set_index("JobID").loc[str(j), "Start"]
        assert (start - lab.sacct()["Submit"].min()).total_seconds() == 5, (policy, args)


def test_why_pending_does_not_blame_its_own_size_when_others_use_the_room():
    """-N 2 --exclusive holds 8 GPUs, GrpTRES gres/gpu=8, and a QOS job holds 4: over only
    with the QOS's running jobs, it starts once they end; why_pending says that, not "its
    own size ... drop --exclusive"."""
    lab = lab_of(GPU4, "slurm", grp_tres="gres/gpu=8")
    lab.sbatch("-N 1 --gres=gpu:4 --qos=lim -t 5:00", runtime=100)
    lab.sbatch("-N 3 --exclusive -t 5:00", runtime=300)
    x = lab.sbatch("-N 2 --exclusive --qos=lim -t 3:00", runtime=30)
    lab.advance(1)
    text = lab.why_pending(x)
    assert "with what the running jobs of its QOS or account hold" in text
    assert "own size" not in text
    lab.advance(300)
    assert state(lab, x) in ("RUNNING", "COMPLETED")


def test_max_is_lowered_to_the_nearest_account_node_limit():
    """acct_policy_get_max_nodes walks up the associations and stops at the first with a
    GrpTRES node= limit: a child's node=3 caps -N 1-4, though its parent allows 2."""
    from slurmlab import Account

    lab = Lab(
        Cluster.from_slurm_conf(CPU8),
        policy="easy",
        accounts=[
            Account("parent", grp_tres="node=2"),
            Account("child", parent="parent", grp_tres="node=3", users=["you"]),
        ],
    )
    j = lab.sbatch("-N 1-4 -A child -t 5:00", runtime=60)
    lab.advance(1)
    rec = lab.sim._pending_of(lab.sim.jobs[j])  # noqa: SLF001
    assert lab.sim._within_limits(lab.sim.jobs[j], rec).most == 3  # noqa: SLF001


@pytest.mark.parametrize("policy", POLICIES)
def test_exclusive_jobs_count_the_memory_slurm_allocates_them(policy):
    """--exclusive allocates all CPUs and GRES but only the memory asked for (here
    DefMemPerCPU x the node's 8 CPUs = 8000 MB, as AllocTRES shows): two such jobs of a QOS
    with GrpTRES mem=20000 both run (whole-node memory, 32000 each, would hold one back)."""
    conf = CPU8.replace("Default=YES", "Default=YES DefMemPerCPU=1000") + (
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
    )
    lab = lab_of(conf, policy, grp_tres="mem=20000")
    a = lab.sbatch("-N 1 --exclusive --qos=lim -t 5:00", runtime=60)
    b = lab.sbatch("-N 1 --exclusive --qos=lim -t 5:00", runtime=60)
    c = lab.sbatch("-N 1 --exclusive --qos=lim -t 5:00", runtime=60)
    lab.advance(1)
    assert (state(lab, a), state(lab, b)) == ("RUNNING", "RUNNING")
    assert "mem=8000M" in lab.sacct().set_index("JobID").loc[str(a), "AllocTRES"]
    assert reason(lab, c) == "(QOSGrpMemLimit)"  # (8000 x 3 > 20000)
