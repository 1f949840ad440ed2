"""Indexing: x[index], x[index] = v, gather and take_along_dim; joining and splitting
(stack, cat, unbind, split), whose rules index."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliIndexError, GradcliValueError, ShapeError
from .. import batching_rules as batching
from .. import limits, saved, state
from ..batched_values import advanced_apart, advanced_rank
from ..messages import LEAF_INPLACE, OVERLAPPING_WRITE, forward_error
from ..optable import OWN, Table, over
from ..tensor import Tensor
from .common import batch_of, dims, one_axis, raw
from .creation import zeros_like
from .shape import broadcast_array, permute_op, reshape, unsqueeze

table = Table("indexing", mp=OWN)


def _normalize_index(index):
    """A Python index with tensors replaced by arrays (bool masks stay masks)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if type(item) is Tensor:
            item = item._data
            if item.ndim == 0 and item.dtype.kind in "iu":
                item = int(item)  # x[torch.tensor(1)] selects, as x[1] does
        elif isinstance(item, list):
            item = np.asarray([i._data if type(i) is Tensor else i for i in item])
        elif isinstance(item, slice) and item.step is not None and item.step <= 0:
            if item.step == 0:
                raise GradcliValueError("slice step cannot be zero")
            raise GradcliValueError(
                "step must be greater than zero (a tensor has no negative strides: "
                "flip(x, dims) reverses the order)"
            )
        out.append(item)
    return tuple(out)


def _is_basic(index):
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis for i in index)


def _getitem(x, index):
    try:
        return np.asarray(x)[index]
    except IndexError as err:
        raise GradcliIndexError(str(err).replace(" for axis ", " for dimension ")) from None


def _index_scatter(g, index, shape):
    """The gradient of ``x[index]``: zeros of x's shape with g added at index."""
    selected = np.broadcast_to(np.empty((), dtype=bool), tuple(shape))[index]
    batch = tuple(g.shape[: g.ndim - selected.ndim])
    out = np.zeros(batch + tuple(shape), dtype=g.dtype)
    full = (slice(None),) * len(batch) + index
    if _is_basic(index):
        out[full] = g
        return out
    if batch and advanced_apart(index):
        # NumPy puts the arrays' axes first, before the batch axes the slices keep.
        rank = advanced_rank(index)
        g = np.moveaxis(g, range(len(batch)), range(rank, rank + len(batch)))
    np.add.at(out, full, g)
    return out


def _scatter_size(g, index, shape):
    # g's leading dimensions beyond x[index]'s (a batch) times x's size.
    selected = np.broadcast_to(np.empty((), dtype=bool), tuple(shape))[index]
    return np.size(g) // max(selected.size, 1) * math.prod(shape)


def _getitem_rule(g, ans, x, index):
    return index_scatter(g, index, np.shape(x))


def _index_scatter_rule(g, ans, x, index, shape):
    # g's leading dimensions beyond ``shape``: the pass's batch and any the scatter had.
    batch = g.ndim - len(shape)
    out = index_op(g, (slice(None),) * batch + index)
    if batch and advanced_apart(index):
        # NumPy put the arrays' axes first: the batch axes go back in front.
        rank = advanced_rank(index)
        order = (*range(rank, rank + batch), *range(rank), *range(rank + batch, out.ndim))
        out = permute_op(out, order)
    return out


def _indexed(grad_fn, key=None):
    """An overload that records ``x[index]`` under ``grad_fn``."""
    return over(grad_fn, (_getitem_rule,), forward=_getitem, key=key, size=limits.index_size)


_INDEX = _indexed("IndexBackward0")


@table.composite(
    "getitem",
    "(input: Tensor, index)",
    words="g at the entries indexed, 0 elsewhere (added where an entry repeats)",
    kind="shape",
    library=False,
    doc="x[index]: ints, slices, ..., None, integer arrays and boolean masks",
    operators=("__getitem__",),
    overloads=[
        _INDEX,
        _indexed("SelectBackward0"),
        _indexed("SliceBackward0"),
        _indexed("UnsqueezeBackward0"),
        _indexed("AliasBackward0"),
    ],
    batching=batching.index,
    complex="holomorphic",
)
def getitem(over, input, index):
    index = _normalize_index(index)
    if type(input) is not Tensor:
        return _getitem(input, index)
    last = next((i for i in reversed(index) if i is not Ellipsis), Ellipsis)
    if not _is_basic(index):
        key = "IndexBackward0"
    elif isinstance(last, (int, np.integer)):
        key = "SelectBackward0"
    elif isinstance(last, slice):
        key = "SliceBackward0"
    elif last is None:
        key = "UnsqueezeBackward0"
    else:
        key = "AliasBackward0"
    return over[key](input, index)


index_op = _INDEX.fn  # what rules use: x[index] recorded as IndexBackward0
index_scatter = table.internal(
    "index_scatter",
    _index_scatter,
    "(input: Tensor, index, size: int[])",
    grad_fn="IndexPutBackward",
    size=_scatter_size,
    rules=(_index_scatter_rule,),
    saves=False,
    doc="the gradient of x[index]",
    kind="shape",
    complex="holomorphic",
)


# ----- x[index] = value -----


def _assign(out, index, value):
    """``out[index] = value``, with PyTorch's message when the shapes do not fit."""
    if not out.flags.writeable:  # an expand()ed tensor: entries share memory
        raise EngineError(OVERLAPPING_WRITE)
    try:
        out[index] = value
    except ValueError:
        selected = out[index].shape
        if _is_basic(index):
            broadcast_array(value, selected)  # raises PyTorch's "expanded size" message
        raise ShapeError(
            f"shape mismatch: value tensor of shape {list(np.shape(value))} "
            f"cannot be broadcast to indexing result of shape "
            f"{list(selected)}"
        ) from None


def _index_put(old, value, index):
    out = np.array(old, copy=True)
    _assign(out, index, value)
    return out


def _zero_at(g, index, batch_dims):
    out = np.array(g, copy=True)
    out[(slice(None),) * batch_dims + index] = 0
    return out


zero_at = table.internal(
    "zero_at",
    _zero_at,
    "(input: Tensor, index, batch_dims: int)",
    grad_fn="ZeroAtBackward",
    rules=(
        lambda g, ans, x, index, batch_dims: zero_at(g, index, batch_dims + len(batch_of(g, ans))),
    ),
    saves=False,
    doc="the entries at index set to zero",
    kind="shape",
)


def _index_put_rules():
    def old_rule(g, ans, old, value, index):
        return zero_at(g, index, len(batch_of(g, ans)))

    def value_rule(g, ans, old, value, index):
        return index_op(g, (slice(None),) * len(batch_of(g, ans)) + index)

    return (old_rule, value_rule)


def _picks_part(index, shape):
    """Whether a basic index names a part of the tensor (PyTorch's "a view of a leaf")."""
    if any(item is None or isinstance(item, (int, np.integer)) for item in index):
        return True
    ellipsis = next((k for k, item in enumerate(index) if item is Ellipsis), len(index))
    after = len(index) - ellipsis - 1
    dims_ = list(range(ellipsis)) + list(range(len(shape) - after, len(shape)))
    slices = [item for item in index if item is not Ellipsis]
    # As PyTorch: only a slice from 0 (not -n) by step 1 to the end is the whole dimension.
    return any(
        s.start not in (None, 0)
        or s.step not in (None, 1)
        or (s.stop is not None and s.stop < shape[d])
        for d, s in zip(dims_, slices)
    )


@table.composite(
    "setitem",
    "(input: Tensor, index, value: Tensor|Number)",
    words=("d/d target: g, with 0 at the entries assigned", "d/d value: g at the entries assigned"),
    kind="shape",
    library=False,
    doc="x[index] = value, in place; recorded as CopySlices",
    operators=("__setitem__",),
    overloads=[
        over("torch::autograd::CopySlices", _index_put_rules(), forward=_index_put, key="basic"),
        over("IndexPutBackward0", _index_put_rules(), forward=_index_put, key="advanced"),
    ],
    batching=batching.setitem,
    complex="holomorphic",
)
def setitem(over, input, index, value):
    target = input
    index = _normalize_index(index)
    raw_value = value._data if type(value) is Tensor else value
    involved = state.PER_THREAD.grad_enabled and (
        target.requires_grad or (type(value) is Tensor and value.requires_grad)
    )
    dual = state.PER_THREAD.forward_ad
    saved.begin()
    if not involved:
        saved.before_write(target._data)
        try:
            _assign(target._data, index, raw_value)
        except IndexError as err:
            raise forward_error("index_put", (target._data, raw_value), err) from None
        saved.modified(target, target._data)
        if dual is not None:
            _assign_tangent(dual, target, index, value)
        return
    if target.requires_grad and target.grad_fn is None:
        view = _is_basic(index) and _picks_part(index, target._data.shape)
        raise EngineError(("a view of " if view else "") + LEAF_INPLACE)
    before = Tensor._make(target._data, target.grad_fn, target.requires_grad)
    if dual is not None:
        dual.copy_tangent(target, before)
    after = over["basic" if _is_basic(index) else "advanced"](before, value, index)
    # Copy on write: earlier nodes keep the values they saved (and check the version).
    saved.modified(target, target._data)
    target._data = after._data
    target.grad_fn = after.grad_fn
    target.requires_grad = True


def _assign_tangent(dual, target, index, value):
    """Forward-mode AD of ``target[index] = value`` outside a graph: at each level, the
    tangent of target takes value's (or zeros) at index, written with the outer levels on."""
    for level in dual.chain():
        value_tangent = level.tangent_of(value) if type(value) is Tensor else None
        tangent = level.tangent_of(target)
        if tangent is None and value_tangent is None:
            continue
        state.PER_THREAD.forward_ad = level.outer
        try:
            tangent = zeros_like(target) if tangent is None else tangent.clone()
            tangent[index] = 0.0 if value_tangent is None else value_tangent
        finally:
            state.PER_THREAD.forward_ad = dual
        level.set_tangent(target, tangent)


# ----- entries along a dimension: take_along_dim, gather, index_select -----


def _along(index, dim):
    """``index`` as an array and ``dim`` as a negative axis, so batch dims pass in front."""
    index = np.asarray(index)
    return index, (dim - index.ndim if dim >= 0 else dim)


def take_along(x, index, dim, keepdim=True):
    """The forward of take_along_dim (also of max(x, dim), sort and topk)."""
    x = np.asarray(x)
    index, dim = _along(index, dim)
    index = np.broadcast_to(index, x.shape[: x.ndim - index.ndim] + index.shape)
    out = np.take_along_axis(x, index, axis=dim)
    return out if keepdim else np.squeeze(out, axis=dim)


def take_along_rule(g, ans, x, index, dim, keepdim=True):
    """The rule of take_along: scatter-add g back to where the entries came from."""
    g = g if keepdim else unsqueeze(g, _along(index, dim)[1])
    return put_along_dim(g, index, dim, np.shape(x))


def _put_along(g, index, dim, shape):
    # Scatter-add, the adjoint of take_along_dim: an index taken twice gets both gradients.
    g = np.asarray(g)
    index, dim = _along(index, dim)
    # ``shape`` may hold some of g's batch dimensions already (a take_along of a batch).
    target = tuple(g.shape[: g.ndim - len(shape)]) + tuple(shape)
    # The entries taken: the index broadcast against g (take_along_dim broadcasts the index
    # and x against each other but along dim), and x's size along dim.
    taken = np.broadcast_shapes(g.shape, index.shape)
    spread = np.broadcast_shapes(taken[:dim] + (target[dim],) + taken[dim:][1:], target)
    out = np.zeros(spread, dtype=g.dtype)
    grid = list(np.ogrid[tuple(slice(n) for n in taken)])
    grid[dim] = np.broadcast_to(index, taken)
    np.add.at(out, tuple(grid), np.broadcast_to(g, taken))
    # Where x was broadcast (size 1 against the index), its entry gets the sum.
    lead = len(spread) - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + k for k, n in enumerate(target) if n == 1 and spread[lead + k] != 1
    )
    return np.sum(out, axis=axes, keepdims=True).reshape(target) if axes else out


def _take_along_size(x, index, dim, keepdim=True):
    """The size of take_along's result: x and index broadcast but along dim, index's there."""
    shape = np.shape(x)
    index, dim = _along(index, dim)
    wanted = shape[: len(shape) - index.ndim] + index.shape
    try:
        at = wanted[dim]
        others = np.broadcast_shapes(
            shape[:dim] + (1,) + shape[dim:][1:], wanted[:dim] + (1,) + wanted[dim:][1:]
        )
    except (IndexError, ValueError):
        return 0
    return math.prod(others) * at


def _put_along_size(g, index, dim, shape):
    return math.prod(np.shape(g)[: np.ndim(g) - len(shape)]) * math.prod(shape)


# fmt: off
take_along_dim = table.op("take_along_dim", take_along,
                          "(input: Tensor, indices: Index, dim: int, keepdim: bool = True)",
                          grad_fn="GatherBackward0", rules=(take_along_rule,),
                          size=_take_along_size,
                          doc="take_along_dim(x, index, dim): entries at index along dim",
                          kind="other", method=True,
                          words="g goes to the entries taken"
                          " (max/min along a dim: the index found)", complex="holomorphic")
put_along_dim = table.internal("put_along_dim", _put_along,
                               "(input: Tensor, indices: Index, dim: int, size: int[])",
                               grad_fn="PutAlongDimBackward", size=_put_along_size,
                               rules=(lambda g, ans, x, index, dim, shape:
                                      take_along_dim(g, index, dim),),
                               doc="the gradient of take_along_dim", kind="other",
                               complex="holomorphic")
# fmt: on


@table.composite(
    "gather",
    "(input: Tensor, dim: int, index: Index)",
    kind="other",
    method=True,
    doc="gather(x, dim, index): out[i][j] = x[index[i][j]][j] for dim 0, and so on",
)
def gather(over, input, dim, index):
    index = np.asarray(raw(index))
    shape = np.shape(input)
    if index.ndim != len(shape):
        raise EngineError("Index tensor must have the same number of dimensions as input tensor")
    if index.dtype.kind not in "iu":
        raise EngineError("gather(): Expected dtype int64 for index")
    d = one_axis(dim, len(shape))
    if d is None:  # a 0-d tensor: gathered as the one entry of a vector
        if index.item() != 0:
            raise GradcliIndexError(
                f"index {index.item()} is out of bounds for dimension 0 with size 1"
            )
        return reshape(take_along_dim(reshape(input, (1,)), index.reshape(1), 0), ())
    d %= len(shape)
    # The index may be smaller than x in the other dimensions: gather from that corner of x.
    corner = tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(index.shape))
    if any(k != d and n != shape[k] for k, n in enumerate(index.shape)):
        input = getitem(input, corner)
    return take_along_dim(input, index, d)


@table.composite(
    "index_select",
    "(input: Tensor, dim: int, index: Index)",
    words="g at the entries indexed, 0 elsewhere (added where an entry repeats)",
    kind="other",
    method=True,
    overloads=[_indexed("IndexSelectBackward0")],
    doc="index_select(x, dim, index): the entries at the integers of index along dim",
    complex="holomorphic",
)
def index_select(over, input, dim, index):
    index = np.asarray(raw(index))
    if index.ndim > 1:
        raise GradcliIndexError("index_select(): Index is supposed to be a vector")
    if index.dtype.kind not in "iu":
        raise EngineError("index_select(): Expected dtype int32 or int64 for index")
    d = one_axis(dim, np.ndim(input))
    if d is None:  # a 0-d tensor: selected from as the one entry of a vector
        if index.size != 1:
            raise EngineError(
                f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)"
            )
        return reshape(index_select(reshape(input, (1,)), 0, index.reshape(1)), ())
    d %= np.ndim(input)
    return over["IndexSelectBackward0"](input, (slice(None),) * d + (index.reshape(-1),))


# ----- joining -----


def _stack(arrays, dim=0):
    try:
        return np.stack(arrays, axis=dim)
    except ValueError:
        shapes = [list(np.shape(a)) for a in arrays]
        k = next((k for k, s in enumerate(shapes) if s != shapes[0]), None)
        if k is None:
            raise
        raise ShapeError(
            f"stack expects each tensor to be equal size, but got {shapes[0]} at "
            f"entry 0 and {shapes[k]} at entry {k}"
        ) from None


def _stack_rule(g, ans, xs, dim=0):
    d = dim - np.ndim(ans) if dim >= 0 else dim
    tail = (slice(None),) * (-d - 1)
    return tuple(getitem(g, (Ellipsis, i) + tail) for i in range(len(xs)))


def _cat(arrays, dim=0):
    try:
        return np.concatenate(arrays, axis=dim)
    except ValueError:
        shapes = [np.shape(a) for a in arrays]
        d = dim % max(len(shapes[0]), 1)
        for k, s in enumerate(shapes[1:], 1):
            if len(s) != len(shapes[0]):
                raise ShapeError(
                    "Tensors must have same number of dimensions: got "
                    f"{len(shapes[0])} and {len(s)}"
                ) from None
            bad = [i for i in range(len(s)) if i != d and s[i] != shapes[0][i]]
            if bad:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {d}. "
                    f"Expected size {shapes[0][bad[0]]} but got size "
                    f"{s[bad[0]]} for tensor number {k} in the list."
                ) from None
        raise


def _cat_rule(g, ans, xs, dim=0):
    d = dim - np.ndim(ans) if dim >= 0 else dim
    tail = (slice(None),) * (-d - 1)
    out, start = [], 0
    for x in xs:
        stop = start + np.shape(x)[d]
        out.append(getitem(g, (Ellipsis, slice(start, stop)) + tail))
        start = stop
    return tuple(out)


# fmt: off
stack = table.op("stack", _stack, "(tensors: Tensor[], dim: int = 0)", grad_fn="StackBackward0",
                 size=limits.joined_size,
                 rules=(_stack_rule,), variadic=True, kind="shape", function=True,
                 doc="stack([a, b, ...], dim=0): join along a new dimension",
                 symbolic=lambda s, xs, dim=0: np.moveaxis(xs, 0, dim),
                 other_names=("vstack",),
                 batching=batching.stack,
                 words="each input gets its slice of g", complex="holomorphic")
cat = table.op("cat", _cat, "(tensors: Tensor[], dim: int = 0)", grad_fn="CatBackward0",
               size=limits.joined_size,
               rules=(_cat_rule,), variadic=True, kind="shape", function=True,
               doc="cat([a, b, ...], dim=0): join along an existing dimension",
               symbolic=lambda s, xs, dim=0: np.concatenate(list(xs), axis=dim),
               other_names=("concat", "hstack"),
               aliases=("concatenate",), batching=batching.join,
               words="each input gets its part of g", complex="holomorphic")
# fmt: on


@table.composite(
    "hstack",
    "(tensors: Tensor[])",
    kind="shape",
    doc="hstack(tensors): joined along dim 1 (dim 0 for vectors)",
)
def hstack(over, tensors):
    tensors = list(tensors)
    return cat(tensors, 0 if all(np.ndim(t) == 1 for t in tensors) else 1)


@table.composite(
    "vstack",
    "(tensors: Tensor[])",
    kind="shape",
    doc="vstack(tensors): joined along dim 0, vectors as rows",
)
def vstack(over, tensors):
    return cat([unsqueeze(t, 0) if np.ndim(t) == 1 else t for t in tensors], 0)


# ----- splitting -----
_PIECES = {"kind": "shape", "method": True, "complex": "holomorphic"}  # unbind, split


@table.composite(
    "unbind",
    "(input: Tensor, dim: int = 0)",
    words="g at the entries indexed, 0 elsewhere (added where an entry repeats)",
    **_PIECES,
    doc="unbind(x, dim=0): the slices of x along dim, as a tuple",
    overloads=[_indexed("UnbindBackward0")],
)
def unbind(over, input, dim=0):
    n = np.ndim(input)
    if n == 0:
        raise GradcliIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = dims(dim, n)[0] + n
    pick = over["UnbindBackward0"]
    return tuple(pick(input, (slice(None),) * d + (i,)) for i in range(np.shape(input)[d]))


@table.composite(
    "split",
    "(tensor: Tensor, split_size_or_sections: int|int[], dim: int = 0)",
    words="g at the entries indexed, 0 elsewhere (added where an entry repeats)",
    **_PIECES,
    doc="split(x, size or sizes, dim=0): x cut into pieces along dim",
    overloads=[_indexed("SplitBackward0"), _indexed("SplitWithSizesBackward0")],
)
def split(over, tensor, split_size_or_sections, dim=0):
    n = np.ndim(tensor)
    if n == 0:
        raise EngineError("split expects at least a 1-dimensional tensor")
    d = dims(dim, n)[0] + n
    length = np.shape(tensor)[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        sizes = [min(size, length - start) for start in range(0, length, size)] or [0]
        pick = over["SplitBackward0"]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != length:
            raise EngineError(
                f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
        pick = over["SplitWithSizesBackward0"]
    starts = np.cumsum([0] + sizes[:-1])
    head = (slice(None),) * d
    return tuple(pick(tensor, head + (slice(int(a), int(a) + s),)) for a, s in zip(starts, sizes))


@table.composite(
    "chunk",
    "(input: Tensor, chunks: int, dim: int = 0)",
    kind="shape",
    method=True,
    doc="chunk(x, chunks, dim=0): x cut into (at most) chunks equal pieces along dim",
)
def chunk(over, input, chunks, dim=0):
    if np.ndim(input) == 0:
        raise EngineError("chunk expects at least a 1-dimensional tensor")
    length = np.shape(input)[dims(dim, np.ndim(input))[0]]
    return split(input, max(-(-length // int(chunks)), 1), dim)


# The Taylor series rules (engine/jet.py): each is linear in its inputs together.
table.series(**dict.fromkeys(
    ("getitem", "setitem", "take_along_dim", "index_select", "stack", "cat", "index_scatter",
     "zero_at", "put_along_dim"), "linear"))  # fmt: skip
