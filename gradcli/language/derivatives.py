"""Derivatives inside programs: ``grad(F, x)``, ``jacobian(F, x)`` and ``hessian(F, x)``.

Each is PyTorch's eager ``torch.autograd.grad(F, x, create_graph=True,
allow_unused=True, materialize_grads=True)`` on the tensor the name ``x`` holds
where the call is evaluated: the result is more graph, so the command
differentiates it again (``grad(x**3, x)`` is 3x**2, and its gradient 6x), and a
derivative of a derivative is a second derivative. The derivative goes through
``x`` alone: a path from an input to F that does not pass through the tensor
``x`` holds is held fixed, as PyTorch's partial derivatives are.

So that the derivative exists whatever the command differentiates, the evaluator
*tracks* every name that is the second argument of one of these forms: the name
is bound to a tensor of its own, a copy of its value that requires grad (on the
graph when the value requires grad, so the command differentiates through it; a
new leaf when not: an input the command does not differentiate, a const,
anything under ``eval``), and a program that uses the forms is evaluated with
grad mode on. At many points a tracked name holds one copy at each point
(``Batched``), so each point's F is differentiated with respect to that point's
x alone.

This module imports no Lark; ``check`` reads ``FORMS`` and ``evaluate`` calls
``derivative``.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import ops
from ..engine.backward import grad as _autograd_grad
from ..engine.batched_values import Batched
from ..engine.state import enable_grad
from ..engine.tensor import Tensor
from ..errors import GradcliError, GradcliTypeError, Span

#: What each form computes (``gradcli functions grad`` says it).
FORMS = {
    "grad": "the gradient of the scalar F with respect to x, of x's shape",
    "jacobian": "the derivative of each entry of F with respect to x, of shape F.shape + x.shape",
    "hessian": "the second derivative of the scalar F with respect to x, of shape"
    " x.shape + x.shape",
}
PARAMETERS = ("F", "x")


def target_error(form: str, span: Span) -> GradcliError:
    """The error for a second argument that is not a name of the program."""
    return GradcliTypeError(
        f"the second argument of {form} must be a name (an input, a const or an assigned"
        f" name): the tensor to differentiate with respect to, as in {form}(F, x)",
        span,
    )


def tracked(value, size: int | None = None):
    """``value`` as a tensor a derivative can be taken with respect to, a tensor of its
    own (``_own``); at ``size`` points, a Batched one, a copy at each point."""
    if size is not None:
        if type(value) is not Batched:
            value = Batched.broadcast(_tensor(value), size)
        return Batched(_own(value.physical))
    return _own(_tensor(value))


def _own(value: Tensor) -> Tensor:
    """A tensor of its own standing for ``value``: a copy on the graph when ``value``
    requires grad (so the command still differentiates through it), else a new leaf.
    Never ``value`` itself: f(t) = grad(t**3 * y, t) called as f(y) differentiates
    through t alone, whether or not the command differentiates y."""
    if not value.dtype.is_floating_point:
        return value  # indices (argmax's) have no derivative: ``derivative`` refuses them
    if value.requires_grad:
        return ops.clone(value)
    return value.detach().requires_grad_()


def _tensor(value) -> Tensor:
    """A value of the language (a tensor or a number literal's) as a tensor."""
    if type(value) is Tensor:
        return value
    return ops.tensor(float(value))  # 0-d, of the default dtype, as evaluate.as_tensor


def derivative(form: str, f, x, f_span: Span, x_span: Span):
    """``form(f, x)``: the derivative of the value ``f`` with respect to ``x`` (a tracked
    value, see ``tracked``), Batched when ``x`` is."""
    if type(x) is Batched:
        size = x.size
        x_phys = x.physical
        f_phys = f.physical if type(f) is Batched else None
    else:
        size = None
        x_phys = _tensor(x)
        f_phys = _tensor(f)
    if f_phys is None:  # the same at every point: F does not reach any point's x
        f_shape = tuple(np.shape(f))
    else:
        f_shape = tuple(f_phys.shape[1:] if size is not None else f_phys.shape)
    if form in ("grad", "hessian") and math.prod(f_shape) != 1:
        raise GradcliTypeError(
            f"{form} needs a scalar F, but F has shape {f_shape}: for the derivative of"
            " each of its entries use jacobian(F, x)",
            f_span,
        )
    if not x_phys.dtype.is_floating_point:
        raise GradcliTypeError(
            f"the second argument of {form} holds integers (indices), which have no"
            " derivative: a derivative is taken with respect to floating-point values",
            x_span,
        )
    with enable_grad():
        if form == "grad":
            return _rebatch(_gradient(f_phys, x_phys, size), size)
        if form == "jacobian":
            return _rebatch(_jacobian(f_phys, f_shape, x_phys, size), size)
        first = _gradient(f_phys, x_phys, size)
        x_shape = tuple(x_phys.shape[1:] if size is not None else x_phys.shape)
        return _rebatch(_jacobian(first, x_shape, x_phys, size), size)


def _rebatch(value: Tensor, size: int | None):
    return value if size is None else Batched(value)


def _gradient(f, x: Tensor, size: int | None) -> Tensor:
    """The gradient of the one entry of ``f`` (at each point: ``f`` has the points first)
    with respect to ``x``, of x's shape; zeros where ``f`` does not reach ``x``."""
    if f is None or not f.requires_grad:
        return ops.zeros_like(x)
    if size is None:
        f = ops.reshape(f, ())
    else:
        f = ops.reshape(f, (size,))
    (g,) = _autograd_grad(
        f, x, ops.ones_like(f), create_graph=True, allow_unused=True, materialize_grads=True
    )
    return g


def _jacobian(f, f_shape, x: Tensor, size: int | None) -> Tensor:
    """The derivative of every entry of ``f`` (of shape ``f_shape`` at each point) with
    respect to ``x``: one reverse pass per entry, stacked, of shape f_shape + x's shape."""
    x_shape = tuple(x.shape[1:] if size is not None else x.shape)
    lead = () if size is None else (size,)
    n = math.prod(f_shape)
    if n == 0 or f is None or not f.requires_grad:
        return ops.zeros((*lead, *f_shape, *x_shape), dtype=x.dtype)
    flat = ops.reshape(f, (*lead, n))
    rows = []
    for i in range(n):
        entry = ops.getitem(flat, i if size is None else (slice(None), i))
        rows.append(_gradient(entry, x, size))
    stacked = ops.stack(rows, len(lead))
    return ops.reshape(stacked, (*lead, *f_shape, *x_shape))


derivative.takes_batched = True  # its ops see the points as an axis (``evaluate_points``)


def nodes_made(result, known) -> list:
    """The graph nodes of ``result`` not in ``known`` (the nodes recorded before it),
    found from its own node back to the known ones; its own node first."""
    top = getattr(result.physical if type(result) is Batched else result, "grad_fn", None)
    if top is None:
        return []
    found, seen, stack = [top], {id(top)}, _parents(top)
    while stack:
        node = stack.pop()
        if id(node) in seen or node in known:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(_parents(node))
    return found


def _parents(node) -> list:
    return [p for p in node.parents if p is not None and type(p) is not Tensor]
