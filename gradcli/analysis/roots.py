"""``gradcli solve``: a zero of a scalar equation or a square system, by Newton's method
with the engine's exact Jacobian; when Newton stalls, ``scipy.optimize.root`` (Powell's
hybrid method, then Levenberg-Marquardt, with a note saying so).

It has converged when the residual is within its tolerance; a run that has not returns
its report with ``converged`` false (the command exits 1, showing the last iterate).
SciPy is imported by ``solve`` alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import computing
from ..core.result import source_title
from ..engine import threads
from ..errors import GradcliError
from . import precise
from .commands import Calculator, Command, Option
from .flat import MAX_ITER, WRT, Diverged, Flat, singular
from .optimize import DIVERGED, diverged, words
from .report import Report, convergence, flat, frozen, tree_with_sensitivity, unconverged
from .sensitivity import SENSITIVITY
from .varied import default_inputs

NOT_AT_DPS = "not implemented at a working precision"


@dataclass(frozen=True, eq=False)
class SolveReport(Report):
    command = "solve"
    layout = "root"
    #: Its point is a zero of the program (``sensitivity``: by the Jacobian there).
    zero = True
    source: str
    title: str
    #: The root, input by input.
    point: Mapping[str, np.ndarray]
    #: The program's value there (all zeros at an exact root) and its largest entry.
    residual: np.ndarray
    residual_norm: float
    method: str
    iterations: int
    evaluations: int
    converged: bool
    message: str
    #: The Jacobian's determinant at the root.
    determinant: float
    warnings: tuple[str, ...] = ()
    #: d(point)/d(each other input) with ``--sensitivity`` (``analysis.sensitivity``).
    sensitivity: Mapping | None = None

    def as_tree(self) -> dict:
        tree = {
            "point": dict(self.point),
            "residual": self.residual,
            "residual_norm": self.residual_norm,
            "determinant": self.determinant,
            "method": self.method,
            "iterations": self.iterations,
            "evaluations": self.evaluations,
            "converged": self.converged,
            "message": self.message,
        }
        return tree_with_sensitivity(tree, self.sensitivity)

    def row(self) -> dict:
        # Newton's or SciPy's: the method is a word, and the message one too.
        found = flat(self.as_tree())
        return {n: v for n, v in found.items() if n not in ("method", "message")}


@threads.run(scipy=True)
def solve(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    tol: float = 1e-12,
    max_iter: int = 200,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> SolveReport:
    """A zero of the program (a scalar equation, or a system with as many entries as
    the inputs varied), from the bound point, with the exact Jacobian.

    Converged means ``max |F| <= tol * max(1, max |F(start)|)``.
    """
    import scipy.optimize

    options = {"dtype": dtype, "seed": seed, "filename": filename}
    first, chosen = default_inputs(computing.jacobian, "solve", source, bindings, wrt, options)
    flat = Flat.of(first)
    options["wrt"] = flat.names
    equations = int(np.asarray(first.value).size)
    if flat.size == 0:
        raise GradcliError("solve needs an unknown: the program has no input")
    if equations != flat.size:
        raise GradcliError(
            f"solve needs as many equations as unknowns: the program has {equations} "
            f"equation{'s' * (equations != 1)} (entries of its value) in {flat.size} "
            f"unknown{'s' * (flat.size != 1)} ({', '.join(flat.labels)})"
            + (": choose the unknowns with --wrt NAME,NAME" if wrt is None else "")
        )
    calls = [0]

    def system(x):
        result = computing.jacobian(source, flat.bindings(x), **options)
        calls[0] += 1
        value = np.asarray(result.value, dtype=np.float64).reshape(-1)
        matrix = flat.matrix(result.jacobian).reshape(equations, flat.size)
        if not np.all(np.isfinite(value)) or np.max(np.abs(x), initial=0.0) > DIVERGED:
            raise Diverged(np.array(x), float(np.max(np.abs(value))))
        return value, matrix

    start_value, start_jacobian = system(flat.start)
    if singular(start_jacobian):
        where = ", ".join(f"{label} = {v:.6g}" for label, v in zip(flat.labels, flat.start))
        raise GradcliError(
            f"solve: the Jacobian is singular at the start ({where}): Newton's step is "
            f"undefined there; start elsewhere"
        )
    goal = tol * max(1.0, float(np.max(np.abs(start_value), initial=0.0)))
    notes: list[str] = []
    x, iterations, message = newton(system, flat.start, goal, max_iter)
    if message is not None:
        # Newton stalled or met a singular Jacobian: SciPy's hybrid method, then
        # Levenberg-Marquardt, from the same start, with the same exact Jacobian.
        method = "newton"
        for method in ("hybr", "lm"):
            try:
                found = scipy.optimize.root(
                    system, flat.start, jac=True, method=method,
                    options=_root_options(method, max_iter),
                )  # fmt: skip
            except Diverged as gone:
                if method == "lm":
                    raise diverged("solve", flat, gone) from None
                continue
            iterations = int(found.get("nit", found.get("nfev", 0)))
            if np.max(np.abs(found.fun), initial=0.0) <= goal:
                break
        notes.append(f"Newton's method {message}; scipy.optimize.root ({method}) was used instead")
        x, message = np.asarray(found.x, dtype=np.float64), words(found.message)
    else:
        method, message = "newton", "the residual is below the tolerance"
    value, matrix = system(x)
    residual_norm = float(np.max(np.abs(value), initial=0.0))
    converged = residual_norm <= goal
    determinant = float(np.linalg.det(matrix))
    if converged and singular(matrix):
        notes.append("the Jacobian is singular at the root: a multiple root, found slowly")
    return SolveReport(
        source,
        source_title(source, filename),
        flat.frozen_arrays(x),
        frozen(np.asarray(value).reshape(np.shape(first.value))),
        residual_norm,
        method,
        iterations,
        calls[0],
        converged,
        message,
        determinant,
        (*chosen, *notes, *first.notes),
    )


def newton(system, x, goal: float, max_iter: int):
    """Newton's method with the exact Jacobian, its step halved until |F| decreases.
    Returns the last iterate, the iterations, and None or why it stopped short."""
    value, matrix = system(x)
    for iteration in range(max_iter):
        norm = float(np.linalg.norm(value))
        if np.max(np.abs(value), initial=0.0) <= goal:
            return x, iteration, None
        if singular(matrix):
            return x, iteration, "met a singular Jacobian"
        step = np.linalg.solve(matrix, -value)
        t = 1.0
        while True:
            trial = x + t * step
            trial_value, trial_matrix = system(trial)
            if np.linalg.norm(trial_value) <= (1 - 1e-4 * t) * norm or t < 1e-10:
                break
            t /= 2
        if t < 1e-10:
            return x, iteration, "made no progress"
        x, value, matrix = trial, trial_value, trial_matrix
    if np.max(np.abs(value), initial=0.0) <= goal:
        return x, max_iter, None
    return x, max_iter, f"did not converge in {max_iter} iterations"


def _root_options(method: str, max_iter: int) -> dict:
    if method == "hybr":
        return {"maxfev": max_iter, "xtol": 1e-14}
    return {"maxiter": max_iter, "xtol": 1e-14, "ftol": 1e-14}


COMMANDS = (
    Command(
        "solve",
        solve,
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

        --dps N: the root to N certified digits, by Newton's method in mpmath from
        float64's root (docs/precision.md):

        \b
          $ gradcli solve "x**2 - 2" --x 1 --dps 30 --get point.x
          1.41421356237309504880168872421
        """,
        (
            WRT,
            Option(
                "tol",
                "Converged when max |F| <= TOL * max(1, max |F(start)|).",
                kind="float",
                default=1e-12,
            ),
            MAX_ITER,
            SENSITIVITY,
            precise.DPS,
        ),
        variants=(precise.variant(precise.solving(solve), {"sensitivity": NOT_AT_DPS}),),
        exit_status=convergence("solve"),
        points=True,
        flagged=unconverged("solve"),
        solves=True,
        calculator=Calculator(help="a zero, from the inputs' values"),
    ),
)
