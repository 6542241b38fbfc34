"""The simulator against real Slurm 22.05 on preemption (datasets/realslurm/preemption).

Real Slurm ran ``scenarios/preemption.yaml`` with ``PreemptType=preempt/qos``,
``PreemptMode=REQUEUE`` and ``PreemptExemptTime=00:00:30``; QOS high and normal may preempt
low, which has GraceTime 10 s (see datasets/realslurm/README.md). Each test replays the same
file and checks one rule on both sides. Times are seconds from the scenario start; a
simulated time is within TOLERANCE_S of the real one (real Slurm acts from asynchronous
scheduler passes, see tests/test_fidelity.py).

Where the two disagree the comparison is left out and the difference is described in the
dataset README: when a victim past its PreemptExemptTime is chosen (the next main-scheduler
pass in Slurm, at once in the simulator), what happens to a victim that outlives its grace
time (TIMEOUT, not requeued, in Slurm) and when a requeued victim starts again.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
import yaml

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
SCENARIO = DATA / "scenarios" / "preemption.yaml"
OUT = DATA / "preemption"
TOLERANCE_S = 10.0  # 2 x bf_interval, as in tests/test_fidelity.py
GRACE_S = 10.0  # QOS low GraceTime
EXEMPT_S = 30.0  # slurm.conf PreemptExemptTime

pytestmark = pytest.mark.skipif(not (OUT / "starts.csv").exists(), reason="no preemption fixture")


def _with_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Number each job's runs 0, 1, ... in submit order (a requeue starts a new run)."""
    frame = frame.sort_values(["id", "submit"], kind="stable")
    return frame.assign(run=frame.groupby("id").cumcount()).set_index(["id", "run"])


@pytest.fixture(scope="module")
def real() -> pd.DataFrame:
    """Real Slurm's runs (starts.csv): submit, eligible, start, end, state, nodelist."""
    starts = pd.read_csv(OUT / "starts.csv", dtype={"id": str})
    frame = starts.rename(columns=lambda c: c.removesuffix("_s"))
    frame["state"] = frame["state"].str.split().str[0]
    return _with_runs(frame[["id", "submit", "eligible", "start", "end", "state", "nodelist"]])


@pytest.fixture(scope="module")
def sim() -> pd.DataFrame:
    """The simulator's runs of the same scenario, in the same shape."""
    from slurmlab.scenario import Scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jobs = Scenario.load(SCENARIO).run().sacct(duplicates=True)
    origin = jobs.attrs["origin"]
    frame = pd.DataFrame({"id": jobs["JobID"].astype(str), "state": jobs["State"].astype(str)})
    for col in ("Submit", "Eligible", "Start", "End"):
        frame[col.lower()] = (jobs[col] - origin).dt.total_seconds()
    frame["nodelist"] = jobs["NodeList"].astype(str)
    return _with_runs(frame)


def scontrol_times(job: str) -> dict[str, float | None]:
    """StartTime, PreemptEligibleTime and PreemptTime of a job at the last snapshot that
    shows it running, in seconds from t0 (None for a time Slurm shows as None)."""
    meta = json.loads((OUT / "meta.json").read_text())
    t0 = dt.datetime.fromisoformat(meta["t0_local"])
    line = ""
    for text in (OUT / "snapshots.txt").read_text().splitlines():
        if f"JobName={job} " in text and "JobState=RUNNING" in text:
            line = text
    out: dict[str, float | None] = {}
    for key in ("StartTime", "PreemptEligibleTime", "PreemptTime"):
        value = re.search(rf"\b{key}=(\S+)", line).group(1)
        out[key] = (
            None if value == "None" else (dt.datetime.fromisoformat(value) - t0).total_seconds()
        )
    return out


def test_fixture_ran_with_the_scenarios_settings():
    """Real Slurm ran with the scenario's slurm.conf (the shared one plus the three preemption
    lines) and the QOS preemption settings of the scenario's qos block."""
    sc = yaml.safe_load(SCENARIO.read_text())
    own = (SCENARIO.parent / sc["cluster"]["slurm_conf"]).read_text().splitlines()
    shared = (DATA / "slurm.conf").read_text().splitlines()
    assert own[: len(shared)] == shared
    settings = [ln for ln in own[len(shared) :] if ln.strip() and not ln.startswith("#")]
    expected = ["PreemptType=preempt/qos", "PreemptMode=REQUEUE", "PreemptExemptTime=00:00:30"]
    assert settings == expected
    config = (DATA / "preemption.scontrol-show-config.txt").read_text()
    assert re.search(r"^PreemptType\s+= preempt/qos$", config, re.M)
    assert re.search(r"^PreemptExemptTime\s+= 00:00:30$", config, re.M)
    shown = {q["Name"]: q for q in json.loads((OUT / "meta.json").read_text())["qos"]}
    for q in sc["qos"]:
        assert shown[q["name"]]["Priority"] == str(q["priority"])
        assert shown[q["name"]]["Preempt"] == ",".join(q.get("preempt", []))
        grace = int(q.get("grace_time", 0))
        assert shown[q["name"]]["GraceTime"] == f"00:00:{grace:02d}"


def test_the_victim_is_the_low_job_on_fewest_nodes_oldest_first(real, sim):
    """preempt_qos.c orders candidates by QOS priority, then node count, then job list order:
    of small (1 node), filler (1 node, newer) and big (2 nodes, newest) only small is preempted,
    not the youngest job (big) nor the youngest of the smallest (filler)."""
    for side in (real, sim):
        wave = side.loc[["small", "filler", "big"]]
        preempted = set(wave[wave["state"] == "PREEMPTED"].index.get_level_values("id"))
        assert preempted == {"small"}
        assert len(side.loc["filler"]) == len(side.loc["big"]) == 1  # never requeued


def test_the_victim_keeps_running_its_grace_time(real, sim):
    """urgent (high) arrives at t=40 and chooses small at once; small runs on for the QOS
    GraceTime (10 s) and its run ends PREEMPTED, within the tolerance on both sides."""
    submit = real.loc[("urgent", 0), "submit"]
    for side in (real, sim):
        first = side.loc[("small", 0)]
        assert first["state"] == "PREEMPTED"
        assert first["end"] >= submit + GRACE_S
    assert abs(sim.loc[("small", 0), "end"] - real.loc[("small", 0), "end"]) <= TOLERANCE_S


def test_the_preemptor_starts_on_the_victims_node(real, sim):
    """urgent starts once the victim is gone (not before its grace time is over), on the
    node the victim had, within the tolerance of real Slurm's start."""
    for side in (real, sim):
        urgent = side.loc[("urgent", 0)]
        assert urgent["start"] >= side.loc[("small", 0), "end"]
        assert urgent["nodelist"] == side.loc[("small", 0), "nodelist"]
    assert abs(sim.loc[("urgent", 0), "start"] - real.loc[("urgent", 0), "start"]) <= TOLERANCE_S


def test_the_requeued_victim_is_resubmitted_with_the_requeue_delay(real, sim):
    """A victim under PreemptMode=REQUEUE pends again as the same job: its second run is
    submitted when the first ends (within the tolerance) and eligible 121 s later; it then
    completes."""
    for side in (real, sim):
        second = side.loc[("small", 1)]
        assert second["eligible"] - second["submit"] == 121
        assert second["state"] == "COMPLETED"
    for col in ("submit", "eligible"):
        assert abs(sim.loc[("small", 1), col] - real.loc[("small", 1), col]) <= TOLERANCE_S


def test_a_job_sorts_first_only_before_jobs_its_qos_may_preempt(real, sim):
    """sort_job_queue2: behind a normal blocker, cnorm (normal, may preempt low) goes before
    clow (low) although clow has the higher priority, and chigh (high, which normal may not
    preempt) goes before cnorm on priority. Starts chigh < cnorm < clow on both sides."""
    queue = pd.read_csv(OUT / "queue.csv")
    pending = queue[(queue["state"] == "PENDING") & queue["name"].isin(["clow", "cnorm"])]
    first = pending[pending["t"] == pending["t"].min()].set_index("name")["priority"]
    assert first["clow"] > first["cnorm"]  # priority alone would start clow first
    for side in (real, sim):
        starts = [side.loc[(job, 0), "start"] for job in ("chigh", "cnorm", "clow")]
        assert starts == sorted(starts) and len(set(starts)) == 3
    for job in ("cblock", "chigh", "cnorm", "clow"):
        assert abs(sim.loc[(job, 0), "start"] - real.loc[(job, 0), "start"]) <= TOLERANCE_S


def test_no_job_is_preempted_before_its_exempt_time(real, sim):
    """PreemptExemptTime=30 s: fill2 (low, started at 90) may be preempted from t=120
    (scontrol's PreemptEligibleTime), so urgent2 (high, submitted at 95) cannot start
    before then on either side."""
    times = scontrol_times("fill2")
    assert times["PreemptEligibleTime"] - times["StartTime"] == EXEMPT_S
    assert times["PreemptTime"] is None or times["PreemptTime"] >= times["PreemptEligibleTime"]
    for side in (real, sim):
        assert side.loc[("urgent2", 0), "start"] >= side.loc[("fill2", 0), "start"] + EXEMPT_S


def test_jobs_start_as_in_real_slurm_until_the_exempt_time_ends(real, sim):
    """Every run that starts before the exempt-time wave (t < 100) starts within the
    tolerance of real Slurm's start, with the same final state."""
    early = real[real["start"] < 100].index
    assert len(early) == 9
    for key in early:
        assert abs(sim.loc[key, "start"] - real.loc[key, "start"]) <= TOLERANCE_S, key
        if key != ("fill2", 0):  # (its state is one of the documented differences)
            assert sim.loc[key, "state"] == real.loc[key, "state"], key
