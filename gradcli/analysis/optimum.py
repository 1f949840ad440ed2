"""What ``minimize`` says of its end point: whether the first-order conditions hold
there (``converged``), the few Newton steps that polish it first, and the
covariance the inverse Hessian gives at a minimum.

The covariance is the inverse Hessian of the function minimised: of f, or of -f
with ``maximize`` (a log-likelihood maximised gives the observed information as
the Hessian of the negative log-likelihood). It exists at a strict interior
minimum only: a Hessian that is not positive definite there, a degenerate
verdict or an entry held at a bound is an error, never a number.

Converged means the first-order conditions hold, whatever SciPy's message: the
largest entry of the gradient of the function minimised (``-f`` with
``maximize``), projected onto the bounds, is at most ``gtol * max(1, |f|)``.
Projected: an entry at its lower bound whose derivative is positive (or at its
upper bound, negative) could only fall further outside, so it counts as 0. The
default ``gtol`` is the square root of the dtype's machine epsilon (1.5e-8 in
float64), the gradient test of the Hessian's verdict (``assembled``), so that a
point it calls a minimum has converged. Scaled by ``max(1, |f|)``: a gradient
computed as a sum of terms of the size of f carries rounding of that size, as a
negative log-likelihood over many rows does, and the test must not ask for less.

A SciPy method stops by its own test (a trust region that shrank, a relative fall
in f), which may be met short of the conditions or refused at a point that meets
them. Before judging, ``polish`` takes up to ``POLISH_STEPS`` Newton steps with
the exact Hessian on the entries not held at a bound, accepting a step only when
it lowers the projected gradient and leaves f no higher (up to f's rounding):
while the test fails, and after it passes where the Hessian is positive definite,
so that a minimum SciPy left at |grad f| = 1e-10 is given to the last digits
Newton's quadratic convergence reaches (x = 1 for -x exp(-x), not 0.999999998).
"""

from __future__ import annotations

import numpy as np

from ..core.assembled import DEGENERATE
from ..errors import GradcliError

#: The most Newton steps taken to polish an end point.
POLISH_STEPS = 5


def default_gtol(dtype: str) -> float:
    """sqrt(eps) of the dtype: the gradient test ``assembled`` classifies points with."""
    return float(np.sqrt(np.finfo(np.dtype(dtype)).eps))


def projected_gradient(gradient, x, box) -> np.ndarray:
    """The gradient of the function minimised with the entries held at a bound set to
    0 when they point out of the box (``box``: (low, high) arrays, or None)."""
    gradient = np.array(gradient, dtype=np.float64)
    if box is None:
        return gradient
    low, high = box
    at_low = x <= low
    at_high = x >= high
    gradient[at_low] = np.minimum(gradient[at_low], 0.0)
    gradient[at_high] = np.maximum(gradient[at_high], 0.0)
    return gradient


def scaled_gradient(value: float, gradient, x, box) -> float:
    """``max |projected gradient| / max(1, |f|)``: what the test compares with gtol."""
    largest = float(np.max(np.abs(projected_gradient(gradient, x, box)), initial=0.0))
    if not np.isfinite(value) or not np.isfinite(largest):
        return float("inf")
    return largest / max(1.0, abs(value))


def polish(second_order, x, box, gtol: float, eps: float) -> tuple[np.ndarray, int]:
    """``x`` after at most ``POLISH_STEPS`` accepted Newton steps, taken while the
    first-order test fails or the Hessian is positive definite, and how many were
    taken. ``second_order(x)`` gives the
    value, gradient and Hessian of the function minimised at x; ``eps`` is the
    machine epsilon of its dtype."""
    x = np.asarray(x, dtype=np.float64)
    value, gradient, hessian = second_order(x)
    taken = 0
    for _ in range(POLISH_STEPS):
        free = projected_gradient(gradient, x, box) != 0
        if not np.any(free) or not np.all(np.isfinite(hessian)):
            break
        block = hessian[np.ix_(free, free)]
        if scaled_gradient(value, gradient, x, box) <= gtol and not _positive_definite(block):
            # Converged, and Newton's step need not lead to a minimum: the point stays.
            break
        step = np.zeros_like(x)
        step[free] = np.linalg.lstsq(block, -gradient[free], rcond=None)[0]
        trial = x + step if box is None else np.clip(x + step, *box)
        if not np.all(np.isfinite(trial)) or np.array_equal(trial, x):
            break
        trial_value, trial_gradient, trial_hessian = second_order(trial)
        # f may not rise, but its last bits may: a step at the optimum changes f by
        # about g·step, far below the rounding of f itself.
        slack = 8 * eps * max(1.0, abs(value))
        norm = np.max(np.abs(projected_gradient(gradient, x, box)))
        trial_norm = np.max(np.abs(projected_gradient(trial_gradient, trial, box)))
        if not (trial_value <= value + slack and trial_norm < norm):
            break
        x, value, gradient, hessian = trial, trial_value, trial_gradient, trial_hessian
        taken += 1
    return x, taken


def _positive_definite(matrix) -> bool:
    try:
        np.linalg.cholesky((matrix + matrix.T) / 2)
    except np.linalg.LinAlgError:
        return False
    return True


def covariance(whole, sign: float, verdict: str, doubt, x, box, labels) -> np.ndarray:
    """The inverse of the Hessian of the function minimised (``sign`` times f's
    Hessian ``whole``, as ``assembled`` lays it out) at an interior minimum: for a
    negative log-likelihood, the observed-information covariance of the estimates.
    A GradcliError when the end point is no strict minimum of it (``verdict`` and
    ``doubt`` are ``steady_verdict``'s), is held at a bound, or has no Hessian."""
    sought = "maximum" if sign < 0 else "minimum"
    if whole.eigenvalues is None:
        raise GradcliError(
            f"--covariance needs the Hessian's eigenvalues, and the end point has none ({verdict})"
        )
    if box is not None:
        held = [label for label, v, a, b in zip(labels, x, *box) if v <= a or v >= b]
        if held:
            raise GradcliError(
                f"--covariance: {', '.join(held)} {'is' if len(held) == 1 else 'are'} held at "
                f"a bound, where the inverse Hessian is no covariance; leave out --bounds or "
                f"widen them"
            )
    matrix = sign * (whole.matrix + whole.matrix.T) / 2
    eigenvalues, vectors = np.linalg.eigh(matrix)
    shown = " ".join(f"{v:.6g}" for v in eigenvalues + 0.0)
    if not eigenvalues[0] > whole.eigenvalue_tolerance:
        of = "-f" if sign < 0 else "f"
        raise GradcliError(
            f"--covariance: the Hessian of {of} at the end point is not positive definite "
            f"(eigenvalues {shown}): it is not a local {sought}, and has no covariance"
        )
    if verdict == DEGENERATE:
        raise GradcliError(
            f"--covariance: the local {sought} is not strict, and the inverse Hessian is "
            f"no covariance: {doubt or 'the Hessian says degenerate'}"
        )
    return (vectors / eigenvalues) @ vectors.T


def standard_errors_and_correlation(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The square roots of a covariance's diagonal, and its correlation matrix."""
    errors = np.sqrt(np.diag(matrix))
    correlation = matrix / np.outer(errors, errors)
    np.fill_diagonal(correlation, 1.0)  # not 0.9999999999999999
    return errors, correlation
