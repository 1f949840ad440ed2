"""``integrate(f, a, b)``: adaptive Gauss-Kronrod quadrature whose result is on the graph.

Two stages. The search is NumPy on detached values: the 15-point Kronrod rule and
its embedded 7-point Gauss rule on each subinterval, the error estimate |K15 - G7|
(QuadGK's, without QUADPACK's rescaling), and the subinterval with the largest
error bisected until the estimate of the whole is within
``max(atol, rtol * |integral|)``, or within round-off (50 eps times the integral
of |f|, as QUADPACK). Then the integral is evaluated once more on the engine's
graph at the Kronrod nodes the search chose, with the nodes fixed: so its
derivative with respect to every input f reads is the same rule applied to the
derivative of f (differentiation under the integral sign), to every order.

A limit's derivative comes from a term that is zero in value:
``(b - b0) * sum_j w_j f(b0 + (b - b0) s_j)`` with ``b0`` the detached limit and an
8-point Gauss-Legendre rule on [0, 1]. Its k-th derivative with respect to b at b0
is ``f^(k-1)(b)`` exactly for every k up to 16 (the rule integrates s^(k-1)
exactly), so d/db is f(b), d2/db2 is f'(b), and -f(a) for the lower limit.

Infinite limits are mapped to a finite interval: [a, inf) by t = a + s/(1 - s),
(-inf, b] by t = b - s/(1 - s), s in [0, 1), and (-inf, inf) by t = s/(1 - s^2),
s in (-1, 1); the Kronrod nodes never touch the ends. An infinite limit has no
derivative.

At many points the search runs on every point at once: a subinterval is
bisected where the point with the largest error relative to its tolerance needs
it, so every point shares the same nodes (in the variable s).
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import ops
from ..engine.batched_values import Batched
from ..engine.state import no_grad
from ..errors import GradcliError
from .transformations import as_value, call, detached, number_of

# The 15-point Kronrod rule on [-1, 1] (QUADPACK's qk15): nodes from the end inwards,
# the last one 0; the 7-point Gauss rule uses every other node, starting at the second.
_XK = np.array(
    [
        0.991455371120812639206854697526329,
        0.949107912342758524526189684047851,
        0.864864423359769072789712788640926,
        0.741531185599394439863864773280788,
        0.586087235467691130294144845693013,
        0.405845151377397166906606412076961,
        0.207784955007898467600689403773245,
        0.0,
    ]
)
_WK = np.array(
    [
        0.022935322010529224963732008058970,
        0.063092092629978553290700663189204,
        0.104790010322250183839876322541518,
        0.140653259715525918745189590510238,
        0.169004726639267902826583426598550,
        0.190350578064785409913256402421014,
        0.204432940075298892414161999234649,
        0.209482141084727828012999174891714,
    ]
)
_WG = np.array(
    [
        0.129484966168869693270611432679082,
        0.279705391489276667901467771423780,
        0.381830050505118944950369775488975,
        0.417959183673469387755102040816327,
    ]
)
#: All 15 nodes in order, their Kronrod weights, and the Gauss weights (0 off the Gauss nodes).
NODES = np.concatenate([-_XK[:-1], _XK[::-1]])
KRONROD = np.concatenate([_WK[:-1], _WK[::-1]])
GAUSS = np.zeros(15)
GAUSS[1:7:2] = _WG[:3]
GAUSS[7] = _WG[3]
GAUSS[9:15:2] = _WG[2::-1]

#: Most subintervals the search makes before it gives up.
LIMIT = 500
#: The rule of the limits' terms: Gauss-Legendre on [0, 1].
_LEGENDRE_X, _LEGENDRE_W = np.polynomial.legendre.leggauss(8)
BOUNDARY_NODES = (_LEGENDRE_X + 1) / 2
BOUNDARY_WEIGHTS = _LEGENDRE_W / 2


def _numbers(value) -> np.ndarray:
    """A value's numbers, points first: ``(P, ...)`` (P = 1 for a value the same at every point)."""
    if type(value) is Batched:
        return np.asarray(value.physical.detach().numpy())
    return np.asarray(value.detach().numpy())[None]


def _limit(value, name: str, span) -> np.ndarray:
    numbers = _numbers(value)
    if numbers.shape[1:] != ():
        raise GradcliError(
            f"integrate's limit {name} must be one number, not a value of shape"
            f" {numbers.shape[1:]}",
            span,
        )
    if np.isnan(numbers).any():
        raise GradcliError(f"integrate's limit {name} is nan", span)
    return numbers


class _Map:
    """The variable change t(s) and dt/ds from the search's variable s to f's."""

    def __init__(self, a: np.ndarray, b: np.ndarray, span):
        ends = (np.isinf(a), np.isinf(b))
        for kind, name in zip(ends, "ab"):
            if kind.any() and not kind.all():
                raise GradcliError(
                    f"integrate's limit {name} is infinite at some points and not at others",
                    span,
                )
        self.a, self.b = a, b
        self.kind = (bool(ends[0].all()), bool(ends[1].all()))
        self.sign = 1.0
        if self.kind == (True, True):
            self.lo, self.hi = -1.0, 1.0
            self.sign = np.where(a < b, 1.0, np.where(a > b, -1.0, 0.0))
        else:
            self.lo, self.hi = 0.0, 1.0
            if self.kind[0] and not self.kind[1]:  # (-inf or inf, b]
                self.sign = np.where(a < 0, 1.0, -1.0)
            elif self.kind[1] and not self.kind[0]:
                self.sign = np.where(b > 0, 1.0, -1.0)

    def nodes(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``t`` at every point for each s (``(P, len(s))``) and dt/ds times the orientation."""
        s = np.asarray(s)[None]
        a, b = self.a[:, None], self.b[:, None]
        sign = np.asarray(self.sign).reshape(-1, 1)
        if self.kind == (False, False):
            return a + (b - a) * s, (b - a) * np.ones_like(s)
        if self.kind == (True, True):
            t = s / (1 - s * s)
            return np.broadcast_to(t, (len(self.a), s.shape[1])), sign * (1 + s * s) / (
                1 - s * s
            ) ** 2
        jac = sign / (1 - s) ** 2
        if self.kind[1]:  # [a, inf) or, backwards, (-inf, a]
            return a + sign * s / (1 - s), jac
        return b - sign * s / (1 - s), jac


def _node_tensor(t: np.ndarray, varies: bool):
    """The node t (one number per point) as the value f is called with."""
    if varies:
        return Batched(ops.tensor(np.ascontiguousarray(t)))
    return ops.tensor(float(t[0]))


def integrate(evaluator, function, span, a, b, rtol=1e-12, atol=0.0):
    a, b = as_value(a), as_value(b)
    rtol, atol = _tolerance(rtol, "rtol", span), _tolerance(atol, "atol", span)
    a0, b0 = _limit(a, "a", span), _limit(b, "b", span)
    a0, b0 = np.broadcast_arrays(a0, b0)
    varies = type(a) is Batched or type(b) is Batched
    change = _Map(a0, b0, span)
    with no_grad(), detached(evaluator, function):
        intervals = _search(evaluator, function, change, varies, rtol, atol, span)
    return _on_graph(evaluator, function, change, intervals, varies, a, b, span)


def _tolerance(value, name, span) -> float:
    number = number_of(value)
    if not number >= 0 or math.isinf(number):
        raise GradcliError(f"integrate's {name} must be a number >= 0, not {number:g}", span)
    return number


def _rule(evaluator, function, change, lo, hi, varies, span):
    """The Kronrod and Gauss sums, and the sum of |f|, on [lo, hi]: each ``(P, m)``."""
    half = (hi - lo) / 2
    s = lo + half * (1 + NODES)
    t, jac = change.nodes(s)
    values = []
    for k in range(len(NODES)):
        value = _numbers(call(evaluator, function, _node_tensor(t[:, k], varies)))
        values.append(value.reshape(value.shape[0], -1))
    stacked = np.stack(values)  # (15, P, m)
    if not np.isfinite(stacked).all():
        k = int(np.argwhere(~np.isfinite(stacked))[0][0])
        raise GradcliError(
            f"integrate: {function.name} is not finite at t = {float(t[0, k]):.17g}", span
        )
    scaled = stacked * (half * jac.T)[:, :, None]
    kronrod = np.einsum("k,kpm->pm", KRONROD, scaled)
    gauss = np.einsum("k,kpm->pm", GAUSS, scaled)
    return kronrod, np.abs(kronrod - gauss), np.einsum("k,kpm->pm", KRONROD, np.abs(scaled))


def _search(evaluator, function, change, varies, rtol, atol, span) -> list:
    """The subintervals (in s) on which the rule meets the tolerance at every point."""
    if change.kind == (False, False) and (change.a == change.b).all():
        return []
    found = {
        (change.lo, change.hi): _rule(
            evaluator, function, change, change.lo, change.hi, varies, span
        )
    }
    while True:
        parts = list(found.values())
        total = sum(p[0] for p in parts)
        error = sum(p[1] for p in parts)
        size = sum(p[2] for p in parts)
        tol = np.maximum(
            np.maximum(atol, rtol * np.abs(total)), 50 * np.finfo(size.dtype).eps * size
        )
        if (error <= tol).all():
            return sorted(found)
        worst = np.unravel_index(
            np.argmax(error / np.maximum(tol, np.finfo(float).tiny)), error.shape
        )
        if len(found) >= LIMIT:
            at = f" at point {worst[0]}" if error.shape[0] > 1 else ""
            raise GradcliError(
                f"integrate did not converge{at}: the error estimate {error[worst]:.3g} stays"
                f" above the tolerance {tol[worst]:.3g} (rtol={rtol:g}, atol={atol:g}) after"
                f" {LIMIT} subintervals; the integral is about {total[worst]:.12g}",
                span,
            )
        lo, hi = max(found, key=lambda key: found[key][1][worst])
        del found[(lo, hi)]
        middle = (lo + hi) / 2
        for part in ((lo, middle), (middle, hi)):
            found[part] = _rule(evaluator, function, change, *part, varies, span)


def _on_graph(evaluator, function, change, intervals, varies, a, b, span):
    """The integral on the engine's graph: the rule at the chosen nodes, plus the limits' terms."""

    def op(fn, *args, **kwargs):
        return evaluator.apply(fn.op.name, span, fn, *args, **kwargs)

    terms = []
    if intervals:
        lo = np.array([i[0] for i in intervals])[:, None]
        hi = np.array([i[1] for i in intervals])[:, None]
        s = (lo + (hi - lo) / 2 * (1 + NODES)).ravel()
        weights = ((hi - lo) / 2 * KRONROD).ravel()
        t, jac = change.nodes(s)
        values = [call(evaluator, function, _node_tensor(t[:, k], varies)) for k in range(len(s))]
        stacked = op(ops.stack, values)
        scale = jac * weights  # (P, N): the same at every point unless the limits vary
        shape = (len(s),) + (1,) * (stacked.ndim - 1)
        if varies and scale.shape[0] > 1:
            factor = Batched(ops.tensor(np.ascontiguousarray(scale.reshape(-1, *shape))))
        else:
            factor = ops.tensor(scale[0].reshape(shape))
        terms.append(op(ops.sum, op(ops.mul, stacked, factor), 0))
    for limit, sign, finite in ((b, 1.0, not change.kind[1]), (a, -1.0, not change.kind[0])):
        if finite and limit.requires_grad:
            terms.append(_limit_term(evaluator, function, limit, sign, op))
    if not terms:  # a = b: zero, of f's shape, on the graph of what f reads
        return op(ops.mul, call(evaluator, function, a), 0.0)
    result = terms[0]
    for term in terms[1:]:
        result = op(ops.add, result, term)
    return result


def _limit_term(evaluator, function, limit, sign, op):
    """``sign * (x - x0) * sum_j w_j f(x0 + (x - x0) s_j)``: zero, with the limit's derivatives."""
    offset = op(ops.sub, limit, limit.detach())
    values = [
        call(evaluator, function, op(ops.add, limit.detach(), op(ops.mul, offset, float(s))))
        for s in BOUNDARY_NODES
    ]
    stacked = op(ops.stack, values)
    shape = (len(values),) + (1,) * (stacked.ndim - 1)
    weights = ops.tensor((sign * BOUNDARY_WEIGHTS).reshape(shape))
    mean = op(ops.sum, op(ops.mul, stacked, weights), 0)
    return op(ops.mul, offset, mean)
