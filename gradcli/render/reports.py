"""Tables of the analyses (``gradcli.analysis``) and of the assembled Hessian and
Jacobian, for ``--format table``. Like every renderer, these only lay out what a
report holds. Rich is imported here, so only tables load it.
"""

from __future__ import annotations

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

from .numbers import format_array, format_number
from .plain import report_lines
from .terminal import label as path_label
from .terminal import shown_text

# Wider than this, a matrix is left to --format json or plain rather than squeezed.
MAX_MATRIX_COLUMNS = 12


def new_table(console, *headers: str, title: str | None = None) -> Table:
    table = Table(
        box=box.ROUNDED, safe_box=not _unicode(console), title=title, title_justify="left"
    )
    for i, header in enumerate(headers):
        table.add_column(header, no_wrap=i == 0, style="bold cyan" if i == 0 else None)
    return table


def report_line(console, label: str, text: str) -> None:
    console.print(Text(label, style="bold").append(" " + text, style=""))


# ----------------------------------------------------------------------------
# The assembled Hessian and Jacobian (hessian, jacobian)
# ----------------------------------------------------------------------------


def assembled_table(assembled, console, precision: int, matrix: bool = True) -> None:
    """The whole matrix (unless ``matrix`` is False: the result's rows show it), then the
    determinant, or the eigenvalues and the classification."""
    unicode = _unicode(console)
    shown = lambda text: shown_text(text, console.encoding)  # noqa: E731
    what = "Hessian" if assembled.kind == "hessian" else "Jacobian (rows: outputs)"
    if not matrix:
        pass
    elif len(assembled.columns) > MAX_MATRIX_COLUMNS:
        size = f"{len(assembled.rows)} by {len(assembled.columns)}"
        report_line(console, f"whole {what}:", f"{size}, too wide for a table: see --format plain")
    else:
        columns = list(map(shown, assembled.columns))
        # -0.0 + 0.0 is 0.0: no sign on nothing, as in format_array's blocks above.
        matrix = np.asarray(assembled.matrix) + 0.0
        rows = [[format_number(x, precision) for x in row] for row in matrix]
        labels = list(map(shown, assembled.rows))
        if table_width(labels, columns, rows) > console.width:
            console.print(Text(f"whole {what}, a row at a time", style="bold"))
            stacked(console, labels, columns, rows)
        else:
            table = new_table(console, "", *columns)
            for label, row in zip(labels, rows):
                table.add_row(label, *row)
            console.print(Text(f"whole {what}", style="bold"), table)
    if assembled.kind == "jacobian":
        if assembled.determinant is not None:
            report_line(console, "determinant:", format_number(assembled.determinant, precision))
        return
    if assembled.eigenvalues is not None:
        report_line(console, "eigenvalues:", format_array(assembled.eigenvalues, precision))
    report_line(console, "classification:", _verdict(assembled, unicode))


def table_width(labels, columns, rows) -> int:
    """The columns a table of these texts takes, none of them cut."""
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    # Each column is padded by one each side and ruled: 3 more than its text.
    return max(map(len, labels), default=0) + sum(widths) + 3 * (len(widths) + 1) + 1


def stacked(console, labels, columns, rows) -> None:
    """A table too wide for the terminal: one row at a time, each entry named by its
    column, as many to a line as fit (never cut, as a table's cells are)."""
    for label, row in zip(labels, rows):
        console.print(Text(label, style="bold cyan"))
        line = Text("  ")
        for column, number in zip(columns, row):
            entry = f"{column} {number}"
            if len(line) > 2 and len(line) + 2 + len(entry) > console.width:
                console.print(line, no_wrap=True)
                line = Text("  ")
            if len(line) > 2:
                line.append("  ")
            line.append(column, style="dim").append(" " + number)
        console.print(line, no_wrap=True, overflow="fold")


def _verdict(assembled, unicode: bool) -> str:
    nabla, lam = ("∇", "λ") if unicode else ("grad ", "lambda")
    norm = format_number(assembled.gradient_norm, 3)
    zero = format_number(assembled.gradient_tolerance, 3)
    gradient = f"max |{nabla}f| = {norm}, zero up to {zero}"
    if assembled.eigenvalue_tolerance is None:
        return f"{assembled.classification} ({gradient})"
    zero = format_number(assembled.eigenvalue_tolerance, 3)
    return f"{assembled.classification} ({gradient}; |{lam}| <= {zero} counts as zero)"


def _unicode(console) -> bool:
    return console.encoding.lower().startswith("utf")


# ----------------------------------------------------------------------------
# The analyses
# ----------------------------------------------------------------------------


def report_table(report, console, precision: int) -> None:
    from .plot_text import LAYOUTS as PLOTS

    name = getattr(report, "layout", "") or report.command
    layout = PLOTS.get(name) or _LAYOUTS.get(name, _lines)
    layout(report, console, precision)


def _lines(report, console, precision: int) -> None:
    """A report no layout knows: its title, then a row per line of ``--format plain``."""
    title = getattr(report, "title", None) or report.command
    console.print(Text(shown_text(title, console.encoding), style="bold"))
    table = new_table(console, "", "")
    for key, text in report_lines(report.as_tree(), precision).items():
        table.add_row(*(Text(shown_text(t, console.encoding)) for t in (key, text)))
    console.print(table)


_LAYOUTS: dict = {}


def report_title(console, report) -> None:
    console.print(Text(shown_text(report.title, console.encoding), style="bold"))


def _path_label(path, unicode: bool, encoding: str = "utf-8") -> str:
    return shown_text(path_label(path, unicode), encoding)


def _mark(passed: bool) -> Text:
    return Text("pass", style="green") if passed else Text("FAIL", style="bold red")


def _check(report, console, precision: int) -> None:
    unicode = _unicode(console)
    report_title(console, report)
    if report.against == "finite differences":
        table = new_table(console, "", "max abs error", "max rel error", "")
        for c in report.comparisons:
            table.add_row(
                _path_label(c.path, unicode, console.encoding),
                format_number(c.max_abs_error, 3),
                format_number(c.max_rel_error, 3),
                _mark(c.passed),
            )
        against = f"against central finite differences in float64, eps {format_number(report.eps)}"
    else:
        table = new_table(console, "", "formula", "formula's value", "engine", "max abs error", "")
        for c in report.comparisons:
            table.add_row(
                _path_label(c.path, unicode, console.encoding),
                Text(c.formula or ""),
                format_array(c.expected, precision),
                format_array(c.engine, precision),
                format_number(c.max_abs_error, 3),
                _mark(c.passed),
            )
        against = "against the hand formulas"
    console.print(table)
    atol, rtol = format_number(report.atol), format_number(report.rtol)
    rule = f"|engine - expected| <= {atol} + {rtol}*|expected|"
    failed = sum(not c.passed for c in report.comparisons)
    if failed:
        verdict = Text(f"{failed} of {len(report.comparisons)} disagree", style="bold red")
    else:
        verdict = Text("all agree", style="green")
    console.print(verdict.append(f" ({against}; agree when {rule})", style=""))


_LAYOUTS["comparisons"] = _check


def _formula_lines(formula) -> str:
    """A formula, or nested tuples of them, one entry a line with its index."""
    if isinstance(formula, str):
        return formula

    array = np.empty(_shape(formula), dtype=object)
    _fill(array, formula)
    return "\n".join(
        f"[{','.join(map(str, index))}] {array[index]}" for index in np.ndindex(*array.shape)
    )


def _shape(nested) -> tuple[int, ...]:
    shape = []
    while isinstance(nested, tuple):
        shape.append(len(nested))
        nested = nested[0] if nested else ""
    return tuple(shape)


def _fill(array, nested, index=()) -> None:
    if isinstance(nested, str):
        array[index] = nested
        return
    for i, part in enumerate(nested):
        _fill(array, part, index + (i,))


def _diff(report, console, precision: int) -> None:
    unicode = _unicode(console)
    report_title(console, report)
    bound = report.value is not None
    headers = ["", "formula"] + (["value", f"engine's {report.kind}", ""] if bound else [])
    table = new_table(console, *headers)
    values = [format_array(report.value, precision), "", ""] if bound else []
    table.add_row("f", Text(shown_text(_formula_lines(report.function), console.encoding)), *values)
    table.add_section()
    for d in report.derivatives:
        label = _path_label((report.kind, d.name), unicode, console.encoding)
        cells = [label, Text(shown_text(_formula_lines(d.formula), console.encoding))]
        if bound:
            agrees = Text("agree", style="green") if d.agrees else Text("DISAGREE", "bold red")
            cells += [format_array(d.value, precision), format_array(d.engine, precision), agrees]
        table.add_row(*cells)
    console.print(table)


_LAYOUTS["derivatives"] = _diff


def _propagate(report, console, precision: int) -> None:
    report_title(console, report)
    table = new_table(console, "", "value ± σ", "value", "σ")
    table.add_row(
        "f",
        Text(_formula_lines(report.rounded)),
        format_array(report.value, precision),
        format_array(report.sigma, precision),
    )
    sampled = report.monte_carlo
    if sampled is not None:
        table.add_row(
            f"f, {sampled.samples:,} draws",
            Text(_formula_lines(sampled.rounded)),
            format_array(sampled.mean, precision),
            format_array(sampled.sigma, precision),
        )
    console.print(table)
    inputs = new_table(console, "input", "value", "σ", "share of the variance")
    for name, value in report.inputs.items():
        share = format_array(report.shares[name], 3)
        inputs.add_row(
            shown_text(name, console.encoding),
            format_array(value, precision),
            format_array(report.sigmas[name], precision),
            share,
        )
    if report.correlation_share is not None:
        inputs.add_row("(correlation)", "", "", format_array(report.correlation_share, 3))
    console.print(inputs)
    if report.value.size > 1:
        report_line(console, "covariance of the outputs:", "")
        console.print(format_array(report.covariance, precision))


_LAYOUTS["uncertainty"] = _propagate


def _taylor(report, console, precision: int) -> None:
    report_title(console, report)
    # Text, not markup: a name like w[0] is no style.
    about = "≈" if _unicode(console) else "~"
    console.print(Text(shown_text(f"f {about} {report.polynomial(precision)}", console.encoding)))
    table = new_table(console, "term", "coefficient")
    for term in report.terms:
        exact = term.fraction
        table.add_row(
            Text(shown_text(report.monomial(term, precision), console.encoding)),
            format_number(term.coefficient, precision) if exact is None else str(exact),
        )
    console.print(table)


_LAYOUTS["polynomial"] = _taylor
