"""The language's operators, read from the op table's entries (``symbol``, ``precedence``).

The IR names an operator by its entry's name (``Chain(a, ("add",), (b,))``); the parser
reads a spelling into that name, the printer writes it back, the evaluators call it.
"""

from __future__ import annotations

import operator

from ..engine.ops import OPERATORS

#: How tightly each precedence class binds: the printer's binding strengths (``ir``).
LEVELS = {"compare": 1, "sum": 2, "product": 3, "unary": 4, "power": 5}

#: The spelling printed for each operator, by name.
SYMBOLS = {name: entry.symbols[0] for name, entry in OPERATORS.items()}
#: Each spelling of a binary operator, read into its name (``^`` is ``**``).
BINARY_OPS = {
    symbol: name
    for name, entry in OPERATORS.items()
    if entry.precedence != "unary"
    for symbol in entry.symbols
}
#: Each spelling of a unary operator (``-x``), read into its name.
UNARY_OPS = {
    symbol: name
    for name, entry in OPERATORS.items()
    if entry.precedence == "unary"
    for symbol in entry.symbols
}
#: The binding strength of the operators that make a Chain (``a + b - c``), by name.
CHAIN_LEVELS = {
    name: LEVELS[entry.precedence]
    for name, entry in OPERATORS.items()
    if entry.precedence in ("sum", "product")
}
#: The comparisons, which make a Compare (``a < b <= c``).
COMPARE_OPS = tuple(n for n, e in OPERATORS.items() if e.precedence == "compare")
#: Python's operator for each (``operator.add``: a number and a number stay numbers), read
#: from the entry's dunder (``__add__``).
PYTHON = {name: getattr(operator, entry.operators[0]) for name, entry in OPERATORS.items()}
