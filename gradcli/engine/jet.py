"""Taylor arithmetic: truncated power series propagated through a recorded graph.

A *jet* is an array ``(M, *shape)``: the Taylor coefficients ``∂^α f / α!`` of a
value, one row per monomial ``α`` of degree 0 to ``K`` in ``n`` variables
(``Basis``), ordered by degree. Each op's series rule is read from its entry
(``Op.series``): ``"linear"`` (the forward applied to each coefficient: the op
is linear in its inputs together), ``"bilinear"`` (a Cauchy product of the
forward: ``x @ y``), or a function ``rule(basis, inputs, params, kwargs)`` of
the input jets (the recurrences of Griewank and Walther's *Evaluating
Derivatives*, ch. 13). Several variables need no interpolation: the degree-k
part of a product is the sum of products of degree-j and degree-(k-j) parts, so
the univariate recurrences (``k y_k = Σ j x_j d_{k-j}`` for ``y' = d x'``) hold
with homogeneous polynomials as coefficients. An op whose entry has no rule is
an error that names it, never a guess.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ..errors import NotImplementedByGradcli
from .tensor import Tensor


class Basis:
    """The monomials of degree at most ``order`` in ``n`` variables, and the tables that
    multiply their coefficients. A monomial is a sorted tuple of variable indices
    (``(0, 0, 2)`` is ``v0**2 * v2``), listed by degree, then lexicographically."""

    def __init__(self, n, order):
        self.n, self.order = n, order
        self.monomials = [
            m
            for d in range(order + 1)
            for m in itertools.combinations_with_replacement(range(n), d)
        ]
        self.size = len(self.monomials)
        index = {m: i for i, m in enumerate(self.monomials)}
        self.starts = [0]
        for d in range(order + 1):
            self.starts.append(self.starts[-1] + math.comb(n + d - 1, d))
        self.degree = np.repeat(np.arange(order + 1), np.diff(self.starts))
        # For each degree k: the pairs (a, b) of monomials of degrees j and k - j, sorted by
        # the index of a + b, and where each product's run of pairs starts.
        self.pairs = []
        for k in range(order + 1):
            rows = []
            for j in range(k + 1):
                for a in range(self.starts[j], self.starts[j + 1]):
                    for b in range(self.starts[k - j], self.starts[k - j + 1]):
                        c = index[tuple(sorted(self.monomials[a] + self.monomials[b]))]
                        rows.append((c, a, b))
            rows.sort()
            c, a, b = (np.array(col, dtype=np.intp) for col in zip(*rows))
            self.pairs.append((a, b, np.flatnonzero(np.r_[True, c[1:] != c[:-1]])))
        self.variables = [index[(i,)] for i in range(n)] if order else []

    def part(self, k):
        return slice(self.starts[k], self.starts[k + 1])

    def graded(self, x, y, k):
        """The degree-``k`` part of ``x * y`` (jets; a coefficient not yet known is 0)."""
        a, b, runs = self.pairs[k]
        return np.add.reduceat(x[a] * y[b], runs, axis=0)

    def euler(self, x):
        """``Σ v_i ∂x/∂v_i``: each degree-d part times d (the jet of t x'(t) along t)."""
        return x * self.degree.reshape((-1,) + (1,) * (x.ndim - 1))


@functools.lru_cache(maxsize=8)
def basis(n, order):
    return Basis(n, order)


# ----------------------------------------------------------------------------
# Propagation through a recorded graph
# ----------------------------------------------------------------------------


def propagate(out, leaves, b, seeds=None):
    """The jet of ``out`` (a tensor recorded from ``leaves``): leaf ``i``'s entries are the
    variables after those of the leaves before it, each at its value plus that variable;
    or, given ``seeds``, each leaf's own jet (``x + s t`` for a directional derivative)."""
    if seeds is not None:
        jets = {id(leaf): seed for leaf, seed in zip(leaves, seeds)}
        leaves = ()
    else:
        jets = {}
    offset = 0
    for leaf in leaves:
        value = np.asarray(leaf._data, dtype=np.float64)
        jet = constant(b, value)
        flat = jet.reshape(b.size, -1)
        for e in range(value.size):
            if b.order:
                flat[b.variables[offset + e], e] = 1.0
        jets[id(leaf)] = jet
        offset += value.size
    if out.grad_fn is None:
        return jets.get(id(out), constant(b, out._data))
    for node in _parents_first(out.grad_fn):
        inputs = []
        for parent, raw in zip(node.parents, node.saved):
            if parent is None:
                inputs.append(None if raw is None else _Constant(raw))
            elif type(parent) is Tensor:
                # A leaf that is none of the variables (a point a transformation found,
                # which it differentiates with respect to itself) is constant in them.
                found = jets.get(id(parent))
                inputs.append(constant(b, parent._data) if found is None else found)
            else:
                inputs.append(jets[parent])
        jets[node] = apply(b, node, inputs)
    return jets[out.grad_fn]


class _Constant:
    """An input that is not a jet (a number or an array the variables do not move)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def constant(b, value):
    value = np.asarray(value, dtype=np.float64)
    jet = np.zeros((b.size, *value.shape))
    jet[0] = value
    return jet


def _parents_first(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend(
                (p, False) for p in node.parents if p is not None and type(p) is not Tensor
            )
    return order


def apply(b, node, inputs):
    """One node's output jet, by its entry's series rule."""
    entry = node.op.entry
    rule = entry.series
    if rule is None:
        raise NotImplementedByGradcli(
            f"{entry.name}: no Taylor series rule (taylor and jvp --order need one for every op)"
        )
    forward, params, kwargs = node.op.forward, node.params, node.kwargs
    if entry.variadic:
        inputs = [inputs]
    if rule == "linear":
        return _linear(b, forward, inputs, params, kwargs, entry.variadic)
    if rule == "bilinear":
        return _bilinear(b, forward, inputs, params, kwargs)
    if rule == "piecewise_linear":
        return _piecewise_linear(b, node, inputs)
    jets = [lift(b, x) for x in inputs]
    return np.asarray(rule(b, *jets, *params, **kwargs), dtype=np.float64)


def lift(b, x):
    """An input as a jet (a constant's coefficients past the value are 0)."""
    if isinstance(x, _Constant):
        return constant(b, x.value) if isinstance(x.value, (np.ndarray, float, int)) else x.value
    return x


def _coefficient(x, i):
    if isinstance(x, _Constant):
        return x.value if i == 0 else np.zeros_like(np.asarray(x.value, dtype=np.float64))
    return x[i]


def _linear(b, forward, inputs, params, kwargs, variadic):
    rows = []
    for i in range(b.size):
        if variadic:
            args = (tuple(_coefficient(x, i) for x in inputs[0]),)
        else:
            args = tuple(_coefficient(x, i) for x in inputs)
        rows.append(np.asarray(forward(*args, *params, **kwargs), dtype=np.float64))
    return np.stack(rows)


def _bilinear(b, forward, inputs, params, kwargs):
    x, y = inputs
    if isinstance(x, _Constant) or isinstance(y, _Constant):  # linear in the other
        return _linear(b, forward, inputs, params, kwargs, False)
    rows = [None] * b.size
    for k in range(b.order + 1):
        for c, a, bb in _pairs_by_product(b, k):
            term = np.asarray(forward(x[a], y[bb], *params, **kwargs), dtype=np.float64)
            rows[c] = term if rows[c] is None else rows[c] + term
    return np.stack(rows)


def _piecewise_linear(b, node, inputs):
    """An elementwise op linear (or constant) on each piece (abs, relu, clamp, maximum):
    its value plus each input's slope there, from the op's own rules, times the input's
    variation. On a kink the slope is the rule's convention (PyTorch's)."""
    ans = np.asarray(node.ans, dtype=np.float64)
    ones = np.ones_like(ans)
    out = np.zeros((b.size, *ans.shape))
    out[0] = ans
    for rule, x in zip(node.op.rules, inputs):
        if rule is None or isinstance(x, _Constant):
            continue
        slope = np.asarray(rule(ones, node.ans, *node.saved, *node.params, **node.kwargs))
        x = x[1:].reshape((b.size - 1,) + (1,) * (ans.ndim - x.ndim + 1) + x.shape[1:])
        out[1:] += slope * x
    return out


def _pairs_by_product(b, k):
    a, bb, runs = b.pairs[k]
    ends = np.r_[runs[1:], len(a)]
    for c, (start, end) in enumerate(zip(runs, ends), start=b.starts[k]):
        for i in range(start, end):
            yield c, a[i], bb[i]
