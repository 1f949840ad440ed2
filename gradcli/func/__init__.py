"""``gradcli.func``: function transforms over the engine, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` differentiate in reverse
mode, ``jvp``, ``jacfwd`` and ``linearize`` in forward mode (``autograd.forward_ad``;
a forward transform inside another enters a level nested in its, ``engine/forward.py``),
and ``hessian`` is ``jacfwd(jacrev(f))`` as in PyTorch. Their inputs and outputs
are pytrees (tuples, lists, dicts of tensors: ``func/pytree.py``), and they
compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))``, ``jacfwd(jacfwd(f))``, and any
of them inside ``vmap`` (``func/mapping.py``), where each point differentiates
with respect to its own copy of the inputs (``func/batched_autograd.py``).

Each transform differentiates with respect to its own copies of the inputs, so
its results are plain tensors, except where they depend on tensors outside
that require grad (``func/copies.py``); the forward-mode transforms live in
``func/forward_mode.py``. ``functional_call`` runs a model with other tensors in
place of its own, ``stack_module_state`` stacks the parameters of several models
for ``vmap`` (``func/stateless.py``).
"""

from __future__ import annotations

from ..autograd import pytree
from ..autograd.batched_tensor import apply, batched_callable
from ..autograd.copies import (
    GRAD_API,
    VJP_API,
    argnums_tuple,
    differentiable,
    grad_of,
    outer_graph,
    plain,
    regroup,
    taken_out,
    tracked,
    zeros_for,
)
from ..autograd.mapping import vmap as mapped
from ..engine import ops
from ..engine.state import enable_grad
from ..errors import EngineError, GradcliValueError
from .forward_mode import jacfwd, jvp, linearize
from .outputs import check_scalar, split_aux, tensor_outputs
from .stateless import functional_call, stack_module_state

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]
__all__ += ["linearize", "functional_call", "stack_module_state"]


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar function: ``grad_and_value(f)(x)``."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @tracked
    def wrapper(*args, **kwargs):
        single, nums = argnums_tuple(argnums, len(args))
        with enable_grad():
            args, own, specs, given = differentiable(args, nums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, GRAD_API)
            check_scalar(output)
            keep = outer_graph([output], own)
            grads = grad_of(output, own, create_graph=keep, allow_unused=True)
        grads = [plain(zeros_for(g, t), keep and outer_graph([g], own)) for g, t in zip(grads, own)]
        value = plain(output, keep and outer_graph([output], own))
        result = regroup(grads, specs, single)
        if has_aux:
            return result, (value, taken_out(aux, own, given))
        return result, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, as a function: ``grad(f)(x)``."""
    transformed = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = transformed(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


@tracked
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is the tuple ``v^T J`` per primal."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran
    with enable_grad():
        args, own, specs, given = differentiable(primals, range(len(primals)))
        output, aux = split_aux(func(*args), has_aux, VJP_API)
    flat_out, out_spec = pytree.flatten(output)
    tensor_outputs(flat_out, "vjp(f, *primals)")
    keep = outer_graph(flat_out, own)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = pytree.flatten(cotangents)
        if ct_spec != out_spec:
            raise EngineError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {pytree.pprint(ct_spec)}, primal "
                f"output: {pytree.pprint(out_spec)}"
            )
        pairs = [(o, v) for o, v in zip(flat_out, flat_ct) if o.requires_grad]
        graph = keep if create_graph is None else create_graph
        with enable_grad():
            grads = (None,) * len(own)
            if pairs:
                grads = grad_of(
                    [o for o, _ in pairs],
                    own,
                    [v for _, v in pairs],
                    retain_graph=retain_graph,
                    create_graph=graph,
                    allow_unused=True,
                )
        grads = [plain(zeros_for(g, t), graph) for g, t in zip(grads, own)]
        return regroup(grads, specs, False)

    value = pytree.tree_map(lambda o: plain(o, keep), output)
    if has_aux:
        return value, vjp_fn, taken_out(aux, own, given)
    return value, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode, as a function: ``jacrev(f)(x)`` has shape
    ``out.shape + x.shape``, in the trees of the outputs and of the inputs."""
    if not (chunk_size is None or chunk_size > 0):
        raise GradcliValueError("jacrev: `chunk_size` should be greater than 0.")
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @tracked
    def wrapper(*args, **kwargs):
        single, nums = argnums_tuple(argnums, len(args))
        with enable_grad():
            args, own, specs, given = differentiable(args, nums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, VJP_API)
            flat_out, out_spec = pytree.flatten(output)
            tensor_outputs(flat_out, "vjp(f, *primals)")
            keep = outer_graph(flat_out, own)
            rows = _jacobians(flat_out, own, keep)
        rows = [regroup([plain(j, keep) for j in row], specs, single) for row in rows]
        result = pytree.unflatten(rows, out_spec)
        return (result, taken_out(aux, own, given)) if has_aux else result

    return wrapper


def _jacobians(flat_out, inputs, create_graph):
    """d out / d input for each output and input: one reverse pass over the standard basis
    of all the outputs' entries together, as PyTorch (so an entry gets the zeros the other
    outputs send it too, and their signs)."""
    numels = [o.numel() for o in flat_out]
    total, starts = sum(numels), [sum(numels[:j]) for j in range(len(numels))]
    diff = [j for j, o in enumerate(flat_out) if o.requires_grad]
    grads = [None] * len(inputs)
    if total and diff:
        basis = []
        for j in diff:
            eye = ops.eye(total, dtype=flat_out[j].dtype)[:, starts[j] : starts[j] + numels[j]]
            basis.append(ops.reshape(eye, (total, *flat_out[j].shape)))
        grads = grad_of(
            [flat_out[j] for j in diff],
            inputs,
            basis,
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
            is_grads_batched=True,
        )
    rows = []
    for o, start, n in zip(flat_out, starts, numels):
        row = []
        for g, t in zip(grads, inputs):
            shape = (*o.shape, *t.shape)
            row.append(
                ops.zeros(shape, dtype=t.dtype)
                if g is None
                else apply(ops.reshape, g[start : start + n], shape)
            )
        rows.append(row)
    return rows


def hessian(func, argnums=0):
    """The Hessian of a scalar function, as a function: ``jacfwd(jacrev(f))``, as PyTorch."""
    return jacfwd(jacrev(func, argnums), argnums)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` of one point applied to a batch of points (``func/mapping.py``)."""
    return mapped(func, in_dims, out_dims, randomness, chunk_size=chunk_size)
