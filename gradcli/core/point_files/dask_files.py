"""CSV and Parquet inputs read by Dask's own readers in the workers, and Parquet
output as a directory of part files.

``DaskFiles(source, executor)`` reads a file, a directory of such files or a
glob, file after file in sorted order, each in partitions of about a chunk's
rows. A worker reads a partition and computes it in one task, so the rows never
pass through the client on their way in. It is both the reader and the
executor of the chunk loop (``run(reader, task, writer, executor=reader)``): by
the time the loop takes a chunk (the partition's input columns, which come back
with its results), its results are already computed, and ``map`` hands them
over in order.

``PartFiles(directory)`` is the writer of ``--output DIR.parquet`` under Dask:
one file per chunk, ``part.000000.parquet``, ``part.000001.parquet``, ..., which
Dask, pandas and pyarrow read back as one table.
"""

from __future__ import annotations

import collections
import glob
import os
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ...errors import GradcliError
from ..files import path_problem
from .budget import PROBE_ROWS, shown
from .columns import columns_from_arrays
from .run import computed, learned, placed
from .source import Chunk, Reader
from .writers import Writer, cannot_write

FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
# Partitions of a CSV file are ranges of bytes: this many rows of the first file's
# first lines, so that a partition holds about a chunk.
_SAMPLE_BYTES = 64 * 1024
_SMALLEST_BLOCK = 64 * 1024


def dask_format(source: str) -> str | None:
    """ "csv" or "parquet" when Dask's readers read ``source`` (a file, a directory
    or a glob of such files), else None."""
    if os.path.isdir(source):
        kinds = {FORMATS.get(_ending(name)) for name in os.listdir(source)} - {None}
        return kinds.pop() if len(kinds) == 1 else None
    return FORMATS.get(_ending(source))


def _ending(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def source_files(source: str) -> list[str]:
    """The files ``source`` names, sorted: itself, a directory's CSV or Parquet files, or a glob."""
    if os.path.isdir(source):
        kind = dask_format(source)
        if kind is None:
            raise GradcliError(
                f"--points {source}: a directory of points holds .csv files or .parquet files"
            )
        names = [
            os.path.join(source, n) for n in os.listdir(source) if FORMATS.get(_ending(n)) == kind
        ]
    elif glob.has_magic(source):
        names = glob.glob(source)
        if len({FORMATS.get(_ending(name)) for name in names}) > 1:
            raise GradcliError(f"--points {source}: the files matched mix CSV and Parquet")
    else:
        why = path_problem(source)  # a link to /dev/zero is a device, not "no such file"
        if why is not None:
            raise GradcliError(f"cannot read {source}: {why}")
        names = [source]
    if not names:
        raise GradcliError(f"cannot read {source}: no such file")
    return sorted(names)


class FileChunk(Chunk):
    """A partition's rows: a ``Chunk``, and the file they come from, where they start in it."""

    columns: dict
    start: int
    lines: object = None
    path: str = ""
    file_start: int = 0


class DaskFiles(Reader):
    """The reader (and executor) of CSV and Parquet files read by the workers."""

    def __init__(self, source: str, executor):
        from .distributed import require_dask

        require_dask()
        self.path = source
        self.files = source_files(source)
        self.kind = dask_format(self.files[0])
        self.executor = executor
        self.names = _header(self.files[0], self.kind)
        self._task: Callable | None = None
        self._results: collections.deque = collections.deque()
        #: The memory budget (``budget.Budget``) that bounds each partition, if any.
        self.budget = None

    def _frame(self, path: str, block_bytes: int):
        """``path`` as a Dask dataframe (which reads a sample of it here, for its columns)."""
        import dask.dataframe as dd

        try:
            if self.kind == "csv":
                return dd.read_csv(path, blocksize=block_bytes, dtype=np.float64)
            # A partition a row group, never several joined: each is checked (_row_groups).
            return dd.read_parquet(path, split_row_groups=True)
        except (ValueError, OSError) as error:
            raise GradcliError(_unreadable(path, error)) from None

    def where(self, chunk: FileChunk, i: int) -> str:
        return f"row {chunk.start + i + 1}, {self._in_file(chunk.path, chunk.file_start + i)}"

    def _in_file(self, path: str, row: int) -> str:
        """Where row ``row`` (from 0) of ``path`` is: a CSV's line counts its header."""
        return f"line {row + 2} of {path}" if self.kind == "csv" else f"row {row + 1} of {path}"

    def map(self, task: Callable, chunks: Iterable) -> Iterator:
        """The results of ``chunks`` (this reader's), computed when they were read."""
        self._task = task
        for columns in chunks:
            # The chunk of no rows of an empty input is computed here, for its columns.
            yield self._results.popleft() if self._results else columns_from_arrays(task(columns))

    def chunks(self, size: int) -> Iterator[FileChunk]:
        if self._task is None:
            raise RuntimeError("DaskFiles.chunks runs inside its own map(task, chunks)")
        start = 0
        rows_before = collections.Counter()
        for path, partition, rows, columns in self._computed(size):
            self._results.append(columns)
            inputs = {name: columns[name] for name in partition}
            yield FileChunk(inputs, start, None, path, rows_before[path])
            rows_before[path] += rows
            start += rows

    def _computed(self, size: int) -> Iterator:
        """``(path, input names, rows, output columns)`` of each partition, in order.

        A row's error is placed in its file here: the partitions before it have
        come back, so where the failing one starts in its file is known.
        """
        import dask

        compute = dask.delayed(_compute_partition, pure=False)
        held = self._rows_held()
        block = self._block_bytes(min(size, held))
        paths: collections.deque = collections.deque()

        def submitted():
            for path in self.files:
                if self.kind == "parquet":
                    self._check_row_groups(path, held)
                frame = self._frame(path, block)
                if list(frame.columns) != self.names:
                    raise GradcliError(
                        f"{path} has the columns {', '.join(frame.columns)}, but "
                        f"{self.files[0]} has {', '.join(self.names)}"
                    )
                for partition in frame.to_delayed():
                    paths.append(path)
                    yield self.executor.client.compute(compute(self._task, partition, held))

        from .distributed import in_order

        rows_before = collections.Counter()
        results = in_order(submitted(), self.executor.in_flight())
        while True:
            try:
                rows, columns, found = next(results)
            except StopIteration:
                return
            except GradcliError as error:
                row = getattr(error, "row", None)
                if row is None:  # not of one row, or placed already (a file's columns, or
                    raise  # a field Dask's reader refused in the rows it sampled)
                path = paths[0]
                where = self._in_file(path, rows_before[path] + row)
                raise GradcliError(placed(error.message, row, where)) from None
            except ValueError as error:  # Dask's reader: a field or a line it cannot parse
                raise GradcliError(_unreadable(paths[0], error)) from None
            learned(self._task, found)  # the notes of the worker's copy of the task
            path = paths.popleft()
            yield path, self.names, rows, columns
            rows_before[path] += rows

    def _rows_held(self) -> int:
        """The rows of a partition the budget allows, by the cost of the first rows of the
        first file, measured here (as a run in one process measures them)."""
        if self.budget is None:
            return 2**62
        from .readers import open_points

        with open_points(self.files[0]) as reader:
            try:
                first = next(iter(reader.chunks(PROBE_ROWS)), None)
            except GradcliError:  # a bad first row: the workers say where, as they read it
                first = None
            if first is not None:
                self.budget.measure(self._task, first.columns, lambda i: reader.where(first, i))
        if hasattr(self._task, "chunk_limit"):  # no array of a worker's chunk over its share
            self._task.chunk_limit = max(1, self.budget.free // 8)
        return self.budget.rows_held(len(self.names), 2**62)

    def _check_row_groups(self, path: str, rows: int) -> None:
        """Refuse a row group of more than ``rows`` rows: a worker reads one whole."""
        import pyarrow.parquet

        if self.budget is None:
            return
        with pyarrow.parquet.ParquetFile(path) as file:
            metadata = file.metadata
            first = 0
            for group in range(metadata.num_row_groups):
                count = metadata.row_group(group).num_rows
                if count > rows:
                    raise GradcliError(
                        f"{path}: row group {group + 1} (rows {first + 1:,} to {first + count:,})"
                        f" holds {count:,} rows, which a Dask worker reads at once; "
                        f"--max-memory {shown(self.budget.limit)} lets it hold {rows:,}: write "
                        "the file in smaller row groups, or run without --dask (which reads "
                        "it a chunk at a time)"
                    )
                first += count

    def _block_bytes(self, rows: int) -> int | None:
        """The bytes of about ``rows`` rows of the first CSV file (None for Parquet,
        whose partitions are its row groups)."""
        if self.kind != "csv":
            return None
        with open(self.files[0], "rb") as lines:
            sample = lines.read(_SAMPLE_BYTES).split(b"\n")[1:-1]
        row_bytes = (sum(map(len, sample)) + len(sample)) / max(len(sample), 1)
        return max(int(rows * row_bytes), _SMALLEST_BLOCK)


def _header(path: str, kind: str) -> list[str]:
    """The columns of a file, read from its header (no field is converted): the
    command line checks them before the workers read numbers."""
    import csv

    try:
        if kind == "parquet":
            import pyarrow.parquet

            with pyarrow.parquet.ParquetFile(path) as file:
                return list(file.schema_arrow.names)
        with open(path, encoding="utf-8-sig", newline="") as lines:
            first = next(csv.reader(lines), None)
        what = "a header naming the columns (x,y)"
        if first is None:
            raise GradcliError(f"{path} is empty: its first line must be {what}")
        if not "".join(first).strip():
            raise GradcliError(f"{path} line 1 is blank: the first line must be {what}")
        return [name.strip() for name in first]
    except (OSError, ValueError, csv.Error) as error:
        raise GradcliError(_unreadable(path, error)) from None


def _compute_partition(
    task: Callable, frame, rows: int | None = None
) -> tuple[int, dict[str, np.ndarray], dict]:
    """In a worker: a partition's rows through ``task``, ``rows`` at a time (what the
    memory budget allows), and what the task learned there."""
    columns = {name: _numbers(frame[name]) for name in frame.columns}
    size = len(frame)
    step = size if not rows or rows >= size else rows
    parts, found = [], {}
    for start in range(0, max(size, 1), max(step, 1)):
        part = {name: column[start : start + step] for name, column in columns.items()}
        try:
            arrays, found = computed(task, part)
        except GradcliError as error:
            if getattr(error, "row", None) is not None and start:  # a row of the partition
                error.message = error.message.replace(
                    f"at point {error.row}", f"at point {error.row + start}"
                )
                error.row += start
            raise
        parts.append(columns_from_arrays(arrays))  # CSV and Parquet: columns
    if len(parts) == 1:
        return size, parts[0], found
    return size, {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}, found


def _numbers(column) -> np.ndarray:
    """A column as float64, or an error naming the first field that is not a number."""
    try:
        return column.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        import pandas as pd

        parsed = pd.to_numeric(column, errors="coerce")
        bad = np.flatnonzero(parsed.isna().to_numpy() & column.notna().to_numpy())
        row = int(bad[0]) if len(bad) else 0
        error = GradcliError(
            f"{str(column.iloc[row]).strip()!r} in column {column.name} is not a number "
            f"at point {row}"
        )
        error.row = row
        raise error from None


def _unreadable(path: str, error: Exception) -> str:
    """The message for a file Dask's reader failed on: for CSV, its first bad line,
    found here as the reader of one process finds it."""
    if dask_format(path) == "csv":
        from .text_readers import CsvReader

        with CsvReader(path, skip_bad_rows=False) as reader, open(path, "rb") as lines:
            next(lines)  # the header
            for line, text in enumerate(lines, start=2):
                why = reader._bad_row(text)
                if why is not None:
                    return f"{path} line {line}: {why}"
    return f"cannot read {path}: {str(error).splitlines()[-1]}"


class PartFiles(Writer):
    """``--output DIR.parquet`` under Dask: each chunk a Parquet file, in order, in a
    temporary directory beside ``DIR`` that becomes ``DIR`` when the run is
    complete. An existing ``DIR`` must be empty (a directory of parts cannot be
    replaced in one step): one that holds files is refused, and kept."""

    def __init__(self, directory: str):
        super().__init__()
        from ..atomic import AtomicDirectory

        self.directory = directory
        try:
            self.parts_directory = AtomicDirectory(directory)
        except FileExistsError:
            raise GradcliError(
                f"--output {directory}: with Dask, Parquet output is a directory of part "
                "files, and this one exists; name a new directory"
            ) from None
        except OSError as error:
            raise cannot_write(directory, error) from None
        self.path = directory
        self.parts = 0

    def _write(self, columns):
        import pyarrow as pa
        import pyarrow.parquet as pq

        target = self.parts_directory.add(f"part.{self.parts:06d}.parquet")
        pq.write_table(pa.table(columns), target)
        self.parts += 1

    def _finish(self):
        self.parts_directory.commit()

    def abort(self) -> None:
        self.parts_directory.discard()
