"""One hand-computed scenario per scheduling rule, on clusters small enough to draw.

Most run on the ``tiny`` preset: node[1-4], each 16 CPUs, 64000 MB (consumable)
and 2 A100 GPUs, one partition ``main`` (MaxTime 1 day). ``-t`` is in minutes, as
in sbatch; submit and run times are seconds. Each test's docstring states the rule.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.synthetic import ai_workload
from slurmlab.spec.workload import Workload, WorkloadJob

TINY = Cluster.preset("tiny")
ORIGIN = pd.Timestamp("2026-01-05 00:00:00")

#: Two partitions of two 4-CPU nodes each, and ``all`` overlapping both.
TWO_PARTITIONS = Cluster.from_slurm_conf(
    """
NodeName=a[1-2] CPUs=4 RealMemory=8000
NodeName=b[1-2] CPUs=4 RealMemory=8000
PartitionName=pa Nodes=a[1-2] Default=YES MaxTime=INFINITE
PartitionName=pb Nodes=b[1-2] MaxTime=INFINITE
PartitionName=all Nodes=a[1-2],b[1-2] MaxTime=INFINITE
"""
)


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def run(*jobs: WorkloadJob, policy="easy", cluster=TINY, **kw):
    return simulate(cluster, Workload(jobs), policy, **kw)


def starts(result) -> dict[str, float]:
    """Start time (seconds) of every job, by JobID."""
    return dict(zip(result.jobs["JobID"], result.seconds("Start")))


def column(result, name: str) -> dict:
    return dict(zip(result.jobs["JobID"], result.jobs[name]))


def reasons(result, at) -> dict[str, str]:
    """What squeue shows in NODELIST(REASON) at ``at``, by JOBID."""
    q = result.squeue(at=at)
    return dict(zip(q["JOBID"], q["NODELIST(REASON)"]))


def at(seconds: float) -> pd.Timestamp:
    return ORIGIN + pd.Timedelta(seconds=seconds)


# -- backfilling ---------------------------------------------------------------------------------
#: The textbook case: 3 of 4 nodes busy until t=600, a 4-node job waits for them;
#: a 5-minute job fits in the hole before t=600, a 20-minute one does not.
TEXTBOOK = (
    job("running", "-N 3 --exclusive -t 10", submit=0, runtime=600),
    job("wide", "-N 4 --exclusive -t 10", submit=1, runtime=600),
    job("short", "-N 1 --exclusive -t 5", submit=2, runtime=300),
    job("long", "-N 1 --exclusive -t 20", submit=3, runtime=1200),
)


@pytest.mark.parametrize(
    ("policy", "short_start"), [("easy", 2), ("conservative", 2), ("slurm", 30)]
)
def test_short_job_backfills_ahead_of_blocked_wide_job_and_long_one_does_not(policy, short_start):
    """A later job starts early only if it ends before the blocked job's reservation.

    ``short`` (5 min) ends before ``wide``'s reservation at t=600 and backfills (under
    ``slurm`` at the first backfill cycle, t=30 with bf_interval=30); ``long`` (20 min)
    would delay ``wide`` and waits for it.
    """
    result = run(*TEXTBOOK, policy=policy)
    assert starts(result) == {"running": 0, "wide": 600, "short": short_start, "long": 1200}
    assert column(result, "StartedBy") == {
        "running": "main",
        "wide": "main",
        "short": "backfill",
        "long": "main",
    }


def test_fifo_never_backfills():
    """Under fifo the queue blocks at ``wide``: nothing behind it starts before it."""
    result = run(*TEXTBOOK, policy="fifo")
    assert starts(result) == {"running": 0, "wide": 600, "short": 1200, "long": 1200}
    assert set(column(result, "StartedBy").values()) == {"main"}


def test_pending_reasons_resources_for_the_blocked_job_and_priority_behind_it():
    """The first blocked job waits for Resources; jobs queued behind it for Priority."""
    fifo = run(*TEXTBOOK, policy="fifo")
    assert reasons(fifo, at=3) == {
        "running": "node[1-3]",
        "wide": "(Resources)",
        "short": "(Priority)",
        "long": "(Priority)",
    }
    easy = run(*TEXTBOOK, policy="easy")
    assert reasons(easy, at=3) == {
        "running": "node[1-3]",
        "short": "node4",
        "wide": "(Resources)",
        "long": "(Priority)",
    }


def test_easy_shows_the_reserved_jobs_start_time_only():
    """EASY plans one reservation: squeue --start shows it for the blocked job alone."""
    q = run(*TEXTBOOK, policy="easy").squeue(at=3).set_index("JOBID")
    assert q.loc["wide", "START_TIME"] == at(600)
    assert pd.isna(q.loc["long", "START_TIME"])


def test_conservative_shows_a_planned_start_for_every_pending_job():
    """Conservative reserves for every pending job: squeue START_TIME shows each plan."""
    result = run(*TEXTBOOK, policy="conservative")
    q = result.squeue(at=3).set_index("JOBID")
    assert q.loc["wide", "START_TIME"] == at(600)
    assert q.loc["long", "START_TIME"] == at(1200)
    assert q.loc["short", "START_TIME"] == at(2)  # running: its actual start
    assert result.sim.jobs[4].plans == [(3, 1200)]  # (when planned, planned start) of "long"


def test_conservative_keeps_reservations_when_a_job_ends_early():
    """Conservative never delays a reservation: when a running job ends early, jobs may only
    move earlier (Mu'alem & Feitelson 2001, compression)."""
    one_node = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=2 RealMemory=1000\nPartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE"
    )
    result = run(
        job("r1", "-n 1 -t 10:00", submit=0, runtime=600),
        job("r2", "-n 1 -t 100:00", submit=0, runtime=5),  # planned to end at 6000, ends at 5
        job("wide", "-n 2 -t 10:00", submit=1, runtime=600),  # planned at 6000
        job("b", "-n 1 -t 50:00", submit=2, runtime=3000),  # planned at 600, beside r2
        policy="conservative",
        cluster=one_node,
    )
    assert result.sim.jobs[4].plans[0] == (2, 600)
    # at t=5 wide can move to 600 only if b keeps its slot: b starts at 5 or 600, never later
    assert starts(result)["b"] <= 600


# -- partitions ------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["fifo", "slurm"])
def test_a_blocked_job_blocks_only_its_own_partition(policy):
    """Slurm's main scheduler stops at the first blocked job of each partition, not globally."""
    result = run(
        job("r", "-p pa -N 2 --exclusive -t 10", submit=0, runtime=100),
        job("x", "-p pa -N 1 -t 10", submit=1, runtime=100),
        job("y", "-p pb -N 1 -t 10", submit=2, runtime=100),
        policy=policy,
        cluster=TWO_PARTITIONS,
    )
    assert starts(result) == {"r": 0, "x": 100, "y": 2}
    assert reasons(result, at=3) == {"r": "a[1-2]", "y": "b1", "x": "(Resources)"}


def test_overlapping_partitions_share_nodes():
    """A job in ``all`` holds nodes of ``pb`` too, so a ``pb`` job waits for it."""
    result = run(
        job("s", "-p all -N 3 --exclusive -t 10", submit=0, runtime=100),
        job("p", "-p pb -N 2 -t 10", submit=1, runtime=100),
        policy="fifo",
        cluster=TWO_PARTITIONS,
    )
    assert column(result, "NodeList") == {"s": "a[1-2],b1", "p": "b[1-2]"}
    assert starts(result) == {"s": 0, "p": 100}
    assert reasons(result, at=3)["p"] == "(Resources)"


TIERS = Cluster.from_slurm_conf(
    "NodeName=n[1-4] CPUs=4 RealMemory=4000\n"
    "PartitionName=high Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED\n"
    "PartitionName=low Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED\n"
)


TIERS_TWO = Cluster.from_slurm_conf(
    "NodeName=n[1-2] CPUs=4 RealMemory=4000\n"
    "PartitionName=high Nodes=ALL PriorityTier=10 MaxTime=UNLIMITED\n"
    "PartitionName=low Nodes=ALL PriorityTier=1 Default=YES MaxTime=UNLIMITED\n"
)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_blocked_partition_keeps_its_nodes_from_every_later_job(policy):
    """Overlapping partitions: the high-tier job w waits for all four nodes; the low-tier
    job late may not take the idle n3 in the main pass (job_scheduler.c: "Do not schedule
    more jobs in this partition or on nodes in this partition"), nor backfill delay w."""
    result = run(
        job("a", "-p high -N 1 --exclusive -t 60", runtime=3600),
        job("b", "-p high -N 1 --exclusive -t 60", runtime=3600),
        job("w", "-p high -N 4 --exclusive -t 60", runtime=3600),
        job("late", "-p low -N 1 --exclusive -t 600", runtime=36000),
        policy=policy,
        cluster=TIERS,
    )
    assert starts(result) == {"a": 0, "b": 0, "w": 3600, "late": 7200}


# -- time ---------------------------------------------------------------------------------------------
def test_a_job_ending_at_t_frees_its_nodes_for_a_job_starting_at_t():
    """Same-time rule: at one instant ends come first, then arrivals, then one pass."""
    result = run(
        job("a", "-N 4 --exclusive -t 10", submit=0, runtime=100),
        job("b", "-N 4 --exclusive -t 10", submit=100, runtime=100),
    )
    assert starts(result) == {"a": 0, "b": 100}
    trace = result.events[["time", "event", "JobID"]].itertuples(index=False, name=None)
    assert [e for e in trace if e[0] == 100] == [
        (100, "end", "a"),
        (100, "submit", "b"),
        (100, "eligible", "b"),
        (100, "start", "b"),
    ]
    assert result.metrics["utilization"] == 1.0


def test_zero_runtime_jobs_end_at_their_start_and_another_pass_follows():
    """A job ending at the instant it starts is one more event then: the next starts at once."""
    result = run(*(job(f"z{i}", "-N 4 --exclusive -t 10", runtime=0) for i in range(3)))
    assert starts(result) == {"z0": 0, "z1": 0, "z2": 0}
    trace = result.events[["event", "JobID"]].itertuples(index=False, name=None)
    assert [e for e in trace if e[0] in ("start", "end")] == [
        ("start", "z0"),
        ("end", "z0"),
        ("start", "z1"),
        ("end", "z1"),
        ("start", "z2"),
        ("end", "z2"),
    ]
    assert set(column(result, "State").values()) == {"COMPLETED"}


def test_a_job_running_past_its_time_limit_is_killed_with_state_timeout():
    """Scenario jobs are killed at their limit (TIMEOUT, ExitCode 0:0, as sacct's job line)."""
    result = run(
        job("over", "-t 1", runtime=120),
        job("exact", "-t 1", runtime=60),
        job("fails", "-t 1", runtime=30, exit_code=3),
    )
    assert column(result, "State") == {"over": "TIMEOUT", "exact": "COMPLETED", "fails": "FAILED"}
    assert column(result, "ExitCode") == {"over": "0:0", "exact": "0:0", "fails": "3:0"}
    assert dict(zip(result.jobs["JobID"], result.seconds("End"))) == {
        "over": 60,
        "exact": 60,
        "fails": 30,
    }


def test_trace_workloads_replay_run_times_past_the_limit():
    """Trace replay (or enforce_time_limit=False) lets a job run past its limit to COMPLETED."""
    over = job("over", "-t 1", runtime=120)
    for result in (
        simulate(TINY, Workload((over,), kind="trace")),
        run(over, enforce_time_limit=False),
    ):
        assert column(result, "State") == {"over": "COMPLETED"}
        assert list(result.seconds("End")) == [120]


def test_begin_time_holds_a_job_until_then():
    """--begin=now+60 makes the job eligible 60 s after submission (reason BeginTime before)."""
    result = run(job("late", "-t 5 --begin=now+60", submit=10, runtime=10))
    assert list(result.seconds("Eligible")) == [70]
    assert starts(result) == {"late": 70}
    assert reasons(result, at=30) == {"late": "(BeginTime)"}


def test_a_job_over_the_partition_time_limit_stays_pending():
    """A limit above the partition's MaxTime never starts: PENDING (PartitionTimeLimit)."""
    result = run(job("big", "-t 2-00:00:00"), job("fine", "-t 1-00:00:00"))
    assert column(result, "State") == {"big": "PENDING", "fine": "COMPLETED"}
    assert column(result, "Reason")["big"] == "PartitionTimeLimit"
    assert reasons(result, at=30)["big"] == "(PartitionTimeLimit)"


# -- arrays and dependencies ----------------------------------------------------------------------
def test_array_throttle_limits_running_tasks():
    """--array=0-5%2: never more than 2 tasks run; the others wait with JobArrayTaskLimit."""
    result = run(job("arr", "--array=0-5%2 -t 1", runtime=60))
    assert starts(result) == {
        "arr_0": 0,
        "arr_1": 0,
        "arr_2": 60,
        "arr_3": 60,
        "arr_4": 120,
        "arr_5": 120,
    }
    assert reasons(result, at=30) == {
        "arr_0": "node1",
        "arr_1": "node1",
        "arr_2": "(JobArrayTaskLimit)",
        "arr_3": "(JobArrayTaskLimit)",
        "arr_4": "(JobArrayTaskLimit)",
        "arr_5": "(JobArrayTaskLimit)",
    }


def test_dependencies_wait_for_their_condition_or_never_start():
    """afterok needs COMPLETED, afternotok a failure, afterany any end; the impossible stays
    PENDING with DependencyNeverSatisfied."""
    result = run(
        job("ok", "-t 5", runtime=100),
        job("bad", "-t 5", runtime=50, exit_code=1),
        job("after_ok", "-t 5 --dependency=afterok:ok", runtime=10),
        job("after_notok_ok", "-t 5 --dependency=afternotok:ok", runtime=10),
        job("after_any_bad", "-t 5 --dependency=afterany:bad", runtime=10),
        job("after_notok_bad", "-t 5 --dependency=afternotok:bad", runtime=10),
        job("after_ok_bad", "-t 5 --dependency=afterok:bad", runtime=10),
    )
    assert starts(result) == pytest.approx(
        {
            "ok": 0,
            "bad": 0,
            "after_ok": 100,
            "after_notok_ok": float("nan"),
            "after_any_bad": 50,
            "after_notok_bad": 50,
            "after_ok_bad": float("nan"),
        },
        nan_ok=True,
    )
    assert reasons(result, at=30)["after_ok"] == "(Dependency)"
    assert reasons(result, at=200) == {
        "after_notok_ok": "(DependencyNeverSatisfied)",
        "after_ok_bad": "(DependencyNeverSatisfied)",
    }


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_an_after_dependency_satisfied_by_a_start_gets_a_pass_at_that_instant(policy):
    """--dependency=after:<job> is satisfied when that job starts, inside a pass: the job
    joins the queue then, and another pass follows at the same instant (an arrival), so it
    starts at once on the idle nodes, by the main scheduler (nothing was jumped)."""
    result = run(
        job("first", "-t 100", runtime=5000),
        job("then", "-t 5 --dependency=after:first", runtime=10),
        job("later", "-t 5 --dependency=after:then", submit=20, runtime=10),
        policy=policy,
    )
    assert starts(result) == {"first": 0, "then": 0, "later": 20}
    assert set(column(result, "StartedBy").values()) == {"main"}
    assert result.metrics["backfilled"] == 0


def test_singleton_runs_one_job_of_a_name_and_user_at_a_time():
    """--dependency=singleton: a job waits while an earlier job of its name and user is active."""
    result = run(
        job("first", "-J train -t 5 --dependency=singleton", runtime=100),
        job("second", "-J train -t 5 --dependency=singleton", runtime=100),
        job("other", "-J eval -t 5 --dependency=singleton", runtime=100),
    )
    assert starts(result) == {"first": 0, "second": 100, "other": 0}


def test_singleton_waits_for_a_running_job_of_its_name_whatever_its_id():
    """Slurm's singleton test: any job of the name and user that is running, or pending
    with a lower id, blocks it (a later job without the dependency may well be running)."""
    result = run(
        job("first", "-J train -t 5", runtime=100),
        job("second", "-J train -t 5 --dependency=singleton", runtime=100),
        job("third", "-J train -t 30", runtime=1000),  # no dependency: starts at once
    )
    assert starts(result) == {"first": 0, "second": 1000, "third": 0}
    assert reasons(result, at=500)["second"] == "(Dependency)"


def test_a_whole_array_dependency_is_tested_as_a_whole():
    """As Slurm tests an array: afterok once every task ended and all completed, afternotok
    once every task ended and one did not, afterany once all ended; aftercorr pairs tasks."""
    result = run(
        job("arr", "--array=1-3 -t 5", runtime=100),
        job("bad", "--array=1-3 -t 5", runtime=50, exit_code=1),
        job("ok_arr", "-t 5 --dependency=afterok:arr", runtime=10),
        job("notok_arr", "-t 5 --dependency=afternotok:arr", runtime=10),
        job("notok_bad", "-t 5 --dependency=afternotok:bad", runtime=10),
        job("any_bad", "-t 5 --dependency=afterany:bad", runtime=10),
        job("ok_bad", "-t 5 --dependency=afterok:bad", runtime=10),
        job("corr", "--array=1-3 -t 5 --dependency=aftercorr:arr", runtime=10),
        cluster=Cluster.preset("teaching"),
    )
    got = starts(result)
    assert got["ok_arr"] == 100 and got["notok_bad"] == 50 and got["any_bad"] == 50
    assert got["notok_arr"] != got["notok_arr"] and got["ok_bad"] != got["ok_bad"]  # never
    assert all(got[f"corr_{k}"] == 100 for k in (1, 2, 3))
    assert reasons(result, at=20)["ok_bad"] == "(Dependency)"  # tasks still running
    assert reasons(result, at=60)["ok_bad"] == "(DependencyNeverSatisfied)"


def test_afternotok_on_an_array_with_one_failed_task_is_satisfied_when_all_end():
    from slurmlab import Lab

    lab = Lab("tiny")
    arr = lab.sbatch("--array=1-3 -N 1 -t 10", runtime=300)
    ok = lab.sbatch(f"-N 1 -t 10 --dependency=afterok:{arr}", runtime=60)
    notok = lab.sbatch(f"-N 1 -t 10 --dependency=afternotok:{arr}", runtime=60)
    lab.advance(60)
    lab.scancel(f"{arr}_2")
    lab.advance(1)
    q = lab.squeue().set_index("JOBID")["NODELIST(REASON)"]
    assert q[str(ok)] == q[str(notok)] == "(Dependency)"  # tasks 1 and 3 still run
    lab.run()
    acct = lab.sacct().set_index("JobID")
    assert acct.loc[str(notok), "State"] == "COMPLETED"
    assert acct.loc[str(notok), "Start"] == pd.Timestamp("2026-01-05 00:05:00")
    assert acct.loc[str(ok), "Reason"] == "DependencyNeverSatisfied"


# -- placement -----------------------------------------------------------------------------------------
def test_gpu_jobs_pack_best_fit_then_lowest_node_name():
    """Best fit (select/cons_tres): the node with the fewest available CPUs among those the
    job fits on, ties to the lowest name; a node without the GPUs is passed over."""
    result = run(
        job("g1", "--gres=gpu:1 -t 5", submit=0, runtime=100),  # all equal: node1
        job("g2", "--gres=gpu:1 -t 5", submit=1, runtime=100),  # node1 has 15 CPUs left
        job("g3", "--gres=gpu:2 -t 5", submit=2, runtime=100),  # node1 lacks GPUs: node2
        job("cpu", "-n 1 -t 5", submit=3, runtime=100),  # fewest free CPUs (14): node1
        job("g4", "--gres=gpu:1 -t 5", submit=4, runtime=100),  # node[1-2] no GPU: node3
    )
    assert column(result, "NodeList") == {
        "g1": "node1",
        "g2": "node1",
        "g3": "node2",
        "cpu": "node1",
        "g4": "node3",
    }
    tres = "billing=1,cpu=1,gres/gpu:a100=2,gres/gpu=2,mem=2000M,node=1"
    assert column(result, "AllocTRES")["g3"] == tres


def test_exclusive_jobs_take_whole_idle_nodes():
    """--exclusive needs wholly idle nodes and holds all their CPUs, memory and GPUs. Like
    Slurm, sacct's AllocTRES shows all the CPUs and GPUs but only the memory the job asked
    for: DefMemPerCPU=2000 x 16 CPUs, not the node's 64000 MB (sbatch(1), --exclusive)."""
    result = run(
        job("small", "-n 1 -t 5", submit=0, runtime=100),
        job("excl", "-N 1 --exclusive -t 5", submit=1, runtime=100),
        job("all", "-N 4 --exclusive -t 5", submit=2, runtime=100),
        policy="fifo",
    )
    assert column(result, "NodeList") == {"small": "node1", "excl": "node2", "all": "node[1-4]"}
    tres = "billing=16,cpu=16,gres/gpu:a100=2,gres/gpu=2,mem=32000M,node=1"
    assert column(result, "AllocTRES")["excl"] == tres
    assert starts(result) == {"small": 0, "excl": 1, "all": 101}


def test_memory_is_a_consumable_resource():
    """With CR_Core_Memory a node of 64000 MB holds one 40000 MB job: the fifth waits."""
    result = run(*(job(f"m{i}", "-n 1 --mem=40000 -t 5", submit=i, runtime=100) for i in range(5)))
    assert column(result, "NodeList") == {
        "m0": "node1",
        "m1": "node2",
        "m2": "node3",
        "m3": "node4",
        "m4": "node1",
    }
    assert starts(result) == {"m0": 0, "m1": 1, "m2": 2, "m3": 3, "m4": 100}
    assert reasons(result, at=10)["m4"] == "(Resources)"


def test_sinfo_shows_idle_mix_and_alloc_nodes():
    """sinfo(at): a node with some CPUs allocated is mix, all CPUs alloc, none idle."""
    result = run(
        job("one_cpu", "-n 1 -t 5", runtime=50),
        job("whole", "-N 1 --exclusive -t 5", runtime=100),
    )

    def states(t):
        s = result.sinfo(at=t)
        return dict(zip(s["STATE"], s["NODELIST"]))

    assert states(10) == {"mix": "node1", "alloc": "node2", "idle": "node[3-4]"}
    assert states(60) == {"alloc": "node2", "idle": "node[1,3-4]"}
    assert states(100) == {"idle": "node[1-4]"}


# -- metrics -----------------------------------------------------------------------------------------
def test_metrics_of_the_textbook_case_by_hand():
    """wait = Start - Submit; bounded slowdown = max(1, (wait + run) / max(run, 10));
    utilization = used CPU-s / (capacity x makespan); makespan = last End - first Submit."""
    m = run(*TEXTBOOK, policy="easy").metrics
    # waits: running 0, wide 599, short 0, long 1197
    assert m["mean_wait_s"] == (0 + 599 + 0 + 1197) / 4
    assert m["median_wait_s"] == (0 + 599) / 2
    bsld = [1, (599 + 600) / 600, 1, (1197 + 1200) / 1200]
    assert m["mean_bounded_slowdown"] == pytest.approx(sum(bsld) / 4)
    assert m["makespan_s"] == 2400  # long ends at 1200 + 1200
    cpu_seconds = 48 * 600 + 64 * 600 + 16 * 300 + 16 * 1200  # exclusive: whole nodes
    assert m["utilization"] == pytest.approx(cpu_seconds / (64 * 2400))
    assert m["gpu_utilization"] == pytest.approx(
        (6 * 600 + 8 * 600 + 2 * 300 + 2 * 1200) / (8 * 2400)
    )
    assert m["utilization"] <= 1
    assert m["backfilled"] == 1


def test_bounded_slowdown_uses_at_least_ten_seconds_of_run_time():
    """A 2 s job that waited 8 s has bounded slowdown (8 + 2) / 10 = 1, not 5."""
    m = run(
        job("a", "-N 4 --exclusive -t 1", submit=0, runtime=8),
        job("b", "-N 4 --exclusive -t 1", submit=0, runtime=2),
    ).metrics
    assert m["mean_bounded_slowdown"] == 1.0
    assert m["mean_wait_s"] == 4.0


# -- the slurm policy's parameters --------------------------------------------------------------------
@pytest.mark.parametrize(("bf_interval", "short_start"), [(10, 10), (30, 30), (45, 45)])
def test_slurm_backfills_only_on_its_bf_interval_timer(bf_interval, short_start):
    """bf_interval: backfill runs every bf_interval seconds, so ``short`` starts at the next tick."""
    result = run(*TEXTBOOK, policy="slurm", bf_interval=bf_interval)
    assert starts(result) == {"running": 0, "wide": 600, "short": short_start, "long": 1200}


@pytest.mark.parametrize(
    ("bf_window", "long_start", "wide_start"), [(60, 30, 18030), (1440, 7800, 7200)]
)
def test_slurm_makes_no_reservation_beyond_bf_window(bf_window, long_start, wide_start):
    """bf_window (minutes): a job expected to start later than the window gets no reservation,
    so a long backfill job may delay it; with a long enough window it is protected. Either way
    squeue --start shows its expected start (backfill.c sets it before the window check)."""
    result = run(
        job("running", "-N 3 --exclusive -t 2:00:00", submit=0, runtime=7200),
        job("wide", "-N 4 --exclusive -t 10", submit=1, runtime=600),
        job("long", "-N 1 --exclusive -t 5:00:00", submit=2, runtime=18000),
        policy="slurm",
        bf_window=bf_window,
    )
    assert starts(result) == {"running": 0, "wide": wide_start, "long": long_start}
    planned = result.squeue(at=40).set_index("JOBID")["START_TIME"]  # after the first cycle
    assert planned["wide"] == at(7200)


@pytest.mark.parametrize(("bf_max_job_test", "short_start"), [(2, 1800), (3, 30)])
def test_slurm_backfill_tests_at_most_bf_max_job_test_jobs(bf_max_job_test, short_start):
    """bf_max_job_test: a job deeper in the queue than that is never considered for backfill.
    (bf_node_space_size, whose default is bf_max_job_test, is set apart: with 3 records the
    map would be full after w1's reservation and the cycle would stop at w2 as well.)"""
    result = run(
        job("running", "-N 3 --exclusive -t 10", submit=0, runtime=600),
        job("w1", "-N 4 --exclusive -t 10", submit=1, runtime=600),
        job("w2", "-N 4 --exclusive -t 10", submit=2, runtime=600),
        job("short", "-N 1 --exclusive -t 5", submit=3, runtime=300),
        policy="slurm",
        bf_max_job_test=bf_max_job_test,
        bf_node_space_size=10,
    )
    assert starts(result) == {"running": 0, "w1": 600, "w2": 1200, "short": short_start}


def test_a_job_beyond_bf_max_job_test_has_no_expected_start():
    """Each backfill cycle clears every pending job's expected start before testing
    (backfill.c _clear_job_estimates; slurm.conf(5): "Until an attempt is made to backfill
    schedule a job, its expected initiation time value will not be set"). With
    bf_max_job_test=1 only the high-tier job 3 is tested once it arrives: job 2 loses the
    start an earlier cycle gave it (both need both nodes: they cannot both start at 2 h)."""
    result = run(
        job("1", "-p low -N 1 --exclusive -t 120", submit=0, runtime=7200),
        job("2", "-p low -N 2 --exclusive -t 60", submit=0, runtime=3600),
        job("3", "-p high -N 2 --exclusive -t 60", submit=40, runtime=3600),
        policy="slurm",
        cluster=TIERS_TWO,
        bf_max_job_test=1,
    )
    planned = result.squeue(at=35).set_index("JOBID")["START_TIME"]
    assert planned["2"] == at(7200)
    planned = result.squeue(at=100).set_index("JOBID")["START_TIME"]
    assert planned["3"] == at(7200)
    assert pd.isna(planned["2"])


def test_partitions_over_the_same_nodes_name_their_first_jobs_resources():
    """Two partitions over the same nodes: high's job (beyond bf_window: no reservation)
    and low's only pending job share a request shape, but each is the first in line of its
    partition and waits for Resources; low's job is not told jobs of low are ahead."""
    result = run(
        job("1", "-p low -N 1 --exclusive -t 600", submit=0, runtime=36000),
        job("2", "-p high -N 2 --exclusive -t 60", submit=1, runtime=3600),
        job("3", "-p low -N 2 --exclusive -t 60", submit=2, runtime=3600),
        policy="slurm",
        cluster=TIERS_TWO,
        bf_window=60,
    )
    assert reasons(result, at=65) == {"1": "n1", "2": "(Resources)", "3": "(Resources)"}


def test_event_passes_test_one_job_more_than_default_queue_depth():
    """job_scheduler.c breaks when ``job_depth++ > def_job_limit``: with
    default_queue_depth=1 the event pass still tests the second job in line (b, on pb's
    idle node), which starts at its submission, not at the first backfill cycle (30 s)."""
    result = run(
        job("r", "-p pa -N 1 --exclusive -t 600", submit=0, runtime=3600),
        job("w", "-p pa -N 2 --exclusive -t 60", submit=1, runtime=60),
        job("b", "-p pb -N 1 --exclusive -t 60", submit=2, runtime=60),
        policy="slurm",
        cluster=TWO_PARTITIONS,
        default_queue_depth=1,
    )
    assert starts(result)["b"] == 2


@pytest.mark.parametrize(("sched_interval", "start"), [(60, 60), (-1, 36060)])
def test_sched_interval_passes_reach_jobs_beyond_default_queue_depth(sched_interval, start):
    """default_queue_depth=1 limits the passes on events to 2 jobs (job_scheduler.c tests
    one more than the depth): job d (partition pb, whose node is idle) is third in line and
    no event pass reaches it, nor backfill (bf_max_job_test=2).
    The periodic pass every sched_interval (60 s) considers every job and starts it; with
    sched_interval=-1 there is no main scheduler at all (slurm.conf(5): "disable the main
    scheduling loop"): only backfill cycles start jobs, and d waits until the queue ahead of
    it drains (a itself starts in the first cycle, at 30 s, and ends at 36,030 s, when that
    cycle starts b; the next, at 36,060 s, reaches d)."""
    result = run(
        job("a", "-p pa -N 1 --exclusive -t 600", submit=0, runtime=36000),
        job("b", "-p pa -N 2 --exclusive -t 60", submit=1, runtime=3600),
        job("c", "-p pa -N 2 --exclusive -t 60", submit=2, runtime=3600),
        job("d", "-p pb -N 1 --exclusive -t 60", submit=3, runtime=3600),
        policy="slurm",
        cluster=TWO_PARTITIONS,
        default_queue_depth=1,
        bf_max_job_test=2,
        sched_interval=sched_interval,
    )
    assert starts(result)["d"] == start


def test_bf_interval_minus_one_turns_backfill_off():
    """bf_interval=-1: no backfill cycle (backfill.c skips them); the main scheduler alone
    never starts the short job behind the blocked wide one."""
    result = run(
        job("running", "-N 3 --exclusive -t 10", submit=0, runtime=600),
        job("wide", "-N 4 --exclusive -t 10", submit=1, runtime=600),
        job("short", "-N 1 --exclusive -t 5", submit=2, runtime=300),
        policy="slurm",
        bf_interval=-1,
    )
    assert starts(result) == {"running": 0, "wide": 600, "short": 1200}


@pytest.mark.parametrize("policy", ["slurm", "conservative", "easy"])
def test_one_node_cluster_plans_around_an_unlimited_job(policy):
    """A one-node cluster (the plain-Python pool profile) with an UNLIMITED job running:
    its resources never come back in the plan, and backfill rounding (bf_resolution) of
    the never-ending interval is not attempted. A wide job waits for the true end; a
    narrow one starts beside it at the first pass allowed to backfill it."""
    one = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=4 RealMemory=8000\n"
        "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n"
    )
    result = run(
        job("forever", "-n 2 -t UNLIMITED", submit=0, runtime=100),
        job("wide", "-n 4 -t 10", submit=5, runtime=60),
        job("narrow", "-n 1 -t 10", submit=6, runtime=60),
        policy=policy,
        cluster=one,
    )
    narrow = 30 if policy == "slurm" else 6  # slurm backfills on its bf_interval timer
    assert starts(result) == {"forever": 0, "wide": 100, "narrow": narrow}


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_jobs_started_in_priority_order_are_not_counted_as_backfilled(policy):
    """``backfilled`` counts jobs started while a job of their partition waited ahead of
    them: not jobs that start together in order, nor a job of another partition."""
    together = run(job("a", "-t 60", runtime=600), job("b", "-t 60", runtime=600), policy=policy)
    assert together.metrics["backfilled"] == 0
    other = run(
        job("run", "-p gpu -N 8 --gres=gpu:4 -t 2:00:00", 0, 3600),
        job("blocked", "-p gpu -N 8 --gres=gpu:4 -t 2:00:00", 10, 3600),
        job("cpujob", "-p cpu -N 1 -t 1:00:00", 20, 600),
        policy=policy,
        cluster=Cluster.preset("teaching"),
    )
    assert starts(other)["cpujob"] == 20
    assert other.metrics["backfilled"] == 0
    if policy != "fifo":  # and one that does jump the line is
        jumped = run(
            job("run", "-N 3 --exclusive -t 60", 0, 3600),
            job("wide", "-N 4 --exclusive -t 60", 1, 3600),
            job("small", "-N 1 -t 10", 2, 60),
            policy=policy,
        )
        assert starts(jumped)["small"] == (30 if policy == "slurm" else 2)
        assert column(jumped, "StartedBy")["small"] == "backfill"
        assert jumped.metrics["backfilled"] == 1


@pytest.mark.parametrize("preset", ["tiny", "teaching", "ai"])
def test_the_ai_workload_asks_only_for_what_each_partition_allows(preset):
    """Generated jobs never exceed their partition's MaxTime: every one of them runs."""
    cluster = Cluster.preset(preset)
    workload = ai_workload(400, cluster, seed=7, load=1.5)
    for wjob in workload.jobs:
        part = cluster.partition(wjob.spec.partition)
        assert part.max_time is None or wjob.spec.time_limit <= part.max_time
    result = simulate(cluster, workload, "easy")
    assert result.metrics["started"] == result.metrics["jobs"] == 400


def test_means_over_no_job_are_undefined_not_zero():
    """A run in which no job started has no mean wait or slowdown (NaN), not 0."""
    never = job("long", "-t 2-00:00:00", runtime=60)  # beyond MaxTime: PartitionTimeLimit
    result = run(never, cluster=Cluster.preset("tiny"))
    assert result.metrics["started"] == 0 and result.metrics["jobs"] == 1
    for key in ("mean_wait_s", "median_wait_s", "p95_wait_s", "mean_bounded_slowdown"):
        assert math.isnan(result.metrics[key]), key


def test_metrics_of_a_paused_simulation_stay_within_the_window_so_far():
    """While jobs still run, utilization counts up to now (never above 100 %)."""
    from slurmlab import Lab

    lab = Lab("ai")
    for wjob in ai_workload(60, "ai", seed=3, load=2.0).jobs:
        lab.sim.add_workload(Workload((wjob,)))
    for _ in range(12):
        lab.advance("1h")
        m = lab.result.metrics
        assert 0.0 <= m["utilization"] <= 1.0 and 0.0 <= m["gpu_utilization"] <= 1.0, m
        assert m["makespan_s"] <= lab.now


def test_simulate_until_stops_at_that_time():
    workload = ai_workload(200, "ai", seed=2, load=1.5)
    full = simulate("ai", workload, "easy")
    part = simulate("ai", workload, "easy", until="1d")
    ended = part.jobs["End"].notna()
    assert (part.jobs.loc[ended, "End"] <= part.origin + pd.Timedelta(days=1)).all()
    assert set(part.jobs["State"]) - {"COMPLETED", "TIMEOUT", "FAILED"} <= {"PENDING", "RUNNING"}
    same = full.jobs.set_index("JobID").loc[part.jobs.loc[ended, "JobID"], "End"]
    assert list(same) == list(part.jobs.loc[ended, "End"])  # the same history up to then
    assert part.metrics["makespan_s"] <= 86400 and part.metrics["utilization"] <= 1
