"""Large clusters cost what small ones do, and decide exactly the same.

Three shortcuts for clusters of thousands of nodes (see benchmarks/README.md, 28th look):

* ``resolve`` checks a request against one node of each class of nodes alike in CPUs,
  memory, GRES, features and threads per core (``_Pool``), not against every node, and
  ``Cluster.node`` finds a node by name in a dict (it scanned the nodes: resolving a
  request on 4,096 nodes looked nodes up 4,096 x 4,096 times);
* ``best_fit`` finds the runs of consecutive nodes with numpy;
* ``conservative`` starts the jobs that start now before any reservation stands without
  building a profile of every running job's end on every node.

Each test compares with the plain computation: nodes made unique (one class each), the
runs found by a Python loop, conservative with the shortcut switched off.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import SETTINGS, scenarios
from test_engine_resume import history, same

from slurmlab import Cluster, RandomFailures, Scenario, SlurmlabError, simulate
from slurmlab.errors import RequestError
from slurmlab.policies.backfill import Conservative
from slurmlab.policies.placement import _cuts
from slurmlab.records.swf import swf_cluster
from slurmlab.sim.controller import Controller
from slurmlab.spec.job import JobSpec, _Pool, resolve
from slurmlab.spec.synthetic import ai_workload, pool_workload

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore")

# three kinds of node, interleaved in the node list (each template: slurm.conf attributes)
TEMPLATES = (
    "CPUs=32 RealMemory=64000 Gres=gpu:a100:4 Features=a100,ib",
    "CPUs=64 RealMemory=256000 Gres=gpu:h100:8 Features=h100,ib,nvlink",
    "CPUs=16 RealMemory=32000 ThreadsPerCore=2 Features=cpu",
)
ARGS = (
    "-N 1",
    "-N 2 --gres=gpu:4",
    "-N 3 --gres=gpu:h100:8",
    "--gres=gpu:a100:2 -c 8",
    "-N 2 -C ib --gres=gpu:2",
    "-C nvlink -N 1 --exclusive",
    "-n 40",
    "-N 1-3 -n 48",
    "--mem=100G",
    "--mem=0 -N 2",
    "-c 12 --threads-per-core=1",
    "--gpus=12 --gpus-per-node=4",
    "-x n1 -N 2",
    "-w n2,n3",
    "-p cpu -n 8",
    "-p gpu,cpu -n 20",
    "--exclusive --mem-per-cpu=2000",
    "-N 4 --gres=gpu:1",
)


def conf(kinds: list[int], *, unique: bool = False) -> str:
    """A slurm.conf of the nodes n1.. of those kinds; ``unique`` gives each node a feature of
    its own, which makes every node its own class (the per-node computation)."""
    lines = [
        "ClusterName=mixed",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "GresTypes=gpu",
    ]
    for i, kind in enumerate(kinds, 1):
        line = f"NodeName=n{i} {TEMPLATES[kind]}"
        if unique:
            line += f",own{i}" if "Features=" in line else f" Features=own{i}"
        lines.append(line)
    every = ",".join(f"n{i}" for i in range(1, len(kinds) + 1))
    cpu = ",".join(f"n{i}" for i, k in enumerate(kinds, 1) if k == 2) or every
    lines.append(f"PartitionName=gpu Nodes={every} Default=YES MaxTime=INFINITE")
    lines.append(f"PartitionName=cpu Nodes={cpu} MaxTime=INFINITE")
    return "\n".join(lines)


def outcome(spec: JobSpec, cluster: Cluster):
    try:
        return resolve(spec, cluster)
    except RequestError as exc:
        return f"refused: {exc}"


@settings(max_examples=150, deadline=None)
@given(
    kinds=st.lists(st.integers(0, 2), min_size=1, max_size=12),
    args=st.lists(st.sampled_from(ARGS), min_size=1, max_size=6),
)
def test_resolving_by_node_classes_equals_resolving_node_by_node(kinds, args):
    classes = Cluster.from_slurm_conf(conf(kinds))
    each = Cluster.from_slurm_conf(conf(kinds, unique=True))
    for text in args:
        spec = JobSpec.from_args(text)
        got, want = outcome(spec, classes), outcome(spec, each)
        if "-C" in text and isinstance(want, str):  # (the error lists the nodes' features)
            assert isinstance(got, str)
        else:
            assert got == want, text


def test_candidates_keep_partition_order_across_classes():
    cluster = Cluster.from_slurm_conf(conf([0, 1, 0, 2, 1, 0, 1]))
    res = resolve(JobSpec.from_args("--gres=gpu:4"), cluster)  # a100 and h100 nodes
    assert res.candidates == ("n1", "n2", "n3", "n5", "n6", "n7")
    res = resolve(JobSpec.from_args("-c 40"), cluster)  # the 64-CPU nodes only
    assert res.candidates == ("n2", "n5", "n7")
    res = resolve(JobSpec.from_args("-C ib -x n3 -c 2"), cluster)
    assert res.candidates == ("n1", "n2", "n5", "n6", "n7")


def test_a_pool_groups_nodes_alike_and_keeps_their_order():
    cluster = Cluster.from_slurm_conf(conf([0, 1, 0, 2, 1]))
    pool = _Pool(cluster.nodes)
    assert [n.name for n in pool.reps] == ["n1", "n2", "n4"]  # one of each class
    assert pool.names == ("n1", "n2", "n3", "n4", "n5")
    big = pool.where(lambda n: n.cpus >= 32)
    assert big.names == ("n1", "n2", "n3", "n5")
    assert pool.where(lambda n: n.cpus >= 32) is big  # (kept: built once)
    assert pool.where(lambda n: True) is pool
    assert pool.where(lambda n: False).names == ()


def test_a_node_is_found_by_name():
    cluster = Cluster.from_slurm_conf(conf([0, 1, 2]))
    assert cluster.node("n2").cpus == 64
    for bad in ("n9", ["n1"], None):
        with pytest.raises(SlurmlabError, match="no node named"):
            cluster.node(bad)


def runs_by_loop(nodes: list[int], weight: list[int]) -> list[int]:
    """The cuts between runs as best_fit found them before: a Python loop."""
    return [
        k
        for k in range(1, len(nodes))
        if nodes[k] - nodes[k - 1] != 1 or weight[k] != weight[k - 1]
    ]


@settings(max_examples=300, deadline=None)
@given(
    picked=st.lists(st.booleans(), min_size=2, max_size=40),
    weights=st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=40, max_size=40)),
)
def test_best_fit_runs_found_by_numpy_are_the_loops(picked, weights):
    """best_fit's runs of consecutive fitting nodes of one Weight (the rest of its rule
    unchanged) are those its Python loop found."""
    idx = np.flatnonzero(picked)
    w = None if weights is None else np.array(weights, dtype=np.int64)
    nodes = idx.tolist()
    assert _cuts(idx, w) == runs_by_loop(nodes, [0] * len(nodes) if w is None else w[idx].tolist())


@settings(max_examples=300, deadline=None)
@given(
    picked=st.lists(st.booleans(), min_size=2, max_size=100),
    weights=st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=100, max_size=100)),
)
def test_best_fit_runs_looped_over_few_nodes_are_numpys(picked, weights):
    """Given the fitting nodes as lists too (as best_fit has them), ``_cuts`` loops in Python
    over up to ``_LOOP_CUTS`` of them (faster than numpy's calls there) and uses numpy
    beyond: the same runs either way."""
    idx = np.flatnonzero(picked)
    w = None if weights is None else np.array(weights, dtype=np.int64)
    nodes = idx.tolist()
    weight = [0] * len(nodes) if w is None else w[idx].tolist()
    assert _cuts(idx, w, nodes, weight) == _cuts(idx, w) == runs_by_loop(nodes, weight)


# -- conservative: jobs starting before any reservation stands, without a profile -----------
def both_ways(cluster, workload, **params):
    eager = history(simulate(cluster, workload, "conservative", **params))
    Conservative._eager = False
    try:  # (not monkeypatch: hypothesis runs many examples per test call)
        plain = history(simulate(cluster, workload, "conservative", **params))
    finally:
        Conservative._eager = True
    return eager, plain


@pytest.mark.parametrize(("preset", "seed", "load"), [
    ("ai", 1, 0.3), ("ai", 2, 0.9), ("teaching", 3, 0.5), ("teaching", 4, 1.5), ("tiny", 5, 0.7),
])  # fmt: skip
def test_conservative_starts_without_a_profile_as_with_one(preset, seed, load):
    cluster = Cluster.preset(preset)
    eager, plain = both_ways(cluster, ai_workload(400, cluster, seed=seed, load=load))
    assert same(eager, plain)


def test_conservative_on_a_pool_with_jobs_past_their_limits():
    """A trace's jobs run past their limits (released at now in a second interval)."""
    workload = pool_workload(1500, 64, seed=2)
    eager, plain = both_ways(swf_cluster(64), workload)
    assert same(eager, plain)


@pytest.mark.parametrize(
    "name", ["reservation", "maintenance", "node-failure", "preemption", "arrays", "update"]
)
def test_conservative_scenarios_with_reservations_failures_and_preemption(name):
    scenario = Scenario.load(ROOT / "datasets/realslurm/scenarios" / f"{name}.yaml")
    eager = history(scenario.run(policy="conservative"))
    Conservative._eager = False
    try:
        plain = history(scenario.run(policy="conservative"))
    finally:
        Conservative._eager = True
    assert same(eager, plain)


@SETTINGS
@given(case=scenarios())
def test_conservative_starts_without_a_profile_on_random_workloads(case):
    """Random clusters and workloads, with arrays, --begin, dependencies, zero-length jobs."""
    assert same(*both_ways(*case))


def test_the_shortcut_is_taken():
    """An under-loaded run starts most jobs without building a profile."""
    from slurmlab.policies import backfill

    built = []
    original = backfill.availability

    def spy(view, *args, **kwargs):
        built.append(view.now)
        return original(view, *args, **kwargs)

    cluster = Cluster.preset("ai")
    backfill.availability = spy
    try:
        simulate(cluster, ai_workload(300, cluster, seed=1, load=0.2), "conservative")
    finally:
        backfill.availability = original
    assert len(built) < 150  # (one per pass without the shortcut: over 300)


# -- the up nodes of each queued job's mask, while a node is out -------------------------
# While any node is drained or down (always some on a large cluster) every pass tests every
# queued job for nodes it may use that are up (ReqNodeNotAvail); the counts are now kept per
# mask and partition until a node changes state. Compared with counting at every test.
def plain_not_avail(self, record):
    return (
        int((record.mask & self.up).sum()) < record.count
        and self._partition_up(record.partition) >= record.count
    )


def kept_and_counted(cluster, workload, policy, **params):
    result = simulate(cluster, workload, policy, **params)
    kept = history(result)
    original = Controller._nodes_not_avail
    Controller._nodes_not_avail = plain_not_avail
    try:  # (not monkeypatch: hypothesis runs many examples per test call)
        counted = history(simulate(cluster, workload, policy, **params))
    finally:
        Controller._nodes_not_avail = original
    kept_and_counted.node_events = result.sim.node_events
    return kept, counted


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize(("preset", "seed", "out"), [
    ("ai", 1, {"gpu003": "DRAIN"}),
    ("ai", 2, {"gpu001": "DOWN", "cpu02": "DRAIN"}),
    ("teaching", 3, {"gpu04": "DRAIN"}),
])  # fmt: skip
def test_up_counts_kept_with_nodes_out(policy, preset, seed, out):
    cluster = Cluster.preset(preset).with_node_states(out)
    kept, counted = kept_and_counted(cluster, ai_workload(400, cluster, seed=seed), policy)
    assert same(kept, counted)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_up_counts_kept_with_nodes_failing_at_random(policy):
    """Nodes go down and come back: the counts are dropped at every change."""
    cluster = Cluster.preset("ai")
    failures = RandomFailures(mtbf=20 * 86400, repair=7200)
    kept, counted = kept_and_counted(
        cluster, ai_workload(400, cluster, seed=4), policy, random_failures=failures, seed=3,
        until=20 * 86400,
    )  # fmt: skip
    assert same(kept, counted)
    assert any(state == "DOWN" for _t, _n, state in kept_and_counted.node_events)


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@SETTINGS
@given(case=scenarios(), drained=st.integers(1, 4), state=st.sampled_from(["DRAIN", "DOWN"]))
def test_up_counts_kept_on_random_workloads(policy, case, drained, state):
    cluster, workload = case
    names = [n.name for n in cluster.nodes]
    cluster = cluster.with_node_states({names[(drained - 1) % len(names)]: state})
    assert same(*kept_and_counted(cluster, workload, policy))


def test_a_job_whose_nodes_are_out_waits_for_them():
    """The reason itself (real Slurm: ReqNodeNotAvail while its only node is drained)."""
    text = conf([0, 1, 2])
    cluster = Cluster.from_slurm_conf(text).with_node_states({"n2": "DRAIN"})
    from slurmlab.spec.workload import Workload, WorkloadJob

    jobs = (WorkloadJob(JobSpec.from_args("-C nvlink -t 10"), submit=0, runtime=60),)
    result = simulate(cluster, Workload(jobs), "fifo")
    assert result.jobs.Reason.iloc[0] == "ReqNodeNotAvail"
    assert result.jobs.State.iloc[0] == "PENDING"


# -- taking an event out of simpy's queue ----------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(
    times=st.lists(st.integers(0, 50), min_size=1, max_size=60),
    out=st.lists(st.integers(0, 59), max_size=30),
)
def test_unscheduled_events_leave_the_others_in_order(times, out):
    """_unschedule mends simpy's heap where the entry was (it rebuilt the whole heap per
    cancelled or failed job): the events left are processed in the order they would be."""
    import simpy

    from slurmlab.sim.processes import _unschedule

    env = simpy.Environment()
    events = [env.timeout(t, value=k) for k, t in enumerate(times)]
    gone = {k % len(events) for k in out}
    for k in gone:
        _unschedule(env, events[k])
    seen = []
    for k, ev in enumerate(events):
        ev.callbacks.append(lambda e, k=k: seen.append(k))
    env.run()
    # simpy orders same-time events by when they were scheduled
    want = sorted((k for k in range(len(events)) if k not in gone), key=lambda k: (times[k], k))
    assert seen == want


# -- gres.conf records found per node through an index ---------------------------------------
def test_gres_conf_records_and_autodetect_per_node():
    """A node's records are the lines for every node and its own, in file order; its own
    AutoDetect line (the last naming it) overrides the file's."""
    from test_qa_stop28_conf import MIXED_CONF, gres_of, load

    gres = (
        "AutoDetect=nvml\n"
        "NodeName=gpu01 AutoDetect=off\n"
        "NodeName=gpu01 Name=gpu File=/dev/nvidia[0-3]\n"
        "Name=mps Count=400\n"
        "NodeName=gpu02 Name=gpu File=/dev/nvidia[0-3]\n"
    )
    cluster, caught = load(MIXED_CONF, gres)
    assert gres_of(cluster)["gpu01"] == gres_of(cluster)["gpu02"] == "gpu:4,mps:400"
    assert len(caught) == 2
    assert caught[0].startswith("gres.conf line 4: Name=mps: slurm.conf's Gres= of cpu[01-02]")
    assert caught[1].startswith(  # gpu01's own AutoDetect=off holds for it
        "gres.conf line 1: AutoDetect=nvml: not modelled by slurmlab (ignored): slurmd asks "
        "NVIDIA's NVML for the GPUs of gpu02 (their"
    )


def test_a_thousand_node_gres_conf_of_one_line_per_node():
    nodes = 1000
    conf_text = "\n".join([
        "ClusterName=g", "GresTypes=gpu",
        f"NodeName=g[0001-{nodes}] CPUs=64 RealMemory=512000 Gres=gpu:h100:8",
        "PartitionName=all Nodes=ALL Default=YES",
    ])  # fmt: skip
    gres = "".join(f"NodeName=g{i:04d} Name=gpu Type=h100 File=/dev/nvidia[0-7]\n" for i in
                   range(1, nodes + 1))  # fmt: skip
    cluster = Cluster.from_slurm_conf(conf_text, gres)
    assert cluster.tres()["gres/gpu"] == 8 * nodes


# -- anonymize: node lists kept --------------------------------------------------------------
def test_anonymized_node_lists_are_kept_and_counted():
    from slurmlab.anonymize import Anonymizer

    anon = Anonymizer(salt="s")
    first = anon.nodes("gpu[01-04]")
    count = anon.result.replaced
    assert count == 4
    assert anon.nodes("gpu[01-04]") == first  # (from the kept list)
    assert anon.result.replaced == 8  # counted as each name's replacement is
    # the same names, the same pseudonyms (each list collected, so in sorted order)
    assert set(anon.nodes("gpu[03-04]").split(",")) < set(first.split(","))
    assert anon.nodes("not a[hostlist") == anon.pseudonym("node", "not a[hostlist")


def test_pools_filtered_by_node_names_are_not_kept():
    """A replayed export may name other nodes (-w, -x) on every job: a pool kept per node
    list (thousands of nodes each) held 413 MB after 2,000 such jobs on 4,096 nodes."""
    from slurmlab.spec.cluster import derived

    cluster = Cluster.from_slurm_conf(conf([0, 1, 2] * 4))
    resolve(JobSpec.from_args("-N 1"), cluster)
    kept = len(derived(cluster))
    for i in range(1, 13):
        resolve(JobSpec.from_args(f"-N 1 -x n{i}"), cluster)
        assert resolve(JobSpec.from_args(f"-w n{i}"), cluster).candidates == (f"n{i}",)
    assert len(derived(cluster)) == kept


def test_kept_node_lists_fill_a_new_result_as_before():
    """(review) A caller may start a new result between exports: the kept lists' names go
    into its mapping, as a fresh replacement would put them."""
    from slurmlab.anonymize import Anonymizer, AnonymizeResult, anonymize_text

    anon, text = Anonymizer("s"), "JobID|NodeList\n1|n[1-2]\n2|n[1-2],n1\n"
    anonymize_text(text, anon)
    first = dict(anon.result.mapping), anon.result.replaced
    anon.result = AnonymizeResult()
    anonymize_text(text, anon)
    assert (dict(anon.result.mapping), anon.result.replaced) == first


def test_the_node_index_is_not_a_field_of_the_cluster():
    """(review) Kept beside the cluster: its pickles and dataclasses.asdict are as before."""
    import dataclasses
    import pickle

    cluster = Cluster.from_slurm_conf(conf([0, 1, 2]))
    assert [f.name for f in dataclasses.fields(Cluster)] == [
        "name", "nodes", "partitions", "settings", "processor_pool",
    ]  # fmt: skip
    again = pickle.loads(pickle.dumps(cluster))
    assert again == cluster and again.node("n3").cpus == 16


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True),
            st.from_regex(r"[a-z0-9\[\],:\-]{1,12}", fullmatch=True),
            st.sampled_from([" ", "  ", "\t"]),
        ),
        max_size=6,
    )
)
def test_slurm_conf_lines_split_into_their_pairs(items):
    """A line of Key=Value words (blanks between) reads as exactly those pairs, as
    parse_config.c's keyvalue_pattern reads them."""
    from slurmlab.spec.slurm_conf import _pairs

    line = "".join(f"{k}={v}{gap}" for k, v, gap in items)
    assert _pairs(line, 1, "slurm.conf") == [(k, v) for k, v, _gap in items]
