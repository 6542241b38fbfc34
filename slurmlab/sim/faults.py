"""Node failures: scripted (node, time, repair) and random (exponential or Weibull).

Random failures draw each node's times to failure from one seeded generator
stream per node, keyed by the node's name (``numpy.random.SeedSequence(seed,
spawn_key=...)``), so a run is reproducible and adding, removing or renaming a node does
not change the others' failures. Weibull
uses ``shape`` k and a scale chosen so that its mean equals ``mtbf``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from slurmlab.errors import SlurmlabError, unknown_fields
from slurmlab.spec.units import parse_names, parse_number, parse_seconds, parse_whole

__all__ = ["NodeFailure", "RandomFailures"]


@dataclass(frozen=True, slots=True)
class NodeFailure:
    """A scripted failure: ``node`` goes DOWN at ``at`` for ``down_for`` seconds (None: stays down).

    ``down_for`` is the time until the node is back in service. With Slurm's default
    ReturnToService=0 a node that went DOWN stays DOWN until an administrator resumes it
    (``scontrol update NodeName=... State=RESUME``): ``down_for`` is then the repair plus
    that resume; with ReturnToService=1 or 2, slurmd registering again brings it back.
    slurmlab does not tell them apart: every failure with a ``down_for`` ends with the node
    IDLE (or still DRAIN, when it was drained), and one without stays DOWN.
    """

    node: str
    at: float
    down_for: float | None = None

    def __post_init__(self):  # times as numbers or durations ("1h", "1:00:00")
        if not isinstance(self.node, str) or not self.node:
            raise SlurmlabError(f"failure: node {self.node!r} must be a node name")
        object.__setattr__(self, "at", parse_seconds(self.at, what=f"failure of {self.node}: at"))
        if self.down_for is not None:
            down = parse_seconds(self.down_for, what=f"failure of {self.node}: down_for")
            object.__setattr__(self, "down_for", down)

    @classmethod
    def from_dict(cls, doc: dict, *, where: str = "failures") -> NodeFailure:
        known = {"node", "at", "down_for"}
        unknown = set(doc) - known if isinstance(doc, dict) else set()
        if unknown:
            raise SlurmlabError(f"{where}: {unknown_fields(unknown, known)}")
        if not isinstance(doc, dict) or "node" not in doc or "at" not in doc:
            raise SlurmlabError(f"{where}: each failure needs 'node' and 'at' (and 'down_for')")
        down = doc.get("down_for")
        return cls(
            # (a scenario checks they are the cluster's; a list is one hostlist, as the
            # nodes of random_failures)
            node=",".join(map(str, doc["node"]))
            if isinstance(doc["node"], (list, tuple))
            else str(doc["node"]),
            at=parse_seconds(doc["at"], what=f"{where}.at"),
            down_for=None if down is None else parse_seconds(down, what=f"{where}.down_for"),
        )


@dataclass(frozen=True, slots=True)
class RandomFailures:
    """Random node failures: per-node MTBF, a distribution, and a repair time."""

    mtbf: float
    distribution: str = "exponential"
    shape: float = 1.0
    repair: float = 3600.0
    seed: int | None = None
    nodes: tuple[str, ...] = ()  # empty: every node

    def __post_init__(self):  # times as numbers or durations ("30d", "1:00:00")
        set_ = object.__setattr__
        set_(self, "mtbf", parse_seconds(self.mtbf, what="random_failures: mtbf"))
        set_(self, "repair", parse_seconds(self.repair, what="random_failures: repair"))
        set_(self, "shape", parse_number(self.shape, what="random_failures: shape", strict=True))
        if self.seed is not None:
            set_(self, "seed", parse_whole(self.seed, what="random_failures: seed"))
        set_(
            self, "nodes", parse_names(self.nodes, what="random_failures: nodes", hostlist_ok=True)
        )
        if self.mtbf <= 0:
            raise SlurmlabError(f"random_failures: mtbf {self.mtbf} must be positive")
        if self.distribution not in ("exponential", "weibull"):
            raise SlurmlabError(
                f"random_failures: distribution {self.distribution!r} must be exponential or weibull"
            )
        if self.shape <= 0:
            raise SlurmlabError(f"random_failures: shape {self.shape} must be positive")
        if self.distribution == "exponential" and self.shape != 1.0:  # (never ignored silently)
            raise SlurmlabError(
                f"random_failures: shape {self.shape:g} is a Weibull parameter, but the "
                "distribution is exponential (Weibull with shape 1); add distribution: weibull, "
                "or remove shape"
            )
        if self.repair < 0:
            raise SlurmlabError(f"random_failures: repair {self.repair} must not be negative")

    @classmethod
    def from_dict(cls, doc: dict, *, where: str = "random_failures") -> RandomFailures:
        known = {"mtbf", "distribution", "shape", "repair", "seed", "nodes"}
        unknown = set(doc) - known if isinstance(doc, dict) else set()
        if unknown:
            raise SlurmlabError(f"{where}: {unknown_fields(unknown, known)}")
        if not isinstance(doc, dict) or "mtbf" not in doc:
            raise SlurmlabError(f"{where}: give at least 'mtbf' (seconds or [D-]HH:MM:SS)")
        nodes = doc.get("nodes")
        return cls(
            mtbf=parse_seconds(doc["mtbf"], what=f"{where}.mtbf"),
            distribution=str(doc.get("distribution", "exponential")),
            shape=parse_number(doc.get("shape", 1.0), what=f"{where}.shape", strict=True),
            repair=parse_seconds(doc.get("repair", 3600), what=f"{where}.repair"),
            seed=None
            if doc.get("seed") is None
            else parse_whole(doc["seed"], what=f"{where}.seed"),
            nodes=parse_names(nodes, what=f"{where}.nodes", hostlist_ok=True),
        )

    def streams(self, node_names, seed: int, index: int = 0) -> dict[str, np.random.Generator]:
        """One independent generator per node, from one seed (this model's own, else the
        run's), keyed by the ``index``-th model of the run and the node's name: two models on
        one node fail independently (even with the same seed), the first model of a list
        fails as it would alone, and a node's failures do not depend on the other nodes (nor
        on the node table's order). The key is ``(index, the name's UTF-8 bytes as one
        integer)``: distinct names, distinct streams."""
        if self.seed is not None:
            seed = self.seed
        return {
            name: np.random.default_rng(
                np.random.SeedSequence(
                    seed, spawn_key=(index, int.from_bytes(name.encode(), "big"))
                )
            )
            for name in node_names
        }

    def draw(self, rng: np.random.Generator) -> float:
        """One time to failure: whole seconds, at least 1 (slurmctld's clock, and so every
        time sacct shows, counts whole seconds; a failure at 18:19:38.6 would give a run
        whose Elapsed is not its End - Start as sacct prints them)."""
        if self.distribution == "exponential":
            draw = rng.exponential(self.mtbf)
        else:
            draw = self.mtbf / math.gamma(1.0 + 1.0 / self.shape) * rng.weibull(self.shape)
        return float(max(1, math.ceil(draw)))
