"""The simulator against real Slurm 22.05 on preemption's choices and timing
(datasets/realslurm/preempt-reorder, preempt-grace and begin-quiet, recorded 2026-12-07).

preempt-reorder ran with ``PreemptType=preempt/qos``, ``PreemptMode=REQUEUE`` and
``PreemptExemptTime=UNLIMITED``; QOS high (1000) may preempt low (0) and normal (10), no
GraceTime; every job pinned with -w. preempt-grace ran with ``PreemptExemptTime=-1``; QOS high
may preempt low (GraceTime 30 s, ``PreemptMode=OFF``) and normal (``PreemptMode=CANCEL``).
begin-quiet ran with the shared settings: a job pinned with -w waiting in front of a smaller
one, and a ``--begin`` job whose begin time passes with nothing else happening. Each test
replays the scenario and checks one rule on both sides; times are seconds from t0, a
simulated time within TOLERANCE_S of the real one (see tests/test_fidelity.py).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
TOLERANCE_S = 10.0  # 2 x bf_interval, as in tests/test_fidelity.py
NAMES = ("preempt-reorder", "preempt-grace", "begin-quiet")

pytestmark = pytest.mark.skipif(
    not all((DATA / n / "starts.csv").exists() for n in NAMES), reason="no preempt2 fixtures"
)


def _with_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Number each job's runs 0, 1, ... in submit order (a requeue starts a new run)."""
    frame = frame.sort_values(["id", "submit"], kind="stable")
    return frame.assign(run=frame.groupby("id").cumcount()).set_index(["id", "run"])


def real_runs(name: str) -> pd.DataFrame:
    """Real Slurm's runs (starts.csv): submit, eligible, start, end, state, nodes, flags."""
    starts = pd.read_csv(DATA / name / "starts.csv", dtype={"id": str})
    frame = starts.rename(columns=lambda c: c.removesuffix("_s"))
    frame["state"] = frame["state"].str.split().str[0]
    cols = ["id", "submit", "eligible", "start", "end", "state", "nodelist", "flags"]
    return _with_runs(frame[cols])


def sim_runs(name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The simulator's runs of the same scenario in the same shape, and its event log."""
    from slurmlab.scenario import Scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(DATA / "scenarios" / f"{name}.yaml").run()
    jobs = result.sacct(duplicates=True)
    origin = jobs.attrs["origin"]
    frame = pd.DataFrame({"id": jobs["JobID"].astype(str), "state": jobs["State"].astype(str)})
    for col in ("Submit", "Eligible", "Start", "End"):
        frame[col.lower()] = (jobs[col] - origin).dt.total_seconds()
    frame["nodelist"] = jobs["NodeList"].astype(str)
    return _with_runs(frame), result.events


@pytest.fixture(scope="module")
def reorder():
    return real_runs("preempt-reorder"), *sim_runs("preempt-reorder")


@pytest.fixture(scope="module")
def grace():
    return real_runs("preempt-grace"), *sim_runs("preempt-grace")


@pytest.fixture(scope="module")
def quiet():
    return real_runs("begin-quiet"), *sim_runs("begin-quiet")


def preempted(side: pd.DataFrame) -> set[str]:
    return set(side[side["state"] == "PREEMPTED"].index.get_level_values("id"))


def test_fixtures_ran_with_the_scenarios_settings():
    """UNLIMITED and -1 both show as no exempt time (scontrol: NONE); sacctmgr stores a QOS
    PreemptMode=OFF as the cluster's mode ("cluster"), CANCEL as itself."""
    for name, exempt in (("preempt-reorder", "UNLIMITED"), ("preempt-grace", "-1")):
        own = (DATA / f"{name}.slurm.conf").read_text()
        assert f"\nPreemptExemptTime={exempt}\n" in own
        config = (DATA / f"{name}.scontrol-show-config.txt").read_text()
        assert re.search(r"^PreemptExemptTime\s+= NONE$", config, re.M)
        assert re.search(r"^PreemptType\s+= preempt/qos$", config, re.M)
    shown = {
        q["Name"]: q for q in json.loads((DATA / "preempt-grace/meta.json").read_text())["qos"]
    }
    assert shown["low"]["PreemptMode"] == "cluster" and shown["low"]["GraceTime"] == "00:00:30"
    assert shown["normal"]["PreemptMode"] == "cancel"
    assert shown["high"]["Preempt"] == "low,normal"


def test_victims_are_re_sorted_after_the_first_fit(reorder):
    """cons_common/job_test.c _run_now (preempt_reorder_count=1): on gpu1 (v1 -n 4, v2
    -n 12) the -n 12 h1 preempts only v2; on gpu2 h2 takes the low job l1, not the older
    normal n1 (QOS priority first, preempt_qos.c _gen_job_prio); h3 (2 nodes x 12 tasks)
    preempts b and d (the -n 12 jobs), not a and c, after two re-sorts. Same on both sides."""
    real, sim, _ = reorder
    for side in (real, sim):
        assert preempted(side) == {"v2", "l1", "b", "d"}
        for job in ("v1", "n1", "a", "c"):
            assert len(side.loc[job]) == 1 and side.loc[(job, 0), "state"] == "COMPLETED"


def test_unlimited_exempt_time_is_none_and_preemptors_start_at_once(reorder):
    """PreemptExemptTime=UNLIMITED exempts nobody: each high job preempts within 2 s of its
    submission, 13-20 s into its victims' runs, and starts in that second on its -w nodes."""
    real, sim, _ = reorder
    for side in (real, sim):
        for job, victims in (("h1", ["v2"]), ("h2", ["l1"]), ("h3", ["b", "d"])):
            start = side.loc[(job, 0), "start"]
            assert start - side.loc[(job, 0), "submit"] <= 2
            for v in victims:
                assert side.loc[(v, 0), "end"] <= start
                assert side.loc[(v, 0), "end"] - side.loc[(v, 0), "start"] < 30
    for job in ("h1", "h2", "h3"):
        assert abs(sim.loc[(job, 0), "start"] - real.loc[(job, 0), "start"]) <= TOLERANCE_S
        assert sim.loc[(job, 0), "nodelist"] == real.loc[(job, 0), "nodelist"]


def test_a_requeued_victim_waits_for_a_pass_after_its_begin_time(reorder, grace):
    """A requeued victim is eligible 121 s after its requeue, but reaching a begin time is no
    event: no main-scheduler call, and no backfill cycle when nothing changed since the last
    (backfill.c _more_work). Real Slurm started every one at the periodic main-scheduler pass
    (172 s, SchedMain), 26-31 s after eligibility in preempt-reorder; the simulator at its
    periodic pass, within the tolerance."""
    for (real, sim, _), jobs in ((reorder, ("v2", "l1", "b", "d")), (grace, ("g2", "g3"))):
        for job in jobs:
            again = real.loc[(job, 1)]
            assert again["eligible"] - again["submit"] == 121
            assert again["start"] == 172 and "SchedMain" in again["flags"]
            assert sim.loc[(job, 1), "state"] == again["state"] == "COMPLETED"
            assert abs(sim.loc[(job, 1), "start"] - again["start"]) <= TOLERANCE_S, job
    real = reorder[0]
    assert min(real.loc[(j, 1), "start"] - real.loc[(j, 1), "eligible"] for j in ("v2", "b")) >= 26


def test_a_victim_that_ends_during_its_grace_time_keeps_its_state(grace):
    """g1 (ignores SIGTERM, runs 25 s) is preempted at 10 s with 30 s of grace and ends by
    itself at 25 s: COMPLETED, one run, not requeued; hA starts once it is gone."""
    real, sim, _ = grace
    for side in (real, sim):
        assert len(side.loc["g1"]) == 1 and side.loc[("g1", 0), "state"] == "COMPLETED"
        assert side.loc[("hA", 0), "start"] >= side.loc[("g1", 0), "end"]
    assert abs(sim.loc[("hA", 0), "start"] - real.loc[("hA", 0), "start"]) <= TOLERANCE_S


def test_a_qos_preempt_mode_off_is_the_clusters_requeue(grace):
    """low's PreemptMode=OFF is the cluster's REQUEUE: g2 and g3 are preempted (PREEMPTED
    run) and requeued, on both sides."""
    real, sim, _ = grace
    for side in (real, sim):
        for job in ("g2", "g3"):
            assert list(side.loc[job, "state"]) == ["PREEMPTED", "COMPLETED"]


def test_a_cancel_victim_ends_at_once_and_its_preemptor_starts_by_the_main_scheduler(grace):
    """g4 (normal: PreemptMode=CANCEL, no grace) ends PREEMPTED at hD's submission (13 s), not
    requeued, and hD starts in the same main-scheduler pass although hA, hB and hC (same
    priority, earlier) wait in the partition: each names its node with -w, and
    job_scheduler.c _schedule then keeps only those nodes from later jobs
    (fail_by_part = false) instead of stopping at the partition."""
    real, sim, events = grace
    for side in (real, sim):
        assert len(side.loc["g4"]) == 1 and side.loc[("g4", 0), "state"] == "PREEMPTED"
        assert side.loc[("hD", 0), "start"] == side.loc[("g4", 0), "end"] == 13
    assert "SchedMain" in real.loc[("hD", 0), "flags"]
    start = events[(events["JobID"] == "hD") & (events["event"] == "start")]
    assert list(start["detail"]) == ["main"]


def test_grace_ends_are_within_the_tolerance(grace):
    """The grace end (preemption + 30 s) is enforced by slurmctld's time-limit check (every
    30 s: g2 and g3 end at 46 s, preempted at 12 s) and a victim that ignores SIGTERM gets
    SIGKILL KillWait (5 s) later (g2's batch step 0:9, hB starts at 51 s); the simulator ends
    them at the grace end exactly (neither is modelled), within the tolerance."""
    real, sim, _ = grace
    assert real.loc[("g2", 0), "end"] == real.loc[("g3", 0), "end"] == 46
    assert real.loc[("hB", 0), "start"] == 51 and real.loc[("hC", 0), "start"] == 46
    for job in ("hB", "hC"):
        assert abs(sim.loc[(job, 0), "start"] - real.loc[(job, 0), "start"]) <= TOLERANCE_S


def test_a_pinned_job_that_waits_does_not_hold_its_partition(quiet):
    """pin (-w gpu1, QOS high) waits for blk; other (-n 1, lower priority) is started by the
    main scheduler (SchedMain, 2 s after its submission, where the submission's own test
    left it Priority), not by backfill, on both sides."""
    real, sim, events = quiet
    assert "SchedMain" in real.loc[("other", 0), "flags"]
    assert real.loc[("other", 0), "start"] < real.loc[("pin", 0), "start"]
    start = events[(events["JobID"] == "other") & (events["event"] == "start")]
    assert list(start["detail"]) == ["main"]
    assert abs(sim.loc[("other", 0), "start"] - real.loc[("other", 0), "start"]) <= TOLERANCE_S


def test_a_begin_time_reached_quietly_waits_for_the_periodic_pass(quiet):
    """late (--begin=now+40, submitted at 100 s with nothing else queued) is eligible at 140
    s and starts at the periodic main-scheduler pass (172 s real, 180 s simulated), not at
    140 s."""
    real, sim, _ = quiet
    assert real.loc[("late", 0), "eligible"] == 140
    assert real.loc[("late", 0), "start"] - 140 >= 20
    assert "SchedMain" in real.loc[("late", 0), "flags"]
    assert sim.loc[("late", 0), "start"] > 140
    assert abs(sim.loc[("late", 0), "start"] - real.loc[("late", 0), "start"]) <= TOLERANCE_S
