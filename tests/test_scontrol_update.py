"""``scontrol update`` of a job (Lab.update, Simulation.update): the node count, time limit
and partition of a pending job, the time limit of a running one, as slurmctld's
_update_job (job_mgr.c, Slurm 22.05) changes them; and why_pending's suggestions, made
with it, let the job start when they say.

The rules were checked on real Slurm 22.05.8 (tools/realslurm's cluster, stop 32, as user
alice); each test quotes what scontrol printed. For instance::

    $ scontrol update JobId=11 NumNodes=1        # a pending -N 3 job
    (exit 0)   NumNodes=1-3 ... started 0.5 s later on gpu1
    $ scontrol update JobId=35 NumNodes=3        # a pending -N 1 job
    Node count specification invalid for job 35
    $ scontrol update JobId=10 NumNodes=4        # a running -N 3 job
    Requested operation not supported on this system for job 10
    $ scontrol update JobId=3 TimeLimit=11       # a running -t 10 job
    Access/permission denied for job 3
    $ scontrol update JobId=5 TimeLimit=3:00:00  # pending, above MaxTime 2:00:00
    Access/permission denied for job 5
    $ scontrol update JobId=13 Partition=other   # running
    Job is no longer pending execution for job 13
    $ scontrol update JobId=23 Partition=nosuch
    Invalid partition name specified for job 23
"""

from __future__ import annotations

import re
import warnings

import pytest

from slurmlab import (
    Cluster,
    JobSpec,
    Lab,
    Node,
    Partition,
    Scenario,
    SlurmlabError,
    Workload,
    WorkloadJob,
    simulate,
)
from slurmlab.errors import ScenarioError
from slurmlab.spec.workload import Action

warnings.filterwarnings("ignore", message=".*--wrap.*")


def _two_partitions() -> Cluster:
    """gpu[1-4] in ``long`` (MaxTime 1 day), gpu[3-4] in ``short`` too (MaxTime 1 hour)."""
    nodes = tuple(Node(name=f"gpu{i}", cpus=16, memory_mb=64000, gres="gpu:4") for i in range(1, 5))
    return Cluster(
        name="two",
        nodes=nodes,
        partitions=(
            Partition(name="long", nodes=("gpu1", "gpu2", "gpu3", "gpu4"), default=True,
                      max_time="1-0"),
            Partition(name="short", nodes=("gpu3", "gpu4"), max_time="1:00:00"),
        ),
    )  # fmt: skip


def _multifactor_lab(weights: str, max_time: str) -> Lab:
    """4 nodes of 4 CPUs in one partition, priority/multifactor with ``weights``, computed
    every minute."""
    conf = (
        f"PriorityType=priority/multifactor\n{weights}\nPriorityCalcPeriod=60\n"
        "NodeName=n[1-4] CPUs=4 RealMemory=8000\n"
        f"PartitionName=p Nodes=n[1-4] Default=YES MaxTime={max_time}\n"
    )
    return Lab(Cluster.from_slurm_conf(conf), "easy")


def _starts(lab: Lab) -> dict[str, float]:
    t = lab.sacct()
    return {j: (s - lab.result.origin).total_seconds() for j, s in zip(t.JobID, t.Start)}


def test_fewer_nodes_for_a_pending_job_lets_it_start_now_in_its_place():
    """NumNodes of a pending job: it starts on the nodes free now, ahead of a later job
    (its priority and submit time are kept: no new sbatch)."""
    lab = Lab("tiny", "fifo")
    lab.sbatch("--exclusive -N 3 -t 1:00:00", runtime="1h")
    big = lab.sbatch("--exclusive -N 2 -t 30", runtime="10m")  # waits: one node free
    later = lab.sbatch("--exclusive -N 1 -t 30", runtime="10m")  # behind it (fifo: Priority)
    lab.advance(60)
    before = lab.squeue().set_index("JOBID")
    assert before.loc[str(big), "NODELIST(REASON)"] == "(Resources)"
    lab.update(big, nodes=1)  # (1-2: it takes the one free node)
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(big), "ST"] == "R" and q.loc[str(big), "NODES"] == 1
    assert q.loc[str(later), "NODELIST(REASON)"] == "(Resources)"
    assert q.loc[str(big), "PRIORITY"] == before.loc[str(big), "PRIORITY"]
    row = lab.sacct().set_index("JobID").loc[str(big)]
    assert row.NNodes == 1 and row.Submit == lab.result.origin  # (submitted at 0, kept)
    events = lab.result.events  # (NumNodes=1 sets the minimum: -N 2 is now 1-2)
    assert events[events.event == "update"].detail.tolist() == ["NumNodes=1-2"]
    # the past as it was: squeue at 30 s shows 2 nodes asked for
    past = lab.result.squeue(at=30).set_index("JOBID")
    assert past.loc[str(big), "NODES"] == 2


def test_a_shorter_time_limit_lets_a_pending_job_backfill():
    """EASY's textbook case from the other side: a job too long to fit before the blocked
    wide job's reservation is backfilled once its limit is lowered to fit."""
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 3 -t 1:00:00", runtime="1h")
    lab.sbatch("--exclusive -N 4 -t 1:00:00", runtime="1h")  # reserved at 1h on every node
    long = lab.sbatch("--exclusive -N 1 -t 2:00:00", runtime="20m")
    lab.advance(60)
    assert lab.squeue().set_index("JOBID").loc[str(long), "ST"] == "PD"
    hint = lab.why_pending(long)
    assert "with -t 59:00 (instead of 2:00:00)" in hint
    lab.update(long, time="59:00")
    row = lab.squeue().set_index("JOBID").loc[str(long)]
    assert row.ST == "R" and row.TIME_LIMIT == "59:00"
    lab.run()
    assert lab.sacct().set_index("JobID").loc[str(long)].State == "COMPLETED"


def test_another_partition_for_a_pending_job():
    """Partition of a pending job: it starts in the new one; squeue's past shows the old."""
    lab = Lab(_two_partitions(), "easy")
    lab.sbatch("--exclusive -N 2 -w gpu[1-2] -p long -t 1:00:00", runtime="1h")
    lab.sbatch("--exclusive -N 2 -w gpu[3-4] -p long -t 1:00:00", runtime="1h")
    wait = lab.sbatch("--exclusive -N 1 -p long -t 30", runtime="10m")
    lab.advance(30)
    lab.update(2, time="10")  # (the second job may end earlier: frees gpu[3-4] at 10 min)
    lab.update(wait, partition="short")
    q = lab.squeue().set_index("JOBID")
    assert q.loc[str(wait), "PARTITION"] == "short" and q.loc[str(wait), "ST"] == "PD"
    assert lab.result.squeue(at=10).set_index("JOBID").loc[str(wait), "PARTITION"] == "long"
    lab.run()
    row = lab.sacct().set_index("JobID").loc[str(wait)]
    assert row.Partition == "short" and row.NodeList in ("gpu3", "gpu4")
    assert _starts(lab)[str(wait)] == 600  # when job 2 (limit lowered to 10 min) ended


def test_a_user_raises_a_pending_limit_up_to_maxtime_only():
    """job_mgr.c: a user may raise a pending job's limit while the partition's MaxTime
    allows it; above it, or a running job's, only an operator."""
    lab = Lab(_two_partitions(), "easy")
    lab.sbatch("--exclusive -N 4 -p long -t 30", runtime="30m")
    job = lab.sbatch("--exclusive -N 1 -p short -t 10", runtime="5m")
    lab.update(job, time="1:00:00")  # MaxTime of short: accepted
    assert lab.squeue().set_index("JOBID").loc[str(job), "TIME_LIMIT"] == "1:00:00"
    with pytest.raises(SlurmlabError, match=r"Access/permission denied.*MaxTime, 1:00:00"):
        lab.update(job, time="2:00:00")
    with pytest.raises(SlurmlabError, match=r"JobId=1 TimeLimit=1:00:00: .*Access/permission"):
        lab.update(1, time="1:00:00")  # running, raised
    lab.sim.update(1, time_limit="1:00:00", operator=True)  # an operator may
    assert lab.squeue().set_index("JOBID").loc["1", "TIME_LIMIT"] == "1:00:00"
    # the partition's MaxTime of the new partition when both change (job_mgr.c order)
    lab.update(job, partition="long", time="5:00:00")
    assert lab.squeue().set_index("JOBID").loc[str(job), "PARTITION"] == "long"


def test_lowering_a_running_jobs_limit_ends_it_at_the_new_limit():
    """A running job ends at start + the new limit, TIMEOUT (at once when that has passed);
    its elapsed time and state say so; the node is free then."""
    lab = Lab("tiny", "easy")
    a = lab.sbatch("--exclusive -N 1 -t 2:00:00", runtime="1h")
    b = lab.sbatch("--exclusive -N 1 -t 2:00:00", runtime="1h")
    lab.advance("10m")
    lab.update(a, time="30")  # ahead of its elapsed 10 min: ends at 30 min
    lab.update(b, time="5")  # already past: ends now
    lab.run()
    t = lab.sacct().set_index("JobID")
    assert t.loc[str(a), "State"] == "TIMEOUT" and _starts(lab)[str(a)] == 0
    assert (t.loc[str(a), "End"] - t.loc[str(a), "Start"]).total_seconds() == 1800
    assert t.loc[str(b), "State"] == "TIMEOUT"
    assert (t.loc[str(b), "End"] - t.loc[str(b), "Start"]).total_seconds() == 600
    assert t.loc[str(a), "Timelimit"].total_seconds() == 1800


def test_an_operator_raising_a_running_limit_lets_it_complete():
    lab = Lab("tiny", "easy")
    a = lab.sbatch("--exclusive -N 1 -t 30", runtime="1h")
    lab.advance("10m")
    lab.sim.update(a, time_limit="2:00:00", operator=True)
    lab.run()
    row = lab.sacct().set_index("JobID").loc[str(a)]
    assert row.State == "COMPLETED" and (row.End - row.Start).total_seconds() == 3600


def test_what_scontrol_refuses():
    lab = Lab("tiny", "easy")
    run = lab.sbatch("--exclusive -N 2 -t 30", runtime="10m")
    lab.advance(60)
    lab.update(run, partition="main")  # (the partition it has: accepted, nothing changes)
    with pytest.raises(SlurmlabError, match=r"^scontrol update JobId=1 NumNodes=3: Requested "
                       r"operation not supported on this system for job 1$"):  # fmt: skip
        lab.update(run, nodes=3)
    with pytest.raises(SlurmlabError, match="no longer pending.*slurmlab does not model that"):
        lab.update(run, nodes=1)  # (Slurm shrinks it)
    with pytest.raises(SlurmlabError, match="No changes specified"):
        lab.update(run)
    with pytest.raises(SlurmlabError, match="Invalid job id specified"):
        lab.update(99, time="10")
    with pytest.raises(SlurmlabError, match="^scontrol update JobId=1 TimeLimit=31: Access/"
                       "permission denied for job 1 "):  # fmt: skip
        lab.update(run, time="31")
    lab.run()
    with pytest.raises(SlurmlabError, match="Job has already finished"):
        lab.update(run, time="10")
    wide = lab.sbatch("--exclusive -N 4 -t 30 -H", runtime="10m")
    with pytest.raises(SlurmlabError, match=r"Node count specification invalid for job 2 "
                       r"\(NumNodes=9 is above its maximum, 4: NumNodes=9-9 sets both\)"):  # fmt: skip
        lab.update(wide, nodes=9)
    lab.update(wide, nodes="9-9")  # (the partition has 4: it pends, as a submission of it)
    lab.release(wide)
    assert lab.squeue().set_index("JOBID").loc[str(wide), "NODELIST(REASON)"] == (
        "(PartitionNodeLimit)"
    )
    lab.hold(wide)
    lab.update(wide, nodes="4-4")
    ranged = lab.sbatch("--exclusive -N 1-2 -t 30 -H", runtime="10m")
    with pytest.raises(SlurmlabError, match="Node count specification invalid"):
        lab.update(ranged, nodes=3)
    with pytest.raises(SlurmlabError, match="Invalid partition name specified for job 2 "):
        lab.update(wide, partition="nope")
    with pytest.raises(SlurmlabError, match="Invalid time limit specification for job 2"):
        lab.update(wide, time="-45")  # (its limit is 30 minutes)
    assert lab.squeue().set_index("JOBID").loc[str(wide), "NODES"] == 4  # unchanged
    lab.update(wide, time="+15")  # scontrol's TimeLimit=+15: 45 minutes
    lab.update(wide, time="-5")
    assert lab.squeue().set_index("JOBID").loc[str(wide), "TIME_LIMIT"] == "40:00"


def test_more_nodes_than_tasks_raises_the_task_count():
    """NumNodes=N above the job's maximum (-N 2 is 2-2) is refused; N-N sets both, and the
    task count is raised to the new minimum (job_mgr.c: num_tasks at least min_nodes)."""
    lab = Lab("tiny", "easy")
    job = lab.sbatch("-n 2 -N 2 -t 30 -H", runtime="10m")
    with pytest.raises(SlurmlabError, match="Node count specification invalid"):
        lab.update(job, nodes=4)
    lab.update(job, nodes="4-4")
    assert lab.sim.jobs[job].spec.ntasks == 4
    assert lab.squeue().set_index("JOBID").loc[str(job), "NODES"] == 4
    free = lab.sbatch("-n 8 -t 30 -H", runtime="10m")  # (no -N: no maximum)
    lab.update(free, nodes=2)
    assert lab.squeue().set_index("JOBID").loc[str(free), "NODES"] == 2


def test_multifactor_sets_the_priority_again_at_once():
    """Under priority/multifactor the update sets the job's priority again at once (its job
    size with the new node count: real Slurm 22.05, 262 -> 95 for NumNodes 3 -> 1); under
    priority/basic it keeps its own."""
    lab = _multifactor_lab("PriorityWeightJobSize=1000", "INFINITE")
    lab.sbatch("--exclusive -N 4 -t 30", runtime="30m")
    job = lab.sbatch("--exclusive -N 3 -t 30", runtime="10m")
    lab.advance(10)
    before = lab.squeue().set_index("JOBID").loc[str(job), "PRIORITY"]
    lab.update(job, nodes=1)
    after = lab.squeue().set_index("JOBID").loc[str(job), "PRIORITY"]
    assert after < before
    basic = Lab("tiny", "easy")
    basic.sbatch("--exclusive -N 4 -t 30", runtime="30m")
    job = basic.sbatch("--exclusive -N 3 -t 30", runtime="10m")
    before = basic.squeue().set_index("JOBID").loc[str(job), "PRIORITY"]
    basic.update(job, nodes="1-1")
    assert basic.squeue().set_index("JOBID").loc[str(job), "PRIORITY"] == before


def test_an_array_changes_task_by_task():
    """The running tasks refuse a partition change, the pending ones take it; the refusals
    are reported once the others have changed."""
    lab = Lab(_two_partitions(), "easy")
    lab.sbatch("--exclusive --array=1-6 -N 1 -p long -t 30", runtime="20m")
    lab.advance(60)
    with pytest.raises(SlurmlabError, match=r"\(2 of 6 jobs changed\)"):
        lab.update("1", partition="short")
    rows = lab.squeue().set_index("JOBID")
    assert rows.PARTITION.to_dict() == {
        "1_1": "long", "1_2": "long", "1_3": "long", "1_4": "long", "1_5": "short", "1_6": "short"
    }  # fmt: skip
    assert "1_[5-6]     short" in lab.squeue_text()  # (still one record: not split off)
    lab.update("1", time="20")  # every task, running or pending, may be lowered
    assert set(lab.squeue().TIME_LIMIT) == {"20:00"}


def test_conservative_keeps_an_updated_jobs_precedence():
    """Under conservative a job whose request changed is placed again in its priority
    order among the standing reservations (PendingJob.updated), not after them: with one
    node instead of three it starts on the node free now, which no reservation holds."""
    lab = Lab("tiny", "conservative")
    lab.sbatch("--exclusive -N 3 -t 2:00:00", runtime="2h")
    wide = lab.sbatch("--exclusive -N 3 -t 1:00:00", runtime="1h")  # reserved at 2h
    lab.sbatch("--exclusive -N 4 -t 1:00:00", runtime="1h")  # reserved at 3h
    lab.advance(60)
    assert lab.squeue().set_index("JOBID").loc[str(wide), "ST"] == "PD"
    lab.update(wide, nodes=1)
    assert lab.squeue().set_index("JOBID").loc[str(wide), "ST"] == "R"


HINT = re.compile(
    r"with --nodes=(\d+) \(instead|with -t (\S+) \(instead|partition '(\w+)' has room"
)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_why_pending_suggestions_let_the_job_start_when_they_say(policy):
    """Counterfactual: each change why_pending suggests, made with Lab.update at that
    moment, starts the job now (within a backfill cycle under ``slurm``), earlier than it
    started without the change. The jobs give all three kinds: fewer nodes for the first
    job in line, a shorter limit for later ones under backfill, another partition."""
    nodes = tuple(Node(name=f"gpu{i}", cpus=16, memory_mb=64000, gres="gpu:4") for i in range(1, 5))
    cluster = Cluster(
        name="two",
        nodes=nodes,
        partitions=(
            Partition(name="long", nodes=("gpu1", "gpu2", "gpu3"), default=True, max_time="1-0"),
            Partition(name="short", nodes=("gpu3", "gpu4"), max_time="1:00:00"),
        ),
    )
    jobs = [
        ("-N 2 -p long -t 1:00:00", "50m"), ("-N 1 -p short -t 1:00:00", "40m"),
        ("-N 3 -p long -t 2:00:00", "1h"), ("-N 1 -p long -t 3:00:00", "20m"),
        ("-N 1 -p long -t 50", "10m"),
    ]  # fmt: skip

    def lab_at(t):
        lab = Lab(cluster, policy)
        for args, runtime in jobs:
            lab.sbatch(f"--exclusive {args}", runtime=runtime)
        lab.run(until=t)
        return lab

    done = _starts(lab_at(None))
    kinds = set()
    for t in (60, 2500):
        lab = lab_at(t)
        for jid in lab.squeue().query("ST == 'PD'").JOBID:
            for m in HINT.finditer(lab.why_pending(jid)):
                change = (
                    {"nodes": int(m[1])} if m[1] else {"time": m[2]} if m[2] else
                    {"partition": m[3]}
                )  # fmt: skip
                other = lab_at(t)
                other.update(jid, **change)
                other.run()
                start = _starts(other)[jid]
                slack = 30 if policy == "slurm" else 0  # (bf_interval)
                assert t <= start <= t + slack < done[jid], (jid, change, lab.why_pending(jid))
                kinds |= set(change)
    assert kinds == ({"nodes", "partition"} if policy == "fifo" else {"nodes", "time", "partition"})


def test_a_scenario_updates_jobs_as_an_administrator(tmp_path):
    """``actions: [{action: update, job, nodes/time/partition}]``: an administrator's
    scontrol update (an operator: a running job's limit may be raised); logged as events."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\npolicy: easy\njobs:\n"
        "  - {id: a, submit: 0, runtime: 3600, args: '--exclusive -N 3 -t 1:00:00'}\n"
        "  - {id: b, submit: 0, runtime: 600, args: '--exclusive -N 2 -t 30'}\n"
        "  - {id: c, submit: 0, runtime: 7200, args: '--exclusive -N 1 -t 1:00:00'}\n"
        "actions:\n"
        "  - {at: 60, action: update, job: b, nodes: 1}\n"
        "  - {at: 120, action: update, job: c, time: '3:00:00'}\n"
        "  - {at: 130, action: update, job: a, time: 30}\n"
    )
    result = Scenario.load(path).run()
    t = result.sacct().set_index("JobID")
    assert t.State.to_dict() == {"a": "TIMEOUT", "b": "COMPLETED", "c": "COMPLETED"}
    # c backfilled at 0 on the fourth node; b (one node from 60 s) starts when a, its limit
    # cut to 30 minutes at 130 s, ends
    assert (t.loc["b", "Start"] - result.origin).total_seconds() == 1800
    assert t.loc["c", "Timelimit"].total_seconds() == 3 * 3600
    assert (t.loc["a", "End"] - t.loc["a", "Start"]).total_seconds() == 1800
    events = result.events.query("event == 'update'")
    assert events.detail.tolist() == ["NumNodes=1-2", "TimeLimit=3:00:00", "TimeLimit=30:00"]
    # simulate() takes the same action in Python
    action = Action(60, "update", "2", changes={"nodes": 1})
    assert action.changes == (("nodes", 1),)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{at: 60, action: update, job: b}", "an update needs at least one of nodes, time"),
        ("{at: 60, action: update, job: b, nodes: 0}", "field 'nodes': nodes=0: give a node"),
        ("{at: 60, action: update, job: b, nodes: 3-2}", "field 'nodes': nodes='3-2'"),
        ("{at: 60, action: update, job: b, time: soon}", "field 'time': time='soon'"),
        (
            "{at: 60, action: update, job: b, partition: gpu}",
            "field 'partition': 'gpu' is not a partition of the cluster \\(it has main\\)",
        ),
        ("{at: 60, action: update, job: b, partition: 3}", "field 'partition': partition=3"),
        ("{at: 60, action: cancel, job: b, nodes: 1}", "nodes"),
    ],
)
def test_a_bad_update_action_is_an_error_naming_its_field(tmp_path, entry, message):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n  - {id: b, submit: 0, runtime: 600, args: '-N 2 -t 30'}\n"
        f"actions:\n  - {entry}\n"
    )
    with pytest.raises(ScenarioError, match=message) as err:
        Scenario.load(path)
    assert "actions[0]" in str(err.value)


def test_an_update_action_slurm_refuses_is_a_warning():
    with pytest.warns(UserWarning, match=r"action update 1 at t=60s refused: .*not supported"):
        result = simulate(
            "tiny",
            Workload([WorkloadJob(JobSpec.from_args("-N 1 -t 30"), runtime=600)]),
            actions=[Action(60, "update", "1", changes={"nodes": 2})],
        )
    assert result.events.query("event == 'refused'").detail.tolist() == ["update 1"]
    with pytest.raises(SlurmlabError, match="changes are for update actions only"):
        Action(60, "cancel", "1", changes={"nodes": 1})
    with pytest.raises(SlurmlabError, match="'gpus' is not one of nodes, time, partition"):
        Action(60, "update", "1", changes={"gpus": 1})


def test_reqtres_keeps_the_first_request_but_its_node_count():
    """Real Slurm 22.05 (job 12 of the stop-32 check): ``-N 2 --gres=gpu:2`` updated to
    NumNodes=1 ran on one node with gres/gpu=2 allocated, while sacct's ReqTRES kept
    ``billing=2,cpu=2,gres/gpu=4,mem=2000M,node=1``."""
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 4 -t 10", runtime="5m")
    job = lab.sbatch("-N 2 --gres=gpu:2 -t 10", runtime="5m")
    lab.update(job, nodes="1-1")
    lab.run()
    row = lab.sacct().set_index("JobID").loc[str(job)]
    assert "gres/gpu=4" in row.ReqTRES and "node=1" in row.ReqTRES and "cpu=2" in row.ReqTRES
    assert "gres/gpu=2" in row.AllocTRES and row.NNodes == 1


def test_scenario_update_values_read_as_written(tmp_path):
    """``time: 1:00:00`` unquoted is an hour (YAML alone reads 3600, which -t would take for
    minutes), ``nodes: 3-3`` a range, ``time: +10`` relative."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n  - {id: b, submit: 0, runtime: 60, args: '-N 2 -t 30 -H'}\n"
        "actions:\n  - {at: 1, action: update, job: b, time: 1:00:00, nodes: 3-3}\n"
        "  - {at: 2, action: update, job: b, time: +10}\n"
    )
    scenario = Scenario.load(path)
    assert [a.changes for a in scenario.actions] == [
        (("nodes", "3-3"), ("time", "1:00:00")), (("time", "+10"),)
    ]  # fmt: skip
    lab = scenario.lab()
    lab.advance(5)
    row = lab.squeue().set_index("JOBID").loc["b"]
    assert (row.TIME_LIMIT, row.NODES) == ("1:10:00", 3)


def test_an_update_action_is_checked_when_made():
    for changes, message in (
        ("time", "changes='time': give a mapping"),
        ({"nodes": 0}, "nodes=0: give a node count"),
        ({"time": "soon"}, "time='soon'"),
        ({"partition": 3}, "partition=3: give a partition's name"),
    ):
        with pytest.raises(SlurmlabError, match=message):
            Action(60, "update", "2", changes=changes)


# -- review of stop 32 (findings H1-L9) ----------------------------------------------------


def test_an_operators_limit_is_exempt_from_maxtime():
    """H1: job_mgr.c sets limit_set.time = ADMIN_SET_LIMIT for an operator's update, and
    job_limits_check then gives no PartitionTimeLimit (real Slurm: Reason Priority after
    root raised a pending job above MaxTime). A user's later update takes the exemption
    away again."""
    lab = Lab("tiny", "easy")  # main: MaxTime 1 day
    lab.sbatch("--exclusive -N 4 -t 30", runtime="10m")
    job = lab.sbatch("--exclusive -N 1 -t 30", runtime="1h")
    lab.sim.update(job, time_limit="2-00:00:00", operator=True)
    assert lab.squeue().set_index("JOBID").loc[str(job), "NODELIST(REASON)"] == "(Priority)"
    lab.run()
    assert lab.sacct().set_index("JobID").loc[str(job), "State"] == "COMPLETED"
    other = lab.sbatch("-N 1 -t 30 -H", runtime="1h")
    lab.sim.update(other, time_limit="UNLIMITED", operator=True)
    lab.update(other, time="2-0")  # (a user's lowering: no longer an operator's limit)
    lab.release(other)
    reason = lab.squeue().set_index("JOBID").loc[str(other), "NODELIST(REASON)"]
    assert reason == "(PartitionTimeLimit)"


def test_a_partly_refused_array_update_schedules_what_changed():
    """M1: the pending tasks moved to an idle partition start at once, though the running
    tasks refused the move (one error line for them, as scontrol prints 28_0-3: ...)."""
    nodes = tuple(Node(name=f"n{i}", cpus=16, memory_mb=64000) for i in range(1, 5))
    cluster = Cluster(
        name="ab",
        nodes=nodes,
        partitions=(
            Partition(name="A", nodes=("n1", "n2"), default=True),
            Partition(name="B", nodes=("n3", "n4")),
        ),
    )
    lab = Lab(cluster, "easy")
    lab.sbatch("--exclusive --array=0-3 -N 1 -p A -t 30", runtime="20m")
    with pytest.raises(SlurmlabError) as err:
        lab.update("1", partition="B")
    assert str(err.value) == (
        "scontrol update JobId=1 Partition=B: Job is no longer pending execution for job "
        "1_[0-1] (2 of 4 jobs changed)"
    )
    assert set(lab.squeue().ST) == {"R"}


def test_an_updated_preemptor_gives_up_its_old_victims():
    """M2: moved to another partition, a preempting job preempts there at the next pass
    instead of waiting out its first victim's GraceTime; why_pending names its new victim
    only."""
    from slurmlab import Qos

    conf = (
        "PreemptType=preempt/qos\nPreemptMode=REQUEUE\nNodeName=n[1-4] CPUs=4 RealMemory=8000\n"
        "PartitionName=A Nodes=n[1-2] Default=YES\nPartitionName=B Nodes=n[3-4]\n"
    )
    lab = Lab(
        Cluster.from_slurm_conf(conf),
        "easy",
        qos=(Qos("low", grace_time=300), Qos("high", priority=100, preempt=("low",))),
    )
    lab.sbatch("--exclusive -N 2 -p A -t 2:00:00 -q low", runtime="1h")
    lab.sbatch("--exclusive -N 2 -p B -t 2:00:00 -q low", runtime="1h")
    lab.advance(60)
    high = lab.sbatch("--exclusive -N 2 -p A -t 30 -q high", runtime="10m")
    lab.update(high, partition="B")
    why = lab.why_pending(high)
    assert (
        "It is preempting job 2 (until t=360s, 2026-01-05T00:06:00)" in why and "job 1" not in why
    )
    lab.run()
    assert _starts(lab)[str(high)] == 360


def test_squeue_of_the_past_shows_the_partitions_as_they_were():
    """M3: -p a,b jobs: the list before an update to one partition, and the reverse."""
    lab = Lab(_two_partitions(), "easy")
    lab.sbatch("--exclusive -N 4 -t 30", runtime="30m")
    a = lab.sbatch("--exclusive -N 1 -p long,short -t 30", runtime="10m")
    b = lab.sbatch("--exclusive -N 1 -p long -t 30", runtime="10m")
    lab.advance(60)
    lab.update(a, partition="short")
    lab.update(b, partition="long,short")
    then = lab.result.squeue(at=30).set_index("JOBID").PARTITION
    now = lab.squeue().set_index("JOBID").PARTITION
    assert (then[str(a)], then[str(b)]) == ("long,short", "long")
    assert (now[str(a)], now[str(b)]) == ("short", "long,short")


def test_a_running_limit_lowered_into_the_past_keeps_its_overtimelimit():
    """L1: slurmctld sets the end to now when the new one has passed, and kills the job
    OverTimeLimit after it (OverTimeLimit=5: at 15 minutes, lowered at 10)."""
    conf = "OverTimeLimit=5\nNodeName=n[1-4] CPUs=4 RealMemory=8000\nPartitionName=p Nodes=n[1-4] Default=YES\n"
    lab = Lab(Cluster.from_slurm_conf(conf), "easy")
    a = lab.sbatch("-N 1 -t 1:00:00", runtime="1h")
    lab.advance("10m")
    lab.update(a, time="1")
    lab.run()
    row = lab.sacct().set_index("JobID").loc[str(a)]
    assert row.State == "TIMEOUT" and (row.End - row.Start).total_seconds() == 900


def test_a_count_from_a_table_and_a_requeued_runs_own_limit():
    """L2: NumNodes as numpy's integer (taken from squeue()); L4: sacct -D shows an earlier
    run with the limit it ran with (the update came after its requeue)."""
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 4 -t 30", runtime="20m")
    b = lab.sbatch("-N 3 -t 30", runtime="20m")
    lab.update(b, nodes=lab.squeue().set_index("JOBID").loc[str(b), "NODES"] - 1)
    assert lab.squeue().set_index("JOBID").loc[str(b), "NODES"] == 2
    lab = Lab("tiny", "easy")
    j = lab.sbatch("--exclusive -N 2 -t 30", runtime="20m")
    lab.advance(60)
    lab.requeue(j)
    lab.update(j, time="25")
    lab.run()
    limits = lab.sacct(duplicates=True).Timelimit.dt.total_seconds().tolist()
    assert limits == [1800, 1500]


def test_a_refused_update_sets_a_multifactor_priority_again():
    """L3: job_mgr.c update_job sets the priority of a job that is not held again after any
    update, refused or not (its age factor moves on)."""
    lab = _multifactor_lab("PriorityWeightAge=1000\nPriorityMaxAge=1:00:00", "1:00:00")
    lab.sbatch("--exclusive -N 4 -t 1:00:00", runtime="1h")
    job = lab.sbatch("--exclusive -N 1 -t 30", runtime="10m")
    lab.advance(1799)  # (a calculation at 1740 s: the next at 1800 s)
    before = lab.sim.jobs[job].priority
    with pytest.raises(SlurmlabError, match="Access/permission denied"):
        lab.update(job, time="2:00:00")
    assert lab.sim.jobs[job].priority > before


def test_the_same_partition_list_of_a_running_job_is_no_change():
    """L5: job_mgr.c compares Partition= with the job's list (-p short,long)."""
    lab = Lab(_two_partitions(), "easy")
    job = lab.sbatch("--exclusive -N 1 -p short,long -t 30", runtime="10m")
    lab.update(job, partition="short,long")
    with pytest.raises(SlurmlabError, match="no longer pending"):
        lab.update(job, partition="short")


def test_a_signal_already_past_leaves_time_to_write_the_checkpoint():
    """L9: the limit lowered past the --signal moment: the signal comes now, and the job
    writes its last checkpoint (60 s) and requeues, when that ends within its limit."""
    lab = Lab("tiny", "easy")
    job = lab.sbatch(
        "-N 1 -t 2:00:00 --signal=B:USR1@300",
        runtime="3h",
        checkpoint={"interval": "1h", "write_cost": 60, "on_signal": True},
    )
    lab.advance("10m")
    lab.update(job, time="12")
    lab.advance("2m")
    runs = lab.sacct(duplicates=True)
    first = runs.iloc[0]
    assert first.State == "REQUEUED" and (first.End - first.Start).total_seconds() == 660


def test_why_pending_gives_the_commands_of_its_suggestions():
    """L8: each suggestion with its scontrol update and Lab call; the Fix of a partition or
    QOS limit too."""
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 3 -t 30", runtime="20m")
    lab.sbatch("--exclusive -N 4 -t 30", runtime="20m")
    job = lab.sbatch("--exclusive -N 1 -t 2:00:00")
    assert lab.why_pending(job).endswith(
        "Make one with scontrol update, which keeps its place in the queue (a new sbatch "
        "would queue behind the jobs submitted since): scontrol update JobId=3 "
        'TimeLimit=30:00, in a Lab lab.update(3, time="30:00").'
    )
    long = lab.sbatch("-N 1 -t 3-0")
    assert lab.why_pending(long).endswith(
        "Fix: ask for at most -t 1-00:00:00 (scontrol update JobId=4 TimeLimit=1-00:00:00, "
        'in a Lab lab.update(4, time="1-00:00:00")).'
    )


def test_a_request_past_what_a_job_may_hold_is_one_refusal_per_array():
    """A value the request cannot hold is refused for each task, as one line, and the other
    tasks are left as they were (not an error that stops the update half-way)."""
    lab = Lab("tiny")
    lab.sbatch("--array=0-3 -N 1 -t 30 -H")
    with pytest.raises(SlurmlabError, match=r"for job 1_\[0-3\] .*\(0 of 4 jobs changed\)$"):
        lab.update("1", nodes=f"{10**12}-{10**12}")
    with pytest.raises(SlurmlabError, match=r"^scontrol update JobId=1_2 TimeLimit=99999-0: "
                       r"Invalid time limit specification for job 1_2 \("):  # fmt: skip
        lab.update("1_2", time="99999-0")
