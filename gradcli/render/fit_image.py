"""``gradcli fit --output FILE.png`` (or ``.svg``): the data, the fitted model and the
residuals in one picture, drawn by matplotlib (imported only here, without pyplot).

With one predictor column the data are drawn against it, the model as a line
through its values at the data's points in the predictor's order; with several,
against the row number. The residuals, observed minus fitted, are drawn below.
The picture is written to a temporary file beside the target and renamed over
it once complete, so a failed write leaves no half picture.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from ..errors import GradcliError

IMAGE_SUFFIXES = (".png", ".svg")
SIZE_INCHES = (7.0, 5.5)
DPI = 100


def check_output(path: str) -> str:
    """``path`` with ``~`` expanded, refused before any computing if it cannot be drawn."""
    path = os.path.expanduser(path)
    if os.path.splitext(path)[1].lower() not in IMAGE_SUFFIXES:
        raise GradcliError(f"--output {path}: the fit is drawn as .png or .svg")
    if importlib.util.find_spec("matplotlib") is None:
        raise GradcliError(
            "drawing the fit needs matplotlib, which is not installed: "
            "pip install 'gradcli[plot]' (or pip install matplotlib)"
        )
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise GradcliError(f"--output {path}: there is no directory {directory}")
    return path


def write_fit_image(report, path: str) -> None:
    from matplotlib.figure import Figure

    observed, fitted = np.asarray(report.observed), np.asarray(report.fitted)
    if len(report.predictors) == 1:
        ((label, x),) = report.predictors.items()
        x = np.asarray(x)
    else:
        label, x = "row", np.arange(observed.size)
    order = np.argsort(x, kind="stable")
    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    top.plot(x, observed, "o", color="tab:blue", markersize=4, label=f"data ({report.response})")
    top.plot(x[order], fitted[order], color="tab:orange", linewidth=1.6, label="model")
    top.set_ylabel(report.response)
    top.legend(loc="best", fontsize=8)
    top.set_title(report.title, fontsize=10)
    residuals = observed - fitted
    bottom.axhline(0, color="0.5", linewidth=1)
    bottom.vlines(x, 0, residuals, color="tab:blue", linewidth=1)
    bottom.plot(x, residuals, "o", color="tab:blue", markersize=3)
    bottom.set_ylabel("residual")
    bottom.set_xlabel(label)
    for axes in (top, bottom):
        axes.grid(True, alpha=0.3)
    from ..core.atomic import atomic_output

    try:
        with atomic_output(path) as stream:
            figure.savefig(stream, format=os.path.splitext(path)[1].lower()[1:])
    except OSError as error:
        raise GradcliError(f"cannot write {path}: {error.strerror or error}") from None
