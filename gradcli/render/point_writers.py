"""The writers of a many-point run's text formats, JSON lines (``--format json``,
``--output FILE.jsonl``) and the table (``--format table``), on the writer of
``gradcli.core.point_files.writers``: they render the rows they are given, the core
writes the files of arrays and numbers (CSV, Parquet, ``.npz``).
"""

from __future__ import annotations

import collections

import numpy as np

from ..core.point_files.source import JsonText
from ..core.point_files.writers import Writer
from .jsontext import encode, string
from .numbers import format_number

#: Rows shown at each end by ``--format table``.
TABLE_EDGE_ROWS = 5


class JsonLinesWriter(Writer):
    """One object per point: ``{"x": 0.5, "value": 0.25, "grad.x": 1}`` (nan, inf and
    -inf as strings, as ``--format json`` writes them)."""

    def __init__(self, stream, precision: int | None, path: str | None = None):
        super().__init__(path)
        self.stream = self.output.open("w", encoding="utf-8") if path is not None else stream
        self.precision = precision

    def _write(self, columns):
        names = (string(n).replace("{", "{{").replace("}", "}}") for n in columns)
        template = "{{" + ", ".join(f"{n}: {{}}" for n in names) + "}}\n"
        texts = [_json_numbers(c, self.precision) for c in columns.values()]
        self.stream.write("".join(template.format(*row) for row in zip(*texts)))

    def _finish(self):
        self.stream.flush()


def _json_numbers(column: np.ndarray, precision: int | None) -> list[str]:
    column = np.asarray(column)
    if column.dtype.kind in "OU":  # a kept column of text (JSON's own values as they were)
        return [
            "null" if t is None else t if isinstance(t, JsonText) else string(str(t))
            for t in column.tolist()
        ]
    if column.dtype.kind == "b":
        return ["true" if t else "false" for t in column.tolist()]
    if column.dtype.kind == "c":  # {"real": re, "imag": im}, as --format json of one point
        return [encode(x, precision) for x in column]
    if precision is None and column.dtype == np.float64:
        texts = [t[:-2] if t.endswith(".0") else t for t in map(repr, column.tolist())]
    else:
        texts = [format_number(x, precision) for x in column]
    if column.dtype.kind == "f" and not np.isfinite(column).all():
        texts = [f'"{t}"' if t in ("nan", "inf", "-inf") else t for t in texts]
    return texts


class TableWriter(Writer):
    """The first and last ``TABLE_EDGE_ROWS`` rows and the count, drawn at the end."""

    def __init__(self, stream, precision: int | None):
        super().__init__()
        self.stream = stream
        self.precision = precision
        self.names: list[str] = []
        self.head: list[list] = []
        self.tail: collections.deque = collections.deque(maxlen=TABLE_EDGE_ROWS)

    def _write(self, columns):
        self.names = list(columns)
        arrays = [np.asarray(c) for c in columns.values()]
        # Text, booleans and complex numbers stay as they are: a column of one is not
        # made the others' type.
        if any(a.dtype.kind in "bOUc" for a in arrays):
            rows = np.empty((len(arrays[0]), len(arrays)), dtype=object)
            for i, a in enumerate(arrays):
                rows[:, i] = a
        else:
            rows = np.column_stack(arrays)
        wanted = TABLE_EDGE_ROWS - len(self.head)
        self.head.extend(rows[:wanted])
        self.tail.extend(rows[-TABLE_EDGE_ROWS:])

    def _finish(self):
        from .points import render_points_table  # Rich, for a table only

        render_points_table(
            self.names, self.head, list(self.tail), self.rows, self.stream, self.precision
        )
