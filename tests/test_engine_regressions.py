"""Regressions in the engine found by comparing random programs with PyTorch 2.13.

Each test names the case it guards. Expected numbers come from PyTorch (run in the
same test), from a hand derivation, or, for det, from cofactors computed here by
the Leibniz formula; never from gradcli itself.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess

import numpy as np
import pytest

import gradcli
from gradcli.autograd.functional import hessian, jvp
from gradcli.engine.ops import OPS
from gradcli.errors import GradcliError

torch = pytest.importorskip("torch", reason="the expected values come from PyTorch 2.13")

nan, inf = math.nan, math.inf


def value_and_grads(lib, f, *values):
    """f's value and the gradient of its sum for each input, as nested lists."""
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = f(lib, *xs)
    grads = lib.autograd.grad(out.sum(), xs, allow_unused=True)
    return out.tolist(), [None if g is None else g.tolist() for g in grads]


def same(a, b):
    """Equal nested numbers, nan where nan (float64, rtol 1e-12)."""
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=0)


def assert_like_torch(f, *values):
    got = value_and_grads(gradcli, f, *values)
    want = value_and_grads(torch, f, *values)
    same(got[0], want[0])
    for g, w in zip(got[1], want[1]):
        same(g, w)


def raises_like_torch(f):
    """f raises in gradcli the exception type and message PyTorch raises."""
    with pytest.raises(Exception) as expected:
        f(torch)
    with pytest.raises(GradcliError) as got:
        f(gradcli)
    assert isinstance(got.value, type(expected.value).__mro__[-3]) or isinstance(
        got.value, type(expected.value)
    )
    return got.value, expected.value


# ----------------------------------------------------------------------------
# 1. An empty dimension list reduces over every dimension
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "var", "std"])
@pytest.mark.parametrize("values", [[1.0, 3.0], [[0.0, 1.0, 5.0], [3.0, 4.0, 2.0]]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_empty_dim_list_reduces_over_every_dimension(name, values, keepdim):
    every = tuple(range(np.ndim(values)))
    got = value_and_grads(
        gradcli, lambda lib, x: getattr(lib, name)(x, [], keepdim=keepdim), values
    )
    # PyTorch's value for [] is its value over every dimension...
    torch_empty = value_and_grads(
        torch, lambda lib, x: getattr(lib, name)(x, [], keepdim=keepdim), values
    )
    same(got[0], torch_empty[0])
    # ...and so is the gradient, except var/std's: PyTorch 2.13 counts 1 entry there and
    # gives ±inf, not the derivative of the value it computes.
    want = value_and_grads(
        torch, lambda lib, x: getattr(lib, name)(x, every, keepdim=keepdim), values
    )
    same(got[0], want[0])
    same(got[1][0], want[1][0])
    if name in ("sum", "mean", "amax", "amin"):
        same(got[1][0], torch_empty[1][0])


def test_logsumexp_of_an_empty_dim_list_is_pytorchs():
    # PyTorch 2.13 raises an internal shape error without keepdim, and gradcli raises
    # the same (the differential fuzzer asks it to raise where PyTorch raises); with
    # keepdim both reduce over every dimension.
    values = [[0.0, 1.0], [2.0, 3.0]]
    want = value_and_grads(torch, lambda lib, x: lib.logsumexp(x, [], keepdim=True), values)
    got = value_and_grads(gradcli, lambda lib, x: lib.logsumexp(x, [], keepdim=True), values)
    same(got[0], want[0])
    same(got[1][0], want[1][0])
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.logsumexp(torch.tensor(values), [])
    with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape \[1, 1\]"):
        gradcli.logsumexp(gradcli.tensor(values), [])


def test_empty_dim_list_through_the_command(gradcli_json):
    out = gradcli_json("grad", "sum(amax(x, []))", "--x", "[1, 3]")
    assert out["value"] == 3 and out["grad"]["x"] == [0, 1]


def test_squeeze_of_an_empty_dim_list_drops_nothing():
    assert tuple(gradcli.zeros(1, 2, 1).squeeze(()).shape) == (1, 2, 1)
    assert tuple(torch.zeros(1, 2, 1).squeeze(()).shape) == (1, 2, 1)


# ----------------------------------------------------------------------------
# 2. clamp with tensor bounds differentiates the bounds
# ----------------------------------------------------------------------------

POINTS = [0.0, 1.0, 2.0, nan]


@pytest.mark.parametrize(
    "x, low, high",
    [
        (x, low, high)
        for x, low, high in itertools.product(POINTS, [None, *POINTS], [None, *POINTS])
        if (low, high) != (None, None)
    ],
)
def test_clamp_with_tensor_bounds_matches_torch(x, low, high):
    def f(lib, x, *bounds):
        it = iter(bounds)
        return lib.clamp(
            x,
            min=None if low is None else next(it),
            max=None if high is None else next(it),
        )

    bounds = [b for b in (low, high) if b is not None]
    assert_like_torch(f, x, *bounds)


def test_clamp_with_tensor_bounds_records_torchs_grad_fn():
    x = gradcli.tensor(0.0, requires_grad=True)
    y = gradcli.tensor(1.0, requires_grad=True)
    assert gradcli.clamp(x, min=y).grad_fn.name() == "ClampBackward0"
    assert gradcli.clamp(x, min=1.0).grad_fn.name() == "ClampBackward1"


def test_clamp_bound_gets_the_gradient_through_the_command(gradcli_json):
    out = gradcli_json("grad", "clamp(x, min=y)", "--x", "0", "--y", "1")
    assert out["grad"] == {"x": 0, "y": 1}
    out = gradcli_json("grad", "clamp(x, y, z)", "--x", "5", "--y", "1", "--z", "2")
    assert out["grad"] == {"x": 0, "y": 0, "z": 1}


# ----------------------------------------------------------------------------
# 3. det at singular matrices: the gradient is the cofactor matrix
# ----------------------------------------------------------------------------


def leibniz_det(a):
    n = len(a)
    total = 0.0
    for perm in itertools.permutations(range(n)):
        inversions = sum(perm[i] > perm[j] for i in range(n) for j in range(i + 1, n))
        total += (-1) ** inversions * math.prod(a[i][perm[i]] for i in range(n))
    return total


def cofactors(a):
    """C[i][j] = (-1)**(i+j) det(a without row i and column j): d det / d a."""
    n = len(a)
    if n == 1:
        return [[1.0]]
    return [
        [
            (-1) ** (i + j)
            * leibniz_det([[a[r][c] for c in range(n) if c != j] for r in range(n) if r != i])
            for j in range(n)
        ]
        for i in range(n)
    ]


SINGULAR = [
    [[1.0, 2.0], [2.0, 4.0]],
    [[0.0]],
    [[0.0, 0.0], [0.0, 0.0]],
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    [  # rank 4: the last row is the sum of the first two
        [2.0, -1.0, 0.0, 3.0, 1.0],
        [1.0, 4.0, -2.0, 0.0, 5.0],
        [0.0, 1.0, 3.0, -1.0, 2.0],
        [7.0, 0.0, 1.0, 2.0, -3.0],
        [3.0, 3.0, -2.0, 3.0, 6.0],
    ],
]


def test_det_gradient_by_hand():
    a = gradcli.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=gradcli.float64, requires_grad=True)
    gradcli.det(a).backward()
    assert a.grad.tolist() == [[4.0, -2.0], [-2.0, 1.0]]
    a = gradcli.tensor([[0.0]], dtype=gradcli.float64, requires_grad=True)
    gradcli.det(a).backward()
    assert a.grad.tolist() == [[1.0]]


@pytest.mark.parametrize("a", SINGULAR + [[[2.0, 1.0], [1.0, 3.0]]])
def test_det_gradient_is_the_cofactor_matrix(a):
    x = gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True)
    gradcli.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), cofactors(a), rtol=1e-12, atol=1e-12)


def test_det_gradient_of_a_large_singular_matrix_is_its_cofactor_matrix():
    # Past the size where the minors are used (the SVD gives it): ones(40, 40) with
    # a[0, 0] = 2 has rank 2, so every 39 x 39 minor is singular and the cofactors are 0.
    a = np.ones((40, 40))
    a[0, 0] = 2.0
    x = gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True)
    gradcli.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros((40, 40)), atol=1e-9)
    b = np.eye(40)
    b[-1, -1] = 0.0  # rank n - 1: the only non-zero cofactor is C[-1, -1] = 1
    x = gradcli.tensor(b, dtype=gradcli.float64, requires_grad=True)
    gradcli.det(x).backward()
    want = np.zeros((40, 40))
    want[-1, -1] = 1.0
    np.testing.assert_allclose(x.grad.numpy(), want, atol=1e-12)


def test_det_gradient_of_a_batch_with_a_singular_matrix():
    a = [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]]
    x = gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True)
    gradcli.det(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [cofactors(m) for m in a], rtol=1e-12)


def test_torch_gives_zeros_at_rank_n_minus_1_and_gradcli_follows_mathematics():
    x = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    torch.linalg.det(x).backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # PyTorch 2.13: not the adjugate
    assert "PyTorch" in OPS["det"].kink and "cofactor" in OPS["det"].kink


@pytest.mark.parametrize("a", SINGULAR[:1] + SINGULAR[3:])
def test_det_hessian_at_singular_matrices_is_the_derivative_of_the_cofactors(a):
    # Central differences of the cofactors (exact polynomials, by Leibniz): exact up to
    # rounding, as the cofactors are linear in each entry.
    n = len(a)
    step = 0.5
    want = np.zeros((n, n, n, n))
    for k, l in itertools.product(range(n), repeat=2):
        up = [row[:] for row in a]
        down = [row[:] for row in a]
        up[k][l] += step
        down[k][l] -= step
        want[:, :, k, l] = (np.array(cofactors(up)) - np.array(cofactors(down))) / (2 * step)
    got = hessian(gradcli.det, gradcli.tensor(a, dtype=gradcli.float64))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_det_jvp_at_a_singular_matrix():
    a = gradcli.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=gradcli.float64)
    tangent = gradcli.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=gradcli.float64)
    value, derivative = jvp(gradcli.det, a, tangent)
    assert value.item() == 0.0 and derivative.item() == 5.0  # trace of the adjugate: 4 + 1


def test_det_at_a_singular_matrix_through_the_command(gradcli_json, gradcli):
    out = gradcli_json("grad", "det(A)", "--A", "[[1,2],[2,4]]")
    assert out["grad"]["A"] == [[4, -2], [-2, 1]]
    out = gradcli_json("hessian", "det(A)", "--A", "[[1,2],[2,4]]")
    assert np.asarray(out["hessian"]["A"]["A"]).reshape(-1).tolist() == [
        0, 0, 0, 1, 0, 0, -1, 0, 0, -1, 0, 0, 1, 0, 0, 0,
    ]  # fmt: skip
    result = gradcli(
        "jvp", "det(A)", "--A", "[[1,2],[2,4]]", "--tangent", "[[1,0],[0,1]]", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["jvp"] == 5


def test_inverse_of_a_singular_matrix_is_an_error_with_exit_2(gradcli):
    result = gradcli("eval", "inverse(A)", "--A", "[[1,2],[2,4]]")
    assert result.exit_code == 2
    assert result.output.startswith("error: inverse: Singular matrix")
    result = gradcli("grad", "sum(inverse(A))", "--A", "[[1,2],[2,4]]")
    assert result.exit_code == 2 and "internal error" not in result.output


def test_second_derivatives_of_det_at_a_large_singular_matrix_say_they_are_not_implemented():
    x = gradcli.zeros(33, 33, dtype=gradcli.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="second derivatives of det"):
        gradcli.autograd.grad(gradcli.det(x), x, create_graph=True)


# ----------------------------------------------------------------------------
# 4. A reduction's result is contiguous
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["sum", "mean", "prod", "amax", "amin", "var", "std", "logsumexp", "softmax",
             "log_softmax", "cumsum"]
)  # fmt: skip
def test_reduction_of_a_transposed_tensor_is_contiguous_as_in_torch(name):
    def f(lib):
        return getattr(lib, name)(lib.ones(2, 3, 3, dtype=lib.float64).transpose(0, 2), 1)

    assert f(gradcli).is_contiguous() == f(torch).is_contiguous() is True
    assert f(gradcli).view(-1).tolist() == f(torch).view(-1).tolist()


def test_view_of_a_reduction_of_a_transposed_tensor(gradcli_json):
    out = gradcli_json("eval", "view(sum(transpose(x, 0, 2), 1), 6)", "--x", "ones(2, 3, 3)")
    assert out["value"] == [3, 3, 3, 3, 3, 3]


# ----------------------------------------------------------------------------
# 5. Where PyTorch raises, gradcli raises the same
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f",
    [
        lambda lib: lib.arange(5, 0),
        lambda lib: lib.arange(5.0, 0.0),
        lambda lib: lib.arange(0, 5, -1),
        lambda lib: lib.arange(0, 5, 0),
        lambda lib: lib.full([2], [1, 2]),
        lambda lib: lib.sum(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.sum(lib.zeros(2, 3), (0, -2)),
        lambda lib: lib.amax(lib.zeros(2, 3), (1, 1)),
        lambda lib: lib.mean(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.var(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.std(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.logsumexp(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.flip(lib.zeros(2, 3), (1, -1)),
        lambda lib: lib.var(lib.tensor([1, 2, 4])),
        lambda lib: lib.std(lib.tensor([1, 2, 4])),
        lambda lib: lib.mean(lib.tensor([1, 2, 4])),
        lambda lib: lib.softmax(lib.tensor([1, 2, 4]), 0),
        lambda lib: lib.log_softmax(lib.tensor([[1, 2], [3, 4]]), 0),
        lambda lib: lib.norm(lib.tensor([1, 2, 4])),
        lambda lib: lib.zeros(3)[::-1],
        lambda lib: lib.zeros(3)[::0],
    ],
)
def test_raises_where_torch_raises_with_its_message(f):
    with pytest.raises(Exception) as expected:
        f(torch)
    with pytest.raises(GradcliError) as got:
        f(gradcli)
    assert isinstance(got.value, type(expected.value).__mro__[1]) or isinstance(
        got.value, type(expected.value)
    )
    assert str(got.value).startswith(str(expected.value).split(" (")[0].split("\n")[0])


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "argmax", "cumsum"])
def test_a_list_valued_dim_is_refused_where_torch_refuses_it(name):
    with pytest.raises(TypeError, match="must be int, not list"):
        getattr(torch, name)(torch.zeros(2, 3), [0])
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'dim' must be int, not list"):
        getattr(gradcli, name)(gradcli.zeros(2, 3), [0])


@pytest.mark.parametrize("name", ["prod", "max", "min"])
def test_prod_max_min_refuse_a_list_valued_dim_as_torch(name):
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.zeros(2, 3), [0])
    with pytest.raises(TypeError, match="must be int, not list"):
        getattr(gradcli, name)(gradcli.zeros(2, 3), [0])


@pytest.mark.parametrize(
    "f",
    [
        lambda lib: lib.round(lib.tensor([1, 2, 4])),
        lambda lib: lib.logsumexp(lib.tensor([1, 2, 4]), 0),
        lambda lib: lib.sum(lib.tensor([1, 2, 4])),
    ],
)
def test_integer_inputs_torch_accepts_stay_accepted(f):
    got, want = f(gradcli), f(torch)
    # logsumexp of integers is in the default dtype: float32 in both
    np.testing.assert_allclose(got.tolist(), want.tolist(), rtol=1e-6)
    assert got.dtype.is_floating_point == want.dtype.is_floating_point


def test_an_integer_tensor_assigned_into_a_float_tensor_is_converted_as_torch():
    got, want = gradcli.zeros(3, dtype=gradcli.float64), torch.zeros(3, dtype=torch.float64)
    got[:] = gradcli.tensor([1, 2, 4])
    want[:] = torch.tensor([1, 2, 4])
    assert got.tolist() == want.tolist() and got.dtype == gradcli.float64


def test_negative_slice_step_says_to_use_flip(gradcli):
    result = gradcli("eval", "x[::-1]", "--x", "[1, 2, 3]")
    assert result.exit_code == 2
    assert "step must be greater than zero" in result.output and "flip" in result.output
    result = gradcli("eval", "flip(x, 0)", "--x", "[1, 2, 3]", "--format", "json")
    assert json.loads(result.stdout)["value"] == [3, 2, 1]


@pytest.mark.parametrize(
    "source, message",
    [
        ("arange(5, 0)", "upper bound and lower bound inconsistent with step sign"),
        ("full([2], [1, 2])", "full(): argument 'fill_value' (position 2) must be Number"),
        ("sum(x, [0, 0])", "dim 0 appears multiple times in the list of dims"),
    ],
)
def test_torchs_refusals_through_the_command(gradcli, source, message):
    result = gradcli("eval", source, *(["--x", "[1, 2]"] if "x" in source else []))
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {message}")


# ----------------------------------------------------------------------------
# 6. Where PyTorch answers, gradcli answers: norm with p = 0 and p < 0
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("p", [-inf, -2.0, -1.0, -0.5, 0.5, 3.0, inf])
@pytest.mark.parametrize("values", [[1.0, -2.0, 4.0], [1.0, 0.0, -4.0], [0.0, 0.0]])
def test_norm_matches_torch_for_every_p(p, values):
    def f(lib, x):
        return lib.linalg.vector_norm(x, p) if lib is torch else lib.norm(x, p)

    assert_like_torch(f, values)


def test_norm_with_p_0_counts_non_zero_entries_with_gradient_0():
    x = gradcli.tensor([1.0, 0.0, -2.0], dtype=gradcli.float64, requires_grad=True)
    out = gradcli.norm(x, 0)
    assert out.item() == torch.linalg.vector_norm(torch.tensor([1.0, 0.0, -2.0]), 0).item() == 2
    out.backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_norm_with_p_0_and_negative_p_through_the_command(gradcli_json):
    assert gradcli_json("grad", "norm(x, 0)", "--x", "[1, 0, 2]")["value"] == 2
    out = gradcli_json("grad", "norm(x, -1)", "--x", "[1, 2, 4]")
    np.testing.assert_allclose(out["value"], 1 / (1 + 1 / 2 + 1 / 4), rtol=1e-12)


# ----------------------------------------------------------------------------
# 7. Conventions at kinks and nan, op by op
# ----------------------------------------------------------------------------

FOLLOW_TORCH = {
    "norm 0<p<1 at a zero entry": (lambda lib, x: lib.norm(x, 0.5), [1.0, 0.0, 4.0]),
    "std at zero variance": (lambda lib, x: lib.std(x), [2.0, 2.0, 2.0]),
    "std with correction = N": (lambda lib, x: lib.std(x, correction=2), [1.0, 3.0]),
    "prod with inf and zero": (lambda lib, x: lib.prod(x), [inf, 0.0, 3.0]),
    "relu at nan": (lambda lib, x: lib.relu(x), nan),
    "maximum at nan": (lambda lib, x, y: lib.maximum(x, y), nan, 1.0),
    "maximum at two nans": (lambda lib, x, y: lib.maximum(x, y), nan, nan),
    "minimum at nan": (lambda lib, x, y: lib.minimum(x, y), 1.0, nan),
    "amax at nan": (lambda lib, x: lib.amax(x), [nan, 1.0, 2.0]),
    "amin at nan": (lambda lib, x: lib.amin(x), [1.0, 1.0, nan]),
    "max at nan": (lambda lib, x: lib.max(x), [1.0, nan, 2.0]),
    "min at nan": (lambda lib, x: lib.min(x), [nan, 1.0, nan]),
    "max along dim at nan": (lambda lib, x: lib.max(x, 0).values, [1.0, nan, 2.0]),
    "nan gradient into amax": (lambda lib, x: lib.amax(x * lib.log(x - 1)), [1.0, 3.0]),
    "nan gradient into min": (lambda lib, x: lib.min(lib.sqrt(x) * 0 + x), [0.0, 3.0]),
    "inf gradient into amax": (
        lambda lib, x: lib.amax(lib.stack([x[0], lib.sqrt(x[1] - 1)])),
        [5.0, 1.0],
    ),
    "pow 0 ** 0.5": (lambda lib, x: x**0.5, 0.0),
    "pow 0 ** -1": (lambda lib, x: x**-1, 0.0),
    "pow 0 ** tensor": (lambda lib, x, p: x**p, 0.0, 2.0),
}


@pytest.mark.parametrize("case", FOLLOW_TORCH, ids=list(FOLLOW_TORCH))
def test_kink_and_nan_conventions_follow_torch(case):
    f, *values = FOLLOW_TORCH[case]
    assert_like_torch(f, *values)


SECOND_ORDER_LIKE_TORCH = {
    "pow 0 ** 2": (lambda lib: lambda x: x**2, 0.0),
    "pow 0 ** 3": (lambda lib: lambda x: x**3, 0.0),
    "pow 0 ** 1.5": (lambda lib: lambda x: x**1.5, 0.0),
    "pow 0 ** 0": (lambda lib: lambda x: x**0, 0.0),
    "atan2 at the origin": (lambda lib: lambda v: lib.atan2(v[0], v[1]), [0.0, 0.0]),
    "norm at the origin": (
        lambda lib: lambda v: lib.linalg.vector_norm(v) if lib is torch else lib.norm(v),
        [0.0, 0.0],
    ),
    "std at zero variance": (lambda lib: lambda v: lib.std(v), [2.0, 2.0, 2.0]),
}


@pytest.mark.parametrize("case", SECOND_ORDER_LIKE_TORCH, ids=list(SECOND_ORDER_LIKE_TORCH))
def test_second_order_conventions_follow_torch(case):
    make, value = SECOND_ORDER_LIKE_TORCH[case]
    want = torch.autograd.functional.hessian(make(torch), torch.tensor(value, dtype=torch.float64))
    got = hessian(make(gradcli), gradcli.tensor(value, dtype=gradcli.float64))
    same(got.tolist(), want.tolist())


def sigmoid_derivative(x):
    s = 1 / (1 + math.exp(-x))
    return s * (1 - s)


def test_softplus_at_its_threshold_keeps_the_smooth_branch_to_second_order():
    # At beta*x == threshold the value is log(1 + exp(beta x)) / beta (PyTorch's too), so
    # its derivatives are sigmoid(beta x) and beta sigmoid'(beta x); PyTorch 2.13 gives 0
    # for the second, unlike its own first derivative.
    for beta, x in [(1.0, 20.0), (2.0, 10.0)]:
        got = hessian(
            lambda v, b=beta: gradcli.softplus(v, b), gradcli.tensor(x, dtype=gradcli.float64)
        )
        np.testing.assert_allclose(got.item(), beta * sigmoid_derivative(beta * x), rtol=1e-9)
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        (d,) = torch.autograd.grad(torch.nn.functional.softplus(t, beta), t)
        g = gradcli.tensor(x, dtype=gradcli.float64, requires_grad=True)
        (mine,) = gradcli.autograd.grad(gradcli.softplus(g, beta), g)
        np.testing.assert_allclose(mine.item(), d.item(), rtol=1e-12)
    assert "threshold" in OPS["softplus"].kink


def test_prod_beside_an_inf_or_nan_is_the_product_of_the_others():
    # d/dx_i prod(x) = prod_{j != i} x_j; PyTorch 2.13 divides prod by x_i and gets nan.
    for values, want in [
        ([inf, 2.0, 3.0], [6.0, inf, inf]),
        ([inf, inf, 3.0], [inf, inf, inf]),
        ([nan, 2.0, 3.0], [6.0, nan, nan]),
    ]:
        got = value_and_grads(gradcli, lambda lib, x: lib.prod(x), values)[1][0]
        same(got, want)
        got = value_and_grads(gradcli, lambda lib, x: lib.prod(x, 0), values)[1][0]
        same(got, want)
    assert "PyTorch" in OPS["prod"].kink


def test_pow_with_a_tensor_exponent_at_a_zero_base_has_the_limits_as_second_derivatives():
    # f(a, p) = a**p at (0, 2): f_aa = p (p - 1) a**(p-2) = 2; f_ap = a**(p-1) (1 + p log a)
    # and f_pp = a**p log(a)**2 tend to 0 as a -> 0+. PyTorch 2.13 gives nan for all four.
    got = hessian(lambda v: v[0] ** v[1], gradcli.tensor([0.0, 2.0], dtype=gradcli.float64))
    assert got.tolist() == [[2.0, 0.0], [0.0, 0.0]]
    assert "nan" in OPS["pow"].kink


def test_sign_and_abs_at_nan_are_nan():
    # PyTorch 2.13 says sign(nan) = 0 (and so d|x|/dx = 0 at nan); gradcli keeps nan.
    value, (grad,) = value_and_grads(gradcli, lambda lib, x: lib.sign(x), nan)
    assert math.isnan(value) and grad == 0.0
    value, (grad,) = value_and_grads(gradcli, lambda lib, x: lib.abs(x), nan)
    assert math.isnan(value) and math.isnan(grad)
    assert "nan" in OPS["sign"].kink and "nan" in OPS["abs"].kink


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction, values", [(2, [1.0, 3.0]), (3, [1.0, 3.0]), (2, [1.0, 1.0])])
def test_var_std_with_correction_at_least_n(name, correction, values):
    # The value is PyTorch's (the sum of squares over 0 degrees of freedom: inf, or nan);
    # it is inf or nan for every x, so there is no derivative: nan.
    value, (grad,) = value_and_grads(
        gradcli, lambda lib, x: getattr(lib, name)(x, correction=correction), values
    )
    with pytest.warns(UserWarning):
        want = getattr(torch, name)(torch.tensor(values), correction=correction).item()
    same(value, want)
    assert all(math.isnan(g) for g in grad)
    assert "correction >= N" in OPS[name].kink


@pytest.mark.parametrize("name", ["clamp", "det", "norm", "atan2", "maximum", "relu", "amax"])
def test_each_convention_is_written_in_the_op_table(name, gradcli):
    result = gradcli("functions", name, "--format", "plain")
    assert OPS[name].kink in result.output


# ----------------------------------------------------------------------------
# 8. NumPy's RuntimeWarnings never reach the terminal
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "var(x, correction=2)", "--x", "[1, 2]"],
        ["grad", "std(x, correction=3)", "--x", "[1, 2]"],
        ["grad", "prod(x)", "--x", "[inf, 0, 3]"],
        ["grad", "norm(x, -1)", "--x", "[0, 1]"],
        ["hessian", "atan2(x, y)", "--x", "0", "--y", "0"],
    ],
)
def test_no_numpy_warning_on_standard_error(gradcli_script, args):
    result = subprocess.run(
        [*gradcli_script, *args], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr and "numpy" not in result.stderr


@pytest.mark.parametrize(
    "call, message",
    [
        # PyTorch's own words where it has them (torch 2.13 says "numel: integer
        # multiplication overflow" for the 0-d cases and a negative size against a 1)
        (
            lambda t: t.tensor([1.0, 2.0]).expand(-1, 2),
            "isn't allowed in a leading, non-existing dimension 0",
        ),
        (
            lambda t: t.tensor(1.0).expand(-1),
            "isn't allowed in a leading, non-existing dimension 0",
        ),
        (
            lambda t: t.broadcast_to(t.tensor(1.0), (-1,)),
            "isn't allowed in a leading, non-existing dimension 0",
        ),
        (lambda t: t.tensor([1.0]).expand(-2), "the size -2 at dimension 0 is negative"),
        (
            lambda t: t.tensor([[1.0, 2.0]]).expand(2),
            "must be greater or equal to the number of dimensions",
        ),
    ],
)
def test_expand_to_a_size_it_cannot_have_says_why(call, message):
    # Were StopIteration (broadcast_to of a 0-d tensor to -1) and IndexError (expand).
    with pytest.raises(GradcliError, match=re.escape(message)):
        call(gradcli)


def test_expand_keeps_a_size_given_as_minus_one():
    x = gradcli.tensor([[1.0], [2.0]], requires_grad=True)
    y = x.expand(3, -1, 4)  # by hand: (2, 1) to (3, 2, 4), the -1 keeping the 2
    assert tuple(y.shape) == (3, 2, 4)
    assert tuple(gradcli.broadcast_to(x, (-1, 3)).shape) == (2, 3)
    (g,) = gradcli.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [[12.0], [12.0]])  # 3 * 4 copies of each


def test_a_reductions_zero_d_gradient_broadcasts_as_a_read_only_view():
    x = gradcli.tensor([1.0, 2.0, 3.0], dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad(x.sum() * 2.5, x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [2.5, 2.5, 2.5])  # by hand
    view = gradcli.broadcast_to(gradcli.tensor(7.0), (2, 3))._data
    assert view.shape == (2, 3) and view.strides == (0, 0) and not view.flags.writeable
    np.testing.assert_array_equal(view, np.full((2, 3), 7.0))


# One entry per norm is its absolute value in PyTorch, at any order: no power of it
# over- or underflows (a fuzzed `2 * norm(x)` at x = 4.16e299 gave inf). Expected values
# by hand: |x|; gradients by the p-norm's formula with the norm |x|, as PyTorch's.
@pytest.mark.parametrize(
    "value, dim, p, expected, grad",
    [
        (4e299, None, 2, 4e299, 1.0),
        ([4e299], None, 3, 4e299, math.nan),  # x|x|/norm**2 overflows to inf/inf
        ([-4e299], None, 1.5, 4e299, -1.0),
        ([1e-310], None, 2, 1e-310, 1.0),
        ([[4e299], [3e299]], 1, 2, [4e299, 3e299], [[1.0], [1.0]]),
        ([1e-310, 0.0], None, 2, 0.0, None),  # two entries: the squares underflow
        ([3e299, 4e299], None, 2, math.inf, None),  # and overflow
    ],
)
def test_a_norm_of_one_entry_is_its_absolute_value(value, dim, p, expected, grad):
    x = gradcli.tensor(value, dtype=gradcli.float64, requires_grad=True)
    norm = gradcli.linalg.vector_norm(x, ord=p, dim=dim)
    np.testing.assert_array_equal(norm.detach().numpy(), expected)
    if grad is not None:
        norm.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(grad, x.shape))
