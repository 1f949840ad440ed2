"""``torch.nn.functional``: the op table's activations and losses, in PyTorch's forms there.

Nothing is listed here: every entry declared with ``nn_functional`` appears, as
its own function or, where PyTorch's signature here differs from ``torch.<name>``,
wrapped in that form: ``"inplace"`` adds the ``inplace=False`` parameter after the
entry's own (``F.relu(x, inplace=True)``, ``F.leaky_relu(x, 0.2, True)``), and
``"inplace, name_"`` also the in-place function ``F.relu_``; in place, an entry's
overload keyed ``"inplace"`` records PyTorch's node for it (``EluBackward1``).
``"implicit dim"`` lets ``dim`` default to
PyTorch's deprecated implicit choice (``F.softmax(x)``) and takes ``dtype``,
``"dropout"`` names ``train`` ``training`` and adds ``inplace``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..engine.ops.conversion import apply_inplace, to_dtype
from ..engine.ops.every import NN_FUNCTIONAL, OPS


def _taking_inplace(entry, call):
    in_place = _in_place(entry)

    def function(input, *args, inplace=False, **kwargs):
        if args and len(args) == len(entry.schema.params):  # inplace by position, after them
            *args, inplace = args
        if inplace:
            return in_place(input, *args, **kwargs)
        return call(input, *args, **kwargs)

    return function


def _in_place(entry):
    """``F.name_``: the entry's function written into its input."""
    call = entry.over.get("inplace", entry.call)

    def function(input, *args, **kwargs):
        return apply_inplace(input, call, args, kwargs)

    function.__name__ = function.__qualname__ = entry.name + "_"
    function.__doc__ = f"{entry.name}(input, ...), in place"
    function.op = entry
    return function


def _implicit_dim(entry, call):

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


def _dropout(entry, call):

    def function(input, p=0.5, training=True, inplace=False):
        if inplace:
            return apply_inplace(input, call, (p, training), {})
        return call(input, p, training)

    return function


_FORMS = {
    True: lambda entry, call: call,
    "inplace": _taking_inplace,
    "inplace, name_": _taking_inplace,
    "implicit dim": _implicit_dim,
    "dropout": _dropout,  # F.dropout(x, p, training, inplace): torch.dropout's train renamed
}


def in_form(entry, call=None):
    """``entry``'s function in its PyTorch form here, around ``call`` (the entry's own by
    default; ``vmap`` gives the one that dispatches its BatchedTensors)."""
    call = entry.call if call is None else call
    function = _FORMS[entry.nn_functional](entry, call)
    if function is not call:
        function.__name__ = function.__qualname__ = entry.name
        function.__doc__ = entry.doc
        function.op = entry
    return function


_NAMED_IN_PLACE = {
    name + "_": _in_place(entry)
    for name, entry in NN_FUNCTIONAL.items()
    if entry.nn_functional == "inplace, name_"
}
# F.one_hot(tensor, num_classes=-1) is the table's one_hot, should its entry not declare
# nn_functional itself.
_ALSO = {"one_hot": OPS["one_hot"].call} if "one_hot" in OPS.keys() - NN_FUNCTIONAL else {}
globals().update({name: in_form(entry) for name, entry in NN_FUNCTIONAL.items()})
globals().update(_NAMED_IN_PLACE, **_ALSO)
__all__ = sorted([*NN_FUNCTIONAL, *_NAMED_IN_PLACE, *_ALSO])
