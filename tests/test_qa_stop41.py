"""Stop 41: what a QA round and Slurm's source found."""

from __future__ import annotations

import pytest

from slurmlab import Lab
from slurmlab.errors import SlurmlabError
from slurmlab.sim.magics import scancel_magic


def _states(lab: Lab) -> dict[str, str]:
    return lab.sacct().set_index("JobID")["State"].to_dict()


def test_scancel_splits_ids_at_commas_outside_task_lists():
    """scancel (opt.c ``_xlate_job_step_ids``) takes ``12_3,12_5`` and ``12,14`` as several
    ids, as scontrol's job_list does; slurmlab refused them as one unknown id."""
    lab = Lab("tiny", "fifo")
    blocker = lab.sbatch("--exclusive -N 4 -t 1:00:00", runtime="1h")
    arr = lab.sbatch("-N 1 --array=0-5 -t 10", runtime="5m")
    other = lab.sbatch("-N 1 -t 10", runtime="5m")
    lab.advance(1)
    lab.scancel(f"{arr}_3,{arr}_4")
    states = _states(lab)
    assert states[f"{arr}_3"] == states[f"{arr}_4"] == "CANCELLED"
    assert [k for k, v in states.items() if v == "CANCELLED"] == [f"{arr}_3", f"{arr}_4"]
    lab.scancel(f"{arr}_[0-1,5],{other}")  # (a comma inside brackets stays in its list)
    states = _states(lab)
    assert {k for k, v in states.items() if v == "CANCELLED"} == {
        f"{arr}_{t}" for t in (0, 1, 3, 4, 5)
    } | {str(other)}
    assert states[f"{arr}_2"] == "PENDING" and states[str(blocker)] == "RUNNING"


def test_scancel_checks_every_comma_separated_id_before_cancelling():
    lab = Lab("tiny", "fifo")
    first = lab.sbatch("-N 1 -t 10", runtime="5m")
    with pytest.raises(SlurmlabError, match="Invalid job id specified"):
        lab.scancel(f"{first},999")
    assert _states(lab)[str(first)] != "CANCELLED"


def test_scancel_magic_takes_a_comma_list(capsys):
    lab = Lab("tiny", "fifo")
    a = lab.sbatch("-N 4 --exclusive -t 10", runtime="5m")
    b = lab.sbatch("-N 4 --exclusive -t 10", runtime="5m")
    scancel_magic(f"{a},{b}")
    _out, err = capsys.readouterr()
    assert err == ""
    assert _states(lab) == {str(a): "CANCELLED", str(b): "CANCELLED"}
