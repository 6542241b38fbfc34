"""Numbers in scenario files: a number written with an exponent (``1e3``, ``3.6e3``,
``1E3``, ``2.5e-1``) is a number, as JSON and YAML 1.2 read it. PyYAML's YAML 1.1 rules
read such a number as text unless it has a dot and a signed exponent (``1.0e+3``), so a
JSON scenario (JSON is YAML, the format's promise) with ``"runtime": 1e3`` was refused."""

from __future__ import annotations

import json
import warnings

import pytest

from slurmlab.errors import ScenarioError
from slurmlab.scenario import Scenario


def _load(tmp_path, name: str, text: str) -> Scenario:
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Scenario.load(path)


@pytest.mark.parametrize("written", ["1e3", "1.0e3", "1E3", "1e+3", "0.1e4", "1.0e+3"])
def test_json_exponent_numbers_are_numbers(tmp_path, written):
    """A JSON document's number with an exponent is that many seconds (1e3 = 1000 s)."""
    text = (
        '{"cluster": "tiny", "jobs": [{"id": "a", "submit": 0, '
        f'"runtime": {written}, "args": "-n 1 -t 30"}}]}}'
    )
    json.loads(text)  # valid JSON, as a script's json.dump writes it
    jobs = _load(tmp_path, "s.json", text).run("fifo").jobs
    assert (jobs.End - jobs.Start).dt.total_seconds().tolist() == [1000.0]


def test_yaml_exponent_submit_is_seconds(tmp_path):
    """In YAML too (1.2 reads 1e3 as a float): submit: 2e2 submits at 200 s."""
    text = "cluster: tiny\njobs:\n  - {id: a, submit: 2e2, runtime: 10, args: '-n 1'}\n"
    assert _load(tmp_path, "s.yaml", text).workload.jobs[0].submit == 200.0


def test_huge_exponent_is_refused_as_too_long(tmp_path):
    """1e300 is a number out of range (named so), not text that is no time at all."""
    text = "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 1e300, args: '-n 1'}\n"
    with pytest.raises(ScenarioError, match=r"line 3: .*'runtime'.* over 1e\+09 s"):
        _load(tmp_path, "s.yaml", text)


NAMED = (
    "name: 1e5\n"
    "description: 2e3\n"
    "cluster:\n"
    "  nodes:\n"
    "    - {name: 1e2, cpus: 4, memory: 4000}\n"
    "  partitions:\n"
    "    - {name: 3e1, nodes: 1e2, default: true}\n"
    "accounts:\n"
    "  - {name: 4e1, users: [5e1]}\n"
    "jobs:\n"
    "  - {id: 1e5, user: 5e1, account: 4e1, submit: 1e1, runtime: 2e1, args: '-n 1'}\n"
)


def test_names_and_text_written_with_an_exponent_stay_the_text(tmp_path):
    """Only numbers read a number with an exponent: a name or text field (job id, user,
    account, node, partition, the scenario's name and description) holds the text written,
    as YAML 1.1 reads 1e5, not '100000.0'; the times beside them are numbers (10 s, 20 s)."""
    s = _load(tmp_path, "s.yaml", NAMED)
    assert (s.name, s.description) == ("1e5", "2e3")
    (job,) = s.workload.jobs
    assert (job.id, job.submit, job.runtime) == ("1e5", 10.0, 20.0)
    assert (job.user, job.account) == ("5e1", "4e1")
    assert [(a.name, a.users) for a in s.accounts] == [("4e1", ("5e1",))]
    row = s.run("fifo").jobs.iloc[0]
    assert (row.JobID, row.User, row.Partition, row.NodeList) == ("1e5", "5e1", "3e1", "1e2")


@pytest.mark.parametrize(
    "field, entry, shown",
    [
        ("DefMemPerCPU", "cluster: {nodes: [{name: n1, cpus: 4}], settings: {DefMemPerCPU: 1e3}}", "'1e3'"),
        ("max_time", "cluster: {nodes: [{name: n1, cpus: 4}], partitions: [{name: p, nodes: n1, max_time: 1e2}]}", "'1e2'"),
    ],
)  # fmt: skip
def test_slurm_conf_text_written_with_an_exponent_is_named_as_written(
    tmp_path, field, entry, shown
):
    """A value read as slurm.conf text (settings, a partition's MaxTime) keeps what was
    written, and its error quotes that: '1e3', not '1000.0'."""
    text = f"{entry}\njobs:\n  - {{id: a, submit: 0, runtime: 10, args: '-n 1'}}\n"
    with pytest.raises(ScenarioError, match=rf"line 1: .*{field}.*{shown}"):
        _load(tmp_path, "s.yaml", text)
