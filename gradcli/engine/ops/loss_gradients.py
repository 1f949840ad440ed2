"""The gradients of losses as ops of their own, as PyTorch's ``*_backward`` kernels: a
differentiable reverse pass records them under PyTorch's names
(``NllLossBackwardBackward0``) and takes PyTorch's double-backward formulas for their
rules, eps and clamps included, rather than differentiating the first-order formula.

Each takes the loss's cotangent ``g`` first; ``g`` may carry batch dimensions in front of
the loss's shape (a Jacobian's rows), and so may the cotangent ``gg`` of their own rules.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import GradcliIndexError
from ..declared_samples import Drawn, Sample
from ..optable import Table, over
from .creation import zero_rule
from .elementwise import clamp
from .indexing import put_along_dim, take_along_dim
from .reductions import sum

table = Table("loss_gradients")


def _spread(g, x, reduction):
    """The loss's cotangent brought to the elementwise losses' shape (``x``'s), over
    their number for a mean."""
    if reduction == "none":
        return g
    g = g.reshape(tuple(np.shape(g)) + (1,) * np.ndim(x))
    return g / math.prod(np.shape(x)) if reduction == "mean" else g


def _gathered(terms, x, reduction):
    """Elementwise terms of ``x``'s shape (behind any batch dimensions) summed back to the
    loss's shape: the adjoint of ``_spread``."""
    if reduction == "mean":
        terms = terms / math.prod(np.shape(x))
    if reduction == "none" or not np.ndim(x):
        return terms
    return sum(terms, list(range(-np.ndim(x), 0)))


# ----- binary_cross_entropy: PyTorch's binary_cross_entropy_backward -----

_SLOPE_FLOOR = float(np.float32(1e-12))  # PyTorch's floor for x (1 - x) in the gradient
_EPS = 1e-12  # and its eps in the double backward (a double)


def _weighted(value, weight):
    return value if weight is None else value * weight


def _bce_backward(g, x, t, weight=None, reduction="mean"):
    g = _spread(np.asarray(g), x, reduction)
    return _weighted(g * (x - t) / np.maximum((1 - x) * x, _SLOPE_FLOOR), weight)


def _bce_backward_grad_output(gg, ans, g, x, t, weight=None, reduction="mean"):
    # binary_cross_entropy_double_backward_grad_output: no floor, eps on each factor.
    return _gathered(_weighted(gg * (x - t) / ((x + _EPS) * (1 - x + _EPS)), weight), x, reduction)


def _bce_backward_input(gg, ans, g, x, t, weight=None, reduction="mean"):
    # binary_cross_entropy_double_backward: d/dx (x - t)/(x (1 - x)), with eps in the square.
    slope = (x * x - 2 * x * t + t) / ((x + _EPS) ** 2 * (1 - x + _EPS) ** 2)
    return _weighted(slope * gg * _spread(g, x, reduction), weight)


def _bce_backward_target(gg, ans, g, x, t, weight=None, reduction="mean"):
    # binary_cross_entropy_double_backward_target: the floor of x (1 - x) at a double 1e-12.
    floor = clamp((1 - x) * x, min=_EPS)
    return _weighted(-gg * _spread(g, x, reduction) / floor, weight)


def _bce_backward_size(g, x, t, weight=None, reduction="mean"):
    loss_ndim = np.ndim(x) if reduction == "none" else 0
    return math.prod(np.shape(g)[: np.ndim(g) - loss_ndim]) * np.size(x)  # g's batch times x


bce_backward = table.internal(
    "bce_backward", _bce_backward,
    "(grad_output: Tensor, input: Tensor, target: Tensor, weight: Index, reduction: str)",
    grad_fn="BinaryCrossEntropyBackwardBackward0",
    rules=(_bce_backward_grad_output, _bce_backward_input, _bce_backward_target),
    size=_bce_backward_size, kind="loss",
    doc="g * (x - t) / max(x (1 - x), 1e-12): the gradient of binary_cross_entropy",
    words=("d/dg = (a - t)/((a + eps)(1 - a + eps))",
           "d/da = g*(a**2 - 2*a*t + t)/((a + eps)**2 (1 - a + eps)**2)",
           "d/dt = -g/max(a (1 - a), eps)"),
           samples=(Sample("mean", [(), Drawn("probability", (2, 3)), Drawn("probability", (2, 3))],
                    {"weight": None, "reduction": "mean"}),)
)  # fmt: skip


# ----- nll_loss: PyTorch's nll_loss_backward -----


def class_dim(x):
    """The dimension of the classes: 0 of a vector, else 1."""
    return 0 if np.ndim(x) == 1 else 1


def picked(input, target, weight, ignore_index):
    """For each target entry: the class index to pick (0 where ignored), and its weight
    (0 where ignored)."""
    x, t = np.asarray(input), np.asarray(target)
    n_classes = x.shape[class_dim(x)]
    valid = t != ignore_index
    index = np.where(valid, t, 0)
    out_of_range = index[(index < 0) | (index >= n_classes)]
    if out_of_range.size:
        raise GradcliIndexError(f"Target {out_of_range.flat[0]} is out of bounds.")
    w = np.ones(n_classes, dtype=x.dtype) if weight is None else np.asarray(weight, x.dtype)
    return index, np.where(valid, w[index], 0)


def nll_totals(losses, w, kept):
    """The sums of the kept ``losses`` and of their weights ``w`` (each flattened in the
    target's order), added as PyTorch's nll_loss kernels add them: into the first of 8
    partial sums, which joins the next at every index that is a multiple of 16, that one
    the next at every multiple of 256, and so on (the first index joins them all); an
    ignored index adds nothing and joins nothing; then the partial sums in order."""
    losses, w, kept = (np.ravel(a) for a in (losses, w, kept))
    if losses.size > _CASCADED_UP_TO or losses.dtype not in (np.float32, np.float64):
        return np.sum(losses), np.sum(w)  # NumPy's order: a Python loop would be too slow
    real = losses.dtype.type
    if losses.size and kept.all():  # every index joins: the levels' runs, array by array
        loss, weight = _levels(losses, real), _levels(w, real)
        return _joined(loss, real), _joined(weight, real)
    loss, weight = [real(0)] * 8, [real(0)] * 8
    for b in np.flatnonzero(kept).tolist():
        loss[0] = real(loss[0] + losses[b])
        weight[0] = real(weight[0] + w[b])
        for j in range(7):
            if b & (15 << (4 * j)):
                break
            loss[j + 1], loss[j] = real(loss[j + 1] + loss[j]), real(0)
            weight[j + 1], weight[j] = real(weight[j + 1] + weight[j]), real(0)
    total_loss, total_weight = real(0), real(0)
    for level in range(8):
        total_loss, total_weight = (
            real(total_loss + loss[level]),
            real(total_weight + weight[level]),
        )
    return np.asarray(total_loss), np.asarray(total_weight)


_CASCADED_UP_TO = 1 << 16


def _levels(entries, real):
    """nll_totals' 8 partial sums when every index is kept, each level's runs summed as
    arrays: a level holds its inputs' sum from zero in order, and passes it up (starting
    again from zero) after its first input and after every 16th one since; the last
    level keeps all it gets."""
    levels = []
    inputs = entries
    for _ in range(7):
        if len(inputs) == 1:  # it passes through the levels left, each left at zero
            levels += [real(0)] * (7 - len(levels))
            break
        whole = (len(inputs) - 1) // 16  # runs of 16 after the first input
        runs = inputs[1 : 1 + 16 * whole].reshape(whole, 16)
        rest = inputs[1 + 16 * whole :]
        levels.append(_from_zero(rest, real))
        passed = np.empty(1 + whole, inputs.dtype)
        passed[0] = inputs[0] + real(0)
        # accumulate adds along a row in order, unlike add.reduce's pairwise sums; from
        # the first entry rather than zero, it differs only in a zero's sign, made + by 0.
        passed[1:] = np.add.accumulate(runs, axis=1)[:, -1] + real(0) if whole else ()
        inputs = passed
    levels.append(_from_zero(inputs, real))
    return levels


def _from_zero(entries, real):
    """The entries added from zero in order."""
    if not len(entries):
        return real(0)
    return real(np.add.accumulate(entries)[-1] + real(0))


def _joined(levels, real):
    total = real(0)
    for level in levels:
        total = real(total + level)
    return np.asarray(total)


def _mean_weights(w, target, ignore_index):
    """The weights of a mean: each kept target's over their sum, 0 where ignored (PyTorch's
    backward writes the kept ones alone: all ignored, the gradient is 0, not 0/0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.asarray(target) != ignore_index, w / np.sum(w), 0)


def _nll_loss_backward(g, x, target, weight=None, ignore_index=-100, reduction="mean"):
    d = class_dim(x) - np.ndim(x)
    index, w = picked(x, target, weight, ignore_index)
    g = np.asarray(g)
    if reduction != "none":
        g = g.reshape(g.shape + (1,) * np.ndim(index))
        if reduction == "mean":
            w = _mean_weights(w, target, ignore_index)
    return put_along_dim(np.expand_dims(-g * w, d), np.expand_dims(index, d), d, np.shape(x))


def _nll_loss_backward_rule(gg, ans, g, x, target, weight, ignore_index, reduction):
    # The gradient is linear in g: its adjoint is nll_loss of gg (PyTorch's rule).
    d = class_dim(x) - np.ndim(x)
    index, w = picked(x, target, weight, ignore_index)
    if reduction == "mean":
        w = _mean_weights(w, target, ignore_index)
    out = take_along_dim(gg, np.expand_dims(index, d), d, False) * -w
    if reduction == "none" or not np.ndim(index):
        return out
    return sum(out, list(range(-np.ndim(index), 0)))


def _nll_loss_backward_size(g, x, target, weight=None, ignore_index=-100, reduction="mean"):
    loss_ndim = np.ndim(target) if reduction == "none" else 0
    return math.prod(np.shape(g)[: np.ndim(g) - loss_ndim]) * np.size(x)  # g's batch times x


# It depends on the input only through the targets, with derivative 0 there (zero_rule, not
# None): the second derivative is 0, as PyTorch's.
_NLL_BACKWARD = dict(
    rules=(_nll_loss_backward_rule, zero_rule),
    forward=_nll_loss_backward,
    size=_nll_loss_backward_size,
)
nll_loss_backward = table.internal(
    "nll_loss_backward",
    None,
    "(grad_output: Tensor, input: Tensor, target: Index, weight: Tensor = None, "
    "ignore_index: int = -100, reduction: 'mean'|'sum'|'none' = 'mean')",
    overloads=[
        over("NllLossBackwardBackward0", when=lambda g, x, *a: np.ndim(x) <= 2, **_NLL_BACKWARD),
        over("NllLoss2DBackwardBackward0", **_NLL_BACKWARD),
    ],
    doc="the gradient of nll_loss: -g times the class weight at each target class",
    kind="loss",
    words=("d/dg = -(the class weight) at each target class", "d/dinput = 0"),
    samples=(
        Sample(
            "mean",
            [(), (3, 4)],
            {
                "target": np.array([2, 0, 2]),
                "weight": None,
                "ignore_index": -100,
                "reduction": "mean",
            },
        ),
    ),
)
