"""The longer symbolic forms of the entries (``Op.symbolic``, see ``optable``), and their helpers.

A form is called with the SymPy module and the op's arguments: a tensor as a NumPy array of
SymPy expressions, a number as the schema types it. SymPy is never imported here (nor
anywhere in the engine): ``gradcli diff`` hands its module to each form.
"""

from __future__ import annotations

import functools

import numpy as np


def each(f, *xs):
    """``f`` of each entry of the arrays, broadcast."""
    return np.frompyfunc(f, len(xs), 1)(*xs)


def reduction(combine):
    """A sum, mean or product over ``dim`` (all of them by default), as PyTorch's keepdim."""
    return lambda s, x, dim=None, keepdim=False: combine(x, axis=dim, keepdims=keepdim)


def extreme(name: str):
    """amax or amin (``name`` is SymPy's ``"Max"`` or ``"Min"``) over ``dim``, its derivative
    shared evenly among tied entries (``tied``)."""

    def form(s, x, dim=None, keepdim=False):
        if x.size == 0:
            raise ValueError("of an empty tensor, which has no extreme")
        if x.ndim == 0:
            return x
        dims = tuple(range(x.ndim)) if dim is None else tuple(np.atleast_1d(dim) % x.ndim)
        kept = [d for d in range(x.ndim) if d not in dims]
        rows = np.transpose(x, kept + list(dims)).reshape([x.shape[d] for d in kept] + [-1])
        out = np.empty(rows.shape[:-1], dtype=object)
        for index in np.ndindex(*out.shape):
            out[index] = tied(s, name)(*rows[index])
        return np.expand_dims(out, dims) if keepdim else out

    return form


@functools.cache
def tied(s, name: str):
    """SymPy's ``Max`` or ``Min`` of one reduction's entries, whose derivative is shared evenly
    among the tied entries, as the engine's and PyTorch's (1/3 each of three): SymPy's own
    gives each Heaviside(0) = 1/2. Of two entries, SymPy's own: 1/2 is the even share."""
    plain = getattr(s, name)

    def eval(cls, *args):
        if len(args) <= 2 or all(a.is_number for a in args):
            return plain(*args)
        return None

    def fdiff(self, argindex=1):
        at = [s.Piecewise((1, s.Eq(a, self)), (0, True)) for a in self.args]
        return at[argindex - 1] / s.Add(*at)

    return type(name, (s.Function,), {"eval": classmethod(eval), "fdiff": fdiff, "is_real": True})


def extreme_or_pair(name: str):
    """max(x) of all entries, or max(x, y) entry by entry."""
    whole = extreme(name)
    return lambda s, x, other=None: (
        whole(s, x) if other is None else each(getattr(s, name), x, other)
    )


@functools.cache
def step(s, name: str):
    """SymPy's ``floor``, ``ceiling`` or ``sign`` with derivative 0, PyTorch's convention:
    SymPy's own leave floor's unevaluated and make sign's a DiracDelta, which no number can be
    put into."""
    zero = lambda self, *args: s.S.Zero  # noqa: E731
    return type(name, (getattr(s, name),), {"fdiff": zero, "_eval_derivative": zero})


def lgamma(s, x):
    # |gamma| as sign(gamma)*gamma, sign's derivative 0: the derivative is digamma, where
    # Abs's is of real and imaginary parts (nan at a pole, where the engine's is -inf).
    gamma = s.gamma(x)
    return s.log(step(s, "sign")(gamma) * gamma)


def xlogy(s, x, y):
    # 0 where x = 0, and its derivative for x 0 there where y <= 0 alone, as PyTorch's.
    return s.Piecewise((0, s.Eq(x, 0) & (y <= 0)), (x * s.log(y), True))


def relu(s, x):
    # relu'(0) = 0, as PyTorch's: Max(x, 0)'s derivative, Heaviside(x), is 1/2 there.
    return s.Piecewise((x, x > 0), (0, True))


def softplus(s, x, beta=1, threshold=20):
    # Linear above the threshold, as PyTorch's.
    return s.Piecewise((x, beta * x > threshold), (s.log(1 + s.exp(beta * x)) / beta, True))


def clamp(s, x, min=None, max=None):
    """x's branch holds on both bounds, where it gets the gradient, and max's where min > max,
    as PyTorch's (Min(Max(x, min), max) gives Heaviside(0) = 1/2 on a bound)."""
    low = -s.oo if min is None else min
    high = s.oo if max is None else max
    return s.Piecewise((high, (x > high) | (high < low)), (low, x < low), (x, True))


def atan2(s, y, x):
    # 0 at the origin, with gradient 0 there, as PyTorch's (SymPy's atan2(0, 0) is nan). Not
    # Eq(y, 0) & Eq(x, 0): simplify would put x = 0 into x/(x**2 + y**2) and drop the branch.
    return s.Piecewise((0, s.Eq(x**2 + y**2, 0)), (s.atan2(y, x), True))


def sinc(s, x):
    # 1 at 0 with derivative 0, the limits, as PyTorch's (SymPy's sinc' there is 0/0).
    return s.Piecewise((1, s.Eq(x, 0)), (s.sin(s.pi * x) / (s.pi * x), True))


def cbrt(s, x):
    # The real root on each side: sign(x)*|x|**(1/3) has the derivative 0/0 at 0, not inf.
    third = s.Rational(1, 3)
    return s.Piecewise((-((-x) ** third), x < 0), (x**third, True))


def zero_at_zero(s, inner, outer):
    """``outer(inner)``, 0 with gradient 0 where ``inner`` is 0: a norm or a standard
    deviation at 0, whose gradient the engine and PyTorch make 0 (SymPy's is 0/0)."""
    return s.Piecewise((0, s.Eq(inner, 0)), (outer(inner), True))


def elu(s, x, alpha=1):
    return s.Piecewise((x, x > 0), (alpha * (s.exp(x) - 1), True))


def logsumexp(s, x, dim=None, keepdim=False):
    return each(s.log, np.sum(each(s.exp, x), axis=dim, keepdims=keepdim))


def norm(s, x, p=2, dim=None, keepdim=False):
    # x**2 rather than |x|**2 for the 2-norm: the same off zero, and SymPy simplifies it.
    power = lambda v: s.Abs(v) ** p  # noqa: E731
    if 0 < p < 1:  # |v|**p's derivative at a zero entry is inf*0: the engine's is 0
        powers = each(lambda v: zero_at_zero(s, v, power), x)
    else:
        powers = x**2 if p == 2 else each(power, x)
    sums = np.sum(powers, axis=dim, keepdims=keepdim)
    return each(lambda v: zero_at_zero(s, v, lambda v: v ** (1 / s.S(p))), sums)


def var(s, x, dim=None, unbiased=None, keepdim=False):
    """The variance with Bessel's correction unless ``unbiased`` is False, as PyTorch."""
    n = x.size if dim is None else int(np.prod([x.shape[d] for d in np.atleast_1d(dim)]))
    squares = (x - np.mean(x, axis=dim, keepdims=True)) ** 2
    return np.sum(squares, axis=dim, keepdims=keepdim) / (n - (unbiased is not False))


def std(s, *args):
    return each(lambda v: zero_at_zero(s, v, s.sqrt), var(s, *args))


def softmax(s, x, dim):
    exps = each(s.exp, x)
    return exps / np.sum(exps, axis=dim, keepdims=True)


def log_softmax(s, x, dim):
    return x - each(s.log, np.sum(each(s.exp, x), axis=dim, keepdims=True))


def flatten(s, x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return x.reshape(1)
    start, end = start_dim % x.ndim, end_dim % x.ndim
    return x.reshape(x.shape[:start] + (-1,) + x.shape[end + 1 :])


def squeeze(s, x, dim=None):
    # PyTorch leaves a dimension that is not of size 1; NumPy refuses it.
    return x if dim is not None and x.shape[dim] != 1 else np.squeeze(x, dim)


def expand(s, x, *sizes):
    """-1 keeps the dimension it stands over (counted from the right, as broadcasting)."""
    lead = len(sizes) - x.ndim
    shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
    return np.broadcast_to(x, shape).copy()


def arange(s, start, end=None, step=1):
    start, end = (s.Integer(0), start) if end is None else (start, end)
    count = max(int(s.ceiling((end - start) / step)), 0)
    return np.array([start + i * step for i in range(count)] or np.empty(0), dtype=object)


def linspace(s, start, end, steps):
    if steps == 1:
        return np.array([start], dtype=object)
    return np.array(
        [start + (end - start) * s.Rational(i, steps - 1) for i in range(steps)], dtype=object
    )


def matrix(s, x):
    return s.Matrix(x.tolist())


def array(m) -> np.ndarray:
    """A SymPy matrix as an array of its entries."""
    return np.array(m.tolist(), dtype=object)


def logdet(s, x):
    # nan where det < 0, with gradient 0 there, as PyTorch's (SymPy's log is complex there).
    det = matrix(s, x).det()
    return s.Piecewise((s.nan, det < 0), (s.log(det), True))


def solve(s, a, b):
    return array(matrix(s, a).LUsolve(s.Matrix(b.tolist()))).reshape(b.shape)


def cross(s, x, y, dim=None):
    # PyTorch's default: the first dimension of size 3.
    return np.cross(x, y, axis=x.shape.index(3) if dim is None else dim)


# ----- comparisons and choices: the language's 1 where a condition holds, else 0 -----


def indicator(s, condition):
    """A comparison's value in the language: 1 where ``condition`` holds, else 0."""
    return s.Piecewise((1, condition), (0, True))


def truth(s, value):
    """The condition under which ``value`` counts as true: a comparison's own (``x > 0``
    for the indicator of ``x > 0``), else ``value != 0``."""
    if isinstance(value, s.Piecewise) and len(value.args) == 2:
        (one, condition), (zero, otherwise) = value.args
        if one == 1 and zero == 0 and otherwise == s.true:
            return condition
    return s.Ne(value, 0)


def compare(relation: str):
    """The form of a comparison: ``relation`` is SymPy's ``"Lt"``, ``"Eq"`` ..."""
    return lambda s, x, y: indicator(s, getattr(s, relation)(x, y))


def both(s, a, b):
    """``a and b`` of two conditions' values: a chain ``0 < x < 1``."""
    return indicator(s, s.And(truth(s, a), truth(s, b)))


def where(s, condition, x, y):
    return each(lambda c, a, b: s.Piecewise((a, truth(s, c)), (b, True)), condition, x, y)
