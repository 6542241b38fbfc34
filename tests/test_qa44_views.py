"""Stop 44: past views (squeue(at=), sprio(at=)) show what was true at that instant."""

from __future__ import annotations

import slurmlab


def test_a_finished_job_requeued_later_is_not_listed_before_the_requeue():
    # scontrol.1: requeue "a running, suspended or finished Slurm batch job"; between its end
    # and the requeue the job is finished, and plain squeue lists no finished job (squeue.1).
    lab = slurmlab.Lab("tiny")
    j = lab.sbatch("-N 1 -t 10", runtime=60)
    lab.advance(200)
    assert lab.squeue().empty
    lab.requeue(j)
    lab.advance(10)
    assert lab.result.squeue(at=100).empty
    # from the requeue on it pends again
    assert list(lab.result.squeue(at=205)["JOBID"].astype(str)) == [str(j)]


def test_a_run_requeued_as_it_ends_is_listed_from_that_end():
    # a node failure requeues the job when its run ends (Submit a second later,
    # batch_requeue_fini's now + 1): squeue lists it pending from that end on
    lab = slurmlab.Lab("tiny")
    j = lab.sbatch("-N 1 -t 10", runtime=300)
    lab.advance(100)
    lab.requeue(j)
    lab.advance(1)
    rows = lab.result.squeue(at=100)
    assert list(rows["JOBID"].astype(str)) == [str(j)]
