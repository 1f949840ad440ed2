"""Arithmetic: + - * / **, remainder and floor division, maximum and minimum, atan2.

Each is an operator of Tensor as well as a function: ``x + y`` is ``add(x, y)``.
"""

from __future__ import annotations

import numpy as np

from ...errors import EngineError
from .. import jet_rules as R
from ..complex_rules import is_complex, real_part
from ..declared_samples import Difference, Drawn, Sample
from ..explain import at_tie, pow_zero_base
from ..multiprecision import OWN, quotient
from ..optable import Table, over
from ..tensor import Tensor
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .common import not_implemented
from .comparison import logical_and, where
from .conversion import apply_inplace
from .creation import zero_rule, zeros_like
from .elementwise import log

table = Table("arithmetic")
_BINARY = "(input: Tensor|Number, other: Tensor|Number)"
_ARITHMETIC = dict(kind="binary", method=True, inplace=True)


# fmt: off
add = table.op("add", np.add, _BINARY, grad_fn="AddBackward0",
               rules=(lambda g, ans, x, y: g, lambda g, ans, x, y: g), saves=False, doc="x + y",
               symbol="+", precedence="sum",
               symbolic=lambda s, x, y: x + y,
               kind="binary", method=True, operators=("__add__",), reflected=("__radd__",),
               domain=("real", "real"),
               words=("d(a+b)/da = 1", "d(a+b)/db = 1"), complex="holomorphic", mp=OWN)
sub = table.op("sub", np.subtract, _BINARY, grad_fn="SubBackward0",
               rules=(lambda g, ans, x, y: g, lambda g, ans, x, y: -g), saves=False, doc="x - y",
               symbol="-", precedence="sum",
               other_names=("subtract",),
               symbolic=lambda s, x, y: x - y,
               kind="binary", method=True, operators=("__sub__",), domain=("real", "real"),
               words=("d(a-b)/da = 1", "d(a-b)/db = -1"), complex="holomorphic", mp=OWN)
_RSUB_RULES = (lambda g, ans, x, y: -g, lambda g, ans, x, y: g)
rsub = table.op("rsub", lambda x, y: np.subtract(y, x), _BINARY,
                overloads=[over("RsubBackward0", _RSUB_RULES, when=lambda x, y: type(y) is Tensor),
                           over("RsubBackward1", _RSUB_RULES, numbers=False)], saves=False,
                doc="y - x (a number minus a tensor)", kind="binary", operators=("__rsub__",),
                words=("d(b-a)/da = -1", "d(b-a)/db = 1"), complex="holomorphic", mp=OWN)
mul = table.op("mul", np.multiply, _BINARY, grad_fn="MulBackward0",
               rules=(lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x), doc="x * y",
               symbol="*", precedence="product",
               other_names=("multiply",),
               symbolic=lambda s, x, y: x * y,
               operators=("__mul__", "__imul__"), reflected=("__rmul__",),
               domain=("real", "real"), **_ARITHMETIC,
               words=("d(a*b)/da = b", "d(a*b)/db = a"), saves={"other": 0, "self": 1},
               complex="holomorphic", mp=OWN)
# int / int is a float in the default dtype, as PyTorch: see applying._promote. The rule
# for y divides twice, as PyTorch's: y * y would meet 0 * inf in second derivatives at an
# infinite y (d2/dy2 of 2 / y at -inf is 0, not nan).
div = table.op("div", np.true_divide, _BINARY, grad_fn="DivBackward0",
               rules=(lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ((x / y) / y)),
               doc="x / y", operators=("__truediv__", "__itruediv__"),
               symbol="/", precedence="product",
               other_names=("truediv", "divide"),
               symbolic=lambda s, x, y: x / y,
               domain=("real", "nonzero"), **_ARITHMETIC,
               words=("d(a/b)/da = 1/b", "d(a/b)/db = -a/b**2"), saves={"other": None, "self": 1},
               complex="holomorphic", mp=quotient)
reciprocal = table.op("reciprocal", lambda x: np.true_divide(1, x), grad_fn="ReciprocalBackward0",
                      rules=(lambda g, ans, x: -g * ans * ans,), doc="1 / x", kind="elementwise",
                      symbolic=lambda s, x: 1 / x,
                      kink="-g * ans * ans from the left: a zero gradient stays 0 where "
                      "ans * ans overflows (|x| < 1e-154; PyTorch squares first: nan)",
                      method=True, inplace="library", function=True, domain=("nonzero",),
                      words="d(1/a)/da = -1/a**2", special=(0.0, -0.0),
                      differs=(Difference("at |x| < 1e-154", "a zero gradient stays 0",
                                          "-g * ans * ans from the left; PyTorch squares first",
                                          ("scale 1e-300",), ("grad", "grad2", "jvp", "jacobian",
                                                               "hessian")),), saves=("result",),
                                                               complex="holomorphic",
                                                               mp=forms.reciprocal)
neg = table.op("neg", np.negative, grad_fn="NegBackward0", rules=(lambda g, ans, x: -g,),
               saves=False, doc="-x", kind="elementwise", method=True, inplace="library",
               symbol="-", precedence="unary",
               other_names=("negative",),
               symbolic=lambda s, x: -x,
               operators=("__neg__",), domain=("real",),
               words="d(-a)/da = -1", complex="holomorphic", mp=OWN)
# fmt: on


@table.composite(
    "rdiv",
    "(input: Tensor, other: Tensor|Number)",
    kind="binary",
    library=False,
    doc="a number divided by a tensor, recorded as PyTorch does (MulBackward0)",
    operators=("__rtruediv__",),
    mp=OWN,
)
def rdiv(over, input, other):
    return mul(reciprocal(input), other)


@table.composite(
    "positive",
    "(input: Tensor)",
    kind="elementwise",
    doc="+x: x itself",
    symbol="+",
    precedence="unary",
    operators=("__pos__",),
    symbolic=lambda s, x: x,
    mp=OWN,
)
def positive(over, input):
    return input


def _with_alpha(name, fn):
    @table.composite(
        name + "_",
        "(input: Tensor, other: Tensor|Number, *, alpha: Number = 1)",
        kind="binary",
        method=True,
        library=False,
        doc=f"x = x {'+' if name == 'add' else '-'} alpha * y, in place",
        operators=(f"__i{name}__",),
        mp=OWN,
    )
    def inplace(over, input, other, alpha=1):
        return apply_inplace(input, fn, (other if alpha == 1 else other * alpha,), ufunc=ufunc)

    ufunc = np.add if name == "add" else np.subtract
    return inplace


add_ = _with_alpha("add", add)
sub_ = _with_alpha("sub", sub)


# ----- powers -----


def _pow_base_rule(g, ans, x, p):
    # d/dx x**p = p x**(p-1); PyTorch makes it 0 for p == 0 (not 0 * inf at x = 0).
    if type(p) is Tensor or isinstance(p, np.ndarray):
        return where(p == 0, 0.0, g * p * x ** (p - 1))
    if p == 0:
        return zeros_like(g * x)
    return g * (p * pow(x, p - 1))  # as PyTorch groups and computes it (float32 rounding)


def _pow_exponent_rule(g, ans, x, p):
    # d/dp x**p = x**p log x; 0 where x == 0 and p >= 0 (the limit), as in PyTorch.
    at_zero = logical_and(x == 0, (real_part(p) if is_complex(p) else p) >= 0)  # x a number?
    return where(at_zero, 0.0, g * ans * log(where(at_zero, 1.0, x)))


# PyTorch's kernels for a float tensor to these number powers, which round unlike
# NumPy's power (x * x * x is not powf(x, 3) in the last bit of a float32).
_POWER_KERNELS = {
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -2: lambda x: 1 / (x * x),
    0.5: np.sqrt,
    -0.5: lambda x: 1 / np.sqrt(x),
    -1: lambda x: 1 / x,
}


def _power(x, p):
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and np.ndim(x) is not None:
        x = np.asarray(x)
        if x.dtype.kind in "iu" and p < 0:
            raise EngineError("Integers to negative integer powers are not allowed.")
    if type(x) is np.ndarray and x.dtype.kind == "f" and isinstance(p, (int, float)):
        kernel = _POWER_KERNELS.get(p)
        if kernel is not None and not isinstance(p, bool):
            return kernel(x)
    return np.power(x, p)


def _tensor_exponent(x, p):
    return type(p) is Tensor


pow = table.op(  # noqa: A001  (PyTorch's name)
    "pow",
    _power,
    "(input: Tensor|Number, exponent: Tensor|Number)",
    words=("d(a**p)/da = p*a**(p-1)", "d(a**p)/dp = a**p*ln(a)"),
    kink_at=pow_zero_base,
    overloads=[
        over(
            "PowBackward1",
            (_pow_base_rule, _pow_exponent_rule),
            when=lambda x, p: type(p) is Tensor and type(x) is Tensor,
            saves={"exponent": None, "self": None, "result": 1},
        ),
        over(
            "PowBackward2",
            (None, _pow_exponent_rule),
            when=_tensor_exponent,
            numbers=False,
            saves=("self", "exponent", "result"),
        ),
        over("PowBackward0", (_pow_base_rule, None), numbers=False, saves=("self", "exponent")),
    ],
    doc="x ** p, also written x ^ p",
    symbol=("**", "^"),
    other_names=("power",),
    precedence="power",
    symbolic=lambda s, x, y: x**y,
    kink="d/dx x**0 = 0 everywhere; at a zero base higher derivatives are p(p-1)...x**(p-k) "
    "as PyTorch, and with a tensor exponent the limits from x > 0: d/dp is 0, as PyTorch's, "
    "and so are its derivatives (PyTorch's second derivatives there are nan)",
    function=True,
    operators=("__pow__",),
    reflected=("__rpow__",),
    domain=("positive", "real"),
    differs=(
        Difference(
            "at a zero base with a tensor exponent",
            "second derivatives in p are the limits from x > 0 (0)",
            "PyTorch's are nan",
            ("at 0 (input)", "at -0 (input)"),
            ("hessian",),
        ),
    ),
    complex="holomorphic",
    **_ARITHMETIC,
    mp="power",
)


@table.composite(
    "square",
    "(input: Tensor)",
    kind="elementwise",
    method=True,
    inplace=True,
    doc="square(x): x * x (recorded as x ** 2, as PyTorch does)",
    domain=("real",),
    mp=OWN,
)
def square(over, input):
    return pow(input, 2)


# ----- divisions that round -----


def _integer_division(ufunc):
    """An integer division that raises on a zero divisor, as PyTorch does (NumPy gives 0)."""

    def forward(x, y):
        if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
            raise EngineError("ZeroDivisionError")
        return ufunc(x, y)

    return forward


def _remainder(x, y):
    out = np.remainder(x, y)
    if out.dtype.kind != "f":
        return out
    # PyTorch's is fmod(x, y), moved into y's sign: a zero keeps x's sign (NumPy gives y's).
    return np.where(out == 0, np.copysign(out, x), out).astype(out.dtype, copy=False)


def _floor_quotient(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(x, y)


# PyTorch's x.div(y, rounding_mode="floor"), which remainder's rule takes: a derivative of
# zeros for both inputs (not a chain through floor(x / y), whose zeros meet 0 / 0 at y = 0 and
# 0 * inf at an infinite x: nan second derivatives of x % y where PyTorch's are 0).
div_floor = table.internal(
    "div_floor", _floor_quotient, "(input: Tensor, other: Tensor)", grad_fn="DivBackward2",
    rules=(zero_rule, zero_rule), saves=False, doc="x // y of floats, with derivative 0",
    kind="binary", words=("d(a // b)/da = 0", "d(a // b)/db = 0"),
    samples=(Sample("broadcast", [Drawn("off_integers", (2, 3)), Drawn("positive", (3,))]),)
)  # fmt: skip


def _remainder_divisor_rule(g, ans, x, y):
    # x % y = x - y * (x // y), so d/dy = -(x // y): the same x // y as the value's (not
    # floor(x / y), which differs at an infinite y: -0.87 // inf is -1).
    return -g * div_floor(x, y)


# fmt: off
floor_divide = table.op(
    "floor_divide", _integer_division(np.floor_divide), _BINARY,
    overloads=[over("NotImplemented", (not_implemented("floor_divide"),) * 2, numbers=False)],
    doc="x // y, rounded down", kink="no derivative: backward raises, as in PyTorch",
    symbol="//", precedence="product",
    other_names=("floordiv",), tensor_operands=True, language_constant=True,
    operators=("__floordiv__",), reflected=("__rfloordiv__",), **_ARITHMETIC)
remainder = table.op(
    "remainder", _integer_division(_remainder), _BINARY,
    overloads=[
        over("RemainderBackward1", (lambda g, ans, x, y: g, _remainder_divisor_rule),
             when=lambda x, y: type(x) is Tensor and type(y) is Tensor),
        over("NotImplemented", (None, not_implemented("remainder")),
             when=lambda x, y: type(y) is Tensor, numbers=False),
        over("RemainderBackward0", (lambda g, ans, x, y: g, None), numbers=False),
    ],
    doc="x % y, with the sign of y", kink="the jumps of x // y get gradient 0",
    symbol="%", precedence="product",
    other_names=("mod",), tensor_operands=True,
    operators=("__mod__",), reflected=("__rmod__",), domain=("real", "positive"), **_ARITHMETIC,
    words=("d(a % b)/da = 1", "d(a % b)/db = -(a // b)"))
# fmt: on


# ----- larger, smaller, angle -----


def _pick_rules(beats):
    """The rules of maximum (``beats`` is >) or minimum (<): g goes to each input that the
    other does not beat; where they tie, each gets half. With a nan neither beats the
    other, so both get g, as in PyTorch."""

    def first(g, ans, x, y):
        return where(beats(y, x), 0.0, where(x == y, g / 2, g))

    def second(g, ans, x, y):
        return where(beats(x, y), 0.0, where(x == y, g / 2, g))

    return first, second


def _atan2_rule(sign, numerator):
    # At the origin the gradient is 0, as in PyTorch. The second derivative does not
    # exist there: the branch not taken divides by 0, so it is nan, as in PyTorch. The
    # mask is on the factor, not on g times it: the tangent (the rule's derivative in g)
    # is then 0 there too, not 0 * nan.
    def rule(g, ans, y, x):
        r2 = x * x + y * y
        value = where(r2 == 0, 0.0, numerator(y, x) / r2)
        return g * value if sign > 0 else -g * value

    return rule


_NAN_TIES = "ties share the gradient evenly; at a nan both inputs get it, as PyTorch"
# fmt: off
maximum = table.op("maximum", np.maximum, _BINARY, grad_fn="MaximumBackward0",
                   rules=_pick_rules(lambda a, b: a > b), doc="elementwise larger of x and y",
                   symbolic=lambda s, x, y: s.Max(x, y),
                   kind="binary", kink=_NAN_TIES, function=True,
                   method=True, domain=("distinct", "distinct"),
                   words=(
                       "d maximum(a, b)/da = 1 where a > b, 1/2 at ties, else 0",
                       "d maximum(a, b)/db = 1 where b > a, 1/2 at ties, else 0",
                   ),
                   kink_at=at_tie, saves={"other": None, "self": None}, mp=OWN)
minimum = table.op("minimum", np.minimum, _BINARY, grad_fn="MinimumBackward0",
                   rules=_pick_rules(lambda a, b: a < b), doc="elementwise smaller of x and y",
                   symbolic=lambda s, x, y: s.Min(x, y),
                   kind="binary", kink=_NAN_TIES, function=True,
                   method=True, domain=("distinct", "distinct"),
                   words=(
                       "d minimum(a, b)/da = 1 where a < b, 1/2 at ties, else 0",
                       "d minimum(a, b)/db = 1 where b < a, 1/2 at ties, else 0",
                   ),
                   kink_at=at_tie, saves={"other": None, "self": None}, mp=OWN)
atan2 = table.op("atan2", np.arctan2, "(input: Tensor|Number, other: Tensor|Number)",
                 grad_fn="Atan2Backward0",
                 rules=(_atan2_rule(1, lambda y, x: x), _atan2_rule(-1, lambda y, x: y)),
                 doc="atan2(y, x): the angle of the point (x, y)",
                 symbolic=sym.atan2,
                 other_names=("arctan2",),
                 kink="gradient 0 at the origin; second derivatives nan there (they do not "
                 "exist), as PyTorch",
                 function=True, domain=("real", "positive"), **_ARITHMETIC,
                 words=("d atan2(a, b)/da = b/(a**2+b**2)", "d atan2(a, b)/db = -a/(a**2+b**2)"),
                 special=("origin",), saves={"other": None, "self": None},
                 differs=(Difference("where a**2 + b**2 is below 1e-154 but not 0",
                                     "second derivatives as away from it (0 on an axis)",
                                     "PyTorch squares the reciprocal of a**2 + b**2: nan",
                                     (), ("grad2", "hessian")),), mp="atan2")
# fmt: on


# The Taylor series rules (engine/jet.py).
def _pow_series(b, x, p):
    if not p[1:].any() and np.ndim(p[0]) == 0:  # a number exponent
        return R.power(b, x, float(p[0]))
    return R.exp(b, R.mul(b, p, R.log(b, x)))


table.series(
    add="linear", sub="linear", rsub="linear", neg="linear", mul=R.mul, div=R.div,
    reciprocal=R.reciprocal, pow=_pow_series, maximum="piecewise_linear",
    minimum="piecewise_linear", atan2=R.atan2,
)  # fmt: skip
