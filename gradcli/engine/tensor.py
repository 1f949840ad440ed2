"""Tensors, graph nodes, grad mode and the reverse pass.

A ``Tensor`` wraps a NumPy array. An op applied to tensors that require grad
records a ``Node``: the op (from the op table in ``ops.py``), the parents
(a ``Node`` for a computed input, the tensor itself for a leaf, ``None`` for a
constant) and the saved raw input arrays. The reverse pass walks the nodes
iteratively in reverse topological order and calls each op's rules.

Two modes of the reverse pass share the same rules (as in HIPS autograd):
- fast (``create_graph=False``): rules see raw NumPy arrays, so the ops they call
  are plain NumPy and nothing is recorded;
- differentiable (``create_graph=True``): rules see tensors wired to the original
  graph, so their result is itself differentiable (Hessians, gradgradcheck).

A pass may also carry leading *batch* dimensions on every gradient (the
Jacobian of a vector output is one pass over the identity); rules are written
so that extra leading dimensions of ``g`` pass through.
"""

from __future__ import annotations

import sys

import numpy as np

from ..errors import EngineError, GradcliTypeError, GradcliValueError

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
IMPLICIT_NONSCALAR = "grad can be implicitly created only for scalar outputs"
OVERLAPPING_WRITE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


class GradMode:
    """Whether ops record graph nodes (``no_grad`` switches it off)."""

    enabled = True


class AnomalyMode:
    """A check the reverse pass runs on every gradient it computes, or None.

    ``hook(node, index, g, gi)``: ``gi`` is what ``node``'s rule for input
    ``index`` made of the incoming gradient ``g``. Set by ``detect_anomaly``.
    """

    hook = None


class DefaultDType:
    """The dtype of tensors built from Python floats (float32, as in PyTorch)."""

    value = np.dtype(np.float32)


_NO_KWARGS = {}  # shared by the nodes of ops called without keywords


class Node:
    """One recorded op application: what the reverse pass needs to run its rules.

    The parents (per input: a ``Node``, a leaf ``Tensor`` or ``None``) of an op
    of one or two inputs live in the node's own slots ``p0``, ``p1``, not in a
    tuple (``pn`` holds the tuple for other arities): every object a graph
    keeps alive is one more for Python's cycle collector to walk, and on a deep
    graph of scalar ops those walks used to cost more than the ops themselves.
    """

    __slots__ = ("op", "n", "p0", "p1", "pn", "saved", "ans", "params", "kwargs", "hooks")

    def __init__(self, op, parents, saved, ans, params, kwargs):
        self.op = op
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
        self.kwargs = kwargs or _NO_KWARGS
        self.hooks = None  # a _GradHooks: register_hook and retain_grad of the node's tensor

    @property
    def parents(self) -> tuple:
        n = self.n
        return (self.p0,) if n == 1 else (self.p0, self.p1) if n == 2 else self.pn

    def name(self) -> str:
        return self.op.grad_fn

    @property
    def next_functions(self):
        return tuple(
            (p if type(p) is Node else (AccumulateGrad(p) if p is not None else None), 0)
            for p in self.parents
        )

    def __repr__(self) -> str:
        return f"<{_short(self.op.grad_fn)} object at {id(self):#x}>"


def _short(grad_fn_name):
    """A grad_fn name as PyTorch prints it: torch::autograd::CopySlices shows as CopySlices."""
    return grad_fn_name.rpartition("::")[2]


class AccumulateGrad:
    """The node PyTorch shows for a leaf in ``next_functions``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


class Size(tuple):
    """A tensor's shape: a tuple that prints as PyTorch's ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n


class device:  # noqa: N801  (PyTorch's name)
    """Where a tensor lives: always the CPU in gradcli (``torch.device("cpu")``)."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002
        kind, _, number = str(type).partition(":")
        self.type = kind
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


_CPU = device("cpu")


def _as_array(value, dtype=None) -> np.ndarray:
    """Data for a new tensor: Python floats take the default dtype, as in PyTorch."""
    if type(value) is Tensor:
        value = value._data
    elif isinstance(value, (list, tuple)) and any(type(v) is Tensor for v in _flatten(value)):
        value = _nested_to_array(value)
    try:
        array = np.asarray(value)
    except ValueError:
        if not isinstance(value, (list, tuple)):
            raise
        raise GradcliValueError(_ragged(value)) from None
    if array.dtype.kind not in "biuf":
        first = array.reshape(-1)[0] if array.size else value
        kind = "str" if array.dtype.kind in "US" else type(first).__name__
        if isinstance(value, (list, tuple)):
            raise GradcliValueError(f"too many dimensions '{kind}'")
        raise GradcliTypeError(f"new(): invalid data type '{kind}'")
    if dtype is not None:
        return array.astype(dtype, copy=False)
    if array.dtype == np.float64 and not isinstance(value, (np.ndarray, np.generic)):
        return array.astype(DefaultDType.value, copy=False)
    if array.dtype.kind in "iu" and array.dtype != np.int64:
        return array.astype(np.int64)
    return array


def _ragged(value):
    """PyTorch's message for ragged nested lists; the shape comes from the first items."""
    shape = []
    item = value
    while isinstance(item, (list, tuple)):
        shape.append(len(item))
        item = item[0] if item else None
    stack = [(value, 0)]
    while stack:
        item, dim = stack.pop()
        if dim < len(shape) and isinstance(item, (list, tuple)):
            if len(item) != shape[dim]:
                return f"expected sequence of length {shape[dim]} at dim {dim} (got {len(item)})"
            stack.extend((sub, dim + 1) for sub in reversed(item))
    return "the nested lists do not form a rectangular array"


def _flatten(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item


def _nested_to_array(value):
    if isinstance(value, (list, tuple)):
        return [_nested_to_array(v) for v in value]
    return value._data if type(value) is Tensor else value


class Tensor:
    """An n-dimensional array that can record the operations applied to it."""

    __slots__ = ("_data", "requires_grad", "grad_fn", "grad", "_hooks")
    # NumPy defers to Tensor's reflected operators instead of converting it.
    __array_ufunc__ = None

    def __init__(self, *args, requires_grad=False):
        # The legacy constructor: Tensor([2]) holds data, Tensor(2, 3) has that size.
        if args and all(isinstance(a, (int, np.integer)) for a in args):
            data = np.zeros(args, dtype=DefaultDType.value)
        elif len(args) == 1:
            data = _as_array(args[0], DefaultDType.value)
        elif not args:
            data = np.zeros((0,), dtype=DefaultDType.value)
        else:
            raise GradcliTypeError(f"Tensor(): expected data or sizes, got {args!r}")
        self._data = data
        self.requires_grad = bool(requires_grad)
        self.grad_fn = None
        self.grad = None

    # ----- construction without checks: the hot path of every op -----
    @staticmethod
    def _make(data, grad_fn=None, requires_grad=False):
        t = object.__new__(Tensor)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t.requires_grad = requires_grad
        t.grad_fn = grad_fn
        t.grad = None
        return t

    # ----- attributes -----
    @property
    def data(self) -> Tensor:
        """The values, detached from the graph and sharing memory."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        self._data = _as_array(value, self._data.dtype)

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim=None):
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    @property
    def dtype(self):
        from . import dtypes

        return dtypes.from_numpy(self._data.dtype)

    @property
    def device(self) -> device:
        return _CPU

    is_cuda = False

    def cuda(self, *args, **kwargs):
        raise EngineError("gradcli computes on the CPU only: there is no CUDA device")

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def T(self) -> Tensor:
        return ops.numpy_T(self)

    @property
    def mT(self) -> Tensor:
        return ops.transpose(self, -2, -1)

    def item(self):
        if self._data.size != 1:
            raise EngineError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise EngineError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._data

    def tolist(self):
        return self._data.tolist()

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise GradcliTypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise GradcliTypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def _scalar(self):
        if self._data.size != 1:
            raise GradcliValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iu":
            raise GradcliTypeError("only integer tensors can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise EngineError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __hash__(self):
        return id(self)

    def __repr__(self) -> str:
        from . import dtypes
        from .format import format_tensor

        return format_tensor(
            self._data,
            dtype_suffix=dtypes.repr_suffix(self._data.dtype),
            requires_grad=self.requires_grad and self.grad_fn is None,
            grad_fn_name=None if self.grad_fn is None else _short(self.grad_fn.name()),
        )

    __str__ = __repr__

    # ----- graph handling -----
    def detach(self) -> Tensor:
        return Tensor._make(self._data)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad=True) -> Tensor:
        if self.grad_fn is not None and not requires_grad:
            raise EngineError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind not in "fc":
            raise EngineError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if self.grad_fn is None:
            if not self.requires_grad:
                raise EngineError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._grad_hooks().retained = self

    @property
    def retains_grad(self) -> bool:
        node = self.grad_fn
        return node is not None and node.hooks is not None and node.hooks.retained is self

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a result replaces it."""
        if not self.requires_grad:
            raise EngineError("cannot register a hook on a tensor that doesn't require gradient")
        return _GradHooks.add(self._grad_hooks(), hook)

    def _grad_hooks(self):
        # A computed tensor keeps its hooks on its node, a leaf on itself (slot _hooks,
        # set on first use: most tensors never have one).
        holder = self.grad_fn.hooks if self.grad_fn is not None else _leaf_hooks(self)
        if holder is None:
            holder = _GradHooks()
            if self.grad_fn is not None:
                self.grad_fn.hooks = holder
            else:
                self._hooks = holder
        return holder

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``, as ``torch.Tensor.backward``."""
        backward(
            (self,),
            gradient,
            retain_graph,
            create_graph,
            inputs=inputs,
        )

    # ----- in-place operations -----
    def _check_inplace(self):
        if GradMode.enabled and self.requires_grad and self.grad_fn is None:
            raise EngineError(LEAF_INPLACE)

    def zero_(self) -> Tensor:
        return self._inplace(ops._zero, assigns=True)

    def fill_(self, value) -> Tensor:
        return self._inplace(ops.fill, value, assigns=True)

    def copy_(self, src) -> Tensor:
        return self._inplace(ops._copy, src, assigns=True)

    def _inplace(self, op, *args, assigns=False, **kwargs):
        """``self = op(self, *args)``, in place.

        Outside a graph (an optimizer step under no_grad) the values are written
        into the tensor's own memory, so views and ``.data`` see them. In a graph
        the tensor takes the result's values and grad_fn, copy on write: the
        nodes that saved the old values keep them. ``assigns``: zero_, fill_ and
        copy_, which may cast to the tensor's dtype (arithmetic may not).
        """
        self._check_inplace()
        if GradMode.enabled and (
            self.requires_grad or any(type(a) is Tensor and a.requires_grad for a in args)
        ):
            out = op(self, *args, **kwargs)
            _check_inplace_shape(op, self._data, out._data)
            if out._data.dtype != self._data.dtype:
                out = ops.to_dtype(out, self._data.dtype)
            self._data = out._data
            self.grad_fn = out.grad_fn
            self.requires_grad = out.requires_grad
            return self
        value = op(self.detach(), *args, **kwargs)._data  # no graph: grad is off or not needed
        data = self._data
        if _check_inplace_shape(op, data, value):  # squeeze_(), unsqueeze_(), t_()
            self._data = value.astype(data.dtype, copy=False)
            return self
        if (
            not assigns
            and value.dtype != data.dtype
            and not np.can_cast(value.dtype, data.dtype, casting="same_kind")
        ):
            from . import dtypes

            raise EngineError(
                f"result type {dtypes.scalar_name(value.dtype)} can't be cast to the desired "
                f"output type {dtypes.scalar_name(data.dtype)}"
            )
        if not data.flags.writeable:  # an expand()ed tensor: entries share memory
            raise EngineError(OVERLAPPING_WRITE)
        data[...] = value
        return self

    def normal_(self, mean=0.0, std=1.0) -> Tensor:
        noise = ops.randn(*self._data.shape, dtype=self._data.dtype)
        return self._inplace(ops._copy, noise * std + mean, assigns=True)

    def uniform_(self, a=0.0, b=1.0) -> Tensor:
        noise = ops.rand(*self._data.shape, dtype=self._data.dtype)
        return self._inplace(ops._copy, noise * (b - a) + a, assigns=True)

    def add_(self, other, alpha=1):
        return self._inplace(ops.add, other if alpha == 1 else other * alpha)

    def sub_(self, other, alpha=1):
        return self._inplace(ops.sub, other if alpha == 1 else other * alpha)

    def mul_(self, other):
        return self._inplace(ops.mul, other)

    def div_(self, other):
        return self._inplace(ops.div, other)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_

    # ----- operators -----
    def __add__(self, other):
        return ops.add(self, other)

    def __radd__(self, other):
        return ops.add(other, self)

    def __sub__(self, other):
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.rsub(self, other)

    def __mul__(self, other):
        return ops.mul(self, other)

    def __rmul__(self, other):
        return ops.mul(other, self)

    def __truediv__(self, other):
        return ops.div(self, other)

    def __rtruediv__(self, other):
        # A number divided by a tensor, as PyTorch computes it (grad_fn MulBackward0).
        return ops.mul(ops.reciprocal(self), other)

    def __pow__(self, other):
        return ops.pow(self, other)

    def __rpow__(self, other):
        return ops.pow(other, self)

    def __floordiv__(self, other):
        return ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return ops.floor_divide(other, self)

    def __mod__(self, other):
        return ops._remainder(self, other)

    def __rmod__(self, other):
        return ops._remainder(other, self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.matmul(other, self)

    def __neg__(self):
        return ops.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return ops.abs(self)

    def __lt__(self, other):
        return ops.lt(self, other)

    def __le__(self, other):
        return ops.le(self, other)

    def __gt__(self, other):
        return ops.gt(self, other)

    def __ge__(self, other):
        return ops.ge(self, other)

    def __eq__(self, other):
        return ops.eq(self, other)

    def __ne__(self, other):
        return ops.ne(self, other)

    def __and__(self, other):
        return ops.logical_and(self, other)

    def __or__(self, other):
        return ops.logical_or(self, other)

    def __invert__(self):
        return ops.logical_not(self)

    def __getitem__(self, index):
        return ops.getitem(self, index)

    def __setitem__(self, index, value):
        ops.setitem(self, index, value)

    def __getattr__(self, name):
        # Math methods come from the op table: x.sum(dim=0) is ops.sum(x, dim=0),
        # x.exp_() is x = ops.exp(x) in place.
        method = ops.METHODS.get(name)
        if method is not None:
            return method.__get__(self, Tensor)
        method = ops.INPLACE_METHODS.get(name)
        if method is not None:
            return lambda *args, **kwargs: self._inplace(method, *args, **kwargs)
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


# ----------------------------------------------------------------------------
# The reverse pass
# ----------------------------------------------------------------------------


def run_backward(roots, root_grads, *, retain_graph, create_graph, batch_dims=0, inputs=None):
    """Propagate ``root_grads`` from ``roots`` to the leaves.

    Returns ``(leaf_grads, captured)``: ``leaf_grads`` maps ``id(leaf)`` to
    ``[leaf, grad]``; ``captured`` maps the grad_fn of each non-leaf tensor in
    ``inputs`` to the gradient that reached it. Given ``inputs``, only the nodes
    that lead to one of them run (and are freed), as in PyTorch. Gradients are
    raw arrays unless ``create_graph``.
    """
    node_grads = {}
    leaf_grads = {}
    captured = {}
    for root, g in zip(roots, root_grads):
        node = root.grad_fn
        if node is not None:
            node_grads[node] = node_grads[node] + g if node in node_grads else g
        elif root.requires_grad:
            _accumulate_leaf(leaf_grads, root, g)

    # Count, for each node, how many edges lead into it; a node runs once all have.
    # A node's parents are read from its slots: (p0, p1) with p1 None for one input.
    pending = {}
    stack = list(node_grads)
    while stack:
        node = stack.pop()
        for parent in (node.p0, node.p1) if node.pn is None else node.pn:
            if type(parent) is Node:
                count = pending.get(parent)
                if count is None:
                    pending[parent] = 1
                    if parent not in node_grads:
                        stack.append(parent)
                else:
                    pending[parent] = count + 1

    ready = [node for node in node_grads if node not in pending]
    capture = needed = None
    if inputs is not None:
        capture = {t.grad_fn for t in inputs if t.grad_fn is not None}
        needed = _nodes_leading_to(list(node_grads), capture, {id(t) for t in inputs})
    free = not retain_graph
    anomaly = AnomalyMode.hook
    while ready:
        node = ready.pop()
        g = node_grads.pop(node, None)
        n = node.n
        parents = (node.p0,) if n == 1 else (node.p0, node.p1) if n == 2 else node.pn
        if g is not None and needed is not None:
            if node in capture:
                captured[node] = g
            if node not in needed:
                g = None
        if g is not None:
            if node.hooks is not None:
                g = node.hooks.run(g, create_graph)
            saved = node.saved
            if saved is None:
                raise EngineError(SECOND_BACKWARD)
            op = node.op
            if create_graph:
                args = _wired_inputs(node)
                ans = Tensor._make(node.ans, node, True)
                if type(g) is not Tensor:
                    g = Tensor._make(g)
            else:
                args = saved
                ans = node.ans
            if op.variadic:
                input_grads = op.variadic_backward(g, ans, args, node.params, node.kwargs)
                rules = None
            else:
                # Each input's rule is called in the loop below, inline: a method call
                # per node made a deep scalar chain's reverse pass a third slower.
                rules = op.rules
                params = node.params
                kwargs = node.kwargs
            if free and op.saves:
                node.saved = None
        else:
            input_grads = rules = None
        for i, parent in enumerate(parents):
            if parent is None:
                continue
            if rules is not None:
                rule = rules[i]
                gi = None if rule is None else rule(g, ans, *args, *params, **kwargs)
            else:
                gi = None if input_grads is None else input_grads[i]
            if gi is not None:
                shape = saved[i].shape
                if batch_dims:
                    if gi.shape[batch_dims:] != shape or gi.ndim != len(shape) + batch_dims:
                        gi = ops.sum_to(gi, shape, batch_dims)
                elif gi.shape != shape:
                    gi = ops.sum_to(gi, shape, 0)
                if anomaly is not None:
                    anomaly(node, i, g, gi)
            if type(parent) is Node:
                if gi is not None:
                    prev = node_grads.get(parent)
                    node_grads[parent] = gi if prev is None else prev + gi
                count = pending[parent] - 1
                pending[parent] = count
                if count == 0:
                    ready.append(parent)
            elif gi is not None:
                _accumulate_leaf(leaf_grads, parent, gi)
    return leaf_grads, captured


def grad_reaching(t, leaf_grads, captured):
    """The gradient ``run_backward`` left for ``t``, one of its ``inputs``, or None."""
    if t.grad_fn is not None:
        return captured.get(t.grad_fn)
    entry = leaf_grads.get(id(t))
    return None if entry is None else entry[1]


def _nodes_leading_to(starts, target_nodes, target_leaf_ids):
    """The nodes that have a parent on a path to a target node or a target leaf.

    Only these need to run: a target node itself only has its gradient read.
    """
    reaches = {}
    leads = set()
    expanded = set()
    stack = [(node, False) for node in starts]
    while stack:  # an iterative post-order walk: parents are decided before their children
        node, parents_done = stack.pop()
        if parents_done:
            if any(
                reaches.get(p, False) if type(p) is Node else id(p) in target_leaf_ids
                for p in node.parents
                if p is not None
            ):
                leads.add(node)
            reaches[node] = node in leads or node in target_nodes
        elif node not in expanded:
            expanded.add(node)
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents if type(p) is Node and p not in expanded)
    return leads


def _wired_inputs(node):
    """The saved inputs as tensors connected to the graph, for a differentiable pass."""
    args = []
    for parent, raw in zip(node.parents, node.saved):
        if parent is None:
            args.append(raw)
        elif type(parent) is Node:
            args.append(Tensor._make(raw, parent, True))
        else:
            args.append(parent)
    return tuple(args)


def _accumulate_leaf(leaf_grads, leaf, g):
    entry = leaf_grads.get(id(leaf))
    if entry is None:
        leaf_grads[id(leaf)] = [leaf, g]
    else:
        entry[1] = entry[1] + g


class _GradHooks:
    """The hooks on one tensor's gradient, and the tensor itself if it retains its grad."""

    __slots__ = ("hooks", "retained")

    def __init__(self):
        self.hooks = {}
        self.retained = None

    def add(self, hook):
        key = object()
        self.hooks[key] = hook
        return RemovableHandle(self.hooks, key)

    def run(self, g, create_graph):
        """The gradient after the hooks (each may return a replacement); retained last."""
        for hook in list(self.hooks.values()):
            result = hook(g if type(g) is Tensor else Tensor._make(g))
            if result is not None:
                g = result if create_graph or type(result) is not Tensor else result._data
        if self.retained is not None:
            _retain(self.retained, g, create_graph)
        return g


def _check_inplace_shape(op, data, value):
    """Whether an in-place op changes the shape (squeeze_ may; a broadcast add_ may not)."""
    if value.shape == data.shape:
        return False
    if op in ops.RESHAPING_METHODS:
        return True
    raise EngineError(
        f"output with shape {list(data.shape)} doesn't match the broadcast shape "
        f"{list(value.shape)}"
    )


def _leaf_hooks(t):
    return getattr(t, "_hooks", None)


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


def _retain(tensor, g, create_graph):
    g = _finish_grad(g, tensor._data.dtype, create_graph)
    tensor.grad = g if tensor.grad is None else tensor.grad + g


def _finish_grad(g, dtype, create_graph):
    """A gradient as a tensor of its input's dtype, owning its memory."""
    if type(g) is Tensor:
        if g._data.dtype != dtype:
            g = ops.to_dtype(g, dtype)
        return g if create_graph else g.detach()
    return Tensor._make(np.array(g, dtype=dtype))


def _take_grad(entry, dtype, create_graph):
    """The gradient in ``entry`` (a ``[leaf, grad]`` pair) as the leaf's grad; empties the entry.

    An array that owns its memory and that nothing else refers to is taken as
    it is, as PyTorch's AccumulateGrad steals an unshared gradient; any other is
    copied by ``_finish_grad`` (two leaves may have been given the same array).
    """
    g = entry[1]
    entry[1] = None
    if (
        type(g) is np.ndarray
        and g.base is None
        and g.dtype == dtype
        and g.flags.writeable
        and _refcount(g) <= _SOLE_REFS
    ):
        return Tensor._make(g)
    return _finish_grad(g, dtype, create_graph)


def _sole_refs():
    # What _take_grad counts for an array held by nothing else (interpreters differ).
    entry = [None, np.empty(1)]
    g = entry[1]
    entry[1] = None
    return _refcount(g)


_refcount = getattr(sys, "getrefcount", lambda _: 1 << 30)  # no refcounts: always copy
_SOLE_REFS = _sole_refs()


def _check_roots(roots, root_grads, create_graph, batch_dims=0):
    # PyTorch's order: every gradient against its output first, then whether outputs need grad.
    grads = []
    for i, root in enumerate(roots):
        if type(root) is not Tensor:
            raise GradcliTypeError(f"expected a Tensor as output {i}, got {type(root).__name__}")
        g = None if root_grads is None else root_grads[i]
        if g is None:
            if root.requires_grad and root._data.size != 1:
                raise EngineError(IMPLICIT_NONSCALAR)
            g = np.ones_like(root._data)
        else:
            if type(g) is Tensor:
                g_data = g._data
            elif type(g) is np.ndarray:
                g_data = g.astype(root._data.dtype, copy=False)
            else:
                raise GradcliTypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}"
                )
            if g_data.shape[batch_dims:] != root._data.shape or g_data.ndim < batch_dims:
                batched = " (after its leading batch dimension)" if batch_dims else ""
                raise EngineError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g_data.shape)}"
                    f"{batched} and output[{i}] has a shape of {Size(root._data.shape)}."
                )
            if create_graph and type(g) is Tensor:
                grads.append(g)
                continue
            g = g_data
        grads.append(Tensor._make(g) if create_graph else g)
    for i, root in enumerate(roots):
        if not root.requires_grad:
            raise EngineError(NO_GRAD_FN.format(i))
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate gradients into the leaves' ``.grad``."""
    if type(tensors) is Tensor:
        tensors = (tensors,)
    if type(grad_tensors) is Tensor or (
        grad_tensors is not None and not isinstance(grad_tensors, (list, tuple))
    ):
        grad_tensors = (grad_tensors,)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _check_roots(tensors, grad_tensors, create_graph)
    wanted = None
    nonleaf = ()
    if inputs is not None:
        inputs = (inputs,) if type(inputs) is Tensor else tuple(inputs)
        wanted = {id(t) for t in inputs}
        # A non-leaf among ``inputs`` gets its .grad too, as in PyTorch.
        nonleaf = [t for t in inputs if t.grad_fn is not None]
    with set_grad_enabled(create_graph):
        leaf_grads, captured = run_backward(
            tensors,
            grads,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )
    for entry in leaf_grads.values():
        leaf = entry[0]
        if wanted is not None and id(leaf) not in wanted:
            continue
        g = _take_grad(entry, leaf._data.dtype, create_graph)
        hooks = _leaf_hooks(leaf)
        if hooks is not None:
            g = _finish_grad(hooks.run(g, create_graph), leaf._data.dtype, create_graph)
        leaf.grad = g if leaf.grad is None else leaf.grad + g
    for t in nonleaf:
        g = captured.get(t.grad_fn)
        if g is not None:
            g = _finish_grad(g, t._data.dtype, create_graph)
            t.grad = g if t.grad is None else t.grad + g


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
    *,
    only_inputs=True,
    is_grads_batched=False,
):
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, as a tuple.

    ``is_grads_batched=True``: the first dimension of each ``grad_outputs`` entry
    is a batch (one reverse pass for all its rows, as ``functional.jacobian`` needs).
    """
    outputs = (outputs,) if type(outputs) is Tensor else tuple(outputs)
    single_input = type(inputs) is Tensor
    inputs = (inputs,) if single_input else tuple(inputs)
    if grad_outputs is not None:
        grad_outputs = (grad_outputs,) if type(grad_outputs) is Tensor else tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in inputs:
        if type(t) is not Tensor or not t.requires_grad:
            raise EngineError("One of the differentiated Tensors does not require grad")
    batch_dims = 1 if is_grads_batched else 0
    if batch_dims and grad_outputs is None:
        raise EngineError("grad_outputs must be given when is_grads_batched=True")
    grads = _check_roots(outputs, grad_outputs, create_graph, batch_dims)
    with set_grad_enabled(create_graph):
        leaf_grads, captured = run_backward(
            outputs,
            grads,
            retain_graph=retain_graph,
            create_graph=create_graph,
            batch_dims=batch_dims,
            inputs=inputs,
        )
    result = []
    for i, t in enumerate(inputs):
        g = grad_reaching(t, leaf_grads, captured)
        hooks = _leaf_hooks(t) if t.grad_fn is None else None
        if g is not None and hooks is not None:
            g = hooks.run(g, create_graph)
        if g is None:
            if not allow_unused:
                raise EngineError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(ops.zeros_like(t) if materialize_grads else None)
        else:
            result.append(_finish_grad(g, t._data.dtype, create_graph))
    return tuple(result)


# ----------------------------------------------------------------------------
# Grad mode
# ----------------------------------------------------------------------------


class _GradModeSwitch:
    """What set_grad_enabled, no_grad and enable_grad share: the mode before is
    restored on exit, and as decorators they run the function in their mode."""

    mode = True

    def __exit__(self, *exc):
        GradMode.enabled = self.prev
        return False

    def __call__(self, fn):
        mode = self.mode

        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class set_grad_enabled(_GradModeSwitch):
    """Switch graph recording on or off; a context manager and a decorator."""

    def __init__(self, mode: bool):
        # The switch happens here, not on entry: a bare ``set_grad_enabled(False)`` call
        # switches for good, as in PyTorch.
        self.mode = bool(mode)
        self.prev = GradMode.enabled
        GradMode.enabled = self.mode

    def __enter__(self):
        return self

    def __call__(self, fn):
        GradMode.enabled = self.prev  # as a decorator it switches only while fn runs
        return super().__call__(fn)


class _GradModeContext(_GradModeSwitch):
    def __new__(cls, fn=None):
        # ``@no_grad`` without parentheses decorates ``fn`` directly, as in PyTorch.
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)

    def __enter__(self):
        self.prev = GradMode.enabled
        GradMode.enabled = self.mode
        return self


class no_grad(_GradModeContext):
    """Record nothing inside: results do not require grad."""

    mode = False


class enable_grad(_GradModeContext):
    """Record again inside a ``no_grad`` block."""

    mode = True


def is_grad_enabled() -> bool:
    return GradMode.enabled


from . import ops  # noqa: E402  (ops needs Tensor and Node defined above)
