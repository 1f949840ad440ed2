"""``BatchedTensor``: one point's view of a batch inside ``vmap``, on the batching rules.

Inside ``vmap(f)(X)``, ``f`` sees a ``BatchedTensor``: a tensor whose shape is
one point's, holding every point's value (``engine.batched_values.Batched``). Every op
called on it, as a method, an operator or a ``gradcli.<name>`` function, goes
through that op's batching rule (``engine.batching_rules.call``), which rewrites the
call into the table's ordinary ops on the whole batch, so the graph they record
is per point too, and so are the tangents of forward-mode AD.

Nested ``vmap``: each ``vmap`` is a level (``LEVELS``, innermost last). A value at
level k holds one row for each point of levels 1..k together: its ``physical``
tensor's axis 0 runs over all of them, level k's index fastest. An op on values
of several levels lifts the lower ones to the highest (each row repeated for
the points of the levels above it, ``lifted``), so the rules see one batch axis.

Random ops (the entries whose batching rule is ``batching_rules.random_draw``) follow
the innermost level's ``randomness`` (``random_call``): 'error' refuses them, 'same'
draws once as at one point, 'different' draws for every point, as PyTorch: one draw
of the whole batch's shape.

An in-place op on a BatchedTensor (``x.mul_(y)``) writes its rule's result into the
physical tensor; as in PyTorch, an argument batched above x's level is an error.

Limits, each an error that says so: the random in-place fills on a BatchedTensor, and the
``gradcli.<name>`` functions are the batched ones only when called through the module
(``torch.sin(x)``) while ``vmap`` runs, or handed to ``vmap`` or a transform itself
(``vmap(jacrev(F.nll_loss))``), not a function imported by name before and called.
"""

from __future__ import annotations

import sys
from operator import is_
from types import FunctionType

import numpy as np

from .. import linalg
from ..engine import batching_rules as batching
from ..engine import dtypes, generator, ops
from ..engine.batched_values import Batched, each
from ..engine.messages import vmap_inplace
from ..engine.ops.conversion import apply_inplace, in_place_label
from ..engine.ops.every import NN_FUNCTIONAL, OPS
from ..engine.schema import ALIASES
from ..engine.state import VMAP_DISPATCH
from ..engine.tensor import Size, Tensor
from ..errors import EngineError, NotImplementedByGradcli
from ..nn import functional as nn
from .point_rows import rows_of

__all__ = ["BatchedTensor", "Level", "LEVELS", "lifted", "level_of", "apply", "wrap", "per_point"]
__all__ += ["batched_callable", "dispatching"]


class Level:
    """One active ``vmap``: its number of points, the points of it and every level
    outside it together (``total``), its randomness, and whether it maps the tangents of
    jacfwd's basis only (``tangents_only``: PyTorch's primals are not batched there)."""

    __slots__ = ("size", "total", "randomness", "tangents_only")

    def __init__(self, size, total, randomness, tangents_only=False):
        self.size, self.total, self.randomness = size, total, randomness
        self.tangents_only = tangents_only


LEVELS: list[Level] = []  # the active vmaps, the innermost last


class BatchedTensor(Tensor):
    """One point's view of a batch: a Tensor of the point's shape, every point's values."""

    __slots__ = ()  # batched and level: Tensor's slots (a plain tensor may become one)

    def __init__(self, batched, level):
        self.batched = batched
        self.level = level

    @property
    def shape(self):
        return Size(self.batched.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self):
        return self.batched.ndim

    def dim(self):
        return self.batched.ndim

    def numel(self):
        n = 1
        for d in self.batched.shape:
            n *= d
        return n

    @property
    def dtype(self):
        return dtypes.from_numpy(self.batched.physical._data.dtype)

    @property
    def requires_grad(self):
        return self.batched.physical.requires_grad

    @property
    def grad_fn(self):
        return self.batched.physical.grad_fn

    @property
    def is_leaf(self):
        return self.batched.physical.grad_fn is None

    def detach(self):
        return BatchedTensor(Batched(self.batched.physical.detach()), self.level)

    def requires_grad_(self, requires_grad=True):
        self.batched.physical.requires_grad_(requires_grad)
        return self

    def __len__(self):
        if not self.batched.shape:
            raise EngineError("len() of a 0-d tensor")
        return self.batched.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def _no_single_value(self, *args):
        raise EngineError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
            "over calling .item() on a Tensor, please try to rewrite what you're doing with "
            "other operations. If error is occurring somewhere inside PyTorch internals, "
            "please file a bug report."
        )

    item = tolist = numpy = __float__ = __int__ = __bool__ = __index__ = _no_single_value

    def _unbatched(self, *args, **kwargs):
        raise NotImplementedByGradcli(
            "vmap: an op that reads a tensor's values directly, not through the op table's "
            "batching rules, is not supported on a BatchedTensor in gradcli"
        )

    _data = property(_unbatched)
    __array__ = __array_ufunc__ = __array_function__ = _unbatched

    def __repr__(self):
        return f"BatchedTensor(lvl={self.level}, bdim=0, value=\n    {self.batched.physical!r}\n)"

    __str__ = __repr__

    def backward(self, *args, **kwargs):
        raise NotImplementedByGradcli(
            "backward() inside vmap is not supported in gradcli: use func.grad or func.vjp"
        )


def wrap(physical, level):
    """A physical tensor of level ``level`` (axis 0 its points) as the value at a point."""
    return BatchedTensor(Batched(physical), level)


def level_of(value) -> int:
    """The highest level of the BatchedTensors in ``value`` (lists, tuples, dicts looked
    into); 0 for none."""
    if type(value) is BatchedTensor:
        return value.level
    if type(value) in (list, tuple):
        return max((level_of(v) for v in value), default=0)
    if type(value) is dict:
        return max((level_of(v) for v in value.values()), default=0)
    return 0


def lifted(value, level) -> Batched:
    """``value`` (a BatchedTensor of level ``level`` or lower, or a Tensor) as a Batched of
    level ``level``: each row repeated for the points of the levels above its own."""
    if level > len(LEVELS):
        raise EngineError("vmap: a BatchedTensor is used after the vmap that made it returned")
    total = LEVELS[level - 1].total
    if type(value) is not BatchedTensor:
        return Batched.broadcast(value, total)
    if value.level == level:
        return value.batched
    p = value.batched.physical
    shape = tuple(p.shape[1:])
    rows = p.shape[0]
    repeated = p.reshape(rows, 1, *shape).expand(rows, total // rows, *shape)
    return Batched(repeated.reshape(total, *shape))


def _to_batched(value, level):
    if type(value) is BatchedTensor:
        return lifted(value, level)
    if type(value) in (list, tuple):
        return type(value)(_to_batched(v, level) for v in value)
    return value


def _from_batched(value, level):
    if type(value) is Batched:
        return BatchedTensor(value, level)
    if isinstance(value, tuple):  # (values, indices) keeps its type: .values still works
        return each(value, lambda v: _from_batched(v, level))
    return value


def _batched_call(entry, args, kwargs):
    level = max(level_of(args), level_of(kwargs))
    if batching.rule_of(entry) is batching.random_draw:
        return random_call(entry, args, kwargs)
    for key in kwargs:  # a rule reads its arguments by name: an unknown one is the op's error
        if key not in entry.schema.names and ALIASES.get(key) not in entry.schema.names:
            entry.schema.bind(entry.name, (), {key: kwargs[key]})
    if batching.rule_of(entry) is None:
        return _looped(entry, args, kwargs)
    args = tuple(_to_batched(a, level) for a in args)
    kwargs = {k: _to_batched(v, level) for k, v in kwargs.items()}
    return _from_batched(batching.call(entry, *args, **kwargs), level)


def apply(fn, *args, **kwargs):
    """``fn`` (an op's public function) on arguments that may be BatchedTensors."""
    if level_of(args) or level_of(kwargs):
        return _batched_call(fn.op, args, kwargs)
    return fn(*args, **kwargs)


def _looped(entry, args, kwargs):
    """An op without a batching rule, at each point, as PyTorch's ``BatchedFallback``; one
    whose points give other than tensors of one shape (``nonzero``) stays an error."""
    level = max(level_of(args), level_of(kwargs))
    results = per_point(entry.call, args, kwargs, stack=False) if LEVELS[level - 1].total else []
    first = results[0] if results else None
    parts = list(zip(*results)) if isinstance(first, tuple) else [results]
    if not results or any(type(r) is not Tensor or r.shape != p[0].shape for p in parts for r in p):
        raise NotImplementedByGradcli(f"many-point evaluation of {entry.name} is not implemented")
    stacked = [wrap(ops.stack(list(rows)), level) for rows in parts]
    if not isinstance(first, tuple):
        return stacked[0]
    return type(first)(*stacked) if hasattr(first, "_fields") else type(first)(stacked)


def per_point(fn, args, kwargs, stack=True):
    """``fn`` called at each point of the innermost level among its BatchedTensor arguments,
    the results stacked (``stack``) or listed: for a custom ``autograd.Function`` and an
    op without a batching rule. The points' values are the physical tensors' rows
    (``point_rows``), so gradients and tangents pass."""
    level = max(level_of(args), level_of(kwargs))
    total = LEVELS[level - 1].total
    if not total:
        raise NotImplementedByGradcli(
            "vmap of a custom autograd.Function over no points is not supported in gradcli"
        )
    split = {}  # id of a BatchedTensor argument -> its rows

    def at(value, i):
        if type(value) is BatchedTensor:
            if id(value) not in split:
                split[id(value)] = rows_of(lifted(value, level).physical)
            return split[id(value)][i]
        if type(value) in (list, tuple):
            return type(value)(at(v, i) for v in value)
        return value

    results = [
        fn(*(at(a, i) for a in args), **{k: at(v, i) for k, v in kwargs.items()})
        for i in range(total)
    ]
    if not stack:
        return results
    if isinstance(results[0], tuple):
        return tuple(
            wrap(ops.stack(list(rows)), level) if isinstance(rows[0], Tensor) else rows[0]
            for rows in zip(*results)
        )
    return wrap(ops.stack(results), level)


# ----------------------------------------------------------------------------
# Random ops: by the innermost level's randomness
# ----------------------------------------------------------------------------

_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def random_call(entry, args, kwargs):
    """A random op called while vmap runs, as the innermost level's randomness says."""
    mode = LEVELS[-1].randomness if LEVELS else "same"
    if any(outer.randomness == "error" for outer in LEVELS):
        mode = "error"  # as PyTorch: a draw passes every level around it, and 'error' refuses
    if mode == "error":
        raise EngineError(_RANDOM_ERROR)
    level = max(level_of(args), level_of(kwargs))
    if entry.name.endswith("_"):  # an in-place fill
        if level:
            raise NotImplementedByGradcli(
                f"vmap: the in-place {entry.name} on a BatchedTensor is not supported in gradcli"
            )
        if mode == "different":
            raise EngineError(
                "vmap: Cannot ask for different inplace randomness on an unbatched tensor. "
                "This will appear like same randomness. If this is necessary for your usage, "
                "please file an issue with functorch."
            )
        return entry.call(*args, **kwargs)
    if mode == "same":
        if not level:
            different = [i for i, outer in enumerate(LEVELS, 1) if outer.randomness == "different"]
            if different:  # one draw per point of the levels around that draw differently
                return _different(entry, args, kwargs, different[-1])
            return entry.call(*args, **kwargs)
        found = batching.arguments(entry, args, kwargs)
        if entry.name.endswith("_like"):  # reads only the shape: one draw for every point
            return batching.probe(entry, _logical(found))
        if entry.name == "dropout":  # as PyTorch: the mask of one point, at every point
            return _same_draw(entry, found, level)
        if all(outer.tangents_only for outer in LEVELS[:level]):
            # jacfwd's basis (no vmap of a user's around it): the draw's inputs are duals
            # whose primals, PyTorch's not batched, are the same at every point: one draw,
            # made at each point from the same state.
            return _same_draw(entry, found, level)
        raise EngineError(
            "Vmap does not currently support same randomness with a batched tensor input. "
            "Please file an issue with functorch"
        )
    return _different(entry, args, kwargs, level or len(LEVELS))


def _same_draw(entry, found, level):
    """The op at every point, each point drawing from the same generator state."""
    gen = generator.generator_or_default(found.get("generator"))
    state = gen.get_state()
    if not LEVELS[level - 1].total:
        return Batched.broadcast(batching.probe(entry, _logical(found)), 0)
    rows = []
    for i in range(LEVELS[level - 1].total):
        gen.set_state(state)
        at = {k: lifted(v, level).physical[i] if level_of(v) else v for k, v in found.items()}
        rows.append(batching.invoke(entry, at))
    return wrap(ops.stack(rows), level)


def _logical(found):
    return {k: v.batched if type(v) is BatchedTensor else v for k, v in found.items()}


def _different(entry, args, kwargs, level):
    """Each point its own draw: the op on its inputs at every point, or, for a
    constructor of sizes only, the sizes with every point's axis in front."""
    found = batching.arguments(entry, args, kwargs)
    inputs = [p.name for p in entry.schema.params if p.is_input and p.name in found]
    tensors = [k for k in inputs if isinstance(found[k], Tensor)]
    if tensors:
        lifted_found = dict(found)
        lifted_found[tensors[0]] = lifted(found[tensors[0]], level)
        for k in tensors[1:]:
            if type(found[k]) is BatchedTensor:
                lifted_found[k] = lifted(found[k], level)
        # The op on the whole batch draws for every point, as the elementwise rule calls it.
        return BatchedTensor(batching.elementwise(entry, lifted_found), level)
    size = found.get("size")
    if size is None and isinstance(found.get("high"), (tuple, list)):  # randint(high, size)
        found["low"], found["high"], size = 0, found["low"], found["high"]
    if size is None:
        raise NotImplementedByGradcli(
            f"vmap(randomness='different'): {entry.name} is not supported in gradcli"
        )
    size = tuple(size)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):  # rand((2, 3))
        size = tuple(size[0])
    levels = LEVELS[:level]
    if all(outer.randomness == "different" for outer in levels):
        found["size"] = (LEVELS[level - 1].total, *size)
        return wrap(batching.invoke(entry, found), level)
    # As PyTorch: one draw along the levels that differ, the same at every point of the others.
    kept = [outer.size if outer.randomness == "different" else 1 for outer in levels]
    found["size"] = (int(np.prod(kept)), *size)
    drawn = ops.reshape(batching.invoke(entry, found), (*kept, *size))
    every = ops.expand(drawn, *(outer.size for outer in levels), *size)
    return wrap(ops.reshape(every, (LEVELS[level - 1].total, *size)), level)


# ----------------------------------------------------------------------------
# BatchedTensor's methods, and gradcli's functions while vmap runs
# ----------------------------------------------------------------------------


def _method(entry, swap=False):
    def method(self, *args, **kwargs):
        if swap:
            args = (args[0], self)
            return _batched_call(entry, args, kwargs)
        return _batched_call(entry, (self, *args), kwargs)

    method.__name__ = entry.name
    return method


def _in_place(entry, name):
    """``x.name_(...)`` on a BatchedTensor: the op's batching rule, its result written into
    x's physical tensor (the other arguments batched at x's level or below)."""
    assigns = entry.kind == "other" and not entry.method  # zero_, fill_, copy_ cast to x's dtype
    reshapes = entry.inplace == "reshapes"

    def method(self, *args, **kwargs):
        if max(level_of(args), level_of(kwargs)) > self.level:
            raise EngineError(vmap_inplace(in_place_label(name)))

        def written(target, *tensors):  # apply_inplace's call: the nodes it records are newer
            return lifted(_batched_call(entry, (self, *args), kwargs), self.level).physical

        # The arguments' physical tensors: apply_inplace records a graph if one requires grad.
        tensors = [lifted(a, self.level).physical for a in (*args, *kwargs.values())
                   if isinstance(a, Tensor)]  # fmt: skip
        apply_inplace(self.batched.physical, written, tensors, assigns=assigns, reshapes=reshapes)
        return self

    method.__name__ = name
    return method


def _install():
    """BatchedTensor's methods, operators and attributes: the table's, through the rules."""
    for entry in OPS.values():
        names = (entry.name, *entry.aliases)
        if entry.method:
            for name in names:
                setattr(BatchedTensor, name, _method(entry))
        if entry.inplace:
            for name in names:
                setattr(BatchedTensor, name + "_", _in_place(entry, name + "_"))
        if entry.attribute:
            setattr(BatchedTensor, entry.name, property(_method(entry)))
        for dunder in entry.operators:
            in_place = dunder.startswith("__i") and entry.inplace
            setattr(BatchedTensor, dunder, _in_place(entry, dunder) if in_place else _method(entry))
        for dunder in entry.reflected:
            commutes = dunder in ("__radd__", "__rmul__")
            setattr(BatchedTensor, dunder, _method(entry, swap=not commutes))


_install()


def _random(entry):
    return batching.rule_of(entry) is batching.random_draw


class LibraryPatch:
    """While vmap runs, ``gradcli.<name>``, ``gradcli.nn.functional.<name>`` and
    ``gradcli.linalg.<name>`` of every op dispatch BatchedTensors to the op's batching rule
    and random ops follow vmap's randomness; so do a plain tensor's methods, which ask
    ``state.VMAP_DISPATCH`` (set here). The Tensor class is left alone but over jacfwd's
    basis (``tangents_only``), where its in-place methods may make a tensor batched."""

    def __init__(self, tangents_only=False):
        self.tangents_only = tangents_only

    def __enter__(self):
        self.swapped = [_swap(names, kind) for kind, names in _namespaces()]
        self.dispatch = not VMAP_DISPATCH
        if self.dispatch:
            VMAP_DISPATCH.append(_plain_method)
        self.methods = {}
        for name in _in_place_names() if self.tangents_only else ():  # x.copy_(y), y batched
            original = Tensor.__dict__.get(name)
            if original is not None and not getattr(original, "promotes", False):
                self.methods[name] = original
                setattr(Tensor, name, _plain_in_place(name, original))
        return self

    def __exit__(self, *exc):
        for (_, names), saved in zip(_namespaces(), self.swapped):
            names.update(saved)
        for name, original in self.methods.items():
            setattr(Tensor, name, original)
        if self.dispatch:
            VMAP_DISPATCH.clear()
        return False


def _plain_method(entry, args, kwargs):
    """A plain tensor's method of ``entry`` while vmap runs (``engine/methods.py``)."""
    if _random(entry):
        return random_call(entry, args, kwargs)
    if level_of(args) or level_of(kwargs):
        return _batched_call(entry, args, kwargs)
    return entry.call(*args, **kwargs)


def _namespaces():
    return (("library", sys.modules["gradcli"].__dict__), ("nn", nn.__dict__),
            ("linalg", vars(linalg)))  # fmt: skip


def _swap(names, kind):
    """The ops' dispatching functions put in ``names`` where it holds theirs; those replaced."""
    originals, patch = _patches(names, kind)
    if all(map(is_, map(names.get, originals), originals.values())):  # one pass in C
        names.update(patch)
        return originals
    kept = {n: f for n, f in originals.items() if names.get(n) is f}  # a vmap inside vmap
    names.update({n: patch[n] for n in kept})
    return kept


# By kind, (the number of ops, (originals, patch)), made outside vmap: a call swaps them in.
_PATCHES = {}


def _patches(names, kind):
    """``(originals, patch)``: the ops' functions in ``names`` and their dispatching ones."""
    key = (len(OPS), len(NN_FUNCTIONAL))  # an op added since (a custom one): made again
    cached = _PATCHES.get(kind)
    if cached is not None and cached[0] == key:
        return cached[1]
    found = {}
    for name, value in names.items():
        entry = getattr(value, "op", None) if type(value) is FunctionType else None
        if entry is None:
            continue
        if kind == "nn" and NN_FUNCTIONAL.get(name) is entry:
            found[name] = value, nn.in_form(entry, dispatching(entry))
        elif kind != "nn" and value is entry.call and OPS.get(entry.name) is entry:
            if kind == "linalg" or entry.library:
                found[name] = value, dispatching(entry)
    result = {n: f for n, (f, _) in found.items()}, {n: p for n, (_, p) in found.items()}
    if not VMAP_DISPATCH:  # inside vmap the namespaces hold the patches
        _PATCHES[kind] = (key, result)
    return result


def _in_place_names():
    """A plain Tensor's in-place methods that the patch over jacfwd's basis wraps as found."""
    return [n for entry in OPS.values() if not _random(entry) for n in _in_place_of(entry)]


def _in_place_of(entry):
    names = [n + "_" for n in (entry.name, *entry.aliases)] if entry.inplace else []
    if entry.name.endswith("_") and entry.method:  # add_, sub_: entries of their own
        names.append(entry.name)
    names += [d for d in entry.operators if d.startswith("__i") or d == "__setitem__"]
    return names


def _plain_in_place(name, original):
    """A plain Tensor's in-place method while vmap runs: written with a value batched over
    jacfwd's basis alone, the tensor becomes batched (PyTorch's, whose primals are not
    batched there, gains a batched tangent); elsewhere it is ``apply_inplace``'s error."""

    def method(self, *args, **kwargs):
        level = max(level_of(args), level_of(kwargs))
        if level and type(self) is Tensor and all(o.tangents_only for o in LEVELS[:level]):
            _promote(self, level)
            return getattr(self, name)(*args, **kwargs)
        return original(self, *args, **kwargs)

    method.__name__ = name
    method.promotes = True
    return method


def _promote(t, level):
    """``t`` made a BatchedTensor of ``level`` in place, every point a copy of its value."""
    total = LEVELS[level - 1].total
    physical = ops.clone(ops.expand(ops.unsqueeze(t, 0), (total, *t.shape)))
    t.__class__ = BatchedTensor
    t.batched = Batched(physical)
    t.level = level


def batched_callable(func):
    """``func``, or, for an op's own function (``torch.sin`` taken before vmap runs), the
    one that dispatches its BatchedTensors."""
    entry = getattr(func, "op", None)
    return dispatching(entry) if entry is not None and func is entry.call else func


def dispatching(entry):
    """``entry``'s function, dispatching BatchedTensor arguments (and random draws)."""
    random = _random(entry)

    def call(*args, **kwargs):
        if random and LEVELS:
            return random_call(entry, args, kwargs)
        if level_of(args) or level_of(kwargs):
            return _batched_call(entry, args, kwargs)
        return entry.call(*args, **kwargs)

    call.__name__ = entry.name
    call.op = entry
    return call
