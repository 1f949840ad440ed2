"""Singular values and the matrix norms made of them: ``torch.linalg.svdvals`` and
``torch.linalg.matrix_norm``.

``svdvals`` is the reduced SVD's singular values (``LinalgSvdBackward0``); its rule,
``U diag(g) V^H``, reads the singular vectors from two internal ops of their own
(``svd_u``, ``svd_vh``), each with PyTorch's rule for them (``svd_backward``), so
second derivatives follow as PyTorch's. ``matrix_norm`` is composed as PyTorch's
``linalg_matrix_norm``: 'fro' a vector norm of the matrix's entries, 'nuc' the sum
of the singular values, 2 and -2 the largest and smallest, 1 and -1 (inf and -inf)
the largest and smallest column (row) sums of absolute values, each over the two
dims given.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliIndexError, ShapeError
from .. import batching_rules as batching
from .. import dtypes
from ..batched_values import Batched, call_physical, probe
from ..declared_samples import Sample
from ..optable import Table
from ..tensor import Tensor
from .common import raw
from .comparison import where
from .conversion import to_dtype
from .diagonals import diag_embed, diagonal
from .products import matmul, transpose_last
from .reductions import amax, amin, norm
from .reductions import sum as sum_op
from .shape import permute_op, unsqueeze

table = Table("matrix_norms")


def _svd(part):
    """The reduced SVD's ``part``: 0 U, 1 the singular values, 2 V^H."""

    def forward(A):  # noqa: N803  (PyTorch's name)
        A = np.asarray(A)  # noqa: N806
        if A.ndim < 2:
            raise ShapeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
        if A.dtype.kind not in "fc":
            raise EngineError(
                "linalg.svd: Expected a floating point or complex tensor as input. Got "
                f"{dtypes.scalar_name(A.dtype)}"
            )
        *batch, m, n = A.shape
        k = min(m, n)
        if A.size == 0:  # NumPy refuses an empty matrix: its SVD has k = 0 or no batch
            shapes = ((*batch, m, k), (*batch, k), (*batch, k, n))
            return np.zeros(shapes[part], dtype=A.dtype)
        return np.linalg.svd(A, full_matrices=False)[part]

    return forward


def _svdvals_rule(g, ans, A):  # noqa: N803
    # d s_i = u_i^T dA v_i: the gradient U diag(g) V^H, in PyTorch's order of products.
    u, vh = svd_u(A), svd_vh(A)
    m, n = np.shape(A)[-2:]
    if m >= n:
        return matmul(u, unsqueeze(g, -1) * vh)
    return matmul(u * unsqueeze(g, -2), vh)


def _gaps(s):
    """E: s_k^2 - s_j^2 off the diagonal, 1 on it (PyTorch's svd_backward)."""
    s2 = s * s
    diagonal = np.eye(np.shape(s)[-1], dtype=bool)
    return where(diagonal, 1.0, unsqueeze(s2, -2) - unsqueeze(s2, -1))


def _adjoint(x):
    return transpose_last(x).conj()


def _skew(x, t=transpose_last):
    return x - t(x)


def _svd_u_rule(g, ans, A, t=transpose_last):  # noqa: N803
    # PyTorch's svd_backward with gU alone: U ((skew(U^H gU) / E) S) V^H, and for a tall A
    # the part of gU outside U's span, (I - U U^H) gU S^-1 V^H. (t: the transpose, or
    # the conjugate transpose for complex A.)
    u, s, vh = ans, svdvals(A), svd_vh(A)
    skew = _skew(matmul(t(u), g), t)
    core = skew / _gaps(s) * unsqueeze(s, -2)
    if t is _adjoint:  # U's phases: the imaginary diagonal of U^H gU, over 2S, as PyTorch
        k = np.shape(s)[-1]
        core = core + diag_embed(diagonal(skew, 0, -2, -1) / (2 * s), k, k)
    m, n = np.shape(A)[-2:]
    if m > n:
        core = matmul(u, core)
        scaled = g / unsqueeze(s, -2)
        return matmul(core + scaled - matmul(u, matmul(t(u), scaled)), vh)
    return matmul(matmul(u, core), vh) if m < n else matmul(u, matmul(core, vh))


def _svd_vh_rule(g, ans, A, t=transpose_last):  # noqa: N803
    # With gV^H alone: U (S (skew(V^H gV) / E)) V^H, and for a wide A the part of gV^H
    # outside V's span, U S^-1 gV^H (I - V V^H).
    u, s, vh = svd_u(A), svdvals(A), ans
    core = unsqueeze(s, -1) * (_skew(matmul(vh, t(g)), t) / _gaps(s))
    m, n = np.shape(A)[-2:]
    if m < n:
        core = matmul(core, vh)
        scaled = g / unsqueeze(s, -1)
        return matmul(u, core + scaled - matmul(matmul(scaled, t(vh)), vh))
    return matmul(u, matmul(core, vh)) if m >= n else matmul(matmul(u, core), vh)


def _complex_svd_u_rule(g, ans, A):  # noqa: N803
    return _svd_u_rule(g, ans, A, _adjoint)


def _complex_svd_vh_rule(g, ans, A):  # noqa: N803
    return _svd_vh_rule(g, ans, A, _adjoint)


_REPEATED = "repeated singular values make the singular vectors' derivatives infinite"

# fmt: off
svdvals = table.op("svdvals", _svd(1), "(A: Tensor)", grad_fn="LinalgSvdBackward0",
                   rules=(_svdvals_rule,), doc="singular values of a matrix, descending",
                   kind="linalg", library=False, batching=batching.stacked,
                   kink="at a repeated singular value the second derivatives are infinite",
                   words="g -> U diag(g) V^H, U and V the singular vectors of a",
                   samples=(Sample("3x2", [(3, 2)]), Sample("2x3", [(2, 3)]),
                            Sample("batch", [(2, 3, 3)])),
                   complex=(_svdvals_rule,))  # U diag(g) V^H: V^H is NumPy's own
svd_u = table.internal("svd_u", _svd(0), "(A: Tensor)", grad_fn="LinalgSvdBackward0",
                       rules=(_svd_u_rule,), doc="left singular vectors (svdvals' rule)",
                       kind="linalg", kink=_REPEATED,
                       words="g -> U ((skew(U^H g) / E) S) V^H + (I - U U^H) g S^-1 V^H",
                       samples=(Sample("tall", [(3, 2)]), Sample("wide", [(2, 3)]),
                                Sample("batch", [(2, 3, 3)])),
                       complex=(_complex_svd_u_rule,))
svd_vh = table.internal("svd_vh", _svd(2), "(A: Tensor)", grad_fn="LinalgSvdBackward0",
                        rules=(_svd_vh_rule,), doc="right singular vectors, as rows",
                        kind="linalg", kink=_REPEATED,
                        words="g -> U (S (skew(V^H g^H) / E)) V^H + U S^-1 g (I - V V^H)",
                        samples=(Sample("tall", [(3, 2)]), Sample("wide", [(2, 3)]),
                                 Sample("batch", [(2, 3, 3)])),
                        complex=(_complex_svd_vh_rule,))
# fmt: on


# ----- matrix norms -----

_ORDERS = ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)


def _checked_dims(A, dim):  # noqa: N803
    ndim = np.ndim(A)
    if ndim < 2:
        raise EngineError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    kind = np.asarray(raw(A)).dtype
    if kind.kind not in "fc":
        raise EngineError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.scalar_name(kind)}"
        )
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        shown = dims[0] if len(dims) == 1 else dims
        raise EngineError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    for d in dims:
        if not -ndim <= d < ndim:
            raise GradcliIndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
    dims = [d % ndim for d in dims]
    if dims[0] == dims[1]:
        raise EngineError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    return dims


def _at_end(A, dims):  # noqa: N803
    """A permuted with ``dims`` last, in their order, and the permutation."""
    order = [d for d in range(np.ndim(A)) if d not in dims] + dims
    return permute_op(A, order), order


def _reduced_back(result, order):
    """A keepdim result of the dims moved last put back in the input's order."""
    result = unsqueeze(unsqueeze(result, -1), -1)
    return permute_op(result, [order.index(d) for d in range(len(order))])


def _matrix_norm_batching(entry, found):
    """matrix_norm at many points: each point's two dims, past the batch axis (the
    single-point call checks them first, and raises its error)."""
    A = found["A"]  # noqa: N806
    probe(entry, found)
    dims = _checked_dims(Tensor._make(np.zeros(A.shape)), found.get("dim") or (-2, -1))
    physical = {k: v.physical if type(v) is Batched else v for k, v in found.items()}
    physical["dim"] = [d + 1 for d in dims]
    return call_physical(entry, found, physical)


@table.composite(
    "matrix_norm",
    "(A: Tensor, ord: Number|str = 'fro', dim: int[] = None, keepdim: bool = False, *, "
    "dtype: dtype = None)",
    doc="matrix norm over two dims (-2 and -1 unless given): 'fro', 'nuc', 2, -2, 1, -1, "
    "inf or -inf",
    kind="linalg", library=False, batching=_matrix_norm_batching,
    kink="not differentiable where the largest (smallest) singular value or column sum ties",
    samples=(Sample("fro", [(2, 3)]), Sample("nuc", [(3, 2)], {"ord": "nuc"}),
             Sample("2", [(2, 3)], {"ord": 2}), Sample("-2", [(3, 2)], {"ord": -2}),
             Sample("1", [(2, 3)], {"ord": 1}), Sample("-1", [(3, 2)], {"ord": -1}),
             Sample("inf", [(2, 3)], {"ord": math.inf}),
             Sample("-inf", [(3, 2)], {"ord": -math.inf}),
             Sample("dims", [(2, 3, 2)], {"ord": 2, "dim": [2, 0], "keepdim": True}),
             Sample("dims 1", [(3, 2, 2)], {"ord": 1, "dim": [0, 2]}),
             Sample("nuc keepdim", [(2, 2, 3)], {"ord": "nuc", "keepdim": True})),
)  # fmt: skip
def matrix_norm(over, A, ord="fro", dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803
    if not (isinstance(ord, str) and ord in _ORDERS) and not (
        not isinstance(ord, (str, bool)) and ord in _ORDERS
    ):
        shown = ord if isinstance(ord, str) or ord != int(ord) else int(ord)
        raise EngineError(f"linalg.matrix_norm: Order {shown} not supported.")
    dims = _checked_dims(A, (-2, -1) if dim is None else dim)
    if dtype is not None:
        A = _as_dtype(A, dtype)  # noqa: N806
    if ord == "fro":
        return norm(A, 2, dims, keepdim)
    if ord in ("nuc", 2, -2):
        moved, order = _at_end(A, dims)
        values = svdvals(moved)
        result = sum_op(values, -1) if ord == "nuc" else _extreme(values, -1, ord > 0, False)
        return _reduced_back(result, order) if keepdim else result
    # The inf-norm is the 1-norm of the transpose: the sums along the second dim.
    first, second = dims if abs(ord) == 1 else dims[::-1]
    if not keepdim and first < second:
        second -= 1
    return _extreme(norm(A, 1, [first], keepdim), second, ord > 0, keepdim)


def _extreme(x, dim, largest, keepdim):
    """amax or amin along dim; as PyTorch's matrix norm, the largest of none is 0 (a
    plain tensor), the smallest of none amin's error."""
    if largest and np.shape(x)[dim] == 0:
        shape = list(np.shape(x))
        shape[dim] = 1
        zeros = np.zeros(shape, dtype=np.asarray(raw(x)).dtype)
        return Tensor._make(zeros if keepdim else np.squeeze(zeros, dim))
    return (amax if largest else amin)(x, dim, keepdim)


def _as_dtype(A, dtype):  # noqa: N803
    target, source = dtypes.to_numpy(dtype), np.asarray(raw(A)).dtype
    if target.kind not in "fc":
        raise EngineError(
            "linalg.matrix_norm: dtype should be floating point or complex, but got "
            f"{dtypes.scalar_name(target)}"
        )
    if not np.can_cast(source, target, casting="safe"):
        raise EngineError(
            f"linalg.matrix_norm: the dtype of the input ({dtypes.scalar_name(source)}) should "
            "be convertible without narrowing to the specified dtype "
            f"({dtypes.scalar_name(target)})"
        )
    return to_dtype(A, target)
