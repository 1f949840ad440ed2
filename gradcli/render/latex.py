"""``--format latex`` (``gradcli diff``): each formula as a LaTeX equation, one a line::

    f = \\left(x + 2\\right)^{2} + 3
    \\frac{\\partial f}{\\partial x} = 2 x + 4

A vector or matrix of formulas is a ``pmatrix``.
"""

from __future__ import annotations


def render_report(report, stream, precision: int | None = None) -> None:
    stream.write(f"f = {_latex(report.function_latex)}\n")
    for d in report.derivatives:
        name = _name(d.name)
        stream.write(f"\\frac{{\\partial f}}{{\\partial {name}}} = {_latex(d.latex)}\n")


def _name(name: str) -> str:
    # One letter stands as it is; a longer name is upright text.
    if len(name) == 1 and name.isascii():
        return name
    return "\\mathrm{" + name.replace("_", "\\_") + "}"


def _latex(formula) -> str:
    """A formula, or nested tuples of them: a vector is a column, a matrix its rows;
    more dimensions are listed."""
    if isinstance(formula, str):
        return formula
    if all(isinstance(entry, str) for entry in formula):
        return "\\begin{pmatrix}" + " \\\\ ".join(formula) + "\\end{pmatrix}"
    if all(isinstance(row, tuple) and all(isinstance(e, str) for e in row) for row in formula):
        rows = " \\\\ ".join(" & ".join(row) for row in formula)
        return "\\begin{pmatrix}" + rows + "\\end{pmatrix}"
    return "\\left[" + ", ".join(_latex(part) for part in formula) + "\\right]"
