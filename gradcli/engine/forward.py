"""Forward-mode AD: the tangents of a dual level, carried through every op of the table.

While a level is entered (``autograd.forward_ad.dual_level``), ``PER_THREAD.forward_ad``
is a ``DualLevel`` and every op of the table hands it its inputs and result
(``optable``): where an input has a tangent, the result gets one.

The tangent rules are not declared beside the reverse rules: they are derived
from them, exactly. An op's reverse rule for input i is the linear map
``u -> J_i^T u`` written in the table's own differentiable ops, so its own
vector-Jacobian product with a tangent ``t_i`` is ``J_i t_i``: the tangent of
the result is ``sum_i J_i t_i``, one small differentiable reverse pass through
the rules with respect to ``u`` (the double-backward trick, done per op). The
pass keeps its graph, so a tangent is itself differentiable with respect to the
inputs and their tangents (forward-over-reverse and reverse-over-forward). An
op whose reverse rule raises (floor_divide) has no tangent either: the error
says so, as PyTorch's does.

Tangents are kept by the level, not on the tensors: a computed tensor's under its
node (the tensors a differentiable reverse pass rebuilds from a node share it),
any other's under the tensor itself.

The ``func`` transforms nest levels (``jacfwd(jacfwd(f))``): each level knows the
one around it (``outer``), and an op's result takes its tangent at every level,
outermost first. A level's tangent is computed with the levels around it
entered, so it carries their tangents in turn (the inner tangent's outer
tangent is the mixed second derivative), and with itself left, so its own
tangents never enter its rules (no perturbation confusion). Only
``autograd.forward_ad``'s own ``dual_level`` refuses to nest, as PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ..errors import EngineError, NotImplementedByGradcli
from . import ops, state
from .backward import grad
from .tensor import Tensor


class DualLevel:
    """The tangents of the tensors made while one dual level is entered."""

    def __init__(self, outer=None, public=True):
        self.tangents = {}  # key -> (tensor kept alive so its id stays its own, tangent)
        self.outer = outer  # the level this one is nested in (func transforms), or None
        self.public = public  # entered by forward_ad.dual_level (nests nothing), not func

    def chain(self):
        """The levels entered, outermost first, down to this one."""
        levels, level = [], self
        while level is not None:
            levels.append(level)
            level = level.outer
        return levels[::-1]

    @staticmethod
    def _key(t):
        return t.grad_fn if t.grad_fn is not None else id(t)

    def tangent_of(self, t):
        entry = self.tangents.get(self._key(t))
        return None if entry is None else entry[1]

    def set_tangent(self, t, tangent):
        if tangent is None:
            self.tangents.pop(self._key(t), None)
        else:
            self.tangents[self._key(t)] = (t, tangent)

    def copy_tangent(self, source, target):
        """``target`` takes ``source``'s tangents, at every level (an in-place op wrote source
        into target)."""
        for level in self.chain():
            level.set_tangent(target, level.tangent_of(source))

    # ----- the tangent of an op's result -----

    def propagate(self, overload, inputs, params, kwargs, result):
        """Give ``result`` of ``overload`` on ``inputs`` its tangent at each level where an
        input has one: the outer levels' first, which the inner ones' rules read."""
        if result._data.dtype.kind not in "fc":
            return
        if self.outer is None:
            self._propagate(overload, inputs, params, kwargs, result)
            return
        for level in self.chain():
            level._propagate(overload, inputs, params, kwargs, result)

    def _propagate(self, overload, inputs, params, kwargs, result):
        tangents = [self.tangent_of(a) if type(a) is Tensor else None for a in inputs]
        if all(t is None for t in tangents):
            return
        entered = state.PER_THREAD.forward_ad
        # The rules' own ops carry the outer levels' tangents, none of this one.
        state.PER_THREAD.forward_ad = self.outer
        try:
            tangent = _pushforward(overload, inputs, params, kwargs or {}, result, tangents)
        finally:
            state.PER_THREAD.forward_ad = entered
        self.set_tangent(result, tangent)

    def function_tangents(self, cls, ctx, args, output):
        """The tangents of a custom Function's outputs, from its ``jvp``."""
        tangents = [self.tangent_of(a) if type(a) is Tensor else None for a in args]
        if all(t is None for t in tangents):
            return
        if self.outer is not None:
            raise NotImplementedByGradcli(
                f"the custom Function {cls.__name__} inside nested forward-mode transforms "
                "(jacfwd or jvp inside jacfwd or jvp) is not supported in gradcli"
            )

        tangents = [
            ops.zeros_like(a) if t is None and type(a) is Tensor else t
            for a, t in zip(args, tangents)
        ]
        state.PER_THREAD.forward_ad = None
        try:
            out_tangents = cls.jvp(ctx, *tangents)
        finally:
            state.PER_THREAD.forward_ad = self
        outs = output if isinstance(output, tuple) else (output,)
        if not isinstance(out_tangents, tuple):
            out_tangents = (out_tangents,)
        if len(out_tangents) != len(outs):
            raise EngineError(
                f"function {cls.__name__}Backward returned an incorrect number of forward "
                f"gradients (expected {len(outs)}, got {len(out_tangents)})"
            )
        for out, tangent in zip(outs, out_tangents):
            if type(out) is Tensor and type(tangent) is Tensor:
                self.set_tangent(out, tangent)


# The leaves a pushforward records that are no tensor of a user's: every ``u``, a
# broadcast of its dtype's one 0-d zero (a rule may record u where it reads only its
# shape: a pad's gradient op takes it, with derivative 0), and under nested levels the
# stand-ins of the rules' inputs (``_recorded``), by id. A tangent's graph can reach
# them; the transforms count none of them as a tensor outside (``func/copies.py``), and
# forget the stand-ins when the outermost one returns.
_ZEROS = {}
_STAND_INS = {}


def _cotangent(result):
    """The stand-in ``u`` the rules take as the gradient of ``result``: zeros, requiring grad."""
    dtype = result._data.dtype
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS.setdefault(dtype, np.zeros((), dtype=dtype))
    return Tensor._make(np.broadcast_to(zero, result._data.shape), None, True)


def is_stand_in(t) -> bool:
    """Whether ``t`` is a leaf a pushforward made (no tensor of a user's)."""
    data = t._data
    return (
        data.base is not None
        and data.base is _ZEROS.get(data.dtype)
        or (_STAND_INS.get(id(t)) is t)
    )


def forget_stand_ins():
    """Drop the stand-ins of the rules' inputs."""
    _STAND_INS.clear()


def _recorded(t):
    """``t`` as a rule of an inner level takes it: where it carries an outer level's
    tangent but records no graph, a stand-in leaf with its values and tangents that does,
    so the reverse pass rebuilds it with them (of a tensor without a graph a node keeps
    the values alone)."""
    dual = state.PER_THREAD.forward_ad
    if type(t) is not Tensor or t.requires_grad or t._data.dtype.kind not in "fc":
        return t
    if all(level.tangent_of(t) is None for level in dual.chain()):
        return t
    stand_in = Tensor._make(t._data, None, True)
    dual.copy_tangent(t, stand_in)
    _STAND_INS[id(stand_in)] = stand_in
    return stand_in


def _pushforward(overload, inputs, params, kwargs, result, tangents):
    """``sum_i J_i t_i`` for the result of ``overload``: the vector-Jacobian product of its
    reverse rules (linear in their gradient ``u``) with the tangents."""
    if state.PER_THREAD.forward_ad is not None:  # nested: the outer levels' tangents kept
        inputs = [_recorded(a) for a in inputs]
        result = _recorded(result)
    with state.enable_grad():
        if overload.variadic and all(type(x) is Tensor for x in inputs):
            # stack, cat: the op on the tangents, as PyTorch's stack_jvp and cat_jvp (the
            # reverse pass would add each input's slice into zeros: -0.0 + 0.0 is 0.0).
            filled = [ops.zeros_like(x) if t is None else t for x, t in zip(inputs, tangents)]
            return overload.entry.call(filled, *params, **kwargs)
        u = _cotangent(result)
        try:
            if overload.variadic:
                cotangents = overload.variadic_backward(u, result, inputs, params, kwargs)
            else:
                cotangents = [
                    None if rule is None or t is None else rule(u, result, *inputs, *params)
                    for rule, t in zip(overload.rules, tangents)
                ]
        except EngineError as err:
            if str(err).startswith("derivative for aten::"):
                raise NotImplementedByGradcli(
                    f"Trying to use forward AD with aten::{overload.name} that does not support it."
                ) from None
            raise
        outputs, grad_outputs = [], []
        for x, c, t in zip(inputs, cotangents, tangents):
            if c is None or t is None or type(c) is not Tensor or not c.requires_grad:
                continue  # no gradient, or one that does not depend on u: a zero term
            if c.shape != x.shape:
                c = ops.sum_to(c, tuple(x.shape), 0)
            outputs.append(c)
            grad_outputs.append(t if t.dtype == c.dtype else ops.to_dtype(t, c._data.dtype))
        if not outputs:
            return ops.zeros_like(result)
        (tangent,) = grad(outputs, u, grad_outputs, create_graph=True, allow_unused=True)
    return ops.zeros_like(result) if tangent is None else tangent
