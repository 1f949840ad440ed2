"""The normalisation layers against PyTorch 2.13: ``LayerNorm``, ``BatchNorm1d``/``2d`` (in
training and evaluation) and ``GroupNorm``, and their ``F.`` forms, record PyTorch's one node
(``NativeLayerNormBackward0``, ``NativeBatchNormBackward0``, ``NativeGroupNormBackward0``);
their values, first and second derivatives and running statistics are PyTorch's in float64
to a relative 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

MODULES = [
    ("LayerNorm", (3,), {}, (6, 4, 3)),
    ("LayerNorm", ((4, 3),), {"eps": 0.1}, (6, 4, 3)),
    ("LayerNorm", (3,), {"elementwise_affine": False}, (5, 3)),
    ("BatchNorm1d", (4,), {}, (6, 4, 3)),
    ("BatchNorm1d", (4,), {"momentum": None, "affine": False}, (5, 4)),
    ("BatchNorm2d", (2,), {"momentum": 0.3}, (3, 2, 3, 2)),
    ("BatchNorm1d", (4,), {"track_running_stats": False}, (6, 4)),
    ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    ("GroupNorm", (3, 3), {"affine": False}, (2, 3, 2, 2)),
    ("GroupNorm", (1, 4), {"eps": 1e-3}, (2, 4)),
]  # fmt: skip


def _through(lib, name, args, kwargs, shape):
    """Values, names and derivatives of a module in training, then in evaluation."""
    module = getattr(lib.nn, name)(*args, dtype=lib.float64, **kwargs)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.linspace(-1, 2, p.numel(), dtype=lib.float64).reshape(p.shape))
    rng = np.random.default_rng(len(shape))
    x = lib.tensor(rng.normal(size=shape) * 2 + 0.5, requires_grad=True)
    found = []
    for mode in ("train", "eval"):
        getattr(module, mode)()
        y = module(x)
        weights = lib.tensor(rng.normal(size=shape))
        inputs = [x, *module.parameters()]
        grads = lib.autograd.grad(((y * weights) ** 2).sum(), inputs, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), inputs)
        found.append((y.grad_fn.name(), y, *grads, *second))
        found.append((str(module),) + tuple(module.buffers()))
    return found


@pytest.mark.parametrize("name, args, kwargs, shape", MODULES)
def test_normalisations_record_pytorchs_node_and_give_its_numbers(name, args, kwargs, shape):
    ours = _through(gradcli, name, args, kwargs, shape)
    theirs = _through(torch, name, args, kwargs, shape)
    for mine, their in zip(ours, theirs, strict=True):
        assert mine[0] == their[0]
        for a, b in zip(mine[1:], their[1:], strict=True):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                       atol=1e-12)  # fmt: skip


FUNCTIONAL = """
F = torch.nn.functional
x = torch.tensor(np.linspace(-2, 3, 24).reshape(2, 4, 3) ** 2, requires_grad=True)
w, b = torch.linspace(0.5, 1.5, 3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
print(F.layer_norm(x, (3,), w, b))
print(F.group_norm(x, 2).grad_fn.next_functions)
rm, rv = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
print(F.batch_norm(x, rm, rv, training=True, momentum=0.2), rm, rv)
print(F.batch_norm(x, rm, rv))
attempt(lambda: F.layer_norm(x, (4,)))
attempt(lambda: F.layer_norm(x, (3,), torch.ones(2, dtype=torch.float64)))
attempt(lambda: F.group_norm(x, 3))
attempt(lambda: F.batch_norm(torch.ones(1, 3), None, None, training=True))
"""


def test_the_functional_forms_print_as_pytorchs():
    from test_engine_programs import run

    assert run(FUNCTIONAL, gradcli) == run(FUNCTIONAL, torch)
