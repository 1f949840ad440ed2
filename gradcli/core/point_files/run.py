"""The chunk loop of a many-point run: reader -> task -> writer, in order.

Where a chunk is computed is the executor's business: an object with one method,
``map(task, chunks)``, which yields the results in the order of the chunks.
``InProcess`` computes them here, one after the other; a Dask executor computes
them on a cluster, with a copy of the task in each worker: what a copy learns
there (its ``learns``: the notes) comes back with its result (``computed``,
``learned``). The loop writes each result as it comes, so memory holds a
few chunks whatever the input's length, and accounts for the rows: how many,
which were non-finite (a warning names each of the first ``SHOWN_WARNINGS``),
which were skipped as bad.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ...errors import GradcliError
from ...record import Record
from .columns import column_name, parse_column
from .source import DEFAULT_CHUNK_SIZE, Chunk

#: Warnings about single rows shown before the rest are only counted.
SHOWN_WARNINGS = 10


class InProcess:
    """Computes each chunk in this process, in order."""

    def map(self, task: Callable, chunks: Iterable) -> Iterator:
        return map(task, chunks)


def computed(task: Callable, chunk) -> tuple:
    """``task(chunk)`` computed on a copy of ``task`` (in a worker), with what the copy
    learned there: the attributes it names in ``learns`` (its notes, said once by the
    caller after the run), which the caller's own task would never hold."""
    arrays = task(chunk)
    return arrays, {name: getattr(task, name) for name in getattr(task, "learns", ())}


def learned(task: Callable, found: dict) -> None:
    """What a copy of ``task`` learned (``computed``), kept where ``task`` has it not yet:
    the first chunk's, as a chunk computed here would have left them."""
    for name, value in found.items():
        if getattr(task, name) is None:
            setattr(task, name, value)


class Summary(Record):
    """What a run did: ``rows`` written in ``seconds``; ``nonfinite``, how many rows
    had a nan or infinite result; ``skipped``, the bad rows passed over
    (``(line, why)``)."""

    rows: int
    seconds: float
    nonfinite: int
    skipped: tuple = ()
    skipped_count: int = 0


def run(
    reader,
    task: Callable,
    writer,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    executor=None,
    progress=None,
    warn: Callable[[str], None] = lambda message: None,
    budget=None,
) -> Summary:
    """Every chunk of ``reader`` through ``task`` into ``writer``; ``warn`` says which
    rows are non-finite. The writer is closed at the end, or aborted on an error.
    ``budget`` (``budget.Budget``): the memory a chunk may take, which the first rows'
    cost, measured, divides into rows (a chunk read is computed in parts that fit)."""
    executor = executor or InProcess()
    started = time.perf_counter()
    pending: collections.deque[Chunk] = collections.deque()  # chunks sent, not yet written

    # A chunk written is held by no name here (nor by the readers) when the next is read
    # and computed: memory holds one chunk's arrays, not two.
    def sent(chunks: Iterable[Chunk]) -> Iterator[dict]:
        for chunk in chunks:
            for part in _parts(reader, task, chunk, budget):
                pending.append(part)
                yield part.columns
            part = chunk = None

    nonfinite = 0
    keeps = getattr(writer, "keeps_columns", True) and bool(reader.kept)
    try:
        for arrays in executor.map(task, sent(_at_least_one(reader, chunk_size))):
            chunk = pending.popleft()
            writer.write(with_kept(reader, chunk.kept, arrays, writer.rows) if keeps else arrays)
            nonfinite += _warn_nonfinite(reader, chunk, arrays, nonfinite, warn)
            arrays = chunk = None
            if progress is not None:
                progress.update(writer.rows, reader.done(writer.rows))
    except GradcliError as error:
        if getattr(error, "row", None) is not None and pending:
            error.message = placed(error.message, error.row, reader.where(pending[0], error.row))
        writer.abort()
        raise
    except BaseException:
        writer.abort()
        raise
    finally:
        if progress is not None:
            progress.close()
    writer.close()
    if nonfinite > SHOWN_WARNINGS:
        warn(f"warning: {nonfinite} rows in all have a nan or infinite result")
    seconds = time.perf_counter() - started
    skipped = tuple(reader.skipped)
    return Summary(writer.rows, seconds, nonfinite, skipped, reader.skipped_count or len(skipped))


def with_kept(reader, kept, arrays: dict, before: int = 0) -> dict:
    """A chunk's results with its ``kept`` columns: the reader's columns in their order
    (an input of several columns where its first is), then the results. ``before``: the
    rows written so far (at 0 a kept column named like a result is refused)."""
    if not kept:
        return arrays
    if before == 0:
        clash = [n for n in kept if n in arrays or n in _flat_names(arrays)]
        if clash:
            raise GradcliError(
                f"column {clash[0]} of {reader.path} is named like a result: name the columns "
                "to copy with --keep (--keep '' copies none)"
            )
    merged: dict = {}
    for name in reader.header:
        if name in kept:
            merged[name] = kept[name]
            continue
        base = parse_column(name)[0] if _names_an_input(name) else None
        if base in arrays and base not in merged:
            merged[base] = arrays[base]
    merged.update((n, a) for n, a in arrays.items() if n not in merged)
    return merged


def _names_an_input(name: str) -> bool:
    try:
        parse_column(name)
    except GradcliError:
        return False
    return True


def _flat_names(arrays: dict) -> set[str]:
    return {
        column_name(n, index)
        for n, a in arrays.items()
        if np.ndim(a) > 1
        for index in np.ndindex(np.shape(a)[1:])
    }


def _parts(reader, task, chunk: Chunk, budget) -> Iterator[Chunk]:
    """``chunk`` in parts of the rows ``budget`` allows, measured on its first rows
    when it is the first chunk."""
    if budget is None or not len(chunk):
        yield chunk
        return
    if budget.row_bytes is None:
        measured(budget, task, chunk, reader.where)
        if hasattr(task, "chunk_limit"):
            task.chunk_limit = max(1, budget.free // 8)
    size = budget.rows_computed(len(chunk))
    if size >= len(chunk):
        yield chunk
        return
    for at in range(0, len(chunk), size):
        yield part_of(chunk, at, at + size)


def measured(budget, task, chunk: Chunk, where) -> None:
    """``budget.measure`` of ``task`` on ``chunk``'s first rows; an error of one of them
    placed in the input (``where(chunk, i)`` says where row i is)."""
    try:
        budget.measure(task, chunk.columns, lambda i: where(chunk, i))
    except GradcliError as error:
        if getattr(error, "row", None) is not None:
            error.message = placed(error.message, error.row, where(chunk, error.row))
        raise


def part_of(chunk: Chunk, start: int, stop: int) -> Chunk:
    """Rows ``start`` to ``stop`` of ``chunk``, a chunk of their own."""
    rows = slice(start, stop)
    return type(chunk)(
        {name: column[rows] for name, column in chunk.columns.items()},
        chunk.start + start,
        None if chunk.lines is None else chunk.lines[rows],
        None if chunk.kept is None else {name: c[rows] for name, c in chunk.kept.items()},
    )


def _at_least_one(reader, chunk_size: int) -> Iterator[Chunk]:
    """The reader's chunks; one of no rows when it has none, for the task still
    names the columns (a CSV output gets its header)."""
    empty = True
    for chunk in reader.chunks(chunk_size):
        empty = False
        yield chunk
        chunk = None
    if empty:
        yield reader.empty_chunk()


def _warn_nonfinite(reader, chunk: Chunk, arrays: dict, before: int, warn) -> int:
    """Warn of the rows of ``chunk`` with a non-finite result; their count. One pass
    over each result array (its sum is finite only if every entry is); only an array
    that has a non-finite entry is looked at row by row."""
    inputs = {parse_column(name)[0] for name in chunk.columns}
    results = {
        n: a for n, a in arrays.items() if parse_column(n)[0] not in inputs and a.dtype.kind == "f"
    }
    bad = np.zeros(len(chunk), dtype=bool)
    flagged = {}
    for name, a in results.items():
        if a.size == 0 or np.isfinite(np.add.reduce(a, axis=None)):
            continue
        rows = ~np.isfinite(a.reshape(len(a), -1)).all(axis=1)
        bad |= rows
        flagged[name] = a
    rows = np.flatnonzero(bad)
    for i in rows[: max(0, SHOWN_WARNINGS - before)]:
        values = ", ".join(
            f"{column_name(n, index)} = {a[i][index]}"
            for n, a in flagged.items()
            for index in np.ndindex(a.shape[1:])
            if not np.isfinite(a[i][index])
        )
        warn(f"warning: {reader.where(chunk, int(i))}: {values}")
    return len(rows)


def placed(message: str, row: int, where: str) -> str:
    """An error of one row, placed in the input rather than in its chunk."""
    chunk_place = f"at point {row}"
    if chunk_place in message:
        return message.replace(chunk_place, f"at {where}")
    return f"{message} (at {where})"
