"""slurmlab: learn Slurm for AI training clusters.

The public API, grouped by stage of the data flow
(spec -> sim/policies -> records -> analysis -> viz; ipywidgets dashboards, the next stage,
will be thin views over it).
"""

__version__ = "0.1.0"

from slurmlab.anonymize import anonymize_file
from slurmlab.errors import (
    ConfigError,
    PolicyError,
    RequestError,
    SbatchError,
    ScenarioError,
    SlurmlabError,
)
from slurmlab.policies.fairshare import Account
from slurmlab.records.sacct import SacctParseError, read_sacct, write_sacct
from slurmlab.records.sacct import steps as sacct_steps
from slurmlab.records.swf import read_swf
from slurmlab.report import write_report
from slurmlab.scenario import Scenario
from slurmlab.sim.checkpoint import Checkpoint, daly_interval, expected_goodput, young_interval
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.lab import Lab
from slurmlab.sim.result import SimulationResult
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster, Gres, Node, Partition
from slurmlab.spec.job import JobSpec, Resources
from slurmlab.spec.presets import presets
from slurmlab.spec.qos import Qos, Reservation
from slurmlab.spec.synthetic import ai_workload, pool_workload
from slurmlab.spec.workload import Workload, WorkloadJob
from slurmlab.srun import srun_env

__all__ = [
    # spec: clusters and job requests
    "Cluster",
    "Node",
    "Partition",
    "Gres",
    "presets",
    "JobSpec",
    "Resources",
    "srun_env",
    "Workload",
    "WorkloadJob",
    "ai_workload",
    "pool_workload",
    "Account",
    "Qos",
    "Reservation",
    # sim: the engine, failures and checkpoints
    "simulate",
    "SimulationResult",
    "Scenario",
    "Lab",
    "Checkpoint",
    "NodeFailure",
    "RandomFailures",
    "young_interval",
    "daly_interval",
    "expected_goodput",
    # records and analysis of real exports (analyzers: slurmlab.analysis)
    "read_swf",
    "read_sacct",
    "write_sacct",
    "sacct_steps",
    "SacctParseError",
    "write_report",
    "anonymize_file",
    # errors
    "SlurmlabError",
    "ConfigError",
    "SbatchError",
    "RequestError",
    "ScenarioError",
    "PolicyError",
]


def load_ipython_extension(ipython) -> None:
    """``%load_ext slurmlab``: registers the ``%%sbatch`` cell magic and the line magics
    ``%squeue``, ``%sinfo``, ``%sacct``, ``%scancel`` and ``%scontrol`` (update, hold,
    release, requeue, requeuehold: :mod:`slurmlab.sim.magics`) on the current Lab, and
    shows a :class:`SlurmlabError` (a request Slurm would refuse, an unknown job...) as its
    message, as the commands print theirs, instead of a traceback through slurmlab's code
    (``%tb`` still prints it)."""
    from slurmlab.sim.lab import sbatch_magic
    from slurmlab.sim.magics import MAGICS, follow_names

    ipython.register_magic_function(sbatch_magic, magic_kind="cell", magic_name="sbatch")
    for name, magic in MAGICS.items():
        ipython.register_magic_function(magic, magic_kind="line", magic_name=name)
    follow_names(ipython)  # (a lab the notebook deletes is no longer the current one)
    ipython.set_custom_exc((SlurmlabError,), _show_error)


def _show_error(shell, etype, value, tb, tb_offset=None) -> None:
    """A slurmlab error in a notebook: its message, which says what to change."""
    import sys

    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # (for %tb)
    if hasattr(sys, "last_exc"):
        sys.last_exc = value
    print(f"{etype.__name__}: {value}", file=sys.stderr)
