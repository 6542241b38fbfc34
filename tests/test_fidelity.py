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

from fidelity_counts import (  # noqa: E402
    eligible_pairs,
    jobid_runs,
    meta_ids,
    sprio_rows,
)
from scorecard import (  # noqa: E402
    NODE_SIMPLIFICATIONS,
    STATE_SIMPLIFICATIONS,
    TOLERANCE_S,
    explained,
    node_differences,
    order_checked,
    readme_block,
    replay,
    replay_result,
    scenario_runs,
    scorecard,
)

from slurmlab.analysis.fidelity import order_violations  # noqa: E402

SCENARIOS = list(scenario_runs())


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_simulated_starts_follow_real_slurm(yaml_path, out):
    """Every run starts within TOLERANCE_S of real Slurm's start (or never starts on both);
    a run on one side only fails too, unless it is a listed simplification."""
    cmp = replay(yaml_path, out)
    bad = cmp[~cmp["within"]]
    unexplained = [
        (r.key, r.run, r.start_real, r.start_sim)
        for r in bad.itertuples()
        if not explained(yaml_path.stem, r)
    ]
    assert not unexplained, (
        f"{yaml_path.stem}: (job, run, real start, simulated start) {unexplained}"
    )


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_simulated_start_order_matches_real_slurm(yaml_path, out):
    """No two runs that real Slurm started more than TOLERANCE_S apart start the other way round
    (runs whose start differs for a listed simplification left out)."""
    cmp = order_checked(yaml_path.stem, replay(yaml_path, out))
    assert order_violations(cmp, tolerance_s=TOLERANCE_S) == []


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_simulated_runs_get_real_slurms_nodes(yaml_path, out):
    """Every run that started on both sides got the nodes real Slurm gave it (node selection
    as select/cons_tres does it: placement.py), unless listed with its reason."""
    moved = node_differences(replay(yaml_path, out))
    unexplained = [
        (r.key, r.run, r.nodes_real, r.nodes_sim)
        for r in moved.itertuples()
        if (yaml_path.stem, r.key) not in NODE_SIMPLIFICATIONS
    ]
    assert not unexplained, f"{yaml_path.stem}: (job, run, real nodes, simulated) {unexplained}"


def test_node_simplifications_are_all_still_needed():
    """A listed node difference that no longer happens is taken off the list."""
    moved = {
        (p.stem, key) for p, out in SCENARIOS for key in node_differences(replay(p, out))["key"]
    }
    assert set(NODE_SIMPLIFICATIONS) <= moved, set(NODE_SIMPLIFICATIONS) - moved


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_final_states_match_real_slurm(yaml_path, out):
    """Each run ends in the state real Slurm recorded (suffixes such as 'by 0' dropped),
    but for listed simplifications (STATE_SIMPLIFICATIONS, explained in SIMPLIFICATIONS)."""
    cmp = replay(yaml_path, out).dropna(subset=["state_real", "state_sim"])
    listed = [(yaml_path.stem, k) in STATE_SIMPLIFICATIONS for k in cmp["key"]]
    differ = cmp[(cmp["state_real"] != cmp["state_sim"]) & ~pd.Series(listed, index=cmp.index)]
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


QOS_DIR = ROOT / "datasets" / "realslurm" / "accounts-qos"


#: sprio rows that knowingly differ from real Slurm's, per (scenario, job), and why.
SPRIO_DIFFERENCES = {
    **{
        ("preempt-grace", key): (
            "a requeued --exclusive victim: Slurm's JOBSIZE counts what it asked for again (1 "
            "CPU: 87), the simulator its exclusive node's 16 CPUs (146), as before the requeue "
            "(not modelled)"
        )
        for key in ("g2", "g3")
    },
    ("gpus-spread3", "probe4"): (
        "alice's and bob's usage tie at 60-100 s (197 CPU-s each in the simulator, 196 in "
        "sshare at 70 s): Slurm's decay thread, whose minute falls at other seconds than the "
        "simulator's (no sprio age tells its slurmctld_start), decayed alice's older usage a little more "
        "(EffectvUsage 0.4998 against bob's 0.5002), so bob ranks below her (FAIRSHARE 2500) "
        "where the simulator ties them (5000)"
    ),
    **{
        ("mix-16", key): (
            "-N 1-2 --gres=gpu:2: Slurm's factors counted one node (JOBSIZE 87) while the "
            "simulator's backfill planned two (91), and two once Slurm's did (as mix-12's j29)"
        )
        for key in ("j10",)
    },
    ("update", "wide"): (
        "at 20 s, the second of its scontrol update (NumNodes=1): the recorder takes the "
        "snapshot of a second before its action (run_scenario.py Driver.sleep_until), so real "
        "sprio shows the 2-node request (JOBSIZE 174, age 0) and the simulator's, after the "
        "update, one node (146) and its age so far; both start it at 21 s"
    ),
    ("update", "long"): (
        "at 30 s, just after scontrol update: Slurm shows the factors it recomputed from the "
        "request (1 CPU, age 0), the simulator its exclusive node's 16 CPUs and age so far"
    ),
    ("threads", "pack9"): (
        "carol's fair-share factor at 90-100 s (0.25 in Slurm, 0.75 in the simulator): her "
        "account's usage decayed and charged at other instants"
    ),
    ("fair-race", "a4"): (
        "alice's fair-share factor at 180-190 s (5000 in Slurm, 2500 in the simulator): her "
        "usage and bob's are close then, and the recalculation at 176 s (both sides) ranks her "
        "below bob in the simulator, not in Slurm; Slurm's next comes after a4 started (194 s)"
    ),
    ("preempt-gpu", "big"): (
        "at 50 s: slurmctld started at 04:54:05.410 (its log), 9.59 s before t0, so its decay "
        "thread ran at 50.4 s, just after the snapshot at 50 s; the simulator's grid is in "
        "whole seconds (slurmctld_start -10, time(NULL) at each run) and recalculates at 50.0, "
        "before the snapshot: fair share already split there (7500 against Slurm's 10000)"
    ),
    ("preempt-gpu", "r"): (
        "at 50 s, as big: the simulator's recalculation at 50.0 s comes before the snapshot, "
        "slurmctld's at 50.4 s after it"
    ),
    ("preemption", "small"): (
        "a requeued --exclusive victim at 180-190 s, as preempt-grace's: Slurm's JOBSIZE counts "
        "what it asked for again (1 CPU: 87; batch_requeue_fini resets total_cpus), the "
        "simulator its exclusive node's CPUs (146), as before the requeue (not modelled)"
    ),
}


def test_sprio_factors_match_real_sprio_in_every_fixture():
    """Every fixture with sprio snapshots: each pending job's weighted FAIRSHARE, JOBSIZE,
    PARTITION and QOS equal real sprio's, and AGE is within 5, but for the rows of
    SPRIO_DIFFERENCES. Limit-blocked jobs (a partition's MaxTime, a QOS MaxWall) accrue
    age as in Slurm, whose job_independent finds them eligible; the scenarios declare the
    accounts the real cluster had (tools/realslurm/accounts.sh), so fair share counts; a
    queued -N MIN-MAX job's size counts the CPUs of the nodes Slurm's test gave it
    (node-range's long: 32 CPUs for -N 1-2 --exclusive; limits-busy's rg: 64 for -c 32)."""
    checked = differ = 0
    for yaml_path, out in SCENARIOS:
        name = yaml_path.stem
        for row in sprio_rows(name, out):  # (before the run takes another path: DIVERGED)
            if (name, row.job) in SPRIO_DIFFERENCES:
                differ += not row.same
                continue
            assert row.same, (name, row.t, row.key, row.real, row.sim.to_dict())
            checked += 1
    assert checked >= 1000 and differ == 15, (checked, differ)


@pytest.mark.skipif(not (QOS_DIR / "sprio.csv").exists(), reason="no accounts-qos fixture")
def test_sprio_factors_match_real_sprio():
    """Replaying accounts-qos, sprio's weighted FAIRSHARE, JOBSIZE, PARTITION and QOS of every
    pending job equal real sprio's at each snapshot, and AGE is within 5 (Slurm recalculates
    once a minute from its own start, the simulator at multiples of PriorityCalcPeriod)."""
    result = replay_result("accounts-qos")
    real = pd.read_csv(QOS_DIR / "sprio.csv")
    ids = {v: k for k, v in meta_ids("accounts-qos").items()}
    checked = 0
    for t, snap in real.groupby("t"):
        sim = result.sprio(at=float(t)).set_index("JOBID")
        for row in snap.itertuples():
            key = ids[str(row.job_id)]
            if key not in sim.index:
                continue  # started a second earlier in the simulation
            got = sim.loc[key]
            assert (
                row.fairshare, row.jobsize, row.partition_w, row.qos,
            ) == (got.FAIRSHARE, got.JOBSIZE, got.PARTITION_PRIO, got.QOS), (t, key)  # fmt: skip
            assert abs(got.AGE - row.age) <= 5, (t, key)
            checked += 1
    assert checked >= 20


@pytest.mark.skipif(not (QOS_DIR / "sshare.csv").exists(), reason="no accounts-qos fixture")
def test_sshare_matches_real_sshare():
    """At the last snapshot, sshare shows the same associations, RawShares, NormShares,
    FairShare ranks and (within 0.05) EffectvUsage as real sshare."""
    result = replay_result("accounts-qos")
    real = pd.read_csv(QOS_DIR / "sshare.csv", keep_default_na=False)
    t = real["t"].max()
    real = real[real.t == t].set_index(["Account", "User"])
    sim = result.sshare(at=float(t)).set_index(["Account", "User"])
    assert sorted(sim.index) == sorted(real.index)
    for key, row in real.iterrows():
        got = sim.loc[key]
        assert got.NormShares == pytest.approx(float(row.NormShares), abs=1e-5), key
        if row.FairShare != "":
            assert got.FairShare == pytest.approx(float(row.FairShare)), key
        assert got.EffectvUsage == pytest.approx(float(row.EffectvUsage), abs=0.05), key


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_exit_codes_match_real_slurm(yaml_path, out):
    """Each job's row (sacct's allocation line, its last run) has real Slurm's ExitCode: a
    job cancelled, requeued or timed out while running shows 0:0 there (the signal is on
    its .batch step), a failed one its exit status."""
    from slurmlab import Scenario, read_sacct

    real = read_sacct(out / "sacct.txt")
    real = real[real["StepID"].isna()] if "StepID" in real else real
    # the scenario's ids are the real jobs' names (an array task's: NAME_TASK)
    keys = [
        name if "_" not in str(jobid) else f"{name}_{str(jobid).rsplit('_', 1)[1]}"
        for name, jobid in zip(real["JobName"], real["JobID"], strict=True)
    ]
    real = real.assign(key=keys)
    real = real.drop_duplicates("key", keep="last").set_index("key")["ExitCode"]
    sim = Scenario.load(yaml_path).run().jobs.set_index("JobID")["ExitCode"]
    both = [k for k in sim.index if k in real.index]
    assert both, "no job of the scenario is in the real export"
    differ = {k: (real[k], sim[k]) for k in both if real[k] != sim[k]}
    assert not differ, f"{yaml_path.stem}: (real, simulated) ExitCode {differ}"


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_jobids_match_real_slurm(yaml_path, out):
    """Every run has real Slurm's JobIDRaw, and every array task its ArrayJobID: a
    submission takes one JobID (an array one for all its tasks), and each array task that
    leaves its array's pending record takes the next number then, but the last, which keeps
    the array's (the ``arrays`` fixture: 1_0 is 2, 1_5 is 1, and the array submitted
    after the first two tasks started is 4)."""
    differ = [d for _, run in jobid_runs(yaml_path.stem, out) for d in run]
    assert not differ, f"{yaml_path.stem}: (key, column, real, simulated) {differ}"


#: Where the simulated TRES knowingly differ from real Slurm's, and why.
TRES_SIMPLIFICATIONS = {
    **{
        ("mix-14", key, "AllocTRES"): (
            "after mix-14 takes another path (scorecard.DIVERGED, 32 s): j08 (--gpus=3) fits on "
            "one node at 32 s here, so j09 (-n 2 --gpus-per-task=1) spreads over two"
        )
        for key in ("j08", "j09")
    },
    ("gpus-spread2", "probe5", "ReqTRES"): (
        "--gpus=5 without -N: Slurm's ReqTRES shows the request before allocation (1 node, 5 "
        "GPUs); the simulator the shape it resolved (2 nodes of 3 GPUs), as gpu-spellings' "
        "gpus_spread"
    ),
    **{
        ("mix-11", key, "AllocTRES"): (
            "-N 1-2 after mix-11 takes another path (scorecard.DIVERGED, 25 s): it took "
            "another number of nodes"
        )
        for key in ("j17", "j26", "j31")
    },
    ("mix-13", "j39", "AllocTRES"): (
        "-N 1-2 after mix-13 takes another path (scorecard.DIVERGED, 53 s): it took another "
        "number of nodes"
    ),
    ("mix-17", "j38", "AllocTRES"): (
        "-n 2 --gpus-per-task=1 after mix-17 takes another path (scorecard.DIVERGED, 62 s): it "
        "started at 187 s here, 145 s in real Slurm: other free GPUs, another number of nodes"
    ),
    ("gpu-spellings", "gpus_spread", "ReqTRES"): (
        "--gpus=6 without -N: Slurm's ReqTRES shows the request before allocation (1 node, "
        "1 CPU); the simulator shows the shape it resolved (2 nodes of 3 GPUs)"
    ),
    ("gpu-shapes", "rng", "ReqTRES"): (
        "-N 2-4 --gpus-per-node=2: Slurm's ReqTRES counts 1 CPU and 1000M (the request "
        "before allocation) with its MIN's 2 nodes and 4 GPUs; the simulator 1 CPU a node"
    ),
    ("threads", "n17", "AllocTRES"): (
        "-n 17 on nodes of 8 cores x 2 threads: Slurm allocated 12 tasks on gpu2's free cores "
        "and 5 on gpu3's (6 + 3 cores, 18 CPUs); the simulator gives every node the same "
        "shape, 9 tasks in 5 cores on each (20 CPUs)"
    ),
    ("threads", "n17", "ReqTRES"): (
        "the same job: Slurm's ReqTRES counts 1 node (no -N), the simulator the 2 it resolved"
    ),
}


def _tres(text) -> dict[str, int]:
    from slurmlab.spec.units import parse_memory_mb

    out = {}
    for item in str(text).split(","):
        if "=" in item:
            key, value = item.split("=", 1)
            out[key] = parse_memory_mb(value, what=key) if key == "mem" else int(value)
    return out


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_tres_match_real_slurm(yaml_path, out):
    """Each job's AllocTRES and ReqTRES (compared as amounts: sacct prints 62.50G where the
    simulator writes 64000M) equal real Slurm's: billing (CPUs, no TRESBillingWeights), the
    GPUs AccountingStorageTRES tracks (untyped gres/gpu only), and an --exclusive job's memory
    (DefMemPerCPU x all of its CPUs, not the node's RealMemory)."""
    from slurmlab import Scenario, read_sacct

    real = read_sacct(out / "sacct.txt")
    real = real[real["StepID"].isna()] if "StepID" in real else real
    keys = [
        name if "_" not in str(jobid) else f"{name}_{str(jobid).rsplit('_', 1)[1]}"
        for name, jobid in zip(real["JobName"], real["JobID"], strict=True)
    ]
    real = real.assign(key=keys).drop_duplicates("key", keep="last").set_index("key")
    sim = Scenario.load(yaml_path).run().jobs.set_index("JobID")
    both = [k for k in sim.index if k in real.index]
    assert both, "no job of the scenario is in the real export"
    differ = {
        (k, col): (real.loc[k, col], sim.loc[k, col])
        for k in both
        for col in ("AllocTRES", "ReqTRES")
        if _tres(real.loc[k, col]) != _tres(sim.loc[k, col])
        and (yaml_path.stem, k, col) not in TRES_SIMPLIFICATIONS
    }
    assert not differ, f"{yaml_path.stem}: (real, simulated) {differ}"
    known = [(s, k, c) for s, k, c in TRES_SIMPLIFICATIONS if s == yaml_path.stem]
    for _s, k, col in known:  # a known difference that went away is news: update the list
        assert _tres(real.loc[k, col]) != _tres(sim.loc[k, col]), (k, col)


HOLDS_DIR = ROOT / "datasets/realslurm/holds"


@pytest.mark.skipif(not (HOLDS_DIR / "sacct.txt").exists(), reason="no holds fixture")
def test_holds_give_every_run_real_saccts_priority_reason_and_eligible_time():
    """Replaying ``holds``: each run's sacct Priority (the priority when it was submitted or
    requeued, 0 if held then), Reason (the last it waited for besides its turn) and Eligible
    (a hold of a pending job makes it eligible again only when released) equal real sacct's."""
    from slurmlab import read_sacct

    result = replay_result("holds")
    real = read_sacct(HOLDS_DIR / "sacct.txt")
    real = real[real["StepID"].isna()] if "StepID" in real else real
    ids = {v: k for k, v in meta_ids("holds").items()}
    sim = result.jobs_all_runs
    origin = result.origin
    t0 = pd.Timestamp(json_meta("holds")["t0_local"])
    got = {
        (key, n): (int(r.Priority), r.Reason, (r.Eligible - origin).total_seconds())
        for key, runs in sim.groupby("JobID", sort=False)
        for n, r in enumerate(runs.itertuples())
    }
    want = {}
    for jid, runs in real.groupby("JobIDRaw", sort=False):
        for n, r in enumerate(runs.sort_values("Submit").itertuples()):
            eligible = (r.Eligible - t0).total_seconds() if pd.notna(r.Eligible) else None
            want[(ids[str(jid)], n)] = (int(r.Priority), r.Reason, eligible)
    assert sorted(got) == sorted(want)
    for k, (prio, reason, eligible) in want.items():
        assert got[k][:2] == (prio, reason), k
        if eligible is not None:  # (a run requeued at once has none in sacct)
            assert abs(got[k][2] - eligible) <= 2, k


@pytest.mark.skipif(not (HOLDS_DIR / "queue.csv").exists(), reason="no holds fixture")
def test_holds_show_real_squeues_states_reasons_and_priorities():
    """At every real squeue snapshot of ``holds`` (every 10 s; the simulation is read half a
    second before, since real Slurm acts a fraction of a second after each instant): the same
    state, the same reason for pending jobs (JobHeldUser, JobHeldAdmin, ``job requeued in held
    state``, BeginTime...), priority 0 exactly while held (a held running job too) and within
    20 of real's otherwise (the age factor: Slurm recalculates once a minute from its own
    start, the simulator at multiples of PriorityCalcPeriod)."""
    result = replay_result("holds")
    real = pd.read_csv(HOLDS_DIR / "queue.csv", keep_default_na=False)
    turn = {"Priority", "Resources"}
    for row in real.itertuples():
        q = result.squeue(at=row.t - 0.5).set_index("JOBID")
        got, state = q.loc[row.name], "PD" if row.state == "PENDING" else "R"
        assert got["ST"] == state, (row.t, row.name)
        if row.state == "PENDING":
            reason = got["NODELIST(REASON)"][1:-1]
            assert reason == row.reason or {reason, row.reason} <= turn, (row.t, row.name)
        if row.priority == 0:
            assert got.PRIORITY == 0, (row.t, row.name)
        else:
            assert abs(got.PRIORITY - row.priority) <= 20, (row.t, row.name)


def json_meta(name: str) -> dict:
    import json

    return json.loads((ROOT / "datasets/realslurm" / name / "meta.json").read_text())


def test_the_readmes_scorecard_is_the_current_codes():
    """README.md shows the scorecard `make fidelity` prints now: a change to the engine that
    moves a start or a node against real Slurm shows there (regenerate it with `make
    fidelity`)."""
    text, ok = scorecard()
    assert ok
    assert readme_block((ROOT / "README.md").read_text(encoding="utf-8")) == text


MAINT_DIR = ROOT / "datasets/realslurm/maintenance"


def reasons_match(result, rows: pd.DataFrame) -> None:
    """At every change real Slurm showed (``transitions.csv`` rows, polled each second; the
    simulation is read half a second before, as real Slurm acts a fraction of a second after
    each instant), the job pends in the simulation with real squeue's reason."""
    for row in rows.itertuples():
        q = result.squeue(at=row.t - 0.5).set_index("JOBID")
        assert q.loc[row.id, "ST"] == "PD", (row.t, row.id)
        assert q.loc[row.id, "NODELIST(REASON)"] == f"({row.reason})", (row.t, row.id)


@pytest.mark.skipif(not (MAINT_DIR / "transitions.csv").exists(), reason="no fixture")
def test_maintenance_shows_real_slurms_pending_reasons_second_by_second():
    """Replaying ``maintenance`` (a MAINT reservation on every GPU node from 90 s to 270 s):
    at every change real Slurm showed (polled each second; the simulation is read half a
    second before, as real Slurm acts a fraction of a second after each instant), each
    pending job has the same reason: ``ReqNodeNotAvail, Reserved for maintenance`` for every
    job the window keeps out, the later ones in the queue too, not ``Priority``; the 4-node
    job ``Resources`` while a job holds one of its nodes, before and after the window."""
    result = replay_result("maintenance")
    real = pd.read_csv(MAINT_DIR / "transitions.csv", keep_default_na=False)
    pending = real[(real["state"] == "PENDING") & (real["reason"] != "None")]
    assert len(pending) == 7
    reasons_match(result, pending)


NODE_FAIL_DIR = ROOT / "datasets/realslurm/node-failure"


@pytest.mark.skipif(not (NODE_FAIL_DIR / "transitions.csv").exists(), reason="no fixture")
def test_node_failures_give_real_slurms_runs_states_and_reasons():
    """Replaying ``node-failure`` (nodes set DOWN under running jobs, and RESUMEd): every run
    has real sacct's State, ExitCode (0:0 for NODE_FAIL in 22.05), Submit and Eligible (a
    requeued run is submitted again at the failure and eligible 121 s later), and each
    pending job real squeue's reason at every change (BeginTime after the requeue; the
    4-node job "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher
    priority partitions" while gpu1 and gpu3 are down)."""
    from slurmlab import read_sacct

    result = replay_result("node-failure")
    real = read_sacct(NODE_FAIL_DIR / "sacct.txt")
    real = real[real["StepID"].isna()] if "StepID" in real else real
    sim = result.jobs_all_runs
    origin = result.sim.origin
    t0 = pd.Timestamp(json_meta("node-failure")["t0_local"])

    def rows(table, start):
        return sorted(
            (
                name,
                state,
                code,
                round((sub - start).total_seconds()),
                round((eli - start).total_seconds()),
            )
            for name, state, code, sub, eli in zip(
                table["JobName"] if "JobName" in table else table["JobID"],
                table["State"],
                table["ExitCode"],
                table["Submit"],
                table["Eligible"],
                strict=True,
            )
        )

    sim_rows = rows(sim.assign(JobName=sim["JobID"]), origin)
    assert sim_rows == rows(real, t0)
    assert ("train", "NODE_FAIL", "0:0", 0, 0) in sim_rows
    assert ("train", "COMPLETED", "0:0", 30, 151) in sim_rows
    transitions = pd.read_csv(NODE_FAIL_DIR / "transitions.csv", keep_default_na=False)
    pending = transitions[(transitions["state"] == "PENDING") & (transitions["reason"] != "None")]
    assert len(pending) == 2
    reasons_match(result, pending)


LIMITS = ROOT / "datasets/realslurm"


def limit_reasons_match(name: str) -> pd.DataFrame:
    """Replay scenario ``name`` and check that at every change real Slurm showed (polled each
    second; the simulation read half a second before) each job pending for a QOS or
    association limit has real squeue's reason; return those rows."""
    result = replay_result(name)
    real = pd.read_csv(LIMITS / name / "transitions.csv", keep_default_na=False)
    limited = real[(real["state"] == "PENDING") & real["reason"].str.match(r"^(QOS|Assoc)")]
    reasons_match(result, limited)
    return limited


@pytest.mark.skipif(not (LIMITS / "limits/transitions.csv").exists(), reason="no fixture")
def test_limits_hold_jobs_with_real_slurms_reasons_until_the_limit_frees():
    """Replaying ``limits`` (QOS MaxJobsPerUser, MaxTRESPerUser and MaxWall, account GrpTRES
    and MaxJobs, each holding a job that the free resources would start): each pending job
    has real squeue's reason at every change (QOSMaxJobsPerUserLimit, QOSMaxGRESPerUser,
    AssocGrpGRES, QOSMaxWallDurationPerJobLimit, AssocMaxJobsLimit; the MaxWall job pends
    rather than being refused), and each held job starts when the job holding its limit
    ends, within the tolerance of real Slurm's start."""
    limited = limit_reasons_match("limits")
    assert sorted(limited["reason"]) == sorted(
        ["QOSMaxJobsPerUserLimit", "QOSMaxGRESPerUser", "AssocGrpGRES"]
        + ["QOSMaxWallDurationPerJobLimit", "AssocMaxJobsLimit"]
    )
    result = replay_result("limits")
    starts = pd.read_csv(LIMITS / "limits/starts.csv").set_index("id")
    sim = result.jobs.set_index("JobID")
    origin = result.sim.origin
    for held, holder in (("low2", "low1"), ("hi2", "hi1"), ("c3", "c1"), ("n3", "n1")):
        sim_start = (sim.loc[held, "Start"] - origin).total_seconds()
        assert sim_start == (sim.loc[holder, "End"] - origin).total_seconds()
        assert abs(sim_start - starts.loc[held, "start_s"]) <= TOLERANCE_S
    assert sim.loc["wall", "State"] == "CANCELLED" and pd.isna(sim.loc["wall", "Start"])


@pytest.mark.skipif(not (LIMITS / "limits-order/transitions.csv").exists(), reason="no fixture")
def test_a_job_over_two_limits_shows_real_slurms_reason_and_the_next_as_one_frees():
    """Replaying ``limits-order``: alice's a2, over QOS high's GrpTRES and her MaxTRESPerUser
    at once, shows QOSGrpGRES (acct_policy.c tests the group limit first), then
    QOSMaxGRESPerUser once bob's b1 ends and frees the group's GPUs; carol's c_hi, over the
    QOS's GrpTRES only, starts then; c2 waits for account vision's GrpTRES."""
    limited = limit_reasons_match("limits-order")
    assert [tuple(r) for r in limited[["t", "id", "reason"]].itertuples(index=False)] == [
        (7.0, "c_hi", "QOSGrpGRES"),
        (7.0, "a2", "QOSGrpGRES"),
        (12.0, "c2", "AssocGrpGRES"),
        (44.0, "a2", "QOSMaxGRESPerUser"),
    ]


@pytest.mark.skipif(not (LIMITS / "limits-busy/transitions.csv").exists(), reason="no fixture")
def test_a_job_over_a_limit_on_the_nodes_it_would_get_waits_for_it_and_holds_none_back():
    """Replaying ``limits-busy``: while too few nodes are free, Slurm tests the limits on the
    nodes a job would get on idle nodes (node_scheduler.c select_nodes). x3 (-N 3 --exclusive,
    QOS GrpTRES gres/gpu=8) shows QOSGrpGRES and rg (-N 1-2, QOS GrpTRES node=2) shows
    QOSGrpNodeLimit, as in real squeue; neither stops the main scheduler, so after (2 nodes,
    into x3's plan) and b_after start at their submissions, and rg starts on one node when
    one is free, as in real Slurm."""
    limited = limit_reasons_match("limits-busy")
    assert [tuple(r) for r in limited[["t", "id", "reason"]].itertuples(index=False)] == [
        (7.0, "x3", "QOSGrpGRES"),
        (11.0, "rg", "QOSGrpNodeLimit"),
        (51.0, "rg", "QOSGrpNodeLimit"),
    ]
    result = replay_result("limits-busy")
    starts = pd.read_csv(LIMITS / "limits-busy/starts.csv").set_index("id")
    sim = result.jobs.set_index("JobID")
    origin = result.sim.origin
    for job in ("after", "b_after", "rg"):
        sim_start = (sim.loc[job, "Start"] - origin).total_seconds()
        assert sim_start == starts.loc[job, "start_s"], job
        assert sim.loc[job, "NodeList"] == starts.loc[job, "nodelist"], job
    assert sim.loc["x3", "State"] == "CANCELLED" and pd.isna(sim.loc["x3", "Start"])


@pytest.mark.skipif(not (LIMITS / "limits-nodes/transitions.csv").exists(), reason="no fixture")
def test_an_exclusive_job_shows_its_limit_while_its_nodes_are_busy_as_in_real_slurm():
    """Replaying ``limits-nodes``: x3 (-N 3 --exclusive, 12 GPUs on whole nodes against
    GrpTRES gres/gpu=8) shows QOSGrpGRES from its first pass, while x2 still holds two of the
    nodes (the simulator showed Resources until stop 34)."""
    limited = limit_reasons_match("limits-nodes")
    assert [tuple(r) for r in limited[["t", "id", "reason"]].itertuples(index=False)] == [
        (6.0, "x3", "QOSGrpGRES")
    ]


@pytest.mark.skipif(not (LIMITS / "partition-limits/transitions.csv").exists(), reason="no fixture")
def test_jobs_over_partition_limits_pend_with_real_slurms_reasons():
    """Replaying ``partition-limits`` (EnforcePartLimits=NO; partition short: MaxTime=5 min,
    MaxNodes=2, MaxMemPerNode=8000; wide: MinNodes=2): each job over a limit is accepted and
    pends with real squeue's reason, PartitionTimeLimit, PartitionNodeLimit (over MaxNodes and
    under MinNodes) or MaxMemPerLimit, until cancelled; the jobs at the limits run. Real
    Slurm first shows PartitionConfig for the time and memory limits (job_allocate's test at
    submission) until its next scheduling pass, a second or two later, sets the limit's own
    reason; the simulator's pass runs at the submission's instant, so the job shows the limit's
    reason at once: such a row is compared with the reason real Slurm showed next."""
    real = pd.read_csv(LIMITS / "partition-limits/transitions.csv", keep_default_na=False)
    pending = real[real["state"] == "PENDING"].reset_index(drop=True)
    result = replay_result("partition-limits")
    final = {}
    for row in pending.itertuples():
        final[row.id] = row.reason
    assert final == {
        "too_long": "PartitionTimeLimit",
        "too_wide": "PartitionNodeLimit",
        "too_big": "MaxMemPerLimit",
        "too_narrow": "PartitionNodeLimit",
        "wide_ok": "None",
    }
    for row in pending.itertuples():
        if row.reason == "None":  # (wide_ok, between its submission and its start)
            continue
        shown = final[row.id] if row.reason == "PartitionConfig" else row.reason
        q = result.squeue(at=row.t - 0.5).set_index("JOBID")
        assert q.loc[row.id, "NODELIST(REASON)"] == f"({shown})", (row.t, row.id)
    sim = result.jobs.set_index("JobID")
    for job in final:
        assert sim.loc[job, "State"] == ("COMPLETED" if job == "wide_ok" else "CANCELLED")


@pytest.mark.skipif(not (LIMITS / "tiers/transitions.csv").exists(), reason="no fixture")
def test_higher_tier_partitions_go_first_and_hold_their_nodes_from_lower_tiers():
    """Replaying ``tiers`` (partitions urgent, PriorityTier=10, and batch, PriorityTier=1,
    over the same four GPU nodes): the urgent jobs, submitted after the batch ones, start
    first (u2, then u1 with b2), and each pending job has real squeue's reason at every
    change: while an urgent job waits, its partition's nodes are held from the later jobs of
    the pass (job_scheduler.c removes them from the available nodes), so b2, the first batch
    job, shows "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher
    priority partitions" (too few nodes left), not Resources, and b1 Priority."""
    result = replay_result("tiers")
    real = pd.read_csv(LIMITS / "tiers/transitions.csv", keep_default_na=False)
    pending = real[(real["state"] == "PENDING") & (real["reason"] != "None")]
    assert len(pending) == 9
    reasons_match(result, pending)
    starts = result.jobs.set_index("JobID")["Start"]
    assert list(starts.sort_values(kind="stable").index) == [
        "blocker", "cpu_side", "u2", "b2", "u1", "b1"
    ]  # fmt: skip


def test_jobs_of_several_partitions_start_where_real_slurm_started_them():
    """Replaying ``multi-partition`` (-p a,b over partitions left, gpu[1-2], and right,
    gpu[3-4], and hi over gpu[3-4] at PriorityTier=5): every job starts in the partition
    and on the nodes real Slurm chose, in the same order, and each pending job shows real
    squeue's reason and partition list at every change: the list as given while it waits,
    tried partitions in PriorityTier order first (h1, -p left,hi, shows hi,left; t1, -p
    cpu,gpu, whose GPU the cpu partition can never hold, shows gpu,cpu) and the partition it
    ran in after; h1's hi record goes before m2 though submitted later, and t1 shows the
    reason of a lower tier whose nodes a blocked hi job holds."""
    result = replay_result("multi-partition")
    out = ROOT / "datasets/realslurm/multi-partition"
    real = pd.read_csv(out / "transitions.csv", keep_default_na=False)
    pending = real[(real["state"] == "PENDING") & (real["reason"] != "None")]
    assert len(pending) == 7
    reasons_match(result, pending)
    table = result.jobs.set_index("JobID")
    sacct = pd.read_csv(out / "sacct.txt", sep="|", dtype=str)
    ran = sacct[sacct["JobName"] != "batch"].set_index("JobName")["Partition"]
    assert table["Partition"].to_dict() == ran.to_dict()
    queue = pd.read_csv(out / "queue.csv", keep_default_na=False)
    for row in queue[queue["state"] == "PENDING"].itertuples():
        q = result.squeue(at=row.t - 0.5).set_index("JOBID")
        assert q.loc[row.name, "PARTITION"] == row.partition, (row.t, row.name)
    starts = table["Start"].sort_values(kind="stable")
    assert list(starts.index) == ["fill_left", "m1", "fill_right", "h1", "m3", "m2", "t1"]


def test_sprio_lists_a_row_per_partition_of_a_job_of_several():
    """Real sprio 22.05 lists a pending -p a,b job once per partition, in the order its
    records are tried (h1, -p left,hi: hi then left; t1, -p cpu,gpu: cpu then gpu), each
    with that partition's factors; the simulation's sprio shows the same rows with the same
    JOBSIZE, PARTITION and QOS (the scenario defines no accounts, so fair share differs)."""
    result = replay_result("multi-partition")
    out = ROOT / "datasets/realslurm/multi-partition"
    real = pd.read_csv(out / "sprio.csv")
    ids = {v: k for k, v in meta_ids("multi-partition").items()}
    checked = 0
    for t, snap in real.groupby("t"):
        sim = result.sprio(at=float(t))
        pending = set(sim["JOBID"])
        want = [(ids[str(r.job_id)], r.partition) for r in snap.itertuples()]
        want = [w for w in want if w[0] in pending]  # (a job started a second earlier here)
        got = [(r.JOBID, r.PARTITION) for r in sim.itertuples() if r.JOBID in dict(want)]
        assert sorted(got) == sorted(want), t
        for job in dict(want):  # each job's rows in the same order
            assert [p for j, p in got if j == job] == [p for j, p in want if j == job], (t, job)
        rows = sim.set_index(["JOBID", "PARTITION"])
        for r in snap.itertuples():
            key = (ids[str(r.job_id)], r.partition)
            if key[0] in pending:
                g = rows.loc[key]
                assert (r.jobsize, r.partition_w, r.qos) == (g.JOBSIZE, g.PARTITION_PRIO, g.QOS)
                checked += 1
    assert checked >= 20


@pytest.mark.parametrize("yaml_path,out", SCENARIOS, ids=[p.stem for p, _ in SCENARIOS])
def test_eligible_times_match_real_sacct(yaml_path, out):
    """Every run's Eligible is real sacct's within the start tolerance, or unknown on both
    sides: a job blocked by a partition's or QOS's limit is eligible from its submission
    (job_independent finds it so), and an array task the throttle held back
    (JobArrayTaskLimit) from the moment it is no longer held back, as slurmctld zeroes its
    begin time meanwhile (job_array_start_test)."""
    pairs = eligible_pairs(yaml_path.stem, out)
    for key, want, got in pairs:
        assert (want is None) == (got is None), (key, want, got)
        if want is not None:
            assert abs(want - got) <= TOLERANCE_S, (key, want, got)
    assert pairs
