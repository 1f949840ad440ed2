"""``--format table``: a Rich table, the default on a terminal.

The value first, then one row per result array: its name, its shape and its
numbers as an aligned grid (large arrays summarised with ``...`` as NumPy
does). Rich drops colour by itself under ``NO_COLOR`` and when the output is
not a terminal. Rich is imported here only, so the other formats never load it.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import leaves
from .numbers import format_array, shape_text

DEFAULT_PRECISION = 6


def render(result, stream, precision: int | None = None, console: Console | None = None) -> None:
    console = console or Console(file=stream, highlight=False)
    precision = DEFAULT_PRECISION if precision is None else precision
    rows = list(leaves(result.as_tree()))
    labels = [label(path) for path, _ in rows]
    shapes = [shape_text(array.shape) for _, array in rows]
    # Leave the numbers what the name and shape columns and the borders do not take.
    spare = console.width - max(map(len, labels), default=0) - max(map(len, shapes)) - 10
    table = Table(box=box.ROUNDED)
    table.add_column("", style="bold cyan")
    table.add_column("shape", style="dim")
    table.add_column("value", no_wrap=True, overflow="ellipsis")
    for i, (name, shape, (path, array)) in enumerate(zip(labels, shapes, rows)):
        numbers = format_array(array, precision, line_width=max(spare, 20))
        last_of_group = i + 1 == len(rows) or rows[i + 1][0][0] != path[0]
        table.add_row(name, shape, numbers, end_section=last_of_group)
    # The title above the table, not in it: a long file name must not wrap.
    console.print(Text(result.title, style="bold"), table)


def label(path: tuple[str, ...]) -> str:
    """How a table row names an array of a result tree."""
    match path:
        case ("value",):
            return "f"
        case ("grad" | "jacobian", x):
            return f"∂f/∂{x}"
        case ("hessian", x, y):
            return f"∂²f/∂{x}∂{y}"
        case ("vjp", x):
            return f"vᵀ·∂f/∂{x}"
        case ("jvp",):
            return "∂f·t"
    return ".".join(path)
