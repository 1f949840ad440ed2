"""``--format csv`` and ``--output FILE.csv``: a header, then a row per point."""

from __future__ import annotations

from ...errors import GradcliError
from . import OutputFormat


class Csv(OutputFormat):
    name = "csv"
    endings = (".csv",)
    help = "a header, then a row per point"

    def writer(self, stream, path, precision, rows):
        from ...core.point_files.writers import CsvWriter

        if precision is not None:
            raise GradcliError("--precision: --format csv writes every digit")
        return CsvWriter(path)


FORMAT = Csv()
