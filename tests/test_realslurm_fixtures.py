"""The real-Slurm fixtures are complete: every scenario has its outputs and they agree.

The fixtures under datasets/realslurm/ come from real Slurm daemons (see its README and
tools/realslurm/). These checks need only the standard library, pandas and PyYAML.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

DATA = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
SCENARIO_FILES = sorted((DATA / "scenarios").glob("*.yaml"))
OUTPUTS = (
    "meta.json",
    "sacct.txt",
    "sacct.json",
    "starts.csv",
    "queue.csv",
    "sprio.csv",
    "sshare.csv",
    "snapshots.txt",
)
SACCT_REQUIRED = [
    "JobID",
    "JobIDRaw",
    "JobName",
    "User",
    "Account",
    "Partition",
    "QOS",
    "State",
    "ExitCode",
    "DerivedExitCode",
    "Submit",
    "Eligible",
    "Start",
    "End",
    "Elapsed",
    "ElapsedRaw",
    "Timelimit",
    "TimelimitRaw",
    "NNodes",
    "NCPUS",
    "NTasks",
    "NodeList",
    "ReqTRES",
    "AllocTRES",
    "ReqMem",
    "MaxRSS",
    "TotalCPU",
    "Priority",
    "Reason",
    "Flags",
    "Reservation",
    "Constraints",
    "SubmitLine",
    "WorkDir",
]
TERMINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")
STARTS_COLUMNS = ["id", "job_id", "submit_s", "start_s", "end_s", "state", "flags", "nodelist"]


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def out_dir(scenario_file: Path) -> Path:
    return DATA / load(scenario_file)["name"]


def test_there_are_scenarios() -> None:
    """The seven scenarios of issue 7 are present."""
    names = {load(f)["name"] for f in SCENARIO_FILES}
    expected = {"backfill", "gpu-spellings", "arrays", "failures", "accounts-qos"}
    assert expected | {"dependency", "reservation"} <= names


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario_file_is_well_formed(scenario_file: Path) -> None:
    """Names match file names, job ids are unique, and the cluster files exist."""
    sc = load(scenario_file)
    assert sc["name"] == scenario_file.stem
    assert sc["policy"] == {"name": "slurm"}
    ids = [j["id"] for j in sc["jobs"]]
    assert len(ids) == len(set(ids))
    for job in sc["jobs"]:
        assert {"id", "submit", "runtime", "user", "args"} <= job.keys()
    for key in ("slurm_conf", "gres_conf"):
        assert (scenario_file.parent / sc["cluster"][key]).is_file()
    for action in sc.get("actions") or []:  # (on a job, or drain/resume on a node)
        if action["action"] in ("drain", "resume"):
            assert set(action) == {"at", "action", "node"}
            continue
        # (a job's id, or an array task ID_TASK / tasks ID_[0-2] of one)
        base, _, task = action["job"].rpartition("_")
        assert action["job"] in ids or (base in ids and re.fullmatch(r"\d+|\[[\d,-]+\]", task))
        assert action["action"] in {"cancel", "requeue", "hold", "release", "requeuehold", "update"}
        if action["action"] == "update":  # (scontrol update JobId= NumNodes= TimeLimit= ...)
            assert set(action) - {"at", "action", "job"} <= {"nodes", "time", "partition"}
    for failure in sc.get("failures") or []:
        assert set(failure) <= {"node", "at", "down_for"}


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario_has_all_outputs(scenario_file: Path) -> None:
    """make realslurm wrote every output file for the scenario."""
    for name in OUTPUTS:
        assert (out_dir(scenario_file) / name).is_file(), name


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_meta_names_slurm_version_and_jobs(scenario_file: Path) -> None:
    """meta.json records the Slurm version, t0 and a real job id for every scenario job."""
    sc = load(scenario_file)
    meta = json.loads((out_dir(scenario_file) / "meta.json").read_text())
    assert re.fullmatch(r"\d+\.\d+\.\d+", meta["slurm_version"])
    assert meta["scenario"] == sc["name"]
    assert meta["t0"] > 1.6e9
    assert set(meta["job_ids"]) == {j["id"] for j in sc["jobs"]}
    assert all(s["rc"] == 0 for s in meta["submissions"])


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_sacct_text_has_expected_header(scenario_file: Path) -> None:
    """sacct.txt is non-empty, pipe-separated, with the long explicit field list."""
    lines = (out_dir(scenario_file) / "sacct.txt").read_text().splitlines()
    header = lines[0].split("|")
    assert set(SACCT_REQUIRED) <= set(header)
    assert len(lines) > 1
    assert all(len(line.split("|")) == len(header) for line in lines[1:])


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_sacct_json_lists_jobs(scenario_file: Path) -> None:
    """sacct.json is Slurm's own JSON and lists every real job of the scenario."""
    doc = json.loads((out_dir(scenario_file) / "sacct.json").read_text())
    meta = json.loads((out_dir(scenario_file) / "meta.json").read_text())
    assert doc["jobs"]
    assert doc["meta"]["Slurm"]["release"] == meta["slurm_version"]
    job_ids = {str(j["job_id"]) for j in doc["jobs"]}
    job_ids |= {str(j["array"]["job_id"]) for j in doc["jobs"]}
    assert set(meta["job_ids"].values()) <= job_ids


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_every_job_appears_in_starts(scenario_file: Path) -> None:
    """starts.csv has a row for every scenario job, each in a final state."""
    sc = load(scenario_file)
    starts = pd.read_csv(out_dir(scenario_file) / "starts.csv", dtype={"id": str})
    assert set(STARTS_COLUMNS) <= set(starts.columns)
    assert {j["id"] for j in sc["jobs"]} <= set(starts["id"])
    final = starts.drop_duplicates("job_id", keep="last")  # earlier rows: requeued runs
    # (a victim of PreemptMode=CANCEL ends PREEMPTED: preempt-grace's g4)
    assert final["state"].str.startswith((*TERMINAL, "PREEMPTED")).all(), final[["id", "state"]]


@pytest.mark.parametrize("scenario_file", SCENARIO_FILES, ids=lambda p: p.stem)
def test_starts_times_are_ordered(scenario_file: Path) -> None:
    """A job that ran started no earlier than it was submitted and ended after it started."""
    starts = pd.read_csv(out_dir(scenario_file) / "starts.csv")
    ran = starts.dropna(subset=["start_s"])
    assert (ran["start_s"] >= ran["submit_s"]).all()
    assert (ran["end_s"] >= ran["start_s"]).all()


def test_readme_describes_every_scenario() -> None:
    """datasets/realslurm/README.md names each scenario and the Slurm version."""
    readme = (DATA / "README.md").read_text()
    for f in SCENARIO_FILES:
        assert load(f)["name"] in readme
    assert "22.05" in readme
