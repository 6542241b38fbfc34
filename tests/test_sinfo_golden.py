"""The sinfo view of a cluster: a DataFrame, and text that prints like sinfo's default output.

The golden files under tests/golden/ pin each preset's ``sinfo`` text. If a change is
intended, rewrite them with::

    python -c "import slurmlab; print(slurmlab.Cluster.preset('ai').sinfo_text())" > tests/golden/sinfo_ai.txt
"""

from pathlib import Path

import pytest

from slurmlab import Cluster, presets

GOLDEN = Path(__file__).parent / "golden"


def test_every_preset_has_a_golden_file():
    """Each preset's sinfo text is pinned (and no golden file is stale)."""
    assert sorted(p.name for p in GOLDEN.glob("sinfo_*.txt")) == sorted(
        f"sinfo_{name}.txt" for name in presets()
    )


@pytest.mark.parametrize("name", presets())
def test_sinfo_text_matches_golden(name):
    """sinfo_text() of a preset is exactly its golden file."""
    expected = (GOLDEN / f"sinfo_{name}.txt").read_text(encoding="utf-8")
    assert Cluster.preset(name).sinfo_text() + "\n" == expected


def test_sinfo_frame_columns():
    """sinfo() has sinfo's default columns, one row per (partition, node state)."""
    frame = Cluster.preset("ai").sinfo()
    assert list(frame.columns) == ["PARTITION", "AVAIL", "TIMELIMIT", "NODES", "STATE", "NODELIST"]
    assert frame.to_dict("records")[0] == {
        "PARTITION": "train*",
        "AVAIL": "up",
        "TIMELIMIT": "7-00:00:00",
        "NODES": 32,
        "STATE": "idle",
        "NODELIST": "gpu[001-032]",
    }


def test_sinfo_splits_partitions_by_node_state():
    """Nodes of one partition in different states are listed on separate lines, by
    decreasing state as sinfo sorts them (real Slurm 22.05: drng, drain, mix, alloc, idle,
    down)."""
    frame = Cluster.preset("tiny").sinfo({"node2": "alloc", "node3": "alloc"})
    assert frame[["STATE", "NODES", "NODELIST"]].values.tolist() == [
        ["alloc", 2, "node[2-3]"],
        ["idle", 2, "node[1,4]"],
    ]
    states = {"node1": "down", "node2": "idle", "node3": "mix", "node4": "drain"}
    assert Cluster.preset("tiny").sinfo(states).STATE.tolist() == ["drain", "mix", "idle", "down"]
    states = {"node1": "alloc", "node2": "drng", "node3": "drain", "node4": "idle"}
    assert Cluster.preset("tiny").sinfo(states).STATE.tolist() == ["drng", "drain", "alloc", "idle"]


def test_sinfo_down_partition_drained_nodes_and_infinite_limit():
    """A DOWN partition shows 'down'; DRAIN nodes 'drain'; no MaxTime is 'infinite'."""
    c = Cluster.from_slurm_conf(
        "NodeName=n[1-2] CPUs=4\nNodeName=n3 CPUs=4 State=DRAIN\n"
        "PartitionName=long Nodes=ALL Default=YES\nPartitionName=off Nodes=n1 State=DOWN MaxTime=30"
    )
    assert c.sinfo_text() == (
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
        "long*        up   infinite      1  drain n3\n"
        "long*        up   infinite      2   idle n[1-2]\n"
        "off        down      30:00      1   idle n1"
    )


def test_with_node_states_copies():
    """with_node_states returns a changed copy; the cluster itself is unchanged."""
    tiny = Cluster.preset("tiny")
    down = tiny.with_node_states({"node1": "DOWN"})
    assert down.node("node1").state == "DOWN"
    assert tiny.node("node1").state == "IDLE"
    assert down.sinfo()["STATE"].tolist() == ["idle", "down"]
