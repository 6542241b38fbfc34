"""Stop 44, slurm.conf defaults and requests Slurm 22.05 treats otherwise than slurmlab did:
each rule with its config inline and the outcome the source gives (the function is named in
each docstring; the source is slurm-22-05-8-1)."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import Cluster, ConfigError, JobSpec, Lab, RequestError
from slurmlab.errors import SlurmlabError
from slurmlab.spec.cluster import Gres, Node, Partition, parse_gres
from slurmlab.spec.job import resolve_all

POLICIES = ("fifo", "easy", "conservative", "slurm")
CONS_TRES = "SelectType=select/cons_tres\n"


def load(conf: str) -> tuple[Cluster, list[str]]:
    """The cluster of a slurm.conf text, and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster = Cluster.from_slurm_conf(conf)
    return cluster, [str(w.message) for w in caught]


def quiet(conf: str) -> Cluster:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Cluster.from_slurm_conf(conf)


def lab_of(conf: str, policy: str = "easy") -> Lab:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Lab(Cluster.from_slurm_conf(conf), policy=policy)


# -- 1. cons_tres / cons_res without SelectTypeParameters: CR_Core_Memory ------------------------
ONE_NODE = "NodeName=n1 CPUs=4 RealMemory=1000\nPartitionName=p Nodes=n1 Default=YES\n"


@pytest.mark.parametrize("select", ["select/cons_tres", "select/cons_res"])
def test_cons_tres_without_select_type_parameters_consumes_memory(select):
    """cons_common.c select_p_node_init: with no SelectTypeParameters, "SelectTypeParameters
    not specified, using default value: CR_Core_Memory": two jobs of 800 MB on a node of
    1000 MB run one after the other."""
    cluster, caught = load(f"SelectType={select}\n{ONE_NODE}")
    # (named: with no DefMemPerCPU, a job without --mem gets the node's whole memory)
    assert len(caught) == 1 and "a job without --mem gets the whole memory" in caught[0]
    assert cluster.memory_tracked and cluster.core_allocation
    _, caught = load(f"SelectType={select}\nDefMemPerCPU=100\n{ONE_NODE}")
    assert caught == []
    lab = lab_of(f"SelectType={select}\n{ONE_NODE}")
    for _ in range(2):
        lab.sbatch("-n 1 --mem=800 -t 10", runtime=300)
    lab.advance(1)
    assert lab.squeue()["NODELIST(REASON)"].tolist() == ["(Resources)", "n1"]
    assert lab.sacct()["AllocTRES"].iloc[0] == "billing=1,cpu=1,mem=800M,node=1"


def test_settings_that_name_no_select_type_keep_memory_untracked():
    """A cluster built in Python, or inline in a scenario, with no SelectType: memory stays
    no consumable resource, as before; one that names cons_tres gets Slurm's default."""
    node, part = Node("n1", cpus=4, memory_mb=1000), Partition("p", ("n1",), default=True)
    assert not Cluster("c", (node,), (part,)).memory_tracked
    assert not Cluster("c", (node,), (part,), {"DefMemPerCPU": "100"}).memory_tracked
    assert Cluster("c", (node,), (part,), {"SelectType": "select/cons_tres"}).memory_tracked
    both = {"SelectType": "select/cons_tres", "SelectTypeParameters": "CR_Core"}
    assert not Cluster("c", (node,), (part,), both).memory_tracked


def test_one_task_per_core_alone_names_no_way_to_allocate():
    """select_p_node_init applies CR_Core_Memory only when SelectTypeParameters is not given
    at all (``!slurm_conf.select_type_param``); CR_ONE_TASK_PER_CORE alone is then fatal
    ("You need at least CR_(CPU|CORE|SOCKET)*"), as slurmlab has it."""
    with pytest.raises(ConfigError, match="names no way to allocate CPUs"):
        quiet(f"{CONS_TRES}SelectTypeParameters=CR_ONE_TASK_PER_CORE\n{ONE_NODE}")


# -- 2. no SelectType line: Slurm 22.05 uses select/linear --------------------------------------
def test_a_conf_without_select_type_is_named_in_one_warning():
    """read_config.c: ``SelectType`` unset is DEFAULT_SELECT_TYPE, select/linear
    (read_config.h): whole nodes per job, which slurmlab does not model, as an explicit
    select/linear line is warned about."""
    _, caught = load("NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
    assert len(caught) == 1, caught
    assert caught[0].startswith("slurm.conf: no SelectType line: Slurm 22.05 then uses ")
    assert "select/linear" in caught[0] and "add SelectType=select/cons_tres" in caught[0]
    _, caught = load(f"{CONS_TRES}SelectTypeParameters=CR_Core\n{ONE_NODE}")
    assert caught == []
    _, caught = load(f"SelectType=select/linear\n{ONE_NODE}")
    assert len(caught) == 1 and "SelectType=select/linear: not modelled" in caught[0]


@pytest.mark.parametrize("name", ["tiny", "teaching", "ai"])
def test_the_presets_name_their_select_type(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Cluster.preset(name)


# -- 3. memory above every node's RealMemory, memory not consumable ------------------------------
CR_CORE = f"{CONS_TRES}SelectTypeParameters=CR_Core\n"
TWO_SIZES = (
    "NodeName=small CPUs=4 RealMemory=1000\nNodeName=big CPUs=4 RealMemory=2000\n"
    "PartitionName=p Nodes=ALL Default=YES\n"
)


@pytest.mark.parametrize("params", ["CR_Core", "CR_CPU"])
def test_more_memory_than_any_node_has_is_refused_even_when_not_consumed(params):
    """node_scheduler.c _build_node_list: a node set is used only if pn_min_memory <=
    real_memory, whatever SelectTypeParameters says; none left: "Memory specification can
    not be satisfied" / "Requested node configuration is not available"."""
    cluster = quiet(f"{CONS_TRES}SelectTypeParameters={params}\n{TWO_SIZES}")
    with pytest.raises(RequestError, match="Memory specification can not be satisfied"):
        JobSpec.from_args("--mem=4G -t 5").resources(cluster)
    with pytest.raises(RequestError, match="3000 MB per CPU"):  # (the per-CPU value alone)
        JobSpec.from_args("--mem-per-cpu=3000 -t 5").resources(cluster)
    # a node with less memory than asked is none of the job's nodes, nothing is consumed
    res = JobSpec.from_args("--mem=1500 -t 5").resources(cluster)
    assert res.candidates == ("big",) and res.mem_per_node_mb == 0 and res.req_mem_mb == 1500
    # a per-CPU value each node holds is taken, whatever its product with the CPUs (the
    # nodes in slurmctld's table order: by name)
    assert JobSpec.from_args("-c 4 --mem-per-cpu=600").resources(cluster).candidates == (
        "big",
        "small",
    )
    lab = lab_of(f"{CR_CORE}{TWO_SIZES}")
    for _ in range(2):  # (memory not consumed: both on big)
        lab.sbatch("-n 2 --mem=1500 -t 5", runtime=60)
    lab.advance(1)
    assert lab.squeue()["NODELIST(REASON)"].tolist() == ["big", "big"]


# -- 4. PreemptMode SUSPEND / GANG where no job is preempted -------------------------------------
@pytest.mark.parametrize(
    ("ptype", "mode"),
    [
        ("preempt/partition_prio", "SUSPEND,GANG"),
        ("preempt/partition_prio", "SUSPEND"),
        ("preempt/none", "GANG"),
        (None, "GANG"),
    ],
)
def test_suspend_and_gang_run_where_no_job_is_preempted(ptype, mode):
    """Under a PreemptType other than preempt/qos slurmlab preempts no job, so SUSPEND and
    GANG (time slicing) change nothing it models: named in a warning, and the cluster
    simulates (read_config.c accepts them: preempt/none takes GANG)."""
    conf = (f"PreemptType={ptype}\n" if ptype else "") + f"PreemptMode={mode}\n"
    cluster, caught = load(f"{CR_CORE}{conf}{ONE_NODE}")
    mine = [c for c in caught if "PreemptMode=" in c]
    assert len(mine) == 1 and f"PreemptMode={mode}: not modelled by slurmlab" in mine[0], caught
    lab = Lab(cluster)
    lab.sbatch("-n 1 -t 5", runtime=60)
    lab.advance("2m")
    assert lab.sacct()["State"].tolist() == ["COMPLETED"]


def test_suspend_under_preempt_qos_is_still_refused():
    cluster = quiet(f"{CR_CORE}PreemptType=preempt/qos\nPreemptMode=SUSPEND,GANG\n{ONE_NODE}")
    with pytest.raises(SlurmlabError, match="slurmlab models PreemptMode OFF, CANCEL and REQUEUE"):
        Lab(cluster)


# -- 5. GRES: no_consume and 64-bit counts --------------------------------------------------------
def test_slurm_conf_man_pages_gres_example_is_read():
    """slurm.conf(5) Gres: ``<name>[:<type>][:no_consume]:<number>[K|M|G]``; gres.c
    gres_add_type takes no_consume as a flag, never a type, and _get_gres_cnt counts in 64
    bits (strtoll)."""
    conf = (
        f"{CR_CORE}GresTypes=gpu,bandwidth\n"
        "NodeName=n1 CPUs=8 Gres=gpu:tesla:1,gpu:kepler:1,bandwidth:lustre:no_consume:4G\n"
        "PartitionName=p Nodes=n1 Default=YES\n"
    )
    cluster, caught = load(conf)
    assert [c[:41] for c in caught] == ["slurm.conf: nodes n1 have GPUs of several"]
    assert cluster.nodes[0].gres == (
        Gres("gpu", "tesla", 1),
        Gres("gpu", "kepler", 1),
        Gres("bandwidth", "lustre", 4 * 2**30, no_consume=True),
    )
    assert str(cluster.nodes[0].gres[2]) == "bandwidth:lustre:no_consume:4294967296"
    assert parse_gres("bandwidth:4G") == (Gres("bandwidth", None, 2**32),)
    assert parse_gres("bw:NO_CONSUME:2") == (Gres("bw", None, 2, no_consume=True),)
    with pytest.raises(SlurmlabError, match="at most 4294967295"):  # (GPUs stay 32-bit)
        Gres("gpu", None, 2**32)


def test_a_no_consume_gpu_is_no_gpu_type_and_is_named_in_a_warning():
    conf = f"{CR_CORE}GresTypes=gpu\nNodeName=n1 CPUs=8 Gres=gpu:no_consume:2\n"
    cluster, caught = load(conf + "PartitionName=p Nodes=n1 Default=YES\n")
    assert cluster.nodes[0].gres == (Gres("gpu", None, 2, no_consume=True),)
    assert cluster.tres()["gres/gpu"] == 2 and "gres/gpu:no_consume" not in cluster.tres()
    assert len(caught) == 1 and caught[0].startswith("slurm.conf line 4: nodes n1 have GPUs ")
    assert "no_consume" in caught[0] and "one job at a time" in caught[0]


# -- 6. no PartitionName line ---------------------------------------------------------------------
def test_a_conf_without_partitions_is_named_in_a_warning():
    """job_mgr.c _get_job_parts: with no partition, every job without -p is refused ("No
    partition specified or system default partition"); slurmlab invents one, and says so."""
    cluster, caught = load(f"{CR_CORE}NodeName=n[1-2] CPUs=4\n")
    assert [p.name for p in cluster.partitions] == ["default"]
    assert len(caught) == 1, caught
    assert caught[0].startswith("slurm.conf: no PartitionName= line: Slurm then has no partition")
    assert "PartitionName=main Nodes=ALL Default=YES" in caught[0]


# -- 7. -n N without -N on nodes of different sizes -----------------------------------------------
MIXED = (
    f"{CR_CORE}NodeName=n1 CPUs=24 RealMemory=64000\nNodeName=n2 CPUs=8 RealMemory=64000\n"
    "PartitionName=p Nodes=n[1-2] Default=YES\n"
)


def test_tasks_the_nodes_hold_together_are_not_refused():
    """select/cons_tres _eval_nodes (job_test.c): each node takes its available CPUs' worth
    of the tasks until all are held: -n 30 on nodes of 24 and 8 CPUs runs 24 + 6, though an
    even share (15 per node) fits only one."""
    cluster = quiet(MIXED)
    res = JobSpec.from_args("-n 30 -t 5").resources(cluster)
    assert res.candidates == ("n1", "n2")
    assert JobSpec.from_args("-n 18 -t 5").resources(cluster).candidates == ("n1", "n2")
    # memory per CPU bounds what each holds: 12 + 4 tasks of 2000 MB, too few for 30
    memory = f"{CONS_TRES}SelectTypeParameters=CR_Core_Memory\n" + MIXED.replace(CR_CORE, "")
    memory = memory.replace("RealMemory=64000", "RealMemory=24000", 1)
    memory = memory.replace("RealMemory=64000", "RealMemory=8000")
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        JobSpec.from_args("-n 30 --mem-per-cpu=2000 -t 5").resources(quiet(memory))
    assert JobSpec.from_args("-n 30 --mem-per-cpu=800").resources(quiet(memory)).candidates == (
        "n1",
        "n2",
    )


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_starts_the_job_over_both_nodes(policy):
    lab = lab_of(MIXED, policy)
    lab.sbatch("-n 30 -t 5", runtime=60)
    lab.advance(1)
    row = lab.squeue().iloc[0]
    assert (row["ST"], row["NODES"], row["NODELIST(REASON)"]) == ("R", 2, "n[1-2]")
    assert lab.sacct()["AllocTRES"].iloc[0] == "billing=30,cpu=30,node=2"
    states = " ".join(lab.sinfo_text().split())  # (24 + 6: n1 all taken, n2 in part)
    assert "1 alloc n1" in states and "1 mix n2" in states


def test_a_partition_whose_nodes_hold_the_tasks_together_is_kept_in_a_list():
    conf = MIXED + "NodeName=n3 CPUs=64\nPartitionName=q Nodes=n3\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "can never run in partition p")
        kept = resolve_all(JobSpec.from_args("-p p,q -n 30 -t 5"), quiet(conf))
    assert [r.partition for r in kept] == ["p", "q"]


# -- 8. a GPU type -w, -x or -C left out ----------------------------------------------------------
TYPED = (
    f"{CR_CORE}GresTypes=gpu\nNodeName=n1 CPUs=16 Gres=gpu:a100:4 Feature=ib\n"
    "NodeName=n2 CPUs=16 Gres=gpu:h100:4\nPartitionName=a Nodes=n[1-2] Default=YES\n"
)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ("-w n1 --gres=gpu:h100:1", "--nodelist=n1"),
        ("-C ib --gres=gpu:h100:1", "--constraint='ib'"),
        ("-x n2 --gpus=h100:1", "--exclude=n2"),
    ],
)
def test_a_gpu_type_left_out_by_an_option_names_the_option(args, option):
    with pytest.raises(RequestError) as exc:
        JobSpec.from_args(f"{args} -t 5").resources(quiet(TYPED))
    assert str(exc.value).startswith(
        f"GPU type 'h100': partition 'a' has it on n2, and {option} leaves out that node: "
        "Requested node configuration is not available"
    )
    with pytest.raises(RequestError, match="GPU type 'v100' is not in partition 'a'"):
        JobSpec.from_args("--gres=gpu:v100:1 -t 5").resources(quiet(TYPED))


# -- smaller: AvailableFeatures=, and where a global key's warning points -------------------------
def test_available_features_is_no_slurm_conf_node_option():
    """read_config.c _nodename_options has Feature and Features, not scontrol's
    AvailableFeatures: slurmctld stops ("Parsing error at unrecognized key")."""
    with pytest.raises(ConfigError, match="slurm.conf's is Features="):
        quiet(f"{CR_CORE}NodeName=n1 AvailableFeatures=x\nPartitionName=p Nodes=n1\n")


def test_a_global_keys_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Cluster.from_slurm_conf(f"{CR_CORE}SlurmdTimeout=60\n{ONE_NODE}")
    assert [w.filename for w in caught] == [__file__]


def test_sched_interval_zero_runs_a_full_pass_about_every_second():
    # job_scheduler.c refuses only sched_interval < 0 other than -1; controller.c then runs a
    # full pass whenever difftime(now, last_full_sched_time) >= 0: at each loop of the
    # background thread (about every second), over the whole queue (no default_queue_depth)
    import slurmlab

    def start_of_b(params: str) -> float:
        c = slurmlab.Cluster.from_slurm_conf(
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
            "NodeName=n[1-2] CPUs=4\nPartitionName=p1 Nodes=n1 Default=YES\n"
            f"PartitionName=p2 Nodes=n2\nSchedulerParameters={params}\n"
        )
        lab = slurmlab.Lab(c, policy="slurm")
        lab.sbatch("-p p1 -n 4 -t 5", runtime=100)
        lab.sbatch("-p p1 -n 4 -t 5", runtime=10)  # blocked: the only job an event pass tests
        lab.advance(10)
        b = lab.sbatch("-p p2 -n 1 -t 5", runtime=10)
        lab.advance(200)
        jobs = lab.result.jobs.set_index("JobID")
        return (jobs.loc[str(b), "Start"] - lab.result.origin).total_seconds()

    assert start_of_b("default_queue_depth=0,bf_interval=-1,sched_interval=0") == 11
    assert start_of_b("default_queue_depth=0,bf_interval=-1,sched_interval=60") == 60
