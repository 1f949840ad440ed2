"""Chunks computed by Dask: on this machine (``--dask``) or a running cluster (``--scheduler``).

The chunk loop does not care where a chunk is computed: ``DaskExecutor.map``
is the executor of ``gradcli.batch.run`` with each chunk a Dask task calling
the ``PointsTask``, so the library runs inside the workers (each computation
owns its dtype and random numbers, so a worker gives what this process gives).
At most a few chunks per worker are in flight, and results come back in the
order of the chunks, for the client to write in order.

CSV and Parquet inputs (a file, a directory of files or a glob) are read by
Dask's own readers, one file after another in sorted order, so the workers
read the partitions themselves; ``DaskExecutor.map_files`` computes each
partition where it was read and brings back its output columns in order. With
Parquet output, each worker instead writes its partition's part file
(``part.000000.parquet``, ...) into the output directory.

Dask is an optional extra, imported only here: ``pip install 'gradcli[dask]'``.
"""

from __future__ import annotations

import collections
import contextlib
import glob
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import GradcliError

INSTALL = "pip install 'gradcli[dask]'"
# Chunks in flight per worker thread: enough to keep each busy while the client
# writes, few enough that memory stays a few chunks per worker.
IN_FLIGHT_PER_THREAD = 2
DASK_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def require_dask(option: str = "--dask") -> None:
    """Raise a clear error, with the install command, when Dask is missing."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as error:
        missing = error.name or "dask"
        raise GradcliError(
            f"{option} needs Dask, which is not installed ({missing} is missing): {INSTALL}"
        ) from None


@contextlib.contextmanager
def dask_executor(scheduler: str | None = None, workers: int | None = None):
    """A ``DaskExecutor`` on a running cluster at ``scheduler``, or on a new
    ``LocalCluster`` of ``workers`` processes (default: one per core) that ends
    with the block."""
    require_dask("--scheduler" if scheduler else "--dask")
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler:
            try:
                client = stack.enter_context(Client(scheduler, timeout="10s"))
            except (OSError, TimeoutError, ValueError) as error:
                raise GradcliError(
                    f"cannot reach the Dask scheduler at {scheduler}: {error}"
                ) from None
        else:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.CRITICAL,
                )
            )
            client = stack.enter_context(Client(cluster))
        yield DaskExecutor(client)


class DaskExecutor:
    """Computes chunks as Dask tasks on ``client``'s cluster, results in order."""

    def __init__(self, client):
        self.client = client

    def in_flight(self) -> int:
        threads = sum(self.client.nthreads().values()) or 1
        return IN_FLIGHT_PER_THREAD * threads

    def map(self, task: Callable, chunks: Iterable[Mapping[str, np.ndarray]]) -> Iterator:
        """``task(chunk)`` for each chunk, computed by the workers, yielded in order."""
        futures = (self.client.submit(task, chunk, pure=False) for chunk in chunks)
        return _in_order(futures, self.in_flight())

    def map_files(
        self, task: Callable, source: str, part_directory: str | None = None
    ) -> Iterator[Part]:
        """Each partition of the CSV or Parquet files ``source`` names, read and
        computed by a worker, as ``Part``s in file and row order.

        With ``part_directory``, each worker writes its part's output there as a
        Parquet file and the ``Part`` carries no columns.
        """
        import dask

        compute = dask.delayed(_compute_partition, pure=False)
        submitted = (
            (path, self.client.compute(compute(task, path, frame, number, part_directory)))
            for number, (path, frame) in enumerate(_partitions(source))
        )
        return _with_lines(_in_order(_paired(submitted), self.in_flight()))


@dataclass(frozen=True)
class Part:
    """What one partition gave: its file, its rows, and its output columns (or none
    when a worker wrote them as a part file)."""

    path: str
    rows: int
    columns: dict[str, np.ndarray] | None


def _in_order(futures: Iterator, limit: int) -> Iterator:
    """The futures' results in order, with at most ``limit`` submitted and not yet taken."""
    pending = collections.deque()
    try:
        for future in futures:
            pending.append(future)
            if len(pending) >= limit:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:  # an error or an early stop: drop what is still queued
            future.cancel()


class _Paired:
    """A future with the file its partition comes from; ``result()`` gives both."""

    def __init__(self, path: str, future):
        self.path, self.future = path, future

    def result(self):
        try:
            return self.path, self.future.result()
        except (ValueError, GradcliError) as error:
            error.path = self.path
            raise

    def cancel(self):
        self.future.cancel()


def _paired(submitted) -> Iterator[_Paired]:
    return (_Paired(path, future) for path, future in submitted)


def _with_lines(results: Iterator) -> Iterator[Part]:
    """The parts, and any error of a row told with its file and line.

    The rows of a file's earlier partitions have come back before a later one
    fails, so the client knows where in the file the failing partition starts.
    """
    rows_before = collections.Counter()
    try:
        for path, part in results:
            rows_before[path] += part.rows
            yield part
    except GradcliError as error:
        path = getattr(error, "path", None)
        row = getattr(error, "row", None)
        if path is None or row is None:
            raise
        place = _place(path, rows_before[path] + row)
        raise GradcliError(f"{place}: {error.message}") from None
    except ValueError as error:  # from Dask's reader: a field or a line it could not parse
        path = getattr(error, "path", None)
        if path is None:
            raise
        raise GradcliError(_unreadable(path, error)) from None


def _place(path: str, row: int) -> str:
    """Where row ``row`` (0-based, of the file's data) is: a CSV line counts the header."""
    if dask_format(path) == "csv":
        return f"{path}, line {row + 2}"
    return f"{path}, row {row}"


def dask_format(source: str) -> str | None:
    """ "csv" or "parquet" when Dask's readers read ``source`` (a file, a directory
    or a glob of such files), else None."""
    if os.path.isdir(source):
        kinds = {DASK_FORMATS.get(os.path.splitext(name)[1].lower()) for name in os.listdir(source)}
        kinds.discard(None)
        return kinds.pop() if len(kinds) == 1 else None
    return DASK_FORMATS.get(os.path.splitext(source)[1].lower())


def source_files(source: str) -> list[str]:
    """The files ``source`` names, sorted: itself, a directory's CSV or Parquet files, or a glob."""
    if os.path.isdir(source):
        kind = dask_format(source)
        names = sorted(
            os.path.join(source, name)
            for name in os.listdir(source)
            if DASK_FORMATS.get(os.path.splitext(name)[1].lower()) == kind
        )
    elif glob.has_magic(source):
        names = sorted(glob.glob(source))
    else:
        names = [source] if os.path.exists(source) else []
    if not names:
        raise GradcliError(f"--points {source}: no such file")
    return names


def _partitions(source: str) -> Iterator:
    """(path, partition) pairs: each file's Dask partitions, file after file."""
    import dask.dataframe as dd

    for path in source_files(source):
        try:  # Dask reads a sample of the file here, to learn its columns
            if dask_format(path) == "csv":
                frame = dd.read_csv(path, blocksize=_CSV_BLOCK_BYTES, dtype=np.float64)
            else:
                frame = dd.read_parquet(path)
        except ValueError as error:
            raise GradcliError(_unreadable(path, error)) from None
        for partition in frame.to_delayed():
            yield path, partition


# About 10^5 rows of a few numbers each: partitions of the size of the chunk loop's chunks.
_CSV_BLOCK_BYTES = 4 * 2**20


def _compute_partition(task, path: str, frame, number: int, part_directory: str | None) -> Part:
    """In a worker: the partition's columns as float arrays, through ``task``."""
    chunk = {name: _numbers(frame[name]) for name in frame.columns}
    columns = task(chunk)
    if part_directory is None:
        return Part(path, len(frame), columns)
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = os.path.join(part_directory, f"part.{number:06d}.parquet")
    pq.write_table(pa.table(columns), target)
    return Part(path, len(frame), None)


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
            f"column {column.name!r} has a field that is not a number: {column.iloc[row]!r}"
        )
        error.row = row
        raise error from None


def _unreadable(path: str, error: ValueError) -> str:
    """The message for a CSV file Dask's reader failed on: its first bad line, found here."""
    if dask_format(path) != "csv":
        return f"{path}: {error}"
    import csv

    with open(path, newline="") as lines:
        rows = csv.reader(lines)
        header = next(rows, [])
        for line, fields in enumerate(rows, start=2):
            if len(fields) != len(header):
                return (
                    f"{path}, line {line}: {len(fields)} fields where the header has {len(header)}"
                )
            for name, field in zip(header, fields):
                try:
                    float(field)
                except ValueError:
                    return f"{path}, line {line}: {name} is not a number: {field!r}"
    return f"{path}: {error}"
