"""Evaluation of checked IR on the autograd engine.

Names bind to Tensors; every operator and call goes to the engine, so the
result carries a graph the commands differentiate. Number literals stay Python
numbers until an operator needs a tensor (so ``x**2`` records PyTorch's
``PowBackward0``, not the tensor-exponent form), and become tensors of the
default dtype. A list literal is ``stack`` of its entries, so its entries may
be differentiable expressions. Comparisons give 0/1 in the default dtype with
no gradient.

An engine error raised while evaluating a node gets that node's span: a binary
operator's error points at the operator, a call's at the function name, an
indexing error at the subscripts.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..engine import limits, ops
from ..engine.batched_values import Batched
from ..engine.dtypes import complex_of
from ..engine.explain import kink
from ..engine.multiprecision import ACTIVE
from ..engine.ops import FUNCTIONS, OPERATORS
from ..engine.state import default_dtype as _engine_default_dtype
from ..engine.state import enable_grad, no_grad
from ..engine.tensor import Tensor
from ..errors import GradcliError, GradcliIndexError, GradcliTypeError, Span, out_of_memory
from . import derivatives, ir
from .check import (
    BUILTIN_CONSTANTS,
    builtin_signature,
    name_span,
    suggest,
)
from .control import ControlFlow, Jump
from .exact_numbers import exact_constant, exact_number, exact_tensor
from .function_calls import FunctionsOfFunctions
from .operators import PYTHON
from .subscripts import (
    blame_subscript,
    checked_integer,
    checked_integer_list,
    checked_integers,
    fitted_shape,
    subscripts_span,
)
from .transformations import TRANSFORMATIONS


def _cut(entry):
    """The operator of ``entry`` cut from the graph (``language_constant``): ``a // b`` has
    torch.floor_divide's values, piecewise constant as floor is, so its derivative is 0
    (PyTorch has no rule for it and raises in backward)."""
    python = PYTHON[entry.name]

    def cut(*operands):
        with no_grad():
            return python(*operands)

    cut.op = entry  # the op it stands for, as an entry's own function names it
    return cut


#: Each operator's function: Python's (``operator.add``), or cut from the graph.
_OPERATORS = {
    name: _cut(entry) if entry.language_constant else PYTHON[name]
    for name, entry in OPERATORS.items()
}

# The types of the op table's schemas that the language converts its values to.
INTEGER_TYPES = frozenset({"int"})
INTEGER_OR_LIST_TYPES = frozenset({"int[]", "int|int[]", "int|Tensor"})
_NUMBER_TYPES = frozenset({"Number", "float"})
# A number, or a tensor that requires grad: then it is differentiated (clamp's bounds).
_BOUND_TYPES = frozenset({"Number|Tensor"})
_SEQUENCE_TYPES = frozenset({"Tensor[]"})
# An op's operand that may be a number: pow(2, x), atan2(1, x).
_OPERAND_TYPES = frozenset({"Tensor|Number"})
#: What ``x.name`` computes, for each name of check.ATTRIBUTES: the entry's function, or
#: a constant, the sizes as numbers of the default dtype like every number.
TENSOR_ATTRIBUTES = {
    **{name: entry.call for name, entry in ops.OPS.items() if entry.attribute == "language"},
    "shape": lambda x: ops.tensor(np.array(x.shape, dtype=default_dtype())),
}
# Parameters that name axes: an axis out of range puts the caret on one of them.
_AXIS_PARAMETERS = frozenset(
    {"dim", "axis", "dim0", "dim1", "start_dim", "end_dim", "dims", "source", "destination"}
)


def default_dtype() -> np.dtype:
    return _engine_default_dtype()


def as_tensor(value) -> Tensor:
    """``value`` as a Tensor (a Batched one as it is); numbers: 0-d, of the default dtype."""
    if type(value) is Tensor or type(value) is Batched:
        return value
    if isinstance(value, (int, float)):
        return exact_tensor(value) if ACTIVE[0] else ops.tensor(float(value))
    array = np.asarray(value)
    if array.dtype.kind == "f":
        array = array.astype(default_dtype())
    return ops.tensor(array)


def is_nonfinite(value) -> bool:
    array = np.asarray(value)
    return array.dtype.kind in "fc" and not np.isfinite(array).all()


def _has_nan(value) -> bool:
    array = np.asarray(value)
    return array.dtype.kind in "fc" and bool(np.isnan(array).any())


class NonFinite(NamedTuple):
    """An operation the watch found making nan or inf (``Program.run``'s ``watch_nonfinite``)."""

    description: str
    span: Span
    #: Whether it made nan (else it made inf or -inf, of finite operands).
    nan: bool
    #: The infinities among its operands (``"inf"``, ``"-inf and inf"``), or None: it
    #: made nan of operands that held no nan (``sin(inf)``, ``0 * inf``).
    operands: str | None = None
    #: ``(description, span)`` of the operation that made those infinities, if known.
    infinity: tuple[str, Span] | None = None


def _infinities(values) -> str:
    """``"inf"``, ``"-inf"`` or ``"-inf and inf"``: the infinities ``values`` hold."""
    arrays = [np.asarray(a) for a in values]
    found = [
        sign
        for sign, test in (("-inf", np.isneginf), ("inf", np.isposinf))
        if any(test(a).any() for a in arrays)
    ]
    return " and ".join(found)


def _number(value: float) -> int | float | complex:
    """A literal's Python value: integral literals are ints (sizes, axes, indices)."""
    if isinstance(value, complex):
        return value
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


class Evaluator(ControlFlow, FunctionsOfFunctions):
    """Runs one program once: a fresh environment and a fresh graph."""

    def __init__(
        self,
        watch: list | None = None,
        origins: dict | None = None,
        notes: list | None = None,
        sources: dict | None = None,
        generator=None,
    ):
        self.env: dict[str, Tensor] = {}
        # Random constructors draw from this generator (the process's when None).
        self.generator = generator
        self.functions: dict[str, ir.FuncDef] = {}
        self.locals: dict[str, object] = {}
        self.watch = watch
        self.watched = False
        #: ``id(result) -> (result, description, span)``: where each infinite result's
        #: infinities came from, so a nan made of them names their maker (the result is
        #: kept so that its id is not reused).
        self.infinities: dict[int, tuple] = {}
        self.origins = origins
        #: ``(function, span, where, convention)`` for each call that lands on a kink
        #: (``engine.explain``; the convention None where the op table states it).
        self.notes = notes
        #: The span of the whole expression that made each graph node.
        self.sources = sources
        #: The names derivatives are taken with respect to (``Analysis.tracked``).
        self.tracked: frozenset[str] = frozenset()
        #: The operations left before the evaluation stops (``limits.max_operations``).
        self.operations_left = self.operation_limit = limits.MaxOperations.value

    def count_operation(self, span: Span) -> None:  # past the limit, an error at span
        self.operations_left -= 1
        if self.operations_left < 0:
            raise GradcliError(limits.too_many_operations(self.operation_limit), span)

    # ----- applying an engine operation, with its span and the non-finite watch -----

    def apply(self, description: str, span: Span, fn, *args, **kwargs):
        self.count_operation(span)
        try:
            result = fn(*args, **kwargs)
        except GradcliError as err:
            if err.span is None:
                err.span = span
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError) as err:
            kind = GradcliIndexError if isinstance(err, LookupError) else GradcliTypeError
            raise kind(f"{description}: {err}", span) from None
        except MemoryError as err:  # zeros(1e10): NumPy says how much it wanted
            raise GradcliError(f"{description}: {out_of_memory(err)}", span) from None
        if self.origins is not None and getattr(result, "grad_fn", None) is not None:
            self.origins.setdefault(result.grad_fn, (description, span))
        if self.notes is not None:
            entry = ops.OPS.get(description)
            found = None if entry is None else kink(entry, args, kwargs)
            if found is not None:
                self.notes.append((description, span, *found))
        if self.watch is not None and not self.watched and is_nonfinite(result):
            self._watch(description, span, result, args, kwargs)
        return result

    def _watch(self, description, span, result, args, kwargs) -> None:
        """Record the first operation that makes inf of finite operands, and the first
        that makes nan of operands without nan (then stop watching): ``sin(1/x)`` at 0
        has its inf from div and its nan from sin."""
        operands = []
        for a in (*args, *kwargs.values()):
            operands.extend(a if isinstance(a, (list, tuple)) else [a])
        infinite = [a for a in operands if not isinstance(a, (slice, str)) and is_nonfinite(a)]
        nan = _has_nan(result)
        if not infinite:
            if not nan:
                self.infinities[id(result)] = (result, description, span)
            if nan or not self.watch:
                self.watch.append(NonFinite(description, span, nan))
            self.watched = nan
        elif nan and not any(_has_nan(a) for a in infinite):
            known = (self.infinities.get(id(a)) for a in infinite)
            maker = next((found[1:] for found in known if found is not None), None)
            self.watch.append(NonFinite(description, span, True, _infinities(infinite), maker))
            self.watched = True
        elif not nan:
            # inf of inf (2 * inf): the same infinities, made where its operand's were.
            known = (self.infinities.get(id(a)) for a in infinite)
            found = next((found for found in known if found is not None), None)
            if found is not None:
                self.infinities[id(result)] = (result, *found[1:])

    def call_op(self, fn, span: Span, *args):
        """``apply`` of an op's function, described by its entry's name."""
        return self.apply(fn.op.name, span, fn, *args)

    # ----- statements -----

    def bind(self, name: str, value, span: Span | None = None):
        """Give ``name`` the value ``value``: a tensor of its own if a derivative is
        taken with respect to the name (``derivatives.tracked``)."""
        if name in self.tracked:
            value = self.tracked_value(value, span)
        self.env[name] = value
        return value

    def tracked_value(self, value, span: Span | None):
        """``track``, its copy's graph node placed at ``span`` (graph, --steps)."""
        value = self.track(value)
        node = getattr(value, "grad_fn", None)
        if node is not None and span is not None:
            if self.origins is not None:
                self.origins.setdefault(node, (ops.clone.op.name, span))
            if self.sources is not None:
                self.sources.setdefault(node, span)
        return value

    def track(self, value):
        return derivatives.tracked(value)

    def statement(self, node, input_value=None):
        """Run one statement; returns its value (None for a function definition)."""
        if isinstance(node, ir.Assign):
            value = input_value if input_value is not None else as_tensor(self.evaluate(node.value))
            return self.bind(node.name, value, name_span(node.span, node.name))
        if isinstance(node, ir.ConstDecl):
            if input_value is not None:
                value = input_value.detach()
            else:
                # A const's own derivatives (const c = grad(...)) need their graph.
                with enable_grad() if self.tracked else no_grad():
                    value = as_tensor(self.evaluate(node.value)).detach()
            return self.bind(node.name, value)
        if isinstance(node, ir.IndexAssign):
            # Value semantics: the old tensor (maybe a leaf, maybe saved by the graph) is
            # left untouched; the name now holds a copy with the slice replaced (CopySlices).
            span = name_span(node.span, node.name)
            target = self.call_op(ops.clone, span, as_tensor(self.name(node.name, span)))
            key = self.subscripts(node.subscripts)
            value = self.evaluate(node.value)
            where = subscripts_span(node.subscripts, span)
            shape = fitted_shape(value, target, key, node, where)
            if shape is not None and shape != np.shape(value):
                # Leading axes of length 1 dropped here, so the engine meets equal ranks.
                value = self.call_op(ops.reshape, where, as_tensor(value), shape)
            try:
                self.call_op(ops.setitem, where, target, key, value)
            except GradcliError as err:
                raise blame_subscript(err, node.subscripts, key) from None
            if self.sources is not None and target.grad_fn is not None:
                end = node.value.span  # the statement: k[0] = value
                extent = Span(node.span.line, node.span.column, end.end_line, end.end_column)
                self.sources.setdefault(target.grad_fn, extent)
            return self.bind(node.name, target, span)
        if isinstance(node, ir.FuncDef):
            self.functions[node.name] = node
            return None
        if isinstance(node, ir.COMPOUND):
            getattr(self, type(node).__name__)(node)
            return None
        if isinstance(node, (ir.Break, ir.Continue)):
            raise Jump(node)
        return self.evaluate(node)

    # ----- expressions -----

    def evaluate(self, node):
        value = getattr(self, type(node).__name__)(node)
        if self.sources is not None and type(value) is Tensor and value.grad_fn is not None:
            self.sources.setdefault(value.grad_fn, node.span)
        return value

    def name(self, name: str, span: Span):
        if name in self.locals:
            return self.locals[name]
        if name in self.env:
            return self.env[name]
        if name in BUILTIN_CONSTANTS:
            return exact_constant(name) if ACTIVE[0] else BUILTIN_CONSTANTS[name]
        known = [*self.env, *self.locals, *BUILTIN_CONSTANTS]
        raise GradcliError(f"unknown name '{name}'{suggest(name, known)}", span)

    def Num(self, node: ir.Num):
        if ACTIVE[0]:
            return exact_number(node)
        return 0.0 if node.float_zero else _number(node.value)

    def Str(self, node: ir.Str):
        return node.value

    def Name(self, node: ir.Name):
        return self.name(node.id, node.span)

    def UnaryOp(self, node: ir.UnaryOp):
        value = self.evaluate(node.operand)
        if type(value) is not Tensor and type(value) is not Batched:
            return _OPERATORS[node.op](value)
        return self.apply(node.op, node.span, _OPERATORS[node.op], value)

    def BinOp(self, node: ir.BinOp):
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if type(left) is not Tensor and type(right) is not Tensor:
            left = as_tensor(left)
        return self.apply(node.op, node.op_span, _OPERATORS[node.op], left, right)

    def Chain(self, node: ir.Chain):
        value = self.evaluate(node.first)
        for op, operand, span in zip(node.ops, node.rest, node.op_spans):
            right = self.evaluate(operand)
            tensors = OPERATORS[op].tensor_operands
            if type(value) is not Tensor and (type(right) is not Tensor or tensors):
                value = as_tensor(value)
            value = self.apply(op, span, _OPERATORS[op], value, right)
            if self.sources is not None and type(value) is Tensor and value.grad_fn is not None:
                # a + b - c: the node of a + b came from the text up to b.
                start, end = node.first.span, operand.span
                extent = Span(start.line, start.column, end.end_line, end.end_column)
                self.sources.setdefault(value.grad_fn, extent)
        return value

    def Compare(self, node: ir.Compare):
        left = as_tensor(self.evaluate(node.first))
        result = None
        with no_grad():
            for op, operand, span in zip(node.ops, node.rest, node.op_spans):
                right = self.evaluate(operand)
                holds = self.apply(op, span, _OPERATORS[op], left, right)
                result = (
                    holds
                    if result is None
                    else self.apply("and", span, ops.logical_and, result, holds)
                )
                left = as_tensor(right)
        return self.call_op(ops.to_dtype, node.span, result, default_dtype())

    def Call(self, node: ir.Call):
        span = name_span(node.span, node.func)
        function = self.functions.get(node.func)
        if function is not None:
            return self.call_user(function, node, span)
        if node.func in derivatives.FORMS:
            return self.derivative(node, span)
        if node.func in TRANSFORMATIONS:
            return self.transformation(node, span)
        return self.call_builtin(node.func, node.args, node.keywords, span)

    def Method(self, node: ir.Method):
        receiver = self.evaluate(node.obj)
        return self.call_builtin(node.name, node.args, node.keywords, node.name_span, receiver)

    def Attr(self, node: ir.Attr):
        # A table, not getattr: what follows a dot never reaches a Python attribute,
        # even in IR that did not pass the checker.
        attribute = TENSOR_ATTRIBUTES.get(node.name)
        if attribute is None:
            raise GradcliError(f"attribute '{node.name}' is not accessible", node.name_span)
        value = as_tensor(self.evaluate(node.obj))
        return self.apply(node.name, node.name_span, attribute, value)

    def Index(self, node: ir.Index):
        value = as_tensor(self.evaluate(node.obj))
        key = self.subscripts(node.subscripts)
        span = subscripts_span(node.subscripts, node.span)
        try:
            return self.apply("index", span, ops.getitem, value, key)
        except GradcliError as err:
            raise blame_subscript(err, node.subscripts, key) from None

    def ListLit(self, node: ir.ListLit):
        items = [self.evaluate(item) for item in node.items]
        shapes = [tuple(np.shape(item)) for item in items]
        for item, shape in zip(node.items, shapes):
            if shape != shapes[0]:
                raise GradcliError(
                    f"ragged list: an entry of shape {shape} among entries of shape {shapes[0]}",
                    item.span,
                )
        if all(type(item) is not Tensor and type(item) is not Batched for item in items):
            dtype = default_dtype()
            if any(isinstance(item, complex) for item in items):
                dtype = complex_of(dtype)
            return ops.tensor(np.array(items, dtype=dtype).reshape(len(items)))
        tensors = [as_tensor(item) for item in items]
        return self.call_op(ops.stack, node.span, tensors)

    def Numbers(self, node: ir.Numbers):
        if ACTIVE[0]:
            return exact_tensor(node.texts or node.values)
        return ops.tensor(np.array(node.values, dtype=default_dtype()))

    # ----- indexing -----

    def subscripts(self, subscripts):
        key = tuple(self.subscript(s) for s in subscripts)
        return key[0] if len(key) == 1 else key

    def subscript(self, node):
        if isinstance(node, ir.Slice):
            parts = (node.start, node.stop, node.step)
            key = slice(*(None if p is None else self.integer(p, "index") for p in parts))
            if key.step == 0:
                raise GradcliError("slice step cannot be zero", node.step.span)
            return key
        return self.key(self.evaluate(node), node)

    def key(self, value, node):
        """The value of the subscript ``node`` as an index: a mask, integers or one."""
        if isinstance(node, ir.Compare):  # x[x > 0]: a mask
            return np.asarray(value) != 0
        if type(value) is Tensor and value.ndim > 0:
            return checked_integers(np.asarray(value), "index", node.span)
        return checked_integer(value, "index", node.span)

    def integer(self, node, what: str) -> int:
        return checked_integer(self.evaluate(node), what, node.span)

    # ----- calls -----

    def call_user(self, function: ir.FuncDef, node: ir.Call, span: Span):
        self.count_operation(span)
        values = dict(zip(function.params, (self.evaluate(a) for a in node.args)))
        values.update((k.name, self.evaluate(k.value)) for k in node.keywords)
        spans = dict(zip(function.params, (a.span for a in node.args)))
        spans.update((k.name, k.value.span) for k in node.keywords)
        for name in self.tracked.intersection(values):
            values[name] = self.tracked_value(values[name], spans[name])
        saved, self.locals = self.locals, values
        try:
            return self.evaluate(function.body)
        finally:
            self.locals = saved

    def call_builtin(self, name: str, arg_nodes, keyword_nodes, span: Span, receiver=None):
        function = FUNCTIONS[name]
        sig = builtin_signature(name)
        types = _parameter_types(function)
        form = function.language_form
        if form is not None:  # a form may add parameters (log's base)
            types.update((p.name, p.type) for p in form.schema.params)
        nodes = [None, *arg_nodes] if receiver is not None else list(arg_nodes)
        params = list(sig.positional)
        params += [sig.variadic] * max(0, len(nodes) - len(params))
        args, kwargs, given = [], {}, []  # given: (parameter, value, span) of each argument
        for i, (param, arg) in enumerate(zip(params, nodes)):
            value = receiver if arg is None else self.argument(param, types[param], arg, function)
            if i == 0 and function.kind != "constructor" and types[param] == "Tensor":
                value = as_tensor(value)
            arg_span = span if arg is None else arg.span
            value = self.adapt(param, types[param], value, arg_span, param == sig.variadic)
            given.append((param, value, arg_span))
            args.append(value)
        if self.generator is not None and "generator" in types:
            kwargs["generator"] = self.generator
        for keyword in keyword_nodes:
            param = sig.canonical(keyword.name)
            value = self.argument(param, types[param], keyword.value, function)
            value = self.adapt(param, types[param], value, keyword.value.span)
            given.append((param, value, keyword.value.span))
            kwargs[param] = value
        call = function.call
        if form is not None:
            call, args, kwargs = form.adapt(function, args, kwargs, given)
        elif function.language_args is not None:
            args, kwargs = function.language_args(args, kwargs, span)
        try:
            result = self.apply(name, span, call, *args, **kwargs)
        except GradcliIndexError as err:
            if err.span is span:  # an axis out of range is the axis argument's fault
                err.span = _axis_span(err.message, given, span)
            raise
        if isinstance(result, tuple):  # max(x, dim=0) gives (values, indices): the values
            result = result[0]
        if type(result) is not Tensor:
            result = as_tensor(result)
        data = (result.physical if type(result) is Batched else result)._data
        if not function.indices and data.dtype.kind not in "fcO":  # O: --dps's mpf
            result = self.call_op(ops.to_dtype, span, result, default_dtype())
        return result

    def argument(self, param: str, type_: str, node, function=None):
        if type_ in _SEQUENCE_TYPES and isinstance(node, ir.ListLit):
            return [as_tensor(self.evaluate(item)) for item in node.items]
        if type_ in _SEQUENCE_TYPES and isinstance(node, ir.Numbers):
            return [as_tensor(_number(v)) for v in node.values]
        value = self.evaluate(node)
        if isinstance(value, str) and "str" not in type_.split("|"):  # padding="same": str
            raise GradcliTypeError(f"{param} takes a value, not text in quotes", node.span)
        choices = _choices(function, param) if type_ == "str" else None
        if choices is not None and value not in choices:
            listed = ", ".join(f'"{c}"' for c in choices)
            raise GradcliTypeError(f"{param} must be one of {listed}", node.span)
        return value

    def adapt(self, param: str, type_: str, value, span: Span, variadic: bool = False):
        """``value`` in the form the op table's parameter ``param`` (of type ``type_``) takes."""
        if isinstance(value, str):  # checked against the schema by argument()
            return value
        if type_ in INTEGER_OR_LIST_TYPES or (variadic and type_ in INTEGER_TYPES):
            if type(value) is Tensor and value.ndim > 0:
                return checked_integer_list(value, param, span)
            return checked_integer(
                value, param if not variadic or param == "dims" else "size", span
            )
        if type_ in INTEGER_TYPES:
            return checked_integer(value, param, span)
        if type_ == "bool":
            array = np.asarray(value)
            if array.ndim != 0:
                raise GradcliTypeError(
                    f"{param} must be True or False, not a value of shape {array.shape}", span
                )
            return bool(array)
        if type_ in _BOUND_TYPES and type(value) is Tensor and value.requires_grad:
            return value  # clamp(x, min=y) differentiates y, as PyTorch's tensor bounds
        if type_ in _NUMBER_TYPES | _BOUND_TYPES and type(value) is Tensor:
            array = np.asarray(value.detach())
            return array.item() if array.ndim == 0 else array
        if type_ in _OPERAND_TYPES and type(value) is int:
            # An operand, not a size: the language's numbers are float64, so pow(2, -1) is
            # 0.5 as 2 ** -1 is (an integral literal is an int only for sizes and axes).
            return float(value)
        return value


def _choices(function, param: str):
    """The texts the schema's parameter ``param`` takes (reduction="sum"), or None."""
    found = [p.choices for p in function.schema.params if p.name == param] if function else []
    return found[0] if found else None


def _parameter_types(function) -> dict:
    """Each parameter's declared type, by name (the op table's schema)."""
    return {p.name: p.type for p in function.schema.params}


def _axis_span(message: str, given, fallback: Span) -> Span:
    """The span of the axis argument that ``message`` ("... but got 3") complains about."""
    found = re.search(r"but got (-?\d+)", message)
    axes = [(value, span) for param, value, span in given if param in _AXIS_PARAMETERS]
    for value, span in axes:
        values = value if isinstance(value, tuple) else (value,)
        if found and int(found[1]) in values:
            return span
    return axes[0][1] if axes and "dim" in message.lower() else fallback
