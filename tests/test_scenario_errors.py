"""Bad input: scenario files get a ScenarioError naming the file, the line, the entry, the
field and the value, raised when the file is loaded (never a Python traceback, never at run
time); ``simulate`` and ``Lab`` take the forms a learner types and reject the rest clearly."""

from __future__ import annotations

import copy

import pytest
import yaml

import slurmlab
from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.policies.backfill import make_policy
from slurmlab.scenario import Scenario

JOB = "jobs: [{submit: 0, runtime: 10, args: '-n 1'}]\n"
#: a reservation of node[1-2] for alice over [600, 4200); the jobs section follows
RESV = (
    "cluster: tiny\nreservations:\n  - {name: maint, start: 600, duration: 3600, "
    'nodes: "node[1-2]", users: [alice]}\njobs:\n'
)

#: (document, the line the error names, what its message must say)
CASES = [
    (
        "cluster:\n  nodes:\n    - name: n[1-2]\n      cpus: lots\n" + JOB,
        4,
        ["cluster.nodes[0].cpus", "'lots'", "whole number"],
    ),
    (
        "cluster:\n  nodes: [{name: n1, cpus: 2}]\n  partitions:\n    - main\n" + JOB,
        4,
        ["cluster.partitions[0]", "'main'", "mapping"],
    ),
    (
        "cluster:\n  nodes: [{name: 'n[1-2]', cpus: 2}]\n  partitions:\n    - name: a\n"
        "      nodes: n[1-3]\n" + JOB,
        5,
        ["cluster.partitions[0]", "['n3']", "not declared"],
    ),
    (
        "cluster:\n  nodes: [{name: n1, cpus: 2}]\n  partitions:\n    - name: a\n"
        "      max_nodes: x\n" + JOB,
        5,
        ["cluster.partitions[0].max_nodes", "'x'"],
    ),
    ("cluster: tiny\nseed: abc\n" + JOB, 2, ["seed", "'abc'", "whole number"]),
    (
        "cluster: tiny\npolicy:\n  name: slurm\n  bf_window: 60\n  bf_intervl: 30\n" + JOB,
        5,
        ["no parameter bf_intervl", "bf_interval"],
    ),
    ("cluster: tiny\npolicy: fast\n" + JOB, 2, ["unknown policy 'fast'", "easy"]),
    (
        "cluster: tiny\npolicy:\n  name: slurm\n  params:\n    bf_interval: soon\n" + JOB,
        5,
        ["bf_interval='soon'", "a whole number from 1 to 10800"],
    ),
    (
        "cluster: tiny\njobs:\n  - {id: a, runtime: 10, args: -n 1}\n"
        "  - {id: b, runtime: 10, args: -n 1}\n  - id: a\n    runtime: 10\n",
        5,
        ["jobs[2]: field 'id'", "'a'", "jobs[0]", "unique"],
    ),
    (
        "cluster: tiny\njobs:\n  - submit: 0\n    runtime: 10\n    args: -n 1\n    colour: red\n",
        6,
        ["jobs[0]", "unknown field(s) ['colour']", "allowed"],
    ),
    (
        "cluster: tiny\njobs:\n  - {submit: 0, runtime: 10, args: -n 1}\n"
        "  - submit: soon\n    runtime: 10\n",
        4,
        ["jobs[1]: field 'submit'", "'soon'", "[D-]HH:MM:SS"],
    ),
    (
        "cluster: tiny\njobs:\n  - submit: 0\n    runtime: 10\n    args: {N: 2}\n",
        5,
        ["jobs[0]: field 'args'", "{'N': 2}", "one string"],
    ),
    (
        "cluster: tiny\njobs:\n  - runtime: 10\n    checkpoint: {interval: 60, on_signal: maybe}\n",
        4,
        ["field 'checkpoint'", "on_signal", "'maybe'", "true or false"],
    ),
    (
        "cluster: tiny\n" + JOB + "actions:\n  - at: 5\n    action: cancel\n    job: zzz\n",
        6,
        ["actions[0]: field 'job'", "'zzz'", "id"],
    ),
    (
        "cluster: tiny\n" + JOB + "actions:\n  - {at: 5, action: drain, node: zz}\n",
        4,
        ["actions[0]: field 'node'", "'zz'", "node[1-4]"],
    ),
    (
        "cluster: tiny\nfailures:\n  - node: nope\n    at: 5\n" + JOB,
        3,
        ["failures[0]", "'nope'", "node[1-4]"],
    ),
    (
        "cluster: tiny\nreservations:\n  - name: r\n    start: 0\n    duration: 60\n"
        "    nodes: zz[1-2]\n    users: [alice]\n" + JOB,
        6,
        ["reservations[0]", "['zz1', 'zz2']", "not in the cluster"],
    ),
    (
        "cluster: tiny\njobs:\n  - {id: a, submit: 0, runtime: 10, args: --dependency=afterok:b}\n"
        "  - {id: b, submit: 5, runtime: 10}\n",
        3,
        ["jobs[0] (id 'a'): field 'args'", "afterok:b", "submitted at 5 s, not before this job"],
    ),
    (
        "cluster: tiny\njobs:\n  - {id: a, runtime: 10}\n"
        "  - {id: b, runtime: 10, args: --dependency=afterany:a:c}\n",
        4,
        ["jobs[1] (id 'b'): field 'args'", "afterany:c", "'c' is not in this scenario"],
    ),
    (
        "cluster: tiny\nqos:\n  - {name: high, preempt: [low]}\n" + JOB,
        3,
        ["qos[0]: field 'preempt'", "'low' is unknown", "high, normal"],
    ),
    (
        "cluster: tiny\njobs:\n  - {runtime: 10, args: -n 1 --qos=urgent}\n",
        3,
        ["jobs[0]: field 'args'", "--qos=urgent", "Invalid qos"],
    ),
    (
        "cluster: tiny\naccounts: [{name: llm, users: [alice]}]\n"
        "jobs:\n  - {runtime: 10, user: alice, account: ops}\n",
        4,
        ["jobs[0]", "user 'alice' has no association with account 'ops'", "one of llm"],
    ),
    (
        "cluster: tiny\naccounts: [{name: llm, users: [alice]}, {name: cv, users: [bob]}]\n"
        "jobs:\n  - {runtime: 10, user: bob, account: llm}\n",
        4,
        ["jobs[0]: field 'account'", "'bob' has no association with account 'llm'", "(now: alice)"],
    ),
    (
        "cluster: tiny\nrandom_failures: {mtbf: 1000, nodes: 'node[4-5]'}\n" + JOB,
        2,
        ["random_failures", "['node5']", "node[1-4]"],
    ),
    (
        "cluster: tiny\njobs: [{runtime: 10, args: --array=0-1}]\n"
        "actions: [{at: 1, action: cancel, job: 3}]\n",
        3,
        ["actions[0]: field 'job'", "'3'", "numeric JobID"],
    ),
    (
        "cluster: tiny\nqos:\n  - {name: high, priority: top}\n" + JOB,
        3,
        ["qos[0].priority", "'top'"],
    ),
    (
        "cluster: tiny\nqos:\n  - {name: high, grp_tres: {gres/gpu: [8]}}\n" + JOB,
        3,
        ["qos[0].grp_tres", "gres/gpu=[8]", "not a count"],
    ),
    ("cluster: tiny\nrandom_failures: {mtbf: 1000, shape: x}\n" + JOB, 2, ["shape", "'x'"]),
    (
        "cluster: tiny\naccounts:\n  - {name: a, parent: nope}\n" + JOB,
        3,
        ["accounts[0]", "parent 'nope'", "not declared"],
    ),
    (
        "cluster: tiny\naccounts: [{name: llm, users: [alice]}]\nreservations:\n"
        "  - {name: r, start: 0, duration: 60, node_count: 1, accounts: [lmm]}\n" + JOB,
        4,
        ["reservations[0]: field 'accounts'", "['lmm'] are not declared", "known: llm"],
    ),
    ("cluster: tiny\njbos: []\n" + JOB, 2, ["unknown section(s) ['jbos']", "allowed"]),
    (
        RESV + "  - {id: b, runtime: 10, user: alice, args: -N 1 --reservation=nope}\n",
        5,
        ["jobs[0] (id 'b'): field 'args'", "--reservation=nope", "invalid", "known: maint"],
    ),
    (
        RESV + "  - {id: b, runtime: 10, user: bob, args: -N 1 --reservation=maint}\n",
        5,
        ["jobs[0] (id 'b'): field 'user'", "Access denied", "'bob'", "['alice']"],
    ),
    (
        RESV + "  - id: b\n    runtime: 10\n    user: alice\n    args: -N 3 --reservation=maint\n",
        8,
        ["jobs[0] (id 'b'): field 'args'", "needs 3 node(s)", "holds 2 (node[1-2])", "at most 2"],
    ),
    (
        RESV + "  - {id: b, submit: 5000, runtime: 10, user: alice, args: --reservation=maint}\n",
        5,
        ["jobs[0] (id 'b'): field 'submit'", "5000 s", "ends (4200 s)", "before"],
    ),
    (
        "cluster: tiny\nreservations:\n  - {name: m, start: 0, duration: 60, nodes: node1, "
        "users: [alice]}\n  - {name: m, start: 99, duration: 60, nodes: node2, users: [alice]}\n"
        + JOB,
        4,
        ["reservations[1]: field 'name'", "reservation 'm'", "reservations[0]", "once"],
    ),
    (
        "cluster: tiny\nqos:\n  - {name: high, priority: 10}\n  - {name: high, priority: 20}\n"
        + JOB,
        4,
        ["qos[1]: field 'name'", "QOS 'high'", "qos[0]", "once"],
    ),
    (
        "cluster: tiny\naccounts:\n  - {name: x, users: [alice]}\n  - {name: x, users: [bob]}\n"
        + JOB,
        4,
        ["accounts[1]: field 'name'", "account 'x'", "accounts[0]", "once"],
    ),
    (
        "cluster: tiny\nqos:\n  - {name: low, preempt_mode: suspend}\n" + JOB,
        3,
        ["qos[0].preempt_mode=suspend", "models PreemptMode OFF, CANCEL and REQUEUE"],
    ),
    (
        "cluster: tiny\njobs:\n  - {submit: 0, runtime: 10\n  - x\n",
        5,
        ["not valid YAML/JSON", "flow mapping that starts on line 3"],
    ),
]


@pytest.mark.parametrize(("text", "line", "words"), CASES, ids=[c[2][0] for c in CASES])
def test_bad_values_name_the_file_line_field_and_value(tmp_path, text, line, words):
    """The error starts with ``FILE line N:`` (the line of the field, else of its entry)."""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    err = info.value
    assert (err.source, err.line) == (str(path), line), str(err)
    assert str(err).startswith(f"{path} line {line}: ")
    for word in words:
        assert word in str(err)


def test_a_parsed_document_names_its_source_without_lines():
    """``from_dict`` has no lines to give: the error names the source and the entry."""
    doc = {"cluster": "tiny", "jobs": [{"runtime": 1, "args": "-n 1"}], "seed": "abc"}
    with pytest.raises(ScenarioError, match=r"^scenario: invalid seed 'abc'") as info:
        Scenario.from_dict(doc)
    assert info.value.line is None and info.value.path == ("seed",)


RICH = """
name: rich
seed: 3
cluster:
  name: c
  nodes:
    - {name: "gpu[1-4]", cpus: 16, memory: 64G, gres: "gpu:a100:4", features: [a100]}
    - {name: cpu1, cpus: 8, memory: 8000}
  partitions:
    - {name: train, nodes: "gpu[1-4]", default: true, max_time: "1-00:00:00",
       default_time: "1:00:00", max_nodes: 4, priority_tier: 2, state: UP}
    - {name: cpu, nodes: [cpu1]}
  settings: {PriorityType: priority/multifactor}
policy: {name: slurm, bf_interval: 30, params: {bf_window: 60}}
jobs:
  - id: a
    submit: 0
    runtime: 100
    args: -N 2 --gres=gpu:4 -t 10:00
    user: alice
    account: llm
    checkpoint: {interval: 60, write_cost: 5, restart_cost: 5, on_signal: false}
    exit_code: 0
    name: train
  - id: b
    submit: "0:01:00"
    runtime: 50
    user: bob
    account: llm
    script: |
      #!/bin/bash
      #SBATCH -p cpu
      #SBATCH -n 2
      srun ./x
actions:
  - {at: 70, action: cancel, job: b}
  - {at: 20, action: drain, node: cpu1}
accounts:
  - {name: llm, shares: 70, users: [alice, bob], grp_tres: gres/gpu=8, max_jobs: 4}
qos:
  - {name: high, priority: 10, preempt: [normal], preempt_mode: requeue, grace_time: 5,
     max_jobs_per_user: 2, max_tres_per_user: gres/gpu=8, grp_tres: {gres/gpu: 8},
     max_wall: "2:00:00"}
reservations:
  - {name: r, start: 100, duration: "1:00:00", nodes: "gpu[1-2]", users: [alice], accounts: llm}
failures:
  - {node: gpu3, at: 30, down_for: 60}
random_failures: {mtbf: 30-00:00:00, distribution: weibull, shape: 0.7, repair: 3600, seed: 1,
                  nodes: "gpu[1-4]"}
"""

JUNK = [None, True, 0, -1, 1.5, "x", "", "-3", "1:2:3:4", [], ["x"], [1, 2], {}, {"a": 1}, "gpu["]


def _paths(doc, path=()):
    if path:
        yield path
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for key, value in items:
        yield from _paths(value, (*path, key))


def _with(doc, path, value):
    doc = copy.deepcopy(doc)
    inner = doc
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    return doc


def test_the_rich_document_loads_and_runs():
    """Every section and field at once (the base of the next test) is valid."""
    scenario = Scenario.from_dict(yaml.safe_load(RICH))
    assert scenario.policy_params == {"bf_interval": 30, "bf_window": 60}
    assert len(scenario.run().jobs) == 2


def test_any_field_replaced_by_junk_is_a_scenario_error_or_valid():
    """Every field of every section, replaced by each junk value in turn: loading either
    succeeds or raises ScenarioError (a TypeError or KeyError would be a bug)."""
    doc = yaml.safe_load(RICH)
    tried = 0
    for path in _paths(doc):
        for junk in JUNK:
            tried += 1
            try:
                Scenario.from_dict(_with(doc, path, junk))
            except ScenarioError as exc:
                assert exc.path, f"{path} = {junk!r}: {exc} names no entry"
    assert tried > 1500


def test_args_may_be_a_list_of_options():
    """``args: [-N, "2", ...]`` is the same request as one string."""
    one = Scenario.from_dict({"cluster": "tiny", "jobs": [{"runtime": 5, "args": "-N 2 -t 5"}]})
    many = Scenario.from_dict(
        {"cluster": "tiny", "jobs": [{"runtime": 5, "args": ["-N", "2", "-t", "5"]}]}
    )
    assert one.workload.jobs[0].spec == many.workload.jobs[0].spec


def test_an_array_tasks_own_jobid_names_that_task_alone():
    """scancel takes an array task's numeric JobID (JobIDRaw) as well as ARRAYID_TASK."""
    doc = {
        "cluster": "tiny",
        "jobs": [{"id": "sweep", "runtime": 600, "args": "-n 1 --array=0-3 -t 20"}],
        # the four tasks start at once: sweep_0 takes JobID 2, sweep_1 3, sweep_2 4, and
        # sweep_3, the last to leave the array's record, keeps the array's, 1; a scenario
        # cannot know those numbers before the run, so it names the task sweep_1
        "actions": [{"at": 60, "action": "cancel", "job": "3"}],
    }
    with pytest.raises(ScenarioError, match="JobID '3' is not known before the run"):
        Scenario.from_dict(doc)
    doc["actions"][0]["job"] = "sweep_1"
    jobs = Scenario.from_dict(doc).run().jobs.set_index("JobID")
    assert jobs.loc["sweep_1", "State"] == "CANCELLED"
    assert (jobs.drop(index="sweep_1").State == "COMPLETED").all()
    lab = slurmlab.Lab("tiny")
    first = lab.sbatch("-n 1 --array=0-2 -t 20", runtime=600)
    raw = lab.sacct().set_index("JobID").JobIDRaw
    assert raw.tolist() == [str(first + 1), str(first + 2), str(first)]
    lab.scancel(raw[f"{first}_1"])
    states = lab.sacct().set_index("JobID").State
    assert states[f"{first}_1"] == "CANCELLED" and states[f"{first}_0"] != "CANCELLED"
    assert states[f"{first}_2"] != "CANCELLED"


def test_sbatch_with_an_unknown_dependency_leaves_no_job_behind():
    """A dependency on a job that does not exist is refused whole (real Slurm would count it as
    satisfied: see Simulation._checked): no half-made job pends."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SlurmlabError, match="no job '999' was submitted before it"):
        lab.sbatch("-n 1 --dependency=afterok:999", runtime=60)
    assert lab.squeue().empty and lab.sacct().empty
    first = lab.sbatch("-n 1 --array=0-2 -t 10", runtime=60)
    # task 1's own JobID: task 0 took first + 1 when it started, task 1 first + 2
    after = lab.sbatch(f"-n 1 -t 10 --dependency=afterok:{first + 2}", runtime=60)
    lab.advance(30)
    assert lab.squeue().set_index("JOBID").loc[str(after), "NODELIST(REASON)"] == "(Dependency)"
    lab.advance(60)
    jobs = lab.sacct().set_index("JobID")
    assert jobs.loc[str(after), "Start"] == jobs.loc[f"{first}_1", "End"]


def test_policy_parameters_are_the_dataclass_fields_only():
    """A class-level setting of the policy (``resume_whole_queue``) is not a parameter."""
    with pytest.raises(SlurmlabError, match="no parameter resume_whole_queue"):
        make_policy("slurm", resume_whole_queue=True)
    with pytest.raises(SlurmlabError, match="bf_window=0 must be a whole number from 1 to 43200"):
        make_policy("slurm", bf_window=0)
    for key, bad in (("bf_resolution", 100000), ("bf_window", 1e9), ("bf_interval", 1e7),
                     ("bf_max_job_test", 2.5), ("default_queue_depth", 0.5),
                     ("bf_window", float("inf")), ("bf_interval", True)):  # fmt: skip
        with pytest.raises(SlurmlabError, match=f"slurm policy parameter {key}=.* whole number"):
            make_policy("slurm", **{key: bad})
    assert make_policy("slurm", bf_window=60.0, bf_interval=-1).bf_window == 60.0


# -- simulate() and Lab ------------------------------------------------------------------------
def test_simulate_takes_a_preset_name_or_a_slurm_conf_path(tmp_path):
    """``simulate("ai", w)`` as ``Lab("ai")`` does; a slurm.conf path as the CLI's --cluster."""
    from slurmlab.spec.cluster import Cluster
    from slurmlab.spec.synthetic import ai_workload

    work = ai_workload(30, "ai", seed=1)
    by_name = slurmlab.simulate("ai", work).jobs
    assert by_name.equals(slurmlab.simulate(Cluster.preset("ai"), work).jobs)
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "NodeName=n[1-2] CPUs=4 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES\n"
    )
    doc = {"cluster": "tiny", "jobs": [{"runtime": 5, "args": "-n 2"}]}
    assert len(slurmlab.simulate(str(conf), Scenario.from_dict(doc).workload).jobs) == 1
    with pytest.raises(SlurmlabError, match=r"cluster 'nope' is neither a preset \(tiny"):
        slurmlab.simulate("nope", work)
    with pytest.raises(SlurmlabError, match="workload must be a slurmlab Workload, not str"):
        slurmlab.simulate("ai", "trace.swf")


def test_seeds_are_whole_numbers_numpy_ones_included():
    """An explicit seed: a typo is an error, not silently another run; numpy ints are fine."""
    import numpy as np

    from slurmlab.spec.synthetic import ai_workload

    work = ai_workload(5, "ai", seed=1)
    for bad in ("x", 1.5, -1, True):
        with pytest.raises(SlurmlabError, match="seed"):
            slurmlab.simulate("ai", work, seed=bad)
    assert slurmlab.simulate("ai", work, seed=np.int64(2)).jobs.equals(
        slurmlab.simulate("ai", work, seed=2).jobs
    )


def test_a_directory_or_a_binary_file_is_not_a_scenario(tmp_path):
    with pytest.raises(ScenarioError, match="is a directory"):
        Scenario.load(tmp_path)
    binary = tmp_path / "trace.gz"
    binary.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    with pytest.raises(ScenarioError, match="not UTF-8 text"):
        Scenario.load(binary)


def test_a_character_yaml_forbids_is_named_with_its_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("cluster: tiny\n\x00jobs: []\n")
    with pytest.raises(ScenarioError, match=r"line 2: .*#x0000.* is not allowed"):
        Scenario.load(path)
