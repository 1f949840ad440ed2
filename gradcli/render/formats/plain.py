"""``--format plain``: one line per array, its key path then its numbers (one point)."""

from __future__ import annotations

from . import OutputFormat


class Plain(OutputFormat):
    name = "plain"
    rank = 1
    help = "lines of numbers for scripts"

    def render(self, result, stream, precision=None):
        from ..plain import render

        render(result, stream, precision)

    def render_report(self, report, stream, precision=None):
        from ..plain import render_report

        render_report(report, stream, precision)

    def render_functions(self, functions, stream):
        from ..plain import render_functions

        render_functions(functions, stream)


FORMAT = Plain()
