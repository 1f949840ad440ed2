"""``working_precision(dps)``: every entry of the op table computing in mpmath at ``dps``
significant digits, each by its declared multiprecision forward (``multiprecision.py``).

The float64 path pays nothing for it: the forward each function closes over is swapped
on entry and restored on exit, so no op tests a flag. The switch is process-wide, so one
evaluation at a time holds it (a lock).
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from .multiprecision import ACTIVE, OWN, elementwise, lifted, refusal
from .ops import INTERNAL, OPS

_LOCK = threading.RLock()  # a working precision inside another one keeps it

#: What an mpf has, while a working precision is on, of a NumPy scalar's attributes: a
#: rule's arithmetic on 0-d arrays of mpf gives an mpf (a float64's, an np.float64 that
#: has them), and the rules and the reverse pass read a gradient's shape.
_SCALAR = dict(
    ndim=0,
    shape=(),
    size=1,
    dtype=np.dtype(object),
    reshape=lambda self, *shape: np.asarray(self, dtype=object).reshape(*shape),
    astype=lambda self, dtype, **kwargs: np.asarray(self, dtype=object).astype(dtype),
)


_IEEE = ("__truediv__", "__rtruediv__", "__pow__", "__rpow__")


def _ieee(mpmath):
    """mpf's division and power as float64's where mpmath raises: x / 0 is inf with x's
    sign (mpmath has no -0), 0 / 0 nan, 0 ** -1 inf; a rule's raw arithmetic (g / 0 at
    acos'(1)) meets them."""
    base = mpmath.mpf.__mro__[1]  # the context's mpf class derives from mpmath's own
    inf, nan = mpmath.inf, mpmath.nan

    def guarded(name):
        operation = getattr(base, name)

        def apply(self, other):
            try:
                return operation(self, other)
            except ZeroDivisionError:
                numerator = other if name in ("__rtruediv__",) else self
                if name in ("__pow__", "__rpow__"):
                    return inf
                return (
                    nan
                    if not numerator or numerator != numerator
                    else (inf if numerator > 0 else -inf)
                )

        return apply

    return {name: guarded(name) for name in _IEEE}


def _forward_of(entry, forward, inputs, mpmath):
    """The multiprecision forward of one of ``entry``'s functions whose float64 forward
    is ``forward``."""
    mp = entry.mp
    if mp is None:
        return refusal(entry.name)
    if mp == OWN:
        ints = entry.promotes  # 1 / 3 is a third, not a float64's
        return lambda *args: _array(forward(*(lifted(a, mpmath, ints) for a in args)))
    if isinstance(mp, str):
        return elementwise(getattr(mpmath, mp), mpmath, inputs)
    return mp(mpmath)


def _array(out):
    """A result as the engine takes it: NumPy's object loops give a 0-d result as the
    number itself."""
    return out if isinstance(out, (np.ndarray, tuple, list)) else np.asarray(out)


def _composite(entry) -> bool:
    """Whether ``entry`` was declared by ``table.composite``: its function is ``f``."""
    return "f" in entry.call.__code__.co_freevars


def _cell(function, name):
    """The closure cell of ``function`` that holds its free variable ``name``."""
    return function.__closure__[function.__code__.co_freevars.index(name)]


def _swaps(entries, mpmath):
    """Every (cell, multiprecision value) the switch sets."""
    for entry in entries:
        if entry.overloads:
            for o in entry.overloads:
                yield _cell(o.fn, "forward"), _forward_of(entry, o.forward, len(o.rules), mpmath)
            if entry.mp is None and _composite(entry):  # its choice among them too
                yield _cell(entry.call, "f"), refusal(entry.name)
        elif entry.forward is not None:  # an op without a derivative (lt, argmax)
            inputs = entry.schema.n_inputs
            yield _cell(entry.call, "forward"), _forward_of(entry, entry.forward, inputs, mpmath)
        elif entry.mp is None or entry.mp != OWN:
            f = _cell(entry.call, "f")
            yield f, refusal(entry.name) if entry.mp is None else entry.mp(mpmath)


@contextlib.contextmanager
def working_precision(dps: int):
    """Every entry computing in mpmath at ``dps`` significant decimal digits."""
    import mpmath

    with _LOCK:
        swaps = list(_swaps((*OPS.values(), *INTERNAL.values()), mpmath))
        saved = [(cell, cell.cell_contents) for cell, _ in swaps]
        try:
            for cell, value in swaps:
                cell.cell_contents = value
            for name, value in {**_SCALAR, **_ieee(mpmath)}.items():
                setattr(mpmath.mpf, name, value)
            ACTIVE[0] = True
            with mpmath.workdps(dps):
                yield mpmath
        finally:
            ACTIVE[0] = False
            for name in (*_SCALAR, *_IEEE):
                if name in vars(mpmath.mpf):
                    delattr(mpmath.mpf, name)
            for cell, value in saved:
                cell.cell_contents = value
