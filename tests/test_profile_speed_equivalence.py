"""The fast :class:`Profile` and ``choose_nodes`` give bit-identical answers to the originals.

``RefProfile`` and its helpers below are frozen copies of the implementations before they
were optimised; ``ref_choose_nodes`` transcribes Slurm's own node selection line by line
(the implementation in placement.py works on runs of nodes instead). Hypothesis drives both
through random small clusters, profiles and operation sequences and compares every answer
and the state after every operation. Jobs ask for at least one node (``count >= 1``), as
every job does.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab.policies import profile as profile_module
from slurmlab.policies.backfill import _undisturbed
from slurmlab.policies.base import CPU, MEM, PendingJob, QueueView
from slurmlab.policies.placement import Request, choose_nodes
from slurmlab.policies.profile import PoolProfile, Profile

# --- frozen reference (the original implementation) -------------------------------------

_MIN = np.minimum.reduce
_ALL = np.logical_and.reduce


def _all3(a: np.ndarray) -> np.ndarray:
    return _ALL(a, axis=-1)


def ref_fitting_mask(
    free: np.ndarray, capacity: np.ndarray, demand: np.ndarray, mask: np.ndarray, exclusive: bool
) -> np.ndarray:
    """Boolean per node: the job's per-node demand fits in ``free`` there."""
    ok = mask & _ALL(free >= demand, axis=1)
    if exclusive:
        ok &= _ALL(free == capacity, axis=1)
    return ok


def ref_choose_nodes(
    free: np.ndarray,
    capacity: np.ndarray,
    demand: np.ndarray,
    count: int,
    mask: np.ndarray,
    exclusive: bool = False,
    weights: np.ndarray | None = None,
    mem_per_cpu: int = 0,
) -> tuple[int, ...] | None:
    """Slurm's node selection, transcribed line by line from ``_eval_nodes`` in
    src/plugins/select/cons_tres/job_test.c (22.05; no required nodes, not contiguous, GRES
    per node): the table of consecutive node sets, the best-fit set, the single node of
    fewest available CPUs, or the set's nodes in order. ``avail`` is ``avail_cpus`` of
    ``can_job_run_on_node``: free CPUs, as far as free memory goes for memory per CPU."""
    if len(free) == 1:  # a one-node pool (SWF traces): skip numpy's per-call overhead
        f, d = free[0], demand
        if count != 1 or not mask[0] or f[0] < d[0] or f[1] < d[1] or f[2] < d[2]:
            return None
        if exclusive and not (f == capacity[0]).all():
            return None
        return (0,)
    node_map = ref_fitting_mask(free, capacity, demand, mask, exclusive).tolist()
    n = len(free)
    weight = [0] * n if weights is None else [int(w) for w in weights]
    avail = [int(c) for c in free[:, CPU]]
    if mem_per_cpu:
        avail = [min(c, int(m) // mem_per_cpu) for c, m in zip(avail, free[:, MEM].tolist())]
    avail_cpu_per_node = [a if ok else 0 for a, ok in zip(avail, node_map)]
    # Build table with information about sets of consecutive nodes
    consec_cpus, consec_nodes, consec_start, consec_end = [0], [0], [0], [0]
    consec_weight: list = [None]  # NO_VAL64
    ci = 0

    def new_set():
        for a in (consec_cpus, consec_nodes, consec_start, consec_end):
            a.append(0)
        consec_weight.append(None)

    for i in range(n):
        usable = node_map[i]
        if (
            usable
            and consec_weight[ci] is not None
            and weight[i] != consec_weight[ci]
            and consec_nodes[ci] != 0
        ):  # end last set, set up the next
            consec_end[ci] = i - 1
            ci += 1
            new_set()
        if usable:
            if consec_nodes[ci] == 0:
                consec_start[ci] = i
            consec_cpus[ci] += avail_cpu_per_node[i]
            consec_nodes[ci] += 1
            consec_weight[ci] = weight[i]
        elif consec_nodes[ci] == 0:
            consec_weight[ci] = None
        else:
            consec_end[ci] = i - 1
            ci += 1
            new_set()
    if consec_nodes[ci] != 0:
        consec_end[ci] = n - 1
        ci += 1
    rem_cpus = count * int(demand[CPU])
    rem_nodes = max_nodes = count
    selected: set[int] = set()
    success = False
    while ci and max_nodes > 0:
        best_fit_cpus = best_fit_nodes = best_fit_sufficient = 0
        best_fit_index, best_weight = 0, None
        for i in range(ci):
            if consec_nodes[i] == 0:
                continue
            sufficient = consec_cpus[i] >= rem_cpus and consec_nodes[i] >= rem_nodes
            new_best = best_fit_nodes == 0 or consec_weight[i] < best_weight
            if (
                not new_best
                and consec_weight[i] == best_weight
                and (
                    (sufficient and best_fit_sufficient == 0)
                    or (sufficient and consec_cpus[i] < best_fit_cpus)
                    or (not sufficient and consec_cpus[i] > best_fit_cpus)
                )
            ):
                new_best = True
            if new_best:
                best_fit_cpus, best_fit_nodes = consec_cpus[i], consec_nodes[i]
                best_fit_index, best_fit_sufficient = i, sufficient
                best_weight = consec_weight[i]
        if best_fit_nodes == 0:
            break
        first, last = consec_start[best_fit_index], consec_end[best_fit_index]
        if rem_nodes <= 1:  # no required nodes, try best fit single node
            best_fit, best_size = -1, 0
            for i in range(first, last + 1):
                if i in selected or not node_map[i]:
                    continue
                if avail_cpu_per_node[i] < rem_cpus:
                    continue
                if best_fit == -1 or avail_cpu_per_node[i] < best_size:
                    best_fit, best_size = i, avail_cpu_per_node[i]
                    if best_size == rem_cpus:
                        break
            if best_fit != -1:  # clear CPU counts for all other nodes
                for i in range(first, last + 1):
                    if i != best_fit:
                        avail_cpu_per_node[i] = 0
        for i in range(first, last + 1):
            if max_nodes == 0 or (rem_nodes <= 0 and rem_cpus <= 0):
                break
            if i in selected or not node_map[i]:
                continue
            cpus = avail_cpu_per_node[i]
            if cpus <= 0:
                continue
            if max_nodes == 1 and cpus < rem_cpus:
                continue
            selected.add(i)
            rem_cpus -= cpus
            rem_nodes -= 1
            max_nodes -= 1
        if rem_nodes <= 0 and rem_cpus <= 0:
            success = True
            break
        consec_cpus[best_fit_index] = consec_nodes[best_fit_index] = 0
    return tuple(sorted(selected)) if success else None


class RefProfile:
    """Free (CPUs, MB, GPUs) per node as a step function of time, from ``now`` on.

    Running jobs whose expected end is not after ``now`` (a trace job running past
    its limit "may end at any moment") are released at ``now`` in a second interval
    that starts at the same instant: planning may count on them, starting now may not.
    """

    __slots__ = ("capacity", "free", "now", "times")

    def __init__(
        self,
        now: float,
        free: np.ndarray,
        capacity: np.ndarray,
        releases: Iterable[tuple[float, tuple[int, ...], np.ndarray]] = (),
    ):
        self.now = now
        self.capacity = capacity
        rel = sorted(
            ((max(t, now), nodes, usage) for t, nodes, usage in releases), key=lambda r: r[0]
        )
        if not rel:
            self.times = [now]
            self.free = free[None].copy()
            return
        delta = np.zeros((len(rel), *free.shape), dtype=free.dtype)
        for k, (_t, nodes, usage) in enumerate(rel):
            delta[k, list(nodes)] += usage
        cum = free + np.cumsum(delta, axis=0)
        rtimes = [r[0] for r in rel]
        # keep the last release of each instant; releases at `now` form a second interval
        last = [k for k in range(len(rel)) if k + 1 == len(rel) or rtimes[k + 1] != rtimes[k]]
        self.times = [now] + [rtimes[k] for k in last]
        self.free = np.concatenate([free[None], cum[last]])

    def advance(self, now: float) -> None:
        """Start the profile at ``now``, dropping the intervals that ended by then."""
        k = bisect_right(self.times, now) - 1
        if k > 0:
            del self.times[:k]
            self.free = self.free[k:]
        self.times[0] = self.now = now

    def _drop(self, i: int, j: int) -> None:
        self.free = np.delete(self.free, np.s_[i:j], axis=0)

    def _window(self, i: int, end: float) -> np.ndarray:
        j = max(bisect_left(self.times, end, lo=i), i + 1)
        return self.free[i] if j == i + 1 else _MIN(self.free[i:j], axis=0)

    def fits(
        self,
        demand: np.ndarray,
        count: int,
        mask: np.ndarray,
        duration: float,
        *,
        at: int = 0,
        exclusive: bool = False,
        mem_per_cpu: int = 0,
    ) -> tuple[int, ...] | None:
        """Nodes on which the job fits from interval ``at`` for ``duration`` seconds, or None."""
        window = self._window(at, self.times[at] + duration)
        return ref_choose_nodes(
            window, self.capacity, demand, count, mask, exclusive, mem_per_cpu=mem_per_cpu
        )

    def earliest(
        self,
        demand: np.ndarray,
        count: int,
        mask: np.ndarray,
        duration: float,
        *,
        exclusive: bool = False,
        not_before: float | None = None,
        mem_per_cpu: int = 0,
    ) -> tuple[int, float, tuple[int, ...]] | None:
        """The first (interval index, start time, nodes) where the job fits; None if never."""
        times = np.array(self.times)
        n = len(times)
        idx = np.arange(n)
        starts, valid = times, None
        if not_before is not None:
            starts = np.maximum(times, not_before)
            k = np.searchsorted(times, starts, side="right") - 1
            valid = (starts == times) | (k == idx)  # else a later breakpoint covers it
        # node n fits in interval q; a window fits where no interval in it is bad
        ok = _all3(self.free >= demand)
        if exclusive:
            ok &= _all3(self.free == self.capacity)
        bad = np.zeros((n + 1, ok.shape[1]), dtype=np.int64)
        np.cumsum(~ok, axis=0, out=bad[1:])
        ends = np.searchsorted(times, starts + duration, side="left")
        np.maximum(ends, idx + 1, out=ends)
        clean = bad[ends] == bad[:n]
        clean &= mask
        fit = np.count_nonzero(clean, axis=1) >= count
        if valid is not None:
            fit &= valid
        for i in np.flatnonzero(fit):  # the first hit nearly always gives the nodes at once
            i = int(i)
            t = float(starts[i])
            nodes = self._fits_from(i, t, duration, demand, count, mask, exclusive, mem_per_cpu)
            if nodes is not None:
                return i, t, nodes
        return None

    def _fits_from(self, i, t, duration, demand, count, mask, exclusive, mem_per_cpu):
        j = max(bisect_left(self.times, t + duration, lo=i), i + 1)
        window = self.free[i] if j == i + 1 else _MIN(self.free[i:j], axis=0)
        return ref_choose_nodes(
            window, self.capacity, demand, count, mask, exclusive, mem_per_cpu=mem_per_cpu
        )

    def valid(self) -> bool:
        """No node is short of any resource at any time (reservations all fit)."""
        return bool((self.free >= 0).all())

    def _split(self, t: float) -> int:
        """Ensure an interval starts at ``t`` (after any interval already starting there)."""
        k = bisect_right(self.times, t)
        if self.times[k - 1] == t:
            return k - 1
        self.times.insert(k, t)
        f = self.free  # np.insert costs several times more for these small arrays
        self.free = np.concatenate((f[:k], f[k - 1 : k], f[k:]))
        return k

    def reserve(
        self,
        nodes: tuple[int, ...],
        usage: np.ndarray,
        start: float,
        end: float,
        *,
        at: int | None = None,
    ) -> None:
        """Take ``usage`` (per node) on ``nodes`` from ``start`` until ``end`` (``inf``: forever)."""
        i, j = _ref_span(self, start, end, at)
        idx = list(nodes)
        self.free[i:j, idx, :] -= usage


def _ref_span(prof, start: float, end: float, at: int | None) -> tuple[int, int]:
    """The intervals [i, j) a reservation from ``start`` to ``end`` covers (split as needed).

    ``at`` names the interval a planned start was found in (several intervals may start at
    ``now``; without it, the last of them); a zero-length reservation covers that one interval.
    """
    i = prof._split(start) if at is None or prof.times[at] != start else at
    j = len(prof.times) if math.isinf(end) else prof._split(end)
    if j <= i:
        j = i + 1
    return i, j


# --- the comparison ---

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

times_st = st.integers(0, 120).map(lambda k: k / 4)  # quarter seconds: exact in floats
spans_st = st.one_of(times_st, st.just(math.inf))


@st.composite
def clusters(draw):
    """Capacity (nodes x 3) of 1-12 nodes; some with GPUs."""
    n = draw(st.integers(1, 12))
    cpus = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    mem = draw(st.lists(st.integers(1, 16), min_size=n, max_size=n))
    gpus = draw(st.lists(st.sampled_from([0, 0, 2, 4]), min_size=n, max_size=n))
    return np.array([cpus, mem, gpus], dtype=np.int64).T.copy()


def amounts(draw, limits, sign=1):
    """Per-node amounts (len(limits) x 3) up to ``limits``, often zero or all of it."""
    flat = limits.ravel().tolist()
    picks = draw(st.lists(st.integers(0, 3), min_size=len(flat), max_size=len(flat)))
    rows = [[0, c, c // 2, c + 1][p] if p else 0 for c, p in zip(flat, picks)]
    return sign * np.array(rows, dtype=np.int64).reshape(limits.shape)


def node_sets(draw, n):
    return tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))))


def job(draw, capacity):
    """(demand, count, mask, duration) of a random job; jobs ask for at least one node and
    one CPU on each (Slurm leaves a node without a free CPU out of a job's candidates)."""
    n = len(capacity)
    top = capacity.max(axis=0).tolist()
    demand = np.array([draw(st.integers(min(1, c), c)) for c in top], dtype=np.int64)
    count = draw(st.integers(1, min(n + 1, 4)))
    mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)) or [True] * n)
    mask |= draw(st.booleans())  # often every node may be used
    return demand, count, mask, draw(spans_st)


def per_cpu(draw, demand):
    """Memory per CPU for ``demand``, which is made to ask for that much per CPU (as the
    engine's jobs with --mem-per-cpu or DefMemPerCPU do)."""
    mpc = draw(st.integers(1, 3))
    demand[MEM] = mpc * demand[CPU]
    return mpc


def profile_args(draw, capacity):
    """(now, free, releases): running jobs release their nodes at random times."""
    now = draw(times_st)
    free = capacity - amounts(draw, capacity)
    releases = []
    for _ in range(draw(st.integers(0, 16))):
        nodes = node_sets(draw, len(capacity))
        releases.append((draw(spans_st), nodes, amounts(draw, capacity[list(nodes)])))
    return now, free, releases


def assert_same_state(ref, new):
    assert repr(ref.times) == repr(new.times)
    assert ref.now == new.now
    assert ref.free.dtype == new.free.dtype and ref.free.shape == new.free.shape
    assert np.array_equal(ref.free, new.free)
    assert ref.valid() == new.valid()


#: the keywords of a job's search in the reference that slurmlab's profiles take in its Request
PLACEMENT = ("exclusive", "mem_per_cpu")


def run_op(prof, kind, args, kw):
    """Apply an operation to ``prof``; return its answer (or the error it raises). A job's
    search is drawn as the reference takes it, its (demand, count, mask, duration) and
    keywords; slurmlab's profiles take (its :class:`Request`, mask, duration)."""
    if kind in ("fits", "earliest") and not isinstance(prof, RefProfile):
        demand, count, *rest = args
        args = (Request(demand, count, **{k: kw[k] for k in PLACEMENT if k in kw}), *rest)
        kw = {k: v for k, v in kw.items() if k not in PLACEMENT}
    try:
        return getattr(prof, kind)(*args, **kw)
    except ValueError as e:
        return f"ValueError: {e}"


def draw_op(draw, ref, capacity):
    """A random operation (method name, args, kwargs) valid on the profile ``ref``."""
    kind = draw(st.sampled_from(["fits", "earliest", "earliest", "reserve", "advance"]))
    if kind == "reserve":
        nodes = node_sets(draw, len(capacity))
        usage = amounts(draw, capacity[list(nodes)], sign=draw(st.sampled_from([1, -1, 0])))
        start = max(draw(times_st), ref.now)  # a reservation never starts in the past
        at = draw(st.none() | st.integers(0, len(ref.times) - 1))
        if at is not None and draw(st.booleans()):
            start = ref.times[at]
        return kind, (nodes, usage, start, start + draw(spans_st)), {"at": at}
    if kind == "advance":  # to a breakpoint or a little after one
        t = ref.times[draw(st.integers(0, len(ref.times) - 1))]
        if math.isinf(t):
            t = ref.times[0]
        return kind, (max(t, ref.now) + draw(st.sampled_from([0, 0, 0.25])),), {}
    args = job(draw, capacity)
    kw = {"exclusive": draw(st.booleans())}
    if draw(st.booleans()):  # memory per CPU: a node's CPUs count as far as its memory goes
        kw["mem_per_cpu"] = per_cpu(draw, args[0])
    if kind == "fits":
        kw["at"] = draw(st.integers(0, len(ref.times) - 1))
        return kind, args, kw
    if draw(st.booleans()):
        kw["not_before"] = draw(times_st)
    return kind, args, kw


@given(st.data())
@SETTINGS
def test_profile_matches_reference(data):
    draw = data.draw
    capacity = draw(clusters())
    now, free, releases = profile_args(draw, capacity)
    ref = RefProfile(now, free.copy(), capacity, releases)
    new = Profile(now, free.copy(), capacity, releases)
    assert_same_state(ref, new)
    # 0 and 1 send earliest to its vectorised search at once
    tries = draw(st.sampled_from([0, 1, profile_module._TRIES]))
    with mock.patch.object(profile_module, "_TRIES", tries):
        for _ in range(draw(st.integers(1, 20))):
            kind, args, kw = draw_op(draw, ref, capacity)
            got = run_op(ref, kind, args, kw)
            assert repr(run_op(new, kind, args, kw)) == repr(got), (kind, args, kw)
            assert_same_state(ref, new)
            if kind == "earliest" and got is not None and draw(st.booleans()):
                i, t, nodes = got  # reserve the slot found, as the policies do
                usage = np.broadcast_to(args[0], (len(nodes), 3))
                for prof in (ref, new):
                    prof.reserve(nodes, usage, t, t + args[3], at=i)
                assert_same_state(ref, new)


@given(st.data())
@SETTINGS
def test_choose_nodes_matches_reference(data):
    draw = data.draw
    capacity = draw(clusters())
    free = capacity - amounts(draw, capacity)
    demand, count, mask, _ = job(draw, capacity)
    count = draw(st.integers(1, len(capacity) + 1)) if draw(st.booleans()) else count
    exclusive = draw(st.booleans())
    weights = None  # Weight: a few levels, often in runs (as slurm.conf lines give them)
    if draw(st.booleans()):
        levels = draw(st.lists(st.integers(1, 3), min_size=1, max_size=len(capacity)))
        weights = np.array((levels * len(capacity))[: len(capacity)], dtype=np.int64)
        weights.sort() if draw(st.booleans()) else None
    mpc = per_cpu(draw, demand) if draw(st.booleans()) else 0
    expected = ref_choose_nodes(free, capacity, demand, count, mask, exclusive, weights, mpc)
    got = choose_nodes(free, capacity, Request(demand, count, exclusive, mpc), mask, weights)
    assert repr(got) == repr(expected)


@given(st.data())
@SETTINGS
def test_ranked_quick_reject_never_rejects_a_job_that_fits(data):
    """Policies skip best fit for a job of N nodes unless N up nodes each have enough of
    every resource (``QueueView.free_ranks``, ``PendingJob.may_fit``). The check must be
    necessary: whenever best fit finds nodes, it passes."""
    draw = data.draw
    capacity = draw(clusters())
    n = len(capacity)
    free = np.maximum(capacity - amounts(draw, capacity), 0)
    up = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    demand, count, mask, _ = job(draw, capacity)
    if draw(st.booleans()):  # mostly a job that fits: at most what `count` nodes have free
        chosen = draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))
        count = len(chosen)
        demand = free[sorted(chosen)].min(axis=0) - np.array(
            [draw(st.integers(0, 2)) for _ in range(3)]
        )
        demand = np.maximum(demand, 0)
    exclusive = draw(st.booleans())
    view = QueueView(0.0, (), (), free, capacity, up, [f"n{i}" for i in range(len(capacity))])
    ranks = view.free_ranks()
    pending = PendingJob(1, "p", demand, count, mask, 60.0, exclusive, need=tuple(demand.tolist()))
    if choose_nodes(free, capacity, pending.request, mask & up) is not None:
        assert pending.may_fit(ranks)
    for r, amounts_r in enumerate(ranks):  # each sorted, over the up nodes only
        assert amounts_r == sorted(free[up, r].tolist())


# --- the one-node pool: PoolProfile against Profile ---------------------------------------


def pool_state(prof):
    """(times, free rows, valid) of a Profile or a PoolProfile, in one comparable form."""
    if isinstance(prof, PoolProfile):
        rows = [list(r) for r in zip(prof.cpu, prof.mem, prof.gpu, strict=True)]
    else:
        rows = prof.free[:, 0, :].tolist()
    return [float(t) for t in prof.times], rows, prof.valid(), prof.now


def same_answer(a, b) -> bool:
    """Equal answers, an int start time equal to the same float one."""
    if isinstance(a, tuple) and len(a) == 3 and isinstance(a[2], tuple):
        return a[0] == b[0] and float(a[1]) == float(b[1]) and a[2] == b[2]
    return a == b


@given(st.data())
@SETTINGS
def test_pool_profile_matches_profile(data):
    """The plain-Python pool profile (traces' one-node machine) answers like Profile, after
    any sequence of reservations (positive, released, zero), advances and searches; with
    memory or GPUs short somewhere too (its CPU-only shortcut must then step aside)."""
    draw = data.draw
    capacity = draw(clusters().filter(lambda c: len(c) == 1) | clusters().map(lambda c: c[:1]))
    now, free, releases = profile_args(draw, capacity)
    ref = Profile(now, free.copy(), capacity, releases)
    pool = PoolProfile(now, free.copy(), capacity, releases)
    assert pool_state(pool) == pool_state(ref)
    standing = []  # reservations placed as conservative places them: (args, kw, t, nodes)
    for _ in range(draw(st.integers(1, 25))):
        # compress a standing reservation not yet begun, as conservative does every pass
        # (in a real state: nothing short, and no node freer than it is big)
        ahead = [k for k, r in enumerate(standing) if r[2] >= ref.now]
        real = ref.valid() and (ref.free <= capacity).all()
        if ahead and real and draw(st.booleans()):
            k = draw(st.sampled_from(ahead))
            (demand, count, mask, duration), kw, t, nodes = standing[k]
            usage = np.broadcast_to(demand, (len(nodes), 3))
            if kw["exclusive"]:
                usage = capacity[list(nodes)]
            call = (Request(demand, count, kw["exclusive"]), mask, duration, t, nodes, usage)
            got = ref.replan(*call)
            assert same_answer(pool.replan(*call), got)
            assert got is not None and got[1] <= t  # never later than it stood
            assert pool_state(pool) == pool_state(ref)
            standing[k] = ((demand, count, mask, duration), kw, got[1], got[2])
            continue
        kind, args, kw = draw_op(draw, ref, capacity)
        if kw.get("exclusive") and not (ref.free <= capacity).all():
            # more free than the node has (releases drawn beyond what runs): Profile tests
            # the window's minimum, the pool each interval; both agree in any real state
            continue
        got = run_op(ref, kind, args, kw)
        assert same_answer(run_op(pool, kind, args, kw), got), (kind, args, kw)
        assert pool_state(pool) == pool_state(ref), (kind, args, kw)
        if kind == "earliest" and got is not None and draw(st.booleans()):
            i, t, nodes = got
            usage = np.broadcast_to(args[0], (len(nodes), 3))
            if kw["exclusive"]:
                usage = capacity[list(nodes)]
            for prof in (ref, pool):
                prof.reserve(nodes, usage, t, t + args[3], at=i)
            assert pool_state(pool) == pool_state(ref)
            if "not_before" not in kw and t > ref.now:
                standing.append((args, kw, t, nodes))


@given(st.data())
@SETTINGS
def test_pool_replan_matches_profile(data):
    """Compression as conservative runs it on a pool: jobs placed one after another at
    their earliest fit, a running job ends early (its resources come back from now until
    its expected end), then every standing reservation, in order of start, is taken out
    and put back at its earliest fit. The pool's shortcut (search only earlier starts,
    with the job's own CPUs counted free; leave the profile alone when it stays) gives the
    same answers and the same profile as Profile's out-search-in, move by move."""
    draw = data.draw
    capacity = draw(clusters().map(lambda c: c[:1]))
    cap = capacity[0]
    now = draw(times_st)
    running = []  # (expected end, usage) of running jobs; together within capacity
    left = cap.copy()
    for _ in range(draw(st.integers(0, 6))):
        use = np.array([draw(st.integers(0, int(x))) for x in left], dtype=np.int64)
        left -= use
        running.append((now + draw(st.integers(1, 80)) / 4, use[None]))
    releases = [(t, (0,), u) for t, u in running]
    profs = [Profile(now, left[None].copy(), capacity, releases)]
    profs.append(PoolProfile(now, left[None].copy(), capacity, releases))
    standing = []
    for _ in range(draw(st.integers(1, 10))):
        plain = draw(st.booleans())  # CPUs only: the pool's fast path
        demand = np.array(
            [draw(st.integers(0, int(c))) if k == 0 or not plain else 0 for k, c in enumerate(cap)],
            dtype=np.int64,
        )
        exclusive = not plain and draw(st.booleans())
        duration = draw(spans_st.filter(lambda d: d > 0))
        found = [
            p.earliest(Request(demand, 1, exclusive), np.array([True]), duration) for p in profs
        ]
        assert same_answer(found[1], found[0])
        if found[0] is None:
            continue
        i, t, nodes = found[0]
        usage = capacity[[0]] if exclusive else demand[None]
        for p in profs:
            p.reserve(nodes, usage, t, t + duration, at=i)
        standing.append((t, len(standing), demand, duration, exclusive, usage))
    if running and draw(st.booleans()):  # a running job ends early: its resources come back
        end, use = running[draw(st.integers(0, len(running) - 1))]
        for p in profs:
            p.reserve((0,), -use, now, end)
    assert pool_state(profs[1]) == pool_state(profs[0])
    for t, _n, demand, duration, exclusive, usage in sorted(standing, key=lambda s: s[:2]):
        if t < now or not profs[0].valid():
            continue
        call = (Request(demand, 1, exclusive), np.array([True]), duration, t, (0,), usage)
        got = profs[0].replan(*call)
        assert got is not None and got[1] <= t  # its own slot is free: never later
        assert same_answer(profs[1].replan(*call), got)
        assert pool_state(profs[1]) == pool_state(profs[0])


def running_jobs(draw, capacity):
    """(now, free, releases): up to six running jobs, together within capacity, ending at
    random times (some past their limits, before ``now``)."""
    now = draw(times_st)
    left = capacity.copy()
    releases = []
    for _ in range(draw(st.integers(0, 6))):
        nodes = node_sets(draw, len(capacity))
        use = np.array(
            [[draw(st.integers(0, int(x))) for x in left[n]] for n in nodes], dtype=np.int64
        )
        left[list(nodes)] -= use
        releases.append((draw(times_st), nodes, use))
    return now, left, releases


def out_search_in(prof, demand, count, mask, duration, start, nodes, usage, exclusive):
    """Compression by its definition: take the reservation out, search, put it back."""
    prof.reserve(nodes, -usage, start, start + duration)
    found = prof.earliest(Request(demand, count, exclusive), mask, duration)
    if found is not None:
        i, t, new = found
        back = prof.capacity[list(new)] if exclusive else usage
        prof.reserve(new, back, t, t + duration, at=i)
    return found


@given(st.data())
@settings(SETTINGS, max_examples=1000)  # cheap, and the cases that matter are rare
def test_replan_matches_out_search_in(data):
    """``Profile.replan`` on multi-node clusters (which puts a job that stays back into
    its own intervals without finding them again) answers and leaves the profile as the
    definition does, move by move: with jobs past their limits (two intervals at ``now``)
    and standing reservations that start ``now``, a running job ending early, and
    exclusive jobs."""
    draw = data.draw
    capacity = draw(clusters())
    now, left, releases = running_jobs(draw, capacity)
    profs = [Profile(now, left.copy(), capacity, releases) for _ in range(2)]

    def job_drawn():
        return (*job(draw, capacity), draw(st.booleans()))

    standing = place_jobs(draw, profs, capacity, now, releases, job_drawn, most=8)
    assert_same_state(profs[0], profs[1])

    def check(got, call, exclusive):
        assert repr(out_search_in(profs[1], *call, exclusive)) == repr(got)
        assert_same_state(profs[0], profs[1])
        # never later than it stood (its own slot is free once it is out)
        assert got is None or got[1] <= call[4]

    compress(profs[0], standing, capacity, check)


@given(st.data())
@settings(SETTINGS, max_examples=500)
def test_replan_without_taking_the_job_out_matches_out_search_in(data):
    """``Profile.replan`` searches a GPU job of fixed tasks per node (``gres_fixed``: best
    fit weighs no free amounts) without taking it out when it holds at least its demand on
    each node: its answer and the profile it leaves are those of taking it out, searching
    and putting it back, move by move, with jobs sharing masks and requests (the fit masks
    kept between searches), some holding more than their demand on some nodes, and
    exclusive jobs among them (which are searched the usual way)."""
    draw = data.draw
    capacity = draw(clusters())
    now, left, releases = running_jobs(draw, capacity)
    profs = [Profile(now, left.copy(), capacity, releases) for _ in range(2)]
    masks = [np.ones(len(capacity), dtype=bool), np.arange(len(capacity)) % 2 == 0]
    shapes = [job(draw, capacity)[:2] for _ in range(draw(st.integers(1, 3)))]
    standing = []
    for _ in range(draw(st.integers(1, 8))):
        demand, count = draw(st.sampled_from(shapes))
        mask = draw(st.sampled_from(masks))
        duration = draw(spans_st)
        exclusive = draw(st.booleans()) and draw(st.booleans())
        request = Request(demand, count, exclusive, gres_fixed=True)
        found = profs[0].earliest(request, mask, duration)
        assert repr(profs[1].earliest(request, mask, duration)) == repr(found)
        if found is None or math.isinf(found[1]):
            continue
        i, t, nodes = found
        if exclusive:
            usage = capacity[list(nodes)]
        else:  # (sometimes more than its demand on a node, as a job's own rows may hold)
            usage = np.tile(demand, (len(nodes), 1))
            usage[0] += np.minimum(amounts(draw, capacity[[nodes[0]]])[0], 1)
            usage = np.minimum(usage, profs[0].free[i:, list(nodes)].min(axis=0))
            usage = np.maximum(usage, 0)
        for p in profs:
            p.reserve(nodes, usage, t, t + duration, at=i)
        standing.append([t, len(standing), request, mask, duration, nodes, usage])
    if releases and draw(st.booleans()):  # a running job ends early
        end, nodes, use = releases[draw(st.integers(0, len(releases) - 1))]
        if end > now:
            for p in profs:
                p.reserve(nodes, -use, now, end)
    assert_same_state(profs[0], profs[1])
    for s in sorted(standing, key=lambda s: s[:2]):
        t, _n, request, mask, duration, nodes, usage = s
        if not profs[0].valid():
            break
        got = profs[0].replan(request, mask, duration, t, nodes, usage)
        ref = profs[1]
        ref.reserve(nodes, -usage, t, t + duration)  # out, search, back in
        want = ref.earliest(request, mask, duration)
        if want is not None:
            k, t2, new = want
            if request.exclusive:
                usage = capacity[list(new)]
            elif len(new) != len(usage):
                usage = np.broadcast_to(request.demand, (len(new), 3))
            ref.reserve(new, usage, t2, t2 + duration, at=k)
            s[0], s[5], s[6] = t2, new, usage
        assert repr(got) == repr(want)
        assert_same_state(profs[0], ref)


def place_jobs(draw, profs, capacity, now, releases, job_drawn, most):
    """Up to ``most`` jobs (``job_drawn()``: demand, count, mask, duration, exclusive) placed
    at their earliest fit one after another in every profile of ``profs`` (which must all
    answer alike), then perhaps a running job ending early (its resources come back).
    A job that fits in interval 0 starts now, as under conservative: it holds its nodes but
    stands as no reservation (with a job past its limit, interval 1 starts ``now`` too, and
    :meth:`Profile.replan` takes a standing reservation at ``now`` out of that one). Returns
    the standing reservations, [start, order, demand, count, mask, duration, nodes, usage,
    exclusive] each."""
    standing = []
    for _ in range(draw(st.integers(1, most))):
        demand, count, mask, duration, exclusive = job_drawn()
        request = Request(demand, count, exclusive)
        found = profs[0].earliest(request, mask, duration)
        for p in profs[1:]:
            assert repr(p.earliest(request, mask, duration)) == repr(found)
        if found is None or math.isinf(found[1]):
            continue
        i, t, nodes = found
        usage = capacity[list(nodes)] if exclusive else np.broadcast_to(demand, (count, 3))
        for p in profs:
            p.reserve(nodes, usage, t, t + duration, at=i)
        if i == 0:  # it starts now (conservative starts what fits in interval 0): it holds
            continue  # its nodes from now on, but stands as no reservation to compress
        standing.append([t, len(standing), demand, count, mask, duration, nodes, usage, exclusive])
    if releases and draw(st.booleans()):
        end, nodes, use = releases[draw(st.integers(0, len(releases) - 1))]
        if end > now:
            for p in profs:
                p.reserve(nodes, -use, now, end)
    return standing


def compress(prof, standing, capacity, check):
    """Compression as conservative runs it on ``prof``: every standing reservation, in order
    of start, taken out and put back at its earliest fit (``replan``), while the profile is
    valid; ``check(answer, call, exclusive)`` after each move."""
    for s in sorted(standing, key=lambda s: s[:2]):
        t, _n, demand, count, mask, duration, nodes, usage, exclusive = s
        if not prof.valid():
            break
        call = (demand, count, mask, duration, t, nodes, usage)
        got = prof.replan(Request(demand, count, exclusive), *call[2:])
        check(got, call, exclusive)
        if got is not None:
            s[0], s[6] = got[1], got[2]
            s[7] = capacity[list(got[2])] if exclusive else usage


def test_pool_earliest_not_before_now_with_an_overdue_job():
    """Found by the test above: with a running job past its limit, two intervals start
    at ``now`` (the second counts that job's resources). A search not before ``now`` must
    begin at the first of them, as Profile's does; the pool used to begin at the second."""
    capacity = np.array([[4, 8, 0]])
    free = np.array([[1, 8, 0]])
    releases = [(5.0, (0,), np.array([[3, 0, 0]]))]  # expected end 5, now 10: overdue
    demand, mask = np.array([1, 0, 0]), np.array([True])
    for prof in (Profile(10.0, free.copy(), capacity, releases),
                 PoolProfile(10.0, free.copy(), capacity, releases)):  # fmt: skip
        assert list(prof.times) == [10.0, 10.0]
        one, four = Request(demand), Request(np.array([4, 0, 0]))
        assert prof.earliest(one, mask, 0.0, not_before=10.0)[:2] == (0, 10.0)
        assert prof.earliest(one, mask, 60.0, not_before=10.0)[:2] == (0, 10.0)
        assert prof.earliest(four, mask, 60.0, not_before=10.0)[:2] == (1, 10.0)
        # not before a later instant of the second interval: the first has no length
        assert prof.earliest(one, mask, 0.0, not_before=10.5)[:2] == (1, 10.5)


@given(st.data())
@settings(SETTINGS, max_examples=1000)  # cheap, and the cases that matter are rare
def test_an_undisturbed_job_keeps_its_place(data):
    """The rule by which conservative skips a search (``backfill._undisturbed``): a job
    placed at its earliest fit, after which the profile changed only where the rule allows
    (reservations added, taken out or moved), is where a new search would put it again."""
    draw = data.draw
    capacity = draw(clusters())
    now, left, releases = running_jobs(draw, capacity)
    prof = Profile(now, left, capacity, releases)
    placed = []  # [start, duration, nodes, usage, call]

    def place():
        demand, count, mask, duration = job(draw, capacity)
        exclusive = draw(st.booleans())
        found = prof.earliest(Request(demand, count, exclusive), mask, duration)
        if found is None or math.isinf(found[1]):
            return None
        i, t, nodes = found
        usage = capacity[list(nodes)] if exclusive else np.broadcast_to(demand, (count, 3))
        prof.reserve(nodes, usage, t, t + duration, at=i)
        placed.append([t, duration, nodes, usage, (demand, count, mask, duration, exclusive)])
        return placed[-1]

    for _ in range(draw(st.integers(0, 4))):
        place()
    target = place()
    if target is None or target[0] <= now or target[1] == 0:
        return  # the rule applies to jobs planned after now, with a window
    start, duration, nodes, usage, (demand, count, mask, _d, exclusive) = target
    changes = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["take", "add", "remove", "move"]))
        others = [p for p in placed if p is not target]
        if kind == "take":  # room taken anywhere it is free (say, an advance reservation)
            a = now + draw(times_st)
            b = a + draw(times_st.filter(lambda d: d > 0))
            n = node_sets(draw, len(capacity))
            k = bisect_right(prof.times, a) - 1
            j = max(bisect_left(prof.times, b), k + 1)
            room = prof.free[k:j][:, list(n)].min(axis=0)
            use = np.array([[draw(st.integers(0, max(0, int(x)))) for x in r] for r in room])
            prof.reserve(n, use, a, b)
            changes.append((a, b, False))
        elif kind == "add":
            new = place()
            if new is not None:
                changes.append((new[0], new[0] + new[1], False))
        elif others:
            other = others[draw(st.integers(0, len(others) - 1))]
            t, d, n, u, call = other
            prof.reserve(n, -u, t, t + d)  # out: its slot is freed
            changes.append((t, t + d, True))
            placed[:] = [p for p in placed if p is not other]  # (== on arrays is ambiguous)
            if kind == "move":
                o_demand, o_count, o_mask, o_d, o_excl = call
                found = prof.earliest(Request(o_demand, o_count, o_excl), o_mask, o_d)
                if found is not None and not math.isinf(found[1]):
                    i, t2, n2 = found
                    u2 = capacity[list(n2)] if o_excl else u
                    prof.reserve(n2, u2, t2, t2 + o_d, at=i)
                    placed.append([t2, o_d, n2, u2, call])
                    changes.append((t2, t2 + o_d, False))
    if not _undisturbed(start, start + duration, changes):
        return
    found = out_search_in(prof, demand, count, mask, duration, start, nodes, usage, exclusive)
    assert found is not None and (found[1], found[2]) == (start, nodes)


def _after_change(change):
    """Two idle 4-CPU nodes, busy until 10; a 1-CPU job for 5 s placed at its earliest
    (10, node 0: a tie, lowest index), then ``change`` to the profile: whether the rule
    lets the job skip its search, and where a search would put it."""
    capacity = np.array([[4, 8, 0], [4, 8, 0]])
    prof = Profile(0.0, np.zeros_like(capacity), capacity, [(10.0, (0, 1), capacity.copy())])
    demand, mask = np.array([1, 1, 0]), np.array([True, True])
    i, t, nodes = prof.earliest(Request(demand), mask, 5.0)
    assert (t, nodes) == (10.0, (0,))
    prof.reserve(nodes, demand[None], t, t + 5.0, at=i)
    node, use, a, b, freed = change
    amount = -use if freed else use  # CPUs and MB alike
    prof.reserve((node,), np.array([[amount, amount, 0]]), a, b)
    skip = _undisturbed(t, t + 5.0, [(a, b, freed)])
    found = out_search_in(prof, demand, 1, mask, 5.0, t, nodes, demand[None], False)
    return skip, (found[1], found[2])


def test_the_skip_rule_on_hand_made_changes():
    """Each clause of ``_undisturbed`` matters: room taken inside the job's window can
    change the nodes best fit picks, and room freed before its end can let it start
    earlier; changes beyond them leave its place alone."""
    # room taken on node 1 inside the window: node 1 now fits better
    assert _after_change((1, 1, 10.0, 15.0, False)) == (False, (10.0, (1,)))
    # room taken on node 1 after the window: no effect, and the rule knows it
    assert _after_change((1, 1, 15.0, 20.0, False)) == (True, (10.0, (0,)))
    # room taken before the window: it cannot start earlier anyway
    assert _after_change((1, 4, 0.0, 10.0, False))[1] == (10.0, (0,))
    # room freed before its end (node 1 gets 2 CPUs, 2 MB back from 2 s): it starts earlier
    assert _after_change((1, 2, 2.0, 10.0, True)) == (False, (2.0, (1,)))
    # a zero-length job fits in the interval it starts in: room taken from its start on
    # (on node 1, until 12) changes its nodes, though it lies after the job's "window"
    capacity = np.array([[4, 8, 0], [4, 8, 0]])
    prof = Profile(0.0, np.zeros_like(capacity), capacity, [(10.0, (0, 1), capacity.copy())])
    demand, mask = np.array([1, 1, 0]), np.array([True, True])
    i, t, nodes = prof.earliest(Request(demand), mask, 0.0)
    prof.reserve(nodes, demand[None], t, t, at=i)
    prof.reserve((1,), np.array([[2, 2, 0]]), 10.0, 12.0)
    found = out_search_in(prof, demand, 1, mask, 0.0, t, nodes, demand[None], False)
    assert (t, nodes, found[2]) == (10.0, (0,), (1,))
    assert not _undisturbed(10.0, 10.0, [(10.0, 12.0, False)])


@given(st.data())
@SETTINGS
def test_pool_search_from_an_earlier_searchs_start(data):
    """On a pool, a search that begins where an earlier search of the same request found
    its start (``not_before``), for a limit no shorter, after room was only taken, finds
    what a search from now finds: no earlier start can fit (the slurm cycle's one-node
    shortcut in ``SlurmBackfill._plan_jobs`` rests on this)."""
    draw = data.draw
    capacity = draw(clusters().map(lambda c: c[:1]))
    now, free, releases = profile_args(draw, capacity)
    pool = PoolProfile(now, free.copy(), capacity, releases)
    demand = amounts(draw, capacity)[0]
    demand[1:] = 0  # (a trace's job: CPUs only)
    demand[0] = max(int(demand[0]), 1)
    request, mask = Request(demand, 1), np.ones(1, dtype=bool)
    limit = draw(times_st)
    first = pool.earliest(request, mask, limit)
    if first is None:
        return
    for _ in range(draw(st.integers(0, 6))):  # plans and starts: room taken only
        start = max(draw(times_st), pool.now)
        usage = amounts(draw, capacity)
        pool.reserve((0,), usage, start, start + draw(spans_st))
    longer = limit + draw(times_st)
    expected = pool.earliest(request, mask, longer)
    got = pool.earliest(request, mask, longer, not_before=first[1])
    assert same_answer(got, expected), (first, got, expected)


def test_the_free_array_stays_resource_first_through_every_change():
    """A profile's free array keeps each resource's (intervals x nodes) plane contiguous
    through reservations, copies and advancing (``covers`` compares those planes), and reads
    the same as a plain (intervals x nodes x 3) array."""
    capacity = np.array([[8, 1000, 2]] * 4, dtype=np.int64)
    free = capacity.copy()
    free[1] = [2, 200, 0]
    prof = Profile(0.0, free, capacity, [(50.0, (1,), np.array([[6, 800, 2]]))])
    prof.reserve((0, 2), np.array([4, 100, 1]), 10.0, 30.0)  # two new breakpoints
    prof.reserve((3,), np.array([1, 1, 0]), 30.0, math.inf)  # one
    twin = prof.copy()
    twin.advance(20.0)
    for p in (prof, twin):
        assert all(p.free[..., k].flags.c_contiguous for k in range(3))
    assert prof.times == [0.0, 10.0, 30.0, 50.0]
    assert prof.free[:, :, 0].tolist() == [[8, 2, 8, 8], [4, 2, 4, 8], [8, 2, 8, 7], [8, 8, 8, 7]]
    assert twin.times == [20.0, 30.0, 50.0]
    assert np.array_equal(twin.free, prof.free[1:])
