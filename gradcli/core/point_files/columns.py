"""Flat columns and input arrays: ``x``, ``v[0]``, ``v[1]``, ``W[0,1]`` on one side,
arrays with the batch axis first on the other.

A column's name is the name plain output gives a number: an array's name alone
for a scalar, else the name followed by the element's index (``grad.v[0]``,
``jacobian.x[1,0]``), row-major.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import numpy as np

from ...errors import GradcliError

_NAME = re.compile(r"\s*([^\W\d][\w.]*)\s*(?:\[\s*(\d+(?:\s*,\s*\d+)*)\s*\])?\s*$")


def parse_column(name: str) -> tuple[str, tuple[int, ...]]:
    """``"W[0, 1]"`` -> ``("W", (0, 1))``; ``"x"`` -> ``("x", ())``."""
    found = _NAME.match(name)
    if found is None:
        raise GradcliError(
            f"column {name!r} is not an input's name (x) or one element of it (v[0], W[0,1])"
        )
    base, index = found.groups()
    return base, tuple(int(i) for i in index.split(",")) if index else ()


def column_name(base: str, index: Iterable[int]) -> str:
    """``("W", (0, 1))`` -> ``"W[0,1]"``; no index -> the name alone."""
    index = tuple(index)
    return f"{base}[{','.join(map(str, index))}]" if index else base


def inputs_from_columns(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Input arrays, batch axis first, from flat columns (``x``, ``v[0]``, ``W[0,1]``).

    The elements of an input must all be there, each once: ``v[0]`` and ``v[2]``
    without ``v[1]`` is an error. A column without an index passes through as it is
    (an ``.npz`` array of shape ``(B, 3)`` is a vector input already).
    """
    groups: dict[str, dict[tuple[int, ...], np.ndarray]] = {}
    for name, column in columns.items():
        base, index = parse_column(name)
        elements = groups.setdefault(base, {})
        if index in elements or (elements and (index == ()) != (() in elements)):
            raise GradcliError(f"input {base} is given twice: by {_listed(base, elements, name)}")
        if elements and index and len(index) != len(next(iter(elements))):
            raise GradcliError(f"columns of {base} disagree on its dimensions: {name}")
        elements[index] = np.asarray(column)
    return {base: _assembled(base, elements) for base, elements in groups.items()}


def _listed(base: str, elements, name: str) -> str:
    return ", ".join(dict.fromkeys([*(column_name(base, i) for i in elements), name]))


def _assembled(base: str, elements: dict[tuple[int, ...], np.ndarray]) -> np.ndarray:
    if () in elements:
        return elements[()]
    indices = np.array(list(elements))
    shape = tuple(int(n) for n in indices.max(axis=0) + 1)
    if len(elements) != int(np.prod(shape)):
        missing = next(i for i in np.ndindex(shape) if i not in elements)
        raise GradcliError(
            f"input {base} has elements up to {column_name(base, [n - 1 for n in shape])}"
            f" but no column {column_name(base, missing)}"
        )
    first = next(iter(elements.values()))
    array = np.empty((len(first), *shape), dtype=np.result_type(*elements.values()))
    for index, column in elements.items():
        array[(slice(None), *index)] = column
    return array


def columns_from_arrays(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Flat 1-D columns from arrays with the batch axis first: ``grad.v`` of shape
    ``(B, 2)`` gives ``grad.v[0]`` and ``grad.v[1]``."""
    columns: dict[str, np.ndarray] = {}
    for name, array in arrays.items():
        array = np.asarray(array)
        if array.ndim <= 1:
            columns[name] = array
            continue
        for index in np.ndindex(array.shape[1:]):
            columns[column_name(name, index)] = array[(slice(None), *index)]
    return columns
