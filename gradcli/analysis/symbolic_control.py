"""Loops and conditions in ``gradcli diff``: a loop unrolls; an if is a ``Piecewise``.

A ``for`` loop's range must be whole numbers (constants, or inputs' values given in the
program); each step is walked in turn, so the derivative is that of the unrolled
loop. A condition that is a number after substitution chooses its branch. A condition
on the inputs makes each name the branches assign a ``Piecewise`` (as ``where``), which
holds the derivative on both sides of the condition; a ``while``, ``break`` or
``continue`` that depends on the inputs has no such form and is an error naming it.
"""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError
from ..language import ir
from ..language.control import MAX_LOOP_STEPS, loop_name


class _Break(Exception):
    """``break``, unrolled: leaves the loop being unrolled."""


class _Continue(Exception):
    """``continue``, unrolled: the loop's next step."""


class SymbolicControl:
    """The SymPy walk's methods for loops and conditions (``symbolic_walk.ToSympy`` has them)."""

    def control(self, node) -> None:
        if isinstance(node, (ir.Break, ir.Continue)):
            if self.branches:
                raise self.fail(f"'{type(node).__name__.lower()}' under an if on the inputs", node)
            raise _Break() if isinstance(node, ir.Break) else _Continue()
        if isinstance(node, ir.If):
            self.if_statement(node)
            return
        saved, self.branches = self.branches, 0  # a break in this loop leaves this loop
        try:
            count = 0
            steps = (
                range(*(self.integer(a) for a in node.args)) if isinstance(node, ir.For) else None
            )
            while True:
                if steps is not None:
                    if count == len(steps):
                        break
                    step = np.empty((), dtype=object)
                    step[()] = self.sympy.Integer(steps[count])
                    self.env[node.var] = step
                elif not self.known(node.test, node, "a while loop whose condition"):
                    break
                count += 1
                if count > MAX_LOOP_STEPS:
                    raise GradcliError(
                        f"{loop_name(node)} takes more than {MAX_LOOP_STEPS:,} steps", node.span
                    )
                try:
                    for statement in node.body:
                        self.statement(-1, statement)
                except _Break:
                    break
                except _Continue:
                    continue
        finally:
            self.branches = saved

    def condition(self, test):
        """The condition ``test`` as one SymPy expression."""
        value = self.evaluate(test)
        if value.size != 1:
            raise self.fail("a condition of more than one value", test)
        return self.sympy.sympify(value.reshape(()).item())

    def known(self, test, node, what: str) -> bool:
        """Whether the condition holds, when it is a number; else an error."""
        value = self.condition(test)
        if value.free_symbols:
            raise self.fail(f"{what} depends on the inputs", node)
        return bool(value != 0)

    def if_statement(self, node: ir.If) -> None:
        value = self.condition(node.test)
        if not value.free_symbols:
            for statement in node.body if value != 0 else node.orelse:
                self.statement(-1, statement)
            return
        before = dict(self.env)
        branches = []
        self.branches += 1
        try:
            for body in (node.body, node.orelse):
                self.env = dict(before)
                for statement in body:
                    self.statement(-1, statement)
                branches.append(self.env)
        finally:
            self.branches -= 1
        taken, other = branches
        self.env = dict(before)
        for name in {*taken, *other}:
            if name not in taken or name not in other:
                raise self.fail(f"'{name}', assigned in one branch of an if on the inputs,", node)
            if taken[name] is not other[name]:
                self.env[name] = self.choose(value, taken[name], other[name], node)

    def choose(self, held, a, b, node) -> np.ndarray:
        """Entry by entry, ``a`` where ``held`` is nonzero, else ``b`` (a Piecewise)."""
        s = self.sympy
        try:
            a, b = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        except ValueError:
            raise self.fail("an if whose branches give values of different shapes", node) from None
        out = np.empty(a.shape, dtype=object)
        for index in np.ndindex(*a.shape):
            out[index] = s.Piecewise((a[index], s.Ne(held, 0)), (b[index], True))
        return out

    def IfExp(self, node):
        value = self.condition(node.test)
        if not value.free_symbols:
            return self.evaluate(node.body if value != 0 else node.orelse)
        return self.choose(value, self.evaluate(node.body), self.evaluate(node.orelse), node)
