"""``--over NAME=VALUES``, repeated: the grid of every combination of the values,
read like a file of points, a chunk at a time, without ever holding the whole
grid. The first ``--over`` varies slowest, as in ``itertools.product``.
"""

from __future__ import annotations

import numpy as np

from ...errors import GradcliError
from ..bindings import DEFAULT_OVER_COUNT, Over
from .source import Chunk, Reader

#: The most points a grid may have: beyond, a typo (a count of 10**9) rather
#: than a run anyone waits for.
MAX_GRID_POINTS = 10**9


class _Range:
    """The values of ``NAME=A:B:N``, as ``numpy.linspace`` gives them, to the last bit,
    computed only at the indices asked for."""

    def __init__(self, over: Over):
        self.count = over.count or DEFAULT_OVER_COUNT
        self.start, self.stop = over.start, over.stop
        self.step = (over.stop - over.start) / (self.count - 1)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):
        values = np.asarray(i, dtype=np.float64) * self.step + self.start
        return np.where(np.asarray(i) == self.count - 1, self.stop, values)


class GridReader(Reader):
    """The rows of the grid of ``overs``."""

    def __init__(self, overs: list[Over]):
        self.path = "the grid of --over"
        self.names = [over.name for over in overs]
        repeated = [n for i, n in enumerate(self.names) if n in self.names[:i]]
        if repeated:
            raise GradcliError(f"--over {repeated[0]} is given twice")
        # A range's values are computed a chunk at a time, never all at once.
        self.axes = [_Range(over) if over.points is None else over.values() for over in overs]
        self.shape = tuple(len(axis) for axis in self.axes)
        self.total = int(np.prod(self.shape, dtype=object))
        if self.total > MAX_GRID_POINTS:
            sizes = " x ".join(map(str, self.shape))
            raise GradcliError(f"--over: the grid has {sizes} points, more than {MAX_GRID_POINTS}")

    def chunks(self, size: int):
        for start in range(0, self.total, size):
            rows = np.arange(start, min(start + size, self.total))
            indices = np.unravel_index(rows, self.shape)
            yield Chunk({n: a[i] for n, a, i in zip(self.names, self.axes, indices)}, start)

    def where(self, chunk: Chunk, i: int) -> str:
        row = chunk.start + i
        indices = np.unravel_index(row, self.shape)
        values = ", ".join(f"{n}={a[i]:.17g}" for n, a, i in zip(self.names, self.axes, indices))
        return f"point {row + 1} of the grid ({values})"
