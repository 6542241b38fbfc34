"""Partition and node settings of slurm.conf as Slurm applies them: MinNodes, the old
Priority= name, no default partition, Hidden partitions and FUTURE nodes in sinfo, a
node failed for good and then resumed, and node Weight."""

from __future__ import annotations

import pytest

from slurmlab import Cluster, Lab
from slurmlab.errors import RequestError


def lab_of(conf: str, policy: str = "easy") -> Lab:
    return Lab(Cluster.from_slurm_conf(conf), policy=policy)


def test_min_nodes_holds_a_smaller_job_with_partition_node_limit():
    """MinNodes=2: a 1-node job pends with PartitionNodeLimit (EnforcePartLimits=NO, the
    default, as job_mgr.c sets WAIT_PART_NODE_LIMIT); why_pending says how to fix it."""
    lab = lab_of("NodeName=n[1-4] CPUs=4\nPartitionName=big Nodes=n[1-4] Default=YES MinNodes=2\n")
    small = lab.sbatch("-N 1 -t 10", runtime=60)
    big = lab.sbatch("-N 2 -t 10", runtime=60)
    lab.advance(1)
    q = lab.squeue().set_index("JOBID")["NODELIST(REASON)"]
    assert q[str(small)] == "(PartitionNodeLimit)"
    assert q[str(big)] == "n[1-2]"
    text = lab.why_pending(small)
    assert "allows at least 2 per job" in text and "--nodes=2 or more" in text


def test_the_old_priority_name_sets_tier_and_job_factor():
    """PartitionName=... Priority=5 sets PriorityTier and PriorityJobFactor (read_config.c)."""
    c = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4\nPartitionName=m Nodes=n1 Default=YES Priority=5\n"
    )
    p = c.partition("m")
    assert (p.priority_tier, p.priority_job_factor) == (5, 5)


def test_without_a_default_partition_a_job_needs_p():
    """slurm.conf(5): Default is NO unless given; a job without -p is rejected, and sinfo
    marks no partition with *."""
    c = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4\nPartitionName=a Nodes=n1\nPartitionName=b Nodes=n1\n"
    )
    lab = Lab(c)
    with pytest.raises(RequestError, match="No partition specified or system default partition"):
        lab.sbatch("-t 10", runtime=60)
    assert lab.sbatch("-p b -t 10", runtime=60) == 1
    assert "*" not in "".join(lab.sinfo()["PARTITION"])


def test_sinfo_leaves_out_hidden_partitions_and_future_nodes():
    """sinfo(1): hidden partitions and FUTURE nodes are shown only with --all / --future."""
    c = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4\nNodeName=f1 CPUs=4 State=FUTURE\n"
        "PartitionName=m Nodes=n1,f1 Default=YES\nPartitionName=h Nodes=n1 Hidden=YES\n"
    )
    frame = Lab(c).sinfo()
    assert list(frame["PARTITION"]) == ["m*"]
    assert list(frame["NODELIST"]) == ["n1"]


def test_a_node_failed_for_good_then_resumed_can_fail_and_come_back_again():
    """lab.fail(node) (no repair), lab.resume(node), then a timed failure: it comes back."""
    lab = lab_of("NodeName=n[1-2] CPUs=4\nPartitionName=m Nodes=n[1-2] Default=YES\n")
    lab.fail("n1")
    lab.resume("n1")
    lab.fail("n1", down_for=60)
    lab.advance(3600)
    states = dict(zip(lab.sinfo()["NODELIST"], lab.sinfo()["STATE"], strict=True))
    assert states == {"n[1-2]": "idle"}


def test_allow_and_deny_accounts_admit_jobs_at_submission():
    """AllowAccounts / DenyAccounts: other accounts are rejected at submission (Slurm:
    Invalid account or account/partition combination specified), in a Lab and when a
    scenario is loaded."""
    conf = (
        "NodeName=n[1-2] CPUs=4\nPartitionName=open Nodes=ALL Default=YES DenyAccounts=chem\n"
        "PartitionName=phys Nodes=ALL AllowAccounts=physics,astro\n"
    )
    lab = lab_of(conf)
    assert lab.sbatch("-p phys -A astro -t 10", runtime=60) == 1
    with pytest.raises(RequestError, match="account 'chem' in partition 'phys': Invalid account"):
        lab.sbatch("-p phys -A chem -t 10", runtime=60)
    with pytest.raises(RequestError, match="account 'chem' in partition 'open'"):
        lab.sbatch("-A chem -t 10", runtime=60)
    assert lab.sbatch("-A physics -t 10", runtime=60) == 2


def test_an_account_a_partition_refuses_fails_the_scenario_at_load(tmp_path):
    from slurmlab.errors import ScenarioError
    from slurmlab.scenario import Scenario

    (tmp_path / "slurm.conf").write_text(
        "NodeName=n[1-2] CPUs=4\nPartitionName=phys Nodes=ALL Default=YES AllowAccounts=physics\n"
    )
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: {slurm_conf: slurm.conf}\njobs:\n"
        "  - {runtime: 10, args: -n 1 -A physics}\n  - {runtime: 10, account: chem, args: -n 1}\n"
    )
    with pytest.raises(ScenarioError, match=r"line 4: jobs\[1\]: field 'account'.*'phys'"):
        Scenario.load(path)


def test_partition_options_slurmlab_does_not_model_are_named_in_a_warning():
    with pytest.warns(
        UserWarning, match=r"line 2: partition 'a': AllowGroups, OverSubscribe=FORCE:4 not modelled"
    ):
        Cluster.from_slurm_conf(
            "NodeName=n1 CPUs=4\nPartitionName=a Nodes=n1 Default=YES AllowGroups=x "
            "OverSubscribe=FORCE:4\n"
        )


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_jobs_get_the_lowest_weight_nodes_first(policy):
    """slurm.conf(5) Weight: "jobs will be allocated the nodes with the lowest weight which
    satisfies their requirements"; best fit applies among equal weights."""
    conf = (
        "NodeName=a[1-2] CPUs=4 Weight=100\nNodeName=b[1-2] CPUs=4 Weight=1\n"
        "PartitionName=all Nodes=ALL Default=YES MaxTime=UNLIMITED\n"
    )
    lab = lab_of(conf, policy)
    first = lab.sbatch("-N 1 -n 2 -t 10", runtime=600)
    second = lab.sbatch("-N 2 -n 2 --ntasks-per-node=1 -c 3 -t 10", runtime=600)
    wide = lab.sbatch("-N 4 --exclusive -t 10", runtime=600)
    last = lab.sbatch("-N 1 -n 4 -t 10", runtime=60)
    lab.run()
    nodes = lab.sacct().set_index("JobID")["NodeList"]
    assert nodes[str(first)] == "b1"  # best fit among the light nodes: b1 before b2
    assert nodes[str(second)] == "a1,b2"  # b1 has 2 CPUs left: b2, then a1 (best fit)
    assert nodes[str(wide)] == "a[1-2],b[1-2]"
    # easy and conservative backfill it at once on a2, the only free node (it ends by 600 s,
    # when wide starts); fifo cannot, nor slurm, whose first cycle (30 s) is too late: it
    # runs after wide, on the lightest node
    assert nodes[str(last)] == ("b1" if policy in ("fifo", "slurm") else "a2")


def test_drain_and_inactive_partitions_refuse_new_jobs():
    """slurm.conf(5) State=DRAIN / INACTIVE: "no new jobs may be queued on the partition";
    a DOWN partition queues them (PartitionDown)."""
    lab = lab_of(
        "NodeName=n[1-2] CPUs=4\nPartitionName=up Nodes=ALL Default=YES\n"
        "PartitionName=dr Nodes=ALL State=DRAIN\nPartitionName=ia Nodes=ALL State=INACTIVE\n"
        "PartitionName=dn Nodes=ALL State=DOWN\n"
    )
    for name, state in (("dr", "DRAIN"), ("ia", "INACTIVE")):
        with pytest.raises(
            RequestError, match=f"partition '{name}' is {state}: Required partition"
        ):
            lab.sbatch(f"-p {name} -t 10", runtime=60)
    down = lab.sbatch("-p dn -t 10", runtime=60)
    lab.advance(1)
    assert lab.squeue().set_index("JOBID").loc[str(down), "NODELIST(REASON)"] == "(PartitionDown)"


def test_oversubscribe_exclusive_gives_every_job_whole_nodes():
    """OverSubscribe=EXCLUSIVE: each job gets whole nodes, as with --exclusive."""
    lab = lab_of(
        "NodeName=n[1-2] CPUs=4\nPartitionName=x Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE\n"
    )
    ids = [lab.sbatch("-n 1 -t 10", runtime=600) for _ in range(3)]
    lab.advance(1)
    table = lab.sacct().set_index("JobID")
    assert [table.loc[str(i), "State"] for i in ids] == ["RUNNING", "RUNNING", "PENDING"]
    assert table.loc[str(ids[0]), "NCPUS"] == 4


def test_memory_above_max_mem_per_node_pends_for_ever():
    """MaxMemPerNode: with EnforcePartLimits=NO (the default) the job is accepted and pends
    (MaxMemPerLimit); the run ends with it pending."""
    lab = lab_of(
        "SelectTypeParameters=CR_Core_Memory\nNodeName=n[1-2] CPUs=4 RealMemory=16000\n"
        "PartitionName=m Nodes=ALL Default=YES MaxMemPerNode=8000\n"
    )
    big = lab.sbatch("--mem=12000 -t 10", runtime=60)
    ok = lab.sbatch("--mem=8000 -t 10", runtime=60)
    lab.run()
    table = lab.sacct().set_index("JobID")
    assert (table.loc[str(big), "State"], table.loc[str(big), "Reason"]) == (
        "PENDING", "MaxMemPerLimit",
    )  # fmt: skip
    assert table.loc[str(ok), "State"] == "COMPLETED"
    assert "MaxMemPerNode" in lab.why_pending(big)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "PartitionName=p Nodes=n1 Default=YES DefMemPerCPU=1G",
            "DefMemPerCPU='1G' must be a whole",
        ),
        ("PartitionName=p Nodes=n1 Default=YES MaxMemPerNode=lots", "MaxMemPerNode='lots'"),
        ("EnforcePartLimits=SOMETIMES\nPartitionName=p Nodes=n1", "must be ALL, ANY, NO or YES"),
    ],
)
def test_bad_memory_limits_and_enforce_part_limits_name_their_line(line, words):
    from slurmlab.errors import ConfigError

    with pytest.raises(ConfigError, match="line 2: ") as info:
        Cluster.from_slurm_conf("NodeName=n1 CPUs=4\n" + line + "\n")
    assert words in str(info.value)


def test_why_pending_offers_no_partition_that_would_refuse_or_hold_the_job():
    """The "another partition" hint skips partitions whose AllowAccounts refuse the job's
    account or whose MinNodes would hold it; an open partition is still offered."""
    lab = lab_of(
        "NodeName=a[1-2] CPUs=4\nNodeName=b[1-2] CPUs=4\nNodeName=c1 CPUs=4\n"
        "PartitionName=p1 Nodes=a[1-2] Default=YES\n"
        "PartitionName=p2 Nodes=b[1-2] AllowAccounts=phys\n"
        "PartitionName=p3 Nodes=b[1-2] MinNodes=2\nPartitionName=p4 Nodes=c1\n"
    )
    lab.sbatch("-N 2 --exclusive -t 60", runtime=3600)
    waits = lab.sbatch("-n 1 -t 10", runtime=60)
    text = lab.why_pending(waits)
    assert "-p p4" in text
    assert "-p p2" not in text and "-p p3" not in text


def test_enforce_part_limits_refuses_what_would_pend():
    """EnforcePartLimits=ALL: a job over MaxTime or outside MinNodes..MaxNodes is refused at
    submission (with the default NO it pends with PartitionTimeLimit / PartitionNodeLimit)."""
    lab = lab_of(
        "EnforcePartLimits=ALL\nNodeName=n[1-4] CPUs=4\n"
        "PartitionName=p Nodes=ALL Default=YES MaxTime=10 MaxNodes=2 MinNodes=2\n"
    )
    with pytest.raises(RequestError, match="above MaxTime 10:00 .*Requested time limit is invalid"):
        lab.sbatch("-N 2 -t 20", runtime=60)
    with pytest.raises(RequestError, match="3 nodes, outside 2-2 .*Node count specification"):
        lab.sbatch("-N 3 -t 5", runtime=60)
    with pytest.raises(RequestError, match="1 node, outside 2-2"):
        lab.sbatch("-N 1 -t 5", runtime=60)
    assert lab.sbatch("-N 2 -t 5", runtime=60) == 1


def test_memory_per_node_above_max_mem_per_cpu_gets_more_cpus():
    """MaxMemPerCPU=1000 and --mem=4000 on one task: the job gets 4 CPUs (as a per-CPU
    request above the limit does) instead of pending for ever."""
    lab = lab_of(
        "SelectTypeParameters=CR_Core_Memory\nNodeName=n1 CPUs=8 RealMemory=16000\n"
        "PartitionName=p Nodes=n1 Default=YES MaxMemPerCPU=1000\n"
    )
    j = lab.sbatch("-n 1 --mem=4000 -t 10", runtime=60)
    lab.advance(1)
    row = lab.sacct().set_index("JobID").loc[str(j)]
    assert (row["State"], row["NCPUS"]) == ("RUNNING", 4)


def test_an_exclusive_job_shows_its_nodes_gpu_type():
    """--exclusive holds every GPU of its node: sacct names their type, as for a GPU job."""
    lab = Lab("tiny")
    j = lab.sbatch("-N 1 --exclusive -n 1 -t 10", runtime=60)
    lab.advance(1)
    tres = lab.sacct().set_index("JobID").loc[str(j), "AllocTRES"]
    assert "gres/gpu:a100=2" in tres and "gres/gpu=2" in tres


def test_a_future_node_brought_up_is_shown_in_sinfo():
    c = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4\nNodeName=f1 CPUs=4 State=FUTURE\nPartitionName=m Nodes=n1,f1 Default=YES\n"
    )
    lab = Lab(c)
    assert list(lab.sinfo()["NODELIST"]) == ["n1"]
    lab.resume("f1")
    assert list(lab.sinfo()["NODELIST"]) == ["f1,n1"]


def test_inline_scenario_partitions_default_to_the_first():
    """A scenario's inline partitions: the first is the default unless one says default:
    true (slurm.conf itself has no such fallback)."""
    from slurmlab.scenario import Scenario

    doc = {
        "cluster": {
            "nodes": [{"name": "n[1-2]", "cpus": 4}],
            "partitions": [{"name": "main", "nodes": "ALL"}, {"name": "other", "nodes": "n1"}],
        },
        "jobs": [{"runtime": 10, "args": "-n 1"}],
    }
    result = Scenario.from_dict(doc).run()
    assert list(result.jobs["Partition"]) == ["main"]
