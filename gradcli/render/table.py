"""``--format table``: a Rich table, the default on a terminal.

The value first, then one row per result array: its name, its shape and its
numbers as an aligned grid (large arrays summarised with ``...`` as NumPy
does). The listing of functions is a table of its own, grouped by kind. Rich
drops colour by itself under ``NO_COLOR`` and when the output is not a
terminal. Rich is imported here only, so the other formats never load it; a
one-shot result that Rich would draw at its natural width is drawn by ``boxes``
as Rich draws it, without loading Rich (a fifth of the start-up).
"""

from __future__ import annotations

from typing import NamedTuple

from . import boxes, leaves
from .numbers import format_array, shape_text
from .terminal import MIN_WIDTH, label, shown_text

DEFAULT_PRECISION = 6
SHAPE = "shape"


class Layout(NamedTuple):
    """What the table of a result shows, whoever draws it: the title above it, and a
    row per array (its name, shape, numbers and whether a line ends its group);
    ``separate``: the shapes in a column of their own, else under the names."""

    title: str
    separate: bool
    name_width: int
    shape_width: int
    rows: list[tuple[str, str, str, bool]]


def render(result, stream, precision: int | None = None, console=None) -> None:
    precision = DEFAULT_PRECISION if precision is None else precision
    if console is None and result.graph is None and getattr(result, "assembled", None) is None:
        terminal = boxes.terminal(stream)
        if terminal is not None:
            layout = _layout(result, usable_width(terminal.width), terminal.encoding, precision)
            if boxes.draw(layout, stream, terminal):
                return
    console = _console(stream, console)
    layout = _layout(result, console.width, console.encoding, precision)
    # The title above the table, not in it: a long file name must not wrap.
    from rich.text import Text

    console.print(Text(layout.title, style="bold"))
    if result.graph is not None:  # --steps: the reverse pass, then the result
        from .graph import render_steps_table

        render_steps_table(result.graph, console, precision)
    console.print(_rich_table(layout, console.encoding))
    if getattr(result, "assembled", None) is not None:
        from .reports import assembled_table

        # A Jacobian of scalar inputs alone is one row above already (∂f/∂(r, θ)), and
        # so is the Hessian of one scalar input, and the square Jacobian of one vector.
        scalars = all(result.shapes[name] == () for name in result.inputs)
        shown = scalars and (result.command == "jacobian" or len(result.inputs) == 1)
        shown |= (
            result.command == "jacobian"
            and len(result.inputs) == 1
            and (len(result.shapes[result.inputs[0]]) == 1)
        )
        assembled_table(result.assembled, console, precision, matrix=not shown)


def usable_width(width: int) -> int:
    """COLUMNS=0 (an unknown width) would print nothing at all; a tiny terminal gets
    lines it wraps, rather than a table cut to pieces."""
    return (80 if width <= 0 else MIN_WIDTH) if width < MIN_WIDTH else width


def _console(stream, console=None):
    """``console``, or a Rich console on ``stream``; at least ``MIN_WIDTH`` wide."""
    if console is None:
        from rich.console import Console

        console = Console(file=stream, highlight=False)
    if console.width < MIN_WIDTH:
        console.width = usable_width(console.width)
    return console


def _layout(result, width: int, encoding: str, precision: int) -> Layout:
    unicode = encoding.lower().startswith("utf")
    rows = list(leaves(result.as_tree()))
    labels = [shown_text(label(path, unicode), encoding) for path, _ in rows]
    matrix = result.jacobian_matrix if result.command == "jacobian" else None
    if matrix is not None:
        # Scalar inputs: one Jacobian matrix, a row per output entry, a column per input.
        d = "∂" if unicode else "d"
        labels = [labels[0], shown_text(f"{d}f/{d}({', '.join(result.inputs)})", encoding)]
        rows = [rows[0], (("jacobian",), matrix)]
    shapes = [shape_text(array.shape) for _, array in rows]
    # Names and shapes are never cut. The numbers have the rest of the width, less
    # the borders and padding (10 columns); where even one number a line would not
    # fit, the shape goes under the name, which saves its column.
    name_width = max(map(len, labels))
    shape_width = max(len(SHAPE), *map(len, shapes))
    narrowest = max(_narrowest(array, precision) for _, array in rows)
    separate = width >= name_width + shape_width + 10 + narrowest
    if not separate:
        name_width = max(name_width, *map(len, shapes))
    spare = width - name_width - (shape_width + 3 if separate else 0) - 7
    cells = []
    for i, (name, shape, (path, array)) in enumerate(zip(labels, shapes, rows)):
        numbers = format_array(array, precision, line_width=max(spare, narrowest))
        last_of_group = i + 1 == len(rows) or rows[i + 1][0][0] != path[0]
        cells.append((name, shape, numbers, last_of_group))
    title = shown_text(result.title, encoding)
    return Layout(title, separate, name_width, shape_width, cells)


def _rich_table(layout: Layout, encoding: str):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.ROUNDED, safe_box=not encoding.lower().startswith("utf"))
    # Every cell and header is a Text, never markup: "[inf, 1]" is numbers, not a style.
    table.add_column(Text(""), no_wrap=True, min_width=layout.name_width)
    if layout.separate:
        table.add_column(Text(SHAPE), style="dim", no_wrap=True, min_width=layout.shape_width)
    table.add_column(Text("value"), no_wrap=True, overflow="ellipsis")
    for name, shape, numbers, last_of_group in layout.rows:
        name = Text(name, style="bold cyan")
        cells = [name, Text(shape)] if layout.separate else [name.append(f"\n{shape}", style="dim")]
        table.add_row(*cells, Text(numbers), end_section=last_of_group)
    return table


def render_report(report, stream, precision: int | None = None, console=None) -> None:
    """An analysis report (``gradcli.analysis``), laid out by ``reports`` (or
    ``using_tables``, for the commands that put the derivative to work)."""
    from .reports import report_table
    from .using_tables import LAYOUTS

    console = _console(stream, console)
    layout = LAYOUTS.get(getattr(report, "layout", "") or report.command, report_table)
    layout(report, console, DEFAULT_PRECISION if precision is None else precision)


def render_functions(functions, stream, console=None) -> None:
    """One row per function under a heading row for each kind: the name with its
    parameters, the description, and the convention at kinks."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console = _console(stream, console)
    unicode = console.encoding.lower().startswith("utf")
    table = Table(box=box.ROUNDED, safe_box=not unicode)
    # Names are never cut: a signature wraps after a comma, below its name.
    longest = max(len(f.name) for f in functions) + 1
    # A name longer than the column's share gets a fixed width (Rich overflows a minimum
    # width there), and a line of its own when its first parameter does not fit beside it.
    fixed = longest > (console.width - 10) // 3
    if fixed:
        table.add_column(Text("function"), width=longest)
    else:
        table.add_column(Text("function"), min_width=longest, ratio=3)
    table.add_column(Text("description"), ratio=4)
    table.add_column(Text("at kinks"), ratio=2)
    for i, f in enumerate(functions):
        if i == 0 or functions[i - 1].kind != f.kind:
            table.add_row(Text(f.kind, style="bold magenta"), end_section=False)
        last_of_kind = i + 1 == len(functions) or functions[i + 1].kind != f.kind
        name = Text(f.name, style="bold cyan")
        if fixed and len(f.name) + len(f.signature.split(" ")[0]) > longest:
            name.append("\n")
        name.append(f.signature)
        # Text, not markup: "[min, max]" in a description is no style.
        kink = "\n".join([f.kink or "", *(f"differs from PyTorch {d}" for d in f.differs)])
        table.add_row(name, Text(f.doc), Text(kink.strip()), end_section=last_of_kind)
    console.print(table)


def _narrowest(array, precision: int) -> int:
    """The width of the array printed one number a line."""
    return max(map(len, format_array(array, precision, line_width=1).splitlines()))
