"""How many numbers one result may hold: the one place the engine checks it.

Every op that can make a result larger than its largest input asks ``check``
for the result's size before it allocates anything, so that
``ones(20000) * ones(20000, 1)`` is a clear error at once rather than gigabytes
of memory for seconds. An entry of the op table declares its result's size
(``size=``, see ``optable``; the functions here compute the common ones: a
broadcast, a matrix product, a join, an index), constructors check the shape
they are given, and the functional API its Jacobians and Hessians. A view counts
its logical size (``ones(1).expand(10**9)`` is refused, though it takes no
memory): whatever is computed from it materialises that size. An op with no
declared size makes a result no larger than its largest input, which was
itself checked, so every tensor holds at most the limit (``diag_embed``, a
forward of its own, checks in it). The limit is a count of numbers, not of
bytes, so that it means the same in float32 and float64. The limit belongs to a
thread, like the dtype an evaluation computes in: two computations in two
threads each have their own.
"""

from __future__ import annotations

import math
import threading
from contextlib import contextmanager

import numpy as np

from ..errors import EngineError, named_as

#: The default limit: 10**8 numbers, 800 MB in float64.
DEFAULT_MAX_ELEMENTS = 10**8


@named_as(RuntimeError)
class ResultTooLarge(EngineError):
    """A result with more numbers than the limit allows."""


class _ThreadLimit(threading.local):
    """The limit in force in this thread (``max_elements`` sets it for a block of
    code); every thread starts with the default."""

    value = DEFAULT_MAX_ELEMENTS


MaxElements = _ThreadLimit()

# The smallest limit in force in any thread (the default, or an open block's): a count
# no larger is under every thread's limit, which an op's hot path tells without looking
# up its own thread's (a thread-local attribute costs several times a list item).
LOWEST = [DEFAULT_MAX_ELEMENTS]
_OPEN = []  # the limits of the blocks open in all threads
_OPEN_LOCK = threading.Lock()


def _opened(limit, add):
    with _OPEN_LOCK:
        if add:
            _OPEN.append(limit)
        else:
            _OPEN.remove(limit)
        LOWEST[0] = min([DEFAULT_MAX_ELEMENTS, *_OPEN])


@contextmanager
def max_elements(limit: int):
    """Within the block, refuse results of more than ``limit`` numbers."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise EngineError(f"the limit on a result's size must be a positive integer, not {limit!r}")
    before = MaxElements.value
    _opened(limit, True)  # before the thread's own: LOWEST never exceeds it
    MaxElements.value = limit
    try:
        yield
    finally:
        MaxElements.value = before
        _opened(limit, False)


#: The default limit on the operations one evaluation of a program does: about a
#: second of work. A program of a few lines may ask for far more (f1(t) = f0(t) + f0(t),
#: and so on: each line doubles the work), which no limit on a result's size catches.
DEFAULT_MAX_OPERATIONS = 200_000


class _ThreadOperations(threading.local):
    value = DEFAULT_MAX_OPERATIONS


MaxOperations = _ThreadOperations()


@contextmanager
def max_operations(limit: int):
    """Within the block, an evaluation of a program stops, with an error, at its
    ``limit``-th operation (an operator, a function, a call of the program's functions)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise EngineError(
            f"the limit on a program's operations must be a positive integer, not {limit!r}"
        )
    before, MaxOperations.value = MaxOperations.value, limit
    try:
        yield
    finally:
        MaxOperations.value = before


def too_many_operations(limit: int) -> str:
    """The message of an evaluation stopped at its ``limit``-th operation."""
    return (
        f"the program does more than {limit:,} operations (each operator, function, call and "
        "loop step counts one; a function that calls another twice doubles them); raise the limit "
        "with --max-operations N (max_operations in gradcli.engine.limits)"
    )


def check(what: str, shape) -> None:
    """Raise ``ResultTooLarge`` when a result of ``shape`` (a shape, or a count of
    numbers) would hold more numbers than the limit."""
    count = int(shape) if isinstance(shape, (int, np.integer)) else math.prod(shape)
    limit = MaxElements.value
    if count > limit:
        raise ResultTooLarge(
            f"{what}: the result would hold {count:,} numbers, more than the limit of "
            f"{limit:,}; raise the limit with --max-elements N (max_elements=N in gradcli.api)"
        )


def input_refusal(shape) -> str | None:
    """Why an input of ``shape`` (a shape, or a count) that a reader is about to read is
    refused, or None: a file over the limit is refused before its numbers are read."""
    count = int(shape) if isinstance(shape, (int, np.integer)) else math.prod(shape)
    limit = MaxElements.value
    if count <= limit:
        return None
    return (
        f"it holds {count:,} numbers, more than the limit of {limit:,}; "
        "raise the limit with --max-elements N (max_elements=N in gradcli.api)"
    )


def check_input(what: str, shape) -> None:
    """Raise ``ResultTooLarge`` for an input of ``shape`` over the limit."""
    why = input_refusal(shape)
    if why is not None:
        raise ResultTooLarge(f"{what}: {why}")


def broadcast_size(*args) -> int:
    """The number of numbers of the broadcast of the arrays among ``args`` (numbers and
    other arguments take no part): the result's size of an elementwise op. The product
    of the sizes bounds it, which is all most calls need; 0 where they do not broadcast
    (the op's own error)."""
    count = 1
    for a in args:
        if isinstance(a, (np.ndarray, np.generic)):
            count *= a.size
    if count <= MaxElements.value:
        return count
    shapes = [a.shape for a in args if isinstance(a, (np.ndarray, np.generic))]
    try:
        return math.prod(np.broadcast_shapes(*shapes))
    except ValueError:
        return 0


def matmul_size(x, y, *params) -> int:
    """The size of ``x @ y`` as matmul broadcasts them (0 where they do not fit)."""
    a, b = np.shape(x), np.shape(y)
    if len(a) < 1 or len(b) < 1:
        return 0
    rows = a[-2:-1] if len(a) > 1 else ()
    cols = b[-1:] if len(b) > 1 else ()
    batch = [max(dims) for dims in _aligned((a[:-2], b[:-2]))]
    return math.prod(batch) * math.prod(rows) * math.prod(cols)


def joined_size(arrays, *params) -> int:
    """The size of ``cat`` or ``stack`` of ``arrays``: the sum of theirs."""
    return sum(np.size(a) for a in arrays)


def shape_size(shape) -> int:
    """The size of a result of ``shape`` (a shape a caller gives: ``broadcast_to``'s)."""
    return math.prod(int(s) for s in shape)


def index_size(x, index) -> int:
    """The size of ``x[index]`` for a normalised index (a tuple of ints, slices, None,
    Ellipsis and arrays), without indexing: integer arrays broadcast together, a mask
    stands for its nonzero entries. Only the arrays make a result larger than x; 0
    where the index does not fit x (the op's own error)."""
    shape = np.shape(x)
    arrays = [i for i in index if isinstance(i, np.ndarray)]
    if not arrays:
        return 0  # a view or a copy of part of x: never larger
    used = sum(
        i.ndim if isinstance(i, np.ndarray) and i.dtype == bool else 1
        for i in index
        if i is not None and i is not Ellipsis
    )
    dims = iter(shape)
    count = 1
    broadcast = []
    try:
        for i in index:
            if i is None:
                continue
            if i is Ellipsis:
                for _ in range(len(shape) - used):
                    count *= next(dims)
            elif isinstance(i, slice):
                count *= len(range(*i.indices(next(dims))))
            elif isinstance(i, np.ndarray) and i.dtype == bool:
                for _ in range(i.ndim):
                    next(dims)
                broadcast.append((int(np.count_nonzero(i)),))
            elif isinstance(i, np.ndarray):
                next(dims)
                broadcast.append(i.shape)
            else:
                next(dims)
        for n in dims:
            count *= n
        return count * math.prod(np.broadcast_shapes(*broadcast))
    except (StopIteration, ValueError):
        return 0


def _aligned(shapes):
    """The sizes of each dimension of ``shapes`` aligned at the right, 1 where absent."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return zip(*padded)
