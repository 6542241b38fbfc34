"""The examples in the foundation modules' docstrings run and print what they show."""

import doctest
import importlib

import pytest

#: every module with >>> examples (tests/test_doctests.py checks the list is whole)
MODULES = [
    "slurmlab.analysis._common",
    "slurmlab.analysis.efficiency",
    "slurmlab.analysis.failures",
    "slurmlab.analysis.fidelity",
    "slurmlab.analysis.summary",
    "slurmlab.analysis.usage",
    "slurmlab.analysis.utilization",
    "slurmlab.analysis.waits",
    "slurmlab.policies.fairshare",
    "slurmlab.policies.priority",
    "slurmlab.records.sacct",
    "slurmlab.records.synth",
    "slurmlab.scenario",
    "slurmlab.sim.checkpoint",
    "slurmlab.spec.cluster",
    "slurmlab.spec.job",
    "slurmlab.spec.presets",
    "slurmlab.spec.slurm_conf",
    "slurmlab.spec.units",
    "slurmlab.srun",
    "slurmlab.viz.usage",
    "slurmlab.viz.utilization",
    "slurmlab.viz.waits",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """Every >>> example in the module's docstrings gives the output written under it."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_module_with_examples_is_listed():
    """A module whose examples are not run here could keep wrong ones (one did)."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    with_examples = {
        ".".join(p.relative_to(root).with_suffix("").parts)
        for p in (root / "slurmlab").rglob("*.py")
        if ">>>" in p.read_text(encoding="utf-8")
    }
    assert with_examples <= set(MODULES)
