"""Output formats. A renderer takes a finished result and a stream and computes
nothing: it only lays out the arrays the result holds.

A result's ``as_tree()`` is a nested dict of arrays, in the order they are
shown: ``{"value": V, "grad": {"x": G}}``. The formats are one registry,
``render.formats``: a module each, with one interface for one point (a result, a
report, the listing of ``gradcli functions``) and many points (a writer of rows).
Each is imported only when chosen, so Rich is never loaded for ``json`` or ``plain``.
"""

from __future__ import annotations

import enum

from ..core.result import leaves  # noqa: F401  (how the renderers walk a result tree)
from . import formats


class Format(str, enum.Enum):
    """``--format``: a Rich table for people, plain lines or JSON for scripts."""

    TABLE = "table"
    PLAIN = "plain"
    JSON = "json"


def render(result, fmt: Format, stream, precision: int | None = None) -> None:
    """Write ``result`` to ``stream`` in format ``fmt`` (a name of ``formats``)."""
    formats.get(_name(fmt)).render(result, stream, precision)


def render_report(report, fmt: str, stream, precision: int | None = None) -> None:
    """Write an analysis report (``gradcli.analysis``) to ``stream`` in format ``fmt``."""
    formats.get(_name(fmt)).render_report(report, stream, precision)


def render_functions(functions, fmt: Format, stream) -> None:
    """Write the listing ``functions`` (``api.functions()``) to ``stream`` in format ``fmt``."""
    formats.get(_name(fmt)).render_functions(functions, stream)


def _name(fmt) -> str:
    return fmt.value if isinstance(fmt, Format) else fmt
