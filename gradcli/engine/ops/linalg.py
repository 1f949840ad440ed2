"""Linear algebra: matrix products, trace, determinant, inverse, diagonals, triangles."""

from __future__ import annotations

import numpy as np

from ...errors import GradcliIndexError, NotImplementedByGradcli, ShapeError
from .. import batching_rules as batching
from .. import limits
from ..opinfo import Difference
from ..optable import Table, over
from ..tensor import Tensor
from . import sympy_forms as sym
from .common import dims, raw
from .creation import ones_like
from .indexing import getitem
from .reductions import prod_others_array as prod_others_values
from .reductions import sum
from .shape import permute_op, transpose, unsqueeze

table = Table("linalg")
_LINALG = dict(kind="linalg", method=True, function=True)


def transpose_last(x):
    return transpose(x, -1, -2)


def _matmul_rule_x(g, ans, x, y):
    if np.ndim(y) == 1:
        return unsqueeze(g, -1) * y  # (..., m) -> (..., m, k); a dot product: (k,)
    if np.ndim(x) == 1:
        if np.ndim(y) == 2:
            return matmul(g, transpose_last(y))
        return sum(unsqueeze(g, -2) * y, -1)
    return matmul(g, transpose_last(y))


def _matmul_rule_y(g, ans, x, y):
    if np.ndim(y) == 1:
        if np.ndim(x) == 2:
            return matmul(g, x)
        return unsqueeze(g, -1) * x
    if np.ndim(x) == 1:
        return unsqueeze(g, -2) * unsqueeze(x, -1)  # an outer product: no BLAS call needed
    return matmul(transpose_last(x), g)


def _matmul(x, y):
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError(
            f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D"
        )
    if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
        if y.ndim == 2:  # PyTorch's mm of x's rows, in its words
            rows = int(np.prod(x.shape[:-1]))
            raise ShapeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
                f"{y.shape[0]}x{y.shape[1]})"
            )
        left = "x".join(map(str, x.shape))
        right = "x".join(map(str, y.shape))
        raise ShapeError(f"shapes cannot be multiplied ({left} and {right})")
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == 1:
        return x * y  # inner dimension 1: an outer product, cheaper than BLAS
    if x.ndim > 2 or y.ndim > 2:
        return _stacked_matmul(x, y)
    return np.matmul(*_blas_operands(x, y))


def _stacked_matmul(x, y):
    """A stack of products computed once along each stacked axis that both operands
    only broadcast (length 1 or stride 0: the identity's rows of a Jacobian, repeated
    at every point), the result broadcast along it: the same numbers, far fewer products."""
    shape = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    repeated = [
        i
        for i in range(-len(shape), 0)
        if shape[i] > 1 and all(_only_broadcast(m, i) for m in (x, y))
    ]
    if not repeated:
        return np.matmul(*_blas_operands(x, y))
    x, y = (_first_only(m, repeated) for m in (x, y))
    out = np.matmul(*_blas_operands(x, y))
    return np.broadcast_to(out, (*shape, *out.shape[-2:]))


def _blas_operands(x, y):
    """``x`` and ``y``, each copied to C order if NumPy could not hand its matrices to BLAS
    (a zero stride, as a reduction's broadcast gradient has, or a strided slice) and the
    product reads it more than once: its own loops are then ten times slower than the copy."""
    x_reuse = y.shape[-1] if y.ndim > 1 else 1  # how many times the product reads each entry
    y_reuse = x.shape[-2] if x.ndim > 1 else 1
    if x_reuse > 1 and not _blas_ready(x):
        x = np.ascontiguousarray(x)
    if y_reuse > 1 and not _blas_ready(y):
        y = np.ascontiguousarray(y)
    return x, y


def _blas_ready(m):
    """Whether each matrix (or vector) of ``m`` has a layout BLAS takes: rows or columns
    contiguous, the other axis a whole row or column apart (NumPy's own test)."""
    item = m.itemsize
    if m.ndim == 1:
        return m.shape[0] <= 1 or (m.strides[0] > 0 and m.strides[0] % item == 0)
    (rows, cols), (row_step, col_step) = m.shape[-2:], m.strides[-2:]
    if rows <= 1 or cols <= 1:  # a single row or column: only the other axis's step matters
        step = col_step if rows <= 1 else row_step
        return max(rows, cols) <= 1 or (step > 0 and step % item == 0)
    return (col_step == item and row_step >= cols * item and row_step % item == 0) or (
        row_step == item and col_step >= rows * item and col_step % item == 0
    )


def _only_broadcast(m, axis):
    """Whether the stacked axis ``axis`` (counted from the stack's end) repeats ``m``."""
    at = m.ndim - 2 + axis
    return at < 0 or m.shape[at] == 1 or m.strides[at] == 0


def _first_only(m, axes):
    index = [slice(None)] * m.ndim
    for axis in axes:
        at = m.ndim - 2 + axis
        if at >= 0:
            index[at] = slice(0, 1)
    return m[tuple(index)]


def _product(grad_fn, key=None, saves=True):
    """A matrix product recorded under ``grad_fn``: the rules depend on the operands' shapes."""
    return over(
        grad_fn,
        (_matmul_rule_x, _matmul_rule_y),
        forward=_matmul,
        key=key,
        size=limits.matmul_size,
        saves=saves,
    )


# PyTorch records a matrix product by the dimensions of its operands.
_BY_NDIM = {
    (2, 2): "MmBackward0",
    (2, 1): "MvBackward0",
    (1, 1): "DotBackward0",
    (1, 2): "SqueezeBackward4",
}


@table.composite(
    "matmul",
    "(input: Tensor, other: Tensor)",
    words=("d(a@b)/da: g -> g @ b.T", "d(a@b)/db: g -> a.T @ g"),
    doc="x @ y: matrix product",
    symbol="@",
    precedence="product",
    symbolic=lambda s, x, y: np.matmul(x, y),
    operators=("__matmul__",),
    reflected=("__rmatmul__",),
    overloads=[
        _product("UnsafeViewBackward0"),
        _product("MmBackward0", saves={"mat2": 0, "self": 1}),
        _product("MvBackward0", saves={"self": 1, "vec": 0}),
        _product("DotBackward0", saves={"self": 1, "tensor": 0}),
        _product("SqueezeBackward4"),
        _product("CloneBackward0"),
    ],
    **_LINALG,
    batching=batching.matmul,
)
def matmul(over, input, other):
    if type(input) is not Tensor and type(other) is not Tensor:
        return _matmul(input, other)
    ndims = (np.ndim(input), np.ndim(other))
    key = _BY_NDIM.get(ndims)
    if key is None:
        key = "CloneBackward0" if ndims[0] == 2 and ndims[1] > 2 else "UnsafeViewBackward0"
    return over[key](input, other)


@table.composite(
    "mm",
    "(input: Tensor, mat2: Tensor)",
    doc="mm(x, y): product of two matrices",
    symbolic=lambda s, x, y: np.matmul(x, y),
    **_LINALG,
    batching=batching.matmul,
)
def mm(over, input, mat2):
    if np.ndim(input) != 2 or np.ndim(mat2) != 2:
        raise ShapeError(f"mm: expected 2-D matrices, got {np.ndim(input)}-D and {np.ndim(mat2)}-D")
    return matmul(input, mat2)


@table.composite(
    "dot",
    "(input: Tensor, other: Tensor)",
    doc="dot(x, y): inner product of two vectors",
    symbolic=lambda s, x, y: np.dot(x, y),
    **_LINALG,
    batching=batching.matmul,
)
def dot(over, input, other):
    if np.ndim(input) != 1 or np.ndim(other) != 1:
        raise ShapeError(
            f"1D tensors expected, but got {np.ndim(input)}D and {np.ndim(other)}D tensors"
        )
    return matmul(input, other)


@table.composite(
    "mv",
    "(input: Tensor, vec: Tensor)",
    doc="mv(A, v): matrix times vector",
    kind="linalg",
    method=True,
)
def mv(over, input, vec):
    if np.ndim(input) != 2 or np.ndim(vec) != 1:
        raise ShapeError(f"vector + matrix @ vector expected, got {np.ndim(input)}, {np.ndim(vec)}")
    return matmul(input, vec)


@table.composite(
    "bmm",
    "(input: Tensor, mat2: Tensor)",
    words=("d(a@b)/da: g -> g @ b.T", "d(a@b)/db: g -> a.T @ g"),
    kind="linalg",
    method=True,
    doc="bmm(A, B): matrix products of two batches of matrices",
    overloads=[_product("BmmBackward0")],
)
def bmm(over, input, mat2):
    if np.ndim(input) != 3 or np.ndim(mat2) != 3:
        raise ShapeError("batch1 must be a 3D tensor")
    return over["BmmBackward0"](input, mat2)


def _vector(name, x):
    if np.ndim(x) != 1:
        raise ShapeError(f"{name}: expected 1-D vectors, but got a {np.ndim(x)}-D argument")
    return x


# fmt: off
outer = table.op("outer", lambda x, y: np.multiply.outer(_vector("outer", x), _vector("outer", y)),
                 "(input: Tensor, vec2: Tensor)", grad_fn="MulBackward0",
                 size=lambda x, y: np.size(x) * np.size(y),
                 rules=(lambda g, ans, x, y: matmul(g, y), lambda g, ans, x, y: matmul(x, g)),
                 doc="outer(x, y): outer product of two vectors", **_LINALG,
                 symbolic=lambda s, x, y: np.outer(x, y),
                 batching=batching.outer,
                 words=("d outer(a, b)/da: g -> g @ b", "d outer(a, b)/db: g -> g.T @ a"))
# fmt: on


# ----- trace, determinant, inverse -----


def _trace(x):
    if np.ndim(x) != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {np.ndim(x)}")
    return np.trace(x)


def _trace_rule(g, ans, x):
    eye = np.eye(x.shape[-2], x.shape[-1], dtype=raw(x).dtype)
    return unsqueeze(unsqueeze(g, -1), -1) * eye


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
trace = table.op("trace", _trace, grad_fn="TraceBackward0", rules=(_trace_rule,),
                 doc="sum of the diagonal of a matrix", **_LINALG, batching=batching.trace,
                 symbolic=lambda s, x: np.trace(x),
                 words="d trace(a)/da = the identity")
det = table.op("det", on_square("det", np.linalg.det), grad_fn="LinalgDetBackward0",
               rules=(_det_rule,), doc="determinant of a square matrix",
               symbolic=lambda s, x: sym.matrix(s, x).det(),
               kink="the gradient is the cofactor matrix everywhere, singular matrices included "
               "(PyTorch 2.13 gives zeros at rank n-1: gradcli follows mathematics)",
               domain=("well_conditioned",), **_LINALG, batching=batching.stacked,
               words="d det(a)/da = det(a)*inverse(a).T",
               differs=(Difference("at a singular matrix", "the cofactor matrix",
                                   "PyTorch 2.13 gives zeros at rank n-1",
                                   ("singular", "rank 1 3x3"), ("grad", "jacobian")),
                        Difference("of a 1 x 1 matrix", "second derivatives 0",
                                   "PyTorch's gradient does not depend on a: double backward "
                                   "raises", ("1x1",), ("grad2",))))
inverse = table.op("inverse", on_square("inverse", np.linalg.inv), grad_fn="LinalgInvExBackward0",
                   rules=(lambda g, ans, x: -matmul(matmul(transpose_last(ans), g),
                                                   transpose_last(ans)),),
                   doc="inverse of a square matrix", domain=("well_conditioned",), **_LINALG,
                   symbolic=lambda s, x: sym.array(sym.matrix(s, x).inv()),
                   batching=batching.stacked,
                   words="g -> -inverse(a).T @ g @ inverse(a).T")
# fmt: on


# ----- diagonals and triangles -----


def _diag_embed(x, rows, cols):
    x = np.asarray(x)
    limits.check("diag", x.shape[:-1] + (rows, cols))
    out = np.zeros(x.shape[:-1] + (rows, cols), dtype=x.dtype)
    k = min(rows, cols)
    idx = np.arange(k)
    out[..., idx, idx] = x[..., :k]
    return out


def _diagonal_last(x):
    return np.diagonal(x, 0, -2, -1).copy()


def _diagonal_rule(g, ans, x):
    return diag_embed(g, x.shape[-2], x.shape[-1])


_DIAGONAL = over("DiagonalBackward0", (_diagonal_rule,), forward=_diagonal_last)
# fmt: off
diag_embed = table.internal("diag_embed", _diag_embed, "(input: Tensor, rows: int, cols: int)",
                            grad_fn="DiagEmbedBackward0",
                            rules=(lambda g, ans, x, rows, cols:
                                   _DIAGONAL.fn(g)[..., : x.shape[-1]],),
                            doc="a matrix with x on its diagonal", kind="linalg",
                            words="g's diagonal")
# fmt: on


@table.composite(
    "diagonal",
    "(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1)",
    words="g goes to the diagonal, 0 elsewhere",
    doc="the diagonal of the matrices in dims dim1, dim2",
    kind="linalg",
    method=True,
    overloads=[_DIAGONAL],
)
def diagonal(over, input, offset=0, dim1=0, dim2=1):
    n = np.ndim(input)
    if offset != 0:
        raise NotImplementedByGradcli("diagonal with an offset other than 0 is not implemented")
    d1, d2 = dims(dim1, n)[0], dims(dim2, n)[0]
    if d1 == d2:
        raise GradcliIndexError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if (d1, d2) != (-2, -1):
        rest = tuple(d + n for d in range(-n, 0) if d not in (d1, d2))
        input = permute_op(input, rest + (d1 + n, d2 + n))
    return over["DiagonalBackward0"](input)


@table.composite(
    "diag",
    "(input: Tensor)",
    words="g goes to the diagonal, 0 elsewhere",
    doc="diag(v): a diagonal matrix from a vector; diag(A): the diagonal of a matrix",
    symbolic=lambda s, x: np.diag(x) * s.Integer(1),
    overloads=[
        over(
            "DiagonalBackward0_copy",
            (_diagonal_rule,),  # PyTorch's name
            forward=_diagonal_last,
        )
    ],
    **_LINALG,
    batching=batching.diag,
)
def diag(over, input):
    n = np.ndim(input)
    if n == 1:
        size = np.shape(input)[0]
        return diag_embed(input, size, size)
    if n == 2:
        return over["DiagonalBackward0_copy"](input)
    raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def _tri(x, diagonal=0, upper=False):
    if np.ndim(x) < 2:
        name = "triu" if upper else "tril"
        raise ShapeError(f"{name}: input tensor must have at least 2 dimensions")
    return np.triu(x, diagonal) if upper else np.tril(x, diagonal)


def _tri_rule(g, ans, x, diagonal=0, upper=False):
    return tril_op(g, diagonal, upper)


# fmt: off
tril_op = table.op("tril", _tri, "(input: Tensor, diagonal: int = 0)", grad_fn="TrilBackward0",
                   rules=(_tri_rule,), saves=False, kind="linalg", method=True, inplace=True,
                   doc="tril(x, diagonal=0): x on and below the diagonal, zeros above",
                   words="g below the diagonal, 0 above")
# fmt: on


@table.composite(
    "triu",
    "(input: Tensor, diagonal: int = 0)",
    words="g above the diagonal, 0 below",
    kind="linalg",
    method=True,
    inplace=True,
    doc="triu(x, diagonal=0): x on and above the diagonal, zeros below",
    overloads=[over("TriuBackward0", (_tri_rule,), forward=_tri, saves=False)],
)
def triu(over, input, diagonal=0):
    return over["TriuBackward0"](input, diagonal, True)


tril = tril_op


# The Taylor series rules (engine/jet.py).
table.series(
    **dict.fromkeys(("trace", "diagonal", "diag", "tril", "triu", "diag_embed"), "linear"),
    **dict.fromkeys(("matmul", "bmm", "outer"), "bilinear"),
)  # fmt: skip
