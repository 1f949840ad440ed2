"""Large float64 arrays as text, Python's ``repr`` of each number byte for byte, in a
fraction of its time.

Python's ``repr`` of a float costs about 0.45 us a number, which is most of the time
plain and JSON output of 10^6 numbers take. Arrow's cast of float64 to text (pyarrow
is a dependency already, for CSV) writes the same shortest digits in C++ in a sixth of
that, in a notation of its own, which is rewritten here into Python's:

    |x|               Arrow's text            Python's repr
    below 1e-9        1.5e-12                 1.5e-12 (the same)
    1e-9 to 1e-6      1.5e-7                  1.5e-07
    1e-6 to 1e-4      0.000015                1.5e-05
    1e-4 to 1e10      0.5, 12, -0             0.5, 12.0, -0.0
    1e10 to 1e16      1.5e+10                 15000000000.0 (these take repr itself)
    from 1e16         1.5e+20                 1.5e+20 (the same)

and nan, inf and -inf alike. Whole numbers come without ``.0``, as every format here
writes them. Arrow's notation is not part of its promises: the first call checks
numbers of every band against ``repr``, and if one differs, or pyarrow is missing,
callers fall back on ``repr``.
"""

from __future__ import annotations

import numpy as np

# Below this many numbers, importing pyarrow (0.05 to 0.1 s) costs more than it saves.
BULK_SIZE = 200_000

# Arrow's positional text between 1e-6 and 1e-4 as Python's scientific one: the first
# digit, a point and the rest (the point dropped after one digit), the exponent.
_SMALL = {5: r"^(-?)0\.0000([1-9])(\d*)$", 6: r"^(-?)0\.00000([1-9])(\d*)$"}


_checked: bool | None = None


def _probe() -> np.ndarray:
    """Numbers of every band above and at its edges, both signs."""
    edges = 10.0 ** np.arange(-12, 25)
    values = np.concatenate([
        edges,
        np.nextafter(edges, 0),
        np.nextafter(edges, np.inf),
        edges * 1.5,
        edges * 0.123456789012345,
        [0.0, 1.0, 0.1, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308],
        [np.nan, np.inf, 1 / 3, 2 / 3, 123456.789, 9007199254740993.0],
    ])  # fmt: skip
    return np.concatenate([values, -values])


def _same_as_repr() -> bool:
    global _checked
    if _checked is None:
        probe = _probe()
        texts = [_stripped(repr(x)) for x in probe.tolist()]
        lists = repr(probe.reshape(2, -1).tolist()).replace(".0,", ",").replace(".0]", "]")
        try:  # every step of the way, as an older pyarrow may lack one
            _checked = _joined(probe, " ") == " ".join(texts)
            _checked = _checked and _nested_block(probe.reshape(2, -1)) == lists
        except Exception:  # noqa: BLE001  (pyarrow missing or unlike this one: repr)
            _checked = False
    return _checked


def _stripped(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def _texts(flat: np.ndarray):
    """Each number of the 1-d float64 array ``flat`` as Python writes it, without the
    ``.0`` of whole numbers: an Arrow array of text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = pc.cast(_arrow(pa, flat), pa.large_string())
    size = np.abs(flat)
    wheres, fixed = [], []
    for low, high, rewrite in _BANDS:
        where = np.flatnonzero((size >= low) & (size < high))
        if where.size:
            wheres.append(where)
            if rewrite is None:
                texts_of_band = [_stripped(repr(x)) for x in flat[where].tolist()]
                fixed.append(_strings(pa, texts_of_band))
            else:
                fixed.append(rewrite(texts.take(_arrow(pa, where)), pa, pc))
    if not wheres:
        return texts
    # One replacement for every band: the rewritten texts in the order of the numbers.
    where = np.concatenate(wheres)
    in_order = pa.concat_arrays(fixed).take(_arrow(pa, np.argsort(where, kind="stable")))
    mask = np.zeros(flat.size, bool)
    mask[where] = True
    return pc.replace_with_mask(texts, _arrow(pa, mask), in_order)


def _exponent_of_two_digits(texts, pa, pc):
    """``1.5e-7`` as ``1.5e-07``: the last digit after a 0."""
    zero, none = _strings(pa, ["0", ""])
    head = pc.utf8_slice_codeunits(texts, 0, -1)
    return pc.binary_join_element_wise(head, zero, pc.utf8_slice_codeunits(texts, -1), none)


def _scientific(exponent):
    def rewrite(texts, pa, pc):
        """``0.000015`` as ``1.5e-05``, ``-0.000002`` as ``-2e-06``."""
        texts = pc.replace_substring_regex(texts, _SMALL[exponent], rf"\1\2.\3e-0{exponent}")
        return pc.replace_substring(texts, ".e", "e")

    return rewrite


# Where Arrow's notation is not Python's, by |x|, and how its texts are rewritten
# (None: by repr itself, for numbers that seldom come many at a time).
_BANDS = [
    (1e-9, 1e-6, _exponent_of_two_digits),
    (1e-6, 1e-5, _scientific(6)),
    (1e-5, 1e-4, _scientific(5)),
    (1e10, 1e16, None),
]


def joined(array: np.ndarray, separator: str) -> str | None:
    """A float64 array's numbers, flattened in row-major order, joined by ``separator``;
    None when the array is small or Arrow's texts cannot be trusted."""
    if array.size < BULK_SIZE or array.dtype != np.float64 or not _same_as_repr():
        return None
    return _joined(array.reshape(-1), separator)


def nested(array: np.ndarray) -> str | None:
    """A float64 array as nested lists, ``[[1, 2.5], [nan, 4]]``, as ``repr`` of its
    ``tolist()`` writes it less the ``.0`` of whole numbers; None as for ``joined``."""
    if (
        array.size < BULK_SIZE
        or array.dtype != np.float64
        or array.ndim == 0
        or not _same_as_repr()
    ):
        return None
    return _nested(array)


# Numbers formatted at a time: Arrow's arrays of their texts are a few megabytes, not
# several times the whole output.
BLOCK = 1 << 16


def _joined(flat: np.ndarray, separator: str) -> str:
    import pyarrow as pa
    import pyarrow.compute as pc

    (between,) = _strings(pa, [separator])
    blocks = []
    for at in range(0, flat.size, BLOCK):
        texts = _texts(np.ascontiguousarray(flat[at : at + BLOCK]))
        ends = _arrow(pa, np.array([0, len(texts)], np.int64))
        one = pa.LargeListArray.from_arrays(ends, texts)
        blocks.append(pc.binary_join(one, between)[0].as_py())
    return separator.join(blocks)


def _nested(array: np.ndarray) -> str:
    """Nested lists, a block of whole sub-arrays (along the first axis) at a time."""
    if array.size <= BLOCK:
        return _nested_block(array)
    if array.ndim == 1:
        return "[" + _joined(array, ", ") + "]"
    each = array[0].size
    if each > BLOCK:
        parts = [_nested(part) for part in array]
    else:
        step = BLOCK // each
        parts = [_nested_block(array[at : at + step])[1:-1] for at in range(0, len(array), step)]
    parts[0] = "[" + parts[0]  # the brackets on the parts: no copy of the whole to add them
    parts[-1] += "]"
    return ", ".join(parts)


def _nested_block(array: np.ndarray) -> str:
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = _texts(np.ascontiguousarray(array).reshape(-1))
    opening, closing, comma, none = _strings(pa, ["[", "]", ", ", ""])
    for length in reversed(array.shape):  # the innermost lists first, then those of them
        ends = _arrow(pa, np.arange(0, len(texts) + 1, length, dtype=np.int64))
        inner = pc.binary_join(pa.LargeListArray.from_arrays(ends, texts), comma)
        texts = pc.binary_join_element_wise(opening, inner, closing, none)
    return texts[0].as_py()


# Arrow's arrays from NumPy's and from Python's text by their buffers: pyarrow's own
# conversions (``pa.array``, ``pa.scalar``) import pandas when it is installed, which
# costs 0.2 s and 40 MB.
def _arrow(pa, array: np.ndarray):
    """A 1-d float64, int64 or bool NumPy array as an Arrow array."""
    if array.dtype == bool:
        bits = np.packbits(array, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(array), [None, pa.py_buffer(bits)])
    kind = {np.dtype(np.float64): pa.float64(), np.dtype(np.int64): pa.int64()}[array.dtype]
    return pa.Array.from_buffers(kind, len(array), [None, pa.py_buffer(array)])


def _strings(pa, texts: list[str]):
    """ASCII texts as an Arrow array of ``large_string``."""
    ends = np.cumsum([0, *map(len, texts)], dtype=np.int64)
    data = pa.py_buffer("".join(texts).encode("ascii"))
    return pa.Array.from_buffers(pa.large_string(), len(texts), [None, pa.py_buffer(ends), data])
