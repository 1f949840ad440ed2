"""gradcli.api's minimize, solve, critical, fit, div, curl and laplacian: the frozen
reports their commands print, with values from independent sources."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pytest

from gradcli import api


def plain(tree):
    """A report's tree as JSON would carry it: lists, dicts, numbers, strings."""
    if isinstance(tree, Mapping):
        return {k: plain(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [plain(v) for v in tree]
    if isinstance(tree, np.ndarray):
        return plain(tree.tolist())
    if isinstance(tree, np.generic):
        return tree.item()
    return tree


CASES = [
    ("minimize", "(1-x)**2 + 100*(y-x**2)**2", {"x": -1.2, "y": 1}, {}),
    ("solve", "[x**2 + y**2 - 4, x - y]", {"x": 1, "y": 2}, {}),
    ("critical", "x**3 - 3*x + y**2", {}, {"over": "x=-2:2 y=-2:2"}),
    ("fit", "b1*(1-exp(-b2*x))", {}, {"data": "samples/misra1a.csv"}),
    ("div", "[x*y, y*z, z*x]", {"x": 1, "y": 2, "z": 3}, {}),
    ("curl", "[x*y, y*z, z*x]", {"x": 1, "y": 2, "z": 3}, {}),
    ("laplacian", "x**2*y + z**3", {"x": 1, "y": 2, "z": 3}, {}),
]


def _call(name, source, point, extra):
    from gradcli.core.bindings import parse_over

    options = dict(extra)
    if "over" in options:
        options["over"] = [parse_over(o) for o in options["over"].split()]
    if name == "fit":
        options["params"] = {"b1": 500, "b2": 1e-4}
    return getattr(api, name)(source, point, **options)


def _command(name, source, point, extra):
    args = [name, source, *(f"--{k}={v!r}" for k, v in point.items())]
    for over in extra.get("over", "").split():
        args += ["--over", over]
    if name == "fit":
        args += ["--points", extra["data"], "--params", "b1=500,b2=1e-4"]
    return args


@pytest.mark.parametrize("name, source, point, extra", CASES, ids=[c[0] for c in CASES])
def test_each_function_returns_the_frozen_report_its_command_prints(
    gradcli_json, monkeypatch, name, source, point, extra
):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    report = _call(name, source, point, extra)
    assert report.command == name
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.source = "x"
    shown = gradcli_json(*_command(name, source, point, extra))
    tree = plain(report.as_tree())
    assert tree.keys() == shown.keys()
    for key, value in tree.items():
        if isinstance(value, str) or value is None:
            assert shown[key] == value, key
        else:
            np.testing.assert_allclose(
                np.array(_numbers(shown[key])), np.array(_numbers(value)), rtol=1e-12, err_msg=key
            )


def _numbers(tree):
    """The numbers of a tree, in order (booleans as 0 and 1; strings left out)."""
    if isinstance(tree, Mapping):
        return [n for v in tree.values() for n in _numbers(v)]
    if isinstance(tree, list):
        return [n for v in tree for n in _numbers(v)]
    if isinstance(tree, bool) or isinstance(tree, (int, float)):
        return [float(tree)]
    return []


def test_minimize_reaches_rosenbrocks_minimum():
    report = api.minimize("(1-x)**2 + 100*(y-x**2)**2", {"x": -1.2, "y": 1})
    # By hand: grad = (-2(1-x) - 400x(y-x²), 200(y-x²)) vanishes at (1, 1) only.
    assert abs(report.point["x"] - 1) < 1e-8 and abs(report.point["y"] - 1) < 1e-8
    assert report.classification == "local minimum" and report.converged


def test_solve_against_sympy():
    import sympy

    x = sympy.symbols("x", real=True)
    (root,) = [r for r in sympy.solve(x**3 - 2 * x - 5, x) if r.is_real]
    report = api.solve("x**3 - 2*x - 5", {"x": 2})
    assert float(report.point["x"]) == pytest.approx(float(sympy.N(root, 30)), rel=1e-14)


def test_fit_of_columns_given_as_arrays_against_curve_fit():
    import scipy.optimize

    x = np.linspace(0, 4, 30)
    y = 2.5 * np.exp(-1.3 * x) + 0.01 * np.sin(7 * x)

    def model(x, a, k):
        return a * np.exp(-k * x)

    def jac(x, a, k):
        return np.stack([np.exp(-k * x), -a * x * np.exp(-k * x)], -1)

    expected, covariance = scipy.optimize.curve_fit(model, x, y, p0=[1, 1], jac=jac)
    report = api.fit("a*exp(-k*x)", data={"x": x, "y": y}, params={"a": 1, "k": 1})
    got = [float(report.parameters["a"]), float(report.parameters["k"])]
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    errors = [float(report.standard_errors["a"]), float(report.standard_errors["k"])]
    np.testing.assert_allclose(errors, np.sqrt(np.diag(covariance)), rtol=1e-6)


def test_vector_calculus_by_hand():
    at = {"x": 1, "y": 2, "z": 3}
    # By hand: div [xy, yz, zx] = y + z + x; curl = (-y, -z, -x); lap(x²y + z³) = 2y + 6z.
    assert float(api.div("[x*y, y*z, z*x]", at).value) == 6
    np.testing.assert_array_equal(api.curl("[x*y, y*z, z*x]", at).value, [-2, -3, -1])
    assert float(api.laplacian("x**2*y + z**3", at).value) == 22


def test_the_analyses_load_with_their_first_use():
    import subprocess
    import sys

    code = (
        "import gradcli.api, sys; "
        "print('gradcli.analysis.optimize' in sys.modules, 'scipy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_each_function_stays_a_function_once_its_module_is_loaded():
    import importlib

    from gradcli import analysis
    from gradcli.analysis.commands import commands

    for name in ("minimize", "solve", "critical", "fit"):
        importlib.import_module(commands()[name].module)
        assert callable(getattr(api, name)) and getattr(api, name).__name__ == name
    # The registry's commands: their declaring modules loaded, each is still its function.
    for name, declared in commands().items():
        importlib.import_module(declared.module)
        # (diff's function is analysis.derivative: a module named diff would shadow it)
        assert getattr(api, name) is declared.function is getattr(analysis, name)
