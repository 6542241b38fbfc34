"""Imports flow one way: spec -> sim/policies -> records -> analysis -> viz -> widgets.

An AST walk of slurmlab/ checks the rules of the house (docs: STYLE.md). Folders that
do not exist yet are simply skipped, so the rules hold as the package grows.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "slurmlab"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Fully qualified names of the modules a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.add(module)
            out |= {f"{module}.{a.name}" for a in node.names}  # 'from slurmlab import sim'
    return out


def _files(folder: str) -> list[Path]:
    root = PACKAGE / folder
    return sorted(root.rglob("*.py")) if root.is_dir() else []


def _violations(files: list[Path], forbidden: list[str]) -> list[str]:
    bad = []
    for f in files:
        for name in _imports(f):
            for target in forbidden:
                if name == target or name.startswith(target + "."):
                    bad.append(f"{f.relative_to(PACKAGE.parent)} imports {name}")
    return sorted(set(bad))


def test_walker_resolves_relative_and_package_imports():
    """The walker sees 'from slurmlab import sim' and relative imports (a guard for the test)."""
    assert "slurmlab.spec.cluster" in _imports(PACKAGE / "spec" / "slurm_conf.py")
    assert "slurmlab.srun" in _imports(PACKAGE / "__init__.py")


RULES = [
    (
        "spec",
        ["sim", "policies", "records", "analysis", "viz", "widgets"],
        "the spec layer describes clusters and requests; it depends on nothing downstream",
    ),
    ("policies", ["sim"], "policies are pure decisions; the engine calls them, never the reverse"),
    ("analysis", ["sim"], "analyzers read job tables, wherever they came from"),
]


@pytest.mark.parametrize(("folder", "forbidden", "why"), RULES, ids=[r[0] for r in RULES])
def test_layer_does_not_import_downstream(folder, forbidden, why):
    """A layer never imports the layers after it (see the rule's reason in the message)."""
    bad = _violations(_files(folder), [f"slurmlab.{f}" for f in forbidden])
    assert not bad, f"{why}:\n" + "\n".join(bad)


def test_nothing_imports_widgets():
    """Only slurmlab/widgets itself imports slurmlab.widgets: widgets are leaves."""
    others = [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if "widgets" not in p.relative_to(PACKAGE).parts[:1]
    ]
    bad = _violations(others, ["slurmlab.widgets"])
    assert not bad, "widgets are thin views; nothing may depend on them:\n" + "\n".join(bad)
