"""Complex numbers' own functions: real and imaginary parts, conjugate, angle, sgn, a
complex number from its parts (``complex``, ``polar``) and back (``view_as_real``).

Their rules follow PyTorch's conjugate-Wirtinger convention (``complex_rules``): each
gives, for an input ``z``, ``dL/d(Re z) + i dL/d(Im z)`` of a real ``L``.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError
from .. import batching_rules as batching
from ..declared_samples import Sample
from ..optable import Table, over
from ..tensor import Tensor
from .comparison import where
from .creation import zero_rule
from .elementwise import abs, cos, sgn, sin  # noqa: F401  (sgn: a function here too)

table = Table("complex")
# Their samples for the op-sample matrix: real inputs (the matrix runs in float64).
_SAMPLES = (Sample("2-d", [(2, 3)]), Sample("0-d", [()]))
# diff differentiates real programs: complex numbers have no symbolic derivative there.
_NO_FORM = "diff differentiates real programs only; complex numbers have no form there yet"
_FUNCTION = dict(kind="complex", function=True, batching=batching.elementwise, symbolic=_NO_FORM)
_PARTS = dict(_FUNCTION, method=True)


def _real(x):
    return np.real(x).copy() if np.iscomplexobj(x) else np.array(x, copy=True)


def _imag(x):
    if not np.iscomplexobj(x):
        raise EngineError("imag is not implemented for tensors with non-complex dtypes.")
    return np.imag(x).copy()


def _angle(x):
    if np.iscomplexobj(x):
        return np.angle(x)
    x = np.asarray(x)
    # PyTorch's angle of a real number: pi below 0, else 0 (-0 included), nan at nan.
    return np.where(x < 0, math.pi, np.where(np.isnan(x), x, 0.0)).astype(x.dtype)


def _angle_rule(g, ans, x):
    # d angle / dz in PyTorch's convention: g * z / |z|**2 * i; 0 at z = 0.
    magnitude = abs(x)
    return where(magnitude == 0, 0.0, g * x / (magnitude * magnitude) * 1j)


def _view_as_real(x):
    if not np.iscomplexobj(x):
        raise EngineError("view_as_real is only supported for complex tensors")
    return np.stack([np.real(x), np.imag(x)], axis=-1)


def _from_parts(re, im):
    re, im = np.asarray(re), np.asarray(im)
    if re.dtype != im.dtype or re.dtype.kind != "f" or re.dtype == np.float16:
        raise EngineError(
            f"Expected both inputs to be Float or Double tensors but got {re.dtype} and {im.dtype}"
        )
    return re + 1j * im if re.dtype == np.float64 else (re + 1j * im).astype(np.complex64)


def _polar(r, theta):
    z = _from_parts(np.asarray(r) * np.cos(theta), np.asarray(r) * np.sin(theta))
    return z


def _unit(theta):
    return cos(theta) + sin(theta) * 1j


# fmt: off
imag = table.op("imag", _imag, grad_fn="ImagBackward0", rules=(lambda g, ans, x: g * 1j,),
                saves=False, doc="the imaginary part of z (complex input only, as PyTorch)",
                words="d im(a)/d(im a) = 1", complex=(lambda g, ans, x: g * 1j,), **_FUNCTION,
                attribute="language",
                samples=(Sample("complex only", [(3,)]),))
angle = table.op("angle", _angle, grad_fn="AngleBackward0", rules=(zero_rule,),
                 doc="the argument of z in (-pi, pi]; pi below 0 and 0 above for a real x",
                 words="d angle(a)/da = i*a/|a|**2", domain=("nonzero",), samples=_SAMPLES,
                 complex=(_angle_rule,), **_PARTS, other_names=("arg",),
                 kink="gradient 0 at 0, as PyTorch")
view_as_real = table.op(
    "view_as_real", _view_as_real, grad_fn="ViewAsRealBackward0", saves=False,
    rules=(lambda g, ans, x: g[..., 0] + g[..., 1] * 1j,),
    doc="z as its real and imaginary parts, a last dimension of 2 (complex input only)",
    words="d view_as_real(a) = (d re a, d im a)", **_FUNCTION,
    complex=(lambda g, ans, x: g[..., 0] + g[..., 1] * 1j,),
    samples=(Sample("complex only", [(3,)]),))
complex = table.op(  # noqa: A001  (PyTorch's name)
    "complex", _from_parts, "(real: Tensor, imag: Tensor)", grad_fn="ComplexBackward0",
    rules=(lambda g, ans, re, im: real(g), lambda g, ans, re, im: imag(g)), saves=False,
    complex=(lambda g, ans, re, im: real(g), lambda g, ans, re, im: imag(g)),
    doc="complex(re, im): re + i*im, of two float tensors", **_FUNCTION,
    words=("d complex(a, b)/da = 1", "d complex(a, b)/db = i"),
    samples=(Sample("2-d", [(2, 3), (2, 3)]),))
polar = table.op(
    "polar", _polar, "(abs: Tensor, angle: Tensor)", grad_fn="PolarBackward0",
    rules=(lambda g, ans, r, t: real(conj(g) * _unit(t)),
           lambda g, ans, r, t: real(conj(g) * ans * 1j)),
    complex=(lambda g, ans, r, t: real(conj(g) * _unit(t)),
             lambda g, ans, r, t: real(conj(g) * ans * 1j)),
    doc="polar(r, theta): r * (cos(theta) + i*sin(theta))", **_FUNCTION,
    words=("d polar(r, t)/dr = exp(i*t)", "d polar(r, t)/dt = i*polar(r, t)"),
    samples=(Sample("2-d", [(2, 3), (2, 3)]),), domain=("positive", "real"))
# fmt: on


def _itself_if_real(name):
    """real(x) and conj(x) of a real tensor are x itself, as in PyTorch (no node)."""

    def call(over, input):  # noqa: A002  (the schema's name)
        if type(input) is Tensor and not input.is_complex():
            return input
        return over[name](input)

    return call


real = table.composite(
    "real",
    "(input: Tensor)",
    doc="the real part of z (x itself for a real x)",
    overloads=[over("RealBackward0", (lambda g, ans, x: g,), forward=_real, saves=False)],
    words="d re(a)/d(re a) = 1",
    complex=(lambda g, ans, x: g + 0j,),
    **_FUNCTION,
    domain=("real",),
    attribute="language",
    samples=_SAMPLES,
)(_itself_if_real("RealBackward0"))
conj = table.composite(
    "conj", "(input: Tensor)", doc="the complex conjugate of z (x itself for a real x)",
    overloads=[over("ConjBackward0", (lambda g, ans, x: g,), forward=np.conj, saves=False)],
    words="d conj(a) = conj(d a)", domain=("real",), samples=_SAMPLES,
    complex=(lambda g, ans, x: conj(g),), **_PARTS,
)(_itself_if_real("ConjBackward0"))  # fmt: skip
