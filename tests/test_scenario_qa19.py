"""Scenario files: nothing a learner writes is silently dropped, merged or changed (duplicate
keys, fields a preset ignores, origin, a policy parameter given twice, YAML 1.1 scalars in
names, a job field against its own sbatch options, unknown failure/checkpoint fields)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from slurmlab.errors import ScenarioError
from slurmlab.scenario import Scenario

CONF = "NodeName=n[1-2] CPUs=4 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES\n"


def _error(tmp_path, text: str, line: int, *words: str, name: str = "s.yaml") -> None:
    """Loading ``text`` raises a ScenarioError on ``line`` whose message says ``words``."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value).startswith(f"{path} line {line}: "), str(info.value)
    for word in words:
        assert word in str(info.value), str(info.value)


def _load(tmp_path, text: str, name: str = "ok.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(text)
    return Scenario.load(path)


def test_a_key_given_twice_is_refused_in_yaml_and_json(tmp_path):
    """YAML and JSON keep the last of two equal keys; the loader names both lines instead."""
    _error(
        tmp_path,
        "cluster: tiny\njobs:\n  - {id: a, submit: 0,\n     runtime: 100, runtime: 200}\n",
        4,
        "key 'runtime' is given twice",
        "first on line 4, column 6",
        "give it once",
    )
    _error(
        tmp_path,
        "policy: easy\ncluster: tiny\njobs: [{runtime: 1}]\npolicy: fifo\n",
        4,
        "key 'policy' is given twice",
        "first on line 1",
    )
    _error(
        tmp_path,
        '{"cluster": "tiny",\n "jobs": [{"runtime": 1}],\n "cluster": "ai"}\n',
        3,
        "key 'cluster' is given twice",
        "first on line 1",
        name="s.json",
    )
    merged = _load(
        tmp_path,
        "cluster: tiny\njobs:\n  - &b {runtime: 5, args: -n 1}\n  - {<<: *b, runtime: 7}\n",
    )
    assert merged.workload.jobs[1].runtime == 7.0  # a merge key's fields may be overridden


def test_a_preset_or_slurm_conf_takes_no_inline_fields(tmp_path):
    """A preset or slurm.conf gives the whole cluster: other fields are refused, not ignored."""
    (tmp_path / "c.conf").write_text(CONF)
    job = "jobs: [{runtime: 1}]\n"
    _error(
        tmp_path,
        "cluster:\n  slurm_conf: c.conf\n  bogus: 1\n" + job,
        3,
        "cluster: unknown field(s) ['bogus']",
        "allowed",
    )
    _error(
        tmp_path,
        "cluster:\n  slurm_conf: c.conf\n  settings: {PreemptMode: REQUEUE}\n" + job,
        3,
        "['settings'] do not apply with slurm_conf",
        "settings go in the slurm.conf",
    )
    _error(
        tmp_path,
        "cluster:\n  preset: tiny\n  slurm_conf: c.conf\n" + job,
        3,
        "['slurm_conf'] do not apply with preset",
        "drop them",
    )
    _error(
        tmp_path,
        "cluster:\n  preset: tiny\n  nodes: [{name: a}]\n" + job,
        3,
        "['nodes'] do not apply with preset",
    )
    _error(
        tmp_path,
        "cluster:\n  nodes: [{name: a}]\n  gres_conf: g.conf\n" + job,
        3,
        "['gres_conf'] apply only with slurm_conf",
    )
    (tmp_path / "g.conf").write_text("")
    ok = _load(tmp_path, "cluster: {slurm_conf: c.conf, gres_conf: g.conf}\n" + job)
    assert [n.name for n in ok.cluster.nodes] == ["n1", "n2"]
    assert _load(tmp_path, "cluster: {preset: tiny}\n" + job).cluster.name == "tiny"


def test_origin_moves_the_job_tables_times_and_a_bad_one_is_refused(tmp_path):
    """``origin`` is the calendar time the clock starts at: Submit and Start count from it."""
    job = "jobs: [{submit: 60, runtime: 10, args: -n 1}]\n"
    for origin in ("2030-06-01T08:00:00", "'2030-06-01 08:00'"):
        jobs = _load(tmp_path, f"cluster: tiny\norigin: {origin}\n" + job).run().jobs
        assert jobs.Submit.tolist() == [pd.Timestamp("2030-06-01 08:01:00")]
        assert jobs.Start.tolist() == [pd.Timestamp("2030-06-01 08:01:00")]
    default = _load(tmp_path, "cluster: tiny\n" + job).run().jobs
    assert default.Submit.tolist() == [pd.Timestamp("2026-01-05 00:01:00")]
    for bad in ("notadate", "'2030-02-30'", "2030-06-01T08:00:00Z", "1500-01-01", "3600"):
        _error(
            tmp_path,
            f"cluster: tiny\norigin: {bad}\n" + job,
            2,
            "origin '",
            "is not a date and time",
            "e.g. origin: 2026-01-05T08:00:00",
        )
    _error(tmp_path, "origin: 2030-02-30\n" + job, 1, "2030-02-30 is not a date", "quote")


def test_a_policy_parameter_given_twice_is_refused(tmp_path):
    """Beside the name and under params at once: neither silently wins."""
    _error(
        tmp_path,
        "cluster: tiny\npolicy:\n  name: slurm\n  params: {bf_window: 10}\n  bf_window: 20\n"
        "jobs: [{runtime: 1}]\n",
        5,
        "parameter 'bf_window' is given twice",
        "policy.bf_window (20)",
        "policy.params.bf_window (10)",
        "give it once",
    )
    ok = _load(
        tmp_path,
        "cluster: tiny\npolicy: {name: slurm, params: {bf_window: 10}, bf_interval: 20}\n"
        "jobs: [{runtime: 1}]\n",
    )
    assert ok.policy_params == {"bf_window": 10, "bf_interval": 20}


@pytest.mark.parametrize(
    ("field", "written", "words"),
    [
        ("id", "010", ["YAML reads 010 as the number 8", "quote it: id: '010'"]),
        ("id", "0x1F", ["the number 31", "quote it: id: '0x1F'"]),
        ("user", "0755", ["the number 493", "quote it: user: '0755'"]),
        ("account", "1_000", ["the number 1000", "quote it: account: '1_000'"]),
        ("user", "no", ["field 'user'", "as the boolean False", "quote it"]),
        ("account", "on", ["field 'account'", "as the boolean True", "quote it"]),
        ("id", "true", ["field 'id'", "as the boolean True", "quote it"]),
    ],
)
def test_yaml_numbers_and_booleans_are_not_names(tmp_path, field, written, words):
    """YAML 1.1 reads 010, 0x1F, no, on as numbers and booleans: a name field refuses them."""
    _error(
        tmp_path,
        f"cluster: tiny\njobs:\n  - runtime: 1\n    {field}: {written}\n",
        4,
        "jobs[0]",
        f"field {field!r}",
        *words,
    )


def test_decimal_ids_quoted_names_and_other_numbers_still_load(tmp_path):
    """``id: 7`` is the job '7'; a quoted '010' stays '010'; sexagesimal times are kept;
    ``runtime: 016`` is 16 s, in decimal as written (``0x10`` is refused: QA stop 26)."""
    s = _load(
        tmp_path,
        "cluster: tiny\njobs:\n  - {id: 7, submit: 1:30, runtime: 016, user: '0755'}\n"
        "  - {id: '010', runtime: 1, account: 'on'}\n",
    )
    first, second = s.workload.jobs
    assert (first.id, first.submit, first.runtime, first.user) == ("7", 90.0, 16.0, "0755")
    assert (second.id, second.account) == ("010", "on")


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("account: other, args: -A proj", ["field 'account' is 'other'", "--account=proj"]),
        ("name: bar, args: --job-name=foo", ["field 'name' is 'bar'", "--job-name=foo"]),
        ("user: bob, args: --uid=alice", ["field 'user' is 'bob'", "--uid=alice"]),
    ],
)
def test_a_job_field_and_its_own_option_must_agree(tmp_path, entry, words):
    """A job's account/name/user and its -A/--job-name/--uid: one may not silently win."""
    _error(
        tmp_path,
        f"cluster: tiny\njobs:\n  - runtime: 1\n  - {{runtime: 1, {entry}}}\n",
        4,
        "jobs[1]",
        *words,
        "give it once",
    )


def test_a_job_field_and_its_script_must_agree_and_the_same_value_twice_is_fine(tmp_path):
    """#SBATCH lines count as the job's options; command-line args still override them."""
    script = "    script: |\n      #!/bin/bash\n      #SBATCH -J foo -A proj\n"
    _error(
        tmp_path,
        "cluster: tiny\njobs:\n  - runtime: 1\n    name: bar\n" + script,
        4,
        "jobs[0]: field 'name' is 'bar' but its 'script' gives --job-name=foo",
    )
    ok = _load(
        tmp_path,
        "cluster: tiny\njobs:\n  - runtime: 1\n    name: foo\n    account: other\n"
        "    args: -A other\n" + script,
    )
    spec = ok.workload.jobs[0].spec
    assert (spec.name, spec.account, ok.workload.jobs[0].account) == ("foo", "other", "other")


def test_unknown_failure_and_checkpoint_fields_list_the_allowed_ones(tmp_path):
    """As every other section: the unknown field, its line and the fields allowed."""
    job = "jobs: [{runtime: 1}]\n"
    _error(
        tmp_path,
        "cluster: tiny\nfailures:\n  - node: node1\n    at: 5\n    downfor: 3\n" + job,
        5,
        "failures[0]: unknown field(s) ['downfor']",
        "allowed: ['at', 'down_for', 'node']",
    )
    _error(
        tmp_path,
        "cluster: tiny\njobs:\n  - runtime: 1\n    checkpoint:\n      interval: 5\n      cost: 3\n",
        6,
        "jobs[0]: field 'checkpoint': unknown field(s) ['cost']",
        "allowed: ['interval', 'on_signal', 'restart_cost', 'write_cost']",
    )
    _error(
        tmp_path,
        "cluster: tiny\nrandom_failures:\n  mtbf: 100\n  sed: 3\n" + job,
        4,
        "random_failures: unknown field(s) ['sed']",
        "'seed'",
    )
    ok = _load(
        tmp_path,
        "cluster: tiny\nfailures: [{node: node1, at: 5, down_for: 3}]\n"
        "jobs: [{runtime: 1, checkpoint: {interval: 5, write_cost: 1}}]\n",
    )
    assert len(ok.failures) == 1 and ok.workload.jobs[0].checkpoint.interval == 5.0


@pytest.mark.parametrize(
    ("section", "where", "said"),
    [
        ("accounts:\n  - {name: llm, shares: 1, users: [alice, no]}\n", "accounts[0].users[1]",
         "boolean False"),
        ("actions:\n  - {at: 10, action: cancel, job: 010}\n", "actions[0].job", "number 8"),
        ("qos:\n  - {name: 0x1F}\n", "qos[0].name", "number 31"),
    ],
)  # fmt: skip
def test_names_in_every_section_are_read_as_written(tmp_path, section, where, said):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\n" + section + "jobs:\n  - {id: a, submit: 0, runtime: 10, args: -n 1}\n"
    )
    with pytest.raises(ScenarioError, match=rf"line \d+: field {re.escape(where)}: .*{said}"):
        Scenario.load(path)
