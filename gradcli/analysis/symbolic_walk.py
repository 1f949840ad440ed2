"""The walk of a checked program into SymPy expressions, for ``gradcli diff``
(``analysis.symbolic``): each input entry a symbol, each operation its SymPy form."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from ..engine.ops import OPS
from ..engine.ops import sympy_forms as forms
from ..errors import GradcliError
from ..language import ir
from ..language.derivatives import FORMS
from ..language.transformations import TRANSFORMATIONS
from .symbolic_control import SymbolicControl
from .symbolic_derivatives import StandIns
from .symbolic_transformations import SymbolicTransformations, array_of, scalar_of


class ToSympy(SymbolicControl, SymbolicTransformations):
    """Walks a checked program into a NumPy array of SymPy expressions (0-d for a scalar)."""

    def __init__(self, sympy, program, shapes, constants):
        self.sympy = sympy
        self.program = program
        self.analysis = program.analysis
        self.constants = constants
        self.symbols: dict[str, np.ndarray] = {}
        for name in program.inputs:
            self.symbols[name] = self._symbols(name, shapes[name])
        self.env: dict[str, np.ndarray] = dict(self.symbols)
        self.functions: dict[str, ir.FuncDef] = {}
        self.locals: dict[str, np.ndarray] = {}
        self.stand_ins = StandIns(sympy, self.analysis.tracked)
        # How many branches of ifs on the inputs hold the statement walked, in this loop.
        self.branches = 0
        s = sympy
        self.constants_by_name = {"pi": s.pi, "e": s.E, "inf": s.oo, "nan": s.nan}

    def _symbols(self, name: str, shape) -> np.ndarray:
        if not shape:
            return scalar_of(self.sympy.Symbol(name, real=True))
        out = np.empty(shape, dtype=object)
        for index in np.ndindex(*shape):
            out[index] = self.sympy.Symbol(f"{name}[{','.join(map(str, index))}]", real=True)
        return out

    def substitutions(self, values) -> dict:
        found = {}
        for name, symbols in self.symbols.items():
            for index in np.ndindex(*symbols.shape):
                value = float(np.asarray(values[name], dtype=np.float64)[index])
                found[symbols[index]] = self.sympy.Float(value, 30)
        return found

    def run(self) -> np.ndarray:
        result = None
        try:
            for i, statement in enumerate(self.program.ir.statements):
                value = self.statement(i, statement)
                if i == self.analysis.result:
                    result = value
        except GradcliError as error:
            raise error.with_source(self.program.source) from None
        return self.stand_ins.replaced(result)

    def fail(self, what: str, node) -> GradcliError:
        return GradcliError(f"{what} has no symbolic form: gradcli diff cannot take it", node.span)

    # ----- statements -----

    def statement(self, i: int, node):
        if isinstance(node, ir.FuncDef):
            self.functions[node.name] = node
            return None
        if isinstance(node, ir.ConstDecl):
            if node.name in self.constants:
                value = self.numberarray_of(self.constants[node.name])
            else:  # a number: the engine cuts a const from the graph
                value = self.stand_ins.replaced(self.evaluate(node.value))
            self.env[node.name] = self.stand_ins.bind(node.name, value)
            return self.env[node.name]
        if isinstance(node, ir.Assign):
            if self.analysis.input_statements.get(node.name) == i:
                return self.env[node.name]  # an input: its symbol, whatever its value
            self.env[node.name] = self.stand_ins.bind(node.name, self.evaluate(node.value))
            return self.env[node.name]
        if isinstance(node, (*ir.COMPOUND, ir.Break, ir.Continue)):
            self.control(node)
            return None
        if isinstance(node, ir.IndexAssign):
            target = np.array(self.name(node.name, node), dtype=object)
            if target.ndim == 0:
                raise self.fail("assigning to an index of a scalar", node)
            value = self.evaluate(node.value)
            # A 0-d array would be stored as one object inside the array of objects.
            target[self.subscripts(node.subscripts)] = value.item() if value.ndim == 0 else value
            self.env[node.name] = self.stand_ins.bind(node.name, target)
            return self.env[node.name]
        return self.evaluate(node)

    def numberarray_of(self, value) -> np.ndarray:
        value = np.asarray(value, dtype=np.float64)
        out = np.empty(value.shape, dtype=object)
        for index in np.ndindex(*value.shape):
            out[index] = self.number(float(value[index]))
        return out

    def number(self, value: float):
        # The decimal a literal was written as, exactly: 0.1 is 1/10.
        if not np.isfinite(value):
            return self.sympy.nan if np.isnan(value) else self.sympy.oo * int(np.sign(value))
        return (
            self.sympy.Rational(repr(value))
            if value != int(value)
            else self.sympy.Integer(int(value))
        )

    # ----- expressions -----

    def evaluate(self, node) -> np.ndarray:
        convert = getattr(self, type(node).__name__, None)
        if convert is None:  # a construct of the language this walk does not know
            raise self.fail(f"this {type(node).__name__} expression", node)
        return convert(node)

    def name(self, name: str, node):
        if name in self.locals:
            return self.locals[name]
        if name in self.env:
            return self.env[name]
        if name in self.constants_by_name:
            return scalar_of(self.constants_by_name[name])
        if name in ("True", "False"):
            return scalar_of(self.sympy.Integer(name == "True"))
        raise self.fail(f"the name {name!r}", node)

    def Num(self, node):
        return scalar_of(self.number(node.value))

    def Name(self, node):
        return self.name(node.id, node)

    def Str(self, node):  # an argument of text (einsum's equation): the op reads it
        return node.value

    def UnaryOp(self, node):
        return self.apply(node.op, [self.evaluate(node.operand)], node)

    def BinOp(self, node):
        return self.apply(node.op, [self.evaluate(node.left), self.evaluate(node.right)], node)

    def Chain(self, node):
        value = self.evaluate(node.first)
        for op, operand in zip(node.ops, node.rest):
            value = self.apply(op, [value, self.evaluate(operand)], node)
        return value

    def Compare(self, node):
        # 1 where it holds, else 0, as the language: 0 < x < 1 is both comparisons.
        value = self.evaluate(node.first)
        held = None
        for op, operand in zip(node.ops, node.rest):
            right = self.evaluate(operand)
            holds = self.apply(op, [value, right], node)
            held = holds if held is None else array_of(forms.each(self._both, held, holds))
            value = right
        return held

    def _both(self, a, b):
        return forms.both(self.sympy, a, b)

    def ListLit(self, node):
        items = [self.evaluate(item) for item in node.items]
        return array_of(np.stack(items) if items else np.empty(0, dtype=object))

    def Numbers(self, node):
        return array_of(
            np.stack([self.Num(ir.Num(v)) for v in node.values])
            if node.values
            else np.empty(0, dtype=object)
        )

    def Attr(self, node):
        if not getattr(_entries().get(node.name), "attribute", False):
            raise self.fail(f".{node.name}", node)
        return self.apply(node.name, [self.evaluate(node.obj)], node)

    def Index(self, node):
        value = self.evaluate(node.obj)
        try:
            return array_of(value[self.subscripts(node.subscripts)])
        except (IndexError, TypeError) as error:
            raise GradcliError(f"index: {error}", node.span) from None

    def subscripts(self, subscripts):
        key = tuple(self.subscript(s) for s in subscripts)
        return key[0] if len(key) == 1 else key

    def subscript(self, node):
        if isinstance(node, ir.Slice):
            parts = (node.start, node.stop, node.step)
            return slice(*(None if p is None else self.integer(p) for p in parts))
        return self.integer(node)

    def integer(self, node) -> int:
        value = self.evaluate(node)
        if value.ndim != 0 or not value.item().is_Integer:
            raise self.fail("an index that is not a constant integer", node)
        return int(value.item())

    def Call(self, node):
        function = self.functions.get(node.func)
        if function is not None:
            values = dict(zip(function.params, (self.evaluate(a) for a in node.args)))
            values.update((k.name, self.evaluate(k.value)) for k in node.keywords)
            values = {name: self.stand_ins.bind(name, v) for name, v in values.items()}
            saved, self.locals = self.locals, values
            try:
                return self.evaluate(function.body)
            finally:
                self.locals = saved
        if node.func in FORMS:  # grad(F, x): x is a name (the checker says so)
            f, x = self.evaluate(node.args[0]), self.evaluate(node.args[1])
            return self.stand_ins.derivative(node.func, f, x, node)
        if node.func in TRANSFORMATIONS:
            return self.transformation(node)
        return self.builtin(node.func, [self.evaluate(a) for a in node.args], node)

    def Method(self, node):
        receiver = self.evaluate(node.obj)
        return self.builtin(node.name, [receiver, *(self.evaluate(a) for a in node.args)], node)

    def builtin(self, name: str, args: list, node):
        if getattr(node, "keywords", ()):
            raise self.fail(f"{name}(...) with keyword arguments", node)
        return self.apply(name, args, node)

    def apply(self, name: str, args: list, node):
        """An op's entry's symbolic form (``Op.symbolic``, see ``optable``) of ``args``: each
        argument a tensor's array of expressions, or the number its schema's type says."""
        entry = _entries().get(name)
        form = getattr(entry, "symbolic", None)
        if not callable(form) or not _takes(form, len(args)):
            raise self.fail(f"{name}({', '.join('...' for _ in args)})", node)
        params = entry.schema.params
        args = [self.argument(params[min(i, len(params) - 1)], a) for i, a in enumerate(args)]
        try:
            if entry.kind in _ENTRYWISE:
                entrywise = np.frompyfunc(lambda *xs: form(self.sympy, *xs), len(args), 1)
                return array_of(entrywise(*args))
            return array_of(form(self.sympy, *args))
        except (ValueError, IndexError) as error:
            raise GradcliError(f"{name}(): {error}", node.span) from None

    def argument(self, param, value: np.ndarray):
        if "Tensor" in param.type or isinstance(value, str):
            return value
        integers = param.type.split("|")[0] in ("int", "int[]", "bool")
        if value.ndim != 0 and not (integers and value.ndim == 1):
            raise GradcliError(f"{param.name} must be a number, not a tensor")
        if not integers:
            return value.item()
        if not all(getattr(n, "is_Integer", False) for n in value.flat):
            raise GradcliError(f"{param.name} must be a constant integer")
        return int(value.item()) if value.ndim == 0 else tuple(int(n) for n in value.flat)


# The kinds whose form is of one entry of each argument, broadcast as NumPy does.
_ENTRYWISE = ("elementwise", "binary")


@functools.cache
def _entries() -> dict:
    """The table's entries by every name the language calls them (aliases too)."""
    return {alias: e for e in OPS.values() for alias in (e.name, *e.aliases)}


def _takes(form, n: int) -> bool:
    """Whether the form takes ``n`` arguments after SymPy's module."""
    try:
        inspect.signature(form).bind(None, *range(n))
    except TypeError:
        return False
    return True
