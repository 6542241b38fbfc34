"""sacct's lines for a simulation: an array's tasks still in its pending record are one line
(``2_[0-3,5%2]``, JobIDRaw the array's), a task scancel took out of that record has none, and
the lines come in sacct's order (by Submit, then ArrayJobID and task: options.c
_sort_desc_submit_time). The task list is written as Slurm 22.05's xlate_array_task_str
writes it, for squeue too: a regular stride as ``0-20:2``, a long list cut at 64 characters.

Ground truth: every real-Slurm fixture's sacct (datasets/realslurm) and, during a run, sacct
on real Slurm 22.05.8 by hand (a blocker, ``--array=0-5%2`` with task 4 held, ``--array=0-3``
with task 1 cancelled: ``2_4 4 PENDING``, ``2_[0-3,5%2] 2 PENDING``, ``3_[0,2-3] 3 PENDING``).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from slurmlab import Cluster, Lab
from slurmlab.errors import SlurmlabError
from slurmlab.sim.magics import sacct_magic
from slurmlab.sim.result import sacct_records, squeue_frame
from slurmlab.spec.units import array_task_str, index_ranges

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "realslurm"))

from fidelity_counts import diverged, meta_ids, sacct_seconds  # noqa: E402
from scorecard import DIVERGED, STATE_SIMPLIFICATIONS, replay_result, scenario_runs  # noqa: E402

SCENARIOS = list(scenario_runs())


def lines(text: str) -> list[list[str]]:
    """The rows of a sacct_text, split into their cells."""
    return [line.split() for line in text.splitlines()[2:]]


def tiny_lab(*jobs: tuple[str, float]) -> Lab:
    """A fifo lab on the tiny preset (4 nodes) with ``jobs`` submitted: (sbatch options,
    run time in seconds)."""
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    for args, runtime in jobs:
        lab.sbatch(f"{args} --wrap=sleep", runtime=runtime)
    return lab


def blocked_lab() -> Lab:
    """The by-hand run: a job holds all 4 nodes of the tiny preset, two arrays wait."""
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("-N 4 --exclusive -t 1:00:00 --wrap=sleep", runtime="1h")  # 1
    lab.sbatch("--array=0-5%2 -n 1 -t 10:00 --wrap=sleep", runtime="5m")  # 2
    lab.sbatch("--array=0-3 -n 1 -t 10:00 --wrap=sleep", runtime="5m")  # 3
    lab.advance(10)
    lab.hold("2_4")
    lab.scancel("3_1")
    lab.advance(10)
    return lab


def test_a_pending_record_is_one_line_as_real_sacct_prints_it():
    lab = blocked_lab()
    rows = lines(lab.sacct_text("JobID%20,JobIDRaw,State"))
    assert rows == [
        ["1", "1", "RUNNING"],
        # (2_4, held alone, is split off with JobID 4, but a hold unsets its eligible time:
        # sacct without -j does not list it until it is released)
        ["2_[0-3,5%2]", "2", "PENDING"],
        ["3_[0,2-3]", "3", "PENDING"],  # (3_1, cancelled inside the record: no line)
    ]
    # the job table keeps a row per task, the cancelled one too, and so does array=True
    table = lab.sacct()
    assert len(table) == 1 + 6 + 4
    assert table.loc[table["JobID"] == "3_1", "State"].item() == "CANCELLED"
    expanded = lines(lab.sacct_text("JobID%20,JobIDRaw,State", array=True))
    assert [r[0] for r in expanded] == ["1"] + [f"2_{t}" for t in range(6)] + [
        f"3_{t}" for t in range(4)
    ]
    assert ["3_1", "3", "CANCELLED"] in expanded
    assert ["2_4", "4", "PENDING"] in expanded
    lab.release("2_4")
    rows = lines(lab.sacct_text("JobID%20,JobIDRaw,State"))
    assert rows[1:3] == [["2_4", "4", "PENDING"], ["2_[0-3,5%2]", "2", "PENDING"]]


def test_the_tasks_take_lines_of_their_own_as_they_start():
    lab = blocked_lab()
    lab.release("2_4")  # (under priority/basic: behind every job queued)
    lab.advance("1h")  # the blocker ends: 2 tasks of array 2 (%2) and all of array 3 start
    rows = lines(lab.sacct_text("JobID%20,JobIDRaw,State"))
    assert [r[0] for r in rows] == ["1", "2_0", "2_1", "3_0", "3_2", "3_3"]
    assert "3_1" not in [r[0] for r in rows]  # (never a line: slurmdbd never had one)
    # the tasks held back by the throttle (JobArrayTaskLimit) are not listed: slurmctld
    # gives slurmdbd an infinite eligible time for them
    expanded = lines(lab.sacct_text("JobID%20,JobIDRaw,State", array=True))
    pending = [r for r in expanded if r[2] == "PENDING"]
    assert pending == [
        ["2_2", "2", "PENDING"],
        ["2_3", "2", "PENDING"],
        ["2_4", "4", "PENDING"],
        ["2_5", "2", "PENDING"],
    ]
    assert "(JobArrayTaskLimit)" in lab.why_pending("2_2")


def test_a_record_cancelled_whole_is_one_cancelled_line():
    lab = blocked_lab()
    lab.scancel("3")
    rows = lines(lab.sacct_text("JobID%20,JobIDRaw,State"))
    assert ["3_[0,2-3]", "3", "CANCELLED"] in rows
    assert not [r for r in rows if r[0].startswith("3_") and r[0] != "3_[0,2-3]"]


def test_a_record_of_one_task_keeps_its_brackets_until_a_start_leaves_it_one():
    """As squeue: --array=3 pending is 1_[3]; the last task of an array whose other tasks
    started is the record itself then, 1_5 (job_array_post_sched)."""
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("-N 4 --exclusive -t 1:00:00 --wrap=sleep", runtime="1h")
    lab.sbatch("--array=3 -n 1 -t 10:00 --wrap=sleep", runtime="5m")
    lab.advance(5)
    assert ["2_[3]", "2", "PENDING"] in lines(lab.sacct_text("JobID,JobIDRaw,State"))

    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("--array=0-4 -N 1 --exclusive -t 10:00 --wrap=sleep", runtime="5m")
    lab.advance(5)  # tasks 0-3 start on the 4 nodes; 4 is left: the record is 1_4 now
    rows = lines(lab.sacct_text("JobID,JobIDRaw,State"))
    assert ["1_4", "1", "PENDING"] in rows
    assert lab.squeue_text().count("1_4") == 1


def test_sacct_order_puts_plain_jobs_before_arrays_submitted_in_the_same_second():
    """sacct sorts by Submit, then ArrayJobID (0 for a job that is no array task): a job
    submitted with an array in the same second comes first, whatever its JobID."""
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("--array=0-1 -n 1 -t 10:00 --wrap=sleep", runtime="5m")  # 1 (1_0 starts: 2)
    lab.sbatch("-n 1 -t 10:00 --wrap=sleep", runtime="5m")  # 3, the same second
    lab.advance(1)
    lab.sbatch("-n 1 -t 10:00 --wrap=sleep", runtime="5m")  # 4
    lab.advance("1h")
    rows = lines(lab.sacct_text("JobID,JobIDRaw"))
    assert rows == [["3", "3"], ["1_0", "2"], ["1_1", "1"], ["4", "4"]]


def test_squeue_and_sacct_write_a_stride_and_cut_a_long_list_as_slurm():
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("-N 4 --exclusive -t 1:00:00 --wrap=sleep", runtime="1h")
    lab.sbatch("--array=0-20:2 -n 1 -t 10:00 --wrap=sleep", runtime="5m")
    odd = ",".join(str(i) for i in range(200) if i % 3)  # (no stride: 1,2,4,5,7,...)
    lab.sbatch(f"--array={odd} -n 1 -t 10:00 --wrap=sleep", runtime="5m")
    lab.advance(5)
    sacct = lab.sacct_text("JobID%70,State")
    squeue = lab.squeue_text()
    assert "2_[0-20:2]" in sacct and "2_[0-20:2]" in squeue
    cut = "3_[" + index_ranges([i for i in range(200) if i % 3])[:60] + "...]"
    assert len(cut) == 3 + 63 + 1
    assert cut in sacct
    # (squeue's %.18i column cuts it further)
    assert any(line.startswith(f"{cut[:18]} ") for line in squeue.splitlines())


@pytest.mark.parametrize(
    "tasks,throttle,text",
    [
        ([0, 1, 2, 3, 5], 2, "0-3,5%2"),
        ([4], None, "4"),
        (list(range(0, 21, 2)), None, "0-20:2"),  # a stride: span > 10, more than 5 tasks
        (list(range(0, 10, 2)), None, "0,2,4,6,8"),  # span 8: no stride
        ([0, 3, 6, 9, 12], None, "0,3,6,9,12"),  # 5 tasks: no stride
        ([0, 1, 3, 5, 7, 9, 11, 13], None, "0-1,3,5,7,9,11,13"),  # 2nd id set: no stride
        (list(range(5, 100, 7)), 4, "5-96:7%4"),
    ],
)
def test_array_task_str_follows_xlate_array_task_str(tasks, throttle, text):
    assert array_task_str(tasks, throttle) == text


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(0, 400), min_size=1, max_size=80), st.sampled_from([0, 16, 64]))
def test_array_task_str_is_the_ranges_or_their_first_characters(tasks, bitstr_len):
    """Without a stride, the list is index_ranges' text, whole when it fits in bitstr_len
    - 2 characters (or bitstr_len is 0), else its first bitstr_len - 4 and '...'."""
    text = array_task_str(tasks, bitstr_len=bitstr_len)
    full = index_ranges(sorted(tasks))
    if ":" in text:  # a stride: first-last:step naming exactly these tasks
        span, step = text.split(":")
        lo, hi = map(int, span.split("-"))
        assert set(range(lo, hi + 1, int(step))) == tasks
    elif bitstr_len == 0 or len(full) <= bitstr_len - 3:
        assert text == full
    else:
        assert text == full[: bitstr_len - 4] + "..."
        assert len(text) == bitstr_len - 1


def test_array_must_be_true_or_false_and_the_magic_takes_array(capsys):
    lab = blocked_lab()
    with pytest.raises(SlurmlabError, match="array is True or False"):
        lab.result.sacct_text(array="yes")
    sacct_magic("-o JobID%20,State --array")
    out = capsys.readouterr().out
    assert "2_0" in out and "3_1" in out and "[" not in out.split("\n", 2)[2]
    sacct_magic("-o JobID%20,State")
    assert "2_[0-3,5%2]" in capsys.readouterr().out


def translate(key: str, ids: dict[str, str]) -> str:
    """A simulated JobID with the real JobIDs of a fixture's scenario ids."""
    if key in ids:
        return ids[key]
    if "_[" in key:
        base, rest = key.split("_[", 1)
        return f"{ids.get(base, base)}_[{rest}"
    base, _, task = key.rpartition("_")
    return f"{ids.get(base, base)}_{task}" if base else key


#: Fixtures whose sacct lines knowingly differ (strict xfail: a fix shows as news).
LINES_ORDER_DIFFERENCES = {
    "preempt-grace": (
        "sacct -D lists a requeued job's next run from the row slurmdbd made at the requeue: "
        "g3's (requeued at 46 s) before g2's (51 s: it ignored SIGTERM and was killed KillWait "
        "later); the simulator requeues both at their grace end (41, 42 s), KillWait and the "
        "30-s time-limit check not modelled"
    ),
    "preempt-reorder": (
        "in the second of a preemption slurmdbd had the preemptor's start row before the "
        "victim's requeue row for h2/l1 and h3/b,d (not for h1/v2); the simulator lists the "
        "requeue first"
    ),
}


def _known(cases, known):
    return [
        pytest.param(p, out, id=p.stem, marks=pytest.mark.xfail(reason=known[p.stem], strict=True))
        if p.stem in known
        else pytest.param(p, out, id=p.stem)
        for p, out in cases
    ]


@pytest.mark.parametrize("yaml_path,out", _known(SCENARIOS, LINES_ORDER_DIFFERENCES))
def test_sacct_lists_the_lines_real_slurm_listed(yaml_path, out):
    """Every fixture: the simulation's sacct -D lines (JobID, JobIDRaw, State) are real
    sacct's, in its order: array-records' cancelled record is one line (4_[0-3]), its task
    cancelled inside the record none. The runs of a job whose final state knowingly differs
    (scorecard.STATE_SIMPLIFICATIONS), and those submitted or started after the fixture's
    run takes another path (scorecard.DIVERGED), are left out on both sides."""
    name = yaml_path.stem
    ids = meta_ids(name)
    real = pd.read_csv(out / "sacct.txt", sep="|", dtype=str, keep_default_na=False)
    real = real[~real["JobID"].str.contains(".", regex=False)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = replay_result(name)
    sim = sacct_records(result.sim, result.sacct(duplicates=True), eligible_only=False)
    skip = {ids[job] for scenario, job in STATE_SIMPLIFICATIONS if scenario == name}
    got = [
        (translate(k, ids), str(raw), state.split()[0])
        for k, raw, state in zip(sim["JobID"], sim["JobIDRaw"], sim["State"], strict=True)
    ]
    want = [
        (k, raw, state.split()[0])
        for k, raw, state in zip(real["JobID"], real["JobIDRaw"], real["State"], strict=True)
    ]
    if name in DIVERGED:  # (the runs after it are compared by their starts alone, on
        # either side: a run only the other path made has no line to meet)
        t0 = json.loads((out / "meta.json").read_text())["t0"]
        late = diverged(name, *(sacct_seconds(real[c], t0) for c in ("Submit", "Start")))
        skip |= set(real["JobID"][late.to_numpy()])
        times = [(sim[c] - result.origin).dt.total_seconds() for c in ("Submit", "Start")]
        skip |= {g[0] for g, late in zip(got, diverged(name, *times), strict=True) if late}
    got = [g for g in got if g[0] not in skip]
    want = [w for w in want if w[0] not in skip]
    assert got == want


def snapshot_outputs(out: Path, command: str) -> dict[int, list[str]]:
    """The output lines of ``command`` (its first words) in each of a fixture's snapshots,
    by the snapshot's time (seconds from t0)."""
    found: dict[int, list[str]] = {}
    t = None
    block: list[str] | None = None
    for line in (out / "snapshots.txt").read_text().splitlines():
        if line.startswith("######## t=+"):
            t = int(line.split("+", 1)[1].split("s", 1)[0])
        elif line.startswith("$ "):
            block = found.setdefault(t, []) if line[2:].startswith(command) else None
        elif block is not None and line.strip():
            block.append(line)
    return found


#: How late slurmdbd may hear of a change: slurmctld sends new jobs' records from a thread
#: that runs every 5 s (accounting_storage_slurmdbd.c _set_db_inx_thread); a second more
#: for sacct's whole-second times. Snapshots taken sooner after a change are not compared.
SLURMDBD_LAG_S = 6.0

#: Fixtures with no snapshot to compare: mix-11, mix-14 and ddp-shapes take another path
#: (DIVERGED) at 25, 32 and 9 s, before a snapshot slurmdbd had caught up with; mix-17 (another
#: path from 105 s) has a submission or a start within 6 s before each of its snapshots till then.
NOTHING_TO_COMPARE = ("mix-11", "mix-14", "ddp-shapes", "mix-17")
LINES_FIXTURES = [
    (p, out)
    for p, out in SCENARIOS
    if snapshot_outputs(out, "sacct -X") and p.stem not in NOTHING_TO_COMPARE
]


#: Fixtures whose snapshots knowingly differ (strict xfail: a fix shows as news).
SNAPSHOT_DIFFERENCES = {
    "preempt-grace": (
        "g2 ignored SIGTERM, so real Slurm requeued it KillWait (5 s) after its grace end "
        "(Submit 51, eligible 172), the simulator at its grace end (eligible 163, KillWait "
        "not modelled): at 170 s real sacct -X still lists its PREEMPTED run (sorted by its "
        "first Submit), the simulation its pending new run (sorted by the requeue)"
    ),
    "preempt-reorder": (
        "sacct sorts a requeued victim's row by its new Submit, the requeue: real Slurm "
        "started h2 (and so requeued l1) a second after h2's submission (23 s), the simulator "
        "at it (22 s, a batch job tried at its submission), so l1's row ties with h2's and "
        "goes first by JobIDRaw"
    ),
}


@pytest.mark.parametrize("yaml_path,out", _known(LINES_FIXTURES, SNAPSHOT_DIFFERENCES))
def test_sacct_and_squeue_print_pending_records_as_real_slurm_did_during_the_run(yaml_path, out):
    """At each snapshot of a fixture recorded with them (array-lines), the simulation's
    sacct -X lines (JobID, JobIDRaw, State) and plain squeue's JOBID and ST column are real
    Slurm's: the throttled record, the task split off by a hold, the stride, the list cut at
    64 characters, the record cancelled whole, the record of one task."""
    name = yaml_path.stem
    ids = meta_ids(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from slurmlab.scenario import Scenario

        scenario = Scenario.load(yaml_path)
    squeues = snapshot_outputs(out, "squeue -a")
    final = scenario.run()
    actions = [a["at"] for a in yaml.safe_load(yaml_path.read_text()).get("actions") or ()]
    runs = pd.read_csv(out / "starts.csv")  # (and real Slurm's: mix-12's j20 ended at 668 s,
    # its simulated run a few seconds later, within the scorecard's tolerance)
    real_changes = [*runs["start_s"].dropna(), *runs["end_s"].dropna()]
    changes = np.array([*final.events["time"], *actions, *real_changes], dtype=float)
    compared = 0
    since = DIVERGED.get(name, (np.inf,))[0]  # (then the run takes another path)
    for t, block in snapshot_outputs(out, "sacct -X").items():
        if ((changes > t - SLURMDBD_LAG_S) & (changes <= t)).any() or t >= since:
            continue  # (slurmdbd may not have heard of it yet)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = scenario.run(until=t)
        sim = sacct_records(result.sim, result.jobs_all_runs, latest=True)  # (as sacct_text)
        got = [
            [translate(k, ids), str(raw), state.split()[0]]
            for k, raw, state in zip(sim["JobID"], sim["JobIDRaw"], sim["State"], strict=True)
        ]
        # (sacct's State column cuts "CANCELLED by 0" to "CANCELLED+"; slurmlab does not
        # know who cancelled a job, so prints "CANCELLED")
        want = [[*line.split()[:2], line.split()[2].rstrip("+")] for line in block[2:]]
        assert got == want, f"t=+{t}s"
        frame = squeue_frame(result.sim, collapse=True)
        got_q = sorted((translate(k, ids)[:18], st) for k, st in zip(frame["JOBID"], frame["ST"]))
        want_q = sorted((line[:18].strip(), line.split()[4]) for line in squeues[t][1:])
        assert got_q == want_q, f"t=+{t}s"
        compared += 1
    # (array-lines: 6 of its 11 snapshots; mix-7: the 2 before it takes another path, a busy
    # mix changing too often for more; mix-13 and mix-15 take another path at 53 and 59 s)
    assert compared >= {"array-lines": 5, "mix-13": 1, "mix-15": 1}.get(name, 2)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_task_split_off_its_record_goes_before_the_tasks_still_in_it(policy):
    """Same priority and submit time: slurmctld sorts an array's tasks by task id and its
    pending record (task id NO_VAL) after them (sort_job_queue2), so a task scontrol split
    off goes first (array-lines: the released thr_4 started before thr_0). Under
    priority/basic an update keeps the priority: 1_3, updated alone, runs first."""
    lab = Lab(Cluster.preset("tiny"), policy=policy)
    lab.sbatch("-N 4 --exclusive -t 10:00 --wrap=sleep", runtime=100)  # 1
    lab.sbatch("--array=0-3%1 -N 1 --exclusive -t 10:00 --wrap=sleep", runtime=50)  # 2
    lab.advance(10)
    lab.update("2_3", time="9:00")  # split off: JobID 3
    lab.advance(500)
    starts = lab.sacct().set_index("JobID")["Start"]
    order = sorted(["2_0", "2_1", "2_2", "2_3"], key=lambda k: starts[k])
    assert order == ["2_3", "2_0", "2_1", "2_2"]
    raws = lab.sacct().set_index("JobID")["JobIDRaw"]
    # (2_3 took 3 when split; 2_0 and 2_1 take 4 and 5 as they start, 2_2 keeps the array's)
    assert [raws[k] for k in order] == ["3", "4", "5", "2"]


def test_the_last_task_of_a_record_is_ordered_by_its_task_id_among_split_ones():
    """When the record holds one task (its others started or split off), it is that task's
    record, compared by task id with the tasks split off before it."""
    lab = Lab(Cluster.preset("tiny"), policy="fifo")
    lab.sbatch("-N 4 --exclusive -t 10:00 --wrap=sleep", runtime=100)  # 1
    lab.sbatch("--array=0-2%1 -N 1 --exclusive -t 10:00 --wrap=sleep", runtime=50)  # 2
    lab.advance(10)
    lab.update("2_2", time="9:00")  # split off (JobID 3); the record holds 2_0 and 2_1
    lab.update("2_0", time="9:00")  # split off (JobID 4); the record is 2_1's now
    lab.advance(500)
    starts = lab.sacct().set_index("JobID")["Start"]
    assert sorted(["2_0", "2_1", "2_2"], key=lambda k: starts[k]) == ["2_0", "2_1", "2_2"]


def test_sacct_j_lists_the_jobs_named_eligible_or_not(capsys):
    """sacct -j: "an explicit list of jobs, so don't hide non-eligible ones"
    (as_mysql_jobacct_process.c); 12 names job 12 and every row of array 12, 12_3 the row
    whose task id is 3, which a task still in a record of several tasks has not."""
    lab = blocked_lab()  # 2_4 held (JobID 4), 3_1 cancelled inside its record
    assert lines(lab.sacct_text("JobID%20,JobIDRaw,State", jobs="2")) == [
        ["2_4", "4", "PENDING"],  # (held: listed, as a list names it)
        ["2_[0-3,5%2]", "2", "PENDING"],
    ]
    assert lines(lab.sacct_text("JobID%20,JobIDRaw", jobs="2_4")) == [["2_4", "4"]]
    assert lines(lab.sacct_text("JobID%20,JobIDRaw", jobs="4")) == [["2_4", "4"]]
    assert lines(lab.sacct_text("JobID%20", jobs="2_0,3_1")) == []  # (in a record; gone)
    assert lines(lab.sacct_text("JobID%20", jobs=["1", "3"])) == [["1"], ["3_[0,2-3]"]]
    # the expanded view names tasks in a record too
    assert lines(lab.sacct_text("JobID%20", jobs="2_0", array=True)) == [["2_0"]]
    with pytest.raises(SlurmlabError, match=r"'2\[1\]' is not a job.*12,14_3"):
        lab.sacct_text(jobs="1,2[1]")
    sacct_magic("-o JobID%20,State -j 2_4")
    assert capsys.readouterr().out.split()[-2:] == ["2_4", "PENDING"]
    sacct_magic("--jobs=1 -o JobID")
    assert capsys.readouterr().out.split()[-1] == "1"


def test_sacct_j_takes_a_scenarios_ids():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from slurmlab.scenario import Scenario

        scenario = Scenario.load(ROOT / "datasets/realslurm/scenarios/array-lines.yaml")
        result = scenario.run(until=30)
    assert lines(result.sacct_text("JobID%30,JobIDRaw", jobs="thr")) == [
        ["thr_4", "7"],
        ["thr_[0,2-3,5%2]", "2"],
    ]
    assert lines(result.sacct_text("JobID%30", jobs="thr_4,gone")) == [
        ["thr_4"],
        ["gone_[0-2]"],
    ]


def test_a_job_over_a_partition_limit_is_eligible_and_listed():
    """slurmctld's job_independent finds a job over its partition's MaxTime eligible (no
    hold, dependency or begin time): its begin time is set, it accrues age, and plain sacct
    lists it (real Slurm 22.05, the partition-limits fixture: Eligible = Submit, AGE grows)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from slurmlab.scenario import Scenario

        scenario = Scenario.load(ROOT / "datasets/realslurm/scenarios/partition-limits.yaml")
        result = scenario.run(until=60)
    jobs = result.sacct().set_index("JobID")
    assert jobs.loc["too_long", "Reason"] == "PartitionTimeLimit"
    assert jobs.loc["too_long", "Eligible"] == jobs.loc["too_long", "Submit"]
    assert ["too_long", "PENDING"] in lines(result.sacct_text("JobID%20,State"))
    assert result.sprio().set_index("JOBID").loc["too_long", "AGE"] > 0


def test_a_split_that_leaves_one_task_makes_the_record_that_task():
    """job_array_split: when splitting a task off leaves one task in the record (task_cnt
    <= 1), the record becomes that task (job_array_post_sched), for a task scontrol changes
    alone as for one that starts: squeue lists the two apart (the record has no task list
    left to fold into) and sacct shows 2_1 with the array's JobID."""
    lab = tiny_lab(("-N 4 --exclusive -t 60", 3600), ("--array=1-2 -N1 -t 10", 60))
    lab.advance(5)
    lab.hold("2_2")
    lab.advance(5)
    queue = [line.split()[0] for line in lab.squeue_text().splitlines()[1:]]
    assert queue == ["2_1", "2_2", "1"]
    rows = lines(lab.sacct_text("JobID%20,JobIDRaw,State", jobs="2"))
    assert rows == [["2_1", "2", "PENDING"], ["2_2", "3", "PENDING"]]


def test_sacct_d_keeps_a_record_cancelled_whole_as_it_was():
    """sacct -D: a record scancel ended whole stays one line (REQUEUED) with the array's
    JobID after it is requeued and its tasks start and take JobIDs of their own (the
    requeue gives the next run a database row of its own: batch_requeue_fini)."""
    lab = tiny_lab(("-N4 --exclusive -t 10", 60), ("--array=0-3 -N4 --exclusive -t 10", 60))
    lab.advance(5)
    lab.scancel("2")
    lab.advance(5)
    lab.requeue("2")
    lab.advance(300)
    rows = lines(lab.sacct_text("JobID%12,JobIDRaw,State", duplicates=True))
    # (its state REQUEUED from the requeue on: job_mgr.c _job_requeue_op rewrites the row)
    assert rows[1] == ["2_[0-3]", "2", "REQUEUED"]
    assert [r[0] for r in rows[2:]] == ["2_0", "2_1", "2_2", "2_3"]


def test_sacct_sorts_submit_times_by_the_whole_second():
    """sacct compares Submit in whole seconds (time_t), then ArrayJobID: a job submitted a
    fraction of a second after an array, in the same second, comes first."""
    lab = tiny_lab(("-N4 --exclusive -t 10", 600))
    lab.advance(0.3)
    lab.sbatch("--array=0-1 -N1 -t 10 --wrap=sleep", runtime=60)
    lab.advance(0.3)
    lab.sbatch("-N1 -t 10 --wrap=sleep", runtime=60)
    assert [r[0] for r in lines(lab.sacct_text("JobID"))] == ["1", "3", "2_[0-1]"]


def test_commands_at_one_instant_convert_a_record_in_the_order_given():
    """scontrol release 6_2 (the record keeps 6_1 and 6_3: no conversion) then scancel 6_3
    at the same instant: the record keeps its list, 6_[1] (real Slurm 22.05 by hand,
    test_qa_stop21); the other order converts it, as the split then leaves one task."""
    cases = (("release", "scancel", ["2_[1-2]"]), ("scancel", "release", ["2_1", "2_2"]))
    for first, then, shown in cases:
        lab = Lab(Cluster.preset("tiny"), policy="fifo")
        lab.sbatch("-N 4 --exclusive -t 60 --wrap=sleep", runtime=3600)
        lab.sbatch("-H --array=1-3 -N1 -t 10 --wrap=sleep", runtime=60)
        for command in (first, then):
            getattr(lab, command)("2_2" if command == "release" else "2_3")
        ids = sorted(line.split()[0] for line in lab.squeue_text().splitlines()[1:])
        assert ids == ["1", *shown]


def test_the_magic_says_which_jobs_sacct_left_out(capsys):
    """sacct prints nothing about the jobs it hides; %sacct adds a note on stderr naming
    them and the -j that lists them (its stdout stays sacct's)."""
    lab = blocked_lab()
    lab.sbatch("-d afterok:1 -n 1 -t 5 --wrap=sleep", runtime=60)  # 5: waits for 1
    assert lab.result.sacct_unlisted() == ["2_4", "5"]
    sacct_magic("-o JobID%20,State")
    out, err = capsys.readouterr()
    assert out == lab.sacct_text("JobID%20,State") + "\n"
    assert "(slurmlab) not listed: 2_4, 5." in err and "-j 2,5 lists them" in err
    sacct_magic("-o JobID%20,State -j 5")
    out, err = capsys.readouterr()
    assert out.split()[-2:] == ["5", "PENDING"] and not err


def test_a_requeued_job_shows_its_requeued_run_until_it_is_eligible_again():
    """sacct without -D filters by eligibility, then keeps each job's last run: during the
    requeue's delay (its begin time to come) plain sacct shows the REQUEUED run, not
    nothing (as_mysql_jobacct_process.c: the query's condition, then duplicates dropped)."""
    lab = tiny_lab(("-N1 -t 10", 300))
    lab.advance(60)
    lab.requeue(1)
    assert lines(lab.sacct_text("JobID,State")) == [["1", "REQUEUED"]]
    assert lab.result.sacct_unlisted() == []
    lab.advance(180)
    assert lines(lab.sacct_text("JobID,State")) == [["1", "RUNNING"]]
    assert lines(lab.sacct_text("JobID,State", duplicates=True)) == [
        ["1", "REQUEUED"],
        ["1", "RUNNING"],
    ]


def test_an_earlier_run_keeps_the_jobid_it_had():
    """A record scancel ended whole, requeued, whose tasks then start and take JobIDs of
    their own: the table's cancelled runs keep the array's JobID (the job table, not only
    sacct_text's folded line)."""
    lab = tiny_lab(("-N4 --exclusive -t 60", 1800), ("--array=0-2 -N1 -t 10", 300))
    lab.scancel("2")
    lab.requeue("2")
    lab.advance("40m")
    runs = lab.sacct(duplicates=True)
    cancelled = runs[runs["State"] == "REQUEUED"]  # (cancelled, then requeued: _job_requeue_op)
    assert cancelled["JobIDRaw"].tolist() == ["2", "2", "2"]
    done = runs[(runs["State"] == "COMPLETED") & runs["JobID"].str.startswith("2_")]
    assert sorted(done["JobIDRaw"].tolist()) == ["2", "3", "4"]


def test_a_job_held_while_it_ran_is_never_listed_and_the_note_says_why(capsys):
    """scontrol hold of a running job zeroes its begin time in slurmdbd (_hold_job_rec; the
    holds fixture: Eligible Unknown), so plain sacct never lists it, even once it ended;
    the note says a hold clears it for good, and -j lists it."""
    lab = tiny_lab(("-N1 -t 10", 60))
    lab.advance(10)
    lab.hold(1)
    lab.advance(600)
    assert lines(lab.sacct_text("JobID,State")) == []
    assert lab.result.sacct_unlisted() == ["1"]
    sacct_magic("-o JobID,State")
    err = capsys.readouterr().err
    assert "scontrol hold clears it for good" in err and "-j 1" in err
    assert lines(lab.sacct_text("JobID,State", jobs="1")) == [["1", "COMPLETED"]]


def test_an_unknown_task_says_which_tasks_the_array_has():
    lab = tiny_lab(("-N4 --exclusive -t 60", 1800), ("--array=0-20:3 -N1 -t 10", 300))
    for key in ("2_4", "2_[3-9]"):
        with pytest.raises(SlurmlabError, match=r"'2_.*' \(array 2 has tasks 0-18:3: name one"):
            lab.hold(key)
    with pytest.raises(SlurmlabError, match=r"'1_4' \(no job has been submitted yet\)"):
        Lab(Cluster.preset("tiny")).hold("1_4")
