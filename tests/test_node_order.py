"""slurmctld's node table is sorted by node name, whatever the order of slurm.conf's NodeName=
lines (read_config.c ``_sort_node_record_table_ptr``, each time slurm.conf is read, before the
node bitmaps are built; by ``strnatcmp``, as no topology plugin ranks the nodes). Node indices,
a partition's first node, a job's node list and the runs of consecutive nodes placement weighs
all follow it, so every slurmlab cluster keeps its nodes in that order."""

from __future__ import annotations

import warnings

from hypothesis import given
from hypothesis import strategies as st

from slurmlab import Cluster, Node, Partition, Scenario, simulate
from slurmlab.spec.job import JobSpec
from slurmlab.spec.units import node_order_key
from slurmlab.spec.workload import Workload, WorkloadJob


def _strnatcmp(a: str, b: str) -> int:
    """strnatcmp.c's strnatcmp0 (fold_case 0), transcribed line by line: the oracle for
    :func:`node_order_key`. C compares ``char``s, signed on x86."""
    x = [c - 256 if c > 127 else c for c in a.encode()] + [0]
    y = [c - 256 if c > 127 else c for c in b.encode()] + [0]

    def digit(c):
        return 48 <= c <= 57

    def compare_right(i, j):
        bias = 0
        while True:
            if not digit(x[i]) and not digit(y[j]):
                return bias
            if not digit(x[i]):
                return -1
            if not digit(y[j]):
                return 1
            if x[i] < y[j]:
                bias = bias or -1
            elif x[i] > y[j]:
                bias = bias or 1
            i, j = i + 1, j + 1

    def compare_left(i, j):
        while True:
            if not digit(x[i]) and not digit(y[j]):
                return 0
            if not digit(x[i]):
                return -1
            if not digit(y[j]):
                return 1
            if x[i] != y[j]:
                return -1 if x[i] < y[j] else 1
            i, j = i + 1, j + 1

    i = j = 0
    while True:
        ca, cb = x[i], y[j]
        if digit(ca) and digit(cb):
            fractional = ca == 48 or cb == 48
            result = compare_left(i, j) if fractional else compare_right(i, j)
            if result:
                return result
        if not ca and not cb:
            return 0
        if ca != cb:
            return -1 if ca < cb else 1
        i, j = i + 1, j + 1


NAMES = st.text(alphabet="ab-._09127Zé", min_size=1, max_size=7)


@given(NAMES, NAMES)
def test_node_order_key_orders_names_as_strnatcmp_does(a, b):
    """Two names compare by their keys as slurmctld's strnatcmp compares them: runs of digits
    as numbers, a run starting with 0 digit by digit, other characters by byte."""
    want = _strnatcmp(a, b)
    got = (node_order_key(a) > node_order_key(b)) - (node_order_key(a) < node_order_key(b))
    assert got == want


def test_natural_order_examples():
    """n2 before n10 (numbers); n05 before n5 and n010 before n02 (a leading 0 compares digit
    by digit); a name before a longer one it begins (n1, n1-ib); '-' (45) before any digit."""
    names = ["n10", "n2", "n1-ib", "n1", "n5", "n05", "n010", "n02", "n-1", "gpu10", "gpu9"]
    assert sorted(names, key=node_order_key) == [
        "gpu9", "gpu10", "n-1", "n010", "n02", "n05", "n1", "n1-ib", "n2", "n5", "n10",
    ]  # fmt: skip


OUT_OF_ORDER = """\
NodeName=n10 CPUs=8 RealMemory=8000
NodeName=gpu[1-2] CPUs=16 RealMemory=64000
NodeName=n2 CPUs=8 RealMemory=8000
NodeName=n1 CPUs=8 RealMemory=8000
PartitionName=all Nodes=n10,gpu[1-2],n[1-2] Default=YES MaxTime=1:00:00
PartitionName=n Nodes=n10,n2,n1 MaxTime=1:00:00
"""


def _conf(text: str) -> Cluster:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no SelectType line: named in a warning)
        return Cluster.from_slurm_conf(text)


def test_a_slurm_conf_with_nodes_out_of_order_gives_slurmctlds_node_table():
    """NodeName= lines in any order give the table in name order (n2 before n10); each
    partition's nodes are a bitmap over it, so they follow it too, whatever Nodes= lists."""
    cluster = _conf(OUT_OF_ORDER)
    assert [n.name for n in cluster.nodes] == ["gpu1", "gpu2", "n1", "n2", "n10"]
    assert cluster.partition("all").nodes == ("gpu1", "gpu2", "n1", "n2", "n10")
    assert cluster.partition("n").nodes == ("n1", "n2", "n10")


def test_a_cluster_given_in_python_or_inline_keeps_the_same_order(tmp_path):
    """A cluster built in Python or a scenario's inline cluster is a node table too: its
    nodes are in name order, and it equals the slurm.conf that lists the same nodes."""
    nodes = [Node("n10", 8, 8000), Node("gpu2", 16, 64000), Node("gpu1", 16, 64000)]
    nodes += [Node("n2", 8, 8000), Node("n1", 8, 8000)]
    parts = (
        Partition("all", ("n10", "gpu[1-2]", "n[1-2]"), default=True, max_time="1:00:00"),
        Partition("n", ("n10", "n2", "n1"), max_time="1:00:00"),
    )
    python = Cluster("x", tuple(nodes), parts)
    assert [n.name for n in python.nodes] == ["gpu1", "gpu2", "n1", "n2", "n10"]
    assert python.nodes == _conf(OUT_OF_ORDER).nodes
    assert python.partitions == _conf(OUT_OF_ORDER).partitions
    path = tmp_path / "inline.yaml"
    path.write_text(
        "cluster:\n  nodes:\n    - {name: n10, cpus: 8}\n    - {name: 'n[1-2]', cpus: 8}\n"
        "  partitions:\n    - {name: p, nodes: 'n10,n[1-2]'}\njobs: []\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inline = Scenario.load(path).cluster
    assert [n.name for n in inline.nodes] == ["n1", "n2", "n10"]
    assert inline.partition("p").nodes == ("n1", "n2", "n10")


def _job(id: str, args: str, submit: float = 0, runtime: float = 100) -> WorkloadJob:
    return WorkloadJob(JobSpec.from_args(args), submit, runtime, id=id)


def _nodes(cluster, *jobs, policy="slurm") -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = simulate(cluster, Workload.from_jobs(jobs), policy, progress=False)
    return dict(zip(result.jobs["JobID"], result.jobs["NodeList"], strict=True))


def test_a_multi_node_job_takes_the_first_nodes_of_the_table_in_natural_order():
    """Idle alike, n1, n2 and n10 are one run; -N 2 takes its first two nodes: n[1-2] (not
    n1,n10 as a plain strcmp would sort, nor n10,n1 as slurm.conf lists them)."""
    cluster = _conf(OUT_OF_ORDER)
    assert _nodes(cluster, _job("two", "-N 2 -p n -t 10")) == {"two": "n[1-2]"}


MEM0 = """\
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=gpu[1-4] CPUs=16 RealMemory=64000
NodeName=cpu[1-2] CPUs=32 RealMemory=128000
PartitionName=all Nodes=gpu[1-4],cpu[1-2] Default=YES MaxTime=1:00:00 DefMemPerCPU=1000
"""


def test_mem0_is_placed_over_runs_of_the_name_sorted_table():
    """The real-Slurm ``mem0-mixed`` case: gpu[1-4] listed before cpu[1-2], cpu1's memory
    partly used. In the table (cpu1, cpu2, gpu1-4) cpu2 and gpu[1-4] are one run of nodes a
    --mem=0 job fits, where it takes the tightest, gpu1 (in slurm.conf's order they would be
    two runs and the shorter, cpu2, would win); the next takes the shorter run left, cpu2.
    Both ask for cpu1's memory, the partition's first node's (ReqTRES mem=125G)."""
    cluster = _conf(MEM0)
    assert cluster.partition("all").nodes[0] == "cpu1"
    jobs = (
        _job("c1", "-n 1 --mem=1000 -w cpu1 -t 10"),
        _job("m1", "-n 1 --mem=0 -t 10", 2),
        _job("m2", "-n 1 --mem=0 -t 10", 4),
    )
    assert _nodes(cluster, *jobs) == {"c1": "cpu1", "m1": "gpu1", "m2": "cpu2"}
    spec = JobSpec.from_args("-n 1 --mem=0")
    assert spec.resources(cluster).req_mem_mb == 128000  # (ReqMem: cpu1's)


def test_a_continued_main_pass_keeps_the_nodes_of_a_waiting_w_job():
    """A -w job that cannot start keeps its nodes from the later jobs of the main
    scheduler's pass (job_scheduler.c); a job submitted later, tested by a pass continued
    from that one, finds them kept as a full pass would: c goes to n2, not the tighter n1."""
    cluster = _conf(
        "NodeName=n[1-2] CPUs=8 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES "
        "MaxTime=1:00:00\n"
    )
    jobs = (
        _job("a", "-n 4 -w n1 -t 10"),
        _job("b", "-n 8 -w n1 -t 10", 1),
        _job("c", "-n 2 -t 10", 2),
    )
    for policy in ("fifo", "slurm"):
        assert _nodes(cluster, *jobs, policy=policy) == {"a": "n1", "b": "n1", "c": "n2"}
