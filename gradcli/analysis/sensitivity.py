"""``--sensitivity``: how the solution of ``solve`` or ``minimize`` moves with every
other input, by the implicit function theorem.

At a root of F(x, p) = 0 with F_x invertible, the root is a function x(p) with
``dx/dp = -F_x^-1 F_p``; at a minimum of f(x, p), where grad_x f(x, p) = 0 with
the Hessian H_xx invertible, ``dx/dp = -H_xx^-1 H_xp``. Both need the program's
derivatives with respect to p, where p is every input not varied and every const
(bound, or its value in the program): the engine never differentiates a const, so
these derivatives come from the program with its ``const`` declarations turned
into plain assignments (``parameter_program``), a bound const's value given as
its binding. The result is ``{x: {p: array of shape x.shape + p.shape}}``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from ..core import computing
from ..core.evaluation import evaluation
from ..core.result import Diagnostic
from ..errors import GradcliError
from ..language import compile_source, ir, parse
from ..language.printing import to_source
from .commands import Option
from .flat import Flat, singular
from .report import frozen


def parameter_program(source: str, bound: Mapping) -> str:
    """``source`` with every ``const NAME = VALUE`` an assignment, so that NAME is an
    input the engine differentiates: ``NAME = VALUE``, or ``NAME = 0`` when ``bound``
    gives NAME a value (the binding replaces it, as it replaces the const's)."""
    tree = parse(source)
    if not any(isinstance(s, ir.ConstDecl) for s in tree.statements):
        return source
    statements = tuple(
        ir.Assign(s.name, ir.Num(0.0) if s.name in bound else s.value, s.span)
        if isinstance(s, ir.ConstDecl)
        else s
        for s in tree.statements
    )
    return to_source(ir.Program(statements))


def with_sensitivity(compute):
    """``compute`` (``optimize.minimize``, ``optimize.solve`` or
    ``constrained.minimize_subject_to``), its report carrying the
    derivative of its solution with respect to every other input (``sensitivity``)."""

    def run(source: str, bindings: Mapping | None = None, **options):
        if options.get("bounds"):
            # At an active bound the gradient is not zero: -H^-1 H_xp would be wrong there.
            raise GradcliError(
                "--sensitivity cannot go with --bounds: write the bounds as constraints "
                '(--subject-to "x >= 0"), whose KKT system gives the derivative'
            )
        bindings = dict(bindings or {})
        settings = {k: options[k] for k in ("dtype", "seed", "filename") if k in options}
        text = parameter_program(source, bindings)
        # What the solution is a function of, known before the (long) run.
        start = every_input(text, bindings, settings)
        varied = options.get("wrt") or compile_source(source).inputs
        if not _parameters(start, varied):
            raise GradcliError(
                "--sensitivity: the solution depends on no other input: every input is varied "
                "(choose those with --wrt) and the program declares no const"
            )
        report = compute(source, bindings, **options)
        varied = tuple(report.point)
        if report.command == "constrained":
            table, warnings = constrained_sensitivity(
                report, source, bindings, options["constraints"], settings
            )
            return dataclasses.replace(
                report, sensitivity=table, warnings=(*report.warnings, *warnings)
            )
        table, warnings = sensitivity(
            getattr(report, "zero", False),
            text,
            {**bindings, **report.point},
            varied,
            _parameters(start, varied),
            settings,
        )
        return dataclasses.replace(
            report, sensitivity=table, warnings=(*report.warnings, *warnings)
        )

    return run


def every_input(text: str, bindings: Mapping, settings: Mapping):
    """The evaluation of ``text`` (``parameter_program``'s) at ``bindings``: every input's
    value (``values``) and those no derivative reaches (``left_out``)."""
    o = {"dtype": "float64", "seed": 0, "filename": "<expr>", **settings}
    with evaluation(
        text, bindings, None, o["dtype"], o["seed"], o["filename"], command="--sensitivity"
    ) as s:
        return s


def _parameters(start, varied) -> tuple[str, ...]:
    """The inputs of floating point not varied, consts included (``parameter_program``),
    but those no derivative reaches (class indices, a size: ``core.reach``)."""
    return tuple(
        name
        for name, value in start.values.items()
        if name not in varied and name not in start.left_out and value.dtype.kind == "f"
    )


def sensitivity(zero: bool, text: str, bindings: Mapping, varied, parameters, settings):
    """``({x: {p: dx/dp}}, warnings)`` at the solution bound in ``bindings``: a zero of
    the program (``zero``: of F, by its Jacobian), else a stationary point (by its Hessian)."""
    names = (*varied, *parameters)
    if zero:
        result = computing.jacobian(text, bindings, wrt=names, **settings)
        shapes = result.shapes
        x, p = Flat(varied, shapes, result.point), Flat(parameters, shapes, result.point)
        blocks = result.jacobian
        square = x.matrix(blocks).reshape(-1, x.size)
        moved = p.matrix(blocks).reshape(-1, p.size)
        what = "the Jacobian with respect to the unknowns is singular at the root"
    else:
        result = computing.hessian(text, bindings, wrt=names, **settings)
        shapes = result.shapes
        x, p = Flat(varied, shapes, result.point), Flat(parameters, shapes, result.point)
        square = x.matrix(result.hessian)
        moved = _cross(result.hessian, x, p)
        what = "the Hessian is singular at the end point"
    warnings: tuple[str, ...] = ()
    if singular(square):
        derivative = np.full((x.size, p.size), np.nan)
        message = f"--sensitivity: {what}: the solution's derivative is undefined"
        warnings = (Diagnostic("warning", message),)
    else:
        derivative = -np.linalg.solve(square, moved)
    return _table(derivative, x, p), warnings


def _cross(blocks: Mapping, x: Flat, p: Flat) -> np.ndarray:
    """The Hessian's rows of ``x`` and columns of ``p`` as one matrix."""
    return np.concatenate(
        [
            np.concatenate(
                [np.reshape(blocks[a][q], (sa, sq)) for q, sq in zip(p.names, p.sizes)], 1
            )
            for a, sa in zip(x.names, x.sizes)
        ],
        0,
    )


# ----------------------------------------------------------------------------
# Under constraints: the KKT system's implicit function
# ----------------------------------------------------------------------------


def constrained_sensitivity(report, source: str, bindings: Mapping, constraints, settings):
    """``({x: {p: dx/dp}}, warnings)`` at a KKT point of ``minimize --subject-to``: the
    equalities and the inequalities active with a multiplier not zero stay active as p
    moves, so x(p) and their multipliers solve stationarity and c_A = 0, and

        [[W_xx, J_x^T], [J_x, 0]] [dx/dp; dlambda/dp] = -[W_xp; J_p]

    with W the Hessian of the Lagrangian and J the active constraints' Jacobian."""
    bindings = dict(bindings)
    text = parameter_program(source, bindings)
    start = every_input(text, bindings, settings)
    varied = tuple(report.point)
    parameters = _parameters(start, varied)
    if not parameters:
        raise GradcliError(
            "--sensitivity: the solution depends on no other input: every input is varied "
            "(choose those with --wrt) and the program declares no const"
        )
    at = {**start.values, **report.point}
    names = (*varied, *parameters)
    sign = -1.0 if report.maximize else 1.0
    f = computing.hessian(text, {**bindings, **report.point}, wrt=names, **settings)
    z = Flat(names, f.shapes, f.point)
    hessian = sign * z.matrix(f.hessian)
    scale = max(1.0, float(np.max(np.abs(z.vector(f.grad)[: _size(z, varied)]), initial=0.0)))
    rows, warnings = [], []
    for constraint, shown in zip(constraints, report.constraints):
        multiplier = shown["multiplier"]
        if not shown["active"]:
            continue
        c_hessian, gradient = _constraint_derivatives(constraint.function, at, z, settings)
        weight = abs(multiplier) * float(np.max(np.abs(gradient), initial=0.0)) / scale
        if constraint.kind == "ineq" and weight <= report.kkt["tolerance"]:
            message = (
                f"--sensitivity: {constraint.text} is active with multiplier 0: the solution "
                f"may leave it or not as the inputs move, and its derivative is one-sided"
            )
            warnings.append(Diagnostic("warning", message))
            continue
        hessian = hessian + multiplier * c_hessian
        rows.append(gradient)
    n = _size(z, varied)
    jacobian = np.array(rows).reshape(len(rows), z.size)
    system = np.block(
        [[hessian[:n, :n], jacobian[:, :n].T], [jacobian[:, :n], np.zeros((len(rows),) * 2)]]
    )
    moved = np.concatenate([hessian[:n, n:], jacobian[:, n:]], 0)
    x = Flat(varied, f.shapes, f.point)
    p = Flat(parameters, f.shapes, f.point)
    if singular(system):
        derivative = np.full((x.size, p.size), np.nan)
        what = "the KKT system (the Lagrangian's Hessian and the active constraints) is singular"
        warnings.append(
            Diagnostic("warning", f"--sensitivity: {what}: the derivative is undefined")
        )
    else:
        derivative = -np.linalg.solve(system, moved)[:n]
    return _table(derivative, x, p), tuple(warnings)


def _size(flat: Flat, names) -> int:
    return int(sum(s for n, s in zip(flat.names, flat.sizes) if n in names))


def _constraint_derivatives(function: str, at: Mapping, z: Flat, settings):
    """A constraint's Hessian and gradient over every entry of ``z`` (zero where it
    does not read the input)."""
    program = compile_source(function)
    reads = set(program.inputs)
    wrt = tuple(n for n in z.names if n in reads)
    options = {k: v for k, v in settings.items() if k != "filename"}
    result = computing.hessian(
        function, {n: v for n, v in at.items() if n in reads}, wrt=wrt, **options
    )
    zero = lambda a, b: np.zeros(z.shapes[a] + z.shapes[b])  # noqa: E731
    blocks = {
        a: {b: result.hessian[a][b] if a in wrt and b in wrt else zero(a, b) for b in z.names}
        for a in z.names
    }
    grad = {n: result.grad[n] if n in wrt else np.zeros(z.shapes[n]) for n in z.names}
    return z.matrix(blocks), z.vector(grad)


def _table(derivative: np.ndarray, x: Flat, p: Flat) -> Mapping:
    return MappingProxyType(
        {
            name: MappingProxyType(
                {
                    q: frozen(derivative[a:b, c:d].reshape(x.shapes[name] + p.shapes[q]) + 0.0)
                    for q, c, d in zip(p.names, p.stops[:-1], p.stops[1:])
                }
            )
            for name, a, b in zip(x.names, x.stops[:-1], x.stops[1:])
        }
    )


#: ``--sensitivity`` of the solvers: their report with the derivative of the solution.
SENSITIVITY = Option(
    "sensitivity",
    "Also the derivative of the solution with respect to every other input and every "
    "const (bound or not), by the implicit function theorem (of the KKT system, the "
    "active constraints held, with --subject-to).",
    kind="flag",
    wraps=with_sensitivity,
)
