"""A researcher's own policy object (QA stop 29, findings F1-F11): the protocol's defaults,
a re-iterable queue, read-only arrays, and a PolicyError for every decision the engine
cannot apply, raised before anything is applied."""

import dataclasses
import math
import re
import textwrap

import numpy as np
import pytest

import slurmlab
import slurmlab.errors
import slurmlab.policies
from slurmlab import JobSpec, NodeFailure, Workload, WorkloadJob
from slurmlab.policies import (
    Conservative,
    Decision,
    Easy,
    Fifo,
    PendingJob,
    PendingQueue,
    PolicyError,
    Profile,
    Request,
    SlurmBackfill,
    Start,
    availability,
    base,
    choose_nodes,
)


def W(*jobs) -> Workload:
    """A workload from (sbatch arguments, submit s, run time s)."""
    return Workload(
        [WorkloadJob(JobSpec.from_args(a.split()), submit=s, runtime=r) for a, s, r in jobs]
    )


def greedy(view, *, up: bool = True) -> list[Start]:
    """First fit in queue order (a correct policy's starts; ``up=False``: forgets view.up)."""
    free, starts = view.free.copy(), []
    for job in view.queue:
        mask = job.mask & view.up if up else job.mask
        nodes = choose_nodes(free, view.capacity, job.request, mask)
        if nodes is not None:
            free[list(nodes)] -= job.usage(nodes, view.capacity)
            starts.append(Start(job.id, nodes))
    return starts


class Mistake:
    """A policy that returns what ``fn(view)`` gives (only schedule: the protocol's minimum)."""

    name = "mistake"

    def __init__(self, fn):
        self.fn = fn

    def schedule(self, view):
        return self.fn(view)


def refused(fn, workload, cluster="tiny", **kw) -> str:
    """The PolicyError message a run of ``Mistake(fn)`` ends with."""
    with pytest.raises(PolicyError) as info:
        slurmlab.simulate(cluster, workload, policy=Mistake(fn), progress=False, **kw)
    return str(info.value)


ONE = W(("-N 1 -c 1 -t 60", 0, 600))
TWO_SMALL = W(("-N 1 -c 1 -t 60", 0, 600), ("-N 1 -c 1 -t 60", 0, 600))
TWO_BIG = W(("-N 4 -c 16 -t 60", 0, 600), ("-N 4 -c 16 -t 60", 0, 600))
AT_0 = "policy 'mistake', schedule() at t=0 s: "


# -- F1: only schedule(view) is required -----------------------------------------------------
def test_the_protocol_example_runs_as_written():
    """base.py's example policy (shortest time limit first, no backfill) runs exactly as
    written in the module docstring and prints what its comment says."""
    doc = base.__doc__
    block = re.search(r"runs it as written\)::\n\n(.*?)\n\n(?=\S)", doc, re.S).group(1)
    code = textwrap.dedent(block)
    assert code.splitlines()[-1] == (
        'print(result.policy, result.metrics["started"])  # shortestfirst 60'
    )
    printed = []
    namespace = {"print": lambda *a: printed.append(" ".join(map(str, a)))}
    exec(compile(code, "slurmlab.policies.base example", "exec"), namespace)
    assert printed == ["shortestfirst 60"]
    result = namespace["result"]
    assert result.metrics["states"] == {"COMPLETED": 60}
    # no backfill: jobs start in time-limit order, the first that does not fit blocks
    assert set(result.jobs["StartedBy"]) == {"main"}


def test_a_policy_with_only_schedule_runs_and_is_named_after_its_class():
    """No name, interval or backfill: the run works, labelled with the class name lower-cased,
    and schedule runs at each pass only (no timer)."""
    calls = []

    class Mine:
        def schedule(self, view):
            calls.append(view.now)
            return Decision(starts=greedy(view))

    result = slurmlab.simulate("tiny", TWO_SMALL, policy=Mine(), progress=False)
    assert result.policy == "mine"
    assert result.metrics["states"] == {"COMPLETED": 2}
    assert calls == [0.0]


def test_an_interval_without_backfill_calls_schedule_at_each_cycle():
    """interval=300 and no backfill method: each timer cycle calls schedule."""

    class Periodic:
        interval = 300

        def __init__(self):
            self.calls = []

        def schedule(self, view):
            self.calls.append(view.now)
            return Decision()

    policy = Periodic()
    result = slurmlab.simulate("tiny", W(("-N 1 -c 1 -t 60", 10, 600)), policy=policy)
    assert policy.calls == [10.0, 300.0]  # the submission's pass, then the 300 s cycle
    assert result.metrics["states"] == {"PENDING": 1}


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        (
            {"interval": "5m"},
            "simulate(policy=Bad(...)): interval='5m' must be None (no timer cycles) or the "
            "seconds between the cycles that call its backfill(view), a number > 0",
        ),
        (
            {"interval": 0},
            "simulate(policy=Bad(...)): interval=0 must be None (no timer cycles) or the "
            "seconds between the cycles that call its backfill(view), a number > 0",
        ),
        (
            {"backfill": 5},
            "simulate(policy=Bad(...)): its backfill is 5, not a method; define "
            "backfill(view) returning a Decision, or leave it out (timer cycles then call "
            "schedule)",
        ),
        (
            {"name": 7},
            "simulate(policy=Bad(...)): the policy's name is 7; give a string (or none: the "
            "class name lower-cased labels the runs)",
        ),
    ],
)
def test_optional_attributes_are_checked_up_front(attributes, message):
    """A present interval, backfill or name of the wrong kind is refused before the run."""
    bad = type("Bad", (), {"schedule": lambda self, view: Decision(), **attributes})
    with pytest.raises(slurmlab.SlurmlabError) as info:
        slurmlab.simulate("tiny", ONE, policy=bad())
    assert str(info.value) == message


# -- F2: view.queue may be read twice ----------------------------------------------------------
def test_reading_the_queue_twice_sees_every_job_both_times():
    """A stats pass over view.queue, then the scheduling pass: every job still starts; len()
    and [0] work."""
    seen = []

    def two_passes(view):
        biggest = max((int(j.demand[2]) * j.count for j in view.queue), default=0)
        seen.append((biggest, len(view.queue), view.queue[0].id))
        return Decision(starts=greedy(view))

    workload = W(("-N 1 -c 1 -t 60", 0, 600), ("-N 2 --gres=gpu:2 -t 60", 0, 600))
    result = slurmlab.simulate("tiny", workload, policy=Mistake(two_passes), progress=False)
    assert seen == [(4, 2, 1)]
    assert result.metrics["states"] == {"COMPLETED": 2}


def test_the_queue_is_made_as_it_is_read_and_replayed():
    """PendingQueue reads its source only as far as asked, and replays what it read."""
    made = []

    def source():
        for i in range(5):
            made.append(i)
            yield i

    queue = PendingQueue(source())
    assert made == []
    assert next(iter(queue)) == 0 and made == [0]
    assert bool(queue) is True and made == [0]
    assert list(queue) == [0, 1, 2, 3, 4] and made == [0, 1, 2, 3, 4]
    assert list(queue) == [0, 1, 2, 3, 4] and made == [0, 1, 2, 3, 4]  # replayed, not remade
    assert len(queue) == 5 and queue[-1] == 4
    assert bool(PendingQueue(iter(()))) is False


# -- F3: mask does not include up; starting on a down node is refused --------------------------
def test_mask_docstring_says_it_leaves_out_up():
    """PendingJob's docstring says mask is not about up nodes (the built-ins AND view.up)."""
    assert "*not* whether\n    they are up: start it on ``mask & view.up``" in PendingJob.__doc__


def test_a_start_on_a_down_node_is_refused():
    """node1 fails at t=5; a policy that forgets view.up and starts job 2 there at t=10 is
    refused (before: job 2 ran and COMPLETED on the DOWN node)."""
    workload = W(*[("-N 1 -c 16 -t 60", 10 * i, 600) for i in range(5)])
    message = refused(
        lambda view: Decision(starts=greedy(view, up=False)),
        workload,
        failures=[NodeFailure("node1", at=5, down_for="2h")],
    )
    assert message == (
        "policy 'mistake', schedule() at t=10 s: Start(job=2, nodes=(0,)) (starts[0]): node "
        "node1 is not up (down, drained or not in service: view.up is False there); choose "
        "among job.mask & view.up"
    )


# -- F4: wrong node sets ------------------------------------------------------------------------
COUNT = "give {n} distinct nodes, as choose_nodes does for job.request"
RANGE = "the cluster has 4 nodes, indices 0 to 3 (view.node_names[i] names node i)"
TUPLE = "(ints, as choose_nodes returns), not {v}; e.g. tuple(int(i) for i in nodes)"


@pytest.mark.parametrize(
    ("args", "nodes", "message"),
    [
        (
            "-N 4 --gres=gpu:2 -t 60", (0,),
            "Start(job=1, nodes=(0,)) (starts[0]): job 1 asks for 4 node(s) (-N 4), got 1; "
            + COUNT.format(n=4),
        ),
        (
            "-N 1 -c 1 -t 60", (0, 1, 2),
            "Start(job=1, nodes=(0, 1, 2)) (starts[0]): job 1 asks for 1 node(s) (-N 1), got "
            "3; " + COUNT.format(n=1),
        ),
        (
            "-N 2 -c 1 -t 60", (0, 0),
            "Start(job=1, nodes=(0, 0)) (starts[0]): node node1 (0) is given twice; give "
            "distinct nodes",
        ),
        (
            "-N 1 -c 1 -t 60", (),
            "Start(job=1, nodes=()) (starts[0]): job 1 asks for 1 node(s) (-N 1), got 0; "
            + COUNT.format(n=1),
        ),
        (
            "-N 1 -c 1 -t 60", (-1,),
            "Start(job=1, nodes=(-1,)) (starts[0]): node index -1 is out of range: " + RANGE,
        ),
        (
            "-N 1 -c 1 -t 60", (7,),
            "Start(job=1, nodes=(7,)) (starts[0]): node index 7 is out of range: " + RANGE,
        ),
        (
            "-N 1 -c 1 -t 60", ("node1",),
            "Start(job=1, nodes=('node1',)) (starts[0]): nodes must be a tuple of node "
            "indices " + TUPLE.format(v="('node1',)"),
        ),
        (
            "-N 1 -c 1 -t 60", [0],
            "Start(job=1, nodes=[0]) (starts[0]): nodes must be a tuple of node indices "
            + TUPLE.format(v="[0]"),
        ),
    ],
)  # fmt: skip
def test_a_wrong_node_set_is_refused(args, nodes, message):
    """Each Start must give the job's node count of distinct, valid node indices, as a tuple."""
    got = refused(
        lambda view: Decision(starts=[Start(j.id, nodes) for j in view.queue]),
        W((args, 0, 600)),
    )
    assert got == AT_0 + message


def test_a_node_outside_the_jobs_partition_is_refused():
    """ai: a debug job (Nodes=gpu[001-002]) started on gpu006 (index 13: cpu[01-08] come
    first in the node table, by name)."""
    got = refused(
        lambda view: Decision(starts=[Start(j.id, (13,)) for j in view.queue]),
        W(("-p debug -N 1 --gres=gpu:1 -t 30", 0, 600)),
        cluster="ai",
    )
    assert got == AT_0 + (
        "Start(job=1, nodes=(13,)) (starts[0]): job 1 may not use node gpu006 (partition "
        "debug, its features and GPU type: PendingJob.mask); choose among job.mask & view.up"
    )


# -- F5: oversubscription, named, and nothing applied -------------------------------------------
EARLIER = (
    "; choose nodes in a copy of view.free less the decision's earlier starts (choose_nodes does)"
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "-N 1 --gres=gpu:2 -c 2 -t 60",
            "node node1 has 0 GPUs free after starts[0] of this decision, job 2 needs 2 GPUs "
            "there" + EARLIER,
        ),
        (
            "-N 1 -c 12 -t 60",
            "node node1 has 4 CPUs free after starts[0] of this decision, job 2 needs 12 CPUs "
            "there" + EARLIER,
        ),
    ],
)
def test_two_starts_that_overfill_a_node_are_refused(args, message):
    """Two jobs on node 0 that do not fit together: the node, the resource and the amounts."""
    got = refused(
        lambda view: Decision(starts=[Start(j.id, (0,)) for j in view.queue]),
        W((args, 0, 600), (args, 0, 600)),
    )
    assert got == AT_0 + "Start(job=2, nodes=(0,)) (starts[1]): " + message


def test_an_exclusive_job_needs_an_idle_node():
    """--exclusive takes whole nodes, as the engine charges it: node1 has job 1 on it."""
    got = refused(
        lambda view: Decision(starts=[Start(j.id, (0,)) for j in view.queue]),
        W(("-N 1 -c 1 -t 60", 0, 600), ("-N 1 --exclusive -t 60", 0, 600)),
    )
    assert got == AT_0 + (
        "Start(job=2, nodes=(0,)) (starts[1]): job 2 asks for whole nodes (--exclusive) but "
        "node node1 is not idle (15 CPUs/62000 MB/2 GPUs free of 16 CPUs/64000 MB/2 GPUs after "
        "starts[0] of this decision)"
    )


def test_a_refused_decision_leaves_a_lab_as_it_was():
    """In a Lab, the policy puts a second 12-CPU job on node1: PolicyError, node1's free CPUs
    stay 4, job 2 stays queued; once the policy is fixed the Lab asks it again and job 2
    runs, and every CPU is free at the end (before: 12 CPUs leaked, job 2 PENDING for ever)."""

    class Node0:
        on = True

        def schedule(self, view):
            if self.on:
                return Decision(starts=[Start(j.id, (0,)) for j in view.queue])
            return Decision(starts=greedy(view))

    policy = Node0()
    lab = slurmlab.Lab("tiny", policy=policy)
    lab.sbatch("-N 1 -c 12 -t 60", runtime=600)
    with pytest.raises(PolicyError) as info:
        lab.sbatch("-N 1 -c 12 -t 60", runtime=600)
    assert str(info.value) == (
        "policy 'node0', schedule() at t=0 s: Start(job=2, nodes=(0,)) (starts[0]): node node1 "
        "has 4 CPUs free, job 2 needs 12 CPUs there" + EARLIER
    )
    assert lab.sim.free[0].tolist() == [4, 40000, 2]
    assert lab.sim.jobs[2].state == "PENDING"
    assert [jid for _key, jid in lab.sim.queue] == [2]
    policy.on = False
    lab.advance("30m")
    table = lab.result.jobs.set_index("JobID")
    assert table["State"].tolist() == ["COMPLETED", "COMPLETED"]
    assert table["NodeList"].tolist() == ["node1", "node2"]
    assert lab.sim.free.tolist() == lab.sim.capacity.tolist()


def test_a_refused_backfill_cycle_leaves_the_timer_running():
    """A periodic policy whose backfill returns None once: PolicyError at the 60 s cycle;
    fixed, the next cycle (120 s) starts the job."""

    class Periodic:
        interval = 60
        broken = True

        def schedule(self, view):
            return Decision()

        def backfill(self, view):
            return None if self.broken else Decision(starts=greedy(view))

    policy = Periodic()
    lab = slurmlab.Lab("tiny", policy=policy)
    lab.sbatch("-N 1 -c 1 -t 60", runtime=600)
    with pytest.raises(PolicyError) as info:
        lab.advance("90s")
    assert str(info.value) == (
        "policy 'periodic', backfill() at t=60 s: returned None: backfill() must return a "
        "slurmlab.policies.Decision; return Decision() to start nothing"
    )
    policy.broken = False
    lab.advance("5m")
    assert lab.sim.jobs[1].state == "RUNNING" and lab.sim.jobs[1].start == 120.0


# -- F6: the view's arrays are read-only --------------------------------------------------------
@pytest.mark.parametrize(
    "write",
    [
        lambda view: view.free.__setitem__((0, 0), 0),
        lambda view: view.capacity.__setitem__((slice(None), 2), 0),
        lambda view: view.up.__setitem__(0, False),
    ],
    ids=["free", "capacity", "up"],
)
def test_writing_into_the_views_arrays_fails_at_the_policys_line(write):
    """free, capacity and up are read-only views: numpy's own error, at the policy's line."""
    with pytest.raises(ValueError) as info:
        slurmlab.simulate("tiny", ONE, policy=Mistake(write), progress=False)
    assert str(info.value) == "assignment destination is read-only"
    assert info.value.__notes__ == ["in policy 'mistake', schedule() at t=0 s"]
    assert info.traceback[-1].name == "<lambda>"  # (the policy's own line)


def test_the_read_only_arrays_are_views_of_the_engines():
    """No copies: the view's arrays follow the engine's (a start shows in view.free)."""
    views = []

    def keep(view):
        views.append(view)
        return Decision(starts=greedy(view))

    result = slurmlab.simulate("tiny", TWO_SMALL, policy=Mistake(keep), progress=False)
    view, sim = views[0], result.sim
    assert view.free.base is sim.free and view.capacity.base is sim.capacity
    assert view.up.base is sim.up
    assert not (view.free.flags.writeable or view.capacity.flags.writeable)


# -- F7: continued passes only for the exact built-in classes ------------------------------------
def test_a_subclass_gets_the_whole_queue_at_every_pass():
    """A subclass of Easy that sorts the queue (shortest first) never gets view.resume, and
    its results equal the same subclass that drops its resume itself (before: 95 against 2
    backfilled jobs on tiny)."""
    looked = []

    class EasySJF(Easy):
        def schedule(self, view):
            looked.append((view.resume, view.start))
            ordered = sorted(view.queue, key=lambda j: (j.limit, j.id))
            return Easy.schedule(self, dataclasses.replace(view, queue=ordered))

    class EasySJFNoResume(EasySJF):
        def schedule(self, view):
            d = EasySJF.schedule(self, view)
            d.resume = None
            return d

    workload = slurmlab.ai_workload(200, "tiny", seed=1)
    a = slurmlab.simulate("tiny", workload, policy=EasySJF(), progress=False)
    assert set(looked) == {(None, 0)}
    b = slurmlab.simulate("tiny", workload, policy=EasySJFNoResume(), progress=False)
    assert a.jobs.equals(b.jobs)


SLURM = dict(
    bf_interval=30, bf_resolution=60, bf_window=1440, bf_max_job_test=500,
    default_queue_depth=100, sched_interval=60,
)  # fmt: skip


@pytest.mark.parametrize(
    ("cls", "name", "params"),
    [(Fifo, "fifo", {}), (Easy, "easy", {}), (Conservative, "conservative", {}),
     (SlurmBackfill, "slurm", SLURM)],
)  # fmt: skip
def test_a_plain_subclass_of_a_built_in_runs_checked_and_alike(cls, name, params):
    """A subclass is checked at every decision and never continues passes; a subclass that
    changes nothing decides what the built-in does (so the checks refuse none of the
    built-ins' decisions, reasons and plans)."""
    workload = slurmlab.ai_workload(300, "ai", seed=1)
    sub = type("Sub" + cls.__name__, (cls,), {})
    built_in = slurmlab.simulate("ai", workload, policy=name, progress=False, **params)
    checked = slurmlab.simulate("ai", workload, policy=sub(**params), progress=False)
    assert checked.jobs.equals(built_in.jobs)


# -- F8: Profile.earliest's interval index -------------------------------------------------------
def test_earliest_at_now_in_interval_1_is_not_room_now():
    """A running job past its limit is released in interval 1, which begins at now: earliest
    gives (1, now, nodes); the docstring says to start now only at index 0."""
    full = np.array([[16, 1000, 0]] * 2)
    prof = Profile(120.0, np.zeros((2, 3)), full, [(60.0, (0, 1), full)])
    one = Request(np.array([1, 10, 0]))
    assert prof.earliest(one, np.array([True, True]), 60.0) == (1, 120.0, (0,))
    assert "Start the job *now* only when the index is 0" in Profile.earliest.__doc__


def test_starting_on_earliest_without_the_index_test_is_refused():
    """A planner that starts a job whenever earliest's time is now, on a trace run past its
    limit (enforce_time_limit=False), gets the node and resource named."""

    class Naive:
        def schedule(self, view):
            d, prof = Decision(), availability(view)
            for job in view.queue:
                found = prof.earliest(job.request, job.mask & view.up, job.limit)
                if found is None:
                    continue
                i, t, nodes = found
                prof.reserve(nodes, job.usage(nodes, view.capacity), t, t + job.limit, at=i)
                if t <= view.now:  # (i == 0 forgotten)
                    d.starts.append(Start(job.id, nodes))
            return d

    workload = W(("-N 4 --exclusive -t 1", 0, 600), ("-N 1 -c 1 -t 60", 120, 60))
    with pytest.raises(PolicyError) as info:
        slurmlab.simulate(
            "tiny", workload, policy=Naive(), progress=False, enforce_time_limit=False
        )
    assert str(info.value) == (
        "policy 'naive', schedule() at t=120 s: Start(job=2, nodes=(0,)) (starts[0]): node "
        "node1 has 0 CPUs free, job 2 needs 1 CPU there" + EARLIER
    )


# -- F9: bookkeeping mistakes -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fn", "workload", "message"),
    [
        (
            lambda view: None, ONE,
            AT_0 + "returned None: schedule() must return a slurmlab.policies.Decision; "
            "return Decision() to start nothing",
        ),
        (
            lambda view: greedy(view), ONE,
            AT_0 + "returned a list: schedule() must return a slurmlab.policies.Decision (its "
            "starts go in Decision(starts=[Start(job_id, nodes), ...])); return Decision() to "
            "start nothing",
        ),
        (
            lambda view: Decision(starts=[(s.job, s.nodes) for s in greedy(view)]), ONE,
            AT_0 + "Decision.starts[0] is (1, (0,)), not a Start: give Start(job_id, nodes)",
        ),
        (
            lambda view: Decision(starts=greedy(view) + greedy(view)[:1]), TWO_SMALL,
            AT_0 + "Start(job=1, nodes=(0,)) (starts[2]): job 1 is started twice (also by "
            "starts[0]); start each job once",
        ),
        (
            lambda view: Decision(starts=[Start(999, (0,))]), ONE,
            AT_0 + "Start(job=999, nodes=(0,)) (starts[0]): no job has id 999; name jobs of "
            "view.queue",
        ),
        (
            lambda view: Decision(starts=[Start("1", (0,))]), ONE,
            AT_0 + "Start(job='1', nodes=(0,)) (starts[0]): no job has id '1' (ids are ints: "
            "PendingJob.id); name jobs of view.queue",
        ),
        (
            lambda view: Decision(starts=greedy(view), reasons={12345: "Priority"}), ONE,
            AT_0 + "Decision.reasons[12345]: no job has id 12345; name jobs of view.queue",
        ),
        (
            lambda view: Decision(starts=greedy(view), planned={777: 100.0}), ONE,
            AT_0 + "Decision.planned[777] = 100.0: no job has id 777; name jobs of view.queue",
        ),
        (
            lambda view: Decision(starts=greedy(view) + [Start(1, (3,))] * (view.now >= 100)),
            W(("-N 1 -c 1 -t 60", 0, 600), ("-N 1 -c 1 -t 60", 100, 600)),
            "policy 'mistake', schedule() at t=100 s: Start(job=1, nodes=(3,)) (starts[1]): "
            "job 1 is RUNNING since t=0 s; name only jobs of view.queue",
        ),
        (
            lambda view: Decision(starts=greedy(view) + [Start(1, (3,))] * (view.now >= 1000)),
            W(("-N 1 -c 1 -t 60", 0, 600), ("-N 1 -c 1 -t 60", 1000, 600)),
            "policy 'mistake', schedule() at t=1000 s: Start(job=1, nodes=(3,)) (starts[1]): "
            "job 1 is COMPLETED; name only jobs of view.queue",
        ),
        (
            lambda view: Decision(starts=[Start(s.job, s.nodes, "bf") for s in greedy(view)]),
            ONE,
            AT_0 + "Start(job=1, nodes=(0,)) (starts[0]): by='bf' must be 'main' (in priority "
            "order) or 'backfill' (ahead of a job that waits)",
        ),
    ],
)  # fmt: skip
def test_a_bookkeeping_mistake_is_named(fn, workload, message):
    """What the policy returned, the policy, the time, the job and the fix."""
    assert refused(fn, workload) == message


def test_a_job_pending_outside_the_pass_queue_may_not_start():
    """A held job (sbatch -H) is pending but not in view.queue: starting it is refused."""
    workload = W(("-N 1 -c 1 -t 60", 0, 600), ("-H -N 1 -c 1 -t 60", 0, 600))
    got = refused(lambda view: Decision(starts=[Start(2, (1,))]), workload)
    assert got == AT_0 + (
        "Start(job=2, nodes=(1,)) (starts[0]): job 2 is pending (JobHeldUser) but not in "
        "this pass's queue; name only jobs of view.queue"
    )


def test_a_policy_that_raises_raises_its_own_error_with_a_note():
    """The policy's own exception goes through (its frame is the user's), with a note that
    names the policy and the pass's time."""
    with pytest.raises(ZeroDivisionError) as info:
        slurmlab.simulate("tiny", ONE, policy=Mistake(lambda view: 1 / 0), progress=False)
    assert info.value.__notes__ == ["in policy 'mistake', schedule() at t=0 s"]


# -- F10: pending reasons ----------------------------------------------------------------------
REASONS = (
    " use 'Resources' (next in line but it does not fit), 'Priority' (jobs ahead of it wait) or "
    "another of squeue's reasons"
)


@pytest.mark.parametrize(
    ("reason", "hint"),
    [("Resource", " did you mean 'Resources'?"), ("WaitingForGPUs", "")],
)
def test_a_reason_slurm_does_not_have_is_refused(reason, hint):
    """A typo gets a did-you-mean; an invented reason the list of Slurm's."""
    got = refused(
        lambda view: Decision(
            starts=greedy(view), reasons={j.id: reason for j in view.queue if j.id != 1}
        ),
        TWO_BIG,
    )
    assert got == AT_0 + (
        f"Decision.reasons[2] = {reason!r} is not a pending reason of Slurm's;{hint}" + REASONS
    )


def test_rest_is_a_reason_too():
    """Decision.rest, the reason of the jobs a pass leaves out, is checked alike."""
    got = refused(lambda view: Decision(rest="Waiting"), ONE)
    assert got == AT_0 + "Decision.rest = 'Waiting' is not a pending reason of Slurm's;" + REASONS


# -- F11: planned starts ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (
            lambda view, job: view.now - 3600,
            "Decision.planned[2] = -3600: job 2's planned start is before now (t=0 s); plan it "
            "at now or later (Profile.earliest gives such times)",
        ),
        (
            lambda view, job: math.nan,
            "Decision.planned[2] = nan: a planned start is a time in seconds (float), not nan",
        ),
    ],
)
def test_a_planned_start_in_the_past_or_nan_is_refused(plan, message):
    """planned[job] is a time from now on."""
    got = refused(
        lambda view: Decision(
            starts=greedy(view), planned={j.id: plan(view, j) for j in view.queue if j.id != 1}
        ),
        TWO_BIG,
    )
    assert got == AT_0 + message


def test_a_job_started_and_planned_in_one_decision_is_refused():
    """A plan is for a job that waits."""
    got = refused(
        lambda view: Decision(starts=greedy(view), planned={s.job: 10.0 for s in greedy(view)}),
        TWO_BIG,
    )
    assert got == AT_0 + (
        "Decision.planned[1] = 10.0: job 1 starts in this decision (starts[0]); a planned "
        "start is for a job that waits"
    )


@pytest.mark.parametrize(("complete", "plans"), [(False, [(10.0, 610.0)]), (True, [(10.0, 610.0), (20.0, None)])])  # fmt: skip
def test_complete_drops_the_plans_a_decision_leaves_out(complete, plans):
    """Decision.complete (documented in base.py): a plan returned once and then left out
    stands without it, and is dropped with it."""

    class PlanOnce:
        done = False

        def schedule(self, view):
            d = Decision(complete=complete)
            free = view.free.copy()
            for job in view.queue:
                nodes = choose_nodes(free, view.capacity, job.request, job.mask & view.up)
                if nodes is None:
                    d.reasons[job.id] = "Resources"
                    if not self.done:
                        d.planned[job.id] = view.now + 600
                        d.planned_nodes[job.id] = (0, 1, 2, 3)
                        self.done = True
                    continue
                free[list(nodes)] -= job.usage(nodes, view.capacity)
                d.starts.append(Start(job.id, nodes))
            return d

    workload = W(
        ("-N 4 -c 16 -t 60", 0, 3600), ("-N 4 -c 16 -t 60", 10, 600), ("-N 4 -c 16 -t 60", 20, 600)
    )
    result = slurmlab.simulate("tiny", workload, policy=PlanOnce(), progress=False)
    assert result.sim.jobs[2].plans == plans
    assert "``complete=True``" in Decision.__doc__


# -- the error's place in the API ----------------------------------------------------------------
def test_policy_error_is_a_slurmlab_error_exported_with_the_protocol():
    """PolicyError is a SlurmlabError (shown as a message by %load_ext slurmlab), in
    slurmlab.errors and slurmlab.policies."""
    assert issubclass(PolicyError, slurmlab.SlurmlabError)
    assert "PolicyError" in slurmlab.errors.__all__
    assert "PolicyError" in slurmlab.policies.__all__
    assert slurmlab.policies.PolicyError is slurmlab.errors.PolicyError
