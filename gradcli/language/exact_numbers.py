"""The language's numbers at a working precision (``--dps``): a literal read from its
text, so ``0.1`` is one tenth to every digit of the precision, not the nearest float64;
``pi`` and ``e`` to every digit too. mpmath is imported here only when ``--dps`` runs."""

from __future__ import annotations

import numpy as np

from ..engine.tensor import Tensor
from ..errors import GradcliError


def exact_number(node) -> int | object:
    """A literal (``ir.Num``): an integer as an int (a size, an index), else an mpf."""
    import mpmath

    if isinstance(node.value, complex):
        raise GradcliError("--dps: complex numbers are computed in float64 only", node.span)
    text = node.text or repr(node.value)
    return int(text) if text.isdigit() else mpmath.mpf(text)


def exact_tensor(values) -> Tensor:
    """A tensor of mpf from numbers or their texts (``[0.1, 2]``)."""
    import mpmath

    items = values if isinstance(values, (tuple, list)) else (values,)
    array = np.empty(len(items), dtype=object)
    array[:] = [mpmath.mpf(v) for v in items]
    return Tensor._make(array if isinstance(values, (tuple, list)) else array.reshape(()))


def exact_constant(name: str):
    """A built-in constant at the working precision."""
    import mpmath

    exact = {"pi": mpmath.pi, "e": mpmath.e, "inf": mpmath.inf, "nan": mpmath.nan}
    return +exact[name] if name in exact else {"True": 1, "False": 0}[name]
