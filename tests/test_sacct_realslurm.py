"""Exports written by a real Slurm (datasets/realslurm, made by `make realslurm`): the -P text
and the --json of the same jobs must read to the same table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from slurmlab.records.sacct import read_sacct, steps

REAL = Path(__file__).resolve().parents[1] / "datasets/realslurm"
PAIRS = sorted(p.parent for p in REAL.glob("*/sacct.txt") if (p.parent / "sacct.json").exists())

COLUMNS = [
    "JobID", "JobIDRaw", "ArrayJobID", "ArrayTaskID", "User", "Account", "Partition", "QOS",
    "State", "CancelledBy", "ExitCode", "Submit", "Start", "End", "Elapsed", "Timelimit",
    "NNodes", "NCPUS", "NGPUS", "NodeList", "Priority", "StartedBy",
]  # fmt: skip


@pytest.mark.skipif(not PAIRS, reason="no real-Slurm exports in datasets/realslurm yet")
@pytest.mark.parametrize("folder", PAIRS, ids=[p.name for p in PAIRS])
def test_text_and_json_exports_agree(folder):
    text = read_sacct(folder / "sacct.txt")
    # the captures are made with TZ=UTC (meta.json), and JSON times are epoch seconds
    data = read_sacct(folder / "sacct.json", tz="UTC")
    assert text.attrs["bad_rows"] == 0 and data.attrs["format"] == "json"
    key = ["JobID", "Submit"]
    a = text[COLUMNS].sort_values(key, kind="stable").reset_index(drop=True)
    b = data[COLUMNS].sort_values(key, kind="stable").reset_index(drop=True)
    # Slurm 22.05's --json (dbv0.0.38) writes exit_code SUCCESS/0 for a job that ended FAILED
    # with 1:0 in the text export (the dependency fixture's job 'fails'): a Slurm quirk, so the
    # text export is the reference for ExitCode of FAILED jobs.
    quirk = (a["State"] == "FAILED") & (a["ExitCode"] != "0:0") & (b["ExitCode"] == "0:0")
    b.loc[quirk, "ExitCode"] = a.loc[quirk, "ExitCode"]
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    sa = steps(text).sort_values(["JobID", "Start"], kind="stable").reset_index(drop=True)
    sb = steps(data).sort_values(["JobID", "Start"], kind="stable").reset_index(drop=True)
    assert sa["JobID"].tolist() == sb["JobID"].tolist()
    assert sa["State"].tolist() == sb["State"].tolist()
