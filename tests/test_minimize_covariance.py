"""minimize --covariance: the inverse Hessian of the function minimised at the end
point, its standard errors and correlations, against closed forms derived by hand;
and the refusals (no strict interior minimum)."""

from __future__ import annotations

import json

import numpy as np
import pytest

Y = np.array([2.1, 3.4, 1.9, 4.2, 2.8, 3.3, 2.5, 3.9])
NORMAL = (
    f"const y = {Y.tolist()}\nmu = 1\nsigma = 2\n"
    "numel(y)*log(sigma) + sum((y - mu)**2)/(2*sigma**2)"
)


def test_the_normal_likelihood_against_the_hand_derivation(gradcli_json):
    shown = gradcli_json("minimize", NORMAL, "--covariance")
    n, sigma = Y.size, Y.std()
    # By hand: at the MLE (mean, sigma) the Hessian of n log s + sum((y-m)²)/(2s²) is
    # diag(n/s², 2n/s²): the cross term 2 sum(y - m)/s³ vanishes at the mean.
    assert shown["standard_errors"]["mu"] == pytest.approx(sigma / np.sqrt(n), rel=1e-9)
    assert shown["standard_errors"]["sigma"] == pytest.approx(sigma / np.sqrt(2 * n), rel=1e-9)
    assert shown["covariance"]["labels"] == ["mu", "sigma"]
    np.testing.assert_allclose(
        shown["covariance"]["matrix"], np.diag([sigma**2 / n, sigma**2 / (2 * n)]), atol=1e-12
    )
    np.testing.assert_allclose(shown["correlation"]["matrix"], np.eye(2), atol=1e-9)


def test_a_logistic_regression_against_the_inverse_fisher_information(gradcli_json):
    import scipy.optimize

    x = np.array([0.5, 1.2, -0.3, 2.0, -1.1, 0.8, 1.5, -0.7, 0.1, 2.4])
    t = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1], dtype=float)
    source = (
        f"const x = {x.tolist()}\nconst t = {t.astype(int).tolist()}\na = 0\nb = 0\n"
        "sum(log(1 + exp(a + b*x)) - t*(a + b*x))"
    )
    shown = gradcli_json("minimize", source, "--covariance")
    # By hand: the Hessian of the negative log-likelihood is X^T W X, W = diag(p(1-p)),
    # at the MLE that SciPy finds from the hand gradient X^T (p - t).
    X = np.column_stack([np.ones_like(x), x])

    def f(v):
        z = X @ v
        return np.sum(np.logaddexp(0, z) - t * z)

    def g(v):
        return X.T @ (1 / (1 + np.exp(-X @ v)) - t)

    v = scipy.optimize.minimize(f, [0.0, 0.0], jac=g, method="bfgs", tol=1e-13).x
    p = 1 / (1 + np.exp(-X @ v))
    expected = np.linalg.inv(X.T @ (X * (p * (1 - p))[:, None]))
    np.testing.assert_allclose(shown["covariance"]["matrix"], expected, rtol=1e-6)
    errors = [shown["standard_errors"]["a"], shown["standard_errors"]["b"]]
    np.testing.assert_allclose(errors, np.sqrt(np.diag(expected)), rtol=1e-6)


def test_maximize_takes_the_hessian_of_minus_f(gradcli_json):
    # By hand: -f = (x-3)² + 2(y+1)² - xy has Hessian [[2, -1], [-1, 4]], whose inverse
    # is [[4, 1], [1, 2]] / 7.
    shown = gradcli_json("minimize", "-(x-3)**2 - 2*(y+1)**2 + x*y", "--x", "0", "--y", "0",
                         "--maximize", "--covariance")  # fmt: skip
    np.testing.assert_allclose(shown["covariance"]["matrix"], [[4 / 7, 1 / 7], [1 / 7, 2 / 7]])
    assert shown["correlation"]["matrix"][0][1] == pytest.approx(1 / np.sqrt(8))


def test_plain_get_and_table(gradcli):
    result = gradcli("minimize", NORMAL, "--covariance", "--get", "standard_errors.mu")
    assert float(result.stdout) == pytest.approx(Y.std() / np.sqrt(Y.size), rel=1e-9)
    result = gradcli("minimize", NORMAL, "--covariance", "--format", "plain")
    assert "covariance.labels mu sigma\n" in result.stdout
    assert "correlation.labels mu sigma\n" in result.stdout
    result = gradcli("minimize", NORMAL, "--covariance", "--format", "table")
    assert "standard error" in result.stdout and "covariance (H^-1)" in result.stdout
    # Without --covariance, none of it.
    result = gradcli("minimize", NORMAL, "--format", "json")
    assert "covariance" not in json.loads(result.stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        # BFGS from y = 0 stays on y = 0 and stops at the saddle (0, 0): H = diag(2, -2).
        (["x**2 + y**4 - y**2", "--x", "1", "--y", "0", "--method", "bfgs"],
         "the Hessian of f at the end point is not positive definite (eigenvalues -2 2): "
         "it is not a local minimum"),
        (["(x-3)**2 + y**2", "--x", "0", "--y", "1", "--bounds", "x=-1:2"],
         "x is held at a bound"),
        (["x**3", "--x", "1"], "the local minimum is not strict"),
        (["-x**2 + y**2 - y**4", "--x", "1", "--y", "0", "--method", "bfgs", "--maximize"],
         "the Hessian of -f at the end point is not positive definite (eigenvalues -2 2): "
         "it is not a local maximum"),
    ],
)  # fmt: skip
def test_no_covariance_without_a_strict_interior_minimum(gradcli, args, message):
    result = gradcli("minimize", *args, "--covariance", "--format", "plain")
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: --covariance: ")
    assert message in errors[0]
