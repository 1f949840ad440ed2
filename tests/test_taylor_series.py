"""Taylor arithmetic (``engine/jet.py``) against mpmath and SymPy: every elementwise
function of the language, read from the op table, at points on each side of its
kinks; several variables; high orders; ``jvp --order``. Expected coefficients come
from mpmath's own differentiation at 50 digits, or from SymPy's series."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy

from gradcli.analysis import taylor
from gradcli.engine.ops import FUNCTIONS

mp = mpmath
#: mpmath's definition of each elementwise function of the language.
REFERENCE = {
    "abs": abs, "sign": mp.sign, "sgn": mp.sign, "sqrt": mp.sqrt, "exp": mp.exp, "expm1": mp.expm1,
    "log": mp.log, "log2": lambda x: mp.log(x, 2), "log10": mp.log10, "log1p": mp.log1p,
    "sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "asin": mp.asin, "acos": mp.acos,
    "atan": mp.atan, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "asinh": mp.asinh,
    "acosh": mp.acosh, "atanh": mp.atanh, "sigmoid": lambda x: 1 / (1 + mp.exp(-x)),
    "relu": lambda x: max(x, 0), "softplus": lambda x: mp.log(1 + mp.exp(x)), "erf": mp.erf,
    "floor": mp.floor, "ceil": mp.ceil, "round": mp.nint,
    "clamp": lambda x: min(max(x, -0.5), 0.5), "reciprocal": lambda x: 1 / x,
    "cbrt": lambda x: mp.sign(x) * mp.cbrt(abs(x)), "sec": mp.sec, "csc": mp.csc,
    "cot": mp.cot, "sinc": lambda x: mp.sinpi(x) / (mp.pi * x) if x else mp.mpf(1),
    "deg2rad": mp.radians, "rad2deg": mp.degrees, "gamma": mp.gamma, "lgamma": mp.loggamma,
    "digamma": mp.digamma, "erfc": mp.erfc, "erfinv": lambda x: mp.erfinv(x),
    "polygamma": lambda x: mp.polygamma(2, x), "factorial": mp.factorial, "ln": mp.log,
    "gelu": lambda x: x * (1 + mp.erf(x / mp.sqrt(2))) / 2,
    "silu": lambda x: x / (1 + mp.exp(-x)),
    "leaky_relu": lambda x: x if x > 0 else x / 100, "elu": lambda x: x if x > 0 else mp.expm1(x),
    "softsign": lambda x: x / (1 + abs(x)), "ndtr": mp.ncdf,
    "log_ndtr": lambda x: mp.log(mp.ncdf(x)), "ndtri": lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1),
}  # fmt: skip
CALL = {"clamp": "clamp(x, -0.5, 0.5)", "polygamma": "polygamma(2, x)"}
# Points inside each domain, on both sides of 0 where the domain allows.
POINTS = {
    "positive": (0.7, 2.3),
    "unit": (-0.6, 0.35),
    "above_one": (1.3, 3.1),
    "probability": (0.15, 0.8),
}
ELEMENTWISE = sorted(name for name, e in FUNCTIONS.items() if e.kind == "elementwise")


def _points(name):
    domain = FUNCTIONS[name].domain
    domain = domain[0] if domain else "positive"
    return POINTS.get(domain, (-0.7, 1.3))


def _expected(f, a, order):
    with mp.workdps(50):
        return [float(c) for c in mp.taylor(f, mp.mpf(a), order)]


def _assert_coefficients(got, want, rel=1e-12):
    scale = max(abs(w) for w in want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        # A coefficient that is 0 (sin's even ones at 0) is held to the largest one's scale.
        assert abs(g - w) <= rel * max(abs(w), 1e-3 * scale), (k, g, w)


def test_every_elementwise_function_has_a_reference():
    assert set(ELEMENTWISE) <= set(REFERENCE), set(ELEMENTWISE) - set(REFERENCE)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_coefficients_match_mpmath(name):
    for a in _points(name):
        report = taylor(CALL.get(name, f"{name}(x)"), {"x": a}, order=12)
        got = [t.coefficient for t in report.terms]
        _assert_coefficients(got, _expected(REFERENCE[name], a, 12), rel=1e-11)


def test_order_40_in_one_variable():
    f = "exp(sin(x))*cos(x)/(1 + x*x)"
    report = taylor(f, {"x": 0.3}, order=40)
    reference = _expected(lambda t: mp.exp(mp.sin(t)) * mp.cos(t) / (1 + t * t), 0.3, 40)
    _assert_coefficients([t.coefficient for t in report.terms], reference)


def test_order_10_in_three_variables_against_sympy():
    x, y, z = sympy.symbols("x y z")
    f = sympy.exp(sympy.sin(x)) * sympy.cos(y) * x * y / (1 + z * z)
    a = {"x": 0.5, "y": 0.3, "z": 0.2}
    report = taylor("exp(sin(x))*cos(y)*x*y/(1 + z*z)", a, order=10)
    assert len(report.terms) == math.comb(13, 3)
    point = {x: sympy.Rational(1, 2), y: sympy.Rational(3, 10), z: sympy.Rational(1, 5)}
    for term in report.terms[::7]:  # a spread of them, up to the order
        p = term.powers
        d = sympy.diff(f, x, p.get("x", 0), y, p.get("y", 0), z, p.get("z", 0))
        scale = math.prod(math.factorial(k) for k in p.values())
        want = float(sympy.N(d.subs(point), 30)) / scale
        assert term.coefficient == pytest.approx(want, rel=1e-12, abs=1e-300), p


def test_no_order_cap():
    report = taylor("1/(1 - x)", {"x": 0.5}, order=60)
    np.testing.assert_allclose([t.coefficient for t in report.terms], 2.0 ** np.arange(1, 62))


def test_an_op_without_a_series_rule_is_named():
    from gradcli.errors import GradcliError

    with pytest.raises(GradcliError, match="sort: no Taylor series rule"):
        taylor("sum(sort(x * w))", {"x": 0.5, "w": [1.0, 2.0]}, order=2, wrt=["x"])


def test_jvp_of_order_k_against_sympy():
    from gradcli import api

    s = sympy.symbols("s")
    # x and w move along their tangents, y stays fixed: d^k/ds^k f(x + s tx, w + s tw)
    x0, w0, tx, tw = [0.5, -0.3], [1.5, 2.0], [1.0, 0.25], [-0.5, 2.0]
    xs = [sympy.nsimplify(a) + s * sympy.nsimplify(t) for a, t in zip(x0, tx)]
    ws = [sympy.nsimplify(a) + s * sympy.nsimplify(t) for a, t in zip(w0, tw)]
    f = sum(sympy.exp(x * w) * sympy.tanh(x) + sympy.Max(x, w) * 3 for x, w in zip(xs, ws))
    for k in (2, 5):
        got = api.jvp(
            "sum(exp(x * w) * tanh(x) + maximum(x, w) * y)",
            {"x": x0, "w": w0, "y": 3.0},
            tangents={"x": tx, "w": tw},
            order=k,
        )
        want = float(sympy.N(sympy.diff(f, s, k).subs(s, 0), 30))
        assert float(got.jvp) == pytest.approx(want, rel=1e-12)


def test_jvp_order_through_the_command(gradcli_json):
    out = gradcli_json("jvp", "x**3", "--x", "[1, 2]", "--tangent", "x=[1, 1]", "--order", "3")
    assert out["jvp"] == [6.0, 6.0]  # d³/ds³ (x + s)**3 = 6


def test_a_scalar_against_a_vector_broadcasts():
    # x scalar, w fixed: sum(maximum(x, w) * x * w) = x*(1*... ) per entry, then summed
    report = taylor("sum(maximum(x, w) * x * w)", {"x": 0.5, "w": [0.2, 0.9]}, order=3, wrt=["x"])
    # x > 0.2: x*x*0.2; x < 0.9: 0.9*x*0.9 -> 0.2 x**2 + 0.81 x
    got = [t.coefficient for t in report.terms]
    np.testing.assert_allclose(got, [0.2 * 0.25 + 0.405, 0.2 + 0.81, 0.2, 0.0], atol=1e-15)
