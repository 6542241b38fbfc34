"""Fidelity against real Slurm: the simulator replays each scenario that real Slurm 22.05 ran
(datasets/realslurm, made by `make realslurm`) and must start every run within the tolerance
of the real start, in the same order.

Tolerance: 10 s = 2 x bf_interval (5 s in the fixtures' slurm.conf). Real Slurm starts jobs
from asynchronous scheduler runs (the event-driven main scheduler is rate-limited, backfill
runs every bf_interval) and sees each job end a second or so late (epilog, slurmd message),
which adds up along a chain of jobs; sacct times are whole seconds. The simulator applies
every event at its exact instant.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "realslurm"))

from scorecard import SIMPLIFICATIONS, TOLERANCE_S, replay, scenario_runs  # noqa: E402

from slurmlab.analysis.fidelity import order_violations  # noqa: E402

SCENARIOS = list(scenario_runs())


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_simulated_starts_follow_real_slurm(yaml_path, out):
    """Every run starts within TOLERANCE_S of real Slurm's start (or never starts on both)."""
    cmp = replay(yaml_path, out)
    bad = cmp[~cmp["within"]]
    unexplained = [
        (r.key, r.run, r.start_real, r.start_sim)
        for r in bad.itertuples()
        if abs(r.diff_s) > SIMPLIFICATIONS.get((yaml_path.stem, r.key), (TOLERANCE_S, ""))[0]
    ]
    assert not unexplained, (
        f"{yaml_path.stem}: (job, run, real start, simulated start) {unexplained}"
    )


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_simulated_start_order_matches_real_slurm(yaml_path, out):
    """No two runs that real Slurm started more than TOLERANCE_S apart start the other way round."""
    cmp = replay(yaml_path, out)
    assert order_violations(cmp, tolerance_s=TOLERANCE_S) == []


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_final_states_match_real_slurm(yaml_path, out):
    """Each run ends in the state real Slurm recorded (suffixes such as 'by 0' dropped)."""
    cmp = replay(yaml_path, out).dropna(subset=["state_real", "state_sim"])
    differ = cmp[cmp["state_real"] != cmp["state_sim"]]
    assert differ.empty, differ[["key", "run", "state_real", "state_sim"]].to_string()


def test_every_scenario_has_been_run_on_real_slurm():
    """Every scenario file has its real-Slurm outputs committed."""
    files = sorted(p.stem for p in (ROOT / "datasets/realslurm/scenarios").glob("*.yaml"))
    assert sorted(p.stem for p, _ in SCENARIOS) == files


def test_backfill_flags_agree_where_slurm_backfilled_a_job_ahead():
    """The short GPU job real Slurm started by backfill ahead of the blocked 4-node job is
    started by backfill in the simulation too, and the long one waits for the big job."""
    cmp = replay(
        ROOT / "datasets/realslurm/scenarios/backfill.yaml", ROOT / "datasets/realslurm/backfill"
    )
    row = cmp.set_index("key")
    assert row.loc["short", "started_by_real"] == row.loc["short", "started_by_sim"] == "backfill"
    assert row.loc["long", "start_sim"] >= row.loc["big", "start_sim"]
    assert isinstance(row.loc["big", "start_real"], float) and not pd.isna(
        row.loc["big", "start_real"]
    )
