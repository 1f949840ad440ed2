"""Tables of what a solution of minimize or solve carries beside its point: the
derivative of the solution with respect to the other inputs (``--sensitivity``).
They only lay out a report."""

from __future__ import annotations

import numpy as np
from rich.text import Text

from .numbers import format_number
from .reports import new_table, stacked, table_width
from .terminal import shown_text


def sensitivity_table(report, console, precision: int) -> None:
    """``d(solution)/d(input)``: a row per entry of the solution, a column per entry of
    the inputs it depends on (a row at a time when too wide for the terminal)."""
    if report.sensitivity is None:
        return
    shown = lambda text: shown_text(text, console.encoding)  # noqa: E731
    rows, labels, columns = [], [], []
    for x, by in report.sensitivity.items():
        blocks = list(by.values())
        x_shape = np.shape(report.point[x])
        if not columns:
            for p, block in by.items():
                columns += _labels(p, np.shape(block)[len(x_shape) :])
        width = int(np.prod(x_shape, dtype=int))
        matrix = np.concatenate([np.reshape(b, (width, -1)) for b in blocks], 1) + 0.0
        labels += _labels(x, x_shape)
        rows += [[format_number(v, precision) for v in row] for row in matrix]
    labels, columns = list(map(shown, labels)), list(map(shown, columns))
    heading = Text("d(solution)/d(input)", style="bold")
    if table_width(labels, columns, rows) > console.width:
        console.print(heading)
        stacked(console, labels, columns, rows)
        return
    table = new_table(console, "", *columns)
    for label, row in zip(labels, rows):
        table.add_row(label, *row)
    console.print(heading, table)


def _labels(name: str, shape) -> list[str]:
    """``x`` for a scalar, else one label per entry in row-major order, as the rows of
    the assembled Hessian are named (``core.assembled.entry_labels``)."""
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*shape)]
