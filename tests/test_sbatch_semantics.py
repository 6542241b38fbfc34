"""sbatch's option semantics, rule by rule, as sbatch(1), slurm.conf(5) and Slurm's source
(gres.c ``_test_gres_cnt``, parse_time.c ``time_str2mins``) state them."""

from datetime import datetime, timedelta

import pytest

from slurmlab import Cluster, JobSpec, RequestError, SbatchError
from slurmlab.spec.cluster import Node, Partition
from slurmlab.spec.job import TimeOfDay, features_match

TINY = Cluster.preset("tiny")  # node[1-4]: 16 CPUs, 64000 MB, 2 a100; DefMemPerCPU=2000
TEACHING = Cluster.preset("teaching")  # gpu[01-08]: 32 CPUs, 4 a100, features a100,ib


def args(text: str) -> JobSpec:
    return JobSpec.from_args(text)


def conf(settings: str = "", partition: str = "", nodes: str = "") -> Cluster:
    """Two 8-CPU, 64000 MB nodes with two GPUs, memory tracked, in one default partition."""
    return Cluster.from_slurm_conf(
        "SelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\n"
        + settings
        + f"\nNodeName=n[1-2] CPUs=8 RealMemory=64000 Gres=gpu:2 {nodes}\n"
        + f"PartitionName=p Nodes=ALL Default=YES {partition}\n"
    )


# -- GPUs per job, per node and per task combine when they agree (_test_gres_cnt) -------------


def test_pytorch_ddp_script_one_task_per_gpu():
    """--gres=gpu:4 --ntasks-per-node=4 --gpus-per-task=1 (the PyTorch DDP script) is 4 tasks
    and 4 GPUs on each node."""
    res = args("--gres=gpu:4 --ntasks-per-node=4 --gpus-per-task=1").resources(TEACHING)
    assert (res.nodes, res.tasks_per_node, res.gpus_per_node) == (1, (4,), 4)
    res = args("-N 2 --gres=gpu:4 --ntasks-per-node=4 --gpus-per-task=1").resources(TEACHING)
    assert (res.nodes, res.ntasks, res.tasks_per_node, res.gpus_per_node) == (2, 8, (4, 4), 4)


def test_gpus_per_job_over_gpus_per_task_is_the_task_count():
    """--gpus=4 --gpus-per-task=1 asks for 4 tasks of one GPU (sbatch(1): "--gpus=X
    --gpus-per-task=Y" is an explicit task count)."""
    spec = args("--gpus=4 --gpus-per-task=1")
    assert spec.tres()["gres/gpu"] == 4
    res = spec.resources(TEACHING)
    assert (res.ntasks, res.nodes, res.gpus_per_node) == (4, 1, 4)
    res = spec.resources(TINY)  # 2 GPUs per node: 2 nodes of 2 tasks
    assert (res.ntasks, res.tasks_per_node, res.gpus_per_node) == (4, (2, 2), 2)


def test_gpus_per_job_over_gpus_per_node_is_the_node_count():
    """--gres=gpu:1 --gpus=2 asks for 2 nodes of one GPU each."""
    res = args("--gres=gpu:1 --gpus=2").resources(TINY)
    assert (res.nodes, res.gpus_per_node, res.tres()["gres/gpu"]) == (2, 1, 2)


def test_gpus_per_node_over_gpus_per_task_is_the_tasks_per_node():
    """-n 4 --gres=gpu:4 --gpus-per-task=2 runs 2 tasks on each of 2 nodes."""
    res = args("-n 4 --gres=gpu:4 --gpus-per-task=2").resources(TEACHING)
    assert (res.ntasks, res.tasks_per_node, res.gpus_per_node) == (4, (2, 2), 4)


def test_cpus_per_gpu_times_gpus_per_task_is_the_cpus_per_task():
    """--cpus-per-gpu=4 --gpus-per-task=2 gives each task 8 CPUs."""
    res = args("-n 2 --gpus-per-task=2 --cpus-per-gpu=4").resources(TEACHING)
    assert (res.cpus_per_task, res.cpus_per_node, res.gpus_per_node) == (8, 16, 4)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("--gres=gpu:2 --gpus=3", ["--gres=gpu:2", "--gpus=3"]),
        ("--gpus-per-node=2 --gpus=3", ["--gpus-per-node=2", "--gpus=3"]),
        ("--gres=gpu:2 --gpus=4 -N 3", ["--gres=gpu:2", "makes 2 nodes", "--nodes=3"]),
        ("--gpus=4 --gpus-per-task=1 -n 3", ["--gpus=4", "makes 4 tasks", "--ntasks=3"]),
        ("--gpus=3 --gpus-per-task=2", ["--gpus=3", "--gpus-per-task=2"]),
        ("--gres=gpu:4 --gpus-per-task=1 --ntasks-per-node=2", ["makes 4 tasks per node"]),
        ("--gres=gpu:3 --gpus-per-task=2 -n 2", ["--gres=gpu:3", "--gpus-per-task=2"]),
    ],
)
def test_gpu_counts_that_disagree_are_refused(text, words):
    """Per-job, per-node and per-task GPU counts that do not agree are Slurm's "Invalid
    generic resource (gres) specification"; the error names the options as they were typed."""
    with pytest.raises(SbatchError, match=r"Invalid generic resource \(gres\)") as exc:
        args(text)
    for w in words:
        assert w in str(exc.value)


def test_gres_error_names_gres_not_gpus_per_node():
    """An error about --gres=gpu:N names --gres, the option the user typed."""
    with pytest.raises(SbatchError) as exc:
        args("--gres=gpu:2 --gpus=3")
    assert "--gres=gpu:2" in str(exc.value) and "--gpus-per-node" not in str(exc.value)


# -- --constraint: left to right, no precedence, parentheses group ---------------------------


@pytest.mark.parametrize(
    ("expr", "features", "match"),
    [
        ("foo|bar&baz", {"foo"}, False),  # (foo|bar)&baz
        ("foo|bar&baz", {"foo", "baz"}, True),
        ("foo|bar&baz", {"bar", "baz"}, True),
        ("foo&bar|baz", {"baz"}, True),  # (foo&bar)|baz
        ("foo&(bar|baz)", {"foo", "baz"}, True),
        ("foo&(bar|baz)", {"bar", "baz"}, False),
        ("(a|b)&(c|d)", {"b", "d"}, True),
        ("(a|b)&(c|d)", {"a", "b"}, False),
        ("a100", {"a100", "ib"}, True),
        ("a100&ib", {"a100"}, False),
    ],
)
def test_constraint_reads_left_to_right(expr, features, match):
    """Slurm applies & and | strictly left to right, with parentheses for grouping."""
    assert features_match(expr, frozenset(features)) is match


def test_constraint_selects_nodes_with_parentheses():
    """-C 'a100&(ib|cpu)' keeps the teaching GPU nodes (a100 and ib)."""
    assert len(args("-C 'a100&(ib|cpu)'").resources(TEACHING).candidates) == 8


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("-C '[a100|h100]'", ["--constraint='[a100|h100]'", "not modelled by slurmlab"]),
        ("-C 'a100*2&ib*2'", ["--constraint='a100*2&ib*2'", "not modelled by slurmlab"]),
        ("-C 'a100&'", ["--constraint='a100&'", "missing"]),
        ("-C '(a100|h100'", ["not closed"]),
        ("-C 'a100)'", ["')'"]),
        ("-C '&a100'", ["'&'"]),
    ],
)
def test_constraint_forms_not_modelled_or_malformed_are_refused(text, words):
    """Matching OR ([a|b]) and node counts (a*N) are refused as not modelled, and a malformed
    expression is refused, naming --constraint and its value."""
    with pytest.raises(SbatchError) as exc:
        args(text)
    for w in words:
        assert w in str(exc.value)


# -- memory: defaults per GPU, MaxMemPerNode / MaxMemPerCPU, --exclusive ----------------------


def test_mem_above_max_mem_per_node_pends():
    """--mem above MaxMemPerNode: accepted and left pending (MaxMemPerLimit) under the default
    EnforcePartLimits=NO (slurm.conf(5))."""
    c = conf("MaxMemPerNode=8000")
    assert args("--mem=20000").resources(c).limit_reason == "MaxMemPerLimit"
    assert args("--mem=8000").resources(c).limit_reason is None
    assert args("-n 8 --mem-per-cpu=2000").resources(c).limit_reason == "MaxMemPerLimit"


def test_mem_above_max_mem_per_node_is_rejected_when_limits_are_enforced():
    """With EnforcePartLimits=ALL a job above MaxMemPerNode is rejected at submission."""
    c = conf("MaxMemPerNode=8000\nEnforcePartLimits=ALL")
    with pytest.raises(RequestError, match="Memory required by task is not available"):
        args("--mem=20000").resources(c)


def test_partition_max_mem_per_node_wins_over_the_global_one():
    """A partition's MaxMemPerNode replaces the global one."""
    c = conf("MaxMemPerNode=8000", partition="MaxMemPerNode=30000")
    assert args("--mem=20000").resources(c).limit_reason is None
    assert args("--mem=40000").resources(c).limit_reason == "MaxMemPerLimit"


def test_mem_per_cpu_above_max_mem_per_cpu_raises_cpus_per_task():
    """slurm.conf(5)/sbatch(1): above MaxMemPerCPU, --mem-per-cpu shrinks to at most the limit
    and --cpus-per-task grows so that their product is (at least) what was asked."""
    res = args("--mem-per-cpu=5000").resources(conf("MaxMemPerCPU=2000"))
    assert (res.cpus_per_task, res.mem_per_cpu_mb) == (3, 1667)
    assert res.cpus_per_node == 3 and res.mem_per_node_mb == 3 * 1667 >= 5000
    assert res.limit_reason is None


def test_mem_per_node_above_max_mem_per_cpu_times_cpus_gets_more_cpus():
    """--mem above MaxMemPerCPU x the job's CPUs on a node: the job gets more CPUs (sites
    document it: "If --mem specifies a value more than the maximum memory per core the job
    will have its core request automatically increased"), it does not pend."""
    c = conf("MaxMemPerCPU=2000")
    assert args("-n 2 --mem=4000").resources(c).cpus_per_node == 2
    res = args("-n 2 --mem=5000").resources(c)
    assert (res.limit_reason, res.cpus_per_node) == (None, 3)


@pytest.mark.parametrize("where", ["global", "partition"])
def test_def_mem_per_gpu_for_gpu_jobs_without_a_memory_option(where):
    """DefMemPerGPU (global or the partition's) gives a GPU job without --mem* its memory per
    GPU; a job without GPUs still gets DefMemPerCPU."""
    setting = "DefMemPerGPU=10000"
    c = conf("DefMemPerCPU=1000\n" + setting if where == "global" else "DefMemPerCPU=1000",
             partition="" if where == "global" else setting)  # fmt: skip
    res = args("--gres=gpu:2").resources(c)
    assert (res.mem_per_node_mb, res.mem_per_gpu_mb) == (20000, 10000)
    assert args("-n 2").resources(c).mem_per_node_mb == 2000
    assert args("--gres=gpu:2 --mem=5000").resources(c).mem_per_node_mb == 5000


def test_exclusive_with_mem_per_cpu_beyond_node_memory_is_rejected():
    """sbatch(1): --mem-per-cpu with --exclusive counts every CPU of a node; a job no node can
    then hold is rejected."""
    with pytest.raises(RequestError, match="--exclusive") as exc:
        args("--exclusive --mem-per-cpu=5000").resources(TINY)  # 16 x 5000 > 64000 MB
    assert "Requested node configuration is not available" in str(exc.value)
    assert args("--exclusive --mem-per-cpu=4000").resources(TINY).whole_node  # 64000 MB fits


# -- node counts: -n below -N, --nodelist ------------------------------------------------------


def test_fewer_tasks_than_nodes_lowers_the_node_count():
    """sbatch: "can't run 2 processes on 3 nodes, setting nnodes to 2"."""
    with pytest.warns(UserWarning, match="can't run 2 processes on 3 nodes, setting nnodes to 2"):
        res = args("-N 3 -n 2").resources(TINY)
    assert (res.nodes, res.tasks_per_node) == (2, (1, 1))
    assert args("-N 3 -n 2").tres()["node"] == 2


def test_nodelist_raises_the_minimum_node_count():
    """sbatch/opt.c _opt_verify: the hosts of -w raise the minimum node count (min_nodes =
    MAX(hosts, min_nodes)): -w node[1-3] alone and with -N 2-4 is 3 nodes; with a plain -N 2
    (min = max = 2, verify_node_count) the minimum passes the maximum: "invalid number of
    nodes (-N 3-2)"."""
    res = args("-w node[1-3]").resources(TINY)
    assert (res.nodes, res.candidates) == (3, ("node1", "node2", "node3"))
    with pytest.warns(UserWarning, match="Slurm adds other free nodes up to 4"):
        res = args("-w node[1-3] -N 2-4").resources(TINY)
    assert res.nodes == 3
    with pytest.raises(SbatchError, match=r"invalid number of nodes \(-N 3-2\)"):
        args("-w node[1-3] -N 2")


def test_nodelist_longer_than_max_nodes_is_invalid():
    """-w with more hosts than -N MIN-MAX allows is sbatch's "invalid number of nodes"
    (sbatch/opt.c _opt_verify); more than --gpus / --gres=gpu:N make is slurmctld's "Node
    count specification invalid"."""
    with pytest.raises(SbatchError, match=r"invalid number of nodes \(-N 3-2\)"):
        args("-w node[1-3] -N 1-2")
    with pytest.raises(RequestError, match="makes 2 nodes .* Node count specification invalid"):
        args("-w node[1-3] --gpus=4 --gres=gpu:2").resources(TINY)


def test_fewer_tasks_than_listed_nodes_drop_the_last_hosts():
    """sbatch/opt.c _opt_verify: -n 2 with -w node[1-3] is "can't run 2 processes on 3
    nodes, setting nnodes to 2", and sbatch pops the last host off the list."""
    with pytest.warns(UserWarning, match="can't run 2 processes on 3 nodes, setting nnodes to 2"):
        spec = args("-w node[1-3] -n 2")
    assert spec.nodelist == ("node1", "node2")
    res = spec.resources(TINY)
    assert (res.nodes, res.candidates) == (2, ("node1", "node2"))


# -- options sbatch has that slurmlab does not model, or only passes through ------------------


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("--ntasks-per-tres=1", "--ntasks-per-tres"),
        ("--mincpus=4", "--mincpus"),
        ("--gpus-per-socket=1", "--gpus-per-socket"),
        ("--prefer=ib", "--prefer"),
        ("--core-spec=2", "-S/--core-spec"),
        ("-S 2", "-S/--core-spec"),
        ("-B 2:4", "-B/--extra-node-info"),
        ("--extra-node-info=2:4", "-B/--extra-node-info"),
    ],
)
def test_real_options_not_modelled_say_so(text, spelled):
    """A real sbatch option slurmlab does not model is refused by name, not as unknown."""
    with pytest.raises(SbatchError) as exc:
        args(text)
    assert str(exc.value) == f"sbatch accepts {spelled} but slurmlab does not model it; remove it"


def test_unknown_option_suggests_the_closest_one():
    """An unknown option names itself and its value and suggests the closest option."""
    with pytest.raises(SbatchError) as exc:
        args("--partiton=gpu")
    msg = str(exc.value)
    assert "unrecognized option --partiton" in msg and "'gpu'" in msg
    assert "did you mean --partition?" in msg


@pytest.mark.parametrize(
    "text", ["-L foo:2", "--licenses=foo:2", "--overcommit", "--tmp=10G",
             "--deadline=now+1hour"]
)  # fmt: skip
def test_pass_through_options_that_change_scheduling_warn(text):
    """Options that change scheduling in Slurm but are not simulated are kept, with a warning."""
    with pytest.warns(UserWarning, match="accepted but not simulated"):
        spec = args(text)
    assert spec.other


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("--exclusive --oversubscribe", ["--exclusive and --oversubscribe", "mutually exclusive"]),
        ("-c 2 --cpus-per-gpu=4 --gres=gpu:1", ["--cpus-per-gpu=4", "--cpus-per-task=2"]),
    ],
)
@pytest.mark.filterwarnings("ignore:--oversubscribe is accepted")
def test_mutually_exclusive_options(text, words):
    """sbatch refuses --exclusive with --oversubscribe, and --cpus-per-task with --cpus-per-gpu."""
    with pytest.raises(SbatchError, match="mutually exclusive") as exc:
        args(text)
    for w in words:
        assert w in str(exc.value)


# -- time limits are whole minutes -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("-t 0:30", 1), ("-t 5:30", 6), ("-t 5:00", 5), ("-t 1:00:01", 61), ("-t 0:00:01", 1)],
)
def test_time_limit_seconds_round_up_to_minutes(text, minutes):
    """time_str2mins: (seconds + 59) / 60, so "-t 0:30" is 1 minute and "-t 5:30" 6."""
    assert args(text).time_limit == timedelta(minutes=minutes)


def test_time_min_value_is_checked():
    """--time-min takes a Slurm time like -t."""
    with pytest.raises(SbatchError, match="--time-min 'abc'"):
        args("--time-min=abc")


def test_python_time_limit_keeps_its_seconds():
    """A limit given in Python (a trace's) is kept to the second."""
    assert JobSpec(time_limit=timedelta(seconds=90)).time_limit == timedelta(seconds=90)


# -- errors name the real cause ----------------------------------------------------------------


def test_exclude_that_leaves_no_node_says_so():
    """-x naming every node of the partition is blamed, not the (absent) features."""
    with pytest.raises(RequestError) as exc:
        args("-x gpu[01-08]").resources(TEACHING)
    msg = str(exc.value)
    assert "--exclude=gpu[01-08] leaves no node of partition 'gpu'" in msg
    assert "None" not in msg and "Requested node configuration is not available" in msg


def test_node_both_listed_and_excluded_says_so():
    """-w gpu01 -x gpu01: a node cannot be both required and excluded."""
    with pytest.raises(RequestError, match=r"--nodelist=gpu01 and --exclude=gpu01 both name"):
        args("-w gpu01 -x gpu01").resources(TEACHING)


def test_missing_feature_lists_the_features_there_are():
    """-C h100, a feature of no node of the cluster, names the constraint and the features
    the nodes have, in Slurm's words (a feature elsewhere in the cluster: see test_qa_stop27)."""
    with pytest.raises(
        RequestError,
        match=r"--constraint='h100'.*its nodes have a100, cpu, ib\): Invalid feature specification",
    ):
        args("-C h100").resources(TEACHING)


def test_no_default_partition_rejects_a_job_without_p():
    """Without a Default=YES partition a job without -p is refused, in Slurm's words."""
    c = Cluster("c", (Node("n1", cpus=4),), (Partition("p", ("n1",)),))
    with pytest.raises(RequestError, match="No partition specified or system default partition"):
        args("-n 1").resources(c)
    assert args("-p p -n 1").resources(c).partition == "p"


# -- sbatch's smaller rules ------------------------------------------------------------------


def test_fractional_memory_is_refused():
    """Slurm reads memory sizes as whole numbers: --mem=1.5G is refused, with the MB it means."""
    with pytest.raises(SbatchError, match=r"--mem='1.5G'.*1536M"):
        args("--mem=1.5G")


def test_dos_line_breaks_are_refused():
    """sbatch refuses a script with \\r\\n line breaks, in its own words."""
    with pytest.raises(SbatchError, match=r"Batch script contains DOS line breaks \(\\r\\n\)"):
        JobSpec.from_sbatch("#!/bin/bash\r\n#SBATCH -N 2\r\nsrun hostname\r\n")


def test_dependency_delay_is_refused_not_dropped():
    """-d after:12+30 (start 30 minutes after job 12 starts) is not modelled: refused."""
    with pytest.raises(SbatchError, match=r"not modelled by slurmlab; remove '\+30'"):
        args("-d after:12+30")


@pytest.mark.parametrize("text", ["01/20", "0120", "1.20"])
def test_begin_month_day_without_a_year(text):
    """--begin=MM/DD (or MMDD, MM.DD) is this year's date if still ahead, else next year's."""
    begin = args(f"--begin={text}").begin
    assert begin == TimeOfDay(datetime.min.time(), month=1, mday=20)
    assert begin.resolve(datetime(2026, 1, 5, 9)) == datetime(2026, 1, 20)
    assert begin.resolve(datetime(2026, 2, 1)) == datetime(2027, 1, 20)


def test_begin_month_day_with_time_round_trips_and_runs():
    """--begin=MM/DD-HH:MM round-trips and holds the job in a simulation until then."""
    from slurmlab import Lab

    spec = args("--begin=01/06-10:30")
    assert JobSpec.from_args(spec.to_args()) == spec
    lab = Lab("tiny")  # starts 2026-01-05 00:00
    j = lab.sbatch("-t 10 --begin=01/06-10:30")
    assert lab.sim.jobs[j].begin == 86400 + 10.5 * 3600


def test_a_gpu_type_holds_whatever_the_order_of_the_options():
    """A type from --gpus / --gpus-per-task holds for an untyped --gres, in either order, and a
    typed --gres must agree with it; a --gres given again (command line over script) replaces
    the earlier one, type and all."""
    assert JobSpec.from_args("--gpus=h100:4 --gres=gpu:4").gpu_type == "h100"
    assert JobSpec.from_args("--gres=gpu:4 --gpus=h100:4").gpu_type == "h100"
    with pytest.raises(SbatchError, match="GPU type 'a100' conflicts with 'v100'"):
        JobSpec.from_args("--gpus-per-task=v100:1 -n 2 --gres=gpu:a100:2")
    script = JobSpec.from_sbatch("#!/bin/bash\n#SBATCH --gres=gpu:a100:4\n")
    assert JobSpec.from_args("--gres=gpu:h100:4", base=script).gpu_type == "h100"
