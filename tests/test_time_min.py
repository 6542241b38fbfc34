"""``sbatch --time-min``: Slurm 22.05's backfill plans and starts such a job with its limit
lowered to its --time-min (checked against real Slurm: datasets/realslurm/time-min), the
main scheduler starts it with its full limit, and slurmctld refuses a --time-min above the
job's limit or the partition's MaxTime."""

from __future__ import annotations

import warnings
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

from slurmlab import Cluster, JobSpec, Lab, Scenario, simulate
from slurmlab.errors import RequestError, SbatchError
from slurmlab.records.sacct import read_sacct
from slurmlab.spec.workload import Workload, WorkloadJob

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "datasets/realslurm/scenarios/time-min.yaml"
FOUR = "NodeName=n[1-4] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES\n"
PARAMS = "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=60\n"


def lab(conf: str = FOUR + PARAMS, policy: str = "slurm") -> Lab:
    return Lab(Cluster.from_slurm_conf(conf), policy=policy)


def row(lab: Lab, jid: int) -> pd.Series:
    return lab.sacct().set_index("JobID").loc[str(jid)]


def seconds(lab: Lab, when) -> float | None:
    return None if when != when else (when - lab.sim.origin).total_seconds()


def blockers(lb: Lab) -> int:
    """Three of the four nodes busy until 300 s (job 1), and job 2 (all four nodes, 1
    minute) reserved from then: a gap of 300 s on the fourth node. Returns job 2's id."""
    lb.sbatch("-N 3 --exclusive -t 5:00", runtime=300)
    return lb.sbatch("-N 4 --exclusive -t 1:00", runtime=60)


@pytest.mark.filterwarnings("ignore:.*KillWait")
def test_the_real_fixture_limits_states_and_starters():
    """Every job's Timelimit, State and starter as real Slurm 22.05 recorded them."""
    jobs = Scenario.load(FIXTURE).run().jobs.set_index("JobID")
    real = read_sacct(FIXTURE.parent.parent / "time-min" / "sacct.txt")
    real = real.set_index("JobName")
    for name in ("run1", "big", "flex", "flexlong", "rigid", "flexbig", "cpuflex"):
        assert jobs.loc[name, "Timelimit"] == real.loc[name, "Timelimit"], name
        assert jobs.loc[name, "State"] == real.loc[name, "State"], name
    minutes = jobs["Timelimit"].dt.total_seconds() / 60
    assert minutes.to_dict() == {
        "run1": 3, "big": 3, "flex": 2, "flexlong": 1, "rigid": 10, "flexbig": 10, "cpuflex": 10,
    }  # fmt: skip
    by = jobs["StartedBy"].to_dict()
    assert by["flex"] == by["flexlong"] == "backfill"
    assert by["rigid"] == by["flexbig"] == by["cpuflex"] == "main"
    # flexlong is killed at its lowered limit (real Slurm: 65 s, its limit check and KillWait)
    run = (jobs.loc["flexlong", "End"] - jobs.loc["flexlong", "Start"]).total_seconds()
    assert run == 60.0


def test_backfill_starts_it_with_its_time_min_and_kills_it_there():
    """Job 2 (4 nodes) waits for job 1 (3 nodes until 300 s); a 10-minute job fits in the
    gap on the fourth node only with its --time-min: backfill starts it with a 2-minute
    limit, which squeue and sacct show, and ends it at 120 s (TIMEOUT) though its work
    takes 200 s. Without --time-min the same job waits for job 2."""
    lb = lab()
    big = blockers(lb)
    flex = lb.sbatch("-N 1 --exclusive -t 10:00 --time-min=2:00", runtime=200)
    rigid = lb.sbatch("-N 1 --exclusive -t 10:00", runtime=30)
    lb.advance("10s")
    assert lb.squeue().set_index("JOBID").loc[str(flex), "TIME_LIMIT"] == "2:00"
    lb.run()
    r = row(lb, flex)
    assert r["State"] == "TIMEOUT" and r["Timelimit"] == timedelta(minutes=2)
    assert r["StartedBy"] == "backfill"
    assert seconds(lb, r["Start"]) == 5.0 and seconds(lb, r["End"]) == 125.0
    assert seconds(lb, row(lb, big)["Start"]) == 300.0  # (not delayed)
    assert seconds(lb, row(lb, rigid)["Start"]) == 360.0
    assert row(lb, rigid)["Timelimit"] == timedelta(minutes=10)


def test_a_time_min_too_long_for_the_gap_waits_with_its_full_limit():
    lb = lab()
    blockers(lb)
    flex = lb.sbatch("-N 1 --exclusive -t 10:00 --time-min=6:00", runtime=30)
    lb.run()
    r = row(lb, flex)
    assert seconds(lb, r["Start"]) == 360.0 and r["StartedBy"] == "main"
    assert r["Timelimit"] == timedelta(minutes=10)


def test_the_main_scheduler_starts_it_with_its_full_limit():
    lb = lab()
    flex = lb.sbatch("-N 1 -t 10:00 --time-min=2:00", runtime=30)
    lb.run()
    r = row(lb, flex)
    assert r["StartedBy"] == "main" and r["Timelimit"] == timedelta(minutes=10)


def test_a_planned_time_min_job_is_reserved_for_its_time_min_only():
    """backfill.c places a --time-min job's reservation with its --time-min: a job behind it
    is planned after that, not after its full limit."""
    lb = lab(FOUR + "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=120\n")
    lb.sbatch("-N 4 --exclusive -t 5:00", runtime=300)
    flex = lb.sbatch("-N 4 --exclusive -t 60:00 --time-min=2:00", runtime=100)
    after = lb.sbatch("-N 4 --exclusive -t 1:00", runtime=30)
    lb.advance("6s")
    sq = lb.squeue().set_index("JOBID")
    plan = {jid: seconds(lb, sq.loc[str(jid), "START_TIME"]) for jid in (flex, after)}
    assert plan == {flex: 300.0, after: 420.0}


@pytest.mark.parametrize("asked", [True, False])
def test_a_requeued_job_keeps_the_lowered_limit_only_with_t(asked):
    """_job_requeue_op resets the limit only when slurmctld set it (no -t): a job with -t
    keeps its lowered limit after a requeue; one without gets its default back."""
    conf = FOUR.replace("Default=YES", "Default=YES DefaultTime=10:00") + PARAMS
    lb = lab(conf)
    blockers(lb)
    args = "-N 1 --exclusive --time-min=2:00" + (" -t 10:00" if asked else "")
    flex = lb.sbatch(args, runtime=100)
    lb.advance("20s")
    assert row(lb, flex)["Timelimit"] == timedelta(minutes=2)
    lb.requeue(flex)
    lb.advance("1s")
    assert row(lb, flex)["Timelimit"] == timedelta(minutes=2 if asked else 10)


def test_slurmctld_refuses_a_time_min_above_the_limit_or_maxtime():
    cl = Cluster.from_slurm_conf(FOUR.replace("Default=YES", "Default=YES MaxTime=30"))
    lb = Lab(cl, policy="slurm")
    with pytest.raises(RequestError, match=r"--time-min=20:00 is above the time limit 10:00"):
        lb.sbatch("-N 1 -t 10:00 --time-min=20:00", runtime=10)
    with pytest.raises(RequestError, match=r"above MaxTime of partition 'p' 30:00.*time-min"):
        lb.sbatch("-N 1 --time-min=45:00", runtime=10)
    with pytest.raises(SbatchError, match="--time-min"):
        JobSpec.from_args("-N 1 --time-min=soon")


def test_time_min_round_trips_and_is_checked_in_python():
    """--time-min is a JobSpec field now (simulated), no longer an option kept verbatim."""
    spec = JobSpec.from_args("-N 2 -t 1:00:00 --time-min=30")
    assert spec.time_min == timedelta(minutes=30) and not spec.other
    assert JobSpec.from_args(spec.to_args()) == spec
    assert JobSpec(nodes=1, time_min="0:45:00").time_min == timedelta(minutes=45)
    with pytest.raises(SbatchError, match="--time-min=.*must be positive"):
        JobSpec(nodes=1, time_min=timedelta(seconds=-5))


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative"])
def test_the_policies_without_it_say_they_ignore_it(policy):
    cl = Cluster.from_slurm_conf(FOUR)
    wl = Workload([WorkloadJob(JobSpec.from_args("-N 1 -t 10:00 --time-min=2:00"), 0.0, 30.0)] * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jobs = simulate(cl, wl, policy=policy, progress=False).jobs
    said = [str(w.message) for w in caught if "--time-min" in str(w.message)]
    assert len(said) == 1 and f"under policy {policy!r}" in said[0]
    assert (jobs["Timelimit"] == timedelta(minutes=10)).all()


class Lowering:
    """A custom policy that starts the first queued job with the limit ``limit``."""

    name = "lowering"

    def __init__(self, limit):
        self.limit = limit

    def schedule(self, view):
        from slurmlab.policies import Decision, Start
        from slurmlab.policies.placement import choose_nodes

        d = Decision()
        for job in view.queue:
            nodes = choose_nodes(view.free.copy(), view.capacity, job.request, job.mask & view.up)
            if nodes is not None:
                d.starts.append(Start(job.id, nodes, "backfill", limit=self.limit))
            break
        return d


@pytest.mark.parametrize(
    ("args", "limit", "error"),
    [
        ("-N 1 -t 10:00 --time-min=2:00", 180.0, None),
        ("-N 1 -t 10:00 --time-min=2:00", 60.0, "from its --time-min, 120 s, to its limit, 600 s"),
        ("-N 1 -t 10:00", 180.0, "it has no --time-min"),
        ("-N 1 -t 10:00 --time-min=2:00", "3:00", "is no time limit"),
    ],
)
def test_a_custom_policy_may_lower_a_limit_down_to_the_time_min_only(args, limit, error):
    from slurmlab.errors import PolicyError

    lb = Lab(Cluster.from_slurm_conf(FOUR), policy=Lowering(limit))
    if error is None:
        jid = lb.sbatch(args, runtime=600)
        lb.run()
        r = row(lb, jid)
        assert r["Timelimit"] == timedelta(seconds=limit) and r["State"] == "TIMEOUT"
        return
    with pytest.raises(PolicyError, match=error):
        lb.sbatch(args, runtime=600)
        lb.advance("1s")


def test_scontrol_update_refuses_a_limit_below_the_time_min():
    lb = lab()
    lb.sbatch("-N 4 --exclusive -t 10", runtime=600)
    jid = lb.sbatch("-N 4 --exclusive -t 10:00 --time-min=5:00", runtime=60)
    with pytest.raises(Exception, match=r"TimeLimit=2:00: Invalid time-min specification .*"
                       r"--time-min=5:00 is above the time limit 2:00"):  # fmt: skip
        lb.update(jid, time="2:00")
    lb.update(jid, time="6:00")  # (not below it: taken)
    assert lb.squeue().set_index("JOBID").loc[str(jid), "TIME_LIMIT"] == "6:00"


def _flexible(workload, every: int = 3):
    """Every ``every``-th job with a limit of two minutes or more gets --time-min = half."""
    import dataclasses
    import math

    jobs = []
    for i, j in enumerate(workload.jobs):
        limit = j.spec.time_limit
        if i % every == 0 and limit is not None and limit >= timedelta(minutes=2):
            low = timedelta(minutes=math.floor(limit.total_seconds() / 120))
            j = dataclasses.replace(j, spec=dataclasses.replace(j.spec, time_min=low))
        jobs.append(j)
    return dataclasses.replace(workload, jobs=tuple(jobs))


@pytest.mark.parametrize("params", [{}, {"bf_interval": 5, "bf_resolution": 10}, {"bf_window": 30}])
def test_continued_cycles_equal_full_cycles_and_limits_are_lowered_only_by_backfill(
    params, monkeypatch
):
    """On the ai preset under a deep queue with a third of the jobs flexible: continued
    backfill cycles decide what full ones do; a limit is lowered only by backfill and only
    to the job's --time-min; no run lasts past its limit; some jobs did get lowered."""
    from test_engine_resume import both, same

    from slurmlab.spec.synthetic import ai_workload

    cluster = Cluster.preset("ai")
    workload = _flexible(ai_workload(400, cluster, seed=3, load=1.3))
    fast, full = both(cluster, workload, "slurm", monkeypatch, **params)
    assert same(fast, full)
    result = simulate(cluster, workload, "slurm", progress=False, **params)
    jobs = result.jobs.set_index("JobID")
    asked = {str(j.id if j.id is not None else k + 1): j.spec for k, j in enumerate(workload.jobs)}
    lowered = 0
    for key, r in jobs.iterrows():
        spec = asked[key]
        full_limit = spec.time_limit
        if r["Timelimit"] != full_limit:
            lowered += 1
            assert r["Timelimit"] == spec.time_min and r["StartedBy"] == "backfill", key
        if r["Start"] == r["Start"]:
            assert r["End"] - r["Start"] <= r["Timelimit"], key
    assert lowered > 5


def test_why_pending_suggests_a_time_min_under_the_slurm_policy_only():
    for policy, said in (("slurm", True), ("easy", False)):
        lb = lab(policy=policy)
        blockers(lb)
        jid = lb.sbatch("-N 1 --exclusive -t 10:00", runtime=60)
        lb.advance("10s")
        text = lb.why_pending(jid)
        assert "with -t 4:00 (instead of 10:00)" in text
        assert ("add --time-min=4:00" in text) is said


def test_a_checkpointing_training_run_backfilled_with_its_time_min():
    """The flexible limit of checkpointing training runs: backfilled at 5 s into the hour
    before a reservation with its 30-minute --time-min, the run gets its signal 2 minutes
    before that limit, writes a checkpoint and requeues itself; having -t, it keeps the
    lowered limit for its later runs too (Slurm 22.05 stores no other), so it goes on in
    30-minute runs from its checkpoints until its work is done."""
    conf = FOUR + "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=600\n"
    lb = lab(conf)
    lb.sbatch("-N 3 --exclusive -t 60:00", runtime=3600)
    lb.sbatch("-N 4 --exclusive -t 10:00", runtime=600)
    jid = lb.sbatch(
        "-N 1 --exclusive -t 120:00 --time-min=30:00 --signal=B:USR1@120 --requeue",
        runtime=7000,
        checkpoint={"interval": "10m", "write_cost": 30, "on_signal": True},
    )
    lb.run()
    runs = lb.result.sacct(duplicates=True).set_index("JobID").loc[[str(jid)]]
    assert runs["State"].tolist() == ["REQUEUED"] * 4 + ["COMPLETED"]
    assert (runs["Timelimit"] == timedelta(minutes=30)).all()
    assert seconds(lb, runs["Start"].iloc[0]) == 5.0
    assert ((runs["End"] - runs["Start"]).iloc[:4] == timedelta(minutes=28, seconds=30)).all()


def test_a_job_of_two_partitions_keeps_its_lowered_limit_when_requeued():
    """-p a,b: the lowered limit holds in every partition the requeued job may start in."""
    conf = (
        "NodeName=n[1-4] CPUs=8 RealMemory=32000\nPartitionName=pa Nodes=n[1-2] Default=YES\n"
        "PartitionName=pb Nodes=n[3-4]\n" + PARAMS
    )
    lb = lab(conf)
    lb.sbatch("-p pa -N 2 --exclusive -t 5:00", runtime=300)
    lb.sbatch("-p pb -N 1 --exclusive -t 5:00", runtime=300)
    lb.sbatch("-p pb -N 2 --exclusive -t 1:00", runtime=60)
    jid = lb.sbatch("-p pa,pb -N 1 --exclusive -t 10:00 --time-min=2:00", runtime=100)
    lb.advance("20s")
    assert row(lb, jid)["Timelimit"] == timedelta(minutes=2)
    lb.requeue(jid)
    lb.run()
    runs = lb.result.sacct(duplicates=True).set_index("JobID").loc[[str(jid)]]
    assert (runs["Timelimit"] == timedelta(minutes=2)).all() and len(runs) == 2


def test_scontrol_update_refuses_a_running_jobs_limit_below_its_time_min():
    """Real Slurm 22.05 (checked by hand on 2026-12-06): `scontrol update JobId=2
    TimeLimit=2` of a running job with --time-min=5 is refused with "Invalid time-min
    specification (exceeds job's time or other limits) for job 2"."""
    lb = lab()
    jid = lb.sbatch("-N 1 -t 10:00 --time-min=5:00", runtime=600)
    lb.advance("10s")
    with pytest.raises(Exception, match=r"TimeLimit=2:00: Invalid time-min specification"):
        lb.update(jid, time="2:00")
    lb.update(jid, time="5:00")
    assert row(lb, jid)["Timelimit"] == timedelta(minutes=5)


def test_why_pending_suggests_a_lower_time_min_for_a_job_that_has_one():
    """A job whose --time-min is too long for the gap: the hint is a lower --time-min (a new
    sbatch), never a TimeLimit update below its --time-min, which Slurm refuses."""
    lb = lab()
    blockers(lb)
    jid = lb.sbatch("-N 1 --exclusive -t 10:00 --time-min=6:00", runtime=60)
    lb.advance("10s")
    text = lb.why_pending(jid)
    assert "with --time-min=4:00 (instead of 6:00)" in text
    assert "TimeLimit=" not in text and "scontrol update cannot set a limit below" in text


def test_an_operators_update_after_a_lowered_start_stays_at_a_requeue():
    """Without -t the lowered limit goes back to the default at a requeue, but a limit set by
    scontrol update in between stays (slurmctld's limit_set)."""
    conf = FOUR.replace("Default=YES", "Default=YES DefaultTime=10:00") + PARAMS
    lb = lab(conf)
    blockers(lb)
    jid = lb.sbatch("-N 1 --exclusive --time-min=2:00", runtime=100)
    lb.advance("20s")
    lb.sim.update(jid, time_limit="3:00", operator=True)
    lb.requeue(jid)
    lb.advance("1s")
    assert row(lb, jid)["Timelimit"] == timedelta(minutes=3)
