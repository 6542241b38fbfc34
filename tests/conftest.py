"""Fixtures shared by several test files."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import pytest

import slurmlab

REALSLURM_CONF = Path(__file__).resolve().parents[1] / "datasets" / "realslurm" / "slurm.conf"


@pytest.fixture(scope="session")
def realslurm_cluster() -> slurmlab.Cluster:
    """The cluster of the real-Slurm fixtures (datasets/realslurm/slurm.conf: gpu[1-4] of 16
    CPUs, 64000 MB and 4 A100s; cpu[1-2] of 32 CPUs, 128000 MB), as slurmlab reads it. A
    frozen spec, so one is shared."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (KillWait and the like: not modelled)
        return slurmlab.Cluster.from_slurm_conf(REALSLURM_CONF)


@pytest.fixture
def realslurm_run(tmp_path):
    """``run(jobs)``: the ``slurm`` policy's run of a scenario on the real-Slurm fixtures'
    slurm.conf and gres.conf (accounts llm: alice, bob; vision: carol), whose ``jobs:``
    entries are the lines of ``jobs`` (one YAML flow mapping each)."""
    data = REALSLURM_CONF.parent

    def run(jobs: str):
        text = f"""\
            name: realslurm-run
            cluster:
              slurm_conf: {REALSLURM_CONF}
              gres_conf: {data / "gres.conf"}
            policy: {{name: slurm}}
            accounts:
              - {{name: llm, shares: 70, users: [alice, bob]}}
              - {{name: vision, shares: 30, users: [carol]}}
            qos:
              - {{name: normal, priority: 0}}
            jobs:
            """
        path = tmp_path / "realslurm-run.yaml"
        lines = [line.strip() for line in jobs.splitlines() if line.strip()]
        path.write_text(textwrap.dedent(text) + "".join(f"  {line}\n" for line in lines))
        return slurmlab.Scenario.load(path).run()

    return run
