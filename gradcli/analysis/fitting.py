"""``gradcli fit``: nonlinear least squares of a model over the rows of a data file.

The residual of row i is ``w_i (f(x_i; b) - y_i)``, with ``w_i = 1/σ_i``
(``sigma``) or ``sqrt(weight_i)`` (``weights``), else 1. Its Jacobian by the
parameters is exact, every row at once, from the many-point engine
(``api.points``: one batched reverse pass); ``scipy.optimize.least_squares``
minimises the sum of squares by Levenberg-Marquardt (MINPACK), or by its
trust-region reflective method under bounds.

The standard errors are NIST's: the square roots of the diagonal of
``s² (JᵀJ)⁻¹``, with ``s² = RSS / (n - p)``, J taken at the solution (computed
through the singular value decomposition of J, not by inverting JᵀJ).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..core import computing, many_points
from ..core.evaluation import no_such_input
from ..core.point_files.readers import open_points
from ..core.result import source_title
from ..engine import threads
from ..errors import GradcliError
from ..language import compile_source
from .flat import Flat
from .report import Report, frozen


@dataclass(frozen=True, eq=False)
class FitReport(Report):
    command = "fit"
    source: str
    title: str
    response: str
    #: The fitted parameters and their standard errors, parameter by parameter.
    parameters: Mapping[str, np.ndarray]
    standard_errors: Mapping[str, np.ndarray]
    #: The sum of squared (weighted) residuals, s = sqrt(RSS / dof), and dof = n - p.
    rss: float
    residual_sd: float
    dof: int
    observations: int
    #: The parameters' correlation matrix and covariance s²(JᵀJ)⁻¹, entries in ``labels`` order.
    labels: tuple[str, ...]
    correlation: np.ndarray
    covariance: np.ndarray
    method: str
    evaluations: int
    converged: bool
    message: str
    #: The data's predictors, the response, the model's values and the residuals, for a picture.
    predictors: Mapping[str, np.ndarray]
    observed: np.ndarray
    fitted: np.ndarray
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        return {
            "parameters": {
                n: {"value": v, "standard_error": self.standard_errors[n]}
                for n, v in self.parameters.items()
            },
            "rss": self.rss,
            "residual_sd": self.residual_sd,
            "dof": self.dof,
            "observations": self.observations,
            "correlation": {"labels": self.labels, "matrix": self.correlation},
            "method": self.method,
            "evaluations": self.evaluations,
            "converged": self.converged,
            "message": self.message,
        }


def read_columns(path: str) -> dict[str, np.ndarray]:
    """Every column of a ``--points`` file, whole."""
    with open_points(path) as reader:
        chunks = list(reader.chunks(1 << 20))
        names = reader.names
    if not chunks:
        return {n: np.zeros(0) for n in names}
    return {n: np.concatenate([c.columns[n] for c in chunks]) for n in names}


def _column(columns: Mapping, where: str, name: str, option: str) -> np.ndarray:
    if name not in columns:
        raise GradcliError(
            f"{option} {name}: {where} has no column {name!r}; its columns are "
            f"{', '.join(columns) or 'none'}"
        )
    return columns[name]


def _check_params(params: Mapping, inputs) -> None:
    if not params:
        raise GradcliError("fit needs the parameters and their starting values: --params b1=1,b2=2")
    for name in params:
        if name not in inputs:
            raise GradcliError(f"--params {name}: {no_such_input(name, inputs)}")


def _predictors(free, columns: Mapping, where: str) -> dict[str, np.ndarray]:
    """The columns that bind the model's inputs that are neither parameters nor bound."""
    for name in free:
        if name not in columns:
            raise GradcliError(
                f"the model's input {name!r} is neither a parameter (--params) nor a column "
                f"of {where} (its columns are {', '.join(columns) or 'none'}); bind it with "
                f"--{name} VALUE if it is a constant"
            )
    return {n: columns[n] for n in free}


def _row_scale(columns, where, observed, weights, sigma) -> np.ndarray:
    """Each row's residual weight: sqrt(weight), 1/σ, else 1."""
    if weights is not None and sigma is not None:
        raise GradcliError("give --weights or --sigma, not both")
    if weights is not None:
        w = _column(columns, where, weights, "--weights")
        if np.any(~np.isfinite(w)) or np.any(w < 0):
            raise GradcliError(f"--weights {weights}: weights must be finite and not negative")
        return np.sqrt(w)
    if sigma is not None:
        s = _column(columns, where, sigma, "--sigma")
        if np.any(~np.isfinite(s)) or np.any(s <= 0):
            raise GradcliError(f"--sigma {sigma}: standard deviations must be finite and positive")
        return 1.0 / s
    return np.ones_like(observed)


def _first_row(model, bindings, params, predictors, where, n, options):
    """The first row alone: the parameters' values and shapes, and a scalar model checked."""
    if n == 0:
        raise GradcliError(f"{where} has no rows to fit")
    first_row = {k: v[0] for k, v in predictors.items()}
    first = computing.jacobian(
        model, {**bindings, **params, **first_row}, wrt=tuple(params), **options
    )
    if np.asarray(first.value).size != 1:
        raise GradcliError(
            f"fit needs a model with one value per row, but its value has shape "
            f"{np.shape(first.value)}"
        )
    flat = Flat.of(first)
    if n <= flat.size:
        raise GradcliError(
            f"fit needs more rows than parameters: {where} has {n} rows for {flat.size} parameters"
        )
    return first, flat


class _Residuals:
    """The weighted residuals and their Jacobian at parameters b, every row in one batched
    pass; the last point is kept, since least_squares asks for both at the same b.

    The model is compiled and bound once for the whole fit (``PointsProgram``): the
    parameters are given at each call as columns that repeat b on every row, so that
    each row's gradient by its own copy is that row of the Jacobian."""

    def __init__(self, model, flat, predictors, observed, scale, options):
        self.flat, self.predictors = flat, predictors
        self.observed, self.scale = observed, scale
        fixed = {k: v for k, v in flat.fixed.items() if k not in predictors}
        batch = {**predictors, **self._columns(flat.start)}
        self.program = many_points.PointsProgram(
            "grad", model, fixed, many_points.layout(batch), wrt=flat.names, **options
        )
        self.cache: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self.rows = observed.size

    def _columns(self, b) -> dict[str, np.ndarray]:
        """Each parameter as a column: its value repeated on every row."""
        n = self.observed.size
        return {
            name: np.broadcast_to(np.asarray(v, dtype=np.float64), (n, *np.shape(v)))
            for name, v in self.flat.arrays(b).items()
        }

    def __call__(self, b) -> tuple[np.ndarray, np.ndarray]:
        key = np.asarray(b, dtype=np.float64).tobytes()
        if key not in self.cache:
            self.cache.clear()
            self.cache[key] = self._evaluate(b)
        return self.cache[key]

    def _evaluate(self, b) -> tuple[np.ndarray, np.ndarray]:
        flat, n = self.flat, self.rows
        # nan and inf are looked for below, in the residuals and the Jacobian.
        got = self.program.arrays({**self.predictors, **self._columns(b)})
        value = np.asarray(got["value"], dtype=np.float64).reshape(n)
        jacobian = np.concatenate(
            [np.reshape(got[f"grad.{name}"], (n, -1)) for name in flat.names], 1
        )
        residual = self.scale * (value - self.observed)
        if not np.all(np.isfinite(residual)) or not np.all(np.isfinite(jacobian)):
            residual = np.where(np.isfinite(residual), residual, 1e150)
            jacobian = np.where(np.isfinite(jacobian), jacobian, 0.0)
        return residual, self.scale[:, None] * jacobian


def _least_squares(residuals: _Residuals, flat: Flat, bounds, tol, max_evaluations):
    """scipy's least_squares: Levenberg-Marquardt, or trust-region reflective under bounds."""
    import scipy.optimize

    box = flat.bounds(bounds or {})
    method = "trf" if box is not None else "lm"
    found = scipy.optimize.least_squares(
        lambda b: residuals(b)[0],
        flat.start if box is None else np.clip(flat.start, *box),
        jac=lambda b: residuals(b)[1],
        method=method,
        bounds=(-np.inf, np.inf) if box is None else box,
        x_scale="jac",
        xtol=tol,
        ftol=tol,
        gtol=tol,
        max_nfev=max_evaluations,
    )
    return found, method


def _covariance(jacobian: np.ndarray, s2: float):
    """s²(JᵀJ)⁻¹ through the SVD of J, the standard errors, the correlation, and a note
    when J is nearly singular."""
    _, singular, vt = np.linalg.svd(jacobian, full_matrices=False)
    notes = []
    if singular[-1] <= 1e-12 * singular[0]:
        notes.append(
            "the Jacobian of the residuals is nearly singular: the standard errors are unreliable"
        )
    with np.errstate(divide="ignore"):
        inverse = (vt.T / singular**2) @ vt
    covariance = s2 * inverse
    errors = np.sqrt(np.clip(np.diag(covariance), 0, None))
    with np.errstate(all="ignore"):
        correlation = covariance / np.outer(errors, errors)
    np.fill_diagonal(correlation, 1.0)  # not 0.9999999999999999
    return covariance, errors, correlation, notes


@threads.run()
def fit(
    model: str,
    bindings: Mapping | None = None,
    *,
    data: str | Mapping,
    params: Mapping,
    response: str = "y",
    weights: str | None = None,
    sigma: str | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    tol: float = 1e-15,
    max_evaluations: int = 10000,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> FitReport:
    """Fit ``params`` (name -> starting value) of ``model`` to ``data`` (a file that
    ``--points`` reads, or a mapping of column name -> 1-D array): each input of
    the model that is not a parameter nor bound in ``bindings`` is a column.
    ``response`` names the observed column; ``weights`` or ``sigma`` a column of
    weights or of standard deviations (not both)."""
    where = data if isinstance(data, str) else "the data"
    columns = read_columns(data) if isinstance(data, str) else dict(data)
    columns = {n: np.asarray(c, dtype=np.float64).reshape(-1) for n, c in columns.items()}
    program = compile_source(model, filename)
    bindings = dict(bindings or {})
    _check_params(params, program.inputs)
    observed = _column(columns, where, response, "--response")
    free = [n for n in program.inputs if n not in params and n not in bindings]
    predictors = _predictors(free, columns, where)
    scale = _row_scale(columns, where, observed, weights, sigma)
    n = observed.size
    options = {"dtype": dtype, "seed": seed, "filename": filename}
    first, flat = _first_row(model, bindings, params, predictors, where, n, options)
    residuals = _Residuals(model, flat, predictors, observed, scale, options)
    found, method = _least_squares(residuals, flat, bounds, tol, max_evaluations)
    b = np.asarray(found.x, dtype=np.float64)
    residual, jacobian = residuals(b)
    if not np.all(np.abs(residual) < 1e150):
        raise GradcliError(
            "fit diverged: the model is not finite at some rows for the parameters reached ("
            + ", ".join(f"{label} = {v:.6g}" for label, v in zip(flat.labels, b))
            + "); start nearer"
        )
    rss = float(residual @ residual)
    dof = n - flat.size
    s2 = rss / dof
    covariance, errors, correlation, notes = _covariance(jacobian, s2)
    fitted = np.asarray(observed + residual / scale)
    converged = bool(found.success) and found.status > 0
    return FitReport(
        model,
        source_title(model, filename),
        response,
        flat.frozen_arrays(b),
        flat.frozen_arrays(errors),
        rss,
        float(np.sqrt(s2)),
        dof,
        n,
        flat.labels,
        frozen(correlation),
        frozen(covariance),
        "levenberg-marquardt" if method == "lm" else "trust-region-reflective",
        int(found.nfev),
        converged,
        " ".join(str(found.message).split()),
        MappingProxyType({k: frozen(v) for k, v in predictors.items()}),
        frozen(observed),
        frozen(fitted),
        (*notes, *first.notes, *first.warnings),
    )
