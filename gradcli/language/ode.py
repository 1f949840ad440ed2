"""``odeint(f, y0, t)``: the solution of dy/dt = f(y, t) at the times t, on the graph.

Two stages, as ``integrate``. The search is NumPy on detached values: it chooses
the steps with error control, each step's end no further than the next requested
time, so the last step of each interval ends on it. Then the same steps are taken
once more on the engine's graph, so the derivatives of the result with respect to
y0, t and every input f reads are the exact derivatives of the discrete solution
(dopri5's to every order, radau's to the third): they converge to the true
sensitivities at the method's order.

Steps are fractions of the interval [t[k-1], t[k]] they lie in: on the graph a step
starts at ``t[k-1] + s (t[k] - t[k-1])`` and is ``ds (t[k] - t[k-1])`` long, so the
solution at t[k] depends on t[k] as f(y(t[k]), t[k]) and on t[0] as the solution
does. At many points every point takes the same fractions (the step is chosen for
the point that needs the smallest).

The error control holds a shadow solution too, started 1e-3 (relative) above
y0: the difference between the two is held to rtol of itself. So the steps
resolve how the solution moves when its data do, which the derivatives are; a
solution at rest at an equilibrium would otherwise be crossed in one step, its
value exact and its derivatives far off (as a forward-sensitivity solver puts
the sensitivities in its error norm).

Methods:

- ``dopri5``: the explicit Dormand-Prince 5(4) pair (Hairer's DOPRI5 error
  control), taken again on the graph stage by stage.
- ``radau``: the implicit Radau IIA method of order 5 (three stages, L-stable),
  for stiff problems, with the error estimate and simplified Newton iteration of
  Hairer and Wanner's RADAU5 (as SciPy's Radau). On the graph the stage values
  start at the search's and take three chord-Newton steps with the matrix
  ``I - h (A x J)`` of the search's stage values held fixed (J by central
  differences): from values exact at the point of evaluation, m steps leave an
  error of order m + 1 in the distance from it (times powers of the matrix's own
  error, that of the differences), so three give the first, second and third
  derivatives of the implicit stages (the implicit function theorem), never
  the iterations'.
- ``auto`` (the default): dopri5, switching to radau from the start when the
  problem turns out stiff (Hairer's test: h times the estimate of the Lipschitz
  constant above 3.25 on 15 accepted steps, or above 0.5 on 15 steps after 500:
  the step size collapsed) or dopri5 reaches the step limit.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import ops
from ..engine.batched_values import Batched
from ..engine.state import no_grad
from ..errors import GradcliError
from .transformations import as_value, call, detached

#: Most steps (accepted and rejected) over the whole of t.
LIMIT = 20000
METHODS = ("auto", "dopri5", "radau")
#: How far the shadow solution starts from y0, relative to y0's size.
SHADOW = 1e-3
#: Chord-Newton steps of the Radau stages on the graph.
CHORD_STEPS = 3

# Dormand-Prince 5(4): nodes, stages, the 5th-order weights, and the error weights
# (5th minus 4th order).
DP_C = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1])
DP_A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
DP_B = np.array(DP_A[6] + [0])
DP_E = np.array([71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40])

# Radau IIA of order 5 (Hairer and Wanner; SciPy's constants).
_S6 = math.sqrt(6)
RADAU_C = np.array([(4 - _S6) / 10, (4 + _S6) / 10, 1.0])
RADAU_A = np.array(
    [
        [(88 - 7 * _S6) / 360, (296 - 169 * _S6) / 1800, (-2 + 3 * _S6) / 225],
        [(296 + 169 * _S6) / 1800, (88 + 7 * _S6) / 360, (-2 - 3 * _S6) / 225],
        [(16 - _S6) / 36, (16 + _S6) / 36, 1 / 9],
    ]
)
RADAU_E = np.array([-13 - 7 * _S6, -13 + 7 * _S6, -1]) / 3
MU_REAL = 3 + 3 ** (2 / 3) - 3 ** (1 / 3)
#: The collocation polynomial from the stages: y(t0 + x h) = y0 + Z^T P (x, x^2, x^3).
RADAU_P = np.array(
    [
        [13 / 3 + 7 * _S6 / 3, -23 / 3 - 22 * _S6 / 3, 10 / 3 + 5 * _S6],
        [13 / 3 - 7 * _S6 / 3, -23 / 3 + 22 * _S6 / 3, 10 / 3 - 5 * _S6],
        [1 / 3, -8 / 3, 10 / 3],
    ]
)
NEWTON_ITERATIONS = 7


def _numbers(value) -> np.ndarray:
    """A value's numbers, points first: ``(P, ...)`` (P = 1 for a value the same at every point)."""
    if type(value) is Batched:
        return np.asarray(value.physical.detach().numpy(), dtype=float)
    return np.asarray(value.detach().numpy(), dtype=float)[None]


def _norm(y, y_new, error, rtol, atol) -> float:
    """The error's size relative to the tolerance, the largest over the rows: the points'
    solutions within ``atol + rtol*|y|``, and the differences of their shadows from them
    (the second half of the rows) within ``rtol*|difference|`` plus SHADOW times the
    solution's own tolerance: a sensitivity is then as accurate, relative to its own size
    or to the solution's, as the solution is."""
    points = len(y) // 2
    scale = atol + rtol * np.maximum(np.abs(y[:points]), np.abs(y_new[:points]))
    own = _rms(error[:points] / scale)
    apart = np.maximum(np.abs(y[points:] - y[:points]), np.abs(y_new[points:] - y_new[:points]))
    shadow = _rms((error[points:] - error[:points]) / (SHADOW * scale + rtol * apart))
    return float(max(np.max(own), np.max(shadow)))


def _rms(x: np.ndarray) -> np.ndarray:
    """The root mean square over the last axis: one number per point."""
    return np.sqrt(np.mean(x * x, axis=-1))


class _Problem:
    """f on NumPy numbers ``(P, n)`` at times ``(P,)``, and the constants the graph needs."""

    def __init__(self, evaluator, function, span, shape, points, varies):
        self.evaluator, self.function, self.span = evaluator, function, span
        self.shape, self.points, self.varies = shape, points, varies
        self.n = int(np.prod(shape, dtype=int))
        self.calls = 0

    def constant(self, numbers: np.ndarray, shape, dtype=None):
        """``numbers`` ``(P, ...)`` as a value of logical shape ``shape`` (a Batched if varying)."""
        if self.varies:
            numbers = np.ascontiguousarray(numbers.reshape((-1, *shape)))
            return Batched(ops.tensor(numbers, dtype=dtype))
        return ops.tensor(np.array(numbers[0].reshape(shape)), dtype=dtype)

    def f(self, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        """f at every row: the points' states, then their shadows' (see ``_steps``)."""
        if len(y) > self.points:
            parts = range(0, len(y), self.points)
            cut = [slice(i, i + self.points) for i in parts]
            return np.concatenate([self.f(y[c], t[c]) for c in cut])
        self.calls += 1
        value = call(
            self.evaluator, self.function, self.constant(y, self.shape), self.constant(t, ())
        )
        numbers = _numbers(value)
        if numbers.shape[1:] != self.shape:
            raise GradcliError(
                f"odeint: {self.function.name} gives a value of shape {numbers.shape[1:]},"
                f" but y0 has shape {self.shape}",
                self.span,
            )
        numbers = np.broadcast_to(numbers.reshape(len(numbers), -1), (self.points, self.n))
        bad = ~np.isfinite(numbers)
        if bad.any():
            p = int(np.argwhere(bad)[0][0])
            raise GradcliError(
                f"odeint: {self.function.name} is not finite at t = {float(t[p]):.17g}"
                " (the solution left f's domain, or grew without bound)",
                self.span,
            )
        return numbers

    def jacobian(self, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        """df/dy ``(P, n, n)`` by central differences."""
        size = np.max(np.abs(y), axis=1, keepdims=True)
        delta = np.finfo(float).eps ** (1 / 3) * np.maximum(
            np.abs(y), np.maximum(1e-3 * size, 1e-8)
        )
        columns = []
        for j in range(self.n):
            step = np.zeros_like(y)
            step[:, j] = delta[:, j]
            columns.append((self.f(y + step, t) - self.f(y - step, t)) / (2 * delta[:, j : j + 1]))
        return np.stack(columns, axis=2)


def odeint(evaluator, function, span, y0, t, rtol=1e-10, atol=1e-12, method="auto"):
    y0, t = as_value(y0), as_value(t)
    rtol, atol = _tolerance(rtol, "rtol", span), _tolerance(atol, "atol", span)
    if rtol == 0 and atol == 0:
        raise GradcliError("odeint's rtol and atol cannot both be 0", span)
    if method not in METHODS:
        shown = repr(method) if isinstance(method, str) else "a number"
        raise GradcliError(
            f"odeint's method must be one of {', '.join(map(repr, METHODS))}, not {shown}", span
        )
    times = _times(t, span)
    start = _numbers(y0)
    shape = start.shape[1:]
    if 0 in shape:
        raise GradcliError("odeint's y0 has no entries", span)
    if not np.isfinite(start).all():
        raise GradcliError(f"odeint's y0 is not finite{_at(~np.isfinite(start))}", span)
    with no_grad(), detached(evaluator, function):
        t0 = evaluator.apply(ops.getitem.op.name, span, ops.getitem, t.detach(), 0)
        first = call(evaluator, function, y0.detach(), t0)
        varies = type(first) is Batched or type(y0) is Batched or type(t) is Batched
        points = evaluator.size if varies else 1
        problem = _Problem(evaluator, function, span, shape, points, varies)
        times = np.broadcast_to(times, (points, times.shape[1]))
        start = np.broadcast_to(start.reshape(len(start), -1), (points, problem.n)).copy()
        steps = _search(problem, times, start, method, rtol, atol)
    return _on_graph(evaluator, problem, steps, y0, t, span)


def _tolerance(value, name, span) -> float:
    numbers = _numbers(as_value(value))
    if numbers.size != 1:
        raise GradcliError(f"odeint's {name} must be one number, the same at every point", span)
    number = float(numbers.ravel()[0])
    if not number >= 0 or math.isinf(number):
        raise GradcliError(f"odeint's {name} must be a number >= 0, not {number:g}", span)
    return number


def _times(t, span) -> np.ndarray:
    numbers = _numbers(t)
    if numbers.ndim != 2 or numbers.shape[1] == 0:
        raise GradcliError(
            f"odeint's t must be a vector of times, not a value of shape {numbers.shape[1:]}",
            span,
        )
    if not np.isfinite(numbers).all():
        raise GradcliError(f"odeint's t must be finite{_at(~np.isfinite(numbers))}", span)
    backwards = np.diff(numbers, axis=1) <= 0
    if backwards.any():
        raise GradcliError(
            f"odeint's t must be increasing{_at(backwards)}: t[0] < t[1] < ...", span
        )
    return numbers


def _at(bad: np.ndarray) -> str:
    """`` at point i``, the first point where ``bad`` (points first) holds, at many points."""
    if len(bad) == 1:
        return ""
    return f" at point {int(np.argwhere(bad)[0][0])}"


# ----------------------------------------------------------------------------
# The search: the steps, on detached values
# ----------------------------------------------------------------------------


def _search(problem, times, start, method, rtol, atol) -> list:
    """Per interval k >= 1, the steps ``(s, ds, stages)`` that end on t[k]."""
    if method == "auto":
        try:
            return _steps(problem, times, start, _Dopri(problem, rtol, atol, detect=True))
        except _Stiff:
            method = "radau"
    if method == "dopri5":
        return _steps(problem, times, start, _Dopri(problem, rtol, atol, detect=False))
    return _steps(problem, times, start, _Radau(problem, rtol, atol))


class _Stiff(Exception):
    """Raised by dopri5 under method="auto" when the problem is stiff."""


def _shadow(start: np.ndarray) -> np.ndarray:
    """A solution started nearby: y0 + 1e-3 w, w of y0's size, positive (a domain's edge is
    more often below, as y >= 0 for sqrt(y)), its entries alternately 1 and 0.7 times it."""
    size = np.max(np.abs(start), axis=1, keepdims=True)
    size = np.where(size > 0, size, 1.0)
    weights = np.where(np.arange(start.shape[1]) % 2, 0.7, 1.0)
    return start + SHADOW * np.maximum(np.abs(start), 1e-3 * size) * weights


def _steps(problem, times, start, solver) -> list:
    """The steps, with error control on the solution and on its difference from a shadow
    solution started nearby: so the steps resolve how the solution moves when y0 or what f
    reads does (its sensitivities), not only the solution (a solution at rest at an
    equilibrium would otherwise take one step whose derivatives are far off)."""
    points = len(start)
    y, found, taken = np.concatenate([start, _shadow(start)]), [], 0
    times = np.concatenate([times, times])
    physical = _first_step(problem, times[:, 0], y, solver)
    for k in range(1, times.shape[1]):
        length = times[:, k] - times[:, k - 1]
        widest = float(np.max(length))
        ds = min(physical / widest, 1.0)
        s, interval = 0.0, []
        while s < 1.0:
            ds = min(ds, 1.0 - s)
            now = times[:, k - 1] + s * length
            if ds * widest <= 10 * np.finfo(float).eps * max(1.0, float(np.max(np.abs(now)))):
                raise GradcliError(
                    f"odeint: the step size fell to {ds * widest:.3g} at t = {float(now[0]):.17g}"
                    f" (solving toward t[{k}] = {float(times[0, k]):.17g}); the solution may"
                    " blow up there",
                    problem.span,
                )
            if taken >= LIMIT:
                if getattr(solver, "detect", False):
                    raise _Stiff
                raise GradcliError(
                    f"odeint reached its step limit ({LIMIT} steps) at t = {float(now[0]):.17g}"
                    f" (solving toward t[{k}] = {float(times[0, k]):.17g}): the problem may be"
                    f' stiff (method="radau") or the tolerance too tight (rtol={solver.rtol:g},'
                    f" atol={solver.atol:g})",
                    problem.span,
                )
            taken += 1
            end = 1.0 if s + ds >= 1.0 else s + ds
            accepted, y_new, factor, stages = solver.step(y, now, (end - s) * length)
            if accepted:
                interval.append((s, end - s, None if stages is None else stages(points)))
                y, s = y_new, end
            ds = (end - s if not accepted else ds) * factor
        found.append(interval)
        physical = ds * widest
    return found


def _first_step(problem, t0, y0, solver) -> float:
    """Hairer's starting step (as SciPy's select_initial_step), the smallest over the points."""
    f0 = solver.start(y0, t0)
    scale = solver.atol + solver.rtol * np.abs(y0)
    d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
    h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.maximum(d1, 1e-300))
    f1 = problem.f(y0 + h0[:, None] * f0, t0 + h0)
    d2 = _rms((f1 - f0) / scale) / h0
    biggest = np.maximum(d1, d2)
    h1 = np.where(
        biggest <= 1e-15,
        np.maximum(1e-6, h0 * 1e-3),
        (0.01 / np.maximum(biggest, 1e-300)) ** (1 / (solver.order + 1)),
    )
    return float(np.min(np.minimum(100 * h0, h1)))


class _Dopri:
    order = 4

    def __init__(self, problem, rtol, atol, detect):
        self.problem, self.rtol, self.atol, self.detect = problem, rtol, atol, detect
        self.fsal = None
        self.stiff, self.nonstiff, self.accepted = 0, 0, 0

    def start(self, y, t):
        self.fsal = self.problem.f(y, t)
        return self.fsal

    def step(self, y, t, h):
        f = self.problem.f
        hh = h[:, None]
        k, stages = [self.fsal], []
        for i in range(1, 7):
            stages.append(y + hh * sum(a * kj for a, kj in zip(DP_A[i], k) if a))
            k.append(f(stages[-1], t + DP_C[i] * h))
        y_new, before = stages[5], stages[4]  # the 5th-order solution, the 6th stage's value
        error = hh * sum(e * kj for e, kj in zip(DP_E, k) if e)
        norm = _norm(y, y_new, error, self.rtol, self.atol)
        if norm > 1:
            return False, None, max(0.2, 0.9 * norm ** (-1 / 5)), None
        if self.detect:
            self._watch(h, k, y_new, before)
        self.fsal = k[6]
        return True, y_new, min(10.0, max(0.2, 0.9 * max(norm, 1e-10) ** (-1 / 5))), None

    def _watch(self, h, k, y_new, before):
        """Hairer's stiffness test: h |k7 - k6| / |y7 - y6| > 3.25 on 15 accepted steps; or
        above 0.5 on 15 steps after 500 (a stiff problem at a tight tolerance: the steps
        are then far smaller than radau's)."""
        top, bottom = _rms(k[6] - k[5]), _rms(y_new - before)
        lipschitz = np.where(bottom > 0, top / np.maximum(bottom, 1e-300), 0.0)
        self.accepted += 1
        product = float(np.max(np.abs(h) * lipschitz))
        if product > 3.25 or product > 0.5 and self.accepted > 500:
            self.nonstiff, self.stiff = 0, self.stiff + 1
            if self.stiff >= 15:
                raise _Stiff
        else:
            self.nonstiff += 1
            if self.nonstiff >= 6:
                self.stiff = 0


class _Radau:
    order = 4

    def __init__(self, problem, rtol, atol):
        self.problem, self.rtol, self.atol = problem, rtol, atol
        eps = np.finfo(float).eps
        self.newton_tol = max(10 * eps / rtol if rtol else 0.03, min(0.03, rtol**0.5))
        self.rejected = True  # the first step's error is estimated as after a rejection
        #: ``(y, f(y), df/dy)`` at the last step's start, and ``(y, df/dy)`` at the points'
        #: next start (the last stage of the step before).
        self.known = self.ahead = None
        #: ``(y, Z, h)`` of the last step accepted, whose polynomial predicts the next stages.
        self.dense = None

    def start(self, y, t):
        return self.problem.f(y, t)

    def step(self, y, t, h):
        problem, n = self.problem, self.problem.n
        half = len(y) // 2
        if self.known is None or not np.array_equal(self.known[0], y):
            # The points' Jacobian is the last stage's of the step before, when there was one.
            own = (
                self.ahead
                if self.ahead is not None and np.array_equal(self.ahead[0], y[:half])
                else None
            )
            own = problem.jacobian(y[:half], t[:half]) if own is None else own[1]
            shadow = problem.jacobian(y[half:], t[half:])
            self.known = (y.copy(), problem.f(y, t), np.concatenate([own, shadow]))
        f0, jac = self.known[1], self.known[2]  # the same after a rejected step
        eye = np.eye(n)
        hh = h[:, None]
        system = np.eye(3 * n) - h[:, None, None] * np.stack([np.kron(RADAU_A, j) for j in jac])
        scale = self.atol + self.rtol * np.abs(y)
        z = self._predicted(y, h)
        converged, previous = False, None
        for _ in range(NEWTON_ITERATIONS):
            values = np.stack(
                [problem.f(y + z[:, i], t + RADAU_C[i] * h) for i in range(3)], axis=1
            )
            residual = z - hh[:, :, None] * np.einsum("ij,pjn->pin", RADAU_A, values)
            dz = np.linalg.solve(system, residual.reshape(len(y), 3 * n)[..., None])
            dz = dz.reshape(len(y), 3, n)
            z = z - dz
            norm = float(np.max(_rms((dz / scale[:, None, :]).reshape(len(y), -1))))
            rate = None if previous is None else norm / previous
            if rate is not None and rate >= 1:
                break
            if norm == 0 or rate is not None and rate / (1 - rate) * norm < self.newton_tol:
                converged = True
                break
            previous = norm
        if not converged:
            self.rejected = True
            return False, None, 0.5, None
        y_new = y + z[:, 2]
        ze = np.einsum("i,pin->pn", RADAU_E, z) / hh
        lu = MU_REAL / h[:, None, None] * eye - jac
        error = np.linalg.solve(lu, (f0 + ze)[..., None])[..., 0]
        norm = _norm(y, y_new, error, self.rtol, self.atol)
        if norm > 1 and self.rejected:
            error = np.linalg.solve(lu, (problem.f(y + error, t) + ze)[..., None])[..., 0]
            norm = _norm(y, y_new, error, self.rtol, self.atol)
        factor = min(10.0, max(0.2, 0.9 * max(norm, 1e-10) ** (-1 / 4)))
        if norm > 1:
            self.rejected = True
            return False, None, factor, None
        self.rejected = False
        self.dense = (y, z, h)
        return True, y_new, factor, lambda points: self._chord(y, t, h, z, points)

    def _predicted(self, y, h):
        """The stages' starting values: the collocation polynomial of the step before,
        extrapolated (as RADAU5 and SciPy), or zero on the first step."""
        if self.dense is None:
            return np.zeros((len(y), 3, self.problem.n))
        before, z, h_before = self.dense
        x = 1 + (h / h_before)[:, None] * RADAU_C  # the stages' times in the last step's units
        powers = np.stack([x, x**2, x**3], axis=2)  # (rows, stage, power)
        polynomial = np.einsum("pjn,jk->pnk", z, RADAU_P)
        return before[:, None, :] + np.einsum("pnk,pik->pin", polynomial, powers) - y[:, None, :]

    def _chord(self, y, t, h, z, points):
        """The stages of the first ``points`` rows, and the chord matrix of the graph:
        I - h (A x J) with J at each stage's value."""
        y, t, h, z = y[:points], t[:points], h[:points], z[:points]
        at = [self.problem.jacobian(y + z[:, i], t + RADAU_C[i] * h) for i in range(3)]
        self.ahead = (y + z[:, 2], at[2])
        blocks = np.block([[RADAU_A[i, j] * at[j] for j in range(3)] for i in range(3)])
        chord = np.linalg.inv(np.eye(3 * self.problem.n) - h[:, None, None] * blocks)
        return z, chord


# ----------------------------------------------------------------------------
# The same steps on the graph
# ----------------------------------------------------------------------------


def _on_graph(evaluator, problem, steps, y0, t, span):
    def op(fn, *args, **kwargs):
        return evaluator.apply(fn.op.name, span, fn, *args, **kwargs)

    def weighted(h, terms):
        """``h * sum(c * value)`` over the nonzero coefficients c (None if there are none)."""
        total = None
        for c, value in terms:
            if c:
                term = op(ops.mul, value, float(c))
                total = term if total is None else op(ops.add, total, term)
        return None if total is None else op(ops.mul, h, total)

    def combine(base, h, terms):
        """``base + h * sum(c * value)``."""
        total = weighted(h, terms)
        return base if total is None else op(ops.add, base, total)

    y, outputs = y0, [y0]
    previous = op(ops.getitem, t, 0)
    for k, interval in enumerate(steps, start=1):
        current = op(ops.getitem, t, k)
        length = op(ops.sub, current, previous)
        for s, ds, stages in interval:
            now = op(ops.add, previous, op(ops.mul, length, float(s))) if s else previous
            h = op(ops.mul, length, float(ds))
            if stages is None:
                y = _dopri_on_graph(problem, y, now, h, combine, op)
            else:
                y = _radau_on_graph(problem, y, now, h, stages, weighted, op)
        outputs.append(y)
        previous = current
    return op(ops.stack, outputs)


def _dopri_on_graph(problem, y, now, h, combine, op):
    run = problem.evaluator
    k = []
    for i in range(6):
        stage = combine(y, h, zip(DP_A[i], k))
        at = op(ops.add, now, op(ops.mul, h, float(DP_C[i]))) if i else now
        k.append(call(run, problem.function, stage, at))
    return combine(y, h, zip(DP_B, k))


def _radau_on_graph(problem, y, now, h, stages, weighted, op):
    run, shape = problem.evaluator, problem.shape
    z_numbers, chord = stages
    # The constants in the solution's dtype (float32 where the program computes in it).
    dtype = getattr(y, "dtype", None)
    dtype = dtype if dtype is not None and dtype.is_floating_point else None
    z = [problem.constant(z_numbers[:, i], shape, dtype) for i in range(3)]
    chord = problem.constant(chord, chord.shape[1:], dtype)
    times = [op(ops.add, now, op(ops.mul, h, float(c))) for c in RADAU_C]
    for _ in range(CHORD_STEPS):
        values = [call(run, problem.function, op(ops.add, y, z[i]), times[i]) for i in range(3)]
        residual = [op(ops.sub, z[i], weighted(h, zip(RADAU_A[i], values))) for i in range(3)]
        flat = op(ops.reshape, op(ops.stack, residual), (-1,))
        delta = op(ops.reshape, op(ops.matmul, chord, flat), (3, *shape))
        z = [op(ops.sub, z[i], op(ops.getitem, delta, i)) for i in range(3)]
    return op(ops.add, y, z[2])
