"""The Tensor's methods, operators and attributes, installed from the op table.

``x.sum()`` is the ``sum`` entry's function, ``x.exp_()`` writes ``exp(x)`` into
x, ``x + y`` is ``add``, ``x.T`` the ``T`` entry's: each comes from one entry's
flags (``method``, ``inplace``, ``operators``, ``reflected``, ``attribute``), so
the tensor has no list of its own. ``x.backward()`` comes from the reverse pass.
"""

from __future__ import annotations

from .backward import tensor_backward
from .batching_rules import random_draw
from .ops import OPS, WHEN_LOADED, Later, load
from .ops.conversion import in_place_function as _inplace_method
from .state import VMAP_DISPATCH
from .storage import METHODS as _MEMORY
from .tensor import Tensor


def _reflected(call, commutes):
    # 2 * x is mul(x, 2) in PyTorch (the tensor is the first operand of its node); 2 ** x
    # is pow(2, x).
    def method(self, other):
        return call(self, other) if commutes else call(other, self)

    return method


_COMMUTING = ("__radd__", "__rmul__")


def _meets_vmap(entry):
    """Whether a plain tensor's method can need vmap's batching rule: it takes another
    tensor (``x.mul(b)``, ``x.gather(0, b)``, with ``b`` batched) or it draws at random."""
    return entry.batching is random_draw or any(
        p.is_input or "Index" in p.type for p in entry.schema.params[1:]
    )


def _vmapped(entry):
    """``entry``'s method, dispatched by vmap while one runs (``state.VMAP_DISPATCH``).
    Installed once, not swapped in for each vmap call: a class's attributes set anew
    throw away every cached lookup of a tensor's attributes."""
    call = entry.call

    def method(*args, **kwargs):
        if VMAP_DISPATCH:
            return VMAP_DISPATCH[0](entry, args, kwargs)
        return call(*args, **kwargs)

    method.__name__ = method.__qualname__ = getattr(call, "__name__", entry.name)
    method.__doc__ = call.__doc__
    method.__wrapped__ = call
    return method


def installed_methods(ops):
    """Every name the op table gives the Tensor class, with what it is."""
    members = {}
    for entry in ops.values():
        names = (entry.name, *entry.aliases)
        if entry.method:
            # a function: Python binds self as the first argument
            member = _vmapped(entry) if _meets_vmap(entry) else entry.call
            for name in names:
                members[name] = member
        if entry.inplace:
            for name in names:
                members[name + "_"] = _inplace_method(name + "_", entry)
        if entry.attribute:
            members[entry.name] = property(entry.call, doc=entry.doc)
        for dunder in entry.operators:
            if dunder.startswith("__i") and entry.inplace:
                members[dunder] = _inplace_method(dunder, entry)
            else:
                members[dunder] = entry.call
        for dunder in entry.reflected:
            members[dunder] = _reflected(entry.call, dunder in _COMMUTING)
    return members


def _loading(name, module):
    """``x.name(...)`` of an op whose module loads on first use: it loads the module
    (which installs the op's own method in this one's place) and calls that."""

    def method(self, *args, **kwargs):
        load(module)
        return getattr(self, name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _install(entries) -> None:
    loaded = [e for e in entries if not isinstance(e, Later)]
    members = installed_methods({e.name: e for e in loaded})
    for entry in entries:
        if isinstance(entry, Later):
            names = (entry.name, *entry.aliases)
            members.update({n: _loading(n, entry.module) for n in names if entry.method})
            if entry.inplace:
                members.update({n + "_": _loading(n + "_", entry.module) for n in names})
    for name, member in members.items():
        setattr(Tensor, name, member)
    INSTALLED.update(members)


#: Every name the op table gave the Tensor class, with what it is now.
INSTALLED: dict = {}
_install(list(OPS.values()))
WHEN_LOADED.append(lambda entries: _install([e for e in entries if not e.internal]))
Tensor.backward = tensor_backward
for _name, _member in _MEMORY.items():  # where its numbers lie: storage.py
    setattr(Tensor, _name, _member)
del _name, _member
