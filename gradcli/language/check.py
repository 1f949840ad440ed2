"""Static checks of a parsed program, before anything is computed.

One pass over the statements in order finds every mistake that does not depend
on values: unknown functions and methods, wrong numbers of arguments, keywords
a function does not take, assignment to a constant, use of a name before its
assignment, a function calling itself, and calls of user functions that would
nest deeper than ``NESTING_LIMIT`` once the functions' bodies are counted. It
also classifies the names: *inputs* (assigned a constant expression, or free)
that commands differentiate with respect to, *free* inputs that need a value
from outside, and ``const`` names.

Expressions are visited with the iterative ``ir.walk``, so no check recurses.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TYPE_CHECKING

from ..engine.ops import FUNCTIONS, OPERATORS, OPS
from ..errors import GradcliError, Span
from ..record import Record
from . import ir
from .derivatives import FORMS, PARAMETERS, target_error
from .ir import NESTING_LIMIT
from .operators import SYMBOLS, UNARY_OPS
from .signatures import (
    Signature,
    bind,
    builtin_signature,
    suggest,
    transformation_signature,
    user_signature,
)
from .transformations import (
    TRANSFORMATIONS,
    check_anonymous_function,
    check_arity,
    check_function_name,
    check_parameters,
    function_argument,
    text_arguments,
)

if TYPE_CHECKING:
    pass

BUILTIN_CONSTANTS = {
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
    "True": 1,
    "False": 0,
}
#: Attributes that are not calls: the entries the language reads as attributes, and a
#: tensor's shape; everything else after a dot must be a method call.
ATTRIBUTES = (*(n for n, e in OPS.items() if e.attribute == "language"), "shape")

# Parameters of the op table the language does not expose: it computes in one dtype,
# on the CPU, and draws random numbers from its evaluation's generator.
#: Names people reach for (NumPy's, SciPy's, a calculator's: each entry's ``other_names``),
#: and the op's ``aliases``, to the function of the language that does it or comes closest.
#: An alias is suggested only while its target is a function of the op table, and only for a
#: name that is not a function itself (a name that becomes one is never looked up here).
FUNCTION_ALIASES = {
    other: entry.name
    for entry in FUNCTIONS.values()
    for other in (*entry.aliases, *entry.other_names)
}
#: Names of operations the language writes as operators, with how to write them.
OPERATOR_ALIASES = {
    word: f"{SYMBOLS[name]}x" if name in UNARY_OPS.values() else f"a {SYMBOLS[name]} b"
    for name, entry in OPERATORS.items()
    if name not in FUNCTIONS
    for word in (name, *entry.other_names)
}
# Near names among the built-in functions: close enough that gamma never meets amax.
_NEAR_FUNCTION = 0.75


def suggest_function(name: str, user_functions=()) -> str:
    """`` (did you mean 'log'?)`` for a function the language lacks: an alias whose
    target exists, an operator, else a near name; or the empty string."""
    target = FUNCTION_ALIASES.get(name) or FUNCTION_ALIASES.get(name.lower())
    if target is not None and target in FUNCTIONS:
        return f" (did you mean '{target}'?)"
    if name in OPERATOR_ALIASES:
        return f" (write {OPERATOR_ALIASES[name]})"
    if name.lower() in FUNCTIONS:
        return f" (did you mean '{name.lower()}'?)"
    return suggest(name, FUNCTIONS, _NEAR_FUNCTION) or suggest(name, user_functions)


#: Module names that Python code puts before a function (np.sin, F.softmax): the
#: language's functions have none.
MODULE_PREFIXES = frozenset(
    {
        "np",
        "numpy",
        "math",
        "cmath",
        "torch",
        "F",
        "nn",
        "functional",
        "jnp",
        "jax",
        "scipy",
        "special",
        "sp",
        "sympy",
        "tf",
    }
)


def name_span(span: Span, name: str) -> Span:
    """The span of the name at the start of ``span`` (a call's function name)."""
    return Span(span.line, span.column, span.line, span.column + len(name) - 1)


# ----------------------------------------------------------------------------
# The pass over a program
# ----------------------------------------------------------------------------


class Analysis(Record):
    """What the checker learned about a program's names."""

    inputs: tuple[str, ...]
    free: tuple[str, ...]
    constants: tuple[str, ...]
    #: For each input with a value in the program, the statement that assigns it.
    input_statements: dict[str, int]
    #: Where each free name is first used (for "unknown name" errors).
    free_spans: dict[str, Span]
    #: The statement whose value is the program's result.
    result: int
    #: For a free name used as a Python module prefix (``np.sin(z)``), the error that
    #: explains it, raised if the name gets no value (an input may be named F).
    module_errors: dict[str, GradcliError]
    #: The names a derivative is taken with respect to (``grad(F, x)``'s x): the evaluator
    #: tracks them (``derivatives.tracked``), and a program with any runs with grad mode on.
    tracked: frozenset[str] = frozenset()


def check(program: ir.Program, inputs: Collection[str] = ()) -> Analysis:
    """Check ``program``; raise the first GradcliError in source order.

    ``inputs``: built-in constants to read as inputs for this run (``--e 3`` binds an
    input named e, a physicist's charge, rather than failing on the constant).
    """
    return _Checker(program, frozenset(inputs)).run()


class _Checker:
    def __init__(self, program: ir.Program, inputs: frozenset[str] = frozenset()):
        self.program = program
        self.builtins = frozenset(BUILTIN_CONSTANTS) - inputs
        self.assigned_somewhere = {
            node.var if isinstance(node, ir.For) else node.name
            for s in program.statements
            for node in ir.walk(s)
            if isinstance(node, (ir.Assign, ir.ConstDecl, ir.For))
        }
        # How many loops, and how many bodies of loops and branches, hold the statement
        # being checked.
        self.loops = 0
        self.blocks = 0
        self.defined: set[str] = set()
        self.constants: dict[str, None] = {}
        self.functions: dict[str, ir.FuncDef] = {}
        self.function_globals: dict[str, frozenset[str]] = {}
        # How many levels a call of each user function adds: its body's nesting,
        # including the functions that body calls.
        self.function_depths: dict[str, int] = {}
        self.function_names = {s.name for s in program.statements if isinstance(s, ir.FuncDef)}
        self.inputs: dict[str, None] = {}
        self.input_statements: dict[str, int] = {}
        self.free_spans: dict[str, Span] = {}
        self.module_errors: dict[str, GradcliError] = {}
        self.tracked: set[str] = set()

    def run(self) -> Analysis:
        result = None
        for i, statement in enumerate(self.program.statements):
            self.statement(i, statement)
            if not isinstance(statement, ir.FuncDef):
                result = i
        if result is None:
            last = self.program.statements[-1]
            raise GradcliError(
                "the program only defines functions: add an expression to compute", last.span
            )
        last = self.program.statements[result]
        if isinstance(last, ir.COMPOUND):
            raise GradcliError(
                "the program ends with a loop or an if, which has no value: add the"
                " expression to compute after it",
                last.span,
            )
        return Analysis(
            inputs=tuple(self.inputs),
            free=tuple(n for n in self.inputs if n in self.free_spans),
            constants=tuple(self.constants),
            input_statements=self.input_statements,
            free_spans=self.free_spans,
            module_errors=self.module_errors,
            result=result,
            tracked=frozenset(self.tracked),
        )

    # ----- statements -----

    def statement(self, i: int, node) -> None:
        self.check_statement(i, node)
        if not isinstance(node, ir.FuncDef):
            self.nesting(node, 1)  # the program is level 0, its statements level 1

    def check_statement(self, i: int, node) -> None:
        if isinstance(node, ir.COMPOUND + (ir.Break, ir.Continue)):
            self.control(i, node)
        elif self.blocks and isinstance(node, (ir.FuncDef, ir.ConstDecl)):
            what = "a function" if isinstance(node, ir.FuncDef) else "a const"
            raise GradcliError(
                f"{what} is declared at the top level, not in the body of a for, while or if",
                node.span,
            )
        elif isinstance(node, ir.Assign):
            self.expression(node.value)
            self.assignable(node.name, node.span)
            # In a body, an assignment computes a value: never an input's definition.
            if (
                not self.blocks
                and node.name not in self.defined
                and not self.global_names(node.value)
            ):
                self.inputs[node.name] = None
                self.input_statements[node.name] = i
            self.defined.add(node.name)
        elif isinstance(node, ir.IndexAssign):
            self.assignable(node.name, node.span)
            self.use(ir.Name(node.name, name_span(node.span, node.name)), frozenset())
            for sub in node.subscripts:
                self.expression(sub)
            self.expression(node.value)
        elif isinstance(node, ir.FuncDef):
            self.function_definition(node)
        elif isinstance(node, ir.ConstDecl):
            self.expression(node.value)
            if node.name in BUILTIN_CONSTANTS:
                raise GradcliError(f"'{node.name}' is a built-in constant already", node.span)
            if node.name in self.constants:
                raise GradcliError(f"'{node.name}' is already declared const", node.span)
            if node.name in self.defined:
                raise GradcliError(
                    f"'{node.name}' is already assigned: it cannot become const", node.span
                )
            self.constant_value(node)
            self.constants[node.name] = None
            self.defined.add(node.name)
        else:
            self.expression(node)

    def control(self, i: int, node) -> None:
        """A loop, an if, a break or a continue, and the statements of its bodies."""
        if isinstance(node, (ir.Break, ir.Continue)):
            if not self.loops:
                word = "break" if isinstance(node, ir.Break) else "continue"
                raise GradcliError(f"'{word}' outside a loop", node.span)
            return
        loop = not isinstance(node, ir.If)
        if isinstance(node, ir.For):
            for arg in node.args:
                self.expression(arg)
            self.assignable(node.var, node.var_span)
            self.defined.add(node.var)
        else:
            self.expression(node.test)
        self.loops += loop
        self.blocks += 1
        try:
            for statement in (*node.body, *getattr(node, "orelse", ())):
                self.check_statement(i, statement)
        finally:
            self.loops -= loop
            self.blocks -= 1

    def constant_value(self, node: ir.ConstDecl) -> None:
        variables = self.global_names(node.value)
        for item in ir.walk(node.value):
            if isinstance(item, ir.Name) and item.id in variables:
                used, span = item.id, item.span
            elif (
                isinstance(item, ir.Name) and self.function_globals.get(item.id, set()) & variables
            ):
                used, span = sorted(self.function_globals[item.id] & variables)[0], item.span
            elif (
                isinstance(item, ir.Call)
                and self.function_globals.get(item.func, set()) & variables
            ):
                used = sorted(self.function_globals[item.func] & variables)[0]
                span = name_span(item.span, item.func)
            else:
                continue
            raise GradcliError(
                f"const '{node.name}' must not depend on '{used}', which is not a constant", span
            )

    def assignable(self, name: str, span: Span) -> None:
        if name in BUILTIN_CONSTANTS:
            raise GradcliError(f"cannot assign to the built-in constant '{name}'", span)
        if name in self.constants:
            raise GradcliError(f"cannot assign to '{name}': it is declared const", span)

    def function_definition(self, node: ir.FuncDef) -> None:
        if node.name in FUNCTIONS or node.name in FORMS or node.name in TRANSFORMATIONS:
            raise GradcliError(
                f"cannot redefine the built-in function '{node.name}'",
                name_span(node.span, node.name),
            )
        check_parameters(node.params, node.param_spans, BUILTIN_CONSTANTS)
        params = frozenset(node.params)
        self.expression(node.body, params, node.name)
        self.function_globals[node.name] = frozenset(self.global_names(node.body, params))
        self.function_depths[node.name] = self.nesting(node.body, 1)
        self.functions[node.name] = node

    # ----- expressions -----

    def expression(self, expr, params=frozenset(), function: str | None = None) -> None:
        arguments = set()  # the nodes that are arguments of built-in functions
        values = set()  # the nodes that are the function arguments of transformations
        for node, scope in scoped_walk(expr, params):
            if isinstance(node, ir.Call) and node.func in FUNCTIONS or isinstance(node, ir.Method):
                arguments.update(id(a) for a in node.args)
                arguments.update(id(k.value) for k in node.keywords)
            arguments.update(text_arguments(node))  # odeint's method="radau"
            if isinstance(node, ir.Lambda):
                check_anonymous_function(node, id(node) in values, BUILTIN_CONSTANTS)
            elif isinstance(node, ir.Name):
                if id(node) in values:
                    check_function_name(node, scope, self.functions, self.function_names)
                else:
                    self.use(node, scope)
            elif isinstance(node, ir.Call):
                self.call(node, scope, function)
                if node.func in TRANSFORMATIONS and node.func not in self.functions:
                    given = function_argument(node)
                    values.add(id(given))
                    check_arity(node.func, given, self.functions)
            elif isinstance(node, ir.Method):
                self.method(node, scope)
            elif isinstance(node, ir.Attr):
                self.attribute(node, scope)
            elif isinstance(node, ir.Str) and id(node) not in arguments:
                raise GradcliError(
                    'text in quotes is only an argument of a function, as in reduction="sum"',
                    node.span,
                )

    def is_variable(self, name: str, params) -> bool:
        """Whether ``name`` is an input or a computed variable (not a constant)."""
        return name not in params and name not in self.builtins and name not in self.constants

    def use(self, node: ir.Name, params) -> None:
        name = node.id
        if name in params or name in self.builtins or name in self.defined:
            return
        if name in self.assigned_somewhere:
            raise GradcliError(f"'{name}' is used before it is assigned", node.span)
        if name not in self.inputs:
            self.inputs[name] = None
            self.free_spans[name] = node.span

    def call(self, node: ir.Call, params, function: str | None) -> None:
        span = name_span(node.span, node.func)
        if node.func == function:
            raise GradcliError(
                f"function '{function}' calls itself: recursion is not supported", span
            )
        if node.func in self.functions:
            bind(user_signature(self.functions[node.func]), len(node.args), node.keywords, span)
        elif node.func in FORMS:
            self.derivative(node, span)
        elif node.func in TRANSFORMATIONS:
            bind(transformation_signature(node.func), len(node.args), node.keywords, span)
        elif node.func in FUNCTIONS:
            bind(builtin_signature(node.func), len(node.args), node.keywords, span)
        elif node.func in self.function_names:
            raise GradcliError(f"function '{node.func}' is used before it is defined", span)
        elif node.func in params or node.func in self.defined or node.func in self.inputs:
            raise GradcliError(
                f"'{node.func}' is not a function: to multiply, write {node.func}*(...)", span
            )
        else:
            hint = suggest_function(node.func, [*self.functions, *FORMS])
            raise GradcliError(f"unknown function '{node.func}'{hint}", span)

    def derivative(self, node: ir.Call, span: Span) -> None:
        """``grad(F, x)``: two arguments, the second a name, which is then tracked."""
        shown = f"({', '.join(PARAMETERS)})"
        sig = Signature(node.func, PARAMETERS, len(PARAMETERS), None, frozenset(), (), shown)
        bind(sig, len(node.args), node.keywords, span)
        target = node.args[1]
        if not isinstance(target, ir.Name) or target.id in self.builtins:
            raise target_error(node.func, target.span)
        self.tracked.add(target.id)

    def module_prefix(self, node: ir.Method | ir.Attr, params) -> None:
        """``np.sin(z)``, ``F.softmax(z)``, ``math.pi``: Python's module prefixes, which
        the language's functions and constants do without. Raised at once where the
        method or attribute would fail anyway; else kept in case the name gets no
        value (``F.sum()`` of an input named F is a method call)."""
        root, prefix = node.obj, []
        while isinstance(root, ir.Attr):
            prefix.append(root.name)
            root = root.obj
        if not isinstance(root, ir.Name) or root.id not in MODULE_PREFIXES:
            return
        if root.id in params or root.id in self.defined or root.id in self.constants:
            return
        written = ".".join([root.id, *reversed(prefix)]) + "."
        span = Span(
            root.span.line, root.span.column, node.name_span.end_line, node.name_span.end_column
        )
        name = node.name
        if isinstance(node, ir.Attr):
            if name in BUILTIN_CONSTANTS:
                fix = f"write {name}"
            else:
                fix = f"gradcli has no constant '{name}'"
        elif name in FUNCTIONS:
            fix = f"write {name}(...)"
        else:
            fix = f"gradcli has no function '{name}'{suggest_function(name)}"
        error = GradcliError(
            f"'{written}{name}': gradcli's functions and constants take no module prefix:"
            f" drop '{written}'; {fix}",
            span,
        )
        if isinstance(node, ir.Attr):
            fails = name not in ATTRIBUTES
        elif not is_method(name):
            fails = True
        else:
            try:
                bind(builtin_signature(name), 1 + len(node.args), node.keywords, span)
                fails = False
            except GradcliError:
                fails = True
        if fails:
            raise error
        self.module_errors.setdefault(root.id, error)

    def method(self, node: ir.Method, params=frozenset()) -> None:
        self.module_prefix(node, params)
        if not is_method(node.name):
            raise _attribute_error(node.name, node.name_span, called=True)
        sig = builtin_signature(node.name)
        bind(sig, 1 + len(node.args), node.keywords, node.name_span)

    def attribute(self, node: ir.Attr, params=frozenset()) -> None:
        self.module_prefix(node, params)
        if node.name not in ATTRIBUTES:
            raise _attribute_error(node.name, node.name_span, called=False)

    def nesting(self, node, level: int) -> int:
        """The deepest level evaluating ``node`` at ``level`` reaches, the bodies of the
        user functions it calls included; raise past ``NESTING_LIMIT``.

        The parser bounds each expression as written; this bounds what the evaluator's
        recursion meets when one function calls another, which calls another, ...
        """
        deepest = level
        stack = [(node, level)]
        while stack:
            item, depth = stack.pop()
            deepest = max(deepest, depth)
            if isinstance(item, ir.Call) and item.func in self.function_depths:
                reach = depth + self.function_depths[item.func]
                if reach > NESTING_LIMIT:
                    raise GradcliError(
                        f"expression nested too deeply (limit {NESTING_LIMIT}):"
                        f" calling '{item.func}' here nests {reach} levels",
                        name_span(item.span, item.func),
                    )
                deepest = max(deepest, reach)
            stack.extend((child, depth + 1) for child in ir.children(item))
        return deepest

    def global_names(self, expr, params=frozenset()) -> set[str]:
        """The non-constant names ``expr`` reads, through the user functions it calls."""
        names = set()
        for node, scope in scoped_walk(expr, params):
            if isinstance(node, ir.Name) and node.id in self.function_globals:
                names |= self.function_globals[node.id]  # a function passed by its name
            elif isinstance(node, ir.Name) and self.is_variable(node.id, scope):
                names.add(node.id)
            elif isinstance(node, ir.Call) and node.func in self.function_globals:
                names |= self.function_globals[node.func]
        return names


def scoped_walk(expr, params=frozenset()):
    """``(node, names)`` for every node under ``expr`` as ``ir.walk`` yields them, with the
    parameters in scope there: an anonymous function's own are in scope in its body."""
    stack = [(expr, frozenset(params))]
    while stack:
        node, scope = stack.pop()
        yield node, scope
        if isinstance(node, ir.Lambda):
            scope = scope | frozenset(node.params)
        stack.extend((child, scope) for child in reversed(ir.children(node)))


def is_method(name: str) -> bool:
    """Whether ``x.name(...)`` is allowed: the engine's functions, but no constructors."""
    function = FUNCTIONS.get(name)
    return function is not None and (function.kind != "constructor" or name.endswith("_like"))


def _attribute_error(name: str, span: Span, called: bool) -> GradcliError:
    if name.startswith("_"):
        return GradcliError(f"attribute '{name}' is not accessible", span)
    if not called and is_method(name):
        return GradcliError(f"'{name}' is a method: write .{name}()", span)
    if called and name in ATTRIBUTES:
        return GradcliError(f"'{name}' is not a method: write .{name} without brackets", span)
    methods = [n for n in FUNCTIONS if is_method(n)] + list(ATTRIBUTES)
    return GradcliError(f"unknown method '{name}'{suggest(name, methods)}", span)
