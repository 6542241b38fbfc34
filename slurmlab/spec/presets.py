"""Named example clusters, each a real slurm.conf shipped in ``slurmlab/data``.

``tiny`` (4 nodes x 2 A100) shows every rule on a screen; ``teaching`` (8 x 4 A100
+ 2 CPU nodes) is the course's cluster; ``ai`` (32 x 8 H100 + 8 CPU nodes) is a
realistic AI training cluster. Read a preset's file to see how it is configured.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Cluster

__all__ = ["preset", "preset_path", "presets"]

_PRESETS = ("tiny", "teaching", "ai")


def presets() -> list[str]:
    """The names ``Cluster.preset()`` accepts."""
    return list(_PRESETS)


def preset_path(name: str):
    """The packaged slurm.conf of a preset (a Traversable path)."""
    if name not in _PRESETS:
        raise SlurmlabError(f"unknown cluster preset {name!r}; choose one of {', '.join(_PRESETS)}")
    return resources.files("slurmlab") / "data" / f"{name}.conf"


def preset(name: str) -> Cluster:
    """Build the named preset cluster (cached: clusters are immutable)."""
    if not isinstance(name, str):
        raise SlurmlabError(
            f"cluster preset {name!r} is not a name; choose one of {', '.join(_PRESETS)} "
            "(a Cluster is used as it is: Cluster.coerce(value) takes either)"
        )
    return _preset(name)


@cache
def _preset(name: str) -> Cluster:
    text = preset_path(name).read_text(encoding="utf-8")
    return Cluster.from_slurm_conf(text, name=name)
