"""``torch.nn.Parameter``: a leaf tensor that requires grad and that a module registers."""

from __future__ import annotations

from ..engine.tensor import Tensor

__all__ = ["Parameter"]


class _ParameterType(type):
    """The class of ``Parameter``: calling it makes a leaf that requires grad and prints as
    ``Parameter containing:``; ``isinstance`` asks for such a leaf."""

    def __call__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor([])
        parameter = data.detach()  # as PyTorch: shares data's memory, a leaf of its own
        parameter.requires_grad_(requires_grad)
        parameter._parameter = True
        return parameter

    def __instancecheck__(cls, obj):
        return type(obj) is Tensor and obj._is_parameter()

    def __repr__(cls):
        return "<class 'torch.nn.parameter.Parameter'>"


class Parameter(metaclass=_ParameterType):
    """``torch.nn.Parameter(data, requires_grad=True)``: a leaf tensor that requires grad."""
