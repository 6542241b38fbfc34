"""Job priority: priority/multifactor by hand, its recalculation, and priority/basic.

The multifactor cluster: node[1-4] with 4 CPUs each (16 CPUs), partitions ``low``
(PriorityJobFactor=1) and ``high`` (PriorityJobFactor=4) over the same nodes, and

    prio = 1000 age + 2000 fairshare + 400 jobsize + 800 partition + 3000 qos - nice

with PriorityMaxAge=20 minutes, no usage decay, recalculation every minute. QOS
``high`` has priority 500 and ``top`` 1000 (the largest, so QOS factors are /1000).
The account tree: physics (60) with ann and ben, biology (40) with cat.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slurmlab.errors import SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.policies.priority import (
    TOP_PRIORITY,
    Factors,
    MultifactorWeights,
    age_factor,
    basic_priority,
    billing_weights,
    job_size_factor,
)
from slurmlab.sim.lab import Lab
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos
from slurmlab.spec.workload import Workload, WorkloadJob

NODES = """
NodeName=n[1-4] CPUs=4 RealMemory=8000
PartitionName=low Nodes=n[1-4] Default=YES PriorityJobFactor=1 MaxTime=INFINITE
PartitionName=high Nodes=n[1-4] PriorityJobFactor=4 MaxTime=INFINITE
"""
MULTIFACTOR = """
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=2000
PriorityWeightJobSize=400
PriorityWeightPartition=800
PriorityWeightQOS=3000
PriorityMaxAge=0:20:00
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
"""
CLUSTER = Cluster.from_slurm_conf(MULTIFACTOR + NODES)
BASIC = Cluster.from_slurm_conf(NODES)
ACCOUNTS = (Account("physics", 60, users=("ann", "ben")), Account("biology", 40, users=("cat",)))
QOS = (Qos("high", priority=500), Qos("top", priority=1000))


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def run(*jobs: WorkloadJob, policy="easy", cluster=CLUSTER, **kw):
    kw.setdefault("accounts", ACCOUNTS)
    kw.setdefault("qos", QOS)
    return simulate(cluster, Workload(jobs), policy, **kw)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def sprio(result, at) -> dict[str, dict]:
    """sprio's rows at ``at``, by JOBID."""
    return result.sprio(at=at).set_index("JOBID").to_dict("index")


#: ben's 16-CPU job holds the whole cluster 0-3000 s; ann's and cat's wait behind it.
HAND = (
    job("blocker", "-N 4 --exclusive -t 60 -p low", runtime=3000, user="ben"),
    job("j1", "-n 1 -t 10 -p low", submit=0, user="ann"),
    job("j2", "-N 2 -n 8 -t 10 -p high -q high --nice=100", submit=600, user="cat"),
)


# -- the formula -------------------------------------------------------------------------------------
def test_multifactor_priority_is_the_weighted_sum_of_documented_factors():
    """prio = sum of weight x factor - nice, each factor in [0, 1], truncated to an integer.

    At t=900 (ben's job has used CPU; ann and cat none):
    j1 (ann, 1 CPU on 1 node, low, normal QOS, waiting 900 s):
      age 900/1200 = 0.75 -> 750; fair share (Fair Tree over the four user associations,
      the cluster's root user included: root 4/4, biology's cat tied with it 4/4, then
      physics' ann 2/4, ben 1/4) 0.5 -> 1000; job size (1/4 nodes + 1/16 CPUs)/2 = 0.15625
      -> 62.5 (sprio rounds half to even: 62); partition 1/4 -> 200; QOS 0.
      Total 2012.5 -> 2012.
    j2 (cat, 8 CPUs on 2 nodes, high partition, QOS high, nice 100, waiting 300 s):
      age 300/1200 -> 250; fair share 1.0 -> 2000; job size (2/4 + 8/16)/2 -> 200;
      partition 4/4 -> 800; QOS 500/1000 -> 1500; minus nice 100. Total 4650.
    No PriorityWeightTRES: the TRES column is empty.
    """
    rows = sprio(run(*HAND), at=900)
    assert set(rows) == {"j1", "j2"}
    assert rows["j1"] | {} == {
        "PARTITION": "low", "USER": "ann", "ACCOUNT": "physics", "PRIORITY": 2012, "SITE": 0,
        "AGE": 750, "ASSOC": 0, "FAIRSHARE": 1000, "JOBSIZE": 62, "PARTITION_PRIO": 200,
        "QOS": 0, "NICE": 0, "TRES": "",
    }  # fmt: skip
    assert rows["j2"] == {
        "PARTITION": "high", "USER": "cat", "ACCOUNT": "biology", "PRIORITY": 4650, "SITE": 0,
        "AGE": 250, "ASSOC": 0, "FAIRSHARE": 2000, "JOBSIZE": 200, "PARTITION_PRIO": 800,
        "QOS": 1500, "NICE": 100, "TRES": "",
    }  # fmt: skip


def test_age_is_capped_at_priority_max_age():
    """age = min(eligible wait / PriorityMaxAge, 1): after 20 minutes both jobs reach 1000."""
    rows = sprio(run(*HAND), at=2400)
    assert rows["j1"]["AGE"] == 1000
    assert rows["j2"]["AGE"] == 1000
    assert rows["j1"]["PRIORITY"] == int(1000 + 1000 + 62.5 + 200)


def test_priority_is_recalculated_every_calc_period():
    """The age factor grows only at each PriorityCalcPeriod (1 minute here).

    j1 waits from t=0: sprio shows int(1000 x t/1200) at t = 60, 120, ...; between two
    recalculations (t=90) it still shows the value of t=60.
    """
    result = run(*HAND)
    ages = [sprio(result, at=t)["j1"]["AGE"] for t in (0, 59, 60, 90, 120, 600)]
    assert ages == [0, 0, 50, 50, 100, 500]
    assert result.squeue(at=90).set_index("JOBID").loc["j1", "PRIORITY"] > 0


def test_favor_small_inverts_the_job_size_factor():
    """PriorityFavorSmall=YES: the size factor is 1 - the fraction, so small jobs gain.

    j1: (3/4 + 15/16)/2 = 0.84375 -> 337.5, shown 338 (sprio rounds); j2: (2/4 + 8/16)/2 = 0.5 -> 200.
    """
    cluster = Cluster.from_slurm_conf(MULTIFACTOR + "PriorityFavorSmall=YES\n" + NODES)
    blocker, j1, j2 = HAND  # j1 comes a second later: it would now outrank the wide blocker
    rows = sprio(
        run(blocker, job("j1", "-n 1 -t 10 -p low", submit=1, user="ann"), j2, cluster=cluster),
        at=900,
    )
    assert rows["j1"]["JOBSIZE"] == 338
    assert rows["j2"]["JOBSIZE"] == 200


def test_nice_lowers_priority_by_its_value():
    """--nice=N subtracts N from the priority (sprio shows it in NICE)."""
    rows = sprio(
        run(
            job("blocker", "-N 4 --exclusive -t 60", runtime=3000, user="ben"),
            job("plain", "-n 1 -t 10", user="ann"),
            job("nice", "-n 1 -t 10 --nice=500", user="ann"),
        ),
        at=60,
    )
    assert rows["plain"]["PRIORITY"] - rows["nice"]["PRIORITY"] == 500
    assert rows["nice"]["NICE"] == 500


def test_higher_priority_job_submitted_later_starts_first():
    """The queue is evaluated by priority: cat's QOS-high job jumps ann's earlier one."""
    result = run(
        job("blocker", "-N 4 --exclusive -t 60", runtime=600, user="ben"),
        job("early", "-N 4 --exclusive -t 10", submit=1, user="ann"),
        job("late", "-N 4 --exclusive -t 10 -q top", submit=2, user="ann"),
    )
    assert starts(result) == {"blocker": 0, "early": 660, "late": 600}


def test_fifo_is_strict_priority_order_without_backfill_under_multifactor():
    """``fifo``: the highest-priority pending job blocks every other, whatever fits.

    ``wide`` (QOS top) needs all 4 nodes and waits for ``blocker``; ``small`` (1 node,
    lower priority) would fit now on the 3 idle nodes, but fifo never backfills, while
    easy starts it at once.
    """
    jobs = (
        job("blocker", "-N 1 --exclusive -t 10", runtime=600, user="ben"),
        job("wide", "-N 4 --exclusive -t 10 -q top", submit=1, user="ann"),
        job("small", "-N 1 --exclusive -t 5", submit=2, runtime=60, user="ann"),
    )
    assert starts(run(*jobs, policy="fifo")) == {"blocker": 0, "wide": 600, "small": 660}
    assert starts(run(*jobs, policy="easy")) == {"blocker": 0, "wide": 600, "small": 2}


def test_fifo_follows_recomputed_priorities():
    """Under fifo the order is by current priority, not submission: fair share reorders it.

    ann (physics) and cat (biology) each queue two full-cluster jobs behind ben's.
    Fair Tree ranks cat's account first while biology has no usage; after cat's first
    job runs, ann's jobs rank higher, so the jobs alternate: cat, ann, cat, ann.
    """
    cluster = Cluster.from_slurm_conf(
        MULTIFACTOR.replace("PriorityWeightAge=1000", "PriorityWeightAge=0") + NODES
    )
    result = run(
        job("blocker", "-N 4 --exclusive -t 10", runtime=600, user="ben"),
        job("a1", "-N 4 --exclusive -t 10", submit=1, runtime=600, user="ann"),
        job("a2", "-N 4 --exclusive -t 10", submit=2, runtime=600, user="ann"),
        job("c1", "-N 4 --exclusive -t 10", submit=3, runtime=600, user="cat"),
        job("c2", "-N 4 --exclusive -t 10", submit=4, runtime=600, user="cat"),
        policy="fifo",
        cluster=cluster,
    )
    order = sorted(starts(result).items(), key=lambda kv: kv[1])
    assert [k for k, _ in order] == ["blocker", "c1", "a1", "c2", "a2"]


# -- priority/basic ----------------------------------------------------------------------------------
def test_basic_priority_counts_down_from_top_in_submit_order():
    """priority/basic: each job one below the previous, starting below 0xffff0000."""
    assert basic_priority(1) == TOP_PRIORITY - 1
    assert basic_priority(2) == TOP_PRIORITY - 2
    assert basic_priority(2, nice=10) == TOP_PRIORITY - 12


def test_basic_priority_is_submit_order_whatever_the_qos():
    """Without PriorityType=priority/multifactor, QOS priority does not reorder the queue."""
    result = run(
        job("blocker", "-N 4 --exclusive -t 10", runtime=600, user="ben"),
        job("early", "-N 4 --exclusive -t 10", submit=1, user="ann"),
        job("late", "-N 4 --exclusive -t 10 -q top", submit=2, user="ann"),
        cluster=BASIC,
    )
    assert starts(result) == {"blocker": 0, "early": 600, "late": 660}
    prio = dict(zip(result.jobs["JobID"], result.jobs["Priority"], strict=True))
    assert prio == {
        "blocker": TOP_PRIORITY - 1,
        "early": TOP_PRIORITY - 2,
        "late": TOP_PRIORITY - 3,
    }


def test_sprio_needs_multifactor():
    """sprio explains that priority/basic has no factors to show."""
    result = run(job("a", "-n 1 -t 1", user="ann"), cluster=BASIC)
    with pytest.raises(SlurmlabError, match="priority/multifactor"):
        result.sprio()


# -- settings ----------------------------------------------------------------------------------------
def test_weights_come_from_slurm_conf_with_slurms_units():
    """PriorityWeight* are integers; PriorityMaxAge etc. are Slurm times (plain number = minutes)."""
    cluster = Cluster.from_slurm_conf(
        MULTIFACTOR
        + "PriorityFlags=NO_FAIR_TREE\nFairShareDampeningFactor=2\n"
        + 'TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"\n'
        + NODES
    )
    w = MultifactorWeights.from_cluster(cluster)
    assert (w.age, w.fairshare, w.jobsize, w.partition, w.qos, w.assoc) == (
        1000, 2000, 400, 800, 3000, 0,
    )  # fmt: skip
    assert (w.max_age, w.decay_half_life, w.calc_period) == (1200.0, 0.0, 60.0)
    assert (w.fair_tree, w.dampening, w.favor_small) == (False, 2.0, False)
    weights = {"cpu": 1.0, "mem": 0.25 / 1024, "gres/gpu": 2.0}
    assert billing_weights(cluster) == {p.name: weights for p in cluster.partitions}
    assert MultifactorWeights.from_cluster(BASIC) is None


def test_defaults_follow_slurm():
    """Unset: weights 0, PriorityMaxAge 7-0, half-life 7-0, PriorityCalcPeriod 5 min, Fair Tree."""
    w = MultifactorWeights.from_cluster(
        Cluster.from_slurm_conf("PriorityType=priority/multifactor\n" + NODES)
    )
    assert w == MultifactorWeights()
    assert (w.max_age, w.decay_half_life, w.calc_period, w.fair_tree) == (
        604800.0, 604800.0, 300.0, True,
    )  # fmt: skip


def test_a_non_integer_weight_is_rejected_with_its_name():
    """PriorityWeight* must be whole numbers (uint32 in Slurm)."""
    with pytest.raises(SlurmlabError, match="PriorityWeightAge"):
        MultifactorWeights.from_cluster(
            Cluster.from_slurm_conf(
                "PriorityType=priority/multifactor\nPriorityWeightAge=high\n" + NODES
            )
        )


# -- invariants --------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(
    st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1),
    st.integers(0, 10_000),
)  # fmt: skip
def test_sprio_columns_sum_to_priority_modulo_truncation(age, fs, size, part, qos, nice):
    """Each sprio column is weight x factor rounded (as sprio prints it); PRIORITY is
    int(sum - nice) (at least 1). So PRIORITY lies within 4 of the column sum minus NICE
    (half a unit per rounded column, one for the truncation).
    """
    w = MultifactorWeights(age=1000, fairshare=2000, jobsize=400, partition=800, qos=3000)
    f = Factors(age=age, fairshare=fs, jobsize=size, partition=part, qos=qos, nice=nice)
    cols = f.weighted(w)
    total = sum(v for k, v in cols.items() if k != "NICE") - cols["NICE"]
    assert total - 4 <= f.priority(w) <= max(total + 4, 1)
    assert f.priority(w) >= 1


def test_sprio_rows_of_a_simulation_sum_to_their_priority():
    """The same relation holds for every row sprio shows during a simulation."""
    result = run(*HAND)
    for t in (0, 600, 900, 2400):
        frame = result.sprio(at=t)
        cols = ["AGE", "ASSOC", "FAIRSHARE", "JOBSIZE", "PARTITION_PRIO", "QOS"]
        total = frame[cols].sum(axis=1) - frame["NICE"] + frame["SITE"]
        assert ((frame["PRIORITY"] - total).abs() <= len(cols)).all()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.booleans())
def test_job_size_factor_lies_in_zero_one_and_grows_with_size(n1, n2, small):
    """The job-size factor is in [0, 1] and monotone in size (reversed by PriorityFavorSmall)."""
    lo, hi = sorted((n1, n2))
    f_lo = job_size_factor(lo, 4 * lo, 8, 32, small)
    f_hi = job_size_factor(hi, 4 * hi, 8, 32, small)
    assert 0 <= f_lo <= 1 and 0 <= f_hi <= 1
    assert (f_lo >= f_hi) if small else (f_lo <= f_hi)
    assert job_size_factor(8, 32, 8, 32, False) == 1.0


def test_age_factor_is_linear_then_flat():
    """age = wait / PriorityMaxAge, capped at 1; PriorityMaxAge=0 gives everyone 1."""
    assert age_factor(300, 1200) == 0.25
    assert age_factor(5000, 1200) == 1.0
    assert age_factor(10, 0) == 1.0


# -- the sprio view ----------------------------------------------------------------------------------
def test_sprio_lists_pending_jobs_only_in_job_id_order():
    """sprio shows pending jobs (not running ones) in job id order, as real sprio sorts by
    default (sprio/sort.c "i"; stop 30: it was by PRIORITY, j2 first), with sprio's columns."""
    result = run(*HAND)
    frame = result.sprio(at=900)
    assert list(frame["JOBID"]) == ["j1", "j2"]
    assert frame.set_index("JOBID")["PRIORITY"]["j2"] > frame.set_index("JOBID")["PRIORITY"]["j1"]
    for col in (
        "JOBID",
        "PRIORITY",
        "AGE",
        "FAIRSHARE",
        "JOBSIZE",
        "PARTITION_PRIO",
        "QOS",
        "NICE",
    ):
        assert col in frame.columns
    assert list(result.sprio(at=0)["JOBID"]) == ["j1"]  # j2 is not yet submitted
    assert result.sprio(at=3000).empty  # both started at 3000


def test_sprio_text_looks_like_the_command():
    """sprio_text has sprio -l's header (PARTITION for the partition factor, TRES last; no
    ACCOUNT: sprio.c's long format has none) and one row a job."""
    lines = run(*HAND).sprio_text(at=900).splitlines()
    assert lines[0].split() == [
        "JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC", "FAIRSHARE",
        "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[1:]] == ["j1", "j2"]  # (by job id, as sprio)
    assert lines[2].split()[:4] == ["j2", "high", "cat", "4650"]
    assert len(lines) == 3


def test_lab_sprio_and_sshare_follow_the_lab_clock():
    """Lab.sprio() and Lab.sshare() show the views at the lab's current time.

    Priorities keep being recalculated (at multiples of PriorityCalcPeriod) when jobs are
    submitted after the lab was idle: at t=1020 ann's job has waited 300 s.
    """
    lab = Lab(CLUSTER, accounts=ACCOUNTS, qos=QOS)
    lab.sbatch("-N 4 --exclusive -t 60", runtime=600, user="ben")
    lab.advance(720)  # ben's job ends at 600; nothing runs or waits until 720
    lab.sbatch("-N 4 --exclusive -t 60", runtime=1200, user="ben")
    waiting = lab.sbatch("-n 1 -t 10", user="ann")
    lab.advance(300)
    rows = lab.sprio().set_index("JOBID")
    assert rows.loc[str(waiting), "AGE"] == 250  # 300 s of 1200
    sshare = lab.sshare().set_index(["Account", "User"])
    assert sshare.loc[("physics", "ben"), "RawUsage"] == 16 * 600 + 16 * 300
