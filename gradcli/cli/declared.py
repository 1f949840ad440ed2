"""The commands declared in the registry (``gradcli.analysis.commands``), as Click commands.

A declared command takes the options every analysis takes (``cli.analysis``'s
``REPORT_OPTIONS``) and its own, each made from its ``Option``; it reads SOURCE and the
bindings, calls its function and writes the report in the format chosen. The group
(``common._Group``) asks ``command_for`` for a name it has not loaded.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import time
from functools import cache

import click

from ..analysis.commands import Command, Option, Variant, commands, find
from ..core import bindings as _bindings
from ..errors import GradcliError
from ..render import Format
from .analysis import (
    POINTS_REPORT_OPTIONS,
    REPORT_OPTIONS,
    analysis_command,
    run_report,
    run_report_or_rows,
    strict_status,
)
from .common import say_error, write_output
from .options import (
    COMPUTING_FORMAT,
    COMPUTING_FORMAT_HELP,
    FORMAT,
    FORMAT_HELP,
    OUTPUT,
    SHARED_OPTIONS,
    FormatChoice,
    computing_formats,
    option,
    result_formats,
)

_TYPES = {"text": None, "int": int, "float": float}


def command_for(group, name: str) -> click.Command | None:
    """``gradcli NAME`` of the command the registry declares as ``name``, added to
    ``group``; None when it declares none."""
    declared = find(name)
    return None if declared is None else add(group, declared)


def add_all(group) -> None:
    """Every declared command the group lacks (a command written by hand in this
    package is its own)."""
    for name, declared in commands().items():
        if name not in group.loaded_commands():
            add(group, declared)


def add(group, declared: Command) -> click.Command:
    """``declared`` as a command of ``group``."""

    def run(source, **options):
        return _run(declared, replaced, source, options)

    run.__doc__ = declared.help
    shared = POINTS_REPORT_OPTIONS if declared.points else REPORT_OPTIONS
    picture = declared.picture
    made = [_click_option(o) for o in declared.options]
    if picture is not None:  # --output FILE draws it
        drawn = option("output", "-o", metavar=picture.metavar, help=picture.help)
        if picture.own:
            made.append(drawn)
        else:
            shared = [drawn if o is OUTPUT else o for o in SHARED_OPTIONS]
    # An option of its own named as one every analysis takes is in that one's place.
    replaced = {o.keyword for o in declared.options} & set(map(_name, shared))
    shared = [o for o in shared if _name(o) not in replaced]
    if declared.sources:
        shared = [click.argument("source", nargs=-1), *shared[1:]]
    if declared.formats or declared.format_help:
        shared = [_format_option(declared) if o in (FORMAT, COMPUTING_FORMAT) else o
                  for o in shared]  # fmt: skip
    return analysis_command(group, declared.name, *made, shared=shared)(run)


def _run(declared: Command, replaced, source, options) -> int:
    """Read the command's options, compute its report (or its rows at many points), show
    it; its exit status. ``replaced``: its options in the place of every analysis's."""
    variant = _variant(declared, options)
    arguments = _arguments(declared, replaced, options)
    function = declared.function if variant is None else variant.function
    takes = inspect.signature(function).parameters
    if "max_elements" in takes:
        arguments["max_elements"] = options["max_elements"]
    wrappers = [o for o in declared.options if o.wraps is not None]
    if options.get("points") is not None or options.get("over"):
        # Each row's task wraps the function itself (``analysis.rows``).
        kept = _taken(takes, arguments, wrappers)
        return run_report_or_rows(function, declared.name, source, options, **kept)[1]
    for wrapper in wrappers:
        if arguments.pop(wrapper.keyword):
            function = wrapper.wraps(function)
    arguments = _taken(takes, arguments)
    with _progress(declared.name, takes, arguments):
        if declared.points:  # at one point: --output and the options of many refused
            report, _ = run_report_or_rows(function, declared.name, source, options, **arguments)
        else:
            report = _one_point(declared, function, source, options, arguments)
    status = 0 if declared.exit_status is None else declared.exit_status(report)
    if isinstance(status, tuple):  # and the error that says why
        return say_error(status[1], status[0])
    return status or strict_status(report, options)


def _arguments(declared: Command, replaced, options) -> dict:
    """The command's own options, read, as the function's keywords (taken out of
    ``options``, which keeps those every analysis takes)."""
    given = {o.keyword: options.pop(o.keyword) for o in declared.options}
    for o in declared.options:  # one in the place of every analysis's: that one not given
        if o.keyword in replaced:
            options[o.keyword] = () if o.repeatable else None
    arguments = {o.keyword: _value(o, given[o.keyword]) for o in declared.options}
    _refuse_one_point_only(declared, options, arguments)
    return arguments


def _variant(declared: Command, options) -> Variant | None:
    """The variant whose option is given, with what it refuses beside it, or None."""
    for variant in declared.variants:
        (chosen,) = [o for o in declared.options if o.name == variant.given]
        if not options[chosen.keyword]:
            continue
        if options.get("points") is not None or options.get("over"):
            raise GradcliError(
                f"--{variant.given} runs at one point: leave out --points/--over "
                f"({variant.one_point})"
            )
        keywords = {o.name: o.keyword for o in declared.options}
        for name, reason in variant.excludes.items():  # its own, or one of every analysis
            if options.get(keywords.get(name, name)) not in (None, False, ()):
                raise GradcliError(f"--{name} cannot go with --{variant.given}: {reason}")
        return variant
    return None


def _taken(takes, arguments, kept=()) -> dict:
    """The arguments the function takes (and the options ``kept``: the wrappers' flags)."""
    if any(p.kind is p.VAR_KEYWORD for p in takes.values()):
        return dict(arguments)
    names = {*takes, *(o.keyword for o in kept)}
    return {k: v for k, v in arguments.items() if k in names}


@contextlib.contextmanager
def _progress(name: str, takes, arguments):
    """A function that takes ``progress`` is given one on a terminal: its iterations on a
    line of standard error, wiped before the report is written."""
    progress = _Progress(name) if "progress" in takes and _stderr_is_terminal() else None
    if progress is not None:
        arguments["progress"] = progress
    try:
        yield
    finally:
        if progress is not None:
            progress.close()


class _Progress:
    """A run's iteration on one line of a terminal's standard error, once it has taken
    ``DELAY`` seconds, redrawn at most every ``EVERY`` seconds and wiped at the end."""

    DELAY, EVERY = 1.0, 0.2

    def __init__(self, command: str):
        self.command, self.start, self.last, self.width = command, time.monotonic(), 0.0, 0

    def __call__(self, iteration: int, f: float, gradient_norm: float) -> None:
        now = time.monotonic()
        if now - self.start < self.DELAY or now - self.last < self.EVERY:
            return
        line = f"{self.command}: iteration {iteration}, f = {f:.6g}, |grad f| = {gradient_norm:.3g}"
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.last, self.width = now, max(self.width, len(line))

    def close(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


@cache
def _name(decorator) -> str:
    """The name of the parameter a Click decorator adds (``over`` for ``--over``)."""

    def probe():
        pass

    decorator(probe)
    return probe.__click_params__[-1].name


def _one_point(declared: Command, function, source, options, arguments):
    """The report at one point, shown; with ``picture`` and --output FILE, drawn there."""
    picture, path = declared.picture, options.get("output")
    if picture is None or path is None:
        return run_report(function, source, options, **arguments)
    path = picture.check(path)  # before anything is computed or printed
    instead = picture.said is not None and options["fmt"] is None
    report = run_report(function, source, options, quiet=instead, **arguments)
    picture.draw(report, path)
    if instead:  # in place of the numbers, which --format plain or json still gives
        line = picture.said.format(path=path)
        write_output(lambda _: click.echo(line), Format.PLAIN)
    return report


def _format_option(declared: Command):
    """``--format`` with the command's own formats after those of every result (and of
    many points, when it runs at many points)."""
    shared = computing_formats if declared.points else result_formats
    base = COMPUTING_FORMAT_HELP if declared.points else FORMAT_HELP
    attrs = {"callback": lambda ctx, param, value: "json" if value == "jsonl" else value}
    return option(
        "format",
        "fmt",
        type=FormatChoice(lambda: [*shared(), *declared.formats]),
        help=declared.format_help or base,
        **(attrs if declared.points else {}),
    )


def _refuse_one_point_only(declared: Command, options, arguments) -> None:
    """The options and formats of one point, refused at many; --get with a format of
    the command's own, refused before anything is computed."""
    fmt = options["fmt"]
    if options.get("points") is not None or options.get("over"):
        given = [o for o in declared.options if o.one_point and arguments[o.keyword]]
        if given and isinstance(given[0].one_point, str):
            raise GradcliError(given[0].one_point)
        named = [f"--{o.name}" for o in given]
        if fmt in declared.formats:
            named.append(f"--format {fmt}")
        if named:
            raise GradcliError(
                f"{named[0]} is for one point: many points (--over, --points) write numbers"
            )
    elif fmt in declared.formats and options["get"] is not None:
        raise GradcliError(f"--get prints plain numbers: leave out --format {fmt}")


def _click_option(declared: Option):
    keyword, required = declared.keyword, declared.required
    if declared.kind == "flag":
        return option(declared.name, keyword, is_flag=True, help=declared.help)
    if declared.repeatable:
        metavar = declared.metavar or {"names": "X,Y", "assignments": "X=TEXT"}.get(declared.kind)
        return option(declared.name, keyword, multiple=True, required=required,
                      metavar=metavar, help=declared.help)  # fmt: skip
    kind = _TYPES[declared.kind]
    if kind is not None and (declared.minimum, declared.maximum) != (None, None):
        ends = declared.minimum, declared.maximum
        if kind is int:
            kind = click.IntRange(*ends, min_open=declared.exclusive, max_open=declared.exclusive)
        else:
            kind = click.FloatRange(*ends, min_open=declared.exclusive, max_open=declared.exclusive)
    # A default given as None would count as a value (Click 8.3): --points FILE required.
    default = {} if declared.default is None else {"default": declared.default}
    return option(
        declared.name,
        keyword,
        type=kind,
        show_default=declared.default is not None,
        required=required,
        metavar=declared.metavar,
        help=declared.help,
        **default,
    )


def _value(declared: Option, value):
    if declared.kind == "names":
        value = _bindings.names_of(value)
    elif declared.kind == "assignments":
        value = _bindings.named_texts(value, f"--{declared.name}", declared.needs)
    if declared.parse is not None and value is not None:
        return declared.parse(value)
    return value
