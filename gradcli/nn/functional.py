"""``torch.nn.functional``: the op table's activations and losses, in PyTorch's forms there.

Nothing is listed here: every entry declared with ``nn_functional`` appears, as
its own function or, where PyTorch's signature here differs from ``torch.<name>``,
wrapped in that form: ``"inplace"`` adds the ``inplace=False`` keyword
(``F.relu(x, inplace=True)``), ``"implicit dim"`` lets ``dim`` default to
PyTorch's deprecated implicit choice (``F.softmax(x)``) and takes ``dtype``,
``"dropout"`` names ``train`` ``training`` and adds ``inplace``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..engine.ops import NN_FUNCTIONAL
from ..engine.ops.conversion import apply_inplace, to_dtype


def _taking_inplace(call):
    def function(input, *args, inplace=False, **kwargs):
        if inplace:
            return apply_inplace(input, call, args, kwargs)
        return call(input, *args, **kwargs)

    return function


def _implicit_dim(call):
    def function(input, dim=None, _stacklevel=3, dtype=None):
        if dim is None:
            warnings.warn(
                f"Implicit dimension choice for {call.__name__} has been deprecated. "
                "Change the call to include dim=X as an argument.",
                stacklevel=_stacklevel,
            )
            dim = 0 if np.ndim(input) in (0, 1, 3) else 1
        if dtype is not None:
            input = to_dtype(input, dtype)
        return call(input, dim)

    return function


def _dropout(call):
    def function(input, p=0.5, training=True, inplace=False):
        if inplace:
            return apply_inplace(input, call, (p, training), {})
        return call(input, p, training)

    return function


_FORMS = {
    True: lambda call: call,
    "inplace": _taking_inplace,
    "implicit dim": _implicit_dim,
    "dropout": _dropout,  # F.dropout(x, p, training, inplace): torch.dropout's train renamed
}


def in_form(entry, call=None):
    """``entry``'s function in its PyTorch form here, around ``call`` (the entry's own by
    default; ``vmap`` gives the one that dispatches its BatchedTensors)."""
    call = entry.call if call is None else call
    function = _FORMS[entry.nn_functional](call)
    if function is not call:
        function.__name__ = function.__qualname__ = entry.name
        function.__doc__ = entry.doc
        function.op = entry
    return function


globals().update({name: in_form(entry) for name, entry in NN_FUNCTIONAL.items()})
__all__ = sorted(NN_FUNCTIONAL)
