"""The series rules of the elementwise and binary ops (``jet.py`` propagates them).

Each rule takes the basis and its inputs' jets (``(M, *shape)`` arrays) and returns
the result's. Most functions are the solution of ``y' = d x'`` with ``d`` a jet
computed first (``integral``: log, atan, asin, erf...) or degree by degree from
``y`` itself (``ode``: exp, tanh, sigmoid...); the rest are Griewank and Walther's
recurrences (products, quotients, powers, square roots, sine and cosine together)
or a composition with a function's own derivatives at the point (digamma).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import GradcliValueError


def aligned(*jets):
    """Jets broadcast to one shape: their entries' shapes aligned from the right, after
    the coefficients' axis (a scalar's jet ``(M,)`` against a vector's ``(M, n)``)."""
    nd = max(j.ndim for j in jets)
    jets = [j.reshape(j.shape[:1] + (1,) * (nd - j.ndim) + j.shape[1:]) for j in jets]
    shape = np.broadcast_shapes(*(j.shape for j in jets))
    return [np.broadcast_to(j, shape) for j in jets]


def add(b, x, y):
    x, y = aligned(x, y)
    return x + y


def mul(b, x, y):
    x, y = aligned(x, y)
    return np.concatenate([b.graded(x, y, k) for k in range(b.order + 1)])


def div(b, x, y):
    x, y = aligned(x, y)
    out = np.zeros(x.shape)
    out[0] = x[0] / y[0]
    for k in range(1, b.order + 1):
        out[b.part(k)] = (x[b.part(k)] - b.graded(y, out, k)) / y[0]
    return out


def reciprocal(b, x):
    return div(b, one(b, x), x)


def one(b, x):
    """The series of the constant 1, shaped as x's."""
    series = np.zeros_like(x)
    series[0] = 1.0
    return series


def integral(b, x, d, y0):
    """``y`` with ``y(0) = y0`` and ``y' = d x'``, ``d`` known to every degree."""
    ex, d = aligned(b.euler(x), d)
    out = np.zeros(ex.shape)
    out[0] = y0
    for k in range(1, b.order + 1):
        out[b.part(k)] = b.graded(ex, d, k) / k
    return out


def ode(b, x, y0, d_part):
    """``y`` with ``y(0) = y0`` and ``y' = d x'``, where ``d_part(y, d, j)`` gives the
    degree-``j`` part of ``d`` from the parts of ``y`` up to degree ``j``."""
    ex = b.euler(x)
    y = np.zeros(x.shape)
    d = np.zeros(x.shape)
    y[0] = y0
    for k in range(1, b.order + 1):
        d[b.part(k - 1)] = d_part(y, d, k - 1)
        y[b.part(k)] = b.graded(ex, d, k) / k
    return y


def _unit(j, part):
    """The constant 1 as a degree-``j`` part."""
    return np.ones_like(part) if j == 0 else np.zeros_like(part)


def exp(b, x, scale=1.0):
    return ode(b, x, np.exp(scale * x[0]), lambda y, d, j: scale * y[b.part(j)])


def exp2(b, x):
    return exp(b, x, math.log(2.0))


def expm1(b, x):
    y = exp(b, x)
    y[0] = np.expm1(x[0])
    return y


def tanh(b, x):
    return ode(b, x, np.tanh(x[0]), lambda y, d, j: _unit(j, y[b.part(j)]) - b.graded(y, y, j))


def tan(b, x):
    return ode(b, x, np.tan(x[0]), lambda y, d, j: _unit(j, y[b.part(j)]) + b.graded(y, y, j))


def sigmoid(b, x):
    y0 = 1.0 / (1.0 + np.exp(-x[0]))
    return ode(b, x, y0, lambda y, d, j: y[b.part(j)] - b.graded(y, y, j))


def sin_cos(b, x, hyperbolic=False):
    """sin and cos (sinh and cosh) together: each one's derivative is the other."""
    ex = b.euler(x)
    s, c = np.zeros(x.shape), np.zeros(x.shape)
    s[0], c[0] = (np.sinh(x[0]), np.cosh(x[0])) if hyperbolic else (np.sin(x[0]), np.cos(x[0]))
    sign = 1.0 if hyperbolic else -1.0
    for k in range(1, b.order + 1):
        s[b.part(k)] = b.graded(ex, c, k) / k
        c[b.part(k)] = sign * b.graded(ex, s, k) / k
    return s, c


def sqrt(b, x):
    y = np.zeros(x.shape)
    y[0] = np.sqrt(x[0])
    if b.order and np.any(x[0] == 0):
        raise GradcliValueError("sqrt: no Taylor series at 0 (its derivative is infinite)")
    for k in range(1, b.order + 1):
        y[b.part(k)] = (x[b.part(k)] - b.graded(y, y, k)) / (2 * y[0])
    return y


def power(b, x, p):
    """``x ** p`` for a number ``p``: ``x y' = p y x'`` degree by degree, or by
    products for a whole power (which may start at 0)."""
    p = float(p)
    if p == int(p) and abs(p) <= 64:
        n = int(abs(p))
        y = one(b, x)
        base = x
        while n:  # by squaring
            if n & 1:
                y = mul(b, y, base)
            n >>= 1
            if n:
                base = mul(b, base, base)
        return reciprocal(b, y) if p < 0 else y
    if b.order and np.any(x[0] == 0):
        raise GradcliValueError(f"pow: no Taylor series of x**{p:g} at x = 0")
    ex = b.euler(x)
    y = np.zeros(x.shape)
    y[0] = np.sign(x[0]) * np.abs(x[0]) ** p if p == 1 / 3 else np.power(x[0], p)
    for k in range(1, b.order + 1):
        y[b.part(k)] = (p * b.graded(ex, y, k) - b.graded(x, b.euler(y), k)) / (k * x[0])
    return y


def log(b, x, scale=1.0):
    return integral(b, x, reciprocal(b, x) * scale, np.log(x[0]) * scale)


def compose(b, x, coefficients):
    """``Σ_j a_j (x - x0)**j`` for the Taylor coefficients ``a_j`` of a function at x0."""
    h = x.copy()
    h[0] = 0.0
    y = np.zeros(x.shape)
    y[0] = coefficients(0)
    term = one(b, x)
    for j in range(1, b.order + 1):
        term = mul(b, term, h)
        y += coefficients(j) * term
    return y


def polygamma(b, x, n=0):
    from scipy import special

    x0 = x[0]
    return compose(b, x, lambda j: special.polygamma(n + j, x0) / math.factorial(j))


def lgamma(b, x):
    from scipy import special

    return integral(b, x, polygamma(b, x), special.gammaln(x[0]))


def gamma(b, x):
    from scipy import special

    psi = polygamma(b, x)
    return ode(b, x, special.gamma(x[0]), lambda y, d, j: b.graded(y, psi, j))


def erf(b, x, complement=False):
    from scipy import special

    x_squared = mul(b, x, x)
    d = exp(b, -x_squared) * (2.0 / math.sqrt(math.pi)) * (-1.0 if complement else 1.0)
    return integral(b, x, d, special.erfc(x[0]) if complement else special.erf(x[0]))


def erfinv(b, x):
    """``y' = (√π/2) exp(y**2) x'``."""
    from scipy import special

    square = lambda y, j: b.graded(y, y, j)  # noqa: E731
    return ode(b, x, special.erfinv(x[0]), _exp_of(b, x.shape, square, math.sqrt(math.pi) / 2))


def _exp_of(b, shape, u_part, scale):
    """``d_part`` for ``ode``: ``scale * exp(u)``, where ``u_part(y, j)`` gives the degree-``j``
    part of ``u`` from ``y``'s parts up to degree ``j``; ``w = exp(u)`` follows ``w' = w u'``."""
    u, w = np.zeros(shape), np.zeros(shape)

    def d_part(y, d, j):
        u[b.part(j)] = u_part(y, j)
        if j == 0:
            w[0] = np.exp(u[0])
        else:
            w[b.part(j)] = b.graded(b.euler(u), w, j) / j
        return scale * w[b.part(j)]

    return d_part


def ndtri(b, x):
    """``y' = sqrt(2 pi) exp(y**2 / 2) x'``."""
    from scipy import special

    half_square = lambda y, j: b.graded(y, y, j) / 2  # noqa: E731
    d_part = _exp_of(b, x.shape, half_square, math.sqrt(2 * math.pi))
    return ode(b, x, special.ndtri(x[0]), d_part)


def log_ndtr(b, x):
    """``y' = exp(-x**2 / 2 - y) x' / sqrt(2 pi)``: the exponent stays moderate where
    the CDF underflows (log_ndtr(-40) = -804.6, x**2 / 2 = 800)."""
    from scipy import special

    x_squared = mul(b, x, x)
    exponent = lambda y, j: -x_squared[b.part(j)] / 2 - y[b.part(j)]  # noqa: E731
    d_part = _exp_of(b, x.shape, exponent, 1 / math.sqrt(2 * math.pi))
    return ode(b, x, special.log_ndtr(x[0]), d_part)


def atan2(b, y, x):
    x, y = aligned(x, y)
    shape = x.shape
    q = reciprocal(b, mul(b, x, x) + mul(b, y, y))
    xq, yq = mul(b, x, q), mul(b, y, q)
    ex, ey = b.euler(x), b.euler(y)
    out = np.zeros(shape)
    out[0] = np.arctan2(y[0], x[0])
    for k in range(1, b.order + 1):
        out[b.part(k)] = (b.graded(ey, xq, k) - b.graded(ex, yq, k)) / k
    return out


def select(mask, x, y):
    """``x`` where ``mask`` (a value of the point), else ``y``: a piecewise function's
    series is the series of the piece the point lies in."""
    x, y = aligned(x, y)
    return np.where(mask, x, y)


def constant_like(b, x, value):
    out = np.zeros(x.shape)
    out[0] = value
    return out
