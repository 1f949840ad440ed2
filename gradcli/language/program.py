"""A compiled program: parsed, checked, and ready to run any number of times."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from contextlib import nullcontext

import numpy as np

from ..engine.batched_values import Batched
from ..engine.generator import Generator, seeded
from ..engine.ops import FUNCTIONS
from ..engine.state import default_dtype_override, enable_grad, is_grad_enabled, no_grad
from ..engine.tensor import Tensor
from ..errors import GradcliError
from . import ir
from .check import BUILTIN_CONSTANTS, Analysis, check, suggest
from .derivatives import FORMS
from .evaluate import Evaluator, as_tensor
from .ir import deep_recursion
from .parser import parse


class CompiledProgram:
    """A program with its names classified; ``run`` evaluates it on the engine.

    ``inputs`` are the names commands differentiate with respect to, in order of
    first appearance: names assigned a constant expression (``x = [2, 3]``) and
    free names. ``free`` are the inputs with no value in the program, ``constants``
    the names declared ``const``.
    """

    def __init__(self, tree: ir.Program, analysis: Analysis, source: str, filename: str):
        self.ir = tree
        self.analysis = analysis
        self.source = source
        self.filename = filename

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.analysis.inputs

    @property
    def free(self) -> tuple[str, ...]:
        return self.analysis.free

    @property
    def constants(self) -> tuple[str, ...]:
        return self.analysis.constants

    def __repr__(self) -> str:
        return f"<CompiledProgram {self.filename} inputs={self.inputs}>"

    def defaults(
        self,
        seed: int | None = None,
        constants: Mapping | None = None,
        *,
        generator: Generator | None = None,
        dtype=None,
        points: int | None = None,
    ) -> dict[str, np.ndarray]:
        """The values the program gives its inputs: random ones drawn from ``generator``
        (a new one seeded ``seed``; the process's if neither), floats in ``dtype``.

        ``constants`` are values given to ``const`` names (``--c 5``): an input defined
        from a const (``const c = 2; b = c * 3``) takes its value from the given one.
        ``points``: evaluated at that many points, some constants ``Batched``; an input
        defined from one is then Batched too, its value at each point.
        """
        constants = constants or {}
        if generator is None and seed is not None:
            generator = seeded(seed)
        statements = self.analysis.input_statements
        wanted = {i for i in statements.values()}
        if points is None:
            evaluator = Evaluator(generator=generator)
        else:
            from .evaluate_points import BatchedEvaluator

            evaluator = BatchedEvaluator(points, generator)
        evaluator.tracked = self.analysis.tracked
        values = {}
        try:
            quiet = np.errstate(all="ignore")
            with no_grad(), deep_recursion(), quiet, default_dtype_override(dtype):
                for i, statement in enumerate(self.ir.statements):
                    if isinstance(statement, (ir.FuncDef, ir.ConstDecl)) or i in wanted:
                        given = None
                        if isinstance(statement, ir.ConstDecl) and statement.name in constants:
                            given = as_tensor(constants[statement.name])
                        value = evaluator.statement(statement, given)
                        if i in wanted:
                            values[statement.name] = _array(value)
        except GradcliError as err:
            raise err.with_source(self.source) from None
        return values

    def run(
        self,
        bindings: Mapping[str, Tensor],
        watch_nonfinite: list | None = None,
        origins: dict | None = None,
        notes: list | None = None,
        sources: dict | None = None,
        *,
        generator: Generator | None = None,
        dtype=None,
        points: int | None = None,
    ) -> Tensor:
        """Evaluate with ``bindings`` for the inputs; returns the result, with its graph.

        An input that has a value in the program and no binding takes the program's
        value. When ``watch_nonfinite`` is a list, the first operation that makes inf
        of finite operands and the first that makes nan of operands without nan are
        appended to it, as ``evaluate.NonFinite``.
        When ``origins`` is a dict, it maps the graph node of each operation's result
        to ``(description, span)``: where in the source a node of the graph came from.
        When ``notes`` is a list, each call that lands on a kink appends
        ``(function, span, where, convention)`` (see ``engine.explain``). When ``sources`` is a
        dict, it maps each graph node to the span of the whole expression that made it.
        Random constructors draw from ``generator`` (the process's when None); numbers
        written in the program are of ``dtype`` (the default dtype when None), in this
        thread only: nothing global changes. ``points``: evaluate at that many points at
        once, the bindings that vary being ``Batched`` (see ``language.evaluate_points``); the
        result is then Batched too (or the same at every point).
        """
        try:
            self._check_bindings(bindings)
            with default_dtype_override(dtype):
                if points is not None:
                    from .evaluate_points import BatchedEvaluator

                    return self._evaluate(bindings, BatchedEvaluator(points, generator))
                evaluator = Evaluator(watch_nonfinite, origins, notes, sources, generator)
                return self._evaluate(bindings, evaluator)
        except GradcliError as err:
            raise err.with_source(self.source) from None

    def check_free(self, bound: Collection[str]) -> None:
        """Raise the "unknown name" error, with its caret and a did-you-mean drawn from
        ``bound`` and the program's names, for the first free input not in ``bound``."""
        try:
            self._check_free(bound)
        except GradcliError as err:
            raise err.with_source(self.source) from None

    def _check_free(self, bound: Collection[str]) -> None:
        for name in self.analysis.free:
            if name in bound:
                continue
            span = self.analysis.free_spans[name]
            if name in self.analysis.module_errors:
                raise self.analysis.module_errors[name]
            if name in FUNCTIONS or name in FORMS or name in self._functions():
                raise GradcliError(f"'{name}' is a function: call it as {name}(...)", span)
            variables = [*bound, *self._assigned(), *BUILTIN_CONSTANTS]
            hint = suggest(name, variables) or suggest(name, FUNCTIONS) or ": it has no value"
            raise GradcliError(f"unknown name '{name}'{hint}", span)

    def _check_bindings(self, bindings: Mapping[str, Tensor]) -> None:
        analysis = self.analysis
        self._check_free(bindings)
        for name in bindings:
            if name not in analysis.inputs and name not in analysis.constants:
                names = [*analysis.inputs, *analysis.constants]
                raise GradcliError(f"'{name}' is not an input of the program{suggest(name, names)}")

    def _functions(self) -> list[str]:
        return [s.name for s in self.ir.statements if isinstance(s, ir.FuncDef)]

    def _assigned(self) -> list[str]:
        return ir.assigned_names(self.ir.statements)

    def _evaluate(self, bindings, evaluator) -> Tensor:
        analysis = self.analysis
        evaluator.tracked = analysis.tracked
        # grad(F, x) needs the graph from x to F whatever the caller's grad mode (eval
        # runs under no_grad): the value is then cut from that graph, as no_grad gives it.
        recording = is_grad_enabled()
        with enable_grad() if analysis.tracked else nullcontext():
            result = self._statements(bindings, evaluator)
        if analysis.tracked and not recording:
            result = _detached(result)
        return result

    def _statements(self, bindings, evaluator) -> Tensor:
        analysis = self.analysis
        for name in analysis.free:
            evaluator.bind(name, as_tensor(bindings[name]), analysis.free_spans.get(name))
        result = None
        # nan and inf are values here (the watch reports them), not NumPy warnings.
        with deep_recursion(), np.errstate(all="ignore"):
            for i, statement in enumerate(self.ir.statements):
                given = None
                if isinstance(statement, (ir.Assign, ir.ConstDecl)) and statement.name in bindings:
                    defining = analysis.input_statements.get(statement.name) == i
                    if defining or isinstance(statement, ir.ConstDecl):
                        given = as_tensor(bindings[statement.name])
                value = evaluator.statement(statement, given)
                if i == analysis.result:
                    result = value
        return as_tensor(result)


def compile_source(
    text: str, filename: str = "<expr>", inputs: Collection[str] = ()
) -> CompiledProgram:
    """Parse and check ``text``; raises GradcliError with its span and the source.

    ``inputs``: built-in constants (pi, e, ...) that are inputs of this program instead.
    A compiled program is immutable: the last few are kept, so that a command that
    reads its program's inputs before it runs (the command line's check of its
    bindings) does not parse it twice.
    """
    return _compiled(text, filename, frozenset(inputs))


@functools.lru_cache(maxsize=4)
def _compiled(text: str, filename: str, inputs: frozenset[str]) -> CompiledProgram:
    tree = parse(text)
    try:
        analysis = check(tree, inputs)
    except GradcliError as err:
        raise err.with_source(text) from None
    return CompiledProgram(tree, analysis, text, filename)


def evaluate_constant(text: str, seed: int | None = None) -> np.ndarray:
    """The value of a constant expression such as ``pi/4``, ``[2, 3]`` or ``randn(10, 20)``."""
    program = compile_source(text, "<value>")
    statements = program.ir.statements
    try:
        if len(statements) != 1 or not isinstance(statements[0], ir.Expr):
            span = statements[-1].span if len(statements) == 1 else statements[1].span
            raise GradcliError("a value must be a single expression", span)
        if program.free:
            name = program.free[0]
            raise GradcliError(
                f"a value cannot use the name '{name}'", program.analysis.free_spans[name]
            )
    except GradcliError as err:
        raise err.with_source(text) from None
    with no_grad():
        result = program.run({}, generator=None if seed is None else seeded(seed))
    return np.array(result.numpy())


def _detached(value):
    if type(value) is Batched:
        return Batched(value.physical.detach())
    return value.detach()


def _array(value) -> np.ndarray | Batched:
    """A value's array: a copy, not the evaluation's own (Batched: its array, points first)."""
    if type(value) is Batched:
        return Batched(Tensor._make(np.array(value.physical.detach().numpy())))
    return np.array(value.detach().numpy())


def inputs_read(inputs, statements) -> tuple[str, ...]:
    """Which of ``inputs`` the last of ``statements`` (IR nodes) reads: by name,
    through the statements that assign the names it reads, and through the bodies
    of the functions it calls or passes to a transformation (what the calculator
    differentiates by default)."""
    assigned: dict[str, list] = {}
    bodies: dict[str, list] = {}
    for node in statements[:-1]:
        if isinstance(node, (ir.Assign, ir.ConstDecl)):
            assigned.setdefault(node.name, []).append((node.value, frozenset()))
        elif isinstance(node, ir.IndexAssign):
            parts = [*node.subscripts, node.value]
            assigned.setdefault(node.name, []).extend((p, frozenset()) for p in parts)
        elif isinstance(node, ir.FuncDef):
            bodies.setdefault(node.name, []).append((node.body, frozenset(node.params)))
        elif isinstance(node, ir.COMPOUND):
            # What a loop or an if assigns depends on all it reads (its conditions too).
            for name in ir.assigned_names([node]):
                assigned.setdefault(name, []).append((node, frozenset()))
    read: set[str] = set()
    called: set[str] = set()
    todo = [(statements[-1], frozenset())]
    while todo:
        expression, params = todo.pop()
        for item in ir.walk(expression):
            if isinstance(item, ir.Name) and item.id in bodies and item.id not in called:
                called.add(item.id)  # a function passed by its name: integrate(f, 0, 1)
                todo.extend(bodies[item.id])
            elif isinstance(item, ir.Name) and item.id not in params and item.id not in read:
                read.add(item.id)
                todo.extend(assigned.get(item.id, ()))
            elif isinstance(item, ir.Call) and item.func not in called:
                called.add(item.func)
                todo.extend(bodies.get(item.func, ()))
    return tuple(name for name in inputs if name in read)
