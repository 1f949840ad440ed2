"""The evaluator's calls that take more than values: the derivatives inside programs
(``grad(F, x)``, ``jacobian``, ``hessian``: ``derivatives``) and the transformations,
which call a function value at points they choose (``integrate``, ``root``,
``minimizer``, ``odeint``: ``transformations``). A mixin of ``evaluate.Evaluator``."""

from __future__ import annotations

from ..engine.multiprecision import ACTIVE
from ..errors import GradcliError, Span
from . import derivatives, ir, transformations


class FunctionsOfFunctions:
    """``Evaluator``'s derivatives and transformations (it has ``evaluate``, ``name``,
    ``apply``, ``origins`` and ``sources``)."""

    def derivative(self, node: ir.Call, span: Span):
        """``grad(F, x)``, ``jacobian(F, x)``, ``hessian(F, x)`` (see ``derivatives``)."""
        f_node, x_node = node.args
        if not isinstance(x_node, ir.Name):  # the checker refuses it
            raise derivatives.target_error(node.func, x_node.span)
        f = self.evaluate(f_node)
        x = self.name(x_node.id, x_node.span)
        result = self.apply(
            node.func, span, derivatives.derivative, node.func, f, x, f_node.span, x_node.span
        )
        if self.origins is not None or self.sources is not None:
            # The nodes the reverse pass recorded came from this call (graph, --steps).
            known = self.origins if self.origins is not None else self.sources
            for made in derivatives.nodes_made(result, known):
                if self.origins is not None:
                    self.origins.setdefault(made, (node.func, span))
                if self.sources is not None:
                    self.sources.setdefault(made, node.span)
        return result

    def Lambda(self, node: ir.Lambda):
        # The checker lets an anonymous function stand only where a transformation takes it.
        raise GradcliError("an anonymous function is not a value", node.span)

    def transformation(self, node: ir.Call, span: Span):
        """``integrate``, ``root``, ``minimizer`` or ``odeint``: its function value, its
        other arguments evaluated, and its own evaluations recording no notes (see
        ``transformations``)."""
        from .ode import odeint
        from .quadrature import integrate
        from .solvers import minimizer, root

        if ACTIVE[0]:  # their tolerances and searches are float64's
            raise GradcliError(f"--dps: {node.func} has no multiprecision form", span)
        given = transformations.arguments(node)
        function = transformations.function_value(self, given.pop("f"))
        values = {name: self.evaluate(value) for name, value in given.items()}
        compute = {"integrate": integrate, "root": root, "minimizer": minimizer, "odeint": odeint}
        compute = compute[node.func]
        with transformations.quiet(self):
            result = compute(self, function, span, **values)
        if self.origins is not None and getattr(result, "grad_fn", None) is not None:
            self.origins.setdefault(result.grad_fn, (node.func, span))
        return result
