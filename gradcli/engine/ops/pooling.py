"""``torch.nn.functional``'s other poolings: ``max_pool1d`` and ``avg_pool1d``, the adaptive
ones (``adaptive_avg_pool1d``/``2d``, ``adaptive_max_pool1d``/``2d``), recorded as PyTorch
records them.

A 1-d pooling is PyTorch's 2-d one on the input unsqueezed at dim -2, squeezed back
(``SqueezeBackward1`` over ``MaxPool2DWithIndicesBackward0``); an adaptive pooling splits
each of the last two dims into ``out`` windows, window ``i`` from ``floor(i * n / out)`` to
``ceil((i + 1) * n / out)``: the average sums each window and divides by its height, then
its width (``AdaptiveAvgPool2DBackward0``; to one entry, it is the mean,
``MeanBackward1``), the max takes each window's first largest entry (its last nan), as
PyTorch's kernels (``AdaptiveMaxPool2DBackward0``). Their gradients are ops of their own,
linear in g, so a second derivative records PyTorch's node (``...BackwardBackward0``).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError
from ..declared_samples import Sample
from ..optable import Table
from ..tensor import Tensor
from .common import LAYER as _LAYER
from .common import LAYER_IN_LANGUAGE as _IN_LANGUAGE
from .convolution import avg_pool2d, gather_plane, max_pool2d, pool_batching, scatter_plane
from .convolution import unbatched_index as _index_for
from .creation import zero_rule
from .reductions import mean
from .shape import squeeze, unsqueeze

table = Table("pooling")


# ----- 1-d poolings: the 2-d ones over an unsqueezed dim -----


def _one(value, name):
    values = (value,) if np.ndim(value) == 0 else tuple(value)
    if len(values) != 1:
        raise EngineError(f"{name} must be an int or a tuple of one int, but got {list(values)}")
    return int(values[0])


def _check_1d(name, input):
    if np.ndim(input) not in (2, 3) and name != "max_pool1d":
        raise EngineError(
            f"Expected 2 to 3 dimensions, but got {np.ndim(input)}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {name})"
        )
    if np.ndim(input) not in (2, 3):
        raise EngineError(
            f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got:{list(np.shape(input))}"
        )


@table.composite(
    "max_pool1d",
    "(input: Tensor, kernel_size: int|int[], stride: int|int[] = None, padding: int|int[] = 0, "
    "dilation: int|int[] = 1, ceil_mode: bool = False, return_indices: bool = False)",
    doc="the largest entry of each window of the last dim", **_LAYER, batching=False,
    kink="the gradient goes to each window's first largest entry, as in PyTorch",
    samples=(Sample("1-d", [(2, 3, 7)], {"kernel_size": 2}),
             Sample("padding dilation", [(3, 8)], {"kernel_size": 3, "stride": 2, "padding": 1,
                                                   "dilation": 2, "ceil_mode": True})),
)  # fmt: skip
def max_pool1d(over, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):  # fmt: skip
    _check_1d("max_pool1d", input)
    kernel = _one(kernel_size, "kernel_size")
    stride = kernel if stride is None or np.size(stride) == 0 else _one(stride, "stride")
    out = max_pool2d(unsqueeze(input, -2), (1, kernel), (1, stride),
                     (0, _one(padding, "padding")), (1, _one(dilation, "dilation")),
                     ceil_mode, return_indices)  # fmt: skip
    if return_indices:
        return squeeze(out[0], -2), squeeze(out[1], -2)
    return squeeze(out, -2)


@table.composite(
    "avg_pool1d",
    "(input: Tensor, kernel_size: int|int[], stride: int|int[] = None, padding: int|int[] = 0, "
    "ceil_mode: bool = False, count_include_pad: bool = True)",
    doc="the average of each window of the last dim", **_LAYER, batching=False,
    samples=(Sample("1-d", [(2, 3, 7)], {"kernel_size": 2}),
             Sample("padding", [(3, 8)], {"kernel_size": 3, "stride": 2, "padding": 1,
                                          "count_include_pad": False, "ceil_mode": True})),
)  # fmt: skip
def avg_pool1d(over, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):  # fmt: skip
    _check_1d("avg_pool1d", input)
    kernel = _one(kernel_size, "kernel_size")
    stride = kernel if stride is None or np.size(stride) == 0 else _one(stride, "stride")
    out = avg_pool2d(unsqueeze(input, -2), (1, kernel), (1, stride),
                     (0, _one(padding, "padding")), ceil_mode, count_include_pad)  # fmt: skip
    return squeeze(out, -2)


# ----- adaptive windows -----


def _windows(n, out):
    """Each output position's window ``(start, end)`` along a dim of size n."""
    return tuple((i * n // out, -(-(i + 1) * n // out)) for i in range(out))


def _output_size(input, output_size, k, name):
    shape = np.shape(input)
    if k == 1:
        _check_1d(name, input)
    if np.ndim(input) not in (k + 1, k + 2) or 0 in shape[-k - 1 :]:
        colon = ":" if "max" in name else ""
        raise EngineError(
            f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got{colon} {list(shape)}"
        )
    sizes = (output_size,) * k if np.ndim(output_size) == 0 else tuple(output_size)
    if len(sizes) != k:
        raise EngineError(f"{name}: output_size must be {k}")
    return tuple(n if s is None else int(s) for s, n in zip(sizes, shape[-k:]))


def _adaptive_avg(x, rows, cols):
    x = np.asarray(x)
    out = np.empty((*x.shape[:-2], len(rows), len(cols)), dtype=x.dtype)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            window = x[..., h0:h1, w0:w1]
            total = window[..., 0, :].copy()
            for r in range(1, h1 - h0):  # as PyTorch's kernel: row by row, in order
                total += window[..., r, :]
            out[..., i, j] = total.sum(-1) / (h1 - h0) / (w1 - w0)
    return out


def _adaptive_avg_gradient(g, x, rows, cols):
    g = np.asarray(g)
    out = np.zeros((*g.shape[:-2], *np.shape(x)[-2:]), dtype=g.dtype)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            out[..., h0:h1, w0:w1] += (g[..., i, j] / (h1 - h0) / (w1 - w0))[..., None, None]
    return out


_SAMPLE_WINDOWS = {"rows": _windows(5, 3), "cols": _windows(4, 2)}

adaptive_avg = table.internal(
    "adaptive_avg", _adaptive_avg, "(input: Tensor, rows, cols)",
    grad_fn="AdaptiveAvgPool2DBackward0",
    rules=(lambda g, ans, x, rows, cols: adaptive_avg_backward(g, x, rows, cols),),
    size=lambda x, rows, cols: math.prod(np.shape(x)[:-2]) * len(rows) * len(cols),
    doc="the average of each adaptive window of the last two dims", kind="shape",
    batching=False, words="g over each window's size, added back into the window",
    samples=(Sample("2-d", [(2, 5, 4)], _SAMPLE_WINDOWS),), saves=False,
)  # fmt: skip
# Its gradient, as PyTorch's adaptive_avg_pool2d_backward, takes x with a zero derivative.
adaptive_avg_backward = table.internal(
    "adaptive_avg_backward", _adaptive_avg_gradient,
    "(grad_output: Tensor, input: Tensor, rows, cols)",
    grad_fn="AdaptiveAvgPool2DBackwardBackward0",
    rules=(lambda gg, ans, g, x, rows, cols: adaptive_avg(gg, rows, cols), zero_rule),
    size=lambda g, x, *params: math.prod(np.shape(g)[:-2]) * math.prod(np.shape(x)[-2:]),
    doc="g over each window's size, added back into the window", kind="shape",
    batching=False, words=("gg averaged over the windows", "d/dinput = 0"), saves=False,
    samples=(Sample("2-d", [(2, 3, 2), (2, 5, 4)], _SAMPLE_WINDOWS),),
)  # fmt: skip


def _adaptive_argmax(x, rows, cols):
    """Each window's first largest entry (its last nan), as a flat index into its plane."""
    x = np.asarray(x)
    width = x.shape[-1]
    index = np.empty((*x.shape[:-2], len(rows), len(cols)), dtype=np.int64)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            window = x[..., h0:h1, w0:w1].reshape(*x.shape[:-2], -1)
            picked = np.argmax(window, -1)
            nans = np.isnan(window)
            if nans.any():
                last = window.shape[-1] - 1 - np.argmax(nans[..., ::-1], -1)
                picked = np.where(nans.any(-1), last, picked)
            kw = w1 - w0
            index[..., i, j] = (h0 + picked // kw) * width + w0 + picked % kw
    return index


adaptive_max_scatter = table.internal(
    "adaptive_max_scatter",
    lambda g, x, index: scatter_plane(g, index, np.shape(x)[-2:]),
    "(grad_output: Tensor, input: Tensor, index)",
    grad_fn="AdaptiveMaxPool2DBackwardBackward0",
    rules=(lambda gg, ans, g, x, index: adaptive_max_gather(gg, _index_for(index, gg)),
           zero_rule),
    size=lambda g, x, index: math.prod(np.shape(g)[:-2]) * math.prod(np.shape(x)[-2:]),
    doc="g added at each window's largest entry", kind="shape", batching=False,
    words=("gg read at each window's largest entry", "d/dinput = 0"), saves=False,
    samples=(Sample("2-d", [(2, 2, 2), (2, 3, 3)], {"index": np.array([[[0, 4], [6, 8]]] * 2)}),),
)  # fmt: skip
adaptive_max_gather = table.internal(
    "adaptive_max_gather", lambda x, index: gather_plane(x, index), "(input: Tensor, index)",
    grad_fn="AdaptiveMaxPool2DBackward0",
    rules=(lambda g, ans, x, index: adaptive_max_scatter(g, x, _index_for(index, g)),),
    size=lambda x, index: math.prod(np.broadcast_shapes(np.shape(x)[:-2], index.shape[:-2]))
    * index.shape[-2] * index.shape[-1],
    doc="each window's largest entry", kind="shape", batching=False,
    words="g added at each window's largest entry",
    samples=(Sample("2-d", [(2, 3, 3)], {"index": np.array([[[0, 4], [6, 8]]] * 2)}),),
)  # fmt: skip


@table.composite(
    "adaptive_avg_pool2d", "(input: Tensor, output_size: int|int[])",
    doc="the average of each of output_size windows of the last two dims", **_IN_LANGUAGE,
    batching=lambda entry, found: pool_batching(entry, found),
    samples=(Sample("2-d", [(2, 3, 5, 4)], {"output_size": (3, 2)}),
             Sample("unbatched", [(2, 7, 6)], {"output_size": 4}),
             Sample("to one", [(2, 2, 3, 3)], {"output_size": 1})),
)  # fmt: skip
def adaptive_avg_pool2d(over, input, output_size):
    out_h, out_w = _output_size(input, output_size, 2, "adaptive_avg_pool2d")
    if (out_h, out_w) == (1, 1):  # as PyTorch: the mean, MeanBackward1
        return mean(input, (-1, -2), keepdim=True)
    height, width = np.shape(input)[-2:]
    return adaptive_avg(input, _windows(height, out_h), _windows(width, out_w))


@table.composite(
    "adaptive_max_pool2d",
    "(input: Tensor, output_size: int|int[], return_indices: bool = False)",
    doc="the largest entry of each of output_size windows of the last two dims", **_IN_LANGUAGE,
    batching=lambda entry, found: pool_batching(entry, found),
    kink="the gradient goes to each window's first largest entry, as in PyTorch",
    samples=(Sample("2-d", [(2, 3, 5, 4)], {"output_size": (3, 2)}),
             Sample("unbatched", [(2, 7, 6)], {"output_size": 4})),
)  # fmt: skip
def adaptive_max_pool2d(over, input, output_size, return_indices=False):
    out_h, out_w = _output_size(input, output_size, 2, "adaptive_max_pool2d")
    height, width = np.shape(input)[-2:]
    x = input._data if type(input) is Tensor else input
    index = _adaptive_argmax(x, _windows(height, out_h), _windows(width, out_w))
    out = adaptive_max_gather(input, index)
    return (out, Tensor._make(index)) if return_indices else out


@table.composite(
    "adaptive_avg_pool1d", "(input: Tensor, output_size: int|int[])",
    doc="the average of each of output_size windows of the last dim", **_LAYER, batching=False,
    samples=(Sample("1-d", [(2, 3, 7)], {"output_size": 3}),),
)  # fmt: skip
def adaptive_avg_pool1d(over, input, output_size):
    (size,) = _output_size(input, output_size, 1, "adaptive_avg_pool1d")
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, size)), -2)


@table.composite(
    "adaptive_max_pool1d",
    "(input: Tensor, output_size: int|int[], return_indices: bool = False)",
    doc="the largest entry of each of output_size windows of the last dim", **_LAYER,
    batching=False,
    kink="the gradient goes to each window's first largest entry, as in PyTorch",
    samples=(Sample("1-d", [(2, 3, 7)], {"output_size": 3}),),
)  # fmt: skip
def adaptive_max_pool1d(over, input, output_size, return_indices=False):
    (size,) = _output_size(input, output_size, 1, "adaptive_max_pool1d")
    out = adaptive_max_pool2d(unsqueeze(input, -2), (1, size), return_indices)
    if return_indices:
        return squeeze(out[0], -2), squeeze(out[1], -2)
    return squeeze(out, -2)


# The Taylor series rules (engine/jet.py): each is linear in its input.
table.series(adaptive_avg="linear", adaptive_avg_backward="linear",
             adaptive_max_gather="linear", adaptive_max_scatter="linear")  # fmt: skip
