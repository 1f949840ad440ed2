"""The registry of commands: a command is declared once, beside its library function.

A module of ``gradcli.analysis`` declares its commands as ``COMMANDS``, a tuple of
``Command``: the name, the library function, the help with its examples, and the
options, as data. Every place that needs a command reads it from here:

- the command line builds ``gradcli NAME`` from it (``gradcli.cli.declared``): the
  options of every analysis (``-f``, ``--var``, ``--NAME VALUE`` bindings, ``--seed``,
  ``--dtype``, ``--format``, ``--precision``, ``--get``, ``--strict``) and its own;
- the library: ``gradcli.api.NAME`` and ``gradcli.analysis.NAME`` are its function;
- the interactive calculator: ``:NAME [EXPR]``, on the session's program (unless
  it requires an option and says no other way, ``Calculator``: ``calculator_commands``);
- with ``points``, many points: ``--over`` and ``--points FILE``, a row of the report
  at each (``analysis.rows``), written as ``--format csv``, ``json`` or ``--output FILE``.

The function takes ``(source, bindings, *, dtype, seed, filename, **options)`` and
returns a report (``analysis.report.Report``); the report's ``as_tree()`` is what
``--format json`` writes and, a line per leaf, ``--format plain`` (and ``--get``);
``--format table`` draws the layout its ``layout`` names (``render.reports``), or a row
per line. Nothing is registered as a side effect of an import: the modules of the
package are listed and the ``COMMANDS`` of those that assign it at their top level
read, once, the first time a name is looked up that the command line and the library
do not load at start-up.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

#: The kinds of an option's value: what ``--NAME`` takes, and what the function receives.
KINDS = ("text", "int", "float", "flag", "names", "assignments", "texts")


@dataclass(frozen=True)
class Option:
    """``--NAME`` of one command: its name (declared in ``core/option_names.py``, which
    the library's hints read too), which is the function's keyword with dashes as
    underscores unless ``parameter`` names it; its help; ``kind`` (``KINDS``: ``names``
    is ``--wrt X,Y``, repeatable, a tuple of names; ``assignments`` is ``--grad X=TEXT``,
    repeatable, a dict of texts by name, each needing what ``needs`` says after its
    ``=``; ``texts``, repeatable, a tuple of texts); its default and the word for its
    value in the help; ``minimum`` and ``maximum``, an ``int``'s or a ``float``'s range
    (``exclusive``: its ends left out). ``one_point``: it is refused at many points (a
    text: the error said, in place of the usual one); ``required``: the command needs it.
    ``parse``: what the function receives, made from the value (after the kind's own
    reading; a ``GradcliError`` for a bad one). ``wraps``: a flag that, given, has
    ``wraps(function)`` compute the report in the function's place (at one point and at
    many). An option named as one every analysis takes (``--over``) takes its place."""

    name: str
    help: str
    kind: str = "text"
    default: object = None
    metavar: str | None = None
    parameter: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    needs: str | None = None
    one_point: bool | str = False
    required: bool = False
    exclusive: bool = False
    parse: Callable | None = None
    wraps: Callable | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"--{self.name}: kind {self.kind!r} is none of {', '.join(KINDS)}")

    @property
    def keyword(self) -> str:
        return self.parameter or self.name.replace("-", "_")

    @property
    def repeatable(self) -> bool:
        """Whether ``--NAME`` may be given again (its value a tuple)."""
        return self.kind in ("names", "assignments", "texts")


@dataclass(frozen=True)
class Flagged:
    """The rows of a many-point run a command warns of: ``rows(arrays)`` says, for a
    chunk of rows (``analysis.rows``' arrays by name), which are flagged (booleans).
    When any is, the run says ``message`` (a text, or a function of the fields that
    gives it), formatted with ``count`` (those flagged), ``rows`` (all), ``listed`` (the
    first flagged, ``row 3 (x = -1)``, and how many more) and ``arguments`` (the
    function's); and exits with ``status`` (None: as it would without)."""

    rows: Callable
    message: str | Callable
    status: int | None = None

    def said(self, **fields) -> str:
        if callable(self.message):
            return self.message(fields)
        return self.message.format(**fields)


@dataclass(frozen=True)
class Picture:
    """``--output FILE`` of a command that draws its report as a picture: ``check(path)``
    refuses a file it cannot draw, before anything is computed, and gives the path to
    write; ``draw(report, path)`` draws it; ``help`` is ``--output``'s. With ``said``
    (formatted with ``path``), that line stands for the report unless ``--format`` asks
    for it; else the report is shown as always. ``own``: ``--output`` is listed last of
    the command's own options, not in the place of every command's."""

    check: Callable
    draw: Callable
    help: str
    metavar: str = "FILE.png"
    said: str | None = None
    own: bool = False


@dataclass(frozen=True)
class Variant:
    """The command computed another way when the option ``given`` is given: by
    ``function``, which receives that option's value (as its ``Option`` says) with those
    of the other arguments it takes. ``excludes``: the options refused beside it, each
    with its reason (``--NAME cannot go with --GIVEN: REASON``); ``one_point``: why it is
    refused at many points (``--GIVEN runs at one point: ...``)."""

    given: str
    function: Callable
    excludes: Mapping[str, str] = field(default_factory=dict)
    one_point: str = "not implemented"


@dataclass(frozen=True)
class Calculator:
    """How the calculator runs a command otherwise than ``:NAME [EXPR]`` on its program
    with its settings: ``usage`` and ``help``, its line of ``:help`` (by default
    ``:NAME [EXPR]`` and the help's summary); ``read(argument)``, what is typed after
    ``:NAME``, gives ``(EXPR, said)``; ``settings(said, values, read)`` the keywords of
    the function in place of ``wrt``, from what was said, the session's values by name
    and the inputs the expression reads; with ``settings``, inputs without a value may
    stand in the program (the function binds them)."""

    usage: str | None = None
    help: str | None = None
    read: Callable | None = None
    settings: Callable | None = None


@dataclass(frozen=True)
class Command:
    """A command: ``gradcli NAME``, ``api.NAME`` and ``:NAME`` (see the module's docstring).

    ``help`` is its ``--help``: a summary, then examples in ``$ gradcli ...`` lines that
    ``tests/test_cli_help.py`` runs. ``exit_status``, when given, is the exit status a
    report calls for at one point (1 when a derivative disagrees), else --strict's.
    ``points``: it also runs at many points (``--over``, ``--points FILE``), a row at
    each, which its report's ``row()`` gives (``analysis.rows``); ``flagged`` the rows
    it warns of there (``Flagged``). ``formats``: the formats of its report beyond those
    of every result (``latex``), at one point only; ``format_help`` the help of its
    ``--format`` when those need saying. ``sources``: it takes several SOURCEs, and
    its function a tuple of texts and a tuple of ``filename``. ``picture``: its
    ``--output FILE`` draws the report (``Picture``).

    ``exit_status`` may also give ``(status, message)``: the message is said as an
    ``error:`` line (a solver that did not converge), by the calculator too. A function
    that takes ``progress`` is given, on a terminal, a function it calls as
    ``progress(iteration, f, gradient_norm)`` at one point: a line on standard error.
    ``variants``: other ways it computes, chosen by an option (``Variant``). ``solves``:
    its ``wrt`` are unknowns it starts from their values; at many points, without
    ``--wrt``, those no column binds. ``program``: the program whose inputs the columns
    of many points bind, from SOURCE's text, when it is not that text (equations).
    ``calculator``: how ``:NAME`` reads its line (``Calculator``), when it is not
    ``:NAME [EXPR]``; a command that requires an option is left out of the calculator
    unless it has one.
    """

    name: str
    function: Callable
    help: str
    options: tuple[Option, ...] = ()
    exit_status: Callable | None = None
    points: bool = False
    flagged: Flagged | None = None
    formats: tuple[str, ...] = ()
    format_help: str | None = None
    sources: bool = False
    picture: Picture | None = None
    variants: tuple[Variant, ...] = ()
    solves: bool = False
    program: Callable | None = None
    calculator: Calculator | None = None

    @property
    def module(self) -> str:
        """The module that declares it."""
        return self.function.__module__

    @property
    def summary(self) -> str:
        """The first sentence of its help, as a list of commands shows it."""
        first = " ".join(self.help.split()).split(": ")[0].split(". ")[0]
        return first[:1].lower() + first[1:]

    def run(self, source: str, **settings):
        """The function on ``source``, given those of ``settings`` it takes (the calculator
        passes all it has: dtype, seed, wrt)."""
        taken = inspect.signature(self.function).parameters
        return self.function(source, **{k: v for k, v in settings.items() if k in taken})


@cache
def commands() -> dict[str, Command]:
    """Every declared command by name, read from the modules of ``gradcli.analysis``."""
    package = importlib.import_module(__package__)
    found: dict[str, Command] = {}
    for info in pkgutil.iter_modules(package.__path__):
        path = os.path.join(info.module_finder.path, f"{info.name}.py")
        if not declares(path):
            continue  # importing every analysis was a tenth of gradcli --help
        module = importlib.import_module(f"{__package__}.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            if command.name in found:
                raise ValueError(f"two commands named {command.name!r}: in {info.name} and "
                                 f"{found[command.name].module}")  # fmt: skip
            found[command.name] = command
    return found


def calculator_commands() -> dict[str, Command]:
    """The commands the calculator runs as ``:NAME [EXPR]``: on its program and its
    settings alone, so none that requires an option (plot's ``--over``), unless it says
    how the calculator gives it (``Calculator``)."""
    return {
        n: c
        for n, c in commands().items()
        if c.calculator is not None or not any(o.required for o in c.options)
    }


def declares(path: str) -> bool:
    """Whether the module's text assigns ``COMMANDS`` at its top level (else it declares
    none, and is not imported)."""
    try:
        with open(path, "rb") as file:
            return b"\nCOMMANDS = " in file.read()
    except OSError:
        return True  # not a plain file: ask the module itself


def find(name: str) -> Command | None:
    """The command declared as ``name``, or None."""
    return commands().get(name)
