"""The shortcuts of the scheduling passes decide what the searches they skip would decide.

Three shortcuts stand in for work a pass would otherwise do:

- ``conservative``, after arrivals only, starts from the profile the previous pass left
  (``backfill._left_profile``) instead of building one and putting every standing
  reservation back;
- ``Profile.replan`` searches a job of fixed tasks per node without taking it out of the
  profile (``Profile._in_place``);
- the ``slurm`` policy's will-run placement skips the test on the resources free now for a
  job that fits nowhere on what was free when the cycle began (``_Cycle.fits_now``).

Each is switched off here (the searched path restored) and the runs compared: every job's
state, start, end, nodes, pending reasons, planned starts and their nodes must be the same.
Where a shortcut answers a question, its answer is also checked call by call against the
searched one. The workloads reach what the teaching digests and golden tests do not:
``-N k --gpus=M``, ``--gpus-per-task``, ``--exclusive``, each node's whole memory,
``--mem-per-cpu``, ``-N MIN-MAX``, ``-p a,b``, arrays with ``%N``, zero run times,
maintenance windows, node failures, scontrol updates, cancels, requeues and a lab stepped
by hand.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab import Cluster, Lab, simulate
from slurmlab.errors import SlurmlabError
from slurmlab.policies import backfill, profile
from slurmlab.policies.backfill import _Cycle, availability
from slurmlab.policies.base import PendingJob
from slurmlab.policies.placement import Request, Spread
from slurmlab.policies.profile import PoolProfile, Profile
from slurmlab.sim.faults import NodeFailure
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.workload import Action, Workload, WorkloadJob

# (sbatch's warnings on the random requests are tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore")

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _unsearched(self, *args):
    return profile._UNSEARCHED


#: each shortcut: (where it lives, its name, what switches it off)
SLOW = {
    "left": (backfill, "_left_profile", lambda left, view, kept: None),
    "in_place": (Profile, "_in_place", _unsearched),
    "fits_now": (_Cycle, "fits_now", lambda self, job: True),
}
#: the policies each shortcut serves
POLICY = {"left": "conservative", "in_place": "conservative", "fits_now": "slurm"}


@contextmanager
def replaced(owner, name: str, value):
    """``owner.name`` is ``value`` inside (not monkeypatch: hypothesis runs many examples
    per test call)."""
    original = owner.__dict__[name]
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


@contextmanager
def counted(path: str):
    """The shortcut ``path`` as it is, counting the calls where it answered (took the left
    profile, searched in place, told a job fits nowhere now): yields the list of them."""
    owner, name, _slow = SLOW[path]
    original = owner.__dict__[name]
    hits: list[bool] = []
    if path == "left":

        def spy(left, view, kept):
            prof = original(left, view, kept)
            hits.append(prof is not None)
            return prof
    elif path == "in_place":

        def spy(self, *args):
            found = original(self, *args)
            hits.append(found is not profile._UNSEARCHED)
            return found
    else:

        def spy(self, job):
            fits = original(self, job)
            hits.append(not fits)
            return fits

    with replaced(owner, name, spy):
        yield hits


def history(sim) -> list:
    """Every job's outcome and its whole history while it waited."""
    return [
        (j.key, j.state, j.start, j.end, tuple(j.nodes), j.by, j.reasons, j.plans, j.sched)
        for j in sim.jobs.values()
    ]


def with_and_without(path: str, run) -> tuple[list, list, int]:
    """``run()`` (a simulation) with the shortcut ``path`` and with it switched off: both
    histories, and how often the shortcut answered."""
    with counted(path) as hits:
        fast = history(run())
    owner, name, slow = SLOW[path]
    with replaced(owner, name, slow):
        full = history(run())
    return fast, full, sum(hits)


def job(id: str, args: str, submit: float = 0, runtime: float = 60, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def conf(nodes: str, *partitions: str, head: str = "") -> Cluster:
    lines = [
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "GresTypes=gpu",
        head,
        nodes,
        *partitions,
    ]
    return Cluster.from_slurm_conf("\n".join(line for line in lines if line))


# -- conservative: the profile the previous pass left ----------------------------------------


@pytest.mark.parametrize("nodes", [1, 2])
def test_a_pass_with_no_standing_reservation_plans_on_a_profile_holding_its_starts(nodes):
    """After arrivals only, a pass with no standing reservation starts the jobs that fit now
    without a profile, then plans the rest on a profile built with those starts: the
    profile the previous pass left lacks them, so it must not be taken then. Here ``j``'s
    reservation starts at x's early end (its pass leaves a profile with no reservation),
    then ``a`` and ``b`` arrive together: ``a`` starts now and ``b`` waits for it, on one
    node (a processor pool's profile) and on two."""
    n = f"-N {nodes} " if nodes > 1 else ""
    cluster = conf(
        f"DefMemPerCPU=100\nNodeName=n[1-{nodes}] CPUs=4 RealMemory=8000",
        f"PartitionName=p Nodes=n[1-{nodes}] Default=YES MaxTime=INFINITE",
    )
    workload = Workload((
        job("x", f"{n}--exclusive -t 10", 0, 50),
        job("j", f"{n}--ntasks-per-node=2 -t 10", 1, 600),
        job("a", f"{n}--ntasks-per-node=2 -t 1", 60, 60),
        job("b", f"{n}--ntasks-per-node=2 -t 1", 60, 60),
    ))  # fmt: skip
    fast, full, _taken = with_and_without(
        "left", lambda: simulate(cluster, workload, "conservative").sim
    )
    assert fast == full
    starts = {key: start for key, _s, start, *_rest in fast}
    assert starts == {"x": 0, "j": 50, "a": 60, "b": 120}


def same_free(a, b) -> bool:
    """Whether two profiles hold the same free resources on every node at every instant
    (their breakpoints may differ where nothing changes), reading at each breakpoint of
    either both the first and the last interval that begins there."""

    def steps(prof):
        if isinstance(prof, PoolProfile):
            return list(prof.times), np.array([prof.cpu, prof.mem, prof.gpu]).T[:, None, :]
        return list(prof.times), prof.per_node()

    def at(times, free, t, first):
        k = bisect_left(times, t)
        if not (first and k < len(times) and times[k] == t):
            k = bisect_right(times, t) - 1
        return free[k]

    (ta, fa), (tb, fb) = steps(a), steps(b)
    if ta[0] != tb[0]:
        return False
    return all(
        np.array_equal(at(ta, fa, t, first), at(tb, fb, t, first))
        for t in set(ta) | set(tb)
        for first in (True, False)
    )


@contextmanager
def left_checked():
    """Conservative's ``_left_profile`` checked at every pass that takes it: the profile it
    gives holds what the rebuilt one would (running jobs' ends, standing reservations) at
    every instant. Yields the list of passes checked."""
    original = backfill.__dict__["_left_profile"]
    checked: list[bool] = []

    def check(left, view, kept):
        prof = original(left, view, kept)
        if prof is not None:
            ref = availability(view)
            for t, _n, job, nodes, usage in kept:
                if nodes is not None:
                    ref.reserve(nodes, usage, t, t + job.limit)
            checked.append(same_free(prof, ref))
        return prof

    with replaced(backfill, "_left_profile", check):
        yield checked


GPU_NODES = (
    "DefMemPerCPU=500\n"
    "NodeName=g[1-2] CPUs=8 RealMemory=16000 Gres=gpu:4\n"
    "NodeName=g[3-4] CPUs=8 RealMemory=8000 Gres=gpu:2\n"
    "NodeName=c[1-2] CPUs=16 RealMemory=32000"
)
GPU_PARTITIONS = (
    "PartitionName=gpu Nodes=g[1-4] Default=YES MaxTime=INFINITE",
    "PartitionName=cpu Nodes=c[1-2] MaxTime=INFINITE",
    "PartitionName=all Nodes=g[1-4],c[1-2] MaxTime=INFINITE",
)
#: nodes of two GPU sizes and memories, and CPU nodes; partitions over each and over all
GPUS = conf(GPU_NODES, *GPU_PARTITIONS)
#: requests the teaching workload and the engine's random scenarios do not make
KINDS = [
    "-n 4 --gpus-per-task=1",
    "-N 2 -n 4 --gpus-per-task=1",
    "--gpus=3",
    "--gres=gpu:1 -n 1",
    "-N 2 --ntasks-per-node=2 --gres=gpu:1",
    "--gres=gpu:2 --ntasks-per-node=1 -p all",
    "--exclusive",
    "-N 2 --exclusive -p all",
    "--mem=0 -n 2",
    "--mem=0 -N 2 -p all",
    "--mem-per-cpu=3000 -n 4",
    "--mem-per-cpu=1000 -N 2 --ntasks-per-node=4 -p all",
    "-N 1-3 -n 3",
    "-N 2-4 --ntasks-per-node=1 -p all",
    "-p gpu,cpu -n 2",
    "-p cpu,gpu -N 2 --ntasks-per-node=2",
    "-p cpu -n 8",
    "-p cpu --exclusive",
    "--array=0-3%2 -n 2",
]
#: ``-N k --gpus=M``, its GPUs dealt unevenly over its nodes (see the tests at the end:
#: conservative oversubscribed nodes until ``Profile.replan`` held what it dealt)
DEALT = ["-N 2 --gpus=3", "-N 2 --gpus=5", "-N 3 --gpus=4 -p all", "--array=0-2%1 -N 2 --gpus=3"]


@st.composite
def gpu_workloads(draw, kinds: tuple[str, ...] = (*KINDS, *DEALT)) -> Workload:
    """12-30 jobs of ``kinds`` (limits of 1-20 minutes, run times from none to past the
    limit) on a busy cluster: a burst at the start, then arrivals over ten minutes."""
    jobs = []
    for k in range(draw(st.integers(12, 30))):
        args = f"{draw(st.sampled_from(kinds))} -t {draw(st.integers(1, 20))}"
        submit = float(draw(st.one_of(st.just(0), st.integers(1, 600))))
        runtime = float(draw(st.sampled_from([0, 30, 120, 300, 600, 900, 1500])))
        spec = JobSpec.from_args(args)
        try:
            spec.resources(GPUS)
        except SlurmlabError:
            continue
        jobs.append(WorkloadJob(spec, submit, runtime, id=f"j{k + 1}"))
    return Workload(tuple(sorted(jobs, key=lambda j: j.submit)))


@st.composite
def events(draw, workload: Workload) -> dict:
    """simulate()'s scripted events for ``workload``: maybe a maintenance window, a node
    failure, and admin actions (updates, cancels, requeues) on its jobs."""
    out: dict = {}
    if draw(st.integers(0, 3)) == 0:
        start = draw(st.sampled_from([120, 400, 900]))
        nodes = draw(st.sampled_from(["g1", "g[3-4]", "c1", "g[1-4]"]))
        out["reservations"] = [
            Reservation(
                "maint", start=start, duration=600, nodes=nodes, users=("root",), flags=("MAINT",)
            )
        ]
    if draw(st.integers(0, 3)) == 0:
        node = draw(st.sampled_from(["g1", "g3", "c2"]))
        at = float(draw(st.sampled_from([90, 310, 700])))
        out["failures"] = [NodeFailure(node, at=at, down_for=draw(st.sampled_from([60, 600])))]
    ids = [j.id for j in workload.jobs]
    actions = []
    for _ in range(draw(st.integers(0, 3))):
        what = draw(st.sampled_from(["update", "cancel", "requeue", "hold", "release"]))
        target = draw(st.sampled_from(ids))
        at = float(draw(st.sampled_from([62, 200, 301, 500])))
        if what == "update":
            change = draw(st.sampled_from([{"time": "2"}, {"time": "+5"}, {"partition": "all"}]))
            actions.append(Action(at, "update", target, changes=change))
        else:
            actions.append(Action(at, what, target))
    if actions:
        out["actions"] = sorted(actions, key=lambda a: a.at)
    return out


def run_or_refused(cluster, workload, policy, **kw):
    """The run's simulation, or None when an action is refused (scontrol's own errors,
    such as an update of a job that has ended: not what is tested here)."""
    try:
        return simulate(cluster, workload, policy, **kw).sim
    except SlurmlabError:
        return None


@SETTINGS
@given(data=st.data())
def test_the_profile_left_holds_what_a_rebuilt_one_would_at_random(data):
    """Random GPU workloads with scripted events under conservative: every pass that takes
    the profile the previous pass left finds in it the free resources a rebuilt profile
    holds, at every instant, and the runs with and without it are the same."""
    workload = data.draw(gpu_workloads())
    extra = data.draw(events(workload))
    with left_checked() as checked:
        fast = run_or_refused(GPUS, workload, "conservative", **extra)
    if fast is None:
        return
    assert all(checked)
    with replaced(backfill, "_left_profile", SLOW["left"][2]):
        full = run_or_refused(GPUS, workload, "conservative", **extra)
    assert history(fast) == history(full)


def test_the_profile_left_is_taken_on_these_workloads():
    """(So the tests above test something.) A burst of arrivals after a busy start: passes
    after arrivals only take the profile left, and it holds what a rebuilt one would."""
    jobs = [job(f"w{k}", f"{KINDS[k % len(KINDS)]} -t {1 + k % 9}", 0, 300) for k in range(12)]
    jobs += [job(f"a{k}", f"{KINDS[(5 * k) % len(KINDS)]} -t 5", 30 + k, 120) for k in range(12)]
    workload = Workload(tuple(jobs))
    with left_checked() as checked:
        fast = history(simulate(GPUS, workload, "conservative").sim)
    assert checked and all(checked)
    with replaced(backfill, "_left_profile", SLOW["left"][2]):
        assert fast == history(simulate(GPUS, workload, "conservative").sim)


def test_the_profile_left_is_taken_after_a_pass_that_replanned_dealt_gpus():
    """A ``-N k --gpus=M`` reservation holds its GPUs as dealt (the Spread's rows, which
    ``Profile.replan`` keeps when the job stays and deals anew when it moves), and its plan
    carries those rows to the next pass. So after a pass that replanned such a job, a pass
    after arrivals only takes the profile that pass left, and it holds what a rebuilt one
    would, dealt GPUs included; the run is the one that rebuilds every profile."""
    jobs = [job("big", "-N 4 -p gpu --gres=gpu:1 -t 20", 0, 900)]
    jobs += [job(f"d{k}", f"{DEALT[k % 2]} -t {3 + k}", 1 + k, 120) for k in range(3)]
    jobs += [
        job(f"a{k}", f"{KINDS[(3 * k) % len(KINDS)]} -t 4", 30 + 61 * k, 150) for k in range(16)
    ]
    workload = Workload(tuple(jobs))
    left_profile, replan_of = backfill.__dict__["_left_profile"], Profile.__dict__["replan"]
    dealt = [False]  # whether a replan since the last profile taken or not found rows
    taken: list[bool] = []  # passes taking the left profile after a dealt replan

    def replan(self, *args):
        found = replan_of(self, *args)
        if found is not None and getattr(found[2], "rows", None) is not None:
            dealt[0] = True
        return found

    def spy(left, view, kept):
        prof = left_profile(left, view, kept)
        if dealt[0] and left is not None:
            taken.append(prof is not None)
        dealt[0] = False
        return prof

    with replaced(Profile, "replan", replan), replaced(backfill, "_left_profile", spy):
        fast = history(simulate(GPUS, workload, "conservative").sim)
    assert any(taken)
    with left_checked() as checked:
        assert fast == history(simulate(GPUS, workload, "conservative").sim)
    assert checked and all(checked)
    with replaced(backfill, "_left_profile", SLOW["left"][2]):
        assert fast == history(simulate(GPUS, workload, "conservative").sim)


# -- Profile.replan searching a job in place ----------------------------------------------------


@SETTINGS
@given(workload=gpu_workloads())
def test_searching_in_place_decides_as_taking_the_job_out_at_random(workload):
    """Random GPU workloads under conservative: compressions searched with the job still in
    the profile (``Profile._in_place``) give the runs of compressions that take it out."""
    fast, full, _searched = with_and_without(
        "in_place", lambda: simulate(GPUS, workload, "conservative").sim
    )
    assert fast == full


def test_searching_in_place_is_used_and_decides_the_same_with_node_updates():
    """GPU jobs of fixed tasks per node, the kind searched in place, waiting behind a full
    cluster, with node counts and time limits updated and a node failing under them."""
    jobs = [job(f"w{k}", "-N 2 --exclusive -p all -t 10", 0, 400 + 100 * k) for k in range(3)]
    jobs += [
        job(f"g{k}", f"--gres=gpu:1 -n 1 -t {2 + k % 5}", 10 + k, 100 + 40 * k) for k in range(10)
    ]
    jobs += [
        job(f"m{k}", "-N 2 --ntasks-per-node=2 --gres=gpu:1 -t 6", 20 + k, 200) for k in range(4)
    ]
    actions = [
        Action(60, "update", "m1", changes={"nodes": 1}),
        Action(70, "update", "g3", changes={"time": "1"}),
        Action(80, "cancel", "g5"),
    ]
    failures = [NodeFailure("g2", at=150, down_for=300)]
    fast, full, searched = with_and_without(
        "in_place",
        lambda: (
            simulate(
                GPUS, Workload(tuple(jobs)), "conservative", actions=actions, failures=failures
            ).sim
        ),
    )
    assert searched and fast == full


# -- the slurm policy's test on the resources free now ------------------------------------------


@contextmanager
def fit_now_checked():
    """Every call of ``_fit_now`` (the nodes of a TRY_LATER plan, tested on what is free now)
    checked against the same call with ``_Cycle.fits_now`` switched off: the shortcut may
    only skip tests that would fail. Yields the list of calls it skipped."""
    original = backfill.__dict__["_fit_now"]
    skipped: list[bool] = []

    def check(prof, job, mask, on, limit, found, cycle, epoch):
        got = original(prof, job, mask, on, limit, found, cycle, epoch)
        with replaced(_Cycle, "fits_now", SLOW["fits_now"][2]):
            want = original(prof, job, mask, on, limit, found, cycle, epoch)
        assert repr(got) == repr(want), (job, found)
        skipped.append(cycle.ranks is not None and not cycle.fits_now(job))
        return got

    with replaced(backfill, "_fit_now", check):
        yield skipped


@SETTINGS
@given(data=st.data())
def test_the_test_on_what_is_free_now_is_skipped_only_where_it_fails_at_random(data):
    """Random GPU workloads with scripted events (maintenance windows, failures, updates)
    under ``slurm``: each skipped test would have failed, and the runs with and without the
    shortcut are the same."""
    workload = data.draw(gpu_workloads())
    extra = data.draw(events(workload))
    with fit_now_checked():
        fast = run_or_refused(GPUS, workload, "slurm", **extra)
    if fast is None:
        return
    with replaced(_Cycle, "fits_now", SLOW["fits_now"][2]):
        full = run_or_refused(GPUS, workload, "slurm", **extra)
    assert history(fast) == history(full)


def test_the_test_on_what_is_free_now_is_skipped_for_every_kind_of_request():
    """Whole-node memory, --mem-per-cpu, --exclusive, -N MIN-MAX, -p a,b, GPUs per job and
    per task, and jobs of an advance reservation whose window frees its nodes for them:
    the shortcut skips tests, each of which would have failed, and decides as the test."""
    resv = Reservation("r", start=0, duration=3600, nodes="g[3-4]", users=("ann",))
    jobs = [job(f"w{k}", "-N 2 --exclusive -p all -t 10", 0, 600) for k in range(2)]
    jobs += [job(f"x{k}", "--exclusive -p all -t 5", 1, 300) for k in range(2)]
    jobs += [
        job(f"k{k}", f"{kind} -t {3 + k % 6}", 5 + k, 120 + 30 * k)
        for k, kind in enumerate((KINDS + DEALT) * 2)
    ]
    jobs += [
        job(f"r{k}", "--reservation=r -N 1 --gres=gpu:1 -t 5", 2 + k, 400, user="ann")
        for k in range(4)
    ]
    workload = Workload(tuple(sorted(jobs, key=lambda j: j.submit)))
    with fit_now_checked() as skipped:
        fast = history(simulate(GPUS, workload, "slurm", reservations=[resv]).sim)
    assert any(skipped)
    with replaced(_Cycle, "fits_now", SLOW["fits_now"][2]):
        assert fast == history(simulate(GPUS, workload, "slurm", reservations=[resv]).sim)


# -- all three, on a lab stepped by hand and under preemption -----------------------------------


def lab_session(policy: str, kinds: list[str]):
    """A lab driven command by command: submissions of ``kinds`` between steps of time
    (each sbatch its own pass), an update, a drain and a resume, a requeue."""
    lab = Lab(GPUS, policy)
    lab.sbatch("-N 2 --exclusive -p all -t 10", runtime=300)
    lab.sbatch("-N 2 --ntasks-per-node=2 --gres=gpu:2 -t 5", runtime=200)
    lab.sbatch("-N 3 --exclusive -p all -t 10", runtime=300)
    lab.advance(10)
    for kind in kinds[:12]:
        lab.sbatch(f"{kind} -t 4", runtime=100)
    lab.advance(30)
    lab.sbatch("--gres=gpu:1 -n 1 -t 3", runtime=60)
    lab.sbatch("-N 2 --ntasks-per-node=2 --gres=gpu:1 -t 3", runtime=60)
    lab.update(4, time="2")
    lab.advance(50)
    lab.drain("g1")
    lab.sbatch("-N 1-3 -n 3 -t 2", runtime=30)
    lab.advance(100)
    lab.resume("g1")
    lab.requeue(1)
    for kind in kinds[12:]:
        lab.sbatch(f"{kind} -t 3", runtime=90)
        lab.advance(5)
    lab.run()
    return lab.sim


@pytest.mark.parametrize("path", ["left", "in_place", "fits_now"])
def test_a_lab_stepped_by_hand_decides_as_without_the_shortcut(path):
    """Each shortcut, on a lab driven step by step (run and advance between submissions):
    it is used, and decides as the search it skips."""
    fast, full, hits = with_and_without(path, lambda: lab_session(POLICY[path], KINDS + DEALT))
    assert hits and fast == full


PREEMPT = conf(GPU_NODES, *GPU_PARTITIONS, head="PreemptType=preempt/qos\nPreemptMode=REQUEUE")


@pytest.mark.parametrize("path", ["left", "in_place", "fits_now"])
def test_preemption_decides_as_without_the_shortcut(path):
    """Each shortcut under preempt/qos (requeue): high-QOS jobs preempting scavengers,
    placed first by conservative. (No pass continues the previous one under preemption:
    the profile left is never taken, which this checks too.)"""
    qos = (Qos("scav"), Qos("high", priority=100, preempt=("scav",)))
    jobs = [job(f"s{k}", "-N 1 --gres=gpu:4 -t 10 --qos=scav", k, 900) for k in range(6)]
    jobs += [job(f"h{k}", f"{KINDS[k]} -t 5 --qos=high", 60 + 30 * k, 200) for k in range(8)]
    if POLICY[path] == "slurm":
        jobs += [
            job(f"d{k}", f"{kind} -t 5 --qos=high", 70 + 30 * k, 200)
            for k, kind in enumerate(DEALT)
        ]
    workload = Workload(tuple(jobs))
    fast, full, hits = with_and_without(
        path, lambda: simulate(PREEMPT, workload, POLICY[path], qos=qos).sim
    )
    assert fast == full and (hits > 0) == (path != "left")


# -- Profile.replan and a -N k --gpus=M job: it holds the GPUs as dealt where it is -----------


def test_a_gpus_per_job_reservation_moved_to_other_nodes_holds_the_gpus_dealt_there():
    """``-N 2 --gpus=3`` is dealt in node order (2 + 1 where the first node has 2 GPUs free,
    1 + 2 where it has 1). ``j`` is planned on g1 (1 GPU free) and g2: 1 + 2. When ``y``
    ends early, compression moves ``j`` to g3 and g4 (2 free each), dealt 2 + 1, and it
    starts now; ``k`` (one GPU on g3 or g4) then fits only on g4. The profile must hold
    2 + 1 there, or ``k`` is started on g3's GPU that ``j`` took."""
    cluster = conf(
        "DefMemPerCPU=100\nNodeName=g[1-4] CPUs=8 RealMemory=8000 Gres=gpu:2",
        "PartitionName=p Nodes=g[1-4] Default=YES MaxTime=INFINITE",
        "PartitionName=q Nodes=g[3-4] MaxTime=INFINITE",
    )
    workload = Workload((
        job("x1", "-N1 -w g1 --gres=gpu:1 -t 100", 0, 6000),
        job("x2", "-N1 -w g2 --gres=gpu:2 -t 10", 0, 600),
        job("y", "-N2 -p q --gres=gpu:2 -t 60", 0, 300),
        job("j", "-N 2 --gpus=3 -t 30", 10, 600),
        job("k", "-p q -N1 --gres=gpu:1 -t 30", 20, 600),
    ))  # fmt: skip
    result = simulate(cluster, workload, "conservative")  # (raised: oversubscribed g3)
    table = result.jobs.set_index("JobID")
    starts = dict(zip(result.jobs["JobID"], result.seconds("Start")))
    assert (starts["j"], starts["k"]) == (300, 300)
    assert (table.loc["j", "NodeList"], table.loc["k", "NodeList"]) == ("g[3-4]", "g4")


def test_replan_moving_a_gpus_per_job_reservation_holds_what_best_fit_dealt():
    """``Profile.replan`` of a ``-N 2 --gpus=3`` reservation that moves to other nodes leaves
    the profile as taking it out, searching, and reserving what the search found: its GPUs
    as dealt on the new nodes (the Spread's rows). Four 2-GPU nodes: one GPU of g1 taken
    for long, g2 busy until 600, g3 and g4 idle (a job there ended early); the job stood at
    600 on g1 and g2, dealt 1 + 2, and moves to now on g3 and g4, dealt 2 + 1."""
    capacity = np.array([[8, 8000, 2]] * 4)
    used = [(6000.0, (0,), np.array([[1, 100, 1]])), (600.0, (1,), np.array([[1, 100, 2]]))]
    free = capacity.copy()
    for _end, nodes, usage in used:
        free[list(nodes)] -= usage
    prof = Profile(0.0, free, capacity, used)
    request = Request(np.array([1, 100, 1]), 2, gpus_per_job=3)
    mask = np.ones(4, dtype=bool)
    old = Spread((0, 1))
    old.rows = np.array([[1, 100, 1], [1, 100, 2]])
    prof.reserve(old, old.rows, 600.0, 2400.0)
    ref = prof.copy()
    got = prof.replan(request, mask, 1800.0, 600.0, old, old.rows)
    ref.reserve(old, -old.rows, 600.0, 2400.0)  # out, search, in
    want = ref.earliest(request, mask, 1800.0)
    k, t, new = want
    assert (t, new, new.rows[:, 2].tolist()) == (0.0, (2, 3), [2, 1])
    ref.reserve(new, new.rows, t, t + 1800.0, at=k)
    assert repr(got) == repr(want)
    assert prof.times == ref.times and np.array_equal(prof.per_node(), ref.per_node())


def test_replan_leaving_a_gpus_per_job_reservation_in_place_returns_what_it_holds():
    """A ``-N 2 --gpus=3`` reservation that stays at its start on its nodes keeps the GPUs
    it holds there, and ``Profile.replan`` returns those nodes with those rows, as
    ``_replan_spread`` does for a job that spreads: the plan a pass announces, and the
    start it makes when that start is now, are what the profile holds for the job (a start
    dealt anew took a GPU the profile had left to a later job: conservative then
    oversubscribed a node). Here the job stood at 600 on g1 and g2, dealt 1 + 2 while a
    GPU of g1 was taken; that job ended early, and at 600 best fit now deals 2 + 1."""
    capacity = np.array([[8, 8000, 2]] * 4)
    used = [(600.0, (1,), np.array([[1, 100, 2]])), (3600.0, (2, 3), np.array([[1, 100, 2]] * 2))]
    free = capacity.copy()
    for _end, nodes, usage in used:
        free[list(nodes)] -= usage
    prof = Profile(0.0, free, capacity, used)
    request = Request(np.array([1, 100, 1]), 2, gpus_per_job=3)
    old = Spread((0, 1))
    old.rows = np.array([[1, 100, 1], [1, 100, 2]])
    prof.reserve(old, old.rows, 600.0, 2400.0)
    got = prof.replan(request, np.ones(4, dtype=bool), 1800.0, 600.0, old, old.rows)
    assert got is not None and (got[1], got[2]) == (600.0, (0, 1))
    assert prof.valid() and np.array_equal(getattr(got[2], "rows", None), old.rows)


# -- PendingJob.with_plan: the record with a standing plan --------------------------------------


def test_with_plan_is_the_record_replaced_with_its_plan():
    """``PendingJob.with_plan(plan)`` (the controller's record of a job whose standing plan
    moved) is ``replace(record, planned=plan)``: every field the same, ``request`` and
    ``shape`` equal to those built afresh, for records of every kind the controller makes
    (rows, spread, GPUs per job, throttles, several nodes) and with no plan."""
    sim = simulate(
        GPUS, Workload(tuple(job(f"k{k}", f"{a} -t 5") for k, a in enumerate(KINDS + DEALT)))
    ).sim
    records = [j.pending for j in sim.jobs.values() if j.pending is not None]
    kinds = ("spread", "rows", "throttle")  # (some record of each kind)
    assert all(any(getattr(r, k) is not None for r in records) for k in kinds)
    assert any(r.gpus_per_job for r in records) and any(r.count > 1 for r in records)
    for record in records:
        for plan in [(120.0, (0, 1)), None]:
            got, want = record.with_plan(plan), replace(record, planned=plan)
            assert type(got) is PendingJob and got == want and got.planned == plan
            assert repr(got.request) == repr(want.request) and got.shape == want.shape
