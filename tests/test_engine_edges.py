"""Edge cases against PyTorch: 0-d tensors in reductions, values with leading 1s
assigned into slices, and argument checks of outer and flatten."""

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

ZERO_D_REDUCTIONS = [
    lambda m, x: m.sum(x, 0),
    lambda m, x: m.mean(x, 0),
    lambda m, x: m.prod(x, 0),
    lambda m, x: m.amax(x, 0),
    lambda m, x: m.amin(x, -1),
    lambda m, x: m.logsumexp(x, 0),
    lambda m, x: m.softmax(x, 0),
    lambda m, x: m.log_softmax(x, -1),
    lambda m, x: m.norm(x, dim=0),
    lambda m, x: m.erf(x),
]


@pytest.mark.parametrize("f", ZERO_D_REDUCTIONS)
def test_zero_d_tensor_with_a_dim_matches_torch(f):
    results = []
    for m in (gradcli, torch):
        x = m.tensor(0.7, dtype=m.float64, requires_grad=True)
        y = f(m, x)
        (g,) = m.autograd.grad(y, x)
        results.append((y.detach().numpy(), g.numpy()))
    (ours, our_grad), (theirs, their_grad) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12)


def test_value_with_leading_ones_assigned_into_a_row():
    grads = []
    for m in (gradcli, torch):
        x = m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True)
        k = m.zeros(2, 2, dtype=m.float64)
        k[0] = x * 2  # (1, 2) into a row of shape (2,)
        (k * m.tensor([[1.0, 3.0], [5.0, 7.0]], dtype=m.float64)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.outer(m.tensor(2.0), m.tensor([1.0, 2.0])),
        lambda m: m.flatten(m.zeros(2, 2), 0, 4),
        lambda m: m.flatten(m.zeros(2, 3, 4), 2, 1),
    ],
)
def test_bad_arguments_raise_as_in_torch(call):
    with pytest.raises((RuntimeError, IndexError)) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(gradcli)
