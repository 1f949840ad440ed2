"""Float32 sums to PyTorch 2.13's last bit (``engine/ops/summation.py``), beyond one dim.

Each sum is compared bit for bit with PyTorch's on the same numbers: over several dims
at once, of permuted, sliced and expanded tensors, means, the gradients of a bias that
broadcasts over several dims, and sums of 32768 entries and more, which PyTorch shares
among its threads (both set to the same number with ``set_num_threads``). Then a float32
two-layer network trained for 200 steps: with the matrix products taken from PyTorch
(its BLAS adds in an order of its own), every loss equals PyTorch's to the last digit.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _bits(t):
    return (tuple(t.shape), np.asarray(t.detach().numpy()).view(np.int32).tobytes())


@pytest.fixture
def threads():
    """Set both libraries to ``n`` threads for the test; PyTorch's own count comes back."""
    before = torch.get_num_threads()

    def use(n):
        torch.set_num_threads(n)
        gradcli.set_num_threads(n)

    yield use
    torch.set_num_threads(before)
    gradcli.set_num_threads(before)


LAYOUTS = {
    "contiguous": lambda t: t,
    "permuted": lambda t: t.permute(2, 0, 1),
    "transposed": lambda t: t.transpose(0, 2),
    "sliced": lambda t: t[:, ::2],
    "expanded": lambda t: t[:, :1].expand(-1, 33, -1),
}


@pytest.mark.parametrize("shape", [(5, 10, 7), (3, 40, 50), (9, 64, 33)], ids=str)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_sums_and_means_over_several_dims_add_in_torch_order(shape, layout):
    data = np.random.default_rng(sum(shape)).normal(size=shape).astype(np.float32)
    ours, theirs = (LAYOUTS[layout](m.tensor(data)) for m in (gradcli, torch))
    for dims in [None, (0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2), (-1, 0)]:
        for f in ("sum", "mean"):
            for keepdim in (False, True):
                a = getattr(ours, f)() if dims is None else getattr(ours, f)(dims, keepdim)
                b = getattr(theirs, f)() if dims is None else getattr(theirs, f)(dims, keepdim)
                assert _bits(a) == _bits(b), (f, dims, keepdim)


@pytest.mark.parametrize("n_threads", [1, 2, 3, 4])
def test_sums_of_32768_entries_and_more_add_as_torch_shares_them(threads, n_threads):
    threads(n_threads)
    rng = np.random.default_rng(n_threads)
    for shape in [(32768,), (50000,), (1 << 20,) , (300, 200), (1000, 100), (64, 1000),
                  (2000, 600), (40, 30, 50)]:  # fmt: skip
        data = rng.normal(size=shape).astype(np.float32)
        ours, theirs = gradcli.tensor(data), torch.tensor(data)
        assert _bits(ours.sum()) == _bits(theirs.sum()), shape
        assert _bits(ours.T.sum(0)) == _bits(theirs.T.sum(0)), shape
        for dim in range(len(shape)):
            assert _bits(ours.sum(dim)) == _bits(theirs.sum(dim)), (shape, dim)
            assert _bits(ours.mean(dim)) == _bits(theirs.mean(dim)), (shape, dim)


def test_sums_of_zeros_and_of_widely_spread_magnitudes_keep_torchs_bits():
    # Where the order of the additions shows most: entries from 1e-6 to 1e6 (each rounding
    # step differs), and all-zero rows of negative zeros (whose sum's sign depends on it).
    rng = np.random.default_rng(36)
    for shape in [(64, 256), (64, 10), (100, 3, 17), (7, 300), (1000,)]:
        data = (rng.normal(size=shape) * 10.0 ** rng.uniform(-6, 6, shape)).astype(np.float32)
        data[: shape[0] // 3] = -0.0
        ours, theirs = gradcli.tensor(data), torch.tensor(data)
        for dim in [None, *range(len(shape))]:
            a, b = (t.sum() if dim is None else t.sum(dim) for t in (ours, theirs))
            assert _bits(a) == _bits(b), (shape, dim)
            a, b = (t.T.sum() if dim is None else t.T.sum(dim) for t in (ours, theirs))
            assert _bits(a) == _bits(b), (shape, dim, "transposed")


@pytest.mark.parametrize(
    "x_shape, b_shape",
    [
        ((5, 10, 7), (10, 1)),
        ((5, 10, 7), (1, 10, 1)),
        ((50, 30, 40), (40,)),
        ((500, 100), (100,)),
        ((64, 1000), ()),
        ((50000,), (1,)),
    ],  # fmt: skip
    ids=str,
)
def test_a_bias_broadcast_over_several_dims_gets_torchs_gradient(x_shape, b_shape):
    data = np.random.default_rng(len(x_shape)).normal(size=x_shape).astype(np.float32)
    grads = []
    for m in (gradcli, torch):
        b = m.zeros(b_shape, requires_grad=True)
        ((m.tensor(data) + b) ** 2).sum().backward()
        grads.append(_bits(b.grad))
    assert grads[0] == grads[1]


def _two_layer_net(m, steps):
    """jcjohnson's two_layer_net_autograd in float32: the loss at every step."""
    m.manual_seed(0)
    x, y = m.randn(64, 1000), m.randn(64, 10)
    w1 = m.randn(1000, 100, requires_grad=True)
    w2 = m.randn(100, 10, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with m.no_grad():
            w1 -= 1e-6 * w1.grad
            w2 -= 1e-6 * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    return losses


def test_a_float32_two_layer_net_ends_on_torchs_last_digit_given_its_products(monkeypatch):
    # PyTorch's matrix products are its BLAS's (MKL's sgemm, whose order is its own): taken
    # from PyTorch here, all the rest is gradcli's, and every one of 200 losses agrees.
    from gradcli.engine import applying
    from gradcli.engine.ops import OPS, products

    product = products._matmul  # noqa: SLF001  (the product replaced, on tensors and arrays)

    def products_of_torch(a, b):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype == np.float32 and a.ndim == b.ndim == 2:
            return (torch.from_numpy(a.copy()) @ torch.from_numpy(b.copy())).numpy()
        return product(a, b)

    monkeypatch.setattr(products, "_matmul", products_of_torch)
    for overload in OPS["matmul"].overloads:
        monkeypatch.setattr(overload, "forward", products_of_torch)
        monkeypatch.setattr(overload, "fn", applying.bind(overload))  # noqa: SLF001
        monkeypatch.setitem(OPS["matmul"].over, overload.key, overload.fn)
    assert _two_layer_net(gradcli, 200) == _two_layer_net(torch, 200)
