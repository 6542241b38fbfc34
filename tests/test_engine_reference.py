"""The engine's ``fifo`` and ``easy`` start every job exactly when the plain reference does.

``tests/reference_sched.py`` is a deliberately simple, independent model of both
policies on one pool of processors. Hypothesis compares the two on thousands of
random processors-only workloads (ties in submit time, zero run times, jobs running
past their limits); the same comparison runs on the Parallel Workloads Archive traces
in ``../shared/datasets/public/swf`` (the first jobs by default, whole traces with
``-m slow``), skipped cleanly where that folder is absent.
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sched import RefJob, reference_starts

from slurmlab.records.swf import read_swf, swf_cluster
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

POLICIES = ("fifo", "easy")


def engine_starts(
    jobs: list[RefJob], procs: int, policy: str, *, table: bool = True
) -> dict[str, float]:
    """Start times (s) by job id when slurmlab replays ``jobs`` as a trace on ``procs`` CPUs.

    ``table=False`` reads the engine's own job records instead of building the sacct
    table (the same numbers, several times faster for thousands of tiny runs).
    """
    workload = Workload(
        tuple(
            WorkloadJob(
                JobSpec(ntasks=j.width, time_limit=timedelta(seconds=j.limit)),
                submit=j.submit,
                runtime=j.runtime,
                id=j.id,
            )
            for j in jobs
        ),
        kind="trace",
    )
    result = simulate(swf_cluster(procs), workload, policy)
    if not table:
        return {job.key: job.start for job in result.sim.jobs.values()}
    return dict(zip(result.jobs["JobID"], result.seconds("Start")))


def from_trace(workload: Workload) -> list[RefJob]:
    """The reference's view of a trace workload: submit, width, run time and limit."""
    return [
        RefJob(j.id, j.submit, j.spec.ntasks, j.runtime, j.spec.time_limit.total_seconds())
        for j in workload.jobs
    ]


@st.composite
def processor_workloads(draw):
    """A machine of P processors and 1-40 jobs of widths 1..P on a coarse time grid.

    Small integer times make ties (same submit, an end at another's submit) common;
    run times include 0 and values past the limit.
    """
    procs = draw(st.integers(1, 16))
    n = draw(st.integers(1, 40))
    jobs = []
    for i in range(n):
        submit = draw(st.integers(0, 30))
        width = draw(st.integers(1, procs))
        limit = draw(st.integers(1, 20))
        runtime = draw(st.one_of(st.just(0), st.integers(0, limit), st.integers(0, 2 * limit)))
        jobs.append(RefJob(str(i + 1), float(submit), width, float(runtime), float(limit)))
    return procs, jobs


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=1000, deadline=None)
@given(case=processor_workloads())
def test_random_workloads_match_the_reference(policy, case):
    """fifo and easy start every job of a random workload at exactly the reference's time."""
    procs, jobs = case
    expected = reference_starts(jobs, procs, policy)
    assert engine_starts(jobs, procs, policy, table=False) == expected


@st.composite
def whole_node_workloads(draw):
    """P identical nodes and 1-30 whole-node jobs that end by their limits."""
    nodes = draw(st.integers(2, 8))
    jobs = []
    for i in range(draw(st.integers(1, 30))):
        limit = draw(st.integers(1, 20))
        runtime = draw(st.one_of(st.just(0), st.integers(0, limit), st.just(limit)))
        width = draw(st.integers(1, nodes))
        jobs.append(RefJob(str(i + 1), float(draw(st.integers(0, 30))), width, runtime, limit))
    return nodes, jobs


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=300, deadline=None)
@given(case=whole_node_workloads())
def test_whole_node_jobs_on_identical_nodes_match_the_reference(policy, case):
    """On identical nodes, whole-node (--exclusive) jobs are the reference's processors:
    EASY lets a later job use the extra nodes whichever nodes the reservation was first
    planned on (the profile pins a reservation to nodes; EASY only promises its start)."""
    nodes, jobs = case
    cluster = Cluster.from_slurm_conf(
        f"NodeName=n[1-{nodes}] CPUs=4 RealMemory=1000\n"
        "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE"
    )
    workload = Workload(
        tuple(
            WorkloadJob(
                JobSpec(nodes=j.width, exclusive=True, time_limit=timedelta(seconds=j.limit)),
                submit=j.submit, runtime=j.runtime, id=j.id,
            )
            for j in jobs
        )
    )  # fmt: skip
    result = simulate(cluster, workload, policy)
    starts = {job.key: job.start for job in result.sim.jobs.values()}
    assert starts == reference_starts(jobs, nodes, policy)


def test_reference_shadow_counts_every_job_ending_at_the_shadow_time():
    """Two jobs ending at the shadow time both count towards the extra processors."""
    jobs = [
        RefJob("a", 0, 2, 10, 10),
        RefJob("b", 0, 2, 10, 10),
        RefJob("wide", 1, 3, 5, 5),  # shadow 10, extra 5 - 3 = 2 (not 3 - 3 = 0)
        RefJob("long", 2, 1, 50, 50),  # ends after the shadow but fits in the extra
    ]
    expected = {"a": 0, "b": 0, "wide": 10, "long": 2}
    assert reference_starts(jobs, 5, "easy") == expected
    assert engine_starts(jobs, 5, "easy") == expected


def test_reference_overdue_job_is_expected_to_end_now():
    """A job past its limit is expected to end now: the shadow is now and only extra fits."""
    jobs = [
        RefJob("over", 0, 3, 100, 10),  # runs to 100 though its limit is 10
        RefJob("wide", 1, 4, 5, 5),  # shadow = now (from t=10 on), extra = 0
        RefJob("small", 20, 1, 5, 5),  # fits now but would use more than extra: waits
    ]
    expected = {"over": 0, "wide": 100, "small": 105}
    assert reference_starts(jobs, 4, "easy") == expected
    assert engine_starts(jobs, 4, "easy") == expected


# -- the Parallel Workloads Archive traces ------------------------------------------------------


def swf_folder() -> Path:
    shared = os.environ.get("SLURMLAB_SHARED")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "public" / "swf"


TRACES = ("KTH-SP2-1996-2.1-cln", "LANL-CM5-1994-4.1-cln", "NASA-iPSC-1993-3.1-cln", "lublin_256")
FIRST_JOBS = 3000


#: Whole traces take minutes: run them with SLURMLAB_SLOW=1 (the benchmark does too).
whole_traces = pytest.mark.skipif(
    not os.environ.get("SLURMLAB_SLOW"), reason="whole traces: set SLURMLAB_SLOW=1"
)


@cache
def _read(path: Path) -> Workload:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropped-job counts: tested in test_swf.py
        return read_swf(path)


def load_trace(name: str) -> Workload:
    path = swf_folder() / f"{name}.swf.gz"
    if not path.exists():
        pytest.skip(f"trace {path} not present")
    return _read(path)


def compare_on_trace(workload: Workload, policy: str) -> None:
    jobs = from_trace(workload)
    procs = workload.max_procs
    expected = reference_starts(jobs, procs, policy)
    got = engine_starts(jobs, procs, policy)
    wrong = [j.id for j in jobs if got[j.id] != expected[j.id]]
    assert not wrong, (
        f"{len(wrong)} of {len(jobs)} jobs differ; first job {wrong[0]}: "
        f"engine {got[wrong[0]]}, reference {expected[wrong[0]]}"
    )


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("trace", TRACES)
def test_trace_prefix_matches_the_reference(trace, policy):
    """On the first jobs of each PWA trace, every start time equals the reference's."""
    workload = load_trace(trace)
    compare_on_trace(
        Workload(workload.jobs[:FIRST_JOBS], kind="trace", max_procs=workload.max_procs), policy
    )


@pytest.mark.slow
@whole_traces
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("trace", TRACES)
def test_whole_trace_matches_the_reference(trace, policy):
    """On each whole PWA trace, every start time equals the reference's."""
    compare_on_trace(load_trace(trace), policy)
