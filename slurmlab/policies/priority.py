"""Job priority functions: a job's place in Slurm's evaluation order.

Slurm evaluates pending jobs by partition PriorityTier, then job priority, then
submit time, then job id (priority_multifactor.html). ``priority/basic`` gives
each new job a priority one below the previous one (starting below
``0xffff0000``), so the queue is submit order; ``--nice`` lowers it.
``priority/multifactor`` is the weighted sum of factors in [0, 1] (age, fair share,
job size, partition, QOS, association, and one per TRES in PriorityWeightTRES: the
job's amount over its partition's total) minus nice, truncated to an integer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import billing_weight, conf_bool
from slurmlab.spec.units import parse_duration

__all__ = [
    "TOP_PRIORITY",
    "Factors",
    "MultifactorWeights",
    "age_factor",
    "basic_priority",
    "billing_weights",
    "job_size_factor",
    "partition_tres",
    "sort_key",
    "tres_factors",
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
    PriorityCalcPeriod 5 minutes (each read in whole minutes, rounded up, as slurmctld's
    ``time_str2mins``); Fair Tree unless PriorityFlags has NO_FAIR_TREE or DEPTH_OBLIVIOUS
    (read_config.c: DEPTH_OBLIVIOUS turns Fair Tree off; ``depth_oblivious`` then picks the
    classic factor's depth-oblivious effective usage). ``tres`` is PriorityWeightTRES by
    lower-case TRES name (``{"cpu": 1000, "gres/gpu": 4000}``); ``max_tres``
    PriorityFlags=MAX_TRES. TRESBillingWeights are per partition: :func:`billing_weights`.
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
    depth_oblivious: bool = False
    dampening: float = 1.0
    tres: Mapping[str, int] = field(default_factory=dict)
    max_tres: bool = False

    @classmethod
    def from_cluster(cls, cluster) -> MultifactorWeights | None:
        """The cluster's multifactor settings, or None under priority/basic."""
        ptype = (cluster.setting("PriorityType", "priority/basic") or "").lower()
        if "multifactor" not in ptype:
            return None

        def weight(key):
            raw = (cluster.setting(key, "0") or "0").strip()
            if not raw.isdigit():
                raise SlurmlabError(
                    f"slurm.conf {key}={raw!r} must be a whole number >= 0, e.g. 1000"
                )
            return int(raw)

        def period(key, default):
            raw = cluster.setting(key)
            if raw is None:
                return default
            td = parse_duration(raw, what=key)
            # (UNLIMITED: no decay, no age limit; else whole minutes, as time_str2mins)
            return 0.0 if td is None else 60.0 * math.ceil(td.total_seconds() / 60)

        flags = {f.strip() for f in (cluster.setting("PriorityFlags", "") or "").upper().split(",")}
        depth_oblivious = "DEPTH_OBLIVIOUS" in flags
        return cls(
            age=weight("PriorityWeightAge"),
            fairshare=weight("PriorityWeightFairshare"),
            jobsize=weight("PriorityWeightJobSize"),
            partition=weight("PriorityWeightPartition"),
            qos=weight("PriorityWeightQOS"),
            assoc=weight("PriorityWeightAssoc"),
            max_age=period("PriorityMaxAge", 7 * 86400.0),
            favor_small=conf_bool(cluster.setting("PriorityFavorSmall", "NO") or "NO") is True,
            calc_period=period("PriorityCalcPeriod", 300.0),
            decay_half_life=period("PriorityDecayHalfLife", 7 * 86400.0),
            fair_tree="NO_FAIR_TREE" not in flags and not depth_oblivious,
            depth_oblivious=depth_oblivious,
            dampening=float(cluster.setting("FairShareDampeningFactor", "1") or 1),
            tres=parse_tres_weights(cluster.setting("PriorityWeightTRES", "") or ""),
            max_tres="MAX_TRES" in flags,
        )


def billing_weights(cluster) -> dict[str, dict[str, float]]:
    """TRESBillingWeights per partition (slurm.conf(5) sets them on the partition line; a
    partition without its own takes a cluster-wide ``TRESBillingWeights=`` line, which
    slurmlab also accepts). Empty weights bill a job its CPUs."""
    default = parse_billing(cluster.setting("TRESBillingWeights", "") or "")
    out = {}
    for p in cluster.partitions:
        own = p.option("TRESBillingWeights")
        out[p.name] = default if own is None else parse_billing(own)
    return out


def parse_billing(text: str) -> dict[str, float]:
    """``TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"`` -> per-unit weights (mem per
    MB). A weight may end in K, M, G, T or P (spec.cluster's ``billing_weight``: Mem=1K and
    Mem=1M weigh a MB 1, Mem=1G 1/1024).

    >>> parse_billing("CPU=1.0,Mem=0.25G,GRES/gpu=2.0")
    {'cpu': 1.0, 'mem': 0.000244140625, 'gres/gpu': 2.0}
    """
    out: dict[str, float] = {}
    for item in text.strip('"').split(","):
        if not item.strip():
            continue
        k, _, v = item.partition("=")
        out[k.strip().lower()] = billing_weight(k.strip(), v)
    return out


def parse_tres_weights(text: str) -> dict[str, float]:
    """``PriorityWeightTRES=CPU=1000,GRES/gpu=4000`` -> ``{"cpu": 1000.0, "gres/gpu": 4000.0}``.
    Weights are numbers, negative ones too ("Negative values are allowed", slurm.conf(5)),
    which may end in a unit (Mem=1G), read as ``_tres_weight_item`` reads them (strtod).

    >>> parse_tres_weights("CPU=1000,Mem=2000,GRES/gpu=-3000")
    {'cpu': 1000.0, 'mem': 2000.0, 'gres/gpu': -3000.0}
    """
    out: dict[str, float] = {}
    for item in text.strip('"').split(","):
        if not item.strip():
            continue
        name, _, value = item.partition("=")
        try:
            out[name.strip().lower()] = billing_weight(name.strip(), value, signed=True)
        except SlurmlabError as exc:
            raise SlurmlabError(f"slurm.conf PriorityWeightTRES={text!r}: {exc}") from None
    return out


def partition_tres(cluster, partition: str) -> dict[str, float]:
    """A partition's TRES totals (cpu, mem in MB, node, gres/gpu), what TRES factors divide by.

    >>> from slurmlab.spec.cluster import Cluster
    >>> partition_tres(Cluster.preset("tiny"), "main")["gres/gpu"]
    8.0
    """
    nodes = [cluster.node(n) for n in cluster.partition(partition).nodes]
    return {
        "cpu": float(sum(n.cpus for n in nodes)),
        "mem": float(sum(n.memory_mb for n in nodes)),
        "node": float(len(nodes)),
        "gres/gpu": float(sum(n.gpus for n in nodes)),
    }


def tres_factors(job: Mapping[str, float], partition: Mapping[str, float]) -> dict[str, float]:
    """TRES factors: each TRES the job holds (or asks for) over its partition's total.

    Slurm's priority/multifactor divides a job's allocated TRES (requested while it waits)
    by the partition's TRES counts; a TRES the partition lacks has no factor.

    >>> tres_factors({"cpu": 1, "gres/gpu": 4}, {"cpu": 64, "gres/gpu": 16})
    {'cpu': 0.015625, 'gres/gpu': 0.25}
    """
    return {t: v / partition[t] for t, v in job.items() if v and partition.get(t)}


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
    tres: Mapping[str, float] = field(default_factory=dict)

    def tres_weighted(self, w: MultifactorWeights) -> dict[str, float]:
        """Each TRES factor times its PriorityWeightTRES weight (TRES without a weight: none)."""
        return {t: w.tres[t] * v for t, v in self.tres.items() if w.tres.get(t) and v}

    def tres_text(self, w: MultifactorWeights) -> str:
        """sprio's TRES column: ``cpu=16,gres/gpu=1000`` (weighted, no decimals), or empty.

        >>> w = MultifactorWeights(tres={"cpu": 1000, "gres/gpu": 4000})
        >>> Factors(tres={"cpu": 1 / 64, "gres/gpu": 0.25}).tres_text(w)
        'cpu=16,gres/gpu=1000'
        """
        return ",".join(f"{t}={v:.0f}" for t, v in self.tres_weighted(w).items())

    def contributions(self, w: MultifactorWeights) -> dict[str, float]:
        """Each factor times its weight (sprio's columns before rounding); TRES is the sum
        over the TRES factors."""
        return {
            "AGE": w.age * self.age,
            "ASSOC": w.assoc * self.assoc,
            "FAIRSHARE": w.fairshare * self.fairshare,
            "JOBSIZE": w.jobsize * self.jobsize,
            "PARTITION": w.partition * self.partition,
            "QOS": w.qos * self.qos,
            "TRES": sum(self.tres_weighted(w).values()),
        }

    def weighted(self, w: MultifactorWeights) -> dict[str, int]:
        """Each weighted factor rounded to an integer (sprio's columns; TRES as a total),
        and NICE."""
        return {k: round(v) for k, v in self.contributions(w).items()} | {"NICE": self.nice}

    def priority(self, w: MultifactorWeights) -> int:
        """priority = sum of weight x factor - nice, truncated to an integer from 1 to
        2^32 - 1 (priority_multifactor.c: "exceeds 32 bits. Reducing it to 4294967295")."""
        return min(max(1, int(sum(self.contributions(w).values()) - self.nice)), 0xFFFFFFFF)


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
