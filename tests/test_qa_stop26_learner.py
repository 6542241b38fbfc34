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
