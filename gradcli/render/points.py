"""``--format table`` of a many-point run: the first and last rows, under the
column names plain output gives the numbers, and the count of rows. The rows
come from ``gradcli.render.point_writers.TableWriter``; this only lays them out.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .numbers import format_number
from .reports import stacked, table_width
from .table import DEFAULT_PRECISION
from .terminal import MIN_WIDTH, shown_text


def render_points_table(names, head, tail, count: int, stream, precision=None) -> None:
    """``head`` and ``tail``: the first and last rows (sequences of numbers, or text);
    between them a row of ``…`` when some rows are not shown."""
    console = Console(file=stream, highlight=False)
    if console.width < MIN_WIDTH:
        console.width = 80 if console.width <= 0 else MIN_WIDTH
    unicode = console.encoding.lower().startswith("utf")
    precision = DEFAULT_PRECISION if precision is None else precision
    names = [shown_text(name, console.encoding) for name in names]
    shown_tail = tail[max(0, len(head) + len(tail) - count) :]
    numbered = [*enumerate(head, 1), *enumerate(shown_tail, count - len(shown_tail) + 1)]
    labels = [str(i) for i, _ in numbered]
    cells = [[_cell(x, precision, console) for x in row] for _, row in numbered]
    cut = len(head) + len(shown_tail) < count
    ellipsis = "…" if unicode else "..."
    if table_width(["row", *labels], names, cells) > console.width:
        # Cut cells (1.64…) would hide the numbers: a row at a time, each entry named.
        stacked(console, [f"row {i}" for i in labels[: len(head)]], names, cells[: len(head)])
        if cut:
            console.print(ellipsis)
        stacked(console, [f"row {i}" for i in labels[len(head) :]], names, cells[len(head) :])
    else:
        table = Table(box=box.ROUNDED, safe_box=not unicode)
        table.add_column(Text("row"), style="dim", justify="right", no_wrap=True)
        for name in names:
            table.add_column(Text(name), justify="right", no_wrap=True)
        for i, (label, row) in enumerate(zip(labels, cells)):
            if cut and i == len(head):
                table.add_row(*(Text(ellipsis) for _ in range(len(names) + 1)))
            table.add_row(Text(label), *map(Text, row))
        if cut and not shown_tail:
            table.add_row(*(Text(ellipsis) for _ in range(len(names) + 1)))
        console.print(table)
    console.print(Text(f"{count} row{'s' if count != 1 else ''}", style="dim"))


def _cell(x, precision: int, console) -> str:
    """A number, or the text of a column an input file's rows keep (``id``), as it is."""
    if x is None:
        return ""
    if isinstance(x, str):
        return shown_text(x, console.encoding)
    return format_number(x, precision)
