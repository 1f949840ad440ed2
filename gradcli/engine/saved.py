"""What a node saved for its rules, under PyTorch's names, and the versions that guard it.

An overload declares what PyTorch's node of that name saves (``saves`` in
``optable``): ``("self", "result")`` or, where PyTorch saves a value only when
an input that needs it requires grad, ``{"other": 0, "self": 1}`` (self is saved
for the gradient of input 1), in the order PyTorch's node saves them (what a pack
hook sees first: MulBackward0 saves other, then self). ``"self"`` is the first
input, ``"result"`` the op's result, any other name a parameter of the op's
schema; the names the schema lacks are its other inputs, in order
(``MmBackward0``'s ``mat2`` is matmul's ``other``). From that come
``grad_fn._saved_self`` and the check that what a node saved was not modified
in place after it was recorded: PyTorch's error, in its words. An overload that
does not declare (``saves`` True) shows no ``_saved_*`` and is not checked.

Version counters: each in-place op ticks the clock of ``graph`` (``begin``) and
then records the array it overwrote (``modified``): the tensor's version goes
up and the array, by the root of its memory (a view's base, as PyTorch's views
share a version counter), is listed with the tick. A node keeps the tick it was
recorded at, so the reverse pass (``check``) sees which of the arrays it saved
were written after it; nothing is asked of a node while no in-place op has run.
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from ..errors import EngineError
from . import dtypes, graph, state
from .messages import INFERENCE_SAVED, SECOND_BACKWARD
from .tensor import Tensor

# id(root array) -> [weakref to it, [(tick, version after), ...], the tensor written last]
MODIFIED = {}
_KEPT = 1000  # the ticks kept per array: a node older than all of them reads the oldest
ALLOWING = [0]  # allow_mutation_on_saved_tensors contexts open (autograd.graph)


def begin():
    """Tick the clock before an in-place op: the node the op records is not older than it."""
    graph.clock += 1


def modified(tensor, array):
    """``tensor`` was written in place; ``array`` held its values before."""
    vc = tensor._counter()
    vc[0] += 1
    if getattr(tensor, "_inference", False):
        tensor._written_in_place()
    if ALLOWING[0]:
        return  # the nodes that saved array hold copies (autograd.graph)
    if type(vc) is not list:
        return  # a write through .data, which PyTorch does not track
    root = _root(array)
    key = id(root)
    entry = MODIFIED.get(key)
    if entry is None:
        forget = MODIFIED.pop  # bound now: at exit the module's globals are gone
        entry = MODIFIED[key] = [weakref.ref(root, lambda _, key=key: forget(key, None)), []]
        entry.append(tensor)
    ticks = entry[1]
    ticks.append((graph.clock, vc[0]))
    if len(ticks) > _KEPT:
        del ticks[0]
    entry[2] = tensor


def refuse_inference(node):
    """``graph.on_record`` once inference tensors exist: a node that saves one for its
    backward is PyTorch's error (a node that only passes the gradient on is allowed)."""
    arrays = state.INFERENCE_ARRAYS
    if not arrays:
        return
    for _, where, index, by in items(node.op):
        if where != "input" or not _is_needed(node, by):
            continue
        array = node.saved[index]
        if isinstance(array, np.ndarray) and arrays.get(id(array)) is array:
            raise EngineError(INFERENCE_SAVED)


def _watch_inference():
    if graph.on_record is None:
        graph.on_record = refuse_inference


state.inference_opened = _watch_inference


def _root(array):
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


# ----------------------------------------------------------------------------
# The names of what an overload saves
# ----------------------------------------------------------------------------

_ITEMS = {}  # overload -> ((name, kind, index, needed_by), ...)


def items(op):
    """What ``op`` (an Overload) saves, resolved against its schema once:
    ``(name, kind, index, needed_by)``, kind "input", "result" or "param"."""
    found = _ITEMS.get(op)
    if found is None:
        saves = op.saves
        if not isinstance(saves, (tuple, dict)):
            found = ()
        else:
            needed = saves if isinstance(saves, dict) else dict.fromkeys(saves)
            names = op.entry.schema.names
            n_inputs = op.entry.schema.n_inputs
            known = {n: 0 if n == "self" else names.index(n) for n in needed if n in names
                     or n == "self"}  # fmt: skip
            # PyTorch's names for the other inputs (mm's mat2 is other), in their order.
            others = iter(i for i in range(n_inputs) if i not in known.values())
            found = []
            for name, by in needed.items():
                by = (by,) if isinstance(by, int) else by
                if name == "result":
                    found.append((name, "result", 0, by))
                    continue
                index = known[name] if name in known else next(others)
                if index < n_inputs:
                    found.append((name, "input", index, by))
                else:
                    found.append((name, "param", index - n_inputs, by))
            found = tuple(found)
        _ITEMS[op] = found
    return found


def _is_needed(node, by):
    if by is None:
        return True
    parents = node.parents
    return any(parents[i] is not None for i in by if i < len(parents))


# The names PyTorch's nodes most often save under. A node of an op whose saves are not
# declared has these too, to say so (``saved_value``) rather than that they do not exist.
_COMMON_NAMES = ("self", "other", "result", "input", "mat2", "dim", "keepdim", "exponent",
                 "weight", "target", "indices", "index", "mask", "alpha",
                 "value", "self_sym_sizes", "output")  # fmt: skip


def saved_names(op):
    """The names ``grad_fn._saved_<name>`` answers for the nodes of ``op``, an Overload
    (each a property of its node class: ``graph.node_class``)."""
    if isinstance(op.saves, (tuple, dict)):
        return tuple(item[0] for item in items(op))
    return _COMMON_NAMES if op.saves else ()


def saved_value(node, attribute):
    """``grad_fn._saved_<name>``: the value the node saved under that name (None where PyTorch
    saved nothing, as the input that would need it does not require grad)."""
    name = attribute[len("_saved_") :]
    op = node.op
    kind = type(node).__name__
    if not isinstance(op.saves, (tuple, dict)):
        if op.saves:
            raise AttributeError(
                f"'{kind}' object has no attribute '{attribute}': what {kind} saves is not "
                "declared in gradcli's op table, so it cannot be shown"
            )
        raise AttributeError(f"'{kind}' object has no attribute '{attribute}'")
    found = {item[0]: item[1:] for item in items(op)}.get(name)
    if found is None:
        raise AttributeError(f"'{kind}' object has no attribute '{attribute}'")
    where, index, by = found
    if not _is_needed(node, by):
        return None
    if where == "param":
        params = node.params
        if index < len(params):
            return params[index]
        param = op.entry.schema.params[op.entry.schema.n_inputs + index]
        return node.kwargs.get(param.name, param.default)
    if node.saved is None:
        raise EngineError(SECOND_BACKWARD)
    packed = None if node.hooks is None else node.hooks.packed
    if packed is not None and (where, index) in packed:
        return packed[where, index][1](packed[where, index][0])
    if where == "result":
        return Tensor._make(node.ans, node, True)
    parent = node.parents[index]
    raw = node.saved[index]
    if parent is None:
        return Tensor._make(raw) if isinstance(raw, np.ndarray) else raw
    if type(parent) is Tensor:
        return parent
    return Tensor._make(raw, parent, True)


graph.saved_value = saved_value  # what a node class's _saved_<name> properties answer with


# ----------------------------------------------------------------------------
# The check of the reverse pass
# ----------------------------------------------------------------------------


def check(node):
    """Raise PyTorch's error if an array ``node`` saved was written after it was recorded."""
    found = items(node.op)
    if not found:
        return
    t = node.t
    for _, where, index, by in found:
        if where == "param" or not _is_needed(node, by):
            continue
        array = node.ans if where == "result" else node.saved[index]
        if not isinstance(array, np.ndarray):
            continue
        entry = MODIFIED.get(id(_root(array)))
        if entry is None or entry[1][-1][0] <= t:
            continue
        expected = next(v for tick, v in entry[1] if tick > t) - 1
        tensor = entry[2]
        owner = node if where == "result" else tensor.grad_fn
        raise EngineError(_modified_message(array, owner, tensor._version, expected))


def _modified_message(array, owner, now, expected):
    kind = dtypes.tensor_type_name(dtypes.from_numpy(array.dtype))
    text = (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [torch.{kind} [{', '.join(map(str, array.shape))}]]"
    )
    if owner is not None:
        text += f", which is output 0 of {_op_name(owner.name())},"
    text += f" is at version {now}; expected version {expected} instead. Hint: "
    if state.PER_THREAD.anomaly_mode:
        return text + (
            "the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. "
            "Good luck!"
        )
    return text + (
        "enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _op_name(grad_fn_name):
    # PyTorch names the op, not its node: ExpBackward0 is "Exp"; CopySlices stays whole.
    return re.sub(r"Backward\d*$", "", grad_fn_name)


# ----------------------------------------------------------------------------
# Saved-tensor hooks: pack at recording, unpack in the reverse pass
# ----------------------------------------------------------------------------


def pack(node, pack_hook, unpack_hook):
    """Hand each tensor ``node`` saves to ``pack_hook``; the reverse pass unpacks them."""
    packed = {}
    for name, where, index, by in items(node.op):
        if where == "param" or not _is_needed(node, by):
            continue
        if where == "input" and not isinstance(node.saved[index], np.ndarray):
            continue  # a number, not a tensor
        value = saved_value(node, "_saved_" + name)
        packed[where, index] = (pack_hook(value), unpack_hook, name)
    if packed:
        if node.hooks is None:
            node.hooks = graph.GradHooks()
        node.hooks.packed = packed


def unpacked(node, ans, args, create_graph):
    """``(ans, args)`` with what the unpack hooks give in place of the packed values."""
    args = list(args)
    # In the order of PyTorch's names, as its nodes unpack (MulBackward0: other, then self).
    for (where, index), (value, unpack_hook, _) in sorted(
        node.hooks.packed.items(), key=lambda item: item[1][2]
    ):
        tensor = unpack_hook(value)
        if type(tensor) is not Tensor:
            raise EngineError(
                f"the unpack hook of saved_tensors_hooks returned {type(tensor).__name__}, "
                "not a Tensor"
            )
        raw = tensor if create_graph else tensor._data
        if where == "result":
            ans = raw
        else:
            args[index] = raw
    return ans, tuple(args)


# ----------------------------------------------------------------------------
# allow_mutation_on_saved_tensors: a write in place copies what nodes saved first
# ----------------------------------------------------------------------------

TRACKED = []  # the nodes recorded while allow_mutation_on_saved_tensors is open


def before_write(array):
    """Before ``array``'s memory is written in place: inside allow_mutation_on_saved_tensors,
    the nodes that saved it (or a view of its memory) take copies, as PyTorch clones them."""
    if not ALLOWING[0]:
        return
    root = _root(array)
    for node in TRACKED:
        values = node.saved
        if values is None:
            continue
        if any(isinstance(a, np.ndarray) and _root(a) is root for a in values):
            node.saved = tuple(
                a.copy() if isinstance(a, np.ndarray) and _root(a) is root else a for a in values
            )
        if isinstance(node.ans, np.ndarray) and _root(node.ans) is root:
            node.ans = node.ans.copy()
