"""QA stop 24, the ``slurm`` policy against Slurm 22.05.8's source (job_scheduler.c,
backfill.c, slurm.conf(5)): ``sched_interval=-1``, the backfill map's ``bf_node_space_size``,
and how SchedulerParameters are checked.

* ``sched_interval=-1`` "will disable the main scheduling loop" (slurm.conf(5)):
  ``_schedule()`` returns at once on every call, so jobs start in backfill cycles only,
  where Slurm also starts jobs in advance reservations and preempts.
* backfill.c stops a cycle before a reservation once its node_space table holds
  ``bf_node_space_size`` records (by default ``bf_max_job_test``): "table size limit of %u
  reached". The map starts with one record for the whole window; each reservation inserts
  a record where it begins and one where it ends (``_add_reservation``), and a whole-node
  job the cycle starts holds its nodes in the map too (``_bf_reserve_running``).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from test_engine_properties import SETTINGS, scenarios

from slurmlab import Scenario
from slurmlab.errors import ConfigError, SlurmlabError
from slurmlab.policies.nodespace import NodeSpace
from slurmlab.sim.controller import Controller
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.workload import Workload, WorkloadJob

# random requests with -N above -n are run on -n nodes, with sbatch's warning (tested elsewhere)
pytestmark = pytest.mark.filterwarnings("ignore:can't run .* processes on")

ORIGIN = pd.Timestamp("2026-01-05 00:00:00")

#: Four 16-CPU nodes in one partition (the reviewer's reproducers).
FOUR = Cluster.from_slurm_conf(
    "NodeName=n[1-4] CPUs=16 RealMemory=64000\n"
    "PartitionName=p Nodes=n[1-4] Default=YES MaxTime=INFINITE\n"
)
TWO = Cluster.from_slurm_conf(
    "NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
    "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
)


def job(id: str, args: str, submit: float = 0, runtime: float = 600, **kw) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id, **kw)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))


def started_by(result) -> dict[str, str]:
    return dict(zip(result.jobs["JobID"], result.jobs["StartedBy"], strict=True))


def preempted(result) -> list[tuple[float, str]]:
    return [(e[0], e[3]) for e in result.sim.events if e[1] == "preempt"]


# -- sched_interval=-1: no main scheduler -------------------------------------------------------


def test_sched_interval_minus_one_starts_jobs_only_in_backfill_cycles():
    """/tmp/qa_bf/t8.py: four idle nodes, ``SchedulerParameters: "sched_interval=-1"``; a
    (submitted at 5 s) and b (700 s) start in backfill cycles, started by backfill; with
    the main scheduler they start when submitted. a at 30 s: the backfill thread's first
    sleep (bf_interval, 30 s) counts from slurmctld's start (backfill_agent). b at 700 s:
    after the idle stretch the thread polls every second (short_sleep), so its submission
    gets a cycle at once (no longer at 720 s, a grid of bf_interval from the start)."""
    doc = """
name: t
cluster:
  nodes:
    - {name: "gpu[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "gpu[1-4]", default: true}
  settings:
    SchedulerParameters: "sched_interval=-1"
policy: slurm
jobs:
  - {id: a, submit: 5, runtime: 600, args: "-N 1 --exclusive -t 30"}
  - {id: b, submit: 700, runtime: 600, args: "-N 1 --exclusive -t 30"}
"""
    result = Scenario.from_dict(yaml.safe_load(doc)).run()
    assert starts(result) == {"a": 30, "b": 700}
    assert started_by(result) == {"a": "backfill", "b": "backfill"}
    main = Scenario.from_dict(yaml.safe_load(doc.replace("sched_interval=-1", "bf_interval=30")))
    assert starts(main.run()) == {"a": 5, "b": 700}


def _preemption(extra: str = "") -> Cluster:
    return Cluster.from_slurm_conf(
        f"PreemptType=preempt/qos\nPreemptMode=CANCEL\n{extra}"
        "NodeName=n1 CPUs=4 RealMemory=8000\n"
        "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n"
    )


HIGH = (Qos("high", priority=100, preempt=("normal",)),)
LOW_THEN_HIGH = Workload(
    (
        job("low", "-N 1 --exclusive -t 300", submit=0, runtime=3000),
        job("hi", "-N 1 --exclusive -t 20 -q high", submit=40, runtime=600),
    )
)


@pytest.mark.parametrize(
    ("sched_interval", "preempt_at", "hi_start"), [(60, 40.0, 40.0), (-1, 60.0, 90.0)]
)
def test_without_a_main_scheduler_preemption_happens_in_backfill_cycles(
    sched_interval, preempt_at, hi_start
):
    """One node, PreemptType=preempt/qos, PreemptMode=CANCEL; low runs, hi (QOS high, which
    may preempt normal) is submitted at 40 s. With the main scheduler, hi preempts low at
    once and starts at 40. With sched_interval=-1 the backfill cycle preempts (backfill.c
    tests a job with its preemptee candidates and _start_job preempts them): at the cycle
    of 60 s; hi starts at the next cycle, 90 s (low itself started at the cycle of 30 s)."""
    result = simulate(
        _preemption(), LOW_THEN_HIGH, "slurm", qos=HIGH, sched_interval=sched_interval
    )
    assert preempted(result) == [(preempt_at, "low")]
    assert starts(result)["hi"] == hi_start
    if sched_interval == -1:
        assert started_by(result) == {"low": "backfill", "hi": "backfill"}


def test_without_a_main_scheduler_an_exempt_time_ends_at_a_backfill_cycle():
    """PreemptExemptTime=1:30: low (started at the 30 s cycle) may be preempted from 120 s;
    with sched_interval=-1 the backfill cycle of 120 s preempts it and hi starts at 150."""
    cluster = _preemption("PreemptExemptTime=1:30\n")
    result = simulate(cluster, LOW_THEN_HIGH, "slurm", qos=HIGH, sched_interval=-1)
    assert preempted(result) == [(120.0, "low")]
    assert starts(result) == {"low": 30, "hi": 150}


def test_without_a_main_scheduler_a_reservation_job_starts_at_a_backfill_cycle():
    """A job in alice's reservation (n1-n2 from 600 s), submitted at 605 s, starts at once
    with the main scheduler and at the backfill cycle of 630 s without it."""
    resv = Reservation("r", start=600, duration=1200, nodes=("n1", "n2"), users=("alice",))
    jobs = Workload((job("in", "-N 1 --reservation=r -t 10", submit=605, user="alice"),))
    on = simulate(FOUR, jobs, "slurm", reservations=[resv])
    off = simulate(FOUR, jobs, "slurm", reservations=[resv], sched_interval=-1)
    assert starts(on) == {"in": 605}
    assert starts(off) == {"in": 630}


def test_no_main_scheduler_and_no_backfill_start_nothing_and_say_so():
    """bf_interval=-1 and sched_interval=-1: Slurm starts no job. A warning says so, every
    job stays PENDING, and the run ends at the last submission, even with a job waiting on
    another's end (whose priority would otherwise be recalculated for ever)."""
    cluster = Cluster.from_slurm_conf(
        "SchedulerParameters=bf_interval=-1,sched_interval=-1\n"
        "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n"
        "NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
    )
    jobs = Workload(
        (
            job("a", "-N 1 -t 10", submit=0),
            job("b", "-N 1 -t 10 --dependency=afterok:a", submit=5),
        )
    )
    with pytest.warns(UserWarning, match=r"bf_interval=-1 and sched_interval=-1 .* no job"):
        result = simulate(cluster, jobs, "slurm")
    assert result.jobs["State"].tolist() == ["PENDING", "PENDING"]
    assert result.sim.env.now == 5


# -- bf_node_space_size ------------------------------------------------------------------------

T1 = """
name: t
cluster:
  nodes:
    - {name: "gpu[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "gpu[1-4]", default: true, max_time: "5:00:00"}
  settings:
    SchedulerParameters: "bf_interval=30,bf_resolution=60,bf_max_job_test=4%s"
policy: slurm
jobs:
  - {id: r1, submit: 0, runtime: 7200, args: "-N 3 --exclusive -t 1:00:00"}
  - {id: A, submit: 10, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: B, submit: 11, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: C, submit: 12, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: S, submit: 13, runtime: 600, args: "-N 1 --exclusive -t 10:00"}
"""


@pytest.mark.parametrize(("extra", "s_start"), [("", 5400), (",bf_node_space_size=10", 30)])
def test_a_cycle_ends_when_its_map_is_full(extra, s_start):
    """/tmp/qa_bf/t1.py 4: r1 runs on 3 nodes until 3600; A, B, C need all 4 nodes. At the
    30 s cycle A's reservation [3600, 5400) takes the map from 1 record to 3, B's
    [5400, 7200) to 4; at C, 4 records >= bf_node_space_size (bf_max_job_test=4 by default):
    the cycle ends, C keeps its expected start (7200) and nodes, and S, never tested, waits
    for C's end (5400 with true run times). bf_node_space_size=10 leaves room: S backfills
    on the free node at once."""
    result = Scenario.from_dict(yaml.safe_load(T1 % extra)).run()
    assert starts(result)["S"] == s_start
    if not extra:
        squeue = result.squeue(at=ORIGIN + pd.Timedelta(seconds=40)).set_index("JOBID")
        expected = (squeue["START_TIME"] - ORIGIN).dt.total_seconds()
        assert expected[["A", "B", "C"]].tolist() == [3600, 5400, 7200]
        assert pd.isna(squeue.loc["S", "START_TIME"])  # never tested: no expected start
        assert squeue.loc["C", "SCHEDNODES"] == "gpu[1-4]"


@pytest.mark.parametrize(("size", "s_start"), [(5, 60), (6, 30)])
def test_a_whole_node_job_started_by_backfill_holds_records(size, s_start):
    """r1 holds n1-n2 until 3600; W (4 nodes) is planned at 3600: records 1 -> 3. X (1 node,
    --exclusive) backfills at 30 and holds its node in the map from the map's start (0) to
    its end rounded down (600): a record at 0 (record 0 is left empty) and one at 600,
    5 records. V (3 nodes) is planned after W: with bf_node_space_size=5 the cycle ends
    there and S is not tested until the next cycle (60 s); with 6, V's reservation fits and
    S backfills at 30."""
    jobs = Workload(
        (
            job("r1", "-N 2 --exclusive -t 60", submit=0, runtime=3600),
            job("W", "-N 4 --exclusive -t 30", submit=1),
            job("X", "-N 1 --exclusive -t 10", submit=2),
            job("V", "-N 3 --exclusive -t 30", submit=3),
            job("S", "-N 1 --exclusive -t 5", submit=4, runtime=300),
        )
    )
    result = simulate(FOUR, jobs, "slurm", bf_node_space_size=size)
    assert starts(result) == {"r1": 0, "W": 3600, "X": 30, "V": 4200, "S": s_start}


def test_node_space_counts_records_as_backfill_c():
    """The map starts as one record; a reservation inserts one record where it begins and
    one where it ends; one beginning at the map's start leaves record 0 empty (and counts);
    one ending at or beyond the map's end inserts no end record; neighbours that end up
    holding the same nodes are merged (one pair per reservation), and no record comes back."""
    space = NodeSpace(0.0, 600.0, 60.0, 3)
    assert (space.times, space.records) == ([0.0, 600.0], 1)
    space.reserve((0,), 120.0, 240.0)
    assert (space.times, space.records) == ([0.0, 120.0, 240.0, 600.0], 3)
    space.reserve((1,), 0.0, 120.0)  # from the map's start: record 0 is left empty
    assert (space.times, space.records) == ([0.0, 0.0, 120.0, 240.0, 600.0], 4)
    space.reserve((1,), 300.0, 900.0)  # past the map's end: no end record
    assert (space.times, space.records) == ([0.0, 0.0, 120.0, 240.0, 300.0, 600.0], 5)
    space.reserve((0,), 240.0, 300.0)  # [240, 300) now holds n1 as [120, 240): merged
    assert space.times == [0.0, 0.0, 120.0, 300.0, 600.0]
    assert space.records == 5
    assert space.avail.tolist() == [[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 0, 1]]
    assert not space.reachable(0b111, 3, 60.0, 30.0)  # no try leaves three nodes


class _Record:
    def __init__(self, begin, end, bits, next_):
        self.begin, self.end, self.bits, self.next = begin, end, bits, next_


def _add_reservation(space, start, end, resolution, keep):
    """backfill.c ``_add_reservation``, line for line, over its linked array of records;
    returns how many records it inserted."""
    start = max(start, space[0].begin)
    if end < start + resolution:
        end = start + resolution
    placed, one_before, one_after, added, j = False, 0, -1, 0, 0
    while True:
        if space[j].end > start:
            space.append(_Record(start, space[j].end, space[j].bits, space[j].next))
            space[j].end, space[j].next = start, len(space) - 1
            placed, added = True, added + 1
            break
        if space[j].end == start:
            placed = True
            break
        one_before = j
        j = space[j].next
        if j == 0:
            break
    while placed:
        j = space[j].next
        if j == 0:
            break
        if end < space[j].end:
            space.append(_Record(end, space[j].end, space[j].bits, space[j].next))
            space[j].end, space[j].next = end, len(space) - 1
            added += 1
        space[j].bits &= keep
        if end == space[j].end:
            if space[j].next:
                one_after = space[j].next
            break
    i = one_before
    while i != one_after:
        j = space[i].next
        if j == 0:
            break
        if space[i].bits != space[j].bits:
            i = j
            continue
        space[i].end, space[i].next = space[j].end, space[j].next
        break
    return added


@given(
    now=st.integers(0, 300),
    window=st.integers(0, 40),
    reservations=st.lists(
        st.tuples(st.sets(st.integers(0, 3), min_size=1), st.integers(-2, 30), st.integers(-1, 15)),
        max_size=10,
    ),
)
def test_node_space_is_backfill_c_record_for_record(now, window, reservations):
    """Random reservations (4 nodes, 10 s resolution): NodeSpace holds backfill.c's records,
    in order, with the same nodes, and counts its node_space_recs."""
    space = NodeSpace(float(now), window * 10.0, 10.0, 4)
    table = [_Record(space.begin, space.end, 0b1111, 0)]
    records = 1
    for nodes, begin, length in reservations:
        start, end = begin * 10.0, (begin + length) * 10.0
        space.reserve(tuple(sorted(nodes)), start, end)
        records += _add_reservation(table, start, end, 10.0, ~sum(1 << i for i in nodes))
        walk, j = [], 0
        while True:
            walk.append((table[j].begin, table[j].end, table[j].bits))
            j = table[j].next
            if j == 0:
                break
        mine = [
            (space.times[k], space.times[k + 1], space.slots[k]) for k in range(len(space.slots))
        ]
        assert mine == walk
        assert space.records == records


def test_a_continued_cycle_that_would_fill_the_map_is_planned_again():
    """bf_window=10 (minutes): the 30 s cycle's map is [0, 600); A (both nodes, from r1's
    end at 540) reserves [540, 600): 2 records; B, planned at 600, adds none. C arrives at
    45: the cycle of 60 s, over a map [60, 660), would give A an end record at 600 (3
    records) and end at B with bf_node_space_size=3, so C is not tested and waits (660).
    Continuing the 30 s cycle would have tested C and backfilled it at 60; it is planned
    again instead, as a full cycle is. With 4 records C backfills at 60 either way."""
    jobs = Workload(
        (
            job("r1", "-N 1 --exclusive -t 9", submit=0, runtime=540),
            job("A", "-N 2 --exclusive -t 1", submit=1, runtime=60),
            job("B", "-N 2 --exclusive -t 1", submit=2, runtime=60),
            job("C", "-N 1 -t 5", submit=45, runtime=300),
        )
    )
    for size, c_start in ((3, 660), (4, 60)):
        fast = simulate(TWO, jobs, "slurm", bf_window=10, bf_node_space_size=size)
        original = Controller._unchanged
        try:
            Controller._unchanged = lambda self: False  # no cycle continues
            full = simulate(TWO, jobs, "slurm", bf_window=10, bf_node_space_size=size)
        finally:
            Controller._unchanged = original
        assert starts(fast) == starts(full) == {"r1": 0, "A": 540, "B": 600, "C": c_start}


@pytest.mark.parametrize("size", [4, 10])
def test_continued_cycles_equal_full_cycles_with_a_small_map(size, monkeypatch):
    """Continued backfill cycles decide exactly what full cycles do when the map fills
    (the limit bites: the schedules differ from the default's)."""
    from slurmlab.spec.synthetic import ai_workload

    cluster = Cluster.preset("ai")
    workload = ai_workload(300, cluster, seed=2)
    fast = simulate(cluster, workload, "slurm", bf_node_space_size=size)
    with monkeypatch.context() as m:
        m.setattr(Controller, "_unchanged", lambda self: False)
        full = simulate(cluster, workload, "slurm", bf_node_space_size=size)
    columns = ["JobID", "Start", "End", "NodeList", "StartedBy", "Reason"]
    assert fast.jobs[columns].equals(full.jobs[columns])
    assert [j.plans for j in fast.sim.jobs.values()] == [j.plans for j in full.sim.jobs.values()]
    default = simulate(cluster, workload, "slurm")
    assert not fast.jobs["Start"].equals(default.jobs["Start"])


# -- SchedulerParameters checks -------------------------------------------------------------


def _warnings(action) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught]


def test_an_option_slurm_does_not_have_is_named_with_its_file_and_line(tmp_path):
    """``bf_windw=60`` is no Slurm option: Slurm ignores it (bf_window keeps its default)
    and so does slurmlab; the warning says so, names the slurm.conf file and line, and
    the closest option of Slurm's. An option of Slurm's that is not modelled is named so."""
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "ClusterName=t\n"
        "SchedulerType=sched/backfill\n"
        "SchedulerParameters=bf_interval=30,bf_windw=60,bf_one_resv_per_job\n"
        "NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
        "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
    )
    cluster = Cluster.from_slurm_conf(conf)
    said = _warnings(lambda: simulate(cluster, Workload((job("a", "-N 1 -t 5"),)), "slurm"))
    assert f"{conf} line 3: SchedulerParameters bf_windw=60: not a Slurm 22.05 " in said[0]
    assert "Slurm ignores it and so does slurmlab" in said[0]
    assert said[0].endswith("did you mean bf_window?")
    assert said[1].startswith(
        f"{conf} line 3: SchedulerParameters bf_one_resv_per_job: not modelled by slurmlab's "
    )
    assert len(said) == 2


def test_an_inline_scenario_option_is_named_with_its_scenario_line(tmp_path):
    """The same warning for a scenario's inline settings names the scenario file, its line
    and ``cluster.settings.SchedulerParameters``."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: t\n"
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4, memory: 8000}]\n"
        "  partitions: [{name: p, nodes: 'n[1-2]'}]\n"
        "  settings:\n"
        "    SchedulerParameters: bf_interval=30,sched_intervall=60\n"
        "policy: slurm\n"
        "jobs: [{id: a, submit: 0, runtime: 60, args: '-N 1 -t 5'}]\n"
    )
    said = _warnings(lambda: Scenario.load(path).run())
    assert said == [
        f"{path} line 6: cluster.settings.SchedulerParameters: SchedulerParameters "
        "sched_intervall=60: not a Slurm 22.05 SchedulerParameters option: Slurm ignores it "
        "and so does slurmlab (the option meant keeps its default); did you mean "
        "sched_interval?"
    ]


def test_default_queue_depth_zero_tests_one_job():
    """default_queue_depth=0 is valid (job_scheduler.c rejects only < 0) and the main
    scheduler then tests one job: b (partition pb, idle) is second in line behind w, which
    waits, so only the backfill cycle (30 s) starts it; with 1, the main scheduler tests
    two jobs and starts b when it is submitted."""
    for depth, b_start, by in ((0, 30, "backfill"), (1, 2, "main")):
        cluster = Cluster.from_slurm_conf(
            f"SchedulerParameters=default_queue_depth={depth}\n"
            "NodeName=a[1-2] CPUs=4\nNodeName=b1 CPUs=4\n"
            "PartitionName=pa Nodes=a[1-2] Default=YES MaxTime=INFINITE\n"
            "PartitionName=pb Nodes=b1 MaxTime=INFINITE\n"
        )
        jobs = Workload(
            (
                job("r", "-p pa -N 1 --exclusive -t 60", submit=0, runtime=3600),
                job("w", "-p pa -N 2 --exclusive -t 10", submit=1),
                job("b", "-p pb -N 1 -t 10", submit=2),
            )
        )
        result = simulate(cluster, jobs, "slurm")
        assert starts(result)["b"] == b_start
        assert started_by(result)["b"] == by


@pytest.mark.parametrize("written", ["bf_window = 60", "bf_interval=30, bf_window =60"])
def test_an_option_with_a_space_before_its_equals_sign_is_refused(written):
    """Slurm finds ``bf_window=`` in the line (xstrcasestr): ``bf_window = 60`` is not
    found and bf_window keeps its default. slurmlab refuses it, as it refuses other
    malformed values, and says how to write it."""
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(f'SchedulerParameters="{written}"\nNodeName=n1 CPUs=4\n')
    assert str(info.value) == (
        f"slurm.conf line 1: SchedulerParameters {written.split(',')[-1].strip()!r}: Slurm "
        "does not recognise an option with a space before '=' (it looks for 'bf_window=') "
        "and would use its default; write bf_window=60"
    )


@pytest.mark.parametrize("value", ["1", "abc", "2000001"])
def test_bf_node_space_size_is_checked_as_slurm_reads_it(value):
    """bf_node_space_size is a whole number from 2 to 2 x 1000000 (backfill.c)."""
    with pytest.raises(ConfigError, match=r"bf_node_space_size=.* from 2 to 2000000"):
        Cluster.from_slurm_conf(f"SchedulerParameters=bf_node_space_size={value}\nNodeName=n1\n")
    with pytest.raises(SlurmlabError, match=r"bf_node_space_size=1 must be"):
        simulate(FOUR, Workload((job("a", "-N 1 -t 5"),)), "slurm", bf_node_space_size=1)


@SETTINGS
@given(case=scenarios(), size=st.sampled_from([2, 3, 5]), window=st.sampled_from([5, 1440]))
def test_continuing_equals_recomputing_with_a_small_map_on_random_workloads(case, size, window):
    """Random clusters and workloads (arrays, --begin, dependencies) with a map of a few
    records, and a window short enough to move its end: continued cycles decide what full
    ones do."""
    cluster, workload = case
    params = {"bf_node_space_size": size, "bf_window": window}
    fast = simulate(cluster, workload, "slurm", **params)
    original = Controller._unchanged
    try:  # (monkeypatch is function-scoped: hypothesis runs many examples per call)
        Controller._unchanged = lambda self: False
        full = simulate(cluster, workload, "slurm", **params)
    finally:
        Controller._unchanged = original
    columns = ["JobID", "Start", "End", "State", "NodeList", "StartedBy", "Reason"]
    assert fast.jobs[columns].equals(full.jobs[columns])
    history = [(j.id, j.reasons, j.plans) for j in fast.sim.jobs.values()]
    assert history == [(j.id, j.reasons, j.plans) for j in full.sim.jobs.values()]
