"""The values of a program's inputs, from the text a binding gives them.

A value is any constant the language evaluates (``2``, ``pi/4``,
``[[1, 2], [3, 4]]``, ``randn(10, 20)``), numbers separated by commas
(``1,2,3``, a vector), NumPy's printed form (``[1 2 3]``, ``[[1 2] [3 4]]``,
``[ 1. -2.]``: what gradcli's table shows), or
``@FILE``, read by the file's suffix:

- ``.npy``: NumPy's format, always loaded with ``allow_pickle=False``;
- ``.npz``: one array of an archive (``@r.npz:grad.W``, as ``--output`` writes
  them; ``@r.npz`` alone when it holds one array), never unpickled;
- ``.csv`` / ``.txt``: numbers separated by commas or whitespace, one row a line
  (``#`` starts a comment); one row, or one column, is a vector; a first row of
  names (a header) is skipped;
- ``.json``: a number or nested lists of numbers (``"nan"``, ``"inf"`` and
  ``"-inf"`` as strings too, as ``--format json`` writes them).

``@-`` reads the value from standard input: a table of numbers as in a ``.csv``
file, or a value written as on the command line (``[1, 2]``, ``[1 2]``).

Nothing here calls ``eval``, and no file is read that the user did not name.
"""

from __future__ import annotations

import os
import re
import sys
import zlib

import numpy as np

from ..engine import limits
from ..errors import GradcliError, read_error
from ..language import characters
from ..language.check import BUILTIN_CONSTANTS
from ..language.program import evaluate_constant
from . import bounded
from .files import npy_problem, path_problem, refusal

FILE_SUFFIXES = (".npy", ".npz", ".csv", ".txt", ".json")
# The language's NUMBER token (grammar/gradcli.lark), with a sign: ASCII digits only
# (Python's \d and float() also take "١٢"; the language refuses them, and says why).
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
# A number with its uncertainty, which only gradcli propagate reads: 1.00+-0.01.
_UNCERTAIN = rf"{_NUMBER.pattern}\s*(\+-|\+/-)\s*{_NUMBER.pattern}"
# A number followed by what reads as a unit: 1.00 m, 9.81 m/s^2, 20 °C, 2.5mm.
_WITH_UNIT = rf"(?P<number>{_NUMBER.pattern})\s*(?P<unit>(?:[^\W\d_]|°)[\w/^*·.²³¹⁻° -]*)"
# What the language's parser explains as a malformed number (0x1F, 1j, 1e): not a unit.
_MALFORMED = r"0[xXbBoO]\w*|[\d.]+[jJ]|[\d.]+[eE][+-]?\w*"
# A percentage, which gradcli propagate reads as a relative uncertainty.
_PERCENT = rf"{_NUMBER.pattern}\s*%"
# A number as NumPy prints one: the above, or nan and inf with their signs.
_PRINTED = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf)"
# 1,2,3: numbers separated by commas, without brackets.
_COMMA_LIST = rf"\s*{_PRINTED}(?:\s*,\s*{_PRINTED})+\s*,?\s*"
# NumPy's printed form: brackets, and numbers separated by whitespace alone. A sign
# belongs to the number after it ("[1 -2]" is [1, -2]); "[1 - 2]" is an expression.
_NUMPY_TOKEN = rf"\[|\]|{_PRINTED}(?![\w.])|\s+"
# Only _NUMBER is compiled on import; the others when a value needs them (start-up).


def parse_value(text: str, *, name: str, seed: int | None = None) -> np.ndarray:
    """The array a binding's text stands for. ``name`` words error messages and, with
    ``seed`` (``--seed``), picks the random stream of a value like ``randn(3)``."""
    stripped = text.strip()
    if _NUMBER.fullmatch(stripped):
        # A plain number means the same to the language; skip parsing it (start-up).
        return np.asarray(characters.number(stripped))
    if stripped.startswith("@"):
        return load_file(stripped[1:], name=name)
    if not stripped:
        raise GradcliError(f"{name} has an empty value")
    if "±" in stripped or re.fullmatch(_UNCERTAIN, stripped):
        raise GradcliError(
            f"{name} {stripped}: a value with an uncertainty is read only by gradcli "
            "propagate; give the value alone (or, for a sum, write 1 + -0.01)"
        )
    unit = _unit_of(stripped)
    if unit is not None:
        number, unit = unit
        raise GradcliError(
            f"{name}: {stripped!r} reads as a number with a unit ({unit}), and gradcli has no "
            f"units: give the number alone ({number}), in the unit the program computes in"
        )
    if re.fullmatch(_PERCENT, stripped):
        fraction = float(stripped.rstrip("% \t")) / 100
        raise GradcliError(
            f"{name} {stripped}: a percentage is read only by gradcli propagate, as a relative "
            f"uncertainty (--sigma L=1%, --L 2.5±1%); give the value as a number ({fraction:g})"
        )
    if re.fullmatch(_COMMA_LIST, stripped):
        return np.array([characters.number(n) for n in stripped.rstrip(",").split(",")])
    try:
        printed = _numpy_printed(stripped)
    except ValueError as error:
        raise GradcliError(f"in the value of {name}: {error}") from None
    if printed is not None:
        return printed
    try:
        seed = None if seed is None else _seed_for(seed, name)
        return np.asarray(evaluate_constant(stripped, seed=seed))
    except GradcliError as error:
        # Keep the span: the caret then points into the value the user typed.
        raise GradcliError(
            f"in the value of {name}: {error.message}", error.span, error.source or stripped
        ) from None


def _unit_of(text: str) -> tuple[str, str] | None:
    """``("1.00", "m")`` for ``"1.00 m"``: a number and what can only be a unit after it
    (not a constant: ``2 pi`` is a product the parser explains); else None."""
    found = re.fullmatch(_WITH_UNIT, text)
    if found is None or re.fullmatch(_MALFORMED, text):
        return None
    unit = found["unit"].strip()
    if unit.split()[0].rstrip("/^*·.-") in BUILTIN_CONSTANTS:
        return None
    return found["number"], unit


def _numpy_printed(text: str) -> np.ndarray | None:
    """The array NumPy printed as ``text`` (``[[1 2] [3 4]]``), or None when ``text``
    is not in that form: it must be brackets around numbers separated by whitespace."""
    if not text.startswith("[") or "," in text:
        return None
    tokens = []
    position = 0
    for match in re.finditer(_NUMPY_TOKEN, text):
        if match.start() != position:
            return None
        position = match.end()
        if not match.group().isspace():
            tokens.append(match.group())
    if position != len(text):
        return None
    if not any(t not in "[]" for t in tokens) or not re.search(r"[\d.nf\]]\s+[-+\d.ni\[]", text):
        return None  # "[]" or "[2]": the language reads them
    rows: list[list] = [[]]
    for token in tokens:
        if token == "[":
            rows.append([])
        elif token == "]":
            if len(rows) == 1:
                raise ValueError(
                    f"NumPy's printed form {text!r} closes more brackets than it opens"
                )
            finished = rows.pop()
            rows[-1].append(finished)
        else:
            rows[-1].append(float(token))
    if len(rows) != 1 or len(rows[0]) != 1:
        raise ValueError(f"NumPy's printed form {text!r} leaves a bracket open")
    try:
        return np.array(rows[0][0], dtype=np.float64)
    except ValueError:
        raise ValueError(f"NumPy's printed form {text!r} has rows of different lengths") from None


def load_file(path: str, *, name: str = "value") -> np.ndarray:
    """An array from ``.npy``, ``.npz``, ``.csv``, ``.txt`` or ``.json``, chosen by
    suffix, or from standard input (``-``)."""
    if not path.strip():
        raise GradcliError(f"{name}: @ needs a file name, as in @data.npy")
    if path == "-":
        array = _read_stdin(name)
        limits.check_input(f"{name} from standard input", array.size)
        return array
    path = os.path.expanduser(path)  # the shell leaves the ~ of @~/x.npy alone
    path, key = _archive_key(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FILE_SUFFIXES:
        kind = f"files ending in {suffix!r}" if suffix else "files without a suffix"
        raise GradcliError(
            f"cannot read {name} from @{path}: {kind} are not supported; "
            f"use .npy, .npz, .csv, .txt or .json"
        )
    problem = path_problem(path)  # before opening: a FIFO with no writer would block
    if problem is not None:
        raise GradcliError(f"cannot read {name} from @{path}: {problem}")
    try:
        if suffix == ".npy":
            array = _load_npy(path)
        elif suffix == ".npz":
            array = _load_npz(path, key)
        else:
            with open(path, encoding="utf-8-sig") as stream:
                text = bounded.read_capped(stream, f"{name} from @{path}")
            array = _parse_json(text) if suffix == ".json" else _parse_table(text)
    except OSError as error:
        raise read_error(f"{name} from @{path}", error) from None
    except UnicodeDecodeError:
        raise GradcliError(f"cannot read {name} from @{path}: not UTF-8 text") from None
    except ValueError as error:
        raise GradcliError(f"cannot read {name} from @{path}: {error}") from None
    limits.check_input(f"{name} from @{path}", array.size)  # text: known once parsed
    return array


def _archive_key(path: str) -> tuple[str, str | None]:
    """``"r.npz:grad.W"`` -> ``("r.npz", "grad.W")``; other paths have no key."""
    head, found, key = path.partition(".npz:")
    if found and key:
        return head + ".npz", key
    return path, None


# Values from standard input: a few numbers, not a stream to exhaust memory with.
MAX_STDIN_BYTES = bounded.MAX_TEXT_BYTES


def _read_stdin(name: str) -> np.ndarray:
    data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        raise GradcliError(f"cannot read {name} from standard input: larger than 64 MiB")
    try:
        text = data.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        raise GradcliError(f"cannot read {name} from standard input: not UTF-8 text") from None
    if not text:
        raise GradcliError(f"cannot read {name} from standard input: it is empty")
    if text.startswith("["):  # a value as written on the command line
        return parse_value(text, name=name)
    try:
        return _parse_table(text)
    except ValueError as error:
        raise GradcliError(f"cannot read {name} from standard input: {error}") from None


def _load_npz(path: str, key: str | None) -> np.ndarray:
    import zipfile  # with bz2 and lzma, milliseconds a one-line command need not spend

    if not zipfile.is_zipfile(path):  # np.load would read a .npy, or a pickle, too
        raise ValueError(refusal(zipfile.BadZipFile("File is not a zip file")))
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            if key is None:
                if len(names) != 1:
                    listed = ", ".join(names) if names else "none"
                    raise ValueError(
                        f"it holds {len(names)} arrays: name one, as in @{path}:NAME "
                        f"(its arrays: {listed})"
                    )
                key = names[0]
            if key not in names:
                raise ValueError(f"it has no array {key!r}; its arrays: {', '.join(names)}")
            bounded.check_npz_member(archive.zip, key)
            array = archive[key]
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        if isinstance(error, ValueError) and error.args and error.args[0].startswith("it "):
            raise
        raise ValueError(refusal(error)) from None
    if array.dtype.kind not in "biufc":
        raise ValueError(_not_numeric(array))
    return array


def _not_numeric(array) -> str:
    return f"its dtype {array.dtype} is not numeric"


def _load_npy(path: str) -> np.ndarray:
    problem = npy_problem(path)  # np.load would take anything else for a pickle
    if problem is not None:
        raise ValueError(problem)
    with open(path, "rb") as stream:
        bounded.check_npy(stream)
    try:
        array = np.load(path, allow_pickle=False)
    except (ValueError, EOFError) as error:
        raise ValueError(refusal(error)) from None
    if array.dtype.kind not in "biufc":
        raise ValueError(_not_numeric(array))
    return array


def _parse_table(text: str) -> np.ndarray:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "," in line:
            # Commas separate fields: an empty one is a missing number, not nothing.
            fields = [field.strip() for field in line.removesuffix(",").split(",")]
            if "" in fields:
                raise ValueError(f"line {number}: an empty field (a missing number)")
        else:
            fields = line.split()
        if not rows and _is_header(fields):
            continue
        try:
            rows.append([_number(field) for field in fields])
        except ValueError:
            bad = next(f for f in fields if not _is_number(f))
            raise ValueError(f"line {number}: {bad!r} is not a number") from None
        if len(rows[-1]) != len(rows[0]):
            raise ValueError(
                f"line {number} has {_count(len(rows[-1]))}, but the first row has "
                f"{_count(len(rows[0]))}"
            )
    if not rows:
        raise ValueError("it holds no numbers")
    complex_cells = any(type(v) is complex for row in rows for v in row)
    array = np.array(rows, dtype=np.complex128 if complex_cells else np.float64)
    if array.shape[0] == 1 or array.shape[1] == 1:
        return array.reshape(-1)
    return array


def _is_header(fields: list[str]) -> bool:
    """Whether a first row is a header: names (``x,y`` or ``"time", "speed"``), no numbers."""
    names = [field.strip("\"'") for field in fields]
    return all(n and not _is_float(n) and (n[0].isalpha() or n[0] == "_") for n in names)


def _count(n: int) -> str:
    return f"{n} number" if n == 1 else f"{n} numbers"


def _number(text: str) -> float | complex:
    """A cell's number: a float, or a complex one written as Python writes it (``1+2j``)."""
    try:
        return float(text)
    except ValueError:
        if text.strip().lower().endswith("j"):
            return complex(text.strip())
        raise


def _is_number(text: str) -> bool:
    try:
        _number(text)
    except ValueError:
        return False
    return True


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


_JSON_SPECIALS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


def _parse_json(text: str) -> np.ndarray:
    import json

    try:
        data = _json_numbers(json.loads(text))
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise ValueError("its lists are nested too deeply") from None
    try:
        return np.array(data, dtype=np.float64)
    except ValueError as error:
        if "maximum number of dimension" in str(error):
            raise ValueError("it has more dimensions than NumPy's 64") from None
        raise ValueError("its nested lists are ragged (rows of different lengths)") from None


def _json_numbers(node):
    if isinstance(node, list):
        return [_json_numbers(item) for item in node]
    if isinstance(node, bool) or not isinstance(node, (int, float, str)):
        raise ValueError(
            "expected a number or nested lists of numbers, found "
            f"{type(node).__name__ if node is not None else 'null'}"
        )
    if isinstance(node, str):
        if node not in _JSON_SPECIALS:
            raise ValueError(f"expected a number, found the string {node!r}")
        return _JSON_SPECIALS[node]
    return node


def _seed_for(seed: int, name: str) -> int:
    """Each bound name draws its own random stream, fixed by ``--seed`` and the name,
    so adding one binding never changes another's numbers."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**32
