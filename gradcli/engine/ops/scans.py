"""Running sums and products along a dimension: ``cumsum`` and ``cumprod`` (exact with
zero entries)."""

from __future__ import annotations

import numpy as np

from .. import batching_rules as batching
from .. import dtypes
from ..optable import Table
from . import multiprecision_forms as forms
from .common import contiguous, one_axis, one_dim, raw
from .comparison import where
from .reductions import sum
from .shape import flip_op, transpose, unsqueeze

table = Table("scans")

# ----- running sums -----


@contiguous
def _cumsum(x, dim, dtype=None):
    one_dim("cumsum", dim)
    if one_axis(dim, np.ndim(x)) is None:  # a 0-d tensor: its one entry
        return np.array(x, dtype=dtypes.to_numpy(dtype))
    return np.cumsum(x, axis=dim, dtype=dtypes.to_numpy(dtype))


def _cumsum_rule(g, ans, x, dim, dtype=None):
    # Each entry feeds every later partial sum: the reversed cumulative sum of g.
    d = one_axis(dim, np.ndim(x))
    if d is None:
        return g
    return flip_op(cumsum(flip_op(g, (d,)), d), (d,))


cumsum = table.op(
    "cumsum",
    _cumsum,
    "(input: Tensor, dim: int, *, dtype: dtype = None)",
    words="g -> the cumulative sum of g from the end",
    grad_fn="CumsumBackward0",
    rules=(_cumsum_rule,),
    kind="other",
    method=True,
    inplace=True,
    function=True,
    doc="cumsum(x, dim): running sums along dim",
    symbolic=lambda s, x, dim: np.cumsum(x, axis=dim),
    batching=batching.along,
    complex="holomorphic",
    mp=forms.scan(_cumsum),
)


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
    complex="holomorphic",
    mp=forms.scan(_cumprod),
)  # fmt: skip


# The Taylor series rules (engine/jet.py).
table.series(cumsum="linear")
