"""Stop 28, an admin loading a production slurm.conf + gres.conf: each finding with its
config text inline and the exact outcome, as Slurm 22.05's source has it (the function is
named in each docstring)."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster, ConfigError, JobSpec, Lab, RequestError
from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Node, Partition


def load(conf: str, gres: str | None = None) -> tuple[Cluster, list[str]]:
    """The cluster of a slurm.conf text (and gres.conf text), and the warnings it gave. A
    text that names no SelectType gets SelectType=select/cons_tres with CR_Core, what
    slurmlab models, as a last line (Slurm's default, select/linear, is warned about)."""
    if "selecttype=" not in conf.lower():
        conf += "\nSelectType=select/cons_tres\n"
        if "selecttypeparameters=" not in conf.lower():
            conf += "SelectTypeParameters=CR_Core\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster = Cluster.from_slurm_conf(conf, gres)
    return cluster, [str(w.message) for w in caught]


def refused(conf: str, gres: str | None = None) -> str:
    """The ConfigError of reading a slurm.conf text (and gres.conf text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ConfigError) as exc:
            Cluster.from_slurm_conf(conf, gres)
    return str(exc.value)


def gres_of(cluster: Cluster) -> dict[str, str]:
    return {n.name: ",".join(map(str, n.gres)) for n in cluster.nodes}


# -- 1. untyped GRES beside typed GPU lines ------------------------------------------------------
SHARD_CONF = """ClusterName=g
GresTypes=gpu,shard
SelectType=select/cons_tres
NodeName=gpu[01-02] CPUs=64 RealMemory=512000 Gres=gpu:a100:4,shard:32
PartitionName=all Nodes=ALL Default=YES DefMemPerCPU=4000
"""
SHARD_GRES = """NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]
NodeName=gpu[01-02] Name=shard Count=32
"""


def test_a_shard_line_beside_typed_gpu_lines_keeps_the_shards():
    """gres.c _merge_config: gres.conf only describes the GRES slurm.conf's Gres= declares;
    a shard (or mps) line is as good as the GPU lines, and the shards stay."""
    cluster, caught = load(SHARD_CONF, SHARD_GRES)
    assert caught == []
    assert gres_of(cluster) == {"gpu01": "gpu:a100:4,shard:32", "gpu02": "gpu:a100:4,shard:32"}
    assert JobSpec.from_args("--gres=shard:4").resources(cluster).candidates == ("gpu01", "gpu02")


def test_an_mps_line_beside_typed_gpu_lines_keeps_the_mps():
    conf = SHARD_CONF.replace("shard", "mps").replace("mps:32", "mps:400")
    gres = "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
    cluster, caught = load(conf, gres + "NodeName=gpu[01-02] Name=mps Count=400\n")
    assert caught == []
    assert gres_of(cluster)["gpu01"] == "gpu:a100:4,mps:400"


# -- 2. lines without NodeName=, typos, types ----------------------------------------------------
MIXED_CONF = """ClusterName=g
GresTypes=gpu,shard,mps
NodeName=cpu[01-02] CPUs=32 RealMemory=128000
NodeName=gpu[01-02] CPUs=64 RealMemory=512000 Gres=gpu:4,mps:400
PartitionName=all Nodes=ALL Default=YES
"""


def test_a_line_without_nodename_gives_no_gpu_to_nodes_whose_gres_has_none():
    """gres.c _check_conf_mismatch / _merge_config: every slurmd reads a line without
    NodeName=, but a node whose slurm.conf Gres= has no gpu ignores it."""
    gres = "# one file for every node\nName=gpu File=/dev/nvidia[0-3]\n"
    cluster, caught = load(MIXED_CONF, gres)
    assert caught == [
        "gres.conf line 2: Name=gpu: slurm.conf's Gres= of cpu[01-02] declares no gpu, so they "
        'have none; slurmd ignores the 4 more ("A line in gres.conf for GRES gpu has 4 more '
        'configured than expected in slurm.conf. Ignoring extra GRES."), and so does slurmlab; '
        "give the line NodeName= the nodes it is for"
    ]
    assert gres_of(cluster) == {
        "cpu01": "",
        "cpu02": "",
        "gpu01": "gpu:4,mps:400",
        "gpu02": "gpu:4,mps:400",
    }
    assert cluster.tres()["gres/gpu"] == 8
    assert JobSpec.from_args("--gres=gpu:1").resources(cluster).candidates == ("gpu01", "gpu02")


def test_a_misspelt_nodename_stops_slurmd():
    """parse_config.c s_p_parse_file: "Parsing error at unrecognized key", and slurmd's
    gres_g_node_config_load: fatal("error opening/reading ...")."""
    gres = "NodeNmae=gpu[01-02] Name=gpu File=/dev/nvidia[0-3] Corse=0-31\n"
    assert refused(MIXED_CONF, gres) == (
        "gres.conf line 1: NodeNmae=gpu[01-02]: not a key a gres.conf line starts with, and "
        'slurmd stops on it ("Parsing error at unrecognized key: NodeNmae", then "error '
        'opening/reading gres.conf"); did you mean NodeName?'
    )


def test_a_misspelt_option_stops_slurmd_and_names_the_key_meant():
    gres = "NodeName=gpu[01-02] Name=gpu File=/dev/nvidia[0-3] Corse=0-31\n"
    assert refused(MIXED_CONF, gres) == (
        'gres.conf line 1: Corse=0-31: not a gres.conf key, and slurmd stops on it ("Parsing '
        'error at unrecognized key: Corse", then "error opening/reading gres.conf"); did you '
        "mean Cores?"
    )


def test_nodename_after_name_stops_slurmd():
    """gres.c _gres_options: a line that starts with Name= has no NodeName= option."""
    gres = "Name=gpu NodeName=gpu[01-02] File=/dev/nvidia[0-3]\n"
    assert refused(MIXED_CONF, gres) == (
        "gres.conf line 1: NodeName=gpu[01-02]: a line that starts with Name= is for every node "
        'and takes no NodeName=, and slurmd stops on it ("Parsing error at unrecognized key: '
        'NodeName", then "error opening/reading gres.conf"); put NodeName=gpu[01-02] first on '
        "the line"
    )


TYPED_CONF = """ClusterName=g
GresTypes=gpu
NodeName=gpu[01-02] CPUs=64 RealMemory=512000 Gres=gpu:a100:4
NodeName=cpu01 CPUs=64 RealMemory=512000
PartitionName=all Nodes=ALL Default=YES
"""


def test_a_gres_conf_type_other_than_slurm_confs_is_refused_not_taken_over():
    """gres.c _match_type: an a100 Gres= takes only Type=a100 lines; the h100 line is
    ignored, the a100 GPUs have no device file and are dropped, and slurmctld sets the node
    INVAL (_node_config_validate: "count reported lower than configured")."""
    gres = "NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-3]\n"
    assert refused(TYPED_CONF, gres) == (
        "gres.conf line 1: node gpu01: gres.conf lists 0 gpu:a100 but slurm.conf Gres= declares "
        "4 (slurm.conf line 3: Gres=gpu:a100:4) (its gpu lines have Type=h100); slurmd finds no "
        "device file for the rest and drops them (gres.c _merge_config), and slurmctld sets the "
        'node INVAL ("gres/gpu count reported lower than configured (0 < 4)"); write Type=a100 '
        "in gres.conf, or Gres=gpu:h100:4 in slurm.conf"
    )


def test_a_gres_conf_type_for_an_untyped_gres_is_dropped_as_slurmd_drops_it():
    """gres.c _match_type: a Gres= without a type takes lines of any type and drops it."""
    gres = "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
    cluster, caught = load(MIXED_CONF, gres)
    assert caught == [
        "gres.conf line 1: NodeName=gpu[01-02] Name=gpu Type=a100: slurm.conf's Gres= of "
        "gpu[01-02] names gpu without a type (gpu:4), so slurmd matches this line to it and "
        "drops Type=a100 (gres.c _match_type): their gpu has no type, in Slurm and in slurmlab, "
        "and a job asking --gres=gpu:a100:N is refused; write the type in slurm.conf: "
        "Gres=gpu:a100:4"
    ]
    assert gres_of(cluster)["gpu01"] == "gpu:4,mps:400"
    with pytest.raises(RequestError):
        JobSpec.from_args("--gres=gpu:a100:1").resources(cluster)


def test_an_autodetect_line_is_named_as_not_modelled():
    cluster, caught = load(MIXED_CONF, "AutoDetect=nvml\n")
    assert caught == [
        "gres.conf line 1: AutoDetect=nvml: not modelled by slurmlab (ignored): slurmd asks "
        "NVIDIA's NVML for the GPUs of gpu[01-02] (their device files, cores and links); "
        "slurmlab takes the GPUs slurm.conf's Gres= declares, with the types written there; "
        "gpu[01-02] have GPUs without a type (Gres=gpu:N), so a job asking "
        "--gres=gpu:<type>:N is refused: write the type in Gres=, e.g. Gres=gpu:<type>:4"
    ]
    assert gres_of(cluster)["gpu01"] == "gpu:4,mps:400"


def test_gpus_without_a_device_file_are_named():
    """gres.c gres_g_node_config_load: "Removing file-less GPU" (without AutoDetect)."""
    gres = "NodeName=gpu[01-02] Name=gpu Count=4\nNodeName=gpu[01-02] Name=mps Count=400\n"
    cluster, caught = load(MIXED_CONF, gres)
    assert caught == [
        "gres.conf line 1: NodeName=gpu[01-02] Name=gpu: GPUs of gpu[01-02] have no File= in "
        "gres.conf; Slurm 22.05's slurmd drops a GPU without a device file (gres.c: \"Removing "
        "file-less GPU\"), so those nodes would register fewer GPUs than slurm.conf's Gres= "
        "declares and slurmctld would set them INVAL; slurmlab keeps the GPUs; give their gpu "
        "lines File= (e.g. File=/dev/nvidia[0-3]) or AutoDetect=nvml"
    ]
    assert cluster.tres()["gres/gpu"] == 8


def test_more_gpus_in_gres_conf_than_slurm_conf_declares_are_ignored():
    """gres.c _merge_gres2 truncates a line to the Gres= count; _check_conf_mismatch logs it."""
    gres = "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-7]\n"
    cluster, caught = load(TYPED_CONF, gres)
    assert caught == [
        "gres.conf line 1: NodeName=gpu[01-02] Name=gpu Type=a100: slurm.conf's Gres= of "
        "gpu[01-02] takes 4 of this line's 8; slurmd ignores the 4 more (\"A line in gres.conf "
        "for GRES gpu:a100 has 4 more configured than expected in slurm.conf. Ignoring extra "
        "GRES.\"), and so does slurmlab; make gres.conf and slurm.conf's Gres= agree"
    ]
    assert gres_of(cluster)["gpu01"] == "gpu:a100:4"


def test_a_line_for_a_gres_gres_types_lacks_is_ignored():
    """gres.c _parse_gres_config: "Ignoring gres.conf record, invalid name"."""
    gres = "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\nName=nic Count=2\n"
    cluster, caught = load(TYPED_CONF, gres)
    assert caught == [
        "gres.conf line 2: Name=nic: 'nic' is not in GresTypes (gpu); slurmd ignores the line "
        '("Ignoring gres.conf record, invalid name: nic"), and so does slurmlab; add nic to '
        "GresTypes or remove the line"
    ]
    assert gres_of(cluster)["cpu01"] == ""


def test_a_count_other_than_the_files_stops_slurmd():
    gres = "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3] Count=8\n"
    assert refused(TYPED_CONF, gres) == (
        "gres.conf line 1: NodeName=gpu[01-02] Name=gpu Type=a100: Count=8 but File= names 4 "
        'devices; slurmd stops ("Invalid GRES record for gpu, count does not match File '
        'value"); give Count=4 or leave Count= out'
    )


def test_a_node_with_file_and_count_only_lines_of_one_gres_stops_slurmd():
    """gres.c _foreach_gres_conf: "some records have "File" specification while others do
    not"."""
    conf = TYPED_CONF.replace("gpu:a100:4", "gpu:a100:6")
    gres = (
        "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
        "NodeName=gpu[01-02] Name=gpu Type=a100 Count=2\n"
    )
    assert refused(conf, gres) == (
        "gres.conf line 2: NodeName=gpu[01-02] Name=gpu Type=a100: node gpu01 also has line 1 "
        'for gpu; slurmd stops ("gres.conf for gpu, some records have "File" specification '
        "while others do not\"); give each of the node's lines File=, or none"
    )


def test_a_global_autodetect_line_takes_nothing_else():
    """parse_config.c s_p_parse_file: a top-level AutoDetect= is one key; the rest of the
    line is a "Parse error"."""
    assert refused(MIXED_CONF, "AutoDetect=nvml Name=gpu\n") == (
        "gres.conf line 1: AutoDetect=nvml is followed by Name=gpu: a line that starts with "
        'AutoDetect= sets it for every node and takes nothing else; slurmd stops on it ("Parse '
        'error in file gres.conf line 1: \\"Name=gpu\\""); set it for some nodes with '
        "NodeName=... AutoDetect=nvml, or give Name=gpu a line of its own"
    )


# -- 3. SelectTypeParameters ---------------------------------------------------------------------
STP_CONF = """ClusterName=s
SelectType=select/cons_tres
SelectTypeParameters={}
NodeName=n[1-2] Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=64000
PartitionName=p Nodes=ALL Default=YES DefMemPerCPU=1000
"""


def test_a_misspelt_select_type_parameter_is_refused_like_slurmctld():
    """slurm_selecttype_info.c parse_select_type_param: "Bad SelectTypeParameter", and
    read_config.c stops."""
    assert refused(STP_CONF.format("CR_Core_Memroy")) == (
        "slurm.conf line 3: SelectTypeParameters='CR_Core_Memroy': 'CR_Core_Memroy' is not a "
        'SelectTypeParameter; slurmctld refuses to start ("Bad SelectTypeParameter: '
        'CR_Core_Memroy"); did you mean CR_Core_Memory?'
    )
    assert refused(STP_CONF.format("CR_Cores_Memory")).endswith("did you mean CR_Core_Memory?")
    with pytest.raises(SlurmlabError, match="'CR_CPU_Memroy' is not a SelectTypeParameter"):
        Cluster(
            "py",
            (Node("n1", cpus=4),),
            (Partition("p", ("n1",), default=True),),
            {"SelectTypeParameters": "CR_CPU_Memroy"},
        )


def test_two_ways_to_allocate_are_refused():
    assert refused(STP_CONF.format("CR_Core,CR_Memory")) == (
        "slurm.conf line 3: SelectTypeParameters='CR_Core,CR_Memory' gives CR_Core and "
        "CR_Memory: Slurm takes one way to allocate (CR_CPU, CR_CPU_Memory, CR_Core, "
        'CR_Core_Memory, CR_Socket, CR_Socket_Memory or CR_Memory) and refuses to start ("Bad '
        'SelectTypeParameter: CR_Core,CR_Memory"); keep one'
    )


def test_one_task_per_core_beside_cr_cpu_is_refused():
    assert refused(STP_CONF.format("CR_CPU_Memory,CR_ONE_TASK_PER_CORE")) == (
        "slurm.conf line 3: SelectTypeParameters='CR_CPU_Memory,CR_ONE_TASK_PER_CORE': "
        'slurmctld refuses to start ("CR_ONE_TASK_PER_CORE is not compatible with CR_CPU*, '
        'please change to use CR_CORE* instead.")'
    )


def test_a_partitions_own_select_type_parameters_take_core_or_socket():
    """read_config.c _parse_partitionname: "Bad value for SelectTypeParameters"."""
    conf = "NodeName=n1 CPUs=4\nPartitionName=p Nodes=ALL SelectTypeParameters=CR_CPU\n"
    assert refused(conf) == (
        "slurm.conf line 2: partition 'p': SelectTypeParameters='CR_CPU': a partition takes "
        'CR_Core, CR_Core_Memory, CR_Socket or CR_Socket_Memory; slurmctld stops on it ("Bad '
        'value for SelectTypeParameters: CR_CPU"); give one of those, or leave it to the global '
        "line"
    )


def test_cons_tres_without_a_way_to_allocate_cpus_is_refused():
    """cons_common.c select_p_node_init: "You need at least CR_(CPU|CORE|SOCKET)*"."""
    assert refused(STP_CONF.format("CR_Memory")) == (
        "slurm.conf line 3: SelectTypeParameters='CR_Memory' under SelectType=select/cons_tres: "
        'it names no way to allocate CPUs, and slurmctld refuses to start ("Invalid '
        'SelectTypeParameters: ... You need at least CR_(CPU|CORE|SOCKET)*"); write '
        "CR_Core_Memory (or CR_CPU_Memory, CR_Socket_Memory) in place of CR_Memory"
    )


def test_valid_select_type_parameters_slurmlab_does_not_model_are_named():
    cluster, caught = load(STP_CONF.format("CR_Core_Memory,CR_Pack_Nodes"))
    assert caught == [
        "slurm.conf line 3: SelectTypeParameters CR_Pack_Nodes: not modelled by slurmlab "
        "(ignored); CR_Pack_Nodes: Slurm lays a step's tasks out on as few of the job's nodes as "
        "it can, where the job has more CPUs than its tasks use; slurmlab's srun_env lays them "
        "out as without it (ask for it with --distribution=block,pack)"
    ]
    assert cluster.memory_tracked


# -- 4. two Default=YES partitions ---------------------------------------------------------------
def test_the_last_default_partition_wins_with_a_warning_naming_both_lines():
    """slurmctld read_config.c _build_single_partitionline_info: "changing default partition
    from p to q"."""
    conf = (
        "ClusterName=e\nNodeName=n[01-04] CPUs=8 RealMemory=16000\n"
        "PartitionName=p Nodes=n[01-02] Default=YES\nPartitionName=q Nodes=n[03-04] Default=YES\n"
    )
    cluster, caught = load(conf)
    assert caught == [
        "slurm.conf line 4: PartitionName=q: Default=YES, and partition 'p' (line 3) is "
        "Default=YES too; Slurm makes the last one the default (slurmctld logs "
        '"_parse_part_spec: changing default partition from p to q") and so does slurmlab: a '
        "job without -p goes to 'q'; give Default=YES to one partition"
    ]
    assert [(p.name, p.default) for p in cluster.partitions] == [("p", False), ("q", True)]
    assert JobSpec.from_args("-n 1").resources(cluster).partition == "q"


# -- 5. AllowAccounts / DenyAccounts -------------------------------------------------------------
ACCT_CONF = """ClusterName=a
NodeName=n[1-4] CPUs=8 RealMemory=32000
PartitionName=both Nodes=n[1-2] AllowAccounts=llm DenyAccounts=llm Default=YES
PartitionName=upper Nodes=n[3-4] AllowAccounts=LLM,Vision
PartitionName=deny Nodes=n[3-4] AllowAccounts=ALL DenyAccounts=Chem
"""


def test_accounts_match_in_any_case_and_deny_is_ignored_beside_allow():
    """read_config.c _parse_partitionname lower-cases the lists and ignores DenyAccounts
    beside AllowAccounts; job_mgr.c _validate_job_desc lower-cases the job's account;
    partition_mgr.c part_policy_valid_acct."""
    cluster, caught = load(ACCT_CONF)
    assert caught == [
        "slurm.conf line 3: partition 'both': AllowAccounts=llm and DenyAccounts=llm are both "
        'given; Slurm ignores DenyAccounts (slurmctld logs "Both AllowAccounts and DenyAccounts '
        'are defined, DenyAccounts will be ignored"), and so does slurmlab: only accounts llm '
        "may use it; give one of them"
    ]
    both, upper, deny = cluster.partitions
    assert [both.admits_account(a) for a in ("llm", "LLM", "cv", None)] == [
        True,
        True,
        False,
        False,
    ]
    assert [upper.admits_account(a) for a in ("llm", "vision", "Vision", "cv")] == [
        True,
        True,
        True,
        False,
    ]
    assert [deny.admits_account(a) for a in ("chem", "CHEM", "llm", None)] == [
        False,
        False,
        True,
        True,
    ]
    lab = Lab(cluster)
    assert lab.sbatch("-p both -A llm -t 10", runtime=60) == 1
    assert lab.sbatch("-p upper -A vision -t 10", runtime=60) == 2


# -- 6. DefMemPerNode beside DefMemPerCPU --------------------------------------------------------
DEFMEM_CONF = """ClusterName=x
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=n[1-2] CPUs=8 RealMemory=32000
PartitionName=p Nodes=ALL Default=YES DefMemPerNode=8000 DefMemPerCPU=1000
"""


def test_a_partitions_def_mem_per_node_wins_over_its_def_mem_per_cpu():
    """read_config.c _parse_partitionname reads DefMemPerNode first: "DefMemPerCPU ignored,
    since it's mutually exclusive with DefMemPerNode"."""
    cluster, caught = load(DEFMEM_CONF)
    assert caught == [
        "slurm.conf line 5: partition 'p': DefMemPerCPU=1000: DefMemPerNode=8000 (on this line) "
        "is also given, and Slurm uses it (slurmctld logs \"DefMemPerCPU ignored, since it's "
        'mutually exclusive with DefMemPerNode"), and so does slurmlab: a job that asks for no '
        "memory gets 8000 MB per node; give one of them"
    ]
    assert JobSpec.from_args("-n 2").resources(cluster).mem_per_node_mb == 8000


def test_a_global_def_mem_per_node_wins_over_the_global_def_mem_per_cpu():
    """read_config.c _validate_and_set_defaults: the same rule for the global lines."""
    conf = DEFMEM_CONF.replace(" DefMemPerNode=8000 DefMemPerCPU=1000", "")
    conf = conf.replace("NodeName", "DefMemPerCPU=1000\nDefMemPerNode=8000\nNodeName")
    cluster, caught = load(conf)
    assert caught == [
        "slurm.conf line 4: DefMemPerCPU=1000: DefMemPerNode=8000 (line 5) is also given, and "
        "Slurm uses it (slurmctld logs \"DefMemPerCPU ignored, since it's mutually exclusive "
        'with DefMemPerNode"), and so does slurmlab: a job that asks for no memory gets 8000 MB '
        "per node; give one of them"
    ]
    assert JobSpec.from_args("-n 2").resources(cluster).mem_per_node_mb == 8000
    own = conf.replace("Default=YES", "Default=YES DefMemPerCPU=500")  # (the partition's wins)
    assert JobSpec.from_args("-n 2").resources(load(own)[0]).mem_per_node_mb == 1000


# -- 7. a line's own Feature= over its DEFAULT's Features= ---------------------------------------
def test_a_nodes_own_feature_wins_over_its_default_lines_whatever_the_spelling():
    """read_config.c _parse_nodename: Feature, then Features, on the line, then on the
    DEFAULT line (scontrol's AvailableFeatures is no slurm.conf option: test_qa44_conf)."""
    conf = (
        "ClusterName=f\nNodeName=DEFAULT CPUs=4 Features=old\nNodeName=n1 Feature=new\n"
        "NodeName=n2\nNodeName=n3 Features=x,y\nPartitionName=p Nodes=ALL Default=YES\n"
    )
    cluster, caught = load(conf)
    assert caught == []
    assert {n.name: sorted(n.features) for n in cluster.nodes} == {
        "n1": ["new"],
        "n2": ["old"],
        "n3": ["x", "y"],
    }
    assert JobSpec.from_args("-C new -n 1").resources(cluster).candidates == ("n1",)


# -- 8. CPUs= that matches no topology -----------------------------------------------------------
def test_cpus_that_match_no_topology_are_reset_as_slurmctld_resets_them():
    """read_config.c _parse_nodename: CPUs= must be Sockets, Sockets x CoresPerSocket or
    Sockets x CoresPerSocket x ThreadsPerCore, else "Resetting CPUs." to the last."""
    conf = (
        "ClusterName=x\nSelectTypeParameters=CR_Core_Memory\nNodeName=DEFAULT CPUs=8 "
        "RealMemory=32000\nNodeName=a1 Boards=2 SocketsPerBoard=2 CoresPerSocket=4 "
        "ThreadsPerCore=2\nNodeName=b1 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 CPUs=20\n"
        "NodeName=c1 CPUs=64 CoresPerSocket=16 ThreadsPerCore=2\n"
        "PartitionName=p Nodes=ALL Default=YES\n"
    )
    cluster, caught = load(conf)
    assert caught == [
        "slurm.conf line 4: NodeName=a1: CPUs=8 (from the NodeName=DEFAULT line, line 3) is "
        "none of Sockets (4), Sockets x CoresPerSocket (16) and Sockets x CoresPerSocket x "
        'ThreadsPerCore (32); slurmctld resets it ("NodeNames=a1 CPUs=8 match no Sockets, '
        'Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore. Resetting CPUs.") to '
        "32, and so does slurmlab; give CPUs=32 or leave CPUs= out",
        "slurm.conf line 5: NodeName=b1: CPUs=20 is none of Sockets (2), Sockets x "
        "CoresPerSocket (16) and Sockets x CoresPerSocket x ThreadsPerCore (32); slurmctld "
        'resets it ("NodeNames=b1 CPUs=20 match no Sockets, Sockets*CoresPerSocket or '
        'Sockets*CoresPerSocket*ThreadsPerCore. Resetting CPUs.") to 32, and so does slurmlab; '
        "give CPUs=32 or leave CPUs= out",
    ]
    shapes = {n.name: (n.cpus, n.threads_per_core) for n in cluster.nodes}
    assert shapes == {"a1": (32, 2), "b1": (32, 2), "c1": (64, 2)}  # (c1: 2 sockets inferred)
    assert JobSpec.from_args("-n 1").resources(cluster).cpus_per_node == 2  # a whole core


def test_sockets_beside_sockets_per_board_is_named():
    """read_config.c _parse_nodename: "Sockets=# and SocketsPerBoard=# is invalid , using
    SocketsPerBoard"."""
    conf = (
        "NodeName=n1 Boards=2 Sockets=2 SocketsPerBoard=2 CoresPerSocket=4\n"
        "PartitionName=p Nodes=ALL Default=YES\n"
    )
    cluster, caught = load(conf)
    assert caught == [
        "slurm.conf line 1: NodeName=n1: Sockets=2 and SocketsPerBoard=2 are both given; Slurm "
        'uses SocketsPerBoard (slurmctld logs "NodeNames=n1 Sockets=# and SocketsPerBoard=# is '
        'invalid , using SocketsPerBoard"): 4 sockets, and so does slurmlab; give one of them'
    ]
    assert cluster.node("n1").cpus == 16


# -- 9. RealMemory with a unit -------------------------------------------------------------------
def test_real_memory_with_a_unit_is_refused_like_slurmctld():
    """parse_value.c s_p_handle_uint64: "RealMemory value (16GB) is not a valid number"."""
    assert refused("NodeName=m1 CPUs=4 RealMemory=16GB\nPartitionName=p Nodes=ALL\n") == (
        "slurm.conf line 1: NodeName=m1: RealMemory='16GB' is not a whole number of MB: "
        'slurmctld stops on it ("RealMemory value (16GB) is not a valid number"); write it in '
        "MB: RealMemory=16384"
    )
    assert refused("NodeName=m1 RealMemory=1.5\nPartitionName=p Nodes=ALL\n").endswith(
        "write it in MB, e.g. RealMemory=64000"
    )


def test_real_memory_is_read_as_strtoull_reads_it():
    """s_p_handle_uint64: base 0 (a leading 0 is octal) and a K that multiplies by 1024."""
    cluster, caught = load("NodeName=m1 RealMemory=16K\nPartitionName=p Nodes=ALL\n")
    assert (cluster.node("m1").memory_mb, caught) == (16384, [])
    cluster, caught = load("NodeName=m1 RealMemory=0100\nPartitionName=p Nodes=ALL\n")
    assert cluster.node("m1").memory_mb == 64
    assert caught == [
        "slurm.conf line 1: NodeName=m1: RealMemory=0100: Slurm reads a number that starts "
        "with 0 as octal (strtoull, base 0): 64 MB, and so does slurmlab; write RealMemory=64 "
        "if that is meant"
    ]


# -- 10. the SelectTypeParameters warnings say what slurmlab does --------------------------------
def test_select_type_parameter_warnings_say_what_slurmlab_does():
    cluster, caught = load(STP_CONF.format("CR_Socket_Memory,CR_LLN"))
    assert caught == [
        "slurm.conf line 3: SelectTypeParameters CR_Socket_Memory, CR_LLN: not modelled by "
        "slurmlab (ignored); CR_Socket_Memory: Slurm allocates whole sockets; slurmlab "
        "allocates whole cores (every thread of a core where a node's CPUs count threads, "
        "ThreadsPerCore > 1) and memory, as under CR_Core_Memory; CR_LLN: Slurm puts each job "
        "on the least loaded nodes (the most idle CPUs); slurmlab picks nodes as "
        "select/cons_tres does without it (the lowest Weight first, then the tightest fit, in "
        "the node table's order: by name)"
    ]
    shape = JobSpec.from_args("-n 1").resources(cluster)
    assert (shape.cpus_per_node, shape.mem_per_node_mb) == (2, 2000)  # a whole core, memory


# -- 11. a NodeSet that matches no node ----------------------------------------------------------
def test_a_partition_of_an_empty_node_set_names_the_node_set_and_its_feature():
    conf = (
        "ClusterName=e\nNodeName=n[01-04] CPUs=8 RealMemory=16000 Features=a,b\n"
        "NodeSet=ns Feature=nosuch\nPartitionName=p Nodes=ns Default=YES\n"
    )
    assert refused(conf) == (
        "slurm.conf line 4: PartitionName=p: Nodes=ns has no node: NodeSet=ns (line 3: "
        "Feature=nosuch) matches no node: no node has feature 'nosuch' (the nodes have a, b); "
        "Slurm accepts a partition without nodes (sinfo shows it with 0 nodes, and a job sent "
        "there waits), but slurmlab cannot model one; give the NodeSet a Feature= some nodes "
        "have, or the partition other nodes"
    )


def test_a_partition_without_nodes_says_it_is_slurmlabs_limit():
    assert refused("NodeName=n1 CPUs=4\nPartitionName=p Default=YES\n") == (
        "slurm.conf line 2: PartitionName=p: Nodes= is missing: Slurm accepts a partition "
        "without nodes (sinfo shows it with 0 nodes, and a job sent there waits), but slurmlab "
        "cannot model one; give Nodes=... (or ALL), or remove the line"
    )


# -- 12. the file and the line of gres errors ----------------------------------------------------
def test_the_gres_count_error_names_the_gres_conf_line_and_the_slurm_conf_line(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text(TYPED_CONF)
    gres = tmp_path / "gres.conf"
    gres.write_text("# GPUs\nNodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-1]\n")
    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(conf, gres)
    assert str(exc.value) == (
        f"{gres} line 2: node gpu01: gres.conf lists 2 gpu:a100 but slurm.conf Gres= declares "
        f"4 ({conf} line 3: Gres=gpu:a100:4); slurmd finds no device file for the rest and "
        'drops them (gres.c _merge_config), and slurmctld sets the node INVAL ("gres/gpu count '
        'reported lower than configured (2 < 4)"); make the counts agree'
    )
    assert (exc.value.source, exc.value.line) == (str(gres), 2)


def test_a_gres_name_gres_types_lacks_is_named_at_its_node_line():
    conf = "ClusterName=e\nGresTypes=gpu\nNodeName=g1 CPUs=8\nNodeName=g[2-3] Gres=gpus:4\n"
    assert refused(conf + "PartitionName=p Nodes=ALL\n") == (
        "slurm.conf line 4: NodeName=g[2-3]: Gres=gpus:4: 'gpus' is not in GresTypes (gpu), "
        "and slurmctld refuses a node GRES that GresTypes does not declare; did you mean 'gpu'?"
    )


def test_max_mem_per_node_beside_max_mem_per_cpu_holds_as_in_slurm():
    """read_config.c: "MaxMemPerCPU ignored, since it's mutually exclusive with
    MaxMemPerNode" (globally and on a partition's line); slurmlab applied MaxMemPerCPU."""
    text = (
        "ClusterName=c\nSelectTypeParameters=CR_Core_Memory\nMaxMemPerCPU=1000\n"
        "MaxMemPerNode=8000\nNodeName=n1 CPUs=8 RealMemory=16000\n"
        "PartitionName=p Nodes=n1 Default=YES\nSelectType=select/cons_tres\n"
    )
    with pytest.warns(UserWarning) as caught:
        cluster = Cluster.from_slurm_conf(text)
    assert [str(w.message) for w in caught] == [
        "slurm.conf line 3: MaxMemPerCPU=1000: MaxMemPerNode=8000 (line 4) is also given, and "
        "Slurm uses it (slurmctld logs \"MaxMemPerCPU ignored, since it's mutually exclusive "
        'with MaxMemPerNode"), and so does slurmlab: a job may have up to 8000 MB per node, '
        "whatever its CPUs; give one of them"
    ]
    res = JobSpec.from_args("-n 1 --mem=4000").resources(cluster)
    assert (res.cpus_per_node, res.mem_per_node_mb) == (1, 4000)  # (not 4 CPUs for 4000 MB)
