"""Lab, %%sbatch, Scenario.run and the squeue/sacct texts, as the commands behave.

Each test states one rule of the command it mimics (squeue, sacct, sbatch, scontrol) and
checks slurmlab keeps it; the real output they are compared with is Slurm 22.05's, recorded
in datasets/realslurm.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import slurmlab
from slurmlab.errors import SbatchError, ScenarioError, SlurmlabError

ROOT = Path(__file__).resolve().parents[1]
BACKFILL = ROOT / "course" / "scenarios" / "backfill-basics.yaml"
REAL = ROOT / "datasets" / "realslurm"
SQUEUE_HEADER = (  # squeue's default format: %.18i %.9P %.8j %.8u %.2t %.10M %.6D %R
    "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"
)
SACCT_HEADER = "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode"


@pytest.fixture(scope="module")
def real_backfill():
    """The realslurm backfill scenario, simulated (multifactor priorities, two partitions)."""
    return slurmlab.Scenario.load(REAL / "scenarios" / "backfill.yaml").run()


# -- 1. an empty queue ----------------------------------------------------------------------
def test_an_empty_queue_prints_the_header_alone():
    """squeue with nothing queued prints its header line and nothing else: on a new lab,
    after every job has ended, and at a time past the end."""
    lab = slurmlab.Lab("tiny")
    assert lab.result.squeue_text() == SQUEUE_HEADER
    result = slurmlab.Scenario.load(BACKFILL).run()
    assert result.squeue_text() == SQUEUE_HEADER
    assert result.squeue_text(at=result.sim.now + 3600) == SQUEUE_HEADER
    lab.sbatch("-N 1 -t 5", runtime=60)
    lab.run()
    assert lab.result.squeue_text() == SQUEUE_HEADER


def test_empty_views_keep_their_columns_and_types(real_backfill):
    """An empty squeue/sprio frame has the columns and dtypes of a full one, and every text
    view of an empty cluster is its header."""
    full = real_backfill.squeue(at=30)
    empty = real_backfill.squeue(at=10_000)
    assert empty.empty and (empty.dtypes == full.dtypes).all()
    full, empty = real_backfill.sprio(at=30), real_backfill.sprio(at=10_000)
    assert empty.empty and (empty.dtypes == full.dtypes).all()
    # (sprio -l's JOBID is right-justified in 15 columns: the header starts with spaces)
    assert real_backfill.sprio_text(at=10_000).splitlines()[0].split()[:2] == ["JOBID", "PARTITION"]
    lab = slurmlab.Lab(real_backfill.cluster, "slurm")
    assert len(lab.result.sprio_text().splitlines()) == 1
    assert lab.result.sacct_text().splitlines()[0] == SACCT_HEADER
    assert lab.result.sinfo_text().startswith("PARTITION AVAIL")
    assert lab.result.sshare_text().startswith("Account")


# -- 2. an empty word -------------------------------------------------------------------------
@pytest.mark.parametrize("options", ['-N 1 ""', ["--hold", ""], ["", "-N", "1"]])
def test_an_empty_word_in_the_options_is_sbatchs_error(options):
    """sbatch takes the first word that is not an option for the script's file name: an
    empty one names no file ('Unable to open file'), and nothing is submitted."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SbatchError, match="Unable to open file ''.*empty word"):
        lab.sbatch(options)
    with pytest.raises(SbatchError, match="empty word"):
        lab.sbatch("#!/bin/bash\nsrun x\n", args=options)
    assert lab.squeue().empty


def test_unbalanced_quotes_are_sbatchs_error():
    """Options that cannot be split into words are an SbatchError, not a ValueError."""
    with pytest.raises(SbatchError, match="No closing quotation"):
        slurmlab.Lab("tiny").sbatch('-J "eval -N 1')


# -- 3. Scenario.run keywords -----------------------------------------------------------------
def _failing_scenario(seed_in_file: int | None) -> slurmlab.Scenario:
    model = {"mtbf": "2:00:00", "repair": 600}
    if seed_in_file is not None:
        model["seed"] = seed_in_file
    return slurmlab.Scenario.from_dict(
        {
            "cluster": "tiny",
            "seed": 1,
            "jobs": [
                {"id": f"j{i}", "runtime": "3:00:00", "args": "-N 1 -t 1-0"} for i in range(4)
            ],
            "random_failures": model,
        }
    )


def _failures(result) -> list:
    ev = result.events
    return ev.loc[ev["event"] == "node_down", ["time", "detail"]].values.tolist()


@pytest.mark.parametrize("seed_in_file", [None, 5])
def test_run_seed_draws_the_random_failures_again(seed_in_file):
    """run(seed=) replaces the scenario's seed: another seed, another failure history (also
    when the file's random_failures names its own seed); the same seed, the same history."""
    sc = _failing_scenario(seed_in_file)
    first, again = sc.run(seed=2, until="1d"), sc.run(seed=2, until="1d")
    other = sc.run(seed=3, until="1d")
    assert _failures(first) == _failures(again)
    assert _failures(first) != _failures(other)
    if seed_in_file is None:
        assert _failures(sc.run(until="1d")) == _failures(sc.run(seed=1, until="1d"))


def test_run_keywords_replace_the_scenarios_or_say_why_not():
    """actions=, failures= and random_failures= replace the file's; the cluster, accounts,
    QOS and reservations were checked against the jobs at load: run names the argument."""
    sc = slurmlab.Scenario.load(BACKFILL)
    assert [a.action for a in sc.actions] == ["drain"]
    drained = sc.run().events
    kept = sc.run(actions=()).events
    assert (drained["event"] == "node_drain").any() and not (kept["event"] == "node_drain").any()
    failed = sc.run(failures=[slurmlab.NodeFailure("node1", at=100)]).events
    assert (failed["event"] == "node_down").any()
    for key in ("qos", "accounts", "reservations", "cluster", "workload"):
        with pytest.raises(SlurmlabError, match=rf"Scenario.run\({key}=\.\.\.\)"):
            sc.run(**{key: ()})


# -- 4. priorities at a past time -------------------------------------------------------------
def test_squeue_at_shows_the_priority_each_job_had_then(real_backfill):
    """squeue(at=t) shows each job's priority at t (multifactor recalculates it every
    PriorityCalcPeriod), as sprio(at=t) does and as real squeue did (queue.csv)."""
    real = _real_queue()
    for t in (20, 30):
        q = real_backfill.squeue(at=t).set_index("JOBID")["PRIORITY"]
        sprio = real_backfill.sprio(at=t).set_index("JOBID")["PRIORITY"]
        assert (q[sprio.index] == sprio).all()
        seen = real[real.t == t].set_index("id")["priority"]
        both = q.index.intersection(seen.index)
        assert set(both) >= {"big", "run1"}
        assert q[both].to_dict() == seen[both].to_dict()
    at_30 = real_backfill.squeue(at=30).set_index("JOBID")["PRIORITY"]
    assert at_30[["big", "long"]].tolist() == [11348, 11087]  # (final: 11364 and 3598)
    later = real_backfill.squeue(at=70).set_index("JOBID")["PRIORITY"]
    assert later["long"] < later["big"]  # after the first recalculation: fair share split


def _real_queue() -> pd.DataFrame:
    """Real squeue every 10 s (queue.csv), jobs named by their scenario ids."""
    real = pd.read_csv(REAL / "backfill" / "queue.csv")
    ids = {"1": "run1", "2": "big", "3": "short", "4": "long", "5": "cpuonly"}
    return real.assign(id=real.job_id.astype(str).map(ids))


# -- 5. Lab.sbatch's own arguments ------------------------------------------------------------
@pytest.mark.parametrize("code", [300, -1, 256, "x", "1", 1.0, True])
def test_exit_code_is_a_whole_number_0_to_255(code):
    """An exit status is a whole number 0..255, in a Lab as in a scenario file."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SlurmlabError, match=r"exit_code is .*0\.\.255"):
        lab.sbatch("-t 5", exit_code=code)
    assert lab.squeue().empty
    doc = {"cluster": "tiny", "jobs": [{"runtime": 5, "args": "-t 5", "exit_code": code}]}
    with pytest.raises(ScenarioError, match=r"jobs\[0\]: field 'exit_code' is .*0\.\.255"):
        slurmlab.Scenario.from_dict(doc)


def test_exit_codes_0_to_255_end_the_job_so():
    """0 ends a job COMPLETED 0:0, 255 FAILED 255:0."""
    lab = slurmlab.Lab("tiny")
    ok, bad = lab.sbatch("-t 5", runtime=10), lab.sbatch("-t 5", runtime=10, exit_code=255)
    lab.run()
    jobs = lab.sacct().set_index("JobID")
    assert jobs.loc[str(ok), ["State", "ExitCode"]].tolist() == ["COMPLETED", "0:0"]
    assert jobs.loc[str(bad), ["State", "ExitCode"]].tolist() == ["FAILED", "255:0"]


@pytest.mark.parametrize("user", ["", " ", "a b"])
def test_an_empty_user_name_is_refused(user):
    """A job's user is a name: an empty one is refused (it used to become 'user'). (None is
    the default: --uid's user, else 'you'.)"""
    with pytest.raises(SlurmlabError, match="user is"):
        slurmlab.Lab("tiny").sbatch("-t 5", user=user)


@pytest.mark.parametrize("key", ["user", "account", "id", "name"])
def test_a_scenario_job_with_an_empty_name_is_refused(key):
    """In a scenario file too, user, account, id and name are names, never empty."""
    doc = {"cluster": "tiny", "jobs": [{"runtime": 5, "args": "-t 5", key: ""}]}
    with pytest.raises(ScenarioError, match=rf"field '{key}' is ''; give a name"):
        slurmlab.Scenario.from_dict(doc)


# -- 6. %%sbatch --parsable -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "script"),
    [
        ("--parsable", "#!/bin/bash\n#SBATCH -t 5\nsrun x\n"),
        ("", "#!/bin/bash\n#SBATCH --parsable -t 5\nsrun x\n"),
    ],
)
def test_sbatch_magic_parsable_prints_the_job_id_alone(capsys, line, script):
    """sbatch --parsable (an option or an #SBATCH line) prints the job id alone."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    slurmlab.Lab("tiny")
    capsys.readouterr()  # (load_ext's own message, when loaded before)
    ip.run_cell_magic("sbatch", line, script)
    assert capsys.readouterr().out == "1\n"
    ip.run_cell_magic("sbatch", "", "#!/bin/bash\n#SBATCH -t 5\nsrun x\n")
    assert capsys.readouterr().out == "Submitted batch job 2\n"


# -- 7. hostlists -----------------------------------------------------------------------------
def test_node_commands_take_hostlists():
    """scontrol update NodeName= takes a hostlist: drain, resume and fail do too."""
    lab = slurmlab.Lab("tiny")
    lab.drain("node[2-3]")
    states = lab.sinfo().set_index("NODELIST")["STATE"]
    assert states["node[2-3]"] == "drain" and states["node[1,4]"] == "idle"
    lab.resume(["node2", "node3"])
    lab.fail("node[1,4]", down_for="1h")
    states = lab.sinfo().set_index("NODELIST")["STATE"]
    assert states["node[1,4]"] == "down*" and states["node[2-3]"] == "idle"  # not responding
    lab.advance("1h")
    assert set(lab.sinfo()["STATE"]) == {"idle"}


def test_a_hostlist_with_an_unknown_node_changes_nothing():
    """scontrol refuses the whole update when a node is unknown: no node changes."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SlurmlabError, match="Invalid node name specified: 'node\\[5-6\\]'"):
        lab.drain("node[3-6]")
    assert set(lab.sinfo()["STATE"]) == {"idle"}


def test_scenario_actions_take_hostlists():
    """A scenario's drain/resume action may name a hostlist: each node is drained."""
    doc = {
        "cluster": "tiny",
        "jobs": [{"runtime": 5, "args": "-t 5"}],
        "actions": [{"at": 10, "action": "drain", "node": "node[1-2]"}],
    }
    sc = slurmlab.Scenario.from_dict(doc)
    assert [a.target for a in sc.actions] == ["node1", "node2"]
    assert (
        slurmlab.Scenario.from_dict(doc)
        .run()
        .sinfo()
        .set_index("NODELIST")
        .loc["node[1-2]", "STATE"]
        == "drain"
    )
    doc["actions"][0]["node"] = "node[4-5]"
    with pytest.raises(ScenarioError, match="actions\\[0\\]: field 'node': 'node5' is not in"):
        slurmlab.Scenario.from_dict(doc)


# -- 8. what the commands print ---------------------------------------------------------------
def test_squeue_sorts_by_partition_then_pending_then_priority(real_backfill):
    """squeue's default order is --sort=P,t,-p: partition, pending before running, then
    decreasing priority, as real squeue listed the backfill scenario (queue.csv; the jobs
    both list, in the same order up to ties)."""
    real = _real_queue()
    for t in sorted(set(real.t))[:12]:
        q = real_backfill.squeue(at=t)
        key = list(zip(q.PARTITION, q.ST != "PD", -q.PRIORITY))
        assert key == sorted(key)
        seen = real[real.t == t].assign(ST=lambda f: f.state.map({"PENDING": "PD"}).fillna("R"))
        same = set(zip(q.JOBID, q.ST)) & set(zip(seen.id, seen.ST))  # (timing differs a little)
        ours = [(j, s) for j, s in zip(q.JOBID, q.ST) if (j, s) in same]
        theirs = [(j, s) for j, s in zip(seen.id, seen.ST) if (j, s) in same]
        running = {j for j, s in same if s == "R"}  # (equal priorities: any order)
        assert [j if j not in running else "R" for j, _ in ours] == [
            j if j not in running else "R" for j, _ in theirs
        ]
    q = real_backfill.squeue(at=30)
    assert q.JOBID.tolist()[:3] == ["cpuonly", "big", "long"]  # cpu < gpu; PD first


def test_squeue_text_prints_times_and_ids_as_squeue_does(real_backfill):
    """squeue --start prints START_TIME as 2026-01-05T00:02:00 (N/A when none is planned,
    even at midnight: never a bare date), pending jobs only, and right-justifies JOBID."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 4 -t 10", runtime=60)
    lab.sbatch("-N 4 -t 10 --hold", runtime=60)
    lines = lab.result.squeue_text(start=True).splitlines()
    assert len(lines) == 2 and lines[1].split()[0] == "2" and "N/A" in lines[1]
    assert lines[1].split()[-2:] == ["(null)", "(JobHeldUser)"]
    text = real_backfill.squeue_text(at=30, start=True).splitlines()
    assert text[0].startswith("             JOBID ") and text[1].startswith("               big ")


def test_squeue_text_lays_its_columns_out_as_real_squeue_start(real_backfill):
    """Real Slurm 22.05's ``squeue --start -a -r`` in the backfill fixture, 10 s in: the
    same header and, for the 4-node job, the same columns at the same places (its JobID, its
    name and its date aside: the simulation names it by its scenario id, on its own clock)."""
    snap = (REAL / "backfill" / "snapshots.txt").read_text().splitlines()
    k = snap.index("$ squeue --start -a -r")
    real_header, real_row = snap[k + 1], snap[k + 2]
    ours = real_backfill.squeue_text(at=10, start=True, array=True).splitlines()
    assert ours[0] == real_header
    row = ours[1]
    assert len(row) == len(real_row)
    for a, b in ((19, 28), (38, 46), (47, 49), (69, 76), (77, 97), (98, None)):
        assert row[a:b] == real_row[a:b]  # partition, user, ST, nodes, SCHEDNODES, reason


def test_squeue_text_long_and_default_formats():
    """squeue -l: the time, then STATE and TIME_LIMIT (cut to TIME_LIMI); the default format
    cuts a name to 8 characters, as squeue does."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 30 -J averylongjobname", runtime=1200)
    lab.sbatch("-N 4 --exclusive -t 1-0", runtime=100)
    lab.advance("1m")
    assert lab.result.squeue_text().splitlines() == [
        SQUEUE_HEADER,
        "                 2      main   sbatch      you PD       0:00      4 (Resources)",
        "                 1      main averylon      you  R       1:00      1 node1",
    ]
    assert lab.squeue_text(long=True).splitlines() == [
        "Mon Jan 05 00:01:00 2026",
        "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
        "NODELIST(REASON)",
        "                 2      main   sbatch      you  PENDING       0:00 1-00:00:00      4 "
        "(Resources)",
        "                 1      main averylon      you  RUNNING       1:00     30:00      1 node1",
    ]
    with pytest.raises(SlurmlabError, match="start=True"):
        lab.result.squeue_text(start=True, long=True)


def test_sacct_text_prints_sacct_default_columns_at_their_widths():
    """sacct's default columns at sacct's widths (JobID 12 left-justified, the others right;
    ExitCode 8), a dashed line under the header, a value too long cut with '+'. A job that
    never started shows the CPUs it asked for as AllocCPUS (real Slurm 22.05)."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 2 -t 30 -J averyveryverylongname", runtime=1200)
    lab.sbatch("-N 1 -t 1-0", runtime=100, exit_code=3)
    pending = lab.sbatch("-N 4 --exclusive -t 10")  # (waits: the nodes are in use)
    lab.scancel(pending)
    lab.run()
    assert lab.result.sacct_text().splitlines() == [
        SACCT_HEADER,
        "------------ ---------- ---------- ---------- ---------- ---------- --------",
        "1            averyvery+       main       root          2  COMPLETED      0:0",
        "2                sbatch       main       root          1     FAILED      3:0",
        "3                sbatch       main       root          4  CANCELLED      0:0",
    ]


def test_sacct_text_fields_print_durations_and_times_as_sacct_does():
    """sacct prints Elapsed and Timelimit as [D-]HH:MM:SS (never '0 days 00:20:00'), an
    unstarted job's Start as Unknown, or None once it ended (cancelled pending: real Slurm
    22.05); JobName%25 widens a column as sacct --format does. The job table itself keeps its
    dtypes."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 1-0", runtime=1200)
    lab.scancel(lab.sbatch("-N 4 --exclusive -t 30"))  # (cancelled while it waits)
    lab.run()
    text = lab.result.sacct_text(fields="JobID,JobName%25,Elapsed,Timelimit,Start")
    assert text.splitlines()[2:] == [
        "1                               sbatch   00:20:00 1-00:00:00 2026-01-05T00:00:00",
        "2                               sbatch   00:00:00   00:30:00                None",
    ]
    waiting = slurmlab.Lab("tiny")
    waiting.sbatch("-N 4 --exclusive -t 30", runtime=600)
    waiting.sbatch("-N 2 -n 6 -t 30")  # (pending)
    last = waiting.result.sacct_text(fields="JobID,AllocCPUS,State,Start").splitlines()[-1]
    assert last.split() == ["2", "6", "PENDING", "Unknown"]  # (its requested CPUs, as sacct)
    assert lab.sacct()["Elapsed"].dtype.kind == "m" and lab.sacct()["Start"].dtype.kind == "M"
    with pytest.raises(SlurmlabError, match="'Bogus' is not a field"):
        lab.result.sacct_text(fields=["JobID", "Bogus"])


def test_sbatch_magic_prints_warnings_as_sbatch_does(capsys):
    """A warning from the cell's options is printed as ``sbatch: warning: ...`` on stderr,
    not as a Python warning pointing into IPython; the job is still submitted."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    slurmlab.Lab("tiny")
    capsys.readouterr()
    ip.run_cell_magic("sbatch", "-J=foo -t 5", "#!/bin/bash\nsrun x\n")
    out, err = capsys.readouterr()
    assert out == "Submitted batch job 1\n"
    assert err.startswith("sbatch: warning: ")


def test_workload_jobs_check_exit_codes_and_names():
    """simulate() on a Workload built in Python gets the scenario file's checks."""
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import WorkloadJob

    spec = JobSpec.from_args("-N 1")
    for bad in (300, -1, "x", True):
        with pytest.raises(slurmlab.SlurmlabError, match="exit_code"):
            WorkloadJob(spec, 0, 10, exit_code=bad)
    with pytest.raises(slurmlab.SlurmlabError, match="user is ''"):
        WorkloadJob(spec, 0, 10, user="")
    assert WorkloadJob(spec, 0, 10, exit_code=255).exit_code == 255


def test_scenario_failures_take_hostlists():
    """A ``failures`` entry's node may be a hostlist: every node in it fails then."""
    import yaml

    doc = yaml.safe_load(
        """
cluster: tiny
jobs:
  - {id: a, runtime: 600, args: "-N 1 -t 20"}
failures:
  - {node: "node[1-4]", at: 100, down_for: 300}
"""
    )
    scenario = slurmlab.Scenario.from_dict(doc)
    assert [f.node for f in scenario.failures] == ["node1", "node2", "node3", "node4"]
    result = scenario.run()
    assert set(result.sinfo(at=200)["STATE"]) == {"down*"}
    bad = {**doc, "failures": [{"node": "node[4-5]", "at": 100}]}
    with pytest.raises(slurmlab.ScenarioError, match="node 'node5' is not in the cluster"):
        slurmlab.Scenario.from_dict(bad)
