"""Stop 47: fidelity against the real-Slurm fixtures recorded on 2026-12-07 in areas the
earlier ones covered thinly (datasets/realslurm: resv-backfill, preempt-gpu, fair-nice,
node-fail-gpu).

* backfill.c rounds its map's edges on **epoch** seconds (``end_reserve /
  backfill_resolution``), so on a cluster whose t0 is off the 10-s grid a plan after a
  reservation that ends at :45 is cut at :40 (preempt-gpu's r at 265 s, not 270 s); the
  ``slurm`` policy rounded on the simulation's own clock.
* The will-run test of a try at a map record's edge (TRY_LATER) first tests the job on the
  resources free *now* (cons_common/job_test.c ``_will_run_test``, SELECT_MODE_RUN_NOW),
  so the planned nodes are the ones tightest now, not the best fit once the running jobs
  have ended (preempt-gpu's r on gpu4, not the idle gpu1).
* The will-run test skips running jobs on the nodes an advance reservation takes out of
  the try (job_test_resv's ``avail_bitmap``): the ``reservation`` fixture's long_blocked was
  planned at fill's end (180 s), not at the end of the job running in the reservation
  beside it (210 s).
* Backfill plans the jobs of an advance reservation once it has begun, on its nodes and
  before the other jobs (resv-backfill's in2, in3; job_test_resv, sort_job_queue2), and
  tries a job held back by a reservation again at its end rounded up to ``bf_resolution``
  plus 1 s (reservation.c ``find_resv_end``; a maintenance one over the job's whole
  partition: its exact end).
* Nothing calls the main scheduler at a reservation's end (reservation.c, controller.c
  ``_slurmctld_background``): the next backfill cycle starts what waited for its nodes
  (resv-backfill's big by backfill at 162 s, here 160 s, the simulation's cycle grid).
* The periodic main-scheduler pass falls every sched_interval from slurmctld's start
  (``last_full_sched_time``): the scenarios give it as ``slurmctld_start`` from the
  recording's log, and the requeued runs start when real Slurm started them.
"""

from __future__ import annotations

import pandas as pd
import pytest
from realslurm_fixtures import DATA, ids, real_queue, sim_runs, starts
from realslurm_fixtures import replay as _run

from slurmlab.policies.nodespace import NodeSpace, slot_of
from slurmlab.sim.result import sprio_frame, squeue_frame


def _plan(name: str, t: float) -> pd.DataFrame:
    """The simulation's squeue --start at ``t``: start (seconds from t0), nodes, reason."""
    sim = _run(name).sim
    frame = squeue_frame(sim, t).set_index("JOBID")
    start = frame["START_TIME"].map(
        lambda s: None if s is None or pd.isna(s) else (s - sim.origin).total_seconds()
    )
    return pd.DataFrame(
        {"start": start, "nodes": frame["SCHEDNODES"], "reason": frame["NODELIST(REASON)"]}
    )


# ---- the backfill map on the epoch's grid (fixed here) -------------------------------------


def test_backfill_slots_are_on_the_epochs_grid():
    """backfill.c rounds epoch seconds: with time 0 at an epoch second ending in 5 (offset 5
    of a 10-s resolution) the slot edges fall at ...5 s of the simulation's clock."""
    assert slot_of(270.0, 10.0, 5.0) == 265.0
    assert slot_of(265.0, 10.0, 5.0) == 265.0
    assert slot_of(270.0, 10.0) == 270.0  # (time 0 on the grid)
    space = NodeSpace(3.0, 100.0, 10.0, 2, offset=5.0)
    assert (space.begin, space.end) == (-5.0, 95.0)


def test_preempt_gpu_plan_after_a_reservation_is_cut_on_the_epoch_grid_on_the_node_free_now():
    """preempt-gpu (t0 at :15): at 50 s real squeue --start planned r (1 GPU, 3:00) at 265 s
    on gpu4, where big's reservation (150 s + 2:00, cut on the epoch's 10-s grid) ends and
    where n1 left one GPU free then; the simulator plans the same."""
    real = real_queue("preempt-gpu")
    row = real[(real["t"] == 50) & (real["key"] == "r")].iloc[0]
    assert row["start_s"] == 265
    snap = (DATA / "preempt-gpu/snapshots.txt").read_text().split("######## t=+50s")[1]
    assert "r    alice PD 2026-12-07T04:58:40      1 gpu4" in snap
    plan = _plan("preempt-gpu", 50.0)
    assert plan.loc["r", "start"] == 265.0 and plan.loc["r", "nodes"] == "gpu4"
    assert plan.loc["big", "start"] == 150.0 and plan.loc["big", "nodes"] == "gpu[1-4]"


@pytest.mark.parametrize("t", [90, 100, 110])
def test_a_will_run_plan_leaves_out_the_jobs_running_in_an_advance_reservation(t):
    """reservation: long_blocked (1 node, 3:00) cannot use gpu[3-4], reserved from 90 s;
    real squeue --start showed it at 180 s (fill's end on gpu[1-2]) while in_resv ran on
    gpu[3-4] to 210 s: that job is on nodes the try does not hold, so the will-run test's
    batch leaves it out; the simulator now plans it so (it planned 210 s)."""
    real = real_queue("reservation")
    assert real[(real["t"] == t) & (real["key"] == "long_blocked")]["start_s"].item() == 180
    plan = _plan("reservation", float(t))
    assert plan.loc["long_blocked", "start"] == 180.0
    assert plan.loc["long_blocked", "nodes"] == "gpu1"


# ---- preempt-gpu ---------------------------------------------------------------------------


def test_preempt_gpu_victims_are_the_one_node_jobs_then_the_two_node_one():
    """preempt/qos, PreemptMode=REQUEUE: h1 (3 GPUs on one node) preempted both of gpu1's
    one-node low jobs at 20 s (slurmctld: "preempted JobId=1 ... JobId=2 ... for JobId=5"),
    not the two-node l3, which h2 preempted at 30 s; each victim was requeued (Submit at
    the preemption, eligible 121 s later). The simulation does the same."""
    log = (DATA / "preempt-gpu/preempt.log").read_text()
    assert "JobId=1 has been requeued to reclaim resources for JobId=5" in log
    assert "JobId=2 has been requeued to reclaim resources for JobId=5" in log
    assert "JobId=3 has been requeued to reclaim resources for JobId=6" in log
    real = starts("preempt-gpu")
    sim = sim_runs("preempt-gpu")
    for key, end, eligible in (("l1", 20, 141), ("l2", 20, 141), ("l3", 30, 151)):
        r = real[real["key"] == key].sort_values("start_s")
        s = sim[sim["JobID"] == key].sort_values("start_s")
        assert list(r["state"]) == ["PREEMPTED", "COMPLETED"] == list(s["State"])
        assert r.iloc[0]["end_s"] == end and s.iloc[0]["end_s"] == end
        assert r.iloc[1]["eligible_s"] == eligible and s.iloc[1]["eligible_s"] == eligible
    runs = sim.set_index("JobID")
    assert (runs.loc["h1", "NodeList"], runs.loc["h1", "start_s"]) == ("gpu1", 20.0)
    assert (runs.loc["h2", "NodeList"], runs.loc["h2", "start_s"]) == ("gpu[2-3]", 30.0)


def test_preempt_gpu_requeued_runs_wait_for_the_periodic_pass():
    """The requeued runs, eligible at 141-151 s on an idle partition, started at 170 s in
    real Slurm: slurmctld's periodic main-scheduler pass, every sched_interval from its
    own start (controller.c ``_slurmctld_background``: ``last_full_sched_time``), which its
    log puts 10 s before t0 (the scenario's ``slurmctld_start: -10``), not at their begin
    time; the simulator's periodic pass falls at 170 s too."""
    real = starts("preempt-gpu")
    again = real[real["state"] == "COMPLETED"].set_index("key")
    assert set(again.loc[["l1", "l2", "l3"], "start_s"]) == {170}
    sim = sim_runs("preempt-gpu")
    second = sim[(sim["State"] == "COMPLETED") & sim["JobID"].isin(["l1", "l2", "l3"])]
    assert set(second["start_s"]) == {170.0}
    assert set(second["StartedBy"]) == {"main"}


# ---- resv-backfill -------------------------------------------------------------------------


def test_resv_backfill_jobs_in_a_reservation_wait_for_its_start_then_share_it():
    """Jobs asking for the reservation pend with Reason Reservation and no expected start
    until it begins (40 s); in1 took both its nodes then, in2 and in3 shared gpu3 when in1
    ended, in real Slurm and in the simulation; every job's Timelimit is whole minutes
    (bf2's -t 0:30 is 00:01:00, so it would reach into the reservation and waited)."""
    real = real_queue("resv-backfill")
    for t in (20, 30):
        want = real[(real["t"] == t) & real["key"].isin(["in1", "in2", "in3"])]
        assert set(want["reason"]) == {"Reservation"} and want["start_s"].isna().all()
        plan = _plan("resv-backfill", float(t))
        for key in ("in1", "in2", "in3"):
            assert plan.loc[key, "reason"] == "(Reservation)" and pd.isna(plan.loc[key, "start"])
    began = starts("resv-backfill").set_index("key")
    sim = sim_runs("resv-backfill").set_index("JobID")
    for key, start, nodes in (("in1", 41, "gpu[3-4]"), ("in2", 71, "gpu3"), ("in3", 71, "gpu3")):
        assert (began.loc[key, "start_s"], began.loc[key, "nodelist"]) == (start, nodes)
        assert abs(sim.loc[key, "start_s"] - start) <= 2 and sim.loc[key, "NodeList"] == nodes
    sacct = pd.read_csv(DATA / "resv-backfill/sacct.txt", sep="|", dtype=str)
    limits = sacct[~sacct["JobID"].str.contains(".", regex=False)].set_index("JobName")
    assert limits.loc["bf2", "Timelimit"] == "00:01:00"
    assert sim.loc["bf2", "Timelimit"] == pd.Timedelta(minutes=1)
    assert began.loc["bf2", "start_s"] == 71


def _squeue_start(name: str, t: int) -> dict[str, tuple[str, str]]:
    """Real ``squeue --start -a -r`` at ``t``: job key -> (START_TIME, SCHEDNODES)."""
    by_real = {v: k for k, v in ids(name).items()}
    block = (DATA / name / "snapshots.txt").read_text().split(f"######## t=+{t}s")[1]
    lines = block.split("$ squeue --start -a -r\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return {by_real[f[0]]: (f[5], f[7]) for f in (line.split() for line in lines[1:])}


@pytest.mark.parametrize("t", [50, 60])
def test_resv_backfill_jobs_of_a_begun_reservation_are_planned_on_its_nodes(t):
    """Once a reservation has begun, backfill plans the jobs queued in it like any other,
    on its nodes (backfill.c ``_attempt_backfill``: reservation.c ``job_test_resv`` gives such
    a job the reservation's nodes, with no bound on its end), and before the other jobs
    (job_scheduler.c ``sort_job_queue2`` sorts jobs with a reservation first): real
    squeue --start showed in2 and in3 at in1's limit (101 s; 100 s here, where in1 started a
    second earlier) on gpu3 and gpu4, and in3's plan (2:00) reaching past the reservation's
    end (160 s) held gpu4 to 220 s, so at 60 s big (three whole nodes) was planned at 219 s
    on gpu[2-4]. The simulation plans every pending job on real Slurm's nodes."""
    real = real_queue("resv-backfill")
    now = real[real["t"] == t].set_index("key")
    assert now.loc["in2", "start_s"] == 101 and now.loc["in3", "start_s"] == 101
    plan = _plan("resv-backfill", float(t))
    assert plan.loc["in2", "start"] == 100.0 and plan.loc["in3", "start"] == 100.0
    shown = _squeue_start("resv-backfill", t)
    assert len(shown) == 6
    for key, (_start, nodes) in shown.items():
        assert plan.loc[key, "nodes"] == nodes, (t, key)
        assert abs(plan.loc[key, "start"] - now.loc[key, "start_s"]) <= 1, (t, key)
    assert now.loc["big", "start_s"] == plan.loc["big", "start"] == (170 if t == 50 else 219)


def test_resv_backfill_jobs_of_a_reservation_not_begun_get_no_plan():
    """Before the reservation begins, job_test_resv defers its jobs (ESLURM_INVALID_TIME_VALUE,
    "reservation defer"): no expected start, reason Reservation, in real Slurm and here."""
    plan = _plan("resv-backfill", 30.0)
    assert plan.loc[["in1", "in2", "in3"], "start"].isna().all()
    assert set(plan.loc[["in1", "in2", "in3"], "nodes"]) == {None}


def test_resv_backfill_a_job_after_a_reservation_is_planned_at_its_end_rounded_up_plus_1():
    """A job whose window overlaps an advance reservation loses its nodes for that try, and
    backfill.c tries again at the reservation's end rounded up to bf_resolution (on epoch
    seconds) plus 1 s (reservation.c ``find_resv_end``, backfill.c ``++resv_end``): real
    squeue --start showed big at 170 s at 10-40 s (the reservation ended at 160 s, epoch
    :21 -> :30 + 1), and so does the simulation. Nothing calls the main scheduler at the
    reservation's end, so real Slurm's next backfill cycle started big (162 s), and so
    does the simulation's (160 s, where its 5-s cycle grid falls)."""
    real = real_queue("resv-backfill")
    for t in (10, 20, 30, 40):
        assert real[(real["t"] == t) & (real["key"] == "big")]["start_s"].item() == 170
        plan = _plan("resv-backfill", float(t))
        assert plan.loc["big", "start"] == 170.0 and plan.loc["big", "nodes"] == "gpu[1-3]"
    began = starts("resv-backfill").set_index("key")
    assert began.loc["big", "start_s"] == 162
    assert began.loc["big", "flags"].startswith("SchedBackfill")
    sim = sim_runs("resv-backfill").set_index("JobID")
    assert (sim.loc["big", "start_s"], sim.loc["big", "StartedBy"]) == (160.0, "backfill")


# ---- fair-nice ---------------------------------------------------------------------------------


def test_fair_nice_priorities_with_nice_and_fair_share_match_real_sprio():
    """Every real sprio row (fair share recomputed at slurmctld's minute, --nice 300 and 100,
    array tasks) has the simulation's weighted factors and nice, and the job's priority
    within the age factor's few points."""
    real = pd.read_csv(DATA / "fair-nice/sprio.csv", dtype={"job_id": str})
    by_real = {v: k for k, v in ids("fair-nice").items()}
    sim = _run("fair-nice").sim
    compared = 0
    for t, snap in real.groupby("t"):
        got = sprio_frame(sim, float(t)).set_index("JOBID")
        for row in snap.itertuples():
            base, _, task = row.job_id.partition("_")
            key = by_real[base] + (f"_{task}" if task else "")
            if key not in got.index:
                continue  # started a second earlier in the simulation
            mine = got.loc[key]
            assert (mine["FAIRSHARE"], mine["JOBSIZE"], mine["NICE"]) == (
                row.fairshare,
                row.jobsize,
                row.nice,
            ), (t, key)
            assert abs(mine["PRIORITY"] - row.priority) <= 5, (t, key)
            compared += 1
    assert compared >= 30


def test_fair_nice_start_order_follows_fair_share_and_nice():
    """After blk, alice's array and a_big went first (equal fair share before the first
    recalculation, larger job first), then the rest of alice's array with carol's throttled
    c_arr (%2), then carol's cn and late, and bob's --nice=300 jobs last although queued
    before cn: the order real Slurm started them in, which the simulation keeps."""
    real_start = starts("fair-nice").set_index("key")["start_s"]
    waves = [
        ("a_arr_0", "a_arr_1", "a_big"),
        ("a_arr_2", "a_arr_3", "c_arr_0", "c_arr_1"),
        ("c_arr_2", "c_arr_3"),
        ("cn", "late"),
        ("b1", "b2"),
    ]
    sim = sim_runs("fair-nice").set_index("JobID")["start_s"]
    for early, later in zip(waves, waves[1:], strict=False):
        assert max(real_start[list(early)]) < min(real_start[list(later)])
        assert max(sim[list(early)]) < min(sim[list(later)])


@pytest.mark.parametrize("t", [30, 40])
def test_fair_nice_plans_match_real_squeue_start(t):
    """At 30 and 40 s real squeue --start planned c_arr's tasks, cn and b1 at 134 s and b2
    at 194 s on the epoch's grid (t0 at :06), on the nodes the simulation plans."""
    real = real_queue("fair-nice")
    want = real[(real["t"] == t) & (real["state"] == "PENDING")].set_index("key")
    plan = _plan("fair-nice", float(t))
    for key in ("c_arr_0", "cn", "b1", "b2"):
        assert plan.loc[key, "start"] == want.loc[key, "start_s"], key


# ---- node-fail-gpu ---------------------------------------------------------------------------


def test_node_fail_gpu_requeue_flags_decide_each_gpu_jobs_fate():
    """gpu1 set DOWN at 30 s under two jobs sharing its GPUs: g1 (--requeue) ended NODE_FAIL
    and ran again (Submit 30, eligible 121 s later, started by the periodic pass at 172 s,
    slurmctld having started 8 s before t0, in real Slurm and here), g2 (--no-requeue) ended NODE_FAIL for good; g3 and g4 on the
    other nodes ran on. The simulation has the same runs and states."""
    real = starts("node-fail-gpu")
    sim = sim_runs("node-fail-gpu")
    for frame, state, start in ((real, "state", "start_s"), (sim, "State", "start_s")):
        key = "key" if "key" in frame else "JobID"
        g1 = frame[frame[key] == "g1"].sort_values(start)
        assert list(g1[state]) == ["NODE_FAIL", "COMPLETED"]
        assert list(frame[frame[key] == "g2"][state]) == ["NODE_FAIL"]
    g1_real = real[real["key"] == "g1"].sort_values("start_s").iloc[1]
    assert (g1_real["submit_s"], g1_real["eligible_s"], g1_real["start_s"]) == (30, 151, 172)
    g1_sim = sim[sim["JobID"] == "g1"].sort_values("start_s").iloc[1]
    assert (g1_sim["submit_s"], g1_sim["eligible_s"], g1_sim["start_s"]) == (30.0, 151.0, 172.0)


@pytest.mark.parametrize("t", [40, 50, 60, 70])
def test_node_fail_gpu_a_job_planned_on_the_down_node_waits_for_it(t):
    """big (-N 4, 2 GPUs a node) needs gpu1: while it is DOWN (30-80 s) real squeue showed
    "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority
    partitions" and no expected start, as the simulation does; w and w2 backfilled on gpu4
    meanwhile, and big started at 82 s (here 80 s) on gpu[1-4]."""
    real = real_queue("node-fail-gpu")
    want = real[(real["t"] == t) & (real["key"] == "big")].iloc[0]
    assert want["reason"].startswith("Nodes required for job are DOWN")
    assert pd.isna(want["start_s"])
    plan = _plan("node-fail-gpu", float(t))
    assert plan.loc["big", "reason"] == f"({want['reason']})"
    assert pd.isna(plan.loc["big", "start"])
    runs = sim_runs("node-fail-gpu").set_index("JobID")
    assert runs.loc["big", "NodeList"] == "gpu[1-4]" and runs.loc["big", "start_s"] == 80.0
    assert runs.loc["w", "NodeList"] == runs.loc["w2", "NodeList"] == "gpu4"
