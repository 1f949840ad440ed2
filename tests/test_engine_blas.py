"""What reaches BLAS from a reverse pass: a reduction's gradient is a broadcast view
(stride 0), on which NumPy's matmul cannot call BLAS and falls back to loops ten
times slower than a copy. The product copies such an operand first; these tests
instrument the matmul forward and check the gradients against PyTorch."""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch

import gradcli
from gradcli.autograd import functional
from gradcli.engine.ops import products


class _Spy(types.SimpleNamespace):
    """numpy, as products.py sees it, with its matmul recording each operand's layout."""

    def __init__(self):
        super().__init__(calls=[])

    def __getattr__(self, name):
        return getattr(np, name)

    def matmul(self, x, y):
        self.calls.append((np.asarray(x), np.asarray(y)))
        return np.matmul(x, y)


@pytest.fixture
def spy(monkeypatch):
    s = _Spy()
    monkeypatch.setattr(products, "np", s)
    return s


def _matrix_strides(m):
    return m.strides[-2:] if m.ndim > 1 else m.strides


def _assert_no_stride_zero(calls):
    assert calls, "no matrix product was computed"
    for x, y in calls:
        for m in (x, y):
            shape = m.shape[-2:] if m.ndim > 1 else m.shape
            for n, step in zip(shape, _matrix_strides(m)):
                assert n <= 1 or step != 0, (x.shape, x.strides, y.shape, y.strides)


RNG = np.random.default_rng(0)
X, Y, W = RNG.standard_normal((6, 5)), RNG.standard_normal((6, 3)), RNG.standard_normal((5, 3))


def _loss(m, x, y, w, kind):
    p = m.matmul(x, w)
    losses = {
        "mean": lambda: m.mean(p) + m.mean(y),
        "residual": lambda: m.mean(y - p),
        "sum": lambda: m.sum(p) + m.sum(y),
        "sum_dim": lambda: m.sum(m.sum(p, 0) * m.sum(y, 0)),
        "scaled": lambda: m.mean(p * 2.0 + y),
    }
    return losses[kind]()


@pytest.mark.parametrize("kind", ["mean", "residual", "sum", "sum_dim", "scaled"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_no_stride_zero_operand_reaches_matmul_from_a_reverse_pass(spy, kind, create_graph):
    ours = [gradcli.tensor(a, requires_grad=True) for a in (X, Y, W)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (X, Y, W)]
    loss = _loss(gradcli, *ours, kind)
    spy.calls.clear()  # only the reverse pass's products
    got = gradcli.autograd.grad(loss, ours, create_graph=create_graph)
    _assert_no_stride_zero(spy.calls)
    want = torch.autograd.grad(_loss(torch, *theirs, kind), theirs)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.detach().numpy(), t.numpy(), rtol=1e-12, atol=1e-15)


def test_matrix_vector_gradient_of_a_sum(spy):
    x = gradcli.tensor(X, requires_grad=True)
    v = gradcli.tensor(W[:, 0], requires_grad=True)
    loss = gradcli.matmul(x, v).sum()
    spy.calls.clear()
    gx, gv = gradcli.autograd.grad(loss, [x, v])
    _assert_no_stride_zero(spy.calls)
    np.testing.assert_allclose(gv.numpy(), X.sum(0), rtol=1e-13)  # d/dv sum(X v) = column sums
    np.testing.assert_allclose(gx.numpy(), np.tile(W[:, 0], (6, 1)), rtol=1e-13)


def test_hessian_of_a_sum_of_products(spy):
    # d^2/dx^2 sum(B @ x)^2 = 2 B^T 1 1^T B: the second pass differentiates the first's products
    b = RNG.standard_normal((4, 3))
    h = functional.hessian(lambda x: (gradcli.tensor(b) @ x).sum() ** 2, gradcli.tensor(X[0, :3]))
    _assert_no_stride_zero(spy.calls)
    ones = b.sum(0)
    np.testing.assert_allclose(h.numpy(), 2 * np.outer(ones, ones), rtol=1e-12)


def test_a_vector_broadcast_read_once_is_not_copied():
    # (n, n) broadcast times a vector: each entry is read once, so a copy would cost as much
    x = np.broadcast_to(RNG.standard_normal((1, 5)), (5, 5))
    v = RNG.standard_normal((5, 1))
    assert products._blas_operands(x, v)[0] is x
    assert products._blas_operands(x, np.ones((5, 2)))[0].flags.c_contiguous
