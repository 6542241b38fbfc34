"""Stop 43's QA findings on the engine: reservations, dependencies, requeue, limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slurmlab import Lab, Scenario, ScenarioError
from slurmlab.spec.units import compress_hostlist, expand_hostlist, ordered_hostlist

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _run(tmp_path, text, policy=None):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return Scenario.load(path).run(policy)


PART_RESERVED = """
cluster: tiny
policy: {name: slurm}
reservations:
  - {name: pm, start: "1:00:00", duration: "1:00:00", nodes: "node[1-2]", users: root, flags: [maint]}
jobs:
  - {id: big, submit: 0, runtime: 1800, user: bob, args: "-N 3 -t 2:00:00"}
  - {id: small, submit: 0, runtime: 1800, user: bob, args: "-N 2 -t 2:00:00"}
"""


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
@pytest.mark.parametrize("flags", ["[maint]", "[]"])
def test_a_job_reservations_keep_out_blocks_nothing_when_the_rest_is_idle(tmp_path, policy, flags):
    """A reservation holds node[1-2] from 1h (maintenance or not; not the whole partition).
    'big' (-N 3 -t 2h) cannot run on node[3-4] even idle, and neither is busy: select's
    ESLURM_NODE_NOT_AVAIL (node_scheduler.c _pick_best_nodes: not runable_avail, no
    nodes_busy), ReqNodeNotAvail; job_scheduler.c fails a partition only on
    ESLURM_NODES_BUSY, so 'small' starts at once on node[3-4] (it used to wait 2 hours
    behind 'big', given Resources)."""
    result = _run(tmp_path, PART_RESERVED.replace("[maint]", flags), policy)
    jobs = result.jobs.set_index("JobID")
    assert result.seconds("Start").tolist() == [7200.0, 0.0]
    assert jobs.loc["small", "NodeList"] == "node[3-4]"
    assert jobs.loc["big", "Reason"] == "ReqNodeNotAvail"
    queue = result.squeue(at=10).set_index("JOBID")
    assert (
        queue.loc["big", "NODELIST(REASON)"] == "(ReqNodeNotAvail, May be reserved for other job)"
    )
    why = result.why_pending("big", at=10)
    assert "advance reservation pm holds nodes it needs" in why
    assert "it holds back no later job of partition main" in why


def test_a_job_reservations_keep_out_blocks_when_a_node_left_to_it_is_busy(tmp_path):
    """The same, with node4 held whole by an --exclusive job: a node 'big' may use is busy
    (ESLURM_NODES_BUSY): Resources, and it blocks its partition under fifo."""
    text = (
        PART_RESERVED.replace(
            "  - {id: big,",
            '  - {id: hog, submit: 0, runtime: 600, user: bob, args: "-N 1 -w node4 --exclusive -t 20"}\n'
            "  - {id: big,",
        )
        .replace(
            'submit: 0, runtime: 1800, user: bob, args: "-N 3',
            'submit: 1, runtime: 1800, user: bob, args: "-N 3',
        )
        .replace("{id: small, submit: 0", "{id: small, submit: 2")
    )
    result = _run(tmp_path, text, "fifo")
    starts = dict(zip(result.jobs["JobID"], result.seconds("Start")))
    assert starts["small"] > 0  # behind 'big', which blocks
    queue = result.squeue(at=10).set_index("JOBID")
    assert queue.loc["big", "NODELIST(REASON)"] == "(Resources)"
    assert queue.loc["small", "NODELIST(REASON)"] == "(Priority)"


def test_sacct_keeps_the_code_of_a_maintenance_wait():
    """sacct's Reason is the reason's code (job_reason_string), not squeue's words
    ("ReqNodeNotAvail, Reserved for maintenance"): the real maintenance fixture shows
    ReqNodeNotAvail."""
    root = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
    result = Scenario.load(root / "scenarios" / "maintenance.yaml").run()
    jobs = result.jobs.set_index("JobID")
    assert jobs.loc["wide", "Reason"] == "ReqNodeNotAvail"
    assert "ReqNodeNotAvail\n" in result.sacct_text("JobID,Reason")


def test_a_dependency_on_a_purged_job_is_lifted():
    """test_job_dependency: a job whose record slurmctld purged (MinJobAge, 300 s, after it
    ended) is gone, and a dependency on it is lifted ("job is gone, dependency lifted"):
    afterok on a failed job and afternotok on a completed one both start, as they do on a
    real cluster. A dependency tested while the record was there keeps its verdict."""
    lab = Lab("tiny")
    failed = lab.sbatch("-n 1 -t 10", runtime="1m", exit_code=1)
    done = lab.sbatch("-n 1 -t 10", runtime="1m")
    kept = lab.sbatch(f"-n 1 -t 10 --dependency=afterok:{failed}")
    lab.advance("10m")
    after_ok = lab.sbatch(f"-n 1 -t 10 --dependency=afterok:{failed}")
    after_not_ok = lab.sbatch(f"-n 1 -t 10 --dependency=afternotok:{done}")
    lab.advance(5)
    queue = lab.squeue().set_index("JOBID")["ST"]
    assert queue[str(after_ok)] == "R" and queue[str(after_not_ok)] == "R"
    assert lab.squeue().set_index("JOBID").loc[str(kept), "NODELIST(REASON)"] == (
        "(DependencyNeverSatisfied)"
    )


def test_a_dependency_is_tested_before_the_begin_time():
    """job_mgr.c job_independent tests the dependency first, then --begin: a job with both
    waits for Dependency; a singleton whose namesake is submitted after it is satisfied at
    its submission (the list flushed), so it starts at its --begin time."""
    lab = Lab("tiny")
    first = lab.sbatch("-n 1 -t 10", runtime="5m")
    both = lab.sbatch(f"-n 1 -t 10 --begin=now+3600 --dependency=afterok:{first}")
    lab.advance(5)
    assert lab.squeue().set_index("JOBID").loc[str(both), "NODELIST(REASON)"] == "(Dependency)"
    lab = Lab("tiny")
    single = lab.sbatch("-n 1 -J t -t 10 --dependency=singleton --begin=now+100", runtime="5m")
    lab.sbatch("-n 1 -J t -t 10", runtime="10m")
    lab.advance(200)
    assert lab.squeue().set_index("JOBID").loc[str(single), "ST"] == "R"


REQUEUED_FIRST = """
cluster:
  nodes: [{name: "gpu[1-4]", cpus: 64, memory: 512000, gres: "gpu:a100:8"}]
  partitions: [{name: gpu, nodes: "gpu[1-4]", max_time: "2-00:00:00", default: true}]
policy: fifo
jobs:
  - {id: ddp, submit: 0, runtime: "2:00:00", args: "-N 4 --ntasks-per-node=8 --gres=gpu:8 -t 3:00:00"}
  - {id: later, submit: 100, runtime: "2:00:00", args: "-N 4 --ntasks-per-node=8 --gres=gpu:8 -t 3:00:00"}
failures:
  - {node: gpu2, at: 600, down_for: 300}
"""


@pytest.mark.parametrize("policy", ["fifo", "easy", "slurm"])
def test_a_requeued_job_keeps_its_priority_under_priority_basic(tmp_path, policy):
    """No requeue path of job_mgr.c calls set_job_prio (kill_running_job_by_node_name,
    _job_requeue_op, batch_requeue_fini): the DDP job requeued after gpu2 fails keeps its
    priority and restarts first, when gpu2 is back (it went behind 'later', 2 hours)."""
    result = _run(tmp_path, REQUEUED_FIRST, policy)
    starts = result.jobs.groupby("JobID")["Start"].max().dt.strftime("%H:%M").to_dict()
    assert starts == {"ddp": "00:15", "later": "02:15"}


def test_why_pending_names_when_a_finished_job_was_requeued(tmp_path):
    """scontrol requeue of a job that ended at 600 s, at 900 s: it is eligible again at
    1021 s (the 121 s delay from the requeue, not from its end)."""
    text = """
cluster: ai
policy: easy
jobs:
  - {id: ddp, submit: 0, runtime: 600, exit_code: 1, args: "-N 2 --gres=gpu:8 -t 1:00:00 -p train"}
actions:
  - {at: 900, action: requeue, job: ddp}
"""
    why = _run(tmp_path, text).why_pending("ddp", at=1000)
    assert "requeued at t=900s" in why and "at t=1021s" in why


def test_why_pending_says_a_job_over_a_limit_on_its_own_never_starts(tmp_path):
    """QOS MaxTRESPerUser gres/gpu=4 and a job of 8 GPUs on an idle cluster: it is over the
    limit on its own, so it never starts ("it starts when enough of them end" was wrong)."""
    text = """
cluster:
  nodes: [{name: "n[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  partitions: [{name: gpu, nodes: "n[1-4]", max_time: "1-00:00:00"}]
  settings: {GresTypes: gpu}
policy: slurm
accounts: [{name: llm, users: [alice]}]
qos:
  - {name: normal, max_tres_per_user: "gres/gpu=4"}
jobs:
  - {id: big, submit: 0, runtime: 60, user: alice, args: "-N 2 --gres=gpu:4 -t 10 -A llm"}
"""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    why = Scenario.load(path).run(until=100).why_pending("big", at=50)
    assert "(QOSMaxGRESPerUser)" in why and "it will never start as it is" in why
    assert "when enough of them end" not in why


def test_a_qos_preemption_loop_is_refused(tmp_path):
    """sacctmgr refuses QOS that preempt one another in a loop (as_mysql_qos.c
    _preemption_loop); the jobs of such QOS preempted each other until the run gave up."""
    from slurmlab import Lab, ScenarioError, SlurmlabError
    from slurmlab.spec.qos import Qos

    text = """
cluster: tiny
qos:
  - {name: qa, preempt: [qb]}
  - {name: qb, preempt: [qc]}
  - {name: qc, preempt: [qa]}
jobs:
  - {submit: 0, runtime: 60, args: "-n 1 --qos=qa"}
"""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(
        ScenarioError,
        match=r"line 4: qos\[0\] \(qa\): field 'preempt': QOS qa -> qb -> qc -> qa",
    ):
        Scenario.load(path)
    with pytest.raises(SlurmlabError, match="Preemption loop detected"):
        Lab("tiny", qos=[Qos("qa", preempt=("qb",)), Qos("qb", preempt=("qa",))])


IN_RESERVATION = """
cluster: tiny
policy: {name: slurm}
reservations:
  - {name: ar, start: 0, duration: "10:00:00", nodes: "node[1-2]", users: alice}
jobs:
  - {id: a1, submit: 0, runtime: 3600, user: alice, args: "-N 1 --exclusive -t 1:00:00 --reservation=ar"}
  - {id: abig, submit: 10, runtime: 1800, user: alice, args: "-N 2 --exclusive -t 1:00:00 --reservation=ar"}
  - {id: asmall, submit: 20, runtime: 7000, user: alice, args: "-N 1 --exclusive -t 2:00:00 --reservation=ar"}
"""


@pytest.mark.parametrize("policy", ["fifo", "easy", "conservative", "slurm"])
def test_a_reservation_whose_job_finds_its_nodes_busy_starts_no_later_one(tmp_path, policy):
    """job_scheduler.c schedule: 'abig' finds the reservation's nodes busy (failed_resv), so
    'asmall', later in the queue, waits for Priority and does not take node2 ahead of it
    (it did, and 'abig' slipped from 1:00 to 1:57)."""
    result = _run(tmp_path, IN_RESERVATION, policy)
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"a1": "00:00", "abig": "01:00", "asmall": "01:30"}
    queue = result.squeue(at=1800).set_index("JOBID")["NODELIST(REASON)"].to_dict()
    assert queue == {"a1": "node1", "abig": "(Resources)", "asmall": "(Priority)"}


def test_a_reservation_covered_by_another_over_the_limit_waits_for_maintenance(tmp_path):
    """node_scheduler.c _build_node_list: every node of alice's reservation is in a
    maintenance window within the job's limit (resv_overlap, no usable node): it pends
    'ReqNodeNotAvail, Reserved for maintenance' (it showed Resources)."""
    text = """
cluster: tiny
policy: slurm
reservations:
  - {name: ar, start: 0, duration: "5:00:00", nodes: "node[1-2]", users: alice}
  - {name: pm, start: "1:00:00", duration: "1:00:00", nodes: "node[1-2]", users: root, flags: [maint]}
jobs:
  - {id: long, submit: 0, runtime: 1800, user: alice, args: "-N 1 -t 2:00:00 --reservation=ar"}
  - {id: short, submit: 0, runtime: 1800, user: alice, args: "-N 1 -t 30 --reservation=ar"}
"""
    result = _run(tmp_path, text)
    starts = result.jobs.set_index("JobID")["Start"].dt.strftime("%H:%M").to_dict()
    assert starts == {"long": "02:00", "short": "00:00"}
    queue = result.squeue(at=600).set_index("JOBID")["NODELIST(REASON)"].to_dict()
    assert queue == {"long": "(ReqNodeNotAvail, Reserved for maintenance)", "short": "node1"}


TWO_KINDS = """
cluster:
  nodes:
    - {name: "gpu[1-2]", cpus: 16, memory: 64000, gres: "gpu:a100:4"}
    - {name: "cpu[1-2]", cpus: 32, memory: 64000}
  partitions:
    - {name: cpu, nodes: "cpu[1-2]", default: true}
    - {name: gpu, nodes: "gpu[1-2]"}
  settings: {GresTypes: gpu}
policy: slurm
reservations:
  - {name: r1, start: "1:00:00", duration: "1:00:00", node_count: 1, users: alice}
jobs:
  - {id: a, submit: 0, runtime: 60, user: alice, args: "-N 1 -p cpu --reservation=r1 -t 10"}
"""


def test_a_node_count_reservation_takes_its_partitions_nodes(tmp_path):
    """reservation.c _select_nodes takes a NodeCnt= reservation's nodes from its
    PartitionName=, by default the default partition (it took gpu1, the cluster's first
    node, and the cpu job in it was refused)."""
    result = _run(tmp_path, TWO_KINDS)
    assert result.jobs.set_index("JobID").loc["a", "NodeList"] == "cpu1"
    text = TWO_KINDS.replace("node_count: 1,", "node_count: 1, partition: gpu,").replace(
        "-p cpu", "-p gpu"
    )
    assert _run(tmp_path, text).jobs.set_index("JobID").loc["a", "NodeList"] == "gpu1"
    lab = Lab("tiny")
    assert lab.reserve("r", "1h", node_count=2, users="root", partition="main") == (
        "node1",
        "node2",
    )
    path = tmp_path / "s.yaml"
    path.write_text(TWO_KINDS.replace("node_count: 1,", "node_count: 1, partition: gpus,"))
    with pytest.raises(
        ScenarioError, match=r"reservations\[0\]: field 'partition': .*'gpus' is unknown"
    ):
        Scenario.load(path)


ORDER_CONF = """
GresTypes=gpu
NodeName=h100-[1-2] CPUs=16 RealMemory=64000 Gres=gpu:2
NodeName=a100-[1-2] CPUs=16 RealMemory=64000 Gres=gpu:2
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE
"""


def test_a_jobs_node_list_keeps_the_node_tables_order():
    """slurmctld writes a job's nodes in its node table's order (bitmap2node_name_sortable(
    bitmap, false)), which is by name whatever the order of slurm.conf's lines (read_config.c
    _sort_node_record_table_ptr), and srun numbers them in it: SLURM_JOB_NODELIST's first
    host is SLURM_NODEID 0 and MASTER_ADDR, as `scontrol show hostnames $SLURM_JOB_NODELIST
    | head -1` gives it."""
    from slurmlab import Cluster

    lab = Lab(Cluster.from_slurm_conf(ORDER_CONF))
    job = lab.sbatch("-N 4 --ntasks-per-node=2 --gres=gpu:2 -t 30", runtime=600)
    lab.advance(10)
    assert lab.squeue().set_index("JOBID").loc[str(job), "NODELIST(REASON)"] == (
        "a100-[1-2],h100-[1-2]"
    )
    assert lab.sacct().set_index("JobID").loc[str(job), "NodeList"] == "a100-[1-2],h100-[1-2]"
    env = lab.srun_env(job)
    assert set(env["SLURM_JOB_NODELIST"]) == {"a100-[1-2],h100-[1-2]"}
    assert env.loc[0, "MASTER_ADDR"] == env.loc[0, "SLURMD_NODENAME"] == "a100-1"


@given(
    st.lists(st.integers(0, 150), min_size=1, max_size=12, unique=True),
    st.sampled_from(["n", "gpu", "a100-"]),
    st.sampled_from([0, 2, 3]),
)
def test_an_ordered_hostlist_of_sorted_names_is_the_compressed_one(numbers, stem, width):
    names = [f"{stem}{n:0{width}d}" if width else f"{stem}{n}" for n in sorted(numbers)]
    assert ordered_hostlist(names) == compress_hostlist(names)
    assert expand_hostlist(ordered_hostlist(names)) == names


def test_a_failure_of_several_nodes_may_list_them(tmp_path):
    """failures[].node takes a YAML list as random_failures.nodes does (it was read as the
    text "['node1', 'node2']" and refused as a bad hostlist)."""
    text = """
cluster: tiny
jobs:
  - {id: a, submit: 0, runtime: 600, args: "-N 2 -t 20"}
failures:
  - {node: [node1, node2], at: 100, down_for: 60}
"""
    events = _run(tmp_path, text).events
    down = events[events["event"] == "node_down"]
    assert down["detail"].tolist() == ["node1", "node2"]


def test_why_pending_names_a_preemption_waiting_for_preempt_exempt_time(tmp_path):
    """preempt/qos with PreemptExemptTime=20:00: 'h' (QOS high) may preempt 'l1' only once
    l1 has run 20 minutes; why_pending says so (it said no change would help)."""
    text = """
cluster:
  nodes: [{name: "gpu[1-2]", cpus: 16, memory: 64000, gres: "gpu:a100:4"}]
  partitions: [{name: gpu, nodes: "gpu[1-2]", max_time: "1-00:00:00"}]
  settings: {PreemptType: preempt/qos, PreemptMode: REQUEUE, PreemptExemptTime: "00:20:00",
             PriorityType: priority/multifactor, PriorityWeightQOS: 10000, GresTypes: gpu}
policy: slurm
qos:
  - {name: high, priority: 1000, preempt: [low]}
  - {name: low, priority: 0}
jobs:
  - {id: l1, submit: 0, runtime: 7200, user: bob, args: "-N 2 --exclusive -t 3:00:00 --qos=low"}
  - {id: h, submit: 600, runtime: 600, user: alice, args: "-N 1 --exclusive -t 20:00 --qos=high"}
"""
    result = _run(tmp_path, text)
    why = result.why_pending("h", at=700)
    assert "may preempt job l1 (until t=1200s, 2026-01-05T00:20:00)" in why
    assert "preempts from t=1200s (2026-01-05T00:20:00)" in why
    assert result.jobs.set_index("JobID").loc["h", "Start"].strftime("%H:%M") == "00:20"


def test_repeated_names_in_an_inline_cluster_name_the_repeated_one(tmp_path):
    text = """
cluster:
  nodes: [{name: "n[1-2]", cpus: 4, memory: 8000}]
  partitions: [{name: a, nodes: "n[1-2]", default: true}, {name: b, nodes: n1}, {name: a, nodes: n2}]
jobs: [{submit: 0, runtime: 60, args: "-n 1"}]
"""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=r"partition names repeated: a is defined twice; give"):
        Scenario.load(path)


@pytest.mark.parametrize(
    ("bad", "line"),
    [("restart_cost: -5", 11), ("down_for: 10 minutes", 15)],
)
def test_an_error_in_a_sub_field_names_its_own_line(tmp_path, bad, line):
    text = """cluster: tiny
jobs:
  - id: a
    submit: 0
    runtime: 600
    args: "-N 1 -t 30"
    checkpoint:
      interval: 1h
      write_cost: 60
      restart_cost: 5
failures:
  - node: node3
    at: 100
    down_for: 600
"""
    key = bad.split(":")[0]
    text = "\n".join(
        f"{ln.split(':')[0]}: {bad.split(': ')[1]}" if ln.strip().startswith(key) else ln
        for ln in text.splitlines()
    )
    path = tmp_path / "s.yaml"
    path.write_text("name: x\n" + text)
    with pytest.raises(ScenarioError, match=rf"s.yaml line {line}: .*{key}"):
        Scenario.load(path).run()


def test_a_lab_takes_failures_qos_and_reservations_as_a_scenarios_entries():
    """Lab(failures=[{...}]) took no dicts while Lab.sbatch(checkpoint={...}) did: entries
    in a scenario file's form are read as that file's are, errors naming the entry."""
    lab = Lab("tiny", failures=[{"node": "node1", "at": 100, "down_for": 60}])
    lab.run(until=200)
    events = lab.result.events
    assert events[events["event"] == "node_down"]["detail"].tolist() == ["node1"]
    with pytest.raises(Exception, match=r"failures\[0\]: each failure needs 'node' and 'at'"):
        Lab("tiny", failures=[{"node": "node1"}])
    with pytest.raises(Exception, match=r"or in Lab.sbatch its dict \{'interval': 3600"):
        Lab("tiny").sbatch("-N 1 -t 30", runtime=600, checkpoint=3600)


@pytest.mark.parametrize("value", ["-5", "-2h"])
def test_a_negative_until_says_why(value):
    from slurmlab import Cluster, SlurmlabError, simulate
    from slurmlab.spec.synthetic import ai_workload

    cluster = Cluster.preset("tiny")
    with pytest.raises(SlurmlabError, match="a time before the start; give 0 or more"):
        simulate(cluster, ai_workload(5, cluster, seed=1), "fifo", until=value)


def test_a_job_naming_its_nodes_fails_not_its_reservation(tmp_path):
    """job_scheduler.c: a job whose -w list covers its node count does not fail its
    partition (nor its reservation); only its nodes are kept from later jobs. J1 waits for
    node1, J2 starts at once on node2 (review of stop 43)."""
    text = """
cluster: tiny
policy: fifo
reservations:
  - {name: r, start: 0, duration: "4:00:00", nodes: "node[1-2]", users: bob}
jobs:
  - {id: J0, submit: 0, runtime: 1800, user: bob, args: "-N 1 -w node1 --exclusive --reservation=r -t 1:00:00"}
  - {id: J1, submit: 5, runtime: 600, user: bob, args: "-N 1 -w node1 --reservation=r -t 1:00:00"}
  - {id: J2, submit: 5, runtime: 600, user: bob, args: "-N 1 --reservation=r -t 1:00:00"}
"""
    starts = dict(zip(*(lambda r: (r.jobs["JobID"], r.seconds("Start")))(_run(tmp_path, text))))
    assert starts == {"J0": 0, "J1": 1800, "J2": 5}


def test_a_job_of_several_partitions_keeps_resources_by_a_reservation(tmp_path):
    """-p a,b: partition b, tried last, is busy: the job waits for Resources (the record
    tried last sets the reason), not ReqNodeNotAvail from partition a's reservation."""
    text = """
cluster:
  nodes: [{name: "node[1-4]", cpus: 4, memory: 8000}]
  partitions:
    - {name: a, nodes: "node[1-2]", default: true}
    - {name: b, nodes: "node[3-4]"}
policy: fifo
reservations:
  - {name: pm, start: "1:00:00", duration: "1:00:00", nodes: "node1", users: root}
jobs:
  - {id: Y, submit: 0, runtime: 5000, user: bob, args: "-p b -N 2 --exclusive -t 3:00:00"}
  - {id: X, submit: 1, runtime: 600, user: bob, args: "-p a,b -N 2 -t 2:00:00"}
"""
    result = _run(tmp_path, text)
    assert result.squeue(at=10).set_index("JOBID").loc["X", "NODELIST(REASON)"] == "(Resources)"
    assert "down or drained" not in result.why_pending("X", at=10)
