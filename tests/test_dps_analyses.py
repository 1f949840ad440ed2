"""``--dps N`` of taylor, solve, minimize and check, to N certified digits.

Expected digits come from mpmath at twice the digits (its functions, ``findroot``,
``diff``, ``taylor``), never from gradcli.
"""

from __future__ import annotations

import json

import mpmath
import pytest


def _plain(gradcli, *args, status=0):
    result = gradcli(*args, "--format", "plain")
    assert result.exit_code == status, result.output
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


def _digits(x, n: int) -> str:
    """``x`` (computed at 2n digits) to n significant digits, as gradcli prints it."""
    return mpmath.nstr(x, n, min_fixed=-5, max_fixed=n, strip_zeros=False)


def test_solve_gives_the_square_root_of_two_to_50_digits(gradcli):
    lines = _plain(gradcli, "solve", "x**2 - 2", "--x", "1", "--dps", "50")
    with mpmath.workdps(100):
        root = mpmath.sqrt(2)
        assert lines["point.x"] == _digits(root, 50)
        assert lines["determinant"] == _digits(2 * root, 50)
    assert lines["converged"] == "true"


def test_solve_a_system_to_30_digits(gradcli):
    # x = cos(y), y = x**3: mpmath's own Newton from the same start, at 60 digits.
    lines = _plain(
        gradcli, "solve", "[x - cos(y), y - x**3]", "--x", "1", "--y", "1", "--dps", "30"
    )
    with mpmath.workdps(60):
        x, y = mpmath.findroot([lambda x, y: x - mpmath.cos(y), lambda x, y: y - x**3], (1, 1))
        assert (lines["point.x"], lines["point.y"]) == (_digits(x, 30), _digits(y, 30))


def test_solve_reads_its_other_inputs_as_decimal_text(gradcli):
    # The root of x**3 = a with a = 0.1 exactly, not float64's 0.1000000000000000055...
    lines = _plain(gradcli, "solve", "x**3 - a", "--x", "1", "--a", "0.1", "--wrt", "x",
                   "--dps", "40")  # fmt: skip
    with mpmath.workdps(80):
        assert lines["point.x"] == _digits(mpmath.cbrt(mpmath.mpf("0.1")), 40)


def test_taylor_of_exp_gives_one_over_k_factorial_to_30_digits(gradcli):
    lines = _plain(gradcli, "taylor", "exp(x)", "--x", "0", "--order", "10", "--dps", "30")
    with mpmath.workdps(60):
        for k in range(11):
            assert lines[f"terms.{k}.coefficient"] == _digits(1 / mpmath.factorial(k), 30)


def test_taylor_in_two_variables_at_a_decimal_point(gradcli):
    lines = _plain(gradcli, "taylor", "sin(x)*exp(y)", "--x", "0.1", "--y", "0.2",
                   "--order", "3", "--dps", "25")  # fmt: skip
    with mpmath.workdps(50):
        x, y = mpmath.mpf("0.1"), mpmath.mpf("0.2")
        # The coefficient of x**i y**j: sin's i-th and exp's j-th derivatives over i! j!.
        sin_k = [mpmath.sin(x), mpmath.cos(x), -mpmath.sin(x), -mpmath.cos(x)]
        monomials = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2),
                     (0, 3)]  # fmt: skip
        for k, (i, j) in enumerate(monomials):
            want = sin_k[i] * mpmath.exp(y) / (mpmath.factorial(i) * mpmath.factorial(j))
            assert lines[f"terms.{k}.coefficient"] == _digits(want, 25), (i, j)
    assert (
        lines["terms.4.monomial"]
        == "(x - 0.1000000000000000000000000)*(y - 0.2000000000000000000000000)"
    )


def test_taylor_of_a_quotient_against_mpmaths_taylor(gradcli):
    lines = _plain(gradcli, "taylor", "sin(x)/(1 + x**2)", "--x", "0.3", "--order", "5",
                   "--dps", "30")  # fmt: skip
    with mpmath.workdps(60):
        f = lambda x: mpmath.sin(x) / (1 + x**2)  # noqa: E731
        for k, want in enumerate(mpmath.taylor(f, mpmath.mpf("0.3"), 5)):
            assert lines[f"terms.{k}.coefficient"] == _digits(want, 30), k


def test_taylor_refuses_an_order_whose_nested_passes_would_take_minutes(gradcli):
    result = gradcli("taylor", "sin(x)/(1 + x**2)", "--x", "0.3", "--order", "12", "--dps", "10")
    assert result.exit_code == 2
    assert "--order 12 at --dps: the derivatives of degree" in result.output


def test_minimize_gives_the_minimiser_and_minimum_to_40_digits(gradcli):
    lines = _plain(gradcli, "minimize", "(x - 1/3)**2 + cos(y)", "--x", "0", "--y", "3",
                   "--dps", "40")  # fmt: skip
    with mpmath.workdps(80):
        assert lines["point.x"] == _digits(mpmath.mpf(1) / 3, 40)
        assert lines["point.y"] == _digits(mpmath.pi, 40)
    assert lines["value"] == "-1.000000000000000000000000000000000000000"
    assert lines["converged"] == "true"


def test_minimize_a_minimum_that_is_no_simple_number(gradcli):
    # x**4 - 3x + exp(x/5): its minimiser solves 4x**3 - 3 + exp(x/5)/5 = 0.
    lines = _plain(gradcli, "minimize", "x**4 - 3*x + exp(x/5)", "--x", "1", "--dps", "30")
    with mpmath.workdps(60):
        f = lambda x: x**4 - 3 * x + mpmath.exp(x / 5)  # noqa: E731
        x = mpmath.findroot(lambda x: mpmath.diff(f, x), 0.8)
        assert (lines["point.x"], lines["value"]) == (_digits(x, 30), _digits(f(x), 30))


def test_check_at_30_digits_against_mpmaths_derivative(gradcli):
    lines = _plain(gradcli, "check", "sin(x)*exp(y)", "--x", "0.5", "--y", "0.25",
                   "--dps", "30")  # fmt: skip
    with mpmath.workdps(60):
        x, y = mpmath.mpf("0.5"), mpmath.mpf("0.25")
        dx, dy = mpmath.cos(x) * mpmath.exp(y), mpmath.sin(x) * mpmath.exp(y)
    assert lines["checks.grad.x.engine"] == lines["checks.grad.x.expected"] == _digits(dx, 30)
    assert lines["checks.grad.y.engine"] == lines["checks.grad.y.expected"] == _digits(dy, 30)
    assert lines["passed"] == "true"


def test_check_at_a_kink_disagrees_and_exits_1(gradcli):
    # relu'(0) is 0 by convention; the central difference is 1/2.
    lines = _plain(gradcli, "check", "relu(x)", "--x", "0", "--dps", "10", status=1)
    assert lines["checks.grad.x.engine"] == "0"
    assert lines["checks.grad.x.expected"] == "0.5000000000"
    assert lines["passed"] == "false"


def test_json_gives_the_digits_as_strings(gradcli):
    result = gradcli("solve", "x**2 - 2", "--x", "1", "--dps", "20", "--format", "json")
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)
    assert tree["point"]["x"] == "1.4142135623730950488"
    assert tree["converged"] is True


@pytest.mark.parametrize(
    "args, said",
    [
        (["taylor", "exp(x)", "--x", "0", "--exact"], "--exact cannot go with --dps"),
        (["taylor", "exp(x)", "--x", "0", "--precision", "3"], "--precision cannot go with"),
        (["solve", "x**2 - 2", "--x", "1", "--dtype", "float32"], "--dtype cannot go with"),
        (["solve", "x**2 - a", "--x", "1", "--over", "a=1:2:2"], "many points are float64-only"),
        (["solve", "x**2 - 2", "--x", "1", "--sensitivity"], "--sensitivity cannot go with"),
        (["minimize", "x**2", "--x", "1", "--covariance"], "--covariance cannot go with"),
        (["minimize", "x**2", "--x", "1", "--bounds", "x=0:2"], "--bounds cannot go with"),
        (["minimize", "x**2", "--x", "1", "--subject-to", "x >= 1"], "--subject-to cannot go"),
        (["check", "x**2", "--x", "1", "--grad", "x=2*x"], "--grad cannot go with --dps"),
        (["check", "x**2", "--x", "1", "--order", "2"], "--order 2 cannot go with --dps"),
        (["check", "x**2", "--x", "1", "--eps", "1e-3"], "--eps cannot go with --dps"),
        (["solve", "x**2 - 2", "--x", "@v.npy"], "not files"),
    ],
)
def test_options_that_make_no_sense_at_a_working_precision_are_refused(gradcli, args, said):
    result = gradcli(*args, "--dps", "10")
    assert result.exit_code == 2
    assert said in result.output
    assert "Traceback" not in result.output


def test_a_singular_hessian_at_the_working_precision_says_so(gradcli):
    result = gradcli("minimize", "x**2 + 0*y", "--x", "1", "--y", "1", "--dps", "10")
    assert result.exit_code == 2
    assert "Newton's method met a singular Hessian at 25 working digits" in result.output


def test_solve_that_float64_cannot_start_says_so(gradcli):
    result = gradcli("solve", "x**2 + 1", "--x", "1", "--dps", "10")
    assert result.exit_code == 2
    assert "float64's solve, which did not converge" in result.output
