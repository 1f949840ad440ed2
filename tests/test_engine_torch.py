"""gradcli against PyTorch 2.13, the test oracle: flags, names and errors.

Each test runs the same code twice, with ``m = gradcli`` and ``m = torch``, and
compares: the ops without a gradient or a derivative, the kinks and edge values, the
errors (same exception type, same gist of message), the autograd API semantics, and
the tensor API (compared through ``repr``, which prints as PyTorch does). Every op's
value, derivatives and grad_fn on its samples are the op-sample matrix's
(``test_op_matrix.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradcli
from gradcli.engine import ops
from gradcli.errors import GradcliError

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

RTOL = 1e-10
ATOL = 1e-12
LIBS = pytest.mark.parametrize("m", [gradcli, torch], ids=["gradcli", "torch"])


def _np(t):
    if t is None or isinstance(t, np.ndarray):
        return t
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)
    return np.asarray(t.detach()._data)


def _assert_close(ours, theirs, what="", rtol=RTOL):
    ours, theirs = _np(ours), _np(theirs)
    assert ours.shape == theirs.shape, what
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=ATOL, err_msg=what)


def _derivatives(m, fn, arrays, seed=1):
    """The value, the first derivatives vᵀJ and second derivatives of fn at arrays."""
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    rng = np.random.default_rng(seed)
    w = m.tensor(rng.uniform(-1, 1, tuple(out.shape)))
    first = m.autograd.grad((out * w).sum(), xs, create_graph=True, allow_unused=True)
    first = [m.zeros_like(x) if g is None else g for g, x in zip(first, xs)]
    v = [m.tensor(rng.uniform(-1, 1, a.shape)) for a in arrays]
    second_order = [(g * vi).sum() for g, vi in zip(first, v) if g.requires_grad]
    second = [None] * len(xs)
    if second_order:
        second = m.autograd.grad(sum(second_order), xs, allow_unused=True)
    second = [m.zeros_like(x) if g is None else g for g, x in zip(second, xs)]
    return [out, *first, *second]


def nn(m):
    """torch.nn.functional for PyTorch; gradcli keeps those functions at the top level."""
    return m.nn.functional if m.__name__ == "torch" else m


# Ops without a gradient: their results never require grad, as PyTorch's.
NONDIFF_CASES = [
    ("lt", lambda m, x, y: x < y),
    ("le", lambda m, x, y: x <= y),
    ("gt", lambda m, x, y: m.gt(x, y)),
    ("ge", lambda m, x, y: x >= y),
    ("eq", lambda m, x, y: x == y),
    ("ne", lambda m, x, y: x.ne(y)),
    ("logical_and", lambda m, x, y: (x > 0) & (y > 0)),
    ("logical_or", lambda m, x, y: (x > 0) | (y > 0)),
    ("logical_not", lambda m, x, y: ~(x > y)),
    ("isnan", lambda m, x, y: m.isnan(m.log(x))),
    ("isinf", lambda m, x, y: m.isinf(1.0 / m.relu(x))),
    ("isfinite", lambda m, x, y: m.isfinite(m.log(x))),
    ("argmax", lambda m, x, y: m.argmax(x, 1)),
    ("argmin", lambda m, x, y: x.argmin()),
    ("all", lambda m, x, y: (x > -0.5).all(1)),
    ("any", lambda m, x, y: m.any(x > y)),
    ("isclose", lambda m, x, y: m.isclose(x, y)),
    ("nonzero", lambda m, x, y: (x > y).nonzero()),
    ("argsort", lambda m, x, y: x.argsort(1, descending=True)),
    ("detach", lambda m, x, y: m.detach(x * y)),
    ("one_hot", lambda m, x, y: m.nn.functional.one_hot((x > y).long(), 3)),
    # A cast to integers or bool: its result carries no gradient (ToCopyBackward0 it was).
    ("long", lambda m, x, y: x.long()),
    ("to int32", lambda m, x, y: x.to(m.int32)),
    ("bool", lambda m, x, y: x.bool()),
]

# Ops whose derivative PyTorch does not implement: grad_fn NotImplemented, backward
# raises.
NO_DERIVATIVE_CASES = [
    ("floor_divide", lambda m, x: x // 0.3),
    ("rfloor_divide", lambda m, x: 2.0 // x),
    ("remainder", lambda m, x: 2.0 % x),
]


def test_sizes_are_torchs():
    # numel and len give Python ints, never tensors.
    for shape in [(2, 3), (4,), (0, 5), ()]:
        x = np.zeros(shape)
        assert ops.numel(gradcli.tensor(x)) == torch.numel(torch.tensor(x))
        if shape:
            assert ops.FUNCTIONS["len"].call(gradcli.tensor(x)) == len(torch.tensor(x))
        else:
            with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
                len(torch.tensor(x))
            with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
                ops.FUNCTIONS["len"].call(gradcli.tensor(x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("name", "fn"), NONDIFF_CASES, ids=[n for n, _ in NONDIFF_CASES])
def test_ops_without_gradient_match_torch(name, fn):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 3))
    x[0, 0] = 0.0
    y = np.where(rng.uniform(size=(2, 3)) < 0.5, x, rng.uniform(-1, 1, (2, 3)))
    ours = fn(gradcli, gradcli.tensor(x, requires_grad=True), gradcli.tensor(y))
    theirs = fn(torch, torch.tensor(x, requires_grad=True), torch.tensor(y))
    assert (
        (ours.requires_grad, ours.grad_fn)
        == (False, None)
        == (theirs.requires_grad, theirs.grad_fn)
    )
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    ("name", "fn"), NO_DERIVATIVE_CASES, ids=[n for n, _ in NO_DERIVATIVE_CASES]
)
def test_ops_without_derivative_record_and_raise_as_torch(name, fn):
    x = np.array([0.7, -1.3, 2.2])
    results = []
    for m in (gradcli, torch):
        out = fn(m, m.tensor(x, requires_grad=True))
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        results.append((repr(out), str(info.value)))
    assert results[0] == results[1]


# ----------------------------------------------------------------------------
# Kinks and edge values: the subgradients PyTorch picks
# ----------------------------------------------------------------------------

INF = float("inf")

KINKS = [
    ("abs at 0", lambda m, x: m.abs(x), [0.0, 1.0, -1.0]),
    ("relu at 0", lambda m, x: m.relu(x), [0.0, 1.0, -1.0]),
    ("sqrt at 0 is inf", lambda m, x: m.sqrt(x), [0.0, 4.0]),
    ("sign", lambda m, x: m.sign(x), [0.0, -2.0, 4.0]),
    ("amax ties share", lambda m, x: m.amax(x), [1.0, 3.0, 3.0, 2.0]),
    ("amax ties along dim", lambda m, x: m.amax(x.view(2, 2), 1), [3.0, 3.0, 1.0, 2.0]),
    ("amin three-way tie", lambda m, x: m.amin(x), [1.0, 1.0, 1.0, 2.0]),
    ("max ties share", lambda m, x: m.max(x), [1.0, 3.0, 3.0, 2.0]),
    ("max(x, dim) ties go to the index", lambda m, x: m.max(x, 0).values, [1.0, 3.0, 3.0, 2.0]),
    (
        "min(x, dim) ties go to the index",
        lambda m, x: m.min(x.view(2, 2), 0)[0],
        [1.0, 1.0, 1.0, 2.0],
    ),
    (
        "maximum tie halves",
        lambda m, x: m.maximum(x, m.tensor([0.0, 1.0, 2.0], dtype=m.float64)),
        [0.0, 2.0, 2.0],
    ),
    (
        "minimum tie halves",
        lambda m, x: m.minimum(x, m.tensor([0.0, 1.0, 2.0], dtype=m.float64)),
        [0.0, 2.0, 2.0],
    ),
    ("clamp passes on its bounds", lambda m, x: m.clamp(x, -1.0, 1.0), [-1.0, 1.0, 2.0, -2.0, 0.0]),
    ("clamp min only", lambda m, x: m.clamp(x, min=0.0), [0.0, 1.0, -1.0]),
    ("clamp max only", lambda m, x: x.clamp(max=0.0), [0.0, 1.0, -1.0]),
    ("clamp with min > max", lambda m, x: m.clamp(x, 1.0, 0.0), [0.0, 1.0, -1.0, 0.5]),
    ("prod without zero", lambda m, x: m.prod(x), [2.0, 5.0, 3.0]),
    ("prod with one zero", lambda m, x: m.prod(x), [2.0, 0.0, 3.0]),
    ("prod with two zeros", lambda m, x: m.prod(x), [2.0, 0.0, 0.0]),
    (
        "prod along dim with zeros",
        lambda m, x: m.prod(x.view(3, 3), 1),
        [2.0, 0.0, 3.0, 0.0, 0.0, 4.0, 1.0, 2.0, 3.0],
    ),
    (
        "prod along dim 0 with zeros",
        lambda m, x: x.view(2, 2).prod(0, keepdim=True),
        [0.0, 0.0, 0.0, 5.0],
    ),
    ("prod all zeros", lambda m, x: m.prod(x), [0.0, 0.0, 0.0, 1.0]),
    ("norm at the origin", lambda m, x: m.norm(x), [0.0, 0.0]),
    ("1-norm at 0", lambda m, x: m.norm(x, 1), [0.0, 1.0]),
    ("inf-norm tie", lambda m, x: m.norm(x, INF), [-2.0, 2.0, 1.0]),
    ("3-norm at the origin", lambda m, x: m.norm(x, 3), [0.0, 0.0]),
    ("x ** 0 at 0", lambda m, x: x**0, [0.0, 1.0]),
    ("x ** 2 at 0", lambda m, x: x**2, [0.0, 1.0]),
    ("x ** 0.5 at 0", lambda m, x: x**0.5, [0.0, 1.0]),
    ("x ** -1 at 0", lambda m, x: x**-1, [0.0, 1.0]),
    ("0 ** y", lambda m, y: m.zeros(3, dtype=m.float64) ** y, [0.0, 1.0, 2.0]),
    ("pow(0, y) with y < 0", lambda m, y: m.pow(m.zeros(3, dtype=m.float64), y), [-1.0, 0.5, 2.0]),
    (
        "x ** y at x = 0",
        lambda m, x: x ** m.tensor([0.0, 2.0, 0.0], dtype=m.float64),
        [0.0, 0.0, 2.0],
    ),
    ("log at 0", lambda m, x: m.log(x), [0.0, 1.0]),
    ("floor at an integer", lambda m, x: m.floor(x), [1.0, 1.5]),
    ("std with equal entries", lambda m, x: x.std(), [1.0, 1.0]),
    ("sigmoid saturated", lambda m, x: m.sigmoid(x), [-800.0, 800.0]),
    ("atan2 at the origin", lambda m, x: m.atan2(x, m.zeros(2, dtype=m.float64)), [0.0, 1.0]),
    ("logsumexp with -inf", lambda m, x: m.logsumexp(x, 0), [-INF, 0.0]),
    ("asin at 1", lambda m, x: m.asin(x), [1.0]),
    ("acosh at 1", lambda m, x: m.acosh(x), [1.0]),
    ("where with a nan branch", lambda m, x: m.where(x > 0, m.sqrt(x), x), [0.0, 1.0]),
    (
        "hypot at the origin is nan",
        lambda m, x: m.hypot(x, m.zeros(2, dtype=m.float64)),
        [0.0, 1.0],
    ),
    ("sinc at 0", lambda m, x: m.sinc(x), [0.0, 0.5, -1.0]),
    ("lgamma at poles", lambda m, x: m.lgamma(x), [0.0, -0.0, -2.0, 1.0]),
    ("digamma at 0", lambda m, x: m.digamma(x), [0.0, -0.0]),
    ("erfinv at -1 and 1", lambda m, x: m.erfinv(x), [1.0, -1.0, 0.0]),
    ("xlogy at x = 0", lambda m, x: m.xlogy(x, m.tensor([0.0, 2.0], dtype=m.float64)), [0.0, 0.0]),
    ("xlogy at y = 0", lambda m, y: m.xlogy(m.tensor([0.0, 2.0], dtype=m.float64), y), [0.0, 0.0]),
    (
        "xlogy at y < 0",
        lambda m, x: m.xlogy(x, m.tensor([-1.0, -1.0], dtype=m.float64)),
        [0.0, 1.0],
    ),
    ("leaky_relu at 0", lambda m, x: nn(m).leaky_relu(x, 0.2), [0.0, 1.0, -1.0]),
    ("elu at 0", lambda m, x: nn(m).elu(x, 2.0), [0.0, 1.0, -1.0]),
    ("gelu at 0", lambda m, x: nn(m).gelu(x), [0.0]),
    ("softsign at 0", lambda m, x: nn(m).softsign(x), [0.0, 2.0]),
    ("cumprod with zeros", lambda m, x: m.cumprod(x, 0), [2.0, 0.0, 3.0, 0.0, 5.0]),
    (
        "binary_cross_entropy at 0 and 1",
        lambda m, x: nn(m).binary_cross_entropy(x, m.tensor([0.0, 1.0, 1.0], dtype=m.float64)),
        [0.0, 0.0, 1.0],
    ),
    ("logdet of a negative determinant", lambda m, x: m.logdet(x.view(2, 2)), [1.0, 2.0, 3.0, 4.0]),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("name", "fn", "values"),
    [
        ("elu at 0", lambda m, x: nn(m).elu(x, 2.0), [0.0, 1.0, -1.0]),
        ("gelu at 0", lambda m, x: nn(m).gelu(x), [0.0, 1.0]),
        ("softsign at 0", lambda m, x: nn(m).softsign(x), [0.0, 2.0]),
        ("leaky_relu at 0", lambda m, x: nn(m).leaky_relu(x), [0.0, 1.0]),
        ("cumprod with zeros", lambda m, x: m.cumprod(x, 0), [2.0, 0.0, 3.0, 0.0, 5.0]),
    ],
)
def test_second_derivatives_at_kinks_match_torch(name, fn, values):
    def second(m):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(fn(m, x).sum(), x, create_graph=True)
        if not g.requires_grad:
            return m.zeros_like(x)
        return m.autograd.grad((g * m.arange(1, len(values) + 1)).sum(), x)[0]

    _assert_close(second(gradcli), second(torch), name)


def test_second_derivative_of_sinc_at_0_is_its_limit():
    # PyTorch gives nan there; sinc(x) = 1 - (pi x)**2 / 6 + ..., so sinc''(0) = -pi**2 / 3.
    x = gradcli.tensor([0.0], dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad(gradcli.sinc(x).sum(), x, create_graph=True)
    (h,) = gradcli.autograd.grad(g.sum(), x)
    assert g.item() == 0.0
    assert h.item() == pytest.approx(-(np.pi**2) / 3, rel=1e-14)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("name", "fn", "values"), KINKS, ids=[k[0] for k in KINKS])
def test_kinks_and_edge_values_match_torch(name, fn, values):
    def gradient(m):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        fn(m, x).sum().backward()
        return x.grad

    _assert_close(gradient(gradcli), gradient(torch), name)


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
def test_prod_with_zeros_second_and_third_order_match_torch(values):
    def derivatives(m):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        w = m.arange(1, len(values) + 1, dtype=m.float64)
        (g,) = m.autograd.grad(x.prod(), x, create_graph=True)
        (h,) = m.autograd.grad((g * w).sum(), x, create_graph=True)
        (k,) = m.autograd.grad((h * h).sum(), x)
        return g, h, k

    for ours, theirs in zip(derivatives(gradcli), derivatives(torch)):
        _assert_close(ours, theirs)


# ----------------------------------------------------------------------------
# Errors: the same exception type and the same gist as PyTorch
# ----------------------------------------------------------------------------


def _second_backward(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _second_grad(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    m.autograd.grad(y, x)
    m.autograd.grad(y, x)


def _setitem_on_leaf(m):
    x = m.ones(3, requires_grad=True)
    x[0] = 5.0


def _iadd_on_leaf(m):
    x = m.ones(3, requires_grad=True)
    x += 1


def _setitem_shapes(m):
    x = m.zeros(3)
    x[0:2] = m.ones(3)


ERRORS = [
    (
        "backward of a non-scalar",
        lambda m: (m.ones(2, requires_grad=True) * 2).backward(),
        "grad can be implicitly created only for scalar outputs",
    ),
    (
        "autograd.grad of a non-scalar",
        lambda m: m.autograd.grad(m.ones(2, requires_grad=True) * 2, m.ones(1, requires_grad=True)),
        "grad can be implicitly created only for scalar outputs",
    ),
    (
        "second backward through a freed graph",
        _second_backward,
        "Trying to backward through the graph a second time",
    ),
    ("second autograd.grad through a freed graph", _second_grad, "Specify retain_graph=True"),
    (
        "backward of a tensor that does not require grad",
        lambda m: m.tensor([1.0, 2.0]).sum().backward(),
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    (
        "mismatched shapes in +",
        lambda m: m.ones(2, 3) + m.ones(4),
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    ),
    ("mismatched shapes in *", lambda m: m.ones(2, 3) * m.ones(2), "must match the size of"),
    (
        "mismatched shapes in maximum",
        lambda m: m.maximum(m.ones(2), m.ones(3)),
        "must match the size of",
    ),
    (
        "in-place add on a leaf",
        lambda m: m.ones(2, requires_grad=True).add_(1),
        "a leaf Variable that requires grad is being used in an in-place operation",
    ),
    (
        "+= on a leaf",
        _iadd_on_leaf,
        "a leaf Variable that requires grad is being used in an in-place operation",
    ),
    (
        "zero_ on a leaf",
        lambda m: m.ones(2, requires_grad=True).zero_(),
        "leaf Variable that requires grad is being used in an in-place operation",
    ),
    (
        "index assignment on a leaf",
        _setitem_on_leaf,
        "leaf Variable that requires grad is being used in an in-place operation",
    ),
    (
        "matmul of mismatched matrices",
        lambda m: m.ones(2, 3) @ m.ones(2, 3),
        "shapes cannot be multiplied (2x3 and 2x3)",
    ),
    (
        "matmul of a 0-d tensor",
        lambda m: m.matmul(m.tensor(1.0), m.ones(3)),
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
    ),
    (
        "dot of a matrix",
        lambda m: m.dot(m.ones(2, 3), m.ones(3)),
        "1D tensors expected, but got 2D and 1D tensors",
    ),
    (
        "cat of mismatched tensors",
        lambda m: m.cat([m.ones(2, 3), m.ones(2, 2)]),
        "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for "
        "tensor number 1 in the list.",
    ),
    (
        "stack of mismatched tensors",
        lambda m: m.stack([m.ones(2, 3), m.ones(2, 2)]),
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 2] at "
        "entry 1",
    ),
    (
        "view to a wrong size",
        lambda m: m.ones(2, 3).view(4),
        "shape '[4]' is invalid for input of size 6",
    ),
    (
        "expand to a wrong size",
        lambda m: m.ones(2, 3).expand(3, 3),
        "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
        "dimension 0",
    ),
    (
        "assignment of a wrong shape",
        _setitem_shapes,
        "The expanded size of the tensor (2) must match the existing size (3)",
    ),
    (
        "permute with too few dims",
        lambda m: m.ones(2, 3).permute(0),
        "does not match the length of the desired ordering of dimensions",
    ),
    (
        "dim out of range",
        lambda m: m.ones(3).sum(3),
        "Dimension out of range (expected to be in range of [-1, 0], but got 3)",
    ),
    (
        "transpose dim out of range",
        lambda m: m.ones(2, 3).transpose(0, 3),
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    ("index out of range", lambda m: m.ones(3)[5], "index 5 is out of bounds"),
    (
        "item of many elements",
        lambda m: m.ones(3).item(),
        "a Tensor with 3 elements cannot be converted to Scalar",
    ),
    (
        "numpy() of a tensor that requires grad",
        lambda m: m.ones(2, requires_grad=True).numpy(),
        "Can't call numpy() on Tensor that requires grad",
    ),
    (
        "an integer tensor that requires grad",
        lambda m: m.tensor([1, 2], requires_grad=True),
        "Only Tensors of floating point and complex dtype can require gradients",
    ),
    (
        "autograd.grad of an unused input",
        lambda m: m.autograd.grad(
            (m.ones(2, requires_grad=True) * 2).sum(), [m.ones(1, requires_grad=True)]
        ),
        "appears to not have been used in the graph. Set allow_unused=True",
    ),
    (
        "autograd.grad of an input without grad",
        lambda m: m.autograd.grad((m.ones(2, requires_grad=True) * 2).sum(), [m.ones(1)]),
        "One of the differentiated Tensors does not require grad",
    ),
    (
        "gradient of the wrong shape",
        lambda m: (m.ones(2, requires_grad=True) * 2).backward(m.ones(3)),
        "Mismatch in shape: grad_output[0] has a shape of",
    ),
    (
        "truth value of many elements",
        lambda m: bool(m.ones(2)),
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    (
        "requires_grad_(False) on a non-leaf",
        lambda m: (m.ones(2, requires_grad=True) * 2).requires_grad_(False),
        "you can only change requires_grad flags of leaf variables",
    ),
    (
        "retain_grad on a constant",
        lambda m: m.ones(2).retain_grad(),
        "can't retain_grad on Tensor that has requires_grad=False",
    ),
    (
        "integer to a negative power",
        lambda m: m.tensor([1, 2]) ** -1,
        "Integers to negative integer powers are not allowed.",
    ),
    ("mean of integers", lambda m: m.tensor([1, 2]).mean(), "mean(): could not infer output dtype"),
    (
        "det of a non-square matrix",
        lambda m: m.det(m.ones(2, 3)),
        "A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    ("len of a 0-d tensor", lambda m: len(m.tensor(1.0)), "len() of a 0-d tensor"),
    (
        "float() of many elements",
        lambda m: float(m.ones(2)),
        "only one element tensors can be converted to Python scalars",
    ),
    (
        "requires_grad_ on integers",
        lambda m: m.tensor([1, 2]).requires_grad_(),
        "only Tensors of floating point dtype can require gradients",
    ),
    (
        "ragged nested lists",
        lambda m: m.tensor([[1.0, 2.0], [3.0]]),
        "expected sequence of length 2 at dim 1 (got 1)",
    ),
    (
        "ragged deeper down",
        lambda m: m.tensor([[[1], [2]], [[3], [4, 5]]]),
        "expected sequence of length 1 at dim 2 (got 2)",
    ),
    ("a list of strings", lambda m: m.tensor(["a"]), "too many dimensions 'str'"),
    ("a string", lambda m: m.tensor("a"), "new(): invalid data type 'str'"),
    ("a tensor plus a string", lambda m: m.ones(2) + "a", "unsupported operand type(s) for"),
    ("mean of longs names Long", lambda m: m.tensor([1, 2]).mean(), "Got: Long"),
    (
        "the wrong gradient shape is reported before requires_grad",
        lambda m: m.ones(2).backward(m.ones(3)),
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
        "shape of torch.Size([2]).",
    ),
    (
        "a gradient that is not a tensor",
        lambda m: (m.ones(2, requires_grad=True) * 2).backward([1.0, 1.0]),
        "gradients can be either Tensors or None, but got float",
    ),
    (
        "a hook on a constant",
        lambda m: m.ones(2).register_hook(print),
        "cannot register a hook on a tensor that doesn't require gradient",
    ),
    (
        "in-place float arithmetic on integers",
        lambda m: m.tensor([1, 2]).add_(1.5),
        "result type Float can't be cast to the desired output type Long",
    ),
    ("integer division by zero", lambda m: m.tensor([3]) // 0, "ZeroDivisionError"),
    ("integer remainder by zero", lambda m: m.tensor([3]) % 0, "ZeroDivisionError"),
    (
        "gather with fewer dims",
        lambda m: m.ones(2, 3).gather(1, m.tensor([0, 1])),
        "Index tensor must have the same number of dimensions as input tensor",
    ),
    (
        "in-place arithmetic on an expanded tensor",
        lambda m: m.ones(2, 1).expand(2, 3).add_(1),
        "more than one element of the written-to tensor refers to a single memory location",
    ),
    (
        "assignment into a row of an expanded tensor",
        lambda m: m.ones(2, 1).expand(2, 3).__setitem__(0, 1.0),
        "more than one element of the written-to tensor refers to a single memory location",
    ),
    (
        "+= of a larger shape",
        lambda m: m.ones(3).__iadd__(m.ones(2, 3)),
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    (
        "+= of a larger shape in a graph",
        lambda m: (m.ones(3, requires_grad=True) * 1).__iadd__(m.ones(2, 3)),
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    (
        "view of a transpose",
        lambda m: m.ones(2, 3).T.view(-1),
        "view size is not compatible with input tensor's size and stride",
    ),
    *(
        (f"one_hot {name}", lambda m, c=call: c(m.nn.functional.one_hot, m), gist)
        for name, call, gist in [
            ("of a negative class", lambda f, m: f(m.tensor([-1, 0]), 3), "must be non-negative"),
            ("of a class too large", lambda f, m: f(m.tensor([3]), 3), "smaller than num_classes"),
            ("of floats", lambda f, m: f(m.tensor([1.0]), 3), "of type LongTensor"),
            ("of int32", lambda f, m: f(m.tensor([1], dtype=m.int32)), "of type LongTensor"),
            ("of nothing", lambda f, m: f(m.tensor([], dtype=m.int64)), "from empty tensor"),
            ("num_classes 2.5", lambda f, m: f(m.tensor([1]), 2.5), "must be int, not float"),
        ]
    ),
    (
        "index_select with a matrix",
        lambda m: m.ones(2, 3).index_select(0, m.tensor([[0]])),
        "index_select(): Index is supposed to be a vector",
    ),
]


@pytest.mark.parametrize(("name", "fn", "gist"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn, gist):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(gradcli)
    assert isinstance(ours.value, type(theirs.value)), (type(ours.value), type(theirs.value))
    assert isinstance(ours.value, GradcliError)
    assert gist in str(theirs.value)
    assert gist in str(ours.value)


def test_mismatched_shapes_message_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"\(2, 3\) and \(4,\)"):
        gradcli.ones(2, 3) + gradcli.ones(4)


# ----------------------------------------------------------------------------
# Autograd semantics
# ----------------------------------------------------------------------------

D = "float64"


def _t(m, values, requires_grad=True):
    return m.tensor(values, dtype=m.float64, requires_grad=requires_grad)


def grad_modes(m):
    x = _t(m, [1.0])
    seen = []
    with m.no_grad():
        seen.append((x * 2).requires_grad)
        with m.enable_grad():
            seen.append((x * 2).requires_grad)
        seen.append(m.is_grad_enabled())
    seen.append(m.is_grad_enabled())
    with m.set_grad_enabled(False):
        seen.append((x * 2).requires_grad)
    seen.append(m.is_grad_enabled())
    m.set_grad_enabled(False)  # also a plain call
    seen.append(m.is_grad_enabled())
    m.set_grad_enabled(True)
    try:
        with m.no_grad():
            raise ValueError
    except ValueError:
        seen.append(m.is_grad_enabled())  # restored on an exception
    return seen


def grad_mode_decorators(m):
    x = _t(m, [1.0])

    @m.no_grad()
    def off(a):
        return a * 2

    @m.no_grad
    def off_bare(a):
        return a * 2

    @m.enable_grad()
    def on(a):
        return a * 2

    @m.set_grad_enabled(False)
    def switched(a):
        return a * 2

    with m.no_grad():
        inside = on(x).requires_grad
    return [
        off(x).requires_grad,
        off_bare(x).requires_grad,
        inside,
        switched(x).requires_grad,
        m.is_grad_enabled(),
        off.__name__,
    ]


def retain_graph_accumulates(m):
    x = _t(m, 3.0)
    y = x**2
    y.backward(retain_graph=True)
    first = x.grad.item()
    y.backward()
    return first, x.grad.item()


def grad_returns_a_tuple_and_leaves_grad_alone(m):
    x = _t(m, [1.0, 2.0])
    w = _t(m, 3.0)
    (x * x).sum().backward()
    before = x.grad.tolist()
    grads = m.autograd.grad((x * w).sum(), [x, w])
    single = m.autograd.grad((x * x).sum(), x)
    return (
        type(grads).__name__,
        grads,
        before,
        x.grad,
        w.grad,
        grads[0].requires_grad,
        type(single).__name__,
        len(single),
    )


def allow_unused(m):
    x, z = _t(m, 1.0), _t(m, [1.0, 2.0])
    return (
        m.autograd.grad(x * 2, [x, z], allow_unused=True),
        m.autograd.grad(x * 2, [x, z], materialize_grads=True),
    )


def higher_order(m):
    x = _t(m, 2.0)
    y = x**3
    (g,) = m.autograd.grad(y, x, create_graph=True)  # 3x² = 12
    (h,) = m.autograd.grad(g, x, create_graph=True)  # 6x = 12
    (t,) = m.autograd.grad(h, x)  # 6
    return g.item(), h.item(), t.item(), g.requires_grad, g.grad_fn is not None


def higher_order_by_backward(m):
    x = _t(m, 2.0)
    (x**3).backward(create_graph=True)
    g = x.grad
    x.grad = None
    g.backward()
    return g.item(), x.grad.item(), g.requires_grad


def retain_grad_on_non_leaves(m):
    x = _t(m, [1.0, 2.0])
    y = x * 3
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    once = y.grad.tolist()
    z.backward()
    return once, y.grad, y.retains_grad, x.grad, (x * 2).retains_grad, x.retains_grad


def backward_inputs(m):
    x, w = _t(m, 1.0), _t(m, 2.0)
    (x * w).backward(inputs=[x])
    a, b = _t(m, 1.0), _t(m, 2.0)
    (a * b).backward(inputs=b)
    h = x * 2
    (h * h).backward(inputs=[h])
    return x.grad, w.grad, a.grad, b.grad, h.grad


def grad_of_a_non_leaf(m):
    x = _t(m, [1.0, 2.0])
    h = x * 2
    first = m.autograd.grad((h * h).sum(), h)
    h = x * 2
    return first, m.autograd.grad((h * x).sum(), [h, x])


def leaf_grad_is_plain(m):
    x = _t(m, [1.0, 2.0])
    (x * x).sum().backward()
    return x.grad.grad_fn, x.grad.requires_grad, x.grad.is_leaf


def requires_grad_propagation(m):
    a = m.tensor([1.0], requires_grad=True)
    b = m.tensor([2.0])
    c = a + b
    d = b * 2
    e = c.detach()
    f = a.detach().requires_grad_()
    with m.no_grad():
        g = a * 2
    return [(t.requires_grad, t.is_leaf, t.grad_fn is None) for t in (a, b, c, d, e, f, g)]


def several_roots(m):
    x = _t(m, [1.0, 2.0])
    m.autograd.backward([(x * x).sum(), (x * 3).sum()])
    return x.grad, m.autograd.grad([(x * x).sum(), (x * 3).sum()], x)


def backward_with_gradient(m):
    x = _t(m, [1.0, 2.0])
    (x * x).backward(m.tensor([1.0, 10.0], dtype=m.float64))
    return x.grad


def gradients_keep_their_dtype(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    (x.double() * 2).sum().backward()
    y = m.tensor([1.0, 2.0], requires_grad=True)
    (y * m.tensor([1.0, 2.0], dtype=m.float64)).sum().backward()
    return x.grad, y.grad


def broadcasting_sums_gradients_back(m):
    x = _t(m, [[1.0], [2.0], [3.0]])
    y = _t(m, [[1.0, 2.0, 3.0, 4.0]])
    s = _t(m, 2.0)
    (x * y * s + x).sum().backward()
    return x.grad, y.grad, s.grad


def numbers_on_either_side(m):
    x = _t(m, [1.0, 2.0])
    outs = [x + 1, 1 + x, x - 1, 1 - x, x * 2, 2 * x, x / 2, 2 / x, x**2, 2**x, -x, +x]
    grads = [m.autograd.grad(o.sum(), x)[0] for o in outs]
    return outs, grads


def copy_slices(m):
    x = _t(m, [1.0, 2.0, 3.0])
    a = _t(m, [5.0, 6.0, 7.0])
    y = a * 1
    y[1] = x[0] * 10
    y[0] = x[2] ** 2
    y.sum().backward()
    return x.grad, a.grad, y


def tutorial_jacobian(m):
    x = m.tensor([2.0, 3.0], requires_grad=True)
    k = m.zeros_like(x)
    k[0] = x[0] ** 2 + 3 * x[1]
    k[1] = 2 * x[0] + x[1] ** 2
    j = m.zeros(2, 2)
    k.backward(m.tensor([1.0, 0.0]), retain_graph=True)
    j[0] = x.grad.data
    x.grad.zero_()
    k.backward(m.tensor([0.0, 1.0]), retain_graph=True)
    j[1] = x.grad.data
    return k, j


def indexing_gradients(m):
    x = _t(m, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    parts = [
        x[0],
        x[-1, 1:],
        x[..., 0],
        x[None, :, None],
        x[m.tensor([1, 1, 0])],
        x[x > 2.5],
        x[[0, 1], [2, 2]],
        x[:, m.tensor([True, False, True])],
        x[m.tensor(1)],
    ]
    grads = [m.autograd.grad((p * p).sum(), x)[0] for p in parts]
    return parts, grads


def batched_grad_outputs(m):
    x = _t(m, [[1.0, 2.0], [3.0, 4.0]])
    y = (x @ x).sin()
    eye = m.eye(4, dtype=m.float64).reshape(4, 2, 2)
    (jacobian,) = m.autograd.grad(y, x, eye, is_grads_batched=True, create_graph=True)
    (hessian_row,) = m.autograd.grad(jacobian[1, 0, 1], x)
    return jacobian, hessian_row


def no_grad_updates_in_place(m):
    a = m.ones(2, requires_grad=True)
    with m.no_grad():
        a -= 0.5 * m.ones(2)
        a[0] = 5.0
        a.mul_(2)
    return a, a.requires_grad, a.is_leaf


SEMANTICS = [
    grad_modes,
    grad_mode_decorators,
    retain_graph_accumulates,
    grad_returns_a_tuple_and_leaves_grad_alone,
    allow_unused,
    higher_order,
    higher_order_by_backward,
    retain_grad_on_non_leaves,
    backward_inputs,
    grad_of_a_non_leaf,
    leaf_grad_is_plain,
    requires_grad_propagation,
    several_roots,
    backward_with_gradient,
    gradients_keep_their_dtype,
    broadcasting_sums_gradients_back,
    numbers_on_either_side,
    copy_slices,
    tutorial_jacobian,
    indexing_gradients,
    batched_grad_outputs,
    no_grad_updates_in_place,
]


def _plain(value):
    """A result as plain data: tensors by their repr (gradcli prints as PyTorch does)."""
    if isinstance(value, (gradcli.Tensor, torch.Tensor)):
        return ("tensor", repr(value))
    if isinstance(value, (gradcli.dtype, torch.dtype)):
        return ("dtype", str(value).rpartition(".")[2])
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("check", SEMANTICS, ids=lambda f: f.__name__)
def test_autograd_semantics_match_torch(check):
    assert _plain(check(gradcli)) == _plain(check(torch))


# ----------------------------------------------------------------------------
# The tensor API, compared through repr
# ----------------------------------------------------------------------------


def _views_share_memory(m):
    a = m.zeros(2, 2)
    b = a.view(4)
    b[1] = 5.0
    a[1, 1] = 7.0
    c = a.reshape(4)
    c[0] = 1.0
    d = m.zeros(2, requires_grad=True)
    d.data[0] = 3.0
    e = d.detach()
    e[1] = 4.0
    return a, b, d


def _in_place(m):
    a = m.ones(3)
    a.zero_()
    b = m.ones(2)
    b.add_(1).mul_(3)
    c = m.ones(2)
    c.requires_grad_()
    return a, b, c, c.is_leaf


def _default_dtype(m):
    m.set_default_dtype(m.float64)
    try:
        return [
            m.tensor([1.0]),
            m.zeros(1),
            m.Tensor([1]),
            m.arange(0.0, 1.0),
            m.tensor([1]),
            m.get_default_dtype(),
        ]
    finally:
        m.set_default_dtype(m.float32)


API = [
    ("tensor of ints", lambda m: m.tensor([1, 2])),
    ("tensor of floats", lambda m: m.tensor([1.0, 2.0])),
    ("tensor with dtype", lambda m: m.tensor([1, 2], dtype=m.float64)),
    ("tensor that requires grad", lambda m: m.tensor([1.0, 2.0], requires_grad=True)),
    ("tensor of bools", lambda m: m.tensor([True, False])),
    ("0-d tensor", lambda m: m.tensor(3)),
    ("tensor from float64 numpy", lambda m: m.tensor(np.array([1.0, 2.0]))),
    ("tensor from float32 numpy", lambda m: m.tensor(np.array([1.0, 2.0], dtype=np.float32))),
    ("nested tensor", lambda m: m.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=m.float64)),
    ("Tensor([2])", lambda m: m.Tensor([2])),
    ("Tensor(2, 3)", lambda m: m.Tensor(2, 3).shape),
    ("Tensor of ints is float", lambda m: m.Tensor([1, 2]).dtype),
    ("FloatTensor", lambda m: m.FloatTensor([1, 2])),
    ("FloatTensor(size)", lambda m: m.FloatTensor(2).shape),
    ("DoubleTensor", lambda m: m.DoubleTensor([1, 2])),
    ("Variable", lambda m: m.autograd.Variable(m.ones(2), requires_grad=True)),
    ("Variable without grad", lambda m: m.autograd.Variable(m.ones(2))),
    ("zeros", lambda m: m.zeros(2, 3)),
    ("zeros of a tuple", lambda m: m.zeros((2, 3))),
    ("ones float64", lambda m: m.ones(2, dtype=m.float64)),
    ("ones that require grad", lambda m: m.ones(2, requires_grad=True)),
    ("full", lambda m: m.full((2,), 3.5)),
    ("full of an int", lambda m: m.full((2,), 3)),
    ("eye", lambda m: m.eye(2)),
    ("eye n x m", lambda m: m.eye(2, 3)),
    ("arange", lambda m: m.arange(5)),
    ("arange of floats", lambda m: m.arange(0, 1, 0.25)),
    ("arange start end", lambda m: m.arange(1, 4)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("rand shape and dtype", lambda m: (m.rand(2, 3).shape, m.rand(2, 3).dtype)),
    ("randn shape and dtype", lambda m: (m.randn(4).shape, m.randn(4, dtype=m.float64).dtype)),
    (
        "rand in [0, 1)",
        lambda m: (
            bool(((m.rand(100) >= 0) & (m.rand(100) < 1)).all())
            if m is torch
            else bool(np.all((m.rand(100)._data >= 0) & (m.rand(100)._data < 1)))
        ),
    ),
    ("zeros_like", lambda m: m.zeros_like(m.tensor([1, 2]))),
    ("ones_like", lambda m: m.ones_like(m.tensor([1.0, 2.0], dtype=m.float64))),
    (
        "ones_like of a tensor that requires grad",
        lambda m: m.ones_like(m.tensor([1.0, 2.0], requires_grad=True)),
    ),
    ("default dtype", lambda m: m.get_default_dtype()),
    ("set_default_dtype", _default_dtype),
    (
        "attributes of a leaf",
        lambda m: (
            lambda x: (x.requires_grad, x.grad, x.grad_fn, x.is_leaf, x.shape, x.ndim, x.dtype)
        )(m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)),
    ),
    (
        "data",
        lambda m: (lambda d: (d, d.requires_grad, d.is_leaf))(
            m.tensor([1.0, 2.0], requires_grad=True).data
        ),
    ),
    ("T", lambda m: m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).T),
    (
        "T and t() of a vector and a scalar",
        lambda m: (lambda v, s: (v.T, v.t(), s.t(), s.T))(
            m.tensor([1.0, 2.0], requires_grad=True), m.tensor(3.0, requires_grad=True)
        ),
    ),
    ("detach", lambda m: (m.tensor([1.0, 2.0], requires_grad=True) * 2).detach()),
    ("item", lambda m: m.tensor([[1.0, 2.5]])[0, 1].item()),
    ("item of an int", lambda m: m.tensor([3]).item()),
    ("numpy", lambda m: m.tensor([1.0, 2.0]).numpy().tolist()),
    ("tolist", lambda m: m.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist()),
    ("view", lambda m: m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).view(4)),
    ("view with -1", lambda m: m.zeros(2, 2).view(-1, 1).shape),
    ("reshape", lambda m: m.arange(6).reshape(2, 3)),
    ("views share memory", _views_share_memory),
    ("in-place methods", _in_place),
    (
        "math methods",
        lambda m: (
            lambda x: (
                x.sum(),
                x.mean(dim=0),
                x.exp(),
                x.pow(3),
                x.abs(),
                x.max(),
                x.sum(1, keepdim=True),
            )
        )(m.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)),
    ),
    (
        "comparisons",
        lambda m: (lambda x: (x > 2, x < 2, x >= 2, x <= 2, x == 2, x != 2, 2 < x))(
            m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        ),
    ),
    (
        "comparisons have no gradient",
        lambda m: (lambda c: (c.requires_grad, c.grad_fn, c.dtype))(
            m.tensor([1.0, 2.0], requires_grad=True) > 1
        ),
    ),
    (
        "bool masks",
        lambda m: (lambda x: (x[x > 1.5], (x > 1).sum(), ~(x > 1), (x > 1) & (x < 4)))(
            m.tensor([[1.0, 2.0], [3.0, 4.0]])
        ),
    ),
    (
        "integer index tensors",
        lambda m: (
            lambda x: (x[m.tensor([1, 0, 1])], x[m.tensor(1)], x[m.tensor([1], dtype=m.int32)])
        )(m.tensor([[1.0, 2.0], [3.0, 4.0]])),
    ),
    (
        "integer arithmetic",
        lambda m: (
            m.tensor([1, 2]) * 2,
            m.tensor([1, 2]) / 2,
            m.tensor([1, 2]) + m.tensor([3, 4]),
            m.tensor([7]) // 2 if m is torch else m.tensor([3]),
        ),
    ),
    (
        "len, iteration and float()",
        lambda m: (lambda x: (len(x), [r.tolist() for r in x], float(x[0, 0]), int(x[1, 1])))(
            m.tensor([[1.0, 2.0], [3.0, 4.0]])
        ),
    ),
    (
        "size, numel, dim",
        lambda m: (lambda x: (x.size(), x.size(0), x.numel(), x.dim()))(m.zeros(2, 3)),
    ),
    (
        "dtype conversions",
        lambda m: (lambda x: (x.double(), x.double().float(), x.to(m.float64).dtype, x.clone()))(
            m.tensor([1.0, 2.0], requires_grad=True)
        ),
    ),
    (
        "to the same dtype is the tensor itself",
        lambda m: (lambda x: x.double() is x)(m.tensor([1.0], dtype=m.float64)),
    ),
    ("float64 propagates", lambda m: m.tensor([1.0, 2.0]) + m.tensor([0.5, 0.5], dtype=m.float64)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("name", "fn"), API, ids=[a[0] for a in API])
def test_tensor_api_matches_torch(name, fn):
    assert _plain(fn(gradcli)) == _plain(fn(torch))


# ----------------------------------------------------------------------------
# Broadcasting: every gradient is summed back to its input's shape
# ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    op=st.sampled_from(["add", "sub", "mul", "div", "maximum", "atan2"]),
    seed=st.integers(0, 99),
)
def test_broadcast_gradients_match_torch(shapes, op, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) * rng.choice([-1, 1], s) for s in shapes.input_shapes]
    fns = {
        "add": lambda m, x, y: x + y,
        "sub": lambda m, x, y: x - y,
        "mul": lambda m, x, y: x * y,
        "div": lambda m, x, y: x / y,
        "maximum": lambda m, x, y: m.maximum(x, y),
        "atan2": lambda m, x, y: m.atan2(x, y),
    }
    ours = _derivatives(gradcli, fns[op], arrays, seed)
    theirs = _derivatives(torch, fns[op], arrays, seed)
    for a, b in zip(ours, theirs):
        _assert_close(a, b, op)
