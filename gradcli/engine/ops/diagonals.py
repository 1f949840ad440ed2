"""A matrix's diagonals and triangles: ``trace``, ``diagonal``, ``diag`` (and its adjoint,
``diag_embed``), ``tril`` and ``triu``."""

from __future__ import annotations

import numpy as np

from ...errors import GradcliIndexError, NotImplementedByGradcli, ShapeError
from .. import batching_rules as batching
from .. import limits
from ..declared_samples import Sample
from ..optable import OWN, Table, over
from .common import dims, raw
from .shape import permute_op, unsqueeze

table = Table("diagonals", mp=OWN)
_LINALG = dict(kind="linalg", method=True, function=True)

# ----- the trace -----


def _trace(x):
    if np.ndim(x) != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {np.ndim(x)}")
    return np.trace(x)


def _trace_rule(g, ans, x):
    eye = np.eye(x.shape[-2], x.shape[-1], dtype=raw(x).dtype)
    return unsqueeze(unsqueeze(g, -1), -1) * eye


# fmt: off
trace = table.op("trace", _trace, grad_fn="TraceBackward0", rules=(_trace_rule,),
                 doc="sum of the diagonal of a matrix", **_LINALG, batching=batching.trace,
                 symbolic=lambda s, x: np.trace(x),
                 other_names=("tr",),
                 words="d trace(a)/da = the identity", complex="holomorphic")
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
                            words="g's diagonal",
                            samples=(Sample("batch", [(2, 3)], {"rows": 3, "cols": 3}),),
                            complex="holomorphic")
# fmt: on


@table.composite(
    "diagonal",
    "(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1)",
    words="g goes to the diagonal, 0 elsewhere",
    doc="the diagonal of the matrices in dims dim1, dim2",
    kind="linalg",
    method=True,
    overloads=[_DIAGONAL],
    complex="holomorphic",
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
    complex="holomorphic",
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
                   words="g below the diagonal, 0 above", complex="holomorphic")
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
    complex="holomorphic",
)
def triu(over, input, diagonal=0):
    return over["TriuBackward0"](input, diagonal, True)


tril = tril_op

# The Taylor series rules (engine/jet.py).
table.series(
    **dict.fromkeys(("trace", "diagonal", "diag", "tril", "triu", "diag_embed"), "linear"),
)  # fmt: skip
