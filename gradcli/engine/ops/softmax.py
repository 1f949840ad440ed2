"""Softmax and log-softmax along a dimension, and softmax's gradient as an op of its own."""

from __future__ import annotations

import numpy as np

from ...errors import NotImplementedByGradcli
from .. import batching_rules as batching
from .. import dtypes
from ..declared_samples import Drawn, Sample
from ..optable import OWN, Table, form
from . import language_forms as lf
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .common import axis, contiguous, dims, one_dim
from .elementwise import exp
from .reductions import sum

table = Table("softmax")
_REDUCTION = dict(kind="reduction", method=True, function=True)


def _softmax_input(name, x, dim):
    """``x`` as an array, refused as PyTorch refuses a softmax of integers (its kernel's name)."""
    one_dim(name, dim)
    x = np.asarray(x)
    if x.dtype.kind not in "fc":
        last = x.ndim == 0 or dims(dim, x.ndim) == (-1,)
        raise NotImplementedByGradcli(
            f'"{name}{"_lastdim" if last else ""}_kernel_impl" not implemented for '
            f"'{dtypes.scalar_name(x.dtype)}'"
        )
    return x


@contiguous
def _softmax(x, dim):
    x = _softmax_input("softmax", x, dim)
    ax = axis(dim, x.ndim)
    # initial: an empty dim has no largest entry (NumPy's ValueError); PyTorch gives empty.
    shifted = np.exp(x - np.amax(x, axis=ax, keepdims=True, initial=-np.inf))
    return shifted / np.sum(shifted, axis=ax, keepdims=True)


@contiguous
def _log_softmax(x, dim):
    x = _softmax_input("log_softmax", x, dim)
    ax = axis(dim, x.ndim)
    shifted = x - np.amax(x, axis=ax, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.sum(np.exp(shifted), axis=ax, keepdims=True))


def _sum_dim(t, dim, y):
    """``t`` summed along softmax's ``dim`` of its output ``y``, the dim kept. The axis is
    negative, so a batched ``t`` keeps its leading dims; a 0-d ``y`` has no dim to sum
    (``sum(t, ())`` would sum every dim, the batch's too), so ``t`` stays as it is."""
    axes = dims(dim, np.ndim(y))
    return sum(t, axes, keepdim=True) if axes else t


def _softmax_backward_data(g, y, dim):
    return y * (g - _sum_dim(g * y, dim, y))


def _softmax_backward_data_rule_y(gg, ans, g, y, dim):
    return gg * (g - _sum_dim(g * y, dim, y)) - _sum_dim(gg * y, dim, y) * g


# softmax's gradient as an op of its own (PyTorch's _softmax_backward_data): a
# differentiable reverse pass records it as SoftmaxBackwardDataBackward0. Its Jacobian in
# g is symmetric, so its rule for g is itself.
softmax_backward_data = table.internal(
    "softmax_backward_data",
    _softmax_backward_data,
    "(grad_output: Tensor, output: Tensor, dim: int)",
    grad_fn="SoftmaxBackwardDataBackward0",
    rules=(
        lambda gg, ans, g, y, dim: softmax_backward_data(gg, y, dim),
        _softmax_backward_data_rule_y,
    ),
    doc="s * (g - sum(g * s)): the gradient of softmax from its output",
    kind="reduction",
    words=("d/dg = diag(s) - s s^T", "d/ds = g - sum(g*s) - sum(gg*s) g"),
    samples=(Sample("dim 1", [(2, 3), Drawn("probability", (2, 3))], {"dim": 1}),),
    mp=OWN,
)


def _softmax_rule(g, ans, x, dim):
    return softmax_backward_data(g, ans, dim)


def _log_softmax_backward_data(g, y, dim):
    return g - exp(y) * _sum_dim(g, dim, y)


# log_softmax's gradient as an op (PyTorch's _log_softmax_backward_data), with PyTorch's
# formulas for its own rules: recorded as LogSoftmaxBackwardDataBackward0.
log_softmax_backward_data = table.internal(
    "log_softmax_backward_data",
    _log_softmax_backward_data,
    "(grad_output: Tensor, output: Tensor, dim: int)",
    grad_fn="LogSoftmaxBackwardDataBackward0",
    rules=(
        lambda gg, ans, g, y, dim: gg - _sum_dim(gg * exp(y), dim, y),
        lambda gg, ans, g, y, dim: -_sum_dim(g, dim, y) * exp(y) * gg,
    ),
    doc="g - exp(y) * sum(g): the gradient of log_softmax from its output",
    kind="reduction",
    words=("d/dg = I - exp(y) 1^T", "d/dy = -sum(g)*exp(y)"),
    samples=(Sample("dim 1", [(2, 3), (2, 3)], {"dim": 1}),),
    mp=OWN,
)


def _log_softmax_rule(g, ans, x, dim):
    return log_softmax_backward_data(g, ans, dim)


# fmt: off
softmax = table.op("softmax", _softmax, "(input: Tensor, dim: int)", grad_fn="SoftmaxBackward0",
                   rules=(_softmax_rule,), doc="exp(x) / sum(exp(x)) along dim",
                   symbolic=sym.softmax,
                   language_form=form(lf.ALONG_LAST, "exp(x) / sum(exp(x)) along dim (the last "
                                      "without one)", lf.along_last),
                   nn_functional="implicit dim", **_REDUCTION, batching=batching.along,
                   words="g -> s*(g - sum(g*s)), s = softmax(a)", saves=("dim", "result"),
                   samples=(Sample("1-d", [(3,)], {"dim": 0}),), mp=forms.softmax)
log_softmax = table.op("log_softmax", _log_softmax, "(input: Tensor, dim: int)",
                       grad_fn="LogSoftmaxBackward0", rules=(_log_softmax_rule,),
                       doc="log of softmax, stably", nn_functional="implicit dim", **_REDUCTION,
                       symbolic=sym.log_softmax,
                       language_form=form(lf.ALONG_LAST, "log of softmax along dim (the last "
                                          "without one), stably", lf.along_last),
                       batching=batching.along,
                       words="g -> g - softmax(a)*sum(g)", saves=("dim", "result"),
                       mp=forms.log_softmax)
# fmt: on
