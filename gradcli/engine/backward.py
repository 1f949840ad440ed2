"""The reverse pass, and the two ways to start it: ``backward`` and ``autograd.grad``.

The pass (``run_backward``) has three steps:
1. schedule (``schedule.py``): count, for each node, the edges that lead into it
   from the roots (a node runs once every gradient for it has arrived), and with
   ``inputs`` mark, in the same walk, the nodes that lead to one of them (only these
   run, as in PyTorch; nothing is marked when every node does);
2. a loop that takes a ready node and calls its overload's rule per input, in
   one of two modes sharing the same rules (as in HIPS autograd):
   - fast (``create_graph=False``): rules see the saved raw NumPy arrays, so
     the ops they call are plain NumPy and nothing is recorded;
   - differentiable (``create_graph=True``): rules see tensors wired to the
     original graph, so their result is itself differentiable (Hessians);
3. accumulation: each gradient is summed back to its input's shape (once, for
   every op) and added to its parent node's or leaf's total.
Observers see the gradients as they pass: the hooks on a tensor
(``register_hook``, ``retain_grad``) and the anomaly check (``state.PER_THREAD.anomaly``).

A pass may carry leading *batch* dimensions on every gradient (the Jacobian of
a vector output is one pass over the identity); rules let them pass through.
"""

from __future__ import annotations

import numpy as np

from ..errors import EngineError, GradcliTypeError
from . import messages, state
from .graph import IN_SLOTS
from .handed import cloned_in_graph, copied_in_graph, finish_grad, take_grad
from .messages import NO_GRAD_FN, SECOND_BACKWARD
from .ops import sum_to, zeros_like
from .saved import MODIFIED, unpacked
from .saved import check as check_saved
from .schedule import schedule
from .tensor import Size, Tensor


def run_backward(roots, root_grads, *, retain_graph, create_graph, batch_dims=0, inputs=None):
    """Propagate ``root_grads`` from ``roots`` to the leaves.

    Returns ``(leaf_grads, captured)``: ``leaf_grads`` maps ``id(leaf)`` to
    ``[leaf, grad]``; ``captured`` maps the grad_fn of each non-leaf tensor in
    ``inputs`` to the gradient that reached it. Gradients are raw arrays unless
    ``create_graph``.

    What every node does (its rules' call, each gradient summed to its input's shape and
    added to its parent's total) stays in this loop, not in helpers: with those steps
    split out too, the backward of a 300-op scalar chain (bench_engine's case (a), 75
    steps) took 1.14-1.20x as long, a 40,000-op chain's 1.09-1.29x (runs interleaved
    with this loop, min and median). What only some nodes do is named (``_release``,
    ``_observed``, ``_differentiable_inputs``, ``_whole_gradients``): 0.98-1.02x.
    """
    node_grads, leaf_grads = _seed(roots, root_grads)
    pending, ready, pruning, hooked = schedule(node_grads, inputs)  # 1. schedule
    anomaly = state.PER_THREAD.anomaly
    free = not retain_graph
    outputs = {}  # differentiable mode: each node's result as a tensor, made once per pass
    take_ready, take_grad, add_ready = ready.pop, node_grads.pop, ready.append
    while ready:  # 2. the loop: each ready node's rules, on the gradient that reached it
        node = take_ready()
        g = take_grad(node, None)
        if pruning is not None:
            g = pruning.gradient(node, g)
        n = node.n
        parents = (node.p0,) if n == 1 else (node.p0, node.p1) if n == 2 else node.pn
        if g is None:  # nothing reached it (or pruned): its parents only count it as done
            _release(parents, pending, add_ready)
            continue
        hooks = node.hooks
        if hooks is not None:
            g = _observed(hooks, g, create_graph)
        op, saved = node.op, node.sn
        if saved is IN_SLOTS:  # an op of one or two inputs: they are in the node's slots
            saved = (node.s0,) if n == 1 else (node.s0, node.s1)
        elif saved is None:
            raise EngineError(SECOND_BACKWARD)
        if MODIFIED and op.saves:  # only once an in-place op has run
            check_saved(node)
        if create_graph:  # differentiable mode: the rules see tensors wired to the graph
            g, ans, args = _differentiable_inputs(node, g, parents, saved, outputs)
        else:  # fast mode: they see the saved raw arrays, so nothing is recorded
            ans, args = node.ans, saved
        rules, params, kwargs = op.rules, node.params, node.kwargs
        grads = None
        if hooks is not None or op.variadic:
            ans, args, grads, rules = _whole_gradients(node, g, ans, args, batch_dims, create_graph)
        if free and op.saves:
            node.saved = node.wired = None
        # The rules' arguments, made once for all the node's inputs.
        if params or n > 2:
            call = (g, ans, *args, *params)
        else:  # built directly: a starred tuple is a list first
            call = (g, ans, args[0], args[1]) if n == 2 else (g, ans, args[0])
        for i, parent in enumerate(parents):  # 3. each input's gradient, into its parent's total
            if parent is None:
                continue
            if rules is None:
                gi = grads[i]
            else:
                rule = rules[i]
                gi = None if rule is None else rule(*call, **kwargs) if kwargs else rule(*call)
            if gi is not None:
                shape = saved[i].shape  # a broadcast gradient is summed back to it, once
                g_shape = gi._data.shape if type(gi) is Tensor else gi.shape  # not a Size
                if batch_dims:
                    if g_shape[batch_dims:] != shape or len(g_shape) != len(shape) + batch_dims:
                        gi = sum_to(gi, shape, batch_dims)
                elif g_shape != shape:
                    gi = sum_to(gi, shape, 0)
                if anomaly is not None:  # the observer of every gradient a rule makes
                    anomaly(node, i, g, gi)
                if type(parent) is Tensor:
                    _accumulate_leaf(leaf_grads, parent, gi)
                    if hooked and id(parent) in hooked:
                        _leaf_reached(parent, hooked, leaf_grads, node_grads, create_graph)
                    continue
                prev = node_grads.get(parent)
                node_grads[parent] = gi if prev is None else prev + gi
            elif type(parent) is Tensor:
                if hooked and id(parent) in hooked:
                    _leaf_reached(parent, hooked, leaf_grads, node_grads, create_graph)
                continue
            count = pending[parent] - 1
            pending[parent] = count
            if count == 0:
                add_ready(parent)
    return leaf_grads, {} if pruning is None else pruning.captured


def _release(parents, pending, add_ready):
    """A node no gradient reached: each parent counts its edge as done."""
    for parent in parents:
        if parent is not None and type(parent) is not Tensor:
            count = pending[parent] - 1
            pending[parent] = count
            if count == 0:
                add_ready(parent)


def _observed(hooks, g, create_graph):
    """The gradient after the observers of this tensor's gradient and the node's prehooks."""
    g = run_hooks(hooks, g, create_graph)
    return _node_prehooks(hooks, g, create_graph) if hooks.node_pre else g


def _differentiable_inputs(node, g, parents, saved, outputs):
    """``(g, ans, args)`` as tensors wired to the graph, for a differentiable pass.

    The node's result is wrapped once a pass (``outputs``: its own rules and its
    children's read it), its inputs once for all passes (each higher derivative's pass
    runs the original nodes again): kept on the node, which may refer to its parents'
    tensors but not to its own (a cycle)."""
    if type(g) is not Tensor:
        g = Tensor._make(g)
    op = node.op
    if op.reads_result or op.reads_result is None and op.decide_reads_result():
        ans = outputs.get(node)
        if ans is None:
            ans = outputs[node] = _on_graph(node.ans, node)
    else:  # no rule of the op reads it (optable.reads_result): not wrapped
        ans = node.ans
    args = node.wired
    if args is None:
        node.wired = args = _wired_inputs(parents, saved, outputs)
    return g, ans, args


def _whole_gradients(node, g, ans, args, batch_dims, create_graph):
    """``(ans, args, grads, rules)`` for a node with hooks or a variadic op: its saved
    values unpacked, and the gradients of all its inputs at once (``rules`` None) when
    one rule gives them all or the node's posthooks may replace them."""
    op, hooks = node.op, node.hooks
    if hooks is not None and hooks.packed is not None:
        ans, args = unpacked(node, ans, args, create_graph)
    rules, grads = op.rules, None
    if op.variadic:  # one rule gives the gradients of all the inputs at once
        grads, rules = op.variadic_backward(g, ans, args, node.params, node.kwargs), None
    if hooks is not None and hooks.node_post:
        grads = _node_posthooks(node, g, ans, args, rules, grads, batch_dims, create_graph)
        rules = None
    return ans, args, grads, rules


def _seed(roots, root_grads):
    """The gradients the pass starts from: by node for computed roots, by leaf for leaves."""
    node_grads, leaf_grads = {}, {}
    for root, g in zip(roots, root_grads):
        node = root._grad_fn
        if node is not None:
            node_grads[node] = node_grads[node] + g if node in node_grads else g
        elif root.requires_grad:
            _accumulate_leaf(leaf_grads, root, g)
    return node_grads, leaf_grads


def _wired_inputs(parents, saved, outputs):
    """The saved inputs as tensors connected to the graph, for a differentiable pass: a
    constant as it is, a leaf itself, a node's result as the pass's one tensor of it
    (``outputs``)."""
    wired = []
    for parent, raw in zip(parents, saved):
        if parent is not None:
            if type(parent) is Tensor:
                raw = parent
            elif raw is parent.ans:
                t = outputs.get(parent)
                if t is None:
                    t = outputs[parent] = _on_graph(raw, parent)
                raw = t
            else:
                raw = _on_graph(raw, parent)
        wired.append(raw)
    return tuple(wired)


def _on_graph(raw, node):
    t = object.__new__(Tensor)  # Tensor._make, inline
    t._data = raw
    t.requires_grad = True
    t._grad_fn = node
    t.grad = None
    return t


def _accumulate_leaf(leaf_grads, leaf, g):
    entry = leaf_grads.get(id(leaf))
    if entry is None:
        leaf_grads[id(leaf)] = [leaf, g]
        return
    total = entry[1]
    if (
        len(entry) == 3
        and type(g) is np.ndarray
        and g.shape == total.shape
        and (g.dtype == total.dtype)
    ):  # a sum this pass made, which nothing else holds: added into, not copied
        np.add(total, g, out=total)
        return
    entry[1] = total = total + g
    if type(total) is np.ndarray and len(entry) == 2:
        entry.append(True)


def _leaf_reached(leaf, hooked, leaf_grads, node_grads, create_graph):
    """An edge into a leaf with hooks on its gradient is done: after its last, the hooks
    run there and then, as PyTorch's AccumulateGrad runs as soon as it is ready, on the
    array the node gave (a hook that writes it in place, ``g.mul_(100)``, changes what
    the node gave its other inputs too, as in PyTorch). A leaf that took the same array
    before keeps a copy, as AccumulateGrad copies a gradient still shared."""
    count = hooked[id(leaf)] - 1
    hooked[id(leaf)] = count
    entry = leaf_grads.get(id(leaf))
    if count or entry is None:
        return
    g = entry[1]
    if type(g) is Tensor:  # a pass that creates a graph: the hooks see the tensor itself
        entry[1] = run_hooks(leaf._hooks, g, create_graph)
        entry.append(HOOKS_RAN)
        return
    through = _written_through(g)
    if through is not None:
        g = through
    elif type(g) is not np.ndarray or not g.flags.writeable:
        # A NumPy scalar (of 0-d arithmetic) or a broadcast view: an array the hook can
        # write, given to the nodes waiting on the same value as well.
        shared, g = g, np.array(g)
        for node, value in node_grads.items():
            if value is shared:
                node_grads[node] = g
    for other in leaf_grads.values():
        if other is not entry and other[1] is g:
            other[1] = g.copy()
    entry[1] = run_hooks(leaf._hooks, g, create_graph)
    entry.append(HOOKS_RAN)


def _written_through(g):
    """A writeable view of the one number a read-only view ``g`` reads, or None.

    A 0-d gradient that a rule spread by a view (sum's: PyTorch's expand), then split
    (stack's unbind, cat's slices), is one number every view reads, in PyTorch as here:
    a hook that writes its view in place changes what the others read, the other
    operands' gradients and the leaves that took a view (``torch.stack([a * 3,
    d]).sum()`` with d's hook ``g.mul_(100)`` gives a.grad 300)."""
    if type(g) is not np.ndarray or g.flags.writeable or g.size != 1:
        return None
    root = g
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.size != 1 or not root.flags.writeable:
        return None
    return root.reshape(g.shape)


HOOKS_RAN = "hooks ran"  # the mark of a leaf_grads entry whose leaf's hooks have run


def grad_reaching(t, leaf_grads, captured):
    """The gradient ``run_backward`` left for ``t``, one of its ``inputs``, or None."""
    if t._grad_fn is not None:
        return captured.get(t._grad_fn)
    entry = leaf_grads.get(id(t))
    return None if entry is None else entry[1]


# ----------------------------------------------------------------------------
# Observers: the hooks on a tensor's gradient
# ----------------------------------------------------------------------------


def run_hooks(holder, g, create_graph):
    """The gradient after a tensor's hooks (each may return a replacement); retained last."""
    for hook in list(holder.hooks.values()):
        result = hook(g if type(g) is Tensor else Tensor._make(g))
        if result is not None:
            g = result if create_graph or type(result) is not Tensor else result._data
    if holder.retained is not None:
        tensor = holder.retained
        g_final = finish_grad(g, tensor._data.dtype, create_graph)
        if tensor.grad is None:  # PyTorch's retain_grad hook clones it
            tensor.grad = cloned_in_graph(g_final) if g_final.requires_grad else g_final
        else:
            tensor.grad = tensor.grad + g_final
    return g


def _node_prehooks(holder, g, create_graph):
    """The gradient after the node's prehooks: ``fn(grad_outputs)``, a tuple may replace it."""
    for hook in list(holder.node_pre.values()):
        result = hook((g if type(g) is Tensor else Tensor._make(g),))
        if result is not None:
            g = result[0] if create_graph or type(result[0]) is not Tensor else result[0]._data
    return g


def _node_posthooks(node, g, ans, args, rules, grads, batch_dims, create_graph):
    """Every input's gradient at once (summed to its shape), handed to the node's hooks
    ``fn(grad_inputs, grad_outputs)``; a tuple one returns replaces them."""
    parents = node.parents
    out = []
    for i, parent in enumerate(parents):
        gi = None
        if parent is not None:
            if rules is None:
                gi = grads[i]
            elif rules[i] is not None:
                gi = rules[i](g, ans, *args, *node.params, **node.kwargs)
            shape = node.saved[i].shape
            if gi is not None and (
                gi.shape[batch_dims:] != shape or gi.ndim != len(shape) + batch_dims
            ):
                gi = sum_to(gi, shape, batch_dims)
        out.append(gi)

    def wrap(v):
        return None if v is None else v if type(v) is Tensor else Tensor._make(v)

    outputs = (wrap(g),)
    for hook in list(node.hooks.node_post.values()):
        result = hook(tuple(wrap(v) for v in out), outputs)
        if result is not None:
            out = [
                v if v is None or create_graph or type(v) is not Tensor else v._data for v in result
            ]
    return out


def _leaf_hooks(t):
    return getattr(t, "_hooks", None)


def _check_roots(roots, root_grads, create_graph, batch_dims=0):
    # PyTorch's order: every gradient against its output first, then whether outputs need grad.
    grads = []
    for i, root in enumerate(roots):
        if type(root) is not Tensor:
            raise GradcliTypeError(f"expected a Tensor as output {i}, got {type(root).__name__}")
        g = None if root_grads is None else root_grads[i]
        root_kind = root._data.dtype.kind
        if g is None:
            if root.requires_grad and (root._data.size != 1 or root_kind == "c"):
                raise EngineError(messages.implicit_gradient(root._data))
            g = np.ones_like(root._data)
        else:
            if type(g) is Tensor:
                g_data = g._data
            elif type(g) is np.ndarray:
                g_data = g if g.dtype.kind == "c" else g.astype(root._data.dtype, copy=False)
            else:
                raise GradcliTypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}"
                )
            if g_data.shape[batch_dims:] != root._data.shape or g_data.ndim < batch_dims:
                if batch_dims:
                    raise EngineError(
                        messages.batched_shape_mismatch(i, g_data.shape, root._data.shape)
                    )
                raise EngineError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g_data.shape)} "
                    f"and output[{i}] has a shape of {Size(root._data.shape)}."
                )
            if g_data.dtype != root._data.dtype and "c" in (g_data.dtype.kind, root_kind):
                raise EngineError(messages.complex_mismatch(i, g_data.dtype, root._data.dtype))
            if create_graph and type(g) is Tensor:
                grads.append(g)
                continue
            g = g_data
        grads.append(Tensor._make(g) if create_graph else g)
    for i, root in enumerate(roots):
        if not root.requires_grad:
            raise EngineError(NO_GRAD_FN.format(i))
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate gradients into the leaves' ``.grad``."""
    if type(tensors) is Tensor:
        tensors = (tensors,)
    if type(grad_tensors) is Tensor or (
        grad_tensors is not None and not isinstance(grad_tensors, (list, tuple))
    ):
        grad_tensors = (grad_tensors,)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _check_roots(tensors, grad_tensors, create_graph)
    ending, state.PER_THREAD.at_end = state.PER_THREAD.at_end, []
    try:
        _backward(tensors, grads, retain_graph, create_graph, inputs)
        _end_of_pass()
    finally:
        state.PER_THREAD.at_end = ending


def _end_of_pass():
    for callback in state.PER_THREAD.at_end:
        callback()


def _backward(tensors, grads, retain_graph, create_graph, inputs):
    wanted = None
    nonleaf = ()
    if inputs is not None:
        inputs = (inputs,) if type(inputs) is Tensor else tuple(inputs)
        wanted = {id(t) for t in inputs}
        # A non-leaf among ``inputs`` gets its .grad too, as in PyTorch.
        nonleaf = [t for t in inputs if t._grad_fn is not None]
    with state.set_grad_enabled(create_graph):
        leaf_grads, captured = run_backward(
            tensors, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs
        )
    for entry in leaf_grads.values():
        leaf = entry[0]
        if wanted is not None and id(leaf) not in wanted:
            continue
        ran = len(entry) > 2
        g = take_grad(entry, leaf._data.dtype, create_graph)
        hooks = _leaf_hooks(leaf)
        if hooks is not None and not ran:
            g = finish_grad(run_hooks(hooks, g, create_graph), leaf._data.dtype, create_graph)
        if leaf.grad is None:  # PyTorch's AccumulateGrad copies a gradient in a graph
            leaf.grad = copied_in_graph(leaf, g) if create_graph and g.requires_grad else g
        else:
            leaf.grad = leaf.grad + g
        if hooks is not None:
            for hook in list(hooks.post_accumulate.values()):
                hook(leaf)
    for t in nonleaf:
        g = captured.get(t._grad_fn)
        if g is not None:
            g = finish_grad(g, t._data.dtype, create_graph)
            if t.grad is None:
                t.grad = cloned_in_graph(g) if g.requires_grad else g
            else:
                t.grad = t.grad + g


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into every leaf's ``.grad``, as ``torch.Tensor.backward``."""
    backward((self,), gradient, retain_graph, create_graph, inputs=inputs)


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
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, as a tuple.

    ``is_grads_batched=True``: the first dimension of each ``grad_outputs`` entry
    is a batch (one reverse pass for all its rows, as ``functional.jacobian`` needs).
    """
    outputs = (outputs,) if type(outputs) is Tensor else tuple(outputs)
    single_input = type(inputs) is Tensor
    inputs = (inputs,) if single_input else tuple(inputs)
    if grad_outputs is not None:
        grad_outputs = (grad_outputs,) if type(grad_outputs) is Tensor else tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in inputs:
        if type(t) is not Tensor or not t.requires_grad:
            raise EngineError("One of the differentiated Tensors does not require grad")
    batch_dims = 1 if is_grads_batched else 0
    if batch_dims and grad_outputs is None:
        raise EngineError("grad_outputs must be given when is_grads_batched=True")
    grads = _check_roots(outputs, grad_outputs, create_graph, batch_dims)
    ending, state.PER_THREAD.at_end = state.PER_THREAD.at_end, []
    try:
        with state.set_grad_enabled(create_graph):
            leaf_grads, captured = run_backward(
                outputs,
                grads,
                retain_graph=retain_graph,
                create_graph=create_graph,
                batch_dims=batch_dims,
                inputs=inputs,
            )
        result = _grads_of(
            inputs, leaf_grads, captured, allow_unused, materialize_grads, create_graph
        )
        _end_of_pass()
    finally:
        state.PER_THREAD.at_end = ending
    return result


def _grads_of(inputs, leaf_grads, captured, allow_unused, materialize_grads, create_graph):
    result = []
    given = [id(t) for t in inputs]
    for i, t in enumerate(inputs):
        hooks = _leaf_hooks(t) if t._grad_fn is None else None
        entry = leaf_grads.get(id(t)) if t._grad_fn is None else None
        if entry is not None and hooks is None and not create_graph and given.count(id(t)) == 1:
            # A leaf's gradient that nothing else holds is handed over, not copied.
            result.append(take_grad(entry, t._data.dtype, create_graph))
            continue
        g = grad_reaching(t, leaf_grads, captured)
        if g is not None and hooks is not None:
            g = run_hooks(hooks, g, create_graph)
        if g is None:
            if not allow_unused:
                raise EngineError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(zeros_like(t) if materialize_grads else None)
        else:
            result.append(finish_grad(g, t._data.dtype, create_graph))
    return tuple(result)
