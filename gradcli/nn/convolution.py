"""``torch.nn``'s convolution and pooling layers: Conv1d, Conv2d, MaxPool1d/2d, AvgPool1d/2d,
the adaptive poolings;
a convolution's weight and bias drawn as PyTorch's from the same generator, and each
printed as PyTorch prints it."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ..engine.ops.every import LIBRARY
from ..errors import GradcliValueError
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool1d", "AvgPool2d", "Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d"]  # fmt: skip

torch = SimpleNamespace(**LIBRARY)
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, k):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * k


class _ConvNd(Module):
    """A convolution of ``k`` spatial dims: weight (out, in/groups, *kernel_size), bias."""

    k = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        if groups <= 0:
            raise GradcliValueError("groups must be a positive integer")
        if in_channels % groups:
            raise GradcliValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise GradcliValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise GradcliValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and any(s != 1 for s in _ntuple(stride, self.k)):
                raise GradcliValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise GradcliValueError(
                f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        k = self.k
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _ntuple(kernel_size, k), _ntuple(stride, k)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, k)
        self.dilation, self.groups = _ntuple(dilation, k), groups
        self.transposed, self.output_padding = False, (0,) * k
        self.padding_mode = padding_mode
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(torch.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # PyTorch's: kaiming_uniform_ with a = sqrt(5), a bias uniform in ±1/sqrt(fan_in).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.size(1) * math.prod(self.kernel_size)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input, weight, bias):
        conv = F.conv1d if self.k == 1 else F.conv2d
        if self.padding_mode != "zeros":
            if isinstance(self.padding, str):
                raise GradcliValueError(
                    "gradcli takes padding_mode other than 'zeros' with numeric padding only"
                )
            pad = [p for p in reversed(self.padding) for _ in range(2)]
            input = F.pad(input, pad, mode=self.padding_mode)
            return conv(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")  # fmt: skip
        padding = self.padding
        if isinstance(padding, str) or padding != (0,) * len(padding):
            text += f", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    k = 1


class Conv2d(_ConvNd):
    k = 2


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        pool = F.max_pool1d if self.k == 1 else F.max_pool2d
        return pool(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices,
        )  # fmt: skip

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")  # fmt: skip


class MaxPool1d(_MaxPoolNd):
    k = 1


class MaxPool2d(_MaxPoolNd):
    k = 2


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):  # fmt: skip
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        if self.returns_indices:
            self.return_indices = return_indices

    returns_indices = False

    def forward(self, input):
        pool = getattr(F, self.function)
        if self.returns_indices:
            return pool(input, self.output_size, self.return_indices)
        return pool(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    function = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptivePool):
    function = "adaptive_avg_pool2d"


class AdaptiveMaxPool1d(_AdaptivePool):
    function, returns_indices = "adaptive_max_pool1d", True


class AdaptiveMaxPool2d(_AdaptivePool):
    function, returns_indices = "adaptive_max_pool2d", True


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
