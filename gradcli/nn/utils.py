"""``torch.nn.utils``: clipping gradients, and parameters as one vector, as PyTorch's.

``clip_grad_norm_`` takes PyTorch's CPU path: each gradient's norm, then the norm of
those norms, and every gradient multiplied in place by ``max_norm / (total + 1e-6)``
clamped to at most 1 (so a small total leaves the gradients as they are, to the bit).
"""

from __future__ import annotations

import types
import warnings

from ..engine.ops.every import LIBRARY
from ..engine.state import no_grad
from ..engine.tensor import Tensor
from ..errors import GradcliTypeError, NotImplementedByGradcli
from ..linalg import vector_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _listed(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = list(parameters)
    if is_generator and not parameters:
        warnings.warn(
            "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3
        )
    return parameters


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint ``norm_type``-norm is at most
    ``max_norm``; returns the norm they had."""
    with no_grad():
        parameters = _listed(parameters)
        grads = [p.grad for p in parameters if p.grad is not None]
        norm_type = float(norm_type)
        if not grads:
            return LIBRARY["tensor"](0.0)
        norms = [vector_norm(g, norm_type) for g in grads]
        total_norm = vector_norm(LIBRARY["stack"](norms), norm_type)
        if error_if_nonfinite and (bool(total_norm.isnan()) or bool(total_norm.isinf())):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
        clip_coef = float(max_norm) / (total_norm + 1e-6)
        clip_coef_clamped = LIBRARY["clamp"](clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)
        return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps each gradient in place to ``[-clip_value, clip_value]``."""
    with no_grad():
        clip_value = float(clip_value)
        for p in [parameters] if isinstance(parameters, Tensor) else parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    """The parameters flattened and joined into one vector (recorded, as PyTorch's)."""
    return LIBRARY["cat"]([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise GradcliTypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    at = 0
    for p in parameters:
        count = p.numel()
        p.data = vec[at : at + count].view_as(p).data
        at += count


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    raise NotImplementedByGradcli(
        f"gradcli has no torch.nn.utils.{name} yet: the torch.nn helpers it has are listed "
        "in docs/library.md"
    )
