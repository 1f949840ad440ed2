"""The functions people reach for, through the real command: special functions,
losses, activations and linear algebra, against SymPy, PyTorch 2.13 or a hand
derivation, never against gradcli itself."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from gradcli.engine.opinfo import DOMAINS
from gradcli.engine.ops import FUNCTIONS

sympy = pytest.importorskip("sympy", reason="SymPy gives the expected derivatives")

X = sympy.Symbol("x", real=True)


def in_domain(program: str, input: int = 0) -> float:
    """A point of the domain that the entry of the function ``program`` calls declares for
    its input ``input`` (``Op.domain``, drawn from ``opinfo.DOMAINS`` as the op-sample
    matrix draws), fixed by the program's text."""
    entry = FUNCTIONS[program.partition("(")[0]]
    domain = [d for d in entry.domain if isinstance(d, str)][input]
    return float(DOMAINS[domain](np.random.default_rng(zlib.crc32(program.encode())), ()))


# (program, point, the same function in SymPy): value, derivative and second derivative.
# The point is one of the entry's domain, or one of the row's own where a branch or a
# region the domain leaves out is the point (cbrt of a negative number, gamma below 0), or
# where the entry declares no domain (ln, factorial).
ELEMENTWISE = [
    ("ln(x)", 2.5, sympy.log(X)),
    ("log(x, 2)", in_domain("log(x, 2)"), sympy.log(X, 2)),
    ("log(x, x + 1)", in_domain("log(x, x + 1)"), sympy.log(X) / sympy.log(X + 1)),
    ("cbrt(x)", -2.0, -sympy.root(-X, 3)),
    ("cbrt(x)", 3.0, sympy.root(X, 3)),
    ("sec(x)", in_domain("sec(x)"), sympy.sec(X)),
    ("csc(x)", in_domain("csc(x)"), sympy.csc(X)),
    ("cot(x)", in_domain("cot(x)"), sympy.cot(X)),
    ("sinc(x)", in_domain("sinc(x)"), sympy.sin(sympy.pi * X) / (sympy.pi * X)),
    ("deg2rad(x)", in_domain("deg2rad(x)"), X * sympy.pi / 180),
    ("rad2deg(x)", in_domain("rad2deg(x)"), X * 180 / sympy.pi),
    ("gamma(x)", in_domain("gamma(x)"), sympy.gamma(X)),
    ("gamma(x)", -1.5, sympy.gamma(X)),
    ("lgamma(x)", in_domain("lgamma(x)"), sympy.loggamma(X)),
    ("digamma(x)", in_domain("digamma(x)"), sympy.polygamma(0, X)),
    ("polygamma(2, x)", 1.7, sympy.polygamma(2, X)),
    ("factorial(x)", 4.0, sympy.gamma(X + 1)),
    ("factorial(x)", 0.5, sympy.gamma(X + 1)),
    ("erfc(x)", in_domain("erfc(x)"), sympy.erfc(X)),
    ("erfinv(x)", in_domain("erfinv(x)"), sympy.erfinv(X)),
    ("hypot(x, 3)", in_domain("hypot(x, 3)"), sympy.sqrt(X**2 + 9)),
    ("xlogy(x, 3)", in_domain("xlogy(x, 3)"), X * sympy.log(3)),
    ("xlogy(2, x)", in_domain("xlogy(2, x)", 1), 2 * sympy.log(X)),
    ("gelu(x)", in_domain("gelu(x)"), X * (1 + sympy.erf(X / sympy.sqrt(2))) / 2),
    (
        "gelu(x, approximate='tanh')",
        in_domain("gelu(x, approximate='tanh')"),
        X * (1 + sympy.tanh(sympy.sqrt(2 / sympy.pi) * (X + 0.044715 * X**3))) / 2,
    ),
    ("silu(x)", in_domain("silu(x)"), X / (1 + sympy.exp(-X))),
    # The negative branch of elu and leaky_relu, then leaky_relu's positive one.
    ("elu(x)", -0.6, sympy.exp(X) - 1),
    ("elu(x, alpha=2)", -0.6, 2 * (sympy.exp(X) - 1)),
    ("leaky_relu(x)", -0.6, 0.01 * X),
    ("leaky_relu(x, 0.2)", 0.6, X),
    ("softsign(x)", -0.6, X / (1 - X)),
]


@pytest.mark.parametrize(
    ("program", "at", "expected"), ELEMENTWISE, ids=[e[0] for e in ELEMENTWISE]
)
def test_value_and_two_derivatives_match_sympy(gradcli_json, program, at, expected):
    result = gradcli_json("hessian", program, "--x", str(at))
    exact = [
        float(sympy.N(e.subs(X, at), 30)) for e in (expected, expected.diff(X), expected.diff(X, 2))
    ]
    ours = [result["value"], result["grad"]["x"], result["hessian"]["x"]["x"]]
    np.testing.assert_allclose(ours, exact, rtol=1e-10, atol=1e-12)


def test_sinc_at_zero_has_its_limits_as_derivatives(gradcli_json):
    # sinc(x) = 1 - pi**2 x**2 / 6 + ...: value 1, slope 0, curvature -pi**2 / 3.
    result = gradcli_json("hessian", "sinc(x)", "--x", "0")
    assert result["value"] == 1 and result["grad"]["x"] == 0
    assert result["hessian"]["x"]["x"] == pytest.approx(-(math.pi**2) / 3, rel=1e-12)


def test_factorial_of_whole_numbers(gradcli_json):
    result = gradcli_json("eval", "factorial([0, 1, 2, 3, 10])")
    assert result["value"] == [1, 1, 2, 6, 3628800]


def test_gamma_at_a_pole_is_infinite_not_an_error(gradcli):
    result = gradcli("eval", "gamma(x)", "--x", "0", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout == "value inf\n"


# ----------------------------------------------------------------------------
# Scans, sorting, softmax along the last dimension
# ----------------------------------------------------------------------------


def test_cumsum_cumprod_and_sort_jacobians_by_hand(gradcli_json):
    r = gradcli_json("jacobian", "cumprod(x, 0)", "--x", "[2, 0, 3]")
    # out = [x0, x0 x1, x0 x1 x2]: rows are outputs, columns inputs.
    assert r["value"] == [2, 0, 0]
    assert r["jacobian"]["x"] == [[1, 0, 0], [0, 2, 0], [0, 6, 0]]
    r = gradcli_json("jacobian", "cumsum(x, dim=0)", "--x", "[2, 0, 3]")
    assert r["jacobian"]["x"] == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    r = gradcli_json("jacobian", "sort(x, descending=True)", "--x", "[2, 0, 3]")
    assert r["value"] == [3, 2, 0]
    assert r["jacobian"]["x"] == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]


def test_softmax_without_dim_is_along_the_last_dimension(gradcli_json):
    m = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    expected = np.exp(m) / np.exp(m).sum(axis=1, keepdims=True)
    value = gradcli_json("eval", "softmax(m)", "--m", "[[1, 2, 3], [0, 0, 1]]")["value"]
    np.testing.assert_allclose(value, expected, rtol=1e-14)
    value = gradcli_json("eval", "log_softmax(m)", "--m", "[[1, 2, 3], [0, 0, 1]]")["value"]
    np.testing.assert_allclose(value, np.log(expected), rtol=1e-14)


# ----------------------------------------------------------------------------
# Linear algebra, by hand
# ----------------------------------------------------------------------------


def test_cross_product_and_its_jacobian(gradcli_json):
    r = gradcli_json("jacobian", "cross(a, [0, 0, 1])", "--a", "[1, 2, 3]")
    # a x e3 = (a1, -a0, 0)
    assert r["value"] == [2, -1, 0]
    assert r["jacobian"]["a"] == [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]


def test_solve_gradients(gradcli_json):
    # x = A^-1 b; d sum(x) / d b = A^-T 1, d sum(x) / d A = -(A^-T 1) x^T
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    b = np.array([1.0, 2.0])
    x = np.array([1.0, 3.0]) / 5
    u = np.array([2.0, 1.0]) / 5  # A^-T [1, 1], A symmetric
    r = gradcli_json("grad", "sum(solve(A, b))", "--A", "[[2, 1], [1, 3]]", "--b", "[1, 2]")
    np.testing.assert_allclose(r["value"], x.sum(), rtol=1e-14)
    np.testing.assert_allclose(r["grad"]["b"], u, rtol=1e-14)
    np.testing.assert_allclose(r["grad"]["A"], -np.outer(u, x), rtol=1e-14)
    assert np.allclose(A @ x, b)


def test_eigvalsh_gradient_is_the_outer_product_of_eigenvectors(gradcli_json):
    # [[2, 1], [1, 2]] has eigenvalues 1 and 3, with eigenvectors (1, -1)/sqrt 2, (1, 1)/sqrt 2.
    r = gradcli_json("grad", "eigvalsh(S)[1]", "--S", "[[2, 1], [1, 2]]")
    assert r["value"] == pytest.approx(3)
    np.testing.assert_allclose(r["grad"]["S"], [[0.5, 0.5], [0.5, 0.5]], rtol=1e-12)


def test_logdet_gradient_is_the_inverse_transpose(gradcli_json):
    r = gradcli_json("grad", "logdet(A)", "--A", "[[2, 1], [0.5, 3]]")
    assert r["value"] == pytest.approx(math.log(5.5), rel=1e-14)
    np.testing.assert_allclose(r["grad"]["A"], [[3 / 5.5, -0.5 / 5.5], [-1 / 5.5, 2 / 5.5]])


def test_logdet_of_a_negative_determinant_is_nan(gradcli):
    result = gradcli("eval", "logdet(A)", "--A", "[[0, 1], [1, 0]]", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout == "value nan\n"


def test_solve_with_a_singular_matrix_is_a_clean_error(gradcli):
    result = gradcli("eval", "solve(A, [1, 2])", "--A", "[[1, 2], [2, 4]]")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: linalg.solve: The solver failed because the input")
    assert "^~~~~" in result.stderr


# ----------------------------------------------------------------------------
# Losses, with reduction= as text, against PyTorch
# ----------------------------------------------------------------------------

Z = [[1.0, 2.0, 0.5], [0.2, -1.0, 0.3]]
P = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]


def _torch_grad(loss):
    torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle for the losses")
    z = torch.tensor(Z, dtype=torch.float64, requires_grad=True)
    value = loss(torch, torch.nn.functional, z)
    value.sum().backward()
    return value.detach().numpy(), z.grad.numpy()


LOSSES = [
    ("cross_entropy(z, [2, 0])", lambda t, F, z: F.cross_entropy(z, t.tensor([2, 0]))),
    (
        "cross_entropy(z, [2, 0], reduction='sum')",
        lambda t, F, z: F.cross_entropy(z, t.tensor([2, 0]), reduction="sum"),
    ),
    (
        'cross_entropy(z, [2, 0], reduction="none", label_smoothing=0.1)',
        lambda t, F, z: F.cross_entropy(z, t.tensor([2, 0]), reduction="none", label_smoothing=0.1),
    ),
    (
        "cross_entropy(z, [2, 1], weight=[1, 2, 0.5], ignore_index=1)",
        lambda t, F, z: F.cross_entropy(
            z, t.tensor([2, 1]), weight=t.tensor([1, 2, 0.5], dtype=t.float64), ignore_index=1
        ),
    ),
    (
        f"cross_entropy(z, {P})",
        lambda t, F, z: F.cross_entropy(z, t.tensor(P, dtype=t.float64)),
    ),
    (
        f"cross_entropy(z, {P}, label_smoothing=0.2, reduction='none')",
        lambda t, F, z: F.cross_entropy(
            z, t.tensor(P, dtype=t.float64), label_smoothing=0.2, reduction="none"
        ),
    ),
    (
        f"binary_cross_entropy(sigmoid(z), {P})",
        lambda t, F, z: F.binary_cross_entropy(t.sigmoid(z), t.tensor(P, dtype=t.float64)),
    ),
    (
        f"binary_cross_entropy_with_logits(z, {P}, pos_weight=[1, 2, 3], reduction='sum')",
        lambda t, F, z: F.binary_cross_entropy_with_logits(
            z,
            t.tensor(P, dtype=t.float64),
            pos_weight=t.tensor([1, 2, 3], dtype=t.float64),
            reduction="sum",
        ),
    ),
    (f"mse_loss(z, {P})", lambda t, F, z: F.mse_loss(z, t.tensor(P, dtype=t.float64))),
    (
        f"mse_loss(z, {P}, weight={P})",
        lambda t, F, z: F.mse_loss(
            z, t.tensor(P, dtype=t.float64), weight=t.tensor(P, dtype=t.float64)
        ),
    ),
    (
        f"mse_loss(z, {P}, reduction='none')",
        lambda t, F, z: F.mse_loss(z, t.tensor(P, dtype=t.float64), reduction="none"),
    ),
]


@pytest.mark.parametrize(("program", "loss"), LOSSES, ids=[p for p, _ in LOSSES])
def test_losses_match_torch(gradcli_json, program, loss):
    value, grad = _torch_grad(loss)
    r = gradcli_json("grad", f"sum({program})", "--z", str(Z))
    np.testing.assert_allclose(r["value"], value.sum(), rtol=1e-12)
    np.testing.assert_allclose(r["grad"]["z"], grad, rtol=1e-12, atol=1e-15)


def test_softmax_cross_entropy_gradient_by_hand(gradcli_json):
    # d/dz of -log softmax(z)[1] is softmax(z) - e1.
    r = gradcli_json("grad", "cross_entropy(z, 1)", "--z", "[1, 2, 0.5]")
    s = np.exp([1, 2, 0.5]) / np.exp([1, 2, 0.5]).sum()
    np.testing.assert_allclose(r["grad"]["z"], s - [0, 1, 0], rtol=1e-14)


def test_one_hot_of_class_indices_and_the_gradient_through_it(gradcli_json):
    # one_hot(y, 3) picks log_softmax(z)[y] at each row: d/dz = e_y - softmax(z), by hand.
    z = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    r = gradcli_json(
        "grad", "-sum(one_hot(y, 3) * log_softmax(z, 1))", "--y", "[2, 0]", "--z", str(z.tolist())
    )
    s = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(r["grad"]["z"], s - [[0, 0, 1], [1, 0, 0]], rtol=1e-14)
    assert r["grad"]["y"] == [0, 0]  # class indices have no gradient
    assert gradcli_json("eval", "one_hot([1, 0])")["value"] == [[0, 1], [1, 0]]


def test_one_hot_at_many_points(gradcli):
    # At each point y, one_hot(y, 3) @ [1, 2, 3] is y + 1.
    result = gradcli("eval", "one_hot(y, 3) @ [1, 2, 3]", "--over", "y=2,0,1", "--format", "csv")
    assert result.stdout.splitlines() == ["y,value", "2,3", "0,1", "1,2"]
    # Without num_classes each point's largest class decides the length of its row.
    result = gradcli("eval", "sum(one_hot(y))", "--over", "y=0,2", "--format", "csv")
    assert result.exit_code == 2
    assert "largest class differs from point to point" in result.stderr


@pytest.mark.parametrize(
    ("program", "message", "column"),
    [
        ("one_hot(x, 3)", "one_hot: class indices must be whole numbers", 1),
        ("one_hot(x - 2, 3)", "Class values must be non-negative.", 1),
        ("one_hot(x, 2)", "Class values must be smaller than num_classes.", 1),
        ("mse_loss(x, x, reduction='avg')", 'reduction must be one of "mean", "sum", "none"', 26),
        ("gelu(x, approximate='erf')", 'approximate must be one of "none", "tanh"', 21),
        (
            "'mean' + x",
            'text in quotes is only an argument of a function, as in reduction="sum"',
            1,
        ),
        ("sin('x')", "input takes a value, not text in quotes", 5),
        ("mse_loss(x, x, reduction=1)", 'reduction must be one of "mean", "sum", "none"', 26),
        (
            "cross_entropy([[1, 2], [3, 4]], [0.5, 1])",
            "cross_entropy: a target of another shape than input holds class indices, which "
            "must be whole numbers",
            1,
        ),
    ],
)
def test_errors_name_the_argument(gradcli, program, message, column):
    bindings = ["--x", "[1, 2]"] if "x" in program.replace("'x'", "") else []
    if program == "one_hot(x, 3)":
        bindings = ["--x", "[1, 2.5]"]
    result = gradcli("eval", program, *bindings)
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == f"error: {message} at 1:{column}"


# ----------------------------------------------------------------------------
# gradcli functions lists them with PyTorch's parameters and their kinks
# ----------------------------------------------------------------------------

SIGNATURES = {
    "ln": "ln(input)",
    "log": "log(input, base=None)",
    "cbrt": "cbrt(input)",
    "hypot": "hypot(input, other)",
    "sec": "sec(input)",
    "gamma": "gamma(input)",
    "polygamma": "polygamma(n, input)",
    "factorial": "factorial(input)",
    "erfinv": "erfinv(input)",
    "xlogy": "xlogy(input, other)",
    "sinc": "sinc(input)",
    "cumprod": "cumprod(input, dim)",
    "sort": "sort(input, dim=-1, descending=False, *, stable=False)",
    "cross": "cross(input, other, dim=None)",
    "solve": "solve(A, B, *, left=True)",
    "eigvalsh": "eigvalsh(A, UPLO='L')",
    "logdet": "logdet(input)",
    "gelu": "gelu(input, *, approximate='none')",
    "leaky_relu": "leaky_relu(input, negative_slope=0.01)",
    "elu": "elu(input, alpha=1.0)",
    "softmax": "softmax(input, dim=-1)",
    "one_hot": "one_hot(input, num_classes=-1)",
    "mse_loss": "mse_loss(input, target, *, reduction='mean', weight=None)",
    "cross_entropy": (
        "cross_entropy(input, target, weight=None, *, ignore_index=-100, reduction='mean', "
        "label_smoothing=0.0)"
    ),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits(input, target, weight=None, *, reduction='mean', "
        "pos_weight=None)"
    ),
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_functions_lists_the_parameters(gradcli, name):
    result = gradcli("functions", name, "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout.split("  ")[0] == SIGNATURES[name]


@pytest.mark.parametrize(
    ("name", "kink"),
    [
        ("cbrt", "derivative inf at 0"),
        ("leaky_relu", "gradient negative_slope at 0"),
        ("elu", "gradient alpha at 0, and second derivative 0 there"),
        ("hypot", "derivative nan at the origin, as in PyTorch"),
        ("factorial", "poles at -1, -2, ...: value and derivatives inf or nan there"),
        ("gamma", "poles at 0, -1, -2, ...: value and derivatives inf or nan there"),
    ],
)
def test_functions_lists_the_kinks(gradcli, name, kink):
    result = gradcli("functions", name, "--format", "plain")
    assert result.stdout.rstrip("\n").endswith(f"at kinks: {kink}")


@pytest.mark.parametrize(
    ("program", "at", "where"),
    [
        ("leaky_relu(x)", "0", "at 0"),
        ("elu(x)", "0", "at 0"),
        ("cbrt(x)", "0", "at 0"),
        ("hypot(x, 0)", "0", "at the origin"),
        ("gamma(x)", "-2", "at a pole"),
        ("factorial(x)", "-1", "at a pole"),
        ("polygamma(1, x)", "0", "at a pole"),
    ],
)
def test_a_note_at_the_kink_and_none_a_hair_away(gradcli, program, at, where):
    function = program.partition("(")[0]
    result = gradcli("grad", program, "--x", at, "--format", "plain")
    assert f"note: {function} is evaluated {where}, where it has no derivative" in result.stderr
    result = gradcli("grad", program, "--x", f"{at}.25", "--format", "plain")
    assert "note:" not in result.stderr
