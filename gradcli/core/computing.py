"""What each computing command computes, on one evaluation: ``evaluate``, ``gradient``,
``jacobian``, ``hessian``, ``vjp``, ``jvp`` and ``graph``, each returning a frozen result,
and ``functions()``, the functions a program can call. ``gradcli.api`` is their public
path; the analyses build on them from here, below the facade.

``COMMANDS`` declares them as commands, once (``Computing``): ``gradcli NAME`` with its
help and options, and the calculator's ``:NAME``, are made from it.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

import gradcli

from ..engine.limits import DEFAULT_MAX_ELEMENTS
from ..errors import GradcliError
from ..language import compile_source
from ..language.check import BUILTIN_CONSTANTS, suggest_function
from ..language.derivatives import FORMS, PARAMETERS
from ..language.signatures import language_parameters, python_signature
from ..language.transformations import TRANSFORMATIONS
from ..record import Record, replace
from .assembled import (
    assemble_hessian,
    assemble_jacobian,
    singular_note,
    wants_hessian,
    wants_jacobian,
)
from .evaluation import evaluation, plain_array
from .holomorphic import holomorphic_jacobian
from .result import KINDS, Diagnostic, FunctionInfo, GraphResult, Result

# ----------------------------------------------------------------------------
# The commands
# ----------------------------------------------------------------------------


class _Run(Record):
    """What every command evaluates: the program's source and bindings, and the settings
    of its evaluation. Declared once here; each command's public signature is built from
    these fields and the command's own keywords (``_command``)."""

    source: str
    bindings: Mapping | None = None
    dtype: str = "float64"
    seed: int = 0
    filename: str = "<expr>"
    max_elements: int = DEFAULT_MAX_ELEMENTS

    def evaluation(self, wrt, announce=None, command=None, complex_inputs=False):
        """The evaluation ``command`` runs (it names itself where complex inputs are
        refused; ``complex_inputs``: it takes them)."""
        return evaluation(
            self.source, self.bindings, wrt, self.dtype, self.seed, self.filename,
            self.max_elements, announce, command=command, complex_inputs=complex_inputs,
        )  # fmt: skip


def _command(body):
    """``body(run, *, own keywords)`` as the public ``name(source, bindings=None, *, own
    keywords, dtype=..., seed=..., filename=..., max_elements=...)``: arguments are
    bound and checked as that signature says, the run's gathered into a ``_Run``."""
    own = list(inspect.signature(body).parameters.values())[1:]
    names = _Run._fields
    source, bindings, *settings = names
    types, defaults = _Run.__annotations__, _Run._defaults
    positional, keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    public = inspect.Signature(
        [
            inspect.Parameter(source, positional, annotation=types[source]),
            inspect.Parameter(bindings, positional, default=None, annotation=types[bindings]),
            *own,
            *(
                inspect.Parameter(f, keyword, default=defaults[f], annotation=types[f])
                for f in settings
            ),
        ],
        return_annotation=inspect.signature(body).return_annotation,
    )

    @functools.wraps(body)
    def command(*args, **kwargs):
        arguments = public.bind(*args, **kwargs).arguments
        return body(_Run(**{n: arguments.pop(n) for n in names if n in arguments}), **arguments)

    command.__signature__ = public
    return command


@_command
def evaluate(run: _Run) -> Result:
    """The program's value."""
    with run.evaluation((), command="eval", complex_inputs=True) as s:
        with gradcli.no_grad():
            value = s.run(s.leaves(()))
        return s.result("eval", value)


@_command
def gradient(run: _Run, *, wrt: Sequence[str] | None = None, steps: bool = False) -> Result:
    """The value and the gradient of a scalar output with respect to each input.

    ``steps``: also the graph and the steps of the reverse pass (``Result.graph``).
    """
    with run.evaluation(wrt, command="grad", complex_inputs=True) as s:
        out, grads = s.scalar_gradient("grad")
        traced = s.graph(np.ones(out.shape, s.dtype)) if steps else None
        return s.result("grad", out, grad=grads, graph=traced)


@_command
def jacobian(
    run: _Run, *, wrt: Sequence[str] | None = None, announce=None, holomorphic: bool = False
) -> Result:
    """The value and, for each input x, the Jacobian of shape ``value.shape + x.shape``.

    ``announce(note)``: called before the Jacobian is computed with a note when, over
    every input, it would hold over 10^6 numbers (the note is in the result too).
    ``holomorphic``: the complex derivative f'(z) instead, of a program holomorphic in
    its inputs (real ones are taken as complex), refused where the Cauchy–Riemann
    equations fail (``core/holomorphic.py``).
    """
    with run.evaluation(wrt, announce, command="jacobian", complex_inputs=True) as s:
        f, outputs = s.function(s.wrt)
        if s.default_wrt and len(s.wrt) > 1:
            with gradcli.no_grad():
                size = f(*s.point(s.wrt)).numel()  # the output's size, before the Jacobian
            s.size_note("Jacobian", lambda entries: size * entries)
        if s.wrt:
            from ..autograd import functional

            if holomorphic:
                blocks = holomorphic_jacobian(f, s.point(s.wrt), s.wrt)
            else:
                # Vectorized, PyTorch's rows are vjps of unit vectors: complex outputs too.
                blocks = functional.jacobian(f, s.point(s.wrt), vectorize=True)
            value = outputs[0]
        else:
            value, blocks = f(), ()
        jac = {n: plain_array(b) for n, b in zip(s.wrt, blocks)}
        result = s.result("jacobian", value, jacobian=jac)
        # The whole Jacobian and its determinant are of real ones (assembled.py) for now.
        real = not any(np.iscomplexobj(a) for a in (result.value, *jac.values()))
        if (
            real
            and not holomorphic
            and wants_jacobian(result.value.shape, result.shapes, result.inputs)
        ):
            whole = assemble_jacobian(result.value, result.jacobian, result.shapes)
            result = replace(result, assembled=whole)
            note = singular_note(whole)
            if note is not None:
                result = replace(result, notes=(*result.notes, Diagnostic("note", note)))
        return result


@_command
def hessian(run: _Run, *, wrt: Sequence[str] | None = None, announce=None) -> Result:
    """The value, the gradient and every block ``H[x][y]`` of the Hessian of a scalar output.

    ``announce(note)``: called before the Hessian is computed with a note when, over every
    input, it would hold over 10^6 numbers (the note is in the result too).
    """
    with run.evaluation(wrt, announce, command="hessian", complex_inputs=True) as s:
        s.size_note("Hessian", lambda entries: entries * entries)
        out, grads = s.scalar_gradient("hessian")
        hess: dict[str, dict[str, np.ndarray]] = {}
        if s.wrt:
            from ..autograd import functional

            f, _ = s.function(s.wrt)
            blocks = functional.hessian(f, s.point(s.wrt), vectorize=True)
            for x, row in zip(s.wrt, blocks):
                # reshape: an output of shape (1,) would add its own axes.
                hess[x] = {
                    y: plain_array(block).reshape(s.shape(x) + s.shape(y))
                    for y, block in zip(s.wrt, row)
                }
        result = s.result("hessian", out, grad=grads, hessian=hess)
        # Eigenvalues and the classification of a critical point are of real Hessians.
        real = not any(np.iscomplexobj(b) for row in hess.values() for b in row.values())
        if real and wants_hessian(result.shapes, result.inputs):
            whole = assemble_hessian(result.value, result.grad, result.hessian, result.shapes)
            result = replace(result, assembled=whole)
        return result


@_command
def vjp(
    run: _Run, *, grad_output=None, wrt: Sequence[str] | None = None, steps: bool = False
) -> Result:
    """``backward(grad_output)``: the vector-Jacobian product for each input.

    ``grad_output`` has the output's shape; it may be left out for a scalar output.
    ``steps``: also the graph and the steps of the reverse pass (``Result.graph``).
    """
    with run.evaluation(wrt, command="vjp", complex_inputs=True) as s:
        f, _ = s.function(s.wrt)
        with gradcli.no_grad():
            value = f(*s.point(s.wrt))
        v = s.grad_output(grad_output, value, "vjp")
        products: dict[str, np.ndarray] = {}
        if s.wrt:
            from ..autograd import functional

            _, vjps = functional.vjp(f, s.point(s.wrt), gradcli.tensor(v))  # v in its dtype
            products = {n: plain_array(g) for n, g in zip(s.wrt, vjps)}
        traced = s.graph(v) if steps else None
        return s.result("vjp", value, vjp=products, grad_output=v, graph=traced)


@_command
def graph(run: _Run, *, grad_output=None, wrt: Sequence[str] | None = None) -> GraphResult:
    """The autograd graph of the output, from the output down to the inputs in
    ``wrt`` (the leaves), each node with its value and the gradient that reached it
    in ``output.backward(grad_output)``.

    ``grad_output`` may be left out for a scalar output (it is 1); for another
    output, leaving it out gives the graph without gradients.
    """
    with run.evaluation(wrt, command="graph") as s:
        leaves = s.leaves(s.wrt)
        value = s.run(leaves)
        v = None
        if grad_output is not None or value.numel() == 1:
            v = s.grad_output(grad_output, value, "graph")
        traced = s.graph(v)
        finished = s.result("eval", value)
        return replace(traced, warnings=finished.warnings, notes=finished.notes)


@_command
def jvp(
    run: _Run, *, tangents: Mapping | None = None, unit: bool = False, order: int = 1
) -> Result:
    """The directional derivative: the Jacobian times the tangent of each named input.

    Inputs without a tangent are held fixed. A tangent has its input's shape.
    ``unit``: along the unit vector of the tangents, J t/|t| with |t| the norm of
    all of them together (the result's ``tangents`` are the unit ones).
    ``order`` k: the k-th derivative ``d^k/ds^k f(x + s t)`` at s = 0, by Taylor
    arithmetic (``engine/jet.py``).
    """
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise GradcliError(f"--order must be an integer of at least 1, not {order!r}")
    with run.evaluation((), command="jvp", complex_inputs=True) as s:
        directions = s.directions(tangents, unit)
        names = s.wrt
        if order > 1:
            return _jvp_of_order(s, names, directions, order)
        from ..autograd import functional

        f, _ = s.function(names)
        point = s.point(names)
        # A real tangent of a complex input moves along its real axis.
        value, product = functional.jvp(
            f,
            point,
            tuple(gradcli.tensor(directions[n], dtype=z.dtype) for n, z in zip(names, point)),
        )
        return s.result("jvp", value, jvp=plain_array(product), tangents=directions)


def _jvp_of_order(s, names, directions, order):
    from ..engine import jet

    if any(np.iscomplexobj(a) for a in (*directions.values(), *s.values.values())):
        raise GradcliError("complex input is not supported by gradcli's jvp --order yet")

    f, _ = s.function(names)
    leaves = [gradcli.tensor(s.values[n], requires_grad=True) for n in names]
    out = f(*leaves)
    b = jet.basis(1, order)
    # One variable s moves every input along its tangent: x + s t.
    seeds = [jet.constant(b, np.asarray(leaf._data)) for leaf in leaves]
    for seed, name in zip(seeds, names):
        seed[1] = directions[name]
    series = jet.propagate(out, leaves, b, seeds)
    derivative = series[order] * math.factorial(order)
    return s.result("jvp", out.detach(), jvp=plain_array(derivative.astype(out._data.dtype)),
                    tangents=directions)  # fmt: skip


def input_names(source: str, filename: str = "<expr>", bound=()) -> tuple[str, ...]:
    """The names a binding may give a value: the program's inputs, then its consts.
    ``bound``: the names bound, of which a constant the program uses (``--e 3``) is an
    input of the run, as the evaluation makes it."""
    shadowed = [name for name in bound if name in BUILTIN_CONSTANTS]
    program = compile_source(source, filename=filename, inputs=shadowed)
    return (*program.inputs, *program.constants)


# ----------------------------------------------------------------------------
# The functions a program can call
# ----------------------------------------------------------------------------


def functions(name: str | None = None) -> tuple[FunctionInfo, ...]:
    """Every function of the op table, grouped by kind in ``KINDS`` order (the op
    table's order within a kind), then the derivatives inside programs (``grad(F,
    x)``, ``jacobian``, ``hessian``) and the transformations (``integrate``, ``root``,
    ``minimizer``, ``odeint``: functions that take a function); only ``name`` when
    given.

    An unknown ``name`` is a ``GradcliError`` that suggests the closest one, and names the
    functions whose description has it as a word (``cdf``: ndtr, ndtri, log_ndtr, ...).
    """
    table = gradcli.ops.FUNCTIONS
    if name is not None and name not in table and name not in TRANSFORMATIONS | FORMS:
        word = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
        found = [f.name for f in table.values() if word.search((f.language_form or f).doc)]
        mention = f"; {name!r} is in the description of {', '.join(found)}" if found else ""
        raise GradcliError(f"unknown function {name!r}{suggest_function(name)}{mention}")
    chosen = [table[name]] if name in table else table.values() if name is None else []
    # A kind missing from KINDS goes last rather than nowhere.
    ordered = sorted(chosen, key=lambda f: KINDS.index(f.kind) if f.kind in KINDS else len(KINDS))
    listed = [
        FunctionInfo(
            f.name,
            str(language_parameters(python_signature(f.name))),
            f.kind,
            _description(f.name, (f.language_form or f).doc),  # the language's form, if any
            f.kink,
            tuple(str(d) for d in f.differs),
        )
        for f in ordered
    ]
    listed += [
        FunctionInfo(
            form,
            f"({', '.join(PARAMETERS)})",
            "derivative",
            f"{doc}, as torch.autograd.grad(..., create_graph=True): differentiable again;"
            " x is a name; diff: SymPy's derivative",
            None,
        )
        for form, doc in FORMS.items()
        if name is None or name == form
    ]
    listed += [
        FunctionInfo(t.name, t.shown, "transformation", f"{t.doc}; diff: {t.symbolic}", None)
        for t in TRANSFORMATIONS.values()
        if name is None or name == t.name
    ]
    return tuple(listed)


def _description(name: str, doc: str) -> str:
    """The one-line doc without the call it often starts with
    (``sum(x, dim=None): sum of entries``): the listing shows the signature beside it."""
    if doc.startswith(name + "(") and "): " in doc:
        doc = doc.split("): ", 1)[1]
    return doc.removesuffix(".")


# ----------------------------------------------------------------------------
# The computing commands, declared once
# ----------------------------------------------------------------------------


class Computing(Record):
    """A computing command: ``gradcli NAME``, whose function is ``api``'s, and the
    calculator's ``:NAME [EXPR]``. (The analyses are declared as ``analysis.commands``
    declares them; these compute a result, not a report.)

    ``help`` is its ``--help``: a summary, then examples in ``$ gradcli ...`` lines that
    ``tests/test_cli_help.py`` runs. ``options``: its own options, by their names
    (``core/option_names.py``), in the order ``--help`` lists them; the command line makes
    each (``cli/options.py``'s ``OWN``), before the options every computing command takes.
    ``shows``: what its function returns, which says how the command line writes it: a
    ``result`` (``core.result.Result``, in every format, and ``--get``), a ``graph``
    (``GraphResult``: a tree, plain lines, JSON or DOT) or a ``listing`` (of functions,
    which takes a NAME, not a program). ``points``: it also runs at many points
    (``--over``, ``--points FILE``), a row of the result's arrays at each
    (``core/many_points.py``). ``calculator``: what the calculator's ``:help`` says of
    ``:NAME [EXPR]`` (None: the calculator has no ``:NAME``). A function that takes
    ``announce`` says its notes before it computes (a large derivative), on a terminal.
    """

    name: str
    function: Callable
    help: str
    options: tuple[str, ...] = ()
    shows: str = "result"
    points: bool = False
    calculator: str | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.shows not in SHOWN:
            raise ValueError(f"{self.name} shows {self.shows!r}: none of {', '.join(SHOWN)}")
        if self.points and self.shows != "result":
            raise ValueError(f"{self.name}: only a result runs at many points")


#: What a computing command's function may return (``Computing.shows``).
SHOWN = ("result", "graph", "listing")


COMMANDS = (
    Computing(
        "eval",
        evaluate,
        """The value of SOURCE.

        \b
        Examples:
          $ gradcli eval "x**2 + 2*x + 1" --x 2 --format plain
          value 9
          $ gradcli eval "linspace(0, 1, 5)**2" --format json
          {"value": [0, 0.0625, 0.25, 0.5625, 1]}
          $ gradcli eval "x + y" --points samples/points.csv --format csv
          x,y,value
          0,0,0
          0.5,1,1.5
          1,-1,0
          2,0.5,2.5
        """,
        points=True,
    ),
    Computing(
        "grad",
        gradient,
        """The value and the gradient of a scalar output with respect to every
        input (or those named by --wrt).

        \b
        Examples:
          $ gradcli grad "(x+2)**2+3" --x 2 --format plain
          value 19
          grad.x 8
          $ gradcli grad "sum(w * x)" --w "[1, 2]" --x "[3, 4]" --wrt w --format json
          {"value": 11, "grad": {"w": [3, 4]}}

        Many points: --over x=A:B:N (or x=VALUES, repeated for a grid) or --points
        FILE (one point a row), one row of output each:

        \b
          $ gradcli grad "x**2 * y" --over x=0:1:3 --y 2 --format csv
          x,value,grad.x,grad.y
          0,0,0,0
          0.5,0.5,2,0.25
          1,2,4,1
        """,
        ("wrt", "steps"),
        points=True,
        calculator="the gradient (of the last expression by default)",
    ),
    Computing(
        "jacobian",
        jacobian,
        """The value and, for each input x, the Jacobian of shape
        output.shape + x.shape; with several inputs (or a matrix input or output,
        or one vector input to as many outputs), also the whole Jacobian, outputs
        by inputs, and its determinant when it is square (with a note when it is
        singular).

        \b
        Example:
          $ gradcli jacobian "x**2 + 2*x + 1" --x "[2, 3]" --format plain
          value 9 16
          jacobian.x 6 0 0 8
          assembled.matrix 6 0 0 8
          determinant 48
          $ gradcli jacobian "z**2" --z 1+2j --holomorphic --format plain
          value -3+4j
          jacobian.z 2+4j
        """,
        ("wrt", "holomorphic"),
        points=True,
        calculator="the Jacobian",
    ),
    Computing(
        "hessian",
        hessian,
        """The value, the gradient and every Hessian block H[x][y] of a scalar
        output; also the whole Hessian over all inputs (flattened), its
        eigenvalues and, where the gradient is zero, whether the point is a local
        minimum, maximum, saddle point or degenerate (a zero eigenvalue: the test
        is inconclusive); for one scalar input, the sign of f''.

        \b
        Example:
          $ gradcli hessian "x**3 * y" --x 2 --y 3 --format plain
          value 24
          grad.x 36
          grad.y 8
          hessian.x.x 36
          hessian.x.y 12
          hessian.y.x 12
          hessian.y.y 0
          assembled.matrix 36 12 12 0
          eigenvalues -3.6333076527839356 39.63330765278394
          classification not a critical point
          tolerance.gradient 3.5762786865234375e-07
          tolerance.eigenvalue 5.905823059794894e-07
        """,
        ("wrt",),
        points=True,
        calculator="the gradient and the Hessian",
    ),
    Computing(
        "vjp",
        vjp,
        """The vector-Jacobian product v^T J for each input: PyTorch's
        output.backward(V).

        \b
        Example:
          $ gradcli vjp "k = zeros_like(x); k[0] = x[0]**2 + 3*x[1]; k[1] = 2*x[0] + x[1]**2; k" \\
              --x "[2, 3]" --grad-output "[1, 0]" --format plain
          value 13 13
          vjp.x 4 3
        """,
        ("wrt", "grad-output", "steps"),
        points=True,
    ),
    Computing(
        "jvp",
        jvp,
        """The Jacobian-vector product J t: the directional derivative along the
        tangents; inputs without one are held fixed. With --unit, along the unit
        vector t/|t| (|t| over all the tangents together); with --order k, the k-th
        derivative along them, by Taylor arithmetic (no Hessian is formed).

        \b
        Example:
          $ gradcli jvp "x**2 + y" --x "[1, 2]" --y 3 --tangent "x=[1, 1]" --format plain
          value 4 7
          jvp 2 4
        """,
        ("tangent", "unit", "order"),
        points=True,
    ),
    Computing(
        "graph",
        graph,
        """The grad_fn nodes behind SOURCE's output, from the output down to the
        inputs: each node's name, the source it came from, its shape, value and the
        gradient that reached it in the reverse pass (--grad-output V for an output
        that is not a scalar); the inputs (leaves) with their .grad.

        \b
        Example:
          $ gradcli graph "x*y + x" --x 2 --y 3 --format plain
          [0] AddBackward0  x*y + x  at 1:1  shape ()  value 8  grad 1  inputs 1 2
          [1] MulBackward0  x*y  at 1:1  shape ()  value 6  grad 1  inputs 2 3
          [2] x  shape ()  value 2  .grad 4
          [3] y  shape ()  value 3  .grad 2
        """,
        ("wrt", "grad-output"),
        shows="graph",
        calculator="the autograd graph, with each node's gradient",
    ),
    Computing(
        "functions",
        functions,
        """Every function a program can call (only NAME when given).

        Grouped by kind, each with its parameters, a one-line description and its
        convention at kinks (points where it is not differentiable). A dim=
        parameter may also be written axis=. A NAME that is no function is an
        error that names the functions whose description has it as a word
        (gradcli functions cdf: ndtr, ndtri, log_ndtr...).

        \b
        Example:
          $ gradcli functions relu --format plain
          relu(input)  max(x, 0)  at kinks: relu'(0) = 0; at nan the gradient passes, as PyTorch
        """,
        shows="listing",
    ),
)
