"""A program's recorded ops replayed on raw arrays: its value and gradient at other values
of the inputs varied, without the evaluator, tensors or nodes.

A solver evaluates one program at many points that differ only in the values of the
inputs it varies (``fit``'s parameters, ``minimize``'s inputs). The graph one
evaluation records is the same at every point when no value of those inputs decides
what the program does: no condition, loop, comparison, subscript, integer argument or
const reads one, and every op they reach is recorded (``refusal`` reads the IR for
that). Such a graph is kept as a ``Tape``: its nodes in order, each with its overload's
own forward and rules (the op table's: nothing is declared twice), replayed on NumPy
arrays. The forward computes what each node's op computed, and the reverse sweep is the
engine's fast pass (``backward.run_backward``) step for step, in its order, so value and
gradient are the engine's bit for bit. A graph with an op beyond ``REPLAYED`` kinds, or
a program ``refusal`` refuses, is evaluated by the engine as before; ``REFUSED`` counts
those, by reason.

A tape of a recorded gradient (``minimize``'s, whose Hessian is a reverse pass over it)
also holds what the rules computed: it is refused where a rule compared values of the
graph while recording it (``watching``: a mask made of a constant gradient is no node,
and would stay as it was at the recorded point) or where a non-linear reduction's rule
read them.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter

import numpy as np

from ..engine import graph, ops
from ..engine.graph import IN_SLOTS, NO_KWARGS
from ..engine.ops import FUNCTIONS, OPERATORS
from ..engine.schedule import count_incoming
from ..engine.tensor import Tensor
from . import derivatives, ir
from .signatures import builtin_signature
from .transformations import TRANSFORMATIONS

#: The kinds of entries whose ops a tape replays: their choice of overload reads the
#: arguments' types and shapes, never their values.
REPLAYED = frozenset({"elementwise", "binary", "reduction"})
#: Beside them, the ops that move entries about ("shape": indexing by subscripts that
#: read no input varied, the adjoints the rules use), linear and blind to values.
#: The parameter types through which a value varied may reach an op: as a tensor.
_TENSOR_TYPES = frozenset({"Tensor", "Tensor|Number", "Number|Tensor"})
#: The programs and graphs left to the engine, by reason.
REFUSED: Counter = Counter()

_LEAF, _NODE, _CONSTANT = 0, 1, 2


def refusal(program, varied) -> str | None:
    """Why the graph of ``program`` (compiled) could differ from point to point of the
    inputs ``varied``, or None when it cannot."""
    return _refusal(program, tuple(varied))


# A compiled program is immutable (and kept by ``compile_source``): a solver's every run
# of one program reads its IR once.
@functools.lru_cache(maxsize=16)
def _refusal(program, varied: tuple) -> str | None:
    tainted = set(varied)
    for statement in program.ir.statements:
        if isinstance(statement, ir.Assign):
            value = statement.value
        elif isinstance(statement, ir.ConstDecl):
            if _reads(statement.value, tainted):
                return "a const defined from an input varied"
            continue
        elif isinstance(statement, (ir.IndexAssign, ir.FuncDef, *ir.COMPOUND)):
            return f"a {type(statement).__name__} statement"
        elif isinstance(statement, (ir.Break, ir.Continue)):
            return "a loop"
        else:
            value = statement
        reason = _expression_refusal(value, tainted)
        if reason is not None:
            return reason
        if isinstance(statement, ir.Assign) and _reads(value, tainted):
            tainted.add(statement.name)
    return None


def _reads(node, tainted) -> bool:
    return any(isinstance(n, ir.Name) and n.id in tainted for n in ir.walk(node))


def _reading(expression, tainted) -> set[int]:
    """The ids of the nodes of ``expression`` that read a name of ``tainted``: each node's
    children decided before it (``walk`` gives parents first)."""
    nodes = list(ir.walk(expression))
    found = set()
    for node in reversed(nodes):
        if (isinstance(node, ir.Name) and node.id in tainted) or any(
            id(child) in found for child in ir.children(node)
        ):
            found.add(id(node))
    return found


def _expression_refusal(expression, tainted) -> str | None:
    reading = _reading(expression, tainted)
    if id(expression) not in reading:
        return None  # the same at every point, whatever it does

    def reads(node) -> bool:
        return id(node) in reading

    for node in ir.walk(expression):
        if isinstance(node, ir.Lambda):
            return "a function value"
        if isinstance(node, ir.Compare) and reads(node):
            return "a comparison of an input varied"
        if isinstance(node, ir.IfExp) and reads(node.test):
            return "a condition on an input varied"
        if isinstance(node, ir.Index) and any(map(reads, node.subscripts)):
            return "a subscript read from an input varied"
        if isinstance(node, (ir.UnaryOp, ir.BinOp, ir.Chain)) and reads(node):
            names = (node.op,) if isinstance(node, (ir.UnaryOp, ir.BinOp)) else node.ops
            for name in names:
                entry = OPERATORS[name]
                if entry.language_constant or not entry.differentiable or _composite(entry):
                    return f"the operator {name} of an input varied"
        if isinstance(node, (ir.Call, ir.Method)):
            reason = _call_refusal(node, reads)
            if reason is not None:
                return reason
    return None


def _call_refusal(node, reads) -> str | None:
    name = node.func if isinstance(node, ir.Call) else node.name
    if name in derivatives.FORMS or name in TRANSFORMATIONS or name not in FUNCTIONS:
        return f"a call of {name}"
    args = [node.obj, *node.args] if isinstance(node, ir.Method) else list(node.args)
    if not any(map(reads, args)) and not any(reads(k.value) for k in node.keywords):
        return None
    entry = FUNCTIONS[name]
    if not entry.differentiable or entry.kind not in REPLAYED or _composite(entry):
        return f"{name} of an input varied"
    types = {p.name: p.type for p in entry.schema.params}
    if "generator" in types:
        return f"{name} draws random numbers"
    sig = builtin_signature(name)
    params = list(sig.positional) + [sig.variadic] * max(0, len(args) - len(sig.positional))
    given = [*zip(params, args), *((sig.canonical(k.name), k.value) for k in node.keywords)]
    for param, value in given:
        if reads(value) and types.get(param) not in _TENSOR_TYPES:
            return f"{name}'s {param} read from an input varied"
    return None


@contextlib.contextmanager
def watching():
    """While the block records a differentiable pass, whether a rule compared values of
    the graph off it (``where(x > 0, g, 0)`` with g constant is no node, and the mask
    would stay as it was at the recorded point): a list that holds True if so."""
    seen = [False]

    def compared(entry, args):
        if any(type(a) is Tensor and a.requires_grad for a in args):
            seen[0] = True

    before, graph.off_graph = graph.off_graph, compared
    try:
        yield seen
    finally:
        graph.off_graph = before


def _composite(entry) -> bool:
    """Whether ``entry`` is a composite (``table.composite``), whose function may do more
    than record its overloads (cut a value from the graph)."""
    return entry.forward is None


class Tape:
    """The nodes of the graph from ``leaves`` to ``outputs`` in an order that computes
    each after its inputs, replayable at other values of the leaves: ``forward``, then
    ``gradients`` of an output.

    A replay keeps every array in one list, the store: the leaves, the constants the
    nodes saved, then each node's result; a node names its inputs by their places in
    it, and the place of its parent's gradient (a leaf's, a node's, or None)."""

    def __init__(self, nodes, outputs, leaves):
        index = {node: k for k, node in enumerate(nodes)}
        leaf_index = {id(t): k for k, t in enumerate(leaves)}
        self.leaf_shapes = [t._data.shape for t in leaves]
        self.leaf_dtypes = [t._data.dtype for t in leaves]
        constants = []
        self.base = base = len(leaves)  # the store's first constant; its nodes follow them
        places = []  # each node's inputs: (place in the store, source kind, its index)
        for node in nodes:
            saved = (node.s0,) if node.n == 1 else (node.s0, node.s1)
            inputs = []
            for parent, raw in zip((node.p0, node.p1)[: node.n], saved):
                if parent is None:
                    constants.append(raw)
                    inputs.append((-len(constants), _CONSTANT, None))
                elif type(parent) is Tensor:
                    i = leaf_index[id(parent)]
                    inputs.append((i, _LEAF, i))
                else:
                    inputs.append((-1 - index[parent], _NODE, index[parent]))
            places.append(inputs)
        self.constants = constants
        first = base + len(constants)  # the store's first node
        self.first = first

        def place(at):  # the place in the store, once the constants' count is known
            at, kind, i = at
            return base - 1 - at if kind == _CONSTANT else first + i if kind == _NODE else at

        # Each node's forward, the places of its one or two inputs (-1: none), and its
        # parameters: a replay's loop reads no more than it must.
        self.steps = [
            (node.op.forward, place(inputs[0]), place(inputs[1]) if len(inputs) > 1 else -1)
            + (node.params,)
            for node, inputs in zip(nodes, places)
        ]
        # The reverse pass: each node's rules and, per input, the place of the input,
        # its shape (a gradient of another is summed to it), and whose gradient it is.
        self.rules = [
            (
                first + k,
                tuple(place(at) for at in inputs),
                node.params,
                tuple(
                    (rule, place(at), raw.shape, kind, i)
                    for rule, at, raw, (_, kind, i) in zip(
                        node.op.rules,
                        inputs,
                        (node.s0,) if node.n == 1 else (node.s0, node.s1),
                        inputs,
                    )
                    if kind != _CONSTANT
                ),
            )
            for k, (node, inputs) in enumerate(zip(nodes, places))
        ]
        #: Each output's node.
        self.outputs = [index[t._grad_fn] for t in outputs]
        # How many edges lead into each node from each output, as the engine's schedule
        # counts them.
        self.pending = []
        for t in outputs:
            counts = count_incoming({t._grad_fn: None})
            self.pending.append([counts.get(node, 0) for node in nodes])
        #: For each output, the order in which its reverse sweep visits the nodes: the
        #: engine's, which reads only the graph (``_schedule``), found once.
        self.orders = [self._schedule(j) for j in range(len(outputs))]
        # What a sweep reads at each node it visits, in that order: the node's place, the
        # places of its one or two inputs (-1: none), its parameters, and the rules of
        # the inputs that have one.
        self.visits = [
            [
                (k, at, inputs[0], inputs[1] if len(inputs) > 1 else -1, params)
                + (tuple((rule, *rest[1:]) for rule, *rest in parents if rule is not None),)
                for k in order
                for at, inputs, params, parents in (self.rules[k],)
            ]
            for order in self.orders
        ]

    @classmethod
    def of(cls, outputs, leaves, second_order: bool = False) -> Tape | None:
        """The tape of the graph from ``leaves`` (tensors) to ``outputs``, or None (counted
        in ``REFUSED``) when it holds an op that a tape does not replay. ``second_order``:
        the outputs include gradients recorded by a differentiable pass, whose rules must
        then make nothing of the leaves' values off the graph (``_second_order``)."""
        if any(type(t) is not Tensor or t._grad_fn is None for t in outputs):
            return _refused("an output that no input varied reaches")
        leaf_ids = {id(t) for t in leaves}
        nodes, reason = _ordered([t._grad_fn for t in outputs], leaf_ids, second_order)
        if reason is not None:
            return _refused(reason)
        tape = cls(nodes, outputs, leaves)
        # The replay at the recorded point gives every node's recorded result, or the
        # engine keeps the program.
        values = tape.forward([t._data for t in leaves])[tape.first :]
        for node, value in zip(nodes, values):
            if value.dtype != node.ans.dtype or not _same(value, node.ans):
                return _refused(f"{node.op.grad_fn} replayed otherwise than recorded")
        return tape

    def forward(self, leaves, quiet: bool = True) -> list:
        """The store at the leaves' values given (raw arrays of their recorded shapes):
        output ``j``'s value is ``store[tape.first + tape.outputs[j]]``. ``quiet``:
        NumPy's floating-point errors ignored here; False where the caller ignores them
        already (np.errstate costs as much as a small op)."""
        if quiet:
            with np.errstate(all="ignore"):
                return self._forward(leaves)
        return self._forward(leaves)

    def _forward(self, leaves) -> list:
        store = [*leaves, *self.constants]
        append = store.append
        for forward, a, b, params in self.steps:
            if params:
                out = forward(store[a], *params) if b < 0 else forward(store[a], store[b], *params)
            else:
                out = forward(store[a]) if b < 0 else forward(store[a], store[b])
            append(out if type(out) is np.ndarray else np.asarray(out))
        return store

    def output(self, store, j: int) -> np.ndarray:
        """Output ``j``'s value in ``store``."""
        return store[self.first + self.outputs[j]]

    def gradients(
        self, store, output: int, seed, batch_dims: int = 0, copies: bool = True, quiet=True
    ) -> list:
        """d(outputs[output])/d(leaf) along ``seed`` for each leaf (``batch_dims`` leading
        dimensions of ``seed`` are a batch, as ``is_grads_batched``), at the values of
        ``store`` (``forward``'s): new arrays (``copies``; else possibly views of the store
        or of ``seed``), zeros for a leaf the output does not reach. ``quiet``: as
        ``forward``'s."""
        if quiet:
            with np.errstate(all="ignore"):
                grads = self._backward(store, output, seed, batch_dims)
        else:
            grads = self._backward(store, output, seed, batch_dims)
        if not copies and not batch_dims:
            return [
                np.zeros(shape, dtype) if g is None else np.asarray(g, dtype)
                for g, shape, dtype in zip(grads, self.leaf_shapes, self.leaf_dtypes)
            ]
        batch = np.shape(seed)[:batch_dims]
        return [
            np.zeros(batch + shape, dtype)
            if g is None
            else np.array(g, dtype=dtype, order="C")
            if copies
            else np.asarray(g, dtype)
            for g, shape, dtype in zip(grads, self.leaf_shapes, self.leaf_dtypes)
        ]

    def _schedule(self, output) -> list[int]:
        """The nodes in the order ``run_backward``'s fast pass takes them from output
        ``output``: a node is ready once every edge into it from the output has given
        its gradient (or none), whatever the values."""
        pending, root = list(self.pending[output]), self.outputs[output]
        order, ready = [], [root]
        while ready:
            k = ready.pop()
            order.append(k)
            for _, _, _, kind, i in self.rules[k][3]:
                if kind != _LEAF:
                    pending[i] -= 1
                    if pending[i] == 0:
                        ready.append(i)
        return order

    def _backward(self, store, output, seed, batch_dims) -> list:
        """``run_backward``'s fast pass over the tape: the same rules, sums and order."""
        node_grads = [None] * len(self.rules)
        leaf_grads = [None] * len(self.leaf_shapes)
        node_grads[self.outputs[output]] = seed
        for k, at, a, b, params, parents in self.visits[output]:
            g = node_grads[k]
            if g is None:
                continue
            node_grads[k] = None
            if b < 0:
                call = (g, store[at], store[a], *params)
            else:
                call = (g, store[at], store[a], store[b], *params)
            for rule, shape, kind, i in parents:
                gi = rule(*call)
                if gi is None:
                    continue
                if batch_dims:
                    if gi.shape[batch_dims:] != shape or gi.ndim != len(shape) + batch_dims:
                        gi = ops.sum_to(gi, shape, batch_dims)
                elif gi.shape != shape:
                    gi = ops.sum_to(gi, shape, 0)
                grads = leaf_grads if kind == _LEAF else node_grads
                total = grads[i]
                grads[i] = gi if total is None else total + gi
        return leaf_grads


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal(a, b, equal_nan=True)``, nan looked for only where a differs."""
    if a.shape != b.shape:
        return False
    equal = a == b
    return bool(equal.all()) or np.array_equal(a, b, equal_nan=True)


def _ordered(roots, leaf_ids, second_order) -> tuple[list, str | None]:
    """The nodes from ``roots`` to the leaves, each after its parents (an iterative
    post-order walk), or the reason a tape cannot hold them."""
    order, seen = [], set()
    stack = [(root, False) for root in reversed(roots)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        reason = _node_refusal(node, leaf_ids, second_order)
        if reason is not None:
            return [], reason
        stack.append((node, True))
        for parent in (node.p1, node.p0)[2 - node.n :]:
            if parent is not None and type(parent) is not Tensor and parent not in seen:
                stack.append((parent, False))
    return order, None


def _node_refusal(node, leaf_ids, second_order) -> str | None:
    op = node.op
    entry = op.entry
    if entry.kind not in REPLAYED and entry.kind != "shape":
        return f"{op.grad_fn}: a tape replays no {entry.kind} op"
    if second_order and entry.kind == "reduction" and entry.series != "linear":
        # A reduction that is not linear (max, prod) may read the values off the graph in
        # its rule (ties, zeros): the recorded gradient would keep what it found there.
        return f"{op.grad_fn}: a rule that reads values, differentiated"
    if node.sn is not IN_SLOTS or op.variadic or node.kwargs is not NO_KWARGS:
        return f"{op.grad_fn}: an op of more than two inputs"
    saved = (node.s0,) if node.n == 1 else (node.s0, node.s1)
    if node.hooks is not None or node.ans.dtype.kind != "f" or any(map(np.iscomplexobj, saved)):
        return f"{op.grad_fn}: hooks or complex numbers"
    for parent, raw in zip((node.p0, node.p1)[: node.n], saved):
        if type(parent) is Tensor:
            if id(parent) not in leaf_ids or raw is not parent._data:
                return "a leaf that is not an input varied"
        elif parent is not None and raw is not parent.ans:
            return f"{op.grad_fn}: an input other than its parent's result"
    return None


def _refused(reason: str) -> None:
    REFUSED[reason] += 1
    return None
