"""QA stop 29: wrong kinds of value given to the simulator's public API, and the docs of
``simulate --json`` and the SWF reader.

Each input a notebook user typed by mistake gets a slurmlab error that names the argument,
the value and the fix (or is read as the rest of the API reads it); valid inputs behave as
before.
"""

import warnings
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import yaml

import slurmlab
from slurmlab import JobSpec, Lab, Scenario, ScenarioError, SlurmlabError, simulate, srun_env
from slurmlab.cli import main
from slurmlab.policies.backfill import Easy
from slurmlab.records import swf
from slurmlab.records.swf import read_swf, swf_cluster
from slurmlab.spec.workload import Action, Workload, WorkloadJob

ROOT = Path(__file__).resolve().parents[1]
REALSLURM_CONF = ROOT / "datasets" / "realslurm" / "slurm.conf"
ONE = JobSpec.from_args("-n 1 -t 30")
DDP = "-N 2 --ntasks-per-node=8 --gres=gpu:8"


def _trace(tmp_path, records: str, header: str = "; MaxProcs: 64\n") -> Path:
    path = tmp_path / "t.swf"
    path.write_text(header + records)
    return path


# -- section 4: srun_env given sbatch options as text ---------------------------------------


def test_srun_env_reads_options_given_as_text_as_a_jobspec_built_from_them():
    """srun_env("-N 2 ...") is srun_env(JobSpec.from_args("-N 2 ...")) (an AttributeError
    before)."""
    as_text = srun_env(DDP, nodelist="gpu[001-002]", job_id=42)
    as_words = srun_env(DDP.split(), nodelist="gpu[001-002]", job_id=42)
    as_spec = srun_env(JobSpec.from_args(DDP), nodelist="gpu[001-002]", job_id=42)
    assert as_text.equals(as_spec) and as_words.equals(as_spec)
    assert as_text.loc[9, ["RANK", "SLURMD_NODENAME"]].tolist() == [9, "gpu002"]


@pytest.mark.parametrize("job", [5, None, {"nodes": 2}])
def test_srun_env_refuses_a_job_that_is_no_request(job):
    with pytest.raises(SlurmlabError, match=r"srun_env: job=.* is not a request: give a JobSpec"):
        srun_env(job, "node[1-2]")


# -- section 9: read_swf(cluster=<preset name or slurm.conf path>) --------------------------


def test_read_swf_takes_a_preset_name_or_a_slurm_conf_path_as_cluster(tmp_path):
    """read_swf(cluster="tiny") reads the cluster as simulate does (an AttributeError
    'str' object has no attribute 'nodes' before)."""
    path = _trace(tmp_path, "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n")
    assert read_swf(path, cluster="tiny").max_procs == 64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the real-Slurm conf's unmodelled keys)
        by_path = read_swf(path, cluster=REALSLURM_CONF)
    assert by_path.max_procs == 4 * 16 + 2 * 32
    with pytest.raises(SlurmlabError, match=r"give procs=8 .* or cluster='tiny', not both"):
        read_swf(path, procs=8, cluster="tiny")
    with pytest.raises(SlurmlabError, match=r"cluster 'nosuch' is neither a preset"):
        read_swf(path, cluster="nosuch")


# -- section 19: read_swf(skip_invalid="no") and Scenario.lab(jobs="no") --------------------


def test_read_swf_refuses_a_skip_invalid_that_is_not_true_or_false(tmp_path):
    """skip_invalid="no" was truthy: it dropped the jobs it meant to refuse."""
    path = _trace(tmp_path, "1 0 0 100 128 -1 -1 128 200 -1 1 1 1 1 1 1 -1 -1\n")
    with pytest.raises(
        SlurmlabError, match=r"read_swf\(skip_invalid='no'\): skip_invalid is True or False"
    ):
        read_swf(path, skip_invalid="no")
    with pytest.warns(swf.SwfDropWarning, match=r"dropped 1 job wider than 64 processors"):
        assert read_swf(path, skip_invalid=np.bool_(True)).dropped == 1


def test_scenario_lab_refuses_jobs_that_is_not_true_or_false():
    scenario = Scenario.load(ROOT / "course" / "scenarios" / "backfill-basics.yaml")
    with pytest.raises(SlurmlabError, match=r"Scenario.lab\(jobs='no'\): jobs is True or False"):
        scenario.lab(jobs="no")
    assert scenario.lab(jobs=False).squeue().empty


# -- section 10: an explicit id equal to an auto-numbered JobID -----------------------------


@pytest.mark.parametrize("given", ["1", 1])
def test_simulate_refuses_an_id_that_is_another_jobs_jobid(given):
    """WorkloadJob(id="1") beside a job without an id (JobID 1) made two rows with JobID '1'."""
    work = Workload([WorkloadJob(ONE), WorkloadJob(ONE, id=given)])
    fix = r"give workload.jobs\[0\] an id too, or workload.jobs\[1\] one that is not a number"
    with pytest.raises(SlurmlabError, match=r"simulate: workload.jobs\[1\] has id=.*1.*JobID of "):
        simulate("tiny", work)
    with pytest.raises(SlurmlabError, match=fix):
        simulate("tiny", work)
    with pytest.raises(SlurmlabError, match=r"Lab\(workload=...\): workload.jobs\[1\] has id="):
        Lab("tiny", workload=work)


def test_an_id_that_names_an_unnamed_arrays_task_is_refused_too():
    array = JobSpec.from_args("-n 1 -t 30 -J sweep --array=1-3")
    work = Workload([WorkloadJob(array), WorkloadJob(ONE, id="1_2")])
    with pytest.raises(
        SlurmlabError,
        match=r"id='1_2', which is also the JobID of workload.jobs\[0\] \('sweep', submitted at",
    ):
        simulate("tiny", work)


def test_ids_that_are_no_other_jobs_jobid_still_run():
    """A job may carry its own number (JobID 2 is its own), and ids that are not numbers run."""
    work = Workload([WorkloadJob(ONE), WorkloadJob(ONE, id="2"), WorkloadJob(ONE, id="c")])
    assert simulate("tiny", work).jobs["JobID"].tolist() == ["1", "2", "c"]


# -- section 12: the slurm policy's parameters given numpy numbers --------------------------


def test_slurm_policy_parameters_take_numpy_whole_numbers():
    """bf_interval=np.int64(5) was refused as 'must be ... a whole number'."""
    work = slurmlab.ai_workload(5, "tiny")
    result = simulate("tiny", work, "slurm", bf_interval=np.int64(5), bf_window=np.float64(60))
    assert result.params["bf_interval"] == 5 and type(result.params["bf_interval"]) is int
    assert result.params["bf_window"] == 60.0 and type(result.params["bf_window"]) is float
    lab = Lab("tiny", "slurm", bf_interval=np.int64(5))
    assert lab.result.params["bf_interval"] == 5
    with pytest.raises(SlurmlabError, match=r"bf_interval=2.5 must be -1 .* a whole number"):
        simulate("tiny", work, "slurm", bf_interval=np.float64(2.5))


# -- section 16: Action(at=...) as a duration ------------------------------------------------


@pytest.mark.parametrize("at", ["1h", "1:00:00", timedelta(hours=1), np.int64(3600)])
def test_an_actions_time_is_read_as_the_apis_other_times(at):
    """Action("1h", ...) raised a raw TypeError inside simulate."""
    work = Workload([WorkloadJob(_long(), runtime=7200)])
    result = simulate("tiny", work, actions=[Action(at, "cancel", "1")])
    row = result.jobs.iloc[0]
    assert row["State"].startswith("CANCELLED")
    assert (row["End"] - row["Start"]).total_seconds() == 3600


def _long() -> JobSpec:
    return JobSpec.from_args("-n 1 -t 3:00:00")


@pytest.mark.parametrize(
    ("at", "why"),
    [(None, "give seconds"), (-5, "must not be negative"), ("soon", "give seconds")],
)
def test_an_unreadable_action_time_is_refused(at, why):
    work = Workload([WorkloadJob(_long(), runtime=7200)])
    with pytest.raises(SlurmlabError, match=rf"invalid action cancel 1: at .*{why}"):
        simulate("tiny", work, actions=[Action(at, "cancel", "1")])


# -- section 18: Scenario.load given text, a dict or None -----------------------------------


def test_scenario_load_given_a_document_says_to_use_from_dict():
    text = (ROOT / "course" / "scenarios" / "backfill-basics.yaml").read_text()
    with pytest.raises(ScenarioError, match=r"has lines: it looks like a scenario's text; use "):
        Scenario.load(text)
    with pytest.raises(ScenarioError, match=r"not a dict: .* use Scenario.from_dict\(doc\)"):
        Scenario.load(yaml.safe_load(text))
    with pytest.raises(ScenarioError, match=r"Scenario.load\(None\): give a scenario file's path"):
        Scenario.load(None)
    with pytest.raises(ScenarioError, match=r"File name too long; Scenario.load takes a file's"):
        Scenario.load("x" * 5000)
    assert Scenario.from_dict(yaml.safe_load(text)).name == "backfill-basics"


# -- section 20: Lab(policy=None), a policy class, Lab's unknown keywords --------------------


def test_a_policy_that_is_none_or_a_class_is_refused_at_construction():
    with pytest.raises(SlurmlabError, match=r"Lab\(policy=None\): give a policy name"):
        Lab("tiny", None)
    work = Workload([WorkloadJob(ONE)])
    for make in (lambda: simulate("tiny", work, Easy), lambda: Lab("tiny", Easy)):
        with pytest.raises(
            SlurmlabError,
            match=r"\(policy=Easy\): Easy is a policy class, not a policy "
            r"object; give Easy\(\)",
        ):
            make()
    assert Lab("tiny", Easy()).result.policy == "easy"  # (its name, as simulate labels it)


def test_lab_names_a_misspelt_keyword_as_simulate_does():
    with pytest.raises(SlurmlabError, match=r"Lab\(\) has no keyword seeds=: did you mean seed=\?"):
        Lab("tiny", seeds=1)
    with pytest.raises(
        SlurmlabError,
        match=r"policy 'slurm' has no parameter bf_intervall \(did you mean bf_interval\?\); "
        r"it takes .*, and Lab's own keywords are policy, seed, ",
    ):
        Lab("tiny", "slurm", bf_intervall=3)


# -- section 21: srun_env numbers and nodes; a trace wider than the cluster -----------------


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"job_id": 42.7}, r"invalid srun_env: job_id 42.7: give a whole number"),
        ({"job_id": None}, r"invalid srun_env: job_id None: give a whole number"),
        ({"cpus": [8.5, 8]}, r"invalid srun_env: cpus entry 8.5: give a whole number"),
        ({"cpus": 8}, r"srun_env: cpus=8: give the CPUs .* as a list"),
    ],
)
def test_srun_env_refuses_numbers_that_are_not_whole(kw, message):
    """job_id=42.7 gave SLURM_JOB_ID 42 and cpus=[8.5, 8] SLURM_CPUS_ON_NODE 8."""
    with pytest.raises(SlurmlabError, match=message):
        srun_env(JobSpec.from_args("-N 2 -n 2"), "node[1-2]", **{"job_id": 1, **kw})


def test_srun_env_keeps_whole_numbers_given_otherwise():
    env = srun_env(JobSpec.from_args("-N 2 -n 2"), "node[1-2]", 42.0, cpus=np.array([4, 4]))
    assert env["SLURM_JOB_ID"].tolist() == [42, 42]
    assert env["SLURM_CPUS_ON_NODE"].tolist() == [4, 4]


def test_srun_env_refuses_nodes_the_cluster_does_not_have():
    job = JobSpec.from_args("-N 2 -n 2")
    with pytest.raises(
        SlurmlabError,
        match=r"srun_env: nodelist 'node\[1-2\]' names node\[1-2\], which cluster 'ai' does not "
        r"have \(it has cpu\[01-08\],gpu\[001-032\]\)",
    ):
        srun_env(job, "node[1-2]", cluster="ai")
    assert srun_env(job, "cpu[01-02]", cluster="ai")["SLURMD_NODENAME"].tolist() == [
        "cpu01",
        "cpu02",
    ]


def test_a_trace_wider_than_the_cluster_is_warned_about_once(tmp_path):
    """Jobs wider than the whole cluster stay PENDING for ever: one warning counts them."""
    records = "".join(
        f"{i} {i} 0 10 {w} -1 -1 {w} 60 -1 1 1 1 1 1 1 -1 -1\n"
        for i, w in enumerate([4, 100, 128, 8], start=1)
    )
    trace = read_swf(_trace(tmp_path, records, "; MaxProcs: 128\n"))
    with pytest.warns(UserWarning) as caught:
        result = simulate(swf_cluster(64), trace)
    wide = [str(w.message) for w in caught if "can never start" in str(w.message)]
    assert wide == [
        "simulate: 2 of the 4 jobs of trace 't.swf' ask for more processors than cluster 'swf' "
        "has (64 CPUs; the widest asks for 128): they can never start and stay PENDING; give a "
        "cluster of at least 128 CPUs (swf_cluster(workload): the trace's own machine), or drop "
        "them with read_swf(path, cluster=..., skip_invalid=True)"
    ]
    assert result.jobs["State"].tolist() == ["COMPLETED", "PENDING", "PENDING", "COMPLETED"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the trace's own machine: no warning)
        simulate(swf_cluster(trace), trace)


# -- docs item 1: what simulate --json's `dropped` counts ------------------------------------


def test_simulate_help_says_dropped_counts_every_job_the_reader_left_out(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "dropped jobs of an SWF trace left out when it was read: always those with no "
        "processors or an unknown run time (SWF -1), and with --skip-invalid those the machine "
        "cannot run (0 for a scenario)"
    ) in help_text
    assert "0 otherwise" not in help_text


# -- docs item 4: numeric array-task ids in scenario actions --------------------------------

_ACTIONS = """\
cluster: tiny
jobs:
  - {id: a, args: "-n 1 -t 10", runtime: 60}
  - {id: c, args: "-n 1 -t 10 --array=1-3", runtime: 60}
  - {id: b, args: "-n 1 -t 10", runtime: 60}
actions:
  - {at: 5, action: cancel, job: "TARGET"}
"""


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("2_9", r"JobID '2_9' is no task of the array 2 \(--array=1-3\)"),
        ("3_3", r"JobID '3_3' names task 3 of 3, which is not an array's JobID;"),
        ("1_1", r"JobID '1_1' names task 1 of 1, which is not an array's JobID"),
    ],
)  # fmt: skip
def test_a_numeric_array_task_an_action_names_is_checked_at_load(tmp_path, target, why):
    """ "c_9" was refused at load, while "2_9" (the same task by the array's JobID) loaded
    and was only warned about when the action fired."""
    path = tmp_path / "s.yaml"
    path.write_text(_ACTIONS.replace("TARGET", target))
    with pytest.raises(ScenarioError, match=rf"line 7: actions\[0\]: field 'job': {why}"):
        Scenario.load(path)


def test_a_numeric_array_task_that_exists_still_acts(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(_ACTIONS.replace("TARGET", "2_3"))
    jobs = Scenario.load(path).run().jobs
    assert jobs.set_index("JobID")["State"].to_dict() == {
        "a": "COMPLETED",
        "c_1": "COMPLETED",
        "c_2": "COMPLETED",
        "c_3": "CANCELLED",
        "b": "COMPLETED",
    }


# -- docs item 10: the SWF reader's number forms ---------------------------------------------


def test_swf_docstring_names_the_exponent_form_the_reader_accepts(tmp_path):
    assert "an exponent (``1e2``, ``1.5E+1``)" in " ".join(swf.__doc__.split())
    path = _trace(tmp_path, "1 0 0 1e2 4 -1 -1 4 1.5E+1 -1 1 1 1 1 1 1 -1 -1\n")
    job = read_swf(path).jobs[0]
    assert (job.runtime, job.spec.time_limit) == (100.0, timedelta(seconds=15))
