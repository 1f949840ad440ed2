"""``gradcli.autograd.graph``: as ``torch.autograd.graph``.

The hooks on saved tensors (``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``), ``allow_mutation_on_saved_tensors``,
``register_multi_grad_hook``, ``get_gradient_edge`` and ``GradientEdge``,
``increment_version``, and ``Node``, the class of every ``grad_fn``. What a
node saves, under PyTorch's names, is declared by each op's entry
(``engine/saved.py``); the graph that ``gradcli graph`` shows is ``traced``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..engine import graph as _graph
from ..engine import saved as _saved
from ..engine.graph import AccumulateGrad, Node, RemovableHandle
from ..engine.state import PER_THREAD, no_grad
from ..engine.tensor import Tensor
from ..errors import EngineError

__all__ = [
    "Node",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
]


class GradientEdge(NamedTuple):
    """A node and which of its outputs: where a tensor's gradient flows in."""

    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor``'s gradient: its grad_fn, or a leaf's AccumulateGrad."""
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, getattr(tensor.grad_fn, "output_nr", 0))
    if not tensor.requires_grad:
        raise EngineError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    return GradientEdge(AccumulateGrad(tensor), 0)


def increment_version(tensor) -> None:
    """Count one in-place write of ``tensor`` that the engine did not see."""
    tensors = (tensor,) if type(tensor) is Tensor else tuple(tensor)
    _saved.begin()
    for t in tensors:
        _saved.modified(t, t._data)


# ----------------------------------------------------------------------------
# Hooks on saved tensors
# ----------------------------------------------------------------------------


def _on_record(node):
    """Every new node while a context of this module is open (``graph.on_record``)."""
    if _saved.ALLOWING[0]:
        _saved.TRACKED.append(node)
    _saved.refuse_inference(node)
    hooks = PER_THREAD.saved_hooks
    if hooks is not None and node.op.saves:
        with no_grad():  # as PyTorch runs pack hooks
            _saved.pack(node, *hooks)


def _recording_watched():
    watched = _open[0] or _saved.ALLOWING[0]
    _graph.on_record = _on_record if watched else _saved.refuse_inference


_open = [0]  # saved_tensors_hooks contexts open, in any thread
_disabled = []  # the messages of the disable_saved_tensors_hooks contexts open


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """``with saved_tensors_hooks(pack, unpack):`` each tensor a node saves is handed to
    ``pack`` when the node is recorded, and ``unpack`` of what it returned gives the tensor
    back in the reverse pass (or to ``grad_fn._saved_*``). The innermost context wins."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled:
            raise EngineError(_disabled[-1])
        self.previous = PER_THREAD.saved_hooks
        PER_THREAD.saved_hooks = (self.pack_hook, self.unpack_hook)
        _open[0] += 1
        _recording_watched()
        return self

    def __exit__(self, *exc):
        PER_THREAD.saved_hooks = self.previous
        _open[0] -= 1
        _recording_watched()
        return False


def _same(tensor):
    return tensor


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors kept on the CPU: where every tensor is, so the hooks keep them as they are."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(_same, _same)


class disable_saved_tensors_hooks:  # noqa: N801
    """``with disable_saved_tensors_hooks(message):`` entering saved_tensors_hooks raises
    ``RuntimeError(message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _disabled.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _disabled.pop()
        return False


class allow_mutation_on_saved_tensors:  # noqa: N801
    """``with allow_mutation_on_saved_tensors():`` a tensor saved for backward may be written
    in place: the nodes recorded inside keep a copy of what they saved, as PyTorch's clones."""

    def __enter__(self):
        _saved.ALLOWING[0] += 1
        _recording_watched()
        return self

    def __exit__(self, *exc):
        _saved.ALLOWING[0] -= 1
        if not _saved.ALLOWING[0]:
            _saved.TRACKED.clear()
        _recording_watched()
        return False


# ----------------------------------------------------------------------------
# register_multi_grad_hook
# ----------------------------------------------------------------------------


class _MultiHandle(RemovableHandle):
    __slots__ = ("_handles",)

    def __init__(self, handles):
        self._handles = handles

    def remove(self):
        for handle in self._handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """``fn`` on the gradients of several tensors in one reverse pass.

    ``mode="all"``: ``fn(grads)`` once the pass ends, with each tensor's gradient (None for
    those the pass did not reach); ``mode="any"``: ``fn(grad)`` with the first that arrives.
    """
    if mode not in ("all", "any"):
        raise EngineError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        fired = []

        def first(grad):
            if PER_THREAD.at_end is not None and fired != [id(PER_THREAD.at_end)]:
                fired[:] = [id(PER_THREAD.at_end)]
                fn(grad)

        return _MultiHandle([t.register_hook(first) for t in tensors if t.requires_grad])
    grads = {}  # id of the pass's callback list -> the gradients it brought

    def collect(i):
        def hook(grad):
            at_end = PER_THREAD.at_end
            key = id(at_end)
            if key not in grads:
                grads[key] = [None] * len(tensors)
                at_end.append(lambda: fn(grads.pop(key)))
            grads[key][i] = grad

        return hook

    return _MultiHandle(
        [t.register_hook(collect(i)) for i, t in enumerate(tensors) if t.requires_grad]
    )
