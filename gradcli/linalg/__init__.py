"""``torch.linalg``: the op table's linear algebra under PyTorch's names there.

``import torch.linalg`` (and ``from torch.linalg import solve``) finds this
module. Each function is an entry's (``solve``, ``det``, ``inv``, ``eigvalsh``,
``cross``), or the ``norm`` entry in the forms ``torch.linalg`` gives it: a vector
norm of every entry (``vector_norm``, and ``norm`` without ``ord`` or of a
vector) or the Frobenius norm of matrices. Other matrix norms are not here: asking
for one says so.
"""

from __future__ import annotations

from ..engine.ops import LIBRARY as _LIBRARY
from ..engine.ops.decompositions import eigvalsh, solve
from ..engine.ops.products import linalg_cross
from ..engine.ops.reductions import norm as _vector_norm
from ..errors import NotImplementedByGradcli

__all__ = ["cross", "det", "eigvalsh", "inv", "norm", "solve", "vector_norm"]

cross = linalg_cross
det = _LIBRARY["det"]
inv = _LIBRARY["inverse"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002  (PyTorch's)
    """``torch.linalg.vector_norm``: the ``ord``-norm of every entry, or along ``dim``."""
    if dtype is not None:
        x = x.to(dtype)
    return _vector_norm(x, ord, dim, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803  (PyTorch's)
    """``torch.linalg.norm``: without ``ord``, the 2-norm of every entry (or along ``dim``);
    a vector's ``ord``-norm; a matrix's Frobenius norm (``ord='fro'``)."""
    matrix = dim is not None and not isinstance(dim, int) and len(dim) == 2
    matrix = matrix or (dim is None and A.ndim == 2)
    if ord is None or (ord == "fro" and matrix):
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)  # the Frobenius norm of a matrix
    if not matrix and not isinstance(ord, str):
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    raise NotImplementedByGradcli(
        f"torch.linalg.norm with ord={ord!r} of a matrix is not implemented in gradcli: "
        "ord=None and ord='fro' are, and torch.linalg.vector_norm for vectors"
    )
