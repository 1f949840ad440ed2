"""The command line's options, declared once: those every computing command shares,
and the few some add. ``cli`` puts them on its commands. Every option is made by
``option``, from a name of ``option_names`` (which the library reads too)."""

from __future__ import annotations

from collections.abc import Callable

import click

from .. import api
from ..core import bindings as _bindings
from ..core.option_names import OPTION_NAMES
from ..engine import limits
from ..record import Record
from ..render import formats


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
        raise ValueError(f"--{name}: declare the option's name in gradcli/core/option_names.py")
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
Many points: --over NAME=A:B:N or NAME=VALUES (repeat for a grid) or --points
FILE (.csv, .jsonl, .npz, .npy, .parquet, - for CSV on standard input) give one
row of output per point: --format csv (the default when piped), json (JSON
lines) or table, or --output FILE (.npz, .csv, .parquet, .jsonl).
\b
Exit status: 0 success, 2 bad input or an output that cannot be written (a
full disk), 3 a non-finite result under --strict, 1 an internal error, 130
interrupted (Ctrl-C), 143 terminated (SIGTERM)."""


class FormatChoice(click.Choice):
    """``--format``'s choices, read from the registry of formats (``render.formats``)
    when a value is checked or the help shown, not at start-up: ``names`` gives them.
    ``takes(fmt)``, where given, says of one format whether it is a choice, so that a
    format given by its name is checked with its own module alone loaded (the list
    loads every format: for the help, an alias, an error)."""

    def __init__(self, names, takes=None):
        self._names, self._takes = names, takes
        super().__init__(())

    @property
    def choices(self):
        return self._names()

    @choices.setter
    def choices(self, value):
        pass  # Click sets its own; the registry has them

    def convert(self, value, param, ctx):
        takes = self._takes
        if takes is not None and value in formats.names() and takes(formats.get(value)):
            return value
        return super().convert(value, param, ctx)


def result_formats() -> list[str]:
    """The formats of one point's result (and report): table, plain, json..."""
    return formats.one_point_names("render")


def computing_formats() -> list[str]:
    """The formats of the computing commands: one point's, and many points' (csv, jsonl)."""
    many = formats.many_point_names()
    aliases = [a for f in many for a in formats.get(f).aliases]
    return list(dict.fromkeys([*result_formats(), *many, *aliases]))


def _writes_a_result(fmt) -> bool:
    return formats.writes_one_point(fmt, "render")


def _computes_into(fmt) -> bool:
    return formats.writes_one_point(fmt, "render") or fmt.writes_rows


FORMAT_HELP = "Output format [default: table on a terminal, plain otherwise]."
FORMAT = option(
    "format", "fmt", type=FormatChoice(result_formats, _writes_a_result), help=FORMAT_HELP
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
        help="Print only what follows NAME on its line of --format plain (value, grad.x,"
        " hessian.x.y, classification): for $(...) in scripts.",
    ),
    OUTPUT := option(
        "output",
        "-o",
        metavar="FILE.npz",
        help="Also save every result array. Many points: write the rows to FILE (.npz, .csv,"
        " .parquet, .jsonl) instead, and print a one-line summary. FILE is replaced only when"
        " complete: a failed run leaves it as it was.",
    ),
    option("strict", is_flag=True, help="Exit 3 when a result is nan or infinite."),
    option(
        "max-elements",
        type=click.IntRange(min=1),
        default=api.DEFAULT_MAX_ELEMENTS,
        show_default=True,
        metavar="N",
        help="Refuse any result (or Jacobian, Hessian) of more than N numbers.",
    ),
    option(
        "max-operations",
        type=click.IntRange(min=1),
        default=limits.DEFAULT_MAX_OPERATIONS,
        show_default=True,
        metavar="N",
        help="Stop an evaluation of the program at its N-th operation (operator, function,"
        " call or loop step): a few lines that double the work at each may ask for years"
        " of it.",
    ),
    DEBUG,
]

HOLOMORPHIC = option(
    "holomorphic",
    is_flag=True,
    help="The complex derivative f'(z) of a holomorphic program (an input taken as complex);"
    " refused where the Cauchy-Riemann equations fail.",
)

STEPS = option(
    "steps",
    is_flag=True,
    help="Also show the reverse pass step by step: what each node received, its rule, "
    "what it sent to each input.",
)

# ----------------------------------------------------------------------------
# Many points: --points FILE, --over NAME=VALUES (plot's --over too)
# ----------------------------------------------------------------------------

OVER_HELP = _bindings.OVER_HELP

#: The formats of the computing commands: csv is for many points; jsonl is json's other
#: name (JSON lines: one object per point).
COMPUTING_FORMAT_HELP = (
    "Output format [default: table on a terminal, plain otherwise]. csv: a header,"
    " then a row per point (one row at one point). Many points: csv (the default when"
    " piped), json or jsonl (JSON lines) or table (the first and last rows)."
)
COMPUTING_FORMAT = option(
    "format",
    "fmt",
    type=FormatChoice(computing_formats, _computes_into),
    callback=lambda ctx, param, value: "json" if value == "jsonl" else value,
    help=COMPUTING_FORMAT_HELP,
)

POINTS = [
    option(
        "points",
        metavar="FILE",
        help="One evaluation per row of FILE: .csv with a header of input names (x, v[0],"
        ' "W[0,1]"), .jsonl, .npz (an array per input, rows first), .npy (with --columns),'
        " .parquet, or - for CSV on standard input. Its other columns (an id) are copied"
        " to the output rows.",
    ),
    option(
        "over",
        multiple=True,
        metavar="NAME=VALUES",
        help="Evaluate at every value of input NAME; repeated, at every combination. "
        + OVER_HELP.format(default=201),
    ),
    option(
        "columns",
        metavar="X,Y",
        help="The columns that bind inputs [default: those named like one]; of a .npy, the"
        " names of its columns.",
    ),
    option(
        "keep",
        metavar="COLS",
        help="The other columns of --points FILE copied to the output [default: all; '' for none].",
    ),
    option(
        "delimiter",
        metavar="CHAR",
        help="What separates a CSV file's fields (',', ';', '|' or tab) [default: what"
        " separates its header's].",
    ),
    option(
        "chunk-size",
        type=click.IntRange(min=1),
        default=100_000,
        show_default=True,
        metavar="N",
        help="Rows read, computed and written at a time, at most (fewer when --max-memory"
        " holds fewer).",
    ),
    option(
        "max-memory",
        metavar="SIZE",
        help="The memory a many-point run may take (2GiB, 1.5G, 500MB): chunks hold the"
        " rows that fit, by the cost of the first rows, measured; a row that alone needs"
        " more is refused. Under Dask, shared by the workers. [default: half of this"
        " machine's memory, or of a smaller cgroup or ulimit -v limit, at most 2GiB,"
        " beyond what the process holds at the start]",
    ),
    option(
        "skip-bad-rows",
        is_flag=True,
        help="Pass over rows that are not numbers (or have the wrong number of fields) and"
        " list them at the end, rather than stop at the first.",
    ),
    option(
        "dask",
        is_flag=True,
        help="Compute the chunks as Dask tasks on a cluster of this machine's cores; CSV and"
        " Parquet points (a file, a directory or a glob) are read by the workers. Needs"
        " pip install 'gradcli[dask]'. The cluster listens on 127.0.0.1 only.",
    ),
    option(
        "dashboard",
        is_flag=True,
        help="With --dask, open Dask's dashboard (to this machine only) and print its"
        " address on standard error.",
    ),
    option(
        "scheduler",
        metavar="ADDRESS",
        help="Like --dask, on the running dask.distributed cluster at ADDRESS (tcp://host:8786).",
    ),
]

WRT = option(
    "wrt",
    multiple=True,
    metavar="X,Y",
    help="The inputs to differentiate with respect to [default: all].",
)

#: The shared options of the computing commands that compute a result (eval, grad, ...).
COMPUTING_OPTIONS = [COMPUTING_FORMAT if o is FORMAT else o for o in SHARED_OPTIONS]

# ----------------------------------------------------------------------------
# The computing commands' own options (``core.computing.COMMANDS`` names them)
# ----------------------------------------------------------------------------


def _as_given(given):
    return given


class Own(Record):
    """An option some computing commands take: the Click option, the function's
    ``keyword`` (None: the option's name, with dashes as underscores), and ``value``,
    what the function receives of what was given."""

    option: Callable
    keyword: str | None = None
    value: Callable = _as_given


#: ``--dps N``: the computing commands of ``core/precision.py``'s ``COMMANDS`` take it.
DPS = option(
    "dps",
    type=click.IntRange(min=1),
    metavar="N",
    help="Compute in mpmath to N certified significant digits, the bindings and numbers"
    " read as decimal text (--x 0.1 is one tenth); every digit is printed.",
)

OWN = {
    "wrt": Own(WRT, value=_bindings.names_of),
    "steps": Own(STEPS),
    "holomorphic": Own(HOLOMORPHIC),
    "grad-output": Own(
        option(
            "grad-output",
            "grad_output",
            metavar="V",
            help="The vector v of v^T J, of the output's shape (may be left out for a scalar).",
        )
    ),
    "tangent": Own(
        option(
            "tangent",
            multiple=True,
            metavar="X=V",
            help="The direction of input X (repeatable; just V when there is one input).",
        ),
        keyword="tangents",
        value=_bindings.tangents_of,
    ),
    "unit": Own(
        option(
            "unit",
            is_flag=True,
            help="Along the unit vector of the tangents (all of them together): J t/|t|.",
        )
    ),
    "order": Own(
        option(
            "order",
            type=click.IntRange(1),
            default=1,
            show_default=True,
            help="The k-th directional derivative d^k/ds^k f(x + s t) at s = 0 (one point).",
        )
    ),
}
