"""Global slurm.conf settings: Slurm's words and ranges are checked, and a setting Slurm would
act on but slurmlab does not model is named in a warning, never silently ignored.

A slurm.conf names its file and line; a cluster built with ``settings={...}`` (Python or a
scenario's ``cluster.settings``) names the cluster. Both go through the same checks.
"""

import re
import warnings
from pathlib import Path

import pytest

import slurmlab
from slurmlab import Cluster, ConfigError
from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Node, Partition

ROOT = Path(__file__).resolve().parent.parent
NODES = "NodeName=n[1-2] CPUs=4 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES DefMemPerCPU=2000\n"
#: what slurmlab models, said (a slurm.conf without SelectType is warned about: Slurm's
#: default is select/linear)
SELECT = "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
NOT_MODELLED = "not modelled by slurmlab (ignored)"


#: a PreemptType that preempts needs a PreemptMode (slurmctld refuses it without one)
PREEMPTING = ("PreemptType=preempt/qos", "PreemptType=preempt/partition_prio")


def load(setting: str) -> list[str]:
    """The warnings of reading a slurm.conf whose line 2 is ``setting`` (its last lines
    name SelectType, unless ``setting`` does)."""
    mode = "PreemptMode=REQUEUE\n" if setting in PREEMPTING else ""
    select = SELECT
    if setting.startswith("SelectType"):
        select = "" if setting.startswith("SelectType=") else SELECT.split("\n")[0] + "\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Cluster.from_slurm_conf(f"ClusterName=c\n{setting}\n{mode}{NODES}{select}")
    return [str(w.message) for w in caught]


def build(settings: dict) -> list[str]:
    """The warnings of building a cluster in Python with ``settings``."""
    if f"PreemptType={settings.get('PreemptType')}" in PREEMPTING:
        settings = {**settings, "PreemptMode": "REQUEUE"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Cluster("c", (Node("n1"),), (Partition("p", ("n1",)),), settings)
    return [str(w.message) for w in caught]


# -- settings Slurm acts on that slurmlab does not model: one warning naming them ----------------
@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("RequeueExit=1-9,18", "requeues a batch job that exits with one of these codes"),
        ("RequeueExitHold=18", "requeues and holds a batch job"),
        ("ReturnToService=0", "keeps a failed node DOWN until an admin resumes it"),
        ("SlurmdTimeout=60", "marks a failed node DOWN at once"),
        ("PriorityUsageResetPeriod=MONTHLY", "clears all fair-share usage"),
        ("SchedulerTimeSlice=60", "gang scheduling"),
        ("ResumeTimeout=600", "power saving"),
        ("SuspendTime=600", "power saving"),
        ("KillOnBadExit=1", "ends a whole step when one of its tasks fails"),
        ("KillWait=5", "between SIGTERM and SIGKILL"),
        ("CompleteWait=32", "COMPLETING"),
        ("JobSubmitPlugins=lua", "may change or refuse it"),
        ("PrioritySiteFactorPlugin=site_factor/example", "no site factor"),
        ("PreemptParameters=youngest_first", "which jobs Slurm preempts"),
        ("PreemptType=preempt/partition_prio", "no job is preempted"),
        ("SelectType=select/linear", "whole nodes"),
        ("TopologyPlugin=topology/tree", "network switches"),
    ],
)
def test_an_unmodelled_setting_is_named_with_its_file_and_line(setting, words):
    """Each changes which job runs when, or how it ends, in Slurm: the warning names the
    line, the setting as written, says it is ignored and what Slurm would have done."""
    caught = load(setting)
    assert len(caught) == 1, caught
    assert caught[0].startswith(f"slurm.conf line 2: {setting}: {NOT_MODELLED}; ")
    assert words in caught[0]


@pytest.mark.parametrize(
    "setting",
    [
        "RequeueExit=1-9,18", "ReturnToService=0", "SlurmdTimeout=60", "KillWait=5",
        "PriorityUsageResetPeriod=MONTHLY", "PreemptType=preempt/partition_prio",
        "PriorityFlags=MAX_TRES,INCR_ONLY", "PriorityWeightTRES=CPU=1000,Energy=5",
    ],
)  # fmt: skip
def test_settings_given_in_python_warn_alike_naming_the_cluster(setting):
    """A cluster built with ``settings={...}`` gets the same warning, naming the cluster."""
    key, _, value = setting.partition("=")
    from_file = load(setting)[0].removeprefix("slurm.conf line 2: ")
    assert build({key: value}) == [f"Cluster 'c': {from_file}"]


@pytest.mark.parametrize(
    "setting",
    [
        "ReturnToService=1", "ReturnToService=2", "SlurmdTimeout=300", "KillWait=30",
        "SchedulerTimeSlice=30", "ResumeTimeout=60", "SuspendTime=NONE", "SuspendTime=-1",
        "KillOnBadExit=0", "CompleteWait=0", "MaxArraySize=1001", "PriorityUsageResetPeriod=NONE",
        "PreemptType=preempt/none", "PreemptType=preempt/qos", "SelectType=select/cons_res",
        "PrioritySiteFactorPlugin=site_factor/none", "TopologyPlugin=topology/default",
        "PriorityFlags=MAX_TRES,NO_FAIR_TREE", "PriorityFlags=FAIR_TREE",
        "PriorityWeightTRES=CPU=1,Mem=2,Node=3,GRES/gpu=4",
        'TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"',
        "SelectTypeParameters=CR_Core_Memory,CR_ONE_TASK_PER_CORE",
        "PreemptExemptTime=-1", "PreemptExemptTime=10:00", "PreemptExemptTime=UNLIMITED",
        "FairShareDampeningFactor=5",
        "DependencyParameters=kill_invalid_depend", "SlurmctldHost=ctl01",
    ],
)  # fmt: skip
def test_defaults_and_what_slurmlab_models_load_without_a_warning(setting):
    """Only a value asking for what slurmlab lacks warns: Slurm's defaults, ReturnToService=1
    or 2 (slurmlab returns a repaired node to service), modelled flags and TRES do not."""
    assert load(setting) == []


def test_unmodelled_priority_flags_are_named_each():
    """Of PriorityFlags slurmlab models NO_FAIR_TREE, DEPTH_OBLIVIOUS and MAX_TRES; the others
    are named."""
    flags = "SMALL_RELATIVE_TO_TIME,MAX_TRES,NO_NORMAL_QOS,ACCRUE_ALWAYS,CALCULATE_RUNNING"
    assert load(f"PriorityFlags={flags}") == [
        "slurm.conf line 2: PriorityFlags SMALL_RELATIVE_TO_TIME, NO_NORMAL_QOS, ACCRUE_ALWAYS, "
        f"CALCULATE_RUNNING: {NOT_MODELLED}; it models NO_FAIR_TREE, DEPTH_OBLIVIOUS and MAX_TRES"
    ]


@pytest.mark.parametrize("key", ["PriorityWeightTRES", "TRESBillingWeights"])
def test_real_tres_slurmlab_does_not_count_are_named(key):
    """Slurm's TRES beyond CPU, Mem, Node and GRES/gpu weigh nothing in slurmlab: named."""
    value = "CPU=1,Energy=2,GRES/gpu:h100=3,License/matlab=4,BB/datawarp=5,FS/Disk=6,Billing=7"
    (caught,) = load(f"{key}={value}")
    assert caught.startswith(
        f"slurm.conf line 2: {key} Energy, GRES/gpu:h100, License/matlab, BB/datawarp, "
        f"FS/Disk, Billing: {NOT_MODELLED}"
    )


def test_a_partitions_billing_weights_name_the_partition():
    """A partition's own TRESBillingWeights are checked like the global ones."""
    conf = 'NodeName=n1\nPartitionName=gpu Nodes=n1 TRESBillingWeights="CPU=1,GRES/gpu:a100=2"\n'
    conf += SELECT
    with pytest.warns(UserWarning) as caught:
        Cluster.from_slurm_conf(conf)
    assert [str(w.message) for w in caught] == [
        f"slurm.conf line 2: partition 'gpu': TRESBillingWeights GRES/gpu:a100: {NOT_MODELLED}; "
        "it counts CPU, Mem, Node and GRES/gpu (all types together) only"
    ]
    with pytest.raises(ConfigError, match=r"line 2: partition 'gpu': .*'bogus' is not a Slurm"):
        Cluster.from_slurm_conf(conf.replace("GRES/gpu:a100", "bogus"))


def test_unmodelled_select_type_parameters_are_named():
    (caught,) = load("SelectTypeParameters=CR_Socket_Memory,CR_LLN")
    assert caught.startswith(
        f"slurm.conf line 2: SelectTypeParameters CR_Socket_Memory, CR_LLN: {NOT_MODELLED}; "
    )
    assert "least loaded nodes" in caught


# -- values Slurm would refuse: an error naming the line, the key, the value and the fix -------
@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("ReturnToService=3", "whole number from 0 to 2"),
        ("SlurmdTimeout=5m", r"whole number from 0 to 65535 \(seconds"),
        ("SchedulerTimeSlice=2", "whole number from 5 to 65535"),
        ("KillOnBadExit=yes", "whole number from 0 to 1"),
        ("MaxArraySize=lots", "whole number from 0 to 4000001"),
        ("FairShareDampeningFactor=0", "whole number from 1 to 65535"),
        ("KillWait=-1", "whole number from 0"),
        ("PriorityUsageResetPeriod=SOMETIMES", "must be NONE, NOW, DAILY, WEEKLY, MONTHLY"),
        (
            "PreemptType=preempt/bogus",
            "must be preempt/none, preempt/partition_prio or preempt/qos",
        ),
        ("PriorityType=priority/fancy", "must be priority/basic or priority/multifactor"),
        ("PriorityFavorSmall=maybe", "is not a boolean"),
        ("SelectType=select/magic", "must be select/cons_tres"),
        ("PreemptMode=KILL", "'KILL' is not a PreemptMode; Slurm's are OFF, CANCEL, GANG"),
        ("PreemptMode=REQUEUE,BOGUS", "'BOGUS' is not a PreemptMode"),
        ("PreemptExemptTime=soon", "must be -1 .none, the default., UNLIMITED"),
        ("OverTimeLimit=5s", "whole number of minutes up to 65533, or UNLIMITED"),
        ("SuspendTime=soon", "whole number of seconds, or NONE"),
        ("RequeueExit=1-300", "'1-300' is not an exit code .0-255."),
        ("RequeueExitHold=abc", "'abc' is not an exit code"),
        ("PriorityFlags=BOGUS_FLAG", "'BOGUS_FLAG' is not a Slurm priority flag"),
        ("PriorityFlags=MAX_TRES,INCR-ONLY", "'INCR-ONLY' is not a Slurm priority flag"),
        ("PriorityWeightTRES=CPU=1000,bogus=5", "'bogus' is not a Slurm TRES; Slurm's TRES are"),
        ("TRESBillingWeights=CPU=1,gpu=2", r"'gpu' is not a Slurm TRES \(GPUs are GRES/gpu\)"),
    ],
)
def test_a_bad_value_is_an_error_naming_line_key_and_value(setting, words):
    key, _, value = setting.partition("=")
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(f"ClusterName=c\n{setting}\n{NODES}")
    assert info.value.line == 2
    assert str(info.value).startswith(f"slurm.conf line 2: {key}={value!r}")
    assert re.search(words, str(info.value)), str(info.value)
    with pytest.raises(SlurmlabError, match=rf"Cluster 'c': {re.escape(key)}="):
        build({key: value})


def test_the_error_lists_slurms_priority_flags():
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(f"PriorityFlags=BOGUS_FLAG\n{NODES}")
    flags = (
        "ACCRUE_ALWAYS, CALCULATE_RUNNING, DEPTH_OBLIVIOUS, INCR_ONLY, MAX_TRES, NO_FAIR_TREE, "
        "NO_NORMAL_ALL, NO_NORMAL_ASSOC, NO_NORMAL_PART, NO_NORMAL_QOS, NO_NORMAL_TRES and "
        "SMALL_RELATIVE_TO_TIME"
    )
    assert flags in str(info.value)


def test_no_warning_comes_before_an_error():
    """Every setting is checked before any is warned about: a refused cluster warns nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SlurmlabError, match="PreemptType='preempt/bogus'"):
            build({"KillWait": "5", "PreemptType": "preempt/bogus"})


def test_a_scenarios_inline_settings_warn_and_fail_alike():
    doc = {
        "cluster": {"nodes": [{"name": "n1", "cpus": 4}], "settings": {"ReturnToService": 0}},
        "jobs": [{"id": "a", "runtime": 60, "args": "-n 1 -t 5"}],
    }
    with pytest.warns(UserWarning, match=r"Cluster 'inline': ReturnToService=0: not modelled"):
        slurmlab.Scenario.from_dict(doc)
    doc["cluster"]["settings"] = {"PriorityFlags": "BOGUS_FLAG"}
    with pytest.raises(SlurmlabError, match="'BOGUS_FLAG' is not a Slurm priority flag"):
        slurmlab.Scenario.from_dict(doc)


# -- the files slurmlab ships ------------------------------------------------------------------
def test_presets_and_course_scenarios_load_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in slurmlab.presets():
            Cluster.from_slurm_conf(ROOT / "slurmlab" / "data" / f"{name}.conf")
        for path in sorted((ROOT / "course" / "scenarios").glob("*.yaml")):
            slurmlab.Scenario.load(path)


def test_the_real_clusters_slurm_conf_warns_only_about_kill_wait():
    """datasets/realslurm/slurm.conf sets KillWait=5 (real Slurm's TIMEOUT end includes it);
    its ReturnToService=2 and default SlurmdTimeout=300 are what slurmlab does."""
    path = ROOT / "datasets" / "realslurm" / "slurm.conf"
    if not path.exists():
        pytest.skip("no datasets/realslurm")
    with pytest.warns(UserWarning) as caught:
        Cluster.from_slurm_conf(path)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and re.match(
        rf"{path} line \d+: KillWait=5: not modelled", messages[0]
    )
