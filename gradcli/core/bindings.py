"""What the command line reads: the program's source (an expression, a file, or
standard input) and its bindings, written ``--x 2``, ``--x=2`` or ``--var x=2``
(the last for names that clash with one of gradcli's options). What a value
means (``pi/4``, ``randn(3)``, ``@FILE``) is read by ``values.py``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence

import click
import numpy as np

import gradcli

from ..errors import GradcliError, read_error
from ..language.characters import name_problem  # the program's names obey the same rule
from ..record import Record
from .files import path_problem
from .values import parse_value

_NAMED = re.compile(r"\s*([^\W\d]\w*)\s*=(?!=)")


def extract(
    args: Sequence[str], takes_value: Iterable[str], flags: Iterable[str], found=None
) -> list[str]:
    """Rewrite every ``--name VALUE`` and ``--name=VALUE`` whose ``--name`` is not
    one of the command's own options as ``--var name=VALUE``.

    ``takes_value`` and ``flags`` are the command's option strings. The token after
    a binding is its value even when it starts with ``-`` (``--x -1``). Everything
    after ``--`` is left alone. ``found``: a dict that gets the names so bound
    (``"bound"``) and, instead of an error, those without a value (``"dangling"``):
    whether ``--quiet`` lacks a value or is no option at all, only the program says.
    """
    takes_value, flags = set(takes_value), set(flags)
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            out.extend(args[i - 1 :])
            break
        option, eq, inline = token.partition("=")
        if option in takes_value:
            out.append(token)
            if not eq and i < len(args):
                out.append(args[i])
                i += 1
            continue
        if option in flags or not token.startswith("--"):
            out.append(token)
            continue
        name = option[2:]
        if not name.isidentifier():
            # Not a name a program can use: let Click report the unknown option.
            out.append(token)
            continue
        if eq:
            value = inline
        elif i < len(args) and args[i].partition("=")[0] not in takes_value | flags:
            # The next token is the value, even -1; but not an option of the command
            # (--normalize --format json: --normalize has no value).
            value = args[i]
            i += 1
        elif found is not None:
            found.setdefault("dangling", []).append(name)
            continue
        else:
            raise GradcliError(f"--{name} needs a value: --{name} VALUE")
        if found is not None:
            found.setdefault("bound", set()).add(name)
        out.extend(["--var", f"{name}={value}"])
    return out


def split_assignment(text: str, option: str = "--var") -> tuple[str, str]:
    """``"x=2"`` -> ``("x", "2")``, checking that the name is a name."""
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise GradcliError(f"{option} expects NAME=VALUE, got {text!r}")
    if not name.isidentifier():
        raise GradcliError(f"{option}: {name!r} is not a valid name")

    why = name_problem(name)
    if why is not None:
        raise GradcliError(f"{option}: {why}")
    return name, value


def named_texts(texts, option: str, needs: str | None = None) -> dict[str, str]:
    """``NAME=TEXT`` options (``--grad x=2*x``) by name. A name given twice is an error, and,
    with ``needs`` (what goes after ``=``, ``{name}`` for the name), so is nothing after it."""
    found: dict[str, str] = {}
    for text in texts:
        name, value = split_assignment(text, option)
        if name in found:
            raise GradcliError(f"{option} {name} is given twice")
        if needs is not None and not value.strip():
            raise GradcliError(f"{option} {name}= needs {needs.format(name=name)}")
        found[name] = value
    return found


_FILE_OPTIONS = ("-f", "--file")


def source_last(args: list[str], takes_value, flags) -> list[str]:
    """Move an expression that starts with ``-`` (``"-x**2"``), which Click would take
    for an option, after a ``--`` at the end, where it is SOURCE. Only when there is
    no other SOURCE: then ``-v`` is an unknown option, as Click says."""
    candidate, positional = None, False
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            positional = positional or i + 1 < len(args)
            break
        if token in takes_value:
            positional = positional or token in _FILE_OPTIONS  # -f FILE stands for SOURCE
            i += 2
            continue
        file_option = token[:2] == "-f" or token.partition("=")[0] == "--file"
        if not token.startswith("-") or token == "-" or file_option:
            positional = True
        elif not token.startswith("--") and candidate is None:
            if token[:2] not in takes_value and token[:2] not in flags:
                candidate = i
        i += 1
    if candidate is None or positional:
        return args
    token, rest = args[candidate], [*args[:candidate], *args[candidate + 1 :]]
    if "--" not in rest:
        rest.append("--")
    at = rest.index("--") + 1
    return [*rest[:at], token, *rest[at:]]


# A program is a few lines: this bounds what -f /dev/zero or a wrong file can cost.
MAX_PROGRAM_BYTES = 16 * 2**20


def read_source(source: str | None, file: str | None) -> tuple[str, str]:
    """The program's text and the file name its errors name."""
    if source is not None and file is not None:
        raise click.UsageError("give SOURCE or -f FILE, not both")
    if source is None and file is None:
        raise click.UsageError(
            "missing SOURCE: an expression, a program file, or - for standard input"
        )
    path = file if file is not None else source
    if path == "-":
        return _decode(sys.stdin.buffer.read(MAX_PROGRAM_BYTES + 1), "standard input"), "<stdin>"
    if file is None and not os.path.isfile(path):
        if names_a_program_file(source):
            raise GradcliError(f"cannot read {source}: {path_problem(source) or 'no such file'}")
        return source, "<expr>"
    shown = path or "''"
    try:
        with open(path, "rb") as stream:
            return _decode(stream.read(MAX_PROGRAM_BYTES + 1), shown), path
    except OSError as error:
        raise read_error(shown, error) from None


def names_a_program_file(source: str) -> bool:
    """``samples/rosenbrok.grad``: SOURCE meant as a file (no expression ends in .grad)."""
    return source.endswith(".grad") and not any(c.isspace() for c in source)


def _decode(data: bytes, what: str) -> str:
    if len(data) > MAX_PROGRAM_BYTES:
        raise GradcliError(f"cannot read {what}: larger than {MAX_PROGRAM_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is no text
    except UnicodeDecodeError:
        raise GradcliError(f"cannot read {what}: not UTF-8 text") from None


def bind_assignments(assignments, program_from_stdin: bool = False) -> dict[str, str]:
    values: dict[str, str] = {}
    readers = []  # the bindings that read standard input (@-)
    for assignment in assignments:
        name, value = split_assignment(assignment)
        if name in values:
            raise GradcliError(f"--{name} is given twice")
        values[name] = value
        if value.strip() == "@-":
            readers.append(name)
    if program_from_stdin and readers:
        raise GradcliError(
            f"--{readers[0]} @-: standard input holds the program; give the value otherwise"
        )
    if len(readers) > 1:
        raise GradcliError(f"--{readers[0]} and --{readers[1]} both read standard input (@-)")
    return values


def with_file_hint(error: GradcliError, source: str | None) -> GradcliError:
    """``gradcli grad energy`` beside ``energy.grad``: the error says which file was
    meant (only that the file exists is checked; it is not read)."""
    if source is None or not source.isidentifier():
        return error
    program = source + ".grad"
    if os.path.isfile(program):
        error.message += f" (did you mean the program file {program}?)"
    return error


def names_of(options) -> tuple[str, ...] | None:
    """``--wrt x,y --wrt z`` -> ``("x", "y", "z")``; None when not given."""
    if not options:
        return None
    names = tuple(n.strip() for option in options for n in option.split(",") if n.strip())
    if not names:
        raise GradcliError("--wrt needs the names of inputs: --wrt x or --wrt x,y")
    return names


def tangents_of(options) -> dict[str | None, str]:
    """``--tangent x=V`` -> ``{"x": "V"}``; a lone ``--tangent V`` -> ``{None: "V"}``."""
    tangents: dict[str | None, str] = {}
    for option in options:
        named = _NAMED.match(option)
        name, value = (named.group(1), option[named.end() :]) if named else (None, option)
        if name in tangents:
            raise GradcliError(f"--tangent {name or 'V'} is given twice")
        tangents[name] = value
    return tangents


# ----------------------------------------------------------------------------
# Ranges: --over NAME=A:B[:N]
# ----------------------------------------------------------------------------


#: How many points ``NAME=A:B`` has when N is left out.
DEFAULT_OVER_COUNT = 201
#: What ``--over NAME=VALUES`` takes, as its help says it (``{default}``: the points).
OVER_HELP = (
    "NAME=A:B[:N] is N evenly spaced points from A to B (default {default}); NAME=VALUES the"
    " entries of a 1-D value (x=linspace(-2, 2, 101), x=[1, 2, 5])."
)


class Over(Record):
    """``NAME=A:B[:N]``: N evenly spaced values of input NAME from A to B, both included
    (``count`` is None when N is left out: the command picks it); or ``NAME=VALUES``,
    the entries of a 1-D value (``linspace(-2, 2, 101)``, ``[1, 2, 5]``) in ``points``."""

    name: str
    start: float
    stop: float
    count: int | None = None
    points: tuple[float, ...] | None = None

    def values(self, default_count: int = DEFAULT_OVER_COUNT) -> np.ndarray:
        if self.points is not None:
            complex_points = any(isinstance(p, complex) for p in self.points)
            return np.array(self.points, dtype=np.complex128 if complex_points else np.float64)
        return np.linspace(self.start, self.stop, self.count or default_count)


def parse_over(text: str, option: str = "--over", complex_values: bool = False) -> Over:
    """``"x=-3:3"`` -> ``Over("x", -3.0, 3.0)``; ``"t=0:2*pi:50"`` has 50 points. A and B
    are constant expressions (``-pi``, ``2*pi``); N is an integer of at least 2. Without
    a ``:`` outside brackets, the value is any 1-D constant (``x=linspace(-2, 2, 101)``),
    of complex numbers too where ``complex_values`` (``z=[1+2j, 3]``)."""
    name, value = split_assignment(text, option)
    parts = _top_level_split(value, ":")
    if len(parts) == 1 and value.strip():
        points = _vector(value, f"{option} {name}", complex_values)
        return Over(name, points[0], points[-1], len(points), tuple(points.tolist()))
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise GradcliError(
            f"{option} expects NAME=A:B, NAME=A:B:N or NAME=VALUES"
            f" (x=linspace(-2, 2, 101)), got {text!r}"
        )
    start, stop = (number_from_text(parts[i], f"{option} {name}: {'AB'[i]}") for i in range(2))
    if not (np.isfinite(start) and np.isfinite(stop)) or start == stop:
        raise GradcliError(f"{option} {name}: A and B must be finite and different")
    count = None
    if len(parts) == 3:
        n = number_from_text(parts[2], f"{option} {name}: N")
        if n != int(n) or n < 2:
            raise GradcliError(f"{option} {name}: N must be an integer of at least 2, not {n:g}")
        count = int(n)
    return Over(name, start, stop, count)


def _top_level_split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets."""
    parts, depth, current = [], 0, []
    for c in text:
        depth += c in "([" and 1 or (c in ")]" and -1 or 0)
        if c == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    return [*parts, "".join(current)]


def number_from_text(text: str, what: str) -> float:
    array = _constant(text, what)
    if array.shape != () or array.dtype.kind not in "iuf":
        raise GradcliError(f"{what} must be one number, not {text.strip()!r}")
    return float(array)


def _vector(text: str, what: str, complex_values: bool = False) -> np.ndarray:
    array = _constant(text, what)
    if complex_values and array.ndim == 1 and array.size and array.dtype.kind == "c":
        if not np.isfinite(array).all():
            raise GradcliError(f"{what}: the points must be finite")
        return array.astype(np.complex128)
    if array.ndim != 1 or array.size == 0 or array.dtype.kind not in "iuf":
        raise GradcliError(
            f"{what}: the points must be a 1-D value (linspace(-2, 2, 101), [1, 2, 5])"
            f" or a range A:B[:N], not {text.strip()!r}"
        )
    if not np.isfinite(array).all():
        raise GradcliError(f"{what}: the points must be finite")
    return array.astype(np.float64)


def _constant(text: str, what: str) -> np.ndarray:
    before = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float64)  # the ends of a range in full precision
    try:
        array = parse_value(text, name=what)
    finally:
        gradcli.set_default_dtype(before)
    return array
