"""Fixtures shared by several test files."""

from __future__ import annotations

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
