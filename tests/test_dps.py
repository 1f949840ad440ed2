"""``--dps N``: eval, grad, jacobian, hessian, vjp and jvp in mpmath, to N certified digits.

Expected digits come from mpmath itself at twice the precision or more (its functions and
``mpmath.diff``, which owes nothing to gradcli's rules), never from gradcli.
"""

from __future__ import annotations

import json

import mpmath
import pytest

from gradcli import api
from gradcli.errors import GradcliError


def _plain(gradcli, *args):
    result = gradcli(*args, "--format", "plain")
    assert result.exit_code == 0, result.output
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


def _close(text: str, want, digits: int) -> None:
    """``text`` is ``want`` to ``digits`` significant digits."""
    with mpmath.workdps(2 * digits + 20):
        got = mpmath.mpf(text)
        assert abs(got - want) <= abs(want) * mpmath.mpf(10) ** -digits, (text, want)


def test_ramanujans_constant_to_40_digits(gradcli):
    lines = _plain(gradcli, "eval", "exp(pi*sqrt(163))", "--dps", "40")
    with mpmath.workdps(80):
        want = mpmath.nstr(mpmath.exp(mpmath.pi * mpmath.sqrt(163)), 40)
    assert lines == {"value": "262537412640768743.9999999999992500725972"}
    assert lines["value"] == want


def test_a_cancelling_gradient_to_50_digits(gradcli):
    """(1 - cos x)/x**2 at 1e-8: float64's gradient has no correct digit."""
    lines = _plain(gradcli, "grad", "(1 - cos(x))/x**2", "--x", "1e-8", "--dps", "50")
    with mpmath.workdps(100):
        x = mpmath.mpf("1e-8")
        f = lambda t: (1 - mpmath.cos(t)) / t**2  # noqa: E731
        value, slope = f(x), mpmath.diff(f, x)
    assert len(lines["grad.x"].split("e")[0].replace("-", "").replace(".", "")) == 50
    _close(lines["value"], value, 49)
    _close(lines["grad.x"], slope, 48)


def test_bindings_and_literals_are_read_as_decimal_text(gradcli):
    # 0.1 is one tenth to every digit: float64's 0.1 times 3 is 0.3000000000000000444...
    assert _plain(gradcli, "eval", "3*x - 0.2", "--x", "0.1", "--dps", "32") == {
        "value": "0.10000000000000000000000000000000"
    }
    assert _plain(gradcli, "eval", "x", "--x", "[0.1, 1e-3, pi/4]", "--dps", "12") == {
        "value": "0.100000000000 0.00100000000000 0.785398163397"
    }


def test_json_gives_every_number_as_a_string(gradcli):
    result = gradcli("grad", "x**2 * y", "--x", "0.1", "--y", "3", "--dps", "12",
                     "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "value": "0.0300000000000",
        "grad": {"x": "0.600000000000", "y": "0.0100000000000"},
    }


def test_jacobian_hessian_vjp_and_jvp_agree_with_mpmath(gradcli):
    f = lambda x, y: [mpmath.sin(x) * y, mpmath.exp(x / y)]  # noqa: E731
    program = "stack([sin(x)*y, exp(x/y)])"
    jacobian = _plain(gradcli, "jacobian", program, "--x", "0.3", "--y", "1.7", "--dps", "30")
    with mpmath.workdps(60):
        x, y = mpmath.mpf("0.3"), mpmath.mpf("1.7")
        by_x = [mpmath.diff(lambda t, k=k: f(t, y)[k], x) for k in range(2)]
        by_y = [mpmath.diff(lambda t, k=k: f(x, t)[k], y) for k in range(2)]
    for text, want in zip(jacobian["jacobian.x"].split(), by_x):
        _close(text, want, 29)
    for text, want in zip(jacobian["jacobian.y"].split(), by_y):
        _close(text, want, 29)

    vjp = _plain(gradcli, "vjp", program, "--x", "0.3", "--y", "1.7", "--grad-output",
                 "[2, -1]", "--dps", "30")  # fmt: skip
    jvp = _plain(gradcli, "jvp", program, "--x", "0.3", "--y", "1.7", "--tangent", "x=1",
                 "--tangent", "y=0.5", "--dps", "30")  # fmt: skip
    with mpmath.workdps(60):
        _close(vjp["vjp.x"], 2 * by_x[0] - by_x[1], 29)
        for text, k in zip(jvp["jvp"].split(), range(2)):
            _close(text, by_x[k] + by_y[k] / 2, 29)

    hessian = _plain(gradcli, "hessian", "x**3*y + sin(x*y)", "--x", "0.1", "--y", "2",
                     "--dps", "30")  # fmt: skip
    g = lambda x, y: x**3 * y + mpmath.sin(x * y)  # noqa: E731
    with mpmath.workdps(60):
        point = (mpmath.mpf("0.1"), mpmath.mpf(2))
        for key, orders in [("x.x", (2, 0)), ("x.y", (1, 1)), ("y.x", (1, 1)), ("y.y", (0, 2))]:
            _close(hessian[f"hessian.{key}"], mpmath.diff(g, point, orders), 29)


def test_digits_that_never_settle_are_said(gradcli):
    """The logistic map doubles an error at each step: 1500 steps lose some 450 digits, more
    than the working precision --dps 5 may reach, so gradcli says how many it certified."""
    program = "y = x\nfor i in range(1500):\n    y = 4*y*(1 - y)\ny"
    result = gradcli("eval", program, "--x", "0.3", "--dps", "5", "--format", "plain")
    assert result.exit_code == 0, result.output
    assert "only 0 significant digits are certified" in result.stderr
    zero = gradcli("eval", "sin(pi)", "--dps", "20", "--format", "plain")
    assert zero.stdout == "value 0\n"
    assert "is 0 to within 1e-265" in zero.stderr


@pytest.mark.parametrize("x", ["1e-100", "10**-100"])
def test_a_cancellation_of_a_tiny_input_is_computed_at_its_scale(x):
    """exp(x) - 1 - x - x**2/2 at 1e-100 cancels some 300 digits: working precisions
    below 100 digits would all agree on -1e200; the first one has the exponent's 100 digits
    more, and the digits printed are mpmath's at 700."""
    result = api.precise("eval", "(exp(x) - 1 - x - x**2/2)/x**3", {"x": x}, 40)
    with mpmath.workdps(700):
        t = mpmath.mpf("1e-100")
        want = (mpmath.exp(t) - 1 - t - t**2 / 2) / t**3
    assert result.certified == 40 and not result.warnings
    _close(result.sections["value"], want, 39)


@pytest.mark.parametrize(
    "args, message",
    [
        (["eval", "eigvalsh(A)", "--A", "[[2, 1], [1, 3]]"], "error: --dps: eigvalsh has no"),
        (["eval", "randn(3)"], "error: --dps: randn has no multiprecision form"),
        (["eval", "x", "--x", "1", "--over", "x=0:1:3"], "--points, --over and Dask are float64"),
        (["eval", "x", "--x", "@values.npy"], "--dps reads numbers as decimal text"),
        (["eval", "2+3j"], "complex numbers are computed in float64 only"),
        (["grad", "x", "--x", "1", "--steps"], "--dps does not take --steps"),
        (["eval", "integrate(t -> exp(-t**2), 0, 1)"], "--dps: integrate has no multiprecision"),
        (["fit", "a*x", "--a", "1"], "fit has no option --dps"),
        (["critical", "x**2", "--x", "1"], "critical has no option --dps"),
    ],
)
def test_what_dps_does_not_take_is_refused_in_one_line(gradcli, args, message):
    result = gradcli(*args, "--dps", "10")
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_a_division_by_zero_is_inf_or_nan_as_float64s(gradcli):
    assert _plain(gradcli, "eval", "[1/x, x/x, -1/x]", "--x", "0", "--dps", "10") == {
        "value": "inf nan -inf"
    }


def test_masks_and_choices_keep_every_digit(gradcli):
    lines = _plain(gradcli, "grad", "where(x > 0, x**2, x/3) + sum(relu(y) * (y > 0))",
                   "--x", "-0.5", "--y", "[0.1, -2]", "--dps", "25")  # fmt: skip
    with mpmath.workdps(50):
        third = mpmath.mpf(1) / 3
        _close(lines["value"], mpmath.mpf("-0.5") / 3 + mpmath.mpf("0.1"), 24)
        _close(lines["grad.x"], third, 24)
    assert lines["grad.y"] == "1.000000000000000000000000 0"


def test_an_input_the_program_defines_is_read_at_the_working_precision(gradcli):
    """``a = 0.1`` in the program: one tenth, an input like a bound one (--a overrides it)."""
    assert _plain(gradcli, "grad", "a = 0.1\na**2 * x", "--x", "2", "--dps", "20") == {
        "value": "0.020000000000000000000",
        "grad.a": "0.40000000000000000000",
        "grad.x": "0.010000000000000000000",
    }
    lines = _plain(gradcli, "eval", "a = 0.1\na**2", "--a", "1/3", "--dps", "20")
    with mpmath.workdps(40):
        _close(lines["value"], mpmath.mpf(1) / 9, 19)


def _programs():
    bindings = {"x": "[0.3, -0.7]", "y": "[1.5, 2]", "A": "[[2, 0.5], [0.5, 1]]"}
    from gradcli.engine.ops import FUNCTIONS

    for name, entry in sorted(FUNCTIONS.items()):
        if entry.mp is None:
            continue
        for args in ("x", "x, y", "A", "x, 1"):
            yield f"sum({name}({args}))", {k: v for k, v in bindings.items() if k in args}


def test_every_function_agrees_with_float64_in_a_program():
    """Each function with a multiprecision form, called as a program calls it: --dps's value
    and gradient agree with float64's (where both take the call) to float64's digits."""
    import numpy as np

    compared = 0
    for source, bindings in _programs():
        try:
            plain = api.gradient(source, dict(bindings))
        except GradcliError:  # a call the function does not take (sin(x, 1))
            continue
        precise = api.precise("grad", source, dict(bindings), 12)
        compared += 1
        value = float(precise.sections["value"])
        assert np.isclose(value, float(plain.value), rtol=1e-9, atol=1e-12, equal_nan=True), source
        for name, grad in plain.grad.items():
            got = [float(t) for t in np.ravel(precise.sections["grad"][name])]
            assert np.allclose(got, np.ravel(grad), rtol=1e-8, atol=1e-10, equal_nan=True), source
    assert compared > 150
