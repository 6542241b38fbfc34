"""``slurmlab simulate``: run a scenario file or an SWF trace under a policy."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from slurmlab.policies.backfill import POLICIES

__all__ = ["add_subcommands"]


def add_subcommands(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate a scenario (.yaml/.json) or an SWF trace (.swf, .swf.gz)",
        description="Simulate a scenario file or a Standard Workload Format trace.",
    )
    p.add_argument("input", help="scenario file or SWF trace")
    p.add_argument("--policy", choices=sorted(POLICIES), help="override the scenario's policy")
    p.add_argument("--cluster", help="a preset name or a slurm.conf path (overrides the input's)")
    p.add_argument("--procs", type=int, help="SWF: machine size in processors (default MaxProcs)")
    p.add_argument(
        "--skip-invalid", action="store_true", help="SWF: drop jobs wider than the machine"
    )
    p.add_argument(
        "--jobs-out", help="write the job table as CSV (times in seconds from the start)"
    )
    p.add_argument("--duplicates", action="store_true", help="--jobs-out: every run, as sacct -D")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_simulate)


def _is_swf(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".swf") or name.endswith(".swf.gz")


def run_simulate(args) -> int:
    from slurmlab.cli import load_cluster
    from slurmlab.records.swf import read_swf, swf_cluster
    from slurmlab.scenario import Scenario
    from slurmlab.sim.simulate import simulate

    path = Path(args.input)
    if not path.exists():
        raise FileNotFoundError(f"input {args.input!r} does not exist")
    progress = not args.quiet
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if _is_swf(path):
            workload = read_swf(path, procs=args.procs, skip_invalid=args.skip_invalid)
            cluster = (
                load_cluster(args.cluster) if args.cluster else swf_cluster(workload.max_procs)
            )
            result = simulate(cluster, workload, args.policy or "easy", progress=progress)
        else:
            scenario = Scenario.load(path)
            if args.cluster:
                scenario = _with_cluster(scenario, load_cluster(args.cluster))
            result = scenario.run(args.policy, progress=progress)
    for w in caught:
        print(f"slurmlab: warning: {w.message}", file=sys.stderr)
    if args.jobs_out:
        write_jobs_csv(result, args.jobs_out, duplicates=args.duplicates)
    metrics = result.metrics
    if args.json:
        print(json.dumps(metrics, default=float))
    else:
        print(f"policy {metrics['policy']}: {metrics['jobs']} jobs, "
              f"mean wait {metrics['mean_wait_s']:.0f} s, "
              f"mean bounded slowdown {metrics['mean_bounded_slowdown']:.2f}, "
              f"utilization {metrics['utilization']:.1%} (GPU {metrics['gpu_utilization']:.1%}), "
              f"makespan {metrics['makespan_s']:.0f} s, backfilled {metrics['backfilled']}, "
              f"{metrics['wall_s']:.2f} s wall")  # fmt: skip
    return 0


def _with_cluster(scenario, cluster):
    from dataclasses import replace

    return replace(scenario, cluster=cluster)


def write_jobs_csv(result, path: str, *, duplicates: bool = False) -> None:
    """The job table as CSV with Submit/Eligible/Start/End in seconds from the start."""
    table = result.sacct(duplicates=duplicates).copy()
    for col in ("Submit", "Eligible", "Start", "End"):
        table[col] = (table[col] - result.origin).dt.total_seconds()
    for col in ("Elapsed", "Timelimit"):
        table[col] = table[col].dt.total_seconds()
    table.to_csv(path, index=False)
