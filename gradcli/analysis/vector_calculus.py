"""``gradcli div``, ``curl`` and ``laplacian``: the vector calculus of a program at a
point, from the engine's exact Jacobian and Hessian.

The variables are the inputs in ``wrt`` order, by default every input the evaluation
differentiates (as every command's default) in alphabetical order (x, y, z), each entry
of a vector input a coordinate. The
divergence of a field F with one entry per coordinate is the trace of its
Jacobian; the curl of a field of three entries in three coordinates is
``(∂F₃/∂y - ∂F₂/∂z, ∂F₁/∂z - ∂F₃/∂x, ∂F₂/∂x - ∂F₁/∂y)``; the Laplacian of a
scalar is the trace of its Hessian.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import computing
from ..core.result import source_title
from ..errors import GradcliError
from .commands import Command, Option
from .flat import Flat
from .report import Report, frozen


@dataclass(frozen=True, eq=False)
class VectorCalculusReport(Report):
    #: "div", "curl" or "laplacian".
    operation: str
    source: str
    title: str
    #: The coordinates in order, and the point.
    coordinates: tuple[str, ...]
    point: Mapping[str, np.ndarray]
    value: np.ndarray
    warnings: tuple[str, ...] = ()
    layout = "vector"  # a point and a value

    @property
    def command(self) -> str:
        return self.operation

    def as_tree(self) -> dict:
        return {self.operation: self.value, "coordinates": self.coordinates}


def _report(command, source, filename, flat, result, value) -> VectorCalculusReport:
    return VectorCalculusReport(
        command,
        source,
        source_title(source, filename),
        flat.labels,
        flat.frozen_arrays(flat.start),
        frozen(value),
        (*result.notes, *result.warnings),
    )


def _by_coordinates(derivative, source, bindings, wrt, dtype, seed, filename):
    """``derivative`` (``api.jacobian`` or ``api.hessian``) of the program, and the
    coordinates as a Flat: ``wrt`` in its order, else every input the evaluation
    differentiates (as every command's), in alphabetical order."""
    result = derivative(source, bindings, wrt=wrt, dtype=dtype, seed=seed, filename=filename)
    names = result.inputs if wrt else sorted(result.inputs)
    return result, Flat(names, result.shapes, result.point)


def _field(source, bindings, wrt, dtype, seed, filename):
    result, flat = _by_coordinates(computing.jacobian, source, bindings, wrt, dtype, seed, filename)
    entries = int(np.asarray(result.value).size)
    matrix = flat.matrix(result.jacobian).reshape(entries, flat.size)
    return result, flat, matrix, entries


def div(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> VectorCalculusReport:
    """The divergence ∇·F of a field with one entry per coordinate."""
    result, flat, matrix, entries = _field(source, bindings, wrt, dtype, seed, filename)
    if entries != flat.size:
        raise GradcliError(
            f"div needs a field with one entry per coordinate: the value has {entries} "
            f"entr{'y' if entries == 1 else 'ies'}, the coordinates are {', '.join(flat.labels)}"
        )
    return _report("div", source, filename, flat, result, np.trace(matrix))


def curl(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> VectorCalculusReport:
    """The curl ∇×F of a field of three entries in three coordinates."""
    result, flat, j, entries = _field(source, bindings, wrt, dtype, seed, filename)
    if entries != 3 or flat.size != 3:
        raise GradcliError(
            f"curl needs a field of three entries in three coordinates: the value has "
            f"{entries}, the coordinates are {', '.join(flat.labels) or 'none'}"
        )
    value = np.array([j[2, 1] - j[1, 2], j[0, 2] - j[2, 0], j[1, 0] - j[0, 1]])
    return _report("curl", source, filename, flat, result, value)


def laplacian(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> VectorCalculusReport:
    """The Laplacian ∇²f of a scalar: the sum of its second derivatives by each coordinate."""
    result, flat = _by_coordinates(computing.hessian, source, bindings, wrt, dtype, seed, filename)
    return _report(
        "laplacian", source, filename, flat, result, np.trace(flat.matrix(result.hessian))
    )


_COORDINATES = Option(
    "wrt", "The coordinates, in order [default: every input, alphabetically].", kind="names",
    metavar="X,Y,Z",
)  # fmt: skip

COMMANDS = (
    Command(
        "div",
        div,
        """The divergence of the field SOURCE (one entry per coordinate) at the
        bound point: the trace of its exact Jacobian.

        \b
        Example:
          $ gradcli div "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
          div 6
          coordinates x y z
        """,
        (_COORDINATES,),
    ),
    Command(
        "curl",
        curl,
        """The rotation of the field SOURCE (three entries, three coordinates) at
        the bound point: its curl, from the exact Jacobian.

        \b
        Example:
          $ gradcli curl "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
          curl -2 -3 -1
          coordinates x y z
        """,
        (_COORDINATES,),
    ),
    Command(
        "laplacian",
        laplacian,
        """The Laplacian of a scalar SOURCE at the bound point: the trace of its
        exact Hessian.

        \b
        Example:
          $ gradcli laplacian "x**2*y + z**3" --x 1 --y 2 --z 3 --format plain
          laplacian 22
          coordinates x y z
        """,
        (_COORDINATES,),
    ),
)
