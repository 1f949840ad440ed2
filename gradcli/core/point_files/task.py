"""``PointsTask``: what computing one chunk of rows takes, as a small picklable
object, so that a chunk can be computed in this process or in a Dask worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import numpy as np

from ...engine import limits
from ...engine.limits import DEFAULT_MAX_ELEMENTS
from ...errors import GradcliError
from ..many_points import PointsProgram, layout
from ..values import parse_value
from .budget import CHUNK_LIMIT, bounded
from .columns import inputs_from_columns

#: Rows evaluated at once within a chunk: the evaluation's intermediates (a dozen
#: arrays of the batch's length for a gradient) are held for this many rows, not for
#: the whole chunk, which is read and written whole.
PIECE_ROWS = 1 << 14


class PointsTask:
    """``task(chunk)``: the input columns of a chunk of rows -> its output arrays, batch
    axis first, the varying inputs first, then the results (``value``, ``grad.x``,
    ``jacobian.x`` of shape ``(B, m, n)``...), by ``api.points``. They stay whole:
    only the writers of CSV and Parquet split them into columns.

    ``bindings`` are the inputs fixed for every row: a value's text
    (``"randn(3)"``, read by the library as for one point) or an array; a file
    (``@w.npy``) or standard input (``@-``) is read here, once, not by each chunk.
    ``program``: ``source`` compiled already (``language.compile_source``, the
    built-in constants bound or varying as inputs), else it is compiled at the first
    chunk; either way once, not by each chunk.
    """

    #: What the first chunk teaches the task (``run.computed``): a worker's copy sends it back.
    learns = ("notes",)

    def __init__(
        self,
        command: str,
        source: str,
        bindings: Mapping | None = None,
        *,
        wrt=None,
        grad_output=None,
        tangents=None,
        unit: bool = False,
        holomorphic: bool = False,
        dtype: str = "float64",
        seed: int = 0,
        filename: str = "<expr>",
        max_elements: int = DEFAULT_MAX_ELEMENTS,
        program=None,
    ):
        self.command = command
        self.source = source
        with limits.max_elements(max_elements):  # a file read here is held to it too
            self.bindings = {n: read_once(v, f"--{n}") for n, v in (bindings or {}).items()}
            grad_output = read_once(grad_output, "--grad-output")
            if tangents is not None:
                tangents = {n: read_once(v, f"--tangent {n}") for n, v in tangents.items()}
        self._compiled = program  # the source compiled already, if it was
        self._program = None
        self.options = {
            "wrt": wrt,
            "grad_output": grad_output,
            "tangents": tangents,
            "unit": unit,
            "holomorphic": holomorphic,
            "dtype": dtype,
            "seed": seed,
            "filename": filename,
            "max_elements": max_elements,
        }
        #: The limit on an evaluation's operations in force here, for every thread and
        #: worker that computes a chunk.
        self.max_operations = limits.MaxOperations.value
        #: The most numbers one array of a chunk may hold (the memory budget's share of a
        #: chunk, ``budget.bounded``), for every thread and worker that computes one.
        self.chunk_limit: int | None = None
        #: The notes of the first chunk computed here (an input left out, a constant
        #: bound as an input): the same at every point, said once by the caller.
        self.notes: tuple[str, ...] | None = None

    def __call__(self, chunk: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        batch = inputs_from_columns(chunk)
        # Compiled at the first chunk, for the shapes its columns give, and kept: every
        # chunk of a run has the same.
        shapes = layout(batch)
        if self._program is None or self._program.layout != shapes:
            self._program = PointsProgram(
                self.command,
                self.source,
                self.bindings,
                shapes,
                program=self._compiled,
                **self.options,
            )
        if self.notes is None:
            self.notes = tuple(n.message for n in self._program.evaluation.binding_notes)
        with limits.max_operations(self.max_operations), self._bounded():
            return {**batch, **self._in_pieces(batch)}

    def _in_pieces(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The program's arrays at every row of ``batch``, evaluated ``PIECE_ROWS`` rows
        at a time into arrays of the whole chunk (points are evaluated independently)."""
        rows = len(next(iter(batch.values()))) if batch else 0
        if rows <= PIECE_ROWS:
            return self._program.arrays(batch)
        results: dict[str, np.ndarray] = {}
        for at in range(0, rows, PIECE_ROWS):
            piece = {name: a[at : at + PIECE_ROWS] for name, a in batch.items()}
            try:
                found = self._program.arrays(piece)
            except GradcliError as error:
                if getattr(error, "row", None) is not None:  # a row of the chunk, not the piece
                    row = error.row
                    error.message = error.message.replace(f"at point {row}", f"at point {row + at}")
                    error.args, error.row = (error.message,), row + at
                raise
            if not results:
                results = {n: np.empty((rows, *a.shape[1:]), a.dtype) for n, a in found.items()}
            if found.keys() != results.keys() or any(
                results[n].shape[1:] != a.shape[1:] or results[n].dtype != a.dtype
                for n, a in found.items()
            ):
                return self._program.arrays(batch)  # pieces that differ: the chunk whole
            for name, a in found.items():
                results[name][at : at + len(a)] = a
        for a in results.values():
            a.flags.writeable = False  # as the program's own results
        return results

    def _bounded(self):
        # A limit set around the call (the probe's of the first rows) stays in force.
        if self.chunk_limit is None or CHUNK_LIMIT.value is not None:
            return contextlib.nullcontext()
        return bounded(self.chunk_limit)

    def __getstate__(self) -> dict:
        # Sent to a Dask worker without its compiled program: the worker compiles its own.
        return {**self.__dict__, "_program": None, "_compiled": None}


def read_once(value, name: str):
    """A binding's value: a file (``@w.npy``) or standard input (``@-``) read now, once;
    any other text as it is, for the library to read at each point."""
    if isinstance(value, str) and value.strip().startswith("@"):
        return parse_value(value, name=name)
    return value
