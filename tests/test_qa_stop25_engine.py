"""QA stop 25, the engine: reviews by a GPU-cluster admin and a trace-replay researcher.

* ``slurm``: backfill.c tests a job over the node_space records of its window with
  ``node_space[j].begin_time <= end_time``, so a job ending at the first second of a
  planned reservation overlaps it and is not backfilled (a job starting at a reservation's
  end does not overlap it).
* ``conservative``: a job whose planned start has passed (a running job ahead of it ran past
  its time limit, as traces replay) keeps its place ahead of the later reservations: it is
  placed first, at its earliest start; the reservations that counted on its nodes are
  planned again in priority order.
"""

from __future__ import annotations

import pandas as pd
import pytest

from slurmlab import read_swf
from slurmlab.records.swf import swf_cluster
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import Workload, WorkloadJob

FOUR_GPU = Cluster.from_slurm_conf(
    "GresTypes=gpu\n"
    "NodeName=g[1-4] CPUs=64 RealMemory=512000 Gres=gpu:h100:8\n"
    "PartitionName=p Nodes=g[1-4] Default=YES MaxTime=INFINITE\n"
)


def job(id: str, args: str, submit: float, runtime: float) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id)


def starts(result) -> dict[str, float]:
    return dict(zip(result.jobs["JobID"].astype(str), result.seconds("Start"), strict=True))


def test_slurm_does_not_backfill_a_job_ending_at_a_reservations_first_second():
    # R holds g[1-2] until 1:00:00; W (all four nodes) is planned from 1:00:00. S2 would end
    # at 1:00:00 exactly if the 60 s cycle started it: backfill.c's begin_time <= end_time
    # counts that as overlapping W's reservation, so S2 waits until W ends (4,200 s).
    work = Workload(
        (
            job("R", "-N 2 --gres=gpu:8 -t 1:00:00", 0, 3600),
            job("W", "-N 4 --gres=gpu:8 -t 1:00:00", 10, 600),
            job("S2", "-N 1 --gres=gpu:8 -t 59:00", 40, 600),
        )
    )
    r = simulate(FOUR_GPU, work, policy="slurm", progress=False)
    assert starts(r) == {"R": 0.0, "W": 3600.0, "S2": 4200.0}
    # with -t 58:00 it ends at 60 + 3,480 = 3,540 s, before the reservation: backfilled
    short = Workload((*work.jobs[:2], job("S2", "-N 1 --gres=gpu:8 -t 58:00", 40, 600)))
    r = simulate(FOUR_GPU, short, policy="slurm", progress=False)
    assert starts(r)["S2"] == 60.0
    assert r.jobs.set_index("JobID").loc["S2", "StartedBy"] == "backfill"


def trace(tmp_path, lines: str):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 10\n" + lines)
    return read_swf(path)


def run_trace(work, policy: str) -> dict[str, float]:
    return starts(simulate(swf_cluster(work.max_procs), work, policy=policy, progress=False))


def test_conservative_keeps_a_late_job_ahead_of_later_reservations(tmp_path):
    # The reviewer's trace: job 2 asks for 100 s and runs 300 s. Job 3 was planned at 100 s;
    # job 4 (50 s) at 400 s. When job 2 ends at 300 s, job 3 (planned earlier) starts then,
    # not job 4 (which would have delayed job 3 to 350 s).
    work = trace(
        tmp_path,
        "1 0 -1 400 5 -1 -1 5 400 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 0 -1 300 5 -1 -1 5 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "3 1 -1 500 5 -1 -1 5 500 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "4 2 -1 50 5 -1 -1 5 50 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    assert run_trace(work, "conservative") == {"1": 0.0, "2": 0.0, "3": 300.0, "4": 400.0}


@pytest.mark.parametrize("policy", ["conservative", "easy", "fifo"])
def test_a_late_jobs_new_slot_that_breaks_a_later_reservation_replans_in_priority_order(
    tmp_path, policy
):
    # Job 1 asks for 100 s and runs 1,000 s. Job 3 was planned at 100 s (job 1's limit) and
    # job 4 (the whole machine) at 600 s. At 600 s job 3 starts on job 2's processors, which
    # job 4's reservation counted on: job 4 is planned again behind it and starts when job 1
    # really ends. Before, job 4 kept its reservation and job 3 waited until 1,100 s.
    work = trace(
        tmp_path,
        "1 0 -1 1000 5 -1 -1 5 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 0 -1 600 5 -1 -1 5 600 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "3 1 -1 200 5 -1 -1 5 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "4 2 -1 100 10 -1 -1 10 100 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    assert run_trace(work, policy) == {"1": 0.0, "2": 0.0, "3": 600.0, "4": 1000.0}


def test_conservative_late_jobs_never_start_after_later_submitted_jobs_on_fifo_shaped_traces(
    tmp_path,
):
    # Equal widths (every job needs half the machine): no job can slip into a gap an
    # earlier one could not use, so under conservative (as under fifo) jobs start in
    # submit order, whatever the overruns.
    lines = []
    for i in range(1, 41):
        run = 50 + (i * 37) % 400
        limit = run if i % 3 else max(10, run // 4)  # every third job overruns its limit
        lines.append(f"{i} {i} -1 {run} 5 -1 -1 5 {limit} -1 1 1 1 -1 -1 -1 -1 -1\n")
    work = trace(tmp_path, "".join(lines))
    got = run_trace(work, "conservative")
    order = [got[str(i)] for i in range(1, 41)]
    assert order == sorted(order)
    assert got == run_trace(work, "fifo")
    assert isinstance(pd.Series(order).iloc[0], float)
