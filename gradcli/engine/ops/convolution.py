"""``torch.nn.functional``'s convolutions and poolings: ``conv1d``, ``conv2d``,
``max_pool2d``, ``avg_pool2d``, and the two ops their rules are made of.

Every one reads its input through windows: ``im2col`` lays each output position's window
out as columns (``x`` of shape ``(..., *spatial)`` becomes ``(..., *kernel, *out)``), and
``col2im``, its adjoint, adds columns back where windows overlap. A convolution is a
matrix product of the weight with the columns (``ConvolutionBackward0``, as PyTorch
records every convolution); its input's gradient is the weight's transpose times g put
back by ``col2im`` (a transposed convolution), its weight's the product of g with the
columns (a convolution of the input by g). The rules are written in those ops, so a
second derivative records a graph of its own. ``max_pool2d`` reads each window's first
largest entry, as PyTorch's kernel, and its gradient adds g there; ``avg_pool2d`` is the
columns' sum over a divisor, and its gradient ``col2im`` of g over the divisor.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...errors import EngineError, GradcliError
from ..batched_values import Batched, batch_size, expanded, invoke, logical_ndim, probe
from ..declared_samples import Sample
from ..optable import OWN, Table, over
from ..tensor import Tensor
from .common import LAYER_IN_LANGUAGE as _IN_LANGUAGE
from .common import same_dtypes
from .creation import zero_rule
from .layers import constant_pad_nd
from .products import matmul, transpose_last
from .reductions import sum as sum_
from .shape import reshape, squeeze, unsqueeze

table = Table("convolution")


def _tuple(value, k, name, op="convolution"):
    values = (int(value),) * k if np.ndim(value) == 0 else tuple(int(v) for v in value)
    if len(values) == 1 and k > 1 and op != "convolution":
        values *= k
    if len(values) != k:
        raise EngineError(
            f"expected {name} to be a single integer value or a list of {k} values to match "
            f"the {op} dimensions, but got {name}={list(values)}"
        )
    return values


# ----- windows: im2col and its adjoint -----


def _im2col(x, kernel, stride, padding, dilation, fill=0.0):
    """``(..., *kernel, *out)``: each output position's window of ``x``'s last dims, after
    ``padding`` (a pair (before, after) per dim) of ``fill``."""
    x = np.asarray(x)
    k = len(kernel)
    if any(a or b for a, b in padding):
        widths = [(0, 0)] * (x.ndim - k) + [tuple(p) for p in padding]
        x = np.pad(x, widths, constant_values=fill)
    span = [d * (n - 1) + 1 for n, d in zip(kernel, dilation)]
    view = sliding_window_view(x, span, axis=tuple(range(x.ndim - k, x.ndim)))
    view = view[(Ellipsis, *(slice(None, None, s) for s in stride),
                 *(slice(None, None, d) for d in dilation))]  # fmt: skip
    n = view.ndim
    lead = list(range(n - 2 * k))
    return view.transpose(lead + list(range(n - k, n)) + list(range(n - 2 * k, n - k)))


def _col2im(cols, size, kernel, stride, padding, dilation):
    """The adjoint of ``_im2col``: each column added back where its window read."""
    cols = np.asarray(cols)
    k = len(kernel)
    out = cols.shape[cols.ndim - k :]
    lead = cols.shape[: cols.ndim - 2 * k]
    padded = [n + a + b for n, (a, b) in zip(size, padding)]
    result = np.zeros((*lead, *padded), dtype=cols.dtype)
    # Offsets last to first: each entry receives its windows' columns in the order of their
    # output positions, as PyTorch's pooling gradients add them.
    for offset in reversed(list(np.ndindex(*kernel))):
        window = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                       for o, d, s, m in zip(offset, dilation, stride, out))  # fmt: skip
        result[(Ellipsis, *window)] += cols[(Ellipsis, *offset) + (slice(None),) * k]
    return result[(Ellipsis, *(slice(a, a + n) for n, (a, b) in zip(size, padding)))]


im2col = table.internal(
    "im2col", _im2col, "(input: Tensor, kernel, stride, padding, dilation)",
    grad_fn="Im2ColBackward0",
    rules=(lambda g, ans, x, kernel, stride, padding, dilation: col2im(
        g, np.shape(x)[np.ndim(x) - len(kernel):], kernel, stride, padding, dilation),),
    size=lambda x, kernel, *params: math.prod(np.shape(x)) * math.prod(kernel) * 4,
    doc="each window of the last dims as a column", kind="shape", batching=False, mp=OWN,
    words="g added back where the windows read", complex="holomorphic",
    samples=(Sample("2-d", [(2, 4, 5)], {"kernel": (2, 3), "stride": (1, 2),
                                         "padding": ((1, 1), (0, 1)), "dilation": (1, 1)}),
             Sample("1-d dilated", [(1, 2, 6)], {"kernel": (2,), "stride": (1,),
                                                 "padding": ((1, 1),), "dilation": (2,)})),
)  # fmt: skip
col2im = table.internal(
    "col2im", _col2im, "(input: Tensor, size, kernel, stride, padding, dilation)",
    grad_fn="Col2ImBackward0",
    rules=(lambda g, ans, cols, size, kernel, stride, padding, dilation: im2col(
        g, kernel, stride, padding, dilation),),
    size=lambda cols, size, *params: math.prod(np.shape(cols)[: np.ndim(cols) - 2 * len(size)])
    * math.prod(size),
    doc="columns added back into the windows they were read from", kind="shape",
    batching=False, words="g read through the windows", complex="holomorphic", mp=OWN,
    samples=(Sample("2-d", [(2, 2, 3, 5, 2)], {"size": (4, 5), "kernel": (2, 3),
                                               "stride": (1, 2), "padding": ((1, 1), (0, 1)),
                                               "dilation": (1, 1)}),),
)  # fmt: skip


# ----- convolution -----


def _pairs(padding):
    return tuple((p, p) for p in padding)


def _convolve(input, weight, bias, stride, padding, dilation, groups):
    x, w = np.asarray(input), np.asarray(weight)
    kernel = w.shape[2:]
    cols = _im2col(x, kernel, stride, _pairs(padding), dilation)
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    out = cols.shape[cols.ndim - len(kernel) :]
    cols = cols.reshape(n, groups, c // groups * math.prod(kernel), math.prod(out))
    y = np.matmul(w.reshape(groups, o // groups, -1), cols).reshape(n, o, *out)
    if bias is not None:
        y = y + np.asarray(bias).reshape(o, *(1,) * len(kernel))
    return y


def _grouped_g(g, ans, w, groups):
    """g as ``(*batch, N, groups, O/groups, positions)``."""
    batch = np.shape(g)[: np.ndim(g) - np.ndim(ans)]
    n, o = np.shape(ans)[:2]
    positions = math.prod(np.shape(ans)[2:])
    return batch, reshape(g, (*batch, n, groups, o // groups, positions))


def _input_rule(g, ans, x, w, b, stride, padding, dilation, groups):
    # A transposed convolution: the weight's transpose times g, added back by col2im.
    batch, grouped = _grouped_g(g, ans, w, groups)
    o, cg, *kernel = np.shape(w)
    n, c, *size = np.shape(x)
    w_t = transpose_last(reshape(w, (groups, o // groups, cg * math.prod(kernel))))
    cols = reshape(matmul(w_t, grouped), (*batch, n, c, *kernel, *np.shape(ans)[2:]))
    return col2im(cols, tuple(size), tuple(kernel), stride, _pairs(padding), dilation)


def _weight_rule(g, ans, x, w, b, stride, padding, dilation, groups):
    # A convolution of the input by g: g times the input's columns, summed over the batch.
    batch, grouped = _grouped_g(g, ans, w, groups)
    o, cg, *kernel = np.shape(w)
    n = np.shape(x)[0]
    cols = im2col(x, tuple(kernel), stride, _pairs(padding), dilation)
    cols = reshape(cols, (n, groups, cg * math.prod(kernel), math.prod(np.shape(ans)[2:])))
    return reshape(sum_(matmul(grouped, transpose_last(cols)), -4), (*batch, *np.shape(w)))


def _bias_rule(g, ans, x, w, b, stride, padding, dilation, groups):
    k = np.ndim(ans) - 2
    return sum_(g, (-k - 2, *range(-k, 0)))


convolve = table.internal(
    "convolve", _convolve,
    "(input: Tensor, weight: Tensor, bias: Tensor, stride, padding, dilation, groups)",
    grad_fn="ConvolutionBackward0", rules=(_input_rule, _weight_rule, _bias_rule),
    size=lambda x, w, b, stride, padding, dilation, groups: _conv_size(x, w, stride, padding,
                                                                       dilation),
    doc="a batch's convolution by a weight, plus a bias", kind="other", batching=False,
    complex="holomorphic", mp=OWN,
    words=("d conv/dinput: g -> the transposed convolution of g by the weight",
           "d conv/dweight: g -> the convolution of the input by g",
           "d conv/dbias: g -> g summed over the batch and positions"),
    samples=(Sample("2-d", [(2, 2, 4, 5), (3, 2, 2, 3), (3,)],
                    {"stride": (1, 2), "padding": (1, 0), "dilation": (1, 1), "groups": 1}),),
)  # fmt: skip


def _conv_size(x, w, stride, padding, dilation):
    shape, kernel = np.shape(x), np.shape(w)[2:]
    out = [(n + 2 * p - d * (k - 1) - 1) // s + 1
           for n, k, s, p, d in zip(shape[2:], kernel, stride, padding, dilation)]  # fmt: skip
    return shape[0] * np.shape(w)[0] * math.prod(max(m, 0) for m in out)


def _conv(name, k, input, weight, bias, stride, padding, dilation, groups):
    """PyTorch's checks, then the convolution of a batch (an unbatched input unsqueezed, and
    the result squeezed back, as PyTorch's graph)."""
    ndim = np.ndim(input)
    if ndim not in (k + 1, k + 2):
        raise EngineError(
            f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to {name}, but got "
            f"input of size: [{', '.join(map(str, np.shape(input)))}]"
        )
    if np.ndim(weight) != k + 2:
        raise EngineError(
            f"expected stride to be a single integer value or a list of {np.ndim(weight) - 2} "
            f"values to match the convolution dimensions, but got stride={list(stride)}"
        )
    same_dtypes(input, weight=weight, bias=bias)
    batched = ndim == k + 2
    x = input if batched else unsqueeze(input, 0)
    w_shape = list(np.shape(weight))
    if int(groups) <= 0:
        raise EngineError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise EngineError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise EngineError(f"dilation should be greater than zero, but got {list(dilation)}")
    if w_shape[0] % groups:
        raise EngineError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{w_shape}] instead"
        )
    channels = np.shape(x)[1]
    if channels != w_shape[1] * groups:
        raise EngineError(
            f"Given groups={groups}, weight of size {w_shape}, expected input"
            f"{list(np.shape(x))} to have {w_shape[1] * groups} channels, but got {channels} "
            "channels instead"
        )
    if bias is not None and (np.ndim(bias) != 1 or np.shape(bias)[0] != w_shape[0]):
        raise EngineError(
            f"Given weight of size {w_shape}, expected bias to be 1-dimensional with "
            f"{w_shape[0]} elements, but got bias of size {list(np.shape(bias))} instead"
        )
    if isinstance(padding, str):
        x, padding = _padding_mode(padding, x, w_shape[2:], stride, dilation)
    else:
        padding = _tuple(padding, k, "padding")
        if any(p < 0 for p in padding):
            raise EngineError("negative padding is not supported")
    padded = [n + 2 * p for n, p in zip(np.shape(x)[2:], padding)]
    spans = [d * (n - 1) + 1 for n, d in zip(w_shape[2:], dilation)]
    if any(n < s for n, s in zip(padded, spans)):
        raise EngineError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than "
            "actual input size"
        )
    out = convolve(x, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)
    return out if batched else squeeze(out, 0)


def _padding_mode(mode, x, kernel, stride, dilation):
    """'valid' (none) or 'same' (the output the input's size: PyTorch pads the input's end
    by one more where the total padding is odd)."""
    if mode == "valid":
        return x, (0,) * len(kernel)
    if mode != "same":
        raise EngineError(f"Invalid padding string: '{mode}'")
    if any(s != 1 for s in stride):
        raise EngineError("padding='same' is not supported for strided convolutions")
    totals = [d * (n - 1) for n, d in zip(kernel, dilation)]
    left = [t // 2 for t in totals]
    extra = [t - 2 * p for t, p in zip(totals, left)]
    if any(extra):
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        x = constant_pad_nd(x, pads, 0.0)
    return x, tuple(left)


_CONV = "(input: Tensor, weight: Tensor, bias: Tensor = None, stride: int|int[] = 1, " \
        "padding: int|int[]|str = 0, dilation: int|int[] = 1, groups: int = 1)"  # fmt: skip


@table.composite(
    "conv2d", _CONV, doc="2-d convolution (cross-correlation) of a batch by a weight",
    **_IN_LANGUAGE, batching=lambda entry, found: _conv_batching(entry, found),
    samples=(Sample("2-d", [(2, 2, 4, 5), (3, 2, 2, 3), (3,)]),
             Sample("unbatched", [(2, 4, 5), (3, 2, 2, 3)]),
             Sample("stride padding dilation", [(1, 2, 6, 5), (2, 2, 2, 2), (2,)],
                    {"stride": 2, "padding": (1, 2), "dilation": (2, 1)}),
             Sample("groups", [(1, 4, 4, 4), (6, 2, 3, 2), (6,)], {"groups": 2, "stride": (2, 1)}),
             Sample("same", [(1, 2, 4, 4), (2, 2, 2, 3)], {"padding": "same"}),
             Sample("valid", [(1, 1, 3, 3), (1, 1, 2, 2), (1,)], {"padding": "valid"},
                    keywords=True)),
    complex="holomorphic", mp=OWN,
)  # fmt: skip
def conv2d(over, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _tuple(stride, 2, "stride"), _tuple(dilation, 2, "dilation")
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, int(groups))


@table.composite(
    "conv1d", _CONV, doc="1-d convolution (cross-correlation) of a batch by a weight",
    **_IN_LANGUAGE, batching=lambda entry, found: _conv_batching(entry, found),
    samples=(Sample("1-d", [(2, 2, 6), (3, 2, 3), (3,)]),
             Sample("unbatched", [(2, 5), (3, 2, 2)]),
             Sample("stride padding dilation", [(1, 2, 7), (2, 2, 2), (2,)],
                    {"stride": 2, "padding": 1, "dilation": 2}),
             Sample("groups", [(1, 4, 5), (4, 2, 2)], {"groups": 2}),
             Sample("same", [(1, 2, 5), (2, 2, 4), (2,)], {"padding": "same"})),
    complex="holomorphic", mp=OWN,
)  # fmt: skip
def conv1d(over, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _tuple(stride, 1, "stride"), _tuple(dilation, 1, "dilation")
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, int(groups))


# ----- pooling -----


def _pool_shape(name, x, kernel, stride, padding, dilation, ceil_mode):
    """Each pooled dim's output size, as PyTorch's pooling_output_shape, after its checks."""
    if np.ndim(x) not in (3, 4) or 0 in np.shape(x)[-3:]:
        raise EngineError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if 0 in stride:
        raise EngineError("stride should not be zero")
    if any(k <= 0 for k in kernel):
        raise EngineError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if any(s < 0 for s in stride):
        raise EngineError(
            f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if any(d <= 0 for d in dilation):
        raise EngineError(
            "dilation should be greater than zero, but got dilationH: "
            f"{dilation[0]} dilationW: {dilation[1]}"
        )
    for k, p, d in zip(kernel, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise EngineError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )
    size = np.shape(x)[-2:]
    out = []
    for n, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        m = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (m - 1) * s >= n + p:
            m -= 1  # the last window must start inside the input or its left padding
        out.append(m)
    if any(m < 1 for m in out):
        shape = np.shape(x)
        raise EngineError(
            f"Given input size: ({'x'.join(map(str, shape[-3:]))}). Calculated output size: "
            f"({shape[-3]}x{'x'.join(map(str, out))}). Output size is too small"
        )
    # The right padding that makes every window whole (more than padding with ceil_mode).
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    after = [max(p, (m - 1) * s + span - n - p)
             for n, m, s, p, span in zip(size, out, stride, padding, spans)]  # fmt: skip
    return tuple(out), tuple(zip(padding, after))


def _pool_args(kernel_size, stride, padding, dilation=1):
    kernel = _tuple(kernel_size, 2, "kernel_size", "pooling")
    stride = (
        kernel if stride is None or np.size(stride) == 0 else _tuple(stride, 2, "stride", "pooling")
    )
    return (
        kernel,
        stride,
        _tuple(padding, 2, "padding", "pooling"),
        _tuple(dilation, 2, "dilation", "pooling"),
    )


def _argmax_index(x, kernel, stride, pads, dilation):
    """Each window's first largest entry (its last nan, if any), as a flat index into its
    plane."""
    x = np.asarray(x)
    h, w = x.shape[-2:]
    windows = _im2col(x, kernel, stride, pads, dilation, fill=-np.inf)
    windows = windows.reshape(*windows.shape[:-4], -1, *windows.shape[-2:])
    plane = _im2col(np.arange(h * w).reshape(h, w), kernel, stride, pads, dilation, fill=-1)
    plane = plane.reshape(-1, *plane.shape[-2:])
    picked = np.argmax(windows, axis=-3)
    nans = np.isnan(windows)
    if nans.any():  # PyTorch's kernel moves to every nan it meets: the last one wins
        last = windows.shape[-3] - 1 - np.argmax(nans[..., ::-1, :, :], axis=-3)
        picked = np.where(nans.any(axis=-3), last, picked)
    return np.take_along_axis(plane, picked.reshape(-1, *picked.shape[-2:]), 0).reshape(
        picked.shape
    )


def gather_plane(x, index):
    """``x``'s entries at ``index`` (flat in the last two dims; leading dims broadcast)."""
    x = np.asarray(x)
    flat = x.reshape(*x.shape[:-2], -1)
    picks = index.reshape(*index.shape[:-2], -1)
    lead = np.broadcast_shapes(flat.shape[:-1], picks.shape[:-1])
    found = np.take_along_axis(np.broadcast_to(flat, (*lead, flat.shape[-1])),
                               np.broadcast_to(picks, (*lead, picks.shape[-1])), -1)  # fmt: skip
    return found.reshape(*lead, *index.shape[-2:])


def scatter_plane(g, index, size):
    """The adjoint of ``gather_plane``: g added at ``index`` into zeros of the plane size."""
    g = np.asarray(g)
    lead = g.shape[:-2]
    index = np.broadcast_to(index, g.shape).reshape(-1, g.shape[-2] * g.shape[-1])
    out = np.zeros((index.shape[0], size[0] * size[1]), dtype=g.dtype)
    rows = np.arange(index.shape[0])[:, None]
    np.add.at(out, (rows, index), g.reshape(index.shape))
    return out.reshape(*lead, *size)


def unbatched_index(index, g):
    """The index with leading dims of size 1 for g's batch dims."""
    return index.reshape((1,) * (np.ndim(g) - index.ndim) + index.shape)


# The gradient is an op of its own, as PyTorch's max_pool2d_with_indices_backward: it takes
# x, through which it does not vary (zero_rule), so a second derivative is 0, as PyTorch's.
max_pool_scatter = table.internal(
    "max_pool_scatter",
    lambda g, x, index: scatter_plane(g, index, np.shape(x)[-2:]),
    "(grad_output: Tensor, input: Tensor, index)",
    grad_fn="MaxPool2DWithIndicesBackwardBackward0",
    rules=(lambda gg, ans, g, x, index: max_pool_gather(gg, unbatched_index(index, gg)), zero_rule),
    size=lambda g, x, index: math.prod(np.shape(g)[:-2]) * math.prod(np.shape(x)[-2:]),
    doc="g added at each window's largest entry", kind="shape", batching=False,
    words=("gg read at each window's largest entry", "d/dinput = 0"), saves=False,
    samples=(Sample("2-d", [(2, 2, 2), (2, 3, 3)], {"index": np.array([[[0, 3], [5, 5]]] * 2)}),),
)  # fmt: skip


max_pool_gather = table.internal(
    "max_pool_gather", lambda x, index: gather_plane(x, index),
    "(input: Tensor, index)",
    grad_fn="MaxPool2DWithIndicesBackward0",
    rules=(lambda g, ans, x, index: max_pool_scatter(g, x, unbatched_index(index, g)),),
    size=lambda x, index: math.prod(np.broadcast_shapes(np.shape(x)[:-2], index.shape[:-2]))
    * index.shape[-2] * index.shape[-1],
    doc="each window's largest entry", kind="shape", batching=False,
    words="g added at each window's largest entry",
    samples=(Sample("2-d", [(2, 3, 3)], {"index": np.array([[[0, 3], [5, 5]]] * 2)}),),
)  # fmt: skip


@table.composite(
    "max_pool2d",
    "(input: Tensor, kernel_size: int|int[], stride: int|int[] = None, padding: int|int[] = 0, "
    "dilation: int|int[] = 1, ceil_mode: bool = False, return_indices: bool = False)",
    doc="the largest entry of each window of the last two dims", **_IN_LANGUAGE,
    batching=lambda entry, found: pool_batching(entry, found),
    kink="the gradient goes to each window's first largest entry, as in PyTorch",
    samples=(Sample("2-d", [(2, 2, 4, 5)], {"kernel_size": 2}),
             Sample("unbatched", [(2, 4, 4)], {"kernel_size": (2, 3), "stride": 1}),
             Sample("padding dilation", [(1, 2, 5, 6)],
                    {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": (1, 2)}),
             Sample("ceil mode", [(1, 1, 5, 5)], {"kernel_size": 2, "ceil_mode": True},
                    keywords=True)),
)  # fmt: skip
def max_pool2d(over, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):  # fmt: skip
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation)
    _, pads = _pool_shape("max_pool2d", input, kernel, stride, padding, dilation, ceil_mode)
    x = input._data if type(input) is Tensor else input
    index = _argmax_index(x, kernel, stride, pads, dilation)
    out = max_pool_gather(input, index)
    if return_indices:
        return out, Tensor._make(index.astype(np.int64))
    return out


# ----- average pooling -----


def _divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override):
    """Each output position's divisor, as PyTorch's avg_pool2d: the window's size within the
    padded input, or only its entries inside the input."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    counts = []
    for n, m, k, s, p in zip(size, out, kernel, stride, padding):
        start = np.arange(m) * s - p
        end = np.minimum(start + k, n + p)
        whole = end - start
        inside = np.minimum(end, n) - np.maximum(start, 0)
        counts.append(whole if count_include_pad else inside)
    return np.multiply.outer(counts[0], counts[1]).astype(float)


def _avg_pool(x, kernel, stride, pads, divisor):
    windows = _im2col(x, kernel, stride, pads, (1, 1))
    total = windows[..., 0, 0, :, :].copy()
    for offset in list(np.ndindex(*kernel))[1:]:  # in order, as PyTorch's kernel sums
        total += windows[(Ellipsis, *offset, slice(None), slice(None))]
    return total / np.asarray(divisor).astype(total.dtype)


def _avg_pool_gradient(g, x, kernel, stride, pads, divisor):
    g = np.asarray(g)
    spread = np.broadcast_to((g / np.asarray(divisor).astype(g.dtype))[..., None, None, :, :],
                             (*np.shape(g)[:-2], *kernel, *np.shape(g)[-2:]))  # fmt: skip
    return _col2im(spread, np.shape(x)[-2:], kernel, stride, pads, (1, 1))


_AVG_POOL = over(
    "AvgPool2DBackward0",
    (lambda g, ans, x, *params: avg_pool_backward(g, x, *params),),
    forward=_avg_pool, saves=False,
)  # fmt: skip
# Its gradient, as PyTorch's avg_pool2d_backward, takes x with a zero derivative.
avg_pool_backward = table.internal(
    "avg_pool_backward", _avg_pool_gradient,
    "(grad_output: Tensor, input: Tensor, kernel, stride, pads, divisor)",
    grad_fn="AvgPool2DBackwardBackward0",
    rules=(lambda gg, ans, g, x, *params: _AVG_POOL.fn(gg, *params), zero_rule),
    size=lambda g, x, *params: math.prod(np.shape(g)[:-2]) * math.prod(np.shape(x)[-2:]),
    doc="g over each window's divisor, added back where the windows read", kind="shape",
    batching=False, words=("gg averaged over the windows", "d/dinput = 0"), saves=False,
    samples=(Sample("2-d", [(2, 2, 2), (2, 3, 3)], {"kernel": (2, 2), "stride": (1, 1),
                                                    "pads": ((0, 0), (0, 0)),
                                                    "divisor": np.full((2, 2), 4.0)}),),
)  # fmt: skip


@table.composite(
    "avg_pool2d",
    "(input: Tensor, kernel_size: int|int[], stride: int|int[] = None, padding: int|int[] = 0, "
    "ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int = None)",
    doc="the average of each window of the last two dims", **_IN_LANGUAGE,
    batching=lambda entry, found: pool_batching(entry, found),
    overloads=[_AVG_POOL],
    samples=(Sample("2-d", [(2, 2, 4, 5)], {"kernel_size": 2}),
             Sample("unbatched", [(2, 4, 4)], {"kernel_size": (2, 3), "stride": 1}),
             Sample("padding", [(1, 2, 5, 6)], {"kernel_size": 3, "stride": 2, "padding": 1,
                                                "count_include_pad": False}),
             Sample("ceil mode", [(1, 1, 5, 5)], {"kernel_size": 2, "ceil_mode": True,
                                                  "padding": 1}, keywords=True),
             Sample("divisor", [(1, 1, 4, 4)], {"kernel_size": 3, "divisor_override": 2})),
)  # fmt: skip
def avg_pool2d(over, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):  # fmt: skip
    kernel, stride, padding, _ = _pool_args(kernel_size, stride, padding)
    if divisor_override is not None and int(divisor_override) == 0:
        raise EngineError("divisor must be not zero")
    out, pads = _pool_shape("avg_pool2d", input, kernel, stride, padding, (1, 1), ceil_mode)
    divisor = _divisor(np.shape(input)[-2:], out, kernel, stride, padding, count_include_pad,
                       divisor_override)  # fmt: skip
    return over["AvgPool2DBackward0"](input, kernel, stride, pads, divisor)


# ----- many points (vmap) -----


def _conv_batching(entry, found):
    """A convolution at many points: a varying input's points join its batch; a varying
    weight or bias makes each point a group of its own, as PyTorch's rule."""
    probe(entry, found)  # the single-point errors first
    x, w, b = found["input"], found["weight"], found.get("bias")
    k = 1 if entry.name == "conv1d" else 2
    params = [found.get(n, d) for n, d in (("stride", 1), ("padding", 0), ("dilation", 1))]
    groups = int(found.get("groups", 1))
    if type(w) is not Batched and type(b) is not Batched:
        p = x.physical
        out = entry.call(p.reshape(-1, *p.shape[-k - 1 :]), w, b, *params, groups)
        return Batched(out.reshape(*p.shape[: -k - 1], *out.shape[1:]))
    size = batch_size(found.values())
    unbatched = logical_ndim(x) == k + 1
    xp = expanded(x, size)
    xp = xp.unsqueeze(1) if unbatched else xp
    n, c = xp.shape[1], xp.shape[2]
    xs = xp.movedim(0, 1).reshape(n, size * c, *xp.shape[3:])
    wp = expanded(w, size)
    bp = None if b is None else expanded(b, size).reshape(-1)
    out = entry.call(xs, wp.reshape(-1, *wp.shape[2:]), bp, *params, groups * size)
    out = out.reshape(n, size, -1, *out.shape[2:]).movedim(1, 0)
    return Batched(out.squeeze(1) if unbatched else out)


def pool_batching(entry, found):
    """A pooling at many points: each point's batch joins the points' axis."""
    probe(entry, found)
    p = found["input"].physical
    if any(type(v) is Batched for name, v in found.items() if name != "input"):
        raise GradcliError(f"many-point evaluation of {entry.name} takes only its input varying")
    out = invoke(entry, {**found, "input": p.reshape(-1, *p.shape[-3:])})
    if isinstance(out, tuple):
        return tuple(Batched(o.reshape(*p.shape[:-3], *o.shape[1:])) for o in out)
    return Batched(out.reshape(*p.shape[:-3], *out.shape[1:]))


# The Taylor series rules (engine/jet.py): each is linear in its input.
table.series(im2col="linear", col2im="linear", max_pool_gather="linear",
             max_pool_scatter="linear", avg_pool_backward="linear")  # fmt: skip
