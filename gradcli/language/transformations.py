"""Transformations: the functions of the language that take a function.

``integrate(f, a, b)`` and ``odeint(f, y0, t)`` take a function
value (an anonymous function ``t -> exp(-p*t**2)``, or the name of one defined
as ``f(t) = ...`` or ``g = t -> ...``) and gives a tensor that is differentiable
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

from contextlib import contextmanager

from ..core.record import Record
from ..errors import Span
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
            ("a", "b"),
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
            ("y0", "t"),
            ("method",),
        ),
    )
}


def signature(name: str):
    """The checker's ``Signature`` of transformation ``name``."""
    from .check import Signature

    t = TRANSFORMATIONS[name]
    keywords = frozenset(t.positional) | {o for o, _ in t.options}
    return Signature(name, t.positional, t.required, None, keywords, (), t.shown)


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
    from .evaluate import as_tensor

    saved = evaluator.locals
    evaluator.locals = {**function.captured, **dict(zip(function.params, args))}
    try:
        return as_tensor(evaluator.evaluate(function.body))
    finally:
        evaluator.locals = saved


@contextmanager
def quiet(evaluator):
    """The transformation's own evaluations record no notes, origins or sources and are
    not watched for nan: the transformation's result is, as one operation."""
    saved = evaluator.watch, evaluator.origins, evaluator.notes, evaluator.sources
    evaluator.watch = evaluator.origins = evaluator.notes = evaluator.sources = None
    try:
        yield
    finally:
        evaluator.watch, evaluator.origins, evaluator.notes, evaluator.sources = saved


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
    return value.detach() if hasattr(value, "detach") else value


def evaluate(evaluator, node: ir.Call, span: Span):
    """The value of the transformation call ``node``."""
    given = arguments(node)
    function = function_value(evaluator, given.pop("f"))
    values = {name: evaluator.evaluate(value) for name, value in given.items()}
    with quiet(evaluator):
        if node.func == "odeint":
            from .ode import odeint

            result = odeint(evaluator, function, span, **values)
        else:
            from .quadrature import integrate

            result = integrate(evaluator, function, span, **values)
    if evaluator.origins is not None and getattr(result, "grad_fn", None) is not None:
        evaluator.origins.setdefault(result.grad_fn, (node.func, span))
    return result
