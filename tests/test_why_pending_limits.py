"""``why_pending`` on a job its group's running jobs keep over a QOS/association limit: it
says the numbers (the limit, what the group's running jobs hold, what the job needs), the
running jobs that hold it and when, if nothing else changes, enough of them end at their
time limits for the limit to let it start, with its start then where the queue's picture
shows room, and a smaller request within the limit's slack that would start it now. Each
claim is checked by running the Lab on, every job running its whole time limit."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from slurmlab import Account, Lab, Qos
from slurmlab.sim.explain import why_pending

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from why_pending_check import check  # noqa: E402


def _start(lab: Lab, key) -> float | None:
    """``key``'s start once every job has run to its end."""
    lab.run(until=lab.now + 86400)
    return lab.sim._lookup(key)[0].start  # noqa: SLF001


def test_a_per_user_gpu_cap_says_the_numbers_the_job_that_holds_it_and_the_start():
    """MaxTRESPerUser gres/gpu=16: alice's running job holds 16 GPUs, her next asks for 8;
    it starts when that job ends at its time limit, and the nodes are free then."""
    lab = Lab("ai", "slurm", qos=[Qos("normal", max_tres_per_user={"gres/gpu": 16})])
    lab.sbatch("-p train -N 2 --gres=gpu:8 -t 2:00:00 --exclusive", user="alice", runtime=7200)
    b = lab.sbatch("-p train -N 1 --gres=gpu:8 -t 1:00:00 --exclusive", user="alice", runtime=3600)
    lab.advance(60)
    text = lab.why_pending(b)
    assert text.startswith(
        "Job 2 is pending (QOSMaxGRESPerUser): alice's running jobs in QOS normal hold 16 of "
        "the 16 gres/gpu its MaxTRESPerUser allows; this job needs 8 more. The running jobs "
        "that hold it end at their time limits: job 1 at t=7200s (2026-01-05T02:00:00). If "
        "nothing else changes (the running jobs end at their time limits), job 1 ends by its "
        "time limit at about t=7200s (2026-01-05T02:00:00); from then the limit lets it "
        "start, and it would start at about t=7200s"
    ), text
    assert _start(lab, b) == 7200


def test_max_jobs_per_user_counts_the_jobs_and_waits_for_the_next_to_end():
    """MaxJobsPerUser=1: alice runs one job; her next starts when it ends."""
    lab = Lab("tiny", "slurm", qos=[Qos("normal", max_jobs_per_user=1)])
    lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    b = lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    lab.advance(60)
    text = lab.why_pending(b)
    assert (
        "(QOSMaxJobsPerUserLimit): alice already runs 1 job in QOS normal, as many as its "
        "MaxJobsPerUser allows (1); this job would be one more." in text
    ), text
    assert "it would start at about t=1800s" in text, text
    assert _start(lab, b) == 1800


def test_an_accounts_max_jobs_counts_its_users_jobs_in_it():
    """Account MaxJobs=1 under fifo: bob runs one job in account lab; his next starts when
    it ends."""
    lab = Lab("tiny", "fifo", accounts=[Account("lab", max_jobs=1, users=["bob"])])
    lab.sbatch("-N 1 -c 4 -t 20 -A lab", user="bob", runtime=1200)
    b = lab.sbatch("-N 1 -c 4 -t 20 -A lab", user="bob", runtime=1200)
    lab.advance(60)
    text = lab.why_pending(b)
    assert (
        "(AssocMaxJobsLimit): bob already runs 1 job in account lab, as many as its MaxJobs "
        "allows (1); this job would be one more." in text
    ), text
    assert "it would start at about t=1200s" in text, text
    assert _start(lab, b) == 1200


def test_the_first_end_that_makes_room_in_an_account_limit_is_named():
    """Account GrpTRES cpu=32 with two running jobs of 16 CPUs: the one that ends first
    (at 30 minutes) leaves room for the next job of 16."""
    lab = Lab("tiny", "easy", accounts=[Account("lab", grp_tres="cpu=32", users=["alice", "bob"])])
    lab.sbatch("-N 1 -c 16 -t 60 -A lab", user="alice", runtime=3600)
    lab.sbatch("-N 1 -c 16 -t 30 -A lab", user="bob", runtime=1800)
    b = lab.sbatch("-N 1 -c 16 -t 60 -A lab", user="bob", runtime=3600)
    lab.advance(60)
    text = lab.why_pending(b)
    assert (
        "(AssocGrpCpuLimit): the running jobs of account lab and its child accounts hold "
        "32 of the 32 CPUs its GrpTRES allows; this job needs 16 more" in text
    ), text
    assert "job 2 ends by its time limit at about t=1800s" in text, text
    assert "it would start at about t=1800s" in text, text
    assert _start(lab, b) == 1800


def test_where_the_nodes_are_busy_when_the_limit_lets_it_the_start_is_later():
    """alice's cap (2 GPUs) frees at one hour, but bob's job holds three of the four nodes
    for two hours and her job asks for two: it starts at two hours."""
    qos = [Qos("normal"), Qos("capped", max_tres_per_user={"gres/gpu": 2})]
    lab = Lab("tiny", "easy", qos=qos)
    lab.sbatch("-N 1 --gres=gpu:2 -t 60 --qos=capped", user="alice", runtime=3600)
    lab.sbatch("-N 3 --exclusive -t 120", user="bob", runtime=7200)
    b = lab.sbatch("-N 2 --gres=gpu:1 -t 60 --qos=capped", user="alice", runtime=3600)
    lab.advance(60)
    text = lab.why_pending(b)
    assert "job 1 ends by its time limit at about t=3600s" in text, text
    assert "it would start at about t=7200s" in text, text
    assert _start(lab, b) == 7200


def test_fewer_nodes_within_the_limits_slack_start_it_now():
    """QOS GrpTRES gres/gpu=16 with 8 held: a job of two 8-GPU nodes needs 16, on one node
    8, which the limit leaves; the update starts it now."""
    lab = Lab("ai", "easy", qos=[Qos("normal", grp_tres={"gres/gpu": 16})])
    lab.sbatch("-p train -N 1 --gres=gpu:8 -t 60", user="alice", runtime=3600)
    b = lab.sbatch("-p train -N 2 --gres=gpu:8 -t 60", user="bob", runtime=3600)
    lab.advance(60)
    text = lab.why_pending(b)
    assert "hold 8 of the 16 gres/gpu its GrpTRES allows; this job needs 16 more" in text, text
    assert (
        "Smallest changes that would let it start sooner: with --nodes=1 (instead of 2) it "
        "could start now within the limit." in text
    ), text
    assert "lab.update(2, nodes='1-1')" in text, text
    lab.update(b, nodes="1-1")
    lab.advance(1)
    assert lab.sim._lookup(b)[0].start == 60  # noqa: SLF001


def test_no_start_is_claimed_while_another_pending_job_shares_the_limit():
    """Two of alice's jobs wait for her cap: which the limit lets start first is not
    followed, so it says when the limit lets it start but claims no start."""
    lab = Lab("tiny", "easy", qos=[Qos("normal", max_jobs_per_user=1)])
    lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    c = lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    lab.advance(60)
    text = lab.why_pending(c)
    assert "from then the limit lets it start, once nodes are free for it." in text, text
    assert "it would start at about" not in text, text


def test_at_a_past_moment_the_reason_keeps_its_own_words():
    """What the group's running jobs held at a past moment is not kept: the reason's words."""
    lab = Lab("tiny", "easy", qos=[Qos("normal", max_jobs_per_user=1)])
    lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    b = lab.sbatch("-N 1 -c 4 -t 30", user="alice", runtime=1800)
    lab.advance(120)
    assert why_pending(lab.sim, b, 60) == (
        "Job 2 is pending (QOSMaxJobsPerUserLimit): its user already runs as many jobs as "
        "QOS normal allows per user (MaxJobsPerUser); it starts when one of them ends."
    )


@pytest.mark.parametrize("seed", [7, 15, 20, 53, 57, 79])
def test_every_limit_claim_holds_on_random_sessions(seed):
    """On random Lab sessions with a QOS limit most jobs use, each start why_pending claims
    for a job held by a limit comes true within a backfill cycle, the limit lets no job
    start before the moment it names, and each change said to start it now does
    (tools/why_pending_check.py, every job running its whole time limit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = check([seed], exact=True, limits=True)
    assert n["limit: start claims"] + n["limit: promises"] > 0, n
    assert n["limit: false start claim"] == 0, n
    assert n["limit: false lets claim (started before)"] == 0, n
    assert n["limit: false promise (not now)"] == 0, n


def test_the_jobs_named_as_ending_are_those_that_hold_the_limit():
    """alice is over MaxTRESPerUser gres/gpu=8; her QOS also has a GrpTRES, which bob's eight
    30-minute jobs count in but which does not hold her. Her job 9's end (1 h) lets job 10
    start: only job 9 is named, not bob's jobs that end before it."""
    qos = Qos("normal", max_tres_per_user={"gres/gpu": 8}, grp_tres={"gres/gpu": 200})
    lab = Lab("ai", "slurm", qos=[qos])
    for _ in range(8):
        lab.sbatch("-p train -N 1 --gres=gpu:1 -t 30", user="bob", runtime=1800)
    lab.sbatch("-p train -N 1 --gres=gpu:8 -t 1:00:00", user="alice", runtime=3600)
    b = lab.sbatch("-p train -N 1 --gres=gpu:8 -t 1:00:00", user="alice", runtime=3600)
    lab.advance(60)
    text = lab.why_pending(b)
    assert "(the running jobs end at their time limits), job 9 ends by its time limit" in text
    assert "jobs 1," not in text
    assert _start(lab, b) == 3600


def test_whether_an_accounts_limit_may_hold_a_job_depends_on_its_qos():
    """Account lab's GrpTRES gres/gpu=2 holds a job of QOS normal, but not one of QOS big,
    whose own GrpTRES gres/gpu replaces the account's (acct_policy.c): asked in either
    order, each job gets its own answer (the answer is kept per QOS)."""
    from slurmlab.sim.explain import _may_reach

    for order in ((0, 1), (1, 0)):
        lab = Lab(
            "ai", "slurm",
            accounts=[Account("lab", grp_tres="cpu=64,gres/gpu=2", users=["alice"])],
            qos=[Qos("normal"), Qos("big", grp_tres={"gres/gpu": 100})],
        )  # fmt: skip
        keys = [
            lab.sbatch("-p train -N 1 --gres=gpu:8 -t 10 -A lab", user="alice", runtime=600),
            lab.sbatch("-p train -N 1 --gres=gpu:8 -t 10 -A lab --qos=big", user="alice"),
        ]
        lab.advance(1)
        jobs = [lab.sim._lookup(k)[0] for k in keys]  # noqa: SLF001
        got = {i: _may_reach(lab.sim, jobs[i], ("account", "lab"), lab.now) for i in order}
        assert got == {0: True, 1: False}


def test_a_job_over_a_limit_on_its_own_is_told_how_many_nodes_are_within_it():
    """MaxTRESPerUser node=2 and a 3-node job: over on its own, it will never start as it
    is; with --nodes=2 it is within the limit and starts at once."""
    lab = Lab("tiny", "fifo", qos=[Qos("normal", max_tres_per_user={"node": 2})])
    j = lab.sbatch("-N 3 -t 10 --exclusive", runtime=600)
    lab.advance(1)
    text = lab.why_pending(j)
    assert "its request alone is over QOS normal's limit" in text
    assert "with --nodes=2 (instead of 3) it could start now within the limit" in text
    lab.update(j, nodes="2-2")
    assert _start(lab, j) == 1
