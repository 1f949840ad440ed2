"""The commands that put the derivative to work (minimize, solve, critical, fit, div,
curl, laplacian): thin Click commands over ``gradcli.analysis``, loaded with the
analyses (``cli.analysis``), so that ``gradcli grad`` does not pay for them."""

from __future__ import annotations

import re
import sys
import time

import click

from ..core import bindings as _bindings
from .analysis import REPORT_OPTIONS, analysis_command, run_report, strict_status
from .common import cli, say_error
from .options import OVER_HELP
from .options import option as _option

#: The exit status of a solver that stopped short of its tolerance (its last iterate shown).
EXIT_NOT_CONVERGED = 1

_WRT = _option("wrt", multiple=True, metavar="X,Y", help="The inputs varied [default: all].")
_BOUNDS = _option(
    "bounds",
    multiple=True,
    metavar="X=LOW:HIGH",
    help="Keep every entry of X within [LOW, HIGH] (repeatable; x=0: has no upper bound).",
)
_MAX_ITER = _option(
    "max-iter", "max_iter", type=click.IntRange(1), default=1000, show_default=True,
    metavar="N", help="The most iterations.",
)  # fmt: skip


class _Progress:
    """A run's iteration on one line of a terminal's standard error, once it has taken
    ``DELAY`` seconds, redrawn at most every ``EVERY`` seconds and wiped at the end."""

    DELAY, EVERY = 1.0, 0.2

    def __init__(self, command: str):
        self.command, self.start, self.last, self.width = command, time.monotonic(), 0.0, 0

    def __call__(self, iteration: int, f: float, gradient_norm: float) -> None:
        now = time.monotonic()
        if now - self.start < self.DELAY or now - self.last < self.EVERY:
            return
        line = f"{self.command}: iteration {iteration}, f = {f:.6g}, |grad f| = {gradient_norm:.3g}"
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.last, self.width = now, max(self.width, len(line))

    def close(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _converged(report, options, command: str) -> int:
    if not report.converged:
        message = f"{command} did not converge ({report.message}); the last iterate is shown"
        return say_error(message, EXIT_NOT_CONVERGED)
    return strict_status(report, options)


@analysis_command(
    cli,
    "minimize",
    _WRT,
    _option(
        "method",
        metavar="NAME",
        help="scipy.optimize.minimize's method: trust-exact, newton-cg, trust-ncg, "
        "trust-krylov, dogleg (with the exact Hessian; Hessian-vector products for "
        "newton-cg, trust-ncg and trust-krylov over 200 entries), bfgs, l-bfgs-b, cg, tnc, "
        "slsqp [default: trust-exact; newton-cg over 200 entries; l-bfgs-b with --bounds].",
    ),
    _BOUNDS,
    _option("maximize", is_flag=True, help="Find a local maximum instead."),
    _option("tol", type=float, default=1e-10, show_default=True, help="SciPy's tolerance."),
    _MAX_ITER,
    _option(
        "trace",
        is_flag=True,
        help="Also show every iteration's point, f and |grad f|: a table on a terminal, "
        "CSV with --format plain (or piped), one JSON object a line with --format json.",
    ),
    shared=REPORT_OPTIONS,
)
def minimize_command(source, wrt, method, bounds, maximize, tol, max_iter, trace, **options):
    """A local minimum of a scalar SOURCE from the bound start, by
    scipy.optimize.minimize with the engine's exact gradient and Hessian; the
    end point is classified by its Hessian, as 'gradcli hessian' does. Exit
    status 1 when the method stops short of its tolerance (the last iterate is
    shown), 2 when the iterates diverge.

    \b
    Example:
      $ gradcli minimize "(1-x)**2 + 100*(y-x**2)**2" --x -1.2 --y 1 --format plain \
          --precision 10
      point.x 1
      point.y 1
      value 0
      gradient_norm 0
      classification local minimum
      eigenvalues 0.3993607675 1001.600639
      method trust-exact
      maximize false
      iterations 26
      evaluations 27
      converged true
      message Optimization terminated successfully.
    """
    from ..analysis.flat import parse_bounds
    from ..analysis.optimize import minimize

    progress = _Progress("minimize") if _stderr_is_terminal() else None

    def run(*args, **kwargs):
        try:
            return minimize(*args, progress=progress, **kwargs)
        finally:  # the line wiped before the report is written
            if progress is not None:
                progress.close()

    report = run_report(
        run,
        source,
        options,
        wrt=_bindings.names_of(wrt),
        method=method,
        bounds=parse_bounds(bounds),
        maximize=maximize,
        tol=tol,
        max_iter=max_iter,
        trace=trace,
    )
    return _converged(report, options, "minimize")


@analysis_command(
    cli,
    "solve",
    _WRT,
    _option("tol", type=float, default=1e-12, show_default=True,
            help="Converged when max |F| <= TOL * max(1, max |F(start)|)."),
    _MAX_ITER,
    shared=REPORT_OPTIONS,
)  # fmt: skip
def solve_command(source, wrt, tol, max_iter, **options):
    """A zero of SOURCE from the bound start: a scalar equation (write
    x**3 = 2*x + 5 as "x**3 - 2*x - 5") or a square system ("[x**2 + y**2 - 4,
    x - y]"), by Newton's method with the exact Jacobian; when Newton stalls,
    scipy.optimize.root (hybr, then lm) takes over, and a note says so. Exit
    status 1 when it does not converge (the last iterate is shown), 2 for a
    singular Jacobian at the start or a system that is not square.

    \b
    Example:
      $ gradcli solve "x**3 - 2*x - 5" --x 2 --format plain --precision 10
      point.x 2.094551482
      residual -8.881784197e-16
      residual_norm 8.881784197e-16
      determinant 11.16143773
      method newton
      iterations 4
      evaluations 7
      converged true
      message the residual is below the tolerance
    """
    from ..analysis.optimize import solve

    report = run_report(
        solve, source, options, wrt=_bindings.names_of(wrt), tol=tol, max_iter=max_iter
    )
    return _converged(report, options, "solve")


@analysis_command(
    cli,
    "critical",
    _option(
        "over",
        multiple=True,
        required=True,
        metavar="X=A:B[:N]",
        help="An input varied and its range (repeat for each): the box, and N starts "
        "along it [default N: 21 for one input, 9 for two, 5 for three, 3 beyond]. "
        + OVER_HELP.format(default="as above"),
    ),
    shared=REPORT_OPTIONS,
)
def critical_command(source, over, **options):
    """Where the gradient of a scalar SOURCE is zero in a box: the critical points, by Newton's
    method on the exact gradient and Hessian from a grid of starts, the points
    reached merged, each classified by the Hessian's eigenvalues (minimum,
    maximum, saddle point, degenerate).

    \b
    Example:
      $ gradcli critical "x**3 - 3*x + y**2" --over x=-2:2 --over y=-2:2 \
          --format plain --precision 10
      points.0.x -1
      points.0.y 0
      points.0.value 2
      points.0.classification saddle point
      points.0.eigenvalues -6 2
      points.1.x 1
      points.1.y 0
      points.1.value -2
      points.1.classification minimum
      points.1.eigenvalues 2 6
      count 2
      starts 81
    """
    from ..analysis.critical_points import critical

    report = run_report(critical, source, options, over=[_bindings.parse_over(o) for o in over])
    return strict_status(report, options)


# A parameter starts a new NAME=VALUE after a comma: b1=500,b2=1e-4 (a value keeps its commas).
_NEXT_PARAMETER = re.compile(r",\s*(?=[A-Za-z_]\w*\s*=)")


def _parameters(texts) -> dict[str, str]:
    parts = [part for text in texts for part in _NEXT_PARAMETER.split(text)]
    return _bindings.named_texts(parts, "--params", "a starting value")


@analysis_command(
    cli,
    "fit",
    _option("points", required=True, metavar="FILE",
            help="The data: .csv with a header, .jsonl, .npz, .parquet (as --points reads)."),
    _option("params", multiple=True, required=True, metavar="B1=V,B2=V",
            help="The parameters fitted and their starting values."),
    _option("response", default="y", show_default=True, metavar="COLUMN",
            help="The column of observed values (--y would bind an input named y)."),
    _option("weights", metavar="COLUMN", help="A column of weights w: minimise sum w r^2."),
    _option("sigma", metavar="COLUMN",
            help="A column of standard deviations s: minimise sum (r/s)^2."),
    _BOUNDS,
    _option("output", "-o", metavar="FILE.png",
            help="Also draw the data, the model and the residuals into FILE (.png, .svg)."),
    shared=REPORT_OPTIONS,
)  # fmt: skip
def fit_command(source, points, params, response, weights, sigma, bounds, output, **options):
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
    """
    from ..analysis.fitting import fit
    from ..analysis.flat import parse_bounds

    if output is not None:
        from ..render.fit_image import check_output

        output = check_output(output)  # before the fit: a picture it cannot draw fails first
    report = run_report(
        fit,
        source,
        options,
        data=points,
        params=_parameters(params),
        response=response,
        weights=weights,
        sigma=sigma,
        bounds=parse_bounds(bounds),
    )
    if output is not None:
        from ..render.fit_image import write_fit_image

        write_fit_image(report, output)
    return _converged(report, options, "fit")


_COORDINATES = _option(
    "wrt", multiple=True, metavar="X,Y,Z",
    help="The coordinates, in order [default: every input, alphabetically].",
)  # fmt: skip


def _vector(name: str, source, wrt, options) -> int:
    from ..analysis import vector_calculus

    compute = getattr(vector_calculus, name)
    report = run_report(compute, source, options, wrt=_bindings.names_of(wrt))
    return strict_status(report, options)


@analysis_command(cli, "div", _COORDINATES, shared=REPORT_OPTIONS)
def div_command(source, wrt, **options):
    """The divergence of the field SOURCE (one entry per coordinate) at the
    bound point: the trace of its exact Jacobian.

    \b
    Example:
      $ gradcli div "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
      div 6
      coordinates x y z
    """
    return _vector("div", source, wrt, options)


@analysis_command(cli, "curl", _COORDINATES, shared=REPORT_OPTIONS)
def curl_command(source, wrt, **options):
    """The rotation of the field SOURCE (three entries, three coordinates) at
    the bound point: its curl, from the exact Jacobian.

    \b
    Example:
      $ gradcli curl "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
      curl -2 -3 -1
      coordinates x y z
    """
    return _vector("curl", source, wrt, options)


@analysis_command(cli, "laplacian", _COORDINATES, shared=REPORT_OPTIONS)
def laplacian_command(source, wrt, **options):
    """The Laplacian of a scalar SOURCE at the bound point: the trace of its
    exact Hessian.

    \b
    Example:
      $ gradcli laplacian "x**2*y + z**3" --x 1 --y 2 --z 3 --format plain
      laplacian 22
      coordinates x y z
    """
    return _vector("laplacian", source, wrt, options)
