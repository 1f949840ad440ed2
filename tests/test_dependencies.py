"""Every package gradcli imports is one it installs: a runtime dependency, or one of an
optional extra's (whose commands say how to install it when it is missing)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Packages that an extra's distribution brings under another name.
PROVIDED_BY = {"distributed": "dask", "pandas": "dask"}


def _distribution(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("-", "_")


def _imported() -> set[str]:
    names = set()
    for path in (ROOT / "gradcli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"gradcli"}


def test_every_imported_package_is_installed_by_the_project():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_distribution(r) for r in project["dependencies"]}
    extras = {
        _distribution(r)
        for name, requirements in project["optional-dependencies"].items()
        if name not in ("test", "oracle")
        for r in requirements
    }
    for package in sorted(_imported()):
        installed_as = PROVIDED_BY.get(package, package)
        assert installed_as in runtime | extras, (
            f"gradcli imports {package}, which neither its dependencies nor an extra install"
        )
    # The working precision (--dps) is a runtime feature: mpmath must come with gradcli.
    assert "mpmath" in runtime
