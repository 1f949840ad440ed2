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


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize(
    "shape, dim", [((0,), -1), ((2, 0), 1), ((0, 3), 0), ((0, 3), (0, 1)), ((0, 3), None)]
)
def test_amax_and_amin_of_no_entries_raise_pytorchs_error(name, shape, dim):
    # They were NumPy's ValueError in a ShapeError ("zero-size array to reduction ...").
    args = () if dim is None else (dim,)
    with pytest.raises(Exception) as theirs:
        getattr(torch.zeros(shape), name)(*args)
    with pytest.raises(Exception) as ours:
        getattr(gradcli.zeros(shape), name)(*args)
    assert str(ours.value) == str(theirs.value)
    builtin = next(c for c in type(ours.value).__mro__ if c.__module__ == "builtins")
    assert builtin is type(theirs.value)


def test_amax_over_a_dim_with_entries_of_an_empty_tensor_is_empty():
    assert tuple(gradcli.zeros(0, 3).amax(1).shape) == tuple(torch.zeros(0, 3).amax(1).shape)
