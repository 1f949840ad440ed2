"""A module's backward hooks, as PyTorch's ``torch.utils.hooks.BackwardHook``.

``register_full_backward_hook`` and ``register_full_backward_pre_hook`` need the
gradients of a call's inputs and outputs together: PyTorch wraps the call's tensor
arguments, and then its tensor outputs, in an identity ``BackwardHookFunction``, one
node for each group (``grad_fn=<BackwardHookFunctionBackward>``). The output group's
node records the outputs' gradients and runs the pre-hooks, which may replace them; the
input group's node, reached later, hands the hooks ``(module, grad_input,
grad_output)``, and a tuple a hook returns replaces grad_input. A non-tensor argument's
place holds None; a tensor that does not require grad is not on the graph (its
gradient is zeros, as PyTorch's Function materialises it).

A group is one node when it holds one tensor on the graph. With several, each tensor's
own node (``_Slot``) hands its gradient to the group's node, which runs once all have
arrived: the nodes the user sees are all ``BackwardHookFunctionBackward``.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from ..engine.graph import Node
from ..engine.state import is_grad_enabled
from ..engine.tensor import Tensor
from ..errors import EngineError

__all__ = ["BackwardHook"]

NAME = "BackwardHookFunctionBackward"


class _Shown(type(Node)):
    def __repr__(cls):
        return f"<class 'torch.autograd.function.{cls.__name__}'>"


class BackwardHookFunctionBackward(Node, metaclass=_Shown):
    """The node of a group of tensors: the identity, with its group's hook."""

    __slots__ = ()

    def __repr__(self):
        return f"<torch.autograd.function.{NAME} object at {id(self):#x}>"


class _GroupOp:
    """What the reverse pass reads of a group's node: one rule gives every input's
    gradient (``variadic``), the group's ``backward``."""

    grad_fn = NAME
    variadic = True
    reads_result = False
    saves = False
    rules = None
    lists_numbers = True

    def variadic_backward(self, g, ans, args, params, kwargs):
        group = params[0]
        grads = [g] if group.slots is None else [group.arrived.pop(j, None) for j in group.slots]
        group.arrived = {}
        return group.backward(grads, g)


class _SlotOp(_GroupOp):
    def variadic_backward(self, g, ans, args, params, kwargs):
        group, j = params
        group.arrived[j] = g
        shape = np.shape(g)[: np.ndim(g) - np.ndim(ans)]  # a batched pass's own dims
        return [np.zeros(shape, dtype=np.asarray(group.node.ans).dtype)]


_GROUP, _SLOT = _GroupOp(), _SlotOp()


class _Group:
    """Tensors wrapped together; ``hook(grads)`` may replace the gradients that reach them."""

    def __init__(self, tensors, hook):
        self.hook = hook
        self.arrived = {}
        parents = tuple(t._grad_fn or t for t in tensors)
        datas = tuple(t._data for t in tensors)
        if len(tensors) == 1:
            self.slots = None
            self.node = BackwardHookFunctionBackward(
                _GROUP, parents, datas, datas[0], (self,), None
            )
            self.outputs = [Tensor._make(datas[0], self.node, True)]
            return
        self.slots = list(range(len(tensors)))
        zero = np.zeros((), dtype=np.result_type(*datas))
        self.node = BackwardHookFunctionBackward(_GROUP, parents, datas, zero, (self,), None)
        self.outputs = []
        for j, data in enumerate(datas):
            slot = BackwardHookFunctionBackward(_SLOT, (self.node,), (zero,), data, (self, j), None)
            self.outputs.append(Tensor._make(data, slot, True))

    def backward(self, grads, g):
        as_tensors = type(g) is Tensor
        shown = tuple(None if v is None or type(v) is Tensor else Tensor._make(v) for v in grads)
        shown = tuple(s if s is not None else v for s, v in zip(shown, grads))
        result = self.hook(shown)
        if result is None:
            return grads
        return [v if v is None or as_tensors or type(v) is not Tensor else v._data for v in result]


class BackwardHook:
    """One call of a module with full backward hooks or backward pre-hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks, self.user_pre_hooks = user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    def _wrap(self, args, hook):
        """``(args, tensor indices)``, the tensors wrapped in one group; ``(args, None)``
        when none requires grad (or grad mode is off)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (any(args[i].requires_grad for i in index) and is_grad_enabled()):
            return args, None
        on_graph = [i for i in index if args[i].requires_grad]
        group = _Group([args[i] for i in on_graph], lambda grads: hook(on_graph, grads))
        new = list(args)
        for i in index:  # not differentiable: a new tensor of the same data, off the graph
            new[i] = Tensor._make(args[i]._data)
        for i, out in zip(on_graph, group.outputs):
            new[i] = out
        return (tuple(new) if type(args) is tuple else type(args)(*new)), index

    @staticmethod
    def _pack(defaults, on_graph, grads, size):
        values = [defaults.get(i) for i in range(size)]
        for i, g in zip(on_graph, grads):
            values[i] = g
        return tuple(values)

    def setup_input_hook(self, args):
        def hook(on_graph, grads):
            if self.grad_outputs is None:  # reached without passing through the outputs
                return None
            zeros = {i: Tensor._make(np.zeros_like(args[i]._data)) for i in index}
            res = self._pack(zeros, on_graph, grads, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise EngineError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return [res[i] for i in on_graph]

        result, index = self._wrap(args, hook)
        self.n_inputs, self.input_index = len(args), index
        return result

    def setup_output_hook(self, result):
        def hook(on_graph, grads):
            self.grad_outputs = self._pack({}, on_graph, grads, self.n_outputs)
            for user_pre_hook in self.user_pre_hooks:
                replaced = user_pre_hook(self.module, self.grad_outputs)
                if replaced is None:
                    continue
                if len(replaced) != len(self.grad_outputs):
                    raise EngineError(
                        "Backward pre hook returned an invalid number of grad_output, "
                        f"got {len(replaced)}, but expected {len(self.grad_outputs)}"
                    )
                self.grad_outputs = replaced
            local = self.grad_outputs
            if self.input_index is None:  # no input requires grad: the hooks run here
                warnings.warn(_NO_INPUTS, stacklevel=_outside_gradcli())
                grad_inputs = (None,) * self.n_inputs
                for user_hook in self.user_hooks:
                    res = user_hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (
                        isinstance(res, tuple) and all(v is None for v in res)
                    ):
                        raise EngineError(
                            "Backward hook for Modules where no input requires gradient should "
                            "always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return [local[i] for i in on_graph]

        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        wrapped, index = self._wrap(outputs, hook)
        self.n_outputs, self.output_index = len(outputs), index
        return wrapped if is_tuple else wrapped[0]


_NO_INPUTS = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


def _outside_gradcli() -> int:
    """The stack level of the user's call into gradcli (their ``backward()``), where
    PyTorch's warning points."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level
