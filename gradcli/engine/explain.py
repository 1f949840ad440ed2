"""What each op means to a reader: its local derivative in words, and when an
evaluation lands on a point where the op has no derivative.

Both are fields of the op's declaration (``optable``), read here:

- ``words``: one text per input (one for all inputs of a variadic op), the rule
  the reverse pass applies to that input, as ``gradcli grad --steps`` shows it.
  ``a``, ``b`` are the op's inputs in order, ``g`` the gradient the node
  received; an input named otherwise is named by its rule (``d(a**p)/dp``). Every
  grad_fn variant of an op (PowBackward0, PowBackward1 ...) reads the same words.
- ``kink_at``: ``check(a)``, one of the checks below, given the arguments the op
  was called with bound by the schema's names (``a["input"]``, ``a["dim"]``,
  defaults filled in), whether passed by position or keyword; it returns where the
  evaluation sits on a kink (``"at 0"``) or None, and may return ``(where, convention)`` for a case
  the entry's one-line kink text does not describe (``max(x, dim)``). Each check
  names its kink points (``check.points``): numbers an input entry is set to, or
  ``"tie"`` (an entry equal to another), ``"bound"`` (an entry on clamp's bound),
  ``"origin"`` (0 in every input at one place), ``"zeros"`` (an input all 0). The
  op-sample matrix and the fuzzers put inputs on them (``opinfo.kink_points``).

A check only reads values: it never changes a result.
"""

from __future__ import annotations

import re

import numpy as np

from .tensor import Tensor

# ----------------------------------------------------------------------------
# The local rule of each op, in words
# ----------------------------------------------------------------------------

_DEFAULT_NAMES = ("a", "b", "c")


def rule_words(entry, index: int) -> str | None:
    """The rule of input ``index`` of the op ``entry`` in words, or None if there is none."""
    words = entry.words
    if words is None:
        return None
    return words[min(index, len(words) - 1)]


def operands_named(entry, rule: str) -> tuple[tuple[int, str], ...]:
    """``(index, name)`` of the inputs whose value the right-hand side of ``rule``
    uses (``d(a*b)/da = b``: input 1, b)."""
    used = rule.partition(" = ")[2]
    return tuple(
        (i, name) for i, name in enumerate(_operand_names(entry)) if re.search(rf"\b{name}\b", used)
    )


def _operand_names(entry) -> tuple[str, ...]:
    """The names the rules give the op's inputs: the variable each input's rule
    differentiates by (``d(a**p)/dp``: p), else a, b, c."""
    names = list(_DEFAULT_NAMES)
    for i, text in enumerate((entry.words or ())[: len(names)]):
        found = re.search(r"/d([a-z])\b", text)
        if found:
            names[i] = found[1]
    return tuple(names)


# ----------------------------------------------------------------------------
# Kinks: where an evaluation sits on a point where the op has no derivative
# ----------------------------------------------------------------------------


def kink(entry, args, kwargs) -> tuple[str, str | None] | None:
    """``(where, convention)`` when calling the op ``entry`` with ``args`` and ``kwargs``
    sits on a kink, else None; the convention is None where the entry's kink text states
    it. The check reads the arguments bound once by the schema's names (``Schema.by_name``):
    an argument given by keyword is found where one given by position is."""
    check = entry.kink_at
    found = None if check is None else check(entry.schema.by_name(args, kwargs))
    if found is None or isinstance(found, tuple):
        return found
    return found, None


def _values(x) -> np.ndarray:
    return np.asarray(x._data if type(x) is Tensor else x)


def _count(hits: np.ndarray, what: str) -> str | None:
    """``what``, with how many entries when some but not all are there; None for none."""
    hits = np.asarray(hits, dtype=bool)
    n = int(np.count_nonzero(hits))
    if n == 0:
        return None
    if hits.size > 1:
        return f"{what} in {n} of {hits.size} entries"
    return what


def _points(*points):
    """Name the kink points of the check it decorates (see the module docstring)."""

    def name(check):
        check.points = points
        return check

    return name


def _axis(x: np.ndarray, dim):
    """A reduction's ``dim`` as NumPy's axis: None for every dim (None, [] or a 0-d input,
    whose dim 0 or -1 names no axis)."""
    if dim is None or x.ndim == 0 or np.size(dim) == 0:
        return None
    return tuple(np.atleast_1d(dim).tolist())


@_points(0.0, -0.0)
def at_zero(a):
    return _count(_values(a["input"]) == 0, "at 0")


@_points(1.0, -2.0, 0.0)
def at_integer(a):
    x = _values(a["input"])
    return _count(np.isfinite(x) & (x == np.floor(x)), "at an integer")


@_points(1.0, -2.0)
def at_nonzero_integer(a):
    x = _values(a["input"])
    return _count(np.isfinite(x) & (x == np.floor(x)) & (x != 0), "at an integer")


@_points(0.5, 1.5, -2.5)
def at_half_integer(a):
    x = _values(a["input"])
    return _count(x - np.floor(x) == 0.5, "halfway between two integers")


@_points("bound")
def on_bound(a):
    x = _values(a["input"])
    found = []
    for name, bound in a.items():  # every parameter but the input is a bound (clamp's)
        if name != "input" and bound is not None:
            hit = _count(x == _values(bound), f"on its bound {name}")
            found += [hit] if hit else []
    return " and ".join(found) or None


@_points("tie")
def at_tie(a):
    return _count(_values(a["input"]) == _values(a["other"]), "at a tie of its two operands")


def _reduction_ties(x, dim, largest: bool) -> str | None:
    x = _values(x)
    if x.size == 0:
        return None
    axis = _axis(x, dim)
    extreme = np.amax(x, axis=axis, keepdims=True) if largest else np.amin(x, axis, keepdims=True)
    shared = np.sum(x == extreme, axis=axis) > 1
    word = "largest" if largest else "smallest"
    return _count(shared, f"at a tie for the {word} entry")


def extreme_ties(largest: bool):
    @_points("tie")
    def check(a):
        return _reduction_ties(a["input"], a.get("dim"), largest)

    return check


def max_min_ties(largest: bool):
    """max/min: ties of the two operands of ``max(x, y)``, else ties in the reduction;
    ``max(x, dim)`` gives the gradient to the index it returns."""

    @_points("tie")
    def check(a):
        other = a.get("other")
        other = a.get("dim") if other is None else other  # max(x, y): y in dim's place
        if type(other) is Tensor:
            return at_tie({"input": a["input"], "other": other})
        where = _reduction_ties(a["input"], other, largest)
        if where is None or other is None:
            return where
        return where, "along a dim, the gradient goes to the index it returns"

    return check


@_points("zeros", 0.0)
def norm_origin(a):
    x = _values(a["input"])
    if x.size == 0:
        return None
    return _count(np.all(x == 0, axis=_axis(x, a.get("dim"))), "at the origin")


@_points(0.0)
def pow_zero_base(a):
    # A number as the base (0**p) is smooth in p: only a tensor base has the kink.
    if type(a["input"]) is not Tensor:
        return None
    base, exponent = _values(a["input"]), _values(a["exponent"])
    real = np.real(exponent)  # a complex exponent is an integer only on the real axis
    fractional = np.isfinite(exponent) & ((real != np.floor(real)) | (np.imag(exponent) != 0))
    where = _count((base == 0) & fractional, "at base 0 with a non-integer exponent")
    return None if where is None else (where, _POW_CONVENTION)


_POW_CONVENTION = "the derivative p*x**(p-1) is taken as it is: inf at 0 for p < 1, 0 for p > 1"


@_points("origin")
def at_origin(a):
    return _count((_values(a["input"]) == 0) & (_values(a["other"]) == 0), "at the origin")


def pole(shift: int):
    """The gamma family: poles where x + shift is 0 or a negative integer."""

    @_points(float(-shift), float(-shift - 1), float(-shift - 2.0))
    def check(a):
        x = _values(a["input"]) + shift
        return _count(np.isfinite(x) & (x <= 0) & (x == np.floor(x)), "at a pole")

    return check
