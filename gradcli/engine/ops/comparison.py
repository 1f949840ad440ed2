"""Comparisons and logic (no gradient), and choosing entries: where, masked_fill."""

from __future__ import annotations

import numpy as np

from .. import batching_rules as batching
from ..multiprecision import OWN
from ..optable import Table, over
from ..tensor import Tensor
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .common import raw

table = Table("comparison")


_BINARY = "(input: Tensor|Number, other: Tensor|Number)"
_TEST = dict(kind="elementwise", method=True, library=True)

# fmt: off
lt = table.op("lt", np.less, _BINARY, doc="x < y", kind="binary", method=True,
              symbol="<", precedence="compare", symbolic=sym.compare("Lt"),
              operators=("__lt__",), mp=OWN)
le = table.op("le", np.less_equal, _BINARY, doc="x <= y", kind="binary", method=True,
              symbol="<=", precedence="compare", symbolic=sym.compare("Le"),
              operators=("__le__",), mp=OWN)
gt = table.op("gt", np.greater, _BINARY, doc="x > y", kind="binary", method=True,
              symbol=">", precedence="compare", symbolic=sym.compare("Gt"),
              operators=("__gt__",), mp=OWN)
ge = table.op("ge", np.greater_equal, _BINARY, doc="x >= y", kind="binary", method=True,
              symbol=">=", precedence="compare", symbolic=sym.compare("Ge"),
              operators=("__ge__",), mp=OWN)
eq = table.op("eq", np.equal, _BINARY, doc="x == y", kind="binary", method=True,
              symbol="==", precedence="compare", symbolic=sym.compare("Eq"),
              operators=("__eq__",), complex=True, mp=OWN)
ne = table.op("ne", np.not_equal, _BINARY, doc="x != y", kind="binary", method=True,
              symbol="!=", precedence="compare", symbolic=sym.compare("Ne"),
              operators=("__ne__",), complex=True, mp=OWN)
logical_and = table.op("logical_and", np.logical_and, _BINARY, doc="x and y", kind="binary",
                       method=True, operators=("__and__",), complex=True,
                       mp=forms.logical(np.logical_and))
logical_or = table.op("logical_or", np.logical_or, _BINARY, doc="x or y", kind="binary",
                      method=True, operators=("__or__",), complex=True,
                      mp=forms.logical(np.logical_or))
logical_not = table.op("logical_not", np.logical_not, doc="not x", operators=("__invert__",),
                       **_TEST, complex=True, mp=lambda mpmath: lambda x: np.asarray(x) == 0)
isnan = table.op("isnan", np.isnan, doc="true where x is nan", **_TEST, complex=True,
                 mp=forms.test("isnan"))
isinf = table.op("isinf", np.isinf, doc="true where x is infinite", **_TEST, complex=True,
                 mp=forms.test("isinf"))
isfinite = table.op("isfinite", np.isfinite, doc="true where x is finite", **_TEST,
                    complex=True, mp=forms.test("isfinite"))
isclose = table.op("isclose",
                   lambda x, y, rtol=1e-05, atol=1e-08, equal_nan=False:
                   np.isclose(x, y, rtol, atol, equal_nan),
                   "(input: Tensor, other: Tensor|Number, rtol: float = 1e-05, "
                   "atol: float = 1e-08, "
                   "equal_nan: bool = False)",
                   doc="isclose(x, y): true where |x - y| <= atol + rtol |y|", kind="binary",
                   method=True, complex=True)
nonzero = table.op("nonzero", lambda x: np.argwhere(x), doc="the indices of the nonzero entries",
                   size=lambda x: np.count_nonzero(x) * np.ndim(x),
                   kind="other", method=True, complex=True)
# fmt: on


@table.composite(
    "allclose",
    "(input: Tensor, other: Tensor|Number, rtol: float = 1e-05, "
    "atol: float = 1e-08, equal_nan: bool = False)",
    kind="binary",
    method=True,
    doc="allclose(x, y): whether every entry of x is close to y's",
    batching=False,
)
def allclose(over, input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.all(np.isclose(raw(input), raw(other), rtol, atol, equal_nan)))


@table.composite(
    "equal",
    "(input: Tensor, other: Tensor)",
    kind="binary",
    method=True,
    doc="equal(x, y): whether x and y have the same shape and entries",
    batching=False,
)
def equal(over, input, other):
    a, b = np.asarray(raw(input)), np.asarray(raw(other))
    return a.shape == b.shape and bool(np.all(a == b))


# ----- choosing entries: the gradient goes where the value came from -----


def _where_forward(x, y, cond):
    return np.where(cond, x, y)


_WHERE_RULES = (
    lambda g, ans, x, y, cond: where(cond, g, 0.0),
    lambda g, ans, x, y, cond: where(cond, 0.0, g),
)


@table.composite(
    "where",
    "(condition: Tensor, input: Tensor|Number, other: Tensor|Number)",
    words=("d where(c, a, b)/da = 1 where c, else 0", "d where(c, a, b)/db = 0 where c, else 1"),
    doc="where(cond, x, y): x where cond is true, else y",
    symbolic=sym.where,
    kind="other",
    function=True,
    promotes=True,
    overloads=[over("WhereBackward0", _WHERE_RULES, forward=_where_forward)],
    domain=("mask", "real", "real"),
    batching=batching.elementwise,
    complex="holomorphic",
    mp=OWN,
)
def where(over, condition, input, other):
    cond = condition._data if type(condition) is Tensor else condition
    return over["WhereBackward0"](input, other, np.asarray(cond, dtype=bool))


@table.composite(
    "masked_fill",
    "(input: Tensor, mask: Index, value: Tensor|Number)",
    words=("d where(c, a, b)/da = 1 where c, else 0", "d where(c, a, b)/db = 0 where c, else 1"),
    doc="masked_fill(x, mask, value): x with value where mask is true",
    kind="other",
    method=True,
    inplace=True,
    promotes=True,
    overloads=[
        over("MaskedFillBackward0", _WHERE_RULES, forward=_where_forward, numbers=False),
        over("MaskedFillBackward1", _WHERE_RULES, forward=_where_forward),
    ],
    complex="holomorphic",
    mp=OWN,
)
def masked_fill(over, input, mask, value):
    cond = np.asarray(raw(mask), dtype=bool)
    key = "MaskedFillBackward1" if type(value) is Tensor else "MaskedFillBackward0"
    return over[key](value, input, cond)
