"""The guides of docs/architecture.md, run: "How to add a command", "... an output
format" and "... a file format". Each guide's example is a whole module of
``tests/guides/``, quoted verbatim by the guide (tests/test_docs.py checks the quote);
here it is loaded as the module of ``gradcli`` the guide says to write, put in its
registry, and used through the command line (Click's CliRunner), the library and the
calculator. Expected numbers are derived by hand in each test.

And the registries' claim, checked mechanically: a declared command's name is written
in no module of gradcli/ but the one that declares it; each format's module declares
the format of its own name.
"""

from __future__ import annotations

import ast
import csv
import importlib.util
import json
import sys
from pathlib import Path

import click
import pytest

import gradcli
from gradcli import api
from gradcli.analysis.commands import commands, declares
from gradcli.cli import cli
from gradcli.core.computing import COMMANDS as COMPUTING_COMMANDS
from gradcli.render import formats

GUIDES = Path(__file__).parent / "guides"
PACKAGE = Path(gradcli.__file__).parent


def load(name: str, package: str, monkeypatch):
    """``tests/guides/NAME.py`` as the module ``package.NAME``, as if it were written there."""
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", GUIDES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------
# How to add a command
# ----------------------------------------------------------------------------


@pytest.fixture
def slope(monkeypatch):
    module = load("slope", "gradcli.analysis", monkeypatch)
    (declared,) = module.COMMANDS
    monkeypatch.setitem(commands(), declared.name, declared)
    yield declared
    cli.loaded_commands().pop(declared.name, None)


def test_the_registry_reads_the_example_as_it_reads_gradclis_modules():
    # It imports the modules of gradcli/analysis/ whose text assigns COMMANDS.
    assert declares(str(GUIDES / "slope.py"))
    assert not declares(str(GUIDES / "markdown.py"))
    assert declares(str(PACKAGE / "analysis" / "vector_calculus.py"))


def test_the_example_command_on_the_command_line(slope, gradcli):
    # f = x**2 + y**2 at (3, 4): grad f = (2x, 2y) = (6, 8), |grad f| = 10, direction (0.6, 0.8).
    shown = gradcli("slope", "x**2 + y**2", "--x", "3", "--y", "4", "--format", "plain")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == ["slope 10", "direction.x 0.6", "direction.y 0.8"]
    as_json = gradcli("slope", "x**2 + y**2", "--x", "3", "--y", "4", "--format", "json")
    assert json.loads(as_json.stdout) == {"slope": 10, "direction": {"x": 0.6, "y": 0.8}}
    got = gradcli("slope", "x**2 + y**2", "--x", "3", "--y", "4", "--get", "direction.y")
    assert got.stdout == "0.8\n"
    # --wrt: only y varies: grad = (8,), slope 8, direction 1.
    only_y = gradcli(
        "slope", "x**2 + y**2", "--x", "3", "--y", "4", "--wrt", "y", "--format", "json"
    )
    assert json.loads(only_y.stdout) == {"slope": 8, "direction": {"y": 1}}
    table = gradcli("slope", "x**2 + y**2", "--x", "3", "--y", "4", tty=True)
    assert table.exit_code == 0 and "direction.x" in table.stdout and "0.6" in table.stdout


def test_the_example_command_at_many_points(slope, gradcli):
    # x**2 + y**2 with y = 1: at x = 0, grad (0, 2), slope 2, direction (0, 1); at x = 1,
    # grad (2, 2), slope 2*sqrt(2), direction (1/sqrt(2), 1/sqrt(2)).
    shown = gradcli("slope", "x**2 + y**2", "--over", "x=0:1:2", "--y", "1", "--format", "csv")
    assert shown.exit_code == 0, shown.output
    header, *rows = list(csv.reader(shown.stdout.splitlines()))
    assert header == ["x", "slope", "direction.x", "direction.y"]
    expected = [[0, 2, 0, 1], [1, 2 * 2**0.5, 2**-0.5, 2**-0.5]]
    for row, wanted in zip(rows, expected, strict=True):
        assert [float(v) for v in row] == pytest.approx(wanted, rel=1e-15)


def test_the_example_command_has_help_options_and_errors(slope, gradcli):
    helped = gradcli("slope", "--help")
    assert helped.stdout.startswith("Usage: gradcli slope [OPTIONS] [SOURCE]")
    assert '$ gradcli slope "x**2 + y**2" --x 3 --y 4 --format plain' in helped.stdout
    for option in ("--wrt", "--format", "--precision", "--get", "--strict", "--var", "--file"):
        assert option in helped.stdout
    listed = gradcli("--help").stdout
    assert "slope" in listed.split("Commands:")[1]
    wrong = gradcli("slope", "x**2", "--x", "1", "--sigma", "2")
    assert wrong.exit_code == 2 and wrong.stderr.startswith("error: ")
    not_scalar = gradcli("slope", "[x, x]", "--x", "1")
    assert not_scalar.exit_code == 2 and "Traceback" not in not_scalar.output


def test_the_example_command_in_the_library_and_the_calculator(slope):
    report = api.slope("x**2 * y", {"x": 1, "y": 2})
    # grad (2xy, x**2) = (4, 1): |grad| = sqrt(17).
    assert float(report.slope) == pytest.approx(17**0.5, rel=1e-15)
    assert float(report.direction["y"]) == pytest.approx(1 / 17**0.5, rel=1e-15)
    assert gradcli.analysis.slope is slope.function
    from gradcli.cli.session import Session, Shown

    session = Session(fmt="plain")
    list(session.run("x = 3"))
    list(session.run("y = 4"))
    (shown,) = [o for o in session.run(":slope x**2 + y**2") if isinstance(o, Shown)]
    assert float(shown.result.slope) == 10
    (helped,) = session.run(":help")
    assert ":slope [EXPR]" in helped.text


# ----------------------------------------------------------------------------
# How to add an output format
# ----------------------------------------------------------------------------


@pytest.fixture
def markdown(monkeypatch):
    module = load("markdown", "gradcli.render.formats", monkeypatch)
    monkeypatch.setitem(formats.LOADED, "markdown", module.FORMAT)
    return module.FORMAT


def test_the_example_format_at_one_point(markdown, gradcli):
    # x**2 * y at (3, 2): value 18, d/dx = 2xy = 12, d/dy = x**2 = 9.
    shown = gradcli("grad", "x**2 * y", "--x", "3", "--y", "2", "--format", "markdown")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == [
        "| name | value |",
        "|---|---|",
        "| value | 18 |",
        "| grad.x | 12 |",
        "| grad.y | 9 |",
    ]
    # A report: the divergence of (x*y, y*z, z*x) at (1, 2, 3) is y + z + x = 6.
    report = gradcli("div", "[x*y, y*z, z*x]", "--x", "1", "--y", "2", "--z", "3",
                     "--format", "markdown")  # fmt: skip
    assert report.stdout.splitlines()[2] == "| div | 6 |"
    assert "markdown" in gradcli("grad", "--help").stdout
    from gradcli.cli.session import Session

    session = Session(fmt="plain")
    (chosen,) = session.run(":format markdown")
    assert session.format == "markdown", chosen


def test_the_example_format_at_many_points(markdown, gradcli):
    # x**2 at 0, 0.5, 1: the values 0, 0.25, 1 and the derivatives 2x = 0, 1, 2.
    shown = gradcli("grad", "x**2", "--over", "x=0:1:3", "--format", "markdown")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == [
        "| x | value | grad.x |",
        "|---|---|---|",
        "| 0 | 0 | 0 |",
        "| 0.5 | 0.25 | 1 |",
        "| 1 | 1 | 2 |",
    ]


def test_a_format_of_many_points_alone_writes_one_point_as_its_row(markdown, gradcli, monkeypatch):
    # The example's writer, in a format that renders nothing of one point itself (as csv):
    # one point is the one row many points would write of it.
    class Rows(formats.OutputFormat):
        name = "rows"

        def writer(self, stream, path, precision, rows):
            return markdown.writer(stream, path, precision, rows)

    monkeypatch.setitem(formats.LOADED, "rows", Rows())
    # x**2 * y at (3, 2): value 18, d/dx = 2xy = 12, d/dy = x**2 = 9.
    shown = gradcli("grad", "x**2 * y", "--x", "3", "--y", "2", "--format", "rows")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == ["| value | grad.x | grad.y |", "|---|---|---|",
                                         "| 18 | 12 | 9 |"]  # fmt: skip
    assert "rows" not in formats.one_point_names("render")  # not offered where rows are not


# ----------------------------------------------------------------------------
# How to add a file format
# ----------------------------------------------------------------------------


@pytest.fixture
def tsv(monkeypatch):
    module = load("tsv", "gradcli.render.formats", monkeypatch)
    monkeypatch.setitem(formats.LOADED, "tsv", module.FORMAT)
    return module.FORMAT


def test_the_example_file_format(tsv, gradcli, tmp_path):
    out = tmp_path / "rows.tsv"
    done = gradcli("grad", "x * y", "--over", "x=1:2:2", "--y", "3", "--output", str(out))
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("2 rows in ") and done.stdout.rstrip().endswith(str(out))
    # x*y with y = 3 at x = 1, 2: values 3, 6; d/dx = y = 3, d/dy = x = 1, 2.
    with open(out, newline="") as file:
        rows = list(csv.reader(file, delimiter="\t"))
    assert rows[0] == ["x", "value", "grad.x", "grad.y"]
    assert [[float(v) for v in row] for row in rows[1:]] == [[1, 3, 3, 1], [2, 6, 3, 2]]
    assert [p.name for p in tmp_path.iterdir()] == ["rows.tsv"]  # no temporary file left
    assert ".tsv" in formats.endings()
    refused = gradcli("grad", "x", "--over", "x=1:2:2", "--format", "tsv")
    assert refused.exit_code == 2 and "error: " in refused.stderr


# ----------------------------------------------------------------------------
# One module: the claim, checked
# ----------------------------------------------------------------------------


def _string_constants(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_a_declared_command_is_named_in_its_module_alone():
    declared = commands()
    assert declared, "the registry declares commands"
    modules = {path: _string_constants(path) for path in PACKAGE.rglob("*.py")}
    for name, command in declared.items():
        # Its module, and that of each other way it computes (minimize's --subject-to).
        functions = [command.function, *(v.function for v in command.variants)]
        own = {PACKAGE.parent / (f.__module__.replace(".", "/") + ".py") for f in functions}
        elsewhere = [
            str(path.relative_to(PACKAGE.parent))
            for path, strings in modules.items()
            if path not in own and name in strings and not _an_op_named(name, path)
        ]
        assert not elsewhere, f"the command {name} is named in {elsewhere} too"


#: The commands still written by hand in gradcli/cli/: the calculator and run (they
#: compute nothing on a program).
WRITTEN_BY_HAND = {"repl", "run"}
#: The computing commands, declared in gradcli/core/computing.py (``Computing``).
COMPUTING = {"eval", "grad", "jacobian", "hessian", "vjp", "jvp", "graph", "functions"}


def test_every_other_command_is_declared():
    declared = commands()
    for moved in ("check", "diff", "propagate", "taylor", "plot", "div", "curl", "laplacian",
                  "minimize", "solve", "critical", "implicit", "fit"):  # fmt: skip
        assert moved in declared
    computing = [c.name for c in COMPUTING_COMMANDS]
    assert set(computing) == COMPUTING and len(computing) == len(COMPUTING)
    assert set(cli.commands) - WRITTEN_BY_HAND == set(declared) | COMPUTING
    # As declared, in order: the computing commands first.
    assert list(cli.commands)[: len(computing)] == computing


def test_the_command_line_and_the_calculator_read_the_computing_declarations(gradcli):
    from gradcli.cli.session import COMMANDS as CALCULATOR

    for declared in COMPUTING_COMMANDS:
        command = cli.commands[declared.name]
        assert command.help == declared.help
        own = [p.opts[0] for p in command.params if isinstance(p, click.Option)]
        # Its own options first, in the declared order, then those every command takes.
        assert own[: len(declared.options)] == [f"--{name}" for name in declared.options]
        assert (declared.name in CALCULATOR) == (declared.calculator is not None)
        if declared.calculator is not None:
            assert CALCULATOR[declared.name].help == declared.calculator


def _an_op_named(name: str, path: Path) -> bool:
    # The op table's entries may share a command's name (div, the division; solve,
    # torch.linalg.solve): the engine and PyTorch's paths spell them.
    from gradcli.engine.ops import FUNCTIONS

    if path.is_relative_to(PACKAGE / "engine" / "ops"):
        return True
    engine_or_torch = [PACKAGE / "engine", *(PACKAGE / p for p in ("linalg", "special", "nn"))]
    return name in FUNCTIONS and any(path.is_relative_to(p) for p in engine_or_torch)


def test_each_format_module_declares_its_own_format():
    for name in formats.names():
        fmt = formats.get(name)
        assert isinstance(fmt, formats.OutputFormat) and fmt.name == name
        assert (PACKAGE / "render" / "formats" / f"{name}.py").exists()
