"""``torch.nn.utils`` against PyTorch: the same gradients clipped by norm or by value give
PyTorch's norms and PyTorch's gradients (to the last bits of a float32 norm, whose order of
additions PyTorch's vectorised kernel chooses), and parameters go to one vector and back
as PyTorch's do."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

SHAPES = [(16, 5), (16,), (3, 16), (3,)]


def _parameters(lib, dtype, scale):
    """Parameters of ``lib`` whose gradients are the same seeded numbers in both libraries."""
    rng = np.random.default_rng(7)
    params = []
    for shape in SHAPES:
        p = lib.zeros(shape, dtype=getattr(lib, dtype), requires_grad=True)
        p.grad = lib.tensor(rng.normal(0.0, scale, shape).astype(dtype))
        params.append(p)
    return params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    ("max_norm", "norm_type", "scale"),
    [(0.5, 2.0, 1.0), (100.0, 2, 1.0), (0.1, 1, 0.3), (0.2, float("inf"), 2.0), (1e-3, 3.0, 1.0)],
)
def test_clip_grad_norm_gives_pytorchs_norm_and_gradients(dtype, max_norm, norm_type, scale):
    ours = _parameters(gradcli, dtype, scale)
    theirs = _parameters(torch, dtype, scale)
    our_total = gradcli.nn.utils.clip_grad_norm_(iter(ours), max_norm, norm_type=norm_type)
    their_total = torch.nn.utils.clip_grad_norm_(iter(theirs), max_norm, norm_type=norm_type)
    rtol = 1e-6 if dtype == "float32" else 1e-15
    assert our_total.item() == pytest.approx(their_total.item(), rel=rtol)
    assert str(our_total.dtype) == str(their_total.dtype)
    for mine, other in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), other.grad.numpy(), rtol=rtol, atol=0)


def test_clip_grad_value_and_the_empty_and_nonfinite_cases_are_pytorchs():
    ours, theirs = _parameters(gradcli, "float32", 1.0), _parameters(torch, "float32", 1.0)
    gradcli.nn.utils.clip_grad_value_(ours, 0.25)
    torch.nn.utils.clip_grad_value_(theirs, 0.25)
    for mine, other in zip(ours, theirs):
        np.testing.assert_array_equal(mine.grad.numpy(), other.grad.numpy())
    assert gradcli.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    ours[0].grad[0, 0] = float("inf")
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        gradcli.nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)


def test_parameters_to_vector_and_back():
    for lib in (gradcli, torch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
        vec = lib.nn.utils.parameters_to_vector(net.parameters())
        assert tuple(vec.shape) == (26,)
        assert type(vec.grad_fn).__name__ == "CatBackward0"
        lib.nn.utils.vector_to_parameters(lib.arange(26.0), net.parameters())
        assert net[1].bias.tolist() == [24.0, 25.0]
        with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
            lib.nn.utils.vector_to_parameters([1.0], net.parameters())
