"""Stop 31: a Slurm administrator's review of failures and recovery (random failure models,
requeues of finished jobs, requeuehold, AuthInfo cred_expire, holds of running jobs,
checkpoints on --signal, node resumes, error messages)."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import pytest

import slurmlab
from slurmlab import Cluster, Lab, RandomFailures, Scenario, SlurmlabError
from slurmlab.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
HOLDS = ROOT / "datasets" / "realslurm" / "holds"


def _node_fails(models) -> dict[str, list]:
    """When each of two 10-hour jobs, one on node1 and one on node2, lost its node."""
    lab = Lab("tiny", random_failures=models)
    for name in ("node1", "node2"):
        lab.sbatch(f"-w {name} -t 1-0 -J {name}", runtime="10h")
    lab.advance("12h")
    t = lab.sacct(duplicates=True)
    return {n: list(t[(t.JobName == n) & (t.State == "NODE_FAIL")].End) for n in ("node1", "node2")}


def test_every_random_failure_model_of_a_list_fails_its_nodes():
    """random_failures=[A, B] applies both models (one per group of nodes, each with its own
    MTBF), not only the first; the first fails its nodes as it would alone, the second draws
    from streams of its own (two models never share draws); an empty list is no failures."""
    a = RandomFailures(mtbf="1h", nodes="node1", repair="10m")
    b = RandomFailures(mtbf="1h", nodes="node2", repair="10m")
    both, alone_a, alone_b = _node_fails([a, b]), _node_fails(a), _node_fails(b)
    assert both["node1"] == alone_a["node1"] and both["node1"]
    assert alone_a["node2"] == []
    assert len(both["node2"]) > 0
    assert both["node2"] != alone_b["node2"]  # (the second model's own streams)
    assert _node_fails([]) == {"node1": [], "node2": []}
    result = slurmlab.simulate(
        "tiny", slurmlab.ai_workload(20, "tiny", seed=1), random_failures=(a, b), until="6h"
    )
    failed = result.sacct(duplicates=True).query("State == 'NODE_FAIL'")
    assert {"node1", "node2"} <= set(failed["NodeList"])  # (simulate takes a list too)


def test_a_scenario_takes_a_list_of_random_failure_models(tmp_path):
    """A list under random_failures is several models; an entry that is not a mapping, or
    names an unknown node, is an error naming the entry."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 36000, args: '-w node2 -t 1-0'}\n"
        "random_failures:\n  - {mtbf: 30d, nodes: node1}\n  - {mtbf: 1h, nodes: node2, seed: 4}\n"
    )
    scenario = Scenario.load(path)
    assert isinstance(scenario.random_failures, tuple) and len(scenario.random_failures) == 2
    assert scenario.random_failures[1].seed == 4
    runs = scenario.run(until="12h").sacct(duplicates=True)
    assert (runs["State"] == "NODE_FAIL").any()
    again = scenario.run(seed=9, until="12h").sacct(duplicates=True)  # (seeds replaced)
    assert list(again["End"]) != list(runs["End"])
    path.write_text("cluster: tiny\njobs: []\nrandom_failures:\n  - {mtbf: 1h}\n  - 3600\n")
    with pytest.raises(ScenarioError, match=r"line 5: random_failures\[1\]: a failure model is"):
        Scenario.load(path)
    path.write_text("cluster: tiny\njobs: []\nrandom_failures:\n  - {mtbf: 1h, nodes: gpu9}\n")
    with pytest.raises(ScenarioError, match=r"random_failures\[0\]: nodes \['gpu9'\]"):
        Scenario.load(path)


def test_requeuing_a_finished_job_counts_its_first_run_as_lost_work():
    """A completed job requeued by scontrol runs again from the start: its first run's work
    is done again, so it is lost, not useful twice (goodput 0.5, not 1.0)."""
    lab = Lab("tiny")
    plain = lab.sbatch("-N 1 -t 60", runtime="10m")
    ckpt = lab.sbatch("-N 1 -t 60", runtime="10m", checkpoint={"interval": "5m"})
    lab.advance("11m")
    lab.requeue(f"{plain},{ckpt}")
    lab.advance("1h")
    per_job = lab.result.goodput().set_index("JobID")
    for job in (plain, ckpt):
        row = per_job.loc[str(job)]
        assert row["useful_h"] == pytest.approx(10 / 60)
        assert row["lost_h"] == pytest.approx(10 / 60)
        assert row["goodput"] == pytest.approx(0.5)


def test_sacct_gives_requeuehold_its_reason_code_and_a_held_running_job_no_eligible():
    """scontrol requeuehold sets WAIT_HELD_USER (the text is squeue's only): sacct says
    JobHeldUser for a run released after its requeue delay. A job held while it runs has
    its begin time zeroed in the database: that run's Eligible is Unknown (real fixture
    holds: run_held's REQUEUED row and short_held's)."""
    real = slurmlab.read_sacct(HOLDS / "sacct.txt")
    real = real[~real["JobID"].astype(str).str.contains(r"\.")]
    scenario = Scenario.load(ROOT / "datasets" / "realslurm" / "scenarios" / "holds.yaml")
    sim = scenario.run().sacct(duplicates=True)
    for name, state in (("run_held", "REQUEUED"), ("short_held", "COMPLETED")):
        assert real[(real.JobName == name) & (real.State == state)]["Eligible"].isna().all()
        assert sim[(sim.JobID == name) & (sim.State == state)]["Eligible"].isna().all()
    # requeuehold's own REQUEUED run keeps its Eligible, as in the fixture
    assert sim[(sim.JobID == "requeueheld") & (sim.State == "REQUEUED")]["Eligible"].notna().all()
    late = replace(
        scenario,
        actions=tuple(
            replace(a, at=200.0) if a.action == "release" and a.target == "requeueheld" else a
            for a in scenario.actions
        ),
    )
    rows = late.run().sacct(duplicates=True)
    second = rows[(rows.JobID == "requeueheld") & (rows.State == "COMPLETED")]
    assert second["Reason"].tolist() == ["JobHeldUser"]
    lab = Lab("tiny")
    job = lab.sbatch("-N 1 -t 60", runtime="1h")
    lab.advance("1m")
    lab.requeuehold(job)
    lab.advance("1m")
    assert "(job requeued in held state)" in lab.squeue_text()
    assert lab.sacct(duplicates=True)["Reason"].iloc[-1] == "JobHeldUser"
    lab.release(job)
    lab.advance("5m")
    assert lab.sacct().set_index("JobID").loc[str(job), "State"] == "RUNNING"


def test_authinfo_cred_expire_sets_the_requeue_delay(tmp_path):
    """slurm.conf(5): AuthInfo's cred_expire "also controls how long a requeued job must wait
    before starting again": the job's begin time is now + cred_expire + 1 (job_mgr.c);
    below 5 s (or not a number) it is refused, as Slurm logs it invalid. requeue_delay=
    still overrides it, in a Lab too."""
    tiny = Cluster.preset("tiny")
    fast = replace(
        tiny, settings={**tiny.settings, "AuthInfo": "socket=/run/m.sock,cred_expire=30"}
    )
    assert tiny.requeue_delay == 121.0 and fast.requeue_delay == 31.0

    def eligible_after_requeue(cluster, **kw) -> float:
        lab = Lab(cluster, **kw)
        job = lab.sbatch("-N 1 -t 60", runtime="1h")
        lab.advance("1m")
        lab.requeue(job)
        lab.advance("1s")
        row = lab.sacct(duplicates=True).iloc[-1]
        return (row["Eligible"] - row["Submit"]).total_seconds()

    assert eligible_after_requeue(tiny) == 121
    assert eligible_after_requeue(fast) == 31
    assert eligible_after_requeue(fast, requeue_delay="10s") == 10
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "ClusterName=c\nAuthInfo=cred_expire=3\nNodeName=n1 CPUs=4 RealMemory=1000\n"
        "PartitionName=p Nodes=n1 Default=YES\n"
    )
    with pytest.raises(SlurmlabError, match="cred_expire must be a whole number of seconds"):
        Cluster.from_slurm_conf(conf)


def test_a_checkpoint_on_signal_that_cannot_act_is_warned_about():
    """on_signal needs --signal (no signal comes otherwise) and a job that may be requeued
    (it requeues itself): without either, the job is killed at its limit, so say so."""
    lab = Lab("tiny")
    ck = {"interval": "10m", "write_cost": 30, "on_signal": True}
    with pytest.warns(UserWarning, match=r"on_signal needs --signal.*--signal=B:USR1@90"):
        lab.sbatch("-N 1 -t 30", runtime="1h", checkpoint=ck)
    with pytest.warns(UserWarning, match=r"may not be requeued.*cannot requeue it on the signal"):
        lab.sbatch("-N 1 -t 30 --signal=B:USR1@120 --no-requeue", runtime="1h", checkpoint=ck)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lab.sbatch("-N 1 -t 30 --signal=B:USR1@120", runtime="1h", checkpoint=ck)


def test_resuming_a_node_in_repair_says_what_sinfo_shows():
    """The warning says the node stays down* until its repair (as sinfo shows it) and what
    Slurm shows instead (idle*, not responding), instead of claiming sinfo's idle*."""
    lab = Lab("tiny")
    lab.fail("node3", down_for="1h")
    with pytest.warns(UserWarning, match=r"until then sinfo shows it down\*"):
        lab.resume("node3")
    assert "down*" in lab.sinfo_text()


def test_failure_and_formula_errors_name_the_field_and_accept_durations(tmp_path):
    """A bad hostlist in failures names its entry and field; a negative duration says it is
    negative; Young/Daly/expected goodput take durations as the rest of the failure API."""
    path = tmp_path / "f.yaml"
    path.write_text("cluster: tiny\njobs: []\nfailures:\n  - {node: 'node[1-', at: 5}\n")
    with pytest.raises(ScenarioError, match=r"line 4: failures\[0\]: field 'node': invalid hostl"):
        Scenario.load(path)
    with pytest.raises(SlurmlabError, match=r"invalid down_for '-5m': must not be negative"):
        Lab("tiny").fail("node1", down_for="-5m")
    with pytest.raises(SlurmlabError, match=r"interval -1: must not be negative"):
        slurmlab.Checkpoint(interval=-1)
    assert slurmlab.young_interval("1m", "10h") == pytest.approx(slurmlab.young_interval(60, 36000))
    assert slurmlab.daly_interval("1:00", "10:00:00") == slurmlab.daly_interval(60, 36000)
    assert slurmlab.expected_goodput("1h", 60, "5m", "10h") == pytest.approx(
        slurmlab.expected_goodput(3600, 60, 300, 36000)
    )
    with pytest.raises(SlurmlabError, match=r"mtbf .*nan: give a number"):
        slurmlab.young_interval(10, float("nan"))


# -- a dashboard author's cross-view audit -------------------------------------------------

_GPU4 = {
    "nodes": [
        {"name": "g[1-4]", "cpus": 8, "memory": 32000, "gres": "gpu:4"},
        {"name": "c1", "cpus": 16, "memory": 64000},
    ],
    "partitions": [
        {"name": "gpu", "nodes": "g[1-4]", "default": True},
        {"name": "short", "nodes": "g[1-2],c1"},
    ],
}


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize("partitions", ["short,gpu", "gpu,short"])
def test_a_reservation_on_one_partitions_nodes_leaves_the_jobs_other_partition(policy, partitions):
    """-p short,gpu while an advance reservation holds short's GPU nodes: the job starts at
    once in gpu (its record there has gpu's nodes, not short's), whatever the order of -p."""
    doc = {
        "cluster": _GPU4,
        "policy": policy,
        "reservations": [
            {"name": "r1", "start": 0, "duration": "1:00:00", "nodes": "g[1-2]", "users": ["alice"]}
        ],
        "jobs": [
            {"id": "j", "submit": 10, "runtime": 120, "user": "bob",
             "args": f"-p {partitions} -N 1 --gres=gpu:1 -t 10"},
        ],
    }  # fmt: skip
    row = Scenario.from_dict(doc).run().jobs.iloc[0]
    assert (row.Partition, row.NodeList) == ("gpu", "g3")
    assert (row.Start - row.Submit).total_seconds() == 0


def test_squeue_start_forgets_the_plan_of_a_requeued_jobs_first_wait():
    """A job planned, started, then requeued by a node failure shows its new begin time in
    squeue --start, not the start planned before its first run (a time in the past)."""
    doc = {
        "cluster": "tiny",
        "policy": "easy",
        "jobs": [
            {"id": "X", "submit": 0, "runtime": 100, "args": "-N 4 -t 2 --exclusive"},
            {"id": "Y", "submit": 10, "runtime": 1000, "args": "-N 2 -t 30 --exclusive"},
            {"id": "Z", "submit": 10, "runtime": 1000, "args": "-N 2 -t 30 --exclusive"},
        ],
        "failures": [{"node": "node1", "at": 150, "down_for": 60}],
    }
    r = Scenario.from_dict(doc).run()
    assert "2026-01-05T00:02:00" in r.squeue_text(at=50, start=True)  # (its first plan)
    line = next(x for x in r.squeue_text(at=200, start=True).splitlines() if " Y " in x)
    assert "2026-01-05T00:04:31" in line and "BeginTime" in line  # (150 s + 121 s)


def test_a_throttled_arrays_tasks_wait_for_the_limit_only_while_its_tasks_run():
    """JobArrayTaskLimit only while the array's running tasks fill its %N slots: with one of
    two running, a requeued task queued behind the record that cannot start waits its turn."""
    cluster = {
        "nodes": [{"name": "g[1-4]", "cpus": 8, "memory": 32000, "gres": "gpu:2"}],
        "partitions": [{"name": "short", "nodes": "g[1-4]", "default": True}],
    }
    doc = {
        "cluster": cluster,
        "policy": "easy",
        "jobs": [
            {
                "id": "j14",
                "submit": 0,
                "runtime": 3700,
                "args": "-N 2 --gres=gpu:2 -t 60 --array=0-3%2",
            }
        ],
        "failures": [{"node": "g2", "at": 600, "down_for": 300}],
    }
    r = Scenario.from_dict(doc).run()

    def tasks(at):  # squeue -r: task -> (state, reason)
        rows = [line.split(None, 7) for line in r.squeue_text(at=at, array=True).splitlines()[1:]]
        return {row[0]: (row[4], row[7]) for row in rows}

    at800 = tasks(800)
    assert sum(st == "R" for st, _ in at800.values()) == 1  # (a %2 slot is free)
    assert not any("JobArrayTaskLimit" in why for _, why in at800.values())
    # (with a slot free, the requeued task, queued after the record, is tested behind it:
    # Priority, as job_scheduler.c gives it; job_mgr.c job_array_start_test lets it by)
    assert at800["j14_2"] == ("PD", "(Resources)")
    assert at800["j14_0"] == ("PD", "(Priority)")
    assert "maximum number of tasks" not in r.why_pending("j14_0", at=800)
    at1000 = tasks(1000)
    assert sum(st == "R" for st, _ in at1000.values()) == 2  # (two at a time, still)
    assert {why for st, why in at1000.values() if st == "PD"} == {"(JobArrayTaskLimit)"}
    # none running (short's only GPU nodes: one is down): the requeued tasks wait as the rest
    doc["cluster"] = {
        "nodes": [{"name": "g[1-2]", "cpus": 8, "memory": 32000, "gres": "gpu:4"},
                  {"name": "c1", "cpus": 16, "memory": 64000}],
        "partitions": [{"name": "short", "nodes": "g[1-2],c1", "default": True}],
    }  # fmt: skip
    r = Scenario.from_dict(doc).run()
    at800 = tasks(800)
    assert {st for st, _ in at800.values()} == {"PD"}
    assert {why for _, why in at800.values()} == {"(ReqNodeNotAvail, UnavailableNodes:g2)"}


@pytest.mark.parametrize("prio", ["priority/basic", "priority/multifactor"])
def test_a_job_waiting_on_a_held_job_ends_the_run(prio):
    """Nothing can happen once only a held job and a job depending on it are left: the run
    ends (under multifactor priority it recalculated priorities for ever)."""
    doc = {
        "cluster": {"nodes": [{"name": "n1", "cpus": 8}], "settings": {"PriorityType": prio}},
        "jobs": [
            {"id": "b", "runtime": 60, "args": "-t 5 --hold"},
            {"id": "c", "runtime": 60, "args": "-t 5 --dependency=afterok:b"},
        ],
    }
    with pytest.warns(UserWarning, match="never started"):
        r = Scenario.from_dict(doc).run()
    assert r.sim.now <= 300
    assert set(r.jobs["State"]) == {"PENDING"}


def test_random_failures_leave_the_clock_at_the_last_thing_that_happened():
    """A run without an end stops when nothing is left to happen, not at the next random
    failure days later (views without at= would describe that time)."""
    doc = {
        "cluster": "tiny",
        "jobs": [{"id": "a", "runtime": 60, "args": "-N 1 -t 5"}],
        "random_failures": {"mtbf": "30d", "repair": "10m"},
    }
    r = Scenario.from_dict(doc).run()
    assert r.sim.now == 60.0
    assert r.squeue_text(long=True).splitlines()[0] == "Mon Jan 05 00:01:00 2026"


def test_conservative_gives_a_preemptor_the_room_its_victim_frees():
    """preempt/qos under conservative: H preempts L1 (GraceTime 30 s) and starts on the nodes
    L1 frees at 90 s, as why_pending says, though L2 (low QOS, a higher PriorityTier
    partition) held a reservation there from before H arrived; L2 is not preempted in turn."""
    qos = [
        {"name": "high", "priority": 1000, "preempt": ["low"]},
        {"name": "low", "grace_time": 30},
    ]
    doc = {
        "cluster": {
            "nodes": [{"name": "g[1-3]", "cpus": 8, "memory": 32000, "gres": "gpu:4"}],
            "partitions": [
                {"name": "gpu", "nodes": "g[1-3]", "default": True},
                {"name": "short", "nodes": "g[1-2]", "priority_tier": 2},
            ],
            "settings": {
                "PriorityType": "priority/multifactor", "PriorityWeightQOS": "5000",
                "PreemptType": "preempt/qos", "PreemptMode": "REQUEUE",
            },
        },
        "policy": "conservative",
        "qos": qos,
        "jobs": [
            {"id": "L1", "runtime": 900, "args": "-p short -N 2 --gres=gpu:3 -t 60 --qos=low"},
            {"id": "L2", "runtime": 900, "args": "-p short -N 2 --gres=gpu:3 -t 60 --qos=low"},
            {"id": "H", "submit": 60, "runtime": 60, "args": "-p gpu -N 3 --exclusive -t 5 --qos=high"},
        ],
    }  # fmt: skip
    r = Scenario.from_dict(doc).run()
    assert "starts on the nodes it frees at t=90s" in r.why_pending("H", at=61)
    runs = r.jobs_all_runs
    rows = [(x.JobID, x.State, (x.Start - r.origin).total_seconds()) for x in runs.itertuples()]
    assert ("H", "COMPLETED", 90.0) in rows
    assert (runs["State"] == "PREEMPTED").sum() == 1  # (L1 only: no second preemption)


# -- a review of this stop's changes ---------------------------------------------------------


def test_random_failures_resume_after_an_idle_spell_in_a_lab():
    """A failure model does not stop for good when the cluster is idle for a while: jobs
    submitted after an idle advance still meet failures (the run without an end still
    stops at the last thing that happened)."""
    model = RandomFailures(mtbf="2h", repair="10m")
    lab = Lab("tiny", random_failures=model)
    lab.sbatch("-N 1 -t 30", runtime="10m")
    lab.advance("3d")  # (nothing to do for most of it)
    for i in range(4):
        lab.sbatch(f"-w node{i + 1} -t 1-0", runtime="20h")
    lab.advance("21h")
    assert (lab.sacct(duplicates=True)["State"] == "NODE_FAIL").sum() > 0


def test_two_failure_models_with_the_same_own_seed_fail_independently():
    """Copy-pasted models (same own seed, same node) draw from different streams: the node
    fails more often than with one of them (with shared streams the second model's failures
    fell at the first's instants, on a node already down, and were lost)."""
    one = RandomFailures(mtbf="2h", repair="1m", nodes="node1", seed=5)
    alone, both = _node_fails(one)["node1"], _node_fails([one, one])["node1"]
    assert len(both) > len(alone) > 0


def test_scenario_lab_with_a_seed_draws_the_failures_again(tmp_path):
    """Scenario.lab(seed=) redraws the random failures as Scenario.run(seed=) does (a model's
    own seed set aside)."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 72000, args: '-w node1 -t 1-0'}\n"
        "random_failures: {mtbf: 2h, repair: 1m, nodes: node1, seed: 4}\n"
    )
    scenario = Scenario.load(path)

    def ends(lab):
        lab.advance("21h")
        rows = lab.sacct(duplicates=True)
        return list(rows[rows.State == "NODE_FAIL"]["End"])

    assert ends(scenario.lab()) == list(
        scenario.run(until="21h").sacct(duplicates=True).query("State == 'NODE_FAIL'")["End"]
    )
    assert ends(scenario.lab(seed=9)) == list(
        scenario.run(seed=9, until="21h")
        .sacct(duplicates=True)
        .query("State == 'NODE_FAIL'")["End"]
    )
    assert ends(scenario.lab(seed=9)) != ends(scenario.lab())


def test_on_signal_warnings_come_once_per_submission_and_check_the_margin():
    """An array gets one warning, naming the array; a --signal that comes less than the
    checkpoint's write_cost before the limit is warned about too."""
    lab = Lab("tiny")
    ck = {"interval": "10m", "write_cost": 30, "on_signal": True}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lab.sbatch("-N 1 -t 30 --array=0-9", runtime="1h", checkpoint=ck)
    assert len(caught) == 1 and str(caught[0].message).startswith("job 1: checkpoint on_signal")
    with pytest.warns(UserWarning, match=r"--signal comes 10 s before .* write_cost \(30 s\)"):
        lab.sbatch("-N 1 -t 30 --signal=B:USR1@10", runtime="1h", checkpoint=ck)


def test_review_nits_cred_expire_requeuehold_and_durations():
    """cred_expire as atoi reads it (spaces, a sign); requeuehold of a pending job is refused
    in its own name, and a job requeued held in the second it started still shows in squeue;
    "-0" is no negative time; Young's interval takes a timedelta."""
    from datetime import timedelta

    tiny = Cluster.preset("tiny")
    spaced = replace(tiny, settings={**tiny.settings, "AuthInfo": "cred_expire= 30"})
    assert spaced.requeue_delay == 31.0
    lab = Lab("tiny")
    running = lab.sbatch("-N 4 -t 60 --exclusive", runtime="1h")
    waiting = lab.sbatch("-N 4 -t 60 --exclusive", runtime="1h")
    with pytest.raises(SlurmlabError, match=rf"scontrol requeuehold {waiting}: Job is pending"):
        lab.requeuehold(waiting)
    # requeued in the second it started (its new Submit is a second later, as in Slurm), it
    # still shows in squeue at once
    lab.requeuehold(running)
    assert "(job requeued in held state)" in lab.squeue_text()
    assert slurmlab.Checkpoint(interval="1h", write_cost="-0").write_cost == 0
    assert slurmlab.young_interval(timedelta(minutes=1), timedelta(hours=10)) == pytest.approx(
        slurmlab.young_interval(60, 36000)
    )


def test_requeuehold_of_an_array_holds_the_tasks_it_requeues_only():
    """scontrol requeuehold of a whole array requeues and holds its running tasks; its waiting
    tasks are left as they are (_job_requeue_op returns ESLURM_JOB_PENDING for a pending job
    before the hold), so they start on the nodes the held ones free."""
    lab = Lab("tiny")
    array = lab.sbatch("-N 2 --exclusive -t 60 --array=0-3", runtime="1h")
    lab.advance("1m")
    lab.requeuehold(array)
    lab.advance("1s")
    rows = [line.split(None, 7) for line in lab.squeue_text(array=True).splitlines()[1:]]
    state = {row[0]: (row[4], row[7]) for row in rows}
    assert state[f"{array}_0"] == ("PD", "(job requeued in held state)")
    assert state[f"{array}_1"] == ("PD", "(job requeued in held state)")
    assert state[f"{array}_2"][0] == state[f"{array}_3"][0] == "R"
