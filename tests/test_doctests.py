"""The examples in the foundation modules' docstrings run and print what they show."""

import doctest
import importlib

import pytest

MODULES = [
    "slurmlab.spec.units",
    "slurmlab.spec.cluster",
    "slurmlab.spec.slurm_conf",
    "slurmlab.spec.presets",
    "slurmlab.spec.job",
    "slurmlab.srun",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """Every >>> example in the module's docstrings gives the output written under it."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
