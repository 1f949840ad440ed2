"""``gradcli slope``: how steep a scalar output is at the bound point, and which way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import api
from ..core.result import source_title
from .commands import Command, Option
from .report import Report, flat, frozen


@dataclass(frozen=True, eq=False)
class SlopeReport(Report):
    source: str
    title: str
    slope: np.ndarray
    direction: Mapping[str, np.ndarray]
    warnings: tuple[str, ...] = ()
    command = "slope"

    def as_tree(self) -> dict:
        return {"slope": self.slope, "direction": dict(self.direction)}

    def row(self) -> dict:  # at many points: a row of numbers at each
        return flat(self.as_tree())


def slope(
    source: str,
    bindings: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> SlopeReport:
    """|grad f| and the direction of steepest ascent, grad f / |grad f|."""
    result = api.gradient(source, bindings, wrt=wrt, dtype=dtype, seed=seed, filename=filename)
    length = np.sqrt(sum(np.sum(np.square(g)) for g in result.grad.values()))
    direction = {name: frozen(g / length) for name, g in result.grad.items()}
    title = source_title(source, filename)
    warnings = (*result.notes, *result.warnings)
    return SlopeReport(source, title, frozen(length), direction, warnings)


COMMANDS = (
    Command(
        "slope",
        slope,
        """How steep a scalar SOURCE is at the bound point: the length of its
        gradient, and the direction of steepest ascent.

        \b
        Example:
          $ gradcli slope "x**2 + y**2" --x 3 --y 4 --format plain
          slope 10
          direction.x 0.6
          direction.y 0.8

        Many points (--over, --points FILE): a row each.
        """,
        (Option("wrt", "The inputs [default: all].", kind="names"),),
        points=True,
    ),
)
