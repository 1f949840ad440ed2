"""The other poolings against PyTorch 2.13: ``F.max_pool1d``, ``avg_pool1d``,
``adaptive_avg_pool1d``/``2d`` and ``adaptive_max_pool1d``/``2d`` and their modules record
PyTorch's nodes (first and second derivatives), give its values and first and second
derivatives in float64 to a relative 1e-12, its indices (ties to the first largest entry),
and print as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

CASES = [
    ("max_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("max_pool1d", (3, 8), {"kernel_size": 2, "dilation": 2, "ceil_mode": True}),
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("avg_pool1d", (3, 8), {"kernel_size": 3, "ceil_mode": True, "count_include_pad": False,
                            "padding": 1}),
    ("adaptive_avg_pool1d", (2, 3, 7), {"output_size": 3}),
    ("adaptive_avg_pool2d", (2, 3, 7, 5), {"output_size": (3, 4)}),
    ("adaptive_avg_pool2d", (3, 5, 6), {"output_size": (None, 4)}),
    ("adaptive_avg_pool2d", (2, 3, 4, 4), {"output_size": 1}),
    ("adaptive_avg_pool2d", (1, 2, 3, 3), {"output_size": 5}),
    ("adaptive_max_pool1d", (2, 3, 7), {"output_size": 3}),
    ("adaptive_max_pool2d", (2, 3, 7, 5), {"output_size": (3, 2)}),
    ("adaptive_max_pool2d", (3, 6, 6), {"output_size": 4}),
]  # fmt: skip


def _through(lib, name, shape, kwargs, ties):
    rng = np.random.default_rng(sum(shape))
    data = rng.integers(0, 3, size=shape) if ties else rng.normal(size=shape)
    x = lib.tensor(data.astype(np.float64), requires_grad=True)
    y = getattr(lib.nn.functional, name)(x, **kwargs)
    weights = lib.tensor(rng.normal(size=tuple(y.shape)))
    (g,) = lib.autograd.grad(((y * weights) ** 2).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), x)
    names = (y.grad_fn.name(), g.grad_fn.name())
    found = [y, g, h]
    if "max" in name:
        found.append(getattr(lib.nn.functional, name)(x, return_indices=True, **kwargs)[1])
    return names, found


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("name, shape, kwargs", CASES)
def test_poolings_give_pytorchs_nodes_and_numbers(name, shape, kwargs, ties):
    ours, theirs = _through(gradcli, name, shape, kwargs, ties), _through(torch, name, shape,
                                                                          kwargs, ties)  # fmt: skip
    # To one entry the pooling is the mean, whose second derivative's node is DivBackward0
    # in gradcli (its rule divides by a count) where PyTorch's Scalar overload records
    # DivBackward1: the mean's own difference, not the pooling's.
    compared = 1 if kwargs.get("output_size") == 1 else 2
    assert ours[0][:compared] == theirs[0][:compared]
    for mine, their in zip(ours[1], theirs[1], strict=True):
        np.testing.assert_allclose(mine.detach().numpy(), their.detach().numpy(), rtol=1e-12,
                                   atol=1e-13)  # fmt: skip


MODULES = """
nn = torch.nn
x = torch.tensor(np.linspace(-3, 3, 2 * 3 * 8).reshape(2, 3, 8) ** 2, requires_grad=True)
for pool in [nn.MaxPool1d(3, 2), nn.MaxPool1d(2, return_indices=True), nn.AvgPool1d(3),
             nn.AvgPool1d(3, 2, 1, count_include_pad=False), nn.AdaptiveAvgPool1d(3),
             nn.AdaptiveMaxPool1d(5)]:
    print(pool)
    print(pool(x))
x4 = x.reshape(2, 3, 4, 2)
for pool in [nn.AdaptiveAvgPool2d((3, 1)), nn.AdaptiveAvgPool2d(1), nn.AdaptiveMaxPool2d(2),
             nn.AdaptiveAvgPool2d((None, 3)), nn.AdaptiveMaxPool2d((2, None), True)]:
    print(pool)
    print(pool(x4))
attempt(lambda: nn.functional.max_pool1d(torch.ones(2, 3, 4, 5), 2))
attempt(lambda: nn.functional.adaptive_avg_pool2d(torch.ones(5), 2))
attempt(lambda: nn.functional.adaptive_max_pool2d(torch.ones(5), 2))
attempt(lambda: nn.functional.avg_pool1d(torch.ones(2, 3, 4, 5), 2))
attempt(lambda: nn.functional.adaptive_max_pool1d(torch.ones(2, 3, 4, 5), 2))
"""


def test_the_modules_print_and_pool_as_pytorchs():
    assert run(MODULES, gradcli) == run(MODULES, torch)
