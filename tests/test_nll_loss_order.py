"""nll_loss and cross_entropy reduced as PyTorch 2.13 reduces them: the kept losses and
their weights added in the order of its CPU kernels (a partial sum that joins the next
level every 16 indices), so a float64 or float32 loss's ``item()`` is PyTorch's to the
last bit, for 1-d to 4-d inputs, with class weights and ignored targets (and a float64
cross_entropy's too, where its log_softmax is PyTorch's)."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _losses(m, dtype, shape, weighted, ignored, reduction):
    rng = np.random.default_rng(sum(shape) + 7 * weighted + 3 * ignored)
    x = rng.standard_normal(shape) * 3
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    target = rng.integers(0, classes, target_shape)
    if ignored and target.ndim:
        target.reshape(-1)[::5] = -100
    dt = getattr(m, dtype)
    kwargs = {"reduction": reduction}
    if weighted:
        kwargs["weight"] = m.tensor(rng.random(classes) + 0.5, dtype=dt)
    x, t = m.tensor(x, dtype=dt), m.tensor(target)
    losses = [m.nn.functional.nll_loss(x, t, **kwargs).item()]
    if classes <= 4:  # a float64 log_softmax of more classes may differ in its last bit
        losses.append(m.nn.functional.cross_entropy(x.double(), t, reduction=reduction).item())
    return losses


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4,), (5, 3), (16, 4), (17, 4), (64, 10), (300, 4),
                                   (4, 3, 5, 6), (2, 3, 40)])  # fmt: skip
@pytest.mark.parametrize("weighted, ignored", [(False, False), (True, True)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_adds_in_pytorchs_order(dtype, shape, weighted, ignored, reduction):
    ours = _losses(gradcli, dtype, shape, weighted, ignored, reduction)
    assert ours == _losses(torch, dtype, shape, weighted, ignored, reduction)
