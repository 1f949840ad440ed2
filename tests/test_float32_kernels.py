"""Float32 elementwise functions against PyTorch's CPU kernels, bit for bit.

Each function runs on 20,000 inputs (normal, tiny, huge, negative, subnormal, 0, -0, inf,
nan, the bounds where a kernel changes branch) laid out as PyTorch lays a tensor out
(1-d, 0-d, one element, odd lengths, 2-d slices, transposes, spaced entries), because
PyTorch computes some entries with vectors and others with scalars by their place.
Where PyTorch calls Intel MKL's unpublished VML functions, gradcli gives the correctly
rounded value (float64, rounded once, an independent computation); those tests hold it
within one ulp of PyTorch's and equal to the correctly rounded value."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import gradcli
from gradcli.engine import float32_kernels as f32

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests")
F32 = np.float32

needs_avx512 = pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() != "AVX512",
    reason="the split between vector and scalar entries here is PyTorch's AVX-512 build's",
)
needs_vectors = pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() not in ("AVX512", "AVX2"),
    reason="PyTorch's build without AVX2 computes these with other functions",
)
needs_mkl = pytest.mark.skipif(
    not torch.backends.mkl.is_available(), reason="PyTorch without MKL computes these otherwise"
)


def inputs(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    k = n // 5
    parts = [
        (rng.standard_normal(k) * 4).astype(F32),
        (rng.random(k) * 240 - 120).astype(F32),  # past exp's overflow and underflow
        rng.integers(0, 2**32, k, dtype=np.uint64).astype(np.uint32).view(F32),  # any bits
        rng.integers(1, 2**23, k // 2, dtype=np.uint32).view(F32),  # subnormals
        (rng.random(k // 2) * 2e-3 - 1e-3).astype(F32),  # near 0
        (10.0 ** rng.uniform(-38, 38, k)).astype(F32) * rng.choice([F32(-1), F32(1)], k),
    ]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.0, -1.0, -0.99999994,
               -1.0000001, 88.72283, 88.72284, -87.33655, -103.97, -104.0, -104.00001, 100.0,
               100.00001, -16.635532, 3.4028235e38, -3.4028235e38, 1e38, 2e38]  # fmt: skip
    parts.append(np.array(special, F32))
    return np.concatenate(parts)[:n] if sum(map(len, parts)) > n else np.concatenate(parts)


def layouts(x):
    """The same numbers in the layouts whose entries PyTorch splits differently."""
    m = x[: 150 * 100].reshape(150, 100)
    yield "1-d", x
    yield "0-d", x[3]
    yield "one element", x[7:8]
    yield "odd length", x[:1001]
    yield "2-d", m
    yield "2-d slice", m[:, :77]
    yield "transposed", m.T
    yield "transposed slice", m[:40].T[:, 3:]
    yield "spaced", x[::3]
    yield "3-d permuted", x[:6000].reshape(10, 20, 30).transpose(1, 2, 0)


def mismatches(ours, theirs):
    ours, theirs = np.asarray(ours, F32), np.asarray(theirs, F32)
    same = (ours.view(np.uint32) == theirs.view(np.uint32)) | (np.isnan(ours) & np.isnan(theirs))
    return int((~same).sum())


def run_both(name, a):
    """gradcli's and PyTorch's function on the same numbers and layout."""
    t = torch.tensor(a) if np.ndim(a) == 0 else torch.from_numpy(a)
    g = gradcli.tensor(a) if np.ndim(a) == 0 else gradcli.from_numpy(a)
    if name in ("silu", "softplus"):
        ours, theirs = getattr(gradcli.nn.functional, name), getattr(torch.nn.functional, name)
        return ours(g).numpy(), theirs(t).numpy()
    if name == "softplus beta=2, threshold=5":
        return (
            gradcli.nn.functional.softplus(g, 2, 5).numpy(),
            torch.nn.functional.softplus(t, 2, 5).numpy(),
        )
    return getattr(gradcli, name)(g).numpy(), getattr(torch, name)(t).numpy()


@needs_vectors
@pytest.mark.parametrize(
    "name", ["expm1", "log1p", "sigmoid", "silu", "softplus", "softplus beta=2, threshold=5"]
)
def test_bit_for_bit_in_every_layout(name):
    x = inputs()
    with np.errstate(all="ignore"):
        found = {label: mismatches(*run_both(name, a)) for label, a in layouts(x)}
    assert found == dict.fromkeys(found, 0)


@needs_avx512
def test_a_big_row_is_cut_among_threads_as_pytorch_cuts_it():
    # 100,003 entries on 2 threads: two rows of 50,002 and 50,001, each with its own tail.
    lanes = f32.vector_lanes(np.zeros(100003, F32), threads=2)
    scalar = np.flatnonzero(~lanes)
    assert scalar.tolist() == [*range(49984, 50002), *range(99986, 100003)]


@needs_avx512
def test_the_lanes_of_a_slice_and_of_spaced_entries():
    rows = f32.vector_lanes(np.zeros((4, 50), F32)[:, :40])
    assert rows[:, :32].all() and not rows[:, 32:].any()
    assert not f32.vector_lanes(np.zeros(200, F32)[::2]).any()
    assert not f32.vector_lanes(np.zeros((), F32)).any()


@needs_vectors
def test_tanh_gradient_has_its_multiply_add_fused_as_pytorch():
    rng = np.random.default_rng(1)
    g = rng.standard_normal(20000).astype(F32)
    y = np.tanh(rng.standard_normal(20000)).astype(F32)
    theirs = torch.ops.aten.tanh_backward(torch.from_numpy(g), torch.from_numpy(y)).numpy()
    ours = gradcli.engine.ops.elementwise.tanh_backward(
        gradcli.from_numpy(g), gradcli.from_numpy(y)
    )
    assert mismatches(ours.numpy(), theirs) == 0
    for n in (1, 20):  # PyTorch's scalar loop
        theirs = torch.ops.aten.tanh_backward(torch.from_numpy(g[:n]), torch.from_numpy(y[:n]))
        ours = gradcli.engine.ops.elementwise.tanh_backward(
            gradcli.from_numpy(g[:n]), gradcli.from_numpy(y[:n])
        )
        assert mismatches(ours.numpy(), theirs.numpy()) == 0


@needs_vectors
def test_a_float32_sigmoid_trained_value_prints_as_pytorch():
    x = np.array([0.3, -1.7, 2.25], F32)
    ours = gradcli.sigmoid(gradcli.from_numpy(x) * 3).sum()
    theirs = torch.sigmoid(torch.from_numpy(x) * 3).sum()
    assert ours.item() == theirs.item()


VML = {"exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "sin": np.sin,
       "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "atan": np.arctan,
       "erf": lambda x: np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)}  # fmt: skip


@needs_mkl
@pytest.mark.parametrize("name", sorted(VML))
def test_vml_functions_are_correctly_rounded_and_within_an_ulp_of_pytorch(name):
    x = inputs()
    with np.errstate(all="ignore"):
        ours, theirs = run_both(name, x)
        rounded = VML[name](x.astype(np.float64)).astype(F32)
    assert mismatches(ours, rounded) == 0
    finite = np.isfinite(theirs) & np.isfinite(ours)
    apart = np.abs(ours[finite].view(np.int32).astype(np.int64) - theirs[finite].view(np.int32))
    assert apart.max() <= 1
    assert mismatches(ours[~finite], theirs[~finite]) == 0


def exact_fma(a, b, c):
    """a*b + c rounded once to float32, from the exact rational value (ties to even)."""
    value = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    near = np.float32(float(value))
    candidates = (np.nextafter(near, F32(-np.inf)), near, np.nextafter(near, F32(np.inf)))

    def distance_then_odd(v):
        return abs(Fraction(float(v)) - value), int(np.array(v).view(np.uint32)) & 1

    return min(candidates, key=distance_then_odd)


def test_fma_rounds_once():
    # a*b = 1 + 2**-11 + 2**-24, a float32 midpoint; c tips it up by far less than a
    # float64 ulp: rounding the float64 sum to nearest, then to float32, gives 1 + 2**-11.
    a = b = F32(1 + 2**-12)
    assert f32.fma(a, b, F32(2**-80)) == F32(1 + 2**-11 + 2**-23)
    assert f32.fma(a, b, F32(-(2**-80))) == F32(1 + 2**-11)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3000)).astype(F32)
    c = (rng.standard_normal(3000) * 10.0 ** rng.integers(-12, 2, 3000)).astype(F32)
    ours = f32.fma(a, b, c)
    assert all(ours[i] == exact_fma(a[i], b[i], c[i]) for i in range(3000))
