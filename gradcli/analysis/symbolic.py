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

from gradcli.language import compile_source
from gradcli.language.check import BUILTIN_CONSTANTS

from ..core import computing
from ..core.evaluation import UnknownInput, evaluation, no_such_input
from ..core.result import source_title
from ..engine.ops import sympy_forms as forms
from ..errors import GradcliError
from ..render.numbers import format_array
from .commands import Command, Option
from .report import Report, frozen
from .symbolic_walk import ToSympy

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
    layout = "derivatives"
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

    bindings = dict(bindings or {})
    # --e 3 makes e an input of the run, as the evaluation does.
    shadowed = [name for name in bindings if name in BUILTIN_CONSTANTS]
    program = compile_source(source, filename=filename, inputs=shadowed)
    settings = dict(dtype=dtype, seed=seed, filename=filename)
    values, constants, names = _point(program, source, bindings, wrt, settings)
    shapes = {n: np.shape(values[n]) if values else () for n in program.inputs}
    walker = ToSympy(sympy, program, shapes, constants)
    out = walker.run()
    kind = "grad" if out.size == 1 else "jacobian"
    substitutions = walker.substitutions(values) if values else None
    derivatives = _each_derivative(sympy, out, walker, names, substitutions)
    engine, notes = None, ()
    if values is not None and names:
        compute = computing.gradient if kind == "grad" else computing.jacobian
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
        with evaluation(source, bindings, wrt, **settings, command="diff") as s:
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
    if sympy.count_ops(expression) > SIMPLIFY_LIMIT or _shares_a_tie(sympy, expression):
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


def _shares_a_tie(sympy, expression) -> bool:
    """Whether ``expression`` holds the even share of a tie among three entries or more
    (the derivative of max(x), ``forms.tied``): simplify folds its quotient of Piecewise
    into one branch per way the entries can tie, a longer formula that takes a minute
    from four entries."""
    shared = (forms.tied(sympy, "Max"), forms.tied(sympy, "Min"))
    return expression.has(sympy.Piecewise) and bool(expression.atoms(*shared))


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


COMMANDS = (
    Command(
        "diff",
        derivative,
        """The symbolic derivative of SOURCE with respect to each input, simplified
        by SymPy (pip install 'gradcli[symbolic]'). When every input has a value,
        also its value there, which must agree with the engine's gradient (exit
        status 1 when it does not). --format latex writes LaTeX.

        \b
        Examples:
          $ gradcli diff "(x+2)**2+3" --format plain
          function (x + 2)**2 + 3
          value none
          derivatives.x.formula 2*x + 4
          derivatives.x.latex 2 x + 4
          derivatives.x.value none
          derivatives.x.engine none
          derivatives.x.agrees none
          $ gradcli diff "x**2 * sin(y)" --format latex
          f = x^{2} \\sin{\\left(y \\right)}
          \\frac{\\partial f}{\\partial x} = 2 x \\sin{\\left(y \\right)}
          \\frac{\\partial f}{\\partial y} = x^{2} \\cos{\\left(y \\right)}
        """,
        (Option("wrt", "The inputs [default: all].", kind="names"),),
        exit_status=lambda report: 0 if report.agrees else 1,
        formats=("latex",),
    ),
)
