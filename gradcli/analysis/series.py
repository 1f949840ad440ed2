"""``gradcli taylor``: the Taylor polynomial of a scalar function at the bound point.

Its coefficients come from Taylor arithmetic (``engine/jet.py``): the program is
recorded once and truncated power series in every variable are propagated
through it, each op by its entry's series rule, so the cost grows with the
number of coefficients, not exponentially with the order as nested reverse
passes did. The coefficient of ``Π (v_i - a_i)**α_i`` is ``∂^α f(a) / α!``,
with ``α! = Π α_i!``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

import gradcli

from ..core.evaluation import evaluation, require_scalar
from ..core.result import source_title
from ..engine import jet
from ..errors import GradcliError
from ..language.transformations import exact_order
from .assembled import entry_labels
from .report import Report, frozen

# More terms than this would be slow to compute and unreadable to print.
MAX_TERMS = 2000


@dataclass(frozen=True, eq=False)
class Term:
    """``coefficient * Π (variable - point)**power``."""

    #: The power of each variable (an input, or one entry of it: ``w[0]``) that appears.
    powers: Mapping[str, int]
    coefficient: float


@dataclass(frozen=True, eq=False)
class TaylorReport(Report):
    command = "taylor"
    source: str
    title: str
    order: int
    value: np.ndarray
    #: Every variable's value at the point, in order.
    point: Mapping[str, float]
    #: Every term of degree 0 to ``order``, by degree, zero coefficients included.
    terms: tuple[Term, ...]
    warnings: tuple[str, ...] = ()

    def monomial(self, term: Term, precision: int | None = None) -> str:
        """``(x - 2)**2*y``: the term's variables shifted to the point."""
        from ..render.numbers import format_number

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
        """The polynomial as text, terms with a zero coefficient left out."""
        from ..render.numbers import format_number

        text = ""
        for term in self.terms:
            c = term.coefficient
            if c == 0:
                continue
            monomial = self.monomial(term, precision)
            size = format_number(abs(c), precision)
            body = size if monomial == "1" else monomial if size == "1" else f"{size}*{monomial}"
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
                }
                for t in self.terms
            ],
        }


def taylor(
    source: str,
    bindings: Mapping | None = None,
    *,
    order: int = 2,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> TaylorReport:
    """The Taylor polynomial of ``source`` up to degree ``order`` at the bound point,
    in the inputs ``wrt`` (by default all); the other inputs stay fixed."""
    if isinstance(order, bool) or not isinstance(order, int) or order < 0:
        raise GradcliError(f"--order must be an integer of at least 0, not {order!r}")
    with evaluation(source, bindings, wrt, dtype, seed, filename) as s:
        exact = exact_order(s.program.ir)
        if exact is not None and order > exact[0]:
            raise GradcliError(
                f"--order {order}: the derivatives of {exact[1]} are exact through order"
                f" {exact[0]}: choose --order {exact[0]} or lower"
            )
        names = s.wrt
        variables = [label for n in names for label in entry_labels(n, s.shape(n))]
        count = math.comb(len(variables) + order, order)
        if count > MAX_TERMS:
            raise GradcliError(
                f"a Taylor polynomial of degree {order} in {len(variables)} variables has "
                f"{count} terms, more than {MAX_TERMS}: lower --order, or choose inputs with --wrt"
            )
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
    terms = []
    for index, value in zip(jet.basis(len(variables), order).monomials, coefficients):
        powers: dict[str, int] = {}
        for i in index:
            powers[variables[i]] = powers.get(variables[i], 0) + 1
        terms.append(Term(MappingProxyType(powers), float(value) + 0.0))  # no -0
    return TaylorReport(
        source,
        source_title(source, filename),
        order,
        frozen(result.value),
        MappingProxyType(point),
        tuple(terms),
        result.warnings,
    )
