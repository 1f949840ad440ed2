"""Any working precision (``--dps``): what an entry declares of its multiprecision forward,
and the helpers its forms and rules share.

Each entry declares its multiprecision forward where it is declared (``mp`` in
``optable``), one of:

- ``OWN``: its own forward, on NumPy arrays of mpmath numbers (NumPy's object loops
  call the numbers' own operators: ``+``, ``@``, ``sum``, a reshape);
- the name of an mpmath function, applied to each element (``"sin"``);
- ``make(mpmath)``: a factory given the mpmath module, returning the forward (for a
  composite entry, its ``f(over, *args)``).

Inside ``working_precision(dps)`` (``working_precision.py``) every entry's functions
compute so; the derivative rules are the entries' own, written in the table's ops, so
the reverse pass computes in mpmath too and no rule is written twice. An entry without
an ``mp`` refuses by name.
"""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError

#: ``mp=OWN``: the entry's forward as it is, on arrays of mpmath numbers.
OWN = "own"
#: Whether a working precision is on: the language reads its literals and constants so.
ACTIVE = [False]


def constant(value: float, exact):
    """A rule's constant: ``value``, a float64, or at a working precision ``exact(mpmath)``
    (``mpmath.ln2``), so that the rule keeps every digit there."""
    if not ACTIVE[0]:
        return value
    import mpmath

    return +exact(mpmath)


def refusal(name: str):
    """The forward of an entry without a multiprecision form."""

    def refuse(*args, **kwargs):
        raise GradcliError(f"--dps: {name} has no multiprecision form")

    return refuse


def lifted(value, mpmath, ints=False):
    """``value`` with its floats (and its integers, with ``ints``) as mpmath numbers: a
    float array an object array of mpf, exactly (a float64 is a binary fraction)."""
    if type(value) is np.ndarray:
        if value.dtype.kind == "f" or ints and value.dtype.kind in "iu":
            out = np.empty(value.shape, dtype=object)
            out.reshape(-1)[:] = [mpmath.mpf(v) for v in value.reshape(-1).tolist()]
            return out
        return value
    if isinstance(value, (float, np.floating)):
        return mpmath.mpf(float(value))
    if ints and isinstance(value, np.integer):
        return mpmath.mpf(int(value))
    if isinstance(value, (list, tuple)):
        return type(value)(lifted(v, mpmath, ints) for v in value)
    return value


def elementwise(function, mpmath, inputs=1):
    """An mpmath function of real numbers on each element (of ``inputs`` arrays,
    broadcast); where it leaves the reals (``sqrt(-1)``), nan, as float64's."""
    nan = mpmath.mpf("nan")
    mpf = mpmath.mpf

    def real(*xs):
        try:
            y = function(*xs)
        except (ValueError, ZeroDivisionError):  # a pole (gamma(0)), outside the domain
            return nan
        return y if type(y) is mpf else nan if isinstance(y, mpmath.mpc) else mpf(y)

    each = np.frompyfunc(real, inputs, 1)

    def forward(*args):
        xs = (lifted(np.asarray(x), mpmath, ints=True) for x in args[:inputs])
        return np.asarray(each(*xs), dtype=object)

    return forward


def quotient(mpmath):
    """``x / y`` at a working precision, elementwise, as float64's at a zero divisor where
    mpmath raises: ±inf by the sign of x (mpmath has no -0), nan for 0 / 0."""
    inf, nan, mpf = mpmath.inf, mpmath.nan, mpmath.mpf

    def each(x, y):
        x, y = mpf(x), mpf(y)  # an int / an int is a float64's quotient
        if y:
            return x / y
        return nan if not x or x != x else inf if x > 0 else -inf

    pairs = np.frompyfunc(each, 2, 1)
    return lambda x, y: np.asarray(pairs(x, y), dtype=object)
