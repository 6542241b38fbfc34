"""The environment ``srun`` gives each task, and what a PyTorch DDP launcher derives from it.

For an allocation (nodes, tasks laid out block-wise, GPUs per node) this builds,
per task, the variables Slurm sets (SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID,
SLURM_TASKS_PER_NODE in Slurm's ``4(x2)`` form, CUDA_VISIBLE_DEVICES...) and the
ones torch.distributed reads (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR...).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Cluster
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import compress_hostlist, expand_hostlist

__all__ = ["master_port", "srun_env", "tasks_per_node_string"]


def tasks_per_node_string(counts: Sequence[int]) -> str:
    """Slurm's SLURM_TASKS_PER_NODE form: runs of equal counts as ``N(xK)``.

    >>> tasks_per_node_string([4, 4, 3])
    '4(x2),3'
    """
    out: list[str] = []
    i = 0
    while i < len(counts):
        j = i
        while j + 1 < len(counts) and counts[j + 1] == counts[i]:
            j += 1
        k = j - i + 1
        out.append(f"{counts[i]}(x{k})" if k > 1 else str(counts[i]))
        i = j + 1
    return ",".join(out)


def master_port(job_id: int) -> int:
    """The rendezvous port PyTorch Lightning derives: 15000 + the job id's last 4 digits."""
    return 15000 + int(job_id) % 10000


def srun_env(
    job: JobSpec,
    nodelist: str | Sequence[str] = "node[1-2]",
    job_id: int = 1,
    *,
    cluster: Cluster | None = None,
    restart_count: int = 0,
) -> pd.DataFrame:
    """One row per task, one column per environment variable srun sets for it.

    ``nodelist`` is the allocation (a hostlist expression or names); its length must
    equal the job's node count. With ``cluster`` the request is resolved against it
    (partition, default GPUs and CPUs); without, the request's own numbers are used.

    >>> env = srun_env(JobSpec.from_args("-N 2 --ntasks-per-node=8 --gres=gpu:8"), "gpu[01-02]", 42)
    >>> env.loc[9, ["RANK", "LOCAL_RANK", "SLURMD_NODENAME"]].to_dict()
    {'RANK': 9, 'LOCAL_RANK': 1, 'SLURMD_NODENAME': 'gpu02'}
    """
    hosts = expand_hostlist(nodelist) if isinstance(nodelist, str) else list(nodelist)
    if cluster is not None:
        res = job.resources(cluster)
        n_nodes, per_node, gpn = res.nodes, list(res.tasks_per_node), res.gpus_per_node
        cpt, partition = res.cpus_per_task, res.partition
    else:
        ntasks, n_nodes = job._tasks_and_nodes()  # noqa: SLF001 - same package
        base, extra = divmod(ntasks, n_nodes)
        per_node = [base + (1 if i < extra else 0) for i in range(n_nodes)]
        if job.gpus_per_node:
            gpn = job.gpus_per_node
        elif job.gpus:
            gpn = -(-job.gpus // n_nodes)
        elif job.gpus_per_task:
            gpn = job.gpus_per_task * max(per_node)
        else:
            gpn = 0
        cpt, partition = job.cpus_per_task or 1, job.partition
    if len(hosts) != n_nodes:
        raise SlurmlabError(
            f"srun_env: nodelist {nodelist!r} has {len(hosts)} nodes but the job asks for "
            f"{n_nodes}; give exactly {n_nodes} node names"
        )
    ntasks = sum(per_node)
    compressed = compress_hostlist(hosts)
    rows = []
    rank = 0
    for node_id, (host, count) in enumerate(zip(hosts, per_node)):
        for local in range(count):
            if job.gpus_per_task:
                g = job.gpus_per_task
                devices = ",".join(str(d) for d in range(local * g, (local + 1) * g))
            else:
                devices = ",".join(str(d) for d in range(gpn))
            row = {
                "SLURM_JOB_ID": int(job_id),
                "SLURM_JOB_NAME": job.job_name,
                "SLURM_JOB_NODELIST": compressed,
                "SLURM_NNODES": n_nodes,
                "SLURM_NTASKS": ntasks,
                "SLURM_PROCID": rank,
                "SLURM_LOCALID": local,
                "SLURM_NODEID": node_id,
                "SLURMD_NODENAME": host,
                "SLURM_TASKS_PER_NODE": tasks_per_node_string(per_node),
                "SLURM_CPUS_PER_TASK": cpt,
                "SLURM_GPUS_ON_NODE": gpn,
                "CUDA_VISIBLE_DEVICES": devices if gpn else "",
                "SLURM_JOB_PARTITION": partition or "",
                "SLURM_JOB_ACCOUNT": job.account or "",
                "SLURM_JOB_QOS": job.qos or "normal",
                "SLURM_RESTART_COUNT": int(restart_count),
                "MASTER_ADDR": hosts[0],
                "MASTER_PORT": master_port(job_id),
                "WORLD_SIZE": ntasks,
                "RANK": rank,
                "LOCAL_RANK": local,
                "LOCAL_WORLD_SIZE": count,
                "NODE_RANK": node_id,
            }
            rows.append(row)
            rank += 1
    return pd.DataFrame(rows)
