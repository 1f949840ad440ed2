"""What the analysis commands share on the command line: their options, reading SOURCE
and the bindings, a report computed and shown (or its rows at many points), their exit
status. The commands are declared in ``gradcli.analysis`` (``cli.declared`` makes them)."""

from __future__ import annotations

import sys

from ..core import bindings as _bindings
from ..errors import GradcliError
from ..render import Format, formats, render_report
from ..render.plain import render_line, report_lines
from .common import (
    EXIT_NONFINITE,
    EXIT_OK,
    AnalysisCommand,
    refuse_points_options,
    say,
    subcommand,
    write_output,
)
from .options import COMPUTING_OPTIONS as _COMPUTING_OPTIONS
from .options import OUTPUT as _OUTPUT
from .options import POINTS as _POINTS
from .options import SHARED_OPTIONS as _SHARED_OPTIONS

#: The shared options but --output: a report's numbers are kept with --format json.
REPORT_OPTIONS = [option for option in _SHARED_OPTIONS if option is not _OUTPUT]
#: Those of the analyses that also run at many points (--over, --points): a row each,
#: written as the computing commands write theirs (--format csv, --output FILE).
POINTS_REPORT_OPTIONS = [*_COMPUTING_OPTIONS[:1], *_POINTS, *_COMPUTING_OPTIONS[1:]]


def run_report_or_rows(compute, command: str, source, options, **arguments) -> tuple:
    """One point: the report, shown (``(report, None)``). Many points (``--over``,
    ``--points``): a row of the report at each, written (``(None, exit status)``)."""
    if options["points"] is not None or options["over"]:
        from .point_runs import run_batch

        return None, run_batch(command, source, options, arguments, rows=True)
    refuse_points_options(options)
    if options["output"] is not None:
        raise GradcliError(
            f"--output writes the rows of many points (--over, --points FILE); {command} at "
            "one point keeps its numbers with --format json"
        )
    return run_report(compute, source, options, **arguments), None


def run_report(compute, source, options, *, fmt=None, quiet=False, **arguments):
    """Read SOURCE (each of several, when it is a tuple) and the bindings, compute the
    report, write it (not when ``quiet``, but its warnings); returns the report."""
    if isinstance(source, tuple):  # SOURCE...: the function takes the texts and filenames
        read = [_bindings.read_source(s, options["file"]) for s in (source or (None,))]
        text, filename = (tuple(column) for column in zip(*read))
    else:
        text, filename = _bindings.read_source(source, options["file"])
    report = compute(
        text,
        _bindings.bind_assignments(options["var"]),
        dtype=options["dtype"],
        seed=options["seed"],
        filename=filename,
        **arguments,
    )
    _show_report(report, options, fmt=fmt, quiet=quiet)
    return report


def _show_report(report, options, *, fmt=None, quiet: bool = False) -> None:
    """Write the report in its format (nothing when ``quiet``), then its warnings."""
    fmt = fmt or options["fmt"]
    precision = options["precision"]
    if options.get("get") is not None:
        _write_one(report, options["get"], fmt, precision)
    elif not quiet:
        write_output(lambda chosen: _render(report, chosen, precision), fmt)
    for warning in report.warnings:
        say(warning)


def _render(report, fmt: str, precision) -> None:
    """The report in ``fmt``; written as a row (``--format csv``), what taylor's
    coefficients are of, said after it."""
    render_report(report, fmt, sys.stdout, precision)
    if hasattr(report, "variables") and formats.get(fmt).one_point_as_row:
        from .point_runs import say_variables

        sys.stdout.flush()
        say_variables(report.variables())


def _write_one(report, name: str, fmt, precision) -> None:
    """``--get NAME``: what follows NAME on its line of --format plain, alone."""
    if fmt is not None:
        raise GradcliError(f"--get prints plain numbers: leave out --format {fmt}")
    lines = report_lines(report.as_tree(), precision)
    if name not in lines:
        raise GradcliError(f"--get {name}: no such entry; the entries are {', '.join(lines)}")
    write_output(lambda _: render_line(lines, name, sys.stdout), Format.PLAIN)


def strict_status(report, options) -> int:
    if options["strict"] and not report.finite:
        return EXIT_NONFINITE
    return EXIT_OK


def analysis_command(group, name, *extra_options, **kwargs):
    """An analysis command: its own options bind inputs on the other commands."""
    return subcommand(group, name, *extra_options, cls=AnalysisCommand, **kwargs)
