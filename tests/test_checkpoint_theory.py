"""Checkpoint theory: Young's and Daly's intervals, Daly's expected goodput, and the simulator
against them.

Notation as in :mod:`slurmlab.sim.checkpoint`: interval tau (I), checkpoint write cost C,
restart cost R, and M the mean time between failures of the job's whole allocation (a
node's MTBF divided by the job's node count).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slurmlab.errors import SlurmlabError
from slurmlab.sim.checkpoint import (
    Checkpoint,
    daly_interval,
    expected_goodput,
    run_length,
    run_outcome,
    young_interval,
)
from slurmlab.sim.faults import RandomFailures
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster, Node, Partition
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

HOUR = 3600.0


# -- the optimal intervals ---------------------------------------------------------------------
def test_young_interval_is_sqrt_2_c_m():
    """Young (1974): tau = sqrt(2 C M); C = 60 s, M = 10 h gives sqrt(4 320 000) = 2078.46 s."""
    assert young_interval(60, 36000) == pytest.approx(2078.4610, abs=1e-4)
    assert young_interval(300, 4 * HOUR) == pytest.approx(math.sqrt(2 * 300 * 14400))


def test_daly_interval_by_hand():
    """Daly (2006, eq. 37): tau = sqrt(2 C M) (1 + sqrt(C / 2M) / 3 + (C / 2M) / 9) - C.

    C = 60 s, M = 10 h: C / 2M = 1/1200, so tau = 2078.4610 x (1 + 0.0096225 + 0.0000926)
    - 60 = 2038.65 s.
    """
    assert daly_interval(60, 36000) == pytest.approx(2038.6534, abs=1e-3)
    c, m = 300.0, 36000.0
    x = c / (2 * m)
    assert daly_interval(c, m) == pytest.approx(math.sqrt(2 * c * m) * (1 + x**0.5 / 3 + x / 9) - c)


def test_daly_interval_is_m_when_checkpoints_cost_two_mtbfs():
    """When C >= 2M, Daly's optimum is tau = M."""
    assert daly_interval(7200, 3600) == 3600
    assert daly_interval(20000, 3600) == 3600


def test_young_and_daly_agree_when_checkpoints_are_cheap():
    """For C << M, Daly's interval is Young's minus about C (to first order)."""
    c, m = 10.0, 1e7
    assert daly_interval(c, m) == pytest.approx(young_interval(c, m) - c, rel=1e-3)


# -- the expected goodput curve ----------------------------------------------------------------
def test_expected_goodput_by_hand():
    """Daly's goodput tau / (M e^(R/M) (e^((tau + C)/M) - 1)); tau = 1 h, C = 60 s, M = 10 h:
    R = 0 gives 3600 / (36000 x (e^0.101667 - 1)) = 0.93445, R = 300 s a further e^(-1/120)."""
    no_restart = 3600 / (36000 * (math.exp(3660 / 36000) - 1))
    assert expected_goodput(3600, 60, 0, 36000) == pytest.approx(no_restart, rel=1e-12)
    assert no_restart == pytest.approx(0.93445, abs=1e-5)
    assert expected_goodput(3600, 60, 300, 36000) == pytest.approx(
        no_restart * math.exp(-300 / 36000), rel=1e-12
    )


def test_expected_goodput_without_failures_is_the_write_overhead():
    """As M grows without bound, goodput tends to tau / (tau + C): only writing costs."""
    assert expected_goodput(3600, 60, 300, 1e12) == pytest.approx(3600 / 3660, rel=1e-6)


@pytest.mark.parametrize(("c", "m"), [(60, 36000), (300, 36000), (30, 3600), (600, 86400)])
def test_expected_goodput_peaks_at_dalys_interval(c, m):
    """The analytic goodput is highest (within 0.1% of the interval) at Daly's interval, and
    Young's interval gives nearly the same goodput; the curve falls on either side."""
    taus = np.geomspace(c / 10, 10 * m, 200_001)
    best = taus[np.argmax([expected_goodput(t, c, 0, m) for t in taus])]
    daly = daly_interval(c, m)
    assert daly == pytest.approx(best, rel=1e-3)
    peak = expected_goodput(daly, c, 0, m)
    assert expected_goodput(young_interval(c, m), c, 0, m) == pytest.approx(peak, rel=2e-3)
    assert expected_goodput(daly / 4, c, 0, m) < peak > expected_goodput(daly * 4, c, 0, m)


# -- one run, by the book ----------------------------------------------------------------------
def test_run_length_counts_writes_between_intervals_and_the_restart():
    """A run needs R (after a restart) + its work + C per interval but the last: 7200 s of
    work with hourly checkpoints, C = 60 s, R = 300 s takes 300 + 7200 + 60 = 7560 s."""
    ckpt = Checkpoint(3600, 60, 300)
    assert run_length(7200, ckpt, restarted=True) == 7560
    assert run_length(7200, ckpt, restarted=False) == 7260
    assert run_length(7201, ckpt, restarted=False) == 7201 + 2 * 60
    assert run_length(0, ckpt, restarted=False) == 0
    assert run_length(7200, None, restarted=True) == 7200


def test_checkpoint_validation_and_parsing():
    """A checkpoint needs a positive interval and non-negative costs; durations may be
    given in Slurm's time format."""
    assert Checkpoint.from_dict({"interval": "1:00:00", "write_cost": "1:00"}) == Checkpoint(
        3600, 60, 0
    )
    with pytest.raises(SlurmlabError, match="interval"):
        Checkpoint(0)
    with pytest.raises(SlurmlabError, match="write_cost -1: must not be negative"):
        Checkpoint(60, write_cost=-1)
    with pytest.raises(SlurmlabError, match="unknown"):
        Checkpoint.from_dict({"interval": 60, "every": 5})


@settings(max_examples=300, deadline=None)
@given(
    interval=st.integers(1, 5000),
    write=st.integers(0, 300),
    restart=st.integers(0, 300),
    remaining=st.integers(1, 20000),
    fraction=st.floats(0, 1.2),
    restarted=st.booleans(),
    final=st.booleans(),
)
def test_run_outcome_splits_elapsed_time_exactly(
    interval, write, restart, remaining, fraction, restarted, final
):
    """A run cut after ``elapsed`` seconds splits them exactly into saved + lost + writing +
    restarting; it never saves more than it had to do; without a final checkpoint it saves
    whole intervals only (unless it finished), and a later cut never saves less."""
    ckpt = Checkpoint(interval, write, restart)
    full = run_length(remaining, ckpt, restarted)
    elapsed = min(fraction * full, full)
    out = run_outcome(elapsed, remaining, ckpt, restarted, final_checkpoint=final)
    assert out.saved + out.lost + out.writing + out.restarting == pytest.approx(elapsed)
    assert 0 <= out.saved <= remaining
    assert min(out.lost, out.writing, out.restarting) >= 0
    if not final and out.saved < remaining:
        assert out.saved % interval == 0
    later = run_outcome(min(elapsed + 1, full), remaining, ckpt, restarted, final_checkpoint=final)
    assert later.saved >= out.saved


# -- the simulator against the theory ----------------------------------------------------------
#: 12 one-CPU nodes; node MTBF 40 h, repaired in 1 h: a 4-node job sees M = 10 h, and
#: with about one node down on average a spare is always there when it is requeued.
NODE_MTBF, JOB_NODES, REPAIR = 40 * HOUR, 4, HOUR
STAT_CLUSTER = Cluster(
    "stat",
    tuple(Node(name=f"n{i:02d}", cpus=1, memory_mb=1000) for i in range(1, 13)),
    (Partition(name="main", nodes=tuple(f"n{i:02d}" for i in range(1, 13)), default=True),),
)


@pytest.mark.parametrize("interval", [1200.0, 4500.0, 3 * HOUR], ids=["short", "daly", "long"])
def test_simulated_goodput_matches_dalys_curve(interval):
    """Over 30 seeds of exponential node failures, the pooled simulated goodput (useful /
    allocated seconds) of one 200-hour, 4-node job lies within 3% of expected_goodput(tau,
    C, R, M_alloc) with M_alloc = node MTBF / 4 = 10 h, C = R = 300 s.

    Why 3%: Daly's formula is exact for this model (memoryless failures hit the job at rate
    4 / node MTBF wherever it runs; a failure during the restart pays it again) except that
    the job writes no checkpoint after its last interval, a bias below 1%. Each seed sees
    about 25 failures, so the pooled estimate's standard error is below 0.5%: 3% is more than
    6 standard errors, yet far tighter than the gap between the intervals' goodputs.
    (Measured: within 0.7% for all three intervals.)
    """
    c = r = 300.0
    m_alloc = NODE_MTBF / JOB_NODES
    work = interval * round(200 * HOUR / interval)
    job = WorkloadJob(
        JobSpec.from_args(f"-N {JOB_NODES}"), runtime=work, checkpoint=Checkpoint(interval, c, r)
    )
    model = RandomFailures(mtbf=NODE_MTBF, repair=REPAIR)
    useful = allocated = 0.0
    for seed in range(30):
        result = simulate(STAT_CLUSTER, Workload((job,)), "fifo", seed, random_failures=model)
        assert list(result.sacct()["State"]) == ["COMPLETED"]
        useful += result.runs["useful_s"].sum()
        allocated += result.runs["allocated_s"].sum()
    assert useful == pytest.approx(30 * work)
    expected = expected_goodput(interval, c, r, m_alloc)
    assert useful / allocated == pytest.approx(expected, rel=0.03)


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        (young_interval, (-1, 100), "write_cost"),
        (young_interval, (10, 0), "mtbf"),
        (daly_interval, (10, float("nan")), "mtbf"),
        (expected_goodput, (0, 10, 10, 100), "interval"),
        (expected_goodput, (60, 10, -5, 100), "restart_cost"),
    ],
)
def test_impossible_costs_are_errors_not_numbers(call, args, message):
    with pytest.raises(SlurmlabError, match=message):
        call(*args)
