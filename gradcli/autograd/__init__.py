"""``gradcli.autograd``: as ``torch.autograd``."""

import functools
import importlib

from ..engine import backward as _backward
from ..engine import ops
from ..engine.backward import backward
from ..engine.state import enable_grad, no_grad, set_grad_enabled
from ..engine.tensor import Tensor

# Imported eagerly (it needs nothing beyond the engine): a lazy import of the
# submodule would bind the module, not the function, to the name ``gradcheck``.
from . import forward_ad, function, graph
from .anomaly import detect_anomaly, first_nonfinite, is_anomaly_enabled, set_detect_anomaly
from .function import Function, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function",
    "function",
    "forward_ad",
    "graph",
    "once_differentiable",
    "Variable",
    "backward",
    "grad",
    "functional",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "first_nonfinite",
]


def _subclassed(value) -> bool:
    """Whether ``value`` is, or holds, a Tensor of a subclass: vmap's BatchedTensor."""
    if isinstance(value, Tensor):
        return type(value) is not Tensor
    return isinstance(value, (tuple, list)) and any(
        isinstance(v, Tensor) and type(v) is not Tensor for v in value
    )


@functools.wraps(_backward.grad)
def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
    *,
    only_inputs=True,
    is_grads_batched=False,
):
    args = (outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    if _subclassed(outputs) or _subclassed(inputs) or _subclassed(grad_outputs):
        from .batched_autograd import grad as batched_grad  # vmap's, inside vmap

        return batched_grad(*args, materialize_grads, is_grads_batched=is_grads_batched)
    return _backward.grad(*args, materialize_grads, is_grads_batched=is_grads_batched)


class _VariableType(type):
    """The class of ``Variable``: calling it makes a tensor; every tensor is an instance."""

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        # As PyTorch: a new leaf that shares data's memory, with its own requires_grad
        # (data itself is left alone).
        if type(data) is not Tensor:
            return ops.tensor([] if data is None else data, requires_grad=requires_grad)
        return data.detach().requires_grad_(requires_grad)

    def __instancecheck__(cls, obj):
        return type(obj) is Tensor


class Variable(metaclass=_VariableType):
    """Deprecated wrapper kept for old PyTorch code: ``Variable(t, requires_grad=True)``."""


def __getattr__(name):
    # Loaded on first use, keeping the command line's start-up path short.
    if name == "functional":
        return importlib.import_module(".functional", __name__)
    raise AttributeError(f"module 'gradcli.autograd' has no attribute '{name}'")
