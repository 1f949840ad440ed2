"""Tables of the reports that put the derivative to work (a minimum, a root, the critical
points, a least-squares fit, implicit derivatives; ``vector``: a point and a value, div's,
curl's, laplacian's), for ``--format table``, by the layout a report names. They only lay
out a report."""

from __future__ import annotations

from rich.text import Text

from .numbers import format_array, format_number
from .reports import new_table, report_line, report_title
from .solution_tables import sensitivity_table
from .terminal import shown_text


def _point_table(console, point, precision: int, header: str = "value"):
    table = new_table(console, "input", header)
    for name, value in point.items():
        table.add_row(shown_text(name, console.encoding), format_array(value, precision))
    return table


def _status(console, converged: bool, message: str) -> None:
    if converged:
        console.print(Text("converged", style="green").append(f" ({message})", style=""))
    else:
        console.print(Text("DID NOT CONVERGE", style="bold red").append(f" ({message})", style=""))


def _minimum(report, console, precision: int) -> None:
    report_title(console, report)
    if report.trace is not None:
        trace = new_table(console, "iteration", *report.labels, "f", "|grad f|")
        for i, x, f, g in zip(
            report.trace["iteration"], report.trace["x"], report.trace["f"],
            report.trace["gradient_norm"],
        ):  # fmt: skip
            cells = (format_number(v, precision) for v in x)
            trace.add_row(str(i), *cells, format_number(f, precision), format_number(g, 3))
        console.print(trace)
    # Named for what the Hessian says it is: the method only sought one.
    sought = "local maximum" if report.maximize else "local minimum"
    heading = sought if report.classification == sought else "end point"
    if report.standard_errors is None:
        points = _point_table(console, report.point, precision)
    else:
        points = new_table(console, "input", "value", "standard error")
        for name, value in report.point.items():
            error = format_array(report.standard_errors[name], precision)
            points.add_row(
                shown_text(name, console.encoding), format_array(value, precision), error
            )
    console.print(Text(f"{heading} at", style="bold"), points)
    report_line(console, "f:", format_number(report.value, precision))
    report_line(console, "|grad f|:", format_number(report.gradient_norm, 3))
    compared = "<=" if report.converged else ">"
    report_line(
        console,
        "first-order test:",
        f"max |grad f| / max(1, |f|) = {format_number(report.scaled_gradient, 3)} {compared} "
        f"{format_number(report.gradient_tolerance, 3)}",
    )
    if report.eigenvalues is not None:
        report_line(console, "Hessian eigenvalues:", format_array(report.eigenvalues, precision))
    report_line(console, "Hessian says:", report.classification or "")
    if report.covariance is not None:
        _matrix(console, report.labels, report.covariance, precision, "covariance (H^-1)")
        if len(report.labels) > 1:
            _matrix(console, report.labels, report.correlation, 3, "correlation")
    counts = f"{report.method}, {report.iterations} iterations, {report.evaluations} evaluations"
    if report.polish_steps:
        counts += f", then {report.polish_steps} Newton step{'s' * (report.polish_steps > 1)}"
    report_line(console, "method:", counts)
    # Converged is the first-order test's verdict; SciPy's message says how it stopped.
    _status(console, report.converged, f"SciPy: {report.message}")
    sensitivity_table(report, console, precision)


def _matrix(console, labels, matrix, precision: int, title: str) -> None:
    table = new_table(console, "", *labels, title=title)
    for label, row in zip(labels, matrix):
        table.add_row(label, *(format_number(v, precision) for v in row))
    console.print(table)


def _root(report, console, precision: int) -> None:
    report_title(console, report)
    console.print(Text("root at", style="bold"), _point_table(console, report.point, precision))
    report_line(console, "residual:", format_array(report.residual, precision))
    report_line(console, "Jacobian determinant:", format_number(report.determinant, precision))
    counts = f"{report.method}, {report.iterations} iterations, {report.evaluations} evaluations"
    report_line(console, "method:", counts)
    _status(console, report.converged, report.message)
    sensitivity_table(report, console, precision)


def _critical_points(report, console, precision: int) -> None:
    report_title(console, report)
    table = new_table(console, *report.names, "f", "kind", "Hessian eigenvalues")
    for c in report.points:
        table.add_row(
            *(format_number(v, precision) for v in c.point),
            format_number(c.value, precision),
            c.classification,
            format_array(c.eigenvalues, precision),
        )
    console.print(table)
    box = ", ".join(
        f"{shown_text(n, console.encoding)} in [{format_number(a, precision)}, "
        f"{format_number(b, precision)}]"
        for n, (a, b) in zip(report.names, report.box)
    )
    found = len(report.points)
    report_line(
        console,
        f"{found} critical point{'s' * (found != 1)}",
        f"in {box}, from {report.starts} starts",
    )


def _least_squares(report, console, precision: int) -> None:
    report_title(console, report)
    table = new_table(console, "parameter", "value", "standard error")
    for name, value in report.parameters.items():
        table.add_row(
            shown_text(name, console.encoding),
            format_array(value, precision),
            format_array(report.standard_errors[name], precision),
        )
    console.print(table)
    report_line(console, "residual sum of squares:", format_number(report.rss, precision))
    report_line(
        console, "residual standard deviation:", format_number(report.residual_sd, precision)
    )
    report_line(
        console, "degrees of freedom:", f"{report.dof} ({report.observations} observations)"
    )
    if len(report.labels) > 1:
        _matrix(console, report.labels, report.correlation, 3, "correlation")
    report_line(console, "method:", f"{report.method}, {report.evaluations} evaluations")
    _status(console, report.converged, report.message)


def _vector(report, console, precision: int) -> None:
    report_title(console, report)
    console.print(Text("at", style="bold"), _point_table(console, report.point, precision))
    report_line(console, f"{report.command}:", format_array(report.value, precision))


def _implicit_derivatives(report, console, precision: int) -> None:
    report_title(console, report)
    unicode = console.encoding.lower().startswith("utf")
    shown = lambda text: shown_text(text, console.encoding)  # noqa: E731
    of = f"{', '.join(map(shown, report.solve_for))} as a function of"
    heading = f"{of} {', '.join(map(shown, report.wrt))} at"
    console.print(Text(heading, style="bold"), _point_table(console, report.point, precision))
    partial = len(report.wrt) > 1
    d = ("∂" if unicode else "d") if partial else "d"
    squared = "²" if unicode else "2"
    table = new_table(console, "", "value")
    for y, row in report.derivative.items():
        for x, block in row.items():
            table.add_row(shown(f"{d}{y}/{d}{x}"), format_array(block, precision))
    for y, row in report.second_derivative.items():
        for i, (x, blocks) in enumerate(row.items()):
            for u, block in list(blocks.items())[i:]:
                below = f"{d}{x}{squared}" if u == x else f"{d}{x}{d}{u}"
                table.add_row(shown(f"{d}{squared}{y}/{below}"), format_array(block, precision))
    console.print(table)
    where = "on the curve" if report.on_curve else "NOT on the curve"
    report_line(console, "residual:", f"{format_array(report.residual, precision)} ({where})")
    report_line(
        console,
        f"det {'∂' if unicode else 'd'}F/{'∂' if unicode else 'd'}y:",
        format_number(report.determinant, precision),
    )


_KKT = (
    ("stationarity", "stationarity"),
    ("feasibility", "feasibility"),
    ("dual_feasibility", "dual feasibility"),
    ("complementarity", "complementary slackness"),
)


def _constrained(report, console, precision: int) -> None:
    """minimize --subject-to: the point, f, each constraint with c(x) and its multiplier,
    the KKT conditions' measures, the reduced Hessian's verdict, the status."""
    unicode = console.encoding.lower().startswith("utf")
    nabla, lam, sigma = ("∇", "λ", "Σ") if unicode else ("grad ", "lambda", "sum ")
    report_title(console, report)
    sought = "local maximum" if report.maximize else "local minimum"
    heading = sought if report.classification == sought else "end point"
    console.print(
        Text(f"{heading} at", style="bold"), _point_table(console, report.point, precision)
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
    _status(console, report.converged, report.message)
    sensitivity_table(report, console, precision)


#: The layouts by the name a report gives (``Report.layout``).
LAYOUTS = {
    "minimum": _minimum,
    "constrained": _constrained,
    "root": _root,
    "critical points": _critical_points,
    "least squares": _least_squares,
    "implicit derivatives": _implicit_derivatives,
    "vector": _vector,
}
