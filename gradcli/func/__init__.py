"""``gradcli.func``: function transforms over the engine, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` differentiate in reverse
mode, ``jvp`` and ``jacfwd`` in forward mode (``autograd.forward_ad``), and
``hessian`` is ``jacfwd(jacrev(f))`` as in PyTorch. They compose: ``grad(grad(f))``
and ``jacfwd(jacrev(f))`` differentiate the differentiation.

Each transform differentiates with respect to its own copies of the inputs, so
its results are plain tensors, except where they depend on tensors outside
that require grad (an input that does, or one the function closes over): then
they stay connected to those, as PyTorch's are. ``vmap`` runs a function of
one point on a batch through the op table's batching rules (``func/batched_tensor.py``).
"""

from __future__ import annotations

from ..engine import ops
from ..engine.backward import grad as autograd_grad
from ..engine.graph import Node
from ..engine.state import PER_THREAD, enable_grad
from ..engine.tensor import Tensor
from ..errors import EngineError, NotImplementedByGradcli
from .outputs import check_scalar, split_aux

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]


# ----------------------------------------------------------------------------
# The inputs a transform differentiates, and its results
# ----------------------------------------------------------------------------


def _argnums_tuple(argnums, n_args):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for num in nums:
        if not -n_args <= num < n_args:
            raise EngineError(f"Got argnum={num}, but only {n_args} positional inputs")
    return single, tuple(num % n_args for num in nums)


def _own_copy(t):
    """A tensor the transform differentiates with respect to, with t's values (and
    tangent): a differentiable view of t if t requires grad, else a new leaf."""
    if type(t) is not Tensor:
        raise EngineError(f"Expected the inputs to be Tensors, got {type(t).__name__}")
    if t.requires_grad:
        return ops.view(t, tuple(t.shape))
    own = t.detach().requires_grad_()
    dual = PER_THREAD.forward_ad
    if dual is not None:
        dual.copy_tangent(t, own)
    return own


def _outer_graph(outputs, own):
    """Whether the outputs depend on a tensor that requires grad other than the transform's
    own copies: then the results keep a graph (create_graph)."""
    if PER_THREAD.forward_ad is not None:
        return True  # tangents travel through the reverse pass only when it records
    own_ids = {id(t) for t in own}
    own_nodes = {t.grad_fn for t in own if t.grad_fn is not None}
    stack = [o.grad_fn for o in outputs if type(o) is Tensor and o.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node in own_nodes:
            return True  # an input that requires grad, viewed
        if node in seen:
            continue
        seen.add(node)
        for parent in node.parents:
            if isinstance(parent, Node):
                stack.append(parent)
            elif parent is not None and id(parent) not in own_ids:
                return True
    return False


def _plain(t, keep):
    """A result as the transform returns it: detached unless it keeps a graph (its tangent,
    under forward-mode AD, kept)."""
    if keep or type(t) is not Tensor or not t.requires_grad:
        return t
    plain = t.detach()
    dual = PER_THREAD.forward_ad
    if dual is not None:
        dual.copy_tangent(t, plain)
    return plain


def _tree(value, fn):
    if isinstance(value, (tuple, list)):
        return type(value)(_tree(v, fn) for v in value)
    return fn(value)


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar function: ``grad_and_value(f)(x)``."""

    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        if any(type(a).__name__ == "BatchedTensor" for a in args):  # inside vmap
            from .batched_tensor import per_point_grad_and_value

            return per_point_grad_and_value(func, args, kwargs, single, nums, has_aux)
        with enable_grad():
            args = list(args)
            own = [_own_copy(args[i]) for i in nums]
            for i, t in zip(nums, own):
                args[i] = t
            output, aux = split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            check_scalar(output)
            keep = _outer_graph([output], own)
            grads = autograd_grad(output, own, create_graph=keep, allow_unused=True)
        grads = tuple(ops.zeros_like(t) if g is None else g for g, t in zip(grads, own))
        grads = tuple(_plain(g, keep and _outer_graph([g], own)) for g in grads)
        value = _plain(output, keep and _outer_graph([output], own))
        result = grads[0] if single else grads
        if has_aux:
            return result, (value, _tree(aux, lambda a: _plain(a, False)))
        return result, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, as a function: ``grad(f)(x)``."""
    transformed = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = transformed(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is the tuple ``v^T J`` per primal."""
    with enable_grad():
        own = [_own_copy(p) for p in primals]
        output, aux = split_aux(func(*own), has_aux, "vjp")
    outputs = output if isinstance(output, tuple) else (output,)
    keep = _outer_graph(list(outputs), own)

    def vjp_fn(cotangents):
        vs = cotangents if isinstance(cotangents, tuple) else (cotangents,)
        if len(vs) != len(outputs):
            raise EngineError(
                f"Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {len(vs)} entries, primal output: "
                f"{len(outputs)} entries"
            )
        pairs = [(o, v) for o, v in zip(outputs, vs) if o.requires_grad]
        with enable_grad():
            if pairs:
                grads = autograd_grad(
                    [o for o, _ in pairs],
                    own,
                    [v for _, v in pairs],
                    retain_graph=True,
                    create_graph=keep,
                    allow_unused=True,
                )
            else:
                grads = (None,) * len(own)
        return tuple(
            _plain(ops.zeros_like(t) if g is None else g, keep) for g, t in zip(grads, own)
        )

    value = _tree(output, lambda o: _plain(o, keep))
    if has_aux:
        return value, vjp_fn, _tree(aux, lambda a: _plain(a, False))
    return value, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian by reverse mode, as a function: ``jacrev(f)(x)`` has shape
    ``out.shape + x.shape`` (tuples for several outputs or ``argnums``)."""

    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        with enable_grad():
            args = list(args)
            own = [_own_copy(args[i]) for i in nums]
            for i, t in zip(nums, own):
                args[i] = t
            output, aux = split_aux(func(*args, **kwargs), has_aux, "jacrev")
            outputs = output if isinstance(output, tuple) else (output,)
            keep = _outer_graph(list(outputs), own)
            rows = [_jacobian_rows(out, own, keep) for out in outputs]
        rows = [tuple(_plain(j, keep) for j in row) for row in rows]
        rows = [row[0] if single else row for row in rows]
        result = tuple(rows) if isinstance(output, tuple) else rows[0]
        return (result, _tree(aux, lambda a: _plain(a, False))) if has_aux else result

    return wrapper


def _jacobian_rows(out, inputs, create_graph):
    """d out / d input for each input, by one batched reverse pass over the identity."""
    n = out.numel()
    shapes = [tuple(out.shape) + tuple(t.shape) for t in inputs]
    if not out.requires_grad or n == 0:
        return tuple(ops.zeros(shape, dtype=t.dtype) for shape, t in zip(shapes, inputs))
    eye = ops.reshape(ops.eye(n, dtype=out.dtype), (n, *out.shape))
    grads = autograd_grad(
        out,
        inputs,
        eye,
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
        is_grads_batched=True,
    )
    return tuple(
        ops.zeros(shape, dtype=t.dtype) if g is None else ops.reshape(g, shape)
        for g, t, shape in zip(grads, inputs, shapes)
    )


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)``: the Jacobian-vector product, by forward-mode AD."""
    from ..autograd import forward_ad

    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise EngineError(
                f"jvp(f, primals, tangents): Expected {name} to be a tuple. "
                "E.g. it should be valid to call f(*primals)."
            )
    if len(primals) != len(tangents):
        raise EngineError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must "
            f"be. Got primals with structure {len(primals)} and tangents with structure "
            f"{len(tangents)}"
        )
    _single_level("jvp")
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(primals, tangents)]
        output, aux = split_aux(func(*duals), has_aux, "jvp")
        if isinstance(output, tuple):
            pairs = [_unpack(forward_ad, o) for o in output]
            value, tangent = tuple(p for p, _ in pairs), tuple(t for _, t in pairs)
        else:
            value, tangent = _unpack(forward_ad, output)
    if has_aux:
        return value, tangent, aux
    return value, tangent


def _unpack(forward_ad, o):
    primal, tangent = forward_ad.unpack_dual(o)
    return primal.detach(), (ops.zeros_like(primal) if tangent is None else tangent.detach())


def _single_level(name):
    if PER_THREAD.forward_ad is not None:
        raise NotImplementedByGradcli(
            f"{name}: nested forward-mode transforms (jvp or jacfwd inside jacfwd) are not "
            "supported in gradcli"
        )


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode, as a function: one forward pass per input entry."""
    from ..autograd import forward_ad

    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        _single_level("jacfwd")
        columns = {i: [] for i in nums}  # per input: per entry, the tangents of the outputs
        output = aux = None
        for i in nums:
            x = args[i]
            for k in range(x.numel()):
                basis = ops.zeros(x.numel(), dtype=x.dtype)
                basis[k] = 1.0
                with forward_ad.dual_level():
                    call = list(args)
                    call[i] = forward_ad.make_dual(x, ops.reshape(basis, tuple(x.shape)))
                    output, aux = split_aux(func(*call, **kwargs), has_aux, "jacfwd")
                    outs = output if isinstance(output, tuple) else (output,)
                    columns[i].append([_unpack(forward_ad, o)[1] for o in outs])
        if output is None:  # every input is empty: evaluate once for the shapes
            output, aux = split_aux(func(*args, **kwargs), has_aux, "jacfwd")
        outs = output if isinstance(output, tuple) else (output,)
        rows = []
        for j, out in enumerate(outs):
            row = []
            for i in nums:
                shape = tuple(out.shape) + tuple(args[i].shape)
                if columns[i]:
                    stacked = ops.stack([col[j] for col in columns[i]], -1)
                    row.append(ops.reshape(stacked, shape))
                else:
                    row.append(ops.zeros(shape, dtype=out.dtype))
            rows.append(row[0] if single else tuple(row))
        result = tuple(rows) if isinstance(output, tuple) else rows[0]
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function, as a function: ``jacfwd(jacrev(f))``, as PyTorch."""
    return jacfwd(jacrev(func, argnums), argnums)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` of one point applied to a batch of points (``func.vmap``)."""
    from .batched_tensor import vmap as batched

    return batched(func, in_dims, out_dims, randomness, chunk_size=chunk_size)
