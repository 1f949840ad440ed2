"""Transformations: the functions of the language that take a function.

``integrate(f, a, b)``, ``root(f, x0)``, ``minimizer(f, x0)`` and
``odeint(f, y0, t)`` take a function value (an anonymous function
``t -> exp(-p*t**2)``, or the name of one defined as ``f(t) = ...`` or
``g = t -> ...``) and give a tensor that is differentiable
with respect to everything the function closes over. They are not ops of the op
table: each needs the evaluator, to call its function at points it chooses.
This table is the one place that declares them: the checker binds their
arguments from it, the evaluator dispatches on it, ``gradcli functions`` lists
it, and ``diff`` reads what each becomes symbolically.

A function value is a closure: its body reads the program's names (and the
parameters of the user function it is written in) when it is called, as the
program's tensors, so a derivative flows through them.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from ..engine import ops
from ..engine.batched_values import Batched
from ..engine.tensor import Tensor
from ..errors import GradcliError, GradcliTypeError
from ..record import Record
from . import ir


class Transformation(Record):
    """One transformation: its parameters, its function's, and how it is documented."""

    name: str
    #: The parameters in order; the first is the function.
    positional: tuple[str, ...]
    #: How many of them are needed.
    required: int
    #: Keyword-only parameters, with their defaults as shown.
    options: tuple[tuple[str, str], ...]
    #: How many arguments the function takes.
    arity: int
    #: One line for ``gradcli functions``.
    doc: str
    #: What ``diff`` does with it (``gradcli functions`` and docs/language.md say so).
    symbolic: str
    #: The highest order of derivative it gives exactly (``taylor`` refuses one beyond).
    exact_order: int
    #: The parameters besides f whose derivatives the result carries (the others are cut).
    through: tuple[str, ...] = ()
    #: The keyword parameters that take text in quotes.
    texts: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        parts = list(self.positional)
        parts += [f"{name}={default}" for name, default in self.options]
        return f"({', '.join(parts)})"


TRANSFORMATIONS = {
    t.name: t
    for t in (
        Transformation(
            "integrate",
            ("f", "a", "b"),
            3,
            (("rtol", "1e-12"), ("atol", "0")),
            1,
            "the definite integral of f(t) for t from a to b (adaptive Gauss-Kronrod; a"
            " limit may be -inf or inf), differentiable with respect to the limits and to"
            " every input f reads",
            "SymPy's Integral, evaluated where SymPy can",
            16,  # the limits' terms: an 8-point Gauss-Legendre rule (see quadrature)
            ("a", "b"),
        ),
        Transformation(
            "root",
            ("f", "x0"),
            2,
            (("maxiter", "100"),),
            1,
            "a root of f near x0 (Newton's method; x0 a number or a vector, f(x) of its"
            " shape), differentiable with respect to every input f reads by the implicit"
            " function theorem",
            "refused: diff has no closed form for it",
            15,  # four Newton steps on the graph (see solvers)
        ),
        Transformation(
            "minimizer",
            ("f", "x0"),
            2,
            (("maxiter", "200"),),
            1,
            "the point of a local minimum of f(x) near x0 (Newton's method on the gradient;"
            " x0 a number or a vector), differentiable with respect to every input f reads"
            " by the implicit function theorem",
            "refused: diff has no closed form for it",
            15,  # four Newton steps on the graph (see solvers)
        ),
        Transformation(
            "odeint",
            ("f", "y0", "t"),
            3,
            (("rtol", "1e-10"), ("atol", "1e-12"), ("method", '"auto"')),
            2,
            "the solution of dy/dt = f(y, t) with y(t[0]) = y0 at the times of the increasing"
            " vector t, of shape (len(t),) + y0.shape (adaptive: Dormand-Prince 5(4), or Radau"
            ' IIA of order 5 for stiff problems; method="auto", "dopri5" or "radau"),'
            " differentiable with respect to y0, t and every input f reads",
            "refused by name (an ODE's solution has no symbolic form)",
            3,  # the Radau stages' three Newton steps on the graph (see ode)
            ("y0", "t"),
            ("method",),
        ),
    )
}


def exact_order(program: ir.Program) -> tuple[int, str] | None:
    """``(order, name)``: the lowest order through which the transformations ``program``
    calls give exact derivatives, and the one that sets it; None if it calls none."""
    found = [
        (TRANSFORMATIONS[node.func].exact_order, node.func)
        for node in ir.walk(program)
        if isinstance(node, ir.Call) and node.func in TRANSFORMATIONS
    ]
    return min(found) if found else None


def keywords(name: str) -> frozenset[str]:
    """Every parameter transformation ``name`` takes by keyword."""
    t = TRANSFORMATIONS[name]
    return frozenset(t.positional) | {o for o, _ in t.options}


def function_argument(node: ir.Call) -> ir.Expr | None:
    """The node given as the function of a transformation's call (positional or ``f=``)."""
    if node.args:
        return node.args[0]
    return next((k.value for k in node.keywords if k.name == "f"), None)


def text_arguments(node) -> set[int]:
    """The ids of the nodes that may be text in quotes: ``node``'s keyword arguments that
    the table says take text, if it is a transformation's call."""
    if not isinstance(node, ir.Call) or node.func not in TRANSFORMATIONS:
        return set()
    texts = TRANSFORMATIONS[node.func].texts
    return {id(k.value) for k in node.keywords if k.name in texts}


def arguments(node: ir.Call) -> dict[str, ir.Expr]:
    """Every argument of a transformation's call, by parameter name."""
    t = TRANSFORMATIONS[node.func]
    given = dict(zip(t.positional, node.args))
    given.update((k.name, k.value) for k in node.keywords)
    return given


# ----------------------------------------------------------------------------
# The checker's rules for function values
# ----------------------------------------------------------------------------


def check_anonymous_function(node: ir.Lambda, passed: bool, constants) -> None:
    """An anonymous function stands only where a transformation takes its function
    (``passed``), with distinct parameters that are none of the built-in ``constants``."""
    if not passed:
        listed = ", ".join(TRANSFORMATIONS)
        raise GradcliError(
            f"an anonymous function is only an argument of {listed}, or the value of a"
            " name (g = t -> t**2, then g(3))",
            node.span,
        )
    check_parameters(node.params, node.param_spans, constants)


def check_parameters(params, spans, constants) -> None:
    """A function's parameters (an anonymous one's, or ``f(a, b) = ...``'s): distinct,
    and none of the built-in ``constants``."""
    seen = set()
    for param, span in zip(params, spans):
        if param in constants:
            raise GradcliError(f"the constant '{param}' cannot be a parameter", span)
        if param in seen:
            raise GradcliError(f"parameter '{param}' appears twice", span)
        seen.add(param)


def check_function_name(node: ir.Name, scope, functions, function_names) -> None:
    """``integrate(f, 0, 1)``: ``f`` must name a function defined before (``functions``;
    ``function_names`` are those the program defines anywhere)."""
    if node.id in functions and node.id not in scope:
        return
    if node.id in function_names and node.id not in scope:
        raise GradcliError(f"function '{node.id}' is used before it is defined", node.span)
    hint = f" (write t -> {node.id}(t))" if node.id in ops.FUNCTIONS else ""
    raise GradcliError(
        f"'{node.id}' is not a function of the program: pass an anonymous function"
        f" (t -> ...) or the name of one defined as f(t) = ...{hint}",
        node.span,
    )


def check_arity(name: str, node, functions) -> None:
    """The function given to transformation ``name`` takes as many arguments as it is
    called with."""
    wanted = TRANSFORMATIONS[name].arity
    if isinstance(node, ir.Lambda):
        params = node.params
    elif isinstance(node, ir.Name) and node.id in functions:
        params = functions[node.id].params
    elif isinstance(node, ir.Name):
        return  # check_function_name's error
    else:
        raise GradcliError(
            f"{name} takes a function as its first argument: an anonymous function"
            " (t -> ...) or the name of one defined as f(t) = ...",
            node.span,
        )
    if len(params) != wanted:
        takes = "1 argument" if wanted == 1 else f"{wanted} arguments"
        raise GradcliTypeError(
            f"{name} calls its function with {takes}, but it takes {len(params)}", node.span
        )


# ----------------------------------------------------------------------------
# Function values
# ----------------------------------------------------------------------------


class FunctionValue:
    """A function of the program, ready to call: its parameters, its body, and the
    parameters of the user functions it was written in (their values then)."""

    __slots__ = ("body", "captured", "name", "params")

    def __init__(self, params, body, captured, name: str):
        self.params = tuple(params)
        self.body = body
        self.captured = dict(captured)
        self.name = name


def function_value(evaluator, node) -> FunctionValue:
    """The function value the argument ``node`` stands for (the checker made sure it is one)."""
    if isinstance(node, ir.Lambda):
        return FunctionValue(node.params, node.body, evaluator.locals, "the anonymous function")
    definition = evaluator.functions[node.id]
    return FunctionValue(definition.params, definition.body, {}, f"'{node.id}'")


def call(evaluator, function: FunctionValue, *args):
    """``function(*args)`` on the evaluator: the body with the parameters bound."""
    saved, outer = evaluator.locals, evaluator.operations_left
    evaluator.locals = {**function.captured, **dict(zip(function.params, args))}
    # Each call has the budget of operations a program has (--max-operations): the
    # transformation's own limits (steps, subintervals, iterations) bound the calls.
    evaluator.operations_left = evaluator.operation_limit
    try:
        return as_value(evaluator.evaluate(function.body))
    finally:
        evaluator.locals, evaluator.operations_left = saved, outer


@contextmanager
def quiet(evaluator):
    """The transformation's own evaluations record no notes, origins or sources and are
    not watched for nan: the transformation's result is, as one operation. Its own
    steps count against no budget of operations (its limits bound them; each call of
    its function has a budget of its own, ``call``)."""
    saved = evaluator.watch, evaluator.origins, evaluator.notes, evaluator.sources
    left = evaluator.operations_left
    evaluator.watch = evaluator.origins = evaluator.notes = evaluator.sources = None
    evaluator.operations_left = math.inf
    try:
        yield
    finally:
        evaluator.watch, evaluator.origins, evaluator.notes, evaluator.sources = saved
        evaluator.operations_left = left


@contextmanager
def detached(evaluator, function: FunctionValue):
    """The program's tensors cut from the graph while a search calls ``function``: its
    iterations record nothing the derivatives would meet."""
    saved_env, saved_captured = evaluator.env, function.captured
    evaluator.env = {k: _detach(v) for k, v in saved_env.items()}
    function.captured = {k: _detach(v) for k, v in saved_captured.items()}
    try:
        yield
    finally:
        evaluator.env, function.captured = saved_env, saved_captured


def _detach(value):
    return value.detach() if type(value) is Tensor or type(value) is Batched else value


def as_value(value):
    """A function's result as a tensor: a number written in its body becomes one."""
    if type(value) is Tensor or type(value) is Batched:
        return value
    return ops.tensor(float(value))


def number_of(value) -> float:
    """One number given as an option (rtol=, maxiter=), as a float."""
    if type(value) is Tensor:
        value = value.detach().numpy()
    return float(np.asarray(value))
