"""The analysis commands of the command line (check, diff, propagate, taylor, plot):
thin Click commands over ``gradcli.analysis``, registered on ``gradcli.cli.cli``."""

from __future__ import annotations

import os
import sys

import click

from ..core import bindings as _bindings
from ..errors import GradcliError
from ..render import Format
from .common import (
    EXIT_NONFINITE,
    EXIT_OK,
    AnalysisCommand,
    cli,
    refuse_points_options,
    say,
    subcommand,
    write_output,
)
from .options import COMPUTING_OPTIONS as _COMPUTING_OPTIONS
from .options import OUTPUT as _OUTPUT
from .options import OVER_HELP
from .options import POINTS as _POINTS
from .options import SHARED_OPTIONS as _SHARED_OPTIONS
from .options import option as _option

#: ``check``'s exit status when a derivative disagrees, so that it works in a script's ``if``.
EXIT_DISAGREE = 1
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


def run_report(compute, source, options, *, fmt=None, **arguments):
    """Read SOURCE and the bindings, compute the report, write it; returns the report."""
    text, filename = _bindings.read_source(source, options["file"])
    report = compute(
        text,
        _bindings.bind_assignments(options["var"]),
        dtype=options["dtype"],
        seed=options["seed"],
        filename=filename,
        **arguments,
    )
    _show_report(report, options, fmt=fmt)
    return report


def _show_report(report, options, *, fmt=None, quiet: bool = False) -> None:
    """Write the report in its format (nothing when ``quiet``), then its warnings."""
    from ..render import render_report

    fmt = fmt or options["fmt"]
    precision = options["precision"]
    if options.get("get") is not None:
        _write_one(report, options["get"], fmt, precision)
    elif fmt == "csv":  # the analyses that give rows at many points (propagate, taylor, check)
        from .point_runs import write_one_row

        variables = report.variables() if hasattr(report, "variables") else None
        write_one_row(report.row(), precision, variables)
    elif quiet:
        pass
    elif fmt == "latex":
        write_output(lambda _: render_report(report, "latex", sys.stdout, precision), Format.PLAIN)
    else:
        write_output(lambda chosen: render_report(report, chosen, sys.stdout, precision), fmt)
    for warning in report.warnings:
        say(warning)


def _write_one(report, name: str, fmt, precision) -> None:
    """``--get NAME``: what follows NAME on its line of --format plain, alone."""
    from ..render.plain import render_line, report_lines

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


# ----------------------------------------------------------------------------
# plot
# ----------------------------------------------------------------------------


@analysis_command(
    cli,
    "plot",
    _option(
        "over",
        required=True,
        multiple=True,
        metavar="X=VALUES",
        help="The input along the x axis and its points. "
        + OVER_HELP.format(default=201)
        + " Twice for two inputs: f over the grid, with its gradient.",
    ),
    shared=[
        click.argument("source", nargs=-1)
        if option is _SHARED_OPTIONS[0]
        else _option(
            "output", "-o", metavar="FILE.png", help="Draw the plot into FILE (.png, .svg)."
        )
        if option is _OUTPUT
        else option
        for option in _SHARED_OPTIONS
    ],
)
def plot_command(source, over, **options):
    """The function and its derivative over a range of one input (the others
    bound as usual), drawn in the terminal, with kinks (where f' jumps), poles
    and non-finite points marked. Several SOURCEs share the axes; two --over
    draw f over a grid of two inputs, with arrows along its gradient.
    --output FILE.png or FILE.svg draws it with matplotlib instead (pip install
    'gradcli[plot]') and says where; --format plain or json gives the numbers.

    \b
    Example:
      $ gradcli plot "abs(x)" --over x=-1:1:5 --format plain
      over x
      x -1 -0.5 0 0.5 1
      f 1 0.5 0 0.5 1
      df -1 -1 0 1 1
      kinks 0
      nonfinite
      poles
    """
    from ..analysis import field, plot, plots
    from ..render.image import require_matplotlib, write_image

    output = options["output"]
    if output is not None:
        output = os.path.expanduser(output)
        require_matplotlib(output)  # before anything is computed or printed
    if len(over) > 2:
        raise GradcliError("--over is given at most twice: one input, or two for a field")
    sources = [_bindings.read_source(s, options["file"]) for s in (source or (None,))]
    if len(over) == 2 and len(sources) > 1:
        raise GradcliError("a field (two --over) is drawn for one SOURCE at a time")
    ranges = [_bindings.parse_over(o) for o in over]
    common = {
        "dtype": options["dtype"],
        "seed": options["seed"],
    }
    bound = _bindings.bind_assignments(options["var"])
    if len(ranges) == 2:
        ((text, filename),) = sources
        report = field(text, bound, over=tuple(ranges), filename=filename, **common)
    elif len(sources) == 1:
        ((text, filename),) = sources
        report = plot(text, bound, over=ranges[0], filename=filename, **common)
    else:
        texts, filenames = zip(*sources)
        report = plots(texts, bound, over=ranges[0], filenames=filenames, **common)
    _show_report(report, options, quiet=output is not None and options["fmt"] is None)
    if output is not None:
        write_image(report, output)
        if options["fmt"] is None:
            # In place of the numbers, which --format plain or json still gives.
            write_output(lambda _: click.echo(f"plot written to {output}"), Format.PLAIN)
    return strict_status(report, options)
