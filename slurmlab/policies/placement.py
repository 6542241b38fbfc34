"""Node selection: which nodes a job gets when several would do.

Deterministic best fit: among the nodes the job may use and on which its
per-node demand fits, take those with the lowest Weight (slurm.conf(5): "jobs will be
allocated the nodes with the lowest weight which satisfies their requirements"), then
the fewest free GPUs, then the fewest free CPUs, then the least free memory, then the
lowest index: the node's place in slurm.conf, the order of Slurm's node bitmaps (the
lowest node name for the presets and for nodes listed in name order, as hostlist ranges
are; a slurm.conf listing ``zeta`` before ``alpha`` puts zeta first, as Slurm does). GPU
jobs thus pack onto partly used GPU nodes and CPU-only jobs prefer nodes without GPUs.
``--exclusive`` needs wholly idle nodes. ``weights`` is None when every node has the same
Weight.
"""

from __future__ import annotations

import numpy as np

from slurmlab.policies.base import CPU, GPU, MEM

__all__ = ["best_fit", "choose_nodes", "covers", "fitting_mask", "idle"]


# Reducing numpy's short (CPUs, MB, GPUs) axis costs several times more than a
# comparison per resource: these two spell ``.all(axis=-1)`` out.
def covers(free: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """``(free >= demand).all(axis=-1)``: where the per-node demand fits."""
    ok = free[..., 0] >= demand[0]
    ok &= free[..., 1] >= demand[1]
    ok &= free[..., 2] >= demand[2]
    return ok


def idle(free: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``(free == capacity).all(axis=-1)``: where nodes are wholly idle."""
    ok = free[..., 0] == capacity[..., 0]
    ok &= free[..., 1] == capacity[..., 1]
    ok &= free[..., 2] == capacity[..., 2]
    return ok


def fitting_mask(
    free: np.ndarray, capacity: np.ndarray, demand: np.ndarray, mask: np.ndarray, exclusive: bool
) -> np.ndarray:
    """Boolean per node: the job's per-node demand fits in ``free`` there."""
    ok = mask & covers(free, demand)
    if exclusive:
        ok &= idle(free, capacity)
    return ok


def choose_nodes(
    free: np.ndarray,
    capacity: np.ndarray,
    demand: np.ndarray,
    count: int,
    mask: np.ndarray,
    exclusive: bool = False,
    weights: np.ndarray | None = None,
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
    return best_fit(free, ok.nonzero()[0], count, weights)


def best_fit(
    free: np.ndarray, idx: np.ndarray, count: int, weights: np.ndarray | None = None
) -> tuple[int, ...] | None:
    """The ``count`` best-fit nodes among the fitting nodes ``idx`` (ascending), or None."""
    if len(idx) < count:
        return None
    if len(idx) == count:  # no choice to make: skip the sort
        return tuple(idx.tolist())
    sub = free[idx]
    if weights is None:
        order = np.lexsort((idx, sub[:, MEM], sub[:, CPU], sub[:, GPU]))
    else:
        order = np.lexsort((idx, sub[:, MEM], sub[:, CPU], sub[:, GPU], weights[idx]))
    return tuple(sorted(idx[order[:count]].tolist()))
