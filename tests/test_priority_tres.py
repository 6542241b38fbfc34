"""TRES priority factors and MAX_TRES billing, by hand.

The cluster: n[1-4] with 16 CPUs, 64000 MB and 4 GPUs each, one partition ``main`` over
all of them (64 CPUs, 16 GPUs), ``PriorityWeightTRES=CPU=1000,GRES/gpu=4000`` and the
partition factor (weight 1000, one partition: factor 1). A TRES factor is the job's
amount of that TRES over its partition's total (priority_multifactor.html, "TRES
Factors"); sprio -l shows each weighted factor in its TRES column as ``cpu=16,...``.
"""

from __future__ import annotations

import pytest

from slurmlab.errors import ConfigError
from slurmlab.policies.fairshare import Account, billed_tres
from slurmlab.policies.priority import (
    Factors,
    MultifactorWeights,
    parse_tres_weights,
    partition_tres,
    tres_factors,
)
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

BASE = """
PriorityType=priority/multifactor
PriorityWeightPartition=1000
PriorityCalcPeriod=1
SelectTypeParameters=CR_Core_Memory
{extra}
NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:4
PartitionName=main Nodes=n[1-4] Default=YES MaxTime=INFINITE DefMemPerCPU=1000
"""


def cluster(extra: str = "") -> Cluster:
    return Cluster.from_slurm_conf(BASE.format(extra=extra))


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


# -- the pure functions --------------------------------------------------------------------------
def test_tres_weights_are_read_by_lower_case_tres_name():
    """PriorityWeightTRES=CPU=1000,GRES/gpu=4000 -> {"cpu": 1000, "gres/gpu": 4000}."""
    w = MultifactorWeights.from_cluster(cluster("PriorityWeightTRES=CPU=1000,GRES/gpu=4000"))
    assert w.tres == {"cpu": 1000, "gres/gpu": 4000}
    assert parse_tres_weights("") == {}
    assert MultifactorWeights.from_cluster(cluster()).tres == {}


def test_partition_tres_are_the_totals_of_its_nodes():
    """main: 4 nodes x 16 CPUs, 64000 MB and 4 GPUs."""
    assert partition_tres(cluster(), "main") == {
        "cpu": 64.0, "mem": 256000.0, "node": 4.0, "gres/gpu": 16.0,
    }  # fmt: skip


def test_a_tres_factor_is_the_jobs_amount_over_the_partitions_total():
    """1 CPU of 64 -> 1/64; 4 GPUs of 16 -> 1/4; a TRES the job lacks has no factor."""
    part = {"cpu": 64.0, "mem": 256000.0, "node": 4.0, "gres/gpu": 16.0}
    assert tres_factors({"cpu": 1, "node": 1, "gres/gpu": 4, "mem": 0}, part) == {
        "cpu": 1 / 64, "node": 0.25, "gres/gpu": 0.25,
    }  # fmt: skip
    assert tres_factors({"gres/gpu": 4}, {"cpu": 64.0}) == {}  # no GPUs in the partition


def test_tres_factors_add_weight_x_factor_to_the_priority():
    """priority = 1000 partition + 1000 x 1/64 (15.6) + 4000 x 4/16 (1000) = 2015.6 -> 2015;
    sprio's TRES column prints each weighted TRES without decimals: cpu=16,gres/gpu=1000."""
    w = MultifactorWeights(partition=1000, tres={"cpu": 1000, "gres/gpu": 4000})
    f = Factors(partition=1.0, tres={"cpu": 1 / 64, "node": 0.25, "gres/gpu": 0.25})
    assert f.priority(w) == 2015
    assert f.tres_text(w) == "cpu=16,gres/gpu=1000"  # node has no weight: not shown
    assert f.weighted(w)["TRES"] == 1016
    assert Factors(partition=1.0).tres_text(w) == ""
    assert Factors(partition=1.0).priority(w) == 1000


def test_billing_is_cpus_by_default_the_weighted_sum_or_the_max_with_max_tres():
    """16 CPUs + 4 GPUs, TRESBillingWeights=CPU=1.0,GRES/gpu=10.0:
    no weights -> 16; sum -> 16 + 40 = 56; MAX_TRES -> max(16, 40) = 40."""
    alloc = {"cpu": 16.0, "mem": 16000.0, "node": 1.0, "gres/gpu": 4.0}
    weights = {"cpu": 1.0, "gres/gpu": 10.0}
    assert billed_tres(alloc, {}) == 16.0
    assert billed_tres(alloc, {}, max_tres=True) == 16.0
    assert billed_tres(alloc, weights) == 56.0
    assert billed_tres(alloc, weights, max_tres=True) == 40.0


def test_max_tres_takes_the_max_of_node_tres_plus_the_sum_of_global_tres():
    """Mem=0.25G is 0.25/1024 per MB: 16000 MB -> 3.90625. MAX_TRES: max(16, 3.9, 40) plus
    the global license/x (2 x 3 = 6) -> 46; the plain sum is 16 + 3.90625 + 40 + 6."""
    alloc = {"cpu": 16.0, "mem": 16000.0, "node": 1.0, "gres/gpu": 4.0, "license/x": 2.0}
    weights = {"cpu": 1.0, "mem": 0.25 / 1024, "gres/gpu": 10.0, "license/x": 3.0}
    assert billed_tres(alloc, weights, max_tres=True) == 46.0
    assert billed_tres(alloc, weights) == 16 + 3.90625 + 40 + 6


def test_the_max_tres_flag_is_read_from_priority_flags():
    assert MultifactorWeights.from_cluster(cluster("PriorityFlags=MAX_TRES")).max_tres
    flags = cluster("PriorityFlags=NO_FAIR_TREE,MAX_TRES")
    assert MultifactorWeights.from_cluster(flags).max_tres
    assert not MultifactorWeights.from_cluster(flags).fair_tree
    assert not MultifactorWeights.from_cluster(cluster()).max_tres


def test_a_malformed_priority_weight_tres_is_named_with_its_line():
    with pytest.raises(ConfigError, match=r"line 6: PriorityWeightTRES='CPU=lots'.*CPU"):
        cluster("PriorityWeightTRES=CPU=lots")
    with pytest.raises(ConfigError, match=r"PriorityWeightTRES='CPU'.*TRES=weight"):
        cluster("PriorityWeightTRES=CPU")


# -- in a simulation ------------------------------------------------------------------------------
def tres_run():
    """A whole-cluster job runs 0-1800 s; a 4-GPU job and a 1-CPU job wait behind it."""
    jobs = (
        job("blocker", "-N 4 --exclusive -t 60", runtime=1800),
        job("gpu", "-N 1 -n 1 --gres=gpu:4 -t 10", submit=1),
        job("cpu", "-N 1 -n 1 -t 10", submit=1),
    )
    return simulate(cluster("PriorityWeightTRES=CPU=1000,GRES/gpu=4000"), Workload(jobs), "easy")


def test_sprio_shows_the_tres_factors_and_priority_includes_them():
    """gpu: 1000 + 15.6 + 1000 -> 2015, TRES cpu=16,gres/gpu=1000; cpu: 1000 + 15.6 -> 1015."""
    rows = tres_run().sprio(at=60).set_index("JOBID").to_dict("index")
    assert (rows["gpu"]["PRIORITY"], rows["gpu"]["TRES"]) == (2015, "cpu=16,gres/gpu=1000")
    assert (rows["cpu"]["PRIORITY"], rows["cpu"]["TRES"]) == (1015, "cpu=16")


def test_sprio_has_an_empty_tres_column_without_tres_weights():
    """Without PriorityWeightTRES the TRES column is empty, as in real sprio -l."""
    jobs = (
        job("blocker", "-N 4 --exclusive -t 60", runtime=1800),
        job("cpu", "-N 1 -n 1 -t 10", submit=1),
    )
    frame = simulate(cluster(), Workload(jobs), "easy").sprio(at=60)
    assert list(frame.columns)[-1] == "TRES"
    assert list(frame["TRES"]) == [""]
    assert list(frame["PRIORITY"]) == [1000]


def usage_after_one_job(extra: str) -> float:
    """Raw usage of account a after a 16-CPU, 4-GPU job ran 60 s (no decay)."""
    c = cluster("PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE\n" + extra)
    w = Workload((job("j", "-N 1 -n 16 --gres=gpu:4 -t 10", user="you"),))
    result = simulate(c, w, "easy", accounts=(Account("a", users=("you",)),))
    table = result.sshare(at=120).set_index(["Account", "User"])
    return table.loc[("a", ""), "RawUsage"]


def test_usage_is_the_max_of_the_weighted_tres_with_max_tres():
    """TRESBillingWeights=CPU=1.0,GRES/gpu=10.0 for 60 s: sum (16 + 40) x 60 = 3360;
    with PriorityFlags=MAX_TRES max(16, 40) x 60 = 2400; without weights 16 x 60 = 960."""
    bill = 'TRESBillingWeights="CPU=1.0,GRES/gpu=10.0"'
    assert usage_after_one_job(bill) == 3360
    assert usage_after_one_job(bill + "\nPriorityFlags=MAX_TRES") == 2400
    assert usage_after_one_job("") == 960


# -- TRESBillingWeights per partition, and sacct's billing TRES ---------------------------------
TWO_PARTITIONS = """
PriorityType=priority/multifactor
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
SelectTypeParameters=CR_Core_Memory
{extra}
NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:4
PartitionName=main Nodes=n[1-2] Default=YES MaxTime=INFINITE DefMemPerCPU=1000 {main}
PartitionName=cheap Nodes=n[3-4] MaxTime=INFINITE DefMemPerCPU=1000 {cheap}
"""


def billed_run(extra="", main="", cheap=""):
    """One 16-CPU, 4-GPU job of 60 s in each partition, users m (main) and c (cheap)."""
    c = Cluster.from_slurm_conf(TWO_PARTITIONS.format(extra=extra, main=main, cheap=cheap))
    jobs = (
        job("m", "-N 1 -n 16 --gres=gpu:4 -t 10 -p main", user="m"),
        job("c", "-N 1 -n 16 --gres=gpu:4 -t 10 -p cheap", user="c"),
    )
    accounts = (Account("a", users=("m", "c")),)
    return simulate(c, Workload(jobs), "easy", accounts=accounts)


def billing_of(result) -> dict[str, str]:
    tres = result.jobs.set_index("JobID")["AllocTRES"]
    return {k: next(t for t in v.split(",") if t.startswith("billing=")) for k, v in tres.items()}


def test_billing_weights_are_per_partition():
    """slurm.conf(5) sets TRESBillingWeights on the partition line: main bills GPUs x 10
    (16 + 40 = 56 per second), cheap has none and bills CPUs (16). Usage follows."""
    result = billed_run(main='TRESBillingWeights="CPU=1.0,GRES/gpu=10.0"')
    assert billing_of(result) == {"m": "billing=56", "c": "billing=16"}
    usage = result.sshare(at=120).set_index(["Account", "User"])["RawUsage"]
    assert (usage[("a", "m")], usage[("a", "c")]) == (56 * 60, 16 * 60)


def test_a_partitions_own_weights_win_over_a_cluster_wide_line():
    """A cluster-wide TRESBillingWeights (which slurmlab also reads) applies to partitions
    without their own; cheap's own CPU=0.5 wins there. MAX_TRES takes the maximum."""
    result = billed_run(
        extra='TRESBillingWeights="CPU=1.0,GRES/gpu=10.0"', cheap='TRESBillingWeights="CPU=0.5"'
    )
    assert billing_of(result) == {"m": "billing=56", "c": "billing=8"}
    result = billed_run(extra='TRESBillingWeights="CPU=1.0,GRES/gpu=10.0"\nPriorityFlags=MAX_TRES')
    assert billing_of(result) == {"m": "billing=40", "c": "billing=40"}


def test_fractional_billing_is_truncated_in_sacct_but_not_in_usage():
    """CPU=0.3 x 16 CPUs = 4.8: AllocTRES shows billing=4 (slurmctld keeps TRES counts as
    whole numbers); fair-share usage adds 4.8 per second."""
    result = billed_run(main='TRESBillingWeights="CPU=0.3"')
    assert billing_of(result)["m"] == "billing=4"
    usage = result.sshare(at=120).set_index(["Account", "User"])["RawUsage"]
    assert usage[("a", "m")] == pytest.approx(4.8 * 60)


def test_a_bad_partition_billing_weight_is_named_with_its_line():
    with pytest.raises(
        ConfigError, match=r"line 9: partition 'main': TRESBillingWeights='CPU=lots'"
    ):
        billed_run(main="TRESBillingWeights=CPU=lots")


def test_gpus_appear_as_accounting_storage_tres_tracks_them():
    """Without AccountingStorageTRES both gres/gpu and gres/gpu:a100 are shown; with
    AccountingStorageTRES=gres/gpu only the untyped count (as on the real-Slurm fixtures);
    with gres/gpu:a100 listed too, both."""

    def alloc(extra):
        return billed_run(extra=extra).jobs.set_index("JobID")["AllocTRES"]["m"]

    assert alloc("") == "billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,mem=16000M,node=1"
    assert (
        alloc("AccountingStorageTRES=gres/gpu") == "billing=16,cpu=16,gres/gpu=4,mem=16000M,node=1"
    )
    both = alloc("AccountingStorageTRES=gres/gpu,gres/gpu:a100")
    assert both == "billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,mem=16000M,node=1"


def test_an_exclusive_job_is_allocated_the_memory_it_asked_for():
    """--exclusive allocates all CPUs and GPUs of a node but only the memory requested
    (sbatch(1)): DefMemPerCPU or --mem-per-cpu x 16 CPUs, --mem as given, --mem=0 the node."""
    c = Cluster.from_slurm_conf(TWO_PARTITIONS.format(extra="", main="", cheap=""))
    args = {
        "default": "-N 1 --exclusive -t 10",
        "per_cpu": "-N 1 --exclusive --mem-per-cpu=500 -t 10",
        "per_node": "-N 1 --exclusive --mem=3000 -t 10",
        "whole": "-N 1 --exclusive --mem=0 -t 10",
    }
    jobs = tuple(job(k, a + " -p main", submit=i * 100) for i, (k, a) in enumerate(args.items()))
    tres = simulate(c, Workload(jobs), "fifo").jobs.set_index("JobID")["AllocTRES"]
    mem = {k: next(t for t in v.split(",") if t.startswith("mem=")) for k, v in tres.items()}
    assert mem == {
        "default": "mem=16000M", "per_cpu": "mem=8000M", "per_node": "mem=3000M",
        "whole": "mem=62.50G",  # (64000M: sacct prints it so, as real Slurm 22.05 did)
    }  # fmt: skip
