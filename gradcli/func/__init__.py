"""``gradcli.func``: function transforms over the engine, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` differentiate in reverse
mode, ``jvp``, ``jacfwd`` and ``linearize`` in forward mode (``autograd.forward_ad``),
and ``hessian`` is ``jacfwd(jacrev(f))`` as in PyTorch. Their inputs and outputs
are pytrees (tuples, lists, dicts of tensors: ``func/pytree.py``), and they
compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))``, and any of them inside ``vmap``
(``func/mapping.py``), where each point differentiates with respect to its own
copy of the inputs (``func/batched_autograd.py``).

Each transform differentiates with respect to its own copies of the inputs, so
its results are plain tensors, except where they depend on tensors outside
that require grad (an input that does, or one the function closes over): then
they stay connected to those, as PyTorch's are. ``functional_call`` runs a
model with other tensors in place of its own (``func/stateless.py``).
"""

from __future__ import annotations

import functools

from ..engine import ops
from ..engine.backward import grad as autograd_grad
from ..engine.graph import Node
from ..engine.state import PER_THREAD, enable_grad
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliValueError, NotImplementedByGradcli
from . import pytree
from .batched_autograd import grad as batched_grad
from .batched_autograd import has_batched
from .batched_tensor import LEVELS, BatchedTensor, apply, batched_callable, lifted, wrap
from .outputs import check_scalar, split_aux, tensor_outputs
from .stateless import functional_call

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]
__all__ += ["linearize", "functional_call"]


# ----------------------------------------------------------------------------
# The inputs a transform differentiates, and its results
# ----------------------------------------------------------------------------


def _argnums_tuple(argnums, n_args):
    single = isinstance(argnums, int)
    if not single and not isinstance(argnums, tuple):
        raise EngineError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    nums = (argnums,) if single else argnums
    if not nums:
        raise EngineError("argnums must be non-empty")
    for num in nums:
        if not isinstance(num, int):
            raise EngineError(f"argnum must be int, got: {type(num)}")
        if not -n_args <= num < n_args:
            raise EngineError(f"Got argnum={num}, but only {n_args} positional inputs")
    if len(set(nums)) != len(nums):
        raise EngineError(f"argnums elements must be unique, got {argnums}")
    return single, tuple(num % n_args for num in nums)


_FRAMES = []  # per transform running, innermost last: the own copies it made (id -> tensor)
_FINISHED = {}  # the own copies of the transforms that returned, while an outer one runs


def _tracked(fn):
    """``fn`` (a transform's call) as a frame: the own copies of a transform that returned
    stay inside the transforms around it (``_reaches_outside``), those of a transform
    still running are outside the ones it runs."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        _FRAMES.append({})
        try:
            return fn(*args, **kwargs)
        finally:
            made = _FRAMES.pop()
            if _FRAMES:
                _FINISHED.update(made)
            else:
                _FINISHED.clear()

    return run


def _own_copy(t):
    """A tensor the transform differentiates with respect to, with t's values (and
    tangent): a differentiable view of t if t requires grad, else a new leaf. Inside
    vmap, one for each point of the innermost level."""
    if not isinstance(t, Tensor):
        raise GradcliValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if LEVELS and not (type(t) is BatchedTensor and t.level == len(LEVELS)):
        t = wrap(lifted(t, len(LEVELS)).physical, len(LEVELS))
    if t.requires_grad:
        return apply(ops.view, t, tuple(t.shape))
    own = t.detach().requires_grad_()
    _copy_tangent(t, own)
    if _FRAMES:
        _FRAMES[-1][id(_physical(own))] = _physical(own)
    return own


def _physical(t):
    return t.batched.physical if type(t) is BatchedTensor else t


def _copy_tangent(source, target):
    dual = PER_THREAD.forward_ad
    if dual is not None:
        dual.copy_tangent(_physical(source), _physical(target))


def _outer_graph(outputs, own):
    """Whether the outputs depend on a tensor that requires grad other than the transform's
    own copies: then the results keep a graph (create_graph)."""
    if PER_THREAD.forward_ad is not None:
        return True  # tangents travel through the reverse pass only when it records
    return _reaches_outside(outputs, own)


def _reaches_outside(outputs, own):
    """Whether the outputs' graph reaches a tensor that requires grad other than ``own`` and
    the own copies of transforms that returned (or a view of one of ``own``)."""
    own = [_physical(t) for t in own]
    own_ids = {id(t) for t in own}
    own_nodes = {t.grad_fn for t in own if t.grad_fn is not None}
    stack = [_physical(o).grad_fn for o in outputs if isinstance(o, Tensor)]
    stack = [node for node in stack if node is not None]
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
            elif parent is not None and id(parent) not in own_ids and id(parent) not in _FINISHED:
                return True
    return False


def _plain(t, keep):
    """A result as the transform returns it: detached unless it keeps a graph (its tangent,
    under forward-mode AD, kept)."""
    if keep or not isinstance(t, Tensor) or not t.requires_grad:
        return t
    plain = t.detach()
    _copy_tangent(t, plain)
    return plain


def _grad(outputs, inputs, grad_outputs=None, **options):
    """``autograd.grad`` of the outputs that require grad (None for every input when none
    does), of plain tensors or, inside vmap, of BatchedTensors."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    if grad_outputs is not None:
        given = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
        grad_outputs = [g for o, g in zip(outputs, given) if o.requires_grad]
    outputs = [o for o in outputs if o.requires_grad]
    if not outputs:
        return (None,) * len(inputs)
    if has_batched(outputs, inputs, grad_outputs):
        return batched_grad(outputs, inputs, grad_outputs, **options)
    return autograd_grad(outputs, inputs, grad_outputs, **options)


def _zeros(g, t):
    return apply(ops.zeros_like, t) if g is None else g


def _differentiable(args, nums):
    """The arguments with each leaf of those at ``nums`` replaced by the transform's own
    copy; the copies, and each one's tree."""
    args = list(args)
    trees = []
    for i in nums:
        leaves, spec = pytree.flatten(args[i])
        own = [_own_copy(leaf) for leaf in leaves]
        trees.append((own, spec))
        args[i] = pytree.unflatten(own, spec)
    return args, [t for own, _ in trees for t in own], [spec for _, spec in trees]


def _regroup(flat, specs, single):
    """Per-leaf results back into the trees of the differentiated arguments."""
    out, at = [], 0
    for spec in specs:
        out.append(pytree.unflatten(flat[at : at + spec.num_leaves], spec))
        at += spec.num_leaves
    return out[0] if single else tuple(out)


def _aux(aux):
    return pytree.tree_map(lambda a: _plain(a, False), aux)


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar function: ``grad_and_value(f)(x)``."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @_tracked
    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        with enable_grad():
            args, own, specs = _differentiable(args, nums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            check_scalar(output)
            keep = _outer_graph([output], own)
            grads = _grad(output, own, create_graph=keep, allow_unused=True)
        grads = [_plain(_zeros(g, t), keep and _outer_graph([g], own)) for g, t in zip(grads, own)]
        value = _plain(output, keep and _outer_graph([output], own))
        result = _regroup(grads, specs, single)
        if has_aux:
            return result, (value, _aux(aux))
        return result, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, as a function: ``grad(f)(x)``."""
    transformed = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = transformed(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


@_tracked
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is the tuple ``v^T J`` per primal."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran
    with enable_grad():
        args, own, specs = _differentiable(primals, range(len(primals)))
        output, aux = split_aux(func(*args), has_aux, "vjp")
    flat_out, out_spec = pytree.flatten(output)
    tensor_outputs(flat_out, "vjp(f, *primals)")
    keep = _outer_graph(flat_out, own)

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
                grads = _grad(
                    [o for o, _ in pairs],
                    own,
                    [v for _, v in pairs],
                    retain_graph=retain_graph,
                    create_graph=graph,
                    allow_unused=True,
                )
        grads = [_plain(_zeros(g, t), graph) for g, t in zip(grads, own)]
        return _regroup(grads, specs, False)

    value = pytree.tree_map(lambda o: _plain(o, keep), output)
    if has_aux:
        return value, vjp_fn, _aux(aux)
    return value, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode, as a function: ``jacrev(f)(x)`` has shape
    ``out.shape + x.shape``, in the trees of the outputs and of the inputs."""
    if not (chunk_size is None or chunk_size > 0):
        raise GradcliValueError("jacrev: `chunk_size` should be greater than 0.")
    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @_tracked
    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        with enable_grad():
            args, own, specs = _differentiable(args, nums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, "vjp")
            flat_out, out_spec = pytree.flatten(output)
            tensor_outputs(flat_out, "vjp(f, *primals)")
            keep = _outer_graph(flat_out, own)
            rows = _jacobians(flat_out, own, keep)
        rows = [_regroup([_plain(j, keep) for j in row], specs, single) for row in rows]
        result = pytree.unflatten(rows, out_spec)
        return (result, _aux(aux)) if has_aux else result

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
        grads = _grad(
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


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------

_JVP = "jvp(f, primals, tangents)"


@_tracked
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)``: the Jacobian-vector product, by forward-mode AD."""
    from ..autograd import forward_ad

    func = batched_callable(func)  # an op's own function, taken before vmap ran

    if not isinstance(primals, tuple):
        raise EngineError(
            f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_primals, primals_spec = pytree.flatten(primals)
    flat_tangents, tangents_spec = pytree.flatten(tangents)
    if primals_spec != tangents_spec:
        raise EngineError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}"
        )
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise EngineError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise EngineError(f"{_JVP}: Expected {name} to only contain Tensors, got {type(t)}")
    _single_level("jvp")
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        output, aux = split_aux(func(*pytree.unflatten(duals, primals_spec)), has_aux, "jvp")
        flat_out, out_spec = pytree.flatten(output)
        tensor_outputs(flat_out, _JVP)
        pairs = [_unpack(forward_ad, o, strict) for o in flat_out]
    value = pytree.unflatten([_connected(p) for p, _ in pairs], out_spec)
    tangent = pytree.unflatten([_connected(t) for _, t in pairs], out_spec)
    if has_aux:
        return value, tangent, aux
    return value, tangent


def _connected(t):
    """A forward-mode result: connected to the tensors outside that require grad, as
    PyTorch's, else plain."""
    return t if _reaches_outside([t], []) else _plain(t, False)


def _unpack(forward_ad, o, strict=False):
    primal, tangent = forward_ad.unpack_dual(o)
    if tangent is None and strict:
        raise EngineError(
            "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
            "inputs. This is not allowed with strict=True."
        )
    # Connected to the tensors outside that require grad, as PyTorch's (the primal viewed).
    return primal, apply(ops.zeros_like, primal) if tangent is None else tangent


def _single_level(name):
    if PER_THREAD.forward_ad is not None:
        raise NotImplementedByGradcli(
            f"{name}: nested forward-mode transforms (jvp or jacfwd inside jacfwd) are not "
            "supported in gradcli"
        )


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode, as a function: one forward pass per input entry, each
    with a tangent (zero but for the entry) on every differentiated input, as PyTorch."""
    from ..autograd import forward_ad

    func = batched_callable(func)  # an op's own function, taken before vmap ran

    @_tracked
    def wrapper(*args, **kwargs):
        single, nums = _argnums_tuple(argnums, len(args))
        _single_level("jacfwd")
        trees = [pytree.flatten(args[i]) for i in nums]
        flat = [x for leaves, _ in trees for x in leaves]
        for x in flat:
            if not isinstance(x, Tensor):
                raise EngineError(
                    f"{_JVP}: Expected primals to only contain Tensors, got {type(x)}"
                )
        columns = []  # per basis vector: the output leaves' tangents
        output = aux = None
        for j, x in enumerate(flat):
            for k in range(x.numel()):
                with forward_ad.dual_level():
                    duals = [forward_ad.make_dual(y, _basis(y, k if i == j else None))
                             for i, y in enumerate(flat)]  # fmt: skip
                    call, at = list(args), 0
                    for i, (leaves, spec) in zip(nums, trees):
                        call[i] = pytree.unflatten(duals[at : at + len(leaves)], spec)
                        at += len(leaves)
                    output, aux = split_aux(func(*call, **kwargs), has_aux, _JVP)
                    outs, _ = pytree.flatten(output)
                    tensor_outputs(outs, _JVP)
                    columns.append([_unpack(forward_ad, o)[1] for o in outs])
        if output is None:  # every input is empty: evaluate once for the shapes
            output, aux = split_aux(func(*args, **kwargs), has_aux, _JVP)
        outs, out_spec = pytree.flatten(output)
        rows = []
        for o, out in enumerate(outs):
            row, at = [], 0
            for x in flat:
                shape = tuple(out.shape) + tuple(x.shape)
                cols = [c[o] for c in columns[at : at + x.numel()]]
                at += x.numel()
                if cols:
                    row.append(apply(ops.reshape, apply(ops.stack, cols, -1), shape))
                else:
                    row.append(ops.zeros(shape, dtype=out.dtype))
            rows.append(_regroup([_connected(j) for j in row], [spec for _, spec in trees], single))
        result = pytree.unflatten(rows, out_spec)
        return (result, aux) if has_aux else result

    return wrapper


def _basis(x, k):
    """The tangent of ``x`` for the basis vector of its entry ``k`` (zeros for None)."""
    basis = ops.zeros(x.numel(), dtype=x.dtype)
    if k is not None:
        basis[k] = 1.0
    return ops.reshape(basis, tuple(x.shape))


def hessian(func, argnums=0):
    """The Hessian of a scalar function, as a function: ``jacfwd(jacrev(f))``, as PyTorch."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at
    ``primals``. PyTorch traces the forward-mode pass once and replays it; gradcli, with no
    tracer, runs it again at the same primals on each call (the same arithmetic)."""
    func = batched_callable(func)  # an op's own function, taken before vmap ran
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


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` of one point applied to a batch of points (``func/mapping.py``)."""
    from .mapping import vmap as mapped

    return mapped(func, in_dims, out_dims, randomness, chunk_size=chunk_size)
