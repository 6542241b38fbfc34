"""``Lab``: an interactive simulated cluster for notebooks.

Submit with ``lab.sbatch(...)`` (a script or sbatch options), move time with
``lab.advance("2h")`` or ``lab.run(until=...)``, and look with ``squeue()``,
``sinfo()`` and ``sacct()`` as on a real login node. The ``%%sbatch`` cell magic
(``%load_ext slurmlab``) submits a cell's script to the current lab.
"""

from __future__ import annotations

import html
import re
import shlex
import warnings
import weakref
from collections.abc import Sequence

import numpy as np
import pandas as pd

from slurmlab.errors import (
    NODE_CONFIG_UNAVAILABLE,
    RequestError,
    SbatchError,
    SlurmlabError,
    warn_at_caller,
)
from slurmlab.policies.base import policy_name
from slurmlab.sim.checkpoint import Checkpoint
from slurmlab.sim.engine import _TASK_RANGE, Simulation, _task_indices
from slurmlab.sim.faults import RandomFailures
from slurmlab.sim.processes import in_record
from slurmlab.sim.result import SimulationResult, squeue_frame
from slurmlab.sim.simulate import check_jobids, check_policy, check_policy_params, slurm_params
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import (
    array_task_str,
    compress_hostlist,
    parse_instant,
    parse_names,
    parse_seconds,
    span_words,
)
from slurmlab.spec.workload import Workload, WorkloadJob, check_exit_code, check_name

__all__ = ["Lab", "current_lab", "let_go"]

#: Commands a newcomer types where sbatch takes a batch script's file name.
_COMMANDS = frozenset(
    ("python", "python3", "srun", "torchrun", "accelerate", "deepspeed", "bash", "sh", "mpirun")
)

#: Lab's own keywords: a close misspelling of one is named as such, not taken for a policy
#: parameter.
_KEYWORDS = (
    "cluster", "policy", "seed", "accounts", "qos", "reservations", "workload", "actions",
    "failures", "random_failures", "origin", "requeue_delay", "slurmctld_start",
)  # fmt: skip

#: scancel's and scontrol's job ids in one string: split at spaces and at commas, but not
#: inside a task list (12_[1-3, 5]); scancel's opt.c ``_xlate_job_step_ids`` splits so too
_JOB_LIST = re.compile(r"[^\s,\[]*\[[^\]]*\]|[^\s,\[]+")


def _job_ids(jobid) -> list:
    """The ids a command names: a string's words (:data:`_JOB_LIST`), a list's items, or
    the one id given."""
    if isinstance(jobid, str):
        return _JOB_LIST.findall(jobid)
    return list(jobid) if isinstance(jobid, list | tuple) else [jobid]


#: slurmctld's words for a job whose user has no association with its account.
_INVALID_ACCOUNT = "Invalid account or account/partition combination specified"

#: The labs in use, oldest first, for %%sbatch and the line magics: weak references, so that
#: the labs a notebook makes again and again are freed as usual; the newest is also held in
#: _NEWEST (``slurmlab.Lab("tiny")``, named by no variable, is the magics' lab) until let go
_LABS: list[weakref.ref[Lab]] = []
_NEWEST: list[Lab] = []


def _request(args: str | Sequence[str]) -> JobSpec:
    """A request from sbatch's command line as typed. A leading ``sbatch`` (the command's own
    name) is dropped. The first word that is no option is the batch script's file name, as
    with sbatch (the Lab reads no file: it names the job); a command there (``python
    train.py``: a word without '.' or '/'), which sbatch would fail to open, is warned about.
    Options after a script name are that script's own arguments, as with sbatch, which is
    rarely what a learner meant: a warning says so too."""
    if isinstance(args, str):
        try:
            words = shlex.split(args)
        except ValueError as exc:  # unbalanced quotes
            raise SbatchError(f"cannot split options {args!r}: {exc}") from None
    else:
        words = _words(args, "Lab.sbatch")
    if words[:1] == ["sbatch"]:
        words = words[1:]
    if not words:
        raise SbatchError(
            "no options and no script: real sbatch would wait for a batch script on its "
            'standard input; give options (lab.sbatch("-N 1 -t 10")) or a script\'s text '
            '(lab.sbatch("#!/bin/bash\\n#SBATCH -t 10\\nsrun python train.py"))'
        )
    spec = JobSpec.from_args(words)
    _check_script_name(spec, words)
    for key, value in spec.other:
        if key != "script-file":
            continue
        name, *rest = value.split()
        if name in _COMMANDS:  # a command, where sbatch takes a script's file name
            warnings.warn(
                f"sbatch: {name!r} stands where sbatch takes the batch script's file name: "
                f"real sbatch looks for a file named {name!r} in the current directory"
                + (f" (with {' '.join(rest)!r} as its arguments)" if rest else "")
                + f" and, finding none, says 'sbatch: error: Unable to open file {name}'; the "
                f"Lab reads no files and submits a job named {spec.job_name!r} that runs for its "
                f"runtime. To run a command, give --wrap={value!r} or the script's text "
                f"('#!/bin/bash\\nsrun {value}')",
                stacklevel=4,
            )
        elif any(w.startswith("-") for w in rest):
            warnings.warn(
                f"sbatch: {' '.join(rest)!r} after the script name {name!r} are the script's own "
                "arguments, not sbatch options (as with sbatch): put sbatch options before the "
                "script name",
                stacklevel=4,
            )
    return spec


def _words(args: Sequence, what: str) -> list[str]:
    """Command-line words given as a list, each as text (a number, a path...); None is no
    word (a value left unset)."""
    bad = [a for a in args if a is None]
    if bad:
        raise SlurmlabError(
            f"{what}: {bad[0]!r} in {list(args)!r} is not a word of sbatch's command line; give "
            'each option and value as text, e.g. ["-N", "2", "-t", "30"], or one string "-N 2 -t 30"'
        )
    return [str(a) for a in args]


def _check_script_name(spec: JobSpec, words: Sequence[str]) -> None:
    """sbatch takes the first word that is neither an option nor an option's value as the
    batch script's file name: an empty word there names no file."""
    for key, value in spec.other:
        if key == "script-file" and (not value or value[0].isspace()):
            raise SbatchError(
                f"Unable to open file '': in the options {list(words)!r} an empty word stands "
                "where sbatch expects an option, so sbatch takes it for the batch script's "
                "file name; remove the empty word (a value with spaces is quoted whole, "
                "with its option: -J 'my job')"
            )


def _spec(script_or_args: str | Sequence[str], args: str | Sequence[str] | None) -> JobSpec:
    """What sbatch reads: a batch script (``#!`` or ``#SBATCH``) with command-line ``args``
    overriding its directives, or sbatch options alone."""
    if args is not None or (
        isinstance(script_or_args, str)
        and (script_or_args.lstrip().startswith("#!") or "#SBATCH" in script_or_args)
    ):
        if args is not None and not isinstance(args, str):
            args = _words(args, "Lab.sbatch: args")
        spec = JobSpec.from_sbatch(str(script_or_args), args)
        if args is not None:
            words = shlex.split(args) if isinstance(args, str) else args
            _check_script_name(spec, words)
        return spec
    return _request(script_or_args)


def _test_only(spec: JobSpec) -> bool:
    return any(key == "test-only" for key, _ in spec.other)


def current_lab() -> Lab:
    """The current Lab, the one ``%%sbatch`` and the line magics act on: the most recently
    created Lab still in use. In a notebook (``%load_ext slurmlab``), a lab deleted (``del
    lab``) or replaced (``lab = slurmlab.Lab(...)`` again) is no longer in use, even while
    IPython's ``Out`` history holds it (:func:`let_go`): the newest lab made before it that
    is still alive is current again."""
    for ref in reversed(_LABS):
        lab = ref()
        if lab is not None:
            return lab
    raise SlurmlabError(
        "no Lab in use (none was made, or the last one was deleted): create one with "
        "lab = slurmlab.Lab(cluster)"
    )


def let_go(lab: Lab) -> None:
    """``lab`` is no longer current: the notebook deleted or replaced it (``%load_ext
    slurmlab`` calls this after each cell for a lab no variable names any more)."""
    _LABS[:] = [ref for ref in _LABS if ref() is not None and ref() is not lab]
    if _NEWEST and _NEWEST[0] is lab:
        _NEWEST.clear()


class Lab:
    """A simulated cluster you drive by hand. ``policy``, ``seed``, ``accounts``, ``qos``,
    ``reservations``, ``requeue_delay``, ``slurmctld_start`` and the policy's parameters as
    in :func:`slurmlab.simulate`.

    ``workload``, ``actions``, ``failures`` and ``random_failures`` (as ``simulate`` takes
    them) play out as the lab advances: their jobs are submitted at their submit times,
    beside the ones you submit. ``origin`` is the calendar time the lab starts at (default:
    the workload's). :meth:`Scenario.lab() <slurmlab.Scenario.lab>` makes a lab of a scenario.

    Time moves only when you move it. Everything that happens at an instant is applied before
    ``advance`` returns, in the engine's same-time order (job ends, arrivals, one scheduling
    pass), so a job you submit after ``advance("5m")`` arrives after that instant's pass, as
    an sbatch typed after the scheduler ran. Each ``sbatch`` gets its own pass, as commands
    typed one after another: a job that fits is running when ``sbatch`` returns. A scenario
    (or ``simulate``) differs on both counts: its jobs submitted at an instant arrive before
    that instant's pass, and share it.
    """

    def __init__(
        self,
        cluster: Cluster | str = "tiny",
        policy="easy",
        *,
        seed: int = 0,
        accounts=(),
        qos=(),
        reservations=(),
        workload: Workload | None = None,
        actions=(),
        failures=(),
        random_failures: RandomFailures | Sequence[RandomFailures] | None = None,
        origin: pd.Timestamp | str | None = None,
        requeue_delay: float | str | None = None,
        slurmctld_start: float = 0.0,
        **params,
    ):
        check_policy(policy, "Lab")
        check_policy_params(policy, params, "Lab()", _KEYWORDS, _KEYWORDS[1:])
        cluster = Cluster.coerce(cluster)
        if policy == "slurm":
            params = {**slurm_params(cluster), **params}
        if workload is not None and not isinstance(workload, Workload):
            raise SlurmlabError(
                f"Lab(workload=...): {type(workload).__name__} is not a slurmlab Workload; "
                "give Scenario.load(PATH).workload, ai_workload(...) or Workload([...])"
            )
        if workload is not None:
            check_jobids(workload, "Lab(workload=...)")
        if origin is None and workload is not None:
            origin = workload.origin
        if origin is not None:
            origin = _origin(origin)
        self.sim = Simulation(
            cluster, policy, seed=seed, policy_params=params, accounts=accounts, qos=qos,
            reservations=reservations, origin=origin, requeue_delay=requeue_delay,
            enforce_time_limit=workload is None or workload.kind != "trace",
            slurmctld_start=slurmctld_start,
        )  # fmt: skip
        if workload is not None:
            self.sim.add_workload(workload)
        self.sim.add_actions(actions)
        self.sim.add_failures(failures, random_failures)
        name = policy if isinstance(policy, str) else policy_name(policy)
        self.result = SimulationResult(self.sim, name, live=True)
        _LABS[:] = [ref for ref in _LABS if ref() is not None] + [weakref.ref(self)]
        _NEWEST[:] = [self]
        if workload is not None or actions or failures or random_failures is not None:
            self._settle()  # (what happens at 0 s has happened: the first jobs run)

    @property
    def now(self) -> float:
        """Simulated seconds since the lab started."""
        return self.sim.now

    @property
    def date(self) -> pd.Timestamp:
        """The lab's calendar time now (its origin plus :attr:`now`)."""
        return self.sim.origin + pd.Timedelta(seconds=self.sim.now)

    @property
    def cluster(self) -> Cluster:
        return self.sim.cluster

    def sbatch(
        self,
        script_or_args: str | Sequence[str],
        *,
        args: str | Sequence[str] | None = None,
        runtime: float | str = 600,
        user: str | None = None,
        exit_code: int = 0,
        checkpoint: Checkpoint | dict | None = None,
    ) -> int | None:
        """Submit now; return the job id. ``runtime`` is how long the job really runs.

        A text starting with ``#!`` or containing ``#SBATCH`` is a batch script; anything
        else is sbatch's command line (``"-N 2 --gres=gpu:2 -t 30"``, or ``"-N 2 train.sh"``
        naming a script file, which names the job: the Lab reads no file; a command such as
        ``"python train.py"`` is warned about, as sbatch would refuse it). ``args`` are
        options given on sbatch's command line: the first argument is then the script, whose
        ``#SBATCH`` lines they override. ``user`` submits as that user (a name; else
        ``--uid``'s, else ``you``); ``exit_code`` is the script's exit status, 0..255
        (non-zero ends the job FAILED). ``checkpoint`` makes the job save its work as it runs (a
        :class:`~slurmlab.Checkpoint`, or ``{"interval": "1h", "write_cost": 60,
        "restart_cost": 120}`` as in a scenario): after a node failure (``lab.fail``) or a
        requeue it resumes from its last checkpoint instead of the beginning.

        With ``--test-only`` nothing is submitted: it prints when and where the job would
        start, as sbatch does (see :meth:`test_only`), and returns None.
        """
        if not isinstance(script_or_args, str | list | tuple):
            raise SlurmlabError(
                f"Lab.sbatch: got {script_or_args!r}; give sbatch options as text "
                '(lab.sbatch("-N 2 -t 30")), a list of words, or a batch script\'s text'
            )
        spec = _spec(script_or_args, args)
        if _test_only(spec):
            print(self.test_only(spec, user=user))
            return None
        if isinstance(checkpoint, dict):
            checkpoint = Checkpoint.from_dict(checkpoint, where="Lab.sbatch: checkpoint")
        return self._submit(spec, runtime, user, exit_code, checkpoint)

    def test_only(self, spec: JobSpec, *, user: str | None = None) -> str:
        """sbatch --test-only's answer for ``spec`` now: ``sbatch: Job N to start at T using P
        processors on nodes X in partition Y`` (N: a job id it uses up, as Slurm does; a
        refusal in the node selection test uses one up too). Running jobs count as ending at
        their limits, advance reservations are kept, pending jobs are not counted (Slurm's
        will-run test, job_will_run)."""
        try:
            found = self.sim.will_run(
                WorkloadJob(spec, submit=self.now, runtime=0, user=self._user(spec, user))
            )
        except RequestError as exc:
            if NODE_CONFIG_UNAVAILABLE in str(exc):  # (real Slurm 22.05: "allocation
                self.sim.use_id()  # failure: ...", and the next job's id is one more)
            raise
        if found is None:
            self.sim.use_id()
            raise RequestError(
                "Requested node configuration is not available (too few of the nodes it may "
                "use are up; sinfo shows which are down or drained)"
            )
        t, nodes, res = found
        if res.whole_node:  # --exclusive: every CPU of its nodes
            procs = int(self.sim.capacity[list(nodes), 0].sum())
        else:
            procs = res.cpus_per_node * len(nodes)
        when = (self.sim.origin + pd.Timedelta(seconds=t)).isoformat()
        names = compress_hostlist([self.sim.node_names[i] for i in nodes])
        return (  # (the id is used up, as real Slurm's test uses it up)
            f"sbatch: Job {self.sim.use_id()} to start at {when} using {procs} processors on "
            f"nodes {names} in partition {res.partition}"
        )

    def _submit(
        self,
        spec: JobSpec,
        runtime: float | str,
        user: str | None,
        exit_code: int,
        checkpoint: Checkpoint | None = None,
    ) -> int:
        seconds = _seconds(runtime, "runtime")
        user = self._user(spec, user)
        exit_code = check_exit_code(exit_code, what="Lab.sbatch: exit_code")
        job = WorkloadJob(
            spec, self.now, seconds, user=user, exit_code=exit_code, checkpoint=checkpoint
        )
        try:
            ids = self.sim.submit(job)
        except RequestError as exc:
            if NODE_CONFIG_UNAVAILABLE in str(exc):
                # slurmctld refuses such a job after giving it an id, in its node selection
                # test: the id is used up (real Slurm 22.05). An unknown partition, account
                # or QOS, or a malformed option, is refused before: no id is used.
                self.sim.use_id()
            if _INVALID_ACCOUNT in str(exc) and "AllowAccounts" not in str(exc):
                raise RequestError(f"{exc}; {self._account_fix(user, spec.account)}") from None
            raise
        self._settle()
        job = self.sim.jobs[ids[0]]
        return int(job.array_job) if job.array_job else job.raw

    def _account_fix(self, user: str, account: str | None) -> str:
        """How to submit as a user with an association: the accounts ``user`` may charge, or
        the users an account lists (the Lab's accounts, as ``sacctmgr show assoc`` lists them)."""
        tree = self.sim.tree
        accounts = list(tree.accounts.values())
        mine = [a.name for a in accounts if user in a.users or not tree.models_users]
        if account in tree.accounts:  # it lists users, not this one
            users = ", ".join(tree.accounts[account].users)
            return (
                f"account {account!r} lists the users {users}: submit as one of them (user=, or --uid= in %%sbatch)"
                + (
                    f", or -A one of the accounts {user!r} may use: {', '.join(mine)}"
                    if mine
                    else ""
                )
            )
        unknown = (
            f"account {account!r} is not one of the Lab's accounts ({', '.join(tree.accounts)}); "
            if account not in (None, "root")
            else ""
        )
        if mine:
            return f"{unknown}pass -A one of the accounts {user!r} may use: {', '.join(mine)}"
        of: dict[str, list[str]] = {}
        for a in accounts:
            for u in a.users:
                of.setdefault(u, []).append(a.name)
        listed = "; ".join(f"{u}: {', '.join(names)}" for u, names in of.items())
        return (
            f"{unknown}{user!r} is in no account's users: submit as one that is (user=, or "
            f"--uid= in %%sbatch: {listed}), "
            f"or list {user!r} in an account's users when making the Lab"
        )

    @staticmethod
    def _user(spec: JobSpec, user: str | None) -> str:
        """The job's user: ``user``, else ``--uid``'s, else ``you`` (both given must agree)."""
        if user is not None and spec.user is not None and user != spec.user:
            raise SlurmlabError(
                f"Lab.sbatch: user={user!r} and --uid={spec.user} disagree; give the user once"
            )
        if user is None:
            user = spec.user or "you"
        return check_name(user, what="Lab.sbatch: user")

    def _settle(self) -> None:
        """Apply every event of the current instant (so a fitting job is running at once)."""
        self.sim.run(until=self.now)
        self._reset()

    def _reset(self) -> None:
        self.result = SimulationResult(self.sim, self.result.policy, live=True)

    def run(self, until: float | str | None = None) -> Lab:
        """Advance to ``until`` (seconds from the lab's start, ``[D-]HH:MM:SS``, ``"2h"``, or a
        date and time such as ``"2026-01-05T10:00"``), or until nothing is left to do."""
        try:
            if until is None:
                self.sim.run()
            else:
                if isinstance(until, np.datetime64):  # (as at=: a column's .values)
                    until = pd.Timestamp(until)
                t = parse_instant(until, self.sim.origin, what="until")
                if t != t:  # (NaT: a job's Start before it started)
                    raise SlurmlabError(
                        f"run(until={until!r}) is no time (a job that has not started has no "
                        "Start): give a time"
                    )
                if t == float("inf"):
                    return self.run()
                if t < self.now:
                    raise SlurmlabError(
                        f"run(until={until!r}): the lab is already at {self.now:.0f} s "
                        f"({self.date.isoformat()}); give a later time"
                    )
                self.sim.run(until=t)
        finally:  # (a refused workload job stops it midway: the views show where it is)
            self._reset()
        return self

    def advance(self, duration: float | str) -> Lab:
        """Advance by ``duration``: seconds, ``[D-]HH:MM:SS``, or ``"2h"``/``"30m"``/``"45s"``."""
        return self.run(until=self.now + _seconds(duration, "duration"))

    def scancel(self, jobid) -> None:
        """Cancel pending or running jobs: an id, an array (all its tasks, or ``12_*``), a task
        (``12_3``) or some tasks (``12_[1-3,5]``); several as scancel takes them (``"12 14"``,
        or ``"12_3,12_5"``: scancel splits ids at commas outside brackets) or as a list
        (``[12, 14]``). As scancel, each id is handled on its own: the jobs that exist are
        cancelled, and an unknown id (or one that ended more than the cluster's MinJobAge
        ago: slurmctld has purged it) is an error raised once the others are done; the
        tasks of a task list that exist are cancelled (job_str_signal), the rest named in the
        error. A job that has ended since is left as it is, with scancel's warning. An id that
        is no job id at all (0, -3, ``abc``) is refused before any job is cancelled, as scancel
        refuses it itself (opt.c, "Invalid job id")."""
        ids = _job_ids(jobid)
        if not ids:
            raise SlurmlabError(f"scancel: no job id in {jobid!r}; give one, e.g. scancel(12)")
        for one in ids:  # (scancel's own check, before it asks slurmctld for any: opt.c)
            lead = re.match(r"\s*[+-]?\d+", str(one))
            if lead is None or int(lead.group()) <= 0:
                raise SlurmlabError(
                    f"scancel: error: Invalid job id {one} (no job was cancelled: scancel "
                    "checks every id before it cancels any); job ids are numbers from 1 up"
                )
        known, errors = [], []
        for one in ids:
            try:
                self.sim._records(one, "scancel")  # noqa: SLF001 (unknown or purged: raises)
                known.append(one)
            except SlurmlabError as exc:
                some = self._existing_tasks(one)
                if some is not None:  # (job_str_signal cancels the tasks that exist)
                    known.append(some)
                    errors.append(f"{exc}; its tasks {some} were cancelled")
                else:
                    errors.append(str(exc))
        for one in known:
            try:
                self.sim.cancel(one)
            except SlurmlabError as exc:  # (it has ended: scancel's error, and it goes on)
                warnings.warn(str(exc), stacklevel=2)
        self._settle()
        if errors:
            done = len(ids) - len(errors)
            said = f" (the other {done} id{'s' * (done != 1)} named: cancelled)" if done else ""
            raise SlurmlabError("; ".join(errors) + said)

    def _existing_tasks(self, key) -> str | None:
        """For a task list of which some tasks do not exist (``12_[1-100]`` of a 6-task
        array), the tasks that do, as one id (``12_[1-5]``); None otherwise."""
        m = _TASK_RANGE.fullmatch(str(key).strip())
        if not m:
            return None
        found = []
        for task in _task_indices(m.group(2)):
            try:
                self.sim._records(f"{m.group(1)}_{task}", "scancel")  # noqa: SLF001
                found.append(task)
            except SlurmlabError:
                continue
        if not found:
            return None
        return f"{m.group(1)}_[{array_task_str(found, None, bitstr_len=0)}]"

    def requeue(self, jobid) -> None:
        """``scontrol requeue``: a running job's run ends REQUEUED and it pends again (a
        finished one too, to run again, while slurmctld holds its record: up to the cluster's
        MinJobAge after its end, 300 s by default); eligible again after the requeue delay.
        Several jobs as scontrol's job_list (``"12,14"``) or a list (:meth:`_each`)."""
        self._each(jobid, "requeue", self.sim.requeue)

    def requeuehold(self, jobid) -> None:
        """``scontrol requeuehold``: :meth:`requeue`, and the job pends held (squeue: "job
        requeued in held state"; sacct: JobHeldUser) until :meth:`release`, as one parks a
        job to fix it before it restarts. Several jobs as scontrol's job_list (``"12,14"``)
        or a list."""
        self._each(jobid, "requeuehold", self.sim.requeue_hold)

    def hold(self, jobid, *, admin: bool = False) -> None:
        """``scontrol hold``: a pending job (an id, an array, some tasks) waits, with reason
        JobHeldUser, until :meth:`release`. A running job runs on (shown with priority 0);
        should it be requeued, it pends held. (In a Lab you are the job's user, so this is a
        user hold; ``admin=True`` holds it as the cluster's administrator, JobHeldAdmin, as
        a scenario's ``actions: hold`` does.) Several jobs as scontrol's job_list
        (``"12,14"``) or a list."""
        self._each(jobid, "hold", lambda one: self.sim.hold(one, admin=admin))

    def release(self, jobid, *, admin: bool = False) -> None:
        """``scontrol release``: a held job (``sbatch -H``, :meth:`hold`) may start again; a
        job that is not held is left as it is. You are the job's user: an administrator's
        hold (JobHeldAdmin, a scenario's ``actions: hold``) is refused, "Access/permission
        denied", as Slurm refuses it, unless you release it as the administrator
        (``admin=True``, as a scenario's ``release`` action). Several jobs as scontrol's
        job_list (``"12,14"``) or a list."""
        self._each(jobid, "release", lambda one: self.sim.release(one, admin=admin))

    def update(
        self,
        jobid,
        *,
        nodes: int | str | None = None,
        time=None,
        partition: str | None = None,
        throttle: int | None = None,
    ) -> None:
        """``scontrol update JobId=... NumNodes=... TimeLimit=... Partition=...``: change a
        job's request and keep its place in the queue (a new sbatch would queue behind the
        jobs submitted since), as :meth:`why_pending`'s suggestions are made.

        ``nodes`` (NumNodes) changes a pending job's minimum node count and keeps its
        maximum (``-N 3`` updated to ``nodes=1`` is ``-N 1-3``; above the maximum is refused,
        ``nodes="4-4"`` sets both); ``partition`` moves a pending job; ``time`` (TimeLimit,
        read as ``-t``: ``"1:00:00"``, ``"30"`` minutes, ``"UNLIMITED"``, ``"+15"``/``"-15"``
        relative) is lowered for a pending or running job (a running one then ends at its
        start plus the new limit if it has not finished: TIMEOUT), or raised for a pending
        one up to its partition's MaxTime: you are the job's user, and only an operator may
        raise it further or raise a running job's. Slurm refuses the rest, and so does
        this, with scontrol's words (rules in :mod:`slurmlab.sim.updates`). Several jobs as
        scontrol's job_list (``"12,14"``), an array, or a list. ``throttle``
        (ArrayTaskThrottle) sets an array's %N: at most that many of its tasks run at once
        (0: no limit), alone in its update; through one task it changes the %N only for the
        task keeping the array's JobID (or all of the pending record's tasks): other pending
        tasks named are split off their record, as in Slurm 22.05. A change of ``nodes`` names one job: one id, and
        not an array of several records (scontrol's ``_is_single_job``).
        """
        if nodes is not None:
            self._single_job(jobid)
        self._each(
            jobid,
            "update",
            lambda one: self.sim.update(
                one, nodes=nodes, time_limit=time, partition=partition, throttle=throttle
            ),
        )

    def _single_job(self, jobid) -> None:
        """scontrol resizes one job only (update_job.c ``_is_single_job``): a NumNodes change
        naming several ids, or an array id whose tasks are in several records (some started
        or split off its pending record), is refused before anything changes."""
        ids = _job_ids(jobid)
        if len(ids) != 1 or (isinstance(ids[0], str) and "[" in ids[0]):
            shown = jobid if isinstance(jobid, str) else ",".join(map(str, ids))
            raise SlurmlabError(
                f"scontrol update JobId={shown} NumNodes=...: Invalid job ID {shown} (a node "
                "count is changed for one job at a time: update each alone)"
            )
        jobs = self.sim._records(ids[0], "scontrol update")  # noqa: SLF001
        records = sum(not j.in_rec for j in jobs) + any(j.in_rec for j in jobs)
        if records > 1:
            raise SlurmlabError(
                f"scontrol update JobId={ids[0]} NumNodes=...: Job resizing not supported for "
                f"job arrays (its tasks are in {records} records: update one task, "
                f"JobId={ids[0]}_N)"
            )

    def _each(self, jobid, command: str, act) -> None:
        """Apply ``act`` to each job of scontrol's job_list (ids separated by commas or
        spaces, ``12_[1-3,5]`` kept whole) or of a list, each on its own as scontrol's
        ``_next_job_id`` loop does: an id refused (unknown, purged, a job already ended, a
        pending one requeued) does not stop the others, and the refusals are raised together
        once they are done, as scontrol reports each."""
        ids = _job_ids(jobid)
        if not ids:
            raise SlurmlabError(f"scontrol {command}: no job id in {jobid!r}; give one, e.g. 12")
        refused = []
        try:
            for one in ids:  # (scontrol's _next_job_id: each id on its own, unknown ones too)
                try:
                    self.sim._records(one, f"scontrol {command}")  # noqa: SLF001
                    act(one)
                except SlurmlabError as exc:
                    if len(ids) == 1:
                        raise
                    refused.append(str(exc))
        finally:  # (what did change is scheduled at once: an array's tasks not refused)
            self._settle()
        if refused:
            done = len(ids) - len(refused)
            raise SlurmlabError(
                "; ".join(refused) + f" ({done} of the {len(ids)} jobs named "
                f"{'were' if done != 1 else 'was'} done)"
            )

    def reserve(
        self,
        name: str,
        duration: float | str,
        *,
        start: float | str = 0,
        nodes: str | Sequence[str] | None = None,
        node_count: int | None = None,
        users=(),
        accounts=(),
        flags=(),
        partition: str | None = None,
    ) -> tuple[str, ...]:
        """``scontrol create reservation`` now: ``start`` is counted from now (scontrol's
        ``StartTime=now+1hour`` is ``start="1h"``; ``0``, the default, is now), ``duration``
        as in :class:`slurmlab.Reservation` (``"2h"``, ``"1:00:00"``; a bare number is
        seconds). ``nodes`` or ``node_count`` (the lowest-named nodes free over the window),
        ``partition`` (scontrol's ``PartitionName=``: where ``node_count`` takes its nodes;
        by default the default partition's), ``users`` or ``accounts`` allowed in it,
        ``flags=["maint"]`` for a maintenance
        window. Refused as Slurm refuses it: nodes another reservation holds over the window,
        or a running job holds past its start by its time limit ("Requested nodes are busy";
        IGNORE_JOBS is not modelled). Pending jobs are planned around it from the next pass;
        jobs submit into it with ``--reservation=NAME``. Returns the nodes it holds."""
        from slurmlab.spec.qos import Reservation

        offset = parse_seconds(start, what=f"reservation {name!r} start (from now)")
        r = Reservation(
            name, self.now + offset, duration, nodes=nodes or (), node_count=node_count,
            users=users, accounts=accounts, flags=flags, partition=partition,
        )  # fmt: skip
        held = self.sim.create_reservation(r)
        self._settle()
        return held

    def drain(self, nodes: str | Sequence[str]) -> None:
        """``scontrol update NodeName=... State=DRAIN``: running jobs finish, no new ones.
        ``nodes`` is a node name, a hostlist (``gpu[1-3],gpu7``) or a list of names."""
        for name in self._nodes(nodes):
            self.sim.set_node_state(name, "DRAIN")
        self._settle()

    def resume(self, nodes: str | Sequence[str]) -> None:
        """``scontrol update NodeName=... State=RESUME``: the nodes take jobs again."""
        for name in self._nodes(nodes):
            self.sim.set_node_state(name, "IDLE")
        self._settle()

    def fail(self, nodes: str | Sequence[str], down_for: float | str | None = None) -> None:
        """The nodes fail now: their jobs end NODE_FAIL (requeued if they may be); they come
        back after ``down_for`` (seconds, ``"1h"``...), or stay down."""
        seconds = None if down_for is None else parse_seconds(down_for, what="down_for")
        for name in self._nodes(nodes):
            self.sim.fail_node(name, seconds)
        self._settle()

    def _nodes(self, nodes: str | Sequence[str]) -> tuple[str, ...]:
        """The node names a hostlist (or a list of them) gives, every one checked before any
        node changes, as scontrol checks them."""
        names = parse_names(nodes, what="NodeName", hostlist_ok=True)
        unknown = [n for n in names if n not in self.sim.node_index]
        if unknown or not names:
            raise SlurmlabError(
                f"Invalid node name specified: {compress_hostlist(unknown) or nodes!r} "
                f"(nodes: {compress_hostlist(self.sim.node_names)})"
            )
        return names

    def squeue(self) -> pd.DataFrame:
        """The queue now: running and pending jobs, reasons, ``squeue --start`` times and
        the nodes planned for them (SCHEDNODES)."""
        return self.result.squeue()

    def sinfo(self) -> pd.DataFrame:
        """Partitions by node state now (idle, mix, alloc, down* (failed), drain...)."""
        return self.result.sinfo()

    def node_usage(self) -> pd.DataFrame:
        """Each node now, as ``scontrol show node``: its state and the CPUs, memory and GPUs
        its running jobs hold, and their JobIDs (see
        :meth:`SimulationResult.node_usage <slurmlab.sim.result.SimulationResult.node_usage>`,
        which also takes ``at=``)."""
        return self.result.node_usage()

    def sacct(self, duplicates: bool = False) -> pd.DataFrame:
        """Every job so far with sacct's columns (``duplicates=True``: every run)."""
        return self.result.sacct(duplicates)

    def why_pending(self, jobid) -> str:
        """Why a job waits now, in words, with the smallest change that would let it start."""
        return self.result.why_pending(jobid)

    def sprio(self) -> pd.DataFrame:
        """``sprio -l`` now: each pending job's priority and its weighted factors."""
        return self.result.sprio()

    def sshare(self) -> pd.DataFrame:
        """``sshare -a -l`` now: shares, usage and fair-share factors (multifactor clusters)."""
        return self.result.sshare()

    def squeue_text(self, *, array: bool = False, start: bool = False, long: bool = False) -> str:
        """:meth:`squeue` as squeue prints it (an array's pending tasks as one line, as plain
        squeue; ``array=True``: one line each, as ``squeue -r``; ``start=True``: as
        ``squeue --start``; ``long=True``: as ``squeue -l``)."""
        return self.result.squeue_text(array=array, start=start, long=long)

    def sinfo_text(self) -> str:
        """:meth:`sinfo` as sinfo prints it."""
        return self.result.sinfo_text()

    def sacct_text(
        self,
        fields: str | None = None,
        *,
        duplicates: bool = False,
        array: bool = False,
        jobs: str | list | None = None,
        starttime=None,
        parsable: bool = False,
        parsable2: bool = False,
    ) -> str:
        """:meth:`sacct` as sacct prints it: its default columns, or ``--format``-style
        ``fields`` (``"JobID,State,Start,End,Elapsed"``); an array's tasks that have not
        started as its one pending record (``12_[3-9%2]``), as sacct lists them
        (``array=True``: one line per task); ``jobs="12,14"``: those only, as ``sacct -j``;
        jobs that ended before ``starttime`` (``sacct -S``; by default today's midnight, as
        sacct) left out; ``parsable``/``parsable2``: ``sacct -p``/``-P``
        (see :meth:`SimulationResult.sacct_text`)."""
        return self.result.sacct_text(
            fields,
            duplicates=duplicates,
            array=array,
            jobs=jobs,
            starttime=starttime,
            parsable=parsable,
            parsable2=parsable2,
        )

    def srun_env(self, jobid) -> pd.DataFrame:
        """The environment srun gives each task of a running job (see :func:`slurmlab.srun_env`)."""
        return self.result.srun_env(jobid)

    def _pending(self) -> str:
        """The pending jobs as squeue counts them: an array's tasks still in its pending
        record are one (``3 pending (40 array tasks)``: two jobs and a record of 40 tasks),
        a job waiting in several partitions is one."""
        sim = self.sim
        ids = {j for _key, j in sim.queue} | sim.waiting
        jobs = [sim.jobs[i] for i in ids]
        tasks = [j for j in jobs if in_record(j)]
        records = {j.array_id for j in tasks}
        count, held = len(ids) - len(tasks) + len(records), len(tasks)
        if any(j.array_id in records and not in_record(j) for j in jobs):
            # squeue folds a record's tasks split off it (requeued, updated) back into it
            # when they pend with its name and partition (print.c
            # _combine_pending_array_tasks): count the lines squeue shows, and those tasks
            lines = squeue_frame(sim, collapse=True)
            count, shown = int((lines["ST"] == "PD").sum()), set(lines["JOBID"])
            held += sum(
                1 for j in jobs if j.array_id in records and not in_record(j) and j.key not in shown
            )
        return f"{count} pending" + (f" ({held} array tasks)" if held else "")

    def __repr__(self) -> str:
        return (
            f"Lab({self.cluster.name}, policy={self.result.policy}, t={self.now:.0f}s "
            f"({self.date.isoformat()}), {len(self.sim.running)} running, {self._pending()})"
        )

    def _repr_html_(self) -> str:
        return (
            f"<b>Lab</b> {html.escape(self.cluster.name)} &middot; policy "
            f"{html.escape(str(self.result.policy))} &middot; {self.date.isoformat(sep=' ')} "
            f"(t={self.now:,.0f} s) &middot; {len(self.sim.running)} running, {self._pending()}"
        )


#: A unit written as a word of its own after a number (``--runtime 2 hours``).
_UNIT_WORD = re.compile(r"(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)", re.I)


def _origin(value) -> pd.Timestamp:
    """``Lab(origin=...)``: a date and time (text or a Timestamp)."""
    try:
        origin = pd.Timestamp(value)
    except (ValueError, TypeError):
        origin = None
    if origin is None or origin is pd.NaT or origin.tzinfo is not None:
        raise SlurmlabError(
            f"Lab(origin={value!r}): not a date and time without a time zone; give the "
            "calendar time the lab starts at, e.g. origin='2026-01-05T08:00'"
        )
    return origin


def _seconds(value, what: str) -> float:
    """:func:`parse_seconds`, with a warning for a two-part ``1:30``: read as M:S, 1 min 30 s,
    as ``sbatch -t`` reads it, where ``advance("1:30")`` most likely means 1 h 30 min (a
    scenario's own times warn alike)."""
    seconds = parse_seconds(value, what=what)
    match = re.fullmatch(r"\s*(\d+):(\d+)\s*", value) if isinstance(value, str) else None
    if match:
        m, s = (int(g) for g in match.groups())
        as_read, meant = span_words(m, "min", s, "s"), span_words(m, "h", s, "min")
        warn_at_caller(
            f"{what} {value.strip()!r} is read as {as_read} (M:S, as sbatch -t reads it); "
            f"write '{m}:{s:02d}:00' for {meant}, or {seconds:g} for {as_read}"
        )
    return seconds


def _check_runtime(runtime: str, after: str | None) -> None:
    """``%%sbatch --runtime``'s value parses whole, and its unit is not the next word (which
    sbatch would take for the batch script's file name, leaving ``2`` seconds)."""
    if after is not None and re.fullmatch(r"\d+(\.\d+)?", runtime) and _UNIT_WORD.fullmatch(after):
        raise SlurmlabError(
            f"--runtime {runtime} {after}: the duration is one word (the rest of the line is "
            f"sbatch's options, and {after!r} would be the script's name); write --runtime="
            f"{runtime}{after[0].lower()}: seconds (e.g. 3600), [D-]HH:MM:SS (e.g. 2:00:00) "
            "or a number with s/m/h/d (e.g. 2h)"
        )
    parse_seconds(runtime, what="--runtime")


def sbatch_magic(line: str, cell: str) -> None:
    """``%%sbatch [--runtime DURATION] [sbatch options]``: submit the cell's script to the
    current lab, as ``sbatch [options] script`` would (options override ``#SBATCH`` lines).

    Prints ``Submitted batch job N`` (with ``--parsable``, as an option or an ``#SBATCH``
    line: ``N`` alone), or sbatch's ``sbatch: error: Batch job submission failed: ...`` line
    for a request sbatch would reject (the cell submits nothing).
    """
    import shlex
    import sys

    try:
        try:
            words = shlex.split(line)
        except ValueError as exc:  # unbalanced quotes
            raise SlurmlabError(f"%%sbatch {line}: {exc}") from None
        runtime: float | str = 600
        options: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            if word == "--runtime" or word.startswith("--runtime="):
                if word == "--runtime":
                    i += 1
                    runtime = words[i] if i < len(words) else ""
                    if not runtime:
                        raise SlurmlabError("--runtime needs a duration, e.g. --runtime 2h")
                else:
                    runtime = word.split("=", 1)[1]
                _check_runtime(runtime, words[i + 1] if i + 1 < len(words) else None)
            else:
                options.append(word)
            i += 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            spec = _spec(cell, options)
            named = [value for key, value in spec.other if key == "script-file"]
            if named:  # (sbatch would run that file, and read no script from its input)
                file, _, after = named[-1].partition(" ")
                also = (
                    f"; the words after it ({after}) are the script's arguments, not sbatch "
                    "options: put options before it"
                    if after.strip()
                    else ""
                )
                warnings.warn(
                    f"{file!r} stands where sbatch takes the batch script's file name; "
                    f"%%sbatch submits the cell's script instead, in a job named after it "
                    f"({spec.job_name!r}){also}",
                    stacklevel=2,
                )
            lab = current_lab()
            if _test_only(spec):  # sbatch prints its estimate on stderr and submits nothing
                parse_seconds(runtime, what="--runtime")  # (checked all the same)
                estimate = lab.test_only(spec)
            else:
                jobid = lab._submit(spec, runtime, user=None, exit_code=0)  # noqa: SLF001
    except SlurmlabError as exc:
        # slurmctld's refusals are "Batch job submission failed"; a bad option is sbatch's own
        failed = "Batch job submission failed: " if isinstance(exc, RequestError) else ""
        print(f"sbatch: error: {failed}{exc}", file=sys.stderr)
        return
    for w in caught:  # as sbatch prints them, not as Python warnings pointing into IPython
        print(f"sbatch: warning: {w.message}", file=sys.stderr)
    if _test_only(spec):
        print(estimate, file=sys.stderr)
        return
    parsable = any(key == "parsable" for key, _ in spec.other)
    print(jobid if parsable else f"Submitted batch job {jobid}")
