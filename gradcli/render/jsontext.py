"""JSON text from result trees, strings and numbers, strict and without the json module
(it costs start-up time): what the JSON renderers of results and graphs share."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .numbers import format_number, nested_text


def json_object(**fields) -> str:
    """Text fields (None as null) as a JSON object."""
    items = (f"{string(k)}: {'null' if v is None else string(v)}" for k, v in fields.items())
    return "{" + ", ".join(items) + "}"


def encode(node, precision: int | None = None) -> str:
    """A result tree as strict JSON text: dicts of arrays and numbers, and in reports
    also text, booleans, None and lists (of text, of dicts)."""
    if isinstance(node, Mapping):
        items = (f"{string(key)}: {encode(value, precision)}" for key, value in node.items())
        return "{" + ", ".join(items) + "}"
    if node is None:
        return "null"
    if isinstance(node, str):
        return string(node)
    if isinstance(node, bool):
        return "true" if node else "false"
    if isinstance(node, (list, tuple)):
        return "[" + ", ".join(encode(item, precision) for item in node) + "]"
    return _array(np.asarray(node), precision)


def _array(array: np.ndarray, precision: int | None) -> str:
    if array.ndim == 0:
        return _number(array[()], precision)
    if precision is None:
        text = nested_text(array, _NONFINITE)
        if text is not None:
            return text
    return "[" + ", ".join(_array(part, precision) for part in array) + "]"


_NONFINITE = {"nan": '"nan"', "inf": '"inf"', "-inf": '"-inf"'}


def _number(x, precision: int | None) -> str:
    if isinstance(x, np.bool_):
        return "true" if x else "false"
    if isinstance(x, np.complexfloating):  # a complex number: its two parts by name
        return f'{{"real": {_number(x.real, precision)}, "imag": {_number(x.imag, precision)}}}'

    text = format_number(x, precision)
    return f'"{text}"' if text in ("nan", "inf", "-inf") else text


def string(text: str) -> str:
    # Keys are words and program names, and the listing of functions holds the op
    # table's one-line docs: JSON needs quotes and backslashes escaped, control
    # characters and letters beyond ASCII written as \\uXXXX (as json.dumps does)
    # so that any terminal or pipe takes them. The json module costs start-up time.
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if not text.isascii() or not text.isprintable():
        text = "".join(c if c.isascii() and c.isprintable() else _escaped(c) for c in text)
    return f'"{text}"'


def _escaped(c: str) -> str:
    """One character as JSON's \\uXXXX, a surrogate pair beyond the BMP."""
    units = c.encode("utf-16-be")
    return "".join(
        f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in (0, 2)[: len(units) // 2]
    )


def diagnostics_json(result) -> list[str]:
    """``"warnings": [...]`` and ``"notes": [...]``, each when there are any."""
    parts = []
    for key in ("warnings", "notes"):
        found = getattr(result, key)
        if found:
            parts.append(f'"{key}": [' + ", ".join(diagnostic_json(d) for d in found) + "]")
    return parts


def diagnostic_json(d) -> str:
    """``{"kind", "message", "line", "column", "end"}`` of a warning or a note."""
    return (
        f'{{"kind": {string(d.kind)}, "message": {string(d.message)}, '
        f'"line": {json_int(d.line)}, "column": {json_int(d.column)}, '
        f'"end": {json_int(d.end)}}}'
    )


def json_int(n) -> str:
    return "null" if n is None else str(n)


def error_json(error, code: int, see: str | None = None) -> str:
    """An error as one JSON object: ``{"error": message, "exit": N}``, then where it
    points in the source (``"file"`` when read from one, ``"line"``, ``"column"``,
    ``"end_line"``, ``"end_column"``, counted from 1) and ``"help"``, the command whose
    --help says more."""
    fields = [f'"error": {string(getattr(error, "message", str(error)))}', f'"exit": {code}']
    span = getattr(error, "span", None)
    if span is not None:
        if error.filename is not None:
            fields.append(f'"file": {string(error.filename)}')
        fields += [f'"line": {span.line}', f'"column": {span.column}']
        fields += [f'"end_line": {json_int(span.end_line)}']
        fields += [f'"end_column": {json_int(span.end_column)}']
    if see is not None:
        fields.append(f'"help": {string(see + " --help")}')
    return "{" + ", ".join(fields) + "}"
