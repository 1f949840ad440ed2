"""``gradcli diff``: the symbolic derivative of a program, by SymPy.

The program's IR is walked into SymPy expressions (user text is never handed to
``sympify``): inputs become real symbols, assignments and user functions are
substituted through, constants (``const``) take their values. A vector or matrix
input is an array of symbols, one per entry (``w[0]``, ``W[0,1]``), held in a
NumPy array of objects, so elementwise operators, broadcasting, indexing,
slicing, ``@`` and reductions over all entries work as NumPy's do. A comparison
is 1 where it holds and 0 elsewhere, as in the language (a ``Piecewise``), and
``where`` the ``Piecewise`` of its condition. A construct with no symbolic form
here (``randn``, a reduction along one dimension) is an error that names it.

SymPy is an optional dependency (``pip install 'gradcli[symbolic]'``) imported only
by this module.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .. import api
from ..core.evaluation import UnknownInput, evaluation, no_such_input
from ..core.result import source_title
from ..engine.ops import sympy_forms as forms
from ..errors import GradcliError
from ..language import ir
from ..language.derivatives import FORMS
from ..language.transformations import TRANSFORMATIONS
from .report import Report, frozen
from .symbolic_control import SymbolicControl
from .symbolic_derivatives import StandIns
from .symbolic_transformations import SymbolicTransformations, array_of, scalar_of

# The engine's value and SymPy's agree when closer than this in float64 (looser in
# float32: see ``agreement``).
AGREE_RTOL = 1e-7
AGREE_ATOL = 1e-10
# SymPy's simplify can take minutes on a large expression: larger derivatives (in
# operations) are left as SymPy's diff gives them.
SIMPLIFY_LIMIT = 60


def agreement(dtype: str) -> tuple[float, float]:
    """``(rtol, atol)`` within which the engine's derivative in ``dtype`` agrees with
    SymPy's value: a thousand roundings of the dtype, at least ``AGREE_RTOL``."""
    eps = float(np.finfo(np.dtype(dtype)).eps)
    return max(AGREE_RTOL, 1000 * eps), max(AGREE_ATOL, 1000 * eps * 1e-3)


def _sympy():
    try:
        import sympy
    except ImportError:
        raise GradcliError(
            "gradcli diff needs SymPy, which is not installed: "
            "pip install 'gradcli[symbolic]' (or pip install sympy)"
        ) from None
    return sympy


@dataclass(frozen=True, eq=False)
class SymbolicDerivative:
    """The derivative with respect to one input."""

    name: str
    #: SymPy's text of each entry: a string, or nested tuples of the derivative's shape.
    formula: object
    latex: object
    #: Its value at the bound point, or None when the inputs are not all bound.
    value: np.ndarray | None
    #: The engine's gradient (or Jacobian) there, or None.
    engine: np.ndarray | None
    #: The dtype the engine computed in.
    dtype: str = "float64"

    @property
    def agrees(self) -> bool | None:
        if self.value is None or self.engine is None:
            return None
        rtol, atol = agreement(self.dtype)
        return bool(np.allclose(self.value, self.engine, rtol=rtol, atol=atol, equal_nan=True))

    def as_tree(self) -> dict:
        return {
            "formula": self.formula,
            "latex": self.latex,
            "value": self.value,
            "engine": self.engine,
            "agrees": self.agrees,
        }


@dataclass(frozen=True, eq=False)
class DiffReport(Report):
    command = "diff"
    source: str
    title: str
    #: The program as one formula, assignments and functions substituted.
    function: object
    function_latex: object
    #: "grad" for a scalar output, else "jacobian" (of shape output + input).
    kind: str
    value: np.ndarray | None
    derivatives: tuple[SymbolicDerivative, ...]
    warnings: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        return all(d.agrees is not False for d in self.derivatives)

    def as_tree(self) -> dict:
        return {
            "function": self.function,
            "value": self.value,
            "derivatives": {d.name: d.as_tree() for d in self.derivatives},
        }


def derivative(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt=None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> DiffReport:
    """The simplified symbolic derivative of ``source`` with respect to each input.

    When every input has a value (bound, or given in the program), each
    derivative is also evaluated there and compared with the engine's gradient
    (its Jacobian for a non-scalar output); a disagreement is a warning.
    """
    sympy = _sympy()
    from gradcli.language import compile_source
    from gradcli.language.check import BUILTIN_CONSTANTS

    bindings = dict(bindings or {})
    # --e 3 makes e an input of the run, as the evaluation does.
    shadowed = [name for name in bindings if name in BUILTIN_CONSTANTS]
    program = compile_source(source, filename=filename, inputs=shadowed)
    settings = dict(dtype=dtype, seed=seed, filename=filename)
    values, constants, names = _point(program, source, bindings, wrt, settings)
    shapes = {n: np.shape(values[n]) if values else () for n in program.inputs}
    walker = _ToSympy(sympy, program, shapes, constants)
    out = walker.run()
    kind = "grad" if out.size == 1 else "jacobian"
    substitutions = walker.substitutions(values) if values else None
    derivatives = _each_derivative(sympy, out, walker, names, substitutions)
    engine, notes = None, ()
    if values is not None and names:
        compute = api.gradient if kind == "grad" else api.jacobian
        result = compute(source, bindings, wrt=names, **settings)
        engine = result.grad if kind == "grad" else result.jacobian
        notes = result.notes
    report_derivatives = tuple(
        SymbolicDerivative(
            name, formula, latex, value, None if engine is None else engine[name], dtype
        )
        for name, formula, latex, value in derivatives
    )
    function = out.reshape(()).item() if out.size == 1 else out
    value = _evaluate(sympy, out, substitutions) if substitutions is not None else None
    warnings = notes + tuple(
        f"warning: the symbolic derivative with respect to {d.name} is {_shown(d.value)}, but "
        f"the engine's {kind} is {_shown(d.engine)}: they disagree"
        for d in report_derivatives
        if d.agrees is False
    )
    return DiffReport(
        source,
        source_title(source, filename),
        _texts(np.asarray(function, dtype=object), sympy.sstr),
        _texts(np.asarray(function, dtype=object), sympy.latex),
        kind,
        value,
        report_derivatives,
        warnings,
    )


def _point(program, source, bindings, wrt, settings):
    """The inputs' values, the consts' and the inputs to differentiate by, all checked; the
    values None when some input has no value."""
    if not [n for n in program.free if n not in bindings]:
        with evaluation(source, bindings, wrt, **settings) as s:
            return dict(s.values), dict(s.constants), s.wrt
    # Without the point nothing is evaluated, so nothing else refuses a binding
    # of no input (--order 2, --X for x).
    for name in bindings:
        if name not in program.inputs and name not in program.constants:
            raise UnknownInput(f"--{name}", name, (*program.inputs, *program.constants))
    names = program.inputs if wrt is None else tuple(wrt)
    for name in names:
        if name not in program.inputs:
            raise GradcliError(f"--wrt {name}: {no_such_input(name, program.inputs)}")
    return None, {}, names


def _each_derivative(sympy, out, walker, names, substitutions) -> list:
    """Each input's name, derivative as text and as LaTeX, and its value (None without one)."""
    derivatives = []
    for name in names:
        formulas = _derivatives(sympy, out, walker.symbols[name])
        value = _evaluate(sympy, formulas, substitutions) if substitutions is not None else None
        derivatives.append(
            [name, _texts(formulas, sympy.sstr), _texts(formulas, sympy.latex), value]
        )
    return derivatives


def _shown(array) -> str:
    from ..render.numbers import format_array

    return format_array(array)


def _derivatives(sympy, out: np.ndarray, symbols: np.ndarray) -> np.ndarray:
    """d out / d symbols, simplified: of the symbols' shape for a scalar output,
    else of shape ``out.shape + symbols.shape``."""
    flat_out = list(out.reshape(-1))
    flat_in = list(symbols.reshape(-1))
    entries = [_simplified(sympy, sympy.diff(f, x)) for f in flat_out for x in flat_in]
    shape = symbols.shape if out.size == 1 else out.shape + symbols.shape
    result = np.empty(len(entries), dtype=object)
    result[:] = entries
    return result.reshape(shape)


def _simplified(sympy, expression):
    if sympy.count_ops(expression) > SIMPLIFY_LIMIT:
        return expression
    # simplify writes sign(x - 1) as (x - 1)/|x - 1| and that as a Piecewise at x = 1, the
    # derivatives of abs, max, relu...: sign and Heaviside are held as functions it cannot
    # open, and put back.
    held = {
        kind: _held(sympy, kind) for kind in (sympy.sign, sympy.Heaviside) if expression.has(kind)
    }
    for kind, stand_in in held.items():
        expression = expression.replace(kind, stand_in)
    expression = sympy.simplify(expression)
    for kind, stand_in in held.items():
        expression = expression.replace(stand_in, kind)
    return expression


@functools.cache
def _held(sympy, kind):
    """A function SymPy knows nothing of, standing for ``kind`` (sign, Heaviside)."""
    return sympy.Function(f"held_{kind.__name__}", real=True)


def _texts(formulas: np.ndarray, printer):
    """Each entry's text; a string for one entry, else nested tuples."""
    formulas = np.asarray(formulas, dtype=object)
    if formulas.ndim == 0:
        return printer(formulas.item())
    return tuple(_texts(part, printer) for part in formulas)


def _evaluate(sympy, formulas: np.ndarray, substitutions) -> np.ndarray:
    """The value of each entry with every symbol replaced by its value, in float64."""
    formulas = np.asarray(formulas, dtype=object)
    out = np.empty(formulas.shape, dtype=np.float64)
    for index in np.ndindex(*formulas.shape):
        entry = formulas[index]
        if not isinstance(entry, sympy.Basic):  # a Python number NumPy left as it was
            entry = sympy.Float(float(entry), 30)
        number = sympy.N(entry.xreplace(substitutions), 30)
        if number.has(sympy.zoo) or number.has(sympy.nan):
            out[index] = _in_floats(sympy, entry, substitutions)
        else:
            out[index] = _real(sympy, number)
    return frozen(out)


def _in_floats(sympy, entry, substitutions) -> float:
    """Where SymPy's value is undefined, complex infinity at a pole (1/(2*sqrt(0)), sqrt's
    derivative at its kink), which has no sign, or nan (polygamma(1, 0)): the formula in
    float64, the engine's arithmetic, which signs it as the engine's derivative is signed
    (1/(2*sqrt(0.0)) = inf, -1/0.0**2 = -inf); a 0/0 stays nan."""
    symbols = sorted(entry.free_symbols, key=str)
    # tied (sympy_forms) reductions keep SymPy's names; special functions are SciPy's.
    extremes = {"Max": lambda *a: np.amax(a, axis=0), "Min": lambda *a: np.amin(a, axis=0)}
    try:
        value = sympy.lambdify(symbols, entry, modules=[extremes, "scipy", "numpy"])
        with np.errstate(all="ignore"):
            return float(value(*(np.float64(substitutions[s]) for s in symbols)))
    except (NameError, TypeError, ValueError):  # a function with no float form: SymPy's nan
        return float("nan")


def _real(sympy, number) -> float:
    if number in (sympy.zoo, sympy.nan) or number.has(sympy.nan):
        return float("nan")
    if number == sympy.oo:
        return float("inf")
    if number == -sympy.oo:
        return float("-inf")
    re, im = number.as_real_imag()
    if im != 0:
        return float("nan")  # as the engine: sqrt(-1) is nan
    return float(re)


# ----------------------------------------------------------------------------
# IR -> SymPy
# ----------------------------------------------------------------------------


class _ToSympy(SymbolicControl, SymbolicTransformations):
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
        if "Tensor" in param.type:
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
    from ..engine.ops import OPS

    return {alias: e for e in OPS.values() for alias in (e.name, *e.aliases)}


def _takes(form, n: int) -> bool:
    """Whether the form takes ``n`` arguments after SymPy's module."""
    import inspect

    try:
        inspect.signature(form).bind(None, *range(n))
    except TypeError:
        return False
    return True
