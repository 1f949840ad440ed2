"""Linear algebra beyond products: cross products, linear systems, symmetric eigenvalues,
log-determinants, and running products. Matrices may come in batches (``(*, n, n)``);
a singular matrix is an ``EngineError`` in PyTorch's words, never a NumPy error."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, ShapeError
from .. import batching_rules as batching
from .. import dtypes, limits
from ..optable import Table
from . import sympy_forms as sym
from .common import dims, one_axis, raw
from .comparison import where
from .linalg import matmul, on_square, transpose_last
from .reductions import cumsum, sum
from .shape import flip_op, transpose, unsqueeze

table = Table("linalg_extra")
_LINALG = dict(kind="linalg", function=True)

# ----- cross product: a x b . g = a . (b x g) = b . (g x a) -----


def _cross(input, other, dim):
    a, b = np.asarray(input), np.asarray(other)
    if np.shape(a)[dim] != 3 or np.shape(b)[dim] != 3:
        raise ShapeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. "
            f"Got {np.shape(a)[dim]} and {np.shape(b)[dim]}"
        )
    return np.cross(a, b, axisa=dim, axisb=dim, axisc=dim)


cross_op = table.internal(
    "cross_op", _cross, "(input: Tensor, other: Tensor, dim: int)",
    grad_fn="LinalgCrossBackward0", size=limits.broadcast_size,
    rules=(
        lambda g, ans, x, y, dim: cross_op(y, g, dim),
        lambda g, ans, x, y, dim: cross_op(g, x, dim),
    ),
    doc="the cross product along a negative dim", kind="linalg",
    words=("d cross(a, b)/da: g -> cross(b, g)", "d cross(a, b)/db: g -> cross(g, a)"),
)  # fmt: skip


def _cross_shape(input, other):
    if np.ndim(input) != np.ndim(other):
        raise ShapeError("linalg.cross: inputs must have the same number of dimensions.")
    try:
        return np.broadcast_shapes(np.shape(input), np.shape(other))
    except ValueError:
        raise ShapeError(
            f"linalg.cross: shapes {np.shape(input)} and {np.shape(other)} do not broadcast"
        ) from None


@table.composite(
    "cross", "(input: Tensor, other: Tensor, dim: int = None)",
    doc="cross product of 3-vectors along dim (the first of size 3)", method=True, **_LINALG,
    symbolic=sym.cross,
    batching=batching.cross,
)  # fmt: skip
def cross(over, input, other, dim=None):
    shape = _cross_shape(input, other)
    if dim is None:
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise ShapeError(f"no dimension of size 3 in input (shape {shape})")
    return cross_op(input, other, dims(dim, len(shape))[0])


def linalg_cross(input, other, *, dim=-1):
    """linalg.cross(x, y, dim=-1): cross product of 3-vectors along dim."""
    shape = _cross_shape(input, other)
    return cross_op(input, other, dims(dim, len(shape))[0])


# ----- linear systems -----

_SINGULAR = "{}: The solver failed because the input matrix is singular."


def _solve(A, B, vector, left=True):
    A = on_square("linalg.solve", np.asarray)(A)
    try:
        if vector:
            return np.linalg.solve(A, np.asarray(B)[..., None])[..., 0]
        if not left:  # X A = B is A^T X^T = B^T
            return np.swapaxes(
                np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2
            )
        return np.linalg.solve(A, B)
    except np.linalg.LinAlgError:
        raise EngineError(_SINGULAR.format("linalg.solve")) from None


def _solve_B_rule(g, ans, A, B, vector, left=True):
    # A X = B: g -> A^-T g; X A = B: g -> g A^-T, the same solve with A^T.
    return solve_op(transpose_last(A), g, vector, left)


def _solve_A_rule(g, ans, A, B, vector, left=True):
    grad_B = _solve_B_rule(g, ans, A, B, vector, left)
    if vector:
        return -unsqueeze(grad_B, -1) * unsqueeze(ans, -2)
    if not left:  # dX = -X dA A^-1
        return -matmul(transpose_last(ans), grad_B)
    return -matmul(grad_B, transpose_last(ans))


solve_op = table.internal(
    "solve_op", _solve, "(A: Tensor, B: Tensor, vector: bool, left: bool = True)",
    grad_fn="LinalgSolveExBackward0", size=limits.broadcast_size,
    rules=(_solve_A_rule, _solve_B_rule),
    doc="X with A @ X = B (X @ A = B if not left), B a (batch of) vector(s) or matrices",
    kind="linalg",
    words=("d solve(a, b)/da: g -> -solve(a.T, g) @ x.T", "d solve(a, b)/db: g -> solve(a.T, g)"),
)  # fmt: skip


@table.composite(
    "solve", "(A: Tensor, B: Tensor, *, left: bool = True)",
    doc="X with A @ X = B; B a vector, a matrix, or batches of either", **_LINALG,
    symbolic=sym.solve,
    batching=batching.solve,
)  # fmt: skip
def solve(over, A, B, *, left=True):
    a, b = np.shape(A), np.shape(B)
    if not left:  # X A = B: B holds matrices only, rows as long as A's, as in PyTorch
        if len(a) >= 2 and (len(b) < 2 or b[-1] != a[-1]):
            k = b[-2] if len(b) >= 2 else 1
            raise ShapeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation XA = B "
                f"({a[-2]}x{a[-1]} and {b[-1] if b else 1}x{k})"
            )
        return solve_op(A, B, False, False)
    return solve_op(A, B, len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1]))


# ----- symmetric eigenvalues -----


def _eigh(part):
    def forward(A, UPLO="L"):  # noqa: N803  (PyTorch's names)
        return np.linalg.eigh(on_square("linalg.eigh", np.asarray)(A), UPLO)[part]

    return forward


def _eigvalsh_rule(g, ans, A, UPLO="L"):  # noqa: N803
    vectors = eigenvectors(A, UPLO)
    return matmul(vectors * unsqueeze(g, -2), transpose_last(vectors))


def _eigenvectors_rule(g, ans, A, UPLO="L"):  # noqa: N803
    # PyTorch's rule for eigh's vectors: V (skew(V^T g) / (L_j - L_i)) V^T, 0 on the diagonal.
    values = eigvalsh(A, UPLO)
    projected = matmul(transpose_last(ans), g)
    skew = (projected - transpose_last(projected)) / 2
    diagonal = np.eye(np.shape(A)[-1], dtype=bool)
    gaps = unsqueeze(values, -2) - unsqueeze(values, -1)
    scaled = where(diagonal, 0.0, skew / where(diagonal, 1.0, gaps))
    return matmul(matmul(ans, scaled), transpose_last(ans))


_REPEATED = "as for a symmetric input; repeated eigenvalues make second derivatives infinite"

# fmt: off
eigvalsh = table.op("eigvalsh", _eigh(0), "(A: Tensor, UPLO: 'L'|'U' = 'L')",
                    grad_fn="LinalgEighBackward0", rules=(_eigvalsh_rule,),
                    doc="eigenvalues of a symmetric matrix, ascending", kink=_REPEATED,
                    symbolic="roots of the characteristic polynomial, sorted: none in closed form",
                    library=False, **_LINALG, batching=batching.stacked,
                    words="g -> V diag(g) V.T, V the eigenvectors of a")
eigenvectors = table.internal("eigenvectors", _eigh(1), "(A: Tensor, UPLO: 'L'|'U' = 'L')",
                              grad_fn="LinalgEighBackward0", rules=(_eigenvectors_rule,),
                              doc="eigenvectors of a symmetric matrix (eigvalsh's rule)",
                              kind="linalg", kink=_REPEATED,
                              words="g -> V (skew(V.T g) / (L_j - L_i)) V.T,"
                              " L the eigenvalues of a")
# fmt: on

# ----- log-determinants -----


def _logabsdet(input):
    return np.linalg.slogdet(on_square("logdet", np.asarray)(input))[1]


def _logabsdet_rule(g, ans, A):
    # d log|det A| = A^-T, found by a solve: a singular A is an error (PyTorch 2.13 gives
    # inf or nan there).
    n = np.shape(A)[-1]
    return solve_op(transpose_last(A), unsqueeze(unsqueeze(g, -1), -1) * np.eye(n), False)


logabsdet = table.internal(
    "logabsdet", _logabsdet, "(input: Tensor)", grad_fn="LinalgSlogdetBackward0",
    rules=(_logabsdet_rule,), doc="log |det A|", kind="linalg",
    words="d log|det(a)|/da = inverse(a).T",
)  # fmt: skip


@table.composite(
    "logdet", "(input: Tensor)",
    doc="log of the determinant; nan where it is negative, -inf where it is 0",
    symbolic=lambda s, x: s.log(sym.matrix(s, x).det()),
    kink="gradient 0 where det < 0 (the value is nan); where det = 0 the gradient is an "
         "error (PyTorch 2.13 gives inf or nan)",
    method=True, **_LINALG, batching=batching.stacked,
)  # fmt: skip
def logdet(over, input):
    sign = np.linalg.slogdet(on_square("logdet", np.asarray)(raw(input)))[0]
    return where(sign < 0, math.nan, logabsdet(input))


# ----- running products, exact with zero entries -----


def _cumprod(input, dim, dtype=None):
    if one_axis(dim, np.ndim(input)) is None:  # a 0-d tensor: its one entry
        return np.array(input, dtype=dtypes.to_numpy(dtype))
    return np.cumprod(input, axis=dim, dtype=dtypes.to_numpy(dtype))


def _cumprod_rule(g, ans, x, dim, dtype=None):
    d = one_axis(dim, np.ndim(x))
    if d is None:
        return g
    if not np.any(np.asarray(raw(x)) == 0):
        # d out_k / d x_i = out_k / x_i for k >= i: the reversed running sum of g * out, over x.
        return flip_op(cumsum(flip_op(g * ans, (d,)), d), (d,)) / x
    return transpose(_cumprod_vjp_with_zeros(transpose(g, d, -1), transpose(x, d, -1)), d, -1)


def _cumprod_vjp_with_zeros(g, x):
    """sum over k >= i of g_k * prod_{j <= k, j != i} x_j, along the last axis: exact with zeros."""
    n = np.shape(x)[-1]
    # Row i of y is x with x_i replaced by 1, so cumprod(y)[i, k] is the product over
    # j <= k but i; only k >= i counts.
    y = where(np.eye(n, dtype=bool), 1.0, unsqueeze(x, -2))
    table_ = where(np.triu(np.ones((n, n), dtype=bool)), cumprod(y, -1), 0.0)
    return sum(table_ * unsqueeze(g, -2), -1)


cumprod = table.op(
    "cumprod", _cumprod, "(input: Tensor, dim: int, *, dtype: dtype = None)",
    grad_fn="CumprodBackward0", rules=(_cumprod_rule,), kind="other", method=True,
    inplace=True, function=True, doc="running products along dim",
    symbolic=lambda s, x, dim: np.cumprod(x, axis=dim),
    kink="exact with zero entries", batching=batching.along,
    words="d cumprod(a)_k/da_i = the product of a_j for j <= k but i, for k >= i",
)  # fmt: skip
