"""``gradcli taylor``: coefficients from repeated differentiation, against SymPy's
series (one variable) and SymPy's partial derivatives over α! (several)."""

from __future__ import annotations

import json
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


# ----- --exact and --format latex -----

EXACT = [
    ("exp(x)", sympy.exp(X), 0, 8),
    ("log(1 + x) - 2*atan(x)", sympy.log(1 + X) - 2 * sympy.atan(X), 0, 9),
    ("1 / (3 - x)", 1 / (3 - X), 0, 6),
    ("(x+2)**5 / 7", (X + 2) ** 5 / 7, 1, 5),
    ("sin(x) * cosh(x)", sympy.sin(X) * sympy.cosh(X), 0, 11),
]


@pytest.mark.parametrize("source, f, a, order", EXACT, ids=[s for s, *_ in EXACT])
def test_exact_coefficients_are_sympys_series(source, f, a, order):
    report = taylor(source, {"x": float(a)}, order=order, exact=True)
    h = sympy.Symbol("h")
    series = sympy.expand(sympy.series(f.subs(X, a + h), h, 0, order + 1).removeO())
    expected = [sympy.Rational(series.coeff(h, k)) for k in range(order + 1)]
    got = [sympy.Rational(t.fraction.numerator, t.fraction.denominator) for t in report.terms]
    assert got == expected
    assert report.warnings == ()


def test_exact_in_several_variables_is_sympys_derivatives_over_factorials():
    f = sympy.exp(X) * sympy.cos(Y) + (X - Y) ** 3 / 9
    report = taylor("exp(x) * cos(y) + (x - y)**3 / 9", {"x": 0.0, "y": 0.0}, order=4, exact=True)
    for term in report.terms:
        i, j = term.powers.get("x", 0), term.powers.get("y", 0)
        d = f
        if i:
            d = sympy.diff(d, X, i)
        if j:
            d = sympy.diff(d, Y, j)
        expected = d.subs({X: 0, Y: 0}) / (sympy.factorial(i) * sympy.factorial(j))
        assert sympy.Rational(str(term.fraction)) == expected, term.powers


def test_rational_recovers_fractions_to_the_working_precision_and_nothing_else():
    from fractions import Fraction

    from gradcli.analysis.series import rational

    assert rational(1 / math.factorial(12)) == Fraction(1, math.factorial(12))  # height 4.8e8
    assert rational(1 / math.factorial(13)) is None  # height 6.2e9: above 1e9
    assert rational(0.1) == Fraction(1, 10)
    assert rational(-2 / 3) == Fraction(-2, 3)
    assert rational(2 / 3 + 1e-11) is None  # 1.5e-11 relative: farther than 1e-12
    assert rational(0.0) == 0 and rational(-0.0) == 0
    for irrational in (math.pi, math.sqrt(2), math.e, 0.7234567891234, 1e-30, math.nan):
        assert rational(irrational) is None, irrational


def test_exact_keeps_the_other_coefficients_as_floats_and_says_so(gradcli):
    result = gradcli(
        "taylor", "exp(x) * cos(y) + sqrt(2)*x", "--x", "0", "--y", "0", "--exact",
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["polynomial"] == f"1 + {1 + math.sqrt(2)!r}*x + x**2/2 - y**2/2"
    assert [t["exact"] for t in out["terms"]] == ["1", None, "0", "1/2", "0", "-1/2"]
    assert out["terms"][1]["coefficient"] == 1 + math.sqrt(2)
    assert "note: exact: the coefficient of x is not a fraction to 1e-12" in result.stderr
    shifted = gradcli("taylor", "sin(x)", "--x", "1", "--order", "1", "--exact")
    assert "coefficients of the constant, (x - 1) are not fractions" in shifted.stderr


def test_exact_in_plain_and_the_table(gradcli):
    plain = gradcli("taylor", "exp(x)", "--x", "0", "--order", "4", "--exact", "--format", "plain")
    lines = plain.stdout.splitlines()
    assert "polynomial 1 + x + x**2/2 + x**3/6 + x**4/24" in lines
    assert "terms.4.exact 1/24" in lines and "terms.4.coefficient 0.041666666666666664" in lines
    table = gradcli("taylor", "1/(1-x)**2", "--x", "0", "--order", "2", "--exact", tty=True)
    assert "f ≈ 1 + 2*x + 3*x**2" in table.stdout
    table = gradcli("taylor", "cosh(x)", "--x", "0", "--order", "2", "--exact", tty=True)
    assert "│ x**2 │ 1/2         │" in table.stdout


@pytest.mark.parametrize("source, f", [(s, f) for s, f, a, _ in EXACT if a == 0])
def test_latex_of_an_exact_series_at_0_is_sympys(gradcli, source, f):
    result = gradcli("taylor", source, "--x", "0", "--order", "5", "--exact", "--format", "latex")
    assert result.exit_code == 0, result.output
    series = sympy.series(f, X, 0, 6).removeO()
    expected = sympy.latex(series, order="rev-lex")
    if expected.startswith("- "):  # SymPy spaces a leading minus
        expected = "-" + expected[2:]
    assert result.stdout == expected + "\n"


def test_latex_of_floats_shifted_points_and_entries(gradcli):
    def latex(*args):
        result = gradcli("taylor", *args, "--format", "latex")
        assert result.exit_code == 0, result.output
        return result.stdout

    # cos(1) = 0.5403023, sin(1) = 0.8414710; x**2 at -1.5: 2.25 - 3 (x + 1.5) + (x + 1.5)**2.
    assert latex("cos(x)", "--x", "1", "--precision", "4") == (
        "0.5403 - 0.8415 \\left(x - 1\\right) - 0.2702 \\left(x - 1\\right)^{2}\n"
    )
    assert (
        latex("x**2", "--x", "-1.5")
        == "2.25 - 3 \\left(x + 1.5\\right) + \\left(x + 1.5\\right)^{2}\n"
    )
    assert latex("w[0]**2 * w[1]", "--w", "[0, 0]", "--order", "3") == "w_{0}^{2} w_{1}\n"
    assert latex("exp(sigma)", "--sigma", "0", "--order", "1") == "1 + \\mathrm{sigma}\n"
    assert latex("1e-20 * x + 2.5e-30 * x**2", "--x", "0") == (
        "10^{-20} x + 2.5 \\cdot 10^{-30} x^{2}\n"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--over", "x=0:1:2", "--exact"], "--exact is for one point"),
        (["--over", "x=0:1:2", "--format", "latex"], "--format latex is for one point"),
        (["--x", "0", "--format", "latex", "--get", "value"], "leave out --format latex"),
    ],
)
def test_exact_and_latex_are_for_one_point(gradcli, args, message):
    result = gradcli("taylor", "exp(x)", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
