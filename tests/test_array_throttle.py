"""``--array=...%N`` as Slurm 22.05 applies it: job_mgr.c ``job_array_start_test`` lets a task
start while fewer than N of its array's tasks run (``tot_run_tasks``, raised at each start by
node_scheduler.c ``job_array_start``), and the main scheduler and backfill ask it of each task
as they reach it (job_scheduler.c ``_schedule``, backfill.c ``_attempt_backfill``). A task
that cannot start holds no slot; a task reached once the starts fill the throttle waits for
JobArrayTaskLimit, as does every task of an array whose running tasks fill it
(build_job_queue: job_independent)."""

from __future__ import annotations

import pytest

from slurmlab import Cluster, Lab, Qos
from slurmlab.errors import SlurmlabError
from slurmlab.policies import Decision, Start

POLICIES = ["fifo", "easy", "conservative", "slurm"]


def _job(lab: Lab, key):
    return lab.sim._lookup(key)[0]  # noqa: SLF001


def _reasons(lab: Lab) -> dict[str, str]:
    """squeue -r: task -> its reason (or R)."""
    rows = [line.split(None, 7) for line in lab.squeue_text(array=True).splitlines()[1:]]
    return {row[0]: row[7] if row[4] == "PD" else "R" for row in rows}


@pytest.mark.parametrize("policy", POLICIES)
def test_a_task_moved_past_a_task_that_cannot_start_takes_the_free_slot(policy):
    """--array=0-2%2, 2_0 running, 2_2 waiting in debug (PriorityTier 2, busy): 2_1 moved to
    gpu starts, since job_array_start_test counts running tasks, not the queued 2_2 ahead of
    it. The engine gave the one free slot to the first queued task, so 2_1 waited behind 2_2,
    which could not start. Then two run: 2_2 waits for JobArrayTaskLimit."""
    lab = Lab("teaching", policy)
    lab.sbatch("-p debug -N 1 -t 10 --exclusive", runtime=600)
    lab.sbatch("-p debug -N 1 -t 20 --exclusive --array=0-2%2", runtime=1200)
    lab.advance(1)
    lab.update("2_1", partition="gpu")
    lab.advance(1)
    reasons = _reasons(lab)
    assert reasons["2_0"] == reasons["2_1"] == "R"
    assert reasons["2_2"] == "(JobArrayTaskLimit)"
    assert _job(lab, "2_1").start == 1


@pytest.mark.parametrize("policy", POLICIES)
def test_a_task_reached_once_the_starts_fill_the_throttle_waits_for_the_limit(policy):
    """--array=0-3%1 on an idle cluster, 1_1 split off to cpu: whichever task is reached first
    starts (debug's record, by PriorityTier), and the next one reached, in cpu, finds the
    throttle full (job_array_start_test: tot_run_tasks counts that start at once)."""
    lab = Lab("teaching", policy)
    a = lab.sbatch("-p debug -N 1 -t 20 --exclusive --array=0-3%1 -H", runtime=1200)
    lab.update(f"{a}_1", partition="cpu")
    lab.release(a)
    lab.advance(1)
    reasons = _reasons(lab)
    running = [k for k, why in reasons.items() if why == "R"]
    # (conservative places a job scontrol updated first, among the standing plans)
    assert running == [f"{a}_1" if policy == "conservative" else f"{a}_0"]
    assert {why for k, why in reasons.items() if why != "R"} == {"(JobArrayTaskLimit)"}


def test_after_an_update_a_full_arrays_tasks_still_wait_for_the_limit_under_fifo():
    """fifo: 2 blocks debug; array 3 (%1) runs 3_0 in gpu. Moving the array to debug
    (scontrol update) queued its tasks again with reason Priority, and fifo's pass, which
    stops at debug's blocked job, never reached them: squeue showed Priority. Slurm's
    build_job_queue tests every job (job_independent, job_array_start_test): their array's
    running task fills %1, so they wait for JobArrayTaskLimit."""
    lab = Lab("teaching", "fifo")
    lab.sbatch("-p debug -N 2 -t 20 --exclusive", runtime=1200)
    lab.sbatch("-p debug -N 1 -t 20 --exclusive", runtime=1200)
    a = lab.sbatch("-p gpu -N 1 -c 8 -t 20 --array=0-3%1", runtime=1200)
    lab.advance(1)
    with pytest.raises(SlurmlabError, match="3 of 4 jobs changed"):  # (3_0 runs)
        lab.update(a, partition="debug")
    lab.advance(1)
    reasons = _reasons(lab)
    assert reasons["2"] == "(Resources)"
    assert reasons[f"{a}_0"] == "R"
    assert {reasons[f"{a}_{i}"] for i in (1, 2, 3)} == {"(JobArrayTaskLimit)"}
    assert "could start now" not in lab.why_pending(f"{a}_1")


PREEMPT = """\
PreemptType=preempt/qos
PreemptMode=REQUEUE
SelectType=select/cons_tres
NodeName=n[1-2] CPUs=4 RealMemory=8000
PartitionName=main Nodes=n[1-2] Default=YES MaxTime=INFINITE DefMemPerCPU=2000
"""


@pytest.mark.parametrize("policy", POLICIES)
def test_a_task_over_its_throttle_preempts_nobody(policy):
    """preempt/qos: Slurm preempts only for a job its main scheduler reaches and tests,
    after job_array_start_test (job_scheduler.c _schedule). 2_0 takes the idle node; 2_1,
    over %1, preempted the scavenger job on the other node, which was requeued for nothing."""
    cluster = Cluster.from_slurm_conf(PREEMPT)
    qos = (Qos("normal"), Qos("scav"), Qos("high", priority=100, preempt=("scav",)))
    lab = Lab(cluster, policy, qos=qos)
    lab.sbatch("-N 1 --exclusive -t 60 -q scav", runtime=3600)
    lab.sbatch("-N 1 --exclusive -t 30 -q high --array=0-2%1", runtime=1800)
    lab.advance(5)
    assert not [e for e in lab.sim.events if e[1] == "preempt"]
    reasons = _reasons(lab)
    assert reasons["1"] == "R" and reasons["2_0"] == "R"
    assert reasons["2_1"] == reasons["2_2"] == "(JobArrayTaskLimit)"


class StartAll:
    """A policy of one's own that knows nothing of throttles: it starts every job that fits."""

    def schedule(self, view):
        d, free, begun = Decision(), view.free.copy(), set()
        for job in view.queue:
            if job.id in begun:
                continue
            nodes = view.choose_nodes(job, free)
            if nodes is not None:
                free[list(nodes)] -= job.usage(nodes, view.capacity)
                d.starts.append(Start(job.id, nodes, partition=job.partition))
                begun.add(job.id)
        return d


def test_a_policy_of_ones_own_cannot_start_more_tasks_than_the_throttle():
    """Every task of a %N array is handed to a policy while its running tasks leave a slot
    (split-off ones too), each with ``job.throttle``, its N: the controller refuses a start
    beyond them, and that task waits for JobArrayTaskLimit."""
    lab = Lab("teaching", StartAll())
    a = lab.sbatch("-p gpu -N 1 -t 20 --exclusive --array=0-3%2 -H", runtime=1200)
    lab.update(f"{a}_3", partition="cpu")
    lab.update(f"{a}_2", partition="debug")
    lab.release(a)
    lab.advance(1)
    reasons = _reasons(lab)
    assert sum(why == "R" for why in reasons.values()) == 2
    assert sorted(why for why in reasons.values() if why != "R") == ["(JobArrayTaskLimit)"] * 2


def test_a_policy_sees_each_throttled_tasks_limit_and_its_arrays_running_tasks():
    """PendingJob.throttle is the array's N and QueueView.array_tasks its running tasks
    (job_mgr.c max_run_tasks, tot_run_tasks): with 2 of --array=0-5%3 running, a pass hands
    over the pending record's next task (its one free slot), not the three after it."""
    seen = []

    class Spy(StartAll):
        def schedule(self, view):
            seen[:] = [(j.id, j.throttle, view.array_tasks.get(j.array_job)) for j in view.queue]
            return super().schedule(view)

    lab = Lab("teaching", Spy())
    lab.sbatch("-p gpu -N 6 -t 60 --exclusive", runtime=3600)
    a = lab.sbatch("-p gpu -N 1 -t 20 --exclusive --array=0-5%3", runtime=1200)
    lab.advance(1)
    assert [_job(lab, f"{a}_{k}").state for k in (0, 1, 2)] == ["RUNNING", "RUNNING", "PENDING"]
    lab.sbatch("-p cpu -N 1 -t 5", runtime=60)  # (a pass)
    lab.advance(1)
    assert [(i, n, r) for i, n, r in seen if n is not None] == [(_job(lab, f"{a}_2").id, 3, 2)]


@pytest.mark.parametrize("policy", POLICIES)
def test_the_tasks_of_an_advance_reservation_keep_to_the_throttle(policy):
    """--array=0-2%1 --reservation=r on r's two idle nodes: one task runs at a time, as the
    reservation step tests job_array_start_test of each task it reaches (job_scheduler.c
    ``_schedule``), and a ``slurm`` backfill cycle, whose queue build_job_queue builds
    without them, gives the waiting tasks no expected start. Both nodes were taken at once."""
    from slurmlab import Reservation

    cluster = Cluster.from_slurm_conf(
        "SelectType=select/cons_tres\nNodeName=n[1-4] CPUs=4 RealMemory=8000\n"
        "PartitionName=main Nodes=n[1-4] Default=YES DefMemPerCPU=2000"
    )
    resv = Reservation("r", start=0, duration="3000s", nodes=("n3", "n4"), users=("ann",))
    lab = Lab(cluster, policy, reservations=[resv])
    a = lab.sbatch("-N 1 --exclusive -t 10 --reservation=r --array=0-2%1", user="ann", runtime=600)
    lab.advance(50)
    assert _reasons(lab) == {
        f"{a}_0": "R", f"{a}_1": "(JobArrayTaskLimit)", f"{a}_2": "(JobArrayTaskLimit)"
    }  # fmt: skip
    waiting = lab.squeue().query("ST == 'PD'")
    assert len(waiting) == 2
    assert waiting["START_TIME"].isna().all() and waiting["SCHEDNODES"].isna().all()
    lab.run()
    starts = sorted(_job(lab, f"{a}_{i}").start for i in range(3))
    assert starts == [0, 600, 1200]
