"""The ``gradcli`` command line: a thin Click layer over ``gradcli.api``.

Each command reads its program, collects its bindings, calls one library
function and hands the result to a renderer (``gradcli.render``). Errors are
caught in one place, ``_Group.main``: a ``GradcliError`` or a usage error prints
one ``error:`` message on standard error and exits 2, without a traceback
unless ``--debug``.
"""

# ruff: noqa: E402  (the imports come after pausing the cycle collector)
from __future__ import annotations

import gc

# As in gradcli/__init__.py: what is imported lives as long as the process, so the
# cycle collector's passes over it (NumPy's objects included) would free nothing.
_collecting = gc.isenabled()
gc.disable()

import os
import sys

import click

from .. import api, render
from ..core import bindings as _bindings
from ..errors import GradcliError
from ..render import Format, render_functions
from ..render.plain import render_line, result_lines
from . import common, options
from .common import EXIT_NONFINITE, EXIT_OK, cli, say, subcommand, write_output
from .options import option
from .unknown_options import BindingFreeCommand

# ----------------------------------------------------------------------------
# The commands
# ----------------------------------------------------------------------------


@subcommand(cli, "eval", *options.POINTS, shared=options.COMPUTING_OPTIONS)
def eval_command(source, **options):
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
    """
    return _run(api.evaluate, source, options)


@subcommand(
    cli, "grad", options.WRT, options.STEPS, *options.POINTS, shared=options.COMPUTING_OPTIONS
)
def grad_command(source, wrt, steps, **options):
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
    """
    return _run(api.gradient, source, options, wrt=_bindings.names_of(wrt), steps=steps)


@subcommand(
    cli,
    "jacobian",
    options.WRT,
    options.HOLOMORPHIC,
    *options.POINTS,
    shared=options.COMPUTING_OPTIONS,
)
def jacobian_command(source, wrt, holomorphic, **options):
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
    """
    complex_derivative = {"holomorphic": True} if holomorphic else {}
    if holomorphic and (options["points"] is not None or options["over"]):
        raise GradcliError("--holomorphic does not take --points or --over yet")
    return _run(
        api.jacobian, source, options, early=True, wrt=_bindings.names_of(wrt), **complex_derivative
    )


@subcommand(cli, "hessian", options.WRT, *options.POINTS, shared=options.COMPUTING_OPTIONS)
def hessian_command(source, wrt, **options):
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
    """
    return _run(api.hessian, source, options, early=True, wrt=_bindings.names_of(wrt))


_GRAD_OUTPUT = option(
    "grad-output",
    "grad_output",
    metavar="V",
    help="The vector v of v^T J, of the output's shape (may be left out for a scalar).",
)


@subcommand(
    cli,
    "vjp",
    options.WRT,
    _GRAD_OUTPUT,
    options.STEPS,
    *options.POINTS,
    shared=options.COMPUTING_OPTIONS,
)
def vjp_command(source, wrt, grad_output, steps, **options):
    """The vector-Jacobian product v^T J for each input: PyTorch's
    output.backward(V).

    \b
    Example:
      $ gradcli vjp "k = zeros_like(x); k[0] = x[0]**2 + 3*x[1]; k[1] = 2*x[0] + x[1]**2; k" \\
          --x "[2, 3]" --grad-output "[1, 0]" --format plain
      value 13 13
      vjp.x 4 3
    """
    wrt = _bindings.names_of(wrt)
    return _run(api.vjp, source, options, wrt=wrt, grad_output=grad_output, steps=steps)


@subcommand(
    cli,
    "jvp",
    option(
        "tangent",
        multiple=True,
        metavar="X=V",
        help="The direction of input X (repeatable; just V when there is one input).",
    ),
    option(
        "unit",
        is_flag=True,
        help="Along the unit vector of the tangents (all of them together): J t/|t|.",
    ),
    option(
        "order",
        type=click.IntRange(1),
        default=1,
        show_default=True,
        help="The k-th directional derivative d^k/ds^k f(x + s t) at s = 0 (one point).",
    ),
    *options.POINTS,
    shared=options.COMPUTING_OPTIONS,
)
def jvp_command(source, tangent, unit, order, **options):
    """The Jacobian-vector product J t: the directional derivative along the
    tangents; inputs without one are held fixed. With --unit, along the unit
    vector t/|t| (|t| over all the tangents together); with --order k, the k-th
    derivative along them, by Taylor arithmetic (no Hessian is formed).

    \b
    Example:
      $ gradcli jvp "x**2 + y" --x "[1, 2]" --y 3 --tangent "x=[1, 1]" --format plain
      value 4 7
      jvp 2 4
    """
    tangents = _bindings.tangents_of(tangent)
    return _run(api.jvp, source, options, tangents=tangents, unit=unit, order=order)


def _graph_formats() -> list[str]:
    from ..render.graph import FORMATS

    return list(FORMATS)


@subcommand(
    cli,
    "graph",
    options.WRT,
    _GRAD_OUTPUT,
    shared=[
        *(
            o
            for o in options.SHARED_OPTIONS
            if o not in (options.FORMAT, options.OUTPUT, options.GET)
        ),
        option(
            "format",
            "fmt",
            type=options.FormatChoice(_graph_formats),
            help="table: a tree; dot: Graphviz [default: table on a terminal, plain otherwise].",
        ),
        option(
            "output",
            "-o",
            metavar="FILE.svg",
            help="Also draw the graph into FILE (.svg, .png, .pdf through Graphviz's dot; .dot).",
        ),
    ],
)
def graph_command(source, wrt, grad_output, **options):
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
    """
    from ..render.graph import render_graph, write_image

    text, filename = _bindings.read_source(source, options["file"])
    result = api.graph(
        text,
        _bindings.bind_assignments(options["var"]),
        grad_output=grad_output,
        wrt=_bindings.names_of(wrt),
        dtype=options["dtype"],
        seed=options["seed"],
        filename=filename,
        max_elements=options["max_elements"],
    )
    if options["output"] is not None:
        write_image(result, os.path.expanduser(options["output"]), options["precision"])
    fmt = options["fmt"] or (
        Format.TABLE.value if common.stdout_is_terminal() else Format.PLAIN.value
    )
    write_output(
        lambda _: render_graph(result, fmt, sys.stdout, options["precision"]), Format.PLAIN
    )
    _say_all(result)
    return EXIT_NONFINITE if options["strict"] and not result.finite else EXIT_OK


# A plain click.Command: it computes nothing, so it takes no bindings (--x 2 is
# an unknown option) and no SOURCE.
@cli.command("functions", cls=BindingFreeCommand)
@click.argument("name", required=False)
@options.FORMAT
@options.DEBUG
def functions_command(name, fmt, debug):
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
    """
    listing = api.functions(name)
    write_output(lambda fmt: render_functions(listing, fmt, sys.stdout), fmt)
    return EXIT_OK


@cli.command("repl", cls=BindingFreeCommand)
@options.FORMAT
@option(
    "dtype",
    type=click.Choice(api.DTYPES),
    default="float64",
    show_default=True,
    help="Floating-point type of the computation (:dtype changes it).",
)
@options.DEBUG
def repl_command(fmt, dtype, debug):
    """An interactive session (also "gradcli" alone on a terminal): each line
    is a statement, and an expression shows its value and its gradient or
    Jacobian. ':help' lists the commands. When standard input is not a
    terminal, its lines run as a script.

    \b
    Example:
      $ gradcli repl --format plain
      >>> x = 2
      >>> (x+2)**2 + 3
      value 19
      grad.x 8
    """
    from .repl import run
    from .session import Session

    fmt = fmt or ("table" if common.stdout_is_terminal() else "plain")
    return run(Session(fmt=fmt, dtype=dtype), say, debug)


# ----------------------------------------------------------------------------
# From arguments to a library call, and its result to the output
# ----------------------------------------------------------------------------


def _run(compute, source, options, early=False, **arguments) -> int:
    """``early``: ``compute`` takes ``announce``, for the notes said before it computes
    (a large derivative), on a terminal."""
    if options["points"] is not None or options["over"]:
        from .point_runs import run_batch

        return run_batch(click.get_current_context().command.name, source, options, arguments)
    common.refuse_points_options(options)
    text, filename = _bindings.read_source(source, options["file"])
    said: list = []
    if early and common.stderr_is_terminal():
        arguments["announce"] = lambda note: (say(note), said.append(note))
    output = options["output"]
    if output is not None:
        output = os.path.expanduser(output)  # --output=~/r.npz: no shell expands that ~
    if output is not None and not output.endswith(".npz"):
        raise GradcliError(f"--output {output}: the file name must end in .npz")
    try:
        result = compute(
            text,
            _bindings.bind_assignments(options["var"], program_from_stdin=filename == "<stdin>"),
            dtype=options["dtype"],
            seed=options["seed"],
            filename=filename,
            max_elements=options["max_elements"],
            **arguments,
        )
    except GradcliError as error:
        raise _bindings.with_file_hint(error, source) from None
    if output is not None:
        # Before printing: a file that cannot be written fails the command.
        try:
            render.write_npz(result, output)
        except OSError as error:
            raise GradcliError(f"cannot write {output}: {error.strerror or error}") from None
    if options["get"] is not None:
        _write_one(result, options["get"], options["fmt"], options["precision"])
    elif options["fmt"] == "csv":
        from .point_runs import write_one_row

        write_one_row(result.arrays(), options["precision"])
    else:
        write_output(
            lambda fmt: render.render(result, fmt, sys.stdout, options["precision"]), options["fmt"]
        )
    _say_all(result, said)
    return EXIT_NONFINITE if options["strict"] and not result.finite else EXIT_OK


def _say_all(result, said=()) -> None:
    """The result's notes (kinks met), then its warnings, on standard error; but those
    ``said`` already."""
    for message in (*result.notes, *result.warnings):
        if not any(message is early for early in said):
            say(message)


def _write_one(result, name: str, fmt: str | None, precision: int | None) -> None:
    """``--get NAME``: what follows NAME on its line of --format plain, alone."""
    if fmt is not None:
        raise GradcliError(f"--get prints plain numbers: leave out --format {fmt}")
    lines = result_lines(result, precision)
    if name not in lines:
        raise GradcliError(f"--get {name}: no such result; the results are {', '.join(lines)}")
    write_output(lambda fmt: render_line(lines, name, sys.stdout), Format.PLAIN)


def main() -> None:
    """The console script ``gradcli``."""
    # A one-shot process: what is loaded now lives until it exits. Frozen, it is left
    # out of the collector's passes, the last one at exit included (milliseconds).
    gc.freeze()
    cli.main()


def _load_analyses() -> None:
    from . import declared

    declared.add_all(cli)  # the commands of the registry, before run, listed last
    from . import run  # noqa: F401


def _find_declared(name: str):
    from .declared import command_for

    return command_for(cli, name)


cli.load_more = _load_analyses
cli.find_declared = _find_declared
if _collecting:
    gc.freeze()  # to the oldest generation, without the passes (see gradcli/__init__.py)
    gc.unfreeze()
    gc.enable()
