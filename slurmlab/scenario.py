"""Scenario files: the shareable unit of the course and of instructors.

A scenario is a YAML (or JSON) document::

    name: backfill-basics
    cluster: tiny                      # a preset, {slurm_conf: PATH[, gres_conf: PATH]}
                                       # (relative to this file), or inline nodes/partitions
    policy: {name: easy}               # or just: easy ; parameters beside the name
    jobs:
      - id: big                        # optional unique name (used by --dependency)
        submit: 0                      # seconds, or [D-]HH:MM:SS, from the scenario start
        runtime: 3600                  # true run time (the scheduler never sees it)
        args: "-N 4 --gres=gpu:2 -t 2:00:00"    # sbatch options, and/or script: | (#SBATCH text)
        user: alice                    # optional; account too
        exit_code: 0                   # optional; non-zero ends the job FAILED
        checkpoint: {interval: 3600, write_cost: 120, restart_cost: 300}   # optional
    actions:                           # optional scripted admin actions
      - {at: 600, action: cancel, job: big}     # cancel | requeue (job); drain | resume (node)
    accounts:                          # optional fair-share tree (sacctmgr)
      - {name: llm, shares: 70, users: [alice, bob]}
    qos:                               # optional (sacctmgr add qos)
      - {name: high, priority: 1000, preempt: [normal], max_tres_per_user: "gres/gpu=16"}
    reservations:                      # optional (scontrol create reservation)
      - {name: launch, start: "1:00:00", duration: "4:00:00", node_count: 4, users: [alice]}
    failures:                          # optional scripted node failures
      - {node: gpu003, at: "2:30:00", down_for: 3600}
    random_failures: {mtbf: 30-00:00:00, distribution: weibull, shape: 0.7, repair: 4:00:00, seed: 1}

Invalid documents raise :class:`ScenarioError` naming the entry and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from slurmlab.errors import ScenarioError, SlurmlabError
from slurmlab.policies.fairshare import Account
from slurmlab.sim.checkpoint import Checkpoint
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.spec.cluster import Cluster, Node, Partition, parse_gres
from slurmlab.spec.job import JobSpec
from slurmlab.spec.presets import presets
from slurmlab.spec.qos import Qos, Reservation, parse_tres_limits
from slurmlab.spec.units import expand_hostlist, parse_duration, parse_memory_mb, parse_seconds
from slurmlab.spec.workload import Action, Workload, WorkloadJob

__all__ = ["Scenario"]

_TOP_KEYS = {
    "name", "description", "cluster", "policy", "jobs", "actions", "accounts", "qos",
    "reservations", "failures", "random_failures", "seed", "origin",
}  # fmt: skip
_JOB_KEYS = {
    "id", "submit", "runtime", "args", "script", "user", "account", "exit_code", "checkpoint",
    "name",
}  # fmt: skip
#: Sections read and kept but not yet used by the engine (priority/QOS/failures issues).
_LATER: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: ``cluster``, ``workload``, ``policy`` (+ params) and ``actions``."""

    name: str
    cluster: Cluster
    workload: Workload
    policy: str = "easy"
    policy_params: dict = field(default_factory=dict)
    actions: tuple[Action, ...] = ()
    description: str = ""
    extra: dict = field(default_factory=dict)
    seed: int = 0
    path: Path | None = None
    failures: tuple[NodeFailure, ...] = ()
    random_failures: RandomFailures | None = None
    accounts: tuple[Account, ...] = ()
    qos: tuple[Qos, ...] = ()
    reservations: tuple[Reservation, ...] = ()

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a scenario file (YAML or JSON)."""
        path = Path(path)
        if not path.exists():
            raise ScenarioError(f"scenario file {str(path)!r} does not exist")
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ScenarioError(f"{path}: not valid YAML/JSON: {exc}") from None
        return cls.from_dict(doc, base=path.parent, source=str(path))

    @classmethod
    def from_dict(
        cls, doc: dict, *, base: Path | None = None, source: str = "scenario"
    ) -> Scenario:
        """Build a scenario from its parsed document (paths relative to ``base``)."""
        if not isinstance(doc, dict):
            raise ScenarioError(f"{source}: expected a mapping with cluster, policy and jobs")
        unknown = set(doc) - _TOP_KEYS
        if unknown:
            raise ScenarioError(
                f"{source}: unknown section(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}"
            )
        base = base or Path(".")
        cluster = _cluster(doc.get("cluster", "tiny"), base, source)
        policy, params = _policy(doc.get("policy", "easy"), source)
        jobs_doc = doc.get("jobs")
        if not isinstance(jobs_doc, list) or not jobs_doc:
            raise ScenarioError(f"{source}: 'jobs' must be a non-empty list of job entries")
        jobs = tuple(_job(entry, i, cluster, source) for i, entry in enumerate(jobs_doc))
        try:
            workload = Workload(jobs, name=str(doc.get("name", Path(source).stem)))
        except SlurmlabError as exc:
            raise ScenarioError(f"{source}: {exc}") from None
        actions = tuple(_action(a, i, source) for i, a in enumerate(doc.get("actions") or []))
        extra = {k: doc[k] for k in _LATER if doc.get(k)}
        failures = []
        for i, f in enumerate(doc.get("failures") or []):
            try:
                failures.append(NodeFailure.from_dict(f, where=f"failures[{i}]"))
            except SlurmlabError as exc:
                raise ScenarioError(f"{source}: {exc}") from None
            if failures[-1].node not in {n.name for n in cluster.nodes}:
                raise ScenarioError(
                    f"{source}: failures[{i}]: node {failures[-1].node!r} is not in the cluster"
                )
        accounts = _section(doc, "accounts", _account, source)
        qos = _section(doc, "qos", Qos.from_dict, source)
        reservations = _section(doc, "reservations", Reservation.from_dict, source)
        random_failures = None
        if doc.get("random_failures"):
            try:
                random_failures = RandomFailures.from_dict(doc["random_failures"])
            except SlurmlabError as exc:
                raise ScenarioError(f"{source}: {exc}") from None
        return cls(
            name=str(doc.get("name", Path(source).stem)),
            cluster=cluster,
            workload=workload,
            policy=policy,
            policy_params=params,
            actions=actions,
            description=str(doc.get("description", "")),
            extra=extra,
            seed=int(doc.get("seed", 0)),
            path=Path(source) if source != "scenario" else None,
            failures=tuple(failures),
            random_failures=random_failures,
            accounts=accounts,
            qos=qos,
            reservations=reservations,
        )

    def run(self, policy: str | None = None, *, progress: bool = False, **params):
        """Simulate this scenario (``policy`` overrides the file's; ``params`` add to it)."""
        from slurmlab.sim.simulate import simulate

        name = policy or self.policy
        merged = {**(self.policy_params if name == self.policy else {}), **params}
        return simulate(
            self.cluster, self.workload, name, self.seed, progress=progress,
            actions=self.actions, failures=self.failures, random_failures=self.random_failures,
            accounts=self.accounts, qos=self.qos, reservations=self.reservations, **merged,
        )  # fmt: skip


def _cluster(value, base: Path, source: str) -> Cluster:
    if isinstance(value, str):
        if value in presets():
            return Cluster.preset(value)
        raise ScenarioError(
            f"{source}: cluster {value!r} is not a preset ({', '.join(presets())}); "
            "use {slurm_conf: PATH} for a slurm.conf"
        )
    if not isinstance(value, dict):
        raise ScenarioError(f"{source}: cluster must be a preset name or a mapping")
    try:
        if "preset" in value:
            return Cluster.preset(value["preset"])
        if "slurm_conf" in value:
            conf = base / value["slurm_conf"]
            gres = base / value["gres_conf"] if value.get("gres_conf") else None
            if not conf.exists():
                raise ScenarioError(f"{source}: cluster.slurm_conf {str(conf)!r} does not exist")
            return Cluster.from_slurm_conf(conf, gres)
        return _inline_cluster(value, source)
    except ScenarioError:
        raise
    except SlurmlabError as exc:
        raise ScenarioError(f"{source}: cluster: {exc}") from None


def _inline_cluster(value: dict, source: str) -> Cluster:
    nodes = []
    for i, n in enumerate(value.get("nodes") or []):
        where = f"{source}: cluster.nodes[{i}]"
        if not isinstance(n, dict) or "name" not in n:
            raise ScenarioError(f"{where}: each node needs a name (a hostlist like gpu[01-04])")
        for name in expand_hostlist(str(n["name"])):
            nodes.append(
                Node(
                    name=name,
                    cpus=int(n.get("cpus", 1)),
                    memory_mb=parse_memory_mb(n.get("memory", 1), what=f"{where}.memory"),
                    gres=parse_gres(str(n.get("gres", ""))),
                    features=frozenset(n.get("features", ()) or ()),
                )
            )
    if not nodes:
        raise ScenarioError(f"{source}: cluster needs 'nodes' (or a preset / slurm_conf)")
    parts = []
    for i, p in enumerate(
        value.get("partitions") or [{"name": "main", "nodes": "ALL", "default": True}]
    ):
        where = f"{source}: cluster.partitions[{i}]"
        names = (
            [n.name for n in nodes]
            if p.get("nodes", "ALL") == "ALL"
            else expand_hostlist(p["nodes"])
        )
        parts.append(
            Partition(
                name=str(p.get("name", f"p{i}")),
                nodes=tuple(names),
                default=bool(p.get("default", False)),
                max_time=parse_duration(
                    str(p.get("max_time", "UNLIMITED")), what=f"{where}.max_time"
                ),
                default_time=(
                    parse_duration(str(p["default_time"]), what=f"{where}.default_time")
                    if p.get("default_time")
                    else None
                ),
                max_nodes=p.get("max_nodes"),
                priority_tier=int(p.get("priority_tier", 1)),
                state=str(p.get("state", "UP")),
            )
        )
    settings = {str(k): str(v) for k, v in (value.get("settings") or {}).items()}
    return Cluster(str(value.get("name", "inline")), tuple(nodes), tuple(parts), settings)


def _policy(value, source: str) -> tuple[str, dict]:
    if isinstance(value, str):
        return value, {}
    if isinstance(value, dict) and "name" in value:
        params = dict(value.get("params") or {})
        params.update({k: v for k, v in value.items() if k not in ("name", "params")})
        return str(value["name"]), params
    raise ScenarioError(f"{source}: policy must be a name or {{name: ..., <params>}}")


def _job(entry, i: int, cluster: Cluster, source: str) -> WorkloadJob:
    label = f"{source}: jobs[{i}]" + (
        f" (id {entry.get('id')!r})" if isinstance(entry, dict) and entry.get("id") else ""
    )
    if not isinstance(entry, dict):
        raise ScenarioError(f"{label}: each job must be a mapping with submit, runtime and args")
    unknown = set(entry) - _JOB_KEYS
    if unknown:
        raise ScenarioError(
            f"{label}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_JOB_KEYS)}"
        )
    if "runtime" not in entry:
        raise ScenarioError(f"{label}: field 'runtime' is missing (the job's true run time)")
    try:
        submit = parse_seconds(entry.get("submit", 0), what="submit")
    except SlurmlabError as exc:
        raise ScenarioError(f"{label}: field 'submit': {exc}") from None
    try:
        runtime = parse_seconds(entry["runtime"], what="runtime")
    except SlurmlabError as exc:
        raise ScenarioError(f"{label}: field 'runtime': {exc}") from None
    try:
        if "script" in entry:  # with args too: command-line options override #SBATCH lines
            spec = JobSpec.from_sbatch(str(entry["script"]), entry.get("args"))
        else:
            spec = JobSpec.from_args(str(entry.get("args", "")))
        if entry.get("name"):
            spec = JobSpec.from_args([f"--job-name={entry['name']}"], base=spec)
        spec.validate(cluster)
    except SlurmlabError as exc:
        field_name = "script" if "script" in entry else "args"
        raise ScenarioError(f"{label}: field {field_name!r}: {exc}") from None
    ckpt = None
    if entry.get("checkpoint") is not None:
        try:
            ckpt = Checkpoint.from_dict(entry["checkpoint"], where="checkpoint")
        except SlurmlabError as exc:
            raise ScenarioError(f"{label}: field 'checkpoint': {exc}") from None
    code = entry.get("exit_code", 0)
    if not isinstance(code, int) or not 0 <= code <= 255:
        raise ScenarioError(f"{label}: field 'exit_code' is {code!r}; use a whole number 0..255")
    return WorkloadJob(
        spec,
        submit=submit,
        runtime=runtime,
        id=str(entry["id"]) if entry.get("id") is not None else None,
        user=entry.get("user"),
        account=entry.get("account"),
        exit_code=code,
        checkpoint=ckpt,
    )


def _section(doc: dict, key: str, build, source: str) -> tuple:
    entries = doc.get(key) or []
    if not isinstance(entries, list):
        raise ScenarioError(f"{source}: {key!r} must be a list")
    out = []
    for i, entry in enumerate(entries):
        try:
            out.append(build(entry, where=f"{key}[{i}]"))
        except ScenarioError:
            raise
        except SlurmlabError as exc:
            raise ScenarioError(f"{source}: {exc}") from None
    return tuple(out)


def _account(doc, *, where: str) -> Account:
    """``{name, shares, parent, users, grp_tres, max_jobs}`` (sacctmgr add account ...)."""
    known = {"name", "shares", "parent", "users", "grp_tres", "max_jobs"}
    if not isinstance(doc, dict) or "name" not in doc:
        raise ScenarioError(f"{where}: each account needs a name")
    unknown = set(doc) - known
    if unknown:
        raise ScenarioError(f"{where}: unknown field(s) {sorted(unknown)}; allowed {sorted(known)}")
    users = doc.get("users") or ()
    return Account(
        name=str(doc["name"]),
        shares=float(doc.get("shares", 1)),
        parent=str(doc.get("parent", "root")),
        users=tuple([users] if isinstance(users, str) else users),
        grp_tres=parse_tres_limits(doc.get("grp_tres"), what=f"{where}.grp_tres"),
        max_jobs=doc.get("max_jobs"),
    )


_ACTIONS = {"cancel": "job", "requeue": "job", "drain": "node", "resume": "node"}


def _action(entry, i: int, source: str) -> Action:
    label = f"{source}: actions[{i}]"
    if not isinstance(entry, dict) or "action" not in entry or "at" not in entry:
        raise ScenarioError(f"{label}: each action needs 'at' and 'action' ({', '.join(_ACTIONS)})")
    kind = entry["action"]
    if kind not in _ACTIONS:
        raise ScenarioError(f"{label}: action {kind!r} is not one of {', '.join(_ACTIONS)}")
    target_key = _ACTIONS[kind]
    if target_key not in entry:
        raise ScenarioError(f"{label}: action {kind!r} needs field {target_key!r}")
    try:
        at = parse_seconds(entry["at"], what="at")
    except SlurmlabError as exc:
        raise ScenarioError(f"{label}: field 'at': {exc}") from None
    return Action(at=at, action=kind, target=str(entry[target_key]))
