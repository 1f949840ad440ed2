"""``gradcli critical``: the critical points of a scalar program in a box.

Newton's method on ∇f = 0, with the exact gradient and Hessian, runs from every
point of a grid over the box (``--over x=A:B[:N]`` for each input varied);
the points it reaches inside the box are merged when the gradient test of the
classification (``assembled.py``) cannot tell them apart: it passes all along the
way between them, as around a degenerate critical point, where the runs stop
anywhere |∇f| is below Newton's tolerance (``x**4 + y**4``'s up to 3e-4 from 0);
a run that reaches such a point is stopped there. The merged point is the end of
smallest |∇f|, classified by the Hessian's eigenvalues as ``gradcli hessian``
does (minimum, maximum, saddle, degenerate; ``steady_verdict``, once for the
point). A grid finds what its
starts lead to: a critical point between grid lines that no start reaches is
missed, which a finer ``N`` remedies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import computing
from ..core.assembled import assemble_hessian, steady_verdict
from ..core.bindings import OVER_HELP, parse_over
from ..core.result import source_title
from ..errors import GradcliError
from .commands import Command, Option
from .flat import Diverged, Flat
from .optimize import scalar_of
from .report import Report, frozen
from .roots import newton

#: Grid points per input when ``--over`` gives no N, by the number of inputs.
DEFAULT_COUNTS = {1: 21, 2: 9, 3: 5}


@dataclass(frozen=True, eq=False)
class CriticalPoint:
    point: np.ndarray
    value: float
    classification: str
    eigenvalues: np.ndarray


@dataclass(frozen=True, eq=False)
class CriticalReport(Report):
    command = "critical"
    layout = "critical points"
    source: str
    title: str
    names: tuple[str, ...]
    box: tuple[tuple[float, float], ...]
    starts: int
    points: tuple[CriticalPoint, ...]
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        return {
            "points": [
                {
                    **{n: float(v) for n, v in zip(self.names, c.point)},
                    "value": c.value,
                    "classification": c.classification,
                    "eigenvalues": c.eigenvalues,
                }
                for c in self.points
            ],
            "count": len(self.points),
            "starts": self.starts,
        }

    def row(self) -> dict:
        """How many critical points of each kind, and the lowest (nan where there is none):
        a row of as many numbers wherever the box holds more or fewer."""
        kinds = [c.classification for c in self.points]
        lowest = min(self.points, key=lambda c: c.value, default=None)
        where = lowest.point if lowest is not None else np.full(len(self.names), np.nan)
        return {
            "count": len(self.points),
            "minima": kinds.count("minimum"),
            "maxima": kinds.count("maximum"),
            "saddle_points": kinds.count("saddle point"),
            **{f"lowest.{n}": float(v) for n, v in zip(self.names, where)},
            "lowest.value": lowest.value if lowest is not None else np.nan,
        }


def critical(
    source: str,
    bindings: Mapping | None = None,
    *,
    over: Sequence,
    tol: float = 1e-10,
    max_iter: int = 100,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> CriticalReport:
    """The critical points of a scalar program in the box of ``over`` (``bindings.Over``
    for each scalar input varied; the other inputs are bound by ``bindings``)."""
    if not over:
        raise GradcliError("critical needs the box: --over x=-2:2 for each input varied")
    names = tuple(o.name for o in over)
    if len(set(names)) != len(names):
        raise GradcliError("--over: each input is given once")
    starts_of = [o.values(DEFAULT_COUNTS.get(len(over), 3)) for o in over]
    box = tuple((float(v.min()), float(v.max())) for v in starts_of)
    bindings = {**dict(bindings or {}), **{o.name: v[0] for o, v in zip(over, starts_of)}}
    options = {"wrt": names, "dtype": dtype, "seed": seed, "filename": filename}
    first = computing.gradient(source, bindings, **options)
    flat = Flat.of(first)
    for name in names:
        if flat.shapes[name] != ():
            raise GradcliError(f"--over {name}: critical varies scalar inputs, not {name}")
    search = _Search(source, flat, options, box)
    grid = np.stack(np.meshgrid(*starts_of, indexing="ij"), -1).reshape(-1, len(names))
    for start in grid:
        search.run(start, tol, max_iter)
    points, notes = search.classified()
    return CriticalReport(
        source,
        source_title(source, filename),
        names,
        box,
        len(grid),
        tuple(points),
        (*notes, *first.notes, *first.warnings),
    )


class _Search:
    """Newton runs from the starts of a grid, their ends grouped into critical points."""

    def __init__(self, source, flat, options, box):
        self.source, self.flat, self.options = source, flat, options
        self.low, self.high = np.array(box).T
        self.size = np.maximum(self.high - self.low, 1e-300)
        # One entry [max |∇f|, point] for each critical point: of the runs' ends the
        # gradient test cannot tell apart, the one of smallest |∇f|.
        self.found: list[list] = []

    def system(self, x):
        result = computing.hessian(self.source, self.flat.bindings(x), **self.options)
        gradient = self.flat.vector(result.grad)
        if not np.all(np.isfinite(gradient)) or np.max(np.abs(x)) > 1e100:
            raise Diverged(np.array(x), scalar_of(result.value))
        return gradient, self.flat.matrix(result.hessian)

    def gradient_test(self, y) -> bool:
        """The classification's gradient test at y: |∇f| <= sqrt(eps) max(1, |f|)."""
        result = computing.gradient(self.source, self.flat.bindings(y), **self.options)
        gradient = self.flat.vector(result.grad)
        f = abs(scalar_of(result.value))
        return bool(np.max(np.abs(gradient), initial=0.0) <= _root_eps(gradient) * max(1.0, f))

    def same_point(self, x, y) -> bool:
        """Whether the gradient test cannot tell x from y: it passes all along the way
        between them (a degenerate critical point's ends spread over that region)."""
        if np.all(np.abs(x - y) <= 1e-6 * self.size):
            return True
        return all(self.gradient_test(x + t * (y - x)) for t in _ALONG)

    def joins(self, x):
        """The entry of found that x belongs to, if any: the nearest one, if the
        gradient test cannot tell x from its point."""
        if not self.found:
            return None
        entry = min(self.found, key=lambda e: float(np.sum((e[1] - x) ** 2)))
        return entry if self.same_point(entry[1], x) else None

    def joining(self, x):
        """``system``, stopping a run once it meets the point of a group found before."""
        gradient, hessian = self.system(x)
        norm = float(np.max(np.abs(gradient), initial=0.0))
        if norm <= _root_eps(gradient) and (entry := self.joins(x)) is not None:
            raise _Joined(entry, norm, np.array(x))
        return gradient, hessian

    def run(self, start, tol, max_iter) -> None:
        """One Newton run from ``start``: its end, inside the box, joins a critical point
        found before or is a new one."""
        try:
            x, _, stopped = newton(self.joining, start, tol, max_iter)
        except Diverged:
            return
        except _Joined as joined:
            entry, norm, x = joined.entry, joined.norm, joined.x
        else:
            if stopped is not None:
                return
            norm, entry = float(np.max(np.abs(self.system(x)[0]), initial=0.0)), self.joins(x)
        low, high, size = self.low, self.high, self.size
        if not (np.all(x >= low - 1e-9 * size) and np.all(x <= high + 1e-9 * size)):
            return
        if entry is None:
            self.found.append([norm, x])
        elif norm < entry[0]:
            entry[:] = [norm, x]

    def hessian_at(self, y):
        return self.system(y)[1]

    def classified(self) -> tuple[list[CriticalPoint], list[str]]:
        """Each critical point found, in order, with its kind; notes where it is in doubt."""
        points, notes = [], []
        for _, x in sorted(self.found, key=lambda e: tuple(e[1])):
            end = computing.hessian(self.source, self.flat.bindings(x), **self.options)
            whole = assemble_hessian(end.value, end.grad, end.hessian, end.shapes)
            eigenvalues = whole.eigenvalues if whole.eigenvalues is not None else np.array([])
            verdict, doubt = steady_verdict(whole, self.flat.vector(end.grad), self.hessian_at, x)
            if doubt:
                notes.append(f"at {tuple(float(v) for v in x)}: {doubt}")
            kind = verdict.replace("local ", "")
            points.append(CriticalPoint(frozen(x), scalar_of(end.value), kind, frozen(eigenvalues)))
        return points, notes


#: Where between two end points the gradient test is asked: fractions no lattice of
#: critical points (sin(x)*cos(y)'s) lands on at once.
_ALONG = (0.5, 0.381966011250105, 0.618033988749895)


class _Joined(Exception):
    """A Newton run reached a point the gradient test cannot tell from one found before."""

    def __init__(self, entry, norm, x):
        super().__init__("joined")
        self.entry, self.norm, self.x = entry, norm, x


def _root_eps(gradient) -> float:
    """sqrt(eps) of the gradient's dtype: the gradient test's tolerance where |f| <= 1."""
    dtype = gradient.dtype if gradient.dtype.kind == "f" else np.float64
    return float(np.sqrt(np.finfo(dtype).eps))


def _box(texts) -> list:
    return [parse_over(text) for text in texts]


COMMANDS = (
    Command(
        "critical",
        critical,
        """Where the gradient of a scalar SOURCE is zero in a box: the critical points, by Newton's
        method on the exact gradient and Hessian from a grid of starts, the points
        reached merged, each classified by the Hessian's eigenvalues (minimum,
        maximum, saddle point, degenerate).

        \b
        Example:
          $ gradcli critical "x**3 - 3*x + y**2" --over x=-2:2 --over y=-2:2 \
          --format plain --precision 10
          points.0.x -1
          points.0.y 0
          points.0.value 2
          points.0.classification saddle point
          points.0.eigenvalues -6 2
          points.1.x 1
          points.1.y 0
          points.1.value -2
          points.1.classification minimum
          points.1.eigenvalues 2 6
          count 2
          starts 81

        Many points: --points FILE binds the other inputs (--over is the box), a row
        each: how many critical points of each kind, and the lowest (nan when the
        box holds none):

        \b
          $ gradcli critical "x**4/4 - a*x**2/2 + x/10" --over x=-2:2 \
          --points samples/critical_a.csv --format csv
          a,count,minima,maxima,saddle_points,lowest.x,lowest.value
          0.1,1,1,0,0,-0.5354866968099511,-0.047330152322257145
          1,3,2,1,0,-1.0466805318046024,-0.3523860738000364
        """,
        (
            # --over is the box: many points come from --points FILE alone.
            Option(
                "over",
                "An input varied and its range (repeat for each): the box, and N starts "
                "along it [default N: 21 for one input, 9 for two, 5 for three, 3 beyond]. "
                + OVER_HELP.format(default="as above"),
                kind="texts",
                metavar="X=A:B[:N]",
                required=True,
                parse=_box,
            ),
        ),
        points=True,
    ),
)
