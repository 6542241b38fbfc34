"""Stop 42's QA rounds (an AI-training user, a workshop instructor, an sacct analyst): the
findings fixed, each pinned to the behaviour Slurm (or the README) gives."""

from __future__ import annotations

import io
import re
import textwrap
import warnings

import pandas as pd
import pytest

from slurmlab import Lab, Scenario
from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.records.sacct import SacctParseError, concat_sacct, read_sacct
from slurmlab.sim.checkpoint import Checkpoint
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import parse_seconds


def _scenario(tmp_path, text: str, name: str = "s.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return Scenario.load(path)


# -- the simulator ------------------------------------------------------------------------------
def test_a_requeued_job_does_not_wait_for_its_fulfilled_dependency_again():
    """test_job_dependency flushes a fulfilled dependency list: after a node failure the
    singleton job restarts after the requeue delay, not when its namesake ends."""
    lab = Lab("ai", policy="slurm")
    a = lab.sbatch(
        "-N 1 --gpus-per-node=8 -t 2:00:00 -J chain --dependency=singleton --wrap=x",
        runtime="1h",
    )
    lab.sbatch("-N 1 --gpus-per-node=8 -t 2:00:00 -J chain --wrap=x", runtime="1h")
    lab.advance(30)
    lab.fail("gpu001", down_for="10m")
    lab.advance("3h")
    runs = lab.sacct(duplicates=True)
    mine = runs[runs["JobID"] == str(a)].sort_values("Start")
    assert mine["State"].tolist() == ["NODE_FAIL", "COMPLETED"]
    second = (mine["Start"].iloc[1] - mine["Start"].iloc[0]).total_seconds()
    # the failure, then the requeue delay (cred_lifetime + 1): eligible at 151 s, and, that
    # being no event under the slurm policy, started at the next periodic main-scheduler
    # pass, 180 s (sched_interval 60 s; real Slurm's failures fixture started it at 176 s)
    assert mine["Eligible"].iloc[1] - mine["Start"].iloc[0] == pd.Timedelta(seconds=30 + 121)
    assert second == 180


def _why_memory(running: str, waiting: str) -> str:
    """why_pending of a debug-partition job (``waiting``) behind two 4-GPU jobs
    (``running``) that fill the partition's two nodes' memory or part of it."""
    lab = Lab("ai", policy="slurm")
    for _ in range(2):
        lab.sbatch(f"-p debug -N 1 --gpus-per-node=4 {running} -t 1:00:00 --wrap=x", runtime="50m")
    b = lab.sbatch(f"-p debug -N 1 --gpus-per-node=4 {waiting} -t 30:00 --wrap=x", runtime="10m")
    lab.advance(60)
    return lab.why_pending(b)


def test_why_pending_says_which_memory_a_job_waits_for():
    text = _why_memory("--mem=0", "")
    assert "(it asks for none: the cluster's default for it)" in text
    assert "gets a node's whole memory" not in text  # (the preset sets DefMemPerCPU)
    assert "those nodes have no memory free" in text and "--mem=0" in text
    assert "could start now" not in text.split("Smallest changes")[0]
    text = _why_memory("--mem=900G", "--mem=200G")
    assert "not 204800 MB per node; with --mem=102400M per node or less it could start now" in text


CONSERVATIVE_GAP = """\
    cluster:
      nodes: [{name: "n[1-4]", cpus: 8, memory: 32000}]
      partitions: [{name: p, nodes: "n[1-4]", max_time: "1-00:00:00"}]
    policy: easy
    jobs:
      - {id: R, submit: 0, runtime: 600,  args: "-N 2 -t 10 --exclusive"}
      - {id: A, submit: 1, runtime: 600,  args: "-N 3 -t 10 --exclusive"}
      - {id: B, submit: 2, runtime: 600,  args: "-N 4 -t 10 --exclusive"}
      - {id: C, submit: 3, runtime: 1800, args: "-N 1 -t 30 --exclusive"}
    """


def test_why_pending_time_hint_counts_the_plans_on_the_nodes_the_job_could_use(tmp_path):
    """A's plan (600 s) holds n[1-3]; on n4 only B's (1200 s) comes: -t 19:00, not 9:00."""
    sc = _scenario(tmp_path, CONSERVATIVE_GAP)
    text = sc.run("conservative").why_pending("C", at=10)
    assert "with -t 19:00 (instead of 30:00) it would end before the next reservation" in text
    doc = (
        CONSERVATIVE_GAP.rstrip(" ")
        + '    actions: [{at: 10, action: update, job: C, time: "19:00"}]\n'
    )
    jobs = _scenario(tmp_path, doc, "u.yaml").run("conservative").jobs.set_index("JobID")
    assert (jobs.loc["C", "Start"] - jobs.loc["R", "Start"]).total_seconds() == 10
    assert jobs.loc["C", "NodeList"] == "n4"


MAINT = """\
    cluster:
      nodes: [{name: "n[1-4]", cpus: 8, memory: 32000, gres: "gpu:4"}]
      partitions: [{name: gpu, nodes: "n[1-4]", max_time: "1-00:00:00"}]
    policy: easy
    reservations:
      - {name: pm, start: "2:00:00", duration: "1:00:00", nodes: "n[1-4]", users: [root],
         flags: [maint]}
    jobs:
      - {id: fits, submit: 0, runtime: 1800, args: "-N 1 --gres=gpu:4 -t 1:00:00"}
      - {id: toolong, submit: 0, runtime: 1800, args: "-N 1 --gres=gpu:4 -t 3:00:00"}
      - {id: exact, submit: 0, runtime: 1800, args: "-N 1 --gres=gpu:4 -t 2:00:00"}
      - {id: later, submit: "1:30:00", runtime: 600, args: "-N 1 --gres=gpu:4 -t 20"}
    """


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_job_past_one_a_maintenance_window_keeps_out_is_not_backfilled(tmp_path, policy):
    """FIFO's pass goes past such a job too: every policy gives the same schedule, and none
    counts the starts past it as backfilled. toolong, which the window kept out, starts at
    the window's end (3:00:00): by that instant's pass, or under ``slurm`` by that instant's
    backfill cycle, as nothing calls Slurm's main scheduler at a reservation's end (real
    fixture maintenance: the jobs it held started by backfill), unless the periodic
    main-scheduler pass falls at that very second: every sched_interval (60 s) from
    slurmctld's start, so with slurmctld started with the scenario (0) it does, and
    toolong starts by the main scheduler; started 8 s before it (-8), it does not, and
    the backfill cycle that starts it is the first of the backfill thread's chain at or
    after 3:00:00: toolong pends throughout, so the thread runs a cycle every bf_interval
    (30 s) from slurmctld's start + 30 s (backfill.c backfill_agent: 22, 52, ...), and
    nothing wakes it at the window's end: 10,822 s."""
    scenario = _scenario(tmp_path, MAINT)
    result = scenario.run(policy, slurmctld_start=-8)
    held = "backfill" if policy == "slurm" else "main"
    assert result.metrics["backfilled"] == (held == "backfill")
    assert result.jobs["StartedBy"].tolist() == ["main", held, "main", "main"]
    toolong = 10822.0 if policy == "slurm" else 10800.0
    assert result.seconds("Start").tolist() == [0.0, toolong, 0.0, 5400.0]
    on_tick = scenario.run(policy, slurmctld_start=0)
    assert on_tick.jobs["StartedBy"].tolist() == ["main"] * 4
    assert on_tick.seconds("Start").tolist() == [0.0, 10800.0, 0.0, 5400.0]


# -- the sacct reader -------------------------------------------------------------------------
def test_a_row_whose_job_name_begins_with_a_hash_is_a_row(tmp_path):
    export = tmp_path / "x.psv"
    export.write_text(
        "JobName|JobID|State|Elapsed|NCPUS\n#exp1|1|COMPLETED|01:00:00|4\n"
        "exp2|2|COMPLETED|01:00:00|4\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read_sacct(export)
    assert jobs["JobName"].tolist() == ["#exp1", "exp2"]
    # the slow path (bytes that are not UTF-8) reads it alike
    export.write_bytes(export.read_bytes() + b"\xe9t\xe9|3|COMPLETED|01:00:00|4\n")
    with pytest.warns(UserWarning, match="Latin-1"):
        jobs = read_sacct(export)
    assert jobs["JobName"].tolist() == ["#exp1", "exp2", "\xe9t\xe9"]


def test_comment_lines_are_skipped_and_named(tmp_path):
    export = tmp_path / "x.psv"
    export.write_text(
        "# exported by me\nJobID|State|Elapsed|NCPUS\n1|COMPLETED|01:00:00|4\n\n# note\n"
        "#2|COMPLETED|01:00:00|4\n3|COMPLETED|01:00:00|4\n"
    )
    with pytest.warns(UserWarning) as caught:
        jobs = read_sacct(export)
    assert jobs["JobID"].tolist() == ["1", "3"]  # (a JobID beginning with '#' is no row)
    said = [str(w.message) for w in caught]
    assert any("skipped 3 '#' comment line(s), at line(s) 1, 5, 6" in m for m in said), said


def test_a_row_commented_out_stays_out(tmp_path):
    """``#PENDING|12|...``: the '#' is in State, which no row begins with."""
    export = tmp_path / "x.psv"
    export.write_text("State|JobID|Elapsed\nPENDING|12|00:00:00\n\n#PENDING|12|00:00:00\n")
    with pytest.warns(UserWarning, match="comment line"):
        jobs = read_sacct(export)
    assert jobs["JobID"].tolist() == ["12"]


HEADER = "JobID|JobIDRaw|Cluster|User|State|Submit|Start|End|Elapsed|NCPUS\n"


def test_one_job_id_on_two_clusters_is_two_jobs(tmp_path):
    alpha, beta = tmp_path / "alpha.psv", tmp_path / "beta.psv"
    alpha.write_text(
        HEADER + "100|100|alpha|alice|RUNNING|2024-03-05T10:00:00|2024-03-05T10:00:00|"
        "Unknown|01:00:00|4\n"
    )
    beta.write_text(
        HEADER + "100|100|beta|bob|COMPLETED|2024-03-05T10:00:00|2024-03-05T10:00:00|"
        "2024-03-05T11:00:00|01:00:00|4\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = read_sacct([alpha, beta])
    assert jobs[["Cluster", "User", "State"]].values.tolist() == [
        ["alpha", "alice", "RUNNING"],
        ["beta", "bob", "COMPLETED"],
    ]
    # the same cluster: one run, its most final row
    again = tmp_path / "again.psv"
    again.write_text(beta.read_text().replace("|beta|bob|", "|alpha|alice|"))
    with pytest.warns(UserWarning, match="appear in more than one export"):
        jobs = concat_sacct([read_sacct(alpha), read_sacct(again)])
    assert jobs["State"].tolist() == ["COMPLETED"]


def test_errors_coerce_says_what_it_kept_and_what_it_could_not(tmp_path):
    export = tmp_path / "x.psv"
    export.write_text(
        "JobID|State|Elapsed|ReqMem\n1|COMPLETED|01:00:00|4G\n2|COMPLETED|01:00:00|4Q\n"
        "3|COMPLETED|01:00\n4|COMPLETED|01:00:00|4G\n"
    )
    with pytest.warns(UserWarning) as caught:
        jobs = read_sacct(export, errors="coerce")
    assert jobs["JobID"].tolist() == ["1", "2", "4"]
    text = "\n".join(str(w.message) for w in caught)
    assert (
        "errors='coerce': kept 1 malformed row(s) with NA for the bad values, at line(s) 3; "
        "left out 1 row(s) that cannot be kept (no JobID or not a whole row), at line(s) 4:"
    ) in text
    assert "line 3, column ReqMem: '4Q'" in text and "line 4:" in text


def test_a_doubled_delimiter_is_named_as_the_delimiter(tmp_path):
    export = tmp_path / "x.psv"
    export.write_text("JobID;;State;;Elapsed\n1;;COMPLETED;;01:00:00\n")
    with pytest.raises(SacctParseError, match=re.escape("give delimiter=';;'")):
        read_sacct(export)
    assert read_sacct(export, delimiter=";;")["JobID"].tolist() == ["1"]


def test_gpus_read_from_a_request_alone_are_said_to_be_so():
    text = "JobID|State|Elapsed|ReqTRES\n1|COMPLETED|01:00:00|cpu=4,gres/gpu=2\n"
    with pytest.warns(UserWarning, match=r"no AllocTRES, so NGPUS .* \(ReqTRES\)"):
        jobs = read_sacct(io.StringIO(text))
    assert jobs["NGPUS"].tolist() == [2]
    with warnings.catch_warnings():  # with AllocTRES nothing is said
        warnings.simplefilter("error")
        read_sacct(io.StringIO(text.replace("ReqTRES", "AllocTRES")))


# -- scenarios, specs and durations -------------------------------------------------------------
def test_misspelled_fields_get_a_did_you_mean(tmp_path):
    with pytest.raises(ScenarioError, match=r"'runtim': did you mean 'runtime'\?"):
        _scenario(tmp_path, "jobs: [{id: a, submit: 0, runtim: 60, args: '-N 1 -t 5'}]\n")
    with pytest.raises(SlurmlabError, match=r"'intervall': did you mean 'interval'\?"):
        Checkpoint.from_dict({"intervall": "1h"})
    with pytest.raises(SlurmlabError, match=r"'writecost': did you mean 'write_cost'\?"):
        Checkpoint.from_dict({"interval": "1h", "writecost": 60})


def test_a_script_warning_names_the_scenario_file_line_and_job(tmp_path):
    doc = """\
        cluster: tiny
        jobs:
          - id: a
            submit: 0
            runtime: 60
            script: |
              #!/bin/bash
              srun python train.py
              #SBATCH -t 10
        """
    with pytest.warns(UserWarning) as caught:
        _scenario(tmp_path, doc)
    said = [str(w.message) for w in caught if "#SBATCH after" in str(w.message)]
    assert len(said) == 1
    assert said[0].startswith(f"{tmp_path / 's.yaml'} line 6: jobs[0] (id 'a'): field 'script': ")


def test_accounts_without_users_let_a_job_without_an_account_run(tmp_path):
    doc = """\
        cluster: tiny
        accounts: [{name: x}]
        jobs: [{id: a, submit: 0, runtime: 60, args: "-N 1 -t 5"},
               {id: b, submit: 0, runtime: 60, args: "-N 1 -t 5 -A x"}]
        """
    jobs = _scenario(tmp_path, doc).run().jobs
    assert jobs[["JobID", "Account", "State"]].values.tolist() == [
        ["a", "root", "COMPLETED"],
        ["b", "x", "COMPLETED"],
    ]
    listed = doc.replace("[{name: x}]", "[{name: x, users: [alice]}]")
    with pytest.raises(ScenarioError, match="has no association with account 'root'"):
        _scenario(tmp_path, listed, "listed.yaml")


def test_a_numeric_id_that_is_another_jobs_jobid_is_refused(tmp_path):
    doc = """\
        cluster: tiny
        jobs:
          - {id: a, submit: 0, runtime: 600, args: "-N 1 -t 15"}
          - {id: b, submit: 0, runtime: 600, args: "-N 1 -t 15"}
          - {id: 2, submit: 0, runtime: 600, args: "-N 1 -t 15"}
        """
    with pytest.raises(ScenarioError, match=r"'2' is also the JobID of jobs\[1\] \(id 'b'\)"):
        _scenario(tmp_path, doc)
    own = (
        doc.replace("{id: a,", "{id: 1,").replace("{id: b,", "{id: x,").replace("id: 2,", "id: 3,")
    )
    assert len(_scenario(tmp_path, own, "own.yaml").workload.jobs) == 3  # (its own JobIDs)


def test_durations_with_several_units():
    assert parse_seconds("2h30m") == 9000 and parse_seconds("1d 12h") == 129600
    assert parse_seconds("90m30s") == 5430
    with pytest.raises(SlurmlabError, match="give each unit once, the largest first"):
        parse_seconds("30m2h")
    lab = Lab("tiny")
    lab.advance("2h30m")
    assert lab.now == 9000


def test_gpus_per_node_survives_a_later_gres_of_another_kind():
    spec = JobSpec.from_args(["-N", "2", "--gpus-per-node=8", "--gres=nvme:1"])
    assert spec.gpus_per_node == 8 and [g.name for g in spec.other_gres] == ["nvme"]
    # (a later --gres replaces an earlier one whole, as sbatch's arg_set_gres does)
    assert JobSpec.from_args(["--gres=gpu:2", "--gres=nvme:1"]).gpus_per_node is None


def test_to_args_keeps_gpus_per_node_as_written():
    spec = JobSpec.from_args(["-N", "2", "--gpus-per-node=h100:8", "--ntasks-per-node=8"])
    args = spec.to_args()
    assert "--gpus-per-node=h100:8" in args and not any(a.startswith("--gres") for a in args)
    again = JobSpec.from_args(args)
    assert again == spec and again.gpus_per_node_option == "gpus-per-node"
    assert "#SBATCH --gpus-per-node=h100:8" in spec.to_sbatch()


def test_fewer_gpus_per_job_than_per_node_is_named_as_slurm_names_it():
    lab = Lab("ai")
    with pytest.raises(SlurmlabError) as info:
        lab.sbatch("-N 2 --gpus=4 --gpus-per-node=8 -t 10 --wrap=x")
    assert "Failed to ensure --gpus >= --gres=gpu/--gpus-per-node" in str(info.value)
    assert "ask --gpus=16, or leave --gpus out" in str(info.value)
    with pytest.raises(SlurmlabError, match="makes 1 node, but --nodes=2.*ask --gpus=16"):
        lab.sbatch("-N 2 --gpus=8 --gpus-per-node=8 -t 10 --wrap=x")
    assert lab.sbatch("-N 2 --gpus=16 --gpus-per-node=8 -t 10 --wrap=x") == 1


def test_one_export_of_two_clusters_counts_their_jobs_apart():
    """sacct -M alpha,beta: JobID 100 on each is two jobs, neither requeued."""
    from slurmlab import analysis

    text = (
        (
            HEADER + "100|100|alpha|alice|COMPLETED|2024-03-05T10:00:00|2024-03-05T10:00:00|"
            "2024-03-05T11:00:00|01:00:00|4\n"
            "100|100|beta|bob|FAILED|2024-03-05T10:30:00|2024-03-05T10:30:00|"
            "2024-03-05T11:00:00|00:30:00|4\n"
        )
        .replace("|NCPUS\n", "|NCPUS|AllocTRES\n")
        .replace("|4\n", "|4|cpu=4,gres/gpu=1\n")
    )
    jobs = read_sacct(io.StringIO(text))
    summary = analysis.summary(jobs)
    assert (summary.jobs, summary.runs) == (2, 2)
    assert summary.states == {"COMPLETED": 1, "FAILED": 1}
    with pytest.warns(UserWarning, match="no Restarts"):
        assert analysis.requeues(jobs).empty


def test_utilization_over_the_window_the_export_was_taken_for():
    """sacct -S 2024-03-01 lists a job submitted on 02-20: without the window, the days
    before read as nearly idle; with start=/end= they are not reported, and runs are cut."""
    from slurmlab import analysis

    head = "JobID|State|Partition|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES\n"
    rows = [
        "1|COMPLETED|gpu|2024-02-20T00:00:00|2024-02-28T00:00:00|2024-03-01T12:00:00|"
        "2-12:00:00|8|1|cpu=8,gres/gpu=8,node=1",
        "2|COMPLETED|gpu|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-02T00:00:00|"
        "1-00:00:00|8|1|cpu=8,gres/gpu=8,node=1",
    ]
    jobs = read_sacct(io.StringIO(head + "\n".join(rows) + "\n"))
    cap = {"gpu": {"cpus": 16, "gpus": 16, "nodes": 2}}
    whole = analysis.utilization(jobs, capacity=cap, freq="1D")
    assert whole["time"].min() == pd.Timestamp("2024-02-20")
    u = analysis.utilization(jobs, capacity=cap, freq="1D", start="2024-03-01", end="2024-03-02")
    gpus = u[u["resource"] == "gpus"]
    assert gpus["time"].tolist() == [pd.Timestamp("2024-03-01")]
    assert gpus["covered"].tolist() == [pd.Timedelta("1D")]
    assert gpus["used"].tolist() == [12.0]  # 8 all day + 8 for half of it
    with pytest.raises(SlurmlabError, match="is not a date and time"):
        analysis.utilization(jobs, capacity=cap, start="yesterday-ish")
    with pytest.raises(SlurmlabError, match="window .* is empty"):
        analysis.utilization(jobs, capacity=cap, start="2024-03-02", end="2024-03-01")


def test_small_reader_messages_say_what_was_written():
    with pytest.warns(UserWarning, match=r"a blank State \(read as 'UNKNOWN'\) \(line\(s\) 2\)"):
        read_sacct(io.StringIO("JobID|State|Elapsed\n1||01:00:00\n"))
    # a request below 1 MB is 1 MB: 0 would read as a node's whole memory
    jobs = read_sacct(io.StringIO("JobID|State|ReqMem\n1|COMPLETED|512K\n2|COMPLETED|0\n"))
    assert jobs["ReqMem"].tolist() == [1, 0]
    with pytest.warns(UserWarning, match="has a header but no rows"):
        assert read_sacct(io.StringIO("JobID|State|Elapsed\n")).empty


def test_an_export_mixing_epoch_seconds_and_written_dates_is_said_to():
    text = "JobID|State|Submit|Start\n1|COMPLETED|2024-01-01T00:00:00|1704067200\n"
    with pytest.warns(UserWarning) as caught:
        read_sacct(io.StringIO(text))
    assert any("mix epoch seconds and written dates" in str(w.message) for w in caught)
    with pytest.warns(UserWarning) as caught:  # one way only: not said
        read_sacct(io.StringIO(text.replace("2024-01-01T00:00:00", "1704067200")))
    assert not any("mix epoch" in str(w.message) for w in caught)


# -- figures --------------------------------------------------------------------------------------
def test_figures_with_nothing_to_draw_say_why():
    from slurmlab import analysis, viz

    lab = Lab("tiny")
    lab.sbatch("-N 4 --gres=gpu:2 -t 30 --wrap=x", runtime=1200)
    lab.sbatch("-N 4 --gres=gpu:2 -t 30 --wrap=x", runtime=1200)  # (pending behind it)
    jobs = lab.sacct()  # at 0: one running, one pending, none ended
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cost = analysis.failure_cost(jobs)
    said = viz.failure_figure(cost).layout.annotations
    assert [a.text for a in said] == ["No run failed: nothing to draw"]
    empty = analysis.wait_times(jobs).iloc[0:0]
    assert viz.wait_figure(empty).layout.annotations[0].text.startswith("No run has started")
    assert viz.states_figure({}).layout.annotations[0].text.startswith("No job has ended")
    assert not viz.states_figure({"COMPLETED": 1}).layout.annotations


def test_a_line_of_one_point_is_drawn_with_its_marker():
    from slurmlab import analysis, viz

    lab = Lab("tiny")
    lab.sbatch("-N 4 --gres=gpu:2 -t 30 --wrap=x", runtime=1200)
    lab.advance("25m")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        util = analysis.utilization(lab.sacct(), lab.cluster)
    trace = viz.utilization_figure(util).data[0]
    assert len(trace.x) == 1 and trace.mode == "lines+markers"


def test_memory_efficiency_of_a_simulation_is_refused_as_cpu_efficiency_is():
    from slurmlab import analysis

    result = Lab("tiny")
    result.sbatch("-N 1 -t 5 --wrap=x", runtime=60)
    result.advance(100)
    for measure in (analysis.cpu_efficiency, analysis.memory_efficiency):
        with pytest.raises(SlurmlabError, match="a simulation does not measure what jobs do"):
            measure(result.sacct())


# -- a learner's commands ---------------------------------------------------------------------
def test_scancel_of_an_unknown_id_speaks_as_scancel_does():
    lab = Lab("tiny")
    with pytest.raises(SlurmlabError) as info:
        lab.scancel(42)
    assert str(info.value).startswith(
        "scancel: error: Kill job error on job id 42: Invalid job id specified"
    )


def test_an_ambiguous_plural_option_suggests_the_plural():
    lab = Lab("ai")
    with pytest.raises(
        SlurmlabError, match=r"did you mean --gpus=1\? \(GPUs per job; per node: --gres=gpu:1\)"
    ):
        lab.sbatch("--gpu=1 -t 5 --wrap=x")
    with pytest.raises(SlurmlabError, match=r"did you mean --nodes=2\?"):
        lab.sbatch("--node=2 -t 5 --wrap=x")


def test_sacct_j_that_lists_nothing_says_why(capsys):
    from slurmlab.sim.magics import sacct_magic, scancel_magic

    lab = Lab("tiny")
    lab.sbatch("--array=0-9%2 -t 30 --wrap=x", runtime="20m")
    lab.advance("25m")
    scancel_magic("1_[7-9]")
    capsys.readouterr()
    sacct_magic("-j 999")
    _out, err = capsys.readouterr()
    assert err == "(slurmlab) sacct lists nothing for -j 999: no job 999 was submitted\n"
    sacct_magic("-j 1_7")
    _out, err = capsys.readouterr()
    assert "has no line of its own (%sacct --array lists every task)" in err
    sacct_magic("-j 1_0")
    _out, err = capsys.readouterr()
    assert err == ""


def test_why_pending_of_an_ended_job_says_when_it_ended():
    lab = Lab("tiny")
    done = lab.sbatch("-t 30 --wrap=x", runtime=600)
    lab.advance(1800)
    assert lab.why_pending(done) == (
        f"Job {done} is not pending: it ended COMPLETED at t=600s (2026-01-05T00:10:00)."
    )


# -- an administrator's slurm.conf -------------------------------------------------------------
def _conf(text: str):
    from slurmlab import Cluster

    return Cluster.from_slurm_conf(textwrap.dedent(text))


def test_continued_lines_join_as_slurm_joins_them():
    """parse_config.c: a trailing backslash joins the next line with nothing between, an
    escaped '#' is a '#', blanks may stand around '='."""
    c = _conf(
        """\
        SchedulerParameters= bf_window=100,\\
        bf_max_job_test=50
        NodeName=n[1-2] CPUs = 4 Reason=rack\\#3
        NodeName=n[3-4] CPUs=4 # a comment
        PartitionName=p Nodes=n[1-2],\\
        n[3-4] Default=YES
        """
    )
    assert c.scheduler_parameters == {"bf_window": "100", "bf_max_job_test": "50"}
    assert c.node("n1").cpus == 4
    assert c.partition("p").nodes == ("n1", "n2", "n3", "n4")


def test_an_empty_value_followed_by_an_option_is_read_as_slurm_reads_it():
    with pytest.warns(UserWarning, match=r"Features= Weight=5: with blanks after its '='"):
        c = _conf("NodeName=n1 CPUs=4 Features= Weight=5\nPartitionName=p Nodes=n1\n")
    assert c.node("n1").weight == 1  # (Weight=5 is the node's feature, as in slurmctld)


def test_booleans_node_states_and_old_names_as_slurmctld_reads_them():
    c = _conf(
        """\
        NodeName=n1 CPUs=4 State=DRAINED
        NodeName=n2 CPUs=4
        PartitionName=p Nodes=n1,n2 Default=1 Hidden=true Shared=EXCLUSIVE
        PartitionName=q Nodes=n2
        """
    )
    assert c.partition("p").default and c.node("n1").state == "DRAIN"
    shown = [line.split()[0] for line in c.sinfo_text().splitlines()[1:]]
    assert shown == ["q"]  # (p is hidden)
    assert c.partition("p").option("OverSubscribe") == "EXCLUSIVE"
    with pytest.raises(SlurmlabError, match="Invalid state UP"):
        _conf("NodeName=n1 CPUs=4 State=UP\nPartitionName=p Nodes=n1\n")
    with pytest.raises(SlurmlabError, match="reserved word"):
        _conf("NodeName=ALL CPUs=4\nPartitionName=p Nodes=ALL\n")
    with pytest.raises(SlurmlabError, match="must be YES or NO"):
        _conf("NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Hidden=maybe\n")


def test_gres_without_gres_types_is_warned_about():
    with pytest.warns(UserWarning, match="without GresTypes: slurmctld keeps no GRES"):
        _conf("NodeName=n[1-2] CPUs=4 Gres=gpu:2\nPartitionName=p Nodes=ALL\n")


def test_a_typed_request_fits_only_nodes_with_enough_of_its_type():
    text = """\
        GresTypes=gpu
        NodeName=g[1-2] CPUs=32 RealMemory=100000 Gres=gpu:a100:4,gpu:v100:2
        PartitionName=gpu Nodes=ALL Default=YES
        """
    with pytest.warns(UserWarning, match=r"g\[1-2\] have GPUs of several types"):
        lab = Lab(_conf(text))
    with pytest.raises(
        SlurmlabError, match=r"no node of partition 'gpu' has so many \(at most 4\)"
    ):
        lab.sbatch("--gres=gpu:a100:5 -t 5 --wrap=x")
    with pytest.raises(SlurmlabError, match=r"at most 2"):
        lab.sbatch("--gres=gpu:v100:3 -t 5 --wrap=x")
    assert lab.sbatch("--gres=gpu:v100:2 -t 5 --wrap=x") > 0


def test_a_scenario_says_when_its_policy_reads_no_scheduler_parameters(tmp_path):
    (tmp_path / "slurm.conf").write_text(
        "SchedulerParameters=bf_window=100\nNodeName=n[1-2] CPUs=4\n"
        "PartitionName=p Nodes=ALL Default=YES\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    )
    doc = "cluster: {slurm_conf: slurm.conf}\njobs: [{submit: 0, runtime: 60, args: '-t 5'}]\n"
    with pytest.warns(
        UserWarning, match="policy 'easy' reads none of the cluster's backfill Schedul"
    ):
        _scenario(tmp_path, doc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _scenario(tmp_path, "policy: slurm\n" + doc, "slurm.yaml")


def test_sinfo_takes_the_cluster_as_simulate_does(capsys):
    from slurmlab.cli import main

    assert main(["sinfo", "--cluster", "tiny"]) == 0
    assert capsys.readouterr().out.startswith("PARTITION AVAIL")
    with pytest.raises(SystemExit) as exit_:  # (no cluster: a usage error, as --help says)
        main(["sinfo"])
    assert exit_.value.code == 2
    assert "give the cluster to show" in capsys.readouterr().err


# -- a scheduling researcher's traces ---------------------------------------------------------
EASY_SWF = (
    "; MaxProcs: 10\n"
    "1 0 -1 100 6 -1 -1 6 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    "2 1 -1 10 6 -1 -1 6 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    "3 2 -1 200 3 -1 -1 3 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    "4 3 -1 500 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    "5 4 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
)


def test_a_slice_of_a_trace_is_a_trace(tmp_path):
    from slurmlab import read_swf

    path = tmp_path / "t.swf"
    path.write_text(EASY_SWF.replace("1 500 1 -1 -1 1 -1", "1 500 1 -1 -1 1 50"))
    w = read_swf(path)
    part = w[:3]
    assert (part.kind, part.origin, part.max_procs, len(part)) == ("trace", w.origin, 10, 3)
    assert w[0].id == "1" and w[-1].id == "5"
    with pytest.raises(SlurmlabError, match=r"give a position \(w\[0\]\) or a slice"):
        w["a"]


def test_jobs_without_a_requested_time_are_said_to_have_exact_estimates(tmp_path):
    from slurmlab import read_swf

    path = tmp_path / "t.swf"
    path.write_text(EASY_SWF)
    with pytest.warns(UserWarning, match=r"1 of 5 jobs has no requested time .*perfect estimates"):
        read_swf(path)


def test_simulate_until_says_how_many_jobs_had_not_started(tmp_path, capsys):
    from slurmlab.cli import main

    path = tmp_path / "t.swf"
    path.write_text(EASY_SWF.replace("1 500 1 -1 -1 1 -1", "1 500 1 -1 -1 1 500"))
    assert main(["simulate", str(path), "--until", "50", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "at --until 50, 2 of its 5 jobs submitted by then had not started" in err


def test_a_header_field_in_the_wrong_case_is_named(tmp_path):
    from slurmlab import read_swf

    path = tmp_path / "t.swf"
    path.write_text(EASY_SWF.replace("; MaxProcs: 10", "; maxprocs: 10"))
    with pytest.warns(UserWarning) as caught:
        read_swf(path)
    assert any(
        "header field 'maxprocs' is not read: SWF names it 'MaxProcs'" in str(w.message)
        for w in caught
    )


# -- from the review of the stop's changes ----------------------------------------------------
def test_why_pending_after_the_run_still_names_the_dependency(tmp_path):
    doc = """\
        cluster: tiny
        jobs:
          - {id: a, submit: 0, runtime: 60, args: "-N 1 -t 5"}
          - {id: b, submit: 1, runtime: 60, args: "-N 1 -t 5 -d afterok:a"}
        """
    result = _scenario(tmp_path, doc).run()
    assert "its dependency (afterok:a)" in result.why_pending("b", at=5)


def test_summary_names_malformed_rows_as_where_step_owners_went():
    from slurmlab import analysis

    text = (
        "JobID|State|Elapsed|NCPUS|ReqMem\n5|COMPLETED|01:00:00|4|4Q\n"
        "5.batch|COMPLETED|01:00:00|4|4G\n6|COMPLETED|01:00:00|4|4G\n"
    )
    with pytest.warns(UserWarning, match="left out 1 malformed"):
        jobs = read_sacct(io.StringIO(text), errors="warn")
    with pytest.warns(UserWarning, match=r"read_sacct left malformed rows out \(line\(s\) 2\)"):
        analysis.summary(jobs)


def test_concat_of_exports_without_submit_times():
    text = "JobID|State|Start|Elapsed\n1|COMPLETED|2024-01-01T00:00:00|01:00:00\n"
    with pytest.warns(UserWarning, match="repeat a row of an earlier export"):
        jobs = concat_sacct([read_sacct(io.StringIO(text)), read_sacct(io.StringIO(text))])
    assert jobs["JobID"].tolist() == ["1"]


def test_a_window_that_starts_after_the_export_says_so():
    from slurmlab import analysis

    text = (
        "JobID|State|Partition|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES\n"
        "1|COMPLETED|p|2024-03-01T00:00:00|2024-03-01T00:00:00|2024-03-01T01:00:00|01:00:00|"
        "1|1|cpu=1,node=1\n"
    )
    jobs = read_sacct(io.StringIO(text))
    with pytest.raises(SlurmlabError, match="start= is at or after the export's last start"):
        analysis.utilization(
            jobs, capacity={"p": {"cpus": 1, "gpus": 0, "nodes": 1}}, start="2024-03-10"
        )


def test_a_slice_of_a_trace_has_none_of_its_drops(tmp_path):
    from slurmlab import read_swf

    path = tmp_path / "t.swf"
    path.write_text(EASY_SWF + "6 5 -1 -1 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    with pytest.warns(UserWarning):
        w = read_swf(path)
    assert w.dropped == 1 and w[:2].dropped == 0


def test_more_slurm_conf_rules_slurmctld_keeps():
    with pytest.raises(SlurmlabError, match="NodeAddr not allowed with NodeName=DEFAULT"):
        _conf("NodeName=DEFAULT NodeAddr=10.0.0.1 CPUs=4\nNodeName=n1\nPartitionName=p Nodes=n1\n")
    c = _conf("NodeName=n1 CPUs=4 Weight=4294967295\nPartitionName=p Nodes=n1\n")
    assert c.node("n1").weight == 4294967294  # (read_config.c: INFINITE less one)
    with pytest.raises(
        SlurmlabError, match=r"a space after a comma\? .*AllowAccounts=physics,chem"
    ):
        _conf("NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 AllowAccounts=physics, chem\n")
