"""The longer multiprecision forms of the entries (``Op.mp``, see ``optable`` and
``multiprecision``), and their helpers.

A form is ``make(mpmath) -> forward``: the entry's forward on arrays of mpmath numbers,
with the entry's parameters. mpmath is never imported here: ``working_precision``
hands its module to each form. Matrices go through mpmath's own (``mpmath.matrix``).
"""

from __future__ import annotations

import numpy as np

from ...errors import EngineError
from ..multiprecision import elementwise, quotient
from .common import axis


def _objects(x) -> np.ndarray:
    return np.asarray(x, dtype=object)


def reduction(forward):
    """``forward(x, dim, keepdim)`` (sum, prod, mean) without its dtype: a sum of mpf is one."""
    return lambda m: (
        lambda x, dim=None, keepdim=False, dtype=None: np.asarray(forward(x, dim, keepdim))
    )


def mean(x, dim=None, keepdim=False):
    """The sum over ``dim`` over the count of its entries, nan over none, as float64's."""
    import mpmath  # only at a working precision, where it is loaded already

    total = np.asarray(np.sum(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim))
    count = np.size(x) // total.size if total.size else 0
    return quotient(mpmath)(total, count)


def scan(forward):
    """``forward(x, dim)`` (cumsum, cumprod) without its dtype."""
    return lambda m: lambda x, dim, dtype=None: np.asarray(forward(x, dim))


def logical(ufunc):
    """``ufunc`` (and, or) of truth values: NumPy's object loop would give an operand itself."""
    return lambda m: lambda x, y: ufunc(np.asarray(x) != 0, np.asarray(y) != 0)


def test(name: str):
    """mpmath's test of that name (``isnan``) on each entry, as booleans."""
    return lambda m: lambda x: np.asarray(np.frompyfunc(getattr(m, name), 1, 1)(x)).astype(bool)


def reciprocal(m):
    divide = quotient(m)
    return lambda x: divide(1, x)


# ----- softmax and logsumexp: the largest entry taken out first, as float64's -----


def _peak(m, x, ax):
    """The largest entry along ``ax`` (0 where it is not finite, or there is none)."""
    if x.size == 0:
        return _objects(np.zeros(np.sum(x, axis=ax, keepdims=True).shape))
    peak = _objects(np.max(x, axis=ax, keepdims=True))
    return _objects(np.frompyfunc(lambda v: v if m.isfinite(v) else 0, 1, 1)(peak))


def softmax(m):
    exp = elementwise(m.exp, m)

    def forward(x, dim):
        x = _objects(x)
        if x.size == 0:
            return x
        ax = axis(dim, x.ndim)
        shifted = exp(x - _peak(m, x, ax))
        return quotient(m)(shifted, np.sum(shifted, axis=ax, keepdims=True))

    return forward


def log_softmax(m):
    exp, log = elementwise(m.exp, m), elementwise(m.ln, m)

    def forward(x, dim):
        x = _objects(x)
        if x.size == 0:
            return x
        ax = axis(dim, x.ndim)
        shifted = x - _peak(m, x, ax)
        return shifted - log(np.sum(exp(shifted), axis=ax, keepdims=True))

    return forward


def logsumexp(m):
    exp, log = elementwise(m.exp, m), elementwise(m.ln, m)

    def forward(x, dim=None, keepdim=False):
        x = _objects(x)
        ax = axis(dim, x.ndim)
        peak = _peak(m, x, ax)
        out = _objects(log(_objects(np.sum(exp(x - peak), axis=ax, keepdims=True))) + peak)
        return out if keepdim else np.squeeze(out, axis=ax) if ax is not None else out.reshape(())

    return forward


# ----- norms and moments -----


def norm(m):
    sqrt = elementwise(m.sqrt, m)

    def forward(x, p=2, dim=None, keepdim=False):
        a = _objects(np.abs(_objects(x)))
        ax = axis(dim, a.ndim)
        if p == 2:
            return sqrt(_objects(np.sum(a * a, axis=ax, keepdims=keepdim)))
        if p == 1:
            return _objects(np.sum(a, axis=ax, keepdims=keepdim))
        if p in (m.inf, -m.inf):
            extreme = np.max if p > 0 else np.min
            return _objects(extreme(a, axis=ax, keepdims=keepdim))
        if p == 0:
            return _objects(np.sum(a != 0, axis=ax, keepdims=keepdim))
        p = m.mpf(p)
        return _objects(_objects(np.sum(a**p, axis=ax, keepdims=keepdim)) ** (1 / p))

    return forward


def _correction(unbiased, correction):
    return correction if correction is not None else 1 if unbiased in (None, True) else 0


def var(m):
    def forward(x, dim=None, unbiased=None, keepdim=False, correction=None):
        x = _objects(x)
        ax = axis(dim, x.ndim)
        total = _objects(np.sum(x, axis=ax, keepdims=True))
        count = x.size // total.size if total.size else 0
        squares = _objects(np.sum((x - quotient(m)(total, count)) ** 2, axis=ax, keepdims=keepdim))
        if count == 0:  # no entries: no mean, nan as float64's
            return _objects(np.full(squares.shape, m.nan, dtype=object))
        return quotient(m)(squares, count - _correction(unbiased, correction))

    return forward


def std(m):
    sqrt, variance = elementwise(m.sqrt, m), var(m)
    return lambda *args, **kwargs: sqrt(variance(*args, **kwargs))


# ----- matrices, through mpmath's own -----

SINGULAR = "linalg.solve: The solver failed because the input matrix is singular."


def _matrices(x):
    """Each matrix of a batch (the last two dims) as an mpmath matrix, and the batch shape."""
    x = _objects(x)
    return x.reshape(-1, *x.shape[-2:]), x.shape[:-2]


def det(m):
    def forward(x):
        batch, shape = _matrices(x)
        return np.array([m.det(m.matrix(a.tolist())) for a in batch], dtype=object).reshape(shape)

    return forward


def _array(matrix, rows, cols):
    return np.array(matrix.tolist(), dtype=object).reshape(rows, cols)


def inverse(m):
    def forward(x):
        batch, shape = _matrices(x)
        n = np.shape(x)[-1]
        out = np.empty((len(batch), n, n), dtype=object)
        for k, a in enumerate(batch):
            try:
                out[k] = _array(m.inverse(m.matrix(a.tolist())), n, n)
            except ZeroDivisionError:  # singular: inf and nan, as float64's would give
                out[k] = m.nan
        return out.reshape(*shape, n, n)

    return forward


def logabsdet(m):
    determinant, log = det(m), elementwise(m.ln, m)
    return lambda x: log(np.abs(determinant(x)))


def solve(m):
    """X with A X = B (X A = B if not left), B a (batch of) vector(s) or matrices, through
    mpmath's LU solve, each system of the broadcast batch in turn."""

    def forward(a, b, vector, left=True):
        a, b = _objects(a), _objects(b)
        if vector:
            return forward(a, b[..., None], False)[..., 0]
        if not left:  # X A = B is A^T X^T = B^T
            return np.swapaxes(forward(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), False),
                               -1, -2)  # fmt: skip
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, (*shape, *a.shape[-2:])).reshape(-1, *a.shape[-2:])
        b = np.broadcast_to(b, (*shape, *b.shape[-2:])).reshape(-1, *b.shape[-2:])
        out = np.empty(b.shape, dtype=object)
        for k in range(len(a)):
            matrix = m.matrix(a[k].tolist())  # its LU kept on it for every column
            for j in range(b.shape[-1]):
                try:
                    column = m.lu_solve(matrix, m.matrix(b[k, :, j].tolist()))
                except ZeroDivisionError:
                    raise EngineError(SINGULAR) from None
                out[k, :, j] = [column[i] for i in range(b.shape[-2])]
        return out.reshape(*shape, *b.shape[-2:])

    return forward


# ----- activations and rounding -----


def softplus(m):
    def each(v, beta, threshold):
        return v if v * beta > threshold else m.log1p(m.exp(v * beta)) / beta

    three = elementwise(each, m, 3)  # beta and threshold: numbers, or arrays that broadcast
    return lambda x, beta=1.0, threshold=20.0: three(x, beta, threshold)


def silu(m):
    return elementwise(lambda v: v / (1 + m.exp(-v)), m)


def elu(m):
    two = elementwise(lambda v, alpha: v if v > 0 else alpha * m.expm1(v), m, 2)
    return lambda x, alpha=1.0: two(x, alpha)


#: The tanh approximation of gelu, tanh(k (x + c x**3)): c as its definition writes it.
GELU_CUBIC = "0.044715"


def gelu(m):
    def forward(x, approximate="none"):
        if approximate == "tanh":
            k, c = m.sqrt(2 / m.pi), m.mpf(GELU_CUBIC)
            return elementwise(lambda v: v * (1 + m.tanh(k * (v + c * v**3))) / 2, m)(x)
        return elementwise(lambda v: v * m.ncdf(v), m)(x)

    return forward


def round_half_even(m):
    """``round(x, decimals=d)``: mpmath's nint, ties to even as NumPy's."""

    def forward(x, decimals=0):
        scale = m.mpf(10) ** decimals
        return elementwise(lambda v: m.nint(v * scale) / scale, m)(x)

    return forward
