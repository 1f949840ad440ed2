"""``--format json``: one JSON object on one line; of many points, JSON lines (one
object per point), on standard output or into ``--output FILE.jsonl``."""

from __future__ import annotations

from . import OutputFormat


class Json(OutputFormat):
    name = "json"
    aliases = ("jsonl",)
    endings = (".jsonl", ".ndjson")
    rank = 2
    help = "JSON"

    def render(self, result, stream, precision=None):
        from ..json import render

        render(result, stream, precision)

    def render_report(self, report, stream, precision=None):
        from ..json import render_report

        render_report(report, stream, precision)

    def render_functions(self, functions, stream):
        from ..json import render_functions

        render_functions(functions, stream)

    def writer(self, stream, path, precision, rows):
        from ..point_writers import JsonLinesWriter

        if path is not None:
            return JsonLinesWriter(None, None, path)
        return JsonLinesWriter(stream, precision)


FORMAT = Json()
