"""The op table: every op of gradcli, gathered from the modules that declare them by kind.

``OPS`` maps each public op's name to its entry (``optable.Op``), ``INTERNAL``
the ops only rules use. Everything else that lists ops is computed here from
the entries, never kept by hand: ``FUNCTIONS`` (what the language calls),
``METHODS`` and ``INPLACE_METHODS`` (the Tensor's), ``LIBRARY`` (``gradcli.*``),
``NN_FUNCTIONAL`` (``gradcli.nn.functional``).
How to declare an op: see ``optable``.
"""

from __future__ import annotations

from . import (
    arithmetic,
    comparison,
    complex_numbers,
    conversion,
    convolution,
    creation,
    decompositions,
    diagonals,
    einsum,
    elementwise,
    indexing,
    layers,
    loss_gradients,
    losses,
    matrix_norms,
    nn,
    normalization,
    ordering,
    pooling,
    products,
    reductions,
    sampling,
    scans,
    scatter,
    shape,
    softmax,
    special,
    special_functions,
)

# In the order their modules depend on each other.
TABLES = tuple(
    m.table
    for m in (
        conversion,
        creation,
        sampling,
        comparison,
        elementwise,
        arithmetic,
        complex_numbers,
        shape,
        indexing,
        reductions,
        scans,
        softmax,
        products,
        diagonals,
        einsum,
        decompositions,
        matrix_norms,
        ordering,
        special,
        special_functions,
        loss_gradients,
        scatter,
        layers,
        convolution,
        pooling,
        normalization,
        nn,
        losses,
    )
)
OPS = {entry.name: entry for t in TABLES for entry in t.entries}
INTERNAL = {entry.name: entry for t in TABLES for entry in t.internal_entries}

#: The language's operators (``x + y``), by name: see ``optable``'s ``symbol``.
OPERATORS = {name: entry for name, entry in OPS.items() if entry.symbols}
#: What a program of the language can call.
FUNCTIONS = {name: entry for name, entry in OPS.items() if entry.function}
#: The Tensor's methods (x.sum()), by name, with their aliases (x.clip()).
METHODS = {
    alias: entry.call
    for entry in OPS.values()
    if entry.method
    for alias in (entry.name, *entry.aliases)
}
#: The Tensor's in-place methods (x.exp_()): the op's function, written into x.
INPLACE_METHODS = {
    alias + "_": entry
    for entry in OPS.values()
    if entry.inplace
    for alias in (entry.name, *entry.aliases)
}
#: ``gradcli.<name>``: every op the library exposes, with its aliases, and ``name_`` of
#: those PyTorch writes in place there too (``inplace="library"``: ``torch.sin_``).
LIBRARY = {
    alias: entry.call
    for entry in OPS.values()
    if entry.library
    for alias in (entry.name, *entry.aliases)
}
LIBRARY.update(
    (alias + "_", conversion.in_place_function(alias + "_", entry))
    for entry in OPS.values()
    if entry.inplace == "library" and entry.library
    for alias in (entry.name, *entry.aliases)
)

#: ``torch.nn.functional``'s functions that the table has, by entry: how each appears there
#: (True as it is, or the name of PyTorch's form there: ``gradcli.nn.functional``).
NN_FUNCTIONAL = {entry.name: entry for entry in OPS.values() if entry.nn_functional}

# Each op's function by its name, for the engine and the rules: ops.sin, ops.sum_to, ...
globals().update({entry.name: entry.call for entry in (*OPS.values(), *INTERNAL.values())})
