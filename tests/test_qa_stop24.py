"""QA stop 24: each test quotes its input and the exact outcome."""

from __future__ import annotations

import io
import re
import warnings

import pandas as pd
import pytest

from slurmlab import analysis as an
from slurmlab.records.sacct import read_sacct
from slurmlab.report import render_report

HEADER = (
    "JobID|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|NCPUS|NNodes|AllocTRES"
)


def _row(job, state, start, elapsed, gpus):
    end = "Unknown" if start == "Unknown" else "2024-01-01T05:00:00"
    tres = f"cpu=8,gres/gpu={gpus}" if gpus else "cpu=8"
    return (
        f"{job}|train{job}|ann|llm|gpu|{state}|2024-01-01T00:00:00|{start}|{end}|{elapsed}|8|1|"
        f"{tres}"
    )


def _three_pending_two_ran():
    rows = [
        HEADER,
        _row(1, "COMPLETED", "2024-01-01T01:00:00", "02:00:00", 8),  # 16 GPU-hours
        _row(2, "FAILED", "2024-01-01T01:00:00", "00:30:00", 4),  # 2 GPU-hours
        _row(3, "PENDING", "Unknown", "00:00:00", 0),
        _row(4, "CANCELLED by 1000", "Unknown", "00:00:00", 0),
        _row(5, "COMPLETED", "2024-01-01T01:00:00", "00:00:00", 8),  # ran 0 s: 0 hours
    ]
    return read_sacct(io.StringIO("\n".join(rows)))


def test_biggest_runs_lists_only_runs_that_used_the_resource():
    """Two runs used GPUs; the pending job, the one cancelled before it started and the 0-s run
    are not among the 'biggest' (they used to fill the report's top-10 table)."""
    big = an.biggest_runs(_three_pending_two_ran())
    assert big["JobID"].tolist() == ["1", "2"]
    assert big["gpu_hours"].tolist() == [16.0, 2.0]
    assert an.biggest_runs(_three_pending_two_ran(), resource="cpu_hours", n=1)[
        "cpu_hours"
    ].tolist() == [16.0]
    with pytest.raises(
        ValueError, match=r"resource='gpus': use cpu_hours, gpu_hours or node_hours"
    ):
        an.biggest_runs(_three_pending_two_ran(), resource="gpus")


def test_report_biggest_runs_table_has_the_two_runs():
    page = render_report(_three_pending_two_ran())
    table = page[page.index("Biggest runs") :]
    table = table[: table.index("</table>")]
    assert re.findall(r"<td>(train\d)</td>", table) == ["train1", "train2"]


REQUEUED_AND_PENDING = """JobID|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES|Restarts
7|NODE_FAIL|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|8|cpu=8,gres/gpu=4|0
7|PENDING|2024-01-01T01:00:00|Unknown|Unknown|00:00:00|8|cpu=8,gres/gpu=4|1
8|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T02:00:00|02:00:00|8|cpu=8,gres/gpu=4|0
9|CANCELLED by 42|2024-01-01T00:00:00|Unknown|2024-01-01T00:10:00|00:00:00|8||0
10_[1-3]|PENDING|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|8||0
"""


def test_runs_mean_the_same_in_every_analyser():
    """Runs are the rows that started: job 7's NODE_FAIL run and job 8's. Job 7's pending
    row, job 9 (cancelled before it started) and the pending range are jobs, not runs: the
    summary used to count 5 runs (every row), failure_cost a CANCELLED 'run' of 0 hours,
    requeues 2 runs for job 7."""
    jobs = read_sacct(io.StringIO(REQUEUED_AND_PENDING))
    s = an.summary(jobs)
    assert (s.jobs, s.runs) == (6, 2)
    assert "6 jobs (2 runs, 0 steps)" in s.words()
    assert int(an.usage(jobs)["runs"].sum()) == 2
    cost = an.failure_cost(jobs)
    assert cost[["State", "runs", "gpu_hours"]].to_dict("records") == [
        {"State": "NODE_FAIL", "runs": 1, "gpu_hours": 4.0}
    ]
    (row,) = an.requeues(jobs).to_dict("records")
    assert (row["runs"], row["Restarts"], row["states"]) == (1, 1, "NODE_FAIL>PENDING")
    assert row["lost_gpu_hours"] == 4.0


def test_a_failed_job_with_a_step_ran_in_an_export_without_start_times():
    """reportseff-style export (no Start field): a FAILED job of Elapsed 0 whose .batch step
    exists ran (and failed at once); a CANCELLED one without steps never started."""
    text = (
        "JobID|State|Elapsed|NCPUS|TotalCPU\n"
        "1|FAILED|00:00:00|8|00:00.007\n"
        "1.batch|FAILED|00:00:00|8|00:00.006\n"
        "2|CANCELLED by 129319|00:00:00|16|00:00:00\n"
    )
    jobs = read_sacct(io.StringIO(text))
    assert an.summary(jobs).runs == 1
    assert an.failure_cost(jobs)["State"].tolist() == ["FAILED"]


def _scenario(tmp_path, text):
    from slurmlab import Scenario

    path = tmp_path / "s.yaml"
    path.write_text(text)
    return Scenario.load(path)


RESERVED = """
cluster: {nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]}
policy: slurm
reservations: [{name: maint, start: "4:00:00", duration: "2:00:00", nodes: "gpu[01-02]", users: [root]}]
jobs:
  - {id: blocker, submit: "3:00:00", runtime: "5:00:00", args: "-N 2 --gres=gpu:8 -t 5:00:00"}
  - {id: train,   submit: "3:01:00", runtime: "9:00:00", args: "-N 3 --gres=gpu:8 -t 10:00:00"}
"""


def test_why_pending_does_not_count_on_nodes_an_advance_reservation_takes(tmp_path):
    """At 3:30 only gpu01-02 are free, and maint takes them at 4:00: a 10-hour job cannot
    start there with 2 nodes now (it used to be told --nodes=2 would start it now); with 2
    nodes it would start at 6:00, when maint ends, which is what it is told."""
    result = _scenario(tmp_path, RESERVED).run()
    why = result.why_pending("train", at="3:30:00")
    assert "could start now" not in why
    assert "No small change to the request would let it start now. If nothing else" in why
    assert "with --nodes=2 (instead of 3) it would start at about t=21600s" in why
    assert result.jobs.set_index("JobID").loc["train", "Start"].strftime("%H:%M") == "08:00"


BEFORE_MAINT = """
cluster: {nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]}
policy: easy
reservations: [{name: maint, start: "6:00:00", duration: "2:00:00", nodes: "gpu[01-04]", users: [root]}]
jobs:
  - {id: train, submit: "3:30:00", runtime: "2:00:00", args: "-N 4 --gres=gpu:8 -t 5:00:00"}
  - {id: fixed, submit: "3:30:00", runtime: "2:00:00", args: "-N 4 --gres=gpu:8 -t 2:30:00"}
"""


def test_why_pending_suggests_a_limit_that_ends_before_the_reservation(tmp_path):
    """All four nodes idle at 3:30 and reserved from 6:00: -t 5:00:00 must wait until 8:00,
    -t 2:30:00 ends at 6:00 and starts at once (the 'fixed' job shows it). The hint used to
    be 'No small change'."""
    result = _scenario(tmp_path, BEFORE_MAINT).run()
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"train": "08:00", "fixed": "03:30"}
    alone = BEFORE_MAINT[: BEFORE_MAINT.index("  - {id: fixed")]
    for policy in ("easy", "slurm"):
        why = (
            _scenario(tmp_path, alone.replace("easy", policy))
            .run()
            .why_pending("train", at="3:30:00")
        )
        assert (
            "Smallest changes that would let it start sooner: with -t 2:30:00 (instead of "
            "5:00:00) it would end before reservation maint takes its nodes and could start now"
        ) in why


BEHIND_A_BLOCKED_JOB = """
cluster: {nodes: [{name: "gpu[01-05]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]}
policy: slurm
reservations: [{name: maint, start: "6:00:00", duration: "2:00:00", nodes: "gpu[01-04]", users: [root]}]
jobs:
  - {id: other, submit: "3:00:00", runtime: "9:00:00", args: "-N 1 --exclusive -t 10:00:00"}
  - {id: train, submit: "3:29:45", runtime: "2:00:00", args: "-N 4 --gres=gpu:8 -t 5:00:00"}
  - {id: fixed, submit: "3:30:00", runtime: "2:00:00", args: "-N 4 --gres=gpu:8 -t 2:30:00"}
"""


def test_a_limit_hint_for_a_job_behind_others_leaves_room_for_the_backfill_cycle(tmp_path):
    """Under slurm a job behind others starts in a backfill cycle, up to bf_interval (30 s)
    later: while a job stays queued Slurm's backfill thread runs a cycle bf_interval after
    the last one (backfill.c backfill_agent), so with 'train' queued from 3:29:45 the cycles
    run at 3:29:45, 3:30:15, ...; 'fixed' (-t 2:30:00, behind 'train', submitted at 3:30)
    ending at 6:00 from 3:30 would run into maint from 3:30:15, and is not backfilled. At
    3:31 (once a cycle has planned 'train') it is told the longest whole-minute limit that
    ends before 6:00 from 3:31:30. (Submitted together to an idle thread, both would be
    tested in their own second, at the thread's first 1-s poll after them, and 'fixed' would
    end exactly at maint's start.)

    'train' blocks its partition: the one node maint leaves it (gpu05) is busy ('other'
    holds it whole), select's ESLURM_NODES_BUSY. (With every node it may use idle, it
    would block nothing: see test_a_job_reservations_keep_out_blocks_nothing_when_the_rest_is_idle.)"""
    result = _scenario(tmp_path, BEHIND_A_BLOCKED_JOB).run()
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"other": "03:00", "train": "08:00", "fixed": "10:00"}
    assert "with -t 2:28:00 (instead of 2:30:00)" in result.why_pending("fixed", at="3:31:00")


GRACE = """
cluster:
  nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]
  settings: {PreemptType: preempt/qos, PreemptMode: REQUEUE}
policy: easy
qos:
  - {name: low, priority: 0, grace_time: 300}
  - {name: high, priority: 1000, preempt: [low]}
jobs:
  - {id: train, submit: 0, runtime: "10:00:00", args: "-N 4 --gres=gpu:8 -t 1-00:00:00 --qos=low"}
  - {id: urgent, submit: "2:00:00", runtime: "1:00:00", args: "-N 1 --gres=gpu:8 -t 2:00:00 --qos=high"}
"""


def test_a_victim_in_its_grace_time_is_expected_to_end_when_the_grace_time_does(tmp_path):
    """slurm.conf GraceTime: once a job is selected for preemption 'its end time is set to
    the current time plus GraceTime'. The preemptor's expected start is then 2:05, not the
    victim's 24-hour limit (it showed 2026-01-06T00:00:00)."""
    result = _scenario(tmp_path, GRACE).run()
    queue = result.squeue(at="2:02:00").set_index("JOBID")
    assert queue.loc["urgent", "START_TIME"].strftime("%H:%M:%S") == "02:05:00"
    assert result.jobs.set_index("JobID").loc["urgent", "Start"].strftime("%H:%M") == "02:05"


def test_the_preemptor_s_expected_start_matches_real_squeue_in_grace_time():
    """The real-Slurm preemption fixture: urgent (submitted at 40 s) preempts small, whose
    QOS has GraceTime=10; real squeue at 50 s showed urgent expected at 50 s (start_s)."""
    from pathlib import Path

    from slurmlab import Scenario

    root = Path(__file__).resolve().parents[1] / "datasets/realslurm"
    real = pd.read_csv(root / "preemption/queue.csv")
    (want,) = real[(real["t"] == 50) & (real["name"] == "urgent")]["start_s"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(root / "scenarios/preemption.yaml").run()
    queue = result.squeue(at=45).set_index("JOBID")
    assert (queue.loc["urgent", "START_TIME"] - result.origin).total_seconds() == want == 50


FAILED_AT_5H = """
cluster: {nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]}
jobs:
  - id: train
    submit: 0
    runtime: "10:00:00"
    args: "-N 4 --gres=gpu:8 -t 12:00:00"
    checkpoint: {interval: 3600, write_cost: 120, restart_cost: 300}
failures:
  - {node: gpu01, at: "5:00:00", down_for: "2:00:00"}
"""


def test_a_requeue_counts_before_the_next_run_starts(tmp_path):
    """Stopped at 5:30, the job failed at 5:00 and waits requeued (Restarts 1): one requeue
    (it was 0: only runs after a requeue were counted), and no recovery yet, so the mean time
    to recovery is NaN (it was 0.0, 'instant'). Run to the end: 1 requeue, 7,200 s to
    recover (the node is back at 7:00)."""
    scenario = _scenario(tmp_path, FAILED_AT_5H)
    stopped = scenario.run(until="5:30:00")
    assert stopped.metrics["requeues"] == 1
    assert stopped.metrics["mean_time_to_recovery_s"] != stopped.metrics["mean_time_to_recovery_s"]
    assert stopped.goodput()[["JobID", "runs", "requeues"]].to_dict("records") == [
        {"JobID": "train", "runs": 1, "requeues": 1}
    ]
    done = scenario.run()
    assert (done.metrics["requeues"], done.metrics["mean_time_to_recovery_s"]) == (1, 7200.0)


def test_python_api_inputs_are_checked_like_the_scenario_files():
    """requeue_delay takes durations like every other time ('2m' crashed mid-run with a
    TypeError) and refuses negatives (silently accepted); a failure's node may be a hostlist
    in Python as in YAML; an unknown node lists the cluster's; srun_env takes a preset name
    (an AttributeError before) and refuses a restart count that is not a whole number >= 0."""
    from slurmlab import JobSpec, srun_env
    from slurmlab.errors import SlurmlabError
    from slurmlab.sim.faults import NodeFailure
    from slurmlab.sim.simulate import simulate
    from slurmlab.spec.workload import Workload, WorkloadJob

    spec = JobSpec.from_args("-N 2 --gres=gpu:8 -t 2:00:00")
    work = Workload((WorkloadJob(spec, submit=0, runtime=3600),))
    down = [NodeFailure("gpu[001-002]", 600, down_for=60)]
    result = simulate("ai", work, progress=False, failures=down, requeue_delay="2m")
    runs = result.sacct(duplicates=True)
    assert runs["State"].tolist() == ["NODE_FAIL", "COMPLETED"]
    assert runs["NodeList"].tolist()[0] == "gpu[001-002]"
    assert (runs["Eligible"].iloc[1] - runs["End"].iloc[0]).total_seconds() == 120
    with pytest.raises(SlurmlabError, match=r"invalid requeue_delay -600: must not be negative"):
        simulate("ai", work, progress=False, requeue_delay=-600)
    with pytest.raises(
        SlurmlabError,
        match=r"node 'gpu99' is not in cluster 'ai' \(it has cpu\[01-08\],gpu\[001-032\]\)",
    ):
        simulate("ai", work, progress=False, failures=[NodeFailure("gpu99", 10)])
    env = srun_env(spec, "gpu[001-002]", 42, cluster="ai", restart_count=1)
    assert set(env["SLURM_RESTART_COUNT"]) == {1}
    for bad in (-1, 2.5, "x"):
        with pytest.raises(SlurmlabError, match="restart_count"):
            srun_env(spec, "gpu[01-02]", 42, restart_count=bad)


def test_random_failures_fall_on_whole_seconds():
    """Slurm's clock counts whole seconds: a failure drawn at 18:19:38.6 gave a run whose
    Elapsed (06:55:29.5) was not its End - Start as sacct prints them (6:55:30)."""
    import numpy as np

    from slurmlab.sim.faults import RandomFailures

    for model in (RandomFailures(mtbf=3600.0), RandomFailures(3600.0, "weibull", shape=0.7)):
        rng = np.random.default_rng(3)
        draws = [model.draw(rng) for _ in range(2000)]
        assert all(d == int(d) and d >= 1 for d in draws)


def test_checkpoint_and_action_errors_say_what_to_do():
    from slurmlab.errors import SlurmlabError
    from slurmlab.sim.checkpoint import Checkpoint
    from slurmlab.spec.workload import Action

    with pytest.raises(SlurmlabError) as caught:
        Checkpoint(interval=0)
    assert str(caught.value) == (
        "checkpoint interval 0 must be positive: give the seconds of work between two "
        "checkpoints (e.g. interval: 3600, or '1h'); leave out 'checkpoint' for a job that "
        "does not checkpoint"
    )
    with pytest.raises(SlurmlabError, match=r"; a node failure is a 'failures' entry"):
        Action(60, "fail", "gpu01")


def test_scenario_shares_and_actions_errors_name_the_line_and_the_fix(tmp_path):
    from slurmlab.errors import SlurmlabError

    action = """
cluster: {nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]}
jobs:
  - {id: a, submit: 0, runtime: 3600, args: "-N 1 -t 2:00:00"}
actions:
  - {at: 60, action: fail, node: gpu01}
"""
    with pytest.raises(SlurmlabError) as caught:
        _scenario(tmp_path, action)
    assert str(caught.value).endswith(
        "s.yaml line 6: actions[0]: action 'fail' is not one of cancel, requeue, hold, "
        "release, requeuehold, update, drain, resume; a node failure is a 'failures' entry "
        "({node, at, down_for})"
    )
    shares = action.replace("actions:\n  - {at: 60, action: fail, node: gpu01}\n", "")
    shares += "accounts:\n  - {name: llm, shares: lots}\n"
    with pytest.raises(SlurmlabError, match=r"accounts\[0\]\.shares.*'lots'.*whole number"):
        _scenario(tmp_path, shares)


def test_an_array_s_pending_record_is_one_sprio_row_named_like_its_tasks():
    """Real sprio (arrays recording, t=10) lists the pending tasks of array 4 ('step') as
    one row, job 4, priority 11208. slurmlab listed step_5 and step_7; and plain squeue
    named the record by its number (7_[5,7]) while its tasks showed the scenario's id."""
    from pathlib import Path

    from slurmlab import Scenario

    root = Path(__file__).resolve().parents[1] / "datasets/realslurm"
    real = pd.read_csv(root / "arrays/sprio.csv", dtype={"job_id": str})
    assert real.loc[real["t"] == 10, ["job_id", "priority"]].to_dict("records") == [
        {"job_id": "4", "priority": 11208}
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = Scenario.load(root / "scenarios/arrays.yaml").run()
    assert result.sprio(at=9.5)[["JOBID", "PRIORITY"]].to_dict("records") == [
        {"JOBID": "step", "PRIORITY": 11208}
    ]
    lines = result.squeue_text(at=9.5).splitlines()
    assert [line.split()[0] for line in lines[1:]] == [
        "step_[5,7]", "step_1", "step_3", "thr_[2-5%2]", "thr_0", "thr_1",
    ]  # fmt: skip


def test_a_lab_job_can_checkpoint_and_resume_after_a_node_failure():
    """Lab.sbatch(checkpoint=...): 10 h of work, a checkpoint every hour (120 s to write,
    300 s to load). gpu001 fails at 5 h: 4 h of work saved, so the second run is
    300 + 6 h + 5 x 120 s = 6:15:00."""
    from slurmlab import Lab

    lab = Lab("ai")
    lab.sbatch(
        "-N 4 --gres=gpu:8 -t 12:00:00",
        runtime="10h",
        checkpoint={"interval": "1h", "write_cost": 120, "restart_cost": 300},
    )
    lab.advance("5h")
    lab.fail("gpu001", down_for="1h")
    lab.run()
    runs = lab.sacct(duplicates=True)
    assert runs["State"].tolist() == ["NODE_FAIL", "COMPLETED"]
    assert [str(e) for e in runs["Elapsed"]] == ["0 days 05:00:00", "0 days 06:15:00"]


MAINT = """
cluster:
  nodes: [{name: "gpu[01-04]", cpus: 64, memory: 512G, gres: "gpu:h100:8"}]
  partitions: [{name: train, nodes: ALL}]
policy: POLICY
reservations:
  - {name: maint, start: "4:00:00", duration: "2:00:00", nodes: "gpu[01-04]", users: [root], flags: [maint]}
jobs:
  - {id: long, submit: "3:00:00", runtime: "3:00:00", args: "-N 2 --gres=gpu:8 -t 5:00:00"}
  - {id: short, submit: "3:00:00", runtime: "20:00", args: "-N 2 --gres=gpu:8 -t 30:00"}
"""


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_maintenance_reservation_over_the_whole_partition(tmp_path, policy):
    """Flags=MAINT over every node of the partition from 4:00 to 6:00. At 3:00 'long' (5 h)
    cannot run before it: Slurm's reason is 'ReqNodeNotAvail, Reserved for maintenance'
    (node_scheduler.c), and the main scheduler skips over it (job_scheduler.c), so 'short'
    (30 min) starts at once, under fifo too. sinfo shows the idle nodes 'maint' during the
    window. 'long' starts when it ends."""
    result = _scenario(tmp_path, MAINT.replace("POLICY", policy)).run()
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"long": "06:00", "short": "03:00"}
    queue = result.squeue(at="3:10:00").set_index("JOBID")
    assert queue.loc["long", "NODELIST(REASON)"] == "(ReqNodeNotAvail, Reserved for maintenance)"
    assert result.why_pending("long", at="3:10:00").startswith(
        "Job long is pending (ReqNodeNotAvail, Reserved for maintenance): a maintenance "
        "reservation holds every node of partition train"
    )
    assert "4  maint gpu[01-04]" in result.sinfo_text(at="5:00:00")


def test_reservation_flags_other_than_maint_are_refused(tmp_path):
    from slurmlab.errors import SlurmlabError

    with pytest.raises(
        SlurmlabError, match=r"flag 'IGNORE_JOBS' is not modelled; slurmlab models MAINT"
    ):
        _scenario(
            tmp_path,
            MAINT.replace("flags: [maint]", "flags: [ignore_jobs]").replace("POLICY", "easy"),
        )


HIGHER_ARRIVES = """
cluster:
  nodes: [{name: "gpu[1-4]", cpus: 16, memory: 64000M, gres: "gpu:4"}]
  settings: {PriorityType: priority/multifactor, PriorityWeightQOS: 10000, PriorityWeightAge: 0}
policy: slurm
qos:
  - {name: normal, priority: 0}
  - {name: high, priority: 1000}
jobs:
  - {id: r1, submit: 0, runtime: 9000, args: "-N 3 --exclusive -t 1:00:00"}
  - {id: A, submit: 10, runtime: 600, args: "-N 4 --exclusive -t 30"}
  - {id: H, submit: 45, runtime: 600, args: "-N 2 --exclusive -t 30 --qos=high"}
"""


def test_a_job_overtaken_by_a_higher_priority_one_waits_for_priority_at_once(tmp_path):
    """H (QOS high) arrives at 45 s ahead of A, which waited for Resources. The main pass at
    45 s tests H first and fails: job_scheduler.c turns A's Resources into Priority behind
    the failed partition. A kept Resources until the next backfill cycle (60 s), and
    why_pending called it first in line."""
    result = _scenario(tmp_path, HIGHER_ARRIVES).run()
    reasons = {j.key: j.reasons[:3] for j in result.sim.jobs.values()}
    assert reasons["A"] == [(10.0, "Priority"), (10.0, "Resources"), (45.0, "Priority")]
    assert result.why_pending("A", at=50).startswith(
        "Job A is pending (Priority): jobs with higher priority are ahead of it"
    )


ROUNDED = """
cluster:
  nodes: [{name: "gpu[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  partitions: [{name: gpu, nodes: "gpu[1-4]", default: true, max_time: "5:00:00"}]
  settings: {SchedulerParameters: "bf_interval=30,bf_resolution=600"}
policy: slurm
jobs:
  - {id: r1, submit: 0, runtime: 9000, args: "-N 3 --exclusive -t 65"}
  - {id: big, submit: 10, runtime: 600, args: "-N 4 --exclusive -t 30"}
  - {id: s, submit: 20, runtime: 100, args: "-N 1 --exclusive -t LIMIT"}
"""


def test_a_limit_hint_under_slurm_counts_bf_resolution(tmp_path):
    """big is planned at 3,900 s, and backfill.c reserves from 3,900 rounded down to
    bf_resolution=600: 3,600 s, a job ending at 3,600 overlapping it. At 40 s (next cycle at
    60 s) s is told -t 58:00; it was told -t 1:03:00, which is not backfilled. Each checked
    by simulating it."""

    def start(limit):
        run = _scenario(tmp_path, ROUNDED.replace("LIMIT", limit)).run()
        return run, run.jobs.set_index("JobID").loc["s", ["Start", "StartedBy"]].tolist()

    result, _ = start("90")
    assert "with -t 58:00 (instead of 1:30:00)" in result.why_pending("s", at=40)
    assert [str(v) for v in start("58")[1]] == ["2026-01-05 00:00:30", "backfill"]
    assert [str(v) for v in start("63")[1]] == ["2026-01-05 01:15:00", "main"]


UNTESTED = """
cluster:
  nodes: [{name: "gpu[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  partitions: [{name: gpu, nodes: "gpu[1-4]", default: true, max_time: "5:00:00"}]
  settings: {SchedulerParameters: "bf_interval=30,bf_resolution=60,bf_max_job_test=3"}
policy: slurm
jobs:
  - {id: r1, submit: 0, runtime: 7200, args: "-N 3 --exclusive -t 1:00:00"}
  - {id: A, submit: 10, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: B, submit: 11, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: C, submit: 12, runtime: 600, args: "-N 4 --exclusive -t 30:00"}
  - {id: S, submit: 13, runtime: 600, args: "-N 1 --exclusive -t LIMIT"}
"""


def test_no_backfill_hint_for_a_job_the_cycle_does_not_test(tmp_path):
    """bf_max_job_test=3: backfill tests A, B and C, never S (squeue shows it N/A). A
    shorter limit cannot get it backfilled (with -t 58:00 it still waits for the main
    scheduler), so why_pending no longer suggests one; it says why the cycle gave it no
    start (stop 35: it said "it has to wait")."""
    result = _scenario(tmp_path, UNTESTED.replace("LIMIT", "2:00:00")).run()
    assert pd.isna(result.squeue(at=40).set_index("JOBID").loc["S", "START_TIME"])
    why = result.why_pending("S", at=40)
    assert "-t " not in why
    assert "The last backfill cycle did not test it (squeue --start shows N/A): a cycle " in why
    assert "tests at most 3 jobs in priority order (bf_max_job_test, counted between" in why
    shorter = _scenario(tmp_path, UNTESTED.replace("LIMIT", "58:00")).run()
    assert shorter.jobs.set_index("JobID").loc["S", "StartedBy"] == "main"
    assert shorter.seconds("Start")[shorter.jobs["JobID"] == "S"].item() >= 3600


def test_why_pending_after_a_requeue_names_the_requeue_delay():
    """After lab.requeue the job waits out Slurm's 121-s requeue delay (reason BeginTime):
    why_pending blamed a --begin the user never gave."""
    from slurmlab import Lab

    lab = Lab("tiny")
    job = lab.sbatch("-N 1 -t 1:00:00", runtime="1h")
    lab.advance("10m")
    lab.requeue(job)
    lab.advance("30s")
    assert lab.why_pending(job) == (
        "Job 1 is pending (BeginTime): it was requeued at t=600s (2026-01-05T00:10:00), and "
        "a requeued job is eligible again only 121 s later (Slurm's delay), at t=721s "
        "(2026-01-05T00:12:01)."
    )
    later = lab.sbatch("-N 1 -t 10 --begin=now+600")
    assert lab.why_pending(later).endswith("its --begin time has not come yet.")


def test_the_lab_prints_what_the_commands_print(tmp_path, monkeypatch):
    """lab.srun_env, lab.squeue_text, lab.sinfo_text and lab.sacct_text (they were only on
    lab.result), and a scenario path from the wrong directory names where it exists."""
    from slurmlab import Lab, Scenario
    from slurmlab.errors import SlurmlabError

    lab = Lab("tiny")
    job = lab.sbatch("-N 2 --ntasks-per-node=2 -t 1:00:00", runtime="1h")
    assert lab.srun_env(job)["SLURMD_NODENAME"].tolist() == ["node1", "node1", "node2", "node2"]
    assert lab.squeue_text().splitlines()[1].split()[:5] == ["1", "main", "sbatch", "you", "R"]
    assert "    mix node[1-2]" in lab.sinfo_text()
    assert lab.sacct_text("JobID,State").splitlines()[2].split() == ["1", "RUNNING"]
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "s.yaml").write_text("cluster: tiny\njobs: []\n")
    monkeypatch.chdir(tmp_path / "course")
    with pytest.raises(SlurmlabError, match=r"it exists relative to .*: give .*course/s\.yaml"):
        Scenario.load("course/s.yaml")


def test_directives_sbatch_would_not_read_are_named():
    """'# SBATCH' and '#sbatch' are comments to sbatch, and #SBATCH after the first command is
    ignored: real sbatch says nothing, and the job silently got 1 node and no GPU. Each now
    gets a warning naming its line. ('#SBATCH--time=10' is a directive: sbatch's magic-word
    test is a prefix test, tests/test_qa_stop27_sbatch.py.)"""
    from slurmlab import JobSpec

    script = (
        "#!/bin/bash\n# SBATCH --gres=gpu:4\n#sbatch -N 2\n#SBATCH--time=10\n#SBATCH -p main\n"
        "module load cuda\n#SBATCH --gres=gpu:4 -N 2 -t 1:00:00\nsrun python train.py\n"
    )
    with pytest.warns(UserWarning) as caught:
        job = JobSpec.from_sbatch(script)
    assert job.to_args() == ["--partition=main", "--time=10:00"]
    messages = [str(w.message) for w in caught]
    assert [m.split(":")[0] for m in messages] == [
        "script line 2", "script line 3", "script line 7",
    ]  # fmt: skip
    assert messages[2] == (
        "script line 7: #SBATCH after the first command (line 6: 'module load cuda') is "
        "ignored, as sbatch does; move every #SBATCH line above the first command"
    )


def test_wait_stats_by_a_number_sorts_as_numbers():
    """wait_stats(by="NGPUS") listed the groups as text: 0, 1, 16, 2, 32."""
    rows = [HEADER]
    for job, gpus in enumerate((16, 2, 0, 1, 32), start=1):
        tres = f"cpu=8,gres/gpu={gpus}" if gpus else "cpu=8"
        rows.append(
            f"{job}|j|ann|llm|gpu|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|"
            f"2024-01-01T02:00:00|01:00:00|8|1|{tres}"
        )
    stats = an.wait_stats(read_sacct(io.StringIO("\n".join(rows))), by="NGPUS")
    assert stats["NGPUS"].tolist() == [0, 1, 2, 16, 32]
    assert stats["median_h"].tolist() == [1.0] * 5


def test_the_cli_line_labels_cpu_utilization_and_shows_goodput_when_runs_failed(capsys):
    """The checkpoint scenario's line lacked what it is about (goodput, requeues), its bare
    utilization was the CPUs', and its mean wait (the last run's) looked wrong."""
    from pathlib import Path

    from slurmlab.cli import main

    course = Path(__file__).resolve().parents[1] / "course/scenarios"
    assert main(["simulate", str(course / "checkpoint-256gpu.yaml"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mean wait 30515 s (each job's last run)" in out
    assert "utilization CPU 5.1% (GPU 81.4%), goodput 89.9%, requeues 8," in out
    assert main(["simulate", str(course / "backfill-basics.yaml"), "--quiet"]) == 0
    assert "goodput" not in capsys.readouterr().out


def test_a_refused_memory_or_cpu_request_says_the_most_a_node_holds():
    """GPU refusals named a fix; memory and CPU ones did not (teaching preset: 256000 MB and
    32 CPUs per gpu node)."""
    from slurmlab import Lab
    from slurmlab.errors import RequestError

    lab = Lab("teaching")
    for args, fix in (
        ("-N 1 --mem=600G -t 10", "; the most its nodes hold: --mem=250G"),
        ("-n 1 -c 200 -t 10", "; the most its nodes hold: -c 32"),
        ("-N 1 --mem-per-cpu=100G -c 4 -t 10", "; the most its nodes hold: --mem-per-cpu=64000M"),
    ):
        with pytest.raises(RequestError) as caught:
            lab.sbatch(args)
        assert str(caught.value).endswith("Requested node configuration is not available" + fix)


def test_a_slurmlab_error_in_a_notebook_is_its_message(capsys):
    """After %load_ext slurmlab, lab.scancel(12345) printed a traceback through engine.py;
    now its message alone, as scancel prints it (%tb still shows the traceback)."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    capsys.readouterr()
    result = ip.run_cell("import slurmlab\nslurmlab.Lab('tiny').scancel(12345)")
    assert type(result.error_in_exec).__name__ == "SlurmlabError"
    err = capsys.readouterr().err
    assert err == (
        "SlurmlabError: scancel: error: Kill job error on job id 12345: Invalid job id "
        "specified (no job has been submitted yet)\n"
    )


def test_core_specialization_node_options_are_named_as_not_modelled():
    """CoreSpecCount, CPUSpecList and MemSpecLimit keep resources from jobs in Slurm; they
    were accepted silently (slurmlab gives jobs every CPU and all the memory)."""
    from slurmlab import Cluster

    conf = (
        "ClusterName=x\nNodeName=n[1-2] CPUs=16 RealMemory=64000 CoreSpecCount=2 "
        "MemSpecLimit=4000\nPartitionName=p Nodes=n[1-2] Default=YES\n"
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    )
    with pytest.warns(UserWarning) as caught:
        Cluster.from_slurm_conf(conf)
    assert [str(w.message).split(": not modelled")[0] for w in caught] == [
        "slurm.conf line 2: NodeName=n[1-2]: CoreSpecCount=2",
        "slurm.conf line 2: NodeName=n[1-2]: MemSpecLimit=4000",
    ]


def test_jobs_a_backfill_cycle_starts_in_their_reservation_are_started_by_backfill(tmp_path):
    """With sched_interval=-1 (no main scheduler) a job in its advance reservation starts in
    a backfill cycle: StartedBy backfill (it said main)."""
    doc = """
cluster:
  nodes: [{name: "gpu[1-2]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  settings: {SchedulerParameters: "sched_interval=-1,bf_interval=30"}
policy: slurm
reservations: [{name: r, start: 0, duration: "2:00:00", nodes: "gpu1", users: [ann]}]
jobs:
  - {id: a, submit: 5, runtime: 60, user: ann, args: "-N 1 -t 10 --reservation=r"}
"""
    result = _scenario(tmp_path, doc).run()
    row = result.jobs.set_index("JobID").loc["a"]
    assert (result.seconds("Start").item(), row["StartedBy"]) == (30.0, "backfill")
