"""``PointsTask``: what computing one chunk of rows takes, as a small picklable
object, so that a chunk can be computed in this process or in a Dask worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import numpy as np

from ...engine import limits
from ...engine.limits import DEFAULT_MAX_ELEMENTS
from ..many_points import PointsProgram, layout
from ..values import parse_value
from .budget import CHUNK_LIMIT, bounded
from .columns import inputs_from_columns


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
            return {**batch, **self._program.arrays(batch)}

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
