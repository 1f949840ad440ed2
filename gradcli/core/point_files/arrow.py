"""NumPy arrays to pyarrow arrays and back, by their data buffers.

pyarrow's own ``Array.to_numpy`` and ``pyarrow.array(ndarray)`` import pandas
whenever it is installed (0.3 s and 40 MB a run); a column of numbers without
nulls is its data buffer, read or wrapped here without a copy.
"""

from __future__ import annotations

import numpy as np
import pyarrow


def to_numpy(column) -> np.ndarray:
    """A pyarrow column (an array or a chunked array) as a NumPy array: its buffer
    (read-only) when it holds integers or floats without nulls."""
    if isinstance(column, pyarrow.ChunkedArray):
        column = column.combine_chunks()
    kind = column.type
    if column.null_count or not (pyarrow.types.is_integer(kind) or pyarrow.types.is_floating(kind)):
        return column.to_numpy(zero_copy_only=False)
    dtype = np.dtype(kind.to_pandas_dtype())
    data = column.buffers()[1]
    return np.frombuffer(data, dtype, count=len(column), offset=column.offset * dtype.itemsize)


def from_numpy(array: np.ndarray) -> pyarrow.Array:
    """A 1-D NumPy array of numbers as a pyarrow array over the same memory when it
    is contiguous (booleans packed to bits, as pyarrow holds them)."""
    if array.dtype.kind == "O":
        return from_texts(array)
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
    if array.dtype.kind == "b":
        bits = np.packbits(array, bitorder="little")
        return pyarrow.Array.from_buffers(
            pyarrow.bool_(), len(array), [None, pyarrow.py_buffer(bits)]
        )
    if array.dtype.kind == "U":
        return from_texts(array)
    if array.dtype.kind not in "iuf":
        return pyarrow.array(array)  # pyarrow's own error for what it cannot hold
    kind = pyarrow.from_numpy_dtype(array.dtype)
    return pyarrow.Array.from_buffers(kind, len(array), [None, pyarrow.py_buffer(array)])


def table(columns: dict[str, np.ndarray]) -> pyarrow.Table:
    """A pyarrow table of named 1-D NumPy columns."""
    return pyarrow.Table.from_arrays(
        [from_numpy(np.asarray(c)) for c in columns.values()], names=list(columns)
    )


def texts(column) -> np.ndarray:
    """A pyarrow column of text as a NumPy array of ``str`` (None where it is null)."""
    found = np.empty(len(column), dtype=object)
    found[:] = column.to_pylist()
    return found


def from_texts(values) -> pyarrow.Array:
    """Text (``str``, None for a missing value) as a pyarrow string array, put together
    from its buffers: ``pyarrow.array`` of Python objects imports pandas."""
    encoded = [b"" if v is None else str(v).encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    kind = pyarrow.string()
    if offsets[-1] < 2**31:
        offsets = offsets.astype(np.int32)
    else:
        kind = pyarrow.large_string()
    missing = np.array([v is None for v in values], dtype=bool)
    validity = None
    if missing.any():
        validity = pyarrow.py_buffer(np.packbits(~missing, bitorder="little"))
    buffers = [validity, pyarrow.py_buffer(offsets), pyarrow.py_buffer(b"".join(encoded))]
    return pyarrow.Array.from_buffers(kind, len(encoded), buffers, null_count=int(missing.sum()))


def kept_column(column, numbers: bool) -> np.ndarray:
    """A column copied to the output as it is: ``numbers`` as NumPy's, else as text
    (dates, numbers of a column with nulls), None where it is null."""
    if numbers:
        return to_numpy(column)
    found = np.empty(len(column), dtype=object)
    found[:] = [v if v is None or isinstance(v, str) else str(v) for v in column.to_pylist()]
    return found
