"""``--output FILE.tsv``: the rows of many points, their fields separated by tabs."""

from __future__ import annotations

from ...core.point_files.writers import Writer
from . import OutputFormat


class Tsv(OutputFormat):
    name = "tsv"
    endings = (".tsv",)
    standard_output = False

    def writer(self, stream, path, precision, rows):
        return TsvWriter(path)


class TsvWriter(Writer):
    """A header of the columns' names, then a line per point; written whole, then renamed."""

    def __init__(self, path):
        super().__init__(path)  # the file is written beside ``path``, renamed at close()
        self.file = self.output.open("w", encoding="utf-8")

    def _write(self, columns):
        if self.rows == len(next(iter(columns.values()))):  # the first chunk
            self.file.write("\t".join(columns) + "\n")
        for row in zip(*(c.tolist() for c in columns.values())):
            self.file.write("\t".join(map(str, row)) + "\n")

    def _finish(self):
        self.file.flush()


FORMAT = Tsv()
