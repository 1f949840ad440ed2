"""Products of vectors and matrices: ``matmul`` and its fixed-rank forms (``mm``, ``dot``,
``mv``, ``bmm``), the outer product and the cross product of 3-vectors."""

from __future__ import annotations

import numpy as np

from ...errors import ShapeError
from .. import batching_rules as batching
from .. import limits, threads
from ..batched_values import Batched, logical_ndim, shape_at_a_point
from ..declared_samples import Sample
from ..optable import OWN, Table, over
from ..tensor import Tensor
from . import sympy_forms as sym
from .common import dims
from .reductions import sum
from .shape import permute, squeeze, transpose, unsqueeze

table = Table("products", mp=OWN)
_LINALG = dict(kind="linalg", method=True, function=True)


def transpose_last(x):
    return transpose(x, -1, -2)


def column_major(m):
    """Whether ``m`` is a matrix stored by columns, as a weight's transpose is. PyTorch's
    mm_mat1_backward and mm_mat2_backward then give its gradient in that layout too, so
    the transpose's own gradient comes out C-ordered, ready to keep without a copy."""
    data = m._data if type(m) is Tensor else m
    if type(data) is not np.ndarray or data.ndim != 2:
        return False
    column_step, row_step = data.strides
    return column_step == data.itemsize and row_step == data.shape[0] * data.itemsize


def mat1_grad(g, mat2, mat1):
    """``g @ mat2.T``, computed as ``(mat2 @ g.T).T`` where ``mat1`` is stored by columns."""
    if column_major(mat1):
        return transpose_last(matmul(mat2, transpose_last(g)))
    return matmul(g, transpose_last(mat2))


def mat2_grad(g, mat1, mat2):
    """``mat1.T @ g``, computed as ``(g.T @ mat1).T`` where ``mat2`` is stored by columns."""
    if column_major(mat2):
        return transpose_last(matmul(transpose_last(g), mat1))
    return matmul(transpose_last(mat1), g)


def _matmul_rule_x(g, ans, x, y):
    if np.ndim(y) == 1:
        return unsqueeze(g, -1) * y  # (..., m) -> (..., m, k); a dot product: (k,)
    if np.ndim(x) == 1:
        if np.ndim(y) == 2:
            return matmul(g, transpose_last(y))
        return sum(unsqueeze(g, -2) * y, -1)
    if np.ndim(x) == 2 and np.ndim(y) == 2:
        return mat1_grad(g, y, x)
    return matmul(g, transpose_last(y))


def _matmul_rule_y(g, ans, x, y):
    if np.ndim(y) == 1:
        if np.ndim(x) == 2:
            return matmul(g, x)
        return unsqueeze(g, -1) * x
    if np.ndim(x) == 1:
        return unsqueeze(g, -2) * unsqueeze(x, -1)  # an outer product: no BLAS call needed
    if np.ndim(x) == 2 and np.ndim(y) == 2:
        return mat2_grad(g, x, y)
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
    return _blas_matmul(x, y)


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
        return _blas_matmul(x, y)
    x, y = (_first_only(m, repeated) for m in (x, y))
    out = _blas_matmul(x, y)
    return np.broadcast_to(out, (*shape, *out.shape[-2:]))


def _blas_matmul(x, y):
    """``x @ y`` by BLAS, on the threads a product of its size gets (``threads``)."""
    x, y = _blas_operands(x, y)
    columns = y.shape[-1] if y.ndim > 1 else 1
    rows = x.shape[-2] if x.ndim > 1 else 1
    with threads.for_product(max(x.size * columns, y.size * rows)):
        return np.matmul(x, y)


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


# ----- a matrix times each point's vector (vmap) -----


def _batched_mv(x, y):
    return _matmul(x, np.asarray(y)[..., None])[..., 0]


# As PyTorch's mv, whose gradient for the matrix is an outer product (MulBackward0: a zero
# it multiplies keeps its sign, where a product of matrices would sum it away).
batched_mv = table.internal(
    "batched_mv", _batched_mv, "(input: Tensor, vec: Tensor)", grad_fn="MvBackward0",
    rules=(lambda g, ans, x, y: unsqueeze(g, -1) * unsqueeze(y, -2),
           lambda g, ans, x, y: _mv_vec_rule(g, x)),
    size=lambda x, y: np.shape(y)[0] * np.shape(x)[-2],
    doc="the matrix (or each point's) times each point's vector", kind="linalg",
    words=("d mv/dmatrix: g -> outer(g, vec)", "d mv/dvec: g -> g @ matrix"),
    samples=(Sample("one matrix", [(3, 2), (4, 2)]), Sample("a matrix each", [(4, 3, 2), (4, 2)])),
    batching=False, complex="holomorphic",
)  # fmt: skip


def _mv_vec_rule(g, x):
    if np.ndim(x) == 2 and np.ndim(g) == 2:  # as PyTorch's mv of the points: PermuteBackward0
        return permute(matmul(transpose_last(x), permute(g, (1, 0))), (1, 0))
    return squeeze(matmul(unsqueeze(g, -2), x), -2)


def _matmul_batching(entry, found):
    """matmul at many points; a matrix times each point's vector as PyTorch's rule (mv)."""
    a, b = (found[p.name] for p in entry.schema.params[:2])
    if type(b) is Batched and logical_ndim(a) == 2 and logical_ndim(b) == 1:
        shape_at_a_point(entry, found)
        return Batched(batched_mv(a.physical if type(a) is Batched else a, b.physical))
    return batching.matmul(entry, found)


@table.composite(
    "matmul",
    "(input: Tensor, other: Tensor)",
    words=("d(a@b)/da: g -> g @ b.T", "d(a@b)/db: g -> a.T @ g"),
    doc="x @ y: matrix product",
    symbol="@",
    precedence="product",
    symbolic=lambda s, x, y: np.matmul(x, y),
    other_names=("matmult",),
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
    batching=_matmul_batching,
    out=True,
    complex="holomorphic",
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
    out=True,
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
    out=True,
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
    out=True,
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
    out=True,
    complex="holomorphic",
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
                 batching=batching.outer, out=True,
                 words=("d outer(a, b)/da: g -> g @ b", "d outer(a, b)/db: g -> g.T @ a"),
                 complex="holomorphic")
# fmt: on


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
    samples=(Sample("dim -1", [(2, 3), (2, 3)], {"dim": -1}),
             Sample("broadcast", [(2, 3), (1, 3)], {"dim": -1}),
             Sample("dim -2", [(3, 2), (3, 2)], {"dim": -2})),
    complex="holomorphic",
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
    doc="cross product of 3-vectors along dim (the first of size 3)", **_LINALG,
    symbolic=sym.cross,
    batching=batching.cross,
    complex="holomorphic",
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


# The Taylor series rules (engine/jet.py).
table.series(**dict.fromkeys(("matmul", "bmm", "outer", "batched_mv"), "bilinear"))
