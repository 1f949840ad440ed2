"""The checks of what a transformed function returns, shared by the ``func`` transforms
(``func/__init__.py``, and ``func/batched_tensor.py`` inside vmap)."""

from __future__ import annotations

from ..engine.tensor import Tensor
from ..errors import EngineError


def split_aux(result, has_aux, name):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise EngineError(
            f"{name}(f, ...)(*args): output of function f should be a tuple: (output, aux) "
            "if has_aux is True"
        )
    return result


def check_scalar(output):
    if type(output) is not Tensor:
        raise EngineError(
            f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
        )
    if output.ndim != 0:
        raise EngineError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            f"with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
        )
