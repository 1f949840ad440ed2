"""``gradcli minimize --subject-to``: a local minimum under equality and inequality
constraints, each a program of the same inputs, with its exact gradient and Hessian.

The convention: minimise f subject to c_i(x) = 0 (``LHS == RHS``: c = LHS - RHS) and
c_i(x) <= 0 (``LHS <= RHS``: c = LHS - RHS; ``LHS >= RHS``: c = RHS - LHS), with the
Lagrangian L = f + sum_i lambda_i c_i. A point is a KKT point when

- stationarity: grad f + sum_i lambda_i grad c_i = 0,
- feasibility: every c_i = 0 or c_i <= 0 as declared,
- dual feasibility: lambda_i >= 0 for every inequality,
- complementary slackness: lambda_i c_i = 0 for every inequality,

each to ``KKT_TOLERANCE`` relative to its scale (``_kkt``). The multipliers are the
least-squares solution of stationarity over the constraints active at the end point
(the equalities, and the inequalities with c_i = 0 within the tolerance); an inactive
inequality's is 0. With ``maximize``, f is -f throughout. The unconstrained Hessian
says nothing about a constrained point; its kind comes from the Hessian of the
Lagrangian on the tangent space of the active constraints (the reduced Hessian).
SciPy's ``trust-constr`` gets the exact Hessian of the Lagrangian (the default with
equalities alone); ``slsqp`` (the default with an inequality, where trust-constr's
interior point method stops short of the boundary) the exact gradients. SciPy is
imported by these functions alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import computing
from ..core.result import Diagnostic, source_title
from ..errors import GradcliError
from ..language import compile_source, ir, parse
from ..language.check import check
from ..language.printing import to_source
from .flat import Diverged, Flat
from .report import Report, frozen, tree_with_sensitivity
from .sensitivity import every_input, parameter_program
from .varied import default_inputs

METHODS = ("trust-constr", "slsqp")
#: Each KKT condition holds when its scaled measure (``_kkt``) is at most this.
KKT_TOLERANCE = 1e-7
_SYMBOLS = {"eq": "==", "le": "<=", "ge": ">="}


@dataclass(frozen=True)
class Constraint:
    """One constraint as written (``text``), and its function c, as source: ``c == 0``
    (``kind`` "eq") or ``c <= 0`` ("ineq"); ``sides`` the sources of its two sides."""

    text: str
    kind: str
    function: str
    sides: tuple[str, str]
    #: The text given (``0 <= x <= 1`` for both of its constraints) and where each name
    #: it reads stands in it, for the caret of an error.
    given: str = ""
    names: tuple = ()


def parse_constraints(texts: Sequence[str]) -> tuple[Constraint, ...]:
    """``--subject-to`` texts as constraints; ``0 <= x <= 1`` gives two."""
    return tuple(c for text in texts for c in _parse_constraint(text))


def _parse_constraint(text: str) -> list[Constraint]:
    try:
        tree = parse(text)
        statements = tree.statements
        if len(statements) != 1:
            where = statements[1].span if len(statements) > 1 else None
            raise GradcliError("write one equation or inequality", where)
        compare = statements[0]
        if isinstance(compare, ir.Assign):
            raise GradcliError("an equation is written LHS == RHS: = assigns", compare.span)
        if not isinstance(compare, ir.Compare):
            raise GradcliError(
                "needs an equation or inequality: LHS == RHS, LHS <= RHS or LHS >= RHS",
                getattr(compare, "span", None),
            )
        for op, span in zip(compare.ops, compare.op_spans):
            if op not in _SYMBOLS:
                raise GradcliError(
                    "a constraint is LHS == RHS, LHS <= RHS or LHS >= RHS"
                    + (": a strict inequality bounds no closed set" if op in ("lt", "gt") else ""),
                    span,
                )
        # Unknown functions, arities: with the caret under the text as given.
        names = tuple(check(tree).free_spans.items())
    except GradcliError as err:
        raise GradcliError(f"--subject-to: {err.message}", err.span, text) from None
    sides = (compare.first, *compare.rest)
    found = []
    for op, left, right in zip(compare.ops, sides[:-1], sides[1:]):
        if op == "ge":
            left, right = right, left
        function = ir.Chain(left, ("sub",), (right,))
        kind = "eq" if op == "eq" else "ineq"
        shown = text.strip() if len(compare.ops) == 1 else _pair(left, right, op, to_source)
        found.append(
            Constraint(
                shown, kind, to_source(function), (to_source(left), to_source(right)), text, names
            )
        )
    return found


def _pair(left, right, op, to_source) -> str:
    symbol = "==" if op == "eq" else "<="
    return f"{to_source(left)} {symbol} {to_source(right)}"


@dataclass(frozen=True, eq=False)
class ConstrainedReport(Report):
    command = "constrained"
    source: str
    title: str
    method: str
    maximize: bool
    point: Mapping[str, np.ndarray]
    value: float
    #: Each constraint's text, kind, c(x), multiplier and whether it is active.
    constraints: tuple[Mapping, ...]
    multipliers: np.ndarray
    #: The scaled measures of the four KKT conditions and the tolerance they meet.
    kkt: Mapping[str, float]
    #: The reduced Hessian's verdict and eigenvalues (None when no KKT point).
    classification: str | None
    eigenvalues: np.ndarray | None
    iterations: int
    evaluations: int
    converged: bool
    message: str
    warnings: tuple[str, ...] = ()
    #: d(point)/d(each other input) with ``--sensitivity`` (``analysis.sensitivity``).
    sensitivity: Mapping | None = None

    def as_tree(self) -> dict:
        tree = {
            "point": dict(self.point),
            "value": self.value,
            "constraints": [dict(c) for c in self.constraints],
            "multipliers": self.multipliers,
            "kkt": dict(self.kkt),
            "classification": self.classification,
            "reduced_eigenvalues": self.eigenvalues,
            "method": self.method,
            "maximize": self.maximize,
            "iterations": self.iterations,
            "evaluations": self.evaluations,
            "converged": self.converged,
            "message": self.message,
        }
        return tree_with_sensitivity(tree, self.sensitivity)


class _Program:
    """f, or one constraint's c, at a flat vector: value, gradient and Hessian over the
    entries varied, evaluated once per point."""

    def __init__(self, text, flat: Flat, fixed: Mapping, options: Mapping, counter: list):
        self.text, self.flat, self.options, self.counter = text, flat, options, counter
        program = compile_source(text)
        names = {*program.inputs, *program.constants}
        self.fixed = {n: v for n, v in fixed.items() if n in names}
        self.wrt = tuple(n for n in flat.names if n in program.inputs)
        self.cache: dict[bytes, tuple] = {}

    def bindings(self, x):
        return {**self.fixed, **{n: v for n, v in self.flat.arrays(x).items() if n in self.wrt}}

    def value_and_gradient(self, x):
        key = np.asarray(x, dtype=np.float64).tobytes()
        if key not in self.cache:
            result = computing.gradient(self.text, self.bindings(x), wrt=self.wrt, **self.options)
            self.counter[0] += 1
            value = float(np.asarray(result.value).reshape(-1)[0])
            gradient = self.flat.vector({**self._zeros(), **result.grad})
            if not np.isfinite(value) or not np.all(np.isfinite(gradient)):
                raise Diverged(np.array(x), value)
            self.cache = {key: (value, gradient)}
        return self.cache[key]

    def hessian(self, x) -> np.ndarray:
        result = computing.hessian(self.text, self.bindings(x), wrt=self.wrt, **self.options)
        blocks = {
            a: {
                b: result.hessian[a][b]
                if a in self.wrt and b in self.wrt
                else np.zeros(self.flat.shapes[a] + self.flat.shapes[b])
                for b in self.flat.names
            }
            for a in self.flat.names
        }
        return self.flat.matrix(blocks)

    def _zeros(self):
        return {n: np.zeros(self.flat.shapes[n]) for n in self.flat.names}


def minimize_subject_to(
    source: str,
    bindings: Mapping | None = None,
    *,
    constraints: Sequence[Constraint],
    wrt: Sequence[str] | None = None,
    method: str | None = None,
    maximize: bool = False,
    tol: float = 1e-10,
    max_iter: int = 1000,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> ConstrainedReport:
    """A local minimum (maximum with ``maximize``) of a scalar program under
    ``constraints`` (``parse_constraints``), from the bound point, with its KKT check."""
    import scipy.optimize

    inequalities = any(c.kind == "ineq" for c in constraints)
    method = _checked_method(method, inequalities)
    options = {"dtype": dtype, "seed": seed}
    first, chosen = default_inputs(
        computing.gradient, "minimize", source, bindings, wrt, {**options, "filename": filename}
    )
    flat = Flat.of(first)
    if flat.size == 0:
        raise GradcliError("minimize needs an input to vary: the program has none")
    # Every input and const at its value (a const not bound: the program's), for the
    # constraints, which may read any of them.
    given = dict(bindings or {})
    every = every_input(parameter_program(source, given), given, {**options, "filename": filename})
    fixed = {**every.values, **flat.fixed}
    known = set(every.values)
    count = [0]
    sign = -1.0 if maximize else 1.0
    objective = _Program(source, flat, fixed, options, count)
    parts = [_constraint_program(c, flat, fixed, known, options, count) for c in constraints]

    def f(x):
        value, gradient = objective.value_and_gradient(x)
        return sign * value, sign * gradient

    scipy_constraints = _scipy_constraints(method, constraints, parts)
    extra = _method_options(method, inequalities, sign, objective, max_iter, tol)
    try:
        found = scipy.optimize.minimize(
            f, flat.start, jac=True, method=method, constraints=scipy_constraints, **extra
        )
    except Diverged as gone:
        where = ", ".join(f"{label} = {v:.6g}" for label, v in zip(flat.labels, gone.x))
        raise GradcliError(
            f"minimize left the finite numbers at {where}: f or a constraint is "
            f"{gone.value:.6g} there (start elsewhere)"
        ) from None
    x = np.asarray(found.x, dtype=np.float64)
    value, gradient = objective.value_and_gradient(x)
    check = _kkt(sign * gradient, x, constraints, parts, options)
    message = " ".join(str(found.message).split())
    if not check["holds"]:
        message = f"the KKT conditions do not hold ({check['failed']}); SciPy: {message}"
    classification, eigenvalues = None, None
    if check["holds"]:
        hessian = _lagrangian_hessian(sign * objective.hessian(x), parts, check, x)
        classification, eigenvalues = _classify(hessian, check, constraints, maximize)
    doubt = _not_sought(classification, maximize)
    return ConstrainedReport(
        source,
        source_title(source, filename),
        method,
        maximize,
        flat.frozen_arrays(x),
        value,
        _constraint_rows(constraints, check),
        frozen(check["multipliers"]),
        {key: check[key] for key in _MEASURES} | {"tolerance": KKT_TOLERANCE},
        classification,
        None if eigenvalues is None else frozen(eigenvalues),
        int(getattr(found, "nit", 0)),
        count[0],
        bool(check["holds"]),
        message,
        (*doubt, *chosen, *first.notes, *first.warnings),
    )


_MEASURES = ("stationarity", "feasibility", "dual_feasibility", "complementarity")


def _checked_method(method: str | None, inequalities: bool) -> str:
    method = (method or ("slsqp" if inequalities else "trust-constr")).lower()
    if method not in METHODS:
        raise GradcliError(f"--method {method} takes no constraints: use trust-constr or slsqp")
    return method


def _method_options(method, inequalities, sign, objective, max_iter, tol) -> dict:
    """SciPy's options: trust-constr's with the Hessian, else SLSQP's."""
    if method != "trust-constr":
        return {"options": {"maxiter": max_iter, "ftol": tol}}
    extra = {
        "hess": lambda x: sign * objective.hessian(x),
        "options": {"maxiter": max_iter, "gtol": tol, "xtol": tol * 1e-4},
    }
    if inequalities:  # the interior point method's barrier, small from the start
        extra["options"] |= {"initial_barrier_parameter": 1e-8, "initial_barrier_tolerance": 1e-8}
    return extra


def _lagrangian_hessian(hessian, parts, check, x) -> np.ndarray:
    """The objective's Hessian plus each constraint's, times its multiplier."""
    for i, part in enumerate(parts):
        if check["multipliers"][i] != 0:
            hessian = hessian + check["multipliers"][i] * part.hessian(x)
    return hessian


def _not_sought(classification, maximize: bool) -> tuple[Diagnostic, ...]:
    """A warning when a KKT point is not the kind of point sought."""
    sought = "local maximum" if maximize else "local minimum"
    if classification in (None, sought):
        return ()
    return (
        Diagnostic(
            "warning",
            f"the end point is a KKT point but not a {sought}: the Hessian of the "
            f"Lagrangian on the constraints' tangent space says {classification}",
        ),
    )


def _constraint_rows(constraints, check) -> tuple[dict, ...]:
    return tuple(
        {
            "text": c.text,
            "kind": "equality" if c.kind == "eq" else "inequality",
            "value": float(v),
            "multiplier": float(m),
            "active": bool(a),
        }
        for c, v, m, a in zip(constraints, check["values"], check["multipliers"], check["active"])
    )


def _constraint_program(constraint, flat, fixed, known, options, count) -> _Program:
    for name, span in constraint.names:
        if name not in known:
            raise GradcliError(
                f"--subject-to: {name!r} is no input or const of the program; its inputs "
                f"and consts are {', '.join(sorted(known)) or 'none'}",
                span,
                constraint.given,
            )
    part = _Program(constraint.function, flat, fixed, options, count)
    shape = np.shape(
        computing.evaluate(constraint.function, part.bindings(flat.start), **options).value
    )
    if int(np.prod(shape, dtype=int)) != 1:
        raise GradcliError(
            f"--subject-to {constraint.text}: a constraint compares two numbers, but its sides "
            f"have shape {shape}: give one --subject-to per entry (x[0] == 1)"
        )
    if not part.wrt:
        raise GradcliError(
            f"--subject-to {constraint.text}: it uses none of the inputs varied "
            f"({', '.join(flat.names)})"
        )
    return part


def _scipy_constraints(method, constraints, parts):
    import scipy.optimize

    if method == "slsqp":
        return [
            {
                "type": "eq" if c.kind == "eq" else "ineq",
                # SLSQP's inequalities are g(x) >= 0: g = -c.
                "fun": (lambda x, p=p, s=s: s * p.value_and_gradient(x)[0]),
                "jac": (lambda x, p=p, s=s: s * p.value_and_gradient(x)[1]),
            }
            for c, p in zip(constraints, parts)
            for s in [1.0 if c.kind == "eq" else -1.0]
        ]
    return [
        scipy.optimize.NonlinearConstraint(
            lambda x, p=p: p.value_and_gradient(x)[0],
            0.0 if c.kind == "eq" else -np.inf,
            0.0,
            jac=lambda x, p=p: p.value_and_gradient(x)[1][None, :],
            hess=lambda x, v, p=p: v[0] * p.hessian(x),
        )
        for c, p in zip(constraints, parts)
    ]


def _kkt(gradient, x, constraints, parts, options) -> dict:
    """The KKT measures at ``x``, each scaled (see the module's docstring), the
    least-squares multipliers, which constraints are active, and whether all hold."""
    values, gradients, scales = [], [], []
    for c, part in zip(constraints, parts):
        value, g = part.value_and_gradient(x)
        values.append(value)
        gradients.append(g)
        scales.append(_side_scale(c, part, x, options))
    values, scales = np.array(values), np.array(scales)
    gradients = np.array(gradients).reshape(len(parts), -1)
    ineq = np.array([c.kind == "ineq" for c in constraints], dtype=bool)
    scale_f = max(1.0, float(np.max(np.abs(gradient), initial=0.0)))
    relative = values / scales
    active = ~ineq | (relative >= -KKT_TOLERANCE)
    multipliers = np.zeros(len(parts))
    if active.any():
        found = np.linalg.lstsq(gradients[active].T, -gradient, rcond=None)[0]
        multipliers[active] = found
    residual = gradient + gradients.T @ multipliers if len(parts) else gradient
    stationarity = float(np.max(np.abs(residual), initial=0.0)) / scale_f
    violation = np.where(ineq, np.maximum(relative, 0.0), np.abs(relative))
    feasibility = float(np.max(violation, initial=0.0))
    # A multiplier times its gradient's size is its share of grad f.
    weight = multipliers * np.max(np.abs(gradients), axis=1, initial=0.0) / scale_f
    dual = float(np.max(np.where(ineq, -weight, 0.0), initial=0.0))
    slack = np.minimum(np.abs(weight), np.abs(relative))
    complementarity = float(np.max(np.where(ineq, slack, 0.0), initial=0.0))
    measures = {
        "stationarity": stationarity,
        "feasibility": feasibility,
        "dual_feasibility": max(dual, 0.0) + 0.0,  # never -0
        "complementarity": complementarity,
    }
    failed = [
        f"{key.replace('_', ' ')} {value:.3g} > {KKT_TOLERANCE:g}"
        for key, value in measures.items()
        if not value <= KKT_TOLERANCE
    ]
    return {
        **measures,
        "values": values,
        "multipliers": multipliers,
        "active": active,
        "gradients": gradients,
        "weights": weight,
        "holds": not failed,
        "failed": ", ".join(failed),
    }


def _side_scale(constraint, part, x, options) -> float:
    """max(1, |LHS|, |RHS|): what a constraint's value is measured against."""
    sizes = [1.0]
    for side in constraint.sides:
        names = set(compile_source(side).inputs)
        bindings = {n: v for n, v in part.bindings(x).items() if n in names}
        value = computing.evaluate(side, bindings, **options).value
        sizes.append(float(np.max(np.abs(value), initial=0.0)))
    return max(sizes)


def _classify(hessian, check, constraints, maximize) -> tuple[str, np.ndarray]:
    """The Hessian of the Lagrangian on the tangent space of the equalities and of the
    inequalities whose multiplier is not zero: positive definite there is a strict
    local minimum (second-order sufficient conditions)."""
    ineq = np.array([c.kind == "ineq" for c in constraints], dtype=bool)
    strong = check["active"] & (~ineq | (np.abs(check["weights"]) > KKT_TOLERANCE))
    weak = check["active"] & ineq & ~strong
    rows = check["gradients"][strong]
    n = hessian.shape[0]
    if rows.size:
        _, singular, vt = np.linalg.svd(rows)
        rank = int(np.sum(singular > 1e-10 * max(1.0, float(singular[0]))))
        basis = vt[rank:].T
    else:
        basis = np.eye(n)
    reduced = basis.T @ hessian @ basis
    eigenvalues = np.linalg.eigvalsh((reduced + reduced.T) / 2) if basis.size else np.zeros(0)
    zero = 1e-8 * max(1.0, float(np.max(np.abs(hessian), initial=0.0)))
    best, worst = (
        ("local maximum", "local minimum") if maximize else ("local minimum", "local maximum")
    )
    if np.all(eigenvalues > zero):
        return best, eigenvalues
    if np.all(eigenvalues < -zero) and not (strong & ineq).any() and not weak.any():
        return worst, eigenvalues
    if np.any(eigenvalues < -zero) and not weak.any():
        return "saddle point", eigenvalues
    return "degenerate", eigenvalues
