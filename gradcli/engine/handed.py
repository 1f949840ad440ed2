"""The gradients handed to the user: a leaf's ``.grad`` (and a retained one) as a tensor
of its own dtype owning its memory, taken without a copy where nothing else holds the
array, and, in a pass that creates a graph, copied as PyTorch's AccumulateGrad copies it."""

from __future__ import annotations

import sys

import numpy as np

from . import state
from .ops import conversion, creation, to_dtype
from .tensor import Tensor


def copied_in_graph(leaf, g):
    """``g`` copied into a new tensor of the leaf's layout: a node ``CopyBackwards``."""
    with state.set_grad_enabled(True):  # only called in a pass that creates a graph
        return creation.copy(Tensor._make(np.empty_like(leaf._data)), g)


def cloned_in_graph(g):
    """``g.clone()``: a node ``CloneBackward0``, as PyTorch's hooks that keep a gradient."""
    with state.set_grad_enabled(True):
        return conversion.clone(g)


def finish_grad(g, dtype, create_graph):
    """A gradient as a tensor of its input's dtype, owning its memory: C-contiguous, as
    PyTorch's AccumulateGrad clones one of another layout (a transposed weight's gradient
    kept transposed makes every later pass over it, an optimizer step, cross the memory)."""
    if type(g) is Tensor:
        if g._data.dtype != dtype:
            g = to_dtype(g, dtype)
        return g if create_graph else g.detach()
    if type(g) is np.ndarray and g.ndim == 2 and g.dtype == dtype and g.size >= _TILE * _TILE:
        return Tensor._make(_ccopied_in_graph(g))
    return Tensor._make(np.array(g, dtype=dtype, order="C"))


_TILE = 64  # a 64 x 64 tile of float64 is 32 KiB: both its reads and its writes stay cached


def _ccopied_in_graph(g):
    """A C-contiguous copy of a 2-d array, tile by tile: a transposed array (a weight's
    gradient) copied row by row reads one entry per cache line."""
    if g.flags.c_contiguous:
        return g.copy()
    out = np.empty(g.shape, g.dtype)
    rows, cols = g.shape
    for i in range(0, rows, _TILE):
        for j in range(0, cols, _TILE):
            out[i : i + _TILE, j : j + _TILE] = g[i : i + _TILE, j : j + _TILE]
    return out


def take_grad(entry, dtype, create_graph):
    """The gradient in ``entry`` (a ``[leaf, grad]`` pair) as the leaf's grad; empties the entry.

    An array that owns its memory and that nothing else refers to is taken as
    it is, as PyTorch's AccumulateGrad steals an unshared gradient; any other is
    copied by ``finish_grad`` (two leaves may have been given the same array).
    """
    g = entry[1]
    entry[1] = None
    if type(g) is np.ndarray and g.dtype == dtype and _refcount(g) <= _SOLE_REFS:
        if g.base is None:
            if g.flags.writeable:
                return Tensor._make(g)
        else:
            whole = _whole_base(g)
            if whole is not None:
                return Tensor._make(whole)
    return finish_grad(g, dtype, create_graph)


def _whole_base(g):
    """The array that ``g`` views, where ``g`` is all of it in its own layout and nothing
    else refers to it: a transposed product transposed back (a weight's gradient, computed
    in PyTorch's layout). PyTorch steals such a view; here the array it views is taken."""
    base = g.base
    if (
        type(base) is np.ndarray
        and base.base is None
        and base.flags.writeable
        and base.shape == g.shape
        and base.strides == g.strides
        and base.dtype == g.dtype
        and _refcount(base) <= _SOLE_VIEW_REFS
    ):
        return base
    return None


def _sole_refs():
    # What take_grad counts for an array held by nothing else (interpreters differ).
    entry = [None, np.empty(1)]
    g = entry[1]
    entry[1] = None
    return _refcount(g)


def _sole_view_refs():
    # What _whole_base counts for an array held by one view of it alone (and a name).
    view = np.empty((2, 2)).T.T
    base = view.base
    return _refcount(base)


_refcount = getattr(sys, "getrefcount", lambda _: 1 << 30)  # no refcounts: always copy
_SOLE_REFS = _sole_refs()
_SOLE_VIEW_REFS = _sole_view_refs()
