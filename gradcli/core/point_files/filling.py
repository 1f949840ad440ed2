"""A chunk's columns filled a piece at a time, as a text file is parsed."""

from __future__ import annotations

import numpy as np

from .source import Chunk


class Filling:
    """A chunk's columns, lines and kept columns, filled a parsed piece at a time; its
    arrays grow by doubling up to the chunk's rows, so a short file takes no more."""

    def __init__(self, size: int):
        self.size = size
        self._reset()

    def _reset(self) -> None:
        self.rows = 0
        self._more = 0
        self.columns: dict[str, np.ndarray] = {}
        self.kept: dict[str, np.ndarray] = {}
        self.lines = np.empty(0, dtype=np.int64)

    @property
    def full(self) -> bool:
        return self.rows == self.size

    def add(self, columns: dict, lines: np.ndarray, kept: dict, at: int, more: int = 0) -> int:
        """Rows from ``at`` of a parsed piece, as many as the chunk has room for; how many.
        ``more``: the rows expected after these (a guess), for which room is made at once
        rather than by doubling (each doubling copies what is filled)."""
        self._more = more
        taken = min(len(lines) - at, self.size - self.rows)
        stop = self.rows + taken
        self.lines = self._put(self.lines, lines[at : at + taken], stop)
        for into, parts in ((self.columns, columns), (self.kept, kept)):
            for name, part in parts.items():
                into[name] = self._put(into.get(name), part[at : at + taken], stop)
        self.rows = stop
        return taken

    def _put(self, array: np.ndarray | None, part: np.ndarray, stop: int) -> np.ndarray:
        begun = stop - len(part)
        kind = part.dtype if array is None else np.result_type(array.dtype, part.dtype)
        if array is None or len(array) < stop or array.dtype != kind:
            grown_to = max(stop + self._more, 2 * (0 if array is None else len(array)))
            room = min(self.size, grown_to)
            grown = np.empty(room, dtype=kind)
            if array is not None:
                grown[:begun] = array[:begun]
            array = grown
        array[begun:stop] = part
        return array

    def chunk(self, start: int) -> Chunk:
        """The rows filled, as a chunk of their own; the filling starts again empty."""
        rows = self.rows
        chunk = Chunk(
            {n: a[:rows] for n, a in self.columns.items()},
            start,
            self.lines[:rows],
            {n: a[:rows] for n, a in self.kept.items()},
        )
        self._reset()
        return chunk
