"""``--format plain``: one line per array, its key path then its numbers.

No colour and no box drawing, so ``read`` and ``awk`` take it apart::

    value 19
    grad.x 8

Arrays are written whole, flattened in row-major order; ``--format json``
keeps their shapes.

The listing of functions is one line per function, its fields separated by two
spaces (``awk -F '  '``): the name with its parameters, the description, and
the convention at kinks when there is one::

    relu(input)  max(x, 0)  at kinks: relu'(0) = 0; at nan the gradient passes, as PyTorch
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.result import leaves
from .numbers import flat_numbers, flat_text


def render(result, stream, precision: int | None = None) -> None:
    if result.graph is not None:  # --steps: the reverse pass, then the result
        from .graph import render_steps_plain

        render_steps_plain(result.graph, stream, precision)
    _write_lines(result_lines(result, precision), stream)


def result_lines(result, precision: int | None = None) -> dict[str, str]:
    """A result's lines by their keys (``grad.x``, ``classification``): what follows
    the key on each, which ``--get KEY`` prints."""
    lines = {
        ".".join(path): flat_text(array, precision) for path, array in leaves(result.as_tree())
    }
    if getattr(result, "assembled", None) is not None:
        # Numbers only: the rows and columns are the inputs' entries in order (JSON
        # names them), and `read name numbers` takes every line apart.
        tree = result.assembled.as_tree()
        tree["assembled"] = {"matrix": tree["assembled"]["matrix"]}
        lines.update(report_lines(tree, precision))
    return lines


def render_report(report, stream, precision: int | None = None) -> None:
    """An analysis report (``gradcli.analysis``): one line per leaf of its ``as_tree()``;
    a minimize ``--trace`` first, as CSV (a header, a row per iteration, a blank line)."""
    if getattr(report, "trace", None) is not None:
        header, rows = report.trace_rows()
        stream.write(",".join(header) + "\n")
        for row in rows:
            stream.write(",".join([str(row[0]), *(flat_text(v, precision) for v in row[1:])]))
            stream.write("\n")
        stream.write("\n")
    render_report_tree(report.as_tree(), stream, precision)


def render_report_tree(tree: Mapping, stream, precision: int | None = None) -> None:
    """``path value...`` for every leaf: numbers flattened, text as it is, lists (of
    names, of formulas) flattened into fields, a list of dicts numbered
    (``terms.0.coefficient``), None as ``none``, booleans as ``true``/``false``."""
    _write_lines(report_lines(tree, precision), stream)


def report_lines(tree: Mapping, precision: int | None = None) -> dict[str, str]:
    """``render_report_tree``'s lines by their keys: what follows the key on each."""
    return {
        ".".join(map(str, path)): " ".join(_words(node, precision))
        for path, node in leaves(_numbered(tree))
    }


def _write_lines(lines: Mapping[str, str], stream) -> None:
    for key, text in lines.items():
        stream.write(f"{key} {text}\n" if text else f"{key}\n")


def _numbered(node):
    if isinstance(node, Mapping):
        return {key: _numbered(value) for key, value in node.items()}
    if isinstance(node, (list, tuple)) and any(isinstance(item, Mapping) for item in node):
        return {str(i): _numbered(item) for i, item in enumerate(node)}
    return node


def _words(node, precision) -> list[str]:
    if node is None:
        return ["none"]
    if isinstance(node, bool):
        return ["true" if node else "false"]
    if isinstance(node, str):
        return [node]
    if isinstance(node, (list, tuple)):
        # Text, or nested tuples of it (formulas), flattened in row-major order.
        return [word for item in node for word in _words(item, precision)]
    return flat_numbers(node, precision)


def render_line(lines: Mapping[str, str], name: str, stream) -> None:
    """What follows the key ``name`` on its plain line, alone (``--get NAME``)."""
    stream.write(lines[name] + "\n")


def render_functions(functions, stream) -> None:
    for f in functions:
        fields = [f.name + f.signature, f.doc]
        if f.kink is not None:
            fields.append(f"at kinks: {f.kink}")
        fields += [f"differs from PyTorch {d}" for d in f.differs]
        stream.write("  ".join(fields) + "\n")
