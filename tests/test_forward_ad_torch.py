"""The ``func`` transforms against ``torch.func`` (PyTorch 2.13) on functions that mix the
ops, in float64. Every op's tangent against PyTorch's is the op-sample matrix's ``jvp``
(``test_op_matrix.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _mixed(m, x, y):
    return (x.sin() * y.exp()).sum() + (x @ y) ** 2 / (1 + y.norm())


def _vector(m, x, y):
    return m.stack([(x * y).sum(), x.tanh().mean() * y[0], (x - y).abs().max()])


TRANSFORMS = {
    "grad": lambda m, x, y: m.func.grad(lambda a: _mixed(m, a, y))(x),
    "grad_argnums": lambda m, x, y: m.func.grad(lambda a, b: _mixed(m, a, b), argnums=(0, 1))(x, y),
    "grad_of_grad": lambda m, x, y: m.func.grad(
        lambda a: m.func.grad(lambda b: _mixed(m, b, y))(a).sum()
    )(x),
    "jacrev": lambda m, x, y: m.func.jacrev(lambda a: _vector(m, a, y))(x),
    "jacfwd": lambda m, x, y: m.func.jacfwd(lambda a: _vector(m, a, y))(x),
    "hessian": lambda m, x, y: m.func.hessian(lambda a: _mixed(m, a, y))(x),
    "jvp": lambda m, x, y: m.func.jvp(lambda a: _vector(m, a, y), (x,), (y,)),
    "vjp": lambda m, x, y: m.func.vjp(lambda a: _vector(m, a, y), x)[1](
        m.tensor([1.0, -2.0, 0.5], dtype=m.float64)
    ),
    "grad_and_value": lambda m, x, y: m.func.grad_and_value(lambda a: _mixed(m, a, y))(x),
}


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _flat(v)]
    return [value]


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_func_transform_matches_torch_func(name):
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-1, 1, 3), rng.uniform(0.2, 1, 3)
    ours = _flat(TRANSFORMS[name](gradcli, gradcli.tensor(x), gradcli.tensor(y)))
    theirs = _flat(TRANSFORMS[name](torch, torch.tensor(x), torch.tensor(y)))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        assert not a.requires_grad and not b.requires_grad
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12, err_msg=name)
