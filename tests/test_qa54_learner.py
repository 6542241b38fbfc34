"""What a learner on the ai preset reads about their jobs, checked against Slurm 22.05."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Lab, SlurmlabError


def test_why_pending_names_the_first_start_the_reservations_allow_not_their_last_end():
    """A 20-node job kept out by two advance reservations (a maintenance window over
    gpu[001-016] from 1 h to 3 h, a 4-node one from 30 min to 4 h 30) can start once the
    maintenance is over: the 28 nodes the second leaves then hold it (reservation.c
    ``job_test_resv`` removes only the nodes of reservations overlapping the job's window),
    so backfill plans it at 3 h, and why_pending says 3 h at the earliest, not after 4 h 30,
    the last reservation's end."""
    lab = Lab("ai", policy="slurm")
    lab.reserve("pm", "2h", start="1h", nodes="gpu[001-016]", flags=["maint"], users=["root"])
    lab.reserve("demo", "4h", start="30m", nodes="gpu[001-004]", users=["you"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = lab.sbatch("-N 20 --gres=gpu:8 -t 2:00:00", runtime=3000)
    lab.advance("1m")
    queue = lab.squeue().set_index("JOBID")
    assert queue.loc[str(big), "START_TIME"].isoformat() == "2026-01-05T03:00:01"
    text = lab.why_pending(big)
    assert "starts at t=10800s (2026-01-05T03:00:00) at the earliest" in text, text
    assert "t=16200s" not in text, text


def test_a_reservation_by_node_count_takes_nodes_outside_a_maintenance_window_first():
    """``scontrol create reservation NodeCnt=4`` over a window a maintenance reservation
    overlaps on gpu[001-016] gets gpu[017-020]: reservation.c ``_pick_nodes_ordered`` picks
    from the nodes of no overlapping reservation (SELECT_NOT_RSVD, MAINT included) before
    those a MAINT one holds (SELECT_OVR_RSVD); only when too few are free does it take the
    maintenance window's nodes, lowest-named first."""
    lab = Lab("ai")
    lab.reserve("pm", "2h", start="1h", nodes="gpu[001-016]", flags=["maint"], users=["root"])
    assert lab.reserve("demo", "4h", start="30m", node_count=4, users=["you"]) == (
        "gpu017",
        "gpu018",
        "gpu019",
        "gpu020",
    )
    assert lab.reserve("wide", "1h", start="30m", node_count=14, users=["you"]) == tuple(
        [f"gpu{i:03d}" for i in (1, 2)] + [f"gpu{i:03d}" for i in range(21, 33)]
    )


def test_a_reservation_by_node_count_beside_a_running_job_picks_from_the_next_bitmap():
    """reservation.c ``_pick_node_cnt`` takes nothing from a bitmap whose nodes, less those
    a running job holds past the reservation's start, are too few for what is left to pick:
    with gpu[017-032] free of reservations but gpu017 busy for 2 h, NodeCnt=16 from 30 min
    skips them and takes the 16 lowest-named of the next bitmap (SELECT_OVR_RSVD: the
    maintenance window's nodes too), gpu[001-016]."""
    lab = Lab("ai")
    lab.reserve("pm", "2h", start="1h", nodes="gpu[001-016]", flags=["maint"], users=["root"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab.sbatch("-N 1 -w gpu017 -t 2:00:00", runtime=7200)
    lab.advance(1)
    held = lab.reserve("demo", "4h", start="30m", node_count=16, users=["you"])
    assert held == tuple(f"gpu{i:03d}" for i in range(1, 17))
    assert lab.reserve("more", "1h", start="30m", node_count=4, users=["you"]) == tuple(
        f"gpu{i:03d}" for i in range(18, 22)
    )


def test_why_pending_under_maintenance_names_when_the_windows_leave_room():
    """Two maintenance windows under way: pm1 over all of train until 2 h, pm2 over
    gpu[001-004] until 5 h. A 1-node job waits 'ReqNodeNotAvail, Reserved for maintenance'
    (node_scheduler.c) and starts when pm1 ends, on gpu005 (reservation.c
    ``job_test_resv`` keeps it off pm2's nodes only); why_pending names that time, not
    pm2's end."""
    lab = Lab("ai", policy="easy")
    lab.reserve("pm1", "2h", start="10s", nodes="gpu[001-032]", flags=["maint"], users=["root"])
    lab.reserve("pm2", "5h", start="10s", nodes="gpu[001-004]", flags=["maint"], users=["root"])
    lab.advance("1m")
    job = lab.sbatch("-N 1 --gres=gpu:8 -t 1:00:00", runtime=600)
    lab.advance("1m")
    text = lab.why_pending(job)
    assert "(ReqNodeNotAvail, Reserved for maintenance)" in text, text
    assert "starts at t=7210s (2026-01-05T02:00:10) at the earliest" in text, text
    lab.run()
    start = lab.sacct().set_index("JobID").loc[str(job), "Start"]
    assert start.isoformat() == "2026-01-05T02:00:10"


def test_a_reservation_never_shares_a_node_with_one_placed_around_a_running_job():
    """Two reservations may not hold one node at one time (reservation.c ``_resv_overlap``:
    "Requested nodes are busy"). 'a' (NodeCnt=4) was created while a job held gpu001, so it
    holds gpu[002-005]; 'b' over the same window must leave those to it: gpu[006-009]."""
    lab = Lab("ai")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab.sbatch("-N 1 -w gpu001 -t 2:00:00", runtime=7200)
    lab.advance(1)
    assert lab.reserve("a", "1h", start="10m", node_count=4, users=["you"]) == tuple(
        f"gpu{i:03d}" for i in range(2, 6)
    )
    assert lab.reserve("b", "1h", start="5m", node_count=4, users=["you"]) == tuple(
        f"gpu{i:03d}" for i in range(6, 10)
    )


def test_why_pending_under_maintenance_for_a_job_of_several_partitions():
    """A ``-p train,debug`` job under a maintenance window over every node of both waits
    'ReqNodeNotAvail, Reserved for maintenance' in each partition's queue record, and
    why_pending names the window's end as its earliest start (each record's nodes)."""
    lab = Lab("ai", policy="slurm")
    lab.reserve("pm", "2h", start="10s", nodes="gpu[001-032]", flags=["maint"], users=["root"])
    lab.advance(60)
    job = lab.sbatch("-p train,debug -N 1 --gres=gpu:8 -t 30", runtime=600)
    lab.advance(60)
    text = lab.why_pending(job)
    assert "starts at t=7210s (2026-01-05T02:00:10) at the earliest" in text, text


def test_a_reservation_by_node_count_skips_drained_and_down_nodes():
    """reservation.c ``_select_nodes`` picks a reservation's NodeCnt among SELECT_AVL_RSVD's
    nodes, up and not drained (``avail_node_bitmap``): with gpu001 drained and gpu002 down
    it reserves gpu[003-004]. A maintenance reservation may take them, last (its bitmaps go
    on to the online and then all nodes)."""
    lab = Lab("ai")
    lab.drain("gpu001")
    lab.fail("gpu002")
    assert lab.reserve("r", "1h", start="10m", node_count=2, users="you") == ("gpu003", "gpu004")
    other = Lab("ai")
    other.drain("gpu[002-032]")
    with pytest.raises(SlurmlabError, match="1 are not held by other reservations, nor down"):
        other.reserve("r", "1h", start="10m", node_count=2, users="you")
    assert other.reserve("pm", "1h", start="10m", node_count=2, users="root", flags="maint") == (
        "gpu001",
        "gpu002",
    )
