"""QA stop 44: the text views as Slurm 22.05's commands print them (sinfo, sprio -l,
sshare -a -l, sacct, squeue's order), each checked against Slurm's source or the real-Slurm
fixtures (datasets/realslurm)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import slurmlab
from slurmlab import Cluster, Lab
from slurmlab.sim.magics import sacct_magic
from slurmlab.sim.result import node_states, tres_run_mins

REAL = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"


@pytest.fixture(scope="module")
def real_backfill():
    """The realslurm backfill scenario, simulated (its jobs start at the fixture's times up
    to t=+100 s, before the first decay cycle changes anything up to t=+30 s)."""
    return slurmlab.Scenario.load(REAL / "scenarios" / "backfill.yaml").run()


def _fixture_block(scenario: str, command: str, at: str) -> list[str]:
    """The lines a fixture's snapshot at ``+{at}`` printed for ``command``."""
    text = (REAL / scenario / "snapshots.txt").read_text()
    snap = text.split(f"######## t=+{at} ")[1].split("########")[0]
    block = snap.split(f"$ {command}\n")[1].split("\n$ ")[0]
    return [line for line in block.split("\n") if line]


# -- 1. sinfo's PARTITION column --------------------------------------------------------------
def test_sinfo_prints_long_partition_names_whole_with_the_default_star():
    """sinfo's default format sets part_field_flag: the PARTITION column is as wide as the
    longest name printed, the default's '*' counted, at least 9 (src/sinfo/print.c
    _set_part_field_size, MIN_PART_FIELD_SIZE; _print_partition appends the '*'). Before,
    the column stayed 9 wide: 'interacti' without its star."""
    cluster = Cluster.from_slurm_conf(
        """
        NodeName=n[1-2] CPUs=4 RealMemory=4000
        PartitionName=interactive Nodes=n1 Default=YES MaxTime=1:00:00
        PartitionName=gpu Nodes=n2 MaxTime=1:00:00
        """
    )
    lines = cluster.sinfo_text().splitlines()
    assert lines[0] == "PARTITION    AVAIL  TIMELIMIT  NODES  STATE NODELIST"
    assert lines[1] == "interactive*    up    1:00:00      1   idle n1"
    assert lines[2] == "gpu             up    1:00:00      1   idle n2"
    # a name of 9 or fewer keeps the column at 9 (the ai preset's, as before)
    assert slurmlab.Cluster.preset("tiny").sinfo_text().startswith("PARTITION AVAIL")


# -- 2. sprio -l --------------------------------------------------------------------------------
def test_sprio_text_is_sprio_long_format_as_the_fixture_prints_it(real_backfill):
    """sprio -l's format is fixed (src/sprio/sprio.c: "%.15i %9r %.8u %.10Y %.10S %.10A %.10B
    %.10F %.10J %.10P %.10Q %.11N %.20T"): no ACCOUNT column, the job's partition the one
    left-justified column. The fixture's `sprio -l` at t=+30 s, job ids aside (the
    simulation's are the scenario's names), is what sprio_text prints, character for
    character (trailing spaces of the empty TRES included)."""
    real = _fixture_block("backfill", "sprio -l", "30s")
    ours = real_backfill.sprio_text(at=30).splitlines()
    assert ours[0] == real[0]
    assert len(ours) == len(real) == 3
    for mine, theirs in zip(ours[1:], real[1:], strict=True):
        assert len(mine) == len(theirs)
        assert mine[15:] == theirs[15:]  # (after JOBID: %.15i)
    assert ours[1][:15] == "big".rjust(15)


# -- 3. sshare -a -l ----------------------------------------------------------------------------
SSHARE_HEADER = (
    "Account                    User  RawShares  NormShares    RawUsage   NormUsage  "
    "EffectvUsage  FairShare    LevelFS                    GrpTRESMins                    "
    "TRESRunMins"
)


def test_sshare_text_has_sshare_long_fields_widths_and_dashes(real_backfill):
    """sshare -a -l under Fair Tree prints A,User,RawShares,NormShares,RawUsage,NormUsage,
    Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins (src/sshare/process.c) at fields[]'s widths
    (Account -20, User 10, RawShares 10, NormShares 11, RawUsage 11, NormUsage 11,
    EffectvUsage 13, FairShare 10, LevelFS 10, the TRES 30), and print_fields_header a line
    of dashes; a TRES string longer than 30 is cut with '+' (_print_tres). Before: widths
    from the values, no dashes, no GrpTRESMins nor TRESRunMins."""
    lines = real_backfill.sshare_text(at=30).splitlines()
    assert lines[0] == SSHARE_HEADER
    assert lines[1] == " ".join("-" * w for w in (20, 10, 10, 11, 11, 11, 13, 10, 10, 30, 30))
    bob = next(line for line in lines if line.startswith("  llm ") and "bob" in line)
    assert bob[:31] == "  llm".ljust(20) + " " + "bob".rjust(10)
    # the fixture's -P TRESRunMins of bob, cut by the column as sshare -l cuts it
    assert bob.endswith(" " * 30 + " cpu=41,mem=41000,energy=0,nod+")
    root = lines[2]  # root: no RawShares (NO_VAL), NormUsage, FairShare, LevelFS
    assert root.startswith("root".ljust(20) + " " * 23 + "   0.000000")


def test_sshare_text_leaves_levelfs_out_without_fair_tree():
    """With PriorityFlags=NO_FAIR_TREE sshare -l's fields have no LevelFS (process.c)."""
    cluster = Cluster.from_slurm_conf(
        """
        PriorityType=priority/multifactor
        PriorityFlags=NO_FAIR_TREE
        PriorityWeightFairshare=1000
        NodeName=n[1-2] CPUs=4 RealMemory=4000
        PartitionName=main Nodes=n[1-2] Default=YES MaxTime=1:00:00
        """
    )
    lab = Lab(cluster, accounts=[slurmlab.Account("a", users=("ann",))])
    header = lab.result.sshare_text().splitlines()[0]
    assert "LevelFS" not in header and header.endswith("GrpTRESMins" + " " * 20 + "TRESRunMins")


@pytest.mark.parametrize("at", ["10s", "20s", "30s"])
def test_tres_run_mins_are_the_fixtures(real_backfill, at):
    """TRESRunMins (grp_used_tres_run_secs / 60, sshare/process.c PRINT_RUNMINS): each job's
    allocation times its time limit from its start (acct_policy.c acct_policy_job_begin),
    summed up the tree, every TRES slurmctld has (cpu,mem,energy,node,billing,fs/disk,vmem,
    pages, then AccountingStorageTRES=gres/gpu). Before the first decay cycle nothing is
    taken off: the fixture's `sshare -a -l -P` at t=+10, +20 and +30 s, every association."""
    real = {}
    for line in _fixture_block("backfill", "sshare -a -l -P", at)[1:]:
        cells = line.split("|")
        account, user = cells[0].strip(), cells[1]
        real[f"{account}/{user}" if user else account] = cells[-1]
    assert tres_run_mins(real_backfill.sim, float(at[:-1])) == real


# -- 4. plnd ------------------------------------------------------------------------------------
def test_idle_nodes_backfill_planned_a_job_on_are_plnd_under_slurm_only(real_backfill):
    """sched/backfill sets NODE_STATE_PLANNED (0x200000) on the idle nodes of every job it
    reserves for, clearing the last cycle's first (backfill.c _handle_planned), and
    node_state_string_compact prints PLND for such an idle node; sinfo sorts it first (its
    raw state is the largest). At t=10 big is planned on gpu[1-4], gpu1 runs a job (mix):
    gpu[2-4] are plnd. Once big starts (t=100) no node is. easy never shows it (Slurm's
    backfill plugin is what sets it). Before, they were idle."""
    slurm = slurmlab.Scenario.load(REAL / "scenarios" / "backfill.yaml").run("slurm")
    states = node_states(slurm.sim, 10)
    assert [states[n] for n in ("gpu1", "gpu2", "gpu3", "gpu4")] == ["mix", "plnd", "plnd", "plnd"]
    lines = slurm.sinfo_text(at=10).splitlines()
    assert lines[1] == "gpu*         up    2:00:00      3   plnd gpu[2-4]"
    assert "plnd" not in slurm.sinfo_text(at=100)
    usage = slurm.node_usage(at=10).set_index("NodeName")
    assert usage.loc["gpu2", "State"] == "planned"  # (node_state_string: PLANNED)
    easy = slurmlab.Scenario.load(REAL / "scenarios" / "backfill.yaml").run("easy")
    assert "plnd" not in easy.sinfo_text(at=10)


def test_a_plan_dropped_by_a_later_cycle_leaves_its_nodes_idle():
    """A node is plnd only while the latest cycle's plan holds it: a job held after it was
    planned loses its plan (SCHEDNODES (null)), and its nodes are idle again."""
    lab = Lab("tiny", "slurm")
    lab.sbatch("-N 2 --exclusive -t 30", runtime=1200)
    lab.sbatch("-N 4 --exclusive -t 30", runtime=600)
    lab.advance(60)  # a backfill cycle (bf_interval 30 s) has planned job 2
    assert "plnd" in lab.sinfo_text()
    lab.hold(2)
    lab.advance(60)
    assert "plnd" not in lab.sinfo_text()


# -- 5. sacct's default time window ------------------------------------------------------------
def test_sacct_lists_from_midnight_of_today_unless_told_otherwise(capsys):
    """Without -j and -S, sacct's window starts at midnight of the current day
    (slurmdb_defs.c slurmdb_job_cond_def_start_end) and slurmdbd lists jobs not ended
    before it (as_mysql_jobacct_process.c: time_end >= start || time_end = 0): a job that
    ended yesterday is not listed, one still running is. -S (starttime=) moves it; -j
    starts at the epoch. Before, every job was listed."""
    lab = Lab("tiny", "easy", origin="2026-01-05T22:00:00")
    lab.sbatch("-N 1 -t 2:00:00 -J early", runtime="1h")  # ends 23:00
    lab.sbatch("-N 1 -t 4:00:00 -J across", runtime="3h")  # runs past midnight
    lab.advance("2h30m")  # 00:30 the next day
    names = [line.split()[1] for line in lab.sacct_text().splitlines()[2:]]
    assert names == ["across"]
    assert len(lab.sacct_text(starttime=0).splitlines()) == 4
    assert len(lab.sacct_text(starttime="2026-01-05T22:30:00").splitlines()) == 4
    assert len(lab.sacct_text(jobs="1").splitlines()) == 3
    assert lab.result.sacct_before_window() == ["1"]
    sacct_magic("-S 2026-01-05T00:00")
    out, err = capsys.readouterr()
    assert "early" in out and not err
    sacct_magic("")
    out, err = capsys.readouterr()
    assert "early" not in out and "not listed: 1, which ended before 2026-01-06T00:00:00" in err


# -- 6. what sacct cuts ------------------------------------------------------------------------
def test_sacct_cuts_only_strings_with_a_plus():
    """print_fields.c: numbers (print_fields_uint32: AllocCPUS, NNodes, Priority) and
    durations (print_fields_time_from_secs: Elapsed) are never cut, they push the next
    column on; dates (print_fields_date) are cut without '+'; strings (print_fields_str:
    JobName, Timelimit, ...) are cut, their last character '+'. Before, every column was
    cut with '+'."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-n 16 -t 1:00:00 -J longname", runtime="20m")
    lab.advance("30m")
    text = lab.sacct_text("JobName%4,AllocCPUS%1,Elapsed%3,Start%10,Timelimit%5,NNodes%1")
    assert text.splitlines()[0] == "JobN A Ela      Start Timel N"
    assert text.splitlines()[2] == "lon+ 16 00:20:00 2026-01-05 01:0+ 1"


def test_sacct_fields_by_prefix_and_parsable_output(capsys):
    """sacct matches a --format name by case-insensitive prefix, the first in fields[]
    order (src/sacct/options.c: xstrncasecmp over the length given): 'jobn' is JobName,
    'st' Start (before State), 'a' ALL. -p ends every value with '|', -P all but the last
    (print_fields.c); -X changes nothing here (no steps)."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 1 -t 10 -J j", runtime=60)
    lab.advance(120)
    assert lab.sacct_text("jobn,st,STATE").splitlines()[0].split() == ["JobName", "Start", "State"]
    with pytest.raises(slurmlab.SlurmlabError, match="ALL"):
        lab.sacct_text("a")
    with pytest.raises(slurmlab.SlurmlabError, match="ReservationId"):
        lab.sacct_text("Reservationi")
    assert lab.sacct_text("JobID,State", parsable2=True) == "JobID|State\n1|COMPLETED"
    assert lab.sacct_text("JobID,State", parsable=True) == "JobID|State|\n1|COMPLETED|"
    sacct_magic("-X -P -o jobid,state")
    out, err = capsys.readouterr()
    assert out == "JobID|State\n1|COMPLETED\n" and not err
    sacct_magic("-P -p -o jobid")  # (the last one given counts, as sacct's getopt)
    assert capsys.readouterr()[0] == "JobID|\n1|\n"


# -- 7. squeue's order --------------------------------------------------------------------------
def test_squeue_sorts_a_job_of_several_partitions_by_the_whole_list():
    """squeue's default sort P,t,-p compares the job's partition string as printed (src/
    squeue/print.c print_jobs_array keeps jobs[i].partition, sort.c _sort_job_by_partition
    xstrcmp): "zeta,mid" sorts after every "zeta" job, whatever the priorities. Before, it
    sorted as its first partition, ahead of the lower-priority zeta job 4."""
    cluster = Cluster.from_slurm_conf(
        """
        NodeName=n[1-2] CPUs=4 RealMemory=4000
        PartitionName=mid Nodes=n1 Default=YES MaxTime=1:00:00
        PartitionName=zeta Nodes=n2 MaxTime=1:00:00
        """
    )
    lab = Lab(cluster, "easy")
    for parts in ("zeta", "mid", "zeta,mid", "zeta", "mid"):
        lab.sbatch(f"-p {parts} -n 4 -t 30", runtime=600)
    rows = [line.split()[:2] for line in lab.squeue_text().splitlines()[1:]]
    assert rows == [["5", "mid"], ["2", "mid"], ["4", "zeta"], ["1", "zeta"], ["3", "zeta,mid"]]


# -- the Lab's repr ----------------------------------------------------------------------------
def test_lab_repr_counts_an_arrays_pending_tasks_as_squeue_does():
    """squeue shows an array's tasks that have not started as one record: the repr counts
    it once and says how many tasks it holds."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 4 --exclusive -t 30", runtime=600)
    lab.sbatch("--array=0-9 -N 1 --exclusive -t 10", runtime=60)
    lab.sbatch("-N 1 --exclusive -t 10", runtime=60)
    assert repr(lab).endswith("1 running, 2 pending (10 array tasks))")
    assert lab._repr_html_().endswith("1 running, 2 pending (10 array tasks)")
    assert re.search(r"\b2_\[0-9\]", lab.squeue_text())


def test_lab_repr_counts_tasks_split_off_a_record_as_squeue_folds_them():
    """A pending task split off its array's record (by scontrol update, or a requeue) is
    folded back into the record's line by squeue (print.c _combine_pending_array_tasks,
    same name and partition): the repr counts the lines squeue shows and every pending task
    the record's line holds, not the split task as a job of its own."""
    lab = Lab("tiny", "easy")
    lab.sbatch("-N 4 --exclusive -t 30", runtime=600)
    lab.sbatch("--array=0-9 -N 1 --exclusive -t 10", runtime=60)
    lab.sbatch("-N 1 --exclusive -t 10", runtime=60)
    lab.update("2_3", time="5")
    lab.update("2_5", time="5")
    pending = [line for line in lab.squeue_text().splitlines()[1:] if " PD " in line]
    assert len(pending) == 2 and re.search(r"\b2_\[0-9\]", pending[0])
    assert repr(lab).endswith("1 running, 2 pending (10 array tasks))")
    assert lab._repr_html_().endswith("1 running, 2 pending (10 array tasks)")


def test_a_finished_simulations_sacct_text_lists_its_whole_run():
    # a simulate() result is an export of its whole run; a Lab's sacct is sacct now, from
    # midnight of the simulated day (slurmdb_defs.c slurmdb_job_cond_def_start_end)
    import slurmlab
    from slurmlab.spec.synthetic import ai_workload

    r = slurmlab.simulate(slurmlab.Cluster.preset("ai"), ai_workload(60, "ai", seed=1))
    assert r.jobs["End"].max().normalize() > r.jobs["Submit"].min().normalize()  # (days)
    lines = r.sacct_text("JobID").splitlines()[2:]
    assert len(lines) == len(r.jobs)
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-N 1 -t 2:00:00 --wrap=x", runtime="1h")
    lab.advance("36h")
    assert lab.sacct_text("JobID").splitlines()[2:] == []
    assert lab.result.sacct_before_window() == ["1"]


def test_sacct_magic_reads_S_as_sacct_does(capsys):
    # sacct reads -S with parse_time(optarg, 1): 10:00 is today at 10:00 even when later
    # than now, a date alone is at 00:00, now-N<unit> counts back from now
    import slurmlab
    from slurmlab.sim.magics import sacct_magic

    lab = slurmlab.Lab("tiny")
    for _ in range(3):
        lab.sbatch("-N 1 -t 2:00:00 --wrap=x", runtime="1h")
        lab.advance("10h")  # ends at 01:00, 11:00, 21:00 on 2026-01-05
    lab.advance("16h")  # now 2026-01-06 22:00
    lab.sbatch("-N 1 -t 2:00:00 --wrap=x", runtime="1h")
    lab.advance("1h30m")  # now 2026-01-06 23:30: job 4 ended at 23:00

    def listed(option: str) -> list[str]:
        sacct_magic(f"-o JobID {option}")
        out = capsys.readouterr().out.splitlines()[2:]
        return [line.strip() for line in out]

    assert listed("") == ["4"]
    assert listed("-S 2026-01-05") == ["1", "2", "3", "4"]
    assert listed("-S 01/05-10:30") == ["2", "3", "4"]
    assert listed("-S now-3hours") == ["4"]
    assert listed("-S now-27hours") == ["3", "4"]
    with pytest.raises(slurmlab.SlurmlabError, match=r"now\+1hour"):
        from slurmlab.spec.parse_time import read_past_time

        read_past_time("now-1h", lab.date, what="sacct -S")
