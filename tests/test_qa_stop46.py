"""Findings of stop 46's QA round, fixed: each test cites the Slurm 22.05 source it follows."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster
from slurmlab.errors import ConfigError, SlurmlabError

_CONF = """NodeName=n[1-2] CPUs=4 RealMemory=8000
PartitionName=p Nodes=ALL Default=YES MaxTime=2:00:00 DefMemPerCPU=100
SelectType=select/cons_tres
"""


def test_max_job_bf_without_bf_max_job_test_is_refused_under_sched_backfill():
    """backfill.c ``_load_config``: ``max_job_bf=`` without ``bf_max_job_test=`` is fatal
    ("Invalid parameter max_job_bf. The option is no longer supported"); the error names the
    line and the fix."""
    with pytest.raises(ConfigError) as err:
        Cluster.from_slurm_conf(_CONF + "SchedulerParameters=bf_interval=5,max_job_bf=50\n")
    text = str(err.value)
    assert "line 4" in text and "max_job_bf=50" in text and "write bf_max_job_test=50" in text


def test_max_job_bf_is_read_by_sched_builtin_and_beside_bf_max_job_test():
    """builtin.c ``builtin_reconfig`` still reads ``max_job_bf=``, and backfill.c reads
    ``bf_max_job_test=`` first when both are given: neither is refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Cluster.from_slurm_conf(
            _CONF + "SchedulerType=sched/builtin\nSchedulerParameters=max_job_bf=50\n"
        )
        Cluster.from_slurm_conf(_CONF + "SchedulerParameters=bf_max_job_test=9,max_job_bf=50\n")


def test_max_job_bf_in_an_inline_cluster_is_refused_too():
    """The same rule for a cluster built in Python (or a scenario's inline settings)."""
    base = Cluster.from_slurm_conf(_CONF)
    with pytest.raises(SlurmlabError, match="bf_max_job_test=7"):
        Cluster("c", base.nodes, base.partitions, {"SchedulerParameters": "max_job_bf=7"})
