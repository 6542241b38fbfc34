"""slurm.conf input robustness (review stop 26, fuzzing report §2.2, §2.3, §2.7, §2.9, §3.2,
§3.3).

What slurmctld 22.05 reads, slurmlab reads the same way; what it refuses, slurmlab refuses
with the file, the line, the key and the value; what slurmlab cannot model is named in a
warning. Nothing is stored and ignored silently.
"""

import warnings
from pathlib import Path

import pytest

from slurmlab import Cluster, ConfigError

PART = "PartitionName=main Nodes=ALL Default=YES\n"
#: what slurmlab models (a slurm.conf without SelectType is warned about: Slurm's default is
#: select/linear)
SELECT = "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"


def read(conf, *args) -> tuple[Cluster, list[str]]:
    """The cluster a slurm.conf (a path or its text) defines, and the warnings it gives; a
    text that names no SelectType gets SELECT as its last lines."""
    if isinstance(conf, str) and "selecttype" not in conf.lower():
        conf += SELECT
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster = Cluster.from_slurm_conf(conf, *args)
    return cluster, [str(w.message) for w in caught]


def error(conf) -> str:
    with pytest.raises(ConfigError) as info:
        read(conf)
    return str(info.value)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- §2.2 Include ---------------------------------------------------------------------------------
def test_include_reads_the_file_from_the_directory_of_the_file_that_names_it(tmp_path):
    """``Include nodes.conf`` (a space, any case: parse_config.c _parse_include_directive) reads
    that file in place; a relative name is found in the including file's directory
    (_add_full_path), and ``%c`` is ClusterName in lower case. Before, the include was dropped
    and its nodes vanished."""
    conf = write(
        tmp_path / "etc" / "slurm.conf",
        f"ClusterName=Lab\nInclude nodes.conf\ninclude sub/%c-more.conf\n{PART}{SELECT}",
    )
    write(tmp_path / "etc" / "nodes.conf", "NodeName=n1 CPUs=8\n")
    write(tmp_path / "etc" / "sub" / "lab-more.conf", "INCLUDE gpu.conf\n")
    write(tmp_path / "etc" / "sub" / "gpu.conf", "GresTypes=gpu\nNodeName=g1 CPUs=4 Gres=gpu:2\n")
    cluster, caught = read(conf)
    assert caught == []
    # (slurmctld's node table is in name order: g1 before n1)
    assert [(n.name, n.cpus, n.gpus) for n in cluster.nodes] == [("g1", 4, 2), ("n1", 8, 0)]
    assert cluster.partition("main").nodes == ("g1", "n1")


def test_an_error_in_an_included_file_names_that_file_and_its_line(tmp_path):
    conf = write(tmp_path / "slurm.conf", f"Include nodes.conf\n{PART}")
    write(tmp_path / "nodes.conf", "# nodes\nNodeName=n1 CPUs=eight\n")
    assert error(conf) == (
        f"{tmp_path / 'nodes.conf'} line 2: NodeName=n1: CPUs='eight' is not a whole number; "
        "give a whole number from 1 to 65533"
    )


def test_include_with_an_equals_sign_is_refused_as_slurmctld_refuses_it():
    """``Include=extra.conf`` is not Slurm's include line but an unknown key to slurmctld."""
    assert error(f"Include=extra.conf\nNodeName=n2 CPUs=8\n{PART}") == (
        "slurm.conf line 1: Include=extra.conf: Slurm's Include line has no '=' (slurmctld "
        '22.05 stops on this one: "Parsing error at unrecognized key: Include"); write '
        "Include extra.conf"
    )


def test_a_relative_include_in_a_conf_given_as_text_is_refused():
    assert error(f"Include extra.conf\nNodeName=n2 CPUs=8\n{PART}") == (
        "slurm.conf line 1: Include extra.conf: this slurm.conf was given as text, so there is "
        "no directory to find 'extra.conf' in (Slurm looks in the directory of the file that "
        "includes it); give the slurm.conf's path instead of its text, give an absolute path, "
        "or paste that file's lines here"
    )


def test_a_missing_or_looping_include_names_the_include_line(tmp_path):
    conf = write(tmp_path / "slurm.conf", f"NodeName=n1\nInclude gone.conf\n{PART}")
    assert error(conf) == (
        f"{conf} line 2: Include gone.conf ({tmp_path / 'gone.conf'}): the file does not exist; "
        f'slurmctld stops ("Include" failed in file {conf} line 2); check the path'
    )
    write(conf, f"NodeName=n1\nInclude a.conf\n{PART}")
    write(tmp_path / "a.conf", "Include slurm.conf\n")
    assert error(conf) == (
        f"{tmp_path / 'a.conf'} line 1: Include slurm.conf: {conf} is already being read (it "
        "includes itself, directly or through another file), so Slurm would read it without "
        "end; remove the loop"
    )
    write(conf, f"Include %c.conf\nNodeName=n1\n{PART}")
    assert error(conf) == (
        f"{conf} line 1: Include %c.conf: %c stands for ClusterName, which no line above sets "
        '(Slurm: "Did not get ClusterName for include path"); set ClusterName= before this line'
    )


# -- §2.2 DownNodes, NodeSet, FrontendName, SwitchName ----------------------------------------
def test_down_nodes_sets_the_state_of_its_nodes():
    """DownNodes=<hostlist> [State=] [Reason=] (slurmctld _handle_downnodes_line): State is
    DOWN by default; DRAIN* drains; FAIL* (not a slurmlab state) drains, with a warning; a
    node no NodeName= line defines is skipped with a warning, as slurmctld logs it. Before,
    the line was ignored and the node showed idle."""
    conf = (
        "NodeName=n[1-4] CPUs=8\nDownNodes=n2 State=DOWN Reason=broken\nDownNodes=n3\n"
        f"DownNodes=n4 State=failing\nDownNodes=n[1,9] State=drain\n{PART}"
    )
    cluster, caught = read(conf)
    assert [n.state for n in cluster.nodes] == ["DRAIN", "DOWN", "DOWN", "DRAIN"]
    assert caught == [
        "slurm.conf line 4: DownNodes=n4: State=failing: slurmlab has no FAIL state; it drains "
        "the node instead, which schedules the same (Slurm starts no new job on a failing node "
        "either), but sinfo shows drain where Slurm shows fail",
        "slurm.conf line 5: DownNodes=n[1,9]: n9 is not defined by any NodeName= line; "
        'slurmctld logs "DownNode \\"n9\\" does not exist!" and skips it, and so does '
        "slurmlab; check the node names",
    ]
    assert "down n[2-3]" in cluster.sinfo_text()


def test_a_down_nodes_state_slurm_does_not_take_is_an_error():
    assert error(f"NodeName=n1\nDownNodes=n1 State=BROKEN\n{PART}") == (
        "slurm.conf line 2: DownNodes=n1: State='BROKEN' is not a state DownNodes takes (Slurm: "
        '"Invalid State \\"BROKEN\\"", and it ignores the line); give DOWN (the default), DRAIN, '
        "FAIL, FAILING or FUTURE"
    )


def test_a_node_set_names_its_nodes_in_a_partition():
    """NodeSet=<name> Feature= / Nodes=: a partition's Nodes= may name it (slurmctld
    nodespec_to_hostlist), standing for the nodes with that feature and those listed."""
    conf = (
        "NodeName=n[1-2] Features=ib\nNodeName=n[3-4]\nNodeSet=fast Feature=ib\n"
        "NodeSet=slow Nodes=n[3-4]\nPartitionName=a Nodes=fast Default=YES\n"
        "PartitionName=b Nodes=slow,n1\n"
    )
    cluster, caught = read(conf)
    assert caught == []
    assert [p.nodes for p in cluster.partitions] == [("n1", "n2"), ("n1", "n3", "n4")]
    assert error("NodeName=n1\nNodeSet=s Nodes=n7\nPartitionName=a Nodes=s\n") == (
        "slurm.conf line 2: NodeSet=s: Nodes='n7' names undefined nodes n7; define them with "
        "NodeName= lines"
    )


def test_front_end_and_switch_lines_are_named_in_a_warning():
    _, caught = read(f"NodeName=n1\nFrontendName=fe1\nSwitchName=s0 Nodes=n1\n{PART}")
    assert caught == [
        "slurm.conf line 2: FrontendName=fe1: not modelled by slurmlab (ignored): front-end "
        "nodes exist only in a Slurm built with --enable-front-end (a standard slurmctld stops "
        'on this line: "Use of FrontendName in slurm.conf without Slurm being configured/built '
        'with the --enable-front-end option"); a front end only runs job scripts, on resources '
        "still allocated from the NodeName= nodes, so scheduling is the same",
        "slurm.conf line 3: SwitchName=s0: not a slurm.conf key: Slurm 22.05 refuses to start "
        'on it ("Parsing error at unrecognized key: SwitchName") and slurmlab ignores it; it '
        "belongs in topology.conf, not in slurm.conf",
    ]


# -- §2.3 repeated definitions --------------------------------------------------------------------
def test_a_node_defined_twice_is_refused_naming_both_lines(tmp_path):
    """slurmctld stops on it (node_conf.c / read_config.c "Duplicated NodeName")."""
    assert error(f"NodeName=n1 CPUs=8\nNodeName=n1 CPUs=16\n{PART}") == (
        "slurm.conf line 2: NodeName=n1: node n1 is already defined on line 1; slurmctld "
        'refuses this ("Duplicated NodeName n1 in the config file"); define each node once'
    )
    conf = write(tmp_path / "slurm.conf", f"Include more.conf\nNodeName=n[1-2]\n{PART}")
    write(tmp_path / "more.conf", "NodeName=n2\n")
    assert error(conf) == (
        f"{conf} line 2: NodeName=n[1-2]: node n2 is already defined on "
        f'{tmp_path / "more.conf"} line 1; slurmctld refuses this ("Duplicated NodeName n2 in '
        'the config file"); define each node once'
    )


def test_a_partition_defined_twice_is_refused_naming_both_lines():
    assert error(f"NodeName=n1\n{PART}{PART}") == (
        "slurm.conf line 3: PartitionName=main: partition 'main' is already defined on line 2; "
        'slurmctld refuses this ("duplicate entry for partition main"); define each partition '
        "once"
    )


def test_a_key_given_twice_on_a_line_warns_and_the_last_wins():
    """parse_config.c _handle_common: "specified more than once, latest value used"."""
    cluster, caught = read(f"NodeName=n1 CPUs=8 cpus=16\n{PART}")
    assert cluster.nodes[0].cpus == 16
    assert caught == [
        "slurm.conf line 1: NodeName=n1: cpus is given twice on this line (CPUs=8, then "
        'cpus=16); Slurm uses the last (slurmctld logs "CPUs 1 specified more than once, '
        'latest value used") and so does slurmlab: cpus=16; give it once'
    ]


def test_a_global_key_set_twice_warns_naming_both_lines():
    cluster, caught = read(
        f"ClusterName=a\nSlurmctldHost=c1\nSlurmctldHost=c2\nclustername=b\nNodeName=n1\n{PART}"
    )
    assert cluster.name == "b"
    assert caught == [  # (SlurmctldHost lines add backup controllers: no warning)
        "slurm.conf line 4: clustername=b: ClusterName is already set on line 1 "
        '(ClusterName=a); Slurm uses the last value (slurmctld logs "ClusterName 1 specified '
        'more than once, latest value used") and so does slurmlab: ClusterName=b; set it once'
    ]


# -- §2.7 GRES count suffixes ---------------------------------------------------------------------
def test_a_gres_count_takes_slurms_suffixes():
    """gres.c _get_gres_cnt: a count after the last colon may end in K, M, G... (suffix_mult);
    ``gpu:2K`` is 2048 GPUs, not one GPU of type "2K"."""
    cluster, _ = read(f"GresTypes=gpu,nic\nNodeName=n1 Gres=gpu:2K,nic:x1:1kb\n{PART}")
    assert [str(g) for g in cluster.nodes[0].gres] == ["gpu:2048", "nic:x1:1000"]
    assert error(f"NodeName=n1 Gres=gpu:2x\n{PART}") == (
        "slurm.conf line 1: NodeName=n1: invalid Gres 'gpu:2x': the count '2x' of 'gpu:2x' is "
        "not a "
        'whole number with an optional K, M, G, T or P suffix (slurmctld logs "Bad GRES '
        'configuration: gpu:2x" and gives the node none); write e.g. gpu:8 or gpu:h100:8'
    )


# -- §3.2 every error names the file, the line, the key and the value -----------------------------
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("NodeName=n1 CPUs=0", "line 1: NodeName=n1: CPUs=0 is invalid: a node has at least 1 "
         '(slurmctld resets it to 1: "NodeNames=n1 CPUs=0 is invalid, reset to 1"); give the '
         "node's real CPUs"),
        ("NodeName=n1 CPUs=-4", "line 1: NodeName=n1: CPUs='-4' is less than zero (Slurm: "
         '"CPUs value (-4) is less than zero"); give a whole number from 1 to 65533'),
        ("NodeName=n1 Sockets=2 CoresPerSocket=0", "line 1: NodeName=n1: CoresPerSocket=0 is "
         'invalid: a node has at least 1 (slurmctld resets it to 1: "NodeNames=n1 '
         "CoresPerSocket=0 is invalid, reset to 1\"); give the node's real CoresPerSocket"),
        ("NodeName=n1 CPUs=99999999999999999999", "line 1: NodeName=n1: Node 'n1': "
         "CPUs=99999999999999999999 is too many (Slurm allows at most 65533 per node)"),
        ("NodeName=n1\nPartitionName=main Nodes=ALL MaxNodes=-1", "line 2: partition 'main': "
         "MaxNodes='-1' is less than zero (Slurm: \"MaxNodes value (-1) is less than zero\"); "
         "give a whole number from 1 to 4294967293, or UNLIMITED"),
        ("NodeName=DEFAULT CPUs=0\nNodeName=n1", "line 1: NodeName=DEFAULT: CPUs=0 is invalid: "
         "a node has at least 1 (slurmctld resets it to 1); give the node's real CPUs"),
    ],
)  # fmt: skip
def test_a_bad_count_names_the_file_line_key_and_value(tmp_path, line, message):
    conf = write(tmp_path / "x.conf", f"{line}\n")
    assert error(conf) == f"{conf} {message}"


# -- §3.3 a byte-order mark -----------------------------------------------------------------------
def test_a_leading_byte_order_mark_is_dropped(tmp_path):
    conf = tmp_path / "bom.conf"
    conf.write_bytes(f"\ufeffNodeName=n[1-2] CPUs=8\n{PART}{SELECT}".encode())
    cluster, caught = read(conf)
    assert caught == []
    assert [n.name for n in cluster.nodes] == ["n1", "n2"]


# -- §2.9 DEFAULT lines that apply to nothing ----------------------------------------------------
def test_a_partition_default_with_no_partition_is_applied_and_named():
    """Slurm applies PartitionName=DEFAULT to later PartitionName= lines only; with none,
    slurmctld has no partition. slurmlab's partition 'default' (every node) takes its values,
    and a warning says so. Before, MaxTime=10 was dropped silently."""
    cluster, caught = read("NodeName=n[1-2]\nPartitionName=DEFAULT MaxTime=10\n")
    assert cluster.partition("default").max_time.total_seconds() == 600
    assert caught == [
        "slurm.conf line 2: PartitionName=DEFAULT MaxTime=10: no PartitionName= line follows, "
        "so in Slurm these values apply to no partition, and with no partition slurmctld "
        'refuses every job ("No partition specified or system default partition"); slurmlab '
        "puts every node in a partition 'default' and gives it these values; add a line such "
        "as PartitionName=main Nodes=ALL Default=YES"
    ]


def test_a_default_line_after_the_lines_it_is_for_is_named():
    _, caught = read(
        f"NodeName=n1\n{PART}PartitionName=DEFAULT MaxTime=10\nNodeName=DEFAULT CPUs=4\n"
    )
    assert caught == [
        "slurm.conf line 4: NodeName=DEFAULT: no NodeName= line follows it, so its values "
        "apply to no node (Slurm applies DEFAULT values to later lines only); move it above "
        "the nodes it is for",
        "slurm.conf line 3: PartitionName=DEFAULT: no PartitionName= line follows it, so its "
        "values apply to no partition (Slurm applies DEFAULT values to later lines only); move "
        "it above the partitions it is for",
    ]
