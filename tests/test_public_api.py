"""The front door: slurmlab.__all__ names exist, and the README's API section lists them.

The README's ``## API`` section is a bullet list; each bullet starts with a name written
as ``slurmlab.NAME`` or ``NAME`` (in backticks), e.g. ``- `slurmlab.Cluster` ...``.
"""

import re
from pathlib import Path

import slurmlab

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_api_names() -> list[str]:
    """Names in the bullet list under the README's '## API' heading (until the next heading)."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^## API\s*$(.*?)(?=^#{1,2} |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert m, "README.md needs a '## API' section"
    names = []
    for line in m.group(1).splitlines():
        b = re.match(r"\s*[-*]\s+`(?:slurmlab\.)?([A-Za-z_][A-Za-z0-9_]*)", line)
        if b:
            names.append(b.group(1))
    return names


def test_all_names_exist():
    """Every name in slurmlab.__all__ is importable from slurmlab."""
    missing = [n for n in slurmlab.__all__ if not hasattr(slurmlab, n)]
    assert not missing


def test_all_has_no_duplicates():
    """__all__ lists each name once."""
    assert len(slurmlab.__all__) == len(set(slurmlab.__all__))


def test_readme_api_lists_exactly_all():
    """The README's API section documents exactly the names of slurmlab.__all__."""
    documented = readme_api_names()
    assert len(documented) == len(set(documented)), "a name is listed twice in the README"
    assert sorted(documented) == sorted(slurmlab.__all__), (
        f"missing from README: {sorted(set(slurmlab.__all__) - set(documented))}; "
        f"not in __all__: {sorted(set(documented) - set(slurmlab.__all__))}"
    )


def test_version():
    """slurmlab.__version__ is the version pyproject.toml declares."""
    pyproject = (README.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{slurmlab.__version__}"' in pyproject
