"""``gradcli plot``: the function and its derivative over a range of one input.

Each point is one evaluation and one reverse pass, the other inputs bound as
usual. A *kink* is where the derivative jumps: a change of f' between two
neighbouring points more than ``KINK_RATIO`` times the changes beside it (and
more than a millionth of f''s range), which a smooth f' does not do at this
spacing. It is placed on the grid point between two such jumps, else midway.
Points where f or f' is nan or infinite are listed as non-finite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

import gradcli

from .. import api
from .. import bindings as _bindings
from ..errors import GradcliError
from .report import Report, frozen

DEFAULT_POINTS = _bindings.DEFAULT_OVER_COUNT
MAX_POINTS = 100_000
KINK_RATIO = 5.0


@dataclass(frozen=True, eq=False)
class PlotReport(Report):
    command = "plot"
    source: str
    title: str
    #: The input along the x axis.
    over: str
    x: np.ndarray
    f: np.ndarray
    df: np.ndarray
    #: Where f' jumps.
    kinks: np.ndarray
    #: Where f or f' is nan or infinite.
    nonfinite: np.ndarray
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        return {
            "over": self.over,
            "x": self.x,
            "f": self.f,
            "df": self.df,
            "kinks": self.kinks,
            "nonfinite": self.nonfinite,
        }

    @property
    def finite(self) -> bool:
        return self.nonfinite.size == 0


def plot(
    source: str,
    bindings: Mapping | None = None,
    *,
    over: str | _bindings.Over,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> PlotReport:
    """f and df/d(over) at the points of ``over`` (``"x=-3:3"`` or ``"x=-3:3:N"``)."""
    if isinstance(over, str):
        over = _bindings.parse_over(over)
    xs = over.values(DEFAULT_POINTS)
    if xs.size > MAX_POINTS:
        raise GradcliError(f"--over {over.name}: at most {MAX_POINTS} points, not {xs.size}")
    bindings = dict(bindings or {})
    if over.name in bindings:
        raise GradcliError(f"--over {over.name}: {over.name} is bound too; give one or the other")
    # The range's first point stands for the input while the program is bound.
    bindings[over.name] = float(xs[0])
    with api._session(source, bindings, (over.name,), dtype, seed, filename) as s:
        if s.shape(over.name) != ():
            raise GradcliError(f"--over {over.name}: {over.name} must be a scalar input")
        f, _ = s.function((over.name,))
        values = np.empty(xs.size)
        slopes = np.empty(xs.size)
        for i, x in enumerate(xs):
            leaf = gradcli.tensor(np.asarray(x, dtype=s.dtype), requires_grad=True)
            out = f(leaf)
            api._require_scalar(out, "plot")
            values[i] = float(out._data.reshape(()))
            if out.requires_grad:
                (slope,) = gradcli.autograd.grad(
                    out, [leaf], allow_unused=True, materialize_grads=True
                )
                slopes[i] = float(slope._data)
            else:
                slopes[i] = 0.0
    nonfinite = xs[~(np.isfinite(values) & np.isfinite(slopes))]
    return PlotReport(
        source,
        api._title(source, filename),
        over.name,
        frozen(xs),
        frozen(values),
        frozen(slopes),
        frozen(find_kinks(xs, slopes)),
        frozen(nonfinite),
    )


def find_kinks(xs: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """Where ``slopes`` jumps: see the module's docstring."""
    finite = np.isfinite(slopes)
    if xs.size < 3 or not finite.any():
        return np.zeros(0)
    jumps = np.abs(np.diff(slopes))
    valid = finite[1:] & finite[:-1]
    jumps[~valid] = 0.0
    size = np.ptp(slopes[finite])
    steep = (jumps > KINK_RATIO * _others(jumps)) & (jumps > 1e-6 * max(size, 1.0))
    # Beside a non-finite point (a pole) f' is steep anyway; those are listed apart.
    invalid = np.r_[False, False, ~valid, False, False]
    near = np.any([invalid[k : k + jumps.size] for k in range(5)], axis=0)
    steep &= ~near
    found = []
    i = 0
    while i < jumps.size:
        if not steep[i]:
            i += 1
            continue
        if i + 1 < jumps.size and steep[i + 1]:
            found.append(xs[i + 1])  # two jumps around one point: the kink is on it
            i += 2
        else:
            found.append((xs[i] + xs[i + 1]) / 2)
            i += 1
    return np.array(found)


def _others(jumps: np.ndarray) -> np.ndarray:
    """For each jump, the larger of the jumps beside a pair around it: a kink on a grid
    point makes two equal jumps, and each must still stand out from the ones around."""
    padded = np.r_[0.0, 0.0, jumps, 0.0, 0.0]
    before2, before, after, after2 = padded[:-4], padded[1:-3], padded[3:-1], padded[4:]
    alone = np.maximum(before, after)
    paired_with_before = np.maximum(before2, after)
    paired_with_after = np.maximum(before, after2)
    return np.minimum(alone, np.minimum(paired_with_before, paired_with_after))
