"""Scenario files: the shareable unit of the course and of instructors.

A scenario is a YAML (or JSON) document; every field it takes is below::

    name: backfill-basics              # optional (default: the file's name); description: too
    description: One big job, an admin's actions, accounts, QOS and failures
    cluster: ai                        # a preset, {slurm_conf: PATH[, gres_conf: PATH]}
                                       # (relative to this file), or inline nodes/partitions;
                                       # none: the preset tiny, with a warning
                                       # (inline, the first partition is the default unless
                                       # one says default: true)
                                       # inline nodes: {name, cpus, memory, gres, features,
                                       # threads_per_core (CPUs per core: whole cores are
                                       # allocated unless settings say CR_CPU)}
                                       # inline partitions: {name, nodes, default, max_time,
                                       # default_time, max_nodes, priority_tier,
                                       # priority_job_factor (PriorityJobFactor, 0-65533),
                                       # state}; inline settings: {slurm.conf key: value}
    policy: {name: easy}               # or just: easy ; parameters beside the name
                                       # ({name: slurm, bf_interval: 30}) or under params
                                       # ({name: slurm, params: {bf_interval: 30}}); a
                                       # parameter in one place, not both
    origin: 2026-01-05T08:00:00        # optional: the calendar time the clock starts at
    seed: 7                            # optional: what random_failures draw from (below)
    slurmctld_start: -8                # optional: when slurmctld started, in seconds from
                                       # the scenario's start (0 or less, default 0): the
                                       # slurm policy's periodic main-scheduler pass falls
                                       # every sched_interval from then, and priorities are
                                       # recalculated every PriorityCalcPeriod from then
    jobs:                              # (jobs: [] for a cluster alone, for scenario.lab())
      - id: big                        # optional unique name (used by --dependency: no
                                       # spaces, ':', ',', '?', '+'); a job without one is
                                       # known by its JobID (1, 2, ...; an array's JobID
                                       # names all its tasks, as in Slurm)
        name: pretrain                 # optional: the job's name (--job-name)
        submit: 0                      # seconds, [D-]HH:MM:SS or 2h/30m, from the start
        runtime: 3600                  # true run time, seconds (the scheduler never sees it)
        args: "-N 4 --gres=gpu:2 -t 2:00:00"    # sbatch options, and/or script: | (#SBATCH text)
        user: alice                    # optional; account too
        exit_code: 0                   # optional; non-zero ends the job FAILED
        checkpoint: {interval: 3600, write_cost: 120, restart_cost: 300, on_signal: false}
                                       # optional; on_signal: true with --signal in args: a
                                       # final checkpoint when the signal comes before the
                                       # time limit, then the job requeues (chained runs)
    actions:                           # optional scripted admin actions
      - {at: 600, action: cancel, job: big}     # cancel | requeue | hold | release |
                                       # requeuehold (job: an id, ID_TASK, or a task
                                       # range ID_[3-5]); drain | resume (node: a node
                                       # or a hostlist, gpu[1-4])
      - {at: 900, action: update, job: big, time: "1:00:00", nodes: 2, partition: debug}
                                       # scontrol update (an administrator's): any of
                                       # time, nodes (pending job), partition (pending);
                                       # or throttle: an array's %N (ArrayTaskThrottle)
    accounts:                          # optional fair-share tree (sacctmgr add account)
      - {name: llm, shares: 70, users: [alice, bob]}   # once any account lists users,
                                       # a job may charge only an account listing its user
      - {name: llm-eval, parent: llm, shares: 30, users: "carol,dave", grp_tres: "gres/gpu=8",
         max_jobs: 4}                  # parent: default root; GrpTRES and MaxJobs limits
    qos:                               # optional (sacctmgr add qos)
      - {name: high, priority: 1000, preempt: [normal], max_tres_per_user: "gres/gpu=16"}
      - {name: scav, preempt_mode: requeue, grace_time: 60, preempt_exempt_time: 10m,
         max_jobs_per_user: 2, grp_tres: {gpu: 8}, max_wall: "4:00:00"}
    reservations:                      # optional (scontrol create reservation)
      - {name: launch, start: "1:00:00", duration: "4:00:00", node_count: 4, users: [alice],
         partition: train}             # node_count's nodes: partition's (default: the default one)
      - {name: pm, start: 2-00:00:00, duration: 6h, nodes: "gpu[001-004]", users: [root],
         accounts: [llm], flags: [maint]}   # users and/or accounts it admits; flags:
                                       # [maint]: a maintenance window
    failures:                          # optional scripted node failures (node: a hostlist)
      - {node: gpu003, at: "2:30:00", down_for: 3600}
    random_failures: {mtbf: 30-00:00:00, distribution: weibull, shape: 0.7, repair: 4:00:00,
                      nodes: "gpu[001-016]", seed: 1}   # nodes: default all; a list of
                                       # such models: each fails its own nodes

Fields in detail:

- ``users`` (an account's, a reservation's), a reservation's ``accounts`` and a QOS's
  ``preempt`` take a list or one string of names split at commas, as sacctmgr and scontrol
  take them: ``users: "alice,bob"`` (or ``"alice, bob"``) is the users alice and bob.
- ``accounts``: ``shares`` (RawShares, default 1), ``parent`` (an account declared in the
  section; default ``root``), ``grp_tres`` (GrpTRES: what the running jobs of the account
  and its sub-accounts hold together, ``"cpu=64,gres/gpu=8,mem=512G,node=4"`` or a mapping)
  and ``max_jobs`` (MaxJobs: the jobs each user may run in the account at once; a
  sub-account without its own takes its parent's).
- ``qos``: ``priority`` (its QOS factor), ``preempt`` (the QOS it may preempt),
  ``preempt_mode`` (CANCEL or REQUEUE; default, or OFF or CLUSTER as sacctmgr reads them,
  the cluster's PreemptMode),
  ``grace_time`` (GraceTime: how long a victim runs on once preempted),
  ``preempt_exempt_time`` (how long its jobs run before they may be preempted), and the
  limits ``max_jobs_per_user``, ``max_tres_per_user``, ``grp_tres`` (TRES as for accounts)
  and ``max_wall``. The QOS ``normal`` always exists.
- ``random_failures``: ``mtbf`` per node, ``distribution`` (``exponential``, the default, or
  ``weibull`` with its ``shape``), ``repair`` (default 1 h), ``nodes`` (the nodes that
  fail, a hostlist; default all) and ``seed``; or a list of such models (one per group
  of nodes, each with its own MTBF: every model fails its nodes on its own).
- ``seed``: random failures are the only random part of a run. They draw from the section's
  own ``seed`` when it gives one, which then wins over the top-level ``seed`` (silently: the
  top-level one is not used); else from the top-level ``seed`` (default 0).
  ``Scenario.run(seed=N)`` draws them again from ``N`` in both cases.

Some sections have no effect under some slurm.conf settings, as in Slurm, and loading
the scenario warns about each, naming its entry, the setting and the fix: a QOS's
``preempt`` unless ``PreemptType=preempt/qos`` and a ``PreemptMode`` other than OFF, an
account's ``shares`` unless ``PriorityType=priority/multifactor`` with a
``PriorityWeightFairshare``, a QOS's ``priority`` unless multifactor with a
``PriorityWeightQOS`` (or preemption on). The presets are ``priority/basic`` without
preemption and take no ``settings``: use an inline cluster with ``settings`` or a slurm.conf.

Times come in two units, as in Slurm:

- *offsets and durations* (``submit``, ``runtime``, an action's ``at``, a failure's ``at``
  and ``down_for``, a reservation's ``start`` and ``duration``, ``checkpoint``'s times,
  ``random_failures``' ``mtbf`` and ``repair``, a QOS's ``grace_time`` and
  ``preempt_exempt_time``): a bare number is **seconds** (``3600``); ``[D-]HH:MM:SS`` (or
  ``M:S``, ``D-H``, ``D-H:M``, read as ``sbatch -t`` reads them) and a number with a unit
  (``45s``, ``30m``, ``2h``, ``1.5d``) work too. ``submit`` and ``at`` count from the
  scenario's start, which ``origin`` puts on the calendar (default 2026-01-05T00:00:00);
  they take no date;
- *time limits* (``-t`` in ``args``, a partition's ``max_time`` and ``default_time``, a
  QOS's ``max_wall``): Slurm's forms, where a bare number is **minutes** (``-t 30``,
  ``max_time: 120``), else ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S`` or
  ``UNLIMITED``; no unit suffix (``2h``), as sbatch and slurm.conf take none.

A top-level section whose name starts with ``x-`` is the author's own, and not read (as
docker-compose's extension fields): a place for YAML anchors that entries merge with ``<<:``::

    x-defaults: &d {runtime: 600, user: alice, args: "-N 1 -t 30"}
    jobs:
      - {<<: *d, id: a, submit: 0}
      - {<<: *d, id: b, submit: 60, runtime: 1200}   # its own keys win over the merged ones

Numbers are read as written, in decimal, as Slurm reads them: ``submit: 010`` is 10 s (YAML
1.1 alone would read the octal 8), and ``0x10`` or ``1_000`` are errors saying what to write.

A reservation's ``duration`` given as a bare number is read as seconds and warned about:
``scontrol create reservation Duration=60`` means 60 minutes, so write ``1:00:00`` (or
``60s``) to say which. Likewise a two-part time such as ``1:30`` in one of the scenario's own
times (``submit``, ``runtime``, an ``at``, ``down_for``, checkpoint times, a reservation's
``start``, ``random_failures``' ``mtbf`` and ``repair``) is read as M:S, 1 min 30 s, as
``sbatch -t`` reads it, and warned about: write ``1:30:00`` for 1 h 30 min, or ``0:01:30``
(or ``90``) for 1 min 30 s.

Invalid documents raise :class:`ScenarioError` naming the file, the line, the entry, the
field and its value, and how to fix it (``s.yaml line 7: jobs[2] (id 'eval'): field 'args':
...``). Everything is checked when the file is loaded, before anything runs: the policy and
its parameters, the account tree, and the jobs and nodes that actions and reservations name.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from datetime import date, timedelta
from os import PathLike
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import yaml

from slurmlab.errors import ScenarioError, SlurmlabError, unknown_fields, warn_at_caller
from slurmlab.paths import home_path
from slurmlab.policies.backfill import make_policy
from slurmlab.policies.fairshare import Account, AccountTree
from slurmlab.sim.checkpoint import Checkpoint
from slurmlab.sim.engine import _TASK_RANGE, _task_indices
from slurmlab.sim.faults import NodeFailure, RandomFailures
from slurmlab.sim.timing import slurmctld_start_seconds
from slurmlab.spec.cluster import (
    PRIORITY_JOB_FACTOR_MAX,
    Cluster,
    ConfSettings,
    Node,
    Partition,
    gres_name_problem,
    gres_name_suggestion,
    gres_types,
    inert_settings,
    mixed_gpu_note,
    parse_gres,
    preempt_conflict,
    setting_problem,
)
from slurmlab.spec.job import JobSpec
from slurmlab.spec.presets import presets
from slurmlab.spec.qos import (
    Qos,
    Reservation,
    parse_name_list,
    parse_tres_limits,
    place_reservations,
    preemption_loop,
    reservation_pools,
    simulated_preempt_mode,
)
from slurmlab.spec.slurm_conf import included_files
from slurmlab.spec.units import (
    MAX_COUNT,
    check_switch,
    compress_hostlist,
    expand_hostlist,
    format_duration,
    parse_duration,
    parse_flag,
    parse_memory_mb,
    parse_names,
    parse_seconds,
    parse_whole,
    span_words,
)
from slurmlab.spec.workload import (
    ACTIONS,
    AFTER_ARRAY,
    DEFAULT_ORIGIN,
    UPDATE_FIELDS,
    Action,
    Workload,
    WorkloadJob,
    check_exit_code,
    jobid_clash,
    jobid_numbers,
    unknown_action,
    update_value,
)

__all__ = ["Scenario"]

_TOP_KEYS = {
    "name", "description", "cluster", "policy", "jobs", "actions", "accounts", "qos",
    "reservations", "failures", "random_failures", "seed", "origin", "slurmctld_start",
}  # fmt: skip
_JOB_KEYS = {
    "id", "submit", "runtime", "args", "script", "user", "account", "exit_code", "checkpoint",
    "name",
}  # fmt: skip
_CLUSTER_KEYS = {"name", "nodes", "partitions", "settings"}
_NODE_KEYS = {"name", "cpus", "memory", "gres", "features", "threads_per_core"}
_PARTITION_KEYS = {
    "name", "nodes", "default", "max_time", "default_time", "max_nodes", "priority_tier",
    "priority_job_factor", "state",
}  # fmt: skip
#: The fields of a cluster a preset or a slurm.conf gives whole (the others are inline's).
_CLUSTER_FROM = {"preset": {"preset"}, "slurm_conf": {"slurm_conf", "gres_conf"}}
#: Sections read and kept but not yet used by the engine (priority/QOS/failures issues).
_LATER: tuple[str, ...] = ()


class _Int(int):
    """An int written otherwise than as its digits (``010``, ``0x1F``, ``1_000``, ``1:30``),
    with that ``text``: a name field refuses it (``id: 010`` would be the job ``'8'``), a
    number or time field reads the text as written (:func:`_written`)."""

    text: str


class _Bool:
    """A YAML 1.1 boolean (``on``, ``yes``, ``off``...) in a field that holds a name, with its
    ``text`` as written: the error asking to quote it quotes what the user wrote
    (:func:`_a_name`, which refuses it before anything reads the name)."""

    __slots__ = ("text", "value")

    def __init__(self, text: str, value: bool) -> None:
        self.text, self.value = text, value

    def __bool__(self) -> bool:
        return self.value

    def __repr__(self) -> str:
        return repr(self.value)


class DefaultClusterWarning(UserWarning):
    """A scenario without a ``cluster`` section runs on the preset ``tiny``
    (``slurmlab simulate --cluster`` gives one, and leaves this warning out)."""


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when PyYAML has it
    """yaml's safe loader, refusing a key given twice in one mapping (yaml keeps the last)
    and a date that does not exist, and keeping how an int was written (:class:`_Int`)."""

    def construct_mapping(self, node, deep=False):
        first: dict = {}
        for key_node, _value in node.value:
            if key_node.tag == _EXPONENT:  # (a key is a name: 1e2 is the text written)
                key_node.tag = "tag:yaml.org,2002:str"
            if isinstance(key_node, yaml.ScalarNode) and not key_node.tag.endswith(":merge"):
                key = self.construct_object(key_node)
                if key in first:
                    raise yaml.constructor.ConstructorError(
                        problem=f"key {key!r} is given twice in one mapping (first on line "
                        f"{first[key].line + 1}, column {first[key].column + 1}), and YAML/JSON "
                        "would silently keep only the last; give it once",
                        problem_mark=key_node.start_mark,
                    )
                first[key] = key_node.start_mark
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node):
        value = super().construct_yaml_int(node)
        if str(value) == node.value:
            return value
        value = _Int(value)
        value.text = node.value
        return value

    def construct_yaml_timestamp(self, node):
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:  # 2030-02-30: yaml's own error is a bare ValueError
            raise yaml.constructor.ConstructorError(
                problem=f"{node.value} is not a date ({exc}); give a real one, or quote the text",
                problem_mark=node.start_mark,
            ) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)
# A number with an exponent is a number in JSON and in YAML 1.2 (1e3, 3.6e3, 1E-3), but
# PyYAML's YAML 1.1 float needs a dot and a signed exponent (1.0e+3), so a JSON scenario's
# "runtime": 1e3 read as the text '1e3' and was refused: read every such form as a float,
# tagged _EXPONENT so that a key and a field holding a name or text keep the text written
# (``user: 1e3`` is the user '1e3', as YAML 1.1 reads it: see _Loader.construct_mapping
# and _mark_written)
_EXPONENT = "tag:slurmlab,2026:exponent"
_Loader.add_implicit_resolver(
    _EXPONENT,
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)
_Loader.add_constructor(_EXPONENT, _Loader.construct_yaml_float)


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: ``cluster``, ``workload``, ``policy`` (and its ``policy_params``)
    and ``actions``."""

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
    #: one model, or several (a tuple) from a list in the file
    random_failures: RandomFailures | tuple[RandomFailures, ...] | None = None
    accounts: tuple[Account, ...] = ()
    qos: tuple[Qos, ...] = ()
    reservations: tuple[Reservation, ...] = ()
    #: when slurmctld started, in seconds from the scenario's start (0 or less): the
    #: grid of the periodic main-scheduler pass and of the priority recalculation
    #: (``simulate(slurmctld_start=)``)
    slurmctld_start: float = 0.0
    #: the files it read besides the scenario itself, resolved: its cluster's slurm.conf,
    #: the files that includes (its ``Include`` lines), then its gres.conf (``cluster:
    #: {slurm_conf: ..., gres_conf: ...}``); none for a preset or an inline cluster.
    #: ``with_cluster`` keeps them: they are what the document named. ``named_sources``
    #: says which is which.
    sources: tuple[Path, ...] = ()
    #: (document, base folder, source, lines) it was built from: with_cluster checks it again
    _document: tuple | None = field(default=None, repr=False, compare=False)
    #: (what each of ``sources`` is, in words)
    _source_roles: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def named_sources(self) -> tuple[tuple[str, Path], ...]:
        """``(what, path)`` for each file of ``sources``: ``("the scenario's
        cluster.slurm_conf", ...)``, ``("a file the scenario's cluster.slurm_conf includes",
        ...)``, ``("the scenario's cluster.gres_conf", ...)``."""
        roles = self._source_roles or ("a file the scenario read",) * len(self.sources)
        return tuple(zip(roles, self.sources))

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a scenario file (YAML or JSON); errors name its line. To build a scenario
        from a document already in Python (a dict, or YAML text: ``yaml.safe_load(text)``),
        use :meth:`from_dict`."""
        _check_path(path)
        path = home_path(path)  # ("~/x.yaml", as pandas' readers take it)
        try:
            exists = path.exists()
        except OSError as exc:  # (a name too long for the system, say)
            raise ScenarioError(
                f"scenario file {str(path)[:60]!r}: {exc.strerror}; Scenario.load takes a "
                "file's path (for a document's text: Scenario.from_dict(yaml.safe_load(text)))"
            ) from None
        if not exists:
            here = Path.cwd()
            hint = ""
            for base in (here, *here.parents):  # (a notebook in course/ given a repo path)
                if base != here and (base / path).exists():
                    hint = f"; it exists relative to {str(base)!r}: give {str(base / path)!r}"
                    break
            folder = path.parent if path.parent.is_dir() else None
            if not hint and folder is not None:  # a near miss in its folder: a typo
                names = [p.name for p in folder.iterdir() if p.suffix in (".yaml", ".yml", ".json")]
                close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
                if close:
                    hint = f"; did you mean {str(folder / close[0])!r}?"
            raise ScenarioError(
                f"scenario file {str(path)!r} does not exist (relative paths start at the "
                f"current directory, {str(here)!r}){hint}"
            )
        if path.is_dir():
            raise ScenarioError(f"scenario file {str(path)!r} is a directory; give a .yaml file")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(
                f"scenario file {str(path)!r} is not UTF-8 text (byte {exc.start}: "
                f"{exc.object[exc.start : exc.start + 1]!r}); a scenario is a YAML or JSON "
                "document (a gzipped SWF trace is read by read_swf)"
            ) from None
        except OSError as exc:
            raise ScenarioError(f"scenario file {str(path)!r}: {exc.strerror}") from None
        loader = _Loader(text)
        try:  # one parse gives the document and, from its nodes, the line of every entry
            root = loader.get_single_node()
            _check_aliases(root, text, str(path))
            doc = None if root is None else loader.construct_document(root)
            _mark_written(doc, root)
        except yaml.reader.ReaderError as exc:  # a character YAML does not allow at all
            line = text.count("\n", 0, exc.position) + 1
            raise ScenarioError(
                f"not valid YAML/JSON: character {chr(exc.character)!r} (#x{exc.character:04x}) "
                "is not allowed in a YAML document (is this a text file?)",
                source=str(path),
                line=line,
            ) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc)
            column = f" (column {mark.column + 1})" if mark is not None else ""
            context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
            if context and start is not None and (mark is None or start.line != mark.line):
                column += f", {context} that starts on line {start.line + 1}"
            tab = _tab_problem(text, mark)
            raise ScenarioError(
                f"not valid YAML/JSON: {tab}"
                if tab
                else f"not valid YAML/JSON: {problem}{column}{_layout_hint(text, problem, mark)}",
                source=str(path),
                line=mark.line + 1 if mark is not None else None,
            ) from None
        finally:
            loader.dispose()
        if root is None:
            raise ScenarioError(
                "holds no document (the file is empty, or only blank and # comment lines); "
                "write a mapping with cluster, policy and jobs, e.g. cluster: tiny, policy: "
                "easy and jobs: [{submit: 0, runtime: 600, args: -N 1 -t 30}] on three lines",
                source=str(path),
            )
        return cls._build(doc, path.parent, str(path), _yaml_lines(root))

    @classmethod
    def from_dict(
        cls, doc: dict, *, base: Path | None = None, source: str = "scenario"
    ) -> Scenario:
        """Build a scenario from its parsed document (paths relative to ``base``)."""
        return cls._build(doc, base or Path("."), source, {})

    @classmethod
    def _build(
        cls, doc, base: Path, source: str, lines: dict, cluster: Cluster | None = None
    ) -> Scenario:
        try:
            scenario = cls._parse(doc, base, source, cluster, lines)
        except ScenarioError as exc:
            if exc.source is not None:
                raise
            line = _line_of(lines, exc.path)
            raise ScenarioError(exc.message, source=source, line=line, path=exc.path) from None
        object.__setattr__(scenario, "_document", (doc, base, source, lines))
        return scenario

    def with_cluster(self, cluster: Cluster | str | Path) -> Scenario:
        """This scenario on another cluster (``slurmlab simulate --cluster``).

        The document is checked again against ``cluster`` as when it was loaded, so a job,
        action, failure or reservation the other cluster cannot take is a
        :class:`ScenarioError` naming the file, the line and the entry (``actions[0]: field
        'node': 'node4' is not in the cluster ...``), not an error from the middle of the run.
        A scenario built in Python without a document is checked when it runs.
        """
        cluster = Cluster.coerce(cluster)
        if self._document is not None:
            doc, base, source, lines = self._document
            try:
                type(self)._build(doc, base, source, lines, cluster)
            except ScenarioError as exc:
                raise ScenarioError(
                    f"{exc.message} (checked against cluster {cluster.name!r}, which replaces "
                    "the scenario's)",
                    source=exc.source,
                    line=exc.line,
                    path=exc.path,
                ) from None
        return replace(self, cluster=cluster)

    @classmethod
    def _parse(
        cls, doc, base: Path, source: str, cluster: Cluster | None = None, lines: dict | None = None
    ) -> Scenario:
        if not isinstance(doc, dict):
            raise ScenarioError("expected a mapping with cluster, policy and jobs")
        doc = {k: v for k, v in doc.items() if not _extension(k)}  # (x-defaults: anchors)
        unknown = set(doc) - _TOP_KEYS
        if unknown:
            key = sorted(unknown, key=str)[0]
            raise ScenarioError(
                f"unknown section(s) {sorted(unknown, key=str)}; allowed: {sorted(_TOP_KEYS)}"
                + (
                    _misplaced_hint(unknown, lines or {})
                    or ", and sections of your own whose name starts with x- (slurmlab does "
                    "not read them: a place for YAML anchors, x-defaults: &d {runtime: 600}, "
                    "that jobs merge with <<: *d)"
                ),
                path=(key,),
            )
        _names_as_written(doc)
        replaced = cluster is not None  # the cluster replaces the document's (with_cluster)
        if cluster is None:
            cluster = _cluster(doc.get("cluster", "tiny"), base, source, lines or {})
            if "cluster" not in doc:
                warn_at_caller(
                    f"{source}: the scenario has no 'cluster' section, so it runs on the "
                    f"preset cluster 'tiny' ({_described(cluster)}), the default; write "
                    "cluster: tiny to keep it (and this warning away), or name the machine: "
                    f"a preset ({', '.join(presets())}), {{slurm_conf: PATH}} or inline "
                    "nodes and partitions",
                    DefaultClusterWarning,
                )
        policy, params = _policy(doc.get("policy", "easy"))
        jobs_doc = doc.get("jobs")
        if not isinstance(jobs_doc, list):  # (jobs: [] is a cluster for scenario.lab())
            raise ScenarioError(
                "'jobs' must be a list of job entries" + _list_hint(jobs_doc),
                path=("jobs",),
            )
        origin = _origin(doc.get("origin"))
        jobs = _jobs_said_where(jobs_doc, cluster, origin, source, lines or {})
        _unique_ids(jobs)
        _no_jobid_collisions(jobs)
        _check_dependencies(jobs, jobs_doc)
        name = _text(doc, "name", Path(source).stem)
        workload = Workload(jobs, name=name, origin=origin)
        actions = tuple(
            act
            for i, a in enumerate(_list(doc, "actions"))
            for act in _action(a, i, jobs, cluster, origin)
        )
        extra = {k: doc[k] for k in _LATER if doc.get(k)}
        failures = _failures(doc, cluster, origin)
        accounts = _accounts(doc)
        with _entry(("accounts",)):  # no cycles, no account named root
            tree = AccountTree(accounts, root_user=True)
        qos = _section(doc, "qos", _qos)
        _unique_names(qos, "qos", "QOS")
        _warn_bare_durations(doc, source, lines or {})
        reservations = _reservations(doc, origin)
        _unique_names(reservations, "reservations", "reservation")
        for i, r in enumerate(reservations):
            _check_reservation(r, i, cluster, tree)
        held = _place_reservations(reservations, cluster)
        _check_job_reservations(reservations, tree, jobs, jobs_doc, cluster, held)
        _check_preempt_mode(cluster, doc)
        random_failures = _random_failures(doc, cluster)
        _check_qos(qos, jobs, jobs_doc)
        if accounts:
            _check_associations(tree, jobs, jobs_doc)
        _check_partition_accounts(cluster, tree, jobs, jobs_doc)
        seed = 0
        if doc.get("seed") is not None:
            with _entry(("seed",)):
                seed = parse_whole(_as_written(doc["seed"]), what="seed")
        ctld_start = 0.0
        if doc.get("slurmctld_start") is not None:
            with _entry(("slurmctld_start",)):
                ctld_start = slurmctld_start_seconds(doc["slurmctld_start"])
        files = _cluster_files(doc.get("cluster"), base)
        kind = _cluster_kind(cluster, None if replaced else doc.get("cluster", "tiny"))
        _warn_inert_sections(doc, cluster, kind, qos, accounts, source, lines or {})
        _warn_minutes_seconds(doc, source, lines or {})
        if kind in ("slurm_conf", "inline") and policy != "slurm":
            said = [k for k in cluster.scheduler_parameters if k.startswith("bf_")]
            if said:  # (the textbook policies read no bf_*: a what-if on them changes nothing)
                warn_at_caller(
                    f"{_warning_at(source, lines or {}, ('policy',))}the scenario's policy "
                    f"{policy!r} reads none of the cluster's backfill SchedulerParameters "
                    f"({', '.join(said[:4])}{', ...' if len(said) > 4 else ''}): only policy "
                    "'slurm' (Slurm's sched/backfill) does; run it with policy: slurm (or "
                    "run('slurm'), --policy slurm) to study them"
                )
        return cls(
            name=name,
            cluster=cluster,
            workload=workload,
            policy=policy,
            policy_params=params,
            actions=actions,
            description=_text(doc, "description", ""),
            extra=extra,
            seed=seed,
            path=Path(source) if source != "scenario" else None,
            failures=failures,
            random_failures=random_failures,
            accounts=accounts,
            qos=qos,
            reservations=reservations,
            slurmctld_start=ctld_start,
            sources=tuple(path for _, path in files),
            _source_roles=tuple(role for role, _ in files),
        )

    def run(
        self,
        policy: str | None = None,
        *,
        seed: int | None = None,
        until=None,
        progress: bool = False,
        actions: Sequence[Action] | None = None,
        failures: Sequence[NodeFailure] | None = None,
        random_failures: RandomFailures | Sequence[RandomFailures] | None = None,
        **params,
    ):
        """Simulate this scenario with :func:`~slurmlab.simulate`.

        ``policy`` overrides the file's policy (its parameters then do not apply); ``params``
        add to or override the policy's parameters, or set simulate's other options
        (``enforce_time_limit``, ``requeue_delay``). ``until`` stops at that simulated time.

        A keyword for something the scenario also sets overrides the scenario's:

        - ``seed``: the random failures are drawn again from it (also when the file's
          ``random_failures`` section names a seed of its own), so ``run(seed=1)``,
          ``run(seed=2)``... are different histories of the same cluster;
        - ``actions``, ``failures``: these scripted admin actions and node failures
          replace the file's (``()``: none);
        - ``random_failures``: this failure model (or models) replaces the file's (to run without
          random failures: ``dataclasses.replace(scenario, random_failures=None).run()``);
        - ``slurmctld_start``: when slurmctld started replaces the file's (``run(
          slurmctld_start=0)`` puts Slurm's timers on the scenario's start).

        The cluster, the accounts, the QOS and the reservations are checked against the jobs
        when the scenario is loaded, so ``run`` does not take them: use
        :meth:`with_cluster` for another cluster, and edit the scenario file for the rest
        (a :class:`~slurmlab.SlurmlabError` says so).
        """
        from slurmlab.sim.simulate import inert_checked, simulate

        for key, why in _NOT_REPLACED.items():
            if key in params:
                raise SlurmlabError(f"Scenario.run({key}=...): run does not replace the {why}")
        name = policy or self.policy
        merged = {**(self.policy_params if name == self.policy else {}), **params}
        model = random_failures
        if model is None:
            model = self._failure_models(seed)
        if seed is None:
            seed = self.seed
        with inert_checked():  # (warned about at load, with the file and line)
            return simulate(
                self.cluster, self.workload, name, seed, progress=progress,
                actions=self.actions if actions is None else actions,
                failures=self.failures if failures is None else failures,
                random_failures=model, accounts=self.accounts, qos=self.qos,
                reservations=self.reservations, until=until,
                **{"slurmctld_start": self.slurmctld_start, **merged},
            )  # fmt: skip

    def _failure_models(self, seed: int | None):
        """The file's random failure models; with a ``seed`` given, drawn again from it (a
        model's own seed set aside), as run(seed=) and lab(seed=) promise."""
        model = self.random_failures
        if seed is None or model is None:
            return model
        if isinstance(model, RandomFailures):
            return replace(model, seed=None)
        return tuple(replace(m, seed=None) for m in model)

    def lab(self, *, jobs: bool = True, seed: int | None = None):
        """This scenario as a :class:`~slurmlab.Lab` you drive by hand: its cluster, policy
        (and parameters), accounts, QOS, reservations and origin, and with ``jobs=True`` its
        jobs, actions and failures, which play out as the lab advances (the jobs at 0 s are
        running already). ``jobs=False``: the cluster alone, its queue empty. ``seed``: the
        random failures are drawn again from it, as with :meth:`run`.

        >>> lab = Scenario.load("course/scenarios/backfill-basics.yaml").lab()  # doctest: +SKIP
        >>> lab.advance("100s").squeue_text()  # doctest: +SKIP
        """
        from slurmlab.sim.lab import Lab

        check_switch("Scenario.lab", "jobs", jobs)
        models = self._failure_models(seed)
        if seed is None:
            seed = self.seed
        return Lab(
            self.cluster, self.policy, seed=seed, accounts=self.accounts, qos=self.qos,
            reservations=self.reservations, origin=self.workload.origin,
            slurmctld_start=self.slurmctld_start,
            **(
                {"workload": self.workload, "actions": self.actions, "failures": self.failures,
                 "random_failures": models}
                if jobs
                else {}
            ),
            **self.policy_params,
        )  # fmt: skip


def _check_path(path) -> None:
    """``Scenario.load`` takes a path: a document (a dict, or YAML text, which has lines)
    goes to ``Scenario.from_dict``."""
    if isinstance(path, dict):
        raise ScenarioError(
            "Scenario.load takes a scenario file's path, not a dict: for a document already "
            "read, use Scenario.from_dict(doc)"
        )
    if isinstance(path, str) and "\n" in path:
        raise ScenarioError(
            f"Scenario.load takes a scenario file's path, but {path[:40]!r}... has lines: it "
            "looks like a scenario's text; use Scenario.from_dict(yaml.safe_load(text)), or "
            "write it to a .yaml file and give its path"
        )
    if not isinstance(path, str | PathLike):
        raise ScenarioError(
            f"Scenario.load({path!r}): give a scenario file's path (a str or a Path), e.g. "
            "Scenario.load('course/scenarios/backfill-basics.yaml'); for a document already "
            "in Python, use Scenario.from_dict(doc)"
        )


#: What Scenario.run does not replace, and why: each was checked against the jobs at load.
_NOT_REPLACED = {
    "cluster": "cluster: use scenario.with_cluster(...).run(), which checks the jobs against it",
    "workload": "workload: load another scenario, or call slurmlab.simulate() with that workload",
    **{
        key: f"{key}: the scenario's {key} are checked against its jobs when it is loaded; "
        f"edit its {key!r} section"
        for key in ("accounts", "qos", "reservations")
    },
}


# -- where an error is --------------------------------------------------------------------------
#: The most entries aliases may expand a document to (when that is over ten times the entries
#: written): the document is walked entry by entry, by path, to find the line of each.
_EXPANDED_MAX = 2_000_000  # (a long list of whole-entry aliases stays well under it)


def _check_aliases(root, text: str, source: str) -> None:
    """Refuse an anchor used inside itself (``jobs: &j [..., *j]``: YAML builds a document that
    contains itself, which no walk of its entries ends), and aliases nested so deep that the
    document they build is far larger than the one written (a "billion laughs": nine levels
    of nine aliases are 9**9 entries). Each node is visited once, so this is quick."""
    if root is None:
        return
    size: dict[int, int] = {}  # id(node) -> the entries it expands to, itself included
    path: set[int] = set()  # the nodes being expanded: a child among them is a cycle
    stack: list = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            path.discard(id(node))
            size[id(node)] = 1 + sum(size[id(child)] for child in _children(node))
            continue
        if id(node) in size:
            continue
        if id(node) in path:
            raise ScenarioError(
                _recursion(node, text), source=source, line=node.start_mark.line + 1
            )
        path.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))
    total = size[id(root)]
    if total > max(_EXPANDED_MAX, 10 * len(size)):
        key, value = (None, root)
        if isinstance(root, yaml.MappingNode) and root.value:
            key, value = max(root.value, key=lambda kv: size[id(kv[1])])
        where = "the document" if key is None else f"field {_key(key)!r}"
        raise ScenarioError(
            f"the aliases in {where} expand it to {size[id(value)]:,} entries, from {len(size):,} "
            'written: aliases nested in aliases multiply (a "billion laughs"); a scenario '
            "needs no such nesting: write the entries out, or alias entries that hold no "
            "aliases themselves",
            source=source,
            line=(value if key is None else key).start_mark.line + 1,
        )


def _children(node) -> list:
    """The nodes a composed YAML node holds: a mapping's keys and values, a list's items."""
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _recursion(node, text: str) -> str:
    """What an anchor used inside itself is, naming the anchor and the alias when the text
    shows them (``&j`` where the node starts, ``*j`` before it ends)."""
    lines = re.split(r"\r\n|[\r\n\x85\u2028\u2029]", text)  # (YAML's line breaks)
    start, end = node.start_mark, node.end_mark
    here = lines[start.line][start.column :] if start.line < len(lines) else ""
    anchor = re.match(r"&([^\s,\[\]{}]+)", here)
    fix = (
        "the entry would contain itself without end: copy the entries it needs, or anchor a "
        "smaller part and use its alias after that part ends"
    )
    if anchor is None:
        return f"an anchor is used inside itself (an alias in its own entry): {fix}"
    name = anchor.group(1)
    alias = re.compile(rf"\*{re.escape(name)}(?![^\s,\[\]{{}}])")
    used = next(
        (
            no + 1
            for no in range(start.line, min(end.line + 1, len(lines)))
            if alias.search(lines[no])
        ),
        None,
    )
    at = f" (*{name} on line {used})" if used is not None else ""
    return f"the anchor &{name} is used inside itself{at}: {fix}"


def _yaml_lines(root) -> dict[tuple, int]:
    """The line (1-based) of every entry and field of a composed YAML document, by its path:
    ``("jobs", 2, "args")`` -> the line of that job's ``args`` key. An alias's entries are
    walked again under each path that uses it (:func:`_check_aliases` bounds how many)."""
    lines: dict[tuple, int] = {}
    stack = [((), root)] if root is not None else []
    while stack:
        path, node = stack.pop()
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = (*path, _key(key))
                # a field is where its key is; the last of a key wins, as in the document
                # (``<<: *job`` puts the merged keys first, the entry's own after them)
                lines[sub] = key.start_mark.line + 1
                stack.append((sub, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(((*path, i), item) for i, item in enumerate(node.value))
    return lines


#: What YAML's parser says when a key is indented unlike the keys beside it, or when a
#: value holds an unquoted ': ' (``args: -d afterok: 3``).
_LAYOUT_PROBLEMS = (
    "mapping values are not allowed",
    "did not find expected '-' indicator",
    "did not find expected key",
    "expected <block end>",
)


def _layout_hint(text: str, problem: str, mark) -> str:
    """For a parser error that is usually a mis-indented key or an unquoted ':' in a value,
    the offending line, quoted, and what to look for."""
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines) or not problem.startswith(_LAYOUT_PROBLEMS):
        return ""
    here = lines[mark.line]
    above = next(
        (
            (no, line)
            for no, line in reversed(list(enumerate(lines[: mark.line])))
            if line.strip() and not line.lstrip().startswith("#")
        ),
        None,
    )
    indent = len(here) - len(here.lstrip(" "))
    same = "the keys of one entry (e.g. one job's submit, runtime and args) must line up"
    colon = "a value with ': ' in it must be quoted (args: \"-d afterok:3 -t 1:00:00\")"
    if above is not None:
        above_indent = len(above[1]) - len(above[1].lstrip(" -"))
        if above_indent != indent:
            return (
                f", in {here.rstrip()!r}: this is usually indentation: this key starts in "
                f"column {indent + 1}, the key above it (line {above[0] + 1}) in column "
                f"{above_indent + 1}, and {same}; else {colon}"
            )
    return f", in {here.rstrip()!r}: {colon}; else it is indentation: {same}"


def _tab_problem(text: str, mark) -> str | None:
    """For a parser error at a tab character (YAML's own words do not always say "tab":
    "found character that cannot start any token"), what the tab does wrong and the fix."""
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines):
        return None
    here = lines[mark.line]
    if here[mark.column : mark.column + 1] != "\t":
        return None
    fix = "YAML indents with spaces only; replace the tab with spaces"
    if not here[: mark.column].strip(" \t"):
        return f"a tab character indents this line ({here.rstrip()!r}): {fix}"
    return f"a tab character (column {mark.column + 1}) in {here.rstrip()!r}: {fix}"


def _key(node) -> object:
    """A mapping key as the document reads it (``3:`` is the number 3)."""
    if isinstance(node, yaml.ScalarNode):
        if node.tag.endswith(":int"):
            try:
                return int(node.value)
            except ValueError:  # 0x1f, 1_000, sexagesimal: keys nobody writes here
                return node.value
        return node.value
    return None


def _line_of(lines: dict[tuple, int], path: tuple) -> int | None:
    """The line of ``path``, else of its nearest enclosing entry."""
    for n in range(len(path), -1, -1):
        if path[:n] in lines:
            return lines[path[:n]]
    return None


@contextmanager
def _entry(path: tuple, label: str | None = None):
    """Errors raised inside name the entry at ``path`` (and ``label`` before their text)."""
    try:
        yield
    except ScenarioError as exc:
        if exc.path or exc.source is not None:
            raise
        raise ScenarioError(exc.message, path=path) from None
    except SlurmlabError as exc:
        # a sub-field the message names (failures[0].down_for, checkpoint.restart_cost):
        # its own line (the entry's when it is not found)
        sub = _SUBFIELD.search(str(exc))
        if sub and path:  # (checkpoint.x in entry ...'checkpoint'; failures[0].x in failures[0])
            owner = sub.group(1)
            if owner == str(path[-1]) or (isinstance(path[-1], int) and owner.endswith("]")):
                path = (*path, sub.group(2))
        raise ScenarioError(f"{label}: {exc}" if label else str(exc), path=path) from None


#: ``failures[0].down_for``, ``checkpoint.restart_cost``: an entry's field in a message
_SUBFIELD = re.compile(r"\b(\w+(?:\[\d+\])?)\.(\w+)\b")


def _list(doc: dict, key: str) -> list:
    """The entries of section ``key`` (none if it is left out or empty: ``actions:``)."""
    entries = doc.get(key)
    if entries is None:
        return []
    if not isinstance(entries, list):
        none = f" (for none, leave {key!r} out or write {key}: [])" if not entries else ""
        raise ScenarioError(
            f"{key!r} must be a list of entries, not {entries!r}{none}", path=(key,)
        )
    return entries


def _allowed(entry: dict, allowed: set, label: str, path: tuple) -> None:
    unknown = set(entry) - allowed
    if unknown:
        key = sorted(unknown, key=str)[0]
        raise ScenarioError(
            f"{label}: {unknown_fields(unknown, allowed)}",
            path=(*path, key),
        )


#: Fields that hold names (of jobs, users, accounts, QOS, nodes, partitions, reservations).
_NAME_KEYS = {
    "id", "name", "user", "users", "account", "accounts", "job", "qos", "parent", "partition",
    "reservation", "node", "preempt",
}  # fmt: skip


def _a_name(value, label: str, path: tuple, key: str) -> None:
    """Refuse a value YAML 1.1 read as something else than the name written: ``010`` (the
    number 8), ``0x1F``, ``no`` / ``on`` (booleans: the error quotes what was written)."""
    if isinstance(value, _Int):
        raise ScenarioError(
            f"{label}: YAML reads {value.text} as the number {int(value)}, not the name "
            f"{value.text!r}; quote it: {key}: '{value.text}'",
            path=path,
        )
    if isinstance(value, _Bool):
        raise ScenarioError(
            f"{label}: YAML reads the unquoted {value.text} as the boolean {value.value}, not "
            f"the name {value.text!r} (YAML 1.1: yes/no, on/off, true/false); quote it: "
            f"{key}: '{value.text}'",
            path=path,
        )
    if isinstance(value, bool):  # (a document built in Python: what was written is lost)
        raise ScenarioError(
            f"{label}: {value} is a boolean, not a name (YAML 1.1 reads an unquoted yes/no, "
            "on/off or true/false as one); give the name as a text, quoted in YAML "
            f"({key}: 'on')",
            path=path,
        )


def _mark_written(doc, root) -> None:
    """Put a :class:`_Bool` (the boolean and its text as written) in place of each boolean
    YAML read in a name field (``account: on``), so that the error quotes ``on``; and the
    text written in place of each number with an exponent in a field of names or text
    (``user: 1e3``, ``args: 2e1``), which YAML 1.1 reads as that text (:data:`_EXPONENT`)."""
    if doc is None or root is None:
        return
    stack = [(doc, root)]
    while stack:
        value, node = stack.pop()
        if isinstance(node, yaml.MappingNode) and isinstance(value, dict):
            for key_node, item in node.value:
                key = _key(key_node)
                if key not in value:
                    continue
                if key in _NAME_KEYS or key in _TEXT_KEYS:
                    named = value[key]
                    if _is_bool(item, named) and key in _NAME_KEYS:
                        value[key] = _Bool(item.value, named)
                    elif _is_exponent(item, named):
                        value[key] = item.value
                    elif isinstance(item, yaml.SequenceNode) and isinstance(named, list):
                        for i, (sub, one) in enumerate(zip(item.value, named)):
                            if _is_bool(sub, one) and key in _NAME_KEYS:
                                named[i] = _Bool(sub.value, one)
                            elif _is_exponent(sub, one):
                                named[i] = sub.value
                elif key == "settings" and isinstance(item, yaml.MappingNode):
                    lines = value[key]  # (slurm.conf's lines: their values are text)
                    for sub_key, sub in item.value:
                        name = _key(sub_key)
                        if isinstance(lines, dict) and _is_exponent(sub, lines.get(name)):
                            lines[name] = sub.value
                stack.append((value[key], item))
        elif isinstance(node, yaml.SequenceNode) and isinstance(value, list):
            stack.extend(zip(value, node.value))


#: Fields read as text other than names: sbatch options, a script, a description, a list of
#: nodes, slurm.conf's time limits (MaxTime, DefaultTime).
_TEXT_KEYS = {"args", "script", "description", "nodes", "max_time", "default_time"}


def _is_exponent(node, value) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _EXPONENT and isinstance(value, float)


def _is_bool(node, value) -> bool:
    return (
        isinstance(node, yaml.ScalarNode) and node.tag.endswith(":bool") and isinstance(value, bool)
    )


def _names_as_written(doc: dict) -> None:
    """:func:`_a_name` for every name field of the document but its jobs (``_job`` checks
    theirs, naming the job), lists of names included."""

    seen: set[int] = set()  # (an alias: one object in several places, checked once)

    def walk(value, path):
        if isinstance(value, dict | list):
            if id(value) in seen:
                return
            seen.add(id(value))
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _NAME_KEYS:
                    for i, name in enumerate(item) if isinstance(item, list) else [(None, item)]:
                        where = (*path, key) if i is None else (*path, key, i)
                        label = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)
                        _a_name(name, f"field {label[1:]}", where, key)
                walk(item, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk({k: v for k, v in doc.items() if k != "jobs"}, ())


def _extension(key) -> bool:
    """Whether a top-level key is a section of the author's own, which slurmlab does not read:
    a name starting with ``x-``, as docker-compose's extension fields (a place for YAML
    anchors the entries merge: ``x-defaults: &d {...}``, then ``<<: *d`` in a job)."""
    return isinstance(key, str) and key.startswith("x-")


#: The section a key found at the top level most likely belongs in, mis-indented.
_FIELD_OF = {
    **{key: "cluster" for key in _CLUSTER_KEYS.union(*_CLUSTER_FROM.values())},
    **{key: "jobs" for key in _JOB_KEYS},
}


def _misplaced_hint(unknown: set, lines: dict) -> str:
    """For a top-level key that is a field of a job (or of the cluster): it is mis-indented,
    and belongs with the job above it."""
    key = next((k for k in sorted(unknown, key=str) if k in _FIELD_OF), None)
    if key is None:
        return ""
    if _FIELD_OF[key] == "cluster":
        return (
            f"; {key!r} is a field of `cluster`, not a section: it looks mis-indented; indent "
            "it under cluster:"
        )
    line = lines.get((key,), 0)
    above = [(n, p[1]) for p, n in lines.items() if len(p) == 2 and p[0] == "jobs" and n < line]
    near = "the job above it (jobs[{1}], line {0})".format(*max(above)) if above else "its job"
    return (
        f"; {key!r} is a field of a `jobs` entry, not a section: it looks mis-indented; indent "
        f"it to line up with the other fields of {near}"
    )


def _list_hint(value) -> str:
    """How the job list is written, for ``jobs`` given as something else (a mapping, say)."""
    if isinstance(value, dict) and value:
        first, *rest = list(value)
        under = ", ".join(f"'    {k}: ...'" for k in rest[:3])
        return (
            f", not a mapping ({', '.join(map(str, value))}): start each job with '- ' and "
            f"line its other fields up under the first: '  - {first}: ...'"
            + (f" then {under}" if under else "")
            + ", or one job per line: '  - {submit: 0, runtime: 1h, args: \"-N 1\"}'"
        )
    if value is None:
        return (
            "; add one: '  - {submit: 0, runtime: 1h, args: \"-N 1 -t 2:00:00\"}' (or write "
            "jobs: [] for a scenario of a cluster alone, for scenario.lab())"
        )
    return f", not {value!r}"


# -- sections ---------------------------------------------------------------------------------
def _text(doc: dict, key: str, default: str) -> str:
    """The scenario's ``name`` or ``description``: text, or a number as written (``name:
    2026``); left out or empty, ``default``. A list, a mapping or a flag is refused."""
    value = _as_written(doc.get(key))  # (a name YAML read otherwise is refused already)
    if value is None:
        return default
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    fix = (
        "give the scenario a name (e.g. name: backfill-basics)"
        if key == "name"
        else "give text (e.g. description: Two jobs share one node), or 'description: |' "
        "and the text on the lines below it"
    )
    raise ScenarioError(
        f"field {key!r} is {value!r}; {fix}; quote text that holds ': ', '[' or '{{'",
        path=(key,),
    )


def _origin(value) -> pd.Timestamp:
    """``origin``: the calendar time the simulation starts at (the job table's times)."""
    if value is None:
        return DEFAULT_ORIGIN
    text = value.isoformat() if isinstance(value, date) else value  # (unquoted: a date)
    if isinstance(text, str) and re.fullmatch(r"\d{4}-\d\d-\d\d([T ][\d:.]+)?", text.strip()):
        try:
            origin = pd.Timestamp(text)
        except ValueError:
            origin = None
        if origin is not None and 1970 <= origin.year <= 2200:  # (a job table's times fit)
            return origin
    raise ScenarioError(
        f"origin {str(value)!r} is not a date and time from 1970 to 2200; give the calendar "
        "time the simulation starts at, without a time zone (e.g. origin: 2026-01-05T08:00:00)",
        path=("origin",),
    )


def _cluster(value, base: Path, source: str = "scenario", lines: dict | None = None) -> Cluster:
    path = ("cluster",)
    if isinstance(value, str):
        if value in presets():
            return Cluster.preset(value)
        raise ScenarioError(
            f"cluster {value!r} is not a preset ({', '.join(presets())}); "
            "use {slurm_conf: PATH} for a slurm.conf",
            path=path,
        )
    if not isinstance(value, dict):
        raise ScenarioError(f"cluster must be a preset name or a mapping, not {value!r}", path=path)
    _allowed(value, _CLUSTER_KEYS.union(*_CLUSTER_FROM.values()), "cluster", path)
    whole = next((key for key in _CLUSTER_FROM if key in value), None)
    extra = sorted(set(value) - _CLUSTER_FROM.get(whole, _CLUSTER_KEYS), key=str)
    if extra:
        conf = " (only gres_conf goes with it; settings go in the slurm.conf)"
        fix = (
            f"do not apply with {whole}, which gives the whole cluster"
            f"{conf if whole == 'slurm_conf' else ''}: drop them, or drop {whole} and "
            f"describe the cluster inline ({', '.join(sorted(_CLUSTER_KEYS))})"
            if whole
            else "apply only with slurm_conf: give an inline node its GRES with gres (e.g. "
            "gres: gpu:4)"
        )
        raise ScenarioError(f"cluster: field(s) {extra} {fix}", path=(*path, extra[0]))
    if "preset" in value:
        with _entry((*path, "preset"), "cluster"):
            return Cluster.preset(value["preset"])
    if "slurm_conf" in value:
        conf, gres = _conf_paths(value, base)
        for key, file in (("slurm_conf", conf), ("gres_conf", gres)):
            if file is not None and not file.exists():
                raise ScenarioError(
                    f"cluster.{key} {str(file)!r} does not exist (paths are relative to the "
                    "scenario file)",
                    path=(*path, key),
                )
        with _entry((*path, "slurm_conf"), "cluster"):
            return Cluster.from_slurm_conf(conf, gres)
    with _entry(path, "cluster"):
        return _inline_cluster(value, source, lines or {})


def _conf_paths(value: dict, base: Path) -> tuple[Path, Path | None]:
    """The slurm.conf and gres.conf (or None) of ``cluster: {slurm_conf: ..., gres_conf:
    ...}``: relative to the scenario file's folder ``base``."""
    conf = base / str(value["slurm_conf"])
    gres = base / str(value["gres_conf"]) if value.get("gres_conf") else None
    return conf, gres


def _cluster_files(value, base: Path) -> tuple[tuple[str, Path], ...]:
    """``Scenario.sources`` with what each is: the files a valid cluster entry read, resolved
    (none for a preset or an inline cluster)."""
    if not isinstance(value, dict) or "slurm_conf" not in value:
        return ()
    conf, gres = _conf_paths(value, base)
    files = [("the scenario's cluster.slurm_conf", conf.resolve())]
    files += [
        ("a file the scenario's cluster.slurm_conf includes", path) for path in included_files(conf)
    ]
    if gres is not None:
        files.append(("the scenario's cluster.gres_conf", gres.resolve()))
    return tuple(files)


def _inline_cluster(value: dict, source: str = "scenario", lines: dict | None = None) -> Cluster:
    """An inline cluster; ``lines`` (path -> line of ``source``) puts the file and line of
    each setting in the warnings about it."""
    settings = value.get("settings") or {}
    if not isinstance(settings, dict):
        raise ScenarioError(
            f"cluster.settings must be a mapping of slurm.conf keys, not {settings!r}",
            path=("cluster", "settings"),
        )
    settings = _settings(settings, source, lines or {})
    nodes = []
    nodes_doc = value.get("nodes")
    if not isinstance(nodes_doc, list) or not nodes_doc:
        raise ScenarioError(
            "cluster needs 'nodes', a list of {name, cpus, memory, gres, features, "
            "threads_per_core} (or use a "
            "preset / slurm_conf)",
            path=("cluster", "nodes"),
        )
    for i, n in enumerate(nodes_doc):
        where = f"cluster.nodes[{i}]"
        path = ("cluster", "nodes", i)
        if not isinstance(n, dict) or "name" not in n:
            raise ScenarioError(
                f"{where}: each node needs a name (a hostlist like gpu[01-04])", path=path
            )
        _allowed(n, _NODE_KEYS, where, path)
        n = _written(n)
        with _entry((*path, "name")):
            names = parse_names(str(n["name"]), what=f"{where}.name", hostlist_ok=True)
        with _entry((*path, "cpus")):
            cpus = parse_whole(n.get("cpus", 1), what=f"{where}.cpus", minimum=1, maximum=MAX_COUNT)
        with _entry((*path, "memory")):
            memory = parse_memory_mb(n.get("memory", 1), what=f"{where}.memory")
        with _entry((*path, "gres")):
            gres = parse_gres(str(n.get("gres", "")), what=f"{where}.gres")
        _check_gres_names(gres, settings, where, (*path, "gres"))
        with _entry((*path, "features")):
            features = frozenset(parse_names(n.get("features"), what=f"{where}.features"))
        with _entry((*path, "threads_per_core")):
            threads = parse_whole(
                n.get("threads_per_core", 1), what=f"{where}.threads_per_core", minimum=1,
                maximum=cpus,
            )  # fmt: skip
        for name in names:
            label = f"{where}.threads_per_core" if cpus % threads else None
            with _entry((*path, "threads_per_core") if label else path, label):
                nodes.append(Node(name, cpus, memory, gres, features, threads_per_core=threads))
    known = {n.name for n in nodes}
    parts = []
    parts_doc = value.get("partitions") or [{"name": "main", "nodes": "ALL", "default": True}]
    if not isinstance(parts_doc, list):
        raise ScenarioError(
            f"cluster.partitions must be a list of partitions, not {parts_doc!r}",
            path=("cluster", "partitions"),
        )
    for i, p in enumerate(parts_doc):
        where = f"cluster.partitions[{i}]"
        path = ("cluster", "partitions", i)
        if not isinstance(p, dict):
            raise ScenarioError(
                f"{where}: each partition must be a mapping ({{name, nodes, ...}}), not {p!r}",
                path=path,
            )
        _allowed(p, _PARTITION_KEYS, where, path)
        p = _written(p)
        spec = p.get("nodes", "ALL")
        with _entry((*path, "nodes")):
            names = (
                [n.name for n in nodes]
                if spec == "ALL"
                else parse_names(spec, what=f"{where}.nodes", hostlist_ok=True)
            )
        missing = [n for n in names if n not in known]
        if missing:
            raise ScenarioError(
                f"{where}: nodes {missing} are not declared in cluster.nodes",
                path=(*path, "nodes"),
            )
        kw = {}
        for key, default, parse in (
            ("default", False, lambda v, w: parse_flag(v, what=w)),
            ("max_time", "UNLIMITED", _time_limit),
            ("default_time", None, _time_limit),
            ("max_nodes", None, _max_nodes),
            ("priority_tier", 1, lambda v, w: parse_whole(v, what=w, maximum=MAX_COUNT)),
            ("priority_job_factor", 1, _priority_job_factor),
            ("state", "UP", _partition_state),
        ):
            given = p.get(key)
            given = default if given is None else given
            with _entry((*path, key)):
                kw[key] = None if given is None else parse(given, f"{where}.{key}")
        with _entry(path):
            parts.append(Partition(name=str(p.get("name", f"p{i}")), nodes=tuple(names), **kw))
    if parts and not any(p.default for p in parts):  # inline: the first is the default
        parts[0] = replace(parts[0], default=True)
    mixed = mixed_gpu_note(nodes)
    if mixed:
        warn_at_caller(f"{_warning_at(source, lines or {}, ('cluster', 'nodes'))}nodes {mixed}")
    with _entry(("cluster",)):
        return Cluster(str(value.get("name", "inline")), tuple(nodes), tuple(parts), settings)


def _check_gres_names(gres, settings: ConfSettings, where: str, path: tuple) -> None:
    """An inline node's GRES names are ones the cluster declares (GresTypes), or without
    GresTypes no near miss of ``gpu`` (``gpus:a100:4`` would give the node no GPU)."""
    types = gres_types(settings)
    for g in gres:
        problem = gres_name_problem(g.name, types)
        if problem is None:
            continue
        close = gres_name_suggestion(g.name, types)
        fix = "add it to cluster.settings.GresTypes"
        if close:
            fixed = ",".join(str(replace(x, name=close) if x == g else x) for x in gres)
            fix = f"did you mean {close!r}? write gres: {fixed}"
            if types is None:
                fix += (
                    f" (a GRES really named {g.name!r} needs settings: {{GresTypes: gpu,{g.name}}})"
                )
        raise ScenarioError(
            f"{where}: field 'gres': {','.join(map(str, gres))!r}: {problem}; {fix}", path=path
        )


def _settings(doc: dict, source: str, lines: dict) -> ConfSettings:
    """``cluster.settings``, each checked as slurm.conf's are (an error names its own line and
    ``cluster.settings.<key>``), each remembering its line for the warnings about it."""
    settings = ConfSettings()
    for key, value in doc.items():
        path = ("cluster", "settings", key)
        key, value = str(key), str(_as_written(value))  # (as written: 1:00:00, not 3600)
        problem = setting_problem(key, value)
        if problem:
            raise ScenarioError(f"cluster.settings.{key}: {problem}", path=path)
        settings[key] = value
        if path in lines:
            settings.where[key] = f"{source} line {lines[path]}: cluster.settings.{key}"
    conflict = preempt_conflict(settings)
    if conflict:  # (named at PreemptType, else at PreemptMode)
        keys = {k.lower(): k for k in settings}
        key = keys.get("preempttype") or keys["preemptmode"]
        raise ScenarioError(
            f"cluster.settings.{key}: {conflict}", path=("cluster", "settings", key)
        )
    return settings


def _as_written(value):
    """An int YAML read from ``1:00:00`` (sexagesimal: 3600) as the text it was written as,
    for a field that reads Slurm's time forms (else ``max_time: 1:00:00`` is 3600 minutes)."""
    return value.text if isinstance(value, _Int) else value


#: The fields read as times (offsets, durations and time limits) and as numbers (counts,
#: sizes, a seed), each section's, wherever in the document.
_TIME_KEYS = {
    "submit", "runtime", "at", "down_for", "start", "duration", "interval", "write_cost",
    "restart_cost", "mtbf", "repair", "grace_time", "preempt_exempt_time", "max_wall",
    "max_time", "default_time",
}  # fmt: skip
_NUMBER_KEYS = {
    "cpus", "memory", "shares", "max_jobs", "priority", "max_jobs_per_user", "node_count",
    "priority_tier", "priority_job_factor", "max_nodes", "shape", "seed",
}  # fmt: skip


def _written(entry):
    """An entry (a mapping) with its time and number fields as the text written
    (:func:`_as_written`), for their parsers to read as Slurm reads numbers: in decimal
    digits. YAML 1.1 reads ``010`` as octal 8, ``0x10`` as 16 and ``1_000`` as 1000; Slurm's
    ``strtol(..., 10)`` reads ``010`` as 10 and takes neither of the others, so ``submit:
    010`` is 10 s (what a Slurm user means by it) and ``submit: 0x10`` an error saying why."""
    if not isinstance(entry, dict):
        return entry
    keys = _TIME_KEYS | _NUMBER_KEYS
    return {key: _as_written(v) if key in keys else v for key, v in entry.items()}


def _decimal(value):
    """A field read as a Python int (``exit_code``, a policy's parameters) from the text
    written: ``010`` is 10, as Slurm reads it; ``0x10``, ``1_000``, ``1:30`` stay text,
    which the field refuses as not a whole number."""
    text = _as_written(value)
    return int(text) if isinstance(value, _Int) and re.fullmatch(r"[0-9]+", text) else text


def _time_limit(value, what: str):
    """A partition's ``max_time`` / ``default_time``: a Slurm time limit, as slurm.conf's
    MaxTime reads it (a bare number is minutes); ``2h`` is refused with the same time in a
    form it takes."""
    text = str(_as_written(value)).strip()
    if re.fullmatch(r"\d+(\.\d+)?\s*[smhd]", text, flags=re.IGNORECASE):
        seconds = parse_seconds(text, what=what)
        minutes = f"{seconds / 60:g}" if seconds % 60 == 0 else None
        raise SlurmlabError(
            f"invalid {what} {text!r}: a time limit takes Slurm's forms, as slurm.conf's "
            "MaxTime/DefaultTime and sbatch -t do: minutes as a bare number, M:S, H:M:S, D-H, "
            "D-H:M, D-H:M:S or UNLIMITED, and no unit suffix (unlike submit and runtime, "
            f"which are seconds or 2h); write "
            f"{format_duration(timedelta(seconds=seconds))}"
            + (f" (or {minutes}, minutes)" if minutes else "")
        )
    return parse_duration(text, what=what)


def _priority_job_factor(value, what: str) -> int:
    """A partition's PriorityJobFactor: a whole number from 0 to 65533 (slurm.conf(5))."""
    factor = parse_whole(value, what=what)
    if factor > PRIORITY_JOB_FACTOR_MAX:
        raise SlurmlabError(
            f"invalid {what} {value!r}: must be at most {PRIORITY_JOB_FACTOR_MAX} (slurm.conf(5) "
            "PriorityJobFactor: a whole number from 0 to 65533)"
        )
    return factor


def _partition_state(value, what: str) -> str:
    state = str(value).upper()
    if state not in ("UP", "DOWN", "DRAIN", "INACTIVE"):
        raise SlurmlabError(f"invalid {what} {value!r}: give UP, DOWN, DRAIN or INACTIVE")
    return state


def _max_nodes(value, what: str) -> int | None:
    if str(value).upper() in ("UNLIMITED", "INFINITE"):
        return None
    return parse_whole(value, what=what, minimum=1, maximum=MAX_COUNT)


def _policy(value) -> tuple[str, dict]:
    """The policy's name and parameters, checked now (not when it first runs)."""
    if isinstance(value, str):
        with _entry(("policy",)):
            make_policy(value)
        return value, {}
    if not (isinstance(value, dict) and "name" in value):
        raise ScenarioError(
            f"policy must be a name or {{name: ..., <params>}}, not {value!r}", path=("policy",)
        )
    params = value.get("params") or {}
    if not isinstance(params, dict):
        raise ScenarioError(
            f"policy.params must be a mapping, not {params!r}", path=("policy", "params")
        )
    beside = {k: v for k, v in value.items() if k not in ("name", "params")}
    twice = sorted(beside.keys() & params.keys(), key=str)
    if twice:
        key = twice[0]
        raise ScenarioError(
            f"policy: parameter {key!r} is given twice, as policy.{key} ({beside[key]!r}) and "
            f"as policy.params.{key} ({params[key]!r}); give it once",
            path=("policy", key),
        )
    params = {key: _decimal(v) for key, v in {**params, **beside}.items()}  # 010 is 10
    name = str(value["name"])
    with _entry(("policy", "name")):
        make_policy(name)
    for key, v in params.items():  # one by one, so an error points at its own line
        with _entry(("policy", key) if key in value else ("policy", "params", key)):
            make_policy(name, **{key: v})
    return name, params


def _offset(value, origin: pd.Timestamp, key: str = "submit") -> float:
    """A ``submit`` (or an action's ``at``): an offset from the scenario's start; a date and
    time is refused with the offset it would be from ``origin`` (:func:`_not_a_date`)."""
    try:
        return parse_seconds(value, what=key)
    except SlurmlabError:
        _not_a_date(value, origin, key)
        raise


def _not_a_date(value, origin: pd.Timestamp, key: str) -> None:
    """Refuse a date and time (``2026-01-05T10:00``, which YAML reads as a datetime) in an
    offset field (``submit``, ``at``, a reservation's ``start``), with the offset it would
    be from ``origin``, or for ``submit`` the ``origin`` that would make it 0."""
    text = value.isoformat() if isinstance(value, date) else str(value).strip()
    if not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return
    try:
        when = pd.Timestamp(text)
    except ValueError:
        raise SlurmlabError(
            f"invalid {key} {text!r}: {key} counts from the scenario's start, not a date"
        ) from None
    if when.tzinfo is not None:  # (origin is naive, as sacct's local times are)
        when = when.tz_convert(None)
    offset = (when - origin).total_seconds()
    if key == "submit":
        fix = (
            f"write submit: {format_duration(timedelta(seconds=offset))}, or "
            if offset >= 0
            else "it is before that start: "
        ) + f"set origin: {when.isoformat()} and submit: 0"
    elif offset >= 0:
        fix = f"write {key}: {format_duration(timedelta(seconds=offset))}"
    else:
        fix = f"it is before that start: give a later {key}, or set an earlier origin"
    raise SlurmlabError(
        f"{text!r} is a date and time, but {key} counts from the scenario's start: give "
        "seconds (e.g. 3600), [D-]HH:MM:SS (e.g. 1:00:00) or 2h. The start is the scenario's "
        f"origin ({origin.isoformat()}): {fix}"
    )


def _jobs_said_where(
    docs: list, cluster: Cluster, origin: pd.Timestamp, source: str, lines: dict
) -> tuple[WorkloadJob, ...]:
    """The jobs (:func:`_job`), their warnings (sbatch's about a job's options or script: an
    #SBATCH line after the first command, an option not simulated) naming the file, line and
    entry of the first job each is about, and how many others it is about too."""
    jobs, said = [], {}
    for i, entry in enumerate(docs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            jobs.append(_job(entry, i, cluster, origin))
        for w in caught:
            said.setdefault((str(w.message), w.category), []).append(i)
    for (message, category), which in said.items():
        i, entry = which[0], docs[which[0]]
        field_name = "script" if "script" in entry else "args"
        label = f"jobs[{i}]" + (f" (id {entry.get('id')!r})" if entry.get("id") else "")
        more = len(which) - 1
        also = f" (and {more} other job{'s' * (more != 1)})" if more else ""
        where = _warning_at(source, lines, ("jobs", i, field_name))
        warn_at_caller(f"{where}{label}{also}: field {field_name!r}: {message}", category)
    return tuple(jobs)


def _job(entry, i: int, cluster: Cluster, origin: pd.Timestamp = DEFAULT_ORIGIN) -> WorkloadJob:
    path = ("jobs", i)
    label = f"jobs[{i}]" + (
        f" (id {entry.get('id')!r})" if isinstance(entry, dict) and entry.get("id") else ""
    )
    if not isinstance(entry, dict):
        raise ScenarioError(
            f"{label}: each job must be a mapping with submit, runtime and args, not {entry!r}",
            path=path,
        )
    _allowed(entry, _JOB_KEYS, label, path)
    entry = _written(entry)  # (submit: 010 is 10 s, as Slurm reads numbers)
    if "runtime" not in entry:
        raise ScenarioError(
            f"{label}: field 'runtime' is missing (the job's true run time)", path=path
        )
    for key in ("id", "user", "account", "name"):
        _a_name(entry.get(key), f"{label}: field {key!r}", (*path, key), key)
        if key in entry and (
            not isinstance(entry[key], str | int) or str(entry[key]).strip() == ""
        ):
            raise ScenarioError(
                f"{label}: field {key!r} is {entry[key]!r}; give a name", path=(*path, key)
            )
    if entry.get("id") is not None:
        _check_id(str(entry["id"]), label, (*path, "id"))
    for key in ("user", "account"):
        if entry.get(key) is not None:
            _check_word(str(entry[key]), key, f"{label}: field {key!r}", (*path, key))
    with _entry((*path, "submit"), f"{label}: field 'submit'"):
        submit = _offset(entry.get("submit", 0), origin)
    with _entry((*path, "runtime"), f"{label}: field 'runtime'"):
        runtime = parse_seconds(entry["runtime"], what="runtime")
    args = entry.get("args")
    if args is not None and not (
        isinstance(args, str) or isinstance(args, list) and all(isinstance(a, str) for a in args)
    ):
        raise ScenarioError(
            f"{label}: field 'args' is {args!r}; give sbatch options as one string "
            '(e.g. "-N 2 --gres=gpu:8 -t 2:00:00") or a list of strings',
            path=(*path, "args"),
        )
    if "script" in entry and not isinstance(entry["script"], str):
        raise ScenarioError(
            f"{label}: field 'script' is {entry['script']!r}; give the sbatch script as text "
            "(script: | then #SBATCH lines)",
            path=(*path, "script"),
        )
    field_name = "script" if "script" in entry else "args"
    with _entry((*path, field_name), f"{label}: field {field_name!r}"):
        if "script" in entry:  # with args too: command-line options override #SBATCH lines
            spec = JobSpec.from_sbatch(entry["script"], args)
        else:
            spec = JobSpec.from_args(args if args is not None else "")
        for key, value in spec.other:  # sbatch [options] script [args...]
            name, *rest = value.split() if key == "script-file" else ("",)
            if any(w.startswith("-") for w in rest):
                raise ScenarioError(
                    f"{label}: field {field_name!r}: {' '.join(rest)!r} after the script name "
                    f"{name!r} are the script's own arguments, not sbatch options (sbatch "
                    "stops reading options at the script name): put the options before it, or "
                    "leave the name out (a scenario's job runs for its runtime)",
                    path=(*path, field_name),
                )
        for key, option in (("name", "--job-name"), ("account", "--account"), ("user", "--uid")):
            given, set_by_option = entry.get(key), getattr(spec, key)
            if None not in (given, set_by_option) and str(given) != set_by_option:
                raise ScenarioError(
                    f"{label}: field {key!r} is {str(given)!r} but its {field_name!r} gives "
                    f"{option}={set_by_option}; give it once (the field or the option)",
                    path=(*path, key),
                )
        if entry.get("name"):
            spec = JobSpec.from_args([f"--job-name={entry['name']}"], base=spec)
        for key, option in (("user", "--uid"), ("account", "--account")):
            if getattr(spec, key) is not None and entry.get(key) is None:
                _check_word(
                    getattr(spec, key), key, f"{label}: field {field_name!r}: {option}",
                    (*path, field_name), write=f"{option}=",
                )  # fmt: skip
        spec.validate(cluster)
    ckpt = None
    if entry.get("checkpoint") is not None:
        if isinstance(entry["checkpoint"], dict):
            known = {f.name for f in fields(Checkpoint)}
            _allowed(
                entry["checkpoint"], known, f"{label}: field 'checkpoint'", (*path, "checkpoint")
            )
        with _entry((*path, "checkpoint"), f"{label}: field 'checkpoint'"):
            ckpt = Checkpoint.from_dict(_written(entry["checkpoint"]), where="checkpoint")
    with _entry((*path, "exit_code")):
        code = check_exit_code(
            _decimal(entry.get("exit_code", 0)), what=f"{label}: field 'exit_code'"
        )
    return WorkloadJob(
        spec,
        submit=submit,
        runtime=runtime,
        id=str(entry["id"]) if entry.get("id") is not None else None,
        user=str(entry["user"]) if entry.get("user") is not None else None,
        account=str(entry["account"]) if entry.get("account") is not None else None,
        exit_code=code,
        checkpoint=ckpt,
    )


#: What sbatch's ``--dependency=afterok:ID`` cannot hold in an ID: its separators
#: (``:`` between ids, ``,`` and ``?`` between conditions, ``+`` before a delay), the word
#: breaks of a command line, quotes, and ``[]`` (``ID_[1-3]``: some tasks of an array).
_ID_BREAKS = re.compile(r"[\s:,?+\[\]'\"]")


def _check_id(value: str, label: str, path: tuple) -> None:
    """A job ``id`` is one word that ``--dependency=afterok:ID`` and actions can name."""
    bad = sorted(set(_ID_BREAKS.findall(value)))
    if bad:
        shown = ", ".join("a space" if c == " " else repr(c) for c in bad)
        fix = re.sub(r"-+", "-", _ID_BREAKS.sub("-", value)).strip("-") or "job1"
        raise ScenarioError(
            f"{label}: field 'id': {value!r} cannot be named in --dependency=afterok:ID "
            f"(it holds {shown}: sbatch splits job ids at spaces, ':', ',', '?' and '+'); "
            f"use letters, digits, '-', '_' and '.', e.g. id: {fix}",
            path=path,
        )


def _check_word(value: str, key: str, label: str, path: tuple, write: str = "") -> None:
    """A user or account name is one word, as Slurm's are (login names; sacctmgr accounts)."""
    if value and not any(c.isspace() for c in value):
        return
    what = (
        "a user name: Slurm's users are login names"
        if key == "user"
        else "an account name: Slurm's accounts (sacctmgr add account) are names"
    )
    example = "-".join(value.split()).lower() or ("alice" if key == "user" else "ml-team")
    raise ScenarioError(
        f"{label}: {value!r} is not {what}, one word of letters, digits, '-', '_' and '.'; "
        f"write e.g. {write or f'{key}: '}{example}",
        path=path,
    )


def _unique_ids(jobs: tuple[WorkloadJob, ...]) -> None:
    first: dict[str, int] = {}
    for i, job in enumerate(jobs):
        if job.id is None:
            continue
        if job.id in first:
            raise ScenarioError(
                f"jobs[{i}]: field 'id': {job.id!r} is already the id of jobs[{first[job.id]}]; "
                "ids must be unique (dependencies and actions name jobs by id)",
                path=("jobs", i, "id"),
            )
        first[job.id] = i


def _no_jobid_collisions(jobs: tuple[WorkloadJob, ...]) -> None:
    """An ``id`` is not the JobID of a job without one (:func:`jobid_clash`). Like sbatch,
    the simulation numbers jobs 1, 2, ... in submit order and a job without an ``id`` is
    known by that number; ``id: 2`` on another job would make two jobs "2"."""
    clash = jobid_clash(jobs)
    if clash is None:
        _no_id_of_another(jobs)
        return
    i, j, first = clash
    job = jobs[i]
    fix = f"or this job one that is not a number (e.g. 'job{job.id}')"
    if j is None:
        raise ScenarioError(
            f"jobs[{i}] (id {job.id!r}): field 'id': {job.id!r} may be the JobID of a job "
            f"without an id: {AFTER_ARRAY} (from {first} on here); give the jobs without "
            f"an id ids too, {fix}",
            path=("jobs", i, "id"),
        )
    raise ScenarioError(
        f"jobs[{i}] (id {job.id!r}): field 'id': {job.id!r} is also the JobID of "
        f"jobs[{j}], which has no id (like sbatch, jobs are numbered 1, 2, ... in "
        f"submit order); give jobs[{j}] an id, {fix}",
        path=("jobs", i, "id"),
    )


def _no_id_of_another(jobs: tuple[WorkloadJob, ...]) -> None:
    """With every job given an ``id``, a number as an id is not another job's JobID: a job
    is known by its JobID too, so ``cancel job: 2`` would name two jobs."""
    if not jobs or any(j.id is None for j in jobs):
        return
    numbered: dict[str, int] = {}
    for k, n in enumerate(jobid_numbers(jobs)):
        if n is not None:
            numbered[str(n)] = k
            if jobs[k].spec.array is not None:
                numbered.update({f"{n}_{t}": k for t in jobs[k].spec.array.indices})
    for i, job in enumerate(jobs):
        k = numbered.get(job.id)
        if k is not None and k != i:
            raise ScenarioError(
                f"jobs[{i}] (id {job.id!r}): field 'id': {job.id!r} is also the JobID of "
                f"jobs[{k}] (id {jobs[k].id!r}): like sbatch, jobs are numbered 1, 2, ... in "
                "submit order and a job is known by its JobID too, so actions and "
                f"dependencies naming {job.id!r} would mean two jobs; give this job an id that "
                f"is not a number (e.g. 'job{job.id}')",
                path=("jobs", i, "id"),
            )


def _check_dependencies(jobs: tuple[WorkloadJob, ...], docs: list) -> None:
    """A ``--dependency`` names a job submitted before this one, by its scenario id or by
    its JobID (real Slurm would count a dependency on a job it does not know as satisfied:
    a likely mistake, so it is an error)."""
    order = {j.id: (j.submit, i) for i, j in enumerate(jobs) if j.id is not None}
    numbers = _jobid_numbers(jobs)
    for i, job in enumerate(jobs):
        field_name = "script" if "script" in docs[i] else "args"
        for dep in job.spec.dependency:
            for ref in dep.job_ids:
                base = _scenario_id(ref, order)
                if base is not None and order[base] < (job.submit, i):
                    continue
                if base is not None:
                    when = (
                        f"is submitted at {order[base][0]:g} s, not before this job "
                        f"({job.submit:g} s)"
                    )
                    if order[base][0] == job.submit:  # (same time: the file's order counts)
                        when += (
                            f"; jobs submitted at the same time are submitted in the order "
                            f"of the file: move {base!r} above this job, or give it an "
                            "earlier submit"
                        )
                elif re.fullmatch(r"[0-9]+(_[0-9]+)?", ref):
                    when = _jobid_problem(ref, i, jobs, numbers)
                    if when is None:
                        continue
                else:
                    when = "is not in this scenario"
                    close = difflib.get_close_matches(ref, [k for k in order if k], n=1)
                    if close:
                        when += f" (did you mean {close[0]!r}?)"
                raise ScenarioError(
                    f"{_job_label(i, job)}: field {field_name!r}: --dependency={dep.kind}:{ref}: job "
                    f"{base or ref!r} {when}; a job can only depend on jobs submitted before it",
                    path=("jobs", i, field_name),
                )


class _JobIds(NamedTuple):
    """The JobIDs of a scenario's jobs known before the run (:func:`jobid_numbers`: None
    for the others), the job each names, and the first number only the run gives (None
    when every JobID is known)."""

    jobids: list[int | None]
    by_jobid: dict[int, int]
    first_unknown: int | None
    most: int  # the most JobIDs the run can give (_most_jobids)


def _jobid_numbers(jobs: tuple[WorkloadJob, ...]) -> _JobIds:
    """The scenario's JobIDs (:class:`_JobIds`): past the known ones, up to the most the run
    can give (an array task's own JobIDs among them), the run decides them."""
    jobids = jobid_numbers(jobs)
    by_jobid = {n: k for k, n in enumerate(jobids) if n is not None}
    most = _most_jobids(jobs)
    first = len(by_jobid) + 1 if len(by_jobid) < most else None
    return _JobIds(jobids, by_jobid, first, most)


def _jobid_job(ref: str, numbers: _JobIds, jobs: tuple[WorkloadJob, ...]):
    """The job (its index) the JobID ``ref`` (``7``, or ``7_2`` for task 2 of the array 7)
    names, as the simulation numbers them (:func:`jobid_numbers`), and None; or None and
    why it names none."""
    number, _, task = ref.partition("_")
    n = int(number)
    k = numbers.by_jobid.get(n)
    most = numbers.most
    if k is None and numbers.first_unknown is not None and numbers.first_unknown <= n <= most:
        return None, (
            f"is not known before the run: {AFTER_ARRAY}, from {numbers.first_unknown} on "
            "here; give the job an id and name it by that (an array task: ID_TASK)"
        )
    if k is None:
        return None, "is not a JobID in this scenario (" + (
            "its one job is JobID 1)"
            if most == 1
            else f"its JobIDs are 1 to {len(jobs)}: sbatch numbers jobs in submit order, "
            "one number per submission, an array's tasks ARRAY_TASK)"
            if numbers.first_unknown is None
            else f"its JobIDs are 1 to at most {most}: one per submission, and one more "
            "for each array task that starts, all but the last of each array)"
        )
    array = jobs[k].spec.array
    if task and array is None:
        return None, f"names task {task} of {n}, which is not an array's JobID"
    if task and int(task) not in array.indices:
        return None, f"is no task of the array {n} (--array={array})"
    return k, None


def _jobid_problem(ref: str, i: int, jobs: tuple[WorkloadJob, ...], numbers: _JobIds):
    """Why the JobID ``ref`` (``7``, or ``7_2`` for task 2 of the array 7) does not name a
    job submitted before ``jobs[i]``, as the simulation numbers them (:func:`jobid_numbers`);
    None if it does."""
    k, problem = _jobid_job(ref, numbers, jobs)
    if problem is not None:
        return problem
    jobids = numbers.jobids
    if k == i:
        return "is this job's own JobID"
    if jobids[i] is None:  # (its JobID is unknown before the run: after every known one)
        return None
    if jobids[k] > jobids[i] and jobs[k].submit == jobs[i].submit:
        return (
            f"is the JobID of jobs[{k}], submitted at the same time ({jobs[k].submit:g} s) "
            "but later in the list, so after this job"
        )
    if jobids[k] > jobids[i]:
        return (
            f"is the JobID of jobs[{k}], submitted at {jobs[k].submit:g} s, after this job "
            f"({jobs[i].submit:g} s)"
        )
    return None


def _failures(doc: dict, cluster: Cluster, origin: pd.Timestamp) -> tuple[NodeFailure, ...]:
    """``failures`` entries; a ``node`` may be a hostlist (``gpu[1-4]``): one failure each."""
    out = []
    for i, entry in enumerate(_list(doc, "failures")):
        entry = _written(entry)
        if isinstance(entry, dict):
            known = {f.name for f in fields(NodeFailure)}
            _allowed(entry, known, f"failures[{i}]", ("failures", i))
            with _entry(("failures", i, "at"), f"failures[{i}]: field 'at'"):
                _not_a_date(entry.get("at"), origin, "at")
        with _entry(("failures", i)):
            failure = NodeFailure.from_dict(entry, where=f"failures[{i}]")
        with _entry(("failures", i, "node"), f"failures[{i}]: field 'node'"):
            nodes = expand_hostlist(failure.node)
        for name in nodes:
            if name not in _node_names(cluster):
                raise ScenarioError(
                    f"failures[{i}]: node {name!r} is not in the cluster ({_nodes_hint(cluster)})",
                    path=("failures", i, "node"),
                )
            out.append(replace(failure, node=name))
    return tuple(out)


def _random_failures(
    doc: dict, cluster: Cluster
) -> RandomFailures | tuple[RandomFailures, ...] | None:
    """The section: one model (a mapping), or a list of them (a tuple of models)."""
    section = doc.get("random_failures")
    if not section:
        return None
    if isinstance(section, list):
        return tuple(
            _failure_model(entry, cluster, ("random_failures", i), f"random_failures[{i}]")
            for i, entry in enumerate(section)
        )
    return _failure_model(section, cluster, ("random_failures",), "random_failures")


def _failure_model(entry, cluster: Cluster, path: tuple, where: str) -> RandomFailures:
    if not isinstance(entry, dict):
        raise ScenarioError(
            f"{where}: a failure model is a mapping such as {{mtbf: 30-00:00:00, "
            f"repair: 4:00:00}}, not {_as_written(entry)!r}",
            path=path,
        )
    _allowed(entry, {f.name for f in fields(RandomFailures)}, where, path)
    with _entry(path):
        model = RandomFailures.from_dict(_written(entry), where=where)
    unknown = [n for n in model.nodes if n not in _node_names(cluster)]
    if unknown:
        raise ScenarioError(
            f"{where}: nodes {unknown} are not in the cluster ({_nodes_hint(cluster)})",
            path=(*path, "nodes"),
        )
    return model


def _accounts(doc: dict) -> tuple[Account, ...]:
    """The fair-share tree's accounts, each declared once, their parents declared."""
    accounts = _section(doc, "accounts", _account)
    _unique_names(accounts, "accounts", "account")
    declared = {a.name for a in accounts}
    for i, a in enumerate(accounts):
        if a.parent not in (None, "root") and a.parent not in declared:
            raise ScenarioError(
                f"accounts[{i}]: account {a.name!r}: parent {a.parent!r} is not declared; "
                "declare it in accounts (or leave parent out: root)",
                path=("accounts", i, "parent"),
            )
    return accounts


def _unique_names(entries: tuple, key: str, what: str) -> None:
    """Each account, QOS or reservation is declared once (a later one would silently
    replace the earlier, and the errors that follow would be about something else)."""
    first: dict[str, int] = {}
    for i, entry in enumerate(entries):
        if entry.name in first:
            raise ScenarioError(
                f"{key}[{i}]: field 'name': {what} {entry.name!r} is already declared by "
                f"{key}[{first[entry.name]}]; each {what} is declared once (merge the two "
                "entries, or rename one)",
                path=(key, i, "name"),
            )
        first[entry.name] = i


def _check_preempt_mode(cluster: Cluster, doc: dict) -> None:
    """slurm.conf PreemptMode is one slurmlab models (OFF, CANCEL, REQUEUE) where it
    preempts (under preempt/qos; another PreemptType preempts nothing here)."""
    mode = cluster.setting("PreemptMode", None)
    if mode is None:
        return
    spec = doc.get("cluster")
    path: tuple = ("cluster",)
    if isinstance(spec, dict) and "slurm_conf" in spec:
        path = ("cluster", "slurm_conf")
    elif isinstance(spec, dict) and isinstance(spec.get("settings"), dict):
        keys = [k for k in spec["settings"] if str(k).lower() == "preemptmode"]
        path = ("cluster", "settings", *keys[:1])
    with _entry(path, "cluster"):
        simulated_preempt_mode(
            mode, cluster.setting("PreemptType") or "preempt/none", what="PreemptMode"
        )


def _check_job_reservations(
    reservations: tuple[Reservation, ...],
    tree: AccountTree,
    jobs: tuple[WorkloadJob, ...],
    docs: list,
    cluster: Cluster,
    held_by: dict[str, tuple[str, ...]],
) -> None:
    """A job's ``--reservation`` names a declared reservation that admits the job's user or
    account, has not ended when the job is submitted, and holds enough nodes for it
    (sbatch rejects the rest; the simulation would fail mid-run or pend for ever)."""
    by_name = {r.name: r for r in reservations}
    for i, job in enumerate(jobs):
        name = job.spec.reservation
        if name is None:
            continue
        field_name = "script" if "script" in docs[i] else "args"
        label = _job_label(i, job)
        opt = f"--reservation={name}"
        r = by_name.get(name)
        if r is None:
            known = ", ".join(by_name) or "none declared"
            raise ScenarioError(
                f"{label}: field {field_name!r}: {opt}: Requested reservation is invalid (no "
                f"such reservation); declare it under reservations (known: {known})",
                path=("jobs", i, field_name),
            )
        user = job.user or job.spec.user or "user"
        account, _assoc = tree.resolve(user, job.account or job.spec.account)
        if not r.admits(user, account):
            key = next((k for k in ("user", "account") if k in docs[i]), field_name)
            raise ScenarioError(
                f"{label}: field {key!r}: {opt}: Access denied to requested reservation: "
                f"user {user!r} "
                f"(account {account!r}) is not among its users {list(r.users)} or accounts "
                f"{list(r.accounts)}; add the user or account to reservation {name!r} or "
                "run the job as one it admits",
                path=("jobs", i, key),
            )
        if job.submit >= r.end:
            raise ScenarioError(
                f"{label}: field 'submit': {job.submit:g} s is after reservation {name!r} "
                f"ends ({r.end:g} s), when it no longer exists ({opt}: Requested reservation "
                "is invalid); submit the job before the reservation ends",
                path=("jobs", i, "submit"),
            )
        held = held_by[name]
        res = job.spec.resources(cluster)  # checked by _job: it resolves
        usable = set(held) & set(res.candidates)
        if len(usable) < res.nodes:
            fit = "" if len(usable) == len(held) else f", {len(usable)} of them able to run it"
            raise ScenarioError(
                f"{label}: field {field_name!r}: {opt}: the job needs {res.nodes} node(s) but "
                f"reservation {name!r} holds {len(held)} ({compress_hostlist(held)}){fit}: "
                "Requested node configuration is not available; ask for at most "
                f"{len(usable)} node(s) or make the reservation larger",
                path=("jobs", i, field_name),
            )


def _check_qos(qos: tuple[Qos, ...], jobs: tuple[WorkloadJob, ...], docs: list) -> None:
    """Every QOS a QOS preempts or a job asks for exists (``normal`` always does)."""
    names = {"normal"} | {q.name for q in qos}
    hint = f"declare it under qos (known: {', '.join(sorted(names))})"
    for i, q in enumerate(qos):
        for other in q.preempt:
            if other not in names:
                raise ScenarioError(
                    f"qos[{i}]: field 'preempt': QOS {other!r} is unknown; {hint}",
                    path=("qos", i, "preempt"),
                )
    loop = preemption_loop({q.name: q.preempt for q in qos})
    if loop:
        i = next(k for k, q in enumerate(qos) if q.name == loop[0])
        raise ScenarioError(
            f"qos[{i}] ({loop[0]}): field 'preempt': QOS {' -> '.join(loop)} may preempt one "
            "another in a loop, and their jobs would preempt each other for ever (sacctmgr "
            'refuses it: "QOS Preemption loop detected"); take one of them out of the '
            "other's preempt list",
            path=("qos", i, "preempt"),
        )
    for i, job in enumerate(jobs):
        if job.spec.qos is not None and job.spec.qos not in names:
            field_name = "script" if "script" in docs[i] else "args"
            raise ScenarioError(
                f"{_job_label(i, job)}: field {field_name!r}: --qos={job.spec.qos}: Invalid qos "
                f"specification; {hint}",
                path=("jobs", i, field_name),
            )


def _job_label(i: int, job: WorkloadJob) -> str:
    """``jobs[3] (id 'train')``: an entry as every job error names it."""
    return f"jobs[{i}]" + (f" (id {job.id!r})" if job.id is not None else "")


def _check_partition_accounts(cluster: Cluster, tree: AccountTree, jobs, docs: list) -> None:
    """Every job's account is admitted by its partition's AllowAccounts / DenyAccounts."""
    if all(p.admits_account(None) for p in cluster.partitions):  # (no partition restricts)
        return
    for i, job in enumerate(jobs):
        part = cluster.partition(job.spec.partition)  # (None: the default one)
        account, _assoc = tree.resolve(
            job.user or job.spec.user or "user", job.account or job.spec.account
        )
        if not part.admits_account(account):
            key = next((k for k in ("account", "args", "script") if k in docs[i]), None)
            where = _job_label(i, job) + ("" if key is None else f": field {key!r}")
            raise ScenarioError(
                f"{where}: account {account!r} in partition {part.name!r}: Invalid account or "
                "account/partition combination specified (the partition's AllowAccounts/"
                "DenyAccounts do not admit it); give the job an account the partition admits",
                path=("jobs", i) if key is None else ("jobs", i, key),
            )


def _check_associations(tree: AccountTree, jobs: tuple[WorkloadJob, ...], docs: list) -> None:
    """With accounts declared, every job's user has an association with its account."""
    for i, job in enumerate(jobs):
        user = job.user or job.spec.user or "user"
        account, assoc = tree.resolve(user, job.account or job.spec.account)
        if assoc is None:
            key = next((k for k in ("account", "user") if k in docs[i]), None)
            if key is None and job.spec.account is not None:  # -A in its sbatch options
                key = "script" if "script" in docs[i] else "args"
            known = ", ".join(tree.accounts)
            if account == "root":  # no -A and the user is in no account's users
                fix = f"list {user!r} in the users of an account ({known}) or give it one"
            elif account not in tree.accounts:
                fix = f"declare account {account!r} in 'accounts' or use one of {known}"
            else:  # the account lists users, and not this one
                users = ", ".join(tree.accounts[account].users) or "none"
                fix = f"list {user!r} in the users of account {account!r} (now: {users})"
            where = _job_label(i, job) + ("" if key is None else f": field {key!r}")
            raise ScenarioError(
                f"{where}: user {user!r} has no association with account {account!r} (Slurm: "
                f"Invalid account or account/partition combination specified); {fix}",
                path=("jobs", i) if key is None else ("jobs", i, key),
            )


def _section(doc: dict, key: str, build) -> tuple:
    """Each entry of section ``key`` built by ``build``, its times and numbers as written."""
    out = []
    for i, entry in enumerate(_list(doc, key)):
        with _entry((key, i)):
            out.append(build(_written(entry), where=f"{key}[{i}]"))
    return tuple(out)


def _qos(doc, *, where: str) -> Qos:
    """A ``qos`` entry (its times and numbers as written: ``max_wall: 1:00:00``, which YAML
    reads as 3600, is an hour; see :func:`_section`)."""
    return Qos.from_dict(doc, where=where)


def _warn_bare_durations(doc: dict, source: str, lines: dict) -> None:
    """A reservation's ``duration`` as a bare number is seconds here, as every scenario time
    is, but minutes in ``scontrol create reservation Duration=60``: say which was read."""
    entries = doc.get("reservations")
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        value = entry.get("duration") if isinstance(entry, dict) else None
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        text = str(_as_written(value)).strip()
        if not re.fullmatch(r"\d+(\.\d+)?", text) or float(text) == 0:
            continue  # 1:00:00, 2h, 0...: no doubt
        path = ("reservations", i, "duration")
        line = _line_of(lines, path)
        where = f"{source} line {line}: " if line else f"{source}: "
        name = f" ({entry['name']})" if entry.get("name") is not None else ""
        minutes = format_duration(timedelta(minutes=float(text)))
        warn_at_caller(
            f"{where}reservations[{i}]{name}: field 'duration': {text} is read as {text} "
            f"seconds (a scenario's times are seconds, as submit and runtime are), while "
            f"scontrol create reservation Duration={text} means {text} minutes; write "
            f"{text}s, or {minutes} for {text} minutes, to say which"
        )


def _warning_at(source: str, lines: dict, path: tuple) -> str:
    """``s.yaml line 7: `` (or ``s.yaml: ``): where a warning about ``path`` is."""
    line = _line_of(lines, path)
    return f"{source} line {line}: " if line else f"{source}: "


def _cluster_kind(cluster: Cluster, spec) -> str:
    """How the scenario's cluster takes settings: ``preset`` (it takes none), ``slurm_conf``,
    ``inline``, or ``other`` (a cluster given in place of the document's)."""
    if spec is None:  # (with_cluster: a preset is one still)
        is_preset = cluster.name in presets() and cluster == Cluster.preset(cluster.name)
        return "preset" if is_preset else "other"
    if isinstance(spec, str) or isinstance(spec, dict) and "preset" in spec:
        return "preset"
    return "slurm_conf" if isinstance(spec, dict) and "slurm_conf" in spec else "inline"


def _setting_said(cluster: Cluster, kind: str, key: str, default: str) -> str:
    """A slurm.conf setting as the cluster has it, with where it was read (``PreemptType=
    preempt/none (slurm.conf line 80)``), or that it is not set and Slurm's default."""
    value = cluster.setting(key)
    preset = f"the preset {cluster.name!r}"
    if value is None:
        where = f" in {preset}" if kind == "preset" else ""
        return f"{key} is not set{where} (Slurm's default: {default})"
    if kind == "preset":
        return f"{preset} sets {key}={value}"
    where = getattr(cluster.settings, "where", {})
    at = next((w for k, w in where.items() if k.lower() == key.lower()), None)
    return f"{key}={value}" + (f" ({at})" if at else "")


def _settings_fix(kind: str, needed: dict[str, str]) -> str:
    """How to give the cluster the slurm.conf settings ``needed``, for its kind."""
    conf = " and ".join(f"{k}={v}" for k, v in needed.items())
    inline = "{" + ", ".join(f"{k}: {v}" for k, v in needed.items()) + "}"
    if kind == "preset":
        return (
            f"give the cluster {conf}: a preset takes no settings, so describe the cluster "
            f"inline (nodes, partitions) with settings: {inline}, or give a slurm.conf that "
            "sets them (cluster: {slurm_conf: PATH})"
        )
    if kind == "slurm_conf":
        return f"set {conf} in the cluster's slurm.conf"
    if kind == "inline":
        return f"add {inline} to the cluster's settings"
    return f"give the cluster {conf} (in its slurm.conf, or an inline cluster's settings)"


def _warn_inert_sections(
    doc: dict, cluster: Cluster, kind: str, qos, accounts, source: str, lines: dict
) -> None:
    """QOS ``preempt`` lists, account ``shares`` and QOS ``priority`` that the cluster's
    settings leave without effect (:func:`slurmlab.spec.cluster.inert_settings`) are warned
    about, once per field, naming the setting, where it is set and how to set it for this
    kind of cluster."""
    inert = inert_settings(cluster)
    by_name = {q.name: q for q in qos}

    def warn(key: str, field_name: str, entries: list, value) -> None:
        why = inert[field_name]
        i = entries[0]
        also = f" (and {', '.join(f'{key}[{k}]' for k in entries[1:])})" if entries[1:] else ""
        said = _setting_said(cluster, kind, why.key, why.default)
        warn_at_caller(
            f"{_warning_at(source, lines, (key, i, field_name))}{key}[{i}] "
            f"({doc[key][i]['name']}){also}: field {field_name!r}: {value} has no effect on "
            f"this cluster: {said}, {why.consequence}, as in Slurm; to use it, "
            f"{_settings_fix(kind, why.needed)}"
        )

    def given(key: str, field_name: str, effective) -> list[int]:
        if field_name not in inert:
            return []
        entries = doc.get(key) if isinstance(doc.get(key), list) else []
        return [
            i
            for i, e in enumerate(entries)
            if isinstance(e, dict) and e.get(field_name) is not None and effective(e)
        ]

    entries = given("qos", "preempt", lambda e: by_name[str(e["name"]).lower()].preempt)
    if entries:
        warn(
            "qos",
            "preempt",
            entries,
            ", ".join(by_name[str(doc["qos"][entries[0]]["name"]).lower()].preempt),
        )
    entries = given("accounts", "shares", lambda e: True)  # (any value: usage counts too)
    if entries:
        warn("accounts", "shares", entries, accounts[entries[0]].shares)
    entries = given("qos", "priority", lambda e: by_name[str(e["name"]).lower()].priority)
    if entries:
        warn("qos", "priority", entries, qos[entries[0]].priority)


#: The scenario's own offsets and durations (no Slurm field reads them): each section's
#: fields, a field of a field as a path (a job's ``checkpoint.interval``).
_OWN_TIMES = {
    "jobs": (("submit",), ("runtime",), ("checkpoint", "interval"),
             ("checkpoint", "write_cost"), ("checkpoint", "restart_cost")),
    "actions": (("at",),),
    "failures": (("at",), ("down_for",)),
    "reservations": (("start",),),
    "random_failures": (("mtbf",), ("repair",)),  # (a mapping, or a list of them)
}  # fmt: skip


def _warn_minutes_seconds(doc: dict, source: str, lines: dict) -> None:
    """A scenario time of the two-part form ``1:30`` is M:S (90 s), as ``sbatch -t`` reads
    it; in ``runtime``, ``submit``, ``at``... (the scenario's own times, no Slurm field)
    ``1:30`` most likely means 1 h 30 min, so the reading is said in a warning."""
    for section, keys in _OWN_TIMES.items():
        value = doc.get(section)
        entries = [(None, value)] if isinstance(value, dict) else enumerate(value or [])
        for i, entry in entries:
            if not isinstance(entry, dict):
                continue
            label = section if i is None else f"{section}[{i}]"
            named = entry.get("id" if section == "jobs" else "name")
            if isinstance(named, str | int) and i is not None:
                label += f" (id {str(named)!r})" if section == "jobs" else f" ({named})"
            for path in keys:
                value = entry
                for key in path:
                    value = value.get(key) if isinstance(value, dict) else None
                text = str(_as_written(value)).strip() if isinstance(value, str | int) else ""
                match = re.fullmatch(r"(\d+):(\d+)", text)
                if match is None or isinstance(value, bool):
                    continue
                where = _warning_at(source, lines, (section, *([] if i is None else [i]), *path))
                first, second = (int(g) for g in match.groups())
                total = first * 60 + second
                as_read = span_words(first, "min", second, "s")
                warn_at_caller(
                    f"{where}{label}: field {'.'.join(path)!r}: {text} is read as {as_read} "
                    f"(M:S, as sbatch -t reads it); write {text}:00 for "
                    f"{span_words(first, 'h', second, 'min')}, or {total // 3600}:"
                    f"{total % 3600 // 60:02d}:{total % 60:02d} (or {total}) for {as_read}"
                )


def _reservations(doc: dict, origin: pd.Timestamp) -> tuple[Reservation, ...]:
    """``reservations`` entries (scontrol create reservation): ``start`` an offset from the
    scenario's start, not a date; the nodes named, or a number of them, not both."""
    out = []
    for i, entry in enumerate(_list(doc, "reservations")):
        where, path = f"reservations[{i}]", ("reservations", i)
        entry = _written(entry)
        if isinstance(entry, dict):
            label = where + (f" ({entry['name']})" if entry.get("name") is not None else "")
            with _entry((*path, "start"), f"{label}: field 'start'"):
                _not_a_date(entry.get("start"), origin, "start")
            if entry.get("nodes") is not None and entry.get("node_count") is not None:
                raise ScenarioError(
                    f"{label}: fields 'nodes' ({entry['nodes']!r}) and 'node_count' "
                    f"({entry['node_count']!r}) are both given; give one: nodes for the "
                    "nodes it holds (scontrol's Nodes=), or node_count for how many free "
                    "nodes it takes (NodeCnt=)",
                    path=(*path, "node_count"),
                )
        with _entry(path):
            out.append(Reservation.from_dict(entry, where=where))
    return tuple(out)


def _account(doc, *, where: str) -> Account:
    """``{name, shares, parent, users, grp_tres, max_jobs}`` (sacctmgr add account ...)."""
    known = {"name", "shares", "parent", "users", "grp_tres", "max_jobs"}
    if not isinstance(doc, dict) or "name" not in doc:
        raise ScenarioError(f"{where}: each account needs a name")
    unknown = set(doc) - known
    if unknown:
        raise ScenarioError(f"{where}: {unknown_fields(unknown, known)}")
    max_jobs = doc.get("max_jobs")
    return Account(
        name=str(doc["name"]),
        shares=parse_whole(doc.get("shares", 1), what=f"{where}.shares", maximum=MAX_COUNT),
        parent=str(doc.get("parent", "root")),
        users=parse_name_list(doc.get("users"), what=f"{where}.users"),  # sacctmgr's a,b too
        grp_tres=parse_tres_limits(doc.get("grp_tres"), what=f"{where}.grp_tres"),
        max_jobs=None
        if max_jobs is None
        else parse_whole(max_jobs, what=f"{where}.max_jobs", maximum=MAX_COUNT),
    )


def _check_reservation(r: Reservation, i: int, cluster: Cluster, tree: AccountTree) -> None:
    """The nodes a reservation names exist, and so do its accounts when the scenario
    declares accounts (checked at load, not when it starts)."""
    where, path = f"reservations[{i}]", ("reservations", i)
    unknown = [a for a in r.accounts if tree.accounts and a not in tree.accounts]
    if unknown:
        raise ScenarioError(
            f"{where}: field 'accounts': {unknown} are not declared under accounts (known: "
            f"{', '.join(tree.accounts)}); declare them or name a declared account",
            path=(*path, "accounts"),
        )
    unknown = [n for n in r.nodes if n not in _node_names(cluster)]
    if unknown:
        raise ScenarioError(
            f"{where}: nodes {unknown} are not in the cluster ({_nodes_hint(cluster)})",
            path=(*path, "nodes"),
        )
    if not r.nodes and r.node_count is not None and r.node_count > len(cluster.nodes):
        raise ScenarioError(
            f"{where}: node_count {r.node_count} exceeds the cluster's {len(cluster.nodes)} "
            f"node{'s' * (len(cluster.nodes) != 1)}",
            path=(*path, "node_count"),
        )


def _place_reservations(reservations, cluster: Cluster) -> dict[str, tuple[str, ...]]:
    """The nodes each reservation will hold (as the simulation places them), or a
    ScenarioError on the entry of one that overlaps another on a node."""
    try:
        return {
            r.name: nodes
            for r, nodes in place_reservations(
                reservations,
                _node_names(cluster),
                **reservation_pools(cluster),
            )
        }
    except SlurmlabError as exc:  # (it names the one refused first, then the one it overlaps)
        i = next(
            k for k, r in enumerate(reservations) if str(exc).startswith(f"reservation {r.name!r}:")
        )
        key = (
            "nodes"
            if reservations[i].nodes
            else "partition"
            if "partition" in str(exc).split(":", 1)[1][:40]
            else "node_count"
        )
        raise ScenarioError(
            f"reservations[{i}]: field {key!r}: {exc}", path=("reservations", i, key)
        ) from None


def _node_names(cluster: Cluster) -> list[str]:
    return [n.name for n in cluster.nodes]


def _described(cluster: Cluster) -> str:
    """``4 nodes, 32 CPUs, 8 GPUs``: a cluster in a few words."""
    cpus = sum(n.cpus for n in cluster.nodes)
    gpus = cluster.tres().get("gres/gpu", 0)
    nodes = len(cluster.nodes)
    return f"{nodes} node{'s' * (nodes != 1)}, {cpus} CPU{'s' * (cpus != 1)}" + (
        f", {gpus} GPU{'s' * (gpus != 1)}" if gpus else ""
    )


def _nodes_hint(cluster: Cluster) -> str:
    return f"it has {compress_hostlist(_node_names(cluster))}"


def _action(
    entry, i: int, jobs: tuple[WorkloadJob, ...], cluster: Cluster, origin: pd.Timestamp
) -> tuple[Action, ...]:
    """The action an entry gives: one per node of a hostlist (``node: gpu[1-4]``), as
    ``scontrol update NodeName=gpu[1-4]`` changes each node; an array task range (``job:
    sweep_[3-5]``), each of its tasks checked, is one action, as scancel and scontrol take
    it (scontrol hold naming every task of an array's pending record splits none off)."""
    label, path = f"actions[{i}]", ("actions", i)
    if isinstance(entry, dict) and isinstance(entry.get("job"), str):
        whole = entry["job"].strip()
        if whole.endswith("_*"):  # (ID_*: the whole array, as scancel and scontrol take it)
            one = _action({**entry, "job": whole[:-2]}, i, jobs, cluster, origin)
            return (replace(one[0], target=whole),)
        tasks = _TASK_RANGE.fullmatch(entry["job"].strip())
        if tasks:
            indices = _task_indices(tasks.group(2))
            if not indices:
                raise ScenarioError(
                    f"{label}: field 'job': {entry['job']!r} is no task range; write e.g. "
                    f"{tasks.group(1)}_[3-5] or {tasks.group(1)}_[1,4-6]",
                    path=(*path, "job"),
                )
            for task in indices:  # (each task must be one the array has)
                one = _action(
                    {**entry, "job": f"{tasks.group(1)}_{task}"}, i, jobs, cluster, origin
                )
            return (replace(one[0], target=entry["job"].strip()),)
    if not isinstance(entry, dict) or "action" not in entry or "at" not in entry:
        raise ScenarioError(
            f"{label}: each action needs 'at' and 'action' ({', '.join(ACTIONS)})", path=path
        )
    kind = entry["action"]
    if not isinstance(kind, str) or kind not in ACTIONS:
        raise ScenarioError(
            f"{label}: {unknown_action(kind)}",
            path=(*path, "action"),
        )
    target_key = ACTIONS[kind]
    fields = set(UPDATE_FIELDS) if kind == "update" else set()
    _allowed(entry, {"at", "action", target_key, *fields}, label, path)
    changes = _update_changes(entry, label, path, cluster) if kind == "update" else ()
    if target_key not in entry:
        raise ScenarioError(f"{label}: action {kind!r} needs field {target_key!r}", path=path)
    with _entry((*path, "at"), f"{label}: field 'at'"):
        at = _offset(_as_written(entry["at"]), origin, "at")
    target = str(entry[target_key])
    if target_key == "node":
        with _entry((*path, "node"), f"{label}: field 'node'"):
            names = parse_names(target, what="node", hostlist_ok=True)
        unknown = [n for n in names if n not in _node_names(cluster)]
        if unknown or not names:
            raise ScenarioError(
                f"{label}: field 'node': {compress_hostlist(unknown) or target!r} is not in the "
                f"cluster ({_nodes_hint(cluster)})",
                path=(*path, "node"),
            )
        return tuple(Action(at=at, action=kind, target=n) for n in names)
    if target_key == "job" and not _names_a_job(target, jobs):
        ids = [j.id for j in jobs if j.id is not None]
        raise ScenarioError(
            f"{label}: field 'job': no job {target!r} in this scenario; give a job's id "
            f"({', '.join(ids[:10]) + (', ...' if len(ids) > 10 else '') if ids else 'none set'}"
            "), an array task as ID_TASK, or a numeric JobID",
            path=(*path, "job"),
        )
    if target_key == "job":
        _check_array_task(target, jobs, label, (*path, "job"))
        _check_jobid_task(target, jobs, label, (*path, "job"))
        if any(key == "throttle" for key, _ in changes):
            _check_throttle(target, changes, jobs, label, path)
        submit = _submit_of(target, jobs)
        if submit is not None and at < submit:
            raise ScenarioError(
                f"{label}: field 'at': {at:g} s is before job {target!r} is submitted "
                f"({submit:g} s); {kind} it at or after its submission",
                path=(*path, "at"),
            )
    return (Action(at=at, action=kind, target=target, changes=changes),)


def _update_changes(
    entry: dict, label: str, path, cluster: Cluster
) -> tuple[tuple[str, object], ...]:
    """An update action's changes (``nodes``, ``time``, ``partition``), each checked as
    scontrol reads it (:func:`slurmlab.spec.workload.update_value`; times as written, so
    ``time: 1:00:00`` is an hour, not YAML's 3600 minutes), and a partition the cluster
    has."""
    changes = []
    for key in UPDATE_FIELDS:
        if key not in entry:
            continue
        where = (*path, key)
        with _entry(where, f"{label}: field {key!r}"):
            value = update_value(key, _as_written(entry[key]))
        if key == "partition":
            names = [p.name for p in cluster.partitions]
            unknown = [p for p in value.split(",") if p.strip() not in names]
            if unknown:
                raise ScenarioError(
                    f"{label}: field 'partition': {unknown[0]!r} is not a partition of the "
                    f"cluster (it has {', '.join(names)})",
                    path=where,
                )
        changes.append((key, value))
    if not changes:
        raise ScenarioError(
            f"{label}: an update needs at least one of {', '.join(UPDATE_FIELDS)} (as "
            "scontrol update NumNodes=, TimeLimit=, Partition=)",
            path=path,
        )
    return tuple(changes)


def _check_array_task(target: str, jobs: tuple[WorkloadJob, ...], label: str, path) -> None:
    """``ID_TASK`` must name a task the array ``ID`` has (else Slurm refuses the action:
    Invalid job id specified)."""
    by_id = {j.id: j for j in jobs if j.id is not None}
    base = _scenario_id(target, by_id)
    if base is None or base == target:
        return
    task = int(target.rpartition("_")[2])
    array = by_id[base].spec.array
    if array is None:
        raise ScenarioError(
            f"{label}: field 'job': {target!r} names task {task} of job {base!r}, which is "
            f"not an array (no --array); name the job as {base!r}",
            path=path,
        )
    if task not in array.indices:
        raise ScenarioError(
            f"{label}: field 'job': job {base!r} has no array task {task} (--array="
            f"{array}); name one of its tasks, e.g. {base}_{array.indices[0]}",
            path=path,
        )


def _check_throttle(
    target: str, changes, jobs: tuple[WorkloadJob, ...], label: str, path: tuple
) -> None:
    """An update's ``throttle`` (scontrol update ArrayTaskThrottle=) needs a job array (an
    array's %N; else scontrol refuses it), and goes on its own (the other fields in another
    update)."""
    others = [key for key, _ in changes if key != "throttle"]
    if others:
        raise ScenarioError(
            f"{label}: field 'throttle' goes in an update of its own (as scontrol update "
            f"JobId=... ArrayTaskThrottle=N); give {', '.join(others)} in another update "
            "action",
            path=(*path, others[0]),
        )
    by_id = {j.id: j for j in jobs if j.id is not None}
    base = _scenario_id(target, by_id)
    if base is not None:
        job = by_id[base]
    else:  # a numeric JobID (known before the run: _check_jobid_task)
        k, _ = _jobid_job(target, _jobid_numbers(jobs), jobs)
        job = jobs[k] if k is not None else None
    if job is not None and job.spec.array is None:
        name = repr(job.id) if job.id is not None else f"JobID {target}"
        raise ScenarioError(
            f"{label}: field 'throttle': job {name} is not a job array (no --array in its "
            "args), and ArrayTaskThrottle is an array's %N (scontrol refuses it); name an "
            "array's id, or give the job --array=...%N",
            path=(*path, "throttle"),
        )


def _check_jobid_task(target: str, jobs: tuple[WorkloadJob, ...], label: str, path) -> None:
    """A numeric JobID must be one known before the run (:func:`jobid_numbers`), and a
    ``JOBID_TASK`` name a task the array with that JobID has, as ``ID_TASK`` must (else
    Slurm refuses the action: Invalid job id specified)."""
    ids = {j.id for j in jobs if j.id is not None}
    if not re.fullmatch(r"[0-9]+(_[0-9]+)?", target) or _scenario_id(target, ids) is not None:
        return
    _, problem = _jobid_job(target, _jobid_numbers(jobs), jobs)
    if problem is not None:
        fix = (
            ""  # (its fix said: give the job an id)
            if problem.startswith("is not known before the run")
            else "; name a task an array has (ARRAY_JOBID_TASK), or the array by its id and "
            "task (ID_TASK)"
            if "_" in target
            else "; name a job by its id, an array task as ID_TASK"
        )
        raise ScenarioError(f"{label}: field 'job': JobID {target!r} {problem}{fix}", path=path)


def _scenario_id(ref: str, ids) -> str | None:
    """The scenario id ``ref`` names: that id, or an array task ``ID_TASK`` of it."""
    if ref in ids:
        return ref
    base, _, task = ref.rpartition("_")
    return base if base in ids and task.isdigit() else None


def _submit_of(target: str, jobs: tuple[WorkloadJob, ...]) -> float | None:
    """When the job a scenario id (or ``ID_TASK``) names is submitted; None for JobIDs."""
    submits = {j.id: j.submit for j in jobs if j.id is not None}
    base = _scenario_id(target, submits)
    return None if base is None else submits[base]


def _names_a_job(target: str, jobs: tuple[WorkloadJob, ...]) -> bool:
    """``target`` is a job's id, an array task ``ID_TASK`` of one, or a numeric JobID."""
    if _scenario_id(target, {j.id for j in jobs if j.id is not None}) is not None:
        return True
    if re.fullmatch(r"\d+(_\d+)?", target):
        return 1 <= int(target.partition("_")[0]) <= _most_jobids(jobs)
    return False


def _most_jobids(jobs: tuple[WorkloadJob, ...]) -> int:
    """How many JobIDs a scenario's jobs can take at most: one per submission, and one more
    per array task but the last of each array, which keeps the array's (jobid_numbers)."""
    return sum(len(j.spec.array.indices) if j.spec.array else 1 for j in jobs)
