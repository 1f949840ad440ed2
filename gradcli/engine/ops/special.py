"""Special and further elementwise functions: roots, reciprocal trigonometry, sinc,
angles, hypot, the gamma family, erfc and erfinv, xlogy.

The gamma family and erfinv use ``scipy.special``, imported inside their forwards:
a program that calls none of them never loads SciPy.
"""

from __future__ import annotations

import math

import numpy as np

from .. import jet_rules as R
from ..declared_samples import Difference, Drawn, Sample
from ..explain import at_origin, at_zero, pole
from ..multiprecision import OWN, constant
from ..multiprecision import elementwise as mp_elementwise
from ..optable import Table
from . import sympy_forms as sym
from .common import by_tensor_operands
from .comparison import logical_and, where
from .elementwise import cos, exp, log, tan

table = Table("special")
_ELEMENTWISE = dict(kind="elementwise", function=True)
_TORCH = dict(method=True, inplace=True)  # a Tensor method and in-place form, as in PyTorch
_SQRT_PI = math.sqrt(math.pi)
_DEGREE = math.pi / 180
# The rules' constants, to every digit at a working precision (--dps).
_sqrt_pi = lambda: constant(_SQRT_PI, lambda m: m.sqrt(m.pi))  # noqa: E731
_degree = lambda: constant(_DEGREE, lambda m: m.pi / 180)  # noqa: E731
_POLES = "poles at 0, -1, -2, ...: value and derivatives inf or nan there"


def _float_like(out, x):
    """``out`` in x's float dtype (float64 for integers: the op promotes them further)."""
    return np.asarray(out).astype(np.result_type(x, 1.0))


# sinc'(x) = sum over k >= 1 of a_k x**(2k-1), a_k = (-1)**k pi**(2k) 2k / (2k+1)!: near 0
# the closed form (cos(pi x) - sinc(x)) / x cancels (x = -8.1e-8 lost 0.6% of sinc' and
# 1.2% of sinc''). Below the threshold the series, to double precision: its terms past
# these are under 1e-20 of the first there; above it the closed form loses no digit.
_SINC_SERIES_BELOW = 0.25
_SINC_SERIES = tuple(
    (-1) ** k * math.pi ** (2 * k) * 2 * k / math.factorial(2 * k + 1) for k in range(1, 11)
)


def _sinc_rule(g, ans, x):
    # Both forms in differentiable ops, so sinc'' follows from the same choice (the
    # series gives -pi**2/3 at 0, the limit).
    small = abs(x) < _SINC_SERIES_BELOW
    near = where(small, x, 0.0)  # the series' x: never a huge one (0 * inf in sinc'')
    x2 = near * near
    series = _SINC_SERIES[-1]
    for a in reversed(_SINC_SERIES[:-1]):  # Horner's form in x**2
        series = a + x2 * series
    away = (cos(math.pi * x) - ans) / where(small, 1.0, x)
    return g * where(small, near * series + 0.0, away)  # + 0.0: no -0 at 0


def _gamma(input):
    from scipy.special import gamma

    return gamma(input)


def _lgamma(input):
    from scipy.special import gammaln

    # lgamma(-inf) is inf, as C99's lgamma and PyTorch give (SciPy's gammaln: -inf).
    x = np.asarray(input)
    return np.where(x == -np.inf, np.inf, gammaln(x)) if x.dtype.kind == "f" else gammaln(x)


def _digamma(input):
    from scipy.special import psi

    return psi(input)


def _polygamma(input, n):
    from scipy.special import polygamma

    # Trigamma at -inf, between ever denser poles, has no limit: nan, as PyTorch (SciPy: inf).
    x = np.asarray(input)
    out = polygamma(n, x)
    return _float_like(np.where(x == -np.inf, np.nan, out) if n == 1 else out, input)


def _erfc(input):
    # math.erfc is exact; vectorised over the array (no SciPy needed).
    x = np.asarray(input)
    return _float_like(np.frompyfunc(math.erfc, 1, 1)(x), x)


def _mp_polygamma(m):
    return lambda x, n: mp_elementwise(lambda v: m.polygamma(n, v), m)(x)


def _erfinv(input):
    from scipy.special import erfinv

    return erfinv(input)


# fmt: off
cbrt = table.op("cbrt", np.cbrt, grad_fn="CbrtBackward0",
                rules=(lambda g, ans, x: g / (3 * ans * ans),),
                doc="cube root, real for negative x", kink="derivative inf at 0",
                symbolic=sym.cbrt,
                domain=("nonzero",), **_ELEMENTWISE,
                words="d cbrt(a)/da = 1/(3*cbrt(a)**2)", kink_at=at_zero,
                mp=lambda m: mp_elementwise(lambda x: m.sign(x) * m.cbrt(abs(x)), m))
sec = table.op("sec", lambda input: 1 / np.cos(input), grad_fn="SecBackward0",
               rules=(lambda g, ans, x: g * ans * tan(x),), doc="secant 1 / cos(x) (radians)",
               symbolic=lambda s, x: s.sec(x),
               domain=("real",), **_ELEMENTWISE,
               words="d sec(a)/da = sec(a)*tan(a)", mp="sec")
csc = table.op("csc", lambda input: 1 / np.sin(input), grad_fn="CscBackward0",
               rules=(lambda g, ans, x: -g * ans * cot(x),), doc="cosecant 1 / sin(x) (radians)",
               symbolic=lambda s, x: s.csc(x),
               domain=("nonzero",), **_ELEMENTWISE,
               words="d csc(a)/da = -csc(a)*cot(a)", mp="csc")
cot = table.op("cot", lambda input: 1 / np.tan(input), grad_fn="CotBackward0",
               rules=(lambda g, ans, x: -g * (1 + ans * ans),),
               doc="cotangent 1 / tan(x) (radians)", domain=("nonzero",), **_ELEMENTWISE,
               symbolic=lambda s, x: s.cot(x),
               words="d cot(a)/da = -(1 + cot(a)**2)", mp="cot")
sinc = table.op("sinc", lambda input: np.sinc(input), grad_fn="SincBackward0", rules=(_sinc_rule,),
                doc="normalized sinc sin(pi x) / (pi x), 1 at 0",
                symbolic=sym.sinc,
                kink="derivative 0 and second derivative -pi**2/3 at 0, their limits "
                     "(PyTorch's second derivative there is nan)",
                domain=("real",), **_ELEMENTWISE, **_TORCH,
                words="d sinc(a)/da = (cos(pi*a) - sinc(a))/a, and 0 at a = 0",
                special=(0.0,),
                differs=(Difference("at 0", "second derivative -pi**2/3, its limit",
                                    "PyTorch's is nan (and so its jvp, a double backward)",
                                    ("at 0", "at -0"), ("grad2", "jvp", "hessian")),
                         Difference("near 0", "derivatives from the series, to double precision",
                                    "PyTorch's formula cancels: nan at 1e-300",
                                    ("scale 1e-300",), ("grad2", "jvp", "hessian"))),
                saves=("self",), complex="holomorphic")
deg2rad = table.op("deg2rad", np.deg2rad, grad_fn="Deg2RadBackward0",
                   rules=(lambda g, ans, x: g * _degree(),), saves=False, doc="degrees to radians",
                   mp="radians",
                   symbolic=lambda s, x: x * s.pi / 180,
                   other_names=("radians",),
                   domain=("real",), **_ELEMENTWISE, **_TORCH,
                   words="d deg2rad(a)/da = pi/180")
rad2deg = table.op("rad2deg", np.rad2deg, grad_fn="Rad2DegBackward0",
                   rules=(lambda g, ans, x: g / _degree(),), saves=False, doc="radians to degrees",
                   mp="degrees",
                   symbolic=lambda s, x: x * 180 / s.pi,
                   other_names=("degrees",),
                   domain=("real",), **_ELEMENTWISE, **_TORCH,
                   words="d rad2deg(a)/da = 180/pi")
hypot = table.op("hypot", np.hypot, "(input: Tensor, other: Tensor)", grad_fn="HypotBackward0",
                 rules=(lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans),
                 doc="sqrt(x**2 + y**2) without overflow", kind="binary", function=True,
                 symbolic=lambda s, x, y: s.sqrt(x**2 + y**2),
                 kink="derivative nan at the origin, as in PyTorch",
                 domain=("nonzero", "nonzero"), **_TORCH,
                 words=("d hypot(a, b)/da = a/hypot(a, b)", "d hypot(a, b)/db = b/hypot(a, b)"),
                 kink_at=at_origin, mp="hypot")
gamma = table.op("gamma", _gamma, grad_fn="GammaBackward0",
                 rules=(lambda g, ans, x: g * ans * digamma(x),),
                 doc="gamma function, gamma(n) = (n - 1)!", kink=_POLES, domain=("positive",),
                 symbolic=lambda s, x: s.gamma(x),
                 other_names=("tgamma",),
                 **_ELEMENTWISE,
                 words="d gamma(a)/da = gamma(a)*digamma(a)", kink_at=pole(0), mp="gamma")
lgamma = table.op("lgamma", _lgamma, grad_fn="LgammaBackward0",
                  rules=(lambda g, ans, x: g * digamma(x),), doc="log |gamma(x)|", kink=_POLES,
                  symbolic=sym.lgamma,
                  other_names=("loggamma", "gammaln"),
                  domain=("positive",), **_ELEMENTWISE, **_TORCH,
                  words="d lgamma(a)/da = digamma(a)", kink_at=pole(0),
                  differs=(Difference("second order at a pole", "inf, trigamma's limit from "
                                      "either side", "PyTorch's series gives a finite 6.6e32 "
                                      "at -1", ("at -1", "at -2"), ("grad2", "hessian")),),
                   saves=("self",),
                   mp=lambda m: mp_elementwise(lambda x: m.log(abs(m.gamma(x))), m))
digamma = table.op("digamma", _digamma, grad_fn="DigammaBackward0",
                   rules=(lambda g, ans, x: g * polygamma_op(x, 1),),
                   doc="derivative of lgamma", kink=_POLES, domain=("positive",),
                   symbolic=lambda s, x: s.digamma(x),
                   other_names=("psi",),
                   **_ELEMENTWISE, **_TORCH,
                   words="d digamma(a)/da = polygamma(1, a)", kink_at=pole(0),
                   differs=(Difference("the derivative at a pole", "inf, trigamma's limit "
                                       "from either side", "PyTorch's series gives a finite "
                                       "6.6e32 at -1", ("at -1", "at -2"),
                                       ("grad", "jvp", "jacobian")),
                            Difference("second order at inf", "0, polygamma(2, x)'s limit",
                                       "PyTorch gives nan", ("at inf",), ("grad2", "hessian"))),
                   saves=("self",), mp="digamma")
polygamma_op = table.internal("polygamma_op", _polygamma, "(input: Tensor, n: int)",
                              grad_fn="PolygammaBackward0",
                              rules=(lambda g, ans, x, n: g * polygamma_op(x, n + 1),),
                              doc="polygamma(n, x) with x first", kind="elementwise", kink=_POLES,
                              words="d polygamma(n, a)/da = polygamma(n+1, a)",
                              samples=(Sample("n 2", [Drawn("positive", (2, 3))], {"n": 2}),),
                              mp=_mp_polygamma)
erfc = table.op("erfc", _erfc, grad_fn="ErfcBackward0",
                rules=(lambda g, ans, x: g * (-2 / _sqrt_pi()) * exp(-(x * x)),), mp="erfc",
                doc="complementary error function 1 - erf(x)", domain=("real",),
                symbolic=lambda s, x: s.erfc(x),
                **_ELEMENTWISE, **_TORCH,
                words="d erfc(a)/da = -2/sqrt(pi)*exp(-a**2)", saves=("self",))
erfinv = table.op("erfinv", _erfinv, grad_fn="ErfinvBackward0",
                  rules=(lambda g, ans, x: g * (_sqrt_pi() / 2) * exp(ans * ans),), mp="erfinv",
                  doc="inverse error function", kink="value and derivative infinite at -1 and 1",
                  symbolic=lambda s, x: s.erfinv(x),
                  domain=("unit",), **_ELEMENTWISE, **_TORCH,
                  words="d erfinv(a)/da = sqrt(pi)/2*exp(erfinv(a)**2)")
# fmt: on


@table.composite(
    "polygamma",
    "(n: int, input: Tensor)",
    kink_at=pole(0),
    doc="the n-th derivative of digamma (polygamma(0, x) is digamma)",
    symbolic=lambda s, n, x: s.polygamma(n, x),
    kink=_POLES,
    **_ELEMENTWISE,
    mp=OWN,
)
def polygamma(over, n, input):
    return polygamma_op(input, int(n))


@table.composite(
    "factorial",
    "(input: Tensor)",
    kink_at=pole(1),
    doc="gamma(x + 1), for any real x",
    symbolic=lambda s, x: s.gamma(x + 1),
    kink="poles at -1, -2, ...: value and derivatives inf or nan there",
    **_ELEMENTWISE,
    mp=OWN,
)
def factorial(over, input):
    return gamma(input + 1)


@table.composite(
    "ln",
    "(input: Tensor)",
    domain=("positive",),
    doc="natural logarithm, the same as log",
    symbolic=lambda s, x: s.log(x),
    library=False,
    **_ELEMENTWISE,
    mp=OWN,
)
def ln(over, input):
    return log(input)


# ----- xlogy: x * log(y), and 0 where x is 0 -----


def _xlogy(input, other):
    x, y = np.asarray(input), np.asarray(other)
    return np.asarray(np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y)))


def _mp_xlogy(m):
    return mp_elementwise(lambda x, y: 0 if x == 0 and y == y else x * m.log(y), m, 2)


def _xlogy_x_rule(g, ans, x, y):
    # log(y), and 0 where x is 0 and y <= 0 (there log(y) is -inf or nan), as in PyTorch;
    # xlogy(g, y), not g * log(y): a zero g stays 0 beside a nan log(y), so the rows of a
    # Jacobian are not nan off their entry (PyTorch's formula).
    return where(logical_and(x == 0, y <= 0), 0.0, xlogy(g, y))


def _xlogy_y_rule(g, ans, x, y):
    return g * x / y


xlogy = table.op(
    "xlogy",
    _xlogy,
    "(input: Tensor|Number, other: Tensor|Number)",
    words=("d xlogy(a, b)/da = log(b), and 0 where a = 0 and b <= 0", "d xlogy(a, b)/db = a/b"),
    overloads=by_tensor_operands("Xlogy", _xlogy_x_rule, _xlogy_y_rule),
    doc="x * log(y), and 0 where x is 0 (even where y is 0)",
    symbolic=sym.xlogy,
    kind="binary",
    kink="derivative for x is 0 where x = 0 and y <= 0, as in PyTorch",
    domain=("real", "positive"),
    function=True,
    saves={"other": None, "self": None},
    **_TORCH, mp=_mp_xlogy,
)  # fmt: skip


# The Taylor series rules (engine/jet.py).
def _sinc_series(b, x):
    # At 0, sin(pi x)/(pi x) = sum of (-1)**m (pi x)**(2m) / (2m + 1)!; elsewhere the quotient.
    at_zero = R.compose(
        b, x, lambda j: 0.0 if j % 2 else (-1) ** (j // 2) * math.pi**j / math.factorial(j + 1)
    )
    px = math.pi * x
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = R.div(b, R.sin_cos(b, px)[0], px)
    return R.select(x[0] == 0, at_zero, quotient)


def _gamma_family(name):
    return lambda b, x, *rest: getattr(R, name)(b, x, *rest)


table.series(
    cbrt=lambda b, x: R.power(b, x, 1 / 3),
    sec=lambda b, x: R.reciprocal(b, R.sin_cos(b, x)[1]),
    csc=lambda b, x: R.reciprocal(b, R.sin_cos(b, x)[0]),
    cot=lambda b, x: R.div(b, *reversed(R.sin_cos(b, x))),
    sinc=_sinc_series, deg2rad="linear", rad2deg="linear",
    hypot=lambda b, x, y: R.sqrt(b, R.add(b, R.mul(b, x, x), R.mul(b, y, y))),
    gamma=_gamma_family("gamma"), lgamma=_gamma_family("lgamma"),
    digamma=_gamma_family("polygamma"), polygamma_op=_gamma_family("polygamma"),
    erfc=lambda b, x: R.erf(b, x, complement=True), erfinv=R.erfinv,
    xlogy=lambda b, x, y: R.mul(b, x, R.log(b, y)),
)  # fmt: skip
