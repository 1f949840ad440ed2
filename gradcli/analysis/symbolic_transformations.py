"""``gradcli diff`` of the transformations of a program: ``integrate`` as SymPy's
``Integral``; ``root``, ``minimizer`` and ``odeint`` refused by name (no closed form).
A mixin of the walk into SymPy (``symbolic_walk.ToSympy``), with the helpers that make
its values arrays of SymPy objects."""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError
from ..language import ir
from ..language.transformations import arguments


class SymbolicTransformations:
    """The transformations' part of the walk into SymPy (``symbolic_walk.ToSympy``)."""

    def transformation(self, node):
        """``integrate`` as SymPy's ``Integral`` (left unevaluated: SymPy differentiates it
        under the integral sign, and evaluates it numerically); ``root`` and ``minimizer``
        have no closed form."""
        if node.func == "odeint":
            raise self.fail("odeint(...), the solution of an ODE by steps,", node)
        if node.func != "integrate":
            raise self.fail(f"{node.func}(...), a point found by iteration,", node)
        given = arguments(node)
        function = given.pop("f")
        if set(given) - {"a", "b"}:
            raise self.fail("integrate(...) with rtol= or atol=", node)
        if isinstance(function, ir.Lambda):
            (param,), body, captured = function.params, function.body, self.locals
        else:
            definition = self.functions[function.id]
            (param,), body, captured = definition.params, definition.body, {}
        limits = []
        for name in ("a", "b"):
            value = self.evaluate(given[name])
            if value.ndim != 0:
                raise GradcliError(f"integrate's limit {name} must be one number", node.span)
            limits.append(value.item())
        # A symbol of its own name, unless an input has that name: then one that differs.
        symbol = self.sympy.Dummy if param in self.symbols else self.sympy.Symbol
        t = symbol(param, real=True)
        saved, self.locals = self.locals, {**captured, param: scalar_of(t)}
        try:
            integrand = self.evaluate(body)
        finally:
            self.locals = saved
        entrywise = np.frompyfunc(lambda e: self.sympy.Integral(e, (t, *limits)), 1, 1)
        return array_of(entrywise(integrand))


def scalar_of(value) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def array_of(value) -> np.ndarray:
    """Any NumPy result as an array of objects (a 0-d one for a scalar)."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return value
    if isinstance(value, np.ndarray):
        return value.astype(object)
    return scalar_of(value)
