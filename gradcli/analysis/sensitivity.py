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

from .. import api
from ..core.result import Diagnostic
from ..errors import GradcliError
from .flat import Flat
from .report import frozen


def parameter_program(source: str, bound: Mapping) -> str:
    """``source`` with every ``const NAME = VALUE`` an assignment, so that NAME is an
    input the engine differentiates: ``NAME = VALUE``, or ``NAME = 0`` when ``bound``
    gives NAME a value (the binding replaces it, as it replaces the const's)."""
    from ..language import ir, parse
    from ..language.printing import to_source

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
    """``compute`` (``optimize.minimize`` or ``optimize.solve``), its report carrying the
    derivative of its solution with respect to every other input (``sensitivity``)."""

    def run(source: str, bindings: Mapping | None = None, **options):
        from ..language import compile_source

        bindings = dict(bindings or {})
        settings = {k: options[k] for k in ("dtype", "seed", "filename") if k in options}
        text = parameter_program(source, bindings)
        # What the solution is a function of, known before the (long) run.
        start = api.evaluate(text, bindings, **settings)
        varied = options.get("wrt") or compile_source(source).inputs
        if not _parameters(start.point, varied):
            raise GradcliError(
                "--sensitivity: the solution depends on no other input: every input is varied "
                "(choose those with --wrt) and the program declares no const"
            )
        report = compute(source, bindings, **options)
        varied = tuple(report.point)
        table, warnings = sensitivity(
            report.command,
            text,
            {**bindings, **report.point},
            varied,
            _parameters(start.point, varied),
            settings,
        )
        return dataclasses.replace(
            report, sensitivity=table, warnings=(*report.warnings, *warnings)
        )

    return run


def _parameters(point: Mapping, varied) -> tuple[str, ...]:
    """The inputs of floating point not varied, consts included (``parameter_program``)."""
    return tuple(
        name for name in point if name not in varied and np.asarray(point[name]).dtype.kind == "f"
    )


def sensitivity(command: str, text: str, bindings: Mapping, varied, parameters, settings):
    """``({x: {p: dx/dp}}, warnings)`` at the solution bound in ``bindings``."""
    names = (*varied, *parameters)
    if command == "solve":
        result = api.jacobian(text, bindings, wrt=names, **settings)
        shapes = result.shapes
        x, p = Flat(varied, shapes, result.point), Flat(parameters, shapes, result.point)
        blocks = result.jacobian
        square = x.matrix(blocks).reshape(-1, x.size)
        moved = p.matrix(blocks).reshape(-1, p.size)
        what = "the Jacobian with respect to the unknowns is singular at the root"
    else:
        result = api.hessian(text, bindings, wrt=names, **settings)
        shapes = result.shapes
        x, p = Flat(varied, shapes, result.point), Flat(parameters, shapes, result.point)
        square = x.matrix(result.hessian)
        moved = _cross(result.hessian, x, p)
        what = "the Hessian is singular at the end point"
    warnings: tuple[str, ...] = ()
    if _singular(square):
        derivative = np.full((x.size, p.size), np.nan)
        message = f"--sensitivity: {what}: the solution's derivative is undefined"
        warnings = (Diagnostic("warning", message),)
    else:
        derivative = -np.linalg.solve(square, moved)
    table = {
        name: MappingProxyType(
            {
                q: frozen(derivative[a:b, c:d].reshape(x.shapes[name] + p.shapes[q]))
                for q, c, d in zip(p.names, p.stops[:-1], p.stops[1:])
            }
        )
        for name, a, b in zip(x.names, x.stops[:-1], x.stops[1:])
    }
    return MappingProxyType(table), warnings


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


def _singular(matrix: np.ndarray) -> bool:
    if not np.all(np.isfinite(matrix)):
        return True
    singular = np.linalg.svd(matrix, compute_uv=False)
    return bool(singular[-1] <= 1e-13 * max(1.0, float(singular[0])))
