"""Check ``why_pending``'s claims by brute force: replay random Lab sessions, and for each
pending job at a sampled moment make each small change it could make (fewer nodes, a
shorter time limit, another partition) with ``lab.update`` in a replay of its own, and see
whether the job starts sooner than it would unchanged.

"Now" is what the hints promise: the job starts at the moment, or by the next backfill
cycle under ``slurm`` (bf_interval). "Sooner" at all: its start, with every job run to its
end, comes before its start unchanged.

    PYTHONPATH=$PWD .venv/bin/python tools/why_pending_check.py [SEEDS] [--verbose] [--exact]

prints the rates: false "no small change" (a change would start it now; would start it
sooner at all, and said to start it sooner by none: counted by kind, :func:`kinds`), and
false promises (a change said to start it now that does not, or said to start it sooner
if nothing else changes that does not). ``--exact``: every job
runs for its whole time limit, as the explanation's picture has it (otherwise jobs that end
early let a change start sooner where no explanation made at the moment could know it).

Jobs held by a QOS/association limit (:func:`check_limit`) are counted apart: whether the
explanation says when the limit lets them start and when they start, whether that start
comes true in the replay (with ``--exact``, within a backfill cycle either way; else by
then), and its changes that would start them now. ``--limits``: every session has a QOS
with a limit, and most jobs use it.
"""

from __future__ import annotations

import contextlib
import random
import re
import sys
import warnings
from collections import Counter

from slurmlab import Lab, Qos
from slurmlab.errors import SlurmlabError

_UPDATE = re.compile(r"lab\.update\(([^,]+), (\w+)=([^)]+)\)")
_NONE = "No small change"
_PARTS = {"tiny": ["main"], "teaching": ["gpu", "debug", "cpu"], "ai": ["train", "debug", "cpu"]}
_QOS = (
    {"max_jobs_per_user": 1},
    {"grp_tres": {"node": 2}},
    {"grp_tres": {"cpu": 64}},
    {"max_tres_per_user": {"gres/gpu": 8}},
)
_LIMITS = _QOS + (
    {"max_tres_per_user": {"gres/gpu": 16}},
    {"max_jobs_per_user": 2},
    {"max_tres_per_user": {"node": 2}},
    {"grp_tres": {"gres/gpu": 16}},
)
_LIMIT = re.compile(r"is pending \((QOS(?!MaxWall)\w+|Assoc\w+)\)")
_LETS = re.compile(r"(?:by|at) about t=(\d+)s[^;]*; from then the limit lets it start")
_STARTS = re.compile(r"the limit lets it start, and it would start at about t=(\d+)s")


def scenario(seed: int, exact: bool = False, limits: bool = False) -> dict:
    """A random Lab session: a preset, a policy, jobs submitted over time, and a moment
    (``exact``: every job runs for its whole time limit, as why_pending's picture has it;
    ``limits``: a QOS with a limit that most jobs use)."""
    rng = random.Random(seed)
    cluster = rng.choice(["tiny", "teaching", "ai"])
    policy = rng.choice(["fifo", "easy", "conservative", "slurm"])
    qos = rng.choice(_QOS) if rng.random() < 0.2 else None
    if limits:
        qos = rng.choice(_LIMITS)
    big = {"tiny": 4, "teaching": 8, "ai": 32}[cluster]
    acts, t = [], 0
    for _ in range(rng.randint(3, 9)):
        t += rng.choice([0, 0, 10, 60, 300, 900])
        part = rng.choice(_PARTS[cluster])
        small = part == "debug" or part == "cpu" or cluster == "tiny"
        top = 2 if part == "debug" else (4 if small else big // 2)
        count = rng.randint(1, top)
        if cluster == "ai" and part == "train" and rng.random() < 0.5:
            count = rng.choice([big // 4, big // 2, big - 4])
        limit = rng.choice([5, 10, 20, 30] if part == "debug" else [10, 30, 60, 120, 240])
        shape = rng.choice(
            ["--exclusive", "-c 8", "-c 16", "-n 4", "--mem=0 -c 4", "--mem=32G -c 2", "-n 24"]
        )
        if part not in ("cpu",) and rng.random() < 0.3:
            shape = rng.choice(["--gres=gpu:2", "--gres=gpu:4", "--gpus-per-node=1 -c 4"])
        args = f"-p {part} -N {count} -t {limit} {shape}"
        if rng.random() < 0.1:
            args = f"-p {part} -N {count}-{count + rng.randint(1, 2)} -t {limit} {shape}"
        if qos and rng.random() < (0.8 if limits else 0.5):
            args += " --qos=lim"
        if rng.random() < 0.1:
            args += f" --array=0-{rng.randint(1, 3)}" + rng.choice(["", "%1", "%2"])
        runtime = limit * 60 if rng.random() < 0.5 else rng.randint(60, limit * 60)
        runtime = limit * 60 if exact else runtime
        acts.append((t, args, runtime, rng.choice(["alice", "bob", "carol"])))
    at = t + rng.choice([1, 45, 400])
    return dict(cluster=cluster, policy=policy, qos=qos, acts=acts, at=at)


def build(s: dict, until: float | None = None) -> Lab:
    """The session replayed up to its moment (or ``until``)."""
    qos = [Qos("normal")] + ([Qos("lim", **s["qos"])] if s["qos"] else [])
    lab = Lab(s["cluster"], s["policy"], qos=qos)
    for t, args, runtime, user in s["acts"]:
        if t > lab.now:
            lab.run(until=t)
        with contextlib.suppress(SlurmlabError):  # (a request the cluster refuses)
            lab.sbatch(args, runtime=runtime, user=user)
    lab.run(until=s["at"] if until is None else until)
    return lab


def _start(lab: Lab, key) -> float | None:
    job = lab.sim._lookup(key)[0]  # noqa: SLF001
    return job.start


def window(s: dict) -> float:
    """How soon after the moment "now" ends: the next backfill cycle under slurm."""
    return 31.0 if s["policy"] == "slurm" else 1.0


def candidates(lab: Lab, key) -> list[tuple[str, object]]:
    """Every small change to try: each smaller node count, a few shorter limits, each other
    partition the job could be moved to."""
    job = lab.sim._lookup(key)[0]  # noqa: SLF001
    out: list[tuple[str, object]] = [("nodes", f"{k}-{k}") for k in range(1, job.count)]
    minutes = job.limit / 60
    for m in (1, 5, 15, 30, 60, 120, 240):
        if m < minutes and m * 60 >= job.time_min:
            out.append(("time", str(m)))
    for p in lab.sim.cluster.partitions:
        if p.name != job.partition and job.alts is None:
            out.append(("partition", p.name))
    return out


def changes(text: str) -> list[tuple[str, object]]:
    """The (keyword, value) of each ``lab.update`` the text promises."""
    _, found, rest = text.partition("Smallest changes")
    if not found:
        return []
    rest = rest.split("Fix:")[0]
    return [
        (kw, int(val) if val.isdigit() else val.strip("'\""))
        for _arg, kw, val in _UPDATE.findall(rest)
    ]


def estimated(text: str) -> list[tuple[str, object]]:
    """The (keyword, value) of the change the text says would start the job sooner, not
    now, if nothing else changes."""
    _, found, rest = text.partition("If nothing else changes")
    return changes("Smallest changes" + rest) if found else []


def outcome(s: dict, key, change: tuple[str, object] | None) -> tuple[float | None, float]:
    """The job's start by the end of "now", and its start with every job run to the end
    (inf: never), after ``change`` (None: unchanged)."""
    lab = build(s)
    if change is not None:
        try:
            lab.update(key, **{change[0]: change[1]})
        except SlurmlabError:
            return None, float("inf")
    lab.run(until=lab.now + window(s))
    now = _start(lab, key)
    now = now if now is not None and now <= s["at"] + window(s) else None
    lab.run(until=lab.now + 30 * 86400)
    end = _start(lab, key)
    return now, float("inf") if end is None else end


_CHANGE = {"nodes": "fewer nodes", "time": "a shorter limit", "partition": "another partition"}


def kinds(lab: Lab, key, text: str, helps: list[tuple[str, object]]) -> list[str]:
    """The kinds of a missed "sooner" case: where the job waits (over QOS limits, an array
    task, behind others or first in line) and each kind of change that would help."""
    job = lab.sim._lookup(key)[0]  # noqa: SLF001
    if lab.sim._limits:  # noqa: SLF001
        where = "QOS limits"
    elif job.array_id is not None:
        where = "array task"
    else:
        where = "behind others" if "(Priority)" in text else "first in line"
    return [f"where: {where}"] + sorted({f"by {_CHANGE[kw]}" for kw, _v in helps})


def limit_kind(text: str) -> str:
    """What keeps a job held by a limit, as its explanation says: its request alone, the
    nodes it would get (its own allocation), or its group's running jobs."""
    if "its request alone is over" in text or "even with no other job of it running" in text:
        return "over alone"
    if "on the nodes it would get" in text or "Slurm tests the limits on the nodes" in text:
        return "own allocation"
    if "The running jobs that hold it" in text or "already use" in text or "already runs" in text:
        return "group's running jobs"
    return "other"


def check_limit(n: Counter, s: dict, lab: Lab, key, text: str, seed, verbose: bool) -> None:
    """Count, for a job held by a QOS/association limit, what its explanation says and
    whether it comes true: the moment it says the limit lets the job start (not much
    later than the job's start in the replay: with ``exact``, every job at its limit, the
    job may not start a backfill cycle or more before it), the start it says (by then; with
    ``exact`` not a cycle or more before it either), and its changes said to start it now,
    each made in a replay; and a change that would start it now where none is said."""
    n["limit: explained"] += 1
    slack = window(s)
    base_now, base = outcome(s, key, None)
    lets = _LETS.search(text)
    if "If nothing else changes" in text:
        n["limit: says when"] += 1
    if lets:
        n["limit: lets claims"] += 1
        if s["exact"] and base < int(lets.group(1)) - slack:
            n["limit: false lets claim (started before)"] += 1
            if verbose:
                print("FP-lets", seed, key, base, text, "\n", flush=True)
    start = _STARTS.search(text)
    if start:
        n["limit: start claims"] += 1
        said = int(start.group(1))
        late = base > said + slack
        early = s["exact"] and base < said - slack
        if late or early:
            n["limit: false start claim"] += 1
            if verbose:
                print("FP-start", seed, key, base, text, "\n", flush=True)
    promised = changes(text)
    tried = {c: outcome(s, key, c) for c in dict.fromkeys(candidates(lab, key) + promised)}
    for c in promised:
        n["limit: promises"] += 1
        if tried[c][0] is None:
            n["limit: false promise (not now)"] += 1
            if verbose:
                print("FP-limit", seed, key, c, text, "\n", flush=True)
    helps_now = [c for c, (now, _e) in tried.items() if now is not None]
    if base_now is None and helps_now and not promised:
        n["limit: missed change (now)"] += 1
        n[f"limit: missed change (now), {limit_kind(text)}"] += 1
        if verbose:
            print("FN-limit", seed, key, helps_now, text, "\n", flush=True)


def check(seeds, verbose: bool = False, exact: bool = False, limits: bool = False) -> Counter:
    """The counts over the sessions ``seeds`` (``exact``, ``limits``: see :func:`scenario`)."""
    n = Counter()
    for seed in seeds:
        s = scenario(seed, exact, limits)
        s["exact"] = exact
        lab = build(s)
        q = lab.squeue()
        for key in q[q["ST"] == "PD"]["JOBID"]:
            text = lab.why_pending(key)
            if _LIMIT.search(text):
                check_limit(n, s, lab, key, text, seed, verbose)
                continue
            if "(Resources)" not in text and "(Priority)" not in text:
                continue
            n["explained"] += 1
            base_now, base = outcome(s, key, None)
            if base_now is not None:
                n["starts anyway"] += 1
            promised = changes(text)
            if _NONE in text:
                n["no small change"] += 1
            if promised:
                n["hints"] += 1
            tried = {}
            sooner = estimated(text)
            for change in candidates(lab, key) + promised + sooner:
                if change not in tried:
                    tried[change] = outcome(s, key, change)
            helps_now = [c for c, (now, _e) in tried.items() if now is not None]
            helps = [c for c, (_now, end) in tried.items() if end < base]
            if _NONE in text and base_now is None and helps_now:
                n["false no-change (now)"] += 1
                if verbose:
                    print("FN-now", seed, key, helps_now, text, "\n", flush=True)
            for c in sooner:
                n["sooner claims"] += 1
                if tried[c][1] >= base:
                    n["false sooner claim"] += 1
                    if verbose:
                        print("FP-sooner", seed, key, c, tried[c], base, text, "\n", flush=True)
            if _NONE in text and helps and not sooner:
                n["false no-change (sooner)"] += 1
                for kind in kinds(lab, key, text, helps):
                    n[f"missed sooner, {kind}"] += 1
                if verbose:
                    print("FN-sooner", seed, key, helps, base, text, "\n", flush=True)
            for c in promised:
                n["promises"] += 1
                if tried[c][0] is None:
                    n["false promise (not now)"] += 1
                    if verbose:
                        print("FP", seed, key, c, text, "\n", flush=True)
                elif base_now is not None:
                    n["promise, starts anyway"] += 1
    return n


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv and argv[0].isdigit() else 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = check(
            range(count),
            verbose="--verbose" in argv,
            exact="--exact" in argv,
            limits="--limits" in argv,
        )
    said = n["no small change"] or 1
    print({k: v for k, v in n.items() if not k.startswith(("missed", "limit: "))})
    print({k: v for k, v in n.items() if k.startswith("limit: ")})
    for k in sorted(k for k in n if k.startswith("missed")):
        print(f"  {k}: {n[k]}")
    print(
        f"false 'no small change': now {n['false no-change (now)']}/{said} "
        f"({100 * n['false no-change (now)'] / said:.1f} %), sooner at all "
        f"{n['false no-change (sooner)']}/{said} "
        f"({100 * n['false no-change (sooner)'] / said:.1f} %); false promises "
        f"{n['false promise (not now)']}/{n['promises'] or 1}; sooner-if-nothing-changes claims "
        f"{n['sooner claims']}, false {n['false sooner claim']}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
