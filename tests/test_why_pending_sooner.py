"""``why_pending`` on a job no change starts now: where a change would start it sooner
(fewer nodes, a shorter time limit), it says so with the start it would get, found by
placing the jobs queued ahead of it in turn at their earliest fits; each claim is checked
by making the change with lab.update and running to the end (every job runs its whole
time limit, the picture the words assume)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from slurmlab import Lab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from why_pending_check import check  # noqa: E402

_NOW = "No small change to the request would let it start now. If nothing else changes"


def _lab(policy: str, requests: list[str]) -> Lab:
    """A tiny Lab (4 nodes) with ``requests`` submitted at 0, each running its whole time
    limit, one minute on."""
    lab = Lab("tiny", policy)
    for args in requests:
        minutes = int(args.split("-t ")[1].split()[0])
        lab.sbatch(args, runtime=minutes * 60)
    lab.advance(60)
    return lab


def _starts(policy: str, requests: list[str], key, change: dict) -> tuple[float, float]:
    """``key``'s start as it is, and after ``change`` made at one minute."""
    starts = []
    for update in (None, change):
        lab = _lab(policy, requests)
        if update:
            lab.update(key, **update)
        lab.run()
        starts.append(lab.sim._lookup(key)[0].start)  # noqa: SLF001
    return starts[0], starts[1]


def test_behind_others_under_fifo_fewer_nodes_start_it_with_the_job_ahead():
    """Under fifo a job starts no sooner than the jobs queued ahead of it in its partition
    (job_scheduler.c: a blocked job stops its partition). node[1-2] are free at 30 min,
    node[3-4] at 2 h; job 3 (3 nodes) starts at 2 h, so job 4 (2 nodes) as it is only when
    job 3 ends, at 3 h; on one node it starts beside job 3, at 2 h."""
    requests = [
        "-N 2 --exclusive -t 30",
        "-N 2 --exclusive -t 120",
        "-N 3 --exclusive -t 60",
        "-N 2 --exclusive -t 60",
    ]
    text = _lab("fifo", requests).why_pending(4)
    assert "pending (Priority)" in text and _NOW in text, text
    assert (
        "the jobs queued ahead of it start in turn at their earliest fits), with --nodes=1 "
        "(instead of 2) it would start at about t=7200s (2026-01-05T02:00:00), instead of "
        "about t=10800s (2026-01-05T03:00:00)"
    ) in text, text
    assert _starts("fifo", requests, 4, {"nodes": "1-1"}) == (10800, 7200)


def test_a_shorter_limit_fits_before_the_reservation_of_the_job_first_in_line():
    """Easy backfill reserves nodes for the first job in line only; a job behind it with no
    plan is placed at its earliest fit, before ours. Job 3 (4 nodes) is planned at 4 h,
    when node[3-4] free; job 4 (2 nodes, 2 h) fills node[1-2] from 30 min to 2:30; job 5
    (2 nodes, 2 h) would run into job 3's reservation from 2:30, so it waits for job 3 to
    end, at 5 h; with -t 1:30:00 it ends at 4 h exactly and starts at 2:30."""
    requests = [
        "-N 2 --exclusive -t 30",
        "-N 2 --exclusive -t 240",
        "-N 4 --exclusive -t 60",
        "-N 2 --exclusive -t 120",
        "-N 2 --exclusive -t 120",
    ]
    text = _lab("easy", requests).why_pending(5)
    assert _NOW in text, text
    assert (
        "with -t 1:30:00 (instead of 2:00:00) it would start at about t=9000s "
        "(2026-01-05T02:30:00), instead of about t=18000s (2026-01-05T05:00:00)"
    ) in text, text
    assert _starts("easy", requests, 5, {"time": "1:30:00"}) == (18000, 9000)


def test_a_task_waiting_for_its_array_throttle_takes_the_slot_its_sibling_frees():
    """A task held by its array's %N (JobArrayTaskLimit) starts when a running task of its
    array ends (job_mgr.c job_array_start_test), ahead of later jobs: task 1_1 takes a
    node at 30 min, when 1_0 ends, so job 4 on one node starts at 1 h (when 1_1 ends),
    not at 30 min; as it is (2 nodes) at 2 h, when job 3 ends."""
    requests = [
        "-N 1 --exclusive -t 30 --array=0-1%1",
        "-N 3 --exclusive -t 120",
        "-N 2 --exclusive -t 60",
    ]
    text = _lab("easy", requests).why_pending(4)
    assert (
        "with --nodes=1 (instead of 2) it would start at about t=3600s (2026-01-05T01:00:00), "
        "instead of about t=7200s (2026-01-05T02:00:00)"
    ) in text, text
    assert _starts("easy", requests, 4, {"nodes": "1-1"}) == (7200, 3600)


@pytest.mark.parametrize(
    ("tasks", "key", "nodes", "sooner"),
    [("0-1", "3_1", 1, 7200), ("0-2", "3_2", 2, 1800)],
)
def test_an_array_task_split_off_by_an_update_is_queued_by_its_task_id(tasks, key, nodes, sooner):
    """An update splits an array task off its array's pending record, and slurmctld orders
    the array's tasks by task id with the record after them (job_scheduler.c
    sort_job_queue2), the record's last task a job of its own. node[1-2] free at 30 min,
    node[3-4] at 2 h; the tasks ask for 3 nodes for 1 h each, in turn under fifo. Of two
    tasks, 3_1 on one node still goes after 3_0, beside it at 2 h (not 3 h); of three, 3_2
    goes before 3_0 and 3_1, still in the record, and on two nodes starts at 30 min."""
    requests = ["-N 2 --exclusive -t 30", "-N 2 --exclusive -t 120"]
    requests.append(f"-N 3 --exclusive -t 60 --array={tasks}")
    text = _lab("fifo", requests).why_pending(key)
    assert f"with --nodes={nodes} (instead of 3) it would start at about t={sooner}s" in text
    assert "Any update splits it off its array's pending record" in text, text
    assert _starts("fifo", requests, key, {"nodes": f"{nodes}-{nodes}"})[1] == sooner


# checker sessions (tools/why_pending_check.py, every job running its whole limit) with
# "sooner" claims: jobs behind others under fifo (90), easy (146; 354 with a QOS limit on
# other jobs) and slurm (128, 178), array tasks split off by the change (54, 1277)
_CLAIMS = [54, 90, 128, 146, 178, 354, 1277]
# sessions where the picture with every plan standing would claim falsely: a plan made
# behind a task waiting for its array's throttle (326), slurm's plans on whole nodes while
# its main scheduler starts the jobs ahead sooner, sharing nodes (463)
_STOPPED = [326, 463]


def _checked(seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check([seed], exact=True)


@pytest.mark.parametrize("seed", _CLAIMS)
def test_every_sooner_claim_holds_on_random_sessions(seed):
    """On random Lab sessions, each change why_pending says would start the job sooner if
    nothing else changes does, made with lab.update in a replay where every job runs its
    whole time limit (tools/why_pending_check.py, by brute force)."""
    n = _checked(seed)
    assert n["sooner claims"] > 0, n
    assert n["false sooner claim"] == 0, n
    assert n["false promise (not now)"] == 0 and n["false no-change (now)"] == 0, n


@pytest.mark.parametrize("seed", _STOPPED)
def test_no_sooner_claim_where_the_plans_ahead_will_not_stand(seed):
    """A plan made behind a task waiting for its array's throttle, or a slurm plan that
    holds whole nodes where the main scheduler starts the job sharing them, does not stand:
    why_pending claims no change starts the job sooner there unless it would in every
    picture, and each claim it makes holds (tools/why_pending_check.py)."""
    n = _checked(seed)
    assert n["explained"] > 0 and n["false sooner claim"] == 0, n


def test_a_lowered_throttle_frees_a_slot_only_when_all_but_n_minus_1_tasks_have_ended():
    """Three tasks of --array=0-3%3 run (two to 30 min, one to 40 min) when the throttle is
    lowered to 1: a task starts only while fewer than 1 runs (job_mgr.c
    job_array_start_test), so 2_3 waits for all three (40 min), and job 6 (three nodes,
    behind it under fifo) for 2_3's end, 70 min: its own start is said to be about then, not
    at the first task's end (60 min)."""
    lab = Lab("tiny", "fifo")
    lab.sbatch("-N 2 --exclusive -t 10", runtime=600)
    a = lab.sbatch("-N 1 --exclusive -t 30 --array=0-3%3", runtime=1800)
    lab.sbatch("-N 1 --exclusive -t 100", runtime=6000)
    x = lab.sbatch("-N 3 --exclusive -t 60", runtime=3600)
    lab.advance(660)
    lab.update(a, throttle=1)
    lab.advance(10)
    said = lab.why_pending(x)
    assert "instead of about t=4200s" in said
    lab.run()
    assert lab.sim._lookup(x)[0].start == 4200  # noqa: SLF001
