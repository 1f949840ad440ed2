"""NIST's Statistical Reference Datasets for nonlinear regression (tests/data/nist/):
each file's model, starting points, certified values and data, read from NIST's text.

The model is NIST's formula as written after ``y =`` (up to ``+ e``), in gradcli's
language: NIST writes ``exp[-b2*x]`` with brackets and ``arctan`` for atan.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "nist"
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: Certified values carry 11 significant digits: agreement is counted up to there.
MAX_DIGITS = 11.0


@dataclass(frozen=True)
class Problem:
    name: str
    model: str
    params: tuple[str, ...]
    starts: tuple[dict[str, float], dict[str, float]]
    certified: dict[str, float]
    certified_sd: dict[str, float]
    rss: float
    residual_sd: float
    dof: int
    x: np.ndarray
    y: np.ndarray


def problems() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.dat"))


def read(name: str) -> Problem:
    lines = (DATA / f"{name}.dat").read_text().splitlines()
    model_at = next(i for i, line in enumerate(lines) if line.startswith("Model:"))
    formula, i = [], model_at + 1
    while not lines[i].strip().startswith("y ") and "y =" not in lines[i]:
        i += 1
    while True:
        formula.append(lines[i].strip())
        if "+  e" in lines[i] or lines[i].rstrip().endswith("+ e"):
            break
        i += 1
    text = " ".join(formula)
    text = text.split("=", 1)[1].rsplit("+", 1)[0]  # after "y =", before "+ e"
    model = text.replace("[", "(").replace("]", ")").replace("arctan", "atan")
    model = " ".join(model.split())
    params, start1, start2, certified, sd = [], {}, {}, {}, {}
    for line in lines:
        found = re.match(
            rf"\s*(b\d+)\s*=\s*({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})", line
        )
        if found:
            b = found[1]
            params.append(b)
            start1[b], start2[b] = float(found[2]), float(found[3])
            certified[b], sd[b] = float(found[4]), float(found[5])

    def value(label):
        line = next(line for line in lines if line.startswith(label))
        return float(line.split(":")[1])

    data_at = max(i for i, line in enumerate(lines) if line.startswith("Data:"))
    rows = np.array(
        [[float(v) for v in line.split()] for line in lines[data_at + 1 :] if line.strip()]
    )
    return Problem(
        name,
        model,
        tuple(params),
        (start1, start2),
        certified,
        sd,
        value("Residual Sum of Squares"),
        value("Residual Standard Deviation"),
        int(value("Degrees of Freedom")),
        rows[:, 1],
        rows[:, 0],
    )


def digits(value: float, certified: float) -> float:
    """The significant digits of ``value`` that agree with ``certified``: -log10 of the
    relative error, up to the 11 that NIST gives."""
    if value == certified:
        return MAX_DIGITS
    error = abs(value - certified) / abs(certified)
    return min(MAX_DIGITS, -math.log10(error))
