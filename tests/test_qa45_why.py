"""QA 45: ``why_pending`` checked as a differential: each change it promises, made with
``lab.update``, must start the job (and each fix must let it start at all)."""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

from slurmlab import Lab, Qos

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from why_pending_check import build, changes, scenario, window  # noqa: E402

_UPDATE = re.compile(r"lab\.update\(([^,]+), (\w+)=([^)]+)\)")


def _changes(text: str, section: str = "Smallest changes") -> list[tuple[str, object]]:
    """The (keyword, value) of each ``lab.update`` the text gives after ``section``."""
    _, found, rest = text.partition(section)
    if not found:
        return []
    out = []
    for _arg, kw, val in _UPDATE.findall(rest):
        out.append((kw, int(val) if val.isdigit() else val.strip("'\"")))
    return out


def _state(lab: Lab, key) -> str:
    return lab.sim._lookup(key)[0].state  # noqa: SLF001


# -- 1. PartitionNodeLimit: the fix names the maximum too ----------------------------------------
def test_partition_node_limit_fix_sets_the_maximum_too():
    """scontrol's NumNodes=N sets the minimum alone: get_resource_arg_range (common/
    proc_args.c) leaves max_nodes NO_VAL and job_mgr.c _update_job keeps the job's maximum
    (the `update` fixture: NumNodes=1 on -N 2 gives 1-2). debug allows 2 nodes (MaxNodes=2):
    for -N 3 the fix must be NumNodes=2-2, which starts it; NumNodes=2 left it 2-3, pending
    for ever, with why_pending repeating the same advice."""
    lab = Lab("teaching", "easy")
    j = lab.sbatch("-p debug -N 3 -t 10", runtime=600)
    lab.advance(1)
    text = lab.why_pending(j)
    assert "NumNodes=2-2" in text and "lab.update(1, nodes='2-2')" in text
    (kw, val), *_ = _changes(text, "Fix:")
    lab.update(j, **{kw: val})
    lab.advance(60)
    assert _state(lab, j) == "RUNNING"
    # the old advice, taken: -N 2-3 is still over MaxNodes; the fix names the range now
    lab = Lab("teaching", "easy")
    j = lab.sbatch("-p debug -N 3 -t 10", runtime=600)
    lab.update(j, nodes=2)
    lab.advance(60)
    text = lab.why_pending(j)
    assert "(PartitionNodeLimit)" in text and "lab.update(1, nodes='2-2')" in text


def test_a_partition_node_limit_fix_says_when_a_qos_limit_would_still_stop_it():
    """-N 3 --exclusive in debug (MaxNodes=2) under GrpTRES cpu=32: the fix NumNodes=2-2
    clears PartitionNodeLimit, but on 2 whole nodes the job is over the QOS's limit on its
    own (node_scheduler.c select_nodes, acct_policy_job_runnable_post_select: an --exclusive
    job's total_cpus), so it would pend for ever again; why_pending says so."""
    lab = Lab("teaching", "easy", qos=[Qos("normal"), Qos("lim", grp_tres={"cpu": 32})])
    j = lab.sbatch("-p debug -N 3 -t 10 --exclusive --qos=lim", runtime=600)
    lab.advance(1)
    text = lab.why_pending(j)
    assert "NumNodes=2-2" in text
    assert "On 2 nodes it would still be over a limit of QOS lim (QOSGrpCpuLimit)" in text
    lab.update(j, nodes="2-2")
    lab.run(until="2h")
    assert _state(lab, j) == "PENDING"
    after = lab.why_pending(j)
    assert "(QOSGrpCpuLimit)" in after and "Here it is its own size" in after


def test_a_range_over_a_limit_is_narrowed_to_both_ends():
    """-N 2-4 --gres=gpu:2 under MaxTRESPerUser gres/gpu=4: Slurm picks 4 nodes and the
    post-select test refuses them (acct_policy.c acct_policy_job_runnable_post_select). The
    fix narrows the range to 2 nodes, which must be NumNodes=2-2 (NumNodes=2 keeps MAX 4:
    job_mgr.c _update_job), and it starts."""
    lab = Lab("tiny", "easy", qos=[Qos("normal", max_tres_per_user="gres/gpu=4")])
    j = lab.sbatch("-N 2-4 --gres=gpu:2 -t 10", runtime=60)
    lab.advance(5)
    text = lab.why_pending(j)
    assert "narrow the range to --nodes=2-2" in text and "NumNodes=2-2" in text
    lab.update(j, nodes="2-2")
    lab.advance(5)
    assert _state(lab, j) == "RUNNING"


# -- 2. suggested changes are tested against QOS limits ------------------------------------------
def _grp_cpu_lab() -> tuple[Lab, int]:
    lab = Lab("teaching", "easy", qos=[Qos("normal"), Qos("lim", grp_tres={"cpu": 32})])
    lab.sbatch("-p cpu -N 2 -t 90 --exclusive", runtime="90m")  # cpu[01-02] busy 90 min
    j = lab.sbatch("-p cpu -N 2 -t 10 --exclusive --qos=lim", runtime=600)
    return lab, j


def test_a_job_over_its_qos_limit_on_its_own_is_told_it_never_starts():
    """GrpTRES cpu=32 and -N 2 --exclusive on 64-CPU nodes: node_scheduler.c tests the limits
    on its whole nodes (acct_policy_job_runnable_post_select, the job's total_cpus), 128
    CPUs, even with no other job of the QOS running. No partition or size change that only
    frees nodes helps: why_pending promised -p gpu / -p debug ("has room for it now"), and
    the job never started in either."""
    lab, j = _grp_cpu_lab()
    lab.advance(60)
    text = lab.why_pending(j)
    assert "has room for it now" not in text
    assert "will never start as it is" in text and "QOSGrpCpuLimit" in text
    lab.run(until="12h")
    assert _state(lab, j) == "PENDING"


def test_a_move_that_a_job_count_limit_would_stop_is_not_promised():
    """QOS MaxJobsPerUser=1 already reached by the user: the job count is tested before any
    node (acct_policy.c acct_policy_job_runnable_pre_select), so moving it to idle gpu nodes
    does not start it; why_pending must not promise that it would, and says which limit."""
    lab = Lab("teaching", "fifo", qos=[Qos("normal"), Qos("lim", max_jobs_per_user=1)])
    lab.sbatch("-p cpu -N 1 -t 60 -c 8 --qos=lim", runtime=3600, user="alice")
    lab.sbatch("-p debug -N 2 -t 30 --exclusive", runtime=1800, user="bob")
    lab.sbatch("-p debug -N 2 -t 30 --exclusive", runtime=1800, user="bob")
    j = lab.sbatch("-p debug -N 1 -t 10 -c 4 --qos=lim", runtime=600, user="alice")
    lab.advance(1)
    text = lab.why_pending(j)
    assert "has room for it now" not in text
    assert "QOSMaxJobsPerUserLimit" in text
    lab.update(j, partition="gpu")
    lab.advance(60)
    assert _state(lab, j) == "PENDING"


# -- 3. a past moment: no false promise about the QOS's other jobs ------------------------------
def test_a_past_moment_says_when_an_exclusive_job_is_over_its_limit_on_its_own():
    """At a past moment (result.why_pending(at=...)) the limits' use then is not kept, but
    whether a job is over on its own is: an --exclusive job over GrpTRES cpu=32 on its whole
    nodes (node_scheduler.c select_nodes, acct_policy_job_runnable_post_select) was told "the
    jobs of QOS lim already use as many CPUs as its GrpTRES allows; it starts when enough of
    them end" though no job of the QOS ran."""
    lab, j = _grp_cpu_lab()
    lab.run(until=7200)
    now = lab.why_pending(j)
    past = lab.result.why_pending(j, at=6000)
    assert "(QOSGrpCpuLimit)" in past
    assert "already use as many CPUs" not in past and "when enough of them end" not in past
    assert "Here it is its own size" in past and past == now


# -- 4. array tasks: no "now" for a task the engine holds back -----------------------------------
def test_an_array_task_behind_its_records_last_task_is_not_promised_now():
    """An array's split-off tasks go before its pending record, in task order, and a record
    left with one task becomes that task (job_scheduler.c sort_job_queue2; slurmctld
    job_array_split): changing 2_1 of --array=0-1 leaves 2_0 ahead of it in gpu, and under
    fifo it waits (Priority). why_pending promised "with --nodes=2 it could start now"; with
    --array=0-2 the record keeps two tasks, goes after 2_1, and the promise holds."""
    for arr, promised in (("0-1", False), ("0-2", True)):
        lab = Lab("teaching", "fifo")
        lab.sbatch("-p gpu -N 6 -t 60 --exclusive", runtime=3600)  # gpu[01-06] busy 1 h
        lab.sbatch(f"-p gpu -N 4 -t 10 --exclusive --array={arr}", runtime=600)
        lab.advance(1)
        text = lab.why_pending("2_1")
        assert "its array's pending record is first in line" in text  # (2_0 is its first)
        assert ("could start now" in text) is promised, (arr, text)
        if not promised:
            assert "task 2_0 of its array would be ahead of it" in text
        lab.update("2_1", nodes="2-2")
        lab.advance(60)
        assert (_state(lab, "2_1") == "RUNNING") is promised


def test_a_throttled_task_moved_past_a_task_that_cannot_start_takes_the_free_slot():
    """--array=0-2%2 with one task running: a task may start while fewer than 2 run,
    whatever its place (job_mgr.c job_array_start_test counts running tasks only), so 2_1
    moved to gpu starts though 2_2, queued ahead of it in debug (PriorityTier), cannot.
    why_pending said the free slot went to 2_2 and promised nothing; it promises -p gpu
    now, and the move starts it."""
    lab = Lab("teaching", "easy")
    lab.sbatch("-p debug -N 1 -t 10 --exclusive", runtime=600)
    lab.sbatch("-p debug -N 1 -t 20 --exclusive --array=0-2%2", runtime=1200)
    lab.advance(1)
    text = lab.why_pending("2_1")
    assert "partition 'gpu' has room for it now" in text
    lab.update("2_1", partition="gpu")
    lab.advance(1)
    assert _state(lab, "2_1") == "RUNNING"


# -- 5. "No small change": plans elsewhere, jobs not in the queue --------------------------------
@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_a_plan_on_other_nodes_does_not_hide_the_fewer_nodes_change(policy):
    """A job planned in cpu (on cpu nodes) does not stop a 2-node gpu job from starting now
    on gpu[07-08]: backfill protects only the nodes a plan holds (backfill.c node_space).
    why_pending said "No small change to the request would let it start sooner"."""
    lab = Lab("teaching", policy)
    lab.sbatch("-p cpu -N 2 -t 30 --exclusive", runtime=1800)
    lab.sbatch("-p cpu -N 2 -t 60 --exclusive", runtime=3600)  # planned in cpu at +30 min
    lab.sbatch("-p gpu -N 6 -t 60 --exclusive", runtime=3600)
    b = lab.sbatch("-p gpu -N 4 -t 60 --exclusive", runtime=3600)
    lab.advance(1)
    text = lab.why_pending(b)
    assert "No small change" not in text
    assert "with --nodes=2 (instead of 4) it could start now" in text
    lab.update(b, **dict(_changes(text)))
    lab.advance(1)
    assert _state(lab, b) == "RUNNING"


def test_a_held_job_does_not_close_a_partition_to_a_move():
    """A held job is not in the queue the scheduler tests (job_scheduler.c build_job_queue:
    job_independent, priority 0), so it does not stop a job moved there from starting:
    -p gpu must be suggested with a held job in gpu as without one."""
    lab = Lab("teaching", "easy")
    lab.sbatch("-p debug -N 2 -t 30 --exclusive", runtime=1800)
    j = lab.sbatch("-p debug -N 1 -t 20 --exclusive", runtime=1200)
    lab.sbatch("-p gpu -N 1 -t 10 -H", runtime=600)
    lab.advance(1)
    text = lab.why_pending(j)
    assert "partition 'gpu' has room for it now (-p gpu)" in text
    lab.update(j, partition="gpu")
    lab.advance(1)
    assert _state(lab, j) == "RUNNING"


# -- the differential: every promised change starts the job --------------------------------------
def _differential(seeds) -> Counter:
    """Over the checker's sessions ``seeds``: the promised changes and the fixes tested."""
    n = Counter()
    for seed in seeds:
        s = scenario(seed)
        lab = build(s)
        q = lab.squeue()
        for key in q[q["ST"] == "PD"]["JOBID"]:
            text = lab.why_pending(key)
            fixes = _changes(text, "Fix:")
            for kw, val in changes(text) + fixes:
                promised = (kw, val) not in fixes
                changed = build(s)
                changed.update(key, **{kw: val})
                # started at once, or by the next backfill cycle (slurm: bf_interval)
                changed.run(until=changed.now + window(s))
                job = changed.sim._lookup(key)[0]  # noqa: SLF001
                if promised:
                    started = job.start is not None and job.start <= s["at"] + window(s)
                    assert started, (seed, key, kw, val, text)
                elif job.reason.startswith("Partition"):
                    # a fix of a partition limit leaves no partition limit behind
                    raise AssertionError((seed, key, kw, val, job.reason, text))
                n["promises" if promised else "fixes"] += 1
    return n


def test_every_promised_change_starts_the_job():
    """A seeded differential over tools/why_pending_check.py's random Labs (the tiny,
    teaching and ai presets, the four policies, debug's MaxNodes=2, QOS limits, arrays,
    --mem=0, jobs submitted over time): every change why_pending says "could start now" /
    "has room for it now", made with lab.update (as scontrol update: job_mgr.c
    _update_job), starts the job at once or by the next backfill cycle; every Fix of a
    partition limit removes it. The QOS/association limits are Slurm's acct_policy.c tests,
    on the nodes it would get."""
    seeds = range(2000 if os.environ.get("SLURMLAB_SLOW") else 400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = _differential(seeds)
    assert n["promises"] >= 100 and n["fixes"] >= 50, n


# -- 6. times as squeue prints them, and the expected start -------------------------------------
def test_times_are_dated_and_the_expected_start_is_squeues():
    """why_pending gave times only as seconds from the start (t=7200s); it now gives them
    also as squeue and sacct print them (the Lab's origin plus t, ISO 8601 as
    slurm_make_time_str's default), and names the expected start squeue --start shows
    (START_TIME, SCHEDNODES: the backfill plan, backfill.c _reserve_resources)."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 4 --exclusive -t 2:00:00", runtime="2h")
    j = lab.sbatch("-N 2 --exclusive -t 30", runtime=600)
    lab.advance(60)
    text = lab.why_pending(j)
    row = lab.squeue().set_index("JOBID").loc[str(j)]
    stamp = row["START_TIME"].strftime("%Y-%m-%dT%H:%M:%S")
    assert stamp == "2026-01-05T02:00:00"
    assert f"squeue --start shows it expected to start at t=7200s ({stamp})" in text
    assert lab.squeue_text(start=True).count(stamp) == 1  # (as squeue --start prints it)
    done = lab.sbatch("-N 1 -t 5 --begin=now", runtime=60)
    lab.run(until=3 * 3600)
    assert lab.why_pending(done).endswith("ended COMPLETED at t=7260s (2026-01-05T02:01:00).")
