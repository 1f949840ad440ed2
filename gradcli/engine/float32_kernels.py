"""Float32 elementwise functions computed as PyTorch's CPU kernels compute them, to the bit.

NumPy's float32 ``exp`` and PyTorch's differ in the last bit for many inputs, and that
shows wherever a float32 value is printed. PyTorch (its x86-64 builds, AVX2 or AVX-512)
computes a float32 elementwise function in one of three ways, found by comparing its
results with each candidate's:

- SLEEF's vector functions, to 1 ulp: ``expm1`` and ``log1p`` (``vml.h``'s loop, which
  takes every element through the vector function, the last partial vector included),
  and the vector part of ``sigmoid``, ``silu`` and ``softplus``, composed of SLEEF's
  ``expf``/``log1pf`` and IEEE arithmetic (``cpu_kernel_vec``).
- The C library's scalar functions (glibc's ``expf``, ``log1pf``), for what
  ``cpu_kernel_vec`` leaves to its scalar loop: a 0-d tensor, the elements after the
  last whole pair of vectors (32 elements with AVX-512) of each row, and every element of a row
  whose entries are not adjacent in memory (``vector_lanes``).
- Intel MKL's vector library, VML, in its high-accuracy mode: ``exp``, ``log``, ``sin``,
  ``cos``, ``tanh``, ``sqrt``, ``log2``, ``log10``, ``atan``, ``tan``, ``erf``. Its
  algorithms are not published, so they cannot be replayed; its results are within a
  hair of the correctly rounded value, so these are computed in float64 and rounded
  once (``correctly_rounded``), which gives PyTorch's bits but where VML's last bit errs
  (0.01% of inputs for log2, log10 and tanh; 0.7% for exp; 2-4% for log, sin, cos, atan;
  12% for tan). ``sqrt`` stays IEEE's (NumPy's), which VML misses by an ulp on about one
  input in six.

The vector loop's width is AVX-512's or AVX2's, as PyTorch chooses (``pair``).
The scalar functions are glibc's as of 2.36 (``log1pf`` is fdlibm's there).

SLEEF, and PyTorch's compiled ``tanh_backward``, compute with fused multiply-adds
(``fma``): one rounding of ``a*b + c``, here in float64, where a float32 product is exact,
rounding to odd where rounding the sum to nearest and then to float32 could round twice.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

from . import state

_F32 = np.float32
_F64 = np.float64
_I32 = np.int32


def _c(value):
    """A constant as SLEEF's C source has it: a literal rounded to float32."""
    return _F32(value)


def _fma_exact(a, b, c):
    """``fma`` by a round-to-odd sum: an inexact float64 sum takes the odd one of its two
    neighbours, so that rounding it to float32 (53 > 24 + 1 bits) cannot round twice."""
    p = a.astype(_F64) * b  # exact: 24 + 24 bits fit in 53
    c = c.astype(_F64)
    s = p + c
    v = s - p
    err = (p - (s - v)) + (c - v)  # s + err == p + c exactly (Knuth's two-sum)
    bits = s.view(np.int64)
    even = (err != 0) & ((bits & 1) == 0)
    toward = np.where((err > 0) == (s > 0), 1, -1)
    return np.where(even, bits + toward, bits).view(_F64).astype(_F32)


_LOW29 = np.int64((1 << 29) - 1)  # the bits a float64 has beyond a float32's 24
_HALF29 = np.int64(1 << 28)


def fma(a, b, c):
    """``a*b + c`` rounded once to float32, as the FMA instruction computes it.

    The float64 sum of the exact product and ``c``, rounded to float32, is right unless
    it fell exactly on a midpoint between two float32s (bits beyond the 24th: 1 then
    zeros) or below float32's normal range: those few go through ``_fma_exact``."""
    s = np.asarray(np.multiply(a, b, dtype=_F64) + c)
    out = s.astype(_F32)
    low = s.view(np.int64) & _LOW29
    suspect = (low == _HALF29) | ((low == 0) & ((out.view(_I32) & 0x7F800000) == 0) & (s != 0))
    if suspect.any():
        a, b, c = (np.broadcast_to(v, s.shape)[suspect] for v in (a, b, c))
        out[suspect] = _fma_exact(a, b, c)
    return out


def _fnma(a, b, c):
    """``-(a*b) + c``, fused (``vfmanp``)."""
    return fma(-a, b, c)


def _fms(a, b, c):
    """``a*b - c``, fused (``vfmapn``)."""
    return fma(a, b, -c)


def _rint_i32(x):
    """Round to the nearest int32, ties to even; out of range or nan gives INT_MIN."""
    r = np.rint(x)
    return np.where(np.abs(r) < 2.0**31, r, -(2.0**31)).astype(_I32)


def _pow2i(q):
    return ((q + _I32(0x7F)) << 23).astype(_I32).view(_F32)


def _ldexp2(d, e):
    half = e >> 1
    return d * _pow2i(half) * _pow2i(e - half)


def _ldexp3(d, q):
    return (d.view(_I32) + (q << 23)).astype(_I32).view(_F32)


def _getexp(x):
    """``vgetexp``: floor(log2|x|) as a float; -inf at 0, inf at inf, nan at nan."""
    _, e = np.frexp(np.abs(x))
    out = (e - 1).astype(_F32)
    out = np.where(x == 0, _F32(-np.inf), out)
    return np.where(np.isinf(x), _F32(np.inf), np.where(np.isnan(x), x, out))


def _getmant(x):
    """``vgetmant`` to [0.75, 1.5), nan for a negative x."""
    m, _ = np.frexp(x)  # in [0.5, 1)
    m = (m * 2).astype(_F32)
    m = np.where(m >= 1.5, m * _F32(0.5), m)
    return np.where(x < 0, _F32(np.nan), m)


# Double-float arithmetic (SLEEF's df.h, its FMA variants): a value as a pair hi + lo.
def _df_add_ff(x, y):
    s = x + y
    return s, (x - s) + y


def _df_add2_ff(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _df_add2_df_f(xh, xl, y):
    s = xh + y
    v = s - xh
    return s, ((xh - (s - v)) + (y - v)) + xl


def _df_add2_df_df(xh, xl, yh, yl):
    s = xh + yh
    v = s - xh
    return s, ((xh - (s - v)) + (yh - v)) + (xl + yl)


def _df_add_f_df(x, yh, yl):
    s = x + yh
    return s, ((x - s) + yh) + yl


def _df_add_df_f(xh, xl, y):
    s = xh + y
    return s, ((xh - s) + y) + xl


def _df_add_df_df(xh, xl, yh, yl):
    s = xh + yh
    return s, (((xh - s) + yh) + xl) + yl


def _df_mul_df_f(xh, xl, y):
    s = xh * y
    return s, fma(xl, y, _fms(xh, y, s))


def _df_mul_df_df(xh, xl, yh, yl):
    s = xh * yh
    return s, fma(xh, yl, fma(xl, yh, _fms(xh, yh, s)))


def _df_squ(xh, xl):
    s = xh * xh
    return s, fma(xh + xh, xl, _fms(xh, xh, s))


def _df_div(nh, nl, dh, dl):
    t = _F32(1) / dh
    s = nh * t
    u = _fms(t, nh, s)
    v = _fnma(dl, t, _fnma(dh, t, _F32(1)))
    return s, fma(s, v, fma(nl, t, u))


_R_LN2 = _c(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = _c(0.693145751953125)
_L2L = _c(1.428606765330187045e-06)
_LN2_HI = _c(0.69314718246459960938)
_LN2_LO = _c(-1.904654323148236017e-09)
_EXP_POLY = tuple(
    _c(v)
    for v in (
        0.000198527617612853646278381,
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
)


def sleef_expf(d):
    """SLEEF's ``expf`` (``xexpf``, 1 ulp)."""
    q = _rint_i32(d * _R_LN2)
    qf = q.astype(_F32)
    s = fma(qf, -_L2U, d)
    s = fma(qf, -_L2L, s)
    u = _EXP_POLY[0]
    for coefficient in _EXP_POLY[1:]:
        u = fma(u, s, coefficient)
    u = _F32(1) + fma(s * s, u, s)
    u = _ldexp2(u, q)
    u = np.where(d < -104, _F32(0), u)
    return np.where(d > 100, _F32(np.inf), u)


def _sleef_expk2f(dh, dl):
    """SLEEF's ``expk2f``: exp of a double-float, as a double-float."""
    q = _rint_i32((dh + dl) * _R_LN2)
    qf = q.astype(_F32)
    sh, sl = _df_add2_df_f(dh, dl, qf * -_L2U)
    sh, sl = _df_add2_df_f(sh, sl, qf * -_L2L)
    u = _c(0.1980960224e-3)
    for coefficient in (0.1394256484e-2, 0.8333456703e-2, 0.4166637361e-1):
        u = fma(u, sh, _c(coefficient))
    th, tl = _df_add2_df_f(*_df_mul_df_f(sh, sl, u), _c(0.166666659414234244790680580464))
    th, tl = _df_add2_df_f(*_df_mul_df_df(sh, sl, th, tl), _F32(0.5))
    th, tl = _df_add2_df_df(sh, sl, *_df_mul_df_df(*_df_squ(sh, sl), th, tl))
    th, tl = _df_add_f_df(_F32(1), th, tl)
    th, tl = _ldexp2(th, q), _ldexp2(tl, q)
    under = dh < -104
    return np.where(under, _F32(0), th), np.where(under, _F32(0), tl)


def sleef_expm1f(a):
    """SLEEF's ``expm1f`` (``xexpm1f``, 1 ulp)."""
    dh, dl = _df_add2_df_f(*_sleef_expk2f(a, np.zeros_like(a)), _F32(-1))
    x = dh + dl
    x = np.where(a > _c(88.72283172607421875), _F32(np.inf), x)
    x = np.where(a < _c(-16.635532333438687426013570), _F32(-1), x)
    return np.where((a == 0) & np.signbit(a), a, x)


def _log_tail(e, xh, xl):
    """What SLEEF's ``logf_u1`` and ``log1pf`` share: e*ln2 + 2*atanh(x) in double-float."""
    x2 = xh * xh
    t = _c(+0.3027294874e0)
    t = fma(t, x2, _c(+0.3996108174e0))
    t = fma(t, x2, _c(+0.6666694880e0))
    sh, sl = _df_mul_df_f(_LN2_HI, _LN2_LO, e)
    sh, sl = _df_add_df_df(sh, sl, xh * _F32(2), xl * _F32(2))
    sh, sl = _df_add_df_f(sh, sl, (x2 * xh) * t)
    return sh + sl


def sleef_logf_u1(d):
    """SLEEF's ``logf_u1`` (AVX-512 form: ``vgetexp``, ``vgetmant``, ``vfixupimm``)."""
    e = _getexp(d * _c(1.0 / 0.75))
    e = np.where(e == np.inf, _F32(128), e)
    m = _getmant(d)
    xh, xl = _df_div(*_df_add2_ff(_F32(-1), m), *_df_add2_ff(_F32(1), m))
    r = _log_tail(e, xh, xl)
    r = np.where(d == 0, _F32(-np.inf), r)
    r = np.where(d == np.inf, _F32(np.inf), r)
    return np.where((d < 0) | (d == -np.inf), _F32(np.nan), r)


_LOG1P_BOUND = _F32(float.fromhex("0x1.2ced32p+126"))


def sleef_log1pf(d):
    """SLEEF's ``log1pf`` (``xlog1pf``, 1 ulp, AVX-512 form)."""
    dp1 = d + _F32(1)
    e = _getexp(dp1 * _c(1.0 / 0.75))
    e = np.where(e == np.inf, _F32(128), e)
    t = _ldexp3(np.ones_like(d), -_rint_i32(e))
    m = fma(d, t, t - _F32(1))
    xh, xl = _df_div(m, np.zeros_like(m), *_df_add_ff(_F32(2), m))
    r = _log_tail(e, xh, xl)
    big = ~(d <= _LOG1P_BOUND)
    if big.any():
        r = np.where(big, sleef_logf_u1(d), r)
    r = np.where(d < -1, _F32(np.nan), r)
    r = np.where(d == -1, _F32(-np.inf), r)
    return np.where((d == 0) & np.signbit(d), d, r)


@functools.cache
def _exp2_table():
    """2**(i/32) for i < 32, each the nearest double (integer arithmetic: exact)."""
    table = []
    for i in range(32):
        # m = floor(2**(52 + i/32)): the largest m with m**32 <= 2**(52*32 + i)
        target = 1 << (52 * 32 + i)
        lo, hi = 1 << 52, 1 << 53
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if mid**32 <= target else (lo, mid)
        # round to nearest: up when (m + 1/2)**32 < 2**(52*32 + i)
        m = lo + 1 if (2 * lo + 1) ** 32 < target << 32 else lo
        table.append(m / 2.0**52)
    return np.array(table)


_GLIBC_POLY = tuple(
    float.fromhex(h)
    for h in ("0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3", "0x1.62e42ff0c52d6p-1")
)
_SHIFT = float.fromhex("0x1.8p+52")


def _glibc_exp2_core(z):
    """2**(z/32) in double, as glibc's expf finishes."""
    kd = (z + _SHIFT) - _SHIFT  # z rounded to an integer, ties to even
    r = z - kd
    k = kd.astype(np.int64)
    s = np.ldexp(_exp2_table()[k & 31], (k >> 5).astype(np.int32))
    c0, c1, c2 = (c / 32.0**p for c, p in zip(_GLIBC_POLY, (3, 2, 1)))
    y = (c0 * r + c1) * (r * r) + (c2 * r + 1)
    return y * s


def glibc_expf(x):
    """glibc's ``expf`` (the C library's, which PyTorch's scalar loops call)."""
    xd = np.asarray(x, _F64)
    finite = (
        np.isfinite(xd)
        & (xd <= float.fromhex("0x1.62e42ep6"))
        & (xd >= float.fromhex("-0x1.9fe368p6"))
    )
    y = _glibc_exp2_core(np.where(finite, xd, 0.0) * (float.fromhex("0x1.71547652b82fep+0") * 32))
    y = np.where(finite, y, np.where(xd > 0, np.inf, 0.0))
    return np.where(np.isnan(xd), xd, y).astype(_F32)


_LP = tuple(
    _c(v)
    for v in (
        6.6666668653e-01,
        4.0000000596e-01,
        2.8571429849e-01,
        2.2222198546e-01,
        1.8183572590e-01,
        1.5313838422e-01,
        1.4798198640e-01,
    )
)
_LN2_HI_FD, _LN2_LO_FD = _c(6.9313812256e-01), _c(9.0580006145e-06)


def glibc_log1pf(x):
    """glibc's ``log1pf`` (fdlibm's, in float32 arithmetic), which PyTorch's scalar
    loops call."""
    x = np.asarray(x, _F32)
    hx = x.view(_I32)
    ax = hx & 0x7FFFFFFF
    one = _F32(1)
    # 1 + x split as 2**k * u with u in [sqrt(2)/2, sqrt(2)), and c the rounding of 1 + x
    u = np.where(hx < 0x5A000000, one + x, x)
    hu = u.view(_I32)
    k = (hu >> 23) - 127
    c = np.where(k > 0, one - (u - x), x - (u - one)) / u
    c = np.where(hx < 0x5A000000, c, _F32(0))
    hu = hu & 0x007FFFFF
    low = hu < 0x3504F7
    k = np.where(low, k, k + 1)
    u = np.where(low, hu | 0x3F800000, hu | 0x3F000000).astype(_I32).view(_F32)
    hu = np.where(low, hu, (0x00800000 - hu) >> 2)
    f = u - one
    # -0.2929 < x < 0.41422: no split
    near = (hx < 0x3ED413D7) & ((hx > 0) | (hx <= np.int32(-0x416A09E1)))
    k = np.where(near, 0, k)
    f = np.where(near, x, f)
    hu = np.where(near, 1, hu)
    c = np.where(near, _F32(0), c)
    kf = k.astype(_F32)
    hfsq = _F32(0.5) * f * f
    # |f| < 2**-20
    r_small = hfsq * (one - _F32(0.66666666666666666) * f)
    small = np.where(k == 0, f - r_small, kf * _LN2_HI_FD - ((r_small - (kf * _LN2_LO_FD + c)) - f))
    exact = np.where(k == 0, _F32(0), kf * _LN2_HI_FD + (c + kf * _LN2_LO_FD))
    small = np.where(f == 0, exact, small)
    s = f / (_F32(2) + f)
    z = s * s
    r = _LP[6]
    for coefficient in reversed(_LP[:6]):
        r = coefficient + z * r
    r = z * r
    general = np.where(
        k == 0,
        f - (hfsq - s * (hfsq + r)),
        kf * _LN2_HI_FD - ((hfsq - (s * (hfsq + r) + (kf * _LN2_LO_FD + c))) - f),
    )
    out = np.where(hu == 0, small, general)
    # |x| < 2**-29: x - x*x/2, and x itself below 2**-54
    out = np.where(ax < 0x31000000, np.where(ax < 0x24800000, x, x - x * x * _F32(0.5)), out)
    out = np.where(hx >= 0x7F800000, x + x, out)  # +inf, nan
    out = np.where(x == -1, _F32(-np.inf), out)
    return np.where((x < -1) | np.isnan(x), _F32(np.nan), out)


# ----------------------------------------------------------------------------
# Which elements PyTorch's cpu_kernel_vec computes with vectors, which with scalars
# ----------------------------------------------------------------------------


def pair() -> int:
    """How many elements PyTorch's vector loop takes at a time: two vectors, of 16 floats
    in its AVX-512 build, 8 in its AVX2 build (``ATEN_CPU_CAPABILITY``, else what the CPU
    has: PyTorch's AVX-512 kernels need AVX-512 F, BW, VL and DQ)."""
    if _Pair.width is None:
        chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        if chosen in ("avx512", "avx2"):
            _Pair.width = 32 if chosen == "avx512" else 16
        else:
            try:
                with open("/proc/cpuinfo") as cpuinfo:
                    flags = next((line for line in cpuinfo if line.startswith("flags")), "")
            except OSError:
                flags = ""
            wanted = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
            _Pair.width = 32 if wanted <= set(flags.split()) else 16
    return _Pair.width


class _Pair:
    width = None


#: ``at::internal::GRAIN_SIZE``: from this many elements a loop is shared among threads.
GRAIN = 32768


def vector_lanes(x, threads=1):
    """Where ``cpu_kernel_vec`` uses its vector function on ``x`` (True) and where its
    scalar one: ``TensorIterator`` orders the dims by stride and merges neighbours; each
    row of the innermost dim, if its entries are adjacent, is taken ``pair()`` at a time
    and its last ``len % pair()`` entries one by one; a row of spaced entries is taken one by one.
    A single row of ``GRAIN`` entries or more is first cut among ``threads``."""
    x = np.asarray(x)
    lanes = np.zeros(x.shape, bool)
    if x.ndim == 0 or x.size == 0:
        return lanes
    if any(s < 0 for s in x.strides):  # no tensor's layout: PyTorch's copy is contiguous
        x = np.ascontiguousarray(x)
    dims = sorted((d for d in range(x.ndim) if x.shape[d] > 1), key=lambda d: x.strides[d])
    if not dims:
        lanes[...] = False
        return lanes
    # The innermost run: dims that, merged, step through memory one entry at a time.
    inner, step = [], x.itemsize
    for d in dims:
        if x.strides[d] != step:
            break
        inner.append(d)
        step *= x.shape[d]
    if not inner:
        return lanes
    row = int(np.prod([x.shape[d] for d in inner]))
    order = [d for d in reversed(dims) if d not in inner] + list(reversed(inner))
    rest = [d for d in range(x.ndim) if d not in order]
    shape = [x.shape[d] for d in rest + order]
    flat = np.zeros((int(np.prod(shape)) // row, row), bool)
    if flat.shape[0] == 1 and row >= GRAIN and threads > 1:
        chunk = -(-row // min(threads, -(-row // GRAIN)))
        starts = range(0, row, chunk)
    else:
        chunk, starts = row, (0,)
    width = pair()
    for start in starts:
        length = min(chunk, row - start)
        flat[:, start : start + length - length % width] = True
    return np.transpose(flat.reshape(shape), np.argsort(rest + order))


def _split(x, vector, scalar):
    """``vector`` on the lanes ``vector_lanes`` picks, ``scalar`` on the rest."""
    lanes = vector_lanes(x, state.get_num_threads() if x.size >= GRAIN else 1)
    if lanes.all():
        return vector(x)
    if not lanes.any():
        return scalar(x)
    out = np.empty(x.shape, _F32)
    out[lanes] = vector(x[lanes])
    out[~lanes] = scalar(x[~lanes])
    return out


# ----------------------------------------------------------------------------
# The functions, each as PyTorch computes it
# ----------------------------------------------------------------------------


def correctly_rounded(f):
    """The kernel of a function PyTorch computes with VML: ``f`` in float64, rounded once."""
    return lambda x: f(x.astype(_F64)).astype(_F32)


def _sigmoid(exp):
    return lambda x: _F32(1) / (_F32(1) + exp(-x))


def _silu(exp):
    return lambda x: x / (_F32(1) + exp(-x))


def _erf(x):
    return np.frompyfunc(math.erf, 1, 1)(x).astype(_F64)


# The kernels the op table's entries declare (``float32=``), each on float32 arrays.
expm1 = sleef_expm1f
log1p = sleef_log1pf
erf = correctly_rounded(_erf)
_sigmoid_vector, _sigmoid_scalar = _sigmoid(sleef_expf), _sigmoid(glibc_expf)
_silu_vector, _silu_scalar = _silu(sleef_expf), _silu(glibc_expf)


def sigmoid(x):
    """1 / (1 + exp(-x)), with SLEEF's exp on vectors and glibc's on the rest."""
    return _split(x, _sigmoid_vector, _sigmoid_scalar)


def silu(x):
    """x / (1 + exp(-x)), as ``sigmoid``."""
    return _split(x, _silu_vector, _silu_scalar)


def _softplus(exp, log1p):
    def softplus(x, beta, threshold):
        bx = x * beta
        return np.where(bx > threshold, x, log1p(exp(bx)) / beta)

    return softplus


_softplus_vector = _softplus(sleef_expf, sleef_log1pf)
_softplus_scalar = _softplus(glibc_expf, glibc_log1pf)


def softplus(x, beta=1.0, threshold=20.0):
    """log1p(exp(beta*x)) / beta, or x where beta*x > threshold; as ``sigmoid``."""
    beta, threshold = _F32(beta), _F32(threshold)
    return _split(
        x,
        lambda v: _softplus_vector(v, beta, threshold),
        lambda v: _softplus_scalar(v, beta, threshold),
    )


def tanh_backward(g, y):
    """g * (1 - y*y), the multiply-add fused as PyTorch's compiled kernel has it."""
    return g * fma(-y, y, _F32(1))


_FLOAT32 = np.dtype(np.float32)


def routed(forward, kernel):
    """``forward``, but ``kernel`` where every array among the arguments is float32."""

    def float32_or_forward(*args):
        # Every array float32; a number is a parameter (softplus's beta).
        if getattr(args[0], "dtype", None) == _FLOAT32 and all(
            getattr(a, "dtype", _FLOAT32) == _FLOAT32 for a in args
        ):
            with np.errstate(all="ignore"):
                return kernel(*[np.asarray(a) if hasattr(a, "dtype") else a for a in args])
        return forward(*args)

    float32_or_forward.__name__ = getattr(forward, "__name__", "forward")
    float32_or_forward.__doc__ = getattr(forward, "__doc__", None)
    return float32_or_forward
