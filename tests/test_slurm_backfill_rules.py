"""The ``slurm`` policy's backfill cycle, rule by rule, as backfill.c plans (Slurm 22.05).

Checked against real Slurm in datasets/realslurm (``backfill-mix``, ``backfill-limits``):
a planned job reserves its nodes from its start rounded *down* to ``bf_resolution``; its
expected start is not rounded; a job beyond ``bf_window`` shows an expected start but holds
nothing; a job the reservations leave no room for at any try is passed over without
counting toward ``bf_max_job_test``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slurmlab.policies.nodespace import NodeSpace, node_bits
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

#: Two 4-CPU nodes; backfill every 30 s on a 60 s grid unless a test says otherwise.
TWO = Cluster.from_slurm_conf(
    "NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
    "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=INFINITE\n"
)
ORIGIN = pd.Timestamp("2026-01-05 00:00:00")


def job(id: str, args: str, submit: float, runtime: float = 60) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id)


def run(*jobs: WorkloadJob, **params):
    return simulate(TWO, Workload(jobs), "slurm", **params)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"], result.seconds("Start")))


def expected_start(result, jobid: str, at: float) -> float | None:
    """squeue --start's START_TIME of ``jobid`` at ``at``, in seconds (None: not set)."""
    q = result.squeue(at=ORIGIN + pd.Timedelta(seconds=at)).set_index("JOBID")
    value = q.loc[jobid, "START_TIME"]
    return None if pd.isna(value) else (value - ORIGIN).total_seconds()


def blocked_wide_job(*candidates: WorkloadJob, **params):
    """``a`` holds n1 until its limit (425 s); ``wide`` needs both nodes and is planned at
    425, reserving them from 420 (bf_resolution 60); n2 is free until then."""
    return run(
        job("a", "-N 1 --exclusive -t 7", submit=5, runtime=1000),
        job("wide", "-N 2 --exclusive -t 10", submit=6),
        *candidates,
        **params,
    )


def test_a_reservation_starts_at_the_planned_start_rounded_down():
    """With backfill every 5 s, a 6-minute job tested at 65 s would end at 425 s, after the
    slot of the wide job's planned start (420) began: it waits, though it would end by the
    start itself. A 5-minute one (ending at 365) backfills then. The wide job's expected
    start is the exact 425 (limits are whole minutes, as sbatch rounds them)."""
    result = blocked_wide_job(
        job("ends_425", "-N 1 -t 6", submit=62),
        job("ends_365", "-N 1 -t 5", submit=63),
        bf_interval=5,
    )
    got = starts(result)
    assert got["ends_365"] == 65
    assert got["ends_425"] >= got["wide"] == 425
    assert expected_start(result, "wide", at=66) == 425


def test_a_job_planned_beyond_bf_window_shows_its_start_and_holds_nothing():
    """With bf_window=5 (minutes) the wide job's start (425 s) is beyond the window at the
    first cycle (30 + 300 s): squeue --start still shows it, but nothing is reserved, so a
    job ending long after it backfills on the free node and delays it."""
    result = blocked_wide_job(job("long", "-N 1 -t 30", submit=7, runtime=900), bf_window=5)
    assert expected_start(result, "wide", at=31) == 425
    got = starts(result)
    assert got["long"] == 30
    assert got["wide"] == 930  # after long's true end


@pytest.mark.parametrize(("max_test", "short_start"), [(2, 30), (1, 660)])
def test_a_job_left_no_room_by_the_reservations_is_not_counted(max_test, short_start):
    """bf_window=15: x1 is planned on both nodes from a's limit (600 s) to the window's end
    (900 s). d (20 minutes) would overlap that reservation wherever it starts within the
    window, and no later slot frees a node: backfill.c passes it over before its test, so
    it does not count toward bf_max_job_test. With bf_max_job_test=2, short is the second
    job tested and backfills at the first cycle; with 1, it is never tested and waits for
    x1 to finish (600 + 60 s)."""
    result = run(
        job("a", "-N 1 --exclusive -t 10", submit=0, runtime=600),
        job("x1", "-N 2 --exclusive -t 5", submit=1),
        job("d", "-N 1 --exclusive -t 20", submit=2),
        job("short", "-N 1 --exclusive -t 5", submit=3),
        bf_window=15,
        bf_max_job_test=max_test,
    )
    assert starts(result)["short"] == short_start
    assert expected_start(result, "d", at=31) is None  # never tested: no expected start
    assert expected_start(result, "x1", at=31) == 600


def walk(space, usable, start, end):
    """backfill.c's TRY_LATER walk over node_space, transcribed slot by slot: the next try
    starts at the end of the slot holding this one's start. (Some releases skip a slot whose
    next one frees no node; Slurm 22.05 does not: in the real fixture accounts-qos it planned
    jobs queued behind back-to-back reservations of the whole partition.)"""
    avail, later = usable.copy(), None
    times, slots = space.times, space.avail
    for k in range(len(slots)):
        if later is None and times[k + 1] > start and k + 1 < len(slots):
            later = times[k + 1]
        if times[k + 1] <= start:
            continue
        if times[k] > end:
            break
        avail &= slots[k]
    return avail, later


def reservations_on(nodes: int, most: int):
    """Random reservations on a map of ``nodes`` nodes and 10 s slots: (node set, first
    slot, slots)."""
    return st.lists(
        st.tuples(
            st.sets(st.integers(0, nodes - 1), min_size=1),
            st.integers(0, 40),
            st.integers(1, 20),
        ),
        max_size=most,
    )


@given(
    reservations=reservations_on(5, 8),
    usable=st.lists(st.booleans(), min_size=5, max_size=5),
    start=st.integers(0, 45),
    limit=st.integers(0, 30),
)
def test_the_node_space_walk_matches_backfill_c(reservations, usable, start, limit):
    """NodeSpace.free_over (bitmasks) gives what the slot-by-slot walk of backfill.c gives,
    on random maps (5 nodes, 10 s slots, a 400 s window)."""
    space = NodeSpace(0.0, 400.0, 10.0, 5)
    for nodes, begin, length in reservations:
        space.reserve(sorted(nodes), begin * 10.0, (begin + length) * 10.0)
    mask = np.array(usable)
    start, end = start * 10.0 + 3, start * 10.0 + 3 + limit * 10.0
    got_avail, got_later = space.free_over(node_bits(mask), start, end)
    want_avail, want_later = walk(space, mask, start, end)
    assert got_avail == node_bits(want_avail)
    assert got_later == want_later


@given(
    reservations=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 20)), max_size=8),
    start=st.integers(0, 45),
    limit=st.integers(0, 30),
)
def test_the_one_node_walk_matches_the_general_one(reservations, start, limit):
    """A one-node map (SWF pools) answers reachable() on its plain list as the general walk
    does on a two-node map whose second node is never usable: asked between reservations
    too, as a cycle does (the one-node map keeps its runs of free slots up to date)."""
    one = NodeSpace(0.0, 400.0, 10.0, 1)
    two = NodeSpace(0.0, 400.0, 10.0, 2)
    now = start * 10.0 + 3
    limits = sorted({limit * 10.0, 0.0, 5.0, 95.0, 200.0})

    def same():
        for lim in limits:
            got = one.reachable(node_bits([True]), 1, lim, now)
            assert got == two.reachable(node_bits([True, False]), 1, lim, now), lim

    same()
    for begin, length in reservations:
        one.reserve([0], begin * 10.0, (begin + length) * 10.0)
        two.reserve([0], begin * 10.0, (begin + length) * 10.0)
        same()


@given(
    reservations=reservations_on(6, 10),
    usable=st.lists(st.booleans(), min_size=6, max_size=6),
    count=st.integers(1, 6),
    now=st.integers(0, 450),
    limit=st.integers(0, 500),
)
def test_the_walk_that_skips_tries_reaches_what_the_full_walk_reaches(
    reservations, usable, count, now, limit
):
    """Without advance reservations, reachable() skips the tries that must fail (after a
    slot that alone leaves too few nodes); it answers as the walk that makes every try (the
    general path, taken here with an advance reservation long past)."""
    space = NodeSpace(0.0, 400.0, 10.0, 6)
    past = [(-100.0, -50.0, 0b111111)]  # over before any try: changes nothing
    bits = node_bits(np.array(usable))

    def same():
        got = space.reachable(bits, count, float(limit), float(now))
        assert got == space.reachable(bits, count, float(limit), float(now), past)

    same()
    for nodes, begin, length in reservations:
        space.reserve(sorted(nodes), begin * 10.0, (begin + length) * 10.0)
        same()


def test_node_space_bitmasks():
    """Node sets are int bitmasks (bit i: node i); ``avail`` shows the map as booleans."""
    assert node_bits([True, False, True]) == 0b101
    assert node_bits(np.zeros(70, dtype=bool)) == 0
    assert node_bits(np.ones(70, dtype=bool)) == (1 << 70) - 1  # past 64 nodes too
    space = NodeSpace(0.0, 100.0, 10.0, 3)
    space.reserve((0, 2), 20.0, 40.0)
    assert space.times == [0.0, 20.0, 40.0, 100.0]
    assert space.avail.tolist() == [[True] * 3, [False, True, False], [True] * 3]
    assert space.free_over(0b111, 25.0, 30.0) == (0b010, 40.0)
    assert space.reachable(0b111, 2, 10.0, 0.0)  # from 0 to 10: all three free
    assert space.reachable(0b101, 1, 85.0, 5.0)  # from 40 on (past the map's end: free)
    space.reserve((0, 2), 40.0, 100.0)  # now held to the end of the map: no try is left
    assert not space.reachable(0b101, 1, 85.0, 5.0)
    assert space.reachable(0b111, 1, 85.0, 5.0)  # node 1 stays free
