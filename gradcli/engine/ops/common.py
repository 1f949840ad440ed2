"""What the op modules share: reading arguments and shapes with leading batch dimensions."""

from __future__ import annotations

import functools

import numpy as np

from ...errors import EngineError, GradcliIndexError, GradcliTypeError
from .. import dtypes, limits
from ..messages import complex_refused, dim_out_of_range
from ..optable import over
from ..tensor import Tensor


def raw(x):
    """A tensor's array; anything else as it is."""
    return x._data if type(x) is Tensor else x


#: The entries of torch.nn.functional's layers: not ``gradcli.name`` (as PyTorch).
LAYER = dict(kind="other", library=False, nn_functional=True)
#: Those that a program of the language may call too; ``gradcli diff`` has no form of them.
LAYER_IN_LANGUAGE = {**LAYER, "function": True, "symbolic": "a layer of tensors has no SymPy form"}

#: PyTorch's names of the dtypes in its layers' messages (c10's).
_C10 = {"float64": "double", "float32": "float", "float16": "c10::Half",
        "complex128": "c10::complex<double>", "complex64": "c10::complex<float>"}  # fmt: skip


def same_dtypes(input, **operands):
    """PyTorch's error where a layer's weight or bias has another dtype than its input (a
    real bias is not promoted to a complex input's dtype, nor float32 to float64)."""
    x = np.asarray(raw(input)).dtype
    for name, t in operands.items():
        d = None if t is None else np.asarray(raw(t)).dtype
        if d is not None and d != x and x.kind in "fc" and d.kind in "fc":
            raise EngineError(
                f"Input type ({_C10.get(x.name, x.name)}) and {name} type "
                f"({_C10.get(d.name, d.name)}) should be the same"
            )


#: PyTorch's ScalarType names, in its matrix products' messages.
_SCALAR_TYPE = {"float64": "Double", "float32": "Float", "float16": "Half",
                "complex128": "ComplexDouble", "complex64": "ComplexFloat"}  # fmt: skip


def linear_dtypes(input, weight, bias=None):
    """PyTorch's errors where F.linear's operands differ in dtype (it promotes none)."""
    x, w = (np.asarray(raw(v)).dtype for v in (input, weight))
    if bias is not None:
        b = np.asarray(raw(bias)).dtype
        first, second, which = (b, w, "self") if b != w else (x, w, "mat1")
        if first != second:
            raise EngineError(
                f"{which} and mat2 must have the same dtype, but got "
                f"{_SCALAR_TYPE.get(first.name, first.name)} and "
                f"{_SCALAR_TYPE.get(second.name, second.name)}"
            )
    elif x != w:
        raise EngineError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_C10.get(x.name, x.name)} != {_C10.get(w.name, w.name)}"
        )


def real_only(name, *values):
    """An error naming ``name`` where one of ``values`` is complex: for the composites
    that take no complex numbers (PyTorch neither) but whose parts do."""
    for v in values:
        if np.iscomplexobj(raw(v)):
            raise complex_refused(name)


def batch_of(g, ans):
    """The leading batch dimensions ``g`` carries beyond ``ans``'s shape."""
    return tuple(g.shape[: g.ndim - np.ndim(ans)])


def dims(dim, ndim):
    """``dim`` (None, int or sequence) as a sorted tuple of negative axes.

    None and an empty sequence mean every dimension, as in PyTorch's reductions
    (``sum(x, [])`` is ``sum(x)``); a dimension named twice is PyTorch's error."""
    if dim is None or (not isinstance(dim, (int, np.integer)) and len(dim) == 0):
        return tuple(range(-ndim, 0))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = []
    span = max(ndim, 1)
    for d in dim:
        d = int(d)
        if not -span <= d < span:
            raise GradcliIndexError(dim_out_of_range(d, ndim))
        d = d - ndim if d >= 0 else d
        if d in out:
            raise EngineError(f"dim {d % span} appears multiple times in the list of dims")
        out.append(d)
    if ndim == 0:
        return ()  # a 0-d tensor has nothing to reduce: dim 0 or -1 leaves it as it is
    return tuple(sorted(out))


def one_axis(dim, ndim):
    """The one dimension ``dim`` names, as a negative axis, checked; None for a 0-d tensor,
    whose dims 0 and -1 name no axis (an op along it sees one entry)."""
    found = dims(dim, ndim)
    return found[0] if found else None


def one_dim(name, dim):
    """``dim`` where ``name`` takes a single dimension and PyTorch refuses a list."""
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise GradcliTypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return dim


def contiguous(forward):
    """A reduction's forward whose result is C-contiguous whatever the input's layout, as
    PyTorch's reductions are (so ``view`` of it works); NumPy keeps the input's order."""

    @functools.wraps(forward)
    def contiguous_forward(*args, **kwargs):
        out = forward(*args, **kwargs)
        if isinstance(out, np.ndarray) and not out.flags.c_contiguous:
            return np.ascontiguousarray(out)
        return out

    return contiguous_forward


def axis(dim, ndim):
    """A PyTorch ``dim`` argument as a NumPy ``axis``: checked, negative, a tuple."""
    return None if dim is None else dims(dim, ndim)


def nonempty_axes(name, x, dim):
    """The axes ``name`` (amax, amin) reduces, each with an entry: else PyTorch's error,
    not NumPy's ValueError."""
    axes = axis(dim, np.ndim(x))
    if np.size(x) == 0 and axes is None:
        raise EngineError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument."
        )
    for given in () if np.size(x) else (dim,) if isinstance(dim, int) else tuple(dim):
        if np.shape(x)[given] == 0:
            message = f"{name}(): Expected reduction dim {given} to have non-zero size."
            raise GradcliIndexError(message)
    return axes


def shape_arg(shape, what=None):
    """``f(x, 2, 3)`` or ``f(x, (2, 3))``: the sizes as a tuple of ints; with ``what``, a
    constructor's, checked against the limit on a result's size."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    if what is not None:
        limits.check(what, shape)
    return shape


def negative_dims(dims_, ndim):
    dims_ = (dims_,) if isinstance(dims_, (int, np.integer)) else tuple(dims_)
    return tuple(a for d in dims_ for a in dims(d, ndim))  # a 0-d tensor's dims name no axis


def not_implemented(aten_name):
    """The rule of an op whose derivative PyTorch does not implement: backward raises, as there."""

    def rule(g, ans, *args, **kwargs):
        raise EngineError(f"derivative for aten::{aten_name} is not implemented")

    return rule


def is_tensor_arg(*args):
    """``when`` of an overload: which of its arguments are tensors, as a tuple of bools."""
    return tuple(type(a) is Tensor for a in args)


def by_tensor_operands(name, x_rule, y_rule):
    """The overloads PyTorch records a binary function under by which operands are tensors:
    ``{name}Backward1`` for a number and a tensor, ``...2`` for a tensor and a number,
    ``...0`` for two tensors (xlogy, xlog1py, zeta)."""
    return [
        over(f"{name}Backward1", (None, y_rule), when=_number_and_tensor),
        over(f"{name}Backward2", (x_rule, None), when=_tensor_and_number),
        over(f"{name}Backward0", (x_rule, y_rule)),
    ]


def _number_and_tensor(x, y):
    return type(x) is not Tensor and type(y) is Tensor


def _tensor_and_number(x, y):
    return type(x) is Tensor and type(y) is not Tensor


class ValuesIndices(tuple):
    """What max(x, dim) returns: (values, indices), also by name."""

    function = "max"

    def __repr__(self):
        return f"torch.return_types.{self.function}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def return_type(function):
    """The (values, indices) pair of ``function``, printed as torch.return_types.<function>."""
    return type(f"{function}_return", (ValuesIndices,), {"function": function})


def accumulating(x, dtype):
    """The NumPy dtype a reduction accumulates in; a complex input with a real one is an
    error (PyTorch drops the imaginary part there, and its gradient is real)."""
    found = dtypes.to_numpy(dtype)
    if found is not None and np.iscomplexobj(x) and np.dtype(found).kind != "c":
        raise GradcliTypeError(
            f"a reduction of complex input with dtype {dtype} would drop its imaginary "
            "part: take real(x) first"
        )
    return found


def prod_others_array(x, dim=None):
    """For each entry, the product of the other entries along ``dim``: exact with zeros."""
    x = np.asarray(x)
    if x.size == 0:  # no entries: no products (the cumulative ones below would make one)
        return np.ones_like(x)
    if dim is None:
        return prod_others_array(x.reshape(-1), 0).reshape(x.shape)
    if x.ndim == 0:
        return np.ones_like(x)  # a 0-d tensor: no other entries, an empty product
    moved = np.moveaxis(x, dim, -1)
    ones = np.ones(moved.shape[:-1] + (1,), dtype=x.dtype)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is nan, silently
        left = np.cumprod(np.concatenate([ones, moved[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, moved[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        return np.moveaxis(left * right, -1, dim)
