"""Node selection: which nodes a job gets when several would do.

Deterministic best fit: among the nodes the job may use and on which its
per-node demand fits, take those with the fewest free GPUs, then the fewest free
CPUs, then the least free memory, then the lowest index (slurm.conf order, i.e.
the lowest node name). GPU jobs thus pack onto partly used GPU nodes and
CPU-only jobs prefer nodes without GPUs. ``--exclusive`` needs wholly idle nodes.
"""

from __future__ import annotations

import numpy as np

from slurmlab.policies.base import CPU, GPU, MEM

__all__ = ["choose_nodes", "fitting_mask"]

_ALL = np.logical_and.reduce  # ndarray.all without its per-call overhead


def fitting_mask(
    free: np.ndarray, capacity: np.ndarray, demand: np.ndarray, mask: np.ndarray, exclusive: bool
) -> np.ndarray:
    """Boolean per node: the job's per-node demand fits in ``free`` there."""
    ok = mask & _ALL(free >= demand, axis=1)
    if exclusive:
        ok &= _ALL(free == capacity, axis=1)
    return ok


def choose_nodes(
    free: np.ndarray,
    capacity: np.ndarray,
    demand: np.ndarray,
    count: int,
    mask: np.ndarray,
    exclusive: bool = False,
) -> tuple[int, ...] | None:
    """The ``count`` best-fit node indices for ``demand``, or None when fewer fit."""
    if len(free) == 1:  # a one-node pool (SWF traces): skip numpy's per-call overhead
        f, d = free[0], demand
        if count != 1 or not mask[0] or f[0] < d[0] or f[1] < d[1] or f[2] < d[2]:
            return None
        if exclusive and not (f == capacity[0]).all():
            return None
        return (0,)
    ok = fitting_mask(free, capacity, demand, mask, exclusive)
    idx = np.flatnonzero(ok)
    if len(idx) < count:
        return None
    if len(idx) == count or count == len(free):
        return tuple(int(i) for i in idx)
    sub = free[idx]
    order = np.lexsort((idx, sub[:, MEM], sub[:, CPU], sub[:, GPU]))
    return tuple(sorted(int(i) for i in idx[order[:count]]))
