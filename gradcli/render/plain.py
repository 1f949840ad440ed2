"""``--format plain``: one line per array, its key path then its numbers.

No colour and no box drawing, so ``read`` and ``awk`` take it apart::

    value 19
    grad.x 8

Arrays are written whole, flattened in row-major order; ``--format json``
keeps their shapes.

The listing of functions is one line per function, its fields separated by two
spaces (``awk -F '  '``): the name with its parameters, the description, and
the convention at kinks when there is one::

    relu(x)  max(x, 0)  at kinks: relu'(0) = 0; at nan the gradient passes, as PyTorch
"""

from __future__ import annotations

from . import leaves
from .numbers import flat_numbers


def render(result, stream, precision: int | None = None) -> None:
    if result.graph is not None:  # --steps: the reverse pass, then the result
        from .graph import render_steps_plain

        render_steps_plain(result.graph, stream, precision)
    for path, array in leaves(result.as_tree()):
        stream.write(" ".join([".".join(path), *flat_numbers(array, precision)]) + "\n")


def render_numbers(array, stream, precision: int | None = None) -> None:
    """One array's numbers alone, flattened, on one line (``--get NAME``)."""
    stream.write(" ".join(flat_numbers(array, precision)) + "\n")


def render_functions(functions, stream) -> None:
    for f in functions:
        fields = [f.name + f.signature, f.doc]
        if f.kink is not None:
            fields.append(f"at kinks: {f.kink}")
        stream.write("  ".join(fields) + "\n")
