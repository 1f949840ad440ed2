"""``gradcli.autograd.functional``: Jacobians, Hessians and their products, as in PyTorch.

Signatures, return structure (a tensor, a tuple, or a tuple of tuples, nested
as ``torch.autograd.functional`` nests them) and the ``strict`` errors follow
PyTorch. ``vjp``, ``jvp``, ``vhp`` and ``hvp`` use PyTorch's algorithms (``jvp``
and ``hvp`` by the double-backward trick). ``jacobian`` and ``hessian`` do not
run one reverse pass per output entry as PyTorch does: every gradient in a
pass may carry a leading batch dimension, so one pass whose root gradient is
the identity gives all rows of a Jacobian at once. The identity is split into
chunks of rows when a pass would need more than ``CHUNK_BYTES`` per gradient.
A Hessian is one differentiable gradient pass, then one batched pass through
that gradient's graph.

The inputs are detached copies that require grad (or, with ``create_graph``,
differentiable views of inputs that require grad); results do not require
grad unless ``create_graph``.
"""

from __future__ import annotations

import numpy as np

from ..engine import limits, ops
from ..engine.backward import grad, grad_reaching, run_backward
from ..engine.graph import Node
from ..engine.messages import implicit_gradient
from ..engine.state import enable_grad, set_grad_enabled
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError, NotImplementedByGradcli

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

# Gradients in one batched pass are at most this large: the identity is cut into chunks.
CHUNK_BYTES = 64 * 2**20


# ----------------------------------------------------------------------------
# Inputs, outputs and checks, as PyTorch does them
# ----------------------------------------------------------------------------


def _as_tuple(value, arg_name, fn_name):
    """``(was_tuple, tuple_of_tensors)``; anything but a tensor or a tuple of them is an error."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if type(item) is not Tensor:
            where = (
                f"the value at index {i} has type {type(item)}"
                if is_tuple
                else f"the given {arg_name} has type {type(item)}"
            )
            raise GradcliTypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor "
                f"or a tuple of Tensors but {where}."
            )
    return is_tuple, items


def _tuple_postprocess(result, was_tuple):
    """Undo ``_as_tuple``: ``was_tuple`` is one flag, or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _grad_preprocess(inputs, create_graph, need_graph):
    # Always new tensor objects: a tensor the function captures from outside is
    # then not mistaken for the input it was given (PyTorch issue 32576).
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(ops.view(t, tuple(t.shape)))  # differentiable, shares memory
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(values, create_graph):
    if not values or type(values[0]) is Tensor:
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_grad_postprocess(v, create_graph) for v in values)


def _validate_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise EngineError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise EngineError("The given v should contain a single Tensor.")
    for i, (v_i, other_i) in enumerate(zip(v, other)):
        if v_i.shape != other_i.shape:
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise EngineError(
                f"{prefix}v has invalid size: should be {_size(other_i.shape)} "
                f"but got {_size(v_i.shape)}."
            )


def _size(shape):
    return f"torch.Size([{', '.join(map(str, shape))}])"


def _check_requires_grad(values, kind, strict):
    """In strict mode, every output (or gradient) must depend on the inputs."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise EngineError(
                f"The output of the user-provided function is independent of "
                f"input {i}. This is not allowed in strict mode."
            )
        if value.requires_grad:
            continue
        if kind == "hessian":
            raise EngineError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."
            )
        if kind == "jacobian":
            raise EngineError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if kind == "grad_inputs":
            raise EngineError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode."
            )
        raise EngineError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in "
            "strict mode."
        )


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode "
    "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it "
    "prevents from using the double backward trick to replace forward "
    "mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros where no gradient flowed (an error in strict mode)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise EngineError(_INDEPENDENT[stage].format(i=i))
            g = ops.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise EngineError(
                f"The {what} of the user-provided function is independent of "
                f"input {i}. This is not allowed in strict mode when "
                "create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs not requiring grad and gives None for unused inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in kept],
        inputs,
        [g for _, g in kept],
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


# ----------------------------------------------------------------------------
# Products with the Jacobian and the Hessian
# ----------------------------------------------------------------------------


def _prepare(func, inputs, v, create_graph, strict, name, v_matches_outputs):
    """Preprocess inputs and v, call func; v is checked against outputs or inputs."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if not v_matches_outputs:
            v = _prepare_v(
                v,
                inputs,
                inputs_tuple,
                create_graph,
                name,
                "input to the user-provided function is a single Tensor",
            )
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", name
        )
        _check_requires_grad(outputs, "outputs", strict)
        if v_matches_outputs:
            v = _prepare_v(
                v,
                outputs,
                outputs_tuple,
                create_graph,
                name,
                "user-provided function returns a single Tensor",
            )
    return inputs_tuple, inputs, outputs_tuple, outputs, v


def _prepare_v(v, like, like_tuple, create_graph, name, single):
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise EngineError(
                f"The vector v can only be None if the {single} with a single element."
            )
        return None
    _, v = _as_tuple(v, "v", name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, like, like_tuple)
    return v


def _prepare_scalar(func, inputs, v, create_graph, strict, name):
    """``_prepare`` for vhp and hvp, whose function returns one scalar; also the
    gradient ``jac`` of that scalar, with a graph for the second pass."""
    inputs_tuple, inputs, outputs_tuple, outputs, v = _prepare(
        func, inputs, v, create_graph, strict, name, v_matches_outputs=False
    )
    _single_scalar_output(outputs, outputs_tuple, name)
    with enable_grad():
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, outputs_tuple, outputs, v, jac


def _single_scalar_output(outputs, outputs_tuple, name):
    if outputs_tuple:
        raise EngineError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise EngineError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, as PyTorch's ``vjp``."""
    inputs_tuple, inputs, outputs_tuple, outputs, v = _prepare(
        func, inputs, v, create_graph, strict, "vjp", v_matches_outputs=True
    )
    with set_grad_enabled(create_graph):
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick.

    The reverse pass is linear in its root gradient ``u``, so ``u -> J^T u`` is
    a linear map whose own vector-Jacobian product with ``v`` is ``J v``.
    """
    inputs_tuple, inputs, outputs_tuple, outputs, v = _prepare(
        func, inputs, v, create_graph, strict, "jvp", v_matches_outputs=False
    )
    with enable_grad():
        # Any finite value works for u: it does not appear in the second pass.
        u = tuple(ops.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, u, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph):
        grads = _autograd_grad(grad_inputs, u, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return _value_and_product(outputs, outputs_tuple, result, outputs_tuple, create_graph)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar function, as ``torch.autograd.functional.vhp``."""
    inputs_tuple, inputs, outputs_tuple, outputs, v, jac = _prepare_scalar(
        func, inputs, v, create_graph, strict, "vhp"
    )
    with set_grad_enabled(create_graph):
        grads = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar function, by the double-backward trick as in PyTorch."""
    inputs_tuple, inputs, outputs_tuple, outputs, v, jac = _prepare_scalar(
        func, inputs, v, create_graph, strict, "hvp"
    )
    with enable_grad():
        u = tuple(ops.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, u, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)  # PyTorch checks jac here, not double_back
    with set_grad_enabled(create_graph):
        grads = _autograd_grad(double_back, u, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def _value_and_product(outputs, outputs_tuple, product, product_tuple, create_graph):
    """What vjp, jvp, vhp and hvp return: ``(func(inputs), product)``, each a tensor or a
    tuple as it was given."""
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), outputs_tuple),
        _tuple_postprocess(_grad_postprocess(product, create_graph), product_tuple),
    )


# ----------------------------------------------------------------------------
# Jacobians and Hessians: batched reverse passes over the identity
# ----------------------------------------------------------------------------


def _check_strategy(strategy, vectorize, create_graph, strict):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise EngineError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if strategy == "forward-mode":
        # Accepted as PyTorch accepts it; the batched reverse pass computes the same matrix.
        if create_graph:
            raise NotImplementedByGradcli(
                'jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                "supported together (yet). Please either set `create_graph=False` or "
                '`strategy="reverse-mode"`.'
            )
        if strict:
            raise EngineError(
                'jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
                "together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedByGradcli(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                "implemented for `vectorize=True`."
            )
    if vectorize and strict:
        raise EngineError(
            "jacobian: `strict=True` and `vectorized=True` are not supported together. "
            "Please either set `strict=False` or `vectorize=False`."
        )


def graph_width(roots):
    """The most entries any value in the roots' graph has: the size of one row's gradients."""
    width = max((r.numel() for r in roots), default=1)
    stack = [r.grad_fn for r in roots if r.grad_fn is not None]
    seen = set(stack)
    while stack:
        node = stack.pop()
        width = max(width, np.size(node.ans))
        for parent in node.parents:
            if isinstance(parent, Node) and parent not in seen:
                seen.add(parent)
                stack.append(parent)
            elif type(parent) is Tensor:
                width = max(width, parent.numel())
    return width


def _identity_rows(out, start, stop):
    """Rows ``start:stop`` of the identity on ``out``'s entries, shaped ``(rows, *out.shape)``."""
    data = out._data
    rows = np.zeros((stop - start, data.size), dtype=data.dtype)
    rows[np.arange(stop - start), np.arange(start, stop)] = 1
    return rows.reshape((stop - start,) + data.shape)


def _jacobian_of(out, inputs, create_graph, retain_graph):
    """d out / d input for each input: arrays (tensors if create_graph), None if independent.

    Each has shape ``out.shape + input.shape``; one batched reverse pass per chunk of rows.
    """
    m = out.numel()
    if not out.requires_grad or m == 0:
        return [None] * len(inputs)
    itemsize = max(out._data.dtype.itemsize, 1)
    step = max(1, CHUNK_BYTES // (itemsize * graph_width([out])))
    starts = range(0, m, step)
    pieces = [[] for _ in inputs]
    for start in starts:
        stop = min(start + step, m)
        root_grad = _identity_rows(out, start, stop)
        last = stop == m
        with set_grad_enabled(create_graph):
            leaf_grads, captured = run_backward(
                (out,),
                (root_grad,),
                retain_graph=retain_graph or not last,
                create_graph=create_graph,
                batch_dims=1,
                inputs=inputs,
            )
        for j, t in enumerate(inputs):
            pieces[j].append(grad_reaching(t, leaf_grads, captured))
    result = []
    for t, parts in zip(inputs, pieces):
        if parts[0] is None:
            result.append(None)
            continue
        shape = tuple(out.shape) + tuple(t.shape)
        dtype = t._data.dtype
        if create_graph:
            parts = [p if type(p) is Tensor else Tensor._make(p) for p in parts]
            whole = parts[0] if len(parts) == 1 else ops.cat(parts, 0)
            if whole._data.dtype != dtype:
                whole = ops.to_dtype(whole, dtype)
            result.append(ops.reshape(whole, shape))
        else:
            whole = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
            result.append(np.array(whole, dtype=dtype).reshape(shape))  # owns its memory
    return result


def _jacobian_tuple(outputs, inputs, create_graph, strict):
    """The nested tuple ``J[i][j] = d outputs[i] / d inputs[j]`` (zeros where independent)."""
    jacobian = []
    for i, out in enumerate(outputs):
        # With create_graph the result is differentiated later: keep the graph, as PyTorch does.
        row = _jacobian_of(
            out, inputs, create_graph, retain_graph=create_graph or i < len(outputs) - 1
        )
        entries = []
        for j, (t, g) in enumerate(zip(inputs, row)):
            if g is None:
                if strict:
                    raise EngineError(
                        f"Output {i} of the user-provided function is independent "
                        f"of input {j}. This is not allowed in strict mode."
                    )
                g = np.zeros(tuple(out.shape) + tuple(t.shape), dtype=t._data.dtype)
            elif strict and create_graph and not g.requires_grad:
                raise EngineError(
                    f"The jacobian of the user-provided function is independent "
                    f"of input {i}. This is not allowed in strict mode when "
                    "create_graph=True."
                )
            entries.append(g if type(g) is Tensor else Tensor._make(g))
        jacobian.append(tuple(entries))
    return tuple(jacobian)


def _refuse_complex_rows(outputs, vectorize):
    if vectorize:
        return
    for out in outputs:
        if out is not None and out.is_complex():
            raise EngineError(implicit_gradient(np.empty((), out._data.dtype)))


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of ``func`` at ``inputs``, as ``torch.autograd.functional.jacobian``.

    One input and one output give a tensor of shape ``out.shape + in.shape``;
    a tuple of either gives a tuple; tuples of both give ``J[i][j]`` for
    output i and input j. Computed by batched reverse passes over the identity.
    """
    _check_strategy(strategy, vectorize, create_graph, strict)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        # PyTorch's rows are gradients of the outputs' entries, implicitly created (real
        # ones) unless vectorized: then row i is the vjp of the i-th unit vector, complex too.
        _refuse_complex_rows(outputs, vectorize)
        limits.check("jacobian", sum(o.numel() for o in outputs) * sum(x.numel() for x in inputs))
        result = _jacobian_tuple(outputs, inputs, create_graph, strict)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(result, (outputs_tuple, inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a scalar ``func`` at ``inputs``, as ``torch.autograd.functional.hessian``.

    One input gives a tensor of shape ``in.shape + in.shape``; a tuple gives
    ``H[i][j]`` of shape ``inputs[i].shape + inputs[j].shape``. One
    differentiable gradient pass, then batched passes through its graph.
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    _check_strategy(outer_jacobian_strategy, vectorize, create_graph, strict)
    limits.check("hessian", sum(x.numel() for x in inputs) ** 2)
    with enable_grad():
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        out = func(*inputs)
        outputs_tuple, outputs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outputs, "outputs", strict)
        _single_scalar_output(outputs, outputs_tuple, "hessian")
        # The gradient, with a graph of its own: the outer Jacobian differentiates it.
        gradient = []
        for j, g in enumerate(_autograd_grad((out,), inputs, create_graph=True, retain_graph=True)):
            if g is None:
                if strict:
                    raise EngineError(
                        f"Output 0 of the user-provided function is independent "
                        f"of input {j}. This is not allowed in strict mode."
                    )
                g = ops.zeros_like(inputs[j])
            gradient.append(g)
        _check_requires_grad(gradient, "jacobian", strict)
        _refuse_complex_rows(gradient, vectorize)
        result = _jacobian_tuple(gradient, inputs, create_graph, strict)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(result, (inputs_tuple, inputs_tuple))
