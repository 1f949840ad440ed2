"""Activations' second derivatives at inf, nan and 1e300, against PyTorch 2.13 in float64
(and the limit of mathematics where the entry declares its difference)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the reference")

pytestmark = pytest.mark.usefixtures("float64")

POINTS = [math.inf, math.nan, 1e300, -1.0, 0.5, -1e300]


def _second(m, f, values):
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(f(m, x).sum(), x, create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), x, allow_unused=True, materialize_grads=True)
    return g.detach().numpy(), gg.numpy()


def test_elu_second_derivative_at_inf_nan_and_1e300_is_pytorchs():
    # The side not taken held exp(x): exp(inf) * 0 was nan; PyTorch gives 0 there.
    def elu(m, x):
        return m.nn.functional.elu(x, alpha=0.5)

    ours, theirs = _second(gradcli, elu, POINTS), _second(torch, elu, POINTS)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert ours[1][:3].tolist() == [0.0, 0.0, 0.0]


def test_lgamma_at_minus_inf_and_its_derivatives_are_pytorchs():
    # lgamma(-inf) is inf (C99, PyTorch; SciPy's gammaln gave -inf), and trigamma there nan.
    points = [-math.inf, 2.5, -0.5]

    def lgamma(m, x):
        return m.lgamma(x)

    assert gradcli.lgamma(gradcli.tensor(points)).numpy().tolist()[0] == math.inf
    for a, b in zip(_second(gradcli, lgamma, points), _second(torch, lgamma, points)):
        np.testing.assert_allclose(a, b, rtol=1e-9)  # PyTorch's trigamma: 1e-10
