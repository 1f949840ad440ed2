"""The whole Hessian or Jacobian over all inputs, and what the Hessian says of the point.

The blocks ``H[x][y]`` (or ``J[x]``) of a result are laid side by side with every
input flattened in order, so the matrix has one labelled row and column per
number: ``x``, ``w[0]``, ``w[1]``, ``W[0,1]``. At a point where the gradient is
numerically zero, the signs of the Hessian's eigenvalues classify it (the second
derivative test); an eigenvalue numerically zero leaves the test inconclusive.

Both tolerances scale with the dtype's precision: the gradient counts as zero
when ``max |∇f| <= sqrt(eps) * max(1, |f|)``, an eigenvalue when
``|λ| <= sqrt(eps) * max(1, max |λ|)``.

A solver's end point passes the gradient test without being the critical point
itself: ``x**3`` stopped at x = 3.8e-6 has a gradient of 4e-11 and a positive
second derivative, yet the critical point, 0, is an inflection. ``steady_verdict``
asks the second derivative test again across the region the gradient test cannot
tell apart from the critical point (``STEADY_MARGIN`` Newton steps each way), and
calls the point degenerate when the verdict changes there.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..record import Record

LOCAL_MINIMUM = "local minimum"
LOCAL_MAXIMUM = "local maximum"
SADDLE = "saddle point"
DEGENERATE = "degenerate"
NOT_CRITICAL = "not a critical point"
NOT_FINITE = "not classified: the Hessian is not finite"
#: Above this many rows the eigenvalues are not computed: LAPACK's O(n³) call would
#: take seconds to minutes and cannot be interrupted with Ctrl-C.
EIGENVALUE_LIMIT = 1000
#: How many Newton steps (the distance to the quadratic model's critical point) each
#: side of an end point its verdict must hold.
STEADY_MARGIN = 4.0
TOO_LARGE = f"not classified: more than {EIGENVALUE_LIMIT} inputs (eigenvalues not computed)"


class Assembled(Record, compared=False):
    """One matrix over all inputs, with its rows and columns named."""

    #: "hessian" or "jacobian".
    kind: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    matrix: np.ndarray
    #: The Hessian's eigenvalues, ascending (None for a Jacobian).
    eigenvalues: np.ndarray | None = None
    #: The Jacobian's determinant when it is square, else None.
    determinant: np.ndarray | None = None
    #: One of the module's verdicts (Hessian only).
    classification: str | None = None
    gradient_norm: float | None = None
    gradient_tolerance: float | None = None
    eigenvalue_tolerance: float | None = None

    def as_tree(self) -> dict:
        """The JSON keys this matrix adds to its command's object."""
        tree: dict = {
            "assembled": {"rows": self.rows, "columns": self.columns, "matrix": self.matrix}
        }
        if self.kind == "hessian":
            tree["eigenvalues"] = self.eigenvalues
            tree["classification"] = self.classification
            tree["tolerance"] = {
                "gradient": self.gradient_tolerance,
                "eigenvalue": self.eigenvalue_tolerance,
            }
        elif self.determinant is not None:
            tree["determinant"] = self.determinant
        return tree


def entry_labels(name: str, shape: tuple[int, ...]) -> list[str]:
    """``x`` for a scalar, else one label per entry in row-major order: ``w[0]``, ``W[0,1]``."""
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*shape)]


def wants_hessian(shapes: Mapping[str, tuple[int, ...]], inputs) -> bool:
    """Whether the Hessian is assembled and classified: for any input (for one scalar,
    the test reads the sign of f'' at a point where f' is zero)."""
    return len(inputs) > 0


def wants_jacobian(value_shape: tuple[int, ...], shapes: Mapping, inputs) -> bool:
    """Whether the Jacobian is assembled: for several inputs, when the one block is
    not already a matrix of outputs by inputs (a matrix input or output), or when it is
    square (a vector q of n entries to n outputs, a robot's joints to its pose), for
    its determinant."""
    if len(inputs) == 1 and len(value_shape) == 1 and shapes[inputs[0]] == value_shape:
        return True
    return len(inputs) > 1 or any(len(shapes[n]) > 1 for n in inputs) or len(value_shape) > 1


def assemble_hessian(value, grad: Mapping, hessian: Mapping, shapes: Mapping) -> Assembled:
    """The Hessian of all inputs in ``hessian``'s order, its eigenvalues and the verdict."""
    names = list(hessian)
    sizes = [int(np.prod(shapes[n], dtype=int)) for n in names]
    rows = [
        np.concatenate([np.reshape(hessian[x][y], (sx, sy)) for y, sy in zip(names, sizes)], 1)
        for x, sx in zip(names, sizes)
    ]
    matrix = np.concatenate(rows, 0) if rows else np.zeros((0, 0))
    labels = tuple(label for n in names for label in entry_labels(n, shapes[n]))
    eps = float(np.finfo(matrix.dtype if matrix.dtype.kind == "f" else np.float64).eps)
    gradient = np.concatenate([np.reshape(grad[n], -1) for n in names]) if names else np.zeros(0)
    gradient_norm = float(np.max(np.abs(gradient), initial=0.0))
    f = float(np.asarray(value).reshape(-1)[0])
    gradient_tolerance = float(np.sqrt(eps) * max(1.0, abs(f) if np.isfinite(f) else 1.0))
    unclassified = NOT_FINITE if not np.isfinite(matrix).all() else None
    if len(matrix) > EIGENVALUE_LIMIT:
        unclassified = TOO_LARGE
    if unclassified is not None:
        return Assembled(
            "hessian",
            labels,
            labels,
            matrix,
            classification=unclassified,
            gradient_norm=gradient_norm,
            gradient_tolerance=gradient_tolerance,
        )
    # The symmetric part: a Hessian is symmetric, up to rounding in its two passes.
    # + 0.0: an eigenvalue -0.0 (of a Hessian of -0.0 entries) is no negative number.
    eigenvalues = np.linalg.eigvalsh((matrix + matrix.T) / 2) + 0.0
    largest = float(np.max(np.abs(eigenvalues), initial=0.0))
    eigenvalue_tolerance = float(np.sqrt(eps) * max(1.0, largest))
    verdict = classify(eigenvalues, gradient_norm, gradient_tolerance, eigenvalue_tolerance)
    return Assembled(
        "hessian",
        labels,
        labels,
        matrix,
        eigenvalues=eigenvalues,
        classification=verdict,
        gradient_norm=gradient_norm,
        gradient_tolerance=gradient_tolerance,
        eigenvalue_tolerance=eigenvalue_tolerance,
    )


def classify(eigenvalues, gradient_norm: float, gradient_tolerance: float, tolerance: float):
    """The second derivative test: a critical point is a minimum when every eigenvalue
    is positive, a maximum when every one is negative, a saddle when there are both
    (even with zeros among them); otherwise a zero eigenvalue leaves it degenerate."""
    if not gradient_norm <= gradient_tolerance:
        return NOT_CRITICAL
    positive = bool(np.any(eigenvalues > tolerance))
    negative = bool(np.any(eigenvalues < -tolerance))
    if positive and negative:
        return SADDLE
    if np.any(np.abs(eigenvalues) <= tolerance):
        return DEGENERATE
    return LOCAL_MINIMUM if positive else LOCAL_MAXIMUM


def assemble_jacobian(value, jacobian: Mapping, shapes: Mapping) -> Assembled:
    """The Jacobian of every output entry (rows) by every input entry (columns), in
    ``jacobian``'s order; its determinant when it is square."""
    value = np.asarray(value)
    names = list(jacobian)
    outputs = value.size
    # Sizes written out, not -1: an empty output has no rows to infer them from.
    blocks = [np.reshape(jacobian[n], (outputs, int(np.prod(shapes[n])))) for n in names]
    matrix = np.concatenate(blocks, 1) if blocks else np.zeros((outputs, 0))
    columns = tuple(label for n in names for label in entry_labels(n, shapes[n]))
    rows = tuple(entry_labels("f", value.shape))
    determinant = None
    if matrix.shape[0] == matrix.shape[1] and matrix.size:
        with np.errstate(all="ignore"):
            determinant = np.asarray(_determinant(matrix) if np.isfinite(matrix).all() else np.nan)
    return Assembled("jacobian", rows, columns, matrix, determinant=determinant)


#: Up to this many rows the determinant is the product of LU's pivots, by elimination
#: here; above, NumPy's, which goes through logarithms (det diag(6, 8) = 47.999999999999986).
EXACT_DETERMINANT_LIMIT = 200


def _determinant(matrix: np.ndarray) -> float:
    """Gaussian elimination with partial pivoting, the pivots multiplied: exact where
    the elimination is (a triangular or diagonal matrix, small integers)."""
    if len(matrix) > EXACT_DETERMINANT_LIMIT:
        return float(np.linalg.det(matrix))
    a = np.array(matrix, dtype=matrix.dtype if matrix.dtype.kind == "f" else np.float64)
    determinant = 1.0
    for k in range(len(a)):
        pivot = k + int(np.argmax(np.abs(a[k:, k])))
        if a[pivot, k] == 0:
            return 0.0
        if pivot != k:
            a[[k, pivot]] = a[[pivot, k]]
            determinant = -determinant
        determinant *= float(a[k, k])
        a[k + 1 :, k:] -= np.outer(a[k + 1 :, k] / a[k, k], a[k, k:])
    return determinant


def singular_note(whole: Assembled) -> str | None:
    """For a square Jacobian that is singular to working precision (its smallest singular
    value at most n eps times its largest, as ``numpy.linalg.matrix_rank`` counts), the
    note saying so, with the rank; else None."""
    matrix = np.asarray(whole.matrix)
    if whole.determinant is None or not np.isfinite(matrix).all():
        return None
    singular = np.linalg.svd(matrix.astype(np.float64), compute_uv=False)
    eps = float(np.finfo(matrix.dtype if matrix.dtype.kind == "f" else np.float64).eps)
    largest = float(singular[0])
    if largest > 0 and singular[-1] > len(matrix) * eps * largest:
        return None
    ratio = float(singular[-1]) / largest if largest > 0 else 0.0
    rank = int(np.sum(singular > len(matrix) * eps * largest)) if largest > 0 else 0
    return (
        f"the Jacobian is singular (rank {rank} of {len(matrix)}): its smallest singular "
        f"value is {ratio:.3g} times its largest: the determinant is 0 up to rounding"
    )


def steady_verdict(whole: Assembled, gradient, hessian_at, x) -> tuple[str, str | None]:
    """The verdict of ``whole`` (the Hessian at ``x``, with ``gradient`` there) if the
    Hessian gives the same one at ``x ± STEADY_MARGIN * H⁻¹∇f``, else DEGENERATE and
    a note saying why. ``hessian_at(y)`` is the whole Hessian at y, as a matrix."""
    verdict = whole.classification
    if verdict not in (LOCAL_MINIMUM, LOCAL_MAXIMUM, SADDLE):
        return verdict, None
    x = np.asarray(x, dtype=np.float64)
    step = np.linalg.lstsq(whole.matrix, np.asarray(gradient, dtype=np.float64), rcond=None)[0]
    if not np.any(step) or not np.all(np.isfinite(step)):
        return verdict, None
    tolerance = whole.eigenvalue_tolerance

    def inertia(matrix):
        eigenvalues = np.linalg.eigvalsh((matrix + matrix.T) / 2)
        return int(np.sum(eigenvalues > tolerance)), int(np.sum(eigenvalues < -tolerance))

    here = inertia(whole.matrix)
    for side in (-STEADY_MARGIN, STEADY_MARGIN):
        matrix = np.asarray(hessian_at(x + side * step), dtype=np.float64)
        if not np.all(np.isfinite(matrix)) or inertia(matrix) != here:
            return DEGENERATE, (
                f"the Hessian says {verdict} here but not {STEADY_MARGIN:g} Newton steps "
                f"({np.linalg.norm(step):.3g} each) away, where the gradient test cannot tell "
                f"the points apart: the critical point nearby is degenerate"
            )
    return verdict, None
