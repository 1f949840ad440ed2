"""The calls the entries' language forms share (``Op.language_form``, see ``optable``):
where the language means what a calculator means rather than what the library (PyTorch)
means. Each ``adapt(entry, args, kwargs, given)`` gives the call made of the language's
arguments, ``given`` each one's ``(parameter, value, span)``."""

from __future__ import annotations

import math

from ...errors import GradcliTypeError
from .. import batching_rules as batching
from ..tensor import Tensor
from .creation import tensor

#: max and min as the language takes them: ``max(a, b)`` is always elementwise (``max(x, 0)``
#: is ReLU), and a reduction along a dimension names it, ``max(x, dim=0)``, giving the values.
EXTREME = "(input: Tensor, other: Tensor = None, *, dim: int = None, keepdim: bool = False)"
#: softmax(x) and log_softmax(x): along the last dimension without a dim.
ALONG_LAST = "(input: Tensor, dim: int = -1)"
#: log(x, base): the logarithm to a base.
WITH_BASE = "(input: Tensor, base: Tensor|Number = None)"


def extreme(entry, args, kwargs, given):
    """Two operands are elementwise: ``max(x, other=y)`` in the library's terms (a tensor,
    so a number is never read as a dim); one is the reduction."""
    if len(args) < 2 and "other" not in kwargs:
        return entry.call, args, kwargs
    other = args[1] if len(args) > 1 else kwargs.pop("other")
    for param, _, span in given:
        if param in ("dim", "keepdim"):
            raise GradcliTypeError(
                f"{entry.name}(a, b) is elementwise and takes no {param}: along a dimension,"
                f" write {entry.name}(x, dim=0)",
                span,
            )
    if isinstance(other, (int, float)):
        other = tensor(float(other))  # a number of the default dtype, as every number
    return entry.call, [args[0]], {"other": other}


def along_last(entry, args, kwargs, given):
    if len(args) < 2 and "dim" not in kwargs:
        kwargs["dim"] = -1
    return entry.call, args, kwargs


def with_base(entry, args, kwargs, given):
    """``log(x, base)`` divides by log(base); ``log(x)`` is the natural logarithm."""
    base = args[1] if len(args) > 1 else kwargs.pop("base", None)
    if base is None:
        return entry.call, args[:1], kwargs
    return _logarithm(entry), [args[0], base], kwargs


def _logarithm(entry):
    @batching.takes_batched
    def log_base(x, base):
        # A number base stays a Python float: a float32 x keeps its dtype.
        if isinstance(base, (int, float)):
            denominator = math.log(base)
        else:
            denominator = batching.call(entry, base)
        # The entry of ``/`` (installed on Tensor from the table: its module stands on this one).
        divide = Tensor.__truediv__.op
        return batching.call(divide, batching.call(entry, x), denominator)

    return log_base
