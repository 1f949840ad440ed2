"""``func.vmap``: a function of one point applied at every index of a dimension of its inputs.

The inputs and outputs are pytrees (``func/pytree.py``); ``in_dims`` and
``out_dims`` are prefixes of their trees: an int (negative counts from the
end) or None at a node stands for every leaf under it. Each call enters a level
(``batched_tensor.LEVELS``): the mapped inputs become BatchedTensors of it, the
function runs once on them, and each output's points are put back along its
out_dim. ``chunk_size`` runs the points that many at a time and joins the
results; with ``randomness='same'`` each chunk starts from the same generator
state, as in PyTorch. The messages are PyTorch's.
"""

from __future__ import annotations

import functools

from ..engine import generator, ops
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliIndexError, GradcliValueError
from . import pytree
from .batched_tensor import (
    LEVELS,
    BatchedTensor,
    Level,
    LibraryPatch,
    apply,
    batched_callable,
    lifted,
    wrap,
)

__all__ = ["vmap", "basis_vmap"]


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` applied at every index of the mapped dimension of its inputs, as one batch."""
    if randomness not in ("error", "different", "same"):
        raise EngineError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if not (chunk_size is None or chunk_size > 0):
        raise GradcliValueError(
            f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})"
        )
    called = batched_callable(func)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        size, flat_dims, flat_args, spec = _inputs(in_dims, args, func)
        if chunk_size is None:
            return _flat_vmap(called, func, size, flat_dims, flat_args, spec, out_dims,
                              randomness, kwargs)  # fmt: skip
        return _chunked(called, func, size, flat_dims, flat_args, spec, out_dims, randomness,
                        chunk_size, kwargs)  # fmt: skip

    return wrapped


def basis_vmap(func, randomness):
    """``vmap(func, randomness=randomness)`` over jacfwd's basis of tangents: the level
    knows that its points differ in their tangents alone (``Level.tangents_only``)."""
    called = batched_callable(func)

    def wrapped(*args):
        size, flat_dims, flat_args, spec = _inputs(0, args, func)
        return _flat_vmap(called, func, size, flat_dims, flat_args, spec, 0, randomness, {},
                          tangents_only=True)  # fmt: skip

    return wrapped


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in pytree.flatten(out_dims)[0]:
        if not (d is None or isinstance(d, int)):
            raise GradcliValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                "None or a python collection of ints representing where in the outputs the "
                "vmapped dimension should appear."
            )


def _is_tensor(value):
    return isinstance(value, Tensor)


def _inputs(in_dims, args, func):
    """The batch size, each leaf's in_dim (non-negative), the leaves and their tree."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise GradcliValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    if not args:
        raise GradcliValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = pytree.flatten(args)
    flat_dims = pytree.broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise GradcliValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {pytree.flatten(in_dims)[1]} "
            f"but inputs has structure {spec}."
        )
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for"
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise GradcliValueError(
                f"{where} an input but in_dim must be either an integer dimension or None."
            )
        if d is not None and not _is_tensor(arg):
            raise GradcliValueError(
                f"{where} an input but the input is of type {type(arg)}. We cannot vmap over "
                "non-Tensor arguments, please use None as the respective in_dim"
            )
        if d is not None:
            n = arg.dim()
            if not -n <= d < n:
                raise GradcliValueError(
                    f"{where} some input, but that input is a Tensor of dimensionality {n} so "
                    f"expected in_dim to satisfy -{n} <= in_dim < {n}."
                )
            flat_dims[i] = d % n
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise GradcliValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise GradcliValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, "
            f"got sizes {sizes} for the mapped dimension"
        )
    return sizes[0], flat_dims, flat_args, spec


def _movedim(t, source, destination):
    """``t`` with its axis ``source`` moved to ``destination`` (a view)."""
    if source == destination:
        return t
    order = [d for d in range(t.dim()) if d != source]
    order.insert(destination, source)
    return t.permute(*order)


def _add_batch_dim(arg, d, level):
    """The input ``arg`` mapped over its dimension ``d`` at ``level``."""
    if level == 1:
        return wrap(_movedim(arg, d, 0), 1)
    outer = lifted(arg, level - 1).physical  # every outer point's value, axis 0 their points
    moved = _movedim(outer, d + 1, 1)
    return wrap(moved.reshape(moved.shape[0] * moved.shape[1], *moved.shape[2:]), level)


def _flat_vmap(called, func, size, flat_dims, flat_args, spec, out_dims, randomness, kwargs,
               tangents_only=False):  # fmt: skip
    outer = LEVELS[-1].total if LEVELS else 1
    LEVELS.append(Level(size, outer * size, randomness, tangents_only))
    level = len(LEVELS)
    try:
        leaves = [
            a if d is None else _add_batch_dim(a, d, level) for a, d in zip(flat_args, flat_dims)
        ]
        with LibraryPatch(tangents_only):
            outputs = called(*pytree.unflatten(leaves, spec), **kwargs)
        return _outputs(outputs, out_dims, level, size, func)
    finally:
        LEVELS.pop()


def _flat_out_dims(outputs, out_dims, spec):
    """Each output leaf's out_dim; None where ``out_dims`` does not fit the outputs' tree."""
    if isinstance(outputs, Tensor):  # PyTorch's edge case: a tensor takes (d,) too
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        return None
    return pytree.broadcast_prefix(out_dims, spec)


def _outputs(outputs, out_dims, level, size, func):
    """Each output with the points of ``level`` along its out_dim."""
    flat, spec = pytree.flatten(outputs)
    dims = _flat_out_dims(outputs, out_dims, spec)
    if dims is None:
        raise GradcliValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            f"compatible with the structure of `outputs`. out_dims has structure "
            f"{pytree.flatten(out_dims)[1]} but outputs has structure {spec}."
        )
    return pytree.unflatten(
        [_remove_batch_dim(o, d, level, size, _name(func)) for o, d in zip(flat, dims)], spec
    )


def _remove_batch_dim(output, out_dim, level, size, name):
    batched = type(output) is BatchedTensor and output.level == level
    if out_dim is None:
        if batched:
            raise GradcliValueError(
                f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
            )
        return output
    if not _is_tensor(output):
        raise GradcliValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(output)}. "
            "Did you mean to set out_dims= to None for output?"
        )
    ndim = output.dim() + 1
    if not -ndim <= out_dim < ndim:
        raise GradcliIndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {out_dim})"
        )
    out_dim %= ndim
    if not batched:  # the same at every point: a view of it for each
        expanded = output.unsqueeze(out_dim)
        shape = list(expanded.shape)
        shape[out_dim] = size
        return expanded.expand(*shape)
    p = output.batched.physical
    if level == 1:
        return _movedim(p, 0, out_dim)
    rows = p.reshape(p.shape[0] // size, size, *p.shape[1:])
    return wrap(_movedim(rows, 1, out_dim + 1), level - 1)


def _chunked(called, func, size, flat_dims, flat_args, spec, out_dims, randomness, chunk, kwargs):
    """The points ``chunk`` at a time, the results joined along each output's out_dim."""
    pieces = [a.split(chunk, d) if d is not None else None for a, d in zip(flat_args, flat_dims)]
    n_chunks = -(-size // chunk)
    state = generator.get_rng_state() if randomness == "same" else None
    results = []
    for k in range(max(n_chunks, 1)):
        args = [a if p is None else p[k] for a, p in zip(flat_args, pieces)] if size else flat_args
        if state is not None:
            generator.set_rng_state(state)
        chunk_size = min(chunk, size - k * chunk) if size else 0
        results.append(_flat_vmap(called, func, chunk_size, flat_dims, args, spec, out_dims,
                                  randomness, kwargs))  # fmt: skip
    if len(results) == 1:
        return results[0]
    flats = [pytree.flatten(r)[0] for r in results]
    out_spec = pytree.flatten(results[0])[1]
    dims = _flat_out_dims(results[0], out_dims, out_spec)
    joined = [
        parts[0] if d is None else apply(ops.cat, list(parts), d)
        for d, parts in zip(dims, zip(*flats))
    ]
    return pytree.unflatten(joined, out_spec)
