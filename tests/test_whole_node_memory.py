"""A job taking each node's whole memory, on nodes whose memory differs.

Under ``CR_*_Memory`` a job asking ``--mem=0``, or no memory where its partition has no
DefMemPerCPU/DefMemPerNode/DefMemPerGPU, asks for all the memory of each node it gets.
Slurm 22.05's select plugin (src/plugins/select/cons_common/job_test.c) considers for it
only nodes none of whose memory is allocated (``_verify_node_state``: "allocated memory =
... and all memory requested") and charges each node it gets that node's own memory
(``_job_test``, "Allocate all node memory": ``needed_mem = avail_mem``), whatever the other
nodes of the partition hold. Its ReqMem/ReqTRES are counted before it runs from the
partition's first node (job_mgr.c ``job_get_tres_mem``, ``_mem_per_node_part``); its
AllocTRES sums the memory of the nodes it got (``memory_allocated``).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab import Cluster, Lab

POLICIES = ("fifo", "easy", "conservative", "slurm")
BIG_SMALL = """SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=big1 CPUs=64 RealMemory=2000000
NodeName=small1 CPUs=64 RealMemory=512000
PartitionName=p Nodes=big1,small1 Default=YES
"""
# the nodes of a Debian 12 install guide's slurm.conf (QA's c02): two large, one small,
# no DefMemPer*, so a job without --mem takes each node's whole memory
C02 = """SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=g[1-2] CPUs=256 RealMemory=1160365
NodeName=g3 CPUs=128 RealMemory=515800
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def lab_of(conf: str, policy: str) -> Lab:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Lab(Cluster.from_slurm_conf(conf), policy=policy)


def jobs(lab: Lab) -> pd.DataFrame:
    return lab.sacct().set_index("JobID")


@pytest.mark.parametrize("policy", POLICIES)
def test_a_whole_memory_job_keeps_every_other_job_off_its_node(policy):
    """``-n1 --mem=0`` lands on big1 and is charged all of big1's memory (2000000 MB, not
    the 512000 MB of the partition's smallest node); a ``--mem=100G -w big1`` job then waits
    for it to end (cons_common ``_job_test``: needed_mem = the node's avail_mem)."""
    lab = lab_of(BIG_SMALL, policy)
    lab.sbatch("-n1 --mem=0 -t 10", runtime=300)
    lab.sbatch("-n1 --mem=100G -w big1 -t 10", runtime=300)
    lab.advance(60)
    now = jobs(lab)
    assert now.loc["1", "NodeList"] == "big1"
    assert "mem=2000000M" in now.loc["1", "AllocTRES"]
    assert now.loc["2", "State"] == "PENDING"
    lab.run()
    done = jobs(lab)
    assert done.loc["2", "Start"] == done.loc["1", "End"]


@pytest.mark.parametrize("policy", POLICIES)
def test_three_nodes_run_three_jobs_that_take_their_whole_memory(policy):
    """Four ``-n 1`` jobs without ``--mem`` and no DefMemPer* (the c02 slurm.conf): each
    takes a whole node's memory, so three run, one per node, each charged its own node's
    memory, and the fourth waits for one to end (cons_common ``_verify_node_state``)."""
    lab = lab_of(C02, policy)
    for runtime in (300, 400, 500, 100):
        lab.sbatch("-n 1 -t 10", runtime=runtime)
    lab.advance(60)
    now = jobs(lab)
    running = now[now["State"] == "RUNNING"]
    assert sorted(running["NodeList"]) == ["g1", "g2", "g3"]
    for _jid, row in running.iterrows():
        mem = {"g1": "1160365M", "g2": "1160365M", "g3": "515800M"}[row["NodeList"]]
        assert f"mem={mem}" in row["AllocTRES"]
    assert now.loc["4", "State"] == "PENDING"
    lab.run()
    done = jobs(lab)
    assert done.loc["4", "Start"] == done.loc[["1", "2", "3"], "End"].min()


@pytest.mark.parametrize("policy", POLICIES)
def test_a_two_node_whole_memory_job_gets_each_nodes_own_memory(policy):
    """``-N 2 --mem=0`` on nodes of 4000, 8000 and 16000 MB, with 100 MB taken on the first:
    it gets the two others, and AllocTRES sums their memory (24000 MB), while ReqMem counts
    the partition's first node twice (job_mgr.c ``job_get_tres_mem``: 8000 MB)."""
    conf = BIG_SMALL.split("NodeName")[0] + (
        "NodeName=a CPUs=8 RealMemory=4000\nNodeName=b CPUs=8 RealMemory=8000\n"
        "NodeName=c CPUs=8 RealMemory=16000\nPartitionName=p Nodes=ALL Default=YES\n"
    )
    lab = lab_of(conf, policy)
    lab.sbatch("-n1 --mem=100 -w a -t 10", runtime=600)
    lab.sbatch("-N 2 --mem=0 -t 10", runtime=600)
    lab.sbatch("-n1 --mem=100 -t 10", runtime=600)  # (a's memory only is partly free)
    lab.advance(60)
    now = jobs(lab)
    assert now.loc["2", "NodeList"] == "b,c"
    assert "mem=24000M" in now.loc["2", "AllocTRES"]
    assert now.loc["2", "ReqMem"] == 8000  # (MB)
    assert now.loc["3", "NodeList"] == "a"


@pytest.mark.parametrize("policy", ["conservative", "slurm"])
def test_a_whole_memory_jobs_reservation_holds_its_nodes_whole_memory(policy):
    """A ``--mem=0`` job waiting for big1 (its memory partly allocated; small1's too) is
    planned there from the running job's end, holding all 2000000 MB: a later
    ``--mem=1000000M -w big1`` job, which would fit beside a 512000 MB plan, is planned
    after it (squeue --start), and runs so."""
    lab = lab_of(BIG_SMALL, policy)
    lab.sbatch("-n1 --mem=1100000M -w big1 -t 10", runtime=600)
    lab.sbatch("-n1 --mem=1000 -w small1 -t 40", runtime=2400)
    lab.sbatch("-n1 --mem=0 -t 20", runtime=1200)
    lab.sbatch("-n1 --mem=1000000M -w big1 -t 30", runtime=60)
    lab.advance(60)
    queue = lab.squeue().set_index("JOBID")
    assert queue.loc["3", "SCHEDNODES"] == "big1"
    whole = pd.Timestamp(queue.loc["3", "START_TIME"])
    later = pd.Timestamp(queue.loc["4", "START_TIME"])
    assert later - whole == pd.Timedelta(minutes=20)
    lab.run()
    done = jobs(lab)
    assert done.loc["4", "Start"] == done.loc["3", "End"]


def _memory_held(row, capacity: dict[str, int]) -> dict[str, int]:
    """MB a finished job held on each of its nodes: its node's whole memory when it asked
    for all of it, else its AllocTRES memory shared evenly."""
    nodes = row["NodeList"].split(",")
    if row["whole"]:
        return {n: capacity[n] for n in nodes}
    tres = dict(kv.split("=") for kv in row["AllocTRES"].split(","))
    return {n: int(tres["mem"].rstrip("M")) // len(nodes) for n in nodes}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.sampled_from([2000, 3000, 8000]), min_size=2, max_size=3),
    requests=st.lists(
        st.tuples(
            st.sampled_from(["--mem=0", "", "--mem=1000", "--mem=1500"]),
            st.integers(1, 2),
            st.integers(1, 9),
        ),
        min_size=1,
        max_size=8,
    ),
    policy=st.sampled_from(POLICIES),
)
def test_no_node_ever_holds_more_memory_than_it_has(sizes, requests, policy):
    """Whatever mix of whole-memory and sized jobs arrives on nodes of unequal memory, no
    node holds more memory at any moment than it has (cons_common ``_job_test`` refuses to
    overallocate a node), and every job ends."""
    names = ["x", "y", "z"][: len(sizes)]  # (no numbered names: sacct compresses those)
    nodes = "".join(f"NodeName={n} CPUs=4 RealMemory={m}\n" for n, m in zip(names, sizes))
    conf = BIG_SMALL.split("NodeName")[0] + nodes + "PartitionName=p Nodes=ALL Default=YES\n"
    capacity = dict(zip(names, sizes))
    lab = lab_of(conf, policy)
    whole = {}
    for mem, count, minutes in requests:
        count = min(count, len(sizes))
        jid = lab.sbatch(f"-N {count} {mem} -t {minutes}", runtime=60 * minutes)
        whole[str(jid)] = mem in ("--mem=0", "")
    lab.run()
    done = jobs(lab)
    assert (done["State"] == "COMPLETED").all()
    done["whole"] = [whole[j] for j in done.index]
    held = [(r["Start"], r["End"], _memory_held(r, capacity)) for _, r in done.iterrows()]
    for t, _end, _ in held:  # (usage only changes at starts: check each)
        for node, cap in capacity.items():
            total = sum(h.get(node, 0) for s, e, h in held if s <= t < e)
            assert total <= cap, (node, t, total, cap)


def test_plans_on_merged_and_plain_profiles_take_only_nodes_of_wholly_free_memory():
    """The profile a large cluster plans with (MergedProfile, nodes alike in one column)
    finds the same start and nodes for a whole-memory job as the plain one, on nodes none
    of whose memory is in use throughout its window, and a plan holds each node's memory
    (cons_common ``_verify_node_state``)."""
    import numpy as np

    from slurmlab.policies.placement import Request
    from slurmlab.policies.profile import MergedProfile, Profile

    n = 300
    capacity = np.array([[8, 4000 if k % 3 else 16000, 0] for k in range(n)], dtype=np.int64)
    free = capacity.copy()
    free[: n - 2, 1] -= 100  # every node but the last two has some memory in use ...
    releases = [(600.0, tuple(range(0, n - 2, 2)), np.array([0, 100, 0]))]  # ... till 600
    demand = np.array([1, 4000, 0])
    mask = np.ones(n, dtype=bool)
    answers = []
    for kind in (Profile, MergedProfile):
        prof = kind(0.0, free, capacity, releases)
        found = prof.earliest(Request(demand, 3, whole_memory=True), mask, 300.0)
        answers.append(found)
        i, t, nodes = found
        assert t == 600.0
        assert all(k in (n - 2, n - 1) or k % 2 == 0 for k in nodes)
        usage = capacity[list(nodes)] * [0, 1, 0] + [1, 0, 0]
        prof.reserve(nodes, usage, t, t + 300.0, at=i)
        assert prof.valid()
        assert (prof.per_node()[i][list(nodes), 1] == 0).all()
    assert answers[0] == answers[1]
