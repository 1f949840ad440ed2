"""The robust regression losses and the KL divergence of ``torch.nn.functional``.

``huber_loss`` and ``smooth_l1_loss`` are ops of their own (``HuberLossBackward0``,
``SmoothL1LossBackward0``) whose forward and rules add and multiply in the order
PyTorch's CPU kernels do, so float32 losses and gradients agree to the last bit;
``smooth_l1_loss`` with ``beta=0`` is ``l1_loss``, as in PyTorch. ``kl_div`` is
composed of other ops as PyTorch composes it (``xlogy(t, t) - t * input``, or
``exp(t) * (t - input)`` for a log target), so its graph is PyTorch's. They are
``torch.nn.functional``'s functions only (PyTorch has no ``torch.huber_loss``).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...errors import EngineError, GradcliValueError
from .. import batching_rules as batching
from .. import limits
from ..batched_values import Batched
from ..declared_samples import Sample
from ..optable import Table, over
from .common import batch_of, raw, real_only
from .comparison import where
from .elementwise import exp
from .nn import l1_loss
from .reductions import mean, sum
from .shape import broadcast_to, view_op
from .special import xlogy
from .summation import sum_all

table = Table("losses")
_LOSS = dict(kind="loss", library=False, nn_functional=True)
_REDUCTIONS = ("mean", "sum", "none")
_R = "reduction: 'mean'|'sum'|'none' = 'mean'"


def _legacy(size_average, reduce, reduction):
    """The reduction the deprecated ``size_average`` and ``reduce`` flags stand for."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _checked(reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise GradcliValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduced(losses, reduction):
    if reduction == "none":
        return losses
    total = sum_all(np.asarray(losses))  # as PyTorch adds them, to the last bit
    return total if reduction == "sum" else total / total.dtype.type(np.size(losses))


def _broadcast(input, target):
    shape = np.broadcast_shapes(np.shape(input), np.shape(target))
    return tuple(a if np.shape(a) == shape else broadcast_to(a, shape) for a in (input, target))


def _samples(*own):
    """The reductions and a 0-d pair, then the entry's own samples."""
    every = tuple(Sample(r, [(2, 3), (2, 3)], {"reduction": r}) for r in _REDUCTIONS)
    return every + (Sample("0-d", [(), ()]),) + own


def _grad_and_norm(g, ans, x, reduction):
    """The incoming gradient shaped to broadcast over the elementwise losses, and PyTorch's
    ``norm``: 1/n in the loss's dtype for a mean, else 1."""
    shape = np.shape(x)
    if reduction == "none":
        return g, 1
    g = view_op(g, batch_of(g, ans) + (1,) * len(shape))
    dtype = np.asarray(raw(x)).dtype
    return g, (dtype.type(1 / max(np.prod(shape, dtype=np.int64), 1)) if reduction == "mean" else 1)


# ----- huber_loss: 0.5 z**2 below delta, delta (z - delta / 2) above, z = |x - y| -----


def _huber(input, target, reduction="mean", delta=1.0):
    x, t = np.asarray(input), np.asarray(target)
    dtype = np.result_type(x, t, 1.0)
    z = np.abs(x - t).astype(dtype, copy=False)
    d, half = dtype.type(delta), dtype.type(0.5)
    return np.asarray(_reduced(np.where(z < d, half * z * z, d * (z - half * d)), reduction))


def _huber_rule(g, ans, x, y, reduction="mean", delta=1.0):
    # PyTorch's huber_backward: -norm * g * delta, norm * g * delta, or norm * x * g.
    g, norm = _grad_and_norm(g, ans, x, reduction)
    difference = x - y
    # The gradient first: a NumPy scalar on the left would take a tensor for an array.
    inner = where(difference >= delta, g * norm * delta, difference * norm * g)
    return where(difference <= -delta, g * -norm * delta, inner)


huber_op = table.internal(
    "huber_op", _huber, "(input: Tensor, target: Tensor, reduction: str, delta: float)",
    grad_fn="HuberLossBackward0",
    rules=(_huber_rule, lambda g, ans, x, y, *params: _huber_rule(g, ans, y, x, *params)),
    doc="Huber loss, reduced", kind="loss", size=limits.broadcast_size,
    words=("d huber_loss(a, b)/da = clamp(a - b, -delta, delta)/n",
           "d huber_loss(a, b)/db = -clamp(a - b, -delta, delta)/n"),
           samples=(Sample("mean", [(2, 3), (2, 3)], {"reduction": "mean", "delta": 0.6}),
             Sample("none", [(2, 3), (2, 3)], {"reduction": "none", "delta": 1.0}))
)  # fmt: skip


@table.composite(
    "huber_loss",
    f"(input: Tensor, target: Tensor, {_R}, delta: float = 1.0, weight: Tensor = None)",
    doc="squared error below delta, delta * absolute error above (less weight to outliers)",
    kink="the gradient passes from quadratic to linear at |input - target| = delta",
    domain=("real", "real"), **_LOSS,
    samples=_samples(Sample("delta", [(2, 3), (2, 3)], {"delta": 0.5}),
                     Sample("weight", [(2, 3), (2, 3)], {"weight": np.full((2, 3), 0.5)})),
)  # fmt: skip
def huber_loss(over, input, target, reduction="mean", delta=1.0, weight=None):
    if not delta > 0:
        raise EngineError("huber_loss does not support non-positive values for delta.")
    reduction = _checked(reduction)
    input, target = _broadcast(input, target)
    if weight is None:
        return huber_op(input, target, reduction, delta)
    if np.shape(weight) != np.shape(input):
        raise GradcliValueError("Weights and input must have the same size.")
    weighted = huber_op(input, target, "none", delta) * weight  # as PyTorch weighs it
    if reduction == "none":
        return weighted
    return sum(weighted) if reduction == "sum" else mean(weighted)


# ----- smooth_l1_loss: 0.5 z**2 / beta below beta, z - beta / 2 above -----


def _smooth_l1(input, target, reduction="mean", beta=1.0):
    x, t = np.asarray(input), np.asarray(target)
    dtype = np.result_type(x, t, 1.0)
    z = np.abs(x - t).astype(dtype, copy=False)
    b, half = dtype.type(beta), dtype.type(0.5)
    return np.asarray(_reduced(np.where(z < b, half * z * z / b, z - half * b), reduction))


def _smooth_l1_rule(g, ans, x, y, reduction="mean", beta=1.0):
    # PyTorch's smooth_l1_backward: -norm * g, norm * g, or norm * x * g / beta.
    g, norm = _grad_and_norm(g, ans, x, reduction)
    difference = x - y
    inner = where(difference >= beta, g * norm, difference * norm * g / beta)
    return where(difference <= -beta, g * -norm, inner)


@table.composite(
    "smooth_l1_loss",
    f"(input: Tensor, target: Tensor, size_average: bool = None, reduce: bool = None, {_R}, "
    "beta: float = 1.0)",
    doc="squared error / (2 beta) below beta, absolute error - beta / 2 above",
    kink="the gradient passes from linear to constant at |input - target| = beta; "
    "beta=0 is l1_loss",
    domain=("real", "real"), **_LOSS,
    overloads=[over("SmoothL1LossBackward0", (
        _smooth_l1_rule, lambda g, ans, x, y, *params: _smooth_l1_rule(g, ans, y, x, *params)),
        forward=_smooth_l1, size=limits.broadcast_size)],
    words=("d smooth_l1_loss(a, b)/da = clamp((a - b)/beta, -1, 1)/n",
           "d smooth_l1_loss(a, b)/db = -clamp((a - b)/beta, -1, 1)/n"),
    samples=_samples(Sample("beta", [(2, 3), (2, 3)], {"beta": 0.5}),
                     Sample("beta 0", [(2, 3), (2, 3)], {"beta": 0.0})),
)  # fmt: skip
def smooth_l1_loss(over, input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _checked(_legacy(size_average, reduce, reduction))
    if beta < 0:
        raise EngineError("smooth_l1_loss does not support negative values for beta.")
    input, target = _broadcast(input, target)
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return over["SmoothL1LossBackward0"](input, target, reduction, beta)


# ----- kl_div: target * (log(target) - input), of log-probabilities input -----


def _kl_div_batching(entry, found):
    """kl_div at many points: batchmean divides each point's sum by its first dim."""
    if found.get("reduction", "mean") != "batchmean":
        return batching.loss(entry, found)
    total = batching.loss(entry, dict(found, reduction="sum"))
    x = found["input"]
    shape = x.physical.shape[1:] if type(x) is Batched else np.shape(x)
    return Batched(total.physical / shape[0]) if shape else total


@table.composite(
    "kl_div",
    "(input: Tensor, target: Tensor, size_average: bool = None, reduce: bool = None, "
    "reduction: 'mean'|'batchmean'|'sum'|'none' = 'mean', log_target: bool = False)",
    doc="KL divergence of the distribution target from log-probabilities input "
    "(batchmean: the sum over the batch's size)",
    domain=("real", "positive"), **_LOSS, batching=_kl_div_batching,
    samples=_samples(Sample("batchmean", [(2, 3), (2, 3)], {"reduction": "batchmean"}),
                     Sample("log_target", [(2, 3), (2, 3)], {"log_target": True})),
)  # fmt: skip
def kl_div(over, input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):  # fmt: skip
    real_only("kl_div", input, target)
    reduction = _checked(
        _legacy(size_average, reduce, reduction), ("mean", "batchmean", "sum", "none")
    )
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=3,
        )
    if log_target:
        losses = exp(target) * (target - input)
    else:
        losses = xlogy(target, target) - target * input
    if reduction == "none":
        return losses
    if reduction == "mean":
        return mean(losses)
    total = sum(losses)
    if reduction == "batchmean" and np.ndim(input) != 0:
        return total / np.shape(input)[0]
    return total
