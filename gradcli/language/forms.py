"""The language's own forms of some functions: where it means what a calculator means
rather than what the library (PyTorch) means. Each form is a schema and the one-line
doc that the language and ``gradcli functions`` show; the evaluator applies them."""

from __future__ import annotations

from ..engine.schema import Schema

# max and min as the language takes them: an op table schema (inspect loads when read).
_EXTREME = Schema(
    "(input: Tensor, other: Tensor = None, *, dim: int = None, keepdim: bool = False)"
)


#: Where the language means what a calculator means rather than what the library
#: (PyTorch) means: ``max(a, b)`` and ``min(a, b)`` are always elementwise (``max(x, 0)``
#: is ReLU), and a reduction along a dimension names it, ``max(x, dim=0)``, giving the values.
#: The signature and the one-line doc that the language and ``gradcli functions`` show.
CALCULATOR_FORMS = {
    "max": (
        _EXTREME,
        "max(x): largest entry; max(a, b): the larger, elementwise (maximum);"
        " max(x, dim=0): largest along dim (the values; argmax gives the indices)",
    ),
    "min": (
        _EXTREME,
        "min(x): smallest entry; min(a, b): the smaller, elementwise (minimum);"
        " min(x, dim=0): smallest along dim (the values; argmin gives the indices)",
    ),
    # log(x, base) is the logarithm to a base; softmax(x) works along the last dimension.
    "log": (
        Schema("(input: Tensor, base: Tensor|Number = None)"),
        "logarithm, natural or to a base",
    ),
    "softmax": (
        Schema("(input: Tensor, dim: int = -1)"),
        "exp(x) / sum(exp(x)) along dim (the last without one)",
    ),
    "log_softmax": (
        Schema("(input: Tensor, dim: int = -1)"),
        "log of softmax along dim (the last without one), stably",
    ),
}
