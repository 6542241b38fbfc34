"""Write a random scenario of mixed features for the real-Slurm cluster (a seed, a file).

The hand-made scenarios each check one rule; a mix drawn at random checks how the rules
meet: jobs of every shape on both partitions (GPUs by count and whole nodes, ``--exclusive``,
``-N MIN-MAX``, memory-bound CPU jobs, arrays with a throttle), three users of two accounts,
a few ``--qos=high`` jobs, dependencies on earlier jobs (``afterok`` / ``afterany``; a failed
parent leaves an afterok child never satisfied, which ``kill_invalid_depend`` cancels), and
scripted holds, releases and cancels of pending jobs. Run times and limits keep the whole
scenario within a few minutes of real time, and every limit exceeds its run time by at least
15 s (no job times out: real Slurm kills those up to 30 s late, a known simplification).
CPU jobs of ``-n`` without ``-N`` may be spread over several nodes when no one node holds
their tasks (in ``mix-7``: 32 tasks over cpu[1-2], 20 and 24 CPUs free), as the simulator
now does (``slurmlab/policies/placement.py``, ``spread_nodes``).

Usage::

    python tools/realslurm/mix_scenario.py --seed 7 --jobs 40 \\
        > datasets/realslurm/scenarios/mix-7.yaml

The output is deterministic for a seed (Python's ``random.Random``); only the standard
library is used, so it runs with the recorder's Python.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

USERS = {"alice": "llm", "bob": "llm", "carol": "vision"}

#: (weight, partition, sbatch options) of each kind of job; {k} and {m} are an array's last
#: index and throttle.
KINDS = (
    (6, "gpu", "-n 1 --gres=gpu:1"),
    (5, "gpu", "-n 2 --gres=gpu:2"),
    (4, "gpu", "-N 1 --gres=gpu:4"),
    (2, "gpu", "-N 2 --gres=gpu:4"),
    (1, "gpu", "-N 1 --exclusive"),
    (2, "gpu", "-N 1-2 --gres=gpu:2"),
    (2, "gpu", "-n 1 --gres=gpu:1 --array=0-{k}%{m}"),
    (3, "cpu", "-n 8"),
    (3, "cpu", "-n 16"),
    (2, "cpu", "-n 32"),
    (1, "cpu", "-N 2 -n 64"),
    (1, "cpu", "-n 4 --mem=90000"),
)

#: More kinds (``--more-kinds``; without it a seed's output is unchanged): GPUs per job and
#: per task, tasks per node, ``--time-min``, a job that may run in either partition,
#: ``--nice``, ``--begin``; with it dependencies may be ``afternotok`` too, a few jobs are
#: ``-J grp --dependency=singleton``, and one pending job's limit is cut by ``scontrol update``.
MORE_KINDS = (
    (2, "gpu", "--gpus=3"),
    (2, "gpu", "-n 2 --gpus-per-task=1"),
    (2, "gpu", "-N 2 --ntasks-per-node=2 --gres=gpu:1"),
    (2, "cpu", "-N 1 --ntasks-per-node=12"),
    (2, "gpu", "-n 1 --gres=gpu:1 --time-min={tmin}"),
    (1, "gpu,cpu", "-n 4"),
    (1, "gpu", "-n 1 --gres=gpu:1 --nice=1000"),
    (1, "cpu", "-n 8 --begin=now+{b}"),
)

HEADER = """\
name: {name}
description: >-
  A random mix (tools/realslurm/mix_scenario.py --seed {seed} --jobs {jobs}): jobs of every
  shape on both partitions (GPUs by count and whole nodes, --exclusive, -N MIN-MAX,
  memory-bound CPU jobs, throttled arrays) from three users of two accounts, a few
  --qos=high, afterok/afterany dependencies on earlier jobs (a failed parent leaves an
  afterok child that kill_invalid_depend cancels), and holds, releases and cancels of
  pending jobs. Every limit exceeds its run time by 15 s or more.
cluster:
  slurm_conf: ../slurm.conf
  gres_conf: ../gres.conf
policy: {{name: slurm}}
accounts:
  - {{name: llm, shares: 70, users: [alice, bob]}}
  - {{name: vision, shares: 30, users: [carol]}}
qos:
  - {{name: normal, priority: 0}}
  - {{name: high, priority: 1000}}
  - {{name: low, priority: 0}}
jobs:
"""


def generate(seed: int, jobs: int, span: int = 150, more: bool = False) -> str:
    """The scenario's YAML text for ``seed``: ``jobs`` submissions between 2 s and ``span``
    (``more``: with MORE_KINDS too)."""
    rng = random.Random(seed)
    kinds = KINDS + MORE_KINDS if more else KINDS
    weights = [k[0] for k in kinds]
    submits = sorted(rng.randint(2, span) for _ in range(jobs))
    lines, plain, failed, entries = [], [], set(), []
    for n, submit in enumerate(submits):
        _w, partition, opts = rng.choices(kinds, weights)[0]
        user = rng.choice(sorted(USERS))
        jid = f"j{n:02d}"
        runtime = rng.randint(15, 150)
        limit = math.ceil((runtime + rng.randint(15, 150)) / 60)
        if "{k}" in opts:
            opts = opts.format(k=rng.randint(2, 5), m=rng.randint(1, 2))
            runtime = rng.randint(15, 60)
            limit = math.ceil((runtime + rng.randint(15, 60)) / 60)
        if "{tmin}" in opts:  # backfill may start it with its limit cut to --time-min
            tmin = math.ceil((runtime + 20) / 60)
            limit = max(limit, tmin + 2)
            opts = opts.format(tmin=tmin)
        if "{b}" in opts:
            opts = opts.format(b=rng.randint(20, 60))
        args = f"{opts} -t {limit}:00 -p {partition} -A {USERS[user]}"
        if rng.random() < 0.12:
            args += " --qos=high"
        if plain and rng.random() < 0.15:
            parent = rng.choice(plain[-8:])
            kind = "afterok" if rng.random() < 0.6 else "afterany"
            if more and rng.random() < 0.3:
                kind = "afternotok"
            args += f" --dependency={kind}:{parent}"
        elif more and "--array" not in opts and rng.random() < 0.1:
            args += " -J grp --dependency=singleton"
        exit_code = 1 if rng.random() < 0.08 else 0
        if exit_code:
            failed.add(jid)
        if "--array" not in opts:
            plain.append(jid)
        entry = {"id": jid, "submit": submit, "runtime": runtime, "user": user, "args": args}
        if exit_code:
            entry["exit_code"] = 1
        entries.append(entry)
    for e in entries:
        extra = f", exit_code: {e['exit_code']}" if "exit_code" in e else ""
        lines.append(
            f"  - {{id: {e['id']}, submit: {e['submit']}, runtime: {e['runtime']}{extra}, "
            f'user: {e["user"]}, args: "{e["args"]}"}}'
        )
    actions = _actions(rng, entries, span)
    if more:
        actions = sorted(
            actions + _updates(rng, entries, span),
            key=lambda line: int(line.split("at: ")[1].split(",")[0]),
        )
    text = HEADER.format(name=f"mix-{seed}", seed=seed, jobs=jobs) + "\n".join(lines) + "\n"
    if actions:
        text += "actions:\n" + "\n".join(actions) + "\n"
    return text


def _actions(rng: random.Random, entries: list[dict], span: int) -> list[str]:
    """Holds (released 30-60 s later), and cancels of a job and of an array task, each a few
    seconds after the job's submission, on jobs submitted in the busy second half."""
    late = [e for e in entries if e["submit"] > span // 2 and "--dependency" not in e["args"]]
    rng.shuffle(late)
    out = []
    plain = [e for e in late if "--array" not in e["args"]]
    arrays = [e for e in late if "--array" in e["args"]]
    for e in plain[:2]:
        at = e["submit"] + rng.randint(1, 4)
        out.append(f"  - {{at: {at}, action: hold, job: {e['id']}}}")
        out.append(f"  - {{at: {at + rng.randint(30, 60)}, action: release, job: {e['id']}}}")
    for e in plain[2:3]:
        out.append(f"  - {{at: {e['submit'] + rng.randint(1, 4)}, action: cancel, job: {e['id']}}}")
    for e in arrays[:1]:
        out.append(
            f"  - {{at: {e['submit'] + rng.randint(1, 4)}, action: cancel, job: {e['id']}_1}}"
        )
    return sorted(out, key=lambda line: int(line.split("at: ")[1].split(",")[0]))


def _updates(rng: random.Random, entries: list[dict], span: int) -> list[str]:
    """``scontrol update TimeLimit=`` of two jobs a few seconds after their submission (the
    limit cut to the run time + 20 s or more, in minutes), if that is shorter."""
    out = []
    late = [
        e
        for e in entries
        if e["submit"] > span // 3 and "--array" not in e["args"] and "--time-min" not in e["args"]
    ]
    rng.shuffle(late)
    for e in late:
        limit = int(e["args"].split(" -t ")[1].split(":")[0])
        new = math.ceil((e["runtime"] + 20) / 60)
        if new < limit:
            out.append(
                f"  - {{at: {e['submit'] + rng.randint(1, 4)}, action: update, "
                f'job: {e["id"]}, time: "{new}:00"}}'
            )
        if len(out) == 2:
            break
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=40)
    ap.add_argument("--more-kinds", action="store_true", help="add MORE_KINDS (see there)")
    args = ap.parse_args(argv)
    sys.stdout.write(generate(args.seed, args.jobs, more=args.more_kinds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
