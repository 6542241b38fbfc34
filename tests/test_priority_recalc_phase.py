"""When priority/multifactor recalculates priorities, as slurmctld 22.05 does it.

* The decay thread (priority_multifactor.c ``_decay_thread``) runs as slurmctld starts and
  then every PriorityCalcPeriod from that start (``abs.tv_sec += priority_calc_period``: an
  absolute grid), so the recalculations fall every period from ``slurmctld_start``, the
  same grid as the periodic main-scheduler pass (both start together in controller.c).
* The real fixtures agree: sprio's age factors (``age_norm`` x PriorityMaxAge after sacct's
  Eligible) give whole-second recalculation times on one grid per fixture, the grid of the
  slurmctld start logged for the fixtures whose log was kept; each scenario's
  ``slurmctld_start`` is that grid's (tools/realslurm/recalc_grid.py).
* The recording driver reads slurmctld's start from its log (run_scenario.py ``ctld_start``).
"""

from __future__ import annotations

import json
import sys
import types
import warnings
from pathlib import Path

import pytest
import yaml
from realslurm_fixtures import DATA

from slurmlab import Scenario
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "realslurm"))
from recalc_grid import grid, set_scenario  # noqa: E402
from run_scenario import Driver  # noqa: E402

CLUSTER = Cluster.from_slurm_conf(
    """
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityMaxAge=0:20:00
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=n1 CPUs=4 RealMemory=8000
PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE
"""
)
#: a blocker holds n1 for 10 minutes; ``waiter`` waits from t=0
JOBS = Workload(
    (
        WorkloadJob(JobSpec.from_args("-N 1 --exclusive -t 20"), 0, 600, id="blocker"),
        WorkloadJob(JobSpec.from_args("-n 1 -t 5"), 0, 60, id="waiter"),
    )
)


def _ages(slurmctld_start: float) -> list[int]:
    result = simulate(CLUSTER, JOBS, "easy", slurmctld_start=slurmctld_start)
    return [
        result.sprio(at=t).set_index("JOBID").loc["waiter", "AGE"] for t in (54, 55, 59, 60, 115)
    ]


def test_recalculation_every_calc_period_from_the_simulation_start_by_default():
    """slurmctld_start 0: the first recalculation at 60 s (age 1000 x 60/1200 = 50), then
    every minute: sprio shows 0 until 60 s, 50 at 60 s, still 50 at 115 s."""
    assert _ages(0) == [0, 0, 0, 50, 50]


def test_recalculation_every_calc_period_from_slurmctld_start():
    """slurmctld_start -5: the decay thread ran at -5 s, so next at 55 s (age 1000 x 55/1200,
    45.8, sprio shows 46) and at 115 s (95.8: 96)."""
    assert _ages(-5) == [0, 46, 46, 46, 96]


@pytest.mark.parametrize(
    "name",
    sorted(
        p.stem
        for p in (DATA / "scenarios").glob("*.yaml")
        if (DATA / p.stem / "sprio.csv").exists()
    ),
)
def test_fixture_slurmctld_start_is_on_the_recalculation_grid(name):
    """A fixture's ``slurmctld_start``, when set, is on the grid its sprio snapshots show
    (modulo PriorityCalcPeriod), whenever they show one unambiguously."""
    doc = yaml.safe_load((DATA / "scenarios" / f"{name}.yaml").read_text())
    found = grid(name)
    if "slurmctld_start" not in doc or found.slurmctld_start is None:
        return
    assert doc["slurmctld_start"] % found.period == found.slurmctld_start % found.period


def test_logged_starts_give_the_grid_sprio_shows():
    """For the five fixtures whose slurmctld log was kept, the grid read from sprio is the
    logged start's: resv-backfill -8, preempt-gpu -10, fair-nice -8, maint-part -9 (and
    node-fail-gpu, -8, shows one job only: not enough to call)."""
    got = {n: grid(n).slurmctld_start for n in ("resv-backfill", "preempt-gpu", "fair-nice")}
    got["maint-part"] = grid("maint-part").slurmctld_start
    assert got == {"resv-backfill": -8, "preempt-gpu": -10, "fair-nice": -8, "maint-part": -9}
    assert grid("node-fail-gpu").slurmctld_start is None


def test_driver_reads_slurmctld_start_from_its_log(tmp_path):
    """run_scenario.py records slurmctld's start in whole seconds from t0: the decay
    thread's first line ("No last decay ... to recover"), else "Running as primary
    controller"."""
    log = tmp_path / "log"
    log.mkdir()
    lines = [
        "[2026-12-07T04:58:57.900] Running as primary controller",
        "[2026-12-07T04:58:58.130] priority/multifactor: _read_last_decay_ran: No last decay "
        "(/x/priority_last_decay_ran) to recover",
    ]
    (log / "slurmctld.log").write_text("\n".join(lines) + "\n")
    from run_scenario import to_epoch

    t0 = to_epoch("2026-12-07T04:59:06")
    driver = types.SimpleNamespace(work=tmp_path, t0=t0)
    assert Driver.ctld_start(driver) == {"slurmctld_start_s": -8.0, "slurmctld_start_log": lines[1]}
    (log / "slurmctld.log").write_text(lines[0] + "\n")
    assert Driver.ctld_start(driver)["slurmctld_start_s"] == -9.0
    (log / "slurmctld.log").unlink()
    assert Driver.ctld_start(driver) == {}


def test_recalc_phase_fixture_starts_as_real_slurm():
    """recalc-phase (real Slurm, slurmctld started 8 s before t0, meta.json): the decay
    thread's run at 52 s charged alice's usage, so carol's c1 outranked alice's a1 when blk
    ended at 57 s. The scenario's slurmctld_start is the recorded one, and the simulation
    starts c1 at 57 and a1 when c1 ends, as real Slurm did (a1 at 88)."""
    meta = json.loads((DATA / "recalc-phase" / "meta.json").read_text())
    doc = yaml.safe_load((DATA / "scenarios" / "recalc-phase.yaml").read_text())
    assert doc["slurmctld_start"] == meta["slurmctld_start_s"] == -8
    assert grid("recalc-phase").recalcs == (52,)  # (sprio agrees: a1's age at 60 s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(DATA / "scenarios" / "recalc-phase.yaml").run()
    got = dict(zip(result.jobs["JobID"], result.seconds("Start"), strict=True))
    assert got == {"blk": 5.0, "c1": 57.0, "a1": 87.0}


def test_set_scenario_writes_origin_and_the_recorded_start(tmp_path):
    """recalc_grid.py --set (run_all.sh, after a recording): a scenario without origin gets
    real Slurm's t0 and meta.json's slurmctld_start_s before its cluster; an older
    slurmctld_start is replaced, a hand-set origin kept."""
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "x").mkdir()
    meta = {"t0_local": "2026-12-07T08:21:09", "timezone": "UTC", "slurmctld_start_s": -8.0}
    meta["slurmctld_start_log"] = "[2026-12-07T08:21:01.405] priority/multifactor: No last decay"
    (tmp_path / "x" / "meta.json").write_text(json.dumps(meta))
    scenario = tmp_path / "scenarios" / "x.yaml"
    scenario.write_text("name: x\ncluster:\n  nodes: []\n")
    set_scenario("x", tmp_path)
    doc = yaml.safe_load(scenario.read_text())
    assert (str(doc["origin"]), doc["slurmctld_start"]) == ("2026-12-07 08:21:09", -8)
    scenario.write_text("name: x\norigin: 2026-01-01T00:00:00\nslurmctld_start: -3\ncluster: {}\n")
    set_scenario("x", tmp_path)
    lines = scenario.read_text().splitlines()
    assert lines[1] == "origin: 2026-01-01T00:00:00" and lines[2].startswith(
        "slurmctld_start: -8  #"
    )
    assert len([ln for ln in lines if ln.startswith("slurmctld_start")]) == 1
