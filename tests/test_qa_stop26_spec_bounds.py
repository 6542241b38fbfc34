"""One rule in one place: the specs bound their values (review stop 26, M2, M3, M5, L4, L8).

``Node``, ``Partition`` and ``Gres`` check the range Slurm keeps each value in, so slurm.conf,
a scenario's inline cluster and Python constructors accept and refuse the same values, with
the spec's words; slurm.conf adds its file and line. A node's Port range may be written with
or without brackets; a GRES count takes Slurm's suffixes wherever it is read; a repeated
SlurmctldHost keeps every controller; slurm.conf parsing is linear in the number of nodes.
"""

import warnings

import pytest

from slurmlab import Cluster, ConfigError, Scenario, SlurmlabError
from slurmlab.errors import ScenarioError
from slurmlab.spec import cluster, job, slurm_conf, units
from slurmlab.spec.cluster import Gres, Node, Partition, parse_gres

PART = "PartitionName=main Nodes=ALL Default=YES\n"
JOB = '  - {runtime: 60, args: "-n 1 -t 5"}\n'


def read(conf) -> tuple[Cluster, list[str]]:
    """The cluster a slurm.conf (a path or its text) defines, and the warnings it gives; a
    text that names no SelectType names what slurmlab models in its last lines (Slurm's
    default, select/linear, is warned about)."""
    if isinstance(conf, str) and "selecttype" not in conf.lower():
        conf += "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = Cluster.from_slurm_conf(conf)
    return built, [str(w.message) for w in caught]


def conf_error(conf) -> str:
    with pytest.raises(ConfigError) as info:
        read(conf)
    return str(info.value)


def inline(tmp_path, node: str = "{name: n1, cpus: 4}", partition: str = "{name: p}") -> Cluster:
    """The inline cluster of a scenario with one node entry and one partition entry."""
    path = tmp_path / "s.yaml"
    path.write_text(f"cluster:\n  nodes: [{node}]\n  partitions: [{partition}]\njobs:\n{JOB}")
    return Scenario.load(path).cluster


def inline_error(tmp_path, **entries) -> str:
    with pytest.raises(ScenarioError) as info:
        inline(tmp_path, **entries)
    return str(info.value).replace(f"{tmp_path}/", "")


def python_error(make) -> str:
    with pytest.raises(SlurmlabError) as info:
        make()
    return str(info.value)


# -- M2: every entry point agrees ------------------------------------------------------------------
def test_priority_tier_is_bounded_by_the_partition_for_every_entry_point(tmp_path):
    """PriorityTier "may not exceed 65533" (slurm.conf(5); a uint16 less NO_VAL16 and
    INFINITE16): slurm.conf, a scenario and Python refuse 65534 with the same words, and
    take 65533. (A scenario took up to 2**32 - 3 before.)"""
    rule = (
        "Partition 'p': PriorityTier=65534 must be a whole number from 0 to 65533 "
        "(slurm.conf(5): it may not exceed 65533)"
    )
    assert python_error(lambda: Partition("p", ("n1",), priority_tier=65534)) == rule
    assert conf_error("NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=65534\n") == (
        f"slurm.conf line 2: {rule}"
    )
    assert inline_error(tmp_path, partition="{name: p, priority_tier: 65534}") == (
        f"s.yaml line 3: {rule}"
    )
    assert Partition("p", ("n1",), priority_tier=65533).priority_tier == 65533
    conf, _ = read("NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=65533\n")
    assert conf.partitions[0].priority_tier == 65533
    scenario = inline(tmp_path, partition="{name: p, priority_tier: 65533}")
    assert scenario.partitions[0].priority_tier == 65533
    assert conf_error("NodeName=n1\nPartitionName=p Nodes=n1 PriorityJobFactor=65534\n") == (
        "slurm.conf line 2: Partition 'p': PriorityJobFactor=65534 must be a whole number from 0 "
        "to 65533 (slurm.conf(5): it may not exceed 65533)"
    )


def test_node_cpus_are_bounded_by_the_node_for_every_entry_point(tmp_path):
    """A node's CPUs are a uint16 in slurmctld, less NO_VAL16 and INFINITE16: 1 to 65533.
    slurm.conf's hint for a value that is not a number names the same range."""
    rule = "Node 'n1': CPUs=65534 is too many (Slurm allows at most 65533 per node)"
    assert python_error(lambda: Node("n1", cpus=65534)) == rule
    assert (
        conf_error(f"NodeName=n1 CPUs=65534\n{PART}") == f"slurm.conf line 1: NodeName=n1: {rule}"
    )
    assert inline_error(tmp_path, node="{name: n1, cpus: 65534}") == f"s.yaml line 2: {rule}"
    assert conf_error(f"NodeName=n1 Procs=65534\n{PART}").endswith(rule)
    assert read(f"NodeName=n1 CPUs=65533\n{PART}")[0].nodes[0].cpus == 65533
    assert conf_error(f"NodeName=n1 CPUs=eight\n{PART}") == (
        "slurm.conf line 1: NodeName=n1: CPUs='eight' is not a whole number; give a whole "
        "number from 1 to 65533"
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Node("n1", port=0), "Node 'n1': Port=0 is not a port (slurmctld: \"Invalid "
         'Port 0"); give a whole number from 1 to 65535'),
        (lambda: Node("n1", port=65536), "Node 'n1': Port=65536 is not a port (slurmctld: "
         '"Invalid Port 65536"); give a whole number from 1 to 65535'),
        (lambda: Node("n1", weight=2**32), "Node 'n1': Weight=4294967296 must be a whole number "
         "from 0 to 4294967295 (Slurm keeps it in 32 bits)"),
        (lambda: Node("n1", weight=-1), "Node 'n1': Weight=-1 must be a whole number from 0 to "
         "4294967295 (Slurm keeps it in 32 bits)"),
        (lambda: Gres("gpu", None, 2**32), "Gres 'gpu': count 4294967296 is too large (at most "
         "4294967295)"),
        (lambda: Partition("p", ("n1",), max_nodes=0), "Partition 'p': MaxNodes=0 must be a "
         "whole number from 1 to 4294967293, or UNLIMITED (0 would let no job start: every job "
         "needs a node)"),
        (lambda: Partition("p", ("n1",), min_nodes=2**32), "Partition 'p': MinNodes=4294967296 "
         "must be a whole number from 0 to 4294967293"),
        (lambda: Partition("p", ("n1",), priority_job_factor=-1), "Partition 'p': "
         "PriorityJobFactor=-1 must be a whole number from 0 to 65533 (slurm.conf(5): it may "
         "not exceed 65533)"),
    ],
)  # fmt: skip
def test_the_specs_bound_their_values(make, message):
    assert python_error(make) == message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("NodeName=n[1-2] Port=0", "line 1: NodeName=n[1-2]: Node 'n1': Port=0 is not a port "
         '(slurmctld: "Invalid Port 0"); give a whole number from 1 to 65535'),
        ("NodeName=n1 Weight=4294967296", "line 1: NodeName=n1: Node 'n1': Weight=4294967296 "
         "must be a whole number from 0 to 4294967295 (Slurm keeps it in 32 bits)"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MaxNodes=0", "line 2: Partition 'p': "
         "MaxNodes=0 must be a whole number from 1 to 4294967293, or UNLIMITED (0 would let no "
         "job start: every job needs a node)"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MinNodes=4294967295", "line 2: Partition 'p': "
         "MinNodes=4294967295 must be a whole number from 0 to 4294967293"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MaxNodes=many", "line 2: partition 'p': "
         "MaxNodes='many' is not a whole number; give a whole number from 1 to 4294967293, or "
         "UNLIMITED"),
        # (a DEFAULT line's value is refused on its own line, not on the lines that use it)
        ("NodeName=DEFAULT CPUs=70000\nNodeName=n1", "line 1: NodeName=DEFAULT: Node 'DEFAULT': "
         "CPUs=70000 is too many (Slurm allows at most 65533 per node)"),
        ("NodeName=DEFAULT Port=27001-27002 Gres=gpu:8P\nNodeName=n[1-2]", "line 1: "
         "NodeName=DEFAULT: Gres 'gpu': count 9007199254740992 is too large (at most "
         "4294967295)"),
        ("NodeName=DEFAULT Port=0-1\nNodeName=n[1-2]", "line 1: NodeName=DEFAULT: Node "
         "'DEFAULT': Port=0 is not a port (slurmctld: \"Invalid Port 0\"); give a whole number "
         "from 1 to 65535"),
    ],
)  # fmt: skip
def test_a_value_the_spec_refuses_names_the_file_and_the_line(tmp_path, line, message):
    conf = tmp_path / "x.conf"
    conf.write_text(f"{line}\n")
    assert conf_error(conf) == f"{conf} {message}"


def test_one_set_of_limits_and_one_digits_helper():
    """The limits and the ASCII-digits rule are defined once, in spec/units.py."""
    assert job._digits is units.ascii_digits
    assert cluster.PRIORITY_JOB_FACTOR_MAX == units.MAX_COUNT16 == 65533
    assert (units.UINT16_MAX, units.UINT32_MAX, units.MAX_COUNT) == (65535, 2**32 - 1, 2**32 - 3)
    for module in (cluster, job, slurm_conf):
        for name in ("_UINT16_MAX", "_UINT32_MAX", "_NODE_CPUS_MAX", "_NODE_MEM_MAX", "_SUFFIX"):
            assert not hasattr(module, name), (module.__name__, name)
    assert not hasattr(cluster, "_digits")


# -- M3: a Port range without brackets -------------------------------------------------------------
@pytest.mark.parametrize("port", ["27001-27003", "[27001-27003]", "27001,27002,27003"])
def test_a_port_range_is_read_with_or_without_brackets(port):
    """node_conf.c reads a Port value that holds '-' or ',' as ``[value]``: one port per node
    (the form of Slurm's testsuite test7.17 configurations)."""
    built, caught = read(f"NodeName=n[1-3] Port={port}\n{PART}")
    assert caught == []
    assert [n.port for n in built.nodes] == [27001, 27002, 27003]
    built, _ = read(f"NodeName=DEFAULT Port={port}\nNodeName=n[1-3]\n{PART}")
    assert [n.port for n in built.nodes] == [27001, 27002, 27003]


def test_one_port_is_every_nodes_and_a_wrong_count_is_refused():
    built, _ = read(f"NodeName=n[1-2] Port=6818\n{PART}")
    assert [n.port for n in built.nodes] == [6818, 6818]
    assert conf_error(f"NodeName=n[1-3] Port=27001-27002\n{PART}") == (
        "slurm.conf line 1: Port='27001-27002' names 2 ports for 3 nodes (slurmctld: \"Port "
        'count must equal that of NodeName records or there must be no more than one")'
    )


# -- M5: one GRES count grammar --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gres", "expected"),
    [
        ("gpu:2K", [("gpu", None, 2048)]),
        ("gpu:2k", [("gpu", None, 2048)]),
        ("gpu:2KiB", [("gpu", None, 2048)]),
        ("gpu:2kb", [("gpu", None, 2000)]),
        ("gpu:a100:1M", [("gpu", "a100", 1024**2)]),
        ("gpu:tesla", [("gpu", "tesla", 1)]),
        ("gpu", [("gpu", None, 1)]),
        ("gpu:h100:8(S:0-1),nvme:2", [("gpu", "h100", 8), ("nvme", None, 2)]),
    ],
)
def test_a_gres_count_is_read_the_same_everywhere(tmp_path, gres, expected):
    """gres.c ``_get_gres_cnt``: the text after an item's last colon is its count when it
    starts with a digit, with suffix_mult's suffixes in any case (``gpu:2K`` is 2048 GPUs,
    not one GPU of type "2K"); otherwise a type, with a count of 1."""
    conf, _ = read(f"GresTypes=gpu,nvme\nNodeName=n1 Gres={gres}\n{PART}")
    scenario = inline(tmp_path, node=f"{{name: n1, gres: '{gres}'}}")
    for gres_of in (parse_gres(gres), conf.nodes[0].gres, scenario.nodes[0].gres):
        assert [(g.name, g.type, g.count) for g in gres_of] == expected


def test_a_bad_gres_count_is_refused_with_the_same_words_everywhere(tmp_path):
    problem = (
        "the count '2x' of 'gpu:2x' is not a whole number with an optional K, M, G, T or P "
        'suffix (slurmctld logs "Bad GRES configuration: gpu:2x" and gives the node none); '
        "write e.g. gpu:8 or gpu:h100:8"
    )
    assert python_error(lambda: parse_gres("gpu:2x")) == f"invalid Gres 'gpu:2x': {problem}"
    assert conf_error(f"NodeName=n1 Gres=gpu:2x\n{PART}") == (
        f"slurm.conf line 1: NodeName=n1: invalid Gres 'gpu:2x': {problem}"
    )
    assert inline_error(tmp_path, node="{name: n1, gres: 'gpu:2x'}") == (
        f"s.yaml line 2: invalid cluster.nodes[0].gres 'gpu:2x': {problem}"
    )


# -- L4: SlurmctldHost -----------------------------------------------------------------------------
def test_every_slurmctld_host_is_kept_the_first_as_the_primary():
    """SlurmctldHost may repeat (read_config.c: an array): the first is the primary
    controller, the others its backups; none is dropped, and no warning is given."""
    built, caught = read(
        f"SlurmctldHost=ctl1(10.0.0.1)\nslurmctldhost=ctl2\nSlurmctldHost=ctl3\nNodeName=n1\n{PART}"
    )
    assert caught == []
    assert built.setting("SlurmctldHost") == "ctl1(10.0.0.1),ctl2,ctl3"


# -- L8: linear in the number of nodes -------------------------------------------------------------
def test_a_large_slurm_conf_is_read_whole():
    """20,000 nodes in one partition (membership is checked in a dict, not a list: speed is
    measured in benchmarks/README.md, never in a unit test)."""
    text = "NodeName=n[1-20000] CPUs=4\nPartitionName=p Nodes=n[1-20000] Default=YES\n"
    built, _ = read(text)
    assert len(built.partitions[0].nodes) == 20000
