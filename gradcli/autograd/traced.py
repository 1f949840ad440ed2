"""The graph behind a tensor as `gradcli graph` shows it, and the reverse pass step by step.

``trace(out, grad_output)`` walks the graph PyTorch's way (``grad_fn``,
``next_functions``, leaves as ``AccumulateGrad``) from the output down to the
leaves, runs one reverse pass while recording what it does, and returns a
``Graph``: every node with its value and the gradient that reached it, the
edges, and the steps of the reverse pass in the order the engine ran them.
Nothing recurses, so a graph of any depth is walked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..engine.explain import operands_named, rule_words
from ..engine.graph import Node
from ..engine.graph import short_name as _short
from ..engine.state import PER_THREAD
from ..engine.tensor import Tensor
from . import grad


@dataclass(frozen=True, eq=False)
class GraphNode:
    """One node: an op's result (its grad_fn) or a leaf (an input that requires grad)."""

    #: Its place in the walk from the output: 0 is the output.
    id: int
    #: PyTorch's grad_fn name (``AddBackward0``), ``AccumulateGrad`` for a leaf.
    name: str
    #: The input's name, for a leaf; None for an op.
    leaf: str | None
    #: Where in the source it came from (an ``errors.Span``), when known.
    span: object | None
    value: np.ndarray
    #: The gradient that reached it in the reverse pass (a leaf's ``.grad``); None when
    #: there was no reverse pass, or none reached it.
    grad: np.ndarray | None
    #: The ids of its ``next_functions``, in order; None for an input that is a constant.
    inputs: tuple[int | None, ...]
    #: The name of the op, as the op table knows it (``add``); None for a leaf.
    op: str | None = None
    #: The source text it came from (``x + 2``), when known.
    text: str | None = None


@dataclass(frozen=True, eq=False)
class Send:
    """What one node's rule sent to one of its inputs."""

    #: The id of the input's node.
    to: int
    #: The rule in words (``d(a*b)/da = b``), when there are words for it.
    rule: str | None
    #: ``(name, value)`` of the inputs the rule uses (``(("b", 2.0),)``), when they are
    #: single numbers.
    operands: tuple[tuple[str, np.ndarray], ...]
    grad: np.ndarray
    #: The sum so far, when gradients from other paths reached ``to`` before this one.
    total: np.ndarray | None


@dataclass(frozen=True, eq=False)
class Step:
    """One node of the reverse pass: the gradient it received and what it sent on."""

    node: int
    received: np.ndarray
    sends: tuple[Send, ...]


@dataclass(frozen=True, eq=False)
class Graph:
    #: Output first, in the order of a depth-first walk along ``next_functions``.
    nodes: tuple[GraphNode, ...]
    #: ``(input id, output id)``: from each input to the node that uses it.
    edges: tuple[tuple[int, int], ...]
    #: The reverse pass, in the order the engine ran it (empty without one).
    steps: tuple[Step, ...]


class record_backward:  # noqa: N801  (a context manager, named like detect_anomaly)
    """Record, during a reverse pass, ``(node, index, g, gi)`` for every gradient a
    node's rule sends: ``g`` is what the node received, ``gi`` what it sent to input
    ``index``. A check already installed (``detect_anomaly``) still runs."""

    def __init__(self):
        self.sends: list = []

    def __enter__(self):
        self.previous = previous = PER_THREAD.anomaly

        def hook(node, index, g, gi):
            self.sends.append((node, index, _array(g), _array(gi)))
            if previous is not None:
                previous(node, index, g, gi)

        PER_THREAD.anomaly = hook
        return self

    def __exit__(self, *exc):
        PER_THREAD.anomaly = self.previous
        return False


def trace(
    out: Tensor,
    grad_output=None,
    names: Mapping[str, Tensor] | None = None,
    sources: Mapping[Node, object] | None = None,
    backward: Callable | None = None,
) -> Graph:
    """The graph of ``out``, with the reverse pass from ``grad_output`` (a tensor of
    ``out``'s shape; None: no pass).

    ``names`` names the leaves (``{"x": x}``); ``sources`` maps a node to where it
    came from (a span). ``backward(out, leaves, grad_output)`` runs the reverse pass
    (by default ``autograd.grad``); the leaves' ``.grad`` are left untouched.
    """
    sources = sources or {}
    leaf_names = {id(t): name for name, t in (names or {}).items()}
    order, ids, children = _walk(out)
    leaves = [item for item in order if type(item) is Tensor]
    grads: dict[int, np.ndarray] = {}
    steps: list[Step] = []
    if grad_output is not None and leaves:
        steps = _reverse_pass(out, leaves, grad_output, ids, grads, backward)
    nodes = []
    for item in order:
        key = ids[_key(item)]
        if type(item) is Tensor:
            nodes.append(
                GraphNode(
                    key,
                    "AccumulateGrad",
                    leaf_names.get(id(item), "leaf"),
                    None,
                    _array(item._data),
                    grads.get(key),
                    (),
                )
            )
        else:
            nodes.append(
                GraphNode(
                    key,
                    _short(item.name()),
                    None,
                    sources.get(item),
                    _array(item.ans),
                    grads.get(key),
                    children[key],
                    item.op.name,
                )
            )
    edges = tuple((child, node.id) for node in nodes for child in node.inputs if child is not None)
    return Graph(tuple(nodes), edges, tuple(steps))


def _key(item):
    return id(item) if type(item) is Tensor else item


def _walk(out: Tensor):
    """``(order, ids, children)``: the nodes and leaves reachable from ``out`` in
    depth-first preorder, the id of each, and the ids of each node's inputs."""
    root = out.grad_fn if out.grad_fn is not None else (out if out.requires_grad else None)
    if root is None:
        return [], {}, {}
    order, ids, children = [], {}, {}
    stack = [root]
    while stack:
        item = stack.pop()
        if _key(item) in ids:
            continue
        ids[_key(item)] = len(order)
        order.append(item)
        if isinstance(item, Node):
            stack.extend(p for p in reversed(item.parents) if p is not None)
    for item in order:
        if isinstance(item, Node):
            children[ids[item]] = tuple(None if p is None else ids[_key(p)] for p in item.parents)
    return order, ids, children


def _reverse_pass(out, leaves, grad_output, ids, grads, backward) -> list[Step]:
    if backward is None:

        def backward(out, leaves, grad_output):
            return grad(out, leaves, grad_output, allow_unused=True)

    root = ids[_key(out.grad_fn if out.grad_fn is not None else out)]
    grads[root] = _array(grad_output)
    # The inputs' values, read before the pass frees them: the rules' numbers.
    numbers = {
        node: tuple(_array(a) for a in node.saved)
        for node in ids
        if isinstance(node, Node)
        and node.saved is not None
        and all(np.size(a) == 1 for a in node.saved)
    }
    with record_backward() as record:
        found = backward(out, leaves, grad_output)
    steps: list[Step] = []
    sends: list[Send] = []
    current = None
    for node, index, g, gi in record.sends:
        if node is not current:
            if current is not None:
                steps.append(Step(ids[current], grads[ids[current]], tuple(sends)))
            current, sends = node, []
            grads.setdefault(ids[node], g)
        target = ids[_key(node.parents[index])]
        before = grads.get(target)
        total = None if before is None else _array(before + gi)
        grads[target] = gi if before is None else total
        entry = getattr(node.op, "entry", None)  # None: a custom Function's node
        rule = None if entry is None else rule_words(entry, index)
        values = numbers.get(node)
        used = ()
        if rule is not None and values is not None:
            used = tuple((name, values[i]) for i, name in operands_named(entry, rule))
        sends.append(Send(target, rule, used, gi, total))
    if current is not None:
        steps.append(Step(ids[current], grads[ids[current]], tuple(sends)))
    for leaf, g in zip(leaves, found):
        if g is not None:
            grads[ids[id(leaf)]] = _array(g)
    return steps


def _array(g) -> np.ndarray:
    """A read-only copy: a graph's numbers are a record, not a workspace."""
    array = np.array(g._data if type(g) is Tensor else g)
    array.flags.writeable = False
    return array
