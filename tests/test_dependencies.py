"""Every package slurmlab or the course imports is declared, and pinned for Binder.

Imports are found by walking the syntax trees of ``slurmlab/**/*.py`` and of the code
cells of ``course/*.ipynb``; import names are mapped to distributions
(``hostlist`` -> python-hostlist, ``yaml`` -> pyyaml). Each must be declared in
pyproject.toml (dependencies or an extra) and pinned with ``==`` in
binder/requirements.txt at a version pyproject's range accepts.
"""

import ast
import json
import os
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"

#: Import names whose distribution is spelled differently (used when not installed).
KNOWN = {"hostlist": "python-hostlist", "yaml": "pyyaml", "sklearn": "scikit-learn"}


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            # IPython magics and shell escapes are not Python
            lines += [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def imported_modules() -> dict[str, set[str]]:
    """Top-level third-party module name -> files importing it."""
    found: dict[str, set[str]] = {}
    sources = [(p, p.read_text(encoding="utf-8")) for p in (ROOT / "slurmlab").rglob("*.py")]
    sources += [(p, _notebook_code(p)) for p in sorted((ROOT / "course").glob("*.ipynb"))]
    for path, text in sources:
        for name in _imports(ast.parse(text, filename=str(path))):
            if name in sys.stdlib_module_names or name in ("slurmlab", "__future__"):
                continue
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def distribution(module: str) -> str:
    if module in KNOWN:
        return KNOWN[module]
    dists = packages_distributions().get(module)
    return canonicalize_name(dists[0]) if dists else canonicalize_name(module)


def pyproject_requirements() -> dict[str, Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(data.get("dependencies", []))
    for extra in data.get("optional-dependencies", {}).values():
        reqs += extra
    out: dict[str, Requirement] = {}
    for text in reqs:
        r = Requirement(text)
        out.setdefault(canonicalize_name(r.name), r)
    return out


def runtime_requirements() -> dict[str, Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {canonicalize_name(Requirement(t).name): Requirement(t) for t in data["dependencies"]}


def binder_pins() -> dict[str, Requirement]:
    out = {}
    for line in (BINDER / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            r = Requirement(line)
            out[canonicalize_name(r.name)] = r
    return out


def test_import_walk_finds_the_core_dependencies():
    """The walk sees slurmlab's own imports (a guard that the test itself works)."""
    found = imported_modules()
    assert {"pandas", "hostlist"} <= set(found)


def test_every_import_is_declared_in_pyproject():
    """Every third-party package imported by slurmlab/ or course/ is declared in pyproject.toml."""
    declared = pyproject_requirements()
    missing = {
        distribution(m): sorted(files)
        for m, files in imported_modules().items()
        if distribution(m) not in declared
    }
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_every_import_is_pinned_for_binder():
    """Every third-party package imported by slurmlab/ or course/ is pinned in binder/requirements.txt."""
    pins = binder_pins()
    jupyter = {"ipykernel", "jupyterlab", "notebook", "ipython"}  # the Binder image has them
    missing = {
        distribution(m): sorted(files)
        for m, files in imported_modules().items()
        if distribution(m) not in pins and distribution(m) not in jupyter
    }
    assert not missing, f"imported but not pinned in binder/requirements.txt: {missing}"


def test_every_runtime_dependency_is_pinned_for_binder():
    """Each pyproject dependency is pinned for Binder (the package is installed with --no-deps)."""
    missing = sorted(set(runtime_requirements()) - set(binder_pins()))
    assert not missing, f"pyproject dependencies not pinned in binder/requirements.txt: {missing}"


def test_binder_pins_are_exact_and_inside_pyproject_ranges():
    """Each Binder pin is `==` one version, and that version satisfies pyproject's range."""
    declared = pyproject_requirements()
    for name, pin in binder_pins().items():
        specs = list(pin.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{pin}: pin with == one version"
        assert name in declared, f"{pin}: pinned for Binder but not declared in pyproject.toml"
        version = specs[0].version
        assert declared[name].specifier.contains(version, prereleases=True), (
            f"binder pins {name}=={version} but pyproject asks {declared[name]}"
        )


def test_binder_does_not_repin_jupyter():
    """The Binder image provides JupyterLab; requirements.txt must not pin it again."""
    assert not {"jupyterlab", "notebook", "jupyter-server"} & set(binder_pins())


def test_binder_python_and_postbuild():
    """runtime.txt picks Python 3.12; postBuild is executable and installs slurmlab itself."""
    assert (BINDER / "runtime.txt").read_text(encoding="utf-8").strip() == "python-3.12"
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (chmod +x)"
    text = post.read_text(encoding="utf-8")
    assert text.startswith("#!") and "set -euo pipefail" in text
    assert "pip install --no-deps ." in text
