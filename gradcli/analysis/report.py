"""What every analysis report shares."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .commands import Flagged


class Report:
    """A report's ``as_tree()`` is its JSON object; ``finite`` says whether every
    number in it is finite (``--strict``)."""

    command: str = ""
    warnings: tuple[str, ...] = ()
    #: The layout of ``--format table`` that draws it (``render.using_tables.LAYOUTS``,
    #: ``render.reports``); by default its command's, else a row per line of plain.
    layout: str = ""

    def as_tree(self) -> dict:
        raise NotImplementedError

    def row(self) -> dict:
        """The report's numbers (and texts) at its point, for one row of a many-point
        run: flat names, as plain output names them (``shares.x``), leaving out what
        is the same at every point or is the point itself."""
        raise NotImplementedError(f"{self.command} gives no rows of many points")

    @property
    def finite(self) -> bool:
        return all(_finite(node) for node in _leaves(self.as_tree()))


def convergence(command: str):
    """The exit status of a solver's report (``Command.exit_status``): 0 when it
    converged, else 1 and the error that says so (minimize: its first-order test's
    verdict, then SciPy's message, which says how the method stopped)."""

    def status(report) -> int | tuple[int, str]:
        if report.converged:
            return 0
        why = getattr(report, "first_order", None)
        said = report.message if why is None else f"{why}; SciPy: {report.message}"
        return 1, f"{command} did not converge ({said}); the last iterate is shown"

    return status


def unconverged(command: str) -> Flagged:
    """The rows of a solver's many-point run that did not converge (``converged``
    false): the run names them and exits 1, as at one point."""
    return Flagged(
        lambda rows: ~np.asarray(rows["converged"], dtype=bool),
        f"error: {command} did not converge at {{count}} of {{rows}} points (converged false): "
        "{listed}",
        status=1,
    )


def tree_with_sensitivity(tree: dict, sensitivity: Mapping | None) -> dict:
    """A report's tree, with its ``sensitivity`` section last when it has one."""
    if sensitivity is not None:
        tree["sensitivity"] = {x: dict(by) for x, by in sensitivity.items()}
    return tree


def flat(tree: Mapping, prefix: str = "") -> dict:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``: a report's tree by plain output's names."""
    found = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            found.update(flat(value, f"{name}."))
        else:
            found[name] = value
    return found


def _leaves(node):
    if isinstance(node, Mapping):
        for value in node.values():
            yield from _leaves(value)
    elif isinstance(node, (list, tuple)) and any(isinstance(n, (Mapping, str)) for n in node):
        for value in node:
            yield from _leaves(value)
    else:
        yield node


def _finite(node) -> bool:
    if node is None or isinstance(node, (str, bool)):
        return True
    array = np.asarray(node)
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())


def frozen(array) -> np.ndarray:
    """A read-only copy of ``array``."""
    array = np.array(array)
    array.flags.writeable = False
    return array
