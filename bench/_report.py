"""What every benchmark prints the same way: the load average, the fastest and
median of repeated runs, ratios taken run by run, a target as met or MISSED, and
a table whose columns line up.

The machine the figures come from is shared: a time alone moves with the load,
so each script prints the load beside its figures, and a ratio of runs taken in
turn (one library, then the other) is what stands.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence


def load_average() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0


def load_note(when: str = "") -> str:
    """``load average [when ]L on N cores``."""
    prefix = f"load average {when} " if when else "load average "
    return f"{prefix}{load_average():.2f} on {os.cpu_count() or 1} cores"


def load_range(loads: Sequence[float]) -> str:
    """The load averages seen during a run: ``L`` or ``LOW-HIGH``."""
    low, high = min(loads), max(loads)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def low_mid(values: Sequence[float]) -> tuple[float, float]:
    """The fastest and the median of repeated runs."""
    return min(values), statistics.median(values)


def ratios(ours: Sequence[float], theirs: Sequence[float]) -> list[float]:
    """Run by run: the runs of a round are taken in turn, under the same load."""
    return [a / b for a, b in zip(ours, theirs)]


def verdict(value: float, target: float, at_least: bool = False) -> str:
    met = value >= target if at_least else value <= target
    return "met" if met else "MISSED"


def target_note(value: float, target: float, what: str = "median", at_least: bool = False) -> str:
    """``median 1.23, target <= 1.5: met``."""
    sign = ">=" if at_least else "<="
    return f"{what} {value:.2f}, target {sign} {target:g}: {verdict(value, target, at_least)}"


def print_table(head: Sequence[str], rows: Sequence[Sequence[str]], indent: int = 2) -> None:
    """Columns as wide as their widest cell: the first left-aligned, the rest right."""
    cells = [list(head), *[list(map(str, row)) for row in rows]]
    widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(len(head))]
    for row in cells:
        shown = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ]
        print(" " * indent + "  ".join(shown).rstrip())
