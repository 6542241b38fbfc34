"""``Lab``: an interactive simulated cluster for notebooks.

Submit with ``lab.sbatch(...)`` (a script or sbatch options), move time with
``lab.advance("2h")`` or ``lab.run(until=...)``, and look with ``squeue()``,
``sinfo()`` and ``sacct()`` as on a real login node. The ``%%sbatch`` cell magic
(``%load_ext slurmlab``) submits a cell's script to the current lab.
"""

from __future__ import annotations

import shlex
import warnings
from collections.abc import Sequence

import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.sim.engine import Simulation
from slurmlab.sim.result import SimulationResult
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import parse_instant, parse_seconds
from slurmlab.spec.workload import WorkloadJob

__all__ = ["Lab", "current_lab"]

_CURRENT: list[Lab] = []


def _request(args: str | Sequence[str]) -> JobSpec:
    """A request from sbatch's command line as typed. A leading ``sbatch`` (the command's own
    name) is dropped. Options after a script name are that script's own arguments, as with
    sbatch, which is rarely what a learner meant: a warning says so."""
    words = shlex.split(args) if isinstance(args, str) else [str(a) for a in args]
    if words[:1] == ["sbatch"]:
        words = words[1:]
    spec = JobSpec.from_args(words)
    for key, value in spec.other:
        name, *rest = value.split() if key == "script-file" else [""]
        if any(w.startswith("-") for w in rest):
            warnings.warn(
                f"sbatch: {' '.join(rest)!r} after the script name {name!r} are the script's own "
                "arguments, not sbatch options (as with sbatch): put sbatch options before the "
                "script name",
                stacklevel=3,
            )
    return spec


def current_lab() -> Lab:
    """The most recently created Lab (the one ``%%sbatch`` submits to)."""
    if not _CURRENT:
        raise SlurmlabError("no Lab yet: create one with lab = slurmlab.Lab(cluster)")
    return _CURRENT[-1]


class Lab:
    """A simulated cluster you drive by hand. ``policy`` as in :func:`slurmlab.simulate`."""

    def __init__(
        self,
        cluster: Cluster | str = "tiny",
        policy="easy",
        *,
        seed: int = 0,
        accounts=(),
        qos=(),
        reservations=(),
        **params,
    ):
        cluster = Cluster.coerce(cluster)
        if policy == "slurm":
            from slurmlab.sim.simulate import slurm_params

            params = {**slurm_params(cluster), **params}
        self.sim = Simulation(
            cluster, policy, seed=seed, policy_params=params, accounts=accounts, qos=qos,
            reservations=reservations,
        )  # fmt: skip
        self.result = SimulationResult(self.sim, policy if isinstance(policy, str) else "custom")
        _CURRENT.append(self)

    @property
    def now(self) -> float:
        """Simulated seconds since the lab started."""
        return self.sim.now

    @property
    def cluster(self) -> Cluster:
        return self.sim.cluster

    def sbatch(
        self,
        script_or_args: str | Sequence[str],
        *,
        args: str | Sequence[str] | None = None,
        runtime: float | str = 600,
        user: str = "you",
        exit_code: int = 0,
    ) -> int:
        """Submit now; return the job id. ``runtime`` is how long the job really runs.

        A text starting with ``#!`` or containing ``#SBATCH`` is a batch script; anything
        else is sbatch options (``"-N 2 --gres=gpu:2 -t 30"``). ``args`` are options given
        on sbatch's command line: the first argument is then the script, whose ``#SBATCH``
        lines they override.
        """
        if args is not None or (
            isinstance(script_or_args, str)
            and (script_or_args.lstrip().startswith("#!") or "#SBATCH" in script_or_args)
        ):
            spec = JobSpec.from_sbatch(str(script_or_args), args)
        else:
            spec = _request(script_or_args)
        seconds = parse_seconds(runtime, what="runtime")
        ids = self.sim.submit(
            WorkloadJob(spec, submit=self.now, runtime=seconds, user=user, exit_code=exit_code)
        )
        self._settle()
        job = self.sim.jobs[ids[0]]
        return int(job.array_job) if job.array_job else ids[0]

    def _settle(self) -> None:
        """Apply every event of the current instant (so a fitting job is running at once)."""
        self.sim.run(until=self.now)
        self._reset()

    def _reset(self) -> None:
        self.result = SimulationResult(self.sim, self.result.policy)

    def run(self, until: float | str | None = None) -> Lab:
        """Advance to ``until`` (seconds from the lab's start, ``[D-]HH:MM:SS``, ``"2h"``, or a
        date and time such as ``"2026-01-05T10:00"``), or until nothing is left to do."""
        if until is None:
            self.sim.run()
        else:
            t = parse_instant(until, self.sim.origin, what="until")
            if t == float("inf"):
                return self.run()
            if t < self.now:
                raise SlurmlabError(f"run(until={until!r}): the lab is already at {self.now:.0f} s")
            self.sim.run(until=t)
        self._reset()
        return self

    def advance(self, duration: float | str) -> Lab:
        """Advance by ``duration``: seconds, ``[D-]HH:MM:SS``, or ``"2h"``/``"30m"``/``"45s"``."""
        return self.run(until=self.now + parse_seconds(duration, what="duration"))

    def scancel(self, jobid) -> None:
        """Cancel a pending or running job: an id, an array (all its tasks), a task
        (``12_3``) or some tasks (``12_[1-3,5]``). A job that has already ended is left as
        it is, with scancel's warning."""
        jobs = self.sim._lookup(jobid)  # noqa: SLF001 (raises for an unknown id)
        if all(j.state not in ("PENDING", "RUNNING") for j in jobs):
            warnings.warn(
                f"scancel: error: Kill job error on job id {jobid}: Job/step already "
                "completing or completed",
                stacklevel=2,
            )
        self.sim.cancel(jobid)
        self._settle()

    def requeue(self, jobid) -> None:
        """``scontrol requeue``: a running job's run ends REQUEUED and it pends again (a
        finished one too, to run again); eligible again after the requeue delay."""
        self.sim.requeue(jobid)
        self._settle()

    def drain(self, node: str) -> None:
        """``scontrol update NodeName=... State=DRAIN``: running jobs finish, no new ones."""
        self.sim.set_node_state(node, "DRAIN")
        self._settle()

    def resume(self, node: str) -> None:
        """``scontrol update NodeName=... State=RESUME``: the node takes jobs again."""
        self.sim.set_node_state(node, "IDLE")
        self._settle()

    def fail(self, node: str, down_for: float | str | None = None) -> None:
        """The node fails now: its jobs end NODE_FAIL (requeued if they may be); it comes
        back after ``down_for`` (seconds, ``"1h"``...), or stays down."""
        seconds = None if down_for is None else parse_seconds(down_for, what="down_for")
        self.sim.fail_node(node, seconds)
        self._settle()

    def squeue(self) -> pd.DataFrame:
        """The queue now: running and pending jobs, reasons, ``squeue --start`` times."""
        return self.result.squeue()

    def sinfo(self) -> pd.DataFrame:
        """Partitions by node state now (idle, mix, alloc, down, drain)."""
        return self.result.sinfo()

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

    def __repr__(self) -> str:
        return (
            f"Lab({self.cluster.name}, policy={self.result.policy}, t={self.now:.0f}s, "
            f"{len(self.sim.running)} running, {len(self.sim.queue) + len(self.sim.waiting)} pending)"
        )


def sbatch_magic(line: str, cell: str) -> None:
    """``%%sbatch [--runtime DURATION] [sbatch options]``: submit the cell's script to the
    current lab, as ``sbatch [options] script`` would (options override ``#SBATCH`` lines).

    Prints ``Submitted batch job N``, or sbatch's ``sbatch: error: Batch job submission
    failed: ...`` line for a request sbatch would reject (the cell submits nothing).
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
        rest = iter(words)
        for word in rest:
            if word == "--runtime":
                runtime = next(rest, "")
                if not runtime:
                    raise SlurmlabError("--runtime needs a duration, e.g. --runtime 2h")
            elif word.startswith("--runtime="):
                runtime = word.split("=", 1)[1]
            else:
                options.append(word)
        jobid = current_lab().sbatch(cell, args=options, runtime=runtime)
    except SlurmlabError as exc:
        print(f"sbatch: error: Batch job submission failed: {exc}", file=sys.stderr)
        return
    print(f"Submitted batch job {jobid}")
