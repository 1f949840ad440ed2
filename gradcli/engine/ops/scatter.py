"""Adding a source into chosen places of a tensor: ``index_add`` (``x.index_add_``).

``index_add(x, dim, index, source, alpha=1)`` adds ``alpha * source[..., i, ...]`` into
``x[..., index[i], ...]`` along ``dim``, one slice after another in the order of
``index`` (as PyTorch's CPU loop, so repeated indices sum in its order). The gradient
passes to ``x`` whole and to ``source`` as ``alpha`` times the gradient's slices at
``index`` (``IndexAddBackward0``).
"""

from __future__ import annotations

import numpy as np

from ...errors import EngineError, GradcliIndexError, ShapeError
from ..declared_samples import Sample
from ..messages import dim_out_of_range
from ..optable import Table
from .common import raw
from .indexing import index_select

table = Table("scatter")


def _axis(dim, ndim):
    span = max(ndim, 1)
    if not -span <= dim < span:
        raise GradcliIndexError(dim_out_of_range(dim, ndim))
    return dim % span


def _checked_index(index):
    index = np.asarray(raw(index))
    if index.dtype.kind not in "iu":
        name = {"f": "Float", "b": "Bool"}.get(index.dtype.kind, index.dtype.name)
        if index.dtype == np.float64:
            name = "Double"
        raise EngineError(f"index_add_(): Expected dtype int32/int64 for index but got: {name}")
    if index.ndim > 1:
        raise GradcliIndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
            f"type: Long and size: [{', '.join(map(str, index.shape))}]"
        )
    return index.reshape(-1)


def _index_add(input, source, dim, index, alpha=1):
    x, s = np.asarray(input), np.asarray(source)
    d = _axis(dim, x.ndim)
    out = np.array(x, dtype=np.result_type(x, s) if x.dtype != s.dtype else x.dtype, copy=True)
    if x.ndim == 0:
        out, s = out.reshape(1), s.reshape(1)
    added = s if alpha == 1 else s * alpha
    np.add.at(out, (slice(None),) * d + (index,), added)  # in index order, repeats summed
    return out.reshape(x.shape)


def _source_rule(g, ans, x, s, dim, index, alpha=1):
    d = _axis(dim, np.ndim(x)) - max(np.ndim(x), 1)  # negative: g may lead with a batch
    picked = index_select(g if np.ndim(x) else g.reshape(g.shape + (1,)), d, index)
    picked = picked if np.ndim(s) else picked.reshape(picked.shape[:-1])
    return picked if alpha == 1 else picked * alpha


index_add_op = table.internal(
    "index_add_op", _index_add, "(input: Tensor, source: Tensor, dim: int, index: Index, "
    "alpha: Number)",
    grad_fn="IndexAddBackward0",
    rules=(lambda g, ans, x, s, dim, index, alpha=1: g, _source_rule),
    doc="x with alpha * source added at index along dim", kind="other",
    words=("d index_add/dx = 1", "d index_add/dsource: g -> alpha * g at index"),
    samples=(Sample("rows", [(3, 2), (3, 2)], {"dim": 0, "index": np.array([2, 0, 2]),
                                                "alpha": 1.5}),)
)  # fmt: skip


@table.composite(
    "index_add",
    "(input: Tensor, dim: int, index: Index, source: Tensor, *, alpha: Number = 1)",
    doc="index_add(x, dim, index, source): source's slices added into x's at index along dim",
    kind="other", method=True, inplace=True,
    samples=(Sample("rows", [(4, 3)], {"dim": 0, "index": np.array([0, 2, 0]),
                                        "source": np.ones((3, 3))}),
             Sample("alpha", [(2, 4)], {"dim": 1, "index": np.array([3, 1]),
                                        "source": np.full((2, 2), 0.5), "alpha": 2.0})),
)  # fmt: skip
def index_add(over, input, dim, index, source, *, alpha=1):
    index = _checked_index(index)
    x_shape, s_shape = np.shape(input), np.shape(source)
    d = _axis(dim, len(x_shape))
    if np.asarray(raw(input)).dtype != np.asarray(raw(source)).dtype:
        names = {np.dtype(np.float32): "Float", np.dtype(np.float64): "Double",
                 np.dtype(np.int64): "Long", np.dtype(np.int32): "Int"}  # fmt: skip
        x_name, s_name = (names.get(np.asarray(raw(a)).dtype, "?") for a in (input, source))
        raise EngineError(
            f"index_add_(): self ({x_name}) and source ({s_name}) must have the same scalar type"
        )
    n = s_shape[d] if s_shape else 1
    if index.size != n:
        raise EngineError(
            f"index_add_(): Number of indices ({index.size}) should be equal to "
            f"source.size(dim): ({n}), for dim: {d}"
        )
    if len(x_shape) != len(s_shape) or any(
        a != b for i, (a, b) in enumerate(zip(x_shape, s_shape)) if i != d
    ):
        if not (len(s_shape) == 0 and len(x_shape) <= 1):
            raise ShapeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = [{', '.join(map(str, x_shape))}] source.shape = "
                f"[{', '.join(map(str, s_shape))}]"
            )
    size = x_shape[d] if x_shape else 1
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise EngineError(f"index {bad[0]} is out of bounds for dimension {d} with size {size}")
    return index_add_op(input, source, d, index, alpha)


table.series(index_add_op="linear")
