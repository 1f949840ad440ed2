"""Batching rules: each op of the table evaluated at many points at once.

A value at many points is a ``Batched`` (``engine.batched_values``): one tensor whose
axis 0 is the batch axis. ``call(entry, *args, **kwargs)`` applies an op of
the table to arguments of which some are Batched: the op's batching rule
rewrites the call into calls of the table's own ops on the physical tensors,
so the result at point i is the op's result on the arguments at point i, and
the reverse pass through those calls (ordinary recorded ops) is per point too.
This is ``vmap``'s batching rule (JAX, ``torch.func``) with in_dims 0 or None
and out_dims 0: a later ``vmap`` wraps its inputs as Batched and sends each op
call through ``call``.

Each entry of the op table declares its rule beside its derivative rules
(``batching=``); an entry without one takes the rule of its kind
(``BY_KIND``: elementwise and binary ops broadcast, reductions reduce, losses
reduce their elementwise loss, constructors take no varying argument). An op
with no rule is an error that says so, never a loop over points.

A rule is ``rule(entry, found)``, ``found`` the call's arguments by parameter
name. Conventions:

- Dimensions name logical axes; a rule checks them against the logical shape
  (so ``sum(x, -2)`` of a vector is the single-point error, never the batch
  axis) and shifts them by one.
- A value that is not Batched is the same at every point and is not copied,
  except where an op needs every operand batched (``stack``).
- Random constructors take no varying argument: a program that draws random
  numbers draws them once, the same at every point, as a single-point call
  with the same seed does.
- Sizes, indices and flags must be the same at every point; a varying one is
  an error naming the op.
"""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError, GradcliIndexError, NotImplementedByGradcli
from .batched_values import (
    Batched,
    advanced_apart,
    advanced_rank,
    any_batched,
    arguments,
    batch_size,
    call_physical,
    each,
    expanded,
    explain_failure,
    invoke,
    logical_ndim,
    logical_shape,
    padded,
    probe,
    shape_at_a_point,
)
from .messages import dim_out_of_range
from .tensor import Tensor

__all__ = ["Batched", "call", "rule_of", "takes_batched"]


def call(entry, *args, **kwargs):
    """``entry`` (an op of the table) applied at every point of its Batched arguments;
    an ordinary call when none is Batched."""
    if not any_batched((*args, *kwargs.values())):
        return entry.call(*args, **kwargs)
    rule = rule_of(entry)
    if rule is None:
        raise NotImplementedByGradcli(f"many-point evaluation of {entry.name} is not implemented")
    return rule(entry, arguments(entry, args, kwargs))


def takes_batched(fn):
    """Mark ``fn`` as a function that applies its ops through ``call`` itself: it takes
    Batched arguments as they are."""
    fn.takes_batched = True
    return fn


def rule_of(entry):
    """The batching rule of an entry: its own, else its kind's; None for none
    (``batching=False``: the kind's rule does not fit it, and it has none)."""
    if entry.batching is False:
        return None
    return entry.batching or BY_KIND.get(entry.kind)


def _varies(entry, name):
    return GradcliError(
        f"many-point evaluation of {entry.name} with {name} varying from point to point "
        "is not implemented: it must be the same at every point"
    )


def _fixed(entry, found, *names):
    """Raise unless the parameters ``names`` (all but the operands) are the same everywhere."""
    for name in names:
        value = found.get(name)
        if type(value) is Batched or (
            type(value) in (list, tuple) and any(type(v) is Batched for v in value)
        ):
            raise _varies(entry, name)


def _unwrapped(found) -> dict:
    """The arguments with each Batched one's physical tensor in its place."""
    return {k: v.physical if type(v) is Batched else v for k, v in found.items()}


def _axis(entry, found, dim, ndim, extra=0):
    """A logical dimension as a physical one (shifted past the batch axis); a dimension
    out of range is the single-point error. ``extra``: 1 where a new axis may be named
    (``unsqueeze``, ``stack``)."""
    span = max(ndim + extra, 1)
    d = int(dim)
    if not -span <= d < span:
        probe(entry, found)
        raise GradcliIndexError(dim_out_of_range(d, ndim))
    return d % span + 1


# ----------------------------------------------------------------------------
# Rules by property
# ----------------------------------------------------------------------------


def elementwise(entry, found):
    """Operands broadcast: each Batched one gets axes of length 1 after its batch axis,
    to the operands' largest logical rank; other parameters must not vary."""
    params = entry.schema.params
    operands = [p.name for p in params if p.is_input and p.name in found]
    _fixed(entry, found, *(p.name for p in params if not p.is_input))
    ndim = max((logical_ndim(found[k]) for k in operands if found[k] is not None), default=0)
    physical = {k: padded(v, ndim) for k, v in found.items()}
    return call_physical(entry, found, physical)


def reduction(entry, found):
    """Over ``dim`` (every dimension when None), keeping ``keepdim``."""
    x = found["input"]
    _fixed(entry, found, *(k for k in found if k != "input"))
    size, n, dim = x.size, x.ndim, found.get("dim")
    keepdim = found.get("keepdim", False)
    physical = _unwrapped(found)
    if dim is None or (type(dim) in (list, tuple) and len(dim) == 0):
        # Every dimension: the flattened point, along axis 1.
        physical["input"] = x.physical.reshape(size, int(np.prod(x.shape, dtype=np.int64)))
        physical["dim"] = 1
        if "keepdim" in found:
            physical["keepdim"] = False
        result = call_physical(entry, found, physical)
        return _kept(result, size, n) if keepdim else result
    if n == 0:  # dim 0 or -1 of a number: the number, as an axis of length 1
        _axis(entry, found, dim if type(dim) not in (list, tuple) else dim[0], 0)
        physical["input"] = x.physical.reshape(size, 1)
        physical["dim"] = 1
        if "keepdim" in found:
            physical["keepdim"] = False
        return call_physical(entry, found, physical)
    if type(dim) in (list, tuple):
        physical["dim"] = tuple(_axis(entry, found, d, n) for d in dim)
    else:
        physical["dim"] = _axis(entry, found, dim, n)
    return call_physical(entry, found, physical)


def _kept(result, size, n):
    """A reduction over every dimension with keepdim: each point of shape (1,) * n."""
    if isinstance(result, tuple):
        return each(result, lambda r: _kept(r, size, n))
    return Batched(result.physical.reshape(size, *(1,) * n))


def extremum(whole):
    """The rule of max and min: elementwise with ``other``, else a reduction: ``whole``
    (amax, amin: the gradient shared among ties) of every entry, or along ``dim``."""

    def rule(entry, found):
        if found.get("other") is not None:
            return elementwise(entry, found)
        if isinstance(found.get("dim"), (Tensor, Batched)):  # max(x, y): PyTorch's other
            return elementwise(entry, dict(found, dim=None, other=found["dim"]))
        if found.get("dim") is not None:
            return reduction(entry, found)
        x = found["input"]
        _fixed(entry, found, "keepdim")
        flat = x.physical.reshape(x.size, int(np.prod(x.shape, dtype=np.int64)))
        try:
            return Batched(whole(flat, 1))
        except GradcliError as err:
            explain_failure(entry, found, err)

    return rule


def along(entry, found):
    """An op that keeps the shape along ``dim`` (softmax, cumsum, sort)."""
    x = found["input"]
    _fixed(entry, found, *(k for k in found if k != "input"))
    size, n = x.size, x.ndim
    physical = _unwrapped(found)
    physical["dim"] = _axis(entry, found, found["dim"], n)
    if n == 0:
        physical["input"] = x.physical.reshape(size, 1)
        result = call_physical(entry, found, physical)
        return each(result, _numbers) if isinstance(result, tuple) else _numbers(result)
    return call_physical(entry, found, physical)


def _numbers(result):
    return Batched(result.physical.reshape(result.size))


def reshaping(entry, found):
    """An op whose result is its input's entries in the same order, in another shape
    (reshape, view, flatten, squeeze, unsqueeze): that shape at every point."""
    x = found["input"]
    _fixed(entry, found, *(k for k in found if k != "input"))
    shape = shape_at_a_point(entry, found)
    return Batched(x.physical.reshape(x.size, *shape))


def same_at_every_point(entry, found):
    """An op that reads only its input's shape (numel, len, zeros_like): one value."""
    return probe(entry, found)


def constant_arguments(entry, found):
    """A constructor: its arguments are sizes and numbers, the same at every point."""
    _fixed(entry, found, *found)
    return invoke(entry, found)


def random_draw(entry, found):
    """A random op: its arguments the same at every point, it draws once, as a single-point
    call with the same seed does. (vmap reads this rule as the mark of a random op and
    follows its own ``randomness=``, ``func/batched_tensor.py``.)"""
    return constant_arguments(entry, found)


def stacked(entry, found):
    """An op that takes leading batch dimensions itself (det, inverse, eigvalsh): the
    batch axis is one more."""
    _fixed(entry, found, *(p.name for p in entry.schema.params if not p.is_input))
    shape_at_a_point(entry, found)  # a vector is not a stack of matrices
    return call_physical(entry, found, _unwrapped(found))


def loss(entry, found):
    """A loss: the elementwise loss at every point (every operand batched, as some losses
    want their operands of one shape), then its reduction at each point."""
    reduce = found.get("reduction", "mean")
    _fixed(entry, found, *(p.name for p in entry.schema.params if not p.is_input))
    shape_at_a_point(entry, found)
    size = batch_size(found.values())
    operands = [p.name for p in entry.schema.params if p.is_input and found.get(p.name) is not None]
    batched = {k: Batched(expanded(found[k], size)) for k in operands}
    ndim = max(v.ndim for v in batched.values())
    physical = dict(found, reduction="none", **{k: padded(v, ndim) for k, v in batched.items()})
    out = call_physical(entry, found, physical)
    if reduce == "none" or out.ndim == 0:
        return out
    axes = tuple(range(1, out.ndim + 1))
    p = out.physical
    return Batched(p.sum(axes) if reduce == "sum" else p.mean(axes))


def mse_loss(entry, found):
    """mse_loss: a weighted mean is divided by the sum of the weights, as the single-point
    call divides it."""
    weight = found.get("weight")
    if weight is None or found.get("reduction", "mean") != "mean":
        return loss(entry, found)
    total = loss(entry, dict(found, reduction="sum"))
    size = batch_size(found.values())
    weights = expanded(weight, size)
    # Each point's weights summed; a 0-d weight is its own sum (a sum over no dimension
    # would be over all of them, every point's weights together).
    point_axes = tuple(range(1, weights.ndim))
    return Batched(total.physical / (weights.sum(point_axes) if point_axes else weights))


# ----------------------------------------------------------------------------
# Rules of single ops: dimensions, joining, indexing, products
# ----------------------------------------------------------------------------


def transpose(entry, found):
    x = found["input"]
    _fixed(entry, found, "dim0", "dim1")
    physical = _unwrapped(found)
    physical["dim0"] = _axis(entry, found, found["dim0"], x.ndim)
    physical["dim1"] = _axis(entry, found, found["dim1"], x.ndim)
    if x.ndim == 0:  # dims 0 and -1 of a 0-d tensor name no axis: the identity, as at a point
        return x
    return call_physical(entry, found, physical)


def _named_dims(entry, found):
    """The dimensions ``dims`` names, shifted past the batch axis."""
    x = found["input"]
    _fixed(entry, found, "dims")
    dims = found["dims"]
    if len(dims) == 1 and type(dims[0]) in (list, tuple):
        dims = tuple(dims[0])
    shape_at_a_point(entry, found)
    return tuple(_axis(entry, found, d, x.ndim) for d in dims)


def permute(entry, found):
    """permute: every dimension named is shifted, the batch axis kept first."""
    shifted = (0, *_named_dims(entry, found))
    return call_physical(entry, found, dict(_unwrapped(found), dims=shifted))


def movedim(entry, found):
    """movedim: source and destination shifted past the batch axis, which stays first."""
    x = found["input"]
    _fixed(entry, found, "source", "destination")
    shape_at_a_point(entry, found)
    moved = {}
    for name in ("source", "destination"):
        dims = found[name]
        dims = (dims,) if not isinstance(dims, (list, tuple)) else dims
        moved[name] = tuple(_axis(entry, found, d, x.ndim) for d in dims)
    return call_physical(entry, found, dict(_unwrapped(found), **moved))


def flip(entry, found):
    """flip: every dimension named is shifted."""
    shifted = _named_dims(entry, found)
    if found["input"].ndim == 0:  # flip(x, 0) of a 0-d x: the identity
        return found["input"]
    return call_physical(entry, found, dict(_unwrapped(found), dims=shifted))


def matrix_transpose(entry, found):
    """t and T: the last two of at most two dimensions, or all reversed."""
    x = found["input"]
    shape_at_a_point(entry, found)
    if x.ndim < 2:
        return x
    return Batched(x.physical.permute(0, *range(x.ndim, 0, -1)))


def expand(entry, found):
    x = found["input"]
    _fixed(entry, found, "sizes")
    shape = shape_at_a_point(entry, found)
    return Batched(padded(x, len(shape)).expand(x.size, *shape))


def _joined(entry, found, new_axis):
    tensors = list(found["tensors"])
    _fixed(entry, found, "dim")
    shape_at_a_point(entry, found)
    size = batch_size(tensors)
    n = logical_ndim(tensors[0])
    axis = _axis(entry, found, found["dim"], n, extra=1 if new_axis else 0)
    physical = dict(found, tensors=[expanded(t, size) for t in tensors], dim=axis)
    return call_physical(entry, found, physical)


def join(entry, found):
    """cat: every entry batched (an unbatched one a view of B copies)."""
    return _joined(entry, found, new_axis=False)


def stack(entry, found):
    """stack: every entry batched, joined along a new dimension."""
    return _joined(entry, found, new_axis=True)


def _keys(entry, index):
    keys = index if type(index) is tuple else (index,)
    if any(type(k) is Batched for k in keys):
        raise GradcliError(
            f"many-point evaluation of {entry.name}: an index or mask that varies from "
            "point to point is not implemented"
        )
    return keys


def _whole_numbers_within(keys, shape) -> bool:
    """Whether every key is an int (not a bool) indexing its axis of ``shape``."""
    return len(keys) <= len(shape) and all(
        type(k) is int and -n <= k < n for k, n in zip(keys, shape)
    )


def index(entry, found):
    """x[key] with the same key at every point: the key after the batch axis."""
    x = found["input"]
    keys = _keys(entry, found["index"])
    if not _whole_numbers_within(keys, x.shape):  # else no point's call can fail: not probed
        shape_at_a_point(entry, found)
    out = x.physical[(slice(None), *keys)]
    if advanced_apart(keys):  # NumPy put the batch axis after the indexed axes
        lead = advanced_rank(keys)
        out = out.permute(lead, *range(lead), *range(lead + 1, out.ndim))
    return Batched(out)


def setitem(entry, found):
    """x[key] = value, in place, with the same key at every point (x is batched)."""
    x, value = found["input"], found["value"]
    keys = _keys(entry, found["index"])
    if type(x) is not Batched:
        raise _varies(entry, "the value assigned")
    if advanced_apart(keys):
        raise GradcliError(
            f"many-point evaluation of {entry.name} with index arrays apart from each "
            "other is not implemented"
        )
    probe(entry, found)
    selected = np.broadcast_to(np.zeros((), np.int8), x.shape)[keys].ndim
    x.physical[(slice(None), *keys)] = padded(value, selected)


def matmul(entry, found):
    """matmul, mm, dot: vectors as matrices, the points' axis before the matrices'."""
    first, second = (p.name for p in entry.schema.params[:2])
    a, b = found[first], found[second]
    shape_at_a_point(entry, found)
    la, lb = logical_ndim(a), logical_ndim(b)
    if la == 1 and lb == 1:
        # Two vectors: products summed, as PyTorch's rule for dot under vmap, whose
        # gradient is a product (MulBackward0, keeping the sign of a zero it multiplies).
        left, right = _as_matrix(a, None), _as_matrix(b, None)
        return Batched((left[0] * right[0]).sum(-1))
    left = _as_matrix(a, -2 if la == 1 else None)
    right = _as_matrix(b, -1 if lb == 1 else None)
    batch_ndim = max(la, lb, 2) - 2
    left, right = (_rank(m, max(n, 2), batch_ndim + 2) for m, n in ((left, la), (right, lb)))
    out = left @ right
    if lb == 1:
        out = out.squeeze(-1)
    if la == 1:
        out = out.squeeze(-1 if lb == 1 else -2)
    return Batched(out)


def _as_matrix(value, axis):
    """The physical tensor of a matmul operand, a vector given an axis of length 1."""
    t = value.physical if type(value) is Batched else value
    if type(t) is not Tensor:
        t = Tensor._make(np.asarray(t))
    if axis is None:
        return (t, type(value) is Batched)
    return (t.unsqueeze(axis), type(value) is Batched)


def _rank(operand, ndim, wanted):
    t, batched = operand
    if not batched or ndim >= wanted:
        return t
    return t.reshape(t.shape[0], *(1,) * (wanted - ndim), *t.shape[1:])


def outer(entry, found):
    shape_at_a_point(entry, found)
    a, b = (found[p.name] for p in entry.schema.params[:2])
    column = _as_matrix(a, -1)[0]
    row = _as_matrix(b, -2 if type(b) is Batched else 0)[0]
    return Batched(column * row)


def trace(entry, found):
    shape_at_a_point(entry, found)
    return Batched(found["input"].physical.diagonal(0, 1, 2).sum(-1))


def diag(entry, found):
    """A vector's diagonal matrix, or a matrix's diagonal."""
    shape_at_a_point(entry, found)
    x = found["input"]
    p = x.physical
    if x.ndim == 2:
        return Batched(p.diagonal(0, 1, 2))
    n = x.shape[0]
    out = Tensor._make(np.zeros((x.size, n, n), p._data.dtype))
    out[:, np.arange(n), np.arange(n)] = p
    return Batched(out)


def cross(entry, found):
    """Along ``dim`` (the first of size 3 when None), both operands batched."""
    _fixed(entry, found, "dim")
    shape = shape_at_a_point(entry, found)
    dim = found.get("dim")
    if dim is None:
        dim = next(d for d, n in enumerate(shape) if n == 3)
    physical = dict(found, dim=_axis(entry, found, dim, len(shape)))
    for name in ("input", "other"):
        v = found[name]
        physical[name] = v.physical if type(v) is Batched else expanded(v, 1)
    return call_physical(entry, found, physical)


def solve(entry, found):
    """A @ X = B at every point: a vector B as a matrix of one column, both operands of
    the same rank so that NumPy never reads the points' axis as a vector's."""
    _fixed(entry, found, "left")
    shape_at_a_point(entry, found)
    A, B = found["A"], found["B"]
    a, b = np.shape(_logical(A)), np.shape(_logical(B))
    vector = found.get("left", True) and (len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1]))
    rank = max(len(a), len(b) + vector) + 1
    physical_A = _front(A, rank)
    physical_B = _front(B, rank - vector)
    if vector:
        physical_B = physical_B.unsqueeze(-1)
    out = call_physical(entry, found, dict(found, A=physical_A, B=physical_B))
    return Batched(out.physical.squeeze(-1)) if vector else out


def _logical(value):
    return np.empty(value.shape, np.int8) if type(value) is Batched else value


def _front(value, rank):
    """The physical tensor of ``value`` with ``rank`` axes: axes of length 1 after a
    Batched one's batch axis, before an unbatched one."""
    if type(value) is Batched:
        return padded(value, rank - 1)
    t = value if type(value) is Tensor else Tensor._make(np.asarray(value))
    return t.reshape(*(1,) * (rank - t.ndim), *t.shape)


def cross_entropy(entry, found):
    """The samples of every point as one batch of samples, each point's loss reduced as
    the single-point call reduces it: a mean of class indices is weighted by the
    targets' class weights (the ignored ones left out), a mean of probabilities is
    over the samples. Class weights that vary from point to point weigh class indices
    alone, without label smoothing: each sample's unweighted loss times its point's
    weight of its class, as PyTorch's loss is."""
    _fixed(entry, found, "ignore_index", "reduction", "label_smoothing")
    shape_at_a_point(entry, found)
    x, t, weight = found["input"], found["target"], found.get("weight")
    size = batch_size(found.values())
    xp, tp = expanded(x, size), expanded(t, size)
    x_shape, t_shape = logical_shape(x), logical_shape(t)
    varying = type(weight) is Batched
    if varying and (t_shape == x_shape or found.get("label_smoothing", 0.0)):
        raise _varies(entry, "weight")
    samples = () if len(x_shape) == 1 else (x_shape[0],)
    per_point = samples + tuple(x_shape[2:])  # the shape of each point's unreduced loss
    flat = (size * int(np.prod(samples, dtype=np.int64)),)
    xs = xp.reshape(*flat, *x_shape[len(samples) :])
    ts = tp.reshape(*flat, *t_shape[len(samples) :])
    physical = dict(found, input=xs, target=ts, reduction="none")
    if varying:
        physical["weight"] = None
    try:
        losses = invoke(entry, physical).reshape(size, *per_point)
    except GradcliError as err:
        explain_failure(entry, found, err)
    indices = tp._data
    kept = indices != found.get("ignore_index", -100)
    if varying:  # each sample's weight: its point's, of its class (any class where ignored)
        points = np.arange(size).reshape((size,) + (1,) * len(per_point))
        weight = weight.physical[points, np.where(kept, indices, 0)]
        losses = losses * weight
    reduce = found.get("reduction", "mean")
    axes = tuple(range(1, len(per_point) + 1))
    if reduce == "none" or not axes and reduce == "sum":
        return Batched(losses)
    if reduce == "sum":
        return Batched(losses.sum(axes))
    if t_shape == x_shape:  # probabilities: the mean over the samples
        return Batched(losses.mean(axes) if axes else losses)
    counted = Tensor._make(kept.astype(losses._data.dtype))
    if varying:
        counted = counted * weight
    elif weight is not None:
        w = weight if type(weight) is Tensor else Tensor._make(np.asarray(weight))
        counted = counted * w[np.where(kept, indices, 0)]
    total = losses.sum(axes) if axes else losses
    denominator = counted.sum(axes) if axes else counted
    # A point whose samples are all ignored: nan, PyTorch's 0/0, with gradient 0, as PyTorch's
    # backward writes the kept samples' alone (total / 0 would give them 0 * inf = nan).
    none_kept = ~kept.reshape(size, -1).any(axis=1)
    if not none_kept.any():
        return Batched(total / denominator)
    safe = denominator + Tensor._make(none_kept.astype(denominator._data.dtype))
    return Batched((total / safe).masked_fill(Tensor._make(none_kept), float("nan")))


BY_KIND = {
    "elementwise": elementwise,
    "binary": elementwise,
    "reduction": reduction,
    "loss": loss,
    "constructor": constant_arguments,
}
