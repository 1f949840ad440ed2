"""``out=``: an op's result written into a given tensor, as PyTorch writes it.

Every public function of the table passes a call with ``out=`` here (``applying``
and ``optable``'s composites), so the rules live in one place: the entries that
declare it (``Op.takes_out``: the elementwise, binary and reduction ones, the
matrix products) take it, the rest say out= is not supported. With grad mode
on, an argument (``out`` included) that requires grad is PyTorch's error;
otherwise the result is computed, cast to out's dtype where PyTorch can cast
it, and copied into ``out``, which is returned (its version bumped). An ``out``
of another shape is resized: silently when it has no elements, else with
PyTorch's deprecation warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import EngineError, GradcliTypeError, NotImplementedByGradcli
from . import dtypes, state
from .tensor import Tensor

__all__ = ["with_out"]

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does "
    "not match the required output shape {new}. This behavior is deprecated, and in a "
    "future PyTorch release outputs will not be resized unless they have zero elements. You "
    "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)"
)


def _requires_grad(values) -> bool:
    for v in values:
        if isinstance(v, Tensor) and v.requires_grad:
            return True
        if type(v) in (list, tuple) and _requires_grad(v):
            return True
    return False


def _can_cast(source, target) -> bool:
    """PyTorch's canCast: no float to an integer, nothing but bool to bool."""
    if source.kind == "f" and target.kind in "iub":
        return False
    return not (target.kind == "b" and source.kind != "b")


def with_out(entry, call, args, kwargs):
    """``call(*args, **kwargs)`` with kwargs' ``out`` taken out and written as PyTorch does."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out")
    name = entry.name
    if out is None:
        return call(*args, **kwargs)
    if not entry.takes_out:
        raise NotImplementedByGradcli(
            f"{name}(): out= is not supported by gradcli: use the result it returns "
            f"(y = {name}(...)), or y.copy_(...) to write it into a tensor"
        )
    if type(out) is not Tensor:
        raise GradcliTypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if state.PER_THREAD.grad_enabled and _requires_grad((*args, *kwargs.values(), out)):
        raise EngineError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    result = call(*args, **kwargs)
    if type(result) is not Tensor:
        raise NotImplementedByGradcli(
            f"{name}(): out= for a result that is not one tensor is not implemented in gradcli"
        )
    data, target = result._data, out._data.dtype
    if not _can_cast(data.dtype, target):
        raise EngineError(
            f"result type {dtypes.scalar_name(data.dtype)} can't be cast to the desired "
            f"output type {dtypes.scalar_name(target)}"
        )
    if out._data.shape != data.shape:
        if out._data.size:
            old, new = list(out._data.shape), list(data.shape)
            warnings.warn(_RESIZED.format(old=old, new=new), UserWarning, stacklevel=3)
        out._data = np.empty(data.shape, dtype=target)
    np.copyto(out._data, data, casting="unsafe")
    out._counter()[0] += 1
    return out
