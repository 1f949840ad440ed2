"""The op table, continued: cross products, linear systems, symmetric eigenvalues and
log-determinants.

Each op is declared once with its forward, its rules (in the differentiable ops,
so second derivatives work) and PyTorch's ``grad_fn`` name. Matrices may come in
batches (``(*, n, n)``), and the rules keep ``g``'s leading batch dimensions.
A singular matrix is an ``EngineError`` with PyTorch's words, never a NumPy error.
The conventions of ``ops`` hold here too.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import EngineError, NotImplementedByGradcli, ShapeError
from .ops import (
    _dims,
    _function,
    _raw,
    _square,
    _swap,
    defop,
    matmul,
    unsqueeze,
    where,
)

# ----------------------------------------------------------------------------
# Cross product
# ----------------------------------------------------------------------------


def _cross(input, other, dim):
    a, b = np.asarray(input), np.asarray(other)
    if np.shape(a)[dim] != 3 or np.shape(b)[dim] != 3:
        raise ShapeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. "
            f"Got {np.shape(a)[dim]} and {np.shape(b)[dim]}"
        )
    return np.cross(a, b, axisa=dim, axisb=dim, axisc=dim)


# a x b . g = a . (b x g) = b . (g x a)
_cross_op = defop(
    "cross",
    _cross,
    (
        lambda g, ans, x, y, dim: _cross_op(y, g, dim),
        lambda g, ans, x, y, dim: _cross_op(g, x, dim),
    ),
    "LinalgCrossBackward0",
    "cross(x, y, dim=None): cross product of 3-vectors along dim",
    "linalg",
)


def _cross_shape(input, other):
    if np.ndim(input) != np.ndim(other):
        raise ShapeError("linalg.cross: inputs must have the same number of dimensions.")
    try:
        return np.broadcast_shapes(np.shape(input), np.shape(other))
    except ValueError:
        raise ShapeError(
            f"linalg.cross: shapes {np.shape(input)} and {np.shape(other)} do not broadcast"
        ) from None


def cross(input, other, dim=None):
    """cross(x, y, dim=None): cross product of 3-vectors along dim (the first of size 3)."""
    shape = _cross_shape(input, other)
    if dim is None:
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise ShapeError(f"no dimension of size 3 in input (shape {shape})")
    return _cross_op(input, other, _dims(dim, len(shape))[0])


def linalg_cross(input, other, *, dim=-1):
    """linalg.cross(x, y, dim=-1): cross product of 3-vectors along dim."""
    shape = _cross_shape(input, other)
    return _cross_op(input, other, _dims(dim, len(shape))[0])


# ----------------------------------------------------------------------------
# Linear systems
# ----------------------------------------------------------------------------

_SINGULAR = "{}: The solver failed because the input matrix is singular."


def _solve(A, B, vector):
    A = _square("linalg.solve", np.asarray)(A)
    try:
        if vector:
            return np.linalg.solve(A, np.asarray(B)[..., None])[..., 0]
        return np.linalg.solve(A, B)
    except np.linalg.LinAlgError:
        raise EngineError(_SINGULAR.format("linalg.solve")) from None


def _solve_A_rule(g, ans, A, B, vector):
    grad_B = _solve_op(_swap(A), g, vector)
    if vector:
        return -unsqueeze(grad_B, -1) * unsqueeze(ans, -2)
    return -matmul(grad_B, _swap(ans))


_solve_op = defop(
    "solve",
    _solve,
    (_solve_A_rule, lambda g, ans, A, B, vector: _solve_op(_swap(A), g, vector)),
    "LinalgSolveExBackward0",
    "solve(A, B): X with A @ X = B",
    "linalg",
)


def solve(A, B, *, left=True):
    """solve(A, B): X with A @ X = B; B a vector, a matrix, or batches of either."""
    if not left:
        raise NotImplementedByGradcli("linalg.solve with left=False is not implemented")
    a, b = np.shape(A), np.shape(B)
    vector = len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])
    return _solve_op(A, B, vector)


# ----------------------------------------------------------------------------
# Symmetric eigenvalues
# ----------------------------------------------------------------------------


def _eigh(part):
    def forward(A, UPLO="L"):  # noqa: N803  (PyTorch's names)
        a = _square("linalg.eigh", np.asarray)(A)
        return np.linalg.eigh(a, UPLO)[part]

    return forward


def _eigvalsh_rule(g, ans, A, UPLO="L"):  # noqa: N803
    vectors = _eigenvectors(A, UPLO)
    return matmul(vectors * unsqueeze(g, -2), _swap(vectors))


def _eigenvectors_rule(g, ans, A, UPLO="L"):  # noqa: N803
    # PyTorch's rule for eigh's vectors: V (skew(V^T g) / (L_j - L_i)) V^T, 0 on the diagonal.
    values = eigvalsh(A, UPLO)
    projected = matmul(_swap(ans), g)
    skew = (projected - _swap(projected)) / 2
    n = np.shape(A)[-1]
    diagonal = np.eye(n, dtype=bool)
    gaps = unsqueeze(values, -2) - unsqueeze(values, -1)
    scaled = where(diagonal, 0.0, skew / where(diagonal, 1.0, gaps))
    return matmul(matmul(ans, scaled), _swap(ans))


_REPEATED = "as for a symmetric input; repeated eigenvalues make second derivatives infinite"

# fmt: off
eigvalsh = defop("eigvalsh", _eigh(0), (_eigvalsh_rule,), "LinalgEighBackward0",
                 "eigvalsh(A, UPLO='L'): eigenvalues of a symmetric matrix, ascending", "linalg",
                 kink=_REPEATED)
_eigenvectors = defop("eigenvectors", _eigh(1), (_eigenvectors_rule,), "LinalgEighBackward0",
                      "eigenvectors of a symmetric matrix (internal to eigvalsh's rule)",
                      "linalg", kink=_REPEATED)
# fmt: on

# ----------------------------------------------------------------------------
# Log-determinants
# ----------------------------------------------------------------------------


def _logabsdet(input):
    return np.linalg.slogdet(_square("logdet", np.asarray)(input))[1]


def _logabsdet_rule(g, ans, A):
    # d log|det A| = A^-T, found by a solve (a singular A is an error, as in PyTorch).
    n = np.shape(A)[-1]
    return _solve_op(_swap(A), unsqueeze(unsqueeze(g, -1), -1) * np.eye(n), False)


_logabsdet_op = defop("logabsdet", _logabsdet, (_logabsdet_rule,), "LinalgSlogdetBackward0",
                      "log |det A|", "linalg",
                      kink="gradient 0 where det < 0 (the value is nan); where det = 0 "
                           "the gradient is an error, as in PyTorch")  # fmt: skip


def logdet(input):
    """logdet(A): log of the determinant; nan where it is negative, -inf where it is 0."""
    sign = np.linalg.slogdet(_square("logdet", np.asarray)(_raw(input)))[0]
    return where(sign < 0, math.nan, _logabsdet_op(input))


FUNCTIONS = {
    "cross": _function("cross", cross, "linalg", "cross"),
    "solve": _function("solve", solve, "linalg", "solve"),
    "eigvalsh": _function("eigvalsh", None, "linalg", "eigvalsh"),
    "logdet": _function("logdet", logdet, "linalg", "logabsdet"),
}
METHODS = {"cross": cross, "logdet": logdet}

__all__ = ["cross", "logdet"]
