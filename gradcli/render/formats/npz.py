"""``--output FILE.npz``: many points as arrays with the batch axis first, streamed to
disk; one point's arrays, each under its key path (``value``, ``grad.x``)."""

from __future__ import annotations

import numpy as np

from ...core.result import leaves
from . import OutputFormat


class Npz(OutputFormat):
    name = "npz"
    endings = (".npz",)
    standard_output = False

    def writer(self, stream, path, precision, rows):
        from ...core.point_files.writers import NpzWriter

        return NpzWriter(path, rows)

    def save(self, result, path):
        from ...core.atomic import atomic_output

        with atomic_output(path) as stream:
            arrays = {".".join(key): array for key, array in leaves(result.as_tree())}
            np.savez(stream, **arrays)


FORMAT = Npz()
