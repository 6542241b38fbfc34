"""When real slurmctld recalculated priorities in a fixture, read back from its sprio snapshots.

priority/multifactor's decay thread (priority_multifactor.c ``_decay_thread``) runs as
slurmctld starts and then every PriorityCalcPeriod from then; at each run it sets a pending
job's age factor to ``(run time - accrue_time) / PriorityMaxAge`` (``_set_priority_factors``),
both whole seconds (``time_t``). sprio prints that factor to 7 decimals (``age_norm`` in
snapshots' sprio.csv), so a job's Eligible time (sacct; its accrue time unless it was held,
requeued or waited on a limit) plus ``age_norm * PriorityMaxAge`` is the second of the
recalculation the snapshot shows. Those seconds modulo PriorityCalcPeriod give slurmctld's
start modulo the period (``slurmctld_start`` in a scenario) when enough jobs agree. That
value also sets the grid of the periodic main-scheduler pass, which it fixes only where
sched_interval divides PriorityCalcPeriod (both 60 s in every fixture so far).

    PYTHONPATH=$PWD .venv/bin/python tools/realslurm/recalc_grid.py [fixture ...]

prints, per fixture, the recalculation seconds found and the ``slurmctld_start`` they give.
With ``--set NAME ...`` it writes a freshly recorded fixture's scenario instead (run_all.sh
does after each recording): its ``origin`` (real Slurm's t0) when missing, and its
``slurmctld_start`` from meta.json's ``slurmctld_start_s`` (run_scenario.py reads it from
slurmctld's log), else from the sprio grid when unambiguous, replacing an older value.
"""

from __future__ import annotations

import argparse
import csv
import json
import warnings
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

from slurmlab import Cluster
from slurmlab.policies.priority import MultifactorWeights

DATA = Path(__file__).resolve().parents[2] / "datasets" / "realslurm"

#: the share of a fixture's readings the commonest phase must have, and how many distinct
#: jobs must show it, to call the grid unambiguous (the others are jobs whose accrue time is
#: not their Eligible time: held, requeued, or waiting on a dependency)
AGREEING_SHARE = 0.9
AGREEING_JOBS = 2


class Grid(NamedTuple):
    """A fixture's recalculations as its sprio snapshots show them."""

    #: the distinct recalculation seconds read (from t0), in order
    recalcs: tuple[int, ...]
    #: how many (snapshot, job) readings give each phase (second modulo the period)
    phases: dict[int, int]
    #: how many distinct jobs give each phase
    jobs: dict[int, int]
    #: PriorityCalcPeriod in seconds
    period: int
    #: slurmctld's start in (-period, 0] when the readings agree, else None
    slurmctld_start: int | None


def _eligible(fixture: Path, t0: float, tz: ZoneInfo) -> dict[str, float]:
    """Each job's Eligible time in seconds from t0 (sacct.txt, in the host's time zone)."""
    out = {}
    with open(fixture / "sacct.txt", newline="") as f:
        for row in csv.DictReader(f, delimiter="|"):
            text = row["Eligible"]
            if text[:1].isdigit():
                when = datetime.fromisoformat(text).replace(tzinfo=tz)
                out[row["JobIDRaw"]] = when.timestamp() - t0
    return out


def grid(name: str, data: Path = DATA) -> Grid:
    """Fixture ``name``'s recalculation seconds and the ``slurmctld_start`` they give."""
    fixture = data / name
    meta = json.loads((fixture / "meta.json").read_text())
    tz = ZoneInfo(meta.get("timezone") or "UTC")
    conf = fixture.parent / f"{name}.slurm.conf"
    with warnings.catch_warnings():  # (only its priority settings count here)
        warnings.simplefilter("ignore")
        cluster = Cluster.from_slurm_conf(conf if conf.exists() else data / "slurm.conf")
    weights = MultifactorWeights.from_cluster(cluster)
    period, max_age = int(weights.calc_period), weights.max_age
    eligible = _eligible(fixture, meta["t0"], tz)
    phases: Counter[int] = Counter()
    jobs: dict[int, set[str]] = {}
    recalcs: set[int] = set()
    with open(fixture / "sprio.csv", newline="") as f:
        for row in csv.DictReader(f):
            age = float(row["age_norm"] or 0)
            job = row["job_id"]
            if not 0 < age < 1 or job not in eligible:
                continue
            second = eligible[job] + age * max_age
            # whole seconds, and not after the snapshot: else the job's accrue time was not
            # its Eligible time, and the reading tells nothing
            if abs(second - round(second)) > 0.01 or round(second) > float(row["t"]):
                continue
            second = round(second)
            recalcs.add(second)
            phases[second % period] += 1
            jobs.setdefault(second % period, set()).add(job)
    start = None
    if phases:
        phase, count = phases.most_common(1)[0]
        if count >= AGREEING_SHARE * sum(phases.values()) and len(jobs[phase]) >= AGREEING_JOBS:
            start = phase - period if phase else 0
    return Grid(
        tuple(sorted(recalcs)),
        dict(phases),
        {p: len(j) for p, j in jobs.items()},
        period,
        start,
    )


def scenario_lines(name: str, data: Path = DATA) -> dict[str, str]:
    """The ``origin`` and ``slurmctld_start`` lines fixture ``name``'s scenario should have,
    from its recording (meta.json; else its sprio grid), each with where it came from."""
    meta = json.loads((data / name / "meta.json").read_text())
    lines = {
        "origin": f"origin: {meta['t0_local']}  # real Slurm's t0 (meta.json), "
        f"{meta.get('timezone') or 'UTC'}: will-run batches align on epoch seconds"
    }
    if meta.get("slurmctld_start_s") is not None:
        start = int(meta["slurmctld_start_s"])
        lines["slurmctld_start"] = (
            f"slurmctld_start: {start}  # slurmctld.log (meta.json slurmctld_start_s: "
            f"{meta['slurmctld_start_log'][1:24]}), {-start} s before t0: the grid of the "
            "periodic pass and of the priority recalculation"
        )
    elif (sprio := data / name / "sprio.csv").exists() and (
        found := grid(name, data)
    ).slurmctld_start is not None:
        start, phase = found.slurmctld_start, found.slurmctld_start % found.period
        lines["slurmctld_start"] = (
            f"slurmctld_start: {start}  # sprio's age factors ({sprio.name}) show priorities "
            f"recalculated at {phase} s modulo {found.period} ({found.jobs[phase]} jobs "
            "agree; tools/realslurm/recalc_grid.py), no log kept"
        )
    return lines


def set_scenario(name: str, data: Path = DATA) -> Path:
    """Write :func:`scenario_lines` into fixture ``name``'s scenario file: ``origin`` only
    when it has none (a hand-set one stays), ``slurmctld_start`` in place of an older one,
    each after the ``description`` (``origin`` first)."""
    path = data / "scenarios" / f"{name}.yaml"
    text = path.read_text().splitlines(keepends=True)
    wanted = scenario_lines(name, data)
    has_origin = any(line.startswith("origin:") for line in text)
    text = [line for line in text if not line.startswith("slurmctld_start:")]
    at = next((i for i, line in enumerate(text) if line.startswith("cluster:")), None)
    if at is None:
        raise SystemExit(f"{path}: no 'cluster:' line to put origin and slurmctld_start before")
    new = [] if has_origin else [wanted["origin"] + "\n"]
    if "slurmctld_start" in wanted:
        new.append(wanted["slurmctld_start"] + "\n")
    if has_origin:  # (right after it)
        at = next(i for i, line in enumerate(text) if line.startswith("origin:")) + 1
    path.write_text("".join(text[:at] + new + text[at:]))
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fixtures", nargs="*", help="fixture names (default: every one with sprio)")
    ap.add_argument(
        "--set", action="store_true", help="write origin and slurmctld_start into each scenario"
    )
    args = ap.parse_args(argv)
    if args.set:
        if not args.fixtures:
            ap.error("--set needs the fixtures' names")
        for name in args.fixtures:
            print(f"{set_scenario(name)}: origin and slurmctld_start set")
        return 0
    names = args.fixtures or sorted(p.parent.name for p in DATA.glob("*/sprio.csv"))
    for name in names:
        g = grid(name)
        shown = ", ".join(str(s) for s in g.recalcs[:4]) + (", ..." if len(g.recalcs) > 4 else "")
        print(f"{name:18s} start={g.slurmctld_start!s:5s} phases={g.phases} jobs={g.jobs} "
              f"recalcs=[{shown}]")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
