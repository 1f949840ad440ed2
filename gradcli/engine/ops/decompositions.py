"""What a factorization of a square matrix gives: determinants and log-determinants,
inverses, solutions of linear systems and symmetric eigenvalues. Matrices may come in
batches (``(*, n, n)``); a singular matrix is an ``EngineError`` in PyTorch's words, never a
NumPy error."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, NotImplementedByGradcli, ShapeError
from .. import batching_rules as batching
from .. import limits
from ..declared_samples import Difference, Drawn, Sample
from ..multiprecision import OWN
from ..optable import Table
from ..tensor import Tensor
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .common import raw
from .comparison import where
from .creation import ones_like
from .elementwise import log
from .indexing import getitem
from .products import matmul, transpose_last
from .reductions import prod_others_array as prod_others_values
from .shape import unsqueeze

table = Table("decompositions")
_LINALG = dict(kind="linalg", function=True)

# ----- determinants and inverses -----


def on_square(name, f):
    def forward(x):
        x = np.asarray(x)
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ShapeError(
                f"{name}: A must be batches of square matrices, but they are "
                f"{' by '.join(map(str, x.shape[-2:]))} matrices"
            )
        return f(x)

    return forward


def _cofactors(x):
    """The cofactor matrix of ``x`` (the adjugate transposed), from the minors' determinants:
    no inversion, so it exists at singular matrices, and it is written in differentiable ops."""
    n = np.shape(x)[-1]
    if n == 1:
        return ones_like(x)
    others = np.array([[k for k in range(n) if k != i] for i in range(n)])
    rows = others[:, None, :, None]  # rows[i, j] picks the rows but i, cols[i, j] the columns but j
    cols = others[None, :, None, :]
    minors = det(getitem(x, (Ellipsis, rows, cols)))
    signs = 1.0 - 2.0 * (np.add.outer(np.arange(n), np.arange(n)) % 2)
    return minors * signs.astype(np.asarray(raw(x)).dtype)


def _svd_cofactors(x):
    """The cofactor matrix of ``x`` from its SVD, U S V^T: det(U) det(V) U P V^T with P the
    diagonal of the products of the other singular values. Exact at singular matrices
    (no inversion), in O(n^3); on arrays only (no second derivatives)."""
    u, s, vt = np.linalg.svd(x)
    orientation = np.linalg.det(u) * np.linalg.det(vt)
    others = prod_others_values(s, -1) * orientation[..., None]
    return (u * others[..., None, :]) @ vt


_MAX_DIFFERENTIABLE_COFACTORS = 32  # the minors take n**4 numbers


def _det_rule(g, ans, x):
    # d det(A) / dA is the cofactor matrix. det(A) * inverse(A)^T is it where det(A) != 0
    # (and quicker); at a singular matrix it comes without inversion, as mathematics says:
    # from the minors (exact for integer entries, and differentiable), or for a large
    # matrix in the reverse pass from the SVD.
    if np.all(np.asarray(raw(ans)) != 0):
        adjugate_t = unsqueeze(unsqueeze(ans, -1), -1) * transpose_last(inverse(x))
    elif np.shape(x)[-1] <= _MAX_DIFFERENTIABLE_COFACTORS:
        adjugate_t = _cofactors(x)
    elif type(x) is not Tensor:
        adjugate_t = _svd_cofactors(x)
    else:
        raise NotImplementedByGradcli(
            f"second derivatives of det at a singular matrix larger than "
            f"{_MAX_DIFFERENTIABLE_COFACTORS} x {_MAX_DIFFERENTIABLE_COFACTORS} are not implemented"
        )
    return unsqueeze(unsqueeze(g, -1), -1) * adjugate_t


# fmt: off
det = table.op("det", on_square("det", np.linalg.det), grad_fn="LinalgDetBackward0",
               rules=(_det_rule,), doc="determinant of a square matrix",
               symbolic=lambda s, x: sym.matrix(s, x).det(),
               other_names=("determinant",),
               kink="the gradient is the cofactor matrix everywhere, singular matrices included "
               "(PyTorch 2.13 gives zeros at rank n-1: gradcli follows mathematics)",
               domain=("well_conditioned",), method=True, **_LINALG, batching=batching.stacked,
               words="d det(a)/da = det(a)*inverse(a).T",
               mp=lambda m: on_square("det", forms.det(m)),
               differs=(Difference("at a singular matrix", "the cofactor matrix",
                                   "PyTorch 2.13 gives zeros at rank n-1",
                                   ("singular", "rank 1 3x3"), ("grad", "jacobian")),
                        Difference("of a 1 x 1 matrix", "second derivatives 0",
                                   "PyTorch's gradient does not depend on a: double backward "
                                   "raises", ("1x1",), ("grad2",))), complex="holomorphic")
inverse = table.op("inverse", on_square("inverse", np.linalg.inv), grad_fn="LinalgInvExBackward0",
                   rules=(lambda g, ans, x: -matmul(matmul(transpose_last(ans), g),
                                                   transpose_last(ans)),),
                   doc="inverse of a square matrix", domain=("well_conditioned",), **_LINALG,
                   symbolic=lambda s, x: sym.array(sym.matrix(s, x).inv()), method=True,
                   other_names=("inv",),
                   batching=batching.stacked,
                   words="g -> -inverse(a).T @ g @ inverse(a).T", complex="holomorphic",
                   mp=lambda m: on_square("inverse", forms.inverse(m)))
# fmt: on


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
    kind="linalg", mp=forms.solve,
    words=("d solve(a, b)/da: g -> -solve(a.T, g) @ x.T", "d solve(a, b)/db: g -> solve(a.T, g)"),
    samples=(Sample("matrix", [Drawn("well_conditioned", (3, 3)), (3, 2)], {"vector": False}),
             Sample("vector", [Drawn("well_conditioned", (3, 3)), (3,)], {"vector": True}),
             Sample("batch of vectors", [Drawn("well_conditioned", (2, 3, 3)), (2, 3)],
                    {"vector": True})),
    complex="holomorphic",
)  # fmt: skip


@table.composite(
    "solve", "(A: Tensor, B: Tensor, *, left: bool = True)",
    doc="X with A @ X = B; B a vector, a matrix, or batches of either", **_LINALG,
    symbolic=sym.solve,
    batching=batching.solve,
    complex="holomorphic",
    mp=OWN,
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


def _adjoint(x):
    return transpose_last(x).conj()


def _complex_eigvalsh_rule(g, ans, A, UPLO="L"):  # noqa: N803
    # PyTorch's for a Hermitian A: V diag(g) V^H.
    vectors = eigenvectors(A, UPLO)
    return matmul(vectors * unsqueeze(g, -2), _adjoint(vectors))


def _complex_eigenvectors_rule(g, ans, A, UPLO="L"):  # noqa: N803
    # The real rule with V^H for V^T: V (skew-Hermitian part of V^H g / (L_j - L_i)) V^H.
    values = eigvalsh(A, UPLO)
    projected = matmul(_adjoint(ans), g)
    skew = (projected - _adjoint(projected)) / 2
    diagonal = np.eye(np.shape(A)[-1], dtype=bool)
    gaps = unsqueeze(values, -2) - unsqueeze(values, -1)
    scaled = where(diagonal, 0.0, skew / where(diagonal, 1.0, gaps))
    return matmul(matmul(ans, scaled), _adjoint(ans))


_REPEATED = "as for a symmetric input; repeated eigenvalues make second derivatives infinite"

# fmt: off
eigvalsh = table.op("eigvalsh", _eigh(0), "(A: Tensor, UPLO: 'L'|'U' = 'L')",
                    grad_fn="LinalgEighBackward0", rules=(_eigvalsh_rule,),
                    doc="eigenvalues of a symmetric matrix, ascending", kink=_REPEATED,
                    symbolic="roots of the characteristic polynomial, sorted: none in closed form",
                    library=False, **_LINALG, batching=batching.stacked,
                    words="g -> V diag(g) V.T, V the eigenvectors of a",
                    complex=(_complex_eigvalsh_rule,))
eigenvectors = table.internal("eigenvectors", _eigh(1), "(A: Tensor, UPLO: 'L'|'U' = 'L')",
                              grad_fn="LinalgEighBackward0", rules=(_eigenvectors_rule,),
                              doc="eigenvectors of a symmetric matrix (eigvalsh's rule)",
                              kind="linalg", kink=_REPEATED,
                              words="g -> V (skew(V.T g) / (L_j - L_i)) V.T,"
                              " L the eigenvalues of a",
                              samples=(Sample("3x3", [(3, 3)]), Sample("batch", [(2, 3, 3)])),
                              complex=(_complex_eigenvectors_rule,))
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
    words="d log|det(a)|/da = inverse(a).T", mp=forms.logabsdet,
    samples=(Sample("3x3", [Drawn("well_conditioned", (3, 3))]),
             Sample("batch", [Drawn("well_conditioned", (2, 2, 2))]))
)  # fmt: skip


@table.composite(
    "logdet", "(input: Tensor)", domain=("well_conditioned",),
    doc="log of the determinant; nan where it is negative, -inf where it is 0",
    symbolic=sym.logdet,
    kink="gradient 0 where det < 0 (the value is nan); where det = 0 the gradient is an "
         "error (PyTorch 2.13 gives inf or nan)",
    method=True, **_LINALG, batching=batching.stacked,
    complex="holomorphic",
)  # fmt: skip
def logdet(over, input):
    if np.iscomplexobj(raw(input)):  # log(det): its phase is the imaginary part, as PyTorch's
        return log(det(input))
    sign = np.linalg.slogdet(on_square("logdet", np.asarray)(raw(input)))[0]
    return where(sign < 0, math.nan, logabsdet(input))
