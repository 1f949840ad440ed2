"""Tables of what a solution of minimize or solve carries beside its point: the
derivative of the solution with respect to the other inputs (``--sensitivity``).
They only lay out a report."""

from __future__ import annotations

import numpy as np
from rich.text import Text

from ..analysis.assembled import entry_labels
from .numbers import format_array, format_number
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
                columns += entry_labels(p, np.shape(block)[len(x_shape) :])
        width = int(np.prod(x_shape, dtype=int))
        matrix = np.concatenate([np.reshape(b, (width, -1)) for b in blocks], 1) + 0.0
        labels += entry_labels(x, x_shape)
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


_KKT = (
    ("stationarity", "stationarity"),
    ("feasibility", "feasibility"),
    ("dual_feasibility", "dual feasibility"),
    ("complementarity", "complementary slackness"),
)


def constrained(report, console, precision: int) -> None:
    """minimize --subject-to: the point, f, each constraint with c(x) and its multiplier,
    the KKT conditions' measures, the reduced Hessian's verdict, the status."""
    from .reports import report_line, report_title
    from .using_tables import point_table, status

    unicode = console.encoding.lower().startswith("utf")
    nabla, lam, sigma = ("∇", "λ", "Σ") if unicode else ("grad ", "lambda", "sum ")
    report_title(console, report)
    sought = "local maximum" if report.maximize else "local minimum"
    heading = sought if report.classification == sought else "end point"
    console.print(
        Text(f"{heading} at", style="bold"), point_table(console, report.point, precision)
    )
    report_line(console, "f:", format_number(report.value, precision))
    table = new_table(console, "constraint", "c(x)", lam, "active")
    for c in report.constraints:
        table.add_row(
            Text(shown_text(c["text"], console.encoding)),
            format_number(c["value"], precision),
            format_number(c["multiplier"], precision),
            "yes" if c["active"] else "no",
        )
    console.print(table)
    kkt = report.kkt
    rule = f"{nabla}f + {sigma}{lam}_i {nabla}c_i = 0, c_i = LHS - RHS (RHS - LHS for >=)"
    console.print(Text(f"KKT conditions ({rule}), scaled", style="bold"))
    checks = new_table(console, "condition", "measure", f"<= {kkt['tolerance']:g}")
    for key, name in _KKT:
        holds = kkt[key] <= kkt["tolerance"]
        mark = Text("holds", style="green") if holds else Text("FAILS", style="bold red")
        checks.add_row(name, format_number(kkt[key], 3), mark)
    console.print(checks)
    if report.eigenvalues is not None and report.eigenvalues.size:
        eigenvalues = format_array(report.eigenvalues, precision)
        report_line(console, "reduced Hessian eigenvalues:", eigenvalues)
    elif report.eigenvalues is not None:
        report_line(console, "reduced Hessian:", "none (the active constraints fix the point)")
    report_line(console, "Lagrangian's Hessian says:", report.classification or "no KKT point")
    counts = f"{report.method}, {report.iterations} iterations, {report.evaluations} evaluations"
    report_line(console, "method:", counts)
    status(console, report.converged, report.message)
    sensitivity_table(report, console, precision)
