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
