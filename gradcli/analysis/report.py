"""What every analysis report shares."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


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
