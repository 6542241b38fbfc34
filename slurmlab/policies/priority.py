"""Job priority functions: a job's place in Slurm's evaluation order.

Slurm evaluates pending jobs by partition PriorityTier, then job priority, then
submit time, then job id (priority_multifactor.html). ``priority/basic`` gives
each new job a priority one below the previous one (starting below
``0xffff0000``), so the queue is submit order; ``--nice`` lowers it.
``priority/multifactor`` is the weighted sum of factors in [0, 1] (age, fair share,
job size, partition, QOS, association) minus nice, truncated to an integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from slurmlab.errors import SlurmlabError
from slurmlab.spec.units import parse_duration

__all__ = [
    "TOP_PRIORITY",
    "Factors",
    "MultifactorWeights",
    "age_factor",
    "basic_priority",
    "job_size_factor",
    "sort_key",
]

#: Slurm's starting value for priority/basic (src/plugins/priority/basic).
TOP_PRIORITY = 0xFFFF0000


def basic_priority(sequence: int, nice: int = 0) -> int:
    """priority/basic: each submission one below the previous, minus ``--nice``.

    >>> basic_priority(1), basic_priority(2, nice=10)
    (4294901759, 4294901748)
    """
    return max(1, TOP_PRIORITY - sequence - nice)


def sort_key(tier: int, priority: float, submit: float, job_id: int) -> tuple:
    """Slurm's evaluation order as a sort key (smallest first)."""
    return (-tier, -priority, submit, job_id)


@dataclass(frozen=True, slots=True)
class MultifactorWeights:
    """priority/multifactor settings (slurm.conf), with Slurm's defaults.

    Weights default to 0; PriorityMaxAge 7-0; PriorityDecayHalfLife 7-0;
    PriorityCalcPeriod 5 minutes; Fair Tree unless PriorityFlags has NO_FAIR_TREE.
    """

    age: int = 0
    fairshare: int = 0
    jobsize: int = 0
    partition: int = 0
    qos: int = 0
    assoc: int = 0
    max_age: float = 7 * 86400.0
    favor_small: bool = False
    calc_period: float = 300.0
    decay_half_life: float = 7 * 86400.0
    fair_tree: bool = True
    dampening: float = 1.0
    billing: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_cluster(cls, cluster) -> MultifactorWeights | None:
        """The cluster's multifactor settings, or None under priority/basic."""
        ptype = (cluster.setting("PriorityType", "priority/basic") or "").lower()
        if "multifactor" not in ptype:
            return None

        def weight(key):
            raw = cluster.setting(key, "0") or "0"
            try:
                return int(raw)
            except ValueError:
                raise SlurmlabError(f"slurm.conf {key}={raw!r} must be a whole number") from None

        def period(key, default):
            raw = cluster.setting(key)
            if raw is None:
                return default
            td = parse_duration(raw, what=key)
            return 0.0 if td is None else td.total_seconds()

        flags = (cluster.setting("PriorityFlags", "") or "").upper()
        return cls(
            age=weight("PriorityWeightAge"),
            fairshare=weight("PriorityWeightFairshare"),
            jobsize=weight("PriorityWeightJobSize"),
            partition=weight("PriorityWeightPartition"),
            qos=weight("PriorityWeightQOS"),
            assoc=weight("PriorityWeightAssoc"),
            max_age=period("PriorityMaxAge", 7 * 86400.0),
            favor_small=(cluster.setting("PriorityFavorSmall", "NO") or "NO").upper() == "YES",
            calc_period=period("PriorityCalcPeriod", 300.0) or 300.0,
            decay_half_life=period("PriorityDecayHalfLife", 7 * 86400.0),
            fair_tree="NO_FAIR_TREE" not in flags,
            dampening=float(cluster.setting("FairShareDampeningFactor", "1") or 1),
            billing=parse_billing(cluster.setting("TRESBillingWeights", "") or ""),
        )


def parse_billing(text: str) -> dict[str, float]:
    """``TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"`` -> per-unit weights (mem per MB)."""
    out: dict[str, float] = {}
    for item in text.strip('"').split(","):
        if not item.strip():
            continue
        k, _, v = item.partition("=")
        k = k.strip().lower()
        v = v.strip()
        scale = 1.0
        if k == "mem" and v[-1:].upper() in "KMGT" and v[-1:].isalpha():
            scale = {"K": 1 / 1024, "M": 1.0, "G": 1 / 1024, "T": 1 / 1024**2}[v[-1].upper()]
            v = v[:-1]
        out[k] = float(v) * scale
    return out


@dataclass(frozen=True, slots=True)
class Factors:
    """A job's normalized priority factors, each in [0, 1] (sprio shows them weighted)."""

    age: float = 0.0
    fairshare: float = 0.0
    jobsize: float = 0.0
    partition: float = 0.0
    qos: float = 0.0
    assoc: float = 0.0
    nice: int = 0

    def contributions(self, w: MultifactorWeights) -> dict[str, float]:
        """Each factor times its weight (sprio's columns before rounding)."""
        return {
            "AGE": w.age * self.age,
            "ASSOC": w.assoc * self.assoc,
            "FAIRSHARE": w.fairshare * self.fairshare,
            "JOBSIZE": w.jobsize * self.jobsize,
            "PARTITION": w.partition * self.partition,
            "QOS": w.qos * self.qos,
        }

    def weighted(self, w: MultifactorWeights) -> dict[str, int]:
        """sprio's columns: each weighted factor rounded to an integer, and NICE."""
        return {k: round(v) for k, v in self.contributions(w).items()} | {"NICE": self.nice}

    def priority(self, w: MultifactorWeights) -> int:
        """priority = sum of weight x factor - nice, truncated to an integer (at least 1)."""
        return max(1, int(sum(self.contributions(w).values()) - self.nice))


def age_factor(eligible_wait: float, max_age: float) -> float:
    """min(time eligible / PriorityMaxAge, 1)."""
    if max_age <= 0:
        return 1.0
    return min(max(eligible_wait, 0.0) / max_age, 1.0)


def job_size_factor(
    nodes: int, cpus: int, total_nodes: int, total_cpus: int, favor_small: bool
) -> float:
    """The mean of the node and CPU fractions of the cluster (inverted with PriorityFavorSmall).

    >>> job_size_factor(4, 64, 8, 128, False), job_size_factor(1, 1, 8, 128, True) > 0.9
    (0.5, True)
    """
    nf = nodes / total_nodes if total_nodes else 0.0
    cf = cpus / total_cpus if total_cpus else 0.0
    if favor_small:
        nf, cf = 1.0 - nf, 1.0 - cf
    return min(1.0, max(0.0, (nf + cf) / 2.0))
