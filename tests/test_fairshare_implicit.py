"""Fair share when the accounts list no users: implicit user associations.

In Slurm every job runs under a *user* association (``sacctmgr add user ann account=A``,
Fairshare=1 unless set). A tree whose accounts list no users leaves those associations
out, so a user who charges such an account gets one made for them: a leaf under the
account with 1 share. Fair Tree ranks those users like any other; under the classic
algorithm an only child has its account's factor, so nothing changes there.

The cluster: n[1-2] with 4 CPUs each, fair share only (weight 10000), no usage decay,
recalculated every minute. Accounts A and B have 50 shares each and list no users. A's
job fills the cluster from t=0; at t=60 one job is submitted to each account.
"""

from __future__ import annotations

import pytest

from slurmlab.policies.fairshare import Account, AccountTree, classic_fairshare, fair_tree
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

OPEN_TREE = (Account("a", 50), Account("b", 50))


def conf(extra: str = "") -> Cluster:
    return Cluster.from_slurm_conf(
        f"""
PriorityType=priority/multifactor
PriorityWeightFairshare=10000
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
{extra}
NodeName=n[1-2] CPUs=4 RealMemory=8000
PartitionName=main Nodes=n[1-2] Default=YES MaxTime=INFINITE
"""
    )


def job(id: str, args: str, submit: float = 0, runtime: float = 60) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, user="ann")


def a_fills_the_cluster(extra: str = ""):
    """A's 8-CPU job runs 0-600 s; at t=60 ann submits one 1-CPU job to A and one to B."""
    return simulate(
        conf(extra),
        Workload(
            [
                job("big", "-A A -N 2 -n 8 -t 20", runtime=600),
                job("a", "-A A -n 1 -t 5", submit=60),
                job("b", "-A B -n 1 -t 5", submit=60),
            ]
        ),
        "easy",
        accounts=OPEN_TREE,
    )


# -- the tree ----------------------------------------------------------------------------------------
def test_charging_an_account_without_users_makes_a_user_association_with_one_share():
    """resolve() gives ``A/ann``, a leaf under A with 1 share (Slurm's default Fairshare=1)."""
    tree = AccountTree(OPEN_TREE)
    assert tree.resolve("ann", "a") == ("a", "a/ann")
    assert tree.parent["a/ann"] == "a"
    assert tree.shares["a/ann"] == 1.0
    assert tree.children["a"] == ["a/ann"]
    assert tree.resolve("ann", "a") == ("a", "a/ann")  # once: a second job reuses it
    assert tree.children["a"] == ["a/ann"]


def test_implicit_users_get_fair_tree_factors_and_keep_their_accounts_classic_factor():
    """Fair Tree ranks the implicit users (here 2 of them): B's user, with no usage,
    first (1.0), A's user second (1/2). Classic: an only child's effective usage is its
    account's, U_E = U + (U_E,A - U) x 1/1, so its factor is A's."""
    tree = AccountTree(OPEN_TREE)
    tree.resolve("ann", "a")
    tree.resolve("ann", "b")
    usage = {"a/ann": 1000.0}
    fs = {k: v["FairShare"] for k, v in fair_tree(tree, usage).items() if "FairShare" in v}
    assert fs == {"b/ann": 1.0, "a/ann": 0.5}
    classic = classic_fairshare(tree, usage)
    assert classic["a/ann"]["FairShare"] == pytest.approx(classic["a"]["FairShare"])
    assert classic["a"]["FairShare"] == pytest.approx(2**-2)  # U_E = 1, S = 1/2


def test_accounts_that_list_users_still_admit_only_their_users():
    """Once any account lists users, an unlisted user has no association (Slurm rejects
    the job) and nothing is added to the tree."""
    tree = AccountTree([Account("a", 50, users=("ann",)), Account("b", 50)])
    assert tree.resolve("bob", "a") == ("a", None)
    assert tree.resolve("ann", "b") == ("b", None)
    assert "a/bob" not in tree.shares and "b/ann" not in tree.shares


# -- through a simulation -----------------------------------------------------------------------------
def test_fair_tree_ranks_the_job_of_the_account_that_used_less_first():
    """Fair Tree, three users (root's, A's and B's implicit ann): root and B (no usage,
    infinite LevelFS) tie at 3/3; A's ann is last, 1/3. sprio's FAIRSHARE is 10000 x that
    from the first recalculation after the submissions (t=120) on."""
    sprio = a_fills_the_cluster().sprio(at=300).set_index("JOBID")["FAIRSHARE"]
    assert sprio.to_dict() == {"b": 10000, "a": 3333}


def test_a_new_implicit_association_is_ranked_at_once():
    """The job that brings B's ann association into the tree gets its Fair Tree factor at
    submission (1.0 here, no usage), not 0 for lack of a recalculation since."""
    sprio = a_fills_the_cluster().sprio(at=90).set_index("JOBID")["FAIRSHARE"]
    assert sprio["b"] == 10000


def test_classic_fair_share_is_unchanged_by_the_implicit_users():
    """PriorityFlags=NO_FAIR_TREE: each implicit user has its account's factor. At t=300 A
    has used all 8 x 300 CPU-seconds: U_E = 1, S = 50/101, F = 2^(-101/50) = 0.2466."""
    sprio = a_fills_the_cluster("PriorityFlags=NO_FAIR_TREE").sprio(at=300).set_index("JOBID")
    assert sprio["FAIRSHARE"].to_dict() == {"b": 10000, "a": round(10000 * 2 ** (-101 / 50))}


def test_sshare_lists_the_implicit_users_under_their_accounts():
    """sshare shows each implicit association as a user row under its account, with 1
    RawShare, as real sshare shows a user association."""
    frame = a_fills_the_cluster().sshare(at=300)
    assert list(zip(frame["Account"], frame["User"], strict=True)) == [
        ("root", ""),
        ("root", "root"),
        ("a", ""),
        ("a", "ann"),
        ("b", ""),
        ("b", "ann"),
    ]
    rows = frame.set_index(["Account", "User"])
    assert rows.loc[("a", "ann"), "RawShares"] == 1.0
    assert rows.loc[("a", "ann"), "RawUsage"] == rows.loc[("a", ""), "RawUsage"] == 8 * 300
    assert rows.loc[("b", "ann"), "FairShare"] == 1.0
    assert rows.loc[("a", "ann"), "FairShare"] == pytest.approx(1 / 3)


def test_every_users_association_exists_before_the_first_job():
    """The workload's users have their (implicit) associations from t=0, as sacctmgr made
    them: A's job, submitted before B's, is ranked among all three users at once (1/3),
    not among the two that had submitted by then (1/2)."""
    sprio = a_fills_the_cluster().sprio(at=90).set_index("JOBID")["FAIRSHARE"]
    assert sprio["a"] == 3333
