"""``sbatch -N MIN-MAX``: a job that runs on MIN nodes and takes up to MAX when they are free.

Slurm 22.05 (node_scheduler.c ``get_node_cnts``): the select plugin is asked for
``req_nodes`` = MAX (unless ``--use-min-nodes``) and accepts MIN; the main scheduler takes
what is free now, backfill what its plans leave free over the job's window, and a planned
start reserves up to MAX of the nodes free throughout it. cons_tres ``_eval_nodes`` picks
runs of nodes as for a fixed count, a run being *enough* when it holds MIN.
"""

from __future__ import annotations

import numpy as np
import pytest

from slurmlab import Cluster, Lab, Qos
from slurmlab.errors import PolicyError, RequestError
from slurmlab.policies import Decision, Request, Start, choose_nodes
from slurmlab.policies.profile import Profile
from slurmlab.spec.job import JobSpec

POLICIES = ("fifo", "easy", "conservative", "slurm")
SIX = "NodeName=n[1-6] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES\n"


def lab_of(conf: str = SIX, policy: str = "easy") -> Lab:
    return Lab(Cluster.from_slurm_conf(conf), policy=policy)


def row(lab: Lab, jid: int):
    return lab.sacct().set_index("JobID").loc[str(jid)]


def start_s(lab: Lab, jid: int) -> float:
    """Its start, in seconds from the lab's start."""
    frame = lab.sacct().set_index("JobID")
    return (frame.loc[str(jid), "Start"] - frame["Submit"].min()).total_seconds()


# -- node selection ----------------------------------------------------------------------------


def test_choose_nodes_takes_up_to_most_of_the_fitting_nodes():
    capacity = np.array([[8, 1000, 0]] * 5)
    free = capacity.copy()
    free[1] = 0  # n2 busy
    mask = np.ones(5, dtype=bool)
    demand = np.array([2, 0, 0])
    assert choose_nodes(free, capacity, Request(demand, 1, most=3), mask) == (0, 2, 3)
    assert choose_nodes(free, capacity, Request(demand, 2, most=9), mask) == (0, 2, 3, 4)
    assert choose_nodes(free, capacity, Request(demand, 2), mask) == (2, 3)  # a fixed count
    free[2:] = 0
    assert choose_nodes(free, capacity, Request(demand, 1, most=3), mask) == (0,)  # what there is
    assert choose_nodes(free, capacity, Request(demand, 2, most=3), mask) is None  # fewer than MIN


def test_a_run_holding_min_is_enough_as_in_cons_tres():
    """_enough_nodes: with req_nodes > min_nodes a run is sufficient when it holds what the
    job still needs of MIN. Runs [n1] (tight: 2 CPUs free) and [n3, n4] (8 each): for -N 1-2
    the one-node run is enough and the tightest, so the job starts there and takes the next
    run's first node for its second; a fixed -N 2 takes the run of two."""
    capacity = np.array([[8, 0, 0]] * 4)
    free = np.array([[2, 0, 0], [0, 0, 0], [8, 0, 0], [8, 0, 0]])
    mask = np.ones(4, dtype=bool)
    demand = np.array([2, 0, 0])
    assert choose_nodes(free, capacity, Request(demand, 2), mask) == (2, 3)
    assert choose_nodes(free, capacity, Request(demand, 1, most=2), mask) == (0, 2)


def test_the_profile_plans_up_to_most_of_the_nodes_free_through_the_window():
    capacity = np.array([[8, 0, 0]] * 4)
    free = np.zeros((4, 3), dtype=np.int64)
    # n1, n2 free at 100; n3 at 100 until 150 (a reservation there), n4 busy until 500
    prof = Profile(
        0.0, free, capacity, [(100.0, (0, 1, 2), capacity[:3]), (500.0, (3,), capacity[3:])]
    )
    prof.reserve((2,), capacity[2:3], 150.0, 400.0)
    demand, mask = np.array([8, 0, 0]), np.ones(4, dtype=bool)
    assert prof.earliest(Request(demand, 1, most=4), mask, 40.0) == (1, 100.0, (0, 1, 2))
    assert prof.earliest(Request(demand, 1, most=4), mask, 120.0) == (1, 100.0, (0, 1))
    assert prof.earliest(Request(demand, 3, most=4), mask, 120.0)[1:] == (400.0, (0, 1, 2))
    assert prof.fits(Request(demand, 1, most=2), mask, 40.0, at=1) == (0, 1)


# -- resolution --------------------------------------------------------------------------------


def test_a_shape_per_node_takes_up_to_max_and_per_job_requests_take_min():
    cluster = Cluster.from_slurm_conf(SIX)
    res = JobSpec.from_args("-N 2-4 --ntasks-per-node=4 --mem=1G").resources(cluster)
    assert (res.nodes, res.max_nodes, res.cpus_per_node) == (2, 4, 4)
    # GPUs per job: cons_tres aims at min_nodes (real Slurm: -N 1-3 --gpus=2 got one node)
    ai = Cluster.coerce("tiny")
    assert JobSpec.from_args("-N 1-3 --gpus=2").resources(ai).max_nodes is None
    assert JobSpec.from_args("-N 2-4 --use-min-nodes").resources(cluster).max_nodes is None
    assert JobSpec.from_args("-N 3-3").resources(cluster).max_nodes is None
    with pytest.warns(UserWarning, match="with -n 8: slurmlab allocates 2 nodes"):
        assert JobSpec.from_args("-N 2-4 -n 8").resources(cluster).max_nodes is None


# -- every policy ------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_it_takes_max_when_free_and_what_is_free_otherwise(policy):
    lab = lab_of(policy=policy)
    wide = lab.sbatch("-N 2-4 --exclusive -t 10", runtime=300)
    lab.advance(1)
    assert row(lab, wide)["NodeList"] == "n[1-4]"
    both = lab.sbatch("-N 1-3 --exclusive -t 10", runtime=300)  # two nodes left: it starts on both
    lab.advance(1)
    assert row(lab, both)["NodeList"] == "n[5-6]"
    assert row(lab, both)["NNodes"] == 2
    late = lab.sbatch("-N 1-3 --exclusive -t 10", runtime=300)  # none left: it waits for one
    lab.advance(1)
    assert row(lab, late)["State"] == "PENDING"
    lab.advance(300)
    assert row(lab, late)["State"] == "RUNNING"
    assert row(lab, late)["NodeList"] == "n[1-3]"
    assert start_s(lab, late) == pytest.approx(300)


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_backfill_takes_only_nodes_the_reservation_leaves_over_its_window(policy):
    """A 6-node job waits for n1-n2 (running until 600): it is reserved n1-n6 at 600. A
    later -N 1-4 job that would run past 600 may start now on what is free (n3-n6) only if
    that delays nothing: it does not, since every node is reserved from 600 on. One that
    ends before 600 takes up to 4 of the free nodes at once."""
    lab = lab_of(policy=policy)
    lab.sbatch("-N 2 --exclusive -t 10", runtime=600)
    lab.advance(1)
    big = lab.sbatch("-N 6 --exclusive -t 10", runtime=60)
    long_ = lab.sbatch("-N 1-4 --exclusive -t 20", runtime=60)
    short = lab.sbatch("-N 1-4 --exclusive -t 5", runtime=60)
    lab.advance(40)  # (a backfill cycle of the slurm policy)
    assert row(lab, big)["State"] == "PENDING"
    assert row(lab, long_)["State"] == "PENDING"
    assert row(lab, short)["State"] == "RUNNING"
    assert row(lab, short)["NodeList"] == "n[3-6]"
    lab.advance(600)
    assert start_s(lab, big) == pytest.approx(600)


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_backfill_grows_only_into_nodes_no_reservation_needs(policy):
    """A 5-node job waits for n1-n3 (running until 600) and is reserved n1-n5 at 600. A
    -N 1-4 job that runs past 600 starts now on the node outside that reservation (n6), not
    on n4-n5, which the reservation holds from 600."""
    lab = lab_of(policy=policy)
    lab.sbatch("-N 3 --exclusive -t 10", runtime=600)
    lab.advance(1)
    big = lab.sbatch("-N 5 --exclusive -t 10", runtime=60)
    grow = lab.sbatch("-N 1-4 --exclusive -t 60", runtime=3000)
    lab.advance(40)
    assert row(lab, grow)["State"] == "RUNNING"
    assert row(lab, grow)["NodeList"] == "n6"
    lab.advance(600)
    assert start_s(lab, big) == pytest.approx(600)
    assert row(lab, big)["NodeList"] == "n[1-5]"


@pytest.mark.parametrize("policy", ["conservative", "slurm"])
def test_a_planned_start_holds_up_to_max_nodes(policy):
    lab = lab_of(policy=policy)
    lab.sbatch("-N 6 --exclusive -t 10", runtime=600)
    lab.advance(1)
    j = lab.sbatch("-N 2-4 --exclusive -t 10", runtime=60)
    lab.advance(40)
    assert lab.squeue().set_index("JOBID").loc[str(j), "SCHEDNODES"] == "n[1-4]"


# -- what the job shows ------------------------------------------------------------------------


def test_sacct_and_srun_env_show_the_nodes_it_got():
    lab = lab_of()
    j = lab.sbatch("-N 1-3 -c 2 -t 10", runtime=60)
    lab.advance(1)
    r = row(lab, j)
    assert (r["NNodes"], r["NCPUS"], r["NodeList"]) == (3, 6, "n[1-3]")
    assert "node=3" in r["AllocTRES"] and "cpu=6" in r["AllocTRES"]
    # ReqTRES keeps MIN (real Slurm 22.05: node=1 for every -N 1-3 job)
    assert "node=1" in r["ReqTRES"] and "cpu=2" in r["ReqTRES"]
    env = lab.srun_env(j)
    assert list(env["SLURMD_NODENAME"]) == ["n1", "n2", "n3"]
    assert set(map(str, env["SLURM_NNODES"])) == {"3"}
    assert set(env["SLURM_TASKS_PER_NODE"]) == {"1(x3)"}


def test_tasks_per_node_count_min_nodes_tasks_which_cap_the_nodes():
    """slurmctld sets num_tasks = --ntasks-per-node x MIN when -n is not given, and cons_tres
    takes no more nodes than tasks: real Slurm 22.05 gave -N 1-3 --ntasks-per-node=2 two
    nodes and 4 tasks on four idle nodes (SLURM_NTASKS 4, SLURM_TASKS_PER_NODE 2(x2))."""
    lab = lab_of()
    j = lab.sbatch("-N 1-3 --ntasks-per-node=2 -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, j)["NodeList"] == "n[1-2]"
    env = lab.srun_env(j)
    assert set(map(str, env["SLURM_NTASKS"])) == {"4"}
    assert set(env["SLURM_TASKS_PER_NODE"]) == {"2(x2)"}
    wide = lab.sbatch("-N 2-4 --ntasks-per-node=8 -t 10", runtime=60)  # 16 tasks: up to 4
    lab.advance(1)
    assert row(lab, wide)["NNodes"] == 4


def test_tasks_per_job_up_to_min_take_min_and_more_are_warned():
    cluster = Cluster.from_slurm_conf(SIX)
    res = JobSpec.from_args("-N 2-4 -n 2").resources(cluster)  # (no more nodes than tasks)
    assert (res.nodes, res.max_nodes) == (2, None)
    with pytest.warns(UserWarning, match=r"Slurm takes up to 3 nodes .* spreads the tasks"):
        JobSpec.from_args("-N 1-3 -n 4").resources(cluster)


@pytest.mark.parametrize("policy", POLICIES)
def test_squeue_shows_a_pending_range_job_on_the_nodes_a_test_would_give_it(policy):
    """squeue's NODES of a pending job is slurmctld's node_cnt_wag, from its test at
    submission: real Slurm 22.05 showed 4 for a pending -N 2-4 on four nodes, whatever
    its plan (SCHEDNODES gpu[1-2] when two were free first)."""
    lab = lab_of(policy=policy)
    lab.sbatch("-N 6 --exclusive -t 10", runtime=600)
    lab.advance(1)
    j = lab.sbatch("-N 2-4 -t 10", runtime=60)
    k = lab.sbatch("-N 1-3 --ntasks-per-node=2 -t 10", runtime=60)
    over = lab.sbatch("-N 2-9 -t 10", runtime=60)  # more than the partition has: MAX
    lab.advance(1)
    nodes = lab.squeue().set_index("JOBID")["NODES"]
    assert (nodes[str(j)], nodes[str(k)], nodes[str(over)]) == (4, 2, 6)


def test_a_partition_max_nodes_below_max_leaves_it_pending():
    """job_mgr.c _part_access_check tests the job's max_nodes against MaxNodes: -N 1-5 in a
    partition of MaxNodes=2 pends with PartitionNodeLimit (real Slurm 22.05), and why_pending
    says to narrow the range; with EnforcePartLimits=ALL it is refused at submission."""
    conf = SIX.replace("Default=YES", "Default=YES MaxNodes=2")
    lab = lab_of(conf)
    j = lab.sbatch("-N 1-5 --exclusive -t 10", runtime=60)
    ok = lab.sbatch("-N 1-2 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, j)["State"] == "PENDING"
    assert lab.squeue().set_index("JOBID").loc[str(j), "NODELIST(REASON)"] == (
        "(PartitionNodeLimit)"
    )
    assert row(lab, ok)["NNodes"] == 2
    text = lab.why_pending(j)
    assert "it asks for 1-5 nodes but partition p allows at most 2 per job" in text
    assert "--nodes=1-2 (scontrol update JobId=1 NumNodes=1-2, in a Lab lab.update(1, " in text
    assert "nodes='1-2'" in text
    lab.update(j, nodes="1-2")
    lab.advance(30)
    assert row(lab, j)["State"] == "RUNNING"
    strict = lab_of("EnforcePartLimits=ALL\n" + conf)
    with pytest.raises(RequestError, match="1-5 nodes, outside 1-2 .*Node count specification"):
        strict.sbatch("-N 1-5 -t 10", runtime=60)


def test_limits_cap_the_nodes_it_takes():
    """A QOS GrpTRES of node=3: a -N 1-6 job takes 3 nodes, the most its QOS leaves room
    for (get_node_cnts caps max_nodes with acct_policy_get_max_nodes)."""
    lab = Lab(Cluster.from_slurm_conf(SIX), policy="easy", qos=[Qos("normal", grp_tres="node=3")])
    j = lab.sbatch("-N 1-6 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, j)["NNodes"] == 3


def test_a_policy_may_start_it_on_min_to_max_nodes_and_no_other_count():
    class Fixed:
        def __init__(self, count):
            self.count = count

        def schedule(self, view):
            d = Decision()
            for job in view.queue:
                d.starts.append(Start(job.id, tuple(range(self.count))))
            return d

    for count in (2, 3):
        lab = Lab(Cluster.from_slurm_conf(SIX), policy=Fixed(count))
        j = lab.sbatch("-N 2-3 --exclusive -t 10", runtime=60)
        lab.advance(1)
        assert row(lab, j)["NNodes"] == count
    for count in (1, 4):
        lab = Lab(Cluster.from_slurm_conf(SIX), policy=Fixed(count))
        with pytest.raises(PolicyError, match=r"asks for 2 to 3 nodes \(-N 2-3\), got "):
            lab.sbatch("-N 2-3 --exclusive -t 10", runtime=60)


# -- the review's findings ---------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_a_limit_is_checked_on_the_nodes_each_start_gets(policy):
    """GrpTRES node=4: two -N 1-3 --exclusive jobs in one pass. Slurm lowers MAX to the
    limit's value (3), picks 3 nodes for the first, then checks the second on the nodes it
    would get (acct_policy_job_runnable_post_select, counting the first): 3 + 3 > 4, so it
    waits (QOSGrpNodeLimit), and it is not tried with fewer nodes."""
    lab = Lab(Cluster.from_slurm_conf(SIX), policy=policy, qos=[Qos("normal", grp_tres="node=4")])
    a = lab.sbatch("-N 1-3 --exclusive -t 10", runtime=60)
    b = lab.sbatch("-N 1-3 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, a)["NNodes"] == 3
    assert row(lab, b)["State"] == "PENDING"
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(b), "NODELIST(REASON)"] == "(QOSGrpNodeLimit)"
    lab.advance(120)
    assert row(lab, b)["NNodes"] == 3


def test_node_limits_count_nodes_once_however_many_jobs_share_them():
    """acct_policy.c counts a QOS's nodes in a bitmap (_get_unique_job_node_cnt). GrpTRES
    node=3 with a 2-node job of the QOS running: a -N 1-3 job sharing those nodes takes
    n[1-3] at once (3 distinct nodes; real Slurm 22.05, the limits-nodes fixture: r_grow
    started at its submission on gpu[1-3] beside r_block on gpu[1-2]); an --exclusive one
    would hold 5 distinct nodes and waits, as Slurm tries no fewer."""
    for exclusive, started in (("", True), (" --exclusive", False)):
        lab = Lab(
            Cluster.from_slurm_conf(SIX), policy="easy", qos=[Qos("normal", grp_tres="node=3")]
        )
        lab.sbatch(f"-N 2{exclusive} -t 10", runtime=600)
        j = lab.sbatch(f"-N 1-3{exclusive} -t 10", runtime=60)
        lab.advance(1)
        assert (row(lab, j)["State"] == "RUNNING") is started
        if started:
            assert row(lab, j)["NodeList"] == "n[1-3]"
        lab.advance(600)
        assert row(lab, j)["NNodes"] == 3


def test_a_job_of_an_advance_reservation_is_capped_and_checked_too():
    lab = Lab(Cluster.from_slurm_conf(SIX), policy="easy", qos=[Qos("normal", grp_tres="node=2")])
    lab.reserve("r1", "1h", node_count=4, users="you")
    j = lab.sbatch("--reservation=r1 -N 1-4 -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, j)["NNodes"] == 2


def test_tasks_and_tasks_per_node_raise_min():
    """cons_common job_test.c: -N 1-3 -n 6 --ntasks-per-node=2 needs 3 nodes (real Slurm
    22.05 ran it on 3 nodes, 6 tasks), where a fixed -N 1 with them is refused."""
    cluster = Cluster.from_slurm_conf(SIX)
    res = JobSpec.from_args("-N 1-3 -n 6 --ntasks-per-node=2").resources(cluster)
    assert (res.nodes, res.max_nodes, res.tasks_per_node) == (3, None, (2, 2, 2))
    with pytest.raises(RequestError, match="needs at least 3 nodes, not 1"):
        JobSpec.from_args("-N 1 -n 6 --ntasks-per-node=2").resources(cluster)


def test_a_node_list_shorter_than_max_is_warned():
    cluster = Cluster.from_slurm_conf(SIX)
    with pytest.warns(UserWarning, match="Slurm adds other free nodes up to 3"):
        assert JobSpec.from_args("-N 1-3 -w n1").resources(cluster).nodes == 1


def test_squeue_shows_min_for_a_held_or_updated_range_job():
    lab = lab_of(policy="slurm")
    lab.sbatch("-N 6 --exclusive -t 10", runtime=600)
    lab.advance(1)
    held = lab.sbatch("-H -N 2-4 -t 10", runtime=60)
    moved = lab.sbatch("-N 2-4 -t 10", runtime=60)
    lab.update(moved, nodes=1)  # (1-4; an update clears slurmctld's guess)
    lab.advance(1)
    nodes = lab.squeue().set_index("JOBID")["NODES"]
    assert (nodes[str(held)], nodes[str(moved)]) == (2, 1)


def test_why_pending_names_the_range_it_suggests():
    lab = lab_of(policy="easy")
    lab.sbatch("-N 3 --exclusive -t 10", runtime=600)
    lab.advance(1)
    j = lab.sbatch("-N 4-6 --exclusive -t 10", runtime=60)
    lab.advance(1)
    # (NumNodes=3 would keep MAX 6, and backfill plans a range on up to MAX nodes: the
    # change asks for 3 nodes, both ends, as tests/test_qa45_why.py explains)
    assert "with --nodes=3 (instead of 4-6) it could start now" in lab.why_pending(j)
    assert "NumNodes=3-3" in lab.why_pending(j)


def test_why_pending_says_a_range_is_over_a_limit_on_the_nodes_it_picks():
    """MaxTRESPerUser gres/gpu=8 and -N 1-4 --gres=gpu:4 on an idle cluster: Slurm picks 4
    nodes (16 GPUs), the post-select check refuses it, and it waits for ever; why_pending
    says so and how to narrow the range, which lets it start."""
    conf = SIX.replace("RealMemory=32000", "RealMemory=32000 Gres=gpu:4") + "GresTypes=gpu\n"
    lab = Lab(
        Cluster.from_slurm_conf(conf),
        policy="easy",
        qos=[Qos("normal", max_tres_per_user="gres/gpu=8")],
    )
    j = lab.sbatch("-N 1-4 --gres=gpu:4 -t 10", runtime=60)
    lab.advance(5)
    assert row(lab, j)["State"] == "PENDING"
    text = lab.why_pending(j)
    assert "(QOSMaxGRESPerUser)" in text
    assert "asks for up to 4 (--nodes=1-4) and takes as many as are free" in text
    assert "Fix: narrow the range to --nodes=1-2 (scontrol update JobId=1 NumNodes=1-2" in text
    lab.update(j, nodes="1-2")
    lab.advance(5)
    assert row(lab, j)["NNodes"] == 2


def test_an_exclusive_job_counts_its_whole_nodes_against_limits():
    """node_scheduler.c checks the limits on the nodes picked: an --exclusive job's CPUs are
    all its nodes' (total_cpus) and so are their GPUs (its GRES become the whole nodes', as
    AllocTRES shows: real Slurm gave -N 2 --exclusive gres/gpu=8 in the node-range fixture).
    GrpTRES gres/gpu=8 on nodes of 4 GPUs: -N 2 --exclusive runs, -N 3 --exclusive waits
    (QOSGrpGRES), though it asks for no GPU."""
    conf = SIX.replace("RealMemory=32000", "RealMemory=32000 Gres=gpu:4") + "GresTypes=gpu\n"
    lab = Lab(
        Cluster.from_slurm_conf(conf), policy="fifo", qos=[Qos("normal", grp_tres="gres/gpu=8")]
    )
    two = lab.sbatch("-N 2 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert row(lab, two)["State"] == "RUNNING"
    three = lab.sbatch("-N 3 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert lab.squeue().set_index("JOBID").loc[str(three), "NODELIST(REASON)"] == "(QOSGrpGRES)"
    lab.advance(600)
    assert row(lab, three)["State"] == "PENDING"  # (12 GPUs: over 8 even on an idle cluster)
    text = lab.why_pending(three)
    assert "with --exclusive it holds every CPU and GPU of the nodes it gets" in text
    assert "Fix: ask for fewer nodes, or drop --exclusive" in text
    cpus = Lab(Cluster.from_slurm_conf(SIX), policy="easy", qos=[Qos("normal", grp_tres="cpu=16")])
    grow = cpus.sbatch("-N 1-4 --exclusive -t 10", runtime=60)  # 4 whole nodes: 32 CPUs
    fixed = cpus.sbatch("-N 2 --exclusive -t 10", runtime=60)  # 16: within the limit
    cpus.advance(1)
    assert row(cpus, grow)["State"] == "PENDING"
    assert row(cpus, fixed)["NNodes"] == 2


# -- the second review (limits on the nodes a job gets) ----------------------------------------

GPU_CPU = (
    "GresTypes=gpu\nNodeName=g[1-2] CPUs=16 RealMemory=32000 Gres=gpu:4\n"
    "NodeName=c[1-2] CPUs=32 RealMemory=64000\n"
    "PartitionName=gpu Nodes=g[1-2] Default=YES\nPartitionName=cpu Nodes=c[1-2]\n"
)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_start_refused_in_one_partition_is_tried_in_the_next(policy):
    """GrpTRES gres/gpu=4: -p gpu,cpu -N 2 --exclusive would hold 8 GPUs in gpu, none in
    cpu: Slurm skips that partition's queue record (job_scheduler.c, ESLURM_ACCOUNTING_POLICY)
    and starts the job in cpu."""
    lab = Lab(
        Cluster.from_slurm_conf(GPU_CPU), policy=policy, qos=[Qos("normal", grp_tres="gres/gpu=4")]
    )
    j = lab.sbatch("-p gpu,cpu -N 2 --exclusive -t 10", runtime=60)
    lab.advance(1)
    assert (row(lab, j)["State"], row(lab, j)["NodeList"]) == ("RUNNING", "c[1-2]")


@pytest.mark.parametrize("policy", POLICIES)
def test_a_refused_job_is_tried_again_when_a_start_leaves_it_fewer_nodes(policy):
    """GrpTRES cpu=8: J (-N 1-4 -c 4) would take 4 idle nodes (16 CPUs) and is refused; K
    (another QOS, 2 whole nodes) starts in the same moment, after which J gets the other 2
    nodes (8 CPUs) and starts, as Slurm's next pass would start it."""
    lab = Lab(
        Cluster.from_slurm_conf(SIX.replace("CPUs=8", "CPUs=16")),
        policy=policy,
        qos=[Qos("normal", grp_tres="cpu=8"), Qos("other")],
    )
    j = lab.sbatch("-N 1-4 -c 4 -t 60", runtime=600)
    lab.sbatch("-N 4 --exclusive --qos=other -t 60", runtime=3000)
    lab.advance(1)
    assert row(lab, j)["State"] == "RUNNING"
    assert row(lab, j)["NCPUS"] == 8


def test_run_ends_when_every_start_a_backfill_cycle_makes_is_refused():
    """QOS cpu=8 and -N 2 --exclusive on 16-CPU nodes: Slurm keeps it pending for ever; the
    slurm policy's timer must go idle (run() returns) instead of cycling for ever."""
    lab = Lab(
        Cluster.from_slurm_conf(SIX.replace("CPUs=8", "CPUs=16")),
        policy="slurm",
        qos=[Qos("normal", grp_tres="cpu=8")],
    )
    j = lab.sbatch("-N 2 --exclusive -t 10", runtime=60)
    lab.run()
    assert row(lab, j)["State"] == "PENDING"
    assert lab.result.sim.env.now < 3600


def test_small_jobs_on_a_qos_s_nodes_are_not_held_back_by_its_node_limit():
    """GrpTRES node=2 with a -N 2 job (1 CPU a node) of the QOS running: a -N 1 and a -N 2
    job land on the same nodes and add none (Slurm tests no TRES before it picks nodes)."""
    lab = Lab(Cluster.from_slurm_conf(SIX), policy="easy", qos=[Qos("normal", grp_tres="node=2")])
    lab.sbatch("-N 2 -t 10", runtime=600)
    one = lab.sbatch("-N 1 -t 10", runtime=60)
    two = lab.sbatch("-N 2 -t 10", runtime=60)
    lab.advance(1)
    assert (row(lab, one)["NodeList"], row(lab, two)["NodeList"]) == ("n1", "n[1-2]")
