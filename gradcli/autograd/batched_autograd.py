"""Autograd on BatchedTensors: ``autograd.grad``, ``make_dual`` and ``unpack_dual`` inside vmap.

A BatchedTensor's ops are recorded on its physical tensor, one row per point, and
no point's row depends on another's: so the gradient of every point's output
with respect to that point's input is one reverse pass over the physical
tensors, and a tangent given to a physical tensor is every point's tangent.

``grad`` takes two forms of call inside vmap, as PyTorch does:

- the graph is batched (outputs and inputs BatchedTensors of the innermost level
  among the arguments): each point's gradient, the grad_outputs lifted to the
  level where they are the same at every point;
- the graph is not (outputs and inputs from outside this level) and grad_outputs
  are batched: each point's vector-Jacobian product with its own grad_outputs,
  one reverse pass with them as a batch (``is_grads_batched``).
"""

from __future__ import annotations

from ..engine import ops
from ..engine.backward import grad as engine_grad
from ..engine.tensor import Tensor
from ..errors import EngineError, NotImplementedByGradcli
from .batched_tensor import LEVELS, BatchedTensor, level_of, lifted, wrap

__all__ = ["grad", "make_dual", "unpack_dual", "physical", "has_batched"]


def has_batched(*values) -> bool:
    return any(level_of(v) for v in values if v is not None)


def physical(value, level):
    """The physical tensor of ``value`` at ``level`` (axis 0 the points)."""
    return lifted(value, level).physical


def _tuple(value):
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _front(t, axis):
    """``t`` with axis ``axis`` moved to the front."""
    order = [axis] + [d for d in range(t.dim()) if d != axis]
    return t.permute(*order)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
    *,
    only_inputs=True,
    is_grads_batched=False,
):
    """``torch.autograd.grad`` where some of the arguments are BatchedTensors."""
    outputs, inputs = _tuple(outputs), _tuple(inputs)
    given = None if grad_outputs is None else _tuple(grad_outputs)
    level = max(level_of(outputs), level_of(inputs), level_of(given or ()))
    options = dict(
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=allow_unused,
        materialize_grads=materialize_grads,
    )
    if level_of(outputs) == level or level_of(inputs) == level:
        return _batched_graph(outputs, inputs, given, level, is_grads_batched, options)
    return _batched_cotangents(outputs, inputs, given, level, is_grads_batched, options)


def _batched_graph(outputs, inputs, given, level, is_grads_batched, options):
    """Each point's gradient: outputs and inputs of ``level``, one pass on the physical."""
    for t in inputs:
        if not (type(t) is BatchedTensor and t.level == level):
            # PyTorch's words: inside vmap the output's graph does not reach a tensor from
            # outside (func.grad differentiates each point with respect to its own copy).
            raise EngineError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
    if given is None:
        for o in outputs:
            if o.dim() != 0:
                raise EngineError("grad can be implicitly created only for scalar outputs")
        given = tuple(ops.ones_like(physical(o, level)) for o in outputs)
        given = tuple(wrap(g, level) for g in given)
    if len(given) != len(outputs):
        raise EngineError(
            f"grad_outputs should be a sequence of length {len(outputs)}, got {len(given)}"
        )
    pairs = [(o, g) for o, g in zip(outputs, given) if level_of(o) == level]
    phys_out = [o.batched.physical for o, _ in pairs]
    phys_in = [t.batched.physical for t in inputs]
    phys_g = []
    for o, g in pairs:
        if g is None and o.dim() == 0:
            g = ops.ones_like(o.batched.physical)
        elif g is None:
            raise EngineError("grad can be implicitly created only for scalar outputs")
        p = physical(g, level)
        phys_g.append(_front(p, 1) if is_grads_batched else p)
    if not phys_out:
        if not options["allow_unused"] and not options["materialize_grads"]:
            raise EngineError(
                "The differentiated Tensor at index 0 appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior."
            )
        grads = [ops.zeros_like(p) if options["materialize_grads"] else None for p in phys_in]
    else:
        grads = engine_grad(phys_out, phys_in, phys_g, is_grads_batched=is_grads_batched, **options)
    return tuple(
        None if g is None else wrap(_front(g, 1) if is_grads_batched else g, level) for g in grads
    )


def _batched_cotangents(outputs, inputs, given, level, is_grads_batched, options):
    """Each point's vector-Jacobian product of a graph the same at every point of
    ``level`` with its own grad_outputs: the points' grad_outputs as one batch."""
    inner = max(level_of(outputs), level_of(inputs))
    if inner:
        raise NotImplementedByGradcli(
            "autograd.grad inside nested vmaps: grad_outputs batched at an inner level for a "
            "graph batched at an outer one is not supported in gradcli"
        )
    total = LEVELS[level - 1].total
    batch, shapes = [], []
    for o, g in zip(outputs, given):
        p = physical(g, level)  # (points, [n,] *out)
        shapes.append(tuple(p.shape[1:2]) if is_grads_batched else ())
        batch.append(p.reshape(-1, *o.shape) if is_grads_batched else p)
    grads = engine_grad(outputs, inputs, batch, is_grads_batched=True, **options)
    n = shapes[0] if shapes else ()
    return tuple(
        None if g is None else wrap(g.reshape(total, *n, *g.shape[1:]), level) for g in grads
    )


def make_dual(tensor, tangent, make):
    """``forward_ad.make_dual`` with BatchedTensors: the physical primal with the
    physical tangent, both at the higher of their levels (``make`` the plain one)."""
    level = max(level_of(tensor), level_of(tangent))
    return wrap(make(physical(tensor, level), physical(tangent, level)), level)


def unpack_dual(tensor, unpack):
    """``forward_ad.unpack_dual`` of a BatchedTensor: its physical's, as BatchedTensors."""
    primal, tangent = unpack(tensor.batched.physical)
    level = tensor.level
    return wrap(primal, level), None if tangent is None else wrap(tangent, level)
