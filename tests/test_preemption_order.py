"""preempt/qos as Slurm orders it: which running jobs are preempted first, where a job
that may preempt sorts in the queue, and PreemptExemptTime.

Sources: preempt_qos.c (``_gen_job_prio``: QOS priority << 16 plus node count, smallest
first), job_scheduler.c (``sort_job_queue2``: a job goes before another when its QOS may
preempt the other's), slurm.conf(5) and sacctmgr(1) PreemptExemptTime.
"""

from __future__ import annotations

import pytest

from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos
from slurmlab.spec.workload import Workload, WorkloadJob


def cluster(nodes: int = 3, extra: str = "", weights: str = "") -> Cluster:
    return Cluster.from_slurm_conf(
        f"PreemptType=preempt/qos\nPreemptMode=CANCEL\n{extra}{weights}"
        f"NodeName=n[1-{nodes}] CPUs=4 RealMemory=8000\n"
        f"PartitionName=main Nodes=n[1-{nodes}] Default=YES MaxTime=INFINITE\n"
    )


def job(id: str, args: str, submit: float = 0, runtime: float = 3000, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def preempted(result) -> list[str]:
    return [e[3] for e in result.sim.events if e[1] == "preempt"]


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def test_the_smaller_job_is_preempted_rather_than_the_larger():
    """A one-node preemptor on a full cluster: the one-node job goes, not the two-node job
    (submitted later, so the old rule, youngest first, picked it)."""
    result = simulate(
        cluster(),
        Workload(
            (
                job("small", "-N 1 --exclusive -t 60"),
                job("big", "-N 2 --exclusive -t 60", submit=10),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=(Qos("high", priority=100, preempt=("normal",)),),
    )
    assert preempted(result) == ["small"]
    assert starts(result)["hi"] == 100


def test_the_lowest_qos_priority_goes_first_whatever_the_size():
    """QOS priority outranks node count: the two-node job of the lower QOS goes."""
    qos = (
        Qos("low", priority=1),
        Qos("mid", priority=5),
        Qos("high", priority=100, preempt=("low", "mid")),
    )
    result = simulate(
        cluster(),
        Workload(
            (
                job("mid1", "-N 1 --exclusive -t 60 -q mid"),
                job("low2", "-N 2 --exclusive -t 60 -q low", submit=10),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=qos,
    )
    assert preempted(result) == ["low2"]


def test_a_preemptor_sorts_only_before_the_jobs_it_may_preempt():
    """QOS vip (priority 1000) has the highest job priority; high (10) may preempt only scav.
    high's job does not jump ahead of vip's: vip runs first when the node frees up."""
    conf = cluster(
        1,
        "PriorityType=priority/multifactor\nPriorityWeightQOS=10000\nPriorityCalcPeriod=1\n",
    )
    qos = (Qos("vip", priority=1000), Qos("high", priority=10, preempt=("scav",)), Qos("scav"))
    result = simulate(
        conf,
        Workload(
            (
                job("run", "-N 1 --exclusive -t 20", runtime=600),
                job("vipjob", "-N 1 --exclusive -t 20 -q vip", submit=10, runtime=600),
                job("highjob", "-N 1 --exclusive -t 20 -q high", submit=20, runtime=600),
            )
        ),
        "easy",
        qos=qos,
    )
    assert starts(result) == {"run": 0, "vipjob": 600, "highjob": 1200}


def test_a_preemptor_sorts_before_a_higher_priority_job_it_may_preempt():
    """scav's job has the higher priority, but high may preempt scav: high's job goes first."""
    conf = cluster(
        1,
        "PriorityType=priority/multifactor\nPriorityWeightQOS=10000\nPriorityCalcPeriod=1\n",
    )
    qos = (Qos("scav", priority=1000), Qos("high", priority=10, preempt=("scav",)))
    result = simulate(
        conf,
        Workload(
            (
                job("run", "-N 1 --exclusive -t 20", runtime=600),
                job("scavjob", "-N 1 --exclusive -t 20 -q scav", submit=10, runtime=600),
                job("highjob", "-N 1 --exclusive -t 20 -q high", submit=20, runtime=600),
            )
        ),
        "easy",
        qos=qos,
    )
    assert starts(result) == {"run": 0, "highjob": 600, "scavjob": 1200}


def test_preempt_exempt_time_from_slurm_conf_delays_the_preemption():
    """PreemptExemptTime=60 (minutes): the victim runs an hour first; the preemptor, which
    arrived at t=100, preempts it at t=3600 exactly."""
    result = simulate(
        cluster(1, "PreemptExemptTime=60\n"),
        Workload(
            (
                job("low", "-N 1 --exclusive -t 300", runtime=10_000),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=(Qos("high", priority=100, preempt=("normal",)),),
    )
    assert preempted(result) == ["low"]
    assert starts(result)["hi"] == 3600


def test_a_qos_preempt_exempt_time_overrides_the_clusters():
    """The victim's QOS PreemptExemptTime (600 s) wins over slurm.conf's (an hour)."""
    qos = (
        Qos("scav", preempt_exempt_time=600),
        Qos("high", priority=100, preempt=("scav", "normal")),
    )
    result = simulate(
        cluster(1, "PreemptExemptTime=60\n"),
        Workload(
            (
                job("low", "-N 1 --exclusive -t 300 -q scav", runtime=10_000),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=qos,
    )
    assert starts(result)["hi"] == 600


def test_exempt_jobs_are_skipped_for_preemptable_ones():
    """Of two victims, the one still exempt is left alone; the other one goes at once."""
    qos = (
        Qos("scav", preempt_exempt_time=3600),
        Qos("old"),
        Qos("high", priority=100, preempt=("scav", "old")),
    )
    result = simulate(
        cluster(2),
        Workload(
            (
                job("older", "-N 1 --exclusive -t 300 -q old", runtime=10_000),
                job("fresh", "-N 1 --exclusive -t 300 -q scav", submit=50, runtime=10_000),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=qos,
    )
    assert preempted(result) == ["older"]
    assert starts(result)["hi"] == 100


@pytest.mark.parametrize("value", ["UNLIMITED", "INFINITE", "-1"])
def test_preempt_exempt_time_unlimited_means_none(value):
    """PreemptExemptTime=UNLIMITED is no exemption, as -1 is: time_str2secs reads both as
    INFINITE, which acct_policy_get_preemptable_time takes as "none" (returns the start).
    Until stop 45 slurmlab read UNLIMITED as "never preempted"."""
    result = simulate(
        cluster(1, f"PreemptExemptTime={value}\n"),
        Workload(
            (
                job("low", "-N 1 --exclusive -t 300", runtime=5000),
                job("hi", "-N 1 --exclusive -t 20 -q high", submit=100, runtime=600),
            )
        ),
        "easy",
        qos=(Qos("high", priority=100, preempt=("normal",)),),
    )
    assert preempted(result) == ["low"]
    assert starts(result)["hi"] == 100


def test_the_preemption_waits_for_the_periodic_main_scheduler_pass():
    """Slurm preempts in main-scheduler passes only: the victim becomes preemptable at 90 s
    (PreemptExemptTime=1:30) and is preempted at the next periodic pass, 120 s
    (sched_interval=60); with sched_interval=-1, only an event's pass would look again."""
    jobs = Workload(
        (
            job("low", "-N 1 --exclusive -t 300", runtime=1000),
            job("hi", "-N 1 --exclusive -t 20 -q high", submit=10, runtime=600),
        )
    )
    qos = (Qos("high", priority=100, preempt=("normal",)),)
    result = simulate(cluster(1, "PreemptExemptTime=1:30\n"), jobs, "easy", qos=qos)
    assert starts(result)["hi"] == 120
    never = cluster(1, "PreemptExemptTime=1:30\nSchedulerParameters=sched_interval=-1\n")
    result = simulate(never, jobs, "easy", qos=qos)
    assert preempted(result) == []
    assert starts(result)["hi"] == 1000


def test_a_second_exempt_time_wakes_its_own_pass():
    """Two victims become preemptable at 100 s and 150 s; the preemptor needs both nodes.
    The pass woken at 120 s finds one candidate and arms the next wake (180 s), where both
    go (the wake armed at 120 s used to stay set, and the second wake was dropped)."""
    result = simulate(
        cluster(2, "PreemptExemptTime=1:40\n"),
        Workload(
            (
                job("L1", "-N 1 --exclusive -t 300", runtime=3000),
                job("L2", "-N 1 --exclusive -t 300", submit=50, runtime=3000),
                job("H", "-N 2 --exclusive -t 20 -q high", submit=60, runtime=600),
            )
        ),
        "easy",
        qos=(Qos("high", priority=100, preempt=("normal",)),),
    )
    assert sorted(preempted(result)) == ["L1", "L2"]
    assert starts(result)["H"] == 180


def test_a_rejected_workload_job_is_named_by_its_position():
    """A workload job without an id of its own, refused at submission, is named by its name
    and its position in the workload (no invented job id)."""
    import pytest

    from slurmlab.errors import RequestError

    jobs = [job(None, "-N 1 -t 10 -J ok", submit=i) for i in range(5)]
    jobs.append(job(None, "-N 1 -t 10 -J train-7 -q nope", submit=9))
    with pytest.raises(RequestError, match=r"job 'train-7' \(workload job 6, submitted at t=9s\)"):
        simulate(cluster(2), Workload(tuple(jobs)), "easy")
