"""Read Standard Workload Format traces (the Parallel Workloads Archive).

SWF: one job per line, 18 whitespace-separated fields, ``-1`` for missing, ``;``
header lines (``MaxProcs``, ``MaxNodes``, ``UnixStartTime``...). Plain or gzipped.
Each job becomes a processors-only request on a single pool of MaxProcs CPUs:
width = requested processors if > 0 else allocated; time limit = requested time
if > 0 else the run time (at least 1 s: Slurm limits are positive). Jobs with
width <= 0 or an unknown (negative) run time are dropped and counted in a warning;
zero run times are kept. A trace records what really happened, so its run times
are replayed as they are, even past the requested time.
"""

from __future__ import annotations

import gzip
import warnings
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Cluster, Node, Partition
from slurmlab.spec.job import JobSpec
from slurmlab.spec.workload import DEFAULT_ORIGIN, Workload, WorkloadJob

__all__ = ["SWF_FIELDS", "read_swf", "read_swf_table", "swf_cluster"]

SWF_FIELDS = (
    "job", "submit", "wait", "run", "alloc_procs", "avg_cpu", "used_mem", "req_procs",
    "req_time", "req_mem", "status", "user", "group", "executable", "queue", "partition",
    "preceding_job", "think_time",
)  # fmt: skip


def _open_text(path: Path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def read_swf_table(path: str | Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """The raw SWF records (18 named integer columns, with ``line``) and the header fields."""
    path = Path(path)
    if not path.exists():
        raise SlurmlabError(f"SWF file {str(path)!r} does not exist")
    header: dict[str, str] = {}
    rows: list[list[float]] = []
    lines: list[int] = []
    with _open_text(path) as fh:
        for no, line in enumerate(fh, start=1):
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                key, sep, value = s[1:].partition(":")
                if sep and key.strip() and " " not in key.strip():
                    header.setdefault(key.strip(), value.strip())
                continue
            parts = s.split()
            if len(parts) != 18:
                raise SlurmlabError(
                    f"{path}: line {no}: {len(parts)} fields, SWF has 18 whitespace-separated "
                    f"fields (value {s[:60]!r})"
                )
            try:
                rows.append([float(p) for p in parts])
            except ValueError:
                bad = next(p for p in parts if not _is_number(p))
                field = SWF_FIELDS[parts.index(bad)]
                raise SlurmlabError(
                    f"{path}: line {no}: field {field!r} is {bad!r}, not a number"
                ) from None
            lines.append(no)
    table = pd.DataFrame(np.array(rows).reshape(-1, 18), columns=list(SWF_FIELDS))
    table["line"] = lines
    return table, header


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def swf_cluster(procs: int, name: str = "swf") -> Cluster:
    """The processors-only machine of a trace: one pool node of ``procs`` CPUs."""
    if procs < 1:
        raise SlurmlabError(f"SWF machine size {procs} must be at least 1 processor")
    return Cluster(
        name, (Node("pool", cpus=int(procs)),), (Partition("batch", ("pool",), default=True),)
    )


def read_swf(path: str | Path, *, procs: int | None = None, skip_invalid: bool = False) -> Workload:
    """Read an SWF trace into a trace Workload (see the module docstring).

    ``procs`` overrides the header's MaxProcs (the machine size). A job wider than the
    machine raises an error naming it, unless ``skip_invalid=True`` drops and counts it.
    """
    table, header = read_swf_table(path)
    size = procs or int(float(header.get("MaxProcs", header.get("MaxNodes", "0")) or 0))
    width = np.where(table["req_procs"] > 0, table["req_procs"], table["alloc_procs"])
    run = table["run"].to_numpy()
    req = table["req_time"].to_numpy()
    limit = np.maximum(np.where(req > 0, req, run), 1.0)
    keep = (width > 0) & (run >= 0)
    dropped = int((~keep).sum())
    if dropped:
        warnings.warn(
            f"{path}: dropped {dropped} of {len(table)} jobs with no processors or an unknown "
            "run time (SWF -1)",
            stacklevel=2,
        )
    if not size:
        size = int(width[keep].max()) if keep.any() else 1
    wide = keep & (width > size)
    if wide.any():
        first = int(np.flatnonzero(wide)[0])
        if not skip_invalid:
            raise SlurmlabError(
                f"{path}: line {int(table['line'].iloc[first])}: job {int(table['job'].iloc[first])} "
                f"asks for {int(width[first])} processors but the machine has {size}; pass "
                "--skip-invalid (skip_invalid=True) to drop such jobs, or --procs to enlarge it"
            )
        warnings.warn(
            f"{path}: dropped {int(wide.sum())} jobs wider than {size} processors", stacklevel=2
        )
        dropped += int(wide.sum())
        keep &= ~wide
    order = np.lexsort((table["job"].to_numpy(), table["submit"].to_numpy()))
    jobs = []
    sub = table["submit"].to_numpy()
    num = table["job"].to_numpy()
    usr = table["user"].to_numpy()
    exe = table["executable"].to_numpy()
    for i in order:
        if not keep[i]:
            continue
        spec = JobSpec(
            name=f"app{int(exe[i])}" if exe[i] >= 0 else None,  # SWF executable number
            ntasks=int(width[i]),
            time_limit=timedelta(seconds=float(limit[i])),
        )
        jobs.append(
            WorkloadJob(
                spec,
                submit=float(sub[i]),
                runtime=float(run[i]),
                id=str(int(num[i])),
                user=f"u{int(usr[i])}" if usr[i] >= 0 else None,
            )
        )
    start = header.get("UnixStartTime")
    origin = pd.Timestamp(int(start), unit="s") if start and start.isdigit() else DEFAULT_ORIGIN
    return Workload(
        tuple(jobs), name=Path(path).name, origin=origin, dropped=dropped, kind="trace",
        max_procs=size,
    )  # fmt: skip
