"""QA stop 26: an ML engineer learning Slurm in notebooks (the Lab, %%sbatch, srun_env).

Each test quotes the input of the finding and its exact outcome.
"""

from __future__ import annotations

import pytest

import slurmlab
from slurmlab.errors import SbatchError
from slurmlab.spec.job import JobSpec


@pytest.mark.parametrize(
    ("script", "message"),
    [
        # sbatch reads every #SBATCH word as one command line and refuses the script at the
        # first word that is neither an option nor a value (opt.c, _opt_batch_script); the
        # directives after it were silently lost (-t 10 and -N 2 here)
        (
            "#!/bin/bash\n#SBATCH -J a b c\n#SBATCH -t 10\n#SBATCH -N 2\nsrun x\n",
            "script line 2: Invalid directive found in batch script: b (sbatch refuses the "
            "script: each word of an #SBATCH line is an option or an option's value; quote a "
            'value with spaces, as in --job-name="my job")',
        ),
        (  # --nice takes its value after '=' only: 0 is a stray word
            "#!/bin/bash\n#SBATCH --nice 0\n#SBATCH -t 10\nsrun x\n",
            "script line 2: Invalid directive found in batch script: 0 (sbatch refuses the "
            "script: each word of an #SBATCH line is an option or an option's value; write "
            "--nice=0)",
        ),
        (
            "#!/bin/bash\n#SBATCH -t 10\n#SBATCH hello -N 2\nsrun x\n",
            "script line 3: Invalid directive found in batch script: hello (sbatch refuses "
            "the script: each word of an #SBATCH line is an option or an option's value; "
            "start each #SBATCH line with an option)",
        ),
    ],
)
def test_a_stray_word_in_an_sbatch_line_refuses_the_script(script, message):
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_sbatch(script)
    assert str(exc.value) == message
    lab = slurmlab.Lab("tiny")
    with pytest.raises(SbatchError):
        lab.sbatch(script)
    assert lab.squeue().empty  # nothing submitted


def test_a_quoted_value_with_spaces_is_one_word():
    spec = JobSpec.from_sbatch('#!/bin/bash\n#SBATCH -t 10 -J "my job"\nsrun x\n')
    assert spec.name == "my job"


def test_an_array_tasks_srun_env_has_slurms_array_variables():
    # slurmctld's _create_job_array: COUNT, MIN, MAX, STEP (after the first ':'); the
    # task's own SLURM_JOB_ID, and the array's in SLURM_ARRAY_JOB_ID
    lab = slurmlab.Lab("teaching")
    a = lab.sbatch("#!/bin/bash\n#SBATCH --array=0-9:3%2 --gres=gpu:1 -t 30\npython x.py\n")
    lab.advance(1)
    env = lab.srun_env(f"{a}_3")
    array = env.filter(like="SLURM_ARRAY").iloc[0].to_dict()
    assert array == {
        "SLURM_ARRAY_JOB_ID": a,
        "SLURM_ARRAY_TASK_ID": 3,
        "SLURM_ARRAY_TASK_COUNT": 4,
        "SLURM_ARRAY_TASK_MIN": 0,
        "SLURM_ARRAY_TASK_MAX": 9,
        "SLURM_ARRAY_TASK_STEP": 3,
    }
    # its own JobID, given as it left the array's record after task 0 (which took a + 1)
    assert env["SLURM_JOB_ID"].iloc[0] == a + 2
    plain = lab.sbatch("-t 10")
    lab.advance(1)
    assert not lab.srun_env(plain).filter(like="SLURM_ARRAY").columns.any()


def test_srun_env_of_an_array_request_defaults_to_its_first_task():
    job = JobSpec.from_args("--array=4,7 -t 10")
    env = slurmlab.srun_env(job, "node1", 42)
    assert env.loc[0, ["SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"]].tolist() == [42, 4]
    assert (
        slurmlab.srun_env(job, "node1", 43, array_job_id=42, array_task_id=7).loc[
            0, "SLURM_ARRAY_TASK_ID"
        ]
        == 7
    )
    with pytest.raises(
        slurmlab.SlurmlabError, match="array_task_id=5 is not a task of --array=4,7"
    ):
        slurmlab.srun_env(job, "node1", 42, array_task_id=5)


@pytest.mark.parametrize(
    ("args", "nodes", "dist"),
    [
        ("-N 2 --ntasks-per-node=1", "n[1-2]", "cyclic"),  # no more tasks than nodes
        ("-N 2 --ntasks-per-node=4", "n[1-2]", "block"),
        ("-n 1", "n1", "cyclic"),
        ("-N 2 --ntasks-per-node=1 --mem=0", "n[1-2]", "block"),  # step_mgr.c: mem 0
        ("-N 2 --ntasks-per-node=4 -m cyclic", "n[1-2]", "cyclic"),  # as asked
    ],
)
def test_srun_env_sets_srun_default_distribution(args, nodes, dist):
    env = slurmlab.srun_env(JobSpec.from_args(args), nodes)
    assert set(env["SLURM_DISTRIBUTION"]) == {dist}


@pytest.mark.parametrize(
    ("option", "hint"),
    [
        ("--bogus", "see `sbatch --help` for the options"),  # was "did you mean --gpus?"
        ("--partiton", "did you mean --partition?"),
        ("--qso", "did you mean --qos?"),
        ("--dependancy", "did you mean --dependency?"),
    ],
)
def test_did_you_mean_only_for_a_near_spelling(option, hint):
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(f"{option}=1")
    assert str(exc.value) == f"unrecognized option {option} (value '1'); {hint}"
