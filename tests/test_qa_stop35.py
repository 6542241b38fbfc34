"""Stop 35: findings, each with its input and exact outcome."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster, JobSpec
from slurmlab.errors import RequestError, SlurmlabError

AI = Cluster.preset("ai")  # cpu[01-08]: 128 CPUs, 512000 MB, DefMemPerCPU=8000 in cpu


def resolved(args: str, cluster: Cluster = AI):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = JobSpec.from_args(args.split()).resources(cluster)
    return res, [str(w.message) for w in caught]


def test_a_node_range_with_more_tasks_than_min_holds_is_no_longer_refused():
    """``-N 1-4 -n 200 -p cpu``: Slurm accepts it (200 CPUs, up to 4 nodes) and spreads the
    tasks; slurmlab refused it ("the job needs 200 CPUs per node ... largest node has 128").
    With DefMemPerCPU=8000 a node's 512000 MB hold 64 of its CPUs, so the tasks need 4
    nodes: 50 each, the shape Slurm gives on 4 free nodes (no warning: MAX is taken)."""
    res, said = resolved("-N 1-4 -n 200 -p cpu")
    assert (res.nodes, res.tasks_per_node, res.cpus_per_node) == (4, (50,) * 4, 50)
    assert res.mem_per_node_mb == 400000 and res.max_nodes is None
    assert said == []


def test_the_fewest_nodes_the_tasks_fit_on_is_said_in_the_warning():
    """With memory per node (``--mem=100G``) CPUs decide: 2 nodes of 100 tasks, and the
    warning says why it is not MIN."""
    res, said = resolved("-N 1-4 -n 200 -p cpu --mem=100G")
    assert (res.nodes, res.tasks_per_node) == (2, (100, 100))
    assert said == [
        "--nodes=1-4 with -n 200: slurmlab allocates 2 nodes (the fewest its tasks fit on), as "
        "its shape per node depends on the node count; Slurm takes up to 4 nodes when they are "
        "free and spreads the tasks over them; write --nodes=2 or --nodes=4 for a fixed count, "
        "or --ntasks-per-node for a shape per node"
    ]


def test_tasks_that_fit_on_min_still_get_min_with_the_warning():
    res, said = resolved("-N 1-4 -n 64 -p cpu")
    assert (res.nodes, res.tasks_per_node) == (1, (64,))
    assert said and "allocates 1 node (the minimum)" in said[0]


def test_tasks_that_do_not_fit_on_max_are_refused_with_maxs_shape():
    """``-N 1-2 -n 300``: even 2 nodes cannot hold 150 tasks each; the error names the
    shape on MAX nodes, not on MIN."""
    with pytest.raises(RequestError, match=r"needs 150 CPUs per node \(150 tasks of 1 CPU"):
        JobSpec.from_args(["-N", "1-2", "-n", "300", "-p", "cpu"]).resources(AI)


def test_max_array_size_is_the_clusters():
    """MaxArraySize in slurm.conf was warned about as not modelled and --array checked
    against Slurm's default (1001) whatever the file said: a 2,000-task sweep on a cluster
    with MaxArraySize=10001 was refused. slurmctld checks the indices at submission
    against the cluster's value (job_mgr.c _valid_array_inx), and so does slurmlab."""
    from slurmlab import Workload, WorkloadJob, simulate

    nodes = "NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"
    big = Cluster.from_slurm_conf("MaxArraySize=10001\n" + nodes)
    sweep = JobSpec.from_args(["--array=0-1999", "-n", "1", "-t", "1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "not modelled" warning any more)
        result = simulate(big, Workload((WorkloadJob(sweep, submit=0, runtime=1),)), "easy")
    assert len(result.jobs) == 2000
    with pytest.raises(RequestError) as default:
        sweep.resources(Cluster.from_slurm_conf(nodes))
    assert str(default.value).startswith(
        "--array=0-1999: index 1999 exceeds MaxArraySize=1001 of cluster 'slurm' (indices "
        "0..1000): Invalid job array specification; use indices below it, or raise "
        "MaxArraySize in the cluster's slurm.conf"
    )
    with pytest.raises(RequestError, match="MaxArraySize=0 turns job arrays off"):
        JobSpec.from_args(["--array=0-1"]).resources(
            Cluster.from_slurm_conf("MaxArraySize=0\n" + nodes)
        )


SCENARIO = """\
cluster: tiny
policy: {name: slurm, bf_max_job_user: 5, bf_window: 60}
jobs:
  - {id: a, submit: 0, runtime: 60, args: "-N 1 -t 5"}
"""


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from slurmlab.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_simulate_json_records_the_policys_parameters(tmp_path, capsys):
    """A what-if from the shell could not tell its runs apart: --json now has params."""
    import json

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    code, out, err = cli(capsys, "simulate", str(path), "--json", "--quiet")
    assert code == 0, err
    params = json.loads(out)["params"]
    assert (params["bf_max_job_user"], params["bf_window"], params["bf_interval"]) == (5, 60, 30.0)
    code, out, _err = cli(capsys, "simulate", str(path), "--json", "--quiet", "--policy", "easy")
    assert json.loads(out)["params"] == {}


def test_a_policy_from_the_command_line_says_it_leaves_the_scenarios_parameters_out(
    tmp_path, capsys
):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    code, _out, err = cli(capsys, "simulate", str(path), "--policy", "easy", "--quiet")
    assert code == 0
    assert (
        f"slurmlab: warning: {path}: --policy easy replaces the scenario's policy 'slurm', and "
        "its parameters (bf_max_job_user=5, bf_window=60) are left out: they are 'slurm''s"
    ) in err


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        (
            "SchedulerParameters=bf_interval =60",
            "(a space before '='? write SchedulerParameters=bf_interval=60 with no space)",
        ),
        (
            "SchedulerParameters=bf_interval=60, bf_max_job_user=5",
            "(a space after a comma? SchedulerParameters's list is one word: write "
            "SchedulerParameters=bf_interval=60,bf_max_job_user=5 with no space)",
        ),
    ],
)
def test_a_stray_space_in_a_slurm_conf_line_is_named(line, hint):
    """The errors said "'=60' is not Key=Value" or "put one global setting per line" of a
    line whose only fault is a space; they now say where the space is and how to write it."""
    from slurmlab.errors import ConfigError

    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(line + "\nNodeName=n1 CPUs=4\n")
    assert str(exc.value).startswith("slurm.conf line 1: ") and str(exc.value).endswith(hint)


@pytest.mark.parametrize(
    "line", ["SchedulerParameters= bf_interval=60\nNodeName=n9 CPUs =4", "NodeName=n9 CPUs= 4"]
)
def test_blanks_around_an_equals_sign_read_as_slurmctld_reads_them(line):
    """(stop 42) parse_config.c's keyvalue_pattern takes blanks around '=': these lines,
    refused until then, are what slurmctld reads."""
    cluster = Cluster.from_slurm_conf(line + "\nNodeName=n1 CPUs=4\n")
    assert cluster.node("n9").cpus == 4
    if "bf_interval" in line:
        assert cluster.scheduler_parameters == {"bf_interval": "60"}


def test_a_misspelt_policy_parameter_in_a_scenario_gets_a_did_you_mean(tmp_path):
    from slurmlab import Scenario
    from slurmlab.errors import ScenarioError

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.replace("bf_max_job_user", "bf_max_jobs_user"))
    with pytest.raises(
        ScenarioError, match=r"no parameter bf_max_jobs_user \(did you mean bf_max_job_user\?\)"
    ):
        Scenario.load(path)


def test_enable_user_top_is_a_permission_and_accepted_quietly():
    from slurmlab.sim.simulate import slurm_params

    cluster = Cluster.from_slurm_conf(
        "SchedulerParameters=enable_user_top,bf_max_job_array_resv=0\nNodeName=n1 CPUs=4\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert slurm_params(cluster) == {"bf_max_job_array_resv": 0}


def test_a_policy_parameter_from_the_command_line(tmp_path, capsys):
    """What-ifs from the shell needed a scenario file per variant: --param NAME=VALUE adds to
    or overrides the scenario's (and the cluster's SchedulerParameters); a name no policy
    takes is a usage error with a did-you-mean, and one the policy simulated does not take
    names the policy that does."""
    import json

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    code, out, err = cli(
        capsys, "simulate", str(path), "--json", "--quiet", "--param", "bf_max_job_user=7",
        "--param", "bf_min_age_reserve=600",
    )  # fmt: skip
    assert code == 0, err
    params = json.loads(out)["params"]
    assert (params["bf_max_job_user"], params["bf_min_age_reserve"], params["bf_window"]) == (
        7, 600, 60,
    )  # fmt: skip
    code, _out, err = cli(capsys, "simulate", str(path), "--param", "bf_max_jobs_user=3")
    assert code == 2
    assert "'bf_max_jobs_user' is no policy parameter (did you mean bf_max_job_user?)" in err
    code, _out, err = cli(capsys, "simulate", str(path), "--param", "bf_max_job_user")
    assert code == 2 and "'bf_max_job_user' is not NAME=VALUE" in err
    code, _out, err = cli(
        capsys, "simulate", str(path), "--quiet", "--policy", "easy", "--param", "bf_window=5"
    )
    assert code == 1 and "bf_window is a parameter of --policy slurm" in err


def test_a_node_range_with_tasks_on_nodes_of_different_sizes():
    """-N 1-5 -n 200 on one 128-CPU node and four of 64: the fewest nodes was taken from
    the largest node (2 nodes of 100 tasks, which only one node holds: refused); it is the
    fewest that enough nodes hold: 4 of 50."""
    cluster = Cluster.from_slurm_conf(
        "NodeName=big CPUs=128\nNodeName=s[1-4] CPUs=64\nPartitionName=p Nodes=ALL Default=YES\n"
    )
    res, _said = resolved("-N 1-5 -n 200", cluster)
    assert (res.nodes, res.tasks_per_node) == (4, (50,) * 4)


def test_an_arrays_throttle_is_changed_with_scontrol_update():
    """scontrol update JobId=12 ArrayTaskThrottle=N (a researcher's routine mid-sweep) was
    refused as "not one slurmlab changes"; lab.update(..., throttle=N), %scontrol update and
    a scenario update action set it (0: no limit), for the array (through one of its pending
    tasks Slurm 22.05 splits that task off and keeps the throttle: test_qa44_arrays)."""
    from slurmlab import Lab

    lab = Lab("tiny")
    array = lab.sbatch("--array=0-9%2 -n 1 -t 10", runtime=300)
    lab.advance("10s")
    assert lab.squeue_text().splitlines()[1].split()[0] == "1_[2-9%2]"
    lab.update(array, throttle=4)
    lab.advance("1s")
    assert lab.squeue_text().splitlines()[1].split()[0] == "1_[4-9%4]"
    assert (lab.sacct()["State"] == "RUNNING").sum() == 4
    lab.update(f"{array}_7", throttle=0)  # (1_7 split off its record: no array_recs)
    lab.advance("1s")
    assert (lab.sacct()["State"] == "RUNNING").sum() == 4
    lab.update(array, throttle=0)
    lab.advance("1s")
    assert (lab.sacct()["State"] == "RUNNING").sum() == 10
    with pytest.raises(SlurmlabError, match="give a whole number of tasks"):
        lab.update(array, throttle=-1)
    plain = lab.sbatch("-n 1 -t 10", runtime=10)
    lab.update(plain, throttle=2)  # (no array_recs: scontrol changes nothing, says nothing)


def test_a_scenario_can_update_an_arrays_throttle_and_cancel_a_range_of_tasks(tmp_path):
    """Scenario actions: update with throttle, and cancel of sweep_[3-5] (refused before:
    "no job 'sweep_[3-5]'", though lab.scancel takes it)."""
    from slurmlab import Scenario

    path = tmp_path / "sweep.yaml"
    path.write_text(
        "cluster: tiny\n"
        "jobs:\n"
        '  - {id: sweep, submit: 0, runtime: 600, args: "--array=1-8%2 -n 1 -t 20"}\n'
        "actions:\n"
        "  - {at: 100, action: update, job: sweep, throttle: 8}\n"
        '  - {at: 200, action: cancel, job: "sweep_[3-5]"}\n'
    )
    jobs = Scenario.load(path).run().jobs.set_index("JobID")
    origin = jobs["Submit"].min()
    starts = (jobs["Start"] - origin).dt.total_seconds()
    assert starts[["sweep_1", "sweep_2"]].tolist() == [0.0, 0.0]
    assert starts[["sweep_3", "sweep_8"]].tolist() == [100.0, 100.0]
    assert jobs.loc[["sweep_3", "sweep_4", "sweep_5"], "State"].tolist() == ["CANCELLED"] * 3
    assert jobs.loc["sweep_6", "State"] == "COMPLETED"


def test_srun_env_of_an_array_id_names_the_tasks_to_choose_from():
    """srun_env(ARRAY) silently gave task 0's environment (even long after it ended)."""
    from slurmlab import Lab

    lab = Lab("tiny")
    array = lab.sbatch("--array=0-3 -n 1 -t 10", runtime=600)
    lab.advance("1s")
    with pytest.raises(SlurmlabError) as exc:
        lab.srun_env(array)
    assert str(exc.value) == (
        "srun_env(1): it names 4 array tasks (running: 1_0, 1_1, 1_2, 1_3); give one task, "
        "e.g. srun_env('1_0') (srun runs in one job's allocation)"
    )
    env = lab.srun_env(f"{array}_2")
    assert env.loc[0, ["SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"]].tolist() == [1, 2]


def test_why_pending_names_memory_when_it_alone_holds_a_job_back():
    """Under CR_Core_Memory with no DefMemPerCPU each job gets a node's whole memory: a
    1-GPU sweep runs one task per 4-GPU node, and why_pending said "the resources it needs
    are busy ... it has to wait" of the rest, though only memory holds them back."""
    from slurmlab import Lab

    conf = (
        "GresTypes=gpu\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n"
        "NodeName=g[1-4] CPUs=32 RealMemory=64000 Gres=gpu:a100:4\n"
        "PartitionName=p Nodes=ALL Default=YES\n"
    )
    lab = Lab(Cluster.from_slurm_conf(conf), policy="slurm")
    array = lab.sbatch("--array=0-7 --gres=gpu:1 -t 20", runtime="15m")
    lab.advance("1s")
    why = lab.why_pending(array)
    assert (
        "What it waits for is memory: the CPUs and GPUs it needs are free now on enough "
        "nodes, but not 64000 MB per node (it asks for none and the cluster sets no "
        "DefMemPerCPU, DefMemPerGPU or DefMemPerNode, so it gets a node's whole memory); "
        "those nodes have no memory free: the jobs running there "
        "hold it all (a job that asks "
        "for none gets a node's whole memory here, as this one does), so it waits for one of "
        "them to end; give the jobs --mem (or the cluster DefMemPerCPU) so that several share "
        "a node."
    ) in why  # (stop 42: with less it could not start now either: no MB is free)
    assert "has to wait" not in why


def test_why_pending_before_any_backfill_cycle_says_when_the_first_runs():
    """Before any backfill cycle had run since a job was submitted, why_pending blamed
    bf_max_job_test (500) and bf_node_space_size with two jobs queued."""
    from slurmlab import Lab

    conf = "NodeName=n[1-4] CPUs=8\nPartitionName=p Nodes=ALL Default=YES\nSchedulerParameters=bf_interval=30\n"
    lab = Lab(Cluster.from_slurm_conf(conf), policy="slurm")
    lab.sbatch("-N 3 --exclusive -t 10", runtime=600)
    lab.sbatch("-N 4 -t 5", runtime=300)
    late = lab.sbatch("-N 1 --exclusive -t 30", runtime=1500)
    lab.advance("29s")
    assert lab.why_pending(late).endswith(
        "No backfill cycle has run since it became eligible at t=0s (2026-01-05T00:00:00): "
        "one runs bf_interval=30 s after the last, then at the first second something "
        "changed, and the next, at t=30s (2026-01-05T00:00:30), is the first that can test "
        "it (squeue "
        "--start shows N/A until a cycle gives it a start)."
    )


def test_an_exclusive_job_no_node_fits_pends_under_multifactor_priority_too():
    """-N 1 -n 4 --exclusive on a 2-CPU node pends for ever (PartitionConfig); under
    priority/multifactor its job-size factor took the largest CPU count of no node and
    the simulation crashed (ValueError: zero-size array)."""
    from slurmlab import Workload, WorkloadJob, simulate

    cluster = Cluster.from_slurm_conf(
        "PriorityType=priority/multifactor\nNodeName=n1 CPUs=2 RealMemory=8000\n"
        "PartitionName=a Nodes=n1 Default=YES MaxTime=INFINITE\n"
    )
    job = WorkloadJob(JobSpec.from_args(["-t", "4", "-N", "1", "-n", "4", "--exclusive"]), 0, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = simulate(cluster, Workload((job,)), "fifo").jobs.iloc[0]
    assert (row["State"], row["Reason"]) == ("PENDING", "PartitionConfig")
