"""``gradcli plot --output FILE.png`` (or ``.svg``): the plot drawn by matplotlib.

matplotlib is an optional dependency (``pip install 'gradcli[plot]'``), imported
only here, without pyplot (no window, no global state): f above f', kinks as
dashed lines, poles as dotted ones with the curve broken there, non-finite
points as crosses on the axis; several functions in their colours with a
legend; for two inputs, f's filled contours with arrows along its gradient.
The picture is written to a temporary file beside FILE and renamed over it.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import GradcliError

IMAGE_SUFFIXES = (".png", ".svg")
SIZE_INCHES = (7.0, 5.0)
DPI = 100
#: Arrows along each axis of a field.
ARROWS = 15


def require_matplotlib(path: str):
    """matplotlib's Figure, or a clear error naming the extra that installs it; called
    before anything is computed or printed."""
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
    return Figure


def write_image(report, path: str) -> None:
    Figure = require_matplotlib(path)  # noqa: N806
    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    if report.command == "field":
        _field(figure, report)
    else:
        _curves(figure, report, getattr(report, "plots", (report,)))
    from ..core.atomic import atomic_output

    try:
        with atomic_output(path) as stream:
            figure.savefig(stream, format=os.path.splitext(path)[1].lower()[1:])
    except OSError as error:
        raise GradcliError(f"cannot write {path}: {error.strerror or error}") from None


def _curves(figure, report, plots) -> None:
    top, bottom = figure.subplots(2, 1, sharex=True)
    several = len(plots) > 1
    colours = [f"C{i}" for i in range(10)] if several else ["tab:blue"]
    for axes, label, panel in ((top, "f", 0), (bottom, f"df/d{report.over}", 1)):
        limits = []
        for i, one in enumerate(plots):
            values = one.df if panel else one.f
            shown = np.where(np.isfinite(values), values, np.nan)  # a gap, not a line
            order = np.argsort(one.x, kind="stable")
            x, shown = one.x[order], shown[order]
            # A pole between two points: a gap there too, not a stroke from +big to -big.
            at = np.searchsorted(x, one.poles)
            x, shown = np.insert(x, at, one.poles), np.insert(shown, at, np.nan)
            colour = colours[i % len(colours)] if several or not panel else "tab:purple"
            named = one.title if several and not panel else None  # one legend, above
            axes.plot(x, shown, color=colour, linewidth=1.6, label=named)
            limits.append(one.df_limits if panel else one.limits)
            for pole in one.poles:
                axes.axvline(pole, color="0.5", linestyle=":", linewidth=1)
            for kink in one.kinks:
                axes.axvline(kink, color="tab:red", linestyle="--", linewidth=1)
            if one.nonfinite.size:
                low = np.nanmin(shown) if np.isfinite(shown).any() else 0.0
                axes.plot(one.nonfinite, np.full(one.nonfinite.size, low), "x", color="tab:red")
        chosen = [limit for limit in limits if limit is not None]
        if chosen:
            low, high = min(c[0] for c in chosen), max(c[1] for c in chosen)
            axes.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))
        axes.set_ylabel(label)
        axes.grid(True, alpha=0.3)
    bottom.set_xlabel(report.over)
    top.set_title(report.title, fontsize=10)
    if any(one.kinks.size for one in plots):
        bottom.plot([], [], color="tab:red", linestyle="--", label="kink")
    if any(one.poles.size for one in plots):
        bottom.plot([], [], color="0.5", linestyle=":", label="pole")
    if several:
        top.legend(loc="best", fontsize=8)
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(loc="best", fontsize=8)


def _field(figure, report) -> None:
    axes = figure.subplots()
    shown = np.where(np.isfinite(report.f), report.f, np.nan)
    filled = axes.contourf(report.x, report.y, shown, levels=20, cmap="viridis")
    axes.contour(report.x, report.y, shown, levels=10, colors="white", linewidths=0.5)
    figure.colorbar(filled, ax=axes, label="f")
    # Arrows on a coarser grid, scaled per axis: they point up the gradient on the map.
    step_x, step_y = (max(1, size // ARROWS) for size in (report.x.size, report.y.size))
    gx, gy = (g[::step_y, ::step_x] for g in report.gradient)
    scale_x, scale_y = np.ptp(report.x), np.ptp(report.y)
    u, v = gx * scale_x, gy * scale_y
    length = np.hypot(u, v)
    with np.errstate(invalid="ignore", divide="ignore"):
        u, v = np.where(length > 0, u / length, 0), np.where(length > 0, v / length, 0)
    axes.quiver(
        report.x[::step_x], report.y[::step_y], u * scale_x, v * scale_y,
        color="white", angles="xy", pivot="mid", alpha=0.8,
    )  # fmt: skip
    x_name, y_name = report.names
    axes.set_xlabel(x_name)
    axes.set_ylabel(y_name)
    axes.set_title(f"{report.title}: f, arrows along ∇f", fontsize=10)
