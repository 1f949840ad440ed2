"""The commands declared in the registry (``gradcli.analysis.commands``), as Click commands.

A declared command takes the options every analysis takes (``cli.analysis``'s
``REPORT_OPTIONS``) and its own, each made from its ``Option``; it reads SOURCE and the
bindings, calls its function and writes the report in the format chosen. The group
(``common._Group``) asks ``command_for`` for a name it has not loaded.
"""

from __future__ import annotations

import click

from ..analysis.commands import Command, Option, commands, find
from ..core import bindings as _bindings
from .analysis import (
    POINTS_REPORT_OPTIONS,
    REPORT_OPTIONS,
    analysis_command,
    run_report,
    run_report_or_rows,
    strict_status,
)
from .options import option

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
        arguments = {o.keyword: _value(o, options.pop(o.keyword)) for o in declared.options}
        name, function = declared.name, declared.function
        if declared.points:
            report, status = run_report_or_rows(function, name, source, options, **arguments)
            if report is None:
                return status
        else:
            report = run_report(function, source, options, **arguments)
        if declared.exit_status is not None:
            status = declared.exit_status(report)
            if status:
                return status
        return strict_status(report, options)

    run.__doc__ = declared.help
    made = [_click_option(o) for o in declared.options]
    shared = POINTS_REPORT_OPTIONS if declared.points else REPORT_OPTIONS
    return analysis_command(group, declared.name, *made, shared=shared)(run)


def _click_option(declared: Option):
    if declared.kind == "flag":
        return option(declared.name, is_flag=True, help=declared.help)
    if declared.kind == "names":
        metavar = declared.metavar or "X,Y"
        return option(declared.name, multiple=True, metavar=metavar, help=declared.help)
    return option(
        declared.name,
        type=_TYPES[declared.kind],
        default=declared.default,
        show_default=declared.default is not None,
        metavar=declared.metavar,
        help=declared.help,
    )


def _value(declared: Option, value):
    if declared.kind == "names":
        return _bindings.names_of(value)
    return value
