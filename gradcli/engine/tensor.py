"""Tensors: an n-dimensional NumPy array that can record the ops applied to it.

This module holds the tensor's own state and attributes. Its math methods and
operators (``x.sum()``, ``x + y``, ``x.exp_()``) are installed from the op
table (``methods.py``), and ``x.backward()`` from the reverse pass: neither is
listed here.
"""

from __future__ import annotations

import numpy as np

from ..errors import EngineError, GradcliTypeError, GradcliValueError
from . import dtypes, state
from .devices import CPU, device, on_cpu
from .graph import GradHooks, short_name, shown
from .messages import INFERENCE_INPLACE, INFERENCE_REQUIRES_GRAD, LEAF_INPLACE


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


def as_array(value, dtype=None) -> np.ndarray:
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
    if array.dtype.kind not in "biufc":
        first = array.reshape(-1)[0] if array.size else value
        kind = "str" if array.dtype.kind in "US" else type(first).__name__
        if isinstance(value, (list, tuple)):
            raise GradcliValueError(f"too many dimensions '{kind}'")
        raise GradcliTypeError(f"new(): invalid data type '{kind}'")
    if dtype is not None:
        return array.astype(dtype, copy=False)
    if array.dtype == np.float64 and not isinstance(value, (np.ndarray, np.generic)):
        return array.astype(state.default_dtype(), copy=False)
    if array.dtype == np.complex128 and not isinstance(value, (np.ndarray, np.generic)):
        # Python complex numbers take the complex dtype of the default float, as in PyTorch.
        return array.astype(dtypes.complex_of(state.default_dtype()), copy=False)
    if array.dtype.kind in "iu" and array.dtype != np.int64:
        # A NumPy array keeps an integer dtype gradcli has (int32, uint8), as in PyTorch.
        if isinstance(value, np.ndarray) and array.dtype in (np.int32, np.uint8):
            return array
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


class UntrackedCounter(list):
    """The version counter of a ``.data`` tensor: its own, and its writes not tracked."""

    __slots__ = ()


class _TensorClass(type):
    """The class of Tensor: ``type(x)`` prints ``<class 'torch.Tensor'>``, as PyTorch's."""

    def __repr__(cls):
        return "<class 'torch.Tensor'>" if cls.__name__ == "Tensor" else super().__repr__()


class Tensor(metaclass=_TensorClass):
    """An n-dimensional array that can record the operations applied to it."""

    # _hooks, _parameter and _vc (the version counter) are set on first use: most tensors
    # have none of them.
    # _grad_fn is the node that made it, as the graph holds it; grad_fn shows it to the user.
    # batched and level are vmap's BatchedTensor's (autograd/batched_tensor.py), here so that
    # a plain tensor written with one inside jacfwd can become one (its class reassigned).
    # _inference marks a tensor made inside inference_mode (state.mark_inference).
    __slots__ = ("_data", "requires_grad", "_grad_fn", "grad", "_hooks", "_parameter", "_vc")
    __slots__ += ("batched", "level", "_inference")
    # NumPy defers to Tensor's reflected operators instead of converting it.
    __array_ufunc__ = None

    def __init__(self, *args, requires_grad=False):
        # The legacy constructor: Tensor([2]) holds data, Tensor(2, 3) has that size.
        if args and all(isinstance(a, (int, np.integer)) for a in args):
            data = np.zeros(args, dtype=state.default_dtype())
        elif len(args) == 1:
            data = as_array(args[0], state.default_dtype())
        elif not args:
            data = np.zeros((0,), dtype=state.default_dtype())
        else:
            raise GradcliTypeError(f"Tensor(): expected data or sizes, got {args!r}")
        self._data = data
        self.requires_grad = bool(requires_grad)
        self._grad_fn = None
        self.grad = None

    # ----- construction without checks: the hot path of every op -----
    @staticmethod
    def _make(data, grad_fn=None, requires_grad=False):
        t = object.__new__(Tensor)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t.requires_grad = requires_grad
        t._grad_fn = grad_fn
        t.grad = None
        if state.INFERENCE[0]:
            state.mark_inference(t)
        return t

    @property
    def grad_fn(self):
        """The node of the op that made this tensor (None for a leaf or a constant), of its
        op's class: ``type(y.grad_fn).__name__`` is ``MulBackward0`` (``graph.shown``)."""
        node = self._grad_fn
        return None if node is None else shown(node)

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    # ----- attributes -----
    @property
    def data(self) -> Tensor:
        """The values, detached from the graph and sharing memory. Its writes are not
        tracked, as in PyTorch: a node that saved these values computes with the new ones,
        without the error a write through ``detach()`` brings."""
        t = Tensor._make(self._data)
        t._vc = UntrackedCounter([0])
        return t

    @data.setter
    def data(self, value):
        self._data = as_array(value, self._data.dtype)

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

    nelement = numel  # PyTorch's other name for it

    @property
    def dtype(self):
        return dtypes.from_numpy(self._data.dtype)

    @property
    def device(self) -> device:
        return CPU

    is_cuda = False
    is_cpu = True

    def get_device(self) -> int:
        return -1  # PyTorch's number for the CPU

    def cuda(self, device=None, non_blocking=False):
        on_cpu("cuda")

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    def item(self):
        if self._data.size != 1:
            raise EngineError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()

    def numpy(self) -> np.ndarray:
        # As PyTorch's, refused only while grad mode is on (a Function's forward may call it).
        if self.requires_grad and state.PER_THREAD.grad_enabled:
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
        from .format import format_tensor  # only when printed: not on the start-up path

        dual = state.PER_THREAD.forward_ad
        tangent = None if dual is None else dual.tangent_of(self)
        text = format_tensor(
            self._data,
            dtype_suffix=dtypes.repr_suffix(self._data.dtype),
            requires_grad=self.requires_grad and self._grad_fn is None,
            grad_fn_name=None if self._grad_fn is None else short_name(self._grad_fn.name()),
            tangent=None if tangent is None else format(tangent),  # as PyTorch: f"{tangent}"
        )
        return "Parameter containing:\n" + text if self._is_parameter() else text

    __str__ = __repr__

    def __format__(self, spec):
        # As PyTorch: a 0-d tensor formats as its number (f"{loss:.3f}", f"{loss}" is
        # "0.25"); any other tensor as its repr, which takes no format spec.
        if self._data.ndim == 0 and not self._is_parameter():
            return format(self._data.item(), spec)
        if spec:
            kind = "Parameter" if self._is_parameter() else "Tensor"
            raise GradcliTypeError(f"unsupported format string passed to {kind}.__format__")
        return repr(self)

    def _is_parameter(self) -> bool:
        """Whether this tensor is a ``torch.nn.Parameter`` (``gradcli.nn``)."""
        return getattr(self, "_parameter", False)

    @property
    def _version(self) -> int:
        """How many in-place ops have written this tensor (or a detach() of it)."""
        counter = getattr(self, "_vc", None)
        return 0 if counter is None else counter[0]

    def _counter(self) -> list:
        """The version counter (a one-item list, shared with detach()es), made on first use."""
        vc = getattr(self, "_vc", None)
        if vc is None:
            vc = self._vc = [0]
        return vc

    # ----- graph handling -----
    def detach(self) -> Tensor:
        t = Tensor._make(self._data)
        t._vc = self._counter()  # as PyTorch's: x.detach() shares x's version counter
        t._inference = False  # as PyTorch's: a normal tensor, even of an inference tensor
        return t

    def detach_(self) -> Tensor:
        self._grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad=True) -> Tensor:
        if self._grad_fn is not None and not requires_grad:
            raise EngineError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind not in "fc":
            raise EngineError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.is_inference() and not state.PER_THREAD.inference:
            raise EngineError(INFERENCE_REQUIRES_GRAD)
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if self._grad_fn is None:
            if not self.requires_grad:
                raise EngineError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._grad_hooks().retained = self

    @property
    def retains_grad(self) -> bool:
        node = self._grad_fn
        return node is not None and node.hooks is not None and node.hooks.retained is self

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a result replaces it."""
        if not self.requires_grad:
            raise EngineError("cannot register a hook on a tensor that doesn't require gradient")
        return self._grad_hooks().add(hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` after backward has accumulated this leaf's ``.grad``."""
        if not self.requires_grad:
            raise EngineError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise EngineError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        holder = self._grad_hooks()
        return holder.add(hook, holder.post_accumulate)

    def _grad_hooks(self):
        # A computed tensor keeps its hooks on its node, a leaf on itself (slot _hooks,
        # set on first use: most tensors never have one).
        holder = self._grad_fn.hooks if self._grad_fn is not None else getattr(self, "_hooks", None)
        if holder is None:
            holder = GradHooks()
            if self._grad_fn is not None:
                self._grad_fn.hooks = holder
            else:
                self._hooks = holder
        return holder

    def _written_in_place(self):
        """PyTorch's error for an inference tensor written outside inference_mode, raised
        as PyTorch raises it: after the write."""
        if getattr(self, "_inference", False) and not state.PER_THREAD.inference:
            raise EngineError(INFERENCE_INPLACE)

    def is_inference(self) -> bool:
        """Whether this tensor was made inside ``torch.inference_mode()``."""
        return getattr(self, "_inference", False)

    def _check_inplace(self):
        if state.PER_THREAD.grad_enabled and self.requires_grad and self._grad_fn is None:
            raise EngineError(LEAF_INPLACE)
