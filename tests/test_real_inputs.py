"""Real slurm.conf files and #SBATCH scripts from public repositories, read as Slurm 22.05
reads them: heterogeneous jobs, repeated GRES, removed slurm.conf keys, --mail-type, warnings
given once, pyxis options and --ntasks-per-gpu."""

import warnings

import pytest

from slurmlab import Cluster, JobSpec, SbatchError, srun_env
from slurmlab.errors import ConfigError, RequestError
from slurmlab.spec.cluster import Gres

TINY = Cluster.preset("tiny")  # 4 nodes x 16 CPUs, 2 a100 each


def script(*lines: str) -> str:
    return "\n".join(["#!/bin/bash", *lines, "srun python train.py", ""])


def _args(text: str) -> JobSpec:
    return JobSpec.from_args(text)


# -- 1. heterogeneous jobs ---------------------------------------------------------------------


@pytest.mark.parametrize("separator", ["#SBATCH hetjob", "#SBATCH packjob", "#SBATCH  HetJob -N 2"])
def test_hetjob_line_is_refused_as_a_heterogeneous_job(separator):
    """sbatch/opt.c _opt_batch_script: an #SBATCH line whose first word is hetjob (or its old
    name packjob, any case) starts the next component of a heterogeneous job; slurmlab does
    not simulate those and says so, naming the line, instead of "Invalid directive"."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch(script("#SBATCH -N 1 -t 10", separator, "#SBATCH -N 2"))
    text = str(exc.value)
    assert text.startswith(f"script line 3: {separator!r} separates the components of a")
    assert "heterogeneous job" in text and "--dependency" in text
    assert "Invalid directive" not in text


def test_hetjob_separator_on_the_command_line_is_refused():
    """sbatch.c main: a ':' word on the command line separates heterogeneous-job components."""
    with pytest.raises(SbatchError, match="':' in '-N 1 : -N 2' separates the components"):
        _args("-N 1 : -N 2")


def test_hetjob_after_the_first_command_is_ignored():
    """sbatch/opt.c _opt_batch_script stops at the first command: a later hetjob line is not
    read (slurmlab warns about #SBATCH lines after the first command)."""
    with pytest.warns(UserWarning, match="after the first command"):
        spec = JobSpec.from_sbatch("#!/bin/bash\n#SBATCH -N 1\nhostname\n#SBATCH hetjob\n")
    assert spec.nodes == 1


# -- 2. a GRES given twice in one request ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "per_node", "gpu_type"),
    [
        ("--gres=gpu:2,gpu:1", 1, None),
        ("--gres=gpu:1,gpu:2", 2, None),
        ("--gres=gpu:a100:2,gpu:a100:1", 1, "a100"),
        ("--gpus-per-node=2,1", 1, None),
        ("--gpus-per-node=a100:1,a100:2", 2, "a100"),
    ],
)
def test_a_gres_given_twice_keeps_its_last_count(text, per_node, gpu_type):
    """gres.c gres_job_state_validate: each name[:type]:count of the list finds the job's
    record for that name and type (_get_next_job_gres) and sets gres_per_node = cnt, so the
    last count is kept, not the sum (--gpus-per-node's list is made one by xfmt_tres)."""
    with pytest.warns(UserWarning, match="the last count is kept, not the sum"):
        spec = _args(text)
    assert (spec.gpus_per_node, spec.gpu_type) == (per_node, gpu_type)
    assert spec.tres()["gres/gpu"] == per_node
    assert spec.resources(TINY).gpus_per_node == per_node


def test_a_non_gpu_gres_given_twice_keeps_its_last_count():
    """The same rule for any GRES (gres.c gres_job_state_validate); a count of 0 is skipped
    (_get_next_gres: value == 0 goes to the next item), so it never replaces one."""
    with pytest.warns(UserWarning, match="nvme is asked twice"):
        spec = _args("--gres=nvme:1,gpu:1,nvme:3")
    assert spec.other_gres == (Gres("nvme", None, 3),)
    assert spec.gpus_per_node == 1
    assert _args("--gres=gpu:2,gpu:0").gpus_per_node == 2
    spec = _args("--gres=gpu:0,gpu:a100:1")
    assert (spec.gpus_per_node, spec.gpu_type) == (1, "a100")


def test_other_gres_given_twice_in_python_reads_as_the_option():
    """other_gres given in Python reads as --gres does, so to_args reads back the same."""
    with pytest.warns(UserWarning, match="the last count is kept"):
        spec = JobSpec(other_gres=(Gres("nvme", None, 1), Gres("nvme", None, 2)))
    assert spec.other_gres == (Gres("nvme", None, 2),)
    assert JobSpec.from_args(spec.to_args()) == spec


def test_untyped_and_typed_gpus_together_are_refused_as_slurm_refuses_them():
    """gres.c _merge_generic_data: an untyped GPU count beside a typed one is
    ESLURM_INVALID_GRES_TYPE, "Invalid GRES specification (with and without type
    identification)"."""
    with pytest.raises(SbatchError, match=r"with and without type identification"):
        _args("--gres=gpu:2,gpu:a100:1")


def test_several_gpu_types_are_refused_as_not_modelled():
    """Two types (gpu:a100:1,gpu:v100:1) are two records Slurm allocates each of; slurmlab
    holds one GPU type per request and says so."""
    with pytest.raises(SbatchError, match=r"several GPU types .* not modelled by slurmlab"):
        _args("--gres=gpu:a100:1,gpu:v100:1")


# -- 3. slurm.conf keys Slurm 22.05 removed -----------------------------------------------------

CONF = """ClusterName=x
SelectType=select/cons_tres
{line}
NodeName=n[1-2] CPUs=4 RealMemory=1000
PartitionName=p Nodes=n[1-2] Default=YES
"""


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("FastSchedule=0", "The FastSchedule option has been removed. Please update"),
        ("FastSchedule=2", "FastSchedule=2 functionality is available through the Slurmd"),
        ("AccountingStoreJobComment=YES", "please use AccountingStoreFlags=job_comment"),
        ("AccountingStorageLoc=/var/log/acct", "It is safe to remove from your configuration"),
        ('SallocDefaultCommand="srun -n1 bash"', "LaunchParameters=use_interactive_step"),
    ],
)
def test_a_key_slurmctld_stops_on_is_refused(line, said):
    """read_config.c _validate_and_set_defaults: slurmctld 22.05 calls fatal() on these
    removed keys (FastSchedule other than 1); slurmlab refuses the file at the line."""
    with pytest.raises(ConfigError) as exc:
        Cluster.from_slurm_conf(CONF.format(line=line))
    text = str(exc.value)
    shown = line.replace('"', "")  # (the value as Slurm reads it, without its quotes)
    assert text.startswith(f"slurm.conf line 3: {shown}: Slurm 22.05 has removed ")
    assert "slurmctld refuses to start" in text and said in text


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("FastSchedule=1", "Ignoring obsolete FastSchedule=1 option"),
        ("SchedulerAuth=x", 'The option "SchedulerAuth" is defunct'),
        ("MpiDefault=openmpi", "Translating obsolete 'MpiDefault=openmpi'"),
    ],
)
def test_a_key_slurmctld_only_logs_is_warned_about(line, said):
    """read_config.c: FastSchedule=1 is "Ignoring obsolete", SchedulerAuth "defunct"
    (_defunct_option), MpiDefault=openmpi translated to none: slurmctld logs them and goes
    on, and slurmlab warns, naming the line."""
    with pytest.warns(UserWarning) as record:
        Cluster.from_slurm_conf(CONF.format(line=line))
    notes = [str(w.message) for w in record if "obsolete in Slurm 22.05" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith(f"slurm.conf line 3: {line}: ")
    assert said in notes[0]


# -- 4. --mail-type ----------------------------------------------------------------------------


def test_mail_type_without_a_known_word_is_refused():
    """proc_args.c parse_mail_type with slurm_opt.c arg_set_mail_type: a value holding none of
    Slurm's words is "Invalid --mail-type specification"; the error names the line."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch(script("#SBATCH -t 10", "#SBATCH --mail-type=BEGINEND"))
    assert str(exc.value).startswith(
        "script line 3: #SBATCH directive: --mail-type='BEGINEND': Invalid --mail-type "
        "specification; give a comma list of NONE, BEGIN, END"
    )
    with pytest.raises(SbatchError, match="Invalid --mail-type"):
        _args("--mail-type=")


@pytest.mark.parametrize("value", ["BEGIN,END", "end", "fail,bogus", "NONE", "TIME_LIMIT_80"])
def test_mail_type_with_a_known_word_is_kept(value):
    """parse_mail_type reads words in any case and skips those it does not know."""
    assert _args(f"--mail-type={value}").option("mail-type") == value


# -- 5. a warning is given once --------------------------------------------------------------


def test_warnings_before_a_refused_directive_are_given_once():
    """Finding the line of a refused directive reads the lines again; their warnings are
    given once (sbatch/opt.c reads the directives once)."""
    text = script("#SBATCH -N 2 -L SCRATCH", "#SBATCH -t 10", "#SBATCH --mail-type=BEGINEND")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(SbatchError, match="script line 4: "):
            JobSpec.from_sbatch(text)
    licenses = [w for w in record if "--licenses" in str(w.message)]
    assert len(licenses) == 1


# -- 6. pyxis options ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["--container-image=nvcr.io#nvidia/pytorch:23.10-py3", "--no-container-mount-home"]
)
def test_pyxis_options_say_where_they_come_from(text):
    """Stock sbatch 22.05 does not know the pyxis SPANK plugin's options (NVIDIA/pyxis args.c
    spank_opts); slurmlab refuses them as sbatch does, saying what they are and what to do."""
    with pytest.raises(SbatchError) as exc:
        _args(text)
    said = str(exc.value)
    assert said.startswith(f"unrecognized option '{text}': it is an option of the pyxis SPANK")
    assert "no effect on scheduling" in said and "remove it" in said


def test_sbatch_container_option_is_still_sbatch_s():
    """--container (an OCI bundle, slurm_opt.c) is sbatch's own: kept as given."""
    assert _args("--container=/bundles/x").option("container") == "/bundles/x"


# -- 7. --ntasks-per-gpu -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("--gpus=1 --ntasks-per-gpu=1", "--gpus=1"),
        ("--gres=gpu:1 -n 1 -N 1 --ntasks-per-gpu=1", "--gres=gpu:1 -n 1 -N 1"),
        ("--gpus=1 --ntasks-per-gpu=1 --cpus-per-gpu=12", "--gpus=1 --cpus-per-gpu=12"),
        ("--gres=gpu:1 -n 4 -N 1 --ntasks-per-gpu=4", "--gres=gpu:1 -n 4 -N 1"),
    ],
)
def test_ntasks_per_gpu_is_taken_where_it_changes_nothing(text, plain):
    """gres.c gres_job_state_validate sets num_tasks = gpus x ntasks_per_tres; cons_tres
    job_test.c _select_cores puts them all on the node of a one-node job; srun binds
    single:K. With one GPU and K tasks on one node that is the job as written: the same
    resources and the same srun environment, and the option is kept as given."""
    spec, same = _args(text), _args(plain)
    assert spec.option("ntasks-per-gpu") is not None
    assert spec.resources(TINY) == same.resources(TINY)
    env = srun_env(spec, nodelist="node1", job_id=7)
    assert env.equals(srun_env(same, nodelist="node1", job_id=7))
    assert JobSpec.from_args(spec.to_args()) == spec


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("--ntasks-per-gpu=4 --gres=gpu:1", "here Slurm would run 4 task(s)"),
        ("-N 32 --gpus-per-node=4 --ntasks-per-gpu=2", "here Slurm would run 256 task(s)"),
        ("-n 4 --ntasks-per-gpu=2", "here Slurm would give the job 2 GPU(s)"),
        ("-N 2 --ntasks-per-gpu=1", "here Slurm would give the job 2 GPU(s), its 2 task(s)"),
        ("-n 3 --ntasks-per-gpu=2", "-n/--ntasks has to be a multiple of --ntasks-per-gpu"),
        ("--ntasks-per-gpu=1", "without GPUs, -n or -N: sbatch refuses it (Invalid generic"),
        ("--gpus=1 -n 1 --ntasks-per-node=1 --ntasks-per-gpu=1", "--ntasks-per-node is mutually"),
        ("--gpus-per-task=1 -n 1 --ntasks-per-gpu=1", "--gpus-per-task is mutually exclusive"),
    ],
)
def test_ntasks_per_gpu_is_refused_where_slurm_would_change_the_job(text, said):
    """Where Slurm derives the task count from the GPUs (or the GPUs from the tasks), or
    sbatch refuses the combination (slurm_opt.c _validate_ntasks_per_gpu; gres.c: "needs
    either a GRES GPU specification or a node/ntask specification"), it is refused."""
    with pytest.raises(SbatchError) as exc:
        _args(text)
    assert said in str(exc.value)


def test_ntasks_per_gpu_built_in_python_is_checked_when_resolved():
    """A request built in Python holds --ntasks-per-gpu in ``other``; it is checked as
    sbatch's would be when resolved."""
    spec = JobSpec(gpus_per_node=2, other=(("ntasks-per-gpu", "1"),))
    with pytest.raises(RequestError, match="here Slurm would run 2 task"):
        spec.resources(TINY)
