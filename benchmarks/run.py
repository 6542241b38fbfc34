"""Engine speed: jobs per second per policy, side by side with the plain-Python reference.

Run with ``make bench``. Measures CPU time (``time.process_time``: less sensitive than
wall time to other work on a shared machine) of:

* synthetic processors-only workloads (``pool_workload``, 256 processors, seed 0) of
  10k, 100k and 1M jobs for every policy, at an offered load of 0.5 (``--load``): the
  target is growth at *fixed queue depth*, and at higher loads FIFO's queue grows without
  bound (blocking FIFO saturates near 62 % utilization on this workload) and
  conservative's deepens with n. A policy whose 100k run would make the 1M run exceed
  ``--budget`` seconds is skipped at 1M, and the table says so;
* the largest SWF trace in ../shared/datasets/public/swf (LANL CM-5, 122k jobs) and KTH
  for every policy, the tests' reference fifo/easy on the same traces, and simpy alone
  (one event per arrival and per end, nothing else: the floor of any simpy engine);
* large clusters: 4,608 nodes (4,096 of 8 GPUs) under 3,000 AI jobs at load 0.9, the first
  run (every request resolved) and the next; 640 nodes under 1,000 jobs at load 1.2, a
  deep queue;
* the 2,000-job AI teaching workload (``ai_workload``) on the ``ai`` preset: the best of
  three re-simulations (a widget re-simulates the same workload), and the first run.

Every row gives the mean queue depth (pending jobs, time-averaged: total wait divided by
the span from first submit to last end, by Little's law).

Writes the table into benchmarks/README.md between the RESULTS markers, with the
machine and the date, and prints it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import simpy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from reference_sched import RefJob, reference_starts  # noqa: E402

from slurmlab.records.swf import read_swf, swf_cluster  # noqa: E402
from slurmlab.sim.simulate import simulate  # noqa: E402
from slurmlab.spec.cluster import Cluster  # noqa: E402
from slurmlab.spec.synthetic import ai_workload, pool_workload  # noqa: E402

POLICIES = ("fifo", "easy", "conservative", "slurm")
PARTS = ("teaching", "large", "traces", "pools")
#: (GPU nodes, CPU nodes, jobs, load): thousands of nodes; hundreds under a deep queue
LARGE = ((4096, 512, 3000, 0.9), (512, 128, 1000, 1.2))
SHARED = Path(os.environ.get("SLURMLAB_SHARED", ROOT.parent / "shared")) / "datasets/public/swf"


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def depth(result) -> float:
    """Mean number of pending jobs over the run (Little's law: total wait / span)."""
    submit, start, end = (result.seconds(c) for c in ("Submit", "Start", "End"))
    span = end.max() - submit.min()
    return float((start - submit).sum() / span) if span > 0 else 0.0


def simpy_floor(ref) -> int:
    """simpy alone, nothing else: one timeout per arrival and one per end, no scheduling,
    no records. The least any engine in which simpy owns time spends per job; beside the
    reference it shows how much of the 3x budget simpy's own event loop takes. The cyclic
    garbage collector is paused, as the engine pauses it."""
    was = gc.isenabled()
    gc.disable()
    try:
        return _simpy_events(ref)
    finally:
        if was:
            gc.enable()


def _simpy_events(ref) -> int:
    env = simpy.Environment()
    ended = []

    def end(ev):
        ended.append(ev.value)

    def arrive(ev):
        env.timeout(ev.value.runtime, ev.value).callbacks.append(end)

    for j in ref:
        env.timeout(j.submit, j).callbacks.append(arrive)
    env.run()
    return len(ended)


def large_cluster(gpu_nodes: int, cpu_nodes: int) -> Cluster:
    """A cluster of ``gpu_nodes`` nodes of 8 H100s and ``cpu_nodes`` CPU nodes."""
    return Cluster.from_slurm_conf(
        "\n".join(
            [
                "ClusterName=large",
                "SelectType=select/cons_tres",
                "GresTypes=gpu",
                f"NodeName=gpu[0001-{gpu_nodes:04d}] CPUs=128 RealMemory=1000000 Gres=gpu:h100:8",
                f"NodeName=cpu[001-{cpu_nodes:03d}] CPUs=64 RealMemory=256000",
                f"PartitionName=train Nodes=gpu[0001-{gpu_nodes:04d}] Default=YES MaxTime=7-0",
                f"PartitionName=cpu Nodes=cpu[001-{cpu_nodes:03d}] MaxTime=2-0",
            ]
        )  # fmt: skip
    )


def reference_jobs(workload):
    return [
        RefJob(j.id, j.submit, j.spec.ntasks, j.runtime, j.spec.time_limit.total_seconds())
        for j in workload.jobs
    ]


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--budget", type=float, default=900.0, help="max seconds for one run")
    ap.add_argument("--load", type=float, default=0.5, help="offered load of the pools")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated, of {', '.join(PARTS)} (a partial run is printed, not written)",
    )
    args = ap.parse_args(argv)
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"--parts: {', '.join(unknown)} unknown; choose from {', '.join(PARTS)}")
    if set(parts) != set(PARTS):
        args.no_write = True
    warnings.simplefilter("ignore")
    rows = []

    def row(name, jobs, policy, seconds, note="", result=None):
        rate = f"{jobs / seconds:,.0f}" if seconds else "-"
        q = f"{depth(result):,.1f}" if result is not None else "-"
        rows.append(f"| {name} | {jobs:,} | {policy} | {seconds:.2f} | {rate} | {q} | {note} |")
        print(rows[-1], flush=True)

    # the teaching workload: the first run, then a re-simulation (what a widget does on
    # every slider move: same cluster and workload, so requests are already resolved)
    ai = Cluster.preset("ai")
    w = ai_workload(2000, ai, seed=1)
    for p in POLICIES if "teaching" in parts else ():
        first, res = cpu(lambda p=p: simulate(ai, w, p))
        again = min(cpu(lambda p=p: simulate(ai, w, p))[0] for _ in range(3))
        name = "ai preset, 2,000-job teaching workload"
        row(name, 2000, p, again, f"first run {first:.2f} s", res)

    # large clusters: resolution on thousands of nodes (first run), and a deep queue on
    # hundreds (where the profile, a times x nodes array, dominates)
    for gpu_nodes, cpu_nodes, n, load in LARGE if "large" in parts else ():
        w = ai_workload(n, large_cluster(gpu_nodes, cpu_nodes), seed=1, load=load)
        name = f"{gpu_nodes + cpu_nodes:,} nodes ({gpu_nodes:,} of 8 GPUs), load {load:g}"
        for p in POLICIES:
            big = large_cluster(gpu_nodes, cpu_nodes)  # (a new one: nothing resolved yet)
            first, res = cpu(lambda p=p, big=big, w=w: simulate(big, w, p))
            again = cpu(lambda p=p, big=big, w=w: simulate(big, w, p))[0]
            row(name, n, p, again, f"first run {first:.2f} s", res)

    # real traces, with the reference beside the engine
    traces = ("KTH-SP2-1996-2.1-cln.swf.gz", "LANL-CM5-1994-4.1-cln.swf.gz")
    for name in traces if "traces" in parts else ():
        path = SHARED / name
        if not path.exists():
            print(f"skip {name}: {path} not found")
            continue
        trace = read_swf(path)
        cl = swf_cluster(trace.max_procs)
        ref = reference_jobs(trace)
        for p in ("fifo", "easy"):
            s, _ = cpu(lambda p=p, ref=ref, n=trace.max_procs: reference_starts(ref, n, p))
            row(name, len(trace), f"reference {p}", s, "tests/reference_sched.py")
        s, _ = cpu(lambda ref=ref: simpy_floor(ref))
        row(name, len(trace), "simpy alone", s, "one event per arrival and per end, nothing else")
        for p in POLICIES:
            s, res = cpu(lambda p=p, cl=cl, trace=trace: simulate(cl, trace, p))
            row(name, len(trace), p, s, result=res)

    # synthetic pools
    per_job: dict[str, float] = {}
    for n in (int(x) for x in args.sizes.split(",")) if "pools" in parts else ():
        work = pool_workload(n, 256, seed=0, load=args.load)
        cl = swf_cluster(256)
        name = f"synthetic pool 256 procs, load {args.load:g}"
        for p in POLICIES:
            if p in per_job and per_job[p] * n > args.budget:
                row(name, n, p, 0.0, f"skipped: projected {per_job[p] * n:,.0f} s")
                continue
            s, res = cpu(lambda p=p, work=work, cl=cl: simulate(cl, work, p))
            per_job[p] = s / n
            row(name, n, p, s, result=res)
            del res

    header = [
        f"Measured {dt.date.today().isoformat()} on {machine()}; CPU seconds (process_time).",
        "",
        "| workload | jobs | policy | CPU s | jobs/s | queue depth | note |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    table = "\n".join(header + rows)
    print(table)
    if not args.no_write:
        readme = ROOT / "benchmarks" / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else ""
        start, end = "<!-- RESULTS:engine -->", "<!-- /RESULTS:engine -->"
        block = f"{start}\n{table}\n{end}"
        if start in text and end in text:
            text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
        else:
            text = text.rstrip() + "\n\n## Engine results\n\n" + block + "\n"
        readme.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
