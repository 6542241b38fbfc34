"""``slurmlab report --capacity FILE``: the file is YAML or JSON, read as the scenario files
are. A partition or key given twice is an error naming the file and the line (YAML and JSON
readers silently keep the last one: nothing is dropped silently); a count written as a JSON
writer may write it (``512.0``, ``1e3``) is that whole number, as ``analysis.utilization``
takes it; a bad document is one error line naming the line and column."""

from __future__ import annotations

import pytest

from slurmlab.cli import main

EXPORT = (
    "JobID|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|"
    "NodeList\n"
    "1|a|u1|acc|gpu|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T01:01:00|"
    "01:00:00|4|cpu=4,gres/gpu=2,node=1|n1\n"
)


@pytest.fixture
def export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.psv").write_text(EXPORT)


def _report(capsys, capacity: str, text: str) -> tuple[int, str]:
    with open(capacity, "w") as file:
        file.write(text)
    code = main(["report", "e.psv", "--capacity", capacity, "-o", "r.html"])
    return code, capsys.readouterr().err


def _one_error(err: str) -> str:
    assert err.startswith("slurmlab: error: ") and err.count("\n") == 1, err
    return err[len("slurmlab: error: ") : -1]


@pytest.mark.parametrize(
    "text, line",
    [
        ("gpu: {cpus: 8, gpus: 4, nodes: 2}\ngpu: {cpus: 512, gpus: 64, nodes: 8}\n", 2),
        ('{"gpu": {"cpus": 8, "gpus": 4,\n "cpus": 512}}\n', 2),
    ],
)
def test_a_partition_or_key_given_twice_is_refused(export, capsys, text, line):
    """The second one named by its line, not kept over the first in silence."""
    code, err = _report(capsys, "cap.yaml", text)
    message = _one_error(err)
    assert code == 1
    assert message.startswith(f"--capacity 'cap.yaml' line {line}, column ")
    assert "is given twice" in message


@pytest.mark.parametrize("cpus", ["512.0", "5.12e2", "512"])
def test_a_whole_count_written_as_a_float_is_that_count(export, capsys, tmp_path, cpus):
    """512.0 and 5.12e2 (json.dump of a float) are 512 CPUs: the report is written."""
    code, err = _report(
        capsys, "cap.json", f'{{"gpu": {{"cpus": {cpus}, "gpus": 64, "nodes": 8}}}}'
    )
    assert code == 0, err
    assert (tmp_path / "r.html").stat().st_size > 0


@pytest.mark.parametrize("gpus", ["6.5", ".inf", "-1.0"])
def test_a_count_that_is_no_whole_number_is_still_refused(export, capsys, gpus):
    code, err = _report(capsys, "cap.yaml", f"{{gpu: {{cpus: 8, gpus: {gpus}}}}}")
    assert code == 1
    assert "partition 'gpu': gpus=" in _one_error(err) and "is not a count" in err


def test_a_document_that_is_not_yaml_is_one_line_naming_where(export, capsys):
    code, err = _report(capsys, "cap.yaml", "{gpu: [1, 2}\n")
    assert code == 1
    assert _one_error(err).startswith("--capacity 'cap.yaml' line 1, column 12: not YAML or JSON")


def test_a_partition_named_with_an_exponent_is_that_name(tmp_path):
    """A partition key written 1e2 is the partition '1e2' (a name, as YAML 1.1 reads a key),
    not '100.0', while a count written 1e3 is the number 1000."""
    from slurmlab.commands_sacct import _load_capacity

    path = tmp_path / "cap.yaml"
    path.write_text("1e2: {cpus: 1e3, gpus: 0, nodes: 8}\n")
    assert _load_capacity(str(path)) == {"1e2": {"cpus": 1000, "gpus": 0, "nodes": 8}}
