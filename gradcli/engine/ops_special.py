"""The op table, continued: special and further elementwise functions.

Each op is declared once, with its pieces together: the forward on NumPy arrays,
one rule per tensor input written in the differentiable ops (so second
derivatives need nothing more), the ``grad_fn`` name PyTorch shows (an
``...Backward0`` of gradcli's own where PyTorch lacks the function), a one-line
doc and the convention at kinks. The conventions of ``ops`` hold here too.

The gamma family and erfinv use ``scipy.special``, imported inside their
forwards: a program that calls none of them never loads SciPy.
"""

from __future__ import annotations

import math

import numpy as np

from .ops import (
    OPS,
    Function,
    _function,
    cos,
    defop,
    div,
    exp,
    log,
    logical_and,
    tan,
    where,
)
from .tensor import Tensor

_SQRT_PI = math.sqrt(math.pi)


def _float_like(out, x):
    """``out`` in x's float dtype (float64 for integers: ``ops`` promotes them further)."""
    return np.asarray(out).astype(np.result_type(x, 1.0))


# ----------------------------------------------------------------------------
# Roots, trigonometry, angles
# ----------------------------------------------------------------------------


def _cbrt(input):
    return np.cbrt(input)


def _sec(input):
    return 1 / np.cos(input)


def _csc(input):
    return 1 / np.sin(input)


def _cot(input):
    return 1 / np.tan(input)


def _sinc(input):
    return np.sinc(input)


def _sinc_rule(g, ans, x):
    # sinc'(x) = (cos(pi x) - sinc(x)) / x, which is 0 at 0. There the rule is
    # -pi**2/3 * x: 0 itself, with slope sinc''(0), so second derivatives hold at 0 too.
    at_zero = x == 0
    away = (cos(math.pi * x) - ans) / where(at_zero, 1.0, x)
    return g * where(at_zero, (-(math.pi**2) / 3) * x + 0.0, away)  # + 0.0: no -0 at 0


_DEGREE = math.pi / 180

# fmt: off
cbrt = defop("cbrt", _cbrt, (lambda g, ans, x: g / (3 * ans * ans),), "CbrtBackward0",
             "cube root, real for negative x", "elementwise", kink="derivative inf at 0")
sec = defop("sec", _sec, (lambda g, ans, x: g * ans * tan(x),), "SecBackward0",
            "secant 1 / cos(x) (radians)", "elementwise")
csc = defop("csc", _csc, (lambda g, ans, x: -g * ans * cot(x),), "CscBackward0",
            "cosecant 1 / sin(x) (radians)", "elementwise")
cot = defop("cot", _cot, (lambda g, ans, x: -g * (1 + ans * ans),), "CotBackward0",
            "cotangent 1 / tan(x) (radians)", "elementwise")
sinc = defop("sinc", _sinc, (_sinc_rule,), "SincBackward0",
             "normalized sinc sin(pi x) / (pi x), 1 at 0", "elementwise",
             kink="derivative 0 and second derivative -pi**2/3 at 0, their limits "
                  "(PyTorch's second derivative there is nan)")
deg2rad = defop("deg2rad", np.deg2rad, (lambda g, ans, x: g * _DEGREE,), "Deg2RadBackward0",
                "degrees to radians", "elementwise", saves=False)
rad2deg = defop("rad2deg", np.rad2deg, (lambda g, ans, x: g / _DEGREE,), "Rad2DegBackward0",
                "radians to degrees", "elementwise", saves=False)
hypot = defop("hypot", np.hypot,
              (lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans),
              "HypotBackward0", "sqrt(x**2 + y**2) without overflow", "binary",
              kink="derivative nan at the origin, as in PyTorch")
# fmt: on


def log_of_base(input, base=None):
    """log(x, base=None): the logarithm of x to a base (natural without one)."""
    if base is None:
        return log(input)
    # A number base stays a Python float: a float32 x keeps its dtype.
    denominator = log(base) if type(base) is Tensor else math.log(base)
    return div(log(input), denominator)


# ----------------------------------------------------------------------------
# The gamma family and the error functions
# ----------------------------------------------------------------------------


def _gamma(input):
    from scipy.special import gamma

    return gamma(input)


def _lgamma(input):
    from scipy.special import gammaln

    return gammaln(input)


def _digamma(input):
    from scipy.special import psi

    return psi(input)


def _polygamma(input, n):
    from scipy.special import polygamma

    return _float_like(polygamma(n, input), input)


def _erfc(input):
    # math.erfc is exact; vectorised over the array (no SciPy needed).
    x = np.asarray(input)
    return _float_like(np.frompyfunc(math.erfc, 1, 1)(x), x)


def _erfinv(input):
    from scipy.special import erfinv

    return erfinv(input)


_POLES = "poles at 0, -1, -2, ...: value and derivatives inf or nan there"

# fmt: off
gamma = defop("gamma", _gamma, (lambda g, ans, x: g * ans * digamma(x),), "GammaBackward0",
              "gamma function, gamma(n) = (n - 1)!", "elementwise", kink=_POLES)
lgamma = defop("lgamma", _lgamma, (lambda g, ans, x: g * digamma(x),), "LgammaBackward0",
               "log |gamma(x)|", "elementwise", kink=_POLES)
digamma = defop("digamma", _digamma, (lambda g, ans, x: g * _polygamma_op(x, 1),),
                "DigammaBackward0", "derivative of lgamma", "elementwise", kink=_POLES)
_polygamma_op = defop("polygamma", _polygamma,
                      (lambda g, ans, x, n: g * _polygamma_op(x, n + 1),), "PolygammaBackward0",
                      "polygamma(n, x): n-th derivative of digamma", "elementwise", kink=_POLES)
erfc = defop("erfc", _erfc, (lambda g, ans, x: g * (-2 / _SQRT_PI) * exp(-(x * x)),),
             "ErfcBackward0", "complementary error function 1 - erf(x)", "elementwise")
erfinv = defop("erfinv", _erfinv, (lambda g, ans, x: g * (_SQRT_PI / 2) * exp(ans * ans),),
               "ErfinvBackward0", "inverse error function", "elementwise",
               kink="value and derivative infinite at -1 and 1")
# fmt: on


def polygamma(n, input):
    """polygamma(n, x): the n-th derivative of digamma (polygamma(0, x) is digamma)."""
    return _polygamma_op(input, int(n))


def factorial(input):
    """factorial(x) = gamma(x + 1), for any real x."""
    return gamma(input + 1)


# ----------------------------------------------------------------------------
# xlogy: x * log(y), and 0 where x is 0
# ----------------------------------------------------------------------------


def _xlogy(input, other):
    x, y = np.asarray(input), np.asarray(other)
    return np.asarray(np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y)))


def _xlogy_x_rule(g, ans, x, y):
    # log(y), and 0 where x is 0 and y <= 0 (there log(y) is -inf or nan), as in PyTorch.
    return where(logical_and(x == 0, y <= 0), 0.0, g * log(y))


def _xlogy_y_rule(g, ans, x, y):
    return g * x / y


# fmt: off
_xlogy_tensors = defop("xlogy", _xlogy, (_xlogy_x_rule, _xlogy_y_rule), "XlogyBackward0",
                       "x * log(y), 0 where x is 0", "binary",
                       kink="derivative for x is 0 where x = 0 and y <= 0, as in PyTorch")
_xlogy_of_number = OPS["xlogy"].variant("XlogyBackward1", (None, _xlogy_y_rule))
_xlogy_by_number = OPS["xlogy"].variant("XlogyBackward2", (_xlogy_x_rule, None))
# fmt: on


def xlogy(input, other):
    """xlogy(x, y): x * log(y), and 0 where x is 0 (even where y is 0)."""
    if type(input) is not Tensor and type(other) is Tensor:
        return _xlogy_of_number.fn(input, other)
    if type(input) is Tensor and type(other) is not Tensor:
        return _xlogy_by_number.fn(input, other)
    return _xlogy_tensors(input, other)


# ----------------------------------------------------------------------------
# What the language and the Tensor methods see
# ----------------------------------------------------------------------------

FUNCTIONS = {
    name: _function(name)
    for name in (
        "cbrt", "sec", "csc", "cot", "sinc", "deg2rad", "rad2deg",
        "gamma", "lgamma", "digamma", "erfc", "erfinv", "hypot",
    )
}  # fmt: skip
FUNCTIONS.update(
    ln=Function("ln", log, "natural logarithm, the same as log", "elementwise", OPS["log"]),
    log=Function("log", log_of_base, "logarithm, natural or to a base", "elementwise", OPS["log"]),
    polygamma=_function("polygamma", polygamma, "elementwise"),
    factorial=Function(
        "factorial",
        factorial,
        "gamma(x + 1), for any real x",
        "elementwise",
        OPS["gamma"],
        kink="poles at -1, -2, ...: value and derivatives inf or nan there",
    ),
    xlogy=_function("xlogy", xlogy, "binary"),
)

#: Tensor methods PyTorch has: x.lgamma(), x.xlogy(y) ...
METHODS = {
    name: FUNCTIONS[name].call
    for name in ("sinc", "deg2rad", "rad2deg", "lgamma", "digamma", "erfc", "erfinv", "hypot",
                 "xlogy")
}  # fmt: skip
METHODS["polygamma"] = lambda input, n: polygamma(n, input)
INPLACE_METHODS = {name + "_": method for name, method in METHODS.items()}

__all__ = [
    "cbrt", "sec", "csc", "cot", "sinc", "deg2rad", "rad2deg", "hypot",
    "gamma", "lgamma", "digamma", "polygamma", "factorial", "erfc", "erfinv", "xlogy",
]  # fmt: skip
