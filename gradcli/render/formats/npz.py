"""``--output FILE.npz``: many points as arrays with the batch axis first, streamed to disk."""

from __future__ import annotations

from . import OutputFormat


class Npz(OutputFormat):
    name = "npz"
    endings = (".npz",)
    standard_output = False

    def writer(self, stream, path, precision, rows):
        from ...core.point_files.writers import NpzWriter

        return NpzWriter(path, rows)


FORMAT = Npz()
