"""``gradcli taylor``: coefficients from repeated differentiation, against SymPy's
series (one variable) and SymPy's partial derivatives over α! (several)."""

from __future__ import annotations

import math

import numpy as np
import pytest

sympy = pytest.importorskip("sympy", reason="the oracle of these tests")

from gradcli.analysis import taylor  # noqa: E402

X, Y = sympy.symbols("x y", real=True)

ONE_VARIABLE = [
    ("sin(x)", sympy.sin(X), 0.0, 7),
    ("exp(x) * cos(x)", sympy.exp(X) * sympy.cos(X), 0.3, 5),
    ("log(1 + x)", sympy.log(1 + X), 0.5, 6),
    ("1 / (1 + x**2)", 1 / (1 + X**2), -1.0, 6),
    ("sqrt(x) * tanh(x)", sympy.sqrt(X) * sympy.tanh(X), 2.0, 4),
    ("(x+2)**2+3", (X + 2) ** 2 + 3, 2.0, 3),
]


@pytest.mark.parametrize("source, f, a, order", ONE_VARIABLE, ids=[s for s, *_ in ONE_VARIABLE])
def test_one_variable_against_sympy_series(source, f, a, order):
    report = taylor(source, {"x": a}, order=order)
    h = sympy.Symbol("h")
    series = sympy.series(f.subs(X, a + h), h, 0, order + 1).removeO()
    expected = [float(series.coeff(h, k)) for k in range(order + 1)]
    got = [t.coefficient for t in report.terms]
    assert [dict(t.powers) for t in report.terms] == [{}] + [{"x": k} for k in range(1, order + 1)]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


MULTIVARIATE = [
    ("exp(x) * cos(y)", sympy.exp(X) * sympy.cos(Y), (0.2, 1.0), 3),
    ("x**2 * y + sin(x * y)", X**2 * Y + sympy.sin(X * Y), (0.5, -1.5), 4),
    ("log(x**2 + y**2)", sympy.log(X**2 + Y**2), (1.0, 2.0), 3),
]


@pytest.mark.parametrize("source, f, a, order", MULTIVARIATE, ids=[s for s, *_ in MULTIVARIATE])
def test_several_variables_against_sympy_derivatives(source, f, a, order):
    report = taylor(source, {"x": a[0], "y": a[1]}, order=order)
    point = {X: a[0], Y: a[1]}
    seen = set()
    for term in report.terms:
        i, j = term.powers.get("x", 0), term.powers.get("y", 0)
        seen.add((i, j))
        derivative = f
        if i:
            derivative = sympy.diff(derivative, X, i)
        if j:
            derivative = sympy.diff(derivative, Y, j)
        expected = float(derivative.subs(point)) / (math.factorial(i) * math.factorial(j))
        assert term.coefficient == pytest.approx(expected, rel=1e-9, abs=1e-12), term.powers
    assert seen == {(i, j) for i in range(order + 1) for j in range(order + 1 - i)}


def test_vector_input_entries_are_variables(gradcli_json):
    out = gradcli_json("taylor", "sum(w**3)", "--w", "[1, 2]", "--order", "3")
    # w0³ + w1³ at (1, 2): 9 + 3 h0 + 12 h1 + 3 h0² + 6 h1² + h0³ + h1³.
    assert out["polynomial"] == (
        "9 + 3*(w[0] - 1) + 12*(w[1] - 2) + 3*(w[0] - 1)**2 + 6*(w[1] - 2)**2"
        " + (w[0] - 1)**3 + (w[1] - 2)**3"
    )
    assert out["point"] == {"w[0]": 1, "w[1]": 2}


def test_the_polynomial_text(gradcli_json):
    out = gradcli_json("taylor", "(x+2)**2+3", "--x", "2", "--order", "3")
    assert out["polynomial"] == "19 + 8*(x - 2) + (x - 2)**2"
    negative = gradcli_json("taylor", "x**2", "--x", "-1.5")
    assert negative["polynomial"] == "2.25 - 3*(x + 1.5) + (x + 1.5)**2"


def test_other_inputs_stay_fixed(gradcli_json):
    out = gradcli_json("taylor", "x * y", "--x", "1", "--y", "3", "--wrt", "x", "--order", "2")
    assert out["polynomial"] == "3 + 3*(x - 1)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--x", "[1, 2]"], "taylor needs a scalar output"),
        (["--x", "randn(100)", "--order", "4"], "more than 2000: lower --order"),
    ],
)
def test_bad_input(gradcli, args, message):
    source = "sum(x**2)" if "randn(100)" in args else "x**2"
    result = gradcli("taylor", source, *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_table(gradcli):
    result = gradcli("taylor", "exp(x)*cos(y)", "--x", "0", "--y", "0", tty=True)
    assert "f ≈ 1 + x + 0.5*x**2 - 0.5*y**2" in result.stdout
    assert "│ y**2 │ -0.5        │" in result.stdout
