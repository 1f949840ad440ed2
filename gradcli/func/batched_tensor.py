"""``func.vmap``: a function of one point evaluated at a batch of points, on the batching rules.

Inside ``vmap(f)(X)``, ``f`` sees a ``BatchedTensor``: a tensor whose shape is
one point's, holding every point's value (``engine.batched_values.Batched``). Every op
called on it, as a method, an operator or a ``gradcli.<name>`` function, goes
through that op's batching rule (``engine.batching_rules.call``), which rewrites the
call into the table's ordinary ops on the whole batch, so the graph they record
is per point too. ``grad`` inside ``vmap`` (per-sample gradients) differentiates
each point's value with respect to that point's inputs.

Limits, each an error that says so: ``in_dims`` and ``out_dims`` are 0 or None;
one level of ``vmap``; in-place ops on a BatchedTensor; and the ``gradcli.<name>``
functions are the batched ones only when called through the module
(``torch.sin(x)``) while ``vmap`` runs, not a function imported by name before.
"""

from __future__ import annotations

import sys

from ..engine import batching_rules as batching
from ..engine import dtypes
from ..engine.batched_values import Batched, each
from ..engine.ops import OPS
from ..engine.tensor import Size, Tensor
from ..errors import EngineError, GradcliValueError, NotImplementedByGradcli

__all__ = ["vmap", "BatchedTensor"]


class BatchedTensor(Tensor):
    """One point's view of a batch: a Tensor of the point's shape, every point's values."""

    __slots__ = ("batched",)

    def __init__(self, batched):
        self.batched = batched

    @property
    def shape(self):
        return Size(self.batched.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.batched.shape[dim]

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
        return BatchedTensor(Batched(self.batched.physical.detach()))

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
            "other operations."
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
        return f"BatchedTensor(lvl=1, bdim=0, value=\n    {self.batched.physical!r}\n)"

    __str__ = __repr__

    def backward(self, *args, **kwargs):
        raise NotImplementedByGradcli(
            "backward() inside vmap is not supported in gradcli: use func.grad or func.vjp"
        )


def _to_batched(value):
    if type(value) is BatchedTensor:
        return value.batched
    if type(value) in (list, tuple):
        return type(value)(_to_batched(v) for v in value)
    return value


def _from_batched(value):
    if type(value) is Batched:
        return BatchedTensor(value)
    if isinstance(value, tuple):  # (values, indices) keeps its type: .values still works
        return each(value, _from_batched)
    return value


def _has_batched(values):
    for v in values:
        if type(v) is BatchedTensor:
            return True
        if type(v) in (list, tuple) and _has_batched(v):
            return True
    return False


def _batched_call(entry, args, kwargs):
    args = tuple(_to_batched(a) for a in args)
    kwargs = {k: _to_batched(v) for k, v in kwargs.items()}
    return _from_batched(batching.call(entry, *args, **kwargs))


def _method(entry, swap=False):
    def method(self, *args, **kwargs):
        if swap:
            args = (args[0], self)
            return _batched_call(entry, args, kwargs)
        return _batched_call(entry, (self, *args), kwargs)

    method.__name__ = entry.name
    return method


def _in_place(name):
    def method(self, *args, **kwargs):
        raise NotImplementedByGradcli(
            f"vmap: the in-place {name} on a BatchedTensor is not supported in gradcli; "
            "write the out-of-place op"
        )

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
                setattr(BatchedTensor, name + "_", _in_place(name + "_"))
        if entry.attribute:
            setattr(BatchedTensor, entry.name, property(_method(entry)))
        for dunder in entry.operators:
            in_place = dunder.startswith("__i") and entry.inplace
            setattr(BatchedTensor, dunder, _in_place(dunder) if in_place else _method(entry))
        for dunder in entry.reflected:
            commutes = dunder in ("__radd__", "__rmul__")
            setattr(BatchedTensor, dunder, _method(entry, swap=not commutes))


_install()


class _LibraryPatch:
    """While vmap runs, ``gradcli.<name>`` of every op dispatches a BatchedTensor argument
    to the op's batching rule (other calls go to the op as always)."""

    def __enter__(self):
        module = sys.modules["gradcli"]
        self.saved = {}
        for entry in OPS.values():
            if not entry.library:
                continue
            for name in (entry.name, *entry.aliases):
                original = module.__dict__.get(name)
                if original is entry.call:
                    self.saved[name] = original
                    setattr(module, name, _dispatching(entry))
        return self

    def __exit__(self, *exc):
        module = sys.modules["gradcli"]
        for name, original in self.saved.items():
            setattr(module, name, original)
        return False


def _dispatching(entry):
    original = entry.call

    def call(*args, **kwargs):
        if _has_batched(args) or _has_batched(kwargs.values()):
            return _batched_call(entry, args, kwargs)
        return original(*args, **kwargs)

    call.__name__ = entry.name
    call.op = entry
    return call


_ACTIVE = []


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` applied at every index of the mapped dimension of its inputs, as one batch."""

    entry = getattr(func, "op", None)
    if entry is not None and func is entry.call:  # vmap(torch.outer): the op itself
        func = _dispatching(entry)

    def wrapper(*args):
        dims = _in_dims(in_dims, len(args))
        if _ACTIVE:
            raise NotImplementedByGradcli("vmap inside vmap is not supported in gradcli")
        sizes = [a.shape[0] for a, d in zip(args, dims) if d == 0 and type(a) is Tensor]
        if not sizes:
            raise GradcliValueError(
                "vmap(f, in_dims=..., ...)(<inputs>): at least one input must be mapped over "
                "(got in_dims with no 0 for a Tensor input)"
            )
        if len(set(sizes)) > 1:
            raise GradcliValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, "
                f"got sizes {sizes} for the mapped dimension"
            )
        wrapped = [
            BatchedTensor(Batched(a)) if d == 0 and type(a) is Tensor else a
            for a, d in zip(args, dims)
        ]
        _ACTIVE.append(True)
        try:
            with _LibraryPatch():
                result = func(*wrapped)
        finally:
            _ACTIVE.pop()
        return _unwrap_output(result, out_dims, sizes[0])

    return wrapper


def _in_dims(in_dims, n):
    dims = (in_dims,) * n if in_dims is None or isinstance(in_dims, int) else tuple(in_dims)
    if len(dims) != n:
        raise GradcliValueError(
            f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
            f"structure of `inputs`. in_dims has structure {len(dims)} but inputs has "
            f"structure {n}."
        )
    for d in dims:
        if d not in (0, None):
            raise NotImplementedByGradcli(
                f"vmap: in_dims={d}: gradcli maps over dimension 0 (or None) only"
            )
    return dims


def _unwrap_output(result, out_dims, size):
    if out_dims not in (0, None):
        raise NotImplementedByGradcli(f"vmap: out_dims={out_dims}: gradcli supports 0 only")
    if isinstance(result, tuple):
        return each(result, lambda r: _unwrap_output(r, out_dims, size))
    if type(result) is BatchedTensor:
        if out_dims is None:
            raise GradcliValueError(
                "vmap: out_dims is None but the output varies along the mapped dimension"
            )
        return result.batched.physical
    if type(result) is Tensor:
        return result if out_dims is None else result.expand(size, *result.shape)
    raise GradcliValueError(
        f"vmap: `{type(result).__name__}` is not a Tensor: vmap must only return Tensors"
    )


def per_point_grad_and_value(func, args, kwargs, single, nums, has_aux):
    """``grad_and_value`` inside vmap: each point's gradient with respect to its own inputs
    (an input the same at every point is copied per point, so each point has its own)."""
    from ..engine.backward import grad as autograd_grad
    from ..engine.state import enable_grad
    from .outputs import check_scalar, split_aux

    size = next(a.batched.size for a in args if type(a) is BatchedTensor)
    args = list(args)
    leaves = []
    with enable_grad():
        for i in nums:
            a = args[i]
            physical = a.batched.physical if type(a) is BatchedTensor else a.expand(size, *a.shape)
            leaf = physical.detach().clone().requires_grad_()
            leaves.append(leaf)
            args[i] = BatchedTensor(Batched(leaf))
        output, aux = split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
        if type(output) is not BatchedTensor:
            check_scalar(output)
            output = BatchedTensor(Batched.broadcast(output, size))
        if output.ndim != 0:
            check_scalar(output)  # the error names the logical dimensions
        total = output.batched.physical.sum()
        grads = autograd_grad(total, leaves, allow_unused=True) if total.requires_grad else None
    grads = [
        BatchedTensor(Batched(leaf.detach() * 0 if grads is None or g is None else g))
        for leaf, g in zip(leaves, grads or [None] * len(leaves))
    ]
    result = grads[0] if single else tuple(grads)
    value = output.detach()
    if has_aux:
        return result, (value, aux)
    return result, value
