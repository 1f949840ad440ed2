"""``gradcli fit``: nonlinear least squares of a model over the rows of a data file.

The residual of row i is ``w_i (f(x_i; b) - y_i)``, with ``w_i = 1/σ_i``
(``sigma``) or ``sqrt(weight_i)`` (``weights``), else 1. Its Jacobian by the
parameters is exact, every row at once, from the many-point engine
(``api.points``: one batched reverse pass); ``scipy.optimize.least_squares``
minimises the sum of squares by Levenberg-Marquardt (MINPACK), or by its
trust-region reflective method under bounds. The model compiled for the rows is
kept for the next fit of the same model to the same data, from any start
(``fit_residuals.COMPILED``): it gives the same numbers, bit for bit.

The standard errors are NIST's: the square roots of the diagonal of
``s² (JᵀJ)⁻¹``, with ``s² = RSS / (n - p)``, J taken at the solution (computed
through the singular value decomposition of J, not by inverting JᵀJ).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..core import computing
from ..core.bindings import named_texts
from ..core.evaluation import evaluation, no_such_input
from ..core.point_files.readers import open_points
from ..core.result import source_title
from ..engine import threads
from ..engine.ops import OPS
from ..errors import GradcliError
from ..language import compile_source, ir, tape
from ..render.fit_image import check_output, write_fit_image
from .commands import Calculator, Command, Option, Picture
from .fit_residuals import COMPILED, Residuals
from .flat import BOUNDS, Flat
from .report import Report, convergence, frozen


@dataclass(frozen=True, eq=False)
class FitReport(Report):
    command = "fit"
    layout = "least squares"
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


def _quick_start(model, bindings, params, predictors, observed, scale, options):
    """The parameters and the residuals without the first row's own evaluation (the
    engine's Jacobian there, ``_first_row``) where it could only find what the tape
    shows: no call of the model can land on a kink (a note), no input is a built-in
    constant (a note), no parameter is a matrix (a note on a square Jacobian), the tape
    replays the model, and the first row is finite at the start (else a warning):
    ``(flat, residuals, plain)``, ``plain`` False where the first row must be evaluated
    after all (what it says, or its error, as ``_first_row`` gives them). None where
    the first row comes first, and on any error: ``_first_row`` then says what it finds."""
    n = observed.size
    if n == 0 or _kinked(compile_source(model, options["filename"])):
        return None
    key = COMPILED.key(model, params, bindings, predictors, n, options)
    kept = COMPILED.get(key)
    try:
        if kept is None:
            if key is not None:  # kept, it holds its own arrays: the caller's may change
                predictors = {name: column.copy() for name, column in predictors.items()}
                bindings = {
                    name: value.copy() if isinstance(value, np.ndarray) else value
                    for name, value in bindings.items()
                }
            flat = _parameters_of(model, bindings, params, predictors, options)
            if flat is None or n <= flat.size:
                return None
            residuals = Residuals(model, flat, predictors, observed, scale, options)
        else:  # all but the start as the fit before found it
            template, compiled = kept
            start = {name: np.asarray(params[name]).astype(options["dtype"]) for name in params}
            flat = template.at(template.vector(start))
            residuals = Residuals(model, flat, predictors, observed, scale, options, compiled)
        plain = residuals.first_row_plain()
    except (GradcliError, ArithmeticError, LookupError, TypeError, ValueError):
        return None
    if kept is None and key is not None and residuals.tape is not None:
        COMPILED.put(key, (flat, (residuals.program, residuals.tape)))
    return flat, residuals, plain


def _parameters_of(model, bindings, params, predictors, options) -> Flat | None:
    """The parameters' layout and the inputs held, from the first row's evaluation; None
    where that evaluation would say something (``_quick_start``)."""
    first_row = {k: v[0] for k, v in predictors.items()}
    with evaluation(
        model, {**bindings, **params, **first_row}, tuple(params), options["dtype"],
        options["seed"], options["filename"], command="jacobian", complex_inputs=True,
    ) as s:  # fmt: skip
        values = {**s.values, **s.constants}
        if (
            s.binding_notes
            or tape.refusal(s.program, s.wrt) is not None
            or any(np.iscomplexobj(v) for v in values.values())
            or any(np.ndim(s.values[name]) > 1 for name in s.wrt)
        ):
            return None
        shapes = {name: np.shape(v) for name, v in s.values.items()}
        return Flat(s.wrt, shapes, s.values, s.constants)


@functools.lru_cache(maxsize=16)
def _kinked(program) -> bool:
    """Whether a call of ``program`` may land on a kink of its function (the evaluator
    then notes it): an op with a kink, or one not known to have none."""
    for statement in program.ir.statements:
        for node in ir.walk(statement):
            if isinstance(node, (ir.Call, ir.Method)):
                names = (node.func if isinstance(node, ir.Call) else node.name,)
            elif isinstance(node, (ir.UnaryOp, ir.BinOp)):
                names = (node.op,)
            elif isinstance(node, ir.Chain):
                names = node.ops
            else:
                continue
            if any(name not in OPS or OPS[name].kink_at is not None for name in names):
                return True
    return False


def _least_squares(residuals: Residuals, flat: Flat, bounds, tol, max_evaluations):
    """scipy's least_squares: Levenberg-Marquardt, or trust-region reflective under bounds."""
    import scipy.optimize

    box = flat.bounds(bounds or {})
    method = "trf" if box is not None else "lm"
    found = scipy.optimize.least_squares(
        residuals.residual,
        flat.start if box is None else np.clip(flat.start, *box),
        jac=residuals.jacobian,
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
    # np.clip(d, 0, None) and np.outer, without their dispatch: the same ufuncs.
    errors = np.sqrt(np.maximum(covariance.diagonal(), 0))
    with np.errstate(all="ignore"):
        correlation = covariance / (errors[:, None] * errors[None, :])
    np.fill_diagonal(correlation, 1.0)  # not 0.9999999999999999
    return covariance, errors, correlation, notes


@threads.run(scipy=True)
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
    quick = _quick_start(model, bindings, params, predictors, observed, scale, options)
    if quick is None:
        first, flat = _first_row(model, bindings, params, predictors, where, n, options)
        residuals = Residuals(model, flat, predictors, observed, scale, options)
        said = (*first.notes, *first.warnings)
    else:
        (flat, residuals, plain), said = quick, ()
        if not plain:  # the residuals are the same: the first row is only heard
            first, _ = _first_row(model, bindings, params, predictors, where, n, options)
            said = (*first.notes, *first.warnings)
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
        (*notes, *said),
    )


# A parameter starts a new NAME=VALUE after a comma: b1=500,b2=1e-4 (a value keeps its commas).
_NEXT_PARAMETER = re.compile(r",\s*(?=[A-Za-z_]\w*\s*=)")


def _parameters(texts) -> dict[str, str]:
    parts = [part for text in texts for part in _NEXT_PARAMETER.split(text)]
    return named_texts(parts, "--params", "a starting value")


def _calculator_line(argument: str) -> tuple[str, tuple[str, str]]:
    """``:fit FILE [--response COLUMN] [EXPR]``: the expression, and the file and column."""
    path, _, rest = argument.partition(" ")
    response, rest = "y", rest.strip()
    if rest.startswith("--response"):
        _, _, rest = rest.partition(" ")
        response, _, rest = rest.strip().partition(" ")
    if not path or not response:
        raise GradcliError(":fit needs the data: :fit FILE [--response COLUMN] [EXPR]")
    return rest.strip(), (os.path.expanduser(path), response)


def _calculator_settings(said, values: Mapping, read) -> dict:
    """``:fit``'s parameters: the inputs read that have a value and no column in the
    file, from their values; other inputs with a value are held at it."""
    path, response = said
    with open_points(path) as reader:
        columns = set(reader.names)
    params = {n: values[n] for n in read if n in values and n not in columns}
    if not params:
        raise GradcliError(
            ":fit needs the parameters with their starting values: assign them first "
            "(b1 = 500), then :fit FILE EXPR"
        )
    held = {n: v for n, v in values.items() if n not in params and n not in columns}
    return {"bindings": held, "data": path, "params": params, "response": response}


COMMANDS = (
    Command(
        "fit",
        fit,
        """Nonlinear least squares: the parameters of the model SOURCE that fit the
    response column of the data best, every other input of the model being a
    column. scipy.optimize.least_squares (Levenberg-Marquardt; trust-region
    reflective with --bounds) gets the residuals' exact Jacobian at every row
    at once. Prints each parameter with its standard error (from s^2 (J^T J)^-1,
    as NIST certifies them), the residual sum of squares, s, the degrees of
    freedom and the correlations; --output FILE.png also draws the data, the
model and the residuals (with matplotlib). Exit status 1 when it does not
converge.

    \b
    Example:
      $ gradcli fit "b1*(1-exp(-b2*x))" --points samples/misra1a.csv \
          --params b1=500,b2=1e-4 --format plain --precision 10
      parameters.b1.value 238.9421292
      parameters.b1.standard_error 2.707007524
      parameters.b2.value 0.0005501564318
      parameters.b2.standard_error 7.266868844e-06
      rss 0.1245513889
      residual_sd 0.1018787633
      dof 12
      observations 14
      correlation.labels b1 b2
      correlation.matrix 1 -0.998776192 -0.998776192 1
      method levenberg-marquardt
      evaluations 22
      converged true
      message `xtol` termination condition is satisfied.
    """,
        (
            Option(
                "points",
                "The data: .csv with a header, .jsonl, .npz, .parquet (as --points reads).",
                metavar="FILE",
                parameter="data",
                required=True,
            ),
            Option(
                "params",
                "The parameters fitted and their starting values.",
                kind="texts",
                metavar="B1=V,B2=V",
                required=True,
                parse=_parameters,
            ),
            Option(
                "response",
                "The column of observed values (--y would bind an input named y).",
                default="y",
                metavar="COLUMN",
            ),
            Option("weights", "A column of weights w: minimise sum w r^2.", metavar="COLUMN"),
            Option(
                "sigma",
                "A column of standard deviations s: minimise sum (r/s)^2.",
                metavar="COLUMN",
            ),
            BOUNDS,
        ),
        exit_status=convergence("fit"),
        # Before the fit: a picture it cannot draw fails first.
        picture=Picture(
            check_output,
            write_fit_image,
            "Also draw the data, the model and the residuals into FILE (.png, .svg).",
            own=True,
        ),
        calculator=Calculator(
            ":fit FILE [EXPR]",
            "fit the inputs with values to FILE's y (--response C); the rest are columns",
            read=_calculator_line,
            settings=_calculator_settings,
        ),
    ),
)
