"""Issue 'priority, fair share, QOS, reservations and preemption', done when: two teams with
shares 70/30 on the AI preset submit days of jobs and their usage converges toward the shares,
with sshare and sprio explaining it."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import numpy as np
import pytest

import slurmlab
from slurmlab import Account, JobSpec, Workload, WorkloadJob

DAYS = 4


@pytest.fixture(scope="module")
def result():
    ai = slurmlab.Cluster.preset("ai")
    settings = dict(ai.settings) | {
        "PriorityType": "priority/multifactor",
        "PriorityWeightFairshare": "10000",
        "PriorityWeightAge": "100",
        "PriorityDecayHalfLife": "1-00:00:00",
        "PriorityCalcPeriod": "5",
        "PriorityMaxAge": "1-00:00:00",
    }
    cluster = dataclasses.replace(ai, settings=settings)
    rng = np.random.default_rng(3)
    jobs = []
    # each team alone would keep all 256 GPUs busy: only fair share decides who runs
    for team, users in (("llm", ("alice", "bob")), ("vision", ("carol", "dave"))):
        t, i = 0.0, 0
        while t < DAYS * 86400:
            t += rng.exponential(1800)
            spec = JobSpec(
                nodes=8, gpus_per_node=8, ntasks_per_node=8, time_limit=timedelta(hours=4)
            )
            run = float(rng.uniform(1, 4) * 3600)
            jobs.append(WorkloadJob(spec, round(t), round(run), user=users[i % 2], account=team))
            i += 1
    jobs.sort(key=lambda j: j.submit)
    accounts = [
        Account("llm", 70, users=("alice", "bob")),
        Account("vision", 30, users=("carol", "dave")),
    ]
    return slurmlab.simulate(cluster, Workload(tuple(jobs)), "easy", accounts=accounts)


def test_usage_converges_toward_the_shares(result):
    """After the first day, each day's GPU-hours split within 0.05 of 70/30."""
    jobs = result.jobs
    for day in range(1, DAYS):
        lo = result.origin + timedelta(days=day)
        sel = jobs[(jobs.Start >= lo) & (jobs.Start < lo + timedelta(days=1))]
        gpu_s = (sel.NGPUS * sel.Elapsed.dt.total_seconds()).groupby(sel.Account).sum()
        assert abs(gpu_s["llm"] / gpu_s.sum() - 0.70) < 0.05, day


def test_sshare_shows_effective_usage_near_the_shares(result):
    """sshare: each account's effective usage is near its normalized shares (70/101: the
    cluster's root user association holds 1 share beside them)."""
    share = result.sshare(at=(DAYS - 1) * 86400).set_index(["Account", "User"])
    assert share.loc[("llm", ""), "NormShares"] == pytest.approx(70 / 101)
    assert abs(share.loc[("llm", ""), "EffectvUsage"] - 0.7) < 0.05
    assert "FairShare" in result.sshare_text(at=(DAYS - 1) * 86400)


def test_sprio_orders_the_pending_jobs_by_their_factors(result):
    """sprio lists every pending job in job id order (real sprio's default sort, sprio/sort.c
    "i"; the fixtures' sprio -l list job 5 of priority 21348 after jobs 2-4 of 11348), and
    its factors add up; sorted by priority, it shows the order the scheduler takes them in."""
    prio = result.sprio(at=(DAYS - 1) * 86400)
    assert len(prio) > 0
    ids = [result.sim.by_key[k][0] for k in prio.JOBID]
    assert ids == sorted(ids)
    parts = prio[["AGE", "FAIRSHARE", "JOBSIZE", "PARTITION_PRIO", "QOS"]].sum(axis=1)
    assert ((prio.PRIORITY - parts).abs() <= 5).all()
