"""The evaluator at many points at once: every operation through its batching rule.

The inputs that vary are ``Batched`` values (``engine.batched_values``); every
operator, call, indexing and assignment that meets one goes through
``engine.batching_rules.call`` with the op it stands for, so one evaluation gives
each point's value, and the graph it records gives each point's derivatives.
What the language computes outside the op table (``log(x, base)``, a list's
shape) takes Batched values as they are.
"""

from __future__ import annotations

from ..engine import batching_rules as batching
from ..engine import ops
from ..engine.batched_values import Batched, any_batched
from ..engine.state import no_grad
from ..errors import GradcliError
from . import derivatives, ir
from .control import loop_name
from .evaluate import (
    INTEGER_OR_LIST_TYPES,
    INTEGER_TYPES,
    TENSOR_ATTRIBUTES,
    Evaluator,
    as_tensor,
)
from .subscripts import checked_integer

#: The error of a mask computed from values that vary: x[x > 0] has a shape of its own
#: at each point, which no array with the points along one axis holds.
VARYING_MASK = (
    "a mask that varies from point to point selects a different number of entries at "
    "each point, which many-point evaluation cannot hold: write where(mask, x, 0)"
)
VARYING_INDEX = (
    "an index that varies from point to point is not implemented in many-point "
    "evaluation: it must be the same at every point"
)

# The parameter types that take one number for every point: sizes, dimensions, flags.
_FIXED_TYPES = INTEGER_TYPES | INTEGER_OR_LIST_TYPES | {"bool"}


class PointsDiffer(GradcliError):
    """The points take different paths through the program (a condition true at some,
    false at others; a loop's count that varies): one evaluation of them all cannot
    follow them, and the caller evaluates them one at a time."""


class BatchedEvaluator(Evaluator):
    """Runs one program once at ``size`` points."""

    def __init__(self, size: int, generator=None):
        super().__init__(generator=generator)
        self.size = size

    def apply(self, description, span, fn, *args, **kwargs):
        if any_batched((*args, *kwargs.values())):
            fn = self._batched(description, fn)
        return super().apply(description, span, fn, *args, **kwargs)

    def _batched(self, description, fn):
        # The op an entry's function stands for, or an operator by its entry's name.
        entry = getattr(fn, "op", None) or ops.OPERATORS.get(description)
        if entry is not None and entry.language_constant:  # cut from the graph, as at a point

            def cut(*args, **kwargs):
                with no_grad():
                    return batching.call(entry, *args, **kwargs)

            return cut
        if entry is not None:
            return lambda *args, **kwargs: batching.call(entry, *args, **kwargs)
        if getattr(fn, "takes_batched", False) or fn is TENSOR_ATTRIBUTES["shape"]:
            return fn  # its ops go through the batching rules; the shape is the logical one
        raise GradcliError(f"many-point evaluation of {description} is not implemented")

    def track(self, value):
        # Each point's own copy: F at a point is differentiated by that point's x alone.
        return derivatives.tracked(value, self.size)

    def statement(self, node, input_value=None):
        if isinstance(node, ir.IndexAssign):
            # k[0] = value: k is written at every point, so it holds a value at each.
            current = self.env.get(node.name)
            if current is not None and type(current) is not Batched:
                self.env[node.name] = Batched.broadcast(as_tensor(current), self.size)
        return super().statement(node, input_value)

    def key(self, value, node):
        if type(value) is Batched:
            raise GradcliError(
                VARYING_MASK if isinstance(node, ir.Compare) else VARYING_INDEX, node.span
            )
        return super().key(value, node)

    def integer(self, node, what: str) -> int:
        value = self.evaluate(node)
        if type(value) is Batched:
            raise GradcliError(VARYING_INDEX, node.span)
        return checked_integer(value, what, node.span)

    def truth_of(self, value, test, node) -> bool:
        """A condition the same at every point is that point's; one that differs is
        refused: the points would take different branches, which one evaluation of
        them all cannot (and the value of one branch at every point would be wrong)."""
        if type(value) is not Batched:
            return super().truth_of(value, test, node)
        each = value.physical.detach().numpy()
        if each.ndim > 1 and each[0].size != 1:  # the error of a vector condition
            return super().truth_of(as_tensor(each[0]), test, node)
        held = each.reshape(len(each)) != 0
        if held.all() or not held.any():
            return bool(held[0]) if len(held) else False
        true, false = int(held.argmax()), int((~held).argmax())
        raise PointsDiffer(
            f"the condition of {loop_name(node)} differs between points (true at point"
            f" {true}, false at point {false}): one evaluation at many points takes one"
            " branch at all of them; evaluate those points one at a time, or choose entry"
            " by entry with where(condition, a, b)",
            test.span,
        )

    def loop_bound(self, node, loop) -> int:
        value = self.evaluate(node)
        if type(value) is Batched:
            each = value.physical.detach().numpy()
            if each.ndim == 1 and len(each) and (each == each[0]).all():
                value = as_tensor(each[0])  # the same count at every point
        if type(value) is Batched:
            raise PointsDiffer(
                f"the number of steps of {loop_name(loop)} varies from point to point:"
                " it must be the same at every point",
                node.span,
            )
        return checked_integer(value, "range's argument", node.span)

    def adapt(self, param, type_, value, span, variadic=False):
        if type(value) is Batched and type_ in _FIXED_TYPES:
            raise GradcliError(
                f"{param} varies from point to point: it must be the same at every point", span
            )
        return super().adapt(param, type_, value, span, variadic)
