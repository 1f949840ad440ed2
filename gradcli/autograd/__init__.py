"""``gradcli.autograd``: as ``torch.autograd``."""

from ..engine.backward import backward, grad
from ..engine.state import enable_grad, no_grad, set_grad_enabled
from ..engine.tensor import Tensor

# Imported eagerly (it needs nothing beyond the engine): a lazy import of the
# submodule would bind the module, not the function, to the name ``gradcheck``.
from . import forward_ad, function
from .anomaly import detect_anomaly, first_nonfinite, is_anomaly_enabled, set_detect_anomaly
from .function import Function, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function",
    "function",
    "forward_ad",
    "forward_ad",
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


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802  (PyTorch's legacy name)
    """Deprecated alias kept for old PyTorch code: the tensor itself, with ``requires_grad`` set."""
    if type(data) is not Tensor:
        from ..engine.ops import tensor

        data = tensor(data)
    if requires_grad:
        data.requires_grad_(True)
    return data


def __getattr__(name):
    # Loaded on first use, keeping the command line's start-up path short.
    import importlib

    if name == "functional":
        return importlib.import_module(".functional", __name__)
    raise AttributeError(f"module 'gradcli.autograd' has no attribute '{name}'")
