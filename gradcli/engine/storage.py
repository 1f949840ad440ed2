"""``Tensor.untyped_storage()``, ``data_ptr()``, ``storage_offset()``, ``stride()`` and
``element_size()``: where a tensor's numbers lie in memory, as tutorials print it to show
that a view shares its base's memory and a copy does not.

A tensor's storage is the NumPy array that owns the memory its array looks into (the
end of its chain of ``.base``): a view (``x[1]``, ``x.t()``, ``x.view(3, 2)``) has its
base's storage and a copy (``x.clone()``) one of its own, as in PyTorch, with the
addresses the numbers really have.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .devices import CPU


def _owner(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _address(array: np.ndarray) -> int:
    """The lowest address of ``array``'s numbers."""
    start = array.__array_interface__["data"][0]
    return start + sum(s * (n - 1) for s, n in zip(array.strides, array.shape) if s < 0 and n)


class UntypedStorage:
    """The bytes of memory under one or more tensors (``torch.UntypedStorage``)."""

    __slots__ = ("_array",)
    device = CPU

    def __init__(self, array: np.ndarray):
        self._array = _owner(array)

    def data_ptr(self) -> int:
        return _address(self._array) if self._array.nbytes else 0

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    size = nbytes

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def tolist(self) -> list:
        return list(ctypes.string_at(self.data_ptr(), self.nbytes())) if self.nbytes() else []

    def __getitem__(self, index):
        return self.tolist()[index]

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def __repr__(self) -> str:
        # PyTorch's: each byte on a line of its own, then the kind and size.
        values = "\n ".join(str(b) for b in self.tolist())
        return f" {values}\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


def untyped_storage(self) -> UntypedStorage:
    return UntypedStorage(self._data)


def data_ptr(self) -> int:
    """The address of the tensor's first number (0 when it has none, as in PyTorch)."""
    if not self._data.nbytes and not _owner(self._data).nbytes:
        return 0
    return self._data.__array_interface__["data"][0]


def element_size(self) -> int:
    return int(self._data.itemsize)


def storage_offset(self) -> int:
    """How many numbers into its storage the tensor starts."""
    if not _owner(self._data).nbytes:
        return 0
    return (data_ptr(self) - _address(_owner(self._data))) // self._data.itemsize


def stride(self, dim=None):
    """How many numbers apart the entries along each dim lie (PyTorch's, in numbers)."""
    strides = tuple(s // self._data.itemsize for s in self._data.strides)
    return strides if dim is None else strides[dim]


METHODS = {
    "untyped_storage": untyped_storage,
    "data_ptr": data_ptr,
    "element_size": element_size,
    "storage_offset": storage_offset,
    "stride": stride,
}
