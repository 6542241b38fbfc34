"""A path that starts with ``~`` is under the user's home, as pandas' readers (read_csv)
take it in a notebook: Scenario.load, read_swf, read_sacct, Cluster.from_slurm_conf and a
cluster given by path (Lab, simulate) each expand it, rather than report that the file does
not exist."""

from __future__ import annotations

import warnings

import pytest

import slurmlab

SCENARIO = (
    "cluster: {slurm_conf: small.conf}\njobs:\n  - {id: a, submit: 0, runtime: 10, args: '-n 1'}\n"
)
CONF = "SelectType=select/cons_tres\nNodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=n[1-2] Default=YES\n"
SWF = "; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
SACCT = (
    "JobID|State|Submit|Start|End|Elapsed|NCPUS\n"
    "7|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T00:50:00|00:50:00|2\n"
)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder with a scenario, its slurm.conf, a trace and an export in ~/data."""
    monkeypatch.setenv("HOME", str(tmp_path))
    data = tmp_path / "data"
    data.mkdir()
    for name, text in [
        ("s.yaml", SCENARIO),
        ("small.conf", CONF),
        ("t.swf", SWF),
        ("e.psv", SACCT),
    ]:
        (data / name).write_text(text)
    monkeypatch.chdir(data.parent.parent)  # (not home: a relative path would not find them)
    return data


def test_scenario_load_expands_home(home):
    scenario = slurmlab.Scenario.load("~/data/s.yaml")
    assert [j.id for j in scenario.workload.jobs] == ["a"]
    assert scenario.cluster.name == "small"  # its slurm_conf, relative to the scenario's file


def test_read_swf_expands_home(home):
    assert len(slurmlab.read_swf("~/data/t.swf").jobs) == 1


def test_read_sacct_expands_home(home):
    assert slurmlab.read_sacct("~/data/e.psv").JobID.tolist() == ["7"]
    assert len(slurmlab.read_sacct(["~/data/e.psv"])) == 1


def test_a_slurm_conf_path_expands_home(home):
    assert slurmlab.Cluster.from_slurm_conf("~/data/small.conf").name == "small"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab = slurmlab.Lab("~/data/small.conf")
        result = slurmlab.simulate("~/data/small.conf", slurmlab.read_swf("~/data/t.swf"))
    assert lab.cluster.name == result.cluster.name == "small"


@pytest.mark.parametrize(
    "read",
    [
        lambda p: slurmlab.Scenario.load(p + ".yaml"),
        lambda p: slurmlab.read_swf(p + ".swf"),
        lambda p: slurmlab.read_sacct(p + ".psv"),
        lambda p: slurmlab.Cluster.from_slurm_conf(p + ".conf"),
        lambda p: slurmlab.Lab(p + ".conf"),
    ],
    ids=["Scenario.load", "read_swf", "read_sacct", "from_slurm_conf", "Lab"],
)
def test_a_home_of_no_such_user_is_a_file_that_does_not_exist(read):
    """~user of no such user stays as written (as pandas' readers leave it): the reader's
    own error says the file does not exist, naming the path, not a bare RuntimeError."""
    path = "~no_such_user_slurmlab/x"
    with pytest.raises(
        slurmlab.SlurmlabError, match=r"(?i)(not exist|no such file|file that exists)"
    ) as err:
        read(path)
    assert path in str(err.value)
