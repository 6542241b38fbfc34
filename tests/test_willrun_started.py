"""A job the backfill cycle has just started counts in the cycle's later will-run tests:
cons_common/job_test.c ``_will_run_test`` builds its list of running jobs from the whole
``job_list`` (``_build_cr_job_list``: every job IS_JOB_RUNNING), and backfill.c
``_attempt_backfill`` gave the job it started its ``end_time`` (its start plus its limit),
so a later job planned after the end of a running job also waits for a job the cycle
started that ends within the same batch of ends (``end_time + time_window``), and is
planned at that job's end."""

from __future__ import annotations

from slurmlab import Cluster, Lab

CONF = (
    "NodeName=n[1-3] CPUs=8 RealMemory=32000\n"
    "PartitionName=p Nodes=ALL Default=YES\n"
    "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=120\n"
)


def test_a_job_started_by_the_cycle_joins_the_batch_a_later_plan_waits_for():
    """n1 runs until 600 s, n2 until 3600 s; a 3-node job waits for 3600 s and blocks the
    main scheduler, so the cycle at 5 s starts a 10-minute job on n3 (ending at 605 s) and
    then plans a 5-minute job: its first fit is n1 at 600 s, but the will-run test's first
    batch (ends up to 630 + 30 s, the origin on the 30 s grid) holds 600 s and 605 s, so
    Slurm plans it at 605 s, the started job's end (n1: the first node free then)."""
    lab = Lab(Cluster.from_slurm_conf(CONF), policy="slurm")
    lab.sbatch("-N 1 --exclusive -t 10:00", runtime=600)
    lab.sbatch("-N 1 --exclusive -t 60:00", runtime=3600)
    wide = lab.sbatch("-N 3 --exclusive -t 5:00", runtime=300)
    started = lab.sbatch("-N 1 --exclusive -t 10:00", runtime=600)
    planned = lab.sbatch("-N 1 --exclusive -t 5:00", runtime=300)
    lab.advance("7s")  # (the cycle at 5 s; the next one sees the started job as running)
    runs = lab.sacct().set_index("JobID")
    assert runs.loc[str(started), "NodeList"] == "n3"
    assert (runs.loc[str(started), "Start"] - lab.sim.origin).total_seconds() == 5.0
    queue = lab.squeue().set_index("JOBID")
    assert (queue.loc[str(wide), "START_TIME"] - lab.sim.origin).total_seconds() == 3600.0
    row = queue.loc[str(planned)]
    assert (row["START_TIME"] - lab.sim.origin).total_seconds() == 605.0
    assert row["SCHEDNODES"] == "n1"
