"""Conversions: dtypes, copies, cutting from the graph, and questions about a tensor."""

from __future__ import annotations

import numpy as np

from ...errors import EngineError, GradcliError, GradcliTypeError, GradcliValueError
from .. import batching_rules as batching
from .. import dtypes, saved, state
from ..batched_values import Batched
from ..devices import on_cpu
from ..messages import OVERLAPPING_WRITE, vmap_inplace
from ..multiprecision import OWN
from ..optable import Table, over
from ..tensor import Tensor
from .common import raw

table = Table("conversion")


def _to_rule(g, ans, x, dtype):
    return to_dtype(g, np.asarray(x).dtype)


def _mp_to_dtype(x, dtype):
    """At a working precision a float dtype keeps mpmath's numbers; anything else converts
    (a bool mask made a float is 0 and 1 all the same)."""
    x = np.asarray(x)
    return x if x.dtype.kind == "O" and np.dtype(dtype).kind == "f" else x.astype(dtype)


@table.composite(
    "to_dtype",
    "(input: Tensor, dtype: dtype)",
    words="g cast to a's dtype",
    doc="cast to another dtype",
    kind="conversion",
    library=False,
    overloads=[
        over("ToCopyBackward0", (_to_rule,), forward=lambda x, dtype: np.asarray(x).astype(dtype))
    ],
    batching=batching.elementwise,
    complex="holomorphic",
    mp=lambda m: _mp_to_dtype,
)
def to_dtype(over, input, dtype):
    dtype = dtypes.to_numpy(dtype)
    if type(input) is Tensor and input._data.dtype == dtype:
        return input  # as PyTorch: no conversion, the tensor itself
    if type(input) is Tensor and dtype.kind not in "fc":
        input = input.detach()  # as PyTorch: an integer or bool result carries no gradient
    return over["ToCopyBackward0"](input, dtype)


# order "K" keeps x's layout (PyTorch's clone), "C" makes it contiguous (x.contiguous()).
clone = table.op(
    "clone",
    lambda x, memory_format="K": np.array(x, copy=True, order=memory_format),
    "(input: Tensor, *, memory_format: str = 'K')",
    words="d a/da = 1",
    grad_fn="CloneBackward0",
    rules=(lambda g, ans, x, memory_format="K": g,),
    saves=False,
    doc="a copy",
    kind="conversion",
    method=True,
    domain=("real",),
    batching=batching.elementwise,
    complex="holomorphic",
    mp=OWN,
)


@table.composite(
    "detach",
    "(input: Tensor)",
    doc="the same values, cut from the graph",
    symbolic="its gradient is cut: no expression has its value and a zero derivative",
    kind="other",
    function=True,
    batching=batching.elementwise,
    mp=OWN,
)
def detach(over, input):
    return input.detach() if type(input) is Tensor else input


def _cast_method(name, dtype):
    @table.composite(
        name,
        "(input: Tensor)",
        doc=f"x as {dtype.name} (x.to({dtype!r}))",
        kind="conversion",
        method=True,
        library=False,
    )
    def cast(over, input):
        return to_dtype(input, dtype)

    return cast


for _name, _dtype in (
    ("float", dtypes.float32),
    ("double", dtypes.float64),
    ("half", dtypes.float16),
    ("long", dtypes.int64),
    ("int", dtypes.int32),
    ("bool", dtypes.bool_),
):
    _cast_method(_name, _dtype)
del _name, _dtype


@table.composite(
    "type",
    "(input: Tensor, dtype: dtype = None)",
    kind="conversion",
    doc="PyTorch's name of the tensor type ('torch.FloatTensor'); with a dtype, a tensor type "
    "or its name, x cast to it",
    method=True,
    library=False,
)
def type_(over, input, dtype=None):
    if dtype is None:
        return "torch." + dtypes.tensor_type_name(dtypes.from_numpy(raw(input).dtype))
    return to_dtype(input, dtype)


@table.composite(
    "to",
    "(input: Tensor, *args, dtype: dtype = None, device: str = None, "
    "copy: bool = False, non_blocking: bool = False)",
    kind="conversion",
    doc='x.to(dtype), x.to(other), x.to("cpu"): the CPU is the only device',
    method=True,
    library=False,
)
def to(over, input, *args, dtype=None, device=None, copy=False, non_blocking=False):
    for arg in args:
        if type(arg) is Tensor:
            dtype = arg._data.dtype
        elif isinstance(arg, str) or type(arg).__name__ == "device":
            device = arg
        else:
            dtype = arg
    on_cpu(device)
    out = input if dtype is None else to_dtype(input, dtype)
    return clone(out) if copy and out is input else out


@table.composite(
    "cpu",
    "(input: Tensor)",
    doc="x itself: it is on the CPU",
    kind="conversion",
    method=True,
    library=False,
    mp=OWN,
)
def cpu(over, input):
    return input


@table.composite(
    "contiguous",
    "(input: Tensor, memory_format: str = None)",
    kind="conversion",
    doc="x with its entries in row-major order (a copy if they are not)",
    method=True,
    library=False,
    mp=OWN,
)
def contiguous(over, input, memory_format=None):
    return input if raw(input).flags.c_contiguous else clone(input, "C")


@table.composite(
    "is_contiguous",
    "(input: Tensor, memory_format: str = None)",
    kind="conversion",
    doc="whether x's entries are in row-major order",
    method=True,
    library=False,
    mp=OWN,
)
def is_contiguous(over, input, memory_format=None):
    return bool(raw(input).flags.c_contiguous)


@table.composite(
    "is_floating_point",
    "(input: Tensor)",
    kind="conversion",
    doc="whether x's dtype is a float dtype",
    method=True,
)
def is_floating_point(over, input):
    return np.asarray(input).dtype.kind == "f"


@table.composite("is_tensor", "(obj)", kind="conversion", doc="whether obj is a tensor", mp=OWN)
def is_tensor(over, obj):
    return type(obj) is Tensor


@table.composite(
    "numel",
    "(input: Tensor)",
    kind="other",
    function=True,
    doc="numel(x): the number of entries of x (a constant)",
    symbolic=lambda s, x: s.Integer(x.size),
    other_names=("size",),
    batching=batching.same_at_every_point,
    mp=OWN,
)
def numel(over, input):
    return int(np.size(raw(input)))


@table.composite(
    "len",
    "(input: Tensor)",
    kind="other",
    function=True,
    library=False,
    doc="len(x): the size of the first dimension of x (a constant), as Python's len",
    symbolic=lambda s, x: s.Integer(x.shape[0]),
    other_names=("length",),
    batching=batching.same_at_every_point,
    mp=OWN,
)
def length(over, input):
    shape = np.shape(raw(input))
    if not shape:
        raise GradcliTypeError("len() of a 0-d tensor")
    return shape[0]


# ----- class indices as one-hot rows -----


def _one_hot(x, num_classes=-1):
    # PyTorch's checks, in its order (aten's one_hot) and with its messages.
    x = np.asarray(x)
    if type(num_classes) is bool or not isinstance(num_classes, (int, np.integer)):
        raise GradcliTypeError(
            "one_hot(): argument 'num_classes' (position 2) must be int, "
            f"not {type(num_classes).__name__}"
        )
    if x.dtype != np.int64:
        raise EngineError("one_hot is only applicable to index tensor of type LongTensor.")
    if x.size == 0:
        if num_classes <= 0:
            raise EngineError("Can not infer total number of classes from empty tensor.")
        return np.zeros(x.shape + (num_classes,), np.int64)
    if x.min() < 0:
        raise EngineError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(x.max()) + 1
    elif x.max() >= num_classes:
        raise EngineError("Class values must be smaller than num_classes.")
    return (x[..., None] == np.arange(num_classes)).astype(np.int64)


def _one_hot_size(x, num_classes=-1):
    x = np.asarray(x)
    inferred = num_classes == -1 and x.size and x.dtype.kind in "iu"
    return x.size * (int(x.max()) + 1 if inferred else int(num_classes))


def _class_indices(args: list, kwargs: dict, span) -> tuple[list, dict]:
    """The language's numbers are floats: whole ones are class indices, as int64."""
    x = args[0] if args else kwargs.get("input")
    batched = type(x) is Batched
    data = np.asarray(raw(x.physical if batched else x))
    if data.dtype.kind != "f":
        return args, kwargs
    if not np.all(data == np.round(data)):
        raise GradcliValueError("one_hot: class indices must be whole numbers", span)
    indices = Tensor._make(data.astype(np.int64))
    indices = Batched(indices) if batched else indices
    if args:
        return [indices, *args[1:]], kwargs
    return args, {**kwargs, "input": indices}


def _one_hot_form(s, x, num_classes=-1):
    """``gradcli diff``: constant class indices as rows of SymPy's 0 and 1."""
    if not all(getattr(v, "is_Integer", False) for v in x.flat):
        raise ValueError("class indices that are not constant integers have no formula")
    classes = np.array([int(v) for v in x.flat], np.int64).reshape(x.shape)
    return _one_hot(classes, num_classes).astype(object) * s.Integer(1)


def _one_hot_batching(entry, found):
    """The points' classes as one stack, when every point has the same number of them."""
    x, n = found["input"], found.get("num_classes", -1)
    if n == -1 and type(x) is Batched:
        data = np.asarray(raw(x.physical)).reshape(x.size, -1)
        if data.size and data.dtype.kind in "iu" and len(set(data.max(axis=1))) > 1:
            raise GradcliError(
                "many-point evaluation of one_hot without num_classes, whose largest class "
                "differs from point to point, is not implemented: give num_classes"
            )
    return batching.stacked(entry, found)


one_hot = table.op(
    "one_hot",
    _one_hot,
    "(input: Tensor, num_classes: int = -1)",
    doc="each class index as a row of num_classes entries, 1 at the index (int64; "
    "num_classes -1: the largest index + 1)",
    kind="other",
    function=True,
    library=False,
    nn_functional=True,
    size=_one_hot_size,
    language_args=_class_indices,
    symbolic=_one_hot_form,
    batching=_one_hot_batching,
)


# ----- in place: x.exp_(), x.add_(y), x[...] = v write the result into x -----


def apply_inplace(target, fn, args=(), kwargs=None, *, assigns=False, reshapes=False, ufunc=None):
    """``target = fn(target, *args)``, in place; returns ``target``.

    Outside a graph (an optimizer step under no_grad) the values are written
    into the tensor's own memory, so views and ``.data`` see them. In a graph
    the tensor takes the result's values and grad_fn, copy on write: the nodes
    that saved the old values keep them. ``assigns``: zero_, fill_ and copy_,
    which may cast to the tensor's dtype (arithmetic may not); ``reshapes``:
    squeeze_, t_ and the like, which may change the shape. ``ufunc``: the NumPy ufunc that
    computes ``fn`` entry by entry (add_, sub_), written straight into the tensor's memory
    outside a graph when the operand is a tensor of its shape and dtype (an optimizer
    step): the same numbers without the result's temporary array and its copy.
    """
    kwargs = kwargs or {}
    if any(isinstance(a, Tensor) and type(a) is not Tensor for a in (*args, *kwargs.values())):
        # vmap's BatchedTensor written into a tensor the same at every point
        raise EngineError(vmap_inplace(in_place_label(getattr(fn, "__name__", "inplace"))))
    target._check_inplace()
    dual = state.PER_THREAD.forward_ad  # under forward-mode AD the tangent is written too
    saved.begin()
    if state.PER_THREAD.grad_enabled and (
        target.requires_grad or any(type(a) is Tensor and a.requires_grad for a in args)
    ):
        out = fn(target, *args, **kwargs)
        _check_inplace_shape(target._data, out._data, reshapes)
        if out._data.dtype != target._data.dtype:
            out = to_dtype(out, target._data.dtype)
        saved.modified(target, target._data)
        target._data = out._data
        if reshapes and out._grad_fn is not None:  # renamed before it is shown
            out._grad_fn.op = _in_place_twin(out._grad_fn.op)
        target.grad_fn = out.grad_fn
        target.requires_grad = out.requires_grad
        if dual is not None:
            dual.copy_tangent(out, target)
        return target
    # No graph: grad is off or not needed (without a tangent, target's own is not either).
    if ufunc is not None and dual is None and len(args) == 1 and not kwargs:
        data, other = target._data, args[0]
        if (
            type(other) is Tensor
            and type(data) is np.ndarray
            and other._data.dtype == data.dtype
            and data.dtype.kind in "fciu"  # not bool (refused), nor object (multiprecision)
            and other._data.shape == data.shape
            and data.flags.writeable
        ):
            saved.before_write(data)
            ufunc(data, other._data, out=data)
            saved.modified(target, data)
            return target
    out = fn(target if dual is not None else target.detach(), *args, **kwargs)
    if dual is not None:
        dual.copy_tangent(out, target)
    value = out._data
    data = target._data
    if _check_inplace_shape(data, value, reshapes):
        saved.modified(target, data)
        target._data = value.astype(data.dtype, copy=False)
        return target
    if (
        not assigns
        and value.dtype != data.dtype
        and not np.can_cast(value.dtype, data.dtype, casting="same_kind")
    ):
        raise EngineError(
            f"result type {dtypes.scalar_name(value.dtype)} can't be cast to the desired "
            f"output type {dtypes.scalar_name(data.dtype)}"
        )
    if not data.flags.writeable:  # an expand()ed tensor: entries share memory
        raise EngineError(OVERLAPPING_WRITE)
    saved.before_write(data)
    data[...] = value
    saved.modified(target, data)
    return target


# PyTorch records an in-place view op under a name of its own: x.transpose_(0, 1) is
# TransposeBackward1 where x.transpose(0, 1) is TransposeBackward0.
_IN_PLACE_NAMES = {"TransposeBackward0": "TransposeBackward1", "TBackward0": "TBackward1",
                   "UnsqueezeBackward0": "UnsqueezeBackward1",
                   "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
                   "SqueezeBackward2": "SqueezeBackward5"}  # fmt: skip
_TWINS = {}


def _in_place_twin(overload):
    """``overload`` recorded under its in-place name."""
    name = _IN_PLACE_NAMES.get(overload.grad_fn)
    return overload if name is None else _twin(overload, name)


def _twin(overload, name):
    """``overload`` under another grad_fn name: the same rules."""
    twin = _TWINS.get((id(overload), name))
    if twin is None:
        twin = object.__new__(type(overload))
        for slot in type(overload).__slots__:
            if hasattr(overload, slot):
                setattr(twin, slot, getattr(overload, slot))
        twin.grad_fn, twin._shown_class = name, None
        _TWINS[id(overload), name] = twin
    return twin


def recorded_as(tensor, grad_fn_name):
    """``tensor``'s node shown as ``grad_fn_name``: what PyTorch records for a result its
    fused kernel computes (a float32 LSTM's ``MkldnnRnnLayerBackward0``) where gradcli
    composes ops. Call it before the node is first shown."""
    node = tensor._grad_fn
    if node is not None:
        node.op = _twin(node.op, grad_fn_name)
    return tensor


def in_place_label(name):
    """How PyTorch's vmap names the in-place op ``name`` (or ``name_``) in its errors."""
    name = name.strip("_")
    arithmetic = name.lstrip("i") in ("add", "sub", "mul", "div", "truediv")
    return "inplace arithmetic" if arithmetic else f"aten::{name}_"


def in_place_function(name, entry):
    """``x.name_(...)`` and ``torch.name_(x, ...)``: the entry's function written into x."""
    call, reshapes = entry.call, entry.inplace == "reshapes"
    assigns = entry.kind == "other" and not entry.method  # zero_, fill_, copy_ cast to x's dtype

    def function(input, *args, **kwargs):
        return apply_inplace(input, call, args, kwargs, assigns=assigns, reshapes=reshapes)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"x = {entry.name}(x, ...), in place"
    return function


def _check_inplace_shape(data, value, reshapes):
    """Whether an in-place op changes the shape (squeeze_ may; a broadcast add_ may not)."""
    if value.shape == data.shape:
        return False
    if reshapes:
        return True
    raise EngineError(
        f"output with shape {list(data.shape)} doesn't match the broadcast shape "
        f"{list(value.shape)}"
    )


# The Taylor series rules (engine/jet.py).
table.series(to_dtype="linear", clone="linear")
