"""slurm.conf keys and inline cluster settings (review stop 24).

A key slurm.conf(5) does not have is a typo Slurm 22.05 refuses to start on ("Parsing error at
unrecognized key"); slurmlab names it, with its file and line and the closest key Slurm has,
instead of running silently without it. An inline partition takes PriorityJobFactor as
``priority_job_factor``; an inline setting's error names its own line; PriorityWeightAssoc,
which slurmlab cannot apply, is named in a warning.
"""

import re
import warnings
from pathlib import Path

import pytest

from slurmlab import Cluster, ConfigError, Scenario
from slurmlab.errors import ScenarioError
from slurmlab.spec.cluster import (
    NOT_MODELLED,
    PARTITION_OPTIONS,
    SCHEDULER_KEYS,
    SLURM_CONF_KEYS,
    unknown_key_warning,
)

ROOT = Path(__file__).resolve().parent.parent
#: what slurmlab models (a slurm.conf without SelectType is warned about: Slurm's default is
#: select/linear)
SELECT = "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
NODES = "NodeName=n[1-2] CPUs=4 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES\n" + SELECT
REFUSED = 'Slurm 22.05 refuses to start on it ("Parsing error at unrecognized key: {}")'
JOB = '  - {runtime: 60, args: "-n 1 -t 5"}\n'


def caught_by(build) -> list[str]:
    """The warnings ``build()`` gives, as text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in caught]


def unknown(key: str, value: str, kind: str = "key") -> str:
    return f"{key}={value}: not a slurm.conf {kind}: {REFUSED.format(key)} and slurmlab ignores it"


# -- 1. a misspelt key is named, with its file, line and the key Slurm has ------------------------
def test_a_misspelt_global_key_is_named_with_its_line_and_the_key_meant(tmp_path):
    """PriorityWieghtAge=1000 used to load silently, leaving the age weight 0."""
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        f"ClusterName=c\nPriorityType=priority/multifactor\nPriorityWieghtAge=1000\n{NODES}"
    )
    assert caught_by(lambda: Cluster.from_slurm_conf(conf)) == [
        f"{conf} line 3: {unknown('PriorityWieghtAge', '1000')}; did you mean PriorityWeightAge?"
    ]


def test_an_inline_settings_typo_is_named_with_the_scenario_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster:\n"
        "  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  settings:\n"
        "    PriorityType: priority/multifactor\n"
        "    PriorityWieghtAge: 1000\n"
        f"jobs:\n{JOB}"
    )
    assert caught_by(lambda: Scenario.load(path)) == [
        f"{path} line 5: cluster.settings.PriorityWieghtAge: "
        f"{unknown('PriorityWieghtAge', '1000')}; did you mean PriorityWeightAge?"
    ]


def test_a_cluster_built_in_python_names_the_cluster():
    from slurmlab.spec.cluster import Node, Partition

    build = lambda: Cluster("c", (Node("n1"),), (Partition("p", ("n1",)),), {"KilWait": "5"})  # noqa: E731
    assert caught_by(build) == [f"Cluster 'c': {unknown('KilWait', '5')}; did you mean KillWait?"]


def test_keys_match_in_any_case_as_in_slurm():
    assert caught_by(lambda: Cluster.from_slurm_conf(f"priorityweightage=5\n{NODES}")) == []


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("SwitchName=s1", "it belongs in topology.conf, not in slurm.conf"),
        ("Frobnicate=1", "see slurm.conf(5) for Slurm's keys"),
    ],
)
def test_a_key_with_no_close_match_says_where_to_look(line, hint):
    key, _, value = line.partition("=")
    assert caught_by(lambda: Cluster.from_slurm_conf(f"{line}\n{NODES}")) == [
        f"slurm.conf line 1: {unknown(key, value)}; {hint}"
    ]


def test_every_key_real_slurm_22_05_prints_is_known():
    """scontrol show config of the real 22.05.8 cluster (datasets/realslurm) names no key the
    check would call unknown (JobDefaults is scontrol's summary of DefCpuPerGPU/DefMemPerGPU)."""
    text = (ROOT / "datasets" / "realslurm" / "scontrol-show-config.txt").read_text()
    keys = set(re.findall(r"^([A-Za-z]+) +=", text, re.M)) - {"JobDefaults"}
    assert len(keys) > 150
    assert [k for k in sorted(keys) if unknown_key_warning(k, "x") is not None] == []


def test_the_key_tables_agree_with_slurms():
    """The keys slurmlab reads and names as not modelled are Slurm 22.05's, but for slurmlab's
    cluster-wide TRESBillingWeights (a partition option in Slurm) and PreemptParameters (newer)."""
    slurm = {k.lower() for k in SLURM_CONF_KEYS}
    assert [k for k in SCHEDULER_KEYS if k.lower() not in slurm] == ["TRESBillingWeights"]
    assert [k for k in NOT_MODELLED if k.lower() not in slurm] == ["PreemptParameters"]


SHIPPED = sorted(
    [
        *(ROOT / "slurmlab" / "data").glob("*.conf"),
        *(ROOT / "datasets" / "realslurm").glob("*slurm.conf"),
    ]
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_slurm_confs_name_no_unknown_key(path):
    assert [w for w in caught_by(lambda: Cluster.from_slurm_conf(path)) if "not a" in w] == []


def test_unknown_partition_options_are_not_called_unmodelled_slurm_options():
    """Only Slurm's partition options slurmlab ignores are "not modelled"; a typo is named as
    not a partition option, with the option meant, and refused as slurmctld refuses it
    (stop 43: "Parsing error at unrecognized key" stops it); a global key says to give it
    its own line."""
    conf = "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Default=YES {}\n" + SELECT
    with pytest.raises(
        ConfigError, match=r"PriorityJobFacter=4: .*did you mean PriorityJobFactor\?"
    ):
        Cluster.from_slurm_conf(conf.format("PriorityJobFacter=4"))
    with pytest.raises(ConfigError, match=r"KillWait=5: .*KillWait is a global setting"):
        Cluster.from_slurm_conf(conf.format("KillWait=5"))
    assert caught_by(lambda: Cluster.from_slurm_conf(conf.format("AllowGroups=x"))) == [
        "slurm.conf line 2: partition 'p': AllowGroups not modelled by slurmlab (ignored)",
    ]


def test_every_slurm_partition_option_is_known():
    unknown_ones = [
        o for o in PARTITION_OPTIONS if unknown_key_warning(o, "x", "", PARTITION_OPTIONS)
    ]
    assert unknown_ones == []


def test_an_unknown_node_option_is_named_with_the_option_meant():
    """A NodeName= line's unknown keys used to be dropped silently."""
    conf = "NodeName=n[1-2] CPUs=4 Wieght=5\nPartitionName=p Nodes=ALL Default=YES\n"
    with pytest.raises(
        ConfigError, match=r"line 1: NodeName=n\[1-2\]: Wieght=5: .*did you mean Weight\?"
    ):
        Cluster.from_slurm_conf(conf)
    real = "NodeName=n1 CPUs=4 TmpDisk=100 Sockets=1 NodeHostname=h Features=a\n"
    real += "PartitionName=p Nodes=n1\n" + SELECT
    # (stop 28: its keys are all Slurm's, but CPUs=4 on one socket of one core is reset)
    assert caught_by(lambda: Cluster.from_slurm_conf(real)) == [
        "slurm.conf line 1: NodeName=n1: CPUs=4 is none of Sockets (1), Sockets x "
        "CoresPerSocket (1) and Sockets x CoresPerSocket x ThreadsPerCore (1); slurmctld resets "
        'it ("NodeNames=n1 CPUs=4 match no Sockets, Sockets*CoresPerSocket or '
        'Sockets*CoresPerSocket*ThreadsPerCore. Resetting CPUs.") to 1, and so does slurmlab; '
        "give CPUs=1 or leave CPUs= out"
    ]


# -- 2. inline partitions take PriorityJobFactor ---------------------------------------------------
def test_an_inline_partition_takes_priority_job_factor_like_slurm_conf(tmp_path):
    """``priority_job_factor: 5`` is the PartitionName line's PriorityJobFactor=5."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster:\n  nodes: [{name: 'n[1-2]', cpus: 4}]\n"
        "  partitions: [{name: main, nodes: ALL, priority_job_factor: 5}, {name: low}]\n"
        f"jobs:\n{JOB}"
    )
    inline = Scenario.load(path).cluster
    conf = Cluster.from_slurm_conf(
        "NodeName=n[1-2] CPUs=4\nPartitionName=main Nodes=ALL Default=YES PriorityJobFactor=5\n"
        "PartitionName=low Nodes=ALL\n"
    )
    assert [p.priority_job_factor for p in inline.partitions] == [5, 1]
    assert [p.priority_job_factor for p in conf.partitions] == [5, 1]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("65534", "must be at most 65533 (slurm.conf(5) PriorityJobFactor: a whole number from 0 "
         "to 65533)"),
        ("-1", "must be at least 0"),
        ("high", "give a whole number (e.g. 1)"),
    ],
)  # fmt: skip
def test_a_bad_inline_priority_job_factor_names_its_line_and_field(tmp_path, value, problem):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster:\n  nodes: [{name: n1, cpus: 4}]\n  partitions:\n    - name: main\n"
        f"      priority_job_factor: {value}\njobs:\n{JOB}"
    )
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    shown = value if value.lstrip("-").isdigit() else repr(value)
    assert str(info.value) == (
        f"{path} line 5: invalid cluster.partitions[0].priority_job_factor {shown}: {problem}"
    )


def test_a_slurm_conf_priority_job_factor_above_65533_is_an_error():
    conf = "NodeName=n1\nPartitionName=p Nodes=n1 PriorityJobFactor=70000\n"
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(conf)
    assert str(info.value) == (
        "slurm.conf line 2: Partition 'p': PriorityJobFactor=70000 must be a whole number from "
        "0 to 65533 (slurm.conf(5): it may not exceed 65533)"
    )


# -- 3. an inline setting's error names its own line ------------------------------------------------
def test_an_inline_settings_error_names_the_settings_line_and_field(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster:\n"
        "  nodes: [{name: n1, cpus: 4}]\n"
        "  settings:\n"
        "    PriorityType: priority/multifactor\n"
        "    PriorityWeightAge: 1.5\n"
        f"jobs:\n{JOB}"
    )
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert info.value.line == 5
    assert str(info.value) == (
        f"{path} line 5: cluster.settings.PriorityWeightAge: PriorityWeightAge='1.5' must be a "
        "whole number from 0 to 4294967295, e.g. 1000"
    )


# -- 4. PriorityWeightAssoc is named: slurmlab's associations have no Priority ---------------------
ASSOC = (
    "PriorityWeightAssoc=1000: not modelled by slurmlab (ignored); Slurm adds this weight times "
    "the job's association Priority (sacctmgr modify account/user ... set Priority=N, over the "
    "largest one); associations have no Priority in slurmlab, so every job's ASSOC factor is 0"
)


def test_priority_weight_assoc_is_named_once_with_its_file_and_line(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text(f"PriorityType=priority/multifactor\nPriorityWeightAssoc=1000\n{NODES}")
    assert caught_by(lambda: Cluster.from_slurm_conf(conf)) == [f"{conf} line 2: {ASSOC}"]
    conf.write_text(f"PriorityWeightAssoc=0\n{NODES}")  # (Slurm's default: nothing ignored)
    assert caught_by(lambda: Cluster.from_slurm_conf(conf)) == []


def test_an_inline_priority_weight_assoc_is_named_with_its_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster:\n  nodes: [{name: n1, cpus: 4}]\n  settings: {PriorityWeightAssoc: 1000}\n"
        f"jobs:\n{JOB}"
    )
    assert caught_by(lambda: Scenario.load(path)) == [
        f"{path} line 3: cluster.settings.PriorityWeightAssoc: {ASSOC}"
    ]
