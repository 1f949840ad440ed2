"""The chosen inputs of a program as one flat vector, for the SciPy solvers.

``minimize``, ``solve``, ``critical`` and ``fit`` hand SciPy a function of one
vector: every entry of the chosen inputs, in ``wrt`` order, each input
flattened in row-major order (the rows of the assembled Hessian). ``Flat``
turns such a vector back into bindings, and the engine's per-input gradients
and Hessian blocks into a vector and a matrix.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from ..core.assembled import entry_labels
from ..core.bindings import number_from_text, split_assignment
from ..core.complex_inputs import refuse_complex
from ..errors import GradcliError
from .commands import Option
from .report import frozen


class Flat:
    """The entries of ``names`` (of ``shapes``) as one vector; ``fixed`` binds the rest,
    the consts bound (``constants``) included: every evaluation sees them."""

    def __init__(self, names, shapes: Mapping, point: Mapping, constants: Mapping = {}):
        self.names = tuple(names)
        self.shapes = {n: tuple(shapes[n]) for n in self.names}
        self.sizes = [math.prod(self.shapes[n]) for n in self.names]
        self.stops = np.cumsum([0, *self.sizes])
        self.fixed = {n: np.asarray(v) for n, v in point.items() if n not in self.names}
        self.fixed.update((n, np.asarray(v)) for n, v in constants.items())
        self.start = self.vector({n: point[n] for n in self.names})
        self.labels = tuple(label for n in self.names for label in entry_labels(n, shapes[n]))

    def at(self, start: np.ndarray) -> Flat:
        """The same inputs starting at ``start`` (a vector) instead."""
        moved = object.__new__(Flat)
        moved.__dict__.update(self.__dict__)
        moved.start = start
        return moved

    @classmethod
    def of(cls, result) -> Flat:
        """The inputs a result was differentiated by, at its point (real ones: the
        analyses that vary inputs take no complex ones yet)."""
        refuse_complex(result.point, None)
        return cls(result.inputs, result.shapes, result.point, result.constants)

    @property
    def size(self) -> int:
        return int(self.stops[-1])

    def vector(self, arrays: Mapping) -> np.ndarray:
        parts = [np.asarray(arrays[n], dtype=np.float64).reshape(-1) for n in self.names]
        return np.concatenate(parts) if parts else np.zeros(0)

    def arrays(self, x) -> dict[str, np.ndarray]:
        x = np.asarray(x, dtype=np.float64)
        return {
            n: x[a:b].reshape(self.shapes[n])
            for n, a, b in zip(self.names, self.stops[:-1], self.stops[1:])
        }

    def bindings(self, x) -> dict[str, np.ndarray]:
        return {**self.fixed, **self.arrays(x)}

    def frozen_arrays(self, x) -> Mapping[str, np.ndarray]:
        return MappingProxyType({n: frozen(a) for n, a in self.arrays(x).items()})

    def matrix(self, blocks: Mapping) -> np.ndarray:
        """``H[x][y]`` blocks (or ``J[x]`` rows of outputs) as one matrix."""
        rows = []
        for x, sx in zip(self.names, self.sizes):
            block = blocks[x]
            if isinstance(block, Mapping):
                rows.append(
                    np.concatenate(
                        [np.reshape(block[y], (sx, sy)) for y, sy in zip(self.names, self.sizes)],
                        1,
                    )
                )
            else:
                rows.append(np.reshape(block, (-1, sx)))
        if not rows:
            return np.zeros((0, 0))
        if isinstance(blocks[self.names[0]], Mapping):
            return np.concatenate(rows, 0)
        return np.concatenate(rows, 1)

    def bounds(self, given: Mapping[str, tuple[float, float]]):
        """Per-entry (low, high) arrays from per-input bounds, or None without any."""
        if not given:
            return None
        for name in given:
            if name not in self.names:
                raise GradcliError(
                    f"--bounds {name}: {name} is not one of the inputs varied "
                    f"({', '.join(self.names) or 'none'})"
                )
        low = np.full(self.size, -np.inf)
        high = np.full(self.size, np.inf)
        for name, a, b in zip(self.names, self.stops[:-1], self.stops[1:]):
            if name in given:
                low[a:b], high[a:b] = given[name]
        if np.any(low >= high):
            raise GradcliError("--bounds: each lower bound must be below its upper bound")
        return low, high


def parse_bounds(texts) -> dict[str, tuple[float, float]]:
    """``["x=0:10", "y=:5"]`` -> ``{"x": (0, 10), "y": (-inf, 5)}``: an empty side is no bound."""
    bounds: dict[str, tuple[float, float]] = {}
    for text in texts or ():
        name, value = split_assignment(text, "--bounds")
        if name in bounds:
            raise GradcliError(f"--bounds {name} is given twice")
        parts = value.split(":")
        if len(parts) != 2:
            raise GradcliError(f"--bounds expects NAME=LOW:HIGH (x=0:10, x=0:), got {text!r}")
        low = number_from_text(parts[0], f"--bounds {name}: LOW") if parts[0].strip() else -np.inf
        high = number_from_text(parts[1], f"--bounds {name}: HIGH") if parts[1].strip() else np.inf
        if not low < high:
            raise GradcliError(f"--bounds {name}: LOW must be below HIGH, got {text!r}")
        bounds[name] = (float(low), float(high))
    return bounds


def singular(matrix: np.ndarray) -> bool:
    """Whether a Jacobian or Hessian is singular to working precision (its smallest
    singular value within 1e-13 of its largest), or not finite: the solvers' Newton
    steps, and the implicit function theorem, have no solution there."""
    if not np.all(np.isfinite(matrix)):
        return True
    values = np.linalg.svd(matrix, compute_uv=False)
    return bool(values[-1] <= 1e-13 * max(1.0, float(values[0])))


class Diverged(Exception):
    """The iterates left every finite number: raised inside a SciPy callback."""

    def __init__(self, x, value):
        super().__init__("diverged")
        self.x, self.value = x, value


# The options the solvers share (``analysis.commands``).
WRT = Option("wrt", "The inputs varied [default: all].", kind="names")
BOUNDS = Option(
    "bounds",
    "Keep every entry of X within [LOW, HIGH] (repeatable; x=0: has no upper bound).",
    kind="texts",
    metavar="X=LOW:HIGH",
    parse=parse_bounds,
)
MAX_ITER = Option(
    "max-iter", "The most iterations.", kind="int", default=1000, metavar="N", minimum=1
)
