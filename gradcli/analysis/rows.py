"""An analysis at many points: ``ReportRows(chunk)`` is the chunk's rows through one
analysis (a command of the registry declared with ``points``: ``analysis.commands``),
one report per row, laid out as
the many-point run's arrays (batch axis first, named as plain output names the
report's numbers: ``sigma``, ``shares.x``, ``checks.grad.x.passed``).

Each row is the single-point analysis at that row's inputs, so a row says what
``gradcli propagate --x 0.5`` says at its point; what is the same at every
point (the tolerances, the formulas, the point itself) is left out of the row.
It is a task of ``core.point_files.run``: a small picklable object.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..core import computing
from ..core.reach import note
from ..engine import limits
from ..engine.limits import DEFAULT_MAX_ELEMENTS
from ..errors import GradcliError
from .commands import commands, find


class ReportRows:
    """``task(chunk)``: the input columns of a chunk -> the inputs and each row's report.

    ``bindings`` are the inputs fixed for every row (value text, ``1.00±0.01`` for
    propagate; a file ``@w.npy`` is read once, here); ``arguments`` are the
    analysis's own (``sigmas``, ``order``, ``grads``...).
    """

    #: What the first row teaches the task (``run.computed``): a worker's copy sends it back.
    learns = ("variables", "notes")

    def __init__(
        self,
        command: str,
        source: str,
        bindings: Mapping | None = None,
        *,
        dtype: str = "float64",
        seed: int = 0,
        filename: str = "<expr>",
        max_elements: int = DEFAULT_MAX_ELEMENTS,
        **arguments,
    ):
        from ..core.point_files.task import read_once

        if not _declared_rows(command):
            rows = [name for name, declared in commands().items() if declared.points]
            raise GradcliError(f"{command} gives no rows: use one of {', '.join(rows)}")
        self.command = command
        self.source = source
        with limits.max_elements(max_elements):
            self.bindings = {n: read_once(v, f"--{n}") for n, v in (bindings or {}).items()}
        self.settings = {"dtype": dtype, "seed": seed, "filename": filename}
        self.max_elements = max_elements
        self.max_operations = limits.MaxOperations.value  # for each thread and worker
        #: The options given that wrap the function (a solver's ``--sensitivity``).
        self.wrappers = tuple(
            o.keyword for o in find(command).options if o.wraps and arguments.pop(o.keyword, False)
        )
        self.arguments = arguments
        #: The reports' ``variables()`` (taylor), once a row is computed here.
        self.variables: list[str] | None = None
        #: The inputs the first row left out (check), as notes: the same at every point.
        self.notes: tuple[str, ...] | None = None
        #: A solver's inputs varied, without ``wrt``: those no column binds.
        self.varied: tuple[str, ...] | None = None

    def __call__(self, chunk: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from ..core.point_files.columns import inputs_from_columns

        batch = inputs_from_columns(chunk)
        size = len(next(iter(batch.values()))) if batch else 0
        declared = find(self.command)
        analysis = declared.function
        for option in declared.options:
            if option.keyword in self.wrappers:
                analysis = option.wraps(analysis)
        rows = []
        with limits.max_elements(self.max_elements), limits.max_operations(self.max_operations):
            for i in range(size):
                bound = {**self.bindings, **{n: np.asarray(a[i]) for n, a in batch.items()}}
                try:
                    arguments = self._arguments(bound, batch)
                    report = analysis(self.source, bound, **self.settings, **arguments)
                except GradcliError as error:
                    error.row = i  # the run loop names it in the input: row 3, line 4 of p.csv
                    raise
                if self.variables is None and hasattr(report, "variables"):
                    self.variables = report.variables()
                if self.notes is None:
                    left_out = getattr(report, "left_out", {})
                    self.notes = tuple(note(n, why) for n, why in left_out.items())
                rows.append(report.row())
        return {**batch, **_stacked(rows)}

    def _arguments(self, bound, columns) -> dict:
        """The analysis's arguments; a solver's ``wrt``: the inputs no column binds."""
        if not find(self.command).solves or self.arguments.get("wrt"):
            return self.arguments
        if self.varied is None:  # the same at every row: the program's inputs decide
            inputs = computing.jacobian(self.source, bound, **self.settings).inputs
            self.varied = tuple(n for n in inputs if n not in columns)
        varied = self.varied
        if not varied:
            raise GradcliError(
                f"{self.command}: the columns bind every input ({', '.join(columns)}): "
                "leave the unknowns to the bindings (their starts), or name them with --wrt"
            )
        return {**self.arguments, "wrt": varied}


def _declared_rows(command: str) -> bool:
    """Whether the registry declares ``command`` with rows at many points."""
    declared = find(command)
    return declared is not None and declared.points


def _stacked(rows: list[dict]) -> dict[str, np.ndarray]:
    """The rows' numbers by name, the batch axis first."""
    names = rows[0] if rows else ()
    return {name: np.stack([np.asarray(row[name]) for row in rows]) for name in names}
