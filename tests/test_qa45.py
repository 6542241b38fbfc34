"""Stop 45: rules of Slurm 22.05 checked against its source, one at a time.

A partition's own OverTimeLimit (read_config.c ``_parse_partitionname``) overrides the
cluster's for the jobs that run in it, both when they are killed (job_mgr.c
``job_time_limit``) and when plans guess their end (cons_common/job_test.c
``_guess_job_end``).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from slurmlab import Cluster, Lab
from slurmlab.spec.qos import Qos

ORIGIN = pd.Timestamp("2026-01-05 00:00:00")

PART_OVERTIME_CONF = """SelectType=select/cons_tres
SelectTypeParameters=CR_Core
OverTimeLimit=1
KillWait=30
SchedulerParameters=bf_interval=5,bf_resolution=60,bf_window=120
NodeName=n[1-3] CPUs=8 RealMemory=32000
PartitionName=p Nodes=n[1-3] Default=YES MaxTime=60{extra}
PartitionName=q Nodes=n[1-3] MaxTime=60
"""


def _cluster(extra: str) -> Cluster:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the option is modelled: no warning)
        return Cluster.from_slurm_conf(PART_OVERTIME_CONF.format(extra=extra))


@pytest.mark.parametrize(
    ("extra", "elapsed_p"),
    [("", 120), (" OverTimeLimit=3", 240), (" OverTimeLimit=UNLIMITED", 600),
     (" OverTimeLimit=INFINITE", 600)],
)  # fmt: skip
def test_a_partitions_overtimelimit_overrides_the_clusters_for_its_jobs(extra, elapsed_p):
    """Two 1-minute jobs that would run 10 minutes, one in each partition: the one in ``q``
    is killed at 1 + 1 minutes (the cluster's OverTimeLimit); the one in ``p`` at 1 + its
    partition's (never, under UNLIMITED: it completes)."""
    lab = Lab(_cluster(extra))
    lab.sbatch("-N 1 -t 1 -p p", runtime=600)
    lab.sbatch("-N 1 -t 1 -p q", runtime=600)
    lab.run(until=3600)
    acct = lab.sacct().set_index("JobID")
    assert acct.loc["2", "State"] == "TIMEOUT"
    assert acct.loc["2", "Elapsed"].total_seconds() == 120
    assert acct.loc["1", "Elapsed"].total_seconds() == elapsed_p
    assert acct.loc["1", "State"] == ("COMPLETED" if elapsed_p == 600 else "TIMEOUT")


def test_plans_guess_the_end_of_an_overtime_job_with_its_partitions_overtimelimit():
    """``_guess_job_end``: limit + KillWait + the partition's OverTimeLimit. R1 (limit
    300 s, partition p with OverTimeLimit=10) runs past its limit; the 3-node job H is
    planned at 300 + 30 + 600 = 930 s, where the cluster's OverTimeLimit=1 would give 390."""
    lab = Lab(_cluster(" OverTimeLimit=10"), policy="slurm")
    lab.sbatch("-N 2 --exclusive -t 5 -w n[1-2]", runtime=1000)
    lab.sbatch("-N 3 -t 10", runtime=60)
    lab.advance("314s")
    lab.sbatch("-N 1 -t 3 -p q", runtime=60)  # (something new: a backfill cycle at 315 s)
    lab.advance("2s")
    q = lab.squeue().set_index("JOBID")
    assert (q.loc["2", "START_TIME"] - ORIGIN).total_seconds() == 930.0


def test_a_bad_partition_overtimelimit_is_refused_with_the_line():
    with pytest.raises(Exception, match=r"line 7.*OverTimeLimit='5s'.*whole number of minutes"):
        Cluster.from_slurm_conf(PART_OVERTIME_CONF.format(extra=" OverTimeLimit=5s"))


# -- --begin=MM/DD past the month's end: mktime() rolls it over ------------------------------


@pytest.mark.parametrize(
    ("begin", "expected"),
    [("02/30", "2026-03-02 00:00:00"), ("02/29T10:00", "2026-03-01 10:00:00"),
     ("04/31", "2026-05-01 00:00:00"), ("2028-02-30T00:00:00", "2028-03-01 00:00:00"),
     ("01/01", "2027-01-01 00:00:00")],
)  # fmt: skip
def test_begin_month_day_past_the_months_end_rolls_into_the_next(begin, expected):
    """parse_time.c ``_get_date`` checks only month 1-12 and day 1-31; ``slurm_mktime``
    then rolls 02/30 into March (2026 is a common year, 2028 a leap year). A date without a
    year not later than the submission's (01/01 on 2026-01-05) is next year's."""
    lab = Lab(Cluster.preset("tiny"))
    jid = lab.sbatch(f"-n 1 --begin={begin}", runtime=60)
    row = lab.squeue().set_index("JOBID").loc[str(jid)]
    assert row["NODELIST(REASON)"] == "(BeginTime)"
    assert row["START_TIME"] == pd.Timestamp(expected)
    assert lab.sacct().set_index("JobID").loc[str(jid), "Eligible"] == pd.Timestamp(expected)


@pytest.mark.parametrize("begin", ["13/01", "02/32", "00/10"])
def test_begin_month_day_out_of_range_is_refused(begin):
    with pytest.raises(Exception, match="--begin"):
        Lab(Cluster.preset("tiny")).sbatch(f"-n 1 --begin={begin}", runtime=60)


# -- QueueView.choose_nodes: a custom policy gets Slurm's selection with every rule ------------


class _FirstFit:
    """Priority order, no backfill, placing with ``view.choose_nodes`` alone."""

    def schedule(self, view):
        from slurmlab.policies import Decision, Start

        decision, free = Decision(), view.free.copy()
        for job in view.queue:
            nodes = view.choose_nodes(job, free)
            if nodes is None:
                decision.reasons[job.id] = "Resources"
                break
            free[list(nodes)] -= job.usage(nodes, view.capacity)
            decision.starts.append(Start(job.id, nodes, partition=job.partition))
        return decision


@pytest.mark.parametrize(
    "args",
    [
        "-N 1-3 --ntasks-per-node=2 --mem=1000",
        "-N 2 --gpus=6 --mem=1000",
        "-n 1 --gres=gpu:1 --ntasks-per-node=1 --mem=1000",
        "-n 3 --mem-per-cpu=9000",
    ],
)
def test_a_custom_policy_placing_with_view_choose_nodes_places_as_fifo(args):
    """The README's custom-policy example places with ``view.choose_nodes(job, free)``:
    ``--nodes=MIN-MAX`` (all it can get, up to MAX), GPUs per job, fixed tasks per node and
    memory per CPU are placed as the built-in policies place them."""
    from slurmlab import simulate
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    first = JobSpec.from_args("-N 1 -n 1 --gres=gpu:1 --mem=1000 -w gpu1")
    jobs = [
        WorkloadJob(first, 0, 500, id="a"),
        WorkloadJob(JobSpec.from_args(args), 1, 100, id="b"),
    ]
    cluster = Cluster.from_slurm_conf(
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\n"
        "NodeName=gpu[1-3] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
        "PartitionName=p Nodes=gpu[1-3] Default=YES\n"
    )
    mine = simulate(cluster, Workload(jobs), policy=_FirstFit(), progress=False).jobs
    fifo = simulate(cluster, Workload(jobs), policy="fifo", progress=False).jobs
    assert mine["NodeList"].tolist() == fifo["NodeList"].tolist()
    assert mine["Start"].tolist() == fifo["Start"].tolist()


# -- preemption (preempt/qos) as select/cons_tres and acct_policy.c choose -------------------


def _one_node(mode: str, extra: str = "") -> Cluster:
    return Cluster.from_slurm_conf(
        f"PreemptType=preempt/qos\nPreemptMode={mode}\n{extra}SelectType=select/cons_tres\n"
        "SelectTypeParameters=CR_Core\nNodeName=n1 CPUs=16 RealMemory=64000\n"
        "PartitionName=main Nodes=n1 Default=YES MaxTime=INFINITE\n"
    )


def _preempt_run(cluster, jobs, qos):
    from slurmlab import simulate
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    work = Workload(tuple(WorkloadJob(JobSpec.from_args(a), s, rt, id=i) for i, a, s, rt in jobs))
    result = simulate(cluster, work, "easy", qos=qos, progress=False)
    victims = [e[3] for e in result.sim.events if e[1] == "preempt"]
    starts = dict(zip(result.jobs["JobID"], result.jobs["Start"]))
    return victims, starts


HIGH = Qos("high", priority=100, preempt=("normal",))


def test_preemption_re_sorts_the_candidates_to_preempt_fewer_jobs():
    """cons_common/job_test.c ``_run_now``: taking v1 (-n 4), then v2 (-n 12), out lets the
    -n 12 preemptor fit; the candidates are re-sorted, v2 (whose removal made it fit) first,
    and the second try fits with v2 alone: v1 runs on (PreemptParameters reorder_count=1)."""
    victims, _ = _preempt_run(
        _one_node("REQUEUE"),
        [("v1", "-n 4 -t 100", 0, 3000), ("v2", "-n 12 -t 100", 0, 3000),
         ("hi", "-n 12 -t 20 -q high", 10, 300)],
        (HIGH,),
    )  # fmt: skip
    assert victims == ["v2"]


def test_preemption_still_takes_every_victim_it_needs():
    """Three -n 4 jobs and a -n 8 one on 16 CPUs; a -n 16 preemptor needs them all."""
    victims, starts = _preempt_run(
        _one_node("CANCEL"),
        [("a", "-n 4 -t 100", 0, 3000), ("b", "-n 4 -t 100", 0, 3000),
         ("c", "-n 8 -t 100", 0, 3000), ("hi", "-n 16 -t 20 -q high", 10, 300)],
        (HIGH,),
    )  # fmt: skip
    assert sorted(victims) == ["a", "b", "c"]


def test_a_qos_preempt_mode_off_is_the_clusters_mode():
    """sacctmgr(1): OFF, "" or Cluster unset a QOS's PreemptMode (preempt_mode_num gives 0
    for both), and preempt_qos.c ``_job_preempt_mode`` then takes slurm.conf's: the
    victim of a QOS with PreemptMode=OFF is requeued under the cluster's REQUEUE."""
    with pytest.warns(UserWarning, match="Slurm reads OFF as the cluster's PreemptMode"):
        normal = Qos("normal", preempt_mode="OFF")
    victims, starts = _preempt_run(
        _one_node("REQUEUE"),
        [("v1", "-n 16 -t 100", 0, 3000), ("hi", "-n 12 -t 20 -q high", 10, 300)],
        (HIGH, normal),
    )
    assert victims == ["v1"]
    assert starts["hi"] == ORIGIN + pd.Timedelta(seconds=10)


def test_a_scenario_qos_preempt_mode_off_or_cluster_is_the_clusters(tmp_path):
    """In a scenario, ``preempt_mode: off`` (YAML's false) and ``cluster`` are the cluster's
    mode too; off is warned about with the file."""
    from slurmlab import Scenario

    for mode in ("off", "cluster", "CLUSTER"):
        path = tmp_path / f"s-{mode}.yaml"
        path.write_text(
            "cluster: tiny\npolicy: easy\n"
            f"qos:\n  - {{name: scav, preempt_mode: {mode}}}\n"
            "jobs:\n  - {submit: 0, runtime: 60, args: -n 1 -q scav}\n"
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sc = Scenario.load(path)
        assert next(q for q in sc.qos if q.name == "scav").preempt_mode is None
        said = [str(w.message) for w in caught if "reads OFF" in str(w.message)]
        assert bool(said) == (mode == "off")


@pytest.mark.parametrize("value", ["-1", "UNLIMITED", "infinite"])
def test_a_qos_preempt_exempt_time_of_minus_one_or_unlimited_is_unset(value):
    """sacctmgr PreemptExemptTime=-1 (or UNLIMITED) leaves the QOS's unset: INFINITE, which
    acct_policy_get_preemptable_time passes over for slurm.conf's."""
    assert Qos("scav", preempt_exempt_time=value).preempt_exempt_time is None


# -- classic fair share: the accounts' EffectvUsage lags one PriorityCalcPeriod ---------------

CLASSIC = """
cluster:
  nodes: [{name: "n[1-4]", cpus: 16, memory: 64000}]
  partitions: [{name: main, nodes: "n[1-4]", max_time: "1-00:00:00"}]
  settings: {PriorityType: priority/multifactor, PriorityWeightAge: 1000,
             PriorityWeightFairshare: 10000, PriorityWeightJobSize: 1000,
             PriorityCalcPeriod: "1", PriorityMaxAge: "1:00:00",
             PriorityDecayHalfLife: "1:00:00", PriorityFlags: NO_FAIR_TREE}
policy: slurm
accounts:
  - {name: llm, shares: 70, users: [alice, bob]}
  - {name: vision, shares: 30, users: [carol]}
jobs:
  - {id: blocker, submit: 0, runtime: 90, user: alice, args: "-N 4 --exclusive -t 10 -A llm"}
  - {id: b1, submit: 5, runtime: 60, user: bob, args: "-N 4 --exclusive -t 10 -A llm"}
  - {id: c1, submit: 6, runtime: 60, user: carol, args: "-N 4 --exclusive -t 10 -A vision"}
"""


def test_classic_fair_share_sets_the_accounts_usage_before_the_recalculations_charges():
    """priority_multifactor.c ``_decay_thread`` (classic): ``_set_children_usage_efctv``
    sets the accounts' EffectvUsage first, then usage is decayed and the running jobs
    charged, and users' factors read their account's value as set before. At the 60 s
    recalculation llm's EffectvUsage is still 0 (alice's blocker is charged only then), so
    bob's factor is 1.0, as carol's: b1 (older) starts first when the blocker ends."""
    import yaml

    from slurmlab import Scenario

    result = Scenario.from_dict(yaml.safe_load(CLASSIC)).run()
    prio = result.sprio(at=70).set_index("JOBID")
    assert prio.loc["b1", "FAIRSHARE"] == prio.loc["c1", "FAIRSHARE"] == 10000
    starts = dict(zip(result.jobs["JobID"], result.seconds("Start")))
    assert starts["b1"] == 90.0 and starts["c1"] == 150.0
    # sshare shows the accounts' values as set: llm's 0 at 70 s; at the next
    # recalculation, 120 s, its usage has caught up (all of the cluster's)
    shown = result.sshare(at=70).set_index(["Account", "User"])
    assert shown.loc[("llm", ""), "EffectvUsage"] == shown.loc[("llm", ""), "NormUsage"] == 0.0
    assert shown.loc[("llm", "bob"), "FairShare"] == 1.0
    later = result.sshare(at=130).set_index(["Account", "User"])
    assert later.loc[("llm", ""), "EffectvUsage"] == 1.0


MAXJOBS = """
cluster:
  nodes: [{name: "n[1-4]", cpus: 16, memory: 64000}]
  partitions: [{name: main, nodes: "n[1-4]", max_time: "1-00:00:00"}]
policy: slurm
accounts:
  - {name: llm, shares: 70, users: [alice, bob], max_jobs: 1}
qos:
  - {name: normal%s}
jobs:
  - {id: a1, submit: 0, runtime: 600, user: alice, args: "-n 1 -t 20 -A llm"}
  - {id: a2, submit: 5, runtime: 600, user: alice, args: "-n 1 -t 20 -A llm"}
"""


@pytest.mark.parametrize(
    ("qos", "reason"), [("", "(AssocMaxJobsLimit)"), (", max_jobs_per_user: 5", None)]
)
def test_a_qos_max_jobs_per_user_overrides_the_associations_max_jobs(qos, reason):
    """acct_policy_job_runnable_pre_select tests the association's MaxJobs only while the
    QOS's MaxJobsPerUser is INFINITE: a QOS that has one, reached or not, overrides it (the
    rule of QOS limits over association limits)."""
    import yaml

    from slurmlab import Scenario

    result = Scenario.from_dict(yaml.safe_load(MAXJOBS % qos)).run(until=30)
    q = result.squeue(at=30).set_index("JOBID")
    if reason is None:
        assert q.loc["a2", "ST"] == "R"
    else:
        assert q.loc["a2", "NODELIST(REASON)"] == reason


def test_priority_weight_tres_takes_negative_and_fractional_weights():
    """slurm.conf(5) PriorityWeightTRES: "Negative values are allowed"; ``_tres_weight_item``
    reads each with strtod. A CPU weight of -1000 ranks the wider of two jobs lower."""
    conf = (
        "PriorityType=priority/multifactor\nPriorityWeightTRES=CPU=-1000,GRES/gpu=0.5\n"
        "PriorityWeightAge=0\nPriorityWeightPartition=100000\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        "NodeName=n1 CPUs=16 RealMemory=64000\nPartitionName=p Nodes=n1 Default=YES\n"
    )
    lab = Lab(Cluster.from_slurm_conf(conf))
    lab.sbatch("-n 16 -t 10", runtime=600)  # (holds the node)
    wide = lab.sbatch("-n 16 -t 10", runtime=60)
    narrow = lab.sbatch("-n 4 -t 10", runtime=60)
    prio = lab.sprio().set_index("JOBID")
    assert prio.loc[str(narrow), "PRIORITY"] > prio.loc[str(wide), "PRIORITY"] >= 1


def test_priority_weight_tres_that_is_not_a_number_names_it():
    with pytest.raises(Exception, match="PriorityWeightTRES.*the weight of CPU must be a number"):
        Cluster.from_slurm_conf(
            "PriorityType=priority/multifactor\nPriorityWeightTRES=CPU=lots\n"
            "NodeName=n1 CPUs=16 RealMemory=64000\nPartitionName=p Nodes=n1 Default=YES\n"
        )


WALL = """
cluster:
  nodes: [{name: "n[1-4]", cpus: 16, memory: 64000}]
  partitions: [{name: main, nodes: "n[1-4]", max_time: "1-00:00:00"}]
policy: slurm
qos:
  - {name: normal}
  - {name: low, max_wall: 30, max_jobs_per_user: 1}
jobs:
  - {id: r1, submit: 0, runtime: 600, user: alice, args: "-n 1 -t 20 --qos=low"}
  - {id: w1, submit: 5, runtime: 60, user: alice, args: "-n 1 -t 60 --qos=low"}
"""


def test_a_qos_max_jobs_per_user_is_tested_before_its_max_wall():
    """acct_policy.c ``_qos_job_runnable_pre_select`` tests max_jobs_pu before max_wall_pj:
    w1, over both, shows QOSMaxJobsPerUserLimit while r1 runs, then
    QOSMaxWallDurationPerJobLimit (it never starts)."""
    import yaml

    from slurmlab import Scenario

    result = Scenario.from_dict(yaml.safe_load(WALL)).run(until=900)
    reason = {
        t: result.squeue(at=t).set_index("JOBID").loc["w1", "NODELIST(REASON)"] for t in (30, 700)
    }
    assert reason == {30: "(QOSMaxJobsPerUserLimit)", 700: "(QOSMaxWallDurationPerJobLimit)"}
