"""Values at many points at once, and how a call of an op on them is bound and checked.

A ``Batched`` holds one value for each of B points in one tensor, ``physical``,
whose axis 0 is the batch axis: ``physical[i]`` is the value at point i. Its
``shape`` is the logical one, the shape at a single point. A value that is not
``Batched`` is the same at every point (it is never copied B times).

The batching rules (``engine.batching_rules``) rewrite a call of an op on logical
values into calls of the table's own ops on physical tensors. This module holds
what they share: the arguments of a call by parameter name, the call of an op
from them, the padding of operands, and errors: a call that fails is run again
at a single point (``probe``) so its error is the single-point one, and one that
fails only at some points names the first such point (``at point i``, and the
error's ``row``).
"""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError
from .state import no_grad
from .tensor import Tensor

_MISSING = object()


class Batched:
    """One value at each of B points: ``physical`` has the batch axis first."""

    __slots__ = ("physical",)

    def __init__(self, physical: Tensor):
        self.physical = physical

    @classmethod
    def broadcast(cls, value, size: int) -> Batched:
        """``value`` (the same at every point) as a Batched of ``size`` points."""
        t = value if type(value) is Tensor else Tensor._make(np.asarray(value))
        return cls(t.expand(size, *t.shape))

    @property
    def size(self) -> int:
        """B, the number of points."""
        return self.physical.shape[0]

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape at one point."""
        return tuple(self.physical.shape[1:])

    @property
    def ndim(self) -> int:
        return self.physical.ndim - 1

    @property
    def dtype(self):
        return self.physical.dtype

    @property
    def requires_grad(self) -> bool:
        return self.physical.requires_grad

    def detach(self) -> Batched:
        return Batched(self.physical.detach())

    def __array__(self, *args, **kwargs):
        # Where a single number is needed (a size, an index, a flag), one per point is not one.
        raise GradcliError(
            "a value that varies from point to point is used where it must be the same at "
            "every point (a size, an index, a dimension or a flag)"
        )

    def __repr__(self):
        return f"Batched(size={self.size}, shape={self.shape})"


def is_batched(value) -> bool:
    return type(value) is Batched


def any_batched(values) -> bool:
    """Whether any of ``values`` (or of a list or tuple among them) is Batched."""
    for v in values:
        if type(v) is Batched:
            return True
        if type(v) in (list, tuple) and any(type(u) is Batched for u in v):
            return True
    return False


def batch_size(values) -> int:
    for v in values:
        if type(v) is Batched:
            return v.size
        if type(v) in (list, tuple):
            for u in v:
                if type(u) is Batched:
                    return u.size
    raise ValueError("no batched value")


def logical_ndim(value) -> int:
    return value.ndim if type(value) is Batched else np.ndim(value)


def logical_shape(value) -> tuple[int, ...]:
    return value.shape if type(value) is Batched else tuple(np.shape(value))


def padded(value, ndim: int):
    """The physical operand of ``value`` for an op that broadcasts to ``ndim`` logical
    dimensions: a Batched gets axes of length 1 after its batch axis; anything else
    broadcasts from the right as it is."""
    if type(value) is not Batched:
        return value
    p = value.physical
    missing = ndim - value.ndim
    if missing <= 0:
        return p
    return p.reshape(p.shape[0], *(1,) * missing, *value.shape)


def expanded(value, size: int) -> Tensor:
    """The physical tensor of ``value`` with a batch axis: its own, or ``size`` copies
    as a view."""
    if type(value) is Batched:
        return value.physical
    return Batched.broadcast(value, size).physical


def wrap(result):
    """A rule's physical result as Batched (each part of a tuple)."""
    if type(result) is Tensor:
        return Batched(result)
    if isinstance(result, tuple):
        return each(result, wrap)
    return result


def each(result: tuple, f) -> tuple:
    """``f`` of each part of a result pair (values, indices), of the same tuple type (so
    that ``.values`` still names the values)."""
    parts = [f(r) for r in result]
    if hasattr(result, "_fields"):
        return type(result)(*parts)
    return type(result)(parts)


def advanced_apart(keys) -> bool:
    """Whether NumPy puts the axes of an index's arrays first: arrays (with the integers
    among them) that are not next to each other, ``x[[0, 1], :, [1, 2]]``."""
    arrays = [i for i, k in enumerate(keys) if isinstance(k, (np.ndarray, list))]
    if not arrays:
        return False
    advanced = [i for i, k in enumerate(keys) if isinstance(k, (np.ndarray, list, int, np.integer))]
    return advanced != list(range(advanced[0], advanced[-1] + 1))


def advanced_rank(keys) -> int:
    """The number of axes an index's arrays make (a mask makes one)."""
    arrays = [np.asarray(k) for k in keys if isinstance(k, (np.ndarray, list))]
    return max((1 if a.dtype == bool else a.ndim for a in arrays), default=0)


# ----------------------------------------------------------------------------
# The arguments of a call, by parameter name
# ----------------------------------------------------------------------------


def arguments(entry, args, kwargs) -> dict:
    """The call's arguments by the schema's parameter names (``Schema.by_name``); too many
    positional ones under ``_MISSING``, for the op's call to report."""
    return entry.schema.by_name(args, kwargs, rest=_MISSING)


def invoke(entry, found: dict):
    """Call ``entry`` with arguments by parameter name (as ``arguments`` gives them)."""
    args, kwargs = [], {}
    for p in entry.schema.params:
        if p.name not in found:
            continue
        value = found[p.name]
        if p.variadic:
            args.extend(value)
        elif p.keyword_only:
            if value is not p.default:
                kwargs[p.name] = value
        else:
            args.append(value)
    args.extend(found.get(_MISSING, ()))
    return entry.call(*args, **kwargs)


# ----------------------------------------------------------------------------
# One point: the single-point call, for shapes and errors
# ----------------------------------------------------------------------------


def _at(value, row):
    """The value at one point: ``row`` of a Batched, or a stand-in of its shape (None)."""
    if type(value) is Batched:
        if row is None:
            return Tensor._make(_stand_in(value.shape, value.physical._data.dtype))
        return Tensor._make(value.physical._data[row])
    if type(value) in (list, tuple):
        return type(value)(_at(v, row) for v in value)
    return value


def _stand_in(shape, dtype):
    """A value of ``shape`` that square-matrix ops accept: the identity on the last two
    axes where they are equal, zeros elsewhere."""
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        return np.broadcast_to(np.eye(shape[-1], dtype=dtype), shape).copy()
    return np.zeros(shape, dtype)


def probe(entry, found: dict, row=None):
    """The op at one point: at ``row``, or at a stand-in of each batched value's shape.

    Raises the error the single-point call raises; gives its result (no graph)."""
    at_point = {k: _at(v, row) for k, v in found.items()}
    with no_grad():
        return invoke(entry, at_point)


def shape_at_a_point(entry, found: dict) -> tuple[int, ...]:
    """The shape of the op's result at one point (raising the single-point error)."""
    result = probe(entry, found)
    if isinstance(result, tuple):
        result = result[0]
    return tuple(np.shape(result._data if type(result) is Tensor else result))


def explain_failure(entry, found: dict, err: Exception, physical: dict | None = None):
    """Raise the error of a physical call that failed: the single-point error when the
    call fails at any point, else the error at the first point where it fails (found by
    halving the points, ``physical`` being the call's arguments)."""
    probe(entry, found)  # raises the single-point error of the shapes
    size = batch_size(found.values())
    rows = range(size) if physical is None else [_first_failing(entry, found, physical, size)]
    for row in rows:
        try:
            probe(entry, found, row)
        except GradcliError as at_row:
            at_row.message = f"{at_row.message.rstrip('.')} at point {row}"
            at_row.args = (at_row.message,)
            at_row.row = row
            raise at_row from None
    raise err


def _first_failing(entry, found, physical, size) -> int:
    """The first point at which the call on ``physical`` fails, the whole of it failing."""
    low, high = 0, size
    while high - low > 1:
        middle = (low + high) // 2
        part = {k: _rows(v, found[k], low, middle) for k, v in physical.items() if k in found}
        try:
            with no_grad():
                invoke(entry, part)
            low = middle
        except GradcliError:
            high = middle
    return low


def _rows(value, given, start, stop):
    """Points ``start:stop`` of a physical argument (of a Batched one; others whole)."""
    if type(value) in (list, tuple) and any_batched(given if type(given) in (list, tuple) else ()):
        return type(value)(Tensor._make(v._data[start:stop]) for v in value)
    if type(given) is Batched and type(value) is Tensor:
        return Tensor._make(value._data[start:stop])
    return value


def call_physical(entry, found: dict, physical: dict):
    """``entry`` on the physical arguments ``physical``, its result as Batched; a failure
    explained by ``explain_failure`` on the logical arguments ``found``."""
    try:
        return wrap(invoke(entry, physical))
    except GradcliError as err:
        explain_failure(entry, found, err, physical)
