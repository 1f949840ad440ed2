"""The inputs a ``func`` transform differentiates, and what it gives back.

Each transform differentiates with respect to its own copies of the inputs
(``own_copy``), so its results are plain tensors, except where they depend on
tensors outside that require grad (an input that does, or one the function
closes over): then they stay connected to those, as PyTorch's are
(``reaches_outside``, ``plain``); has_aux's output is taken out of the
transform's level alike (``taken_out``). Shared by the reverse-mode transforms
(``func/__init__.py``) and the forward-mode ones (``func/forward_mode.py``).
"""

from __future__ import annotations

import functools

from ..engine import ops
from ..engine.backward import grad as autograd_grad
from ..engine.forward import forget_stand_ins, is_stand_in
from ..engine.graph import Node
from ..engine.state import PER_THREAD
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliValueError
from . import pytree
from .batched_autograd import grad as batched_grad
from .batched_autograd import has_batched
from .batched_tensor import LEVELS, BatchedTensor, apply, lifted, wrap


def argnums_tuple(argnums, n_args):
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


def transforms_active() -> bool:
    """Whether a transform is running (PyTorch's ``_are_functorch_transforms_active``)."""
    return bool(_FRAMES or LEVELS)


def tracked(fn):
    """``fn`` (a transform's call) as a frame: the own copies of a transform that returned
    stay inside the transforms around it (``reaches_outside``), those of a transform
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
                forget_stand_ins()

    return run


def own_copy(t):
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
    copy_tangent(t, own)
    if _FRAMES:
        _FRAMES[-1][id(physical(own))] = physical(own)
    return own


def physical(t):
    return t.batched.physical if type(t) is BatchedTensor else t


def copy_tangent(source, target):
    dual = PER_THREAD.forward_ad
    if dual is not None:
        dual.copy_tangent(physical(source), physical(target))


def outer_graph(outputs, own):
    """Whether the outputs depend on a tensor that requires grad other than the transform's
    own copies: then the results keep a graph (create_graph)."""
    if PER_THREAD.forward_ad is not None:
        return True  # tangents travel through the reverse pass only when it records
    return reaches_outside(outputs, own)


def reaches_outside(outputs, own):
    """Whether the outputs' graph reaches a tensor that requires grad other than ``own`` and
    the own copies of transforms that returned (or a view of one of ``own``)."""
    own = [physical(t) for t in own]
    own_ids = {id(t) for t in own}
    own_nodes = {t.grad_fn for t in own if t.grad_fn is not None}
    stack = [physical(o).grad_fn for o in outputs if isinstance(o, Tensor)]
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
                if not is_stand_in(parent):  # a forward-mode rule's own: not outside
                    return True
    return False


def plain(t, keep):
    """A result as the transform returns it: detached unless it keeps a graph (its tangent,
    under forward-mode AD, kept)."""
    if keep or not isinstance(t, Tensor) or not t.requires_grad:
        return t
    plain = t.detach()
    copy_tangent(t, plain)
    return plain


def grad_of(outputs, inputs, grad_outputs=None, **options):
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


def zeros_for(g, t):
    return apply(ops.zeros_like, t) if g is None else g


def differentiable(args, nums):
    """The arguments with each leaf of those at ``nums`` replaced by the transform's own
    copy; the copies, and each one's tree."""
    args = list(args)
    trees = []
    for i in nums:
        leaves, spec = pytree.flatten(args[i])
        own = [own_copy(leaf) for leaf in leaves]
        trees.append((own, spec, leaves))
        args[i] = pytree.unflatten(own, spec)
    own = [t for own, _, _ in trees for t in own]
    return args, own, [spec for _, spec, _ in trees], [t for _, _, given in trees for t in given]


def regroup(flat, specs, single):
    """Per-leaf results back into the trees of the differentiated arguments."""
    out, at = [], 0
    for spec in specs:
        out.append(pytree.unflatten(flat[at : at + spec.num_leaves], spec))
        at += spec.num_leaves
    return out[0] if single else tuple(out)


GRAD_API, VJP_API = "grad_and_value(f)(*args)", "vjp(f, *primals)"
JVP_API = "jvp(f, primals, tangents)"


def taken_out(aux, own, given, stand_ins=None):
    """has_aux's output as PyTorch's transforms give it back, each tensor taken out of the
    transform's level: the tensor that stood for an input (its own copy, or in forward
    mode its dual in ``stand_ins``) is that input (``given``; in forward mode an alias of
    one that requires grad), any other stays connected to the tensors outside that
    require grad, else is plain."""

    def taken_out(a):
        if not isinstance(a, Tensor):
            raise EngineError(f"Expected tensors, got unsupported type {type(a)}")
        for stand_in, x in zip(own if stand_ins is None else stand_ins, given):
            if a is stand_in:
                return x if stand_ins is None else alias(x)
        if a.requires_grad and a.grad_fn is None and not any(a is t for t in own):
            return a  # a leaf from outside (a tensor the function closes over)
        return a if reaches_outside([a], own) else plain(a, False)

    return pytree.tree_map(taken_out, aux)


def alias(t):
    """A forward-mode transform's result that requires grad: an alias of it, as PyTorch's
    (its dual's primal, AliasBackward0)."""
    return apply(ops.getitem, t, Ellipsis) if t.requires_grad else t
