"""``torch.nn``'s layers with parameters or modes: Linear, Bilinear, Embedding, LayerNorm,
GroupNorm, BatchNorm1d, BatchNorm2d, Dropout, Dropout1d, Dropout2d, Flatten, Unflatten,
Identity; each initialised as PyTorch's from the same generator, and printed as PyTorch
prints it."""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

from ..engine.dtypes import int64
from ..engine.ops.every import LIBRARY
from ..engine.ops.layers import embedding_lookup
from ..engine.state import no_grad
from ..errors import EngineError, GradcliValueError
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "Bilinear", "Dropout", "Dropout1d", "Dropout2d",
           "Embedding", "Flatten", "GroupNorm", "Identity", "LayerNorm", "Linear",
           "Unflatten"]  # fmt: skip

torch = SimpleNamespace(**LIBRARY)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b``; W and b uniform in ±1/sqrt(in_features), as PyTorch's."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.size(1)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")  # fmt: skip


class Bilinear(Module):
    """``y = x1^T A x2 + b``, A and b uniform in ±1/sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        self.weight = Parameter(torch.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        out = input1.unsqueeze(-2).unsqueeze(-1) * self.weight * input2.unsqueeze(-2).unsqueeze(-2)
        out = out.sum((-2, -1))
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")  # fmt: skip


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        dim = self.dim % input.dim()
        shape = (*input.shape[:dim], *self.unflattened_size, *input.shape[dim + 1 :])
        return input.reshape(shape)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise GradcliValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Whole channels zeroed with probability ``p`` (one draw per sample and channel, as
    PyTorch's feature dropout), the rest scaled by 1 / (1 - p)."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            warnings.warn(
                f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
                "deprecated and will result in an error in a future release. To retain the "
                "behavior and silence this warning, please use dropout instead. Note that "
                "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                "or 4D inputs).",
                stacklevel=2,
            )
        # A 3-d input is (N, C, L), as PyTorch still reads it.
        return _feature_dropout(input, self.p, self.training)


class Dropout1d(Dropout):
    def forward(self, input):
        if input.dim() not in (2, 3):
            raise EngineError(
                f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                "spatial dimension, a channel dimension, and an optional batch dimension "
                "(i.e. 2D or 3D inputs)."
            )
        if input.dim() == 2:  # (C, L): one sample
            return _feature_dropout(input.unsqueeze(0), self.p, self.training).squeeze(0)
        return _feature_dropout(input, self.p, self.training)


def _feature_dropout(input, p, training):
    if input.dim() < 2:
        raise EngineError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return input * torch.zeros((), dtype=input.dtype)
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    noise = torch.empty(shape, dtype=input.dtype).bernoulli_(1 - p)
    return input * noise.div_(1 - p)


class Embedding(Module):
    """A table of ``num_embeddings`` vectors, drawn from N(0, 1); ``padding_idx``'s zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(torch.empty((num_embeddings, embedding_dim), dtype=dtype),
                                    requires_grad=not _freeze)  # fmt: skip
            init.normal_(self.weight)
            if padding_idx is not None:
                with no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kwargs):
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx,
                   **kwargs)  # fmt: skip

    def forward(self, input):
        return embedding_lookup(self.weight, input, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        return text


def _affine(module, shape, affine, bias, dtype):
    """A norm's weight (ones) and bias (zeros) of ``shape``, or None where not asked for,
    registered in PyTorch's order."""
    module.register_parameter(
        "weight", Parameter(torch.ones(shape, dtype=dtype)) if affine else None
    )
    with_bias = affine and bias
    module.register_parameter(
        "bias", Parameter(torch.zeros(shape, dtype=dtype)) if with_bias else None
    )


class LayerNorm(Module):
    """Normalised over the last dims: ``(x - mean) / sqrt(var + eps) * weight + bias``."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):  # fmt: skip
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine(self, self.normalized_shape, elementwise_affine, bias, dtype)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        bias = self.bias is not None
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={bias}")  # fmt: skip


class BatchNorm1d(Module):
    """Normalised by the batch's statistics in training (the running ones updated with the
    unbiased variance), by the running ones in evaluation."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):  # fmt: skip
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine(self, num_features, affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise GradcliValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        batch_stats = self.training or self.running_mean is None
        # As PyTorch's: the running statistics are updated only in training.
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input, self.running_mean if track else None, self.running_var if track else None,
            self.weight, self.bias, batch_stats, factor, self.eps,
        )  # fmt: skip

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")  # fmt: skip


class GroupNorm(Module):
    """Normalised over each group of channels of a sample; weight and bias per channel."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):  # fmt: skip
        super().__init__()
        if num_channels % num_groups:
            raise GradcliValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        _affine(self, num_channels, affine, bias, dtype)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")  # fmt: skip


class BatchNorm2d(BatchNorm1d):
    """BatchNorm1d's statistics over the batch and both spatial dims of each channel."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise GradcliValueError(f"expected 4D input (got {input.dim()}D input)")
