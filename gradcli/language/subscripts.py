"""Subscripts and integer arguments as the evaluator reads them: an index or a
dimension checked to be an integer, the shape an element assignment fits, and
the caret of an indexing error moved onto the subscript that caused it."""

from __future__ import annotations

import re

import numpy as np

from ..engine.tensor import Tensor
from ..errors import GradcliError, GradcliIndexError, GradcliTypeError, ShapeError, Span
from . import ir
from .printing import to_source


def fitted_shape(value, target: Tensor, key, node: ir.IndexAssign, span: Span):
    """The shape of ``value`` without the leading axes of length 1 that ``target[key]``
    lacks (PyTorch and NumPy drop them); raise unless it broadcasts to ``target[key]``.
    None when the key itself is wrong: the assignment reports that."""
    try:  # a view of zero bytes gives the selected shape without copying
        selected = np.broadcast_to(np.zeros((), np.int8), target.shape)[key].shape
    except (IndexError, TypeError, ValueError):
        return None
    shape = np.shape(value)
    while len(shape) > len(selected) and shape[0] == 1:  # as PyTorch and NumPy allow
        shape = shape[1:]
    try:
        fits = np.broadcast_shapes(shape, selected) == selected
    except ValueError:
        fits = False
    if not fits:
        subscripts = ", ".join(to_source(s) for s in node.subscripts)
        raise ShapeError(
            f"cannot assign a value of shape {tuple(np.shape(value))} to {node.name}[{subscripts}],"
            f" of shape {selected}",
            span,
        )
    return shape


def blame_subscript(err: GradcliError, subscripts, key) -> GradcliError:
    """Move the caret of an indexing error onto the subscript that caused it."""
    found = re.search(r"for dimension (\d+)", err.message)
    if found:
        axis = int(found[1])
    else:
        found = re.search(r"array is (\d+)-dimensional", err.message)
        if not found:
            return err
        axis = int(found[1])  # the first subscript too many
    keys = key if isinstance(key, tuple) else (key,)
    first = 0
    for subscript, item in zip(subscripts, keys):
        width = item.ndim if isinstance(item, np.ndarray) and item.dtype == bool else 1
        if first <= axis < first + width:
            err.span = subscript.span
            break
        first += width
    return err


def checked_integer(value, what: str, span: Span) -> int:
    array = np.asarray(value)
    if array.ndim != 0:
        raise GradcliTypeError(f"{what} must be a single integer, not shape {array.shape}", span)
    number = array.item()
    if isinstance(number, bool) or not float(number).is_integer():
        raise GradcliTypeError(f"{what} must be an integer, not {number}", span)
    if abs(number) >= 2**63:
        raise GradcliIndexError(f"{what} {number:g} is out of range", span)
    return int(number)


def checked_integer_list(value: Tensor, what: str, span: Span) -> tuple[int, ...]:
    array = np.asarray(value)
    if array.ndim > 1:
        raise GradcliTypeError(
            f"{what} must be an integer or a list of integers, not shape {array.shape}",
            span,
        )
    return tuple(checked_integers(array, what, span).tolist())


def checked_integers(array: np.ndarray, what: str, span: Span) -> np.ndarray:
    if array.dtype.kind in "iub":  # integers, or a boolean mask
        return array
    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        raise GradcliTypeError(f"{what} must hold integers", span)
    return array.astype(np.int64)


def subscripts_span(subscripts, fallback: Span) -> Span:
    if not subscripts:
        return fallback
    first, last = subscripts[0].span, subscripts[-1].span
    return Span(first.line, first.column, last.end_line, last.end_column)
