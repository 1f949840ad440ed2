"""Reductions and softmaxes over an empty dim, against PyTorch 2.13 in float64: the
values and gradients it gives, or its error (they were NumPy errors)."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.errors import GradcliIndexError

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the reference")

pytestmark = pytest.mark.usefixtures("float64")


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.softmax(x, 0),
        lambda m, x: m.log_softmax(x, 0),
        lambda m, x: m.logsumexp(x, 0),
        lambda m, x: m.prod(x),
        lambda m, x: m.prod(x, 1),
    ],
    ids=["softmax", "log_softmax", "logsumexp", "prod", "prod dim"],
)
def test_over_an_empty_dim_values_and_gradients_are_pytorchs(call):
    found = []
    for m in (gradcli, torch):
        x = m.zeros(0, 2, dtype=m.float64, requires_grad=True)
        out = call(m, x)
        (g,) = m.autograd.grad(out.sum(), x, allow_unused=True, materialize_grads=True)
        found.append((out.detach().numpy(), g.numpy()))
    (ours, our_grad), (theirs, their_grad) = found
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)  # logsumexp: -inf
    assert our_grad.shape == their_grad.shape == (0, 2)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_over_an_empty_dim_raise_pytorchs_index_error(name):
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        getattr(torch, name)(torch.zeros(0, 2), 0)
    with pytest.raises(GradcliIndexError, match=rf"^{name}\(\): Expected reduction dim 0"):
        getattr(gradcli, name)(gradcli.zeros(0, 2), 0)
