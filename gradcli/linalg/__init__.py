"""``torch.linalg``: the op table's linear algebra under PyTorch's names there.

``import torch.linalg`` (and ``from torch.linalg import solve``) finds this
module. Each function is an entry's (``solve``, ``det``, ``inv``, ``eigvalsh``,
``cross``, ``svdvals``, ``matrix_norm``), or the ``norm`` entry in the forms
``torch.linalg`` gives it (``vector_norm``); ``norm`` chooses between the vector and
the matrix norms as PyTorch's ``linalg_norm`` does.
"""

from __future__ import annotations

from ..engine.ops.decompositions import eigvalsh, solve
from ..engine.ops.every import LIBRARY as _LIBRARY
from ..engine.ops.matrix_norms import matrix_norm, svdvals
from ..engine.ops.products import linalg_cross
from ..engine.ops.reductions import norm as _vector_norm
from ..errors import EngineError

__all__ = ["cross", "det", "eigvalsh", "inv", "matrix_norm", "norm", "solve", "svdvals"]
__all__ += ["vector_norm"]

cross = linalg_cross
det = _LIBRARY["det"]
inv = _LIBRARY["inverse"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002  (PyTorch's)
    """``torch.linalg.vector_norm``: the ``ord``-norm of every entry, or along ``dim``."""
    if dtype is not None:
        x = x.to(dtype)
    return _vector_norm(x, ord, dim, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803  (PyTorch's)
    """``torch.linalg.norm``: a matrix norm over two dims (``dim`` of length 2, or a 2-D
    input without ``dim``) when ``ord`` is given, else a vector norm (the 2-norm of every
    entry without ``ord``)."""
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if dims is not None and len(dims) not in (1, 2):
        raise EngineError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
        )
    if dims is None and (ord is not None) and A.ndim not in (1, 2):
        raise EngineError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D."
        )
    if isinstance(ord, str):
        return matrix_norm(A, ord, dims or [0, 1], keepdim, dtype=dtype)
    if ord is not None and (
        (dims is not None and len(dims) == 2) or (dims is None and A.ndim == 2)
    ):
        return matrix_norm(A, ord, dims or [0, 1], keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
