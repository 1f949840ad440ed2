"""The commands that put the derivative to work (minimize, solve, critical, implicit;
fit in ``cli.fit``; div, curl and laplacian are the registry's, ``cli.declared``): thin Click
commands over ``gradcli.analysis``, loaded with the analyses (``cli.analysis``), so
that ``gradcli grad`` does not pay for them."""

from __future__ import annotations

import sys
import time

import click

from ..core import bindings as _bindings
from ..errors import GradcliError
from .analysis import (
    POINTS_REPORT_OPTIONS,
    analysis_command,
    run_report,
    run_report_or_rows,
    strict_status,
)
from .common import cli, say_error
from .options import OVER_HELP
from .options import POINTS as _POINTS
from .options import option as _option

_POINTS_OVER = _POINTS[1]  # --over of many points, which critical spells its box with
#: The exit status of a solver that stopped short of its tolerance (its last iterate shown).
EXIT_NOT_CONVERGED = 1

_WRT = _option("wrt", multiple=True, metavar="X,Y", help="The inputs varied [default: all].")
BOUNDS = _option(
    "bounds",
    multiple=True,
    metavar="X=LOW:HIGH",
    help="Keep every entry of X within [LOW, HIGH] (repeatable; x=0: has no upper bound).",
)
_SENSITIVITY = _option(
    "sensitivity",
    is_flag=True,
    help="Also the derivative of the solution with respect to every other input and "
    "every const (bound or not), by the implicit function theorem (of the KKT system, "
    "the active constraints held, with --subject-to).",
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


def _with_sensitivity(compute):
    from ..analysis.sensitivity import with_sensitivity

    return with_sensitivity(compute)


def converged(report, options, command: str) -> int:
    if not report.converged:
        # minimize: its own test decides, SciPy's message says how the method stopped.
        why = getattr(report, "first_order", None)
        said = report.message if why is None else f"{why}; SciPy: {report.message}"
        message = f"{command} did not converge ({said}); the last iterate is shown"
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
        "slsqp [default: trust-exact; newton-cg over 200 entries; l-bfgs-b with --bounds]; "
        "with --subject-to, trust-constr or slsqp [default: slsqp with an inequality].",
    ),
    BOUNDS,
    _option("maximize", is_flag=True, help="Find a local maximum instead."),
    _option("tol", type=float, default=1e-10, show_default=True, help="SciPy's tolerance."),
    _option(
        "gtol",
        type=click.FloatRange(min=0, min_open=True),
        metavar="G",
        help="Converged when the first-order conditions hold: max |grad f| <= G * "
        "max(1, |f|), the gradient projected onto --bounds [default: sqrt(eps) of the "
        "dtype, 1.5e-8 in float64, the gradient test of the Hessian's verdict].",
    ),  # fmt: skip
    _MAX_ITER,
    _option(
        "covariance",
        is_flag=True,
        help="Also the inverse Hessian at the minimum (for a negative log-likelihood, the "
        "observed-information covariance), the standard errors (the square roots of its "
        "diagonal) and the correlations; with --maximize, of -f. An error when the end "
        "point is no strict minimum (maximum) or is held at a bound.",
    ),
    _option(
        "trace",
        is_flag=True,
        help="Also show every iteration's point, f and |grad f|: a table on a terminal, "
        "CSV with --format plain (or piped), one JSON object a line with --format json.",
    ),
    _SENSITIVITY,
    _option(
        "subject-to",
        "subject_to",
        multiple=True,
        metavar='"LHS == RHS"',
        help="A constraint (repeatable): LHS == RHS, LHS <= RHS or LHS >= RHS, each side "
        "an expression of the inputs and consts; trust-constr (exact Hessian of the "
        "Lagrangian) or slsqp; prints the multipliers and checks the KKT conditions.",
    ),
    shared=POINTS_REPORT_OPTIONS,
)
def minimize_command(
    source, wrt, method, bounds, maximize, tol, gtol, max_iter, covariance, trace, sensitivity,
    subject_to, **options,
):  # fmt: skip
    """A local minimum of a scalar SOURCE from the bound start, by
    scipy.optimize.minimize with the engine's exact gradient and Hessian; the
    end point is classified by its Hessian, as 'gradcli hessian' does.
    Converged means the first-order conditions hold there (see --gtol; a few
    Newton steps polish the end point first), whatever SciPy's message, which
    is shown too. Exit status 1 when they do not (the last iterate is shown),
    2 when the iterates diverge.

    \b
    Example:
      $ gradcli minimize "(1-x)**2 + 100*(y-x**2)**2" --x -1.2 --y 1 --format plain \
          --precision 10
      point.x 1
      point.y 1
      value 0
      gradient_norm 0
      scaled_gradient 0
      gradient_tolerance 1.490116119e-08
      classification local minimum
      eigenvalues 0.3993607675 1001.600639
      method trust-exact
      maximize false
      iterations 26
      evaluations 27
      polish_steps 0
      converged true
      message Optimization terminated successfully.

    \b
    --covariance: the standard errors of the maximum-likelihood estimates of
    a normal sample's mean and standard deviation, from the inverse Hessian
    of its negative log-likelihood (by hand: sigma/sqrt(n), sigma/sqrt(2n)):
      $ gradcli minimize "const y = [2, 4, 3, 5, 6]; mu = 1; sigma = 2; \
          numel(y)*log(sigma) + sum((y - mu)**2)/(2*sigma**2)" --covariance \
          --format plain --precision 6
      point.mu 4
      point.sigma 1.41421
      value 4.23287
      gradient_norm 8.9509e-16
      scaled_gradient 2.09829e-16
      gradient_tolerance 1.49012e-08
      classification local minimum
      eigenvalues 2.5 5
      standard_errors.mu 0.632456
      standard_errors.sigma 0.447214
      covariance.labels mu sigma
      covariance.matrix 0.4 0 0 0.2
      correlation.labels mu sigma
      correlation.matrix 1 0 0 1
      method trust-exact
      maximize false
      iterations 6
      evaluations 10
      polish_steps 1
      converged true
      message Optimization terminated successfully.

    Many points (--over, --points FILE): a row each, from the bound start; the
    columns bind the inputs held fixed (the others are varied), or with --wrt
    a column of an input varied is its start. Exit status 1 when a row does
    not converge, naming it:

    \b
      $ gradcli minimize "(x - a)**2 + x**2" --x 0 --over a=1:2:2 --format csv
      a,point.x,value,gradient_norm,scaled_gradient,classification,eigenvalues[0],iterations,evaluations,polish_steps,converged
      1,0.5,0.5,0,0,local minimum,4,1,2,0,true
      2,1,2,0,0,local minimum,4,1,2,0,true

    With --subject-to, a minimum under constraints (LHS == RHS, LHS <= RHS,
    LHS >= RHS; 0 <= x <= 1 is two), each side a program of the inputs and
    consts. Each constraint gets its multiplier lambda_i, with grad f + sum
    lambda_i grad c_i = 0 where c_i = LHS - RHS (RHS - LHS for >=), and the KKT
    conditions (stationarity, feasibility, lambda_i >= 0 and lambda_i c_i = 0
    for the inequalities) are checked, each scaled, to 1e-7; exit status 1
    when one does not hold. The end point is classified by the Hessian of the
    Lagrangian on the active constraints' tangent space. By trust-constr with
    the exact Hessian of the Lagrangian, or slsqp with an inequality.

    \b
      $ gradcli minimize "x + y" --x 1 --y 0 --subject-to "x**2 + y**2 == 1" \
          --get multipliers --precision 10
      0.7071067812

    --gtol asks more (or less) of the first-order test: x**4's minimum is flat,
    and its gradient after Newton's polish, 7.4e-14 of max(1, |f|), passes even
    1e-12 (exit status 1 where it does not):

    \b
      $ gradcli minimize "x**4" --x 1 --gtol 1e-12 --get scaled_gradient --precision 3
      7.36e-14

    With --sensitivity, how the minimiser moves with the other inputs and the
    consts: dx/dp = -H_xx^-1 H_xp, where the gradient is zero (here
    dx/dc = 1/(1 + 6x^2)):

    \b
      $ gradcli minimize "(x-c)**2 + x**4" --x 1 --c 2 --wrt x --sensitivity \
          --get sensitivity.x.c --precision 10
      0.1928798027
    """
    from ..analysis.flat import parse_bounds
    from ..analysis.optimize import minimize

    if subject_to:
        if options["points"] is not None or options["over"]:
            raise GradcliError(
                "--subject-to runs at one point: leave out --points/--over (a constrained "
                "problem at many points is not implemented)"
            )
        if covariance:
            raise GradcliError(
                "--covariance cannot go with --subject-to: the inverse Hessian is not the "
                "covariance of a constrained estimate (not implemented)"
            )
        if gtol is not None:
            raise GradcliError(
                "--gtol cannot go with --subject-to: the KKT conditions are checked, each "
                "scaled, to 1e-7"
            )
        return _minimize_subject_to(
            source, subject_to, wrt, method, bounds, maximize, tol, max_iter, trace,
            sensitivity, options,
        )  # fmt: skip
    compute = _with_sensitivity(minimize) if sensitivity else minimize
    arguments = {
        "wrt": _bindings.names_of(wrt), "method": method, "bounds": parse_bounds(bounds),
        "maximize": maximize, "tol": tol, "gtol": gtol, "max_iter": max_iter,
        "covariance": covariance,
    }  # fmt: skip
    if options["points"] is not None or options["over"]:
        if trace:
            raise GradcliError("--trace follows one run: leave out --points/--over")
        return run_report_or_rows(
            minimize, "minimize", source, options, **arguments, sensitivity=sensitivity
        )[1]
    progress = _Progress("minimize") if _stderr_is_terminal() else None

    def run(*args, **kwargs):
        try:
            return compute(*args, progress=progress, **kwargs)
        finally:  # the line wiped before the report is written
            if progress is not None:
                progress.close()

    report = run_report_or_rows(run, "minimize", source, options, **arguments, trace=trace)[0]
    return converged(report, options, "minimize")


def _minimize_subject_to(
    source, subject_to, wrt, method, bounds, maximize, tol, max_iter, trace, sensitivity, options
) -> int:
    from ..analysis.constrained import minimize_subject_to, parse_constraints

    constraints = parse_constraints(subject_to)
    for given, name, instead in (
        (bounds, "--bounds", 'write them as constraints (--subject-to "x >= 0")'),
        (trace, "--trace", "it is not implemented for a constrained problem"),
    ):
        if given:
            raise GradcliError(f"{name} cannot go with --subject-to: {instead}")
    compute = _with_sensitivity(minimize_subject_to) if sensitivity else minimize_subject_to
    report = run_report(
        compute,
        source,
        options,
        constraints=constraints,
        wrt=_bindings.names_of(wrt),
        method=method,
        maximize=maximize,
        tol=tol,
        max_iter=max_iter,
    )
    return converged(report, options, "minimize")


@analysis_command(
    cli,
    "solve",
    _WRT,
    _option("tol", type=float, default=1e-12, show_default=True,
            help="Converged when max |F| <= TOL * max(1, max |F(start)|)."),
    _MAX_ITER,
    _SENSITIVITY,
    shared=POINTS_REPORT_OPTIONS,
)  # fmt: skip
def solve_command(source, wrt, tol, max_iter, sensitivity, **options):
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

    Many points (--over, --points FILE): a row each, as minimize's (a root of
    x**2 = a for each a; exit status 1 when a row does not converge):

    \b
      $ gradcli solve "x**2 - a" --x 1 --over a=1:4:4 --format csv
      a,point.x,residual,residual_norm,determinant,iterations,evaluations,converged
      1,1,0,0,2,0,3,true
      2,1.4142135623730951,4.440892098500626e-16,4.440892098500626e-16,2.8284271247461903,5,8,true
      3,1.7320508075688772,-4.440892098500626e-16,4.440892098500626e-16,3.464101615137755,5,8,true
      4,2.000000000000002,8.881784197001252e-15,8.881784197001252e-15,4.000000000000004,5,8,true

    With --sensitivity, how the root moves with the other inputs and the consts:
    dx/dp = -F_x^-1 F_p (here dx/da = x/(3x^2 - a)):

    \b
      $ gradcli solve "x**3 - a*x - 5" --x 2 --a 2 --wrt x --sensitivity \
          --get sensitivity.x.a --precision 10
      0.1876596486
    """
    from ..analysis.optimize import solve

    arguments = {"wrt": _bindings.names_of(wrt), "tol": tol, "max_iter": max_iter}
    if options["points"] is not None or options["over"]:
        return run_report_or_rows(
            solve, "solve", source, options, **arguments, sensitivity=sensitivity
        )[1]
    compute = _with_sensitivity(solve) if sensitivity else solve
    report, _ = run_report_or_rows(compute, "solve", source, options, **arguments)
    return converged(report, options, "solve")


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
    # --over is the box: many points come from --points FILE alone.
    shared=[o for o in POINTS_REPORT_OPTIONS if o is not _POINTS_OVER],
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

    Many points: --points FILE binds the other inputs (--over is the box), a row
    each: how many critical points of each kind, and the lowest (nan when the
    box holds none):

    \b
      $ gradcli critical "x**4/4 - a*x**2/2 + x/10" --over x=-2:2 \
          --points samples/critical_a.csv --format csv
      a,count,minima,maxima,saddle_points,lowest.x,lowest.value
      0.1,1,1,0,0,-0.5354866968099511,-0.047330152322257145
      1,3,2,1,0,-1.0466805318046024,-0.3523860738000364
    """
    from ..analysis.critical_points import critical

    box = [_bindings.parse_over(o) for o in over]
    report, status = run_report_or_rows(
        critical, "critical", source, {**options, "over": ()}, over=box
    )
    return status if report is None else strict_status(report, options)


@analysis_command(
    cli,
    "implicit",
    _option("solve-for", "solve_for", multiple=True, required=True, metavar="Y,Z",
            help="The inputs the equations determine (as many entries as equations)."),
    _option("wrt", multiple=True, metavar="X,Y",
            help="The inputs they are functions of [default: every other]."),
    _option("tol", type=float, default=1e-8, show_default=True,
            help="On the curve when |F| <= TOL * max(1, the size of F's terms)."),
    shared=POINTS_REPORT_OPTIONS,
)  # fmt: skip
def implicit_command(source, solve_for, wrt, tol, **options):
    """The derivatives of the inputs --solve-for Y that the equations SOURCE
    determine, with respect to the others, at the bound point: by the implicit
    function theorem, dy/dx = -F_y^-1 F_x, and the second derivatives by
    differentiating F(x, y(x)) = 0 twice, from the exact Jacobian and Hessians.
    Write an equation "A = B" (one '='), several as "[A = B, C = D]"; an
    expression F alone means F = 0. A point off the curve gets a warning with
    the residual (the derivatives are then those of the level set through it);
    where F_y is singular (a vertical tangent) Y is not determined: exit 2.

    \b
    Example:
      $ gradcli implicit "x**2 + x*y + y**2 = 7" --x 1 --y 2 --solve-for y --format plain
      derivative.y.x -0.8
      second_derivative.y.x.x -0.336
      residual 0
      residual_norm 0
      tolerance 1e-08
      on_curve true
      determinant 5
      solve_for y
      wrt x

    Many points (--over, --points FILE): a row each, on points of the curve:

    \b
      $ gradcli implicit "x**2 + y**2 = 25" --points samples/circle.csv --solve-for y \
          --format csv
      x,y,derivative.y.x,second_derivative.y.x.x,residual,residual_norm,on_curve,determinant
      3,4,-0.75,-0.390625,0,0,true,8
      0,5,0,-0.2,0,0,true,10
      -4,-3,-1.3333333333333333,0.9259259259259259,0,0,true,-6
    """
    from ..analysis.implicit_functions import implicit

    report, status = run_report_or_rows(
        implicit,
        "implicit",
        source,
        options,
        solve_for=_solved_for(solve_for),
        wrt=_bindings.names_of(wrt),
        tol=tol,
    )
    return status if report is None else strict_status(report, options)


def _solved_for(texts) -> tuple[str, ...]:
    names = tuple(n.strip() for text in texts for n in text.split(",") if n.strip())
    if not names:
        raise GradcliError("--solve-for needs the names of inputs: --solve-for y or y,z")
    return names


# A parameter starts a new NAME=VALUE after a comma: b1=500,b2=1e-4 (a value keeps its commas).
