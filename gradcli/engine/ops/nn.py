"""Activations and losses, with PyTorch's parameters (``torch.nn.functional``'s).

Where PyTorch composes a function from other ops (softsign, cross_entropy, a
weighted mse_loss), gradcli composes it the same way, so the graph and its
``grad_fn`` names are the same. Losses take ``reduction`` as ``"mean"`` (the
default), ``"sum"`` or ``"none"``. Class weights and ``pos_weight`` are
constants: no gradient flows to them, and one that requires grad is an error,
as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliValueError, ShapeError
from .. import batching_rules as batching
from .. import float32_kernels as f32
from .. import jet_rules as R
from .. import limits, state
from ..batched_values import Batched
from ..declared_samples import Difference, Drawn, Sample
from ..explain import at_zero
from ..multiprecision import constant
from ..optable import OWN, Table, over
from ..tensor import Tensor
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .arithmetic import neg, pow
from .common import batch_of, raw
from .comparison import masked_fill, where
from .elementwise import (
    abs,
    erf,
    erf_array,
    exp,
    leaky_relu_backward,
    log,
    sigmoid,
    sigmoid_array,
    softplus,
    tanh,
)
from .loss_gradients import bce_backward, class_dim, nll_loss_backward, nll_totals, picked
from .reductions import mean, sum
from .shape import broadcast_to, view_op
from .softmax import log_softmax
from .summation import sum_all

table = Table("nn")
_ACTIVATION = dict(kind="elementwise", function=True, nn_functional=True)
_LOSS = dict(kind="loss", function=True, nn_functional=True)
# torch.nn.functional's forms that also take inplace=, and those also named with a _ there
# (F.elu_). PyTorch records their in-place form under its own node (EluBackward1), whose
# rule reads the result: the entry's overload keyed "inplace".
_IN_PLACE_ACTIVATION = {**_ACTIVATION, "nn_functional": "inplace"}
_IN_PLACE_AND_NAMED = {**_ACTIVATION, "nn_functional": "inplace, name_"}

# ----- activations -----

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_SCALE = math.sqrt(2 / math.pi)  # the tanh approximation of gelu: tanh(k (x + c x**3))
_TANH_CUBIC = 0.044715
# The rules' constants, to every digit at a working precision (--dps).
_sqrt_half = lambda: constant(_SQRT_HALF, lambda m: m.sqrt(0.5))  # noqa: E731
_inv_sqrt_2pi = lambda: constant(_INV_SQRT_2PI, lambda m: 1 / m.sqrt(2 * m.pi))  # noqa: E731
_tanh_scale = lambda: constant(_TANH_SCALE, lambda m: m.sqrt(2 / m.pi))  # noqa: E731
_tanh_cubic = lambda: constant(_TANH_CUBIC, lambda m: m.mpf(forms.GELU_CUBIC))  # noqa: E731


def _gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise EngineError("approximate argument must be either none or tanh.")
    x = np.asarray(input)
    if approximate == "tanh":
        out = 0.5 * x * (1 + np.tanh(_TANH_SCALE * (x + _TANH_CUBIC * x**3)))
    else:
        out = 0.5 * x * (1 + erf_array(x * _SQRT_HALF))
    return np.asarray(out).astype(np.result_type(x, 1.0))


def _gelu_rule(g, ans, x, approximate="none"):
    if approximate == "tanh":
        scale, cubic = _tanh_scale(), _tanh_cubic()
        t = tanh(scale * (x + cubic * x * x * x))
        slope = scale * (1 + 3 * cubic * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * slope)
    return g * (0.5 * (1 + erf(x * _sqrt_half())) + x * exp(-0.5 * x * x) * _inv_sqrt_2pi())


def _silu_rule(g, ans, x):
    s = sigmoid(x)
    return g * s * (1 + x * (1 - s))


def _leaky_relu(input, negative_slope=0.01):
    x = np.asarray(input)
    return np.where(x > 0, x, x * negative_slope).astype(np.result_type(x, 1.0))


def _elu(input, alpha=1.0):
    x = np.asarray(input)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(np.result_type(x, 1.0))


def _elu_rule(g, ans, x, alpha=1.0):
    # At 0 the slope is alpha (the left side's), and its derivative 0; at nan the slope
    # is 1, as in PyTorch (x <= 0 picks the left side). The exponential only of the
    # negative side: exp(inf) or exp(nan) on the side not taken would make the second
    # derivative nan (0 * inf), where it is 0.
    return where(x <= 0, g * alpha * exp(where(x < 0, x, 0.0)), g)


def _leaky_relu_rule(g, ans, x, negative_slope=0.01):
    # An op of its own, as PyTorch's: its derivative in x is 0, not "not in the graph".
    return leaky_relu_backward(g, x, negative_slope)


def _leaky_relu_of_result(g, ans, x, negative_slope=0.01):
    if negative_slope < 0:  # the result's sign no longer tells the side x was on
        raise EngineError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead."
        )
    return leaky_relu_backward(g, ans, negative_slope)  # PyTorch's, of the result


def _elu_of_result(g, ans, x, alpha=1.0):
    # As PyTorch's in-place form: alpha * exp(x) is result + alpha where x <= 0.
    return where(ans <= 0, g * (ans + alpha), g)


# fmt: off
gelu = table.op("gelu", _gelu, "(input: Tensor, *, approximate: 'none'|'tanh' = 'none')",
                grad_fn="GeluBackward0", rules=(_gelu_rule,),
                doc="x * Phi(x), Phi the normal CDF ('tanh': its approximation)",
                symbolic=lambda s, x: x * (1 + s.erf(x / s.sqrt(2))) / 2,
                domain=("real",), **_ACTIVATION,
                words="d gelu(a)/da = Phi(a) + a*phi(a), Phi and phi the normal CDF and density",
                differs=(Difference("second order at +-1e300", "0, the limit of "
                                    "phi(a)*(2 - a**2)", "PyTorch gives nan (a**2 overflows)",
                                    ("scale 1e+300",), ("grad2", "hessian")),), mp=forms.gelu)
silu = table.op("silu", lambda input: np.asarray(input) * sigmoid_array(input),
                grad_fn="SiluBackward0",
                rules=(_silu_rule,), doc="x * sigmoid(x), also called swish", domain=("real",),
                symbolic=lambda s, x: x / (1 + s.exp(-x)),
                other_names=("swish",),
                **_IN_PLACE_ACTIVATION,
                words="d silu(a)/da = sigmoid(a)*(1 + a*(1 - sigmoid(a)))", saves=("self",),
                mp=forms.silu, float32=f32.silu)
leaky_relu = table.op("leaky_relu", _leaky_relu, "(input: Tensor, negative_slope: float = 0.01)",
                      overloads=[over("LeakyReluBackward0", (_leaky_relu_rule,)),
                                 over("LeakyReluBackward1", (_leaky_relu_of_result,),
                                      key="inplace", saves=("result",))],
                      doc="x, or negative_slope * x below 0", kink="gradient negative_slope at 0",
                      symbolic=lambda s, x, slope=0.01: s.Piecewise((x, x > 0), (slope * x, True)),
                      domain=("nonzero",), **_IN_PLACE_AND_NAMED,
                      words="d leaky_relu(a)/da = 1 where a > 0, else negative_slope",
                      kink_at=at_zero, mp=OWN)
elu = table.op("elu", _elu, "(input: Tensor, alpha: float = 1.0)",
               overloads=[over("EluBackward0", (_elu_rule,)),
                          over("EluBackward1", (_elu_of_result,), key="inplace",
                               saves=("result",))],
               doc="x, or alpha * (exp(x) - 1) below 0",
               symbolic=sym.elu,
               kink="gradient alpha at 0, and second derivative 0 there", domain=("nonzero",),
               **_IN_PLACE_AND_NAMED,
               words="d elu(a)/da = 1 where a > 0, else alpha*exp(a)", kink_at=at_zero,
               mp=forms.elu)
# fmt: on


@table.composite(
    "softsign", "(input: Tensor)", doc="x / (1 + |x|)", domain=("nonzero",),
    symbolic=lambda s, x: x / (1 + s.Abs(x)),
    kink="second derivative 0 at 0, where it jumps from 2 to -2", **_ACTIVATION,
    kink_at=at_zero, mp=OWN,
)  # fmt: skip
def softsign(over, input):
    return input / (abs(input) + 1)  # composed as PyTorch does: grad_fn DivBackward0


# ----- losses -----

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(losses, reduction):
    if reduction == "none":
        return losses
    total = sum_all(np.asarray(losses))  # as PyTorch adds them, to the last bit
    return total if reduction == "sum" else total / total.dtype.type(np.size(losses))


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise GradcliValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _spread(g, ans, reduction, shape):
    """The gradient of a reduced loss, brought back to the elementwise losses' ``shape``."""
    if reduction == "none":
        return g
    g = view_op(g, batch_of(g, ans) + (1,) * len(shape))
    return g / math.prod(shape) if reduction == "mean" else g


def _constant(name, argument, function):
    """A weight as an array: it takes no gradient, so one that requires grad is an error."""
    if argument is None:
        return None
    if type(argument) is Tensor and argument.requires_grad and state.is_grad_enabled():
        raise EngineError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True."
        )
    return np.asarray(raw(argument))


def _mse(input, target, reduction="mean"):
    difference = np.subtract(input, target)
    return np.asarray(_reduce(difference * difference, reduction))


def _mse_rule(sign):
    # PyTorch's mse_loss_backward: (norm * (x - y)) * grad, with norm = 2/n as one number
    # rounded to the dtype (not grad/n, then doubled), so float32 gradients agree bit for bit.
    def rule(g, ans, x, y, reduction="mean"):
        difference = x - y if sign > 0 else y - x
        shape = np.shape(difference)
        n = math.prod(shape) if reduction == "mean" else 1
        summed = "none" if reduction == "none" else "sum"
        if difference.dtype == object:  # mpmath's numbers: 2/n at the working precision
            return difference * 2 / n * _spread(g, ans, summed, shape)
        return difference * (2 / n) * _spread(g, ans, summed, shape)

    return rule


mse_op = table.internal(
    "mse_op", _mse, "(input: Tensor, target: Tensor, reduction: str)",
    grad_fn="MseLossBackward0", rules=(_mse_rule(1), _mse_rule(-1)),
    doc="squared error, reduced", kind="loss", promotes=True,
    words=("d mse_loss(a, b)/da = 2*(a - b)/n", "d mse_loss(a, b)/db = -2*(a - b)/n"),
    samples=(Sample("mean", [(2, 3), (2, 3)], {"reduction": "mean"}),
             Sample("sum", [(2, 3), (2, 3)], {"reduction": "sum"}),
             Sample("none", [(2, 3), (2, 3)], {"reduction": "none"})), mp=OWN
)  # fmt: skip


@table.composite(
    "mse_loss",
    "(input: Tensor, target: Tensor, *, reduction: 'mean'|'sum'|'none' = 'mean', "
    "weight: Tensor = None)",
    doc="squared error, averaged by default", domain=("real", "real"), **_LOSS,
    symbolic=lambda s, x, y: np.mean((x - y) ** 2),
    batching=batching.mse_loss, mp=OWN,
)  # fmt: skip
def mse_loss(over, input, target, *, reduction="mean", weight=None):
    reduction = _check_reduction(reduction)
    if weight is None:
        return mse_op(input, target, reduction)
    # As PyTorch composes the weighted form: sum(weight * (x - y)**2) / sum(weight) for mean.
    if np.shape(weight) != np.shape(input):
        raise GradcliValueError("Weights and input must have the same size.")
    shape = np.broadcast_shapes(np.shape(input), np.shape(target))
    x, y = (a if np.shape(a) == shape else broadcast_to(a, shape) for a in (input, target))
    weighted = pow(x - y, 2) * weight
    if reduction == "none":
        return weighted
    return sum(weighted) if reduction == "sum" else sum(weighted) / sum(weight)


@table.composite(
    "l1_loss",
    "(input: Tensor, target: Tensor, *, reduction: 'mean'|'sum'|'none' = 'mean')",
    doc="absolute error, averaged by default", kind="loss", library=False, nn_functional=True,
    kink="gradient 0 where input == target", domain=("real", "real"), mp=OWN,
)  # fmt: skip
def l1_loss(over, input, target, *, reduction="mean"):
    # As PyTorch composes it: |input - target|, then the reduction (MeanBackward0 ...).
    reduction = _check_reduction(reduction)
    if np.shape(input) != np.shape(target):
        shape = np.broadcast_shapes(np.shape(input), np.shape(target))
        input, target = (broadcast_to(a, shape) for a in (input, target))
    losses = abs(input - target)
    if reduction == "none":
        return losses
    return sum(losses) if reduction == "sum" else mean(losses)


def _same_shape(input, target, message):
    if np.shape(input) != np.shape(target):
        raise GradcliValueError(message.format(tuple(np.shape(target)), tuple(np.shape(input))))


_LOG_FLOOR = -100.0  # PyTorch clamps each log at -100, so a loss at 0 or 1 is finite


def _bce(input, target, weight=None, reduction="mean"):
    x, t = np.asarray(input), np.asarray(target)
    if not np.all((x >= 0) & (x <= 1)):  # nan too, as PyTorch's check (x >= 0 && x <= 1)
        raise EngineError("all elements of input should be between 0 and 1")
    log_x = np.maximum(np.log(x), _LOG_FLOOR)
    log_rest = np.maximum(np.log1p(-x), _LOG_FLOOR)
    losses = -(t * log_x + (1 - t) * log_rest)
    if weight is not None:
        losses = losses * weight
    return np.asarray(_reduce(losses, reduction)).astype(np.result_type(x, t, 1.0))


def _bce_input_rule(g, ans, x, t, weight=None, reduction="mean"):
    return bce_backward(g, x, t, weight, reduction)


def _bce_target_rule(g, ans, x, t, weight=None, reduction="mean"):
    grad = _spread(g, ans, reduction, np.shape(x)) * (log(1 - x) - log(x))
    return grad if weight is None else grad * weight


bce_op = table.internal(
    "bce_op", _bce, "(input: Tensor, target: Tensor, weight: Index, reduction: str)",
    grad_fn="BinaryCrossEntropyBackward0", rules=(_bce_input_rule, _bce_target_rule),
    size=limits.broadcast_size,
    doc="binary cross-entropy of probabilities, reduced", kind="loss",
    kink="each log is at least -100, as in PyTorch, so x = 0 or 1 gives a finite loss",
    words=(
        "d binary_cross_entropy(a, b)/da = (a - b)/(a*(1 - a))/n",
        "d binary_cross_entropy(a, b)/db = (log(1 - a) - log(a))/n",
    ), samples=(Sample("mean", [Drawn("probability", (2, 3)), Drawn("probability", (2, 3))],
                    {"weight": None, "reduction": "mean"}),
             Sample("weight", [Drawn("probability", (2, 3)), Drawn("probability", (2, 3))],
                    {"weight": np.array([1.0, 2.0, 0.5]), "reduction": "none"}))
)  # fmt: skip


@table.composite(
    "binary_cross_entropy",
    "(input: Tensor, target: Tensor, weight: Tensor = None, *, "
    "reduction: 'mean'|'sum'|'none' = 'mean')",
    doc="binary cross-entropy -(t log x + (1 - t) log(1 - x)) of probabilities x",
    symbolic=lambda s, x, y: -np.mean(y * sym.each(s.log, x) + (1 - y) * sym.each(s.log, 1 - x)),
    kink="each log is at least -100, as in PyTorch, so x = 0 or 1 gives a finite loss",
    **_LOSS,
)  # fmt: skip
def binary_cross_entropy(over, input, target, weight=None, *, reduction="mean"):
    _same_shape(
        input,
        target,
        "Using a target size ({}) that is different to the input size ({}) is deprecated. "
        "Please ensure they have the same size.",
    )
    weight = _constant("weight", weight, "binary_cross_entropy")
    return bce_op(input, target, weight, _check_reduction(reduction))


def _bce_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    x, t = np.asarray(input), np.asarray(target)
    softplus_of_minus_x = np.logaddexp(0, -x)  # log(1 + exp(-x)) without overflow
    if pos_weight is None:
        losses = (1 - t) * x + softplus_of_minus_x
    else:
        losses = (1 - t) * x + (1 + (pos_weight - 1) * t) * softplus_of_minus_x
    if weight is not None:
        losses = losses * weight
    return np.asarray(_reduce(losses, reduction)).astype(np.result_type(x, t, 1.0))


def _bce_logits_input_rule(g, ans, x, t, weight=None, reduction="mean", pos_weight=None):
    spread = _spread(g, ans, reduction, np.shape(x))
    if pos_weight is None:
        grad = spread * (sigmoid(x) - t)
    else:
        grad = spread * (sigmoid(x) * (pos_weight * t + 1 - t) - pos_weight * t)
    return grad if weight is None else grad * weight


def _bce_logits_target_rule(g, ans, x, t, weight=None, reduction="mean", pos_weight=None):
    spread = _spread(g, ans, reduction, np.shape(x))
    if pos_weight is None:
        grad = -spread * x
    else:  # log_sigmoid(-x) - pos_weight * log_sigmoid(x)
        grad = spread * (pos_weight * softplus(-x) - softplus(x))
    return grad if weight is None else grad * weight


bce_logits_op = table.internal(
    "bce_logits_op", _bce_logits,
    "(input: Tensor, target: Tensor, weight: Index, reduction: str, pos_weight: Index)",
    grad_fn="BinaryCrossEntropyWithLogitsBackward0", size=limits.broadcast_size,
    rules=(_bce_logits_input_rule, _bce_logits_target_rule),
    doc="binary cross-entropy of sigmoid(input), reduced", kind="loss",
    words=(
        "d binary_cross_entropy_with_logits(a, b)/da = (sigmoid(a) - b)/n",
        "d binary_cross_entropy_with_logits(a, b)/db = -a/n",
    ), samples=(Sample("mean", [(2, 3), Drawn("probability", (2, 3))],
                    {"weight": None, "reduction": "mean", "pos_weight": None}),
             Sample("weights", [(2, 3), Drawn("probability", (2, 3))],
                    {"weight": np.array([2.0, 1.0, 0.5]), "reduction": "sum",
                     "pos_weight": np.array([1.0, 3.0, 0.5])}))
)  # fmt: skip


@table.composite(
    "binary_cross_entropy_with_logits",
    "(input: Tensor, target: Tensor, weight: Tensor = None, *, "
    "reduction: 'mean'|'sum'|'none' = 'mean', pos_weight: Tensor = None)",
    doc="binary cross-entropy of sigmoid(input) against target, computed stably",
    symbolic=lambda s, x, y: np.mean((1 - y) * x + sym.each(lambda v: s.log(1 + s.exp(-v)), x)),
    **_LOSS,
)  # fmt: skip
def binary_cross_entropy_with_logits(
    over, input, target, weight=None, *, reduction="mean", pos_weight=None
):
    _same_shape(input, target, "Target size ({}) must be the same as input size ({})")
    function = "binary_cross_entropy_with_logits"
    weight = _constant("weight", weight, function)
    pos_weight = _constant("pos_weight", pos_weight, function)
    return bce_logits_op(input, target, weight, _check_reduction(reduction), pos_weight)


# ----- cross entropy: log_softmax, then nll_loss (class indices) or a sum (probabilities) -----


def _nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    x = np.asarray(input)
    d = class_dim(x)
    index, w = picked(x, target, weight, ignore_index)
    losses = -w * np.squeeze(np.take_along_axis(x, np.expand_dims(index, d), d), d)
    if reduction == "none":
        return losses
    total, total_weight = nll_totals(losses, w, np.asarray(target) != ignore_index)
    return total if reduction == "sum" else np.asarray(total / total_weight)


def _nll_loss_rule(g, ans, x, target, weight=None, ignore_index=-100, reduction="mean"):
    return nll_loss_backward(g, x, target, weight, ignore_index, reduction)


def _check_target(input, target):
    x, t = np.shape(input), np.shape(target)
    expected = x[:1] + x[2:] if len(x) > 1 else ()
    if t != expected:
        raise ShapeError(
            f"cross_entropy: a target of class indices for input of shape {x} has shape "
            f"{expected}, not {t}"
        )
    kind = np.asarray(raw(target)).dtype
    if kind.kind not in "iu":
        raise EngineError(
            f"expected target dtype to be Long or Byte, but got {kind.name.capitalize()}"
        )


@table.composite(
    "nll_loss",
    "(input: Tensor, target: Index, weight: Tensor = None, *, ignore_index: int = -100, "
    "reduction: 'mean'|'sum'|'none' = 'mean')",
    doc="negative log-likelihood: minus the (weighted) input at each target class",
    kind="loss", nn_functional=True,
    batching=batching.cross_entropy,  # the class indices' rule: each point's samples in one batch
    overloads=[
        over("NllLossBackward0", (_nll_loss_rule,), forward=_nll_loss),
        # PyTorch's nll_loss2d: (N, C, H, W); other shapes are viewed as (N, C, 1, rest).
        over("NllLoss2DBackward0", (_nll_loss_rule,), forward=_nll_loss),
    ],
    words="g -> -(the class weight) at each target class, 0 elsewhere",
)  # fmt: skip
def nll_loss(over, input, target, weight=None, *, ignore_index=-100, reduction="mean"):
    _check_target(input, target)
    target = np.asarray(raw(target))
    weight = _constant("weight", weight, "nll_loss_forward")
    reduction = _check_reduction(reduction)
    if np.ndim(input) <= 2:
        return over["NllLossBackward0"](input, target, weight, ignore_index, reduction)
    out = over["NllLoss2DBackward0"](input, target, weight, ignore_index, reduction)
    if reduction == "none" and np.ndim(input) != 4:
        return view_op(out, np.shape(target))  # ViewBackward0, as PyTorch's view
    return out


def _class_weights(weight, ndim, d):
    """The class weights shaped to broadcast along the class dimension ``d``."""
    return weight if ndim == 1 else weight.reshape((1,) * d + (-1,) + (1,) * (ndim - d - 1))


def _class_indices(args: list, kwargs: dict, span) -> tuple[list, dict]:
    """cross_entropy's target as the library takes it from the language, whose numbers are
    floats: a target of another shape than the input holds class indices, as integers."""
    target = args[1] if len(args) > 1 else kwargs.get("target")
    input_ = args[0] if args else kwargs.get("input")  # either may be given by keyword
    batched = type(target) is Batched
    data = np.asarray(target.physical if batched else target)
    if target is None or np.shape(target) == np.shape(input_) or data.dtype.kind != "f":
        return args, kwargs
    if not np.all(data == np.round(data)):
        raise GradcliValueError(
            "cross_entropy: a target of another shape than input holds class indices, "
            "which must be whole numbers",
            span,
        )
    indices = Tensor._make(data.astype(np.int64))
    indices = Batched(indices) if batched else indices
    if len(args) > 1:
        return [args[0], indices, *args[2:]], kwargs
    return args, {**kwargs, "target": indices}


@table.composite(
    "cross_entropy",
    # target: class probabilities (a tensor, differentiated) or class indices (no gradient).
    "(input: Tensor, target: Tensor|Index, weight: Tensor = None, *, ignore_index: int = -100, "
    "reduction: 'mean'|'sum'|'none' = 'mean', label_smoothing: float = 0.0)",
    doc="cross-entropy of logits: against class indices, or class probabilities of input's "
        "shape",
    symbolic="its target is class indices or probabilities by its dtype, which SymPy has not",
    language_args=_class_indices,
    overloads=[over("DivBackward1", (lambda g, ans, x, y: g / y, None), forward=np.true_divide)],
    **_LOSS,
    batching=batching.cross_entropy,
)  # fmt: skip
def cross_entropy(
    over, input, target, weight=None, *, ignore_index=-100, reduction="mean", label_smoothing=0.0
):
    reduction = _check_reduction(reduction)
    weight = _constant("weight", weight, "nll_loss_forward")
    d = class_dim(input)
    n_classes = np.shape(input)[d]
    log_p = log_softmax(input, d)
    target_data = np.asarray(raw(target))
    if target_data.dtype.kind == "f" and np.shape(target) == np.shape(input):
        # As PyTorch's cross_entropy_loss_prob_target, which leaves no entry out.
        if ignore_index >= 0:
            raise EngineError("ignore_index is not supported for floating point target")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        terms = log_p * target
        if weight is not None:
            terms = terms * _class_weights(weight, np.ndim(input), d)
        if reduction == "none":
            return neg(sum(terms, d))
        total = neg(sum(terms))
        if reduction == "sum":
            return total
        return over["DivBackward1"](total, np.size(target_data) / n_classes)
    loss = nll_loss(log_p, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return loss
    # As PyTorch's cross_entropy_loss_label_smoothing.
    terms = log_p if weight is None else log_p * _class_weights(weight, np.ndim(input), d)
    ignored = target_data == ignore_index
    smooth = masked_fill(neg(sum(terms, d)), ignored, 0.0)
    if reduction == "mean":
        _, w = picked(input, target_data, weight, ignore_index)
        smooth = sum(smooth) / float(np.sum(w) if weight is not None else np.sum(~ignored))
    elif reduction == "sum":
        smooth = sum(smooth)
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / n_classes)


# The Taylor series rules (engine/jet.py).
def _gelu_series(b, x, approximate="none"):
    if approximate == "tanh":
        inner = _TANH_SCALE * (x + 0.044715 * R.power(b, x, 3))
        return 0.5 * R.mul(b, x, R.tanh(b, inner) + R.one(b, x))
    cdf = 0.5 * (R.erf(b, x / math.sqrt(2.0)) + R.one(b, x))
    return R.mul(b, x, cdf)


table.series(
    gelu=_gelu_series, silu=lambda b, x: R.mul(b, x, R.sigmoid(b, x)),
    leaky_relu="piecewise_linear",
    elu=lambda b, x, alpha=1.0: R.select(x[0] > 0, x, alpha * R.expm1(b, x)),
)  # fmt: skip
