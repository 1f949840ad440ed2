"""The checks of what a transformed function returns, shared by the ``func`` transforms
(``func/__init__.py``, and ``func/batched_tensor.py`` inside vmap)."""

from __future__ import annotations

from ..engine.tensor import Tensor
from ..errors import EngineError


def split_aux(result, has_aux, api):
    """``(output, aux)`` of a function transformed with has_aux (``api`` names the transform
    in the error, as PyTorch's: ``vjp(f, *primals)``)."""
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise EngineError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return result


def tensor_outputs(flat, api):
    """The leaves of a transformed function's output are tensors, and there is one."""
    if not flat or (len(flat) == 1 and flat[0] is None):
        raise EngineError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {flat})"
        )
    for o in flat:
        if not isinstance(o, Tensor):
            raise EngineError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(o)}"
            )


def check_scalar(output):
    if not isinstance(output, Tensor):
        raise EngineError(
            f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
        )
    if output.ndim != 0:
        raise EngineError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            f"with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
        )
