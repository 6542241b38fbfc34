"""The synthetic export generator: seeded, realistic, and readable by read_sacct."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pandas as pd
import pytest

from slurmlab import analysis as an
from slurmlab.records.sacct import read_sacct, steps
from slurmlab.records.synth import FIELDS, SynthConfig, main, synth_sacct
from slurmlab.spec.units import expand_hostlist

DATASET = Path(__file__).resolve().parents[1] / "datasets/synthetic/sacct-synthetic.psv"


def test_same_seed_same_bytes_other_seed_other_bytes():
    assert synth_sacct(200, seed=3) == synth_sacct(200, seed=3)
    assert synth_sacct(200, seed=3) != synth_sacct(200, seed=4)


def test_global_random_state_is_untouched():
    import random

    import numpy as np

    np.random.seed(1)
    random.seed(1)
    before = (np.random.random(), random.random())
    np.random.seed(1)
    random.seed(1)
    synth_sacct(50, seed=9)
    assert (np.random.random(), random.random()) == before


def test_export_has_every_edge_case_the_issue_lists():
    jobs = read_sacct(
        io.StringIO(synth_sacct(1500, seed=2026, config=SynthConfig(jobs_per_day=120)))
    )
    assert jobs.attrs["fields"] == list(FIELDS) and len(FIELDS) == 30
    states = set(jobs["State"])
    assert {
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED",
        "OUT_OF_MEMORY",
        "REQUEUED",
        "PREEMPTED",
        "NODE_FAIL",
    } <= states
    assert jobs["ArrayTaskRange"].notna().any()  # pending ranges
    assert jobs["ArrayJobID"].notna().any()
    assert (jobs.groupby("JobID").size() > 1).any()  # --duplicates rows of requeued jobs
    assert set(jobs["GPUType"].dropna()) == {"a100", "h100"}
    assert jobs["Account"].nunique() == 7
    s = steps(jobs)
    assert {"batch", "extern", "0"} <= set(s["StepID"])
    timeouts = s[(s["JobState"] == "TIMEOUT") & (s["StepID"] == "batch")]
    assert (timeouts["State"] == "CANCELLED").all() and (timeouts["ExitCode"] == "0:15").all()
    assert s["User"].isna().all()
    assert len(an.requeues(jobs)) > 0


def test_committed_dataset_is_what_the_command_makes(tmp_path):
    """datasets/synthetic/README.md gives the command; it must reproduce the committed file."""
    if not DATASET.exists():
        pytest.skip("dataset not present")
    out = tmp_path / "again.psv"
    main(["--jobs", "1500", "--seed", "2026", "--jobs-per-day", "120", "-o", str(out)])
    assert out.read_bytes() == DATASET.read_bytes()


def test_config_is_validated():
    with pytest.raises(ValueError, match="array_fraction"):
        SynthConfig(array_fraction=2)


# The imagined cluster, as datasets/synthetic/README.md gives it.
CAPACITY = {
    "gpu": {"cpus": 4096, "gpus": 512, "nodes": 64},
    "cpu": {"cpus": 16384, "gpus": 0, "nodes": 128},
    "debug": {"cpus": 128, "gpus": 8, "nodes": 4},
}
NODE_ROOM = {"gpu": (64, 8, 1024), "cpu": (128, 0, 512), "dbg": (32, 2, 256)}  # CPUs, GPUs, GB


@pytest.fixture(scope="module")
def exports() -> dict:
    """The committed export (when present) and a fresh one from another seed, read."""
    out = {"seed 7": read_sacct(io.StringIO(synth_sacct(1500, seed=7)))}
    if DATASET.exists():
        out["committed"] = read_sacct(DATASET)
    return out


def _assert_no_node_over(jobs, which: str) -> pd.DataFrame:
    """Fail, naming the nodes, if any node ever holds more than it has; else the peaks."""
    most = _most_held_per_node(jobs)
    room = pd.DataFrame(
        [NODE_ROOM[name.rstrip("0123456789")] for name in most.index],
        index=most.index,
        columns=["cpus", "gpus", "gb"],
    )
    over = most[(most > room).any(axis=1)]
    assert over.empty, f"{which}: nodes over capacity:\n{over.join(room, rsuffix=' room')}"
    return most


def _most_held_per_node(jobs) -> pd.DataFrame:
    """The most CPUs, GPUs and GB each node holds at one instant: every run that started
    holds allocation / NNodes on each node of its NodeList from Start to End (a RUNNING one
    for ever); at one instant, runs ending release before runs starting take."""
    runs = jobs[jobs["Start"].notna()]
    nodes = runs["NodeList"].map(lambda s: expand_hostlist(str(s)))
    share = pd.DataFrame(
        {
            "node": nodes,
            "start": runs["Start"],
            "end": runs["End"].fillna(pd.Timestamp.max),
            "cpus": runs["NCPUS"] / runs["NNodes"],
            "gpus": runs["NGPUS"].fillna(0) / runs["NNodes"],
            "gb": runs["ReqMem"] / 1024 / runs["NNodes"],
        }
    ).explode("node")
    taken = share.assign(time=share["start"], sign=1)
    released = share.assign(time=share["end"], sign=-1)
    events = pd.concat([taken, released]).sort_values(["node", "time", "sign"], kind="stable")
    held = events[["cpus", "gpus", "gb"]].mul(events["sign"], axis=0).groupby(events["node"])
    return held.cumsum().groupby(events["node"]).max()


@pytest.mark.parametrize("which", ["committed", "seed 7"])
def test_no_node_ever_holds_more_than_it_has(exports, which):
    """Every run that started (completed, failed, timed out, cancelled while running, node
    failure, the earlier runs of requeued jobs, running at the export's end) counts on its
    nodes; no node holds more CPUs, GPUs or memory than it has at any instant."""
    if which not in exports:
        pytest.skip("dataset not present")
    jobs = exports[which]
    most = _assert_no_node_over(jobs, which)
    assert (most["gpus"] == 8).any()  # the GPU nodes do fill up
    started = jobs[jobs["Start"].notna()]
    assert set(started["State"]) >= {"COMPLETED", "RUNNING", "REQUEUED", "NODE_FAIL"}


def test_steps_run_on_their_jobs_nodes():
    """.extern and .0 steps have the job's NodeList, .batch its first node."""
    text = synth_sacct(400, seed=5, config=SynthConfig(jobs_per_day=120))
    job_nodes = None
    for line in text.splitlines()[1:]:
        row = dict(zip(FIELDS, line.split("|")))
        if "." not in row["JobID"]:
            job_nodes = (
                expand_hostlist(row["NodeList"]) if row["NodeList"] != "None assigned" else None
            )
            continue
        assert job_nodes is not None, row["JobID"]
        kind = row["JobID"].rsplit(".", 1)[1]
        expected = job_nodes[:1] if kind == "batch" else job_nodes
        assert expand_hostlist(row["NodeList"]) == expected, row["JobID"]


@pytest.mark.parametrize("which", ["committed", "seed 7"])
def test_utilization_against_the_documented_capacity_fits(exports, which):
    """With the capacity datasets/synthetic/README.md gives, CPUs and GPUs are never more
    than the partition has (no warning about them) and the GPUs are about 80 % busy."""
    if which not in exports:
        pytest.skip("dataset not present")
    jobs = exports[which]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        u = an.utilization(jobs, capacity=CAPACITY)
    text = " ".join(str(w.message) for w in caught)
    assert "cpus allocated" not in text and "gpus allocated" not in text, text
    assert "not in the capacity" not in text and "gives no" not in text, text
    held = u[u["resource"].isin(["cpus", "gpus"])]
    assert (held["utilization"].dropna() <= 1 + 1e-9).all()
    gpu = u[(u["Partition"] == "gpu") & (u["resource"] == "gpus")]
    assert 0.6 < gpu["utilization"].mean() < 0.9


def test_utilization_against_the_documented_capacity_gives_no_warning():
    """No warning at all, nodes included, once utilization counts a shared node once."""
    if not DATASET.exists():
        pytest.skip("dataset not present")
    jobs = read_sacct(DATASET)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u = an.utilization(jobs, capacity=CAPACITY)
    assert (u["utilization"].dropna() <= 1 + 1e-9).all()


def test_a_higher_rate_runs_on_more_copies_of_the_cluster():
    """600 jobs a day is five copies of the 120-a-day cluster: nodes gpu001-gpu320, each
    still within its room, and the GPUs about as busy as with one copy."""
    config = SynthConfig(jobs_per_day=600)
    assert config.cluster_copies == 5 and SynthConfig(copies=2).cluster_copies == 2
    jobs = read_sacct(io.StringIO(synth_sacct(3000, seed=11, config=config)))
    _assert_no_node_over(jobs, "600 a day")
    gpu_nodes = {
        n
        for s in jobs.loc[jobs["Partition"] == "gpu", "NodeList"].dropna()
        if s != "None assigned"
        for n in expand_hostlist(s)
    }
    assert max(gpu_nodes) > "gpu064" and max(gpu_nodes) <= "gpu320"
    capacity = {p: {k: v * 5 for k, v in c.items()} for p, c in CAPACITY.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u = an.utilization(jobs, capacity=capacity)
    gpu = u[(u["Partition"] == "gpu") & (u["resource"] == "gpus")]
    assert gpu["utilization"].max() <= 1 + 1e-9 and 0.6 < gpu["utilization"].mean() < 0.9


def test_the_command_runs_with_its_default_rate(tmp_path):
    """--jobs-per-day defaults to 120 (it used to fail reading a slotted dataclass field)."""
    out = tmp_path / "export.psv"
    assert main(["--jobs", "40", "--seed", "1", "-o", str(out)]) == 0
    assert out.read_text().startswith("JobID|JobIDRaw|")
