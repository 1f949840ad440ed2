"""Pytrees, as ``torch.utils._pytree``: nested tuples, lists, dicts and namedtuples of leaves.

The transforms take and return them (``grad`` of a dict of parameters is a dict,
``vmap``'s ``in_dims`` is a prefix of its inputs' tree). ``flatten`` gives the
leaves in PyTorch's order (a dict's in its insertion order) and a ``TreeSpec``
that ``unflatten`` rebuilds the tree from; the spec prints as PyTorch's does, as
the transforms' error messages show it.
"""

from __future__ import annotations

__all__ = ["TreeSpec", "LEAF", "flatten", "unflatten", "tree_map", "broadcast_prefix", "pprint"]


def _kind(tree):
    """The node type of ``tree`` ('tuple', 'namedtuple', 'list', 'dict'), None for a leaf.
    As in PyTorch, a subclass of tuple or list other than a namedtuple is a leaf (a Size)."""
    t = type(tree)
    if t is tuple or t is list or t is dict:
        return t.__name__
    if isinstance(tree, tuple) and hasattr(t, "_fields"):
        return "namedtuple"
    if isinstance(tree, dict):
        return "dict"  # OrderedDict, defaultdict
    return None


class TreeSpec:
    """The structure of a pytree: its node type, context (a dict's keys, a namedtuple's
    class) and children's specs; a leaf's spec has no type."""

    __slots__ = ("type", "context", "children")

    def __init__(self, type_, context, children):
        self.type = type_
        self.context = context
        self.children = children

    @property
    def is_leaf(self):
        return self.type is None

    @property
    def num_leaves(self):
        return 1 if self.is_leaf else sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type, self.context, self.children) == (
            other.type,
            other.context,
            other.children,
        )

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        if self.is_leaf:
            return "*"
        name = "namedtuple" if _kind_of_type(self.type) == "namedtuple" else self.type.__name__
        text = f"TreeSpec({name}, {self.context}, ["
        if self.children:
            indent += 2
            text += self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return text + "])"


def _kind_of_type(t):
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return "namedtuple"
    return t.__name__


LEAF = TreeSpec(None, None, [])


def flatten(tree):
    """``(leaves, spec)``: the leaves in order, and the structure holding them."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    kind = _kind(tree)
    if kind is None:
        leaves.append(tree)
        return LEAF
    if kind == "dict":
        keys = list(tree)
        return TreeSpec(type(tree), keys, [_flatten(tree[k], leaves) for k in keys])
    context = type(tree) if kind == "namedtuple" else None
    return TreeSpec(type(tree), context, [_flatten(v, leaves) for v in tree])


def unflatten(leaves, spec):
    """The tree of ``spec`` holding ``leaves`` in order."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec.is_leaf:
        return next(it)
    children = [_build(c, it) for c in spec.children]
    if issubclass(spec.type, dict):
        return spec.type(zip(spec.context, children))
    if _kind_of_type(spec.type) == "namedtuple":
        return spec.type(*children)
    return spec.type(children)


class _Star:
    def __repr__(self):
        return "*"


def pprint(spec) -> str:
    """The tree of ``spec`` with ``*`` for each leaf, as PyTorch's ``treespec_pprint``."""
    return repr(unflatten([_Star()] * spec.num_leaves, spec))


def tree_map(fn, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix, spec):
    """The leaves of ``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``)
    repeated over the leaves of ``spec``; None where ``prefix`` is not such a prefix."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec, out):
    kind = _kind(prefix)
    if kind is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    if (
        spec.is_leaf
        or kind != _kind_of_type(spec.type)
        and not (kind == "dict" and issubclass(spec.type, dict))
    ):
        return False
    if kind == "dict":
        if set(prefix) != set(spec.context):
            return False
        return all(_broadcast(prefix[k], c, out) for k, c in zip(spec.context, spec.children))
    if kind == "namedtuple" and type(prefix) is not spec.type:
        return False
    if len(prefix) != len(spec.children):
        return False
    return all(_broadcast(p, c, out) for p, c in zip(prefix, spec.children))
