"""How numbers and arrays are written as text, shared by every output format.

``precision`` is a count of significant digits; ``None`` writes the shortest text
that reads back as the same number (so scripts lose nothing). Non-finite
numbers are ``nan``, ``inf`` and ``-inf``, as NumPy prints them.
"""

from __future__ import annotations

import numpy as np

# NumPy's defaults: arrays over 1000 elements show 3 items at each edge.
SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3
_FORMATTER_KEYS = {"b": "bool", "i": "int_kind", "u": "int_kind"}


def format_number(x, precision: int | None = None) -> str:
    """One number as text: ``19``, ``0.5``, ``1e-20``, ``nan``, ``True``."""
    x = np.asarray(x)[()]
    if isinstance(x, np.bool_):
        return "True" if x else "False"
    if isinstance(x, np.integer):
        return str(int(x))
    if not np.isfinite(x):
        return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    size = abs(x)
    # Positional notation while it stays short and does not invent digits.
    big = 1e16 if precision is None else 10.0 ** max(precision, 1)
    if size != 0 and (size >= big or size < 1e-4):
        digits = None if precision is None else max(precision - 1, 0)
        return np.format_float_scientific(x, precision=digits, unique=True, trim="-")
    return np.format_float_positional(
        x, precision=precision, unique=True, fractional=False, trim="-"
    )


def flat_numbers(array: np.ndarray, precision: int | None = None) -> list[str]:
    """Every element of ``array`` as text, in row-major order."""
    return [format_number(x, precision) for x in np.asarray(array).reshape(-1)]


def _shown_part(array: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows: the edges of every long axis."""
    for axis, n in enumerate(array.shape):
        if n > 2 * EDGE_ITEMS:
            keep = np.r_[0:EDGE_ITEMS, n - EDGE_ITEMS : n]
            array = np.take(array, keep, axis=axis)
    return array


def format_array(
    array: np.ndarray,
    precision: int | None = None,
    *,
    summarize: bool = True,
    line_width: int = 75,
) -> str:
    """An array as NumPy prints it: an aligned grid, with ``...`` for the middle of
    a large array; a 0-d array is just its number."""
    array = np.asarray(array)
    if array.ndim == 0:
        return format_number(array, precision)
    long = summarize and array.size > SUMMARY_THRESHOLD
    shown = _shown_part(array) if long else array
    width = max((len(s) for s in flat_numbers(shown, precision)), default=0)
    kind = _FORMATTER_KEYS.get(array.dtype.kind, "float_kind")
    return np.array2string(
        array,
        max_line_width=line_width,
        separator=" ",
        threshold=SUMMARY_THRESHOLD if summarize else array.size + 1,
        edgeitems=EDGE_ITEMS,
        formatter={kind: lambda x: format_number(x, precision).rjust(width)},
    )


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as Python writes a tuple: ``()``, ``(3,)``, ``(2, 3)``."""
    return str(tuple(shape))
