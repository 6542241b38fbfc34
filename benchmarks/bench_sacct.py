"""Benchmark: read_sacct on a 1,000,000-row, 30-column ``sacct -P -D`` export.

Generates the export once with the seeded generator (cached in benchmarks/out/), then parses
and normalises it in a fresh process, best of three, on one core. Prints one markdown row:

    | read_sacct 1M rows x 30 cols | rows | MB | best wall s | best CPU s | peak RSS MB | machine | date |

Target (issue 6): under 5 s and under 2 GB. Run: ``python benchmarks/bench_sacct.py``.
A second row measures ``anonymize_file`` on the same export, once (``--no-anonymize`` skips it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"

CHILD = r"""
import json, os, resource, sys, time
os.environ.setdefault("OMP_NUM_THREADS", "1")
import pyarrow
pyarrow.set_cpu_count(1)
pyarrow.set_io_thread_count(1)
from slurmlab.records.sacct import read_sacct, steps
path = sys.argv[1]
times, cpu = [], []
for _ in range(int(sys.argv[2])):
    t, c = time.perf_counter(), time.process_time()
    jobs = read_sacct(path)
    times.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    rows = len(jobs) + len(steps(jobs))
    del jobs
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"times": times, "cpu": cpu, "rows": rows, "peak_mb": peak}))
"""

# anonymize_file on the same export, once (it holds one chunk of rows at a time, not the
# whole export split into rows: see slurmlab.anonymize.CHUNK_LINES)
CHILD_ANONYMIZE = r"""
import json, os, resource, sys, tempfile, time
from slurmlab.anonymize import anonymize_file
path = sys.argv[1]
with tempfile.TemporaryDirectory() as folder:
    t, c = time.perf_counter(), time.process_time()
    anonymize_file(path, os.path.join(folder, "anonymized.psv"), salt="bench")
    times, cpu = [time.perf_counter() - t], [time.process_time() - c]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"times": times, "cpu": cpu, "peak_mb": peak}))
"""


def _child(code: str, *args: str) -> dict:
    """Run ``code`` in a fresh process on one core; return the JSON it prints last."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, "-c", code, *args]
    if sys.platform.startswith("linux"):
        cmd = ["taskset", "-c", "0", *cmd]  # one core
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_export(rows: int, seed: int) -> Path:
    from slurmlab.records.synth import SynthConfig, synth_sacct

    path = OUT / f"sacct-{rows}.psv"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    jobs = max(1, rows // 7)
    while True:  # grow until the export has at least `rows` data rows, then cut there
        text = synth_sacct(jobs, seed=seed, config=SynthConfig(jobs_per_day=jobs / 30))
        lines = text.splitlines()
        if len(lines) - 1 >= rows:
            break
        jobs = int(jobs * 1.1) + 1
    path.write_text("\n".join(lines[: rows + 1]) + "\n", encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--no-anonymize", action="store_true", help="measure read_sacct only, not anonymize_file"
    )
    args = parser.parse_args()
    path = make_export(args.rows, args.seed)
    result = _child(CHILD, str(path), str(args.repeat))
    anonymized = None if args.no_anonymize else _child(CHILD_ANONYMIZE, str(path))
    size_mb = path.stat().st_size / 1e6
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    try:
        with open("/proc/cpuinfo") as handle:
            model = next(
                line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")
            )
        machine = f"{model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    except (OSError, StopIteration):
        pass
    print(
        "| benchmark | rows | file MB | best wall s | best CPU s | peak RSS MB | machine | date |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| read_sacct -P, 30 columns (1 core) | {result['rows']:,} | {size_mb:,.0f} | "
        f"{min(result['times']):.2f} | {min(result['cpu']):.2f} | {result['peak_mb']:,.0f} | "
        f"{machine} | {dt.date.today()} |"
    )
    if anonymized is not None:
        print(
            f"| anonymize_file -P, 30 columns (1 core, once) | {args.rows:,} | {size_mb:,.0f} "
            f"| {anonymized['times'][0]:.2f} | {anonymized['cpu'][0]:.2f} | "
            f"{anonymized['peak_mb']:,.0f} | {machine} | {dt.date.today()} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
