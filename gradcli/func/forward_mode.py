"""The forward-mode transforms of ``gradcli.func``: ``jvp``, ``jacfwd`` and ``linearize``.

Each enters a dual level of its own (``autograd.forward_ad.nested_level``): one
inside another's nests, so ``jacfwd(jacfwd(f))`` and ``jvp`` of a ``jvp`` carry
tangents of tangents (``engine/forward.py``). ``jacfwd`` is PyTorch's own
algorithm: ``jvp`` vmapped over the whole basis of tangents in one pass, so the
draws are that vmap's and a Function needs a batching rule there.
"""

from __future__ import annotations

from ..autograd import forward_ad, pytree
from ..autograd.batched_tensor import apply, batched_callable
from ..autograd.copies import (
    JVP_API,
    alias,
    argnums_tuple,
    physical,
    plain,
    reaches_outside,
    regroup,
    taken_out,
    tracked,
)
from ..autograd.custom_rules import MAPPED_BASES
from ..autograd.forward_ad import NESTED
from ..autograd.mapping import basis_vmap
from ..engine import ops
from ..engine.state import PER_THREAD
from ..engine.tensor import Tensor
from ..errors import EngineError
from .outputs import split_aux, tensor_outputs

__all__ = ["jvp", "jacfwd", "linearize"]


@tracked
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)``: the Jacobian-vector product, by forward-mode AD."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    if not isinstance(primals, tuple):
        raise EngineError(
            f"{JVP_API}: Expected primals to be a tuple. E.g. it should be valid to call "
            "f(*primals)."
        )
    flat_primals, primals_spec = pytree.flatten(primals)
    flat_tangents, tangents_spec = pytree.flatten(tangents)
    if primals_spec != tangents_spec:
        raise EngineError(
            f"{JVP_API}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}"
        )
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise EngineError(f"{JVP_API}: Expected {name} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise EngineError(
                    f"{JVP_API}: Expected {name} to only contain Tensors, got {type(t)}"
                )
    with forward_ad.nested_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        output, aux = split_aux(func(*pytree.unflatten(duals, primals_spec)), has_aux, JVP_API)
        flat_out, out_spec = pytree.flatten(output)
        tensor_outputs(flat_out, JVP_API)
        pairs = [_unpack(forward_ad, o, strict) for o in flat_out]
    value = pytree.unflatten([alias(_connected(p)) for p, _ in pairs], out_spec)
    tangent = pytree.unflatten([_connected(t) for _, t in pairs], out_spec)
    if has_aux:
        return value, tangent, taken_out(aux, [], flat_primals, duals)
    return value, tangent


def _connected(t):
    """A forward-mode result: connected to the tensors outside that require grad, as
    PyTorch's, else plain."""
    return t if reaches_outside([t], []) else plain(t, False)


def _unpack(forward_ad, o, strict=False):
    primal, tangent = forward_ad.unpack_dual(o)
    if tangent is None and strict:
        raise EngineError(
            "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
            "inputs. This is not allowed with strict=True."
        )
    # Connected to the tensors outside that require grad, as PyTorch's (the primal viewed).
    return primal, apply(ops.zeros_like, primal) if tangent is None else tangent


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode, as a function: as PyTorch's, ``jvp`` vmapped over the
    standard basis of all the differentiated inputs' entries together, in one pass. Random
    ops follow ``randomness`` as that vmap's: 'error' refuses them, 'same' draws once,
    'different' draws for every basis vector."""

    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @tracked
    def wrapper(*args, **kwargs):
        MAPPED_BASES.append(True)
        try:
            return _jacfwd(func, argnums, has_aux, randomness, args, kwargs)
        finally:
            MAPPED_BASES.pop()

    return wrapper


def _jacfwd(func, argnums, has_aux, randomness, args, kwargs):
    if randomness not in ("error", "same", "different"):
        raise EngineError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    single, nums = argnums_tuple(argnums, len(args))
    trees = [pytree.flatten(args[i]) for i in nums]
    flat = [x for leaves, _ in trees for x in leaves]
    for x in flat:
        if not isinstance(x, Tensor):
            raise EngineError(f"{JVP_API}: Expected primals to only contain Tensors, got {type(x)}")
    return _mapped_jacfwd(func, nums, trees, single, has_aux, args, kwargs, randomness)


def _placed(args, nums, trees, leaves):
    """``args`` with the arguments at ``nums`` rebuilt from ``leaves`` (in their trees)."""
    call, at = list(args), 0
    for i, (given, spec) in zip(nums, trees):
        call[i] = pytree.unflatten(leaves[at : at + len(given)], spec)
        at += len(given)
    return call


def _mapped_jacfwd(func, nums, trees, single, has_aux, args, kwargs, randomness):
    """jacfwd as PyTorch computes it: ``jvp`` vmapped over the standard basis of all the
    inputs' entries together (``basis_vmap``: its points differ in their tangents alone)."""
    flat = [x for leaves, _ in trees for x in leaves]
    numels = [x.numel() for x in flat]
    total, starts = sum(numels), [sum(numels[:j]) for j in range(len(numels))]
    basis = []
    for x, start, n in zip(flat, starts, numels):
        eye = ops.eye(total, dtype=physical(x).dtype)[:, start : start + n]
        basis.append(apply(ops.reshape, eye, (total, *x.shape)))

    def push_jvp(*tangents):
        def at(*primals):
            call = list(args)
            for i, primal in zip(nums, primals):
                call[i] = primal
            return func(*call, **kwargs)

        primals = tuple(args[i] for i in nums)
        grouped = _placed([None] * len(nums), range(len(nums)), trees, list(tangents))
        out = jvp(at, primals, tuple(grouped), has_aux=has_aux)
        return (out[1], out[2]) if has_aux else out[1]

    results = basis_vmap(push_jvp, randomness)(*basis)
    aux = None
    if has_aux:  # the first point's, as PyTorch's
        results, aux = results
        aux = pytree.tree_map(lambda a: apply(ops.getitem, a, 0), aux)
    outs, out_spec = pytree.flatten(results)
    specs = [spec for _, spec in trees]
    rows = []
    for out in outs:
        moved = out.permute(*range(1, out.dim()), 0)
        row = [
            apply(ops.reshape, moved[..., start : start + n], (*out.shape[1:], *x.shape))
            for x, start, n in zip(flat, starts, numels)
        ]
        rows.append(regroup(row, specs, single))
    result = pytree.unflatten(rows, out_spec)
    return (result, aux) if has_aux else result


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at
    ``primals``. PyTorch traces the forward-mode pass once and replays it; gradcli, with no
    tracer, runs it again at the same primals on each call (the same arithmetic)."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    if PER_THREAD.forward_ad is not None:  # PyTorch traces in a dual level of its own
        raise EngineError(NESTED)
    output = func(*primals)
    flat_primals, primals_spec = pytree.flatten(primals)
    _, out_spec = pytree.flatten(output)

    def jvp_fn(*tangents):
        flat_tangents, spec = pytree.flatten(tangents)
        if spec != primals_spec:
            raise EngineError(
                f"Expected the tangents {spec} to have the same argspec as the primals "
                f"{primals_spec}"
            )
        for i, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what, a, b in (("shape", t.shape, p.shape), ("dtype", t.dtype, p.dtype)):
                if a != b:
                    raise EngineError(
                        f"tangent:{i} with {what} {a} in flattened pytree doesn't match the "
                        f"{what} {b} of the corresponding primal."
                    )
        # PyTorch replays a traced graph: its products hold no graph of their own.
        return pytree.tree_map(lambda t: t.detach(), jvp(func, primals, tangents)[1])

    return output, jvp_fn
