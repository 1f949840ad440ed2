"""Loops and conditions of the language, as the evaluator runs them (Python's semantics).

``for k in range(...)`` runs its body once per whole number of the range, known when
the loop starts; ``while`` while its condition holds; ``if``/``elif``/``else`` and
``a if c else b`` evaluate only the branch taken, so only that branch is recorded in
the graph and differentiated, as in PyTorch. A condition is one truth value: nonzero
is true. Every loop is bounded by ``MAX_LOOP_STEPS``.
"""

from __future__ import annotations

import numpy as np

from ..engine.tensor import Tensor
from ..errors import GradcliError, GradcliTypeError
from . import ir
from .subscripts import checked_integer

#: The most steps one loop may take in one evaluation (documented in docs/language.md):
#: each step runs its body on the engine and keeps its graph, so a loop that never
#: ends is an error naming it rather than a program that runs out of memory.
MAX_LOOP_STEPS = 100_000


class Jump(Exception):
    """``break`` or ``continue`` (``node``): unwinds to the innermost loop."""

    def __init__(self, node):
        super().__init__()
        self.node = node


def loop_name(node) -> str:
    """How an error names a loop or an if: its keyword and its line."""
    what = {
        ir.For: "'for' loop",
        ir.While: "'while' loop",
        ir.If: "'if'",
        ir.IfExp: "'if ... else'",
    }
    return f"the {what[type(node)]} at line {node.span.line}"


class ControlFlow:
    """The evaluator's methods for loops and conditions (``Evaluator`` has them all)."""

    def block(self, statements) -> bool:
        """Run ``statements``; whether a ``break`` left them."""
        try:
            for statement in statements:
                self.statement(statement)
        except Jump as jump:
            return isinstance(jump.node, ir.Break)
        return False

    def For(self, node: ir.For) -> None:
        bounds = [self.loop_bound(arg, node) for arg in node.args]
        if len(bounds) == 3 and bounds[2] == 0:
            raise GradcliError("range's step cannot be zero", node.args[2].span)
        steps = range(*bounds)
        self.steps(node, len(steps))
        for i in steps:
            # Each step is an operation (--max-operations), its body's own ops besides:
            # nested loops of bare assignments are bounded too.
            self.count_operation(node.span)
            self.env[node.var] = i
            if self.block(node.body):
                break

    def While(self, node: ir.While) -> None:
        count = 0
        while self.truth(node.test, node):
            count += 1
            self.steps(node, count)
            self.count_operation(node.span)
            if self.block(node.body):
                break

    def If(self, node: ir.If) -> None:
        for statement in node.body if self.truth(node.test, node) else node.orelse:
            self.statement(statement)

    def IfExp(self, node: ir.IfExp):
        return self.evaluate(node.body if self.truth(node.test, node) else node.orelse)

    @staticmethod
    def steps(node, count: int) -> None:
        if count > MAX_LOOP_STEPS:
            raise GradcliError(
                f"{loop_name(node)} takes more than {MAX_LOOP_STEPS:,} steps, the most a loop"
                " may take: bound it (for k in range(n)) or loosen its condition",
                node.span,
            )

    def loop_bound(self, node, loop) -> int:
        """One of range's arguments: a whole number."""
        return checked_integer(self.evaluate(node), "range's argument", node.span)

    def truth(self, test, node) -> bool:
        """The condition ``test`` of ``node`` as one truth value: nonzero is true (nan
        too, as Python's bool and PyTorch's)."""
        return self.truth_of(self.evaluate(test), test, node)

    def truth_of(self, value, test, node) -> bool:
        if type(value) is Tensor:
            if value.numel() != 1:
                raise GradcliError(
                    f"the condition of {loop_name(node)} has {value.numel()} values"
                    f" (shape {tuple(value.shape)}), not one truth value: to choose entry by"
                    " entry write where(condition, a, b)",
                    test.span,
                )
            value = np.asarray(value.detach()).item()
        if isinstance(value, str):
            raise GradcliTypeError("a condition is a value, not text in quotes", test.span)
        return bool(value)
