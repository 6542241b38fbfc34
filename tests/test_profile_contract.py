"""The availability profiles' contract for reservations at their edges: a reservation of no
length, and one starting before the profile's ``now`` (Profile, MergedProfile, PoolProfile)."""

import numpy as np
import pytest

from slurmlab.policies.placement import Request
from slurmlab.policies.profile import MergedProfile, PoolProfile, Profile

KINDS = [Profile, MergedProfile, PoolProfile]


def two_nodes(kind):
    """Node 0 busy until 10 (node 1 idle; a pool has node 0 alone), and a 1-CPU request."""
    capacity = np.array([[4, 8, 0], [4, 8, 0]])
    if kind is PoolProfile:
        capacity = capacity[:1]
    free = capacity.copy()
    free[0] = 0
    prof = kind(0.0, free, capacity, [(10.0, (0,), capacity[[0]].copy())])
    mask = np.ones(len(capacity), dtype=bool)
    return prof, Request(np.array([1, 1, 0])), mask


def state(prof):
    """Breakpoints and the free (CPUs, MB, GPUs) per interval and node."""
    if isinstance(prof, PoolProfile):
        return list(prof.times), [list(prof.cpu), list(prof.mem), list(prof.gpu)]
    return list(prof.times), prof.per_node().tolist()


def free_at(prof, t):
    """Free (CPUs, MB, GPUs) per node in the (last) interval starting by ``t``."""
    k = max(q for q, b in enumerate(prof.times) if b <= t)
    if isinstance(prof, PoolProfile):
        return [[prof.cpu[k], prof.mem[k], prof.gpu[k]]]
    return prof.per_node()[k].tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_a_job_of_no_length_holds_the_interval_it_starts_in(kind):
    """A reservation of no length holds the interval where it starts, with or without the
    interval its search found (``at``), and giving it back (its usage negated) restores the
    profile: a job of no length fits where that interval has room, so it holds that room."""
    prof, request, mask = two_nodes(kind)
    instants = [0.0, 5.0, 10.0, 11.0, 12.0, 15.0]
    before = [free_at(prof, x) for x in instants]
    i, t, nodes = prof.earliest(request, mask, 0.0, not_before=12.0)
    assert (i, t, nodes) == (1, 12.0, (0,))  # (node 0 from 10 on: the tighter)
    prof.reserve(nodes, request.demand[None], t, t, at=i)
    held = [free_at(prof, x) for x in instants]
    assert prof.times == [0.0, 10.0, 12.0]  # a breakpoint at its start
    for x, got, was in zip(instants, held, before, strict=True):
        if x >= 12.0:  # its CPU and MB taken on node 0 from its start on
            was[0] = [was[0][0] - 1, was[0][1] - 1, 0]
        assert got == was, x
    twin, *_ = two_nodes(kind)
    twin.reserve(nodes, request.demand[None], t, t)  # (no at: the same interval)
    assert state(twin) == state(prof)
    prof.reserve(nodes, -request.demand[None], t, t)  # given back
    assert [free_at(prof, x) for x in instants] == [free_at(twin, x) for x in instants[:4]] + [
        free_at(twin, 11.0)
    ] * 2
    assert prof.valid()


@pytest.mark.parametrize("kind", KINDS)
def test_replanning_a_job_of_no_length_again_and_again_changes_nothing(kind):
    """Compressing a reservation of no length takes out what it holds before putting it back
    (at its earliest fit, never later than it stood): replanned again and again, the job
    keeps its place and the profile stays as after the first replan, with nothing taken
    twice."""
    prof, request, mask = two_nodes(kind)
    i, t, nodes = prof.earliest(request, mask, 0.0, not_before=12.0)
    prof.reserve(nodes, request.demand[None], t, t, at=i)
    usage = request.demand[None]
    first = prof.replan(request, mask, 0.0, t, nodes, usage)
    assert first is not None and first[1] <= t
    after = state(prof)
    for _ in range(3):
        again = prof.replan(request, mask, 0.0, first[1], first[2], usage)
        assert (again[1], again[2]) == (first[1], first[2])
        assert state(prof) == after
    assert prof.valid()


@pytest.mark.parametrize("kind", KINDS)
def test_a_reservation_before_now_is_refused_by_name(kind):
    """A profile knows nothing before its ``now``: a reservation starting earlier raises a
    ValueError naming its start and the profile's now (and how to clip it), and one ending
    before it starts raises too; the profile is left as it was."""
    prof, request, mask = two_nodes(kind)
    prof.advance(5.0)
    before = state(prof)
    with pytest.raises(
        ValueError, match=r"from 2\.0 to 20\.0: starts before the profile's now \(5\.0\)"
    ):
        prof.reserve((0,), request.demand[None], 2.0, 20.0)
    with pytest.raises(
        ValueError, match=r"starts before the profile's now \(5\.0\).*max\(start, now\)"
    ):
        prof.replan(request, mask, 3.0, 1.0, (0,), request.demand[None])
    with pytest.raises(ValueError, match=r"from 8\.0 to 6\.0: ends before it starts"):
        prof.reserve((0,), request.demand[None], 8.0, 6.0, at=1)
    assert state(prof) == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_profile_does_not_advance_back_in_time(kind):
    """``advance`` only moves a profile forward: an instant before its ``now`` raises a
    ValueError naming both, and the profile is left as it was."""
    prof, _request, _mask = two_nodes(kind)
    prof.advance(5.0)
    before = state(prof)
    with pytest.raises(ValueError, match=r"advance\(2\.0\): before the profile's now \(5\.0\)"):
        prof.advance(2.0)
    assert state(prof) == before
    prof.advance(5.0)  # (the same instant: nothing changes)
    assert state(prof) == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_reservation_standing_at_now_stands_in_the_last_interval_starting_then(kind):
    """With a running job past its limit, two intervals start at ``now`` (the second counts
    that job's resources free). A plan found in the first starts now; one standing at ``now``
    waits for the overdue job, in the second, where ``reserve`` without ``at`` puts it and
    ``replan`` takes it out: replanned again and again, a job of no length waiting there
    stays, and the room the job started now holds in that interval is not given away."""
    one = Request(np.array([1, 1, 0]))

    def overdue():
        """Node 0 idle, node 1 held by a job past its limit (a pool: 1 CPU of 2 held); a job
        started now on the idle one for 10 s."""
        capacity = np.array([[1, 1, 0], [1, 1, 0]])
        if kind is PoolProfile:
            capacity = capacity[:1] * 2
        free = capacity.copy()
        free[-1] -= [1, 1, 0]  # (its expected end 5, now 10)
        prof = kind(10.0, free, capacity, [(5.0, (len(free) - 1,), np.array([[1, 1, 0]]))])
        mask = np.ones(len(capacity), dtype=bool)
        started = prof.earliest(one, mask, 10.0)
        assert started[:2] == (0, 10.0)  # (it fits in the first interval: it starts now)
        prof.reserve(started[2], one.demand[None], 10.0, 20.0, at=0)
        return prof, mask

    prof, mask = overdue()
    i, t, nodes = prof.earliest(one, mask, 0.0)  # (it waits for the overdue job's CPU)
    assert (i, t) == (1, 10.0) and prof.times[:2] == [10.0, 10.0]
    prof.reserve(nodes, one.demand[None], t, t, at=i)
    twin, _ = overdue()
    twin.reserve(nodes, one.demand[None], t, t)  # (no at: the same, last, interval)
    assert state(twin) == state(prof)
    after = state(prof)
    for _ in range(3):
        assert prof.replan(one, mask, 0.0, t, nodes, one.demand[None])[:3] == (i, t, nodes)
        assert state(prof) == after and prof.valid()


@pytest.mark.parametrize("kind", [Profile, MergedProfile])
def test_a_search_up_to_an_interval_sees_the_window_a_later_start_reaches(kind):
    """``earliest(upto=i, not_before=t)``: a start moved to ``t`` within interval ``i`` runs
    until ``t`` + its duration, so the search sees the intervals up to there. Both nodes are
    reserved from 20 s: a 10-s job not before 15 s does not fit in interval 0 (its window
    reaches the reservation), so none fits up to it."""
    capacity = np.array([[4, 8, 0], [4, 8, 0]])
    prof = kind(0.0, capacity.copy(), capacity, [])
    prof.reserve((0, 1), capacity.copy(), 20.0, 30.0)
    mask = np.ones(2, dtype=bool)
    request = Request(np.array([1, 1, 0]))
    assert prof.earliest(request, mask, 10.0, not_before=15.0) == (2, 30.0, (0,))
    assert prof.earliest(request, mask, 10.0, upto=0, not_before=15.0) is None
    assert prof.earliest(request, mask, 10.0, upto=0, not_before=5.0) == (0, 5.0, (0,))
