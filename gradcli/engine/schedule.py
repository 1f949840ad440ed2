"""The reverse pass's first step: which nodes run, and when each is ready.

A node runs once every gradient for it has arrived, so the pass counts, for each node,
the edges that lead into it from the roots; with ``inputs`` it also marks, in the same
walk, the nodes on a path to one of them (only these run, as in PyTorch) and the
non-leaf inputs whose gradient is captured.
"""

from __future__ import annotations

from .tensor import Tensor


def schedule(node_grads, inputs):
    """``(pending, ready, pruning, hooked)``: how many edges lead into each node from the
    roots (a node runs once every gradient for it has arrived), the nodes ready now,
    with ``inputs`` what prunes the pass to them (else None), and without them how
    many edges lead into each leaf that has hooks on its gradient (else empty)."""
    hooked = {}
    if inputs is None:
        pending, pruning = count_incoming(node_grads, hooked=hooked), None
    else:
        pending, pruning = count_and_prune(node_grads, inputs)
    ready = [node for node in node_grads if node not in pending]
    return pending, ready, pruning, hooked


class Pruning:
    """With ``inputs``: only the nodes on a path to one of them run (as in PyTorch),
    and the gradient that reaches a non-leaf input is captured. ``needed`` is None
    when every node reached leads to an input."""

    def __init__(self, capture, needed):
        self.capture = capture
        self.needed = needed
        self.captured = {}

    def gradient(self, node, g):
        """What of ``g``, the gradient that reached ``node``, the pass carries on."""
        if g is None:
            return None
        if node in self.capture:
            self.captured[node] = g
        return g if self.needed is None or node in self.needed else None


def count_incoming(starts, leaf_ids=None, hooked=None):
    """For each node reachable from ``starts``, how many edges lead into it; with
    ``leaf_ids``, None as soon as a leaf outside them is met; with ``hooked``, the
    edges into each leaf that has hooks on its gradient counted there, by id."""
    pending = {}
    stack = list(starts)
    while stack:
        node = stack.pop()
        for parent in (node.p0, node.p1) if node.pn is None else node.pn:
            if parent is None:
                continue
            if type(parent) is Tensor:
                if leaf_ids is not None and id(parent) not in leaf_ids:
                    return None
                if hooked is not None and getattr(parent, "_hooks", None) is not None:
                    if parent._hooks.hooks:
                        hooked[id(parent)] = hooked.get(id(parent), 0) + 1
            else:  # a Node of any kind
                count = pending.get(parent)
                if count is None:
                    pending[parent] = 1
                    if parent not in starts:
                        stack.append(parent)
                else:
                    pending[parent] = count + 1
    return pending


def count_and_prune(starts, inputs):
    """``(pending, pruning)``: ``count_incoming``'s counts and, in the same walk, the
    nodes that have a parent on a path to one of ``inputs`` (only these need to run: a
    non-leaf input's own node only has its gradient read). ``pruning`` is None when
    every node leads to an input and none is a non-leaf (the usual ``grad(y, x)``),
    which the plain count finds when every leaf it meets is an input."""
    capture = {t._grad_fn for t in inputs if t._grad_fn is not None}
    leaf_ids = {id(t) for t in inputs if t._grad_fn is None}
    if not capture:
        # Every leaf an input: every node leads to one (each has a parent that is a leaf
        # or a node), so nothing is pruned and the plain count is the whole walk.
        pending = count_incoming(starts, leaf_ids)
        if pending is not None:
            return pending, None
    pending = {}
    reaches = {}  # a node decided (its parents first): whether it is or leads to an input
    leads = set()
    every_node_leads = True
    stack = [(node, False) for node in starts]
    while stack:  # an iterative post-order walk; each node's edges are counted on expanding it
        node, parents_done = stack.pop()
        parents = (node.p0, node.p1) if node.pn is None else node.pn
        if parents_done:
            lead = False
            for p in parents:
                if p is not None and (
                    id(p) in leaf_ids if type(p) is Tensor else reaches[p] is True
                ):
                    lead = True
                    break
            if lead:
                leads.add(node)
            else:
                every_node_leads = False
            reaches[node] = lead or node in capture
        elif node not in reaches:
            reaches[node] = None  # expanded, not yet decided
            stack.append((node, True))
            for parent in parents:
                if parent is not None and type(parent) is not Tensor:  # a Node of any kind
                    count = pending.get(parent)
                    pending[parent] = 1 if count is None else count + 1
                    if parent not in reaches:
                        stack.append((parent, False))
    if every_node_leads and not capture:
        return pending, None
    return pending, Pruning(capture, None if every_node_leads else leads)
