"""``torch.special``: the op table's special functions under PyTorch's names there.

``import torch.special`` (and ``from torch.special import erf``) finds this module.
Each function is an entry's (``expit`` is ``sigmoid``'s, ``gammaln`` ``lgamma``'s,
``psi`` ``digamma``'s; ``logit``, ``xlog1py``, ``entr``, ``ndtr``, ``ndtri``,
``log_ndtr``, the Bessel functions ``i0`` ... ``i1e``, ``multigammaln`` and ``zeta``
are declared in ``engine/ops/special_functions.py``); ``softmax`` and ``log_softmax``
take ``dtype`` as PyTorch's do here. The functions of ``torch.special`` that gradcli
lacks raise an error that says so. One node differs: ``round``'s is RoundBackward0
(PyTorch's special.round is round with decimals, RoundBackward1).
"""

from __future__ import annotations

from ..engine.ops.conversion import to_dtype
from ..engine.ops.every import LIBRARY as _LIBRARY
from ..errors import NotImplementedByGradcli

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "expit", "expm1", "gammaln", "i0"]
__all__ += ["i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp"]
__all__ += ["multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax"]
__all__ += ["xlog1py", "xlogy", "zeta"]

digamma = psi = _LIBRARY["digamma"]
entr = _LIBRARY["entr"]
erf = _LIBRARY["erf"]
erfc = _LIBRARY["erfc"]
erfinv = _LIBRARY["erfinv"]
expit = _LIBRARY["sigmoid"]
expm1 = _LIBRARY["expm1"]
gammaln = _LIBRARY["lgamma"]
i0, i0e, i1, i1e = (_LIBRARY[n] for n in ("i0", "i0e", "i1", "i1e"))
log1p = _LIBRARY["log1p"]
log_ndtr = _LIBRARY["log_ndtr"]
logit = _LIBRARY["logit"]
logsumexp = _LIBRARY["logsumexp"]
multigammaln = _LIBRARY["multigammaln"]
ndtr = _LIBRARY["ndtr"]
ndtri = _LIBRARY["ndtri"]
polygamma = _LIBRARY["polygamma"]
round = _LIBRARY["round"]  # noqa: A001  (PyTorch's name)
sinc = _LIBRARY["sinc"]
xlog1py = _LIBRARY["xlog1py"]
xlogy = _LIBRARY["xlogy"]
zeta = _LIBRARY["zeta"]


def softmax(input, dim, *, dtype=None):  # noqa: A002  (PyTorch's names)
    """``torch.special.softmax``: along ``dim``, the input cast to ``dtype`` first."""
    return _LIBRARY["softmax"](input if dtype is None else to_dtype(input, dtype), dim)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002  (PyTorch's names)
    """``torch.special.log_softmax``: along ``dim``, the input cast to ``dtype`` first."""
    return _LIBRARY["log_softmax"](input if dtype is None else to_dtype(input, dtype), dim)


# The functions of PyTorch's torch.special that gradcli does not have.
_MISSING = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "erfcx",
    "exp2", "gammainc", "gammaincc", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "spherical_bessel_j0",
)  # fmt: skip


def __getattr__(name):
    if name in _MISSING:
        raise NotImplementedByGradcli(f"torch.special.{name} is not implemented in gradcli")
    raise AttributeError(f"module 'torch.special' has no attribute '{name}'")
