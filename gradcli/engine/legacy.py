"""PyTorch's legacy tensor types: ``torch.FloatTensor``, ``torch.LongTensor`` and their kin.

Each is a class of its own whose instances are the tensors of its dtype:
``torch.FloatTensor([1, 2])`` makes a float32 tensor, ``torch.FloatTensor(2, 3)``
one of that size, and ``isinstance(t, torch.FloatTensor)`` asks t's dtype. A
tensor type stands for its dtype in ``x.type(torch.DoubleTensor)``.
"""

from __future__ import annotations

import numbers

from . import dtypes
from .ops.conversion import to_dtype
from .ops.creation import tensor, zeros
from .tensor import Tensor


class TensorType(type):
    """The class of the legacy tensor types (PyTorch's ``torch.tensortype``)."""

    def __call__(cls, *args):
        if args and all(isinstance(a, numbers.Integral) for a in args):
            return zeros(*args, dtype=cls.dtype)  # PyTorch leaves them uninitialised
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): expected data or sizes, got {args!r}")
        data = args[0] if args else []
        if type(data) is Tensor:
            return to_dtype(data, cls.dtype)
        return tensor(data, dtype=cls.dtype)

    def __instancecheck__(cls, obj):
        return type(obj) is Tensor and obj.dtype == cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


# Printed as PyTorch prints the type of torch.FloatTensor: <class 'torch.tensortype'>.
TensorType.__module__, TensorType.__qualname__ = "torch", "tensortype"


def _tensor_type(d):
    name = dtypes.tensor_type_name(d)
    return TensorType(name, (), {"dtype": d, "__doc__": f"a {d.name} tensor (legacy spelling)"})


FloatTensor = _tensor_type(dtypes.float32)
DoubleTensor = _tensor_type(dtypes.float64)
HalfTensor = _tensor_type(dtypes.float16)
IntTensor = _tensor_type(dtypes.int32)
LongTensor = _tensor_type(dtypes.int64)
BoolTensor = _tensor_type(dtypes.bool_)
