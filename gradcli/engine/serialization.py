"""``torch.save`` and ``torch.load``: objects holding tensors (a state_dict, a checkpoint
of a model and its optimiser) written to a file or a file-like object and read back.

The file is gradcli's own: a header line, then a pickle in which each tensor is its
dtype, shape, bytes, ``requires_grad`` and whether it is a Parameter (a tensor that
records a graph is saved as a leaf, as PyTorch saves it). PyTorch's zip archives are
not read. ``load`` with ``weights_only=True`` (PyTorch's default) unpickles only
tensors, numbers, strings, dtypes, sizes and containers of them, so a file cannot run
code; ``weights_only=False`` is plain ``pickle`` for files the program trusts.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle

import numpy as np

from . import dtypes
from .devices import on_cpu
from .tensor import Size, Tensor

_HEADER = b"gradcli save 1\n"


def _rebuild_tensor(dtype, shape, raw, requires_grad, parameter):
    data = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
    tensor = Tensor._make(data, requires_grad=requires_grad)
    tensor._parameter = parameter
    return tensor


def _rebuild_size(dims):
    return Size(dims)


def _rebuild_dtype(name):
    return getattr(dtypes, name)


_DTYPES = {
    id(getattr(dtypes, name)): name
    for name in ("float16", "float32", "float64", "complex64", "complex128", "int32", "int64",
                 "uint8", "bool_")
}  # fmt: skip


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if type(obj) is Tensor:
            data = np.asarray(obj._data)
            parameter = bool(obj._is_parameter())
            state = (
                data.dtype.str,
                data.shape,
                data.tobytes(order="C"),
                obj.requires_grad,
                parameter,
            )
            return _rebuild_tensor, state
        if type(obj) is Size:
            return _rebuild_size, (tuple(obj),)
        if id(obj) in _DTYPES:
            return _rebuild_dtype, (_DTYPES[id(obj)],)
        return NotImplemented


_SAFE = {
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_size"): _rebuild_size,
    (__name__, "_rebuild_dtype"): _rebuild_dtype,
    ("collections", "OrderedDict"): collections.OrderedDict,
    **{("builtins", kind.__name__): kind for kind in (set, frozenset, complex, slice)},
}


class _WeightsOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _SAFE:
            return _SAFE[module, name]
        raise pickle.UnpicklingError(
            f"Weights only load failed: the file holds {module}.{name}, which is not a "
            "tensor, a number, a string or a container of them. If the file's source is "
            "trusted, load it with weights_only=False."
        )


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write ``obj`` to ``f``: a path (created or replaced) or a binary file-like object."""
    buffer = io.BytesIO()
    buffer.write(_HEADER)
    _Pickler(buffer, protocol=max(int(pickle_protocol), 4)).dump(obj)  # bytes as bytes
    if isinstance(f, (str, os.PathLike)):
        _replace(os.fspath(f), buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **kwargs):
    """The object ``save`` wrote to ``f`` (a path or a binary file-like object)."""
    if (
        map_location is not None
        and not callable(map_location)
        and not isinstance(map_location, dict)
    ):
        on_cpu(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            raw = file.read()
    else:
        raw = f.read()
    if not raw.startswith(_HEADER):
        kind = "PyTorch's zip archive" if raw.startswith(b"PK") else "not a file torch.save wrote"
        raise pickle.UnpicklingError(
            f"gradcli cannot load this file ({kind}): gradcli.load reads what gradcli.save wrote"
        )
    body = io.BytesIO(raw[len(_HEADER) :])
    if weights_only:
        return _WeightsOnly(body).load()
    return pickle.Unpickler(body).load()


def _replace(path: str, data: bytes) -> None:
    """``data`` written whole to a temporary file beside ``path``, then renamed over it:
    a run stopped on the way leaves what ``path`` held (as every file gradcli writes;
    the engine sits below ``core/atomic.py``, whose devices and modes a checkpoint
    does not need)."""
    directory, name = os.path.split(os.path.abspath(path))
    temp = os.path.join(directory, f".{name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
