"""``gradcli plot --over x=... --over y=...``: f and its gradient on a grid of two inputs.

Each grid point is one evaluation and one reverse pass, as for a plot of one
input; the grid is ``y`` by ``x`` (rows up the second input), as an image is
laid out. Without N an axis has ``DEFAULT_POINTS`` points: a picture needs
fewer along each axis than a curve does, and the cost is their product.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core import bindings as _bindings
from ..core.result import source_title
from ..errors import GradcliError
from .plotting import MAX_POINTS, evaluate_along
from .report import Report, frozen

DEFAULT_POINTS = 41


@dataclass(frozen=True, eq=False)
class FieldReport(Report):
    command = "field"
    source: str
    title: str
    #: The inputs across and up.
    names: tuple[str, str]
    x: np.ndarray
    y: np.ndarray
    #: f at (y[j], x[i]) in row j, column i.
    f: np.ndarray
    #: df/dx and df/dy on the same grid.
    gradient: tuple[np.ndarray, np.ndarray]
    #: How many grid points have f or its gradient not finite.
    nonfinite: int
    #: (f, x, y) of the lowest and the highest finite f, or None when none is finite.
    lowest: tuple[float, float, float] | None
    highest: tuple[float, float, float] | None
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        x, y = self.names
        return {
            "over": list(self.names),
            "x": self.x,
            "y": self.y,
            "f": self.f,
            "grad": {x: self.gradient[0], y: self.gradient[1]},
            "nonfinite": self.nonfinite,
        }

    @property
    def finite(self) -> bool:
        return self.nonfinite == 0


def field(
    source: str,
    bindings: Mapping | None = None,
    *,
    over: tuple,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> FieldReport:
    """f and its gradient at every pair of points of ``over``'s two ranges."""
    across, up = (_bindings.parse_over(o) if isinstance(o, str) else o for o in over)
    if across.name == up.name:
        raise GradcliError(f"--over {up.name} is given twice; a field needs two inputs")
    xs, ys = across.values(DEFAULT_POINTS), up.values(DEFAULT_POINTS)
    if xs.size * ys.size > MAX_POINTS:
        raise GradcliError(f"--over: at most {MAX_POINTS} grid points, not {xs.size * ys.size}")
    bindings = dict(bindings or {})
    for name in (across.name, up.name):
        if name in bindings:
            raise GradcliError(f"--over {name}: {name} is bound too; give one or the other")
    grid_x, grid_y = np.meshgrid(xs, ys)
    points = np.stack([grid_x.ravel(), grid_y.ravel()], axis=1)
    values, slopes = evaluate_along(
        source, bindings, across.name, points, dtype, seed, filename, others=(up.name,)
    )
    shape = (ys.size, xs.size)
    f = values.reshape(shape)
    gx, gy = slopes[:, 0].reshape(shape), slopes[:, 1].reshape(shape)
    finite = np.isfinite(f) & np.isfinite(gx) & np.isfinite(gy)
    lowest = highest = None
    if np.isfinite(f).any():
        shown = np.where(np.isfinite(f), f, np.nan)
        low, high = np.nanargmin(shown), np.nanargmax(shown)
        lowest = (float(f.flat[low]), float(grid_x.flat[low]), float(grid_y.flat[low]))
        highest = (float(f.flat[high]), float(grid_x.flat[high]), float(grid_y.flat[high]))
    return FieldReport(
        source,
        source_title(source, filename),
        (across.name, up.name),
        frozen(xs),
        frozen(ys),
        frozen(f),
        (frozen(gx), frozen(gy)),
        int((~finite).sum()),
        lowest,
        highest,
    )
