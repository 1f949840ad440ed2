"""How many numbers one result may hold: the one place the engine checks it.

Every op that can make a result much larger than its inputs (a constructor, a
broadcast, a matrix product, a diagonal matrix, a Jacobian or a Hessian) asks
``check`` for the result's size before it allocates anything, so that
``ones(20000) * ones(20000, 1)`` is a clear error at once rather than gigabytes
of memory for seconds. The limit is a count of numbers, not of bytes, so that it
means the same in float32 and float64. The limit belongs to a thread, like the
dtype an evaluation computes in: two computations in two threads each have
their own.
"""

from __future__ import annotations

import math
import threading
from contextlib import contextmanager

from ..errors import EngineError

#: The default limit: 10**8 numbers, 800 MB in float64.
DEFAULT_MAX_ELEMENTS = 10**8


class ResultTooLarge(EngineError):
    """A result with more numbers than the limit allows."""


class _ThreadLimit(threading.local):
    """The limit in force in this thread (``max_elements`` sets it for a block of
    code); every thread starts with the default."""

    value = DEFAULT_MAX_ELEMENTS


MaxElements = _ThreadLimit()


@contextmanager
def max_elements(limit: int):
    """Within the block, refuse results of more than ``limit`` numbers."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise EngineError(f"the limit on a result's size must be a positive integer, not {limit!r}")
    before = MaxElements.value
    MaxElements.value = limit
    try:
        yield
    finally:
        MaxElements.value = before


def check(what: str, shape) -> None:
    """Raise ``ResultTooLarge`` when a result of ``shape`` (a shape, or a count of
    numbers) would hold more numbers than the limit."""
    count = shape if isinstance(shape, int) else math.prod(shape)
    limit = MaxElements.value
    if count > limit:
        raise ResultTooLarge(
            f"{what}: the result would hold {count:,} numbers, more than the limit of "
            f"{limit:,}; raise the limit with --max-elements N (max_elements=N in gradcli.api)"
        )


def check_broadcast(what: str, *shapes) -> None:
    """``check`` for the broadcast of ``shapes``, when they broadcast (a mismatch is the
    op's own error to raise)."""
    count = 1
    for dims in _aligned(shapes):
        count *= max(dims)
    if count > MaxElements.value:
        check(what, count)


def check_matmul(what: str, a, b) -> None:
    """``check`` for ``a @ b`` of shapes ``a`` and ``b``, as matmul broadcasts them."""
    if len(a) < 1 or len(b) < 1:
        return
    rows = a[-2:-1] if len(a) > 1 else ()
    cols = b[-1:] if len(b) > 1 else ()
    batch = [max(dims) for dims in _aligned((a[:-2], b[:-2]))]
    check(what, math.prod(batch) * math.prod(rows) * math.prod(cols))


def _aligned(shapes):
    """The sizes of each dimension of ``shapes`` aligned at the right, 1 where absent."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return zip(*padded)
