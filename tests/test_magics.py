"""The line magics of ``%load_ext slurmlab`` (%squeue, %sinfo, %sacct, %scancel, %scontrol) on
the current Lab: they print what the commands print, and refusals as error lines on stderr."""

from __future__ import annotations

import pytest

from slurmlab import Lab
from slurmlab.sim.magics import (
    MAGICS,
    sacct_magic,
    scancel_magic,
    scontrol_magic,
    sinfo_magic,
    squeue_magic,
)


@pytest.fixture
def lab():
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 4 -t 2:00:00", runtime="1h")
    lab.sbatch("--exclusive -N 3 -n 6 -t 30", runtime="10m")
    return lab


def test_scontrol_update_changes_the_job_and_prints_nothing(lab, capsys):
    scontrol_magic("update JobId=2 TimeLimit=3:00:00")  # (pending: up to MaxTime 1 day)
    scontrol_magic("update jobid=2 numnodes=1-1 Partition=main")  # (keys in any case)
    out, err = capsys.readouterr()
    assert out == err == ""
    row = lab.squeue().set_index("JOBID").loc["2"]
    assert (row.TIME_LIMIT, row.NODES) == ("3:00:00", 1)


def test_scontrol_refusals_and_warnings_are_lines_on_stderr(lab, capsys):
    scontrol_magic("update JobId=1 TimeLimit=3:00:00")
    scontrol_magic("update JobId=2 NumNodes=1")
    scontrol_magic("update JobId=2 Nice=10")
    scontrol_magic("update TimeLimit=10")
    scontrol_magic("show job 2")
    scontrol_magic("")
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(
        "scontrol update JobId=1 TimeLimit=3:00:00: Access/permission denied for job 1 ("
    )
    assert lines[1].startswith(
        "scontrol: warning: --nodes=1-3 with -n 6: slurmlab allocates 1 node"
    )
    assert lines[2] == (
        "scontrol: error: update: Nice= is not one slurmlab changes (it changes NumNodes, "
        "TimeLimit and Partition of a job, and an array's ArrayTaskThrottle)"
    )
    assert lines[3] == "scontrol: error: update: give the job, e.g. update JobId=12 TimeLimit=30"
    assert lines[4].startswith("scontrol: error: 'show': slurmlab's %scontrol knows update")
    assert lines[5].startswith("scontrol: error: give a command: update JobId=N")


def test_scontrol_hold_release_requeue(lab, capsys):
    scontrol_magic("hold 2")
    assert lab.squeue().set_index("JOBID").loc["2", "NODELIST(REASON)"] == "(JobHeldUser)"
    scontrol_magic("release 2")
    scontrol_magic("requeue 1")
    scontrol_magic("hold")
    _out, err = capsys.readouterr()
    assert err == "scontrol hold: give the job ids, e.g. hold 12\n"
    assert lab.sacct(duplicates=True).State.tolist()[:1] == ["REQUEUED"]


def test_scancel_and_the_views(lab, capsys):
    scancel_magic("2")
    scancel_magic("2")
    scancel_magic("")
    _out, err = capsys.readouterr()
    assert err.splitlines() == [
        "scancel: error: Kill job error on job id 2: Job/step already completing or completed",
        "scancel: error: give the job ids to cancel, e.g. scancel 12",
    ]
    squeue_magic("--start")
    sinfo_magic("")
    sacct_magic("-o JobID,State -D")
    out, err = capsys.readouterr()
    assert err == ""
    assert out == (
        lab.squeue_text(start=True) + "\n" + lab.sinfo_text() + "\n"
        + lab.sacct_text("JobID,State", duplicates=True) + "\n"
    )  # fmt: skip
    squeue_magic("-x")
    sinfo_magic("-N")
    sacct_magic("-o")
    sacct_magic("--bogus")
    _out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in err.splitlines()] == [
        "squeue",
        "sinfo",
        "sacct",
        "sacct",
    ]


def test_load_ext_registers_every_magic():
    from IPython.testing.globalipapp import get_ipython, start_ipython

    ip = start_ipython() or get_ipython()  # (None when a test started it already)
    ip.run_line_magic("load_ext", "slurmlab")
    lines = ip.magics_manager.magics["line"]
    assert set(MAGICS) <= set(lines)
    assert "sbatch" in ip.magics_manager.magics["cell"]
