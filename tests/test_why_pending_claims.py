"""``why_pending``'s hints checked against what the change gives: each change it says would
start the job now does, under the plans backfill keeps, and "no small change" is said only
where none would start it now."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from slurmlab import Cluster, Lab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from why_pending_check import check  # noqa: E402


def _state(lab: Lab, key) -> str:
    return lab.sim._lookup(key)[0].state  # noqa: SLF001


def _hint_holds(lab: Lab, j, hint: str, change: dict, wait: float, promised: bool = True) -> None:
    """why_pending says ``hint`` for job ``j`` (not, unless ``promised``), and ``change``
    made with lab.update starts it within ``wait`` seconds (does not, unless ``promised``)."""
    text = lab.why_pending(j)
    assert (hint in text) is promised, text
    lab.update(j, **change)
    lab.advance(wait)
    assert (_state(lab, j) == "RUNNING") is promised, text


def test_a_conservative_plan_holds_what_its_job_asks_not_its_whole_nodes():
    """Conservative backfill places an updated job among the standing plans, each holding
    what its job asks on its nodes (``Conservative.schedule``): job 3's plan takes 2 CPUs of
    node4 from 1 h, so job 2 on one node (2 GPUs) fits beside it now, though that plan falls
    within its time limit."""
    lab = Lab("tiny", "conservative")
    lab.sbatch("-N 3 -t 60 -c 16", runtime=3600)  # node[1-3] full for an hour
    j = lab.sbatch("-N 3 -t 120 --gres=gpu:2", runtime=600)
    lab.sbatch("-N 4 -t 30 -c 2", runtime=600)  # planned at 1 h on node[1-4]
    lab.advance(40)
    _hint_holds(lab, j, "with --nodes=1 (instead of 3) it could start now", {"nodes": "1-1"}, 1)


def test_a_slurm_plan_holds_its_whole_nodes():
    """Slurm's backfill map reserves a planned job's whole nodes (backfill.c _add_reservation
    takes its node bitmap out of each slot's avail_bitmap): job 2's plan on node[1-4] at 30
    min keeps a 4-hour job 3 off node4 even on one node, where easy, whose profile holds
    what job 2 asks, starts it."""
    for policy, promised in (("slurm", False), ("easy", True)):
        lab = Lab("tiny", policy)
        lab.sbatch("-N 3 -t 30 --exclusive", runtime=1800)
        lab.sbatch("-N 4 -t 240 -c 4 --gpus-per-node=1", runtime=3600)
        j = lab.sbatch("-N 2 -t 240 --mem=32G -c 2", runtime=600)
        lab.advance(45)
        none = "No small change to the request would let it start now"
        assert (none in lab.why_pending(j)) is not promised, policy
        hint = "with --nodes=1 (instead of 2) it could start now"
        # (slurm: by the next backfill cycle)
        _hint_holds(lab, j, hint, {"nodes": "1-1"}, 31, promised)


def test_a_slurm_plan_within_bf_resolution_of_now_holds_its_nodes_now():
    """Slurm's backfill reserves a planned job's nodes from its start rounded down to
    bf_resolution (backfill.c _attempt_backfill: start_time / backfill_resolution *
    backfill_resolution, then _add_reservation), so a plan starting less than that after now
    holds its nodes already: at 3010 s job 3's plan (3030 s on node[1-4], held from 3000 s)
    keeps job 4 off node[1-3], and with fewer nodes it starts no sooner than job 3 does."""
    lab = Lab("tiny", "slurm")
    lab.sbatch("-N 3 -t 60 -c 4", runtime=3600)
    lab.run(until=30)
    lab.sbatch("-N 1 -t 50 --exclusive", runtime=3000)  # node4 until 3030 s
    ahead = lab.sbatch("-N 4 -t 30 -c 4", runtime=1800)
    j = lab.sbatch("-N 4 -t 240 -n 4", runtime=14400)
    lab.run(until=3010)
    text = lab.why_pending(j)
    assert "--nodes=3" not in text
    assert "No small change to the request would let it start now" in text
    lab.update(j, nodes="3-3")
    lab.advance(31)
    assert lab.sim._lookup(j)[0].start == lab.sim._lookup(ahead)[0].start == 3030  # noqa: SLF001


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
        hint = "partition 'train' has room for it now (-p train)"
        _hint_holds(lab, j, hint, {"partition": "train"}, 31, promised=policy != "fifo")


def test_plans_of_jobs_behind_it_do_not_count_and_an_array_record_is_one_plan():
    """Easy backfill plans in priority order, so only the plans of jobs ahead of a job can
    stop a change (a job behind it is placed after it); an array's pending tasks share
    their record's plan, which holds its nodes once. Job 3, behind array 1's record
    (planned on node[1-3]) and ahead of job 4, fits now on node4 with one node."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 3 -t 30 --mem=0 -c 4 --array=0-3", runtime=1800)
    lab.run(until=70)
    j = lab.sbatch("-N 3 -t 60 -c 8", runtime=3600)
    lab.sbatch("-N 1 -t 240 --mem=32G -c 2", runtime=14400)
    lab.run(until=1325)
    _hint_holds(lab, j, "with --nodes=1 (instead of 3) it could start now", {"nodes": "1-1"}, 1)


# (seed, exact): checker sessions (tools/why_pending_check.py) in each of which why_pending
# makes promises, says "no small change" and says when fewer nodes would start the job sooner:
# tiny and teaching presets, easy, conservative and slurm (no seed up to 1900 gives all three
# under fifo, whose hints the other tests check)
_SESSIONS = [(111, True), (121, True), (173, True), (231, True), (270, True)]
_SESSIONS += [(121, False), (173, False), (281, False)]


@pytest.mark.parametrize(("seed", "exact"), _SESSIONS)
def test_every_claim_holds_on_random_sessions(seed, exact):
    """On random Lab sessions (presets, policies, QOS limits, arrays, --mem=0, jobs
    submitted over time), each change why_pending promises starts the job now (by the next
    backfill cycle under slurm), made with lab.update in a replay; when it says no small
    change would start it now, none of fewer nodes, a shorter limit or another partition
    does; and (``exact``: every job runs for its whole limit, the picture the words assume)
    a change it says would start it sooner if nothing else changes does
    (tools/why_pending_check.py, by brute force)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = check([seed], exact=exact)
    assert n["promises"] > 0 and n["no small change"] > 0 and n["sooner claims"] > 0, n
    assert n["false promise (not now)"] == 0, n
    assert n["false no-change (now)"] == 0, n
    assert not exact or n["false sooner claim"] == 0, n


_MIXED = """ClusterName=mixed
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=a1 CPUs=16 RealMemory=64000
NodeName=b1 CPUs=16 RealMemory=128000
NodeName=solo CPUs=16 RealMemory=64000
PartitionName=one Nodes=solo Default=YES MaxTime=1-00:00:00 State=UP
PartitionName=mix Nodes=a1,b1 MaxTime=1-00:00:00 State=UP
PartitionName=big Nodes=b1 MaxTime=1-00:00:00 State=UP
"""


def test_a_move_hint_is_tested_on_the_nodes_a_whole_memory_job_would_get():
    """A --mem=0 job takes each node's whole memory, so only nodes none of whose memory is
    allocated fit it (cons_common _job_test; placement.fitting_mask's whole_memory), and a
    move is tested against the jobs ahead on the nodes it would get there: moved to mix,
    where b1 runs a job of 1000 MB and a1 is idle, it gets a1, which job 3 (ahead of it,
    planned on b1, its partition's only node) cannot use, so the move is offered and starts
    it on a1."""
    for policy in ("easy", "conservative"):
        lab = Lab(Cluster.from_slurm_conf(_MIXED), policy)
        lab.sbatch("-p one -N 1 -t 60 --exclusive", runtime=3600)
        lab.sbatch("-p mix -w b1 -t 120 -c 12 --mem=1000", runtime=7200)
        lab.sbatch("-p big -N 1 -t 30 --exclusive", runtime=1800)  # planned on b1 at 2 h
        j = lab.sbatch("-p one -N 1 -t 30 -c 2 --mem=0", runtime=600)
        lab.advance(45)
        _hint_holds(lab, j, "partition 'mix' has room for it now (-p mix)", {"partition": "mix"}, 1)
        assert lab.sim._lookup(j)[0].nodes == (lab.sim.node_index["a1"],), policy  # noqa: SLF001


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
