"""dtype objects with PyTorch's names, over NumPy dtypes."""

from __future__ import annotations

import numpy as np

from . import state


class dtype:
    """A tensor element type: ``gradcli.float32`` wraps ``numpy.float32``."""

    __slots__ = ("name", "numpy", "is_floating_point", "is_complex")

    def __init__(self, name: str, numpy_dtype):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_complex = self.numpy.kind == "c"

    def __repr__(self) -> str:
        return f"torch.{self.name}"  # as PyTorch prints it: the program says ``torch``

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self.numpy == other.numpy
        return NotImplemented

    def __hash__(self):
        return hash(self.numpy)


float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
float16 = dtype("float16", np.float16)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
uint8 = dtype("uint8", np.uint8)  # of a generator's state
bool_ = dtype("bool", np.bool_)
complex64 = dtype("complex64", np.complex64)
complex128 = dtype("complex128", np.complex128)

_BY_NUMPY = {
    d.numpy: d
    for d in (float32, float64, float16, int32, int64, uint8, bool_, complex64, complex128)
}


# The scalar type names PyTorch's messages use ("Got: Long").
_SCALAR_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int32": "Int",
    "int64": "Long",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def scalar_name(np_dtype) -> str:
    name = from_numpy(np_dtype).name
    return _SCALAR_NAMES.get(name, name.capitalize())


def from_numpy(np_dtype) -> dtype:
    found = _BY_NUMPY.get(np.dtype(np_dtype))
    return found if found is not None else dtype(str(np_dtype), np_dtype)


# PyTorch's legacy tensor types, by dtype (torch.FloatTensor is a float32 tensor).
_TENSOR_TYPES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}
_BY_TENSOR_TYPE = {f"torch.{name}": dtype_name for dtype_name, name in _TENSOR_TYPES.items()}


def tensor_type_name(d: dtype) -> str:
    """The legacy tensor type of a dtype: ``FloatTensor`` for float32."""
    return _TENSOR_TYPES.get(d.name, d.name)


def to_numpy(d):
    """A NumPy dtype from a gradcli dtype, a NumPy dtype, a Python type, a legacy tensor
    type (``torch.FloatTensor``) or its name (``"torch.FloatTensor"``); None stays None."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.numpy
    if isinstance(d, str) and d in _BY_TENSOR_TYPE:
        return np.dtype(_BY_TENSOR_TYPE[d])
    if isinstance(getattr(d, "dtype", None), dtype) and isinstance(d, type):
        return d.dtype.numpy
    if d is float:
        return state.default_dtype()
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    return np.dtype(d)


def repr_suffix(np_dtype) -> str | None:
    """The ``dtype=...`` a tensor's repr shows: none for the default float, int64 and bool."""
    default = state.default_dtype()
    if np_dtype in (default, np.int64, np.bool_) or np_dtype == complex_of(default):
        return None
    return f"torch.{from_numpy(np_dtype).name}"


def set_default_dtype(d) -> None:
    d = to_numpy(d)
    if d.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    state.set_default_dtype(d)


def complex_of(np_dtype) -> np.dtype:
    """The complex dtype of a float's precision, as PyTorch pairs them: float64 ->
    complex128, any other -> complex64."""
    return np.dtype(np.complex128 if np.dtype(np_dtype) == np.float64 else np.complex64)


def get_default_dtype() -> dtype:
    return from_numpy(state.default_dtype())
