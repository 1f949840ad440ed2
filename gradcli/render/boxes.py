"""The table of a one-shot result drawn as Rich draws it, character for character and
style for style, without loading Rich (a fifth of a one-shot call's start-up).

``terminal(stream)`` is what Rich's ``Console(file=stream)`` would make of the
stream: its width, its encoding, whether it takes styles and whether
``NO_COLOR`` takes their colours away (None where this module does not know:
Windows, a notebook, IDLE, an encoding other than UTF). ``draw`` writes the table
of a ``table.Layout`` as Rich would at its natural width: a rounded box, each
cell padded by a space each side and its lines left-justified; the names bold
cyan, the shapes dim, the header and title bold; each piece of a line styled on
its own, as Rich writes its segments. It declines (returns False, having
written nothing) what Rich would draw otherwise: a table wider than the
terminal, which Rich narrows, or text Rich might measure other than one
character a cell. tests/test_render_boxes.py compares it with Rich.
"""

from __future__ import annotations

import builtins
import os
import sys
from typing import NamedTuple

# Styles, as bits that combine: what the table uses of Rich's.
BOLD, DIM, CYAN = 1, 2, 4
NAME = BOLD | CYAN

# The characters Rich measures as one cell each without its tables (rich.cells), and
# the signs of the labels, which its tables give one cell.
_ONE_CELL = ((0x20, 0x7E), (0xA0, 0xAC), (0xAE, 0x2FF), (0x370, 0x482), (0x2500, 0x25FC))
_SIGNS = frozenset("∂ᵀ")


class Terminal(NamedTuple):
    width: int
    encoding: str
    styled: bool  # the stream is a terminal Rich writes styles to
    no_color: bool  # NO_COLOR: the styles without their colours


def terminal(stream) -> Terminal | None:
    """How Rich's ``Console(file=stream)`` sees ``stream``, or None where it looks at
    more than this does."""
    if sys.platform == "win32" or hasattr(builtins, "get_ipython"):
        return None  # a Windows console, a notebook: Rich's own ways
    if str(getattr(sys.stdin, "__module__", "")).startswith("idlelib"):
        return None
    if hasattr(stream, "rich_proxied_file"):
        return None
    encoding = (getattr(stream, "encoding", "utf-8") or "utf-8").lower()
    if not encoding.startswith("utf"):
        return None  # Rich's ASCII box and escapes
    environ = os.environ
    is_terminal = _is_terminal(stream, environ)
    dumb = is_terminal and environ.get("TERM", "").lower() in ("dumb", "unknown")
    no_color = environ.get("NO_COLOR", "") != ""
    return Terminal(_width(environ, dumb), encoding, is_terminal and not dumb, no_color)


def _is_terminal(stream, environ) -> bool:
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    isatty = getattr(stream, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:  # a closed stream
        return False


def _width(environ, dumb: bool) -> int:
    columns, lines = environ.get("COLUMNS"), environ.get("LINES")
    fixed = int(columns) if columns is not None and columns.isdigit() else None
    if fixed is not None and lines is not None and lines.isdigit():
        return fixed
    if dumb:
        return 80
    width = None
    for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return (width or 80) if fixed is None else fixed


def _one_cell(text: str) -> bool:
    return all(any(low <= ord(c) <= high for low, high in _ONE_CELL) or c in _SIGNS for c in text)


def draw(layout, stream, terminal: Terminal) -> bool:
    """Write ``layout``'s title and table to ``stream`` as Rich would, or return False."""
    texts = [layout.title, *(text for row in layout.rows for text in row[:3])]
    if "\n" in layout.title or not all(_one_cell(t.replace("\n", "")) for t in texts):
        return False
    if len(layout.title) > terminal.width:
        return False  # Rich wraps it
    # Each column: its header, the style of its cells, its narrowest width and its cells,
    # each a list of lines, each line its pieces ((text, style) each) and the style of
    # its text as a whole, which runs on over the padding.
    names, shapes, values = [], [], []
    for name, shape, numbers, _ in layout.rows:
        lines = [([(name, NAME)], NAME)]
        if not layout.separate:
            lines.append(([(shape, NAME | DIM)], NAME))
        names.append(lines)
        shapes.append([([(shape, 0)], 0)])
        values.append([([(line, 0)], 0) for line in numbers.split("\n")])
    columns = [("", 0, layout.name_width, names)]
    if layout.separate:
        columns.append(("shape", DIM, layout.shape_width, shapes))
    columns.append(("value", 0, 0, values))
    widths = [
        max(minimum, len(header), *(_length(line) for cell in cells for line in cell)) + 2
        for header, _, minimum, cells in columns
    ]
    if sum(widths) + len(widths) + 1 > terminal.width:
        return False  # Rich narrows the columns
    paint = _painter(terminal)
    out = [paint(layout.title, BOLD) + "\n"]

    def rule(left, middle, right):
        out.append(left + middle.join("─" * w for w in widths) + right + "\n")

    rule("╭", "┬", "╮")
    headers = [[([(header, 0)], 0)] for header, *_ in columns]
    out.append(_row(headers, [BOLD] * len(columns), widths, paint))
    rule("├", "┼", "┤")
    styles = [style for _, style, _, _ in columns]
    for i, (*_, end_section) in enumerate(layout.rows):
        out.append(_row([cells[i] for *_, cells in columns], styles, widths, paint))
        if end_section and i + 1 < len(layout.rows):
            rule("├", "┼", "┤")
    rule("╰", "┴", "╯")
    stream.write("".join(out))
    stream.flush()
    return True


def _length(line) -> int:
    return sum(len(text) for text, _ in line[0])


def _row(cells, styles, widths, paint) -> str:
    """The lines of one row: each cell's lines padded, top-aligned, the missing ones
    blank (in the column's style, as Rich fills them)."""
    lines = []
    for n in range(max(len(cell) for cell in cells)):
        parts = []
        for cell, style, width in zip(cells, styles, widths):
            if n >= len(cell):
                parts.append(paint(" " * width, style))
                continue
            pieces, whole = cell[n]
            pad = " " * (width - 2 - _length(cell[n]))
            if pieces[-1][1] == whole:  # one piece of one style, padding and all
                pieces = [*pieces[:-1], (pieces[-1][0] + pad, whole)]
            elif pad:
                pieces = [*pieces, (pad, whole)]
            text = "".join(paint(t, s | style) for t, s in pieces)
            parts.append(paint(" ", style) + text + paint(" ", style))
        lines.append("│" + "│".join(parts) + "│\n")
    return "".join(lines)


def _painter(terminal: Terminal):
    """``paint(text, style)``: the text as Rich writes a segment of that style."""

    def paint(text: str, style: int) -> str:
        if not terminal.styled or not style or not text:
            return text
        codes = [code for bit, code in ((BOLD, "1"), (DIM, "2")) if style & bit]
        if style & CYAN and not terminal.no_color:
            codes.append("36")
        return f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if codes else text

    return paint
