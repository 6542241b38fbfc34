"""The ``slurm`` policy's per-cycle caps and reservation thresholds (SchedulerParameters
``bf_max_job_user``, ``bf_max_job_assoc``, ``bf_max_job_part``, ``bf_max_job_user_part``,
``bf_max_job_start``, ``bf_min_age_reserve``, ``bf_min_prio_reserve``), as Slurm 22.05.8's
backfill.c has them:

* ``_job_exceeds_max_bf_param``, before a job is tested: once a cycle has counted as many
  jobs of the job's user (in its partition), partition or association as the cap, the job
  is skipped (no start, no expected start, its reason stands); otherwise it counts toward
  each cap, whether or not it then fits. ``bf_max_job_assoc`` set with ``bf_max_job_user``
  wins ("Both bf_max_job_user and bf_max_job_assoc are set: bf_max_job_assoc taking
  precedence").
* ``bf_max_job_start``: the cycle ends once it has started that many jobs.
* ``TEST_NOW_ONLY``: a job of priority below ``bf_min_prio_reserve``, or eligible for less
  than ``bf_min_age_reserve`` seconds, may start now but gets no reservation.

The real fixture ``backfill-caps`` (datasets/realslurm) shows all three on Slurm 22.05.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from slurmlab import Cluster, JobSpec, Lab, Scenario
from slurmlab.errors import SlurmlabError
from slurmlab.policies import Decision, JobFacts, SlurmBackfill
from slurmlab.sim.simulate import slurm_params

FOUR = "NodeName=n[1-4] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES\n"
FIXTURE = Path(__file__).resolve().parents[1] / "datasets/realslurm/scenarios/backfill-caps.yaml"


def lab_with(params: str = "", conf: str = FOUR) -> Lab:
    line = "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=60"
    return Lab(Cluster.from_slurm_conf(conf + line + params + "\n"), policy="slurm")


def table(lab: Lab):
    return lab.sacct().set_index("JobID")


def queued(lab: Lab, jid: int):
    """Job ``jid``'s squeue row."""
    return lab.squeue().set_index("JOBID").loc[str(jid)]


def planned_s(lab: Lab, jid: int) -> float | None:
    """A pending job's expected start (squeue --start) in seconds from the lab's start."""
    start = queued(lab, jid)["START_TIME"]
    return None if start != start else (start - lab.sim.origin).total_seconds()


def started_s(lab: Lab, jid: int) -> float | None:
    """When job ``jid`` started, in seconds from the lab's start (None: not yet)."""
    frame = table(lab)
    start = frame.loc[str(jid), "Start"]
    return None if start != start else (start - frame["Submit"].min()).total_seconds()


def blocked_partition(lab: Lab) -> None:
    """Three of the four nodes busy for 5 minutes (job 1) and a 4-node job behind them
    (job 2, alice's): the main scheduler blocks the partition at job 2, so only backfill
    can start the later jobs."""
    lab.sbatch("-N 3 --exclusive -t 5:00", runtime=200, user="bob")
    lab.sbatch("-N 4 -t 3:00", runtime=60, user="alice")


# -- reading the parameters ---------------------------------------------------------------------


def test_the_caps_are_read_from_scheduler_parameters_and_no_longer_warned_about():
    conf = FOUR + (
        "SchedulerParameters=bf_max_job_user=3,bf_max_job_part=9,bf_max_job_user_part=2,"
        "bf_max_job_start=4,bf_min_age_reserve=600,bf_min_prio_reserve=1000\n"
    )
    cluster = Cluster.from_slurm_conf(conf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = slurm_params(cluster)
    assert params == {
        "bf_max_job_user": 3,
        "bf_max_job_part": 9,
        "bf_max_job_user_part": 2,
        "bf_max_job_start": 4,
        "bf_min_age_reserve": 600,
        "bf_min_prio_reserve": 1000,
    }
    policy = SlurmBackfill(**params)
    assert (policy.bf_max_job_user, policy.bf_min_age_reserve) == (3, 600)


@pytest.mark.parametrize(
    "item,message",
    [
        (
            "bf_max_job_start=10001",
            "bf_max_job_start='10001' must be a whole number from 0 to 10000",
        ),
        ("bf_min_age_reserve=2592001", "from 0 to 2592000"),
        ("bf_max_job_user=-1", "bf_max_job_user='-1' must be a whole number from 0 to 1000000"),
        ("bf_min_prio_reserve=x", "bf_min_prio_reserve='x' must be a whole number"),
    ],
)
def test_values_outside_slurms_ranges_are_refused_naming_the_option(item, message):
    with pytest.raises(SlurmlabError, match=message):
        Cluster.from_slurm_conf(FOUR + f"SchedulerParameters={item}\n")


def test_a_policy_parameter_outside_its_range_is_refused():
    with pytest.raises(SlurmlabError, match="bf_max_job_start=-2 must be a whole number from 0"):
        SlurmBackfill(bf_max_job_start=-2)


def test_user_and_assoc_caps_together_keep_assoc_as_slurm_does():
    with pytest.warns(UserWarning, match="only bf_max_job_assoc applies"):
        policy = SlurmBackfill(bf_max_job_user=2, bf_max_job_assoc=3)
    assert (policy.bf_max_job_user, policy.bf_max_job_assoc) == (0, 3)


# -- the caps on jobs tested ----------------------------------------------------------------------


def test_bf_max_job_user_skips_a_users_third_job_of_a_cycle():
    """Alice's jobs 2 (4 nodes, waiting) and 3 (10 minutes: it would delay job 2) are
    tested; her job 4 (1 minute, fits before job 2's reservation on n4) is not, while
    carol's job 5 of the same shape backfills. Without the cap both start at 5 s."""
    for params, alice_short in (("", 5.0), (",bf_max_job_user=2", None)):
        lab = lab_with(params)
        blocked_partition(lab)
        lab.sbatch("-N 1 -t 10:00", runtime=60, user="alice")
        short = lab.sbatch("-N 1 -t 1:00", runtime=30, user="alice")
        other = lab.sbatch("-N 1 -t 1:00", runtime=30, user="carol")
        lab.advance("20s")
        assert started_s(lab, short) == alice_short, params
        assert started_s(lab, other) == 5.0
    # skipped, it keeps the reason the main scheduler gave it and has no expected start
    assert queued(lab, short)["NODELIST(REASON)"] == "(Priority)"
    assert planned_s(lab, short) is None
    assert planned_s(lab, 2) == 300.0  # (tested: it has its reservation)


def test_a_job_counts_toward_the_cap_whether_or_not_it_fits():
    """Alice's job 2 (4 nodes) cannot start, yet it counts: with bf_max_job_user=1 her short
    job 3, which would fit before job 2's reservation, is not tested; carol's is."""
    lab = lab_with(",bf_max_job_user=1")
    blocked_partition(lab)
    short = lab.sbatch("-N 1 -t 1:00", runtime=30, user="alice")
    other = lab.sbatch("-N 1 -t 1:00", runtime=30, user="carol")
    lab.advance("20s")
    assert started_s(lab, short) is None
    assert started_s(lab, other) == 5.0
    assert planned_s(lab, 2) == 300.0  # job 2, tested and counted, has its reservation


def test_bf_max_job_assoc_counts_per_account_and_user():
    """Alice in two accounts: with bf_max_job_assoc=2 her job in the other account is
    tested (and backfills); with bf_max_job_user=2 it is not."""
    for params, started in ((",bf_max_job_assoc=2", 5.0), (",bf_max_job_user=2", None)):
        lab = lab_with(params)
        lab.sbatch("-N 3 --exclusive -t 5:00 -A a", runtime=200, user="bob")
        lab.sbatch("-N 4 -t 3:00 -A a", runtime=60, user="alice")
        lab.sbatch("-N 1 -t 10:00 -A a", runtime=60, user="alice")
        other_account = lab.sbatch("-N 1 -t 1:00 -A b", runtime=30, user="alice")
        lab.advance("20s")
        assert started_s(lab, other_account) == started, params


def test_bf_max_job_part_and_user_part_count_per_partition():
    """Two partitions over the same four nodes. bf_max_job_part=2: partition p's third job
    is skipped, q's first is tested. bf_max_job_user_part=2: alice's third job in p is
    skipped, her first in q is tested."""
    conf = FOUR.replace("Default=YES", "Default=YES\nPartitionName=q Nodes=ALL")
    for params in (",bf_max_job_part=2", ",bf_max_job_user_part=2"):
        lab = lab_with(params, conf)
        blocked_partition(lab)
        lab.sbatch("-N 1 -t 10:00", runtime=60, user="alice")
        third = lab.sbatch("-N 1 -t 1:00", runtime=30, user="alice")
        in_q = lab.sbatch("-N 1 -t 1:00 -p q", runtime=30, user="alice")
        lab.advance("20s")
        assert started_s(lab, third) is None, params
        assert started_s(lab, in_q) == 5.0, params


def test_bf_max_job_start_ends_a_cycle_after_that_many_starts():
    """Two short jobs fit at once: one cycle starts both, or with bf_max_job_start=1 one
    per cycle (5 s apart, bf_interval=5)."""
    for params, second in (("", 5.0), (",bf_max_job_start=1", 10.0)):
        lab = lab_with(params)
        blocked_partition(lab)
        one = lab.sbatch("-N 1 -t 1:00", runtime=60, user="carol")
        two = lab.sbatch("-N 1 -t 1:00", runtime=60, user="carol")
        lab.advance("30s")
        assert (started_s(lab, one), started_s(lab, two)) == (5.0, second), params


# -- who gets no reservation ------------------------------------------------------------------


def test_bf_min_age_reserve_leaves_a_young_job_without_a_reservation():
    """Job 2 (4 nodes) is eligible at 0. A 10-minute 1-node job submitted at 10 s would
    delay job 2's reservation, so it waits; with bf_min_age_reserve=60 job 2 has no
    reservation in its first minute and the long job backfills on n4 (as in the real
    fixture backfill-caps). Job 2, young, does not block the partition either, so the main
    scheduler starts the long job at its submission."""
    for params, long_start in (("", None), (",bf_min_age_reserve=60", 10.0)):
        lab = lab_with(params)
        blocked_partition(lab)
        lab.advance("10s")
        long = lab.sbatch("-N 1 -t 10:00", runtime=600, user="carol")
        lab.advance("20s")
        assert started_s(lab, long) == long_start, params


def test_a_young_job_has_no_expected_start_until_it_is_old_enough():
    lab = lab_with(",bf_min_age_reserve=60")
    blocked_partition(lab)
    lab.advance("55s")
    assert planned_s(lab, 2) is None
    lab.advance("10s")  # eligible for 60 s at the cycle at 60 s: it reserves
    assert planned_s(lab, 2) == 300.0


def test_bf_min_prio_reserve_leaves_jobs_below_it_without_a_reservation():
    """Under priority/basic job 2 has priority 4294901758: a threshold above it leaves it
    without a reservation (and it blocks not its partition), so the long job starts at its
    submission; at it, job 2 reserves and blocks, and the long job waits."""
    for threshold, long_start in ((4294901759, 0.0), (4294901758, None)):
        lab = lab_with(f",bf_min_prio_reserve={threshold}")
        blocked_partition(lab)
        long = lab.sbatch("-N 1 -t 10:00", runtime=600, user="carol")
        lab.advance("20s")
        assert int(table(lab).loc["2", "Priority"]) == 4294901758
        assert started_s(lab, long) == long_start, threshold


# -- the view's facts ---------------------------------------------------------------------------


class Recorder:
    """A policy of one's own that records what ``view.facts`` says of each queued job."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: dict[int, JobFacts] = {}

    def schedule(self, view):
        for job in view.queue:
            self.seen[job.id] = view.facts(job)
        return Decision()


def test_a_policy_reads_a_queued_jobs_user_account_priority_and_eligible_time():
    recorder = Recorder()
    lab = Lab(Cluster.from_slurm_conf(FOUR), policy=recorder)
    lab.sbatch("-N 1 -t 1:00 -A acct", user="alice")  # (the recorder starts nothing)
    lab.advance("5s")
    lab.sbatch("-N 1 -t 1:00 --begin=now+20", user="bob")
    lab.advance("30s")
    first, second = recorder.seen[1], recorder.seen[2]
    assert (first.user, first.account, first.eligible) == ("alice", "acct", 0.0)
    assert (second.user, second.eligible) == ("bob", 25.0)
    assert first.priority > second.priority  # priority/basic: submit order


def test_the_real_fixture_shows_each_cap_as_slurm_did():
    """backfill-caps on Slurm 22.05: sneak backfilled at 10 s while big was younger than
    60 s; a2 never got a test (alice's big and wide came first) and started with wide; c1
    and c2 started one backfill cycle apart. The simulation does the same."""
    result = Scenario.load(FIXTURE).run()
    jobs = result.jobs.set_index("JobID")
    origin = jobs["Submit"].min()
    start = {jid: (jobs.loc[jid, "Start"] - origin).total_seconds() for jid in jobs.index}
    assert start["sneak"] == 10.0 and start["big"] == 210.0
    # (Slurm started sneak in a backfill cycle that ran in the second of its submission,
    # before the main scheduler's pass: job_scheduler.c would have started it too, big
    # being young; the simulator's main pass at the submission does)
    assert start["a2"] == start["wide"]
    assert start["c2"] - start["c1"] == 5.0


# -- an array's pending record ------------------------------------------------------------------


def test_an_arrays_record_is_one_test_when_its_first_task_cannot_be_reserved():
    """bf_window=3 and bf_max_job_test=4: an 8-task array of 2-node tasks waits behind a
    3-node job whose limit ends beyond the window, so its first task gets no reservation
    and the cycle leaves the record (backfill.c: the array is one job record). The short
    job behind it is tested and backfills on the free node; tested one job per task, the
    array used up the cycle's four tests and the short job waited for the main scheduler
    (as the real fixture backfill-arrays shows, Slurm backfills it)."""
    lab = Lab(
        Cluster.from_slurm_conf(
            FOUR + "SchedulerParameters=bf_interval=5,bf_resolution=10,bf_window=3,"
            "bf_max_job_test=4\n"
        ),
        policy="slurm",
    )
    lab.sbatch("-N 3 --exclusive -t 10:00", runtime=120)
    lab.sbatch("--array=1-8 -N 2 -t 2:00", runtime=20)
    lab.advance("10s")
    short = lab.sbatch("-N 1 -t 1:00", runtime=30)
    lab.advance("20s")
    assert started_s(lab, short) == 15.0
    assert table(lab).loc[str(short), "StartedBy"] == "backfill"


def test_an_arrays_record_gets_at_most_bf_max_job_array_resv_reservations():
    """Four nodes busy for 2 minutes; a 6-task array of 2-node tasks, then a 1-node job.
    Each reservation takes whole nodes for a minute: tasks 1 and 2 at 120 (n[1-2],
    n[3-4]), task 3 at 180. With bf_max_job_array_resv=3 the cycle leaves the array after
    its third reservation, so the 1-node job is planned at 180 on the nodes task 3 leaves;
    with the default (20) tasks 4 to 6 take them (180, 240, 240) and it is planned at 300."""
    for params, planned in ((",bf_max_job_array_resv=3", 180.0), ("", 300.0)):
        lab = lab_with(params)
        lab.sbatch("-N 4 --exclusive -t 2:00", runtime=100)
        lab.sbatch("--array=1-6 -N 2 -t 1:00", runtime=20)
        late = lab.sbatch("-N 1 -t 1:00", runtime=20)
        lab.advance("10s")
        assert planned_s(lab, late) == planned, params


def test_within_an_arrays_record_bf_max_job_test_does_not_end_the_cycle():
    """backfill.c tests bf_max_job_test between job records, not between the tasks of an
    array's record: with bf_max_job_test=2 a 6-task array behind a blocker gets all its
    reservations (the array is the first record), the job after it none. (The map's size,
    bf_node_space_size, is bf_max_job_test by default: 100 records here.)"""
    lab = lab_with(",bf_max_job_test=2,bf_node_space_size=100")
    lab.sbatch("-N 4 --exclusive -t 2:00", runtime=100)
    lab.sbatch("--array=1-6 -N 4 -t 1:00", runtime=20)
    late = lab.sbatch("-N 1 -t 1:00", runtime=20)
    lab.advance("10s")
    plans = lab.sim.jobs
    assert [plans[j].planned for j in sorted(plans) if plans[j].array_id == 2] == [
        120.0, 180.0, 240.0, 300.0, 360.0, 420.0,
    ]  # fmt: skip
    assert planned_s(lab, late) is None


def test_a_task_split_off_its_record_is_a_record_of_its_own():
    """scontrol hold of one task splits it off (its own record): released, it is tested on
    its own, not as part of the array's record."""
    lab = lab_with("")
    lab.sbatch("-N 4 --exclusive -t 2:00", runtime=100)
    lab.sbatch("--array=1-3 -N 4 -t 1:00", runtime=20)
    lab.advance("1s")
    records = {job.id: job.array for job in lab.sim._pending_jobs()}
    assert set(records.values()) == {2}
    lab.hold("2_3")
    lab.release("2_3")
    lab.advance("1s")
    records = {lab.sim.jobs[job.id].key: job.array for job in lab.sim._pending_jobs()}
    assert records == {"2_1": 2, "2_2": 2, "2_3": None}


def test_continued_cycles_equal_full_cycles_with_deep_arrays(monkeypatch):
    """Arrays of 30 and 12 tasks among single jobs arriving one by one (continued backfill
    cycles plan just the new jobs, with the records the previous cycle left): every job's
    start, nodes and whole history of reasons and plans equal those of cycles planned from
    scratch."""
    from slurmlab import Workload, simulate
    from slurmlab.sim.controller import Controller
    from slurmlab.spec.workload import WorkloadJob

    def job(args, submit, runtime):
        return WorkloadJob(JobSpec.from_args(args.split()), submit=submit, runtime=runtime)

    jobs = [job("-N 3 --exclusive -t 10", 0, 400), job("--array=1-30 -N 2 -t 3", 5, 50)]
    jobs += [job(f"-N 1 -t {1 + k % 4}", 7 + 11 * k, 30 + 7 * k) for k in range(20)]
    jobs += [job("--array=1-12 -N 1 -t 2", 60, 40), job("-N 4 -t 5", 61, 100)]
    cluster = Cluster.from_slurm_conf(FOUR)

    def run():
        result = simulate(
            cluster,
            Workload(tuple(jobs)),
            "slurm",
            bf_interval=5,
            bf_resolution=10,
            bf_max_job_array_resv=4,
            bf_max_job_test=6,
            bf_node_space_size=50,
        )
        return result.jobs[["JobID", "Start", "NodeList"]], [
            (j.id, j.reasons, j.plans) for j in result.sim.jobs.values()
        ]

    fast = run()
    with monkeypatch.context() as m:
        m.setattr(Controller, "_unchanged", lambda self: False)
        full = run()
    assert fast[0].equals(full[0]) and fast[1] == full[1]


ARRAYS = Path(__file__).resolve().parents[1] / "datasets/realslurm/scenarios/backfill-arrays.yaml"


def test_the_real_arrays_fixture_backfills_behind_an_arrays_record_as_slurm_did():
    """backfill-arrays on Slurm 22.05: short backfilled on gpu4 at its submission (10 s),
    sweep's record being one test of the four; at 240 s squeue --start showed arr's record
    at 339 s (its second, last, reservation; the map's slots on the epoch's 10-s grid, t0 at
    :41) on cpu[1-2] and late at 399 s on cpu1."""
    result = Scenario.load(ARRAYS).run()
    jobs = result.jobs.set_index("JobID")
    origin = jobs["Submit"].min()
    assert (jobs.loc["short", "Start"] - origin).total_seconds() == 10.0
    assert jobs.loc["short", "StartedBy"] == "backfill"
    queue = result.squeue(at=240).set_index("JOBID")
    seconds = (queue["START_TIME"] - origin).dt.total_seconds()
    assert seconds["arr_1"] == seconds["arr_6"] == 339.0
    assert queue.loc["arr_1", "SCHEDNODES"] == "cpu[1-2]"
    assert (seconds["late"], queue.loc["late", "SCHEDNODES"]) == (399.0, "cpu1")


# -- the main scheduler and an array's record -------------------------------------------------------

TWO = (
    "NodeName=a[1-2] CPUs=4\nNodeName=b1 CPUs=4\n"
    "PartitionName=pa Nodes=a[1-2] Default=YES MaxTime=INFINITE\n"
    "PartitionName=pb Nodes=b1 MaxTime=INFINITE\n"
)


def test_the_main_scheduler_counts_a_waiting_arrays_record_once():
    """job_scheduler.c counts job records toward default_queue_depth: a 20-task array
    waiting in pa is one, so with default_queue_depth=5 a job of the idle partition pb
    behind it starts at its submission (main scheduler); counted task by task, the array
    used up the depth and the job waited for the backfill cycle at 30 s."""
    lab = Lab(Cluster.from_slurm_conf("SchedulerParameters=default_queue_depth=5\n" + TWO), "slurm")
    lab.sbatch("-p pa -N 2 --exclusive -t 60", runtime=3600)
    lab.sbatch("-p pa --array=1-20 -N 1 -t 10", runtime=60)
    lab.advance("3s")
    other = lab.sbatch("-p pb -N 1 -t 10", runtime=60)
    lab.advance("1s")
    assert started_s(lab, other) == 3.0
    assert table(lab).loc[str(other), "StartedBy"] == "main"


def test_the_tasks_a_pass_starts_each_count_toward_the_depth():
    """Within the record each task tested counts (job_depth grows at next_task): with
    default_queue_depth=2 one pass tests three tasks, starting them (one CPU each), and
    stops; the next tasks start at the backfill cycle (30 s)."""
    lab = Lab(Cluster.from_slurm_conf("SchedulerParameters=default_queue_depth=2\n" + TWO), "slurm")
    lab.sbatch("-p pa --array=1-6 -n 1 -t 10", runtime=600)
    lab.advance("31s")
    starts = table(lab)["Start"].sort_index()
    seconds = sorted((starts - table(lab)["Submit"].min()).dt.total_seconds())
    assert seconds == [0.0, 0.0, 0.0, 30.0, 30.0, 30.0]


def test_the_real_queue_depth_fixture_starts_the_job_behind_an_array_at_once():
    """queue-depth on Slurm 22.05 (default_queue_depth=2, bf_interval=60): cpujob, the third
    job record behind pair and sweep's pending tasks, started at its submission (10 s) by
    the main scheduler; the simulation does the same."""
    path = FIXTURE.parent / "queue-depth.yaml"
    jobs = Scenario.load(path).run().jobs.set_index("JobID")
    origin = jobs["Submit"].min()
    assert (jobs.loc["cpujob", "Start"] - origin).total_seconds() == 10.0
    assert jobs.loc["cpujob", "StartedBy"] == "main"


def test_a_young_job_does_not_block_its_partition_in_the_main_scheduler():
    """job_scheduler.c: a job eligible for less than bf_min_age_reserve does not stop the
    main scheduler's pass over its partition (slurm.conf(5): it "will not prevent a newly
    submitted job from starting immediately"). Job 2 (4 nodes) waits from 0 s; a 10-minute
    1-node job submitted at 12 s starts at once by the main scheduler (with
    bf_interval=30, backfill would start it only at 30 s). Once job 2 is 60 s old it
    blocks the partition again: a 1-node job submitted at 70 s waits."""
    lab = Lab(
        Cluster.from_slurm_conf(
            FOUR.replace("n[1-4]", "n[1-5]")
            + "SchedulerParameters=bf_interval=30,bf_resolution=10,bf_window=60,"
            "bf_min_age_reserve=60\n"
        ),
        policy="slurm",
    )
    lab.sbatch("-N 3 --exclusive -t 5:00", runtime=200, user="bob")
    lab.sbatch("-N 5 -t 3:00", runtime=60, user="alice")
    lab.advance("12s")
    young = lab.sbatch("-N 1 -t 10:00", runtime=600, user="carol")
    lab.advance("1s")
    assert started_s(lab, young) == 12.0
    assert table(lab).loc[str(young), "StartedBy"] == "main"
    assert queued(lab, 2)["NODELIST(REASON)"] == "(Resources)"
    lab.advance("57s")
    old = lab.sbatch("-N 1 -t 1:00", runtime=30, user="carol")
    lab.advance("1s")
    assert started_s(lab, old) is None
    assert queued(lab, old)["NODELIST(REASON)"] == "(Priority)"


def test_why_pending_says_a_capped_job_was_not_tested_and_a_young_one_gets_no_reservation():
    """why_pending said "it has to wait" of a job that fits now but that no backfill cycle
    tested (bf_max_job_user), and of a job too young for a reservation."""
    lab = lab_with(",bf_max_job_user=2")
    blocked_partition(lab)
    lab.sbatch("-N 1 -t 10:00", runtime=60, user="alice")
    short = lab.sbatch("-N 1 -t 1:00", runtime=30, user="alice")
    lab.advance("20s")
    why = lab.why_pending(short)
    assert "The last backfill cycle did not test it (squeue --start shows N/A)" in why
    assert "at most 2 of one user (bf_max_job_user)" in why
    assert "has to wait" not in why
    lab = lab_with(",bf_min_age_reserve=60")
    blocked_partition(lab)
    lab.advance("20s")
    assert lab.why_pending(2).endswith(
        "It has been eligible for 20 s, less than bf_min_age_reserve=60: backfill gives it "
        "no reservation (squeue --start shows N/A), and it holds no later job of its "
        "partition back; it starts when it fits now, and gets a reservation from t=60s "
        "(2026-01-05T00:01:00)."
    )


# -- the review of the change (stop 35) ------------------------------------------------------------


def conf_lab(extra: str, parts: str = "PartitionName=p Nodes=ALL Default=YES\n") -> Lab:
    return Lab(
        Cluster.from_slurm_conf(
            f"NodeName=n[1-4] CPUs=8 RealMemory=32000\n{parts}SchedulerParameters={extra}\n"
        ),
        policy="slurm",
    )


@pytest.mark.parametrize("extra", ["bf_interval=30", "bf_interval=30,sched_interval=-1"])
def test_an_array_of_several_partitions_starts_its_tasks_in_one_cycle(extra):
    """-p a,b gives an array's pending tasks a record per partition (job_scheduler.c): its
    queue entries interleave (task 1 in a, task 1 in b, task 2 in a...). Keyed by array
    alone, the record was left when task 1's entry in b was passed over (started in a), so
    the tasks started one per cycle (30, 60, 90 s); all three start at 30 s."""
    lab = conf_lab(extra, "PartitionName=a Nodes=ALL Default=YES\nPartitionName=b Nodes=ALL\n")
    lab.sbatch("-N 1 --exclusive -t 10:00", runtime=600)
    lab.sbatch("-N 4 -p a,b -t 10:00", runtime=60)
    lab.sbatch("--array=1-3 -N 1 --exclusive -p a,b -t 2:00", runtime=100)
    lab.advance("200s")
    starts = table(lab)["Start"]
    assert [(starts[k] - lab.sim.origin).total_seconds() for k in ("3_1", "3_2", "3_3")] == [
        30.0, 30.0, 30.0,
    ]  # fmt: skip


def test_a_job_growing_old_enough_between_idle_cycles_gets_its_reservation():
    """The backfill timer sleeps through idle cycles but wakes when a job becomes old
    enough for a reservation; a moment that passed before an idle tick (job 2 old at 70 s,
    the last cycle at 60 s, the next tick at 90 s idle) was lost, and so was the next one
    (job 3 at 100 s): both got their reservations only at the next event (1200 s)."""
    lab = conf_lab("bf_interval=30,bf_resolution=10,bf_min_age_reserve=60")
    lab.sbatch("-N 3 --exclusive -t 20:00", runtime=1200)
    lab.advance("10s")
    lab.sbatch("-N 4 -t 5:00", runtime=60)
    lab.advance("30s")
    lab.sbatch("-N 4 -t 5:00", runtime=60)
    lab.advance("100s")
    assert (lab.sim.jobs[2].planned, lab.sim.jobs[3].planned) == (1200.0, 1500.0)


def test_a_job_that_may_only_start_now_and_cannot_is_not_counted_as_tested():
    """backfill.c: a TEST_NOW_ONLY job for which the map leaves too few nodes now goes no
    further (no later try) and does not count toward bf_max_job_test. Job 3 (2 nodes,
    young) cannot start now; job 4 (1 node, 1 minute) is still tested with
    bf_max_job_test=2, and backfills at 70 s."""
    lab = conf_lab("bf_interval=5,bf_resolution=10,bf_max_job_test=2,bf_min_age_reserve=60")
    lab.sbatch("-N 3 --exclusive -t 5:00", runtime=300)
    lab.sbatch("-N 4 -t 5:00", runtime=60)
    lab.advance("65s")
    lab.sbatch("-N 2 -t 10:00", runtime=60)
    short = lab.sbatch("-N 1 -t 1:00", runtime=30)
    lab.advance("60s")
    assert started_s(lab, short) == 70.0


def test_no_array_record_is_tested_by_backfill_with_bf_max_job_array_resv_zero():
    """backfill.c _job_runnable_now: pend_run_tasks (0) >= bf_max_job_array_resv (0), so
    backfill tests no array's pending record; with sched_interval=-1 its tasks never start
    (a plain job does)."""
    lab = conf_lab("bf_interval=5,sched_interval=-1,bf_max_job_array_resv=0")
    lab.sbatch("--array=1-3 -N 1 -t 2:00", runtime=60)
    plain = lab.sbatch("-N 1 -t 2:00", runtime=60)
    lab.advance("30s")
    assert started_s(lab, plain) == 5.0
    assert table(lab).loc[["1_1", "1_2", "1_3"], "Start"].isna().all()


# -- the second review (stop 35) -------------------------------------------------------------------


def test_a_young_job_short_of_nodes_still_blocks_its_partition():
    """job_scheduler.c: a job whose partition has too few usable nodes fails its partition
    at once (fail_this_part), before the bf_min_age_reserve exception: job 3 (lo, 2 nodes,
    n1 held for the blocked hi partition) shows slurmctld's words and job 4 waits."""
    from slurmlab.policies.base import NODES_OUT

    conf = (
        "NodeName=n[1-2] CPUs=4 RealMemory=4000\n"
        "PartitionName=hi Nodes=n1 PriorityTier=2 MaxTime=INFINITE\n"
        "PartitionName=lo Nodes=n[1-2] Default=YES PriorityTier=1 MaxTime=INFINITE\n"
        "SchedulerParameters=bf_interval=30,bf_min_age_reserve=600\n"
    )
    lab = Lab(Cluster.from_slurm_conf(conf), "slurm")
    lab.sbatch("-p hi -N 1 --exclusive -t 60", runtime=3600)
    lab.sbatch("-p hi -N 1 --exclusive -t 10", runtime=60)
    lab.advance("700s")
    wide = lab.sbatch("-p lo -N 2 -t 10", runtime=60)
    later = lab.sbatch("-p lo -N 1 -t 10", runtime=60)
    lab.advance("1s")
    assert queued(lab, wide)["NODELIST(REASON)"] == f"({NODES_OUT})"
    assert queued(lab, later)["NODELIST(REASON)"] == "(Priority)"


def test_a_pass_cut_at_its_depth_is_not_continued():
    """Every _schedule() call starts from the head of the queue: a pass cut at
    default_queue_depth was continued by the next (after arrivals) from its position, so
    j3 waited for backfill (30 s) where a full pass starts it at 6 s."""
    from slurmlab import Workload, simulate
    from slurmlab.spec.workload import WorkloadJob

    cluster = Cluster.from_slurm_conf(
        "NodeName=n1 CPUs=2 RealMemory=4000\nNodeName=n2 CPUs=4 RealMemory=4000\n"
        "NodeName=n3 CPUs=8 RealMemory=8000\n"
        "PartitionName=a Nodes=n1,n2,n3 Default=YES MaxTime=INFINITE\n"
        "PartitionName=b Nodes=n1,n2,n3 PriorityTier=2 MaxTime=INFINITE\n"
    )
    jobs = (
        WorkloadJob(JobSpec.from_args(["-t", "6"]), 0, 300, id="j2"),
        WorkloadJob(JobSpec.from_args(["-t", "6"]), 0, 60, id="j3"),
        WorkloadJob(JobSpec.from_args(["-t", "1"]), 6, 600, id="j5"),
    )
    table = simulate(cluster, Workload(jobs), "slurm", default_queue_depth=0).jobs
    j3 = table.set_index("JobID").loc["j3"]
    assert (j3["Start"] - table["Submit"].min()).total_seconds() == 6.0
    assert j3["StartedBy"] == "main"


def test_an_arrays_reservations_are_counted_across_its_partitions():
    """backfill.c counts reservations per array (test_array_job_id), so -p pa,pb's second
    record goes on from the first's count: with bf_max_job_array_resv=2, one task is
    reserved in pa and one in pb, and job 4 is planned at 30 s on b1, not after two."""
    conf = (
        "NodeName=a1 CPUs=4 RealMemory=4000\nNodeName=b1 CPUs=4 RealMemory=4000\n"
        "PartitionName=pa Nodes=a1 Default=YES PriorityTier=2 MaxTime=INFINITE\n"
        "PartitionName=pb Nodes=b1 MaxTime=INFINITE\n"
        "SchedulerParameters=bf_interval=30,bf_resolution=60,bf_max_job_array_resv=2\n"
    )
    lab = Lab(Cluster.from_slurm_conf(conf), "slurm")
    lab.sbatch("-p pa -N1 --exclusive -t 20", runtime=1200)
    lab.sbatch("-p pb -N1 --exclusive -t 20", runtime=1200)
    lab.sbatch("-p pa,pb --array=0-5 -N1 --exclusive -t 10", runtime=600)
    job = lab.sbatch("-p pb -N1 --exclusive -t 10", runtime=600)
    lab.advance("31s")
    assert planned_s(lab, job) == 1800.0


def test_why_pending_of_an_array_task_reads_its_records_plan():
    """A pending task shows its record's plan in squeue; why_pending said the cycle "did not
    test it" when the task itself had no reservation of its own."""
    lab = lab_with(",bf_max_job_array_resv=2")
    lab.sbatch("-N 4 --exclusive -t 2:00", runtime=100)
    lab.sbatch("--array=0-5 -N 4 -t 1:00", runtime=20)
    lab.advance("10s")
    assert planned_s(lab, "2_4") is not None
    assert "did not test it" not in lab.why_pending("2_4")


def test_why_pending_says_backfill_tests_no_array_with_bf_max_job_array_resv_zero():
    lab = conf_lab("bf_interval=5,sched_interval=-1,bf_max_job_array_resv=0")
    lab.sbatch("--array=1-2 -N 1 -t 2:00", runtime=60)
    lab.advance("30s")
    assert lab.why_pending("1_1").endswith(
        "Backfill tests no array's pending tasks (bf_max_job_array_resv=0, squeue --start "
        "shows N/A), and with no main scheduler (sched_interval=-1) none of them ever starts."
    )


def test_a_task_split_off_a_rejected_array_is_not_tested_after_it():
    """job_scheduler.c reject_array_job: once an element of an array is tested and not
    started in a partition, the array's later elements there (a task split off its record
    by a hold and release) are not tested, nor counted toward default_queue_depth, and show
    the rejected element's reason: with default_queue_depth=1, job 6 of the idle partition q
    is still reached and starts at its submission (3 s); 2_2 shows Resources."""
    conf = (
        "NodeName=n1 CPUs=4 RealMemory=4000\nNodeName=n2 CPUs=4 RealMemory=4000\n"
        "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n"
        "PartitionName=q Nodes=n2 MaxTime=INFINITE\n"
        "SchedulerParameters=bf_interval=30,default_queue_depth=1\n"
    )
    lab = Lab(Cluster.from_slurm_conf(conf), "slurm")
    lab.sbatch("-p p -N1 --exclusive -t 60", runtime=3600)
    lab.sbatch("-p p --array=0-3 -N1 --exclusive -t 10", runtime=60)
    lab.advance("1s")
    lab.hold("2_2")
    lab.advance("1s")
    lab.release("2_2")
    lab.advance("1s")
    other = lab.sbatch("-p q -N1 -t 10", runtime=60)
    lab.advance("1s")
    assert started_s(lab, other) == 3.0
    assert queued(lab, "2_2")["NODELIST(REASON)"] == "(Resources)"


def test_a_throttled_arrays_record_is_reserved_for_beyond_its_throttle():
    """backfill.c: a reservation does not count against an array's %N (job_array_start_test
    counts running tasks), so a cycle reserves for a waiting --array=1-6%2 record's six
    tasks (four nodes at 300 s, two at 420 s), not two; the later 1-node job is planned at
    420 s, after them (the real fixture backfill-throttle shows it). Starts are as before:
    two tasks at a time when the blocker ends, and the later job beside them."""
    lab = lab_with("")
    lab.sbatch("-N 4 --exclusive -t 5:00", runtime=100)
    lab.sbatch("--array=1-6%2 -N 1 --exclusive -t 2:00", runtime=30)
    late = lab.sbatch("-N 1 --exclusive -t 2:00", runtime=30)
    lab.advance("12s")
    assert planned_s(lab, "2_1") == 420.0  # (the record shows its last reservation)
    assert planned_s(lab, late) == 420.0
    lab.advance("200s")
    starts = table(lab)["Start"]
    seconds = {k: (starts[k] - lab.sim.origin).total_seconds() for k in starts.index}
    assert [seconds[f"2_{i}"] for i in range(1, 7)] == [100.0, 100.0, 130.0, 130.0, 160.0, 160.0]
    assert seconds[str(late)] == 100.0


def test_a_throttled_array_whose_slots_fill_by_starting_is_not_reserved_beyond():
    """After a start fills the throttle, job_array_start_test ends the record: with one free
    node, --array=1-4%1 starts its first task and reserves nothing more."""
    lab = lab_with("")
    lab.sbatch("-N 3 --exclusive -t 5:00", runtime=100)
    lab.sbatch("--array=1-4%1 -N 1 --exclusive -t 2:00", runtime=30)
    lab.advance("12s")
    assert started_s(lab, "2_1") == 0.0
    assert all(lab.sim.jobs[j].planned is None for j in (3, 4, 5))


def test_the_real_throttle_fixture_plans_the_later_job_after_the_sixth_task():
    """backfill-throttle on Slurm 22.05: at 40 s squeue --start showed sweep's record and
    late planned at 418 s (the blocker started at 1 s: its limit ends at 301, the second
    wave of tasks at 421 rounded down to bf_resolution on the epoch's grid, t0 at :52) on
    gpu2 and gpu3: all six tasks of the --array=1-6%2 record were reserved for. The
    simulation plans both at 418 s on the same nodes (reserving two tasks only, it planned
    late at 300 s)."""
    path = FIXTURE.parent / "backfill-throttle.yaml"
    result = Scenario.load(path).run()
    queue = result.squeue(at=40).set_index("JOBID")
    origin = result.jobs["Submit"].min()
    seconds = (queue["START_TIME"] - origin).dt.total_seconds()
    assert (seconds["sweep_1"], queue.loc["sweep_1", "SCHEDNODES"]) == (418.0, "gpu2")
    assert (seconds["late"], queue.loc["late", "SCHEDNODES"]) == (418.0, "gpu3")
