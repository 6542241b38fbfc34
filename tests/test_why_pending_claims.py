"""``why_pending``'s hints checked against what the change gives: each change it says would
start the job now does, under the plans backfill keeps, and "no small change" is said only
where none would start it now."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab import Cluster, Lab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from why_pending_check import check  # noqa: E402


def _state(lab: Lab, key) -> str:
    return lab.sim._lookup(key)[0].state  # noqa: SLF001


def test_a_conservative_plan_holds_what_its_job_asks_not_its_whole_nodes():
    """Conservative backfill places an updated job among the standing plans, each holding
    what its job asks on its nodes (``Conservative.schedule``): job 3's plan takes 2 CPUs of
    node4 from 1 h, so job 2 on one node (2 GPUs) fits beside it now. why_pending said "No
    small change" because a plan on node4 fell within its time limit."""
    lab = Lab("tiny", "conservative")
    lab.sbatch("-N 3 -t 60 -c 16", runtime=3600)  # node[1-3] full for an hour
    j = lab.sbatch("-N 3 -t 120 --gres=gpu:2", runtime=600)
    lab.sbatch("-N 4 -t 30 -c 2", runtime=600)  # planned at 1 h on node[1-4]
    lab.advance(40)
    text = lab.why_pending(j)
    assert "with --nodes=1 (instead of 3) it could start now" in text
    lab.update(j, nodes="1-1")
    lab.advance(1)
    assert _state(lab, j) == "RUNNING"


def test_a_slurm_plan_holds_its_whole_nodes():
    """Slurm's backfill map reserves a planned job's whole nodes (backfill.c _add_reservation
    takes its node bitmap out of each slot's avail_bitmap): job 2's plan on node[1-4] at 30
    min keeps a 4-hour job 3 off node4 even on one node, where easy, whose profile holds
    what job 2 asks, starts it. why_pending promised --nodes=1 under slurm too."""
    for policy, promised in (("slurm", False), ("easy", True)):
        lab = Lab("tiny", policy)
        lab.sbatch("-N 3 -t 30 --exclusive", runtime=1800)
        lab.sbatch("-N 4 -t 240 -c 4 --gpus-per-node=1", runtime=3600)
        j = lab.sbatch("-N 2 -t 240 --mem=32G -c 2", runtime=600)
        lab.advance(45)
        text = lab.why_pending(j)
        assert ("with --nodes=1 (instead of 2) it could start now" in text) is promised
        assert ("No small change to the request would let it start now" in text) is not promised
        lab.update(j, nodes="1-1")
        lab.advance(31)  # (slurm: the next backfill cycle)
        assert (_state(lab, j) == "RUNNING") is promised, policy


def test_a_move_may_pass_a_planned_job_where_backfill_would_start_it():
    """A job queued in the partition a move puts it in does not close it: backfill starts
    the moved job where it delays none of the plans of the jobs ahead of it (backfill.c
    _attempt_backfill). Job 2 waits in train planned on 16 nodes; gpu029-032 are free,
    so job 3 moved from debug starts there (easy, conservative, slurm by its next cycle);
    under fifo job 2 blocks train (job_scheduler.c: no later job of the partition)."""
    for policy in ("easy", "conservative", "slurm", "fifo"):
        lab = Lab("ai", policy)
        lab.sbatch("-p train -N 28 -t 30 --exclusive", runtime=1800)
        lab.sbatch("-p train -N 16 -t 60 --exclusive", runtime=3600)
        j = lab.sbatch("-p debug -N 1 -t 30 --exclusive", runtime=600)
        lab.advance(45)
        text = lab.why_pending(j)
        promised = policy != "fifo"
        assert ("partition 'train' has room for it now (-p train)" in text) is promised
        lab.update(j, partition="train")
        lab.advance(31)
        assert (_state(lab, j) == "RUNNING") is promised, policy


def test_plans_of_jobs_behind_it_do_not_count_and_an_array_record_is_one_plan():
    """Easy backfill plans in priority order, so only the plans of jobs ahead of a job can
    stop a change (a job behind it is placed after it); an array's pending tasks share
    their record's plan, which holds its nodes once. Job 3, behind array 1's record
    (planned on node[1-3]), fits now on node4 with one node; why_pending said "No small
    change"."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 3 -t 30 --mem=0 -c 4 --array=0-3", runtime=1800)
    lab.run(until=70)
    j = lab.sbatch("-N 3 -t 60 -c 8", runtime=3600)
    lab.sbatch("-N 1 -t 240 --mem=32G -c 2", runtime=14400)
    lab.run(until=1325)
    text = lab.why_pending(j)
    assert "with --nodes=1 (instead of 3) it could start now" in text
    lab.update(j, nodes="1-1")
    lab.advance(1)
    assert _state(lab, j) == "RUNNING"


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(min_value=0, max_value=10**6), st.booleans())
def test_every_claim_holds_on_random_sessions(seed, exact):
    """On random Lab sessions (the tiny, teaching and ai presets, the four policies, QOS
    limits, arrays, --mem=0), each change why_pending promises starts the job now (by the
    next backfill cycle under slurm), made with lab.update in a replay; when it says no
    small change would start it now, none of fewer nodes, a shorter limit or another
    partition does; and (``exact``: every job runs for its whole limit, the picture the
    words assume) a change it says would start it sooner if nothing else changes does
    (tools/why_pending_check.py, by brute force)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = check([seed], exact=exact)
    assert n["false promise (not now)"] == 0
    assert n["false no-change (now)"] == 0
    assert not exact or n["false sooner claim"] == 0


_MIXED = """ClusterName=mixed
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=a1 CPUs=16 RealMemory=64000
NodeName=b1 CPUs=16 RealMemory=128000
NodeName=solo CPUs=16 RealMemory=64000
PartitionName=one Nodes=solo Default=YES MaxTime=1-00:00:00 State=UP
PartitionName=mix Nodes=a1,b1 MaxTime=1-00:00:00 State=UP
"""


def test_a_move_hint_picks_its_nodes_by_the_whole_memory_rule():
    """A --mem=0 job takes each node's whole memory, so only nodes none of whose memory is
    allocated fit it (cons_common _job_test; placement.fitting_mask's whole_memory): moved
    to mix, where b1 runs a job of 1000 MB and a1 is idle, it gets a1. The move hint tested
    that it fits with that rule, but picked the nodes it hands to the limits' test without
    it: best fit, b1, whose 127000 MB free cover the 64000 its --mem=0 asks there (a1's,
    the partition's first node's memory)."""
    from slurmlab.sim import explain
    from slurmlab.sim.engine import array_heads, up_at, used_at

    lab = Lab(Cluster.from_slurm_conf(_MIXED), "easy")
    lab.sbatch("-p one -N 1 -t 60 --exclusive", runtime=3600)
    lab.sbatch("-p mix -w b1 -t 60 -c 12 --mem=1000", runtime=3600)
    j = lab.sbatch("-p one -N 1 -t 30 -c 2 --mem=0", runtime=600)
    lab.advance(5)
    sim, t = lab.sim, lab.now
    job = sim._lookup(j)[0]  # noqa: SLF001
    assert "partition 'mix' has room for it now (-p mix)" in lab.why_pending(j)
    (hint,) = explain._moves(  # noqa: SLF001
        sim, job, t, array_heads(sim, t), sim.capacity - used_at(sim, t), up_at(sim, t),
        explain._reserved_against(sim, job, t),  # noqa: SLF001
    )  # fmt: skip
    assert [sim.node_names[i] for i in hint.nodes] == ["a1"]
    lab.update(j, partition="mix")
    lab.advance(1)
    assert [sim.node_names[i] for i in sim._lookup(j)[0].nodes] == ["a1"]  # noqa: SLF001


def test_where_no_change_starts_it_now_it_says_when_fewer_nodes_would():
    """No node is free, so no change starts the 3-node job now; node[1-2] free at 30 min,
    node[3-4] at 2 h. With every running job ending at its time limit and the plans ahead
    of it standing, backfill would place a 2-node request at 30 min (its earliest fit),
    and so it starts there under every policy."""
    for policy in ("fifo", "easy", "conservative", "slurm"):
        lab = Lab("tiny", policy)
        lab.sbatch("-N 2 --exclusive -t 30", runtime=1800)
        lab.sbatch("-N 2 --exclusive -t 120", runtime=7200)
        j = lab.sbatch("-N 3 --exclusive -t 60", runtime=3600)
        lab.advance(60)
        text = lab.why_pending(j)
        assert "No small change to the request would let it start now. If nothing else" in text
        assert (
            "with --nodes=2 (instead of 3) it would start at about t=1800s "
            "(2026-01-05T00:30:00), instead of about t=7200s (2026-01-05T02:00:00)"
        ) in text
        lab.update(j, nodes="2-2")
        lab.run()
        assert lab.sim._lookup(j)[0].start == 1800  # noqa: SLF001
