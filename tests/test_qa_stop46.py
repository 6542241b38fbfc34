"""Findings of stop 46's QA round, fixed: each test cites the Slurm 22.05 source it follows."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from slurmlab import Cluster
from slurmlab.errors import ConfigError, SlurmlabError

_CONF = """NodeName=n[1-2] CPUs=4 RealMemory=8000
PartitionName=p Nodes=ALL Default=YES MaxTime=2:00:00 DefMemPerCPU=100
SelectType=select/cons_tres
"""


def test_max_job_bf_without_bf_max_job_test_is_refused_under_sched_backfill():
    """backfill.c ``_load_config``: ``max_job_bf=`` without ``bf_max_job_test=`` is fatal
    ("Invalid parameter max_job_bf. The option is no longer supported"); the error names the
    line and the fix."""
    with pytest.raises(ConfigError) as err:
        Cluster.from_slurm_conf(_CONF + "SchedulerParameters=bf_interval=5,max_job_bf=50\n")
    text = str(err.value)
    assert "line 4" in text and "max_job_bf=50" in text and "write bf_max_job_test=50" in text


def test_max_job_bf_is_read_by_sched_builtin_and_beside_bf_max_job_test():
    """builtin.c ``builtin_reconfig`` still reads ``max_job_bf=``, and backfill.c reads
    ``bf_max_job_test=`` first when both are given: neither is refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Cluster.from_slurm_conf(
            _CONF + "SchedulerType=sched/builtin\nSchedulerParameters=max_job_bf=50\n"
        )
        Cluster.from_slurm_conf(_CONF + "SchedulerParameters=bf_max_job_test=9,max_job_bf=50\n")


def test_max_job_bf_in_an_inline_cluster_is_refused_too():
    """The same rule for a cluster built in Python (or a scenario's inline settings)."""
    base = Cluster.from_slurm_conf(_CONF)
    with pytest.raises(SlurmlabError, match="bf_max_job_test=7"):
        Cluster("c", base.nodes, base.partitions, {"SchedulerParameters": "max_job_bf=7"})


def _held_pin_lab(policy: str, bf_interval: int):
    """Job 1 fills n2 and QOS lim's 4 CPUs; job 2 (-w n1, QOS lim) is over GrpTRES=cpu=4;
    job 3 (normal QOS, any node) arrives 2 s later."""
    from slurmlab import Lab, Qos

    conf = _CONF + f"SchedulerParameters=bf_interval={bf_interval}\n"
    lab = Lab(
        Cluster.from_slurm_conf(conf),
        policy=policy,
        qos=[Qos("normal"), Qos("lim", grp_tres="cpu=4")],
    )
    lab.sbatch("-n 4 --qos=lim -w n2 -t 30:00", runtime=1800)
    lab.advance(2)
    lab.sbatch("-n 1 --qos=lim -w n1 -t 10:00", runtime=600)
    lab.advance(2)
    lab.sbatch("-n 1 -t 10:00", runtime=600)
    return lab


def _state(lab, jobid):
    return lab.sacct().set_index("JobID").loc[str(jobid)]


@pytest.mark.parametrize("policy", ["fifo", "slurm"])
def test_a_w_job_over_a_tres_limit_keeps_its_nodes_from_later_jobs_in_the_main_pass(policy):
    """job_scheduler.c ``_schedule``: GrpTRES is tested only in select_nodes
    (acct_policy_job_runnable_post_select; pre_select: "we don't need to check grp_tres
    here"), whose ESLURM_ACCOUNTING_POLICY falls through to the block that takes a job's
    req_node_bitmap out of avail_node_bitmap. Job 3 then finds only n2, full, and waits
    (Resources) until job 1 ends, with backfill off."""
    lab = _held_pin_lab(policy, -1)
    lab.advance(20 * 60)
    assert _state(lab, 3)["State"] == "PENDING"
    lab.advance(11 * 60)  # job 1 ends at 1800 s: job 2 gets n1, job 3 n2
    jobs = lab.sacct().set_index("JobID")
    assert (jobs.loc[["2", "3"], "State"] == "RUNNING").all()
    assert jobs.loc["2", "Start"] == jobs.loc["3", "Start"] == jobs.loc["1", "End"]


def test_backfill_starts_the_job_a_limit_held_w_job_kept_out():
    """backfill.c ``_attempt_backfill``: the held job's ``_start_job`` fails with
    ESLURM_ACCOUNTING_POLICY and the cycle goes on (``continue``), keeping no nodes: job 3
    starts on n1 at the next cycle (bf_interval=30)."""
    lab = _held_pin_lab("slurm", 30)
    lab.advance(10)
    assert _state(lab, 3)["State"] == "PENDING"
    lab.advance(30)
    row = _state(lab, 3)
    assert row["State"] == "RUNNING" and row["NodeList"] == "n1"


def test_easy_is_the_literatures_and_starts_it_at_once():
    """EASY (Lifka) has no main-scheduler pin rule: job 3 starts on n1 at its arrival."""
    lab = _held_pin_lab("easy", 30)
    lab.advance(1)
    row = _state(lab, 3)
    assert row["State"] == "RUNNING" and row["NodeList"] == "n1"


def _squeue_start(lab):
    return lab.squeue().set_index("JOBID")


def test_a_job_held_to_the_maps_end_by_cut_reservations_shows_its_later_start():
    """backfill.c ``_attempt_backfill``: J's tries (TRY_LATER) reach the map's last record,
    where only n[3-4] are free of P's reservation; the will-run test there gives 01:30,
    beyond the window: "StartTime set to time after current backfill window. No
    reservation created", so squeue --start shows that time with no SCHEDNODES."""
    from slurmlab import Lab

    conf = """NodeName=n[1-4] CPUs=4 RealMemory=8000
PartitionName=a Nodes=n[1-4] Default=YES MaxTime=3:00:00 DefMemPerCPU=100
SelectType=select/cons_tres
SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=60
"""
    lab = Lab(Cluster.from_slurm_conf(conf), policy="slurm")
    lab.sbatch("-N 2 --exclusive -w n[1-2] -t 50:00", runtime=3000)
    lab.sbatch("-N 2 --exclusive -w n[3-4] -t 90:00", runtime=5400)
    lab.advance(1)
    lab.sbatch("-N 2 -t 60:00", runtime=60)  # P: reserved n[1-2] from 50 min, cut at 60
    lab.sbatch("-N 2 -t 10:00", runtime=60)  # J
    lab.advance(12)
    start = _squeue_start(lab)
    assert start.loc["3", "SCHEDNODES"] == "n[1-2]"
    assert start.loc["4", "SCHEDNODES"] is None
    assert start.loc["4", "START_TIME"] == pd.Timestamp("2026-01-05 01:30:00")


def test_a_plan_refused_by_a_limit_keeps_its_start_without_nodes():
    """backfill.c: "adding reservation for %pJ blocked by
    acct_policy_job_runnable_post_select" ``continue``s with the will-run start set, so
    squeue --start shows it (no SCHEDNODES, no reservation)."""
    from tests.test_limits_busy import _node_limit_lab

    lab, j, _big = _node_limit_lab("slurm")
    lab.advance(40)
    row = _squeue_start(lab).loc[str(j)]
    assert row["NODELIST(REASON)"] == "(QOSGrpNodeLimit)"
    assert row["SCHEDNODES"] is None
    assert row["START_TIME"] == pd.Timestamp("2026-01-05 00:02:00")


def test_write_sacct_gives_no_allocation_to_jobs_that_never_started():
    """sacct's AllocTRES is the job's tres_alloc_str, set only when resources are allocated:
    a table in which nothing has started writes blank AllocTRES, as one in which some job
    did (found by the chaos fuzz: the all-blank column was taken for a missing one)."""
    import io

    from slurmlab import Lab, read_sacct, write_sacct

    lab = Lab("tiny")
    lab.drain("node[1-4]")
    lab.sbatch("-N 1 --gres=gpu:1 -t 5", runtime=60)
    lab.advance(60)
    text = write_sacct(lab.result.jobs)
    back = read_sacct(io.StringIO(text))
    assert back["AllocTRES"].isna().all(), text
    lab.resume("node1")
    lab.advance(5)  # job 1 starts now: its allocation is written
    back = read_sacct(io.StringIO(write_sacct(lab.result.jobs))).set_index("JobID")
    assert "cpu=1" in back.loc["1", "AllocTRES"]


def test_two_throttle_counts_over_one_hand_built_view_do_not_share_their_starts():
    """ArrayThrottles counts a pass's starts in its own copy of ``view.array_tasks``: a view
    built by hand with a plain dict (a custom policy's test) is not written to, and two
    counts over it (Conservative's eager and placed starts) do not count a start twice."""
    from slurmlab.policies.base import ArrayThrottles, PendingJob

    class View:  # (only what ArrayThrottles reads)
        array_tasks = {7: 1}

    view = View()
    task = PendingJob(1, "p", None, 1, None, 60.0, array_job=7, throttle=2)
    first, second = ArrayThrottles(view), ArrayThrottles(view)
    first.start(task)
    assert first.full(task) and not second.full(task)
    assert view.array_tasks == {7: 1}


def test_why_pending_counts_only_wholly_free_nodes_for_a_whole_memory_job():
    """A ``--mem=0`` job on nodes of several sizes takes only nodes none of whose memory is
    allocated (cons_common ``_verify_node_state``): why_pending's "fewer nodes" hint and its
    memory line count those nodes only, and the change it promises starts the job."""
    from slurmlab import Lab

    conf = """NodeName=a CPUs=4 RealMemory=4000
NodeName=b CPUs=4 RealMemory=8000
NodeName=c CPUs=4 RealMemory=16000
PartitionName=p Nodes=ALL Default=YES MaxTime=2:00:00 DefMemPerCPU=100
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab = Lab(Cluster.from_slurm_conf(conf), policy="easy")
        lab.sbatch("-n 1 --mem=100 -w b -t 1:00:00", runtime=3600)
        lab.sbatch("-n 1 --mem=100 -w c -t 1:00:00", runtime=3600)
        j = lab.sbatch("-N 3 --mem=0 -t 10:00", runtime=60)
        lab.advance(5)
        text = lab.why_pending(j)
    assert "--nodes=2" not in text and "--nodes=1" in text, text
    assert "whole memory of each node" in text, text
    lab.update(j, nodes="1-1")
    lab.advance(5)
    assert _state(lab, j)["State"] == "RUNNING"
