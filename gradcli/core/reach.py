"""Which inputs a derivative reaches: those used only where no derivative exists
(class indices, indices, sizes, flags, comparisons) are left out of the derivatives a
command takes by default, as PyTorch refuses a gradient to the integer tensors they
would be there.

Two steps. A walk over the program's IR follows each input's value through the
statements and notes where it meets no derivative: a parameter that the op table's
schema declares as other than a tensor (``Index``, ``int``, a size, a flag, a number),
``Tensor|Index`` (a tensor, or indices: cross_entropy's target), an op without a
derivative (``argmax``), a subscript, a comparison, ``.shape`` or a const. Those
are the reasons. Then one evaluation, with the inputs that have a reason requiring
grad, decides: an input its graph does not reach is left out. The engine's graph is the
truth (the same input may also be used where it has a derivative, and whether a target
holds class indices is known only then); the walk says why.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine.generator import seeded
from ..engine.ops import FUNCTIONS
from ..engine.ops.creation import tensor
from ..engine.tensor import Tensor
from ..errors import GradcliError
from ..language import ir
from ..language.check import BUILTIN_CONSTANTS, builtin_signature
from ..language.derivatives import FORMS
from ..language.ir import deep_recursion
from ..language.printing import to_source
from ..language.transformations import TRANSFORMATIONS, arguments

#: The schema's types whose argument keeps its derivative; ``Tensor|Index`` may not.
_DIFFERENTIABLE_TYPES = frozenset({"Tensor", "Tensor|Number", "Number|Tensor", "Tensor[]"})
_MAYBE_INDICES = "Tensor|Index"
#: The grad_fn of an overload whose backward raises, as PyTorch's (floor_divide).
_NO_DERIVATIVE = "NotImplemented"

# A flow: for each input the value depends on, (whether a derivative still reaches it
# along some path, the reasons it met no derivative on the others).
_LIVE = (True, ())


def reasons(program) -> dict[str, tuple[str, ...]]:
    """For each input that meets no derivative somewhere on its way to the output, where
    (``"as the target of cross_entropy (indices)"``); an input used also where it has a
    derivative is among them too (the graph decides, see ``left_out``)."""
    with deep_recursion():
        flow = _Walk(program).run()
    return {name: why for name, (_, why) in flow.items() if why}


def left_out(program, run, candidates) -> dict[str, str]:
    """The inputs among ``candidates`` (names with ``reasons``) that the output's graph does
    not reach, each with the sentence that says why. ``run(names)`` evaluates the program
    with those inputs requiring grad and returns ``(output, leaves by name)``."""
    found = reasons(program)
    names = [n for n in candidates if n in found]
    if not names:
        return {}
    out, leaves = run(names)
    reached = _reached(out)
    return {
        name: f"it is used only {' and '.join(found[name])}, where it has no derivative"
        for name in names
        if id(leaves[name]) not in reached
    }


def note(name: str, why: str) -> str:
    """The note that an input is left out (``why``, from ``left_out``), and how to take it."""
    return f"{name} is left out: {why} (name it with --wrt to differentiate)"


def _reached(out) -> set[int]:
    """The ids of the leaf tensors the graph of ``out`` reaches along edges that carry a
    derivative (an edge whose rule is None, or raises, carries none)."""
    if type(out) is not Tensor or not out.requires_grad:
        return set()
    if out.grad_fn is None:
        return {id(out)}
    found, seen, stack = set(), set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        op = getattr(node, "op", None)
        rules = None if op is None or op.variadic else op.rules
        dead = op is not None and op.grad_fn == _NO_DERIVATIVE
        for i, parent in enumerate(getattr(node, "parents", ())):
            if (
                parent is None
                or dead
                or (rules is not None and i < len(rules) and rules[i] is None)
            ):
                continue
            if type(parent) is Tensor:
                found.add(id(parent))
            elif id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return found


def _merge(*flows) -> dict:
    found = [flow for flow in flows if flow]
    if not found:
        return {}
    first = found[0]
    if all(flow is first or flow == first for flow in found[1:]):
        return first  # flows are never changed in place: one may stand for all
    merged: dict = {}
    for flow in found:
        for name, (live, why) in flow.items():
            if name in merged:
                was_live, was = merged[name]
                merged[name] = (live or was_live, was + tuple(w for w in why if w not in was))
            else:
                merged[name] = (live, why)
    return merged


def _cut(flow: dict, reason: str, keep_live: bool = False) -> dict:
    """``flow`` past a place with no derivative: the inputs still live there get ``reason``
    (and stay live when ``keep_live``: a place that may have one)."""
    return {
        name: (keep_live, why if reason in why else why + (reason,)) if live else (live, why)
        for name, (live, why) in flow.items()
    }


class _Walk:
    """The flow of every name, statement by statement, as the evaluator runs them."""

    def __init__(self, program):
        self.program = program
        self.env: dict[str, dict] = {}
        self.locals: dict[str, dict] | None = None
        self.functions: dict[str, ir.FuncDef] = {}
        #: A call's flow by its function and its arguments' flows, within one statement
        #: (the names a body reads outside its parameters change between statements):
        #: a function that calls another twice is walked once per flow, not twice.
        self.calls: dict = {}

    def run(self) -> dict:
        analysis = self.program.analysis
        for name in analysis.free:
            self.env[name] = {name: _LIVE}
        result: dict = {}
        for i, node in enumerate(self.program.ir.statements):
            flow = self.statement(i, node)
            if i == analysis.result:
                result = flow
        return result

    def statement(self, i: int, node, top: bool = True) -> dict:
        self.calls.clear()  # the names the functions' bodies read may change with each
        analysis = self.program.analysis
        if isinstance(node, ir.Assign):
            defining = top and analysis.input_statements.get(node.name) == i
            flow = {node.name: _LIVE} if defining else self.expr(node.value)
            self.env[node.name] = flow
        elif isinstance(node, ir.ConstDecl):
            flow = _cut(self.expr(node.value), f"in the const {node.name}")
            self.env[node.name] = flow
        elif isinstance(node, ir.IndexAssign):
            key = _cut(self.subscripts(node.subscripts), "as an index")
            flow = _merge(self.env.get(node.name, {}), self.expr(node.value), key)
            self.env[node.name] = flow
        elif isinstance(node, ir.FuncDef):
            self.functions[node.name] = node
            flow = {}
        elif isinstance(node, ir.COMPOUND):
            self.control(node)
            flow = {}
        elif isinstance(node, (ir.Break, ir.Continue)):
            flow = {}
        else:
            flow = self.expr(node)
        return flow

    def control(self, node) -> None:
        """A loop or an if: what its bodies assign depends on its condition (or range)
        too, where no derivative exists; a loop's body is walked twice, so that what one
        step assigns reaches the next."""
        if isinstance(node, ir.For):
            guard = _cut(_merge(*(self.expr(a) for a in node.args)), "in a loop's range")
            self.env[node.var] = guard
        else:
            guard = _cut(self.expr(node.test), "in a condition")
        before = dict(self.env)
        loop = not isinstance(node, ir.If)
        branches = (node.body,) if loop else (node.body, node.orelse)
        merged = dict(before)
        for body in branches:
            self.env = dict(before)
            for _ in range(2 if loop else 1):
                for statement in body:
                    self.statement(-1, statement, top=False)
            for name, flow in self.env.items():
                if flow is not before.get(name):
                    merged[name] = _merge(merged.get(name, {}), flow, guard)
        self.env = merged

    def IfExp(self, node: ir.IfExp) -> dict:
        guard = _cut(self.expr(node.test), "in a condition")
        return _merge(self.expr(node.body), self.expr(node.orelse), guard)

    # ----- expressions -----

    def expr(self, node) -> dict:
        return getattr(self, type(node).__name__)(node)

    def Num(self, node) -> dict:
        return {}

    Str = Numbers = Num

    def Name(self, node: ir.Name) -> dict:
        if self.locals is not None and node.id in self.locals:
            return self.locals[node.id]
        return self.env.get(node.id, {})

    def UnaryOp(self, node: ir.UnaryOp) -> dict:
        return self.expr(node.operand)

    def BinOp(self, node: ir.BinOp) -> dict:
        return _merge(self.expr(node.left), self.expr(node.right))

    def Chain(self, node: ir.Chain) -> dict:
        # Every operator keeps a derivative: x // y is piecewise constant, as floor is, so
        # the language gives it 0 (PyTorch's backward raises), rather than none.
        flow = self.expr(node.first)
        for operand in node.rest:
            flow = _merge(flow, self.expr(operand))
        return flow

    def Compare(self, node: ir.Compare) -> dict:
        operands = [self.expr(n) for n in (node.first, *node.rest)]
        return _cut(_merge(*operands), "in a comparison")

    def Call(self, node: ir.Call) -> dict:
        function = self.functions.get(node.func)
        if function is not None:
            return self.call_user(function, node)
        if node.func in FORMS:  # grad(F, x): a derivative of F, through x
            return _merge(*(self.expr(a) for a in node.args))
        if node.func in TRANSFORMATIONS:
            return self.transformation(node)
        return self.call(node.func, node.args, node.keywords)

    def transformation(self, node: ir.Call) -> dict:
        """The flow through integrate, root or minimizer: everything its function reads;
        the arguments the table says it is differentiable in (integrate's limits, odeint's
        y0 and t) too, but not a starting point or a tolerance."""
        given = arguments(node)
        function = given.pop("f")
        if isinstance(function, ir.Lambda):
            params, body, captured = function.params, function.body, self.locals or {}
        else:
            definition = self.functions[function.id]
            params, body, captured = definition.params, definition.body, {}
        saved, self.locals = self.locals, {**captured, **{p: {} for p in params}}
        try:
            flows = [self.expr(body)]
        finally:
            self.locals = saved
        for name, value in given.items():
            flow = self.expr(value)
            if name not in TRANSFORMATIONS[node.func].through:
                flow = _cut(flow, f"as the {name} of {node.func}")
            flows.append(flow)
        return _merge(*flows)

    def Method(self, node: ir.Method) -> dict:
        return self.call(node.name, node.args, node.keywords, self.expr(node.obj))

    def Attr(self, node: ir.Attr) -> dict:
        flow = self.expr(node.obj)
        return _cut(flow, "through its shape") if node.name == "shape" else flow

    def Index(self, node: ir.Index) -> dict:
        key = _cut(self.subscripts(node.subscripts), "as an index")
        return _merge(self.expr(node.obj), key)

    def ListLit(self, node: ir.ListLit) -> dict:
        return _merge(*(self.expr(item) for item in node.items))

    def subscripts(self, subscripts) -> dict:
        parts = []
        for s in subscripts:
            parts.extend(ir.children(s) if isinstance(s, ir.Slice) else (s,))
        return _merge(*(self.expr(part) for part in parts))

    def call_user(self, function: ir.FuncDef, node: ir.Call) -> dict:
        values = dict(zip(function.params, (self.expr(a) for a in node.args)))
        values.update((k.name, self.expr(k.value)) for k in node.keywords)
        key = (function.name, *((n, tuple(f.items())) for n, f in sorted(values.items())))
        if key not in self.calls:
            saved, self.locals = self.locals, values
            try:
                self.calls[key] = self.expr(function.body)
            finally:
                self.locals = saved
        return self.calls[key]

    def call(self, name: str, arg_nodes, keyword_nodes, receiver=None) -> dict:
        entry = FUNCTIONS[name]
        sig = builtin_signature(name)
        types = _parameter_types(name)
        flows = [] if receiver is None else [receiver]
        flows += [self.expr(a) for a in arg_nodes]
        params = list(sig.positional)
        params += [sig.variadic] * max(0, len(flows) - len(params))
        given = list(zip(params, flows))
        given += [(sig.canonical(k.name), self.expr(k.value)) for k in keyword_nodes]
        return _merge(*(self.argument(entry, p, types.get(p), flow) for p, flow in given))

    def argument(self, entry, param: str, type_: str | None, flow: dict) -> dict:
        """The flow of one argument into the call's result."""
        if not flow or type_ is None:
            return flow
        if type_ == _MAYBE_INDICES:
            return _cut(flow, f"as the {param} of {entry.name} (indices)", keep_live=True)
        if type_ not in _DIFFERENTIABLE_TYPES:
            return _cut(flow, f"as the {param} of {entry.name}")
        if not _has_derivative(entry.name, param):
            return _cut(flow, f"in {entry.name}")
        return flow


_TYPES: dict[str, dict] = {}


def _parameter_types(name: str) -> dict:
    """Each parameter's declared type, by name, as the language calls the function."""
    types = _TYPES.get(name)
    if types is None:
        types = _TYPES[name] = {p.name: p.type for p in FUNCTIONS[name].schema.params}
        form = FUNCTIONS[name].language_form
        if form is not None:  # a form may add parameters (log's base)
            types.update((p.name, p.type) for p in form.schema.params)
    return types


@functools.cache
def _has_derivative(name: str, param: str) -> bool:
    """Whether some overload of the function ``name`` has a rule for ``param``; a
    composite (which calls other ops) is taken to have one, and the graph decides."""
    entry = FUNCTIONS[name]
    if hasattr(entry.call, "__wrapped__"):
        return True
    names = entry.schema.names
    i = names.index(param) if param in names else None
    for overload in entry.overloads:
        if overload.grad_fn == _NO_DERIVATIVE:
            continue
        if entry.variadic or i is None or i >= len(overload.rules):
            return True
        if overload.rules[i] is not None:
            return True
    return False


def left_out_of(s, candidates) -> dict[str, str]:
    """``left_out`` for the evaluation ``s``: the inputs among ``candidates`` that its
    output reaches through no derivative."""

    def run(names):
        leaves = s.leaves(names)
        # An input that varies enters this one run, which only decides which ops the
        # graph records, as zeros of its shape at a point; no result is computed here.
        for name, (shape, dtype) in s.varying.items():
            leaves[name] = tensor(np.zeros(shape, dtype), requires_grad=name in names)
        return s.program.run(leaves, generator=seeded(s.seed), dtype=s.dtype), leaves

    try:
        return left_out(s.program, run, candidates)
    except GradcliError:
        return {}  # the program fails here: the command's own evaluation will say so


# ----------------------------------------------------------------------------
# Inputs whose value is a size
# ----------------------------------------------------------------------------

#: The functions (and methods) whose value is a size of their argument, never its entries.
_SIZE_FUNCTIONS = frozenset({"numel", "len"})


def sizes(program) -> dict[str, str]:
    """The inputs whose value is a size: defined by ``numel``, ``len`` or ``.shape`` of
    anything, or by arithmetic on such sizes and numbers alone (``numel(y) - 1``,
    ``y.shape[0]``), each with its definition. A size is data about the program's
    arrays, not a parameter: ``minimize`` and ``solve`` never vary one by default."""
    found: dict[str, str] = {}
    statements = program.analysis.input_statements
    with deep_recursion():
        for i, node in enumerate(program.ir.statements):
            if isinstance(node, ir.Assign) and statements.get(node.name) == i:
                if _size_of(node.value, found) is True:
                    found[node.name] = to_source(node.value)
    return found


def _size_of(node, found) -> bool | None:
    """True for an expression computed from sizes (and numbers), False for numbers
    alone, None for anything else."""
    if isinstance(node, (ir.Num, ir.Numbers, ir.Str)):
        return False
    if isinstance(node, ir.Name):
        return True if node.id in found else (False if node.id in BUILTIN_CONSTANTS else None)
    if isinstance(node, (ir.Call, ir.Method)):
        return _call_size(node, found)
    if isinstance(node, ir.Attr):
        return True if node.name == "shape" else _size_of(node.obj, found)
    if isinstance(node, ir.Index):
        return _index_size(node, found)
    if isinstance(node, ir.UnaryOp):
        return _size_of(node.operand, found)
    if isinstance(node, ir.BinOp):
        return _all_sizes([node.left, node.right], found)
    if isinstance(node, ir.Chain):
        return _all_sizes([node.first, *node.rest], found)
    if isinstance(node, ir.ListLit):
        return _all_sizes(node.items, found)
    return None


def _call_size(node, found) -> bool | None:
    """``numel(y)`` and ``len(y)`` are sizes; a table function of sizes is one too."""
    name = node.func if isinstance(node, ir.Call) else node.name
    if name in _SIZE_FUNCTIONS:
        return True
    if isinstance(node, ir.Call) and name not in FUNCTIONS:
        return None  # a function of the program's own
    parts = [*node.args, *(k.value for k in node.keywords)]
    return _all_sizes([*((node.obj,) if isinstance(node, ir.Method) else ()), *parts], found)


def _index_size(node, found) -> bool | None:
    """``y.shape[0]``: an entry of a size, by subscripts that are sizes or numbers."""
    parts = [
        p for s in node.subscripts for p in (ir.children(s) if isinstance(s, ir.Slice) else (s,))
    ]
    if any(_size_of(p, found) is None for p in parts if p is not None):
        return None
    return _size_of(node.obj, found)


def _all_sizes(nodes, found) -> bool | None:
    kinds = [_size_of(n, found) for n in nodes]
    if any(kind is None for kind in kinds):
        return None
    return any(kinds)
