"""The complex derivative f'(z) of a holomorphic program (``jacobian --holomorphic``).

PyTorch's gradient of a real output is ``d/d(Re z) + i d/d(Im z)``; of the real part u
of a holomorphic ``f = u + iv`` it is ``u_x + i u_y = conj(f'(z))``, and of the imaginary
part v it is ``v_x + i v_y = i conj(f'(z))`` (Cauchy–Riemann: ``v_x = -u_y``,
``v_y = u_x``). Both are computed, so each gives f'(z): where they disagree the output is
not holomorphic there, and the command says so instead of giving a number.
"""

from __future__ import annotations

import numpy as np

from ..engine.dtypes import complex128
from ..errors import GradcliError

#: How far apart the two readings of f'(z) may be, relative to the larger: both are exact
#: derivatives, so only rounding separates them where f is holomorphic.
RTOL = 1e-9


def holomorphic_jacobian(f, point, names):
    """``f'(z)`` for each input of ``point`` (tensors), as arrays ``out.shape + z.shape``;
    an error where the Cauchy–Riemann equations fail."""
    from ..autograd import functional

    point = tuple(z if z.is_complex() else z.to(complex128) for z in point)

    def part(take):
        def g(*zs):
            out = f(*zs)
            return take(out) if out.is_complex() else (out if take is _real else out * 0)

        return g

    from_real = functional.jacobian(part(_real), point)
    from_imag = functional.jacobian(part(_imag), point)
    return [
        derivative(name, a.numpy(), b.numpy()) for name, a, b in zip(names, from_real, from_imag)
    ]


def derivative(name: str, from_real, from_imag, where: str = "here") -> np.ndarray:
    """f'(z) from PyTorch's Jacobians of the real part and of the imaginary part (arrays
    ``out.shape + z.shape``), or the error that names the input (``where``: the point)."""
    d_real = np.conj(from_real)
    d_imag = 1j * np.conj(from_imag)
    scale = float(np.max(np.abs(np.concatenate([d_real.ravel(), d_imag.ravel()])), initial=0))
    gap = float(np.max(np.abs(d_real - d_imag), initial=0.0))
    if not np.isfinite(gap) or gap > RTOL * max(scale, np.finfo(float).tiny):
        raise GradcliError(
            f"the output is not holomorphic in {name} {where}: the Cauchy–Riemann equations "
            f"fail by {gap:.3g} (the real part gives f' = {_text(d_real)}, the imaginary "
            f"part {_text(d_imag)})"
        )
    return (d_real + d_imag) / 2


def _real(out):
    return out.real


def _imag(out):
    return out.imag


def _text(array):
    text = " ".join(f"{complex(v):.6g}" for v in np.asarray(array).reshape(-1)[:4])
    return text + (" ..." if np.size(array) > 4 else "")
