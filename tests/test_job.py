"""Job requests: sbatch options, #SBATCH scripts, and resolving a request against a cluster."""

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from slurmlab import Cluster, Gres, JobSpec, RequestError, SbatchError
from slurmlab.spec.job import ArraySpec, Dependency, SignalSpec, _sbatch_nodelist

TINY = Cluster.preset("tiny")  # 4 nodes x 16 CPUs, 64000 MB, 2 a100; DefMemPerCPU=2000
AI = Cluster.preset("ai")  # 32 x (96 CPUs, 8 h100) in 'train', 8 CPU nodes in 'cpu'


def args(text: str) -> JobSpec:
    return JobSpec.from_args(text)


# -- options: short, long, '=' and space forms ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("-J train", "name", "train"),
        ("-Jtrain", "name", "train"),
        ("--job-name=train", "name", "train"),
        ("--job-name train", "name", "train"),
        ("-p debug", "partition", "debug"),
        ("--partition=debug", "partition", "debug"),
        ("-A ml", "account", "ml"),
        ("--account=ml", "account", "ml"),
        ("-q high", "qos", "high"),
        ("--qos high", "qos", "high"),
        ("-N 4", "nodes", 4),
        ("-N4", "nodes", 4),
        ("--nodes=4", "nodes", 4),
        ("-n 16", "ntasks", 16),
        ("--ntasks=16", "ntasks", 16),
        ("--ntasks-per-node=8", "ntasks_per_node", 8),
        ("--ntasks-per-node 8", "ntasks_per_node", 8),
        ("-c 12", "cpus_per_task", 12),
        ("--cpus-per-task=12", "cpus_per_task", 12),
        ("--mem=64G", "mem_mb", 65536),
        ("--mem 4000", "mem_mb", 4000),
        ("--mem-per-cpu=4G", "mem_per_cpu_mb", 4096),
        ("--mem-per-gpu=80G", "mem_per_gpu_mb", 81920),
        ("--reservation=maint", "reservation", "maint"),
        ("-C h100&ib", "constraint", "h100&ib"),
        ("--constraint=a100|h100", "constraint", "a100|h100"),
        ("-C '(a100|h100)&ib'", "constraint", "(a100|h100)&ib"),
        ("--wrap 'python train.py --lr 3e-4'", "wrap", "python train.py --lr 3e-4"),
        ("--requeue", "requeue", True),
        ("--no-requeue", "requeue", False),
        ("--exclusive", "exclusive", True),
        pytest.param(
            "--exclusive=user",
            "exclusive",
            True,
            marks=pytest.mark.filterwarnings("ignore:--exclusive=user is simulated"),
        ),  # fmt: skip
        ("--nice", "nice", 100),
        ("--nice=10", "nice", 10),
        ("--nice=-5", "nice", -5),
    ],
)
def test_option_forms(text, field, value):
    """Every option is read in its short, long, '=' and space forms into one JobSpec field."""
    assert getattr(args(text), field) == value


def test_nodes_min_max():
    """-N MIN-MAX keeps both counts; the allocation needs the minimum, takes up to MAX."""
    spec = args("-N 2-4")
    assert (spec.nodes, spec.max_nodes) == (2, 4)
    res = spec.resources(TINY)
    assert (res.nodes, res.max_nodes) == (2, 4)


@pytest.mark.parametrize(
    ("text", "per_node", "gpu_type", "gpus"),
    [
        ("--gres=gpu:2", 2, None, 2),
        ("--gres=gpu:a100:2", 2, "a100", 2),
        ("--gres=gpu", 1, None, 1),
        ("--gres=gpu:a100", 1, "a100", 1),
        ("--gres=gpu:a100:1,gpu:a100:1", 1, "a100", 1),
        ("-N 2 --gres=gpu:2", 2, None, 4),
    ],
)
def test_gres_gpu(text, per_node, gpu_type, gpus):
    """--gres=gpu[:type][:N] asks N GPUs (default 1) on every node; a type given twice in a
    comma list keeps its last count (gres.c gres_job_state_validate)."""
    spec = args(text)
    assert (spec.gpus_per_node, spec.gpu_type, spec.tres()["gres/gpu"]) == (
        per_node,
        gpu_type,
        gpus,
    )


def test_gres_other_resources_are_kept():
    """Non-GPU generic resources in a --gres list are kept, not dropped."""
    spec = args("--gres=gpu:8,nvme:1")
    assert spec.gpus_per_node == 8
    assert spec.other_gres == (Gres("nvme", None, 1),)


def test_gres_two_gpu_types_rejected():
    """Two GPU types in one request are refused with a message naming the value."""
    with pytest.raises(SbatchError, match="gpu:h100:4,gpu:a100:4"):
        args("--gres=gpu:h100:4,gpu:a100:4")


@pytest.mark.parametrize(
    ("text", "field", "value", "gpu_type"),
    [
        ("--gpus=16", "gpus", 16, None),
        ("-G 16", "gpus", 16, None),
        ("--gpus=h100:16", "gpus", 16, "h100"),
        ("--gpus-per-node=8", "gpus_per_node", 8, None),
        ("--gpus-per-node=h100:8", "gpus_per_node", 8, "h100"),
        ("-n 4 --gpus-per-task=1", "gpus_per_task", 1, None),
    ],
)
def test_gpu_options(text, field, value, gpu_type):
    """--gpus, --gpus-per-node and --gpus-per-task take [type:]count."""
    spec = args(text)
    assert (getattr(spec, field), spec.gpu_type) == (value, gpu_type)


def test_gpus_per_node_is_gres_gpu():
    """--gpus-per-node=8 is the same request as --gres=gpu:8."""
    assert args("-N 2 --gpus-per-node=8") == args("-N 2 --gres=gpu:8")


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("-t 90", timedelta(minutes=90)),
        ("-t 1:30", timedelta(minutes=2)),  # M:S, rounded up to whole minutes
        ("--time=2:00:00", timedelta(hours=2)),
        ("--time 1-12", timedelta(days=1, hours=12)),
        ("-t 1-12:30", timedelta(days=1, hours=12, minutes=30)),
        ("-t 1-12:30:15", timedelta(days=1, hours=12, minutes=31)),
        ("-t UNLIMITED", None),
    ],
)
def test_time_forms(text, limit):
    """-t/--time accepts every Slurm form, in whole minutes (seconds round up, as Slurm's
    time_str2mins does); UNLIMITED is None but still counts as requested."""
    spec = args(text)
    assert spec.time_limit == limit
    assert spec.time_requested


def test_no_time_means_partition_default():
    """Without -t the job gets the partition's DefaultTime (else its MaxTime)."""
    assert args("-N 1").time_limit is None and not args("-N 1").time_requested
    assert args("-N 1").resources(AI).time_limit == timedelta(hours=4)  # train DefaultTime
    assert args("-p debug").resources(AI).time_limit == timedelta(hours=1)  # debug MaxTime


@pytest.mark.parametrize(
    ("text", "begin"),
    [
        ("--begin=now", timedelta(0)),
        ("--begin=now+60", timedelta(seconds=60)),
        ("--begin=now+2hours", timedelta(hours=2)),
        ("--begin now+1day", timedelta(days=1)),
        ("-b 2026-12-03T10:00", datetime(2026, 12, 3, 10, 0)),
        ("--begin=2026-12-03", datetime(2026, 12, 3)),
    ],
)
def test_begin(text, begin):
    """--begin is now[+N unit] (relative to submission) or an ISO date and time."""
    assert args(text).begin == begin


@pytest.mark.parametrize(
    ("text", "indices", "throttle"),
    [
        ("-a 0-15", tuple(range(16)), None),
        ("--array=1,3,5", (1, 3, 5), None),
        ("--array=0-99:2", tuple(range(0, 100, 2)), None),
        ("-a 0-15%4", tuple(range(16)), 4),
        ("--array 1-3,7%2", (1, 2, 3, 7), 2),
    ],
)
def test_array(text, indices, throttle):
    """--array takes ranges, lists, :step and a %N throttle."""
    spec = args(text)
    step = 2 if ":2" in text else 1  # (SLURM_ARRAY_TASK_STEP)
    assert spec.array == ArraySpec(indices, throttle, step)
    assert args(spec.to_args()).array == spec.array


@pytest.mark.parametrize(
    ("text", "deps", "any_"),
    [
        ("-d afterok:12", (Dependency("afterok", ("12",)),), False),
        ("--dependency=afterok:12:13", (Dependency("afterok", ("12", "13")),), False),
        ("-d afterany:5", (Dependency("afterany", ("5",)),), False),
        ("-d afternotok:5", (Dependency("afternotok", ("5",)),), False),
        ("-d singleton", (Dependency("singleton"),), False),
        (
            "-d afterok:1,afternotok:2",
            (Dependency("afterok", ("1",)), Dependency("afternotok", ("2",))),
            False,
        ),
        (
            "-d afterok:1?afterany:2",
            (Dependency("afterok", ("1",)), Dependency("afterany", ("2",))),
            True,
        ),
    ],
)
def test_dependency(text, deps, any_):
    """--dependency lists conditions joined by ',' (all must hold) or '?' (any may)."""
    spec = args(text)
    assert (spec.dependency, spec.dependency_any) == (deps, any_)


def test_signal():
    """--signal=[{R|B}:]sig[@sig_time]; sig_time defaults to 60 seconds."""
    assert args("--signal=B:USR1@120").signal == SignalSpec("USR1", 120, batch_only=True)
    assert args("--signal=SIGTERM").signal == SignalSpec("TERM", 60)


def test_wrap_names_the_job_wrap():
    """A --wrap job without -J is named 'wrap'; an unnamed script job is named 'sbatch'."""
    assert args("--wrap 'hostname'").job_name == "wrap"
    assert args("-N 1").job_name == "sbatch"


def test_long_option_prefixes():
    """An unambiguous prefix of a long option is accepted, as getopt_long does."""
    assert args("--part=debug").partition == "debug"
    with pytest.raises(SbatchError, match="--n is ambiguous"):
        args("--n 2")


def test_passthrough_options_are_kept():
    """Options that do not change scheduling (--output, --mail-type...) are kept verbatim."""
    spec = args("-o slurm-%j.out --mail-type=END --verbose")
    assert spec.other == (("output", "slurm-%j.out"), ("mail-type", "END"), ("verbose", None))


def test_script_path_and_its_arguments():
    """The first positional argument is the script; what follows are its arguments."""
    spec = JobSpec.from_args(["-N", "2", "train.sh", "--lr", "3"])
    assert spec.nodes == 2
    assert spec.other == (("script-file", "train.sh --lr 3"),)


# -- errors that name the option and the value ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("--bogus", ["--bogus"]),
        ("-Z", ["-Z"]),
        ("--mem=lots", ["--mem", "'lots'"]),
        ("--mem-per-cpu=4X", ["--mem-per-cpu", "'4X'"]),
        ("-t abc", ["--time", "'abc'"]),
        ("-N x", ["--nodes", "'x'"]),
        ("--nodes=0", ["--nodes", "'0'"]),
        ("-N 4-2", ["--nodes=4-2"]),
        ("-n two", ["--ntasks", "'two'"]),
        ("-c 0", ["--cpus-per-task=0"]),
        ("--gres=gpu:h100:x", ["--gres", "'gpu:h100:x'"]),
        ("--gres=gpu:a:b:1", ["--gres", "'gpu:a:b:1'"]),
        ("--gpus=h100:x", ["--gpus", "'h100:x'"]),
        ("-a 5-1", ["--array", "'5-1'"]),
        ("-a 1-x", ["--array", "'1-x'"]),
        ("-a 0-15x", ["--array", "'0-15x'"]),
        ("-a 0-5000000", ["--array", "MaxArraySize"]),
        ("-d whenever:1", ["--dependency", "'whenever'"]),
        ("-d afterok", ["--dependency=afterok"]),
        ("-d singleton:3", ["--dependency=singleton"]),
        ("--begin=tomorrowish", ["--begin", "'tomorrowish'"]),
        ("--begin=now+3fortnights", ["--begin", "'now+3fortnights'"]),
        ("--signal=USR1@99999", ["--signal", "'USR1@99999'"]),
        ("--nice=lots", ["--nice", "'lots'"]),
        ("--exclusive=always", ["--exclusive", "'always'"]),
        ("--requeue=yes", ["--requeue", "'yes'"]),
        ("--job-name=", ["--job-name"]),
        ("--cpus-per-task", ["--cpus-per-task", "requires a value"]),
        ("--mem=1G --mem-per-cpu=1G", ["--mem", "--mem-per-cpu", "mutually exclusive"]),
        ("--gpus=2 --gpus-per-task=1 -n 3", ["--gpus=2", "--gpus-per-task=1", "--ntasks=3"]),
        ("--gres=gpu:2 --gpus=3", ["--gres=gpu:2", "--gpus=3", "Invalid generic resource"]),
        ("--gpus-per-task=1", ["--gpus-per-task", "--ntasks"]),
    ],
)
def test_bad_option_names_option_and_value(text, words):
    """An unknown option or a malformed value raises SbatchError naming the option and value."""
    with pytest.raises(SbatchError) as exc:
        args(text)
    for w in words:
        assert w in str(exc.value)


def test_bad_directive_in_script_says_so():
    """A bad #SBATCH line is reported as a directive error naming the option."""
    with pytest.raises(SbatchError, match="#SBATCH directive: unrecognized option --bogus"):
        JobSpec.from_sbatch("#!/bin/bash\n#SBATCH --bogus\nsrun true\n")


def test_unbalanced_quote_in_script_names_the_line():
    """A #SBATCH line that cannot be split names its line number."""
    with pytest.raises(SbatchError, match="script line 2"):
        JobSpec.from_sbatch("#!/bin/bash\n#SBATCH -J 'oops\n")


# -- #SBATCH scripts ------------------------------------------------------------------------

SCRIPT = """#!/bin/bash
#SBATCH -J ddp          # the job name
#SBATCH --nodes=2
#SBATCH --gres=gpu:h100:8 --ntasks-per-node=8
# an ordinary comment
# SBATCH --nodes=9

#SBATCH -t 2:00:00
#SBATCH --output="logs/%x #%j.out"
module load cuda
#SBATCH --nodes=4
srun python train.py
"""


@pytest.mark.filterwarnings("ignore:script line")  # (SCRIPT's '# SBATCH', late #SBATCH)
def test_sbatch_script_directives():
    """#SBATCH lines are options; comments, blank lines and '# SBATCH' are skipped."""
    spec = JobSpec.from_sbatch(SCRIPT)
    assert spec.name == "ddp"
    assert spec.nodes == 2
    assert (spec.gpus_per_node, spec.gpu_type, spec.ntasks_per_node) == (8, "h100", 8)
    assert spec.time_limit == timedelta(hours=2)
    assert spec.script == SCRIPT


@pytest.mark.filterwarnings("ignore:script line")  # (SCRIPT's '# SBATCH', late #SBATCH)
def test_sbatch_trailing_comments_respect_quotes():
    """An unquoted '#' ends a directive (a trailing comment); a quoted '#' is kept."""
    spec = JobSpec.from_sbatch(SCRIPT)
    assert ("output", "logs/%x #%j.out") in spec.other


def test_directives_after_first_command_are_ignored():
    """sbatch stops reading #SBATCH lines at the first command line (slurmlab says so)."""
    with pytest.warns(UserWarning) as caught:
        spec = JobSpec.from_sbatch(SCRIPT)
    assert spec.nodes == 2  # the later '#SBATCH --nodes=4' is ignored
    assert [str(w.message).split(":")[0] for w in caught] == ["script line 6", "script line 11"]


@pytest.mark.filterwarnings("ignore:script line")  # (SCRIPT's '# SBATCH', late #SBATCH)
def test_command_line_overrides_script():
    """Command-line options override #SBATCH lines; the other directives stay."""
    spec = JobSpec.from_sbatch(SCRIPT, ["-N", "3", "-t", "30"])
    assert (spec.nodes, spec.time_limit, spec.name) == (3, timedelta(minutes=30), "ddp")
    spec = JobSpec.from_sbatch(SCRIPT, "--job-name=other")
    assert (spec.name, spec.nodes) == ("other", 2)


def test_command_line_memory_option_replaces_script_memory_option():
    """A memory option on the command line replaces a different one from the script."""
    spec = JobSpec.from_sbatch("#!/bin/sh\n#SBATCH --mem=64G\n", ["--mem-per-cpu=4G"])
    assert (spec.mem_mb, spec.mem_per_cpu_mb) == (None, 4096)


def test_script_with_no_directives():
    """A script without #SBATCH lines is a default request."""
    spec = JobSpec.from_sbatch("#!/bin/bash\nhostname\n")
    assert replace(spec, script=None) == JobSpec()


# -- resources: computed the way Slurm computes them ----------------------------------------


def test_gres_per_node_times_nodes():
    """--gres=gpu:8 -N 4 is 8 GPUs on each of 4 nodes: 32 GPUs."""
    spec = args("--gres=gpu:8 -N 4")
    assert spec.tres() == {"cpu": 4, "node": 4, "gres/gpu": 32}
    res = spec.resources(AI)
    assert (res.nodes, res.gpus_per_node) == (4, 8)
    assert res.tres() == {"cpu": 4, "mem": 4 * 8000, "node": 4, "gres/gpu": 32, "gres/gpu:h100": 32}


def test_gpus_per_job_spread_over_nodes():
    """--gpus=16 on 8-GPU nodes spreads over 2 nodes of 8."""
    res = args("--gpus=16").resources(AI)
    assert (res.nodes, res.gpus_per_node, res.tres()["gres/gpu"]) == (2, 8, 16)


def test_gpus_per_job_on_fixed_nodes():
    """--gpus=4 -N 2 holds 4 GPUs, dealt over the 2 nodes where they start (one at least on
    each: test_gpus_per_job_nodes.py)."""
    res = args("--gpus=4 -N 2").resources(TINY)
    assert (res.nodes, res.gpus_per_node, res.gpus_per_job) == (2, 1, 4)
    assert res.tres()["gres/gpu"] == res.requested()["gres/gpu"] == 4


def test_gpus_per_task():
    """--gpus-per-task=1 -n 4 on 2-GPU nodes needs 2 nodes of 2 tasks, each with 2 GPUs."""
    res = args("-n 4 --gpus-per-task=1").resources(TINY)
    assert (res.nodes, res.tasks_per_node, res.gpus_per_node) == (2, (2, 2), 2)


def test_tasks_and_cpus_per_node():
    """-N 2 --ntasks-per-node=4 -c 2 gives 8 tasks, 8 CPUs on each node."""
    res = args("-N 2 --ntasks-per-node=4 -c 2").resources(TINY)
    assert (res.ntasks, res.tasks_per_node, res.cpus_per_node) == (8, (4, 4), 8)


def test_ntasks_with_ntasks_per_node_sets_nodes():
    """-n 16 --ntasks-per-node=8 needs 2 nodes."""
    res = args("-n 16 --ntasks-per-node=8").resources(AI)
    assert (res.nodes, res.tasks_per_node) == (2, (8, 8))


def test_uneven_tasks_are_laid_out_block_wise():
    """-N 2 -n 5 puts 3 tasks on the first node and 2 on the second."""
    assert args("-N 2 -n 5").resources(TINY).tasks_per_node == (3, 2)


def test_memory_default_from_def_mem_per_cpu():
    """Without a memory option, memory is DefMemPerCPU x the CPUs on each node."""
    res = args("-c 4").resources(TINY)  # DefMemPerCPU=2000
    assert res.mem_per_node_mb == 8000


def _cluster(settings: str) -> Cluster:
    return Cluster.from_slurm_conf(
        settings
        + "\nNodeName=n[1-2] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=ALL Default=YES"
    )


def test_memory_default_from_def_mem_per_node():
    """With DefMemPerNode (and no DefMemPerCPU), each node gets DefMemPerNode."""
    c = _cluster("SelectTypeParameters=CR_Core_Memory\nDefMemPerNode=5000")
    assert args("-c 4").resources(c).mem_per_node_mb == 5000


def test_memory_default_whole_node():
    """With memory tracked but no default, a job gets each node's whole memory."""
    c = _cluster("SelectTypeParameters=CR_Core_Memory")
    assert args("-c 4").resources(c).mem_per_node_mb == 32000


def test_memory_not_tracked():
    """Without CR_*_Memory memory is not a consumable resource: 0 is allocated."""
    c = _cluster("SelectTypeParameters=CR_Core\nDefMemPerCPU=1000")
    assert args("--mem=10G").resources(c).mem_per_node_mb == 0


def test_memory_options():
    """--mem is per node, --mem-per-cpu times CPUs per node, --mem-per-gpu times GPUs per node."""
    assert args("--mem=10G").resources(TINY).mem_per_node_mb == 10240
    assert args("-c 4 --mem-per-cpu=1000").resources(TINY).mem_per_node_mb == 4000
    assert args("--gres=gpu:2 --mem-per-gpu=3000").resources(TINY).mem_per_node_mb == 6000
    assert args("--mem=0").resources(TINY).mem_per_node_mb == 64000  # 0: the whole node


def test_exclusive_marks_whole_node():
    """--exclusive asks for whole nodes."""
    assert args("--exclusive").resources(TINY).whole_node
    assert not args("-N 1").resources(TINY).whole_node


def test_constraint_selects_nodes():
    """-C keeps only nodes with the features; & needs all, | any."""
    assert len(args("-C h100&ib").resources(AI).candidates) == 32
    assert len(args("-p cpu -C 'cpu|h100'").resources(AI).candidates) == 8


# -- rejected at submission -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "--gres=gpu:3",  # tiny nodes have 2 GPUs
        "-c 17",  # 16 CPUs per node
        "--mem=100G",  # 64000 MB per node
        "-C h100",  # no such feature
        "-N 2 --gpus=1",  # a node without a GPU
        "-N 1 -n 4 --ntasks-per-node=2",
        "--nodelist=gpu01",
    ],
)
def test_impossible_requests_are_rejected(text):
    """A request no node of the partition can ever satisfy is rejected at submission."""
    with pytest.raises(RequestError):
        args(text).resources(TINY)


def test_rejection_uses_slurms_words_and_hints_the_fix():
    """Too many GPUs per node: "Requested node configuration is not available" and a fix."""
    with pytest.raises(RequestError) as exc:
        args("-J big --gres=gpu:16").resources(AI)
    msg = str(exc.value)
    assert "Requested node configuration is not available" in msg
    assert "'big'" in msg and "16 GPUs per node (largest node has 8)" in msg
    assert msg.endswith("use --nodes=2 --gres=gpu:8")


def test_unknown_gpu_type_is_requested_node_configuration_not_available():
    """A GPU type the partition lacks: real Slurm 22.05 (--gres=gpu:v100:1 and --gpus=v100:1
    where only a100 exists) says "Requested node configuration is not available"; "Invalid
    generic resource (gres) specification" is for an unknown GRES name."""
    with pytest.raises(RequestError, match=r"GPU type 'a100' is not in partition 'train' \(it "
                       r"has h100\): Requested node configuration is not available$"):  # fmt: skip
        args("--gres=gpu:a100:1").resources(AI)


def test_unknown_partition_is_rejected():
    """An unknown partition is "invalid partition specified"."""
    with pytest.raises(RequestError, match="invalid partition specified: 'nope'"):
        args("-p nope").resources(AI)


def test_partition_limits_do_not_reject():
    """MaxTime and MaxNodes leave a job pending (EnforcePartLimits=NO); they do not reject it."""
    c = Cluster.from_slurm_conf(
        "NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES MaxTime=1:00:00 MaxNodes=1"
    )
    res = args("-N 3 -t 10:00:00").resources(c)
    assert (res.nodes, res.time_limit) == (3, timedelta(hours=10))


def test_validate_returns_the_spec():
    """validate() returns the request when it fits, so it chains."""
    spec = args("-N 2 --gres=gpu:2")
    assert spec.validate(TINY) is spec


# -- building in Python ---------------------------------------------------------------------


def test_python_construction_validates():
    """JobSpec is validated when built in Python too."""
    with pytest.raises(SbatchError, match="at least 1"):
        JobSpec(nodes=0)
    with pytest.raises(SbatchError, match="maximum below minimum"):
        JobSpec(nodes=4, max_nodes=2)
    with pytest.raises(SbatchError, match="needs a minimum"):
        JobSpec(max_nodes=2)
    with pytest.raises(SbatchError, match="without a GPU count"):
        JobSpec(gpu_type="h100")
    with pytest.raises(SbatchError, match="mutually exclusive"):
        JobSpec(mem_mb=1, mem_per_gpu_mb=1)
    with pytest.raises(SbatchError, match="must be positive"):
        JobSpec(time_limit=timedelta(0))
    with pytest.raises(AttributeError):
        JobSpec().nodes = 3  # frozen


def test_nodelist_is_a_set_in_hostlist_order():
    """--nodelist names a set of nodes: order and repeats do not matter."""
    assert JobSpec(nodelist=("n2", "n1", "n2")).nodelist == ("n1", "n2")
    assert args("-w n[2,1]").nodelist == ("n1", "n2")


def test_to_sbatch_is_a_script():
    """to_sbatch writes a runnable script: shebang, #SBATCH lines, the command."""
    text = args("-J ddp -N 2 --gres=gpu:h100:8 -t 2:00:00").to_sbatch()
    assert text == (
        "#!/bin/bash\n"
        "#SBATCH --job-name=ddp\n"
        "#SBATCH --nodes=2\n"
        "#SBATCH --gres=gpu:h100:8\n"
        "#SBATCH --time=2:00:00\n"
        "srun python train.py\n"
    )


# -- properties -----------------------------------------------------------------------------

words = st.text(alphabet="abcxyzABC019_-.", min_size=1, max_size=8)
free_text = st.text(alphabet="abz09 -_.#'\"%=:,/", min_size=1, max_size=12).filter(
    lambda s: s.strip() == s and s.strip()
)
counts = st.integers(min_value=1, max_value=64)
gpu_types = st.sampled_from([None, "h100", "a100"])
node_names = st.sets(
    st.builds(lambda i: f"gpu{i:02d}", st.integers(min_value=1, max_value=40)), max_size=5
).map(tuple)


@st.composite
def job_specs(draw) -> JobSpec:
    """Any valid request, as a user could write it in Python."""
    nodes = draw(st.none() | counts)
    max_nodes = draw(st.none() | st.integers(min_value=nodes, max_value=128)) if nodes else None
    ntasks = draw(st.none() | counts)
    ntasks_per_node = draw(st.none() | counts)
    mem_field = draw(st.sampled_from([None, "mem_mb", "mem_per_cpu_mb", "mem_per_gpu_mb"]))
    gpu_field = draw(st.sampled_from([None, "gpus_per_node", "gpus", "gpus_per_task"]))
    if gpu_field == "gpus_per_task" and ntasks is None and ntasks_per_node is None:
        ntasks = draw(counts)
    kw = {}
    if mem_field:
        kw[mem_field] = draw(st.integers(min_value=0, max_value=4_000_000))
    if gpu_field:
        kw[gpu_field] = draw(st.integers(min_value=0, max_value=16))
        kw["gpu_type"] = draw(gpu_types)
    # whole minutes: sbatch reads -t in minutes (a Python limit with seconds rounds up)
    minutes = draw(st.none() | st.integers(min_value=1, max_value=60 * 1440))
    time_limit = None if minutes is None else minutes * 60
    unlimited = time_limit is None and draw(st.booleans())
    cpu_field = draw(st.sampled_from([None, "cpus_per_task", "cpus_per_gpu"]))  # exclusive
    if cpu_field:
        kw[cpu_field] = draw(counts)
    deps = draw(
        st.lists(
            st.builds(
                Dependency,
                st.sampled_from(["after", "afterok", "afterany", "afternotok", "aftercorr"]),
                st.lists(st.integers(1, 10**6).map(str), min_size=1, max_size=3).map(tuple),
            )
            | st.just(Dependency("singleton")),
            max_size=3,
        )
    )
    spec = JobSpec(
        name=draw(st.none() | free_text),
        partition=draw(st.none() | words),
        account=draw(st.none() | words),
        qos=draw(st.none() | words),
        user=draw(st.none() | words),
        nodes=nodes,
        max_nodes=max_nodes,
        ntasks=ntasks,
        ntasks_per_node=ntasks_per_node,
        other_gres=tuple(
            draw(
                st.lists(
                    st.builds(
                        Gres,
                        st.sampled_from(["nvme", "shard"]),
                        st.none() | words,
                        st.integers(0, 9),
                    ),
                    max_size=2,
                )
            )
        ),
        time_limit=timedelta(seconds=time_limit) if time_limit else None,
        time_requested=unlimited,
        begin=draw(
            st.none()
            | st.integers(0, 10**6).map(lambda s: timedelta(seconds=s))
            | st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1)).map(
                lambda d: d.replace(microsecond=0)
            )
        ),
        array=draw(
            st.none()
            | st.builds(
                ArraySpec,
                st.sets(st.integers(0, 1000), min_size=1, max_size=20).map(tuple),
                st.none() | st.integers(1, 50),
            )
        ),
        dependency=tuple(deps),
        dependency_any=draw(st.booleans()),
        requeue=draw(st.none() | st.booleans()),
        exclusive=draw(st.booleans()),
        signal=draw(
            st.none()
            | st.builds(
                SignalSpec,
                st.sampled_from(["USR1", "USR2", "TERM", "INT"]),
                st.integers(0, 65535),
                st.booleans(),
                st.booleans(),
            )
        ),
        reservation=draw(st.none() | words),
        constraint=draw(
            st.none() | st.sampled_from(["h100", "h100&ib", "a100|h100", "(a100|h100)&ib", "cpu"])
        ),
        nice=draw(st.integers(-10000, 10000)),
        nodelist=draw(node_names),
        exclude=draw(node_names),
        hold=draw(st.booleans()),
        wrap=draw(st.none() | free_text),
        other=tuple(
            draw(
                st.lists(
                    st.sampled_from(
                        [("output", "slurm-%j.out"), ("mail-type", "END"), ("verbose", None)]
                    ),
                    max_size=3,
                )
            )
        ),
        **kw,
    )
    assume(_as_sbatch_submits(spec))
    return spec


def _as_sbatch_submits(spec: JobSpec) -> bool:
    """Whether sbatch submits ``spec`` as it is written: a -w list no longer than the node
    count allows, nor than the tasks (sbatch/opt.c _opt_verify refuses the one, and drops
    hosts beyond the tasks)."""
    try:
        return _sbatch_nodelist(spec)[0] is spec
    except SbatchError:
        return False


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(job_specs())
def test_args_round_trip(spec):
    """Any valid request survives to_args() and from_args() unchanged."""
    assert JobSpec.from_args(spec.to_args()) == spec


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(job_specs())
def test_sbatch_round_trip(spec):
    """Any valid request survives to_sbatch() and from_sbatch() (the script text aside)."""
    back = JobSpec.from_sbatch(spec.to_sbatch())
    assert back.script is not None
    assert replace(back, script=None) == spec


@st.composite
def fitting_requests(draw) -> JobSpec:
    """Requests shaped like AI jobs, against the tiny cluster (16 CPUs, 2 GPUs per node)."""
    kw = {}
    if draw(st.booleans()):
        kw["nodes"] = draw(st.integers(1, 5))
    task_form = draw(st.sampled_from([None, "ntasks", "ntasks_per_node", "both"]))
    if task_form in ("ntasks", "both"):
        kw["ntasks"] = draw(st.integers(1, 40))
    if task_form in ("ntasks_per_node", "both"):
        kw["ntasks_per_node"] = draw(st.integers(1, 20))
    if draw(st.booleans()):
        kw["cpus_per_task"] = draw(st.integers(1, 20))
    gpu_field = draw(st.sampled_from([None, "gpus_per_node", "gpus", "gpus_per_task"]))
    if gpu_field == "gpus_per_task" and task_form is None:
        kw["ntasks"] = draw(st.integers(1, 8))
    if gpu_field:
        kw[gpu_field] = draw(st.integers(1, 10))
    return JobSpec(**kw)


@pytest.mark.filterwarnings("ignore:can't run")
@settings(max_examples=400)
@given(fitting_requests())
def test_resources_never_short_of_request_nor_beyond_a_node(spec):
    """An accepted request gets at least what it asked for, and no node more than it has
    (its node count only drops below -N where -n is smaller: one task per node at least)."""
    try:
        res = spec.resources(TINY)
    except RequestError:
        assume(False)
    # more nodes or CPUs than the partition has pends for ever (EnforcePartLimits=NO)
    assume(res.limit_reason not in ("PartitionNodeLimit", "PartitionConfig"))
    node = TINY.node("node1")
    asked = spec.tres()
    got = res.tres()
    assert got.get("gres/gpu", 0) >= asked.get("gres/gpu", 0)
    assert got["cpu"] >= asked["cpu"]
    assert res.gpus_per_node <= node.gpus
    assert res.cpus_per_node <= node.cpus
    assert 0 < res.mem_per_node_mb <= node.memory_mb
    assert res.nodes <= len(TINY.nodes)
    assert res.nodes >= min(spec.nodes or 1, spec.ntasks or spec.nodes or 1)
    assert sum(res.tasks_per_node) == res.ntasks
    assert len(res.tasks_per_node) == res.nodes and min(res.tasks_per_node) >= 1
    if spec.ntasks is not None:
        assert res.ntasks == spec.ntasks
    if spec.ntasks_per_node is not None:
        assert max(res.tasks_per_node) <= spec.ntasks_per_node
    assert len(res.candidates) >= res.nodes


@pytest.mark.parametrize(
    ("begin", "submitted_at", "seconds"),
    [
        ("10:00", 0, 36000),  # a time of day: today, if it has not passed ...
        ("10:00", 11 * 3600, 86400 + 36000),  # ... else tomorrow
        ("10:00pm", 0, 79200),
        ("12:30am", 0, 1800),
        ("noon", 0, 43200),
        ("11:00", 0, 39600),  # (elevenses is Slurm 23.02's: test_qa44_arrays)
        ("fika", 0, 54000),
        ("teatime", 0, 57600),
        ("midnight", 3600, 86400),
        ("tomorrow", 0, 86400),
        ("today", 3600, 3600),  # today's 00:00 has passed: at once
        ("010626", 0, 86400),  # MMDDYY
        ("01/06/26", 0, 86400),  # MM/DD/YY
        ("2026-01-05T03:00", 0, 10800),
        ("now+2hours", 600, 600 + 7200),
    ],
)
def test_begin_takes_every_form_sbatch_documents(begin, submitted_at, seconds):
    """sbatch(1) --begin: HH:MM[:SS][AM|PM], midnight, noon, fika, teatime, today,
    tomorrow, MMDDYY, MM/DD/YY, YYYY-MM-DD[THH:MM[:SS]], now+N[units] (the lab starts at
    2026-01-05 00:00)."""
    from slurmlab import Lab

    lab = Lab("tiny")
    if submitted_at:
        lab.advance(submitted_at)
    j = lab.sbatch(f"-t 10 --begin={begin}")
    assert lab.sim.jobs[j].begin == seconds
    spec = JobSpec.from_args([f"--begin={begin}"])
    assert JobSpec.from_args(spec.to_args()) == spec  # round-trips


@pytest.mark.parametrize("bad", ["25:00", "13:00pm", "soon", "13/45/26", "now+3fortnights"])
def test_a_bad_begin_names_the_forms(bad):
    with pytest.raises(SbatchError, match=r"--begin="):
        JobSpec.from_args([f"--begin={bad}"])


def test_a_zero_time_limit_means_no_limit():
    """sbatch(1): "A time limit of zero requests that no time limit be imposed"."""
    assert JobSpec.from_args(["-t", "0"]).time_limit is None
    assert JobSpec.from_args(["--time=0:00"]).time_limit is None


def test_exclusive_user_is_whole_nodes_and_says_so():
    with pytest.warns(UserWarning, match="simulated as --exclusive"):
        assert JobSpec.from_args(["--exclusive=user"]).exclusive


@pytest.mark.parametrize(
    ("text", "reason", "nodes"),
    [
        ("-N 5", "PartitionNodeLimit", 5),  # tiny has 4 nodes
        ("-N 8 --ntasks-per-node=1", "PartitionNodeLimit", 8),
        ("--gpus=10 --gpus-per-node=2", "PartitionNodeLimit", 5),
        ("-n 100", "PartitionConfig", 7),  # 64 CPUs in all, no -N
        ("-N 2 -c 40", "PartitionConfig", 2),  # 80 CPUs: no node has 40, yet it pends
    ],
)
def test_more_nodes_or_cpus_than_the_partition_has_pend_for_ever(text, reason, nodes):
    """Under the default EnforcePartLimits=NO Slurm accepts such a job and leaves it pending
    (real Slurm 22.05: -N 7 on a 2-node partition PartitionNodeLimit; -n 100 on its 64 CPUs
    PartitionConfig); with EnforcePartLimits=ALL it is refused at submission."""
    res = args(text).resources(TINY)
    assert (res.limit_reason, res.nodes) == (reason, nodes)
    strict = Cluster.from_slurm_conf(
        "EnforcePartLimits=ALL\nNodeName=node[1-4] CPUs=16\nPartitionName=main Nodes=ALL Default=YES"
    )
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        args(text).resources(strict)


@pytest.mark.parametrize("text", ["-n 8 --ntasks-per-node=1", "--gpus=9", "-N 2 -c 17"])
def test_a_node_count_that_only_follows_from_the_request_is_refused(text):
    """Real Slurm 22.05 pends for its size only a node count asked for (-N, --gpus with GPUs
    per node): -n 30 --ntasks-per-node=10 and --gpus=20 alone on too few nodes were refused,
    as is a shape no node holds within the partition's CPUs (see tests/test_qa_stop21.py)."""
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        args(text).resources(TINY)
