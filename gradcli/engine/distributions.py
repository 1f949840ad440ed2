"""PyTorch's CPU sampling kernels, step for step, on a ``generator.Generator``.

Each function draws the words PyTorch's kernel draws, in its order, and
transforms them with its arithmetic, so the results are PyTorch's to the bit:

- uniform: 24 random bits of one word (float32) or 53 of two (float64), times
  2**-24 or 2**-53, then ``x * (to - from) + from`` rounded once (the fused
  multiply-add of PyTorch's vectorised kernels, AVX2 and AVX512 alike).
- normal, fewer than 16 numbers (or a non-contiguous target): Box-Muller in
  float64 on two uniforms, one number per call and the other cached in the
  generator for the next call (``next_double_normal``).
- normal, 16 numbers and more: every uniform first, then Box-Muller on blocks
  of 16 (the first 8 with the next 8), the last block recomputed from 16 fresh
  uniforms when 16 does not divide the size. float64 uses the C library's log,
  cos and sin (Python's ``math`` calls the same functions); float32 follows the
  AVX2 kernel PyTorch runs on x86 (``avx_mathfun``'s Cephes log and sincos in
  float32, with the fused multiply-adds its compiler emits).
- integers in [low, high): a word (two when the range needs 64 bits) modulo the
  range, plus low; randperm: the Fisher-Yates swaps of PyTorch's loop.
- bernoulli: a uniform below p; exponential: ``-log1p(-u) / lambd``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import EngineError

_f32 = np.float32


def _float_kind(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        name = {"float16": "Half"}.get(dtype.name, dtype.name)
        raise EngineError(f"random numbers of dtype {name} are not implemented in gradcli")
    return dtype


def _units(gen, n, dtype):
    """``n`` uniforms in [0, 1) of ``dtype``, as ``uniform_real_distribution(0, 1)``."""
    if np.dtype(dtype) == np.float64:
        bits = gen.random64(n) & np.uint64(2**53 - 1)
        return bits.astype(np.float64) * 2.0**-53
    bits = gen.random(n) & np.uint64(2**24 - 1)
    return bits.astype(_f32) * _f32(2.0**-24)


def _fma32(a, b, c):
    # float32 a*b is exact in float64; one rounding of the sum then another to float32
    # differs from a fused rounding only when the sum lies within 2**-29 ulp of a tie.
    return (np.asarray(a, np.float64) * b + c).astype(_f32)


def _fma64(a, b, c):
    """``a * b + c`` rounded once, as the fused multiply-add PyTorch's compiler emits:
    the product's error by Dekker's split, the sum's by Knuth's two-sum."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b

    def split(x):
        t = 134217729.0 * x  # 2**27 + 1
        hi = t - (t - x)
        return hi, x - hi

    (ah, al), (bh, bl) = split(a), split(b)
    error = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    return s + (((p - (s - v)) + (c - v)) + error)


def uniform(gen, shape, dtype, low=0.0, high=1.0) -> np.ndarray:
    dtype = _float_kind(dtype)
    low, high = dtype.type(low), dtype.type(high)
    if not low <= high:
        raise EngineError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > "
            f"to={_num(high)}"
        )
    n = math.prod(shape)
    with gen._lock:
        x = _units(gen, n, dtype)
    if low != 0 or high != 1:
        fused = _fma64 if dtype == np.float64 else _fma32
        x = fused(x, high - low, low)
    return x.astype(dtype).reshape(shape)


def _num(v):
    v = float(v)
    return int(v) if v.is_integer() else v


# ----- normal -----


def normal(gen, shape, dtype, mean=0.0, std=1.0, contiguous=True) -> np.ndarray:
    dtype = _float_kind(dtype)
    if not std >= 0.0:
        raise EngineError(f"normal expects std >= 0.0, but found std {_num(std)}")
    n = math.prod(shape)
    with gen._lock:
        if n >= 16 and contiguous:
            out = _fill32(gen, n, mean, std) if dtype == np.float32 else _fill64(gen, n, mean, std)
        else:
            out = np.array([_one_normal(gen, mean, std) for _ in range(n)], dtype=np.float64)
    return out.astype(dtype).reshape(shape)


def _one_normal(gen, mean, std) -> float:
    """``normal_distribution<double>``: Box-Muller, the second number cached."""
    if gen.next_double_normal is not None:
        z, gen.next_double_normal = gen.next_double_normal, None
        return float(_fma64(z, std, mean))
    u1, u2 = _units(gen, 2, np.float64)
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen.next_double_normal = r * math.sin(theta)
    return float(_fma64(r * math.cos(theta), std, mean))


def _blocks(gen, n, dtype, block):
    """PyTorch's ``normal_fill``: every uniform, each block of 16 transformed, and the
    tail's last 16 drawn again and transformed when 16 does not divide n."""
    data = _units(gen, n, dtype)
    whole = n - n % 16
    data[:whole] = block(data[:whole].reshape(-1, 2, 8)).reshape(-1)
    if n % 16:
        data[n - 16 :] = block(_units(gen, 16, dtype).reshape(1, 2, 8)).reshape(-1)
    return data


def _fill64(gen, n, mean, std):
    def block(d):
        u1, u2 = 1 - d[:, 0].ravel(), d[:, 1].ravel()
        radius = np.sqrt(-2 * np.fromiter(map(math.log, u1), np.float64, u1.size))
        theta = 2.0 * math.pi * u2
        cos = np.fromiter(map(math.cos, theta), np.float64, theta.size)
        sin = np.fromiter(map(math.sin, theta), np.float64, theta.size)
        pair = np.stack([_fma64(radius * cos, std, mean), _fma64(radius * sin, std, mean)])
        return pair.reshape(2, -1, 8).transpose(1, 0, 2)

    return _blocks(gen, n, np.float64, block)


def _fill32(gen, n, mean, std):
    mean, std = _f32(mean), _f32(std)

    def block(d):
        radius = np.sqrt(_f32(-2) * _log_ps(_f32(1) - d[:, 0]))
        sin, cos = _sincos_ps(_f32(2.0 * math.pi) * d[:, 1])
        return np.stack([_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)], 1)

    return _blocks(gen, n, _f32, block)


# avx_mathfun's Cephes constants, in float32.
_LOG_P = [_f32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)]  # fmt: skip
_LOG_Q1, _LOG_Q2 = _f32(-2.12194440e-4), _f32(0.693359375)
_DP = (_f32(-0.78515625), _f32(-2.4187564849853515625e-4), _f32(-3.77489497744594108e-8))
_SIN_P = (_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1))
_COS_P = (_f32(2.443315711809948e-5), _f32(-1.388731625493765e-3), _f32(4.166664568298827e-2))


def _log_ps(x):
    """``log256_ps``: log of the mantissa in [sqrt(1/2), sqrt(2)) by a polynomial, plus
    the exponent times log 2 in two parts."""
    invalid = x <= 0
    x = np.maximum(x, np.array(0x00800000, np.int32).view(_f32))  # no subnormals
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_f32) + _f32(1)
    x = ((bits & ~0x7F800000) | np.array(0.5, _f32).view(np.int32)).view(_f32)
    small = x < _f32(0.707106781186547524)
    e = e - small.astype(_f32)
    x = (x - _f32(1)) + np.where(small, x, _f32(0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = _fma32(y * x, z, e * _LOG_Q1)
    y = y - z * _f32(0.5)
    x = _fma32(e, _LOG_Q2, x + y)
    return np.where(invalid, _f32(np.nan), x)


def _sincos_ps(x):
    """``sincos256_ps``: reduction by pi/4 in three parts, then Cephes's two polynomials."""
    negative = np.signbit(x)
    x = np.abs(x)
    j = (x * _f32(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_f32)
    for dp in _DP:
        x = _fma32(y, dp, x)
    sin_negative = negative ^ ((j & 4) != 0)
    cos_negative = (~(j - 2) & 4) != 0
    first = (j & 2) == 0  # the cosine polynomial gives the cosine, the sine's the sine
    z = x * x
    c = np.full_like(x, _COS_P[0])
    for p in _COS_P[1:]:
        c = _fma32(c, z, p)
    c = _fma32(c * z, z, -(z * _f32(0.5))) + _f32(1)
    s = np.full_like(x, _SIN_P[0])
    for p in _SIN_P[1:]:
        s = _fma32(s, z, p)
    s = _fma32(s * z, x, x)
    sin, cos = np.where(first, s, c), np.where(first, c, s)
    return np.where(sin_negative, -sin, sin), np.where(cos_negative, -cos, cos)


# ----- integers -----


def integers(gen, shape, low, high) -> np.ndarray:
    """``random_(from, to)``: a word modulo the range (two words from 2**32 up), plus low."""
    span = int(high) - int(low)
    if span <= 0:
        raise EngineError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    n = math.prod(shape)
    with gen._lock:
        words = gen.random64(n) if span >= 2**32 else gen.random(n)
    return ((words % np.uint64(span)).astype(np.int64) + int(low)).reshape(shape)


def whole_numbers(gen, shape, dtype) -> np.ndarray:
    """``random_()``: every integer ``dtype`` holds exactly from 0 up, as PyTorch's
    ``uniform_int``: a word (two for 64-bit types) modulo the type's top plus one."""
    dtype = np.dtype(dtype)
    n = math.prod(shape)
    if dtype == np.bool_:
        top, wide = 2, False
    elif dtype.kind == "f":
        top, wide = 2 ** (np.finfo(dtype).nmant + 1) + 1, dtype.itemsize == 8
    elif dtype.kind in "iu":
        top, wide = int(np.iinfo(dtype).max) + 1, dtype.itemsize == 8
    else:
        raise EngineError(f"random_ of dtype {dtype.name} is not implemented in gradcli")
    with gen._lock:
        words = gen.random64(n) if wide else gen.random(n)
    return (words % np.uint64(top)).astype(dtype).reshape(shape)


def permutation(gen, n) -> np.ndarray:
    """``randperm_cpu``: for i in 0 .. n-2 swap r[i] with r[i + random() % (n - i)]."""
    if n >= (2**32 - 1) // 20:
        raise EngineError("randperm of 214748364 and more numbers is not implemented in gradcli")
    with gen._lock:
        words = gen.random(n - 1) if n > 1 else np.zeros(0, np.uint64)
    offsets = (words % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64).tolist()
    r = list(range(n))
    for i, z in enumerate(offsets):
        r[i], r[i + z] = r[i + z], r[i]
    return np.array(r, dtype=np.int64)


# ----- from uniforms -----


def bernoulli(gen, p, dtype=np.float64) -> np.ndarray:
    """One draw per entry of ``p``: 1 where a uniform of ``dtype`` (float64 for a Python
    number, else p's own float type) is below p."""
    p = np.asarray(p)
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise EngineError("bernoulli_ expects p to be in [0, 1]")
    with gen._lock:
        u = _units(gen, p.size, np.float64 if np.dtype(dtype) == np.float64 else _f32)
    return u.reshape(p.shape) < p.astype(u.dtype)


def exponential(gen, shape, lambd=1.0) -> np.ndarray:
    """``exponential_distribution<double>``: ``-1 / lambd * log1p(-u)``, float64 (the C
    library's log1p: NumPy's differs from it in the last bit now and then)."""
    n = math.prod(shape)
    with gen._lock:
        u = _units(gen, n, np.float64)
    logs = np.fromiter(map(math.log1p, -u), np.float64, n)
    return (-1.0 / lambd * logs).reshape(shape)


def multinomial(gen, probs, num_samples, replacement) -> np.ndarray:
    """PyTorch's ``multinomial``: without replacement (or for one sample) the indices of
    the largest ``p / q`` with q exponential (the Gumbel trick, all rows' q drawn at
    once); with replacement, per row, a float64 uniform found by binary search in the
    row's normalised running sum (the last set to 1)."""
    probs = np.asarray(probs)
    if probs.ndim not in (1, 2):
        raise EngineError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind != "f":
        raise EngineError("multinomial only supports floating-point dtypes for input")
    categories = probs.shape[-1]
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise EngineError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > categories:
        raise EngineError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = probs.reshape(-1, categories)
    if not replacement or num_samples == 1:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            raise EngineError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(axis=1) == 0):
            raise EngineError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = exponential(gen, rows.shape).astype(probs.dtype)
        ratio = rows / q
        # topk's order: the largest first; argsort is stable, so ties keep the lower index.
        picked = np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples]
    else:
        picked = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):
            if np.any(row < 0):
                raise EngineError(
                    "invalid multinomial distribution (encountering probability entry < 0)"
                )
            if not np.all(np.isfinite(row)):
                raise EngineError(
                    "invalid multinomial distribution (encountering probability entry = "
                    "infinity or NaN)"
                )
            running = np.cumsum(row, dtype=row.dtype)  # in the row's dtype, in order
            if not running[-1] > 0:
                raise EngineError("invalid multinomial distribution (sum of probabilities <= 0)")
            running = running / running[-1]
            running[-1] = 1
            with gen._lock:
                u = _units(gen, num_samples, np.float64)
            picked[i] = np.searchsorted(running.astype(np.float64), u, side="left")
    return picked.reshape(probs.shape[:-1] + (num_samples,))
