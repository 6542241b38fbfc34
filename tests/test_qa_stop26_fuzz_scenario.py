"""QA stop 26, input fuzzing of scenarios and Slurm's value syntaxes: each test quotes its
input and the exact outcome (findings 1.1, 1.2, 2.6, 2.8, 2.9, 3.1 and 3.4 of the report)."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Scenario
from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.spec.units import (
    MAX_COUNT,
    parse_duration,
    parse_memory_mb,
    parse_number,
    parse_seconds,
    parse_whole,
)


def load_error(tmp_path, text: str, name: str = "v.yaml") -> str:
    """The message of the ScenarioError that loading ``text`` raises."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScenarioError) as exc:
        Scenario.load(path)
    return str(exc.value).replace(str(tmp_path) + "/", "")


def load(tmp_path, text: str, name: str = "ok.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (none expected)
        return Scenario.load(path)


JOB = "jobs:\n  - {id: a, submit: 0, runtime: 600, args: '-N 1 -t 20', user: alice}\n"


# -- 1.1 aliases: an anchor used inside itself, and an alias "bomb" ----------------------------
def test_an_anchor_used_inside_itself_is_an_error_naming_both_lines(tmp_path):
    """YAML builds a list that contains itself; walking it never ended (killed at 137)."""
    text = (
        "cluster: tiny\n"
        "jobs: &j\n"
        "  - {submit: 0, runtime: 5, args: '-N 1'}\n"
        "  - {submit: 0, runtime: 5, args: *j}\n"
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 2: the anchor &j is used inside itself (*j on line 4): the entry would "
        "contain itself without end: copy the entries it needs, or anchor a smaller part and "
        "use its alias after that part ends"
    )


def test_a_merge_of_an_entry_into_itself_is_the_same_error(tmp_path):
    text = "cluster: tiny\njobs:\n  - &d {<<: *d, runtime: 5}\n"
    assert load_error(tmp_path, text).startswith(
        "v.yaml line 3: the anchor &d is used inside itself (*d on line 3): "
    )


def test_nine_levels_of_nine_aliases_are_refused_at_once(tmp_path):
    """A "billion laughs" took 97 s before its (right) error about unknown sections."""
    levels = "abcdefgh"
    text = "a: &a [1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip(levels, levels[1:])
    )
    text = text.replace("h: &h", "h:") + "cluster: tiny\njobs:\n  - {submit: 0, runtime: 5}\n"
    # (refused from the sizes of the 35 nodes written, before any walk of the expansion)
    assert load_error(tmp_path, text) == (
        "v.yaml line 8: the aliases in field 'h' expand it to 48,427,561 entries, from 35 "
        'written: aliases nested in aliases multiply (a "billion laughs"); a scenario needs '
        "no such nesting: write the entries out, or alias entries that hold no aliases "
        "themselves"
    )


def test_a_long_list_of_whole_entry_aliases_loads(tmp_path):
    # (review) 10,000 aliases of one job entry expand to 130,000 entries or so: no bomb
    path = tmp_path / "many.yaml"
    job = "  - &j {submit: 0, runtime: 5, args: '-n 1 -t 1'}\n"
    path.write_text("cluster: tiny\njobs:\n" + job + "  - *j\n" * 10_000)
    assert len(Scenario.load(path).workload.jobs) == 10_001


def test_aliases_of_whole_entries_and_merges_still_load_with_their_lines(tmp_path):
    """An entry's own key after ``<<: *d`` is where its error points (line 5, not the
    anchor's line 3, whose key YAML's merge puts first)."""
    s = load(
        tmp_path,
        "cluster: tiny\njobs:\n  - &d {runtime: 5, args: '-N 1 -t 10', submit: 0}\n"
        "  - *d\n  - {<<: *d, submit: 30}\n",
    )
    assert [(j.submit, j.runtime) for j in s.workload.jobs] == [(0, 5), (0, 5), (30, 5)]
    text = "cluster: tiny\njobs:\n  - &d {runtime: 5, submit: 0}\n  - {<<: *d,\n   submit: -1}\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 5: jobs[1]: field 'submit': invalid submit -1: must not be negative "
        "(seconds, 0 or more)"
    )


# -- 1.2 a time limit too long to count ---------------------------------------------------------
TOO_LONG = (
    "too long to count (Invalid time limit specification): over 1e+09 s (about 31 years), "
    "the longest time limit slurmlab reads; give a shorter [days-]hours:minutes:seconds, "
    "or UNLIMITED for no limit"
)


def test_a_huge_qos_max_wall_is_too_long_to_count(tmp_path):
    """It was an OverflowError from timedelta."""
    text = f"cluster: tiny\nqos: [{{name: hi, max_wall: 99999999999999}}]\n{JOB}"
    assert load_error(tmp_path, text) == (
        f"v.yaml line 2: invalid qos[0].max_wall '99999999999999': {TOO_LONG}"
    )


def test_a_huge_partition_max_time_is_too_long_to_count(tmp_path):
    text = (
        "cluster:\n  nodes: [{name: n1}]\n  partitions: [{name: p, max_time: 99999999999999}]\n"
        "jobs: [{runtime: 5}]\n"
    )
    assert load_error(tmp_path, text) == (
        f"v.yaml line 3: invalid cluster.partitions[0].max_time '99999999999999': {TOO_LONG}"
    )


def test_a_huge_slurm_conf_max_time_names_the_conf_file_and_line(tmp_path):
    (tmp_path / "x.conf").write_text(
        "NodeName=n1 CPUs=4\nPartitionName=main Nodes=ALL MaxTime=99999999999999999\n"
    )
    text = f"cluster: {{slurm_conf: x.conf}}\n{JOB}"
    assert load_error(tmp_path, text) == (
        f"v.yaml line 1: cluster: x.conf line 2: invalid MaxTime '99999999999999999': {TOO_LONG}"
    )


@pytest.mark.parametrize(
    "value", [99999999999999999, "99999999999999999", "9999999-00:00:00", "16666667:00"]
)
def test_parse_duration_refuses_what_a_simulation_cannot_hold(value):
    """Over 1e9 s in any form (minutes as a number or text, D-H:M:S, M:S)."""
    with pytest.raises(SlurmlabError) as exc:
        parse_duration(value, what="MaxTime")
    assert str(exc.value) == f"invalid MaxTime {value!r}: {TOO_LONG}"


def test_parse_duration_keeps_long_limits_a_simulation_can_hold():
    assert parse_duration("365-00:00:00").days == 365
    assert parse_duration(16666666).total_seconds() == 16666666 * 60  # (just under 1e9 s)


@pytest.mark.parametrize(
    ("value", "said"),
    [(float("nan"), "nan"), (-5, "-5"), (float("inf"), "inf")],
)
def test_parse_duration_refuses_nan_negative_and_infinite_minutes(value, said):
    """NaN was a ValueError from timedelta, -5 a negative limit, inf an OverflowError."""
    with pytest.raises(SlurmlabError) as exc:
        parse_duration(value, what="max_wall")
    if value == float("inf"):
        assert str(exc.value) == f"invalid max_wall inf: {TOO_LONG}"
    else:
        assert str(exc.value) == f"invalid max_wall {said}: must be a number of minutes >= 0"


def test_parse_seconds_refuses_digits_beyond_a_float_as_too_long():
    """``int * 86400 + float`` overflowed to an OverflowError."""
    with pytest.raises(SlurmlabError, match=r"over 1e\+09 s \(about 31 years\)"):
        parse_seconds("9" * 400 + "-0", what="runtime")
    with pytest.raises(SlurmlabError, match=r"over 1e\+09 s \(about 31 years\)"):
        parse_seconds(10**400, what="runtime")


# -- 2.6 YAML 1.1 integer forms in time fields are read as written -----------------------------
def test_a_leading_zero_time_is_decimal_as_slurm_reads_it(tmp_path):
    """``submit: 010`` was octal 8 s; Slurm reads every number in decimal, so it is 10 s."""
    s = load(tmp_path, "cluster: tiny\njobs:\n  - {submit: 010, runtime: 0100}\n")
    assert (s.workload.jobs[0].submit, s.workload.jobs[0].runtime) == (10.0, 100.0)


def test_a_hexadecimal_submit_is_refused_with_its_decimal_value(tmp_path):
    """``submit: 0x10`` was 16 s."""
    text = "cluster: tiny\njobs:\n  - {submit: 0x10, runtime: 5}\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0]: field 'submit': invalid submit '0x10': give seconds (e.g. "
        "3600), a Slurm time ([D-]HH:MM:SS, or M:S, D-H, D-H:M as sbatch -t reads them, e.g. "
        "1:00:00 or 1-12:00) or a number with s/m/h/d (e.g. 2h) (0x10 is hexadecimal in YAML "
        "1.1 and Python; Slurm reads numbers in decimal: write 16)"
    )


def test_an_underscore_runtime_is_refused_with_the_digits_to_write(tmp_path):
    """``runtime: 1_000`` was 1000 s."""
    text = "cluster: tiny\njobs:\n  - {submit: 0, runtime: 1_000}\n"
    assert load_error(tmp_path, text).endswith(
        "(e.g. 2h) (Slurm takes no '_' between digits: write 1000)"
    )


def test_every_time_field_reads_010_as_ten_seconds(tmp_path):
    """``at``, ``down_for``, a reservation's ``start`` and ``duration``, ``checkpoint``'s
    times, ``random_failures``' ``mtbf`` and ``repair``, a QOS's ``grace_time``."""
    path = tmp_path / "ok.yaml"
    path.write_text(
        "cluster: tiny\n"
        "jobs:\n  - {id: a, submit: 0, runtime: 600, args: '-N 1 -t 20', user: alice,\n"
        "     checkpoint: {interval: 010, write_cost: 010, restart_cost: 010}}\n"
        "actions: [{at: 010, action: hold, job: a}]\n"
        "failures: [{node: node4, at: 010, down_for: 010}]\n"
        "reservations: [{name: r, start: 010, duration: 010s, nodes: node3, users: [alice]}]\n"
        "random_failures: {mtbf: 010, repair: 010, seed: 010}\n"
        "qos: [{name: hi, grace_time: 010, priority: 010, max_wall: 010}]\n"
        "seed: 010\n",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = Scenario.load(path)
    # the one warning: a QOS priority does nothing on tiny (priority/basic)
    assert [str(w.message) for w in caught] == [
        f"{path} line 9: qos[0] (hi): field 'priority': 10 has no effect on this cluster: the "
        "preset 'tiny' sets PriorityType=priority/basic, so a job's priority follows its submit "
        "order and no priority factor counts, as in Slurm; to use it, give the cluster "
        "PriorityType=priority/multifactor and PriorityWeightQOS=10000: a preset takes no "
        "settings, so describe the cluster inline (nodes, partitions) with settings: "
        "{PriorityType: priority/multifactor, PriorityWeightQOS: 10000}, or give a slurm.conf "
        "that sets them (cluster: {slurm_conf: PATH})"
    ]
    ckpt = s.workload.jobs[0].checkpoint
    assert (ckpt.interval, ckpt.write_cost, ckpt.restart_cost) == (10, 10, 10)
    assert s.actions[0].at == 10
    assert (s.failures[0].at, s.failures[0].down_for) == (10, 10)
    assert (s.reservations[0].start, s.reservations[0].duration) == (10, 10)
    rf = s.random_failures
    assert (rf.mtbf, rf.repair, rf.seed) == (10, 10, 10)
    q = s.qos[0]
    assert (q.grace_time, q.priority, q.max_wall.total_seconds()) == (10, 10, 600)
    assert s.seed == 10


def test_counts_exit_codes_and_policy_parameters_read_010_as_ten(tmp_path):
    s = load(
        tmp_path,
        "cluster:\n  nodes: [{name: n1, cpus: 010, memory: 010}]\n"
        "  partitions: [{name: p, max_nodes: 010, priority_tier: 010, max_time: 010}]\n"
        "policy: {name: slurm, bf_interval: 010}\n"
        "jobs:\n  - {runtime: 5, exit_code: 010}\n",
    )
    node, part = s.cluster.nodes[0], s.cluster.partitions[0]
    assert (node.cpus, node.memory_mb) == (10, 10)
    assert (part.max_nodes, part.priority_tier, part.max_time.total_seconds()) == (10, 10, 600)
    assert s.policy_params == {"bf_interval": 10}
    assert s.workload.jobs[0].exit_code == 10


def test_a_setting_keeps_the_time_written(tmp_path):
    """``PriorityMaxAge: 1:00:00`` was the text '3600' (3600 minutes)."""
    s = load(
        tmp_path,
        "cluster:\n  nodes: [{name: n1}]\n  settings: {PriorityMaxAge: 1:00:00}\n"
        "jobs: [{runtime: 5}]\n",
    )
    assert s.cluster.setting("PriorityMaxAge", None) == "1:00:00"


# -- 2.8 ASCII decimal digits only; counts within 32 bits ---------------------------------------
@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("５", " (Slurm reads the ASCII digits 0-9 only: write 5)"),
        ("1_00", " (Slurm takes no '_' between digits: write 100)"),
        ("0x10", " (0x10 is hexadecimal in YAML 1.1 and Python; Slurm reads numbers in "
         "decimal: write 16)"),
        ("+100", ""),
    ],
)  # fmt: skip
def test_parse_whole_takes_ascii_decimal_digits_only(value, hint):
    """``int()`` read '５' as 5 and '1_00' as 100; ``strtol(..., 10)`` takes neither."""
    with pytest.raises(SlurmlabError) as exc:
        parse_whole(value, what="cpus")
    assert str(exc.value) == f"invalid cpus {value!r}: give a whole number (e.g. 1){hint}"


def test_parse_whole_bounds_a_32_bit_count():
    assert parse_whole(str(MAX_COUNT), what="shares", maximum=MAX_COUNT) == 4294967293
    with pytest.raises(SlurmlabError) as exc:
        parse_whole("99999999999999999999", what="shares", maximum=MAX_COUNT)
    assert str(exc.value) == (
        "invalid shares '99999999999999999999': must be at most 4294967293 (Slurm keeps it "
        "in 32 bits)"
    )
    assert parse_whole(2**64, what="seed") == 2**64  # (no maximum: a seed may be any size)


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        (parse_number, "１.5", "invalid shape '１.5': give a number (e.g. 1.5) (Slurm reads the "
         "ASCII digits 0-9 only: write 1.5)"),
        (parse_number, 10**400, f"invalid shape {10**400}: too large a number"),
        (parse_seconds, "９0", "invalid shape '９0': give seconds (e.g. 3600), a Slurm time "
         "([D-]HH:MM:SS, or M:S, D-H, D-H:M as sbatch -t reads them, e.g. 1:00:00 or 1-12:00) "
         "or a number with s/m/h/d (e.g. 2h) (Slurm reads the ASCII digits 0-9 only: write 90)"),
        (parse_duration, "１0", "invalid shape '１0': use minutes, M:S, H:M:S, D-H, D-H:M, "
         "D-H:M:S or UNLIMITED (Slurm reads the ASCII digits 0-9 only: write 10)"),
        (parse_memory_mb, "1_000M", "invalid shape '1_000M': give a size in MB or with a K/M/G/T "
         "suffix (e.g. 64G) (Slurm takes no '_' between digits: write 1000M)"),
        (parse_memory_mb, "9" * 400 + "G", f"invalid shape '{'9' * 400}G': too large a size"),
    ],
)  # fmt: skip
def test_other_number_parsers_take_ascii_digits_and_say_what_to_write(parse, value, message):
    with pytest.raises(SlurmlabError) as exc:
        parse(value, what="shape")
    assert str(exc.value) == message


def test_a_full_width_cpu_count_in_a_scenario_names_its_line(tmp_path):
    text = "cluster:\n  nodes: [{name: n1, cpus: '８'}]\njobs: [{runtime: 5}]\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 2: invalid cluster.nodes[0].cpus '８': give a whole number (e.g. 1) "
        "(Slurm reads the ASCII digits 0-9 only: write 8)"
    )


def test_huge_scenario_counts_are_refused_at_load(tmp_path):
    text = f"cluster: tiny\naccounts: [{{name: a, shares: 99999999999999999999}}]\n{JOB}"
    assert load_error(tmp_path, text) == (
        "v.yaml line 2: invalid accounts[0].shares 99999999999999999999: must be at most "
        "4294967293 (Slurm keeps it in 32 bits)"
    )


# -- 2.9 values that meant something else ------------------------------------------------------
@pytest.mark.parametrize("value", ["false", "0"])
def test_actions_false_or_zero_is_not_no_actions(tmp_path, value):
    """``actions: false`` silently meant "no actions" (``doc.get(key) or []``)."""
    text = f"cluster: tiny\n{JOB}actions: {value}\n"
    shown = "False" if value == "false" else "0"
    assert load_error(tmp_path, text) == (
        f"v.yaml line 4: 'actions' must be a list of entries, not {shown} (for none, leave "
        "'actions' out or write actions: [])"
    )


def test_an_empty_actions_section_is_none(tmp_path):
    assert load(tmp_path, f"cluster: tiny\n{JOB}actions:\nfailures: []\n").actions == ()


def test_a_list_as_the_scenario_name_is_refused(tmp_path):
    """``name: [1, 2]`` became the name "[1, 2]"."""
    text = f"name: [1, 2]\ncluster: tiny\n{JOB}"
    assert load_error(tmp_path, text) == (
        "v.yaml line 1: field 'name' is [1, 2]; give the scenario a name (e.g. name: "
        "backfill-basics); quote text that holds ': ', '[' or '{'"
    )


def test_a_mapping_as_the_description_is_refused(tmp_path):
    """``description: {a: 1}`` was accepted."""
    text = f"description: {{a: 1}}\ncluster: tiny\n{JOB}"
    assert load_error(tmp_path, text) == (
        "v.yaml line 1: field 'description' is {'a': 1}; give text (e.g. description: Two "
        "jobs share one node), or 'description: |' and the text on the lines below it; quote "
        "text that holds ': ', '[' or '{'"
    )


def test_names_and_descriptions_that_are_text_or_numbers_load(tmp_path):
    s = load(tmp_path, f"name: 2026\ndescription:\ncluster: tiny\n{JOB}")
    assert (s.name, s.description) == ("2026", "")  # (an empty description was "None")


def test_a_reservation_with_nodes_and_node_count_is_refused(tmp_path):
    """Both loaded; the contradiction showed only as a job error when a job used it."""
    text = (
        f"cluster: tiny\n{JOB}reservations:\n"
        "  - {name: r, start: 0, duration: 1h, nodes: node1, node_count: 2, users: [alice]}\n"
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 5: reservations[0] (r): fields 'nodes' ('node1') and 'node_count' (2) "
        "are both given; give one: nodes for the nodes it holds (scontrol's Nodes=), or "
        "node_count for how many free nodes it takes (NodeCnt=)"
    )


# -- 3.1 a dependency on a JobID no job has -----------------------------------------------------
def test_a_dependency_on_a_missing_jobid_is_refused_at_load(tmp_path):
    """It failed only when the scenario ran, without the file or line."""
    text = "cluster: tiny\njobs:\n  - {submit: 0, runtime: 5, args: '-d afterok:7'}\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0]: field 'args': --dependency=afterok:7: job '7' is not a JobID "
        "in this scenario (its one job is JobID 1); a job can only depend on jobs submitted "
        "before it"
    )


ARRAY = (
    "cluster: tiny\njobs:\n  - {submit: 0, runtime: 5, args: '-n 1 -t 10'}\n"
    "  - {submit: 0, runtime: 5, args: '-n 1 --array=0-2 -t 10'}\n"
)


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("9", "is not a JobID in this scenario (its JobIDs are 1 to at most 5: one per "
         "submission, and one more for each array task that starts, all but the last of "
         "each array)"),
        ("5", "is not known before the run: after an array of several tasks the run decides "
         "the JobIDs, as slurmctld does (each task that starts takes the next number, all "
         "but the last), from 3 on here; give the job an id and name it by that (an array "
         "task: ID_TASK)"),
        ("2_5", "is no task of the array 2 (--array=0-2)"),
        ("1_1", "names task 1 of 1, which is not an array's JobID"),
    ],
)  # fmt: skip
def test_a_numeric_dependency_names_a_job_or_array_task_submitted_before(tmp_path, ref, why):
    text = ARRAY + f"  - {{submit: 1, runtime: 5, args: '-n 1 -t 10 -d afterok:{ref}'}}\n"
    assert load_error(tmp_path, text) == (
        f"v.yaml line 5: jobs[2]: field 'args': --dependency=afterok:{ref}: job '{ref}' {why}; "
        "a job can only depend on jobs submitted before it"
    )


def test_a_dependency_on_a_jobid_submitted_later_is_refused(tmp_path):
    text = (
        "cluster: tiny\njobs:\n  - {submit: 0, runtime: 5, args: '-n 1 -d afterok:2'}\n"
        "  - {submit: 0, runtime: 5, args: '-n 1'}\n"
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0]: field 'args': --dependency=afterok:2: job '2' is the JobID "
        "of jobs[1], submitted at the same time (0 s) but later in the list, so after this "
        "job; a job can only depend on jobs submitted before it"
    )


def test_dependencies_on_earlier_jobids_and_array_tasks_load_and_run(tmp_path):
    """JobIDs count in submit order: jobs[2] (submitted first) is 1, the array 2; its tasks
    that start at 5 s take 3 and 4 (2_2, the last, keeps 2), so jobs[1] is 5."""
    s = load(
        tmp_path,
        "cluster: tiny\njobs:\n  - {submit: 5, runtime: 5, args: '-n 1 --array=0-2 -t 10'}\n"
        "  - {submit: 9, runtime: 5, args: '-n 1 -t 10 -d afterok:2_2:2:1'}\n"
        "  - {submit: 0, runtime: 5, args: '-n 1 -t 10'}\n",
    )
    jobs = s.run().jobs
    assert jobs["JobID"].tolist() == ["1", "2_0", "2_1", "2_2", "5"]
    assert jobs["JobIDRaw"].tolist() == ["1", "3", "4", "2", "5"]
    assert (jobs["State"] == "COMPLETED").all()


# -- 3.4 a date where an offset goes -------------------------------------------------------------
def test_a_reservation_start_given_as_a_date_says_how_to_write_it(tmp_path):
    """It showed ``datetime.datetime(2026, 1, 5, 1, 0)``."""
    text = (
        f"cluster: tiny\n{JOB}reservations:\n"
        "  - {name: r, start: 2026-01-05T01:00:00, duration: 1h, nodes: node1, users: [alice]}\n"
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 5: reservations[0] (r): field 'start': '2026-01-05T01:00:00' is a date "
        "and time, but start counts from the scenario's start: give seconds (e.g. 3600), "
        "[D-]HH:MM:SS (e.g. 1:00:00) or 2h. The start is the scenario's origin "
        "(2026-01-05T00:00:00): write start: 1:00:00"
    )
    before = text.replace("2026-01-05T01", "2025-01-05T01")
    assert load_error(tmp_path, before).endswith(
        "(2026-01-05T00:00:00): it is before that start: give a later start, or set an "
        "earlier origin"
    )


def test_an_action_or_failure_at_given_as_a_date_says_how_to_write_it(tmp_path):
    text = f"cluster: tiny\n{JOB}actions: [{{at: 2026-01-05T00:10:00, action: hold, job: a}}]\n"
    assert load_error(tmp_path, text).startswith(
        "v.yaml line 4: actions[0]: field 'at': '2026-01-05T00:10:00' is a date and time, but "
        "at counts from the scenario's start"
    )
    assert load_error(tmp_path, text).endswith("write at: 10:00")
    text = f"cluster: tiny\n{JOB}failures: [{{node: node1, at: 2026-01-05T02:00:00}}]\n"
    assert load_error(tmp_path, text).endswith(
        "v.yaml line 4: failures[0]: field 'at': '2026-01-05T02:00:00' is a date and time, "
        "but at counts from the scenario's start: give seconds (e.g. 3600), [D-]HH:MM:SS "
        "(e.g. 1:00:00) or 2h. The start is the scenario's origin (2026-01-05T00:00:00): "
        "write at: 2:00:00"
    )


def test_a_date_as_a_runtime_is_shown_as_written_not_as_a_repr(tmp_path):
    text = "cluster: tiny\njobs:\n  - {submit: 0, runtime: 2026-01-01}\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0]: field 'runtime': invalid runtime '2026-01-01': a date, where "
        "a time is counted: give seconds (e.g. 3600), a Slurm time ([D-]HH:MM:SS, or M:S, "
        "D-H, D-H:M as sbatch -t reads them, e.g. 1:00:00 or 1-12:00) or a number with "
        "s/m/h/d (e.g. 2h)"
    )
