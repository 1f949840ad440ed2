"""``torch.func.vmap`` of ``nll_loss`` (and ``cross_entropy``, whose batching rule it shares)
against PyTorch 2.13's own ``torch.func.vmap`` of the same function: batched input and target,
each reduction, class weights the same at every point or each point's own, ignore_index, and
the transforms inside vmap (grad, jacrev, jacfwd, hessian), values and gradients to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle")

RNG = np.random.default_rng(7)
# Per point: (input, target) of shapes (C,) and (), (N, C) and (N,), (N, C, d) and (N, d).
SHAPES = {
    "1d": (RNG.standard_normal((4, 5)), RNG.integers(0, 5, (4,))),
    "2d": (RNG.standard_normal((4, 3, 5)), RNG.integers(0, 5, (4, 3))),
    "3d": (RNG.standard_normal((4, 3, 5, 2)), RNG.integers(0, 5, (4, 3, 2))),
}
WEIGHT = RNG.uniform(0.5, 2.0, 5)
WEIGHTS = RNG.uniform(0.5, 2.0, (4, 5))  # each point's own class weights

KEYWORDS = {
    "mean": {},
    "sum": {"reduction": "sum"},
    "none": {"reduction": "none"},
    "ignore_index": {"ignore_index": 2},
    "weight": {"weight": WEIGHT},
    "weight sum ignore_index": {"weight": WEIGHT, "reduction": "sum", "ignore_index": 1},
}


def _transformed(m, kind, loss):
    f = m.func
    if kind == "value":
        return f.vmap(loss)
    if kind == "grad":
        return f.vmap(f.grad(lambda *a: loss(*a).sum()))
    return f.vmap(getattr(f, kind)(loss))  # jacrev, jacfwd, hessian of the loss itself


def _both(kind, loss_of, *arrays):
    """The transform of the loss in PyTorch and in gradcli, each as NumPy."""
    results = []
    for m in (torch, gradcli):
        args = [m.tensor(a) for a in arrays]
        results.append(_transformed(m, kind, loss_of(m))(*args).detach().numpy())
    return results


@pytest.mark.parametrize("kind", ["value", "grad", "jacrev", "jacfwd"])
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name", list(KEYWORDS))
def test_vmap_of_nll_loss_is_pytorchs(name, shape, kind):
    keywords = KEYWORDS[name]
    if (name, shape, kind) == ("ignore_index", "1d", "jacfwd"):
        # A point whose one target is ignored: PyTorch's forward-mode formula is 0/0 = nan,
        # its reverse 0; gradcli's tangent is its reverse rule's (see the next test).
        pytest.skip("PyTorch's forward and reverse modes differ here")

    def loss_of(m):
        kw = {k: m.tensor(v) if k == "weight" else v for k, v in keywords.items()}
        return lambda x, t: m.nn.functional.nll_loss(x, t, **kw)

    expected, got = _both(kind, loss_of, *SHAPES[shape])
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kind", ["value", "grad", "jacrev"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("function", ["nll_loss", "cross_entropy"])
def test_class_weights_of_each_point(function, reduction, kind):
    # Before, an error: the weight had to be the same at every point.
    def loss_of(m):
        return lambda x, t, w: getattr(m.nn.functional, function)(
            x, t, w, ignore_index=0, reduction=reduction
        )

    expected, got = _both(kind, loss_of, *SHAPES["2d"], WEIGHTS)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_the_loss_itself_transformed_inside_vmap():
    # jacrev(F.nll_loss) was handed the function taken before vmap ran, which read the
    # BatchedTensor's values: not supported, where PyTorch's dispatches.
    x, t = SHAPES["2d"]
    for kind in ("jacrev", "jacfwd", "hessian"):
        results = [
            _transformed(m, kind, m.nn.functional.nll_loss)(m.tensor(x), m.tensor(t))
            for m in (torch, gradcli)
        ]
        expected, got = (r.detach().numpy() for r in results)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, err_msg=kind)


def test_each_points_weights_with_label_smoothing_say_they_are_not_implemented():
    x, t = SHAPES["2d"]
    loss = gradcli.func.vmap(
        lambda x, t, w: gradcli.nn.functional.cross_entropy(x, t, w, label_smoothing=0.1)
    )
    with pytest.raises(gradcli.errors.GradcliError, match="weight varying from point to point"):
        loss(gradcli.tensor(x), gradcli.tensor(t), gradcli.tensor(WEIGHTS))


@pytest.mark.parametrize("weight", [None, WEIGHT])
def test_a_mean_of_targets_all_ignored_has_gradient_0_as_pytorchs(weight):
    # The mean's weights were w / sum(w) = 0/0, a nan gradient at class 0, where PyTorch's
    # backward writes the kept targets' alone; the value is nan in both (0/0).
    x, t = SHAPES["2d"][0][0], np.full(3, 2)
    grads = []
    for m in (torch, gradcli):
        xs = m.tensor(x, requires_grad=True)
        w = None if weight is None else m.tensor(weight)
        loss = m.nn.functional.nll_loss(xs, m.tensor(t), w, ignore_index=2)
        assert np.isnan(loss.item())
        grads.append(m.autograd.grad(loss, xs)[0].numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    assert not grads[1].any()
