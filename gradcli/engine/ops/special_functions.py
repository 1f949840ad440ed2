"""``torch.special``'s functions beyond ``special.py``: logit, xlog1py, entr, ndtr,
ndtri, log_ndtr, the modified Bessel functions i0, i0e, i1, i1e, multigammaln and zeta.

Their forwards use ``scipy.special``, imported inside them (a program that calls
none never loads SciPy); their rules are PyTorch's formulas (derivatives.yaml),
written in differentiable ops so second derivatives follow.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, NotImplementedByGradcli
from .. import jet_rules as R
from ..declared_samples import Difference, Drawn, Sample
from ..dtypes import to_numpy
from ..multiprecision import OWN, constant
from ..multiprecision import elementwise as mp_elementwise
from ..optable import Table
from .common import by_tensor_operands
from .comparison import logical_and, logical_or, where
from .elementwise import erf, exp, log, sign
from .special import digamma

table = Table("special_functions")
_UNARY = dict(kind="elementwise", function=False, method=False)
_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT1_2 = math.sqrt(0.5)
# The rules' constants, to every digit at a working precision (--dps).
_sqrt_2pi = lambda: constant(_SQRT_2PI, lambda m: m.sqrt(2 * m.pi))  # noqa: E731
_sqrt1_2 = lambda: constant(_SQRT1_2, lambda m: m.sqrt(0.5))  # noqa: E731


def _mp_logit(m):
    each = mp_elementwise(lambda x: m.log(x / (1 - x)) if 0 < x < 1 else _logit_edge(m, x), m)

    def logit(x, eps=None):
        if eps is not None:
            x = np.clip(np.asarray(x, dtype=object), m.mpf(eps), 1 - m.mpf(eps))
        return each(x)

    return logit


def _logit_edge(m, x):
    return -m.inf if x == 0 else m.inf if x == 1 else m.nan


def _mp_entr(m):
    return mp_elementwise(lambda x: -m.inf if x < 0 else 0 if x == 0 else -x * m.log(x), m)


def _mp_ndtri(m):
    def ndtri(p):
        if not 0 < p < 1:
            return -m.inf if p == 0 else m.inf if p == 1 else m.nan
        # 2p - 1 keeps p's digits only with as many more as p (or 1 - p) is small.
        with m.extradps(int(-m.log10(min(p, 1 - p))) + 5):
            return m.sqrt(2) * m.erfinv(2 * p - 1)

    return mp_elementwise(ndtri, m)


def _mp_zeta(m):
    # Where SciPy's series converges (x > 1, q > 0), else nan as SciPy and PyTorch give,
    # not mpmath's analytic continuation.
    return mp_elementwise(lambda x, q: m.zeta(x, q) if x > 1 and q > 0 else m.nan, m, 2)


def _mp_xlog1py(m):
    return mp_elementwise(lambda x, y: 0 if x == 0 and y == y else x * m.log1p(y), m, 2)


def _scipy(name):
    def forward(*args):
        import scipy.special

        x = np.asarray(args[0])
        out = np.asarray(getattr(scipy.special, name)(*args))
        return out.astype(np.result_type(x, 1.0)) if x.dtype.kind == "f" else out

    forward.__name__ = name
    return forward


# ----- logit: log(x / (1 - x)), x first clamped to [eps, 1 - eps] -----


def _logit(input, eps=None):
    x = np.asarray(input)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


def _logit_rule(g, ans, x, eps=None):
    # PyTorch's logit_backward: nan outside [0, 1] without eps, 0 outside [eps, 1 - eps]
    # with it (the clamp's derivative).
    if eps is not None:
        return where(logical_or(x < eps, x > 1 - eps), 0.0, g / (x * (1 - x)))
    # +inf at 0 and 1 (at -0 too), as PyTorch; g outside the where, so a jvp's stand-in
    # cotangent of 0 is not multiplied by inf.
    inside = g * where(logical_or(x == 0, x == 1), math.inf, 1 / (x * (1 - x)))
    return where(logical_or(x < 0, x > 1), math.nan, inside)


logit = table.op(
    "logit", _logit, "(input: Tensor, eps: float|None = None)", grad_fn="LogitBackward0",
    rules=(_logit_rule,), doc="log(x / (1 - x)), the inverse of sigmoid; eps clamps x first",
    domain=("probability",), kind="elementwise", method=True, inplace=True,
    kink="derivative nan outside [0, 1], and 0 outside [eps, 1 - eps] with eps, as PyTorch",
    words="d logit(a)/da = 1/(a*(1-a))", saves=("self",),
    differs=(Difference("the Hessian near 0", "0 off the diagonal (entries apart)",
                        "PyTorch's double backward gives nan there (0 * inf)",
                        ("scale 1e-300",), ("hessian",)),), mp=_mp_logit)  # fmt: skip


# ----- xlog1py: x * log1p(y), and 0 where x is 0 -----


def _xlog1py(input, other):
    x, y = np.asarray(input), np.asarray(other)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y)))


def _xlog1py_x_rule(g, ans, x, y):
    # xlog1py(g, y), 0 where x is 0 and y <= -1 (log1p there -inf or nan), as PyTorch.
    return where(logical_and(x == 0, y <= -1), 0.0, xlog1py(g, y))


def _xlog1py_y_rule(g, ans, x, y):
    return g * x / (y + 1)


xlog1py = table.op(
    "xlog1py", _xlog1py, "(input: Tensor|Number, other: Tensor|Number)",
    overloads=by_tensor_operands("SpecialXlog1Py", _xlog1py_x_rule, _xlog1py_y_rule),
    doc="x * log1p(y), and 0 where x is 0", kind="binary", function=False,
    domain=("real", "positive"),
    kink="derivative for x is 0 where x = 0 and y <= -1, as in PyTorch",
    words=("d xlog1py(a, b)/da = log1p(b)", "d xlog1py(a, b)/db = a/(1+b)"),
    saves={"other": None, "self": None}, mp=_mp_xlog1py)  # fmt: skip


# ----- entropy, the normal distribution's inverse and log CDF -----


def _entr(input):
    x = np.asarray(input)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1)), np.where(x == 0, 0.0, -np.inf))
    return np.asarray(np.where(np.isnan(x), np.nan, out), dtype=np.result_type(x, 1.0))


entr = table.op(
    "entr", _entr, grad_fn="SpecialEntrBackward0",
    rules=(lambda g, ans, x: g * -(1 + log(x)),), domain=("positive",), **_UNARY,
    doc="-x log(x) for x > 0, 0 at 0, -inf below", kink="derivative inf at 0",
    words="d entr(a)/da = -(1 + log(a))", saves=("self",), mp=_mp_entr)  # fmt: skip


# The normal distribution's CDF, its log and its inverse are functions of the language:
# SymPy has none of them, so diff reads them through erfc and erfinv.
_NORMAL = dict(kind="elementwise", function=True, method=False)


# PyTorch's ndtr is C++, whose products and sum with a number are the Scalar overloads:
# MulBackward1 and AddBackward1, with no number among their next_functions.
mul_scalar = table.internal(
    "mul_scalar", np.multiply, "(input: Tensor, other: Number)", grad_fn="MulBackward1",
    rules=(lambda g, ans, x, other: g * other,), doc="x * c for a number c, as C++ records it",
    kind="elementwise", words="d(a*k)/da = k", saves=("other",),
    samples=(Sample("2-d", [(3, 2)], {"other": 0.5}),), mp=OWN)  # fmt: skip
add_scalar = table.internal(
    "add_scalar", np.add, "(input: Tensor, other: Number)", grad_fn="AddBackward1",
    rules=(lambda g, ans, x, other: g,), doc="x + c for a number c, as C++ records it",
    kind="elementwise", words="d(a+k)/da = 1", saves=False,
    samples=(Sample("2-d", [(3, 2)], {"other": 0.5}),), mp=OWN)  # fmt: skip


@table.composite(
    "ndtr", "(input: Tensor)", **_NORMAL,
    doc="the standard normal CDF Phi(x), (1 + erf(x / sqrt(2))) / 2", domain=("real",),
    symbolic=lambda s, x: s.erfc(-x / s.sqrt(2)) / 2, other_names=("normcdf", "norm_cdf"),
    samples=(Sample("tails", [[-40.0, -10.0, -1e-3, 8.0, 40.0]]),
             Sample("at inf and nan", [[-math.inf, math.inf, math.nan, -0.0]])), mp=OWN,
)  # fmt: skip
def ndtr(over, input):
    # PyTorch's composite, node for node.
    return mul_scalar(add_scalar(erf(mul_scalar(input, _sqrt1_2())), 1.0), 0.5)


ndtri = table.op(
    "ndtri", _scipy("ndtri"), grad_fn="SpecialNdtriBackward0",
    rules=(lambda g, ans, x: g * _sqrt_2pi() * exp(ans * ans / 2),), domain=("probability",),
    mp=_mp_ndtri,
    doc="the inverse of the standard normal CDF (the probit, the normal quantile)", **_NORMAL,
    symbolic=lambda s, x: s.sqrt(2) * s.erfinv(2 * x - 1),
    other_names=("norminv", "probit", "norm_ppf"),
    kink="value and derivative infinite at 0 and 1",
    samples=(Sample("tails", [[1e-300, 1e-10, 0.025, 0.975, 1 - 1e-10]]),),
    words="d ndtri(a)/da = sqrt(2*pi)*exp(ndtri(a)**2/2)", saves=("result",))  # fmt: skip
log_ndtr = table.op(
    "log_ndtr", _scipy("log_ndtr"), grad_fn="SpecialLogNdtrBackward0",
    rules=(lambda g, ans, x: g / _sqrt_2pi() * exp(-(ans + x * x / 2)),), domain=("real",),
    mp=lambda m: mp_elementwise(lambda x: m.log1p(-m.ncdf(-x)) if x > 0 else m.log(m.ncdf(x)), m),
    doc="log of the standard normal CDF, accurate where the CDF underflows", **_NORMAL,
    symbolic=lambda s, x: s.log(s.erfc(-x / s.sqrt(2)) / 2),
    other_names=("norm_logcdf", "lognormcdf"),
    samples=(Sample("tails", [[-1e3, -40.0, -10.0, 10.0, 40.0]]),),
    words="d log_ndtr(a)/da = exp(-a**2/2 - log_ndtr(a))/sqrt(2*pi)",
    saves=("self", "result"))  # fmt: skip


# ----- the modified Bessel functions of the first kind, orders 0 and 1 -----


def _not_tiny(x):
    """PyTorch's i1 and i1e backward: |x| > eps, where their formulas hold (not at 0,
    not at nan: there the gradient is 1/2, the limit at 0)."""
    return abs(x) > float(np.finfo(to_numpy(x.dtype)).eps)


def _i1_rule(g, ans, x):
    keep = _not_tiny(x)
    safe = where(keep, x, float(np.finfo(to_numpy(x.dtype)).eps))
    return g * where(keep, (safe * i0(safe) - ans) / safe, 0.5)


def _i1e_rule(g, ans, x):
    keep = _not_tiny(x)
    safe = where(keep, x, float(np.finfo(to_numpy(x.dtype)).eps))
    return g * where(keep, i0e(safe) - ans * (sign(safe) + 1 / safe), 0.5)


i0 = table.op(
    "i0", _scipy("i0"), grad_fn="I0Backward0", rules=(lambda g, ans, x: g * i1(x),),
    domain=("real",), doc="modified Bessel function of the first kind, order 0",
    kind="elementwise", function=False, method=True, inplace=True,
    words="d i0(a)/da = i1(a)", saves=("self",))  # fmt: skip
i0e = table.op(
    "i0e", _scipy("i0e"), grad_fn="SpecialI0EBackward0",
    rules=(lambda g, ans, x: g * (i1e(x) - sign(x) * ans),), domain=("real",), **_UNARY,
    doc="exponentially scaled i0: exp(-|x|) i0(x)",
    words="d i0e(a)/da = i1e(a) - sign(a)*i0e(a)", saves=("self", "result"))  # fmt: skip
i1 = table.op(
    "i1", _scipy("i1"), grad_fn="SpecialI1Backward0", rules=(_i1_rule,), domain=("real",),
    doc="modified Bessel function of the first kind, order 1", **_UNARY,
    words="d i1(a)/da = i0(a) - i1(a)/a, and 1/2 at a = 0 and at nan",
    saves=("self", "result"))  # fmt: skip
i1e = table.op(
    "i1e", _scipy("i1e"), grad_fn="SpecialI1EBackward0", rules=(_i1e_rule,), domain=("real",),
    doc="exponentially scaled i1: exp(-|x|) i1(x)", **_UNARY,
    words="d i1e(a)/da = i0e(a) - i1e(a)*(sign(a) + 1/a), and 1/2 at 0 and nan",
    saves=("self", "result"))  # fmt: skip


# ----- multigammaln and the Hurwitz zeta function -----


def _multigammaln(input, p):
    from scipy.special import gammaln

    x = np.asarray(input)
    # gammaln(-inf) is inf, as C99's lgamma and PyTorch give (SciPy's: -inf).
    terms = sum(np.where(x == -np.inf, np.inf, gammaln(x - j / 2)) for j in range(p))
    return np.asarray(terms + p * (p - 1) / 4 * math.log(math.pi), dtype=np.result_type(x, 1.0))


def _multigammaln_rule(g, ans, x, p):
    return g * sum(digamma(x - j / 2) for j in range(p))


def _check_p(input, p):
    if p < 1:
        raise EngineError("p has to be greater than or equal to 1")
    return _multigammaln(input, p)


multigammaln = table.op(
    "multigammaln", _check_p, "(input: Tensor, p: int)", grad_fn="MvlgammaBackward0",
    rules=(_multigammaln_rule,), domain=("above_one", {"p": 3}), kind="elementwise", function=False,
    other_names=("mvlgamma",),
    doc="the log of the multivariate gamma function of dimension p",
    words="d multigammaln(a, p)/da = sum of digamma(a - j/2) for j < p",
    saves=("self",))  # fmt: skip


def _zeta_x_rule(g, ans, x, q):
    raise NotImplementedByGradcli("the derivative for 'zeta' is not implemented.")


def _zeta_q_rule(g, ans, x, q):
    return g * -x * zeta(x + 1.0, q)


def _zeta(input, other):
    # zeta(x, inf) is nan in PyTorch (SciPy: 0).
    out = _scipy("zeta")(input, other)
    return np.asarray(np.where(np.asarray(other) == np.inf, np.nan, out), dtype=out.dtype)


zeta = table.op(
    "zeta", _zeta, "(input: Tensor|Number, other: Tensor|Number)",
    overloads=by_tensor_operands("SpecialZeta", _zeta_x_rule, _zeta_q_rule),
    doc="the Hurwitz zeta function: sum over k >= 0 of (k + q)**-x", kind="binary",
    function=False,  # no domain: the gradcheck sweep would meet the derivative PyTorch lacks
    samples=(Sample("2-d", [Drawn("above_one", (2, 3)), Drawn("positive", (2, 3))]),),
    kink="no derivative for x: backward raises, as in PyTorch",
    words=("d zeta(a, q)/da is not implemented", "d zeta(a, q)/dq = -a*zeta(a+1, q)"),
    saves={"other": None, "self": None}, mp=_mp_zeta)  # fmt: skip


# The Taylor series rules (engine/jet.py).
def _add_number(b, x, other):
    out = np.array(x, dtype=np.float64)
    out[0] += other
    return out


table.series(
    ndtri=R.ndtri, log_ndtr=R.log_ndtr, mul_scalar=lambda b, x, other: x * other,
    add_scalar=_add_number,
)  # fmt: skip
