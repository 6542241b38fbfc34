"""slurmlab: learn Slurm for AI training clusters.

The public API, grouped by stage of the data flow
(spec -> sim/policies -> records -> analysis -> viz -> widgets).
"""

__version__ = "0.1.0"

from slurmlab.errors import (
    ConfigError,
    RequestError,
    SbatchError,
    ScenarioError,
    SlurmlabError,
)
from slurmlab.spec.cluster import Cluster, Gres, Node, Partition
from slurmlab.spec.job import JobSpec, Resources
from slurmlab.spec.presets import presets
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
    # errors
    "SlurmlabError",
    "ConfigError",
    "SbatchError",
    "RequestError",
    "ScenarioError",
]
