"""``--format plain``: one line per array, its key path then its numbers.

No colour and no box drawing, so ``read`` and ``awk`` take it apart::

    value 19
    grad.x 8

Arrays are written whole, flattened in row-major order; ``--format json``
keeps their shapes.
"""

from __future__ import annotations

from . import leaves
from .numbers import flat_numbers


def render(result, stream, precision: int | None = None) -> None:
    for path, array in leaves(result.as_tree()):
        stream.write(" ".join([".".join(path), *flat_numbers(array, precision)]) + "\n")
