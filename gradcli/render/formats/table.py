"""``--format table``: a Rich table for people, the default on a terminal; of many
points, the first and last rows and their count."""

from __future__ import annotations

from . import OutputFormat


class Table(OutputFormat):
    name = "table"
    rank = 0
    help = "a table for people"

    def render(self, result, stream, precision=None):
        from ..table import render

        render(result, stream, precision)

    def render_report(self, report, stream, precision=None):
        from ..table import render_report

        render_report(report, stream, precision)

    def render_functions(self, functions, stream):
        from ..table import render_functions

        render_functions(functions, stream)

    def writer(self, stream, path, precision, rows):
        from ..point_writers import TableWriter

        return TableWriter(stream, precision)


FORMAT = Table()
