"""The points' values of the calls vmap makes point by point.

A custom Function's generated batching rule, and an op without a batching rule, run at
each point of a level (``batched_tensor.per_point``, as PyTorch's generated rule and its
``BatchedFallback``). Each point's value is a row of the physical tensor: ``Rows`` takes
them all as one node, as PyTorch's ``unbind``, so the gradient is the stack of the rows'
gradients and the tangents are the tangent's rows, each keeping its signed zeros (a row
indexed on its own adds its gradient into zeros: -0.0 + 0.0 is 0.0).
"""

from __future__ import annotations

from ..engine import ops
from ..engine.state import PER_THREAD
from .function import Function

__all__ = ["rows_of"]


class Rows(Function):
    """``x``'s rows along dimension 0, as one node."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return tuple(x[i] for i in range(x.shape[0]))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        return ops.stack(list(grads))

    @staticmethod
    def jvp(ctx, tangent):
        return tuple(tangent[i] for i in range(tangent.shape[0]))


def rows_of(physical):
    """The rows of ``physical``, as one node where forward-mode levels do not nest (a custom
    Function's tangents are taken at one level only), else each indexed."""
    dual = PER_THREAD.forward_ad
    if dual is not None and dual.outer is not None:
        return [physical[i] for i in range(physical.shape[0])]
    rows = Rows.apply(physical)
    return rows if isinstance(rows, tuple) else (rows,)
