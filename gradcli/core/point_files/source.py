"""What every source of rows gives: ``Chunk``s, and the ``Reader`` interface
(``readers`` has the files of ``--points``, ``grid`` the grid of ``--over``)."""

from __future__ import annotations

import numpy as np

from ...record import Record

#: Rows per chunk unless ``--chunk-size`` says otherwise: a few megabytes of
#: columns, enough that the per-chunk overhead is lost in the arithmetic.
DEFAULT_CHUNK_SIZE = 100_000


class JsonText(str):
    """A kept JSON value that is not a string (``7``, ``null``, ``[1, 2]``), as its JSON
    text: JSON lines write it as it is, the other formats as text."""


class Chunk(Record):
    """Consecutive rows: ``columns`` by name, the batch axis first; ``start``, the
    index of the first row in the whole input (from 0); ``lines``, each row's line
    in a text file (None for binary formats); ``kept``, the columns that bind no input
    and are copied to the output as they are (text, or numbers), by name."""

    columns: dict
    start: int
    lines: object = None
    kept: object = None

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0


class Reader:
    """What the readers share (see ``readers``): the context manager, ``where``, the
    progress by rows, no skipped rows.

    ``header`` is every column of the input, in order; ``names`` those that bind
    inputs and ``kept`` those copied to the output, all of ``header`` until
    ``select`` says which are which (a file's other columns are not read)."""

    path: str
    names: list[str]
    total: int | None = None
    kept: tuple[str, ...] = ()

    @property
    def header(self) -> list[str]:
        return getattr(self, "_header", None) or self.names

    def select(self, inputs, kept=()) -> None:
        """Read the columns ``inputs`` as the inputs' numbers, ``kept`` to copy."""
        self._header = list(self.header)
        self.names = list(inputs)
        self.kept = tuple(kept)

    @property
    def skipped(self) -> list[tuple[int, str]]:
        """The first bad rows passed over, ``(line, why)``; ``skipped_count`` counts all."""
        return []

    @property
    def skipped_count(self) -> int:
        return 0

    @property
    def numbers_per_row(self) -> int:
        """How many numbers one row holds (one per column unless a reader knows better)."""
        return len(self.names) + len(self.kept)

    def where(self, chunk: Chunk, i: int) -> str:
        return f"row {chunk.start + i + 1} of {self.path}"

    @property
    def extent(self) -> int | None:
        """How much there is to read, in the unit of ``done``."""
        return self.total

    def done(self, rows: int) -> int | None:
        return rows

    def empty_chunk(self) -> Chunk:
        """No rows, under the reader's column names."""
        kept = {name: np.zeros(0, dtype=object) for name in self.kept}
        return Chunk({name: np.zeros(0) for name in self.names}, 0, kept=kept)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
