"""The fidelity numbers README.md quotes, counted by the functions the tests assert with.

Each comparison with a real-Slurm fixture (JobIDRaw, Eligible, sprio rows, squeue --start
plans, backfill starts) is made once, here: tests/test_fidelity.py, tests/test_qa_stop23.py
and tests/test_sacct_records.py assert on it, and :func:`glance` counts it for README.md's
"Fidelity at a glance" table, which ``scorecard.py --readme`` (``make fidelity``) writes
and tests/test_readme_numbers.py checks, so the README's numbers follow the fixtures as
they are added. Runs after the point from which a fixture knowingly takes another path
(scorecard.DIVERGED) are compared by their start times alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
from scorecard import (
    DATA,
    DIVERGED,
    TOLERANCE_S,
    replay,
    replay_result,
    scenario_runs,
)

from slurmlab.sim.result import squeue_frame

#: the fixture whose backfill starts the README quotes beside the totals
BACKFILL_EXAMPLE = "array-lines"


def meta_ids(name: str) -> dict[str, str]:
    """Fixture ``name``'s job ids: the scenario's id -> real Slurm's JobID (meta.json)."""
    return json.loads((DATA / name / "meta.json").read_text())["job_ids"]


def diverged(scenario: str, submit, start) -> pd.Series:
    """Which runs (their real Submit and Start, seconds from t0, NaN: none) come after the
    point from which the fixture's run knowingly takes another path (scorecard.DIVERGED):
    those are compared by their start times alone."""
    submit = pd.to_numeric(pd.Series(submit), errors="coerce").reset_index(drop=True)
    start = pd.to_numeric(pd.Series(start), errors="coerce").reset_index(drop=True)
    if scenario not in DIVERGED:
        return pd.Series(False, index=submit.index)
    since = DIVERGED[scenario][0]
    return (submit >= since) | (start >= since)


def sacct_seconds(column: pd.Series, t0: float) -> pd.Series:
    """sacct's times as seconds from t0 (Unknown, None: NaN)."""
    times = pd.to_datetime(column.where(~column.isin(["Unknown", "None", ""])), errors="coerce")
    return (times - pd.Timestamp(t0, unit="s")).dt.total_seconds()


def _real_sacct(out: Path) -> pd.DataFrame:
    """A fixture's sacct.txt, its allocation lines only (no steps), as text."""
    real = pd.read_csv(out / "sacct.txt", sep="|", dtype=str, keep_default_na=False)
    return real[~real["JobID"].str.contains(".", regex=False)]


def jobid_runs(name: str, out: Path) -> list[tuple[str, list[tuple]]]:
    """Each run of fixture ``name`` compared with real sacct's (starts.csv) before the
    fixture takes another path, as (key, differences): (key, column, real, simulated) for
    its JobIDRaw, and for an array task its ArrayJobID. A run the simulation refused as
    real Slurm did is not compared."""
    real = pd.read_csv(out / "starts.csv", dtype=str)
    real = real[real["id"].notna()]
    real = real[~diverged(name, real["submit_s"], real["start_s"]).to_numpy()]
    task = real["array_task"].fillna("")
    keys = real["id"] + task.where(task == "", "_" + task)
    sim = replay_result(name).sacct(duplicates=True)
    raws = sim.groupby("JobID")["JobIDRaw"].agg(set)
    arrays = sim.groupby("JobID")["ArrayJobID"].first()
    runs = []
    for key, jobid, raw in zip(keys, real["job_id"], real["job_id_raw"], strict=True):
        if key not in raws.index:
            continue
        differ = []
        if raw not in {str(r) for r in raws[key]}:
            differ.append((key, "JobIDRaw", raw, sorted(raws[key])))
        if "_" in jobid and str(arrays[key]) != jobid.split("_")[0]:
            differ.append((key, "ArrayJobID", jobid.split("_")[0], arrays[key]))
        runs.append((key, differ))
    return runs


def eligible_pairs(name: str, out: Path) -> list[tuple[str, float | None, float | None]]:
    """(real JobID, real Eligible, simulated Eligible), seconds from t0 (None: Unknown), of
    every run of fixture ``name`` that both sides had, before it takes another path."""
    ids = meta_ids(name)
    t0 = json.loads((out / "meta.json").read_text())["t0"]
    real = _real_sacct(out)
    result = replay_result(name)
    sim = result.sacct(duplicates=True)
    runs: dict[str, list] = {}
    for key, eligible in zip(sim["JobID"], sim["Eligible"], strict=True):
        base, under, task = key.rpartition("_")
        real_key = ids.get(key) or (f"{ids.get(base, base)}_{task}" if under else key)
        seconds = None if pd.isna(eligible) else (eligible - result.origin).total_seconds()
        runs.setdefault(real_key, []).append(seconds)
    seen: dict[str, int] = {}
    pairs = []
    after = diverged(name, *(sacct_seconds(real[c], t0) for c in ("Submit", "Start")))
    for key, eligible, late in zip(real["JobID"], real["Eligible"], after, strict=True):
        i = seen.get(key, 0)
        seen[key] = i + 1
        if i >= len(runs.get(key, ())) or late:
            continue  # (a run the simulation did not have: the scorecard's business)
        want = None if eligible in ("Unknown", "") else pd.Timestamp(eligible).timestamp() - t0
        pairs.append((key, want, runs[key][i]))
    return pairs


def eligible_agrees(want: float | None, got: float | None) -> bool:
    """An Eligible pair agrees: unknown on both sides, or within TOLERANCE_S."""
    if want is None or got is None:
        return want is None and got is None
    return abs(want - got) <= TOLERANCE_S


class SprioRow(NamedTuple):
    t: float  # the snapshot's time (seconds from t0)
    key: str  # the simulation's job (an array task: ID_TASK)
    job: str  # the scenario's job id (an array task's array)
    real: Any  # real sprio's row (sprio.csv)
    sim: pd.Series  # the simulation's sprio row
    same: bool


def sprio_rows(name: str, out: Path) -> Iterator[SprioRow]:
    """Fixture ``name``'s real sprio rows (sprio.csv) of jobs pending in the simulation at
    that second too, before it takes another path; ``same``: the weighted FAIRSHARE,
    JOBSIZE, PARTITION and QOS equal real sprio's and AGE is within 5."""
    if not (out / "sprio.csv").exists():
        return
    real = pd.read_csv(out / "sprio.csv")
    ids = {v: k for k, v in meta_ids(name).items()}
    result = replay_result(name)
    since = DIVERGED.get(name, (float("inf"),))[0]
    for t, snap in real.groupby("t"):
        if t >= since:
            continue
        sim = result.sprio(at=float(t)).set_index("JOBID")
        for row in snap.itertuples():
            base, _, task = str(row.job_id).partition("_")
            key = ids.get(base, base) + (f"_{task}" if task else "")
            if key not in sim.index:
                continue  # started a second earlier in the simulation
            got = sim.loc[[key]].iloc[0]
            same = (row.fairshare, row.jobsize, row.partition_w, row.qos) == (
                got.FAIRSHARE, got.JOBSIZE, got.PARTITION_PRIO, got.QOS
            ) and abs(got.AGE - row.age) <= 5  # fmt: skip
            yield SprioRow(t, key, ids.get(base, base), row, got, same)


def schednodes(name: str, out: Path) -> tuple[int, int]:
    """(rows with a plan on either side, rows naming the same nodes) of fixture ``name``'s
    ``squeue --start -a -r`` snapshots (snapshots.txt), before it takes another path."""
    snapshots = out / "snapshots.txt"
    if not snapshots.exists():
        return 0, 0
    real_to_sim = {v: k for k, v in meta_ids(name).items()}
    sim = replay_result(name).sim
    since = DIVERGED.get(name, (float("inf"),))[0]
    total = same = 0
    for block in snapshots.read_text().split("######## ")[1:]:
        t = float(re.match(r"t=\+(\d+(?:\.\d+)?)s", block).group(1))
        if t >= since:
            break
        part = block.split("$ squeue --start -a -r\n", 1)
        lines = part[1].split("\n\n", 1)[0].splitlines()[1:] if len(part) == 2 else []
        queue = squeue_frame(sim, t).set_index("JOBID")["SCHEDNODES"] if lines else None
        for line in lines:
            fields = line.split()
            base, _, task = fields[0].partition("_")
            key = real_to_sim.get(base, "") + (f"_{task}" if task else "")
            if key not in getattr(queue, "index", ()):
                continue
            mine = queue[key] if isinstance(queue[key], str) else "(null)"
            if fields[7] == mine == "(null)":
                continue
            total += 1
            same += fields[7] == mine
    return total, same


def schednodes_against_real_slurm() -> tuple[int, int]:
    """:func:`schednodes` summed over every fixture."""
    counts = [schednodes(p.stem, out) for p, out in scenario_runs()]
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def backfill_starts(name: str, out: Path) -> tuple[int, int, int, int]:
    """(runs real Slurm started by backfill, runs it started, the same two counts of the
    simulation) of fixture ``name``: sacct's ``SchedBackfill`` flag, the simulation's
    StartedBy (its every run, as ``sacct -D``)."""
    real = _real_sacct(out)
    started = real[~real["Start"].isin(["Unknown", "None", ""])]
    sim = replay_result(name).sacct(duplicates=True)
    ran = sim[sim["Start"].notna()]
    return (
        int(started["Flags"].str.contains("SchedBackfill").sum()),
        len(started),
        int((ran["StartedBy"] == "backfill").sum()),
        len(ran),
    )


def _of(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,}"


def glance() -> str:
    """README.md's GLANCE block: a table of the fidelity numbers over every fixture."""
    fixtures = list(scenario_runs())
    within = runs = jobids = jobids_same = eligible = eligible_same = 0
    sprio = sprio_same = 0
    sprio_jobs: set[tuple[str, str]] = set()
    bf = [0, 0, 0, 0]
    for yaml_path, out in fixtures:
        name = yaml_path.stem
        cmp = replay(yaml_path, out)
        within, runs = within + int(cmp["within"].sum()), runs + len(cmp)
        compared = jobid_runs(name, out)
        jobids, jobids_same = jobids + len(compared), jobids_same + sum(not d for _, d in compared)
        pairs = eligible_pairs(name, out)
        eligible += len(pairs)
        eligible_same += sum(eligible_agrees(want, got) for _, want, got in pairs)
        for row in sprio_rows(name, out):
            sprio, sprio_same = sprio + 1, sprio_same + row.same
            if not row.same:
                sprio_jobs.add((name, row.job))
        bf = [a + b for a, b in zip(bf, backfill_starts(name, out), strict=True)]
    plans, plans_same = schednodes_against_real_slurm()
    example = backfill_starts(BACKFILL_EXAMPLE, DATA / BACKFILL_EXAMPLE)
    fidelity = "test_fidelity.py::test_"
    rows = [
        (
            "real-Slurm scenarios (fixtures)",
            f"{len(fixtures)}",
            f"`{fidelity}every_scenario_has_been_run_on_real_slurm`",
        ),
        (
            f"runs started within {TOLERANCE_S:.0f} s of real Slurm's start",
            _of(within, runs),
            f"`{fidelity}simulated_starts_follow_real_slurm` (the rest: the scorecard's "
            "listed simplifications)",
        ),
        (
            "runs with real sacct's JobIDRaw (and ArrayJobID)",
            _of(jobids_same, jobids),
            f"`{fidelity}jobids_match_real_slurm`",
        ),
        (
            f"runs with real sacct's Eligible (within {TOLERANCE_S:.0f} s)",
            _of(eligible_same, eligible),
            f"`{fidelity}eligible_times_match_real_sacct`",
        ),
        (
            "sprio rows with real sprio's factors",
            f"{_of(sprio_same, sprio)} (the other {sprio - sprio_same}: "
            f"{len(sprio_jobs)} jobs, each listed with its reason)",
            f"`{fidelity}sprio_factors_match_real_sprio_in_every_fixture`",
        ),
        (
            "`squeue --start` rows with a plan on either side naming the same nodes",
            _of(plans_same, plans),
            "`test_qa_stop23.py::test_schednodes_against_real_slurms_squeue_start`",
        ),
        (
            "runs real Slurm started by backfill (sacct's `SchedBackfill`)",
            f"{_of(bf[0], bf[1])} ({BACKFILL_EXAMPLE}: {_of(example[0], example[1])})",
            "counted only (a known simplification)",
        ),
        (
            "runs the simulator started by backfill",
            f"{_of(bf[2], bf[3])} ({BACKFILL_EXAMPLE}: {_of(example[2], example[3])})",
            "counted only",
        ),
    ]
    lines = ["| compared with real Slurm 22.05 | count | checked by |", "|---|---:|---|"]
    return "\n".join(lines + [f"| {what} | {count} | {test} |" for what, count, test in rows])
