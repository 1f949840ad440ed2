"""What every command of the command line shares: the ``gradcli`` group, where errors
become exit codes, the way a command is declared with its options, and writing a
result. ``cli`` declares the computing commands on it, ``cli.analysis`` the analyses.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys

import click

from .. import __version__, api
from ..core import bindings as _bindings
from ..core.complex_inputs import running
from ..core.evaluation import UnknownInput, close_to
from ..core.option_names import BIND_ELSEWHERE, OPTION_NAMES
from ..engine import limits
from ..errors import EXIT_BROKEN_PIPE, GradcliError, escape_controls, out_of_memory
from ..render import Format
from . import options
from .streams import mend_closed_streams
from .unknown_options import closest_option, unknown_short_options

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_NONFINITE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM


class _Later:
    """A command of the group not made yet (``_Group.add_later``)."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


class _Group(click.Group):
    """The ``gradcli`` group; its ``main`` is the one place errors become exit codes.

    Some commands (the analyses) are declared in a module loaded only when one of
    them is asked for, or all of them are (help, ``commands``): ``load_more`` loads
    it, so that a one-shot ``gradcli grad`` does not pay for it at start-up.
    """

    #: Loads the rest of the commands; set by the module that knows them (``cli``).
    load_more = None
    #: ``find_declared(name)``: the command the registry declares as ``name``
    #: (``gradcli.analysis.commands``), added to the group, or None; set by ``cli``.
    find_declared = None

    @property
    def commands(self):
        if self.load_more is not None:
            load, self.load_more = self.load_more, None
            load()
        return self.loaded_commands()

    @commands.setter
    def commands(self, commands):
        self._commands = commands

    def loaded_commands(self):
        """The commands loaded so far (those added for later made now), without loading
        the others."""
        for name in [n for n, command in self._commands.items() if isinstance(command, _Later)]:
            self._made(name)
        return self._commands

    def add_command(self, cmd, name=None):
        self._commands[name or cmd.name] = cmd  # without loading the others

    def add_later(self, name: str, make) -> None:
        """``make()`` adds the command ``name`` when it is first asked for (its place in
        the list is kept): a one-shot call makes its own command's options alone."""
        self._commands[name] = _Later(make)

    def _made(self, name: str):
        found = self._commands.get(name)
        if isinstance(found, _Later):
            found.make()
            found = self._commands[name]
        return found

    def get_command(self, ctx, cmd_name):
        found = self._made(cmd_name)
        if found is None:
            found = self.commands.get(cmd_name)
        if found is None and self.find_declared is not None:
            found = self.find_declared(cmd_name)
        return found

    def invoke(self, ctx):
        # Click answers Ctrl-C with an empty line and Abort: gradcli says it in one line.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None
        except BrokenPipeError:
            # Rows streamed to a reader that has gone (head): Click would exit 1.
            raise _OutputClosed from None

    def list_commands(self, ctx):
        # As declared: eval, grad, jacobian, hessian, vjp, jvp, then functions.
        return list(self.commands)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = sys.argv[1:] if args is None else list(args)
        mend_closed_streams()
        if not args and sys.stdin.isatty() and sys.stdout.isatty():
            args = ["repl"]  # "gradcli" alone on a terminal: the interactive session
        _tolerate_any_encoding()
        debug = "--debug" in args[: args.index("--") if "--" in args else len(args)]
        caught, previous = _catch_sigterm()
        try:
            code = self._main(args, prog_name, complete_var, debug, **extra)
        finally:
            if caught:  # as it was: the tests call main() in their own process
                signal.signal(signal.SIGTERM, previous)
        if standalone_mode:
            sys.exit(code)
        return code

    def _main(self, args, prog_name, complete_var, debug, **extra) -> int:
        global _json_errors
        _json_errors = _asks_for_json(args)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else EXIT_OK
        except GradcliError as error:
            _report(debug)
            code = say_error(error, EXIT_USAGE)
        except NoArgsIsHelpError as error:  # bare "gradcli": the help, as Click shows it
            click.echo(error.format_message(), err=True)
            code = error.exit_code
        except click.ClickException as error:
            _report(debug)
            ctx = getattr(error, "ctx", None)
            see = ctx.command_path if isinstance(error, click.UsageError) and ctx else None
            code = say_error(_lower_first(error.format_message()), error.exit_code, see)
        except (_Interrupted, click.Abort):
            code = say_error("interrupted", EXIT_INTERRUPTED)
        except _Terminated:
            code = say_error("terminated", EXIT_TERMINATED)
        except _OutputClosed:
            # The reader (head, a closed pager) stopped reading: not an error of ours.
            # Python's last flush of stdout at exit would fail again: point it at nothing.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = EXIT_BROKEN_PIPE
        except _CannotWrite as error:
            _report(debug)
            code = say_error(f"cannot write standard output: {error}", EXIT_USAGE)
        except MemoryError as error:
            # zeros(1e10) and the like: the input asks for more than there is.
            _report(debug)
            code = say_error(out_of_memory(error), EXIT_USAGE)
        except RecursionError:
            _report(debug)
            code = say_error("the input is nested too deeply", EXIT_USAGE)
        except Exception as error:
            if debug:
                raise
            text = f"internal error ({type(error).__name__}: {error})"
            code = say_error(f"{text}; rerun with --debug for a traceback", EXIT_INTERNAL)
        return _settle_stdout(code)


#: Whether this run asked for --format json (or jsonl): its error is then one JSON object.
_json_errors = False


def _asks_for_json(args) -> bool:
    args = args[: args.index("--") if "--" in args else len(args)]
    pairs = zip(args, [*args[1:], None])
    return any(a in ("--format=json", "--format=jsonl") or (a, b) in _JSON for a, b in pairs)


_JSON = {("--format", "json"), ("--format", "jsonl")}


def say_error(error, code: int, see: str | None = None) -> int:
    """An error (a GradcliError, or its text) on standard error, and its exit status:
    ``error: ...`` (and ``(see 'COMMAND --help')``), or with --format json one JSON
    object on one line, ``{"error": ..., "exit": N}`` with the place in the source."""
    if _json_errors:
        from ..render.jsontext import error_json

        click.echo(error_json(error, code, see), err=True)
    elif isinstance(error, GradcliError):
        say(error.render())
    else:
        say(f"error: {error}")
        if see is not None:
            click.echo(f"(see '{see} --help')", err=True)
    return code


def _settle_stdout(code: int) -> int:
    """Flush standard output before Python's last flush at exit, which would fail with
    a traceback; what cannot be written (a full disk, a reader gone) goes nowhere."""
    try:
        sys.stdout.flush()
        return code
    except (OSError, ValueError) as error:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if code not in (EXIT_OK, EXIT_NONFINITE):
            return code  # the error is said already
        if isinstance(error, BrokenPipeError):
            return EXIT_BROKEN_PIPE
        return say_error(f"cannot write standard output: {_reason(error)}", EXIT_USAGE)


def _reason(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error)


def _catch_sigterm():
    """SIGTERM raises ``_Terminated`` in the main thread, so a run stops as on Ctrl-C:
    its temporary files removed, one line said. Whether it is set (not off the main
    thread, where no handler can be), and the handler it replaces."""
    try:
        return True, signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:
        return False, None


def _on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends the process at once
    raise _Terminated


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


class _Terminated(BaseException):
    """SIGTERM (a BaseException, as KeyboardInterrupt: no ``except Exception`` stops it)."""


class _CannotWrite(Exception):
    """Standard output cannot be written (a full disk)."""


# Click 8.2 and later raise it for a bare "gradcli"; 8.1 shows the help itself.
NoArgsIsHelpError = getattr(click.exceptions, "NoArgsIsHelpError", ())


def say(message: str) -> None:
    """An error or warning on standard error; control characters from the user's text
    (an escape sequence, a right-to-left override) show escaped, never obeyed."""
    click.echo(escape_controls(message, keep="\n\t"), err=True)


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

    #: Whether this command's own options, written on another command, bind the
    #: input of that name instead of being refused (the analyses' ``--eps``,
    #: ``--sigma``: they read like a program's variables).
    options_bind_elsewhere = False

    def parse_args(self, ctx, args):
        takes_value, flags = set(), set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                names = [*param.opts, *param.secondary_opts]
                (flags if param.is_flag or param.count else takes_value).update(names)
        self._refuse_options_of_other_commands(ctx, args, takes_value | flags)
        # What is no option may be an input: the program, read once the arguments are,
        # says (invoke). Until then the unknown options wait in ctx.meta.
        found = ctx.meta[_FOUND] = {}
        args = _bindings.extract(args, takes_value, flags, found)
        args = _bindings.source_last(args, takes_value, flags)
        unknown = unknown_short_options(args, takes_value, takes_value | flags)
        found["short"] = [args[i] for i in unknown]
        try:
            return super().parse_args(ctx, [a for i, a in enumerate(args) if i not in unknown])
        except click.UsageError:
            if not unknown:
                raise
            # -x 1: the token after an unknown option was its value, not another SOURCE.
            dropped = {*unknown, *(i + 1 for i in unknown)}
            return super().parse_args(ctx, [a for i, a in enumerate(args) if i not in dropped])

    def invoke(self, ctx):
        found = ctx.meta.get(_FOUND, {})
        if found.get("dangling") or found.get("short"):
            raise self._unknown_option(ctx, found)
        self._refuse_unknown_bindings(ctx, found.get("bound", ()))
        _say_which_source(ctx.params)
        try:
            with _operations_limit(ctx.params):
                return super().invoke(ctx)
        except UnknownInput as error:
            name = error.name
            if error.option != f"--{name}" or name not in found.get("bound", ()):
                raise  # --var NAME=VALUE, --wrt NAME: the program's names, not options
            inputs = _program_inputs(ctx.params) or error.inputs
            if name in inputs:
                raise  # an input of another of plot's SOURCEs
            raise self._neither(ctx, f"--{name}", inputs) from None
        except GradcliError as error:
            _name_the_file(error, ctx.params)
            raise

    def _refuse_unknown_bindings(self, ctx, bound) -> None:
        """``--order 2`` where the program has no input named order: no option and no
        binding, refused before anything runs (a command that evaluates nothing, such
        as ``diff`` without a point, would not meet it)."""
        if not bound or _reads_stdin(ctx.params):
            return  # standard input is read once, by the command
        inputs = _program_inputs(ctx.params, bound)
        if inputs is None:
            return
        for name in bound:
            # A name close to an input (--X for x) is a typo the evaluation words
            # better: it shows where the input it meant is used.
            if name not in inputs and not close_to(name, inputs):
                raise self._neither(ctx, f"--{name}", inputs)

    def _unknown_option(self, ctx, found) -> click.UsageError:
        """``--quiet`` without a value, or ``-q``: an error, worded by the program's inputs."""
        inputs = _program_inputs(ctx.params)
        if not found.get("dangling"):
            return self._neither(ctx, found["short"][0], inputs)
        name = found["dangling"][0]
        if inputs is None or name in inputs:
            return click.UsageError(f"--{name} needs a value: --{name} VALUE", ctx)
        return self._neither(ctx, f"--{name}", inputs)

    def _neither(self, ctx, option: str, inputs) -> click.UsageError:
        """``option`` is no option of the command, nor (``--name``) an input of the program."""
        options = sorted(
            opt[2:]
            for param in self.get_params(ctx)
            if isinstance(param, click.Option)
            for opt in param.opts
            if opt.startswith("--")
        )
        name = option.lstrip("-")
        text = f"{self.name} has no option {option}{closest_option(name, options)}"
        if option.startswith("--"):
            text += f", and the program has no input named {name!r}"
            near = close_to(name, inputs or ())
            if near and "(did you mean" not in text:
                text += f" (did you mean --{near[0]}?)"
        elif inputs and name in inputs:
            return click.UsageError(f"{text}: to bind the input {name}, write --{name} VALUE", ctx)
        if inputs is not None:
            listed = ", ".join(inputs)
            if option.startswith("--"):
                text += f"; its inputs are {listed}" if listed else "; it has no inputs"
            elif listed:
                text += f"; the program's inputs are {listed} (--NAME VALUE binds one)"
        return click.UsageError(text, ctx)

    def _refuse_options_of_other_commands(self, ctx, args, own) -> None:
        """``jvp --wrt x`` is a mistake, not a binding of an input named wrt."""
        given = args[: args.index("--") if "--" in args else len(args)]
        if not any(
            token.partition("=")[0] not in own and token.partition("=")[0][2:] in OPTION_NAMES
            for token in given
            if token.startswith("--")
        ):
            return  # no option of any command: the other commands need not be made
        # The commands not loaded yet are analyses, whose options bind elsewhere.
        others = {
            name
            for command in cli.loaded_commands().values()
            if not getattr(command, "options_bind_elsewhere", False)
            for param in command.params
            if isinstance(param, click.Option)
            for name in param.opts
            if name.startswith("--") and name not in own and name[2:] not in BIND_ELSEWHERE
        }
        for token in given:
            option = token.partition("=")[0]
            if option in others:
                name = option[2:]
                raise click.UsageError(
                    f"{self.name} has no option {option} (to bind an input named {name}, "
                    f"write --var {name}=VALUE)",
                    ctx,
                )


def _operations_limit(params):
    """``--max-operations N`` for the whole command (taken out of the options it passes on)."""
    return limits.max_operations(params.pop("max_operations", limits.DEFAULT_MAX_OPERATIONS))


_FOUND = "gradcli.unknown_options"  # ctx.meta: what parse_args found that is no option


def _source_path(params) -> str | None:
    """The file the command reads its program from, if it reads one (not standard input)."""
    source, file = params.get("source"), params.get("file")
    if file is not None:
        return None if file == "-" else file
    if isinstance(source, str) and source != "-" and os.path.isfile(source):
        return source
    return None


def _program_inputs(params, bound=()):
    """The names the program's bindings may take (of every SOURCE, for plot's several),
    or None when it cannot be read."""
    source = params.get("source")
    sources = source if isinstance(source, (tuple, list)) and source else (source,)
    names: dict[str, None] = {}
    try:
        for one in sources:
            text, filename = _bindings.read_source(one, params.get("file"))
            names.update(dict.fromkeys(api.input_names(text, filename, bound)))
    except (GradcliError, click.UsageError):
        return None
    return tuple(names)


def _reads_stdin(params) -> bool:
    source = params.get("source")
    sources = source if isinstance(source, (tuple, list)) else (source,)
    return params.get("file") == "-" or "-" in sources


def _say_which_source(params) -> None:
    """SOURCE that names a file and is an expression too (``y``, with a file y here): the
    file is read, and a note says so."""
    source = params.get("source")
    if not isinstance(source, str) or params.get("file") is not None:
        return
    if _source_path(params) != source:
        return

    try:
        api.input_names(source)
    except GradcliError:
        return  # no expression: the file is all it can mean
    say(f"note: {source} is a file here: the program is read from it; "
        f"for the expression {source}, write ({source})")  # fmt: skip


def _name_the_file(error: GradcliError, params) -> None:
    """An error that points into a program read from a file names the file."""
    path = _source_path(params)
    if path is None or error.span is None or error.source is None:
        return
    try:
        text, _ = _bindings.read_source(None, path)
    except GradcliError:
        return
    if text == error.source:
        error.filename = path


# ----------------------------------------------------------------------------
# Options shared by every command
# ----------------------------------------------------------------------------


class AnalysisCommand(_Command):
    """An analysis (check, diff, ...): its tuning options bind inputs elsewhere."""

    options_bind_elsewhere = True


def _naming_itself(name, function):
    """``function`` run as the command ``name``: what its refusals of complex inputs name."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with running(name):
            return function(*args, **kwargs)

    return run


def subcommand(group, name, *extra_options, shared=options.SHARED_OPTIONS, cls=_Command):
    """Subcommand ``name`` of ``group``, with the ``shared`` options and ``extra_options``."""

    def decorate(function):
        function = _naming_itself(name, function)
        for option in reversed([*shared[:1], *extra_options, *shared[1:]]):
            function = option(function)
        return group.command(name, cls=cls, epilog=options.EPILOG)(function)

    return decorate


@click.group(
    "gradcli", cls=_Group, context_settings={"help_option_names": ["-h", options.long("help")]}
)
@click.version_option(
    __version__, options.long("version"), prog_name="gradcli", message="%(prog)s %(version)s"
)
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

    The manual is docs/ in gradcli's source (docs/README.md lists its pages:
    derivatives, many points, checking, uncertainty, plots, the calculator,
    scripting, the language, the Python library).
    """


def refuse_points_options(options) -> None:
    """One point: the options of many points make no sense, nor does --format csv."""
    for key, option in (
        ("columns", "--columns"),
        ("keep", "--keep"),
        ("delimiter", "--delimiter"),
        ("skip_bad_rows", "--skip-bad-rows"),
        ("max_memory", "--max-memory"),
        ("dask", "--dask"),
        ("dashboard", "--dashboard"),
        ("scheduler", "--scheduler"),
    ):
        if options.get(key) not in (None, False):  # --keep '' too
            raise GradcliError(f"{option} is for many points: give --points FILE or --over")
    chunk_size = click.get_current_context().get_parameter_source("chunk_size")
    if chunk_size is not None and chunk_size.name != "DEFAULT":
        raise GradcliError("--chunk-size is for many points: give --points FILE or --over")


def write_output(show, fmt: str | None) -> None:
    """Call ``show(format)``, which writes to standard output, in ``fmt`` (by default a
    table on a terminal, plain lines otherwise), and flush it."""
    fmt = fmt or (Format.TABLE if stdout_is_terminal() else Format.PLAIN)
    try:
        show(fmt.value if isinstance(fmt, Format) else fmt)
        sys.stdout.flush()  # the result before any warnings, wherever the two streams go
    except BrokenPipeError:
        raise _OutputClosed from None
    except OSError as error:
        raise _CannotWrite(error.strerror or error) from None


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()
