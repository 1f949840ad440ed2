"""The analysis commands of the command line (check, diff, propagate, taylor, plot):
thin Click commands over ``gradcli.analysis``, registered on ``gradcli.cli.cli``."""

from __future__ import annotations

import sys

import click

from . import bindings as _bindings
from .cli import (
    EXIT_NONFINITE,
    EXIT_OK,
    _bind,
    _command,
    _read_source,
    _say,
    _write,
    cli,
)
from .errors import GradcliError
from .render import Format

#: ``check``'s exit status when a derivative disagrees, so that it works in a script's ``if``.
EXIT_DISAGREE = 1


def _run_report(compute, source, options, *, fmt=None, **arguments):
    """Read SOURCE and the bindings, compute the report, write it; returns the report."""
    from .render import render_report

    text, filename = _read_source(source, options["file"])
    report = compute(
        text,
        _bind(options["var"]),
        dtype=options["dtype"],
        seed=options["seed"],
        filename=filename,
        **arguments,
    )
    fmt = fmt or options["fmt"]
    precision = options["precision"]
    if fmt == "latex":
        _write(lambda _: render_report(report, "latex", sys.stdout, precision), Format.PLAIN)
    else:
        _write(lambda chosen: render_report(report, chosen, sys.stdout, precision), fmt)
    for warning in report.warnings:
        _say(warning)
    return report


def _npz_only(options, command: str) -> None:
    if options["output"] is not None:
        raise GradcliError(f"{command} has no --output: use --format json to keep its numbers")


def _strict_status(report, options) -> int:
    if options["strict"] and not report.finite:
        return EXIT_NONFINITE
    return EXIT_OK


# ----------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------


@_command(
    cli,
    "check",
    click.option("--wrt", multiple=True, metavar="X,Y", help="The inputs to check [default: all]."),
    click.option(
        "--order",
        type=click.IntRange(1, 2),
        default=1,
        show_default=True,
        help="2 also checks the Hessian.",
    ),
    click.option(
        "--grad",
        "grads",
        multiple=True,
        metavar="X=EXPR",
        help="A hand-derived derivative with respect to X to compare (repeatable).",
    ),
    click.option(
        "--eps", type=float, default=1e-6, show_default=True, help="Finite-difference step."
    ),
    click.option("--atol", type=float, default=1e-5, show_default=True, help="Absolute tolerance."),
    click.option("--rtol", type=float, default=1e-3, show_default=True, help="Relative tolerance."),
)
def check_command(source, wrt, order, grads, eps, atol, rtol, **options):
    """The engine's gradient (and with --order 2 its Hessian) against central
    finite differences in float64, as torch.autograd.gradcheck; with --grad,
    against derivatives derived by hand. Exit status 1 when any disagrees.

    \b
    Example:
      $ gradcli check "x**2*y" --x 3 --y 2 --grad x=2*x*y --grad y=x**2 --format plain
      passed true
      against hand formulas
      atol 1e-05
      rtol 0.001
      checks.grad.x.formula 2*x*y
      checks.grad.x.expected 12
      checks.grad.x.engine 12
      checks.grad.x.max_abs_error 0
      checks.grad.x.max_rel_error 0
      checks.grad.x.passed true
      checks.grad.y.formula x**2
      checks.grad.y.expected 9
      checks.grad.y.engine 9
      checks.grad.y.max_abs_error 0
      checks.grad.y.max_rel_error 0
      checks.grad.y.passed true
    """
    from .analysis import check
    from .cli import _names

    _npz_only(options, "check")
    report = _run_report(
        check,
        source,
        options,
        wrt=_names(wrt),
        order=order,
        grads=_hand_formulas(grads),
        eps=eps,
        atol=atol,
        rtol=rtol,
    )
    if not report.passed:
        return EXIT_DISAGREE
    return _strict_status(report, options)


def _hand_formulas(options) -> dict[str, str]:
    formulas: dict[str, str] = {}
    for option in options:
        name, formula = _bindings.split_assignment(option, "--grad")
        if name in formulas:
            raise GradcliError(f"--grad {name} is given twice")
        if not formula.strip():
            raise GradcliError(f"--grad {name}= needs a formula, as in --grad {name}=2*{name}")
        formulas[name] = formula
    return formulas
