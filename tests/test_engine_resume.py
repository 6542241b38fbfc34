"""Shortcuts of the scheduling pass decide exactly what a full pass would.

After arrivals only, policies continue their previous pass with the new jobs instead of
scanning the whole queue again (QueueView.resume), and so does the ``slurm`` policy's
backfill cycle; EASY stops scanning once nothing more can start (Decision.rest). These
tests run the same workloads with continuation switched off and compare every job's start,
end, nodes, and its whole history of pending reasons and planned starts; the reference
tests compare the early stop with a full scan.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from test_engine_properties import SETTINGS, scenarios
from test_engine_rules import TWO_PARTITIONS, job

from slurmlab import Cluster, simulate
from slurmlab.policies import backfill
from slurmlab.policies.fairshare import Account
from slurmlab.policies.profile import PoolProfile, Profile
from slurmlab.records.swf import swf_cluster
from slurmlab.sim.controller import Controller
from slurmlab.sim.faults import NodeFailure
from slurmlab.spec.qos import Qos
from slurmlab.spec.synthetic import ai_workload, pool_workload
from slurmlab.spec.workload import Action, Workload

# random requests with -N above -n are run on -n nodes, with sbatch's warning (tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore:can't run .* processes on")

COLUMNS = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason"]


def history(result):
    """Every job's table row plus its whole history of pending reasons and planned starts."""
    table = result.jobs[COLUMNS]
    return table, [(j.id, j.reasons, j.plans) for j in result.sim.jobs.values()]


def both(cluster, workload, policy, monkeypatch, **params):
    fast = history(simulate(cluster, workload, policy, **params))
    with monkeypatch.context() as m:
        m.setattr(Controller, "_unchanged", lambda self: False)  # no pass or cycle continues
        full = history(simulate(cluster, workload, policy, **params))
    return fast, full


def both_fresh(cluster, workload, policy, **params):
    """:func:`both` without pytest's monkeypatch (hypothesis runs many examples per call)."""
    fast = history(simulate(cluster, workload, policy, **params))
    original = Controller._unchanged
    try:
        Controller._unchanged = lambda self: False
        full = history(simulate(cluster, workload, policy, **params))
    finally:
        Controller._unchanged = original
    return fast, full


def same(fast, full) -> bool:
    return fast[0].equals(full[0]) and fast[1] == full[1]


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize(("preset", "seed"), [("ai", 1), ("ai", 7), ("teaching", 3)])
def test_continued_passes_equal_full_passes_on_gpu_clusters(preset, seed, policy, monkeypatch):
    cluster = Cluster.preset(preset)
    fast, full = both(cluster, ai_workload(400, cluster, seed=seed), policy, monkeypatch)
    assert same(fast, full)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_continued_passes_equal_full_passes_on_a_processor_pool(policy, monkeypatch):
    fast, full = both(swf_cluster(64), pool_workload(1500, 64, seed=2), policy, monkeypatch)
    assert same(fast, full)


def _past_limits(workload):
    """A trace where every fourth job runs three times its recorded run time, past its
    limit (traces replay run times as they are): the profile then moves with the clock."""
    jobs = tuple(
        dataclasses.replace(j, runtime=j.runtime * 3) if i % 4 == 0 else j
        for i, j in enumerate(workload.jobs)
    )
    return dataclasses.replace(workload, jobs=jobs)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"bf_window": 30},  # many jobs planned beyond the window, which moves with the clock
        {"bf_window": 120, "bf_resolution": 300},
        {"bf_interval": 5, "bf_resolution": 10},
        {"bf_max_job_test": 3},
    ],
)
def test_continued_backfill_cycles_equal_full_cycles(params, monkeypatch):
    """The slurm policy's backfill cycle after arrivals only plans just the new jobs."""
    cluster = Cluster.preset("ai")
    fast, full = both(cluster, ai_workload(400, cluster, seed=2), "slurm", monkeypatch, **params)
    assert same(fast, full)
    pool = pool_workload(1000, 64, seed=1)
    for workload in (pool, _past_limits(pool)):
        fast, full = both(swf_cluster(64), workload, "slurm", monkeypatch, **params)
        assert same(fast, full)


def test_a_continued_cycle_tests_again_a_try_made_from_now(monkeypatch):
    """A job planned by a will-run try in the map's first record was tried from now to now +
    its limit (backfill.c's first try), so the nodes the try may use depend on when the
    cycle runs: a later cycle's try reaches reservations that begin later and may plan the
    job elsewhere or later. A continued cycle tests such a try again and plans the whole
    queue when its nodes changed, as a full cycle would (here a full cycle at 85,345 s
    plans job 62 for 125,462 s; a continued one kept its plan for 100,558 s)."""
    cluster = Cluster.preset("ai")
    workload = ai_workload(120, cluster, seed=16)
    params = {"bf_interval": 5, "bf_resolution": 10}
    fast, full = both(cluster, workload, "slurm", monkeypatch, **params)
    assert same(fast, full)


def test_a_continued_cycle_restates_its_reasons(monkeypatch):
    """A continued backfill cycle restates the reasons of the cycle it continues, which the
    main scheduler may have renamed in between. Here jobs keep arriving in ``pa`` while
    ``b2`` waits first in line in ``pb``: both the main scheduler and every backfill cycle
    (full or continued) name it ``Resources`` (the first waiting job of its partition), and
    the later jobs of ``pa`` ``Priority``."""
    jobs = [
        job("a1", "-p pa -N2 --exclusive -t 100", 0, 5000),
        job("b1", "-p pb -N2 --exclusive -t 100", 0, 5000),
        job("a2", "-p pa -N1 --exclusive -t 10", 1, 60),
        job("b2", "-p pb -N1 --exclusive -t 10", 2, 60),
    ] + [job(f"a{k}", "-p pa -N1 --exclusive -t 10", 45 + 30 * k, 60) for k in range(3, 8)]
    fast, full = both(TWO_PARTITIONS, Workload(tuple(jobs)), "slurm", monkeypatch)
    assert same(fast, full)
    reasons = {id: [r for _t, r in rs] for id, rs, _plans in full[1]}
    # (every job waits for Priority from its submission until the pass of that instant)
    assert reasons[4] == ["Priority", "Resources", "None"]  # b2: first in line in pb
    assert reasons[3] == ["Priority", "Resources", "None"]  # a2: first in line in pa
    assert all(reasons[k][0] == "Priority" for k in range(5, 10))  # a3..a7: behind a2


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@SETTINGS
@given(case=scenarios())
def test_continuing_equals_recomputing_on_random_workloads(policy, case):
    """Random clusters and workloads, with arrays, --begin and dependencies (jobs that join
    the queue ahead of others), zero-length jobs and failing jobs."""
    cluster, workload = case
    assert same(*both_fresh(cluster, workload, policy))


def test_conservative_skips_searches_after_arrivals(monkeypatch):
    """After arrivals only, conservative leaves a job whose window no change of the previous
    pass reached where it is, without searching (the plans equal a full recomputation:
    the tests above)."""
    calls = []
    original = Profile.replan

    def spy(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Profile, "replan", spy)
    cluster = Cluster.preset("ai")
    workload = ai_workload(300, cluster, seed=1)
    simulate(cluster, workload, "conservative")
    skipping = len(calls)
    calls.clear()
    monkeypatch.setattr(Controller, "_unchanged", lambda self: False)
    simulate(cluster, workload, "conservative")
    assert skipping < 0.8 * len(calls)


class SkipChecks:
    """Conservative searching every job anyway, checking each time its skip rule said a
    job could skip that the search indeed left the job where it was: the rule and the
    changes recorded pass after pass, against what the searches find.

    The rule is asked just before a job's search, which is ``Profile.replan`` or, for a
    job that may spread over nodes (``-n`` without ``-N``), ``_reserve_earliest`` after
    its slot is taken out: the verdict is checked by the search that follows it.
    """

    def __init__(self):
        self.verdict, self.checked, self.spreading = None, [], 0

    def rule(self, start, end, *changes):
        self.verdict = backfill_undisturbed(start, end, *changes), start  # it would skip
        return False  # search anyway

    def check(self, found, nodes) -> None:
        verdict, self.verdict = self.verdict, None
        if verdict is not None and verdict[0]:
            self.checked.append(found is not None and (found[1], found[2]) == (verdict[1], nodes))

    def replan(self, original, prof, *args, **kw):
        found = original(prof, *args, **kw)
        self.check(found, args[4])  # (request, mask, duration, start, nodes, usage)
        return found

    def earliest(self, prof, job, view, all_up):
        found = reserve_earliest(prof, job, view, all_up)
        if self.verdict is not None:  # (a spreading job searched after its rule)
            self.spreading += self.verdict[0]
            self.check(found, job.planned[1])
        return found

    def run(self, cluster, workload) -> list[bool]:
        original = backfill._undisturbed, backfill._reserve_earliest
        backfill._undisturbed, backfill._reserve_earliest = self.rule, self.earliest
        for kind, replan in REPLANS.items():  # (one node's profile or a processor pool's)
            kind.replan = lambda prof, *a, _r=replan, **kw: self.replan(_r, prof, *a, **kw)
        try:  # (not monkeypatch: hypothesis runs many examples per test call)
            simulate(cluster, workload, "conservative")
        finally:
            backfill._undisturbed, backfill._reserve_earliest = original
            for kind, replan in REPLANS.items():
                kind.replan = replan
        assert self.verdict is None, "a verdict no search followed"
        return self.checked


backfill_undisturbed, reserve_earliest = backfill._undisturbed, backfill._reserve_earliest
REPLANS = {Profile: Profile.replan, PoolProfile: PoolProfile.replan}


@pytest.mark.parametrize(
    ("preset", "seed", "load"), [("teaching", 4, 1.2), ("ai", 4, 1.5), ("tiny", 6, 1.5)]
)
def test_every_skipped_search_would_have_kept_the_job_in_place(preset, seed, load):
    """See SkipChecks (on these workloads, skipping every search after arrivals would
    change the schedule)."""
    cluster = Cluster.preset(preset)
    checked = SkipChecks().run(cluster, ai_workload(800, cluster, seed=seed, load=load))
    assert checked and all(checked)


def test_every_skipped_search_would_have_kept_the_job_in_place_in_a_processor_pool():
    """The same on a trace's processor pool, whose profile (``PoolProfile``) replans on its
    own."""
    checked = SkipChecks().run(swf_cluster(64), pool_workload(1500, 64, seed=2))
    assert checked and all(checked)


@SETTINGS
@given(case=scenarios())
def test_every_skipped_search_would_have_kept_the_job_in_place_at_random(case):
    """Random clusters and workloads, jobs that spread over nodes among them (stop 42 saw
    this fail when a spreading job's verdict was checked against the next job's search)."""
    assert all(SkipChecks().run(*case))


@pytest.mark.parametrize("spied", ["_can_resume", "_can_continue_cycle"])
def test_continuation_is_used(spied, monkeypatch):
    """Guard against the speed-up silently switching itself off."""
    calls = []
    original = getattr(Controller, spied)

    def spy(self):
        calls.append(original(self))
        return calls[-1]

    monkeypatch.setattr(Controller, spied, spy)
    cluster = Cluster.preset("ai")
    simulate(cluster, ai_workload(300, cluster, seed=1), "slurm" if "cycle" in spied else "easy")
    assert any(calls) and not all(calls)


@pytest.mark.parametrize(("cluster", "workload"), [
    (swf_cluster(64), pool_workload(1500, 64, seed=2)),
    (Cluster.preset("ai"), ai_workload(400, Cluster.preset("ai"), seed=7)),
])  # fmt: skip
def test_easy_stopping_early_equals_a_full_scan(cluster, workload, monkeypatch):
    """EASY stops scanning when nothing more can start (no queued job needs fewer CPUs than
    any node has free); the jobs it does not reach get what a full scan would give them."""
    fast = history(simulate(cluster, workload, "easy"))
    with monkeypatch.context() as m:
        m.setattr(Controller, "_smallest_cpus", lambda self: 0)  # never stop early
        full = history(simulate(cluster, workload, "easy"))
    assert same(fast, full)


def test_a_spreading_job_that_skips_its_search_would_have_kept_its_place():
    """A job that may spread over nodes (-n 9 on two 8-CPU nodes) is searched with
    ``_reserve_earliest``, its slot taken out: its skip verdict is checked by that search
    (found by fresh hypothesis draws at stop 42, where it was checked by the next job's)."""
    cluster = Cluster.from_slurm_conf(
        """
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
NodeName=n[1-2] CPUs=8 RealMemory=8000
PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE
"""
    )
    workload = Workload((
        job("j1", "-t 1:00 --exclusive", 1, 0),
        job("j9", "-n 9 -t 1:00 --begin=now+1 --dependency=afterok:j1", 11, 0),
        job("j10", "--mem=500M -t 1:00 --dependency=afterok:j1 --exclusive", 11, 300),
        job("j12", "-t 1:00 --exclusive", 69, 0),
    ))  # fmt: skip
    checks = SkipChecks()
    checked = checks.run(cluster, workload)
    assert checks.spreading and checked and all(checked)


def with_and_without_left_profiles(cluster, workload) -> tuple:
    """Conservative's histories taking the profile the previous pass left (after arrivals
    only), and never taking it (a new profile, its reservations put back, every pass);
    and how many passes took one."""
    taken = []
    original = backfill._left_profile

    def spy(left, view, kept):
        prof = original(left, view, kept)
        taken.append(prof is not None)
        return prof

    try:  # (not monkeypatch: hypothesis runs many examples per test call)
        backfill._left_profile = spy
        kept = history(simulate(cluster, workload, "conservative"))
        backfill._left_profile = lambda left, view, kept: None
        built = history(simulate(cluster, workload, "conservative"))
    finally:
        backfill._left_profile = original
    return kept, built, sum(taken)


@pytest.mark.parametrize(
    ("preset", "seed", "load"), [("teaching", 4, 1.2), ("ai", 4, 1.5), ("tiny", 6, 1.5)]
)
def test_a_pass_continuing_from_the_profile_left_decides_as_a_new_profile(preset, seed, load):
    """After arrivals only, a conservative pass takes the profile the previous pass left
    instead of building one and putting every standing reservation back: the same profile
    from now on, so the same starts, plans, reasons and histories."""
    cluster = Cluster.preset(preset)
    kept, built, taken = with_and_without_left_profiles(
        cluster, ai_workload(600, cluster, seed=seed, load=load)
    )
    assert taken and same(kept, built)


def test_a_processor_pool_continuing_from_the_profile_left_decides_as_a_new_profile():
    """The same on a trace's processor pool (``PoolProfile``)."""
    kept, built, taken = with_and_without_left_profiles(
        swf_cluster(64), pool_workload(1500, 64, seed=2)
    )
    assert taken and same(kept, built)


@SETTINGS
@given(case=scenarios())
def test_continuing_from_the_profile_left_decides_as_a_new_profile_at_random(case):
    """Random clusters and workloads (arrays, dependencies, zero-length and spreading jobs,
    failures)."""
    kept, built, _taken = with_and_without_left_profiles(*case)
    assert same(kept, built)


def _two_partitions(n: int) -> Workload:
    """Jobs in two partitions, one over both and some in both (-p pa,pb), so one partition
    blocks while the other starts jobs (a pass over a new job of the open one is run)."""
    parts, sizes = ("pa", "pb", "all", "pa,pb"), ("-n1", "-n4", "-N2 --exclusive", "-n2")
    return Workload(tuple(
        job(f"j{k}", f"-p {parts[k * 7 % 5 % 4]} {sizes[k * 3 % 4]} -t 100", k * 7 % 11 + k, 30 + k * 13 % 90)
        for k in range(n)
    ))  # fmt: skip


def _unskipped(cluster, workload, policy, **params):
    """The run with every settled pass run all the same (``Controller._settled`` off)."""
    original = Controller._settled
    try:
        Controller._settled = lambda self: False
        return history(simulate(cluster, workload, policy, **params))
    finally:
        Controller._settled = original


@pytest.mark.parametrize(
    ("cluster", "workload"),
    [
        (swf_cluster(64), pool_workload(1500, 64, seed=2)),
        (Cluster.preset("ai"), ai_workload(400, Cluster.preset("ai"), seed=7)),
        (Cluster.preset("teaching"), ai_workload(400, Cluster.preset("teaching"), seed=3)),
        (TWO_PARTITIONS, _two_partitions(300)),
    ],
)
def test_a_settled_pass_skipped_would_have_decided_nothing(cluster, workload):
    """FIFO: a pass continuing the previous one over new jobs of blocked partitions only
    (Decision.settled) would start nothing and name no reason: every job behind a blocked
    job of its partition waits for Priority, which it does from its submission. Skipping
    such a pass changes no job's start, end, nodes, reasons or plans; and it is skipped."""
    skipped = []
    original = Controller._settled

    def spy(self):
        skipped.append(original(self))
        return skipped[-1]

    try:
        Controller._settled = spy
        fast = history(simulate(cluster, workload, "fifo"))
    finally:
        Controller._settled = original
    assert any(skipped)
    assert same(fast, _unskipped(cluster, workload, "fifo"))


@SETTINGS
@given(case=scenarios())
def test_skipping_settled_passes_equals_running_them_on_random_workloads(case):
    """As above, on random clusters and workloads with arrays (%N), --begin and
    dependencies: jobs that join the queue ahead of others, which no pass may leave unseen."""
    cluster, workload = case
    fast = history(simulate(cluster, workload, "fifo"))
    assert same(fast, _unskipped(cluster, workload, "fifo"))


@pytest.mark.parametrize("policy", ["easy", "conservative", "slurm"])
def test_only_fifo_settles_partitions(policy):
    """EASY and the policies built on it may backfill a new job behind a blocked one: their
    decisions settle no partition, and no pass of theirs is skipped."""
    cluster = Cluster.preset("ai")
    result = simulate(cluster, ai_workload(200, cluster, seed=1), policy)
    assert not result.sim._settled_in


def test_a_long_wait_behind_a_blocked_job_reads_each_new_job_once():
    """While passes are skipped, the new jobs pile up (they stay fresh for the pass that
    runs): each skip reads only the jobs that joined since the last, so a burst of arrivals
    behind a long job costs no more per arrival as it grows."""
    jobs = [job("long", "-N2 --exclusive -t 10000", 0, 9000)]
    jobs += [job(f"j{k}", "-N1 -t 10", 1 + k, 60) for k in range(400)]
    read = []
    original = Controller._settled

    def spy(self):
        before = self._seen
        answer = original(self)
        read.append(len(self._fresh) - before)
        return answer

    try:
        Controller._settled = spy
        simulate(TWO_PARTITIONS, Workload(tuple(jobs)), "fifo")
    finally:
        Controller._settled = original
    assert len(read) >= 400 and sum(read) <= len(read) + 1


_TIERED_MULTIFACTOR = Cluster.from_slurm_conf(
    """
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=5000
PriorityWeightQOS=10000
PriorityWeightJobSize=500
PriorityMaxAge=1:00:00
PriorityCalcPeriod=1:00
NodeName=a[1-2] CPUs=4 RealMemory=8000
NodeName=b[1-2] CPUs=4 RealMemory=8000
NodeName=c1 CPUs=4 RealMemory=8000
PartitionName=pa Nodes=a[1-2] Default=YES MaxTime=INFINITE
PartitionName=pb Nodes=b[1-2] MaxTime=INFINITE PriorityTier=2
PartitionName=all Nodes=a[1-2],b[1-2] MaxTime=INFINITE
PartitionName=pc Nodes=c1 MaxTime=INFINITE
"""
)


def _behind_blockers(n: int) -> Workload:
    """Long whole-partition jobs in pa and pb, then arrivals of every kind behind them: a
    high QOS (which outranks the blocked job), --nice, --begin, held jobs, after: and
    afterok dependencies, in pa, pb (a higher PriorityTier), the overlapping all, and pc,
    which often has room (a pass over its new job starts it)."""
    jobs = [
        job("La", "-p pa -N2 --exclusive -t 1000", 0, 700, user="u1"),
        job("Lb", "-p pb -N2 --exclusive -t 1000", 0, 400, user="u1"),
        job("Ma", "-p pa -N2 --exclusive -t 1000", 1, 300, user="u2"),
        job("Mb", "-p pb -N2 --exclusive -t 1000", 1, 300, user="u3"),
    ]
    extra = ("", "--qos=high", "--nice=100", "--begin=now+7", "-H", "--dependency=after:Mb")
    for k in range(n):
        args = f"-p {('pa', 'pb', 'all', 'pc')[k % 4]} -n{1 + k % 3} -t {10 + k % 7} {extra[k * 5 % 6]}"
        if k % 11 == 4:
            args += f" --dependency=afterok:j{k - 3}"
        jobs.append(job(f"j{k}", args, 2 + k * 3 // 2, 20 + k * 7 % 50, user=f"u{1 + k % 3}"))
    return Workload(tuple(jobs))


@pytest.mark.filterwarnings("ignore:.*jobs never started")
def test_a_skipped_pass_changes_nothing_under_priorities_actions_and_failures():
    """The settled passes skipped, and every one run, give the same job table, event log,
    reasons and plans, and the same squeue at every few seconds: under priority/multifactor
    (a QOS priority and --nice reorder new jobs, recalculated every minute),
    partitions of another PriorityTier, holds, releases, updates, requeues, a node failure
    and a run cut off with until=."""
    actions = (
        Action(20, "hold", "j7"), Action(45, "release", "j7"), Action(30, "update", "j10", {"time": 5}),
        Action(50, "requeue", "Lb"), Action(60, "release", "j4"), Action(70, "cancel", "j13"),
    )  # fmt: skip
    params = {
        "qos": (Qos("normal"), Qos("high", priority=100)),
        "accounts": (Account("phys", 3, users=("u1", "u2")), Account("chem", 1, users=("u3",))),
        "actions": actions,
        "failures": (NodeFailure("a2", 90, 40),),
    }
    workload = _behind_blockers(60)
    for until in (None, 150):
        kw = {**params, "until": until}
        runs = []
        for skip in (True, False):
            original = Controller._settled
            skipped = []

            def spy(self, original=original, skipped=skipped):
                skipped.append(original(self))
                return skipped[-1]

            try:
                Controller._settled = spy if skip else (lambda self: False)
                result = simulate(_TIERED_MULTIFACTOR, workload, "fifo", **kw)
            finally:
                Controller._settled = original
            queues = [result.squeue(at=t).to_csv() for t in range(0, until or 400, 3)]
            runs.append((history(result), result.events.to_csv(), queues, any(skipped)))
        (fast, fast_events, fast_queues, did), (full, full_events, full_queues, _) = runs
        assert did  # (passes were skipped)
        assert same(fast, full) and fast_events == full_events and fast_queues == full_queues


RUN_NOW = Cluster.from_slurm_conf(
    """
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
GresTypes=gpu
SchedulerParameters=bf_interval=10
NodeName=n1 CPUs=2 RealMemory=4000 Gres=gpu:2
NodeName=n2 CPUs=2 RealMemory=8000 Gres=gpu:4
NodeName=n3 CPUs=8 RealMemory=4000
NodeName=n4 CPUs=2 RealMemory=4000 Gres=gpu:1
PartitionName=p Nodes=n[1-4] Default=YES MaxTime=INFINITE
"""
)


def test_a_try_that_fits_now_takes_the_nodes_the_running_jobs_leave_free_now(monkeypatch):
    """A will-run try at a map record's edge first tests the job on what the running jobs
    leave free now (cons_common _will_run_test: SELECT_MODE_RUN_NOW on future_usage, which
    holds no plan), over the try's nodes (the map's avail_bitmap). Here s is planned after
    w's reservation on n[1-3] (which ends at 540 s rounded down): it fits now on n2 or n3
    beside the long job on n[2-4], and best fit takes n2, whenever the cycle runs. Before,
    the test read the profile's first interval, where a reservation whose start rounds down
    to now or before (w's at 479 s, rounded to 420 s) already holds its nodes: a cycle at
    392 s planned s on n2, one at 452 s on n1, so a continued cycle and a full one
    disagreed."""
    jobs = [
        job("j1", "-N 1 --mem=500M -t 1 --exclusive", 5, 0),
        job("j2", "--gres=gpu:1 -t 1 --dependency=afterok:j1", 92, 120),
        job("long1", "--mem=500M --gres=gpu:1 -t 6 --exclusive", 93, 900),  # n1 to 453 s
        job("long3", "-N 3 -t 5", 179, 900),  # n[2-4], to 479 s
        job("g", "--gres=gpu:1 -t 9 --exclusive", 262, 0),
        job("w", "-N 3 --mem=500M -t 2 --exclusive", 344, 0),
        job("s", "-N 1 -t 3", 387, 0),
        job("big", "--mem=500M --gres=gpu:4 -t 1 --exclusive", 447, 0),
    ]
    workload = Workload(tuple(jobs))
    fast, full = both(RUN_NOW, workload, "slurm", monkeypatch)
    assert same(fast, full)
    result = simulate(RUN_NOW, workload, "slurm")
    for at in (400, 452.5):  # after the cycles at 392 s and at 452 s
        queue = result.squeue(at=at).set_index("JOBID")
        assert queue.loc["s", "SCHEDNODES"] == "n2"
