"""``gradcli.autograd.function``: custom ops with their own backward (``torch.autograd.Function``).

A subclass declares ``forward(ctx, *args)`` (or ``forward(*args)`` with
``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)``
as static methods; ``MyOp.apply(*args)`` runs forward with grad mode off and,
when an input requires grad, records one node of the class ``MyOpBackward``.
That node is the ``ctx`` that forward saw, as in PyTorch: ``y.grad_fn.saved_tensors``
and attributes set on ``ctx`` are read from it.

The node takes part in the engine's reverse pass as a variadic op (one call
gives every input's gradient): its tensor arguments are its parents, in order;
other arguments get no gradient and must get None. With ``create_graph=True``
backward runs with grad mode on, so a backward written in differentiable ops
has a derivative of its own (``once_differentiable`` refuses one).

A Function with several differentiable outputs records, besides its node, one
node per output (of the same class, reading the Function's node for everything
else). Each hands its output's gradient to the Function's node and sends it a
zero, so that the node runs once, after all of them, with every output's
gradient. There ``a.grad_fn is b.grad_fn`` is False, where PyTorch has one
node: the one difference.

Inside the ``func`` transforms a Function needs what PyTorch's needs
(``setup_context``; under vmap a ``vmap`` staticmethod or ``generate_vmap_rule``):
``func/custom_rules.py`` checks it and batches the call.
"""

from __future__ import annotations

import functools
import inspect
import sys

import numpy as np

from ..engine import ops, saved
from ..engine.graph import Node
from ..engine.messages import SECOND_BACKWARD
from ..engine.state import PER_THREAD, no_grad
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError, NotImplementedByGradcli

_DIRTY_LEAF = "a leaf Variable that requires grad has been used in an in-place operation."

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) tells ``backward`` through ``ctx``."""

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and type(t) is not Tensor:
                raise GradcliTypeError(
                    f"save_for_backward can only save variables, but argument {i} is not a "
                    f"Variable (got {type(t).__name__})"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Tensors (inputs or outputs of forward) for ``jvp``, which reads them as
        ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and type(t) is not Tensor:
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should save "
                    "non-tensors as attributes on ctx."
                )
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if getattr(self, "in_jvp", False):  # jvp reads what save_for_forward saved, as PyTorch
            return tuple(getattr(self, "saved_for_forward", ()))
        if getattr(self, "_freed", False):
            raise EngineError(SECOND_BACKWARD)
        return tuple(getattr(self, "to_save", ()))

    saved_variables = saved_tensors


class _FunctionOp:
    """What the reverse pass reads from a Function's node's ``op``: the node runs as a
    variadic op, its ``params`` hold the node itself."""

    variadic = True
    reads_result = True  # the reverse pass hands its rule the result as a tensor
    saves = True  # the engine "frees" the node after a pass: ctx.saved_tensors then raises
    rules = None
    lists_numbers = True

    def __init__(self, grad_fn):
        self.grad_fn = grad_fn

    def variadic_backward(self, g, ans, args, params, kwargs):
        return params[0]._run_backward(g)


class BackwardCFunction(Node, FunctionCtx):
    """The node a Function records, and the ``ctx`` its methods see (``MyOpBackward``)."""

    _forward_cls = None

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"

    def __init__(self, forward_cls, args):
        # Node's fields are set when apply records the node (``_record``), after forward ran.
        self.op = forward_cls._op
        self.n = 0
        self.p0 = self.p1 = self.pn = None
        self.ans = self.params = None
        self.kwargs = {}
        self.hooks = None
        self.wired = None
        self.t = 0  # what it saved is ctx's, not checked by version
        self.s0 = self.s1 = self.sn = None
        self.materialize_grads = True
        self.needs_input_grad = tuple(type(a) is Tensor and a.requires_grad for a in args)
        self._args = args

    # The engine sets ``saved`` to None after a pass that does not retain the graph: here
    # that frees what ctx saved, and the inputs' shapes stay for the next pass's check.
    @property
    def saved(self):
        return Node.saved.fget(self)

    @saved.setter
    def saved(self, value):
        if value is None:
            self._freed = bool(getattr(self, "to_save", ()))
            self.to_save = ()
        else:
            Node.saved.fset(self, value)

    def apply(self, *grads):
        """Call this Function's backward with ``grads``, as ``y.grad_fn.apply(g)`` does."""
        return self._forward_cls.backward(self, *grads)

    def _run_backward(self, g):
        """Every parent's gradient, from the flat or single gradient ``g`` of the outputs."""
        create_graph = type(g) is Tensor
        if not create_graph:
            g = Tensor._make(g)
        batch = g.ndim - self._grad_ndim
        self._batch_rows = g.shape[0] if batch else 0
        if self._several:  # the outputs' gradients, handed over by their nodes
            g, self._arrived = self._arrived, {}
            g = [_as_tensor(g.get(j)) for j in range(len(self._outputs))]
            row = _row_of_several
        else:
            row = _row
        if batch == 0:
            grads = self._call_backward(g)
        else:  # one backward call per row of a batched pass, as PyTorch's loop over rows
            rows = [self._call_backward(row(g, b)) for b in range(self._batch_rows)]
            grads = [
                None if rows[0][i] is None else ops.stack([r[i] for r in rows])
                for i in range(len(rows[0]))
            ]
        return [gi if gi is None or create_graph else gi._data for gi in grads]

    def _call_backward(self, g):
        cls = self._forward_cls
        outputs = self._outputs
        grads = []
        for j, out in enumerate(outputs):
            if not self._slots[j]:  # not differentiable: zeros, as PyTorch materializes them
                gj = ops.zeros_like(out) if self.materialize_grads else None
            elif self._several:
                gj = g[j]
                if gj is None and self.materialize_grads:
                    gj = ops.zeros_like(out)
            else:
                gj = g
            grads.append(gj)
        result = cls.backward(self, *grads)
        return self._check_grads(result)

    def _check_grads(self, result):
        """The gradients backward returned, checked as PyTorch checks them, for the parents."""
        name = type(self).__name__
        args = self._args
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) > len(args) and all(r is None for r in result[len(args) :]):
            result = result[: len(args)]
        if len(result) != len(args):
            raise EngineError(
                f"function {name} returned an incorrect number of gradients "
                f"(expected {len(args)}, got {len(result)})"
            )
        grads = []
        for i, (arg, gi) in enumerate(zip(args, result)):
            if type(arg) is not Tensor:
                if gi is not None:
                    raise EngineError(
                        f"function {name} returned a gradient different than None at position "
                        f"{i + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if gi is not None:
                if type(gi) is not Tensor:
                    raise EngineError(f"expected Variable or None (got {type(gi).__name__})")
                if gi.shape != arg.shape and not _sums_to(gi.shape, arg.shape):
                    raise EngineError(
                        f"Function {name} returned an invalid gradient at index {i} - got "
                        f"{list(gi.shape)} but expected shape compatible with {list(arg.shape)}"
                    )
                if not arg.requires_grad:
                    gi = None
            grads.append(gi)
        return grads


def _as_tensor(g):
    return g if g is None or type(g) is Tensor else Tensor._make(g)


def _row(g, b):
    return g[b]


def _row_of_several(grads, b):
    return [None if g is None else g[b] for g in grads]


def _sums_to(grad_shape, shape):
    """Whether a gradient of ``grad_shape`` sums back to ``shape`` (``shape`` broadcasts to it)."""
    try:
        return np.broadcast_shapes(tuple(shape), tuple(grad_shape)) == tuple(grad_shape)
    except ValueError:
        return False


class _OutputSlot(Node):
    """The node of one output of a Function with several differentiable outputs: it places
    the output's gradient in the Function's flat gradient; everything else is the Function's."""

    __slots__ = ("ctx", "output_nr")

    def __getattr__(self, name):
        if name in _OutputSlot.__slots__:
            raise AttributeError(name)
        return getattr(self.ctx, name)

    @property
    def next_functions(self):
        return self.ctx.next_functions

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"


class _SlotOp:
    variadic = True
    reads_result = True  # the reverse pass hands its rule the result as a tensor
    saves = False
    rules = None
    lists_numbers = True

    def __init__(self, grad_fn):
        self.grad_fn = grad_fn

    def variadic_backward(self, g, ans, args, params, kwargs):
        ctx, output_nr, ndim = params
        arrived = ctx._arrived
        arrived[output_nr] = g if output_nr not in arrived else arrived[output_nr] + g
        # A zero with the batch dimensions of g: it only makes the Function's node run.
        return [np.zeros(g.shape[: g.ndim - ndim], dtype=ctx.ans.dtype)]


class Function(FunctionCtx):
    """Base class of custom differentiable ops: subclass it with static ``forward`` and
    ``backward``, then call ``MyOp.apply(...)``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__name__ + "Backward"
        cls._op = _FunctionOp(name)
        cls._backward_cls = type(name, (BackwardCFunction,), {"_forward_cls": cls})
        cls._slot_cls = type(name, (_OutputSlot,), {"__slots__": ()})
        cls._slot_op = _SlotOp(name)

    def __call__(self, *args, **kwargs):
        raise EngineError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedByGradcli(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedByGradcli("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedByGradcli(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedByGradcli(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD."
        )

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedByGradcli(
            "To use autograd.Function with vmap, you must either override the vmap "
            "staticmethod or set generate_vmap_rule=True."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls is Function:
            raise NotImplementedByGradcli(
                "You must implement the forward function for custom autograd.Function."
            )
        separate_setup = cls.setup_context is not Function.setup_context
        batched = _batched(args) or _batched(kwargs.values())
        # vmap's machinery, loaded by the transforms (no transform runs before it is): looked
        # up, not imported, as it imports vmap's, which takes this module's Functions.
        custom_rules = sys.modules.get("gradcli.autograd.custom_rules")
        if custom_rules is not None:
            own_vmap = cls.vmap is not Function.vmap
            custom_rules.check_transformable(cls, separate_setup, own_vmap, batched)
            if batched:
                return custom_rules.batched_apply(cls, own_vmap, args, kwargs)
        if kwargs or separate_setup:
            args, kwargs = _bind_arguments(cls.forward, args, kwargs, separate_setup)
        ctx = cls._backward_cls(cls, args)
        dual = PER_THREAD.forward_ad
        PER_THREAD.forward_ad = None  # forward sees plain tensors: jvp gives the tangents
        try:
            with no_grad():
                if separate_setup:
                    output = cls.forward(*args, **kwargs)
                    cls.setup_context(ctx, args, output)
                else:
                    output = cls.forward(ctx, *args, **kwargs)
        finally:
            PER_THREAD.forward_ad = dual
        records = PER_THREAD.grad_enabled and any(ctx.needs_input_grad)
        result = _record(ctx, args, output) if records else _without_graph(ctx, args, output)
        if dual is not None:
            ctx.in_jvp = True
            try:
                dual.function_tangents(cls, ctx, args, result)
            finally:
                ctx.in_jvp = False
        return result


def _batched(values) -> bool:
    """Whether a value, or one in a list or tuple of them, is a Tensor of a subclass (vmap's
    BatchedTensor)."""
    for v in values:
        if isinstance(v, Tensor) and type(v) is not Tensor:
            return True
        if type(v) in (list, tuple) and _batched(v):
            return True
    return False


def _bind_arguments(forward, args, kwargs, separate_setup):
    """Keyword arguments as positional ones, as PyTorch's apply binds them; with
    setup_context the defaults too (its ``inputs`` has every argument)."""
    lead = () if separate_setup else (None,)  # the ctx parameter
    try:
        bound = inspect.signature(forward).bind(*lead, *args, **kwargs)
    except TypeError as err:
        raise GradcliTypeError(f"forward() {err}") from None
    if separate_setup:
        bound.apply_defaults()
    return bound.args[len(lead) :], bound.kwargs


def _without_graph(ctx, args, output):
    """The outputs of a Function that records nothing: an input returned is a new tensor."""
    is_tuple = isinstance(output, tuple)
    outs = output if is_tuple else (output,)
    outs = tuple(_alias(o) if _is_input(o, args) else o for o in outs)
    return outs if is_tuple else outs[0]


def _is_input(value, args):
    return type(value) is Tensor and any(value is a for a in args)


def _alias(t):
    return Tensor._make(t._data, t.grad_fn, t.requires_grad)


def _record(ctx, args, output):
    """Make ``ctx`` the node of the Function's outputs and wire it to its tensor arguments."""
    cls = ctx._forward_cls
    is_tuple = isinstance(output, tuple)
    outs = list(output if is_tuple else (output,))
    dirty = getattr(ctx, "dirty_tensors", ())
    non_diff = getattr(ctx, "non_differentiable", ())
    differentiable = []
    for j, out in enumerate(outs):
        if type(out) is not Tensor:
            continue
        given = out  # as forward returned it, which mark_non_differentiable named
        if any(out is d for d in dirty):
            if out.grad_fn is None and out.requires_grad:
                raise EngineError(_DIRTY_LEAF)
            # Written in place, however it was (through .numpy() too): a version more, and
            # the nodes that saved its values before refuse them, as PyTorch's.
            saved.begin()
            saved.modified(out, out._data)
        elif _is_input(out, args):
            outs[j] = out = _alias(out)
        if any(given is n for n in non_diff) or out._data.dtype.kind not in "fc":
            out.requires_grad = False
            out.grad_fn = None
            continue
        differentiable.append(j)

    tensor_args = [a for a in args if type(a) is Tensor]
    parents = tuple((a.grad_fn or a) if a.requires_grad else None for a in tensor_args)
    ctx._args = args
    ctx._outputs = [o if type(o) is Tensor else None for o in outs]
    ctx._arrived = {}
    ctx.n = n = len(parents)
    if n == 1:
        ctx.p0 = parents[0]
    elif n == 2:
        ctx.p0, ctx.p1 = parents
    else:
        ctx.pn = parents
    ctx.saved = tuple(a._data for a in tensor_args)
    ctx.params = (ctx,)
    ctx._slots = [j in differentiable for j in range(len(outs))]
    ctx._several = len(differentiable) > 1
    if not ctx._several:
        j = differentiable[0]
        ctx.ans = outs[j]._data
        ctx._grad_ndim = outs[j].ndim
        _attach(outs[j], ctx)
    else:
        # The node's own gradient is a zero of shape () (with a batch pass's dimensions).
        dtype = np.result_type(*(outs[j]._data.dtype for j in differentiable))
        ctx.ans = np.zeros((), dtype=dtype)
        ctx._grad_ndim = 0
        for j in differentiable:
            params = (ctx, j, outs[j].ndim)
            slot = cls._slot_cls(cls._slot_op, (ctx,), (ctx.ans,), outs[j]._data, params, None)
            slot.ctx = ctx
            slot.output_nr = j
            _attach(outs[j], slot)
    return tuple(outs) if is_tuple else outs[0]


def _attach(out, node):
    out.grad_fn = node
    out.requires_grad = True


# ----------------------------------------------------------------------------
# once_differentiable
# ----------------------------------------------------------------------------


class _DelayedErrorOp:
    """The node of a gradient computed by a once-differentiable backward: differentiating
    it again raises."""

    variadic = True
    reads_result = True  # the reverse pass hands its rule the result as a tensor
    saves = False
    rules = None
    lists_numbers = True
    grad_fn = "torch::autograd::Error"  # PyTorch's node: it prints as <Error object at ...>

    def variadic_backward(self, g, ans, args, params, kwargs):
        raise EngineError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


class Error(Node):
    """PyTorch's ``torch::autograd::Error`` node (``type(g.grad_fn).__name__`` is Error)."""

    __slots__ = ()


_DELAYED_ERROR = _DelayedErrorOp()


def once_differentiable(fn):
    """Decorate a Function's backward that is not itself differentiable: it runs with grad
    mode off, and differentiating its result raises, as in PyTorch."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not PER_THREAD.grad_enabled:
            return outputs
        tracked = [a for a in args if type(a) is Tensor and a.requires_grad]
        if not tracked:
            return outputs
        parents = tuple(a.grad_fn or a for a in tracked)
        raws = tuple(a._data for a in tracked)
        is_tuple = isinstance(outputs, tuple)
        wrapped = []
        for out in outputs if is_tuple else (outputs,):
            if type(out) is Tensor:
                node = Error(_DELAYED_ERROR, parents, raws, out._data, (), None)
                out = Tensor._make(out._data, node, True)
            wrapped.append(out)
        return tuple(wrapped) if is_tuple else wrapped[0]

    return wrapper
