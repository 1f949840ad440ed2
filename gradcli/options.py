"""The command line's options, declared once: those every computing command shares,
and the few some add. ``cli`` puts them on its commands. Every option is made by
``option``, from a name of ``option_names`` (which the library reads too)."""

from __future__ import annotations

import click

from . import api
from .option_names import OPTION_NAMES
from .render import Format


def option(name: str, *decls: str, **attrs):
    """``click.option`` for ``--name``, a name of ``OPTION_NAMES``, with the other
    ``decls`` (a short flag ``-f``, the parameter's name) and Click's ``attrs``."""
    return click.option(
        *[d for d in decls if d.startswith("-")],
        long(name),
        *[d for d in decls if not d.startswith("-")],
        **attrs,
    )


def long(name: str) -> str:
    """``--name``, for a name of ``OPTION_NAMES`` (the library knows them all)."""
    if name not in OPTION_NAMES:
        raise ValueError(f"--{name}: declare the option's name in gradcli/option_names.py")
    return f"--{name}"


MAX_DIGITS = 17

EPILOG = """\b
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

FORMAT = option(
    "format",
    "fmt",
    type=click.Choice([f.value for f in Format]),
    help="Output format [default: table on a terminal, plain otherwise].",
)
DEBUG = option("debug", is_flag=True, help="Show tracebacks of errors.")

SHARED_OPTIONS = [
    click.argument("source", required=False),
    option(
        "file",
        "-f",
        metavar="FILE",
        help="Read the program from FILE ('-' for standard input).",
    ),
    option(
        "var",
        "var",
        multiple=True,
        metavar="NAME=VALUE",
        help="Bind an input (repeatable); the same as --NAME VALUE.",
    ),
    option(
        "seed",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Seed of randn/rand in values and programs.",
    ),
    option(
        "dtype",
        type=click.Choice(api.DTYPES),
        default="float64",
        show_default=True,
        help="Floating-point type of the computation.",
    ),
    FORMAT,
    option(
        "precision",
        type=click.IntRange(min=1),
        # 17 digits tell any two float64 numbers apart: more would only be noise.
        callback=lambda ctx, param, n: n if n is None else min(n, MAX_DIGITS),
        metavar="N",
        help="Significant digits printed [default: 6 in tables, all in plain and json].",
    ),
    GET := option(
        "get",
        metavar="NAME",
        help="Print only the numbers of one result (value, grad.x, hessian.x.y),"
        " separated by spaces: for $(...) in scripts.",
    ),
    OUTPUT := option("output", "-o", metavar="FILE.npz", help="Also save every result array."),
    option("strict", is_flag=True, help="Exit 3 when a result is nan or infinite."),
    option(
        "max-elements",
        type=click.IntRange(min=1),
        default=api.DEFAULT_MAX_ELEMENTS,
        show_default=True,
        metavar="N",
        help="Refuse any result (or Jacobian, Hessian) of more than N numbers.",
    ),
    DEBUG,
]

STEPS = option(
    "steps",
    is_flag=True,
    help="Also show the reverse pass step by step: what each node received, its rule, "
    "what it sent to each input.",
)

WRT = option(
    "wrt",
    multiple=True,
    metavar="X,Y",
    help="The inputs to differentiate with respect to [default: all].",
)
