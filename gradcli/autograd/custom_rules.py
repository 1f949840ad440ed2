"""``autograd.Function`` under the ``func`` transforms, as PyTorch's (notes/extending.func).

Inside any transform (``grad``, ``vjp``, ``jacrev``, ``jvp``, ``jacfwd``, ``vmap``) a
Function must write ``forward`` without ctx and a ``setup_context(ctx, inputs,
output)``. Under ``vmap``, and ``jacfwd`` (PyTorch's is a vmap over the basis), it
needs a batching rule besides:

- its ``vmap`` staticmethod, called as ``vmap(info, in_dims, *args)``: ``info`` has
  the level's ``batch_size`` and ``randomness``, each batched argument comes with
  its points on a dimension (``in_dims`` says which, None for an argument the same
  at every point), and it returns ``(output, out_dims)``, out_dims a prefix of
  the output's tree. gradcli keeps a BatchedTensor's points on dimension 0, so
  ``in_dims`` names 0 where PyTorch names the dimension vmap's in_dims gave, and
  under ``vmap(grad(f))`` the node the rule's own ``apply`` records is the
  batch's, so its backward sees the batch's tensors (PyTorch's: one point's);
- or ``generate_vmap_rule = True``: the Function runs at each point (forward,
  setup_context and backward see one point's tensors, as under PyTorch's
  generated rule).

The messages are PyTorch's.
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine import ops
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliIndexError
from . import pytree
from .batched_tensor import LEVELS, BatchedTensor, apply, level_of, lifted, per_point, wrap
from .copies import transforms_active

__all__ = ["VmapInfo", "check_transformable", "batched_apply", "MAPPED_BASES", "LEGACY_VMAPS"]

_SEE = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"

# One entry per jacfwd running: it vmaps jvp over the basis, as PyTorch's, so a Function
# called there needs a batching rule.
MAPPED_BASES = []
# One entry per gradcheck's batched check running: PyTorch's is its legacy vmap
# (torch._vmap_internals), which asks a Function for neither setup_context nor a rule.
LEGACY_VMAPS = []


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod learns of the level it batches."""

    batch_size: int
    randomness: str


def check_transformable(cls, separate_setup, own_vmap, batched):
    """PyTorch's errors for a Function called inside a transform without what it needs."""
    if LEGACY_VMAPS or not (transforms_active() or batched):
        return
    if not separate_setup:
        raise EngineError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. " + _SEE
        )
    if not (batched or MAPPED_BASES):
        return
    name = cls.__name__
    generate = bool(getattr(cls, "generate_vmap_rule", False))
    if generate and own_vmap:
        raise EngineError(
            f"You tried to vmap over {name}, but it has both generate_vmap_rule=True and an "
            "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            "overridden vmap staticmethod to avoid ambiguity. " + _SEE
        )
    if not generate and not own_vmap:
        raise EngineError(
            f"You tried to vmap over {name}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. " + _SEE
        )


def batched_apply(cls, own_vmap, args, kwargs):
    """``cls.apply`` on arguments some of which are BatchedTensors (checked already)."""
    if LEGACY_VMAPS or not own_vmap:  # generate_vmap_rule
        return per_point(cls.apply, args, kwargs)
    level = max(level_of(args), level_of(kwargs))
    size = LEVELS[level - 1].size
    in_dims = tuple(_in_dim(a, level) for a in args)
    unbatched = tuple(_outer(a, level, size) for a in args)
    kwargs = {k: _outer(v, level, size) for k, v in kwargs.items()}
    info = VmapInfo(batch_size=size, randomness=LEVELS[level - 1].randomness)
    returned = cls.vmap(info, in_dims, *unbatched, **kwargs)
    if not (isinstance(returned, tuple) and len(returned) == 2):
        # gradcli's Tensor is the torch.Tensor of a program that imports gradcli as torch
        kind = "<class 'torch.Tensor'>" if isinstance(returned, Tensor) else type(returned)
        raise EngineError(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with "
            f"pytree structure compatible with the output. Got a {kind} instead"
        )
    output, out_dims = returned
    leaves, spec = pytree.flatten(output)
    dims = pytree.broadcast_prefix(out_dims, spec)
    if dims is None:
        raise EngineError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            f"structure of `output`. out_dims has structure {pytree.flatten(out_dims)[1]} but "
            f"output has structure {spec}. " + _SEE
        )
    return pytree.unflatten([_inner(o, d, level, size) for o, d in zip(leaves, dims)], spec)


def _in_dim(value, level):
    if type(value) is BatchedTensor and value.level == level:
        return 0
    if type(value) in (list, tuple):
        return type(value)(_in_dim(v, level) for v in value)
    return None


def _outer(value, level, size):
    """A BatchedTensor of ``level`` as the level below sees it: its points on dimension 0."""
    if type(value) in (list, tuple):
        return type(value)(_outer(v, level, size) for v in value)
    if not (type(value) is BatchedTensor and value.level == level):
        return value
    p = value.batched.physical
    if level == 1:
        return p
    return wrap(p.reshape(p.shape[0] // size, size, *p.shape[1:]), level - 1)


def _inner(value, dim, level, size):
    """An output of the vmap staticmethod, its points on ``dim``, as a BatchedTensor of
    ``level``; with dim None it is the same at every point."""
    if dim is None or not isinstance(value, Tensor):
        return value
    n = value.dim()
    if not -n <= dim < max(n, 1):
        raise GradcliIndexError(
            f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
            f"but got {dim})"
        )
    dim %= max(n, 1)
    order = (dim, *(d for d in range(n) if d != dim))
    moved = apply(ops.permute, value, order) if n else value
    if moved.shape[0] != size:
        raise EngineError(
            f"vmap: the vmap staticmethod returned an output with {moved.shape[0]} points on "
            f"its out_dim {dim}, where the batch has {size}"
        )
    if level == 1:
        return wrap(moved, 1)
    p = lifted(moved, level - 1).physical
    return wrap(p.reshape(p.shape[0] * size, *p.shape[2:]), level)
