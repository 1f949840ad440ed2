"""``gradcli plot``: the function and its derivative over a range of one input.

Each point is one evaluation and one reverse pass, the other inputs bound as
usual. A *kink* is where the derivative jumps: a change of f' between two
neighbouring points more than ``KINK_RATIO`` times the changes beside it (and
more than a millionth of f''s range), which a smooth f' does not do at this
spacing. It is placed on the grid point between two such jumps, else midway.
Past the grid's ends there are no changes to compare with: a jump that stands
out only from those is a kink when f's values say so too (the secant differs
from the mean of the slopes at the ends, as it does not for a smooth f), or, at
an end, when it stands out ``KINK_RATIO``² times from its one side: ``x**2`` on
-1, 0, 1 has no kink, ``abs(x)`` has one.
Points where f or f' is nan or infinite are listed as non-finite.

A *pole* is where f jumps through infinity between two neighbouring points:
its sign changes, the slopes at both ends agree with each other and not with
the jump (a continuous f could not fall where it rises on both sides), and
halving the interval ``HALVINGS`` times towards the change of sign (f evaluated
at each midpoint), ``|f|`` at its ends keeps growing: at a root it shrinks to 0,
at a jump (``sign(x)``) it settles, whatever the grid. The curve
is broken there, as at non-finite points, and the range drawn leaves out the
values near the poles (``limits``), which would flatten the rest.

Several functions share one axis (``plots``); two inputs make a field
(``field``: f and its gradient over a grid).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

import gradcli

from ..core import bindings as _bindings
from ..core.evaluation import evaluation, require_scalar
from ..core.result import source_title
from ..errors import GradcliError
from ..render.image import require_matplotlib, write_image
from .commands import Command, Option, Picture
from .report import Report, frozen

DEFAULT_POINTS = _bindings.DEFAULT_OVER_COUNT
MAX_POINTS = 100_000
KINK_RATIO = 5.0
#: Halvings of an interval that may hold a pole: 2**-30 of it is a billionth, where a
#: pole's |f| has grown some 10**9 times and a root's shrunk as much.
HALVINGS = 30
GROWTH = 10.0


@dataclass(frozen=True, eq=False)
class PlotReport(Report):
    command = "plot"
    layout = "curve"
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
    #: Where f jumps through infinity, midway between two points.
    poles: np.ndarray = dataclasses.field(default_factory=lambda: frozen(np.zeros(0)))
    #: The range of f and of f' to draw, or None for all of it.
    limits: tuple | None = None
    df_limits: tuple | None = None
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        return {
            "over": self.over,
            "x": self.x,
            "f": self.f,
            "df": self.df,
            "kinks": self.kinks,
            "nonfinite": self.nonfinite,
            "poles": self.poles,
        }

    @property
    def finite(self) -> bool:
        return self.nonfinite.size == 0


def plot(
    source,
    bindings: Mapping | None = None,
    *,
    over,
    dtype: str = "float64",
    seed: int = 0,
    filename="<expr>",
) -> Report:
    """f and df/d(over) at the points of ``over`` (``"x=-3:3"`` or ``"x=-3:3:N"``): a
    ``PlotReport``. Several sources (a sequence of texts, a ``filename`` each) share the
    axes: a ``PlotsReport`` (``plots``); two ``over`` (a sequence) draw one source over
    their grid, with its gradient: a ``FieldReport`` (``field``)."""
    sources = [source] if isinstance(source, str) else list(source)
    filenames = [filename] if isinstance(filename, str) else list(filename)
    ranges = [over] if isinstance(over, (str, _bindings.Over)) else list(over)
    if len(ranges) > 2:
        raise GradcliError("--over is given at most twice: one input, or two for a field")
    if len(ranges) == 2 and len(sources) > 1:
        raise GradcliError("a field (two --over) is drawn for one SOURCE at a time")
    ranges = [_bindings.parse_over(o) if isinstance(o, str) else o for o in ranges]
    common = {"dtype": dtype, "seed": seed}
    if len(ranges) == 2:
        return field(sources[0], bindings, over=tuple(ranges), filename=filenames[0], **common)
    if len(sources) == 1:
        return curve(sources[0], bindings, over=ranges[0], filename=filenames[0], **common)
    return plots(sources, bindings, over=ranges[0], filenames=filenames, **common)


def curve(
    source: str,
    bindings: Mapping | None = None,
    *,
    over: str | _bindings.Over,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> PlotReport:
    """One function: f and df/d(over) at the points of ``over``."""
    if isinstance(over, str):
        over = _bindings.parse_over(over)
    xs = over.values(DEFAULT_POINTS)
    if xs.size > MAX_POINTS:
        raise GradcliError(f"--over {over.name}: at most {MAX_POINTS} points, not {xs.size}")
    bindings = dict(bindings or {})
    if over.name in bindings:
        raise GradcliError(f"--over {over.name}: {over.name} is bound too; give one or the other")
    values, slopes = evaluate_along(source, bindings, over.name, xs, dtype, seed, filename)

    def at(points):
        return evaluate_along(source, bindings, over.name, points, dtype, seed, filename)[0]

    return _report(source, source_title(source, filename), over.name, xs, values, slopes, at)


def plots(
    sources,
    bindings: Mapping | None = None,
    *,
    over: str | _bindings.Over,
    dtype: str = "float64",
    seed: int = 0,
    filenames=None,
) -> PlotsReport:
    """Several functions of one input over the same points: one ``PlotReport`` each."""
    if isinstance(over, str):
        over = _bindings.parse_over(over)
    filenames = filenames or ["<expr>"] * len(sources)
    reports = tuple(
        curve(text, bindings, over=over, dtype=dtype, seed=seed, filename=name)
        for text, name in zip(sources, filenames)
    )
    titles = [r.title for r in reports]
    title = ", ".join(titles[:-1]) + " and " + titles[-1] if len(titles) > 1 else titles[0]
    return PlotsReport(title, over.name, reports[0].x, reports)


@dataclass(frozen=True, eq=False)
class PlotsReport(Report):
    """``plot "sin(x)" "cos(x)"``: the functions on one axis."""

    command = "plots"
    title: str
    over: str
    x: np.ndarray
    plots: tuple[PlotReport, ...]
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        functions = []
        for report in self.plots:
            tree = report.as_tree()
            del tree["over"], tree["x"]
            functions.append({"source": report.title, **tree})
        return {"over": self.over, "x": self.x, "functions": functions}

    @property
    def finite(self) -> bool:
        return all(report.finite for report in self.plots)


def evaluate_along(source, bindings, name, xs, dtype, seed, filename, others=()):
    """f and df/d(name) at each of ``xs`` (with ``others``: the gradient by every input
    named, at each row of ``xs``)."""
    names = (name, *others)
    points = np.reshape(xs, (-1, len(names)))
    # The range's first point stands for the input while the program is bound.
    for n, x in zip(names, points[0]):
        bindings[n] = float(x)
    with evaluation(source, bindings, names, dtype, seed, filename, command="plot") as s:
        for n in names:
            if s.shape(n) != ():
                raise GradcliError(f"--over {n}: {n} must be a scalar input")
        f, _ = s.function(names)
        values = np.empty(len(points))
        slopes = np.empty((len(points), len(names)))
        for i, point in enumerate(points):
            leaves = [
                gradcli.tensor(np.asarray(x, dtype=s.dtype), requires_grad=True) for x in point
            ]
            out = f(*leaves)
            require_scalar(out, "plot")
            values[i] = float(out._data.reshape(()))
            if out.requires_grad:
                grads = gradcli.autograd.grad(
                    out, leaves, allow_unused=True, materialize_grads=True
                )
                slopes[i] = [float(g._data) for g in grads]
            else:
                slopes[i] = 0.0
    return values, (slopes[:, 0] if not others else slopes)


def _report(source, title, name, xs, values, slopes, at) -> PlotReport:
    nonfinite = xs[~(np.isfinite(values) & np.isfinite(slopes))]
    poles = find_poles(xs, values, slopes, at)
    broken = _beside(xs, poles)
    # Beside a non-finite point (1/x at 0) the values are as large as beside a pole.
    ends = ~(np.isfinite(values) & np.isfinite(slopes))
    broken_or_not_finite = broken | ends | np.r_[ends[1:], False] | np.r_[False, ends[:-1]]
    drawn_apart = poles.size or nonfinite.size
    return PlotReport(
        source,
        title,
        name,
        frozen(xs),
        frozen(values),
        frozen(slopes),
        frozen(find_kinks(xs, slopes, broken, values)),
        frozen(nonfinite),
        frozen(poles),
        _limits(values, broken_or_not_finite) if drawn_apart else None,
        _limits(slopes, broken_or_not_finite) if drawn_apart else None,
    )


def find_poles(xs: np.ndarray, values: np.ndarray, slopes: np.ndarray, at) -> np.ndarray:
    """Where f jumps through infinity (see the module's docstring); ``at(points)`` is f at
    other points, for the halvings."""
    finite = np.isfinite(values) & np.isfinite(slopes)
    a, b = slice(None, -1), slice(1, None)
    jump = np.diff(values)
    # f's sign just inside each interval: at a grid point on a root, its slope's.
    inside_a = np.where(values[a] != 0, np.sign(values[a]), np.sign(slopes[a]))
    inside_b = np.where(values[b] != 0, np.sign(values[b]), -np.sign(slopes[b]))
    found = (
        finite[a]
        & finite[b]
        & (inside_a * inside_b < 0)
        & (np.sign(slopes[a]) == np.sign(slopes[b]))
        & (np.sign(slopes[a]) * np.sign(jump) < 0)
    )
    where = np.empty(0)
    if found.any():
        ends = (xs[a][found], xs[b][found], values[a][found], values[b][found])
        grows, where = _grows_through(*ends, inside_a[found], at)
        found[found], where = grows, where[grows]
    # The halvings' last interval, a 2**-30 part of the grid's: 0, not its rounding error.
    return np.where(np.abs(where) < 1e-9 * np.ptp(xs), 0.0, where)


def _grows_through(lo, hi, f_lo, f_hi, sign_lo, at) -> tuple[np.ndarray, np.ndarray]:
    """For each interval (``lo``, ``hi``) where f changes sign (``sign_lo``: just right of
    ``lo``): whether ``|f|`` at the ends keeps growing as the interval is halved towards the
    change (``GROWTH`` times over the second half of the halvings; a pole of order 1 grows
    2**15 times), or is infinite at a midpoint, and the middle of the last interval. At a
    root it shrinks; at a jump (``x - round(x)``) it settles."""
    hit = np.zeros(lo.size, dtype=bool)
    halfway = None
    for step in range(HALVINGS):
        if step == HALVINGS // 2:
            halfway = np.minimum(np.abs(f_lo), np.abs(f_hi))
        mid = (lo + hi) / 2
        f_mid = np.asarray(at(mid), dtype=float)
        hit |= np.isinf(f_mid)
        left = np.sign(f_mid) == sign_lo  # the change of sign is in (mid, hi)
        lo, f_lo = np.where(left, mid, lo), np.where(left, f_mid, f_lo)
        hi, f_hi = np.where(left, hi, mid), np.where(left, f_hi, f_mid)
    with np.errstate(invalid="ignore"):
        grows = hit | (np.minimum(np.abs(f_lo), np.abs(f_hi)) > GROWTH * halfway)
    return grows, (lo + hi) / 2


def _beside(xs: np.ndarray, poles: np.ndarray) -> np.ndarray:
    """The points next to a pole: the two on either side of each."""
    near = np.zeros(xs.size, dtype=bool)
    for x in poles:
        i = int(np.searchsorted(xs, x)) if xs[-1] > xs[0] else int(np.searchsorted(-xs, -x))
        near[max(i - 1, 0) : i + 1] = True
    return near


def _limits(values: np.ndarray, broken: np.ndarray) -> tuple[float, float] | None:
    """The range to draw: the middle 90% of the values away from the poles, widened by
    half, so the curve's shape shows and the approach to the poles runs off the edge."""
    shown = values[np.isfinite(values) & ~broken]
    if shown.size < 2:
        return None
    low, high = np.percentile(shown, [5, 95])
    if low == high:
        return None
    margin = (high - low) / 2
    return float(max(low - margin, shown.min())), float(min(high + margin, shown.max()))


def find_kinks(xs: np.ndarray, slopes: np.ndarray, broken=None, values=None) -> np.ndarray:
    """Where ``slopes`` jumps: see the module's docstring. ``broken``: the points beside
    a pole, where f' is steep anyway; ``values``: f at ``xs``, which confirm a jump that
    stands out only from the missing changes beyond the grid's ends."""
    finite = np.isfinite(slopes) & (True if broken is None else ~broken)
    if xs.size < 3 or not finite.any():
        return np.zeros(0)
    jumps = np.abs(np.diff(slopes))
    valid = finite[1:] & finite[:-1]
    jumps[~valid] = 0.0
    size = np.ptp(slopes[finite])
    large = jumps > 1e-6 * max(size, 1.0)
    # Beyond the grid's ends there is nothing to compare with: a jump that stands out
    # only from the missing ones there (x**2 on three points makes two equal jumps and
    # nothing else) is a kink if f's values show it, or, at an end, if it stands out
    # KINK_RATIO² times from the two jumps on its one side and what they grow to
    # geometrically (exp(3*x)'s do; x**4's on five points grow seven times).
    steep = large & (jumps > KINK_RATIO * _others(jumps, np.nan))
    unsure = large & (jumps > KINK_RATIO * _others(jumps, 0.0)) & ~steep
    one_side = np.full(jumps.size, np.inf)
    if jumps.size >= 3:
        near, far = jumps[[1, -2]], jumps[[2, -3]]
        with np.errstate(all="ignore"):
            grown = np.where(far > 0, near**2 / far, np.where(near > 0, np.inf, 0.0))
        one_side[[0, -1]] = np.maximum(np.maximum(near, far), grown)
    alone = jumps > KINK_RATIO**2 * one_side
    steep |= unsure & (_not_smooth(xs, slopes, values, jumps) | alone)
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


def _others(jumps: np.ndarray, beyond: float) -> np.ndarray:
    """For each jump, the larger of the jumps beside a pair around it: a kink on a grid
    point makes two equal jumps, and each must still stand out from the ones around.
    ``beyond``: the jumps past the grid's ends; nan leaves out each comparison that
    needs them (inf where none is left)."""
    padded = np.r_[beyond, beyond, jumps, beyond, beyond]
    before2, before, after, after2 = padded[:-4], padded[1:-3], padded[3:-1], padded[4:]
    alone = np.maximum(before, after)
    paired_with_before = np.maximum(before2, after)
    paired_with_after = np.maximum(before, after2)
    least = np.fmin(alone, np.fmin(paired_with_before, paired_with_after))
    return np.where(np.isnan(least), np.inf, least)


def _not_smooth(xs, slopes, values, jumps) -> np.ndarray:
    """For each interval, whether f's values disagree with a smooth f' there: the secant
    differs from the mean of the end slopes (the trapezoidal rule, off by h² |f‴| / 12
    for a smooth f) by more than 1/KINK_RATIO of the jump; at a kink on an end (abs(x)
    at 0 on -1, 0, 1) by half the jump. A kink in an interval's middle shows in no values."""
    if values is None:
        return np.zeros(jumps.size, dtype=bool)
    with np.errstate(all="ignore"):
        secant = np.diff(values) / np.diff(xs)
        mismatch = np.abs(secant - (slopes[1:] + slopes[:-1]) / 2)
        return mismatch > jumps / KINK_RATIO


# ----------------------------------------------------------------------------
# Two --over: f and its gradient on a grid of two inputs. Each grid point is one
# evaluation and one reverse pass, as for a curve; the grid is y by x (rows up the
# second input), as an image is laid out.
# ----------------------------------------------------------------------------

#: The points along each axis of a grid without N: a picture needs fewer along each
#: axis than a curve does, and the cost is their product.
GRID_POINTS = 41


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
    xs, ys = across.values(GRID_POINTS), up.values(GRID_POINTS)
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


def _picture_path(path: str) -> str:
    """``--output FILE``, checked before anything is computed or printed."""
    path = os.path.expanduser(path)
    require_matplotlib(path)
    return path


def _draw(report, path: str) -> None:
    write_image(report, path)


COMMANDS = (
    Command(
        "plot",
        plot,
        """The function and its derivative over a range of one input (the others
        bound as usual), drawn in the terminal, with kinks (where f' jumps), poles
        and non-finite points marked. Several SOURCEs share the axes; two --over
        draw f over a grid of two inputs, with arrows along its gradient.
        --output FILE.png or FILE.svg draws it with matplotlib instead (pip install
        'gradcli[plot]') and says where; --format plain or json gives the numbers.

        \b
        Example:
          $ gradcli plot "abs(x)" --over x=-1:1:5 --format plain
          over x
          x -1 -0.5 0 0.5 1
          f 1 0.5 0 0.5 1
          df -1 -1 0 1 1
          kinks 0
          nonfinite
          poles
        """,
        (
            Option(
                "over",
                "The input along the x axis and its points. "
                + _bindings.OVER_HELP.format(default=201)
                + " Twice for two inputs: f over the grid, with its gradient.",
                kind="texts",
                metavar="X=VALUES",
                required=True,
            ),
        ),
        sources=True,
        picture=Picture(
            _picture_path,
            _draw,
            "Draw the plot into FILE (.png, .svg).",
            said="plot written to {path}",
        ),
    ),
)
