"""The API the command line uses: compile_source, inputs, defaults, run, evaluate_constant."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gradcli
from gradcli.errors import GradcliError, Span
from gradcli.language import compile_source, evaluate_constant, grammar_path
from gradcli.language.evaluate import NonFinite

ROOT = Path(__file__).resolve().parent.parent


pytestmark = pytest.mark.usefixtures("float64")


def leaf(v):
    return gradcli.tensor(np.asarray(v, float), requires_grad=True)


# ----------------------------------------------------------------------------
# Inputs, free names, constants, defaults
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, inputs, free, constants",
    [
        ("(x+2)**2+3", ("x",), ("x",), ()),
        ("y * x + y", ("y", "x"), ("y", "x"), ()),
        ("x = [2, 3]; x @ x", ("x",), (), ()),
        ("W = randn(20, 1); b = zeros(1); h = W.sum() + b; h * t", ("W", "b", "t"), ("t",), ()),
        ("a = 2 * pi + sqrt(2); a", ("a",), (), ()),
        ("const c = 3; x = c * 2; y = x * c; y", ("x",), (), ("c",)),
        ("x = 2; k = zeros_like(x); k = k + x; k", ("x",), (), ()),
        ("f(t) = t**2 + s; f(3)", ("s",), ("s",), ()),
        ("f(t) = t**2; y = f(3); y", ("y",), (), ()),
        ("const c = 1; f(t) = c*t; y = f(3); y", ("y",), (), ("c",)),
        ("a = 1; f(t) = a*t; y = f(3); y", ("a",), (), ()),
        ("x = 2; x = x**2; x", ("x",), (), ()),
        ("k[0] = 1; k", ("k",), ("k",), ()),
        ("e * pi * inf * nan", (), (), ()),
    ],
)
def test_classification_of_names(text, inputs, free, constants):
    program = compile_source(text)
    assert program.inputs == inputs
    assert program.free == free
    assert program.constants == constants
    assert program.source == text


def test_defaults_evaluate_the_constant_assignments():
    program = compile_source("const c = 2\nx = [1, 2] * c\nW = randn(3, 2)\ny = x * t\ny")
    values = program.defaults(seed=0)
    assert set(values) == {"x", "W"}
    np.testing.assert_array_equal(values["x"], [2.0, 4.0])
    assert values["W"].shape == (3, 2) and values["W"].dtype == np.float64
    np.testing.assert_array_equal(program.defaults(seed=0)["W"], values["W"])
    assert not np.array_equal(program.defaults(seed=1)["W"], values["W"])
    gradcli.manual_seed(0)
    np.testing.assert_array_equal(program.defaults()["W"], values["W"])


def test_defaults_of_a_scalar_are_zero_dimensional_arrays():
    values = compile_source("x = pi / 4; sin(x)").defaults()
    assert isinstance(values["x"], np.ndarray) and values["x"].shape == ()
    assert values["x"] == pytest.approx(math.pi / 4)


def test_a_binding_overrides_the_program_value():
    program = compile_source("x = [2, 3]\ny = x * 2\ny.sum()")
    assert program.run({}).item() == 10.0
    x = leaf([1.0, 1.0])
    result = program.run({"x": x})
    assert result.item() == 4.0
    result.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_a_const_can_be_bound_but_is_never_differentiated():
    program = compile_source("const c = 3\nc * x")
    assert program.run({"x": leaf(2.0)}).item() == 6.0
    c = leaf(10.0)
    result = program.run({"x": leaf(2.0), "c": c})
    assert result.item() == 20.0
    result.backward()
    assert c.grad is None


def test_runs_build_fresh_graphs():
    program = compile_source("y = x**2\ny.sum()")
    for point in ([1.0, 2.0], [3.0, -1.0]):
        x = leaf(point)
        program.run({"x": x}).backward()
        np.testing.assert_array_equal(x.grad.numpy(), 2 * np.array(point))


def test_program_result_rules():
    assert compile_source("x = 1; y = 2").run({}).item() == 2.0  # the last assigned name
    assert compile_source("x = 1; x + 5; y = 2; y * 3").run({}).item() == 6.0
    assert compile_source("y = 2; y + 1; f(t) = t").run({}).item() == 3.0  # defs make no value
    assert compile_source("const c = 4").run({}).item() == 4.0
    k = compile_source("k = zeros(2); k[1] = 7").run({})
    np.testing.assert_array_equal(k.numpy(), [0.0, 7.0])


def test_user_functions_scope():
    program = compile_source("a = 10\nf(x, y) = x * y + a\ng(x) = f(x, x) - x\ng(3) + f(y=1, x=2)")
    assert program.run({}).item() == (9 + 10 - 3) + (2 + 10)
    # a parameter shadows an input of the same name
    program = compile_source("f(x) = x * 2\nf(3) + x")
    assert program.inputs == ("x",)
    assert program.run({"x": leaf(1.0)}).item() == 7.0


def test_variables_may_share_a_function_name():
    program = compile_source("t = 2\nt * t(eye(2)).sum()")
    assert program.run({}).item() == 4.0


def test_errors_carry_span_and_source():
    with pytest.raises(GradcliError) as info:
        compile_source("x +* 2", filename="prog.grad")
    err = info.value
    assert err.source == "x +* 2" and err.span == Span(1, 4, 1, 4)
    program = compile_source("log(x) + [1, 2] + [1, 2, 3]")
    with pytest.raises(GradcliError) as info:
        program.run({"x": leaf(1.0)})
    assert info.value.source == program.source and info.value.span.column == 17


def test_compile_source_keeps_the_filename():
    assert compile_source("1", filename="prog.grad").filename == "prog.grad"
    assert compile_source("1").filename == "<expr>"


# ----------------------------------------------------------------------------
# Watching for the first non-finite result
# ----------------------------------------------------------------------------


def test_watch_reports_the_first_operation_that_makes_nan_or_inf():
    program = compile_source("y = x - 1\nz = log(y) * 2\nz / 0")
    watch = []
    result = program.run({"x": leaf(1.0)}, watch_nonfinite=watch)
    assert math.isinf(result.item()) or math.isnan(result.item())
    assert watch == [NonFinite("log", Span(2, 5, 2, 7), nan=False)]


def test_watch_reports_the_first_nan_apart_from_the_inf_it_was_made_of():
    # 1/(x - 1) is inf at 1, twice that still inf, and sin(inf) nan.
    program = compile_source("y = 1 / (x - 1)\nsin(2 * y) + log(x)")
    watch = []
    assert math.isnan(program.run({"x": leaf(1.0)}, watch_nonfinite=watch).item())
    div = ("div", Span(1, 7, 1, 7))
    assert watch == [
        NonFinite(*div, nan=False),
        NonFinite("sin", Span(2, 1, 2, 3), True, "inf", div),
    ]


@pytest.mark.parametrize(
    "text, description, column",
    [
        ("1 + x / 0", "div", 7),
        ("sqrt(-x)", "sqrt", 1),
        ("x ** 1000 ** 2", "pow", 3),  # 1000 ** 2 is finite, x ** 1e6 is not
        ("[x, 0].log().sum()", "log", 8),
        ("0 * (x / 0)", "div", 8),
    ],
)
def test_watch_descriptions(text, description, column):
    watch = []
    compile_source(text).run({"x": leaf(3.0)}, watch_nonfinite=watch)
    assert [(w.description, w.span.column) for w in watch][:1] == [(description, column)]


def test_watch_ignores_operations_on_values_already_nonfinite():
    watch = []
    compile_source("inf * x + 1").run({"x": leaf(1.0)}, watch_nonfinite=watch)
    assert watch == []
    compile_source("[x[0], 2].sum()").run({"x": leaf([math.inf, 1.0])}, watch_nonfinite=watch)
    assert watch == []
    compile_source("(x / 0) * 2").run({"x": leaf(1.0)}, watch_nonfinite=watch)
    assert [w.description for w in watch] == ["div"]


def test_no_numpy_warnings_while_running():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile_source("log(x - 3) / 0").run({"x": leaf(1.0)})


# ----------------------------------------------------------------------------
# evaluate_constant
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("pi/4", math.pi / 4),
        ("[2, 3]", [2.0, 3.0]),
        ("[[1, 2], [3, 4]]", [[1.0, 2.0], [3.0, 4.0]]),
        ("-1.5e-3", -1.5e-3),
        ("2**10", 1024.0),
        ("exp(1) - e", 0.0),
    ],
)
def test_evaluate_constant(text, expected):
    result = evaluate_constant(text)
    assert isinstance(result, np.ndarray) and result.dtype == np.float64
    np.testing.assert_allclose(result, expected, atol=1e-15)


def test_evaluate_constant_randomness_is_seeded():
    a = evaluate_constant("randn(10, 20)", seed=3)
    assert a.shape == (10, 20)
    np.testing.assert_array_equal(a, evaluate_constant("randn(10, 20)", seed=3))
    assert not np.array_equal(a, evaluate_constant("randn(10, 20)", seed=4))
    r = evaluate_constant("rand(1000)", seed=0)
    assert r.min() >= 0 and r.max() < 1


# ----------------------------------------------------------------------------
# Packaging and start-up
# ----------------------------------------------------------------------------


def test_import_is_cheap():
    code = (
        "import sys, time; t = time.perf_counter(); import gradcli.language as L; "
        "L.compile_source('(x+2)**2+3'); "
        "print(sorted(m for m in ('lark', 'rich', 'click', 'sympy', 'torch') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


def test_grammar_ships_inside_the_package():
    """The wheel force-includes grammar/ as gradcli/grammar (pyproject.toml)."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"grammar" = "gradcli/grammar"' in pyproject
    assert grammar_path() == ROOT / "grammar" / "gradcli.lark"


def test_installed_wheel_parses_from_another_directory(tmp_path):
    pytest.importorskip("hatchling")
    wheel_dir = tmp_path / "wheel"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheel_dir),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr[-300:]}")
    import zipfile

    (wheel,) = wheel_dir.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "gradcli/grammar/gradcli.lark" in names
    assert "gradcli/language/_standalone_parser.py" in names
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = (
        "import gradcli.language as L, gradcli; print(L.__file__); print(L.grammar_path()); "
        "print(L.compile_source('(x+2)**2+3').run({'x': gradcli.tensor(2.0)}).item())"
    )
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": ""},
    )
    assert out.returncode == 0, out.stderr
    where, grammar, value = out.stdout.split()
    assert where.startswith(str(target)) and float(value) == 19.0
    assert grammar == str(target / "gradcli" / "grammar" / "gradcli.lark")
    assert time.perf_counter() - start < 30
