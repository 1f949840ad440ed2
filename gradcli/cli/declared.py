"""The commands declared in the registry (``gradcli.analysis.commands``), as Click commands.

A declared command takes the options every analysis takes (``cli.analysis``'s
``REPORT_OPTIONS``) and its own, each made from its ``Option``; it reads SOURCE and the
bindings, calls its function and writes the report in the format chosen. The group
(``common._Group``) asks ``command_for`` for a name it has not loaded.
"""

from __future__ import annotations

import inspect

import click

from ..analysis.commands import Command, Option, commands, find
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
from .common import write_output
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

    takes = inspect.signature(declared.function).parameters

    def run(source, **options):
        arguments = {o.keyword: _value(o, options.pop(o.keyword)) for o in declared.options}
        if "max_elements" in takes:
            arguments["max_elements"] = options["max_elements"]
        _refuse_one_point_only(declared, options, arguments)
        name, function = declared.name, declared.function
        if declared.points:
            report, status = run_report_or_rows(function, name, source, options, **arguments)
            if report is None:
                return status
        else:
            report = _one_point(declared, source, options, arguments)
        if declared.exit_status is not None:
            status = declared.exit_status(report)
            if status:
                return status
        return strict_status(report, options)

    run.__doc__ = declared.help
    made = [_click_option(o) for o in declared.options]
    shared = POINTS_REPORT_OPTIONS if declared.points else REPORT_OPTIONS
    if declared.picture is not None:  # --output FILE draws it
        picture = declared.picture
        drawn = option("output", "-o", metavar=picture.metavar, help=picture.help)
        shared = [drawn if o is OUTPUT else o for o in SHARED_OPTIONS]
    if declared.sources:
        shared = [click.argument("source", nargs=-1), *shared[1:]]
    if declared.formats or declared.format_help:
        shared = [_format_option(declared) if o in (FORMAT, COMPUTING_FORMAT) else o
                  for o in shared]  # fmt: skip
    return analysis_command(group, declared.name, *made, shared=shared)(run)


def _one_point(declared: Command, source, options, arguments):
    """The report at one point, shown; with ``picture`` and --output FILE, drawn there."""
    picture, path = declared.picture, options.get("output")
    if picture is None or path is None:
        return run_report(declared.function, source, options, **arguments)
    path = picture.check(path)  # before anything is computed or printed
    instead = picture.said is not None and options["fmt"] is None
    report = run_report(declared.function, source, options, quiet=instead, **arguments)
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
        given = [f"--{o.name}" for o in declared.options if o.one_point and arguments[o.keyword]]
        if fmt in declared.formats:
            given.append(f"--format {fmt}")
        if given:
            raise GradcliError(
                f"{given[0]} is for one point: many points (--over, --points) write numbers"
            )
    elif fmt in declared.formats and options["get"] is not None:
        raise GradcliError(f"--get prints plain numbers: leave out --format {fmt}")


def _click_option(declared: Option):
    keyword = declared.keyword
    if declared.kind == "flag":
        return option(declared.name, keyword, is_flag=True, help=declared.help)
    if declared.kind == "names":
        metavar = declared.metavar or "X,Y"
        return option(declared.name, keyword, multiple=True, metavar=metavar, help=declared.help)
    if declared.kind == "texts":
        return option(declared.name, keyword, multiple=True, required=declared.required,
                      metavar=declared.metavar, help=declared.help)  # fmt: skip
    if declared.kind == "assignments":
        metavar = declared.metavar or "X=TEXT"
        return option(declared.name, keyword, multiple=True, metavar=metavar, help=declared.help)
    kind = _TYPES[declared.kind]
    if kind is int and (declared.minimum, declared.maximum) != (None, None):
        kind = click.IntRange(declared.minimum, declared.maximum)
    return option(
        declared.name,
        keyword,
        type=kind,
        default=declared.default,
        show_default=declared.default is not None,
        metavar=declared.metavar,
        help=declared.help,
    )


def _value(declared: Option, value):
    if declared.kind == "names":
        return _bindings.names_of(value)
    if declared.kind == "assignments":
        return _bindings.named_texts(value, f"--{declared.name}", declared.needs)
    return value
