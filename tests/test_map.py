"""docs/architecture.md's map: every module of ``gradcli/`` named with its line, and the
drawing of the layers (docs/layers.svg) what scripts/draw_layers.py draws from the code."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from test_structure import PACKAGE, module_names

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
MAP = PAGE.split("\n## The map\n", 1)[1].split("\n## ", 1)[0]


def _draw_layers():
    spec = importlib.util.spec_from_file_location(
        "draw_layers", ROOT / "scripts" / "draw_layers.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _path(name: str) -> str:
    """The module's file, relative to gradcli/: ``cli/commands.py``, ``core/__init__.py``."""
    path = PACKAGE.parent / name.replace(".", "/")
    path = path / "__init__.py" if (path / "__init__.py").exists() else path.with_suffix(".py")
    return path.relative_to(PACKAGE).as_posix()


def _named() -> list[str]:
    return re.findall(r"^- `([\w/]+\.py)`: \S", MAP, re.M)


def test_every_module_is_on_the_map():
    missing = [_path(name) for name in module_names() if _path(name) not in _named()]
    assert not missing, "docs/architecture.md's map has no line for " + ", ".join(missing)


def test_the_map_names_only_modules_that_exist():
    gone = [path for path in _named() if not (PACKAGE / path).is_file()]
    assert not gone, "docs/architecture.md's map names modules that do not exist: " + ", ".join(
        gone
    )
    assert len(_named()) == len(set(_named()))


def test_the_drawing_of_the_layers_is_current():
    draw_layers = _draw_layers()
    drawn = draw_layers.draw(draw_layers.import_graph())
    assert (ROOT / "docs" / "layers.svg").read_text(encoding="utf-8") == drawn, (
        "docs/layers.svg is not what the code draws: run python scripts/draw_layers.py"
    )
    assert "](layers.svg)" in MAP


def test_the_drawing_counts_imports_by_direction():
    draw_layers = _draw_layers()
    graph = {
        "gradcli.cli.a": {"gradcli.engine.b", "gradcli.engine.c", "gradcli.errors"},
        "gradcli.engine.b": {"gradcli.cli.a", "gradcli.engine.c"},  # one upward, one inside
        "gradcli.engine.c": set(),
        "gradcli.errors": set(),
    }
    cli, engine, errors = (draw_layers.layer_of(m) for m in graph if m != "gradcli.engine.c")
    assert draw_layers.layer_edges(graph) == {(cli, engine): 2, (engine, cli): 1, (cli, errors): 1}
    svg = draw_layers.draw(graph)
    assert svg.count('marker-end="url(#up)"') == 1  # the upward import, in red
    assert svg.count('marker-end="url(#down)"') == 1  # errors' imports are said in its box
    assert "imported by 1 layer above: 1 import" in svg
