"""Constructors (zeros, arange, eye, ...) and the assignments
x.zero_(), x.fill_(v), x.copy_(src) as recorded in a graph."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliTypeError
from .. import batching_rules as batching
from .. import dtypes, limits, state
from ..devices import on_cpu
from ..multiprecision import OWN
from ..optable import Table, over
from ..tensor import Tensor, as_array
from . import sympy_forms as sym
from .common import raw, shape_arg
from .conversion import to_dtype

table = Table("creation")
CONSTRUCTOR = dict(kind="constructor", function=True)


def new_tensor(data, requires_grad):
    """A new leaf holding ``data`` (already of its dtype)."""
    t = Tensor._make(data)
    if requires_grad:
        if t._data.dtype.kind not in "fc":
            raise EngineError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad = True
    return t


def float_dtype(dtype):
    return state.default_dtype() if dtype is None else dtypes.to_numpy(dtype)


def sized(f):
    """PyTorch's ``size=`` keyword for a constructor that takes sizes: ``zeros(size=(2, 3))``."""

    def call(over, *size, **kwargs):
        if "size" in kwargs:
            if size:
                raise GradcliTypeError(f"{f.__name__}() got multiple values for argument 'size'")
            size = (kwargs.pop("size"),)
        return f(over, *size, **kwargs)

    call.__name__ = f.__name__
    return call


def _mp_tensor(mpmath):
    """``tensor`` at a working precision: every number of ``data`` an mpf."""

    def tensor(over, data, dtype=None, device=None, requires_grad=False):
        on_cpu(device)
        array = np.array(data._data if type(data) is Tensor else data, dtype=object)
        out = np.empty(array.shape, dtype=object)
        out.reshape(-1)[:] = [mpmath.mpf(v) for v in array.reshape(-1).tolist()]
        t = Tensor._make(out)
        t.requires_grad = bool(requires_grad)
        return t

    return tensor


@table.composite(
    "tensor",
    "(data, *, dtype: dtype = None, device: device = None, requires_grad: bool = False)",
    kind="constructor",
    doc="a new leaf tensor holding a copy of data",
    mp=_mp_tensor,
)
def tensor(over, data, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    array = np.array(as_array(data, dtypes.to_numpy(dtype)), copy=True)
    return new_tensor(array, requires_grad)


@table.composite(
    "zeros",
    "(*size: int, dtype: dtype = None, device: device = None, requires_grad: bool = False)",
    doc="zeros(2, 3): a tensor of zeros",
    symbolic=lambda s, *size: np.full(size, s.Integer(0), dtype=object),
    **CONSTRUCTOR,
    mp=OWN,
)
@sized
def zeros(over, *size, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    return new_tensor(np.zeros(shape_arg(size, "zeros"), dtype=float_dtype(dtype)), requires_grad)


@table.composite(
    "ones",
    "(*size: int, dtype: dtype = None, device: device = None, requires_grad: bool = False)",
    doc="ones(2, 3): a tensor of ones",
    symbolic=lambda s, *size: np.full(size, s.Integer(1), dtype=object),
    **CONSTRUCTOR,
    mp=OWN,
)
@sized
def ones(over, *size, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    return new_tensor(np.ones(shape_arg(size, "ones"), dtype=float_dtype(dtype)), requires_grad)


@table.composite(
    "empty",
    "(*size: int, dtype: dtype = None, device: device = None, requires_grad: bool = False)",
    doc="empty(2, 3): a tensor of that size (zeros in gradcli)",
    kind="constructor",
)
@sized
def empty(over, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


@table.composite(
    "full",
    "(size: int[], fill_value: Number, *, dtype: dtype = None, device: device = None, "
    "requires_grad: bool = False)",
    doc="full((2, 3), v): a tensor filled with v",
    symbolic=lambda s, size, fill: np.full(size, fill, dtype=object),
    **CONSTRUCTOR,
)
def full(over, size, fill_value, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    size = shape_arg((size,) if isinstance(size, (int, np.integer)) else tuple(size), "full")
    if not isinstance(fill_value, (bool, int, float, np.number, np.bool_)):
        raise GradcliTypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not "
            f"{'list' if isinstance(fill_value, np.ndarray) else type(fill_value).__name__}"
        )
    if dtype is None and isinstance(fill_value, (bool, int, np.integer, np.bool_)):
        dtype = np.bool_ if isinstance(fill_value, (bool, np.bool_)) else np.int64
    return new_tensor(np.full(size, fill_value, dtype=float_dtype(dtype)), requires_grad)


@table.composite(
    "eye",
    "(n: int, m: int = None, *, dtype: dtype = None, device: device = None, "
    "requires_grad: bool = False)",
    doc="eye(n): the identity matrix",
    symbolic=lambda s, n, m=None: np.eye(n, m, dtype=int).astype(object) * s.Integer(1),
    other_names=("identity",),
    **CONSTRUCTOR,
    mp=OWN,
)
def eye(over, n, m=None, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    limits.check("eye", (int(n), int(n) if m is None else int(m)))
    data = np.eye(int(n), None if m is None else int(m), dtype=float_dtype(dtype))
    return new_tensor(data, requires_grad)


@table.composite(
    "arange",
    "(start: Number, end: Number = None, step: Number = 1, *, "
    "dtype: dtype = None, device: device = None, requires_grad: bool = False)",
    doc="arange(start, end, step): evenly spaced values in [start, end)",
    symbolic=sym.arange,
    other_names=("range",),
    **CONSTRUCTOR,
)
def arange(over, start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise EngineError("step must be nonzero")
    if (end - start) * step < 0:
        raise EngineError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if is_int else state.default_dtype()
    if step != 0 and all(math.isfinite(v) for v in (start, end, step)):
        limits.check("arange", max(0, math.ceil((end - start) / step)))
    dt = dtypes.to_numpy(dtype)
    if dt.kind != "f":
        return new_tensor(np.arange(start, end, step, dtype=dt), requires_grad)
    n = max(0, math.ceil((float(end) - float(start)) / float(step)))
    return new_tensor(_torch_arange(float(start), float(step), n, dt), requires_grad)


def _fused(a: float, b: float):
    """``i -> a * i + b`` rounded once to a double, as the fused multiply-add of PyTorch's
    kernels: Python divides integers correctly rounded, so the exact sum over a power
    of two is it."""
    (p, q), (r, s) = a.as_integer_ratio(), b.as_integer_ratio()
    d = max(q, s)
    slope, offset = p * (d // q), r * (d // s)
    return lambda i: (slope * i + offset) / d


_ONE_THREAD = 32768  # PyTorch's grain: the most elements one thread fills


def _torch_arange(start: float, step: float, n: int, dt: np.dtype) -> np.ndarray:
    """PyTorch's CPU arange, bit for bit: NumPy adds a step rounded to the dtype again and
    again (float32 [80] of arange(-8, 8, 0.1) was -7.6e-06, not 4.4e-16).

    PyTorch computes in double. Its loop fills two vectors of 32 bytes at a time (eight
    float32 or four float64 lanes; its AVX512 build gives the same numbers): each vector
    from a base ``start + step * i`` rounded to the dtype, lane k at ``base + k * step``;
    the last elements, fewer than two vectors, one at a time from ``start + step * i``.
    Every ``x + y * z`` is a fused multiply-add. Past 32768 elements PyTorch splits the
    range among its threads, each starting its vectors anew, which gradcli cannot know:
    there each value is ``start + i * step`` fused, in NumPy, within an ulp of PyTorch's.
    """
    if n > _ONE_THREAD:
        wide = np.longdouble
        values = wide(start) + np.arange(n, dtype=wide) * wide(step)
        return values.astype(np.float64).astype(dt)
    kind = dt.type if dt.itemsize in (4, 8) else np.float64
    lanes = 32 // np.dtype(kind).itemsize
    vectors_end = n - n % (2 * lanes)
    from_start = _fused(step, start)
    bases = np.array([from_start(i) for i in range(0, vectors_end, lanes)]).astype(kind)
    values = []
    for base in bases.tolist():
        lane = _fused(step, base)
        values.extend(lane(k) for k in range(lanes))
    values.extend(from_start(i) for i in range(vectors_end, n))
    return np.array(values, dtype=np.float64).astype(kind).astype(dt)


@table.composite(
    "linspace",
    "(start: Number, end: Number, steps: int, *, dtype: dtype = None, device: device = None, "
    "requires_grad: bool = False)",
    doc="linspace(0, 1, 5): steps evenly spaced values from start to end",
    symbolic=sym.linspace,
    **CONSTRUCTOR,
)
def linspace(over, start, end, steps, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    dt = float_dtype(dtype)
    steps = int(steps)
    limits.check("linspace", steps)
    if steps < 2:
        return new_tensor(np.full(steps, start).astype(dt), requires_grad)
    # PyTorch's values, not NumPy's: the first half counts up from start, the second
    # down from end, each one rounding from start + step * i (a fused multiply-add),
    # so the middle of linspace(-1, 1, 11) in float32 is -1.4901e-08, not 0. An
    # integer dtype truncates start and end first and each value last.
    if dt.kind != "f":
        start, end = int(start), int(end)
    step_type = dt.type if dt.kind == "f" else np.float64
    step = step_type((step_type(end) - step_type(start)) / step_type(steps - 1))
    wide = np.longdouble if step_type is np.float64 else np.float64
    i = np.arange(steps)
    up = wide(step_type(start)) + wide(step) * i
    down = wide(step_type(end)) - wide(step) * (steps - 1 - i)
    values = np.where(i < steps // 2, up, down).astype(step_type)
    return new_tensor(values.astype(dt), requires_grad)


# ----- tensors shaped like another -----

_LIKE = "*, dtype: dtype = None, device: device = None, requires_grad: bool = False"


@table.composite(
    "zeros_like",
    f"(input: Tensor, {_LIKE})",
    doc="zeros_like(x): zeros of x's shape and dtype",
    symbolic=lambda s, x: np.full(x.shape, s.Integer(0), dtype=object),
    **CONSTRUCTOR,
    batching=batching.same_at_every_point,
    mp=OWN,
)
def zeros_like(over, input, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    if type(input) is not Tensor:
        return np.zeros_like(input)
    return new_tensor(np.zeros_like(input._data, dtype=dtypes.to_numpy(dtype)), requires_grad)


@table.composite(
    "ones_like",
    f"(input: Tensor, {_LIKE})",
    doc="ones_like(x): ones of x's shape and dtype",
    symbolic=lambda s, x: np.full(x.shape, s.Integer(1), dtype=object),
    **CONSTRUCTOR,
    batching=batching.same_at_every_point,
    mp=OWN,
)
def ones_like(over, input, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    if type(input) is not Tensor:
        return np.ones_like(input)
    return new_tensor(np.ones_like(input._data, dtype=dtypes.to_numpy(dtype)), requires_grad)


@table.composite(
    "empty_like",
    f"(input: Tensor, {_LIKE})",
    kind="constructor",
    doc="empty_like(x): a tensor of x's shape and dtype (zeros in gradcli)",
)
def empty_like(over, input, dtype=None, device=None, requires_grad=False):
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


@table.composite(
    "full_like",
    f"(input: Tensor, fill_value: Number, {_LIKE})",
    kind="constructor",
    doc="full_like(x, v): x's shape filled with v",
)
def full_like(over, input, fill_value, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    data = np.full_like(np.asarray(input), fill_value, dtype=dtypes.to_numpy(dtype))
    return new_tensor(data, requires_grad)


@table.composite(
    "from_numpy", "(ndarray)", kind="constructor", doc="a tensor sharing memory with a NumPy array"
)
def from_numpy(over, ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise GradcliTypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype.kind not in "biuf":
        raise GradcliTypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype}. The only supported types "
            "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        )
    return Tensor._make(ndarray)


@table.composite(
    "as_tensor",
    "(data, dtype: dtype = None, device: device = None)",
    kind="constructor",
    doc="the data as a tensor, sharing memory where it can",
)
def as_tensor(over, data, dtype=None, device=None):
    on_cpu(device)
    want = dtypes.to_numpy(dtype)
    if type(data) is Tensor:
        return data if want is None or want == data._data.dtype else to_dtype(data, want)
    if isinstance(data, np.ndarray) and (want is None or want == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


# ----- x.new_zeros(2, 3) and the like: x's dtype unless one is given -----


def _new_like(name, make, schema, doc):
    @table.composite(name, schema, kind="constructor", doc=doc, method=True, library=False)
    def method(over, input, *args, dtype=None, device=None, requires_grad=False, **kwargs):
        on_cpu(device)
        dtype = dtype or raw(input).dtype
        return make(*args, dtype=dtype, requires_grad=requires_grad, **kwargs)

    return method


_new_like("new_zeros", zeros, f"(input: Tensor, *size: int, {_LIKE[3:]})", "zeros of x's dtype")
_new_like("new_ones", ones, f"(input: Tensor, *size: int, {_LIKE[3:]})", "ones of x's dtype")
_new_like("new_empty", zeros, f"(input: Tensor, *size: int, {_LIKE[3:]})", "a tensor of x's dtype")
_new_like(
    "new_full",
    full,
    f"(input: Tensor, size: int[], fill_value: Number, {_LIKE})",
    "a tensor of x's dtype filled with fill_value",
)
_new_like("new_tensor", tensor, f"(input: Tensor, data, {_LIKE})", "data in x's dtype")


# ----- assignments as recorded in a graph: x's old values get no gradient -----


def zero_rule(g, ans, *args, **kwargs):
    """The rule of a piecewise-constant op: the gradient is 0 wherever it exists."""
    return zeros_like(g)


def _copy_forward(x, src):
    return np.array(np.broadcast_to(src, np.shape(x)), dtype=np.asarray(x).dtype)


zero = table.op(
    "zero",
    np.zeros_like,
    "(input: Tensor)",
    words="0",
    grad_fn="ZeroBackward0",
    rules=(zero_rule,),
    saves=False,
    doc="zeros of x's shape (x.zero_())",
    kind="other",
    inplace=True,
    library=False,
    kink="gradient 0 everywhere",
    complex="holomorphic",
)
fill = table.op(
    "fill",
    lambda x, value: np.full_like(x, value),
    "(input: Tensor, value: Tensor|Number)",
    words=("d/d target: 0", "d/d value: g summed"),
    saves=False,
    overloads=[
        over(
            "FillBackward3",
            (zero_rule, lambda g, ans, x, value: g),
            when=lambda x, value: type(value) is Tensor,
        ),
        over("FillBackward2", (zero_rule, None)),
    ],
    doc="x's shape filled with value (x.fill_(value))",
    kind="other",
    inplace=True,
    library=False,
    complex="holomorphic",
)
copy = table.op(
    "copy",
    _copy_forward,
    "(input: Tensor, src: Tensor|Number)",
    words=("d/d target: 0", "d/d src: g"),
    grad_fn="torch::autograd::CopyBackwards",
    rules=(zero_rule, lambda g, ans, x, src: g),
    saves=False,
    doc="src in x's shape and dtype (x.copy_(src))",
    kind="other",
    inplace=True,
    library=False,
    complex="holomorphic",
)
