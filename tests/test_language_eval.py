"""Values and gradients of every construct, against NumPy or derivations by hand."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import gradcli
from gradcli.engine.ops import FUNCTIONS
from gradcli.language import compile_source, evaluate_constant
from gradcli.language.check import builtin_signature

pytestmark = pytest.mark.usefixtures("float64")


def leaves(**values):
    return {k: gradcli.tensor(np.asarray(v, float), requires_grad=True) for k, v in values.items()}


def value(text, **values):
    result = compile_source(text).run(leaves(**values))
    return result.detach().numpy()


def gradients(text, **values):
    """The value of ``text`` and its gradient with respect to each binding (result summed)."""
    bound = leaves(**values)
    result = compile_source(text).run(bound)
    result.sum().backward()
    return result.detach().numpy(), {k: v.grad.numpy() for k, v in bound.items()}


def central_difference(f, point, h=1e-6):
    """d sum(f) / d point by central differences, on NumPy alone."""
    point = np.asarray(point, float)
    grad = np.zeros_like(point)
    for i in np.ndindex(point.shape):
        step = np.zeros_like(point)
        step[i] = h
        grad[i] = (np.sum(f(point + step)) - np.sum(f(point - step))) / (2 * h)
    return grad


X = np.array([0.3, -1.2, 2.5])
M = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]])


# ----------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2", 2.0),
        ("2.5", 2.5),
        (".5", 0.5),
        ("1e-3", 1e-3),
        ("6.02E23", 6.02e23),
        ("pi", math.pi),
        ("e", math.e),
        ("inf", math.inf),
        ("-inf", -math.inf),
        ("2**2**3", 256.0),
        ("2^2^3", 256.0),
        ("-2**2", -4.0),
        ("(-2)**2", 4.0),
        ("2**-1", 0.5),
        ("10 - 4 - 3", 3.0),
        ("100 / 10 / 5", 2.0),
        ("2 + 3 * 4", 14.0),
        ("(2 + 3) * 4", 20.0),
        ("-3 - -3", 0.0),
        ("+-+2", -2.0),
        ("7 / 2", 3.5),
        ("1 / 0", math.inf),
        ("-1 / 0", -math.inf),
        ("2 < 3", 1.0),
        ("3 < 2", 0.0),
        ("2 <= 2", 1.0),
        ("2 >= 3", 0.0),
        ("2 == 2", 1.0),
        ("2 != 2", 0.0),
        ("3 > 2", 1.0),
        ("1 < 2 < 3", 1.0),
        ("1 < 3 < 2", 0.0),
        ("3 > 2 == 2", 1.0),
        ("1 + (2 < 3)", 2.0),
        ("sin(pi / 2)", 1.0),
        ("atan2(1, 1) * 4", math.pi),
        ("exp(log(3))", 3.0),
        ("sqrt(16) + abs(-2)", 6.0),
        ("max(3, 0)", 3.0),
    ],
)
def test_scalar_values(text, expected):
    assert evaluate_constant(text) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "text, sign",
    [("-0.0", -1.0), ("-0", 1.0), ("-0e0", -1.0), ("[-0][0]", 1.0), ("[-0.0][0]", -1.0),
     ("[1, -0][1]", 1.0), ("-(0.0)", -1.0), ("0.0", 1.0)],
)  # fmt: skip
def test_a_zero_keeps_the_sign_python_gives_the_same_literal(text, sign):
    # Python (and so PyTorch): -0.0 is negative zero, -0 is the integer 0, which has none.
    result = value(text)
    assert float(result) == 0 and math.copysign(1.0, float(result)) == sign


def test_nan_constant():
    assert np.isnan(evaluate_constant("nan")) and np.isnan(evaluate_constant("0 * inf"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[2, 3]", np.array([2.0, 3.0])),
        ("[[1, 2], [3, 4]]", np.array([[1.0, 2.0], [3.0, 4.0]])),
        ("[[1, 2], [3, 4]] @ [1, -1]", np.array([-1.0, -1.0])),
        ("[[1, 2], [3, 4]] @ [[0, 1], [1, 0]]", np.array([[2.0, 1.0], [4.0, 3.0]])),
        ("[1, 2] * [[1], [2]]", np.array([[1.0, 2.0], [2.0, 4.0]])),
        ("[1, 2, 3] > 2", np.array([0.0, 0.0, 1.0])),
        ("[1, 5, 3] == [1, 2, 3]", np.array([1.0, 0.0, 1.0])),
        ("zeros(2, 3)", np.zeros((2, 3))),
        ("zeros([2, 3])", np.zeros((2, 3))),
        ("ones(2)", np.ones(2)),
        ("eye(3)", np.eye(3)),
        ("eye(2, 3)", np.eye(2, 3)),
        ("arange(4)", np.arange(4.0)),
        ("arange(1, 2, 0.25)", np.arange(1, 2, 0.25)),
        ("linspace(0, 1, 5)", np.linspace(0, 1, 5)),
        ("full([2, 2], 1.5)", np.full((2, 2), 1.5)),
        ("full(3, -1)", np.full(3, -1.0)),
        ("zeros_like([1, 2, 3])", np.zeros(3)),
        ("ones_like([[1, 2]])", np.ones((1, 2))),
        ("sum([[1, 2], [3, 4]], axis=0)", np.array([4.0, 6.0])),
        ("sum([[1, 2], [3, 4]], dim=1)", np.array([3.0, 7.0])),
        ("sum([[1, 2], [3, 4]], 1, keepdim=1)", np.array([[3.0], [7.0]])),
        ("sum([[1, 2], [3, 4]], axis=0, keepdims=1)", np.array([[4.0, 6.0]])),
        ("[[1, 2], [3, 4]].sum()", np.array(10.0)),
        ("[[1, 2], [3, 4]].mean(dim=0)", np.array([2.0, 3.0])),
        ("[[1, 2], [3, 4]].T", np.array([[1.0, 3.0], [2.0, 4.0]])),
        ("arange(6).view(2, 3)", np.arange(6.0).reshape(2, 3)),
        ("arange(6).view(3, -1)", np.arange(6.0).reshape(3, 2)),
        ("arange(6).reshape([3, 2]).T", np.arange(6.0).reshape(3, 2).T),
        ("max([[1, 5], [7, 2]], dim=1)", np.array([5.0, 7.0])),
        ("[1, 5, 2].max() + [1, 5, 2].min()", np.array(6.0)),
        ("where([1, 2, 3] > 2, 1, 0)", np.array([0.0, 0.0, 1.0])),
        ("clamp([1, 2, 3], 1.5, 2.5)", np.array([1.5, 2.0, 2.5])),
        ("stack([[1, 2], [3, 4]], dim=1)", np.array([[1.0, 3.0], [2.0, 4.0]])),
        ("cat([[1, 2], [3]])", np.array([1.0, 2.0, 3.0])),
        ("norm([3, 4])", np.array(5.0)),
        ("transpose(arange(6).view(2, 3), 0, 1)", np.arange(6.0).reshape(2, 3).T),
        ("det([[2, 1], [1, 3]])", np.array(5.0)),
        ("inverse([[2, 0], [0, 4]])", np.array([[0.5, 0.0], [0.0, 0.25]])),
        ("trace(eye(3)) + dot([1, 2], [3, 4])", np.array(14.0)),
        ("outer([1, 2], [3, 4])", np.outer([1, 2], [3, 4]).astype(float)),
        ("softmax([1, 2, 3], dim=0)", np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum()),
        ("logsumexp([1, 2, 3], dim=0)", np.log(np.exp([1.0, 2, 3]).sum())),
        ("[1, 2, 3][argmax([1, 5, 2])]", np.array(2.0)),
        ("unsqueeze([1, 2], 0)", np.array([[1.0, 2.0]])),
        ("squeeze(zeros(1, 2), 0)", np.zeros(2)),
        ("flatten(eye(2))", np.eye(2).ravel()),
        ("[]", np.zeros(0)),
    ],
)
def test_array_values(text, expected):
    result = evaluate_constant(text)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected, rtol=1e-12)
    assert result.shape == np.shape(expected)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("m[0]", M[0]),
        ("m[-1]", M[-1]),
        ("m[1, 2]", M[1, 2]),
        ("m[0, -1]", M[0, -1]),
        ("m[:, 0]", M[:, 0]),
        ("m[:, 1:3]", M[:, 1:3]),
        ("m[0, ::2]", M[0, ::2]),
        ("flip(m, 0)", M[::-1]),
        ("m[1][1:]", M[1][1:]),
        ("m[:, :-1]", M[:, :-1]),
        ("m[0][m[0] > 0]", M[0][M[0] > 0]),
        ("m[[1, 0]]", M[[1, 0]]),
        ("m[0, 1:3].sum() + m[1, 0]", M[0, 1:3].sum() + M[1, 0]),
        ("m[1 + 0, 3 - 1]", M[1, 2]),
    ],
)
def test_indexing_and_slicing(text, expected):
    np.testing.assert_allclose(value(text, m=M), expected, rtol=1e-12)


def test_unicode_names_and_constants():
    assert value("θ = pi / 4\nα_1 = 2\nα_1 * sin(θ)**2") == pytest.approx(1.0)
    assert value("Δ + δ", Δ=1.5, δ=2) == pytest.approx(3.5)


def test_number_literals_take_the_default_dtype():
    gradcli.set_default_dtype(gradcli.float32)
    assert evaluate_constant("1/3").dtype == np.float32
    assert evaluate_constant("[1, 2]").dtype == np.float32
    assert evaluate_constant("arange(3)").dtype == np.float32
    assert evaluate_constant("[1, 2] < 2").dtype == np.float32


# ----------------------------------------------------------------------------
# Gradients
# ----------------------------------------------------------------------------


def test_the_issue_example():
    result, grads = gradients("(x+2)**2+3", x=2.0)
    assert result == 19.0 and grads["x"] == 8.0


@pytest.mark.parametrize(
    "text, point, expected_grad",
    [
        ("x**2", 3.0, 6.0),
        ("-x**2", 3.0, -6.0),
        ("x^3", 2.0, 12.0),
        ("2**x", 3.0, 8 * math.log(2)),
        ("x**x", 2.0, 4 * (math.log(2) + 1)),
        ("1 / x", 2.0, -0.25),
        ("sin(x) * cos(x)", 0.3, math.cos(0.6)),
        ("exp(2*x) - log(x)", 1.0, 2 * math.e**2 - 1),
        ("sqrt(x) + atan2(x, 1)", 4.0, 0.25 + 1 / 17),
        ("x * (x > 1)", 2.0, 1.0),  # the comparison is a constant 1 here
        ("x.T", 5.0, 1.0),
        ("[x, 2*x].sum()", 1.0, 3.0),
        ("f(t) = t**2 + t; f(x) + f(2*x)", 1.0, 3.0 + 2 * 5.0),
    ],
)
def test_scalar_gradients_by_hand(text, point, expected_grad):
    _, grads = gradients(text, x=point)
    assert grads["x"] == pytest.approx(expected_grad, rel=1e-12)


@pytest.mark.parametrize(
    "text, f",
    [
        ("sum(x**2 * sin(x))", lambda x: np.sum(x**2 * np.sin(x))),
        ("(x / (1 + exp(-x))).mean()", lambda x: np.mean(x / (1 + np.exp(-x)))),
        ("x @ x", lambda x: x @ x),
        ("[[1, 2, 3], [4, 5, 6]] @ x", lambda x: np.array([[1, 2, 3], [4, 5, 6]]) @ x),
        ("x[0] * x[1] - x[-1]**3", lambda x: x[0] * x[1] - x[-1] ** 3),
        ("x[1:].prod() + x[::2].sum()", lambda x: np.prod(x[1:]) + np.sum(x[::2])),
        ("sum(tanh(x) * x, dim=0)", lambda x: np.sum(np.tanh(x) * x, axis=0)),
        ("logsumexp(x, dim=0)", lambda x: np.log(np.sum(np.exp(x)))),
        ("norm(x)", lambda x: np.linalg.norm(x)),
        (
            "[x[0]**2 + 3*x[1], 2*x[0] + x[1]**2]",
            lambda x: np.array([x[0] ** 2 + 3 * x[1], 2 * x[0] + x[1] ** 2]),
        ),
        ("outer(x, x).trace()", lambda x: np.trace(np.outer(x, x))),
        ("max(x)", lambda x: np.max(x)),
    ],
)
def test_gradients_against_central_differences(text, f):
    result, grads = gradients(text, x=X)
    np.testing.assert_allclose(result, f(X), rtol=1e-12)
    np.testing.assert_allclose(grads["x"], central_difference(f, X), rtol=1e-6, atol=1e-8)


def test_jacobian_of_the_vector_program():
    program = compile_source(
        "x = [2, 3]; k = zeros_like(x); k[0] = x[0]**2 + 3*x[1]; k[1] = 2*x[0] + x[1]**2; k"
    )
    assert program.inputs == ("x",)
    rows = []
    for i in range(2):  # a fresh graph for every run
        x = gradcli.tensor(program.defaults()["x"], requires_grad=True)
        k = program.run({"x": x})
        assert k.grad_fn.name().endswith("CopySlices")
        np.testing.assert_allclose(k.detach().numpy(), [13.0, 13.0])
        k[i].backward()
        rows.append(x.grad.numpy())
    np.testing.assert_allclose(rows, [[4.0, 3.0], [2.0, 6.0]])


def test_list_literal_of_expressions_is_differentiable():
    _, grads = gradients("[x[0]**2 + 3*x[1], 2*x[0] + x[1]**2]", x=[2.0, 3.0])
    # d/dx of (x0² + 3 x1) + (2 x0 + x1²) = (2 x0 + 2, 3 + 2 x1)
    np.testing.assert_allclose(grads["x"], [6.0, 9.0])


def test_matrix_inputs_and_broadcasting():
    W = np.array([[1.0, -2.0], [0.5, 3.0]])
    b = np.array([0.1, -0.2])
    text = "W = [[1, -2], [0.5, 3]]\nb = [0.1, -0.2]\nx = [1, 2]\nrelu(W @ x + b).sum()"
    program = compile_source(text)
    assert program.inputs == ("W", "b", "x")
    bound = {k: gradcli.tensor(v, requires_grad=True) for k, v in program.defaults().items()}
    result = program.run(bound)
    result.backward()
    pre = W @ np.array([1.0, 2.0]) + b
    assert result.item() == pytest.approx(np.maximum(pre, 0).sum())
    active = (pre > 0).astype(float)
    np.testing.assert_allclose(bound["W"].grad.numpy(), np.outer(active, [1.0, 2.0]))
    np.testing.assert_allclose(bound["b"].grad.numpy(), active)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("max(x, y)", np.maximum(X, [1.0, -2.0, 3.0])),
        ("min(x, y)", np.minimum(X, [1.0, -2.0, 3.0])),
        ("x.max(y)", np.maximum(X, [1.0, -2.0, 3.0])),
        ("max(x, [0, 0, 0])", np.maximum(X, 0)),
        ("max(x, other=y)", np.maximum(X, [1.0, -2.0, 3.0])),
        ("max(m, 0)", np.maximum(M, 0)),  # a calculator's meaning: the larger of the two
        ("min(m, 2 - 1)", np.minimum(M, 1)),
        ("m.max(3)", np.maximum(M, 3)),
        ("max(m, dim=1)", M.max(axis=1)),
        ("max(m, axis=0)", M.max(axis=0)),
        ("min(m, dim=0, keepdim=True)", M.min(axis=0, keepdims=True)),
        ("max(m)", M.max()),
    ],
)
def test_max_and_min_of_two_operands_are_elementwise(text, expected):
    """In the language max(a, b) is always maximum(a, b); a reduction names its dim."""
    program = compile_source(text)
    values = {"x": X, "y": [1.0, -2.0, 3.0], "m": M}
    result = program.run(leaves(**{k: v for k, v in values.items() if k in program.inputs}))
    np.testing.assert_array_equal(result.detach().numpy(), expected)


def test_gradient_of_an_elementwise_max():
    # d/dx sum(max(x, y)) is 1 where x > y, d/dy is 1 where y > x
    result, grads = gradients("max(x, y)", x=[1.0, 5.0, -1.0], y=[3.0, 2.0, 0.0])
    np.testing.assert_array_equal(result, [3.0, 5.0, 0.0])
    np.testing.assert_array_equal(grads["x"], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(grads["y"], [1.0, 0.0, 1.0])


def test_assigning_a_value_with_leading_unit_axes():
    """As in PyTorch and NumPy, leading axes of length 1 of the value are dropped."""
    result, grads = gradients("k = zeros(2, 2); k[0] = [x * 2]; k", x=[1.0, 3.0])
    np.testing.assert_array_equal(result, [[2.0, 6.0], [0.0, 0.0]])
    np.testing.assert_array_equal(grads["x"], [2.0, 2.0])
    result, grads = gradients("k = zeros(2, 2); k[1, 0] = [[x**2]]; k", x=3.0)
    np.testing.assert_array_equal(result, [[0.0, 0.0], [9.0, 0.0]])
    assert grads["x"] == 6.0


def test_comparisons_carry_no_gradient():
    program = compile_source("x > 0")
    x = gradcli.tensor([1.0, -1.0], requires_grad=True)
    result = program.run({"x": x})
    assert not result.requires_grad
    np.testing.assert_allclose(result.numpy(), [1.0, 0.0])


def test_grad_fn_names_follow_pytorch():
    program = compile_source("x ** 2")
    result = program.run(leaves(x=2.0))
    assert result.grad_fn.name() == "PowBackward0"
    assert compile_source("2 * x").run(leaves(x=2.0)).grad_fn.name() == "MulBackward0"


def test_indexed_assignment_keeps_the_old_value_intact():
    text = "y = x * 1\nz = y * x\ny[0] = 10\nz + y"
    result, grads = gradients(text, x=[1.0, 2.0])
    # z = x², y = [10, x1]: result = [1 + 10, 4 + 2]; d/dx sum = [2 x0, 2 x1 + 1]
    np.testing.assert_allclose(result, [11.0, 6.0])
    np.testing.assert_allclose(grads["x"], [2.0, 5.0])
    # assigning into an input leaves the caller's leaf untouched
    bound = leaves(x=[1.0, 2.0])
    out = compile_source("x[0] = 5; x").run(bound)
    np.testing.assert_allclose(out.detach().numpy(), [5.0, 2.0])
    np.testing.assert_allclose(bound["x"].detach().numpy(), [1.0, 2.0])


def test_a_ten_thousand_term_sum():
    n = 10_000
    program = compile_source("+".join(["x"] * n))
    result, grads = gradients("+".join(["x"] * n), x=1.5)
    assert result == pytest.approx(1.5 * n)
    assert grads["x"] == pytest.approx(n)
    mixed = "x" + "".join(f" {'+-'[i % 2]} {i % 7}*x" for i in range(n))
    expected = 1 + sum((i % 7) * (1 if i % 2 == 0 else -1) for i in range(n))
    result, grads = gradients(mixed, x=2.0)
    assert result == pytest.approx(2.0 * expected)
    assert grads["x"] == pytest.approx(expected)
    assert program.inputs == ("x",)


def test_two_hundred_levels_of_brackets():
    depth = 200
    text = "(" * depth + "x" + " + 1)" * depth
    result, grads = gradients(text, x=1.0)
    assert result == 1.0 + depth and grads["x"] == 1.0
    text = "((" * depth + "x" + ") * 2 + 1)" * depth  # two IR levels per bracket
    result, grads = gradients(text, x=0.0)
    assert result == pytest.approx(2.0**depth - 1)
    assert grads["x"] == pytest.approx(2.0**depth)
    text = "sin(" * depth + "x" + ")" * depth
    result, grads = gradients(text, x=0.5)
    expected, slope = 0.5, 1.0
    for _ in range(depth):
        slope *= math.cos(expected)
        expected = math.sin(expected)
    assert result == pytest.approx(expected) and grads["x"] == pytest.approx(slope)


def test_deep_grouping_brackets_are_free():
    text = "(" * 5000 + "x" + ")" * 5000
    result, grads = gradients(text, x=3.0)
    assert result == 3.0 and grads["x"] == 1.0


# ----------------------------------------------------------------------------
# Every function of the op table, called from the language
# ----------------------------------------------------------------------------

V = np.array([0.5, -1.5, 2.0])
A = np.array([[2.0, 1.0], [0.5, 3.0]])

EXAMPLES = {
    "abs": ("abs(v)", np.abs(V)),
    "sgn": ("sgn(v)", np.sign(V)),
    "real": ("real(v + 2j)", V),
    "imag": ("imag(v * 1j)", V),
    "conj": ("imag(conj(v + 1j))", -np.ones(3)),
    "angle": ("angle(v)", np.where(V < 0, np.pi, 0.0)),
    "complex": ("imag(complex(v, 2 * v))", 2 * V),
    "polar": ("abs(polar(abs(v), v))", np.abs(V)),
    "view_as_real": ("view_as_real(v * 1j)", np.stack([0 * V, V], -1)),
    "reciprocal": ("reciprocal(v)", 1 / V),
    "sign": ("sign(v)", np.sign(V)),
    "sqrt": ("sqrt(abs(v))", np.sqrt(np.abs(V))),
    "exp": ("exp(v)", np.exp(V)),
    "expm1": ("expm1(v)", np.expm1(V)),
    "log": ("log(abs(v))", np.log(np.abs(V))),
    "log2": ("log2(abs(v))", np.log2(np.abs(V))),
    "log10": ("log10(abs(v))", np.log10(np.abs(V))),
    "log1p": ("log1p(abs(v))", np.log1p(np.abs(V))),
    "sin": ("sin(v)", np.sin(V)),
    "cos": ("cos(v)", np.cos(V)),
    "tan": ("tan(v)", np.tan(V)),
    "asin": ("asin(v / 4)", np.arcsin(V / 4)),
    "acos": ("acos(v / 4)", np.arccos(V / 4)),
    "atan": ("atan(v)", np.arctan(V)),
    "sinh": ("sinh(v)", np.sinh(V)),
    "cosh": ("cosh(v)", np.cosh(V)),
    "tanh": ("tanh(v)", np.tanh(V)),
    "asinh": ("asinh(v)", np.arcsinh(V)),
    "acosh": ("acosh(abs(v) + 1)", np.arccosh(np.abs(V) + 1)),
    "atanh": ("atanh(v / 4)", np.arctanh(V / 4)),
    "sigmoid": ("sigmoid(v)", 1 / (1 + np.exp(-V))),
    "relu": ("relu(v)", np.maximum(V, 0)),
    "softplus": ("softplus(v)", np.log1p(np.exp(V))),
    "erf": ("erf([0, 10])", np.array([0.0, 1.0])),
    "floor": ("floor(v)", np.floor(V)),
    "ceil": ("ceil(v)", np.ceil(V)),
    "round": ("round(v * 3)", np.round(V * 3)),
    "clamp": ("clamp(v, min=-1, max=1)", np.clip(V, -1, 1)),
    "atan2": ("atan2(v, 2)", np.arctan2(V, 2)),
    "maximum": ("maximum(v, 0)", np.maximum(V, 0)),
    "minimum": ("minimum(v, 0)", np.minimum(V, 0)),
    "pow": ("pow(v, 2)", V**2),
    "where": ("where(v > 0, v, 0)", np.where(V > 0, V, 0)),
    "sum": ("sum(a, dim=1)", A.sum(axis=1)),
    "mean": ("a.mean(0)", A.mean(axis=0)),
    "prod": ("prod(v)", np.prod(V)),
    "max": ("max(a)", np.max(A)),
    "min": ("min(a, axis=1)", np.min(A, axis=1)),
    "amax": ("amax(a, dim=0)", np.max(A, axis=0)),
    "amin": ("amin(a, dim=0)", np.min(A, axis=0)),
    "logsumexp": ("logsumexp(v, dim=0)", np.log(np.exp(V).sum())),
    "norm": ("norm(v)", np.linalg.norm(V)),
    "var": ("var(v)", np.var(V, ddof=1)),
    "std": ("std(v)", np.std(V, ddof=1)),
    "softmax": ("softmax(v, 0)", np.exp(V) / np.exp(V).sum()),
    "log_softmax": ("log_softmax(v, dim=0)", V - np.log(np.exp(V).sum())),
    "argmax": ("argmax(v)", np.array(2.0)),
    "argmin": ("argmin(v)", np.array(1.0)),
    "detach": ("detach(v)", V),
    "len": ("len(a)", np.array(2.0)),
    "numel": ("numel(v)", np.array(3.0)),
    "matmul": ("matmul(a, a)", A @ A),
    "mm": ("mm(a, a)", A @ A),
    "dot": ("dot(v, v)", V @ V),
    "outer": ("outer(v, v)", np.outer(V, V)),
    "t": ("t(a)", A.T),
    "trace": ("trace(a)", np.trace(A)),
    "det": ("det(a)", np.linalg.det(A)),
    "inverse": ("inverse(a)", np.linalg.inv(A)),
    "diag": ("diag(v)", np.diag(V)),
    "transpose": ("transpose(a, 0, 1)", A.T),
    "reshape": ("reshape(a, 4)", A.reshape(4)),
    "view": ("a.view(1, 4)", A.reshape(1, 4)),
    "flatten": ("flatten(a)", A.ravel()),
    "squeeze": ("squeeze(a.view(1, 4))", A.ravel()),
    "unsqueeze": ("unsqueeze(v, 1)", V[:, None]),
    "permute": ("permute(a, 1, 0)", A.T),
    "movedim": ("movedim(a.view(1, 2, 2), 0, 2)", np.moveaxis(A.reshape(1, 2, 2), 0, 2)),
    # A^T v by hand: [2*0.5 + 0.5*-1.5, 1*0.5 + 3*-1.5]
    "einsum": ('einsum("ij,i->j", a, v[:2])', np.array([0.25, -4.0])),
    "flip": ("flip(a, 0, 1)", A[::-1, ::-1]),
    "expand": ("expand(v.view(1, 3), 2, 3)", np.broadcast_to(V, (2, 3))),
    "stack": ("stack([v, v], dim=1)", np.stack([V, V], axis=1)),
    "cat": ("cat([v, v])", np.concatenate([V, V])),
    "zeros": ("zeros(2, 1)", np.zeros((2, 1))),
    "ones": ("ones([3])", np.ones(3)),
    "full": ("full([2], 7)", np.full(2, 7.0)),
    "eye": ("eye(2)", np.eye(2)),
    "arange": ("arange(0, 1, 0.5)", np.arange(0, 1, 0.5)),
    "linspace": ("linspace(-1, 1, 3)", np.linspace(-1, 1, 3)),
    "zeros_like": ("zeros_like(a)", np.zeros_like(A)),
    "ones_like": ("ones_like(v)", np.ones_like(V)),
    # the functions of ops_special, ops_scan, ops_linalg and ops_nn: values from the
    # standard library, mpmath (SymPy's) or by hand
    "ln": ("ln(abs(v))", np.log(np.abs(V))),
    "cbrt": ("cbrt(v)", np.sign(V) * np.abs(V) ** (1 / 3)),
    "sec": ("sec(v)", 1 / np.cos(V)),
    "csc": ("csc(v)", 1 / np.sin(V)),
    "cot": ("cot(v)", np.cos(V) / np.sin(V)),
    "sinc": ("sinc(v)", np.sin(np.pi * V) / (np.pi * V)),
    "deg2rad": ("deg2rad([180, 90])", np.array([np.pi, np.pi / 2])),
    "rad2deg": ("rad2deg(pi / 4)", np.array(45.0)),
    "hypot": ("hypot([3, 5], [4, 12])", np.array([5.0, 13.0])),
    "gamma": ("gamma(v)", np.array([math.gamma(x) for x in V])),
    "lgamma": ("lgamma(v)", np.array([math.lgamma(x) for x in V])),
    "digamma": ("digamma(v)", np.array([float(mpmath.digamma(x)) for x in V])),
    "polygamma": ("polygamma(1, v)", np.array([float(mpmath.polygamma(1, x)) for x in V])),
    "factorial": ("factorial([0, 1, 5, 0.5])", np.array([1, 1, 120, math.sqrt(math.pi) / 2])),
    "erfc": ("erfc(v)", np.array([math.erfc(x) for x in V])),
    "erfinv": ("erfinv([0, 0.5])", np.array([0.0, float(mpmath.erfinv(0.5))])),
    # The normal CDF, its log and its inverse, by mpmath.
    "ndtr": ("ndtr([0, 1])", np.array([0.5, float(mpmath.ncdf(1))])),
    "log_ndtr": ("log_ndtr([0, -3])", np.array([np.log(0.5), float(mpmath.log(mpmath.ncdf(-3)))])),
    "ndtri": ("ndtri([0.5, 0.975])", np.array([0.0, float(mpmath.sqrt(2) * mpmath.erfinv(0.95))])),
    "xlogy": ("xlogy([0, 2], [0, 3])", np.array([0.0, 2 * math.log(3)])),
    "cumsum": ("cumsum(v, 0)", np.array([0.5, -1.0, 1.0])),
    "cumprod": ("cumprod(v, dim=0)", np.array([0.5, -0.75, -1.5])),
    "sort": ("sort(v)", np.array([-1.5, 0.5, 2.0])),
    "cross": ("cross([1, 0, 0], [0, 1, 0])", np.array([0.0, 0.0, 1.0])),
    # det(a) = 5.5, so a^-1 [1, 2] = [3 - 2, -0.5 + 4] / 5.5
    "solve": ("solve(a, [1, 2])", np.array([1.0, 3.5]) / 5.5),
    "eigvalsh": ("eigvalsh([[2, 1], [1, 2]])", np.array([1.0, 3.0])),
    "logdet": ("logdet(a)", np.array(math.log(5.5))),
    "gelu": ("gelu(v)", np.array([x * (1 + math.erf(x / math.sqrt(2))) / 2 for x in V])),
    "silu": ("silu(v)", V / (1 + np.exp(-V))),
    "leaky_relu": ("leaky_relu(v)", np.where(V > 0, V, 0.01 * V)),
    "elu": ("elu(v, 2)", np.where(V > 0, V, 2 * (np.exp(V) - 1))),
    "softsign": ("softsign(v)", V / (1 + np.abs(V))),
    "mse_loss": ("mse_loss(v, [0, 0, 0])", np.mean(V**2)),
    "one_hot": ("one_hot([2, 0], 3)", np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])),
    "cross_entropy": (
        "cross_entropy(a, [0, 1])",
        np.mean(np.log(np.exp(A).sum(1)) - A[[0, 1], [0, 1]]),
    ),
    "binary_cross_entropy": (
        "binary_cross_entropy([0.25, 0.5], [0, 1])",
        np.array(-(math.log(0.75) + math.log(0.5)) / 2),
    ),
    # The layers of torch.nn.functional, by hand: a convolution is a cross-correlation.
    "linear": ("linear(v, [[1, 0, 2], [0, 1, 1]], [1, -1])", np.array([5.5, -0.5])),
    "conv1d": ("conv1d([v], [[[1, 2]]])", np.array([[0.5 - 3.0, -1.5 + 4.0]])),
    "conv2d": ("conv2d([a], [[[[1, 0], [0, 1]]]], stride=1)", np.array([[[2.0 + 3.0]]])),
    "max_pool2d": ("max_pool2d([a], [1, 2], stride=1)", np.array([[[2.0], [3.0]]])),
    "avg_pool2d": ("avg_pool2d([a], 2)", np.array([[[(2 + 1 + 0.5 + 3) / 4]]])),
    "layer_norm": ("layer_norm(v, [3])", (V - V.mean()) / np.sqrt(V.var() + 1e-5)),
    # Windows of a 2x2 image into 1x2 outputs: each row's mean, each row's largest.
    "adaptive_avg_pool2d": ("adaptive_avg_pool2d([a], [2, 1])", np.array([[[1.5], [1.75]]])),
    "adaptive_max_pool2d": ("adaptive_max_pool2d([a], [2, 1])", np.array([[[2.0], [3.0]]])),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits(v, [0, 1, 1])",
        np.mean(
            [math.log(1 + math.exp(0.5)), math.log(1 + math.exp(1.5)), math.log1p(math.exp(-2))]
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_is_callable(name):
    sig = builtin_signature(name)  # the checker understands its parameters
    assert sig.required <= len(sig.positional)
    if name in ("rand", "randn"):
        pytest.skip("random values: see test_random_constructors")
    assert name in EXAMPLES, f"add an example call of {name} to EXAMPLES"
    text, expected = EXAMPLES[name]
    program = compile_source(text)
    bound = {k: gradcli.tensor(v) for k, v in {"v": V, "a": A}.items() if k in program.inputs}
    result = np.asarray(program.run(bound).numpy(), float)
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_constructors(name):
    result = evaluate_constant(f"{name}(4, 5)", seed=1)
    assert result.shape == (4, 5) and result.dtype == np.float64
