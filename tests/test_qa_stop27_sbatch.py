"""An sbatch expert's review (stop 27): options and scripts read as sbatch 22.05 reads them.

Each test states the rule and cites where Slurm has it; every error and warning is checked
with its exact text.
"""

import textwrap
import warnings

import pytest

from slurmlab import Cluster, JobSpec
from slurmlab.errors import RequestError, SbatchError
from slurmlab.spec.cluster import Node, Partition
from slurmlab.spec.slurm_conf import parse_slurm_conf

AI = Cluster.preset("ai")
TINY = Cluster.preset("tiny")
TEACHING = Cluster.preset("teaching")


def _quiet(fn, *a, **kw):
    """Call fn, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*a, **kw)


def _one_warning(fn, *a, **kw):
    with pytest.warns(UserWarning) as caught:
        out = fn(*a, **kw)
    assert len(caught) == 1, [str(w.message) for w in caught]
    return out, str(caught[0].message)


# -- 1. the magic word is a prefix test (sbatch/opt.c _opt_batch_script) --------------------


def test_sbatch_magic_word_without_a_space_is_a_directive():
    """'#SBATCH--gres=gpu:4' is read as sbatch reads it: xstrncmp on '#SBATCH', then
    get_argument skips zero or more spaces."""
    spec = _quiet(JobSpec.from_sbatch, "#!/bin/bash\n#SBATCH--gres=gpu:4\n#SBATCH-t 30\nsrun x\n")
    assert spec.to_args() == ["--gres=gpu:4", "--time=30:00"]


def test_sbatch_magic_word_glued_to_a_word_is_an_invalid_directive():
    """'#SBATCHX --nodes=9': the word X is no option, so sbatch refuses the script."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch("#!/bin/bash\n#SBATCH -t 5\n#SBATCHX --nodes=9\nsrun x\n")
    assert str(exc.value) == (
        "script line 3: Invalid directive found in batch script: X (sbatch refuses the "
        "script: each word of an #SBATCH line is an option or an option's value; put a space "
        "after #SBATCH, as in '#SBATCH --time=10')"
    )


# -- 2. column 0 ------------------------------------------------------------------------------


def test_indented_sbatch_line_is_a_comment_with_a_warning():
    """sbatch reads '#SBATCH' only at the first character of a line: an indented one sets
    nothing (and, being a comment, does not end the directives)."""
    script = "#!/bin/bash\n  #SBATCH --gres=gpu:4\n#SBATCH -t 30\nsrun x\n"
    spec, message = _one_warning(JobSpec.from_sbatch, script)
    assert spec.to_args() == ["--time=30:00"]
    assert message == (
        "script line 2: '  #SBATCH --gres=gpu:4' is indented: sbatch reads #SBATCH only at "
        "the start of a line, so to sbatch this line is a comment and it sets nothing; start "
        "the line with #SBATCH (for a script in an indented Python string, pass "
        "textwrap.dedent(script))"
    )


def test_indented_shebang_is_refused_with_the_fix():
    """has_shebang (sbatch.c) needs '#!' at byte 0: an indented script (a Python string
    inside a function) is refused; textwrap.dedent makes it a script sbatch reads."""
    script = """
        #!/bin/bash
        #SBATCH --gres=gpu:2
        srun python train.py
        """
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch(script)
    assert str(exc.value) == (
        "script line 2: '        #!/bin/bash' is indented: This does not look like a batch "
        "script. The first line must start with #! followed by the path to an interpreter. "
        "For instance: #!/bin/sh (sbatch needs #! at the very first character of the "
        "script); remove the indentation (for a script in an indented Python string, pass "
        "textwrap.dedent(script))"
    )
    assert _quiet(JobSpec.from_sbatch, textwrap.dedent(script)).gpus_per_node == 2


def test_leading_blank_lines_are_still_forgiven():
    """The docstring promises it: blank lines before '#!' (a notebook cell) are forgiven."""
    assert _quiet(JobSpec.from_sbatch, "\n\n#!/bin/bash\n#SBATCH -N 2\nsrun x\n").nodes == 2


def test_no_shebang_is_sbatchs_error():
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch("#SBATCH -N 2\nsrun x\n")
    assert str(exc.value) == (
        "This does not look like a batch script. The first line must start with #! followed "
        "by the path to an interpreter. For instance: #!/bin/sh"
    )


def test_bom_is_named():
    """A UTF-8 BOM before '#!' is refused by has_shebang; the error names the invisible BOM."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch("\ufeff#!/bin/bash\n#SBATCH -N 2\nsrun x\n")
    assert str(exc.value) == (
        "script line 1: the script starts with a UTF-8 byte order mark (BOM, U+FEFF, "
        "invisible in most editors) before its first character: This does not look like a "
        "batch script. The first line must start with #! followed by the path to an "
        "interpreter. For instance: #!/bin/sh; save the file without the BOM (in Python: "
        "read it with encoding='utf-8-sig'; in a shell: sed -i '1s/^\\xEF\\xBB\\xBF//' script)"
    )


# -- 7. #SLURM and #PBS -----------------------------------------------------------------------


def test_slurm_magic_word_is_applied_with_sbatchs_warning():
    """sbatch reads '#SLURM' lines as '#SBATCH' and logs "Change from #SLURM to #SBATCH"
    (once per script)."""
    script = "#!/bin/bash\n#SLURM --gres=gpu:4\n#SLURM -t 5\nsrun x\n"
    spec, message = _one_warning(JobSpec.from_sbatch, script)
    assert spec.to_args() == ["--gres=gpu:4", "--time=5:00"]
    assert message == (
        "script line 2: '#SLURM --gres=gpu:4': sbatch applies #SLURM lines as #SBATCH lines "
        'and says "Change from #SLURM to #SBATCH in your script and verify the options are '
        'valid in sbatch"; slurmlab applies them too: write #SBATCH'
    )


def test_pbs_lines_are_named_as_not_translated():
    """sbatch translates '#PBS' lines (unless --ignore-pbs); slurmlab does not, and says so."""
    script = "#!/bin/bash\n#PBS -l nodes=2\n#PBS -q gpu\n#SBATCH -t 5\nsrun x\n"
    spec, message = _one_warning(JobSpec.from_sbatch, script)
    assert spec.to_args() == ["--time=5:00"]
    assert message == (
        "script lines 2, 3 ('#PBS -l nodes=2', ...): sbatch translates #PBS lines into its "
        "options (unless --ignore-pbs), slurmlab does not: here they set nothing; write them "
        "as #SBATCH options"
    )
    _quiet(JobSpec.from_sbatch, script.replace("-t 5", "-t 5 --ignore-pbs"))


# -- 3. -N MIN-MAX ----------------------------------------------------------------------------


def test_nodes_min_max_takes_up_to_max_and_warns_only_for_a_shape_per_job():
    """node_scheduler.c asks for max_nodes unless --use-min-nodes: a request whose shape per
    node does not depend on its node count takes up to MAX (tests/test_nodes_range.py); one
    of tasks per job (-n) is allocated MIN, with a warning."""
    spec = JobSpec.from_args("-N 2-4 --ntasks-per-node=2 --gres=gpu:2")
    res = _quiet(spec.resources, TINY)
    assert (res.nodes, res.max_nodes) == (2, 4)
    spec = JobSpec.from_args("-N 2-4 -n 4 --gres=gpu:2")
    res, message = _one_warning(spec.resources, TINY)
    assert (res.nodes, res.max_nodes) == (2, None)
    assert message == (
        "--nodes=2-4 with -n 4: slurmlab allocates 2 nodes (the minimum), as its shape per node "
        "depends on the node count; Slurm takes up to 4 nodes when they are free and spreads "
        "the tasks over them; write --nodes=2 or --nodes=4 for a fixed count, or "
        "--ntasks-per-node for a shape per node"
    )


def test_use_min_nodes_is_what_slurmlab_does():
    """--use-min-nodes asks for the minimum: no warning at all, and no more nodes."""
    spec = _quiet(JobSpec.from_args, "-N 2-4 --use-min-nodes --gres=gpu:2")
    res = _quiet(spec.resources, TINY)
    assert (res.nodes, res.max_nodes) == (2, None)


# -- 4. --mem-per-gpu without GPUs --------------------------------------------------------------


def test_mem_per_gpu_without_gpus_is_refused():
    """gres.c gres_job_state_validate: mem_per_tres without a GPU request is
    ESLURM_INVALID_GRES, even with --exclusive."""
    for extra in ("", " --exclusive"):
        with pytest.raises(RequestError) as exc:
            JobSpec.from_args(f"-n 2 --mem-per-gpu=10G{extra}").resources(AI)
        assert str(exc.value) == (
            "--mem-per-gpu=10240M: Requested mem_per_tres=gres:gpu:10240 but did not request "
            "any GPU: Invalid generic resource (gres) specification; ask for GPUs (e.g. "
            "--gpus-per-node=1), or give the memory with --mem or --mem-per-cpu"
        )
    assert JobSpec.from_args("--gpus=2 --mem-per-gpu=10G").resources(AI).mem_per_node_mb == 20480


# -- 5. --gpus rounded up -----------------------------------------------------------------------


def test_gpus_that_do_not_divide_over_the_nodes_warn():
    """--gpus=3 -N 2 --cpus-per-gpu=2 (CPUs that follow each node's GPUs): slurmlab holds
    2+2; Slurm holds 3, split unevenly. Without --cpus-per-gpu the 3 are dealt over the nodes
    as Slurm deals them (test_gpus_per_job_nodes.py), quietly."""
    res, message = _one_warning(JobSpec.from_args("--gpus=3 -N 2 --cpus-per-gpu=2").resources, AI)
    assert (res.gpus_per_node, res.tres()["gres/gpu"]) == (2, 4)
    assert message == (
        "--gpus=3 on 2 nodes: slurmlab holds the same 2 GPUs on every node (4 GPUs, 1 more "
        "than asked), where Slurm holds 3, split unevenly over the nodes; ask --gpus=4 (or "
        "--gpus-per-node=2) to simulate what is held, or a count that 2 nodes share evenly"
    )
    res = _quiet(JobSpec.from_args("--gpus=3 -N 2").resources, AI)
    assert res.tres()["gres/gpu"] == 3


# -- 6. values of pass-through options ------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--open-mode=bogus",
            "--open-mode='bogus': Invalid --open-mode specification; use --open-mode=append "
            "or --open-mode=truncate",
        ),
        (
            "--hint=bogus",
            '--hint=bogus: unrecognized --hint argument "bogus", see --hint=help; use '
            "compute_bound, memory_bound, multithread or nomultithread",
        ),
        (
            "-m bogus",
            "--distribution='bogus': Invalid --distribution specification: 'bogus' is not a "
            "layout; use block, cyclic or arbitrary, optionally followed by :block, :cyclic or "
            ":fcyclic (for sockets, then cores) and ,Pack or ,NoPack (e.g. cyclic:block,NoPack)"
            ", or plane=N",
        ),
        (
            "--distribution=plane",
            "--distribution='plane': Invalid --distribution specification (Invalid plane size "
            "or size not specified); write plane=N, N a whole number of at least 1 (tasks laid "
            "out in blocks of N per node)",
        ),
        (
            "--deadline=garbage",
            "--deadline='garbage': Invalid --deadline specification; give a time as --begin "
            "takes it: now[+|-N[seconds|minutes|hours|days|weeks]] (e.g. now+1hour: no "
            "abbreviation such as now+1h), HH:MM[:SS][AM|PM], midnight, noon, fika, teatime, "
            "today, tomorrow, MMDD[YY], MM/DD[/YY], MM.DD[.YY], YYYY-MM-DD, a date and a time "
            "together (MM/DD-HH:MM, YYYY-MM-DDTHH:MM, tomorrowT10:00, noon tomorrow) or "
            "uts<seconds since the epoch>",
        ),
        (
            "--wait-all-nodes=7",
            "--wait-all-nodes=7: Invalid --wait-all-nodes specification; use "
            "--wait-all-nodes=0 (start at once) or --wait-all-nodes=1 (wait for every node)",
        ),
        (
            "--gpu-bind=bogus",
            "--gpu-bind='bogus': Invalid --gpu-bind argument: gpu:bogus; use closest, none, "
            "map_gpu:ID[,ID...], mask_gpu:MASK[,MASK...], per_task:N or single:N (each may "
            "follow verbose,)",
        ),
    ],
)
def test_pass_through_values_are_checked_as_sbatch_checks_them(option, message):
    """slurm_opt.c refuses these at submission (arg_set_open_mode, verify_hint,
    verify_dist_type, parse_time, arg_set_wait_all_nodes, tres_bind_verify_cmdline)."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(option)
    assert str(exc.value) == message


@pytest.mark.parametrize("value", ["map_gpu:a", "map_gpu:0x1", "mask_gpu:0xZ"])
def test_gpu_bind_lists_sbatch_refuses(value):
    """_valid_num_list (tres_bind.c): decimal ids for map_gpu, hex masks for mask_gpu."""
    with pytest.raises(SbatchError, match=rf"Invalid --gpu-bind argument: gpu:{value};"):
        JobSpec.from_args(f"--gpu-bind={value}")


@pytest.mark.parametrize(
    "option",
    [
        "--open-mode=append",
        "--open-mode=Truncate",
        "-m cyclic",
        "-m block:cyclic,NoPack",
        "-m '*:*:fcyclic'",
        "-m plane=4",
        "-m arbitrary",
        "-m pack",
        "--wait-all-nodes=0",
        "--gpu-bind=closest",
        "--gpu-bind=verbose,map_gpu:0,1",
        "--gpu-bind=mask_gpu:0x3,0xc",
        "--gpu-bind=single:1",
    ],
)
def test_pass_through_values_sbatch_accepts(option):
    _quiet(JobSpec.from_args, option)


# -- 7. wording --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        ("afterburstbuffer", "wait for the burst buffer stage-out of the jobs"),
        ("expand", "grow the jobs' allocation with this one's"),
    ],
)
def test_real_dependency_types_are_not_modelled_not_unknown(kind, what):
    """afterburstbuffer and expand are 22.05 types (job_scheduler.c)."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(f"--dependency={kind}:5")
    assert str(exc.value) == (
        f"--dependency={kind}:5: {kind!r} is a Slurm dependency type ({what}) that is not "
        "modelled by slurmlab; use one of after, afterok, afterany, afternotok, aftercorr, "
        "singleton"
    )


def test_time_minus_one_is_unlimited():
    """time_str2secs (parse_time.c) reads -1 as INFINITE."""
    spec = JobSpec.from_args("-t -1")
    assert spec.time_requested and spec.time_limit is None
    assert spec.to_args() == ["--time=UNLIMITED"]


def test_feature_no_node_has_is_an_invalid_feature():
    """_valid_node_feature: a --constraint feature no node of the cluster has is
    ESLURM_INVALID_FEATURE, whatever the operators."""
    for expr in ("nothere", "a100|nothere"):
        with pytest.raises(RequestError) as exc:
            JobSpec.from_args(f"-C '{expr}'").resources(TEACHING)
        assert str(exc.value) == (
            f"--constraint={expr!r}: 'nothere' is a feature of no node of cluster 'teaching' "
            "(its nodes have a100, cpu, ib): Invalid feature specification; name features its "
            "nodes have"
        )


def test_feature_elsewhere_in_the_cluster_is_node_configuration():
    """A feature some node has, but none the request may use: Slurm's other message."""
    c = Cluster(
        "c",
        (Node("n1", cpus=4, features={"fast"}), Node("n2", cpus=4)),
        (Partition("p", ("n2",), default=True), Partition("q", ("n1",))),
    )
    with pytest.raises(RequestError, match="Requested node configuration is not available"):
        JobSpec.from_args("-C fast").resources(c)


# -- 8. ThreadsPerCore ---------------------------------------------------------------------------

HT_CONF = """ClusterName=ht
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=g[1-2] Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=256000
PartitionName=gpu Nodes=g[1-2] Default=YES
"""


def test_threads_per_core_with_core_allocation_reads_quietly_and_is_modelled():
    """CR_Core* allocates whole cores (real Slurm 22.05, datasets/realslurm/threads: -n 3
    gets cpu=4): modelled since stop 28, so reading such nodes says nothing."""
    cluster = _quiet(parse_slurm_conf, HT_CONF)
    assert {n.threads_per_core for n in cluster.nodes} == {2}
    assert _quiet(JobSpec.from_args("-n 3").resources, cluster).cpus_per_node == 4


def test_threads_per_core_quiet_when_cpus_count_threads_in_slurm_too():
    """CR_CPU counts each thread as a CPU, and CPUs= the core count counts cores: no warning."""
    _quiet(parse_slurm_conf, HT_CONF.replace("CR_Core_Memory", "CR_CPU_Memory"))
    _quiet(parse_slurm_conf, HT_CONF.replace("ThreadsPerCore=2", "ThreadsPerCore=2 CPUs=32"))


def test_hint_is_modelled_quietly():
    """--hint=nomultithread: one thread of each whole core (stop 28), no warning."""
    spec = _quiet(JobSpec.from_args, "--hint=nomultithread")
    assert spec.core_limits() == (None, 1)


def test_presets_have_one_thread_per_core_and_read_quietly():
    """The presets are unchanged: no warning when their nodes are used."""
    for name in ("ai", "teaching", "tiny"):
        _quiet(JobSpec.from_args("-n 3 --mem-per-cpu=100").resources, Cluster.preset(name))
