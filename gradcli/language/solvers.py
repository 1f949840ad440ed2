"""``root(f, x0)`` and ``minimizer(f, x0)``: points found by Newton's method, on the graph
with the derivatives of the implicit function theorem.

The search is detached: Newton's method on NumPy numbers, with the exact Jacobian
of f (root) or the exact gradient and Hessian (minimizer) from the engine's
reverse mode, and a backtracking line search. Nothing of the iterations is on the
graph. Then the point found, x*, is put on the graph by Newton steps

    x_{k+1} = x_k - F_x(x_k, theta)^{-1} F(x_k, theta),    x_0 = x* (detached),

with F (f for root, the gradient of f for minimizer) and its Jacobian F_x
evaluated on the graph, so they depend on every input theta that f reads. At
theta0 each step moves x by the residual only (zero at an exact root). With
x(theta) the implicit function, Newton's map N(y) = y - F_x^{-1} F(y, theta) has
N(x(theta)) = x(theta) and dN/dy = 0 there, so |x_{k+1} - x(theta)| is
O(|x_k - x(theta)|^2); x_0 is O(|theta - theta0|) away, so after k steps the error
is O(|theta - theta0|^(2^k)): the derivatives of x_k are the implicit function's
exactly through order 2^k - 1 (the first is dx/dtheta = -F_x^{-1} F_theta, the
implicit function theorem). ``STEPS`` = 4 steps make every order through 15
exact (``taylor`` refuses a higher order of a program that calls root or
minimizer).

At many points the search runs on every point at once (each point's own Newton
iteration, the evaluations shared).
"""

from __future__ import annotations

import numpy as np

from ..autograd import grad
from ..engine import ops
from ..engine.batched_values import Batched
from ..engine.state import enable_grad, is_grad_enabled
from ..errors import GradcliError
from .transformations import as_value, call, detached, number_of

#: Newton steps on the graph: the derivatives are exact through order 2**STEPS - 1.
STEPS = 4
#: The highest order of derivative the steps make exact.
EXACT_ORDER = 2**STEPS - 1
#: Halvings of a step the line search tries.
_HALVINGS = 40


class _Problem:
    """F (and its Jacobian) at given numbers, for root (F = f) or minimizer (F = grad f)."""

    def __init__(self, evaluator, function, kind: str, span, shape, points: int | None):
        self.evaluator, self.function, self.kind, self.span = evaluator, function, kind, span
        self.shape = shape  # x's shape at one point: () or (n,)
        self.n = int(np.prod(shape))
        self.points = points  # None: the same at every point (not Batched)

    def leaf(self, numbers: np.ndarray, requires_grad: bool):
        """x as the value f is called with: ``numbers`` is ``(P, n)``."""
        if self.points is None:
            return ops.tensor(numbers[0].reshape(self.shape), requires_grad=requires_grad)
        physical = np.ascontiguousarray(numbers.reshape(len(numbers), *self.shape))
        return Batched(ops.tensor(physical, requires_grad=requires_grad))

    def value(self, x):
        y = call(self.evaluator, self.function, x)
        if type(y) is Batched and self.points is None:
            raise _Restart(y.size)
        wanted = () if self.kind == "minimizer" else self.shape
        shape = y.shape
        if tuple(shape) != tuple(wanted):
            what = "one number" if self.kind == "minimizer" else f"the shape of x0, {wanted}"
            raise GradcliError(
                f"{self.kind}: {self.function.name} must give {what}, not a value of shape"
                f" {tuple(shape)}",
                self.span,
            )
        return y

    def objective(self, numbers: np.ndarray) -> np.ndarray:
        """f (minimizer) or |F| (root) at each point: ``(P,)``."""
        with enable_grad():
            y = self.value(self.leaf(numbers, False))
        values = _numbers(y).reshape(len(numbers) if self.points else 1, -1)
        if self.kind == "minimizer":
            return values[:, 0]
        return np.abs(values).max(axis=1) if self.n else np.zeros(len(values))

    def system(self, numbers: np.ndarray):
        """``(F, J, f)`` at each point: ``(P, n)``, ``(P, n, n)``, and f for minimizer."""
        with enable_grad():
            x = self.leaf(numbers, True)
            leaf = x.physical if type(x) is Batched else x
            y = self.value(x)
            flat_y = _physical(y)
            objective = None
            if self.kind == "minimizer":
                objective = _numbers(y).reshape(-1)
                (g,) = grad(ops.sum(flat_y), leaf, create_graph=True)
                flat_y = g
            rows = _flat(flat_y, self.points)
            jacobian = []
            for k in range(self.n):
                (row,) = grad(ops.sum(rows[:, k]), leaf, retain_graph=True, allow_unused=True)
                row = np.zeros(leaf.shape) if row is None else row.detach().numpy()
                jacobian.append(np.asarray(row).reshape(len(numbers), self.n))
            values = np.asarray(rows.detach().numpy()).reshape(len(numbers), self.n)
        return values, np.stack(jacobian, axis=1), objective


class _Restart(Exception):
    """f gives a value at each of ``size`` points: the search starts again, at each point."""

    def __init__(self, size: int):
        self.size = size


def _numbers(value) -> np.ndarray:
    return np.asarray(_physical(value).detach().numpy())


def _physical(value):
    return value.physical if type(value) is Batched else value


def _flat(value, points):
    """``value`` (F at each point) as ``(P, n)``, on the graph."""
    return ops.reshape(value, (points or 1, -1))


def root(evaluator, function, span, x0, maxiter=100):
    return _solve(evaluator, function, span, x0, maxiter, "root")


def minimizer(evaluator, function, span, x0, maxiter=200):
    return _solve(evaluator, function, span, x0, maxiter, "minimizer")


def _solve(evaluator, function, span, x0, maxiter, kind):
    x0 = as_value(x0)
    if len(x0.shape) > 1:
        raise GradcliError(
            f"{kind}'s x0 must be a number or a vector, not a value of shape {x0.shape}", span
        )
    maxiter = _count(maxiter, span, kind)
    start = np.asarray(_numbers(x0.detach()), dtype=float)
    points = x0.size if type(x0) is Batched else None
    start = start.reshape(points or 1, -1)
    with detached(evaluator, function):
        try:
            problem = _Problem(evaluator, function, kind, span, tuple(x0.shape), points)
            found = _newton(problem, start, maxiter)
        except _Restart as restart:
            problem = _Problem(evaluator, function, kind, span, tuple(x0.shape), restart.size)
            start = np.broadcast_to(start, (restart.size, start.shape[1])).copy()
            found = _newton(problem, start, maxiter)
    x = problem.leaf(found, False)
    if not is_grad_enabled():
        return x
    return _attach(evaluator, problem, x)


def _count(value, span, kind) -> int:
    number = number_of(value)
    if not number.is_integer() or number < 1:
        raise GradcliError(f"{kind}'s maxiter must be a whole number >= 1", span)
    return int(number)


def _newton(problem, x: np.ndarray, maxiter: int):
    """Newton's method at every point from ``x`` ``(P, n)``: the point found."""
    kind, span = problem.kind, problem.span
    done = np.zeros(len(x), dtype=bool)
    for iteration in range(maxiter + 1):
        F, J, f = problem.system(x)
        bad = ~np.isfinite(F).all(axis=1) | ~np.isfinite(J).all(axis=(1, 2))
        if bad.any():
            i = int(np.argmax(bad))
            raise GradcliError(
                f"{kind}: {problem.function.name} or its derivative is not finite at"
                f" x = {_shown(x[i], problem)}{_at(i, problem)}",
                span,
            )
        if done.all():
            _check_found(problem, x, F, J)
            return x
        if iteration == maxiter:
            break
        step = _step(problem, F, J, x)
        tiny = np.abs(step).max(axis=1) <= 4 * np.finfo(float).eps * (1 + np.abs(x).max(axis=1))
        tiny |= (F == 0).all(axis=1)
        length = _line_search(problem, x, step, F, f, ~tiny)
        x = x + length[:, None] * step
        done |= tiny & (length == 1)
    # F and J are those of the last iterate x.
    i = int(np.argmax(~done))
    residual = np.abs(F[i]).max() if problem.n else 0.0
    what = "residual |f(x)|" if kind == "root" else "gradient norm"
    why = ""
    if kind == "minimizer":
        lowest = np.linalg.eigvalsh((J[i] + J[i].T) / 2)[0]
        if lowest < 0:
            why = (
                f"; its Hessian there is not positive definite (lowest eigenvalue"
                f" {lowest:.3g}): f may have no minimum near x0"
            )
        elif lowest <= 1e-8 * max(np.abs(J[i]).max(), 1.0):
            why = (
                f"; its Hessian is nearly singular there (lowest eigenvalue {lowest:.3g}):"
                " no strict minimum, whose point would have derivatives, is near"
            )
    raise GradcliError(
        f"{kind} did not converge after {maxiter} iterations{_at(i, problem)}: the last iterate"
        f" x = {_shown(x[i], problem)} has {what} {residual:.3g}{why}",
        span,
    )


def _step(problem, F, J, x) -> np.ndarray:
    """The Newton step at each point (for minimizer, on the Hessian made positive definite)."""
    if problem.kind == "minimizer":
        H = (J + np.swapaxes(J, 1, 2)) / 2
        lowest = np.linalg.eigvalsh(H)[:, 0]
        scale = np.maximum(np.abs(H).max(axis=(1, 2)), 1.0)
        shift = np.where(lowest > 1e-10 * scale, 0.0, -lowest + 1e-6 * scale)
        J = H + shift[:, None, None] * np.eye(problem.n)
    steps = []
    for i in range(len(F)):
        try:
            steps.append(np.linalg.solve(J[i], -F[i]))
        except np.linalg.LinAlgError:
            raise GradcliError(
                f"{problem.kind}: the Jacobian of {problem.function.name} is singular at"
                f" x = {_shown(x[i], problem)}{_at(i, problem)}",
                problem.span,
            ) from None
    return np.array(steps)


def _line_search(problem, x, step, F, f, waiting) -> np.ndarray:
    """A step length at each point: 1, halved while it does not decrease f (minimizer) or
    |F| (root), at the points ``waiting`` (the others take the whole step)."""
    current = f if problem.kind == "minimizer" else np.abs(F).max(axis=1)
    length = np.ones(len(x))
    for _ in range(_HALVINGS if waiting.any() else 0):
        trial = problem.objective(x + length[:, None] * step)
        trial = np.broadcast_to(trial, length.shape)
        better = np.isfinite(trial) & (trial <= current + 1e-12 * np.abs(current))
        waiting &= ~better
        if not waiting.any():
            break
        length = np.where(waiting, length / 2, length)
    return length


def _check_found(problem, x, F, J) -> None:
    if problem.kind != "minimizer":
        return
    lowest = np.linalg.eigvalsh((J + np.swapaxes(J, 1, 2)) / 2)[:, 0]
    scale = np.maximum(np.abs(J).max(axis=(1, 2)), 1.0)
    bad = lowest <= 1e-10 * scale
    if bad.any():
        i = int(np.argmax(bad))
        raise GradcliError(
            f"minimizer: the point found, x = {_shown(x[i], problem)}{_at(i, problem)}, is no"
            f" strict minimum: its Hessian's lowest eigenvalue is {lowest[i]:.3g}",
            problem.span,
        )


def _shown(numbers: np.ndarray, problem) -> str:
    if problem.shape == ():
        return f"{float(numbers[0]):.17g}"
    return "[" + ", ".join(f"{float(v):.17g}" for v in numbers) + "]"


def _at(i: int, problem) -> str:
    return f" at point {i}" if problem.points is not None else ""


def _attach(evaluator, problem, x):
    """``STEPS`` Newton steps on the graph from the detached point ``x``."""
    span = problem.span

    def op(fn, *args):
        return evaluator.apply(fn.op.name, span, fn, *args)

    # Each step differentiates F with respect to x, so x starts as a leaf of its own.
    x = problem.leaf(_numbers(x).reshape(problem.points or 1, -1), True)
    for _ in range(STEPS):
        residual = _residual(problem, x)
        jacobian = _jacobian(problem, residual, x)
        if problem.shape == ():
            step = op(ops.div, residual, jacobian)
        else:
            step = op(ops.solve, jacobian, residual)
        x = op(ops.sub, x, step)
    return x


def _residual(problem, x):
    """F(x) on the graph: f(x) for root, the gradient of f at x for minimizer."""
    y = problem.value(x)
    if problem.kind == "root":
        return y
    (g,) = grad(ops.sum(_physical(y)), _physical(x), create_graph=True)
    return Batched(g) if type(x) is Batched else g


def _jacobian(problem, residual, x):
    """dF/dx on the graph (one reverse pass per entry of F, every point at once)."""
    inner, values = _physical(x), _physical(residual)
    if problem.shape == ():
        rows = [values]
    else:
        rows = [ops.getitem(values, (Ellipsis, k)) for k in range(problem.n)]
    found = []
    for row in rows:
        (d,) = grad(ops.sum(row), inner, create_graph=True, allow_unused=True)
        found.append(ops.zeros_like(inner) if d is None else d)
    jacobian = found[0] if problem.shape == () else ops.stack(found, -2)
    return Batched(jacobian) if type(x) is Batched else jacobian
