"""What ``--points FILE`` reads, a chunk of rows at a time.

``open_points(path)`` picks the reader by the file's ending: ``.csv`` (and ``-``,
CSV on standard input), ``.jsonl``, ``.npz``, ``.npy`` (with ``--columns``) and
``.parquet``. Every reader has the same shape: ``header`` (its columns, in order),
``select(inputs, kept)`` (which of them bind inputs, ``names``, and which are
copied to the output, ``kept``: a chunk's ``kept`` columns, text as ``str``),
``total`` (the number of rows when known before reading, else None),
``chunks(size)`` (an iterator of ``Chunk``), ``skipped`` (the bad rows it passed
over under ``skip_bad_rows``: ``(line, why)``), ``where(chunk, i)`` (how a warning
names row i of a chunk: ``row 7, line 8 of p.csv``) and, for the progress bar,
``extent`` and ``done(rows)`` (rows, or bytes of a text file).

CSV and Parquet are read by pyarrow (the fastest of numpy, pandas and pyarrow at
CSV: ``bench/bench_batch_csv.py``); the text formats live in ``text_readers``.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from ...errors import GradcliError
from ..files import npy_problem, path_problem, refusal
from .npz_layout import stored_arrays
from .source import DEFAULT_CHUNK_SIZE, Chunk, Reader
from .text_readers import CsvReader, JsonLinesReader

FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".npz": "npz",
    ".npy": "npy",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def open_points(
    path: str,
    columns: str | None = None,
    skip_bad_rows: bool = False,
    delimiter: str | None = None,
):
    """The reader of ``path`` (``-`` is CSV on standard input); ``columns`` names the
    columns of a ``.npy`` (``"x,y"``); ``delimiter`` separates a CSV file's fields
    (by default, what separates its header's)."""
    kind = "csv" if path == "-" else FORMATS.get(os.path.splitext(path)[1].lower())
    if kind is None:
        endings = ", ".join(sorted(set(FORMATS)))
        raise GradcliError(f"--points {path}: unknown kind of file; its name must end in {endings}")
    if kind in ("npz", "npy", "parquet") and skip_bad_rows:
        raise GradcliError(f"--skip-bad-rows is for text files (CSV, JSON lines), not {path}")
    if delimiter is not None and kind != "csv":
        raise GradcliError(f"--delimiter separates the fields of a CSV file, not of {path}")
    problem = None if path == "-" else path_problem(path)
    if problem is not None:
        raise GradcliError(f"cannot read {path}: {problem}")
    if kind == "csv":
        return CsvReader(path, skip_bad_rows, delimiter)
    if kind == "jsonl":
        return JsonLinesReader(path, skip_bad_rows)
    if kind == "npz":
        return NpzReader(path)
    if kind == "npy":
        return NpyReader(path, columns)
    return ParquetReader(path)


def _numeric(path: str, name: str, array: np.ndarray) -> np.ndarray:
    if array.dtype.kind not in "iufbc":
        raise GradcliError(f"{path}: column {name} is not numeric (dtype {array.dtype})")
    return array


class NpzReader(Reader):
    """One array per input, the batch axis first, read a chunk of rows at a time,
    stored or compressed (``npz_layout``)."""

    def __init__(self, path: str):
        self.path = path
        self.arrays = {}
        try:
            self.archive = zipfile.ZipFile(path)  # noqa: SIM115 (closed by close())
            self.arrays = stored_arrays(path, self.archive)
        except (OSError, ValueError, zipfile.BadZipFile) as error:
            self.close()
            raise GradcliError(f"cannot read {path}: {refusal(error)}") from None
        self.names = list(self.arrays)
        if not self.names:
            raise GradcliError(f"{path} holds no arrays")
        for name, array in self.arrays.items():
            _numeric(path, name, array)  # its dtype
            if len(array.shape) == 0:
                raise GradcliError(f"{path}: {name} is one number; its first axis must be the rows")
        lengths = {name: len(array) for name, array in self.arrays.items()}
        if len(set(lengths.values())) > 1:
            listed = ", ".join(f"{n} has {k}" for n, k in lengths.items())
            raise GradcliError(f"{path}: the arrays disagree on the number of rows ({listed})")
        self.total = next(iter(lengths.values()))

    @property
    def numbers_per_row(self) -> int:
        return sum(self.arrays[n].row_items for n in (*self.names, *self.kept))

    def chunks(self, size: int):
        for start in range(0, self.total, size):
            yield Chunk(*self._rows(start, start + size))

    def _rows(self, start: int, stop: int):
        columns = {n: self.arrays[n].rows(start, stop) for n in self.names}
        return columns, start, None, {n: self.arrays[n].rows(start, stop) for n in self.kept}

    def empty_chunk(self) -> Chunk:
        return Chunk(*self._rows(0, 0))

    def close(self) -> None:
        for array in self.arrays.values():
            array.close()
        archive = getattr(self, "archive", None)
        if archive is not None:
            archive.close()


class NpyReader(Reader):
    """A 2-D array, one row per point, its columns named by ``--columns x,y``; read
    through a memory map, so only the chunk in hand is in memory."""

    def __init__(self, path: str, columns: str | None):
        self.path = path
        if columns is None:
            raise GradcliError(f"--points {path}: name its columns with --columns x,y")
        self.names = [c.strip() for c in columns.split(",")]
        if not all(self.names):
            raise GradcliError(f"--columns {columns}: an empty name")
        try:
            problem = npy_problem(path)
            if problem is not None:
                raise GradcliError(f"cannot read {path}: {problem}")
            self.array = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as error:
            raise GradcliError(f"cannot read {path}: {refusal(error)}") from None
        _numeric(path, "of the array", self.array)
        if self.array.ndim != 2:
            raise GradcliError(
                f"{path} has shape {self.array.shape}: a .npy of points is 2-D, one row each"
            )
        if self.array.shape[1] != len(self.names):
            raise GradcliError(
                f"{path} has {self.array.shape[1]} columns but --columns names {len(self.names)}"
            )
        self.total = self.array.shape[0]

    def chunks(self, size: int):
        at = {n: i for i, n in enumerate(self.header)}
        for start in range(0, self.total, size):
            part = np.asarray(self.array[start : start + size])
            columns = {n: part[:, at[n]] for n in self.names}
            yield Chunk(columns, start, kept={n: part[:, at[n]] for n in self.kept})
            part = columns = None  # the chunk let go before the next is read (run.run)


class ParquetReader(Reader):
    """A Parquet file, one numeric column per column name, read a batch at a time; two
    columns ``c.real`` and ``c.imag`` are one complex column ``c`` (as Parquet files of
    many points are written: Arrow has no complex numbers)."""

    def __init__(self, path: str):
        import pyarrow.parquet

        self.path = path
        try:
            self.file = pyarrow.parquet.ParquetFile(path)
        except (OSError, pyarrow.ArrowException) as error:
            raise GradcliError(f"cannot read {path}: {refusal(error)}") from None
        stored = list(self.file.schema_arrow.names)
        #: The complex columns, each by its name: its two stored columns.
        self.parts = {
            name[: -len(".real")]: (name, name[: -len(".real")] + ".imag")
            for name in stored
            if name.endswith(".real") and name[: -len(".real")] + ".imag" in stored
        }
        parted = {part for pair in self.parts.values() for part in pair}
        self.names = []
        for name in stored:
            if name not in parted:
                self.names.append(name)
            elif name.endswith(".real"):
                self.names.append(name[: -len(".real")])
        self.total = self.file.metadata.num_rows

    def _numbers_throughout(self, name: str) -> bool:
        """Whether a kept column is numbers without a null in every row group (as its
        statistics say), so that every batch gives it the same type; else it is text."""
        import pyarrow

        kind = self.file.schema_arrow.field(name).type
        if not (pyarrow.types.is_integer(kind) or pyarrow.types.is_floating(kind)):
            return False
        at = self.file.schema_arrow.get_field_index(name)
        metadata = self.file.metadata
        for group in range(metadata.num_row_groups):
            statistics = metadata.row_group(group).column(at).statistics
            if statistics is None or not statistics.has_null_count or statistics.null_count:
                return False
        return True

    def chunks(self, size: int):
        from .arrow import kept_column

        start = 0
        numbers = {n: self._numbers_throughout(n) for n in self.kept if n not in self.parts}
        wanted = [n for n in self.header if n in {*self.names, *self.kept}]
        stored = [p for n in wanted for p in self.parts.get(n, (n,))]
        for batch in self.file.iter_batches(batch_size=size, columns=stored):
            columns = {}
            for name in self.names:
                if name in self.parts:
                    columns[name] = self._complex(batch, name, start)
                else:
                    columns[name] = self._numbers(batch, name, start)
            kept = {
                name: self._complex(batch, name, start)
                if name in self.parts
                else kept_column(batch.column(name), numbers[name])
                for name in self.kept
            }
            yield Chunk(columns, start, kept=kept)
            start += batch.num_rows
            batch = columns = kept = None  # the chunk let go before the next is read (run.run)

    def _complex(self, batch, name: str, start: int) -> np.ndarray:
        """The complex column ``name`` of a batch, from its ``.real`` and ``.imag``."""
        real, imag = (self._numbers(batch, part, start) for part in self.parts[name])
        found = np.empty(len(real), np.result_type(real.dtype, imag.dtype, np.complex64))
        found.real, found.imag = real, imag
        return found

    def _numbers(self, batch, name: str, start: int) -> np.ndarray:
        from .arrow import to_numpy

        column = batch.column(name)
        if column.null_count:
            row = start + column.is_null().to_numpy(zero_copy_only=False).argmax()
            raise GradcliError(f"{self.path}: column {name} is empty at row {row + 1}")
        return _numeric(self.path, name, to_numpy(column))

    def close(self) -> None:
        self.file.close()


__all__ = ["DEFAULT_CHUNK_SIZE", "Chunk", "Reader", "open_points"]
