"""Elementwise functions of one tensor: exp, log, the trigonometric family, sigmoid, relu,
rounding, clamp. Each is a method, has an in-place form, and the language can call it."""

from __future__ import annotations

import math

import numpy as np

from ...errors import GradcliTypeError
from .. import float32_kernels as f32
from .. import jet_rules as R
from .. import limits
from ..complex_rules import conjugate, real_part
from ..declared_samples import TRANSFORMS, Difference, Drawn, Sample
from ..explain import at_half_integer, at_integer, at_nonzero_integer, at_zero, on_bound
from ..multiprecision import OWN, constant
from ..multiprecision import elementwise as mp_elementwise
from ..optable import Table, form, over
from ..tensor import Tensor
from . import language_forms as lf
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .comparison import where
from .creation import zero_rule

table = Table("elementwise")
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# The rules' constants, to every digit at a working precision (--dps).
_ln2 = lambda: constant(_LN2, lambda m: m.ln2)  # noqa: E731
_ln10 = lambda: constant(_LN10, lambda m: m.ln10)  # noqa: E731
_erf_scale = lambda: constant(_TWO_OVER_SQRT_PI, lambda m: 2 / m.sqrt(m.pi))  # noqa: E731


def elementwise(name, forward, grad_fn, rule, doc, domain, **fields):
    """An elementwise function of one tensor: x.name(), x.name_(), name(x) and name_(x)."""
    fields = {"inplace": "library", "function": True, "method": True, **fields}
    return table.op(
        name,
        forward,
        fields.pop("schema", "(input: Tensor)"),
        grad_fn=grad_fn,
        rules=(rule,),
        doc=doc,
        kind="elementwise",
        domain=(domain,),
        **fields,
    )


def piecewise_constant(name, forward, grad_fn, doc, **fields):
    """An elementwise function whose gradient is 0 wherever it exists (floor, sign)."""
    fields.setdefault("kink", "gradient 0 everywhere, jumps included")
    return elementwise(
        name, forward, grad_fn, zero_rule, doc, "off_integers", saves=False, **fields
    )


# The derivatives of tanh, sigmoid, relu and leaky_relu as ops of their own (PyTorch's
# tanh_backward, sigmoid_backward, threshold_backward, leaky_relu_backward), so a
# differentiable reverse pass records their nodes under PyTorch's names
# (TanhBackwardBackward0) and computes in its order. A gradient that depends on its input
# only through a mask (x > 0) is still a function of it, with derivative 0 (zero_rule, not
# None): a second derivative there is 0, as PyTorch's, not "does not require grad".
# fmt: off
tanh_backward = table.internal(
    "tanh_backward", lambda g, y: g * (1 - y * y), "(grad_output: Tensor, output: Tensor)",
    float32=f32.tanh_backward,
    grad_fn="TanhBackwardBackward0",
    rules=(lambda gg, ans, g, y: tanh_backward(gg, y), lambda gg, ans, g, y: gg * (-2 * y * g)),
    doc="g * (1 - y**2): the gradient of tanh from its output", kind="elementwise",
    words=("d/dg = 1 - y**2", "d/dy = -2*y*g"), samples=(Sample("2-d", [(2, 3), (2, 3)]),),
    complex="holomorphic", mp=OWN)
sigmoid_backward = table.internal(
    "sigmoid_backward", lambda g, y: g * (1 - y) * y, "(grad_output: Tensor, output: Tensor)",
    grad_fn="SigmoidBackwardBackward0",
    rules=(lambda gg, ans, g, y: sigmoid_backward(gg, y),
           lambda gg, ans, g, y: gg * g * (-2 * y + 1)),
    doc="g * (1 - y) * y: the gradient of sigmoid from its output", kind="elementwise",
    words=("d/dg = (1-y)*y", "d/dy = g*(1-2*y)"),
    samples=(Sample("2-d", [(2, 3), Drawn("probability", (2, 3))]),), complex="holomorphic", mp=OWN)
threshold_backward = table.internal(
    "threshold_backward", lambda g, x, threshold: np.where(x <= threshold, 0.0, g).astype(
        np.result_type(g, x), copy=False),
    "(grad_output: Tensor, input: Tensor, threshold: Number)",
    grad_fn="ThresholdBackwardBackward0",
    rules=(lambda gg, ans, g, x, threshold: threshold_backward(gg, x, threshold), zero_rule),
    doc="g where input > threshold, else 0: the gradient of relu", kind="elementwise",
    words=("d/dg = 1 where input > threshold, else 0", "d/dinput = 0"),
    samples=(Sample("2-d", [(2, 3), Drawn("nonzero", (2, 3))], {"threshold": 0}),), mp=OWN)
leaky_relu_backward = table.internal(
    "leaky_relu_backward", lambda g, x, negative_slope: np.where(
        x > 0, g, g * negative_slope).astype(np.result_type(g, x)),
    "(grad_output: Tensor, input: Tensor, negative_slope: float)",
    grad_fn="LeakyReluBackwardBackward0",
    rules=(lambda gg, ans, g, x, slope: leaky_relu_backward(gg, x, slope), zero_rule),
    doc="g where input > 0, else negative_slope * g: the gradient of leaky_relu",
    kind="elementwise", words=("d/dg = 1 where input > 0, else negative_slope", "d/dinput = 0"),
    samples=(Sample("2-d", [(2, 3), Drawn("nonzero", (2, 3))], {"negative_slope": 0.2}),), mp=OWN)
# fmt: on


def _mp_rsqrt(m):
    return mp_elementwise(lambda x: 1 / m.sqrt(x), m)


def _mp_trunc(m):
    return mp_elementwise(lambda x: m.floor(x) if x >= 0 else m.ceil(x), m)


def _sgn(x):
    if not np.iscomplexobj(x):
        x = np.asarray(x)
        return np.where(np.isnan(x), 0.0, np.sign(x)).astype(x.dtype)
    magnitude = np.abs(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude))


def _sgn_rule(g, ans, x):
    # PyTorch's sgn_backward: only the angle moves sgn(z) = z/|z|; 0 at z = 0.
    magnitude = abs(x)
    return where(magnitude == 0, 0.0, (g - ans * real_part(g * conjugate(ans))) / magnitude)


# fmt: off
abs = elementwise("abs", np.abs, "AbsBackward0", lambda g, ans, x: g * sign(x), "absolute value",
                  "nonzero", operators=("__abs__",),
                  symbolic=lambda s, x: s.Abs(x),
                  other_names=("fabs", "absolute"),
                  kink="d|x|/dx = 0 at x = 0; nan at nan (PyTorch gives 0: its sign(nan) is 0)",
                  words="d|a|/da = sign(a)", kink_at=at_zero,
                  differs=(Difference("at nan", "gradient nan", "sign(nan) is nan, not 0",
                                      ("at nan",), ("grad", "jvp", "jacobian")),), saves=("self",),
                  complex=(lambda g, ans, x: g * sgn(x),), mp=OWN)
sgn = table.op("sgn", _sgn, grad_fn="SgnBackward0", rules=(zero_rule,),
               doc="z / |z| (0 at 0); the sign of a real x", words="d sgn(a) = i*sgn(a)*d angle(a)",
               domain=("nonzero",), complex=(_sgn_rule,), kind="elementwise", function=True,
               method=True,
               symbolic=lambda s, x: sym.step(s, "sign")(x),
               kink="gradient 0 at 0, as PyTorch", saves=("self", "result"), mp="sign")
sign = piecewise_constant("sign", np.sign, "SignBackward0", "-1, 0 or 1 by the sign of x",
                          symbolic=lambda s, x: sym.step(s, "sign")(x),
                          inplace=True,  # no torch.sign_
                          kink="gradient 0 everywhere; sign(nan) is nan (PyTorch gives 0)",
                          words="d sign(a)/da = 0", kink_at=at_zero,
                          differs=(Difference("at nan", "sign(nan) is nan (PyTorch: 0)",
                                              "nan in, nan out", ("at nan",),
                                              ("value", "batched")),), mp="sign")
sqrt = elementwise("sqrt", np.sqrt, "SqrtBackward0", lambda g, ans, x: g / (2 * ans), "square root",
                   "positive", kink="derivative inf at 0",
                   symbolic=lambda s, x: s.sqrt(x),
                   words="d sqrt(a)/da = 1/(2*sqrt(a))", kink_at=at_zero, saves=("result",),
                   complex="holomorphic", mp="sqrt")
rsqrt = elementwise("rsqrt", lambda x: 1 / np.sqrt(x), "RsqrtBackward0",
                    lambda g, ans, x: -0.5 * g * ans * ans * ans, "1 / sqrt(x)", "positive",
                    function=False,
                    words="d(1/sqrt(a))/da = -1/(2*a**1.5)",
                    differs=(Difference("at |x| < 1e-154", "a zero gradient stays 0",
                                        "-g * ans**3 from the left, as reciprocal",
                                        ("scale 1e-300",), ("grad", "grad2", "jvp", "jacobian",
                                                             "hessian")),), saves=("result",),
                                                             complex="holomorphic",
                                                             mp=_mp_rsqrt)
exp = elementwise("exp", np.exp, "ExpBackward0", lambda g, ans, x: g * ans, "e ** x", "real",
                  symbolic=lambda s, x: s.exp(x),
                  words="d exp(a)/da = exp(a)", saves=("result",), complex="holomorphic", mp="exp",
                  float32=f32.correctly_rounded(np.exp))
expm1 = elementwise("expm1", np.expm1, "Expm1Backward0", lambda g, ans, x: g * (ans + 1),
                    "exp(x) - 1, accurate near 0", "real",
                    symbolic=lambda s, x: s.exp(x) - 1,
                    words="d expm1(a)/da = exp(a)", saves=("result",), complex="holomorphic",
                    mp="expm1", float32=f32.expm1)
log = elementwise("log", np.log, "LogBackward0", lambda g, ans, x: g / x, "natural logarithm",
                  "positive",
                  symbolic=lambda s, x: s.log(x),
                  language_form=form(lf.WITH_BASE, "logarithm, natural or to a base", lf.with_base),
                  words="d log(a)/da = 1/a", special=(0.0,), saves=("self",), complex="holomorphic",
                  mp="ln", float32=f32.correctly_rounded(np.log))
log2 = elementwise("log2", np.log2, "Log2Backward0", lambda g, ans, x: g / (x * _ln2()),
                   "base-2 logarithm", "positive",
                   symbolic=lambda s, x: s.log(x, 2),
                   words="d log2(a)/da = 1/(a*ln 2)", special=(0.0,), saves=("self",),
                   complex="holomorphic", mp=lambda m: mp_elementwise(lambda x: m.log(x, 2), m),
                   float32=f32.correctly_rounded(np.log2))
log10 = elementwise("log10", np.log10, "Log10Backward0", lambda g, ans, x: g / (x * _ln10()),
                    "base-10 logarithm", "positive",
                    symbolic=lambda s, x: s.log(x, 10),
                    words="d log10(a)/da = 1/(a*ln 10)", special=(0.0,), saves=("self",),
                    complex="holomorphic", mp="log10", float32=f32.correctly_rounded(np.log10))
log1p = elementwise("log1p", np.log1p, "Log1PBackward0", lambda g, ans, x: g / (x + 1),
                    "log(1 + x), accurate near 0", "positive",
                    symbolic=lambda s, x: s.log(1 + x),
                    words="d log1p(a)/da = 1/(1+a)", special=(-1.0,), saves=("self",),
                    complex="holomorphic", mp="log1p", float32=f32.log1p)
sin = elementwise("sin", np.sin, "SinBackward0", lambda g, ans, x: g * cos(x), "sine (radians)",
                  "real",
                  symbolic=lambda s, x: s.sin(x),
                  words="d sin(a)/da = cos(a)", saves=("self",), complex="holomorphic", mp="sin",
                  float32=f32.correctly_rounded(np.sin))
cos = elementwise("cos", np.cos, "CosBackward0", lambda g, ans, x: -g * sin(x), "cosine (radians)",
                  "real",
                  symbolic=lambda s, x: s.cos(x),
                  words="d cos(a)/da = -sin(a)", saves=("self",), complex="holomorphic", mp="cos",
                  float32=f32.correctly_rounded(np.cos))
tan = elementwise("tan", np.tan, "TanBackward0", lambda g, ans, x: g * (1 + ans * ans),
                  "tangent (radians)", "real",
                  symbolic=lambda s, x: s.tan(x),
                  words="d tan(a)/da = 1 + tan(a)**2", saves=("result",), complex="holomorphic",
                  mp="tan", float32=f32.correctly_rounded(np.tan))
asin = elementwise("asin", np.arcsin, "AsinBackward0", lambda g, ans, x: g / sqrt(1 - x * x),
                   "inverse sine", "unit",
                   symbolic=lambda s, x: s.asin(x),
                   other_names=("arcsin",),
                   words="d asin(a)/da = 1/sqrt(1-a**2)", special=(1.0, -1.0), saves=("self",),
                   complex="holomorphic", mp="asin")
acos = elementwise("acos", np.arccos, "AcosBackward0", lambda g, ans, x: -g / sqrt(1 - x * x),
                   "inverse cosine", "unit",
                   symbolic=lambda s, x: s.acos(x),
                   other_names=("arccos",),
                   words="d acos(a)/da = -1/sqrt(1-a**2)", special=(1.0, -1.0), saves=("self",),
                   complex="holomorphic", mp="acos")
atan = elementwise("atan", np.arctan, "AtanBackward0", lambda g, ans, x: g / (1 + x * x),
                   "inverse tangent", "real",
                   symbolic=lambda s, x: s.atan(x),
                   other_names=("arctan",),
                   words="d atan(a)/da = 1/(1+a**2)", saves=("self",), complex="holomorphic",
                   mp="atan", float32=f32.correctly_rounded(np.arctan))
sinh = elementwise("sinh", np.sinh, "SinhBackward0", lambda g, ans, x: g * cosh(x),
                   "hyperbolic sine", "real",
                   symbolic=lambda s, x: s.sinh(x),
                   words="d sinh(a)/da = cosh(a)", saves=("self",), complex="holomorphic",
                   mp="sinh")
cosh = elementwise("cosh", np.cosh, "CoshBackward0", lambda g, ans, x: g * sinh(x),
                   "hyperbolic cosine", "real",
                   symbolic=lambda s, x: s.cosh(x),
                   words="d cosh(a)/da = sinh(a)", saves=("self",), complex="holomorphic",
                   mp="cosh")
tanh = elementwise("tanh", np.tanh, "TanhBackward0", lambda g, ans, x: tanh_backward(g, ans),
                   "hyperbolic tangent", "real", nn_functional=True,
                   symbolic=lambda s, x: s.tanh(x),
                   words="d tanh(a)/da = 1 - tanh(a)**2", saves=("result",), complex="holomorphic",
                   mp="tanh", float32=f32.correctly_rounded(np.tanh))
asinh = elementwise("asinh", np.arcsinh, "AsinhBackward0", lambda g, ans, x: g / sqrt(x * x + 1),
                    "inverse hyperbolic sine", "real",
                    symbolic=lambda s, x: s.asinh(x),
                    other_names=("arcsinh",),
                    words="d asinh(a)/da = 1/sqrt(a**2+1)", saves=("self",), complex="holomorphic",
                    mp="asinh")
acosh = elementwise("acosh", np.arccosh, "AcoshBackward0", lambda g, ans, x: g / sqrt(x * x - 1),
                    "inverse hyperbolic cosine", "above_one",
                    symbolic=lambda s, x: s.acosh(x),
                    other_names=("arccosh",),
                    words="d acosh(a)/da = 1/sqrt(a**2-1)", special=(1.0,),
                    # sqrt(a**2-1) takes the other branch off the real line: PyTorch's form
                    complex=(lambda g, ans, x: g / conjugate(sqrt(x - 1) * sqrt(x + 1)),),
                    mp="acosh")
atanh = elementwise("atanh", np.arctanh, "AtanhBackward0", lambda g, ans, x: g / (1 - x * x),
                    "inverse hyperbolic tangent", "unit",
                    symbolic=lambda s, x: s.atanh(x),
                    other_names=("arctanh",),
                    words="d atanh(a)/da = 1/(1-a**2)", special=(1.0, -1.0), complex="holomorphic",
                    mp="atanh")
# fmt: on


def sigmoid_array(x):
    if np.iscomplexobj(x):
        return 1 / (1 + np.exp(-x))
    # exp(-|x|) never overflows; the two branches agree where both are exact.
    e = np.exp(-np.abs(x))
    return np.where(np.asarray(x) >= 0, 1 / (1 + e), e / (1 + e)).astype(np.result_type(x, 1.0))


def _softplus(x, beta=1.0, threshold=20.0):
    bx = np.multiply(x, beta)
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(np.result_type(x, 1.0))


def _softplus_rule(g, ans, x, beta=1.0, threshold=20.0):
    return where(x * beta > threshold, g, g * sigmoid(x * beta))


def erf_array(x):
    # math.erf is exact; vectorised over the array (no SciPy dependency).
    x = np.asarray(x)
    return np.asarray(np.frompyfunc(math.erf, 1, 1)(x)).astype(np.result_type(x, 1.0))


def _clamp(x, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise GradcliTypeError("clamp: at least one of 'min' or 'max' must not be None")
    return np.clip(x, min, max)


def _clamp_rule(g, ans, x, min=None, max=None):  # noqa: A002
    inside = True
    if min is not None:
        inside = x >= min
    if max is not None:
        inside = (x <= max) if min is None else inside & (x <= max)
    return where(inside, g, 0.0)


def _clamp_min_rule(g, ans, x, min, max=None):  # noqa: A002
    # The lower bound is the result where it exceeds x, unless the upper bound wins
    # (below it, or equal to it: then neither bound gets the gradient, as in PyTorch).
    above = x < min
    if max is not None:
        above = above & (min < max)
    return where(above, g, 0.0)


def _clamp_max_rule(g, ans, x, min=None, max=None):  # noqa: A002
    below = x > max
    if min is not None:
        below = below | (min > max)
    return where(below, g, 0.0)


def _tensor_bound(x, min=None, max=None):  # noqa: A002
    return type(min) is Tensor or type(max) is Tensor


# fmt: off
sigmoid = elementwise("sigmoid", sigmoid_array, "SigmoidBackward0",
                      lambda g, ans, x: sigmoid_backward(g, ans),
                      "logistic function 1 / (1 + exp(-x))", "real", nn_functional=True,
                      symbolic=lambda s, x: 1 / (1 + s.exp(-x)),
                      other_names=("logistic", "expit"),
                      words="d sigmoid(a)/da = sigmoid(a)*(1-sigmoid(a))", saves=("result",),
                      complex="holomorphic",
                      mp=lambda m: mp_elementwise(lambda x: 1 / (1 + m.exp(-x)), m),
                      float32=f32.sigmoid)
relu = elementwise("relu", lambda x: np.maximum(x, 0), "ReluBackward0",
                   lambda g, ans, x: threshold_backward(g, x, 0), "max(x, 0)", "nonzero",
                   symbolic=sym.relu,
                   kink="relu'(0) = 0; at nan the gradient passes, as PyTorch",
                   nn_functional="inplace, name_",
                   words="d relu(a)/da = 1 where a > 0, else 0", kink_at=at_zero, saves=("result",),
                   mp=OWN)
softplus = elementwise("softplus", _softplus, "SoftplusBackward0", _softplus_rule,
                       "log(1 + exp(x)), smooth relu", "real", inplace=False, nn_functional=True,
                       symbolic=sym.softplus,
                       kink="at beta*x == threshold the value and every derivative are the smooth "
                       "branch's (PyTorch's second derivative there is 0, not its first "
                       "derivative's)",
                       schema="(input: Tensor, beta: Number = 1.0, threshold: Number = 20.0)",
                       words="d softplus(a)/da = sigmoid(beta*a)",
                       differs=(Difference("at beta*x == threshold",
                                           "every derivative is the smooth branch's",
                                           "PyTorch's second derivative there is 0", (),
                                           ("grad2", "jvp", "hessian")),), mp=forms.softplus,
                       float32=f32.softplus)
erf = elementwise("erf", erf_array, "ErfBackward0",
                  lambda g, ans, x: g * _erf_scale() * exp(-(x * x)), "error function", "real",
                  symbolic=lambda s, x: s.erf(x),
                  words="d erf(a)/da = 2/sqrt(pi)*exp(-a**2)", saves=("self",), mp="erf",
                  float32=f32.erf)
floor = piecewise_constant("floor", np.floor, "FloorBackward0", "round down",
                           symbolic=lambda s, x: sym.step(s, "floor")(x),
                           words="d floor(a)/da = 0", kink_at=at_integer, mp="floor")
trunc = piecewise_constant("trunc", np.trunc, "TruncBackward0", "round toward zero",
                           function=False,
                           words="d trunc(a)/da = 0", kink_at=at_nonzero_integer,
                           mp=_mp_trunc)
ceil = piecewise_constant("ceil", np.ceil, "CeilBackward0", "round up",
                          symbolic=lambda s, x: sym.step(s, "ceiling")(x),
                          words="d ceil(a)/da = 0", kink_at=at_integer, mp="ceil")
round = piecewise_constant("round", np.round, "RoundBackward0", "round half to even",
                           symbolic="round half to even has no SymPy function",
                           schema="(input: Tensor, *, decimals: int = 0)",
                           words="d round(a)/da = 0", kink_at=at_half_integer,
                           mp=forms.round_half_even)
clamp = table.op("clamp", _clamp,
                 "(input: Tensor, min: Number|Tensor = None, max: Number|Tensor = None)",
                 overloads=[over("ClampBackward0", (_clamp_rule, _clamp_min_rule, _clamp_max_rule),
                                 when=_tensor_bound),
                            over("ClampBackward1", (_clamp_rule,))],
                 # Bounds that are arrays but not inputs (no gradient) broadcast too.
                 size=limits.broadcast_size,
                 doc="clamp(x, min, max): x limited to [min, max]", kind="elementwise",
                 symbolic=sym.clamp,
                 kink="x gets the gradient on the bounds; a tensor bound gets it where it is the "
                 "result, max where min > max, neither where x < min == max",
                 aliases=("clip",), method=True, inplace="library", function=True,
                 domain=("real", {"min": -0.5, "max": 0.5}),
                 words="d clamp(a, min, max)/da = 1 where min <= a <= max, else 0",
                 kink_at=on_bound,
                 samples=(Sample("tensor min, number max", [(2, 3), (2, 3)], {"max": 0.5}),
                          Sample("1-d", [(6,)], {"min": -0.5, "max": 0.5})),
                 differs=(Difference("a tensor bound beside a number bound",
                                     "accepted: each bound broadcasts against x",
                                     "PyTorch's overloads take both bounds as tensors or both "
                                     "as numbers: a TypeError; the call's meaning is plain",
                                     ("tensor min, number max",),
                                     tuple(t for t in TRANSFORMS if t != "grad2"),  # both raise
                                     accepts=True),), mp=OWN)
# fmt: on


# The Taylor series rules (engine/jet.py): each function's coefficients from its input's.
def _series_ln(scale):
    return lambda b, x: R.log(b, x, scale)


def _inverse_trig(sign, shift):
    """asin, acos, asinh, acosh: y' = sign / sqrt(shift + sign2 * x**2) x'."""
    forward = {(1, 1): np.arcsin, (-1, 1): np.arccos, (1, 2): np.arcsinh, (1, 3): np.arccosh}
    under = {1: (1.0, -1.0), 2: (1.0, 1.0), 3: (-1.0, 1.0)}[shift]

    def rule(b, x):
        d = sign * R.reciprocal(b, R.sqrt(b, under[0] * R.one(b, x) + under[1] * R.mul(b, x, x)))
        return R.integral(b, x, d, forward[(sign, shift)](x[0]))

    return rule


def _softplus_series(b, x, beta=1.0, threshold=20.0):
    bx = x * beta
    y = R.integral(b, bx, R.sigmoid(b, bx), np.logaddexp(0, bx[0])) / beta
    return R.select(bx[0] > threshold, x, y)


table.series(
    abs="piecewise_linear", sign="piecewise_linear", sgn="piecewise_linear",
    relu="piecewise_linear", floor="piecewise_linear", trunc="piecewise_linear",
    ceil="piecewise_linear", round="piecewise_linear", clamp="piecewise_linear",
    sqrt=R.sqrt, rsqrt=lambda b, x: R.power(b, x, -0.5), exp=R.exp,
    expm1=R.expm1, log=R.log, log2=_series_ln(1 / _LN2), log10=_series_ln(1 / _LN10),
    log1p=lambda b, x: R.integral(b, x, R.reciprocal(b, x + R.one(b, x)), np.log1p(x[0])),
    sin=lambda b, x: R.sin_cos(b, x)[0], cos=lambda b, x: R.sin_cos(b, x)[1],
    tan=R.tan, sinh=lambda b, x: R.sin_cos(b, x, True)[0],
    cosh=lambda b, x: R.sin_cos(b, x, True)[1], tanh=R.tanh,
    asin=_inverse_trig(1, 1), acos=_inverse_trig(-1, 1), asinh=_inverse_trig(1, 2),
    acosh=_inverse_trig(1, 3),
    atan=lambda b, x: R.integral(
        b, x, R.reciprocal(b, R.one(b, x) + R.mul(b, x, x)), np.arctan(x[0])),
    atanh=lambda b, x: R.integral(
        b, x, R.reciprocal(b, R.one(b, x) - R.mul(b, x, x)), np.arctanh(x[0])),
    sigmoid=R.sigmoid, softplus=_softplus_series, erf=R.erf,
)  # fmt: skip
