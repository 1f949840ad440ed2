"""``--format latex``: the formulas of ``diff`` and the polynomial of ``taylor`` in LaTeX."""

from __future__ import annotations

from ...errors import GradcliError
from . import OutputFormat


class Latex(OutputFormat):
    name = "latex"
    help = "LaTeX"

    def render_report(self, report, stream, precision=None):
        from ..latex import LAYOUTS, render_report

        if getattr(report, "layout", "") not in LAYOUTS:
            raise GradcliError("--format latex writes diff's formulas and taylor's polynomial")
        render_report(report, stream, precision)


FORMAT = Latex()
