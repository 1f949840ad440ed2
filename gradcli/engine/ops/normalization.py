"""``torch.nn.functional``'s normalisations: ``layer_norm``, ``batch_norm`` and
``group_norm``, each one node as PyTorch records it (``NativeLayerNormBackward0``,
``NativeBatchNormBackward0``, ``NativeGroupNormBackward0``).

The three share one computation, ``y = (x - mean) / sqrt(var + eps) * w + b``, and differ in
what they normalise over (``_View``): the last dims (layer), every dim but the channels
(batch), or each group of channels of a sample (group); the weight and bias act per entry
of the last dims (layer) or per channel. With the batch's own statistics the input's
gradient is ``r * (gx - mean(gx) - xhat * mean(gx * xhat))``, ``gx = g * w``, ``r = 1 /
sqrt(var + eps)``; with given statistics (batch_norm in evaluation) it is ``gx * r``. The
rules are written in the table's ops, so a second derivative records a graph of its own.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliValueError
from .. import batching_rules as batching
from ..batched_values import Batched, probe
from ..declared_samples import Sample
from ..optable import Table
from ..state import no_grad
from ..tensor import Tensor
from .arithmetic import add as _add
from .arithmetic import mul as _mul
from .common import LAYER as _LAYER
from .common import LAYER_IN_LANGUAGE as _IN_LANGUAGE
from .reductions import mean
from .reductions import sum as sum_
from .shape import reshape

table = Table("normalization")


class _View:
    """Where a normalisation takes its statistics and applies its weight.

    ``kind`` is "layer" (``k`` last dims), "batch" (every dim but 1) or "group" (``k``
    groups of channels per sample); ``stats`` the given mean and variance, or None."""

    def __init__(self, kind, k, stats=None):
        self.kind, self.k, self.stats = kind, k, stats

    def __eq__(self, other):
        return type(other) is _View and (self.kind, self.k) == (other.kind, other.k)

    def __hash__(self):
        return hash((self.kind, self.k))

    def __repr__(self):
        return f"{self.kind}({self.k})"

    def grouped(self, x, shape):
        """x (with any leading batch dims) in the shape its statistics are taken over."""
        if self.kind != "group":
            return x
        lead = np.shape(x)[: np.ndim(x) - len(shape)]
        return reshape(x, (*lead, shape[0], self.k, -1))

    def ungrouped(self, x, shape):
        if self.kind != "group":
            return x
        return reshape(x, (*np.shape(x)[: np.ndim(x) - 3], *shape))

    def stat_axes(self, ndim):
        """The axes (negative) of the grouped view that the statistics reduce."""
        if self.kind == "layer":
            return tuple(range(-self.k, 0))
        if self.kind == "batch":
            return (-ndim, *range(-ndim + 2, 0))
        return (-1,)

    def affine(self, w, ndim):
        """The weight or bias shaped to act on x."""
        if self.kind == "layer":
            return w
        return reshape(w, (-1, *(1,) * (ndim - 2)))

    def affine_axes(self, ndim):
        """The axes (negative) of x that the weight's gradient sums over."""
        if self.kind == "layer":
            return tuple(range(-ndim, -self.k))
        return (-ndim, *range(-ndim + 2, 0))


def _statistics(x, view, shape):
    """``(xhat, r)`` in the grouped view: the normalised input and 1/sqrt(var + eps)."""
    xg = view.grouped(x, shape)
    ndim = len(shape)
    if view.stats is not None:
        stat_shape = (-1, *(1,) * (ndim - 2))
        mu, var = reshape(view.stats[0], stat_shape), reshape(view.stats[1], stat_shape)
    else:
        axes = view.stat_axes(ndim)
        mu = mean(xg, axes, keepdim=True)
        centred = xg - mu
        var = mean(centred * centred, axes, keepdim=True)
    return xg - mu, var


def _forward(x, weight, bias, view, eps):
    shape = np.shape(x)
    centred, var = _statistics(np.asarray(x), view, shape)
    out = view.ungrouped(centred * (1 / np.sqrt(var + eps)), shape)
    if weight is not None:
        out = out * view.affine(np.asarray(weight), len(shape))
    if bias is not None:
        out = out + view.affine(np.asarray(bias), len(shape))
    return out


def _xhat(x, view, eps):
    shape = np.shape(x)
    centred, var = _statistics(x, view, shape)
    r = (var + eps) ** -0.5
    return centred * r, r


def _input_rule(g, ans, x, w, b, view, eps):
    shape = np.shape(x)
    gx = g if w is None else g * view.affine(w, len(shape))
    xhat, r = _xhat(x, view, eps)
    gx = view.grouped(gx, shape)
    if view.stats is not None:
        return view.ungrouped(gx * r, shape)
    axes = view.stat_axes(len(shape))
    out = (gx - mean(gx, axes, keepdim=True) - xhat * mean(gx * xhat, axes, keepdim=True)) * r
    return view.ungrouped(out, shape)


def _summed(g, w, view, ndim):
    axes = view.affine_axes(ndim)
    total = sum_(g, axes) if axes else g  # none: an input of the weight's shape (sum's () is all)
    return reshape(total, (*np.shape(total)[: np.ndim(total) - np.ndim(w)], *np.shape(w)))


def _weight_rule(g, ans, x, w, b, view, eps):
    shape = np.shape(x)
    xhat, _ = _xhat(x, view, eps)
    return _summed(g * view.ungrouped(xhat, shape), w, view, len(shape))


def _bias_rule(g, ans, x, w, b, view, eps):
    return _summed(g, b, view, np.ndim(x))


def _native(name, grad_fn, samples):
    return table.internal(
        name, _forward, "(input: Tensor, weight: Tensor, bias: Tensor, view, eps)",
        grad_fn=grad_fn, rules=(_input_rule, _weight_rule, _bias_rule),
        size=lambda x, *rest: math.prod(np.shape(x)),
        doc="(x - mean) / sqrt(var + eps) * weight + bias", kind="other", batching=False,
        words=("d norm/dinput: g -> r * (gx - mean(gx) - xhat * mean(gx * xhat))",
               "d norm/dweight: g -> sum(g * xhat)", "d norm/dbias: g -> sum(g)"),
        samples=samples,
    )  # fmt: skip


native_layer_norm = _native(
    "layer_normalized", "NativeLayerNormBackward0",
    (Sample("last dim", [(3, 4), (4,), (4,)], {"view": _View("layer", 1), "eps": 1e-5}),
     Sample("last dims", [(2, 3, 2), (3, 2), (3, 2)], {"view": _View("layer", 2), "eps": 0.1})),
)  # fmt: skip
native_batch_norm = _native(
    "batch_normalized", "NativeBatchNormBackward0",
    (Sample("batch", [(4, 3), (3,), (3,)], {"view": _View("batch", 0), "eps": 1e-5}),
     Sample("batch 3-d", [(3, 2, 4), (2,), (2,)], {"view": _View("batch", 0), "eps": 0.1}),
     Sample("running", [(3, 2, 2), (2,), (2,)],
            {"view": _View("batch", 0, (np.array([0.5, -1.0]), np.array([2.0, 0.7]))),
             "eps": 1e-5})),
)  # fmt: skip
native_group_norm = _native(
    "group_normalized", "NativeGroupNormBackward0",
    (Sample("groups", [(2, 4, 3), (4,), (4,)], {"view": _View("group", 2), "eps": 1e-5}),),
)  # fmt: skip


def _shape_text(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def _layer_norm_batching(entry, found):
    """layer_norm at many points: the points' axis leads, the normalised dims trail; a
    weight or bias that varies scales and shifts each point's normalised input."""
    probe(entry, found)  # the single-point errors first
    x, w, b = found["input"], found.get("weight"), found.get("bias")
    shape, eps = found["normalized_shape"], found.get("eps", 1e-05)
    if type(w) is not Batched and type(b) is not Batched:
        return Batched(entry.call(x.physical, shape, w, b, eps))  # PyTorch's one node
    out = entry.call(x.physical if type(x) is Batched else x, shape, None, None, eps)
    out = Batched(out) if type(x) is Batched else out
    out = out if w is None else batching.call(_mul.op, out, w)
    return out if b is None else batching.call(_add.op, out, b)


@table.composite(
    "layer_norm",
    "(input: Tensor, normalized_shape: int[], weight: Tensor = None, bias: Tensor = None, "
    "eps: float = 1e-05)",
    doc="normalised over the last dims, then scaled and shifted", **_IN_LANGUAGE,
    batching=_layer_norm_batching,
    samples=(Sample("last dim", [(3, 4)], {"normalized_shape": (4,)}),
             Sample("last dims", [(2, 3, 2)], {"normalized_shape": (3, 2), "eps": 0.1})),

)  # fmt: skip
def layer_norm(over, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    normalized = (int(normalized_shape),) if np.ndim(normalized_shape) == 0 else tuple(
        int(n) for n in normalized_shape)  # fmt: skip
    shape = tuple(np.shape(input))
    k = len(normalized)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(np.shape(t)) != normalized:
            raise EngineError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {_shape_text(np.shape(t))} and normalized_shape = {_shape_text(normalized)}"
            )
    if k == 0 or shape[len(shape) - k :] != normalized or len(shape) < k:
        raise EngineError(
            f"Given normalized_shape={_shape_text(normalized)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized))}], but got input of size{_shape_text(shape)}"
        )
    return native_layer_norm(input, weight, bias, _View("layer", k), float(eps))


@table.composite(
    "group_norm",
    "(input: Tensor, num_groups: int, weight: Tensor = None, bias: Tensor = None, "
    "eps: float = 1e-05)",
    doc="normalised over each group of channels of a sample, then scaled and shifted",
    **_LAYER, batching=False,
    samples=(Sample("groups", [(2, 4, 3)], {"num_groups": 2}),),

)  # fmt: skip
def group_norm(over, input, num_groups, weight=None, bias=None, eps=1e-05):
    shape = tuple(np.shape(input))
    if len(shape) < 2:
        raise EngineError(
            f"Expected at least 2 dimensions for input tensor but received {len(shape)}"
        )
    channels, groups = shape[1], int(num_groups)
    if groups <= 0 or channels % groups:
        raise EngineError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {_shape_text(shape)} and num_groups={groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (np.ndim(t) != 1 or np.shape(t)[0] != channels):
            raise EngineError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {_shape_text(np.shape(t))} and input of shape "
                f"{_shape_text(shape)}"
            )
    return native_group_norm(input, weight, bias, _View("group", groups), float(eps))


@table.composite(
    "batch_norm",
    "(input: Tensor, running_mean, running_var, weight: Tensor = None, bias: Tensor = None, "
    "training: bool = False, momentum: float = 0.1, eps: float = 1e-05)",
    doc="normalised over the batch per channel (or by running statistics), then scaled and "
    "shifted", **_LAYER, batching=False,
    samples=(Sample("training", [(4, 3)], {"running_mean": None, "running_var": None,
                                           "training": True}),),

)  # fmt: skip
def batch_norm(over, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):  # fmt: skip
    shape = tuple(np.shape(input))
    if len(shape) < 2:
        raise EngineError(f"Expected 2 or more dimensional input (got {len(shape)}D input)")
    channels = shape[1]
    if training:
        count = math.prod(shape) // channels
        if count == 1:
            raise GradcliValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"torch.Size({list(shape)})"
            )
        out = native_batch_norm(input, weight, bias, _View("batch", 0), float(eps))
        if running_mean is not None or running_var is not None:
            _update_running(input, running_mean, running_var, momentum, count)
        return out
    if running_mean is None or running_var is None:
        raise EngineError("running_mean and running_var must be defined in evaluation mode")
    stats = (_raw(running_mean), _raw(running_var))
    return native_batch_norm(input, weight, bias, _View("batch", 0, stats), float(eps))


def _raw(t):
    return np.asarray(t._data if type(t) is Tensor else t)


def _update_running(input, running_mean, running_var, momentum, count):
    """PyTorch's update of the running statistics, in place: the batch's mean and unbiased
    variance, weighted by momentum."""
    x = _raw(input)
    axes = (0, *range(2, x.ndim))
    mu = mean(x, axes)
    centred = x - reshape(mu, (-1, *(1,) * (x.ndim - 2)))
    var = mean(centred * centred, axes)
    with no_grad():
        for running, value in ((running_mean, mu), (running_var, var * (count / (count - 1)))):
            if running is not None:
                running.mul_(1 - momentum).add_(Tensor._make(value * momentum))
