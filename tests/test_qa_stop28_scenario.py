"""Stop 28: an instructor writing scenario files (review findings 1, 4, 5, 6, 7 and 8).

Each test writes the scenario a workshop instructor would write and asserts the exact
error, warning or result.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
import yaml

import slurmlab.scenario
from slurmlab import Scenario, ScenarioError
from slurmlab.scenario import _JOB_KEYS, _TOP_KEYS

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load_warnings(path) -> tuple[Scenario, list[str]]:
    """The scenario and every warning loading it gives, in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario = Scenario.load(path)
    return scenario, [str(w.message) for w in caught]


def load_error(path) -> str:
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    return str(info.value)


JOB = 'jobs:\n  - {id: a, submit: 0, runtime: 1h, args: "-N 1 -t 2:00:00"}\n'


# -- finding 1: an overlapping reservation names the entry refused -------------------------------
def test_an_overlapping_reservation_names_the_second_entry_and_its_line(tmp_path):
    """scontrol create reservation refuses the second of two overlapping reservations: the
    error names r2 (reservations[1], line 4), not r1, which its text also names."""
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "reservations:\n"
        '  - {name: r1, start: 1h, duration: 2h, nodes: "node[1-2]", users: [alice]}\n'
        '  - {name: r2, start: 2h, duration: 2h, nodes: "node[2-3]", users: [bob]}\n' + JOB,
        "resv_overlap.yaml",
    )
    assert load_error(path) == (
        f"{path} line 4: reservations[1]: field 'nodes': reservation 'r2': Requested nodes are "
        "busy: node2 is held by reservation 'r1' over an overlapping window; pick other nodes "
        "or another time"
    )


def test_an_overlapping_node_count_points_at_its_own_field(tmp_path):
    """A ``node_count`` too large for the nodes left free names that field's line."""
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "reservations:\n"
        "  - name: r1\n    start: 0\n    duration: 2h\n    nodes: node[1-3]\n    users: [alice]\n"
        "  - name: r2\n    start: 1h\n    duration: 2h\n    node_count: 2\n    users: [bob]\n"
        + JOB,
    )
    assert load_error(path) == (
        f"{path} line 11: reservations[1]: field 'node_count': reservation 'r2': Requested "
        "nodes are busy: it needs 2 nodes, 1 are not held by other reservations over its "
        "window (the cluster has 4)"
    )


# -- finding 4 (brief 2): sections the cluster's settings leave without effect ---------------
PRESET_FIX = (
    "a preset takes no settings, so describe the cluster inline (nodes, partitions) with "
    "settings: {{{0}}}, or give a slurm.conf that sets them (cluster: {{slurm_conf: PATH}})"
)


def test_qos_preemption_and_priority_on_a_preset_are_warned_about(tmp_path):
    """tiny is priority/basic without PreemptType: the preempt list and the QOS priority do
    nothing (as in Slurm), and each is said once, with the fix a preset allows."""
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "qos:\n"
        "  - {name: scav, grace_time: 60}\n"
        "  - {name: high, priority: 100, preempt: [scav]}\n"
        "jobs:\n"
        '  - {id: s, submit: 0,  runtime: 2h,  args: "-N 4 --gres=gpu:2 -t 3:00:00 --qos=scav"}\n'
        '  - {id: h, submit: 60, runtime: 10m, args: "-N 1 --gres=gpu:2 -t 30 --qos=high"}\n',
    )
    scenario, said = load_warnings(path)
    assert said == [
        f"{path} line 4: qos[1] (high): field 'preempt': scav has no effect on this cluster: "
        "PreemptType is not set in the preset 'tiny' (Slurm's default: preempt/none), so no "
        "job is preempted, as in Slurm; to use it, give the cluster PreemptType=preempt/qos "
        "and PreemptMode=REQUEUE: "
        + PRESET_FIX.format("PreemptType: preempt/qos, PreemptMode: REQUEUE"),
        f"{path} line 4: qos[1] (high): field 'priority': 100 has no effect on this cluster: "
        "the preset 'tiny' sets PriorityType=priority/basic, so a job's priority follows its "
        "submit order and no priority factor counts, as in Slurm; to use it, give the cluster "
        "PriorityType=priority/multifactor and PriorityWeightQOS=10000: "
        + PRESET_FIX.format("PriorityType: priority/multifactor, PriorityWeightQOS: 10000"),
    ]
    assert scenario.qos[1].preempt == ("scav",)  # (kept: Slurm keeps it too)


def test_shares_under_basic_priority_are_warned_about_once(tmp_path):
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "accounts:\n"
        "  - {name: nlp, shares: 50, users: [alice]}\n"
        "  - {name: vis, shares: 50, users: [carol]}\n"
        "jobs:\n"
        "  - {id: hog, runtime: 2h, user: alice, account: nlp, args: '-N 4 -t 3:00:00'}\n",
    )
    assert load_warnings(path)[1] == [
        f"{path} line 3: accounts[0] (nlp) (and accounts[1]): field 'shares': 50 has no effect "
        "on this cluster: the preset 'tiny' sets PriorityType=priority/basic, so a job's "
        "priority follows its submit order and no priority factor counts, as in Slurm; to use "
        "it, give the cluster PriorityType=priority/multifactor and "
        "PriorityWeightFairshare=10000: "
        + PRESET_FIX.format("PriorityType: priority/multifactor, PriorityWeightFairshare: 10000")
    ]


def test_an_inline_cluster_names_the_setting_missing_and_its_own_lines(tmp_path):
    """Inline: multifactor with a zero weight, and no PreemptType (preempt/none)."""
    path = write(
        tmp_path,
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  settings: {PriorityType: priority/multifactor,\n"
        "             PriorityWeightFairshare: 0}\n"
        "accounts:\n"
        "  - {name: a, shares: 3, users: [user]}\n"
        "qos:\n"
        "  - {name: low}\n"
        "  - {name: high, priority: 10, preempt: low}\n"
        "jobs:\n"
        "  - {runtime: 60, args: '-N 1 -t 10'}\n",
    )
    assert load_warnings(path)[1] == [
        f"{path} line 9: qos[1] (high): field 'preempt': low has no effect on this cluster: "
        "PreemptType is not set (Slurm's default: preempt/none), so no job is preempted, as "
        "in Slurm; to use it, add {PreemptType: preempt/qos, PreemptMode: REQUEUE} to the "
        "cluster's settings",
        f"{path} line 6: accounts[0] (a): field 'shares': 3 has no effect on this cluster: "
        f"PriorityWeightFairshare=0 ({path} line 4: cluster.settings.PriorityWeightFairshare), "
        "so the fair-share factor counts for nothing in a job's priority, as in Slurm; to use "
        "it, add {PriorityWeightFairshare: 10000} to the cluster's settings",
        f"{path} line 9: qos[1] (high): field 'priority': 10 has no effect on this cluster: "
        "PriorityWeightQOS is not set (Slurm's default: 0), so the QOS factor counts for "
        "nothing in a job's priority, as in Slurm; to use it, add {PriorityWeightQOS: 10000} "
        "to the cluster's settings",
    ]


def test_a_slurm_conf_cluster_names_its_line_and_says_to_edit_it(tmp_path):
    (tmp_path / "slurm.conf").write_text(
        "ClusterName=c\nPreemptType=preempt/none\nNodeName=n[1-2] CPUs=4\n"
        "PartitionName=p Nodes=ALL Default=YES\nSelectType=select/cons_tres\n"
        "SelectTypeParameters=CR_Core\n"
    )
    path = write(
        tmp_path,
        "cluster: {slurm_conf: slurm.conf}\n"
        "qos:\n  - {name: high, preempt: normal}\n"
        "jobs:\n  - {runtime: 60, args: '-N 1 -t 10'}\n",
    )
    assert load_warnings(path)[1] == [
        f"{path} line 3: qos[0] (high): field 'preempt': normal has no effect on this cluster: "
        f"PreemptType=preempt/none ({tmp_path / 'slurm.conf'} line 2), so no job is preempted, "
        "as in Slurm; to use it, set PreemptType=preempt/qos and PreemptMode=REQUEUE in the "
        "cluster's slurm.conf"
    ]


def test_sections_that_take_effect_are_not_warned_about(tmp_path):
    """Preemption on, multifactor with both weights: no warning. Under preemption a QOS
    priority orders the victims, so it is not warned about even under priority/basic."""
    path = write(
        tmp_path,
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  settings: {PriorityType: priority/multifactor, PriorityWeightFairshare: 100,\n"
        "             PriorityWeightQOS: 100, PreemptType: preempt/qos, PreemptMode: REQUEUE}\n"
        "accounts:\n  - {name: a, shares: 3, users: [user]}\n"
        "qos:\n  - {name: low, priority: 1}\n  - {name: high, priority: 10, preempt: low}\n"
        "jobs:\n  - {runtime: 60, args: '-N 1 -t 10'}\n",
    )
    assert load_warnings(path)[1] == []
    basic = write(
        tmp_path,
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  settings: {PreemptType: preempt/qos, PreemptMode: CANCEL}\n"
        "qos:\n  - {name: low, priority: 1}\n  - {name: high, priority: 10, preempt: low}\n"
        "jobs:\n  - {runtime: 60, args: '-N 1 -t 10'}\n",
        "basic.yaml",
    )
    assert load_warnings(basic)[1] == []


SHIPPED = sorted(
    [*(REPO / "course" / "scenarios").glob("*.yaml")]
    + [*(REPO / "datasets" / "realslurm" / "scenarios").glob("*.yaml")]
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_no_shipped_scenario_has_an_inert_section_or_an_m_s_time(path):
    """Their QOS, shares and priorities all act (the realslurm slurm.confs are multifactor,
    preemption.yaml's is preempt/qos), and none writes a two-part M:S time."""
    said = load_warnings(path)[1]
    assert [w for w in said if "has no effect on this cluster" in w or "(M:S," in w] == []


# -- finding 5 (brief 3): comma-separated users, as sacctmgr takes them -------------------------
def test_users_given_as_one_comma_separated_string_are_several_users(tmp_path):
    """``users: "alice,bob"`` is sacctmgr's ``Users=alice,bob``: two users (it was one user
    named 'alice,bob', and alice's job was then refused as charging no account)."""
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "accounts:\n"
        '  - {name: nlp, users: "alice, bob"}\n'
        '  - {name: cv, users: "carol"}\n'
        "reservations:\n"
        '  - {name: r, start: 0, duration: 1h, nodes: node1, users: "alice,dave", accounts: '
        '"nlp,cv"}\n'
        "qos:\n  - {name: low}\n  - {name: high, preempt: 'low, normal'}\n"
        "jobs:\n"
        "  - {id: a, runtime: 1h, user: alice, args: '-N 1 -t 2:00:00'}\n"
        "  - {id: b, runtime: 1h, user: bob, args: '-N 1 -t 2:00:00 --reservation=r'}\n",
    )
    scenario, _ = load_warnings(path)
    assert [a.users for a in scenario.accounts] == [("alice", "bob"), ("carol",)]
    r = scenario.reservations[0]
    assert (r.users, r.accounts) == (("alice", "dave"), ("nlp", "cv"))
    assert scenario.qos[1].preempt == ("low", "normal")
    jobs = scenario.run().jobs
    assert jobs[["JobID", "User", "Account"]].values.tolist() == [
        ["a", "alice", "nlp"],
        ["b", "bob", "nlp"],
    ]


def test_an_empty_name_between_commas_is_an_error(tmp_path):
    path = write(tmp_path, 'cluster: tiny\naccounts:\n  - {name: nlp, users: "alice,,bob"}\n' + JOB)
    assert load_error(path) == (
        f"{path} line 3: invalid accounts[0].users 'alice,,bob': an empty name (a blank item, "
        "or nothing between two commas); give names separated by commas, as sacctmgr takes "
        "them (alice,bob), or a list ([alice, bob])"
    )


def test_a_reservation_built_in_python_splits_its_users_too():
    from slurmlab import Reservation

    assert Reservation("r", 0, 60, nodes="node1", users="alice, bob").users == ("alice", "bob")


# -- finding 6 (brief 4): a tab that indents says so ----------------------------------------------
def test_a_tab_that_indents_a_line_is_named(tmp_path):
    path = write(tmp_path, "cluster: tiny\njobs:\n\t- id: a\n\t  runtime: 1h\n", "tabs5.yaml")
    assert load_error(path) == (
        f"{path} line 3: not valid YAML/JSON: a tab character indents this line ('\\t- id: a'): "
        "YAML indents with spaces only; replace the tab with spaces"
    )


def test_a_tab_after_the_dash_of_an_entry_is_named_with_its_column(tmp_path):
    path = write(tmp_path, "cluster: tiny\njobs:\n  -\tid: a\n    runtime: 1h\n")
    assert load_error(path) == (
        f"{path} line 3: not valid YAML/JSON: a tab character (column 4) in '  -\\tid: a': "
        "YAML indents with spaces only; replace the tab with spaces"
    )


def test_a_tab_yaml_already_names_gets_the_same_message(tmp_path):
    """(YAML said "found a tab character that violates indentation" here.)"""
    path = write(tmp_path, "cluster: tiny\njobs:\n  - id: a\n\truntime: 1h\n")
    assert load_error(path) == (
        f"{path} line 4: not valid YAML/JSON: a tab character indents this line "
        "('\\truntime: 1h'): YAML indents with spaces only; replace the tab with spaces"
    )


# -- finding 8 (brief 5): a two-part time is M:S, and says so -------------------------------------
def test_a_runtime_of_1_30_is_90_seconds_and_is_warned_about(tmp_path):
    path = write(
        tmp_path,
        "cluster: tiny\n"
        "jobs:\n"
        '  - {id: a, submit: 0, runtime: 1:30, args: "-N 1 -t 2:00:00"}\n'
        '  - {id: b, submit: "0:45", runtime: 1:30:00, args: "-N 1 -t 2:00:00",\n'
        "     checkpoint: {interval: '10:00', write_cost: 30}}\n",
    )
    scenario, said = load_warnings(path)
    assert [j.runtime for j in scenario.workload.jobs] == [90, 5400]
    assert scenario.workload.jobs[1].submit == 45
    assert said == [
        f"{path} line 3: jobs[0] (id 'a'): field 'runtime': 1:30 is read as 1 min 30 s (M:S, "
        "as sbatch -t reads it); write 1:30:00 for 1 h 30 min, or 0:01:30 (or 90) for 1 min "
        "30 s",
        f"{path} line 4: jobs[1] (id 'b'): field 'submit': 0:45 is read as 45 s (M:S, as "
        "sbatch -t reads it); write 0:45:00 for 45 min, or 0:00:45 (or 45) for 45 s",
        f"{path} line 5: jobs[1] (id 'b'): field 'checkpoint.interval': 10:00 is read as 10 "
        "min (M:S, as sbatch -t reads it); write 10:00:00 for 10 h, or 0:10:00 (or 600) for "
        "10 min",
    ]


def test_actions_failures_reservations_and_random_failures_warn_too(tmp_path):
    path = write(
        tmp_path,
        "cluster: tiny\n"
        'jobs:\n  - {id: a, submit: 0, runtime: 1h, args: "-N 1 -t 2:00:00"}\n'
        "actions:\n  - {at: 1:40, action: cancel, job: a}\n"
        "failures:\n  - {node: node1, at: 5:00, down_for: '1:00'}\n"
        "random_failures: {mtbf: 30-00:00:00, repair: 4:00, seed: 1}\n"
        "reservations:\n  - {name: r, start: 3:00, duration: 1:00, nodes: node2, users: [x]}\n",
    )
    scenario, said = load_warnings(path)
    assert scenario.reservations[0].duration == 60  # (Duration=1:00 is M:S in scontrol too)
    assert said == [
        f"{path} line 5: actions[0]: field 'at': 1:40 is read as 1 min 40 s (M:S, as sbatch "
        "-t reads it); write 1:40:00 for 1 h 40 min, or 0:01:40 (or 100) for 1 min 40 s",
        f"{path} line 7: failures[0]: field 'at': 5:00 is read as 5 min (M:S, as sbatch -t "
        "reads it); write 5:00:00 for 5 h, or 0:05:00 (or 300) for 5 min",
        f"{path} line 7: failures[0]: field 'down_for': 1:00 is read as 1 min (M:S, as sbatch "
        "-t reads it); write 1:00:00 for 1 h, or 0:01:00 (or 60) for 1 min",
        f"{path} line 10: reservations[0] (r): field 'start': 3:00 is read as 3 min (M:S, as "
        "sbatch -t reads it); write 3:00:00 for 3 h, or 0:03:00 (or 180) for 3 min",
        f"{path} line 8: random_failures: field 'repair': 4:00 is read as 4 min (M:S, as "
        "sbatch -t reads it); write 4:00:00 for 4 h, or 0:04:00 (or 240) for 4 min",
    ]


@pytest.mark.parametrize("value", ["1:30:00", "0:01:30", "90", "90s", "1-2", "1-2:30", "2h"])
def test_other_time_forms_are_not_warned_about(tmp_path, value):
    path = write(tmp_path, f"cluster: tiny\njobs:\n  - {{runtime: '{value}', args: '-t 3-0'}}\n")
    assert load_warnings(path)[1] == []


# -- finding 7 (brief 6): every field is documented ----------------------------------------------
def example() -> dict:
    """The module docstring's example document."""
    block = slurmlab.scenario.__doc__.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    return yaml.safe_load("\n".join(line[4:] for line in block.splitlines()))


def test_the_docstring_example_is_yaml_with_every_section_and_field():
    doc = example()
    assert set(doc) == _TOP_KEYS
    assert set(doc["policy"]) == {"name"}
    keys = lambda section: set().union(*(set(e) for e in doc[section]))  # noqa: E731
    assert keys("accounts") == {"name", "shares", "users", "parent", "grp_tres", "max_jobs"}
    assert keys("qos") == {
        "name", "priority", "preempt", "preempt_mode", "grace_time", "max_jobs_per_user",
        "max_tres_per_user", "grp_tres", "max_wall", "preempt_exempt_time",
    }  # fmt: skip
    assert keys("reservations") == {
        "name", "start", "duration", "nodes", "node_count", "users", "accounts", "flags",
        "partition",
    }  # fmt: skip
    assert set(doc["random_failures"]) == {
        "mtbf", "distribution", "shape", "repair", "nodes", "seed",
    }  # fmt: skip
    assert set(doc["jobs"][0]["checkpoint"]) == {
        "interval", "write_cost", "restart_cost", "on_signal",
    }  # fmt: skip
    text = slurmlab.scenario.__doc__
    for key in _JOB_KEYS:  # (script and account in the comments)
        assert re.search(rf"\b{key}\b", text), key
    for word in ("threads_per_core", "params: {bf_interval: 30}", "description:"):
        assert word in text


def test_the_docstring_says_which_seed_wins():
    text = " ".join(slurmlab.scenario.__doc__.split())
    assert (
        "They draw from the section's own ``seed`` when it gives one, which then wins over the "
        "top-level ``seed`` (silently: the top-level one is not used); else from the "
        "top-level ``seed`` (default 0)."
    ) in text
    assert '``users: "alice,bob"`` (or ``"alice, bob"``) is the users alice and bob' in text


def test_the_section_seed_wins_over_the_top_level_seed(tmp_path):
    """As documented: with both, the top-level seed changes nothing; without the section's,
    the top-level seed is the one drawn from."""

    def end(top: int, section: str) -> list:
        path = write(
            tmp_path,
            f"seed: {top}\ncluster: tiny\nrandom_failures: {{mtbf: 3h, repair: 10m{section}}}\n"
            "jobs:\n  - {id: a, runtime: 2h, args: '-N 4 -t 3:00:00'}\n",
            f"s{top}{bool(section)}.yaml",
        )
        scenario = Scenario.load(path)
        assert scenario.seed == top
        return scenario.run().jobs["End"].tolist()

    assert end(11, ", seed: 3") == end(99, ", seed: 3")
    assert end(11, "") != end(99, "")


def test_inline_preempt_qos_without_a_mode_is_refused_at_its_setting(tmp_path):
    """slurmctld refuses PreemptType=preempt/qos with PreemptMode OFF (read_config.c): an
    error at the setting's line, not a warning (stop 28, the Lab demo review)."""
    path = write(
        tmp_path,
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  settings:\n"
        "    PreemptType: preempt/qos\n"
        "jobs:\n"
        "  - {runtime: 60, args: '-N 1 -t 10'}\n",
    )
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value) == (
        f"{path} line 4: cluster.settings.PreemptType: PreemptType=preempt/qos with no "
        'PreemptMode (OFF): slurmctld refuses to start ("PreemptType and PreemptMode values '
        "incompatible\"); set PreemptMode=REQUEUE or CANCEL (a QOS's own PreemptMode does not "
        "replace it)"
    )
