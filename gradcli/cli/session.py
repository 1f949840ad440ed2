"""An interactive session: statements of the language typed one after another.

The session keeps the statements that define things (assignments, ``const``,
element assignments, function definitions) as program text, one statement per
line, in the order they were typed. A line that is an expression is computed
as that program followed by the expression, by the library calls the one-shot
commands make (``gradcli.api``), so ``:save FILE.grad`` writes a program that
``gradcli grad FILE.grad`` runs to the same result.

An expression shows its value and, when it reads inputs, its gradient (scalar
output) or its Jacobian, with respect to the inputs it reads (``:wrt`` picks
others). Assigning a constant to a name that is already an input (``x = 3``
after ``x = 2``) gives the input its new value where it was first assigned, as
a binding on the command line would: every later line sees it. A definition is
run when it is typed, so its mistakes show at once.

Lines that start with a colon are the commands of ``COMMANDS``.

There is no terminal here: ``Session.run(text)`` yields what to show, as
``Shown`` results, ``Message`` text and ``Problem`` errors and warnings, and
``gradcli.cli.repl`` draws them.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .. import api
from ..analysis.commands import calculator_commands as declared_commands
from ..analysis.report import Report
from ..core.atomic import atomic_output
from ..core.computing import COMMANDS as COMPUTING
from ..errors import GradcliError, out_of_memory, read_error
from ..language import ir, parse
from ..language.check import BUILTIN_CONSTANTS, is_method, suggest
from ..language.derivatives import FORMS as DERIVATIVE_FORMS
from ..language.parser import statement_bounds, tokens
from ..language.program import inputs_read
from ..render import formats
from ..render.numbers import format_array, shape_text
from .typed_statements import (
    Place,
    Statement,
    Typed,
    assigned,
    compiled,
    definition,
    fewest,
    program_text,
)

# ----------------------------------------------------------------------------
# What a line shows
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A result (``api.Result``, or ``api.GraphResult`` for ``:graph``), for the
    renderer of the session's format."""

    result: api.Result | api.GraphResult


@dataclass(frozen=True)
class Message:
    """Text for standard output."""

    text: str


@dataclass(frozen=True)
class Problem:
    """An ``error:`` or ``warning:`` for standard error."""

    text: str


Output = Shown | Message | Problem

_DEFINITIONS = (ir.Assign, ir.IndexAssign, ir.ConstDecl, ir.FuncDef, *ir.COMPOUND)
# What a one-shot command of each name computes: the computing commands'
# (``core.computing.COMMANDS``), and steps: grad --steps.
_COMPUTE = {
    **{c.name: getattr(api, c.function.__name__) for c in COMPUTING if c.shows != "listing"},
    "steps": lambda source, **options: api.gradient(source, steps=True, **options),
}
#: ``--precision``'s cap: 17 digits tell any two float64 numbers apart.
MAX_DIGITS = 17
_IDENTIFIER_END = re.compile(r"[^\W\d]\w*$")


# ----------------------------------------------------------------------------
# The session
# ----------------------------------------------------------------------------


class Session:
    """The statements typed so far and the options of the results shown."""

    def __init__(self, *, fmt: str = "table", dtype: str = "float64", seed: int = 0):
        self.statements: list[Statement] = []
        #: The last expression shown: what ``:grad`` alone and ``:save`` use.
        self.last: Statement | None = None
        self.format = fmt  # a name of render.formats
        self.precision: int | None = None
        self.dtype = dtype
        self.seed = seed
        #: The inputs to differentiate with respect to; None for those each expression reads.
        self.wrt: tuple[str, ...] | None = None
        self.keys = "emacs"
        self.finished = False
        self._names: tuple[str, ...] = ()

    # ----- a line -----

    def run(self, text: str) -> Iterator[Output]:
        """Run one line (or a pasted program) and yield what it shows, as it is computed.

        Errors are yielded as ``Problem``; the session goes on. The state changes only
        by the statements that succeed.
        """
        try:
            if text.strip().startswith(":"):
                yield from self._command(text.strip())
            else:
                yield from self._block(text)
        except GradcliError as error:
            yield Problem(_for_the_session(error.render()))
        except MemoryError as error:  # zeros(1e10): more than there is
            yield Problem(f"error: {out_of_memory(error)}")
        except RecursionError:
            yield Problem("error: the input is nested too deeply")

    def needs_more(self, text: str) -> bool:
        """Whether ``text`` is a statement still being typed: an open bracket, or a
        backslash at the end of its last line."""
        if text.strip().startswith(":"):
            return False
        if text.rstrip(" \t").endswith("\\"):
            return True
        depth, header = 0, False
        for kind, _, _ in tokens(text):
            depth += kind in ("LPAR", "LSQB")
            depth -= kind in ("RPAR", "RSQB")
            header |= kind == "COLON" and depth == 0
        # A for, while or if goes on, as in Python's prompt, until an empty line.
        lines = text.removesuffix("\n").split("\n")
        return depth > 0 or (header and bool(lines[-1].strip()))

    def _block(self, text: str) -> Iterator[Output]:
        if all(kind in ("COMMENT", "_SEP") for kind, _, _ in tokens(text)):
            return
        parse(text)  # the syntax errors first, with positions in the text as typed
        pending: list[tuple[Statement, Typed]] = []  # definitions, made before what shows
        for start, stop in statement_bounds(text):
            typed = Typed(text, start, stop)
            (node,) = parse(typed.statement).statements
            statement = Statement(typed.statement, node)
            if isinstance(node, _DEFINITIONS):
                pending.append((statement, typed))
            else:
                self._define_all(pending)
                pending = []
                yield from self._show(statement, typed)
        self._define_all(pending)

    def _define_all(self, pending: list[tuple[Statement, Typed]]) -> None:
        """Make the definitions of a pasted program: all in one compilation when none
        gives an existing name a new value, so that a paste of n lines costs one run of
        the program, not n (each of the whole session so far). When that fails, one by
        one, so that the error names its line and the ones before it stand."""
        if len(pending) > 1 and self._all_new(pending):
            statements = [*self.statements, *(statement for statement, _ in pending)]
            try:
                program = compiled(statements)
                program.check_free(())
                if not all(isinstance(s.node, ir.FuncDef) for s in statements):
                    api.evaluate(program.source, dtype=self.dtype, seed=self.seed)
            except GradcliError:
                pass  # told below, at its line
            else:
                self.statements = statements
                self._names = (*program.inputs, *program.constants, *assigned(statements))
                return
        for statement, typed in pending:
            self._define(statement, typed)

    def _all_new(self, pending) -> bool:
        """Whether no definition of ``pending`` names what a statement before it names
        (which ``_placed`` would put in the place of that one)."""
        named = {s.node.name for s in self.statements if hasattr(s.node, "name")}
        for statement, _ in pending:
            if isinstance(statement.node, (ir.Assign, ir.ConstDecl)):  # what _placed places
                if statement.node.name in named:
                    return False
            named.add(getattr(statement.node, "name", None))
        return True

    def _define(self, statement: Statement, typed: Typed) -> None:
        statements, index = self._placed(statement)
        # A new statement last: what it reads is run (a replaced one: all after it too).
        run, program = fewest(statements, index, typed, self._run, index == len(self.statements))
        if run is statements:
            self._names = (*program.inputs, *program.constants, *assigned(statements))
        else:  # what the new statement names joins those named before
            named = (*program.inputs, *program.constants, *assigned([statement]))
            self._names = tuple(dict.fromkeys((*self._names, *named)))
        self.statements = statements

    def _run(self, statements):
        program = compiled(statements)
        program.check_free(())
        if not all(isinstance(s.node, (ir.FuncDef, type(None))) for s in statements):
            # Run now, so that a wrong shape shows on this line, not on a later one.
            api.evaluate(program.source, dtype=self.dtype, seed=self.seed)
        return program

    def _placed(self, statement: Statement) -> tuple[list[Statement], int]:
        """The statements with ``statement`` in its place, and its index: in place of
        the definition of the input (or const) it gives a new constant value, else last."""
        node, statements = statement.node, list(self.statements)
        if isinstance(node, (ir.Assign, ir.ConstDecl)) and any(
            getattr(s.node, "name", None) == node.name for s in statements
        ):
            index = definition(statements, node)
            if index is not None:
                statements[index] = statement
                with contextlib.suppress(GradcliError):
                    if definition(statements, node) == index:
                        return statements, index
        return [*self.statements, statement], len(self.statements)

    def _show(self, statement: Statement, typed: Typed, command: str | None = None, data=None):
        """The expression's result: ``command``'s (a key of ``_COMPUTE``, or of the
        registry), or by default its value and, when it reads inputs, its gradient or
        Jacobian. ``data``: what the line said besides (``Calculator.read``)."""
        index = len(self.statements)
        statements, (command, result) = fewest(
            [*self.statements, statement],
            index,
            typed,
            lambda run: self._compute(run, command, data),
        )
        self.last = statement
        place = Place(statements, index, typed)
        # The title is the expression as typed, not the whole session.
        yield Shown(place.result(result, title=statement.text))
        if isinstance(result, Report):  # an analysis's notes are text, as the commands say
            yield from (Problem(message) for message in result.warnings)
            declared = declared_commands()[command]
            status = declared.exit_status(result) if declared.exit_status else 0
            if isinstance(status, tuple):  # the error its command says (did not converge)
                yield Problem(f"error: {status[1]}")
            return
        for message in (*result.notes, *result.warnings):  # as the commands say them
            yield Problem(place.diagnostic(message))

    def _compute(self, statements, command: str | None, data) -> tuple:
        """The command that shows the last of ``statements`` (``command``, or eval, grad
        or jacobian), and its result."""
        program = compiled(statements)
        analysis = command is not None and command not in _COMPUTE
        declared = declared_commands()[command] if analysis else None
        calculator = declared.calculator if declared is not None else None
        settings = calculator.settings if calculator is not None else None
        if settings is None:  # else its function binds the inputs without a value (columns)
            program.check_free(())
        nodes = [s.node for s in statements if s.node is not None]
        wrt = self.wrt if self.wrt is not None else inputs_read(program.inputs, nodes)
        options = {"dtype": self.dtype, "seed": self.seed}
        if command is None:
            command = "eval"
            if wrt:
                value = api.evaluate(program.source, **options).value
                command = "grad" if value.size == 1 else "jacobian"
        if settings is not None:
            options.update(settings(data, self._values(), wrt))
        elif command != "eval":
            options["wrt"] = wrt
        compute = _COMPUTE.get(command) or declared.run
        return command, compute(program.source, **options)

    # ----- the commands -----

    def _command(self, text: str) -> Iterator[Output]:
        name, _, argument = text[1:].partition(" ")
        argument = argument.strip()
        if name in COMMANDS:
            command = COMMANDS[name]
            if argument and " " not in command.usage:
                raise GradcliError(f":{name} takes nothing after it")
            yield from command.run(self, argument)
        elif name in declared_commands():  # the registry's, on the session's program
            calculator = declared_commands()[name].calculator
            data = None
            if calculator is not None and calculator.read is not None:
                argument, data = calculator.read(argument)
            yield from self._derivative(name, argument, data)
        else:
            raise GradcliError(
                f"unknown command :{name}{suggest(name, COMMANDS)}: :help lists the commands"
            )

    def _derivative(self, command: str, argument: str, data=None) -> Iterator[Output]:
        if not argument:
            if self.last is None:
                raise GradcliError(f":{command} needs an expression: :{command} EXPR")
            argument = self.last.text
        statements = parse(argument).statements
        if len(statements) != 1 or isinstance(statements[0], _DEFINITIONS):
            raise GradcliError(f":{command} takes one expression", statements[-1].span, argument)
        typed = Typed(argument, 0, len(argument))
        yield from self._show(Statement(argument, statements[0]), typed, command, data)

    def steps(self, argument: str) -> Iterator[Output]:
        yield from self._derivative("steps", argument)

    def choose_wrt(self, argument: str) -> Iterator[Output]:
        names = tuple(n for n in re.split(r"[\s,]+", argument) if n)
        if not names:
            self.wrt = None
            yield Message("derivatives with respect to the inputs each expression reads")
            return
        inputs = self.inputs()
        for name in names:
            if name not in inputs:
                known = f"; the inputs are {', '.join(inputs)}" if inputs else "; there are none"
                raise GradcliError(
                    f":wrt {name}: no input is named {name}{suggest(name, inputs)}{known}"
                )
        self.wrt = names
        yield Message(f"derivatives with respect to {', '.join(names)}")

    def choose_format(self, argument: str) -> Iterator[Output]:
        choices = formats.one_point_names("render")
        if argument not in choices:
            raise GradcliError(f":format takes one of {', '.join(choices)}")
        self.format = argument
        yield Message(f"format {argument}")

    def choose_precision(self, argument: str) -> Iterator[Output]:
        if not argument:
            self.precision = None
            yield Message("precision: the format's default")
            return
        if not argument.isdigit() or int(argument) < 1:
            raise GradcliError(":precision takes a number of significant digits (1 or more)")
        self.precision = min(int(argument), MAX_DIGITS)
        yield Message(f"precision {self.precision}")

    def choose_dtype(self, argument: str) -> Iterator[Output]:
        if argument not in api.DTYPES:
            raise GradcliError(f":dtype takes one of {', '.join(api.DTYPES)}")
        self.dtype = argument
        yield Message(f"dtype {argument}")

    def choose_keys(self, argument: str) -> Iterator[Output]:
        if argument not in ("emacs", "vi"):
            raise GradcliError(":keys takes emacs or vi")
        self.keys = argument
        yield Message(f"{argument} keys")

    def show_inputs(self, argument: str) -> Iterator[Output]:
        values = self._values()
        if not values:
            yield Message("no inputs: bind one with NAME = VALUE")
            return
        for name, value in values.items():
            number = format_array(value, self.precision or 6)
            if value.ndim:
                yield Message(f"{name} {shape_text(value.shape)} =\n{number}")
            else:
                yield Message(f"{name} = {number}")

    def clear(self, argument: str) -> Iterator[Output]:
        self.statements, self.last, self.wrt, self._names = [], None, None, ()
        yield Message("cleared: no definitions")

    def load(self, argument: str) -> Iterator[Output]:
        path = _file_name(argument, "load")
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError as error:
            raise read_error(argument, error) from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise GradcliError(f"cannot read {argument}: not UTF-8 text") from None
        yield from self._block(text)

    def save(self, argument: str) -> Iterator[Output]:
        path = _file_name(argument, "save")
        statements = [*self.statements, *([self.last] if self.last else [])]
        if not statements:
            raise GradcliError("nothing to save: the session has no statements yet")
        try:
            with atomic_output(path, "w", encoding="utf-8") as stream:
                stream.write(program_text(statements) + "\n")
        except OSError as error:
            raise GradcliError(f"cannot write {argument}: {error.strerror or error}") from None
        count = sum(s.lines for s in statements)
        yield Message(f"saved {count} line{'s' * (count != 1)} to {argument}")

    def help(self, argument: str) -> Iterator[Output]:
        width = max(len(c.usage) for c in COMMANDS.values())
        lines = [
            "Type a statement of the language: an expression shows its value and its",
            "gradient or Jacobian; NAME = VALUE binds an input, const NAME = VALUE a",
            "constant, f(x) = ... defines a function. Tab completes; Ctrl-C interrupts;",
            "Ctrl-D leaves.",
            "",
            *(f"  {c.usage:<{width}}  {c.help}" for c in COMMANDS.values()),
            *(f"  {usage:<{width}}  {said}" for usage, said in _declared_lines()),
        ]
        yield Message("\n".join(lines))

    def quit(self, argument: str) -> Iterator[Output]:
        self.finished = True
        yield from ()

    # ----- what the session knows -----

    def functions(self) -> list[str]:
        """The functions defined so far."""
        return [s.node.name for s in self.statements if isinstance(s.node, ir.FuncDef)]

    def inputs(self) -> tuple[str, ...]:
        """The inputs bound so far."""
        return tuple(self._values())

    def _values(self) -> dict:
        if not any(isinstance(s.node, (ir.Assign, ir.ConstDecl)) for s in self.statements):
            return {}
        source = program_text(self.statements)
        return dict(api.evaluate(source, dtype=self.dtype, seed=self.seed).point)

    def completions(self, before: str) -> tuple[list[str], int]:
        """What may complete the word that ends ``before`` (the text left of the
        cursor), and that word's length: commands, their choices, and names."""
        stripped = before.lstrip()
        if stripped.startswith(":"):
            name, space, rest = stripped[1:].partition(" ")
            if not space:
                named = [*COMMANDS, *declared_commands()]
                return [f":{c}" for c in named if c.startswith(name)], len(name) + 1
            word = rest.split(",")[-1].strip()
            choices = COMMAND_CHOICES.get(name, lambda session: ())(self)
            return [c for c in choices if c.startswith(word)], len(word)
        found = _IDENTIFIER_END.search(before)
        word = found.group() if found else ""
        if before[: len(before) - len(word)].endswith("."):
            names = [f.name for f in api.functions() if is_method(f.name)] + ["T"]
        else:
            names = [
                *self._names,
                *self.functions(),
                *(f.name for f in api.functions()),
                *DERIVATIVE_FORMS,
                *BUILTIN_CONSTANTS,
            ]
        return sorted({n for n in names if n.startswith(word) and n != word}), len(word)


# ----------------------------------------------------------------------------
# The commands
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """A colon command: how it is written, what it does (for :help), and what runs it
    with the rest of the line."""

    usage: str
    help: str
    run: Callable[[Session, str], Iterator[Output]]


def _for_the_session(message: str) -> str:
    """Errors name the command line's commands (`gradcli jacobian`); here they are
    :commands, and a suggestion of one the session lacks is left out."""
    message = re.sub(
        r"`gradcli (\w+)`", lambda m: f"`:{m[1]}`" if m[1] in COMMANDS else m[0], message
    )
    return re.sub(r",? or `gradcli \w+[^`]*` for [^;:\n]*", "", message)


def _computing(name: str) -> Callable[[Session, str], Iterator[Output]]:
    """``:NAME [EXPR]`` of a computing command: the command on the expression."""
    return lambda session, argument: session._derivative(name, argument)


COMMANDS: dict[str, Command] = {
    # The computing commands the calculator runs, as declared (``core.computing``).
    **{
        c.name: Command(f":{c.name} [EXPR]", c.calculator, _computing(c.name))
        for c in COMPUTING
        if c.calculator is not None
    },
    "steps": Command(
        ":steps [EXPR]", "the gradient and the steps of its reverse pass", Session.steps
    ),
    "wrt": Command(
        ":wrt [X,Y]",
        "differentiate with respect to X and Y (alone: the inputs read)",
        Session.choose_wrt,
    ),
    "format": Command(":format table|plain|json", "how results are shown", Session.choose_format),
    "precision": Command(
        ":precision [N]", "N significant digits (alone: the default)", Session.choose_precision
    ),
    "dtype": Command(
        ":dtype float64|float32", "the precision of the computation", Session.choose_dtype
    ),
    "inputs": Command(":inputs", "the inputs bound and their values", Session.show_inputs),
    "clear": Command(":clear", "forget every definition", Session.clear),
    "load": Command(":load FILE.grad", "run a program file's statements here", Session.load),
    "save": Command(":save FILE.grad", "write the session as a program file", Session.save),
    "keys": Command(":keys emacs|vi", "the editing keys", Session.choose_keys),
    "help": Command(":help", "this list", Session.help),
    "quit": Command(":quit", "leave (as Ctrl-D does)", Session.quit),
}
#: What completes the argument of a command.
COMMAND_CHOICES: dict[str, Callable[[Session], tuple[str, ...]]] = {
    "format": lambda session: tuple(formats.one_point_names("render")),
    "dtype": lambda session: api.DTYPES,
    "keys": lambda session: ("emacs", "vi"),
    "wrt": lambda session: session.inputs(),
}


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


def _declared_lines() -> Iterator[tuple[str, str]]:
    """The registry's commands as ``:help`` lists them: how each is typed, what it does."""
    for name, declared in declared_commands().items():
        calculator = declared.calculator
        usage = calculator and calculator.usage or f":{name} [EXPR]"
        yield usage, calculator and calculator.help or declared.summary


def _file_name(argument: str, command: str) -> str:
    if not argument:
        raise GradcliError(f":{command} needs a file name: :{command} FILE.grad")
    if not argument.endswith(".grad"):
        raise GradcliError(f":{command} {argument}: a program file's name ends in .grad")
    return os.path.expanduser(argument)
