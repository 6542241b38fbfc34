"""QA stop 26: a Slurm administrator's review of multifactor priority and fair share.

* Job size and the TRES factor count the nodes and CPUs asked for, as slurmctld's
  min_nodes and min_cpus while the job pends: ``-n 40`` alone is one node and 40 CPUs
  (priority_multifactor.c; job_set_req_tres), not the three nodes slurmlab gives it.
"""

from __future__ import annotations

import textwrap

from slurmlab.scenario import Scenario


def test_job_size_counts_the_nodes_and_cpus_asked_for(tmp_path):
    path = tmp_path / "js.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            cluster:
              nodes: [{name: "n[1-4]", cpus: 16, memory: 64000M}]
              settings:
                PriorityType: priority/multifactor
                PriorityWeightJobSize: 1000
                PriorityWeightTRES: "CPU=1000,Node=1000"
            policy: slurm
            jobs:
              - {id: blk, submit: 0, runtime: 1000, args: "-N 4 --exclusive -t 30"}
              - {id: n40, submit: 1, runtime: 100, args: "-n 40 -t 10"}
              - {id: N2n32, submit: 1, runtime: 100, args: "-N 2 -n 32 -t 10"}
            """
        )
    )
    r = Scenario.load(path).run()
    prio = dict(zip(r.jobs["JobID"], r.jobs["Priority"], strict=True))
    # n40: job size (1/4 + 40/64) / 2 = 0.4375 -> 437.5; TRES cpu 40/64 -> 625, node 1/4
    # -> 250: 1312 (truncated). N2n32: (2/4 + 32/64) / 2 -> 500, cpu 500, node 500: 1500
    assert prio["n40"] == 1312
    assert prio["N2n32"] == 1500
    starts = dict(zip(r.jobs["JobID"], r.seconds("Start"), strict=True))
    assert starts["N2n32"] < starts["n40"]  # the higher priority starts first


def test_a_negative_nice_is_an_operators_privilege():
    # validate_job_create_req (job_mgr.c): ESLURM_INVALID_NICE unless root or SlurmUser
    import pytest

    import slurmlab
    from slurmlab.errors import RequestError

    lab = slurmlab.Lab("tiny")
    with pytest.raises(RequestError, match=r"--nice=-500: Invalid --nice value \(a negative"):
        lab.sbatch("-n 1 -t 10 --nice=-500", user="alice")
    assert lab.sbatch("-n 1 -t 10 --nice=-500", user="root") == 1  # (no id used up before)
    assert lab.sbatch("-n 1 -t 10 --nice=500", user="alice") == 2


def test_the_priority_is_capped_at_32_bits():
    from slurmlab.policies.priority import Factors, MultifactorWeights

    w = MultifactorWeights(age=4_000_000_000, qos=4_000_000_000)
    assert Factors(age=1.0, qos=1.0).priority(w) == 4294967295


def test_fairshare_parent_is_named_as_not_modelled():
    import pytest

    from slurmlab.errors import SlurmlabError
    from slurmlab.policies.fairshare import Account

    with pytest.raises(
        SlurmlabError, match=r"Fairshare=parent: use the parent's fair share\) is not modelled"
    ):
        Account("a", "parent")


def test_a_job_over_two_qos_limits_shows_the_one_slurm_checks_first(tmp_path):
    # acct_policy.c: QOS GrpTRES is tested before MaxTRESPerUser (_qos_job_runnable_post_select)
    # d1 asks for 8 GPUs under max_tres_per_user gres/gpu=4 and grp_tres gres/gpu=6
    path = tmp_path / "q.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            cluster:
              nodes: [{name: "n[1-4]", cpus: 16, memory: 64000M, gres: "gpu:4"}]
            policy: slurm
            qos:
              - {name: normal, priority: 0}
              - {name: lim, priority: 1000, max_tres_per_user: "gres/gpu=4", grp_tres: "gres/gpu=6"}
            jobs:
              - {id: d1, submit: 5, runtime: 600, user: dave, args: "-N 2 --gres=gpu:4 -t 20 --qos=lim"}
            """
        )
    )
    r = Scenario.load(path).run(until=100)
    assert r.squeue(at=10)["NODELIST(REASON)"].tolist() == ["(QOSGrpGRES)"]
