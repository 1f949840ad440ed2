"""The ``gradcli`` command line: a thin Click layer over ``gradcli.api``.

Each command reads its program, collects its bindings, calls one library
function and hands the result to a renderer (``gradcli.render``). Errors are
caught in one place, ``_Group.main``: a ``GradcliError`` or a usage error prints
one ``error:`` message on standard error and exits 2, without a traceback
unless ``--debug``.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys

import click

from . import __version__, api
from . import bindings as _bindings
from .errors import GradcliError
from .render import Format

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_NONFINITE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE

MAX_DIGITS = 17

_NAMED = re.compile(r"\s*([^\W\d]\w*)\s*=(?!=)")


class _Group(click.Group):
    """The ``gradcli`` group; its ``main`` is the one place errors become exit codes."""

    def invoke(self, ctx):
        # Click answers Ctrl-C with an empty line and Abort: gradcli says it in one line.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None

    def list_commands(self, ctx):
        # As declared: eval, grad, jacobian, hessian, vjp, jvp, then functions.
        return list(self.commands)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = sys.argv[1:] if args is None else list(args)
        if not args and sys.stdin.isatty() and sys.stdout.isatty():
            args = ["repl"]  # "gradcli" alone on a terminal: the interactive session
        _tolerate_any_encoding()
        debug = "--debug" in args[: args.index("--") if "--" in args else len(args)]
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else EXIT_OK
        except GradcliError as error:
            _report(debug)
            _say(error.render())
            code = EXIT_USAGE
        except NoArgsIsHelpError as error:  # bare "gradcli": the help, as Click shows it
            click.echo(error.format_message(), err=True)
            code = error.exit_code
        except click.ClickException as error:
            _report(debug)
            _say(f"error: {_lower_first(error.format_message())}")
            if isinstance(error, click.UsageError) and error.ctx is not None:
                click.echo(f"(see '{error.ctx.command_path} --help')", err=True)
            code = error.exit_code
        except (_Interrupted, click.Abort):
            click.echo("error: interrupted", err=True)
            code = EXIT_INTERRUPTED
        except _OutputClosed:
            # The reader (head, a closed pager) stopped reading: not an error of ours.
            # Python's last flush of stdout at exit would fail again: point it at nothing.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = EXIT_BROKEN_PIPE
        except _CannotWrite as error:
            _report(debug)
            click.echo(f"error: cannot write the output: {error}", err=True)
            code = EXIT_INTERNAL
        except MemoryError as error:
            # zeros(1e10) and the like: the input asks for more than there is.
            _report(debug)
            click.echo(f"error: out of memory ({error})", err=True)
            code = EXIT_USAGE
        except RecursionError:
            _report(debug)
            click.echo("error: the input is nested too deeply", err=True)
            code = EXIT_USAGE
        except Exception as error:
            if debug:
                raise
            click.echo(
                f"error: internal error ({type(error).__name__}: {error}); "
                "rerun with --debug for a traceback",
                err=True,
            )
            code = EXIT_INTERNAL
        if standalone_mode:
            sys.exit(code)
        return code


def _tolerate_any_encoding() -> None:
    """Write what an ASCII or Latin-1 terminal cannot show (a name like θ) as
    ``\\u03b8`` rather than fail."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class _Interrupted(Exception):
    """Ctrl-C during a command (not a KeyboardInterrupt, which Click would take)."""


class _OutputClosed(Exception):
    """Standard output's reader has gone (not an OSError, which Click would take)."""


class _CannotWrite(Exception):
    """Standard output cannot be written (a full disk)."""


# Click 8.2 and later raise it for a bare "gradcli"; 8.1 shows the help itself.
NoArgsIsHelpError = getattr(click.exceptions, "NoArgsIsHelpError", ())

# C0 controls and DEL, which a terminal would obey (ESC starts a colour) rather than show.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _say(message: str) -> None:
    """An error or warning on standard error; control characters from the user's
    text show as U+FFFD, one column each, so that the caret still points right."""
    shown = "\ufffd" if (sys.stderr.encoding or "").lower().startswith("utf") else "?"
    click.echo(_CONTROLS.sub(shown, message), err=True)


def _lower_first(message: str) -> str:
    """Click's "No such option" as gradcli writes messages: "error: no such option"."""
    if message[:1].isupper() and message[1:2].islower():
        return message[0].lower() + message[1:]
    return message


def _report(debug: bool) -> None:
    if debug:
        import traceback

        traceback.print_exc(file=sys.stderr)


class _Command(click.Command):
    """A command whose unknown ``--name VALUE`` options bind program inputs.

    Before Click parses the arguments, every ``--name VALUE`` or ``--name=VALUE``
    that is not one of the command's options becomes ``--var name=VALUE``, so
    bindings may come before or after SOURCE and their values may start with
    ``-`` (``--x -1``).
    """

    def parse_args(self, ctx, args):
        takes_value, flags = set(), set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                names = [*param.opts, *param.secondary_opts]
                (flags if param.is_flag or param.count else takes_value).update(names)
        self._refuse_options_of_other_commands(ctx, args, takes_value | flags)
        args = _bindings.extract(args, takes_value, flags)
        return super().parse_args(ctx, _source_last(args, takes_value, flags))

    def _refuse_options_of_other_commands(self, ctx, args, own) -> None:
        """``jvp --wrt x`` is a mistake, not a binding of an input named wrt."""
        others = {
            name
            for command in cli.commands.values()
            for param in command.params
            if isinstance(param, click.Option)
            for name in param.opts
            if name.startswith("--") and name not in own
        }
        for token in args[: args.index("--") if "--" in args else len(args)]:
            option = token.partition("=")[0]
            if option in others:
                name = option[2:]
                raise click.UsageError(
                    f"{self.name} has no option {option} (to bind an input named {name}, "
                    f"write --var {name}=VALUE)",
                    ctx,
                )


_FILE_OPTIONS = ("-f", "--file")


def _source_last(args: list[str], takes_value, flags) -> list[str]:
    """Move an expression that starts with ``-`` (``"-x**2"``), which Click would take
    for an option, after a ``--`` at the end, where it is SOURCE. Only when there is
    no other SOURCE: then ``-v`` is an unknown option, as Click says."""
    candidate, positional = None, False
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            positional = positional or i + 1 < len(args)
            break
        if token in takes_value:
            positional = positional or token in _FILE_OPTIONS  # -f FILE stands for SOURCE
            i += 2
            continue
        file_option = token[:2] == "-f" or token.partition("=")[0] == "--file"
        if not token.startswith("-") or token == "-" or file_option:
            positional = True
        elif not token.startswith("--") and candidate is None:
            if token[:2] not in takes_value and token[:2] not in flags:
                candidate = i
        i += 1
    if candidate is None or positional:
        return args
    token, rest = args[candidate], [*args[:candidate], *args[candidate + 1 :]]
    if "--" not in rest:
        rest.append("--")
    at = rest.index("--") + 1
    return [*rest[:at], token, *rest[at:]]


# ----------------------------------------------------------------------------
# Options shared by every command
# ----------------------------------------------------------------------------

_EPILOG = """\b
SOURCE is an expression, or a program file when it names an existing file
(program files end in .grad); -f FILE forces a file and - reads standard input.
\b
Bind inputs with --NAME VALUE, --NAME=VALUE or --var NAME=VALUE (for names
that clash with an option). A VALUE is a constant (2, -1.5e3, pi/4, [2, 3],
1,2,3, "[1 2 3]", randn(10, 20), linspace(0, 1, 5)), @FILE (.npy, .npz,
.csv, .txt, .json; @r.npz:grad.W for one array) or @- (standard input).
\b
Exit status: 0 success, 2 bad input, 3 a non-finite result under --strict,
1 an internal error or an output that cannot be written."""

_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in Format]),
    help="Output format [default: table on a terminal, plain otherwise].",
)
_DEBUG = click.option("--debug", is_flag=True, help="Show tracebacks of errors.")

_SHARED_OPTIONS = [
    click.argument("source", required=False),
    click.option(
        "-f",
        "--file",
        metavar="FILE",
        help="Read the program from FILE ('-' for standard input).",
    ),
    click.option(
        "--var",
        "var",
        multiple=True,
        metavar="NAME=VALUE",
        help="Bind an input (repeatable); the same as --NAME VALUE.",
    ),
    click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Seed of randn/rand in values and programs.",
    ),
    click.option(
        "--dtype",
        type=click.Choice(api.DTYPES),
        default="float64",
        show_default=True,
        help="Floating-point type of the computation.",
    ),
    _FORMAT,
    click.option(
        "--precision",
        type=click.IntRange(min=1),
        # 17 digits tell any two float64 numbers apart: more would only be noise.
        callback=lambda ctx, param, n: n if n is None else min(n, MAX_DIGITS),
        metavar="N",
        help="Significant digits printed [default: 6 in tables, all in plain and json].",
    ),
    _GET := click.option(
        "--get",
        metavar="NAME",
        help="Print only the numbers of one result (value, grad.x, hessian.x.y),"
        " separated by spaces: for $(...) in scripts.",
    ),
    _OUTPUT := click.option(
        "-o", "--output", metavar="FILE.npz", help="Also save every result array."
    ),
    click.option("--strict", is_flag=True, help="Exit 3 when a result is nan or infinite."),
    click.option(
        "--max-elements",
        type=click.IntRange(min=1),
        default=api.DEFAULT_MAX_ELEMENTS,
        show_default=True,
        metavar="N",
        help="Refuse any result (or Jacobian, Hessian) of more than N numbers.",
    ),
    _DEBUG,
]

_STEPS = click.option(
    "--steps",
    is_flag=True,
    help="Also show the reverse pass step by step: what each node received, its rule, "
    "what it sent to each input.",
)

_WRT = click.option(
    "--wrt",
    multiple=True,
    metavar="X,Y",
    help="The inputs to differentiate with respect to [default: all].",
)


def _command(group, name, *extra_options, shared=_SHARED_OPTIONS):
    """Subcommand ``name`` of ``group``, with the ``shared`` options and ``extra_options``."""

    def decorate(function):
        for option in reversed([*shared[:1], *extra_options, *shared[1:]]):
            function = option(function)
        return group.command(name, cls=_Command, epilog=_EPILOG)(function)

    return decorate


# ----------------------------------------------------------------------------
# The commands
# ----------------------------------------------------------------------------


@click.group("gradcli", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="gradcli", message="%(prog)s %(version)s")
def cli():
    """gradcli: values, gradients, Jacobians and Hessians of math expressions
    and small programs, by reverse-mode automatic differentiation.

    \b
    Example:
      $ gradcli grad "(x+2)**2+3" --x 2 --format plain
      value 19
      grad.x 8

    Run 'gradcli COMMAND --help' for each command's options and examples, and
    'gradcli functions' for the functions a program can call. On a terminal,
    'gradcli' alone opens an interactive session ('gradcli repl').
    """


@_command(cli, "eval")
def eval_command(source, **options):
    """The value of SOURCE.

    \b
    Examples:
      $ gradcli eval "x**2 + 2*x + 1" --x 2 --format plain
      value 9
      $ gradcli eval "linspace(0, 1, 5)**2" --format json
      {"value": [0, 0.0625, 0.25, 0.5625, 1]}
    """
    return _run(api.evaluate, source, options)


@_command(cli, "grad", _WRT, _STEPS)
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
    """
    return _run(api.gradient, source, options, wrt=_names(wrt), steps=steps)


@_command(cli, "jacobian", _WRT)
def jacobian_command(source, wrt, **options):
    """The value and, for each input x, the Jacobian of shape
    output.shape + x.shape; with several inputs (or a matrix input or output),
    also the whole Jacobian, outputs by inputs, and its determinant when it is
    square.

    \b
    Example:
      $ gradcli jacobian "x**2 + 2*x + 1" --x "[2, 3]" --format plain
      value 9 16
      jacobian.x 6 0 0 8
    """
    return _run(api.jacobian, source, options, wrt=_names(wrt))


@_command(cli, "hessian", _WRT)
def hessian_command(source, wrt, **options):
    """The value, the gradient and every Hessian block H[x][y] of a scalar
    output; with several inputs, or one not a scalar, also the whole Hessian
    over all inputs (flattened), its eigenvalues and, where the gradient is
    zero, whether the point is a local minimum, maximum, saddle point or
    degenerate (a zero eigenvalue: the test is inconclusive).

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
    return _run(api.hessian, source, options, wrt=_names(wrt))


_GRAD_OUTPUT = click.option(
    "--grad-output",
    "grad_output",
    metavar="V",
    help="The vector v of v^T J, of the output's shape (may be left out for a scalar).",
)


@_command(cli, "vjp", _WRT, _GRAD_OUTPUT, _STEPS)
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
    return _run(api.vjp, source, options, wrt=_names(wrt), grad_output=grad_output, steps=steps)


@_command(
    cli,
    "jvp",
    click.option(
        "--tangent",
        multiple=True,
        metavar="X=V",
        help="The direction of input X (repeatable; just V when there is one input).",
    ),
)
def jvp_command(source, tangent, **options):
    """The Jacobian-vector product J t: the directional derivative along the
    tangents; inputs without one are held fixed.

    \b
    Example:
      $ gradcli jvp "x**2 + y" --x "[1, 2]" --y 3 --tangent "x=[1, 1]" --format plain
      value 4 7
      jvp 2 4
    """
    return _run(api.jvp, source, options, tangents=_tangents(tangent))


_GRAPH_FORMATS = ("table", "plain", "json", "dot")


@_command(
    cli,
    "graph",
    _WRT,
    _GRAD_OUTPUT,
    shared=[
        *(o for o in _SHARED_OPTIONS if o not in (_FORMAT, _OUTPUT, _GET)),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(_GRAPH_FORMATS),
            help="table: a tree; dot: Graphviz [default: table on a terminal, plain otherwise].",
        ),
        click.option(
            "-o",
            "--output",
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
    from .render.graph import render_graph, write_image

    text, filename = _read_source(source, options["file"])
    result = api.graph(
        text,
        _bind(options["var"]),
        grad_output=grad_output,
        wrt=_names(wrt),
        dtype=options["dtype"],
        seed=options["seed"],
        filename=filename,
        max_elements=options["max_elements"],
    )
    if options["output"] is not None:
        write_image(result, os.path.expanduser(options["output"]), options["precision"])
    fmt = options["fmt"] or (Format.TABLE.value if _stdout_is_terminal() else Format.PLAIN.value)
    _write(lambda _: render_graph(result, fmt, sys.stdout, options["precision"]), Format.PLAIN)
    _say_all(result)
    return EXIT_NONFINITE if options["strict"] and not result.finite else EXIT_OK


# A plain click.Command: it computes nothing, so it takes no bindings (--x 2 is
# an unknown option) and no SOURCE.
@cli.command("functions")
@click.argument("name", required=False)
@_FORMAT
@_DEBUG
def functions_command(name, fmt, debug):
    """Every function a program can call (only NAME when given).

    Grouped by kind, each with its parameters, a one-line description and its
    convention at kinks (points where it is not differentiable). A dim=
    parameter may also be written axis=.

    \b
    Example:
      $ gradcli functions relu --format plain
      relu(x)  max(x, 0)  at kinks: relu'(0) = 0; at nan the gradient passes, as PyTorch
    """
    from .render import render_functions

    listing = api.functions(name)
    _write(lambda fmt: render_functions(listing, fmt, sys.stdout), fmt)
    return EXIT_OK


@cli.command("repl")
@_FORMAT
@click.option(
    "--dtype",
    type=click.Choice(api.DTYPES),
    default="float64",
    show_default=True,
    help="Floating-point type of the computation (:dtype changes it).",
)
@_DEBUG
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

    fmt = fmt or ("table" if _stdout_is_terminal() else "plain")
    return run(Session(fmt=fmt, dtype=dtype), _say, debug)


# ----------------------------------------------------------------------------
# From arguments to a library call, and its result to the output
# ----------------------------------------------------------------------------


def _run(compute, source, options, **arguments) -> int:
    from .render import render, write_npz

    text, filename = _read_source(source, options["file"])
    output = options["output"]
    if output is not None:
        output = os.path.expanduser(output)  # --output=~/r.npz: no shell expands that ~
    if output is not None and not output.endswith(".npz"):
        raise GradcliError(f"--output {output}: the file name must end in .npz")
    try:
        result = compute(
            text,
            _bind(options["var"], program_from_stdin=filename == "<stdin>"),
            dtype=options["dtype"],
            seed=options["seed"],
            filename=filename,
            max_elements=options["max_elements"],
            **arguments,
        )
    except GradcliError as error:
        raise _with_file_hint(error, source) from None
    if output is not None:
        # Before printing: a file that cannot be written fails the command.
        try:
            write_npz(result, output)
        except OSError as error:
            raise GradcliError(f"cannot write {output}: {error.strerror or error}") from None
    if options["get"] is not None:
        _write_one(result, options["get"], options["fmt"], options["precision"])
    else:
        _write(lambda fmt: render(result, fmt, sys.stdout, options["precision"]), options["fmt"])
    _say_all(result)
    return EXIT_NONFINITE if options["strict"] and not result.finite else EXIT_OK


def _say_all(result) -> None:
    """The result's notes (kinks met), then its warnings, on standard error."""
    for message in (*result.notes, *result.warnings):
        _say(message)


def _write_one(result, name: str, fmt: str | None, precision: int | None) -> None:
    """``--get NAME``: the numbers of one result array, and nothing else."""
    from .render.plain import render_numbers

    if fmt is not None:
        raise GradcliError(f"--get prints plain numbers: leave out --format {fmt}")
    arrays = result.arrays()
    if name not in arrays:
        raise GradcliError(f"--get {name}: no such result; the results are {', '.join(arrays)}")
    _write(lambda fmt: render_numbers(arrays[name], sys.stdout, precision), Format.PLAIN)


def _write(show, fmt: str | None) -> None:
    """Call ``show(format)``, which writes to standard output, in ``fmt`` (by default a
    table on a terminal, plain lines otherwise), and flush it."""
    fmt = fmt or (Format.TABLE if _stdout_is_terminal() else Format.PLAIN)
    try:
        show(Format(fmt))
        sys.stdout.flush()  # the result before any warnings, wherever the two streams go
    except BrokenPipeError:
        raise _OutputClosed from None
    except OSError as error:
        raise _CannotWrite(error.strerror or error) from None


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


# A program is a few lines: this bounds what -f /dev/zero or a wrong file can cost.
MAX_PROGRAM_BYTES = 16 * 2**20


def _read_source(source: str | None, file: str | None) -> tuple[str, str]:
    """The program's text and the file name its errors name."""
    if source is not None and file is not None:
        raise click.UsageError("give SOURCE or -f FILE, not both")
    if source is None and file is None:
        raise click.UsageError(
            "missing SOURCE: an expression, a program file, or - for standard input"
        )
    path = file if file is not None else source
    if path == "-":
        return _decode(sys.stdin.buffer.read(MAX_PROGRAM_BYTES + 1), "standard input"), "<stdin>"
    if file is None and not os.path.isfile(path):
        if _names_a_program_file(source):
            why = "it is a directory" if os.path.isdir(source) else "no such file"
            raise GradcliError(f"cannot read {source}: {why}")
        return source, "<expr>"
    shown = path or "''"
    try:
        with open(path, "rb") as stream:
            return _decode(stream.read(MAX_PROGRAM_BYTES + 1), shown), path
    except OSError as error:
        raise _bindings.read_error(shown, error) from None


def _with_file_hint(error: GradcliError, source: str | None) -> GradcliError:
    """``gradcli grad energy`` beside ``energy.grad``: the error says which file was
    meant (only that the file exists is checked; it is not read)."""
    if source is None or not source.isidentifier():
        return error
    program = source + ".grad"
    if os.path.isfile(program):
        error.message += f" (did you mean the program file {program}?)"
    return error


def _names_a_program_file(source: str) -> bool:
    """``samples/rosenbrok.grad``: SOURCE meant as a file (no expression ends in .grad)."""
    return source.endswith(".grad") and not any(c.isspace() for c in source)


def _decode(data: bytes, what: str) -> str:
    if len(data) > MAX_PROGRAM_BYTES:
        raise GradcliError(f"cannot read {what}: larger than {MAX_PROGRAM_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is no text
    except UnicodeDecodeError:
        raise GradcliError(f"cannot read {what}: not UTF-8 text") from None


def _bind(assignments, program_from_stdin: bool = False) -> dict[str, str]:
    values: dict[str, str] = {}
    readers = []  # the bindings that read standard input (@-)
    for assignment in assignments:
        name, value = _bindings.split_assignment(assignment)
        if name in values:
            raise GradcliError(f"--{name} is given twice")
        values[name] = value
        if value.strip() == "@-":
            readers.append(name)
    if program_from_stdin and readers:
        raise GradcliError(
            f"--{readers[0]} @-: standard input holds the program; give the value otherwise"
        )
    if len(readers) > 1:
        raise GradcliError(f"--{readers[0]} and --{readers[1]} both read standard input (@-)")
    return values


def _names(options) -> tuple[str, ...] | None:
    """``--wrt x,y --wrt z`` -> ``("x", "y", "z")``; None when not given."""
    if not options:
        return None
    names = tuple(n.strip() for option in options for n in option.split(",") if n.strip())
    if not names:
        raise GradcliError("--wrt needs the names of inputs: --wrt x or --wrt x,y")
    return names


def _tangents(options) -> dict[str | None, str]:
    """``--tangent x=V`` -> ``{"x": "V"}``; a lone ``--tangent V`` -> ``{None: "V"}``."""
    tangents: dict[str | None, str] = {}
    for option in options:
        named = _NAMED.match(option)
        name, value = (named.group(1), option[named.end() :]) if named else (None, option)
        if name in tangents:
            raise GradcliError(f"--tangent {name or 'V'} is given twice")
        tangents[name] = value
    return tangents


def main() -> None:
    """The console script ``gradcli``."""
    cli.main()


# The analysis commands register themselves on ``cli``.
from . import cli_analysis  # noqa: E402, F401
