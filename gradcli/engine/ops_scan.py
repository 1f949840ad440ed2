"""The op table, continued: running products, and running sums and sorting as the
language calls them.

``cumsum`` and ``sort`` are ops of ``ops``; ``cumprod`` is declared here with its
rule, exact where entries are 0. The conventions of ``ops`` hold here too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .ops import (
    OPS,
    Function,
    _dims,
    _function,
    _raw,
    cumsum,
    defop,
    flip_op,
    sort,
    sum,
    transpose,
    unsqueeze,
    where,
)


def _cumprod(input, dim, dtype=None):
    return np.cumprod(input, axis=dim, dtype=dtypes.to_numpy(dtype))


def _cumprod_rule(g, ans, x, dim, dtype=None):
    d = _dims(dim, np.ndim(x))[0]
    if not np.any(np.asarray(_raw(x)) == 0):
        # d out_k / d x_i = out_k / x_i for k >= i: the reversed running sum of g * out, over x.
        return flip_op(cumsum(flip_op(g * ans, (d,)), d), (d,)) / x
    return transpose(_cumprod_vjp_with_zeros(transpose(g, d, -1), transpose(x, d, -1)), d, -1)


def _cumprod_vjp_with_zeros(g, x):
    """sum over k >= i of g_k * prod_{j <= k, j != i} x_j, along the last axis: exact with zeros."""
    n = np.shape(x)[-1]
    diagonal = np.eye(n, dtype=bool)
    # Row i of y is x with x_i replaced by 1, so cumprod(y)[i, k] is the product over
    # j <= k but i; only k >= i counts.
    y = where(diagonal, 1.0, unsqueeze(x, -2))
    table = where(np.triu(np.ones((n, n), dtype=bool)), _cumprod_op(y, -1), 0.0)
    return sum(table * unsqueeze(g, -2), -1)


_cumprod_op = defop("cumprod", _cumprod, (_cumprod_rule,), "CumprodBackward0",
                    "cumprod(x, dim): running products along dim", "other",
                    kink="exact with zero entries")  # fmt: skip


def cumprod(input, dim, *, dtype=None):
    """cumprod(x, dim): running products along dim."""
    return _cumprod_op(input, dim, dtype)


FUNCTIONS = {
    "cumsum": _function("cumsum", cumsum, "other", "cumsum"),
    "cumprod": _function("cumprod", cumprod, "other", "cumprod"),
    # The language's sort gives the values: the indices are argsort's.
    "sort": Function(
        "sort",
        sort,
        "the entries in order along dim",
        "other",
        OPS["take_along_dim"],
        kink="equal entries keep their order (a stable sort), which decides their gradients",
    ),
}
METHODS = {"cumprod": cumprod}
INPLACE_METHODS = {"cumprod_": cumprod}

__all__ = ["cumprod"]
