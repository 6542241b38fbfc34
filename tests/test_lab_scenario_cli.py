"""Lab (the interactive cluster), the %%sbatch magic, scenario files and `slurmlab simulate`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

import slurmlab
from slurmlab.errors import RequestError, SbatchError, ScenarioError, SlurmlabError
from slurmlab.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
BACKFILL = ROOT / "course" / "scenarios" / "backfill-basics.yaml"


# -- Lab ---------------------------------------------------------------------------------------
def test_lab_sbatch_starts_a_fitting_job_at_once():
    """A job that fits is RUNNING as soon as sbatch returns (the instant's pass has run)."""
    lab = slurmlab.Lab("tiny")
    jid = lab.sbatch("-N 1 --gres=gpu:2 -t 10", runtime=300)
    q = lab.squeue()
    assert q.loc[str(jid) == q.JOBID, "ST"].item() == "R"


def test_lab_advance_and_sacct():
    """advance() moves simulated time; sacct() shows finished jobs with their times."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-N 4 --gres=gpu:2 -t 60", runtime=3000)
    b = lab.sbatch("#!/bin/bash\n#SBATCH -N 1 --gres=gpu:1 -t 10\nsrun eval.py\n", runtime=300)
    assert lab.squeue().set_index("JOBID").loc[str(b), "NODELIST(REASON)"] == "(Resources)"
    lab.advance("1h")
    assert lab.now == 3600
    jobs = lab.sacct().set_index("JobID")
    assert jobs.loc[str(a), "State"] == "COMPLETED"
    assert jobs.loc[str(b), "Start"] == jobs.loc[str(a), "End"]
    assert (jobs.loc[str(b), "End"] - jobs.loc[str(b), "Start"]) == pd.Timedelta(seconds=300)


def test_lab_scancel_pending_and_running():
    """scancel ends a running job CANCELLED (its row 0:0, as sacct's allocation line) and a
    pending one CANCELLED before it starts."""
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("-N 4 --exclusive -t 60", runtime=3000)
    b = lab.sbatch("-N 4 --exclusive -t 60", runtime=3000)
    lab.scancel(b)
    lab.advance(100)
    lab.scancel(a)
    jobs = lab.sacct().set_index("JobID")
    assert jobs.loc[str(b), "State"] == "CANCELLED" and pd.isna(jobs.loc[str(b), "Start"])
    assert jobs.loc[str(a), "State"] == "CANCELLED" and jobs.loc[str(a), "ExitCode"] == "0:0"


def test_lab_run_backwards_is_an_error():
    """Time only moves forward."""
    lab = slurmlab.Lab("tiny")
    lab.advance(100)
    with pytest.raises(SlurmlabError, match="already at"):
        lab.run(until=50)


def test_lab_rejects_impossible_requests_in_slurms_words():
    """sbatch rejects what no node can hold: 'Requested node configuration is not available'."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        lab.sbatch("--gres=gpu:4")


def test_sbatch_cell_magic_submits_to_the_current_lab(capsys):
    """%%sbatch submits the cell's script to the last Lab and prints 'Submitted batch job N'."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    lab = slurmlab.Lab("tiny")
    ip.run_cell_magic("sbatch", "--runtime 120", "#!/bin/bash\n#SBATCH -N 2 -t 5\nsrun hostname\n")
    assert "Submitted batch job 1" in capsys.readouterr().out
    assert lab.squeue().JOBID.tolist() == ["1"]


def test_sbatch_magic_takes_command_line_options_and_prints_sbatchs_errors(capsys):
    """``%%sbatch -J eval -N 1 --runtime=30m`` overrides the #SBATCH lines, as sbatch's command
    line does; a request sbatch rejects prints its error line and submits nothing."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    lab = slurmlab.Lab("tiny")
    ip.run_cell_magic(
        "sbatch", "-J eval -N 1 --runtime=30m", "#!/bin/bash\n#SBATCH -N 2 -t 60\nsrun eval.py\n"
    )
    assert "Submitted batch job 1" in capsys.readouterr().out
    row = lab.squeue().iloc[0]
    assert (row.NAME, row.NODES) == ("eval", 1)
    # slurmctld's refusal is "Batch job submission failed"; sbatch's own errors are not
    for line, needle, refused in (
        ("--gres=gpu:4", "Requested node configuration is not available", True),
        ("--bogus", "unrecognized option --bogus", False),
        ("--runtime", "--runtime needs a duration", False),
        ("-J 'open", "No closing quotation", False),
    ):
        ip.run_cell_magic("sbatch", line, "#!/bin/bash\nsrun x\n")
        err = capsys.readouterr().err
        assert err.startswith("sbatch: error: ") and needle in err
        assert ("Batch job submission failed: " in err) == refused
    lab.advance("1h")
    assert lab.sacct().JobID.tolist() == ["1"]


def test_why_pending_suggests_a_shorter_time_limit():
    """A job that fits now but would delay a reservation is told the -t that lets it backfill."""
    r = Scenario.load(BACKFILL).run("easy")
    text = r.why_pending("long", at=100)
    assert "Priority" in text and "-t 1:38:00" in text
    assert "Dependency" in r.why_pending("report", at=100)


# -- scenarios ---------------------------------------------------------------------------------
def test_backfill_basics_under_every_policy():
    """The course scenario: 'short' backfills under easy/conservative/slurm, never under fifo."""
    s = Scenario.load(BACKFILL)
    starts = {p: s.run(p).seconds("Start").tolist() for p in ("fifo", "easy", "conservative")}
    assert starts["fifo"] == [0.0, 3000.0, 3600.0, 3600.0, 3600.0]
    assert starts["easy"] == [0.0, 3000.0, 20.0, 3600.0, 3600.0]
    assert starts["conservative"] == starts["easy"]
    slurm = s.run("slurm").seconds("Start").tolist()
    assert slurm[2] == 30.0  # the next bf_interval (30 s) after its submission


def test_scenario_errors_name_the_entry_and_field(tmp_path):
    """Invalid documents get errors naming the entry and the field."""
    bad = {"cluster": "tiny", "jobs": [{"id": "x", "submit": 0, "runtime": 10, "args": "-c 64"}]}
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(bad))
    with pytest.raises(ScenarioError, match=r"jobs\[0\] \(id 'x'\): field 'args'"):
        Scenario.load(p)
    bad["jobs"][0] = {"id": "x", "submit": "soon", "runtime": 10, "args": "-N 1"}
    p.write_text(yaml.safe_dump(bad))
    with pytest.raises(ScenarioError, match="field 'submit'"):
        Scenario.load(p)
    bad["jobs"][0] = {"id": "x", "runtime": 10, "args": "-N 1", "colour": "red"}
    p.write_text(yaml.safe_dump(bad))
    with pytest.raises(ScenarioError, match="unknown field"):
        Scenario.load(p)
    p.write_text(yaml.safe_dump({"cluster": "huge", "jobs": [{"runtime": 1}]}))
    with pytest.raises(ScenarioError, match="not a preset"):
        Scenario.load(p)


def test_scenario_accepts_json_and_slurm_conf_relative_to_the_file(tmp_path):
    """JSON is YAML; {slurm_conf: PATH} is read relative to the scenario file."""
    (tmp_path / "c.conf").write_text(
        "NodeName=n[1-2] CPUs=4 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES\n"
    )
    doc = {
        "cluster": {"slurm_conf": "c.conf"},
        "policy": {"name": "fifo"},
        "jobs": [{"id": "a", "submit": "0:00:10", "runtime": 5, "args": "-n 4"}],
    }
    (tmp_path / "s.json").write_text(json.dumps(doc))
    r = Scenario.load(tmp_path / "s.json").run()
    assert r.seconds("Start").tolist() == [10.0]
    assert r.jobs.NodeList.tolist() == ["n1"]


def test_scenario_actions_cancel_and_drain():
    """Scripted actions: drain keeps new jobs off a node; cancel ends a job."""
    doc = {
        "cluster": "tiny",
        "jobs": [
            {"id": "a", "submit": 0, "runtime": 100, "args": "-N 1 -t 10"},
            {"id": "b", "submit": 50, "runtime": 100, "args": "-N 4 -t 10"},
        ],
        "actions": [{"at": 10, "action": "drain", "node": "node4"}],
    }
    r = Scenario.from_dict(doc).run()
    assert r.jobs.set_index("JobID").loc["b", "State"] == "PENDING"
    assert "drain" in r.sinfo(at=20).STATE.tolist()


# -- the CLI ---------------------------------------------------------------------------------
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "slurmlab", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_simulate_json_and_jobs_out(tmp_path):
    """--json prints the metrics; --jobs-out writes seconds from the scenario start."""
    out = tmp_path / "jobs.csv"
    p = run_cli(
        "simulate", str(BACKFILL), "--policy", "easy", "--json", "--quiet", "--jobs-out", str(out)
    )
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    for key in (
        "jobs",
        "mean_wait_s",
        "mean_bounded_slowdown",
        "utilization",
        "makespan_s",
        "backfilled",
        "wall_s",
    ):
        assert key in m
    assert m["jobs"] == 5 and m["backfilled"] == 1
    jobs = pd.read_csv(out)
    assert jobs.set_index("JobID").loc["short", "Start"] == 20.0
    assert {"JobID", "Submit", "Start", "End", "State", "NodeList"} <= set(jobs.columns)


def test_cli_simulate_swf(tmp_path):
    """An SWF trace runs on a pool of MaxProcs processors; --procs overrides; wide jobs error."""
    swf = tmp_path / "t.swf"
    swf.write_text(
        "; MaxProcs: 4\n"
        "1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 10 -1 50 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"
        "3 20 -1 30 2 -1 -1 8 100 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    p = run_cli("simulate", str(swf), "--json", "--quiet")
    assert p.returncode == 1 and "job 3" in p.stderr and "--skip-invalid" in p.stderr
    p = run_cli("simulate", str(swf), "--json", "--quiet", "--skip-invalid")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"] == 2
    p = run_cli("simulate", str(swf), "--json", "--quiet", "--procs", "8")
    assert json.loads(p.stdout)["jobs"] == 3


def test_cli_simulate_missing_input():
    """A missing input is one clear error line and exit code 1."""
    p = run_cli("simulate", "nope.yaml")
    assert p.returncode == 1 and "does not exist" in p.stderr
    p = run_cli("simulate", str(BACKFILL), "--cluster", "nope", "--quiet")
    assert p.returncode == 1 and "'nope' is neither a preset (tiny" in p.stderr


def test_nodelist_and_exclude_choose_the_nodes():
    """-w runs the job on exactly the listed nodes (all of them without -N); -x keeps it off some."""
    doc = {
        "cluster": "tiny",
        "jobs": [
            {"id": "a", "runtime": 100, "args": "-N 1 -w node3"},
            {"id": "b", "submit": 1, "runtime": 10, "args": "-w node[1-2]"},
            {"id": "c", "submit": 2, "runtime": 10, "args": "-N 1 -x node[1-3]"},
        ],
    }
    r = Scenario.from_dict(doc).run()
    assert r.jobs.NodeList.tolist() == ["node3", "node[1-2]", "node4"]
    with pytest.raises(ScenarioError, match="names 1 node but --nodes=2"):
        Scenario.from_dict({"cluster": "tiny", "jobs": [{"runtime": 1, "args": "-N 2 -w node1"}]})


def test_partition_defmempercpu_wins_over_the_global_default():
    """A partition's DefMemPerCPU sets the default memory of its jobs (slurm.conf(5)); without
    any default and with CR_Core_Memory a job gets the whole node's memory."""
    conf = (
        "SelectTypeParameters=CR_Core_Memory\n"
        "NodeName=n[1-2] CPUs=32 RealMemory=128000\n"
        "PartitionName=p Nodes=n1 DefMemPerCPU=1000 Default=YES\n"
        "PartitionName=q Nodes=n2\n"
    )
    cluster = slurmlab.Cluster.from_slurm_conf(conf)
    job = slurmlab.JobSpec.from_args("-n 4")
    assert job.resources(cluster).mem_per_node_mb == 4000
    assert slurmlab.JobSpec.from_args("-n 4 -p q").resources(cluster).mem_per_node_mb == 128000


def test_kill_invalid_depend_cancels_a_job_whose_dependency_failed():
    """DependencyParameters=kill_invalid_depend: a job whose dependency can never be satisfied
    is cancelled at once (as real Slurm does) instead of pending with DependencyNeverSatisfied."""
    conf = "DependencyParameters=kill_invalid_depend\nNodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Default=YES\n"
    workload = slurmlab.Workload(
        (
            slurmlab.WorkloadJob(
                slurmlab.JobSpec.from_args("-n 1"), 0, 10, id="fails", exit_code=1
            ),
            slurmlab.WorkloadJob(
                slurmlab.JobSpec.from_args("-n 1 --dependency=afterok:fails"), 1, 10, id="never"
            ),
        )
    )
    jobs = slurmlab.simulate(slurmlab.Cluster.from_slurm_conf(conf), workload).jobs.set_index(
        "JobID"
    )
    assert jobs.loc["never", "State"] == "CANCELLED" and pd.isna(jobs.loc["never", "Start"])
    assert (jobs.loc["never", "End"] - jobs.loc["fails", "Start"]).total_seconds() == 10


def test_a_drained_node_that_fails_comes_back_drained():
    """A repair returns an admin-drained node to DRAIN, not to service."""
    doc = {
        "cluster": "tiny",
        "jobs": [{"id": "a", "submit": 100, "runtime": 10, "args": "-N 4"}],
        "actions": [{"at": 10, "action": "drain", "node": "node4"}],
        "failures": [{"node": "node4", "at": 20, "down_for": 30}],
    }
    r = Scenario.from_dict(doc).run()
    states = r.sinfo(at=60).set_index("NODELIST").STATE.to_dict()
    assert states["node4"] == "drain"
    assert r.jobs.State.tolist() == ["PENDING"]


def test_random_failures_stop_when_only_limit_held_jobs_remain():
    """A job held by a QOS limit with nothing running can never start: random failures do not
    keep the simulation going for ever."""
    doc = {
        "cluster": "tiny",
        "qos": [{"name": "tight", "max_tres_per_user": "gres/gpu=1"}],
        "jobs": [{"id": "a", "runtime": 10, "args": "-N 1 --gres=gpu:2 -q tight"}],
        "random_failures": {"mtbf": 3600, "repair": 60, "seed": 1},
    }
    r = Scenario.from_dict(doc).run()
    assert r.jobs.State.tolist() == ["PENDING"]
    assert r.jobs.Reason.tolist() == ["QOSMaxGRESPerUser"]


def test_req_node_not_avail_while_too_few_nodes_are_up():
    """A job whose usable nodes are down or drained pends with ReqNodeNotAvail (and blocks no
    one); it starts once they are back."""
    doc = {
        "cluster": "tiny",
        "jobs": [
            {"id": "pinned", "submit": 20, "runtime": 10, "args": "-w node4"},
            {"id": "other", "submit": 30, "runtime": 10, "args": "-N 1"},
        ],
        "actions": [
            {"at": 10, "action": "drain", "node": "node4"},
            {"at": 100, "action": "resume", "node": "node4"},
        ],
    }
    r = Scenario.from_dict(doc).run("fifo")
    q = r.squeue(at=50).set_index("JOBID")
    assert q.loc["pinned", "NODELIST(REASON)"] == "(ReqNodeNotAvail, UnavailableNodes:node4)"
    starts = dict(zip(r.jobs.JobID, r.seconds("Start")))
    assert starts == {"pinned": 100.0, "other": 30.0}


# -- times given to squeue(at=), why_pending(at=), run(until=) -----------------------------------
def test_times_read_the_same_everywhere():
    """A string of digits is seconds (not a year), wherever a time is taken; a date and
    time counts from the start; anything else is a clear error."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 --exclusive -t 60", runtime="1h")
    j = lab.sbatch("-N 1 -t 10", runtime=60)
    lab.run()
    r = lab.result
    for at in ("1000", 1000, "16:40", "2026-01-05T00:16:40", pd.Timestamp("2026-01-05 00:16:40")):
        q = r.squeue(at=at)
        assert list(q["JOBID"]) == [str(j), "1"], at  # (squeue lists pending jobs first)
        assert q["TIME"].iloc[1] == "16:40", at
    assert "is pending (Resources)" in r.why_pending(j, at="3599")
    assert "is running at t=3600s" in r.why_pending(j, at="1:00:00")
    assert r.sinfo(at="3600").equals(r.sinfo(at=3600))
    for bad in ("banana", "2026-13-45", "-5"):
        with pytest.raises(SlurmlabError, match="invalid at"):
            r.squeue(at=bad)
    lab2 = slurmlab.Lab("tiny")
    lab2.run(until="2026-01-05T01:00")
    assert lab2.now == 3600
    with pytest.raises(SlurmlabError, match="already at"):
        lab2.run(until="2026-01-05T00:30")


# -- what sbatch itself would refuse or misread ----------------------------------------------------
def test_a_script_without_an_interpreter_line_is_refused_as_sbatch_does(capsys):
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SbatchError, match="first line must start with #!"):
        lab.sbatch("#SBATCH -N 1\nsrun hostname\n")
    assert lab.sbatch("\n#!/bin/bash\n#SBATCH -N 2\nsrun hostname\n") == 1  # blank lines first
    assert lab.sacct()["NNodes"].tolist() == [2]


def test_a_leading_sbatch_word_is_the_command_and_options_after_a_script_are_its_own():
    lab = slurmlab.Lab("ai")
    j = lab.sbatch("sbatch -N 4 --gres=gpu:8 -t 2:00:00 -p train")
    row = lab.sacct().set_index("JobID").loc[str(j)]
    assert (row["NNodes"], row["Timelimit"]) == (4, pd.Timedelta(hours=2))
    with pytest.warns(UserWarning, match="script's own arguments"):
        k = lab.sbatch("train.sh -N 4")
    assert lab.sacct().set_index("JobID").loc[str(k), "NNodes"] == 1


def test_scancel_takes_task_lists_and_warns_about_ended_jobs():
    lab = slurmlab.Lab("tiny")
    a = lab.sbatch("--array=1-5 -N 4 --exclusive -t 10", runtime=60)
    lab.scancel(f"{a}_[2-3,5]")
    acct = lab.sacct().set_index("JobID")["State"]
    assert [acct[f"{a}_{t}"] for t in (2, 3, 5)] == ["CANCELLED"] * 3
    assert list(lab.squeue()["JOBID"]) == [f"{a}_4", f"{a}_1"]  # (pending, then running)
    lab.run()
    with pytest.warns(UserWarning, match="Job/step already completing or completed"):
        lab.scancel(f"{a}_1")
    assert lab.sacct().set_index("JobID").loc[f"{a}_1", "State"] == "COMPLETED"
    with pytest.raises(SlurmlabError, match="Invalid job id"):
        lab.scancel(f"{a}_[7]")


def test_times_beyond_what_was_simulated_or_before_it_are_refused():
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 2:00:00", runtime=7200)
    lab.advance("1h")
    with pytest.raises(SlurmlabError, match="after the time the simulation has reached"):
        lab.result.squeue(at="2026-01-06")
    with pytest.raises(SlurmlabError, match="give a time"):
        lab.result.squeue(at=float("inf"))
    lab.run(until=float("inf"))  # for ever: until everything has ended
    assert lab.sacct()["State"].tolist() == ["COMPLETED"]
    assert len(lab.result.squeue(at="2026-01-06")) == 0  # finished: any later time is fine
    with pytest.raises(SlurmlabError, match="before the simulation's start"):
        slurmlab.simulate("tiny", slurmlab.ai_workload(5, "tiny"), until="2025-01-01")
    with pytest.raises(SbatchError, match="without a timezone"):
        lab.sbatch("-t 10 --begin=2026-01-07T10:30Z")
    with pytest.raises(SlurmlabError, match="Job is pending execution"):
        j = lab.sbatch("-N 4 --exclusive -t 10 --begin=now+1hour", runtime=60)
        lab.requeue(j)


def test_a_node_failed_for_good_while_down_stays_down():
    lab = slurmlab.Lab("tiny")
    lab.fail("node1", down_for="1h")
    lab.fail("node1")  # and now for good
    lab.advance("2h")
    assert lab.sim.node_state["node1"] == "DOWN"
