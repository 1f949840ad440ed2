"""The recorded graph: a ``Node`` per op application, and the hooks on gradients.

A node holds what the reverse pass (``backward.py``) needs to run its op's
rules: the overload applied (its rules and grad_fn name), the parents (per
input: a ``Node`` for a computed input, the leaf ``Tensor`` itself, or ``None``
for a constant), the saved raw inputs, the result and the parameters.
"""

from __future__ import annotations

NO_KWARGS = {}  # shared by the nodes of ops called without keywords (never written)
IN_SLOTS = object()  # a node's ``sn``: its saved inputs are in its slots s0, s1 (Node.saved)

# The in-place clock: one tick per in-place op (``versions``). A node keeps the tick it
# was recorded at, so the check of its saved values knows what was modified after it.
clock = 0
# Called with every new node while saved-tensor hooks or allow_mutation_on_saved_tensors
# are on (``autograd.graph``); None otherwise, which is all the recording pays.
on_record = None
# Called with an op without derivative and its arguments (comparisons) while a tape is
# recorded (``language/tape.py``), to see a value made off the graph; None otherwise.
off_graph = None
# ``saved.saved_value``, set by that module (which imports this one) when it loads.
saved_value = None


class _NodeClass(type):
    """The class of the node classes: ``type(y.grad_fn)`` prints ``<class 'ExpBackward0'>``,
    ``AccumulateGrad`` ``<class 'AccumulateGrad'>``, as PyTorch's."""

    def __repr__(cls):
        return f"<class '{cls.__name__}'>"


class Node(metaclass=_NodeClass):
    """One recorded op application.

    The parents of an op of one or two inputs live in the node's own slots
    ``p0``, ``p1``, not in a tuple (``pn`` holds the tuple for other arities):
    every object a graph keeps alive is one more for Python's cycle collector to
    walk, and on a deep graph of scalar ops those walks used to cost more than
    the ops themselves.

    Every node the graph records is of this one class; the user is handed it as its
    op's class (``MulBackward0``: ``node_class``, ``shown``).
    """

    __slots__ = ("op", "n", "p0", "p1", "pn", "s0", "s1", "sn", "ans", "params", "kwargs")
    __slots__ += ("hooks", "wired", "t", "_metadata")

    def __init__(self, op, parents, saved, ans, params, kwargs):
        self.op = op  # an optable.Overload
        self.n = n = len(parents)
        if n == 1:
            self.p0 = parents[0]
            self.p1 = self.pn = None
        elif n == 2:
            self.p0, self.p1 = parents
            self.pn = None
        else:
            self.p0 = self.p1 = None
            self.pn = parents
        self.saved = saved
        self.ans = ans
        self.params = params
        self.kwargs = kwargs or NO_KWARGS
        self.hooks = None  # GradHooks: register_hook and retain_grad of the node's tensor
        self.t = clock
        self.wired = None  # the saved inputs as tensors on the graph, for differentiable passes
        if on_record is not None:
            on_record(self)

    # The saved raw inputs: of an op of one or two inputs in the slots ``s0``, ``s1`` (``sn``
    # is then IN_SLOTS), else the tuple ``sn``; ``sn`` is None once a pass freed them. Not a
    # tuple per node, for the reason the parents are not (the reverse pass reads the slots).
    @property
    def saved(self):
        sn = self.sn
        if sn is not IN_SLOTS:
            return sn
        return (self.s0,) if self.n == 1 else (self.s0, self.s1)

    @saved.setter
    def saved(self, values):
        if values is not None and len(values) == self.n and self.n in (1, 2):
            self.s0 = values[0]
            self.s1 = values[1] if self.n == 2 else None
            self.sn = IN_SLOTS
        else:
            self.s0 = self.s1 = None
            self.sn = None if values is None else tuple(values)

    @property
    def parents(self) -> tuple:
        n = self.n
        return (self.p0,) if n == 1 else (self.p0, self.p1) if n == 2 else self.pn

    def name(self) -> str:
        return self.op.grad_fn

    @property
    def next_functions(self):
        """``((node, output_nr), ...)``: one entry per operand PyTorch lists, in its order.

        A Python number is listed as ``(None, 0)`` where PyTorch wraps it in a
        tensor (``x * 2``), and left out where PyTorch has an overload taking the
        number (``x ** 2``, ``1 - x``: ``op.lists_numbers`` is False); an optional
        tensor operand not given (clamp's max) is listed as ``(None, 0)``.
        """
        op = self.op
        entries = []
        for p in self.parents:
            if p is None:
                if op.lists_numbers:  # where it is False, a constant operand is a number
                    entries.append((None, 0))
            elif isinstance(p, Node):
                entries.append((shown(p), getattr(p, "output_nr", 0)))
            else:
                entries.append((AccumulateGrad(p), 0))
        rules = op.rules
        if rules is not None and op.lists_numbers and not op.variadic:
            entries.extend([(None, 0)] * (len(rules) - len(entries)))
        return tuple(entries)

    def __repr__(self) -> str:
        return f"<{short_name(self.op.grad_fn)} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict:
        """A dict of the user's, kept with the node (as PyTorch's ``grad_fn.metadata``)."""
        try:
            return self._metadata
        except AttributeError:
            self._metadata = {}
            return self._metadata

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node's rules ran; a tuple it returns
        replaces grad_inputs (the gradients of the node's inputs)."""
        holder = self._holder()
        return holder.add(fn, holder.node_post)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node's rules run; a tuple it returns replaces them."""
        holder = self._holder()
        return holder.add(fn, holder.node_pre)

    def _holder(self):
        if self.hooks is None:
            self.hooks = GradHooks()
        return self.hooks


def node_class(grad_fn_name, saved_names=()):
    """The class a node of an op is shown as: ``type(y.grad_fn).__name__`` is
    ``MulBackward0``, as in PyTorch, and ``grad_fn._saved_<name>`` is a property of it for
    each name in ``saved_names`` (``saved.saved_value`` answers it). Made the first time a
    node of the op is shown (``Overload.shown_class``), not at import.

    The graph records every node as a plain ``Node`` and gives it this class only when
    the user is handed it (``shown``): the reverse pass reads a dozen fields of each
    node, and the interpreter specialises an attribute read to one class, so with a
    class per op every read took the slow generic path (a tenth of a 4th derivative's
    time). The class adds no slots, so a node can take it in place."""
    members = {"__slots__": ()}
    for name in saved_names:
        members["_saved_" + name] = _saved_property("_saved_" + name)
    return type(short_name(grad_fn_name), (Node,), members)


def _saved_property(attribute):
    return property(lambda node: saved_value(node, attribute), doc="what the node saved")


def shown(node):
    """``node`` as the user is handed it (``Tensor.grad_fn``, ``next_functions``): of its
    op's own class (``node_class``). The same object: identity, hooks and the graph's
    reads of it are unchanged."""
    if type(node) is Node:
        node.__class__ = node.op.shown_class()
    return node


def short_name(grad_fn_name):
    """A grad_fn name as PyTorch prints it: torch::autograd::CopySlices shows as CopySlices."""
    return grad_fn_name.rpartition("::")[2]


class AccumulateGrad(metaclass=_NodeClass):
    """The node PyTorch shows for a leaf in ``next_functions``."""

    __slots__ = ("variable",)
    next_functions = ()  # a leaf: the walk of a graph ends here

    def __init__(self, variable):
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


class GradHooks:
    """The hooks on one tensor's gradient, and the tensor itself if it retains its grad.

    The reverse pass runs them (``backward.run_hooks``)."""

    __slots__ = ("hooks", "retained", "post_accumulate", "node_pre", "node_post", "packed")

    def __init__(self):
        self.hooks = {}
        self.retained = None
        self.post_accumulate = {}  # a leaf's hooks called with it once its .grad is updated
        self.node_pre = {}  # the node's own: Node.register_prehook, register_hook
        self.node_post = {}
        self.packed = None  # what saved_tensors_hooks' pack made of the node's saved values

    def add(self, hook, hooks=None):
        hooks = self.hooks if hooks is None else hooks
        key = object()
        hooks[key] = hook
        return RemovableHandle(hooks, key)


class RemovableHandle:
    """What register_hook returns: ``handle.remove()`` takes the hook off."""

    __slots__ = ("_hooks", "_key")

    def __init__(self, hooks, key):
        self._hooks = hooks
        self._key = key

    def remove(self):
        self._hooks.pop(self._key, None)

    def __repr__(self):
        return f"<torch.utils.hooks.RemovableHandle object at {id(self):#x}>"
