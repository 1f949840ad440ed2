"""The ``gradcli`` command line: a thin Click layer over ``gradcli.api``.

The computing commands are made here from their declarations
(``core.computing.COMMANDS``: name, help, own options, what the function returns).
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

import atexit
import functools
import inspect
import os
import sys
import threading

import click

from .. import api, render
from ..core import bindings as _bindings
from ..core.computing import COMMANDS, Computing
from ..core.precision import COMMANDS as PRECISE_COMMANDS
from ..errors import GradcliError
from ..render import Format, formats, render_functions
from ..render.plain import render_line, result_lines
from ..render.precise import precise_lines, render_precise
from . import common, options
from .common import EXIT_NONFINITE, EXIT_OK, cli, say, subcommand, write_output
from .options import option
from .unknown_options import BindingFreeCommand

# ----------------------------------------------------------------------------
# The commands, made from their declarations (``core.computing.COMMANDS``)
# ----------------------------------------------------------------------------


def _add(declared: Computing) -> None:
    """``gradcli NAME`` of the declared computing command, on ``cli``: its own options
    first, then those of what it shows."""
    if declared.shows == "listing":
        _listing_command(declared)
        return
    made = [options.OWN[name].option for name in declared.options]
    if declared.shows == "graph":
        subcommand(cli, declared.name, *made, shared=_GRAPH_OPTIONS)(_graph_runner(declared))
        return
    points = options.POINTS if declared.points else []
    early = "announce" in inspect.signature(declared.function).parameters

    precise = [options.DPS] if declared.name in PRECISE_COMMANDS else []

    def run(source, **given):
        dps = given.pop("dps", None)
        if dps is not None:
            return _run_precise(declared, source, given, dps)
        arguments = _arguments(declared, given)
        return _run(_library(declared), source, given, early, **arguments)

    run.__doc__ = declared.help
    made += precise
    subcommand(cli, declared.name, *made, *points, shared=options.COMPUTING_OPTIONS)(run)


def _library(declared: Computing):
    """The declared function as the library's facade has it (``api.gradient``): the
    command line is a layer over ``api``."""
    return getattr(api, declared.function.__name__)


def _arguments(declared: Computing, given) -> dict:
    """The function's arguments from the command's own options, taken out of ``given``."""
    own = {name.replace("-", "_"): options.OWN[name] for name in declared.options}
    taken = {parameter: given.pop(parameter) for parameter in own}
    return {o.keyword or parameter: o.value(taken[parameter]) for parameter, o in own.items()}


def _graph_formats() -> list[str]:
    from ..render.graph import FORMATS

    return list(FORMATS)


#: The options of a command that shows a graph: a tree, plain lines, JSON or DOT, and a
#: picture of it through Graphviz.
_GRAPH_OPTIONS = [
    *(o for o in options.SHARED_OPTIONS if o not in (options.FORMAT, options.OUTPUT, options.GET)),
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
]


def _graph_runner(declared: Computing):
    """The run of a command that shows a graph: drawn into --output FILE, then written in
    its format (table, plain, json or dot)."""

    def run(source, **given):
        from ..render.graph import render_graph, write_image

        text, filename = _bindings.read_source(source, given["file"])
        bound = _bindings.bind_assignments(given["var"])
        result = _library(declared)(
            text,
            bound,
            **_arguments(declared, given),
            dtype=given["dtype"],
            seed=given["seed"],
            filename=filename,
            max_elements=given["max_elements"],
        )
        if given["output"] is not None:
            write_image(result, os.path.expanduser(given["output"]), given["precision"])
        fmt = given["fmt"] or (
            Format.TABLE.value if common.stdout_is_terminal() else Format.PLAIN.value
        )
        write_output(
            lambda _: render_graph(result, fmt, sys.stdout, given["precision"]), Format.PLAIN
        )
        _say_all(result)
        return EXIT_NONFINITE if given["strict"] and not result.finite else EXIT_OK

    run.__doc__ = declared.help
    return run


def _listing_command(declared: Computing) -> None:
    """A listing computes nothing, so it takes no bindings (--x 2 is an unknown option)
    and no SOURCE: a plain click.Command, of NAME."""

    def run(name, fmt, debug):
        listing = _library(declared)(name)
        write_output(lambda fmt: render_functions(listing, fmt, sys.stdout), fmt)
        return EXIT_OK

    run.__doc__ = declared.help
    made = click.argument("name", required=False)(options.FORMAT(options.DEBUG(run)))
    cli.command(declared.name, cls=BindingFreeCommand)(made)


for _declared in COMMANDS:
    cli.add_later(_declared.name, functools.partial(_add, _declared))


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
    if options.get("points") is not None or options.get("over"):
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
    saving = None if output is None else formats.saver(output)  # before anything is computed
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
    if saving is not None:
        # Before printing: a file that cannot be written fails the command.
        try:
            saving.save(result, output)
        except OSError as error:
            raise GradcliError(f"cannot write {output}: {error.strerror or error}") from None
    if options["get"] is not None:
        _write_one(result, options["get"], options["fmt"], options["precision"])
    else:
        write_output(
            lambda fmt: render.render(result, fmt, sys.stdout, options["precision"]), options["fmt"]
        )
    _say_all(result, said)
    return EXIT_NONFINITE if options["strict"] and not result.finite else EXIT_OK


def _run_precise(declared: Computing, source, given, dps) -> int:
    """``--dps N``: the command in mpmath, to N certified digits (``api.precise``); of its
    own options it takes --wrt, --grad-output and --tangent."""
    if given.get("points") is not None or given.get("over"):
        raise GradcliError(
            "--dps computes at one point: --points, --over and Dask are float64-only"
        )
    arguments = _arguments(declared, given)
    unsupported = {
        "--output": given["output"] is not None,
        "--steps": arguments.get("steps"),
        "--holomorphic": arguments.get("holomorphic"),
        "--unit": arguments.get("unit"),
        "--order": arguments.get("order", 1) != 1,
        "--dtype": given["dtype"] != "float64",
        "--precision": given["precision"] is not None,
    }
    for name, said in unsupported.items():
        if said:
            raise GradcliError(f"--dps does not take {name}")
    text, filename = _bindings.read_source(source, given["file"])
    bindings = _bindings.bind_assignments(given["var"], program_from_stdin=filename == "<stdin>")
    keep = ("wrt", "grad_output", "tangents")
    result = api.precise(
        declared.name, text, bindings, dps, filename=filename,
        **{k: v for k, v in arguments.items() if k in keep},
    )  # fmt: skip
    if given["get"] is not None:
        lines = precise_lines(result)
        if given["get"] not in lines:
            raise GradcliError(f"--get {given['get']}: no such result; the results are "
                               f"{', '.join(lines)}")  # fmt: skip
        write_output(lambda fmt: sys.stdout.write(lines[given["get"]] + "\n"), Format.PLAIN)
    else:
        write_output(lambda fmt: render_precise(result, fmt, sys.stdout), given["fmt"])
    _say_all(result)
    return EXIT_NONFINITE if given["strict"] and not result.finite else EXIT_OK


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
    """The command line in this process, ended by ``SystemExit`` with its exit code."""
    # A one-shot process: what is loaded now lives until it exits. Frozen, it is left
    # out of the collector's passes, the last one at exit included (milliseconds).
    gc.freeze()
    cli.main()


def script() -> None:
    """The console script ``gradcli`` and ``python -m gradcli``: ``main``, then the end
    of the process (at once where it may)."""
    try:
        main()
    except SystemExit as done:
        if _may_leave_at_once(done.code):
            _leave_at_once(done.code)
        raise


#: The commands that run code other than gradcli's own (a PyTorch program, a session):
#: their process ends as Python ends it, objects finalised, files flushed.
_ENDED_BY_PYTHON = frozenset({"run", "repl"})


def _may_leave_at_once(code) -> bool:
    """Whether the process may end without Python's teardown: a command of gradcli's
    own code alone, and no other thread (a Dask client's) still running."""
    argv = sys.argv[1:]
    return (
        isinstance(code, int | None)
        and bool(argv)
        and argv[0] not in _ENDED_BY_PYTHON
        and threading.active_count() == 1
    )


def _leave_at_once(code: int | None) -> None:
    """End now: the exit handlers run and the standard streams are flushed, but the
    interpreter's teardown (every module and object freed, which the end of the process
    does anyway) is skipped, a twentieth of a one-shot call. A stream that cannot be
    flushed returns, and the exit goes Python's way, which reports it."""
    if not _flushed():
        return
    atexit._run_exitfuncs()
    atexit._clear()  # not again, should the exit go Python's way after all
    if _flushed():
        os._exit(code or 0)


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            return False
    return True


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
