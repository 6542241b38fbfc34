"""Quality of service and advance reservations, as ``sacctmgr`` and ``scontrol`` create them.

A QOS carries a priority (the QOS factor), the QOS it may preempt, and limits:
MaxJobsPerUser, MaxTRESPerUser (e.g. ``gres/gpu=16``), GrpTRES (all its jobs
together) and MaxWall. A reservation holds nodes (or a node count) over a time
window for some users/accounts. Lists of names (users, accounts, the QOS a QOS
preempts) are a list or one string split at commas, as sacctmgr's ``Users=alice,bob``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from slurmlab.errors import SlurmlabError, unknown_fields, warn_at_caller
from slurmlab.spec.units import (
    parse_duration,
    parse_memory_mb,
    parse_names,
    parse_seconds,
    parse_time_limit,
    parse_whole,
)

__all__ = [
    "Qos",
    "Reservation",
    "parse_name_list",
    "parse_preempt_mode",
    "parse_tres_limits",
    "preemption_loop",
    "reservation_pools",
    "simulated_preempt_mode",
]

_TRES_KEYS = ("cpu", "mem", "node", "gres/gpu")
#: The PreemptMode values slurmlab models; SUSPEND, GANG and WITHIN are Slurm's too.
PREEMPT_MODES = ("OFF", "CANCEL", "REQUEUE")
_UNMODELLED_MODES = ("SUSPEND", "GANG", "WITHIN")


def parse_preempt_mode(value, *, what: str = "PreemptMode") -> str:
    """``"requeue"`` -> ``"REQUEUE"``: one of OFF, CANCEL and REQUEUE (slurm.conf(5)).

    Slurm's SUSPEND and GANG (time slicing) and WITHIN are refused, never run as CANCEL:
    a simulator that silently cancels the jobs a site suspends teaches the wrong lesson.
    """
    text = str(value).strip().upper()
    parts = [p.strip() for p in text.split(",") if p.strip()]
    other = [p for p in parts if p not in PREEMPT_MODES]
    if len(parts) == 1 and not other:
        return parts[0]
    unmodelled = [p for p in other if p in _UNMODELLED_MODES]
    if unmodelled:
        raise SlurmlabError(
            f"{what}={value}: slurmlab models PreemptMode OFF, CANCEL and REQUEUE, not "
            f"{', '.join(unmodelled)}; use REQUEUE (the victim pends again) or CANCEL"
        )
    raise SlurmlabError(f"{what}={value}: not a PreemptMode; give OFF, CANCEL or REQUEUE")


def simulated_preempt_mode(value, preempt_type, *, what: str = "PreemptMode") -> str:
    """The cluster's PreemptMode as a simulation runs it (:func:`parse_preempt_mode`) under
    its PreemptType. slurmlab preempts under preempt/qos only: under another type no job is
    preempted, so a SUSPEND, GANG or WITHIN there changes nothing slurmlab models (the
    cluster names it in a warning, cluster.py ``preempt_mode_warning``) and the mode run is
    OFF; under preempt/qos it is refused as :func:`parse_preempt_mode` refuses it."""
    words = {w.strip().upper() for w in str(value).split(",")}
    if str(preempt_type).strip().lower() != "preempt/qos" and words & set(_UNMODELLED_MODES):
        return "OFF"
    return parse_preempt_mode(value, what=what)


def preemption_loop(preempts: dict[str, tuple[str, ...]]) -> list[str] | None:
    """A cycle of QOS that may preempt one another (``qa -> qb -> qa``), as a list of
    names from and back to its first, or None. sacctmgr refuses to make one ("QOS
    Preemption loop detected": as_mysql_qos.c ``_preemption_loop``); two jobs of such QOS
    would preempt each other for ever."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for other in preempts.get(name, ()):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state:
                found = walk(other, [*path, other])
                if found:
                    return found
        state[name] = 2
        return None

    for name in preempts:
        if name not in state:
            found = walk(name, [name])
            if found:
                return found
    return None


def parse_name_list(value, *, what: str) -> tuple[str, ...]:
    """Names as sacctmgr and scontrol take them (``Users=alice,bob``, ``Preempt=low,scav``):
    a string is split at its commas, the spaces around each name dropped; a list gives its
    items, each split the same way: ``"alice, bob"`` gives ``('alice', 'bob')``, and
    ``["alice", "bob,carol"]`` ``('alice', 'bob', 'carol')``. An empty name (``alice,,bob``)
    is an error.
    """
    names = tuple(
        part.strip() for name in parse_names(value, what=what) for part in name.split(",")
    )
    if "" in names:
        raise SlurmlabError(
            f"invalid {what} {value!r}: an empty name (a blank item, or nothing between two "
            "commas); give names separated by commas, as sacctmgr takes them (alice,bob), or a "
            "list ([alice, bob])"
        )
    return names


def parse_tres_limits(value, *, what: str = "TRES") -> dict[str, int]:
    """``"cpu=64,gres/gpu=16,mem=512G"`` or a mapping -> ``{'cpu': 64, 'gres/gpu': 16, ...}``."""
    if value in (None, "", {}):
        return {}
    items = (
        value.items()
        if isinstance(value, Mapping)
        else (tuple(p.split("=", 1)) for p in str(value).split(",") if p.strip())
    )
    out = {}
    for item in items:
        if len(item) != 2:
            raise SlurmlabError(f"{what}: {value!r} must be name=count pairs, e.g. gres/gpu=16")
        k, v = str(item[0]).strip().lower(), item[1]
        if k == "gpu":
            k = "gres/gpu"
        if k not in _TRES_KEYS:
            raise SlurmlabError(f"{what}: unknown TRES {k!r}; use {', '.join(_TRES_KEYS)}")
        try:
            out[k] = parse_memory_mb(str(v)) if k == "mem" else parse_whole(v, what=k)
        except SlurmlabError:
            raise SlurmlabError(f"{what}: {k}={v!r} is not a count (e.g. {k}=16)") from None
    return out


def _qos_preempt_mode(value, *, what: str) -> str | None:
    """A QOS's PreemptMode: CANCEL or REQUEUE, or None for the cluster's. sacctmgr reads
    OFF, CLUSTER and "" alike (slurm_protocol_defs.c ``preempt_mode_num``: PREEMPT_MODE_OFF,
    0), and preempt_qos.c ``_job_preempt_mode`` takes the QOS's mode only when it is not 0:
    "Unsetting the QOS specific PreemptMode, by specifying "OFF", "" or "Cluster", makes it
    use the default cluster-wide PreemptMode" (sacctmgr(1)). OFF does not exempt its jobs,
    which a warning says, since that is what it seems to mean."""
    text = str(value).strip().upper()
    if text == "OFF":
        warn_at_caller(
            f"{what}=OFF: for a QOS, Slurm reads OFF as the cluster's "
            'PreemptMode (sacctmgr(1): OFF, "" or Cluster unset the QOS\'s mode), so its jobs '
            "are preempted as the cluster's mode says; to keep them from being preempted, "
            "leave the QOS out of every other QOS's preempt list"
        )
    if text in ("", "OFF", "CLUSTER"):
        return None
    return parse_preempt_mode(value, what=what)


def _exempt_time(value, *, what: str) -> float | None:
    """A QOS's PreemptExemptTime in seconds; None when not given or unset as sacctmgr unsets
    it (-1, UNLIMITED: INFINITE, which acct_policy_get_preemptable_time passes over for
    slurm.conf's)."""
    if value is None or str(value).strip().upper() in ("-1", "UNLIMITED", "INFINITE"):
        return None
    return parse_seconds(value, what=what)


@dataclass(frozen=True, slots=True)
class Qos:
    """A QOS: priority, whom it may preempt, and its limits."""

    name: str
    priority: int = 0
    preempt: tuple[str, ...] = ()
    preempt_mode: str | None = None
    grace_time: float = 0.0
    max_jobs_per_user: int | None = None
    max_tres_per_user: Mapping[str, int] = field(default_factory=dict)
    grp_tres: Mapping[str, int] = field(default_factory=dict)
    max_wall: timedelta | None = None
    #: sacctmgr PreemptExemptTime: a job of this QOS runs at least this long before it may
    #: be preempted (None, or -1/UNLIMITED as sacctmgr reads them: slurm.conf's
    #: PreemptExemptTime, else none)
    preempt_exempt_time: float | None = None

    def __post_init__(self):
        set_ = object.__setattr__  # numbers given as text ("10", "5m") are read, never compared raw
        if not isinstance(self.name, str):
            raise SlurmlabError(f"QOS: name {self.name!r} is not text; give e.g. Qos('high')")
        set_(self, "name", self.name.lower())  # sacctmgr lower-cases QOS names (as accounts')
        set_(self, "priority", parse_whole(self.priority, what=f"QOS {self.name!r} priority"))
        set_(
            self, "grace_time", parse_seconds(self.grace_time, what=f"QOS {self.name!r} grace_time")
        )
        # MaxWall: Slurm's time forms, a bare number being minutes (sacctmgr MaxWall=60),
        # said in a warning when given as a Python number
        set_(self, "max_wall", parse_time_limit(self.max_wall, what=f"QOS {self.name!r} max_wall"))
        for tres in ("max_tres_per_user", "grp_tres"):  # "gres/gpu=16" text, or name -> count
            value = parse_tres_limits(getattr(self, tres), what=f"QOS {self.name!r} {tres}")
            set_(self, tres, value)
        what = f"QOS {self.name!r} preempt_exempt_time"
        set_(self, "preempt_exempt_time", _exempt_time(self.preempt_exempt_time, what=what))
        if self.max_jobs_per_user is not None:
            n = parse_whole(self.max_jobs_per_user, what=f"QOS {self.name!r} max_jobs_per_user")
            set_(self, "max_jobs_per_user", n)
        if not self.name:
            raise SlurmlabError("QOS: name must not be empty")
        if self.priority < 0:
            raise SlurmlabError(f"QOS {self.name!r}: priority {self.priority} must be >= 0")
        if self.preempt_mode is not None:  # None: the cluster's (sacctmgr's "cluster")
            what = f"QOS {self.name!r} preempt_mode"
            set_(self, "preempt_mode", _qos_preempt_mode(self.preempt_mode, what=what))
        # names: a list, or a string split at commas (sacctmgr Preempt=low,scav), never letters
        object.__setattr__(
            self,
            "preempt",
            tuple(
                q.lower() for q in parse_name_list(self.preempt, what=f"QOS {self.name!r} preempt")
            ),
        )
        if self.name in self.preempt:
            raise SlurmlabError(f"QOS {self.name!r}: it cannot preempt itself (preempt lists it)")

    @classmethod
    def from_dict(cls, doc: dict, *, where: str = "qos") -> Qos:
        known = {"name", "priority", "preempt", "preempt_mode", "grace_time", "max_jobs_per_user",
                 "max_tres_per_user", "grp_tres", "max_wall", "preempt_exempt_time"}  # fmt: skip
        if not isinstance(doc, dict) or "name" not in doc:
            raise SlurmlabError(f"{where}: each QOS needs a name")
        unknown = set(doc) - known
        if unknown:
            raise SlurmlabError(f"{where}: {unknown_fields(unknown, known)}")
        pre = doc.get("preempt") or ()
        mode = doc.get("preempt_mode")
        return cls(
            name=str(doc["name"]),
            priority=parse_whole(doc.get("priority", 0), what=f"{where}.priority"),
            preempt=parse_name_list(pre, what=f"{where}.preempt"),
            preempt_mode=None
            if mode is None
            else _qos_preempt_mode(  # (YAML reads a bare off as false)
                "OFF" if mode is False else mode, what=f"{where}.preempt_mode"
            ),
            grace_time=parse_seconds(doc.get("grace_time", 0), what=f"{where}.grace_time"),
            max_jobs_per_user=None
            if doc.get("max_jobs_per_user") is None
            else parse_whole(doc["max_jobs_per_user"], what=f"{where}.max_jobs_per_user"),
            max_tres_per_user=parse_tres_limits(
                doc.get("max_tres_per_user"), what=f"{where}.max_tres_per_user"
            ),
            grp_tres=parse_tres_limits(doc.get("grp_tres"), what=f"{where}.grp_tres"),
            max_wall=parse_duration(str(doc["max_wall"]), what=f"{where}.max_wall")
            if doc.get("max_wall")
            else None,
            preempt_exempt_time=_exempt_time(
                doc.get("preempt_exempt_time"), what=f"{where}.preempt_exempt_time"
            ),
        )


#: The reservation flags slurmlab models (scontrol create reservation Flags=...).
RESERVATION_FLAGS = ("MAINT",)


@dataclass(frozen=True, slots=True)
class Reservation:
    """An advance reservation (``scontrol create reservation``): nodes over [start, start+duration)."""

    name: str
    start: float
    duration: float
    nodes: tuple[str, ...] = ()
    node_count: int | None = None
    accounts: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    #: ``scontrol create reservation Flags=...``: ``MAINT`` (a maintenance window) is modelled:
    #: a job whose partition's nodes it all holds during the job's window pends with
    #: ``ReqNodeNotAvail, Reserved for maintenance`` and does not stop the main scheduler
    #: from trying the later jobs of its partition (job_scheduler.c, reservation.c
    #: job_test_resv); sinfo shows its idle nodes ``maint`` (others' idle nodes ``resv``).
    flags: tuple[str, ...] = ()
    #: ``PartitionName=``: the partition whose nodes a ``node_count`` takes (None: the
    #: cluster's default partition, as reservation.c ``_select_nodes`` takes it)
    partition: str | None = None

    def __post_init__(self):
        set_ = object.__setattr__  # times as numbers or durations ("1h", "1:00:00")
        if type(self.duration) is int:  # (as written in Python; once read, it is a float)
            warn_at_caller(
                f"reservation {self.name!r}: duration={self.duration} is read as "
                f"{self.duration} seconds, while scontrol create reservation "
                f"Duration={self.duration} means {self.duration} minutes; write "
                f"duration='{self.duration}s', or '{self.duration}m' for minutes, to say which"
            )
        try:
            set_(self, "start", parse_seconds(self.start, what=f"reservation {self.name!r} start"))
        except SlurmlabError as exc:
            raise SlurmlabError(
                f"{exc} (a reservation's start is counted from the simulation's start, a Lab's "
                "origin, not from now: for scontrol's StartTime=now+1hour in a Lab, use "
                "lab.reserve(..., start='1h'))"
            ) from None
        set_(
            self,
            "duration",
            parse_seconds(self.duration, what=f"reservation {self.name!r} duration"),
        )
        if self.node_count is not None:
            set_(
                self,
                "node_count",
                parse_whole(self.node_count, what=f"reservation {self.name!r} node_count"),
            )
        if not self.name:
            raise SlurmlabError("reservation: name must not be empty")
        where = f"reservation {self.name!r}"  # names, one or a list (a hostlist for nodes)
        flags = parse_name_list(self.flags, what=f"{where} flags")  # (Flags=MAINT,IGNORE_JOBS)
        flags = tuple(dict.fromkeys(f.upper() for f in flags))
        unknown = [f for f in flags if f not in RESERVATION_FLAGS]
        if unknown:
            raise SlurmlabError(
                f"{where}: flag {unknown[0]!r} is not modelled; slurmlab models "
                f"{', '.join(RESERVATION_FLAGS)} (a maintenance window: flags: [maint])"
            )
        set_(self, "flags", flags)
        object.__setattr__(
            self, "nodes", parse_names(self.nodes, what=f"{where} nodes", hostlist_ok=True)
        )
        # a list, or a string split at commas (scontrol's Users=alice,bob)
        accounts = parse_name_list(self.accounts, what=f"{where} accounts")
        set_(self, "accounts", tuple(a.lower() for a in accounts))  # (as jobs' accounts)
        set_(self, "users", parse_name_list(self.users, what=f"{where} users"))
        if self.duration <= 0:
            raise SlurmlabError(f"reservation {self.name!r}: duration must be positive")
        if not self.nodes and not self.node_count:
            raise SlurmlabError(f"reservation {self.name!r}: give nodes or node_count")
        if not self.accounts and not self.users:
            raise SlurmlabError(f"reservation {self.name!r}: give users or accounts allowed in it")

    @property
    def end(self) -> float:
        return self.start + self.duration

    def admits(self, user: str, account: str) -> bool:
        return user in self.users or account in self.accounts

    @property
    def maint(self) -> bool:
        """A maintenance reservation (``Flags=MAINT``)."""
        return "MAINT" in self.flags

    @classmethod
    def from_dict(cls, doc: dict, *, where: str = "reservations") -> Reservation:
        known = {
            "name", "start", "duration", "nodes", "node_count", "accounts", "users", "flags",
            "partition",
        }  # fmt: skip
        if not isinstance(doc, dict) or "name" not in doc:
            raise SlurmlabError(f"{where}: each reservation needs a name")
        unknown = set(doc) - known
        if unknown:
            raise SlurmlabError(f"{where}: {unknown_fields(unknown, known)}")
        for key in ("start", "duration"):
            if key not in doc:
                raise SlurmlabError(f"{where}: reservation {doc['name']!r} needs {key!r}")
        nodes = doc.get("nodes")
        return cls(
            name=str(doc["name"]),
            start=parse_seconds(doc["start"], what=f"{where}.start"),
            duration=parse_seconds(doc["duration"], what=f"{where}.duration"),
            nodes=parse_names(nodes, what=f"{where}.nodes", hostlist_ok=True),
            node_count=None
            if doc.get("node_count") is None
            else parse_whole(doc["node_count"], what=f"{where}.node_count", minimum=1),
            accounts=parse_name_list(doc.get("accounts"), what=f"{where}.accounts"),
            users=parse_name_list(doc.get("users"), what=f"{where}.users"),
            flags=parse_name_list(doc.get("flags"), what=f"{where}.flags"),
            partition=None if doc.get("partition") is None else str(doc["partition"]),
        )


def reservation_pools(cluster) -> dict:
    """The ``partitions`` and ``default`` keywords of :func:`place_reservations` for
    ``cluster``: where a ``node_count`` reservation takes its nodes."""
    return {
        "partitions": {p.name: p.nodes for p in cluster.partitions},
        "default": next((p.name for p in cluster.partitions if p.default), None),
    }


def place_reservations(
    reservations,
    node_names: list[str],
    jobs_on: Mapping[str, str] | None = None,
    *,
    partitions: Mapping[str, Sequence[str]] | None = None,
    default: str | None = None,
    unavailable: Sequence[str] = (),
) -> list[tuple[Reservation, tuple[str, ...]]]:
    """The nodes each reservation holds, as ``scontrol create reservation`` gives them: the
    nodes it names, or for a ``node_count`` the lowest-named nodes no reservation overlapping
    it in time holds, among those of its ``partition`` (``partitions``: name -> its nodes;
    without one, the ``default`` partition's, as reservation.c ``_select_nodes`` takes the
    default partition's; without ``partitions``, any node). Nodes a maintenance reservation
    holds over its window are taken only when too few others are free, and then the
    lowest-named of them (``_pick_nodes_ordered`` picks from SELECT_NOT_RSVD, the nodes of
    no reservation overlapping it, MAINT included, before SELECT_OVR_RSVD, which admits
    MAINT's); a maintenance reservation by count likewise takes another reservation's nodes
    last (SELECT_AVL_RSVD). Two reservations may not hold one node at one time (Slurm refuses to
    create the second: "Requested nodes are busy"); an error names both. A maintenance
    reservation (MAINT) may hold nodes another holds, and another may hold its nodes
    (reservation.c ``_resv_overlap`` skips MAINT on either side).

    ``jobs_on`` (node -> the running job that holds it past the last reservation's start)
    is for a reservation created while jobs run (:meth:`slurmlab.Lab.reserve`): the last
    one, the one being created, may not hold those nodes either (reservation.c
    ``_job_overlap``: "Requested nodes are busy", unless IGNORE_JOBS, not modelled).
    ``unavailable`` (nodes down or drained then) are not counted for it unless it is a
    maintenance reservation, which takes them last (``_select_nodes`` counts only
    SELECT_AVL_RSVD's nodes, up and not drained, for another; named nodes are not tested)."""
    placed: list[tuple[Reservation, tuple[str, ...]]] = []
    for i, r in enumerate(reservations):
        busy: dict[str, str] = {}
        last = i == len(reservations) - 1
        if jobs_on and last:
            busy.update(jobs_on)
        # (1: a MAINT one's node over r's window; 2: another's; 3: down or drained)
        tier: dict[str, int] = dict.fromkeys(unavailable, 3) if last else {}
        for other, nodes in placed:
            if not (other.start < r.end and r.start < other.end):
                continue
            for n in nodes:
                tier[n] = max(tier.get(n, 0), 1 if other.maint else 2)  # (3 stays)
            if r.maint or other.maint:
                continue
            busy.update(dict.fromkeys(nodes, other.name))
        if r.nodes:
            taken = [n for n in r.nodes if n in busy]
            if taken:
                held = busy[taken[0]]
                by = held if held.startswith("job ") else f"reservation {held!r}"
                raise SlurmlabError(
                    f"reservation {r.name!r}: Requested nodes are busy: {taken[0]} is held by "
                    f"{by} over an overlapping window; pick other nodes or another time"
                )
            placed.append((r, tuple(r.nodes)))
            continue
        pool = node_names
        if partitions is not None and (r.partition or default) is not None:
            name = r.partition or default
            if name not in partitions:
                raise SlurmlabError(
                    f"reservation {r.name!r}: partition {name!r} is unknown (this cluster has "
                    f"{', '.join(partitions)}): Invalid partition name specified"
                )
            members = set(partitions[name])
            pool = [n for n in node_names if n in members]
        elif r.partition is not None:
            raise SlurmlabError(f"reservation {r.name!r}: partition {r.partition!r} is unknown")
        free = [n for n in pool if n not in busy and (r.maint or tier.get(n) != 3)]
        if r.node_count > len(free):
            raise SlurmlabError(
                f"reservation {r.name!r}: Requested nodes are busy: it needs {r.node_count} "
                f"nodes, {len(free)} are not held by other reservations"
                f"{' or running jobs' if jobs_on and last else ''}"
                f"{', nor down or drained,' if last and unavailable and not r.maint else ''} over "
                f"its window ({'the cluster' if len(pool) == len(node_names) else f'partition {name!r}'}"
                f" has {len(pool)})"
            )
        jobs = jobs_on if jobs_on and last else {}
        chosen = _pick_node_count(pool, tier, jobs, r.node_count, r.maint)
        if chosen is None:
            raise SlurmlabError(
                f"reservation {r.name!r}: Requested nodes are busy: running jobs hold too many "
                f"of the {len(free)} nodes other reservations leave it over its window"
            )
        placed.append((r, chosen))
    return placed


def _pick_node_count(
    pool: Sequence[str], tier: Mapping[str, int], jobs: Mapping[str, str], count: int, maint: bool
) -> tuple[str, ...] | None:
    """A reservation's ``count`` nodes from ``pool`` (node order) as reservation.c
    ``_pick_nodes_ordered`` takes them: from each bitmap in turn, the nodes of no other
    reservation over its window (SELECT_NOT_RSVD: ``tier`` 0), then those a MAINT one holds
    too (SELECT_OVR_RSVD: 1), for a MAINT reservation then any (SELECT_AVL_RSVD: 2), and
    last nodes down or drained (SELECT_ONL_RSVD, SELECT_ALL_RSVD: 3). From
    each, ``_pick_node_cnt`` wants what is left to pick, at most the bitmap's size; without
    the nodes running ``jobs`` hold past its start it takes the lowest-named of the rest
    (``sequential_pick``), or none when they are too few. None: too few in the end."""
    picked: set[str] = set()
    remain = count
    for most in (0, 1, 2, 3) if maint else (0, 1):
        avail = [n for n in pool if tier.get(n, 0) <= most and n not in picked]
        want = min(remain, len(avail))
        usable = [n for n in avail if n not in jobs]
        if not want or len(usable) < want:
            continue
        picked.update(usable[:want])
        remain -= want
        if not remain:
            return tuple(n for n in pool if n in picked)
    return None
