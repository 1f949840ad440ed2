"""``--format markdown``: a Markdown table, to paste into an issue or a notebook."""

from __future__ import annotations

from ...core.point_files.writers import Writer
from ..numbers import format_number
from ..plain import report_lines, result_lines
from . import OutputFormat


class Markdown(OutputFormat):
    name = "markdown"
    help = "a Markdown table"

    def render(self, result, stream, precision=None):
        _table(["name", "value"], result_lines(result, precision).items(), stream)

    def render_report(self, report, stream, precision=None):
        _table(["name", "value"], report_lines(report.as_tree(), precision).items(), stream)

    def writer(self, stream, path, precision, rows):
        return MarkdownWriter(stream, precision)


class MarkdownWriter(Writer):
    """The rows of many points under a header of their columns (a text column as it is)."""

    def __init__(self, stream, precision):
        super().__init__()
        self.stream = stream
        self.precision = precision

    def _write(self, columns):
        cells = [[format_number(x, self.precision) if c.dtype.kind in "biuf" else str(x)
                  for x in c.tolist()] for c in columns.values()]  # fmt: skip
        header = list(columns) if self.rows == len(cells[0]) else None  # the first chunk
        _table(header, zip(*cells), self.stream)


def _table(header, rows, stream) -> None:
    if header is not None:
        stream.write("| " + " | ".join(header) + " |\n")
        stream.write("|" + "---|" * len(header) + "\n")
    for row in rows:
        stream.write("| " + " | ".join(map(str, row)) + " |\n")


FORMAT = Markdown()
