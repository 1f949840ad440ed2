"""The fixes of cases the op-sample matrix found, checked beyond its samples against
PyTorch 2.13 in float64: a gradient that depends on its input only through a mask, the
gradient of nll_loss as a function of its cotangent, nll_loss at many points,
take_along_dim where the indices and the input broadcast against each other, and the
second derivatives of F.pad's reflect and replicate modes.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.autograd import functional as gf

torch = pytest.importorskip("torch", reason="the expected values come from PyTorch 2.13")

pytestmark = pytest.mark.usefixtures("float64")

X = np.array([[0.7, -1.2, 0.0, 2.5], [-0.3, 1.1, -2.0, 0.4], [1.6, -0.8, 0.9, -1.4]])
TARGET = np.array([2, 0, 3])
WEIGHT = np.array([0.5, 1.0, 2.0, 0.25])


def _nll(m, x, **kw):
    if "weight" in kw:
        kw["weight"] = m.tensor(kw["weight"], dtype=m.float64)
    return m.nn.functional.nll_loss(x, m.tensor(TARGET), **kw)


#: Functions whose gradient depends on x only through a mask (x > 0, the target classes):
#: PyTorch's *_backward kernels take x, with derivative 0.
MASKED = {
    "relu": lambda m, x: m.relu(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x, 0.2),
    # In place its rule reads the result (LeakyReluBackward1): the same op of its own.
    "leaky_relu in place": lambda m, x: m.nn.functional.leaky_relu(x * 1.0, 0.2, inplace=True),
    "nll_loss mean": lambda m, x: _nll(m, x),
    "nll_loss sum, weight": lambda m, x: _nll(m, x, weight=WEIGHT, reduction="sum"),
    "nll_loss none, ignore_index": lambda m, x: _nll(m, x, ignore_index=0, reduction="none"),
    "nll_loss2d": lambda m, x: m.nn.functional.nll_loss(
        x.reshape(1, 3, 2, 2), m.tensor(TARGET[:1].reshape(1, 1, 1).repeat(2, 1).repeat(2, 2))
    ),
}


def _second(m, f):
    x = m.tensor(X, dtype=m.float64, requires_grad=True)
    out = f(m, x)
    (g,) = m.autograd.grad(out, x, m.ones_like(out), create_graph=True)
    (g2,) = m.autograd.grad((g * m.tensor(X + 1.0)).sum(), x)  # no allow_unused: x is used
    return type(g.grad_fn).__name__, g.detach().numpy(), g2.numpy()


@pytest.mark.parametrize("case", sorted(MASKED))
def test_a_gradient_through_a_mask_has_second_derivative_zero_as_pytorch(case):
    # It raised "does not require grad" (leaky_relu, nll_loss) or "not used in the graph"
    # (relu): PyTorch gives zeros, and records the gradient under its *BackwardBackward0.
    ours, theirs = _second(gradcli, MASKED[case]), _second(torch, MASKED[case])
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert np.array_equal(ours[2], theirs[2]) and not ours[2].any()


def test_leaky_relu_in_place_with_a_negative_slope_has_pytorchs_backward_error():
    # From the result the side x was on is unknown when the slope is negative: PyTorch's
    # backward refuses it, and gradcli's gave g on both sides (1 at x = -2, not -0.2).
    for m, error in ((torch, RuntimeError), (gradcli, gradcli.errors.EngineError)):
        x = m.tensor([1.0, -2.0], dtype=m.float64, requires_grad=True)
        y = m.nn.functional.leaky_relu(x * 1.0, -0.2, inplace=True)
        with pytest.raises(error, match="In-place leakyReLu backward .* negative slope"):
            m.autograd.grad(y.sum(), x)


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "sum"}, {"reduction": "none"}, {"weight": WEIGHT}, {"ignore_index": 3}],
    ids=str,
)
def test_the_hessian_through_nll_loss_cotangent_is_pytorchs(kw):
    # The loss squared: the gradient of nll_loss is a function of its cotangent 2*loss,
    # so the Hessian goes through nll_loss_backward's rule for it (PyTorch's: nll_loss of
    # the cotangent's cotangent), in a batched pass.
    def f(m, x):
        return (_nll(m, m.tanh(x), **dict(kw)) ** 2).sum()

    ours = gf.hessian(lambda x: f(gradcli, x), gradcli.tensor(X)).numpy()
    theirs = torch.autograd.functional.hessian(lambda x: f(torch, x), torch.tensor(X)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-14)
    assert np.abs(theirs).max() > 0.1


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("point", [(4,), (3, 4), (2, 4, 3)], ids=str)
def test_nll_loss_at_many_points_with_their_own_targets_is_pytorchs(point, reduction):
    # The target was padded with the input as a batch of losses (a target of shape (3,) for
    # an input of (3, 3, 4)); now every point's samples form one batch, as cross_entropy's.
    rng = np.random.default_rng(len(point))
    classes = point[1] if len(point) > 1 else point[0]
    x = rng.normal(size=(5, *point))
    t = rng.integers(0, classes, size=(5, *point[:1], *point[2:]) if len(point) > 1 else 5)

    def f(m):
        w = m.tensor(WEIGHT[:classes], dtype=m.float64)
        # Through the module at call time: vmap batches the gradcli.<name> functions there.
        space = gradcli if m is gradcli else torch.nn.functional
        return m.func.vmap(lambda a, b: space.nll_loss(a, b, w, reduction=reduction))(
            m.tensor(x), m.tensor(t)
        )

    ours, theirs = f(gradcli), f(torch)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "x_shape, index",
    [((1, 3), [[0, 2, 2], [1, 0, 0]]), ((2, 3), [[0, 0, 2]]), ((3, 1), [[0], [0], [0]])],
    ids=["input broadcast", "indices broadcast", "one column"],
)
@pytest.mark.parametrize("kind", ["jacobian", "hessian"])
def test_take_along_dim_where_index_and_input_broadcast_is_pytorchs(x_shape, index, kind):
    # The rule's put_along_dim broadcast the index to g (failing where it broadcast
    # against the input) and scattered into x's shape (out of bounds where x broadcast).
    x = np.linspace(-1.0, 1.5, int(np.prod(x_shape))).reshape(x_shape)
    w = np.linspace(0.5, 2.0, np.size(index)).reshape(np.shape(index))

    def f(m, a):
        out = m.take_along_dim(a, m.tensor(index), 1)
        return out * out * m.tensor(w) if kind == "jacobian" else (out**3 * m.tensor(w)).sum()

    ours = getattr(gf, kind)(lambda a: f(gradcli, a), gradcli.tensor(x)).numpy()
    theirs = getattr(torch.autograd.functional, kind)(lambda a: f(torch, a), torch.tensor(x))
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-12)


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.87, -0.87, 3.0, -5.0]


def _remainder_everywhere(m):
    """x % y at every pair of special points: its value, its first derivatives, the second
    by double backward (``grad2``) and the Hessian of ``sum(w * (x % y))``."""
    a, b = (m.tensor(v, dtype=m.float64) for v in np.meshgrid(SPECIAL, SPECIAL))
    w = m.tensor(np.linspace(-0.75, 1.75, a.numel()).reshape(a.shape), dtype=m.float64)
    x, y = a.clone().requires_grad_(), b.clone().requires_grad_()
    out = m.remainder(x, y)
    first = m.autograd.grad(out, (x, y), w + 0.25, create_graph=True)
    second = m.autograd.grad((first[1] * w).sum(), (x, y), allow_unused=True)
    hessian = m.autograd.functional.hessian(lambda x, y: (m.remainder(x, y) * w).sum(), (a, b))
    found = [out, *first, *(s if s is not None else m.zeros_like(a) for s in second)]
    return [t.detach().numpy() for t in (*found, *(h for row in hessian for h in row))]


def test_remainder_at_zero_infinite_and_nan_points_is_pytorchs_exactly():
    # The second derivatives were nan at y = +-0, x = +-inf and nan points, where PyTorch's
    # are 0: its rule's x // y is div(rounding_mode="floor"), of derivative zeros, and ours
    # was floor(x / y), whose zeros met 0 / 0 and 0 * inf. A zero value keeps x's sign, as
    # fmod's (NumPy's remainder gives it y's: 0.87 % -0.87 was -0.0).
    for k, (ours, theirs) in enumerate(
        zip(_remainder_everywhere(gradcli), _remainder_everywhere(torch))
    ):
        assert np.array_equal(ours, theirs, equal_nan=True), k
        numbers = ~np.isnan(theirs)
        assert np.array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers])), k


#: F.pad's reflect and replicate modes of 1, 2 and 3 dims, each unbatched and batched.
PADS = [
    ((2, 5), (1, 2)),
    ((2, 2, 5), (2, 1)),
    ((1, 3, 4), (1, 2, 2, 1)),
    ((2, 1, 3, 4), (0, 2, 1, 1)),
    ((1, 3, 3, 4), (1, 2, 1, 1, 2, 1)),
    ((2, 1, 3, 3, 4), (2, 1, 1, 1, 1, 2)),
]


def _padded(shape):
    return np.linspace(-1.3, 2.1, int(np.prod(shape))).reshape(shape)


def _pad_second(m, mode, shape, pad, power):
    x = m.tensor(_padded(shape), dtype=m.float64, requires_grad=True)
    out = m.nn.functional.pad(x, pad, mode=mode) ** power
    v = m.tensor(_padded(tuple(out.shape)) + 0.5, dtype=m.float64)
    (g,) = m.autograd.grad(out, x, v, create_graph=True)
    (g2,) = m.autograd.grad((g * m.tensor(_padded(shape) ** 2)).sum(), x)  # x is used
    return type(g.grad_fn).__name__, g.detach().numpy(), g2.numpy()


@pytest.mark.parametrize("power", [1, 2], ids=["linear", "squared"])
@pytest.mark.parametrize("shape, pad", PADS, ids=str)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_the_second_derivative_of_a_reflect_or_replicate_pad_is_pytorchs(mode, shape, pad, power):
    # The pad's gradient was an IndexPutBackward of g alone: of F.pad(x) itself it did not
    # require grad and double backward raised, where PyTorch's ReflectionPad1DBackwardBackward0
    # takes x, with derivative 0.
    ours = _pad_second(gradcli, mode, shape, pad, power)
    theirs = _pad_second(torch, mode, shape, pad, power)
    name = {"reflect": "Reflection", "replicate": "Replication"}[mode]
    assert ours[0] == theirs[0] == f"{name}Pad{len(pad) // 2}DBackwardBackward0"
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)
    assert ours[2].any() == (power == 2)


@pytest.mark.parametrize("shape, pad", PADS, ids=str)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_the_hessian_of_a_reflect_or_replicate_pad_squared_is_pytorchs(mode, shape, pad):
    # A batched pass through the gradient's rule: the pad again, of a cotangent with a
    # leading batch dim.
    def f(m, x):
        return (m.nn.functional.pad(x, pad, mode=mode) ** 2).sum()

    x = _padded(shape)
    ours = gf.hessian(lambda a: f(gradcli, a), gradcli.tensor(x)).numpy()
    theirs = torch.autograd.functional.hessian(lambda a: f(torch, a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    # 2 * (how often each entry appears in the padded result) on the diagonal, nothing else.
    n = x.size
    counts = np.diagonal(theirs.reshape(n, n)) / 2
    assert counts.min() >= 1 and counts.max() > 1
    assert not (theirs.reshape(n, n) - np.diag(2 * counts)).any()
