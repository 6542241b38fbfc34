"""Regressions from stop 23's review of the simulator as a learner, an instructor and a CLI
user would drive it (Lab, %%sbatch, scenarios, the CLI), and srun's CPU variables."""

from __future__ import annotations

import dataclasses
import sys
import warnings
from pathlib import Path

import pytest

import slurmlab
from slurmlab.cli import main
from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.sim.faults import RandomFailures

COURSE = Path(__file__).resolve().parents[1] / "course" / "scenarios"


def _requeued_lab():
    lab = slurmlab.Lab("tiny")
    jid = lab.sbatch("-N 1 -t 30 --wrap=x", runtime=600)
    lab.advance(100)
    lab.fail("node1", down_for="5m")
    lab.run()
    return lab, jid


def test_sacct_text_takes_fields_first_and_duplicates_by_keyword():
    """sacct_text("JobID,State") picks columns, as the module's sacct_text(jobs, fields)
    does; it used to land in ``duplicates`` (and turn on sacct -D) with the columns ignored."""
    lab, _ = _requeued_lab()
    text = lab.result.sacct_text("JobID,State").splitlines()
    assert text[0].split() == ["JobID", "State"]
    assert [line.split() for line in text[2:]] == [["1", "COMPLETED"]]
    every = lab.result.sacct_text("JobID,State", duplicates=True).splitlines()[2:]
    assert [line.split() for line in every] == [["1", "NODE_FAIL"], ["1", "COMPLETED"]]
    with pytest.raises(TypeError):
        lab.result.sacct_text("JobID", True)  # (keyword only)
    with pytest.raises(SlurmlabError, match="duplicates is True or False"):
        lab.result.sacct("JobID,State")
    assert len(lab.sacct(True)) == 2 and len(lab.sacct(False)) == 1


def _scenario(tmp_path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return slurmlab.Scenario.load(path)


ARRAY = """cluster: tiny
jobs:
  - {id: a, submit: 0, runtime: 600, args: '--array=1-3'}
  - {id: b, submit: 0, runtime: 600, args: '-n 1'}
actions:
"""


def test_an_action_on_an_array_task_the_array_lacks_is_refused_at_load(tmp_path):
    """The task is checked when the file loads (it was dropped at run time with a warning)."""
    with pytest.raises(ScenarioError, match=r"line 6: actions\[0\]: field 'job': job 'a' has "
                       r"no array task 7 \(--array=1-3\); name one of its tasks, e.g. a_1"):  # fmt: skip
        _scenario(tmp_path, ARRAY + "  - {at: 10, action: cancel, job: a_7}\n")
    with pytest.raises(ScenarioError, match="'b_1' names task 1 of job 'b', which is not an array"):
        _scenario(tmp_path, ARRAY + "  - {at: 10, action: cancel, job: b_1}\n")
    ok = _scenario(tmp_path, ARRAY + "  - {at: 10, action: cancel, job: a_2}\n")
    states = ok.run().jobs.set_index("JobID")["State"]
    assert states["a_2"] == "CANCELLED" and states["a_1"] == "COMPLETED"  # (scenario ids)


@pytest.mark.parametrize(
    "args", [["--gpus-per-node=2", "--gres=gpu:1"], ["--gres=gpu:1", "--gpus-per-node=2"]]
)
def test_gres_wins_over_gpus_per_node_whatever_their_order(args):
    """sbatch sends both in one per-node request, --gres last (slurm_opt.c: tres_per_node
    "gres:gpu:2,gpu:1"), and the controller keeps the last count (gres.c): --gres's 1."""
    with pytest.warns(UserWarning, match="--gres=gpu:1 and --gpus-per-node=2 both ask for GPUs"):
        spec = slurmlab.JobSpec.from_args([*args, "-N", "1"])
    assert spec.gpus_per_node == 1 and spec.to_args() == ["--nodes=1", "--gres=gpu:1"]
    script = "#!/bin/bash\n#SBATCH --gres=gpu:1\nsrun x\n"  # a script's --gres, then the CLI
    with pytest.warns(UserWarning, match="the --gres count is kept"):
        assert slurmlab.JobSpec.from_sbatch(script, "--gpus-per-node=2").gpus_per_node == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same option twice: the last wins, no warning
        assert slurmlab.JobSpec.from_args("--gpus-per-node=2 --gpus-per-node=3").gpus_per_node == 3


def test_a_failed_node_is_down_star_in_sinfo_and_a_configured_down_one_plain_down(tmp_path):
    """sinfo marks a node that does not respond with '*' (a failure); a node slurm.conf
    sets State=DOWN (its slurmd up) is plain 'down'."""
    lab = slurmlab.Lab("tiny")
    lab.fail("node2", down_for="30m")
    states = lab.sinfo().set_index("NODELIST")["STATE"]
    assert states["node2"] == "down*"
    # (first: sinfo sorts by the raw state, DOWN|NO_RESPOND 0x801 above IDLE 2)
    assert lab.result.sinfo_text().splitlines()[1].split()[4:] == ["down*", "node2"]
    lab.advance("30m")
    assert set(lab.sinfo()["STATE"]) == {"idle"}
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "ClusterName=c\nNodeName=n[1-2] CPUs=4 RealMemory=1000 State=UNKNOWN\n"
        "NodeName=n3 CPUs=4 RealMemory=1000 State=DOWN\n"
        "PartitionName=p Nodes=n[1-3] Default=YES MaxTime=1:00:00 State=UP\n"
    )
    configured = slurmlab.Lab(slurmlab.Cluster.from_slurm_conf(conf))
    assert configured.sinfo().set_index("NODELIST")["STATE"]["n3"] == "down"


def test_interval_errors_say_minus_one_is_allowed():
    with pytest.raises(SlurmlabError, match=r"bf_interval=0 must be -1 \(no backfill\) or a "
                       r"whole number from 1 to 10800"):  # fmt: skip
        slurmlab.Lab("tiny", policy="slurm", bf_interval=0)
    assert slurmlab.Lab("tiny", policy="slurm", bf_interval=-1).result.policy == "slurm"


def test_cli_cluster_errors_do_not_offer_python_objects(capsys):
    assert main(["sinfo", "nosuch"]) == 1
    err = capsys.readouterr().err
    assert "neither a preset (tiny, teaching, ai) nor a slurm.conf file that exists" in err
    assert "slurmlab.Cluster" not in err


def test_cli_summary_line_leaves_out_gpu_utilization_without_gpus(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(
        "; MaxProcs: 8\n"
        "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 10 0 50 8 -1 -1 8 100 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    assert main(["simulate", str(trace), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "utilization" in out and "GPU" not in out
    scenario = str(COURSE / "backfill-basics.yaml")
    assert main(["simulate", scenario, "--quiet"]) == 0
    assert "(GPU 52.8%)" in capsys.readouterr().out


def test_a_weibull_shape_with_the_exponential_distribution_is_an_error():
    with pytest.raises(SlurmlabError, match="shape 0.7 is a Weibull parameter, but the "
                       "distribution is exponential"):  # fmt: skip
        RandomFailures.from_dict({"mtbf": "1-00:00:00", "shape": 0.7})
    assert RandomFailures.from_dict({"mtbf": 86400, "shape": 1}).shape == 1.0
    weibull = {"mtbf": 86400, "shape": 0.7, "distribution": "weibull"}
    assert RandomFailures.from_dict(weibull).shape == 0.7


def test_why_pending_of_an_array_says_which_task_it_explains():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 1:00:00 --wrap=x", runtime=3000)
    jid = lab.sbatch("--array=1-4 -t 10 --wrap=x", runtime=600)
    lab.advance(10)
    assert lab.why_pending(jid).startswith(
        f"{jid} names 4 array tasks, 4 of them pending at t=10s (2026-01-05T00:00:10); about "
        f"its first pending "
        f"task, {jid}_1: Job {jid}_1 is pending (Resources)"
    )
    assert lab.why_pending(f"{jid}_[3-4]").startswith(
        f"{jid}_[3-4] names 2 array tasks, 2 of them pending at t=10s (2026-01-05T00:00:10); "
        f"about its first "
        f"pending task, {jid}_3: Job {jid}_3 is pending"
    )
    assert lab.why_pending(f"{jid}_3").startswith(f"Job {jid}_3 is pending (Resources)")


def test_sbatch_magic_warns_about_a_script_file_name_and_its_arguments(capsys):
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    lab = slurmlab.Lab("tiny")
    capsys.readouterr()
    ip.run_cell_magic(
        "sbatch", "train.sh -t 10", "#!/bin/bash\n#SBATCH -N 1\nsrun python train.py\n"
    )
    captured = capsys.readouterr()
    assert captured.out.strip().splitlines()[-1].startswith("Submitted batch job ")
    assert captured.err.strip() == (
        "sbatch: warning: 'train.sh' stands where sbatch takes the batch script's file name; "
        "%%sbatch submits the cell's script instead, in a job named after it ('train.sh'); "
        "the words after it (-t 10) are the script's arguments, not sbatch options: put "
        "options before it"
    )
    job = lab.sacct().iloc[-1]
    assert job["JobName"] == "train.sh" and job["Timelimit"] != "00:10:00"


def test_the_checkpoint_scenario_completes_without_failures_too():
    """Its baseline (no failures) finishes within the limit, so goodput comparisons start
    from a completed run (it timed out: 7 days of work under a 7-day limit)."""
    scenario = slurmlab.Scenario.load(COURSE / "checkpoint-256gpu.yaml")
    quiet = dataclasses.replace(scenario, random_failures=None).run()
    assert quiet.jobs["State"].tolist() == ["COMPLETED"]
    assert quiet.jobs["Elapsed"].iloc[0].total_seconds() == 6 * 86400 + 143 * 300


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        ("--gpus-per-node=3", "use --nodes=2 --gpus-per-node=2 (4 GPUs)"),
        ("--gres=gpu:5", "use --nodes=3 --gres=gpu:2 (6 GPUs)"),
        ("--gres=gpu:4", "use --nodes=2 --gres=gpu:2"),
    ],
)
def test_a_gpu_hint_keeps_the_option_used_and_says_a_different_total(args, hint):
    with pytest.raises(slurmlab.RequestError) as err:
        slurmlab.JobSpec.from_args(args).resources(slurmlab.Cluster.preset("tiny"))
    assert str(err.value).endswith(hint)


@pytest.mark.parametrize(
    ("jobs", "label"),
    [
        ("  - {id: x, runtime: 10, args: -n 1 --qos=urgent}\n", "jobs[0] (id 'x'): field 'args'"),
        (
            "  - {id: x, runtime: 10}\n  - {id: y, runtime: 10, args: --dependency=afterok:z}\n",
            "jobs[1] (id 'y'): field 'args'",
        ),
        ("  - {id: x, runtime: 10, user: bob, account: ops}\n", "jobs[0] (id 'x'): field 'acc"),
    ],
)
def test_every_job_error_names_the_entry_with_its_id(tmp_path, jobs, label):
    accounts = "accounts: [{name: llm, users: [alice]}]\n" if "ops" in jobs else ""
    with pytest.raises(ScenarioError, match=r": " + label.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):  # fmt: skip
        _scenario(tmp_path, f"cluster: tiny\n{accounts}jobs:\n{jobs}")


def test_simulate_points_a_sacct_export_to_summary_and_report(tmp_path, capsys):
    export = tmp_path / "jobs.psv"
    export.write_text("JobID|State|Elapsed\n1|COMPLETED|01:00:00\n")
    assert main(["simulate", str(export)]) == 1
    err = capsys.readouterr().err
    assert "looks like a sacct export (its first line is the header 'JobID|State|Elapsed')" in err
    assert f"`slurmlab summary {export}` or `slurmlab report {export}`" in err


def test_a_simulated_table_has_the_readers_dtypes_and_derived_columns():
    """Code written against an export runs on a simulation: the same text storage, and the
    columns the reader derives (GPUType, ArrayTasks, ExitStatus...), equal after a round trip
    through sacct text."""
    import io

    from slurmlab.records.sacct import DERIVED_COLUMNS, read_sacct, write_sacct

    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 --gres=gpu:1 -t 10 --wrap=x", runtime=60)
    lab.sbatch("--array=1-2 -n 1 -t 10 --wrap=x", runtime=30, exit_code=3)
    cancelled = lab.sbatch("-N 4 --exclusive -t 10 --wrap=x", runtime=60)
    lab.scancel(cancelled)
    lab.run()
    jobs = lab.sacct()
    assert jobs["GPUType"].fillna("-").tolist() == ["a100", "-", "-", "-"]
    assert jobs["ExitStatus"].tolist() == [0, 3, 3, 0] and jobs["ExitSignal"].tolist() == [0] * 4
    assert jobs["ArrayTasks"].tolist() == [1, 1, 1, 1]
    buf = io.StringIO()
    write_sacct(jobs, buf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = read_sacct(io.StringIO(buf.getvalue()))
    shared = [c for c in DERIVED_COLUMNS if c in jobs and c in back]
    assert {"GPUType", "ArrayTasks", "ExitStatus", "ExitSignal", "CancelledBy"} <= set(shared)
    for column in [*shared, "JobID", "State", "User", "NodeList", "AllocTRES"]:
        assert jobs[column].dtype == back[column].dtype, column
        assert jobs[column].equals(back[column]), column


# -- squeue --start's SCHEDNODES ---------------------------------------------------------------
BACKFILL = COURSE / "backfill-basics.yaml"


@pytest.mark.parametrize(
    ("policy", "big", "long"),
    [("fifo", None, None), ("easy", "node[1-4]", None), ("conservative", "node[1-4]", "node1"),
     ("slurm", "node[1-4]", "node4")],
)  # fmt: skip
def test_schednodes_are_the_nodes_a_planned_start_is_planned_on(policy, big, long):
    """At 100 s of backfill-basics the 4-node job waits for node[1-2] (running to 6000 s):
    EASY reserves node[1-4] for it alone, conservative and Slurm's backfill also plan the long
    job after it: conservative on node1 (the best fit once the running jobs have ended),
    Slurm's backfill on node4, the node free now (its try at the big job's end tests the
    running jobs' usage first: cons_common/job_test.c _will_run_test, as preempt-gpu's r on
    real Slurm); FIFO plans nothing. A running job has none (squeue: (null))."""
    result = slurmlab.Scenario.load(BACKFILL).run(policy=policy)
    queue = result.squeue(at=100).set_index("JOBID")
    assert queue.loc["big", "SCHEDNODES"] == big
    assert queue.loc["long", "SCHEDNODES"] == long
    assert queue.loc["running", "SCHEDNODES"] is None
    started = result.seconds("Start")[result.jobs["JobID"] == "big"].iloc[0]
    running = result.squeue(at=started + 1).set_index("JOBID").loc["big"]
    assert running["ST"] == "R" and running["SCHEDNODES"] is None
    text = result.squeue_text(at=100, start=True).splitlines()
    assert text[0].split()[-2] == "SCHEDNODES"
    assert [line.split()[-2] for line in text[1:] if line.split()[0] == "big"] == [big or "(null)"]


def _schednodes_against_real_slurm():
    """(rows with a plan on either side, rows naming the same nodes) over every fixture's
    ``squeue --start -a -r`` snapshots (tools/realslurm/fidelity_counts.py, which README.md's
    "Fidelity at a glance" table quotes)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "realslurm"))
    from fidelity_counts import schednodes_against_real_slurm

    return schednodes_against_real_slurm()


def test_schednodes_against_real_slurms_squeue_start():
    """Of the pending rows of the fixtures' squeue --start snapshots with a plan on either
    side, how many name the same nodes (SCHEDNODES) as real Slurm's (README's "fidelity at a
    glance" table shows the count). Most of the rest are future reservations whose nodes
    Slurm picks with cons_common's _will_run_test (running jobs removed in batches of their
    ends, the known simplification), plans a snapshot caught between a backfill cycle and
    a main-scheduler pass on one side, and fixtures after they take another path
    (scorecard.DIVERGED). A change here is a change in fidelity: say why in the commit (the
    history of this count, fixture by fixture, is in this test's git log)."""
    assert _schednodes_against_real_slurm() == (2429, 1961)


def test_joined_simulations_do_not_warn_about_lost_steps():
    """A simulation's table has the reader's columns, so steps() must not take two joined
    simulations (their attrs dropped by pd.concat) for read_sacct tables that lost steps."""
    import pandas as pd

    first = slurmlab.Scenario.load(BACKFILL).run().jobs
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 5 --wrap=x", runtime=10)
    lab.run()
    second = lab.sacct()
    second.attrs["origin"] = pd.Timestamp("2030-01-01")  # (another start: attrs differ)
    joined = pd.concat([first, second], ignore_index=True)
    assert joined.attrs == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert slurmlab.analysis.summary(joined).jobs == 6
