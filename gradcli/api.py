"""The library API: what each gradcli command computes, returned as frozen results.

Every function takes the program's source text, its bindings and options, and
returns a result holding NumPy arrays; the command line only renders them::

    >>> from gradcli import api
    >>> r = api.gradient("(x+2)**2+3", {"x": 2})
    >>> float(r.value), float(r.grad["x"])
    (19.0, 8.0)

A binding is an array-like, or a string: a constant expression (``"pi/4"``,
``"randn(3, 2)"``) or ``"@FILE"`` (see ``gradcli.bindings``). Inputs are
differentiated in ``wrt`` order, by default every input of the program
(``program.inputs``); names declared ``const`` are never inputs.

``functions()`` lists the functions a program can call, from the op table.
``graph()`` gives the program's autograd graph with the gradient that reached
each node; ``gradient`` and ``vjp`` with ``steps=True`` also give the steps of
their reverse pass.

Every error a user can cause is a ``GradcliError``. A result that is nan or
infinite is returned anyway, with a warning naming the first operation that
produced it. An evaluation that lands on a kink (``abs`` at 0, a tie in ``max``)
gets a note naming the convention that decides the derivative there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

import gradcli

from . import bindings as _bindings
from .engine import limits
from .engine.limits import DEFAULT_MAX_ELEMENTS
from .errors import GradcliError, Span

DTYPES = ("float64", "float32")
# The command line's own options: inputs with these names are bound with --var.
_OPTION_NAMES = {
    "file",
    "var",
    "seed",
    "dtype",
    "format",
    "precision",
    "output",
    "get",
    "strict",
    "debug",
    "wrt",
    "tangent",
    "grad",
    "order",
    "eps",
    "atol",
    "rtol",
    "sigma",
    "cov",
    "over",
    "steps",
    "help",
    "version",
}


# ----------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------


class Diagnostic(str):
    """A warning or a note: the text printed on standard error (with the source line
    and a caret when it has a place), and its parts for JSON."""

    #: ``"warning"`` or ``"note"``.
    kind: str
    #: The message alone, without ``warning:`` and without its place.
    message: str
    #: Where it points, from 1, the end column included; None without a place.
    line: int | None
    column: int | None
    end: int | None

    def __new__(cls, kind: str, message: str, span=None, source: str | None = None):
        # GradcliError.render draws the line and the caret; it says "error:".
        text = GradcliError(message, span, source).render().removeprefix("error:")
        self = super().__new__(cls, kind + ":" + text)
        self.kind = kind
        self.message = message
        single_line = span is not None and span.end_line in (None, span.line)
        self.line = None if span is None else span.line
        self.column = None if span is None else span.column
        self.end = span.end_column if single_line and span.end_column else self.column
        return self


#: The arrays each command adds to the value, in the order they are shown.
SECTIONS = {
    "eval": (),
    "grad": ("grad",),
    "jacobian": ("jacobian",),
    "hessian": ("grad", "hessian"),
    "vjp": ("vjp",),
    "jvp": ("jvp",),
}


@dataclass(frozen=True, kw_only=True, eq=False)
class Result:
    """What a command computed: the value where the program was evaluated, and the
    derivatives the command asks for (the others are None). Arrays are read-only.
    """

    #: Which command: a key of ``SECTIONS``.
    command: str
    source: str
    filename: str
    value: np.ndarray
    #: The inputs differentiated, in order.
    inputs: tuple[str, ...]
    #: Every input's value: the point of evaluation.
    point: Mapping[str, np.ndarray]
    #: One ``warning: ...`` message for each result array that is nan or infinite.
    warnings: tuple[Diagnostic, ...] = ()
    #: ``grad[x]``: the gradient, of x's shape (grad, hessian).
    grad: Mapping[str, np.ndarray] | None = None
    #: ``jacobian[x]``: of shape ``value.shape + x.shape``.
    jacobian: Mapping[str, np.ndarray] | None = None
    #: ``hessian[x][y]``: of shape ``x.shape + y.shape``.
    hessian: Mapping[str, Mapping[str, np.ndarray]] | None = None
    #: ``vjp[x]``: ``grad_output`` times the Jacobian, of x's shape.
    vjp: Mapping[str, np.ndarray] | None = None
    grad_output: np.ndarray | None = None
    #: The directional derivative along ``tangents``, of the value's shape.
    jvp: np.ndarray | None = None
    tangents: Mapping[str, np.ndarray] | None = None
    #: One ``note: ...`` for each call evaluated on a kink, where a convention decides
    #: the derivative.
    notes: tuple[Diagnostic, ...] = ()
    #: With ``steps=True`` (gradient, vjp): the graph and the steps of the reverse pass.
    graph: GraphResult | None = None
    #: The whole Hessian or Jacobian over all inputs (``gradcli.analysis.Assembled``),
    #: when there are several inputs or one is not a scalar (hessian, jacobian).
    assembled: object | None = None

    @property
    def shapes(self) -> Mapping[str, tuple[int, ...]]:
        """The shape of every input."""
        return MappingProxyType({name: v.shape for name, v in self.point.items()})

    @property
    def title(self) -> str:
        """The expression, when it fits on a line, else the file it came from."""
        return _title(self.source, self.filename)

    @property
    def finite(self) -> bool:
        """Whether every number of every result array is finite."""
        from .render import leaves

        return all(_finite(a) for _, a in leaves(self.as_tree()))

    @property
    def jacobian_matrix(self) -> np.ndarray | None:
        """For a Jacobian of an output with entries with respect to scalar inputs only,
        the Jacobian matrix: one row per output entry (row-major), one column per input
        in ``inputs`` order. None otherwise."""
        if self.jacobian is None or not self.inputs or self.value.ndim == 0:
            return None
        if any(self.point[name].ndim != 0 for name in self.inputs):
            return None
        columns = [self.jacobian[name].reshape(-1) for name in self.inputs]
        return np.stack(columns, axis=-1)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every result array by the name plain output gives it: ``value``, ``grad.x``,
        ``hessian.x.y``."""
        from .render import leaves

        return {".".join(path): array for path, array in leaves(self.as_tree())}

    def as_tree(self) -> dict:
        """The result arrays as nested dicts, in the order they are shown:
        ``{"value": V, "grad": {"x": G}}``."""
        tree = {"value": self.value}
        for key in SECTIONS[self.command]:
            tree[key] = _thawed(getattr(self, key))
        return tree


def _title(source: str, filename: str) -> str:
    text = source.strip()
    if filename == "<expr>" or ("\n" not in text and len(text) <= 60):
        return text
    return filename


def _thawed(section):
    if isinstance(section, Mapping):
        return {key: _thawed(value) for key, value in section.items()}
    return section


# ----------------------------------------------------------------------------
# The commands
# ----------------------------------------------------------------------------


def evaluate(
    source: str,
    bindings: Mapping | None = None,
    *,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """The program's value."""
    with _session(source, bindings, (), dtype, seed, filename, max_elements) as s:
        with gradcli.no_grad():
            value = s.run(s.leaves(()))
        return s.result("eval", value)


def gradient(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    steps: bool = False,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """The value and the gradient of a scalar output with respect to each input.

    ``steps``: also the graph and the steps of the reverse pass (``Result.graph``).
    """
    with _session(source, bindings, wrt, dtype, seed, filename, max_elements) as s:
        out, grads = s.scalar_gradient("grad")
        traced = s.graph(np.ones(out.shape, s.dtype)) if steps else None
        return s.result("grad", out, grad=grads, graph=traced)


def jacobian(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """The value and, for each input x, the Jacobian of shape ``value.shape + x.shape``."""
    with _session(source, bindings, wrt, dtype, seed, filename, max_elements) as s:
        f, outputs = s.function(s.wrt)
        if s.wrt:
            from gradcli.autograd import functional

            blocks = functional.jacobian(f, s.point(s.wrt))
            value = outputs[0]
        else:
            value, blocks = f(), ()
        jac = {n: _array(b) for n, b in zip(s.wrt, blocks)}
        result = s.result("jacobian", value, jacobian=jac)
        from .analysis.assembled import assemble_jacobian, wants_jacobian

        if wants_jacobian(result.value.shape, result.shapes, result.inputs):
            whole = assemble_jacobian(result.value, result.jacobian, result.shapes)
            result = dataclasses.replace(result, assembled=whole)
        return result


def hessian(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """The value, the gradient and every block ``H[x][y]`` of the Hessian of a scalar output."""
    with _session(source, bindings, wrt, dtype, seed, filename, max_elements) as s:
        out, grads = s.scalar_gradient("hessian")
        hess: dict[str, dict[str, np.ndarray]] = {}
        if s.wrt:
            from gradcli.autograd import functional

            f, _ = s.function(s.wrt)
            blocks = functional.hessian(f, s.point(s.wrt))
            for x, row in zip(s.wrt, blocks):
                # reshape: an output of shape (1,) would add its own axes.
                hess[x] = {
                    y: _array(block).reshape(s.shape(x) + s.shape(y))
                    for y, block in zip(s.wrt, row)
                }
        result = s.result("hessian", out, grad=grads, hessian=hess)
        from .analysis.assembled import assemble_hessian, wants_hessian

        if wants_hessian(result.shapes, result.inputs):
            whole = assemble_hessian(result.value, result.grad, result.hessian, result.shapes)
            result = dataclasses.replace(result, assembled=whole)
        return result


def vjp(
    source: str,
    bindings: Mapping | None = None,
    *,
    grad_output=None,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    steps: bool = False,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """``backward(grad_output)``: the vector-Jacobian product for each input.

    ``grad_output`` has the output's shape; it may be left out for a scalar output.
    ``steps``: also the graph and the steps of the reverse pass (``Result.graph``).
    """
    with _session(source, bindings, wrt, dtype, seed, filename, max_elements) as s:
        f, _ = s.function(s.wrt)
        with gradcli.no_grad():
            value = f(*s.point(s.wrt))
        v = s.grad_output(grad_output, value, "vjp")
        products: dict[str, np.ndarray] = {}
        if s.wrt:
            from gradcli.autograd import functional

            _, vjps = functional.vjp(f, s.point(s.wrt), gradcli.tensor(v, dtype=s.gdtype))
            products = {n: _array(g) for n, g in zip(s.wrt, vjps)}
        traced = s.graph(v) if steps else None
        return s.result("vjp", value, vjp=products, grad_output=v, graph=traced)


@dataclass(frozen=True, eq=False)
class GraphResult:
    """The autograd graph of a program's output (``gradcli.autograd.graph.Graph``),
    each node with the source text it came from, and the reverse pass over it."""

    source: str
    filename: str
    #: Output first; ``node.text`` is the source text of an op's node.
    nodes: tuple
    #: ``(input id, output id)``.
    edges: tuple[tuple[int, int], ...]
    #: The reverse pass, in the order the engine ran it (``autograd.graph.Step``).
    steps: tuple
    #: The value of the output.
    value: np.ndarray
    #: The gradient the reverse pass started from; None for none (a non-scalar output
    #: without one).
    grad_output: np.ndarray | None
    warnings: tuple[Diagnostic, ...] = ()
    notes: tuple[Diagnostic, ...] = ()

    @property
    def title(self) -> str:
        return _title(self.source, self.filename)

    @property
    def finite(self) -> bool:
        return _finite(self.value) and all(n.grad is None or _finite(n.grad) for n in self.nodes)


def graph(
    source: str,
    bindings: Mapping | None = None,
    *,
    grad_output=None,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> GraphResult:
    """The autograd graph of the output, from the output down to the inputs in
    ``wrt`` (the leaves), each node with its value and the gradient that reached it
    in ``output.backward(grad_output)``.

    ``grad_output`` may be left out for a scalar output (it is 1); for another
    output, leaving it out gives the graph without gradients.
    """
    with _session(source, bindings, wrt, dtype, seed, filename, max_elements) as s:
        leaves = s.leaves(s.wrt)
        value = s.run(leaves)
        v = None
        if grad_output is not None or value._data.size == 1:
            v = s.grad_output(grad_output, value, "graph")
        traced = s.graph(v)
        finished = s.result("eval", value)
        return dataclasses.replace(traced, warnings=finished.warnings, notes=finished.notes)


def jvp(
    source: str,
    bindings: Mapping | None = None,
    *,
    tangents: Mapping | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Result:
    """The directional derivative: the Jacobian times the tangent of each named input.

    Inputs without a tangent are held fixed. A tangent has its input's shape.
    """
    with _session(source, bindings, (), dtype, seed, filename, max_elements) as s:
        tangents = dict(tangents or {})
        if not tangents:
            raise GradcliError("jvp needs a direction: --tangent NAME=V for each input to move")
        if None in tangents:
            # --tangent V without a name: the program's only input.
            if len(s.inputs) != 1:
                count = f"{len(s.inputs)} inputs" if s.inputs else "no inputs"
                raise GradcliError(
                    f"--tangent V names no input, but the program has {count}: "
                    "write --tangent NAME=V"
                )
            tangents[s.inputs[0]] = tangents.pop(None)
        names = s.differentiable(s.check_names(tangents, "--tangent {}"))
        s.wrt = names
        directions = {}
        for name in names:
            t = s.value_of(f"the tangent of {name}", tangents[name])
            if t.shape != s.shape(name):
                raise GradcliError(
                    f"the tangent of {name} has shape {t.shape}, but {name} has shape "
                    f"{s.shape(name)}: they must be the same"
                )
            directions[name] = t
        from gradcli.autograd import functional

        f, _ = s.function(names)
        value, product = functional.jvp(
            f, s.point(names), tuple(gradcli.tensor(directions[n]) for n in names)
        )
        return s.result("jvp", value, jvp=_array(product), tangents=directions)


# ----------------------------------------------------------------------------
# The functions a program can call
# ----------------------------------------------------------------------------

#: The kinds of ``gradcli.ops.FUNCTIONS``, in the order they are listed.
KINDS = ("elementwise", "binary", "reduction", "linalg", "loss", "shape", "constructor", "other")


@dataclass(frozen=True)
class FunctionInfo:
    """One function of the language, as ``gradcli functions`` lists it."""

    name: str
    #: The parameters the language takes: ``"(input, dim=None, keepdim=False)"``.
    signature: str
    #: One of ``KINDS``.
    kind: str
    #: One line.
    doc: str
    #: The convention at points where the function is not differentiable, or None.
    kink: str | None


def functions(name: str | None = None) -> tuple[FunctionInfo, ...]:
    """Every function of the op table, grouped by kind in ``KINDS`` order (the op
    table's order within a kind); only ``name`` when given.

    An unknown ``name`` is a ``GradcliError`` that suggests the closest one.
    """
    from gradcli.language.check import (
        CALCULATOR_FORMS,
        language_parameters,
        python_signature,
        suggest_function,
    )

    table = gradcli.ops.FUNCTIONS
    if name is not None and name not in table:
        raise GradcliError(f"unknown function {name!r}{suggest_function(name)}")
    chosen = [table[name]] if name is not None else table.values()
    # A kind missing from KINDS goes last rather than nowhere.
    ordered = sorted(chosen, key=lambda f: KINDS.index(f.kind) if f.kind in KINDS else len(KINDS))
    return tuple(
        FunctionInfo(
            f.name,
            str(language_parameters(python_signature(f.name))),
            f.kind,
            _description(f.name, CALCULATOR_FORMS.get(f.name, (None, f.doc))[1]),
            f.kink,
        )
        for f in ordered
    )


def _description(name: str, doc: str) -> str:
    """The one-line doc without the call it often starts with
    (``sum(x, dim=None): sum of entries``): the listing shows the signature beside it."""
    if doc.startswith(name + "(") and "): " in doc:
        doc = doc.split("): ", 1)[1]
    return doc.removesuffix(".")


# ----------------------------------------------------------------------------
# One evaluation: the compiled program, its bound inputs, its options
# ----------------------------------------------------------------------------


@contextlib.contextmanager
def _session(source, bindings, wrt, dtype, seed, filename, max_elements=DEFAULT_MAX_ELEMENTS):
    if dtype not in DTYPES:
        raise GradcliError(f"unknown dtype {dtype!r}: use float64 or float32")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise GradcliError(f"the seed must be a non-negative integer, not {seed!r}")
    if isinstance(max_elements, bool) or not isinstance(max_elements, int) or max_elements < 1:
        raise GradcliError(f"max_elements must be a positive integer, not {max_elements!r}")
    before = gradcli.get_default_dtype()
    gradcli.set_default_dtype(getattr(gradcli, dtype))
    try:
        # nan and inf are results here, reported once as warnings, not NumPy's chatter.
        with np.errstate(all="ignore"), limits.max_elements(max_elements):
            yield _Session(source, dict(bindings or {}), wrt, dtype, seed, filename)
    finally:
        gradcli.set_default_dtype(before)


class _Session:
    """A compiled program with every input bound: what each command starts from."""

    def __init__(self, source, bindings, wrt, dtype, seed, filename):
        from gradcli.language import compile_source
        from gradcli.language.check import BUILTIN_CONSTANTS

        self.source = source
        self.filename = filename
        self.seed = seed
        self.gdtype = getattr(gradcli, dtype)
        self.dtype = np.dtype(dtype)
        # --e 3 binds an input named e (a charge), for this run, rather than failing.
        bound_constants = [name for name in bindings if name in BUILTIN_CONSTANTS]
        self.program = compile_source(source, filename=filename, inputs=bound_constants)
        self.binding_notes = tuple(
            Diagnostic(
                "note",
                f"--{name} makes {name} an input of this run, not the constant"
                f" {name} = {BUILTIN_CONSTANTS[name]}",
            )
            for name in bound_constants
            if name in self.program.inputs
        )
        self.inputs = tuple(self.program.inputs)
        self.watch: list = []
        self.notes: list = []
        self.values = self._bind(bindings)
        if wrt is None:
            # Every input that can be differentiated: a boolean one (a mask) cannot.
            self.wrt = tuple(n for n in self.inputs if self.values[n].dtype.kind == "f")
        else:
            self.wrt = self.differentiable(self.check_names(dict.fromkeys(wrt), "--wrt {}"))

    # ----- binding -----
    def _bind(self, bindings) -> dict[str, np.ndarray]:
        """Every input's value: bound, else the program's; also sets ``self.constants``,
        the consts given a value (they are never differentiated)."""
        self.constants = {
            name: self.value_of(f"--{name}", bindings.pop(name))
            for name in self.program.constants
            if name in bindings
        }
        defaults = self.program.defaults(seed=self.seed, constants=self.constants)
        missing = [n for n in self.inputs if n not in bindings and n not in defaults]
        stray = [name for name in bindings if name not in self.inputs]
        close = [(name, _close_to(name, stray)) for name in missing]
        close = [(name, found[0]) for name, found in close if found]
        if close:
            # A free name and a binding close to it: a typo on one side or the other.
            name, bound = close[0]
            raise GradcliError(
                f"no value for {name}: --{bound} binds no input (did you mean --{name}?)",
                self.program.analysis.free_spans.get(name),
                self.program.source,
            )
        self.check_names(bindings, "--{}")
        module_error = self.program.analysis.module_errors.get(missing[0]) if missing else None
        if module_error is not None:  # torch.sum(x) without a value for torch
            raise module_error.with_source(self.program.source)
        if missing and missing[0] in gradcli.ops.FUNCTIONS:
            # exp -x: a function's name read as an input, which check_free explains.
            self.program.check_free([n for n in self.inputs if n != missing[0]])
        if missing:
            listed = ", ".join(missing)
            hint = " ".join(
                f"--var {n}=VALUE" if n in _OPTION_NAMES else f"--{n} VALUE" for n in missing
            )
            raise GradcliError(
                f"no value for {listed}: bind {'it' if len(missing) == 1 else 'them'} with {hint}",
                self.program.analysis.free_spans.get(missing[0]),
                self.program.source,
            )
        return {
            name: self.value_of(f"--{name}", bindings[name])
            if name in bindings
            else self._cast(np.asarray(defaults[name]))
            for name in self.inputs
        }

    def check_names(self, names, option: str) -> tuple[str, ...]:
        """``names`` in order, each an input of the program, else a did-you-mean error."""
        for name in names:
            if name in self.inputs:
                continue
            if name in tuple(self.program.constants):
                raise GradcliError(
                    f"{option.format(name)}: {name} is declared const: it is never differentiated"
                )
            raise GradcliError(f"{option.format(name)}: {_no_such_input(name, self.inputs)}")
        return tuple(names)

    def differentiable(self, names) -> tuple[str, ...]:
        """``names``, each an input of floating point, else an error."""
        for name in names:
            if self.values[name].dtype.kind != "f":
                raise GradcliError(f"cannot differentiate with respect to {name}: it is boolean")
        return tuple(names)

    def value_of(self, name: str, value) -> np.ndarray:
        """A binding's array, in the session's dtype."""
        if isinstance(value, str):
            value = _bindings.parse_value(value, name=name, seed=_seed_for(self.seed, name))
        return self._cast(np.asarray(value), name)

    def _cast(self, array: np.ndarray, name: str | None = None) -> np.ndarray:
        if array.dtype.kind in "iuf":
            return array.astype(self.dtype)
        if array.dtype.kind == "b":
            return array
        raise GradcliError(f"{name or 'a value'} is not numeric (dtype {array.dtype})")

    def shape(self, name: str) -> tuple[int, ...]:
        return self.values[name].shape

    # ----- running -----
    def leaves(self, wrt) -> dict:
        """A leaf tensor for every input; those in ``wrt`` require grad."""
        leaves = {name: gradcli.tensor(v) for name, v in self.constants.items()}
        for name, v in self.values.items():
            leaves[name] = gradcli.tensor(v, requires_grad=name in wrt)
        return leaves

    def point(self, names) -> tuple:
        """The inputs ``names`` as tensors, for ``gradcli.autograd.functional``."""
        return tuple(gradcli.tensor(self.values[n]) for n in names)

    def run(self, leaves, origins=None, sources=None):
        """Evaluate once, watching for the first operation that makes nan or inf.

        ``origins``: a dict to fill with where in the source each graph node came from
        (see ``CompiledProgram.run``).
        """
        # Reseeding makes every evaluation draw the same random numbers, so the
        # several passes of a Hessian see one and the same function.
        gradcli.manual_seed(self.seed)
        # The watch keeps its first find; the re-run that records origins adds nothing.
        watching = not self.watch and origins is None
        return self.program.run(
            leaves,
            watch_nonfinite=self.watch if watching else None,
            origins=origins,
            notes=self.notes,
            sources=sources,
        )

    def grad_output(self, given, value, command: str) -> np.ndarray:
        """The gradient a reverse pass from ``value`` starts from: ``given`` (of the
        output's shape), or 1 for a scalar output when it is None."""
        if given is None:
            if value._data.size != 1:
                raise GradcliError(
                    f"{command} needs --grad-output V of the output's shape "
                    f"{tuple(value.shape)}; it can be left out only for a scalar output"
                )
            return np.ones(value.shape, dtype=self.dtype)
        v = self.value_of("--grad-output", given)
        if v.shape != value.shape:
            raise GradcliError(
                f"--grad-output has shape {v.shape}, but the output has shape "
                f"{tuple(value.shape)}: they must be the same"
            )
        return v

    def graph(self, grad_output) -> GraphResult:
        """One more evaluation, recording where each node came from, and its graph with
        the reverse pass from ``grad_output`` (None: no pass)."""
        from gradcli.autograd.graph import trace

        leaves = self.leaves(self.wrt)
        sources: dict = {}
        origins: dict = {}
        out = self.run(leaves, origins, sources)
        for node, (_, span) in origins.items():
            sources.setdefault(node, span)  # a node made inside a call: the call's span
        start = None if grad_output is None else gradcli.tensor(grad_output, dtype=self.gdtype)
        traced = trace(out, start, {name: leaves[name] for name in self.wrt}, sources)
        nodes = tuple(
            dataclasses.replace(node, **_source_extent(self.source, node.span))
            for node in traced.nodes
        )
        return GraphResult(
            source=self.source,
            filename=self.filename,
            nodes=nodes,
            edges=traced.edges,
            steps=traced.steps,
            value=_frozen_array(_array(out)),
            grad_output=None if grad_output is None else _frozen_array(grad_output),
        )

    def scalar_gradient(self, command: str):
        """``(out, grads)``: the output, which must be a scalar, and its gradient
        for each input of ``wrt``."""
        leaves = self.leaves(self.wrt)
        out = self.run(leaves)
        _require_scalar(out, command)
        return out, _grads(out, {n: leaves[n] for n in self.wrt})

    def function(self, names):
        """``f(*tensors)``: the program as a function of ``names``, the other inputs fixed.

        Also returns the list of outputs it produced, the first being the value.
        """
        fixed = self.leaves(())
        outputs: list = []

        def f(*tensors):
            env = dict(fixed)
            env.update(zip(names, tensors))
            out = self.run(env)
            outputs.append(out)
            return out

        return f, outputs

    # ----- the result -----
    def result(self, command: str, value, **fields) -> Result:
        """The frozen result, with a warning for each result array that is not finite."""
        from .render import leaves

        value = self._numeric(_array(value))
        fields = {
            key: section if key == "graph" else self._numeric(section)
            for key, section in fields.items()
        }
        warnings = [] if _finite(value) else [self._nonfinite_warning(value)]
        shown = {key: fields[key] for key in SECTIONS[command]}
        for path, array in leaves(shown):
            if not _finite(array):
                head = f"{'.'.join(path)} contains {_kinds(array)}"
                warnings.append(
                    Diagnostic("warning", head) if warnings else self._derivative_warning(head)
                )
        return Result(
            command=command,
            source=self.source,
            filename=self.filename,
            value=_frozen_array(value),
            inputs=tuple(self.wrt),
            point=_frozen(self.values),
            warnings=tuple(warnings),
            notes=self.binding_notes + self._notes(),
            **{
                key: section if key == "graph" else _frozen(section)
                for key, section in fields.items()
            },
        )

    def _notes(self) -> tuple[Diagnostic, ...]:
        """A note for each call that landed on a kink, once each (a Jacobian evaluates
        the program more than once)."""
        from gradcli.engine.ops import FUNCTIONS

        notes = {}
        for function, span, where, convention in self.notes:
            known = FUNCTIONS.get(function)
            convention = convention or (known and known.kink)
            message = f"{function} is evaluated {where}, where it has no derivative"
            if convention:
                message += f" (convention: {convention})"
            notes.setdefault((message, span), Diagnostic("note", message, span, self.source))
        return tuple(notes.values())

    def _numeric(self, section):
        """Booleans (a mask given as the value) as the numbers 1 and 0, as the language
        writes True and False."""
        if isinstance(section, Mapping):
            return {key: self._numeric(value) for key, value in section.items()}
        if isinstance(section, np.ndarray) and section.dtype.kind == "b":
            return section.astype(self.dtype)
        return section

    def _derivative_warning(self, head: str) -> Diagnostic:
        """The warning for a derivative that is nan or inf where the value is finite,
        naming the first operation whose derivative made it, with a caret."""
        head += " at a point where the value is finite"
        found = self._derivative_origin()
        if found is None:
            return Diagnostic("warning", head)
        description, span = found
        return _warning(
            f"{head}; the first came from the derivative of {description}", span, self.source
        )

    def _derivative_origin(self):
        """``(description, span)`` of the first operation whose derivative turned a finite
        gradient into nan or inf, found by one more evaluation and reverse pass."""
        leaves = self.leaves(self.wrt)
        wanted = [leaves[name] for name in self.wrt]
        origins: dict = {}
        out = self.run(leaves, origins)
        if not wanted or not out.requires_grad:
            return None
        with gradcli.autograd.first_nonfinite() as watch:
            gradcli.autograd.grad(out, wanted, gradcli.ones_like(out), allow_unused=True)
        if watch.node is None:
            return None
        return origins.get(watch.node, (watch.node.name(), None))

    def _nonfinite_warning(self, value) -> Diagnostic:
        head = f"the value contains {_kinds(value)}"
        if not self.watch:
            # No operation made it: an input given that way did (--x nan, @FILE).
            given = {**self.constants, **self.values}
            held = [f"{n} holds {_kinds(v)}" for n, v in given.items() if not _finite(v)]
            return Diagnostic("warning", f"{head}; the input {held[0]}" if held else head)
        description, span = self.watch[0]
        message = f"the value contains {_kinds(value)}; the first came from {description}"
        return _warning(message, span, self.source)


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


def _warning(message: str, span, source: str) -> Diagnostic:
    """``warning: message`` with the source line and a caret under ``span``."""
    return Diagnostic("warning", message, span, source)


def _source_extent(source: str, span) -> dict:
    """``{"span", "text"}``: ``span`` with the brackets the parser leaves out of it put
    back (``(x+2)**2``), and its source text (its first line when it spans several)."""
    if span is None:
        return {"span": None, "text": None}
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return {"span": span, "text": None}
    line = lines[span.line - 1]
    if span.end_line not in (None, span.line) or span.end_column is None:
        return {"span": span, "text": line[span.column - 1 :].rstrip() + " …"}
    start, stop = span.column - 1, span.end_column
    while line[start:stop].count(")") > line[start:stop].count("(") and "(" in line[:start]:
        start = line.rindex("(", 0, start)
    while line[start:stop].count("(") > line[start:stop].count(")") and ")" in line[stop:]:
        stop = line.index(")", stop) + 1
    return {"span": Span(span.line, start + 1, span.line, stop), "text": line[start:stop]}


def _require_scalar(out, command: str) -> None:
    if out._data.size != 1:
        raise GradcliError(
            f"{command} needs a scalar output, but the output has shape {tuple(out.shape)}: "
            f"use `gradcli jacobian` for the full Jacobian, or `gradcli vjp --grad-output V` "
            f"for one vector-Jacobian product"
        )


def _grads(out, leaves: Mapping) -> dict[str, np.ndarray]:
    """d(out)/d(leaf) for each named leaf; zeros for a leaf the output does not use."""
    if not out.requires_grad:
        return {name: np.zeros(t.shape, t._data.dtype) for name, t in leaves.items()}
    found = gradcli.autograd.grad(
        out, list(leaves.values()), allow_unused=True, materialize_grads=True
    )
    return {name: _array(g) for name, g in zip(leaves, found)}


def _close_to(name: str, names: Sequence[str]) -> list[str]:
    """The name in ``names`` that ``name`` is most likely a typo of (a list of 0 or 1)."""
    import difflib

    same = [n for n in names if n.casefold() == name.casefold()]
    return same[:1] or difflib.get_close_matches(name, names, n=1)


def _no_such_input(name: str, inputs: Sequence[str]) -> str:
    text = f"the program has no input named {name!r}"
    close = _close_to(name, inputs)
    if close:
        text += f" (did you mean {close[0]!r}?)"
    if inputs:
        text += f"; its inputs are {', '.join(inputs)}"
    else:
        text += "; it has no inputs"
    return text


def _seed_for(seed: int, name: str) -> int:
    """Each bound name draws its own random stream, fixed by ``--seed`` and the name,
    so adding one binding never changes another's numbers."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**32


def _array(value) -> np.ndarray:
    if isinstance(value, gradcli.Tensor):
        return np.array(value._data)
    return np.array(value)


def _frozen_array(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.flags.writeable = False
    return array


def _frozen(section):
    """A read-only copy: arrays not writeable, dicts (of dicts) of them proxied."""
    if isinstance(section, Mapping):
        return MappingProxyType({key: _frozen(value) for key, value in section.items()})
    return _frozen_array(section)


def _finite(array) -> bool:
    array = np.asarray(array)
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())


def _kinds(array) -> str:
    array = np.asarray(array)
    found = []
    if np.isnan(array).any():
        found.append("nan")
    if np.isposinf(array).any():
        found.append("inf")
    if np.isneginf(array).any():
        found.append("-inf")
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
