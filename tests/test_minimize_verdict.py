"""minimize's verdict: converged means the first-order conditions hold at the end
point (the projected gradient within gtol * max(1, |f|)), whatever SciPy's message;
the end point is polished by Newton steps first. Expected points by hand or from
SciPy given hand-written derivatives."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.cli.session import Problem, Session

# A logistic regression's negative log-likelihood: trust-exact reaches its optimum
# with |grad f| ~ 1e-9 and says "A bad approximation caused failure to predict
# improvement".
XS = [0.5, 1.2, -0.3, 2.0, -1.1, 0.8, 1.5, -0.7, 0.1, 2.4]
TS = [1, 1, 0, 1, 0, 0, 1, 0, 1, 1]
LOGISTIC = f"""const x = {XS}
const t = {TS}
a = 0
b = 0
sum(log(1 + exp(a + b*x)) - t*(a + b*x))"""


def _logistic_by_scipy():
    import scipy.optimize

    x, t = np.array(XS), np.array(TS, dtype=float)

    def f(v):
        z = v[0] + v[1] * x
        return np.sum(np.logaddexp(0, z) - t * z)

    def g(v):
        r = 1 / (1 + np.exp(-(v[0] + v[1] * x))) - t
        return np.array([r.sum(), (r * x).sum()])

    return scipy.optimize.minimize(f, [0.0, 0.0], jac=g, method="bfgs", tol=1e-13).x


def _holds(shown):
    return shown["converged"] and shown["scaled_gradient"] <= shown["gradient_tolerance"]


def test_a_true_minimum_that_scipy_calls_a_bad_approximation_has_converged(gradcli, gradcli_json):
    # By hand: d/dx (-x e^-x) = (x - 1) e^-x vanishes at 1, where f'' = e^-1 > 0.
    result = gradcli("minimize", "-x*exp(-x)", "--x", "1.5", "--format", "plain")
    assert result.exit_code == 0, result.output
    shown = gradcli_json("minimize", "-x*exp(-x)", "--x", "1.5")
    assert shown["point"]["x"] == pytest.approx(1, abs=1e-8) and _holds(shown)
    assert shown["message"] == "A bad approximation caused failure to predict improvement."
    assert shown["gradient_tolerance"] == pytest.approx(np.sqrt(np.finfo(float).eps))


def test_a_maximum_that_scipy_calls_a_bad_approximation_has_converged(gradcli_json):
    # By hand: grad (x e^(-x²-y²)) = e^(...) (1 - 2x², -2xy) vanishes at (1/sqrt 2, 0).
    shown = gradcli_json("minimize", "x*exp(-x**2-y**2)", "--x", "0.5", "--y", "0.3", "--maximize")
    assert shown["point"]["x"] == pytest.approx(1 / np.sqrt(2), abs=1e-8)
    assert abs(shown["point"]["y"]) < 1e-8 and _holds(shown)
    assert shown["classification"] == "local maximum"


def test_a_logistic_likelihood_against_scipy_with_the_hand_gradient(gradcli_json):
    shown = gradcli_json("minimize", LOGISTIC)
    assert _holds(shown)
    expected = _logistic_by_scipy()
    np.testing.assert_allclose([shown["point"]["a"], shown["point"]["b"]], expected, atol=1e-6)


def test_a_normal_likelihood_reaches_the_mean_and_the_biased_sd(gradcli_json):
    y = np.array([2.1, 3.4, 1.9, 4.2, 2.8, 3.3, 2.5, 3.9])
    source = f"const y = {y.tolist()}\nmu = 1\nsigma = 2\n"
    source += "numel(y)*log(sigma) + sum((y - mu)**2)/(2*sigma**2)"
    shown = gradcli_json("minimize", source)
    # By hand: the MLE is the mean and sqrt(mean((y - mean)²)).
    assert shown["point"]["mu"] == pytest.approx(y.mean(), rel=1e-12)
    assert shown["point"]["sigma"] == pytest.approx(y.std(), rel=1e-10)
    assert _holds(shown)


def test_the_calculator_minimize_says_no_error_at_a_true_optimum():
    s = Session()
    list(s.run("x = 1.5"))
    outputs = list(s.run(":minimize -x*exp(-x)"))
    assert not [o for o in outputs if isinstance(o, Problem)], outputs


def test_an_end_point_short_of_the_conditions_is_polished_by_newton_steps(gradcli_json):
    # CG with a loose tolerance stops with |grad f| ~ 1e-4; Newton steps on the exact
    # Hessian finish the job. By hand: the minimum of exp(x-1) + exp(1-y) + (x-y)² has
    # e^(x-1) = e^(1-y) = -2(x-y), so x + y = 2.
    shown = gradcli_json("minimize", "exp(x-1) + exp(1-y) + (x-y)**2", "--x", "0", "--y", "0",
                         "--method", "cg", "--tol", "1e-3")  # fmt: skip
    assert shown["polish_steps"] >= 1 and _holds(shown)
    assert shown["point"]["x"] + shown["point"]["y"] == pytest.approx(2, abs=1e-7)


def test_a_bound_held_with_its_gradient_pointing_out_counts_as_zero(gradcli_json):
    # By hand: (x-3)² on [-1, 2] is least at 2, where f' = -2 points past the bound.
    shown = gradcli_json("minimize", "(x-3)**2", "--x", "0", "--bounds", "x=-1:2")
    assert shown["point"]["x"] == 2 and shown["gradient_norm"] == pytest.approx(2)
    assert shown["scaled_gradient"] == 0 and shown["converged"]
    # Maximised, the bound at 2 holds the maximum of -(x-3)² too.
    shown = gradcli_json("minimize", "-(x-3)**2", "--x", "0", "--bounds", "x=-1:2", "--maximize")
    assert shown["point"]["x"] == 2 and shown["scaled_gradient"] == 0 and shown["converged"]


def test_not_converged_says_which_condition_fails_and_keeps_scipys_message(gradcli):
    result = gradcli("minimize", "(1-x)**2 + 100*(y-x**2)**2", "--x", "-1.2", "--y", "1",
                     "--max-iter", "2", "--format", "plain")  # fmt: skip
    assert result.exit_code == 1
    assert "the first-order conditions do not hold" in result.stderr
    assert "SciPy: Maximum number of iterations has been exceeded." in result.stderr


def test_gtol_is_the_tolerance_held_to(gradcli):
    # |grad f| at the logistic optimum cannot reach 1e-30 * |f| in float64.
    result = gradcli("minimize", LOGISTIC, "--gtol", "1e-30", "--format", "plain")
    assert result.exit_code == 1 and "gradient_tolerance 1e-30" in result.stdout
    result = gradcli("minimize", LOGISTIC, "--gtol", "1e-6", "--format", "plain")
    assert result.exit_code == 0 and "gradient_tolerance 1e-06" in result.stdout


def test_a_converged_minimum_is_polished_to_newtons_digits(gradcli_json):
    # SciPy's trust region stops at |grad| ~ 6e-10 (x = 0.999999998); the minimum of
    # -x exp(-x) is x = 1 by hand ((x - 1) exp(-x) = 0), which Newton's steps reach.
    shown = gradcli_json("minimize", "-x*exp(-x)", "--x", "1.5")
    assert shown["converged"] and shown["polish_steps"] >= 1
    assert shown["point"]["x"] == pytest.approx(1, abs=1e-14)
    # The normal likelihood's covariance is diagonal by hand: diag(sigma^2/n, sigma^2/(2n)).
    source = "const y = [2, 4, 3, 5, 6]; mu = 1; sigma = 2; "
    source += "numel(y)*log(sigma) + sum((y - mu)**2)/(2*sigma**2)"
    shown = gradcli_json("minimize", source, "--covariance")
    np.testing.assert_allclose(shown["covariance"]["matrix"], [[0.4, 0], [0, 0.2]], atol=1e-14)
