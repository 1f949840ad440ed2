"""How numbers and arrays are written as text, shared by every output format.

``precision`` is a count of significant digits; ``None`` writes the shortest text
that reads back as the same number (so scripts lose nothing). Non-finite
numbers are ``nan``, ``inf`` and ``-inf``, as NumPy prints them.
"""

from __future__ import annotations

import re

import numpy as np

from .many_numbers import joined, nested

# NumPy's defaults: arrays over 1000 elements show 3 items at each edge.
SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3
_FORMATTER_KEYS = {"b": "bool", "i": "int_kind", "u": "int_kind"}


def format_number(x, precision: int | None = None) -> str:
    """One number as text: ``19``, ``0.5``, ``1e-20``, ``nan``, ``True``."""
    x = np.asarray(x)[()]
    if precision is not None:
        precision = min(precision, 17)  # as many as float64 has; NumPy fails on huge ones
    if isinstance(x, np.bool_):
        return "True" if x else "False"
    if isinstance(x, np.integer):
        return str(int(x))
    if isinstance(x, np.complexfloating):  # as Python writes it, both parts: 2+4j, 0-1j
        imag = format_number(x.imag, precision)
        sign = "" if imag.startswith("-") else "+"
        return f"{format_number(x.real, precision)}{sign}{imag}j"
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


def flat_text(array: np.ndarray, precision: int | None = None) -> str:
    """``flat_numbers`` joined by spaces, in time linear in the size and small per number."""
    array = np.asarray(array)
    if precision is None and array.dtype == np.float64:
        text = joined(array, " ")
        if text is not None:
            return text
        # repr of the whole list runs in C, a fifth faster than joining each repr.
        text = repr(array.reshape(-1).tolist())[1:-1] + ","
        return text.replace(".0,", ",").replace(", ", " ")[:-1]
    if array.dtype.kind in "iu":
        return " ".join(map(str, array.reshape(-1).tolist()))
    return " ".join(flat_numbers(array, precision))


def nested_text(array: np.ndarray, words: dict[str, str]) -> str | None:
    """A float64 array as nested lists ``[[1, 2.5], [nan, 4]]`` of ``format_number``'s
    texts, ``words`` replacing nan, inf and -inf; None for other dtypes."""
    array = np.asarray(array)
    if array.dtype != np.float64:
        return None
    text = nested(array)
    if text is None:
        text = repr(array.tolist()).replace(".0,", ",").replace(".0]", "]")
    if not np.isfinite(array).all():
        text = _NONFINITE.sub(lambda found: words[found[0]], text)
    return text


# Python's repr of a float is the shortest text that reads back, and it switches to
# scientific notation where format_number does (below 1e-4, from 1e16) and writes it
# the same way (1e-05, 1.5e+20): only the ".0" of whole numbers goes, and ".0" ends a
# number nowhere else. Whole-text replacements do it for every number at once, which
# is what makes large outputs fast.
_NONFINITE = re.compile(r"-?inf|nan")


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
    """An array as NumPy prints it, for people: a grid whose decimal points line up,
    with ``...`` for the middle of a large array; a 0-d array is just its number.

    As in NumPy, one notation holds for the whole array: scientific, with the same
    number of digits in every mantissa, as soon as one number needs it. Negative
    zeros show as ``0``: a sign on nothing is noise to a reader.
    """
    array = np.asarray(array)
    if array.dtype.kind == "f":
        array = array + 0.0  # -0.0 + 0.0 is 0.0
    if array.ndim == 0:
        return format_number(array, precision)
    if array.dtype.kind == "c":  # each number as format_number writes it, unaligned
        return np.array2string(
            array + 0.0,
            max_line_width=line_width,
            separator=" ",
            threshold=SUMMARY_THRESHOLD if summarize else array.size + 1,
            edgeitems=EDGE_ITEMS,
            formatter={"complex_kind": lambda x: format_number(x, precision)},
        )
    long = summarize and array.size > SUMMARY_THRESHOLD
    shown = _shown_part(array) if long else array
    number = _array_notation(shown, precision)
    parts = [_split_point(number(x)) for x in shown.reshape(-1)]
    whole = max((len(w) for w, f in parts if f is not None), default=0)
    fraction = max((len(f) for w, f in parts if f is not None), default=0)
    width = max([whole + fraction, *(len(w) for w, f in parts if f is None)])

    def aligned(x) -> str:
        w, f = _split_point(number(x))
        return w.rjust(width) if f is None else (w.rjust(whole) + f.ljust(fraction)).rjust(width)

    kind = _FORMATTER_KEYS.get(array.dtype.kind, "float_kind")
    return np.array2string(
        array,
        max_line_width=line_width,
        separator=" ",
        threshold=SUMMARY_THRESHOLD if summarize else array.size + 1,
        edgeitems=EDGE_ITEMS,
        formatter={kind: aligned},
    )


def _array_notation(shown: np.ndarray, precision: int | None):
    """How each number of an array is written: ``format_number``, unless one of them
    needs scientific notation; then all are, with as many digits as the longest."""
    texts = flat_numbers(shown, precision) if shown.dtype.kind == "f" else []
    if not any("e" in t for t in texts if t not in ("nan", "inf", "-inf")):
        return lambda x: format_number(x, precision)
    cap = None if precision is None else max(precision - 1, 0)
    digits = 0
    for x in shown.reshape(-1):
        if np.isfinite(x):
            text = np.format_float_scientific(x, precision=cap, unique=True, trim="-")
            mantissa = text.partition("e")[0]
            digits = max(digits, len(mantissa.partition(".")[2]))

    def scientific(x) -> str:
        if not np.isfinite(x):
            return format_number(x)
        trim = "k" if digits else "-"
        return np.format_float_scientific(x, precision=digits, unique=False, trim=trim)

    return scientific


def _split_point(text: str) -> tuple[str, str | None]:
    """``"-12.5"`` -> ``("-12", ".5")``: the part before the decimal point, which is
    right-aligned, and the rest, left-aligned; ``None`` for words (``nan``)."""
    if text in ("nan", "inf", "-inf", "True", "False"):
        return text, None
    whole, point, rest = text.partition(".")
    if not point:
        whole, e, rest = text.partition("e")
        return whole, e + rest
    return whole, point + rest


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as Python writes a tuple: ``()``, ``(3,)``, ``(2, 3)``."""
    return str(tuple(shape))
