"""``--output FILE.parquet``: many points as a Parquet table (pyarrow)."""

from __future__ import annotations

from . import OutputFormat


class Parquet(OutputFormat):
    name = "parquet"
    endings = (".parquet",)
    standard_output = False

    def writer(self, stream, path, precision, rows):
        from ...core.point_files.writers import ParquetWriter

        return ParquetWriter(path)


FORMAT = Parquet()
