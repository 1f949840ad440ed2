"""``--format plain``: one line per array, its key path then its numbers (one point)."""

from __future__ import annotations

from ..plain import render, render_functions, render_report
from . import OutputFormat


class Plain(OutputFormat):
    name = "plain"
    rank = 1
    help = "lines of numbers for scripts"

    def render(self, result, stream, precision=None):
        render(result, stream, precision)

    def render_report(self, report, stream, precision=None):
        render_report(report, stream, precision)

    def render_functions(self, functions, stream):
        render_functions(functions, stream)


FORMAT = Plain()
