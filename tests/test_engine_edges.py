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


# ----- nan among the extremes, as PyTorch -----


@pytest.mark.parametrize("p", [float("inf"), float("-inf")])
def test_an_inf_norm_over_a_nan_entry_gives_that_entry_the_gradient(p):
    # PyTorch's rule: the extremes are the entries equal to the norm or nan; with a nan
    # entry the norm is nan, the nan entry takes g, and x's entry none (by hand: 0).
    x = gradcli.tensor(1.0, dtype=gradcli.float64, requires_grad=True)
    norm = gradcli.linalg.vector_norm(gradcli.stack([x, gradcli.tensor(np.nan)]), ord=p)
    (grad,) = gradcli.autograd.grad(norm + x, x)
    assert np.isnan(norm.item()) and grad.item() == 1.0


def test_an_inf_norm_without_nan_still_shares_ties():
    x = gradcli.tensor([3.0, -3.0, 1.0], requires_grad=True)
    gradcli.linalg.vector_norm(x, ord=float("inf")).backward()
    assert x.grad.tolist() == [0.5, -0.5, 0.0]  # by hand: sign(x) * g / 2 at the tie


@pytest.mark.parametrize(
    "data, descending, order",
    [
        ([1.0, np.nan, 2.0], True, [1, 2, 0]),  # nan is the largest: first descending
        ([1.0, np.nan, 2.0], False, [0, 2, 1]),  # and last ascending
        ([np.nan, 2.0, np.nan, -np.inf], True, [0, 2, 1, 3]),  # nan ties keep their order
        ([0.0, -0.0, 1.0, 0.0], True, [2, 0, 1, 3]),  # -0 == 0: a tie, kept in order
    ],
)
def test_a_descending_sort_puts_nan_first_as_pytorch(data, descending, order):
    _, indices = gradcli.sort(gradcli.tensor(data), descending=descending, stable=True)
    assert indices.tolist() == order
    if descending:  # topk takes the largest: the first of the descending order
        assert gradcli.topk(gradcli.tensor(data), 2).indices.tolist() == order[:2]
