"""Reading a real slurm.conf (and gres.conf) into a Cluster."""

import re
from datetime import timedelta
from pathlib import Path

import pytest

from slurmlab import Cluster, ConfigError, Gres
from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Node, Partition

AI_CONF = r"""
# slurm.conf of a small AI training cluster
ClusterName=frontier-ai
SlurmctldHost=ctl01(10.0.0.1)
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=30,bf_window=10080,bf_continue
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=8000
JobRequeue=0
PriorityType=priority/multifactor
PriorityWeightFairshare=10000
PriorityWeightAge=1000
PriorityDecayHalfLife=7-0
PriorityMaxAge=7-0
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
OverTimeLimit=5
MyCustomKey=hello
GresTypes=gpu
TaskPlugin="task/affinity,task/cgroup"

NodeName=DEFAULT State=UNKNOWN RealMemory=1024000
NodeName=gpu[001-032] CPUs=96 Gres=gpu:h100:8 Features=h100,ib NodeAddr=10.1.0.[1-32] Port=6818
NodeName=gpu[033-034] Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=512000 \
   Gres=gpu:a100:4 Feature=a100 State=DRAIN
NodeName=cpu[01-04] CPUs=128 RealMemory=256000 Features="cpu,highmem"  # CPU nodes

PartitionName=DEFAULT State=UP MaxTime=1-00:00:00
PartitionName=train Nodes=gpu[001-032] Default=YES MaxTime=7-00:00:00 DefaultTime=4:00:00 \
   PriorityTier=1 MaxNodes=16
PartitionName=old Nodes=gpu[033-034] State=DOWN PriorityTier=3
PartitionName=all Nodes=ALL PriorityTier=2 OverSubscribe=NO
"""


@pytest.fixture(scope="module")
def ai():
    with pytest.warns(UserWarning, match=r"line 16: PreemptType=preempt/partition_prio: not mod"):
        return Cluster.from_slurm_conf(AI_CONF)


def test_node_line_with_hostlist_cpus_memory_gres_features(ai):
    """NodeName=gpu[001-032] CPUs=96 ... defines 32 nodes with CPUs, RealMemory (MB), Gres, Features."""
    names = [n.name for n in ai.nodes if n.name.startswith("gpu0") and n.name <= "gpu032"]
    assert len(names) == 32
    n = ai.node("gpu017")
    assert n.cpus == 96
    assert n.memory_mb == 1024000  # from the NodeName=DEFAULT line
    assert n.gres == (Gres("gpu", "h100", 8),)
    assert n.gpus == 8 and n.gpu_type == "h100"
    assert n.features == frozenset({"h100", "ib"})


def test_node_addr_and_port(ai):
    """NodeAddr is a hostlist matched name by name; Port is a number."""
    assert ai.node("gpu001").addr == "10.1.0.1"
    assert ai.node("gpu032").addr == "10.1.0.32"
    assert ai.node("gpu001").port == 6818
    assert ai.node("cpu01").addr is None and ai.node("cpu01").port is None


def test_cpus_from_sockets_cores_threads(ai):
    """Without CPUs=, a node has Sockets x CoresPerSocket x ThreadsPerCore CPUs."""
    assert ai.node("gpu033").cpus == 2 * 32 * 2


def test_feature_spelling_and_state(ai):
    """Feature= is read like Features=; State=DRAIN is kept, State=UNKNOWN starts idle."""
    assert ai.node("gpu033").features == frozenset({"a100"})
    assert ai.node("gpu033").state == "DRAIN"
    assert ai.node("gpu001").state == "IDLE"


def test_quoted_value_and_trailing_comment(ai):
    """Quoted values lose their quotes; '#' starts a comment outside quotes."""
    assert ai.node("cpu01").features == frozenset({"cpu", "highmem"})
    assert ai.setting("TaskPlugin") == "task/affinity,task/cgroup"


def test_node_default_line_is_overridden_per_line(ai):
    """NodeName=DEFAULT values apply to later lines unless a line sets its own."""
    assert ai.node("gpu033").memory_mb == 512000
    assert ai.node("cpu04").memory_mb == 256000


def test_partitions(ai):
    """PartitionName lines give nodes, MaxTime, DefaultTime, Default, State, PriorityTier, MaxNodes."""
    train = ai.partition("train")
    assert train.nodes == tuple(f"gpu{i:03d}" for i in range(1, 33))
    assert train.default and ai.default_partition is train
    assert train.max_time == timedelta(days=7)
    assert train.default_time == timedelta(hours=4)
    assert train.time_limit_default == timedelta(hours=4)
    assert train.priority_tier == 1
    assert train.max_nodes == 16
    assert train.state == "UP"
    old = ai.partition("old")
    assert old.state == "DOWN" and old.priority_tier == 3 and not old.default


def test_partition_default_line_and_nodes_all(ai):
    """PartitionName=DEFAULT values apply to later partitions; Nodes=ALL takes every node."""
    assert ai.partition("old").max_time == timedelta(days=1)
    everything = ai.partition("all")
    assert len(everything.nodes) == 38
    assert everything.options == {"OverSubscribe": "NO"}


def test_scheduler_settings_are_kept(ai):
    """The scheduler-relevant global keys are kept for the engine, with their values as text."""
    assert ai.name == "frontier-ai"
    assert ai.setting("SchedulerType") == "sched/backfill"
    assert ai.setting("schedulertype") == "sched/backfill"  # keys are case-insensitive
    assert ai.setting("SelectTypeParameters") == "CR_Core_Memory"
    assert ai.setting("DefMemPerCPU") == "8000"
    assert ai.setting("PriorityType") == "priority/multifactor"
    assert ai.setting("PriorityWeightFairshare") == "10000"
    assert ai.setting("PriorityWeightAge") == "1000"
    assert ai.setting("PriorityDecayHalfLife") == "7-0"
    assert ai.setting("PriorityMaxAge") == "7-0"
    assert ai.setting("PreemptType") == "preempt/partition_prio"
    assert ai.setting("PreemptMode") == "REQUEUE"
    assert ai.setting("OverTimeLimit") == "5"
    assert ai.job_requeue is False
    assert ai.memory_tracked is True


def test_scheduler_parameters_parsed(ai):
    """SchedulerParameters is a comma list of key[=value]."""
    assert ai.scheduler_parameters == {"bf_interval": "30", "bf_window": "10080", "bf_continue": ""}


def test_unknown_keys_are_kept(ai):
    """Keys slurmlab does not use are kept verbatim and otherwise ignored."""
    assert ai.setting("MyCustomKey") == "hello"
    assert ai.setting("SlurmctldHost") == "ctl01(10.0.0.1)"


def test_keys_are_case_insensitive_and_canonicalised():
    """slurm.conf keys are case-insensitive; known global keys keep Slurm's spelling."""
    c = Cluster.from_slurm_conf(
        "defmempercpu=100\nnodename=n[1-2] cpus=4\npartitionname=p nodes=ALL"
    )
    assert c.settings["DefMemPerCPU"] == "100"
    assert c.node("n2").cpus == 4
    assert c.partition("p").nodes == ("n1", "n2")


def test_defaults_without_optional_keys():
    """A bare node has 1 CPU and 1 MB; JobRequeue defaults to 1; no partition means one default."""
    c = Cluster.from_slurm_conf("NodeName=n1")
    assert (c.node("n1").cpus, c.node("n1").memory_mb) == (1, 1)
    assert c.job_requeue is True
    assert c.memory_tracked is False
    assert [p.name for p in c.partitions] == ["default"]


def test_cluster_tres_totals(ai):
    """cluster.tres() sums node, cpu, mem (MB) and gres/gpu, plus gres/gpu:TYPE per type."""
    assert ai.tres() == {
        "cpu": 32 * 96 + 2 * 128 + 4 * 128,
        "mem": 32 * 1024000 + 2 * 512000 + 4 * 256000,
        "node": 38,
        "gres/gpu": 32 * 8 + 2 * 4,
        "gres/gpu:a100": 8,
        "gres/gpu:h100": 256,
    }


def test_cluster_tres_without_gpus_has_no_gres():
    """A cluster without GPUs has no gres/gpu entry."""
    c = Cluster.from_slurm_conf("NodeName=c[1-2] CPUs=8 RealMemory=1000")
    assert c.tres() == {"cpu": 16, "mem": 2000, "node": 2}


def test_read_from_path(tmp_path):
    """from_slurm_conf accepts a path as well as the text."""
    p = tmp_path / "slurm.conf"
    p.write_text("NodeName=n[1-2] CPUs=4\n")
    assert Cluster.from_slurm_conf(p).tres()["cpu"] == 8
    assert Cluster.from_slurm_conf(str(p)).tres()["cpu"] == 8


# -- gres.conf ------------------------------------------------------------------------------

SLURM_UNTYPED = """
NodeName=gpu[01-02] CPUs=64 RealMemory=512000 Gres=gpu:8
NodeName=gpu[03-04] CPUs=64 RealMemory=512000 Gres=gpu:4
PartitionName=gpu Nodes=gpu[01-04] Default=YES
"""
GRES_CONF = """
# gres.conf
AutoDetect=off
NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-7]
NodeName=gpu[03-04] Name=gpu Type=a100 Count=4
"""


def test_gres_conf_types_from_file_ranges_and_count():
    """File=/dev/nvidia[0-7] counts 8 devices, Count= counts directly; the types stay
    slurm.conf's (stop 28: slurmd drops a gres.conf Type= that Gres= does not name, gres.c
    _match_type), each drop named in a warning."""
    with pytest.warns(UserWarning, match="drops Type=h100") as caught:
        c = Cluster.from_slurm_conf(SLURM_UNTYPED, GRES_CONF)
    assert any("drops Type=a100" in str(w.message) for w in caught)
    assert c.node("gpu01").gres == (Gres("gpu", None, 8),)
    assert c.node("gpu04").gres == (Gres("gpu", None, 4),)
    assert c.tres()["gres/gpu"] == 24
    assert "gres/gpu:h100" not in c.tres()


def test_gres_conf_count_must_agree_with_slurm_conf():
    """gres.conf and slurm.conf Gres= must agree on the count of each node."""
    bad = "NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-3]"
    with pytest.raises(ConfigError, match="gres.conf lists 4 gpu but slurm.conf Gres= declares 8"):
        Cluster.from_slurm_conf(SLURM_UNTYPED, bad)


def test_gres_conf_line_without_name():
    """A gres.conf line without Name= is an error naming the line."""
    with pytest.raises(ConfigError, match="gres.conf line 1: .*no Name="):
        Cluster.from_slurm_conf(SLURM_UNTYPED, "NodeName=gpu01 File=/dev/nvidia0")


# -- malformed lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("NodeName=n1 CPUs=abc", 1, "CPUs"),
        ("NodeName=n1 Sockets=two", 1, "Sockets"),
        ("NodeName=n1 Port=x", 1, "Port"),
        ("NodeName=n1\nNodeName=n2 RealMemory=12Q", 2, "RealMemory"),
        ("NodeName=n1 Gres=gpu:h100:x", 1, "Gres"),
        ("NodeName=n1 State=WEIRD", 1, "State"),
        ("NodeName=n[1-", 1, "NodeName"),
        ("NodeName=n1\n\n# c\nfoo", 4, "foo"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=xx", 2, "MaxTime"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 DefaultTime=1:2:3:4", 2, "DefaultTime"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 MaxNodes=x", 2, "MaxNodes"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 Default=MAYBE", 2, "Default"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 State=GONE", 2, "State"),
        ("NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=high", 2, "PriorityTier"),
        ("NodeName=n1\nPartitionName=p Nodes=n[1-2]", 2, "Nodes"),
        ("NodeName=n1\nPartitionName=p", 2, "Nodes"),
        ('NodeName=n1 Features="a,b', 1, "Features"),
        ("DefMemPerCPU=1 Foo=2\nNodeName=n1", 1, "DefMemPerCPU"),
    ],
)
def test_malformed_line_names_line_and_key(text, line, key):
    """A malformed line raises ConfigError whose message names the line number and the key."""
    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(text)
    assert exc.value.line == line
    assert f"slurm.conf line {line}: " in str(exc.value)
    assert key in str(exc.value)


def test_error_on_continued_line_names_its_first_line():
    """An error in a continued (backslash) line names the line where it starts."""
    text = "NodeName=n1\nPartitionName=p \\\n  Nodes=n1 \\\n  MaxTime=never"
    with pytest.raises(ConfigError, match="line 2: .*MaxTime"):
        Cluster.from_slurm_conf(text)


def test_no_nodes_is_an_error():
    """A slurm.conf without NodeName lines has no cluster."""
    with pytest.raises(ConfigError, match="no NodeName lines"):
        Cluster.from_slurm_conf("ClusterName=x\nSchedulerType=sched/backfill")


def test_two_default_partitions_the_last_wins():
    """Of two Default=YES partitions the last is the default, as in slurmctld (stop 28)."""
    text = "NodeName=n1\nPartitionName=a Nodes=n1 Default=YES\nPartitionName=b Nodes=n1 Default=YES"
    with pytest.warns(UserWarning, match="changing default partition from a to b"):
        cluster = Cluster.from_slurm_conf(text)
    assert cluster.default_partition.name == "b"


# -- files that are not a slurm.conf: one clear error naming the file and the fix ------------
def test_a_slurm_conf_path_that_is_not_a_readable_text_file(tmp_path):
    import slurmlab
    from slurmlab import SlurmlabError

    (tmp_path / "etc").mkdir()
    with pytest.raises(ConfigError, match="etc: is a directory, not a slurm.conf file; give"):
        Cluster.from_slurm_conf(tmp_path / "etc")
    (tmp_path / "etc" / "slurm.conf").write_text("NodeName=n1 CPUs=2\nPartitionName=p Nodes=ALL\n")
    with pytest.raises(ConfigError, match=r"is a directory.*give '.*etc/slurm.conf'"):
        Cluster.from_slurm_conf(str(tmp_path / "etc"))
    binary = tmp_path / "slurm.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\xd0\x00" * 40)
    for build in (
        lambda: Cluster.from_slurm_conf(binary),
        lambda: slurmlab.Lab(str(binary)),
    ):
        with pytest.raises(ConfigError, match=r"is not a slurm.conf file: not UTF-8 text \(byte 8"):
            build()
    nul = tmp_path / "nul.conf"
    nul.write_bytes(b"NodeName=n1\x00\n")
    with pytest.raises(ConfigError, match="not text .it holds NUL bytes"):
        Cluster.from_slurm_conf(nul)
    with pytest.raises(ConfigError, match="the path is empty"):
        Cluster.from_slurm_conf("")
    with pytest.raises(SlurmlabError, match="is neither a preset .* it is a directory; give"):
        slurmlab.Lab(str(tmp_path / "etc"))


def test_a_missing_gres_conf_is_named_as_gres_conf(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text("NodeName=n1 CPUs=2 Gres=gpu:2\nPartitionName=p Nodes=ALL\n")
    with pytest.raises(ConfigError, match="missing-gres.conf: gres.conf file does not exist"):
        Cluster.from_slurm_conf(conf, gres_conf=tmp_path / "missing-gres.conf")
    with pytest.raises(ConfigError, match="slurm.conf file does not exist"):
        Cluster.from_slurm_conf(tmp_path / "nope.conf")


# -- priority settings and JobRequeue are checked as the file is read ------------------------------
@pytest.mark.parametrize(
    ("setting", "form"),
    [
        ("PriorityWeightAge=abc", "whole number from 0"),
        ("PriorityWeightAge=-5", "whole number from 0"),
        ("PriorityWeightFairshare=1.5", "whole number from 0"),
        ("PriorityWeightQOS=4294967296", "whole number from 0 to 4294967295"),
        ("PriorityWeightTRES=CPU=x", "the weight of CPU must be a number, which may end in K"),
        ("TRESBillingWeights=CPU=cheap", "a number >= 0"),
        ("PriorityCalcPeriod=abc", "not a Slurm time"),
        ("PriorityMaxAge=UNLIMITED", "must be a time"),
        ("PriorityDecayHalfLife=7days", "not a Slurm time"),
        ("PriorityMaxAge=-1", "not a Slurm time"),
        ("JobRequeue=no", "must be 0 .* or 1"),
        ("JobRequeue=2", "must be 0 .* or 1"),
        (
            "PreemptExemptTime=soon",
            "must be -1 .none, the default., UNLIMITED .never preempted. or a Slurm time",
        ),
    ],
)
def test_a_bad_priority_setting_or_job_requeue_names_line_key_value_and_form(setting, form):
    """Bad values are a ConfigError when slurm.conf is read (not when a simulation runs):
    PriorityWeight* are whole numbers >= 0 (uint32), times are Slurm times, JobRequeue 0 or 1."""
    key, _, value = setting.partition("=")
    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(f"ClusterName=c\n{setting}\nNodeName=n1\n")
    assert exc.value.line == 2
    assert f"slurm.conf line 2: {key}={value!r}" in str(exc.value)
    assert re.search(form, str(exc.value))


@pytest.mark.parametrize(
    "setting",
    [
        "PriorityWeightAge=0", "PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000",
        'TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"', "PriorityCalcPeriod=5",
        "PriorityDecayHalfLife=7-0", "PriorityMaxAge=1:00:00",
        "PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE",
        "JobRequeue=0", "JobRequeue=1", "PreemptExemptTime=-1", "PreemptExemptTime=5:00",
    ],
)  # fmt: skip
def test_good_priority_settings_load(setting):
    Cluster.from_slurm_conf(f"{setting}\nNodeName=n1\n")


@pytest.mark.filterwarnings("ignore:.*KillWait=5. not modelled")  # (test_conf_warnings.py)
def test_every_shipped_and_real_slurm_conf_still_loads():
    """The presets' files and the real cluster's slurm.conf pass the checks."""
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "slurmlab" / "data").glob("*.conf"))
    real = root / "datasets" / "realslurm" / "slurm.conf"
    files += [real] if real.exists() else []
    for path in files:
        Cluster.from_slurm_conf(path)


def test_a_cluster_built_in_python_checks_its_settings_too():
    """Settings given in Python (a scenario's ``settings:``) get the same checks."""
    with pytest.raises(SlurmlabError, match=r"Cluster 'c': JobRequeue='no' must be 0"):
        Cluster("c", (Node("n1"),), (Partition("p", ("n1",)),), {"JobRequeue": "no"})


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ("bf_window=abc", "bf_window='abc' must be a whole number from 1 to 43200 (minutes"),
        (
            "bf_interval=30s",
            "bf_interval='30s' must be -1 (no backfill) or a whole number from 1 to 10800",
        ),
        ("bf_resolution=5000", "bf_resolution='5000' must be a whole number from 1 to 3600"),
        ("bf_window=1.5", "bf_window='1.5'"),
        ("bf_window=10,bf_window=20", "gives bf_window twice"),
        ("BF_MAX_JOB_TEST=0", "bf_max_job_test='0'"),
    ],
)
def test_a_bad_scheduler_parameter_names_its_line(params, words):
    """SchedulerParameters the slurm policy models are whole numbers in sched/backfill's
    ranges (backfill.c _load_config); names match in any case, as in slurmctld."""
    with pytest.raises(ConfigError, match=r"line 1: SchedulerParameters ") as info:
        Cluster.from_slurm_conf(f"SchedulerParameters={params}\nNodeName=n1 CPUs=4\n")
    assert words in str(info.value)


def test_scheduler_parameters_not_modelled_are_named_in_a_warning():
    """Options that would change scheduling but are not modelled are named (ignored);
    those that only tune slurmctld's own work (bf_continue...) are not."""
    import slurmlab

    conf = "SchedulerParameters=bf_continue,bf_one_resv_per_job,BF_INTERVAL=5\nNodeName=n1 CPUs=4\n"
    cluster = Cluster.from_slurm_conf(conf)
    with pytest.warns(UserWarning, match=r"SchedulerParameters bf_one_resv_per_job: not modelled"):
        lab = slurmlab.Lab(cluster, policy="slurm")
    assert lab.sim.policy.bf_interval == 5
    builtin = Cluster.from_slurm_conf("SchedulerType=sched/builtin\nNodeName=n1 CPUs=4\n")
    with pytest.warns(UserWarning, match=r"SchedulerType=sched/builtin.*policy='fifo'"):
        slurmlab.Lab(builtin, policy="slurm")
