"""CSV and Parquet inputs read by the Dask workers, and Parquet output as a directory
of part files.

``DaskFiles(source, executor)`` reads a file, a directory of such files or a
glob, file after file in sorted order, each in partitions of about a chunk's
rows. A worker reads a partition and computes it in one task, so the rows never
pass through the client on their way in. A CSV file's partitions are ranges of
its bytes, each read by the reader of one process (``text_readers.CsvPart``: the
same parser, the same errors, no line longer than the budget allows); a Parquet
file's are its row groups, read by Dask's reader. It is both the reader and the
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
from ..bounded import MAX_TEXT_BYTES
from ..files import path_problem
from . import distributed  # through the module: a test replaces require_dask there
from .budget import PROBE_ROWS, shown
from .columns import columns_from_arrays
from .readers import open_points
from .run import computed, learned, measured, placed
from .source import Chunk, Reader
from .text_readers import CsvPart, CsvReader
from .writers import Writer, cannot_write, real_and_imaginary

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
    """A partition's rows: a ``Chunk``, the file they come from and where the first is in
    it (a CSV file's line, a Parquet file's row, from 1); ``lines``, each row's line when
    they are not the lines from ``first`` on (a CSV file's blank lines)."""

    columns: dict
    start: int
    lines: object = None
    path: str = ""
    first: int = 1


class DaskFiles(Reader):
    """The reader (and executor) of CSV and Parquet files read by the workers."""

    def __init__(self, source: str, executor):
        # Found, not imported: the columns are checked before Dask loads, with its cluster.
        distributed.require_dask(load=False)
        self.path = source
        self.files = source_files(source)
        self.kind = dask_format(self.files[0])
        self.executor = executor
        self.names = _header(self.files[0], self.kind)
        self._task: Callable | None = None
        self._results: collections.deque = collections.deque()
        #: The memory budget (``budget.Budget``) that bounds each partition, if any.
        self.budget = None

    def where(self, chunk: FileChunk, i: int) -> str:
        place = chunk.first + i if chunk.lines is None else int(chunk.lines[i])
        return f"row {chunk.start + i + 1}, {self._in_file(chunk.path, place)}"

    def _in_file(self, path: str, place: int) -> str:
        """Where line ``place`` of a CSV file, or row ``place`` of a Parquet file, is."""
        return f"{'line' if self.kind == 'csv' else 'row'} {place} of {path}"

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
        for path, rows, columns, first, lines in self._computed(size):
            self._results.append(columns)
            inputs = {name: columns[name] for name in self.names}
            yield FileChunk(inputs, start, lines, path, first)
            start += rows

    def _computed(self, size: int) -> Iterator:
        """``(path, rows, output columns, first, lines)`` of each partition that has rows,
        in order (``FileChunk`` says what ``first`` and ``lines`` are).

        An error is placed in its file here: the partitions before it have come back, so
        where the failing one starts in its file (its line, or row) is known.
        """
        held = self._rows_held()
        block = self._block_bytes(min(size, held))
        paths: collections.deque = collections.deque()
        # Of each file: the lines (a CSV file's header is one) or rows of its partitions
        # come back so far.
        before = collections.Counter()

        def submitted():
            for path in self.files:
                before[path] = 1 if self.kind == "csv" else 0
                for part in self._parts(path, block, held):
                    paths.append(path)
                    yield part

        results = distributed.in_order(submitted(), self.executor.in_flight())
        start = 0
        while True:
            try:
                rows, columns, found, read, lines = next(results)
            except StopIteration:
                return
            except GradcliError as error:
                if getattr(error, "row", None) is None and getattr(error, "line", None) is None:
                    raise  # not of one row or line (a file's columns, its row groups)
                path = paths[0]
                raise self._placed(error, path, before[path], start) from None
            except ValueError as error:  # Dask's reader: a Parquet file it cannot read
                raise GradcliError(_unreadable(paths[0], error)) from None
            learned(self._task, found)  # the notes of the worker's copy of the task
            path = paths.popleft()
            if rows:
                lines = None if lines is None else lines + before[path]
                yield path, rows, columns, before[path] + 1, lines
            before[path] += read
            start += rows

    def _parts(self, path: str, block: int | None, held: int) -> Iterator:
        """The futures of ``path``'s partitions, each read and computed by a worker
        ``held`` rows at a time: a CSV file's ranges of ``block`` bytes, a Parquet
        file's row groups."""
        import dask
        import dask.dataframe

        client = self.executor.client
        if self.kind == "parquet":
            self._check_row_groups(path, held)
            try:
                # A partition a row group, never several joined: each is checked above.
                frame = dask.dataframe.read_parquet(path, split_row_groups=True)
            except (ValueError, OSError) as error:
                raise GradcliError(_unreadable(path, error)) from None
            self._check_columns(path, list(frame.columns))
            compute = dask.delayed(_compute_partition, pure=False)
            for partition in frame.to_delayed():
                yield client.compute(compute(self._task, partition, held))
            return
        names, delimiter, begin, end = _csv_layout(path)
        self._check_columns(path, names)
        cap = MAX_TEXT_BYTES if self.budget is None else self.budget.longest_line
        for start in range(begin, end, block):
            stop = min(start + block, end)
            yield client.submit(
                _compute_part, self._task, path, start, stop, names, delimiter, cap, held,
                pure=False,
            )  # fmt: skip

    def _check_columns(self, path: str, names: list[str]) -> None:
        if names != self.names:
            raise GradcliError(
                f"{path} has the columns {', '.join(names)}, but "
                f"{self.files[0]} has {', '.join(self.names)}"
            )

    def _placed(self, error: GradcliError, path: str, before: int, start: int) -> GradcliError:
        """A partition's error placed in its file: a line a CSV part refused (its ``line``
        counted from the part's first), or a row (its ``row`` in the chunk computed, and,
        of a CSV part, ``line`` and ``part_row``, its row in the part)."""
        row, line = getattr(error, "row", None), getattr(error, "line", None)
        if row is None:
            return GradcliError(f"{path} line {before + line}: {error.why}")
        if line is not None:
            where = f"row {start + error.part_row + 1}, line {before + line} of {path}"
        else:
            where = self._in_file(path, before + row + 1)
        error.message = placed(error.message, row, where)  # its place in the program kept
        return error

    def _rows_held(self) -> int:
        """The rows of a partition the budget allows, by the cost of the first rows of the
        first file, measured here (as a run in one process measures them)."""
        if self.budget is None:
            return 2**62

        with open_points(self.files[0]) as reader:
            if hasattr(reader, "line_cap"):
                reader.line_cap = self.budget.longest_line
            try:
                first = next(iter(reader.chunks(PROBE_ROWS)), None)
            except GradcliError:  # a bad first row: the workers say where, as they read it
                first = None
            if first is not None:
                measured(self.budget, self._task, first, reader.where)
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
    if kind == "csv":
        return _csv_layout(path)[0]
    import pyarrow.parquet

    try:
        with pyarrow.parquet.ParquetFile(path) as file:
            return list(file.schema_arrow.names)
    except (OSError, ValueError) as error:
        raise GradcliError(_unreadable(path, error)) from None


def _csv_layout(path: str) -> tuple[list[str], str, int, int]:
    """A CSV file's columns and delimiter, read from its header as a run in one process
    reads them, where its rows begin and where they end (its size), in bytes."""
    with CsvReader(path, skip_bad_rows=False) as reader:
        return reader.names, reader.delimiter, reader.stream.tell(), reader.size


def _compute_part(
    task: Callable, path, start: int, stop: int, header, delimiter: str, line_cap: int, rows: int
) -> tuple:
    """In a worker: the rows of the CSV file ``path`` on the lines that start in bytes
    ``start`` to ``stop``, read and computed ``rows`` at a time (what the memory budget
    allows): ``(rows, output columns, what the task learned, lines read, each row's line
    counted from the part's first)``, the last None when the rows are lines 1, 2, ...
    and the output None when there are no rows (the part is within a line)."""
    parts, lines, found, count = [], [], {}, 0
    with CsvPart(path, start, stop, header, delimiter, line_cap) as reader:
        for chunk in reader.chunks(rows):
            try:
                arrays, found = computed(task, chunk.columns)
            except GradcliError as error:
                if getattr(error, "row", None) is not None:
                    error.line, error.part_row = int(chunk.lines[error.row]), count + error.row
                raise
            parts.append(columns_from_arrays(arrays))
            lines.append(chunk.lines)
            count += len(chunk)
        read = reader.line
    if not parts:
        return 0, None, found, read, None
    every = np.concatenate(lines)
    every = None if every[0] == 1 and every[-1] == count else every
    if len(parts) == 1:
        return count, parts[0], found, read, every
    return count, {n: np.concatenate([p[n] for p in parts]) for n in parts[0]}, found, read, every


def _compute_partition(task: Callable, frame, rows: int | None = None) -> tuple:
    """In a worker: a Parquet partition's rows through ``task``, ``rows`` at a time (what
    the memory budget allows): as ``_compute_part`` says, its rows read one each."""
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
        parts.append(columns_from_arrays(arrays))
    if len(parts) == 1:
        return size, parts[0], found, size, None
    joined = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    return size, joined, found, size, None


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
    """The message for a file Dask's reader failed on."""
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
        pq.write_table(pa.table(real_and_imaginary(columns)), target)
        self.parts += 1

    def _finish(self):
        self.parts_directory.commit()

    def abort(self) -> None:
        self.parts_directory.discard()
