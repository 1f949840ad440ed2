"""``--format latex``. ``gradcli diff``: each formula as a LaTeX equation, one a line::

    f = \\left(x + 2\\right)^{2} + 3
    \\frac{\\partial f}{\\partial x} = 2 x + 4

A vector or matrix of formulas is a ``pmatrix``. ``gradcli taylor``: the polynomial on
one line, in the order of its terms (``1 + x + \\frac{x^{2}}{2}`` with ``--exact``).
"""

from __future__ import annotations

import re

from .numbers import format_number


def render_report(report, stream, precision: int | None = None) -> None:
    """The report in LaTeX, by its layout (one of ``LAYOUTS``)."""
    LAYOUTS[report.layout](report, stream, precision)


def _polynomial(report, stream, precision: int | None = None) -> None:
    stream.write(taylor_polynomial(report, precision) + "\n")


def _derivatives(report, stream, precision: int | None = None) -> None:
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


def taylor_polynomial(report, precision: int | None = None) -> str:
    """A Taylor report's polynomial in LaTeX, terms with a zero coefficient left out."""
    text = ""
    for term in report.terms:
        c = term.coefficient
        if c == 0:
            continue
        monomial = " ".join(
            _power(_shifted(name, report.point[name], precision), power)
            for name, power in term.powers.items()
        )
        if term.fraction is not None:
            p, q = abs(term.fraction.numerator), term.fraction.denominator
            top = str(p) if not monomial else monomial if p == 1 else f"{p} {monomial}"
            body = top if q == 1 else f"\\frac{{{top}}}{{{q}}}"
        else:
            size = _number(abs(c), precision)
            body = size if not monomial else monomial if size == "1" else f"{size} {monomial}"
        if not text:
            text = f"-{body}" if c < 0 else body
        else:
            text += f" {'-' if c < 0 else '+'} {body}"
    return text or "0"


def _variable(label: str) -> str:
    """``x``; an entry ``w[0,1]`` is ``w_{0,1}``."""
    name, _, index = label.partition("[")
    return _name(name) + (f"_{{{index.rstrip(']')}}}" if index else "")


def _shifted(label: str, at: float, precision: int | None) -> str:
    if at == 0:
        return _variable(label)
    sign = "-" if at > 0 else "+"
    return f"\\left({_variable(label)} {sign} {_number(abs(at), precision)}\\right)"


def _power(base: str, power: int) -> str:
    return base if power == 1 else f"{base}^{{{power}}}"


def _number(x: float, precision: int | None) -> str:
    """A number as ``format_number`` writes it, its exponent as a power of ten."""
    text = format_number(x, precision)
    if text in ("inf", "nan"):
        return "\\infty" if text == "inf" else "\\mathrm{nan}"
    found = re.fullmatch(r"(\d(?:\.\d+)?)e([+-]?\d+)", text)
    if found is None:
        return text
    mantissa, exponent = found[1], int(found[2])
    power = f"10^{{{exponent}}}"
    return power if mantissa == "1" else f"{mantissa} \\cdot {power}"


#: The layouts of reports (``Report.layout``) that LaTeX writes: diff's formulas and
#: taylor's polynomial.
LAYOUTS = {"derivatives": _derivatives, "polynomial": _polynomial}
