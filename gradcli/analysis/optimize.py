"""``gradcli minimize``: ``scipy.optimize.minimize`` driven by the engine's exact
derivatives (``gradcli solve`` is ``roots``'; ``--subject-to``, ``constrained``').

``minimize`` hands ``scipy.optimize.minimize`` the value and gradient of one
reverse pass and, for the methods that take it, the exact Hessian; its end
point is classified by the Hessian as ``gradcli hessian`` does.

An objective that leaves the finite numbers (``x**3`` from any start) is an
error naming where it went. ``minimize`` has converged when the first-order
conditions hold at its end point, whatever SciPy's message (``optimum``: the
test, and the Newton steps that polish the end point first). A run that has not
returns its report with ``converged`` false (the command exits 1, showing the last
iterate). SciPy is imported by these functions alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import computing
from ..core.assembled import (
    EIGENVALUE_LIMIT,
    TOO_LARGE,
    Assembled,
    assemble_hessian,
    steady_verdict,
)
from ..core.result import source_title
from ..engine import threads
from ..errors import GradcliError
from . import optimum, precise
from .commands import Calculator, Command, Option, Variant
from .compiled import CompiledFunction
from .constrained import minimize_subject_to, parse_constraints
from .flat import BOUNDS, MAX_ITER, WRT, Diverged, Flat
from .report import Report, convergence, flat, frozen, tree_with_sensitivity, unconverged
from .sensitivity import SENSITIVITY
from .varied import default_inputs

#: The methods of ``scipy.optimize.minimize`` that use a gradient; those that also
#: take the Hessian get the exact one.
GRADIENT_METHODS = ("bfgs", "l-bfgs-b", "cg", "tnc", "slsqp")
HESSIAN_METHODS = ("trust-exact", "newton-cg", "trust-ncg", "trust-krylov", "dogleg")
METHODS = (*HESSIAN_METHODS, *GRADIENT_METHODS)
#: Above this many entries the Hessian is not formed: Newton-CG (by default) and the
#: other methods that take it get Hessian-vector products instead, each one
#: forward-over-reverse pass (``functional.hvp``) rather than one per entry.
HESSIAN_LIMIT = 200
#: The methods that accept Hessian-vector products (``hessp``).
HESSP_METHODS = ("newton-cg", "trust-ncg", "trust-krylov")
#: An iterate larger than this has left for infinity.
DIVERGED = 1e100
#: An unconverged run that ended this many times farther out than it started diverged.
ESCAPED = 1e5


def default_method(size: int, bounded: bool) -> str:
    """trust-exact (exact Hessian, trust region) for a few inputs without bounds;
    Newton-CG with Hessian-vector products for many; L-BFGS-B with bounds."""
    if bounded:
        return "l-bfgs-b"
    return "newton-cg" if size > HESSIAN_LIMIT else "trust-exact"


@dataclass(frozen=True, eq=False)
class MinimizeReport(Report):
    command = "minimize"
    layout = "minimum"
    source: str
    title: str
    method: str
    maximize: bool
    #: The minimiser (maximiser with ``maximize``), input by input.
    point: Mapping[str, np.ndarray]
    value: float
    gradient_norm: float
    iterations: int
    evaluations: int
    converged: bool
    message: str
    #: The Hessian's verdict at the end point (``assembled.classify``) and its eigenvalues.
    classification: str | None
    eigenvalues: np.ndarray | None
    #: Every iteration's f and gradient norm (with ``trace``), else None.
    trace: Mapping | None = None
    labels: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: The first-order test (``optimum``): max |projected gradient| / max(1, |f|), the
    #: tolerance it is held to (converged when within it), and the Newton steps that
    #: polished SciPy's end point first.
    scaled_gradient: float = float("nan")
    gradient_tolerance: float = float("nan")
    polish_steps: int = 0
    #: With ``covariance``: the inverse Hessian of the function minimised (entries in
    #: ``labels`` order), its diagonal's square roots input by input, its correlations.
    covariance: np.ndarray | None = None
    standard_errors: Mapping[str, np.ndarray] | None = None
    correlation: np.ndarray | None = None
    #: d(point)/d(each other input) with ``--sensitivity`` (``analysis.sensitivity``).
    sensitivity: Mapping | None = None

    def as_tree(self) -> dict:
        tree = {
            "point": dict(self.point),
            "value": self.value,
            "gradient_norm": self.gradient_norm,
            "scaled_gradient": self.scaled_gradient,
            "gradient_tolerance": self.gradient_tolerance,
            "classification": self.classification,
            "eigenvalues": self.eigenvalues,
            **self.covariance_tree(),
            "method": self.method,
            "maximize": self.maximize,
            "iterations": self.iterations,
            "evaluations": self.evaluations,
            "polish_steps": self.polish_steps,
            "converged": self.converged,
            "message": self.message,
        }
        return tree_with_sensitivity(tree, self.sensitivity)

    def covariance_tree(self) -> dict:
        """With ``covariance``, the standard errors, the covariance and the correlation
        (named as fit names its own); else nothing."""
        if self.covariance is None:
            return {}
        return {
            "standard_errors": dict(self.standard_errors or {}),
            "covariance": {"labels": self.labels, "matrix": self.covariance},
            "correlation": {"labels": self.labels, "matrix": self.correlation},
        }

    @property
    def first_order(self) -> str:
        """The first-order test in words: what ``converged`` says, and why."""
        holds = "hold" if self.converged else "do not hold"
        compared = "<=" if self.converged else ">"
        return (
            f"the first-order conditions {holds}: max |grad f| / max(1, |f|) = "
            f"{self.scaled_gradient:.3g} {compared} {self.gradient_tolerance:.3g}"
        )

    def row(self) -> dict:
        # The method and the tolerance are the same at every point; the words of its
        # message vary.
        same = ("method", "maximize", "message", "gradient_tolerance")
        found = flat(self.as_tree())
        return {n: v for n, v in found.items() if n not in same and not n.endswith(".labels")}

    def trace_rows(self) -> tuple[tuple[str, ...], list[tuple[float, ...]]]:
        """The trace as a header (iteration, each entry's label, f, gradient_norm) and
        one row of numbers per iteration, for ``--trace``'s CSV and JSON lines."""
        header = ("iteration", *self.labels, "f", "gradient_norm")
        trace = self.trace or {}
        rows = [
            (int(i), *map(float, x), float(f), float(g))
            for i, x, f, g in zip(
                trace.get("iteration", ()), trace.get("x", ()), trace.get("f", ()),
                trace.get("gradient_norm", ()),
            )
        ]  # fmt: skip
        return header, rows


class _Objective:
    """f and its derivatives at a flat vector, counted and checked for divergence; the
    program is compiled and bound once for the whole run (``compiled``)."""

    def __init__(self, source, flat: Flat, sign: float, options: Mapping):
        self.source, self.flat, self.sign, self.options = source, flat, sign, options
        self.function = CompiledFunction(source, flat, options, "minimize")
        #: Whether SciPy asks for the whole Hessian at its iterates (``_second_order_options``).
        self.keep = False
        self.evaluations = 0
        self.seen: dict[bytes, tuple[float, float]] = {}

    def value_and_gradient(self, x):
        value, gradient = self.function.value_and_gradient(x, keep=self.keep)
        self.evaluations += 1
        if not np.isfinite(value) or not np.all(np.isfinite(gradient)):
            raise Diverged(np.array(x), value)
        if np.max(np.abs(x), initial=0.0) > DIVERGED:
            raise Diverged(np.array(x), value)
        self.seen[np.asarray(x, dtype=np.float64).tobytes()] = (value, np.linalg.norm(gradient))
        return self.sign * value, self.sign * gradient

    def hessian(self, x):
        return self.sign * self.whole_hessian(x)

    def hessp(self, x, p):
        """H p, without forming H: one forward-over-reverse pass."""
        return self.sign * self.function.hessian_product(x, p)

    def second_order(self, x):
        """The value, gradient and Hessian of the signed objective at x (for ``polish``)."""
        value, gradient = self.function.value_and_gradient(x)
        matrix = self.function.hessian(x)
        self.evaluations += 1
        return self.sign * value, self.sign * gradient, self.sign * matrix

    def whole_hessian(self, x):
        """The Hessian of f itself (not of the signed objective) as one matrix."""
        return self.function.hessian(x)


@threads.run(scipy=True)
def minimize(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    method: str | None = None,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    maximize: bool = False,
    tol: float = 1e-10,
    max_iter: int = 1000,
    trace: bool = False,
    gtol: float | None = None,
    covariance: bool = False,
    progress=None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> MinimizeReport:
    """A local minimum (maximum with ``maximize``) of a scalar program, from the bound
    point, by ``scipy.optimize.minimize`` with the engine's gradient and Hessian.

    ``wrt``: the inputs varied (by default all); ``bounds``: input -> (low, high)
    for every entry; ``tol``: SciPy's ``tol`` (the gradient norm for the trust and
    quasi-Newton methods); ``gtol``: the first-order test's tolerance (``optimum``:
    converged when max |projected gradient| <= gtol * max(1, |f|); by default the
    dtype's sqrt(eps)); ``covariance``: also the inverse Hessian of the function
    minimised (of -f with ``maximize``) at the end point, with the standard errors and
    correlations it gives (``optimum.covariance``); ``progress(iteration, f,
    gradient_norm)`` is called after every iteration. Above ``HESSIAN_LIMIT``
    entries the Hessian methods get Hessian-vector products (those that take them)
    and the end point is classified only up to ``EIGENVALUE_LIMIT`` entries.
    """
    import scipy.optimize

    options = {"dtype": dtype, "seed": seed, "filename": filename}
    first, chosen = default_inputs(computing.gradient, "minimize", source, bindings, wrt, options)
    flat = Flat.of(first)
    if flat.size == 0:
        raise GradcliError("minimize needs an input to vary: the program has none")
    options["wrt"] = flat.names
    box = flat.bounds(bounds or {})
    method = _checked_method(method, flat.size, box)
    objective = _Objective(source, flat, -1.0 if maximize else 1.0, options)
    iterates = [flat.start]

    def step(xk, *_):
        iterates.append(np.array(xk))
        if progress is not None:
            known = objective.seen.get(np.asarray(xk, dtype=np.float64).tobytes())
            progress(len(iterates) - 1, *(known or (np.nan, np.nan)))

    start = flat.start if box is None else np.clip(flat.start, *box)
    try:
        found = scipy.optimize.minimize(
            objective.value_and_gradient,
            start,
            jac=True,
            method=method,
            bounds=None if box is None else list(zip(*box)),
            tol=tol,
            options={"maxiter": max_iter},
            callback=step,
            **_second_order_options(method, objective),
        )
    except Diverged as gone:
        raise diverged("minimize", flat, gone) from None
    x = np.asarray(found.x, dtype=np.float64)
    if not found.success and np.linalg.norm(x) > ESCAPED * (1 + np.linalg.norm(flat.start)):
        # Stopped far out with f still falling: an unbounded objective, not a slow one.
        raise diverged("minimize", flat, Diverged(x, float(found.fun) * objective.sign))
    gtol = optimum.default_gtol(dtype) if gtol is None else float(gtol)
    x, polished, (end, whole, verdict, doubt, scaled) = _polished_end(
        source, flat, options, objective, x, box, gtol
    )
    gradient_norm = float(np.linalg.norm(flat.vector(end.grad)))
    inverse = errors = correlation = None
    if covariance:
        inverse = optimum.covariance(whole, objective.sign, verdict, doubt, x, box, flat.labels)
        errors, correlation = optimum.standard_errors_and_correlation(inverse)
        inverse, errors, correlation = (
            frozen(inverse),
            flat.frozen_arrays(errors),
            frozen(correlation),
        )
    return MinimizeReport(
        source,
        source_title(source, filename),
        method,
        maximize,
        flat.frozen_arrays(x),
        scalar_of(end.value),
        gradient_norm,
        int(getattr(found, "nit", len(iterates) - 1)),
        objective.evaluations,
        scaled <= gtol,
        words(found.message),
        verdict,
        None if whole.eigenvalues is None else frozen(whole.eigenvalues),
        _trace(iterates, objective) if trace else None,
        flat.labels,
        (*chosen, *((doubt,) if doubt else ()), *end.notes, *end.warnings),
        scaled_gradient=scaled,
        gradient_tolerance=gtol,
        polish_steps=polished,
        covariance=inverse,
        standard_errors=errors,
        correlation=correlation,
    )


def _checked_method(method: str | None, size: int, box) -> str:
    method = (method or default_method(size, box is not None)).lower()
    if method not in METHODS:
        raise GradcliError(f"--method {method}: use one of {', '.join(METHODS)}")
    if box is not None and method not in ("l-bfgs-b", "tnc", "slsqp"):
        raise GradcliError(f"--method {method} takes no bounds: use l-bfgs-b, tnc or slsqp")
    return method


def _second_order_options(method: str, objective: _Objective) -> dict:
    """Hessian-vector products above ``HESSIAN_LIMIT`` entries, for the methods that take
    them; else the whole Hessian, for the methods that use one."""
    if method in HESSP_METHODS and objective.flat.size > HESSIAN_LIMIT:
        return {"hessp": objective.hessp}
    objective.keep = method in HESSIAN_METHODS
    return {"hess": objective.hessian} if objective.keep else {}


def _polished_end(source, flat: Flat, options, objective: _Objective, x, box, gtol):
    """The end point after Newton steps that lower the first-order test's scaled gradient
    (``optimum.polish``), how many it took, and ``_end_point`` there."""
    end_point = _end_point(source, flat, options, objective, x, box)
    if flat.size > HESSIAN_LIMIT or not end_point[-1] > 0:  # 0: no step can do better
        return x, 0, end_point
    eps = float(np.finfo(np.dtype(options["dtype"])).eps)
    x, polished = optimum.polish(objective.second_order, x, box, gtol, eps)
    if polished:
        end_point = _end_point(source, flat, options, objective, x, box)
    return x, polished, end_point


def _end_point(source, flat: Flat, options, objective: _Objective, x, box):
    """The engine's result at the end point x, its whole Hessian, the Hessian's verdict
    with its doubt, and the first-order test's scaled gradient (``optimum``)."""
    if flat.size > EIGENVALUE_LIMIT:  # no n² Hessian, no n³ eigenvalues
        end = computing.gradient(source, flat.bindings(x), **options)
        whole = Assembled("hessian", (), (), np.zeros((0, 0)), classification=TOO_LARGE)
        verdict, doubt = TOO_LARGE, None
    else:
        end = computing.hessian(source, flat.bindings(x), **options)
        whole = assemble_hessian(end.value, end.grad, end.hessian, end.shapes)
        verdict, doubt = steady_verdict(whole, flat.vector(end.grad), objective.whole_hessian, x)
    gradient = objective.sign * flat.vector(end.grad)
    scaled = optimum.scaled_gradient(scalar_of(end.value), gradient, x, box)
    return end, whole, verdict, doubt, scaled


def _trace(iterates, objective: _Objective) -> Mapping:
    values, norms = [], []
    for x in iterates:
        known = objective.seen.get(np.asarray(x, dtype=np.float64).tobytes())
        if known is None:  # an iterate SciPy reached without asking for its value
            objective.value_and_gradient(x)
            known = objective.seen[np.asarray(x, dtype=np.float64).tobytes()]
        values.append(known[0])
        norms.append(known[1])
    return {
        "iteration": frozen(np.arange(len(iterates))),
        "f": frozen(values),
        "gradient_norm": frozen(norms),
        "x": frozen(np.array(iterates)),
    }


def diverged(command: str, flat: Flat, gone: Diverged) -> GradcliError:
    where = ", ".join(f"{label} = {v:.6g}" for label, v in zip(flat.labels, gone.x))
    return GradcliError(
        f"{command} diverged from this start: f = {gone.value:.6g} at {where} "
        f"(the function may be unbounded; start elsewhere or give --bounds)"
    )


def words(message) -> str:
    """SciPy's message on one line."""
    return " ".join(str(message).split())


def scalar_of(value) -> float:
    """A one-entry value (of shape () or (1,)) as a number."""
    return float(np.asarray(value).reshape(-1)[0])


COMMANDS = (
    Command(
        "minimize",
        minimize,
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
        """,
        (
            WRT,
            Option(
                "method",
                "scipy.optimize.minimize's method: trust-exact, newton-cg, trust-ncg, "
                "trust-krylov, dogleg (with the exact Hessian; Hessian-vector products for "
                "newton-cg, trust-ncg and trust-krylov over 200 entries), bfgs, l-bfgs-b, cg, "
                "tnc, slsqp [default: trust-exact; newton-cg over 200 entries; l-bfgs-b with "
                "--bounds]; with --subject-to, trust-constr or slsqp [default: slsqp with an "
                "inequality].",
                metavar="NAME",
            ),
            BOUNDS,
            Option("maximize", "Find a local maximum instead.", kind="flag"),
            Option("tol", "SciPy's tolerance.", kind="float", default=1e-10),
            Option(
                "gtol",
                "Converged when the first-order conditions hold: max |grad f| <= G * "
                "max(1, |f|), the gradient projected onto --bounds [default: sqrt(eps) of the "
                "dtype, 1.5e-8 in float64, the gradient test of the Hessian's verdict].",
                kind="float",
                metavar="G",
                minimum=0,
                exclusive=True,
            ),
            MAX_ITER,
            Option(
                "covariance",
                "Also the inverse Hessian at the minimum (for a negative log-likelihood, the "
                "observed-information covariance), the standard errors (the square roots of "
                "its diagonal) and the correlations; with --maximize, of -f. An error when "
                "the end point is no strict minimum (maximum) or is held at a bound.",
                kind="flag",
            ),
            Option(
                "trace",
                "Also show every iteration's point, f and |grad f|: a table on a terminal, "
                "CSV with --format plain (or piped), one JSON object a line with --format "
                "json.",
                kind="flag",
                one_point="--trace follows one run: leave out --points/--over",
            ),
            SENSITIVITY,
            Option(
                "subject-to",
                "A constraint (repeatable): LHS == RHS, LHS <= RHS or LHS >= RHS, each side "
                "an expression of the inputs and consts; trust-constr (exact Hessian of the "
                "Lagrangian) or slsqp; prints the multipliers and checks the KKT conditions.",
                kind="texts",
                metavar='"LHS == RHS"',
                parameter="constraints",
                parse=parse_constraints,
            ),
            precise.DPS,
        ),
        exit_status=convergence("minimize"),
        points=True,
        flagged=unconverged("minimize"),
        variants=(
            precise.variant(precise.minimizing(minimize), precise.MINIMIZE_EXCLUDES),
            Variant(
                "subject-to",
                minimize_subject_to,
                {
                    "covariance": "the inverse Hessian is not the covariance of a constrained "
                    "estimate (not implemented)",
                    "gtol": "the KKT conditions are checked, each scaled, to 1e-7",
                    "bounds": 'write them as constraints (--subject-to "x >= 0")',
                    "trace": "it is not implemented for a constrained problem",
                },
                one_point="a constrained problem at many points is not implemented",
            ),
        ),
        solves=True,
        calculator=Calculator(help="a local minimum, from the inputs' values"),
    ),
)
