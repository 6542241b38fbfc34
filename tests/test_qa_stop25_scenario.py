"""QA stop 25, scenarios and the Lab: each test quotes its input and the exact outcome."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab import Account, Cluster, Scenario
from slurmlab.errors import ConfigError, RequestError, ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def load_error(tmp_path, text: str, name: str = "v.yaml") -> str:
    """The message of the ScenarioError that loading ``text`` raises."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScenarioError) as exc:
        Scenario.load(path)
    return str(exc.value).replace(str(tmp_path) + "/", "")


AI_JOB = '  - {id: a, submit: 0, runtime: 1h, args: "-N 1 --gres=gpu:8 -t 2:00:00"}\n'


# -- 1. user, account and id are names Slurm can take ------------------------------------------
def test_a_user_name_with_a_space_is_an_error_on_its_field(tmp_path):
    """``user: "Alice Smith"`` is not a login name: the error names the file, line, entry and
    field (it was a SlurmlabError naming none of them)."""
    text = (
        f"cluster: ai\njobs:\n{AI_JOB}"
        '  - {submit: 0, runtime: 1h, args: "-N 1 -t 10", user: "Alice Smith"}\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 4: jobs[1]: field 'user': 'Alice Smith' is not a user name: Slurm's "
        "users are login names, one word of letters, digits, '-', '_' and '.'; write e.g. "
        "user: alice-smith"
    )


def test_an_account_name_with_a_space_is_an_error_with_an_account_example(tmp_path):
    text = (
        f"cluster: ai\njobs:\n{AI_JOB}"
        '  - {submit: 0, runtime: 1h, args: "-N 1 -t 10", account: "ml team"}\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 4: jobs[1]: field 'account': 'ml team' is not an account name: Slurm's "
        "accounts (sacctmgr add account) are names, one word of letters, digits, '-', '_' "
        "and '.'; write e.g. account: ml-team"
    )
    text = 'cluster: tiny\njobs:\n  - {runtime: 1, args: "-N 1 -A \\"ml team\\""}\n'
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0]: field 'args': --account: 'ml team' is not an account name: "
        "Slurm's accounts (sacctmgr add account) are names, one word of letters, digits, "
        "'-', '_' and '.'; write e.g. --account=ml-team"
    )


@pytest.mark.parametrize(
    ("given", "holds", "fix"),
    [
        ('"my job"', "a space", "my-job"),
        ("'a:b'", "':'", "a-b"),
        ("'x,y?'", "',', '?'", "x-y"),
        ("'pre+1'", "'+'", "pre-1"),
    ],
)
def test_an_id_that_dependency_syntax_cannot_name_is_refused(tmp_path, given, holds, fix):
    """``--dependency=afterok:my job`` cannot name ``id: "my job"``: sbatch splits job ids
    at spaces, ':', ',', '?' and '+'."""
    value = json.loads(given) if given.startswith('"') else given.strip("'")
    text = f"cluster: tiny\njobs:\n  - {{id: {given}, runtime: 10, args: '-N 1'}}\n"
    assert load_error(tmp_path, text) == (
        f"v.yaml line 3: jobs[0] (id {value!r}): field 'id': {value!r} cannot be named in "
        f"--dependency=afterok:ID (it holds {holds}: sbatch splits job ids at spaces, ':', "
        f"',', '?' and '+'); use letters, digits, '-', '_' and '.', e.g. id: {fix}"
    )


def test_ids_with_dots_dashes_and_underscores_are_fine(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n  - {id: pre-train.v2_a, runtime: 10, args: '-N 1'}\n"
        "  - {id: eval, submit: 1, runtime: 10, args: '-N 1 -d afterok:pre-train.v2_a'}\n"
    )
    result = Scenario.load(path).run()
    assert result.jobs["JobID"].tolist() == ["pre-train.v2_a", "eval"]
    assert result.jobs["Start"].dt.second.tolist() == [0, 10]


# -- 2. YAML layout mistakes get a hint ---------------------------------------------------------
def test_a_key_indented_one_space_too_far_says_indentation(tmp_path):
    text = (
        "name: t\ncluster: ai\njobs:\n  - id: a\n    submit: 0\n     runtime: 3600\n"
        '    args: "-N 1 --gres=gpu:8 -t 2:00:00"\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 6: not valid YAML/JSON: mapping values are not allowed in this context "
        "(column 13), in '     runtime: 3600': this is usually indentation: this key starts "
        "in column 6, the key above it (line 5) in column 5, and the keys of one entry (e.g. "
        "one job's submit, runtime and args) must line up; else a value with ': ' in it must "
        'be quoted (args: "-d afterok:3 -t 1:00:00")'
    )


def test_a_key_dedented_too_far_says_indentation(tmp_path):
    text = (
        "name: t\ncluster: ai\njobs:\n  - id: a\n    submit: 0\n  runtime: 3600\n"
        '    args: "-N 1 --gres=gpu:8 -t 2:00:00"\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 6: not valid YAML/JSON: did not find expected '-' indicator (column 3), "
        "while parsing a block collection that starts on line 4, in '  runtime: 3600': this "
        "is usually indentation: this key starts in column 3, the key above it (line 5) in "
        "column 5, and the keys of one entry (e.g. one job's submit, runtime and args) must "
        "line up; else a value with ': ' in it must be quoted (args: \"-d afterok:3 -t 1:00:00\")"
    )


def test_an_unquoted_colon_in_a_value_says_quote_it_first(tmp_path):
    text = "cluster: tiny\njobs:\n  - id: a\n    runtime: 1\n    args: -d afterok: 3\n"
    assert load_error(tmp_path, text) == (
        "v.yaml line 5: not valid YAML/JSON: mapping values are not allowed in this context "
        "(column 21), in '    args: -d afterok: 3': a value with ': ' in it must be quoted "
        '(args: "-d afterok:3 -t 1:00:00"); else it is indentation: the keys of one entry '
        "(e.g. one job's submit, runtime and args) must line up"
    )


def test_a_job_field_at_the_top_level_is_named_as_mis_indented(tmp_path):
    text = (
        "name: t\ncluster: ai\njobs:\n- id: a\n  submit: 0\n  runtime: 3600\n"
        'args: "-N 1 --gres=gpu:8 -t 2:00:00"\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 7: unknown section(s) ['args']; allowed: ['accounts', 'actions', "
        "'cluster', 'description', 'failures', 'jobs', 'name', 'origin', 'policy', 'qos', "
        "'random_failures', 'reservations', 'seed', 'slurmctld_start']; 'args' is a field of a "
        "`jobs` entry, not a section: it looks mis-indented; indent it to line up with the "
        "other fields of the job above it (jobs[0], line 4)"
    )


def test_jobs_written_as_a_mapping_shows_the_list_form(tmp_path):
    text = 'name: t\ncluster: ai\njobs:\n  id: a\n  submit: 0\n  runtime: 1h\n  args: "-N 1"\n'
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: 'jobs' must be a list of job entries, not a mapping (id, "
        "submit, runtime, args): start each job with '- ' and line its other fields up under "
        "the first: '  - id: ...' then '    submit: ...', '    runtime: ...', '    args: ...', "
        "or one job per line: '  - {submit: 0, runtime: 1h, args: \"-N 1\"}'"
    )


def test_a_calendar_submit_says_submit_is_relative_and_how_origin_sets_the_calendar(tmp_path):
    text = (
        "cluster: ai\njobs:\n"
        '  - {id: a, submit: 2026-01-05 10:00, runtime: 3600, args: "-N 1 -t 2:00:00"}\n'
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 3: jobs[0] (id 'a'): field 'submit': '2026-01-05 10:00' is a date and "
        "time, but submit counts from the scenario's start: give seconds (e.g. 3600), "
        "[D-]HH:MM:SS (e.g. 1:00:00) or 2h. The start is the scenario's origin "
        "(2026-01-05T00:00:00): write submit: 10:00:00, or set origin: 2026-01-05T10:00:00 "
        "and submit: 0"
    )
    text = "origin: 2026-02-01T00:00:00\n" + text
    assert load_error(tmp_path, text).endswith(
        "The start is the scenario's origin (2026-02-01T00:00:00): it is before that start: "
        "set origin: 2026-01-05T10:00:00 and submit: 0"
    )


# -- 3. a GRES name that is a near miss of gpu, or not in GresTypes -----------------------------
GRES_NODE = (
    "cluster:\n  nodes:\n"
    '    - {name: "gpu[01-04]", cpus: 64, memory: 512000, gres: "gpus:a100:4"}\n'
    '  partitions:\n    - {name: train, nodes: "gpu[01-04]"}\n'
    'jobs:\n  - {id: a, submit: 0, runtime: 3600, args: "-N 1 -t 2:00:00"}\n'
)


def test_an_inline_node_gres_typo_is_an_error_on_its_gres_field(tmp_path):
    """``gres: gpus:a100:4`` loaded as a node without GPUs (a GPU job then failed, blaming
    the job)."""
    assert load_error(tmp_path, GRES_NODE) == (
        "v.yaml line 3: cluster.nodes[0]: field 'gres': 'gpus:a100:4': 'gpus' is not a GRES "
        "slurmlab counts as GPUs (only 'gpu' is, as in Slurm), so the node would have no GPU; "
        "did you mean 'gpu'? write gres: gpu:a100:4 (a GRES really named 'gpus' needs "
        "settings: {GresTypes: gpu,gpus})"
    )


def test_inline_gres_names_follow_gres_types_when_settings_give_it(tmp_path):
    declared = GRES_NODE.replace(
        "  partitions:", "  settings: {GresTypes: 'gpu,gpus'}\n  partitions:"
    )
    path = tmp_path / "ok.yaml"
    path.write_text(declared)
    assert Scenario.load(path).cluster.nodes[0].gres[0].name == "gpus"  # declared: taken
    nvme = GRES_NODE.replace("gpus:a100:4", "gpu:a100:4,nvme:1").replace(
        "  partitions:", "  settings: {GresTypes: gpu}\n  partitions:"
    )
    assert load_error(tmp_path, nvme) == (
        "v.yaml line 3: cluster.nodes[0]: field 'gres': 'gpu:a100:4,nvme:1': 'nvme' is not in "
        "GresTypes (gpu), and slurmctld refuses a node GRES that GresTypes does not declare; "
        "add it to cluster.settings.GresTypes"
    )
    other = GRES_NODE.replace("gpus:a100:4", "gpu:a100:4,nvme:1")  # no GresTypes: any name
    path.write_text(other)
    assert [g.name for g in Scenario.load(path).cluster.nodes[0].gres] == ["gpu", "nvme"]


def test_a_slurm_conf_node_gres_not_in_gres_types_is_refused_like_slurmctld():
    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(
            "GresTypes=gpu\nNodeName=n1 CPUs=4 Gres=gpus:2\nPartitionName=p Nodes=ALL\n"
        )
    assert str(exc.value) == (  # (stop 28: named at its NodeName= line)
        "slurm.conf line 2: NodeName=n1: Gres=gpus:2: 'gpus' is not in GresTypes (gpu), and "
        "slurmctld refuses a node GRES that GresTypes does not declare; did you mean 'gpu'?"
    )
    with pytest.raises(ConfigError, match=r"Gres=GPU:2: 'GPU' is not a GRES slurmlab counts"):
        Cluster.from_slurm_conf("NodeName=n1 CPUs=4 Gres=GPU:2\nPartitionName=p Nodes=ALL\n")


# -- 4. units: seconds for offsets and durations, minutes for time limits -----------------------
def test_a_bare_reservation_duration_warns_that_it_is_seconds(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(
        "cluster: tiny\nreservations:\n"
        '  - {name: demo, start: 600, duration: 60, nodes: "node[1-2]", users: [alice]}\n'
        'jobs:\n  - {id: a, submit: 0, runtime: 3600, args: "-N 2 --gres=gpu:2 -t 30"}\n'
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario = Scenario.load(path)
    assert scenario.reservations[0].duration == 60.0
    assert [str(w.message) for w in caught] == [
        f"{path} line 3: reservations[0] (demo): field 'duration': 60 is read as 60 seconds "
        "(a scenario's times are seconds, as submit and runtime are), while scontrol create "
        "reservation Duration=60 means 60 minutes; write 60s, or 1:00:00 for 60 minutes, to "
        "say which"
    ]
    path.write_text(path.read_text().replace("duration: 60", "duration: '1:00:00'"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Scenario.load(path).reservations[0].duration == 3600.0


def test_max_time_2h_says_which_forms_a_time_limit_takes(tmp_path):
    text = (
        "cluster:\n  nodes:\n    - {name: 'gpu[01-04]', cpus: 64, memory: 512000}\n"
        "  partitions:\n    - {name: train, nodes: 'gpu[01-04]', max_time: 2h}\n"
        "jobs:\n  - {id: a, runtime: 3600, args: '-N 1 -t 1:00:00'}\n"
    )
    assert load_error(tmp_path, text) == (
        "v.yaml line 5: invalid cluster.partitions[0].max_time '2h': a time limit takes "
        "Slurm's forms, as slurm.conf's MaxTime/DefaultTime and sbatch -t do: minutes as a "
        "bare number, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED, and no unit suffix "
        "(unlike submit and runtime, which are seconds or 2h); write 2:00:00 (or 120, minutes)"
    )


def test_unquoted_slurm_times_in_time_limits_are_read_as_written(tmp_path):
    """YAML reads an unquoted ``1:00:00`` as the number 3600 (sexagesimal): max_time,
    default_time and a QOS's max_wall were then 3600 *minutes* (2.5 days)."""
    path = tmp_path / "t.yaml"
    path.write_text(
        "cluster:\n  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  partitions: [{name: p, nodes: ALL, max_time: 1:00:00, default_time: 30:00}]\n"
        "qos:\n  - {name: high, max_wall: 2:00:00}\n"
        "jobs:\n  - {runtime: 10, args: '-N 1 -q high'}\n"
    )
    scenario = Scenario.load(path)
    part = scenario.cluster.partitions[0]
    assert (part.max_time.total_seconds(), part.default_time.total_seconds()) == (3600, 1800)
    assert scenario.qos[0].max_wall.total_seconds() == 7200


def test_the_module_docstring_says_which_fields_take_which_unit():
    doc = slurmlab.scenario.__doc__
    assert "a bare number is **seconds** (``3600``)" in doc
    assert "a bare number is **minutes** (``-t 30``,\n  ``max_time: 120``)" in doc
    assert "``scontrol create reservation Duration=60`` means 60 minutes" in doc


# -- 5. the Lab -----------------------------------------------------------------------------------
@pytest.fixture
def ipython(capsys):
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    capsys.readouterr()
    return ip


@pytest.mark.parametrize("line", ["--runtime=2 hours -N 1", "--runtime 2 hours -N 1"])
def test_sbatch_magic_refuses_a_runtime_whose_unit_is_a_word_of_its_own(ipython, capsys, line):
    """``%%sbatch --runtime=2 hours`` made a 2-second job (and 'hours' its script name)."""
    lab = slurmlab.Lab("tiny")
    ipython.run_cell_magic("sbatch", line, "#!/bin/bash\nsrun hostname\n")
    assert capsys.readouterr().err.strip() == (
        "sbatch: error: --runtime 2 hours: the duration is one word (the rest of the line is "
        "sbatch's options, and 'hours' would be the script's name); write --runtime=2h: "
        "seconds (e.g. 3600), [D-]HH:MM:SS (e.g. 2:00:00) or a number with s/m/h/d (e.g. 2h)"
    )
    assert lab.sacct().empty


def test_sbatch_magic_refuses_a_runtime_that_does_not_parse(ipython, capsys):
    lab = slurmlab.Lab("tiny")
    ipython.run_cell_magic("sbatch", "--runtime '2 hours'", "#!/bin/bash\nsrun hostname\n")
    assert capsys.readouterr().err.strip() == (
        "sbatch: error: invalid --runtime '2 hours': give seconds (e.g. 3600), a Slurm time "
        "([D-]HH:MM:SS, or M:S, D-H, D-H:M as sbatch -t reads them, e.g. 1:00:00 or 1-12:00) "
        "or a number with s/m/h/d (e.g. 2h)"
    )
    assert lab.sacct().empty
    ipython.run_cell_magic("sbatch", "--runtime=2h", "#!/bin/bash\nsrun hostname\n")
    assert capsys.readouterr().out.strip() == "Submitted batch job 1"
    assert lab.sim.jobs[1].wjob.runtime == 7200.0


def test_a_command_given_as_sbatch_options_warns_as_sbatch_would_refuse_it():
    """``lab.sbatch("python train.py")``: sbatch takes 'python' for the script's file
    (sbatch: error: Unable to open file python). Script file names are a Lab feature
    (test_qa_stop19: "-t 5 -J mine eval.sh"), so it is submitted, with a warning."""
    lab = slurmlab.Lab("tiny")
    with pytest.warns(UserWarning) as caught:
        jobid = lab.sbatch("python train.py")
    assert [str(w.message) for w in caught] == [
        "sbatch: 'python' stands where sbatch takes the batch script's file name: real "
        "sbatch looks for a file named 'python' in the current directory (with 'train.py' as "
        "its arguments) and, finding none, says 'sbatch: error: Unable to open file python'; "
        "the Lab reads no files and submits a job named 'python' that runs for its runtime. "
        "To run a command, give --wrap='python train.py' or the script's text "
        "('#!/bin/bash\\nsrun python train.py')"
    ]
    assert lab.sacct().set_index("JobID").loc[str(jobid), "JobName"] == "python"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a script file's name: no warning
        lab.sbatch("-t 5 train.sh")
        lab.sbatch("-t 5 myjob")  # (a script without a suffix is a file too)


def test_a_lab_with_accounts_says_which_accounts_and_users_to_submit_with():
    lab = slurmlab.Lab(
        "tiny", accounts=[Account("llm", users=("alice", "bob")), Account("cv", users=("carol",))]
    )
    with pytest.raises(RequestError) as exc:
        lab.sbatch("-N 1")
    assert str(exc.value) == (
        "user 'you' account 'root': Invalid account or account/partition combination "
        "specified; 'you' is in no account's users: submit as one that is (user=, or --uid= "
        "in %%sbatch: alice: llm; bob: llm; carol: cv), or list 'you' in an account's users "
        "when making the Lab"
    )
    with pytest.raises(RequestError) as exc:
        lab.sbatch("-N 1 -A cv", user="bob")
    assert str(exc.value).endswith(
        "specified; account 'cv' lists the users carol: submit as one of them (user=, or "
        "--uid= in %%sbatch), or -A one of the accounts 'bob' may use: llm"
    )
    with pytest.raises(RequestError) as exc:
        lab.sbatch("-N 1 -A xyz", user="bob")
    assert str(exc.value).endswith(
        "specified; account 'xyz' is not one of the Lab's accounts (llm, cv); pass -A one of "
        "the accounts 'bob' may use: llm"
    )
    assert lab.sbatch("-N 1", user="alice") == 1
    open_lab = slurmlab.Lab("tiny", accounts=[Account("llm"), Account("cv")])  # no users listed
    # (stop 42: no account lists users, so none is restricted, as the README says: a job
    # without -A charges root, through an implicit root/you association)
    assert open_lab.sbatch("-N 1") == 1
    open_lab.advance(1)
    assert open_lab.sacct()["Account"].tolist() == ["root"]


def test_a_scenario_becomes_a_lab_with_its_cluster_policy_accounts_qos_and_jobs(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\npolicy: {name: slurm, bf_interval: 30}\norigin: 2026-03-02T09:00:00\n"
        "accounts:\n  - {name: llm, users: [alice]}\n"
        "qos:\n  - {name: high, priority: 100}\n"
        "reservations:\n  - {name: r, start: '1:00:00', duration: '1:00:00', nodes: node4, "
        "users: [alice]}\n"
        "jobs:\n  - {id: big, submit: 0, runtime: 600, args: '-N 3 -t 20', user: alice}\n"
        "  - {id: late, submit: 60, runtime: 60, args: '-N 1 -t 5 -q high', user: alice}\n"
    )
    scenario = Scenario.load(path)
    lab = scenario.lab()
    assert lab.cluster == scenario.cluster
    assert lab.result.policy == "slurm" and lab.sim.policy.bf_interval == 30
    assert lab.sim.origin == scenario.workload.origin
    assert set(lab.sim.qos) == {"normal", "high"} and "r" in lab.sim.reservation_names()
    assert lab.squeue()["JOBID"].tolist() == ["big"]  # (late comes at 60 s)
    mine = lab.sbatch("-N 1 -t 5", user="alice", runtime=30)
    assert mine == 2  # the scenario's big is JobID 1
    lab.run()
    got = lab.sacct().set_index("JobID")[["Start", "State"]]
    origin = scenario.workload.origin
    assert (got.loc["late", "Start"] - origin).total_seconds() == 60
    assert (got["State"] == "COMPLETED").all() and len(got) == 3
    empty = scenario.lab(jobs=False)
    assert empty.squeue().empty and empty.sim.policy.bf_interval == 30
    with pytest.raises(RequestError, match="'you' is in no account's users"):
        empty.sbatch("-N 1")


# -- 6. an array's JobID names the whole array, with an id or without ---------------------------
ARRNUM = (
    "name: arrnum\ncluster: tiny\npolicy: easy\njobs:\n"
    '  - {id: arr, submit: 0, runtime: 100, args: "--array=0-3%2 -N1 --gres=gpu:2 -t 5"}\n'
    '  - {id: dep, submit: 1, runtime: 10, args: "-N1 -t 5 -d afterok:1"}\n'
)


@pytest.mark.parametrize("with_id", [True, False])
def test_a_dependency_on_an_arrays_jobid_waits_for_all_its_tasks(tmp_path, with_id):
    """``afterok:1``, 1 the ArrayJobID of a 4-task array: the job waits for every task
    (3:20), as in Slurm and in a Lab. With ``id: arr`` it used to wait for arr_0 alone (1:40)."""
    path = tmp_path / "a.yaml"
    path.write_text(ARRNUM if with_id else ARRNUM.replace("id: arr, ", ""))
    jobs = Scenario.load(path).run().jobs.set_index("JobID")
    origin = pd.Timestamp("2026-01-05")
    assert (jobs.loc["dep", "Start"] - origin).total_seconds() == 200
    # submitted after the first two tasks started (JobIDs 2 and 3), as slurmctld numbers
    assert jobs.loc["dep", "JobIDRaw"] == "4"
    lab = slurmlab.Lab("tiny")
    array = lab.sbatch("--array=0-3%2 -N1 --gres=gpu:2 -t 5", runtime=100)
    lab.advance(1)
    dep = lab.sbatch(f"-N1 -t 5 -d afterok:{array}", runtime=10)
    lab.run()
    start = lab.sacct().set_index("JobID").loc[str(dep), "Start"]
    assert (start - lab.result.origin).total_seconds() == 200


def test_a_task_of_an_array_with_an_id_can_be_named_by_number(tmp_path):
    """``1_2`` is task 2 of the array whose JobID is 1 (``arr_2``); ``cancel 1`` cancels
    the whole array."""
    path = tmp_path / "t.yaml"
    path.write_text(
        ARRNUM.replace("afterok:1", "afterok:1_2")
        + "actions:\n  - {at: 150, action: cancel, job: 1}\n"
    )
    scenario = Scenario.load(path)
    assert str(scenario.workload.jobs[1].spec.dependency[0]) == "afterok:1_2"  # as written
    assert [a.target for a in scenario.actions] == ["1"]
    states = scenario.run().jobs.set_index("JobID")["State"].to_dict()
    assert states == {
        "arr_0": "COMPLETED",
        "arr_1": "COMPLETED",
        "arr_2": "CANCELLED",
        "arr_3": "CANCELLED",
        "dep": "PENDING",
    }


# -- 7. the welcome notebook's text matches its cluster --------------------------------------
def test_the_welcome_notebook_counts_the_train_nodes_sinfo_shows():
    notebook = json.loads((ROOT / "course/00-welcome.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    train = Cluster.preset("ai").partition("train")
    assert len(train.nodes) == 32
    assert "each takes 2 of the 32 `train` nodes" in text
    assert "of the 30 `train` nodes" not in text
