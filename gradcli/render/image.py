"""``gradcli plot --output FILE.png`` (or ``.svg``): the plot drawn by matplotlib.

matplotlib is an optional dependency (``pip install 'gradcli[plot]'``), imported
only here, without pyplot (no window, no global state): f above f', kinks as
dashed lines, non-finite points as crosses on the axis.
"""

from __future__ import annotations

import os

from ..errors import GradcliError

IMAGE_SUFFIXES = (".png", ".svg")
SIZE_INCHES = (7.0, 5.0)
DPI = 100


def write_image(report, path: str) -> None:
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in IMAGE_SUFFIXES:
        raise GradcliError(f"--output {path}: the plot is written as .png or .svg")
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise GradcliError(
            "writing a plot needs matplotlib, which is not installed: "
            "pip install 'gradcli[plot]' (or pip install matplotlib)"
        ) from None
    import numpy as np

    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True)
    for axes, values, label, colour in (
        (top, report.f, "f", "tab:blue"),
        (bottom, report.df, f"df/d{report.over}", "tab:purple"),
    ):
        finite = np.isfinite(values)
        shown = np.where(finite, values, np.nan)  # a gap, not a line to infinity
        axes.plot(report.x, shown, color=colour, linewidth=1.6)
        axes.set_ylabel(label)
        axes.grid(True, alpha=0.3)
        for x in report.kinks:
            axes.axvline(x, color="tab:red", linestyle="--", linewidth=1)
        if report.nonfinite.size:
            low = np.nanmin(shown) if finite.any() else 0.0
            axes.plot(report.nonfinite, np.full(report.nonfinite.size, low), "x", color="tab:red")
    bottom.set_xlabel(report.over)
    top.set_title(report.title, fontsize=10)
    if report.kinks.size:
        bottom.plot([], [], color="tab:red", linestyle="--", label="kink")
        bottom.legend(loc="best", fontsize=8)
    from ..atomic import atomic_output

    try:
        with atomic_output(path) as stream:
            figure.savefig(stream, format=suffix[1:])
    except OSError as error:
        raise GradcliError(f"cannot write {path}: {error.strerror or error}") from None
