"""Plots drawn with characters, for ``--format table``: f above f' over one input
(several functions overlaid, each in its colour and mark), or for two inputs a
map of f shaded by value with arrows along the gradient. Like every renderer,
these only lay out what a report holds.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text

from .numbers import format_number
from .terminal import shown_text

PLOT_HEIGHT = 11
FIELD_HEIGHT = 21
#: One colour and one mark per function of a plot; more functions reuse them.
STYLES = ("cyan", "yellow", "green", "magenta", "blue", "red")
MARKS = ("•", "∘", "+", "▪", "◇", "*")
ASCII_MARKS = ("*", "o", "+", "#", "@", "%")
#: From low to high values of f.
SHADES = " .:-=+*#%@"
ARROWS = "→↗↑↖←↙↓↘"
ASCII_ARROWS = ">/^\\</v\\"


def _unicode(console) -> bool:
    return console.encoding.lower().startswith("utf")


def _title(console, report) -> None:
    console.print(Text(shown_text(report.title, console.encoding), style="bold"))


def _plot(report, console, precision: int) -> None:
    _title(console, report)
    _panels(console, report, [report], precision, styles=("cyan", "magenta"))


def _plots(report, console, precision: int) -> None:
    _title(console, report)
    unicode = _unicode(console)
    marks = MARKS if unicode else ASCII_MARKS
    legend = Text()
    for i, one in enumerate(report.plots):
        legend.append("  " if i else "").append(marks[i % len(marks)], style=STYLES[i % 6])
        legend.append(" " + shown_text(one.title, console.encoding))
    console.print(legend)
    _panels(console, report, report.plots, precision)


def _panels(console, report, plots, precision: int, styles=None) -> None:
    """The f panel and the f' panel of ``plots`` (one or several functions of
    ``report.over``), then what is marked on their axes."""
    unicode = _unicode(console)
    name = shown_text(report.over, console.encoding)
    digits = min(precision, 4)
    ranges = [
        _range([p.f for p in plots], [p.limits for p in plots]),
        _range([p.df for p in plots], [p.df_limits for p in plots]),
    ]
    labels = [format_number(v, digits) for v in (*ranges[0], *ranges[1])]
    margin = max(map(len, labels)) + 1
    width = max(console.width - margin - 2, 10)
    prime = "f′" if unicode else "f'"
    marks = (MARKS if unicode else ASCII_MARKS) if len(plots) > 1 else MARKS[:1] * 6
    if not unicode and len(plots) == 1:
        marks = ASCII_MARKS[:1] * 6
    for panel, (label, limits) in enumerate(zip(("f", prime), ranges)):
        console.print(Text(f"{label} over {name}", style="bold"))
        series = []
        for i, one in enumerate(plots):
            style = styles[panel] if styles else STYLES[i % len(STYLES)]
            series.append((one.df if panel else one.f, style, marks[i % len(marks)]))
        lines = _panel(report.x, series, plots, limits, width, margin, digits, unicode)
        for line in lines:
            console.print(line, no_wrap=True, crop=True)
    kink, cross, pole = ("▲", "×", "○") if unicode else ("^", "x", "o")
    for one in plots:
        about = f" of {shown_text(one.title, console.encoding)}" if len(plots) > 1 else ""
        if one.kinks.size:
            where = ", ".join(format_number(x, digits) for x in one.kinks)
            console.print(Text(f"{kink} kinks (f′ jumps){about} at {name} = {where}", style="red"))
        if one.poles.size:
            where = _some(one.poles, digits)
            console.print(Text(f"{pole} poles (f jumps through ∞){about} at {name} = {where}",
                               style="red"))  # fmt: skip
        if one.nonfinite.size:
            where = _some(one.nonfinite, digits)
            console.print(Text(f"{cross} not finite{about} at {name} = {where}", style="red"))
    clipped = [one for one in plots if one.limits is not None or one.df_limits is not None]
    if clipped:
        note = "values nearest the poles run off the plot (--format plain or json has them all)"
        console.print(Text(note, style="dim"))


def _some(xs, digits: int) -> str:
    where = ", ".join(format_number(x, digits) for x in xs[:10])
    return where + (f" and {xs.size - 10} more" if xs.size > 10 else "")


def _range(arrays, limits) -> tuple[float, float]:
    """The values' range, or the union of the ``limits`` a report chose to draw."""
    lows, highs = [], []
    for values, chosen in zip(arrays, limits):
        low, high = chosen if chosen is not None else _bounds(values)
        lows.append(low)
        highs.append(high)
    return min(lows), max(highs)


def _bounds(values):
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0.0, 0.0
    low, high = float(finite.min()), float(finite.max())
    return (low, high) if low != high else (low - 1, high + 1)


def _panel(xs, series, plots, limits, width, margin, digits, unicode) -> list[Text]:
    join, axis, corner, tick, asymptote = (
        ("·", "─", "└", "┤", "┆") if unicode else (".", "-", "+", "|", ":")
    )
    kink, cross, pole = ("▲", "×", "○") if unicode else ("^", "x", "o")
    low, high = limits
    if low == high:
        low, high = low - 1, high + 1
    x0, x1 = float(xs[0]), float(xs[-1])
    column = lambda x: int(round((x - x0) / (x1 - x0) * (width - 1)))  # noqa: E731
    row = lambda y: int(round((high - y) / (high - low) * (PLOT_HEIGHT - 1)))  # noqa: E731
    grid = [[" "] * width for _ in range(PLOT_HEIGHT)]
    styles = [[None] * width for _ in range(PLOT_HEIGHT)]
    poles = [x for one in plots for x in one.poles]
    for x in poles:  # the asymptote, under the curves
        for r in range(PLOT_HEIGHT):
            grid[r][column(x)], styles[r][column(x)] = asymptote, "dim"
    for (values, style, dot), one in zip(series, plots):
        # A pole between two points breaks the line there, as a non-finite point does.
        cut = np.zeros(xs.size, dtype=bool)
        for x in one.poles:
            cut[1:] |= (np.minimum(xs[:-1], xs[1:]) < x) & (x < np.maximum(xs[:-1], xs[1:]))
        previous = None
        for x, y, after_pole in zip(xs, values, cut):
            if not np.isfinite(y) or not low <= y <= high:
                previous = None
                continue
            if after_pole:
                previous = None
            c, r = column(x), row(y)
            if previous is not None and abs(previous[0] - c) <= 1:
                # Join steep stretches with a line, so the curve reads as one.
                for between in range(min(previous[1], r) + 1, max(previous[1], r)):
                    if grid[between][c] in (" ", asymptote):
                        grid[between][c], styles[between][c] = join, style
            grid[r][c], styles[r][c] = dot, style
            previous = (c, r)
    lines = []
    for i, cells in enumerate(grid):
        label = format_number(high if i == 0 else low, digits) if i in (0, PLOT_HEIGHT - 1) else ""
        line = Text(label.rjust(margin) + tick)
        for cell, style in zip(cells, styles[i]):
            line.append(cell, style=style)
        lines.append(line)
    marks = [axis] * width
    for one in plots:
        for x in one.kinks:
            marks[column(x)] = kink
        for x in one.poles:
            marks[column(x)] = pole
        for x in one.nonfinite:
            marks[column(x)] = cross
    axis_line = Text(" " * margin + corner)
    for mark in marks:
        axis_line.append(mark, style="red" if mark in (kink, cross, pole) else None)
    lines.append(axis_line)
    left, right = format_number(x0, digits), format_number(x1, digits)
    lines.append(Text(" " * (margin + 1) + left + right.rjust(width - len(left))))
    return lines


# ----------------------------------------------------------------------------
# A field: f of two inputs, shaded, with arrows along the gradient
# ----------------------------------------------------------------------------


def _field(report, console, precision: int) -> None:
    unicode = _unicode(console)
    _title(console, report)
    digits = min(precision, 4)
    shown = lambda text: shown_text(text, console.encoding)  # noqa: E731
    x_name, y_name = shown(report.names[0]), shown(report.names[1])
    low, high = _bounds(report.f)
    labels = [format_number(v, digits) for v in (report.y[0], report.y[-1])]
    margin = max(map(len, labels)) + 1
    width = max(min(console.width - margin - 2, 2 * FIELD_HEIGHT * 2), 10)
    arrows = ARROWS if unicode else ASCII_ARROWS
    corner, axis, tick = ("└", "─", "┤") if unicode else ("+", "-", "|")
    up = "↑" if unicode else "^"
    console.print(
        Text(
            f"f over {x_name} (across) and {y_name} (up), darker is higher; "
            f"arrows point up the gradient",
            style="bold",
        )  # fmt: skip
    )
    nx, ny = report.x.size, report.y.size
    for r in range(FIELD_HEIGHT):
        j = int(round((FIELD_HEIGHT - 1 - r) / (FIELD_HEIGHT - 1) * (ny - 1)))
        label = labels[1] if r == 0 else labels[0] if r == FIELD_HEIGHT - 1 else ""
        line = Text(label.rjust(margin) + tick)
        for c in range(width):
            i = int(round(c / (width - 1) * (nx - 1)))
            value = report.f[j, i]
            gx, gy = report.gradient[0][j, i], report.gradient[1][j, i]
            if not np.isfinite(value):
                line.append("×" if unicode else "x", style="red")
            elif r % 4 == 2 and c % 8 == 4 and np.isfinite(gx + gy) and (gx or gy):
                # The step of the map differs across and up: the arrow points on the map.
                angle = np.arctan2(gy / np.ptp(report.y), gx / np.ptp(report.x))
                line.append(arrows[int(round(angle / (np.pi / 4))) % 8], style="bold yellow")
            else:
                level = 0 if high == low else (value - low) / (high - low)
                line.append(SHADES[min(int(level * len(SHADES)), len(SHADES) - 1)], style="cyan")
        console.print(line, no_wrap=True, crop=True)
    console.print(Text(" " * margin + corner + axis * width))
    left, right = format_number(report.x[0], digits), format_number(report.x[-1], digits)
    console.print(Text(" " * (margin + 1) + left + right.rjust(width - len(left))))
    scale = Text(f"{up} {y_name}, → {x_name}; shades from {format_number(low, digits)} ")
    console.print(scale.append(f"'{SHADES[1:]}'", style="cyan").append(
        f" to {format_number(high, digits)}"))  # fmt: skip
    if report.lowest is not None:
        at = lambda point: ", ".join(  # noqa: E731
            f"{n} = {format_number(v, digits)}" for n, v in zip((x_name, y_name), point)
        )
        console.print(Text(f"lowest f {format_number(report.lowest[0], digits)} at "
                           f"{at(report.lowest[1:])}; highest "
                           f"{format_number(report.highest[0], digits)} at "
                           f"{at(report.highest[1:])}"))  # fmt: skip
    if report.nonfinite:
        console.print(Text(f"× f or its gradient is not finite at {report.nonfinite} points",
                           style="red"))  # fmt: skip


#: The layouts of the plots' reports (``Report.layout``, else its command).
LAYOUTS = {"curve": _plot, "plots": _plots, "field": _field}
