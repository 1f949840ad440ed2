"""The op table: every op of gradcli, gathered from the modules that declare them by kind.

``OPS`` maps each public op's name to its entry (``optable.Op``), ``INTERNAL``
the ops only rules use. Everything else that lists ops is computed here from
the entries, never kept by hand: ``FUNCTIONS`` (what the language calls),
``METHODS`` and ``INPLACE_METHODS`` (the Tensor's), ``LIBRARY`` (``gradcli.*``),
``NN_FUNCTIONAL`` (``gradcli.nn.functional``).
How to declare an op: see ``optable``.

The modules of ``LATER`` (convolutions, losses, decompositions: the ones no other
op module imports) load when one of their ops is first used, not at start-up.
Until then each of their entries is a ``Later``: its name and the flags the
tables are made of, from ``_later_index.py`` (generated from the modules by
``scripts/gen_op_index.py``); reading anything else of it, or ``ops.NAME``, or
calling ``load_all()``, loads its module and puts its entries in every table.
``METHODS``, ``INPLACE_METHODS`` and ``LIBRARY`` hold the loaded entries' only:
what reads them whole (``gradcli.nn``, ``gradcli.optim``) calls ``load_all()``.
"""

from __future__ import annotations

import importlib
import threading
import types

from . import (  # noqa: F401  (loaded now: _NOW finds them by name)
    arithmetic,
    comparison,
    complex_numbers,
    conversion,
    creation,
    diagonals,
    elementwise,
    indexing,
    products,
    reductions,
    shape,
)
from ._later_index import ENTRIES as _LATER_ENTRIES

#: The op modules in the order they depend on each other (the tables' order).
ORDER = (
    "conversion", "creation", "sampling", "comparison", "elementwise", "arithmetic",
    "complex_numbers", "shape", "indexing", "reductions", "scans", "softmax", "products",
    "diagonals", "einsum", "decompositions", "matrix_norms", "ordering", "special",
    "special_functions", "loss_gradients", "scatter", "layers", "convolution", "pooling",
    "normalization", "nn", "losses",
)  # fmt: skip
# The op modules imported above, by name: the others of ORDER load on first use.
_NOW = {m: globals()[m] for m in ORDER if isinstance(globals().get(m), types.ModuleType)}
#: The op modules loaded when one of their ops is first used.
LATER = tuple(m for m in ORDER if m not in _NOW)


class Later:
    """An entry of a module of ``LATER`` not loaded yet: ``name``, ``module`` and the
    flags the tables read (``_later_index.py``); any other attribute is the loaded
    entry's, its module loaded for it."""

    def __init__(self, name, module, internal, function, method, inplace, library, aliases,
                 nn_functional, other_names):  # fmt: skip
        self.name, self.module, self.internal = name, module, internal
        self.function, self.method, self.inplace = function, method, inplace
        self.library, self.aliases, self.nn_functional = library, tuple(aliases), nn_functional
        self.other_names = tuple(other_names)
        self.symbols = self.operators = self.reflected = ()
        self.attribute = False

    def __getattr__(self, attribute):
        load(self.module)
        entry = (INTERNAL if self.internal else OPS).get(self.name)
        if entry is None or isinstance(entry, Later):
            raise RuntimeError(
                f"the op index is out of date: ops/{self.module}.py declares no op "
                f"{self.name!r} (run python scripts/gen_op_index.py)"
            )
        return getattr(entry, attribute)

    def __repr__(self):
        return f"Later({self.name!r}, {self.module})"


OPS: dict = {}
INTERNAL: dict = {}
#: The language's operators (``x + y``), by name: see ``optable``'s ``symbol``.
OPERATORS: dict = {}
#: What a program of the language can call.
FUNCTIONS: dict = {}
#: The Tensor's methods (x.sum()), by name, with their aliases (x.clip()).
METHODS: dict = {}
#: The Tensor's in-place methods (x.exp_()): the op's function, written into x.
INPLACE_METHODS: dict = {}
#: ``gradcli.<name>``: every op the library exposes, with its aliases, and ``name_`` of
#: those PyTorch writes in place there too (``inplace="library"``: ``torch.sin_``).
LIBRARY: dict = {}
#: ``torch.nn.functional``'s functions that the table has, by entry: how each appears there
#: (True as it is, or the name of PyTorch's form there: ``gradcli.nn.functional``).
NN_FUNCTIONAL: dict = {}

#: ``hook(entries)`` for each module of ``LATER`` loaded: the Tensor's methods of them.
WHEN_LOADED: list = []
_LOADED: set = set()
_LOADING = threading.RLock()
#: Each name of a ``LATER`` module's entries (and its ops' functions, ``ops.NAME``).
_MODULE_OF = {fields[0]: fields[1] for fields in _LATER_ENTRIES}


def _place(entry) -> None:
    """``entry`` (an ``Op`` or a ``Later``) in the tables of entries, where its name is."""
    if entry.internal:
        INTERNAL[entry.name] = entry
        return
    OPS[entry.name] = entry
    if entry.symbols:
        OPERATORS[entry.name] = entry
    if entry.function:
        FUNCTIONS[entry.name] = entry
    if entry.nn_functional:
        NN_FUNCTIONAL[entry.name] = entry


def _callable(entry) -> None:
    """A loaded ``entry``'s functions: the Tensor's, the library's and ``ops.NAME``."""
    globals()[entry.name] = entry.call
    if entry.internal:
        return
    names = (entry.name, *entry.aliases)
    if entry.method:
        METHODS.update(dict.fromkeys(names, entry.call))
    if entry.inplace:
        INPLACE_METHODS.update(dict.fromkeys((n + "_" for n in names), entry))
    if entry.library:
        LIBRARY.update(dict.fromkeys(names, entry.call))
        if entry.inplace == "library":
            LIBRARY.update((n + "_", conversion.in_place_function(n + "_", entry)) for n in names)


def load(module: str) -> None:
    """Load ``module``, one of ``LATER``, and put its entries in every table."""
    if module in _LOADED:
        return
    with _LOADING:  # another thread asking meanwhile waits for the tables to be whole
        if module in _LOADED:
            return
        table = importlib.import_module(f".{module}", __name__).table
        entries = (*table.entries, *table.internal_entries)
        for entry in entries:
            _place(entry)
            _callable(entry)
        for hook in WHEN_LOADED:
            hook(entries)
        _LOADED.add(module)


def load_all() -> None:
    """Every module of ``LATER`` (what reads the tables whole needs them)."""
    for module in LATER:
        load(module)


def load_for(name: str) -> bool:
    """Load the module of the op (or alias) ``name`` if it is one of ``LATER``'s and not
    loaded; whether it was one."""
    module = _MODULE_OF.get(name) or _MODULE_OF.get(name.removesuffix("_"))
    if module is None or module in _LOADED:
        return False
    load(module)
    return True


def _fill() -> None:
    """The tables, at start-up: the entries of the modules loaded now, and a ``Later`` for
    each of the others', in the modules' order."""
    for module in ORDER:
        if module in _NOW:
            table = _NOW[module].table
            for entry in (*table.entries, *table.internal_entries):
                _place(entry)
                _callable(entry)
        else:
            for fields in _LATER_ENTRIES:
                if fields[1] == module:
                    _place(Later(*fields))


_fill()
for _fields in _LATER_ENTRIES:  # an alias of a later op names it too
    _MODULE_OF.update(dict.fromkeys(_fields[7], _fields[1]))


def __getattr__(name):
    # ops.NAME of an op of a module not loaded yet: loaded for it.
    if load_for(name) and name in globals():
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
