"""QA stop 26: a GPU-cluster admin's review of failures, preemption and reservations.

Each test quotes the scenario of the finding and its exact outcome.
"""

from __future__ import annotations

import textwrap

from slurmlab.scenario import Scenario

PREEMPT_HEAD = """\
name: pc
cluster:
  name: pc
  nodes:
    - {name: "g[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}
  partitions:
    - {name: gpu, nodes: "g[1-4]", max_time: "1-00:00:00"}
  settings: {PreemptType: preempt/qos, PreemptMode: REQUEUE, GresTypes: gpu}
policy: slurm
qos:
  - {name: normal, priority: 0}
  - {name: low, priority: 0}
  - {name: high, priority: 1000, preempt: [low]}
"""


def scenario(tmp_path, text: str, name: str = "s.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return Scenario.load(path)


def rows(result) -> dict[str, tuple]:
    jobs = result.jobs
    return {
        str(j): (state, start, nodes)
        for j, state, start, nodes in zip(
            jobs["JobID"], jobs["State"], result.seconds("Start"), jobs["NodeList"], strict=True
        )
    }


def test_preemptors_of_one_pass_do_not_count_the_same_free_node_twice(tmp_path):
    # g4 is idle when h1 (1 node) and h2 (2 nodes) arrive together. h1 takes g4 without
    # preempting; h2 then needs two victims' worth of room: `big` alone (g[1-2]). Slurm tests
    # the jobs one by one (h1 starts first), so `small` on g3 keeps running. Both were
    # preempted before, h2's search counting g4 as free too.
    s = scenario(
        tmp_path,
        PREEMPT_HEAD
        + """\
jobs:
  - {id: big, submit: 0, runtime: 3600, args: "-N 2 --exclusive -t 2:00:00 --qos=low", user: alice}
  - {id: small, submit: 1, runtime: 3600, args: "-N 1 --exclusive -t 2:00:00 --qos=low", user: bob}
  - {id: h1, submit: 1000, runtime: 600, args: "-N 1 --exclusive -t 30 --qos=high", user: carol}
  - {id: h2, submit: 1000, runtime: 600, args: "-N 2 --exclusive -t 30 --qos=high", user: carol}
""",
    )
    r = s.run()
    assert rows(r) == {
        "big": ("COMPLETED", 1600.0, "g[1-2]"),  # requeued by h2, back after it
        "small": ("COMPLETED", 1.0, "g3"),  # never preempted
        "h1": ("COMPLETED", 1000.0, "g4"),
        "h2": ("COMPLETED", 1000.0, "g[1-2]"),
    }
    preempted = r.events[r.events["event"] == "preempt"]
    assert list(zip(preempted["JobID"], preempted["detail"], strict=True)) == [("big", "by h2")]
    assert dict(zip(r.jobs["JobID"], r.jobs["Restarts"], strict=True))["small"] == 0


FAIL_TWICE = """\
name: twice
cluster:
  name: c
  nodes:
    - {name: "g[1-2]", cpus: 16, memory: 64000}
  partitions:
    - {name: p, nodes: "g[1-2]", max_time: "1-00:00:00"}
policy: fifo
failures:
  - {node: g2, at: 100, down_for: %s}
  - {node: g2, at: 120, down_for: %s}
jobs:
  - {id: a, submit: 0, runtime: 600, args: "-N 2 -t 1:00:00"}
"""


def node_back(result, name: str) -> list[float]:
    ev = result.events
    return list(ev[(ev["event"] == "node_idle") & (ev["detail"] == name)]["time"])


def test_a_node_failing_again_while_down_comes_back_when_both_repairs_are_done(tmp_path):
    # a second failure during the repair was dropped, with its repair: g2 was back at 160 s
    # and ran the requeued job from then on
    longer = scenario(tmp_path, FAIL_TWICE % (60, 7200), "longer.yaml").run()
    assert node_back(longer, "g2") == [7320.0]
    assert rows(longer)["a"] == ("COMPLETED", 7320.0, "g[1-2]")
    # the later failure's repair ending first changes nothing: back at 100 + 7,200
    shorter = scenario(tmp_path, FAIL_TWICE % (7200, 60), "shorter.yaml").run()
    assert node_back(shorter, "g2") == [7300.0]


def test_lab_fail_of_a_node_already_down_extends_its_outage():
    from slurmlab import Cluster, Lab

    lab = Lab(Cluster.preset("tiny"))  # node[1-4]
    lab.fail("node1", down_for="1h")
    lab.advance("10m")
    lab.fail("node1", down_for="2h")  # down until 2:10:00, not 1:00:00
    lab.advance(7100)  # 2:08:20
    assert lab.sinfo().query("STATE == 'down*'")["NODELIST"].tolist() == ["node1"]
    lab.advance(100)
    assert lab.sinfo()["STATE"].tolist() == ["idle"]


def test_a_requeue_in_the_second_of_the_submit_moves_the_submit_one_second_on():
    # batch_requeue_fini (job_mgr.c): the requeued run's Submit differs from the last one,
    # "so we get different records in the database"
    from slurmlab import Lab

    lab = Lab("tiny")
    j = lab.sbatch("-N 1 -t 10", runtime=300)
    lab.fail("node1", down_for="5m")
    lab.advance("1h")
    runs = lab.sacct(duplicates=True)
    submits = runs[runs["JobID"] == str(j)]["Submit"].tolist()
    assert [(s - submits[0]).total_seconds() for s in submits] == [0.0, 1.0]


def test_sinfo_marks_a_failed_drained_node_and_nodes_of_a_maintenance_reservation(tmp_path):
    # node_state_string_compact: DRAIN before DOWN, '*' for a node that does not respond,
    # '$' (MAINT) before '*'; an idle node of a maintenance reservation is plain 'maint'
    from slurmlab import Lab

    lab = Lab("tiny")  # node[1-4]
    lab.drain("node1")
    lab.fail("node1", down_for="1h")
    lab.sbatch("-N 1 --exclusive -t 60", runtime=3000)
    lab.advance(1)
    states = dict(zip(lab.sinfo()["NODELIST"], lab.sinfo()["STATE"], strict=True))
    assert states["node1"] == "drain*"
    assert states["node2"] == "alloc"
    lab.advance("1h")  # repaired: still drained
    assert "drain" in lab.sinfo()["STATE"].tolist()


def test_sinfo_in_a_maintenance_reservation(tmp_path):
    s = scenario(
        tmp_path,
        """\
name: m
cluster: tiny
policy: fifo
reservations:
  - {name: pm, start: 600, duration: 1h, nodes: "node[1-2]", users: [root], flags: [maint]}
failures:
  - {node: node2, at: 700, down_for: 600}
jobs:
  - {id: a, submit: 600, runtime: 1200, args: "-N 1 --exclusive -t 30 --reservation=pm", user: root}
""",
    )
    r = s.run()
    states = {n: st for st, ns in _nodes_by_state(r.sinfo(at=800)).items() for n in ns}
    assert states["node1"] == "alloc$"  # `a` runs in the maintenance reservation
    assert states["node2"] == "down$"
    assert states["node3"] == "idle"


def _nodes_by_state(frame) -> dict[str, list[str]]:
    from slurmlab.spec.units import expand_hostlist

    return {
        st: expand_hostlist(nl) for st, nl in zip(frame["STATE"], frame["NODELIST"], strict=True)
    }


def test_a_job_wider_than_its_partitions_nodes_up_shows_slurmctlds_description():
    # job_scheduler.c: min_nodes above the partition's available nodes -> Resources, with the
    # state_desc squeue prints; why_pending says which nodes are out
    from slurmlab import Lab
    from slurmlab.sim.engine import NODES_OUT

    lab = Lab("tiny")  # node[1-4]
    lab.fail("node[1-3]")
    a = lab.sbatch("-N 2 -t 10")
    lab.advance(100)
    assert lab.squeue()["NODELIST(REASON)"].tolist() == [f"({NODES_OUT})"]
    # sacct: Resources is waiting one's turn, which slurmctld does not keep for the database
    # (real Slurm 22.05, stop 30: a job pending for Resources shows None in sacct)
    assert lab.sacct()["Reason"].tolist() == ["None"]
    assert lab.why_pending(a).startswith(
        "Job 1 is pending (Resources): it asks for 2 nodes but only 1 of partition main's 4 "
        "nodes is up (node[1-3] are down or drained): squeue shows 'Nodes required for job are "
        "DOWN, DRAINED or reserved for jobs in higher priority partitions', and Slurm's main "
        "scheduler starts no later job of the partition in this pass."
    )


def test_a_maintenance_reservation_may_overlap_another_which_yields_its_nodes(tmp_path):
    # scontrol(1): MAINT "is permitted to use resources that are already in another
    # reservation" (reservation.c _resv_overlap skips MAINT on either side); a job of the
    # other reservation does not use the maintenance nodes meanwhile (job_test_resv)
    s = scenario(
        tmp_path,
        """\
name: mo
cluster: tiny
policy: fifo
reservations:
  - {name: a, start: 100, duration: 1h, nodes: node1, users: [alice]}
  - {name: pm, start: 0, duration: 30m, nodes: "node[1-4]", users: [root], flags: [maint]}
jobs:
  - {id: j, submit: 200, runtime: 600, args: "-N 1 -t 20 --reservation=a", user: alice}
  - {id: k, submit: 300, runtime: 600, args: "-N 1 -t 20", user: bob}
""",
    )
    r = s.run()
    assert rows(r) == {
        "j": ("COMPLETED", 1800.0, "node1"),  # in `a`, once the maintenance is over
        "k": ("COMPLETED", 1800.0, "node2"),
    }


def test_a_failure_of_a_node_configured_down_does_not_bring_it_back():
    # (review) the outage a failure extends is one a failure started: a node slurm.conf
    # marks DOWN stays down until resumed, whatever failures script
    from slurmlab.sim.faults import NodeFailure
    from slurmlab.sim.simulate import simulate
    from slurmlab.spec.cluster import Cluster
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    cluster = Cluster.from_slurm_conf(
        "NodeName=n[1-2] CPUs=4 RealMemory=8000\nNodeName=n3 CPUs=4 RealMemory=8000 State=DOWN\n"
        "PartitionName=p Nodes=n[1-3] Default=YES MaxTime=INFINITE\n"
    )
    work = Workload((WorkloadJob(JobSpec.from_args("-N 3 -t 10"), 0, 60, id="wide"),))
    r = simulate(
        cluster, work, "fifo", failures=[NodeFailure("n3", at=10, down_for=50)], until=1000,
        progress=False,
    )  # fmt: skip
    assert r.jobs["State"].tolist() == ["PENDING"]
    assert "down" in r.sinfo(at=100)["STATE"].tolist()
