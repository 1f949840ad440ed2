"""minimize and fit bind their program once per run, not once per iterate: the number
of evaluations built (``core.evaluation.Evaluation``) does not grow with the
iterations, and the answers are the known ones (Rosenbrock's minimum (1, 1) by hand;
Misra1a's certified parameters, NIST's)."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.analysis.fitting import fit
from gradcli.analysis.optimize import minimize
from gradcli.core import evaluation

ROSENBROCK = "(1-x)**2 + 100*(y-x**2)**2"
MISRA1A_X = [77.6, 114.9, 141.1, 190.8, 239.9, 289.0, 332.8, 378.4, 434.8, 477.3, 536.8,
             593.1, 689.1, 760.0]  # fmt: skip
MISRA1A_Y = [10.07, 14.73, 17.94, 23.93, 29.61, 35.18, 40.02, 44.82, 50.76, 55.05, 61.01,
             66.40, 75.47, 81.78]  # fmt: skip


@pytest.fixture
def built(monkeypatch):
    """How many evaluations were built."""
    count = [0]
    original = evaluation.Evaluation.__init__

    def counted(self, *args, **kwargs):
        count[0] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(evaluation.Evaluation, "__init__", counted)
    return count


@pytest.mark.parametrize("method", ["trust-exact", "bfgs", "newton-cg"])
def test_minimize_builds_a_few_evaluations_whatever_its_iterations(built, method):
    report = minimize(ROSENBROCK, {"x": -1.2, "y": 1.0}, method=method)
    assert report.converged
    np.testing.assert_allclose([report.point["x"], report.point["y"]], [1, 1], atol=1e-6)
    assert report.evaluations > 20
    assert built[0] <= 4, built[0]


def test_fit_builds_a_few_evaluations_whatever_its_evaluations(built):
    report = fit(
        "b1*(1-exp(-b2*x))",
        data={"x": MISRA1A_X, "y": MISRA1A_Y},
        params={"b1": 500.0, "b2": 1e-4},
    )
    assert report.converged and report.evaluations > 20
    # NIST's certified values.
    np.testing.assert_allclose(float(report.parameters["b1"]), 2.3894212918e02, rtol=1e-8)
    np.testing.assert_allclose(float(report.parameters["b2"]), 5.5015643181e-04, rtol=1e-8)
    assert built[0] <= 3, built[0]
