"""``gradcli taylor``: the Taylor polynomial of a scalar function at the bound point.

Its coefficients come from Taylor arithmetic (``engine/jet.py``): the program is
recorded once and truncated power series in every variable are propagated
through it, each op by its entry's series rule, so the cost grows with the
number of coefficients, not exponentially with the order as nested reverse
passes did. The coefficient of ``Π (v_i - a_i)**α_i`` is ``∂^α f(a) / α!``,
with ``α! = Π α_i!``. With ``exact`` each coefficient is also recovered as a
fraction where it is one to the working precision (``rational``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import numpy as np

import gradcli

from ..core.assembled import entry_labels
from ..core.evaluation import evaluation, require_scalar
from ..core.result import Diagnostic, source_title
from ..engine import jet
from ..errors import GradcliError
from ..language.transformations import exact_order
from ..render.numbers import format_number
from . import precise
from .commands import Command, Option
from .report import Report, frozen

# More terms than this would be slow to compute and unreadable to print.
MAX_TERMS = 2000
#: ``--exact``: a coefficient is the fraction p/q within this relative distance of it...
EXACT_RTOL = 1e-12
#: ...of height |p|*q at most this (or an integer). Fractions of height <= H with q <= Q lie
#: at least |c|/H apart near c, so at most one is that close; and a float that is no such
#: fraction lands that close to one with odds of about (6/pi**2) * H * EXACT_RTOL = 6e-4.
#: 1/12! (height 4.8e8) passes, 1/13! (6.2e9) stays a float.
EXACT_HEIGHT = 10**9


def rational(c: float) -> Fraction | None:
    """``c`` as the fraction it is to the working precision (``EXACT_RTOL``, of height at
    most ``EXACT_HEIGHT``), or None when it is not one."""
    if c == 0:
        return Fraction(0)
    if not math.isfinite(c):
        return None
    # A fraction of height <= H near c has q <= sqrt(H / |c|): the closest of those.
    bound = max(1, math.isqrt(int(EXACT_HEIGHT / abs(c))))
    found = Fraction(c).limit_denominator(bound)
    close = abs(found - Fraction(c)) <= EXACT_RTOL * abs(Fraction(c))
    low = found.denominator == 1 or abs(found.numerator) * found.denominator <= EXACT_HEIGHT
    return found if close and low else None


@dataclass(frozen=True, eq=False)
class Term:
    """``coefficient * Π (variable - point)**power``."""

    #: The power of each variable (an input, or one entry of it: ``w[0]``) that appears.
    powers: Mapping[str, int]
    coefficient: float
    #: With ``exact``: the coefficient as a fraction, or None where it is not one.
    fraction: Fraction | None = None


@dataclass(frozen=True, eq=False)
class TaylorReport(Report):
    command = "taylor"
    layout = "polynomial"
    source: str
    title: str
    order: int
    value: np.ndarray
    #: Every variable's value at the point, in order.
    point: Mapping[str, float]
    #: Every term of degree 0 to ``order``, by degree, zero coefficients included.
    terms: tuple[Term, ...]
    warnings: tuple[str, ...] = ()
    #: Whether the coefficients were recovered as fractions (``rational``).
    exact: bool = False

    def monomial(self, term: Term, precision: int | None = None) -> str:
        """``(x - 2)**2*y``: the term's variables shifted to the point."""
        factors = []
        for name, power in term.powers.items():
            at = self.point[name]
            if at == 0:
                base = name
            else:
                sign = "-" if at > 0 else "+"
                base = f"({name} {sign} {format_number(abs(at), precision)})"
            factors.append(base if power == 1 else f"{base}**{power}")
        return "*".join(factors) or "1"

    def polynomial(self, precision: int | None = None) -> str:
        """The polynomial as text, terms with a zero coefficient left out; a fraction's
        denominator divides its term (``x**2/2``)."""
        text = ""
        for term in self.terms:
            c = term.coefficient
            if c == 0:
                continue
            monomial = self.monomial(term, precision)
            if term.fraction is not None:
                p, q = abs(term.fraction.numerator), term.fraction.denominator
                size, under = str(p), "" if q == 1 else f"/{q}"
            else:
                size, under = format_number(abs(c), precision), ""
            body = size if monomial == "1" else monomial if size == "1" else f"{size}*{monomial}"
            body += under
            if not text:
                text = f"-{body}" if c < 0 else body
            else:
                text += f" {'-' if c < 0 else '+'} {body}"
        return text or "0"

    def row(self) -> dict:
        """The value and the coefficients, in the order of ``terms`` (``variables``)."""
        return {"value": self.value, "coefficients": np.array([t.coefficient for t in self.terms])}

    def variables(self) -> list[str]:
        """Each term's monomial in the distances from the point: ``1``, ``x``, ``x**2*y``."""
        return [
            "*".join(n if p == 1 else f"{n}**{p}" for n, p in t.powers.items()) or "1"
            for t in self.terms
        ]

    def as_tree(self) -> dict:
        return {
            "value": self.value,
            "order": self.order,
            "point": dict(self.point),
            "polynomial": self.polynomial(),
            "terms": [
                {
                    "powers": dict(t.powers),
                    "monomial": self.monomial(t),
                    "coefficient": t.coefficient,
                    **({"exact": _fraction_text(t.fraction)} if self.exact else {}),
                }
                for t in self.terms
            ],
        }


def _fraction_text(fraction: Fraction | None) -> str | None:
    return None if fraction is None else str(fraction)


def taylor(
    source: str,
    bindings: Mapping | None = None,
    *,
    order: int = 2,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    exact: bool = False,
) -> TaylorReport:
    """The Taylor polynomial of ``source`` up to degree ``order`` at the bound point,
    in the inputs ``wrt`` (by default all); the other inputs stay fixed. ``exact``: each
    coefficient also as the fraction it is (``rational``), a warning naming the terms
    whose coefficients are none."""
    if isinstance(order, bool) or not isinstance(order, int) or order < 0:
        raise GradcliError(f"--order must be an integer of at least 0, not {order!r}")
    with evaluation(source, bindings, wrt, dtype, seed, filename, command="taylor") as s:
        _check_exact_through(order, s.program.ir)
        names = s.wrt
        variables = [label for n in names for label in entry_labels(n, s.shape(n))]
        _check_term_count(order, len(variables))
        f, _ = s.function(names)
        leaves = [gradcli.tensor(s.values[n], requires_grad=True) for n in names]
        out = f(*leaves)
        require_scalar(out, "taylor")
        out = out.reshape(())
        coefficients = jet.propagate(out, leaves, jet.basis(len(variables), order))
        point = {
            label: float(x)
            for n in names
            for label, x in zip(entry_labels(n, s.shape(n)), np.reshape(s.values[n], -1))
        }
        result = s.result("eval", out.detach())
    terms = _terms(variables, order, coefficients, exact)
    report = TaylorReport(
        source,
        source_title(source, filename),
        order,
        frozen(result.value),
        MappingProxyType(point),
        tuple(terms),
        result.warnings,
        exact,
    )
    floats = [
        "the constant" if not t.powers else report.monomial(t)
        for t in terms
        if exact and t.fraction is None
    ]
    if floats:
        report = dataclasses.replace(report, warnings=(*report.warnings, _floats_note(floats)))
    return report


def _check_exact_through(order: int, program_ir) -> None:
    """Refuse a degree above that through which the program's derivatives are exact."""
    # (Not ``exact``, the coefficients as fractions: a name of its own.)
    exact_through = exact_order(program_ir)
    if exact_through is not None and order > exact_through[0]:
        highest, which = exact_through
        raise GradcliError(
            f"--order {order}: the derivatives of {which} are exact through order"
            f" {highest}: choose --order {highest} or lower"
        )


def _check_term_count(order: int, variables: int) -> None:
    count = math.comb(variables + order, order)
    if count > MAX_TERMS:
        raise GradcliError(
            f"a Taylor polynomial of degree {order} in {variables} variables has "
            f"{count} terms, more than {MAX_TERMS}: lower --order, or choose inputs with --wrt"
        )


def _terms(variables, order: int, coefficients, exact: bool) -> list[Term]:
    """Each monomial's powers, by variable, and its coefficient."""
    terms = []
    for index, value in zip(jet.basis(len(variables), order).monomials, coefficients):
        powers: dict[str, int] = {}
        for i in index:
            powers[variables[i]] = powers.get(variables[i], 0) + 1
        c = float(value) + 0.0  # no -0
        terms.append(Term(MappingProxyType(powers), c, rational(c) if exact else None))
    return terms


def _floats_note(floats: list[str]) -> Diagnostic:
    """The note naming the monomials whose coefficients are no fraction."""
    shown = ", ".join(floats[:5]) + (f" and {len(floats) - 5} more" if len(floats) > 5 else "")
    return Diagnostic(
        "note",
        f"exact: the coefficient of {shown} is not a fraction to 1e-12 "
        "(of numerator times denominator at most 1e9): left as a float"
        if len(floats) == 1
        else f"exact: the coefficients of {shown} are not fractions to 1e-12 "
        "(of numerator times denominator at most 1e9): left as floats",
    )


COMMANDS = (
    Command(
        "taylor",
        taylor,
        """The Taylor polynomial of a scalar output at the bound point, up to
        degree --order, in one or more inputs; its coefficients come from Taylor
        arithmetic (power series propagated through the expression).

        \b
        Example:
          $ gradcli taylor "exp(x)" --x 0 --order 3 --format plain
          value 1
          order 3
          point.x 0
          polynomial 1 + x + 0.5*x**2 + 0.16666666666666666*x**3
          terms.0.monomial 1
          terms.0.coefficient 1
          terms.1.powers.x 1
          terms.1.monomial x
          terms.1.coefficient 1
          terms.2.powers.x 2
          terms.2.monomial x**2
          terms.2.coefficient 0.5
          terms.3.powers.x 3
          terms.3.monomial x**3
          terms.3.coefficient 0.16666666666666666

        --exact writes each coefficient that is a fraction to the working precision
        as one (in plain and json also as terms.N.exact); --format latex writes the
        polynomial as LaTeX, one line to paste:

        \b
          $ gradcli taylor "exp(x)" --x 0 --order 4 --exact --get polynomial
          1 + x + x**2/2 + x**3/6 + x**4/24
          $ gradcli taylor "exp(x)" --x 0 --order 4 --exact --format latex
          1 + x + \\frac{x^{2}}{2} + \\frac{x^{3}}{6} + \\frac{x^{4}}{24}
          $ gradcli taylor "cos(x)" --x 1 --order 2 --format latex --precision 4
          0.5403 - 0.8415 \\left(x - 1\\right) - 0.2702 \\left(x - 1\\right)^{2}

        Many points (--over, --points FILE): a row each, the value and the
        coefficients, in the order of the terms above:

        \b
          $ gradcli taylor "exp(x)" --over x=0:1:2 --order 2 --format csv
          x,value,coefficients[0],coefficients[1],coefficients[2]
          0,1,1,1,0.5
          1,2.718281828459045,2.718281828459045,2.718281828459045,1.3591409142295225

        --dps N: each coefficient to N certified digits, in mpmath (docs/precision.md):

        \b
          $ gradcli taylor "exp(x)" --x 0 --order 10 --dps 25 --get terms.10.coefficient
          2.755731922398589065255732e-7
        """,
        (
            Option("wrt", "The variables [default: all].", kind="names"),
            Option("order", "The degree.", "int", 2, minimum=0),
            Option(
                "exact",
                "Also each coefficient as the fraction it is to 1e-12 (of numerator times"
                " denominator at most 1e9); a note names the ones left as floats.",
                kind="flag",
                one_point=True,
            ),
            precise.DPS,
        ),
        points=True,
        variants=(precise.variant(precise.taylor, {"exact": "every digit is printed"}),),
        formats=("latex",),
        format_help="Output format [default: table on a terminal, plain otherwise]; latex:"
        " the polynomial in LaTeX, on one line. Many points: csv (a header, then a row per"
        " point; the default when piped), json or jsonl (JSON lines) or table (the first"
        " and last rows).",
    ),
)
