"""``torch.nn``, as far as autograd goes: ``Parameter`` and ``functional``.

Modules and optimisers (``nn.Module``, ``nn.Linear``, ``optim.SGD``) are not part
of gradcli: asking for one is an error that says so and what to write instead.
"""

from __future__ import annotations

from ..engine.tensor import Tensor
from ..errors import NotImplementedByGradcli
from . import functional as functional

OUT_OF_SCOPE = (
    "gradcli computes gradients of tensors and has no {what} ({name}): write the model with "
    "tensors that require grad (x @ W.T + b) and update them by hand under torch.no_grad()"
)


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


def __getattr__(name):
    if name[:1].isupper() or name in ("init", "modules", "utils", "parallel"):
        what = "neural network modules" if name[:1].isupper() else "torch.nn helpers"
        raise NotImplementedByGradcli(OUT_OF_SCOPE.format(what=what, name=f"torch.nn.{name}"))
    raise AttributeError(f"module 'gradcli.nn' has no attribute '{name}'")
